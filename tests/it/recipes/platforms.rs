//! The platforms, as far as docs/ci.md's pipelines use them: GitHub Actions and GitLab CI
//! running a workflow's shell steps with what they give a step, and the programs that stand
//! in for the network.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::Value;

use crate::harness::{BIN, Project, copy_dir, tool};
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
pub(super) struct Shims {
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
    pub(super) fn calls(&self) -> Vec<String> {
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
pub(super) struct Event<'a> {
    pub(super) name: &'a str,
    pub(super) git_ref: &'a str,
    pub(super) vars: &'a [(&'a str, &'a str)],
    pub(super) secrets: &'a [(&'a str, &'a str)],
    /// The runner's own environment (a test's server addresses).
    pub(super) runner: &'a [(&'a str, String)],
}

/// GitHub Actions, as far as docs/ci.md's workflow uses it: one job's steps in order,
/// `actions/checkout` (the project is the checkout) and `actions/cache` (kept across runs),
/// `if:`, `env:` at the workflow and the step, `$GITHUB_PATH`, and `run:` with bash.
pub(super) struct GitHub {
    pub(super) workflow: Value,
    pub(super) shims: Shims,
    pub(super) home: tempfile::TempDir,
    pub(super) caches: tempfile::TempDir,
}

impl GitHub {
    pub(super) fn new() -> GitHub {
        let workflow = yaml(&recipe_file(".github/workflows/"));
        let (shims, home, caches) =
            (Shims::new(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        GitHub { workflow, shims, home, caches }
    }

    /// Runs the job in `checkout`: whether it succeeded, the steps that ran (by name), and
    /// the log.
    pub(super) fn run(&self, checkout: &Path, event: &Event) -> (bool, Vec<String>, String) {
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

/// GitLab CI, as far as docs/ci.md's pipeline uses it: its stages in order, each job in a
/// fresh clone with the cache restored (the job's own `cache:` in place of the pipeline's)
/// and the `artifacts: paths` of the jobs of earlier stages, its `before_script` (else
/// `default: before_script`) then `script` in one shell, `variables:`, `rules: - if:`; a
/// failed job stops the stages after it.
pub(super) struct GitLab {
    pub(super) pipeline: Value,
    pub(super) shims: Shims,
    pub(super) home: tempfile::TempDir,
    pub(super) caches: tempfile::TempDir,
}

impl GitLab {
    pub(super) fn new() -> GitLab {
        let pipeline = yaml(&recipe_file(".gitlab-ci.yml"));
        let (shims, home, caches) =
            (Shims::new(), tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
        GitLab { pipeline, shims, home, caches }
    }

    /// Runs the pipeline for `project` on `branch`: each job that ran, whether it
    /// succeeded, and its clone (for its artifacts); the log.
    pub(super) fn run(
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
        let strings = |v: &Value| -> Vec<String> {
            v.as_array().unwrap().iter().map(|v| v.as_str().unwrap().to_string()).collect()
        };
        // What earlier stages left for the next ones, and what this stage leaves.
        let (given, made) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
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
                let cached = match job.get("cache") {
                    Some(own) if own.as_array().is_some_and(Vec::is_empty) => Vec::new(),
                    Some(own) => strings(&own["paths"]),
                    None => strings(&p["cache"]["paths"]),
                };
                assert!(
                    job.get("cache").is_none_or(|c| c.get("key").is_none()),
                    "a job's own cache key is this runner's to learn"
                );
                let before =
                    strings(job.get("before_script").unwrap_or(&p["default"]["before_script"]));
                let clone = tempfile::tempdir().unwrap();
                copy_dir(project.dir.path(), clone.path());
                copy_dir(given.path(), clone.path());
                for path in &cached {
                    let saved = self.caches.path().join(&key).join(path);
                    if saved.is_dir() {
                        copy_dir(&saved, &clone.path().join(path));
                    }
                }
                let all = [before, strings(&job["script"])].concat().join("\n");
                let (ok, said) = shell(&all, clone.path(), &env, &self.shims.path(&[]));
                log.push_str(&format!("--- {name}\n{said}"));
                // The cache is saved when the job succeeds (GitLab's `when: on_success`), and
                // so are its artifacts' paths (files or folders).
                for path in cached.iter().filter(|_| ok) {
                    let here = clone.path().join(path);
                    if here.is_dir() {
                        copy_dir(&here, &self.caches.path().join(&key).join(path));
                    }
                }
                let artifacts = job["artifacts"].get("paths").map(strings).unwrap_or_default();
                for path in artifacts.iter().filter(|_| ok) {
                    let (here, kept) = (clone.path().join(path), made.path().join(path));
                    if here.is_dir() {
                        copy_dir(&here, &kept);
                    } else {
                        std::fs::create_dir_all(kept.parent().unwrap()).unwrap();
                        std::fs::copy(&here, &kept)
                            .unwrap_or_else(|e| panic!("{name}: {path}: {e}"));
                    }
                }
                jobs.push((name.clone(), ok, clone));
                if !ok {
                    return (jobs, log);
                }
            }
            copy_dir(made.path(), given.path());
        }
        (jobs, log)
    }
}
