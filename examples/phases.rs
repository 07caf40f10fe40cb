//! Where a build's time goes: `cargo run --release --example phases -- [folio.toml]`.
//!
//! Runs one `folio build` of the project in the working directory (or the config given)
//! and prints the seconds from the start of each phase to the next, with the CPU seconds
//! spent in it: before loading (the fingerprint and opening the output folder), load
//! (read, parse, validate, sort), the render+write phase (pages rendered and staged), and
//! the commit (switch into place, removals, manifest). A phase's CPU seconds against twice
//! its wall time (two cores) say how much of it a core waited. For profiling;
//! `scripts/bench.sh` measures.

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
    /// CPU seconds the process has used so far, user and system (Linux; zero elsewhere).
    cpu: f64,
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
    // utime and stime, fields 14 and 15 of /proc/self/stat, in clock ticks (100 a second
    // on Linux); the command name (field 2) may hold spaces, so count from its `)`.
    let stat = std::fs::read_to_string("/proc/self/stat").unwrap_or_default();
    let after = stat.rsplit_once(')').map_or("", |(_, rest)| rest);
    let ticks: u64 =
        after.split_whitespace().skip(11).take(2).filter_map(|t| t.parse::<u64>().ok()).sum();
    Memory { rss: field("VmRSS:"), peak: field("VmHWM:"), cpu: ticks as f64 / 100.0 }
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
        let (name, from, at_start) = &pair[0];
        let (_, to, at_end) = &pair[1];
        println!(
            "{name:<24} {:>7.3} s  cpu {:>6.2} s   at its end: rss {:>5} MB, peak so far {:>5} MB",
            (*to - *from).as_secs_f64(),
            at_end.cpu - at_start.cpu,
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
