//! The API's rules as data (docs/api.md): the map of a listing (`map.rs`) that the writer
//! names files by, `folio serve` runs and every host emitter in `hosts/` renders. `routes`
//! owns the API's vocabulary — the error codes (`codes.rs`), how files and URLs are spelled
//! (`layout.rs`), the rules as regular expressions for hosts (`patterns.rs`), the HTTP
//! header rules — and imports none of the modules that render it
//! (`render`, `hosts`, `serve`, `openapi`). [`Map::resolve`] is the reference semantics
//! the request table in the tests checks every target against. Pure, no IO.

pub mod codes;
pub mod layout;
pub mod map;
pub mod patterns;

pub use codes::ErrorCode;
pub use map::Map;

/// The largest page number a request may ask for (nine digits).
pub const MAX_PAGE: u64 = 999_999_999;

/// The methods the API answers: the `Allow` of a 405 and of a plain `OPTIONS`, and the
/// `Access-Control-Allow-Methods` of a CORS preflight.
pub const ALLOW: &str = "GET, HEAD, OPTIONS";
/// The `Content-Type` of a problem document (RFC 9457), whichever way it is answered.
pub const PROBLEM_JSON: &str = "application/problem+json";
/// How long a browser may cache a preflight's answer (`Access-Control-Max-Age`), in seconds.
pub const PREFLIGHT_MAX_AGE: u32 = 86_400;

/// One configured page size and how many pages the listing has at that size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    pub size: u64,
    pub pages: usize,
}

/// What a request resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A page of the listing through its endpoint; the file is relative to `output/`.
    Page(String),
    /// A file under `api/` requested by its path (path form, error documents, index...);
    /// the server answers `not_found` when it does not exist.
    File(String),
    /// An error document (`api/errors/{code}.json`) with its status.
    Error(ErrorCode),
    /// `OPTIONS` under the API: `204`, a CORS preflight's headers when the request is one
    /// (`Origin` and `Access-Control-Request-Method`), else `Allow`.
    Options,
    /// Not under `{mount}/api/`: outside what the API governs.
    Outside,
}

/// The value of the first occurrence of `key` in a raw query string: split on `&` only,
/// compared without percent-decoding; an empty value or a bare key counts as absent.
pub fn query_param<'q>(query: &'q str, key: &str) -> Option<&'q str> {
    for pair in query.split('&') {
        let (k, v) = match pair.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (pair, None),
        };
        if k == key {
            return v.filter(|v| !v.is_empty());
        }
    }
    None
}

/// True for a valid page number: 1 to 999999999, no sign, no leading zero.
pub fn valid_page(value: &str) -> bool {
    let b = value.as_bytes();
    (1..=9).contains(&b.len()) && b[0] != b'0' && b.iter().all(u8::is_ascii_digit)
}

/// True for a path segment that may name a file: no dot first (so no `.`, `..` or hidden
/// files), no `%`, no backslash, nothing a server might decode into something else.
pub fn clean_segment(seg: &str) -> bool {
    let b = seg.as_bytes();
    !b.is_empty()
        && b[0] != b'.'
        && b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'.')
}

/// The media type of a kind of file, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct FileType {
    /// The extension, without its dot.
    #[serde(skip)]
    pub ext: &'static str,
    /// The media type alone: `text/html`.
    pub media: &'static str,
    /// The `Content-Type` of such a file: the media type, with [`UTF8`] for text.
    pub content_type: &'static str,
}

/// The parameter a text type's `Content-Type` carries: its media type, then this.
pub const UTF8: &str = "; charset=utf-8";

macro_rules! file_type {
    ($ext:literal, $media:literal, text) => {
        FileType { ext: $ext, media: $media, content_type: concat!($media, "; charset=utf-8") }
    };
    ($ext:literal, $media:literal) => {
        FileType { ext: $ext, media: $media, content_type: $media }
    };
}

/// The media type of each kind of file folio writes or serves by its path.
pub const FILE_TYPES: [FileType; 8] = [
    file_type!("json", "application/json", text),
    file_type!("html", "text/html", text),
    file_type!("js", "text/javascript", text),
    file_type!("css", "text/css", text),
    file_type!("txt", "text/plain", text),
    file_type!("md", "text/plain", text),
    file_type!("png", "image/png"),
    file_type!("svg", "image/svg+xml"),
];

/// Pages, the index, the OpenAPI document and every other `.json` file.
pub const JSON: FileType = FILE_TYPES[0];
/// A plain-text answer (`folio serve`'s own messages).
pub const TEXT: FileType = FILE_TYPES[4];
/// The `Content-Type` of a file of no type listed in [`FILE_TYPES`].
pub const OCTET_STREAM: &str = "application/octet-stream";

/// The Content-Type of a file of `output/` served by its path, by its extension
/// ([`FILE_TYPES`]): pages and every `.json` are `application/json; charset=utf-8`.
pub fn content_type(rel: &str) -> &'static str {
    let ext = rel.rsplit_once('.').map(|(_, ext)| ext);
    FILE_TYPES.iter().find(|t| Some(t.ext) == ext).map_or(OCTET_STREAM, |t| t.content_type)
}

/// The API's fixed names for the host templates, which `hosts` gives every template as
/// `names` (beside the values each host escapes for its own syntax): the folders below
/// the mount point of the API's files (`api_dir`, `api/`) and of its problem documents
/// (`errors_dir`, `api/errors/`), and the media types — `problem_type`, `types` (by
/// extension: `media` alone and the whole `content_type`), `utf8` (the charset parameter,
/// with its `; `) and `default_type`. [`Map::table`] stays what the host scripts carry
/// at run time; these are spelled into a file when it is written.
pub fn names() -> serde_json::Value {
    let types: serde_json::Map<String, serde_json::Value> = FILE_TYPES
        .iter()
        .map(|t| (t.ext.to_string(), serde_json::to_value(t).expect("plain strings")))
        .collect();
    serde_json::json!({
        "api_dir": layout::API,
        "errors_dir": layout::ERRORS,
        "problem_type": PROBLEM_JSON,
        "types": types,
        "utf8": UTF8,
        "default_type": OCTET_STREAM,
    })
}

/// Does an `Accept-Encoding` value accept `coding`, so that its precompressed sibling may
/// be sent (RFC 9110 §12.5.3)? The value is a comma-separated list of `coding [; q=value]`;
/// codings and the `q` compare case-insensitively, with optional whitespace around them.
/// A coding is accepted when it is listed with no weight or a non-zero one; `q=0` (also
/// `0.`, `0.0`, up to three zeros) refuses it, and so does an element that is not well
/// formed (an invalid weight, another parameter). `*` and `identity` never select a
/// sibling: identity is always acceptable, and it is what a server may always answer.
pub fn accepts_coding(header: &str, coding: &str) -> bool {
    header.split(',').any(|element| {
        let (name, weight) = match element.split_once(';') {
            Some((name, weight)) => (name, Some(weight)),
            None => (element, None),
        };
        name.trim_matches([' ', '\t']).eq_ignore_ascii_case(coding)
            && weight.is_none_or(|w| {
                let w = w.trim_matches([' ', '\t']);
                let q = w.strip_prefix("q=").or_else(|| w.strip_prefix("Q="));
                q.is_some_and(|q| matches!(qvalue(q), Some(thousandths) if thousandths > 0))
            })
    })
}

/// Does `If-None-Match` match the current entity tag `etag` (RFC 9110 §13.1.2)? The value
/// is `*` (any current representation) or a list of entity tags, compared weakly: `W/`
/// prefixes aside, the opaque tags are equal.
pub fn if_none_match(header: &str, etag: &str) -> bool {
    let opaque = |tag: &str| tag.trim().trim_start_matches("W/").to_string();
    let ours = opaque(etag);
    header.trim() == "*"
        || header.split(',').any(|tag| !tag.trim().is_empty() && opaque(tag) == ours)
}

/// Is a conditional GET or HEAD answered `304 Not Modified` (RFC 9110 §13.2.2)? With
/// `If-None-Match`, when it matches `etag`; without it, when `If-Modified-Since` is a date
/// at or after `last_modified` (an unparsable date is ignored).
pub fn not_modified(
    if_none_match_header: Option<&str>,
    if_modified_since: Option<&str>,
    etag: &str,
    last_modified: std::time::SystemTime,
) -> bool {
    match (if_none_match_header, if_modified_since) {
        (Some(inm), _) => if_none_match(inm, etag),
        (None, Some(ims)) => httpdate::parse_http_date(ims).is_ok_and(|since| {
            // HTTP dates have whole seconds: compare at that precision.
            let secs = |t: std::time::SystemTime| {
                t.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
            };
            secs(last_modified) <= secs(since)
        }),
        (None, None) => false,
    }
}

/// A `qvalue` in thousandths: `0[.ddd]` or `1[.000]` (at most three decimals).
fn qvalue(q: &str) -> Option<u16> {
    let (int, frac) = q.split_once('.').unwrap_or((q, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let frac: u16 = format!("{frac:0<3}").parse().ok()?;
    match int {
        "0" => Some(frac),
        "1" if frac == 0 => Some(1000),
        _ => None,
    }
}

/// A small map for the host emitters' unit tests: resource `sights`, languages en and
/// pt-br, sizes 10 (14 pages) and 25 (6 pages, the default), mounted at `mount`.
#[cfg(test)]
pub(crate) fn sample(mount: &str) -> Map {
    let shape = crate::config::Shape {
        base: crate::config::BaseUrl { origin: String::new(), path: mount.into() },
        resource: "sights".into(),
        languages: vec!["en".into(), "pt-br".into()],
        default_language: 0,
        page_sizes: vec![10, 25],
        default_page_size: 25,
        envelope: crate::config::Envelope::Standard,
        totals: true,
        cache_control: "public, max-age=60".into(),
    };
    Map { shape, sizes: vec![Size { size: 10, pages: 14 }, Size { size: 25, pages: 6 }] }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn routes() -> Map {
        let shape = crate::config::Shape {
            base: crate::config::BaseUrl::default(),
            resource: "attractions".into(),
            languages: vec!["en".into(), "fr".into()],
            default_language: 0,
            page_sizes: vec![10, 20],
            default_page_size: 10,
            envelope: crate::config::Envelope::Standard,
            totals: true,
            cache_control: "public, max-age=300".into(),
        };
        Map { shape, sizes: vec![Size { size: 10, pages: 7 }, Size { size: 20, pages: 4 }] }
    }

    #[test]
    fn every_url_of_a_page_resolves_to_its_file() {
        // What a purge list names for a changed file is what the table answers with it.
        use crate::config::Envelope;
        for envelope in [Envelope::Standard, Envelope::Laravel, Envelope::LaravelSimple] {
            let mut l = routes();
            l.shape.envelope = envelope;
            let variants = [(0, true), (1, true), (0, false)];
            for (lang, prefixed) in variants {
                for size in &l.sizes {
                    for page in 1..=size.pages as u64 {
                        let variant = layout::Variant { lang, prefixed };
                        let p = layout::PageFile { variant, size: size.size, page };
                        let file = l.page_file(&p);
                        assert_eq!(l.parse(&file), Some(p));
                        for url in l.urls(&p) {
                            let (path, query) = url.split_once('?').unwrap_or((&url, ""));
                            let got = match l.resolve("GET", &format!("/{path}"), query) {
                                Outcome::Page(f) | Outcome::File(f) => f,
                                other => panic!("{url}: {other:?}"),
                            };
                            assert_eq!(got, file, "{url}");
                        }
                    }
                }
            }
        }
    }

    fn page(s: &str) -> Outcome {
        Outcome::Page(s.into())
    }

    fn err(code: ErrorCode) -> Outcome {
        Outcome::Error(code)
    }

    #[test]
    fn media_types_by_extension_and_the_names_templates_read() {
        assert_eq!(content_type("api/en/x/10/1.json"), "application/json; charset=utf-8");
        assert_eq!(content_type("api/explorer.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("notes.md"), "text/plain; charset=utf-8");
        assert_eq!(content_type("logo.svg"), "image/svg+xml");
        assert_eq!(content_type("a.json.br"), OCTET_STREAM);
        assert_eq!(content_type("README"), OCTET_STREAM);
        for t in FILE_TYPES {
            let text = t.media.starts_with("text/") || t == JSON;
            let whole = if text { format!("{}{UTF8}", t.media) } else { t.media.to_string() };
            assert_eq!(t.content_type, whole, "{}", t.ext);
        }
        let n = names();
        assert_eq!(n["api_dir"], "api/");
        assert_eq!(n["errors_dir"], "api/errors/");
        assert_eq!(n["problem_type"], PROBLEM_JSON);
        assert_eq!(n["types"]["json"]["content_type"], JSON.content_type);
        assert_eq!(n["types"]["txt"]["media"], "text/plain");
        // Templates spell the names into quoted strings of their languages (JS, Lua,
        // Apache, Caddy, nginx) as they are: nothing in them may need escaping there.
        let mut values = vec![n["api_dir"].clone(), n["errors_dir"].clone()];
        values.extend([n["problem_type"].clone(), n["utf8"].clone(), n["default_type"].clone()]);
        for t in n["types"].as_object().unwrap().values() {
            values.extend([t["media"].clone(), t["content_type"].clone()]);
        }
        for v in values {
            let v = v.as_str().unwrap();
            assert!(v.bytes().all(|b| b.is_ascii_graphic() || b == b' '), "{v}");
            assert!(!v.contains(['"', '\'', '`', '\\', '$', '%', '{', '}']), "{v}");
        }
    }

    #[test]
    fn query_values_are_raw_first_wins_and_empty_is_absent() {
        assert_eq!(query_param("a=1&page=2&page=3", "page"), Some("2"));
        assert_eq!(query_param("page=&page=2", "page"), None);
        assert_eq!(query_param("page&page=2", "page"), None);
        assert_eq!(query_param("page=%32", "page"), Some("%32"));
        assert_eq!(query_param("page=2=3", "page"), Some("2=3"));
        assert_eq!(query_param("PAGE=2", "page"), None);
        assert_eq!(query_param("", "page"), None);
    }

    #[test]
    fn accept_encoding_is_read_by_rfc_9110() {
        let yes = [
            "br",
            "BR",
            "gzip, deflate, br",
            "br;q=1",
            "br ; Q=0.5",
            "x, br;q=0.001",
            "br;q=1.000",
        ];
        for h in yes {
            assert!(accepts_coding(h, "br"), "{h}");
        }
        let no = [
            "",
            "gzip",
            "br;Q=0",
            "br; q=0",
            "br;q=0.0",
            "br;q=0.000",
            "br;q=0.",
            "*",
            "*;q=0",
            "identity",
            "brotli",
            "br;q=2",
            "br;q=1.5",
            "br;q=abc",
            "br;level=3",
            "br;q=0.0001",
        ];
        for h in no {
            assert!(!accepts_coding(h, "br"), "{h}");
        }
        assert!(accepts_coding("br; q=0, gzip", "gzip") && !accepts_coding("br; q=0, gzip", "br"));
    }

    #[test]
    fn conditional_requests_follow_rfc_9110() {
        use std::time::{Duration, UNIX_EPOCH};
        let etag = "\"abc\"";
        for yes in ["\"abc\"", "W/\"abc\"", "*", "\"x\", \"abc\"", " \"y\" ,W/\"abc\""] {
            assert!(if_none_match(yes, etag), "{yes}");
        }
        for no in ["\"abd\"", "abc", "\"ABC\"", ""] {
            assert!(!if_none_match(no, etag), "{no}");
        }
        assert!(if_none_match("\"abc\"", "W/\"abc\""), "a weak tag of ours matches too");
        let modified = UNIX_EPOCH + Duration::from_secs(1_700_000_000) + Duration::from_millis(400);
        let at = httpdate::fmt_http_date(modified);
        let before = httpdate::fmt_http_date(modified - Duration::from_secs(1));
        let after = httpdate::fmt_http_date(modified + Duration::from_secs(60));
        assert!(not_modified(None, Some(&at), etag, modified), "at the second");
        assert!(not_modified(None, Some(&after), etag, modified));
        assert!(!not_modified(None, Some(&before), etag, modified));
        assert!(!not_modified(None, Some("yesterday"), etag, modified));
        assert!(!not_modified(Some("\"x\""), Some(&at), etag, modified), "If-None-Match wins");
        assert!(not_modified(Some("*"), Some(&before), etag, modified));
        assert!(!not_modified(None, None, etag, modified));
    }

    #[test]
    fn page_values_follow_the_pattern() {
        for ok in ["1", "9", "10", "999999999"] {
            assert!(valid_page(ok), "{ok}");
        }
        for bad in ["0", "-1", "+2", "02", "2.0", "1e2", "abc", "1000000000", " 1", "%32", ""] {
            assert!(!valid_page(bad), "{bad}");
        }
    }

    #[test]
    fn resolves_endpoints_with_defaults_and_precedence() {
        let r = routes();
        assert_eq!(
            r.resolve("GET", "/api/en/attractions", ""),
            page("api/en/attractions/10/1.json")
        );
        assert_eq!(
            r.resolve("HEAD", "/api/fr/attractions/", "per_page=20&page=4"),
            page("api/fr/attractions/20/4.json")
        );
        assert_eq!(
            r.resolve("GET", "/api/attractions", "page=7"),
            page("api/attractions/10/7.json")
        );
        assert_eq!(r.resolve("GET", "/api/en/attractions", "page=8"), err(ErrorCode::PageNotFound));
        assert_eq!(
            r.resolve("GET", "/api/en/attractions", "page=0&per_page=7"),
            err(ErrorCode::InvalidPage)
        );
        assert_eq!(
            r.resolve("GET", "/api/en/attractions", "page=99&per_page=7"),
            err(ErrorCode::InvalidPerPage)
        );
        assert_eq!(r.resolve("GET", "/api/EN/attractions", "page=0"), err(ErrorCode::UnknownLang));
        assert_eq!(r.resolve("POST", "/api/EN/attractions", ""), err(ErrorCode::MethodNotAllowed));
        assert_eq!(r.resolve("DELETE", "/api/nothing", ""), err(ErrorCode::MethodNotAllowed));
        assert_eq!(r.resolve("OPTIONS", "/api/EN/attractions", "page=0"), Outcome::Options);
        assert_eq!(r.resolve("OPTIONS", "/other", ""), Outcome::Outside);
    }

    #[test]
    fn other_paths_under_api_are_files_when_clean() {
        let r = routes();
        assert_eq!(
            r.resolve("GET", "/api/en/attractions/10/2.json", "page=x"),
            Outcome::File("api/en/attractions/10/2.json".into())
        );
        assert_eq!(
            r.resolve("GET", "/api/errors/not_found.json", ""),
            Outcome::File("api/errors/not_found.json".into())
        );
        for bad in [
            "/api/",
            "/api/en/",
            "/api/en/attractions/../../x",
            "/api/.folio",
            "/api/%2e%2e/x",
            "/api/a\\b",
            "/api/index.json/",
        ] {
            assert_eq!(r.resolve("GET", bad, ""), err(ErrorCode::NotFound), "{bad}");
        }
        assert_eq!(r.resolve("GET", "/index.html", ""), Outcome::Outside);
        assert_eq!(r.resolve("POST", "/other", ""), Outcome::Outside);
    }

    #[test]
    fn a_mount_path_prefixes_everything() {
        let base = crate::config::BaseUrl { origin: String::new(), path: "/travel".into() };
        let mut r = routes();
        r.shape.base = base;
        assert_eq!(
            r.resolve("GET", "/travel/api/attractions", ""),
            page("api/attractions/10/1.json")
        );
        assert_eq!(r.resolve("GET", "/api/attractions", ""), Outcome::Outside);
    }
}
