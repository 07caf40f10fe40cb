//! The fingerprint of a build: everything its output depends on, hashed: folio's version
//! and binary, the project's output-settings digest, and every file below the data and
//! templates folders. An unchanged fingerprint lets a build skip its work (after checking
//! every recorded file is still as written).

use std::io::Read;
use std::path::{Path, PathBuf};
use std::time::{SystemTime, UNIX_EPOCH};

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

/// What a modification time adds to a hash: nanoseconds since the Unix epoch (negative
/// before it) as bytes, or nothing where the platform keeps no such time.
fn time_bytes(modified: Option<SystemTime>) -> Option<[u8; 16]> {
    let nanos = match modified?.duration_since(UNIX_EPOCH) {
        Ok(after) => after.as_nanos() as i128,
        Err(before) => -(before.duration().as_nanos() as i128),
    };
    Some(nanos.to_le_bytes())
}

/// The fingerprint of `project`'s build, as hex.
pub fn of(project: &Project) -> anyhow::Result<String> {
    let mut h = xxhash_rust::xxh3::Xxh3::new();
    h.update(env!("CARGO_PKG_VERSION").as_bytes());
    // The binary itself (size and mtime), so a rebuilt folio of the same version redoes
    // the work too: what changed may be how files are rendered.
    if let Some(meta) = std::env::current_exe().ok().and_then(|exe| std::fs::metadata(exe).ok()) {
        h.update(&meta.len().to_le_bytes());
        if let Some(modified) = time_bytes(meta.modified().ok()) {
            h.update(&modified);
        }
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

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;

    #[test]
    fn a_modification_time_is_hashed_as_its_nanoseconds_not_its_debug_text() {
        let second = UNIX_EPOCH + Duration::from_secs(1);
        assert_eq!(time_bytes(Some(second)), Some(1_000_000_000i128.to_le_bytes()));
        assert_eq!(
            time_bytes(Some(UNIX_EPOCH - Duration::from_nanos(5))),
            Some((-5i128).to_le_bytes())
        );
        assert_ne!(time_bytes(Some(second)), time_bytes(Some(second + Duration::from_nanos(1))));
        assert_eq!(time_bytes(None), None);
    }

    /// No hash or digest in src/ is fed a value's `Debug` text (which no one promises to
    /// keep stable): each hashes bytes it spells itself.
    #[test]
    fn no_hash_in_src_is_fed_debug_output() {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let hashers = ["xxh3", "Xxh3", "md5", "digest", "hash(", ".update("];
        let mut found = Vec::new();
        for path in files(&src).into_iter().filter(|p| p.extension().is_some_and(|e| e == "rs")) {
            let text = std::fs::read_to_string(&path).unwrap();
            // The statement around each `{:?}`-style format: from the line before to the next.
            let lines: Vec<&str> = text.lines().collect();
            for (n, line) in lines.iter().enumerate() {
                let debug = line.contains(":?}") && !line.trim_start().starts_with("//");
                let near = lines[n.saturating_sub(2)..(n + 2).min(lines.len())].join(" ");
                if debug && hashers.iter().any(|h| near.contains(h)) {
                    found.push(format!("{}:{}: {}", path.display(), n + 1, line.trim()));
                }
            }
        }
        assert!(found.is_empty(), "Debug text hashed:\n{}", found.join("\n"));
    }
}
