//! `folio deploy`: publishes one build to object storage, incrementally: the finished
//! one in `output/` (refused when half switched in or made from another `folio.toml` or
//! `base_url`), or one rendered from the data (`--from-data`, `source.rs`).
//!
//! [`run`] is the deploy as its phases: plan (the store listed and folio's record read,
//! `plan.rs`), show (`--dry-run`), change (the record's intent, pages before what links
//! to them, deletes last) and settle (the record, the purge list, each CDN's purge,
//! `ledger.rs`). A kill at any point leaves a usable store, and the next deploy finishes
//! the job (docs/publish.md).

mod built;
pub mod cdn;
#[cfg(unix)]
pub mod clock;
mod deployed;
mod failure;
mod folder;
mod guard;
mod hosting;
mod intent;
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
use intent::intent;
use lease::Lease;
use ledger::{Evidence, Ledger, Naming};
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
            "--move-owed moves what is owed to the CDNs this deploy purges, and it purges none: name them with --purge or [deploy] purge".to_string(),
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
        runtime.block_on(publish(project, source, &store, opts, hooks, lifetime, &cdns))?;
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
    lifetime: std::time::Duration,
    cdns: &[Box<dyn cdn::Client>],
) -> Result<Deployed, Failure> {
    let source = source(project, opts, hooks.busy)?;
    publish(project, source, store, opts, hooks, lifetime, cdns).await
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
    lifetime: std::time::Duration,
    cdns: &[Box<dyn cdn::Client>],
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
        source: std::sync::Mutex::new(Some(std::sync::Arc::new(source))),
        opts,
        settings: &project.deploy,
        progress: hooks.progress,
        record_version: Default::default(),
    };
    let terms = lease::Terms { busy: hooks.busy, lifetime };
    let naming = Naming { map: &map, bound: project.deploy.max_purge_paths };
    let purges = Purges { list: hooks.purge_list, cdns, naming };
    let host_files = hosting::files(project);
    let deployed = run(&remote, &scanned, terms, purges, &host_files).await;
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

/// Where a deploy's changes go to be purged: the purge list file, the CDNs; and how
/// their keys are named.
struct Purges<'a, 'h> {
    list: Option<WritePurgeList<'h>>,
    cdns: &'a [Box<dyn cdn::Client>],
    naming: Naming<'a>,
}

impl Purges<'_, '_> {
    /// Who this deploy pays: the list when one is asked for, then each CDN.
    fn paying(&self) -> Vec<Recipient> {
        let list = self.list.is_some().then_some(Recipient::List);
        list.into_iter().chain(self.cdns.iter().map(|c| Recipient::Cdn(c.cdn().clone()))).collect()
    }
}

/// What a survey found, checked: the mass-delete guard passed, and the ledger of its
/// record against the build it surveyed, with what the ledger says.
fn checked(
    remote: &Remote<'_>,
    s: &Surveyed,
    purges: &Purges<'_, '_>,
) -> Result<(Ledger, Vec<String>), Failure> {
    refuse_mass_delete(remote, &s.doomed)?;
    let mut said = Vec::new();
    let evidence = Evidence::new(s.outgoing.iter().map(|f| f.rel.clone()));
    let settle = (purges.paying(), &remote.opts.settle, remote.opts.dry_run);
    let ledger = Ledger::new(&s.old, &s.plan.cut, &evidence, settle, &mut said);
    Ok((ledger, said))
}

/// The plan a deploy acts on (or, dry, prints): the survey it made it from, checked, and
/// what it changes.
struct Planned {
    s: Surveyed,
    ledger: Ledger,
    /// The lease was taken over from a deploy that stopped holding it.
    took_over: bool,
    /// The digest of each `hosting/` file of the build.
    host_digests: std::collections::BTreeMap<String, u128>,
    /// Per file, the ETag of the object it keeps (`None`: to upload).
    etags: Vec<Option<String>>,
    /// The files to upload (by index in `s.outgoing`), with why.
    uploads: Vec<(usize, Reason)>,
    /// Every key this deploy changes on the store: what a purge must cover.
    changed: BTreeSet<String>,
}

/// The deploy on the store, phase by phase: plan (survey, then under the lease when
/// anything will be written), then either print it (`--dry-run`), or change the store
/// (intent, uploads, deletes) and settle (the record, the purge list, the CDN purges).
async fn run(
    remote: &Remote<'_>,
    scanned: &std::sync::Arc<[outgoing::Scanned]>,
    terms: lease::Terms<'_>,
    mut purges: Purges<'_, '_>,
    host_files: &[hosting::HostFile],
) -> Result<Deployed, Failure> {
    let mut out = Deployed { dry_run: remote.opts.dry_run, ..Deployed::default() };
    let mut planned = plan(remote, scanned, terms, &purges, host_files, &mut out).await?;
    if remote.opts.dry_run {
        return show(planned, &mut purges, out);
    }
    let intent = change(remote, &mut planned, &mut out).await?;
    settle(remote, planned, intent, purges, out).await
}

/// Surveys the store and checks what it found; when anything will be written, takes the
/// lease and surveys again under it (what the deploy acts on), checked again.
async fn plan(
    remote: &Remote<'_>,
    scanned: &std::sync::Arc<[outgoing::Scanned]>,
    terms: lease::Terms<'_>,
    purges: &Purges<'_, '_>,
    host_files: &[hosting::HostFile],
    out: &mut Deployed,
) -> Result<Planned, Failure> {
    let mut s = survey(remote, scanned, &mut out.warnings).await?;
    // Checked before the lease is taken: a refusal sends no write request at all.
    let (mut ledger, mut said) = checked(remote, &s, purges)?;
    let host_digests = hosting::digests(host_files);
    if !remote.opts.dry_run && (writes(&s, &ledger) || host_digests != s.old.hosting) {
        s = lease(remote, scanned, s, terms, &mut out.warnings).await?;
        // The survey under the lease may find more (another deploy's since): checked again.
        (ledger, said) = checked(remote, &s, purges)?;
    }
    out.warnings.extend(said);
    out.hosting = hosting::changed(host_files, &s.old.hosting);
    let took_over = remote.lease.get().is_some_and(Lease::took_over);
    let etags = kept(&s.plan);
    out.unchanged = etags.iter().filter(|e| e.is_some()).count();
    let uploads: Vec<(usize, Reason)> = (s.plan.actions.iter().enumerate())
        .filter_map(|(i, a)| match a {
            Action::Upload(reason) => Some((i, *reason)),
            _ => None,
        })
        .collect();
    let changed: BTreeSet<String> = (uploads.iter().map(|&(i, _)| s.outgoing[i].rel.clone()))
        .chain(s.doomed.iter().map(|d| d.key.clone()))
        .collect();
    Ok(Planned { s, ledger, took_over, host_digests, etags, uploads, changed })
}

/// `--dry-run`: the plan as the deploy would carry it out, nothing sent (the purge list
/// file, when one is asked for, is written: it is the user's, not the store's).
fn show(
    mut p: Planned,
    purges: &mut Purges<'_, '_>,
    mut out: Deployed,
) -> Result<Deployed, Failure> {
    let outgoing = &p.s.outgoing;
    out.uploaded = p.uploads.iter().map(|&(i, r)| (outgoing[i].rel.clone(), r)).collect();
    out.bytes = p.uploads.iter().map(|&(i, _)| outgoing[i].size).sum();
    out.deleted = p.s.doomed.iter().map(|d| d.key.clone()).collect();
    p.ledger.add(&p.changed);
    out.purges = p.ledger.plans(purges.cdns, purges.naming);
    if let Some(write) = purges.list.as_mut() {
        write(&p.ledger.list(purges.naming))?;
    }
    Ok(out)
}

/// Changes the store: the intent (before anything changes, the store learns what is about
/// to, and what will then be owed: a deploy cut from here on is finished, purged and
/// cleaned up by the next, whoever runs it), the uploads, the times a store without ETags
/// vouches with, the deletes. Returns the digest of the intent written, if any (the intent
/// itself, as large as the record, is not held through the uploads).
async fn change(
    remote: &Remote<'_>,
    p: &mut Planned,
    out: &mut Deployed,
) -> Result<Option<u128>, Failure> {
    let s = &mut p.s;
    let intent = intent(&s.old, &s.outgoing, &p.uploads, &s.doomed, p.ledger.with(&p.changed));
    let intent = match intent {
        Some(intent) => Some(remote.put_record(&intent).await?),
        None => None,
    };
    remote.upload(&s.outgoing, &p.uploads, &mut p.etags, out).await?;
    remote.sent_all();
    if s.etagless {
        // Where listings carry no ETags, what vouches for an object next time is its
        // modification time: learnt for what was just uploaded. Into an empty prefix
        // nothing told whether they do: learnt too, at a listing a folder (a thousandth
        // of the uploads' requests), so that the next deploy need not HEAD every object.
        let uploaded: Vec<usize> = p.uploads.iter().map(|&(i, _)| i).collect();
        for (i, seen) in remote.modified(&s.outgoing, &uploaded).await? {
            s.modified[i] = Some(seen);
        }
    }
    guard::refuse_links(remote.store, true)?;
    remote.delete(&s.doomed, out).await?;
    out.uploaded.sort();
    out.deleted.sort();
    Ok(intent)
}

/// Settles once the store holds the build: the record as it ends, the purge list first (a
/// file of the user's), then each CDN, each purge struck from the record as it is paid.
async fn settle(
    remote: &Remote<'_>,
    mut p: Planned,
    intent: Option<u128>,
    mut purges: Purges<'_, '_>,
    mut out: Deployed,
) -> Result<Deployed, Failure> {
    let naming = purges.naming;
    p.ledger.add(&p.changed);
    let objects = plan::objects_after(&p.s.outgoing, &p.etags, &p.s.modified);
    let mut after = intent::after(&p.s.old, objects, p.took_over);
    after.hosting = p.host_digests;
    let written = purges.list.as_mut().map(|write| write(&p.ledger.list(naming)));
    if let Some(Ok(())) = written {
        p.ledger.strike(&Recipient::List, &p.ledger.of(&Recipient::List));
    }
    after.owed = p.ledger.owed();
    let budget = cdn::Budget::start(remote.settings.purge_wait);
    let paid = p.ledger.pay(purges.cdns, naming, &budget, remote, &mut after).await?;
    out.purges = paid.sent;
    // Compared with what the store holds now: the intent, when one was written (a deploy
    // that sent the bytes already there ends with the record it started from, and must
    // not leave its intent behind).
    let holds = match intent {
        Some(digest) => after.digest() == digest,
        None => after == p.s.old,
    };
    if !paid.stored && !holds {
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
