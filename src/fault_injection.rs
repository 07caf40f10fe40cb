//! The fault hooks: where tests make a build, a deploy or the preview fail, stop dead or
//! wait at a step they choose, from `FOLIO_FAULT` (its grammar: [`Faults::parse`]), read
//! only by a build with the cargo feature `fault-injection`. The writer (`output/`), the
//! deploy (`deploy/`) and the preview (`cmd/serve.rs`) ask [`process`] before a step;
//! nothing else reads them.

use std::io;
use std::sync::atomic::{AtomicU64, Ordering};

/// A step faults can be put before.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Step {
    Write,
    Rename,
    Upload,
    Record,
    Delete,
    /// `folio serve` starting to answer, its two lines printed.
    Serve,
}

const STEPS: [(Step, &str); 6] = [
    (Step::Write, "write"),
    (Step::Rename, "rename"),
    (Step::Upload, "upload"),
    (Step::Record, "record"),
    (Step::Delete, "delete"),
    (Step::Serve, "serve"),
];

/// What a fault does at its step. Written by hand: the `fail` crate's fail points return,
/// panic, sleep or pause, but cannot end the process as `kill -9` would or hold a step
/// until a file appears, which the kill and race tests need. An injected failure rather
/// than a refused permission: tests and CI run as root, which ignores permissions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum What {
    Fail,
    Kill,
    Wait,
}

#[derive(Debug, Default)]
pub struct Faults {
    /// (step, which one, what happens)
    at: Vec<(Step, u64, What)>,
    /// `lease:SECS`: the lifetime of `folio deploy`'s lease on a store, shortened so a
    /// test of a killed deploy's lease need not wait 30 s.
    pub lease_secs: Option<u64>,
    /// `serve-head:SECS`: the preview's time for a request head (`serve::HEAD`).
    pub serve_head_secs: Option<u64>,
    /// `serve-stall:SECS`: how long an answer may move no byte (`serve::STALL`).
    pub serve_stall_secs: Option<u64>,
    counts: [AtomicU64; STEPS.len()],
}

/// This process's faults, read from `FOLIO_FAULT` once: the Nth step counts every tree
/// and every phase of the process, so a fault fires once, and a build that finishes an
/// interrupted switch is not failed again by the same spec.
pub fn process() -> &'static Faults {
    static FAULTS: std::sync::OnceLock<Faults> = std::sync::OnceLock::new();
    FAULTS.get_or_init(|| {
        Faults::from_env(cfg!(feature = "fault-injection"), || std::env::var("FOLIO_FAULT").ok())
    })
}

impl Faults {
    /// The faults of `spec` (`FOLIO_FAULT`'s value) when fault injection is built in;
    /// else none, and the variable is not even read. The tests turn the feature on (a
    /// dev-dependency of the crate on itself), `cargo build` and `cargo install` do not, so
    /// a shipped binary has no hook a stray environment variable could pull.
    fn from_env(built_in: bool, spec: impl FnOnce() -> Option<String>) -> Faults {
        if !built_in {
            return Faults::default();
        }
        Faults::parse(&spec().unwrap_or_default())
    }
}

impl Faults {
    /// Parses a spec, a comma-separated list; anything unparsable means no fault. STEP is
    /// `write` or `rename` (a file of a build), `upload`, `record` (a write of `folio
    /// deploy`'s record), `delete` (the start of its deletes) or `serve` (`folio serve`
    /// about to answer, its lines printed):
    ///
    /// - `STEP:N` fails the Nth such step of this process with an I/O error, so tests can
    ///   prove that a failure midway leaves the previous output (or the store) usable;
    /// - `kill-STEP:N` ends the process on the spot before the Nth step (an abort: no
    ///   destructor runs, nothing is flushed or cleaned up), as `kill -9` would there;
    /// - `wait-STEP:N` holds the Nth step until the file named by `FOLIO_FAULT_GATE` exists
    ///   (writing `{gate}.reached` when it starts waiting), so a test can run another
    ///   command while this one is midway, in an order it chooses.
    ///
    /// `lease:SECS` shortens the lifetime of `folio deploy`'s lease on a store
    /// (`deploy/lease.rs`); `serve-head:SECS` and `serve-stall:SECS` the preview's bounds
    /// on a connection (`serve/listen.rs`), so a test of them need not wait 10 s and 30 s.
    pub fn parse(spec: &str) -> Faults {
        let mut f = Faults::default();
        for part in spec.split(',') {
            let Some((kind, n)) = part.split_once(':') else { continue };
            let Ok(n) = n.parse::<u64>() else { continue };
            match kind {
                "lease" => f.lease_secs = Some(n),
                "serve-head" => f.serve_head_secs = Some(n),
                "serve-stall" => f.serve_stall_secs = Some(n),
                _ => {
                    let (what, name) =
                        match (kind.strip_prefix("kill-"), kind.strip_prefix("wait-")) {
                            (Some(name), _) => (What::Kill, name),
                            (_, Some(name)) => (What::Wait, name),
                            _ => (What::Fail, kind),
                        };
                    if let Some(&(step, _)) = STEPS.iter().find(|(_, s)| *s == name) {
                        f.at.push((step, n, what));
                    }
                }
            }
        }
        f
    }

    /// Called before each `step`: fails, ends the process or waits as the spec says.
    pub fn before(&self, step: Step) -> io::Result<()> {
        if self.at.is_empty() {
            return Ok(());
        }
        let index = STEPS.iter().position(|(s, _)| *s == step).expect("every step is listed");
        let n = self.counts[index].fetch_add(1, Ordering::Relaxed) + 1;
        for &(_, _, what) in self.at.iter().filter(|(s, at, _)| *s == step && *at == n) {
            let name = STEPS[index].1;
            match what {
                What::Fail => {
                    return Err(io::Error::other(format!(
                        "injected fault: {name} #{n} (FOLIO_FAULT)"
                    )));
                }
                What::Kill => std::process::abort(),
                What::Wait => {
                    let gate = std::env::var_os("FOLIO_FAULT_GATE").unwrap_or_default();
                    let mut reached = gate.clone();
                    reached.push(".reached");
                    let _ = std::fs::write(&reached, name);
                    while !std::path::Path::new(&gate).exists() {
                        std::thread::sleep(std::time::Duration::from_millis(10));
                    }
                }
            }
        }
        Ok(())
    }

    pub fn before_write(&self) -> io::Result<()> {
        self.before(Step::Write)
    }

    pub fn before_rename(&self) -> io::Result<()> {
        self.before(Step::Rename)
    }

    pub fn before_upload(&self) -> io::Result<()> {
        self.before(Step::Upload)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fails_exactly_the_nth_operation() {
        let f = Faults::parse("write:2,bogus:1,rename:x,upload:3");
        assert!(f.before_write().is_ok());
        assert!(f.before_write().is_err());
        assert!(f.before_write().is_ok());
        assert!(f.before_rename().is_ok());
        assert!(f.before(Step::Upload).is_ok() && f.before(Step::Upload).is_ok());
        assert!(f.before(Step::Upload).is_err());
        assert_eq!(f.at.len(), 2, "what does not parse is no fault");
    }

    #[test]
    fn only_a_build_with_the_feature_reads_the_environment() {
        let spec = || Some("write:1,lease:5,serve-head:1,serve-stall:2".to_string());
        let without = Faults::from_env(false, || panic!("the variable is not read"));
        assert!(without.at.is_empty() && without.lease_secs.is_none());
        let with = Faults::from_env(true, spec);
        assert!(with.before_write().is_err());
        assert_eq!(with.lease_secs, Some(5));
        assert_eq!((with.serve_head_secs, with.serve_stall_secs), (Some(1), Some(2)));
        assert_eq!(with.at.len(), 1, "a bound is no step");
        // The shipped build leaves it out: no default feature turns it on.
        let manifest: toml::Table =
            toml::from_str(include_str!("../Cargo.toml")).expect("Cargo.toml parses");
        let features = manifest["features"].as_table().expect("a [features] table");
        assert!(features.contains_key("fault-injection"));
        let default =
            features.get("default").and_then(|d| d.as_array()).cloned().unwrap_or_default();
        assert!(!default.iter().any(|f| f.as_str() == Some("fault-injection")), "{default:?}");
    }
}
