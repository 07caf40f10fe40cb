//! Host limits: `folio check` and `folio build` count what each configured host would
//! receive, refuse a build past a hard limit (writing nothing) and warn near one.

use crate::harness::{Project, files, folio_snapshot};

/// The sample with `extra` more records and page sizes 1, 2 and 4, for `targets`: about
/// 8.75 files a record over the five variants (four languages and the unprefixed one).
fn catalog(extra: usize, targets: &str, plan: Option<&str>) -> Project {
    let p = Project::sample();
    let mut lines = String::new();
    for i in 0..extra {
        lines.push_str(&format!(
            "{{\"id\": {}, \"name\": {{\"en\": \"Place {i}\"}}}}\n",
            100_000 + i
        ));
    }
    p.write("data/extra.jsonl", lines);
    let mut cfg = p.read("folio.toml");
    cfg = cfg.replace("page_sizes = [10, 20, 50, 100]", "page_sizes = [1, 2, 4]");
    cfg = cfg.replace("default_page_size = 10", "default_page_size = 1");
    let targets_line = cfg.lines().find(|l| l.starts_with("targets = ")).unwrap().to_string();
    cfg = cfg.replace(&targets_line, &format!("targets = {targets}"));
    if let Some(plan) = plan {
        cfg.push_str(&format!("\n[hosting.cloudflare]\nplan = \"{plan}\"\n"));
    }
    p.write("folio.toml", cfg);
    p
}

/// The number in `message` just before `what`, commas removed.
fn count_before(message: &str, what: &str) -> u64 {
    let head = &message[..message.find(what).unwrap_or_else(|| panic!("{what} in {message}"))];
    let number = head.trim_end().rsplit(char::is_whitespace).next().unwrap().replace(',', "");
    number.parse().unwrap_or_else(|_| panic!("a count before {what} in {message}"))
}

#[test]
fn a_pages_build_past_the_free_plan_is_refused_with_the_ways_out_and_the_paid_plan_takes_it() {
    // 2,800 + 67 records: about 25,000 files.
    let p = catalog(2_800, r#"["cloudflare"]"#, None);
    // A first, small build: the refused one must leave it as it was.
    let cfg = p.read("folio.toml");
    p.write(
        "folio.toml",
        cfg.replace("page_sizes = [1, 2, 4]", "page_sizes = [4]")
            .replace("default_page_size = 1", "default_page_size = 4"),
    );
    p.folio(&["build"]).success();
    let before = p.tree("output");
    p.write("folio.toml", &cfg);

    // The count, the limit, the ways out (smaller page_sizes, the paid plan, serving from
    // R2) and that nothing was written.
    let refused = folio_snapshot(p.dir.path(), &["build"]);
    insta::assert_snapshot!("build_past_the_free_plan", refused);
    assert_eq!(p.tree("output"), before, "a refused build leaves the output as it was");
    let counted = count_before(&refused, "files in one Cloudflare Pages deployment");
    assert!((24_000..26_000).contains(&counted), "{counted}");

    // `folio check` says the same, before any build.
    let check = p.folio(&["check"]).fails(1);
    assert!(check.stderr().contains(&format!(
        "{} files in one Cloudflare Pages deployment",
        folio::hosts::limits::thousands(counted)
    )));
    let json = p.folio(&["check", "--format", "json"]).fails(1);
    let report: serde_json::Value = serde_json::from_str(&json.stdout()).unwrap();
    assert_eq!(report["problems"][0]["kind"], "hosting", "{report}");

    // On the paid plan it builds, and the count was the files the host receives: every
    // file of the output folder but Pages' own configuration.
    let mut paid = p.read("folio.toml");
    paid.push_str("\n[hosting.cloudflare]\nplan = \"paid\"\n");
    p.write("folio.toml", paid);
    p.folio(&["build"]).success();
    let on_disk = files(&p.path("output"));
    let config = ["_worker.js", "_routes.json"];
    let assets = on_disk.keys().filter(|k| !config.contains(&k.as_str())).count() as u64;
    assert_eq!(assets, counted, "the count is what the build wrote");
}

#[test]
fn near_a_limit_check_and_build_warn_and_go_on() {
    // Vercel takes 15,000 files a CLI deploy: about 14,000 is within 10 %.
    let p = catalog(1_540, r#"["vercel", "nginx"]"#, None);
    // A warning, without the ways out of a refusal.
    insta::assert_snapshot!("check_near_a_limit", folio_snapshot(p.dir.path(), &["check"]));
    let built = p.folio(&["build"]).success();
    assert!(built.stderr().contains("within 10% of its limit of 15,000"), "{}", built.stderr());
    let on_disk = files(&p.path("output")).len() as u64;
    assert_eq!(
        count_before(&built.stderr(), "files in one deployment from the Vercel CLI"),
        on_disk
    );
}

#[test]
fn an_unknown_plan_is_a_config_error_naming_the_plans() {
    let p = catalog(0, r#"["cloudflare"]"#, Some("business"));
    insta::assert_snapshot!("unknown_plan", folio_snapshot(p.dir.path(), &["check"]));
}

#[test]
fn the_r2_worker_follows_the_deploy_url_and_needs_r2s_endpoint() {
    let p = catalog(0, r#"["cloudflare"]"#, None);
    let mut cfg = p.read("folio.toml");
    cfg.push_str("\n[hosting.cloudflare]\nserve_from = \"r2\"\n");
    p.write("folio.toml", &cfg);
    let err = p.folio(&["build"]).fails(1).stderr();
    assert!(err.contains("[deploy] needs url = \"s3://BUCKET/PREFIX\""), "{err}");
    cfg.push_str("\n[deploy]\nurl = \"s3://travel-api/v1\"\n");
    p.write("folio.toml", &cfg);
    let err = p.folio(&["build"]).fails(1).stderr();
    assert!(err.contains("[deploy] needs endpoint"), "{err}");
    cfg.push_str("endpoint = \"https://account.r2.cloudflarestorage.com\"\n");
    p.write("folio.toml", &cfg);
    p.folio(&["build"]).success();
    assert!(p.read("hosting/cloudflare-worker.js").contains("const KEYS = \"v1/\";"));
    assert!(p.read("hosting/wrangler.toml").contains("bucket_name = \"travel-api\""));
    // The Worker reads what [deploy] url says: another url is another Worker.
    p.write("folio.toml", cfg.replace("s3://travel-api/v1", "s3://other-bucket/v2"));
    let built = p.folio(&["build"]).success();
    assert!(!built.stdout().contains(" 0 files written"), "{}", built.stdout());
    assert!(p.read("hosting/cloudflare-worker.js").contains("const KEYS = \"v2/\";"));
    assert!(p.read("hosting/wrangler.toml").contains("bucket_name = \"other-bucket\""));
    // Deleted, the hosting folder comes back with the next build.
    std::fs::remove_dir_all(p.path("hosting")).unwrap();
    p.folio(&["build"]).success();
    assert!(p.path("hosting/cloudflare-worker.js").is_file());
}
