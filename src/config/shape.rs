//! The listing's shape, known from folio.toml alone, before any record is read (as zola's
//! permalinks are): where the API is (the base URL, typed), what it lists (the resource),
//! in which languages (the default one among them), at which page sizes (the default one
//! among them), in which envelope (with or without the count on every page), and with
//! which `Cache-Control`. Page counts join it
//! once the data is loaded: `routes::Map` is a shape and its totals.

use super::base_url::BaseUrl;
use super::tables::ListingConfig;

/// The body of every page (`[listing] envelope`): folio's standard one, Laravel's
/// length-aware paginator, its simple paginator (no count) or API resource, or the
/// project's template `templates/NAME.json.j2`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Envelope {
    Standard,
    Laravel,
    LaravelSimple,
    LaravelResource,
    Template(String),
}

impl Envelope {
    /// The built-in envelopes' names, as `[listing] envelope` spells them.
    pub const BUILT_IN: [&str; 4] = ["standard", "laravel", "laravel-simple", "laravel-resource"];
}

/// As `[listing] envelope` spells it: `standard`, `laravel`, `laravel-simple`,
/// `laravel-resource`, `template:NAME`.
impl std::fmt::Display for Envelope {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Envelope::Standard => f.write_str(Envelope::BUILT_IN[0]),
            Envelope::Laravel => f.write_str(Envelope::BUILT_IN[1]),
            Envelope::LaravelSimple => f.write_str(Envelope::BUILT_IN[2]),
            Envelope::LaravelResource => f.write_str(Envelope::BUILT_IN[3]),
            Envelope::Template(name) => write!(f, "template:{name}"),
        }
    }
}

/// The inverse of `Display`; a template's name is letters, digits, `-` and `_`.
impl std::str::FromStr for Envelope {
    type Err = ();

    fn from_str(s: &str) -> Result<Envelope, ()> {
        match s {
            "standard" => Ok(Envelope::Standard),
            "laravel" => Ok(Envelope::Laravel),
            "laravel-simple" => Ok(Envelope::LaravelSimple),
            "laravel-resource" => Ok(Envelope::LaravelResource),
            _ => match s.strip_prefix("template:") {
                Some(name)
                    if !name.is_empty()
                        && name
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
                {
                    Ok(Envelope::Template(name.to_string()))
                }
                _ => Err(()),
            },
        }
    }
}

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
