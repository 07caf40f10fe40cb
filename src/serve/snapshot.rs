//! What the preview answers from: [`Snapshot`], one loaded listing with every file of its
//! build that is not a page already rendered, and the file at any path of that build,
//! pages rendered when asked for, with their entity tags.

use std::collections::HashMap;
use std::time::SystemTime;

use bytes::Bytes;

use super::stamps::Generation;
use crate::compress::Codec;
use crate::routes::layout::{FileKind, PageFile, SIBLINGS};
use crate::routes::{ErrorCode, Map};
use crate::site::{InMemory, Renderer};

/// A file of the build held whole: its bytes and their hash.
struct Stored {
    bytes: Bytes,
    hash: u128,
}

impl Stored {
    fn new(bytes: impl Into<Bytes>) -> Stored {
        let bytes = bytes.into();
        Stored { hash: crate::output::hash(&bytes), bytes }
    }
}

/// One loaded listing, as the preview answers from it.
pub struct Snapshot {
    pages: Renderer,
    /// Every file of the build but pages and their siblings, by path below `output/`.
    files: HashMap<String, Stored>,
    codecs: Vec<Codec>,
    pub generation: Generation,
}

/// A file as one request gets it: its bytes in the coding the request accepts, and its
/// validators.
pub struct Representation {
    pub bytes: Bytes,
    /// The entity tag: the hash of these bytes, as the manifest records a file's.
    pub etag: String,
    pub modified: SystemTime,
    /// `Content-Encoding`, for a page's precompressed sibling (chosen by `Accept-Encoding`
    /// or asked for by its path).
    pub encoding: Option<&'static str>,
}

/// The entity tag of bytes whose hash (`output::hash`, the manifest's) is `hash`.
pub fn entity_tag(hash: u128) -> String {
    format!("\"{:020x}\"", hash >> 48)
}

impl Snapshot {
    pub fn new(site: InMemory, generation: Generation) -> Snapshot {
        let files = site.files.into_iter().map(|(rel, bytes)| (rel, Stored::new(bytes))).collect();
        Snapshot { pages: site.pages, files, codecs: site.codecs, generation }
    }

    pub fn map(&self) -> &Map {
        self.pages.map()
    }

    pub fn records(&self) -> usize {
        self.pages.records()
    }

    /// How many files a build of this listing writes (pages, siblings and the rest).
    pub fn file_count(&self) -> usize {
        let per_variant: usize = self.map().sizes.iter().map(|s| s.pages).sum();
        let pages = self.map().variants().len() * per_variant;
        pages * (1 + self.codecs.len()) + self.files.len()
    }

    /// The bytes of `code`'s problem document.
    pub fn problem(&self, code: ErrorCode) -> Bytes {
        self.files.get(&code.file()).map_or_else(|| Bytes::from(code.code()), |f| f.bytes.clone())
    }

    /// The file at `rel` (a clean path below `output/`), as a build of this listing has it:
    /// a page in the first coding of [`SIBLINGS`] that the build precompresses and
    /// `accepts` says the request takes, else as it is. `None` when the build has no such
    /// file; `Some(Err(message))` when the page's template fails on it.
    pub fn file(
        &self,
        rel: &str,
        accepts: &dyn Fn(&str) -> bool,
        stamps: &super::stamps::Stamps,
    ) -> Option<Result<Representation, String>> {
        if let Some(stored) = self.files.get(rel) {
            let modified = stamps.modified(rel, stored.hash, self.generation);
            let etag = entity_tag(stored.hash);
            return Some(Ok(Representation {
                bytes: stored.bytes.clone(),
                etag,
                modified,
                encoding: None,
            }));
        }
        let (page, coding) = match self.map().kind(rel) {
            FileKind::Page(page) => {
                let chosen = SIBLINGS
                    .iter()
                    .map(|&(_, coding)| coding)
                    .find(|&coding| accepts(coding) && self.codec(coding).is_some());
                (page, chosen)
            }
            FileKind::Sibling(page, coding) if self.codec(coding).is_some() => (page, Some(coding)),
            _ => return None,
        };
        if !self.pages.has(&page) {
            return None;
        }
        Some(self.page(rel, &page, coding, stamps))
    }

    fn codec(&self, coding: &str) -> Option<Codec> {
        Codec::parse(coding).filter(|c| self.codecs.contains(c))
    }

    /// Page `page` in `coding` (`None`: as it is), which is its `Content-Encoding` whether
    /// `Accept-Encoding` chose it or the sibling was asked for by its own path (as every
    /// host that serves siblings answers that path: the page's JSON, so encoded). Its time
    /// is the page's, whatever the coding, as a sibling is written with its page.
    fn page(
        &self,
        rel: &str,
        page: &PageFile,
        coding: Option<&'static str>,
        stamps: &super::stamps::Stamps,
    ) -> Result<Representation, String> {
        let mut out = Vec::new();
        self.pages.render(page, &mut out)?;
        let hash = crate::output::hash(&out);
        let plain = self.map().page_file(page);
        debug_assert!(rel.starts_with(&plain));
        let modified = stamps.modified(&plain, hash, self.generation);
        let (bytes, hash) = match coding.and_then(|c| self.codec(c)) {
            Some(codec) => {
                let packed = codec.compress(&out);
                let hash = crate::output::hash(&packed);
                (Bytes::from(packed), hash)
            }
            None => (Bytes::from(out), hash),
        };
        Ok(Representation { bytes, etag: entity_tag(hash), modified, encoding: coding })
    }
}
