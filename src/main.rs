use std::process::ExitCode;

use clap::Parser;

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

fn main() -> ExitCode {
    let cli = folio::cli::Cli::parse();
    match folio::cmd::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // `folio build | head -0`: the reader is gone, so is the point of going on (ripgrep).
        Err(failure) if failure.is_broken_pipe() => ExitCode::SUCCESS,
        Err(failure) => {
            folio::cmd::messages::failure(&failure);
            ExitCode::from(failure.exit_code())
        }
    }
}
