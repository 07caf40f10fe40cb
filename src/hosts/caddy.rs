//! The caddy target: `hosting/Caddyfile`, which runs as is with
//! `caddy run --adapter caddyfile --config hosting/Caddyfile` (Caddy 2.6+). Its global options
//! turn the admin endpoint and automatic HTTPS off, so it can run as a plain child process.
//!
//! The endpoint lives in one `route {}`, because Caddy's directive order would otherwise run
//! `rewrite` before `error`. The query is read raw from `{http.request.uri.query}` with `map`
//! regexps (Go's leftmost match is the first occurrence): `{query.page}` joins repeated keys and
//! is percent-decoded. Each failure is `error <code> <status>`; `handle_errors` (no status
//! arguments before 2.8) serves `api/errors/{err.message}.json` with the error's status.

use super::{HostCtx, HostFile};
use crate::routes::{ErrorCode, layout, patterns};

pub fn render(ctx: &HostCtx) -> Vec<HostFile> {
    vec![HostFile::hosting("Caddyfile", caddyfile(ctx))]
}

/// Escapes a regexp for a double-quoted CEL string inside a backtick token.
fn cel(regexp: &str) -> String {
    regexp.replace('\\', "\\\\").replace('"', "\\\"")
}

/// A double-quoted Caddyfile token.
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\\\""))
}

const TEMPLATE: &str = include_str!("templates/Caddyfile.j2");
/// Everything under the mount point; path matchers see the path below it.
const API: &str = include_str!("templates/caddy-api.j2");

fn caddyfile(ctx: &HostCtx) -> String {
    let r = ctx.shape;
    let (host, port) = ctx.listen_parts();
    let host = host.trim_start_matches('[').trim_end_matches(']');
    let langs = patterns::one_of(&r.languages);
    let res = patterns::literal(&r.resource);
    let raw_endpoint = format!(
        "^{}{}(\\?|$)",
        patterns::literal(&r.api_prefix()),
        patterns::any_lang_endpoint(&r.resource)
    );
    // Below the mount point (handle_path strips it), the API's folder.
    let api_path = format!("^/{}", patterns::literal(layout::API));
    let codes = ErrorCode::ALL.iter().map(|c| format!("\"{}\"", c.code())).collect::<Vec<_>>();
    let api = super::emitter::fill(
        &[("caddy-api", API)],
        minijinja::context! {
            raw_endpoint => cel(&raw_endpoint),
            dotted => cel(&format!("^[^?]*{}", patterns::DOT_SEGMENT)),
            endpoint => format!("{api_path}{}$", patterns::either_endpoint(&r.languages, &r.resource)),
            api => api_path,
            lang_endpoint => patterns::lang_endpoint(&r.languages, &r.resource),
            any_lang_endpoint => patterns::any_lang_endpoint(&r.resource),
            default_endpoint => patterns::endpoint(&r.resource),
            langs => langs,
            res => res,
            lang_file => layout::page_file(&layout::endpoint(Some("{re.lang.1}"), &r.resource), "{folio_size}", "{folio_page}"),
            default_file => layout::page_file(&layout::endpoint(None, &r.resource), "{folio_size}", "{folio_page}"),
            page => patterns::PAGE,
            sizes_alternation => r.page_sizes.iter().map(u64::to_string).collect::<Vec<_>>().join("|"),
            segments => patterns::segments(),
            cache_control => quote(&r.cache_control),
            allow => quote(crate::routes::ALLOW),
            max_age => crate::routes::PREFLIGHT_MAX_AGE,
        },
    );
    // A mount point is stripped by handle_path, so the rules inside stay the same;
    // anything outside it is not ours.
    let (open, indent, close) = match r.mount() {
        "" => (String::new(), "\t", String::new()),
        m => (format!("\thandle_path {m}/* {{\n"), "\t\t", "\t}\n\trespond 404\n".to_string()),
    };
    let mut site = open;
    for line in api.lines() {
        if !line.is_empty() {
            site.push_str(indent);
        }
        site.push_str(line);
        site.push('\n');
    }
    site.push_str(&close);
    super::emitter::fill(
        &[("Caddyfile", TEMPLATE)],
        minijinja::context! {
            root_text => ctx.root.clone(),
            root => quote(&ctx.root),
            listen => ctx.listen.clone(),
            port => port,
            // Without `bind` Caddy listens on every interface.
            bind => if host.is_empty() { String::new() } else { format!("\tbind {host}\n") },
            default_size => r.default_page_size,
            page_param => patterns::param("page"),
            per_page_param => patterns::param("per_page"),
            site => site,
            codes => codes.join(", "),
            coded_error => layout::error_file("{err.message}"),
            not_found => ErrorCode::NotFound.file(),
            allow => quote(crate::routes::ALLOW),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render_with(mount: &str) -> String {
        super::super::sample_file(render, mount, "Caddyfile")
    }

    #[test]
    fn no_mount_no_handle_path() {
        assert!(!render_with("").contains("handle_path"));
    }

    #[test]
    fn a_mount_path_wraps_the_site_and_reaches_raw_checks() {
        let c = render_with("/travel");
        assert!(c.contains("\thandle_path /travel/* {\n\t\t# A dot segment"));
        assert!(c.contains("\t\terror @dotted_outside 404\n\n\t\troute /api/* {\n"));
        assert!(c.contains("\t}\n\trespond 404\n"));
        assert!(c.contains(r#"matches("^/travel/api/[^/?]+/sights/?(\\?|$)")"#), "{c}");
    }
}
