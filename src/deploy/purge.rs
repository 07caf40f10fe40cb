//! What a CDN must forget when keys change, pure: every changed key becomes its public URLs
//! under the build's base URL — a page's path form and the query forms folio emits in links
//! and documents (`?page=P&per_page=S`; `?page=P` at the default size; the bare endpoint for
//! page 1 at the default size; Laravel's `?per_page=S&page=P` when a Laravel envelope is
//! on), and `?per_page=S` for page 1, the form a client writes that leaves the page out; a
//! sibling (`.br`, `.gz`) is its page; any other file is its path — and those URLs are
//! folded into a [`Plan`] of requests that a CDN takes, each with the keys it pays.
//!
//! The fold keeps a purge's cost bounded, whatever the keys (a deploy's own changes, or
//! what a record says is owed):
//! - a variant (one language's endpoint, or the unprefixed one) whose exact URLs pass
//!   [`VARIANT_LIMIT`] becomes one wildcard (CloudFront) or prefix (Cloudflare). CloudFront
//!   bills each path past 1,000 a month and counts a wildcard as one; 30 is also what one
//!   Cloudflare purge-by-URL request takes on every plan;
//! - CloudFront takes 15 wildcard invalidations at once: more variants than that become
//!   the whole API, `{mount}/api/*`;
//! - past the deploy's bound (`max_purge_paths`), the variants with the most URLs fold
//!   first, then the whole API, then everything below the mount: one path, whatever the
//!   number of keys.
//!
//! Paths are percent-encoded as the CDNs expect: a file's name as a URL spells it (a
//! space as `%20`, a `%` as `%25`); a page's query as its links spell it.

use std::collections::{BTreeMap, BTreeSet};

use percent_encoding::{AsciiSet, CONTROLS, utf8_percent_encode};
use serde_json::{Value, json};

use crate::routes::Map;
use crate::routes::layout::{self, API, SIBLINGS};

/// Past this many exact URLs, a variant folds into one wildcard or prefix.
pub const VARIANT_LIMIT: usize = 30;
/// URLs (or prefixes) in one Cloudflare purge request.
pub const CLOUDFLARE_BATCH: usize = 30;
/// Wildcard invalidations CloudFront runs at once.
pub const CLOUDFRONT_WILDCARDS: usize = 15;
/// Paths in one CloudFront invalidation.
pub const CLOUDFRONT_BATCH: usize = 3000;

/// What a path segment of a URL may not hold as it is (RFC 1738's unsafe characters, and
/// `*`, which a CDN reads as a wildcard, and `?`, which starts a query); non-ASCII is
/// always encoded.
const UNSAFE: &AsciiSet = &CONTROLS
    .add(b' ')
    .add(b'"')
    .add(b'#')
    .add(b'%')
    .add(b'<')
    .add(b'>')
    .add(b'[')
    .add(b'\\')
    .add(b']')
    .add(b'^')
    .add(b'`')
    .add(b'{')
    .add(b'|')
    .add(b'}')
    .add(b'*')
    .add(b'?');

/// A file's path below the mount as a URL spells it.
pub fn encoded(rel: &str) -> String {
    utf8_percent_encode(rel, UNSAFE).to_string()
}

/// How a CDN takes a purge.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Dialect {
    /// Root-relative paths, a trailing `*` a wildcard, [`CLOUDFRONT_BATCH`] a request.
    CloudFront,
    /// Absolute URLs, or prefixes without a scheme, [`CLOUDFLARE_BATCH`] a request.
    Cloudflare,
}

/// What one request of a purge carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Items {
    /// CloudFront's paths, exact and wildcards.
    Paths,
    /// Cloudflare's `files`: absolute URLs.
    Files,
    /// Cloudflare's `prefixes`: host and path.
    Prefixes,
}

/// One request of a purge, and the keys its acceptance pays.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Batch {
    pub items: Items,
    pub paths: Vec<String>,
    pub keys: BTreeSet<String>,
}

/// A purge of some keys for one CDN, folded within a bound.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Plan {
    pub dialect: Dialect,
    /// The keys it covers.
    pub objects: usize,
    /// Exact paths or URLs.
    pub exact: usize,
    /// Wildcard paths (CloudFront) or prefixes (Cloudflare).
    pub wildcards: usize,
    pub batches: Vec<Batch>,
}

impl Plan {
    /// Every path, URL and prefix, in the order sent.
    pub fn items(&self) -> impl Iterator<Item = &String> {
        self.batches.iter().flat_map(|b| &b.paths)
    }
}

/// A page with its siblings, or one other file: the URLs (below the mount, without the
/// leading `/`) that answer with it, and its keys.
#[derive(Debug, Clone)]
struct Unit {
    urls: Vec<String>,
    keys: BTreeSet<String>,
}

/// The keys grouped as a fold takes them: per variant (its endpoint below the mount), the
/// units of its pages; then the other files.
struct Grouped {
    variants: BTreeMap<String, Vec<Unit>>,
    others: Vec<Unit>,
}

fn group(map: &Map, keys: &BTreeSet<String>) -> Grouped {
    let mut pages: BTreeMap<String, (String, Unit)> = BTreeMap::new();
    let mut others = Vec::new();
    for key in keys {
        let page = match layout::any_page(key) {
            Some(p) => Some((key.as_str(), p)),
            None => SIBLINGS.iter().find_map(|(ext, _)| {
                let of = key.strip_suffix(ext)?;
                Some((of, layout::any_page(of)?))
            }),
        };
        match page {
            Some((file, (endpoint, size, page))) => {
                let (_, unit) = pages.entry(file.to_string()).or_insert_with(|| {
                    let urls = map.urls_at(endpoint, size, page);
                    (endpoint.to_string(), Unit { urls, keys: BTreeSet::new() })
                });
                unit.keys.insert(key.clone());
            }
            None => others.push(Unit { urls: vec![encoded(key)], keys: [key.clone()].into() }),
        }
    }
    let mut variants: BTreeMap<String, Vec<Unit>> = BTreeMap::new();
    for (endpoint, unit) in pages.into_values() {
        variants.entry(endpoint).or_default().push(unit);
    }
    Grouped { variants, others }
}

/// A fold: the units sent exact, and the wildcards (a prefix below the mount: a variant's
/// endpoint, `api/`, or `` for everything) with the keys each covers.
struct Fold {
    exact: Vec<Unit>,
    wild: Vec<(String, BTreeSet<String>)>,
}

impl Fold {
    fn cost(&self) -> usize {
        self.exact.iter().map(|u| u.urls.len()).sum::<usize>() + self.wild.len()
    }
}

/// The finest fold of `g` within `bound` paths and `max_wild` wildcards: variants past
/// [`VARIANT_LIMIT`] wildcarded, then the busiest variants one by one, then the whole API,
/// then everything below the mount.
///
/// Linear in the units after one sort of the variants: the cost of wildcarding the `k`
/// busiest variants is known from a running sum (what stays exact is the rest), so the
/// fold is chosen first and built once; the search stops at the first `k` within the
/// bound, or as soon as `k` passes `max_wild` (every later `k` has more wildcards).
fn fold(g: &Grouped, bound: usize, max_wild: usize) -> Fold {
    let size = |units: &[Unit]| units.iter().map(|u| u.urls.len()).sum::<usize>();
    // Variants by how many URLs they hold, the busiest first.
    let mut order: Vec<(&String, &Vec<Unit>, usize)> =
        g.variants.iter().map(|(e, u)| (e, u, size(u))).collect();
    order.sort_by(|a, b| b.2.cmp(&a.2).then_with(|| a.0.cmp(b.0)));
    let keys_of = |units: &[Unit]| -> BTreeSet<String> {
        units.iter().flat_map(|u| u.keys.iter().cloned()).collect()
    };
    // Variants past the limit are always wildcards: they come first in `order`.
    let busy = order.iter().take_while(|(_, _, n)| *n > VARIANT_LIMIT).count();
    let others = size(&g.others);
    // `exact[k]`: the URLs of the variants from the k-th on, sent exact.
    let mut exact = vec![0usize; order.len() + 1];
    for (i, (_, _, n)) in order.iter().enumerate().rev() {
        exact[i] = exact[i + 1] + n;
    }
    let fits = (busy..=order.len())
        .take_while(|&k| k <= max_wild)
        .find(|&k| others.saturating_add(exact[k]).saturating_add(k) <= bound);
    if let Some(k) = fits {
        let mut fold = Fold { exact: g.others.clone(), wild: Vec::with_capacity(k) };
        for (i, (endpoint, units, _)) in order.iter().enumerate() {
            if i < k {
                fold.wild.push(((*endpoint).clone(), keys_of(units)));
            } else {
                fold.exact.extend(units.iter().cloned());
            }
        }
        return fold;
    }
    let mut api = whole_api(g);
    if api.cost() <= bound {
        return api;
    }
    let mut all = api.wild.pop().map(|(_, keys)| keys).unwrap_or_default();
    all.extend(api.exact.into_iter().flat_map(|u| u.keys));
    Fold { exact: Vec::new(), wild: vec![(String::new(), all)] }
}

/// The whole API as one wildcard (every page, and the files below `api/`), with the
/// units outside it as they are.
fn whole_api(g: &Grouped) -> Fold {
    let mut api = Fold { exact: Vec::new(), wild: Vec::new() };
    let mut under: BTreeSet<String> =
        g.variants.values().flatten().flat_map(|u| u.keys.iter().cloned()).collect();
    for unit in &g.others {
        if unit.keys.iter().all(|k| k.starts_with(API)) {
            under.extend(unit.keys.iter().cloned());
        } else {
            api.exact.push(unit.clone());
        }
    }
    api.wild.push((API.to_string(), under));
    api
}

/// The purge of `keys` (below `output/`, changed or owed) for a CDN that takes `dialect`,
/// sending at most `bound` paths, URLs and prefixes (at least one).
pub fn plan(map: &Map, keys: &BTreeSet<String>, dialect: Dialect, bound: usize) -> Plan {
    let bound = bound.max(1);
    let grouped = group(map, keys);
    let max_wild = match dialect {
        Dialect::CloudFront => CLOUDFRONT_WILDCARDS,
        Dialect::Cloudflare => usize::MAX,
    };
    let fold = fold(&grouped, bound, max_wild);
    let mut plan = Plan {
        dialect,
        objects: keys.len(),
        exact: fold.exact.iter().map(|u| u.urls.len()).sum(),
        wildcards: fold.wild.len(),
        batches: Vec::new(),
    };
    let origin = map.origin();
    let host = origin.split_once("://").map_or(origin, |(_, host)| host);
    let (exact_items, wild_items, per) = match dialect {
        Dialect::CloudFront => (Items::Paths, Items::Paths, CLOUDFRONT_BATCH),
        Dialect::Cloudflare => (Items::Files, Items::Prefixes, CLOUDFLARE_BATCH),
    };
    let spell_exact = |url: &String| match dialect {
        Dialect::CloudFront => map.path(url),
        Dialect::Cloudflare => map.url(url),
    };
    let spell_wild = |prefix: &String| match dialect {
        Dialect::CloudFront => format!("{}*", map.path(prefix)),
        Dialect::Cloudflare => format!("{host}{}", map.path(prefix)),
    };
    let mut pack = |items: Items, units: Vec<(Vec<String>, BTreeSet<String>)>| {
        let mut batch = Batch { items, paths: Vec::new(), keys: BTreeSet::new() };
        for (paths, keys) in units {
            if !batch.paths.is_empty() && batch.paths.len() + paths.len() > per {
                let full = std::mem::replace(
                    &mut batch,
                    Batch { items, paths: Vec::new(), keys: BTreeSet::new() },
                );
                plan.batches.push(full);
            }
            batch.paths.extend(paths);
            batch.keys.extend(keys);
        }
        if !batch.paths.is_empty() {
            plan.batches.push(batch);
        }
    };
    let exact =
        fold.exact.iter().map(|u| (u.urls.iter().map(spell_exact).collect(), u.keys.clone()));
    let wild = fold.wild.iter().map(|(prefix, keys)| (vec![spell_wild(prefix)], keys.clone()));
    if exact_items == wild_items {
        pack(exact_items, exact.chain(wild).collect());
    } else {
        pack(exact_items, exact.collect());
        pack(wild_items, wild.collect());
    }
    plan
}

/// Every public URL whose bytes changed or vanished for `keys`, exact (absolute when the
/// base URL has an origin), sorted: what the purge list file names besides its requests.
pub fn urls(map: &Map, keys: &BTreeSet<String>) -> Vec<String> {
    let g = group(map, keys);
    let all = g.variants.values().flatten().chain(&g.others);
    let urls: BTreeSet<String> = all.flat_map(|u| u.urls.iter().map(|p| map.url(p))).collect();
    urls.into_iter().collect()
}

/// A deploy's purge list file: the objects whose bytes changed or vanished since a deploy
/// last wrote one, their URLs, and the requests each CDN would take for them.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PurgeList {
    pub base_url: String,
    /// Keys below the deploy prefix, sorted.
    pub objects: Vec<String>,
    /// Every public URL of them, exact.
    pub urls: Vec<String>,
    pub cloudfront: Plan,
    /// `None` when the base URL has no origin (Cloudflare purges absolute URLs only).
    pub cloudflare: Option<Plan>,
}

impl PurgeList {
    /// The list for `keys` of the build `map` describes, its requests within `bound`.
    pub fn new(map: &Map, keys: &BTreeSet<String>, bound: usize) -> PurgeList {
        let cloudflare =
            (!map.origin().is_empty()).then(|| plan(map, keys, Dialect::Cloudflare, bound));
        PurgeList {
            base_url: map.shape.base.prefix(),
            objects: keys.iter().cloned().collect(),
            urls: urls(map, keys),
            cloudfront: plan(map, keys, Dialect::CloudFront, bound),
            cloudflare,
        }
    }

    /// The purge list file: the URLs, CloudFront's invalidation batch (ready for
    /// `aws cloudfront create-invalidation --invalidation-batch`), Cloudflare's requests.
    pub fn to_json(&self, reference: &str) -> Value {
        let paths: Vec<&String> = self.cloudfront.items().collect();
        let cloudflare: Vec<Value> = (self.cloudflare.iter().flat_map(|p| &p.batches))
            .map(|b| match b.items {
                Items::Prefixes => json!({ "prefixes": b.paths }),
                _ => json!({ "files": b.paths }),
            })
            .collect();
        json!({
            "base_url": self.base_url,
            "objects": self.objects,
            "urls": self.urls,
            "cloudfront": {
                "Paths": { "Quantity": paths.len(), "Items": paths },
                "CallerReference": reference,
            },
            "cloudflare": cloudflare,
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

    fn keys<'a>(keys: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
        keys.into_iter().map(String::from).collect()
    }

    fn paths(plan: &Plan) -> Vec<String> {
        plan.items().cloned().collect()
    }

    #[test]
    fn a_page_is_its_path_and_the_query_forms_of_links() {
        let map = site("https://example.org/travel", false);
        let one = keys(["api/en/attractions/10/1.json"]);
        assert_eq!(
            urls(&map, &one),
            [
                "https://example.org/travel/api/en/attractions",
                "https://example.org/travel/api/en/attractions/10/1.json",
                "https://example.org/travel/api/en/attractions?page=1",
                "https://example.org/travel/api/en/attractions?page=1&per_page=10",
                "https://example.org/travel/api/en/attractions?per_page=10",
            ]
        );
        // Page 1 at another size: also the size alone, as clients write it.
        let first = urls(&site("", false), &keys(["api/fr/attractions/20/1.json"]));
        assert!(first.contains(&"/api/fr/attractions?per_page=20".to_string()), "{first:?}");
        assert!(!first.contains(&"/api/fr/attractions".to_string()), "{first:?}");
        let cf = plan(&map, &one, Dialect::CloudFront, 30);
        assert_eq!(cf.batches[0].paths[0], "/travel/api/en/attractions/10/1.json");
        assert_eq!((cf.exact, cf.wildcards, cf.batches.len()), (5, 0, 1));
        let flare = plan(&map, &one, Dialect::Cloudflare, 30);
        let mut sent = paths(&flare);
        sent.sort();
        assert_eq!(sent, urls(&map, &one));
        // Another size: no default-size forms; Laravel's order only with its envelope;
        // siblings are their page; other files their path.
        let changed = keys([
            "api/attractions/20/3.json.br",
            "api/attractions/20/3.json.gz",
            "api/index.json",
        ]);
        assert_eq!(
            urls(&site("", false), &changed),
            [
                "/api/attractions/20/3.json",
                "/api/attractions?page=3&per_page=20",
                "/api/index.json"
            ]
        );
        let unit = plan(&site("", false), &changed, Dialect::CloudFront, 30);
        assert_eq!(unit.batches[0].keys, changed, "one batch pays every key");
        use crate::config::Envelope;
        for envelope in [Envelope::Laravel, Envelope::LaravelSimple, Envelope::LaravelResource] {
            let mut map = site("", true);
            map.shape.envelope = envelope.clone();
            let urls = urls(&map, &changed);
            assert!(urls.contains(&"/api/attractions?per_page=20&page=3".into()), "{envelope}");
        }
    }

    #[test]
    fn a_page_at_a_size_or_of_a_language_since_removed_is_purged_with_its_query_forms() {
        let gone = keys(["api/en/attractions/100/2.json", "api/de/attractions/10/1.json"]);
        let got = urls(&site("", false), &gone);
        assert!(got.contains(&"/api/en/attractions?page=2&per_page=100".into()), "{got:?}");
        assert!(got.contains(&"/api/de/attractions?page=1&per_page=10".into()), "{got:?}");
        assert!(got.contains(&"/api/de/attractions".into()), "{got:?}");
    }

    #[test]
    fn a_busy_variant_collapses_to_a_wildcard_and_a_prefix() {
        let mut changed: BTreeSet<String> =
            (1..=20).map(|p| format!("api/fr/attractions/20/{p}.json")).collect();
        changed.insert("api/en/attractions/20/1.json".into());
        let map = site("https://example.org", false);
        assert_eq!(urls(&map, &changed).len(), 20 * 2 + 1 + 3);
        let cf = plan(&map, &changed, Dialect::CloudFront, 30);
        assert_eq!(
            paths(&cf),
            [
                "/api/en/attractions/20/1.json",
                "/api/en/attractions?page=1&per_page=20",
                "/api/en/attractions?per_page=20",
                "/api/fr/attractions*"
            ]
        );
        assert_eq!(cf.batches[0].keys, changed);
        let flare = plan(&map, &changed, Dialect::Cloudflare, 30);
        let prefixes = flare.batches.iter().find(|b| b.items == Items::Prefixes).unwrap();
        assert_eq!(prefixes.paths, ["example.org/api/fr/attractions"]);
        assert_eq!(prefixes.keys.len(), 20, "the prefix pays the 20 pages it covers");
    }

    #[test]
    fn too_many_wildcards_become_the_whole_api() {
        let langs: Vec<String> = (0..20).map(|i| format!("l{i}")).collect();
        let mut s = site("https://example.org", false);
        s.shape.languages = langs.clone();
        let changed: BTreeSet<String> = langs
            .iter()
            .flat_map(|l| (1..=40).map(move |p| format!("api/{l}/attractions/20/{p}.json")))
            .chain(["robots.txt".to_string()])
            .collect();
        let p = plan(&s, &changed, Dialect::CloudFront, 30);
        assert_eq!(paths(&p), ["/robots.txt", "/api/*"]);
        assert_eq!(p.batches[0].keys, changed);
    }

    #[test]
    fn past_the_bound_the_busiest_variants_fold_first_then_everything() {
        let map = site("", false);
        // Three pages of en, one of fr: 3 × 2 + 2 = 8 paths, and the index.
        let changed = keys([
            "api/en/attractions/20/2.json",
            "api/en/attractions/20/3.json",
            "api/en/attractions/20/4.json",
            "api/fr/attractions/20/2.json",
            "api/index.json",
        ]);
        assert_eq!(plan(&map, &changed, Dialect::CloudFront, 30).exact, 9);
        let five = plan(&map, &changed, Dialect::CloudFront, 5);
        assert_eq!(paths(&five).len(), 4, "{:?}", paths(&five));
        assert!(paths(&five).contains(&"/api/en/attractions*".to_string()));
        // Two: both variants folded leave three paths; the whole API is one.
        let two = plan(&map, &changed, Dialect::CloudFront, 2);
        assert_eq!(paths(&two), ["/api/*"]);
        let one = plan(&map, &changed, Dialect::CloudFront, 1);
        assert_eq!(paths(&one), ["/api/*"]);
        assert_eq!(one.batches[0].keys, changed);
        let mut root = changed.clone();
        root.insert("robots.txt".into());
        let one = plan(&map, &root, Dialect::CloudFront, 1);
        assert_eq!(paths(&one), ["/*"]);
        assert_eq!(one.batches[0].keys, root);
        let one = plan(&site("https://example.org/travel", false), &root, Dialect::Cloudflare, 1);
        assert_eq!(paths(&one), ["example.org/travel/"]);
    }

    #[test]
    fn a_file_name_is_spelled_as_a_url_spells_it() {
        let map = site("https://example.org", false);
        let odd = keys(["my file.txt", "100%.html", "ünï.css", "a*b?.txt"]);
        let p = plan(&map, &odd, Dialect::CloudFront, 30);
        assert_eq!(
            paths(&p),
            ["/100%25.html", "/a%2Ab%3F.txt", "/my%20file.txt", "/%C3%BCn%C3%AF.css"]
        );
    }

    /// The fold as it was written first (one whole fold built per number of variants
    /// folded, quadratic in the variants): what the linear one must equal.
    fn fold_by_rebuilding(g: &Grouped, bound: usize, max_wild: usize) -> Fold {
        let size = |units: &[Unit]| units.iter().map(|u| u.urls.len()).sum::<usize>();
        let mut order: Vec<(&String, &Vec<Unit>)> = g.variants.iter().collect();
        order.sort_by_key(|(endpoint, units)| (std::cmp::Reverse(size(units)), *endpoint));
        let keys_of = |units: &[Unit]| -> BTreeSet<String> {
            units.iter().flat_map(|u| u.keys.iter().cloned()).collect()
        };
        let by_variant = |folded: usize| -> Fold {
            let mut fold = Fold { exact: g.others.clone(), wild: Vec::new() };
            for (i, (endpoint, units)) in order.iter().enumerate() {
                if i < folded || size(units) > VARIANT_LIMIT {
                    fold.wild.push(((*endpoint).clone(), keys_of(units)));
                } else {
                    fold.exact.extend(units.iter().cloned());
                }
            }
            fold
        };
        for folded in 0..=order.len() {
            let fold = by_variant(folded);
            if fold.wild.len() <= max_wild && fold.cost() <= bound {
                return fold;
            }
        }
        let api = whole_api(g);
        if api.cost() <= bound {
            return api;
        }
        let all: BTreeSet<String> = (api.wild.iter().flat_map(|(_, k)| k.iter().cloned()))
            .chain(api.exact.iter().flat_map(|u| u.keys.iter().cloned()))
            .collect();
        Fold { exact: Vec::new(), wild: vec![(String::new(), all)] }
    }

    type Shown = (Vec<(Vec<String>, BTreeSet<String>)>, Vec<(String, BTreeSet<String>)>);

    fn shown(fold: Fold) -> Shown {
        (fold.exact.into_iter().map(|u| (u.urls, u.keys)).collect(), fold.wild)
    }

    /// The linear fold and the rebuilding one agree on `keys` at every bound in `bounds`,
    /// for both CDNs' wildcard limits.
    fn same_folds(map: &Map, keys: &BTreeSet<String>, bounds: impl IntoIterator<Item = usize>) {
        let g = group(map, keys);
        for bound in bounds {
            for max_wild in [CLOUDFRONT_WILDCARDS, usize::MAX, 0, 1] {
                assert_eq!(
                    shown(fold(&g, bound, max_wild)),
                    shown(fold_by_rebuilding(&g, bound, max_wild)),
                    "bound {bound}, {max_wild} wildcards, keys {keys:?}"
                );
            }
        }
    }

    #[test]
    fn the_linear_fold_is_the_fold_built_variant_by_variant() {
        let map = site("https://example.org", false);
        // The other tests' inputs: one page; a busy variant; three of en and one of fr
        // with the index; odd file names.
        let inputs = [
            keys(["api/en/attractions/10/1.json"]),
            (1..=20)
                .map(|p| format!("api/fr/attractions/20/{p}.json"))
                .chain(["api/en/attractions/20/1.json".to_string()])
                .collect(),
            keys([
                "api/en/attractions/20/2.json",
                "api/en/attractions/20/3.json",
                "api/en/attractions/20/4.json",
                "api/fr/attractions/20/2.json",
                "api/index.json",
                "robots.txt",
            ]),
            keys(["my file.txt", "100%.html", "api/openapi.json"]),
            BTreeSet::new(),
        ];
        for keys in &inputs {
            same_folds(&map, keys, [1, 2, 3, 5, 8, 9, 10, 30, 100, usize::MAX]);
        }
        // Forged owed keys: page 1 of 40 made-up languages, and 20 languages of 40 pages.
        let forged: BTreeSet<String> =
            (0..40).map(|i| format!("api/x{i}/attractions/10/1.json")).collect();
        same_folds(&map, &forged, [1, 15, 100, 199, 200, 201, 1000]);
        let many: BTreeSet<String> = (0..20)
            .flat_map(|l| (1..=40).map(move |p| format!("api/l{l}/attractions/20/{p}.json")))
            .chain(["robots.txt".to_string()])
            .collect();
        same_folds(&map, &many, [1, 2, 20, 21, 22, 30, 100, 2000]);
    }

    #[test]
    fn a_forged_flood_of_languages_folds_to_one_path_within_the_bound() {
        let map = site("https://example.org", false);
        let forged: BTreeSet<String> =
            (0..5000).map(|i| format!("api/x{i}/attractions/10/1.json")).collect();
        let cf = plan(&map, &forged, Dialect::CloudFront, 1000);
        assert_eq!(paths(&cf), ["/api/*"]);
        assert_eq!(cf.batches[0].keys, forged, "the one path pays every key");
        // Cloudflare has no wildcard limit: the busiest variants fold until it fits.
        let flare = plan(&map, &forged, Dialect::Cloudflare, 1000);
        assert!(flare.items().count() <= 1000, "{}", flare.items().count());
        let paid: BTreeSet<String> = flare.batches.iter().flat_map(|b| b.keys.clone()).collect();
        assert_eq!(paid, forged);
    }

    proptest::proptest! {
        #![proptest_config(proptest::prelude::ProptestConfig::with_cases(200))]
        #[test]
        fn the_linear_fold_agrees_on_any_keys(
            pages in proptest::collection::btree_set((0usize..6, 0usize..3, 1usize..40), 0..120),
            files in proptest::collection::btree_set(0usize..6, 0..4),
            bound in 1usize..300,
        ) {
            let map = site("https://example.org/travel", false);
            let langs = ["en", "fr", "de", "x1", "x2", ""];
            let sizes = [10, 20, 7];
            let names = ["robots.txt", "api/index.json", "api/openapi.json", "a b.txt", "_redirects", "x.html"];
            let keys: BTreeSet<String> = pages
                .iter()
                .map(|&(l, s, p)| {
                    let lang = if langs[l].is_empty() { String::new() } else { format!("{}/", langs[l]) };
                    format!("api/{lang}attractions/{}/{p}.json", sizes[s])
                })
                .chain(files.iter().map(|&f| names[f].to_string()))
                .collect();
            same_folds(&map, &keys, [bound, bound / 3 + 1, bound * 7]);
        }
    }

    #[test]
    fn cloudflare_requests_hold_thirty_and_never_split_a_page() {
        let map = site("https://example.org", false);
        // 10 pages of en at size 20 beyond page 1: 2 URLs each = 20; 6 of fr = 12.
        let changed: BTreeSet<String> = (2..=11)
            .map(|p| format!("api/en/attractions/20/{p}.json"))
            .chain((2..=7).map(|p| format!("api/fr/attractions/20/{p}.json")))
            .collect();
        let p = plan(&map, &changed, Dialect::Cloudflare, 100);
        assert_eq!(p.exact, 32);
        assert_eq!(p.batches.len(), 2);
        assert!(p.batches.iter().all(|b| b.paths.len() <= CLOUDFLARE_BATCH));
        let paid: BTreeSet<String> = p.batches.iter().flat_map(|b| b.keys.clone()).collect();
        assert_eq!(paid, changed);
    }
}
