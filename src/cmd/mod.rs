//! One file per command: glue between the CLI and the pipeline in `site`, no logic.

pub mod build;
pub mod check;
pub mod serve;

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
