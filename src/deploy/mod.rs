//! `folio deploy`: publishes the finished build in `output/` to object storage,
//! incrementally, as one build.
//!
//! The phases, each a function: hold the output folder's lock (shared: a build waits
//! until the deploy is done), check the build is a finished one of this config, scan it
//! (`outgoing.rs`), list the store and read folio's record of it (`record.rs`), plan (`plan.rs`:
//! upload what is missing, whose bytes or headers differ; keep the rest; find what a
//! deploy cut short left), confirm with a request that each object to delete is still
//! folio's, write the record's intent (what is about to be uploaded and deleted), upload
//! pages and then what links to them (each file's bytes read once, checked against the
//! scan's MD5, and sent as read), delete, write the record, and pay what is owed a purge
//! (`ledger.rs`: the purge list file, each CDN, one request at a time, each struck from
//! the record as it is accepted). A kill or a failure at any point leaves a usable store
//! (old pages are deleted last), and the next deploy finishes the job and purges what the
//! cut one changed. The store-side operations are in `remote/`, what a `file://` target
//! must not be in `guard.rs`, the build it publishes in `built.rs`; what a run is
//! asked in `options.rs` and what it answers in `deployed.rs`; the settings come checked
//! from `config::Deploy`.
//!
//! It does not build: it refuses an `output/` with no build, a build half switched in, or
//! a build made from another `folio.toml` or another `base_url`.

mod built;
pub mod cdn;
#[cfg(unix)]
pub mod clock;
mod deployed;
mod failure;
mod folder;
mod guard;
mod hosting;
mod journal;
mod lease;
mod ledger;
mod options;
pub mod outgoing;
pub mod plan;
pub mod purge;
pub mod record;
mod remote;
mod source;
pub mod store;
mod survey;

use std::collections::BTreeSet;
use std::time::Instant;

use crate::config::Project;
use crate::error::{Failure, Refusal, WayOut};
use crate::output::lock::{Access, Busy, Lock};
use crate::routes::Map;
use journal::intent;
use lease::Lease;
use ledger::{Evidence, Ledger};
use outgoing::Roles;
use plan::{Action, Reason};
use record::Recipient;
use remote::Remote;
use source::Source;
use store::Store;
use survey::{Surveyed, kept, lease, survey, writes};

pub use crate::error::Unbuilt;
pub use built::finished;
pub use deployed::Deployed;
pub use failure::store_says;
pub use hosting::Changed as HostFileChanged;
pub use options::{Hooks, Options, Settle, WritePurgeList};

/// Threads for the deploy's file reads, renders and hashes (each upload's bytes): as many
/// as rayon has, at least four. More only multiplies the allocator's per-thread heaps,
/// each holding pages of bodies it freed (measured: 32 threads kept several hundred MB
/// resident on a deploy of 9,000 files, where the listing takes 70 MB).
const BLOCKING_THREADS: usize = 4;

/// Publishes `output/` where `project.deploy` says, as `opts` say.
pub fn deploy(project: &Project, opts: &Options, hooks: Hooks) -> Result<Deployed, Failure> {
    let start = Instant::now();
    let settings = &project.deploy;
    let Some(target) = &settings.target else {
        return Err(Failure::Refused(format!(
            "nowhere to deploy: set `url` under [deploy] in {}, or pass --to s3://bucket/prefix",
            crate::diag::display_path(&project.config_path).display()
        ).into()));
    };
    if !opts.settle.moved.is_empty() && settings.purge.is_empty() {
        return Err(Failure::Usage(
            "--move-owed moves a debt to the CDNs this deploy purges, and it purges none: name them with --purge or [deploy] purge".to_string(),
        ));
    }
    guard::refuse_overlap(project, target)?;
    let source = source(project, opts, hooks.busy)?;
    let store = store::connect(target, settings.endpoint.as_deref(), settings.region.as_deref())?;
    // This run's time (nanoseconds since the epoch) and process id, as bytes.
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    let mut seed = now.map_or(0, |d| d.as_nanos()).to_le_bytes().to_vec();
    seed.extend(std::process::id().to_le_bytes());
    let nonce = format!("{:x}", xxhash_rust::xxh3::xxh3_64(&seed));
    let cdns = cdn::connect(&settings.purge, &project.shape, opts.dry_run, &nonce)?;
    // One thread for the requests (measured: a fifth less CPU than two workers, which the
    // store often shares the machine with); file reads and hashing run on the blocking
    // pool, so the lease's renewals never wait for them.
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .max_blocking_threads(BLOCKING_THREADS)
        .build()
        .map_err(|e| anyhow::Error::from(e).context("starting the deploy's runtime"))?;
    let lifetime = crate::fault_injection::process()
        .lease_secs
        .map_or(lease::LIFETIME, std::time::Duration::from_secs);
    let mut deployed =
        runtime.block_on(publish(project, source, &store, opts, hooks, (lifetime, &cdns)))?;
    deployed.seconds = start.elapsed().as_secs_f64();
    Ok(deployed)
}

/// [`deploy`] to a store made by the caller, on the caller's runtime, with a lease of
/// `lifetime`, purging the caller's CDNs (`[deploy] purge` is not read): what the
/// simulation of deploys drives (`tests/it/deploy/sim/`), with an in-memory store and a
/// CDN that misbehave on purpose, and tokio's virtual clock.
pub async fn deploy_to(
    project: &Project,
    store: &Store,
    opts: &Options,
    hooks: Hooks<'_>,
    (lifetime, cdns): (std::time::Duration, &[Box<dyn cdn::Client>]),
) -> Result<Deployed, Failure> {
    let source = source(project, opts, hooks.busy)?;
    publish(project, source, store, opts, hooks, (lifetime, cdns)).await
}

/// What a deploy publishes: with `--from-data`, the data loaded and checked as `folio
/// build` does (refusing what it refuses, before anything is sent) and rendered in memory,
/// `output/` neither read nor written; else the finished build in `output/`, its folder
/// held shared (other deploys may read too; a build waits until this one is done, so every
/// file read belongs to one build).
fn source(project: &Project, opts: &Options, busy: Busy<'_>) -> Result<Source, Failure> {
    if opts.from_data {
        let memory = crate::site::InMemory::load(project)?;
        return Ok(Source::Rendered(Box::new(source::Rendered::new(memory))));
    }
    let out = &project.output_dir;
    if !out.is_dir() {
        let output = crate::diag::display_path(out).display().to_string();
        return Err(Failure::Unbuilt(Unbuilt::Missing { output }));
    }
    let lock = Lock::take(out, Access::Shared, busy)?;
    let manifest = finished(project)?;
    Ok(Source::Built { output: out.clone(), manifest: Box::new(manifest), _lock: lock })
}

/// The deploy once what it publishes is known: a finished build, its folder locked, or
/// the data in memory.
async fn publish(
    project: &Project,
    source: Source,
    store: &Store,
    opts: &Options,
    hooks: Hooks<'_>,
    (lifetime, cdns): (std::time::Duration, &[Box<dyn cdn::Client>]),
) -> Result<Deployed, Failure> {
    guard::refuse_links(store, false)?;
    hooks.progress.start("scan", 0);
    // The map of the build being deployed, made once: which file is a page, its headers,
    // its public URLs.
    let map = source.map(project);
    let mut roles = Roles::new(&map, project.deploy.siblings);
    if store.keeps_headers {
        roles = roles.without_platform_config();
    }
    let (scanned, warnings) = source.scan(&roles)?;
    let scanned: std::sync::Arc<[outgoing::Scanned]> = scanned.into();
    let mut remote = Remote {
        store,
        lease: std::sync::OnceLock::new(),
        source: std::sync::Arc::new(source),
        opts,
        settings: &project.deploy,
        progress: hooks.progress,
        record_version: Default::default(),
    };
    let lease = (hooks.busy, lifetime);
    let purges = Purges { list: hooks.purge_list, cdns, map: &map };
    let host_files = hosting::files(project);
    let deployed = run(&remote, &scanned, lease, purges, &host_files).await;
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

/// Where a deploy's changes go to be purged: the purge list file, the CDNs; and the map
/// that names their URLs.
struct Purges<'a, 'h> {
    list: Option<WritePurgeList<'h>>,
    cdns: &'a [Box<dyn cdn::Client>],
    map: &'a Map,
}

impl Purges<'_, '_> {
    /// Who this deploy pays: the list when one is asked for, then each CDN.
    fn paying(&self) -> Vec<Recipient> {
        let list = self.list.is_some().then_some(Recipient::List);
        list.into_iter().chain(self.cdns.iter().map(|c| Recipient::Cdn(c.cdn().clone()))).collect()
    }
}

/// The ledger of `s`'s record, checked against the build `s` surveyed.
fn ledger(
    remote: &Remote<'_>,
    s: &Surveyed,
    purges: &Purges<'_, '_>,
    warnings: &mut Vec<String>,
) -> Ledger {
    let evidence = Evidence::new(s.outgoing.iter().map(|f| f.rel.clone()));
    let settle = (purges.paying(), &remote.opts.settle, remote.opts.dry_run);
    Ledger::new(&s.old, &s.plan.cut, &evidence, settle, warnings)
}

/// The deploy on the store, phase by phase: survey, lease (when anything will be
/// written), the intent record, uploads, deletes, the record, the purge list, the CDN
/// purges.
async fn run(
    remote: &Remote<'_>,
    scanned: &std::sync::Arc<[outgoing::Scanned]>,
    (busy, lifetime): (Busy<'_>, std::time::Duration),
    mut purges: Purges<'_, '_>,
    host_files: &[hosting::HostFile],
) -> Result<Deployed, Failure> {
    let (opts, settings) = (remote.opts, remote.settings);
    let mut out = Deployed { dry_run: opts.dry_run, ..Deployed::default() };
    let mut s = survey(remote, scanned, &mut out.warnings).await?;
    // Refused before the lease is taken: a refusal sends no write request at all.
    refuse_mass_delete(remote, &s.doomed)?;
    let mut said = Vec::new();
    let mut ledger = ledger(remote, &s, &purges, &mut said);
    let host_digests = hosting::digests(host_files);
    if !opts.dry_run && (writes(&s, &ledger) || host_digests != s.old.hosting) {
        s = lease(remote, scanned, s, (busy, lifetime), &mut out.warnings).await?;
        // What the survey under the lease found.
        said.clear();
        ledger = self::ledger(remote, &s, &purges, &mut said);
    }
    out.warnings.extend(said);
    let took_over = remote.lease.get().is_some_and(Lease::took_over);
    let Surveyed { old, outgoing, mut modified, etagless, plan, doomed, .. } = s;
    out.hosting = hosting::changed(host_files, &old.hosting);
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
    // What this deploy changes on the store, once it has.
    let changed: BTreeSet<String> = (uploads.iter().map(|&(i, _)| outgoing[i].rel.clone()))
        .chain(doomed.iter().map(|d| d.key.clone()))
        .collect();
    let (map, bound) = (purges.map, settings.max_purge_paths);
    if opts.dry_run {
        out.uploaded = uploads.iter().map(|&(i, r)| (outgoing[i].rel.clone(), r)).collect();
        out.bytes = uploads.iter().map(|&(i, _)| outgoing[i].size).sum();
        out.deleted = doomed.iter().map(|d| d.key.clone()).collect();
        ledger.add(&changed);
        out.purges = ledger.plans(purges.cdns, map, bound);
        if let Some(write) = purges.list.as_mut() {
            write(&ledger.list(map, bound))?;
        }
        return Ok(out);
    }
    // Before anything changes, the store learns what is about to, and what will then be
    // owed: a deploy cut from here on is finished, purged and cleaned up by the next,
    // whoever runs it.
    let intent = intent(&old, &outgoing, &uploads, &doomed, ledger.with(&changed));
    if let Some(intent) = &intent {
        remote.put_record(intent).await?;
    }
    remote.upload(&outgoing, &uploads, &mut etags, &mut out).await?;
    if etagless {
        // Where listings carry no ETags, what vouches for an object next time is its
        // modification time: learnt for what was just uploaded. Into an empty prefix
        // nothing told whether they do: learnt too, at a listing a folder (a thousandth
        // of the uploads' requests), so that the next deploy need not HEAD every object.
        let uploaded: Vec<usize> = uploads.iter().map(|&(i, _)| i).collect();
        for (i, seen) in remote.modified(&outgoing, &uploaded).await? {
            modified[i] = Some(seen);
        }
    }
    guard::refuse_links(remote.store, true)?;
    remote.delete(&doomed, &mut out).await?;
    out.uploaded.sort();
    out.deleted.sort();
    ledger.add(&changed);
    let mut after =
        journal::after(&old, plan::objects_after(&outgoing, &etags, &modified), took_over);
    after.hosting = host_digests;
    // The purge list first (a file of the user's), then each CDN, after the store holds
    // the build.
    let written = purges.list.as_mut().map(|write| write(&ledger.list(map, bound)));
    if let Some(Ok(())) = written {
        ledger.strike(&Recipient::List, &ledger.of(&Recipient::List));
    }
    after.owed = ledger.owed();
    let budget = cdn::Budget::start(settings.purge_wait);
    let paid = ledger.pay(purges.cdns, (map, bound, &budget), remote, &mut after).await?;
    out.purges = paid.sent;
    // Compared with what the store holds now: the intent, when one was written (a deploy
    // that sent the bytes already there ends with the record it started from, and must
    // not leave its intent behind).
    if !paid.stored && after != *intent.as_ref().unwrap_or(&old) {
        remote.put_record(&after).await?;
    }
    written.unwrap_or(Ok(()))?;
    if !paid.failed.is_empty() {
        return Err(ledger::failure(&remote.store.target.display(), &out, &paid.failed));
    }
    Ok(out)
}

/// `--max-deletes` (or `[deploy] max_deletes`) holds: more stale objects than that is
/// taken for a mistake (a wrong prefix, an empty build).
fn refuse_mass_delete(remote: &Remote<'_>, doomed: &[remote::Doomed]) -> Result<(), Failure> {
    let max = remote.settings.max_deletes;
    if doomed.len() as u64 <= max {
        return Ok(());
    }
    let keys: Vec<String> = doomed.iter().map(|d| d.key.clone()).collect();
    Err(Failure::Refused(Refusal::new(
        format!(
            "refusing to delete {} objects from {} ({}; max_deletes is {max})",
            doomed.len(),
            remote.store.target.display(),
            crate::diag::first_keys(&keys),
        ),
        WayOut::MaxDeletes(doomed.len()),
    )))
}
