//! `folio` with its fault points built in, for the integration tests only: this binary
//! exists when the cargo feature `fault-injection` is on, which `cargo test` turns on and
//! `cargo build` and `cargo install` do not. A binary of its own (not `folio` built twice)
//! because cargo keeps one file per binary name: after a plain `cargo build`, `folio`
//! would stay the build without the feature that the tests cannot fault. Its modules are
//! `folio`'s own files.

#[path = "../cli.rs"]
mod cli;
#[path = "../cmd/mod.rs"]
mod cmd;

fn main() -> std::process::ExitCode {
    cmd::main()
}
