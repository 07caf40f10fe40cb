//! Everything the commands print, on both streams (ripgrep's messages module): results
//! and summaries to stdout ([`say`], [`print`]), where a failed write, a closed pipe too,
//! is the command's error; warnings, notes and errors to stderr ([`warn`], [`note`],
//! [`eprint`]), where a failed write is dropped (there is nowhere left to say it).

use std::io::Write;

use super::exit::Exit;
use folio::error::Failure;

/// Runs `write` on stdout; a failed write (a closed pipe too) is the command's error.
pub fn print(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(|e| Failure::Other(anyhow::Error::from(e).context("writing to stdout")))
}

/// Writes one line to stdout. A failed write is an error the command returns, so a
/// closed pipe ends the command (quietly: see `Failure::is_broken_pipe`), never a panic.
pub fn say(line: std::fmt::Arguments) -> Result<(), Failure> {
    print(|out| out.write_fmt(line).and_then(|()| out.write_all(b"\n")))
}

/// Writes one line to stderr, whole (one locked write), ignoring failure. What a message
/// repeats of a file, a store or a flag may hold escapes: they are shown escaped
/// (`diag::printable`), never sent to the terminal.
pub fn eprint(line: &str) {
    let line = folio::diag::printable(line);
    let mut err = std::io::stderr().lock();
    let _ = err.write_all(line.as_bytes()).and_then(|()| err.write_all(b"\n"));
}

/// `warning: …` on stderr.
pub fn warn(what: &str) {
    eprint(&format!("warning: {what}"));
}

/// `folio: …` on stderr: what a command is doing or waiting for.
pub fn note(what: &str) {
    eprint(&format!("folio: {what}"));
}

/// A failed command as the binary reports it: the details (every problem), the error,
/// and its causes, each on its own line of stderr.
pub fn failure(failure: &Failure) {
    for line in failure.details() {
        eprint(&line);
    }
    eprint(&format!("error: {}", super::exit::message(failure)));
    for cause in failure.causes() {
        eprint(&format!("caused by: {cause}"));
    }
}
