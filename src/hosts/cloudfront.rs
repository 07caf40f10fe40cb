//! The cloudfront target: `hosting/cloudfront-function.js`, a CloudFront Function
//! (viewer-request, runtime `cloudfront-js-2.0`) for the `{mount}/api/*` cache behavior of
//! a distribution whose origin is an S3 bucket holding `output/`. It owns SPEC §1 routing
//! for CloudFront: the function answers method, language and query errors itself and
//! rewrites `request.uri` to the page file; everything else goes to S3 unchanged. The
//! deployment it assumes (upload commands, response-headers policy, custom error response)
//! is written into the file's header, so the file documents itself where it is deployed.
//!
//! Traps met, each handled below:
//! - `event.request.querystring` is already parsed: a bare key and an empty value are both
//!   `""`, repeats are folded into `multiValue`, the splitting is CloudFront's. Runtime 2.0's
//!   `request.rawQueryString()` gives the query exactly as sent, so the function parses that
//!   with SPEC §1.1's own rules (split on `&`, raw, first wins, empty = absent).
//! - A viewer-request function cannot read the bucket, so its error bodies are embedded
//!   text, and nothing in [`HostCtx`] carries the bytes of `api/errors/*.json`:
//!   [`problem_document`] rebuilds them from the routing table (see its doc for the gap).
//! - S3 answers a missing key with 403 (no ListBucket) or 404 and cannot say JSON problem:
//!   the distribution's custom error responses (one per status, not per path) map both to
//!   a copy of `not_found.json` uploaded with `Content-Type: application/problem+json`.
//! - A response-headers policy applies to error responses too, so it must not carry the
//!   page Content-Type: that comes from the S3 object metadata set at upload.
//! - CloudFront Functions are limited to 10 KB of code; the tests keep the file well below.

use serde_json::json;

use super::{Dir, HostCtx, HostFile};
use crate::render::ErrorCode;
use crate::routes::{PAGE_PATTERN, Routes};

/// The S3 key (below the mount) of the `not_found` copy that the custom error responses
/// serve; uploaded separately with the problem+json Content-Type.
pub const NOT_FOUND_COPY: &str = "api/errors/not_found.problem.json";

pub fn render(ctx: &HostCtx) -> Vec<HostFile> {
    vec![HostFile {
        dir: Dir::Hosting,
        name: "cloudfront-function.js".into(),
        contents: function(ctx.routes),
    }]
}

/// The bytes of `api/errors/{code}.json` as `render::ErrorCode::document` writes them.
///
/// `HostCtx` holds only the mount path, not base_url's origin, so `type` here is
/// `{mount}/api/errors/{code}.json`: byte-identical to the file when base_url is empty, but
/// without the origin when base_url is absolute. The fix is for `HostCtx` to carry the
/// documents (or base_url's prefix); this one function then takes them from there.
/// The unit test below compares this with `ErrorCode::document` so the texts cannot drift.
pub fn problem_document(routes: &Routes, code: ErrorCode) -> String {
    let sizes: Vec<String> = routes.sizes.iter().map(|s| s.size.to_string()).collect();
    let detail = match code {
        ErrorCode::InvalidPage => {
            "page must be a whole number from 1 to 999999999, written without sign or leading zeros"
                .to_string()
        }
        ErrorCode::InvalidPerPage => format!("per_page must be one of {}", sizes.join(", ")),
        ErrorCode::UnknownLang => {
            format!("the language must be one of {}", routes.languages.join(", "))
        }
        ErrorCode::PageNotFound => {
            "page is past the last page of this listing (see total_pages)".to_string()
        }
        ErrorCode::NotFound => {
            format!("no such resource; the listing is at /api/{{lang}}/{}", routes.resource)
        }
        ErrorCode::MethodNotAllowed => "only GET and HEAD are allowed".to_string(),
    };
    let doc = json!({
        "type": format!("{}/{}", routes.mount, code.file()),
        "title": code.title(),
        "status": code.status(),
        "detail": detail,
        "code": code.code(),
    });
    format!("{doc}\n")
}

/// A JS literal for any JSON value. JSON is JS except for U+2028/U+2029 in strings
/// before ES2019, which the CloudFront runtime (ES5.1 based) may not accept.
fn js(value: &serde_json::Value) -> String {
    value.to_string().replace('\u{2028}', "\\u2028").replace('\u{2029}', "\\u2029")
}

fn function(r: &Routes) -> String {
    let api = r.api_prefix();
    let sizes: serde_json::Map<String, serde_json::Value> =
        r.sizes.iter().map(|s| (s.size.to_string(), json!(s.pages))).collect();
    let errors: serde_json::Map<String, serde_json::Value> = ErrorCode::ALL
        .iter()
        .map(|&c| (c.code().to_string(), json!([c.status(), c.title(), problem_document(r, c)])))
        .collect();
    let mut out = header(r);
    out.push_str(&format!("var API = {};\n", js(&json!(api))));
    out.push_str(&format!("var RESOURCE = {};\n", js(&json!(r.resource))));
    out.push_str(&format!("var LANGUAGES = {};\n", js(&json!(r.languages))));
    out.push_str("// page size -> number of pages at that size\n");
    out.push_str(&format!("var SIZES = {};\n", js(&sizes.into())));
    out.push_str(&format!("var DEFAULT_SIZE = {};\n", js(&json!(r.default_size.to_string()))));
    out.push_str(&format!("var PAGE = /{PAGE_PATTERN}/;\n"));
    out.push_str("// code -> [status, reason phrase, the exact bytes of api/errors/{code}.json]\n");
    out.push_str(&format!("var ERRORS = {};\n", js(&errors.into())));
    out.push_str(BODY);
    out
}

fn header(r: &Routes) -> String {
    let m = &r.mount;
    format!(
        r#"// folio: CloudFront Function for {m}/api/ (SPEC §1). Generated by `folio build`
// from folio.toml; change the config, not this file.
//
// Deploy (S3 origin holding output/, origin access control, bucket not public):
// 1. Upload, Content-Type set here because S3 stores it per object:
//      aws s3 sync output/ s3://BUCKET{m}/ --exclude '*' --include '*.json' \
//        --exclude '.*' --exclude '*/.*' --content-type 'application/json; charset=utf-8'
//      aws s3 sync output/ s3://BUCKET{m}/ --exclude '*.json' --exclude '.*' --exclude '*/.*'
//      aws s3 cp output/api/errors/not_found.json s3://BUCKET{m}/{copy} \
//        --content-type 'application/problem+json'
// 2. Create this function with runtime cloudfront-js-2.0 and publish it.
// 3. Cache behavior for path pattern `{m}/api/*`: allowed methods "GET, HEAD, OPTIONS,
//    PUT, POST, PATCH, DELETE" (with fewer, CloudFront refuses the others before this
//    function could answer 405), viewer-request function = this function, a cache policy
//    without query strings in the key (the function has folded them into the URI),
//    compression on, and a response-headers policy with these custom headers:
//      Access-Control-Allow-Origin: *  (origin override: yes)
//      Cache-Control: {cc}  (origin override: no)
//      Vary: Accept-Encoding  (origin override: no)
//    Not its CORS section: that adds headers only to CORS requests (with an Origin
//    header). No Content-Type: the policy reaches error responses too.
// 4. Distribution custom error responses (they are per status, for every path): 403 and
//    404 -> response page path {m}/{copy}, response code 404.
//
// Query rules: request.rawQueryString() (runtime 2.0) is the query exactly as the viewer
// sent it; it is split on '&' only, compared raw (no percent-decoding), the first
// occurrence of a key wins, and an empty value or bare key counts as absent. Without that
// method the parsed request.querystring is used: its `value` is the first occurrence and a
// bare key reads as "", so first-wins and empty-is-absent still hold.

"#,
        cc = r.cache_control,
        copy = NOT_FOUND_COPY,
    )
}

const BODY: &str = r#"
function problem(code) {
  var e = ERRORS[code];
  var headers = {
    "content-type": { value: "application/problem+json" },
    "access-control-allow-origin": { value: "*" }
  };
  if (e[0] === 405) {
    headers["allow"] = { value: "GET, HEAD" };
  }
  return {
    statusCode: e[0],
    statusDescription: e[1],
    headers: headers,
    body: { encoding: "text", data: e[2] }
  };
}

function rawQuery(request) {
  if (typeof request.rawQueryString === "function") {
    return request.rawQueryString() || "";
  }
  var parts = [];
  var qs = request.querystring || {};
  for (var key in qs) {
    parts.push(key + "=" + qs[key].value);
  }
  return parts.join("&");
}

// The first occurrence of `key`; null when absent, empty or bare.
function param(query, key) {
  var pairs = query.split("&");
  for (var i = 0; i < pairs.length; i++) {
    var eq = pairs[i].indexOf("=");
    var k = eq < 0 ? pairs[i] : pairs[i].slice(0, eq);
    if (k === key) {
      var v = eq < 0 ? "" : pairs[i].slice(eq + 1);
      return v === "" ? null : v;
    }
  }
  return null;
}

// A segment that may name a file: no dot first (no ".", ".." or dotfiles), nothing a
// server could decode into something else.
var CLEAN = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;

function handler(event) {
  var request = event.request;
  var uri = request.uri;
  if (uri.slice(0, API.length) !== API) {
    return request;
  }
  if (request.method !== "GET" && request.method !== "HEAD") {
    return problem("method_not_allowed");
  }
  var segs = uri.slice(API.length).split("/");
  var n = segs.length;
  var lang = null;
  var endpoint = false;
  if ((n === 1 || (n === 2 && segs[1] === "")) && segs[0] === RESOURCE) {
    endpoint = true;
  } else if ((n === 2 || (n === 3 && segs[2] === "")) && segs[1] === RESOURCE) {
    endpoint = true;
    lang = segs[0];
  }
  if (endpoint) {
    if (lang !== null && LANGUAGES.indexOf(lang) < 0) {
      return problem("unknown_lang");
    }
    var query = rawQuery(request);
    var page = param(query, "page");
    var size = param(query, "per_page");
    if (page !== null && !PAGE.test(page)) {
      return problem("invalid_page");
    }
    if (size === null) {
      size = DEFAULT_SIZE;
    } else if (!Object.prototype.hasOwnProperty.call(SIZES, size)) {
      return problem("invalid_per_page");
    }
    var p = page === null ? 1 : parseInt(page, 10);
    if (p > SIZES[size]) {
      return problem("page_not_found");
    }
    request.uri = API + (lang === null ? "" : lang + "/") + RESOURCE + "/" + size + "/" + p + ".json";
    return request;
  }
  for (var i = 0; i < n; i++) {
    if (!CLEAN.test(segs[i])) {
      return problem("not_found");
    }
  }
  // A file by its path: S3 serves it, or a missing key becomes the not_found copy (404).
  return request;
}
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Config, Overrides};
    use crate::routes::Size;
    use std::path::Path;

    fn routes(mount: &str) -> Routes {
        Routes {
            mount: mount.into(),
            resource: "sights".into(),
            languages: vec!["en".into(), "pt-br".into()],
            default_language: "en".into(),
            sizes: vec![Size { size: 10, pages: 14 }, Size { size: 25, pages: 6 }],
            default_size: 25,
            cache_control: "public, max-age=60".into(),
        }
    }

    fn render_one(r: &Routes) -> String {
        let ctx = HostCtx { routes: r, root: "/srv/x".into(), listen: "127.0.0.1:1".into() };
        let files = render(&ctx);
        assert_eq!(files.len(), 1);
        assert_eq!(
            (files[0].dir, files[0].name.as_str()),
            (Dir::Hosting, "cloudfront-function.js")
        );
        files[0].contents.clone()
    }

    #[test]
    fn the_table_reaches_the_function() {
        let js = render_one(&routes(""));
        assert!(js.contains(r#"var API = "/api/";"#));
        assert!(js.contains(r#"var RESOURCE = "sights";"#));
        assert!(js.contains(r#"var LANGUAGES = ["en","pt-br"];"#));
        assert!(js.contains(r#"var SIZES = {"10":14,"25":6};"#));
        assert!(js.contains(r#"var DEFAULT_SIZE = "25";"#));
        assert!(js.contains("Cache-Control: public, max-age=60"));
        assert!(js.contains("function handler(event)"));
        assert!(js.len() < 10 * 1024, "CloudFront Functions allow 10 KB, got {}", js.len());
    }

    #[test]
    fn a_mount_path_prefixes_the_api_and_the_deploy_steps() {
        let js = render_one(&routes("/travel"));
        assert!(js.contains(r#"var API = "/travel/api/";"#));
        assert!(js.contains("s3://BUCKET/travel/"));
        assert!(js.contains("response page path /travel/api/errors/not_found.problem.json"));
        assert!(js.contains(r#"\"type\":\"/travel/api/errors/unknown_lang.json\""#));
    }

    #[test]
    fn embedded_documents_are_the_error_files() {
        let root = Path::new("/nonexistent");
        let toml = "[listing]\nresource = \"sights\"\nlanguages = [\"en\", \"ja\"]\n\
                    page_sizes = [5, 10]\ndefault_page_size = 5\n";
        let project = Config::from_str(toml, Path::new("folio.toml"))
            .unwrap()
            .validate(Path::new("folio.toml"), root, root, &Overrides::default())
            .unwrap();
        let r = Routes::new(&project, 12);
        for code in ErrorCode::ALL {
            assert_eq!(
                problem_document(&r, code).into_bytes(),
                code.document(&project),
                "{code:?}"
            );
        }
    }
}
