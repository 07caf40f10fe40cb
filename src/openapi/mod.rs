//! `api/openapi.json`: an OpenAPI 3.1 description of the two endpoints of the API (docs/api.md), built
//! from the routing table ([`Map`]), `[openapi]` and the items' fields ([`Items`]): the
//! language and page-size enums, the page limits, the envelope the pages are written in,
//! the item schema from `[fields]`, and the problem documents that answer bad requests.
//! Pure: it returns a `serde_json::Value`; `site` writes it like any other static file.
//!
//! The paths and operations are here; `parameters.rs` holds the reusable parameters,
//! headers and responses (the problem documents), `schemas.rs` the page envelopes' and the
//! item's schemas.

mod parameters;
mod schemas;

use serde_json::{Value, json};

use crate::config::OpenApiConfig;
use crate::routes::{Map, layout, patterns};

use parameters::{headers, parameters, responses};
pub use schemas::Items;
use schemas::schemas;

/// The document, pretty-printed with a trailing newline, as written to `api/openapi.json`.
pub fn render(info: &OpenApiConfig, items: Items, routes: &Map) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(&document(info, items, routes)).expect("serializes");
    out.push(b'\n');
    out
}

/// The OpenAPI 3.1 document of the listing's endpoints: the routes' shape and sizes,
/// `[openapi]`'s licence and contact, and the item's schema.
pub fn document(openapi: &OpenApiConfig, items: Items, routes: &Map) -> Value {
    let resource = &routes.shape.resource;
    let name = camel(resource);
    let server = match routes.shape.base.prefix() {
        p if p.is_empty() => "/".to_string(),
        p => p,
    };
    let sizes: Vec<String> = routes.sizes.iter().map(|s| s.size.to_string()).collect();
    let description = format!(
        "Static, pre-rendered pages of the `{resource}` listing. `page` must be written as \
         `^{}$` and `per_page` as one of {}; an empty value counts as absent. \
         Every page also exists as a file at `/{}` (and `/{}`), which static hosts that cannot \
         read query strings serve instead. Pages carry `ETag` and `Last-Modified` and answer \
         `If-None-Match` and `If-Modified-Since` with 304. OPTIONS is answered with 204 (a \
         CORS preflight gets its headers); other methods than GET, HEAD and OPTIONS with 405 \
         and the `MethodNotAllowed` problem.",
        patterns::PAGE,
        sizes.join(", "),
        layout::page_file(&layout::endpoint(Some("{lang}"), resource), "{per_page}", "{page}"),
        layout::page_file(&layout::endpoint(None, resource), "{per_page}", "{page}"),
    );
    let by_lang = json!({
        "get": operation(&format!("list{name}InLanguage"), resource, true, false, routes),
        "head": operation(&format!("head{name}InLanguage"), resource, true, true, routes),
        "options": options(&format!("options{name}InLanguage"), resource, true),
    });
    let default = json!({
        "get": operation(&format!("list{name}"), resource, false, false, routes),
        "head": operation(&format!("head{name}"), resource, false, true, routes),
        "options": options(&format!("options{name}"), resource, false),
    });
    let mut info = json!({
        "title": format!("{resource} API"),
        "version": env!("CARGO_PKG_VERSION"),
        "description": description,
    });
    let o = openapi;
    if !o.license.is_empty() || !o.license_url.is_empty() {
        let name = if o.license.is_empty() { "License" } else { o.license.as_str() };
        info["license"] = json!({"name": name});
        if !o.license.is_empty() {
            info["license"]["identifier"] = json!(o.license);
        } else {
            info["license"]["url"] = json!(o.license_url);
        }
    }
    let contact: serde_json::Map<String, Value> =
        [("name", &o.contact_name), ("email", &o.contact_email), ("url", &o.contact_url)]
            .into_iter()
            .filter(|(_, v)| !v.is_empty())
            .map(|(k, v)| (k.to_string(), json!(v)))
            .collect();
    if !contact.is_empty() {
        info["contact"] = Value::Object(contact);
    }
    json!({
        "openapi": "3.1.0",
        "info": info,
        // A public, read-only API: no operation needs credentials.
        "security": [],
        "servers": [{"url": server}],
        "tags": [{"name": resource, "description": format!("The {resource}, a page at a time, in each language")}],
        "paths": {
            format!("/{}", layout::endpoint(Some("{lang}"), resource)): by_lang,
            format!("/{}", layout::endpoint(None, resource)): default,
        },
        "components": {
            "parameters": parameters(routes),
            "headers": headers(routes),
            "responses": responses(),
            "schemas": schemas(items, routes),
        },
    })
}

/// `my-places_2` → `MyPlaces2`: the resource's part of an operationId.
fn camel(resource: &str) -> String {
    resource
        .split(['-', '_'])
        .flat_map(|word| {
            let mut chars = word.chars();
            chars.next().map(|c| c.to_ascii_uppercase()).into_iter().chain(chars)
        })
        .collect()
}

fn operation(id: &str, resource: &str, by_lang: bool, head: bool, routes: &Map) -> Value {
    let mut params = Vec::new();
    if by_lang {
        params.push(json!({"$ref": "#/components/parameters/lang"}));
    }
    params.push(json!({"$ref": "#/components/parameters/page"}));
    params.push(json!({"$ref": "#/components/parameters/per_page"}));
    params.push(json!({"$ref": "#/components/parameters/If-None-Match"}));
    params.push(json!({"$ref": "#/components/parameters/If-Modified-Since"}));
    let which = if by_lang {
        "in the language named by the path".to_string()
    } else {
        format!(
            "in the default language ({}); its links point at this endpoint",
            routes.default_lang()
        )
    };
    let summary = if head {
        format!("The headers of a page of {resource}, without its body")
    } else {
        format!("A page of {resource}")
    };
    let page_headers = json!({
        "Cache-Control": {"$ref": "#/components/headers/Cache-Control"},
        "Access-Control-Allow-Origin": {"$ref": "#/components/headers/Access-Control-Allow-Origin"},
        "Vary": {"$ref": "#/components/headers/Vary"},
        "ETag": {"$ref": "#/components/headers/ETag"},
        "Last-Modified": {"$ref": "#/components/headers/Last-Modified"},
    });
    let (ok, bad, missing) = if head {
        (
            json!({"description": "The page exists; GET returns its body.", "headers": page_headers}),
            json!({"description": "`invalid_page` or `invalid_per_page` (no body)."}),
            json!({"description": "`unknown_lang` or `page_not_found` (no body)."}),
        )
    } else {
        (
            json!({
                "description": "The page.",
                "headers": page_headers,
                "content": {crate::routes::JSON.media: {"schema": {"$ref": "#/components/schemas/Page"}}},
            }),
            json!({"$ref": "#/components/responses/BadRequest"}),
            json!({"$ref": "#/components/responses/NotFound"}),
        )
    };
    json!({
        "operationId": id,
        "tags": [resource],
        "summary": summary,
        "description": format!("Page `page` of the listing, `per_page` items a page, {which}."),
        "parameters": params,
        "responses": {
            "200": ok,
            "304": {"$ref": "#/components/responses/NotModified"},
            "400": bad,
            "404": missing,
        },
    })
}

/// OPTIONS: answered before any other rule (an unknown language too), always 204.
fn options(id: &str, resource: &str, by_lang: bool) -> Value {
    let mut params = Vec::new();
    if by_lang {
        // Method rules come first: any language segment gets the same answer.
        params.push(json!({
            "name": "lang",
            "in": "path",
            "required": true,
            "description": "Any segment: OPTIONS is answered before the language is checked.",
            "schema": {"type": "string"},
        }));
    }
    for name in ["Origin", "Access-Control-Request-Method", "Access-Control-Request-Headers"] {
        params.push(json!({"$ref": format!("#/components/parameters/{name}")}));
    }
    let header = |name: &str| json!({"$ref": format!("#/components/headers/{name}")});
    json!({
        "operationId": id,
        "tags": [resource],
        "summary": "A CORS preflight, or the methods the endpoint answers",
        "description": "With `Origin` and `Access-Control-Request-Method` (a CORS preflight): \
            the Access-Control-Allow-* headers and Access-Control-Max-Age. Without them: `Allow`. \
            Either way 204 with no body, whatever the language or query.",
        "parameters": params,
        "responses": {
            "204": {
                "description": "No body. A preflight gets the Access-Control-Allow-* headers and \
                    Access-Control-Max-Age, any other OPTIONS `Allow`.",
                "headers": {
                    "Access-Control-Allow-Origin": header("Access-Control-Allow-Origin"),
                    "Access-Control-Allow-Methods": header("Access-Control-Allow-Methods"),
                    "Access-Control-Allow-Headers": header("Access-Control-Allow-Headers"),
                    "Access-Control-Max-Age": header("Access-Control-Max-Age"),
                    "Allow": header("Allow"),
                },
            },
        },
    })
}
#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Project;

    fn project(toml: &str) -> Project {
        crate::config::test_project(toml)
    }

    fn doc(toml: &str, total: usize) -> Value {
        let p = project(toml);
        document(&p.openapi, Items::of(&p), &Map::new(&p.shape, total))
    }

    const SAMPLE: &str = concat!(
        "[listing]\nlanguages = [\"en\", \"fr\"]\npage_sizes = [10, 25]\ndefault_page_size = 25\n",
        include_str!("../../tests/fixtures/fields.toml")
    );

    #[test]
    fn enums_limits_and_defaults_come_from_the_config() {
        let d = doc(SAMPLE, 67);
        assert_eq!(d["openapi"], "3.1.0");
        let params = &d["components"]["parameters"];
        assert_eq!(params["lang"]["in"], "path");
        assert_eq!(params["lang"]["schema"]["enum"], json!(["en", "fr"]));
        assert_eq!(
            params["per_page"]["schema"],
            json!({"type": "integer", "enum": [10, 25], "default": 25})
        );
        assert_eq!(
            params["page"]["schema"],
            json!({"type": "integer", "minimum": 1, "maximum": 999_999_999, "default": 1})
        );
        let paths = d["paths"].as_object().unwrap();
        assert_eq!(
            paths.keys().collect::<Vec<_>>(),
            ["/api/{lang}/attractions", "/api/attractions"]
        );
        assert_eq!(d["paths"]["/api/attractions"]["get"]["operationId"], "listAttractions");
        assert_eq!(
            d["paths"]["/api/{lang}/attractions"]["head"]["operationId"],
            "headAttractionsInLanguage"
        );
    }

    #[test]
    fn servers_follow_base_url() {
        assert_eq!(doc("", 0)["servers"], json!([{"url": "/"}]));
        assert_eq!(
            doc("base_url = \"https://example.org/travel/\"", 0)["servers"],
            json!([{"url": "https://example.org/travel"}])
        );
    }

    #[test]
    fn item_schema_types_nesting_and_nullability() {
        let item = &doc(SAMPLE, 1)["components"]["schemas"]["Item"];
        let props = &item["properties"];
        assert_eq!(props["id"], json!({"type": "integer"}));
        // Required and localized with fallback "default": never null.
        assert_eq!(props["name"]["type"], "string");
        // Optional and localized: null when the default language is missing too.
        assert_eq!(props["summary"]["type"], json!(["string", "null"]));
        assert_eq!(props["tags"], json!({"type": ["array", "null"], "items": {}}));
        assert_eq!(props["open"], json!({"type": "boolean"}));
        assert_eq!(
            props["location"],
            json!({"type": "object", "required": ["lat"], "properties": {
                "lat": {"type": "number"}, "lon": {"type": ["number", "null"]}}})
        );
        assert_eq!(item["required"], json!(["id", "location", "name", "open"]));
        assert_eq!(item["additionalProperties"], true);
    }

    #[test]
    fn fallback_null_makes_every_localized_field_nullable_and_error_none() {
        let null = doc(&format!("{SAMPLE}\n[i18n]\nfallback = \"null\""), 1);
        assert_eq!(
            null["components"]["schemas"]["Item"]["properties"]["name"]["type"],
            json!(["string", "null"])
        );
        let error = doc(&format!("{SAMPLE}\n[i18n]\nfallback = \"error\""), 1);
        assert_eq!(
            error["components"]["schemas"]["Item"]["properties"]["summary"]["type"],
            "string"
        );
    }

    #[test]
    fn a_projection_closes_the_item_to_the_listed_fields() {
        let d =
            doc("[listing]\nfields = [\"name\", \"city\"]\n[fields.name]\nlocalized = true\n", 1);
        let item = &d["components"]["schemas"]["Item"];
        assert_eq!(item["additionalProperties"], false);
        let keys: Vec<&String> = item["properties"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["name", "city"]);
        assert_eq!(item["properties"]["city"], json!({}));
        assert_eq!(item["required"], json!([]));
        // Undeclared ids may be integers or strings.
        let open = doc("", 1);
        assert_eq!(
            open["components"]["schemas"]["Item"]["properties"]["id"]["type"],
            json!(["integer", "string"])
        );
    }

    #[test]
    fn problems_carry_the_codes_of_their_status() {
        let d = doc("", 1);
        let s = &d["components"]["schemas"];
        assert_eq!(
            s["BadRequestProblem"]["properties"]["code"]["enum"],
            json!(["invalid_page", "invalid_per_page"])
        );
        assert_eq!(
            s["NotFoundProblem"]["properties"]["code"]["enum"],
            json!(["unknown_lang", "page_not_found", "not_found"])
        );
        assert_eq!(s["MethodNotAllowedProblem"]["properties"]["status"]["enum"], json!([405]));
        let get = &d["paths"]["/api/attractions"]["get"]["responses"];
        assert_eq!(get["400"]["$ref"], "#/components/responses/BadRequest");
        let head = &d["paths"]["/api/attractions"]["head"]["responses"];
        assert!(head["200"].get("content").is_none(), "HEAD has no body");
    }

    #[test]
    fn each_envelope_has_its_own_page_schema() {
        let keys = |envelope: &str| -> Vec<String> {
            let d = doc(&format!("[listing]\nenvelope = \"{envelope}\""), 1);
            d["components"]["schemas"]["Page"]["required"]
                .as_array()
                .map(|a| a.iter().map(|k| k.as_str().unwrap().to_string()).collect())
                .unwrap_or_default()
        };
        assert_eq!(keys("standard"), ["page", "per_page", "total", "total_pages", "data", "links"]);
        let d = doc("[listing]\ntotals = false", 1);
        let page = &d["components"]["schemas"]["Page"];
        assert_eq!(page["required"], json!(["page", "per_page", "data", "links"]));
        assert_eq!(page["properties"]["links"]["required"], json!(["first", "prev", "next"]));
        assert_eq!(page["title"], "A page in the `standard` envelope, without totals");
        assert_eq!(keys("laravel").len(), 13);
        assert_eq!(keys("laravel")[0], "current_page");
        assert_eq!(keys("laravel-resource"), ["data", "links", "meta"]);
        assert_eq!(
            keys("laravel-simple"),
            [
                "current_page",
                "data",
                "first_page_url",
                "from",
                "next_page_url",
                "path",
                "per_page",
                "prev_page_url",
                "to"
            ]
        );
        assert!(keys("template:mine").is_empty(), "a template's page may be any JSON");
    }

    #[test]
    fn operation_ids_are_camel_case() {
        assert_eq!(camel("attractions"), "Attractions");
        assert_eq!(camel("my-places_2"), "MyPlaces2");
    }
}
