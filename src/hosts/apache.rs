//! The apache target: `hosting/apache.conf`, which holds `Listen`, one `<VirtualHost>` and
//! the `<Directory>` that grants the root. It is included from a Debian-like main config
//! (mpm_event, authz_core, mime, rewrite, headers, setenvif; `TypesConfig /etc/mime.types`;
//! `<Directory /> Require all denied`), so it uses nothing beyond those modules.
//!
//! Everything runs in server-context mod_rewrite, which sees the raw `%{QUERY_STRING}`: the
//! endpoint's parameters are picked out with leftmost regexps (first occurrence wins), checked
//! in the order of the API's rules, and each failure ends in `[E=FOLIO_ERR:code,R=status,L]`; the body
//! comes from `ErrorDocument … /api/errors/%{reqenv:FOLIO_ERR}.json` (Apache 2.4.13+), because
//! a non-3xx `R=` drops the substitution.

use super::{HostCtx, HostFile};
use crate::routes::layout::{self, API};
use crate::routes::patterns;

/// A Debian-like main config the emitted file is included from (`DIR` is the hosting
/// folder, `RUN` a folder for the pid file, logs and mutexes); shown in docs/hosting.md and
/// run by the tests with `apache2 -DFOREGROUND -f RUN/apache2.conf`.
pub const MAIN_CONFIG: &str = "\
ServerRoot RUN
DefaultRuntimeDir RUN
PidFile RUN/apache2.pid
Mutex file:RUN default
ErrorLog RUN/error.log
LogLevel warn
ServerName 127.0.0.1
User www-data
Group www-data
LoadModule mpm_event_module /usr/lib/apache2/modules/mod_mpm_event.so
LoadModule authz_core_module /usr/lib/apache2/modules/mod_authz_core.so
LoadModule mime_module /usr/lib/apache2/modules/mod_mime.so
LoadModule rewrite_module /usr/lib/apache2/modules/mod_rewrite.so
LoadModule headers_module /usr/lib/apache2/modules/mod_headers.so
LoadModule setenvif_module /usr/lib/apache2/modules/mod_setenvif.so
TypesConfig /etc/mime.types
<Directory />
    Require all denied
</Directory>
Include DIR/apache.conf
";

pub fn render(ctx: &HostCtx) -> Vec<HostFile> {
    vec![HostFile::hosting("apache.conf", conf(ctx))]
}

/// `s` as a literal in a PCRE pattern inside a double-quoted directive argument.
fn re(s: &str) -> String {
    patterns::literal(s).replace('"', "\\\"")
}

/// Escapes `s` for a mod_rewrite substitution or test string, where `\` escapes `$` and `%`.
fn sub(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\$%\"".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A double-quoted argument of a core directive.
fn quote(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

const TEMPLATE: &str = include_str!("templates/apache.conf.j2");
/// The size and the page of an endpoint's request, as the rules leave them.
const ENV_PER_PAGE: &str = "%{ENV:FOLIO_PER_PAGE}";
const ENV_PAGE: &str = "%{ENV:FOLIO_PAGE}";

fn conf(ctx: &HostCtx) -> String {
    let r = ctx.shape;
    let mount = re(r.mount());
    let langs = r.languages.iter().map(|l| re(l)).collect::<Vec<_>>().join("|");
    let res = re(&r.resource);
    // Below the mount point, the API's folder: every rule's path starts with it.
    let api_path = format!("{mount}/{}", re(API));
    // The page file of an endpoint's request, from the rules' captures and variables.
    let file = |lang: Option<&str>| {
        layout::page_file(&layout::endpoint(lang, &sub(&r.resource)), ENV_PER_PAGE, ENV_PAGE)
    };
    // `Listen 8080` is valid, but a VirtualHost needs an address.
    let vhost =
        if ctx.listen.contains(':') { ctx.listen.clone() } else { format!("*:{}", ctx.listen) };
    super::emitter::fill(
        &[("apache.conf", TEMPLATE)],
        minijinja::context! {
            root_text => ctx.root.clone(),
            root_quoted => quote(&ctx.root),
            root => sub(&ctx.root),
            listen => ctx.listen.clone(),
            vhost => vhost,
            api => format!("^{api_path}"),
            api_path => api_path.clone(),
            dotted => format!("^\\S+\\s+[^?\\s]*{}", patterns::DOT_SEGMENT.replace("$)", "\\s)")),
            api_sub => sub(API),
            lang_file => file(Some("$1")),
            default_file => file(None),
            endpoint => format!("\"^{api_path}{}$\"", patterns::either_endpoint(&r.languages, &r.resource)),
            lang_endpoint => patterns::lang_endpoint(&r.languages, &r.resource),
            any_lang_endpoint => patterns::any_lang_endpoint(&r.resource),
            default_endpoint => patterns::endpoint(&r.resource),
            mount => mount,
            langs => langs,
            res => res,
            page_param => patterns::param("page"),
            per_page_param => patterns::param("per_page"),
            page => patterns::PAGE,
            sizes_alternation => r.page_sizes.iter().map(u64::to_string).collect::<Vec<_>>().join("|"),
            default_size => r.default_page_size,
            segments => patterns::segments(),
            accepts_br => patterns::accepts_coding("br"),
            accepts_gzip => patterns::accepts_coding("gzip"),
            location => quote(&r.api_prefix()),
            error_doc => r.path(&layout::error_file("%{reqenv:FOLIO_ERR}")),
            cache_control => quote(&r.cache_control),
            allow => quote(crate::routes::ALLOW),
            max_age => crate::routes::PREFLIGHT_MAX_AGE,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn render_with(mount: &str) -> String {
        super::super::sample_file(render, mount, "apache.conf")
    }

    #[test]
    fn a_mount_path_reaches_rules_locations_and_error_documents() {
        let c = render_with("/travel");
        assert!(c.contains("\"^/travel/api/\" - [E=FOLIO_ERR:method_not_allowed"));
        assert!(c.contains("<Location \"/travel/api/\">"));
        assert!(c.contains("ErrorDocument 404 /travel/api/errors/%{reqenv:FOLIO_ERR}.json"));
        assert!(c.contains("RewriteRule \"^/travel(/.*)?$\" \"/srv/site/output$1\" [L]"));
    }

    #[test]
    fn escaping_keeps_regexps_and_substitutions_literal() {
        assert_eq!(re("a.b/c"), "a\\.b/c");
        assert_eq!(re("a\"b"), "a\\\"b");
        assert_eq!(sub("/srv/50%$x"), "/srv/50\\%\\$x");
        assert_eq!(quote("a\"b"), "\"a\\\"b\"");
    }
}
