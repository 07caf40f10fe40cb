//! One file per command: glue between the CLI and the pipeline in `site`, no logic.

pub mod build;
pub mod check;
pub mod serve;

use std::io::Write;

use crate::cli::{Cli, Command};
use crate::error::Failure;

/// Runs one parsed command line.
pub fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Build(args) => build::run(args),
        Command::Check(args) => check::run(args),
        Command::Serve(args) => serve::run(args),
    }
}

/// Writes one line to stdout. A failed write is an error the command returns, so a
/// closed pipe ends the command (quietly: see `Failure::is_broken_pipe`), never a panic.
pub fn say(line: std::fmt::Arguments) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_fmt(line)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(|e| Failure::Io(anyhow::Error::from(e).context("writing to stdout")))
}
