//! A file folio writes for the user at a path the user names (the purge list): written as
//! the user meant it. `-` is standard output. A FIFO, a character device (`/dev/stdout`,
//! a terminal, `/dev/null`) or a symlink to one is written through, as `cat > PATH` would;
//! a FIFO is opened at once, without waiting, so that one nobody reads is refused before
//! the work starts (after [`FIFO_GRACE`] for a reader that is starting), and its bytes are
//! written within [`FIFO_PATIENCE`] or not at all: a command never hangs on it;
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
    /// A character device, opened for writing when the bytes are ready.
    Through(PathBuf),
    /// A FIFO, opened (without blocking) when it was checked: its reader is there.
    Fifo(std::fs::File),
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
        // This process's standard output however it is named (`/dev/stdout`, `/dev/fd/1`,
        // or the file or pipe it is): written there, as `cat > /dev/stdout` would, never
        // replaced (`>> file` appends to what is there).
        if same_as_stdout(path) {
            return Ok(UserFile { shown, sink: Some(Sink::Stdout) });
        }
        let linked = std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink());
        // A symlink is followed: the user named what it leads to. A pipe's or a socket's
        // (`/dev/fd/63` of `>(cat)`) leads to no path, only to the object itself.
        let followed = std::fs::metadata(path);
        if let Ok(meta) = &followed
            && linked
            && (is_fifo(meta) || is_fifo_or_char_device(meta))
        {
            let sink = if is_fifo(meta) {
                Sink::Fifo(open_fifo(path)?)
            } else {
                Sink::Through(path.to_path_buf())
            };
            return Ok(UserFile { shown, sink: Some(sink) });
        }
        let target = match linked {
            true => std::fs::canonicalize(path).map_err(|e| format!("it leads nowhere ({e})"))?,
            false => path.to_path_buf(),
        };
        let sink = match std::fs::metadata(&target) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => replace(&target)?,
            Err(e) => return Err(e.to_string()),
            Ok(meta) if meta.is_file() => replace(&target)?,
            Ok(meta) if meta.is_dir() => return Err("it is a folder".into()),
            Ok(meta) if is_fifo(&meta) => Sink::Fifo(open_fifo(&target)?),
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
            Some(Sink::Fifo(file)) => same_file_as_stdout(file),
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
            Sink::Fifo(file) => write_fifo(file, bytes),
            Sink::Replace { path, mut tmp } => {
                tmp.write_all(bytes)?;
                tmp.as_file().sync_all()?;
                tmp.persist(&path).map_err(|e| e.error)?;
                Ok(())
            }
        }
    }
}

/// How long a FIFO is given to have a reader when it is checked: one started just before
/// (`cat fifo & folio deploy --purge-list fifo`) may not have opened it yet.
pub const FIFO_GRACE: std::time::Duration = std::time::Duration::from_secs(2);

/// How long the bytes may wait for a FIFO's reader to take them.
pub const FIFO_PATIENCE: std::time::Duration = std::time::Duration::from_secs(30);

/// Opens a FIFO for writing without waiting for a reader: none within [`FIFO_GRACE`] is
/// a refusal, found before the work starts.
#[cfg(unix)]
fn open_fifo(path: &Path) -> Result<std::fs::File, String> {
    use std::os::unix::fs::OpenOptionsExt;
    let start = std::time::Instant::now();
    loop {
        let opened = OpenOptions::new()
            .write(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(path);
        match opened {
            Ok(file) => return Ok(file),
            // ENXIO: no process has it open for reading.
            Err(e) if e.raw_os_error() == Some(6) && start.elapsed() < FIFO_GRACE => {
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) if e.raw_os_error() == Some(6) => {
                return Err(format!(
                    "it is a FIFO that nothing reads (none opened it within {} s): start its reader first",
                    FIFO_GRACE.as_secs()
                ));
            }
            Err(e) => return Err(format!("it cannot be opened for writing ({e})")),
        }
    }
}

#[cfg(not(unix))]
fn open_fifo(_: &Path) -> Result<std::fs::File, String> {
    Err("it is a FIFO".into())
}

/// Writes `bytes` into a FIFO opened without blocking, waiting while its reader is slow,
/// for [`FIFO_PATIENCE`] at most.
fn write_fifo(file: std::fs::File, bytes: &[u8]) -> std::io::Result<()> {
    write_fifo_within(file, bytes, FIFO_PATIENCE)
}

fn write_fifo_within(
    mut file: std::fs::File,
    mut bytes: &[u8],
    patience: std::time::Duration,
) -> std::io::Result<()> {
    // Patience runs from the last bytes the reader took: a slow reader is waited for.
    let mut start = std::time::Instant::now();
    while !bytes.is_empty() {
        match file.write(bytes) {
            Ok(n) => {
                bytes = &bytes[n..];
                start = std::time::Instant::now();
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                if start.elapsed() >= patience {
                    let why = format!(
                        "its reader took nothing for {} s: {} bytes were not written",
                        patience.as_secs(),
                        bytes.len()
                    );
                    return Err(std::io::Error::new(std::io::ErrorKind::TimedOut, why));
                }
                std::thread::sleep(std::time::Duration::from_millis(10));
            }
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            // Not the "stdout was closed" that ends a command quietly: the list was not
            // delivered, and the deploy must say so.
            Err(e) if e.kind() == std::io::ErrorKind::BrokenPipe => {
                return Err(std::io::Error::other(format!(
                    "its reader closed it before reading all: {} bytes were not written",
                    bytes.len()
                )));
            }
            Err(e) => return Err(e),
        }
    }
    Ok(())
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
fn is_fifo(meta: &std::fs::Metadata) -> bool {
    use std::os::unix::fs::FileTypeExt;
    meta.file_type().is_fifo()
}

#[cfg(not(unix))]
fn is_fifo(_: &std::fs::Metadata) -> bool {
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

/// Is `file` the file, pipe or terminal this process's stdout is?
#[cfg(unix)]
fn same_file_as_stdout(file: &std::fs::File) -> bool {
    let (Ok(out), Ok(this)) = (rustix::fs::fstat(std::io::stdout()), rustix::fs::fstat(file))
    else {
        return false;
    };
    out.st_dev == this.st_dev && out.st_ino == this.st_ino
}

#[cfg(not(unix))]
fn same_file_as_stdout(_: &std::fs::File) -> bool {
    false
}

#[cfg(all(test, unix))]
mod tests {
    use super::*;
    use std::os::unix::fs::OpenOptionsExt;

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
        let fifo = fifo(dir.path());
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

    fn fifo(dir: &Path) -> PathBuf {
        let fifo = dir.join("purge.fifo");
        let mode = rustix::fs::Mode::from_raw_mode(0o600);
        rustix::fs::mknodat(rustix::fs::CWD, &fifo, rustix::fs::FileType::Fifo, mode, 0).unwrap();
        fifo
    }

    #[test]
    fn a_fifo_nobody_reads_is_refused_when_checked_not_hung_on() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = fifo(dir.path());
        let start = std::time::Instant::now();
        let why = UserFile::open(&fifo).unwrap_err();
        assert_eq!(
            why,
            "it is a FIFO that nothing reads (none opened it within 2 s): start its reader first"
        );
        assert!(start.elapsed() < FIFO_GRACE * 3, "{:?}", start.elapsed());
    }

    #[test]
    fn a_fifo_whose_reader_takes_nothing_fails_the_write_instead_of_hanging() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = fifo(dir.path());
        // A reader that opens it and never reads: the pipe's buffer fills.
        let reader = OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(&fifo)
            .unwrap();
        let file = UserFile::open(&fifo).unwrap();
        let Some(Sink::Fifo(file)) = file.sink else { panic!("a FIFO sink") };
        // The whole patience is not waited for here: the write's bound is checked by
        // how it ends once the buffer is full (past it, WouldBlock comes at once).
        let err =
            write_fifo_within(file, &vec![b'x'; 1 << 20], std::time::Duration::ZERO).unwrap_err();
        assert_eq!(err.kind(), std::io::ErrorKind::TimedOut, "{err}");
        drop(reader);
    }

    #[test]
    fn a_fifo_whose_reader_is_slow_but_takes_bytes_is_waited_for() {
        use std::io::Read;
        let dir = tempfile::tempdir().unwrap();
        let fifo = fifo(dir.path());
        let path = fifo.clone();
        // A reader that takes 64 KiB every 100 ms: 1 MiB takes it 1.6 s, past a patience of
        // 400 ms, but it never takes nothing for that long.
        let reader = std::thread::spawn(move || {
            let mut file = OpenOptions::new().read(true).open(&path).unwrap();
            let (mut got, mut buf) = (0, vec![0; 64 << 10]);
            loop {
                std::thread::sleep(std::time::Duration::from_millis(100));
                match file.read(&mut buf).unwrap() {
                    0 => return got,
                    n => got += n,
                }
            }
        });
        let file = UserFile::open(&fifo).unwrap();
        let Some(Sink::Fifo(file)) = file.sink else { panic!("a FIFO sink") };
        let patience = std::time::Duration::from_millis(400);
        write_fifo_within(file, &vec![b'x'; 1 << 20], patience).unwrap();
        assert_eq!(reader.join().unwrap(), 1 << 20);
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
