//! The input oracle (tests/oracle/README.md): seeded projects in the shapes users' tools
//! write, half of them damaged, read by Python's own csv and json; folio must publish what
//! they read, or refuse the file naming a problem the reference found. Seeds 0 to 299 and
//! the regression seeds; `scripts/oracle.sh N` runs more against a release build.

use std::process::Command;

use crate::harness::{need, repo};

#[test]
fn folio_publishes_what_python_reads_or_names_the_problem() {
    if !need("python3") {
        return;
    }
    let oracle = repo().join("tests/oracle");
    let out = Command::new("python3")
        .arg(oracle.join("oracle.py"))
        .args(["--folio", env!("CARGO_BIN_EXE_folio"), "--seeds", "0:300", "--regressions"])
        .arg(oracle.join("regressions.txt"))
        .output()
        .expect("running python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "the input oracle found failures:\n{}{stderr}", clipped(&stdout));
}

/// The report's head and its summary, when the whole would drown the test's output.
fn clipped(report: &str) -> String {
    const HEAD: usize = 40_000;
    if report.len() <= HEAD + 4_000 {
        return report.to_string();
    }
    let head = report.char_indices().take_while(|(i, _)| *i < HEAD).last().map_or(0, |(i, _)| i);
    let summary = report.find("failures by class").unwrap_or(head);
    format!("{}\n[... cut ...]\n{}", &report[..head], &report[summary.max(head)..])
}
