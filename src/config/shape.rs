//! The listing's shape, known from folio.toml alone, before any record is read (as zola's
//! permalinks are): where the API is (the base URL, typed), what it lists (the resource),
//! in which languages (the default one among them), at which page sizes (the default one
//! among them), in which envelope, and with which `Cache-Control`. Page counts join it
//! once the data is loaded: `routes::Map` is a shape and its totals.

use super::{BaseUrl, Envelope};

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape {
    /// `base_url`: links are `{origin}{mount}/api/...`.
    pub base: BaseUrl,
    pub resource: String,
    pub languages: Vec<String>,
    /// Index into `languages`.
    pub default_language: usize,
    /// In configured order.
    pub page_sizes: Vec<u64>,
    pub default_page_size: u64,
    pub envelope: Envelope,
    /// `Cache-Control` of every 200 response under `/api/`.
    pub cache_control: String,
}

impl Shape {
    /// The default language's code: the one of the unprefixed endpoint.
    pub fn default_lang(&self) -> &str {
        &self.languages[self.default_language]
    }

    /// Whether a Laravel envelope is on: its spelling of a page's query is in links too.
    pub fn laravel(&self) -> bool {
        matches!(
            self.envelope,
            Envelope::Laravel | Envelope::LaravelSimple | Envelope::LaravelResource
        )
    }
}
