//! The `folio` binary: its command line (`cli.rs`, clap) and its commands (`cmd/`, the
//! only code that prints and the only code that knows exit codes), over the library.

mod cli;
mod cmd;

fn main() -> std::process::ExitCode {
    cmd::main()
}
