//! `api/explorer.html`: a page to browse the listing, rendered from a minijinja template:
//! the built-in one ([`BUILTIN`]) or the project's `templates/explorer.html.j2`. The page
//! has no external assets; its script reads the listing through the query form and falls
//! back to the path form where the host cannot answer queries (docs/api.md).
//!
//! Pure: the caller reads the override file and passes its text. The context holds the
//! listing's settings, each as a value (`resource`, `languages`, `default_language`,
//! `page_sizes`, `default_page_size`, `envelope`, `title`) and all together as `config`,
//! which a template embeds with `{{ config|tojson }}`. Autoescape is HTML (the name ends
//! in `.html.j2`).

use std::collections::BTreeMap;

use minijinja::{Environment, UndefinedBehavior, Value, context};

use crate::config::Shape;

/// The override's file name in `templates_dir`, and the built-in template's name.
pub const TEMPLATE: &str = "explorer.html.j2";

/// The built-in template.
pub const BUILTIN: &str = include_str!("explorer.html.j2");

/// Renders the explorer from `source`, shown as `shown` in messages (`path:line: ...`).
pub fn render(shown: &str, source: &str, shape: &Shape) -> Result<Vec<u8>, String> {
    let located = |e: minijinja::Error| {
        let what = match e.detail() {
            Some(detail) => format!("{}: {detail}", e.kind()),
            None => e.kind().to_string(),
        };
        match e.line() {
            Some(line) => format!("{shown}:{line}: {what}"),
            None => format!("{shown}: {what}"),
        }
    };
    let mut env = Environment::new();
    env.set_undefined_behavior(UndefinedBehavior::SemiStrict);
    // The name decides autoescaping; keep `.html.j2` whatever the shown path is.
    env.add_template(TEMPLATE, source).map_err(located)?;
    let envelope = shape.envelope.to_string();
    let languages: Vec<Value> = shape.languages.iter().map(Value::from).collect();
    let sizes: Vec<Value> = shape.page_sizes.iter().map(|&s| Value::from(s)).collect();
    let default_language = shape.default_lang();
    let config: BTreeMap<&str, Value> = BTreeMap::from([
        ("resource", Value::from(shape.resource.as_str())),
        ("languages", Value::from(languages.clone())),
        ("default_language", Value::from(default_language)),
        ("page_sizes", Value::from(sizes.clone())),
        ("default_page_size", Value::from(shape.default_page_size)),
        ("envelope", Value::from(envelope.as_str())),
    ]);
    let ctx = context! {
        title => format!("{} explorer", shape.resource),
        resource => shape.resource.as_str(),
        languages => languages,
        default_language => default_language,
        page_sizes => sizes,
        default_page_size => shape.default_page_size,
        envelope => envelope,
        config => config,
    };
    let tmpl = env.get_template(TEMPLATE).map_err(located)?;
    let mut out = tmpl.render(ctx).map_err(located)?.into_bytes();
    if !out.ends_with(b"\n") {
        out.push(b'\n');
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(toml: &str) -> crate::config::Project {
        crate::config::test_project(toml)
    }

    fn builtin(toml: &str) -> String {
        String::from_utf8(render("built-in", BUILTIN, &project(toml).shape).unwrap()).unwrap()
    }

    #[test]
    fn the_builtin_page_embeds_the_settings_and_loads_nothing_from_outside() {
        let html = builtin(
            "[listing]\nresource = \"sights\"\nlanguages = [\"en\", \"fr\"]\ndefault_language = \"fr\"\npage_sizes = [5, 10]\ndefault_page_size = 5\n",
        );
        assert!(html.starts_with("<!doctype html>"));
        assert!(html.contains("<title>sights explorer</title>"));
        let start = html.find("id=\"folio-config\">").unwrap() + "id=\"folio-config\">".len();
        let end = start + html[start..].find("</script>").unwrap();
        let config: serde_json::Value = serde_json::from_str(&html[start..end]).unwrap();
        assert_eq!(
            config,
            serde_json::json!({"default_language": "fr", "default_page_size": 5,
                "envelope": "standard", "languages": ["en", "fr"], "page_sizes": [5, 10],
                "resource": "sights"})
        );
        for external in ["src=\"http", "href=\"http", "src=\"//", "href=\"//", "@import", "url("] {
            assert!(!html.contains(external), "an external asset: {external}");
        }
        for control in ["id=\"first\"", "id=\"prev\"", "id=\"next\"", "id=\"last\"", "id=\"lang\""]
        {
            assert!(html.contains(control), "missing {control}");
        }
    }

    #[test]
    fn values_are_html_escaped_and_config_is_script_safe() {
        let p = project("");
        let out = render("t", "<h1>{{ title }}</h1>{{ config|tojson }}", &p.shape).unwrap();
        assert_eq!(
            String::from_utf8(out).unwrap(),
            "<h1>attractions explorer</h1>{\"default_language\": \"en\", \"default_page_size\": 10, \"envelope\": \"standard\", \"languages\": [\"en\"], \"page_sizes\": [10, 20, 50, 100], \"resource\": \"attractions\"}\n"
        );
        let out =
            render("t", "{{ '</script><b>' }}|{{ {'a': '</script>'}|tojson }}", &p.shape).unwrap();
        let out = String::from_utf8(out).unwrap();
        assert!(!out.contains("</script>") && !out.contains("<b>"), "{out}");
    }

    #[test]
    fn template_errors_name_the_file_and_line() {
        let p = project("");
        let err = render("templates/explorer.html.j2", "<p>\n{% if %}\n", &p.shape).unwrap_err();
        assert!(err.starts_with("templates/explorer.html.j2:2: syntax error"), "{err}");
        let err =
            render("templates/explorer.html.j2", "<p>\n\n{{ nope }}\n", &p.shape).unwrap_err();
        assert!(err.starts_with("templates/explorer.html.j2:3: undefined value"), "{err}");
    }
}
