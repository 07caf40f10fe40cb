//! What answers a request: [`App`] resolves it by the map of the snapshot it starts on
//! and answers with that snapshot's file, with the build's headers (entity tags,
//! `Last-Modified` kept across reloads, CORS, conditional requests, the precompressed
//! sibling a client accepts, the problem documents).

use std::sync::{Arc, RwLock};

use axum::body::Body;
use axum::http::{HeaderMap, HeaderValue, Method, StatusCode, header};
use axum::response::Response;
use bytes::Bytes;

use super::snapshot::Snapshot;
use super::stamps::Stamps;
use crate::routes::ErrorCode;
use crate::routes::{Map, Outcome, clean_segment};

/// What the request handler shares with the reloads.
pub struct App {
    /// The listing requests are answered from; a reload replaces it whole.
    current: RwLock<Arc<Snapshot>>,
    /// The times of the files served, kept across reloads.
    pub(super) stamps: Stamps,
    /// Hears of pages that fail to render when asked for.
    report: Box<dyn Fn(&str) + Send + Sync>,
}

impl App {
    /// Answers from `snapshot`; `report` hears of pages that fail to render.
    pub fn new(snapshot: Snapshot, report: Box<dyn Fn(&str) + Send + Sync>) -> App {
        App { current: RwLock::new(Arc::new(snapshot)), stamps: Stamps::default(), report }
    }

    /// The listing a request starts on: it answers the whole request from it.
    pub fn snapshot(&self) -> Arc<Snapshot> {
        Arc::clone(&self.current.read().unwrap_or_else(|p| p.into_inner()))
    }

    /// Puts `next` in place of the current listing, which it returns.
    pub(super) fn swap(&self, next: Snapshot) -> Arc<Snapshot> {
        let mut current = self.current.write().unwrap_or_else(|p| p.into_inner());
        std::mem::replace(&mut *current, Arc::new(next))
    }

    /// How many files have their `Last-Modified` kept across reloads.
    pub fn stamped(&self) -> usize {
        self.stamps.len()
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

fn respond(
    status: StatusCode,
    headers: Vec<(header::HeaderName, String)>,
    body: impl Into<Bytes>,
    head: bool,
) -> Response {
    let body = body.into();
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
    /// The file `rel` of the listing's build, in the coding the request accepts, with its
    /// validators ([`Snapshot::file`]); a matching conditional request is answered `304`
    /// (`routes::not_modified`). `None` when the build has no such file.
    fn file(
        &self,
        now: &Snapshot,
        rel: &str,
        headers: &HeaderMap,
        head: bool,
        api: bool,
        cache: &str,
    ) -> Option<Response> {
        let rep = match now.file(rel, &|coding| accepts(headers, coding), &self.stamps)? {
            Ok(rep) => rep,
            Err(message) => return Some(self.failed(&message, head, api)),
        };
        let mut out = vec![
            (header::ETAG, rep.etag.clone()),
            (header::LAST_MODIFIED, httpdate::fmt_http_date(rep.modified)),
        ];
        if api {
            out.push((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*".into()));
            out.push((header::CACHE_CONTROL, cache.to_string()));
        }
        out.push((header::VARY, "Accept-Encoding".into()));
        let inm = header_str(headers, header::IF_NONE_MATCH);
        let ims = header_str(headers, header::IF_MODIFIED_SINCE);
        if crate::routes::not_modified(inm, ims, &rep.etag, rep.modified) {
            return Some(respond(StatusCode::NOT_MODIFIED, out, Bytes::new(), true));
        }
        // A sibling is its page in a coding: the page's type, with that Content-Encoding.
        let typed = crate::routes::layout::SIBLINGS
            .iter()
            .find_map(|(ext, _)| rel.strip_suffix(ext).filter(|_| rep.encoding.is_some()))
            .unwrap_or(rel);
        out.push((header::CONTENT_TYPE, crate::routes::content_type(typed).to_string()));
        if let Some(coding) = rep.encoding {
            out.push((header::CONTENT_ENCODING, coding.into()));
        }
        Some(respond(StatusCode::OK, out, rep.bytes, head))
    }

    /// A page whose template failed on it: `500` with the template's message (the one a
    /// build would fail with), which the command prints too.
    fn failed(&self, message: &str, head: bool, api: bool) -> Response {
        (self.report)(message);
        let mut out = vec![(header::CONTENT_TYPE, crate::routes::TEXT.content_type.to_string())];
        if api {
            out.push((header::ACCESS_CONTROL_ALLOW_ORIGIN, "*".into()));
        }
        respond(StatusCode::INTERNAL_SERVER_ERROR, out, format!("{message}\n"), head)
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
        respond(StatusCode::NO_CONTENT, out, Bytes::new(), true)
    }

    /// The error document of `code` with its status, as every host serves it.
    fn error(&self, now: &Snapshot, code: ErrorCode, head: bool) -> Response {
        let mut out = vec![
            (header::CONTENT_TYPE, crate::routes::PROBLEM_JSON.to_string()),
            (header::ACCESS_CONTROL_ALLOW_ORIGIN, "*".into()),
        ];
        if code == ErrorCode::MethodNotAllowed {
            out.push((header::ALLOW, crate::routes::ALLOW.into()));
        }
        let status = StatusCode::from_u16(code.status()).expect("a valid status");
        respond(status, out, now.problem(code), head)
    }

    /// Answers one request, from the listing current when it arrives.
    pub fn handle(
        &self,
        method: &Method,
        path: &str,
        query: &str,
        headers: &HeaderMap,
    ) -> Response {
        let now = self.snapshot();
        let routes = now.map();
        let head = method == Method::HEAD;
        let cache = routes.shape.cache_control.as_str();
        match routes.resolve(method.as_str(), path, query) {
            Outcome::Page(rel) => self
                .file(&now, &rel, headers, head, true, cache)
                .unwrap_or_else(|| self.error(&now, ErrorCode::PageNotFound, head)),
            Outcome::File(rel) => self
                .file(&now, &rel, headers, head, true, cache)
                .unwrap_or_else(|| self.error(&now, ErrorCode::NotFound, head)),
            Outcome::Error(code) => self.error(&now, code, head),
            Outcome::Options => self.options(headers),
            Outcome::Outside => self.outside(&now, method, path, headers, head),
        }
    }

    /// Paths outside `/api/`: the other files of the build (the hosts' publish-folder
    /// files), nothing hidden.
    fn outside(
        &self,
        now: &Snapshot,
        method: &Method,
        path: &str,
        headers: &HeaderMap,
        head: bool,
    ) -> Response {
        let routes: &Map = now.map();
        let plain = |status: StatusCode, text: &'static str| {
            respond(
                status,
                vec![(header::CONTENT_TYPE, crate::routes::TEXT.content_type.into())],
                text,
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
            && let Some(res) = self.file(now, &rel, headers, head, false, "")
        {
            return res;
        }
        // The address `folio serve` prints: a build has no index.html, and the explorer
        // is what there is to see.
        if rel == "index.html" {
            let explorer = routes.path(crate::routes::layout::EXPLORER);
            return respond(
                StatusCode::TEMPORARY_REDIRECT,
                vec![
                    (header::LOCATION, explorer.clone()),
                    (header::CONTENT_TYPE, crate::routes::TEXT.content_type.into()),
                ],
                format!("see {explorer}\n"),
                head,
            );
        }
        plain(StatusCode::NOT_FOUND, "not found\n")
    }
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
