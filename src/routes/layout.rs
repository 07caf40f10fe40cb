//! How files and URLs are spelled, below the mount point (`base_url`'s path): the fixed
//! names, and the pieces a page's name and its links are written from. Which languages,
//! sizes and resource fill them in is [`super::Map`]'s, which every part of folio that
//! names a page asks.
//!
//! ```text
//! api/{lang}/{resource}/{size}/{page}.json   a page of one language
//! api/{resource}/{size}/{page}.json          the unprefixed variant (default language)
//! api/errors/{code}.json                     a problem document
//! api/index.json  api/openapi.json  api/explorer.html
//! ```
//! The endpoints are `api/{lang}/{resource}` and `api/{resource}` (a page is asked for with
//! `?page=P&per_page=S`); a page file is also served by its path (the path form).

use std::fmt::Display;

use super::codes::ErrorCode;
use super::query::valid_page;
use crate::config::Shape;

pub const INDEX: &str = "api/index.json";
pub const OPENAPI: &str = "api/openapi.json";
pub const EXPLORER: &str = "api/explorer.html";
/// GitHub Pages then serves the folder as it is (no Jekyll, which hides `_` folders).
pub const NOJEKYLL: &str = ".nojekyll";

/// The folder of the problem documents, with its slash.
pub const ERRORS: &str = "api/errors/";

/// The problem document of an error code.
pub fn error_file(code: &str) -> String {
    format!("{ERRORS}{code}.json")
}

impl ErrorCode {
    /// `api/errors/{code}.json`, relative to `output/`.
    pub fn file(self) -> String {
        error_file(self.code())
    }
}

/// The endpoint of a language (`None`: the unprefixed one): `api/{lang}/{resource}`.
pub fn endpoint(lang: Option<&str>, resource: &str) -> String {
    match lang {
        Some(lang) => format!("{API}{lang}/{resource}"),
        None => format!("{API}{resource}"),
    }
}

/// The file of page `page` at size `size` below an endpoint (`page` may be a host's
/// placeholder, as Netlify's `:page`).
pub fn page_file(endpoint: &str, size: impl Display, page: impl Display) -> String {
    format!("{endpoint}{}", path_suffix(size, page))
}

/// The files below `api/` other than pages that a build writes.
pub fn api_files() -> Vec<String> {
    let mut files: Vec<String> = ErrorCode::ALL.iter().map(|c| c.file()).collect();
    files.extend([INDEX, OPENAPI, EXPLORER].map(String::from));
    files
}

/// The folder of the API below the output folder and the mount point, with its slash.
pub const API: &str = "api/";

/// Where the listing is mounted and how its files are named there: what folio.toml alone
/// says, so that whatever is written from it (every `hosting/` file) is the same for any
/// data. [`super::Map`] names the same through its shape.
impl Shape {
    /// Where `output/` is mounted: `""` or `/travel`.
    pub fn mount(&self) -> &str {
        &self.base.path
    }

    /// base_url's origin (`https://example.org`), or empty.
    pub fn origin(&self) -> &str {
        &self.base.origin
    }

    /// The path a server sees for `rel` (a path below the output folder): `{mount}/{rel}`.
    pub fn path(&self, rel: &str) -> String {
        format!("{}/{rel}", self.base.path)
    }

    /// The public URL of `rel`: `{origin}{mount}/{rel}` (root-relative without an origin).
    pub fn url(&self, rel: &str) -> String {
        format!("{}{}/{rel}", self.base.origin, self.base.path)
    }

    /// `{mount}/api/`: everything below it follows the API's rules.
    pub fn api_prefix(&self) -> String {
        self.path(API)
    }
}

/// The query of a page as links spell it: `?page=P&per_page=S`.
pub fn query(size: u64, page: impl Display) -> impl Display {
    Spelled(move |f: &mut std::fmt::Formatter| write!(f, "?page={page}&per_page={size}"))
}

/// Laravel's spelling of a page's query: `?page=P` at the default size,
/// `?per_page=S&page=P` otherwise.
pub fn laravel_query(size: u64, page: impl Display, default_size: u64) -> impl Display {
    Spelled(move |f: &mut std::fmt::Formatter| {
        if size == default_size {
            write!(f, "?page={page}")
        } else {
            write!(f, "?per_page={size}&page={page}")
        }
    })
}

/// The path form of a page below its endpoint: `/{size}/{page}.json`.
pub fn path_suffix(size: impl Display, page: impl Display) -> impl Display {
    Spelled(move |f: &mut std::fmt::Formatter| write!(f, "/{size}/{page}.json"))
}

/// A spelling written straight into its destination (links are written a dozen times a
/// page: no `String` for each).
struct Spelled<F>(F);

impl<F: Fn(&mut std::fmt::Formatter) -> std::fmt::Result> Display for Spelled<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        (self.0)(f)
    }
}

/// A page file as folio's layout spells one, whatever its language and resource:
/// `(endpoint, size, page)` of `api/{lang}/{resource}/{S}/{P}.json` or
/// `api/{resource}/{S}/{P}.json`, each name a plain segment (lowercase letters, digits,
/// `-` and `_`, a letter or digit first, as folio.toml's languages and resource are) and
/// both numbers as folio writes them. What a purge of a page folio once wrote names, also
/// of a language, resource or size since removed.
pub fn any_page(rel: &str) -> Option<(&str, u64, u64)> {
    let plain = |s: &str| {
        let b = s.as_bytes();
        (1..=64).contains(&b.len())
            && b[0].is_ascii_alphanumeric()
            && b.iter()
                .all(|&c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == b'-' || c == b'_')
    };
    let stem = rel.strip_suffix(".json")?;
    let (endpoint, page) = stem.rsplit_once('/')?;
    let (endpoint, size) = endpoint.rsplit_once('/')?;
    let names = endpoint.strip_prefix(API)?;
    let named = match names.split_once('/') {
        None => plain(names),
        Some((lang, resource)) => plain(lang) && plain(resource),
    };
    let number = |n: &str| valid_page(n).then(|| n.parse().ok()).flatten();
    named.then_some(())?;
    Some((endpoint, number(size)?, number(page)?))
}

/// A page file, named by its parts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageFile {
    /// The language (an index into the configured ones) and whether its URLs carry it.
    pub variant: Variant,
    pub size: u64,
    pub page: u64,
}

/// What a path below the output folder is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    Page(PageFile),
    /// A precompressed sibling of a page, with its coding (`br`, `gzip`).
    Sibling(PageFile, &'static str),
    /// A problem document, `api/errors/{code}.json`.
    Error,
    /// Anything else under `api/`: the index, the OpenAPI document, the explorer.
    Api,
    /// Anything outside `api/` (host files such as `_redirects`, the user's own files).
    Other,
}

/// The precompressed siblings a page may have, in the order `serve` prefers them: the
/// file's extension and its coding.
pub const SIBLINGS: [(&str, &str); 2] = [(".br", "br"), (".gz", "gzip")];

/// Which copy of the listing a page belongs to: a language, prefixed (`/api/fr/...`) or
/// the unprefixed default-language variant (`/api/...`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variant {
    /// Index into the configured languages.
    pub lang: usize,
    pub prefixed: bool,
}

impl Variant {
    /// Every variant a build writes, for `languages` languages with `default` the default
    /// one: each language, then the unprefixed default.
    pub fn all(languages: usize, default: usize) -> Vec<Variant> {
        let mut v: Vec<Variant> =
            (0..languages).map(|lang| Variant { lang, prefixed: true }).collect();
        v.push(Variant { lang: default, prefixed: false });
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::{Map, Size};
    use proptest::prelude::*;

    fn layout(laravel: bool) -> Map {
        let mut map = crate::routes::sample("");
        if laravel {
            map.shape.envelope = crate::config::Envelope::Laravel;
        }
        map
    }

    fn page(lang: usize, prefixed: bool, size: u64, page: u64) -> PageFile {
        PageFile { variant: Variant { lang, prefixed }, size, page }
    }

    #[test]
    fn page_files_are_named_and_read_back() {
        let l = layout(false);
        let file = l.page_file(&page(1, true, 25, 3));
        assert_eq!(file, "api/pt-br/sights/25/3.json");
        assert_eq!(l.parse(&file), Some(page(1, true, 25, 3)));
        assert_eq!(l.parse("api/sights/10/1.json"), Some(page(0, false, 10, 1)));
        for not in [
            "api/de/sights/10/1.json",
            "api/en/sights/15/1.json",
            "api/en/sights/10/01.json",
            "api/en/sights/010/1.json",
            "api/en/sights/10/0.json",
            "api/en/other/10/1.json",
            "api/en/sights/10/1.json.br",
            "api/errors/not_found.json",
            "en/sights/10/1.json",
        ] {
            assert_eq!(l.parse(not), None, "{not}");
        }
    }

    #[test]
    fn every_file_has_a_kind() {
        let l = layout(false);
        let p = page(0, true, 10, 2);
        assert_eq!(l.kind("api/en/sights/10/2.json"), FileKind::Page(p));
        assert_eq!(l.kind("api/en/sights/10/2.json.br"), FileKind::Sibling(p, "br"));
        assert_eq!(l.kind("api/en/sights/10/2.json.gz"), FileKind::Sibling(p, "gzip"));
        assert_eq!(l.kind("api/errors/not_found.json"), FileKind::Error);
        assert_eq!(l.kind("api/errors/nope.json"), FileKind::Api);
        assert_eq!(l.kind(INDEX), FileKind::Api);
        assert_eq!(l.kind("api/de/sights/10/2.json"), FileKind::Api);
        assert_eq!(l.kind("_redirects"), FileKind::Other);
    }

    #[test]
    fn a_page_is_asked_for_by_every_spelling_of_its_query() {
        let urls = layout(false).urls(&page(0, true, 25, 1));
        assert_eq!(
            urls,
            [
                "api/en/sights/25/1.json",
                "api/en/sights?page=1&per_page=25",
                "api/en/sights?page=1",
                "api/en/sights",
                "api/en/sights?per_page=25",
            ]
        );
        let urls = layout(false).urls(&page(0, false, 10, 3));
        assert_eq!(urls, ["api/sights/10/3.json", "api/sights?page=3&per_page=10"]);
        let urls = layout(true).urls(&page(0, false, 10, 3));
        assert!(urls.contains(&"api/sights?per_page=10&page=3".to_string()), "{urls:?}");
    }

    fn any_layout() -> impl Strategy<Value = Map> {
        let langs = prop::collection::btree_set("[a-z]{2,3}(-[a-z0-9]{1,8})?", 1..4);
        let sizes = prop::collection::btree_set(1u64..100_000, 1..4);
        (langs, sizes, "[a-z][a-z0-9_-]{0,12}", any::<bool>(), any::<prop::sample::Index>())
            .prop_filter("a resource is no language", |(langs, _, res, _, _)| {
                !langs.contains(res) && res != "errors"
            })
            .prop_map(|(langs, sizes, resource, laravel, default)| {
                let languages: Vec<String> = langs.into_iter().collect();
                let sizes: Vec<Size> =
                    sizes.into_iter().map(|size| Size { size, pages: 1 }).collect();
                let mut map = layout(laravel);
                map.shape.default_language = default.index(languages.len());
                map.shape.default_page_size = sizes[default.index(sizes.len())].size;
                map.shape.page_sizes = sizes.iter().map(|s| s.size).collect();
                map.shape.resource = resource;
                map.shape.languages = languages;
                map.sizes = sizes;
                map
            })
    }

    proptest! {
        #[test]
        fn parse_inverts_page_file(
            l in any_layout(),
            pick in any::<(prop::sample::Index, prop::sample::Index, bool)>(),
            number in 1u64..=999_999_999,
        ) {
            let (lang, size, prefixed) = pick;
            let lang = if prefixed { lang.index(l.shape.languages.len()) } else { l.shape.default_language };
            let p = page(lang, prefixed, size.get(&l.sizes).size, number);
            let file = l.page_file(&p);
            prop_assert_eq!(l.parse(&file), Some(p));
            prop_assert_eq!(l.kind(&format!("{file}.br")), FileKind::Sibling(p, "br"));
        }
    }
}
