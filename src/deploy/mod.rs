//! `folio deploy`: publishes the finished build in `output/` to object storage,
//! incrementally. It lists the store, reads folio's record of what it put there
//! (`record.rs`), plans (`plan.rs`: upload what is missing, whose bytes differ, or whose
//! headers differ; keep the rest), uploads pages first and then what links to them, writes
//! the record, and only then deletes what folio put there before and no longer produces —
//! when every upload succeeded, never more than `max_deletes`, never an object folio did
//! not write. A kill or a failure at any point leaves a usable store (old pages are
//! deleted last), and the next deploy finishes the job. It also says what a CDN must
//! purge (`purge.rs`).
//!
//! It does not build: it refuses an `output/` with no build, a build half switched in, or
//! a build made from another `folio.toml`.

pub mod local;
pub mod plan;
pub mod purge;
pub mod record;
pub mod store;

use std::collections::HashMap;
use std::time::Instant;

use anyhow::Context;
use futures::StreamExt;
use object_store::{Attribute, Attributes, GetOptions, PutOptions, PutPayload};

use crate::config::{BaseUrl, Envelope, Project};
use crate::error::Failure;
use crate::output::manifest::{MANIFEST, Manifest};
use crate::site::Progress;
use local::{LocalFile, Phase, Roles};
use plan::{Action, Head, Listed, Reason};
use record::{RECORD, Record};
use store::{Store, Target};

/// The metadata key that carries an object's MD5 (hugo's name), for stores whose ETag is
/// not an MD5.
const MD5_METADATA: &str = "md5chksum";

/// What a deploy was asked to do: `[deploy]` with the command line's overrides applied.
#[derive(Debug, Clone)]
pub struct Options {
    pub url: String,
    pub endpoint: String,
    pub region: String,
    pub dry_run: bool,
    pub force: bool,
    pub max_deletes: u64,
    pub concurrency: usize,
    pub siblings: bool,
}

/// What a deploy did (or, with `--dry-run`, would do).
#[derive(Debug, Clone, Default)]
pub struct Deployed {
    pub target: String,
    pub dry_run: bool,
    /// Keys uploaded, with why, in upload order.
    pub uploaded: Vec<(String, Reason)>,
    pub unchanged: usize,
    pub deleted: Vec<String>,
    pub bytes: u64,
    pub seconds: f64,
    /// Files left out (symlinks), a record that could not be read.
    pub warnings: Vec<String>,
    /// The base URL the build's links start with.
    pub base_url: String,
    pub purge: purge::Purge,
}

/// The finished build in `output/`, or why there is none.
pub fn finished(project: &Project) -> Result<Manifest, Failure> {
    let out = &project.output_dir;
    let shown = crate::diag::display_path(out).display().to_string();
    if crate::output::half_switched(out) {
        return Err(Failure::Refused(format!(
            "a build is half switched into `{shown}`: run `folio build` to finish it, then deploy"
        )));
    }
    let path = out.join(MANIFEST);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Failure::Refused(format!(
                "no build in `{shown}`: run `folio build`, then deploy"
            )));
        }
        Err(e) => {
            return Err(anyhow::Error::from(e)
                .context(format!("reading `{}`", path.display()))
                .into());
        }
    };
    let manifest = Manifest::from_bytes(&bytes).map_err(|e| {
        Failure::Refused(format!(
            "`{}`: {e}; run `folio build`, then deploy",
            crate::diag::display_path(&path).display()
        ))
    })?;
    if manifest.stamp.config != project.config_digest {
        return Err(Failure::Refused(format!(
            "`{}` changed since `{shown}` was built: run `folio build`, then deploy",
            project.config_path.display()
        )));
    }
    Ok(manifest)
}

/// Publishes `output/` as `opts` says.
pub fn deploy(
    project: &Project,
    opts: &Options,
    progress: &dyn Progress,
) -> Result<Deployed, Failure> {
    let start = Instant::now();
    let manifest = finished(project)?;
    let target =
        Target::parse(&opts.url).map_err(|e| Failure::Refused(format!("the deploy URL {e}")))?;
    progress.start("scan", 0);
    let roles = Roles::new(project, opts.siblings);
    let (local, warnings) = local::scan(&project.output_dir, &roles)?;
    let store = store::connect(&target, &opts.endpoint, &opts.region)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .context("starting the deploy's runtime")?;
    let mut deployed = runtime.block_on(run(&store, &local, project, opts, progress))?;
    progress.finish();
    deployed.warnings = [warnings, deployed.warnings].concat();
    deployed.target = target.display();
    deployed.base_url = manifest.stamp.base_url.clone();
    let site = purge::Site {
        base: BaseUrl::parse(&manifest.stamp.base_url).unwrap_or_default(),
        resource: project.resource.clone(),
        languages: project.languages.clone(),
        default_size: project.default_page_size,
        laravel: matches!(project.envelope, Envelope::Laravel | Envelope::LaravelResource),
    };
    let changed = deployed
        .uploaded
        .iter()
        .map(|(k, _)| k.as_str())
        .chain(deployed.deleted.iter().map(String::as_str));
    deployed.purge = purge::purge(&site, changed);
    deployed.seconds = start.elapsed().as_secs_f64();
    Ok(deployed)
}

/// A failure of the store, naming what folio was doing, the object, and the store's own
/// words (exit 2).
fn remote(what: &str, rel: &str, store: &Store, e: object_store::Error) -> Failure {
    let on = store.target.display();
    let doing =
        if rel.is_empty() { format!("{what} {on}") } else { format!("{what} `{rel}` on {on}") };
    Failure::Other(anyhow::anyhow!("{doing}: {}", store_says(&e)))
}

/// What a store error comes down to, in one line: object_store's errors repeat their
/// sources in their messages, so the chain is read once here. An S3-style error body gives
/// its status, code and message (`403 Forbidden: InvalidAccessKeyId: The AWS Access Key
/// Id you provided does not exist in our records.`); a transport error its root cause and
/// the retries made.
pub fn store_says(e: &(dyn std::error::Error + 'static)) -> String {
    let mut chain = vec![e.to_string()];
    let mut source = e.source();
    while let Some(s) = source {
        chain.push(s.to_string());
        source = s.source();
    }
    let between = |text: &str, open: &str, close: &str| -> Option<String> {
        let start = text.find(open)? + open.len();
        let end = text[start..].find(close)? + start;
        Some(text[start..end].trim().to_string())
    };
    let all = chain.join("\n");
    let status = between(&all, "status code: ", ":");
    match (between(&all, "<Code>", "</Code>"), between(&all, "<Message>", "</Message>")) {
        (Some(code), message) => {
            let mut out = status.map(|s| format!("{s}: ")).unwrap_or_default();
            out.push_str(&code);
            if let Some(m) = message {
                out.push_str(": ");
                out.push_str(&m);
            }
            out
        }
        (None, _) => {
            let root = chain.last().cloned().unwrap_or_default();
            let retries =
                between(&all, "after ", " retries").map(|n| format!(" (after {n} retries)"));
            match status {
                Some(s) => format!("{s}: {root}"),
                None => format!("{root}{}", retries.unwrap_or_default()),
            }
        }
    }
}

async fn run(
    store: &Store,
    local: &[LocalFile],
    project: &Project,
    opts: &Options,
    progress: &dyn Progress,
) -> Result<Deployed, Failure> {
    let mut out = Deployed { dry_run: opts.dry_run, ..Deployed::default() };
    let target = &store.target;

    progress.start("list", 0);
    let mut listing: HashMap<String, Listed> = HashMap::new();
    let mut stream = store.inner.list(target.root().as_ref());
    while let Some(meta) = stream.next().await {
        let meta = meta.map_err(|e| remote("listing", "", store, e))?;
        if let Some(rel) = target.rel(meta.location.as_ref()) {
            let etag = meta.e_tag.unwrap_or_default().trim_matches('"').to_string();
            listing.insert(rel.to_string(), Listed { size: meta.size, etag });
        }
    }
    let record = match listing.remove(RECORD) {
        None => Record::default(),
        Some(_) => {
            let got = store.inner.get_opts(&target.key(RECORD), GetOptions::default()).await;
            let bytes = match got {
                Ok(r) => r.bytes().await.map_err(|e| remote("reading", RECORD, store, e))?,
                Err(object_store::Error::NotFound { .. }) => Default::default(),
                Err(e) => return Err(remote("reading", RECORD, store, e)),
            };
            Record::from_bytes(&bytes).unwrap_or_else(|why| {
                out.warnings.push(format!(
                    "{}/{RECORD} is not folio's record ({why}): every object is checked",
                    target.display()
                ));
                Record::default()
            })
        }
    };

    let mut plan = plan::plan(local, &listing, &record, opts.force);
    let checks: Vec<usize> =
        (0..local.len()).filter(|&i| plan.actions[i] == Action::Check).collect();
    progress.start("check", checks.len() as u64);
    let heads = futures::stream::iter(checks.into_iter().map(|i| async move {
        let key = target.key(&local[i].rel);
        let options = GetOptions { head: true, ..GetOptions::default() };
        let got = store.inner.get_opts(&key, options).await;
        (i, got)
    }))
    .buffer_unordered(opts.concurrency);
    futures::pin_mut!(heads);
    while let Some((i, got)) = heads.next().await {
        let f = &local[i];
        plan.actions[i] = match got {
            Ok(r) => plan::check(f, &head_of(store, &r.meta, &r.attributes)),
            Err(object_store::Error::NotFound { .. }) => Action::Upload(Reason::Missing),
            Err(e) => return Err(remote("checking", &f.rel, store, e)),
        };
        progress.inc();
    }

    if plan.deletes.len() as u64 > opts.max_deletes {
        return Err(Failure::Refused(format!(
            "refusing to delete {} objects from {} (max_deletes is {}): if that is right, pass --max-deletes {}",
            plan.deletes.len(),
            target.display(),
            opts.max_deletes,
            plan.deletes.len()
        )));
    }
    let mut etags: Vec<Option<String>> = plan
        .actions
        .iter()
        .map(|a| match a {
            Action::Keep(etag) => Some(etag.clone()),
            _ => None,
        })
        .collect();
    out.unchanged = etags.iter().filter(|e| e.is_some()).count();
    let uploads: Vec<(usize, Reason)> = plan
        .actions
        .iter()
        .enumerate()
        .filter_map(|(i, a)| match a {
            Action::Upload(reason) => Some((i, *reason)),
            _ => None,
        })
        .collect();
    if opts.dry_run {
        out.uploaded = uploads.iter().map(|&(i, r)| (local[i].rel.clone(), r)).collect();
        out.bytes = uploads.iter().map(|&(i, _)| local[i].size).sum();
        out.deleted = plan.deletes.iter().map(|(k, _)| k.clone()).collect();
        return Ok(out);
    }

    let faults = crate::output::fault::process();
    for phase in [Phase::Pages, Phase::Links] {
        let jobs: Vec<(usize, Reason)> =
            uploads.iter().copied().filter(|&(i, _)| local[i].phase == phase).collect();
        if jobs.is_empty() {
            continue;
        }
        progress.start(
            if phase == Phase::Pages { "upload pages" } else { "upload the rest" },
            jobs.len() as u64,
        );
        let puts = futures::stream::iter(jobs.into_iter().map(|(i, reason)| {
            async move {
                let f = &local[i];
                let path = project.output_dir.join(&f.rel);
                let bytes = std::fs::read(&path)
                    .with_context(|| format!("reading `{}`", path.display()))
                    .map_err(Failure::Other)?;
                if let Err(e) = faults.before_upload() {
                    return Err(Failure::Other(
                        anyhow::Error::from(e).context(format!("uploading `{}`", f.rel)),
                    ));
                }
                let options =
                    PutOptions { attributes: attributes(store, f), ..PutOptions::default() };
                let put = store
                    .inner
                    .put_opts(&target.key(&f.rel), PutPayload::from(bytes), options)
                    .await
                    .map_err(|e| remote("uploading", &f.rel, store, e))?;
                Ok((i, reason, put.e_tag.map(|e| e.trim_matches('"').to_string())))
            }
        }))
        .buffer_unordered(opts.concurrency);
        futures::pin_mut!(puts);
        while let Some(done) = puts.next().await {
            // The first failure ends the deploy: nothing more is sent, nothing deleted.
            let (i, reason, etag) = done?;
            etags[i] = etag;
            out.uploaded.push((local[i].rel.clone(), reason));
            out.bytes += local[i].size;
            progress.inc();
        }
    }

    let mut after = plan::record_after(local, &etags, &plan.deletes);
    if after != record {
        put_record(store, &after).await?;
    }
    if !plan.deletes.is_empty() {
        progress.start("delete", plan.deletes.len() as u64);
        let keys: Vec<object_store::Result<object_store::path::Path>> =
            plan.deletes.iter().map(|(k, _)| Ok(target.key(k))).collect();
        let mut results = store.inner.delete_stream(futures::stream::iter(keys).boxed());
        while let Some(result) = results.next().await {
            match result {
                Ok(path) => {
                    let rel = target.rel(path.as_ref()).unwrap_or(path.as_ref()).to_string();
                    after.deleting.remove(&rel);
                    out.deleted.push(rel);
                }
                Err(object_store::Error::NotFound { path, .. }) => {
                    after.deleting.remove(target.rel(&path).unwrap_or(&path));
                }
                Err(e) => return Err(remote("deleting", "", store, e)),
            }
            progress.inc();
        }
        out.deleted.sort();
        put_record(store, &after).await?;
    }
    out.uploaded.sort();
    Ok(out)
}

/// What a HEAD shows of an object, as [`plan::check`] compares it.
fn head_of(store: &Store, meta: &object_store::ObjectMeta, attrs: &Attributes) -> Head {
    let get = |a: Attribute| attrs.get(&a).map(|v| v.to_string());
    Head {
        size: meta.size,
        etag: meta.e_tag.clone().unwrap_or_default().trim_matches('"').to_string(),
        md5: get(Attribute::Metadata(MD5_METADATA.into())).and_then(|m| record::etag_md5(&m)),
        headers: store.keeps_headers.then(|| local::Headers {
            content_type: get(Attribute::ContentType).unwrap_or_default(),
            cache_control: get(Attribute::CacheControl),
            content_encoding: get(Attribute::ContentEncoding),
        }),
    }
}

/// The headers and metadata folio sets on `f` (none on a store that keeps none).
fn attributes(store: &Store, f: &LocalFile) -> Attributes {
    let mut attrs = Attributes::new();
    if store.keeps_headers {
        let h = &f.headers;
        attrs.insert(Attribute::ContentType, h.content_type.clone().into());
        if let Some(cc) = &h.cache_control {
            attrs.insert(Attribute::CacheControl, cc.clone().into());
        }
        if let Some(ce) = &h.content_encoding {
            attrs.insert(Attribute::ContentEncoding, ce.clone().into());
        }
        attrs.insert(Attribute::Metadata(MD5_METADATA.into()), record::hex(&f.md5).into());
    }
    attrs
}

async fn put_record(store: &Store, record: &Record) -> Result<(), Failure> {
    let mut attrs = Attributes::new();
    if store.keeps_headers {
        attrs.insert(Attribute::ContentType, "application/gzip".into());
    }
    let options = PutOptions { attributes: attrs, ..PutOptions::default() };
    store
        .inner
        .put_opts(&store.target.key(RECORD), PutPayload::from(record.to_bytes()), options)
        .await
        .map_err(|e| remote("writing", RECORD, store, e))?;
    Ok(())
}
