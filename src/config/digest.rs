//! The output settings digest: which settings of a project decide the bytes a build
//! writes, written down once as a versioned document in folio.toml's own words, and its
//! hash. A build records the digest beside its output (`folio deploy` refuses an output
//! built from other settings) and the incremental build's fingerprint contains it.
//!
//! The document is spelled out key by key rather than derived from the types' `Debug` or
//! serde form: renaming a Rust field must not move every digest, and adding a setting must
//! be a decision. Every struct it reads is destructured whole, so a new field does not
//! compile until it is either written here or named as one that shapes nothing; a test
//! pins the digest of a fixed config, so a change of the document is seen in review.

use serde_json::{Value, json};

use super::{CloudflareConfig, FieldSpec, HostingConfig, OpenApiConfig, Project, Shape};

/// The document's version: raise it when the document changes meaning (not merely when a
/// setting is added, which changes the document anyway).
pub const VERSION: u32 = 1;

/// The settings that shape the output, as folio.toml spells them (`listing.sort` as
/// `["-rating", "name"]`), in a fixed order. What is left out shapes nothing the build
/// writes: where the files are (the config, data, templates, hosting and output folders,
/// each relative to where folio runs: `--data DIR` builds the same site from other
/// records), where each key is written, the server's root as the output folder gives it
/// (`[hosting] root` is in), and `[deploy]` (where the output goes), but for the bucket
/// and prefix that the Cloudflare R2 Worker reads.
pub fn output_settings(project: &Project) -> Value {
    let Project {
        config_path: _,
        root: _,
        data_dir: _,
        output_dir: _,
        templates_dir: _,
        hosting_dir: _,
        shape,
        sort,
        fields,
        url_style,
        schema,
        fallback,
        csv_delimiter,
        decimal_separator,
        precompress,
        hosting,
        r2,
        server_root: _,
        deploy: _,
        openapi,
        places: _,
        output_settings_digest: _,
    } = project;
    let Shape {
        base,
        resource,
        languages,
        default_language,
        page_sizes,
        default_page_size,
        envelope,
        totals,
        cache_control,
    } = shape;
    let HostingConfig { targets, root, listen, cloudflare } = hosting;
    let CloudflareConfig { plan, serve_from } = cloudflare;
    let OpenApiConfig { license, license_url, contact_name, contact_email, contact_url } = openapi;
    let sort: Vec<String> = (sort.iter())
        .map(|k| format!("{}{}", if k.descending { "-" } else { "" }, k.field))
        .collect();
    let schema: serde_json::Map<String, Value> = (schema.iter())
        .map(|(name, FieldSpec { kind, localized, required })| {
            let spec = json!({
                "type": kind.map(|k| k.name()),
                "localized": localized,
                "required": required,
            });
            (name.clone(), spec)
        })
        .collect();
    // The Worker is written for the bucket and prefix it reads (`[deploy] url`, an s3://
    // URL); nothing else of [deploy].
    let worker_bucket = r2.as_ref().map(|r2| format!("s3://{}/{}", r2.bucket, r2.prefix));
    json!({
        "folio output settings": VERSION,
        "base_url": base.prefix(),
        "listing": {
            "resource": resource,
            "languages": languages,
            "default_language": languages.get(*default_language),
            "page_sizes": page_sizes,
            "default_page_size": default_page_size,
            "sort": sort,
            "fields": fields,
            "envelope": envelope.to_string(),
            "totals": totals,
            "url_style": url_style.name(),
        },
        "input": {
            "csv_delimiter": char::from(*csv_delimiter).to_string(),
            "decimal_separator": char::from(*decimal_separator).to_string(),
        },
        "fields": schema,
        "i18n": { "fallback": fallback.name() },
        "output": {
            "cache_control": cache_control,
            "precompress": precompress.iter().map(|c| c.name()).collect::<Vec<_>>(),
        },
        "hosting": {
            "targets": targets.iter().map(|t| t.name()).collect::<Vec<_>>(),
            "root": root,
            "listen": listen,
            "cloudflare": { "plan": plan.name(), "serve_from": serve_from.name() },
        },
        "deploy": { "url": worker_bucket },
        "openapi": {
            "license": license,
            "license_url": license_url,
            "contact_name": contact_name,
            "contact_email": contact_email,
            "contact_url": contact_url,
        },
    })
}

/// The digest of [`output_settings`]: xxh3-128 of its compact JSON, as 32 hex digits.
pub fn output_settings_digest(project: &Project) -> String {
    let text = output_settings(project).to_string();
    format!("{:032x}", xxhash_rust::xxh3::xxh3_128(text.as_bytes()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::test_project;

    const CONFIG: &str = r#"
        base_url = "https://example.org/travel"
        [listing]
        languages = ["en", "de"]
        page_sizes = [10, 50]
        sort = ["-rating", "name"]
        [fields.rating]
        type = "number"
        [output]
        precompress = ["gzip"]
    "#;

    #[test]
    fn the_digest_of_a_fixed_config_is_pinned() {
        // Changing the settings document changes this value: make it a decision (and raise
        // VERSION when a setting's meaning changed), never an accident.
        let project = test_project(CONFIG);
        insta::assert_snapshot!(output_settings(&project).to_string(), @r#"{"folio output settings":1,"base_url":"https://example.org/travel","listing":{"resource":"attractions","languages":["en","de"],"default_language":"en","page_sizes":[10,50],"default_page_size":10,"sort":["-rating","name"],"fields":[],"envelope":"standard","totals":true,"url_style":"query"},"input":{"csv_delimiter":",","decimal_separator":"."},"fields":{"rating":{"type":"number","localized":false,"required":false}},"i18n":{"fallback":"default"},"output":{"cache_control":"public, max-age=300","precompress":["gzip"]},"hosting":{"targets":["nginx","apache","caddy","lighttpd","cloudfront"],"root":"","listen":"127.0.0.1:8080","cloudflare":{"plan":"free","serve_from":"pages"}},"deploy":{"url":null},"openapi":{"license":"","license_url":"","contact_name":"","contact_email":"","contact_url":""}}"#);
        assert_eq!(output_settings_digest(&project), "4c09f59b6ca7ca650beb66ef88c7426d");
    }

    #[test]
    fn the_document_speaks_folio_toml() {
        let doc = output_settings(&test_project(CONFIG));
        assert_eq!(doc["listing"]["sort"], json!(["-rating", "name"]));
        assert_eq!(doc["listing"]["default_language"], "en");
        assert_eq!(doc["fields"]["rating"]["type"], "number");
        assert_eq!(doc["output"]["precompress"], json!(["gzip"]));
        assert_eq!(doc["deploy"]["url"], Value::Null);
    }

    #[test]
    fn where_things_are_and_deploy_shape_nothing() {
        let one = test_project(CONFIG);
        let mut other = one.clone();
        other.data_dir = "/elsewhere/data".into();
        other.output_dir = "/elsewhere/output".into();
        other.config_path = "/elsewhere/folio.toml".into();
        other.deploy.region = Some("eu-west-1".into());
        other.deploy.max_deletes = 7;
        assert_eq!(output_settings_digest(&one), output_settings_digest(&other));
    }

    #[test]
    fn every_setting_that_shapes_the_output_moves_the_digest() {
        let base = test_project(CONFIG);
        type Edit = (&'static str, fn(&mut Project));
        let edits: [Edit; 8] = [
            ("sort", |p| p.sort[0].descending = false),
            ("base_url", |p| p.shape.base.path = "/other".into()),
            ("page size", |p| p.shape.page_sizes.push(100)),
            ("totals", |p| p.shape.totals = !p.shape.totals),
            ("localized", |p| p.schema.get_mut("rating").unwrap().localized = true),
            ("delimiter", |p| p.csv_delimiter = b';'),
            ("precompress", |p| p.precompress.clear()),
            ("openapi", |p| p.openapi.license = "MIT".into()),
        ];
        for (what, edit) in edits {
            let mut edited = base.clone();
            edit(&mut edited);
            assert_ne!(output_settings_digest(&base), output_settings_digest(&edited), "{what}");
        }
    }
}
