//! What every envelope writes a page from: its numbers ([`PageInfo`]) and the links of its
//! variant ([`Links`], in the query or the path form, in Laravel's order where asked).

use crate::bytes::push_fmt;
use crate::config::UrlStyle;
use crate::paginate;
use crate::routes::Map;
use crate::routes::layout::{self, Variant};

/// Builds the links of one variant: `{base}/api/.../resource?page=P&per_page=S` or the
/// path form `{base}/api/.../resource/S/P.json`; Laravel's envelopes order the query as
/// Laravel does (`?page=P` at the default size, `?per_page=S&page=P` otherwise).
#[derive(Debug, Clone)]
pub struct Links {
    endpoint: String,
    /// `endpoint` as the inside of a JSON string, escaped once for every page.
    endpoint_json: String,
    style: UrlStyle,
    default_size: u64,
}

impl Links {
    pub fn new(map: &Map, variant: Variant, style: UrlStyle) -> Links {
        Links::from_parts(map.url(&map.endpoint(variant)), style, map.shape.default_page_size)
    }

    /// Links below `endpoint` (the URL without query), for `default_size` as the default
    /// page size.
    pub fn from_parts(endpoint: String, style: UrlStyle, default_size: u64) -> Links {
        let quoted = serde_json::to_string(&endpoint).expect("a string serializes");
        Links {
            endpoint_json: quoted[1..quoted.len() - 1].to_string(),
            endpoint,
            style,
            default_size,
        }
    }

    /// The endpoint URL, `{base}/api/{lang}/{resource}` (Laravel's `path`).
    pub fn endpoint(&self) -> &str {
        &self.endpoint
    }

    pub fn page(&self, size: u64, page: usize) -> String {
        match self.style {
            UrlStyle::Query => format!("{}{}", self.endpoint, layout::query(size, page)),
            UrlStyle::Path => format!("{}{}", self.endpoint, layout::path_suffix(size, page)),
        }
    }

    /// Appends the endpoint as a quoted JSON string.
    pub fn write_endpoint(&self, out: &mut Vec<u8>) {
        out.push(b'"');
        out.extend_from_slice(self.endpoint_json.as_bytes());
        out.push(b'"');
    }

    /// Appends the URL of a page, as [`Links::page`] spells it, as a quoted JSON string
    /// without building a `String` (four times a page). The endpoint is escaped once, in
    /// [`Links::from_parts`]; the suffix is digits and `?&=/.`, which JSON leaves as they are.
    pub fn write_page(&self, out: &mut Vec<u8>, size: u64, page: usize) {
        out.push(b'"');
        out.extend_from_slice(self.endpoint_json.as_bytes());
        match self.style {
            UrlStyle::Query => push_fmt(out, format_args!("{}\"", layout::query(size, page))),
            UrlStyle::Path => push_fmt(out, format_args!("{}\"", layout::path_suffix(size, page))),
        }
    }

    /// Appends the Laravel-ordered URL of a page as a quoted JSON string, without
    /// building a `String`: this runs a dozen times for every page.
    pub fn write_laravel(&self, out: &mut Vec<u8>, size: u64, page: usize) {
        out.push(b'"');
        out.extend_from_slice(self.endpoint_json.as_bytes());
        match self.style {
            UrlStyle::Path => push_fmt(out, format_args!("{}\"", layout::path_suffix(size, page))),
            UrlStyle::Query => push_fmt(
                out,
                format_args!("{}\"", layout::laravel_query(size, page, self.default_size)),
            ),
        }
    }
}

/// The numbers of one page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PageInfo {
    pub page: usize,
    pub per_page: u64,
    pub total: usize,
    pub total_pages: usize,
}

impl PageInfo {
    pub fn new(total: usize, per_page: u64, page: usize) -> PageInfo {
        PageInfo {
            page,
            per_page,
            total,
            total_pages: paginate::total_pages(total, per_page as usize),
        }
    }

    /// The 1-based numbers of the page's first and last item (Laravel's `from` and `to`);
    /// `None` on an empty page.
    pub fn span(&self) -> Option<(usize, usize)> {
        let r = paginate::items_of_page(self.total, self.per_page as usize, self.page);
        (!r.is_empty()).then(|| (r.start + 1, r.end))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_written_link_is_the_json_string_of_the_page_url() {
        // An endpoint JSON must escape (a quote, a backslash, a control character) and one
        // it need not; both URL styles; the first page, one in the middle, a large one.
        for endpoint in ["/api/en/attractions", "https://x.test/a\"b\\c\u{1}/api/é/places"] {
            for style in [UrlStyle::Query, UrlStyle::Path] {
                let links = Links::from_parts(endpoint.into(), style, 20);
                for (size, page) in [(10, 1), (20, 7), (100, 123_456)] {
                    let mut out = b"x".to_vec();
                    links.write_page(&mut out, size, page);
                    let want = serde_json::to_string(&links.page(size, page)).unwrap();
                    assert_eq!(String::from_utf8(out).unwrap(), format!("x{want}"));
                }
            }
        }
    }
}
