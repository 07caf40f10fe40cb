//! docs/ci.md's pipelines run as written: every shell step of the GitHub workflow and of
//! the GitLab jobs, in their order, in a checkout of a project, with what the platform gives
//! a step (its environment, `PATH` and `$GITHUB_PATH`, the cache, `if:` and `rules:`).
//! Only the network is stood in for: `cargo install` of the pinned commit puts the folio
//! under test where it would install, and `apt-get` installs nothing (nginx, jq and curl
//! are this machine's). The YAML is read by PyYAML, a reader nobody here wrote.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::deploy::cdn::{FakeCloudflare, TOKEN, ZONE};
use crate::harness::{Project, free_port, need, need_python_module, repo};

mod platforms;
use platforms::{Event, GitHub, GitLab};

/// A project as docs/ci.md's pipelines expect one: the sample, mounted under a path,
/// nginx as its target on a port of its own, `ci/nginx-smoke.sh` from the docs, and
/// `[deploy] url` a folder (with `purge` when given).
fn project(store: &Path, purge: Option<&str>) -> Project {
    let p = Project::sample();
    let cfg = p.read("folio.toml");
    let targets = cfg.lines().find(|l| l.starts_with("targets = ")).unwrap().to_string();
    let listen = cfg.lines().find(|l| l.starts_with("listen = ")).unwrap().to_string();
    let mut cfg = cfg
        .replace("base_url = \"\"", "base_url = \"https://example.org/travel\"")
        .replace(&targets, "targets = [\"nginx\"]")
        .replace(&listen, &format!("listen = \"127.0.0.1:{}\"", free_port()));
    cfg.push_str(&format!("\n[deploy]\nurl = \"file://{}\"\n", store.display()));
    if let Some(cdn) = purge {
        cfg.push_str(&format!("purge = [\"{cdn}\"]\n"));
    }
    p.write("folio.toml", cfg);
    let doc = std::fs::read_to_string(repo().join("docs/ci.md")).unwrap();
    let after = doc.split("Commit this as `ci/nginx-smoke.sh`").nth(1).unwrap();
    p.write(
        "ci/nginx-smoke.sh",
        after.split("```bash\n").nth(1).unwrap().split("```").next().unwrap(),
    );
    p
}

/// The one `cargo install` the recipes may run, for the commit they pin.
fn installs_the_pinned_commit(call: &str, root: &Path, rev: &str) {
    let home = std::fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    let home =
        home.lines().find_map(|l| l.strip_prefix("repository = \"")).unwrap().trim_end_matches('"');
    assert_eq!(
        call,
        format!("cargo install --locked --git {home} --rev {rev} --root {} folio", root.display())
    );
}

fn ready() -> bool {
    need("bash") && need("nginx") && need("curl") && need("jq") && need_python_module("yaml")
}

#[test]
fn the_github_workflow_checks_builds_smoke_tests_and_deploys_as_written() {
    if !ready() {
        return;
    }
    let gh = GitHub::new();
    let rev = gh.workflow["env"]["FOLIO_REV"].as_str().unwrap().to_string();
    let api = FakeCloudflare::start(0);
    let runner = [("CLOUDFLARE_API_BASE_URL", api.base())];
    let secrets = [
        ("AWS_ACCESS_KEY_ID", "unused"),
        ("AWS_SECRET_ACCESS_KEY", "unused"),
        ("CLOUDFLARE_API_TOKEN", TOKEN),
    ];
    let pull = Event {
        name: "pull_request",
        git_ref: "refs/pull/7/merge",
        vars: &[],
        secrets: &[],
        runner: &runner,
    };

    // A pull request with a bad row: folio is built once (the cache is empty), the check
    // step fails the job with the problem annotated on its line, and nothing runs after it.
    let store = tempfile::tempdir().unwrap();
    let p = project(store.path(), None);
    p.write("data/bad.csv", "id,name.en,rating\n900,Louvre,abc\n");
    let (ok, ran, log) = gh.run(p.dir.path(), &pull);
    assert!(!ok, "{log}");
    assert_eq!(ran.last().unwrap(), "Check the data", "{ran:?}");
    assert!(
        log.contains("::error file=data/bad.csv,line=2,title=folio check (data)::rating: \"abc\" is not a number"),
        "{log}"
    );
    let calls = gh.shims.calls();
    assert_eq!(calls.len(), 1, "{calls:?}");
    installs_the_pinned_commit(&calls[0], &gh.home.path().join(".folio"), &rev);

    // Fixed, on a pull request: every step but the deploy. A failed job saved no cache
    // (actions/cache saves on success), so folio is built again, and kept this time.
    std::fs::remove_file(p.path("data/bad.csv")).unwrap();
    let (ok, ran, log) = gh.run(p.dir.path(), &pull);
    assert!(ok, "{log}");
    assert!(log.contains("nginx serves the API as expected"), "{log}");
    assert!(!ran.contains(&"Deploy".to_string()), "{ran:?}");
    assert_eq!(gh.shims.calls().len(), 2);

    // Pushed to main, with no CDN anywhere: it deploys, with no `--purge ''`.
    let push = |vars| Event {
        name: "push",
        git_ref: "refs/heads/main",
        vars,
        secrets: &secrets,
        runner: &runner,
    };
    let (ok, ran, log) = gh.run(p.dir.path(), &push(&[("AWS_REGION", "eu-west-1")]));
    assert!(ok && ran.last().unwrap() == "Deploy", "{log}");
    assert!(!ran.contains(&"Install folio".to_string()), "a cache hit installs nothing: {ran:?}");
    assert!(store.path().join("api/attractions/10/1.json").is_file(), "{log}");
    assert!(api.purged().is_empty());

    // The CDN of `[deploy] purge`, the variable unset: purged as folio.toml says.
    let store = tempfile::tempdir().unwrap();
    let cdn = format!("cloudflare:{ZONE}");
    let p = project(store.path(), Some(&cdn));
    let (ok, _, log) = gh.run(p.dir.path(), &push(&[]));
    assert!(ok && log.contains(&format!("purged {cdn}")), "{log}");
    let from_config = api.purged();
    assert!(from_config.contains("example.org/travel/api/attractions"), "{from_config:?}");

    // The CDN of the variable: purged with --purge.
    let store = tempfile::tempdir().unwrap();
    let p = project(store.path(), None);
    let (ok, _, log) = gh.run(p.dir.path(), &push(&[("CDN", &cdn)]));
    assert!(ok && log.contains(&format!("purged {cdn}")), "{log}");
    assert_eq!(gh.shims.calls().len(), 2, "{:?}", gh.shims.calls());
}

#[test]
fn the_gitlab_pipeline_reports_builds_smoke_tests_and_deploys_as_written() {
    if !ready() {
        return;
    }
    let gl = GitLab::new();
    let rev = gl.pipeline["variables"]["FOLIO_REV"].as_str().unwrap().to_string();
    let api = FakeCloudflare::start(0);
    let cdn = format!("cloudflare:{ZONE}");
    let store = tempfile::tempdir().unwrap();
    let p = project(store.path(), Some(&cdn));
    let secrets =
        [("CLOUDFLARE_API_TOKEN", TOKEN.to_string()), ("CLOUDFLARE_API_BASE_URL", api.base())];

    // A bad row: the check job fails with a Code Quality report of it; no stage after it.
    p.write("data/bad.csv", "id,name.en,rating\n900,Louvre,abc\n");
    let (jobs, log) = gl.run(&p, "feature", &secrets);
    let names: Vec<(&str, bool)> = jobs.iter().map(|(n, ok, _)| (n.as_str(), *ok)).collect();
    assert_eq!(names, [("check", false)], "{log}");
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(jobs[0].2.path().join("gl-code-quality-report.json")).unwrap(),
    )
    .unwrap();
    assert_eq!(
        report[0]["location"],
        serde_json::json!({"path": "data/bad.csv", "lines": {"begin": 2}}),
        "{report}"
    );
    assert!(
        report[0]["description"].as_str().unwrap().starts_with("rating: \"abc\" is not a number"),
        "{report}"
    );
    assert!(log.contains("data/bad.csv:2: rating:"), "the text in the log: {log}");
    let calls = gl.shims.calls();
    let installs: Vec<&String> = calls.iter().filter(|c| c.starts_with("cargo")).collect();
    assert_eq!(installs.len(), 1, "{calls:?}");
    installs_the_pinned_commit(installs[0], Path::new(".folio"), &rev);

    // Fixed, on a branch: check and build, no deploy. The failed job saved no cache:
    // the check job builds folio again, and the build job has it from the cache.
    std::fs::remove_file(p.path("data/bad.csv")).unwrap();
    let (jobs, log) = gl.run(&p, "feature", &secrets);
    let names: Vec<(&str, bool)> = jobs.iter().map(|(n, ok, _)| (n.as_str(), *ok)).collect();
    assert_eq!(names, [("check", true), ("build", true)], "{log}");
    assert!(log.contains("nginx serves the API as expected"), "{log}");
    assert_eq!(
        jobs[0].2.path().join("gl-code-quality-report.json").metadata().unwrap().len(),
        3,
        "`[]\\n`"
    );

    // On the default branch, no CDN variable: deployed, and purged as folio.toml says.
    let (jobs, log) = gl.run(&p, "main", &secrets);
    assert_eq!(jobs.last().map(|(n, ok, _)| (n.as_str(), *ok)), Some(("deploy", true)), "{log}");
    assert!(store.path().join("api/attractions/10/1.json").is_file());
    assert!(log.contains(&format!("purged {cdn}")), "{log}");
    assert!(!api.purged().is_empty());
    let installs = gl.shims.calls().iter().filter(|c| c.starts_with("cargo")).count();
    assert_eq!(installs, 2, "every job after the second had folio from the cache");
}

#[test]
fn the_pinned_commit_is_of_this_history_and_knows_every_flag_the_recipes_pass() {
    if !need("git") || !repo().join(".git").exists() {
        return;
    }
    let doc = std::fs::read_to_string(repo().join("docs/ci.md")).unwrap();
    let rev = doc.split("FOLIO_REV: ").nth(1).unwrap().split_whitespace().next().unwrap();
    let git =
        |args: &[&str]| Command::new("git").arg("-C").arg(repo()).args(args).output().unwrap();
    if !git(&["cat-file", "-e", &format!("{rev}^{{commit}}")]).status.success() {
        // A shallow clone lacks the history; a full one must have the commit.
        let shallow = git(&["rev-parse", "--is-shallow-repository"]);
        assert_eq!(
            String::from_utf8_lossy(&shallow.stdout).trim(),
            "true",
            "{rev} is no commit of this repository"
        );
        crate::harness::skipped("a shallow clone: the pinned commit's history is not here");
        return;
    }
    assert!(
        git(&["merge-base", "--is-ancestor", rev, "HEAD"]).status.success(),
        "{rev} is not in HEAD's history"
    );
    // What the folio of that commit accepts is its man pages (generated from its command line).
    let flag =
        regex::Regex::new(r"folio (check|build|deploy)((?: --[a-z-]+(?: [a-z]+\b)?)*)").unwrap();
    for found in flag.captures_iter(&doc) {
        let page = git(&["show", &format!("{rev}:contrib/man/folio-{}.1", &found[1])]);
        let page = String::from_utf8_lossy(&page.stdout);
        for word in found[2].split(" --").filter(|w| !w.is_empty()) {
            let (name, value) = word.split_once(' ').unwrap_or((word, ""));
            assert!(
                page.contains(&format!("\\-\\-{}", name.replace('-', "\\-"))),
                "folio {} at {rev} has no --{name}",
                &found[1]
            );
            let head =
                std::fs::read_to_string(repo().join(format!("contrib/man/folio-{}.1", &found[1])))
                    .unwrap();
            if !value.is_empty() && head.contains(&format!("\n{value}:")) {
                assert!(
                    page.contains(&format!("\n{value}:")),
                    "folio {} at {rev}: --{name} {value}",
                    &found[1]
                );
            }
        }
    }
}
