//! The store side of a deploy, one method a phase: list the prefix and read folio's
//! record, HEAD what the record does not vouch for, confirm that what is to be deleted is
//! still folio's, upload, delete, write the record. Each request names the object and the
//! store's own words when it fails (exit 2).

use std::collections::BTreeSet;

use futures::StreamExt;
use object_store::{
    Attribute, Attributes, GetOptions, PutMode, PutOptions, PutPayload, UpdateVersion,
};

use super::deployed::Deployed;
use super::lease::{LEASE, Lease};
use super::options::Options;
use super::outgoing::{self, OutgoingFile, Phase};
use super::plan::{self, Action, Head, Plan, Reason};
use super::record::{self, DeployRecord, Md5, Put, RECORD};
use super::store::Store;
use crate::error::{Failure, Refusal, WayOut};
use crate::fault_injection::Step;
use crate::site::Progress;

mod listing;

/// The metadata key that carries an object's MD5 (hugo's name), for stores whose ETag is
/// not an MD5; folio also reads it to know an object as its own.
const MD5_METADATA: &str = "md5chksum";

/// folio's own mark on every object it uploads (metadata `folio`, its value the writer):
/// `md5chksum` alone is a convention other tools share (Hugo, s3cmd), so `--repair`
/// deletes only what carries this.
const MARK_METADATA: &str = "folio";

/// One deploy's view of the store.
pub struct Remote<'a> {
    pub store: &'a Store,
    /// This deploy's lease on the store once it holds one, checked before each write to
    /// the record and the deletes.
    pub lease: std::sync::OnceLock<Lease>,
    /// Where the files come from: `output/`, or the data rendered in memory (let go once
    /// every file is sent: [`Remote::sent_all`]).
    pub source: std::sync::Mutex<Option<std::sync::Arc<super::source::Source>>>,
    pub opts: &'a Options,
    /// `[deploy]`, checked.
    pub settings: &'a crate::config::Deploy,
    pub progress: &'a dyn Progress,
    /// The record's version as this deploy last read or wrote it (`None`: there was
    /// none): a record write is conditional on it, so that a deploy that lost its lease
    /// can never overwrite the record of the one that took it over.
    pub record_version: std::sync::Mutex<Option<UpdateVersion>>,
}

/// folio's record as read from the store.
pub struct ReadRecord {
    pub record: DeployRecord,
    /// Its ETag (`None`: there is none).
    pub etag: Option<String>,
    /// Why it could not be read, when `--repair` goes on without it.
    pub damaged: Option<String>,
}

/// The order of uploads, each rank done before the next begins: objects that are new to
/// the store and that nothing on it links to yet (a new page that is not a listing's first:
/// only pages of the new build link to it); then new first pages (a client may start
/// there, so what they link to is up already); then pages whose bytes or headers changed
/// (everything they link to is there: new keys went first, old ones are deleted last);
/// then what links to pages (the index, the OpenAPI document, the explorer, host files).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Rank {
    NewPages,
    NewEntries,
    ChangedPages,
    Links,
}

impl Rank {
    pub const ALL: [Rank; 4] = [Rank::NewPages, Rank::NewEntries, Rank::ChangedPages, Rank::Links];

    fn as_str(self) -> &'static str {
        match self {
            Rank::NewPages => "upload new pages",
            Rank::NewEntries => "upload new first pages",
            Rank::ChangedPages => "upload changed pages",
            Rank::Links => "upload the rest",
        }
    }
}

/// When `f`, uploaded for `reason`, goes ([`Rank`]).
pub fn rank(f: &OutgoingFile, reason: Reason) -> Rank {
    match (f.phase, reason) {
        (Phase::Links, _) => Rank::Links,
        (Phase::Pages, Reason::Missing) => Rank::NewPages,
        (Phase::Entries, Reason::Missing) => Rank::NewEntries,
        (Phase::Pages | Phase::Entries, _) => Rank::ChangedPages,
    }
}

/// An object to delete: folio's old object (with its record entry), or one a deploy cut
/// short uploaded.
#[derive(Debug, Clone)]
pub struct Doomed {
    pub key: String,
    pub put: Option<Put>,
}

use super::outgoing::md5_of;

impl Remote<'_> {
    fn failed(&self, what: &str, rel: &str, e: object_store::Error) -> Failure {
        self.store.failure(what, rel, e)
    }

    fn check_lease(&self) -> Result<(), Failure> {
        self.lease.get().map_or(Ok(()), |lease| lease.check(self.store))
    }

    /// The record's ETag now (`None`: there is none).
    pub async fn record_etag(&self) -> Result<Option<String>, Failure> {
        let head = GetOptions { head: true, ..GetOptions::default() };
        match self.store.inner.get_opts(&self.store.target.key(RECORD), head).await {
            Ok(got) => Ok(Some(got.meta.e_tag.unwrap_or_default().trim_matches('"').to_string())),
            Err(object_store::Error::NotFound { .. }) => Ok(None),
            Err(e) => Err(self.failed("reading", RECORD, e)),
        }
    }

    /// folio's record on the store. One that cannot be read stops the deploy (it may hold
    /// deletes and purges still owed: overwriting it would lose them), unless `--repair`
    /// goes on without it; one of a newer format stops it in any case (this folio would
    /// downgrade it).
    pub async fn read_record(&self) -> Result<ReadRecord, Failure> {
        let target = &self.store.target;
        self.progress.start("read the record", 0);
        let got = match self.store.inner.get_opts(&target.key(RECORD), GetOptions::default()).await
        {
            Ok(got) => got,
            Err(object_store::Error::NotFound { .. }) => {
                *self.record_version.lock().unwrap_or_else(|p| p.into_inner()) = None;
                return Ok(ReadRecord {
                    record: DeployRecord::default(),
                    etag: None,
                    damaged: None,
                });
            }
            Err(e) => return Err(self.failed("reading", RECORD, e)),
        };
        let etag = Some(got.meta.e_tag.clone().unwrap_or_default().trim_matches('"').to_string());
        let version =
            UpdateVersion { e_tag: got.meta.e_tag.clone(), version: got.meta.version.clone() };
        *self.record_version.lock().unwrap_or_else(|p| p.into_inner()) = Some(version);
        // Decompressed up to a limit of the size the store lists: a bomb stops there.
        let max = record::limit(got.meta.size);
        let bytes = got.bytes().await.map_err(|e| self.failed("reading", RECORD, e))?;
        let why = match DeployRecord::from_bytes_within(&bytes, max) {
            Ok(record) => return Ok(ReadRecord { record, etag, damaged: None }),
            Err(newer @ record::Unreadable::Newer { .. }) => {
                return Err(Failure::Refused(Refusal::new(
                    format!("{}/{RECORD}: {newer}", target.display()),
                    WayOut::NewerFolio,
                )));
            }
            Err(record::Unreadable::Damaged(why)) => why,
        };
        if self.opts.repair {
            return Ok(ReadRecord { record: DeployRecord::default(), etag, damaged: Some(why) });
        }
        Err(Failure::Refused(Refusal::new(
            format!(
                "{}/{RECORD} cannot be read ({why}); it may hold deletes and purges still owed, so folio does not overwrite it",
                target.display()
            ),
            WayOut::Repair,
        )))
    }

    /// Decides every [`Action::Check`] of `plan` with a HEAD.
    pub async fn check(&self, outgoing: &[OutgoingFile], plan: &mut Plan) -> Result<(), Failure> {
        let checks: Vec<usize> =
            (0..outgoing.len()).filter(|&i| plan.actions[i] == Action::Check).collect();
        self.progress.start("check", checks.len() as u64);
        let heads = futures::stream::iter(checks.into_iter().map(|i| async move {
            let key = self.store.target.key(&outgoing[i].rel);
            let options = GetOptions { head: true, ..GetOptions::default() };
            (i, self.store.inner.get_opts(&key, options).await)
        }))
        .buffer_unordered(self.settings.concurrency);
        futures::pin_mut!(heads);
        while let Some((i, got)) = heads.next().await {
            let f = &outgoing[i];
            plan.actions[i] = match got {
                Ok(r) => plan::check(f, &self.head_of(&r.meta, &r.attributes)),
                Err(object_store::Error::NotFound { .. }) => Action::Upload(Reason::Missing),
                Err(e) => return Err(self.failed("checking", &f.rel, e)),
            };
            // Kept, and the bytes the record holds: nothing changed behind its back.
            if matches!(plan.actions[i], Action::Keep(_))
                && plan.unvouched.get(&f.rel) == Some(&f.md5)
            {
                plan.cut.remove(&f.rel);
            }
            self.progress.inc();
        }
        Ok(())
    }

    /// The objects of `plan` to delete that a request confirms are folio's: folio's old
    /// objects still holding what folio wrote, and what a cut deploy uploaded that this
    /// build does not have. On a store that keeps metadata, folio's MD5 metadata must be
    /// there and match; on a folder, the bytes are read and hashed.
    pub async fn confirm(&self, plan: &Plan) -> Result<Vec<Doomed>, Failure> {
        let candidates: Vec<(Doomed, BTreeSet<Md5>)> = (plan.deletes.iter())
            .map(|(key, put)| {
                (Doomed { key: key.clone(), put: Some(put.clone()) }, [put.md5].into())
            })
            .chain(
                plan.orphans
                    .iter()
                    .map(|(key, md5s)| (Doomed { key: key.clone(), put: None }, md5s.clone())),
            )
            .collect();
        if candidates.is_empty() {
            return Ok(Vec::new());
        }
        self.progress.start("confirm", candidates.len() as u64);
        let confirmed = futures::stream::iter(candidates.into_iter().map(|(d, md5s)| async move {
            let written = self.written_md5(&d.key).await;
            (d, md5s, written)
        }))
        .buffer_unordered(self.settings.concurrency);
        futures::pin_mut!(confirmed);
        let mut doomed = Vec::new();
        while let Some((d, md5s, written)) = confirmed.next().await {
            if written?.is_some_and(|md5| md5s.contains(&md5)) {
                doomed.push(d);
            }
            self.progress.inc();
        }
        doomed.sort_by(|a, b| a.key.cmp(&b.key));
        Ok(doomed)
    }

    /// The MD5 folio wrote at `rel`, as far as the store shows it: its metadata on a store
    /// that keeps some, its bytes' on a folder; `None` when it is gone or not folio's.
    async fn written_md5(&self, rel: &str) -> Result<Option<Md5>, Failure> {
        Ok(self.written(rel).await?.map(|(md5, _)| md5))
    }

    /// [`Remote::written_md5`], and whether the object carries folio's mark (always, on a
    /// folder, where nothing does).
    async fn written(&self, rel: &str) -> Result<Option<(Md5, bool)>, Failure> {
        let key = self.store.target.key(rel);
        let head = self.store.keeps_headers;
        let options = GetOptions { head, ..GetOptions::default() };
        let got = match self.store.inner.get_opts(&key, options).await {
            Ok(got) => got,
            Err(object_store::Error::NotFound { .. }) => return Ok(None),
            Err(e) => return Err(self.failed("checking", rel, e)),
        };
        if head {
            // folio's metadata says folio wrote it; where the ETag is an MD5, the bytes
            // must still be the ones that metadata names (not replaced behind folio's
            // back keeping the metadata, which makes them someone else's).
            let md5 = got.attributes.get(&Attribute::Metadata(MD5_METADATA.into()));
            let md5 = md5.and_then(|m| record::etag_md5(m));
            let etag = got.meta.e_tag.as_deref().and_then(record::etag_md5);
            let marked = got.attributes.get(&Attribute::Metadata(MARK_METADATA.into())).is_some();
            return Ok(md5.filter(|m| etag.is_none_or(|e| e == *m)).map(|m| (m, marked)));
        }
        let bytes = got.bytes().await.map_err(|e| self.failed("reading", rel, e))?;
        Ok(Some((md5_of(&bytes), true)))
    }

    /// Uploads `jobs` (indices of outgoing files) in the order [`rank`] gives, each rank done
    /// before the next begins, so that no page on the store links to an object that is
    /// not there yet; the first failure ends the deploy (nothing more is sent, nothing
    /// deleted).
    pub async fn upload(
        &self,
        outgoing: &[OutgoingFile],
        jobs: &[(usize, Reason)],
        etags: &mut [Option<String>],
        out: &mut Deployed,
    ) -> Result<(), Failure> {
        let faults = crate::fault_injection::process();
        for step in Rank::ALL {
            let jobs: Vec<(usize, Reason)> = (jobs.iter().copied())
                .filter(|&(i, reason)| rank(&outgoing[i], reason) == step)
                .collect();
            if jobs.is_empty() {
                continue;
            }
            let what = step.as_str();
            self.progress.start(what, jobs.len() as u64);
            let puts = futures::stream::iter(jobs.into_iter().map(|(i, reason)| async move {
                let f = &outgoing[i];
                let (source, size, xxh3) = (self.source()?, f.size, f.xxh3);
                let rel = f.rel.clone();
                let bytes = tokio::task::spawn_blocking(move || {
                    let bytes = source.bytes(&rel, size, xxh3)?;
                    faults.before_upload().map_err(|e| {
                        Failure::Other(anyhow::Error::from(e).context(format!("uploading `{rel}`")))
                    })?;
                    Ok::<_, Failure>(bytes)
                })
                .await
                .map_err(|e| anyhow::anyhow!("reading `{}`: {e}", f.rel))??;
                let options =
                    PutOptions { attributes: self.attributes(f), ..PutOptions::default() };
                let key = self.store.target.key(&f.rel);
                self.check_lease()?;
                let put = (self.store.inner.put_opts(&key, PutPayload::from(bytes), options).await)
                    .map_err(|e| self.failed("uploading", &f.rel, e))?;
                Ok::<_, Failure>((i, reason, put.e_tag.map(|e| e.trim_matches('"').to_string())))
            }))
            .buffer_unordered(self.settings.concurrency);
            futures::pin_mut!(puts);
            while let Some(done) = puts.next().await {
                let (i, reason, etag) = done?;
                etags[i] = etag;
                out.uploaded.push((outgoing[i].rel.clone(), reason));
                out.bytes += outgoing[i].size;
                self.progress.inc();
            }
        }
        Ok(())
    }

    /// Deletes `doomed`, in batches of 1,000 (S3's), the lease checked before each.
    pub async fn delete(&self, doomed: &[Doomed], out: &mut Deployed) -> Result<(), Failure> {
        if doomed.is_empty() {
            return Ok(());
        }
        let target = &self.store.target;
        (crate::fault_injection::process().before(Step::Delete))
            .map_err(|e| Failure::Other(anyhow::Error::from(e).context("deleting")))?;
        self.progress.start("delete", doomed.len() as u64);
        for batch in doomed.chunks(1000) {
            self.check_lease()?;
            let keys: Vec<object_store::Result<object_store::path::Path>> =
                batch.iter().map(|d| Ok(target.key(&d.key))).collect();
            let mut results = self.store.inner.delete_stream(futures::stream::iter(keys).boxed());
            while let Some(result) = results.next().await {
                match result {
                    Ok(path) => {
                        let rel = target.rel(path.as_ref()).unwrap_or(path.as_ref()).to_string();
                        out.deleted.push(rel);
                    }
                    Err(object_store::Error::NotFound { .. }) => {}
                    Err(e) => return Err(self.failed("deleting", "", e)),
                }
                self.progress.inc();
            }
        }
        Ok(())
    }

    /// Where the files come from, while there are files to send.
    pub fn source(&self) -> Result<std::sync::Arc<super::source::Source>, Failure> {
        let source = self.source.lock().unwrap_or_else(|p| p.into_inner());
        Ok(source.clone().ok_or_else(|| anyhow::anyhow!("the deploy's files were let go"))?)
    }

    /// Every file is sent: data rendered in memory is let go (the loaded records, most of
    /// what a deploy from the data holds), before the record is made and the CDNs paid. A
    /// build's folder stays held until the deploy is done.
    pub fn sent_all(&self) {
        let mut source = self.source.lock().unwrap_or_else(|p| p.into_inner());
        if matches!(source.as_deref(), Some(super::source::Source::Rendered(_))) {
            *source = None;
        }
    }

    /// Writes the record, on the version this deploy last read or wrote (a record that
    /// changed meanwhile was written by a deploy that took the lease over: then nothing
    /// more is sent). A store that cannot write conditionally (a folder, whose lease is
    /// the kernel's lock) is written plainly.
    /// Returns the digest of the record as written ([`DeployRecord::digest`]).
    pub async fn put_record(&self, record: &DeployRecord) -> Result<u128, Failure> {
        self.check_lease()?;
        self.write_record(record).await
    }

    /// Makes sure this deploy still holds its lease, renewing it now if time passed the
    /// fence ([`Lease::reclaim`]): asked before a purge is sent, and before the record that
    /// strikes a purge a CDN has just accepted is written (a strike not written is a purge
    /// paid twice).
    pub async fn reclaim_lease(&self) -> Result<(), Failure> {
        match self.lease.get() {
            Some(lease) => lease.reclaim(self.store).await,
            None => Ok(()),
        }
    }

    async fn write_record(&self, record: &DeployRecord) -> Result<u128, Failure> {
        (crate::fault_injection::process().before(Step::Record)).map_err(|e| {
            Failure::Other(anyhow::Error::from(e).context(format!("writing {RECORD}")))
        })?;
        let mut attributes = Attributes::new();
        if self.store.keeps_headers {
            attributes.insert(Attribute::ContentType, "application/gzip".into());
        }
        let key = self.store.target.key(RECORD);
        let json = record.json();
        let digest = crate::output::hash(&json);
        let bytes = PutPayload::from(crate::compress::Codec::Gzip.compress(&json));
        let conditional = self.store.conditional;
        let version = self.record_version.lock().unwrap_or_else(|p| p.into_inner()).clone();
        let mode = match version {
            _ if !conditional => PutMode::Overwrite,
            Some(version) => PutMode::Update(version),
            None => PutMode::Create,
        };
        let options = PutOptions { attributes: attributes.clone(), mode, ..PutOptions::default() };
        let put = match self.store.inner.put_opts(&key, bytes.clone(), options).await {
            Err(object_store::Error::NotImplemented { .. }) => {
                let options = PutOptions { attributes, ..PutOptions::default() };
                self.store.inner.put_opts(&key, bytes, options).await
            }
            Err(
                object_store::Error::Precondition { .. }
                | object_store::Error::AlreadyExists { .. },
            ) => {
                return Err(Failure::Stopped(Refusal::new(
                    format!(
                        "{}/{RECORD} changed under this deploy (another deploy took its lease over); nothing more was sent",
                        self.store.target.display()
                    ),
                    WayOut::DeployAgain,
                )));
            }
            other => other,
        };
        let put = put.map_err(|e| self.failed("writing", RECORD, e))?;
        *self.record_version.lock().unwrap_or_else(|p| p.into_inner()) =
            Some(UpdateVersion { e_tag: put.e_tag, version: put.version });
        Ok(digest)
    }

    /// What a HEAD shows of an object, as [`plan::check`] compares it.
    fn head_of(&self, meta: &object_store::ObjectMeta, attrs: &Attributes) -> Head {
        let get = |a: Attribute| attrs.get(&a).map(|v| v.to_string());
        Head {
            size: meta.size,
            etag: meta.e_tag.clone().unwrap_or_default().trim_matches('"').to_string(),
            md5: get(Attribute::Metadata(MD5_METADATA.into())).and_then(|m| record::etag_md5(&m)),
            headers: self.store.keeps_headers.then(|| outgoing::Headers {
                content_type: get(Attribute::ContentType).unwrap_or_default(),
                cache_control: get(Attribute::CacheControl),
                content_encoding: get(Attribute::ContentEncoding),
            }),
        }
    }

    /// The headers and metadata folio sets on `f` (none on a store that keeps none).
    fn attributes(&self, f: &OutgoingFile) -> Attributes {
        let mut attrs = Attributes::new();
        if self.store.keeps_headers {
            let h = &f.headers;
            attrs.insert(Attribute::ContentType, h.content_type.clone().into());
            if let Some(cc) = &h.cache_control {
                attrs.insert(Attribute::CacheControl, cc.clone().into());
            }
            if let Some(ce) = &h.content_encoding {
                attrs.insert(Attribute::ContentEncoding, ce.clone().into());
            }
            attrs.insert(Attribute::Metadata(MD5_METADATA.into()), record::md5_hex(&f.md5).into());
            let writer = format!("folio {}", env!("CARGO_PKG_VERSION"));
            attrs.insert(Attribute::Metadata(MARK_METADATA.into()), writer.into());
        }
        attrs
    }
}
