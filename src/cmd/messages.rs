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

/// `value` as JSON text (pretty, with a final newline) that is as safe in a CI log as a
/// line of text: a string's line breaks and controls below U+0020 are JSON escapes
/// already, and the other characters [`diag::line`] escapes (NEL, U+2028, U+2029, the
/// C1 controls, the direction marks) are written `\uXXXX`, as is a `#` that would make
/// `##[` (`#\u0023[`). Every JSON reader reads the same strings back.
pub fn json(value: &serde_json::Value) -> String {
    use std::fmt::Write;
    let text = serde_json::to_string_pretty(value).expect("plain JSON serializes");
    // Outside a string, JSON text holds no `#`, and no control character but the newlines
    // between its lines: what is escaped here is inside a string, where `\uXXXX` is the
    // same character.
    let mut out = String::with_capacity(text.len() + 1);
    for c in text.chars() {
        if c == '\n' || diag::shows_as_is(c) {
            out.push(c);
        } else {
            let _ = write!(out, "\\u{:04x}", u32::from(c));
        }
    }
    if out.contains("##[") {
        out = out.replace("##[", "#\\u0023[");
    }
    out.push('\n');
    out
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
        let value = serde_json::json!({
            "message": "a ##[error]b\n::warning::c\u{85}::error::d\u{2028}\u{2029}\u{202e}\u{1b}",
            "n": 1,
        });
        let text = json(&value);
        assert!(!text.contains("##["), "{text}");
        assert!(!text.contains(|c: char| c != '\n' && !diag::shows_as_is(c)), "{text}");
        assert!(text.contains(r"\u0085::error::d\u2028\u2029\u202e\u001b"), "{text}");
        assert!(text.lines().all(|l| !l.trim_start().starts_with("::")), "{text}");
        assert_eq!(serde_json::from_str::<serde_json::Value>(&text).unwrap(), value);
    }
}
