//! The one integration-test harness: a temporary project, the real `folio` binary run in
//! it, and assertions that dump the command, both streams and the tree when they fail;
//! servers run as children (killed with their process group) and the tools tests need
//! (skipped with a reason locally, required under CI).

use std::collections::BTreeMap;
use std::fs;
use std::io::{BufRead, BufReader};
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant, SystemTime};

/// folio as the tests run it: the same main, with the fault points of `FOLIO_FAULT` built
/// in (`src/bin/folio-faults.rs`).
pub const BIN: &str = env!("CARGO_BIN_EXE_folio-faults");

/// How many records the sample in `data/` has.
pub const SAMPLE_RECORDS: usize = 67;

/// The repository root, where the sample `folio.toml` and `data/` live.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The target folder these tests were built in (`CARGO_TARGET_DIR` where it is set).
pub fn target_dir() -> PathBuf {
    Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("target/tmp has a parent").to_path_buf()
}

/// A program the tests run: from the project's Python environment (`tests/.venv`, where
/// .ci/run installs the PyPI tools) when it is there, else from `PATH`.
pub fn tool(program: &str) -> PathBuf {
    let local = repo().join("tests/.venv/bin").join(program);
    if local.is_file() { local } else { PathBuf::from(program) }
}

pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    /// An empty project with a `folio.toml` holding `config`.
    pub fn new(config: &str) -> Project {
        let p = Project { dir: tempfile::tempdir().expect("a temp dir") };
        p.write("folio.toml", config);
        fs::create_dir_all(p.path("data")).unwrap();
        p
    }

    /// A copy of the repository's sample project (config and data).
    pub fn sample() -> Project {
        let p = Project::new(&fs::read_to_string(repo().join("folio.toml")).unwrap());
        copy_dir(&repo().join("data"), &p.path("data"));
        p
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> &Self {
        let path = self.path(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, contents).unwrap();
        self
    }

    pub fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.path(rel))
            .unwrap_or_else(|e| panic!("reading {rel}: {e}\n{}", self.listing("output")))
    }

    pub fn json(&self, rel: &str) -> serde_json::Value {
        serde_json::from_str(&self.read(rel)).unwrap_or_else(|e| panic!("{rel} is not JSON: {e}"))
    }

    /// Runs `folio ARGS` in the project folder.
    pub fn folio(&self, args: &[&str]) -> Run {
        self.folio_env(args, &[])
    }

    pub fn folio_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = Command::new(BIN);
        cmd.args(args).current_dir(self.dir.path()).env_remove("FOLIO_FAULT");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let output = cmd.output().expect("running folio");
        Run { cmd: format!("folio {}", args.join(" ")), output, tree: self.listing("output") }
    }

    /// Starts `folio ARGS` in the project folder and returns at once, with its stderr
    /// collected as it runs (stdout is dropped).
    pub fn spawn_folio(&self, args: &[&str], env: &[(String, String)]) -> (Running, Stderr) {
        let mut child = Command::new(BIN)
            .args(args)
            .current_dir(self.dir.path())
            .env_remove("FOLIO_FAULT")
            .envs(env.iter().map(|(k, v)| (k, v)))
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .expect("starting folio");
        let stderr = Stderr::of(&mut child);
        (Running(child), stderr)
    }

    /// Every file under `rel` with its content.
    pub fn tree(&self, rel: &str) -> BTreeMap<String, Vec<u8>> {
        files(&self.path(rel)).into_iter().map(|(k, p)| (k, fs::read(p).unwrap())).collect()
    }

    /// Every file under `rel` with its size, modification time and inode.
    pub fn stats(&self, rel: &str) -> BTreeMap<String, (u64, SystemTime, u64)> {
        use std::os::unix::fs::MetadataExt;
        files(&self.path(rel))
            .into_iter()
            .map(|(k, p)| {
                let m = fs::metadata(p).unwrap();
                (k, (m.len(), m.modified().unwrap(), m.ino()))
            })
            .collect()
    }

    fn listing(&self, rel: &str) -> String {
        files(&self.path(rel)).into_keys().take(40).collect::<Vec<_>>().join("\n")
    }
}

/// Files below `root` keyed by their `/`-separated relative path (none if it is missing).
pub fn files(root: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    if !root.exists() {
        return out;
    }
    for e in walkdir::WalkDir::new(root).sort_by_file_name() {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let rel = e.path().strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            out.insert(rel, e.into_path());
        }
    }
    out
}

pub fn copy_dir(from: &Path, to: &Path) {
    for (rel, path) in files(from) {
        let dest = to.join(rel);
        fs::create_dir_all(dest.parent().unwrap()).unwrap();
        fs::copy(path, dest).unwrap();
    }
}

pub struct Run {
    pub cmd: String,
    pub output: Output,
    tree: String,
}

impl Run {
    /// A run of a command built elsewhere (`cmd` as the failure dump shows it).
    pub fn of(cmd: String, output: Output) -> Run {
        Run { cmd, output, tree: String::new() }
    }

    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    pub fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    fn dump(&self) -> String {
        format!(
            "command: {}\nexit: {:?}\n--- stdout\n{}--- stderr\n{}--- output/ (first 40)\n{}",
            self.cmd,
            self.code(),
            self.stdout(),
            self.stderr(),
            self.tree
        )
    }

    #[track_caller]
    pub fn success(self) -> Run {
        assert_eq!(self.code(), Some(0), "expected success\n{}", self.dump());
        self
    }

    #[track_caller]
    pub fn fails(self, code: i32) -> Run {
        assert_eq!(self.code(), Some(code), "expected exit {code}\n{}", self.dump());
        self
    }

    /// Parses the summary line: (written, unchanged, removed).
    #[track_caller]
    pub fn counts(&self) -> (u64, u64, u64) {
        let line = self.stdout();
        let num = |word: &str| -> u64 {
            let before = line.split(word).next().unwrap_or_else(|| panic!("no `{word}` in {line}"));
            before
                .trim_end()
                .rsplit([' ', ','])
                .next()
                .unwrap()
                .parse()
                .unwrap_or_else(|_| panic!("{}", self.dump()))
        };
        (num(" files written"), num(" unchanged"), num(" removed"))
    }
}

/// Runs `folio ARGS` in `dir` and returns all that it said, for `insta::assert_snapshot!`
/// (as uv's `uv_snapshot!`): `exit: N`, then stdout and stderr, each under its header. What
/// varies from run to run is replaced: `dir` (the project's temporary folder) by
/// `[PROJECT]`, a duration (`0.12 s`, `12 ms`) by `[TIME]`, the random part of a temporary
/// file's name (`.folio-tmp-eSo2HF`) by `[RANDOM]`, a commit's whole name by `[COMMIT]`,
/// and folio's version by `[VERSION]` (they change with each commit and release, not with
/// what a test checks). The terminal width and forced
/// colours of the environment are not passed on: help text wraps the same everywhere.
pub fn folio_snapshot(dir: &Path, args: &[&str]) -> String {
    let mut cmd = Command::new(BIN);
    cmd.args(args).current_dir(dir).env_remove("FOLIO_FAULT");
    snapshot_filtered(dir, cmd)
}

/// [`folio_snapshot`] of a command built elsewhere (a deploy, with its store's address,
/// credentials and variables: `FOLIO_FAULT` is left as the command sets it), run in `dir`.
/// The same is replaced as there (a port folio's own words name, such as the
/// `http://127.0.0.1:9000` of an example, stays).
pub fn folio_snapshot_of(dir: &Path, cmd: Command) -> String {
    snapshot_filtered(dir, cmd)
}

/// Runs `cmd` (without the terminal width and forced colours of the environment) and
/// returns what it said, with what varies replaced, as [`folio_snapshot`] says.
fn snapshot_filtered(dir: &Path, mut cmd: Command) -> String {
    static TIME: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\b\d+(?:\.\d+)? ?(?:ms|µs|s)\b").unwrap());
    // A whole commit's name (the docs of the commit built from, in `--help`).
    static COMMIT: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\b[0-9a-f]{40}\b").unwrap());
    static RANDOM: std::sync::LazyLock<regex::Regex> =
        std::sync::LazyLock::new(|| regex::Regex::new(r"\.folio-tmp-[A-Za-z0-9]+").unwrap());
    // The version alone, not inside a longer number (`v0.1.0` is one, `10.1.0` is not).
    static VERSION: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
        let version = regex::escape(env!("CARGO_PKG_VERSION"));
        regex::Regex::new(&format!(r"(^|[^0-9.]){version}([^0-9.]|\.[^0-9]|\.?$)")).unwrap()
    });
    let output =
        cmd.env_remove("COLUMNS").env_remove("CLICOLOR_FORCE").output().expect("running folio");
    let exit = output.status.code().map_or("killed by a signal".to_string(), |c| c.to_string());
    let stream = |bytes: &[u8]| {
        let mut text = String::from_utf8_lossy(bytes).into_owned();
        if !text.is_empty() && !text.ends_with('\n') {
            text.push('\n');
        }
        text
    };
    let text = format!(
        "exit: {exit}\n--- stdout ---\n{}--- stderr ---\n{}",
        stream(&output.stdout),
        stream(&output.stderr)
    );
    // The folder as given and as the system names it (through any symlink), longest first.
    let mut dirs = vec![dir.to_string_lossy().into_owned()];
    if let Ok(real) = dir.canonicalize() {
        dirs.push(real.to_string_lossy().into_owned());
    }
    dirs.sort_by_key(|d| std::cmp::Reverse(d.len()));
    let text = dirs.iter().fold(text, |text, d| text.replace(d.as_str(), "[PROJECT]"));
    let text = TIME.replace_all(&text, "[TIME]");
    let text = RANDOM.replace_all(&text, ".folio-tmp-[RANDOM]");
    let text = COMMIT.replace_all(&text, "[COMMIT]");
    VERSION.replace_all(&text, "${1}[VERSION]${2}").into_owned()
}

/// A child process in a process group of its own, killed with the whole group and reaped
/// on drop: nginx and Apache workers, wrangler's workerd and Chromium's helpers outlive a
/// killed parent.
pub struct Server {
    pub child: std::process::Child,
    /// Its output, removed with it unless the test failed (then it is kept, and named).
    log: Option<PathBuf>,
}

impl Drop for Server {
    fn drop(&mut self) {
        kill_group(&self.child);
        let _ = self.child.kill();
        let _ = self.child.wait();
        if let Some(log) = self.log.take() {
            if std::thread::panicking() {
                uncaptured(&format!("server log kept: {}", log.display()));
            } else {
                let _ = fs::remove_file(log);
            }
        }
    }
}

/// SIGKILL to the process group `child` leads (every server starts in its own group).
fn kill_group(child: &std::process::Child) {
    let group = format!("-{}", child.id());
    let _ = Command::new("kill")
        .args(["-KILL", "--", &group])
        .stderr(std::process::Stdio::null())
        .status();
}

impl Server {
    /// A child process, killed (with its process group) when this is dropped.
    pub fn of(child: std::process::Child) -> Server {
        Server { child, log: None }
    }

    /// Starts `cmd` in a process group of its own and waits until it accepts connections
    /// on `port`. Its output goes to `log` when given (and is shown if it fails to start),
    /// else stdout is dropped and stderr inherited.
    pub fn start(
        name: &str,
        cmd: &mut Command,
        port: u16,
        log: Option<&Path>,
        deadline: Duration,
    ) -> Server {
        use std::process::Stdio;
        cmd.process_group(0).stdin(Stdio::null());
        match log {
            Some(log) => {
                let out = fs::File::create(log).unwrap();
                cmd.stdout(out.try_clone().unwrap()).stderr(out);
            }
            None => {
                cmd.stdout(Stdio::null()).stderr(Stdio::inherit());
            }
        }
        let child = cmd.spawn().unwrap_or_else(|e| panic!("starting {name}: {e}"));
        let mut server = Server { child, log: log.map(Path::to_path_buf) };
        let started = Instant::now();
        let mut retried = false;
        while std::net::TcpStream::connect(("127.0.0.1", port)).is_err() {
            let exited = server.child.try_wait().unwrap();
            // A server that exits at start on a loaded machine (workerd, seen once in a
            // CI run: "The Workers runtime failed to start") gets one more start, said.
            if let Some(status) = exited.filter(|_| !retried && started.elapsed() < deadline) {
                retried = true;
                uncaptured(&format!(
                    "{name} exited before listening ({status}); starting it again"
                ));
                // Its children may outlive it (wrangler's workerd): the whole group goes
                // first, or the port answers from a runtime whose parent is gone.
                kill_group(&server.child);
                if let Some(log) = log {
                    let out = fs::File::create(log).unwrap();
                    cmd.stdout(out.try_clone().unwrap()).stderr(out);
                }
                server.child = cmd.spawn().unwrap_or_else(|e| panic!("starting {name}: {e}"));
                continue;
            }
            if exited.is_some() || started.elapsed() > deadline {
                let why = exited.map_or(format!("did not listen within {deadline:?}"), |s| {
                    format!("exited before listening: {s}")
                });
                let log =
                    log.map(|l| fs::read_to_string(l).unwrap_or_default()).unwrap_or_default();
                panic!("{name} on port {port} {why}; its output:\n{log}");
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        server
    }
}

/// A running `folio serve`.
pub struct Served {
    pub server: Server,
    /// The URL it printed first.
    pub url: String,
    pub port: u16,
    /// Its second line: what it loaded.
    pub loaded: String,
}

/// `folio serve --port 0` in `dir`. The rest of its stdout is read away, so it never
/// blocks on a full pipe.
pub fn serve(dir: &Path) -> Served {
    serve_with(dir, &[])
}

/// [`serve`] with more environment (a fault's gate, `TMPDIR`).
pub fn serve_with(dir: &Path, envs: &[(String, String)]) -> Served {
    let mut cmd = Command::new(BIN);
    cmd.envs(envs.iter().map(|(k, v)| (k, v))).args(["serve", "--port", "0"]).current_dir(dir);
    serve_command(cmd)
}

/// [`serve`] of a command built elsewhere (`folio serve --port 0`, with what the test
/// needs: a lower descriptor limit).
pub fn serve_command(mut cmd: Command) -> Served {
    use std::process::Stdio;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::inherit())
        .process_group(0)
        .spawn()
        .expect("starting folio serve");
    let mut out = BufReader::new(child.stdout.take().expect("piped"));
    let (mut url, mut loaded) = (String::new(), String::new());
    out.read_line(&mut url).expect("reading the URL line");
    out.read_line(&mut loaded).expect("reading the load line");
    std::thread::spawn(move || std::io::copy(&mut out, &mut std::io::sink()));
    let url = url.trim().to_string();
    let port = url
        .strip_prefix("http://127.0.0.1:")
        .and_then(|rest| rest.split('/').next())
        .and_then(|p| p.parse().ok())
        .unwrap_or_else(|| panic!("not a loopback URL: {url:?}"));
    assert!(loaded.contains("records loaded"), "{loaded:?}");
    Served { server: Server::of(child), url, port, loaded: loaded.trim().to_string() }
}

/// The body of a 200 answer to `GET target` from a server on `port`.
pub fn fetch(port: u16, target: &str) -> Vec<u8> {
    let res = crate::table::request(port, "GET", target, &[]);
    assert_eq!(res.status, 200, "GET {target}: {}", String::from_utf8_lossy(&res.body));
    res.body
}

/// A free port on loopback (bound, then released).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port()
}

/// Is `program` installed? Locally a missing program skips the test with a reason; under
/// CI (the `CI` variable set) it fails, because `.ci/run` installs it.
pub fn need(program: &str) -> bool {
    let local = tool(program);
    let found = (local.is_absolute() && local.is_file())
        || std::env::var_os("PATH")
            .map(|paths| std::env::split_paths(&paths).any(|d| d.join(program).is_file()))
            .unwrap_or(false)
        || Path::new(program).is_file();
    missing_is_ok(found, program)
}

/// Is the Python module importable? As [`need`].
pub fn need_python_module(module: &str) -> bool {
    if !need("python3") {
        return false;
    }
    let found = Command::new(tool("python3"))
        .args(["-c", &format!("import {module}")])
        .stderr(std::process::Stdio::null())
        .status()
        .is_ok_and(|s| s.success());
    missing_is_ok(found, &format!("the Python module {module}"))
}

pub fn missing_is_ok(found: bool, what: &str) -> bool {
    if !found {
        assert!(
            std::env::var_os("CI").is_none(),
            "{what} is missing, and CI must run this test (.ci/run installs it)"
        );
        skipped(&format!("{what} is not installed (.ci/run installs it)"));
    }
    found
}

/// Says that the running test skips, and why, where `cargo test` shows it without
/// `--nocapture`: libtest captures `eprintln!`, not writes to the stderr handle. The test
/// still counts as passed, so the line is the only sign of the skip.
pub fn skipped(why: &str) {
    let thread = std::thread::current();
    let test = thread.name().unwrap_or("a test");
    uncaptured(&format!("SKIPPED {test}: {why}"));
}

/// One line on the real stderr, past libtest's capture.
fn uncaptured(line: &str) {
    use std::io::Write;
    let _ = std::io::stderr().lock().write_all(format!("{line}\n").as_bytes());
}

/// A command started in the background, killed when the test ends (also when it fails
/// while the command stands at a gate that will never open).
pub struct Running(pub std::process::Child);

impl std::ops::Deref for Running {
    type Target = std::process::Child;
    fn deref(&self) -> &std::process::Child {
        &self.0
    }
}

impl std::ops::DerefMut for Running {
    fn deref_mut(&mut self) -> &mut std::process::Child {
        &mut self.0
    }
}

impl Drop for Running {
    fn drop(&mut self) {
        if self.0.try_wait().is_ok_and(|status| status.is_none()) {
            let _ = self.0.kill();
            let _ = self.0.wait();
        }
    }
}

/// A gate for `FOLIO_FAULT=wait-STEP:N`: the command stops before that step until the
/// test opens the gate, so another command can run while it is midway, in a set order.
pub struct Gate {
    _dir: tempfile::TempDir,
    path: PathBuf,
}

impl Gate {
    pub fn new() -> Gate {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("gate");
        Gate { _dir: dir, path }
    }

    /// The environment a gated command needs, with its fault spec.
    pub fn env(&self, fault: &str) -> Vec<(String, String)> {
        vec![
            ("FOLIO_FAULT".into(), fault.into()),
            ("FOLIO_FAULT_GATE".into(), self.path.to_string_lossy().into_owned()),
        ]
    }

    /// Waits until a command stands at the gate.
    pub fn wait_reached(&self, child: &mut std::process::Child) {
        let reached = self.path.with_extension("reached");
        let start = Instant::now();
        while !reached.exists() {
            if let Some(status) = child.try_wait().unwrap() {
                panic!("the gated command ended before the gate: {status}");
            }
            assert!(start.elapsed() < Duration::from_secs(60), "nothing reached the gate");
            std::thread::sleep(Duration::from_millis(10));
        }
    }

    pub fn open(&self) {
        fs::write(&self.path, "open").unwrap();
    }
}

/// A command's stderr, collected by a thread while it runs.
pub struct Stderr {
    text: std::sync::Arc<std::sync::Mutex<String>>,
    reader: std::sync::Mutex<Option<std::thread::JoinHandle<()>>>,
}

impl Stderr {
    /// Takes `child`'s piped stderr.
    pub fn of(child: &mut std::process::Child) -> Stderr {
        let text = std::sync::Arc::new(std::sync::Mutex::new(String::new()));
        let mut pipe = BufReader::new(child.stderr.take().expect("stderr piped"));
        let into = text.clone();
        let reader = std::thread::spawn(move || {
            let mut line = String::new();
            while pipe.read_line(&mut line).is_ok_and(|n| n > 0) {
                into.lock().unwrap().push_str(&line);
                line.clear();
            }
        });
        Stderr { text, reader: std::sync::Mutex::new(Some(reader)) }
    }

    /// What the command said so far.
    pub fn text(&self) -> String {
        self.text.lock().unwrap().clone()
    }

    /// All the command said, once it has ended: waits for the reader to reach the end of
    /// the pipe (the command's exit does not mean its last lines were read yet).
    pub fn all(&self) -> String {
        if let Some(reader) = self.reader.lock().unwrap().take() {
            let _ = reader.join();
        }
        self.text()
    }

    /// Waits until the command has said `what`.
    pub fn wait_for(&self, what: &str) {
        let start = Instant::now();
        while !self.text().contains(what) {
            assert!(
                start.elapsed() < Duration::from_secs(60),
                "never said {what:?}; said:\n{}",
                self.text()
            );
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// A server on a tokio runtime of its own thread, listening on a free loopback port:
/// `serve` gets the listener and a future that ends when the server is dropped, which then
/// waits for the thread.
pub struct InThread {
    pub port: u16,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

/// The future that tells an [`InThread`] server to stop.
pub type Stopped = std::pin::Pin<Box<dyn std::future::Future<Output = ()> + Send>>;

impl InThread {
    pub fn start<F, Fut>(serve: F) -> InThread
    where
        F: FnOnce(std::net::TcpListener, Stopped) -> Fut + Send + 'static,
        Fut: std::future::Future<Output = ()>,
    {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        let thread = std::thread::spawn(move || {
            let runtime = tokio::runtime::Builder::new_multi_thread()
                .worker_threads(2)
                .enable_all()
                .build()
                .unwrap();
            let stopped: Stopped = Box::pin(async move {
                let _ = rx.await;
            });
            runtime.block_on(serve(listener, stopped));
        });
        InThread { port, stop: Some(tx), thread: Some(thread) }
    }
}

impl Drop for InThread {
    fn drop(&mut self) {
        let _ = self.stop.take().map(|tx| tx.send(()));
        let _ = self.thread.take().map(std::thread::JoinHandle::join);
    }
}

/// A plain static file server over `root` (tower-http's `ServeDir`), like a host without
/// rewrites: the query string is ignored, a folder is a 404. Stops when dropped.
pub struct StaticHost {
    pub port: u16,
    stop: Option<tokio::sync::oneshot::Sender<()>>,
}

impl Drop for StaticHost {
    fn drop(&mut self) {
        if let Some(stop) = self.stop.take() {
            let _ = stop.send(());
        }
    }
}

impl StaticHost {
    pub fn start(root: PathBuf) -> StaticHost {
        let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        std::thread::spawn(move || {
            let runtime =
                tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
            runtime.block_on(async move {
                let listener = tokio::net::TcpListener::from_std(listener).unwrap();
                let files = tower_http::services::ServeDir::new(root)
                    .append_index_html_on_directories(false);
                let app = axum::Router::new().fallback_service(files);
                let _ = axum::serve(listener, app)
                    .with_graceful_shutdown(async {
                        let _ = stopped.await;
                    })
                    .await;
            });
        });
        StaticHost { port, stop: Some(stop) }
    }
}
