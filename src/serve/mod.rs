//! The preview server of `folio serve`: [`App`] answers every request by
//! [`Map::resolve`], the same table the host configs are rendered from, reading files
//! of one folder under a lock that rebuilds hold while they switch files in, so a request
//! sees the old tree or the new one, never half of each. [`Preview`] builds the project
//! into a private folder of its own for it: `output_dir` is never written by a preview.
//! Watching for changes and printing are the command's (`cmd/serve.rs`).

use std::collections::HashMap;
use std::fs;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::sync::{Arc, RwLock};

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;

use crate::config::Project;
use crate::error::Failure;
use crate::output::manifest::Entry;
use crate::routes::ErrorCode;
use crate::routes::{Map, Outcome, clean_segment};
use crate::site;

pub mod folder;

/// What the request handler shares with the rebuild thread.
pub struct App {
    pub output: PathBuf,
    pub routes: RwLock<Arc<Map>>,
    /// Every file folio wrote, as its manifest records it: the content hash is the entity
    /// tag, which stays the same across rebuilds while the bytes do.
    pub hashes: RwLock<Arc<HashMap<String, Entry>>>,
    /// Held for reading while a request reads files, for writing while a build switches.
    pub switch: RwLock<()>,
}

impl App {
    /// Serves the build in `output` by `routes`.
    pub fn new(output: PathBuf, routes: Map) -> App {
        let hashes = RwLock::new(hashes(&output));
        App { output, routes: RwLock::new(Arc::new(routes)), hashes, switch: RwLock::new(()) }
    }
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
        for (ext, coding) in crate::routes::layout::SIBLINGS {
            if !accepts(headers, coding) {
                continue;
            }
            let sibling = format!("{rel}{ext}");
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
            (header::CONTENT_TYPE, crate::routes::PROBLEM_JSON.to_string()),
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
        if crate::output::half_switched(&self.output) {
            // A switch failed midway: each file is old or new, which is no build to show.
            return respond(
                StatusCode::SERVICE_UNAVAILABLE,
                vec![
                    (header::CONTENT_TYPE, crate::routes::TEXT.content_type.into()),
                    (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*".into()),
                    (header::RETRY_AFTER, "1".into()),
                ],
                b"the preview's last rebuild failed while switching files in; it is shown again once a rebuild finishes\n".to_vec(),
                head,
            );
        }
        let cache = routes.shape.cache_control.as_str();
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
        routes: &Map,
        method: &Method,
        path: &str,
        headers: &HeaderMap,
        head: bool,
    ) -> Response {
        let plain = |status: StatusCode, text: &str| {
            respond(
                status,
                vec![(header::CONTENT_TYPE, crate::routes::TEXT.content_type.into())],
                text.as_bytes().to_vec(),
                head,
            )
        };
        if method != Method::GET && method != Method::HEAD {
            return plain(StatusCode::METHOD_NOT_ALLOWED, "method not allowed\n");
        }
        // Outside the mount (a base_url path) there is nothing.
        let inside = path.strip_prefix(routes.mount());
        let Some(rel) =
            inside.and_then(|p| if p.is_empty() { Some(p) } else { p.strip_prefix('/') })
        else {
            return plain(StatusCode::NOT_FOUND, "not found\n");
        };
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
        // The address `folio serve` prints: with no index.html of the project's, the
        // explorer is what there is to see.
        if rel == "index.html" {
            let explorer = routes.path(crate::routes::layout::EXPLORER);
            return respond(
                StatusCode::TEMPORARY_REDIRECT,
                vec![
                    (header::LOCATION, explorer.clone()),
                    (header::CONTENT_TYPE, crate::routes::TEXT.content_type.into()),
                ],
                format!("see {explorer}\n").into_bytes(),
                head,
            );
        }
        plain(StatusCode::NOT_FOUND, "not found\n")
    }
}

async fn handler(State(app): State<Arc<App>>, req: Request) -> Response {
    let query = req.uri().query().unwrap_or("").to_string();
    app.handle(req.method(), req.uri().path(), &query, req.headers())
}

/// Serves `app` on `listener` until `shutdown` completes.
pub async fn run_server(
    listener: std::net::TcpListener,
    app: Arc<App>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let router = axum::Router::new().fallback(handler).with_state(app);
    axum::serve(listener, router).with_graceful_shutdown(shutdown).await
}

/// The preview: the project built into a private folder of its own (never its
/// `output_dir`, which `folio deploy` publishes), with an absolute base_url's origin
/// replaced by the local address (as `zola serve` does), and the [`App`] that serves it.
/// The folder is removed when the preview is dropped.
pub struct Preview {
    dir: folder::Folder,
    addr: SocketAddr,
    app: Arc<App>,
    place: folder::Place,
}

impl Preview {
    /// Builds `project` for the preview at `addr`; the first build's report with it. A
    /// build in memory that runs out of room there is built again on disk, and says so.
    pub fn start(project: Project, addr: SocketAddr) -> Result<(Preview, site::Built), Failure> {
        let making = |e: std::io::Error| {
            anyhow::Error::from(e).context("making the preview's private folder")
        };
        let (dir, place) = folder::Folder::new(estimate(&project)).map_err(making)?;
        let attempt = |dir: &folder::Folder| {
            let project = private(project.clone(), dir.path(), addr);
            site::build(&project, &()).map(|built| (project, built))
        };
        let (dir, (project, built), place) = match attempt(&dir) {
            Ok(done) => (dir, done, place),
            Err(e) if place == folder::Place::Memory && no_room(&e) => {
                drop(dir);
                let disk = folder::Folder::on_disk().map_err(making)?;
                let mut done = attempt(&disk)?;
                done.1.warnings.push(format!(
                    "{} had no room for this preview: it is built on disk instead ({})",
                    folder::memory().display(),
                    disk.path().display()
                ));
                (disk, done, folder::Place::Disk)
            }
            Err(e) => return Err(e),
        };
        let app = Arc::new(App::new(project.output_dir, built.map.clone()));
        Ok((Preview { dir, addr, app, place }, built))
    }

    /// Whether the preview's folder is in memory.
    pub fn in_memory(&self) -> bool {
        self.place == folder::Place::Memory
    }

    /// The folder the preview is built in and served from.
    pub fn output(&self) -> &Path {
        &self.app.output
    }

    pub fn app(&self) -> Arc<App> {
        Arc::clone(&self.app)
    }

    /// Builds `project` (the config read again) into the preview's folder. Requests wait
    /// while files are switched in; a failed build leaves the last good tree served, and a
    /// switch that failed midway is answered 503 until a build finishes it.
    pub fn rebuild(&self, project: Project) -> Result<site::Built, Failure> {
        let project = private(project, self.dir.path(), self.addr);
        let options = site::BuildOptions { switch: Some(&self.app.switch), ..Default::default() };
        let built = site::build_with(&project, &(), &options)?;
        *self.app.routes.write().unwrap_or_else(|p| p.into_inner()) = Arc::new(built.map.clone());
        *self.app.hashes.write().unwrap_or_else(|p| p.into_inner()) = hashes(&self.app.output);
        Ok(built)
    }
}

/// About how many bytes a build of `project` writes, from its data and the listing's
/// shape: every record's item on a page of every size, in every language and the
/// unprefixed default, and again in each precompressed sibling (counted whole: an upper
/// bound); its data files' bytes stand for the items'. A template that adds much to each
/// page can write more: [`Preview::start`] then builds on disk.
pub fn estimate(project: &Project) -> u64 {
    let files = crate::load::walk(&project.data_dir).unwrap_or_default();
    let data: u64 = files.iter().filter_map(|f| fs::metadata(f).ok()).map(|m| m.len()).sum();
    let copies = (project.shape.languages.len() as u64 + 1)
        * project.shape.page_sizes.len() as u64
        * (1 + project.precompress.len() as u64);
    data.saturating_mul(copies)
}

/// Did `failure` come from a filesystem without room?
pub fn no_room(failure: &Failure) -> bool {
    let Failure::Other(e) = failure else { return false };
    e.chain().any(|cause| {
        cause
            .downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::StorageFull)
    })
}

/// `project` as the preview builds it: into `dir`, with links at `addr`.
fn private(mut project: Project, dir: &Path, addr: SocketAddr) -> Project {
    project.output_dir = dir.join("output");
    project.hosting_dir = dir.join("hosting");
    if !project.shape.base.origin.is_empty() {
        project.shape.base.origin = format!("http://{addr}");
    }
    project
}

#[cfg(test)]
mod tests {
    use super::*;

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
