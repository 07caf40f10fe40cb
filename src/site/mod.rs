//! The orchestrator: owns the pipeline load → sort → plan → render → write, the one that
//! `build`, `check`, `serve` and the tests run. Rendering and staging run in parallel
//! (rayon) over pages; each page is rendered into a reused buffer and handed to the writer
//! at once, so the output is never held in memory as a whole. A thread takes the pages of
//! one run of items (as many as the largest page size, in one language) together, gathers
//! those items from the records once and cuts each page from that copy (`pages.rs`).
//! `serve` runs the same pipeline stopped before pages ([`InMemory`]) and renders a page
//! when it is asked for, with the same code ([`Renderer`], `pages.rs`). The listing it
//! starts from is `listing.rs`'s, the files beside the pages `statics.rs`'s, the checks
//! before a write `preflight.rs`'s.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::Instant;

use rayon::prelude::*;

use crate::compress::Codec;
use crate::config::HostTarget;
use crate::config::Project;
use crate::error::Failure;
use crate::hosts::{self, Dir, HostFile};
use crate::output::lock::{Access, Busy, Lock};
use crate::output::{OpenFolders, Report, Staged, Stamp, Tree};
use crate::routes::Map;
use crate::routes::layout::Variant;

mod hints;
mod listing;
mod memory;
mod missing;
mod pages;
mod preflight;
mod statics;
pub use hints::field_hints;
pub use listing::{Listing, load};
pub use memory::InMemory;
pub use missing::{Missing, missing_translations};
pub use pages::Renderer;
use pages::{Run, describe, page_writer};
pub use preflight::{HostLimits, check_templates, host_limits};
pub use statics::server_files;
use statics::statics;

/// Files of the plan: a path and how to make its content.
type Jobs = Vec<(String, Job)>;

/// One file of the plan.
enum Job {
    Page { variant: usize, size: u64, page: usize },
    Static(Vec<u8>),
}

/// What a build did.
#[derive(Debug, Clone)]
pub struct Built {
    pub records: usize,
    /// The map of what was built: serve answers with it, check reports from it.
    pub map: Map,
    pub report: Report,
    pub seconds: f64,
    /// Entries of a manifest or journal that were not acted on (`path: entry ...: why`).
    pub warnings: Vec<String>,
}

/// Progress callbacks; the CLI shows a bar on a terminal, tests pass `()`.
pub trait Progress: Sync {
    fn start(&self, _phase: &str, _len: u64) {}
    fn inc(&self) {}
    fn finish(&self) {}
}

impl Progress for () {}

fn plan(project: &Project, map: &Map, total: usize, variants: &[Variant]) -> Result<Jobs, Failure> {
    let mut jobs = Vec::new();
    for (vi, &v) in variants.iter().enumerate() {
        // `map.file`, with the endpoint spelled once a variant rather than once a page.
        let endpoint = map.endpoint(v);
        for s in &map.sizes {
            for page in 1..=s.pages {
                jobs.push((
                    crate::routes::layout::page_file(&endpoint, s.size, page),
                    Job::Page { variant: vi, size: s.size, page },
                ));
            }
        }
    }
    jobs.extend(
        statics(project, map, total)?.into_iter().map(|(path, bytes)| (path, Job::Static(bytes))),
    );
    Ok(jobs)
}

/// The host configs of every configured target: `(publish-dir files, hosting files)`.
fn host_files(hosts: Vec<(HostTarget, Vec<HostFile>)>) -> (Jobs, Jobs) {
    let (mut publish, mut server) = (Vec::new(), Vec::new());
    for (_, files) in hosts {
        for f in files {
            let job = (f.name, Job::Static(f.contents.into_bytes()));
            match f.dir {
                Dir::Output => publish.push(job),
                Dir::Hosting => server.push(job),
            }
        }
    }
    (publish, server)
}

/// Stages every job of `jobs` into `tree` in parallel, taking them in `schedule`'s order
/// (a permutation of their indices: pages cut from one run of items next to each other);
/// a page brings its compressed siblings, computed only when the page itself changed or a
/// sibling is missing. `render` writes a page with its thread's scratch state `S`, or says
/// why it cannot (a template's message: [`Failure::Template`]). The files come back in
/// plan order.
fn stage_all<S: Default + Send>(
    tree: &Tree,
    jobs: &[(String, Job)],
    schedule: &[usize],
    codecs: &[Codec],
    render: impl Fn(&Job, &mut S, &mut Vec<u8>) -> Result<(), String> + Sync,
    progress: &dyn Progress,
) -> Result<Vec<Staged>, Failure> {
    // A page that fails to render (a template error) stops the build. The one reported is
    // the first in plan order, whatever the threads' timing: jobs after the first failure
    // seen so far are skipped, every job before it still runs.
    let first_failed = AtomicUsize::new(usize::MAX);
    let failure: Mutex<Option<(usize, String)>> = Mutex::new(None);
    let per_job: anyhow::Result<Vec<(usize, Vec<Staged>)>> = schedule
        .par_iter()
        .map_init(
            || (Vec::with_capacity(64 * 1024), OpenFolders::default(), S::default()),
            |(buf, folders, state), &i| {
                let (path, job) = &jobs[i];
                if i > first_failed.load(Ordering::Relaxed) {
                    return Ok((i, Vec::new()));
                }
                let bytes = match job {
                    Job::Static(bytes) => bytes.as_slice(),
                    page => {
                        buf.clear();
                        if let Err(message) = render(page, state, buf) {
                            let mut first = failure.lock().unwrap_or_else(PoisonError::into_inner);
                            if first.as_ref().is_none_or(|(j, _)| i < *j) {
                                *first = Some((i, message));
                                first_failed.fetch_min(i, Ordering::Relaxed);
                            }
                            return Ok((i, Vec::new()));
                        }
                        buf.as_slice()
                    }
                };
                let staged = tree.stage_with(folders, path, bytes)?;
                let mut out = Vec::with_capacity(1 + codecs.len());
                if matches!(job, Job::Page { .. }) {
                    for codec in codecs {
                        let rel = format!("{path}.{}", codec.extension());
                        out.push(tree.stage_derived(folders, &rel, !staged.changed, || {
                            codec.compress(bytes)
                        })?);
                    }
                }
                out.push(staged);
                progress.inc();
                Ok((i, out))
            },
        )
        .collect();
    let mut per_job = per_job?;
    if let Some((_, message)) = failure.into_inner().unwrap_or_else(PoisonError::into_inner) {
        return Err(Failure::Template(vec![message]));
    }
    per_job.sort_unstable_by_key(|&(i, _)| i);
    // Into one allocation of the right size: grown file by file, it was copied over and
    // again on one core after the pages were written.
    let mut files = Vec::with_capacity(per_job.iter().map(|(_, staged)| staged.len()).sum());
    per_job.into_iter().for_each(|(_, staged)| files.extend(staged));
    Ok(files)
}

/// The order a build's threads take its jobs in: the pages that lie within one run of
/// `run_len` items of a language's order next to each other, so that a thread gathers
/// those items once and cuts each page from them ([`pages::Run`]); the other jobs after,
/// in plan order.
fn schedule(jobs: &Jobs, variants: &[Variant], total: usize, run_len: usize) -> Vec<usize> {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    order.sort_by_key(|&i| match jobs[i].1 {
        Job::Page { variant, size, page } => {
            let items = crate::paginate::items_of_page(total, size as usize, page);
            crate::paginate::run_of(&items, run_len)
                .map_or((1, 0, 0, i), |k| (0, variants[variant].lang, k, i))
        }
        Job::Static(_) => (1, 0, 0, i),
    });
    order
}

/// How a build meets other folio commands: what it does when another one holds the
/// output folder ([`crate::output::lock`]).
#[derive(Clone, Copy)]
pub struct BuildOptions<'a> {
    pub busy: Busy<'a>,
}

fn say_nothing(_: &str) {}

impl Default for BuildOptions<'_> {
    /// Wait for another command, silently.
    fn default() -> Self {
        BuildOptions { busy: Busy::Wait(&say_nothing) }
    }
}

/// Loads, renders and writes the whole site into `project.output_dir`.
pub fn build(project: &Project, progress: &dyn Progress) -> Result<Built, Failure> {
    build_with(project, progress, &BuildOptions::default())
}

/// [`build`] as `options` say. The output folder's lock is held from before the manifest
/// is read until the switch is done; a build that fails lets it go as it found it.
pub fn build_with(
    project: &Project,
    progress: &dyn Progress,
    options: &BuildOptions,
) -> Result<Built, Failure> {
    let lock = Lock::take(&project.output_dir, Access::Exclusive, options.busy)?;
    let built = build_locked(project, progress, &lock);
    if built.is_err() {
        lock.discard();
    }
    built
}

/// The build itself, with the output folder's lock held.
fn build_locked(project: &Project, progress: &dyn Progress, lock: &Lock) -> Result<Built, Failure> {
    let start = Instant::now();
    // Hashing the inputs and reading the manifests are independent: both at once.
    // Opening a tree finishes a switch a killed build left; its warnings (entries not
    // acted on) travel with it to the commit, which reports them.
    let (fingerprint, trees) = rayon::join(
        || crate::output::fingerprint::of(project),
        || Ok::<_, Failure>((Tree::open(&project.output_dir)?, Tree::open(&project.hosting_dir)?)),
    );
    let fingerprint = fingerprint?;
    let (tree, hosting) = trees?;
    // Nothing changed since the last build and every file is still as it was written:
    // skip the work (docs/config.md, "output"), reporting what that build produced. A manifest with
    // entries folio ignored is rewritten by a real build, without them.
    let clean = tree.warnings().is_empty() && hosting.warnings().is_empty();
    // A hosting folder that should hold configs and holds none of this build (deleted,
    // emptied) is rebuilt too.
    let r2 = project.r2.as_ref();
    let server = project.hosting.targets.iter().any(|&t| hosts::writes_hosting_files(t, r2));
    let hosting_current = !server || hosting.fingerprint() == fingerprint;
    if clean
        && tree.fingerprint() == fingerprint
        && hosting_current
        && tree.intact()
        && hosting.intact()
    {
        let unchanged = (tree.len() + hosting.len()) as u64;
        let report = Report { unchanged, ..Report::default() };
        return Ok(Built {
            records: tree.records(),
            map: Map::new(&project.shape, tree.records()),
            report,
            seconds: start.elapsed().as_secs_f64(),
            warnings: Vec::new(),
        });
    }
    let writer = page_writer(project)?;
    progress.start("load", 0);
    let listing = load(project)?;
    // What only the loaded records show (a [fields] table no record has, a CSV column of
    // numbers published as strings): said by the build as by check.
    let hints: Vec<String> =
        hints::field_hints(project, &listing.data).iter().map(|p| p.to_string()).collect();
    let renderer = Renderer::new(project, writer, listing);
    let map = &renderer.map().clone();
    let total = renderer.records();
    let variants = map.variants();
    let mut jobs = plan(project, map, total, &variants)?;
    // Past a host's hard limit, nothing is written; near one, the build says so.
    let HostLimits { hosts, over, near } = host_limits(project, map);
    if !over.is_empty() {
        return Err(Failure::Limits(over));
    }
    let (publish, server) = host_files(hosts);
    jobs.extend(publish);

    let siblings: Vec<String> = jobs
        .iter()
        .filter(|(_, job)| matches!(job, Job::Page { .. }))
        .flat_map(|(p, _)| {
            project.precompress.iter().map(move |c| format!("{p}.{}", c.extension()))
        })
        .collect();
    let planned = jobs.iter().map(|(p, _)| p.as_str()).chain(siblings.iter().map(String::as_str));
    let mut clashes = tree.clashes(planned);
    clashes.extend(hosting.clashes(server.iter().map(|(p, _)| p.as_str())));
    if !clashes.is_empty() {
        return Err(Failure::Clash(clashes));
    }

    let phase =
        if project.precompress.is_empty() { "render+write" } else { "render+compress+write" };
    progress.start(phase, (jobs.len() + server.len()) as u64);
    let pages = renderer.pages();
    let run_len = map.sizes.iter().map(|s| s.size as usize).max().unwrap_or(1);
    let render = |job: &Job, run: &mut Run, buf: &mut Vec<u8>| match *job {
        Job::Page { variant, size, page } => {
            pages.render_page_in(run, run_len, variant, size, page, buf).map_err(|e| {
                describe(&project.output_dir, &map.file(variants[variant], size, page), &e)
            })
        }
        Job::Static(_) => Ok(()),
    };
    let order = schedule(&jobs, &variants, total, run_len);
    let staged =
        stage_all(&tree, &jobs, &order, &project.precompress, render, progress).and_then(|out| {
            let order: Vec<usize> = (0..server.len()).collect();
            let none = |_: &Job, _: &mut (), _: &mut Vec<u8>| Ok(());
            Ok((out, stage_all(&hosting, &server, &order, &[], none, progress)?))
        });
    progress.finish();
    let (staged, staged_hosting) = match staged {
        Ok(s) => s,
        Err(e) => {
            tree.abort();
            hosting.abort();
            return Err(e);
        }
    };
    let stamp = Stamp {
        fingerprint,
        records: total,
        base_url: project.shape.base.clone(),
        config: project.output_settings_digest.clone(),
    };
    // Two builds must never both believe they hold the folder: a lock file replaced or
    // removed meanwhile lets another command take a lock of its own.
    if let Err(refusal) = lock.still_held() {
        tree.abort();
        hosting.abort();
        return Err(Failure::Refused(refusal));
    }
    // The records are done with: they are freed on one core while the switch runs on the
    // other (the pages' phase was the peak of memory).
    let (committed, ()) = rayon::join(
        || {
            Ok::<_, Failure>((
                tree.commit(staged, &stamp)?,
                hosting.commit(staged_hosting, &stamp)?,
            ))
        },
        move || drop((jobs, server, renderer)),
    );
    let ((mut report, mut warnings), (host_report, host_warnings)) = committed?;
    report.written += host_report.written;
    report.unchanged += host_report.unchanged;
    report.removed += host_report.removed;
    report.bytes += host_report.bytes;
    warnings.extend(host_warnings);
    warnings.extend(near);
    warnings.splice(0..0, hints);
    let seconds = start.elapsed().as_secs_f64();
    Ok(Built { records: total, map: map.clone(), report, seconds, warnings })
}
