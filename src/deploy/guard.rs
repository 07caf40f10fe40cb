//! What a `file://` target must not be, checked before a deploy sends anything (and again
//! midway for symlinks): overlapping the project, or holding a symlink.

use std::path::{Path, PathBuf};

use anyhow::Context;

use super::store::{Scheme, Store, Target};
use crate::config::Project;
use crate::error::{Failure, Refusal, WayOut};

/// A `file://` target that overlaps what folio reads or writes is refused before anything
/// is sent: inside `output/` (the next deploy would publish the copy inside itself), a
/// folder `output/` lies in (the project folder or above: the copy would be in what it
/// publishes), or inside the data folder (its files would be read as records).
pub(in crate::deploy) fn refuse_overlap(project: &Project, target: &Target) -> Result<(), Failure> {
    if target.scheme != Scheme::File {
        return Ok(());
    }
    let real = |p: &Path| resolved(p);
    let dir = real(Path::new(&target.bucket));
    let (out, data, root) =
        (real(&project.output_dir), real(&project.data_dir), real(&project.root));
    // The working folder itself shows as its whole path, not as nothing.
    let shown = |p: &Path| match crate::diag::display_path(p) {
        rel if rel.as_os_str().is_empty() => real(p).display().to_string(),
        rel => rel.display().to_string(),
    };
    let why = if dir.starts_with(&out) {
        format!("it is inside the output folder `{}`", shown(&project.output_dir))
    } else if out.starts_with(&dir) {
        if root.starts_with(&dir) {
            format!("the project folder `{}` is inside it", shown(&project.root))
        } else {
            format!("the output folder `{}` is inside it", shown(&project.output_dir))
        }
    } else if dir.starts_with(&data) {
        format!("it is inside the data folder `{}`", shown(&project.data_dir))
    } else {
        return Ok(());
    };
    Err(Failure::Refused(Refusal::new(
        format!("{} overlaps the project: {why}", target.display()),
        WayOut::DeployOutside,
    )))
}

/// `path` made absolute with its symlinks resolved, as far as it exists (the rest is
/// appended as it is written).
fn resolved(path: &Path) -> PathBuf {
    let absolute = std::path::absolute(path).unwrap_or_else(|_| path.to_path_buf());
    let mut existing = absolute.as_path();
    let mut rest = Vec::new();
    loop {
        if let Ok(real) = std::fs::canonicalize(existing) {
            return rest.iter().rev().fold(real, |p, part| p.join(part));
        }
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_os_string());
                existing = parent;
            }
            _ => return absolute,
        }
    }
}

/// A `file://` target with a symlink inside is refused: the folder store would write,
/// list and delete through it, outside the target.
///
/// Before anything is sent that is a refusal (exit 1); once uploads went out
/// (`midway`), a symlink that appeared meanwhile is an I/O failure (exit 2): nothing was
/// written through it (the store opens every component without following links), but the
/// target is no longer the one this deploy started on, so it deletes nothing.
pub(in crate::deploy) fn refuse_links(store: &Store, midway: bool) -> Result<(), Failure> {
    let Some(dir) = store.folder.as_deref() else { return Ok(()) };
    let links = links_below(dir, 5)?;
    if links.is_empty() {
        return Ok(());
    }
    let named: Vec<String> =
        links.iter().map(|l| format!("`{}`", l.strip_prefix(dir).unwrap_or(l).display())).collect();
    let named = format!("{}{}", named.join(", "), if links.len() == 5 { ", ..." } else { "" });
    if midway {
        return Err(Failure::Stopped(Refusal::new(
            format!(
                "{} now holds a symlink ({named}) that appeared while this deploy was sending: nothing was written through it and nothing was deleted",
                store.target.display(),
            ),
            WayOut::RemoveLinkThenDeploy,
        )));
    }
    Err(Failure::Refused(Refusal::new(
        format!(
            "{} holds a symlink ({named}): folio never writes or deletes through a symlink in a file:// target",
            store.target.display(),
        ),
        WayOut::RemoveLink,
    )))
}

/// Symlinks below a `file://` target, at most `limit` of them: the folder store goes
/// through none (it would fail midway on one), so a target that holds any is refused.
fn links_below(dir: &Path, limit: usize) -> anyhow::Result<Vec<PathBuf>> {
    let mut found = Vec::new();
    if !dir.exists() {
        return Ok(found);
    }
    for entry in walkdir::WalkDir::new(dir).follow_links(false).min_depth(1) {
        let entry = entry.with_context(|| format!("reading `{}`", dir.display()))?;
        if entry.path_is_symlink() {
            found.push(entry.into_path());
            if found.len() == limit {
                break;
            }
        }
    }
    Ok(found)
}
