//! Each host's documented limits, and what one build would send it, checked before a file
//! is written (`folio check`, `build`, `serve`: [`check_all`], through
//! `site::host_limits`). Pure: the counts come from the listing's map, so a build past a
//! hard limit fails having written nothing. docs/hosting.md's table lists the same limits
//! with their sources; a test keeps the two in step.

use crate::config::{HostPlan, HostTarget};
use crate::hosts::{Dir, HostFile};
use crate::routes::{Map, Size};

/// One documented limit of a host.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Limit {
    /// What is counted, as the host's documentation names it.
    pub what: &'static str,
    pub max: u64,
    /// Hard: the host refuses past it (the build fails). Soft: the host advises against
    /// it (a warning).
    pub hard: bool,
    /// Where the host documents it.
    pub source: &'static str,
    /// The plan it holds on, as a message says it (`" on the free plan"`); `""` when it is
    /// the same on every plan.
    pub plan: &'static str,
}

/// What one build would send a host, counted from the plan.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shipment<'a> {
    /// Every file of the output folder after the build: pages, their siblings, the API's
    /// own files, folio's bookkeeping and every publish-folder host file.
    pub files: u64,
    /// The folder holding the most files, and how many.
    pub fullest: (String, u64),
    /// The target's own publish-folder and server files.
    pub host: &'a [HostFile],
    /// Whether pages bring `.gz`/`.br` siblings (`[output] precompress`).
    pub siblings: bool,
    /// The files each page size makes (every language, siblings included): what leaving
    /// one out saves.
    pub per_size: Vec<(u64, u64)>,
}

/// What of the project decides a host's limits: Cloudflare's plan, and whether Cloudflare
/// serves from R2 (the project's [`R2`](crate::config::R2): objects, no file count).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Terms {
    pub plan: HostPlan,
    pub r2: bool,
}

/// A limit passed (`over`) or within 10 % of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Finding {
    pub target: HostTarget,
    pub over: bool,
    pub message: String,
}

const PAGES_LIMITS: &str = "developers.cloudflare.com/pages/platform/limits";
const PAGES_ROUTING: &str = "developers.cloudflare.com/pages/functions/routing";
const WORKERS_LIMITS: &str = "developers.cloudflare.com/workers/platform/limits";
const VERCEL_LIMITS: &str = "vercel.com/docs/limits";
const NETLIFY_DEPLOYS: &str = "docs.netlify.com/site-deploys/overview";
const NETLIFY_REDIRECTS: &str = "docs.netlify.com/routing/redirects";
const CLOUDFRONT_QUOTAS: &str =
    "docs.aws.amazon.com/AmazonCloudFront/latest/DeveloperGuide/cloudfront-limits.html";

/// Files Cloudflare Pages takes in one deployment on each plan.
pub const PAGES_FILES_FREE: u64 = 20_000;
pub const PAGES_FILES_PAID: u64 = 100_000;

/// Cloudflare Pages' own files: read as configuration, not served as assets.
const PAGES_CONFIG: [&str; 4] = [
    super::PLATFORM_CONFIG[0],
    super::PLATFORM_CONFIG[1],
    super::PLATFORM_CONFIG[2],
    super::PLATFORM_CONFIG[3],
];

/// Every limit folio checks for `target` (on the `terms`' plan, from Pages or R2), in the
/// order they are checked.
pub fn limits(target: HostTarget, terms: Terms) -> Vec<Limit> {
    let hard = |what, max, source| Limit { what, max, hard: true, source, plan: "" };
    let plan = terms.plan;
    match target {
        // From R2, the files are objects: no count; the Worker's size stays.
        HostTarget::Cloudflare if terms.r2 => {
            vec![hard(
                "bytes of the Worker script (cloudflare-worker.js)",
                64 << 20,
                WORKERS_LIMITS,
            )]
        }
        HostTarget::Cloudflare => vec![
            match plan {
                HostPlan::Free => Limit {
                    plan: " on the free plan",
                    ..hard(
                        "files in one Cloudflare Pages deployment",
                        PAGES_FILES_FREE,
                        PAGES_LIMITS,
                    )
                },
                HostPlan::Paid => Limit {
                    plan: " on a paid plan",
                    ..hard(
                        "files in one Cloudflare Pages deployment",
                        PAGES_FILES_PAID,
                        PAGES_LIMITS,
                    )
                },
            },
            hard("rules in _routes.json (include and exclude)", 100, PAGES_ROUTING),
            hard("characters in one _routes.json rule", 100, PAGES_ROUTING),
            hard("bytes of the Worker script (_worker.js)", 64 << 20, WORKERS_LIMITS),
        ],
        HostTarget::Vercel => vec![
            hard("files in one deployment from the Vercel CLI", 15_000, VERCEL_LIMITS),
            hard("routes in vercel.json", 2_048, VERCEL_LIMITS),
        ],
        HostTarget::Netlify => vec![
            hard("files in one folder of a Netlify deploy", 54_000, NETLIFY_DEPLOYS),
            Limit {
                hard: false,
                ..hard(
                    "rules in _redirects (past it Netlify advises wildcards)",
                    10_000,
                    NETLIFY_REDIRECTS,
                )
            },
        ],
        HostTarget::Cloudfront => {
            vec![hard("bytes of a CloudFront Function's code", 10 * 1024, CLOUDFRONT_QUOTAS)]
        }
        HostTarget::Nginx | HostTarget::Apache | HostTarget::Caddy | HostTarget::Lighttpd => {
            Vec::new()
        }
    }
}

/// What `shipment` counts against each of `target`'s limits, in [`limits`]' order, with
/// where it was counted.
fn counts(target: HostTarget, shipment: &Shipment) -> Vec<(u64, String)> {
    let file = |name: &str| shipment.host.iter().find(|f| f.name == name);
    let bytes = |name: &str| file(name).map_or(0, |f| f.contents.len() as u64);
    match target {
        HostTarget::Cloudflare if file(super::cloudflare::R2_WORKER).is_some() => {
            vec![(
                bytes(super::cloudflare::R2_WORKER),
                format!("hosting/{}", super::cloudflare::R2_WORKER),
            )]
        }
        HostTarget::Cloudflare => {
            let config = shipment.host.iter().filter(|f| PAGES_CONFIG.contains(&f.name.as_str()));
            let assets = shipment.files.saturating_sub(config.count() as u64);
            let rules: Vec<String> = file("_routes.json")
                .and_then(|f| serde_json::from_str::<serde_json::Value>(&f.contents).ok())
                .map(|json| {
                    (["include", "exclude"].iter())
                        .filter_map(|key| json[key].as_array())
                        .flatten()
                        .filter_map(|rule| rule.as_str().map(str::to_string))
                        .collect()
                })
                .unwrap_or_default();
            let longest = rules.iter().max_by_key(|r| r.chars().count());
            vec![
                (assets, "the output folder".into()),
                (rules.len() as u64, "_routes.json".into()),
                (
                    longest.map_or(0, |r| r.chars().count() as u64),
                    longest.map_or_else(String::new, |r| format!("_routes.json, `{r}`")),
                ),
                (bytes("_worker.js"), "_worker.js".into()),
            ]
        }
        HostTarget::Vercel => {
            let routes = file("vercel.json")
                .and_then(|f| serde_json::from_str::<serde_json::Value>(&f.contents).ok())
                .and_then(|json| json["routes"].as_array().map(Vec::len))
                .unwrap_or(0);
            vec![
                (shipment.files, "the output folder".into()),
                (routes as u64, "vercel.json".into()),
            ]
        }
        HostTarget::Netlify => {
            let rules = file("_redirects").map_or(0, |f| {
                (f.contents.lines())
                    .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
                    .count()
            });
            let (folder, n) = &shipment.fullest;
            vec![(*n, format!("`{folder}`")), (rules as u64, "_redirects".into())]
        }
        HostTarget::Cloudfront => {
            vec![(bytes("cloudfront-function.js"), "hosting/cloudfront-function.js".into())]
        }
        HostTarget::Nginx | HostTarget::Apache | HostTarget::Caddy | HostTarget::Lighttpd => {
            Vec::new()
        }
    }
}

/// Every target's limits against what a build of `map` sends it: `(passed hard limits,
/// limits within 10 %)`, as messages; the one place a host's files are counted. `hosts`:
/// each target's files; `codecs`: the precompressed siblings a page brings; `others`: the
/// output folder's files besides pages and the hosts' own (the API's files, folio's
/// bookkeeping).
pub fn check_all(
    hosts: &[(HostTarget, Vec<HostFile>)],
    terms: Terms,
    map: &Map,
    codecs: u64,
    others: u64,
) -> (Vec<String>, Vec<String>) {
    let variants = map.variants();
    let pages = variants.len() as u64 * map.sizes.iter().map(|s| s.pages as u64).sum::<u64>();
    let publish = hosts.iter().flat_map(|(_, f)| f).filter(|f| f.dir == Dir::Output).count();
    let files = pages * (1 + codecs) + others + publish as u64;
    // The fullest folder is a listing's at the smallest page size.
    let smallest =
        map.sizes.iter().min_by_key(|s| s.size).copied().unwrap_or(Size { size: 1, pages: 0 });
    let folder = variants.first().map_or_else(String::new, |&v| {
        let first = map.file(v, smallest.size, 1);
        first.rsplit_once('/').map_or("", |(dir, _)| dir).to_string()
    });
    let in_folder = smallest.pages as u64 * (1 + codecs);
    let per_size: Vec<(u64, u64)> = (map.sizes.iter())
        .map(|s| (s.size, variants.len() as u64 * s.pages as u64 * (1 + codecs)))
        .collect();
    let (mut over, mut near) = (Vec::new(), Vec::new());
    for (target, host) in hosts {
        let fullest = (folder.clone(), in_folder);
        let per_size = per_size.clone();
        let shipment = Shipment { files, fullest, host, siblings: codecs > 0, per_size };
        for Finding { over: passed, message, .. } in check(*target, terms, &shipment) {
            if passed { over.push(message) } else { near.push(message) }
        }
    }
    (over, near)
}

/// The limits of `target` that `shipment` passes, or comes within 10 % of.
fn check(target: HostTarget, terms: Terms, shipment: &Shipment) -> Vec<Finding> {
    let plan = terms.plan;
    let mut findings = Vec::new();
    for (limit, (count, place)) in limits(target, terms).into_iter().zip(counts(target, shipment)) {
        let over = count > limit.max;
        // Within 10 %: 90 % of the limit or more.
        if !over && count.saturating_mul(10) < limit.max.saturating_mul(9) {
            continue;
        }
        let head = format!(
            "{}: {} {} ({place}), {} its {}limit of {}{} ({})",
            target.name(),
            thousands(count),
            limit.what,
            if over { "past" } else { "within 10% of" },
            if limit.hard { "" } else { "advised " },
            thousands(limit.max),
            limit.plan,
            limit.source
        );
        let message = if over && limit.hard {
            let ways = ways_out(target, plan, limit.what, shipment.siblings);
            let costs = if limit.what.starts_with("files") {
                size_costs(&shipment.per_size)
            } else {
                String::new()
            };
            format!("{head}; {ways}{costs}")
        } else {
            head
        };
        findings.push(Finding { target, over: over && limit.hard, message });
    }
    findings
}

/// `; the files each page size makes: 5: 15,000, 10: 7,500` (the costliest first): what
/// leaving one out of `[listing] page_sizes` saves.
fn size_costs(per_size: &[(u64, u64)]) -> String {
    if per_size.is_empty() {
        return String::new();
    }
    let mut sizes = per_size.to_vec();
    sizes.sort_by_key(|&(size, files)| (std::cmp::Reverse(files), size));
    let each: Vec<String> =
        sizes.iter().map(|&(size, files)| format!("{size}: {}", thousands(files))).collect();
    format!("; the files each page size makes: {}", each.join(", "))
}

/// What a user can do about a passed limit (`siblings`: the build makes precompressed
/// siblings, which a host that compresses does not need).
fn ways_out(target: HostTarget, plan: HostPlan, what: &str, siblings: bool) -> String {
    let files = what.starts_with("files");
    let no_siblings = |host: &str| {
        if siblings {
            format!("no precompressed siblings (`[output] precompress = []`: {host}); ")
        } else {
            String::new()
        }
    };
    match target {
        HostTarget::Cloudflare if files => {
            let paid = if plan == HostPlan::Free {
                format!(
                    "`plan = \"paid\"` in [hosting.cloudflare] if the account has a paid plan ({} files); ",
                    thousands(PAGES_FILES_PAID)
                )
            } else {
                String::new()
            };
            format!(
                "ways out: fewer page sizes (`[listing] page_sizes`) or languages; {}{paid}or the files in R2 behind a Worker (`serve_from = \"r2\"` in [hosting.cloudflare]: docs/hosting.md, \"Past a host's limits\")",
                no_siblings("Cloudflare compresses at the edge")
            )
        }
        HostTarget::Vercel if files => format!(
            "ways out: fewer page sizes (`[listing] page_sizes`) or languages; {}or object storage behind a CDN (`folio deploy` to S3 with the `cloudfront` target: docs/hosting.md, \"Past a host's limits\")",
            no_siblings("Vercel compresses itself")
        ),
        HostTarget::Netlify if files => format!(
            "ways out: larger page sizes (`[listing] page_sizes`: the smallest makes the most pages a folder); {}or object storage behind a CDN (`folio deploy` to S3 with the `cloudfront` target: docs/hosting.md, \"Past a host's limits\")",
            no_siblings("Netlify compresses itself")
        ),
        _ => "ways out: fewer languages or page sizes (`[listing]`), which the host's rules enumerate; or another target".into(),
    }
}

/// `23612` as `23,612`.
pub fn thousands(n: u64) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn free() -> Terms {
        Terms::default()
    }

    fn paid() -> Terms {
        Terms { plan: HostPlan::Paid, ..free() }
    }

    fn r2() -> Terms {
        Terms { r2: true, ..free() }
    }

    fn shipment(files: u64, host: &[HostFile]) -> Shipment<'_> {
        let per_size = vec![(10, files / 2), (50, files / 10)];
        Shipment {
            files,
            fullest: ("api/attractions/10".into(), files / 4),
            host,
            siblings: true,
            per_size,
        }
    }

    fn worker() -> Vec<HostFile> {
        let routes = r#"{"version":1,"include":["/api/*"],"exclude":[]}"#;
        vec![
            HostFile { dir: Dir::Output, name: "_worker.js".into(), contents: "x".repeat(100) },
            HostFile { dir: Dir::Output, name: "_routes.json".into(), contents: routes.into() },
        ]
    }

    #[test]
    fn a_pages_build_past_the_free_plan_fails_with_the_ways_out_and_passes_on_a_paid_one() {
        let host = worker();
        // 25,002 files, two of them Pages' own configuration: 25,000 assets.
        let found = check(HostTarget::Cloudflare, free(), &shipment(25_002, &host));
        assert_eq!(found.len(), 1, "{found:?}");
        assert!(found[0].over);
        let m = &found[0].message;
        assert!(
            m.starts_with("cloudflare: 25,000 files in one Cloudflare Pages deployment"),
            "{m}"
        );
        assert!(m.contains("past its limit of 20,000 on the free plan"), "{m}");
        for way in ["page_sizes", "precompress = []", "plan = \"paid\"", "serve_from = \"r2\""] {
            assert!(m.contains(way), "{way} in {m}");
        }
        assert!(check(HostTarget::Cloudflare, paid(), &shipment(25_002, &host)).is_empty());
        // Without siblings, that way out is not offered.
        let plain = Shipment { siblings: false, ..shipment(25_002, &host) };
        let found = check(HostTarget::Cloudflare, free(), &plain);
        assert!(!found[0].message.contains("precompress"), "{}", found[0].message);
        // The boundary: the limit itself passes, one more fails.
        let at = check(HostTarget::Cloudflare, free(), &shipment(20_002, &host));
        assert!(!at[0].over && at[0].message.contains("within 10% of"), "{at:?}");
        assert!(check(HostTarget::Cloudflare, free(), &shipment(20_003, &host))[0].over);
    }

    #[test]
    fn within_ten_percent_is_a_warning_and_below_is_nothing() {
        let host = worker();
        let near = check(HostTarget::Cloudflare, free(), &shipment(18_002, &host));
        assert_eq!(near.len(), 1);
        assert!(!near[0].over);
        assert!(!near[0].message.contains("ways out"), "{}", near[0].message);
        assert!(check(HostTarget::Cloudflare, free(), &shipment(17_999, &host)).is_empty());
    }

    #[test]
    fn rules_and_scripts_are_counted_from_the_host_files() {
        let rules: Vec<String> = (0..101).map(|i| format!("\"/api/{i}/*\"")).collect();
        let routes = format!(r#"{{"version":1,"include":[{}],"exclude":[]}}"#, rules.join(","));
        let host = [HostFile { dir: Dir::Output, name: "_routes.json".into(), contents: routes }];
        let found = check(HostTarget::Cloudflare, free(), &shipment(10, &host));
        assert!(found.iter().any(|f| f.over && f.message.contains("101 rules in _routes.json")));

        let js = HostFile {
            dir: Dir::Hosting,
            name: "cloudfront-function.js".into(),
            contents: "x".repeat(10 * 1024 + 1),
        };
        let found = check(HostTarget::Cloudfront, free(), &shipment(10, &[js]));
        assert!(found[0].over && found[0].message.contains("10,241 bytes"), "{found:?}");

        let lines = "/a /b 200\n".repeat(9_500);
        let redirects = HostFile { dir: Dir::Output, name: "_redirects".into(), contents: lines };
        let found = check(HostTarget::Netlify, free(), &shipment(10, &[redirects]));
        assert!(!found[0].over, "advised, not refused: {found:?}");
        assert!(found[0].message.contains("advised limit of 10,000"));
    }

    #[test]
    fn from_r2_the_files_are_not_counted_and_the_worker_is() {
        let worker = |len| HostFile {
            dir: Dir::Hosting,
            name: super::super::cloudflare::R2_WORKER.into(),
            contents: "x".repeat(len),
        };
        let small = [worker(100)];
        assert!(check(HostTarget::Cloudflare, r2(), &shipment(10_000_000, &small)).is_empty());
        let big = [worker((64 << 20) + 1)];
        let found = check(HostTarget::Cloudflare, r2(), &shipment(10, &big));
        assert!(found[0].over && found[0].message.contains("cloudflare-worker.js"), "{found:?}");
    }

    #[test]
    fn own_servers_have_no_limits() {
        for t in [HostTarget::Nginx, HostTarget::Apache, HostTarget::Caddy, HostTarget::Lighttpd] {
            assert!(check(t, free(), &shipment(10_000_000, &[])).is_empty());
        }
    }

    #[test]
    fn docs_hosting_lists_every_checked_limit_with_its_number_and_source() {
        let doc = include_str!("../../docs/hosting.md");
        let targets = [
            HostTarget::Cloudflare,
            HostTarget::Vercel,
            HostTarget::Netlify,
            HostTarget::Cloudfront,
        ];
        for target in targets {
            for plan in [free(), paid(), r2()] {
                for limit in limits(target, plan) {
                    let number = match limit.max {
                        n if n >= 1 << 20 && n.is_multiple_of(1 << 20) => {
                            format!("{} MiB", n >> 20)
                        }
                        n if n < 100_000 && n.is_multiple_of(1024) && n > 2_048 => {
                            format!("{} KB", n / 1024)
                        }
                        n => thousands(n),
                    };
                    let row = format!("| `{}` |", target.name());
                    let found = doc.lines().any(|l| {
                        l.starts_with(&row) && l.contains(&number) && l.contains(limit.source)
                    });
                    assert!(
                        found,
                        "docs/hosting.md: no row for {} {:?} with {number}",
                        target.name(),
                        limit
                    );
                }
            }
        }
    }

    #[test]
    fn thousands_are_grouped() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(20_000), "20,000");
        assert_eq!(thousands(1_234_567), "1,234,567");
    }
}
