//! The store of a `file://` target: a folder, confined on every operation. Each path is
//! walked from the target folder one component at a time, each opened relative to the one
//! before it with `O_NOFOLLOW` (`openat`), so no write, read, listing or delete ever goes
//! through a symlink, even one swapped in for a folder while a deploy runs: the
//! operation fails instead (`object_store`'s own folder store resolves whole paths, and so
//! follows whatever symlink stands on the way at that moment).
//!
//! An object is written to a temporary file beside it and renamed into place, so a
//! reader sees the old bytes or the new ones; folders are made as needed and removed
//! when a delete leaves them empty. Its ETag is the file's inode, modification time and
//! size. Only what `folio deploy` asks of a store is there: a plain or create-only put,
//! get and head, listings and deletes; conditional updates, multipart uploads and copies
//! are not implemented (a folder's lease is the kernel's lock, not a conditional write).

use std::fmt;
use std::io::{Read, Write};
use std::os::fd::OwnedFd;
use std::path::PathBuf;

use async_trait::async_trait;
use futures::StreamExt;
use futures::stream::BoxStream;
use object_store::path::Path as Key;
use object_store::{
    Attributes, CopyOptions, GetOptions, GetResult, GetResultPayload, ListResult, MultipartUpload,
    ObjectMeta, ObjectStore, PutMode, PutMultipartOptions, PutOptions, PutPayload, PutResult,
    Result,
};
use rustix::fs::{AtFlags, Mode, OFlags};

const STORE: &str = "folder";
/// Temporary files are hidden by this prefix from listings.
const TMP_PREFIX: &str = ".folio-tmp-";

/// A folder as a store.
#[derive(Debug, Clone)]
pub struct Folder {
    root: PathBuf,
    /// folio's temporary files the listings came across: left by a deploy that was killed
    /// or lost its lease mid-write. Removed before this deploy's first write, which comes
    /// after it took the lease (so their writer can no longer rename them into place).
    stale: std::sync::Arc<std::sync::Mutex<std::collections::BTreeSet<String>>>,
}

impl fmt::Display for Folder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Folder({})", self.root.display())
    }
}

fn io_error(key: &str, e: std::io::Error) -> object_store::Error {
    match e.kind() {
        std::io::ErrorKind::NotFound => {
            object_store::Error::NotFound { path: key.to_string(), source: Box::new(e) }
        }
        std::io::ErrorKind::AlreadyExists => {
            object_store::Error::AlreadyExists { path: key.to_string(), source: Box::new(e) }
        }
        _ => object_store::Error::Generic { store: STORE, source: format!("`{key}`: {e}").into() },
    }
}

/// What a component that is no plain folder or file (a symlink: `O_NOFOLLOW`'s ELOOP, or
/// a file where a folder should be) gives.
fn not_plain(key: &str, part: &str) -> object_store::Error {
    object_store::Error::Generic {
        store: STORE,
        source: format!(
            "`{key}`: `{part}` on its way is not a plain folder or file (a symlink?); folio never writes, reads or deletes through one"
        )
        .into(),
    }
}

fn not_implemented(operation: &str) -> object_store::Error {
    object_store::Error::NotImplemented {
        operation: operation.to_string(),
        implementer: "folio's folder store".into(),
    }
}

impl Folder {
    pub fn new(root: impl Into<PathBuf>) -> Folder {
        Folder { root: root.into(), stale: Default::default() }
    }

    fn open_root(&self) -> std::io::Result<OwnedFd> {
        // The target folder itself as the user named it; below it, nothing is followed.
        Ok(rustix::fs::open(
            &self.root,
            OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
            Mode::empty(),
        )?)
    }

    /// The folder `parts` below the root, opened component by component without following
    /// a symlink; made when `create`.
    fn dir(&self, key: &str, parts: &[&str], create: bool) -> Result<OwnedFd> {
        let mut fd = self.open_root().map_err(|e| io_error(key, e))?;
        for part in parts {
            let flags = OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::RDONLY | OFlags::CLOEXEC;
            let next = match rustix::fs::openat(&fd, *part, flags, Mode::empty()) {
                Err(rustix::io::Errno::NOENT) if create => {
                    match rustix::fs::mkdirat(&fd, *part, Mode::from_raw_mode(0o755)) {
                        Ok(()) | Err(rustix::io::Errno::EXIST) => {}
                        Err(e) => return Err(io_error(key, e.into())),
                    }
                    rustix::fs::openat(&fd, *part, flags, Mode::empty())
                }
                other => other,
            };
            fd = match next {
                Ok(next) => next,
                Err(rustix::io::Errno::LOOP | rustix::io::Errno::NOTDIR) => {
                    return Err(not_plain(key, part));
                }
                Err(e) => return Err(io_error(key, e.into())),
            };
        }
        Ok(fd)
    }

    /// The key's folder (opened) and its file name.
    fn parent<'k>(&self, key: &'k str, create: bool) -> Result<(OwnedFd, &'k str)> {
        let parts: Vec<&str> = key.split('/').collect();
        let (name, folders) = parts.split_last().expect("split gives one part at least");
        if name.is_empty() || parts.iter().any(|p| p.is_empty() || *p == "." || *p == "..") {
            return Err(object_store::Error::Generic {
                store: STORE,
                source: format!("`{key}` is not a plain path").into(),
            });
        }
        Ok((self.dir(key, folders, create)?, name))
    }

    /// The file at `key`, opened for reading without following a symlink, and its meta.
    fn open_file(&self, key: &str) -> Result<(std::fs::File, ObjectMeta)> {
        let (dir, name) = self.parent(key, false)?;
        let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let fd = match rustix::fs::openat(&dir, name, flags, Mode::empty()) {
            Ok(fd) => fd,
            Err(rustix::io::Errno::LOOP) => return Err(not_plain(key, name)),
            Err(e) => return Err(io_error(key, e.into())),
        };
        let file = std::fs::File::from(fd);
        let meta = file.metadata().map_err(|e| io_error(key, e))?;
        if !meta.is_file() {
            return Err(not_plain(key, name));
        }
        Ok((file, object_meta(key, &meta)))
    }

    /// Removes the temporary files the listings found (see `stale`): only plain files
    /// with folio's temporary prefix, never through a symlink.
    fn sweep(&self) {
        let stale = std::mem::take(&mut *self.stale.lock().unwrap_or_else(|p| p.into_inner()));
        for key in stale {
            let Ok((dir, name)) = self.parent(&key, false) else { continue };
            let plain = rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW).is_ok_and(|st| {
                rustix::fs::FileType::from_raw_mode(st.st_mode) == rustix::fs::FileType::RegularFile
            });
            if plain && name.starts_with(TMP_PREFIX) {
                let _ = rustix::fs::unlinkat(&dir, name, AtFlags::empty());
            }
        }
    }

    fn write_object(&self, key: &str, payload: &PutPayload, mode: &PutMode) -> Result<PutResult> {
        // Every write is made under the folder's lock (the kernel's, `lease.rs`): what a
        // killed write left is no other deploy's.
        self.sweep();
        let (dir, name) = self.parent(key, true)?;
        // A temporary file beside it, never through a symlink planted at its name.
        let mut tmp = None;
        for attempt in 0u32..100 {
            let tmp_name = format!("{TMP_PREFIX}{}-{attempt}-{name}", std::process::id());
            let flags =
                OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            match rustix::fs::openat(&dir, tmp_name.as_str(), flags, Mode::from_raw_mode(0o644)) {
                Ok(fd) => {
                    tmp = Some((fd, tmp_name));
                    break;
                }
                Err(rustix::io::Errno::EXIST) => continue,
                Err(e) => return Err(io_error(key, e.into())),
            }
        }
        let Some((fd, tmp_name)) = tmp else {
            return Err(io_error(key, std::io::Error::other("no temporary name is free")));
        };
        let mut file = std::fs::File::from(fd);
        let written = payload.iter().try_for_each(|chunk| file.write_all(chunk));
        let placed = written.and_then(|()| match mode {
            PutMode::Create => rustix::fs::renameat_with(
                &dir,
                tmp_name.as_str(),
                &dir,
                name,
                rustix::fs::RenameFlags::NOREPLACE,
            )
            .map_err(std::io::Error::from),
            _ => rustix::fs::renameat(&dir, tmp_name.as_str(), &dir, name)
                .map_err(std::io::Error::from),
        });
        if let Err(e) = placed {
            let _ = rustix::fs::unlinkat(&dir, tmp_name.as_str(), AtFlags::empty());
            return Err(io_error(key, e));
        }
        let meta = file.metadata().map_err(|e| io_error(key, e))?;
        let meta = object_meta(key, &meta);
        Ok(PutResult { e_tag: meta.e_tag, version: None, extensions: Default::default() })
    }

    fn remove_object(&self, key: &str) -> Result<()> {
        self.sweep();
        let parts: Vec<&str> = key.split('/').collect();
        let (dir, name) = self.parent(key, false)?;
        // Only a plain file is removed: never a symlink's target, never a folder.
        match rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat)
                if rustix::fs::FileType::from_raw_mode(stat.st_mode)
                    == rustix::fs::FileType::RegularFile => {}
            Ok(_) => return Err(not_plain(key, name)),
            Err(e) => return Err(io_error(key, e.into())),
        }
        rustix::fs::unlinkat(&dir, name, AtFlags::empty()).map_err(|e| io_error(key, e.into()))?;
        // Folders the delete left empty go too, up to the root.
        for depth in (1..parts.len()).rev() {
            let Ok(parent) = self.dir(key, &parts[..depth - 1], false) else { break };
            if rustix::fs::unlinkat(&parent, parts[depth - 1], AtFlags::REMOVEDIR).is_err() {
                break;
            }
        }
        Ok(())
    }

    /// The entries directly in the folder `prefix`: files as objects, folders as prefixes;
    /// symlinks and folio's temporary files left out.
    fn read_folder(&self, prefix: &str) -> Result<(Vec<ObjectMeta>, Vec<String>)> {
        let parts: Vec<&str> =
            if prefix.is_empty() { Vec::new() } else { prefix.split('/').collect() };
        let dir = match self.dir(prefix, &parts, false) {
            Ok(dir) => dir,
            Err(object_store::Error::NotFound { .. }) => return Ok((Vec::new(), Vec::new())),
            Err(e) => return Err(e),
        };
        let entries = rustix::fs::Dir::read_from(&dir).map_err(|e| io_error(prefix, e.into()))?;
        let (mut files, mut folders) = (Vec::new(), Vec::new());
        for entry in entries {
            let entry = entry.map_err(|e| io_error(prefix, e.into()))?;
            let Ok(name) = entry.file_name().to_str() else { continue };
            if name == "." || name == ".." {
                continue;
            }
            let key = if prefix.is_empty() { name.to_string() } else { format!("{prefix}/{name}") };
            if name.starts_with(TMP_PREFIX) {
                self.stale.lock().unwrap_or_else(|p| p.into_inner()).insert(key);
                continue;
            }
            let Ok(stat) = rustix::fs::statat(&dir, name, AtFlags::SYMLINK_NOFOLLOW) else {
                continue;
            };
            match rustix::fs::FileType::from_raw_mode(stat.st_mode) {
                rustix::fs::FileType::RegularFile => files.push(stat_meta(&key, &stat)),
                rustix::fs::FileType::Directory => folders.push(key),
                _ => {}
            }
        }
        Ok((files, folders))
    }

    fn list_all(&self, prefix: &str) -> Result<Vec<ObjectMeta>> {
        let mut out = Vec::new();
        let mut todo = vec![prefix.to_string()];
        while let Some(folder) = todo.pop() {
            let (files, folders) = self.read_folder(&folder)?;
            out.extend(files);
            todo.extend(folders);
        }
        Ok(out)
    }
}

fn object_meta(key: &str, meta: &std::fs::Metadata) -> ObjectMeta {
    use std::os::unix::fs::MetadataExt;
    let mtime_ns = meta.mtime() as i128 * 1_000_000_000 + meta.mtime_nsec() as i128;
    meta_of(key, meta.ino(), mtime_ns, meta.len())
}

#[allow(clippy::unnecessary_cast)] // the stat fields' types differ between targets
fn stat_meta(key: &str, stat: &rustix::fs::Stat) -> ObjectMeta {
    let mtime_ns = stat.st_mtime as i128 * 1_000_000_000 + stat.st_mtime_nsec as i128;
    meta_of(key, stat.st_ino as u64, mtime_ns, stat.st_size as u64)
}

fn meta_of(key: &str, ino: u64, mtime_ns: i128, size: u64) -> ObjectMeta {
    let secs = mtime_ns.div_euclid(1_000_000_000) as i64;
    let nanos = mtime_ns.rem_euclid(1_000_000_000) as u32;
    ObjectMeta {
        location: Key::parse(key).unwrap_or_else(|_| Key::from(key)),
        last_modified: chrono::DateTime::from_timestamp(secs, nanos).unwrap_or_default(),
        size,
        e_tag: Some(format!("{ino:x}-{mtime_ns:x}-{size:x}")),
        version: None,
    }
}

/// Runs blocking file work off the runtime's thread.
async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> Result<T> + Send + 'static,
) -> Result<T> {
    tokio::task::spawn_blocking(work).await?
}

#[async_trait]
impl ObjectStore for Folder {
    async fn put_opts(
        &self,
        location: &Key,
        payload: PutPayload,
        opts: PutOptions,
    ) -> Result<PutResult> {
        if matches!(opts.mode, PutMode::Update(_)) {
            return Err(not_implemented("put_opts with PutMode::Update"));
        }
        let (this, key) = (self.clone(), location.to_string());
        blocking(move || this.write_object(&key, &payload, &opts.mode)).await
    }

    async fn put_multipart_opts(
        &self,
        _: &Key,
        _: PutMultipartOptions,
    ) -> Result<Box<dyn MultipartUpload>> {
        Err(not_implemented("put_multipart_opts"))
    }

    async fn get_opts(&self, location: &Key, options: GetOptions) -> Result<GetResult> {
        let (this, key) = (self.clone(), location.to_string());
        blocking(move || {
            let (mut file, meta) = this.open_file(&key)?;
            let mut bytes = Vec::new();
            if !options.head {
                file.read_to_end(&mut bytes).map_err(|e| io_error(&key, e))?;
            }
            let range = 0..meta.size;
            let chunk = bytes::Bytes::from(bytes);
            let payload =
                GetResultPayload::Stream(futures::stream::once(async move { Ok(chunk) }).boxed());
            Ok(GetResult {
                payload,
                meta,
                range,
                attributes: Attributes::new(),
                extensions: Default::default(),
            })
        })
        .await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, Result<Key>>,
    ) -> BoxStream<'static, Result<Key>> {
        let this = self.clone();
        locations
            .then(move |location| {
                let this = this.clone();
                async move {
                    let location = location?;
                    let key = location.to_string();
                    blocking(move || this.remove_object(&key)).await?;
                    Ok(location)
                }
            })
            .boxed()
    }

    fn list(&self, prefix: Option<&Key>) -> BoxStream<'static, Result<ObjectMeta>> {
        let (this, prefix) = (self.clone(), prefix.map(|p| p.to_string()).unwrap_or_default());
        futures::stream::once(blocking(move || this.list_all(&prefix)))
            .map(|listed| match listed {
                Ok(all) => futures::stream::iter(all.into_iter().map(Ok)).boxed(),
                Err(e) => futures::stream::once(async move { Err(e) }).boxed(),
            })
            .flatten()
            .boxed()
    }

    async fn list_with_delimiter(&self, prefix: Option<&Key>) -> Result<ListResult> {
        let (this, prefix) = (self.clone(), prefix.map(|p| p.to_string()).unwrap_or_default());
        blocking(move || {
            let (objects, folders) = this.read_folder(&prefix)?;
            let common_prefixes = folders
                .iter()
                .map(|f| Key::parse(f).unwrap_or_else(|_| Key::from(f.as_str())))
                .collect();
            Ok(ListResult { common_prefixes, objects, extensions: Default::default() })
        })
        .await
    }

    async fn copy_opts(&self, _: &Key, _: &Key, _: CopyOptions) -> Result<()> {
        Err(not_implemented("copy_opts"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use object_store::ObjectStoreExt;

    fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
    }

    #[test]
    fn objects_are_written_listed_read_and_deleted_in_the_folder() {
        let dir = tempfile::tempdir().unwrap();
        let store = Folder::new(dir.path());
        runtime().block_on(async {
            let key = Key::parse("api/en/1.json").unwrap();
            store.put(&key, PutPayload::from("one")).await.unwrap();
            assert_eq!(std::fs::read_to_string(dir.path().join("api/en/1.json")).unwrap(), "one");
            let got = store.get(&key).await.unwrap().bytes().await.unwrap();
            assert_eq!(&got[..], b"one");
            let listed =
                store.list_with_delimiter(Some(&Key::parse("api").unwrap())).await.unwrap();
            assert_eq!(listed.common_prefixes, [Key::parse("api/en").unwrap()]);
            let all: Vec<_> =
                store.list(None).map(|m| m.unwrap().location.to_string()).collect().await;
            assert_eq!(all, ["api/en/1.json"]);
            let create = PutOptions { mode: PutMode::Create, ..Default::default() };
            let again = store.put_opts(&key, PutPayload::from("two"), create).await;
            assert!(matches!(again, Err(object_store::Error::AlreadyExists { .. })), "{again:?}");
            store.delete(&key).await.unwrap();
            assert!(!dir.path().join("api").exists(), "emptied folders go too");
            assert!(dir.path().exists(), "not the root");
        });
    }

    #[test]
    fn a_killed_writers_temporary_files_go_at_the_next_write_not_at_the_lease() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(dir.path().join("api/en")).unwrap();
        let left = dir.path().join("api/en/.folio-tmp-99-0-1.json");
        std::fs::write(&left, "half a pa").unwrap();
        // A symlink with the prefix is not folio's file: never removed, never followed.
        let elsewhere = tempfile::tempdir().unwrap();
        std::fs::write(elsewhere.path().join("x"), "theirs").unwrap();
        let link = dir.path().join("api/.folio-tmp-1-0-x");
        std::os::unix::fs::symlink(elsewhere.path().join("x"), &link).unwrap();
        let store = Folder::new(dir.path());
        runtime().block_on(async {
            let listed: Vec<_> =
                store.list(None).map(|m| m.unwrap().location.to_string()).collect().await;
            assert!(listed.is_empty(), "temporary files are no objects: {listed:?}");
            assert!(left.exists(), "a listing removes nothing");
            store.put(&Key::parse("api/en/2.json").unwrap(), "two".into()).await.unwrap();
        });
        assert!(!left.exists(), "the first write under the lease removes it");
        assert!(link.symlink_metadata().is_ok(), "the symlink stays");
        assert_eq!(std::fs::read_to_string(elsewhere.path().join("x")).unwrap(), "theirs");
    }

    #[test]
    fn nothing_goes_through_a_symlink_even_one_swapped_in_meanwhile() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        std::fs::write(outside.path().join("1.json"), "theirs").unwrap();
        let target = dir.path().join("site");
        std::fs::create_dir_all(target.join("api/en")).unwrap();
        let store = Folder::new(&target);
        // The folder swapped for a symlink to another place, as a race would.
        std::fs::remove_dir_all(target.join("api/en")).unwrap();
        std::os::unix::fs::symlink(outside.path(), target.join("api/en")).unwrap();
        runtime().block_on(async {
            let key = Key::parse("api/en/1.json").unwrap();
            let e = store.put(&key, PutPayload::from("mine")).await.unwrap_err().to_string();
            assert!(e.contains("not a plain folder or file"), "{e}");
            assert!(store.get(&key).await.is_err());
            let deleted: Vec<_> =
                store.delete_stream(futures::stream::iter([Ok(key)]).boxed()).collect().await;
            assert!(deleted[0].is_err());
            let listed: Vec<_> = store.list(None).collect().await;
            assert!(listed.is_empty(), "a symlink is no folder to list: {listed:?}");
        });
        assert_eq!(std::fs::read_to_string(outside.path().join("1.json")).unwrap(), "theirs");
        assert_eq!(std::fs::read_dir(outside.path()).unwrap().count(), 1, "nothing written there");
    }
}
