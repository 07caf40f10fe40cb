//! The cloudflare target. On Cloudflare Pages: `output/_worker.js` and `output/_routes.json`.
//! Pages' `_redirects` cannot look at the query string, so the worker runs the API's rules itself
//! for `{mount}/api/*` (and only there: `_routes.json` keeps every other path static and
//! free of worker invocations). It carries [`Map::counted_table`] — the JSON table the
//! CloudFront function and lighttpd's script read too, with each size's page count — and
//! decides from that table alone which file answers: with no top-level `404.html`, Pages
//! treats the site as a single-page app and `env.ASSETS.fetch` of a missing file answers
//! 200 with `index.html`, so an asset's status proves nothing. The counts are safe there:
//! the worker is published in one deploy with the pages it counts. It also sets every
//! header itself: `_headers` applies to static assets, not to responses a worker builds.
//!
//! With `serve_from = "r2"`: `hosting/cloudflare-worker.js` and `hosting/wrangler.toml`,
//! deployed by hand with wrangler, so made from folio.toml alone ([`routes::table`], no
//! count): the bucket answers whether a file is there (`get` returns null), and an
//! endpoint's page it lacks is past the last.
//!
//! The worker answers OPTIONS (preflight or plain) itself, passes on the asset server's
//! ETag (a hash of the file's bytes, so an unchanged page keeps it) and answers a matching
//! If-None-Match with 304.
//!
//! Deviations: precompressed `.br`/`.gz` siblings are not served; Cloudflare's edge
//! compresses responses itself (by Accept-Encoding). No Last-Modified, so If-Modified-Since
//! is never answered with 304: Pages keeps no modification time for its assets.

use super::{HostCtx, HostFile, R2};
use crate::routes::layout::API;
use crate::routes::{Map, patterns};
use serde_json::Value;

use crate::output::manifest::MANIFEST;

/// The R2 Worker and its wrangler.toml, with `serve_from = "r2"`; nothing on Pages.
pub fn server(ctx: &HostCtx) -> Vec<HostFile> {
    let Some(r2) = &ctx.r2 else { return Vec::new() };
    let r = ctx.shape;
    vec![
        HostFile::hosting(R2_WORKER, worker(crate::routes::table(r), Some(r2))),
        HostFile::hosting("wrangler.toml", wrangler(r, r2)),
    ]
}

/// Pages' worker and `_routes.json`; nothing with `serve_from = "r2"`.
pub fn published(ctx: &HostCtx, map: &Map) -> Vec<HostFile> {
    if ctx.r2.is_some() {
        return Vec::new();
    }
    let r = ctx.shape;
    let routes = serde_json::json!({
        "version": 1,
        "description": "Written by folio: only the API runs the worker.",
        // Pages uploads dotfiles, and `/api/../.folio-manifest.json` arrives normalised:
        // the worker answers 404 for folio's manifest.
        "include": [r.path(&format!("{API}*")), r.path(MANIFEST)],
        "exclude": [],
    });
    let routes = serde_json::to_string_pretty(&routes).expect("plain JSON") + "\n";
    vec![
        HostFile::output("_worker.js", worker(map.counted_table(), None)),
        HostFile::output("_routes.json", routes),
    ]
}

const WORKER: &str = include_str!("templates/_worker.js.j2");

/// The Worker of `serve_from = "r2"`, in `hosting/` (deployed with wrangler, never
/// published).
pub const R2_WORKER: &str = "cloudflare-worker.js";

/// The worker: `Map::resolve` and `Map::page` in JavaScript, over `table` (with the page
/// counts on Pages, without them on R2); reading Pages' assets, or the R2 bucket `r2` names.
fn worker(table: Value, r2: Option<&R2>) -> String {
    let keys =
        r2.map(|b| if b.prefix.is_empty() { String::new() } else { format!("{}/", b.prefix) });
    super::emitter::fill(
        &[("_worker.js", WORKER)],
        minijinja::context! {
            table => table.to_string(),
            page => patterns::PAGE,
            segment => patterns::segment(),
            // In a JavaScript regex literal, where `/` ends it.
            dotted => patterns::DOT_SEGMENT.replace('/', "\\/"),
            manifest => MANIFEST,
            r2 => r2.is_some(),
            bucket => r2.map(|b| b.bucket.clone()),
            keys => keys.map(|k| serde_json::Value::String(k).to_string()),
        },
    )
}

/// `hosting/wrangler.toml`: the R2 Worker's own config for `wrangler deploy`.
fn wrangler(r: &crate::config::Shape, r2: &R2) -> String {
    let name = format!("{}-api", r.resource);
    let quoted = |s: &str| serde_json::Value::String(s.to_string()).to_string();
    format!(
        "# Written by folio: the Worker that answers {api}* from the R2 bucket\n\
         # `folio deploy` fills ([deploy] url). `wrangler deploy --config hosting/wrangler.toml`,\n\
         # then route {api}* of your zone to it (docs/hosting.md, \"Past a host's limits\").\n\
         name = {name}\n\
         main = \"{R2_WORKER}\"\n\
         compatibility_date = \"2024-09-23\"\n\
         \n\
         [[r2_buckets]]\n\
         binding = \"BUCKET\"\n\
         bucket_name = {bucket}\n",
        api = r.api_prefix(),
        name = quoted(&name),
        bucket = quoted(&r2.bucket),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(mount: &str) -> (String, String) {
        let r = crate::routes::sample(mount);
        let f = published(&HostCtx::sample(&r.shape), &r);
        assert!(server(&HostCtx::sample(&r.shape)).is_empty());
        assert!(f.iter().all(|f| f.dir == super::super::Dir::Output));
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
        assert_eq!(t["languages"], serde_json::json!(["en", "pt-br"]));
        assert_eq!(t, crate::routes::sample("").counted_table(), "the map's one table");
        assert_eq!(t["sizes"], serde_json::json!(["10", "25"]));
        assert_eq!(t["pages"], serde_json::json!({"10": 14, "25": 6}));
        assert_eq!(t["default_size"], "25");
        assert_eq!(t["resource"], "sights");
        assert_eq!(t["cache_control"], "public, max-age=60");
        assert!(t["files"].as_array().unwrap().contains(&"api/errors/not_found.json".into()));
        assert!(js.contains("const PAGE = /^[1-9][0-9]{0,8}$/;"));
        assert!(js.contains("const SEGMENT = /^[A-Za-z0-9_-][A-Za-z0-9._-]*$/;"));
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
