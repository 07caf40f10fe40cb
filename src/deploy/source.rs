//! Where a deploy's files come from: the finished build in `output/`, read back, or the
//! data rendered in memory by the build's own code (`--from-data`), each file rendered when
//! it is hashed and again when it is sent, never kept and never written. Either way a
//! file's bytes are checked against the hash the scan took, so one build is published.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::Context;
use rayon::prelude::*;

use super::outgoing::{self, OutgoingFile, Roles, Scanned};
use crate::compress::Codec;
use crate::error::{Failure, Refusal, WayOut};
use crate::output::lock::Lock;
use crate::output::manifest::Manifest;
use crate::routes::Map;
use crate::routes::layout::{FileKind, PageFile};
use crate::site::InMemory;

/// The files one deploy publishes.
pub enum Source {
    /// The finished build in `output/`, its folder held (shared) until the deploy is done.
    Built { output: PathBuf, manifest: Box<Manifest>, _lock: Lock },
    /// The data loaded and checked as `folio build` does, its files rendered on demand.
    Rendered(Box<Rendered>),
}

/// A build kept in memory, and where each of its files besides pages is.
pub struct Rendered {
    memory: InMemory,
    statics: HashMap<String, usize>,
}

impl Rendered {
    pub fn new(memory: InMemory) -> Rendered {
        let statics =
            (memory.files.iter().enumerate()).map(|(i, (rel, _))| (rel.clone(), i)).collect();
        Rendered { memory, statics }
    }

    /// Appends the bytes of `rel` to `out`, as a build writes them: a page, a page's sibling
    /// in one of the build's codecs, or another file of the build; `None` for none of them.
    fn render(&self, rel: &str, out: &mut Vec<u8>) -> Option<Result<(), Failure>> {
        let map = self.memory.pages.map();
        let page = |p: &PageFile, out: &mut Vec<u8>| -> Option<Result<(), Failure>> {
            if !self.memory.pages.has(p) {
                return None;
            }
            Some(self.memory.pages.render(p, out).map_err(|e| Failure::Template(vec![e])))
        };
        match map.kind(rel) {
            FileKind::Page(p) => page(&p, out),
            FileKind::Sibling(p, coding) => {
                let codec = Codec::parse(coding).filter(|c| self.memory.codecs.contains(c))?;
                let mut plain = Vec::new();
                Some(page(&p, &mut plain)?.map(|()| out.extend(codec.compress(&plain))))
            }
            _ => self.statics.get(rel).map(|&i| {
                out.extend_from_slice(&self.memory.files[i].1);
                Ok(())
            }),
        }
    }

    /// Every file a build of this listing writes that `roles` publishes, in the order a
    /// walk of `output/` finds them; each is hashed when it is first rendered.
    fn scan(&self, roles: &Roles) -> Vec<Scanned> {
        let map = self.memory.pages.map();
        let mut rels: Vec<String> = Vec::new();
        for variant in map.variants() {
            for size in &map.sizes {
                for number in 1..=size.pages {
                    let page = map.file(variant, size.size, number);
                    for codec in &self.memory.codecs {
                        rels.push(format!("{page}.{}", codec.extension()));
                    }
                    rels.push(page);
                }
            }
        }
        // Hidden files (`.nojekyll`) are never published, as a scan of `output/` skips them.
        let hidden = |rel: &str| rel.split('/').any(|part| part.starts_with('.'));
        rels.extend(self.memory.files.iter().map(|(rel, _)| rel.clone()).filter(|r| !hidden(r)));
        let mut found: Vec<Scanned> = (rels.into_iter())
            .filter_map(|rel| {
                let (headers, phase) = roles.headers(&rel)?;
                Some(Scanned { rel, content: None, headers, phase })
            })
            .collect();
        found.sort_by(|a, b| walk_order(&a.rel, &b.rel));
        found
    }
}

/// The most a thread's render buffer keeps between files (a page of 100 items is about
/// 70 KB).
const KEPT_BUFFER: usize = 1 << 20;

/// A render's outcome for `rel`: `None` is no file of this build.
fn rendered(done: Option<Result<(), Failure>>, rel: &str) -> Result<(), Failure> {
    done.ok_or_else(|| anyhow::anyhow!("`{rel}` is no file of this build"))?
}

/// The order `walkdir` with `sort_by_file_name` walks a tree in: by path, name by name.
fn walk_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.split('/').cmp(b.split('/'))
}

impl Source {
    /// The map of what is published: the build's, with the page counts it was made with.
    pub fn map(&self, project: &crate::config::Project) -> Map {
        match self {
            Source::Built { manifest, .. } => Map::new(&project.shape, manifest.stamp.records),
            Source::Rendered(r) => r.memory.pages.map().clone(),
        }
    }

    /// What there is to publish, sorted by path, with the xxh3 of each, and a warning for
    /// each file left out.
    pub fn scan(&self, roles: &Roles) -> Result<(Vec<Scanned>, Vec<String>), Failure> {
        match self {
            Source::Built { output, manifest, .. } => Ok(outgoing::scan(output, roles, manifest)?),
            Source::Rendered(r) => Ok((r.scan(roles), r.memory.warnings.clone())),
        }
    }

    /// The bytes of `rel`: the file of `output/`, or the file rendered (into a buffer of
    /// `size`, the bytes' size when known).
    fn read(&self, rel: &str, size: usize) -> Result<Vec<u8>, Failure> {
        match self {
            Source::Built { output, .. } => {
                let path = output.join(rel);
                Ok(std::fs::read(&path).with_context(|| format!("reading `{}`", path.display()))?)
            }
            Source::Rendered(r) => {
                let mut out = Vec::with_capacity(size);
                rendered(r.render(rel, &mut out), rel)?;
                Ok(out)
            }
        }
    }

    /// Calls `with` on the bytes of `rel`, read or rendered. A render goes into a buffer
    /// the thread keeps for the next: hashing every page allocates no page's worth of
    /// memory.
    fn with_bytes<T>(&self, rel: &str, with: impl FnOnce(&[u8]) -> T) -> Result<T, Failure> {
        thread_local! {
            static BUFFER: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
        }
        match self {
            Source::Built { .. } => Ok(with(&self.read(rel, 0)?)),
            Source::Rendered(r) => BUFFER.with_borrow_mut(|buffer| {
                buffer.clear();
                rendered(r.render(rel, buffer), rel)?;
                let done = with(buffer);
                // A buffer grown for an unusually large file is not kept.
                if buffer.capacity() > KEPT_BUFFER {
                    *buffer = Vec::new();
                }
                Ok(done)
            }),
        }
    }

    /// The bytes of `rel`, exactly those the scan hashed (`xxh3`, which the MD5 folio
    /// records and sends was taken with), or why not: a file of `output/` that something
    /// other than folio changed since (the folder's lock keeps folio's own builds out), or
    /// a page that renders otherwise the second time (never: rendering is deterministic).
    pub fn bytes(&self, rel: &str, size: u64, xxh3: u128) -> Result<Vec<u8>, Failure> {
        let bytes = self.read(rel, usize::try_from(size).unwrap_or(0))?;
        if crate::output::hash(&bytes) != xxh3 {
            let (shown, why) = match self {
                Source::Built { output, .. } => (
                    crate::diag::display_path(&output.join(rel)).display().to_string(),
                    "something other than folio wrote to the output folder",
                ),
                Source::Rendered(_) => {
                    (rel.to_string(), "it rendered otherwise than when it was hashed")
                }
            };
            return Err(Failure::Stopped(Refusal::new(
                format!(
                    "`{shown}` changed while it was being deployed ({why}); nothing more was sent"
                ),
                WayOut::DeployAgain,
            )));
        }
        Ok(bytes)
    }

    /// The files with their sizes, hashes and MD5s, in parallel. A file the scan did not
    /// hash is read (rendered) once, its MD5 taken from the same bytes unless `known` has
    /// one; an MD5 is `known` when folio's record holds one for that size and hash (bytes
    /// it uploaded before); else the file is read and hashed. A no-op deploy of a build
    /// reads no file.
    pub fn with_md5(
        &self,
        scanned: &[Scanned],
        known: impl Fn(u64, u128) -> Option<[u8; 16]> + Sync,
    ) -> Result<Vec<OutgoingFile>, Failure> {
        scanned
            .par_iter()
            .map(|s| {
                let (size, xxh3, md5) = match s.content {
                    Some((size, xxh3)) => match known(size, xxh3) {
                        Some(md5) => (size, xxh3, md5),
                        None => (size, xxh3, outgoing::md5_of(&self.bytes(&s.rel, size, xxh3)?)),
                    },
                    None => self.with_bytes(&s.rel, |bytes| {
                        let (size, xxh3) = (bytes.len() as u64, crate::output::hash(bytes));
                        let md5 = known(size, xxh3).unwrap_or_else(|| outgoing::md5_of(bytes));
                        (size, xxh3, md5)
                    })?,
                };
                let (rel, headers, phase) = (s.rel.clone(), s.headers.clone(), s.phase);
                Ok(OutgoingFile { rel, size, xxh3, md5, headers, phase })
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_sort_as_a_walk_of_the_folder_finds_them() {
        let mut rels = vec!["api/en-gb/x.json", "api/en/x.json", "api/en.json", "_headers"];
        rels.sort_by(|a, b| walk_order(a, b));
        assert_eq!(rels, ["_headers", "api/en/x.json", "api/en-gb/x.json", "api/en.json"]);
    }
}
