//! Sets `FOLIO_VERSION` for `folio --version`: the crate's version, and the commit it was
//! built from when the source is a git checkout (`0.1.0 (3f2a9c1d0)`). Without git, or
//! outside a checkout (a crate tarball), the version alone. Uncommitted changes are not
//! tracked: watching the index would rebuild the crate on every `git add`.

use std::path::Path;
use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    out.status.success().then(|| String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn main() {
    let version = env!("CARGO_PKG_VERSION");
    let manifest = std::env::var("CARGO_MANIFEST_DIR").unwrap_or_default();
    let dir = Path::new(&manifest);
    let checkout = dir.join(".git").exists();
    let commit =
        checkout.then(|| git(&["-C", &manifest, "rev-parse", "--short=9", "HEAD"])).flatten();
    let full = match commit {
        Some(commit) => format!("{version} ({commit})"),
        None => version.to_string(),
    };
    println!("cargo:rustc-env=FOLIO_VERSION={full}");
    if checkout {
        // A new commit or a checkout of another branch moves HEAD or the ref it names
        // (a loose ref file, or packed-refs).
        // Only files that exist: cargo reruns a script on every build for a missing one.
        let head = std::fs::read_to_string(dir.join(".git/HEAD")).unwrap_or_default();
        let reference = head.trim().strip_prefix("ref: ").map(|r| format!(".git/{r}"));
        let watched = [Some(".git/HEAD".to_string()), Some(".git/packed-refs".into()), reference];
        for file in watched.into_iter().flatten() {
            if dir.join(&file).exists() {
                println!("cargo:rerun-if-changed={file}");
            }
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
