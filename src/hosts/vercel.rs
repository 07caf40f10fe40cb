//! The vercel target: `output/vercel.json` with legacy `routes`, the only Vercel routing
//! form that can give a rewrite a status (`status` on a route), so the error documents
//! are served as files with their 400/404/405. It owns the API's rules for Vercel: the routing
//! table becomes an ordered list of routes, read top to bottom, first terminal match wins:
//! 405 for other methods, then per endpoint (language-prefixed and default) the query
//! rules as `has`/`missing` conditions on `page` and `per_page`, then unknown languages,
//! unclean paths, the filesystem, `not_found`, and the 200 headers in the `hit` phase.
//!
//! OPTIONS comes first: a route with `status: 204` and no `dest` ends routing with its
//! headers (a preflight's, with the requested headers echoed from a `has` group, or an
//! Allow). Validators are Vercel's own: its CDN gives each static file an ETag and
//! answers If-None-Match; there is no Last-Modified to test.
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

use super::{HostCtx, HostFile};
use crate::routes::layout::API;
use crate::routes::{ErrorCode, Map, layout, patterns};

/// Methods answered 405. `methods` is an allow-list with no negation, so this is the list
/// of standard methods other than GET, HEAD and OPTIONS; a non-standard one is not caught.
const OTHER_METHODS: [&str; 6] = ["POST", "PUT", "PATCH", "DELETE", "TRACE", "CONNECT"];

fn header(key: &str, value: Option<&str>) -> Value {
    match value {
        Some(v) => json!({ "type": "header", "key": key, "value": v }),
        None => json!({ "type": "header", "key": key }),
    }
}

/// OPTIONS under the API, before every other route: 204 with no body (a route with a
/// status and no `dest`). A preflight (Origin and Access-Control-Request-Method) echoes
/// the requested headers (a named group of a `has` value) or allows `*`; any other
/// OPTIONS gets an Allow.
fn options(api: &str) -> Vec<Value> {
    let allow = crate::routes::ALLOW;
    let max_age = crate::routes::PREFLIGHT_MAX_AGE.to_string();
    let route = |has: Vec<Value>, headers: Value| {
        let mut r = json!({
            "src": format!("{api}.*$"), "caseSensitive": true, "methods": ["OPTIONS"],
            "status": 204, "headers": headers,
        });
        if !has.is_empty() {
            r["has"] = json!(has);
        }
        r
    };
    let preflight = |allow_headers: &str| {
        json!({
            "Access-Control-Allow-Origin": "*",
            "Access-Control-Allow-Methods": allow,
            "Access-Control-Allow-Headers": allow_headers,
            "Access-Control-Max-Age": max_age,
        })
    };
    let asked = [header("Origin", None), header("Access-Control-Request-Method", None)];
    let mut echo = asked.to_vec();
    echo.push(header("Access-Control-Request-Headers", Some("(?<requested>[\\s\\S]+)")));
    vec![
        route(echo, preflight("$requested")),
        route(asked.to_vec(), preflight("*")),
        route(vec![], json!({ "Access-Control-Allow-Origin": "*", "Allow": allow })),
    ]
}

pub fn render(_ctx: &HostCtx, map: &Map) -> Vec<HostFile> {
    let config = json!({ "routes": routes(map) });
    let mut contents = serde_json::to_string_pretty(&config).expect("serializes");
    contents.push('\n');
    vec![HostFile::output("vercel.json", contents)]
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
        "Content-Type": crate::routes::PROBLEM_JSON,
        "Access-Control-Allow-Origin": "*",
    });
    if code == ErrorCode::MethodNotAllowed {
        headers["Allow"] = json!(crate::routes::ALLOW);
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
fn endpoint(r: &Map, src: &str, base: &str) -> Vec<Value> {
    let page = patterns::PAGE;
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
    if let Some(d) = r.sizes.iter().find(|s| s.size == r.shape.default_page_size) {
        cases.push((d.size, d.pages, vec![], vec![query("per_page", None)]));
    }
    for (size, pages, has, missing) in cases {
        // No page: page 1. A page in 1..=pages: that page (validity was checked above).
        let mut no_page = missing.clone();
        no_page.push(query("page", None));
        out.push(json!({
            "src": src, "caseSensitive": true, "dest": layout::page_file(base, size, 1),
            "has": has, "missing": no_page,
        }));
        let mut in_range = has;
        in_range.push(query("page", Some(format!("(?<page>{})", patterns::page_numbers(pages)))));
        out.push(json!({
            "src": src, "caseSensitive": true, "dest": layout::page_file(base, size, "$page"),
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

fn routes(r: &Map) -> Vec<Value> {
    let m = patterns::literal(r.mount());
    let api_dir = patterns::literal(API);
    let res = patterns::literal(&r.shape.resource);
    let api = format!("^{m}/{api_dir}");
    let langs = patterns::one_of(&r.shape.languages);
    let mut out = Vec::new();

    // A dot segment (`..`, `%2e`) names another path: no URL of the API, before the method.
    let dot = patterns::DOT_SEGMENT.trim_end_matches("(?:/|\\?|$)");
    out.push(error(&format!("{api}(?:.*/)?{}(?:/.*)?$", &dot[1..]), ErrorCode::NotFound));
    out.extend(options(&api));
    let mut not_allowed = error(&format!("{api}.*$"), ErrorCode::MethodNotAllowed);
    not_allowed["methods"] = json!(OTHER_METHODS);
    out.push(not_allowed);
    out.extend(endpoint(
        r,
        &format!("{api}(?<lang>{langs})/{res}/?$"),
        &format!("/{}", layout::endpoint(Some("$lang"), &r.shape.resource)),
    ));
    let unprefixed = format!("/{}", layout::endpoint(None, &r.shape.resource));
    out.extend(endpoint(r, &format!("{api}{res}/?$"), &unprefixed));
    out.push(error(&format!("{api}[^/]+/{res}/?$"), ErrorCode::UnknownLang));
    // No empty segment, dot first (., .., dotfiles) or escaped character: no listing, no
    // hidden file, nothing a server might decode into another path.
    let clean = patterns::segments();
    out.push(error(&format!("{api}(?!{clean}$).*$"), ErrorCode::NotFound));
    if !r.mount().is_empty() {
        // The files sit at the deployment root: strip the mount before the filesystem.
        out.push(json!({
            "src": format!("^{m}/({api_dir}.*)$"), "caseSensitive": true, "dest": "/$1", "continue": true,
        }));
    }
    out.push(json!({ "handle": "filesystem" }));
    // From here on the mount is stripped: the API's files as the deployment holds them.
    let files = format!("^/{api_dir}.*$");
    out.push(error(&files, ErrorCode::NotFound));
    out.push(json!({ "handle": "hit" }));
    out.push(json!({
        "src": files,
        "caseSensitive": true,
        "headers": {
            "Content-Type": crate::routes::JSON.content_type,
            "Cache-Control": r.shape.cache_control,
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

    fn config(mount: &str) -> Value {
        let r = crate::routes::sample(mount);
        let files = render(&HostCtx::sample(&r.shape), &r);
        assert_eq!(files.len(), 1);
        assert_eq!(
            (files[0].dir, files[0].name.as_str()),
            (super::super::Dir::Output, "vercel.json")
        );
        serde_json::from_str(&files[0].contents).unwrap()
    }

    #[test]
    fn languages_sizes_and_defaults_reach_the_routes() {
        let c = config("");
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
        let c = config("/travel");
        let routes = c["routes"].as_array().unwrap();
        assert_eq!(routes[0]["src"], "^/travel/api/(?:.*/)?(?:\\.|%2[eE]){1,2}(?:/.*)?$");
        assert_eq!(routes[0]["status"], 404);
        assert_eq!(routes[1]["src"], "^/travel/api/.*$");
        assert_eq!(routes[1]["status"], 204);
        assert!(routes.iter().any(|r| r["src"] == "^/travel/api/.*$" && r["status"] == 405));
        assert!(routes.iter().any(|r| r["src"] == "^/travel/(api/.*)$" && r["dest"] == "/$1"));
        // Files and error documents are addressed from the deployment root.
        assert!(routes.iter().all(|r| !r["dest"].to_string().contains("travel")));
    }
}
