//! The document's reusable parts that come from the routing table: the `lang`, `page` and
//! `per_page` parameters with their enums and limits, the response headers, and the
//! responses of problem documents with their schemas.

use serde_json::{Map, Value, json};

use crate::routes::ErrorCode;
use crate::routes::layout::{self, API};
use crate::routes::{ALLOW, MAX_PAGE, PREFLIGHT_MAX_AGE, patterns};

pub(super) fn parameters(routes: &crate::routes::Map) -> Value {
    let sizes: Vec<u64> = routes.sizes.iter().map(|s| s.size).collect();
    json!({
        "lang": {
            "name": "lang",
            "in": "path",
            "required": true,
            "description": format!(
                "The language of the items (case-sensitive); `{}` is also served without this segment.",
                routes.default_lang()
            ),
            "schema": {"type": "string", "enum": routes.shape.languages},
        },
        "page": {
            "name": "page",
            "in": "query",
            "required": false,
            // An empty value counts as absent (docs/api.md).
            "allowEmptyValue": true,
            "description": format!(
                "The page number, 1 to the page's `total_pages` (written as `^{}$`); past the last page is 404 `page_not_found`.",
                patterns::PAGE
            ),
            "schema": {"type": "integer", "minimum": 1, "maximum": MAX_PAGE, "default": 1},
        },
        "per_page": {
            "name": "per_page",
            "in": "query",
            "required": false,
            // An empty value counts as absent (docs/api.md).
            "allowEmptyValue": true,
            "description": "Items a page: one of the configured page sizes.",
            "schema": {"type": "integer", "enum": sizes, "default": routes.shape.default_page_size},
        },
        "If-None-Match": {
            "name": "If-None-Match",
            "in": "header",
            "required": false,
            "description": "Entity tags of copies the client holds (a list, or `*`; weak comparison): a match is answered 304.",
            "schema": {"type": "string"},
        },
        "If-Modified-Since": {
            "name": "If-Modified-Since",
            "in": "header",
            "required": false,
            "description": "Without If-None-Match: a date at or after the page's Last-Modified is answered 304.",
            "schema": {"type": "string"},
        },
        "Origin": {
            "name": "Origin",
            "in": "header",
            "required": false,
            "description": "The origin of a cross-origin request (with Access-Control-Request-Method: a preflight).",
            "schema": {"type": "string"},
        },
        "Access-Control-Request-Method": {
            "name": "Access-Control-Request-Method",
            "in": "header",
            "required": false,
            "description": "The method the preflighted request will use.",
            "schema": {"type": "string"},
        },
        "Access-Control-Request-Headers": {
            "name": "Access-Control-Request-Headers",
            "in": "header",
            "required": false,
            "description": "The headers the preflighted request will send; a preflight allows them.",
            "schema": {"type": "string"},
        },
    })
}

pub(super) fn headers(routes: &crate::routes::Map) -> Value {
    json!({
        "Cache-Control": {
            "description": "The configured cache policy.",
            "schema": {"type": "string", "examples": [routes.shape.cache_control]},
        },
        "Access-Control-Allow-Origin": {
            "description": format!("Every response under /{API} may be read from any origin."),
            "schema": {"type": "string", "enum": ["*"]},
        },
        "Vary": {
            "description": "Pages may be served precompressed.",
            "schema": {"type": "string"},
        },
        "ETag": {
            "description": "The page's entity tag; a precompressed copy has its own.",
            "schema": {"type": "string"},
        },
        "Last-Modified": {
            "description": "When the page's bytes last changed (unchanged pages keep it across builds).",
            "schema": {"type": "string"},
        },
        "Allow": {
            "description": "The methods the API answers.",
            "schema": {"type": "string", "enum": [ALLOW]},
        },
        "Access-Control-Allow-Methods": {
            "description": "The methods a preflighted request may use.",
            "schema": {"type": "string", "enum": [ALLOW]},
        },
        "Access-Control-Allow-Headers": {
            "description": "The headers the preflight asked for, or `*`.",
            "schema": {"type": "string"},
        },
        "Access-Control-Max-Age": {
            "description": "Seconds a browser may keep the preflight's answer.",
            "schema": {"type": "string", "enum": [PREFLIGHT_MAX_AGE.to_string()]},
        },
    })
}

pub(super) fn responses() -> Value {
    let problem = |what: &str, schema: &str| {
        json!({
            "description": what,
            "headers": {
                "Access-Control-Allow-Origin": {"$ref": "#/components/headers/Access-Control-Allow-Origin"},
            },
            "content": {
                crate::routes::PROBLEM_JSON: {"schema": {"$ref": format!("#/components/schemas/{schema}")}},
            },
        })
    };
    let mut out = Map::new();
    out.insert(
        "BadRequest".into(),
        problem("`page` or `per_page` is not an allowed value.", "BadRequestProblem"),
    );
    out.insert(
        "NotFound".into(),
        problem("An unknown language, or a page past the last page.", "NotFoundProblem"),
    );
    let mut not_allowed = problem(
        "A method other than GET, HEAD or OPTIONS; the `Allow` header lists those three.",
        "MethodNotAllowedProblem",
    );
    not_allowed["headers"]["Allow"] =
        json!({"required": true, "schema": {"type": "string", "enum": [ALLOW]}});
    out.insert("MethodNotAllowed".into(), not_allowed);
    let header = |name: &str| json!({"$ref": format!("#/components/headers/{name}")});
    out.insert(
        "NotModified".into(),
        json!({
            "description": "The client's copy is current (If-None-Match or If-Modified-Since): \
                no body, the page's validators and caching headers.",
            "headers": {
                "ETag": header("ETag"),
                "Last-Modified": header("Last-Modified"),
                "Cache-Control": header("Cache-Control"),
                "Vary": header("Vary"),
                "Access-Control-Allow-Origin": header("Access-Control-Allow-Origin"),
            },
        }),
    );
    Value::Object(out)
}

/// The RFC 9457 problem document answering `status`, with the codes that status carries.
pub(super) fn problem_schema(status: u16) -> Value {
    let codes: Vec<&str> =
        ErrorCode::ALL.iter().filter(|c| c.status() == status).map(|c| c.code()).collect();
    let title = ErrorCode::ALL.iter().find(|c| c.status() == status).map(|c| c.title());
    json!({
        "type": "object",
        "description": format!(
            "An RFC 9457 problem document, the same bytes as `/{}`.",
            layout::error_file("{code}")
        ),
        "required": ["type", "title", "status", "detail", "code"],
        "properties": {
            "type": {"type": "string", "format": "uri-reference", "description": "The document's own URL."},
            "title": {"type": "string", "enum": [title]},
            "status": {"type": "integer", "enum": [status]},
            "detail": {"type": "string"},
            "code": {"type": "string", "enum": codes},
        },
        "additionalProperties": false,
    })
}
