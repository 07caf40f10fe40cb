//! Where a build's time goes: `cargo run --release --example phases -- [folio.toml]`.
//!
//! Runs one `folio build` of the project in the working directory (or the config given)
//! and prints the seconds from the start of each phase to the next: before loading (the
//! fingerprint and opening the output folder), load (read, parse, validate, sort), the
//! render+write phase (pages rendered and staged), and the commit (switch into place,
//! removals, manifest). For profiling; `scripts/bench.sh` measures.

use std::sync::Mutex;
use std::time::Instant;

use folio::config::{Overrides, Project};
use folio::site::{self, Progress};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

struct Phases {
    start: Instant,
    marks: Mutex<Vec<(String, Instant, Memory)>>,
}

/// The process's resident and peak resident megabytes (Linux; zero elsewhere).
#[derive(Clone, Copy, Default)]
struct Memory {
    rss: u64,
    peak: u64,
}

fn memory() -> Memory {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb / 1024)
    };
    Memory { rss: field("VmRSS:"), peak: field("VmHWM:") }
}

impl Progress for Phases {
    fn start(&self, phase: &str, _len: u64) {
        self.marks.lock().unwrap().push((phase.to_string(), Instant::now(), memory()));
    }
    fn finish(&self) {
        self.marks.lock().unwrap().push(("commit".to_string(), Instant::now(), memory()));
    }
}

fn main() {
    let config = std::env::args().nth(1).map(std::path::PathBuf::from);
    let project = Project::discover(config.as_deref(), &Overrides::default())
        .unwrap_or_else(|e| panic!("config: {e}"));
    let phases = Phases { start: Instant::now(), marks: Mutex::new(Vec::new()) };
    let built = site::build(&project, &phases).unwrap_or_else(|e| panic!("build: {e}"));
    let end = Instant::now();
    let mut marks = vec![("open".to_string(), phases.start, Memory::default())];
    marks.extend(phases.marks.into_inner().unwrap());
    marks.push(("end".to_string(), end, memory()));
    for pair in marks.windows(2) {
        let (name, from, _) = &pair[0];
        let (_, to, at_end) = &pair[1];
        println!(
            "{name:<24} {:>7.3} s   at its end: rss {:>5} MB, peak so far {:>5} MB",
            (*to - *from).as_secs_f64(),
            at_end.rss,
            at_end.peak
        );
    }
    println!(
        "{:<24} {:>7.3} s ({} files written)",
        "total",
        (end - phases.start).as_secs_f64(),
        built.report.written
    );
}
