//! The map of one listing: its shape as folio.toml says it ([`Shape`]: base URL, resource,
//! languages, sizes, defaults), the page count at each size, and every name derived from
//! them — the file of each page, which page a file is, the URLs that answer with it, the
//! public URL of any file — and [`Map::resolve`], the reference semantics of a request.
//! Made once per build, check, serve or deploy ([`Map::new`]); the writer, render's links,
//! the problem documents, the host configs, the purge list and `serve` all take it.

use crate::config::Shape;
use crate::paginate;

use super::codes::ErrorCode;
use super::layout::{self, API, FileKind, PageFile, SIBLINGS, Variant};
use super::query::{clean_segment, query_param, valid_page};

/// One configured page size and how many pages the listing has at that size.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Size {
    pub size: u64,
    pub pages: usize,
}

/// What a request resolves to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    /// A page of the listing through its endpoint; the file is relative to `output/`.
    Page(String),
    /// A file under `api/` requested by its path (path form, error documents, index...);
    /// the server answers `not_found` when it does not exist.
    File(String),
    /// An error document (`api/errors/{code}.json`) with its status.
    Error(ErrorCode),
    /// `OPTIONS` under the API: `204`, a CORS preflight's headers when the request is one
    /// (`Origin` and `Access-Control-Request-Method`), else `Allow`.
    Options,
    /// Not under `{mount}/api/`: outside what the API governs.
    Outside,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Map {
    /// What folio.toml says of the listing.
    pub shape: Shape,
    /// Each configured size with the listing's page count at it, in configured order.
    pub sizes: Vec<Size>,
}

impl Map {
    /// The map of a listing of this shape with `total` records.
    pub fn new(shape: &Shape, total: usize) -> Map {
        let count = |size: u64| paginate::total_pages(total, size as usize);
        let sizes =
            shape.page_sizes.iter().map(|&size| Size { size, pages: count(size) }).collect();
        Map { shape: shape.clone(), sizes }
    }

    /// Where `output/` is mounted: `""` or `/travel`.
    pub fn mount(&self) -> &str {
        self.shape.mount()
    }

    /// base_url's origin (`https://example.org`), or empty.
    pub fn origin(&self) -> &str {
        self.shape.origin()
    }

    pub fn default_lang(&self) -> &str {
        self.shape.default_lang()
    }

    /// The path a server sees for `rel` (a path below the output folder): `{mount}/{rel}`.
    pub fn path(&self, rel: &str) -> String {
        self.shape.path(rel)
    }

    /// The public URL of `rel`: `{origin}{mount}/{rel}` (root-relative without an origin).
    pub fn url(&self, rel: &str) -> String {
        self.shape.url(rel)
    }

    /// `{mount}/api/`: everything below it follows the API's rules.
    pub fn api_prefix(&self) -> String {
        self.shape.api_prefix()
    }

    /// Every variant a build writes: each language, then the unprefixed default.
    pub fn variants(&self) -> Vec<Variant> {
        Variant::all(self.shape.languages.len(), self.shape.default_language)
    }

    /// The language code of a variant.
    pub fn language(&self, variant: Variant) -> &str {
        &self.shape.languages[variant.lang]
    }

    /// A variant's endpoint below the mount point: `api/{lang}/{resource}` or
    /// `api/{resource}`.
    pub fn endpoint(&self, variant: Variant) -> String {
        let lang = variant.prefixed.then(|| self.language(variant));
        layout::endpoint(lang, &self.shape.resource)
    }

    /// The file of a page, relative to the output folder.
    pub fn page_file(&self, p: &PageFile) -> String {
        layout::page_file(&self.endpoint(p.variant), p.size, p.page)
    }

    /// The file of page `page` at size `size` of `variant`.
    pub fn file(&self, variant: Variant, size: u64, page: usize) -> String {
        layout::page_file(&self.endpoint(variant), size, page)
    }

    /// `rel` as a page file of this listing (a configured language and size, a valid page
    /// number), or `None`: the inverse of [`Map::page_file`]. Page counts are not
    /// consulted: a page past the last one is still named as a page.
    pub fn parse(&self, rel: &str) -> Option<PageFile> {
        self.former_page(rel).filter(|p| self.sizes.iter().any(|c| c.size == p.size))
    }

    /// `rel` as a page file of a configured language at any size, as an earlier build may
    /// have written it (a size since removed): what a purge of it must name.
    pub fn former_page(&self, rel: &str) -> Option<PageFile> {
        let stem = rel.strip_suffix(".json")?.strip_prefix(API)?;
        let (rest, page) = stem.rsplit_once('/')?;
        let (endpoint, size) = rest.rsplit_once('/')?;
        let variant = match endpoint.split_once('/') {
            None if endpoint == self.shape.resource => {
                Variant { lang: self.shape.default_language, prefixed: false }
            }
            Some((lang, res)) if res == self.shape.resource => Variant {
                lang: self.shape.languages.iter().position(|l| l == lang)?,
                prefixed: true,
            },
            _ => return None,
        };
        // Both numbers as folio writes them: digits, no sign, no leading zero.
        if !valid_page(size) || !valid_page(page) {
            return None;
        }
        Some(PageFile { variant, size: size.parse().ok()?, page: page.parse().ok()? })
    }

    /// What `rel` (a path below the output folder) is.
    pub fn kind(&self, rel: &str) -> FileKind {
        if let Some(page) = self.parse(rel) {
            return FileKind::Page(page);
        }
        for (ext, coding) in SIBLINGS {
            if let Some(page) = rel.strip_suffix(ext).and_then(|p| self.parse(p)) {
                return FileKind::Sibling(page, coding);
            }
        }
        if ErrorCode::ALL.iter().any(|c| c.file() == rel) {
            FileKind::Error
        } else if rel.starts_with(API) {
            FileKind::Api
        } else {
            FileKind::Other
        }
    }

    /// Every URL below the mount point (without its leading `/`) that answers with this
    /// page: its path form, the query its links spell, `?page=P` at the default size, the
    /// bare endpoint for page 1 at the default size, `?per_page=S` for page 1 (an absent
    /// page is 1), and Laravel's spelling when a Laravel envelope is on.
    pub fn urls(&self, p: &PageFile) -> Vec<String> {
        self.urls_at(&self.endpoint(p.variant), p.size, p.page)
    }

    /// [`Map::urls`] of page `page` at size `size` below `endpoint` (`api/{lang}/{resource}`
    /// or `api/{resource}`), any endpoint folio's layout spells, configured or not.
    pub fn urls_at(&self, endpoint: &str, size: u64, page: u64) -> Vec<String> {
        let mut out = vec![
            format!("{endpoint}{}", layout::path_suffix(size, page)),
            format!("{endpoint}{}", layout::query(size, page)),
        ];
        let laravel = format!(
            "{endpoint}{}",
            layout::laravel_query(size, page, self.shape.default_page_size)
        );
        if size == self.shape.default_page_size || self.shape.laravel() {
            out.push(laravel);
        }
        if page == 1 {
            if size == self.shape.default_page_size {
                out.push(endpoint.to_string());
            }
            out.push(format!("{endpoint}?per_page={size}"));
        }
        out
    }

    /// The page file an endpoint request resolves to, or the error that answers it.
    /// `lang` is `None` for the unprefixed endpoint.
    pub fn page(&self, lang: Option<&str>, query: &str) -> Result<String, ErrorCode> {
        let page = match query_param(query, "page") {
            None => 1,
            Some(v) if valid_page(v) => v.parse::<usize>().expect("nine digits fit"),
            Some(_) => return Err(ErrorCode::InvalidPage),
        };
        let size = match query_param(query, "per_page") {
            None => self.sizes.iter().find(|s| s.size == self.shape.default_page_size).copied(),
            Some(v) => self.sizes.iter().find(|s| s.size.to_string() == v).copied(),
        }
        .ok_or(ErrorCode::InvalidPerPage)?;
        if page > size.pages {
            return Err(ErrorCode::PageNotFound);
        }
        Ok(layout::page_file(&layout::endpoint(lang, &self.shape.resource), size.size, page))
    }

    /// [`table`] with each size's page count (`pages`, keyed by the size as a query
    /// spells it): what a script published with the pages may use (Cloudflare Pages'
    /// worker, which cannot ask its asset server whether a file exists).
    pub fn counted_table(&self) -> serde_json::Value {
        let pages: serde_json::Map<String, serde_json::Value> =
            self.sizes.iter().map(|s| (s.size.to_string(), s.pages.into())).collect();
        let mut t = table(&self.shape);
        t["pages"] = pages.into();
        t
    }

    /// Resolves one request: `path` and `query` exactly as received (not decoded).
    pub fn resolve(&self, method: &str, path: &str, query: &str) -> Outcome {
        let prefix = self.api_prefix();
        let Some(rest) = path.strip_prefix(&prefix) else { return Outcome::Outside };
        // A dot segment (`/api/../folio.toml`, `/api/%2e%2e/x`) makes the path another one,
        // which a server resolves before any rule of its `/api/` sees it, to a path outside
        // the API or inside it: no URL of the API for sure, so `not_found` for every method.
        if super::has_dot_segment(rest) {
            return Outcome::Error(ErrorCode::NotFound);
        }
        // The method comes first: a preflight to any URL of the API is answered, also one
        // that a GET would find in error (the browser then sends the GET and sees it).
        match method {
            "GET" | "HEAD" => {}
            "OPTIONS" => return Outcome::Options,
            _ => return Outcome::Error(ErrorCode::MethodNotAllowed),
        }
        let segs: Vec<&str> = rest.split('/').collect();
        let endpoint = match segs.as_slice() {
            [r] | [r, ""] if *r == self.shape.resource => Some(None),
            // An empty segment (`/api//attractions`) is no language: not an endpoint.
            [l, r] | [l, r, ""] if *r == self.shape.resource && !l.is_empty() => Some(Some(*l)),
            _ => None,
        };
        match endpoint {
            Some(Some(lang)) if !self.shape.languages.iter().any(|l| l == lang) => {
                Outcome::Error(ErrorCode::UnknownLang)
            }
            Some(lang) => match self.page(lang, query) {
                Ok(file) => Outcome::Page(file),
                Err(code) => Outcome::Error(code),
            },
            None if segs.iter().all(|s| clean_segment(s)) => Outcome::File(format!("{API}{rest}")),
            None => Outcome::Error(ErrorCode::NotFound),
        }
    }
}

/// The one JSON table the host scripts run on (the Cloudflare Workers, the CloudFront
/// function, lighttpd's Lua): where the API is, the listing's shape (`sizes` as a query
/// spells them), the files below `api/` other than pages, each error code's status and the
/// headers' values. folio.toml alone decides it, so a script that carries it is the same
/// for any data: a page past the last is one the store does not have. What a script adds by
/// hand is what only it can do: read its request, send its file.
pub fn table(shape: &Shape) -> serde_json::Value {
    let sizes: Vec<String> = shape.page_sizes.iter().map(u64::to_string).collect();
    let errors: serde_json::Map<String, serde_json::Value> =
        ErrorCode::ALL.iter().map(|c| (c.code().to_string(), c.status().into())).collect();
    serde_json::json!({
        "mount": shape.mount(),
        "api": shape.api_prefix(),
        "resource": shape.resource,
        "languages": shape.languages,
        "sizes": sizes,
        "default_size": shape.default_page_size.to_string(),
        "max_page_digits": super::query::MAX_PAGE.to_string().len(),
        "files": layout::api_files(),
        "errors": errors,
        "cache_control": shape.cache_control,
        "allow": super::http::ALLOW,
        "preflight_max_age": super::http::PREFLIGHT_MAX_AGE.to_string(),
        "problem_type": super::media::PROBLEM_JSON,
    })
}

/// A small map for the host emitters' unit tests: resource `sights`, languages en and
/// pt-br, sizes 10 (14 pages) and 25 (6 pages, the default), mounted at `mount`.
#[cfg(test)]
pub(crate) fn sample(mount: &str) -> Map {
    let shape = crate::config::Shape {
        base: crate::config::BaseUrl { origin: String::new(), path: mount.into() },
        resource: "sights".into(),
        languages: vec!["en".into(), "pt-br".into()],
        default_language: 0,
        page_sizes: vec![10, 25],
        default_page_size: 25,
        envelope: crate::config::Envelope::Standard,
        totals: true,
        cache_control: "public, max-age=60".into(),
    };
    Map { shape, sizes: vec![Size { size: 10, pages: 14 }, Size { size: 25, pages: 6 }] }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::routes::layout;

    fn routes() -> Map {
        let shape = crate::config::Shape {
            base: crate::config::BaseUrl::default(),
            resource: "attractions".into(),
            languages: vec!["en".into(), "fr".into()],
            default_language: 0,
            page_sizes: vec![10, 20],
            default_page_size: 10,
            envelope: crate::config::Envelope::Standard,
            totals: true,
            cache_control: "public, max-age=300".into(),
        };
        Map { shape, sizes: vec![Size { size: 10, pages: 7 }, Size { size: 20, pages: 4 }] }
    }

    #[test]
    fn every_url_of_a_page_resolves_to_its_file() {
        // What a purge list names for a changed file is what the table answers with it.
        use crate::config::Envelope;
        for envelope in [Envelope::Standard, Envelope::Laravel, Envelope::LaravelSimple] {
            let mut l = routes();
            l.shape.envelope = envelope;
            let variants = [(0, true), (1, true), (0, false)];
            for (lang, prefixed) in variants {
                for size in &l.sizes {
                    for page in 1..=size.pages as u64 {
                        let variant = layout::Variant { lang, prefixed };
                        let p = layout::PageFile { variant, size: size.size, page };
                        let file = l.page_file(&p);
                        assert_eq!(l.parse(&file), Some(p));
                        for url in l.urls(&p) {
                            let (path, query) = url.split_once('?').unwrap_or((&url, ""));
                            let got = match l.resolve("GET", &format!("/{path}"), query) {
                                Outcome::Page(f) | Outcome::File(f) => f,
                                other => panic!("{url}: {other:?}"),
                            };
                            assert_eq!(got, file, "{url}");
                        }
                    }
                }
            }
        }
    }

    fn page(s: &str) -> Outcome {
        Outcome::Page(s.into())
    }

    fn err(code: ErrorCode) -> Outcome {
        Outcome::Error(code)
    }

    #[test]
    fn resolves_endpoints_with_defaults_and_precedence() {
        let r = routes();
        assert_eq!(
            r.resolve("GET", "/api/en/attractions", ""),
            page("api/en/attractions/10/1.json")
        );
        assert_eq!(
            r.resolve("HEAD", "/api/fr/attractions/", "per_page=20&page=4"),
            page("api/fr/attractions/20/4.json")
        );
        assert_eq!(
            r.resolve("GET", "/api/attractions", "page=7"),
            page("api/attractions/10/7.json")
        );
        assert_eq!(r.resolve("GET", "/api/en/attractions", "page=8"), err(ErrorCode::PageNotFound));
        assert_eq!(
            r.resolve("GET", "/api/en/attractions", "page=0&per_page=7"),
            err(ErrorCode::InvalidPage)
        );
        assert_eq!(
            r.resolve("GET", "/api/en/attractions", "page=99&per_page=7"),
            err(ErrorCode::InvalidPerPage)
        );
        assert_eq!(r.resolve("GET", "/api/EN/attractions", "page=0"), err(ErrorCode::UnknownLang));
        assert_eq!(r.resolve("POST", "/api/EN/attractions", ""), err(ErrorCode::MethodNotAllowed));
        assert_eq!(r.resolve("DELETE", "/api/nothing", ""), err(ErrorCode::MethodNotAllowed));
        assert_eq!(r.resolve("OPTIONS", "/api/EN/attractions", "page=0"), Outcome::Options);
        assert_eq!(r.resolve("OPTIONS", "/other", ""), Outcome::Outside);
        // Dot segments, raw or encoded, are not_found before the method; so is `//`.
        for target in ["/api/../folio.toml", "/api/%2e%2e/folio.toml", "/api/en/../index.json"] {
            for method in ["GET", "HEAD", "POST", "OPTIONS"] {
                assert_eq!(r.resolve(method, target, ""), err(ErrorCode::NotFound), "{target}");
            }
        }
        assert_eq!(r.resolve("GET", "/api/en//attractions", ""), err(ErrorCode::NotFound));
        assert_eq!(r.resolve("GET", "/api//attractions", ""), err(ErrorCode::NotFound));
        assert_eq!(r.resolve("POST", "/api/en//attractions", ""), err(ErrorCode::MethodNotAllowed));
    }

    #[test]
    fn other_paths_under_api_are_files_when_clean() {
        let r = routes();
        assert_eq!(
            r.resolve("GET", "/api/en/attractions/10/2.json", "page=x"),
            Outcome::File("api/en/attractions/10/2.json".into())
        );
        assert_eq!(
            r.resolve("GET", "/api/errors/not_found.json", ""),
            Outcome::File("api/errors/not_found.json".into())
        );
        for bad in [
            "/api/",
            "/api/en/",
            "/api/en/attractions/../../x",
            "/api/.folio",
            "/api/%2e%2e/x",
            "/api/a\\b",
            "/api/index.json/",
        ] {
            assert_eq!(r.resolve("GET", bad, ""), err(ErrorCode::NotFound), "{bad}");
        }
        assert_eq!(r.resolve("GET", "/index.html", ""), Outcome::Outside);
        assert_eq!(r.resolve("POST", "/other", ""), Outcome::Outside);
    }

    #[test]
    fn a_mount_path_prefixes_everything() {
        let base = crate::config::BaseUrl { origin: String::new(), path: "/travel".into() };
        let mut r = routes();
        r.shape.base = base;
        assert_eq!(
            r.resolve("GET", "/travel/api/attractions", ""),
            page("api/attractions/10/1.json")
        );
        assert_eq!(r.resolve("GET", "/api/attractions", ""), Outcome::Outside);
    }
}
