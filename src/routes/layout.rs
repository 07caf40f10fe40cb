//! Where everything is: the one description of the output's files and the API's URLs,
//! below the mount point (`base_url`'s path). Every part of folio that names a page, an
//! endpoint or a document takes the name from here.
//!
//! ```text
//! api/{lang}/{resource}/{size}/{page}.json   a page of one language
//! api/{resource}/{size}/{page}.json          the unprefixed variant (default language)
//! api/errors/{code}.json                     a problem document
//! api/index.json  api/openapi.json  api/explorer.html
//! ```
//! The endpoints are `api/{lang}/{resource}` and `api/{resource}` (a page is asked for with
//! `?page=P&per_page=S`); a page file is also served by its path (the path form).

use crate::config::Project;

pub const INDEX: &str = "api/index.json";
pub const OPENAPI: &str = "api/openapi.json";
pub const EXPLORER: &str = "api/explorer.html";
/// GitHub Pages then serves the folder as it is (no Jekyll, which hides `_` folders).
pub const NOJEKYLL: &str = ".nojekyll";

/// The problem document of an error code.
pub fn error_file(code: &str) -> String {
    format!("api/errors/{code}.json")
}

/// The endpoint of a language (`None`: the unprefixed one): `api/{lang}/{resource}`.
pub fn endpoint(lang: Option<&str>, resource: &str) -> String {
    match lang {
        Some(lang) => format!("api/{lang}/{resource}"),
        None => format!("api/{resource}"),
    }
}

/// The file of page `page` at size `size` below an endpoint (`page` may be a host's
/// placeholder, as Netlify's `:page`).
pub fn page_file(endpoint: &str, size: u64, page: impl std::fmt::Display) -> String {
    format!("{endpoint}/{size}/{page}.json")
}

/// The files below `api/` other than pages that a build writes.
pub fn api_files() -> Vec<String> {
    let mut files: Vec<String> = super::ErrorCode::ALL.iter().map(|c| c.file()).collect();
    files.extend([INDEX, OPENAPI, EXPLORER].map(String::from));
    files
}

/// A page file, named by its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageFile<'r> {
    /// `api/{lang}/{resource}` or `api/{resource}`.
    pub endpoint: &'r str,
    pub lang: Option<&'r str>,
    pub size: u64,
    pub page: u64,
}

/// `rel` as a page file of this listing (a configured language and size, a valid page
/// number), or `None`.
pub fn parse_page<'r>(
    rel: &'r str,
    resource: &str,
    languages: &[String],
    sizes: &[u64],
) -> Option<PageFile<'r>> {
    let stem = rel.strip_suffix(".json")?;
    let (rest, page) = stem.rsplit_once('/')?;
    let (endpoint, size) = rest.rsplit_once('/')?;
    let lang = match endpoint.strip_prefix("api/")?.split_once('/') {
        None if endpoint == format!("api/{resource}") => None,
        Some((lang, res)) if res == resource && languages.iter().any(|l| l == lang) => Some(lang),
        _ => return None,
    };
    let size: u64 = size.parse().ok().filter(|s| sizes.contains(s))?;
    if !super::valid_page(page) {
        return None;
    }
    Some(PageFile { endpoint, lang, size, page: page.parse().ok()? })
}

/// Which copy of the listing a page belongs to: a language, prefixed (`/api/fr/...`) or
/// the unprefixed default-language variant (`/api/...`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variant {
    /// Index into the configured languages.
    pub lang: usize,
    pub prefixed: bool,
}

impl Variant {
    /// Every variant a build writes: each language, then the unprefixed default.
    pub fn all(project: &Project) -> Vec<Variant> {
        let mut v: Vec<Variant> =
            (0..project.languages.len()).map(|lang| Variant { lang, prefixed: true }).collect();
        v.push(Variant { lang: project.default_language, prefixed: false });
        v
    }

    /// This variant's endpoint below the mount point.
    pub fn endpoint(&self, project: &Project) -> String {
        let lang = self.prefixed.then(|| project.languages[self.lang].as_str());
        endpoint(lang, &project.resource)
    }

    /// The file of one page, relative to the output folder.
    pub fn page_file(&self, project: &Project, size: u64, page: usize) -> String {
        page_file(&self.endpoint(project), size, page)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn page_files_are_named_and_read_back() {
        let langs = ["en".to_string(), "pt-br".to_string()];
        let file = page_file(&endpoint(Some("pt-br"), "sights"), 25, 3);
        assert_eq!(file, "api/pt-br/sights/25/3.json");
        assert_eq!(
            parse_page(&file, "sights", &langs, &[10, 25]),
            Some(PageFile { endpoint: "api/pt-br/sights", lang: Some("pt-br"), size: 25, page: 3 })
        );
        assert_eq!(parse_page("api/sights/10/1.json", "sights", &langs, &[10]).unwrap().lang, None);
        for not in [
            "api/de/sights/10/1.json",
            "api/en/sights/15/1.json",
            "api/en/sights/10/01.json",
            "api/en/other/10/1.json",
            "api/en/sights/10/1.json.br",
            "api/errors/not_found.json",
        ] {
            assert_eq!(parse_page(not, "sights", &langs, &[10, 25]), None, "{not}");
        }
    }
}
