//! The vercel target: `output/vercel.json` with legacy `routes`, the only Vercel routing
//! form that can give a rewrite a status (`status` on a route), so the error documents
//! are served as files with their 400/404/405. It owns SPEC §1 for Vercel: the routing
//! table becomes an ordered list of routes, read top to bottom, first terminal match wins:
//! 405 for other methods, then per endpoint (language-prefixed and default) the query
//! rules as `has`/`missing` conditions on `page` and `per_page`, then unknown languages,
//! unclean paths, the filesystem, `not_found`, and the 200 headers in the `hit` phase.
//!
//! Traps met, each handled below:
//! - `routes` cannot be mixed with `rewrites`/`headers`/`redirects`/`cleanUrls`, so the
//!   headers are routes too. Route headers are first-set-wins across the list, so error
//!   routes set their own Content-Type and the page headers live in `handle: "hit"`,
//!   which runs only when a file was matched and never overrides an earlier header.
//! - `src` is matched case-insensitively unless `caseSensitive` is set, and languages are
//!   case-sensitive (`/api/EN/...` is `unknown_lang`): every route sets it.
//! - `src` sees the path only. The query is reachable only through `has`/`missing`, which
//!   see Vercel's parsed query: values percent-decoded, a repeated key read as its last
//!   value, an empty value as no value. So §1.1's raw, first-wins reading cannot be
//!   expressed; empty = absent can (`missing` matches an empty value too).
//! - Page ranges are regexes (`1..=14` is `[1-9]|1[0-4]`), one route per size, not one
//!   route per page, so the route count does not grow with the data.
//! - `$1` in a `dest` may be taken by a `has` regex's own group: only named groups here.
//! - vercel.json sits at the deployment root (`output/`), so a mount path is matched in
//!   `src` and stripped before the filesystem, and every `dest` is mount-free.

use serde_json::{Value, json};

use super::{Dir, HostCtx, HostFile};
use crate::render::ErrorCode;
use crate::routes::{PAGE_PATTERN, Routes};

/// Methods answered 405. `methods` is an allow-list with no negation, so this is the list
/// of standard methods other than GET and HEAD; a non-standard one is not caught.
const OTHER_METHODS: [&str; 7] = ["POST", "PUT", "PATCH", "DELETE", "OPTIONS", "TRACE", "CONNECT"];

/// A path segment that may name a file (`routes::clean_segment` as a regex).
const SEGMENT: &str = "[A-Za-z0-9_-][A-Za-z0-9._-]*";

pub fn render(ctx: &HostCtx) -> Vec<HostFile> {
    let config = json!({ "routes": routes(ctx.routes) });
    let mut contents = serde_json::to_string_pretty(&config).expect("serializes");
    contents.push('\n');
    vec![HostFile { dir: Dir::Output, name: "vercel.json".into(), contents }]
}

/// `s` with every regex metacharacter escaped.
fn esc(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\^$.|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// A regex (no anchors, no capturing groups) for the decimal numbers `1..=n` written
/// without leading zeros: every shorter length, then the numbers of n's length up to n,
/// digit by digit (`137` gives `[1-9]|[1-9][0-9]|1[0-2][0-9]|13[0-7]`).
pub fn range_regex(n: usize) -> String {
    fn class(lo: u32, hi: u32) -> String {
        if lo == hi { lo.to_string() } else { format!("[{lo}-{hi}]") }
    }
    fn any(k: usize) -> String {
        match k {
            0 => String::new(),
            1 => "[0-9]".into(),
            k => format!("[0-9]{{{k}}}"),
        }
    }
    assert!(n >= 1, "a listing has at least one page");
    let digits: Vec<u32> = n.to_string().chars().map(|c| c.to_digit(10).unwrap()).collect();
    let len = digits.len();
    let mut alts: Vec<String> = (1..len).map(|d| format!("[1-9]{}", any(d - 1))).collect();
    for i in 0..len {
        let lo = if i == 0 { 1 } else { 0 };
        let last = i + 1 == len;
        // The digit at i runs below n's digit (the rest free), or up to it on the last one.
        let hi = if last { Some(digits[i]) } else { digits[i].checked_sub(1) };
        if let Some(hi) = hi.filter(|&hi| hi >= lo) {
            let prefix: String = digits[..i].iter().map(u32::to_string).collect();
            alts.push(format!("{prefix}{}{}", class(lo, hi), any(len - 1 - i)));
        }
    }
    alts.join("|")
}

fn query(key: &str, value: Option<String>) -> Value {
    match value {
        Some(v) => json!({ "type": "query", "key": key, "value": v }),
        None => json!({ "type": "query", "key": key }),
    }
}

/// A terminal route answering `code` with its document and status.
fn error(src: &str, code: ErrorCode) -> Value {
    let mut headers = json!({
        "Content-Type": "application/problem+json",
        "Access-Control-Allow-Origin": "*",
    });
    if code == ErrorCode::MethodNotAllowed {
        headers["Allow"] = json!("GET, HEAD");
    }
    json!({
        "src": src,
        "caseSensitive": true,
        "status": code.status(),
        "dest": format!("/{}", code.file()),
        "headers": headers,
    })
}

/// The routes of one endpoint: `src` matches its path, `base` is its page folder (without
/// the size), possibly holding `$lang` from `src`.
fn endpoint(r: &Routes, src: &str, base: &str) -> Vec<Value> {
    let page = PAGE_PATTERN.trim_start_matches('^').trim_end_matches('$');
    let sizes: Vec<String> = r.sizes.iter().map(|s| s.size.to_string()).collect();
    let when = |code: ErrorCode, has: Value| {
        let mut route = error(src, code);
        route["has"] = json!([has]);
        route
    };
    // A present, non-empty value that is not a valid one (`[\s\S]`: newlines included).
    let mut out = vec![
        when(ErrorCode::InvalidPage, query("page", Some(format!("(?!{page}$)[\\s\\S]*")))),
        when(
            ErrorCode::InvalidPerPage,
            query("per_page", Some(format!("(?!(?:{})$)[\\s\\S]*", sizes.join("|")))),
        ),
    ];
    // Each size by its per_page value; the default size also when per_page is absent.
    let mut cases: Vec<(u64, usize, Vec<Value>, Vec<Value>)> = r
        .sizes
        .iter()
        .map(|s| (s.size, s.pages, vec![query("per_page", Some(s.size.to_string()))], vec![]))
        .collect();
    if let Some(d) = r.sizes.iter().find(|s| s.size == r.default_size) {
        cases.push((d.size, d.pages, vec![], vec![query("per_page", None)]));
    }
    for (size, pages, has, missing) in cases {
        // No page: page 1. A page in 1..=pages: that page (validity was checked above).
        let mut no_page = missing.clone();
        no_page.push(query("page", None));
        out.push(json!({
            "src": src, "caseSensitive": true, "dest": format!("{base}/{size}/1.json"),
            "has": has, "missing": no_page,
        }));
        let mut in_range = has;
        in_range.push(query("page", Some(format!("(?<page>{})", range_regex(pages)))));
        out.push(json!({
            "src": src, "caseSensitive": true, "dest": format!("{base}/{size}/$page.json"),
            "has": in_range, "missing": missing,
        }));
    }
    // What is left has a valid page past the last one of a valid size.
    out.push(error(src, ErrorCode::PageNotFound));
    for route in &mut out {
        // Empty condition lists say nothing: leave them out.
        let obj = route.as_object_mut().expect("routes are objects");
        obj.retain(|k, v| {
            !((k == "has" || k == "missing") && v.as_array().is_some_and(Vec::is_empty))
        });
    }
    out
}

fn routes(r: &Routes) -> Vec<Value> {
    let m = esc(&r.mount);
    let res = esc(&r.resource);
    let api = format!("^{m}/api/");
    let langs: Vec<String> = r.languages.iter().map(|l| esc(l)).collect();
    let mut out = Vec::new();

    let mut not_allowed = error(&format!("{api}.*$"), ErrorCode::MethodNotAllowed);
    not_allowed["methods"] = json!(OTHER_METHODS);
    out.push(not_allowed);
    out.extend(endpoint(
        r,
        &format!("{api}(?<lang>{})/{res}/?$", langs.join("|")),
        &format!("/api/$lang/{}", r.resource),
    ));
    out.extend(endpoint(r, &format!("{api}{res}/?$"), &format!("/api/{}", r.resource)));
    out.push(error(&format!("{api}[^/]+/{res}/?$"), ErrorCode::UnknownLang));
    // No empty segment, dot first (., .., dotfiles) or escaped character: no listing, no
    // hidden file, nothing a server might decode into another path.
    out.push(error(&format!("{api}(?!(?:{SEGMENT}/)*{SEGMENT}$).*$"), ErrorCode::NotFound));
    if !r.mount.is_empty() {
        // The files sit at the deployment root: strip the mount before the filesystem.
        out.push(json!({
            "src": format!("^{m}/(api/.*)$"), "caseSensitive": true, "dest": "/$1", "continue": true,
        }));
    }
    out.push(json!({ "handle": "filesystem" }));
    out.push(error("^/api/.*$", ErrorCode::NotFound));
    out.push(json!({ "handle": "hit" }));
    out.push(json!({
        "src": "^/api/.*$",
        "caseSensitive": true,
        "headers": {
            "Content-Type": "application/json; charset=utf-8",
            "Cache-Control": r.cache_control,
            "Vary": "Accept-Encoding",
            "Access-Control-Allow-Origin": "*",
        },
        "continue": true,
    }));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn routes(mount: &str) -> Routes {
        crate::routes::sample(mount)
    }

    fn config(r: &Routes) -> Value {
        let ctx = HostCtx { routes: r, root: "/srv/x".into(), listen: "127.0.0.1:1".into() };
        let files = render(&ctx);
        assert_eq!(files.len(), 1);
        assert_eq!((files[0].dir, files[0].name.as_str()), (Dir::Output, "vercel.json"));
        serde_json::from_str(&files[0].contents).unwrap()
    }

    #[test]
    fn page_ranges_are_exact() {
        assert_eq!(range_regex(1), "1");
        assert_eq!(range_regex(7), "[1-7]");
        assert_eq!(range_regex(10), "[1-9]|10");
        assert_eq!(range_regex(14), "[1-9]|1[0-4]");
        assert_eq!(range_regex(100), "[1-9]|[1-9][0-9]|100");
        assert_eq!(range_regex(137), "[1-9]|[1-9][0-9]|1[0-2][0-9]|13[0-7]");
        assert_eq!(range_regex(2000), "[1-9]|[1-9][0-9]|[1-9][0-9]{2}|1[0-9]{3}|2000");
    }

    /// Matches `s` against the small regex subset `range_regex` writes: alternatives of
    /// digits, `[a-b]` and `[0-9]{k}`.
    fn full_match(regex: &str, s: &str) -> bool {
        regex.split('|').any(|alt| {
            let (mut pos, mut at) = (Vec::new(), alt.as_bytes());
            while let Some(&c) = at.first() {
                let (lo, hi, rest) =
                    if c == b'[' { (at[1], at[3], &at[5..]) } else { (c, c, &at[1..]) };
                let (times, rest) = match rest.strip_prefix(b"{") {
                    Some(r) => {
                        let close = r.iter().position(|&b| b == b'}').unwrap();
                        (
                            std::str::from_utf8(&r[..close]).unwrap().parse().unwrap(),
                            &r[close + 1..],
                        )
                    }
                    None => (1, rest),
                };
                pos.extend(std::iter::repeat_n((lo, hi), times));
                at = rest;
            }
            pos.len() == s.len() && s.bytes().zip(&pos).all(|(b, &(lo, hi))| lo <= b && b <= hi)
        })
    }

    #[test]
    fn page_ranges_match_exactly_one_to_n() {
        for n in [1, 2, 9, 10, 11, 19, 20, 99, 100, 101, 109, 110, 190, 999, 1000, 1234, 9000] {
            let re = range_regex(n);
            for v in 0..=n + 120 {
                assert_eq!(
                    full_match(&re, &v.to_string()),
                    (1..=n).contains(&v),
                    "{n}: {v} in {re}"
                );
            }
            assert!(!full_match(&re, "01") && !full_match(&re, ""), "{re}");
        }
    }

    #[test]
    fn languages_sizes_and_defaults_reach_the_routes() {
        let c = config(&routes(""));
        let text = c.to_string();
        assert!(text.contains(r#""src":"^/api/(?<lang>en|pt-br)/sights/?$""#), "{text}");
        assert!(text.contains(r#""dest":"/api/$lang/sights/10/$page.json""#));
        assert!(text.contains(r#""value":"(?<page>[1-9]|1[0-4])""#));
        assert!(text.contains(r#""value":"(?!(?:10|25)$)[\\s\\S]*""#));
        assert!(text.contains(r#""Cache-Control":"public, max-age=60""#));
        // The default size (25) also answers requests without per_page.
        let routes = c["routes"].as_array().unwrap();
        assert!(routes.iter().any(|r| r["dest"] == "/api/sights/25/1.json"
            && r["missing"].to_string().contains("per_page")
            && r.get("has").is_none()));
        assert!(routes.iter().all(|r| r.get("handle").is_some() || r["caseSensitive"] == true));
    }

    #[test]
    fn a_mount_path_is_matched_and_stripped() {
        let c = config(&routes("/travel"));
        let routes = c["routes"].as_array().unwrap();
        assert_eq!(routes[0]["src"], "^/travel/api/.*$");
        assert_eq!(routes[0]["status"], 405);
        assert!(routes.iter().any(|r| r["src"] == "^/travel/(api/.*)$" && r["dest"] == "/$1"));
        // Files and error documents are addressed from the deployment root.
        assert!(routes.iter().all(|r| !r["dest"].to_string().contains("travel")));
    }
}
