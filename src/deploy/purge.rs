//! The purge list: what a CDN must forget after a deploy, pure. Every object uploaded or
//! deleted becomes its public URLs under the build's base URL: a page's path form and the
//! query forms folio emits in links and documents (`?page=P&per_page=S`; `?page=P` at the
//! default size; the bare endpoint for page 1 at the default size; Laravel's
//! `?per_page=S&page=P` when a Laravel envelope is on), and `?per_page=S` for page 1, the
//! form a client writes that leaves the page out; a sibling (`.br`, `.gz`) is its page; any
//! other file is its path.
//!
//! Shaped for the two big CDNs: CloudFront invalidation paths (root-relative, a trailing
//! `*` allowed) and Cloudflare purge requests (absolute URLs, 30 a request). A variant
//! (one language's endpoint, or the unprefixed one) whose exact entries pass
//! [`VARIANT_LIMIT`] collapses to one wildcard (CloudFront) or prefix (Cloudflare):
//! - CloudFront bills each path past 1,000 a month and counts a wildcard as one path. A
//!   one-record change touches one page a size in each variant (about a dozen URLs); 30
//!   and more means items moved across pages (a sort key changed), where one wildcard
//!   costs 1 path instead of dozens and the pages it purges needlessly are few.
//! - 30 URLs is what one Cloudflare purge-by-URL request takes on every plan; past that,
//!   one prefix purge is one request instead of several rate-limited ones.
//!
//! CloudFront allows 15 wildcard invalidations in progress: more variants than that
//! collapse into one `{mount}/api/*`.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::routes::Map;
use crate::routes::layout::FileKind;

/// Past this many exact entries, a variant collapses to one wildcard or prefix.
pub const VARIANT_LIMIT: usize = 30;
/// URLs (or prefixes) in one Cloudflare purge request.
pub const CLOUDFLARE_BATCH: usize = 30;
/// Wildcard invalidations CloudFront runs at once.
pub const CLOUDFRONT_WILDCARDS: usize = 15;

/// The purge list of one deploy.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Purge {
    /// Every public URL whose bytes changed or vanished, exact (absolute when the base
    /// URL has an origin), sorted.
    pub urls: Vec<String>,
    /// CloudFront invalidation paths, collapsed where a variant has too many.
    pub cloudfront: Vec<String>,
    /// Cloudflare purge requests: `{"files": [...]}` or `{"prefixes": [...]}`; empty when
    /// the base URL has no origin (Cloudflare purges absolute URLs only).
    pub cloudflare: Vec<Value>,
}

/// The URL paths (below the mount, without the leading `/`) of one changed object, and
/// its variant's endpoint when it is a page or a page's sibling.
fn paths(map: &Map, rel: &str) -> (Vec<String>, Option<String>) {
    match map.kind(rel) {
        FileKind::Page(p) | FileKind::Sibling(p, _) => {
            (map.urls(&p), Some(map.endpoint(p.variant)))
        }
        _ => (vec![rel.to_string()], None),
    }
}

/// The purge list for `changed`: keys below `output/` uploaded or deleted.
pub fn purge<'a>(map: &Map, changed: impl IntoIterator<Item = &'a str>) -> Purge {
    let origin = map.origin();
    // Variant endpoint ("" for files that are no page) → exact paths below the mount.
    let mut by_variant: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for rel in changed {
        let (paths, variant) = paths(map, rel);
        by_variant.entry(variant.unwrap_or_default()).or_default().extend(paths);
    }
    let urls: BTreeSet<String> = by_variant.values().flatten().map(|p| map.url(p)).collect();

    let mut cloudfront = Vec::new();
    let mut wildcards = Vec::new();
    let mut files = Vec::new();
    let mut prefixes = Vec::new();
    for (variant, paths) in &by_variant {
        if variant.is_empty() || paths.len() <= VARIANT_LIMIT {
            cloudfront.extend(paths.iter().map(|p| map.path(p)));
            files.extend(paths.iter().map(|p| map.url(p)));
        } else {
            wildcards.push(map.path(&format!("{variant}*")));
            prefixes.push(format!("{}{}", origin_host(origin), map.path(variant)));
        }
    }
    if wildcards.len() > CLOUDFRONT_WILDCARDS {
        // Too many wildcards in progress for CloudFront: the whole API at once.
        let api = map.api_prefix();
        cloudfront.retain(|p| !p.starts_with(&api));
        wildcards = vec![format!("{api}*")];
    }
    cloudfront.extend(wildcards);
    let cloudflare = if origin.is_empty() {
        Vec::new()
    } else {
        let batches = |key: &str, items: Vec<String>| -> Vec<Value> {
            items.chunks(CLOUDFLARE_BATCH).map(|c| json!({ key: c })).collect()
        };
        let mut out = batches("files", files);
        out.extend(batches("prefixes", prefixes));
        out
    };
    Purge { urls: urls.into_iter().collect(), cloudfront, cloudflare }
}

/// `https://example.org` → `example.org`: Cloudflare's prefixes have no scheme.
fn origin_host(origin: &str) -> &str {
    origin.split_once("://").map_or(origin, |(_, host)| host)
}

/// A deploy's purge list: the objects whose bytes changed or vanished since the last
/// purge list was written, and their URLs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PurgeList {
    pub base_url: String,
    /// Keys below the deploy prefix, sorted.
    pub objects: Vec<String>,
    pub purge: Purge,
}

impl PurgeList {
    /// The list for `objects` of the build `map` describes (its base URL included).
    pub fn new(map: &Map, objects: Vec<String>) -> PurgeList {
        let purge = purge(map, objects.iter().map(String::as_str));
        PurgeList { base_url: map.shape.base.prefix(), objects, purge }
    }

    /// The purge list file: the URLs, CloudFront's invalidation batch (ready for
    /// `aws cloudfront create-invalidation --invalidation-batch`), Cloudflare's requests.
    pub fn to_json(&self, reference: &str) -> Value {
        let p = &self.purge;
        json!({
            "base_url": self.base_url,
            "objects": self.objects,
            "urls": p.urls,
            "cloudfront": {
                "Paths": { "Quantity": p.cloudfront.len(), "Items": p.cloudfront },
                "CallerReference": reference,
            },
            "cloudflare": p.cloudflare,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(base: &str, laravel: bool) -> Map {
        use crate::config::{BaseUrl, Envelope, Shape};
        use crate::routes::Size;
        let envelope = if laravel { Envelope::Laravel } else { Envelope::Standard };
        let shape = Shape {
            base: BaseUrl::parse(base).unwrap(),
            resource: "attractions".into(),
            languages: vec!["en".into(), "fr".into()],
            default_language: 0,
            page_sizes: vec![10, 20],
            default_page_size: 10,
            envelope,
            totals: true,
            cache_control: String::new(),
        };
        Map { shape, sizes: vec![Size { size: 10, pages: 50 }, Size { size: 20, pages: 50 }] }
    }

    fn purge<'a>(map: &Map, changed: impl IntoIterator<Item = &'a str>) -> Purge {
        super::purge(map, changed)
    }

    #[test]
    fn a_page_is_its_path_and_the_query_forms_of_links() {
        let p = purge(&site("https://example.org/travel", false), ["api/en/attractions/10/1.json"]);
        assert_eq!(
            p.urls,
            [
                "https://example.org/travel/api/en/attractions",
                "https://example.org/travel/api/en/attractions/10/1.json",
                "https://example.org/travel/api/en/attractions?page=1",
                "https://example.org/travel/api/en/attractions?page=1&per_page=10",
                "https://example.org/travel/api/en/attractions?per_page=10",
            ]
        );
        // Page 1 at another size: also the size alone, as clients write it.
        let first = purge(&site("", false), ["api/fr/attractions/20/1.json"]).urls;
        assert!(first.contains(&"/api/fr/attractions?per_page=20".to_string()), "{first:?}");
        assert!(!first.contains(&"/api/fr/attractions".to_string()), "{first:?}");
        assert_eq!(p.cloudfront[0], "/travel/api/en/attractions");
        assert_eq!(p.cloudflare, [json!({"files": p.urls})]);
        // Another size: no default-size forms; Laravel's order only with its envelope;
        // siblings are their page; other files their path.
        let changed =
            ["api/attractions/20/3.json.br", "api/attractions/20/3.json.gz", "api/index.json"];
        assert_eq!(
            purge(&site("", false), changed).urls,
            [
                "/api/attractions/20/3.json",
                "/api/attractions?page=3&per_page=20",
                "/api/index.json"
            ]
        );
        // Every Laravel envelope links a page at another size as `?per_page=S&page=P`.
        use crate::config::Envelope;
        for envelope in [Envelope::Laravel, Envelope::LaravelSimple, Envelope::LaravelResource] {
            let mut map = site("", true);
            map.shape.envelope = envelope.clone();
            let urls = purge(&map, changed).urls;
            assert!(urls.contains(&"/api/attractions?per_page=20&page=3".into()), "{envelope}");
        }
        assert!(purge(&site("", false), changed).cloudflare.is_empty(), "no origin, no Cloudflare");
    }

    #[test]
    fn a_busy_variant_collapses_to_a_wildcard_and_a_prefix() {
        let many: Vec<String> =
            (1..=20).map(|p| format!("api/fr/attractions/20/{p}.json")).collect();
        let mut changed: Vec<&str> = many.iter().map(String::as_str).collect();
        changed.push("api/en/attractions/20/1.json");
        let p = purge(&site("https://example.org", false), changed);
        assert_eq!(p.urls.len(), 20 * 2 + 1 + 3, "page 1 of fr (and en) has one form more");
        assert_eq!(
            p.cloudfront,
            [
                "/api/en/attractions/20/1.json",
                "/api/en/attractions?page=1&per_page=20",
                "/api/en/attractions?per_page=20",
                "/api/fr/attractions*"
            ]
        );
        assert_eq!(p.cloudflare[1], json!({"prefixes": ["example.org/api/fr/attractions"]}));
    }

    #[test]
    fn too_many_wildcards_become_the_whole_api() {
        let langs: Vec<String> = (0..20).map(|i| format!("l{i}")).collect();
        let mut s = site("https://example.org", false);
        s.shape.languages = langs.clone();
        let changed: Vec<String> = langs
            .iter()
            .flat_map(|l| (1..=40).map(move |p| format!("api/{l}/attractions/20/{p}.json")))
            .chain(["robots.txt".to_string()])
            .collect();
        let p = purge(&s, changed.iter().map(String::as_str));
        assert_eq!(p.cloudfront, ["/robots.txt", "/api/*"]);
    }
}
