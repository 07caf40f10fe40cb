//! The cloudfront target: `hosting/cloudfront-function.js`, a CloudFront Function
//! (viewer-request, runtime `cloudfront-js-2.0`) for the `{mount}/api/*` cache behavior of
//! a distribution whose origin is an S3 bucket holding `output/`. It owns the API's routing
//! for CloudFront: the function answers method, language and query errors itself and
//! rewrites `request.uri` to the page file; everything else goes to S3 unchanged. The
//! deployment it assumes (upload commands, response-headers policy, custom error response)
//! is written into the file's header, so the file documents itself where it is deployed.
//!
//! Traps met, each handled below:
//! - `event.request.querystring` is already parsed: a bare key and an empty value are both
//!   `""`, repeats are folded into `multiValue`, the splitting is CloudFront's. Runtime 2.0's
//!   `request.rawQueryString()` gives the query exactly as sent, so the function parses that
//!   with the API's own query rules (split on `&`, raw, first wins, empty = absent).
//! - A viewer-request function cannot read the bucket, so its error bodies are embedded
//!   text: [`problem_document`] renders them with the same function that writes
//!   `api/errors/*.json`, so the bytes are the files' bytes.
//! - S3 answers a missing key with 403 (no ListBucket) or 404 and cannot say JSON problem:
//!   the distribution's custom error responses (one per status, not per path) map both to
//!   `api/errors/page_not_found.json`, which `folio deploy` uploads as
//!   `application/problem+json` (S3 keeps one Content-Type per object, so that document
//!   requested by its path answers with that type too). The function carries no page
//!   count (a function published by hand must not go stale when the data grows): it
//!   answers every other miss itself (`not_found` for any path that is no file folio
//!   writes), so a key the bucket lacks is a page past the last. A page by its path past
//!   the last answers `page_not_found` too, where §1 says `not_found` (both 404): pinned.
//! - A response-headers policy applies to error responses too, so it must not carry the
//!   page Content-Type: that comes from the S3 object metadata `folio deploy` sets.
//! - CloudFront Functions are limited to 10 KB of code; the tests keep the file well below.

use serde_json::json;

use super::{HostCtx, HostFile};
use crate::config::Shape;
use crate::routes::{ErrorCode, patterns};

pub fn render(ctx: &HostCtx) -> Vec<HostFile> {
    vec![HostFile::hosting("cloudfront-function.js", function(ctx.shape))]
}

/// The bytes of `api/errors/{code}.json`: a viewer-request function cannot read the
/// bucket, so it embeds the documents, rendered by the same function that writes them.
pub fn problem_document(shape: &Shape, code: ErrorCode) -> String {
    String::from_utf8(crate::render::problem_document(code, shape))
        .expect("a JSON document is UTF-8")
}

/// A JS literal for any JSON value. JSON is JS except for U+2028/U+2029 in strings
/// before ES2019, which the CloudFront runtime (ES5.1 based) may not accept.
fn js(value: &serde_json::Value) -> String {
    value.to_string().replace('\u{2028}', "\\u2028").replace('\u{2029}', "\\u2029")
}

const TEMPLATE: &str = include_str!("templates/cloudfront-function.js.j2");

fn function(r: &Shape) -> String {
    let documents: serde_json::Map<String, serde_json::Value> = ErrorCode::ALL
        .iter()
        .map(|&c| (c.code().to_string(), json!([c.title(), problem_document(r, c)])))
        .collect();
    super::emitter::fill(
        &[("cloudfront-function.js", TEMPLATE)],
        minijinja::context! {
            mount => r.mount(),
            api => r.api_prefix(),
            page_not_found => r.path(&ErrorCode::PageNotFound.file()),
            cache_control => r.cache_control.clone(),
            table => js(&crate::routes::table(r)),
            page => patterns::PAGE,
            documents => js(&documents.into()),
            segment => patterns::segment(),
            // In a JavaScript regex literal, where `/` ends it.
            dotted => patterns::DOT_SEGMENT.replace('/', "\\/"),
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::{Overrides, Project};
    use std::path::Path;

    fn render_one(mount: &str) -> String {
        let name = "cloudfront-function.js";
        super::super::sample_file(render, mount, name)
    }

    #[test]
    fn the_function_fits_cloudfronts_limit() {
        let js = render_one("");
        assert!(js.len() < 10 * 1024, "CloudFront Functions allow 10 KB, got {}", js.len());
    }

    #[test]
    fn a_mount_path_prefixes_the_api_and_the_deploy_steps() {
        let js = render_one("/travel");
        assert!(js.contains(r#""api":"/travel/api/""#), "the map's table: {js}");
        assert!(js.contains("url = \"s3://BUCKET/travel\""));
        assert!(js.contains("response page path /travel/api/errors/page_not_found.json"));
        assert!(js.contains(r#"\"type\":\"/travel/api/errors/unknown_lang.json\""#));
    }

    #[test]
    fn embedded_documents_carry_the_absolute_base_url() {
        let root = Path::new("/nonexistent");
        let toml = "base_url = \"https://example.org/travel\"\n";
        let project =
            Project::from_toml(toml, Path::new("folio.toml"), root, root, &Overrides::default())
                .unwrap();
        let doc = problem_document(&project.shape, ErrorCode::NotFound);
        assert!(
            doc.starts_with("{\"type\":\"https://example.org/travel/api/errors/not_found.json\""),
            "{doc}"
        );
    }
}
