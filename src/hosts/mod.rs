//! Host targets: each file renders the API's rules into one host's configuration, through a
//! minijinja template of `templates/` (Vercel's and Cloudflare's JSON files are built as
//! data). Server-side configs go to `hosting/` ([`server_files`]): they are published by
//! hand, apart from the pages, so they are made from folio.toml alone and a page past the
//! last is one the server finds missing. Publish-dir files (`_redirects`, `vercel.json`,
//! `_worker.js`, ...) go to `output/` with the pages ([`published_files`]) and may carry
//! the listing's page counts. Every rule comes from `routes` and every regex from
//! `routes::patterns`; a script (the Workers, the CloudFront function, lighttpd's Lua)
//! reads the one JSON table of [`routes::table`](crate::routes::table). The request table
//! in the tests checks each against [`Map::resolve`](crate::routes::Map::resolve) on a real
//! server or emulator.

pub mod apache;
pub mod caddy;
pub mod cloudflare;
pub mod cloudfront;
mod emitter;
pub mod lighttpd;
pub mod limits;
pub mod netlify;
pub mod nginx;
pub mod vercel;

#[cfg(test)]
pub(crate) use emitter::sample_file;
pub use emitter::{Dir, HostCtx, HostFile, R2};

/// The files at `output/`'s root that a platform reads as its configuration (Cloudflare
/// Pages' `_worker.js`, `_routes.json`, `_headers` and Netlify's `_redirects`, Vercel's
/// `vercel.json`), never served: an object store given them would only serve them.
pub const PLATFORM_CONFIG: [&str; 5] =
    ["_worker.js", "_routes.json", "_headers", "_redirects", "vercel.json"];

use crate::config::HostTarget;
use crate::routes::Map;

/// Does `target` write server-side files (into `hosting_dir`), Cloudflare's from R2 or
/// not (`r2`)? Known before the records are: a build whose `hosting_dir` lacks them is no
/// no-op.
pub fn writes_hosting_files(target: HostTarget, r2: Option<&R2>) -> bool {
    match target {
        HostTarget::Nginx
        | HostTarget::Apache
        | HostTarget::Caddy
        | HostTarget::Lighttpd
        | HostTarget::Cloudfront => true,
        HostTarget::Cloudflare => r2.is_some(),
        HostTarget::Netlify | HostTarget::Vercel => false,
    }
}

/// The `hosting/` files of one target, from folio.toml alone: `ctx` holds no fact of the
/// data, so two builds that differ only in `data/` write them byte for byte the same, and a
/// server configured from an older build answers a newer one's output.
pub fn server_files(target: HostTarget, ctx: &HostCtx) -> Vec<HostFile> {
    match target {
        HostTarget::Nginx => nginx::render(ctx),
        HostTarget::Apache => apache::render(ctx),
        HostTarget::Caddy => caddy::render(ctx),
        HostTarget::Lighttpd => lighttpd::render(ctx),
        HostTarget::Cloudfront => cloudfront::render(ctx),
        HostTarget::Cloudflare => cloudflare::server(ctx),
        HostTarget::Netlify | HostTarget::Vercel => Vec::new(),
    }
}

/// How a changed `hosting/` file of `target` reaches its server or CDN: no deploy
/// publishes these, so a deploy that finds one changed says this.
pub fn publish_step(target: HostTarget) -> &'static str {
    match target {
        HostTarget::Nginx => "reload nginx with it (`nginx -s reload`)",
        HostTarget::Apache => "reload Apache with it (`apachectl graceful`)",
        HostTarget::Caddy => {
            "reload Caddy with it (`caddy reload --adapter caddyfile --config` it)"
        }
        HostTarget::Lighttpd => "restart lighttpd with it",
        HostTarget::Cloudfront => {
            "update the CloudFront Function with it, then publish it (`aws cloudfront update-function`, `aws cloudfront publish-function`)"
        }
        HostTarget::Cloudflare => {
            "deploy the Worker again (`wrangler deploy --config` the wrangler.toml beside it)"
        }
        HostTarget::Netlify | HostTarget::Vercel => "publish it with the pages",
    }
}

/// The `output/` files of one target, which the host reads from the published folder
/// with the pages they describe: they may carry `map`'s page counts.
pub fn published_files(target: HostTarget, ctx: &HostCtx, map: &Map) -> Vec<HostFile> {
    match target {
        HostTarget::Netlify => netlify::render(ctx),
        HostTarget::Vercel => vercel::render(ctx, map),
        HostTarget::Cloudflare => cloudflare::published(ctx, map),
        HostTarget::Nginx
        | HostTarget::Apache
        | HostTarget::Caddy
        | HostTarget::Lighttpd
        | HostTarget::Cloudfront => Vec::new(),
    }
}

/// Every file of one target: its server files, then its published ones.
pub fn render(target: HostTarget, ctx: &HostCtx, map: &Map) -> Vec<HostFile> {
    let mut files = server_files(target, ctx);
    files.extend(published_files(target, ctx, map));
    files
}

#[cfg(test)]
mod tests {
    use super::*;

    /// No host template, and no emitter outside its tests, spells a folder of the API or a
    /// media type: each reads `names` ([`crate::routes::names`]) or a value its emitter
    /// built from `routes`, so the layout and the types have one home. The folders are
    /// fixed in `routes::layout` (no map can move them), so this reads the files' text:
    /// every file of `templates/` and every emitter up to its tests, comments aside.
    #[test]
    fn no_template_spells_a_folder_or_a_media_type() {
        use crate::routes::{FILE_TYPES, OCTET_STREAM, PROBLEM_JSON, UTF8, layout};
        let errors = layout::ERRORS.strip_prefix(layout::API).expect("below the API's folder");
        let mut spelled =
            vec![layout::API, errors, PROBLEM_JSON, OCTET_STREAM, UTF8.trim_start_matches("; ")];
        spelled.extend(FILE_TYPES.iter().map(|t| t.media));
        let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src/hosts");
        let mut files = Vec::new();
        for dir in [src.join("templates"), src] {
            for entry in std::fs::read_dir(dir).unwrap() {
                let path = entry.unwrap().path();
                let rust = path.extension().is_some_and(|e| e == "rs");
                if rust || path.parent().is_some_and(|p| p.ends_with("templates")) {
                    files.push((path, rust));
                }
            }
        }
        assert!(files.iter().filter(|f| !f.1).count() >= 11, "every template read: {files:?}");
        let mut found = Vec::new();
        for (path, rust) in &files {
            let text = std::fs::read_to_string(path).unwrap();
            for (n, line) in text.lines().enumerate() {
                if *rust && line.starts_with("mod tests") {
                    break;
                }
                if *rust && line.trim_start().starts_with("//") {
                    continue;
                }
                for s in spelled.iter().filter(|s| line.contains(*s)) {
                    found.push(format!("{}:{}: {s}", path.display(), n + 1));
                }
            }
        }
        assert!(found.is_empty(), "spelled by hand, not read from routes:\n{}", found.join("\n"));
    }

    /// Every file of every target for the sample table mounted at `/travel`, whole: a
    /// change to any template or emitter shows here, line by line, for review
    /// (`INSTA_UPDATE=always cargo test` rewrites them; each emitter's own tests pin what
    /// must hold whatever the template says).
    #[test]
    fn every_host_file_of_the_sample_table() {
        use HostTarget::*;
        let routes = crate::routes::sample("/travel");
        let ctx = HostCtx::sample(&routes.shape);
        for target in [Nginx, Apache, Caddy, Lighttpd, Cloudfront, Netlify, Vercel, Cloudflare] {
            for file in render(target, &ctx, &routes) {
                let name = format!("{target:?}-{}", file.name).to_lowercase();
                insta::assert_snapshot!(name, file.contents);
            }
        }
        for target in [Nginx, Apache, Caddy, Lighttpd, Cloudfront, Netlify, Vercel, Cloudflare] {
            let server = render(target, &ctx, &routes).iter().any(|f| f.dir == Dir::Hosting);
            assert_eq!(writes_hosting_files(target, None), server, "{target:?}");
        }
        // `[hosting.cloudflare] serve_from = "r2"`: the Worker and its wrangler.toml.
        let r2 = R2 { bucket: "travel-api".into(), prefix: "v1".into() };
        let ctx = HostCtx { r2: Some(r2), ..ctx };
        let files = render(Cloudflare, &ctx, &routes);
        assert!(files.iter().all(|f| f.dir == Dir::Hosting), "nothing of Pages is published");
        for file in files {
            insta::assert_snapshot!(format!("cloudflare-r2-{}", file.name), file.contents);
        }
    }
}
