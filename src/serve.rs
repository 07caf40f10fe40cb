//! `folio serve`: the preview server. It answers every request by [`Routes::resolve`], the
//! same table the host configs are rendered from, and reads files from `output/` under a
//! lock that rebuilds hold while they switch files in, so a request sees the old tree or
//! the new one, never half of each. A watcher rebuilds on changes to data, templates and
//! config; a failed rebuild keeps the last good tree and prints its problems.

use std::collections::HashMap;
use std::fs;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::mpsc;
use std::sync::{Arc, RwLock};
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;

use crate::config::Project;
use crate::error::Failure;
use crate::output::manifest::Entry;
use crate::routes::ErrorCode;
use crate::routes::{Outcome, Routes, clean_segment};
use crate::site;

/// What the request handler shares with the rebuild thread.
pub struct App {
    pub output: PathBuf,
    pub routes: RwLock<Arc<Routes>>,
    /// Every file folio wrote, as its manifest records it: the content hash is the entity
    /// tag, which stays the same across rebuilds while the bytes do.
    pub hashes: RwLock<Arc<HashMap<String, Entry>>>,
    /// Held for reading while a request reads files, for writing while a build switches.
    pub switch: RwLock<()>,
}

/// The entries of the manifest in `output` (none when it cannot be read).
fn hashes(output: &Path) -> Arc<HashMap<String, Entry>> {
    let manifest = fs::read(output.join(crate::output::manifest::MANIFEST))
        .ok()
        .and_then(|bytes| crate::output::manifest::Manifest::from_bytes(&bytes).ok());
    Arc::new(manifest.map(|m| m.files.into_iter().collect()).unwrap_or_default())
}

/// The entity tag of a file: its recorded content hash while the file is as the manifest
/// recorded it (size and modification time), else its modification time and size (a
/// build from another process, or a hand edit, changed it since serve read the manifest).
fn entity_tag(recorded: Option<&Entry>, meta: &fs::Metadata) -> String {
    let mtime = crate::output::mtime_ns(meta);
    match recorded.filter(|e| e.size == meta.len() && e.mtime == mtime) {
        Some(e) => format!("\"{:020x}\"", e.hash >> 48),
        None => format!("\"{:x}-{:x}\"", mtime, meta.len()),
    }
}

/// A header of the request as text, if it is there and readable.
fn header_str(headers: &HeaderMap, name: header::HeaderName) -> Option<&str> {
    headers.get(name).and_then(|v| v.to_str().ok())
}

/// Does the request accept `coding` ([`crate::routes::accepts_coding`], over every
/// `Accept-Encoding` line of the request)?
fn accepts(headers: &HeaderMap, coding: &str) -> bool {
    let values = headers.get_all(header::ACCEPT_ENCODING).iter().filter_map(|v| v.to_str().ok());
    crate::routes::accepts_coding(&values.collect::<Vec<_>>().join(","), coding)
}

/// `output/rel` when it is a plain file reached through plain folders: a symlink on the
/// way (`output/api/up -> /`) would lead outside `output/`, so it is no file to serve.
fn plain_file(output: &Path, rel: &str) -> Option<PathBuf> {
    let path = crate::output::paths::Confined::new(output).resolve(rel).ok()?;
    fs::symlink_metadata(&path).is_ok_and(|m| m.is_file()).then_some(path)
}

fn respond(
    status: StatusCode,
    headers: Vec<(header::HeaderName, String)>,
    body: Vec<u8>,
    head: bool,
) -> Response {
    let len = body.len();
    let mut res = Response::new(if head { Body::empty() } else { Body::from(body) });
    *res.status_mut() = status;
    let h = res.headers_mut();
    for (name, value) in headers {
        if let Ok(v) = HeaderValue::from_str(&value) {
            h.append(name, v);
        }
    }
    // A 204 or 304 has no body and says no length (a 304's would be the 200's).
    if status != StatusCode::NO_CONTENT && status != StatusCode::NOT_MODIFIED {
        h.insert(header::CONTENT_LENGTH, HeaderValue::from(len));
    }
    res
}

impl App {
    /// A file of the output folder, with its precompressed sibling when accepted, and
    /// its validators: the entity tag is [`entity_tag`], `Last-Modified` the file's
    /// time; a matching
    /// conditional request is answered `304` (`routes::not_modified`).
    fn file(
        &self,
        rel: &str,
        headers: &HeaderMap,
        head: bool,
        api: bool,
        cache: &str,
    ) -> Option<Response> {
        let mut chosen = (plain_file(&self.output, rel)?, rel.to_string(), None);
        for (coding, ext) in [("br", "br"), ("gzip", "gz")] {
            if !accepts(headers, coding) {
                continue;
            }
            let sibling = format!("{rel}.{ext}");
            if let Some(path) = plain_file(&self.output, &sibling) {
                chosen = (path, sibling, Some(coding));
                break;
            }
        }
        let (path, served, encoding) = chosen;
        let meta = fs::metadata(&path).ok()?;
        let modified = meta.modified().ok()?;
        let hashes = Arc::clone(&self.hashes.read().unwrap_or_else(|p| p.into_inner()));
        let etag = entity_tag(hashes.get(&served), &meta);
        let mut out = vec![
            (header::ETAG, etag.clone()),
            (header::LAST_MODIFIED, httpdate::fmt_http_date(modified)),
        ];
        if api {
            out.push((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*".into()));
            out.push((header::CACHE_CONTROL, cache.to_string()));
        }
        out.push((header::VARY, "Accept-Encoding".into()));
        let inm = header_str(headers, header::IF_NONE_MATCH);
        let ims = header_str(headers, header::IF_MODIFIED_SINCE);
        if crate::routes::not_modified(inm, ims, &etag, modified) {
            return Some(respond(StatusCode::NOT_MODIFIED, out, Vec::new(), true));
        }
        out.push((header::CONTENT_TYPE, crate::routes::content_type(rel).to_string()));
        if let Some(coding) = encoding {
            out.push((header::CONTENT_ENCODING, coding.into()));
        }
        Some(respond(StatusCode::OK, out, fs::read(&path).ok()?, head))
    }

    /// `OPTIONS` under the API: a CORS preflight (`Origin` and
    /// `Access-Control-Request-Method`) gets what the browser needs to send its request;
    /// any other `OPTIONS` the methods the API answers. Both are 204 with no body.
    fn options(&self, headers: &HeaderMap) -> Response {
        use crate::routes::{ALLOW, PREFLIGHT_MAX_AGE};
        let mut out = vec![(header::ACCESS_CONTROL_ALLOW_ORIGIN, "*".to_string())];
        let requested = header_str(headers, header::ACCESS_CONTROL_REQUEST_METHOD);
        if headers.contains_key(header::ORIGIN) && requested.is_some() {
            let asked = header_str(headers, header::ACCESS_CONTROL_REQUEST_HEADERS)
                .map(str::trim)
                .filter(|h| !h.is_empty());
            out.push((header::ACCESS_CONTROL_ALLOW_METHODS, ALLOW.into()));
            out.push((header::ACCESS_CONTROL_ALLOW_HEADERS, asked.unwrap_or("*").into()));
            out.push((header::ACCESS_CONTROL_MAX_AGE, PREFLIGHT_MAX_AGE.to_string()));
        } else {
            out.push((header::ALLOW, ALLOW.into()));
        }
        respond(StatusCode::NO_CONTENT, out, Vec::new(), true)
    }

    /// The error document of `code` with its status, as every host serves it.
    fn error(&self, code: ErrorCode, head: bool) -> Response {
        let body = plain_file(&self.output, &code.file())
            .and_then(|path| fs::read(path).ok())
            .unwrap_or_else(|| code.code().as_bytes().to_vec());
        let mut out = vec![
            (header::CONTENT_TYPE, "application/problem+json".to_string()),
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*".into()),
        ];
        if code == ErrorCode::MethodNotAllowed {
            out.push((header::ALLOW, crate::routes::ALLOW.into()));
        }
        let status = StatusCode::from_u16(code.status()).expect("a valid status");
        respond(status, out, body, head)
    }

    /// Answers one request.
    pub fn handle(
        &self,
        method: &Method,
        path: &str,
        query: &str,
        headers: &HeaderMap,
    ) -> Response {
        let routes = Arc::clone(&self.routes.read().unwrap_or_else(|p| p.into_inner()));
        let _reading = self.switch.read().unwrap_or_else(|p| p.into_inner());
        let head = method == Method::HEAD;
        let cache = routes.cache_control.as_str();
        match routes.resolve(method.as_str(), path, query) {
            Outcome::Page(rel) => self
                .file(&rel, headers, head, true, cache)
                .unwrap_or_else(|| self.error(ErrorCode::PageNotFound, head)),
            Outcome::File(rel) => self
                .file(&rel, headers, head, true, cache)
                .unwrap_or_else(|| self.error(ErrorCode::NotFound, head)),
            Outcome::Error(code) => self.error(code, head),
            Outcome::Options => self.options(headers),
            Outcome::Outside => self.outside(&routes, method, path, headers, head),
        }
    }

    /// Paths outside `/api/`: plain files of the output folder, nothing hidden.
    fn outside(
        &self,
        routes: &Routes,
        method: &Method,
        path: &str,
        headers: &HeaderMap,
        head: bool,
    ) -> Response {
        let plain = |status: StatusCode, text: &str| {
            respond(
                status,
                vec![(header::CONTENT_TYPE, "text/plain; charset=utf-8".into())],
                text.as_bytes().to_vec(),
                head,
            )
        };
        if method != Method::GET && method != Method::HEAD {
            return plain(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
        }
        let rel = path.strip_prefix(&routes.mount).and_then(|p| p.strip_prefix('/')).unwrap_or("");
        let rel = if rel.is_empty() || rel.ends_with('/') {
            format!("{rel}index.html")
        } else {
            rel.to_string()
        };
        if rel.split('/').all(clean_segment)
            && let Some(res) = self.file(&rel, headers, head, false, "")
        {
            return res;
        }
        plain(StatusCode::NOT_FOUND, "not found\n")
    }
}

async fn handler(State(app): State<Arc<App>>, req: Request) -> Response {
    let query = req.uri().query().unwrap_or("").to_string();
    app.handle(req.method(), req.uri().path(), &query, req.headers())
}

/// Options of `folio serve`.
pub struct Options {
    pub bind: std::net::IpAddr,
    pub port: u16,
}

/// Binds, builds, prints the URL, then serves until interrupted.
pub fn run(
    mut project: Project,
    reload: impl Fn() -> Result<Project, Failure> + Send + 'static,
    opts: Options,
) -> Result<(), Failure> {
    let listener = std::net::TcpListener::bind((opts.bind, opts.port))
        .map_err(|e| Failure::Usage(format!("cannot bind {}:{}: {e}", opts.bind, opts.port)))?;
    let addr = listener.local_addr().map_err(anyhow::Error::from)?;
    localize(&mut project, addr);
    let built = site::build(&project, &())?;
    let app = Arc::new(App {
        output: project.output_dir.clone(),
        routes: RwLock::new(Arc::new(Routes::new(&project, built.records))),
        hashes: RwLock::new(hashes(&project.output_dir)),
        switch: RwLock::new(()),
    });
    for w in &built.warnings {
        crate::diag::eprint(&format!("warning: {w}"));
    }
    crate::cmd::say(format_args!("http://{addr}{}/", project.base.path))?;
    crate::cmd::say(format_args!(
        "folio: {} records: {} files written, {} unchanged",
        built.records, built.report.written, built.report.unchanged
    ))?;
    watch(project, reload, addr, Arc::clone(&app))?;

    let runtime = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(anyhow::Error::from)?;
    runtime
        .block_on(async move {
            listener.set_nonblocking(true)?;
            let listener = tokio::net::TcpListener::from_std(listener)?;
            let router = axum::Router::new().fallback(handler).with_state(app);
            axum::serve(listener, router)
                .with_graceful_shutdown(async {
                    let _ = tokio::signal::ctrl_c().await;
                })
                .await
        })
        .map_err(|e| Failure::Other(anyhow::Error::from(e).context("serving")))
}

/// Replaces an absolute base_url's origin by the local one, as `zola serve` does.
fn localize(project: &mut Project, addr: SocketAddr) {
    if !project.base.origin.is_empty() {
        project.base.origin = format!("http://{addr}");
    }
}

/// Files editors write beside the one being edited (swap and backup files, atomic-save
/// temporaries), which are no reason to rebuild (zola ignores the same).
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

/// Is this event a change to a file's content or name (not a read: folio's own rebuild
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

/// How long the watcher waits for a burst of changes to end before it rebuilds.
const SETTLE: Duration = Duration::from_millis(250);

/// Watches data, templates and config; rebuilds once a burst of changes has settled
/// (no further change for [`SETTLE`]).
fn watch(
    project: Project,
    reload: impl Fn() -> Result<Project, Failure> + Send + 'static,
    addr: SocketAddr,
    app: Arc<App>,
) -> Result<(), Failure> {
    use notify::{RecursiveMode, Watcher};
    let inputs = [project.data_dir.clone(), project.templates_dir.clone()];
    let config = project.root.join(project.config_path.file_name().unwrap_or_default());
    let relevant = move |event: &notify::Result<notify::Event>| {
        event.as_ref().is_ok_and(|e| {
            is_change(&e.kind)
                && e.paths.iter().any(|p| {
                    (*p == config || inputs.iter().any(|i| p.starts_with(i))) && !is_temp_file(p)
                })
        })
    };
    let (tx, rx) = mpsc::channel();
    let mut watcher = notify::recommended_watcher(tx)
        .map_err(|e| anyhow::anyhow!("starting the file watcher: {e}"))?;
    let mut watched = vec![(project.data_dir.clone(), RecursiveMode::Recursive)];
    if project.templates_dir.is_dir() {
        watched.push((project.templates_dir.clone(), RecursiveMode::Recursive));
    }
    watched.push((project.root.clone(), RecursiveMode::NonRecursive));
    for (path, mode) in watched {
        watcher
            .watch(&path, mode)
            .map_err(|e| anyhow::anyhow!("watching `{}`: {e}", path.display()))?;
    }
    std::thread::spawn(move || {
        let _watcher = watcher;
        while let Ok(event) = rx.recv() {
            let mut changed = relevant(&event);
            while let Ok(event) = rx.recv_timeout(SETTLE) {
                changed |= relevant(&event);
            }
            if changed {
                rebuild(&reload, addr, &app);
            }
        }
    });
    Ok(())
}

fn rebuild(reload: &dyn Fn() -> Result<Project, Failure>, addr: SocketAddr, app: &App) {
    let result = reload().and_then(|mut project| {
        localize(&mut project, addr);
        let built = site::build_locked(&project, &(), Some(&app.switch))?;
        *app.routes.write().unwrap_or_else(|p| p.into_inner()) =
            Arc::new(Routes::new(&project, built.records));
        *app.hashes.write().unwrap_or_else(|p| p.into_inner()) = hashes(&app.output);
        Ok(built)
    });
    match result {
        Ok(built) => {
            for w in &built.warnings {
                crate::diag::eprint(&format!("warning: {w}"));
            }
            // Nobody reading stdout any more is no reason to stop serving.
            let _ = crate::cmd::say(format_args!(
                "folio: rebuilt {} records: {} files written, {} unchanged, {} removed",
                built.records, built.report.written, built.report.unchanged, built.report.removed
            ));
        }
        Err(failure) => {
            for line in failure.details() {
                crate::diag::eprint(&line);
            }
            crate::diag::eprint(&format!("error: {failure}; still serving the last good build"));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn editor_temporaries_do_not_rebuild() {
        for temp in ["a.csv~", ".a.csv.swp", "#a.csv#", "4913", "a.json.tmp", "a.csv___jb_tmp___"] {
            assert!(is_temp_file(Path::new(temp)), "{temp}");
        }
        for real in ["a.csv", "more/b.jsonl", "folio.toml", "page.json.j2"] {
            assert!(!is_temp_file(Path::new(real)), "{real}");
        }
    }

    #[test]
    fn accept_encoding_tokens_and_q_zero() {
        let h = |v: &str| {
            let mut m = HeaderMap::new();
            m.insert(header::ACCEPT_ENCODING, HeaderValue::from_str(v).unwrap());
            m
        };
        assert!(accepts(&h("gzip, deflate, br"), "br"));
        assert!(accepts(&h("GZIP"), "gzip"));
        assert!(!accepts(&h("br;q=0, gzip"), "br"));
        assert!(!accepts(&h("br;Q=0, gzip"), "br"));
        assert!(!accepts(&h("br; q=0, gzip"), "br"));
        assert!(accepts(&h("br;q=0.5"), "br"));
        assert!(!accepts(&h("identity"), "gzip"));
        assert!(!accepts(&HeaderMap::new(), "gzip"));
    }
}
