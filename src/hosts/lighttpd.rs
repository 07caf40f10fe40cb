//! The lighttpd target: `hosting/lighttpd.conf` and `hosting/folio.lua`. The config runs
//! as is (`lighttpd -D -f hosting/lighttpd.conf`, lighttpd 1.4.6x with mod_magnet from
//! Debian's `lighttpd-modules-lua`) and hands every request to `folio.lua`, which does all
//! of the API's rules: lighttpd's own rewrite and query handling cannot (its decoder keeps the
//! last repeated key, and only mod_magnet can answer with a status and a JSON body).
//!
//! Choices and the traps behind them:
//! - The script reads `request.orig-uri`, the target as received: by the time Lua runs,
//!   lighttpd has already normalised `uri.path`/`uri.query` (`%70age` becomes `page`,
//!   `..%2f` is resolved), which would break the raw-query and clean-path rules.
//! - The emitter does not know the hosting folder's absolute path, and mod_magnet opens
//!   relative script paths against the process's working directory. `include_shell`
//!   runs its command in the folder of the main config file, so `$(pwd)` there yields
//!   the folder holding `lighttpd.conf` and `folio.lua`, whatever the working directory.
//! - lighttpd answers a POST without Content-Length with 411 before any module runs; the
//!   same script, attached at response start too, turns that into the 405 document.
//! - Files go out through lighttpd's own sender (`stat()["http-response-send-file"]`),
//!   which adds ETag/Last-Modified and answers conditional requests. With
//!   `server.follow-symlink = "disable"` it refuses (403) a file reached through a symlink,
//!   which could lead outside the root; the script turns that 403 into `not_found`.
//! - No `server.username` and no `server.errorlog`: the error log would be opened after
//!   setuid, and as a foreground child it logs to stderr.

use std::fmt::Write;

use super::{HostCtx, HostFile};
use crate::routes::{ErrorCode, MAX_PAGE, patterns};

/// A Lua string literal.
fn lua(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            c if (c as u32) < 0x20 || c == '\x7f' => {
                let _ = write!(out, "\\{:03}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A lighttpd config string: only `\"` is an escape there.
fn conf_str(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\\\""))
}

const CONFIG: &str = include_str!("templates/lighttpd.conf.j2");
const SCRIPT: &str = include_str!("templates/folio.lua.j2");

fn config(ctx: &HostCtx) -> String {
    let (host, port) = ctx.listen_parts();
    super::fill(
        &[("lighttpd.conf", CONFIG)],
        minijinja::context! {
            root => conf_str(ctx.root.trim_end_matches('/')),
            bind => conf_str(host),
            port => port,
        },
    )
}

/// `folio.lua`: `Map::resolve` in Lua, its settings from the table.
fn script(ctx: &HostCtx) -> String {
    let r = ctx.routes;
    let langs: Vec<String> = r.languages.iter().map(|l| format!("[{}] = true", lua(l))).collect();
    let pages: Vec<String> =
        r.sizes.iter().map(|s| format!("[{}] = {}", lua(&s.size.to_string()), s.pages)).collect();
    let status: Vec<String> =
        ErrorCode::ALL.iter().map(|c| format!("{} = {}", c.code(), c.status())).collect();
    super::fill(
        &[("folio.lua", SCRIPT)],
        minijinja::context! {
            mount => lua(r.mount()),
            root => lua(ctx.root.trim_end_matches('/')),
            resource => lua(&r.resource),
            languages => langs.join(", "),
            pages => pages.join(", "),
            default_size => lua(&r.default_size.to_string()),
            max_page_digits => MAX_PAGE.to_string().len(),
            cache_control => lua(&r.cache_control),
            status => status.join(", "),
            segment => lua(&patterns::lua_segment()),
            allow => lua(crate::routes::ALLOW),
            max_age => crate::routes::PREFLIGHT_MAX_AGE,
        },
    )
}

pub fn render(ctx: &HostCtx) -> Vec<HostFile> {
    vec![
        HostFile::hosting("lighttpd.conf", config(ctx)),
        HostFile::hosting("folio.lua", script(ctx)),
    ]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::Map;

    fn files(mount: &str) -> (String, String) {
        let r =
            Map { cache_control: "public, max-age=\"60\"".into(), ..crate::routes::sample(mount) };
        let ctx = HostCtx { root: "/srv/site/output/".into(), ..HostCtx::sample(&r) };
        let f = render(&ctx);
        use super::super::Dir;
        let names: Vec<(Dir, &str)> = f.iter().map(|f| (f.dir, f.name.as_str())).collect();
        assert_eq!(names, [(Dir::Hosting, "lighttpd.conf"), (Dir::Hosting, "folio.lua")]);
        (f[0].contents.clone(), f[1].contents.clone())
    }

    #[test]
    fn the_config_serves_root_on_listen_through_the_script() {
        let (conf, _) = files("");
        assert!(conf.contains("server.document-root = \"/srv/site/output\"\n"));
        assert!(conf.contains("server.bind = \"127.0.0.1\"\nserver.port = 9000\n"));
        assert!(conf.contains("\"mod_magnet\""));
        assert!(conf.contains("magnet.attract-raw-url-to = ( var.folio_dir + \"/folio.lua\" )"));
        assert!(!conf.contains("server.username"));
    }

    #[test]
    fn table_values_reach_the_script() {
        let (_, lua) = files("/travel");
        assert!(lua.contains("local MOUNT = \"/travel\"\n"));
        assert!(lua.contains("local ROOT = \"/srv/site/output\"\n"));
        assert!(lua.contains("local LANGUAGES = { [\"en\"] = true, [\"pt-br\"] = true }"));
        assert!(lua.contains("local PAGES = { [\"10\"] = 14, [\"25\"] = 6 }"));
        assert!(lua.contains("local DEFAULT_SIZE = \"25\"\n"));
        assert!(lua.contains("local CACHE_CONTROL = \"public, max-age=\\\"60\\\"\"\n"));
        assert!(lua.contains("invalid_per_page = 400") && lua.contains("method_not_allowed = 405"));
        assert!(lua.contains("local SEGMENT = \"^[A-Za-z0-9_-][A-Za-z0-9._-]*$\"\n"));
    }

    #[test]
    fn lua_strings_are_escaped() {
        assert_eq!(lua("a\"b\\c\nd"), "\"a\\\"b\\\\c\\010d\"");
    }
}
