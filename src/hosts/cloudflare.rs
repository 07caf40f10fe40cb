//! The cloudflare target (Cloudflare Pages): `output/_worker.js` and `output/_routes.json`.
//! Pages' `_redirects` cannot look at the query string, so the worker runs SPEC §1 itself
//! for `{mount}/api/*` (and only there: `_routes.json` keeps every other path static and
//! free of worker invocations). It carries the routing table as JSON — mount, resource,
//! languages, sizes with their page counts, defaults, Cache-Control, and the list of the
//! other files folio writes under `api/` — and decides from that table alone which file
//! answers: with no top-level `404.html`, Pages treats the site as a single-page app and
//! `env.ASSETS.fetch` of a missing file answers 200 with `index.html`, so an asset's status
//! proves nothing. It also sets every header itself: `_headers` applies to static assets,
//! not to responses a worker builds.
//!
//! Deviation: precompressed `.br`/`.gz` siblings are not served; Cloudflare's edge
//! compresses responses itself (by Accept-Encoding).

use super::{Dir, HostCtx, HostFile};
use crate::render::ErrorCode;
use crate::routes::{PAGE_PATTERN, Routes};

/// folio's own record of what it wrote, at the root of `output/`.
const MANIFEST: &str = ".folio-manifest.json";

pub fn render(ctx: &HostCtx) -> Vec<HostFile> {
    let r = ctx.routes;
    let routes = serde_json::json!({
        "version": 1,
        "description": "Written by folio: only the API runs the worker (SPEC §1).",
        // Pages uploads dotfiles, and `/api/../.folio-manifest.json` arrives normalised:
        // the worker answers 404 for folio's manifest.
        "include": [format!("{}/api/*", r.mount), format!("{}/{MANIFEST}", r.mount)],
        "exclude": [],
    });
    vec![
        HostFile { dir: Dir::Output, name: "_worker.js".into(), contents: worker(r) },
        HostFile {
            dir: Dir::Output,
            name: "_routes.json".into(),
            contents: serde_json::to_string_pretty(&routes).expect("plain JSON") + "\n",
        },
    ]
}

/// The files under `api/` other than pages that a request may name (SPEC §5): the error
/// documents, the index, and the OpenAPI document and explorer page.
fn api_files() -> Vec<String> {
    let mut files: Vec<String> = ErrorCode::ALL.iter().map(|c| c.file()).collect();
    files.extend(["api/index.json", "api/openapi.json", "api/explorer.html"].map(String::from));
    files
}

/// The routing table the worker runs, as JSON (JSON is a JavaScript expression).
fn table(r: &Routes) -> String {
    let sizes: Vec<_> =
        r.sizes.iter().map(|s| serde_json::json!({"size": s.size, "pages": s.pages})).collect();
    serde_json::json!({
        "mount": r.mount,
        "resource": r.resource,
        "languages": r.languages,
        "sizes": sizes,
        "default_size": r.default_size,
        "cache_control": r.cache_control,
        "files": api_files(),
    })
    .to_string()
}

fn worker(r: &Routes) -> String {
    WORKER
        .replace("__TABLE__", &table(r))
        .replace("__PAGE_PATTERN__", PAGE_PATTERN)
        .replace("__MANIFEST__", MANIFEST)
}

/// The worker: `Routes::resolve` and `Routes::page` in JavaScript, over the table above.
const WORKER: &str = r#"// Written by folio for Cloudflare Pages: SPEC §1 for {mount}/api/* (see _routes.json).
// Everything it decides comes from this table; edit folio.toml and rebuild, not this file.
const T = __TABLE__;
const API = T.mount + "/api/";
const PAGE = /__PAGE_PATTERN__/;
// A path segment that may name a file: no leading dot (no "..", no dotfiles), no "%".
const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;
const FILES = new Set(T.files);
const MANIFEST = T.mount + "/__MANIFEST__";

// The first occurrence of `key` in the raw query (split on "&" only, no percent-decoding);
// an empty value or a bare key counts as absent (null).
function param(query, key) {
  for (const pair of query.split("&")) {
    const eq = pair.indexOf("=");
    if ((eq < 0 ? pair : pair.slice(0, eq)) === key) {
      return eq < 0 || eq === pair.length - 1 ? null : pair.slice(eq + 1);
    }
  }
  return null;
}

// The page file (relative to output/) an endpoint request names, or its error code.
function page(lang, query) {
  const p = param(query, "page");
  if (p !== null && !PAGE.test(p)) return { code: "invalid_page" };
  const number = p === null ? 1 : Number(p);
  const pp = param(query, "per_page");
  const size = T.sizes.find((s) => (pp === null ? s.size === T.default_size : String(s.size) === pp));
  if (!size) return { code: "invalid_per_page" };
  if (number > size.pages) return { code: "page_not_found" };
  return { file: `api/${lang === null ? "" : lang + "/"}${T.resource}/${size.size}/${number}.json` };
}

// True when folio wrote `file` (relative to output/): a page within its size's count, or
// one of the listed files. Never ask the asset server: a missing file answers 200 there.
function exists(file) {
  if (FILES.has(file)) return true;
  let s = file.split("/").slice(1);
  if (s.length === 4 && T.languages.includes(s[0])) s = s.slice(1);
  if (s.length !== 3 || s[0] !== T.resource) return false;
  const size = T.sizes.find((x) => String(x.size) === s[1]);
  const m = /^([1-9][0-9]{0,8})\.json$/.exec(s[2]);
  return Boolean(size && m && Number(m[1]) <= size.pages);
}

// What a request resolves to: { file } (a page or another file) or { code }.
function resolve(method, rest, query) {
  if (method !== "GET" && method !== "HEAD") return { code: "method_not_allowed" };
  const all = rest.split("/");
  const segs = all[all.length - 1] === "" ? all.slice(0, -1) : all; // one trailing slash
  if (segs.length === 1 && segs[0] === T.resource) return page(null, query);
  if (segs.length === 2 && segs[1] === T.resource) {
    return T.languages.includes(segs[0]) ? page(segs[0], query) : { code: "unknown_lang" };
  }
  const file = "api/" + rest;
  return all.every((s) => SEGMENT.test(s)) && exists(file) ? { file } : { code: "not_found" };
}

const STATUS = {
  invalid_page: 400, invalid_per_page: 400, unknown_lang: 404,
  page_not_found: 404, not_found: 404, method_not_allowed: 405,
};

async function asset(env, request, file) {
  // The asset server answers "/x.html" with a redirect to "/x" (pretty URLs).
  const path = T.mount + "/" + file.replace(/\.html$/, "");
  const res = await env.ASSETS.fetch(new URL(path, request.url));
  // A listed file that is missing comes back as the single-page app's index.html.
  const html = (res.headers.get("Content-Type") || "").startsWith("text/html");
  return res.status === 200 && html === file.endsWith(".html") ? res : null;
}

async function answer(request, env) {
  // Path and query sliced by hand, not through `new URL()`, which would turn "%2e%2e"
  // into ".." and re-encode the query; the runtime itself already resolves a literal "..".
  const url = request.url;
  const start = url.indexOf("/", url.indexOf("//") + 2);
  const q = url.indexOf("?", start);
  const path = q < 0 ? url.slice(start) : url.slice(start, q);
  const query = q < 0 ? "" : url.slice(q + 1);
  if (!path.startsWith(API) && path !== MANIFEST) return env.ASSETS.fetch(request);
  const head = request.method === "HEAD";
  const out = path === MANIFEST ? { code: "not_found" } : resolve(request.method, path.slice(API.length), query);
  if (out.file) {
    const res = await asset(env, request, out.file);
    if (res) {
      const type = out.file.endsWith(".html") ? "text/html" : "application/json";
      return new Response(head ? null : res.body, {
        status: 200,
        headers: {
          "Content-Type": type + "; charset=utf-8",
          "Access-Control-Allow-Origin": "*",
          "Vary": "Accept-Encoding",
          "Cache-Control": T.cache_control,
        },
      });
    }
    out.code = "not_found";
  }
  const headers = { "Content-Type": "application/problem+json", "Access-Control-Allow-Origin": "*" };
  if (out.code === "method_not_allowed") headers["Allow"] = "GET, HEAD";
  const doc = await asset(env, request, `api/errors/${out.code}.json`);
  const body = doc ? doc.body : `{"status": ${STATUS[out.code]}, "code": "${out.code}"}`;
  return new Response(head ? null : body, { status: STATUS[out.code], headers });
}

export default { fetch: answer };
"#;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::Size;

    fn routes(mount: &str) -> Routes {
        Routes {
            origin: String::new(),
            mount: mount.into(),
            resource: "sights".into(),
            languages: vec!["de".into(), "it".into()],
            default_language: "de".into(),
            sizes: vec![Size { size: 25, pages: 3 }, Size { size: 5, pages: 11 }],
            default_size: 5,
            cache_control: "max-age=60".into(),
        }
    }

    fn files(mount: &str) -> (String, String) {
        let r = routes(mount);
        let f = render(&HostCtx { routes: &r, root: "/srv".into(), listen: "127.0.0.1:1".into() });
        assert!(f.iter().all(|f| f.dir == Dir::Output));
        assert_eq!((f[0].name.as_str(), f[1].name.as_str()), ("_worker.js", "_routes.json"));
        (f[0].contents.clone(), f[1].contents.clone())
    }

    #[test]
    fn the_table_reaches_the_worker() {
        let (js, _) = files("");
        let line = js.lines().find(|l| l.starts_with("const T = ")).unwrap();
        let t: serde_json::Value =
            serde_json::from_str(line.trim_start_matches("const T = ").trim_end_matches(';'))
                .unwrap();
        assert_eq!(t["languages"], serde_json::json!(["de", "it"]));
        assert_eq!(t["sizes"][1], serde_json::json!({"size": 5, "pages": 11}));
        assert_eq!(t["default_size"], 5);
        assert_eq!(t["resource"], "sights");
        assert_eq!(t["cache_control"], "max-age=60");
        assert!(t["files"].as_array().unwrap().contains(&"api/errors/not_found.json".into()));
        assert!(js.contains("const PAGE = /^[1-9][0-9]{0,8}$/;"));
        assert!(!js.contains("__"));
    }

    #[test]
    fn routes_json_limits_the_worker_to_the_mounted_api() {
        let (js, routes) = files("/travel");
        let v: serde_json::Value = serde_json::from_str(&routes).unwrap();
        assert_eq!(
            v["include"],
            serde_json::json!(["/travel/api/*", "/travel/.folio-manifest.json"])
        );
        assert_eq!(v["version"], 1);
        assert!(js.contains(r#""mount":"/travel""#));
        assert_eq!(
            serde_json::from_str::<serde_json::Value>(&files("").1).unwrap()["include"][0],
            "/api/*"
        );
    }
}
