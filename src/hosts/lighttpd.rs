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
use crate::routes::patterns;

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

/// A JSON value as a Lua literal: objects become tables keyed by string, arrays tables
/// indexed from 1, null `nil`. The map's table reaches the script this way.
fn lua_value(v: &serde_json::Value) -> String {
    use serde_json::Value;
    match v {
        Value::Null => "nil".into(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => n.to_string(),
        Value::String(s) => lua(s),
        Value::Array(items) => {
            let items: Vec<String> = items.iter().map(lua_value).collect();
            format!("{{ {} }}", items.join(", "))
        }
        Value::Object(map) => {
            let entries: Vec<String> =
                map.iter().map(|(k, v)| format!("[{}] = {}", lua(k), lua_value(v))).collect();
            format!("{{ {} }}", entries.join(", "))
        }
    }
}

/// A lighttpd config string: only `\"` is an escape there.
fn conf_str(s: &str) -> String {
    format!("\"{}\"", s.replace('"', "\\\""))
}

const CONFIG: &str = include_str!("templates/lighttpd.conf.j2");
const SCRIPT: &str = include_str!("templates/folio.lua.j2");

fn config(ctx: &HostCtx) -> String {
    let (host, port) = ctx.listen_parts();
    super::emitter::fill(
        &[("lighttpd.conf", CONFIG)],
        minijinja::context! {
            root => conf_str(ctx.root.trim_end_matches('/')),
            bind => conf_str(host),
            port => port,
        },
    )
}

/// `folio.lua`: `Map::resolve` in Lua, over the API's one table ([`routes::table`]), a
/// page past the last found missing.
///
/// [`routes::table`]: crate::routes::table
fn script(ctx: &HostCtx) -> String {
    super::emitter::fill(
        &[("folio.lua", SCRIPT)],
        minijinja::context! {
            table => lua_value(&crate::routes::table(ctx.shape)),
            root => lua(ctx.root.trim_end_matches('/')),
            segment => lua(&patterns::lua_segment()),
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

    fn files(mount: &str) -> (String, String) {
        let mut r = crate::routes::sample(mount);
        r.shape.cache_control = "public, max-age=\"60\"".into();
        let ctx = HostCtx { root: "/srv/site/output/".into(), ..HostCtx::sample(&r.shape) };
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
        let line = lua.lines().find(|l| l.starts_with("local T = ")).unwrap();
        // The API's one table, as a Lua literal.
        let table = crate::routes::table(&crate::routes::sample("/travel").shape);
        let keys: Vec<&String> = table.as_object().unwrap().keys().collect();
        for key in keys {
            assert!(line.contains(&format!("[\"{key}\"] = ")), "{key}: {line}");
        }
        assert!(line.contains(r#"["api"] = "/travel/api/""#), "{line}");
        assert!(line.contains(r#"["languages"] = { "en", "pt-br" }"#), "{line}");
        assert!(line.contains(r#"["sizes"] = { "10", "25" }"#), "{line}");
        assert!(!line.contains("pages") && !line.contains("14"), "no page count: {line}");
        assert!(line.contains(r#"["default_size"] = "25""#), "{line}");
        assert!(line.contains(r#"["cache_control"] = "public, max-age=\"60\"""#), "{line}");
        assert!(line.contains(r#"["method_not_allowed"] = 405"#), "{line}");
        assert!(lua.contains("local ROOT = \"/srv/site/output\"\n"));
        assert!(lua.contains("local SEGMENT = \"^[A-Za-z0-9_-][A-Za-z0-9._-]*$\"\n"));
    }

    #[test]
    fn lua_strings_are_escaped() {
        assert_eq!(lua("a\"b\\c\nd"), "\"a\\\"b\\\\c\\010d\"");
    }
}
