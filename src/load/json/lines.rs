//! JSON Lines (`.jsonl`, `.ndjson`): one object a line, each line bounded.

use std::io::{self, BufRead, Read};

use crate::diag::Problem;
use crate::load::bounded::{MAX_RECORD, MAX_RECORD_WORDS};
use crate::load::raw::Raw;

/// Elements handed out in one batch at most: a file of tiny or empty elements (`[,,,,…]`,
/// `[1,1,1,…]`) would otherwise make millions of them, each parsed and each a problem,
/// from one chunk.
pub const MAX_ELEMENTS: usize = 1 << 16;

/// JSON's whitespace: space, tab, line feed, carriage return (not form feed, which
/// `u8::is_ascii_whitespace` also takes, and serde_json refuses).
pub(super) fn is_json_space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
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
        let Some(n) = read_line_within(&mut reader, &mut buf, MAX_RECORD)? else {
            let message = format!(
                "invalid JSON: this line goes on for more than {MAX_RECORD_WORDS} without ending, and a record is at most {MAX_RECORD_WORDS}; the file is read no further"
            );
            buf.truncate(start);
            if !lines.is_empty() {
                sink(texts(&lines, &buf));
            }
            return Ok(vec![Problem::unplaced(Some(number + 1), message)]);
        };
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
        if (n == 0 || buf.len() >= chunk || lines.len() >= MAX_ELEMENTS) && !lines.is_empty() {
            sink(texts(&lines, &buf));
            lines.clear();
            buf.clear();
        }
        if n == 0 {
            return Ok(Vec::new());
        }
    }
}

/// The lines `(line number, start, end)` of `buf`, as records to parse.
fn texts<'b>(lines: &[(u64, usize, usize)], buf: &'b [u8]) -> Vec<Raw<'b>> {
    let text = |&(line, from, to): &(u64, usize, usize)| Raw::Text {
        line,
        column: 1,
        index: None,
        text: &buf[from..to],
    };
    lines.iter().map(text).collect()
}

/// Reads one line (up to its `\n`, or the end of the file) onto `buf`, as `read_until`
/// does, and how many bytes it took; `None` when the line goes on past `max` bytes
/// (then what was read of it is left on `buf`, and the rest is not read).
fn read_line_within(
    reader: &mut impl BufRead,
    buf: &mut Vec<u8>,
    max: usize,
) -> io::Result<Option<usize>> {
    let mut read = 0;
    loop {
        let available = match reader.fill_buf() {
            Ok(available) => available,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(e),
        };
        if available.is_empty() {
            return Ok(Some(read));
        }
        let (take, ended) = match memchr::memchr(b'\n', available) {
            Some(at) => (at + 1, true),
            None => (available.len(), false),
        };
        if read + take > max + 1 {
            return Ok(None);
        }
        buf.extend_from_slice(&available[..take]);
        reader.consume(take);
        read += take;
        if ended {
            return Ok(Some(read));
        }
    }
}
