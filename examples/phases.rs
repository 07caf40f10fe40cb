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
    marks: Mutex<Vec<(String, Instant)>>,
}

impl Progress for Phases {
    fn start(&self, phase: &str, _len: u64) {
        self.marks.lock().unwrap().push((phase.to_string(), Instant::now()));
    }
    fn finish(&self) {
        self.marks.lock().unwrap().push(("commit".to_string(), Instant::now()));
    }
}

fn main() {
    let config = std::env::args().nth(1).map(std::path::PathBuf::from);
    let project = Project::discover(config.as_deref(), &Overrides::default())
        .unwrap_or_else(|e| panic!("config: {e}"));
    let phases = Phases { start: Instant::now(), marks: Mutex::new(Vec::new()) };
    let built = site::build(&project, &phases).unwrap_or_else(|e| panic!("build: {e}"));
    let end = Instant::now();
    let mut marks = vec![("open".to_string(), phases.start)];
    marks.extend(phases.marks.into_inner().unwrap());
    marks.push(("end".to_string(), end));
    for pair in marks.windows(2) {
        println!("{:<24} {:>7.3} s", pair[0].0, (pair[1].1 - pair[0].1).as_secs_f64());
    }
    println!(
        "{:<24} {:>7.3} s ({} files written)",
        "total",
        (end - phases.start).as_secs_f64(),
        built.report.written
    );
}
