//! One writer at a time on a folder folio owns: `{output}/.folio-lock`, an advisory lock
//! (`flock` on Unix, through std's `File::lock`). A build holds it exclusively from before
//! it reads the manifest until its switch is done; `folio deploy` holds it shared while it
//! reads the build and uploads it, so a build waits for a deploy and a deploy for a build,
//! while two deploys may read at once. The lock is the kernel's: a killed command holds
//! nothing, and a stale file is no stale lock.
//!
//! The file itself stays (as Cargo's `.cargo-lock` does); it is empty, hidden (never
//! published), and opened without following a symlink. A build that fails removes it
//! again when it made it, so a failed build leaves the folder as it found it. A command
//! that waited checks that the file it locked is still the one at the path (the one who
//! held it may have removed it) and otherwise locks again.
//!
//! A deploy of a read-only `output/` (a CI artifact mounted read-only, a container
//! volume) cannot make or open the file for writing: it takes the shared lock through a
//! read-only descriptor when the file is there (`flock` needs no write access), and goes
//! without a lock when it is not. Overlap stays safe there: no build can write a folder
//! it cannot write to, and the deploy checks every file it sends against the bytes it
//! hashed (`deploy/remote/`), so a change made meanwhile by anything stops it.

use std::fs::{self, File, OpenOptions};
use std::io;
use std::path::{Path, PathBuf};

use crate::error::{Refusal, WayOut};

pub const LOCK: &str = ".folio-lock";

/// How a command takes the lock.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Access {
    /// A build: nobody else reads or writes meanwhile.
    Exclusive,
    /// A deploy: reads only; builds wait until it is done.
    Shared,
}

/// What to do when another folio command holds the folder.
#[derive(Clone, Copy)]
pub enum Busy<'a> {
    /// Wait for it, after telling `note` once what is being waited for.
    Wait(&'a dyn Fn(&str)),
    /// Refuse at once (`--no-wait`).
    Refuse,
}

/// Why the lock was not taken.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    /// Another folio command holds it (the binary says how to wait for it).
    #[error("{who} is using `{root}`")]
    Busy { who: &'static str, root: String },
    #[error("`{0}` is not the lock file folio makes (a symlink or a folder at its name)")]
    NotAFile(String),
    #[error(
        "`{0}` is not a folder (a file, a FIFO, a device, or a symlink to nothing): folio writes into a folder of its own; name another"
    )]
    NotAFolder(String),
    #[error("locking `{path}`: {source}")]
    Io { path: String, source: io::Error },
}

impl From<LockError> for crate::error::Failure {
    /// Busy or a stranger at the lock's name: refused (1); an I/O error: 2.
    fn from(e: LockError) -> crate::error::Failure {
        use crate::error::{Failure, Refusal, WayOut};
        match e {
            LockError::Busy { .. } => Failure::Refused(Refusal::new(e.to_string(), WayOut::Wait)),
            LockError::NotAFile(_) => {
                Failure::Refused(Refusal::new(e.to_string(), WayOut::RemoveThenRun))
            }
            LockError::NotAFolder(_) => Failure::Refused(e.to_string().into()),
            LockError::Io { .. } => Failure::Other(e.into()),
        }
    }
}

/// A held lock; released when dropped.
pub struct Lock {
    /// `None`: a read-only folder without a lock file, where no lock can be held.
    file: Option<File>,
    path: PathBuf,
    /// This command made the file (and, with it, perhaps the folder).
    made_file: bool,
    made_dir: Option<PathBuf>,
}

fn shown(path: &Path) -> String {
    crate::diag::display_path(path).display().to_string()
}

impl Lock {
    /// Takes the lock of the output folder `root`, making the folder and the lock file
    /// when they are missing.
    pub fn take(root: &Path, access: Access, busy: Busy) -> Result<Lock, LockError> {
        Lock::take_named(root, LOCK, "another folio command (a build or a deploy)", access, busy)
    }

    /// Takes the lock `name` in `root`; `who` says in messages what may hold it.
    pub fn take_named(
        root: &Path,
        name: &str,
        who: &'static str,
        access: Access,
        busy: Busy,
    ) -> Result<Lock, LockError> {
        let path = root.join(name);
        let io = |source| LockError::Io { path: shown(&path), source };
        let mut made_dir = None;
        let mut told = false;
        loop {
            // Made here, or made again: the one waited for may have removed it.
            match fs::symlink_metadata(root) {
                // A symlink to a folder is that folder; anything else is no place to write.
                Ok(_) if fs::metadata(root).is_ok_and(|m| m.is_dir()) => {}
                Ok(_) => return Err(LockError::NotAFolder(shown(root))),
                Err(e) if e.kind() == io::ErrorKind::NotFound => {
                    fs::create_dir_all(root).map_err(io)?;
                    made_dir = Some(root.to_path_buf());
                }
                Err(e) => return Err(io(e)),
            }
            let (file, made_file) = match open(&path) {
                Ok(opened) => opened,
                Err(LockError::Io { source, .. })
                    if access == Access::Shared && read_only(&source) =>
                {
                    match open_read_only(&path).map_err(io)? {
                        Some(file) => (file, false),
                        None => return Ok(Lock { file: None, path, made_file: false, made_dir }),
                    }
                }
                Err(e) => return Err(e),
            };
            let got = match access {
                Access::Exclusive => file.try_lock(),
                Access::Shared => file.try_lock_shared(),
            };
            match got {
                Ok(()) => {}
                Err(fs::TryLockError::WouldBlock) => match busy {
                    Busy::Refuse => return Err(LockError::Busy { who, root: shown(root) }),
                    Busy::Wait(note) => {
                        if !told {
                            note(&format!("waiting for {who} to finish with `{}`", shown(root)));
                            told = true;
                        }
                        match access {
                            Access::Exclusive => file.lock(),
                            Access::Shared => file.lock_shared(),
                        }
                        .map_err(io)?;
                    }
                },
                Err(fs::TryLockError::Error(e)) => return Err(io(e)),
            }
            // The holder may have removed the file it made before letting go: then the
            // lock is on a file nobody else will open, and must be taken again.
            if same_file(&file, &path) {
                return Ok(Lock { file: Some(file), path, made_file, made_dir });
            }
        }
    }

    /// Is the lock file at its path still the one this command locked? Not when it was
    /// replaced or removed meanwhile (by hand, by a cleanup step): then another command
    /// may have locked a file of its own, and this one must not go on writing.
    pub fn still_held(&self) -> Result<(), Refusal> {
        let Some(file) = &self.file else { return Ok(()) };
        if same_file(file, &self.path) {
            return Ok(());
        }
        Err(Refusal::new(
            format!(
                "the lock file `{}` was replaced or removed while this command held it, so another folio command may be writing the folder; nothing was switched",
                shown(&self.path)
            ),
            WayOut::BuildAgain,
        ))
    }

    /// Lets go, removing the lock file (and the folder) when this command made them: what
    /// a failed build does, so that it leaves the folder as it found it.
    pub fn discard(self) {
        // Never a lock file another command put there since (this one's was replaced).
        let ours = self.file.as_ref().is_some_and(|file| same_file(file, &self.path));
        if self.made_file && ours {
            let _ = fs::remove_file(&self.path);
        }
        if let Some(dir) = &self.made_dir {
            let _ = fs::remove_dir(dir);
        }
        if let Some(file) = &self.file {
            let _ = file.unlock();
        }
    }
}

/// Does this error say the folder cannot be written (a read-only filesystem or folder)?
fn read_only(e: &io::Error) -> bool {
    matches!(e.kind(), io::ErrorKind::ReadOnlyFilesystem | io::ErrorKind::PermissionDenied)
}

/// The lock file opened for reading only, never through a symlink; `None` when there is
/// none.
fn open_read_only(path: &Path) -> io::Result<Option<File>> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    match options.open(path) {
        Ok(file) if file.metadata().is_ok_and(|m| m.is_file()) => Ok(Some(file)),
        Ok(_) => Err(io::Error::other("the lock file is not a file")),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e),
    }
}

/// Opens the lock file, creating it when missing, never through a symlink.
fn open(path: &Path) -> Result<(File, bool), LockError> {
    let mut options = OpenOptions::new();
    options.read(true).write(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32);
    }
    let refused = || LockError::NotAFile(shown(path));
    let io = |source| LockError::Io { path: shown(path), source };
    loop {
        match options.clone().create_new(true).open(path) {
            Ok(file) => return Ok((file, true)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(io(e)),
        }
        match options.open(path) {
            Ok(file) if file.metadata().is_ok_and(|m| m.is_file()) => return Ok((file, false)),
            Ok(_) => return Err(refused()),
            // Removed between the two opens: make it again.
            Err(e) if e.kind() == io::ErrorKind::NotFound => continue,
            // O_NOFOLLOW on a symlink (ELOOP), or a folder.
            Err(e) if fs::symlink_metadata(path).is_ok_and(|m| !m.is_file()) => {
                let _ = e;
                return Err(refused());
            }
            Err(e) => return Err(io(e)),
        }
    }
}

#[cfg(unix)]
fn same_file(file: &File, path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    match (file.metadata(), fs::symlink_metadata(path)) {
        (Ok(a), Ok(b)) => a.dev() == b.dev() && a.ino() == b.ino(),
        _ => false,
    }
}

#[cfg(not(unix))]
fn same_file(_: &File, path: &Path) -> bool {
    path.is_file()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::mpsc;
    use std::time::Duration;

    #[test]
    fn a_second_exclusive_lock_waits_or_refuses() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("out");
        let first = Lock::take(&root, Access::Exclusive, Busy::Refuse).unwrap();
        assert!(root.join(LOCK).is_file());
        let refused = Lock::take(&root, Access::Shared, Busy::Refuse).map(drop).unwrap_err();
        assert!(matches!(refused, LockError::Busy { .. }), "{refused}");
        let (tx, rx) = mpsc::channel();
        let waiter = std::thread::spawn({
            let root = root.clone();
            move || {
                let note = |m: &str| tx.send(m.to_string()).unwrap();
                Lock::take(&root, Access::Exclusive, Busy::Wait(&note)).map(drop)
            }
        });
        let said = rx.recv_timeout(Duration::from_secs(10)).unwrap();
        assert!(said.starts_with("waiting for another folio command"), "{said}");
        std::thread::sleep(Duration::from_millis(50));
        assert!(!waiter.is_finished(), "it waits while the first holds the lock");
        // The first lets go and removes the file it made: the waiter locks anew.
        first.discard();
        waiter.join().unwrap().unwrap();
    }

    #[test]
    fn readers_share_and_a_discarded_lock_leaves_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("out");
        let a = Lock::take(&root, Access::Shared, Busy::Refuse).unwrap();
        let b = Lock::take(&root, Access::Shared, Busy::Refuse).unwrap();
        assert!(Lock::take(&root, Access::Exclusive, Busy::Refuse).is_err());
        drop((a, b));
        Lock::take(&root, Access::Exclusive, Busy::Refuse).unwrap().discard();
        assert!(root.join(LOCK).exists(), "made by the first, kept by the last");
        let fresh = dir.path().join("fresh");
        Lock::take(&fresh, Access::Exclusive, Busy::Refuse).unwrap().discard();
        assert!(!fresh.exists(), "the folder it made is gone again");
    }

    /// Makes `dir` read-only for this process: its mode bits, or, for root (whom mode
    /// bits do not stop), the immutable attribute.
    fn read_only_dir(dir: &Path, on: bool) {
        use std::os::unix::fs::PermissionsExt;
        if rustix::process::geteuid().is_root() {
            let flag = if on { "+i" } else { "-i" };
            let done = std::process::Command::new("chattr").arg(flag).arg(dir).status();
            assert!(done.is_ok_and(|s| s.success()), "chattr {flag} {}", dir.display());
        } else {
            let mode = if on { 0o555 } else { 0o755 };
            fs::set_permissions(dir, fs::Permissions::from_mode(mode)).unwrap();
        }
    }

    #[test]
    fn a_read_only_folder_is_read_under_a_shared_lock_or_none() {
        let dir = tempfile::tempdir().unwrap();
        let (with, without) = (dir.path().join("with"), dir.path().join("without"));
        Lock::take(&with, Access::Exclusive, Busy::Refuse).unwrap();
        fs::create_dir(&without).unwrap();
        read_only_dir(&with, true);
        read_only_dir(&without, true);
        let a = Lock::take(&with, Access::Shared, Busy::Refuse).map(|l| l.file.is_some());
        let b = Lock::take(&without, Access::Shared, Busy::Refuse).map(|l| l.file.is_some());
        let build = Lock::take(&without, Access::Exclusive, Busy::Refuse).map(drop);
        read_only_dir(&with, false);
        read_only_dir(&without, false);
        assert!(a.unwrap(), "the lock file there is locked, through a read-only descriptor");
        assert!(!b.unwrap(), "no lock file, and none can be made: no lock");
        assert!(build.is_err(), "a build cannot take a read-only folder");
    }

    #[test]
    fn a_symlink_at_the_lock_name_is_refused_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("out");
        fs::create_dir_all(&root).unwrap();
        std::os::unix::fs::symlink(dir.path().join("elsewhere"), root.join(LOCK)).unwrap();
        let e = Lock::take(&root, Access::Exclusive, Busy::Refuse).map(drop).unwrap_err();
        assert!(matches!(e, LockError::NotAFile(_)), "{e}");
        assert!(!dir.path().join("elsewhere").exists(), "nothing made through the link");
    }
}
