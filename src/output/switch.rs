//! The switch of a staged build into place, journaled: the renames and removals are
//! written down (`{staging}/journal.json`, renamed to `commit.json` as the commit point)
//! before the first one happens, so that a build killed or failed midway is finished by
//! the next one ([`Tree::open`] rolls it forward), and the new manifest is written last.

use std::collections::{BTreeMap, BTreeSet, HashSet};
use std::fs;
use std::io;
use std::path::Path;
use std::sync::atomic::Ordering;

use anyhow::Context;

use super::journal::{Journal, JournalFile};
use super::manifest::{Entry, MANIFEST, Manifest, Stamp};
use super::paths::{self, Confined};
use super::{COMMIT, JOURNAL, Report, Staged, TREE, Tree, ctx, hash, mtime_ns, shown};

impl Tree {
    /// Switches the staged files in, removes files folio no longer produces, and records
    /// the new manifest (rewritten only when it changes). Returns what it did and every
    /// warning about entries it did not act on (from opening the tree on).
    pub fn commit(
        mut self,
        files: Vec<Staged>,
        stamp: &Stamp,
    ) -> Result<(Report, Vec<String>), super::TreeError> {
        // Into an empty folder (a first build) nothing is removed: no set of what is planned.
        let removals: Vec<String> = if self.old.files.is_empty() {
            Vec::new()
        } else {
            let planned: HashSet<&str> = files.iter().map(|f| f.rel.as_str()).collect();
            self.old.files.keys().filter(|k| !planned.contains(k.as_str())).cloned().collect()
        };
        let renames = self.rename_units(files.iter().filter(|f| f.changed).map(|f| f.rel.as_str()));
        let written = files.iter().filter(|f| f.changed).count();
        let mut report = Report {
            written: written as u64,
            unchanged: (files.len() - written) as u64,
            removed: removals.len() as u64,
            bytes: self.bytes.load(Ordering::Relaxed),
        };
        let journal = Journal {
            renames,
            removals,
            files: files
                .into_iter()
                .map(|f| JournalFile { rel: f.rel, hash: f.hash, size: f.size, mtime: f.mtime })
                .collect(),
            stamp: stamp.clone(),
        };
        // The manifest this switch will write is made while the journal is written: both
        // are one line a file, and neither needs the other.
        let (journaled, prepared) = rayon::join(
            || -> Result<(), super::TreeError> {
                if !journal.renames.is_empty() || !journal.removals.is_empty() {
                    self.claim()?;
                    let path = self.staging.join(JOURNAL);
                    (self.faults.before_write())
                        .and_then(|()| {
                            paths::create_new(&path, true, |out| {
                                Ok(serde_json::to_writer(out, &journal)?)
                            })
                        })
                        .with_context(|| ctx("writing", &path))?;
                    // The rename is the commit point: from here on the next build rolls
                    // forward.
                    fs::rename(&path, self.staging.join(COMMIT))
                        .with_context(|| ctx("committing", &path))?;
                }
                Ok(())
            },
            || Prepared::of(&journal),
        );
        if let Err(e) = journaled {
            // Before the commit point nothing is in place yet: the staged files go, as on
            // a failed write of a page (a full disk is left as the build found it).
            self.abort();
            return Err(e);
        }
        let manifest = self.root.join(MANIFEST);
        let root = shown(&self.root);
        let kept = self.apply_with(journal, &manifest, prepared).with_context(|| {
            format!(
                "the switch into `{root}` failed midway: each file is the old build's or the new one's; the next `folio build` finishes the switch first (until then `folio deploy` refuses the folder)"
            )
        })?;
        // A removal not acted on (its warning says why) removed nothing.
        report.removed -= kept;
        Ok((report, self.warnings))
    }

    /// The fewest renames that move `staged` files into place: the highest folder on each
    /// file's path that does not exist yet moves as a whole, else the file itself.
    fn rename_units<'a>(&self, staged: impl Iterator<Item = &'a str>) -> Vec<String> {
        let mut exists: std::collections::HashMap<&str, bool> = std::collections::HashMap::new();
        let mut units = BTreeSet::new();
        for rel in staged {
            let unit = rel
                .match_indices('/')
                .map(|(i, _)| &rel[..i])
                .find(|dir| {
                    !*exists
                        .entry(dir)
                        .or_insert_with(|| fs::symlink_metadata(self.root.join(dir)).is_ok())
                })
                .unwrap_or(rel);
            units.insert(unit.to_string());
        }
        units.into_iter().collect()
    }

    /// Records that `rel`, listed in `source`, was not acted on, and why.
    fn skip(&mut self, source: &Path, rel: &str, why: impl std::fmt::Display) {
        self.warnings.push(format!(
            "{}: entry `{}` was not acted on: {why}",
            shown(source),
            rel.escape_debug()
        ));
    }

    /// Carries out a switch. `source` names where its paths come from (the manifest, or
    /// the journal of an interrupted build) in warnings: each path is checked again here,
    /// because a journal is read back from disk like a manifest. Returns how many removals
    /// it did not act on.
    pub(super) fn apply(&mut self, journal: Journal, source: &Path) -> anyhow::Result<u64> {
        self.apply_with(journal, source, None)
    }

    /// [`Tree::apply`], with the manifest made beforehand from the same journal: used as
    /// it is when every file is listed as the journal has it.
    fn apply_with(
        &mut self,
        journal: Journal,
        source: &Path,
        prepared: Option<Prepared>,
    ) -> anyhow::Result<u64> {
        let mut kept = 0;
        let mut inside = Confined::new(&self.root);
        let mut staged = Confined::new(&self.staging.join(TREE));
        let mut made = BTreeSet::new();
        for rel in &journal.renames {
            let (from, to) = match (staged.resolve(rel), inside.resolve(rel)) {
                (Ok(from), Ok(to)) => (from, to),
                (Err(why), _) | (_, Err(why)) => {
                    self.skip(source, rel, why);
                    continue;
                }
            };
            if let Some(parent) = to.parent()
                && made.insert(parent.to_path_buf())
            {
                fs::create_dir_all(parent).with_context(|| ctx("creating", parent))?;
            }
            match self.faults.before_rename().and_then(|()| fs::rename(&from, &to)) {
                Ok(()) => {}
                // Already moved by the build this one is finishing.
                Err(e) if e.kind() == io::ErrorKind::NotFound && to.exists() => {}
                Err(e) => return Err(e).with_context(|| ctx("moving into place", &to)),
            }
        }
        for rel in &journal.removals {
            let path = match inside.resolve(rel) {
                Ok(path) => path,
                Err(why) => {
                    self.skip(source, rel, why);
                    kept += 1;
                    continue;
                }
            };
            match fs::symlink_metadata(&path) {
                Ok(m) if m.is_file() => match fs::remove_file(&path) {
                    Ok(()) => {}
                    Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                    Err(e) => return Err(e).with_context(|| ctx("removing", &path)),
                },
                Ok(_) => {
                    self.skip(source, rel, "it is a folder or a symlink, not a file folio wrote");
                    kept += 1;
                    continue;
                }
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e).with_context(|| ctx("removing", &path)),
            }
            // Folders the removal emptied, up to (not including) the root.
            let mut dir = path.parent();
            while let Some(d) = dir.filter(|d| *d != self.root && d.starts_with(&self.root)) {
                if fs::remove_dir(d).is_err() {
                    break;
                }
                dir = d.parent();
            }
        }
        let mut entries = Vec::with_capacity(journal.files.len());
        let nothing_ever = journal.files.is_empty() && self.old_digest.is_none();
        let mut as_journaled = true;
        for JournalFile { rel, hash, size, mtime } in journal.files {
            let path = match inside.resolve(&rel) {
                Ok(path) => path,
                Err(why) => {
                    self.skip(source, &rel, why);
                    as_journaled = false;
                    continue;
                }
            };
            let mtime = match mtime {
                Some(m) => m,
                None => mtime_ns(&fs::metadata(&path).with_context(|| ctx("reading", &path))?),
            };
            entries.push((rel, Entry { hash, size, mtime }));
        }
        let bytes = match prepared {
            Some(Prepared(bytes)) if as_journaled => bytes,
            _ => manifest_bytes(journal.stamp, entries),
        };
        if !nothing_ever && self.old_digest != Some(hash(&bytes)) {
            fs::create_dir_all(&self.root).with_context(|| ctx("creating", &self.root))?;
            let tmp = self.root.join(format!("{MANIFEST}.tmp"));
            paths::create_new(&tmp, true, |out| out.write_all(&bytes))
                .with_context(|| ctx("writing", &tmp))?;
            fs::rename(&tmp, self.root.join(MANIFEST))
                .with_context(|| ctx("writing", &self.root.join(MANIFEST)))?;
        }
        if self.staging.exists() {
            fs::remove_dir_all(&self.staging).with_context(|| ctx("removing", &self.staging))?;
        }
        Ok(kept)
    }
}

/// The manifest's bytes, made before the switch from a journal whose every file's time is
/// known; `None` when one is not (it is read after the switch).
struct Prepared(Vec<u8>);

impl Prepared {
    fn of(journal: &Journal) -> Option<Prepared> {
        let entries: Option<Vec<(String, Entry)>> = journal
            .files
            .iter()
            .map(|f| Some((f.rel.clone(), Entry { hash: f.hash, size: f.size, mtime: f.mtime? })))
            .collect();
        Some(Prepared(manifest_bytes(journal.stamp.clone(), entries?)))
    }
}

/// A manifest of `entries`, sorted once and built whole, not inserted one by one; a path
/// listed twice (in a journal read back) keeps its last entry, as inserting did.
fn manifest_bytes(stamp: Stamp, entries: Vec<(String, Entry)>) -> Vec<u8> {
    let entries: BTreeMap<String, Entry> = entries.into_iter().collect();
    Manifest::new(stamp, entries).to_bytes()
}
