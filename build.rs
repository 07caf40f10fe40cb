//! Sets, for the binary's `--version` and `--help`:
//! - `FOLIO_VERSION`: the crate's version, and the commit it was built from when the source
//!   is a git checkout (`0.1.0 (3f2a9c1d0)`); without git, or outside a checkout (a crate
//!   tarball), the version alone.
//! - `FOLIO_DOCS_REV`: the revision whose docs/ `--help` links to: the commit built from (a
//!   checkout's HEAD, or the one `cargo package` recorded in `.cargo_vcs_info.json`), else
//!   `main`. A version's tag is not used: a commit between releases has none, and its docs
//!   are the commit's.
//!
//! Uncommitted changes are not tracked: watching the index would rebuild the crate on
//! every `git add`.

use std::path::Path;
use std::process::Command;

fn git(dir: &str, args: &[&str]) -> Option<String> {
    let out = Command::new("git").arg("-C").arg(dir).args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

/// The commit `cargo package` recorded in the package it made (`"sha1": "…"`).
fn packaged_commit(dir: &Path) -> Option<String> {
    let info = std::fs::read_to_string(dir.join(".cargo_vcs_info.json")).ok()?;
    let rest = &info[info.find("\"sha1\"")? + "\"sha1\"".len()..];
    let start = rest.find('"')? + 1;
    let sha = &rest[start..start + rest[start..].find('"')?];
    (sha.len() == 40 && sha.bytes().all(|b| b.is_ascii_hexdigit())).then(|| sha.to_string())
}

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let dir = Path::new(&manifest);
    // `.git` is a folder in a clone, a file in a worktree.
    let checkout = dir.join(".git").exists();
    let commit = checkout.then(|| git(&manifest, &["rev-parse", "HEAD"])).flatten();
    let full = match &commit {
        Some(commit) => format!("{version} ({})", &commit[..9.min(commit.len())]),
        None => version.to_string(),
    };
    println!("cargo:rustc-env=FOLIO_VERSION={full}");
    let docs = commit.or_else(|| packaged_commit(dir)).unwrap_or_else(|| "main".to_string());
    println!("cargo:rustc-env=FOLIO_DOCS_REV={docs}");
    if checkout {
        // A new commit or a checkout of another branch moves HEAD (in the worktree's own
        // git folder) or the ref it names (in the common one: a loose ref file, or
        // packed-refs). Only files that exist: cargo reruns a script on every build for a
        // missing one.
        let path = |args: &[&str]| git(&manifest, args).map(std::path::PathBuf::from);
        let own = path(&["rev-parse", "--path-format=absolute", "--git-dir"]);
        let common = path(&["rev-parse", "--path-format=absolute", "--git-common-dir"]);
        let reference = git(&manifest, &["symbolic-ref", "-q", "HEAD"]);
        let mut watched = Vec::new();
        if let Some(own) = &own {
            watched.push(own.join("HEAD"));
        }
        if let Some(common) = &common {
            watched.push(common.join("packed-refs"));
            if let Some(reference) = &reference {
                watched.push(common.join(reference));
            }
        }
        for file in watched.iter().filter(|f| f.exists()) {
            println!("cargo:rerun-if-changed={}", file.display());
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
