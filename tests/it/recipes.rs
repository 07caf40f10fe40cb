//! docs/ci.md's pipelines run as written: every shell step of the GitHub workflow and of
//! the GitLab jobs, in their order, in a checkout of a project, with what the platform gives
//! a step (its environment, `PATH` and `$GITHUB_PATH`, the cache, `if:` and `rules:`).
//! Only the network is stood in for: `cargo install` of the pinned commit puts the folio
//! under test where it would install, and `apt-get` installs nothing (nginx, jq and curl
//! are this machine's). The YAML is read by PyYAML, a reader nobody here wrote.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::deploy::cdn::{FakeCloudflare, TOKEN, ZONE};
use crate::harness::{BIN, Project, copy_dir, free_port, need, need_python_module, repo, tool};
use crate::release::recipe_file;

/// A YAML document as JSON, read by PyYAML.
fn yaml(text: &str) -> Value {
    let script = "import json, sys, yaml; print(json.dumps(yaml.safe_load(sys.stdin.read())))";
    let mut child = Command::new(tool("python3"))
        .args(["-c", script])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    child.stdin.take().unwrap().write_all(text.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "PyYAML could not read:\n{text}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// The programs that stand in for the network, first on every step's `PATH`: `cargo`
/// (whose `install --root DIR` copies the folio under test to DIR/bin) and `apt-get`, each
/// writing its arguments to `calls`; `sudo` runs its command.
struct Shims {
    dir: tempfile::TempDir,
}

impl Shims {
    fn new() -> Shims {
        let dir = tempfile::tempdir().unwrap();
        let cargo = r#"#!/usr/bin/env bash
set -eu
echo "cargo $*" >> "$(dirname "$0")/calls"
[ "$1" = install ] || { echo "cargo: only install stands in here" >&2; exit 101; }
root=
while [ $# -gt 0 ]; do [ "$1" = --root ] && root=$2; shift; done
mkdir -p "$root/bin" && cp "$FOLIO_UNDER_TEST" "$root/bin/folio"
"#;
        let apt = "#!/bin/sh\necho \"apt-get $*\" >> \"$(dirname \"$0\")/calls\"\n";
        for (name, script) in
            [("cargo", cargo), ("apt-get", apt), ("sudo", "#!/bin/sh\nexec \"$@\"\n")]
        {
            let path = dir.path().join(name);
            std::fs::write(&path, script).unwrap();
            std::fs::set_permissions(&path, std::os::unix::fs::PermissionsExt::from_mode(0o755))
                .unwrap();
        }
        Shims { dir }
    }

    /// The calls made so far, one a line.
    fn calls(&self) -> Vec<String> {
        let text = std::fs::read_to_string(self.dir.path().join("calls")).unwrap_or_default();
        text.lines().map(str::to_string).collect()
    }

    /// `PATH` for a step: `first`, then the shims, then this machine's.
    fn path(&self, first: &[PathBuf]) -> std::ffi::OsString {
        let system = std::env::var_os("PATH").unwrap_or_default();
        let mut all: Vec<PathBuf> = first.to_vec();
        all.push(self.dir.path().to_path_buf());
        all.extend(std::env::split_paths(&system));
        std::env::join_paths(all).unwrap()
    }
}

/// Runs `script` with bash in `dir`, as the platforms do (`-e`, `pipefail`), with `env`
/// and nothing of the test's own environment but `PATH`'s folders: whether it succeeded,
/// and what it said.
fn shell(
    script: &str,
    dir: &Path,
    env: &BTreeMap<String, String>,
    path: &std::ffi::OsStr,
) -> (bool, String) {
    let file = tempfile::NamedTempFile::new().unwrap();
    std::fs::write(file.path(), script).unwrap();
    let out = Command::new("bash")
        .args(["--noprofile", "--norc", "-eo", "pipefail"])
        .arg(file.path())
        .current_dir(dir)
        .env_clear()
        .envs(env)
        .env("PATH", path)
        .env("FOLIO_UNDER_TEST", BIN)
        .output()
        .unwrap();
    let said =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), said)
}

/// `A == 'x' && B != 'y'`, the expressions the recipes' `if:` use, on `context`. Any other
/// is this runner's to learn, not to guess.
fn holds(expression: &str, context: &BTreeMap<String, String>) -> bool {
    expression.split(" && ").all(|term| {
        let (name, equal, value) = match (term.split_once(" == "), term.split_once(" != ")) {
            (Some((n, v)), None) => (n, true, v),
            (None, Some((n, v))) => (n, false, v),
            _ => panic!("an `if:` this runner does not know: {expression}"),
        };
        let known =
            context.get(name.trim()).unwrap_or_else(|| panic!("unknown {name} in {expression}"));
        let value = value.trim().trim_matches('\'');
        (known == value) == equal
    })
}

/// `${{ env.X }}`, `${{ secrets.X }}`, `${{ vars.X }}`, `${{ runner.os }}`... of `text`,
/// from `values` (`""` when unset, as GitHub gives an unset secret).
fn expand(text: &str, values: &BTreeMap<String, String>) -> String {
    let re = regex::Regex::new(r"\$\{\{\s*([a-z]+\.[A-Za-z_-]+)\s*\}\}").unwrap();
    re.replace_all(text, |c: &regex::Captures| values.get(&c[1]).cloned().unwrap_or_default())
        .into_owned()
}

/// What a run gives the workflow, as GitHub would: the event, the variables and secrets.
struct Event<'a> {
    name: &'a str,
    git_ref: &'a str,
    vars: &'a [(&'a str, &'a str)],
    secrets: &'a [(&'a str, &'a str)],
    /// The runner's own environment (a test's server addresses).
    runner: &'a [(&'a str, String)],
}

/// GitHub Actions, as far as docs/ci.md's workflow uses it: one job's steps in order,
/// `actions/checkout` (the project is the checkout) and `actions/cache` (kept across runs),
/// `if:`, `env:` at the workflow and the step, `$GITHUB_PATH`, and `run:` with bash.
struct GitHub {
    workflow: Value,
    shims: Shims,
    home: tempfile::TempDir,
    caches: tempfile::TempDir,
}

impl GitHub {
    fn new() -> GitHub {
        let workflow = yaml(&recipe_file(".github/workflows/"));
        let (shims, home, caches) =
            (Shims::new(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        GitHub { workflow, shims, home, caches }
    }

    /// Runs the job in `checkout`: whether it succeeded, the steps that ran (by name), and
    /// the log.
    fn run(&self, checkout: &Path, event: &Event) -> (bool, Vec<String>, String) {
        let jobs = self.workflow["jobs"].as_object().unwrap();
        assert_eq!(jobs.len(), 1, "one job");
        let job = jobs.values().next().unwrap();
        let github_path = self.home.path().join("github_path");
        std::fs::write(&github_path, "").unwrap();
        let mut values: BTreeMap<String, String> = BTreeMap::new();
        let workflow_env = self.workflow["env"].as_object().cloned().unwrap_or_default();
        for (k, v) in &workflow_env {
            values.insert(format!("env.{k}"), v.as_str().unwrap().to_string());
        }
        values.insert("runner.os".into(), "Linux".into());
        values.insert("runner.arch".into(), "X64".into());
        for (k, v) in event.vars {
            values.insert(format!("vars.{k}"), v.to_string());
        }
        for (k, v) in event.secrets {
            values.insert(format!("secrets.{k}"), v.to_string());
        }
        let mut context: BTreeMap<String, String> = BTreeMap::new();
        context.insert("github.event_name".into(), event.name.to_string());
        context.insert("github.ref".into(), event.git_ref.to_string());
        let (mut ran, mut log, mut saves) = (Vec::new(), String::new(), Vec::new());
        for (i, step) in job["steps"].as_array().unwrap().iter().enumerate() {
            let name = step["name"].as_str().map_or(format!("step {i}"), str::to_string);
            if step["if"].as_str().is_some_and(|condition| !holds(condition, &context)) {
                continue;
            }
            ran.push(name.clone());
            if let Some(uses) = step["uses"].as_str() {
                let with = &step["with"];
                if uses.starts_with("actions/checkout@") {
                    continue; // `checkout` is the checkout
                }
                assert!(
                    uses.starts_with("actions/cache@"),
                    "a step this runner does not know: {uses}"
                );
                let path = with["path"]
                    .as_str()
                    .unwrap()
                    .replace('~', &self.home.path().to_string_lossy());
                let key = expand(with["key"].as_str().unwrap(), &values);
                assert!(!key.contains("${{"), "{key}");
                let saved = self.caches.path().join(&key);
                let hit = saved.is_dir();
                if hit {
                    copy_dir(&saved, Path::new(&path));
                } else {
                    saves.push((PathBuf::from(path), saved));
                }
                let id = step["id"].as_str().expect("a cache step has an id");
                let hit = if hit { "true" } else { "" };
                context.insert(format!("steps.{id}.outputs.cache-hit"), hit.into());
                continue;
            }
            let script = step["run"].as_str().expect("a step runs or uses");
            assert!(
                !script.contains("${{"),
                "{name}: an expression in a script (zizmor's template injection)"
            );
            let mut env: BTreeMap<String, String> = BTreeMap::new();
            for (k, v) in workflow_env.iter().chain(step["env"].as_object().into_iter().flatten()) {
                env.insert(k.clone(), expand(v.as_str().unwrap(), &values));
            }
            for (k, v) in event.runner {
                env.insert(k.to_string(), v.clone());
            }
            env.insert("HOME".into(), self.home.path().to_string_lossy().into());
            env.insert("CI".into(), "true".into());
            env.insert("GITHUB_ACTIONS".into(), "true".into());
            env.insert("GITHUB_PATH".into(), github_path.to_string_lossy().into());
            // Each line of $GITHUB_PATH comes first on the next steps' PATH, the last first.
            let added = std::fs::read_to_string(&github_path).unwrap();
            let first: Vec<PathBuf> = added.lines().rev().map(PathBuf::from).collect();
            let (ok, said) = shell(script, checkout, &env, &self.shims.path(&first));
            log.push_str(&format!("--- {name}\n{said}"));
            if !ok {
                return (false, ran, log);
            }
        }
        // A cache that missed is saved once the job succeeded.
        for (path, saved) in saves {
            if path.is_dir() {
                copy_dir(&path, &saved);
            }
        }
        (true, ran, log)
    }
}

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

/// GitLab CI, as far as docs/ci.md's pipeline uses it: its stages in order, each job in a
/// fresh clone with the cache restored, `default: before_script` then `script` in one
/// shell, `variables:`, `rules: - if:`; a failed job stops the stages after it.
struct GitLab {
    pipeline: Value,
    shims: Shims,
    home: tempfile::TempDir,
    caches: tempfile::TempDir,
}

impl GitLab {
    fn new() -> GitLab {
        let pipeline = yaml(&recipe_file(".gitlab-ci.yml"));
        let (shims, home, caches) =
            (Shims::new(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        GitLab { pipeline, shims, home, caches }
    }

    /// Runs the pipeline for `project` on `branch`: each job that ran, whether it
    /// succeeded, and its clone (for its artifacts); the log.
    fn run(
        &self,
        project: &Project,
        branch: &str,
        variables: &[(&str, String)],
    ) -> (Vec<(String, bool, tempfile::TempDir)>, String) {
        let p = &self.pipeline;
        let mut env: BTreeMap<String, String> = BTreeMap::new();
        for (k, v) in p["variables"].as_object().unwrap() {
            env.insert(k.clone(), v.as_str().unwrap().to_string());
        }
        for (k, v) in [
            ("CI", "true"),
            ("GITLAB_CI", "true"),
            ("CI_COMMIT_BRANCH", branch),
            ("CI_DEFAULT_BRANCH", "main"),
        ] {
            env.insert(k.into(), v.into());
        }
        for (k, v) in variables {
            env.insert(k.to_string(), v.clone());
        }
        env.insert("HOME".into(), self.home.path().to_string_lossy().into());
        let key = p["cache"]["key"].as_str().unwrap().replace("$FOLIO_REV", &env["FOLIO_REV"]);
        let cached: Vec<&str> =
            p["cache"]["paths"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
        let before: Vec<&str> = p["default"]["before_script"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_str().unwrap())
            .collect();
        let (mut jobs, mut log) = (Vec::new(), String::new());
        for stage in p["stages"].as_array().unwrap() {
            for (name, job) in p.as_object().unwrap() {
                if job["stage"] != *stage {
                    continue;
                }
                let runs = job["rules"].as_array().is_none_or(|rules| {
                    rules.iter().any(|r| {
                        let (a, b) =
                            r["if"].as_str().unwrap().split_once(" == ").expect("`$A == $B`");
                        let var = |s: &str| env.get(s.trim().trim_start_matches('$')).cloned();
                        var(a) == var(b)
                    })
                });
                if !runs {
                    continue;
                }
                let clone = tempfile::tempdir().unwrap();
                copy_dir(project.dir.path(), clone.path());
                for path in &cached {
                    let saved = self.caches.path().join(&key).join(path);
                    if saved.is_dir() {
                        copy_dir(&saved, &clone.path().join(path));
                    }
                }
                let script: Vec<&str> =
                    job["script"].as_array().unwrap().iter().map(|v| v.as_str().unwrap()).collect();
                let all = [before.clone(), script].concat().join("\n");
                let (ok, said) = shell(&all, clone.path(), &env, &self.shims.path(&[]));
                log.push_str(&format!("--- {name}\n{said}"));
                // The cache is saved when the job succeeds (GitLab's `when: on_success`).
                for path in cached.iter().filter(|_| ok) {
                    let here = clone.path().join(path);
                    if here.is_dir() {
                        copy_dir(&here, &self.caches.path().join(&key).join(path));
                    }
                }
                jobs.push((name.clone(), ok, clone));
                if !ok {
                    return (jobs, log);
                }
            }
        }
        (jobs, log)
    }
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
