//! Rendering, pure: page envelopes (standard, the three Laravel ones, a user's template),
//! their links, the error documents (docs/api.md) and `api/index.json`. Items arrive
//! pre-serialized; only a template's output is parsed back, to check that it is JSON.
//! Reading the template file is the caller's job.

pub mod laravel;
pub mod simple;
pub mod standard;
pub mod template;

use serde_json::json;

use crate::bytes::push_fmt;
use crate::config::UrlStyle;
use crate::paginate;
use crate::routes::layout::{self, Variant};
use crate::routes::{ErrorCode, Map};

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

/// How pages are written: the configured envelope, its template compiled once per build.
pub enum PageWriter {
    /// The standard envelope; `totals`: with `total`, `total_pages` and `links.last`.
    Standard {
        totals: bool,
    },
    Laravel,
    LaravelSimple,
    LaravelResource,
    Template(Box<template::PageTemplate>),
}

impl PageWriter {
    /// Writes one page of the variant numbered `variant` (in [`Variant::all`] order);
    /// `items` appends the items, comma-separated, without brackets. Only a template can
    /// fail.
    pub fn write(
        &self,
        info: &PageInfo,
        links: &Links,
        variant: usize,
        out: &mut Vec<u8>,
        items: impl FnOnce(&mut Vec<u8>),
    ) -> Result<(), template::PageError> {
        match self {
            PageWriter::Standard { totals } => standard::write(info, links, *totals, out, items),
            PageWriter::Laravel => laravel::write(info, links, out, items),
            PageWriter::LaravelSimple => simple::write(info, links, out, items),
            PageWriter::LaravelResource => laravel::write_resource(info, links, out, items),
            PageWriter::Template(t) => return t.render(variant, info, links, out, items),
        }
        Ok(())
    }
}

/// The sentence of a problem document that names what is allowed.
fn detail(code: ErrorCode, routes: &Map) -> String {
    let sizes: Vec<String> = routes.sizes.iter().map(|s| s.size.to_string()).collect();
    match code {
        ErrorCode::InvalidPage => {
            "page must be a whole number from 1 to 999999999, written without sign or leading zeros"
                .into()
        }
        ErrorCode::InvalidPerPage => format!("per_page must be one of {}", sizes.join(", ")),
        ErrorCode::UnknownLang => {
            format!("the language must be one of {}", routes.shape.languages.join(", "))
        }
        ErrorCode::PageNotFound => {
            "page is past the last page of this listing (api/index.json has total_pages at each page size)".into()
        }
        ErrorCode::NotFound => {
            format!(
                "no such resource; the listing is at /{}",
                layout::endpoint(Some("{lang}"), &routes.shape.resource)
            )
        }
        ErrorCode::MethodNotAllowed => {
            "only GET and HEAD are allowed (and OPTIONS, for CORS preflights)".into()
        }
    }
}

/// The RFC 9457 problem document of `code`, as written to `api/errors/{code}.json` and as
/// host configs that cannot read the file (a CloudFront function) embed it: `type` is the
/// document's own URL, `title` the status's reason phrase, `detail` what is allowed.
pub fn problem_document(code: ErrorCode, routes: &Map) -> Vec<u8> {
    let doc = json!({
        "type": routes.url(&code.file()),
        "title": code.title(),
        "status": code.status(),
        "detail": detail(code, routes),
        "code": code.code(),
    });
    let mut out = serde_json::to_vec(&doc).expect("serializes");
    out.push(b'\n');
    out
}

/// `api/index.json`: what the listing offers and where.
pub fn index(map: &Map, total: usize) -> Vec<u8> {
    let mut total_pages = serde_json::Map::new();
    for s in &map.sizes {
        total_pages.insert(s.size.to_string(), json!(s.pages));
    }
    let mut endpoints = serde_json::Map::new();
    for v in map.variants() {
        let key = if v.prefixed { map.language(v).to_string() } else { "default".into() };
        endpoints.insert(key, json!(map.url(&map.endpoint(v))));
    }
    let sizes: Vec<u64> = map.sizes.iter().map(|s| s.size).collect();
    let doc = json!({
        "resource": map.shape.resource,
        "languages": map.shape.languages,
        "default_language": map.default_lang(),
        "page_sizes": sizes,
        "default_page_size": map.shape.default_page_size,
        "total": total,
        "total_pages": total_pages,
        "endpoints": endpoints,
        "openapi": map.url(layout::OPENAPI),
    });
    let mut out = serde_json::to_vec(&doc).expect("serializes");
    out.push(b'\n');
    out
}
