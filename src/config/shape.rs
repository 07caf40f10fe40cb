//! The listing's shape, known from folio.toml alone, before any record is read (as zola's
//! permalinks are): where the API is (the base URL, typed), what it lists (the resource),
//! in which languages (the default one among them), at which page sizes (the default one
//! among them), in which envelope (with or without the count on every page), and with
//! which `Cache-Control`. Page counts join it
//! once the data is loaded: `routes::Map` is a shape and its totals.

use super::{BaseUrl, Envelope, ListingConfig};

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
    /// `[listing] totals`: the standard envelope (and a template's context) carries
    /// `total`, `total_pages` and `links.last`. Off, no page depends on the count but
    /// through its own items and whether a page follows it.
    pub totals: bool,
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

/// `[listing] envelope`, parsed, and `totals` checked against it: `totals = false` is
/// refused with the two Laravel envelopes whose bodies carry the count by Laravel's
/// contract (`laravel-simple` is that contract without one). A refused envelope is
/// `standard`, to go on validating.
pub(super) fn envelope(l: &ListingConfig, err: &mut dyn FnMut(&str, String)) -> Envelope {
    let envelope = l.envelope.parse().unwrap_or_else(|()| {
        err("listing.envelope", format!(
            "listing.envelope `{}` must be standard, laravel, laravel-simple, laravel-resource or template:NAME{}",
            l.envelope,
            crate::diag::did_you_mean(&l.envelope, Envelope::BUILT_IN)
        ));
        Envelope::Standard
    });
    if !l.totals && matches!(envelope, Envelope::Laravel | Envelope::LaravelResource) {
        err(
            "listing.totals",
            format!(
                "listing.totals = false: the `{envelope}` envelope is Laravel's, whose body always carries total and last_page; for pages without a count, use envelope = \"laravel-simple\" (Laravel's simplePaginate()) or \"standard\""
            ),
        );
    }
    envelope
}
