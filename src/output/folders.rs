//! The staging folders a build's thread keeps open while it writes pages into them.

use std::fs;
use std::io;
use std::path::Path;

/// The staging folders one thread has open, by their path below the staging tree: a
/// file is created by name in its folder (`openat`), which spares walking every folder of
/// its path from the root for each file. A folder is made when a file first goes in it.
#[derive(Default)]
pub struct Folders {
    #[cfg(unix)]
    open: std::collections::HashMap<String, std::os::fd::OwnedFd>,
}

impl Folders {
    /// At most this many folders are held open a thread (a build's pages cycle through
    /// fewer: a language's variants times its page sizes); past it, one is closed for each
    /// opened. Should the process run out of descriptors, all are closed and it tries again.
    #[cfg(unix)]
    const MOST: usize = 8;

    /// Creates (or truncates) `rel` below `below`, making its folder when missing.
    #[cfg(unix)]
    pub(super) fn create(&mut self, below: &Path, rel: &str) -> io::Result<fs::File> {
        use rustix::fs::{Mode, OFlags};
        let (folder, name) = rel.rsplit_once('/').unwrap_or(("", rel));
        if !self.open.contains_key(folder) {
            let path = below.join(folder);
            let open = || -> io::Result<std::os::fd::OwnedFd> {
                let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
                match rustix::fs::open(&path, flags, Mode::empty()) {
                    Err(rustix::io::Errno::NOENT) => {
                        fs::create_dir_all(&path)?;
                        Ok(rustix::fs::open(&path, flags, Mode::empty())?)
                    }
                    other => Ok(other?),
                }
            };
            let dir = match open() {
                Err(e) if e.raw_os_error() == Some(rustix::io::Errno::MFILE.raw_os_error()) => {
                    self.open.clear();
                    open()?
                }
                other => other?,
            };
            if self.open.len() >= Self::MOST
                && let Some(any) = self.open.keys().next().cloned()
            {
                self.open.remove(&any);
            }
            self.open.insert(folder.to_string(), dir);
        }
        let dir = &self.open[folder];
        // As `File::create`, but a symlink in folio's own staging tree is refused, not followed.
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        let mode = Mode::RUSR | Mode::WUSR | Mode::RGRP | Mode::WGRP | Mode::ROTH | Mode::WOTH;
        let file = rustix::fs::openat(dir, name, flags, mode)?;
        Ok(fs::File::from(file))
    }

    #[cfg(not(unix))]
    pub(super) fn create(&mut self, below: &Path, rel: &str) -> io::Result<fs::File> {
        let path = below.join(rel);
        match fs::File::create(&path) {
            Err(e) if e.kind() == io::ErrorKind::NotFound => {
                fs::create_dir_all(path.parent().expect("a staged file has a folder"))?;
                fs::File::create(&path)
            }
            other => other,
        }
    }
}
