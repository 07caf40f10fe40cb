//! `folio serve`: bind, load the listing (nothing is written: pages are rendered when they
//! are asked for), print the URL, reload when data, templates or config change, and serve
//! until Ctrl-C or SIGTERM. The server itself is `folio::serve`.

use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Weak, mpsc};
use std::time::{Duration, Instant};

use super::exit::Exit;
use super::say;
use crate::cli::ServeArgs;
use folio::config::{Overrides, Project};
use folio::error::Failure;
use folio::serve::{self, Preview};

pub fn run(args: ServeArgs) -> Result<(), Failure> {
    let config = args.config.path.clone();
    let project = super::discover(config.as_deref(), &Overrides::default())?;
    let reload = move || super::discover(config.as_deref(), &Overrides::default());
    let listener = std::net::TcpListener::bind((args.bind, args.port)).map_err(|e| {
        let busy = if e.kind() == std::io::ErrorKind::AddrInUse {
            "; another program listens there: pass another --port, or --port 0 for any free one"
        } else {
            ""
        };
        Failure::Usage(format!("cannot bind {}:{}: {e}{busy}", args.bind, args.port))
    })?;
    let addr: SocketAddr = listener.local_addr().map_err(anyhow::Error::from)?;
    let watched = Watched::of(&project);
    let mount = project.shape.base.path.clone();
    let report = Box::new(|message: &str| {
        super::messages::eprint(&format!("error: a page failed to render: {message}"))
    });
    let (preview, loaded) = Preview::start(project, addr, report)?;
    let preview = Arc::new(preview);
    // Watching before the URL is printed: a change made as soon as it is read reloads.
    watch(watched, reload, Arc::downgrade(&preview))?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)?;
    // The signals are taken before the URL is printed: a script that stops the preview as
    // soon as it reads the URL gets a clean stop, not the default end of the process.
    let stopped = {
        let _inside = runtime.enter();
        stopped()
    };
    for w in &loaded.warnings {
        super::messages::warn(w);
    }
    say(format_args!("http://{addr}{mount}/"))?;
    say(format_args!(
        "folio: {} records loaded in {:.2} s; pages are rendered from memory when asked for (nothing is written, the output folder is not touched)",
        loaded.records, loaded.seconds,
    ))?;

    // A test's hold here (`FOLIO_FAULT=wait-serve:1`) stands for a slow start.
    folio::fault_injection::process()
        .before(folio::fault_injection::Step::Serve)
        .map_err(anyhow::Error::from)?;
    let served = runtime.block_on(serve::run_server(listener, preview.app(), stopped));
    served.map_err(|e| Failure::Other(anyhow::Error::from(e).context("serving")))
}

/// A future that completes on Ctrl-C (SIGINT) or SIGTERM, with both handlers installed
/// when this returns (it is called inside the runtime).
fn stopped() -> impl std::future::Future<Output = ()> {
    #[cfg(unix)]
    {
        use tokio::signal::unix::{SignalKind, signal};
        let term = signal(SignalKind::terminate());
        let int = signal(SignalKind::interrupt());
        async move {
            match (term, int) {
                (Ok(mut term), Ok(mut int)) => {
                    tokio::select! {
                        _ = int.recv() => {}
                        _ = term.recv() => {}
                    }
                }
                _ => {
                    let _ = tokio::signal::ctrl_c().await;
                }
            }
        }
    }
    #[cfg(not(unix))]
    async {
        let _ = tokio::signal::ctrl_c().await;
    }
}

/// What a reload follows: the data and templates folders and the config file.
struct Watched {
    data: PathBuf,
    templates: PathBuf,
    root: PathBuf,
    config: PathBuf,
}

impl Watched {
    fn of(project: &Project) -> Watched {
        Watched {
            data: project.data_dir.clone(),
            templates: project.templates_dir.clone(),
            root: project.root.clone(),
            config: project.root.join(project.config_path.file_name().unwrap_or_default()),
        }
    }

    /// Is this event a change to one of the inputs?
    fn relevant(&self, event: &notify::Result<notify::Event>) -> bool {
        event.as_ref().is_ok_and(|e| {
            is_change(&e.kind)
                && e.paths.iter().any(|p| {
                    (*p == self.config
                        || p.starts_with(&self.data)
                        || p.starts_with(&self.templates))
                        && !is_temp_file(p)
                })
        })
    }
}

/// Files editors write beside the one being edited (swap and backup files, atomic-save
/// temporaries), which are no reason to reload (zola ignores the same).
fn is_temp_file(path: &Path) -> bool {
    let name = path.file_name().map(|n| n.to_string_lossy()).unwrap_or_default();
    name.starts_with('.')
        || name.ends_with('~')
        || (name.starts_with('#') && name.ends_with('#'))
        || name == "4913"
        || [".swp", ".swx", ".swo", ".tmp", ".bak"].iter().any(|ext| name.ends_with(ext))
        || name.contains("___jb_tmp___")
        || name.contains("___jb_old___")
}

/// Is this event a change to a file's content or name (not a read: folio's own reload
/// opens every input, and inotify reports those opens too)?
fn is_change(kind: &notify::EventKind) -> bool {
    use notify::EventKind;
    use notify::event::ModifyKind;
    match kind {
        EventKind::Create(_) | EventKind::Remove(_) | EventKind::Any => true,
        EventKind::Modify(m) => !matches!(m, ModifyKind::Metadata(_)),
        EventKind::Access(_) | EventKind::Other => false,
    }
}

/// How long the watcher waits for a burst of changes to end before it reloads.
const SETTLE: Duration = Duration::from_millis(250);

/// The longest a burst that never ends (a file rewritten every 100 ms) holds a reload
/// back, as watchexec and cargo-watch bound their debounce.
const MAX_WAIT: Duration = Duration::from_secs(2);

/// A burst of relevant changes, pure: when it is due to reload. Only relevant changes
/// move it ([`Watched::relevant`]); reads of the project's files never do.
#[derive(Debug, Default, Clone, Copy)]
struct Burst {
    first: Option<Instant>,
    last: Option<Instant>,
}

impl Burst {
    /// A relevant change at `at`.
    fn changed(&mut self, at: Instant) {
        self.first.get_or_insert(at);
        self.last = Some(at);
    }

    /// When to reload: [`SETTLE`] after the last change, and no later than [`MAX_WAIT`]
    /// after the first; `None` when nothing changed.
    fn due(&self) -> Option<Instant> {
        Some((self.last? + SETTLE).min(self.first? + MAX_WAIT))
    }
}

/// Watches data, templates and config; reloads once a burst of changes has settled (no
/// further relevant change for [`SETTLE`], or [`MAX_WAIT`] into a burst that goes on),
/// while the preview is there.
///
/// The settling is these few lines rather than `notify-debouncer-mini`: that crate keeps
/// only each event's path, not its kind, so the reads of `data/` a reload makes (inotify's
/// open and close events) would look like edits and reload again, forever. The kind is
/// checked here ([`Watched::relevant`]) before an event counts.
fn watch(
    watched: Watched,
    reload: impl Fn() -> Result<Project, Failure> + Send + 'static,
    preview: Weak<Preview>,
) -> Result<(), Failure> {
    use notify::{RecursiveMode, Watcher};
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(tx)
        .map_err(|e| anyhow::anyhow!("starting the file watcher: {e}"))?;
    let mut paths = vec![(watched.data.clone(), RecursiveMode::Recursive)];
    if watched.templates.is_dir() {
        paths.push((watched.templates.clone(), RecursiveMode::Recursive));
    }
    paths.push((watched.root.clone(), RecursiveMode::NonRecursive));
    for (path, mode) in paths {
        watcher
            .watch(&path, mode)
            .map_err(|e| anyhow::anyhow!("watching `{}`: {e}", path.display()))?;
    }
    std::thread::spawn(move || {
        let _watcher = watcher;
        let mut burst = Burst::default();
        loop {
            // Wait for an event, or until the burst is due; any event but a relevant change
            // (a read, a temporary file) leaves the burst as it was.
            let event = match burst.due() {
                None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
                Some(due) => rx.recv_timeout(due.saturating_duration_since(Instant::now())),
            };
            match event {
                Ok(event) => {
                    if watched.relevant(&event) {
                        burst.changed(Instant::now());
                    }
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {
                    burst = Burst::default();
                    let Some(preview) = preview.upgrade() else { return };
                    reload_now(&reload, &preview);
                }
                Err(mpsc::RecvTimeoutError::Disconnected) => return,
            }
        }
    });
    Ok(())
}

fn reload_now(reload: &dyn Fn() -> Result<Project, Failure>, preview: &Preview) {
    match reload().and_then(|project| preview.reload(project)) {
        Ok(loaded) => {
            for w in &loaded.warnings {
                super::messages::warn(w);
            }
            // Nobody reading stdout any more is no reason to stop serving.
            let _ = say(format_args!(
                "folio: reloaded {} records in {:.2} s",
                loaded.records, loaded.seconds
            ));
        }
        Err(failure) => {
            for line in failure.details() {
                super::messages::eprint(&line);
            }
            super::messages::eprint(&format!(
                "error: {}; still serving the last good listing",
                super::exit::message(&failure)
            ));
            for cause in failure.causes() {
                super::messages::eprint(&format!("caused by: {cause}"));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_burst_is_due_a_settle_after_its_last_change_and_at_most_max_wait_after_its_first() {
        let t0 = Instant::now();
        let ms = |n| t0 + Duration::from_millis(n);
        let mut burst = Burst::default();
        assert_eq!(burst.due(), None, "nothing changed: nothing to do, however long");
        burst.changed(ms(0));
        assert_eq!(burst.due(), Some(ms(250)));
        burst.changed(ms(100));
        assert_eq!(burst.due(), Some(ms(350)), "a change extends the burst");
        // A file rewritten every 100 ms: the reload still comes 2 s after the first.
        for n in (200..5_000).step_by(100) {
            burst.changed(ms(n));
        }
        assert_eq!(burst.due(), Some(ms(2_000)));
    }

    #[test]
    fn reads_and_metadata_are_no_changes() {
        use notify::EventKind;
        use notify::event::{AccessKind, CreateKind, DataChange, MetadataKind, ModifyKind};
        assert!(!is_change(&EventKind::Access(AccessKind::Any)));
        assert!(!is_change(&EventKind::Modify(ModifyKind::Metadata(MetadataKind::AccessTime))));
        assert!(is_change(&EventKind::Modify(ModifyKind::Data(DataChange::Content))));
        assert!(is_change(&EventKind::Create(CreateKind::File)));
    }

    #[test]
    fn editor_temporaries_do_not_reload() {
        for temp in ["a.csv~", ".a.csv.swp", "#a.csv#", "4913", "a.json.tmp", "a.csv___jb_tmp___"] {
            assert!(is_temp_file(Path::new(temp)), "{temp}");
        }
        for real in ["a.csv", "more/b.jsonl", "folio.toml", "page.json.j2"] {
            assert!(!is_temp_file(Path::new(real)), "{real}");
        }
    }
}
