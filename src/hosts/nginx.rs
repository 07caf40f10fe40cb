//! The nginx target: `hosting/nginx.conf`, the `map`s and the one `server {}` that serve
//! the API from `[hosting] root`. It is not a whole nginx configuration: it is included
//! inside `http {}` of a main config like Debian's (see [`MAIN_CONFIG`], which docs/hosting.md
//! shows); it needs no module beyond nginx's own. The file is `templates/nginx.conf.j2`
//! filled with values of the routing table and the patterns of `routes::patterns`.
//!
//! How the rules map onto nginx:
//! - The query is parsed from `$args` with `map` regexes, not `$arg_page`: `$arg_*` cannot
//!   tell `page=` from no `page`, and a regex's leftmost match is the first occurrence.
//! - No page count: a valid page at a configured size is the file `try_files` looks for,
//!   and a page past the last is the file it does not find (`=` the page_not_found
//!   status), so the config answers any later build of the same folio.toml.
//! - Each error code has an internal status (470...) that `error_page 47x =400 ...` turns
//!   into the real status with the error document as body; the documents are served from
//!   an `internal` location so that they get `application/problem+json`, while the same
//!   files requested by their public path stay `application/json`.
//! - nginx decodes `%2F` and resolves `..` before choosing a location, so the path rules
//!   (no dot segments, no `%`, no empty segments) are checked on the raw `$request_uri`.
//! - `add_header` without `always` reaches only 2xx/3xx: CORS is `always`, Cache-Control
//!   and Vary are not (errors keep nginx's own caching).
//! - Precompressed siblings are chosen by `try_files` from a `map` of Accept-Encoding
//!   (`routes::patterns::accepts_coding`), not by `gzip_static`/`brotli_static`: those
//!   parse the header each their own way (`brotli_static` reads `br;Q=0` as a yes).
//! - `disable_symlinks on`: a symlink inside the root could lead outside it.

use std::sync::LazyLock;

use serde::Serialize;

use super::{HostCtx, HostFile};
use crate::routes::layout::{API, ERRORS};
use crate::routes::{ErrorCode, patterns};

/// The main config the emitted file is written for (`DIR` is the hosting folder); shown in
/// docs/hosting.md. Tests run it with `nginx -p DIR -c DIR/main.conf -g 'daemon off; ...'`.
pub static MAIN_CONFIG: LazyLock<String> = LazyLock::new(|| {
    format!(
        "\
events {{}}
http {{
    include /etc/nginx/mime.types;
    default_type {};
    include DIR/nginx.conf;
}}
",
        crate::routes::OCTET_STREAM
    )
});

const TEMPLATE: &str = include_str!("templates/nginx.conf.j2");
const HEADERS: &str = include_str!("templates/nginx-headers.j2");

/// The internal status that stands for `code` until `error_page` rewrites it.
fn internal_status(code: ErrorCode) -> u16 {
    470 + ErrorCode::ALL.iter().position(|&c| c == code).expect("listed") as u16
}

/// A quoted nginx string: nginx unescapes `\\` and `\"` inside quotes, nothing else.
fn q(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

#[derive(Serialize)]
struct Size {
    size: u64,
    quoted: String,
}

#[derive(Serialize)]
struct ErrorPage {
    statuses: String,
    status: u16,
    document: String,
}

pub fn render(ctx: &HostCtx) -> Vec<HostFile> {
    let r = ctx.shape;
    let root = ctx.root.trim_end_matches('/');
    let api = format!("^{}", patterns::literal(&r.api_prefix()));
    let errors = r.path(&format!("{API}.folio-error/"));
    let codes = |f: fn(ErrorCode) -> String| -> serde_json::Map<String, serde_json::Value> {
        ErrorCode::ALL.iter().map(|&c| (c.code().to_string(), f(c).into())).collect()
    };
    let contents = super::emitter::fill(
        &[("nginx.conf", TEMPLATE), ("headers", HEADERS)],
        minijinja::context! {
            main_config => MAIN_CONFIG.lines().collect::<Vec<_>>(),
            allow => q(crate::routes::ALLOW),
            max_age => crate::routes::PREFLIGHT_MAX_AGE,
            page_param => q(&format!("~{}", patterns::param("page"))),
            per_page_param => q(&format!("~{}", patterns::param("per_page"))),
            page_valid => q(&format!("~^{}$", patterns::PAGE)),
            default_size => r.default_page_size,
            sizes => minijinja::value::Serde(r.page_sizes.iter().map(|&size| Size {
                size,
                quoted: q(&size.to_string()),
            }).collect::<Vec<_>>()),
            // Both checked by the maps above: the page's file, below its endpoint.
            valid => q("~^([0-9]+) ([0-9]+)$"),
            code => minijinja::value::Serde(codes(|c| c.code().to_string())),
            status => minijinja::value::Serde(codes(|c| internal_status(c).to_string())),
            unprefixed => q(&format!("~{api}{}(?:\\?|$)", patterns::endpoint(&r.resource))),
            prefixed => q(&format!(
                "~{api}{}(?:\\?|$)",
                patterns::lang_endpoint(&r.languages, &r.resource)
            )),
            clean => q(&format!("~{api}{}(?:\\?|$)", patterns::segments())),
            dotted => q(&format!("~^[^?]*{}", patterns::DOT_SEGMENT)),
            accepts_br => q(&format!("~*{}", patterns::accepts_coding("br"))),
            accepts_gzip => q(&format!("~*{}", patterns::accepts_coding("gzip"))),
            listen => ctx.listen.clone(),
            error_pages => minijinja::value::Serde(ErrorCode::ALL.iter().map(|&c| ErrorPage {
                statuses: match c {
                    ErrorCode::NotFound => format!("404 {}", internal_status(c)),
                    _ => internal_status(c).to_string(),
                },
                status: c.status(),
                document: q(&format!("{errors}{}.json", c.code())),
            }).collect::<Vec<_>>()),
            api_location => q(&r.api_prefix()),
            api_alias => q(&format!("{root}/{API}")),
            endpoint_location => q(&format!(
                "{api}(?:{}|{})$",
                patterns::any_lang_endpoint(&r.resource),
                patterns::endpoint(&r.resource)
            )),
            root => q(root),
            cache_control => q(&r.cache_control),
            // `root` + a file without the mount: built from checked values only.
            page => format!("/{API}${{folio_lang}}{}/$folio_query.json", r.resource),
            errors_location => q(&errors),
            errors_alias => q(&format!("{root}/{ERRORS}")),
        },
    );
    vec![HostFile::hosting("nginx.conf", contents)]
}

#[cfg(test)]
mod tests {
    use super::*;

    fn conf(mount: &str) -> String {
        super::super::sample_file(render, mount, "nginx.conf")
    }

    #[test]
    fn a_mount_path_prefixes_locations_and_error_pages() {
        let c = conf("/travel");
        assert!(
            c.contains("location \"/travel/api/\" {\n        alias \"/srv/site/output/api/\";")
        );
        assert!(c.contains(r#"location ~ "^/travel/api/(?:[^/?]+/sights/?|sights/?)$""#), "{c}");
        assert!(c.contains("error_page 472 =404 \"/travel/api/.folio-error/unknown_lang.json\";"));
        assert!(c.contains("error_page 404 474 =404 \"/travel/api/.folio-error/not_found.json\";"));
        assert!(c.contains("location ^~ \"/travel/api/.folio-error/\" {"));
    }
}
