//! `api/openapi.json`: an OpenAPI 3.1 description of the two endpoints of the API (docs/api.md), built
//! from the validated config ([`Project`]) and the routing table ([`Routes`]): the
//! language and page-size enums, the page limits, the envelope the pages are written in,
//! the item schema from `[fields]`, and the problem documents that answer bad requests.
//! Pure: it returns a `serde_json::Value`; `site` writes it like any other static file.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::config::{Envelope, Fallback, FieldSpec, FieldType, Project};
use crate::routes::ErrorCode;
use crate::routes::{ALLOW, MAX_PAGE, PREFLIGHT_MAX_AGE, Routes, patterns};

/// The document, pretty-printed with a trailing newline, as written to `api/openapi.json`.
pub fn render(project: &Project, routes: &Routes) -> Vec<u8> {
    let mut out = serde_json::to_vec_pretty(&document(project, routes)).expect("serializes");
    out.push(b'\n');
    out
}

/// The OpenAPI 3.1 document of the listing's endpoints.
pub fn document(project: &Project, routes: &Routes) -> Value {
    let resource = &routes.resource;
    let name = camel(resource);
    let server = match project.base.prefix() {
        p if p.is_empty() => "/".to_string(),
        p => p,
    };
    let sizes: Vec<String> = routes.sizes.iter().map(|s| s.size.to_string()).collect();
    let description = format!(
        "Static, pre-rendered pages of the `{resource}` listing. `page` must be written as \
         `^{}$` and `per_page` as one of {}; an empty value counts as absent. \
         Every page also exists as a file at `/api/{{lang}}/{resource}/{{per_page}}/{{page}}.json` \
         (and `/api/{resource}/{{per_page}}/{{page}}.json`), which static hosts that cannot \
         read query strings serve instead. Pages carry `ETag` and `Last-Modified` and answer \
         `If-None-Match` and `If-Modified-Since` with 304. OPTIONS is answered with 204 (a \
         CORS preflight gets its headers); other methods than GET, HEAD and OPTIONS with 405 \
         and the `MethodNotAllowed` problem.",
        patterns::PAGE,
        sizes.join(", ")
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
    json!({
        "openapi": "3.1.0",
        "info": {
            "title": format!("{resource} API"),
            "version": env!("CARGO_PKG_VERSION"),
            "description": description,
        },
        "servers": [{"url": server}],
        "tags": [{"name": resource}],
        "paths": {
            format!("/api/{{lang}}/{resource}"): by_lang,
            format!("/api/{resource}"): default,
        },
        "components": {
            "parameters": parameters(routes),
            "headers": headers(routes),
            "responses": responses(),
            "schemas": schemas(project, routes),
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

fn operation(id: &str, resource: &str, by_lang: bool, head: bool, routes: &Routes) -> Value {
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
            routes.default_language
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
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Page"}}},
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

fn parameters(routes: &Routes) -> Value {
    let sizes: Vec<u64> = routes.sizes.iter().map(|s| s.size).collect();
    json!({
        "lang": {
            "name": "lang",
            "in": "path",
            "required": true,
            "description": format!(
                "The language of the items (case-sensitive); `{}` is also served without this segment.",
                routes.default_language
            ),
            "schema": {"type": "string", "enum": routes.languages},
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
            "schema": {"type": "integer", "enum": sizes, "default": routes.default_size},
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

fn headers(routes: &Routes) -> Value {
    json!({
        "Cache-Control": {
            "description": "The configured cache policy.",
            "schema": {"type": "string", "examples": [routes.cache_control]},
        },
        "Access-Control-Allow-Origin": {
            "description": "Every response under /api/ may be read from any origin.",
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

fn responses() -> Value {
    let problem = |what: &str, schema: &str| {
        json!({
            "description": what,
            "headers": {
                "Access-Control-Allow-Origin": {"$ref": "#/components/headers/Access-Control-Allow-Origin"},
            },
            "content": {
                "application/problem+json": {"schema": {"$ref": format!("#/components/schemas/{schema}")}},
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
fn problem_schema(status: u16) -> Value {
    let codes: Vec<&str> =
        ErrorCode::ALL.iter().filter(|c| c.status() == status).map(|c| c.code()).collect();
    let title = ErrorCode::ALL.iter().find(|c| c.status() == status).map(|c| c.title());
    json!({
        "type": "object",
        "description": "An RFC 9457 problem document, the same bytes as `/api/errors/{code}.json`.",
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

fn schemas(project: &Project, routes: &Routes) -> Value {
    let mut out = Map::new();
    out.insert("Page".into(), page_schema(project, routes));
    out.insert("Item".into(), item_schema(project));
    out.insert("BadRequestProblem".into(), problem_schema(400));
    out.insert("NotFoundProblem".into(), problem_schema(404));
    out.insert("MethodNotAllowedProblem".into(), problem_schema(405));
    Value::Object(out)
}

/// A closed object: every property listed is present.
fn object(properties: Value) -> Value {
    let required: Vec<String> =
        properties.as_object().expect("an object of properties").keys().cloned().collect();
    json!({
        "type": "object",
        "required": required,
        "properties": properties,
        "additionalProperties": false,
    })
}

fn page_schema(project: &Project, routes: &Routes) -> Value {
    let sizes: Vec<u64> = routes.sizes.iter().map(|s| s.size).collect();
    let largest = sizes.iter().copied().max().unwrap_or(0);
    let url = json!({"type": "string", "format": "uri-reference"});
    let url_or_null = json!({"type": ["string", "null"], "format": "uri-reference"});
    let page = json!({"type": "integer", "minimum": 1, "maximum": MAX_PAGE});
    let count = json!({"type": "integer", "minimum": 0});
    let item_number = json!({"type": ["integer", "null"], "minimum": 1});
    let per_page = json!({"type": "integer", "enum": sizes});
    let data = json!({
        "type": "array",
        "maxItems": largest,
        "items": {"$ref": "#/components/schemas/Item"},
    });
    let laravel_links = json!({
        "type": "array",
        "items": {
            "type": "object",
            "required": ["url", "label", "active"],
            "properties": {
                "url": url_or_null,
                "label": {"type": "string"},
                "page": {"type": ["integer", "null"], "minimum": 1},
                "active": {"type": "boolean"},
            },
            "additionalProperties": false,
        },
    });
    let mut schema = match &project.envelope {
        Envelope::Standard => object(json!({
            "page": page,
            "per_page": per_page,
            "total": count,
            "total_pages": page,
            "data": data,
            "links": object(json!({
                "first": url,
                "prev": url_or_null,
                "next": url_or_null,
                "last": url,
            })),
        })),
        Envelope::Laravel => object(json!({
            "current_page": page,
            "data": data,
            "first_page_url": url,
            "from": item_number,
            "last_page": page,
            "last_page_url": url,
            "links": laravel_links,
            "next_page_url": url_or_null,
            "path": url,
            "per_page": per_page,
            "prev_page_url": url_or_null,
            "to": item_number,
            "total": count,
        })),
        Envelope::LaravelResource => object(json!({
            "data": data,
            "links": object(json!({
                "first": url,
                "last": url,
                "prev": url_or_null,
                "next": url_or_null,
            })),
            "meta": object(json!({
                "current_page": page,
                "from": item_number,
                "last_page": page,
                "links": laravel_links,
                "path": url,
                "per_page": per_page,
                "to": item_number,
                "total": count,
            })),
        })),
        // A template may render any JSON value; nothing more can be promised about it.
        Envelope::Template(name) => json!({
            "description": format!("Rendered by the project's template `templates/{name}.json.j2`."),
        }),
    };
    if let Some(obj) = schema.as_object_mut() {
        let envelope = project.envelope.to_string();
        obj.insert("title".into(), json!(format!("A page in the `{envelope}` envelope")));
    }
    schema
}

/// A declared field and the dotted fields below it (`location` for `location.lat`).
#[derive(Default)]
struct Node<'a> {
    spec: Option<&'a FieldSpec>,
    children: BTreeMap<&'a str, Node<'a>>,
}

impl Node<'_> {
    /// Whether every record has this field, not null: it is required, or something
    /// below it is (which needs an object here).
    fn present(&self) -> bool {
        self.spec.is_some_and(|s| s.required) || self.children.values().any(Node::present)
    }
}

fn type_schema(kind: Option<FieldType>) -> Value {
    match kind {
        Some(FieldType::String) => json!({"type": "string"}),
        Some(FieldType::Integer) => json!({"type": "integer"}),
        Some(FieldType::Number) => json!({"type": "number"}),
        Some(FieldType::Boolean) => json!({"type": "boolean"}),
        Some(FieldType::List) => json!({"type": "array"}),
        Some(FieldType::Json) | None => json!({}),
    }
}

/// Adds `null` to a schema's `type` (a schema without one already allows null).
fn or_null(mut schema: Value) -> Value {
    if let Some(Value::String(t)) = schema.get("type").cloned() {
        schema["type"] = json!([t, "null"]);
    }
    schema
}

fn field_schema(node: &Node, fallback: Fallback) -> Value {
    let spec = node.spec.cloned().unwrap_or_default();
    if spec.localized {
        // One value per language: the declared type (a string unless declared), null when
        // a missing translation resolves to null: always with fallback "null", and with
        // "default" when the default language may be missing too (the field is optional).
        let nullable = match fallback {
            Fallback::Null => true,
            Fallback::Default => !spec.required,
            Fallback::Error => false,
        };
        let mut schema = type_schema(Some(spec.kind.unwrap_or(FieldType::String)));
        if let Some(obj) = schema.as_object_mut() {
            obj.insert("description".into(), json!("Localized: the value in the page's language."));
        }
        return if nullable { or_null(schema) } else { schema };
    }
    let mut schema = if node.children.is_empty() {
        type_schema(spec.kind)
    } else {
        let mut properties = Map::new();
        let mut required = Vec::new();
        for (name, child) in &node.children {
            properties.insert((*name).to_string(), field_schema(child, fallback));
            if child.present() {
                required.push(*name);
            }
        }
        json!({"type": "object", "properties": properties, "required": required})
    };
    if !node.present() {
        schema = or_null(schema);
    }
    schema
}

/// The schema of one item: `id`, every field declared in `[fields]` (dotted names nest),
/// restricted to `listing.fields` when that is set. Undeclared fields may appear unless a
/// projection lists exactly what items hold.
fn item_schema(project: &Project) -> Value {
    let mut root = Node::default();
    for (name, spec) in &project.schema {
        let mut node = &mut root;
        for part in name.split('.') {
            node = node.children.entry(part).or_default();
        }
        node.spec = Some(spec);
    }
    // Ids are integers or non-empty strings unless `[fields.id]` declares a type.
    let id = match root.children.get("id").and_then(|n| n.spec).and_then(|s| s.kind) {
        None => json!({"type": ["integer", "string"]}),
        kind => type_schema(kind),
    };
    item_schema_with(project, &root, id)
}

fn item_schema_with(project: &Project, root: &Node, id: Value) -> Value {
    let projected = !project.fields.is_empty();
    let kept = |name: &str| !projected || project.fields.iter().any(|f| f == name);
    let mut properties = Map::new();
    let mut required = Vec::new();
    if kept("id") {
        properties.insert("id".into(), id);
        required.push("id".to_string());
    }
    for (name, node) in &root.children {
        if *name == "id" || !kept(name) {
            continue;
        }
        properties.insert((*name).to_string(), field_schema(node, project.fallback));
        if node.present() {
            required.push((*name).to_string());
        }
    }
    if projected {
        for name in &project.fields {
            properties.entry(name.clone()).or_insert_with(|| json!({}));
        }
    }
    json!({
        "type": "object",
        "description": "One record, its localized fields resolved to the page's language.",
        "required": required,
        "properties": properties,
        "additionalProperties": !projected,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(toml: &str) -> Project {
        crate::config::test_project(toml)
    }

    fn doc(toml: &str, total: usize) -> Value {
        let p = project(toml);
        document(&p, &Routes::new(&p, total))
    }

    const SAMPLE: &str = r#"
[listing]
languages = ["en", "fr"]
page_sizes = [10, 25]
default_page_size = 25
[fields.id]
type = "integer"
[fields.name]
localized = true
required = true
[fields.summary]
localized = true
[fields."location.lat"]
type = "number"
required = true
[fields."location.lon"]
type = "number"
[fields.tags]
type = "list"
[fields.open]
type = "boolean"
required = true
"#;

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
        assert_eq!(props["tags"], json!({"type": ["array", "null"]}));
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
        assert_eq!(keys("laravel").len(), 13);
        assert_eq!(keys("laravel")[0], "current_page");
        assert_eq!(keys("laravel-resource"), ["data", "links", "meta"]);
        assert!(keys("template:mine").is_empty(), "a template's page may be any JSON");
    }

    #[test]
    fn operation_ids_are_camel_case() {
        assert_eq!(camel("attractions"), "Attractions");
        assert_eq!(camel("my-places_2"), "MyPlaces2");
    }
}
