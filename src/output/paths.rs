//! Which paths folio may create, replace or remove below a folder it owns. Every path in
//! a manifest or a journal is untrusted input (CI caches restore `output/` from anywhere):
//! folio acts on a path only when it is one it could have derived itself — a clean
//! relative path of normal components — and when, resolved below the folder, no folder
//! on the way is a symlink (so nothing outside the folder is reached).

use std::collections::HashSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

/// True for a path folio could have produced: `/`-separated, relative, every component a
/// plain name (not empty, not `.` or `..`, no backslash, no NUL), at most 4096 bytes.
pub fn is_clean(rel: &str) -> bool {
    !rel.is_empty()
        && rel.len() <= 4096
        && rel
            .split('/')
            .all(|c| !c.is_empty() && c != "." && c != ".." && !c.contains(['\\', '\0']))
}

/// Creates the file `path` and writes it through `write`, never through anything already
/// there: it is opened with `O_EXCL`, which fails on an existing file and does not follow a
/// symlink. With `replace_leftover`, a file (or symlink) already at `path` is removed
/// first, as a killed build's leftover at folio's own temporary name is; a folder is not.
pub fn create_new(
    path: &Path,
    replace_leftover: bool,
    write: impl FnOnce(&mut dyn io::Write) -> io::Result<()>,
) -> io::Result<fs::File> {
    let open = || fs::OpenOptions::new().write(true).create_new(true).open(path);
    let file = match open() {
        Err(e) if replace_leftover && e.kind() == io::ErrorKind::AlreadyExists => {
            if fs::symlink_metadata(path)?.is_dir() {
                return Err(e);
            }
            fs::remove_file(path)?;
            open()?
        }
        other => other?,
    };
    let mut out = io::BufWriter::new(file);
    write(&mut out)?;
    out.into_inner().map_err(io::IntoInnerError::into_error)
}

/// Why a path was not acted on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// Not a clean relative path (`../x`, `/etc/passwd`, `a//b`, ...).
    NotClean,
    /// A folder on the way is a symlink or not a folder: the path would leave the root.
    ThroughLink(String),
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Refusal::NotClean => f.write_str("it is not a clean relative path"),
            Refusal::ThroughLink(dir) => write!(f, "`{dir}` on its way is not a plain folder"),
        }
    }
}

/// Resolves relative paths below one root, remembering the folders it has checked.
pub struct Confined {
    root: PathBuf,
    /// Folders below the root known to be real folders (not symlinks).
    real: HashSet<PathBuf>,
    /// The folder part of the last path found to be inside: paths come in sorted runs of
    /// one folder, and the next of the run needs no lookup.
    last: Option<String>,
}

impl Confined {
    pub fn new(root: &Path) -> Confined {
        Confined { root: root.to_path_buf(), real: HashSet::new(), last: None }
    }

    /// `root/rel`, when `rel` is clean and every folder between the root and the last
    /// component is a real folder or does not exist yet. The last component itself is not
    /// checked: a caller that removes or reads it checks its type.
    pub fn resolve(&mut self, rel: &str) -> Result<PathBuf, Refusal> {
        if !is_clean(rel) {
            return Err(Refusal::NotClean);
        }
        let path = self.root.join(rel);
        let folders = rel.rsplit_once('/').map_or("", |(d, _)| d);
        if self.last.as_deref() == Some(folders) {
            return Ok(path);
        }
        let mut dir = self.root.clone();
        for part in folders.split('/').filter(|p| !p.is_empty()) {
            dir.push(part);
            if self.real.contains(&dir) {
                continue;
            }
            match fs::symlink_metadata(&dir) {
                Ok(m) if m.is_dir() => {
                    self.real.insert(dir.clone());
                }
                // Nothing further down exists either: nothing there can lead elsewhere.
                Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(path),
                _ => return Err(Refusal::ThroughLink(display_rel(&self.root, &dir))),
            }
        }
        self.last = Some(folders.to_string());
        Ok(path)
    }
}

fn display_rel(root: &Path, path: &Path) -> String {
    path.strip_prefix(root).unwrap_or(path).to_string_lossy().into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_clean_relative_paths_are_folio_paths() {
        for ok in ["a", "api/en/attractions/10/1.json", ".nojekyll", "a/.b", "x..y/z"] {
            assert!(is_clean(ok), "{ok}");
        }
        for bad in [
            "",
            "/etc/passwd",
            "../x",
            "api/../../x",
            "a//b",
            "a/",
            "./a",
            "a/./b",
            "a\\..\\b",
            "a\0b",
        ] {
            assert!(!is_clean(bad), "{bad:?}");
        }
    }

    #[test]
    fn a_symlinked_folder_on_the_way_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("out");
        fs::create_dir_all(root.join("api/real")).unwrap();
        std::os::unix::fs::symlink(dir.path(), root.join("api/up")).unwrap();
        fs::write(root.join("api/file"), "x").unwrap();
        let mut c = Confined::new(&root);
        assert_eq!(c.resolve("api/real/a.json"), Ok(root.join("api/real/a.json")));
        assert_eq!(c.resolve("api/new/deeper/a.json"), Ok(root.join("api/new/deeper/a.json")));
        assert_eq!(
            c.resolve("api/up"),
            Ok(root.join("api/up")),
            "the last component is not checked"
        );
        assert_eq!(c.resolve("api/up/secret"), Err(Refusal::ThroughLink("api/up".into())));
        assert_eq!(c.resolve("api/file/x"), Err(Refusal::ThroughLink("api/file".into())));
        assert_eq!(c.resolve("../out/api/real/a.json"), Err(Refusal::NotClean));
        assert_eq!(c.resolve("/etc/passwd"), Err(Refusal::NotClean));
    }
}
