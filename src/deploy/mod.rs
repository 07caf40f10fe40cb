//! `folio deploy`: publishes the finished build in `output/` to object storage,
//! incrementally, as one build.
//!
//! The phases, each a function: hold the output folder's lock (shared: a build waits
//! until the deploy is done), check the build is a finished one of this config, scan it
//! (`local.rs`), list the store and read folio's record of it (`record.rs`), plan (`plan.rs`:
//! upload what is missing, whose bytes or headers differ; keep the rest; find what a
//! deploy cut short left), confirm with a request that each object to delete is still
//! folio's, write the record's intent (what is about to be uploaded and deleted), upload
//! pages and then what links to them (each file's bytes read once, checked against the
//! scan's MD5, and sent as read), delete, hand over the purge list (`purge.rs`), and write
//! the record. A kill or a failure at any point leaves a usable store (old pages are
//! deleted last), and the next deploy finishes the job and purges what the cut one
//! changed. The store-side operations are in `remote.rs`.
//!
//! It does not build: it refuses an `output/` with no build, a build half switched in, or
//! a build made from another `folio.toml` or another `base_url`.

#[cfg(unix)]
pub mod clock;
mod folder;
mod lease;
pub mod local;
pub mod plan;
pub mod purge;
pub mod record;
mod remote;
pub mod store;

use std::collections::{BTreeSet, HashMap};
use std::time::Instant;

use crate::config::Project;
use crate::error::{Failure, Refusal, WayOut};
use crate::output::lock::{Access, Busy, Lock};
use crate::output::manifest::{MANIFEST, Manifest};
use crate::routes::Map;
use crate::site::Progress;
use lease::Lease;
use local::Roles;
use plan::{Action, Reason};
use purge::PurgeList;
use record::Record;
use remote::Remote;
use store::{Scheme, Store, Target};

/// What a deploy was asked to do: `[deploy]` with the command line's overrides applied.
#[derive(Debug, Clone)]
pub struct Options {
    pub url: String,
    pub endpoint: String,
    pub region: String,
    pub dry_run: bool,
    pub force: bool,
    /// Deploy past a record that cannot be read, surveying the whole prefix.
    pub repair: bool,
    pub max_deletes: u64,
    pub concurrency: usize,
    pub siblings: bool,
}

/// Writes a purge list (`--purge-list FILE`); see [`Hooks::purge_list`].
pub type WritePurgeList<'a> = &'a mut dyn FnMut(&PurgeList) -> Result<(), Failure>;

/// How a deploy reports and meets other commands.
pub struct Hooks<'a> {
    pub progress: &'a dyn Progress,
    /// What to do when a build holds the output folder.
    pub busy: Busy<'a>,
    /// Writes the purge list once the deploy is done (with `--dry-run`, the list it would
    /// write). When it succeeds, the store's record forgets the keys it names; until then
    /// every later purge list names them too.
    pub purge_list: Option<WritePurgeList<'a>>,
}

/// What a deploy did (or, with `--dry-run`, would do).
#[derive(Debug, Clone, Default)]
pub struct Deployed {
    pub target: String,
    pub dry_run: bool,
    /// Keys uploaded, with why, sorted.
    pub uploaded: Vec<(String, Reason)>,
    pub unchanged: usize,
    pub deleted: Vec<String>,
    pub bytes: u64,
    pub seconds: f64,
    /// Files left out (symlinks), a record that could not be read.
    pub warnings: Vec<String>,
    /// The requests sent, by kind (`None` for a folder, which takes none).
    pub requests: Option<store::Counts>,
}

/// Why `output/` is not a finished build of this project that can be deployed: the fact
/// only. What to do about it (build again) is the command line's to say.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unbuilt {
    #[error(
        "a build is half switched into `{output}` (it was killed or failed while moving files in)"
    )]
    HalfSwitched { output: String },
    #[error("no build in `{output}`")]
    Missing { output: String },
    #[error("`{manifest}`: {why}")]
    Unreadable { manifest: String, why: String },
    #[error(
        "`{output}` was built for the base_url {}, but {config} configures {}: its links would point there",
        shown_base(built),
        shown_base(configured)
    )]
    OtherBaseUrl { output: String, built: String, config: String, configured: String },
    #[error("`{config}` changed since `{output}` was built, in what shapes the output")]
    ConfigChanged { config: String, output: String },
}

fn shown_base(b: &str) -> String {
    if b.is_empty() { "\"\" (root-relative links)".to_string() } else { format!("`{b}`") }
}

/// The finished build in `output/`, or why there is none. The caller holds the lock.
pub fn finished(project: &Project) -> Result<Manifest, Failure> {
    let out = &project.output_dir;
    let output = crate::diag::display_path(out).display().to_string();
    if crate::output::half_switched(out) {
        return Err(Failure::Unbuilt(Unbuilt::HalfSwitched { output }));
    }
    let path = out.join(MANIFEST);
    let bytes = match std::fs::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(Failure::Unbuilt(Unbuilt::Missing { output }));
        }
        Err(e) => {
            return Err(anyhow::Error::from(e)
                .context(format!("reading `{}`", path.display()))
                .into());
        }
    };
    let manifest = Manifest::from_bytes(&bytes).map_err(|e| {
        Failure::Unbuilt(Unbuilt::Unreadable {
            manifest: crate::diag::display_path(&path).display().to_string(),
            why: e.to_string(),
        })
    })?;
    // Compared as URLs, parsed: the stamp is the build's `base_url`, written as a string.
    if crate::config::BaseUrl::parse(&manifest.stamp.base_url).ok().as_ref() != Some(&project.base)
    {
        return Err(Failure::Unbuilt(Unbuilt::OtherBaseUrl {
            output,
            built: manifest.stamp.base_url.clone(),
            config: project.config_path.display().to_string(),
            configured: project.base.prefix(),
        }));
    }
    // Only what shapes the output counts: a comment or a `[deploy]` setting needs no build.
    if manifest.stamp.config != project.config_digest {
        return Err(Failure::Unbuilt(Unbuilt::ConfigChanged {
            config: project.config_path.display().to_string(),
            output,
        }));
    }
    Ok(manifest)
}

/// Publishes `output/` as `opts` say.
pub fn deploy(project: &Project, opts: &Options, hooks: Hooks) -> Result<Deployed, Failure> {
    let start = Instant::now();
    let target = Target::parse(&opts.url)
        .map_err(|e| Failure::Refused(format!("the deploy URL {e}").into()))?;
    let out = &project.output_dir;
    refuse_overlap(project, &target)?;
    if !out.is_dir() {
        let output = crate::diag::display_path(out).display().to_string();
        return Err(Failure::Unbuilt(Unbuilt::Missing { output }));
    }
    // Shared: other deploys may read too; a build waits until this one is done, so every
    // file read below belongs to one build.
    let _lock = Lock::take(out, Access::Shared, hooks.busy)?;
    let manifest = finished(project)?;
    let store = store::connect(&target, &opts.endpoint, &opts.region)?;
    // One thread for the requests (measured: a fifth less CPU than two workers, which the
    // store often shares the machine with); file reads and hashing run on the blocking
    // pool, so the lease's renewals never wait for them.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .map_err(|e| anyhow::Error::from(e).context("starting the deploy's runtime"))?;
    let lifetime = crate::output::fault::process()
        .lease_secs
        .map_or(lease::LIFETIME, std::time::Duration::from_secs);
    let mut deployed =
        runtime.block_on(publish(project, &manifest, &store, opts, hooks, lifetime))?;
    deployed.seconds = start.elapsed().as_secs_f64();
    Ok(deployed)
}

/// [`deploy`] to a store made by the caller, on the caller's runtime, with a lease of
/// `lifetime`: what the simulation of deploys drives (`tests/it/deploy/sim.rs`), with an
/// in-memory store that misbehaves on purpose and tokio's virtual clock.
pub async fn deploy_to(
    project: &Project,
    store: &Store,
    opts: &Options,
    hooks: Hooks<'_>,
    lifetime: std::time::Duration,
) -> Result<Deployed, Failure> {
    let _lock = Lock::take(&project.output_dir, Access::Shared, hooks.busy)?;
    let manifest = finished(project)?;
    publish(project, &manifest, store, opts, hooks, lifetime).await
}

/// The deploy once the build is known to be a finished one and its folder is locked.
async fn publish(
    project: &Project,
    manifest: &Manifest,
    store: &Store,
    opts: &Options,
    hooks: Hooks<'_>,
    lifetime: std::time::Duration,
) -> Result<Deployed, Failure> {
    let out = &project.output_dir;
    refuse_links(store, false)?;
    hooks.progress.start("scan", 0);
    // The map of the build being deployed, made once: which file is a page, its headers,
    // its public URLs.
    let map = Map::new(project, manifest.stamp.records);
    let mut roles = Roles::new(&map, opts.siblings);
    if store.keeps_headers {
        roles = roles.without_platform_config();
    }
    let (scanned, warnings) = local::scan(out, &roles, manifest)?;
    let purged = |objects: BTreeSet<String>| PurgeList::new(&map, objects.into_iter().collect());
    let mut remote = Remote {
        store,
        lease: std::sync::OnceLock::new(),
        output: out,
        opts,
        progress: hooks.progress,
        record_version: Default::default(),
    };
    let lease = (hooks.busy, lifetime);
    let deployed = run(&remote, &scanned, lease, hooks.purge_list, &purged).await;
    if let Some(lease) = remote.lease.take() {
        lease.release(store).await;
    }
    let mut deployed = deployed?;
    hooks.progress.finish();
    deployed.warnings = [warnings, deployed.warnings].concat();
    deployed.target = store.target.display();
    deployed.requests = store.requests.as_ref().map(|r| r.counts());
    Ok(deployed)
}

/// A `file://` target that overlaps what folio reads or writes is refused before anything
/// is sent: inside `output/` (the next deploy would publish the copy inside itself), a
/// folder `output/` lies in (the project folder or above: the copy would be in what it
/// publishes), or inside the data folder (its files would be read as records).
fn refuse_overlap(project: &Project, target: &Target) -> Result<(), Failure> {
    if target.scheme != Scheme::File {
        return Ok(());
    }
    let real = |p: &std::path::Path| resolved(p);
    let dir = real(std::path::Path::new(&target.bucket));
    let (out, data, root) =
        (real(&project.output_dir), real(&project.data_dir), real(&project.root));
    // The working folder itself shows as its whole path, not as nothing.
    let shown = |p: &std::path::Path| match crate::diag::display_path(p) {
        rel if rel.as_os_str().is_empty() => real(p).display().to_string(),
        rel => rel.display().to_string(),
    };
    let why = if dir.starts_with(&out) {
        format!("it is inside the output folder `{}`", shown(&project.output_dir))
    } else if out.starts_with(&dir) {
        if root.starts_with(&dir) {
            format!("the project folder `{}` is inside it", shown(&project.root))
        } else {
            format!("the output folder `{}` is inside it", shown(&project.output_dir))
        }
    } else if dir.starts_with(&data) {
        format!("it is inside the data folder `{}`", shown(&project.data_dir))
    } else {
        return Ok(());
    };
    Err(Failure::Refused(Refusal::new(
        format!("{} overlaps the project: {why}", target.display()),
        WayOut::DeployOutside,
    )))
}

/// `path` made absolute with its symlinks resolved, as far as it exists (the rest is
/// appended as it is written).
fn resolved(path: &std::path::Path) -> std::path::PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// A `file://` target with a symlink inside is refused: the folder store would write,
/// list and delete through it, outside the target.
///
/// Before anything is sent that is a refusal (exit 1); once uploads went out
/// (`midway`), a symlink that appeared meanwhile is an I/O failure (exit 2): nothing was
/// written through it (the store opens every component without following links), but the
/// target is no longer the one this deploy started on, so it deletes nothing.
fn refuse_links(store: &Store, midway: bool) -> Result<(), Failure> {
    if store.target.scheme != Scheme::File {
        return Ok(());
    }
    let dir = std::path::Path::new(&store.target.bucket);
    let links = store::links_below(dir, 5)?;
    if links.is_empty() {
        return Ok(());
    }
    let named: Vec<String> =
        links.iter().map(|l| format!("`{}`", l.strip_prefix(dir).unwrap_or(l).display())).collect();
    let named = format!("{}{}", named.join(", "), if links.len() == 5 { ", ..." } else { "" });
    if midway {
        return Err(Failure::Other(anyhow::anyhow!(
            "{} now holds a symlink ({named}) that appeared while this deploy was sending: nothing was written through it and nothing was deleted; remove it and deploy again",
            store.target.display(),
        )));
    }
    Err(Failure::Refused(Refusal::new(
        format!(
            "{} holds a symlink ({named}): folio never writes or deletes through a symlink in a file:// target",
            store.target.display(),
        ),
        WayOut::RemoveLink,
    )))
}

/// The store as a survey found it, and the plan made from it.
struct Surveyed {
    old: Record,
    /// The record's ETag when it was read (`None`: there was none).
    record_etag: Option<String>,
    /// The files to publish, each with its MD5.
    local: Vec<local::LocalFile>,
    /// Per file, the modification time a listing without ETags showed for its object
    /// (what vouches for it next time on such a store; `None` elsewhere).
    modified: Vec<Option<i64>>,
    /// The store's listings carry no ETags (some S3-compatible servers).
    etagless: bool,
    plan: plan::Plan,
    doomed: Vec<remote::Doomed>,
    /// The record could not be read (`--repair`): it is written anew.
    repairing: bool,
}

/// Reads folio's record, lists the folders of folio's keys, learns each file's MD5 (from
/// the record, for bytes folio put there before; else by reading the file), plans, and
/// asks the store what the plan leaves open.
async fn survey(
    remote: &Remote<'_>,
    scanned: &[local::Scanned],
    warnings: &mut Vec<String>,
) -> Result<Surveyed, Failure> {
    let read = remote.read_record().await?;
    let (old, record_etag) = (read.record, read.etag);
    // Without a record (`--repair`), every object below the prefix is surveyed.
    let listing = match &read.damaged {
        Some(why) => {
            warnings.push(format!(
                "{}/{} cannot be read ({why}): repairing, every object below the prefix is surveyed",
                remote.store.target.display(),
                record::RECORD
            ));
            remote.list_all().await?
        }
        None => {
            let keys = (scanned.iter().map(|f| f.rel.as_str()))
                .chain(old.objects.keys().map(String::as_str))
                .chain(old.deleting.keys().map(String::as_str))
                .chain(old.pending.keys().map(String::as_str));
            remote.list(keys).await?
        }
    };
    remote.progress.start("hash", 0);
    let known: HashMap<String, (Option<u128>, u64, record::Md5)> =
        (old.objects.iter()).map(|(k, p)| (k.clone(), (p.xxh3, p.size, p.md5))).collect();
    let (output, scanned) = (remote.output.to_path_buf(), scanned.to_vec());
    let local = tokio::task::spawn_blocking(move || {
        let known = |f: &local::Scanned| {
            let &(xxh3, size, md5) = known.get(&f.rel)?;
            (xxh3 == Some(f.xxh3) && size == f.size).then_some(md5)
        };
        local::with_md5(&output, scanned, known)
    })
    .await
    .map_err(|e| anyhow::anyhow!("hashing the files: {e}"))??;
    let mut plan = plan::plan(&local, &listing, &old, remote.opts.force);
    remote.check(&local, &mut plan).await?;
    let mut doomed = remote.confirm(&plan).await?;
    let repairing = read.damaged.is_some();
    if repairing {
        // folio's objects the build does not have: those that carry its metadata.
        let produced: std::collections::HashSet<&str> =
            local.iter().map(|f| f.rel.as_str()).collect();
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
        plan.cut.extend(local.iter().map(|f| f.rel.clone()));
    }
    let etagless = listing.values().any(|l| l.etag.is_empty());
    let modified = (local.iter())
        .map(|f| {
            let listed = listing.get(&f.rel).filter(|l| l.etag.is_empty() && l.size == f.size);
            listed.and_then(|l| l.modified)
        })
        .collect();
    Ok(Surveyed { old, record_etag, local, modified, etagless, plan, doomed, repairing })
}

/// Would acting on `s` write anything to the store (an object, a delete, the record)?
fn writes(s: &Surveyed, purge_list: bool) -> bool {
    let keeps = kept(&s.plan);
    keeps.iter().any(Option::is_none)
        || !s.doomed.is_empty()
        || !s.plan.cut.is_empty()
        || !s.old.pending.is_empty()
        || !s.old.deleting.is_empty()
        || (purge_list && !s.old.unpurged.is_empty())
        || s.repairing
        || plan::objects_after(&s.local, &keeps, &s.modified) != s.old.objects
}

/// The deploy on the store, phase by phase: survey, lease (when anything will be
/// written), the intent record, uploads, deletes, the purge list, the record.
async fn run(
    remote: &Remote<'_>,
    scanned: &[local::Scanned],
    (busy, lifetime): (Busy<'_>, std::time::Duration),
    purge_list: Option<WritePurgeList<'_>>,
    purged: &dyn Fn(BTreeSet<String>) -> PurgeList,
) -> Result<Deployed, Failure> {
    let opts = remote.opts;
    let mut out = Deployed { dry_run: opts.dry_run, ..Deployed::default() };
    let mut s = survey(remote, scanned, &mut out.warnings).await?;
    // Refused before the lease is taken: a refusal sends no write request at all.
    refuse_mass_delete(remote, &s.doomed)?;
    if !opts.dry_run && writes(&s, purge_list.is_some()) {
        s = lease(remote, scanned, s, (busy, lifetime), &mut out.warnings).await?;
    }
    let took_over = remote.lease.get().is_some_and(Lease::took_over);
    let Surveyed { old, local, mut modified, etagless, plan, doomed, .. } = s;
    // Again, in case the survey after the lease found more.
    refuse_mass_delete(remote, &doomed)?;
    let mut etags = kept(&plan);
    out.unchanged = etags.iter().filter(|e| e.is_some()).count();
    let uploads: Vec<(usize, Reason)> = (plan.actions.iter().enumerate())
        .filter_map(|(i, a)| match a {
            Action::Upload(reason) => Some((i, *reason)),
            _ => None,
        })
        .collect();
    // What the next purge list must name: what earlier deploys changed and no purge list
    // named yet, and what a deploy cut short may have changed.
    let mut unpurged: BTreeSet<String> = old.unpurged.union(&plan.cut).cloned().collect();
    if opts.dry_run {
        out.uploaded = uploads.iter().map(|&(i, r)| (local[i].rel.clone(), r)).collect();
        out.bytes = uploads.iter().map(|&(i, _)| local[i].size).sum();
        out.deleted = doomed.iter().map(|d| d.key.clone()).collect();
        if let Some(write) = purge_list {
            unpurged.extend(out.uploaded.iter().map(|(k, _)| k.clone()));
            unpurged.extend(out.deleted.iter().cloned());
            write(&purged(unpurged))?;
        }
        return Ok(out);
    }
    // Before anything changes, the store learns what is about to: a deploy cut from here
    // on is finished, purged and cleaned up by the next.
    let intent = intent(&old, &local, &uploads, &doomed, &unpurged);
    if let Some(intent) = &intent {
        remote.put_record(intent).await?;
    }
    remote.upload(&local, &uploads, &mut etags, &mut out).await?;
    if etagless {
        // Where listings carry no ETags, what vouches for an object next time is its
        // modification time: learnt for what was just uploaded.
        let uploaded: Vec<usize> = uploads.iter().map(|&(i, _)| i).collect();
        for (i, seen) in remote.modified(&local, &uploaded).await? {
            modified[i] = Some(seen);
        }
    }
    refuse_links(remote.store, true)?;
    remote.delete(&doomed, &mut out).await?;
    out.uploaded.sort();
    out.deleted.sort();
    unpurged.extend(out.uploaded.iter().map(|(k, _)| k.clone()));
    unpurged.extend(out.deleted.iter().cloned());
    let mut after =
        Record { objects: plan::objects_after(&local, &etags, &modified), ..Record::default() };
    // A deploy cut short (its lease taken over, or found unfinished after its holder or a
    // taker gave up) may still have a request on its way: what it was about to write and
    // delete stays in the record for [`CARRIED`] from the first deploy that finds it, and
    // every deploy until then checks it against the store (`plan::plan` treats it as a
    // deploy cut short) and keeps it.
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let unfinished = !old.pending.is_empty() || !old.deleting.is_empty();
    let found = unfinished && old.carried_until.is_none();
    let carrying = took_over || found || old.carried_until.is_some_and(|until| now < until);
    if carrying {
        after.pending = old.pending.clone();
        after.deleting = old.deleting.clone();
        after.deleting.retain(|key, _| !after.objects.contains_key(key));
        after.carried_until = if took_over || found {
            Some(now.saturating_add(CARRIED.as_secs() as i64))
        } else {
            old.carried_until
        };
    }
    let written = purge_list.map(|write| write(&purged(unpurged.clone())));
    // Until a purge list names them, the record keeps them.
    if !matches!(written, Some(Ok(()))) {
        after.unpurged = unpurged;
    }
    // Compared with what the store holds now: the intent, when one was written (a deploy
    // that sent the bytes already there ends with the record it started from, and must
    // not leave its intent behind).
    if after != *intent.as_ref().unwrap_or(&old) {
        remote.put_record(&after).await?;
    }
    written.unwrap_or(Ok(())).map(|()| out)
}

/// How long a takeover's record keeps what the previous holder was about to do: longer
/// than any request stays on its way (a process stopped between its lease check and its
/// send for longer than this can leave an object that only `--repair` finds).
const CARRIED: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// One deploy at a time writes to the store (`lease.rs`); a deploy with nothing to write
/// (a no-op, a dry run) takes no lease and sends no write request. One that took the lease
/// goes on with its survey when no deploy wrote to the store meanwhile (the record is as
/// it was, with nothing in flight), and surveys again otherwise.
async fn lease(
    remote: &Remote<'_>,
    scanned: &[local::Scanned],
    s: Surveyed,
    (busy, lifetime): (Busy<'_>, std::time::Duration),
    warnings: &mut Vec<String>,
) -> Result<Surveyed, Failure> {
    let (lease, warning) = Lease::take(remote.store, busy, lifetime).await?;
    warnings.extend(warning);
    let _ = remote.lease.set(lease);
    let idle = s.old.pending.is_empty() && s.old.deleting.is_empty();
    if idle && remote.record_etag().await? == s.record_etag {
        return Ok(s);
    }
    survey(remote, scanned, warnings).await
}

/// `--max-deletes` (or `[deploy] max_deletes`) holds: more stale objects than that is
/// taken for a mistake (a wrong prefix, an empty build).
fn refuse_mass_delete(remote: &Remote<'_>, doomed: &[remote::Doomed]) -> Result<(), Failure> {
    let max = remote.opts.max_deletes;
    if doomed.len() as u64 <= max {
        return Ok(());
    }
    let keys: Vec<String> = doomed.iter().map(|d| d.key.clone()).collect();
    Err(Failure::Refused(Refusal::new(
        format!(
            "refusing to delete {} objects from {} ({}; max_deletes is {max})",
            doomed.len(),
            remote.store.target.display(),
            first_keys(&keys),
        ),
        WayOut::MaxDeletes(doomed.len()),
    )))
}

/// The first few of `keys` (sorted), as a message names them.
fn first_keys(keys: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut sorted: Vec<&String> = keys.iter().collect();
    sorted.sort();
    let shown: Vec<String> = sorted.iter().take(SHOWN).map(|k| format!("`{k}`")).collect();
    let more = if keys.len() > SHOWN {
        format!(" and {} more", keys.len() - SHOWN)
    } else {
        String::new()
    };
    format!("{}{more}", shown.join(", "))
}

/// Per file, the ETag of the object the plan keeps (`None`: it is uploaded).
fn kept(plan: &plan::Plan) -> Vec<Option<String>> {
    (plan.actions.iter())
        .map(|a| match a {
            Action::Keep(etag) => Some(etag.clone()),
            _ => None,
        })
        .collect()
}

/// The record written before the first change: the old one, with what is about to be
/// uploaded as pending, what is about to be deleted as deleting, and what is not purged
/// yet. `None` when nothing is about to change.
fn intent(
    old: &Record,
    local: &[local::LocalFile],
    uploads: &[(usize, Reason)],
    doomed: &[remote::Doomed],
    unpurged: &BTreeSet<String>,
) -> Option<Record> {
    if uploads.is_empty() && doomed.is_empty() {
        return None;
    }
    let mut intent = old.clone();
    for &(i, _) in uploads {
        intent.pending.entry(local[i].rel.clone()).or_default().insert(local[i].md5);
    }
    for d in doomed {
        if let Some(put) = &d.put {
            intent.deleting.insert(d.key.clone(), put.clone());
        }
    }
    intent.unpurged = unpurged.clone();
    // An intent is unfinished until its deploy writes its record: the first deploy that
    // finds it (cut short) starts the time its intent is carried.
    intent.carried_until = None;
    Some(intent)
}

/// A failure of the store, naming what folio was doing, the object, and the store's own
/// words (exit 2).
pub(crate) fn remote_failure(
    what: &str,
    rel: &str,
    store: &Store,
    e: object_store::Error,
) -> Failure {
    let on = store.target.display();
    let doing =
        if rel.is_empty() { format!("{what} {on}") } else { format!("{what} `{rel}` on {on}") };
    let hint = store.no_credentials.as_deref().map(|h| format!("; {h}")).unwrap_or_default();
    Failure::Other(anyhow::anyhow!("{doing}: {}{hint}", store_says(&e)))
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
