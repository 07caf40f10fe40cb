//! The orchestrator: owns the pipeline load → sort → plan → render → write, the one that
//! `build`, `check` and the tests run. Rendering and staging run in parallel (rayon) over
//! pages; each page is rendered into a reused buffer and handed to the writer at once,
//! so the output is never held in memory as a whole.

use std::path::Path;
use std::sync::{Arc, RwLock};
use std::time::Instant;

use anyhow::Context;
use rayon::prelude::*;

use crate::compress::Codec;
use crate::config::{Config, Overrides, Project};
use crate::error::Failure;
use crate::hosts::{self, Dir, HostCtx};
use crate::listing;
use crate::load::{self, Dataset};
use crate::model::Record;
use crate::output::{Report, Staged, Tree};
use crate::paginate;
use crate::render::{self, ErrorCode, Links, PageInfo, Variant, standard};
use crate::routes::Routes;

/// Finds, parses and validates the config: `--config F`, else `folio.toml` in `cwd`.
pub fn project(config: Option<&Path>, overrides: &Overrides) -> Result<Project, Failure> {
    let cwd = std::env::current_dir().context("reading the working directory")?;
    let path = match config {
        Some(p) => cwd.join(p),
        None => cwd.join("folio.toml"),
    };
    if !path.is_file() {
        return Err(Failure::Usage(format!(
            "no config at `{}`: run folio in a folder with a folio.toml, or pass --config",
            crate::diag::display_path(&path).display()
        )));
    }
    let shown = crate::diag::display_path(&path);
    let cfg = Config::from_file(&path)?.map_err(|e| Failure::Config(vec![e]))?;
    let root = path.parent().map_or_else(|| cwd.clone(), Path::to_path_buf);
    cfg.validate(&shown, &root, &cwd, overrides).map_err(Failure::Config)
}

/// A loaded, sorted listing: the records and, per language, their order.
pub struct Listing {
    pub data: Dataset,
    pub orders: Vec<Arc<[u32]>>,
}

/// Loads and sorts; every problem in the input, or the listing.
pub fn load(project: &Project) -> Result<Listing, Failure> {
    let data = load::load(project).map_err(Failure::Invalid)?;
    let orders = listing::order(&data.records, &project.sort, project.languages.len());
    Ok(Listing { data, orders })
}

/// Files of the plan: a path and how to make its content.
type Jobs = Vec<(String, Job)>;

/// One file of the plan.
enum Job {
    Page { variant: usize, size: u64, page: usize },
    Static(Vec<u8>),
}

/// What a build did.
#[derive(Debug, Clone, Copy)]
pub struct Built {
    pub records: usize,
    pub report: Report,
    pub seconds: f64,
}

/// Progress callbacks; the CLI shows a bar on a terminal, tests pass `()`.
pub trait Progress: Sync {
    fn start(&self, _phase: &str, _len: u64) {}
    fn inc(&self) {}
    fn finish(&self) {}
}

impl Progress for () {}

fn plan(project: &Project, listing: &Listing, variants: &[Variant]) -> Vec<(String, Job)> {
    let total = listing.data.records.len();
    let mut jobs = Vec::new();
    for (vi, v) in variants.iter().enumerate() {
        for &size in &project.page_sizes {
            for page in 1..=paginate::total_pages(total, size as usize) {
                jobs.push((
                    v.page_file(project, size, page),
                    Job::Page { variant: vi, size, page },
                ));
            }
        }
    }
    let routes = Routes::new(project, total);
    for code in ErrorCode::ALL {
        jobs.push((code.file(), Job::Static(code.document(&routes))));
    }
    jobs.push(("api/index.json".into(), Job::Static(render::index(project, total))));
    jobs.push((".nojekyll".into(), Job::Static(Vec::new())));
    jobs
}

/// The host configs of every configured target: `(publish-dir files, hosting files)`.
fn host_files(project: &Project, total: usize) -> (Jobs, Jobs) {
    let routes = Routes::new(project, total);
    let root = match project.hosting.root.as_str() {
        "" => project.output_dir.to_string_lossy().into_owned(),
        r => r.trim_end_matches('/').to_string(),
    };
    let ctx = HostCtx { routes: &routes, root, listen: project.hosting.listen.clone() };
    let (mut publish, mut server) = (Vec::new(), Vec::new());
    for target in &project.hosting.targets {
        for f in hosts::render(target, &ctx) {
            let job = (f.name, Job::Static(f.contents.into_bytes()));
            match f.dir {
                Dir::Output => publish.push(job),
                Dir::Hosting => server.push(job),
            }
        }
    }
    (publish, server)
}

/// Stages every job of `jobs` into `tree` in parallel; a page brings its compressed
/// siblings, computed only when the page itself changed or a sibling is missing.
fn stage_all(
    tree: &Tree,
    jobs: &[(String, Job)],
    codecs: &[Codec],
    render: impl Fn(&Job, &mut Vec<u8>) + Sync,
    progress: &dyn Progress,
) -> anyhow::Result<Vec<Staged>> {
    let per_job: anyhow::Result<Vec<Vec<Staged>>> = jobs
        .par_iter()
        .map_init(
            || Vec::with_capacity(64 * 1024),
            |buf, (path, job)| {
                let bytes = match job {
                    Job::Static(bytes) => bytes.as_slice(),
                    page => {
                        buf.clear();
                        render(page, buf);
                        buf.as_slice()
                    }
                };
                let staged = tree.stage(path, bytes)?;
                let mut out = Vec::with_capacity(1 + codecs.len());
                if matches!(job, Job::Page { .. }) {
                    for codec in codecs {
                        let rel = format!("{path}.{}", codec.extension());
                        out.push(tree.stage_derived(&rel, staged.staged.is_none(), || {
                            codec.compress(bytes)
                        })?);
                    }
                }
                out.push(staged);
                progress.inc();
                Ok(out)
            },
        )
        .collect();
    Ok(per_job?.into_iter().flatten().collect())
}

/// Everything a build's output depends on, hashed: folio's version and binary, the validated config
/// (which includes the command-line overrides), and every data and template file.
fn fingerprint(project: &Project) -> anyhow::Result<String> {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    // The binary itself (size and mtime), so a rebuilt folio of the same version redoes
    // the work too: what changed may be how files are rendered.
    if let Some(meta) = std::env::current_exe().ok().and_then(|exe| std::fs::metadata(exe).ok()) {
        h.update(&meta.len().to_le_bytes());
        h.update(format!("{:?}", meta.modified().ok()).as_bytes());
    }
    h.update(format!("{project:?}").as_bytes());
    let mut files = load::walk(&project.data_dir).unwrap_or_default();
    if project.templates_dir.is_dir() {
        files.extend(load::walk_all(&project.templates_dir));
    }
    for path in files {
        let bytes =
            std::fs::read(&path).with_context(|| format!("reading `{}`", path.display()))?;
        h.update(path.as_os_str().as_encoded_bytes());
        h.update(&(bytes.len() as u64).to_le_bytes());
        h.update(&bytes);
    }
    Ok(format!("{:032x}", h.digest128()))
}

fn render_page(
    records: &[Record],
    order: &[u32],
    v: Variant,
    links: &Links,
    size: u64,
    page: usize,
    out: &mut Vec<u8>,
) {
    let info = PageInfo::new(records.len(), size, page);
    let range = paginate::page_range(records.len(), size as usize, page);
    standard::write(&info, links, out, |out| {
        for (i, &idx) in order[range].iter().enumerate() {
            if i > 0 {
                out.push(b',');
            }
            records[idx as usize].write_item(v.lang, out);
        }
    });
}

/// Loads, renders and writes the whole site into `project.output_dir`.
pub fn build(project: &Project, progress: &dyn Progress) -> Result<Built, Failure> {
    build_locked(project, progress, None)
}

/// [`build`], holding `switch` for writing while files are switched into place, so that
/// a server reading under the same lock never sees half of a switch.
pub fn build_locked(
    project: &Project,
    progress: &dyn Progress,
    switch: Option<&RwLock<()>>,
) -> Result<Built, Failure> {
    let start = Instant::now();
    let fingerprint = fingerprint(project)?;
    {
        // Nothing changed since the last build and every file is still as it was written:
        // skip the work (SPEC §5), reporting what that build produced.
        let tree = Tree::open(&project.output_dir)?;
        let hosting = Tree::open(&project.hosting_dir)?;
        if tree.fingerprint() == fingerprint && tree.intact() && hosting.intact() {
            let unchanged = (tree.len() + hosting.len()) as u64;
            let report = Report { unchanged, ..Report::default() };
            return Ok(Built {
                records: tree.records(),
                report,
                seconds: start.elapsed().as_secs_f64(),
            });
        }
    }
    let listing = load(project)?;
    let records = &listing.data.records;
    let variants = Variant::all(project);
    let links: Vec<Links> = variants.iter().map(|&v| Links::new(project, v)).collect();
    let mut jobs = plan(project, &listing, &variants);
    let (publish, server) = host_files(project, records.len());
    jobs.extend(publish);

    let tree = Tree::open(&project.output_dir)?;
    let hosting = Tree::open(&project.hosting_dir)?;
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

    progress.start("writing", (jobs.len() + server.len()) as u64);
    let render = |job: &Job, buf: &mut Vec<u8>| {
        if let Job::Page { variant, size, page } = *job {
            let v = variants[variant];
            render_page(records, &listing.orders[v.lang], v, &links[variant], size, page, buf);
        }
    };
    let staged = stage_all(&tree, &jobs, &project.precompress, render, progress)
        .and_then(|out| Ok((out, stage_all(&hosting, &server, &[], |_, _| {}, progress)?)));
    progress.finish();
    let (staged, staged_hosting) = match staged {
        Ok(s) => s,
        Err(e) => {
            tree.abort();
            hosting.abort();
            return Err(Failure::Io(e));
        }
    };
    let _switching =
        switch.map(|lock| lock.write().unwrap_or_else(|poisoned| poisoned.into_inner()));
    let mut report = tree.commit(staged, &fingerprint, records.len())?;
    let host_report = hosting.commit(staged_hosting, &fingerprint, records.len())?;
    report.written += host_report.written;
    report.unchanged += host_report.unchanged;
    report.removed += host_report.removed;
    report.bytes += host_report.bytes;
    Ok(Built { records: records.len(), report, seconds: start.elapsed().as_secs_f64() })
}
