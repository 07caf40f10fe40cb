//! One file per command: glue between the CLI and the pipeline in `site`, no logic.

pub mod build;
pub mod check;
pub mod deploy;
pub mod serve;

use std::io::Write;

use indicatif::{ProgressBar, ProgressStyle};

use crate::site::Progress;

use crate::cli::{Cli, Command};
use crate::error::Failure;

/// Runs one parsed command line.
pub fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Build(args) => build::run(args),
        Command::Check(args) => check::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Deploy(args) => deploy::run(args),
    }
}

/// Writes one line to stdout. A failed write is an error the command returns, so a
/// closed pipe ends the command (quietly: see `Failure::is_broken_pipe`), never a panic.
pub fn say(line: std::fmt::Arguments) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_fmt(line)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(|e| Failure::Other(anyhow::Error::from(e).context("writing to stdout")))
}

/// The progress bar on a terminal (stderr): a spinner for a phase of unknown length, a
/// counted bar of `unit`s otherwise.
pub struct Bar {
    bar: ProgressBar,
    unit: &'static str,
}

impl Bar {
    pub fn new(unit: &'static str) -> Bar {
        Bar { bar: ProgressBar::new(0), unit }
    }
}

impl Drop for Bar {
    /// A command that fails midway leaves no half-drawn bar above its error.
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bar {
    fn start(&self, phase: &str, len: u64) {
        // A phase of unknown length (loading) spins; a counted one shows a bar.
        let template = if len == 0 {
            "{msg:>22} {spinner} {elapsed}".to_string()
        } else {
            format!("{{msg:>22}} [{{bar:30}}] {{pos}}/{{len}} {} {{elapsed}}", self.unit)
        };
        self.bar.set_style(ProgressStyle::with_template(&template).expect("a valid template"));
        if len == 0 {
            self.bar.enable_steady_tick(std::time::Duration::from_millis(120));
        } else {
            self.bar.disable_steady_tick();
        }
        self.bar.set_length(len);
        self.bar.set_position(0);
        self.bar.set_message(phase.to_string());
    }
    fn inc(&self) {
        self.bar.inc(1);
    }
    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
