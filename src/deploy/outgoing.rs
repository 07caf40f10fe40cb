//! What `folio deploy` publishes: every plain file of `output/` except hidden ones
//! (folio's manifest and staging, `.nojekyll`, editors' leftovers), each with its MD5 and
//! the headers of its role (docs/api.md): pages and their siblings, error documents, the
//! index, OpenAPI document and explorer, and any other file by its extension. Symlinks are
//! never followed: one could publish something from outside `output/`.

use std::path::Path;
use std::sync::Arc;

use anyhow::Context;
use rayon::prelude::*;

use crate::output::manifest::Manifest;
use crate::routes::Map;
use crate::routes::layout::FileKind;

/// The headers folio sets on an object.
#[derive(
    Debug,
    Clone,
    Default,
    PartialEq,
    Eq,
    Hash,
    PartialOrd,
    Ord,
    serde::Serialize,
    serde::Deserialize,
)]
pub struct Headers {
    pub content_type: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub cache_control: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub content_encoding: Option<String>,
}

/// What an object is to the upload order (`remote::rank`): a page, a listing's first page
/// (where a client starts), or what links to pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Phase {
    Pages,
    Entries,
    Links,
}

/// One file to publish.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutgoingFile {
    /// Below `output/`, `/`-separated; also the key below the deploy prefix.
    pub rel: String,
    pub size: u64,
    /// xxh3-128 of its bytes, as the build's manifest records it (or as read).
    pub xxh3: u128,
    pub md5: [u8; 16],
    /// Shared: a deploy of many files has a handful of header sets.
    pub headers: Arc<Headers>,
    pub phase: Phase,
}

/// A file of the scan, before its MD5 is known.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Scanned {
    pub rel: String,
    /// Its size and the xxh3-128 of its bytes, when the scan knows them (a build's files,
    /// from its manifest or read); `None` for a file rendered from the data, hashed when
    /// it is first rendered.
    pub content: Option<(u64, u128)>,
    pub headers: Arc<Headers>,
    pub phase: Phase,
}

/// What decides a file's headers: the listing's map (which file is a page, the
/// `Cache-Control` of the API) and whether siblings are published.
pub struct Roles<'m> {
    map: &'m Map,
    siblings: bool,
    /// Whether the platforms' configuration files are published (to a folder, which
    /// mirrors `output/`; never to an object store, which would only serve them).
    platform_config: bool,
    /// Each header set handed out so far, once (a handful: one a role and file type).
    sets: std::sync::Mutex<Vec<Arc<Headers>>>,
}

impl<'m> Roles<'m> {
    pub fn new(map: &'m Map, siblings: bool) -> Self {
        Roles { map, siblings, platform_config: true, sets: Default::default() }
    }

    /// `headers`, shared with every file that has the same.
    fn shared(&self, headers: Headers) -> Arc<Headers> {
        let mut sets = self.sets.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        if let Some(set) = sets.iter().find(|s| ***s == headers) {
            return set.clone();
        }
        let set = Arc::new(headers);
        sets.push(set.clone());
        set
    }

    /// These roles, leaving out the platforms' configuration files
    /// ([`crate::hosts::PLATFORM_CONFIG`]).
    pub fn without_platform_config(self) -> Self {
        Roles { platform_config: false, ..self }
    }

    /// The headers of `rel` on the store, or `None` when it is not published (a sibling
    /// without `siblings = true`).
    pub fn headers(&self, rel: &str) -> Option<(Arc<Headers>, Phase)> {
        let (headers, phase) = self.role(rel)?;
        Some((self.shared(headers), phase))
    }

    fn role(&self, rel: &str) -> Option<(Headers, Phase)> {
        if !self.platform_config && crate::hosts::PLATFORM_CONFIG.contains(&rel) {
            return None;
        }
        let cache = Some(self.map.shape.cache_control.clone());
        let typed = |cache_control| Headers {
            content_type: crate::routes::content_type(rel).to_string(),
            cache_control,
            content_encoding: None,
        };
        Some(match self.map.kind(rel) {
            FileKind::Page(page) => (typed(cache), phase_of(page.page)),
            FileKind::Sibling(of, coding) if self.siblings => {
                let page = rel.rsplit_once('.').map_or(rel, |(page, _)| page);
                let headers = Headers {
                    content_type: crate::routes::content_type(page).to_string(),
                    cache_control: cache,
                    content_encoding: Some(coding.to_string()),
                };
                (headers, phase_of(of.page))
            }
            FileKind::Sibling(..) => return None,
            FileKind::Error => (
                Headers {
                    content_type: crate::routes::PROBLEM_JSON.into(),
                    cache_control: None,
                    content_encoding: None,
                },
                Phase::Links,
            ),
            FileKind::Api => (typed(cache), Phase::Links),
            FileKind::Other => (typed(None), Phase::Links),
        })
    }
}

fn phase_of(page: u64) -> Phase {
    if page == 1 { Phase::Entries } else { Phase::Pages }
}

/// The files of `output/` to publish, sorted by path, with the xxh3 of each; and a warning
/// for each symlink left out. A file the manifest lists, still as the build left it (size
/// and modification time), is not read: its hash is the manifest's. Others are read.
pub fn scan(
    output: &Path,
    roles: &Roles,
    manifest: &Manifest,
) -> anyhow::Result<(Vec<Scanned>, Vec<String>)> {
    let mut found = Vec::new();
    let mut warnings = Vec::new();
    let walker = walkdir::WalkDir::new(output)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for entry in walker {
        let entry = entry.with_context(|| format!("reading `{}`", output.display()))?;
        if entry.depth() == 0 {
            continue;
        }
        let rel = entry
            .path()
            .strip_prefix(output)
            .expect("walked below output")
            .to_string_lossy()
            .replace('\\', "/");
        if entry.path_is_symlink() {
            warnings.push(format!(
                "{}: a symlink, not published (it could lead outside the folder)",
                crate::diag::display_path(entry.path()).display()
            ));
        } else if entry.file_type().is_file()
            && let Some((headers, phase)) = roles.headers(&rel)
        {
            found.push((rel, headers, phase, entry));
        }
    }
    let files = found
        .into_par_iter()
        .map(|(rel, headers, phase, entry)| {
            let meta = entry
                .metadata()
                .with_context(|| format!("reading `{}`", entry.path().display()))?;
            let recorded = manifest
                .files
                .get(&rel)
                .filter(|e| e.size == meta.len() && e.mtime == crate::output::mtime_ns(&meta));
            let (size, xxh3) = match recorded {
                Some(e) => (e.size, e.hash),
                None => {
                    let path = entry.path();
                    let bytes = std::fs::read(path)
                        .with_context(|| format!("reading `{}`", path.display()))?;
                    (bytes.len() as u64, crate::output::hash(&bytes))
                }
            };
            Ok(Scanned { rel, content: Some((size, xxh3)), headers, phase })
        })
        .collect::<anyhow::Result<Vec<_>>>()?;
    Ok((files, warnings))
}

/// The MD5 of bytes.
pub fn md5_of(bytes: &[u8]) -> [u8; 16] {
    use md5::Digest;
    md5::Md5::digest(bytes).into()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Project;

    fn roles_of(siblings: bool) -> (Project, bool) {
        let p = crate::config::test_project(
            "[listing]\nlanguages = [\"en\", \"fr\"]\n[output]\ncache_control = \"max-age=9\"\n",
        );
        (p, siblings)
    }

    #[test]
    fn each_role_gets_its_headers() {
        let (p, _) = roles_of(true);
        let map = Map::new(&p.shape, 0);
        let roles = Roles::new(&map, true);
        let h = |rel: &str| {
            roles.headers(rel).map(|(h, phase)| {
                let h = Headers::clone(&h);
                (h.content_type, h.cache_control, h.content_encoding, phase)
            })
        };
        let json = "application/json; charset=utf-8".to_string();
        let cc = Some("max-age=9".to_string());
        assert_eq!(
            h("api/fr/attractions/20/3.json"),
            Some((json.clone(), cc.clone(), None, Phase::Pages))
        );
        // A first page is where a client starts: an entry (uploaded after the pages it
        // links to), its siblings with it.
        assert_eq!(
            h("api/attractions/10/1.json"),
            Some((json.clone(), cc.clone(), None, Phase::Entries))
        );
        assert_eq!(
            h("api/en/attractions/10/1.json.br"),
            Some((json.clone(), cc.clone(), Some("br".into()), Phase::Entries))
        );
        assert_eq!(
            h("api/en/attractions/10/2.json.gz"),
            Some((json.clone(), cc.clone(), Some("gzip".into()), Phase::Pages))
        );
        assert_eq!(
            h("api/errors/not_found.json"),
            Some((crate::routes::PROBLEM_JSON.into(), None, None, Phase::Links))
        );
        assert_eq!(h("api/index.json"), Some((json.clone(), cc.clone(), None, Phase::Links)));
        assert_eq!(
            h("api/explorer.html"),
            Some(("text/html; charset=utf-8".into(), cc.clone(), None, Phase::Links))
        );
        assert_eq!(
            h("robots.txt"),
            Some(("text/plain; charset=utf-8".into(), None, None, Phase::Links))
        );
        // Not pages: an unknown language, size or page number; no cache for a sibling
        // of none.
        for rel in [
            "api/de/attractions/10/1.json",
            "api/en/attractions/15/1.json",
            "api/en/attractions/10/01.json",
        ] {
            assert_eq!(h(rel), Some((json.clone(), cc.clone(), None, Phase::Links)), "{rel}");
        }
        let without = Roles::new(&map, false);
        assert_eq!(without.headers("api/en/attractions/10/1.json.gz"), None);
        // One set of headers a role, shared by every file of it.
        let a = roles.headers("api/fr/attractions/20/3.json").unwrap().0;
        let b = roles.headers("api/en/attractions/50/2.json").unwrap().0;
        assert!(Arc::ptr_eq(&a, &b));
    }
}
