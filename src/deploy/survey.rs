//! What a deploy finds before it changes anything: folio's record and the store's listing,
//! each file's MD5 and the plan made from them ([`survey`]); whether acting on it would
//! write anything ([`writes`]); and, when it would, the lease taken and the store surveyed
//! again if another deploy wrote meanwhile ([`lease`]).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

/// Folders the record may name beyond the build's (a language, a size or a user's folder
/// removed since) before the prefix is listed once instead of folder by folder.
const RECORDED_FOLDERS: usize = 64;

use super::lease::{Lease, Terms};
use super::ledger::Ledger;
use super::outgoing;
use super::plan::{self, Action};
use super::record::{self, DeployRecord};
use super::remote::{self, Remote};
use crate::diag::first_keys;
use crate::error::Failure;

/// The store as a survey found it, and the plan made from it.
pub(super) struct Surveyed {
    pub old: DeployRecord,
    /// The record's ETag when it was read (`None`: there was none).
    pub record_etag: Option<String>,
    /// The files to publish, each with its MD5.
    pub outgoing: Vec<outgoing::OutgoingFile>,
    /// Per file, the modification time a listing without ETags showed for its object
    /// (what vouches for it next time on such a store; `None` elsewhere).
    pub modified: Vec<Option<i64>>,
    /// The store's listings may carry no ETags (some S3-compatible servers): one showed
    /// an object without, or nothing was listed to tell (a first deploy). Then the
    /// modification times of what this deploy uploads are learnt, as what vouches for
    /// those objects next time.
    pub etagless: bool,
    pub plan: plan::Plan,
    pub doomed: Vec<remote::Doomed>,
    /// The record could not be read (`--repair`): it is written anew.
    pub repairing: bool,
}

/// Reads folio's record, lists the folders of folio's keys, learns each file's MD5 (from
/// the record, for bytes folio put there before; else by reading the file), plans, and
/// asks the store what the plan leaves open.
pub(super) async fn survey(
    remote: &Remote<'_>,
    scanned: &Arc<[outgoing::Scanned]>,
    warnings: &mut Vec<String>,
) -> Result<Surveyed, Failure> {
    let read = remote.read_record().await?;
    let (old, record_etag) = (read.record, read.etag);
    // Each file's hash and MD5 are learnt (from the record, for bytes folio put there
    // before; else by reading or rendering the file) while the store is listed. The
    // record's MD5s are known by the bytes' size and xxh3-128, whatever the key: bytes of
    // one size and hash are one content.
    let known: HashMap<(u64, u128), record::Md5> =
        (old.objects.values()).filter_map(|p| Some(((p.size, p.xxh3?), p.md5))).collect();
    let (source, files) = (remote.source()?, scanned.clone());
    let hashing = tokio::task::spawn_blocking(move || {
        source.with_md5(&files, |size, xxh3| known.get(&(size, xxh3)).copied())
    });
    // Without a record (`--repair`), every object below the prefix is surveyed.
    let listing = async {
        match &read.damaged {
            Some(why) => {
                warnings.push(format!(
                    "{}/{} cannot be read ({why}): repairing, every object below the prefix is surveyed",
                    remote.store.target.display(),
                    record::RECORD
                ));
                remote.list_all().await
            }
            None => {
                let folder = |key: &str| key.rsplit_once('/').map_or("", |(f, _)| f).to_string();
                let own: BTreeSet<String> = scanned.iter().map(|f| folder(&f.rel)).collect();
                let recorded = (old.objects.keys().chain(old.deleting.keys()))
                    .chain(old.pending.keys())
                    .map(|k| folder(k))
                    .filter(|f| !own.contains(f));
                let others: BTreeSet<String> = recorded.collect();
                if others.len() > own.len().max(RECORDED_FOLDERS) {
                    // A record can name any folders (someone else may write it): past what
                    // a build of folio leaves, one listing of the prefix costs what the
                    // store holds, not what the record says.
                    warnings.push(format!(
                        "the deploy record names {} folders this build has not: the prefix is listed once instead of folder by folder",
                        others.len()
                    ));
                    remote.list_all().await
                } else {
                    let keys = (scanned.iter().map(|f| f.rel.as_str()))
                        .chain(old.objects.keys().map(String::as_str))
                        .chain(old.deleting.keys().map(String::as_str))
                        .chain(old.pending.keys().map(String::as_str));
                    remote.list(keys).await
                }
            }
        }
    };
    let (listing, outgoing) = futures::join!(listing, hashing);
    remote.progress.start("hash", 0);
    let outgoing = outgoing.map_err(|e| anyhow::anyhow!("hashing the files: {e}"))??;
    let listing = listing?;
    let mut plan = plan::plan(&outgoing, &listing, &old, remote.opts.force);
    remote.check(&outgoing, &mut plan).await?;
    let mut doomed = remote.confirm(&plan).await?;
    let repairing = read.damaged.is_some();
    if repairing {
        // folio's objects the build does not have: those that carry its metadata.
        let produced: std::collections::HashSet<&str> =
            outgoing.iter().map(|f| f.rel.as_str()).collect();
        let stale: Vec<String> =
            listing.keys().filter(|k| !produced.contains(k.as_str())).cloned().collect();
        let (owned, unmarked) = remote.folio_owned(stale).await?;
        doomed = owned;
        if !unmarked.is_empty() {
            warnings.push(format!(
                "{} objects below the prefix that the build does not have carry an MD5 in `md5chksum` metadata but not folio's mark (another tool's, such as Hugo's or s3cmd's, or an earlier folio's): left as they are: {}",
                unmarked.len(),
                first_keys(&unmarked)
            ));
        }
        // What the lost record owed the CDN is unknown: every key of the build is purged.
        plan.cut.extend(outgoing.iter().map(|f| f.rel.clone()));
    }
    let etagless = listing.is_empty() || listing.values().any(|l| l.etag.is_empty());
    let modified = (outgoing.iter())
        .map(|f| {
            let listed = listing.get(&f.rel).filter(|l| l.etag.is_empty() && l.size == f.size);
            listed.and_then(|l| l.modified)
        })
        .collect();
    Ok(Surveyed { old, record_etag, outgoing, modified, etagless, plan, doomed, repairing })
}

/// Would acting on `s` write anything to the store (an object, a delete, the record) or
/// send a purge?
pub(super) fn writes(s: &Surveyed, ledger: &Ledger) -> bool {
    let keeps = kept(&s.plan);
    keeps.iter().any(Option::is_none)
        || !s.doomed.is_empty()
        || !s.plan.cut.is_empty()
        || !s.old.pending.is_empty()
        || !s.old.deleting.is_empty()
        || ledger.owes_payment()
        || ledger.owed() != s.old.owed
        || s.repairing
        || plan::objects_after(&s.outgoing, &keeps, &s.modified) != s.old.objects
}

/// One deploy at a time writes to the store (`lease.rs`); a deploy with nothing to write
/// (a no-op, a dry run) takes no lease and sends no write request. One that took the lease
/// goes on with its survey when no deploy wrote to the store meanwhile (the record is as
/// it was, with nothing in flight), and surveys again otherwise.
pub(super) async fn lease(
    remote: &Remote<'_>,
    scanned: &Arc<[outgoing::Scanned]>,
    s: Surveyed,
    terms: Terms<'_>,
    warnings: &mut Vec<String>,
) -> Result<Surveyed, Failure> {
    let (lease, warning) = Lease::take(remote.store, terms).await?;
    warnings.extend(warning);
    let _ = remote.lease.set(lease);
    let idle = s.old.pending.is_empty() && s.old.deleting.is_empty();
    if idle && remote.record_etag().await? == s.record_etag {
        return Ok(s);
    }
    survey(remote, scanned, warnings).await
}

/// Per file, the ETag of the object the plan keeps (`None`: it is uploaded).
pub(super) fn kept(plan: &plan::Plan) -> Vec<Option<String>> {
    (plan.actions.iter())
        .map(|a| match a {
            Action::Keep(etag) => Some(etag.clone()),
            _ => None,
        })
        .collect()
}
