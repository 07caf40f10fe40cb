//! The one integration-test harness: a temporary project, the real `folio` binary run in
//! it, and assertions that dump the command, both streams and the tree when they fail.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::SystemTime;

pub const BIN: &str = env!("CARGO_BIN_EXE_folio");

/// The repository root, where the sample `folio.toml` and `data/` live.
pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub struct Project {
    pub dir: tempfile::TempDir,
}

impl Project {
    /// An empty project with a `folio.toml` holding `config`.
    pub fn new(config: &str) -> Project {
        let p = Project { dir: tempfile::tempdir().expect("a temp dir") };
        p.write("folio.toml", config);
        fs::create_dir_all(p.path("data")).unwrap();
        p
    }

    /// A copy of the repository's sample project (config and data).
    pub fn sample() -> Project {
        let p = Project::new(&fs::read_to_string(repo().join("folio.toml")).unwrap());
        copy_dir(&repo().join("data"), &p.path("data"));
        p
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }

    pub fn write(&self, rel: &str, contents: impl AsRef<[u8]>) -> &Self {
        let path = self.path(rel);
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        fs::write(path, contents).unwrap();
        self
    }

    pub fn read(&self, rel: &str) -> String {
        fs::read_to_string(self.path(rel))
            .unwrap_or_else(|e| panic!("reading {rel}: {e}\n{}", self.listing("output")))
    }

    pub fn json(&self, rel: &str) -> serde_json::Value {
        serde_json::from_str(&self.read(rel)).unwrap_or_else(|e| panic!("{rel} is not JSON: {e}"))
    }

    /// Runs `folio ARGS` in the project folder.
    pub fn folio(&self, args: &[&str]) -> Run {
        self.folio_env(args, &[])
    }

    pub fn folio_env(&self, args: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = Command::new(BIN);
        cmd.args(args).current_dir(self.dir.path()).env_remove("FOLIO_FAULT");
        for (k, v) in env {
            cmd.env(k, v);
        }
        let output = cmd.output().expect("running folio");
        Run { cmd: format!("folio {}", args.join(" ")), output, tree: self.listing("output") }
    }

    /// Every file under `rel` with its content.
    pub fn tree(&self, rel: &str) -> BTreeMap<String, Vec<u8>> {
        files(&self.path(rel)).into_iter().map(|(k, p)| (k, fs::read(p).unwrap())).collect()
    }

    /// Every file under `rel` with its size, modification time and inode.
    pub fn stats(&self, rel: &str) -> BTreeMap<String, (u64, SystemTime, u64)> {
        use std::os::unix::fs::MetadataExt;
        files(&self.path(rel))
            .into_iter()
            .map(|(k, p)| {
                let m = fs::metadata(p).unwrap();
                (k, (m.len(), m.modified().unwrap(), m.ino()))
            })
            .collect()
    }

    fn listing(&self, rel: &str) -> String {
        files(&self.path(rel)).into_keys().take(40).collect::<Vec<_>>().join("\n")
    }
}

/// Files below `root` keyed by their `/`-separated relative path (none if it is missing).
pub fn files(root: &Path) -> BTreeMap<String, PathBuf> {
    let mut out = BTreeMap::new();
    if !root.exists() {
        return out;
    }
    for e in walkdir::WalkDir::new(root).sort_by_file_name() {
        let e = e.unwrap();
        if e.file_type().is_file() {
            let rel = e.path().strip_prefix(root).unwrap().to_string_lossy().replace('\\', "/");
            out.insert(rel, e.into_path());
        }
    }
    out
}

pub fn copy_dir(from: &Path, to: &Path) {
    for (rel, path) in files(from) {
        let dest = to.join(rel);
        fs::create_dir_all(dest.parent().unwrap()).unwrap();
        fs::copy(path, dest).unwrap();
    }
}

pub struct Run {
    pub cmd: String,
    pub output: Output,
    tree: String,
}

impl Run {
    /// A run of a command built elsewhere (`cmd` as the failure dump shows it).
    pub fn of(cmd: String, output: Output) -> Run {
        Run { cmd, output, tree: String::new() }
    }

    pub fn stdout(&self) -> String {
        String::from_utf8_lossy(&self.output.stdout).into_owned()
    }

    pub fn stderr(&self) -> String {
        String::from_utf8_lossy(&self.output.stderr).into_owned()
    }

    pub fn code(&self) -> Option<i32> {
        self.output.status.code()
    }

    fn dump(&self) -> String {
        format!(
            "command: {}\nexit: {:?}\n--- stdout\n{}--- stderr\n{}--- output/ (first 40)\n{}",
            self.cmd,
            self.code(),
            self.stdout(),
            self.stderr(),
            self.tree
        )
    }

    #[track_caller]
    pub fn success(self) -> Run {
        assert_eq!(self.code(), Some(0), "expected success\n{}", self.dump());
        self
    }

    #[track_caller]
    pub fn fails(self, code: i32) -> Run {
        assert_eq!(self.code(), Some(code), "expected exit {code}\n{}", self.dump());
        self
    }

    /// Parses the summary line: (written, unchanged, removed).
    #[track_caller]
    pub fn counts(&self) -> (u64, u64, u64) {
        let line = self.stdout();
        let num = |word: &str| -> u64 {
            let before = line.split(word).next().unwrap_or_else(|| panic!("no `{word}` in {line}"));
            before
                .trim_end()
                .rsplit([' ', ','])
                .next()
                .unwrap()
                .parse()
                .unwrap_or_else(|_| panic!("{}", self.dump()))
        };
        (num(" files written"), num(" unchanged"), num(" removed"))
    }
}
