//! The netlify target: `output/_redirects` and `output/_headers`, read by Netlify from the
//! root of the published folder. `_redirects` turns the two query endpoints of the API into
//! rewrites to the page files, with one block of rules per language (and one for the
//! unprefixed default language) that grows with the page sizes but never with the pages:
//! the page number is a `:page` capture pasted into the file name. `_headers` gives every
//! response under `{mount}/api/` its CORS, Vary, Cache-Control and Content-Type.
//!
//! What Netlify's rule language cannot say, and so the deviations this target has (the
//! tests pin them; docs/hosting.md lists them):
//! - no regular expressions: a page value is not checked against `^[1-9][0-9]{0,8}$`; a
//!   value that names no file (`abc`, `02`, a page past the last) ends in Netlify's own 404,
//!   not in `invalid_page` (400) or `page_not_found` (404 with our document);
//! - no method conditions: no 405 `method_not_allowed`;
//! - headers follow the path, not the status: error documents get the pages' Content-Type;
//! - no precompressed siblings: Netlify compresses responses itself;
//! - no OPTIONS answer of its own: the host answers it as it would the path (netlify dev:
//!   200 for a page, 404 for a missing one, 405 for a plain file), so `_headers` gives
//!   every response under the API the preflight headers (Allow-Methods, Allow-Headers
//!   `*, Authorization` since a static list cannot echo the request and `*` alone does not
//!   cover Authorization, Max-Age) and a preflight passes wherever that status is 2xx;
//! - validators are Netlify's: an ETag from the file's bytes, no Last-Modified.

use serde::Serialize;

use super::{HostCtx, HostFile};
use crate::config::Shape;
use crate::routes::{ErrorCode, layout};
const REDIRECTS: &str = include_str!("templates/_redirects.j2");
const HEADERS: &str = include_str!("templates/_headers.j2");

pub fn render(ctx: &HostCtx) -> Vec<HostFile> {
    vec![
        HostFile::output("_redirects", redirects(ctx)),
        HostFile::output("_headers", headers(ctx.shape)),
    ]
}

/// One rule after its endpoint's path: ` page=:page per_page=20 /api/en/x/20/:page.json 200!`.
#[derive(Serialize)]
struct Rule {
    query: String,
    to: String,
    status: &'static str,
}

#[derive(Serialize)]
struct Endpoint {
    path: String,
    rules: Vec<Rule>,
}

/// The `_redirects` file. Netlify applies the first rule whose path matches and whose
/// listed query keys are all present (in any order, other keys ignored); `200!` rewrites
/// even where a file or folder exists at the path (`api/en/attractions/` is a folder), and
/// a placeholder also captures an empty value, so `page=` must be caught before `page=:page`.
fn redirects(ctx: &HostCtx) -> String {
    let r = ctx.shape;
    let bad_size = ctx.error_path(ErrorCode::InvalidPerPage);
    // Each endpoint, whose path is also the folder of its page files.
    let mut langs: Vec<Option<&str>> = r.languages.iter().map(|l| Some(l.as_str())).collect();
    langs.push(None);
    let endpoints: Vec<Endpoint> = langs
        .into_iter()
        .map(|lang| {
            let path = r.path(&layout::endpoint(lang, &r.resource));
            let file = |size: u64, page: &str| layout::page_file(&path, size, page);
            let mut rules = Vec::new();
            // Three blocks by the state of `page`: empty, a value, absent. Inside each, the
            // state of `per_page`: empty (= default), a configured size, anything else (400).
            for (page_query, page) in [(" page=", "1"), (" page=:page", ":page"), ("", "1")] {
                let rule = |query: String, to: String, status| Rule { query, to, status };
                rules.push(rule(
                    format!("{page_query} per_page="),
                    file(r.default_page_size, page),
                    "200!",
                ));
                for &size in &r.page_sizes {
                    let query = format!("{page_query} per_page={size}");
                    rules.push(rule(query, file(size, page), "200!"));
                }
                // A `400!` rule: netlify-cli 17's emulator wrongly treats 300..=400 as a
                // redirect (Location header, "Redirecting to" body); the status is still 400.
                rules.push(rule(
                    format!("{page_query} per_page=:per_page"),
                    bad_size.clone(),
                    "400!",
                ));
                rules.push(rule(page_query.to_string(), file(r.default_page_size, page), "200!"));
            }
            Endpoint { path, rules }
        })
        .collect();
    super::emitter::fill(
        &[("_redirects", REDIRECTS)],
        minijinja::context! {
            endpoints => minijinja::value::Serde(&endpoints),
            mount => r.mount(),
            // Every language not listed above (case-sensitive, as Netlify's matching is).
            any_lang => r.path(&layout::endpoint(Some(":lang"), &r.resource)),
            unknown_lang => ctx.error_path(ErrorCode::UnknownLang),
            // `netlify deploy` never uploads dotfiles, but the emulator serves them, and
            // `/api/../.folio-manifest.json` reaches the manifest once the URL is normalised.
            manifest => crate::output::manifest::MANIFEST,
            api => r.api_prefix(),
            // Not forced: existing files (path form, errors, index) are served, the rest 404.
            not_found => ctx.error_path(ErrorCode::NotFound),
        },
    )
}

/// The `_headers` file: one block for everything under `{mount}/api/`. Netlify picks
/// headers by path, not by status, so there is no separate block for error documents:
/// `/api/errors/*` would also hit the documents served as files (200, JSON).
fn headers(r: &Shape) -> String {
    super::emitter::fill(
        &[("_headers", HEADERS)],
        minijinja::context! {
            api => r.api_prefix(),
            cache_control => r.cache_control.clone(),
            allow => crate::routes::ALLOW,
            max_age => crate::routes::PREFLIGHT_MAX_AGE,
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The sample table's files, mounted at `mount`.
    fn files(mount: &str) -> (String, String) {
        let r = crate::routes::sample(mount);
        let f = render(&HostCtx::sample(&r.shape));
        assert!(f.iter().all(|f| f.dir == super::super::Dir::Output));
        (f[0].contents.clone(), f[1].contents.clone())
    }

    fn rules(text: &str) -> Vec<&str> {
        text.lines().filter(|l| !l.is_empty() && !l.starts_with('#')).collect()
    }

    #[test]
    fn languages_sizes_and_resource_reach_the_rules() {
        let (red, _) = files("");
        assert!(
            red.contains(
                "/api/pt-br/sights page=:page per_page=10 /api/pt-br/sights/10/:page.json 200!\n"
            ),
            "{red}"
        );
        assert!(red.contains("/api/sights per_page=25 /api/sights/25/1.json 200!\n"));
        assert!(red.contains("/api/en/sights page=:page /api/en/sights/25/:page.json 200!\n"));
        assert!(red.contains("/api/en/sights page= per_page= /api/en/sights/25/1.json 200!\n"));
        assert!(red.contains("/api/sights /api/sights/25/1.json 200!\n"));
        assert!(red.contains("/api/:lang/sights /api/errors/unknown_lang.json 404!\n"));
        assert!(red.ends_with("/api/* /api/errors/not_found.json 404\n"));
    }

    #[test]
    fn the_rule_count_grows_with_sizes_and_languages_only() {
        // (languages + unprefixed) × (3 × (sizes + 3)) + 3: the emitter sees no page count.
        assert_eq!(rules(&files("").0).len(), 3 * (3 * (2 + 3)) + 3);
    }

    #[test]
    fn every_rule_is_three_or_four_fields_with_a_status() {
        for rule in rules(&files("").0) {
            let n = rule.split(' ').count();
            assert!((3..=5).contains(&n), "{rule}");
            assert!(["200!", "400!", "404!", "404"].contains(&rule.rsplit(' ').next().unwrap()));
        }
    }

    #[test]
    fn a_mount_path_prefixes_rules_and_headers() {
        let (red, head) = files("/travel");
        for rule in rules(&red) {
            assert!(rule.starts_with("/travel/"), "{rule}");
            assert!(rule.split(' ').any(|f| f.starts_with("/travel/api/")), "{rule}");
        }
        assert!(head.contains("\n/travel/api/*\n"));
        assert!(head.contains("  Cache-Control: public, max-age=60\n"));
    }
}
