//! `envelope = "template:NAME"` (docs/api.md, "Envelopes"): a user's minijinja template renders each page.
//!
//! The template is compiled once per build ([`PageTemplate::compile`]) and rendered for
//! every page from many threads. Its context is `page`, `per_page`, `total`,
//! `total_pages`, `from`, `to`, `lang`, `prefixed`, `resource`, `links` (`first`, `prev`,
//! `next`, `last`, as in the standard envelope) and `items`: the page's items as one JSON
//! array, a safe string inserted as is. With `[listing] totals = false`, `total`,
//! `total_pages` and `links.last` are not in the context (printing one is an error), so
//! that no page the template writes can depend on the listing's count. Autoescape is off; `|tojson` writes a value as
//! compact JSON (folio's own filter: minijinja's escapes `&` and `<` for HTML);
//! printing an undefined name is an error (minijinja's semi-strict mode), so a typo fails
//! with its line instead of writing nothing. The output must parse as JSON; a trailing
//! newline is added when the template does not end with one (minijinja drops a
//! template's final newline, as Jinja does).
//!
//! This module does not read the file: the caller passes its text and the path to show.

use std::sync::Arc;

use minijinja::value::{Enumerator, Object, Value};
use minijinja::{AutoEscape, Environment, ErrorKind, UndefinedBehavior};
use serde::de::IgnoredAny;

use super::page::{Links, PageInfo};
use crate::config::Shape;
use crate::routes::layout::Variant;

/// A compiled page template.
pub struct PageTemplate {
    env: Environment<'static>,
    /// The template's path as messages show it; also its name inside `env`.
    shown: String,
    resource: Value,
    /// `[listing] totals`: the count is in the context.
    totals: bool,
    /// Per variant, in [`Variant::all`] order: `lang` and `prefixed`.
    variants: Vec<(Value, bool)>,
}

/// Why a page could not be rendered, and by which template.
#[derive(Debug)]
pub struct PageError {
    template: String,
    cause: Cause,
}

#[derive(Debug)]
enum Cause {
    /// The template failed while rendering (an undefined name, a bad filter argument…).
    Render(minijinja::Error),
    /// The template rendered, but its output is not JSON.
    Json(serde_json::Error),
}

impl PageError {
    /// The message, naming the template and the page (`page` as it should be shown):
    /// `template:line: message (rendering page)` or, for output that is not JSON,
    /// `template: page:line:column: message`.
    pub fn describe(&self, page: &str) -> String {
        match &self.cause {
            Cause::Render(e) => format!("{} (rendering {page})", located(&self.template, e)),
            Cause::Json(e) => {
                let text = e.to_string();
                let suffix = format!(" at line {} column {}", e.line(), e.column());
                let what = text.strip_suffix(&suffix).unwrap_or(&text);
                format!(
                    "{}: {page}:{}:{}: the output is not valid JSON: {what}",
                    self.template,
                    e.line(),
                    e.column()
                )
            }
        }
    }
}

/// `|tojson`, as minijinja's but compact and not HTML-escaped (`&` stays `&`): pages are
/// JSON files, never embedded in HTML. `|tojson(2)` indents by two spaces.
fn tojson(value: &Value, indent: Option<usize>) -> Result<Value, minijinja::Error> {
    if value.is_undefined() {
        return Err(minijinja::Error::from(ErrorKind::UndefinedError));
    }
    let text = match indent {
        None => serde_json::to_string(value),
        Some(n) => {
            let spaces = vec![b' '; n];
            let mut out = Vec::new();
            let formatter = serde_json::ser::PrettyFormatter::with_indent(&spaces);
            let mut ser = serde_json::Serializer::with_formatter(&mut out, formatter);
            serde::Serialize::serialize(value, &mut ser)
                .map(|()| String::from_utf8(out).expect("serde_json writes UTF-8"))
        }
    };
    text.map(Value::from_safe_string).map_err(|e| {
        minijinja::Error::new(ErrorKind::InvalidOperation, "cannot serialize to JSON")
            .with_source(e)
    })
}

/// `kind: detail`, without minijinja's ` (in name:line)` suffix: callers put the location
/// first, compiler-style.
fn message(e: &minijinja::Error) -> String {
    match e.detail() {
        Some(detail) => format!("{}: {detail}", e.kind()),
        None => e.kind().to_string(),
    }
}

fn located(shown: &str, e: &minijinja::Error) -> String {
    match e.line() {
        Some(line) => format!("{shown}:{line}: {}", message(e)),
        None => format!("{shown}: {}", message(e)),
    }
}

impl PageTemplate {
    /// Compiles `source`, the text of the template shown as `shown`; a syntax error comes
    /// back as `path:line: message`.
    pub fn compile(shown: &str, source: String, shape: &Shape) -> Result<PageTemplate, String> {
        let mut env = Environment::new();
        env.set_auto_escape_callback(|_| AutoEscape::None);
        env.set_undefined_behavior(UndefinedBehavior::SemiStrict);
        env.add_filter("tojson", tojson);
        env.add_template_owned(shown.to_string(), source).map_err(|e| located(shown, &e))?;
        let variants = Variant::all(shape.languages.len(), shape.default_language)
            .into_iter()
            .map(|v| (Value::from(shape.languages[v.lang].as_str()), v.prefixed))
            .collect();
        Ok(PageTemplate {
            env,
            shown: shown.to_string(),
            resource: Value::from(shape.resource.as_str()),
            totals: shape.totals,
            variants,
        })
    }

    /// Appends one page of the variant numbered `variant`; `items` appends the items,
    /// comma-separated, without brackets.
    pub fn render(
        &self,
        variant: usize,
        info: &PageInfo,
        links: &Links,
        out: &mut Vec<u8>,
        items: impl FnOnce(&mut Vec<u8>),
    ) -> Result<(), PageError> {
        let start = out.len();
        out.push(b'[');
        items(out);
        out.push(b']');
        let array = String::from_utf8(out[start..].to_vec())
            .expect("items are serialized JSON, which is UTF-8");
        out.truncate(start);

        let (lang, prefixed) = &self.variants[variant];
        let page = info.page;
        let span = info.span();
        let ctx = PageContext {
            info: *info,
            totals: self.totals,
            from: span.map(|s| s.0),
            to: span.map(|s| s.1),
            lang: lang.clone(),
            prefixed: *prefixed,
            resource: self.resource.clone(),
            links: Value::from_object(PageLinks {
                first: Value::from(links.page(info.per_page, 1)),
                prev: Value::from((page > 1).then(|| links.page(info.per_page, page - 1))),
                next: Value::from(
                    (page < info.total_pages).then(|| links.page(info.per_page, page + 1)),
                ),
                last: self.totals.then(|| Value::from(links.page(info.per_page, info.total_pages))),
            }),
            items: Value::from_safe_string(array),
        };
        let template = self.env.get_template(&self.shown).expect("added in compile()");
        let fail = |cause| PageError { template: self.shown.clone(), cause };
        template
            .render_captured_to(Value::from_object(ctx), &mut *out)
            .map_err(|e| fail(Cause::Render(e)))?;
        if out.last() != Some(&b'\n') {
            out.push(b'\n');
        }
        serde_json::from_slice::<IgnoredAny>(&out[start..]).map_err(|e| fail(Cause::Json(e)))?;
        Ok(())
    }
}

/// The context of one page; values are made when the template asks for them.
#[derive(Debug)]
struct PageContext {
    info: PageInfo,
    totals: bool,
    from: Option<usize>,
    to: Option<usize>,
    lang: Value,
    prefixed: bool,
    resource: Value,
    links: Value,
    items: Value,
}

impl Object for PageContext {
    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        Some(match key.as_str()? {
            "page" => Value::from(self.info.page),
            "per_page" => Value::from(self.info.per_page),
            "total" if self.totals => Value::from(self.info.total),
            "total_pages" if self.totals => Value::from(self.info.total_pages),
            "from" => Value::from(self.from),
            "to" => Value::from(self.to),
            "lang" => self.lang.clone(),
            "prefixed" => Value::from(self.prefixed),
            "resource" => self.resource.clone(),
            "links" => self.links.clone(),
            "items" => self.items.clone(),
            _ => return None,
        })
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        const ALL: [&str; 11] = [
            "page",
            "per_page",
            "total",
            "total_pages",
            "from",
            "to",
            "lang",
            "prefixed",
            "resource",
            "links",
            "items",
        ];
        const COUNT_FREE: [&str; 9] =
            ["page", "per_page", "from", "to", "lang", "prefixed", "resource", "links", "items"];
        Enumerator::Str(if self.totals { &ALL } else { &COUNT_FREE })
    }
}

/// `links`: the standard envelope's four links (`prev`/`next` none at the ends; no
/// `last` without totals).
#[derive(Debug)]
struct PageLinks {
    first: Value,
    prev: Value,
    next: Value,
    last: Option<Value>,
}

impl Object for PageLinks {
    fn get_value(self: &Arc<Self>, key: &Value) -> Option<Value> {
        Some(match key.as_str()? {
            "first" => self.first.clone(),
            "prev" => self.prev.clone(),
            "next" => self.next.clone(),
            "last" => return self.last.clone(),
            _ => return None,
        })
    }

    fn enumerate(self: &Arc<Self>) -> Enumerator {
        match self.last {
            Some(_) => Enumerator::Str(&["first", "prev", "next", "last"]),
            None => Enumerator::Str(&["first", "prev", "next"]),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::path::Path;

    use super::*;
    use crate::config::{Overrides, Project, UrlStyle};

    fn project() -> Project {
        project_with("")
    }

    fn project_with(extra: &str) -> Project {
        let text =
            format!("[listing]\nlanguages = [\"en\", \"fr\"]\nresource = \"sights\"\n{extra}");
        let text = text.as_str();
        let root = Path::new("/nonexistent/project");
        Project::from_toml(text, Path::new("folio.toml"), root, root, &Overrides::default())
            .expect("valid")
    }

    fn links() -> Links {
        Links::from_parts("/api/fr/sights".into(), UrlStyle::Query, 10)
    }

    /// Renders `source` for page `page` of `total` items (items `{"id":N}`) in variant 1
    /// (`fr`, prefixed).
    fn render(source: &str, total: usize, page: usize) -> Result<String, String> {
        render_in(&project(), source, total, page)
    }

    fn render_in(
        project: &crate::config::Project,
        source: &str,
        total: usize,
        page: usize,
    ) -> Result<String, String> {
        let t = PageTemplate::compile("templates/t.json.j2", source.into(), &project.shape)?;
        let info = PageInfo::new(total, 10, page);
        let ids: Vec<String> = crate::paginate::items_of_page(total, 10, page)
            .map(|i| format!("{{\"id\":{},\"n\":\"<&>\\\"\"}}", i + 1))
            .collect();
        let mut out = b"kept".to_vec();
        t.render(1, &info, &links(), &mut out, |o| o.extend_from_slice(ids.join(",").as_bytes()))
            .map_err(|e| e.describe("output/api/fr/sights/10/1.json"))?;
        assert!(out.starts_with(b"kept"), "appends to the buffer");
        Ok(String::from_utf8(out[4..].to_vec()).unwrap())
    }

    #[test]
    fn context_has_numbers_links_language_and_raw_items() {
        let source = r#"{"p":{{ page }},"s":{{ per_page }},"t":{{ total }},"n":{{ total_pages }},
"from":{{ from|tojson }},"to":{{ to|tojson }},"lang":{{ lang|tojson }},"prefixed":{{ prefixed|tojson }},
"r":{{ resource|tojson }},"links":{{ links|tojson }},"items":{{ items }}}
"#;
        let out = render(source, 25, 2).unwrap();
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        assert_eq!(
            v,
            serde_json::json!({
                "p": 2, "s": 10, "t": 25, "n": 3, "from": 11, "to": 20, "lang": "fr",
                "prefixed": true, "r": "sights",
                "links": {
                    "first": "/api/fr/sights?page=1&per_page=10",
                    "prev": "/api/fr/sights?page=1&per_page=10",
                    "next": "/api/fr/sights?page=3&per_page=10",
                    "last": "/api/fr/sights?page=3&per_page=10"
                },
                "items": (11..=20).map(|i| serde_json::json!({"id": i, "n": "<&>\""})).collect::<Vec<_>>()
            })
        );
        assert!(out.contains(r#""items":[{"id":11,"n":"<&>\""}"#), "items as is: {out}");
        assert!(out.ends_with("}\n"), "one trailing newline: {out:?}");
        assert!(
            out.contains(r#""first":"/api/fr/sights?page=1&per_page=10","#),
            "compact, & as is: {out}"
        );
    }

    #[test]
    fn without_totals_the_count_is_not_in_the_context() {
        let p = project_with("totals = false\n");
        let out = render_in(&p, "{{ links|tojson }}", 25, 2).unwrap();
        assert_eq!(
            out,
            "{\"first\":\"/api/fr/sights?page=1&per_page=10\",\"prev\":\"/api/fr/sights?page=1&per_page=10\",\"next\":\"/api/fr/sights?page=3&per_page=10\"}\n"
        );
        let keys = render_in(&p, "{{ links|list|tojson }}", 25, 3).unwrap();
        assert_eq!(keys, "[\"first\",\"prev\",\"next\"]\n");
        for name in ["total", "total_pages", "links.last"] {
            let err = render_in(&p, &format!("{{{{ {name} }}}}"), 25, 2).unwrap_err();
            assert!(err.starts_with("templates/t.json.j2:1: undefined value"), "{name}: {err}");
        }
        // The rest is as with totals.
        let out = render_in(&p, "[{{ page }},{{ per_page }},{{ from }},{{ to }}]", 25, 3).unwrap();
        assert_eq!(out, "[3,10,21,25]\n");
    }

    #[test]
    fn tojson_indents_on_request_and_refuses_undefined() {
        let out = render("{{ links|tojson(1) }}", 5, 1).unwrap();
        assert!(
            out.starts_with("{\n \"first\": \"/api/fr/sights?page=1&per_page=10\",\n"),
            "{out}"
        );
        let err = render("{{ nothing|tojson }}", 5, 1).unwrap_err();
        assert!(err.starts_with("templates/t.json.j2:1: undefined value"), "{err}");
    }

    #[test]
    fn empty_page_has_null_from_to_and_prev_next() {
        let out =
            render(r#"[{{ from|tojson }},{{ to|tojson }},{{ links.prev|tojson }},{{ links.next|tojson }},{{ items }}]"#, 0, 1)
                .unwrap();
        assert_eq!(out, "[null,null,null,null,[]]\n");
    }

    #[test]
    fn syntax_error_names_the_file_and_line() {
        let err = render("{\n\"a\": 1,\n\"b\": {{ page + }}\n}\n", 1, 1).unwrap_err();
        assert!(err.starts_with("templates/t.json.j2:3: syntax error: "), "{err}");
    }

    #[test]
    fn undefined_name_fails_with_its_line() {
        let err = render("{\n\"a\": {{ pgae }}\n}", 1, 1).unwrap_err();
        assert!(err.starts_with("templates/t.json.j2:2: undefined value"), "{err}");
        assert!(err.ends_with("(rendering output/api/fr/sights/10/1.json)"), "{err}");
    }

    #[test]
    fn output_that_is_not_json_names_template_page_and_position() {
        let err = render("{\n  \"page\": {{ page }},\n}", 1, 1).unwrap_err();
        assert_eq!(
            err,
            "templates/t.json.j2: output/api/fr/sights/10/1.json:3:1: the output is not valid JSON: key must be a string"
        );
    }
}
