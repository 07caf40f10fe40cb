//! Everything the commands print, on both streams (ripgrep's messages module): results
//! and summaries to stdout ([`say`], [`annotate`], [`json`], [`print`]), where a failed
//! write, a closed pipe too, is the command's error; warnings, notes and errors to stderr
//! ([`warn`], [`note`], [`eprint`]), where a failed write is dropped (there is nowhere
//! left to say it). Every line of text goes through [`folio::diag::line`], the one escape
//! (docs/cli.md): a message is one line, and what it repeats cannot make it two, nor a CI
//! runner's command.

use std::io::Write;

use super::exit::Exit;
use folio::diag::{self, Opening};
use folio::error::Failure;

/// Runs `write` on stdout; a failed write (a closed pipe too) is the command's error.
/// Only for what is no line of text built from values: folio's own fixed text (a man
/// page, completions) and JSON made by [`json`].
pub fn print(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(|e| Failure::Other(anyhow::Error::from(e).context("writing to stdout")))
}

/// Writes one line to stdout, escaped ([`diag::line`]). A failed write is an error the
/// command returns, so a closed pipe ends the command (quietly: see
/// `Failure::is_broken_pipe`), never a panic.
pub fn say(line: std::fmt::Arguments) -> Result<(), Failure> {
    let line = diag::line(&line.to_string(), Opening::Text);
    print(|out| out.write_all(line.as_bytes()).and_then(|()| out.write_all(b"\n")))
}

/// Writes one of folio's own workflow commands (`::error file=…::…`) to stdout: escaped
/// as any line, but for the `::` it opens with.
pub fn annotate(command: &str) -> Result<(), Failure> {
    let line = diag::line(command, Opening::Command);
    print(|out| out.write_all(line.as_bytes()).and_then(|()| out.write_all(b"\n")))
}

/// `value` as JSON text (pretty, with a final newline): a string's line breaks are JSON
/// escapes already, and a `#` that would make `##[` is written `\u0023`, which every JSON
/// reader reads back as `#`, so no line of it is a runner's command.
pub fn json(value: &serde_json::Value) -> String {
    let mut text = serde_json::to_string_pretty(value).expect("plain JSON serializes");
    // In JSON text a `#` is only ever inside a string, where `\u0023` is the same string.
    if text.contains("##[") {
        text = text.replace("##[", "#\\u0023[");
    }
    text.push('\n');
    text
}

/// Writes one line to stderr, whole (one locked write), escaped ([`diag::line`]),
/// ignoring failure.
pub fn eprint(line: &str) {
    let line = diag::line(line, Opening::Text);
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

/// clap's answer to a command line it did not run: help and the version on stdout as
/// clap prints them (folio's own text), a usage error as clap prints it on a terminal
/// (in colour), else through [`eprint`], line by line: it repeats the arguments, which a
/// script may have made of anything.
pub fn usage(e: &clap::Error) -> std::process::ExitCode {
    use std::io::IsTerminal;
    if !e.use_stderr() || std::io::stderr().is_terminal() {
        let _ = e.print();
    } else {
        for line in e.render().to_string().lines() {
            eprint(line);
        }
    }
    std::process::ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_text_holds_no_legacy_command_and_reads_back_the_same() {
        let value = serde_json::json!({"message": "a ##[error]b\n::warning::c", "n": 1});
        let text = json(&value);
        assert!(!text.contains("##["), "{text}");
        assert!(text.lines().all(|l| !l.trim_start().starts_with("::")), "{text}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
    }
}
