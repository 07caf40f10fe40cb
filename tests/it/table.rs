//! The request table (`tests/requests.json`, the API's rules as requests and expectations) and
//! the one runner that checks any target against it over raw HTTP on loopback, comparing
//! status, error code, headers and the exact bytes served.

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;

use std::time::Duration;

use serde::Deserialize;

use crate::harness::Project;

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Row {
    pub method: String,
    /// The request target, sent as is.
    pub target: String,
    pub accept_encoding: Option<String>,
    /// `If-None-Match`; `$etag` stands for the entity tag a plain GET of the same target
    /// (and Accept-Encoding) answers with.
    pub if_none_match: Option<String>,
    /// `If-Modified-Since`; `$last_modified` stands for that GET's `Last-Modified`.
    pub if_modified_since: Option<String>,
    /// `Origin`, `Access-Control-Request-Method`, `Access-Control-Request-Headers`.
    pub origin: Option<String>,
    pub request_method: Option<String>,
    pub request_headers: Option<String>,
    pub status: u16,
    pub file: Option<String>,
    pub code: Option<String>,
    pub enc: Option<String>,
    #[serde(default)]
    pub any404: bool,
    /// A 204 that answers a CORS preflight (else a 204 answers a plain OPTIONS).
    #[serde(default)]
    pub preflight: bool,
    /// The entity tag must differ from the identity representation's (a sibling's own).
    #[serde(default)]
    pub etag_differs_from_identity: bool,
    /// Per-target deviations: the expectation that replaces this row's on that target.
    #[serde(default)]
    pub dev: BTreeMap<String, Deviation>,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Deviation {
    pub status: u16,
    pub file: Option<String>,
    pub code: Option<String>,
    /// The Content-Type the target serves instead of the file's.
    pub content_type: Option<String>,
    #[serde(default)]
    pub any404: bool,
    /// Headers this target gets wrong on this row only (the reason says how).
    #[serde(default)]
    pub unchecked: Vec<String>,
    pub why: String,
}

pub fn rows() -> Vec<Row> {
    let text = std::fs::read_to_string(crate::harness::repo().join("tests/requests.json")).unwrap();
    serde_json::from_str(&text).expect("tests/requests.json parses")
}

/// A server under test and what it is known not to do.
pub struct Target<'a> {
    pub name: &'a str,
    pub port: u16,
    pub mount: &'a str,
    pub output: &'a Path,
    /// Serves the `.br`/`.gz` siblings that `output` holds ([`sibling_served`]).
    pub precompressed: bool,
    /// Headers this target cannot set as the API's rules say (checked nowhere for it).
    pub unchecked_headers: &'a [&'a str],
    pub cache_control: &'a str,
}

pub struct Response {
    pub status: u16,
    pub headers: BTreeMap<String, String>,
    pub body: Vec<u8>,
}

impl Response {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(&name.to_ascii_lowercase()).map(String::as_str)
    }
}

/// One raw HTTP/1.1 request: the request bytes are written here by hand, so that the
/// target is sent exactly as given (never normalized); the response is read with httparse.
pub fn request(port: u16, method: &str, target: &str, headers: &[(&str, &str)]) -> Response {
    request_with_body(port, method, target, headers, b"")
}

/// [`request`] with a body (sent with its Content-Length).
pub fn request_with_body(
    port: u16,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    let mut stream =
        TcpStream::connect(("127.0.0.1", port)).unwrap_or_else(|e| panic!("connect :{port}: {e}"));
    stream.set_read_timeout(Some(Duration::from_secs(20))).unwrap();
    let mut req =
        format!("{method} {target} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nConnection: close\r\n");
    for (k, v) in headers {
        req.push_str(&format!("{k}: {v}\r\n"));
    }
    if method != "GET" && method != "HEAD" {
        req.push_str(&format!("Content-Length: {}\r\n", body.len()));
    }
    req.push_str("\r\n");
    let mut req = req.into_bytes();
    req.extend_from_slice(body);
    stream.write_all(&req).unwrap();
    // Read until the response is complete by its own framing, or the server closes: some
    // (workerd) keep the connection open for seconds despite `Connection: close`.
    let (mut raw, mut buf) = (Vec::new(), [0; 65536]);
    loop {
        if let Some(res) = parse(method, &raw, false) {
            return res;
        }
        match stream.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => raw.extend_from_slice(&buf[..n]),
        }
    }
    parse(method, &raw, true)
        .unwrap_or_else(|| panic!("no whole response: {:?}", String::from_utf8_lossy(&raw)))
}

/// The response in `raw`, when it is whole by its framing (Content-Length, chunks, no body
/// for HEAD, 204 and 304), or at `eof` by the end of the stream.
fn parse(method: &str, raw: &[u8], eof: bool) -> Option<Response> {
    let mut slots = [httparse::EMPTY_HEADER; 64];
    let mut head = httparse::Response::new(&mut slots);
    let httparse::Status::Complete(head_len) = head.parse(raw).ok()? else { return None };
    let status = head.code?;
    let mut headers: BTreeMap<String, String> = BTreeMap::new();
    for h in head.headers.iter() {
        let v = String::from_utf8_lossy(h.value).trim().to_string();
        headers
            .entry(h.name.to_ascii_lowercase())
            .and_modify(|old| *old = format!("{old}, {v}"))
            .or_insert(v);
    }
    let rest = &raw[head_len..];
    let body = if method == "HEAD" || status == 204 || status == 304 {
        Vec::new()
    } else if headers.get("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        dechunk(rest)?
    } else if let Some(len) = headers.get("content-length").and_then(|v| v.parse().ok()) {
        rest.get(..len)?.to_vec()
    } else if eof {
        rest.to_vec()
    } else {
        return None;
    };
    Some(Response { status, headers, body })
}

/// The body of a chunked response, or `None` while chunks are missing.
fn dechunk(mut raw: &[u8]) -> Option<Vec<u8>> {
    let mut out = Vec::new();
    loop {
        let httparse::Status::Complete((at, size)) = httparse::parse_chunk_size(raw).ok()? else {
            return None;
        };
        let size = usize::try_from(size).ok()?;
        if size == 0 {
            return Some(out);
        }
        out.extend_from_slice(raw.get(at..at + size)?);
        raw = raw.get(at + size + 2..)?;
    }
}

/// How a target answers Accept-Encoding.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Compression {
    /// From files: the `.br`/`.gz` sibling when `Target.precompressed`, else identity.
    Files,
    /// The host's edge compresses on the fly (Cloudflare): a Content-Encoding must be one
    /// the request accepted, and the decoded body is compared with the identity file.
    Edge,
}

/// May an edge compress with `coding` for this `Accept-Encoding` (RFC 9110 §12.5.3)? When
/// the request accepts it by name, or by `*` without naming it.
fn edge_may_use(ae: Option<&str>, coding: &str) -> bool {
    use folio::routes::accepts_coding;
    let ae = ae.unwrap_or("");
    let named =
        ae.split(',').any(|e| e.split(';').next().unwrap().trim().eq_ignore_ascii_case(coding));
    accepts_coding(ae, coding) || (!named && accepts_coding(ae, "*"))
}

/// Decodes an edge-compressed body; the coding must be one `ae` accepted.
fn decode(coding: &str, ae: Option<&str>, body: &[u8]) -> Result<Vec<u8>, String> {
    if !edge_may_use(ae, coding) {
        return Err(format!("Content-Encoding {coding} that the request did not accept"));
    }
    let mut out = Vec::new();
    if body.is_empty() {
        return Ok(out); // HEAD; an empty GET body fails the comparison with the file
    }
    let read = match coding {
        "gzip" => flate2::read::GzDecoder::new(body).read_to_end(&mut out),
        "br" => brotli::Decompressor::new(body, 4096).read_to_end(&mut out),
        _ => return Err(format!("Content-Encoding {coding} is not gzip or br")),
    };
    read.map(|_| out).map_err(|e| format!("{coding} body does not decode: {e}"))
}

/// The validators a plain GET of `target` (with `accept_encoding`) answers with.
fn validators(target: &Target, row: &Row) -> (Option<String>, Option<String>) {
    let mut headers = Vec::new();
    if let Some(ae) = &row.accept_encoding {
        headers.push(("Accept-Encoding", ae.as_str()));
    }
    let res = request(target.port, "GET", &format!("{}{}", target.mount, row.target), &headers);
    (res.header("etag").map(str::to_owned), res.header("last-modified").map(str::to_owned))
}

/// What one row expects of one target: the row's own expectation, or its deviation there.
struct Want {
    status: u16,
    file: Option<String>,
    code: Option<String>,
    any404: bool,
    content_type: String,
    unchecked: Vec<String>,
}

impl Want {
    fn of(row: &Row, target: &str) -> Want {
        let json = "application/json; charset=utf-8".to_string();
        match row.dev.get(target) {
            Some(d) => Want {
                status: d.status,
                file: d.file.clone(),
                code: d.code.clone(),
                any404: d.any404,
                content_type: d.content_type.clone().unwrap_or(json),
                unchecked: d.unchecked.clone(),
            },
            None => Want {
                status: row.status,
                file: row.file.clone(),
                code: row.code.clone(),
                any404: row.any404,
                content_type: json,
                unchecked: Vec::new(),
            },
        }
    }
}

/// Checks one row; returns what is wrong (empty when the row passes) and the coding an
/// edge applied, if any.
pub fn check(
    target: &Target,
    row: &Row,
    compression: Compression,
) -> (Vec<String>, Option<String>) {
    let mut want = Want::of(row, target.name);
    // A sibling asked for by its path, on a build that has none (no precompress): no file.
    if let Some(file) = want.file.as_deref()
        && named_sibling(file).is_some()
        && !plain_file(target.output, file)
    {
        (want.status, want.file, want.code) = (404, None, Some("not_found".into()));
    }
    let (etag, last_modified) = if row.if_none_match.is_some() || row.if_modified_since.is_some() {
        validators(target, row)
    } else {
        (None, None)
    };
    // Apache makes the tag of a file changed this very second weak; `W/$etag` means the
    // weak form of whatever the tag is.
    let fill = |v: &str| {
        let tag = etag.as_deref().unwrap_or("\"no-etag\"");
        v.replace("W/$etag", &format!("W/{}", tag.trim_start_matches("W/")))
            .replace("$etag", tag)
            .replace("$last_modified", last_modified.as_deref().unwrap_or("-"))
    };
    let (inm, ims) =
        (row.if_none_match.as_deref().map(fill), row.if_modified_since.as_deref().map(fill));
    let mut headers = Vec::new();
    for (name, value) in [
        ("Accept-Encoding", row.accept_encoding.as_deref()),
        ("If-None-Match", inm.as_deref()),
        ("If-Modified-Since", ims.as_deref()),
        ("Origin", row.origin.as_deref()),
        ("Access-Control-Request-Method", row.request_method.as_deref()),
        ("Access-Control-Request-Headers", row.request_headers.as_deref()),
    ] {
        if let Some(v) = value {
            headers.push((name, v));
        }
    }
    let mut res =
        request(target.port, &row.method, &format!("{}{}", target.mount, row.target), &headers);
    let head = row.method == "HEAD";
    let checked =
        |h: &str| !target.unchecked_headers.contains(&h) && !want.unchecked.iter().any(|u| u == h);
    let mut errs = Vec::new();
    let edge = compression == Compression::Edge;
    let edge_coding = res.header("content-encoding").filter(|_| edge).map(str::to_owned);
    if let Some(coding) = &edge_coding {
        match decode(coding, row.accept_encoding.as_deref(), &res.body) {
            Ok(body) => res.body = body,
            Err(e) => errs.push(e),
        }
    }
    let status_ok =
        res.status == want.status || (want.any404 && (res.status == 400 || res.status == 404));
    if !status_ok {
        errs.push(format!("status {} (want {})", res.status, want.status));
    }
    let expect_header = |name: &str, ok: bool, errs: &mut Vec<String>| {
        if checked(name) && !ok {
            errs.push(format!("{name}: {:?}", res.header(name)));
        }
    };
    let cors = |errs: &mut Vec<String>| {
        let ok = res.header("access-control-allow-origin") == Some("*");
        expect_header("access-control-allow-origin", ok, errs)
    };
    let varies =
        res.header("vary").is_some_and(|v| v.to_ascii_lowercase().contains("accept-encoding"));
    let allows_all = |v: Option<&str>| {
        v.is_some_and(|v| ["GET", "HEAD", "OPTIONS"].iter().all(|m| v.contains(m)))
    };
    if want.any404 {
        if String::from_utf8_lossy(&res.body).contains("root:") {
            errs.push("served a file outside output/".into());
        }
    } else if want.status == 304 {
        // Not modified: no body, the same validators and the 200's caching headers.
        if !res.body.is_empty() {
            errs.push(format!("a 304 with a body of {} bytes", res.body.len()));
        }
        expect_header("etag", res.header("etag") == etag.as_deref(), &mut errs);
        expect_header(
            "cache-control",
            res.header("cache-control") == Some(target.cache_control),
            &mut errs,
        );
        expect_header("vary", varies, &mut errs);
        cors(&mut errs);
    } else if want.status == 204 {
        if !res.body.is_empty() {
            errs.push(format!("a 204 with a body of {} bytes", res.body.len()));
        }
        cors(&mut errs);
        if row.preflight {
            expect_header(
                "access-control-allow-methods",
                allows_all(res.header("access-control-allow-methods")),
                &mut errs,
            );
            let asked = row.request_headers.as_deref().unwrap_or("*");
            let allowed = res.header("access-control-allow-headers");
            let ok = allowed == Some("*") || allowed.is_some_and(|a| a.eq_ignore_ascii_case(asked));
            expect_header("access-control-allow-headers", ok, &mut errs);
            expect_header(
                "access-control-max-age",
                res.header("access-control-max-age") == Some("86400"),
                &mut errs,
            );
        } else {
            expect_header("allow", allows_all(res.header("allow")), &mut errs);
        }
    } else if let Some(file) = &want.file {
        let enc = sibling_served(target, file, row.accept_encoding.as_deref());
        // A sibling asked for by its own path is that file, in its coding.
        let ext = match enc {
            Some(_) if named_sibling(file).is_some() => "",
            Some("br") => ".br",
            Some("gzip") => ".gz",
            _ => "",
        };
        let bytes = if head {
            Vec::new()
        } else {
            std::fs::read(target.output.join(format!("{file}{ext}"))).unwrap()
        };
        if res.body != bytes {
            errs.push(format!(
                "body: {} bytes, want {} of {file}{ext}: {:?}",
                res.body.len(),
                bytes.len(),
                String::from_utf8_lossy(&res.body[..res.body.len().min(120)])
            ));
        }
        expect_header(
            "content-type",
            res.header("content-type") == Some(&want.content_type),
            &mut errs,
        );
        cors(&mut errs);
        expect_header("vary", varies, &mut errs);
        expect_header(
            "cache-control",
            res.header("cache-control") == Some(target.cache_control),
            &mut errs,
        );
        expect_header("etag", res.header("etag").is_some(), &mut errs);
        expect_header("last-modified", res.header("last-modified").is_some(), &mut errs);
        if !edge {
            expect_header("content-encoding", res.header("content-encoding") == enc, &mut errs);
        }
        if row.etag_differs_from_identity && enc.is_some() {
            let plain = Row { accept_encoding: None, ..row.clone() };
            let (identity, _) = validators(target, &plain);
            expect_header(
                "etag",
                res.header("etag").is_some() && res.header("etag") != identity.as_deref(),
                &mut errs,
            );
        }
    } else if let Some(code) = &want.code {
        let bytes = if head {
            Vec::new()
        } else {
            std::fs::read(target.output.join(format!("api/errors/{code}.json"))).unwrap()
        };
        if res.body != bytes {
            errs.push(format!(
                "body is not api/errors/{code}.json: {:?}",
                String::from_utf8_lossy(&res.body[..res.body.len().min(160)])
            ));
        }
        expect_header(
            "content-type",
            res.header("content-type").is_some_and(|v| v.starts_with("application/problem+json")),
            &mut errs,
        );
        cors(&mut errs);
        if want.status == 405 {
            expect_header("allow", allows_all(res.header("allow")), &mut errs);
        }
    }
    (errs, edge_coding)
}

/// The headers a row sends, for failure messages.
fn described(row: &Row) -> String {
    let parts = [
        ("ae", &row.accept_encoding),
        ("inm", &row.if_none_match),
        ("ims", &row.if_modified_since),
        ("origin", &row.origin),
        ("acrm", &row.request_method),
        ("acrh", &row.request_headers),
    ];
    let set: Vec<String> =
        parts.iter().filter_map(|(k, v)| v.as_ref().map(|v| format!("{k} {v:?}"))).collect();
    set.join(", ")
}

/// Runs every row against `target`, prints the summary line, fails on any mismatch.
pub fn run(target: &Target) {
    run_with(target, Compression::Files);
}

/// [`run`] under `compression`; the summary also counts the edge-compressed responses.
pub fn run_with(target: &Target, compression: Compression) {
    let rows = rows();
    let mut decoded = 0;
    assert!(rows.len() >= 80, "the table has {} rows", rows.len());
    let mut failures = Vec::new();
    let mut deviations = 0;
    for row in &rows {
        if let Some(d) = row.dev.get(target.name) {
            deviations += 1;
            eprintln!("  deviation on {}: {} {}: {}", target.name, row.method, row.target, d.why);
        }
        let (errs, coding) = check(target, row, compression);
        decoded += usize::from(coding.is_some());
        if !errs.is_empty() {
            let sent = described(row);
            failures.push(format!("{} {} ({sent}): {}", row.method, row.target, errs.join("; ")));
        }
    }
    let passed = rows.len() - failures.len();
    let edge = match compression {
        Compression::Edge => format!("; {decoded} edge-compressed responses decoded"),
        Compression::Files => String::new(),
    };
    eprintln!(
        "table on {}: {passed} passed, {} failed ({deviations} pinned deviations{edge})",
        target.name,
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} rows failed on {}:\n{}",
        failures.len(),
        target.name,
        failures.join("\n")
    );
}

/// The page bodies every target runs the table with, each a line for the sample's
/// `[listing]`: the standard envelope, Laravel's simple paginator and the standard one
/// without totals. The rows expect files of the build, so one table serves all three:
/// what a page says (its count or none) must not change how a host routes it.
pub const LISTINGS: [(&str, &str); 3] = [
    ("standard", ""),
    ("laravel-simple", "envelope = \"laravel-simple\""),
    ("totals = false", "totals = false"),
];

/// A fixture: the sample project built, plus precompressed siblings for three pages
/// (fake contents: servers pass them through, nobody decodes them).
pub fn fixture(config_tail: &str) -> Project {
    fixture_with("", config_tail)
}

/// [`fixture`] with `listing` added to the sample's `[listing]` table (one of
/// [`LISTINGS`]).
pub fn fixture_with(listing: &str, config_tail: &str) -> Project {
    let p = built_with(listing, config_tail);
    add_siblings(&p.path("output"));
    add_outside_links(&p);
    p
}

/// The sample project with `listing` added to its `[listing]` table and `config_tail` to
/// its config, built: no sibling or symlink planted. It is built twice, first without
/// `data/more/` (35 of the 67 records), and `hosting/` is that first build's: every server
/// and script runs the configuration of a smaller build over the output of a larger one,
/// as a server configured once answers a catalog that grows every day.
pub fn built_with(listing: &str, config_tail: &str) -> Project {
    let p = Project::sample();
    let cfg = p.read("folio.toml");
    assert!(cfg.contains("\n[listing]\n"), "the sample has a [listing] table");
    let cfg = cfg.replacen("\n[listing]\n", &format!("\n[listing]\n{listing}\n"), 1);
    // The sample config ends with its [hosting] table; a tail that brings its own replaces it.
    let cfg = match (cfg.find("\n[hosting]"), config_tail.contains("[hosting]")) {
        (Some(i), true) => format!("{}\n{config_tail}", &cfg[..i]),
        _ => cfg + config_tail,
    };
    p.write("folio.toml", cfg);
    let (more, aside) = (p.path("data/more"), p.path("more-aside"));
    std::fs::rename(&more, &aside).unwrap();
    p.folio(&["build"]).success();
    let old = host_files(&p);
    std::fs::rename(&aside, &more).unwrap();
    p.folio(&["build"]).success();
    assert_eq!(
        old.keys().collect::<Vec<_>>(),
        host_files(&p).keys().collect::<Vec<_>>(),
        "the same host files"
    );
    for (name, bytes) in &old {
        std::fs::write(p.path("hosting").join(name), bytes).unwrap();
    }
    p
}

/// The files of `hosting/` but folio's manifest of them.
pub fn host_files(p: &Project) -> BTreeMap<String, Vec<u8>> {
    let mut files = p.tree("hosting");
    files.remove(".folio-manifest.json");
    files
}

/// A secret outside `output/`, and two symlinks inside `output/api/` that lead to it: a
/// folder (`api/up`) and a file (`api/leak.txt`). No target may serve it.
pub fn add_outside_links(p: &Project) {
    let outside = p.path("outside");
    std::fs::create_dir_all(&outside).unwrap();
    std::fs::write(outside.join("secret.txt"), "root:x:0:0: a secret outside output/\n").unwrap();
    std::os::unix::fs::symlink(&outside, p.path("output/api/up")).unwrap();
    std::os::unix::fs::symlink(outside.join("secret.txt"), p.path("output/api/leak.txt")).unwrap();
}

pub fn add_siblings(output: &Path) {
    for (file, ext, tag) in [
        ("api/en/attractions/10/1.json", "br", "BR:"),
        ("api/en/attractions/10/1.json", "gz", "GZ:"),
        ("api/fr/attractions/20/2.json", "gz", "GZ:"),
        ("api/attractions/10/1.json", "br", "BR:"),
    ] {
        let mut body = tag.as_bytes().to_vec();
        body.extend(std::fs::read(output.join(file)).unwrap());
        std::fs::write(output.join(format!("{file}.{ext}")), body).unwrap();
    }
}

/// The coding a target that serves precompressed siblings answers `file` with for this
/// `Accept-Encoding`: the first of `routes::layout::SIBLINGS` (brotli first) that the
/// header accepts and that `output` holds beside the file, else none (the identity file).
/// On the fixture's planted siblings this is each row's `enc` (checked below); on a build
/// that precompresses every page, it is what that build serves.
/// A sibling asked for by its own path (`10/1.json.br`) is served as that file, with its
/// coding as the `Content-Encoding`, whatever `Accept-Encoding` says.
pub fn sibling_served(target: &Target, file: &str, ae: Option<&str>) -> Option<&'static str> {
    if let Some(coding) = named_sibling(file) {
        return target.precompressed.then_some(coding);
    }
    let ae = ae.filter(|_| target.precompressed)?;
    folio::routes::layout::SIBLINGS.iter().find_map(|&(ext, coding)| {
        let held = plain_file(target.output, &format!("{file}{ext}"));
        (folio::routes::accepts_coding(ae, coding) && held).then_some(coding)
    })
}

/// The coding of `file` when it is a page's sibling by name (`….json.br`, `….json.gz`).
fn named_sibling(file: &str) -> Option<&'static str> {
    let plain = |stem: &str| stem.ends_with(".json");
    folio::routes::layout::SIBLINGS
        .iter()
        .find_map(|&(ext, coding)| file.strip_suffix(ext).filter(|s| plain(s)).map(|_| coding))
}

/// Is `rel` a plain file below `root`, reached through no symlink?
fn plain_file(root: &Path, rel: &str) -> bool {
    let mut path = root.to_path_buf();
    rel.split('/').all(|part| {
        path.push(part);
        std::fs::symlink_metadata(&path).is_ok_and(|m| !m.file_type().is_symlink())
    }) && path.is_file()
}

#[test]
fn the_table_is_the_routing_table() {
    // Every row agrees with `Map::resolve`, the semantics all targets render.
    let p = fixture("");
    let project = {
        let cwd = p.dir.path();
        let text = p.read("folio.toml");
        folio::config::Project::from_toml(
            &text,
            Path::new("folio.toml"),
            cwd,
            cwd,
            &Default::default(),
        )
        .unwrap()
    };
    let routes = folio::routes::Map::new(&project.shape, crate::harness::SAMPLE_RECORDS);
    let output = p.path("output");
    let planted = Target {
        name: "the fixture",
        port: 0,
        mount: "",
        output: &output,
        precompressed: true,
        unchecked_headers: &[],
        cache_control: "",
    };
    for row in rows() {
        if let Some(file) = &row.file {
            // What a row says of Content-Encoding is what the fixture's siblings give.
            let served = sibling_served(&planted, file, row.accept_encoding.as_deref());
            assert_eq!(served, row.enc.as_deref(), "{row:?}");
        }
        let (path, query) = row.target.split_once('?').unwrap_or((&row.target, ""));
        let outcome = routes.resolve(&row.method, path, query);
        use folio::routes::Outcome;
        match (&outcome, &row.file, &row.code) {
            (Outcome::Page(f) | Outcome::File(f), Some(want), _) => assert_eq!(f, want, "{row:?}"),
            (Outcome::Error(code), None, Some(want)) => assert_eq!(code.code(), want, "{row:?}"),
            (Outcome::Error(code), None, None) if row.any404 => {
                assert_eq!(code.code(), "not_found")
            }
            (Outcome::File(f), None, Some(want)) if want == "not_found" => {
                assert!(!plain_file(&p.path("output"), f), "{row:?}")
            }
            // Conditional requests are answered from a page or file of the table.
            (Outcome::Page(_) | Outcome::File(_), None, None) if row.status == 304 => {}
            (Outcome::Options, None, None) => assert_eq!(row.status, 204, "{row:?}"),
            other => panic!("{row:?} resolves to {other:?}"),
        }
    }
}
