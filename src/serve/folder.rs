//! Where `folio serve` builds its preview: a private folder, removed when the preview
//! stops, on a filesystem in memory when the machine has one with room.
//!
//! A preview rewrites pages on every edit and reads them on every request, so its folder
//! is put where that is cheapest: `$TMPDIR` when the user set it (their choice wins), else
//! `/dev/shm` when it is a tmpfs with room for twice what the build will write (a rebuild
//! stages its new pages beside the old ones) and [`ROOM_BASE`], else the system's
//! temporary folder. What the build writes is estimated by the caller from the listing's
//! shape (`serve::estimate`); a build that finds memory full all the same is built again
//! on disk (`serve::Preview::start`). Measured at 10,000 records (BENCHMARKS.md, "The preview"):
//! on this machine's disk the first build took up to 2 s where tmpfs took 0.3 s, whatever
//! disk the project itself is on.
//!
//! A preview killed with SIGKILL cannot remove its folder, and one in memory holds memory
//! until it is removed. Each preview holds an advisory lock on a file in its folder for as
//! long as it runs; the next preview sweeps the folders whose lock nobody holds, and only
//! folders that are folio's: named `folio-serve-*`, owned by this user, holding that file.

use std::fs::File;
use std::path::{Path, PathBuf};

/// The file a running preview keeps locked inside its folder.
pub const ALIVE: &str = ".folio-serve.lock";

/// Room the memory filesystem must keep besides twice the build.
const ROOM_BASE: u64 = 16 << 20;

const PREFIX: &str = "folio-serve-";

/// A preview's folder: removed when dropped, locked as alive until then.
pub struct Folder {
    dir: tempfile::TempDir,
    _alive: File,
}

/// Where a preview's folder was put.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Place {
    /// `$TMPDIR`: the user's choice.
    Chosen,
    /// A filesystem in memory.
    Memory,
    /// The system's temporary folder.
    Disk,
}

impl Folder {
    /// Makes the preview's folder under the place chosen for a build that writes about
    /// `build_bytes`.
    pub fn new(build_bytes: u64) -> std::io::Result<(Folder, Place)> {
        let (parent, place) = parent(build_bytes);
        Ok((Folder::under(&parent)?, place))
    }

    /// Makes the preview's folder in the system's temporary folder, on disk.
    pub fn on_disk() -> std::io::Result<Folder> {
        Folder::under(&std::env::temp_dir())
    }

    /// Makes the preview's folder under `parent`, after sweeping the folders killed
    /// previews left there.
    pub fn under(parent: &Path) -> std::io::Result<Folder> {
        sweep(parent);
        let dir = tempfile::Builder::new().prefix(PREFIX).tempdir_in(parent)?;
        let alive = File::create_new(dir.path().join(ALIVE))?;
        alive.try_lock().map_err(std::io::Error::other)?;
        Ok(Folder { dir, _alive: alive })
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }
}

/// `$TMPDIR` when set, else a roomy tmpfs at `/dev/shm`, else the system's temporary folder.
fn parent(build_bytes: u64) -> (PathBuf, Place) {
    if let Some(dir) = std::env::var_os("TMPDIR").filter(|d| !d.is_empty()) {
        return (PathBuf::from(dir), Place::Chosen);
    }
    let shm = memory();
    let need = build_bytes.saturating_mul(2).saturating_add(ROOM_BASE);
    if memory_room(&shm).is_some_and(|room| room >= need) {
        return (shm, Place::Memory);
    }
    (std::env::temp_dir(), Place::Disk)
}

/// The filesystem in memory a preview may use: `/dev/shm` (the tests' own, small one with
/// `FOLIO_FAULT_MEMORY`, in a build with fault injection).
pub fn memory() -> PathBuf {
    crate::output::fault::process().memory.clone().unwrap_or_else(|| PathBuf::from("/dev/shm"))
}

/// The bytes free at `path` when it is a tmpfs this user can write to.
#[cfg(target_os = "linux")]
fn memory_room(path: &Path) -> Option<u64> {
    const TMPFS_MAGIC: i64 = 0x0102_1994;
    let fs = rustix::fs::statfs(path).ok()?;
    #[allow(clippy::unnecessary_cast)] // its type differs between targets
    let tmpfs = fs.f_type as i64 == TMPFS_MAGIC;
    let writable = rustix::fs::access(path, rustix::fs::Access::WRITE_OK).is_ok();
    let vfs = rustix::fs::statvfs(path).ok()?;
    (tmpfs && writable).then(|| vfs.f_bavail.saturating_mul(vfs.f_frsize))
}

#[cfg(not(target_os = "linux"))]
fn memory_room(_: &Path) -> Option<u64> {
    None
}

/// Removes the folders under `parent` that killed previews of this user left: named
/// `folio-serve-*`, a plain folder owned by this user, holding [`ALIVE`] that no running
/// preview holds locked. Anything else is left alone.
pub fn sweep(parent: &Path) {
    let Ok(entries) = std::fs::read_dir(parent) else { return };
    for entry in entries.flatten() {
        if !entry.file_name().to_string_lossy().starts_with(PREFIX) {
            continue;
        }
        let dir = entry.path();
        if is_abandoned(&dir) {
            let _ = std::fs::remove_dir_all(&dir);
        }
    }
}

fn is_abandoned(dir: &Path) -> bool {
    let Ok(meta) = std::fs::symlink_metadata(dir) else { return false };
    if !meta.is_dir() || !owned_by_me(&meta) {
        return false;
    }
    let alive = dir.join(ALIVE);
    if !std::fs::symlink_metadata(&alive).is_ok_and(|m| m.is_file()) {
        return false; // not a preview's folder, or one still being made
    }
    File::open(&alive).is_ok_and(|f| f.try_lock().is_ok())
}

#[cfg(unix)]
fn owned_by_me(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::MetadataExt;
    meta.uid() == rustix::process::geteuid().as_raw()
}

#[cfg(not(unix))]
fn owned_by_me(_: &std::fs::Metadata) -> bool {
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_sweep_removes_only_the_folders_of_previews_that_are_gone() {
        let parent = tempfile::tempdir().unwrap();
        let make = |name: &str, alive: bool| {
            let dir = parent.path().join(name);
            std::fs::create_dir(&dir).unwrap();
            std::fs::write(dir.join("page.json"), "{}").unwrap();
            if alive {
                std::fs::write(dir.join(ALIVE), "").unwrap();
            }
            dir
        };
        let gone = make("folio-serve-gone", true);
        let running = make("folio-serve-running", true);
        let held = File::open(running.join(ALIVE)).unwrap();
        held.try_lock().unwrap();
        let not_a_preview = make("folio-serve-other", false);
        let someone_elses = make("other-gone", true);
        sweep(parent.path());
        assert!(!gone.exists(), "a folder whose preview is gone is removed");
        assert!(running.join("page.json").exists(), "a running preview's folder stays");
        assert!(not_a_preview.exists(), "a folder without the lock file is not folio's");
        assert!(someone_elses.exists(), "another name is not folio's");
        drop(held);
    }

    #[test]
    fn a_preview_folder_is_locked_while_it_lives_and_removed_after() {
        let parent = tempfile::tempdir().unwrap();
        let folder = Folder::under(parent.path()).unwrap();
        let path = folder.path().to_path_buf();
        sweep(parent.path());
        assert!(path.exists(), "a live preview's folder survives a sweep");
        drop(folder);
        assert!(!path.exists());
    }
}
