//! The nginx target: `hosting/nginx.conf`, the `map`s and the one `server {}` that serve
//! SPEC §1 from `[hosting] root`. It is not a whole nginx configuration: it is included
//! inside `http {}` of a main config like Debian's (see [`MAIN_CONFIG`], which the README
//! shows); it needs no module beyond nginx's own.
//!
//! How the rules map onto nginx (every value comes from the routing table):
//! - The query is parsed from `$args` with `map` regexes, not `$arg_page`: `$arg_*` cannot
//!   tell `page=` from no `page`, and a regex's leftmost match is the first occurrence.
//! - Page ranges are regexes per size (`[1-6]|7` for 7 pages), so past-the-end pages are
//!   `page_not_found` without any file lookup.
//! - Each error code has an internal status (470...) that `error_page 47x =400 ...` turns
//!   into the real status with the error document as body; the documents are served from
//!   an `internal` location so that they get `application/problem+json`, while the same
//!   files requested by their public path stay `application/json`.
//! - nginx decodes `%2F` and resolves `..` before choosing a location, so the path rules
//!   (no dot segments, no `%`, no empty segments) are checked on the raw `$request_uri`.
//! - `add_header` without `always` reaches only 2xx/3xx: CORS is `always`, Cache-Control
//!   and Vary are not (errors keep nginx's own caching, as SPEC §1.1 says).
//! - Precompressed siblings are chosen by `try_files` from a `map` of Accept-Encoding
//!   built from the one rule all targets share (`routes::accepts_coding_pattern`), not by
//!   `gzip_static`/`brotli_static`: those parse the header each their own way
//!   (`brotli_static` reads `br;Q=0` as a yes).
//! - `disable_symlinks on`: a symlink inside the root could lead outside it.

use std::fmt::Write;

use super::{Dir, HostCtx, HostFile};
use crate::render::ErrorCode;

/// The main config the emitted file is written for (`DIR` is the hosting folder); shown in
/// the README. Tests run it with `nginx -p DIR -c DIR/main.conf -g 'daemon off; ...'`.
pub const MAIN_CONFIG: &str = "\
events {}
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    include DIR/nginx.conf;
}
";

/// Every variable and map is prefixed so that the file can share `http {}` with others.
const P: &str = "folio";

/// The internal status that stands for `code` until `error_page` rewrites it.
fn internal_status(code: ErrorCode) -> u16 {
    470 + ErrorCode::ALL.iter().position(|&c| c == code).expect("listed") as u16
}

/// A quoted nginx string: nginx unescapes `\\` and `\"` inside quotes, nothing else.
fn q(s: &str) -> String {
    format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\""))
}

/// `s` as a literal inside a PCRE regex.
fn re(s: &str) -> String {
    super::backslash(s, super::REGEX_SPECIAL)
}

/// A regex alternation matching exactly the decimal numbers 1..=n (no leading zeros):
/// every shorter length, then, digit by digit, the numbers that share n's prefix and are
/// smaller at that digit, then n itself. 7 → `[1-6]|7`, 14 → `[1-9]|1[0-3]|14`.
fn range_regex(n: usize) -> String {
    let s = n.to_string();
    let d = s.len();
    let any = |k: usize| match k {
        0 => String::new(),
        1 => "[0-9]".to_string(),
        k => format!("[0-9]{{{k}}}"),
    };
    let class = |lo: u8, hi: u8| match hi - lo {
        0 => (lo as char).to_string(),
        _ => format!("[{}-{}]", lo as char, hi as char),
    };
    let mut alts = Vec::new();
    match d {
        1 => {}
        2 => alts.push("[1-9]".to_string()),
        _ => alts.push(format!("[1-9][0-9]{{0,{}}}", d - 2)),
    }
    for (i, c) in s.bytes().enumerate() {
        let lo = if i == 0 { b'1' } else { b'0' };
        if c > lo {
            alts.push(format!("{}{}{}", &s[..i], class(lo, c - 1), any(d - i - 1)));
        }
    }
    alts.push(s);
    alts.join("|")
}

/// The `map`s: raw query values, their validation, and the page file or error they give.
fn maps(ctx: &HostCtx, out: &mut String) {
    let r = ctx.routes;
    let api = format!("^{}/api/", re(&r.mount));
    for (key, var) in [("page", "page_arg"), ("per_page", "per_page_arg")] {
        // Leftmost match = first occurrence; `$1` is empty for `key=` and bare `key`.
        let pat = format!("~(?:^|&){}(?:=([^&]*))?(?:&|$)", re(key));
        let _ =
            writeln!(out, "map $args ${P}_{var} {{\n    {} $1;\n    default \"\";\n}}", q(&pat));
    }
    let _ = writeln!(
        out,
        "map ${P}_page_arg ${P}_page {{\n    \"\" 1;\n    {} ${P}_page_arg;\n    default \"-\";\n}}",
        q(&format!("~{}", crate::routes::PAGE_PATTERN))
    );
    let _ = writeln!(out, "map ${P}_per_page_arg ${P}_size {{\n    \"\" {};", r.default_size);
    for s in &r.sizes {
        let _ = writeln!(out, "    {} {};", q(&s.size.to_string()), s.size);
    }
    let _ = writeln!(out, "    default \"-\";\n}}");
    // "page size" → "size/page", or the error; regexes are tried in order (precedence).
    let _ = writeln!(out, "map \"${P}_page ${P}_size\" ${P}_query {{");
    let _ = writeln!(out, "    \"~^- \" {};", ErrorCode::InvalidPage.code());
    let _ = writeln!(out, "    \"~ -$\" {};", ErrorCode::InvalidPerPage.code());
    for s in &r.sizes {
        let pat = format!("~^({}) {}$", range_regex(s.pages), s.size);
        let _ = writeln!(out, "    {} \"{}/$1\";", q(&pat), s.size);
    }
    let _ = writeln!(out, "    default {};\n}}", ErrorCode::PageNotFound.code());
    // The language from the raw target (case-sensitive, undecoded): "" = the unprefixed
    // endpoint, "xx/" = a configured language, "-" = unknown.
    let res = re(&r.resource);
    let langs: Vec<String> = r.languages.iter().map(|l| re(l)).collect();
    let _ = writeln!(out, "map $request_uri ${P}_lang {{");
    let _ = writeln!(out, "    {} \"\";", q(&format!("~{api}{res}/?(?:\\?|$)")));
    let _ = writeln!(
        out,
        "    {} \"$1/\";",
        q(&format!("~{api}({})/{res}/?(?:\\?|$)", langs.join("|")))
    );
    let _ = writeln!(out, "    default \"-\";\n}}");
    // A file path is served only when every raw segment is clean (routes::clean_segment).
    let seg = "[A-Za-z0-9_-][A-Za-z0-9._-]*";
    let _ = writeln!(
        out,
        "map $request_uri ${P}_clean {{\n    {} 1;\n    default 0;\n}}",
        q(&format!("~{api}(?:{seg}/)*{seg}(?:\\?|$)"))
    );
    let _ =
        writeln!(out, "map $status ${P}_allow {{\n    405 \"GET, HEAD\";\n    default \"\";\n}}");
    // Precompressed siblings: the same Accept-Encoding rule as every target (the gzip_static
    // and brotli_static modules each parse the header their own way: brotli_static takes
    // `br;Q=0` for a yes), then the coding of the file try_files picked. A coding not
    // accepted gives "/": try_files reads `x.json/` as a folder, which never exists.
    for (coding, ext) in [("br", "br"), ("gzip", "gz")] {
        let pat = crate::routes::accepts_coding_pattern(coding);
        let _ = writeln!(
            out,
            "map $http_accept_encoding ${P}_{ext} {{\n    {} \".{ext}\";\n    default \"/\";\n}}",
            q(&format!("~*{pat}"))
        );
    }
    let _ = writeln!(
        out,
        "map $uri ${P}_encoding {{\n    \"~\\.json\\.br$\" br;\n    \"~\\.json\\.gz$\" gzip;\n    default \"\";\n}}"
    );
}

/// The types of the files folio serves under `/api/`: a sibling is its page's JSON.
const TYPES: &str = "        types {\n            application/json json br gz;\n            text/html html;\n            text/javascript js;\n            text/css css;\n            text/plain txt md;\n            image/png png;\n            image/svg+xml svg;\n        }";

/// Headers of every 200 under `/api/`, and the method rule every api location starts with.
fn page_headers(ctx: &HostCtx, out: &mut String) {
    let _ = writeln!(out, "{TYPES}");
    let _ = writeln!(out, "        add_header Access-Control-Allow-Origin \"*\" always;");
    let _ = writeln!(out, "        add_header Cache-Control {};", q(&ctx.routes.cache_control));
    let _ = writeln!(out, "        add_header Vary \"Accept-Encoding\";");
    let _ = writeln!(out, "        add_header Content-Encoding ${P}_encoding;");
    let _ = writeln!(
        out,
        "        if ($request_method !~ ^(?:GET|HEAD)$) {{ return {}; }}",
        internal_status(ErrorCode::MethodNotAllowed)
    );
}

fn server(ctx: &HostCtx, out: &mut String) {
    let r = ctx.routes;
    let m = &r.mount;
    let root = ctx.root.trim_end_matches('/');
    let errors = format!("{m}/api/.folio-error/");
    let _ = writeln!(out, "server {{\n    listen {};", ctx.listen);
    let _ = writeln!(out, "    charset utf-8;\n    charset_types application/json;");
    let _ = writeln!(
        out,
        "    # Nothing is reached through a symlink (it could lead outside the root)."
    );
    let _ = writeln!(out, "    disable_symlinks on;");
    for code in ErrorCode::ALL {
        let extra = if code == ErrorCode::NotFound { "404 " } else { "" };
        let _ = writeln!(
            out,
            "    error_page {extra}{} ={} {};",
            internal_status(code),
            code.status(),
            q(&format!("{errors}{}.json", code.code()))
        );
    }
    let _ = writeln!(out, "\n    # Nothing outside {{mount}}/api/ is served.");
    let _ = writeln!(out, "    location / {{\n        return 404;\n    }}");
    let _ = writeln!(
        out,
        "\n    # Files by their path; try_files tests files only, so no directory redirects."
    );
    let _ = writeln!(
        out,
        "    location {} {{\n        alias {};",
        q(&format!("{m}/api/")),
        q(&format!("{root}/api/"))
    );
    page_headers(ctx, out);
    let nf = internal_status(ErrorCode::NotFound);
    let _ = writeln!(
        out,
        "        if (${P}_clean = 0) {{ return {nf}; }}\n        try_files $uri${P}_br $uri${P}_gz $uri ={nf};\n    }}"
    );
    let _ = writeln!(out, "\n    # The endpoints: the maps above decide the file or the error.");
    let ep = format!("^{}/api/(?:[^/]+/)?{}/?$", re(m), re(&r.resource));
    let _ = writeln!(out, "    location ~ {} {{\n        root {};", q(&ep), q(root));
    page_headers(ctx, out);
    let _ = writeln!(
        out,
        "        if (${P}_lang = \"-\") {{ return {}; }}",
        internal_status(ErrorCode::UnknownLang)
    );
    for code in [ErrorCode::InvalidPage, ErrorCode::InvalidPerPage, ErrorCode::PageNotFound] {
        let _ = writeln!(
            out,
            "        if (${P}_query = {}) {{ return {}; }}",
            code.code(),
            internal_status(code)
        );
    }
    // `root` + a file without the mount: the file path is built from checked values only.
    let file = format!("/api/${{{P}_lang}}{}/${P}_query.json", r.resource);
    let _ = writeln!(
        out,
        "        try_files {file}${P}_br {file}${P}_gz {file} ={};\n    }}",
        internal_status(ErrorCode::PageNotFound)
    );
    let _ = writeln!(out, "\n    # The error documents, reachable only through error_page.");
    let _ = writeln!(out, "    location ^~ {} {{\n        internal;", q(&errors));
    let _ = writeln!(out, "        alias {};", q(&format!("{root}/api/errors/")));
    let _ = writeln!(out, "        types {{ }}\n        default_type application/problem+json;");
    let _ = writeln!(out, "        add_header Access-Control-Allow-Origin \"*\" always;");
    let _ = writeln!(out, "        add_header Allow ${P}_allow always;\n    }}\n}}");
}

pub fn render(ctx: &HostCtx) -> Vec<HostFile> {
    let mut out = String::from(
        "# folio: SPEC §1 for nginx. Generated by `folio build`; edits are overwritten.\n\
         # Include it inside http {} of a main config (no extra module needed), like:\n",
    );
    for line in MAIN_CONFIG.lines() {
        let _ = writeln!(out, "#   {line}");
    }
    out.push('\n');
    maps(ctx, &mut out);
    out.push('\n');
    server(ctx, &mut out);
    vec![HostFile { dir: Dir::Hosting, name: "nginx.conf".into(), contents: out }]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::Routes;

    fn routes(mount: &str) -> Routes {
        crate::routes::sample(mount)
    }

    fn conf(mount: &str) -> String {
        let r = routes(mount);
        let ctx = HostCtx {
            routes: &r,
            root: "/srv/site/output".into(),
            listen: "127.0.0.1:9000".into(),
        };
        let files = render(&ctx);
        assert_eq!(files.len(), 1);
        assert_eq!((files[0].dir, files[0].name.as_str()), (Dir::Hosting, "nginx.conf"));
        files[0].contents.clone()
    }

    #[test]
    fn page_ranges_are_exact() {
        assert_eq!(range_regex(1), "1");
        assert_eq!(range_regex(7), "[1-6]|7");
        assert_eq!(range_regex(14), "[1-9]|1[0-3]|14");
        assert_eq!(range_regex(100), "[1-9][0-9]{0,1}|100");
        assert_eq!(range_regex(250), "[1-9][0-9]{0,1}|1[0-9]{2}|2[0-4][0-9]|250");
    }

    #[test]
    fn table_values_reach_the_maps() {
        let c = conf("");
        assert!(c.contains(r#""~^/api/(en|pt-br)/sights/?(?:\\?|$)" "$1/";"#), "{c}");
        assert!(c.contains("\"\" 25;"), "default size");
        assert!(c.contains(r#""~^([1-9]|1[0-3]|14) 10$" "10/$1";"#));
        assert!(c.contains(r#""~^([1-5]|6) 25$" "25/$1";"#));
        assert!(c.contains("add_header Cache-Control \"public, max-age=60\";"));
        assert!(c.contains("listen 127.0.0.1:9000;"));
        assert!(c.contains("try_files /api/${folio_lang}sights/$folio_query.json$folio_br /api/${folio_lang}sights/$folio_query.json$folio_gz /api/${folio_lang}sights/$folio_query.json =473;"), "{c}");
    }

    #[test]
    fn a_mount_path_prefixes_locations_and_error_pages() {
        let c = conf("/travel");
        assert!(
            c.contains("location \"/travel/api/\" {\n        alias \"/srv/site/output/api/\";")
        );
        assert!(c.contains(r#"location ~ "^/travel/api/(?:[^/]+/)?sights/?$""#), "{c}");
        assert!(c.contains("error_page 472 =404 \"/travel/api/.folio-error/unknown_lang.json\";"));
        assert!(c.contains("error_page 404 474 =404 \"/travel/api/.folio-error/not_found.json\";"));
        assert!(c.contains("location ^~ \"/travel/api/.folio-error/\" {"));
    }
}
