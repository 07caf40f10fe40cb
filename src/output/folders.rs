//! The staging folders a build's thread keeps open while it writes pages into them.

use std::fs;
use std::io;
use std::path::Path;

/// The staging folders one thread has open, by their path below the staging tree: a
/// file is created by name in its folder (`openat`), which spares walking every folder of
/// its path from the root for each file. A folder is made when a file first goes in it.
#[derive(Default)]
pub struct OpenFolders {
    #[cfg(unix)]
    open: std::collections::HashMap<String, std::os::fd::OwnedFd>,
}

impl OpenFolders {
    /// How many folders a thread holds open at most: the threads share 256 descriptors
    /// (a quarter of the usual soft limit), each between 2 and 32. A build's pages cycle
    /// through a language's variants times its page sizes (8 with two variants of four
    /// sizes); past the bound, one is closed for each opened. Should the process run out
    /// of descriptors anyway, a thread closes all of its own and tries again.
    #[cfg(unix)]
    fn most() -> usize {
        (256 / rayon::current_num_threads().max(1)).clamp(2, 32)
    }

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
            if self.open.len() >= Self::most()
                && let Some(any) = self.open.keys().next().cloned()
            {
                self.open.remove(&any);
            }
            self.open.insert(folder.to_string(), dir);
        }
        // As `File::create`, but a symlink in folio's own staging tree is refused, not followed.
        let flags =
            OFlags::WRONLY | OFlags::CREATE | OFlags::TRUNC | OFlags::CLOEXEC | OFlags::NOFOLLOW;
        let mode = Mode::RUSR | Mode::WUSR | Mode::RGRP | Mode::WGRP | Mode::ROTH | Mode::WOTH;
        let create = |dir: &std::os::fd::OwnedFd| rustix::fs::openat(dir, name, flags, mode);
        let first = create(&self.open[folder]);
        let file = match first {
            Err(rustix::io::Errno::MFILE) => {
                self.open.retain(|kept, _| kept == folder);
                create(&self.open[folder])?
            }
            other => other?,
        };
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

#[cfg(all(test, unix))]
mod tests {
    use super::*;

    #[test]
    fn files_land_in_their_folders_past_the_bound_of_open_ones() {
        let dir = tempfile::tempdir().unwrap();
        let below = dir.path().join("tree");
        let mut folders = OpenFolders::default();
        // More folders than a thread holds open, each visited twice, out of order.
        for round in 0..2 {
            for i in (0..40).rev() {
                let rel = format!("api/{}/{i}/{round}.json", i % 3);
                io::Write::write_all(&mut folders.create(&below, &rel).unwrap(), rel.as_bytes())
                    .unwrap();
            }
        }
        assert!(folders.open.len() <= OpenFolders::most());
        for round in 0..2 {
            for i in 0..40 {
                let rel = format!("api/{}/{i}/{round}.json", i % 3);
                assert_eq!(fs::read_to_string(below.join(&rel)).unwrap(), rel);
            }
        }
        // A file at the root of the tree, and one written again: truncated, not appended.
        io::Write::write_all(&mut folders.create(&below, "index.json").unwrap(), b"long body")
            .unwrap();
        io::Write::write_all(&mut folders.create(&below, "index.json").unwrap(), b"short").unwrap();
        assert_eq!(fs::read(below.join("index.json")).unwrap(), b"short");
    }

    #[test]
    fn a_symlink_in_the_staging_tree_is_refused_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let below = dir.path().join("tree");
        fs::create_dir_all(below.join("api")).unwrap();
        let elsewhere = dir.path().join("elsewhere.json");
        fs::write(&elsewhere, b"theirs").unwrap();
        std::os::unix::fs::symlink(&elsewhere, below.join("api/1.json")).unwrap();
        std::os::unix::fs::symlink(dir.path(), below.join("linked")).unwrap();
        let mut folders = OpenFolders::default();
        assert!(folders.create(&below, "api/1.json").is_err());
        assert!(folders.create(&below, "linked/2.json").is_err());
        assert_eq!(fs::read(&elsewhere).unwrap(), b"theirs");
        assert!(!dir.path().join("2.json").exists());
    }
}
