//! Rendering, pure: page envelopes (standard for now), their links, the error documents
//! of SPEC §1.2 and `api/index.json`. Items arrive pre-serialized; nothing here parses.

pub mod standard;

use serde_json::json;

use crate::config::{Project, UrlStyle};
use crate::paginate;
use crate::routes::Routes;

/// Which copy of the listing a page belongs to: a language, prefixed (`/api/fr/...`) or
/// the unprefixed default-language variant (`/api/...`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Variant {
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

    /// `api/{lang}/{resource}` or `api/{resource}`: the endpoint path below the mount point.
    pub fn endpoint(&self, project: &Project) -> String {
        if self.prefixed {
            format!("api/{}/{}", project.languages[self.lang], project.resource)
        } else {
            format!("api/{}", project.resource)
        }
    }

    /// The file of one page, relative to the output folder.
    pub fn page_file(&self, project: &Project, size: u64, page: usize) -> String {
        format!("{}/{size}/{page}.json", self.endpoint(project))
    }
}

/// Builds the links of one variant: `{base}/api/.../resource?page=P&per_page=S` or the
/// path form `{base}/api/.../resource/S/P.json`.
#[derive(Debug, Clone)]
pub struct Links {
    endpoint: String,
    style: UrlStyle,
}

impl Links {
    pub fn new(project: &Project, variant: Variant) -> Links {
        Links {
            endpoint: format!("{}/{}", project.base.prefix(), variant.endpoint(project)),
            style: project.url_style,
        }
    }

    pub fn page(&self, size: u64, page: usize) -> String {
        match self.style {
            UrlStyle::Query => format!("{}?page={page}&per_page={size}", self.endpoint),
            UrlStyle::Path => format!("{}/{size}/{page}.json", self.endpoint),
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
}

/// An error code of SPEC §1.2 with its status, reason phrase and detail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidPage,
    InvalidPerPage,
    UnknownLang,
    PageNotFound,
    NotFound,
    MethodNotAllowed,
}

impl ErrorCode {
    pub const ALL: [ErrorCode; 6] = [
        ErrorCode::InvalidPage,
        ErrorCode::InvalidPerPage,
        ErrorCode::UnknownLang,
        ErrorCode::PageNotFound,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
    ];

    pub fn code(self) -> &'static str {
        match self {
            ErrorCode::InvalidPage => "invalid_page",
            ErrorCode::InvalidPerPage => "invalid_per_page",
            ErrorCode::UnknownLang => "unknown_lang",
            ErrorCode::PageNotFound => "page_not_found",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
        }
    }

    pub fn status(self) -> u16 {
        match self {
            ErrorCode::InvalidPage | ErrorCode::InvalidPerPage => 400,
            ErrorCode::UnknownLang | ErrorCode::PageNotFound | ErrorCode::NotFound => 404,
            ErrorCode::MethodNotAllowed => 405,
        }
    }

    pub fn title(self) -> &'static str {
        match self.status() {
            400 => "Bad Request",
            404 => "Not Found",
            _ => "Method Not Allowed",
        }
    }

    pub fn file(self) -> String {
        format!("api/errors/{}.json", self.code())
    }

    fn detail(self, routes: &Routes) -> String {
        let sizes: Vec<String> = routes.sizes.iter().map(|s| s.size.to_string()).collect();
        match self {
            ErrorCode::InvalidPage => {
                "page must be a whole number from 1 to 999999999, written without sign or leading zeros".into()
            }
            ErrorCode::InvalidPerPage => format!("per_page must be one of {}", sizes.join(", ")),
            ErrorCode::UnknownLang => format!("the language must be one of {}", routes.languages.join(", ")),
            ErrorCode::PageNotFound => "page is past the last page of this listing (see total_pages)".into(),
            ErrorCode::NotFound => format!("no such resource; the listing is at /api/{{lang}}/{}", routes.resource),
            ErrorCode::MethodNotAllowed => "only GET and HEAD are allowed".into(),
        }
    }

    /// The RFC 9457 problem document, as written to `api/errors/{code}.json` and as host
    /// configs that cannot read the file (a CloudFront function) embed it.
    pub fn document(self, routes: &Routes) -> Vec<u8> {
        let doc = json!({
            "type": format!("{}{}/{}", routes.origin, routes.mount, self.file()),
            "title": self.title(),
            "status": self.status(),
            "detail": self.detail(routes),
            "code": self.code(),
        });
        let mut out = serde_json::to_vec(&doc).expect("serializes");
        out.push(b'\n');
        out
    }
}

/// `api/index.json`: what the listing offers and where.
pub fn index(project: &Project, total: usize) -> Vec<u8> {
    let base = project.base.prefix();
    let mut total_pages = serde_json::Map::new();
    for &s in &project.page_sizes {
        total_pages.insert(s.to_string(), json!(paginate::total_pages(total, s as usize)));
    }
    let mut endpoints = serde_json::Map::new();
    for v in Variant::all(project) {
        let key = if v.prefixed { project.languages[v.lang].clone() } else { "default".into() };
        endpoints.insert(key, json!(format!("{base}/{}", v.endpoint(project))));
    }
    let doc = json!({
        "resource": project.resource,
        "languages": project.languages,
        "default_language": project.languages[project.default_language],
        "page_sizes": project.page_sizes,
        "default_page_size": project.default_page_size,
        "total": total,
        "total_pages": total_pages,
        "endpoints": endpoints,
        "openapi": format!("{base}/api/openapi.json"),
    });
    let mut out = serde_json::to_vec(&doc).expect("serializes");
    out.push(b'\n');
    out
}
