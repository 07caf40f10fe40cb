//! The schemas of what the API answers with: a page in the configured envelope (standard,
//! Laravel's three, or a template's, which is left open) and an item from `[fields]`, with
//! its types, nesting, required keys and what the i18n fallback makes nullable.

use std::collections::BTreeMap;

use serde_json::{Map, Value, json};

use crate::config::{Envelope, Fallback, FieldSpec, FieldType, Project};
use crate::routes::MAX_PAGE;

use super::parameters::problem_schema;

/// What of the project an item's schema is made from: `[fields]`, `listing.fields` and
/// the i18n fallback (which makes localized fields nullable).
#[derive(Debug, Clone, Copy)]
pub struct Items<'a> {
    pub schema: &'a BTreeMap<String, FieldSpec>,
    pub fields: &'a [String],
    pub fallback: Fallback,
}

impl<'a> Items<'a> {
    pub fn of(project: &'a Project) -> Items<'a> {
        Items { schema: &project.schema, fields: &project.fields, fallback: project.fallback }
    }
}

pub(super) fn schemas(items: Items, routes: &crate::routes::Map) -> Value {
    let mut out = Map::new();
    out.insert("Page".into(), page_schema(routes));
    out.insert("Item".into(), item_schema(items));
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

fn page_schema(routes: &crate::routes::Map) -> Value {
    let shape = &routes.shape;
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
    let mut schema = match &shape.envelope {
        Envelope::Standard if shape.totals => object(json!({
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
        // `[listing] totals = false`: nothing that follows the count.
        Envelope::Standard => object(json!({
            "page": page,
            "per_page": per_page,
            "data": data,
            "links": object(json!({
                "first": url,
                "prev": url_or_null,
                "next": url_or_null,
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
        Envelope::LaravelSimple => object(json!({
            "current_page": page,
            "data": data,
            "first_page_url": url,
            "from": item_number,
            "next_page_url": url_or_null,
            "path": url,
            "per_page": per_page,
            "prev_page_url": url_or_null,
            "to": item_number,
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
        let envelope = shape.envelope.to_string();
        // `totals` changes the standard envelope and a template's context only.
        let counted =
            shape.totals || !matches!(shape.envelope, Envelope::Standard | Envelope::Template(_));
        let title = match counted {
            true => format!("A page in the `{envelope}` envelope"),
            false => format!("A page in the `{envelope}` envelope, without totals"),
        };
        obj.insert("title".into(), json!(title));
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
        // A list from CSV holds strings; from JSON, any value: `{}` says so.
        Some(FieldType::List) => json!({"type": "array", "items": {}}),
        Some(FieldType::Json) | None => json!({}),
        Some(FieldType::Date) => json!({"type": "string", "format": "date"}),
        Some(FieldType::Datetime) => json!({"type": "string", "format": "date-time"}),
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
fn item_schema(items: Items) -> Value {
    let mut root = Node::default();
    for (name, spec) in items.schema {
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
    item_schema_with(items, &root, id)
}

fn item_schema_with(items: Items, root: &Node, id: Value) -> Value {
    let projected = !items.fields.is_empty();
    let kept = |name: &str| !projected || items.fields.iter().any(|f| f == name);
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
        properties.insert((*name).to_string(), field_schema(node, items.fallback));
        if node.present() {
            required.push((*name).to_string());
        }
    }
    if projected {
        for name in items.fields {
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
