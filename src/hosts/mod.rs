//! Host targets: each file renders the routing table ([`Map`]) into one host's
//! configuration, through a minijinja template of `templates/` (Vercel's and Cloudflare's
//! JSON files are built as data). Server-side configs go to `hosting/` (never published);
//! publish-dir files (`_redirects`, `vercel.json`, `_worker.js`, ...) go to `output/`.
//! Nothing here decides behaviour: every rule comes from the map and every regex from
//! `routes::patterns`. Where a host runs a script (the Cloudflare worker, the CloudFront
//! function, lighttpd's Lua), the script reads the map's one JSON table ([`Map::table`])
//! and holds only what must be written in its language: reading the request, the
//! resolver's steps over the table, sending the file. The request table in the tests
//! checks each of them against [`Map::resolve`] on a real server or emulator.

pub mod apache;
pub mod caddy;
pub mod cloudflare;
pub mod cloudfront;
pub mod lighttpd;
pub mod limits;
pub mod netlify;
pub mod nginx;
pub mod vercel;

use minijinja::{AutoEscape, Environment, UndefinedBehavior};

/// The files at `output/`'s root that a platform reads as its configuration (Cloudflare
/// Pages' `_worker.js`, `_routes.json`, `_headers` and Netlify's `_redirects`, Vercel's
/// `vercel.json`), never served: an object store given them would only serve them.
pub const PLATFORM_CONFIG: [&str; 5] =
    ["_worker.js", "_routes.json", "_headers", "_redirects", "vercel.json"];

use crate::config::HostTarget;
use crate::routes::{ErrorCode, Map};

/// Does `target` write server-side files (into `hosting_dir`)? Known before the records
/// are: a build whose `hosting_dir` lacks them is no no-op.
pub fn writes_hosting_files(
    target: HostTarget,
    cloudflare: crate::config::CloudflareConfig,
) -> bool {
    match target {
        HostTarget::Nginx
        | HostTarget::Apache
        | HostTarget::Caddy
        | HostTarget::Lighttpd
        | HostTarget::Cloudfront => true,
        HostTarget::Cloudflare => cloudflare.serve_from == crate::config::ServeFrom::R2,
        HostTarget::Netlify | HostTarget::Vercel => false,
    }
}

/// Where a host file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dir {
    /// `hosting_dir`: server-side configs.
    Hosting,
    /// `output_dir`: files the host reads from the published folder.
    Output,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostFile {
    pub dir: Dir,
    /// Relative to its folder, `/`-separated.
    pub name: String,
    pub contents: String,
}

impl HostFile {
    fn hosting(name: &str, contents: String) -> HostFile {
        HostFile { dir: Dir::Hosting, name: name.into(), contents }
    }

    fn output(name: &str, contents: String) -> HostFile {
        HostFile { dir: Dir::Output, name: name.into(), contents }
    }
}

/// What every emitter gets.
#[derive(Debug, Clone)]
pub struct HostCtx<'a> {
    pub routes: &'a Map,
    /// Absolute path of the published folder on the server (`[hosting] root`).
    pub root: String,
    /// `[hosting] listen`, e.g. `127.0.0.1:8080`.
    pub listen: String,
    /// With `[hosting.cloudflare] serve_from = "r2"`: the bucket and key prefix of
    /// `[deploy] url`, which the Cloudflare Worker reads.
    pub r2: Option<R2>,
}

/// Where a Worker finds the files `folio deploy` put in an R2 bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct R2 {
    pub bucket: String,
    /// The key prefix, without a trailing `/` (`""`: the bucket's root).
    pub prefix: String,
}

impl<'a> HostCtx<'a> {
    /// `host:port` split for configs that want them apart.
    pub fn listen_parts(&self) -> (&str, &str) {
        self.listen.rsplit_once(':').unwrap_or((&self.listen, "80"))
    }

    /// The path of an error document below the mount point, e.g. `/api/errors/x.json`.
    pub fn error_path(&self, code: ErrorCode) -> String {
        self.routes.path(&code.file())
    }

    /// The context of the emitters' unit tests: `routes` served from `/srv/site/output`
    /// on 127.0.0.1:9000.
    #[cfg(test)]
    pub(crate) fn sample(routes: &'a Map) -> HostCtx<'a> {
        HostCtx {
            routes,
            root: "/srv/site/output".into(),
            listen: "127.0.0.1:9000".into(),
            r2: None,
        }
    }
}

/// The one file `render` writes for the sample table (`routes::sample(mount)`), checked to
/// be `name` in `dir`: what each emitter's unit tests read.
#[cfg(test)]
pub(crate) fn sample_file(
    render: fn(&HostCtx) -> Vec<HostFile>,
    mount: &str,
    dir: Dir,
    name: &str,
) -> String {
    let routes = crate::routes::sample(mount);
    let files = render(&HostCtx::sample(&routes));
    assert_eq!(files.len(), 1);
    assert_eq!((files[0].dir, files[0].name.as_str()), (dir, name));
    files[0].contents.clone()
}

/// Fills a host file's template (the first of `templates`; the others are partials it
/// includes by name) with `ctx`, and with `names`: the API's folders and media types
/// ([`crate::routes::names`]), which no template spells itself. Blocks take their line
/// with them; undefined names are errors, so a typo in a template fails its emitter's
/// unit test.
fn fill(templates: &[(&'static str, &'static str)], ctx: minijinja::Value) -> String {
    let mut env = Environment::new();
    let syntax = minijinja::syntax::SyntaxConfig::builder()
        .trim_blocks(true)
        .lstrip_blocks(true)
        .keep_trailing_newline(true)
        .build()
        .expect("the default delimiters");
    env.set_syntax(syntax);
    env.set_undefined_behavior(UndefinedBehavior::Strict);
    env.set_auto_escape_callback(|_| AutoEscape::None);
    env.add_global("names", minijinja::value::Serde(crate::routes::names()));
    for (name, source) in templates {
        env.add_template(name, source).expect("a host template parses");
    }
    let main = env.get_template(templates[0].0).expect("added above");
    main.render(ctx).expect("a host template renders with its context")
}

/// Every file of one target.
pub fn render(target: HostTarget, ctx: &HostCtx) -> Vec<HostFile> {
    match target {
        HostTarget::Nginx => nginx::render(ctx),
        HostTarget::Apache => apache::render(ctx),
        HostTarget::Caddy => caddy::render(ctx),
        HostTarget::Lighttpd => lighttpd::render(ctx),
        HostTarget::Cloudfront => cloudfront::render(ctx),
        HostTarget::Netlify => netlify::render(ctx),
        HostTarget::Vercel => vercel::render(ctx),
        HostTarget::Cloudflare => cloudflare::render(ctx),
    }
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
        let ctx = HostCtx::sample(&routes);
        for target in [Nginx, Apache, Caddy, Lighttpd, Cloudfront, Netlify, Vercel, Cloudflare] {
            for file in render(target, &ctx) {
                let name = format!("{target:?}-{}", file.name).to_lowercase();
                insta::assert_snapshot!(name, file.contents);
            }
        }
        for target in [Nginx, Apache, Caddy, Lighttpd, Cloudfront, Netlify, Vercel, Cloudflare] {
            let server = render(target, &ctx).iter().any(|f| f.dir == Dir::Hosting);
            assert_eq!(writes_hosting_files(target, Default::default()), server, "{target:?}");
        }
        // `[hosting.cloudflare] serve_from = "r2"`: the Worker and its wrangler.toml.
        let r2 = R2 { bucket: "travel-api".into(), prefix: "v1".into() };
        let ctx = HostCtx { r2: Some(r2), ..ctx };
        let files = render(Cloudflare, &ctx);
        assert!(files.iter().all(|f| f.dir == Dir::Hosting), "nothing of Pages is published");
        for file in files {
            insta::assert_snapshot!(format!("cloudflare-r2-{}", file.name), file.contents);
        }
    }
}
