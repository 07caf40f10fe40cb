//! A file folio writes for the user at a path the user names (the purge list): written as
//! the user meant it. `-` is standard output. A FIFO, a character device (`/dev/stdout`,
//! a terminal, `/dev/null`) or a symlink to one is written through, as `cat > PATH` would;
//! a regular file (or a symlink to one: the file it names) is replaced atomically (a
//! temporary file beside it, renamed over it), so a reader sees the old list or the new
//! one, never half; an absent path is created the same way. Anything else (a folder, a
//! block device, a socket) is refused, and nothing that is not a regular file is ever
//! replaced.
//!
//! [`UserFile::open`] checks the path before the command does its work (an unwritable
//! path is refused first); [`UserFile::write`] writes it once the work is done.

use std::fs::OpenOptions;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Where the bytes go.
#[derive(Debug)]
enum Sink {
    Stdout,
    /// A FIFO or a character device, opened for writing when the bytes are ready (a FIFO
    /// waits there for its reader).
    Through(PathBuf),
    /// A regular file or an absent path: a temporary file beside it, renamed over it.
    Replace {
        path: PathBuf,
        tmp: tempfile::NamedTempFile,
    },
}

#[derive(Debug)]
pub struct UserFile {
    shown: String,
    sink: Option<Sink>,
}

impl UserFile {
    /// Checks `path` and prepares to write it; `Err` says why it cannot be written.
    pub fn open(path: &Path) -> Result<UserFile, String> {
        let shown = path.display().to_string();
        if path.as_os_str() == "-" {
            return Ok(UserFile { shown: "standard output".into(), sink: Some(Sink::Stdout) });
        }
        // A symlink is followed: the user named what it leads to (`/dev/stdout` is one).
        let target = match std::fs::symlink_metadata(path) {
            Ok(meta) if meta.file_type().is_symlink() => {
                std::fs::canonicalize(path).map_err(|e| format!("it leads nowhere ({e})"))?
            }
            _ => path.to_path_buf(),
        };
        let sink = match std::fs::metadata(&target) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => replace(&target)?,
            Err(e) => return Err(e.to_string()),
            Ok(meta) if meta.is_file() => replace(&target)?,
            Ok(meta) if meta.is_dir() => return Err("it is a folder".into()),
            Ok(meta) if is_fifo_or_char_device(&meta) => {
                if !writable(&target) {
                    return Err("it cannot be opened for writing".into());
                }
                Sink::Through(target)
            }
            Ok(_) => {
                return Err("it is neither a file, a FIFO nor a character device".into());
            }
        };
        Ok(UserFile { shown, sink: Some(sink) })
    }

    /// Does it go to this process's standard output (`-`, `/dev/stdout`, or the file or
    /// pipe stdout is)? Then nothing else should be printed there.
    pub fn is_stdout(&self) -> bool {
        match &self.sink {
            Some(Sink::Stdout) => true,
            Some(Sink::Through(path)) => same_as_stdout(path),
            Some(Sink::Replace { path, .. }) => same_as_stdout(path),
            None => false,
        }
    }

    /// The path as messages name it.
    pub fn shown(&self) -> &str {
        &self.shown
    }

    /// Writes `bytes`, once.
    pub fn write(&mut self, bytes: &[u8]) -> std::io::Result<()> {
        match self.sink.take().expect("a user file is written once") {
            Sink::Stdout => {
                let mut out = std::io::stdout().lock();
                out.write_all(bytes)?;
                out.flush()
            }
            Sink::Through(path) => {
                // No O_CREAT, no O_TRUNC: written through as it is.
                let mut file = OpenOptions::new().write(true).open(&path)?;
                file.write_all(bytes)?;
                file.flush()
            }
            Sink::Replace { path, mut tmp } => {
                tmp.write_all(bytes)?;
                tmp.as_file().sync_all()?;
                tmp.persist(&path).map_err(|e| e.error)?;
                Ok(())
            }
        }
    }
}

/// A temporary file beside `path`, to be renamed over it; made now, so that a folder that
/// cannot be written is found out first.
fn replace(path: &Path) -> Result<Sink, String> {
    let dir = path.parent().filter(|d| !d.as_os_str().is_empty()).unwrap_or(Path::new("."));
    let mut builder = tempfile::Builder::new();
    builder.prefix(".folio-tmp-");
    #[cfg(unix)]
    {
        // Read by other steps and users: not the temporary file's 0600.
        use std::os::unix::fs::PermissionsExt;
        builder.permissions(std::fs::Permissions::from_mode(0o644));
    }
    let tmp = builder.tempfile_in(dir).map_err(|e| e.to_string())?;
    Ok(Sink::Replace { path: path.to_path_buf(), tmp })
}

#[cfg(unix)]
fn is_fifo_or_char_device(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    meta.file_type().is_fifo() || meta.file_type().is_char_device()
}

#[cfg(not(unix))]
fn is_fifo_or_char_device(_: &std::fs::Metadata) -> bool {
    false
}

#[cfg(unix)]
fn writable(path: &Path) -> bool {
    rustix::fs::access(path, rustix::fs::Access::WRITE_OK).is_ok()
}

#[cfg(not(unix))]
fn writable(_: &Path) -> bool {
    true
}

/// Is `path` the file, pipe or terminal this process's stdout is?
#[cfg(unix)]
fn same_as_stdout(path: &Path) -> bool {
    use std::os::unix::fs::MetadataExt;
    let Ok(out) = rustix::fs::fstat(std::io::stdout()) else { return false };
    #[allow(clippy::unnecessary_cast)] // their types differ between targets
    std::fs::metadata(path)
        .is_ok_and(|m| m.dev() == out.st_dev as u64 && m.ino() == out.st_ino as u64)
}

#[cfg(not(unix))]
fn same_as_stdout(_: &Path) -> bool {
    false
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_replaced_and_an_absent_one_created() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("purge.json");
        std::fs::write(&path, "old").unwrap();
        let mut file = UserFile::open(&path).unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "old", "nothing written yet");
        file.write(b"new").unwrap();
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "new");
        let absent = dir.path().join("absent.json");
        UserFile::open(&absent).unwrap().write(b"made").unwrap();
        assert_eq!(std::fs::read_to_string(&absent).unwrap(), "made");
        let leftovers = std::fs::read_dir(dir.path()).unwrap().count();
        assert_eq!(leftovers, 2, "no temporary file left");
    }

    #[test]
    fn a_symlink_to_a_file_stays_a_symlink_and_its_file_gets_the_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let real = dir.path().join("real.json");
        std::fs::write(&real, "old").unwrap();
        let link = dir.path().join("link.json");
        std::os::unix::fs::symlink(&real, &link).unwrap();
        UserFile::open(&link).unwrap().write(b"new").unwrap();
        assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
        assert_eq!(std::fs::read_to_string(&real).unwrap(), "new");
    }

    #[test]
    fn a_fifo_is_written_through_never_replaced() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("purge.fifo");
        rustix::fs::mknodat(
            rustix::fs::CWD,
            &fifo,
            rustix::fs::FileType::Fifo,
            rustix::fs::Mode::from_raw_mode(0o600),
            0,
        )
        .unwrap();
        let reader = {
            let fifo = fifo.clone();
            std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
        };
        let mut file = UserFile::open(&fifo).unwrap();
        file.write(b"through the pipe").unwrap();
        assert_eq!(reader.join().unwrap(), "through the pipe");
        use std::os::unix::fs::FileTypeExt;
        assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo(), "still a FIFO");
    }

    #[test]
    fn a_device_is_written_through_and_its_failure_is_an_error() {
        UserFile::open(Path::new("/dev/null")).unwrap().write(b"gone").unwrap();
        let full = Path::new("/dev/full");
        if full.exists() {
            let err = UserFile::open(full).unwrap().write(b"no room").unwrap_err();
            assert_eq!(err.raw_os_error(), Some(28), "ENOSPC: {err}");
            use std::os::unix::fs::FileTypeExt;
            assert!(std::fs::metadata(full).unwrap().file_type().is_char_device());
        }
    }

    #[test]
    fn a_folder_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        assert_eq!(UserFile::open(dir.path()).unwrap_err(), "it is a folder");
        assert!(UserFile::open(&dir.path().join("no/such/folder/x")).is_err());
    }
}
