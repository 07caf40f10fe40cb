//! What the preview answers from: [`Snapshot`], one loaded listing with every file of its
//! build that is not a page already rendered, and the file at any path of that build,
//! pages rendered when asked for. [`Preview`] loads a snapshot and, on each reload, swaps
//! the next one in whole: a request holds the snapshot it started with to its end, so it
//! never sees half of one listing and half of another, and a reload that fails leaves the
//! last good snapshot in place.

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use bytes::Bytes;

use super::App;
use super::stamps::Generation;
use crate::compress::Codec;
use crate::config::Project;
use crate::error::Failure;
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
    /// `Content-Encoding`, for a page's precompressed sibling chosen by `Accept-Encoding`.
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
        let (page, coding, negotiated) = match self.map().kind(rel) {
            FileKind::Page(page) => {
                let chosen = SIBLINGS
                    .iter()
                    .map(|&(_, coding)| coding)
                    .find(|&coding| accepts(coding) && self.codec(coding).is_some());
                (page, chosen, true)
            }
            FileKind::Sibling(page, coding) if self.codec(coding).is_some() => {
                (page, Some(coding), false)
            }
            _ => return None,
        };
        if !self.pages.has(&page) {
            return None;
        }
        Some(self.page(rel, &page, coding, negotiated, stamps))
    }

    fn codec(&self, coding: &str) -> Option<Codec> {
        Codec::parse(coding).filter(|c| self.codecs.contains(c))
    }

    /// Page `page` in `coding` (`None`: as it is); `negotiated`: the coding was chosen by
    /// `Accept-Encoding` (so it is the `Content-Encoding`), not asked for by the sibling's
    /// own path. Its time is the page's, whatever the coding, as a sibling is written with
    /// its page.
    fn page(
        &self,
        rel: &str,
        page: &PageFile,
        coding: Option<&'static str>,
        negotiated: bool,
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
        let encoding = coding.filter(|_| negotiated);
        Ok(Representation { bytes, etag: entity_tag(hash), modified, encoding })
    }
}

/// The preview: the [`App`] that answers requests from the current [`Snapshot`], and the
/// address whose origin replaces an absolute `base_url`'s (as `zola serve` does), so that
/// the preview's links point at itself.
pub struct Preview {
    app: Arc<App>,
    addr: SocketAddr,
}

/// What a load did.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub records: usize,
    pub seconds: f64,
    /// Host limits the listing comes within 10 % of.
    pub warnings: Vec<String>,
}

impl Preview {
    /// Loads `project` for the preview at `addr`. `report` hears of each page that fails
    /// to render when asked for (a template whose output is not JSON on that page).
    pub fn start(
        project: Project,
        addr: SocketAddr,
        report: Box<dyn Fn(&str) + Send + Sync>,
    ) -> Result<(Preview, Loaded), Failure> {
        let start = Instant::now();
        let site = InMemory::load(&local(project, addr))?;
        let warnings = site.warnings.clone();
        let snapshot = Snapshot::new(site, Generation::next(None, SystemTime::now()));
        let loaded = Loaded { records: snapshot.records(), seconds: 0.0, warnings };
        let app = Arc::new(App::new(snapshot, report));
        Ok((Preview { app, addr }, Loaded { seconds: start.elapsed().as_secs_f64(), ..loaded }))
    }

    pub fn app(&self) -> Arc<App> {
        Arc::clone(&self.app)
    }

    /// Loads `project` (the config read again) and swaps it in; a load that fails leaves
    /// the current listing served.
    pub fn reload(&self, project: Project) -> Result<Loaded, Failure> {
        let start = Instant::now();
        let site = InMemory::load(&local(project, self.addr))?;
        let warnings = site.warnings.clone();
        let previous = self.app.snapshot().generation;
        let snapshot = Snapshot::new(site, Generation::next(Some(previous), SystemTime::now()));
        let records = snapshot.records();
        self.app.stamps.bound(snapshot.file_count());
        let replaced = self.app.swap(snapshot);
        // The listing replaced goes here (unless a request still holds it), not in a
        // request that happens to let go of it last.
        drop(replaced);
        Ok(Loaded { records, seconds: start.elapsed().as_secs_f64(), warnings })
    }
}

/// `project` as the preview shows it: an absolute `base_url`'s origin replaced by the
/// preview's own address.
fn local(mut project: Project, addr: SocketAddr) -> Project {
    if !project.shape.base.origin.is_empty() {
        project.shape.base.origin = format!("http://{addr}");
    }
    project
}
