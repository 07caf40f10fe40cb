//! Host targets: each file renders the routing table ([`Routes`], SPEC §1 as data) into
//! one host's configuration. Server-side configs go to `hosting/` (never published);
//! publish-dir files (`_redirects`, `vercel.json`, `_worker.js`, ...) go to `output/`.
//! Nothing here decides behaviour: every rule comes from the table, so hosts cannot drift.

pub mod apache;
pub mod caddy;
pub mod cloudflare;
pub mod cloudfront;
pub mod lighttpd;
pub mod netlify;
pub mod nginx;
pub mod vercel;

use crate::render::ErrorCode;
use crate::routes::Routes;

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

/// What every emitter gets.
#[derive(Debug, Clone)]
pub struct HostCtx<'a> {
    pub routes: &'a Routes,
    /// Absolute path of the published folder on the server (`[hosting] root`).
    pub root: String,
    /// `[hosting] listen`, e.g. `127.0.0.1:8080`.
    pub listen: String,
}

impl HostCtx<'_> {
    /// `host:port` split for configs that want them apart.
    pub fn listen_parts(&self) -> (&str, &str) {
        self.listen.rsplit_once(':').unwrap_or((&self.listen, "80"))
    }

    /// The path of an error document below the mount point, e.g. `/api/errors/x.json`.
    pub fn error_path(&self, code: ErrorCode) -> String {
        format!("{}/{}", self.routes.mount, code.file())
    }
}

/// `s` with a backslash before each character of `special`: the escaping every host's
/// regexps and quoted strings share (PCRE and RE2 metacharacters, mod_rewrite's `$`/`%`).
pub(crate) fn backslash(s: &str, special: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if special.contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// The metacharacters of PCRE and RE2 regexps.
pub(crate) const REGEX_SPECIAL: &str = "\\.^$|?*+()[]{}";

/// Every file of one target.
pub fn render(target: &str, ctx: &HostCtx) -> Vec<HostFile> {
    match target {
        "nginx" => nginx::render(ctx),
        "apache" => apache::render(ctx),
        "caddy" => caddy::render(ctx),
        "lighttpd" => lighttpd::render(ctx),
        "cloudfront" => cloudfront::render(ctx),
        "netlify" => netlify::render(ctx),
        "vercel" => vercel::render(ctx),
        "cloudflare" => cloudflare::render(ctx),
        other => unreachable!("config validation admits only known targets, not {other}"),
    }
}
