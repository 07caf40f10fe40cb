//! Rendering, pure: page envelopes (standard, the three Laravel ones, a user's template),
//! their links, the error documents (docs/api.md) and `api/index.json`. Items arrive
//! pre-serialized; only a template's output is parsed back, to check that it is JSON.
//! Reading the template file is the caller's job.

pub mod laravel;
mod page;
pub mod simple;
pub mod standard;
pub mod template;

pub use page::{Links, PageInfo};

use serde_json::json;

use crate::config::Shape;
use crate::routes::layout::{self};
use crate::routes::{ErrorCode, Map};

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
fn detail(code: ErrorCode, shape: &Shape) -> String {
    let sizes: Vec<String> = shape.page_sizes.iter().map(u64::to_string).collect();
    match code {
        ErrorCode::InvalidPage => {
            "page must be a whole number from 1 to 999999999, written without sign or leading zeros"
                .into()
        }
        ErrorCode::InvalidPerPage => format!("per_page must be one of {}", sizes.join(", ")),
        ErrorCode::UnknownLang => {
            format!("the language must be one of {}", shape.languages.join(", "))
        }
        ErrorCode::PageNotFound => {
            "page is past the last page of this listing (api/index.json has total_pages at each page size)".into()
        }
        ErrorCode::NotFound => {
            format!(
                "no such resource; the listing is at /{}",
                layout::endpoint(Some("{lang}"), &shape.resource)
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
pub fn problem_document(code: ErrorCode, shape: &Shape) -> Vec<u8> {
    let doc = json!({
        "type": shape.url(&code.file()),
        "title": code.title(),
        "status": code.status(),
        "detail": detail(code, shape),
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
