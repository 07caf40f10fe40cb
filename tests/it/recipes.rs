//! docs/ci.md's pipelines run as written: every shell step of the GitHub workflow and of
//! the GitLab jobs, in their order, in a checkout of a project, with what the platform gives
//! a step (its environment, `PATH` and `$GITHUB_PATH`, the cache, `if:` and `rules:`).
//! Only the network is stood in for: `cargo install` of the pinned commit puts the folio
//! under test where it would install, `apt-get` installs nothing (nginx, jq, curl and psql
//! are this machine's), and the database is a PostgreSQL server of the test's own, as
//! databases.rs starts one, with docs/data.md's table, reached by the `DATABASE_URL`
//! secret. The YAML is read by PyYAML, a reader nobody here wrote.

use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::databases::{Postgres, blocks};
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

/// The catalog in PostgreSQL: docs/data.md's table with two attractions of its own, beside
/// the sample's 67 (ids 1 to 67) in the checkout's `data/`.
fn catalog() -> Option<Postgres> {
    let pg = Postgres::start()?;
    pg.sql(&blocks("PostgreSQL", "sql")[0]);
    pg.sql(
        "INSERT INTO attractions VALUES
         (1001, 'Sagrada Família', 'Sagrada Família', 'Barcelona', 4.80, '1882-03-19', false,
          '{church,\"gaudí|modernisme\"}', 41.4036, 2.1744, '2026-11-26 10:30:00+01'),
         (1002, 'Park Güell', NULL, 'Barcelona', 4.50, '1926-01-01', true, '{park}', 41.4145,
          2.1527, NULL);",
    );
    Some(pg)
}

/// The names on the last page of 10 (ids 61 to 67, then the database's 1001 and 1002) in
/// the store, if it has one.
fn last_names(store: &Path) -> Vec<String> {
    let Ok(text) = std::fs::read_to_string(store.join("api/attractions/10/7.json")) else {
        return Vec::new();
    };
    let page: Value = serde_json::from_str(&text).unwrap();
    page["data"].as_array().unwrap().iter().map(|i| i["name"].as_str().unwrap().into()).collect()
}

#[test]
fn the_github_workflow_exports_checks_builds_smoke_tests_and_deploys_as_written() {
    if !ready() {
        return;
    }
    let Some(pg) = catalog() else { return };
    let gh = GitHub::new();
    let rev = gh.workflow["env"]["FOLIO_REV"].as_str().unwrap().to_string();
    let api = FakeCloudflare::start(0);
    let runner = [("CLOUDFLARE_API_BASE_URL", api.base())];
    let database = [("DATABASE_URL", pg.url.as_str())];
    let secrets = [
        ("DATABASE_URL", pg.url.as_str()),
        ("AWS_ACCESS_KEY_ID", "unused"),
        ("AWS_SECRET_ACCESS_KEY", "unused"),
        ("CLOUDFLARE_API_TOKEN", TOKEN),
    ];
    let pull = Event {
        name: "pull_request",
        git_ref: "refs/pull/7/merge",
        vars: &[],
        secrets: &database,
        runner: &runner,
    };

    // A pull request with a bad row: folio is built once (the cache is empty), the catalog
    // exported, the check step fails the job with the problem annotated on its line, and
    // nothing runs after it.
    let store = tempfile::tempdir().unwrap();
    let p = project(store.path(), None);
    p.write("data/bad.csv", "id,name.en,rating\n900,Louvre,abc\n");
    let (ok, ran, log) = gh.run(p.dir.path(), &pull);
    assert!(!ok, "{log}");
    assert_eq!(ran[ran.len() - 2..], ["Export the catalog", "Check the data"], "{ran:?}");
    assert!(
        log.contains("::error file=data/bad.csv,line=2,title=folio check (data)::rating: \"abc\" is not a number"),
        "{log}"
    );
    let calls = gh.shims.calls();
    assert_eq!(calls.len(), 1, "psql is there: no apt-get: {calls:?}");
    installs_the_pinned_commit(&calls[0], &gh.home.path().join(".folio"), &rev);

    // Fixed, on a pull request: every step but the deploy. A failed job saved no cache
    // (actions/cache saves on success), so folio is built again, and kept this time.
    std::fs::remove_file(p.path("data/bad.csv")).unwrap();
    let (ok, ran, log) = gh.run(p.dir.path(), &pull);
    assert!(ok, "{log}");
    assert!(log.contains("nginx serves the API as expected"), "{log}");
    assert!(!ran.contains(&"Deploy".to_string()), "{ran:?}");
    assert_eq!(gh.shims.calls().len(), 2);

    // A pull request from a fork gets no secrets: the export says so, and nothing after it
    // runs.
    let fork = Event { secrets: &[], ..pull };
    let (ok, ran, log) = gh.run(p.dir.path(), &fork);
    assert!(!ok && ran.last().unwrap() == "Export the catalog", "{ran:?}");
    assert!(log.contains("DATABASE_URL: no DATABASE_URL secret"), "{log}");

    // Pushed to main, with no CDN anywhere: it deploys the catalog with the checkout's
    // data, with no `--purge ''`.
    let event = |name, vars| Event {
        name,
        git_ref: "refs/heads/main",
        vars,
        secrets: &secrets,
        runner: &runner,
    };
    let (ok, ran, log) = gh.run(p.dir.path(), &event("push", &[("AWS_REGION", "eu-west-1")]));
    assert!(ok && ran.last().unwrap() == "Deploy", "{log}");
    assert!(!ran.contains(&"Install folio".to_string()), "a cache hit installs nothing: {ran:?}");
    assert!(store.path().join("api/attractions/10/1.json").is_file(), "{log}");
    assert_eq!(last_names(store.path())[7..], ["Sagrada Família", "Park Güell"], "{log}");
    assert!(api.purged().is_empty());

    // The schedule, on main: a change in the database is exported and deployed, and only
    // what it changed is uploaded.
    pg.sql("UPDATE attractions SET name_en = 'Basílica de la Sagrada Família' WHERE id = 1001;");
    let (ok, ran, log) = gh.run(p.dir.path(), &event("schedule", &[]));
    assert!(ok && ran.last().unwrap() == "Deploy", "{log}");
    assert_eq!(last_names(store.path())[7], "Basílica de la Sagrada Família", "{log}");
    assert!(!log.contains(" 0 uploaded,") && log.contains(" 0 deleted,"), "{log}");
    let (ok, _, log) = gh.run(p.dir.path(), &event("schedule", &[]));
    assert!(ok && log.contains(": 0 uploaded, ") && log.contains(" 0 deleted,"), "{log}");

    // The CDN of `[deploy] purge`, the variable unset: purged as folio.toml says.
    let store = tempfile::tempdir().unwrap();
    let cdn = format!("cloudflare:{ZONE}");
    let p = project(store.path(), Some(&cdn));
    let (ok, _, log) = gh.run(p.dir.path(), &event("push", &[]));
    assert!(ok && log.contains(&format!("purged {cdn}")), "{log}");
    let from_config = api.purged();
    assert!(from_config.contains("example.org/travel/api/attractions"), "{from_config:?}");

    // The CDN of the variable: purged with --purge.
    let store = tempfile::tempdir().unwrap();
    let p = project(store.path(), None);
    let (ok, _, log) = gh.run(p.dir.path(), &event("push", &[("CDN", &cdn)]));
    assert!(ok && log.contains(&format!("purged {cdn}")), "{log}");
    assert_eq!(gh.shims.calls().len(), 2, "{:?}", gh.shims.calls());
}

#[test]
fn the_gitlab_pipeline_exports_reports_builds_smoke_tests_and_deploys_as_written() {
    if !ready() {
        return;
    }
    let Some(pg) = catalog() else { return };
    let gl = GitLab::new();
    let rev = gl.pipeline["variables"]["FOLIO_REV"].as_str().unwrap().to_string();
    let api = FakeCloudflare::start(0);
    let cdn = format!("cloudflare:{ZONE}");
    let store = tempfile::tempdir().unwrap();
    let p = project(store.path(), Some(&cdn));
    let secrets = [
        ("DATABASE_URL", pg.url.clone()),
        ("CLOUDFLARE_API_TOKEN", TOKEN.to_string()),
        ("CLOUDFLARE_API_BASE_URL", api.base()),
    ];
    let ran = |jobs: &[(String, bool, tempfile::TempDir)]| -> Vec<(String, bool)> {
        jobs.iter().map(|(n, ok, _)| (n.clone(), *ok)).collect()
    };
    let job = |name: &str, ok: bool| (name.to_string(), ok);

    // A bad row: the check job fails with a Code Quality report of it; no stage after it.
    p.write("data/bad.csv", "id,name.en,rating\n900,Louvre,abc\n");
    let (jobs, log) = gl.run(&p, "feature", &secrets);
    assert_eq!(ran(&jobs), [job("export", true), job("check", false)], "{log}");
    let report: Value = serde_json::from_str(
        &std::fs::read_to_string(jobs[1].2.path().join("gl-code-quality-report.json")).unwrap(),
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
    assert!(
        calls.iter().any(|c| c.contains("install -y -qq postgresql-client")),
        "the export job installs psql: {calls:?}"
    );
    // The export's file came to the check job as the export job's artifact, not from the
    // checkout: the check job's clone has it.
    assert!(!p.path("data/attractions.json").exists());
    let exported = std::fs::read_to_string(jobs[1].2.path().join("data/attractions.json")).unwrap();
    assert!(exported.contains("Sagrada Família"), "{exported}");

    // Fixed, on a branch: export, check and build, no deploy. The failed job saved no
    // cache: the check job builds folio again, and the build job has it from the cache.
    std::fs::remove_file(p.path("data/bad.csv")).unwrap();
    let (jobs, log) = gl.run(&p, "feature", &secrets);
    assert_eq!(ran(&jobs), [job("export", true), job("check", true), job("build", true)], "{log}");
    assert!(log.contains("nginx serves the API as expected"), "{log}");
    assert_eq!(
        jobs[1].2.path().join("gl-code-quality-report.json").metadata().unwrap().len(),
        3,
        "`[]\\n`"
    );

    // On the default branch, no CDN variable: deployed, and purged as folio.toml says.
    let (jobs, log) = gl.run(&p, "main", &secrets);
    assert_eq!(jobs.last().map(|(n, ok, _)| (n.as_str(), *ok)), Some(("deploy", true)), "{log}");
    assert!(store.path().join("api/attractions/10/1.json").is_file());
    assert_eq!(last_names(store.path())[7..], ["Sagrada Família", "Park Güell"], "{log}");
    assert!(log.contains(&format!("purged {cdn}")), "{log}");
    assert!(!api.purged().is_empty());
    let installs = gl.shims.calls().iter().filter(|c| c.starts_with("cargo")).count();
    assert_eq!(installs, 2, "every job after the second had folio from the cache");

    // The pipeline schedule, on main: the database's change is exported and deployed.
    pg.sql("UPDATE attractions SET name_en = 'Parc Güell' WHERE id = 1002;");
    let scheduled = [secrets.to_vec(), vec![("CI_PIPELINE_SOURCE", "schedule".to_string())]];
    let (jobs, log) = gl.run(&p, "main", &scheduled.concat());
    assert_eq!(jobs.last().map(|(n, ok, _)| (n.as_str(), *ok)), Some(("deploy", true)), "{log}");
    assert_eq!(last_names(store.path())[8], "Parc Güell", "{log}");

    // No DATABASE_URL: the export job fails saying so, and nothing after it runs.
    let (jobs, log) = gl.run(&p, "main", &secrets[1..]);
    assert_eq!(ran(&jobs), [job("export", false)], "{log}");
    assert!(log.contains("DATABASE_URL: no DATABASE_URL variable"), "{log}");
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
