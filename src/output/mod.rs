//! Where a build's files land. A [`Tree`] is one folder folio owns files in (`output/`,
//! `hosting/`): new content is staged beside its target (`{root}/.folio-staging/`, same
//! filesystem), and only after every file was staged is it switched in by rename
//! (`switch.rs`), driven by a journal so that a kill during the switch is finished by the
//! next build. Unchanged files are never rewritten or re-timed; files folio wrote before
//! and no longer produces are removed; files it never wrote are never touched. Besides
//! the tree: the manifest of what a build wrote (`manifest.rs`), which paths folio may act
//! on (`paths.rs`), the lock that keeps commands on one folder apart (`lock.rs`), the
//! config's fingerprint (`fingerprint.rs`), the staging folders a writing thread holds open
//! (`folders.rs`); and a file written for the user at a path they name (`user_file.rs`: the purge list).
//! `folio init` writes its starter files and `folio deploy` a folder target through
//! their own modules, with the same O_EXCL create ([`paths::create_new`]).

pub mod fingerprint;
mod folders;
mod journal;
pub mod lock;
pub mod manifest;
pub mod paths;
mod switch;
pub mod user_file;

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::UNIX_EPOCH;

use anyhow::Context;

use crate::fault_injection::{self, Faults};
pub use folders::OpenFolders;
use journal::Journal;
pub use manifest::Stamp;
use manifest::{Entry, MANIFEST, Manifest};

use crate::error::{Refusal, WayOut};

/// Why the output folder cannot be worked in: something in a folder folio owns that folio
/// did not make as it stands (a symlink where its staging folder goes, a manifest of
/// another format) is refused (exit 1, with the reason and the way out, nothing changed);
/// the rest is an I/O failure.
#[derive(Debug, thiserror::Error)]
pub enum TreeError {
    #[error("{0}")]
    Refused(Refusal),
    #[error(transparent)]
    Io(#[from] anyhow::Error),
}

impl From<io::Error> for TreeError {
    fn from(e: io::Error) -> TreeError {
        TreeError::Io(e.into())
    }
}

impl From<TreeError> for crate::error::Failure {
    fn from(e: TreeError) -> crate::error::Failure {
        match e {
            TreeError::Refused(refusal) => crate::error::Failure::Refused(refusal),
            TreeError::Io(e) => crate::error::Failure::Other(e),
        }
    }
}

pub const STAGING: &str = ".folio-staging";
/// In the staging folder, the file its build holds an exclusive lock on while it runs: a
/// staging folder whose owner is locked belongs to a live build, and is never removed.
const OWNER: &str = "owner.lock";
/// Below the staging folder, new content mirrors its final layout.
const TREE: &str = "tree";
const JOURNAL: &str = "journal.json";
const COMMIT: &str = "commit.json";

/// A file of the new build: either already on disk as it should be, or staged.
#[derive(Debug, Clone)]
pub struct Staged {
    pub rel: String,
    pub hash: u128,
    pub size: u64,
    /// New content, waiting at the same relative path below the staging folder (else the
    /// file in place already holds it).
    pub changed: bool,
    /// The modification time of the file as it will be in place (a rename keeps it).
    pub mtime: Option<u64>,
}

/// What a commit did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Report {
    pub written: u64,
    pub unchanged: u64,
    pub removed: u64,
    pub bytes: u64,
}

pub struct Tree {
    root: PathBuf,
    staging: PathBuf,
    old: Manifest,
    /// Digest of the manifest's bytes on disk, to rewrite it only when it changes.
    old_digest: Option<u128>,
    root_existed: bool,
    bytes: AtomicU64,
    faults: &'static Faults,
    /// Entries of the manifest or journal that folio did not act on, and why.
    warnings: Vec<String>,
    /// The staging folder this build made, with its owner file locked ([`OWNER`]); set
    /// when the first file is staged.
    owner: std::sync::OnceLock<io::Result<fs::File>>,
}

/// Is a switch into `root` written down but not finished (a build killed or failed while
/// moving files in)? Then each file is old or new, and the next build finishes it first.
pub fn half_switched(root: &Path) -> bool {
    root.join(STAGING).join(COMMIT).exists()
}

/// Does a live build hold the staging folder `staging` (its owner file locked)?
fn owned_by_a_live_build(staging: &Path) -> bool {
    let mut options = fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    let Ok(file) = options.open(staging.join(OWNER)) else { return false };
    matches!(file.try_lock(), Err(fs::TryLockError::WouldBlock))
}

/// A file's modification time in nanoseconds since the Unix epoch, as the manifest
/// records it (0 when unknown).
pub fn mtime_ns(meta: &fs::Metadata) -> u64 {
    meta.modified()
        .ok()
        .and_then(|t| t.duration_since(UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos() as u64)
}

/// Hashes content the way the manifest records it.
pub fn hash(bytes: &[u8]) -> u128 {
    xxhash_rust::xxh3::xxh3_128(bytes)
}

fn ctx(what: &str, path: &Path) -> String {
    format!("{what} `{}`", path.display())
}

/// A path as messages show it (relative to the working directory when below it).
fn shown(path: &Path) -> String {
    crate::diag::display_path(path).display().to_string()
}

impl Tree {
    /// Opens `root`: finishes a switch a killed build left behind (or discards its
    /// unfinished staging), then reads the manifest. Entries that are not paths folio
    /// derives (`../x`, absolute paths, paths through a symlinked folder) are never acted
    /// on: they are dropped with a warning ([`Tree::warnings`]).
    pub fn open(root: &Path) -> Result<Tree, TreeError> {
        let staging = root.join(STAGING);
        let mut tree = Tree {
            root: root.to_path_buf(),
            staging: staging.clone(),
            old: Manifest::default(),
            old_digest: None,
            root_existed: root.exists(),
            bytes: AtomicU64::new(0),
            faults: fault_injection::process(),
            warnings: Vec::new(),
            owner: std::sync::OnceLock::new(),
        };
        tree.load_manifest()?;
        match fs::symlink_metadata(&staging) {
            Ok(m) if m.is_dir() => {}
            Ok(_) => {
                return Err(TreeError::Refused(Refusal::new(
                    format!(
                        "`{}` is not a folder folio made (a file or a symlink where folio stages its work)",
                        shown(&staging)
                    ),
                    WayOut::RemoveThenBuild(None),
                )));
            }
            Err(_) => return Ok(tree),
        }
        if owned_by_a_live_build(&staging) {
            return Err(TreeError::Refused(Refusal::new(
                format!(
                    "`{}` is being written by another build that is running now, though this one holds `{}`'s lock (the lock file was replaced or removed while that build ran); nothing was changed",
                    shown(&staging),
                    shown(root)
                ),
                WayOut::BuildAgain,
            )));
        }
        if staging.join(COMMIT).is_file() {
            let path = staging.join(COMMIT);
            let text = fs::read(&path).with_context(|| ctx("reading", &path))?;
            let journal: Journal = serde_json::from_slice(&text).map_err(|e| {
                TreeError::Refused(Refusal::new(
                    format!(
                        "`{}` is not the journal of an interrupted folio build ({e})",
                        shown(&path)
                    ),
                    WayOut::RemoveThenBuild(Some(shown(&staging))),
                ))
            })?;
            tree.apply(journal, &path).map(drop).with_context(|| {
                format!("finishing the switch a killed or failed build left in `{}`", shown(root))
            })?;
            tree.load_manifest()?;
        } else {
            fs::remove_dir_all(&staging)
                .with_context(|| ctx("removing the leftovers of an interrupted build", &staging))?;
        }
        Ok(tree)
    }

    fn load_manifest(&mut self) -> Result<(), TreeError> {
        let path = self.root.join(MANIFEST);
        match fs::read(&path) {
            Ok(bytes) => {
                let mut manifest = Manifest::from_bytes(&bytes).map_err(|e| {
                    let way_out = match e {
                        manifest::ManifestError::Version { .. } => WayOut::OtherManifestFormat,
                        manifest::ManifestError::Invalid(_) => WayOut::BrokenManifest,
                    };
                    TreeError::Refused(Refusal::new(format!("`{}`: {e}", shown(&path)), way_out))
                })?;
                manifest.files.retain(|rel, _| {
                    let clean = paths::is_clean(rel);
                    if !clean {
                        self.warnings.push(format!(
                            "{}: entry `{}` is not a path folio writes (not a clean relative path); ignored",
                            shown(&path),
                            rel.escape_debug()
                        ));
                    }
                    clean
                });
                self.old = manifest;
                self.old_digest = Some(hash(&bytes));
            }
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(anyhow::Error::from(e).context(ctx("reading", &path)).into()),
        }
        Ok(())
    }

    /// What the manifest or journal held that folio did not act on.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The fingerprint the last build recorded.
    pub fn fingerprint(&self) -> &str {
        &self.old.stamp.fingerprint
    }

    /// The record count the last build recorded.
    pub fn records(&self) -> usize {
        self.old.stamp.records
    }

    /// Is every file the manifest lists still on disk as folio left it (size and mtime)?
    /// Most of a no-op build's time goes here: on Unix each folder is opened once and its
    /// files are looked up in it, not walked to from the root one by one.
    pub fn intact(&self) -> bool {
        use rayon::prelude::*;
        #[cfg(unix)]
        {
            let mut folders: Vec<(&str, Vec<(&str, &Entry)>)> = Vec::new();
            for (rel, entry) in &self.old.files {
                let (folder, name) = rel.rsplit_once('/').unwrap_or(("", rel));
                match folders.last_mut() {
                    Some((f, files)) if *f == folder => files.push((name, entry)),
                    _ => folders.push((folder, vec![(name, entry)])),
                }
            }
            folders.par_iter().all(|(folder, files)| {
                use rustix::fs::{AtFlags, FileType, Mode, OFlags};
                let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                let Ok(dir) = rustix::fs::open(self.root.join(folder), flags, Mode::empty()) else {
                    return false;
                };
                files.par_iter().all(|(name, entry)| {
                    rustix::fs::statat(&dir, *name, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|st| {
                        // The field types of `stat` differ between targets.
                        #[allow(clippy::unnecessary_cast)]
                        let mtime = (st.st_mtime as u64)
                            .wrapping_mul(1_000_000_000)
                            .wrapping_add(st.st_mtime_nsec as u64);
                        FileType::from_raw_mode(st.st_mode) == FileType::RegularFile
                            && st.st_size as u64 == entry.size
                            && mtime == entry.mtime
                    })
                })
            })
        }
        #[cfg(not(unix))]
        self.old.files.par_iter().all(|(rel, entry)| self.as_recorded(rel, entry))
    }

    /// How many files the manifest lists.
    pub fn len(&self) -> usize {
        self.old.files.len()
    }

    pub fn is_empty(&self) -> bool {
        self.old.files.is_empty()
    }

    fn as_recorded(&self, rel: &str, entry: &Entry) -> bool {
        fs::symlink_metadata(self.root.join(rel))
            .is_ok_and(|m| m.is_file() && m.len() == entry.size && mtime_ns(&m) == entry.mtime)
    }

    /// Files the new build would overwrite although folio never wrote them: files at
    /// planned paths that the manifest does not list, and non-folders where folders go.
    /// Each planned folder is listed once (in parallel), not each planned path looked up.
    pub fn clashes<'a>(&self, planned: impl IntoIterator<Item = &'a str>) -> Vec<PathBuf> {
        use rayon::prelude::*;
        // A folder that holds nothing but folio's own lock and staging (a first build, into
        // a new folder or one emptied) has nothing a plan could clash with.
        let own = |name: &std::ffi::OsStr| name == lock::LOCK || name == STAGING;
        let nothing_else = match fs::read_dir(&self.root) {
            Ok(entries) => entries.into_iter().all(|e| e.is_ok_and(|e| own(&e.file_name()))),
            Err(e) => e.kind() == io::ErrorKind::NotFound,
        };
        if self.old.files.is_empty() && nothing_else {
            return Vec::new();
        }
        let mut folders: BTreeMap<&str, Vec<(&str, &str)>> = BTreeMap::new();
        for rel in planned {
            let (folder, name) = rel.rsplit_once('/').unwrap_or(("", rel));
            folders.entry(folder).or_default().push((name, rel));
        }
        let mut ancestors = BTreeSet::new();
        for &folder in folders.keys() {
            let mut at = folder;
            while !at.is_empty() && ancestors.insert(at) {
                at = at.rsplit_once('/').map_or("", |(parent, _)| parent);
            }
        }
        let mut clashes: Vec<PathBuf> = folders
            .par_iter()
            .flat_map_iter(|(folder, names)| {
                let dir = self.root.join(folder);
                // name -> is it a folder (the entry itself, a symlink is not followed)
                let present: std::collections::HashMap<std::ffi::OsString, bool> =
                    match fs::read_dir(&dir) {
                        Ok(entries) => entries
                            .filter_map(Result::ok)
                            .map(|e| (e.file_name(), e.file_type().is_ok_and(|t| t.is_dir())))
                            .collect(),
                        Err(_) => Default::default(),
                    };
                names
                    .iter()
                    .filter(|(name, rel)| {
                        present
                            .get(std::ffi::OsStr::new(name))
                            .is_some_and(|&is_dir| is_dir || !self.old.files.contains_key(*rel))
                    })
                    .map(|(name, _)| dir.join(name))
                    .collect::<Vec<_>>()
            })
            .collect();
        clashes.extend(
            ancestors
                .into_iter()
                .map(|folder| self.root.join(folder))
                .filter(|path| fs::symlink_metadata(path).is_ok_and(|m| !m.is_dir())),
        );
        clashes
    }

    /// Is the file at `rel` exactly what the manifest says folio wrote, with this content?
    /// Then its current mtime.
    fn unchanged(&self, rel: &str, hash: u128, bytes: &[u8]) -> Option<u64> {
        let old = self.old.files.get(rel)?;
        if old.hash != hash || old.size != bytes.len() as u64 {
            return None;
        }
        let path = self.root.join(rel);
        let meta =
            fs::symlink_metadata(&path).ok().filter(|m| m.is_file() && m.len() == old.size)?;
        let mtime = mtime_ns(&meta);
        (mtime == old.mtime || fs::read(&path).is_ok_and(|disk| disk == bytes)).then_some(mtime)
    }

    /// Stages `bytes` as the new content of `rel`, unless the file already holds it.
    /// Staged files mirror their final layout, so that the folders they land in are spread
    /// like the final tree's and a folder that is new as a whole moves in with one rename.
    pub fn stage(&self, rel: &str, bytes: &[u8]) -> Result<Staged, TreeError> {
        self.stage_with(&mut OpenFolders::default(), rel, bytes)
    }

    /// [`Tree::stage`], creating the file by name in its staging folder as `folders` (one
    /// thread's) holds it open, not walked to from the root each time.
    pub fn stage_with(
        &self,
        folders: &mut OpenFolders,
        rel: &str,
        bytes: &[u8],
    ) -> Result<Staged, TreeError> {
        let hash = hash(bytes);
        let size = bytes.len() as u64;
        if let Some(mtime) = self.unchanged(rel, hash, bytes) {
            return Ok(Staged {
                rel: rel.to_string(),
                hash,
                size,
                changed: false,
                mtime: Some(mtime),
            });
        }
        self.claim()?;
        let below = self.staging.join(TREE);
        let mut write = || -> io::Result<u64> {
            self.faults.before_write()?;
            let mut file = folders.create(&below, rel)?;
            io::Write::write_all(&mut file, bytes)?;
            Ok(mtime_ns(&file.metadata()?))
        };
        let mtime = write().with_context(|| ctx("writing", &below.join(rel)))?;
        self.bytes.fetch_add(size, Ordering::Relaxed);
        Ok(Staged { rel: rel.to_string(), hash, size, changed: true, mtime: Some(mtime) })
    }

    /// Stages a file derived from another one (a compressed sibling). When the source
    /// did not change and the file is still on disk as recorded, it is kept without
    /// computing it, which is what makes an unchanged page cost no compression.
    pub fn stage_derived(
        &self,
        folders: &mut OpenFolders,
        rel: &str,
        source_unchanged: bool,
        make: impl FnOnce() -> Vec<u8>,
    ) -> Result<Staged, TreeError> {
        if source_unchanged
            && let Some(old) = self.old.files.get(rel)
            && self.as_recorded(rel, old)
        {
            return Ok(Staged {
                rel: rel.to_string(),
                hash: old.hash,
                size: old.size,
                changed: false,
                mtime: Some(old.mtime),
            });
        }
        self.stage_with(folders, rel, &make())
    }

    /// Makes the staging folder this build's, once: made anew (one that appeared since
    /// the tree was opened is another build's) with its owner file locked.
    fn claim(&self) -> Result<(), TreeError> {
        let owner = self.owner.get_or_init(|| {
            fs::create_dir_all(&self.root)?;
            fs::create_dir(&self.staging)?;
            let file = fs::File::create_new(self.staging.join(OWNER))?;
            file.try_lock().map_err(io::Error::other)?;
            Ok(file)
        });
        match owner {
            Ok(_) => Ok(()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                Err(TreeError::Refused(Refusal::new(
                    format!(
                        "`{}` was made by another build that is running now, though this one holds `{}`'s lock (the lock file was replaced or removed while that build ran); nothing was changed",
                        shown(&self.staging),
                        shown(&self.root)
                    ),
                    WayOut::BuildAgain,
                )))
            }
            Err(e) => Err(anyhow::anyhow!("creating `{}`: {e}", shown(&self.staging)).into()),
        }
    }

    /// Drops everything this build staged; the folder is left as it was before it (a
    /// staging folder it did not make is another build's, and stays).
    pub fn abort(self) {
        if matches!(self.owner.get(), Some(Ok(_))) && self.staging.exists() {
            let _ = fs::remove_dir_all(&self.staging);
        }
        if !self.root_existed {
            let _ = fs::remove_dir(&self.root);
        }
    }
}

#[cfg(test)]
mod tests;
