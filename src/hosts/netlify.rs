//! The netlify target: `output/_redirects` and `output/_headers`, read by Netlify from the
//! root of the published folder. `_redirects` turns the two query endpoints of SPEC §1 into
//! rewrites to the page files, with one block of rules per language (and one for the
//! unprefixed default language) that grows with the page sizes but never with the pages:
//! the page number is a `:page` capture pasted into the file name. `_headers` gives every
//! response under `{mount}/api/` its CORS, Vary, Cache-Control and Content-Type.
//!
//! What Netlify's rule language cannot say, and so the deviations this target has (the
//! tests pin them; README's host table lists them):
//! - no regular expressions: a page value is not checked against `^[1-9][0-9]{0,8}$`; a
//!   value that names no file (`abc`, `02`, a page past the last) ends in Netlify's own 404,
//!   not in `invalid_page` (400) or `page_not_found` (404 with our document);
//! - no method conditions: no 405 `method_not_allowed`;
//! - headers follow the path, not the status: error documents get the pages' Content-Type;
//! - no precompressed siblings: Netlify compresses responses itself.

use super::{Dir, HostCtx, HostFile};
use crate::render::ErrorCode;
use crate::routes::Routes;
use std::fmt::Write;

pub fn render(ctx: &HostCtx) -> Vec<HostFile> {
    vec![
        HostFile { dir: Dir::Output, name: "_redirects".into(), contents: redirects(ctx) },
        HostFile { dir: Dir::Output, name: "_headers".into(), contents: headers(ctx.routes) },
    ]
}

/// The `_redirects` file. Netlify applies the first rule whose path matches and whose
/// listed query keys are all present (in any order, other keys ignored); `200!` rewrites
/// even where a file or folder exists at the path (`api/en/attractions/` is a folder), and
/// a placeholder also captures an empty value, so `page=` must be caught before `page=:page`.
fn redirects(ctx: &HostCtx) -> String {
    let r = ctx.routes;
    let bad_size = ctx.error_path(ErrorCode::InvalidPerPage);
    let mut out = String::from(
        "# Written by folio for Netlify: SPEC §1's query endpoints as rewrites to page files.\n\
         # First matching rule wins; an empty value (page=) counts as absent, as in SPEC §1.1.\n",
    );
    // The endpoint path is also the folder of its page files: `/api/en/attractions/10/1.json`.
    let mut variants: Vec<String> =
        r.languages.iter().map(|l| format!("{}/api/{l}/{}", r.mount, r.resource)).collect();
    variants.push(format!("{}/api/{}", r.mount, r.resource));
    for path in &variants {
        let _ = writeln!(out, "\n# {path} (a trailing slash matches too)");
        let file = |size: &str, page: &str| format!("{path}/{size}/{page}.json");
        let d = r.default_size.to_string();
        // Three blocks by the state of `page`: empty, a value, absent. Inside each, the
        // state of `per_page`: empty (= default), a configured size, anything else (400).
        for (page_query, page) in [(" page=", "1"), (" page=:page", ":page"), ("", "1")] {
            let from = format!("{path}{page_query}");
            let _ = writeln!(out, "{from} per_page= {} 200!", file(&d, page));
            for s in &r.sizes {
                let s = s.size.to_string();
                let _ = writeln!(out, "{from} per_page={s} {} 200!", file(&s, page));
            }
            // A `400!` rule: netlify-cli 17's emulator wrongly treats 300..=400 as a
            // redirect (Location header, "Redirecting to" body); the status is still 400.
            let _ = writeln!(out, "{from} per_page=:per_page {bad_size} 400!");
            let _ = writeln!(out, "{from} {} 200!", file(&d, page));
        }
    }
    // Every language not listed above (case-sensitive, as Netlify's path matching is).
    let _ = writeln!(
        out,
        "\n# Any other language\n{m}/api/:lang/{res} {} 404!",
        ctx.error_path(ErrorCode::UnknownLang),
        m = r.mount,
        res = r.resource,
    );
    let not_found = ctx.error_path(ErrorCode::NotFound);
    // `netlify deploy` never uploads dotfiles, but the emulator serves them, and
    // `/api/../.folio-manifest.json` reaches the manifest once the URL is normalised.
    let _ = writeln!(out, "{}/.folio-manifest.json {not_found} 404!", r.mount);
    // Not forced: existing files (path form, errors, index) are served, the rest is 404.
    let _ = writeln!(
        out,
        "# Anything else under /api/ that is no file\n{}/api/* {not_found} 404",
        r.mount
    );
    out
}

/// The `_headers` file: one block for everything under `{mount}/api/`. Netlify picks
/// headers by path, not by status, so there is no separate block for error documents:
/// `/api/errors/*` would also hit the documents served as files (200, JSON).
fn headers(r: &Routes) -> String {
    format!(
        "# Written by folio for Netlify: SPEC §1's headers for every response under /api/.\n\
         {}/api/*\n  Access-Control-Allow-Origin: *\n  Vary: Accept-Encoding\n  \
         Cache-Control: {}\n  Content-Type: application/json; charset=utf-8\n",
        r.mount, r.cache_control
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::Size;

    fn routes(mount: &str, pages: usize) -> Routes {
        Routes {
            origin: String::new(),
            mount: mount.into(),
            resource: "sights".into(),
            languages: vec!["de".into(), "it".into()],
            default_language: "de".into(),
            sizes: vec![Size { size: 25, pages }, Size { size: 5, pages: pages * 5 }],
            default_size: 5,
            cache_control: "max-age=60".into(),
        }
    }

    fn files(r: &Routes) -> (String, String) {
        let ctx = HostCtx { routes: r, root: "/srv/out".into(), listen: "127.0.0.1:1".into() };
        let f = render(&ctx);
        assert!(f.iter().all(|f| f.dir == Dir::Output));
        (f[0].contents.clone(), f[1].contents.clone())
    }

    fn rules(text: &str) -> Vec<&str> {
        text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).collect()
    }

    #[test]
    fn languages_sizes_and_resource_reach_the_rules() {
        let (red, _) = files(&routes("", 3));
        assert!(
            red.contains(
                "/api/it/sights page=:page per_page=25 /api/it/sights/25/:page.json 200!\n"
            )
        );
        assert!(red.contains("/api/sights per_page=5 /api/sights/5/1.json 200!\n"));
        assert!(red.contains("/api/de/sights page=:page /api/de/sights/5/:page.json 200!\n"));
        assert!(red.contains("/api/de/sights page= per_page= /api/de/sights/5/1.json 200!\n"));
        assert!(red.contains("/api/sights /api/sights/5/1.json 200!\n"));
        assert!(red.contains("/api/:lang/sights /api/errors/unknown_lang.json 404!\n"));
        assert!(red.ends_with("/api/* /api/errors/not_found.json 404\n"));
    }

    #[test]
    fn the_rule_count_does_not_grow_with_pages() {
        let few = rules(&files(&routes("", 1)).0).len();
        assert_eq!(few, rules(&files(&routes("", 5000)).0).len());
        // (languages + unprefixed) × (3 × sizes + 9) + 3
        assert_eq!(few, 3 * (3 * 2 + 9) + 3);
    }

    #[test]
    fn every_rule_is_three_or_four_fields_with_a_status() {
        for rule in rules(&files(&routes("", 2)).0) {
            let n = rule.split(' ').count();
            assert!((3..=5).contains(&n), "{rule}");
            assert!(["200!", "400!", "404!", "404"].contains(&rule.rsplit(' ').next().unwrap()));
        }
    }

    #[test]
    fn a_mount_path_prefixes_rules_and_headers() {
        let (red, head) = files(&routes("/travel", 2));
        for rule in rules(&red) {
            assert!(rule.starts_with("/travel/"), "{rule}");
            assert!(rule.split(' ').any(|f| f.starts_with("/travel/api/")), "{rule}");
        }
        assert!(head.contains("\n/travel/api/*\n"));
        assert!(head.contains("  Cache-Control: max-age=60\n"));
    }
}
