//! What a store holds, as deploy asks it: every object (`--repair`), the objects that are
//! folio's, listings of the build's folders, and the times of objects just written.

use std::collections::{BTreeMap, BTreeSet, HashMap};

use futures::StreamExt;
use object_store::GetOptions;

use super::{Doomed, LEASE, RECORD, Remote};
use crate::deploy::outgoing::OutgoingFile;
use crate::deploy::plan::Listed;
use crate::error::Failure;

impl Remote<'_> {
    /// Every object below the prefix (folio's record and lease aside): what `--repair`
    /// surveys, one recursive listing.
    pub async fn list_all(&self) -> Result<HashMap<String, Listed>, Failure> {
        let target = &self.store.target;
        self.progress.start("list everything", 0);
        let mut listed = self.store.inner.list(target.root().as_ref());
        let mut all = HashMap::new();
        while let Some(meta) = listed.next().await {
            let meta = meta.map_err(|e| self.failed("listing", "", e))?;
            let Some(rel) = target.rel(meta.location.as_ref()) else { continue };
            if rel == RECORD || rel == LEASE {
                continue;
            }
            let etag = meta.e_tag.unwrap_or_default().trim_matches('"').to_string();
            let modified = Some(meta.last_modified.timestamp());
            all.insert(rel.to_string(), Listed { size: meta.size, etag, modified });
        }
        Ok(all)
    }

    /// Of `keys`, those whose object carries folio's mark and its MD5 metadata (with bytes
    /// that still match it, where the ETag is an MD5): folio's, for `--repair` to delete;
    /// and those with the MD5 metadata alone (another tool's, or an earlier folio's), which
    /// are left. A store that keeps no metadata (a folder) proves nothing: none.
    pub async fn folio_owned(
        &self,
        keys: Vec<String>,
    ) -> Result<(Vec<Doomed>, Vec<String>), Failure> {
        if !self.store.keeps_headers || keys.is_empty() {
            return Ok((Vec::new(), Vec::new()));
        }
        self.progress.start("confirm", keys.len() as u64);
        let found = futures::stream::iter(keys.into_iter().map(|key| async move {
            let written = self.written(&key).await;
            (key, written)
        }))
        .buffer_unordered(self.settings.concurrency);
        futures::pin_mut!(found);
        let (mut owned, mut unmarked) = (Vec::new(), Vec::new());
        while let Some((key, written)) = found.next().await {
            match written? {
                Some((_, true)) => owned.push(Doomed { key, put: None }),
                Some((_, false)) => unmarked.push(key),
                None => {}
            }
            self.progress.inc();
        }
        owned.sort_by(|a, b| a.key.cmp(&b.key));
        unmarked.sort();
        Ok((owned, unmarked))
    }

    /// The objects in every folder that holds one of `keys` (paths below the prefix), one
    /// listing with a delimiter a folder, `concurrency` folders at a time: folio's own
    /// folders, never the whole prefix (a tree-walking store pays for every key below a
    /// recursive listing, on every page of it).
    pub async fn list<'k>(
        &self,
        keys: impl IntoIterator<Item = &'k str>,
    ) -> Result<HashMap<String, Listed>, Failure> {
        let folders: BTreeSet<&str> = keys
            .into_iter()
            .map(|key| key.rsplit_once('/').map_or("", |(folder, _)| folder))
            .collect();
        self.progress.start("list", folders.len() as u64);
        let listed =
            futures::stream::iter(folders.into_iter().map(|folder| self.list_folder(folder)))
                .buffer_unordered(self.settings.concurrency);
        futures::pin_mut!(listed);
        let mut listing = HashMap::new();
        while let Some(found) = listed.next().await {
            listing.extend(found?);
            self.progress.inc();
        }
        listing.remove(LEASE);
        listing.remove(RECORD);
        Ok(listing)
    }

    /// The objects directly in `folder` (below the prefix; "" is the prefix itself).
    async fn list_folder(&self, folder: &str) -> Result<Vec<(String, Listed)>, Failure> {
        let target = &self.store.target;
        let key = if folder.is_empty() { target.root() } else { Some(target.key(folder)) };
        let found = (self.store.inner.list_with_delimiter(key.as_ref()).await)
            .map_err(|e| self.failed("listing", folder, e))?;
        Ok(found
            .objects
            .into_iter()
            .filter_map(|meta| {
                let rel = target.rel(meta.location.as_ref())?.to_string();
                let etag = meta.e_tag.unwrap_or_default().trim_matches('"').to_string();
                let modified = Some(meta.last_modified.timestamp());
                Some((rel, Listed { size: meta.size, etag, modified }))
            })
            .collect())
    }

    /// The modification times of the objects of `files` (indices into `outgoing`), as the
    /// store shows them now, where the size is the file's: a folder most of whose keys
    /// are among them is listed (keeping only objects listed without an ETag), the rest
    /// get a HEAD each.
    pub async fn modified(
        &self,
        outgoing: &[OutgoingFile],
        files: &[usize],
    ) -> Result<Vec<(usize, i64)>, Failure> {
        let folder = |rel: &str| rel.rsplit_once('/').map_or("", |(f, _)| f).to_string();
        let mut in_folder: BTreeMap<String, (Vec<usize>, usize)> = BTreeMap::new();
        for f in outgoing {
            in_folder.entry(folder(&f.rel)).or_default().1 += 1;
        }
        for &i in files {
            in_folder.entry(folder(&outgoing[i].rel)).or_default().0.push(i);
        }
        let (mut listed, mut heads) = (Vec::new(), Vec::new());
        for (name, (changed, all)) in in_folder {
            match changed.len() {
                0 => {}
                n if 4 * n > all => listed.push((name, changed)),
                _ => heads.extend(changed),
            }
        }
        self.progress.start("learn times", (listed.len() + heads.len()) as u64);
        let mut out = Vec::new();
        let lists = futures::stream::iter(listed.into_iter().map(|(name, changed)| async move {
            let found: HashMap<String, Listed> =
                self.list_folder(&name).await?.into_iter().collect();
            // A listed object with an ETag is vouched for by it: no time is kept (the
            // record then stays as a deploy to such a store writes it).
            let seen = |&i: &usize| {
                let l = found.get(&outgoing[i].rel);
                let l = l.filter(|l| l.size == outgoing[i].size && l.etag.is_empty())?;
                Some((i, l.modified?))
            };
            Ok::<_, Failure>(changed.iter().filter_map(seen).collect::<Vec<_>>())
        }))
        .buffer_unordered(self.settings.concurrency);
        futures::pin_mut!(lists);
        while let Some(found) = lists.next().await {
            out.extend(found?);
            self.progress.inc();
        }
        let head = GetOptions { head: true, ..GetOptions::default() };
        let heads = futures::stream::iter(heads.into_iter().map(|i| {
            let head = head.clone();
            async move {
                let key = self.store.target.key(&outgoing[i].rel);
                (i, self.store.inner.get_opts(&key, head).await)
            }
        }))
        .buffer_unordered(self.settings.concurrency);
        futures::pin_mut!(heads);
        while let Some((i, got)) = heads.next().await {
            match got {
                Ok(got) if got.meta.size == outgoing[i].size => {
                    out.push((i, got.meta.last_modified.timestamp()));
                }
                Ok(_) | Err(object_store::Error::NotFound { .. }) => {}
                Err(e) => return Err(self.failed("checking", &outgoing[i].rel, e)),
            }
            self.progress.inc();
        }
        Ok(out)
    }
}
