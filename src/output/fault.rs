//! Fault injection for tests: `FOLIO_FAULT=write:N` (or `rename:N`, `upload:N`) makes the
//! Nth file write (or rename, or `folio deploy` upload) of this process fail with an I/O
//! error, so tests can prove that a failure midway leaves the previous output (or the
//! store) usable. Tests and CI run as root, which
//! ignores file permissions, so permissions cannot stand in for this.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

#[derive(Debug, Default)]
pub struct Faults {
    write_at: Option<u64>,
    rename_at: Option<u64>,
    upload_at: Option<u64>,
    writes: AtomicU64,
    renames: AtomicU64,
    uploads: AtomicU64,
}

/// This process's faults, read from `FOLIO_FAULT` once: the Nth operation counts every
/// tree and every phase of the process, so a fault fires once, and a build that finishes
/// an interrupted switch is not failed again by the same spec.
pub fn process() -> &'static Faults {
    static FAULTS: std::sync::OnceLock<Faults> = std::sync::OnceLock::new();
    FAULTS.get_or_init(Faults::from_env)
}

impl Faults {
    /// Reads `FOLIO_FAULT`; anything unparsable means no fault.
    pub fn from_env() -> Faults {
        let mut f = Faults::default();
        if let Ok(spec) = std::env::var("FOLIO_FAULT") {
            for part in spec.split(',') {
                match part.split_once(':').map(|(k, n)| (k, n.parse::<u64>())) {
                    Some(("write", Ok(n))) => f.write_at = Some(n),
                    Some(("rename", Ok(n))) => f.rename_at = Some(n),
                    Some(("upload", Ok(n))) => f.upload_at = Some(n),
                    _ => {}
                }
            }
        }
        f
    }

    fn hit(counter: &AtomicU64, at: Option<u64>, what: &str) -> io::Result<()> {
        let n = counter.fetch_add(1, Ordering::Relaxed) + 1;
        if at == Some(n) {
            return Err(io::Error::other(format!("injected fault: {what} #{n} (FOLIO_FAULT)")));
        }
        Ok(())
    }

    pub fn before_write(&self) -> io::Result<()> {
        Self::hit(&self.writes, self.write_at, "write")
    }

    pub fn before_rename(&self) -> io::Result<()> {
        Self::hit(&self.renames, self.rename_at, "rename")
    }

    pub fn before_upload(&self) -> io::Result<()> {
        Self::hit(&self.uploads, self.upload_at, "upload")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fails_exactly_the_nth_operation() {
        let f = Faults { write_at: Some(2), ..Faults::default() };
        assert!(f.before_write().is_ok());
        assert!(f.before_write().is_err());
        assert!(f.before_write().is_ok());
        assert!(f.before_rename().is_ok());
    }
}
