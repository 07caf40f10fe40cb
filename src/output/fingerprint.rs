//! The fingerprint of a build: everything its output depends on, hashed: folio's version
//! and binary, the project's output-settings digest, and every file below the data and
//! templates folders. An unchanged fingerprint lets a build skip its work (after checking
//! every recorded file is still as written).

use std::io::Read;
use std::path::{Path, PathBuf};

use anyhow::Context;

use crate::config::Project;

/// Every file below `dir`, hidden ones skipped, in sorted path order.
fn files(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(walkdir::DirEntry::into_path)
        .collect()
}

/// The fingerprint of `project`'s build, as hex.
pub fn of(project: &Project) -> anyhow::Result<String> {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    // The binary itself (size and mtime), so a rebuilt folio of the same version redoes
    // the work too: what changed may be how files are rendered.
    if let Some(meta) = std::env::current_exe().ok().and_then(|exe| std::fs::metadata(exe).ok()) {
        h.update(&meta.len().to_le_bytes());
        h.update(format!("{:?}", meta.modified().ok()).as_bytes());
    }
    // What of the config shapes the output (no comment, no `[deploy]`).
    h.update(project.output_settings_digest.as_bytes());
    let mut all = files(&project.data_dir);
    all.extend(files(&project.templates_dir));
    // Streamed in blocks: a data file can be larger than the memory a build may use.
    let mut block = vec![0u8; 1 << 20];
    for path in all {
        h.update(path.as_os_str().as_encoded_bytes());
        let mut file =
            std::fs::File::open(&path).with_context(|| format!("reading `{}`", path.display()))?;
        let mut len = 0u64;
        loop {
            let n =
                file.read(&mut block).with_context(|| format!("reading `{}`", path.display()))?;
            if n == 0 {
                break;
            }
            h.update(&block[..n]);
            len += n as u64;
        }
        h.update(&len.to_le_bytes());
    }
    Ok(format!("{:032x}", h.digest128()))
}
