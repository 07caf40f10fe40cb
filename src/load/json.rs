//! JSON (`.json`: one array of objects) and JSON Lines (`.jsonl`, `.ndjson`: one object a
//! line). Elements are kept as slices of the file text with the line of their opening
//! `{`; they are parsed into objects later, in parallel, by the caller.

use std::io::{self, BufRead, Read};

use super::Raw;
use crate::diag::Problem;

/// serde_json's message without its trailing " at line L column C".
pub fn message(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// JSON's whitespace: space, tab, line feed, carriage return (not form feed, which
/// `u8::is_ascii_whitespace` also takes, and serde_json refuses).
fn is_json_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

fn newlines(bytes: &[u8]) -> u64 {
    bytes.iter().filter(|&&b| b == b'\n').count() as u64
}

/// The length of the string at the start of `b` (its opening `"` included), found with
/// `memchr` over the quotes and backslashes: most of a record's bytes are in strings.
fn string_len(b: &[u8]) -> Option<usize> {
    let mut i = 1;
    loop {
        i += memchr::memchr2(b'"', b'\\', b.get(i..)?)?;
        if b[i] == b'"' {
            return Some(i + 1);
        }
        i += 2; // a backslash and the character it escapes
    }
}

/// The length of the JSON value at the start of `b` (an object, array, string or
/// scalar), found by matching brackets outside strings; `None` when `b` ends first.
/// Only the extent is found here; serde_json validates the value itself.
fn value_len(b: &[u8]) -> Option<usize> {
    match b.first()? {
        b'{' | b'[' => {
            let mut depth = 0usize;
            let mut i = 0;
            while i < b.len() {
                match b[i] {
                    b'"' => {
                        i += string_len(&b[i..])?;
                        continue;
                    }
                    b'{' | b'[' => depth += 1,
                    b'}' | b']' => {
                        depth -= 1;
                        if depth == 0 {
                            return Some(i + 1);
                        }
                    }
                    _ => {}
                }
                i += 1;
            }
            None
        }
        b'"' => string_len(b),
        _ => b.iter().position(|c| matches!(c, b',' | b']' | b' ' | b'\t' | b'\r' | b'\n')),
    }
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// Before the opening `[`.
    Start,
    /// After `[`: an element or `]`.
    First,
    /// After `,`: an element.
    Element,
    /// After an element: `,` or `]`.
    After,
    /// After the closing `]`: only whitespace.
    End,
}

/// Where the splitter of a `.json` file stands between chunks.
struct Splitter {
    line: u64,
    state: State,
    eof: bool,
    bom_checked: bool,
    /// The last `,` between elements: its line and (when this chunk shows where its line
    /// begins) its column, counted from 1.
    comma: (u64, Option<usize>),
    /// No byte of the file has left the buffer yet (the first line starts at 0).
    first_chunk: bool,
}

/// One chunk split: the complete elements found (line, start, end in the buffer) and
/// where the unsplit rest of the buffer begins; or the file's problem, which ends it.
enum Split {
    Elements(Vec<(u64, usize, usize)>, usize),
    Fail(Vec<Problem>),
}

impl Splitter {
    fn fail(&self, message: &str) -> Split {
        Split::Fail(vec![Problem::unplaced(Some(self.line), message.to_string())])
    }

    /// Reads about `chunk` more bytes onto the end of `buf` and splits off the complete
    /// elements in it.
    fn step(
        &mut self,
        reader: &mut impl Read,
        buf: &mut Vec<u8>,
        chunk: usize,
    ) -> io::Result<Split> {
        if !self.eof {
            let n = reader.by_ref().take(chunk as u64).read_to_end(buf)?;
            self.eof = n == 0;
        }
        let mut pos = 0;
        if !self.bom_checked && (buf.len() >= 3 || self.eof) {
            if buf.starts_with(b"\xEF\xBB\xBF") {
                pos = 3;
            }
            self.bom_checked = true;
        }
        let mut elements = Vec::new();
        if !self.bom_checked {
            return Ok(Split::Elements(elements, 0)); // too few bytes yet to tell
        }
        loop {
            while pos < buf.len() && is_json_space(buf[pos]) {
                self.line += u64::from(buf[pos] == b'\n');
                pos += 1;
            }
            if pos == buf.len() {
                break;
            }
            match self.state {
                State::Start if buf[pos] == b'[' => {
                    pos += 1;
                    self.state = State::First;
                }
                State::Start => return Ok(self.fail("expected an array of objects")),
                State::First if buf[pos] == b']' => {
                    pos += 1;
                    self.state = State::End;
                }
                State::Element if buf[pos] == b']' => {
                    let (line, column) = self.comma;
                    let at = column.map(|c| format!(" (column {c})")).unwrap_or_default();
                    let message =
                        format!("invalid JSON: a trailing comma after the last element{at}");
                    return Ok(Split::Fail(vec![Problem::unplaced(Some(line), message)]));
                }
                State::First | State::Element => match value_len(&buf[pos..]) {
                    Some(len) => {
                        elements.push((self.line, pos, pos + len));
                        self.line += newlines(&buf[pos..pos + len]);
                        pos += len;
                        self.state = State::After;
                    }
                    None if self.eof => {
                        return Ok(self.fail("invalid JSON: the file ends inside this value"));
                    }
                    None => break,
                },
                State::After if buf[pos] == b',' => {
                    let line_start = match buf[..pos].iter().rposition(|&b| b == b'\n') {
                        Some(nl) => Some(nl + 1),
                        None if self.first_chunk => {
                            Some(if buf.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 })
                        }
                        None => None,
                    };
                    self.comma = (self.line, line_start.map(|s| pos - s + 1));
                    pos += 1;
                    self.state = State::Element;
                }
                State::After if buf[pos] == b']' => {
                    pos += 1;
                    self.state = State::End;
                }
                State::After => {
                    return Ok(self.fail("invalid JSON: expected `,` or `]` after an element"));
                }
                State::End => {
                    return Ok(self.fail("invalid JSON: trailing characters after the array"));
                }
            }
        }
        Ok(Split::Elements(elements, pos))
    }

    /// The file's problem once it has been read to the end.
    fn finish(&self) -> Vec<Problem> {
        let message = match self.state {
            State::End => return Vec::new(),
            State::Start => "expected an array of objects",
            _ => "invalid JSON: the file ends before the closing `]`",
        };
        vec![Problem::unplaced(Some(self.line), message.to_string())]
    }
}

/// Streams a `.json` file (one array of objects) in chunks of about `chunk` bytes: each
/// batch of complete elements goes to `sink` with the line of its opening brace, so the
/// file is never held whole in memory. Structural problems end the file with an issue
/// (elements split off in the same read as the problem are not handed out).
///
/// Reading and splitting the next chunk runs while `sink` works on this one (`rayon::join`,
/// two buffers): the split is a serial scan, the sink parses in parallel.
pub fn stream_array(
    mut reader: impl Read + Send,
    chunk: usize,
    sink: &mut (dyn FnMut(Vec<Raw<'_>>) + Send),
) -> io::Result<Vec<Problem>> {
    let mut splitter = Splitter {
        line: 1,
        state: State::Start,
        eof: false,
        bom_checked: false,
        comma: (1, None),
        first_chunk: true,
    };
    let mut buf: Vec<u8> = Vec::with_capacity(chunk);
    let mut next: Vec<u8> = Vec::with_capacity(chunk);
    let mut split = splitter.step(&mut reader, &mut buf, chunk)?;
    loop {
        let (elements, pos) = match split {
            Split::Elements(elements, pos) => (elements, pos),
            Split::Fail(problems) => return Ok(problems),
        };
        // UTF-8 is checked with the parsing, in parallel (`Raw::Text`).
        let raws: Vec<Raw<'_>> = elements
            .into_iter()
            .map(|(line, start, end)| Raw::Text { line, text: &buf[start..end] })
            .collect();
        if splitter.eof {
            if !raws.is_empty() {
                sink(raws);
            }
            return Ok(splitter.finish());
        }
        next.clear();
        next.extend_from_slice(&buf[pos..]);
        splitter.first_chunk &= pos == 0;
        let (_, following) = rayon::join(
            || {
                if !raws.is_empty() {
                    sink(raws);
                }
            },
            || splitter.step(&mut reader, &mut next, chunk),
        );
        split = following?;
        std::mem::swap(&mut buf, &mut next);
    }
}

/// Streams a `.jsonl` file: one object a line, blank lines skipped, batches of about
/// `chunk` bytes to `sink`. Lines are handed out as bytes; a line that is not UTF-8 is a
/// problem of that line only (found with the parsing).
pub fn stream_lines(
    reader: impl Read,
    chunk: usize,
    sink: &mut dyn FnMut(Vec<Raw<'_>>),
) -> io::Result<Vec<Problem>> {
    let mut reader = io::BufReader::with_capacity(1 << 16, reader);
    let mut buf: Vec<u8> = Vec::with_capacity(chunk + (1 << 16));
    // (line number, start, end) of the lines in `buf`, line ends stripped.
    let mut lines: Vec<(u64, usize, usize)> = Vec::new();
    let mut number = 0u64;
    loop {
        let start = buf.len();
        let n = reader.read_until(b'\n', &mut buf)?;
        if n > 0 {
            number += 1;
            let mut from = start;
            if number == 1 && buf[start..].starts_with(b"\xEF\xBB\xBF") {
                from += 3;
            }
            let mut to = buf.len();
            while to > from && matches!(buf[to - 1], b'\n' | b'\r') {
                to -= 1;
            }
            if buf[from..to].iter().all(|&b| is_json_space(b)) {
                buf.truncate(start);
            } else {
                lines.push((number, from, to));
            }
        }
        if (n == 0 || buf.len() >= chunk) && !lines.is_empty() {
            sink(
                lines
                    .iter()
                    .map(|&(line, from, to)| Raw::Text { line, text: &buf[from..to] })
                    .collect(),
            );
            lines.clear();
            buf.clear();
        }
        if n == 0 {
            return Ok(Vec::new());
        }
    }
}

#[cfg(test)]
mod tests;
