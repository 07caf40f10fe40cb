//! JSON (`.json`: one array of objects) and JSON Lines (`.jsonl`, `.ndjson`: one object a
//! line). Elements are kept as slices of the file text with the line of their opening
//! `{`; they are parsed into objects later, in parallel, by the caller.

use std::io::{self, Read};

use super::bounded::{MAX_RECORD, MAX_RECORD_WORDS};
use super::raw::Raw;
use crate::diag::Problem;

mod lines;
use lines::is_json_space;
pub use lines::{MAX_ELEMENTS, stream_lines};

/// serde_json's message without its trailing " at line L column C".
pub fn message(e: &serde_json::Error) -> String {
    let s = e.to_string();
    let s = match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    };
    // serde_json's words for a lone UTF-16 surrogate (`"\ud800"`), which JSON tools such
    // as `JSON.stringify` write for half of a character.
    match s.as_str() {
        "unexpected end of hex escape" | "lone leading surrogate in hex escape" => format!(
            "{s}: a `\\u` escape takes four hex digits, and one of `\\ud800`-`\\udbff` (half of a UTF-16 pair, a lone surrogate, no character) must be followed by its other half `\\udc00`-`\\udfff`; write the character itself, or both halves"
        ),
        _ => s,
    }
}

/// Where a syntax error inside one element is: its line in the element (from 1; the
/// problem's line is the element's line plus this one less one) and its column in the
/// file's line, in characters, `column` being where the element starts on its line. A
/// trailing comma is placed at the comma, not at the bracket serde_json stops at.
pub fn place_in(e: &serde_json::Error, text: &str, column: u64) -> (u64, u64) {
    let mut at =
        text.split_inclusive('\n').take(e.line().saturating_sub(1)).map(str::len).sum::<usize>()
            + e.column().saturating_sub(1);
    at = at.min(text.len());
    while !text.is_char_boundary(at) {
        at -= 1;
    }
    if message(e) == "trailing comma" {
        let before = text[..at].trim_end_matches([' ', '\t', '\n', '\r']);
        if before.ends_with(',') {
            at = before.len() - 1;
        }
    }
    text_place(text, at, column)
}

/// The line (from 1) and column (in characters) of byte `at` of an element's `text`, the
/// element starting at `column` of its first line.
pub fn text_place(text: &str, at: usize, column: u64) -> (u64, u64) {
    let before = &text[..at];
    let line = 1 + memchr::memchr_iter(b'\n', before.as_bytes()).count() as u64;
    let start = before.rfind('\n').map_or(0, |nl| nl + 1);
    let chars = before[start..].chars().count() as u64;
    (line, if line == 1 { column + chars } else { chars + 1 })
}

/// What a syntax error inside one element says, with its column in the file's line
/// ([`place_in`]), and the line in the element it is on; naming what Python's `json`
/// (and pandas) write for a float that is no number, `NaN`, `Infinity` and `-Infinity`,
/// when the error is at one of them.
pub fn syntax_in(e: &serde_json::Error, text: &str, column: u64) -> (String, u64) {
    let at =
        text.split_inclusive('\n').take(e.line().saturating_sub(1)).map(str::len).sum::<usize>()
            + e.column().saturating_sub(1);
    let rest = text.get(at..).unwrap_or_default();
    let constant = ["NaN", "Infinity", "-Infinity"].into_iter().find(|c| rest.starts_with(c));
    let (line, column) = place_in(e, text, column);
    let message = match constant {
        Some(c) => format!(
            "invalid JSON: `{c}` is no JSON value (column {column}; Python's json.dump writes it for a float that is no number, and pandas for a blank cell): write null where there is no value (json.dump(..., allow_nan=False) refuses to write it, and pandas' to_json writes null)"
        ),
        None => format!("invalid JSON: {} (column {column})", message(e)),
    };
    (message, line)
}

/// The length of the string at the start of `b` (its opening `"` included), found with
/// `memchr` over the quotes and backslashes: most of a record's bytes are in strings.
pub(super) fn string_len(b: &[u8]) -> Option<usize> {
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
            // Which brackets are open, innermost last: a bit each (1 for `[`), while the
            // value never nests past 128 (then they are only counted). A closer of the
            // other kind ends the value there, so that a broken element (`{"a": [1}`) does
            // not run on into the next ones and the array's `]`.
            let (mut depth, mut deep) = (0usize, false);
            let mut arrays = 0u128;
            let mut i = 0;
            while i < b.len() {
                match b[i] {
                    b'"' => {
                        i += string_len(&b[i..])?;
                        continue;
                    }
                    open @ (b'{' | b'[') => {
                        arrays = arrays << 1 | u128::from(open == b'[');
                        depth += 1;
                        deep |= depth > 128;
                    }
                    close @ (b'}' | b']') => {
                        let array = arrays & 1 == 1;
                        if !deep && array != (close == b']') {
                            return Some(i + 1);
                        }
                        arrays >>= 1;
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
        // A number, `true`, `false` or `null` (and `NaN` or `Infinity`, which the parse
        // names): it ends at the first byte none of them holds, so that a byte no value
        // starts with is refused where it is, not taken for the start of a scalar that
        // runs on to the end of the file.
        _ => b.iter().position(|&c| !is_scalar_byte(c)),
    }
}

/// A byte a JSON scalar (a number, `true`, `false`, `null`) may hold, or `NaN` and
/// `Infinity`, which the parse names.
fn is_scalar_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || matches!(b, b'+' | b'-' | b'.')
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

/// Where the splitter of a `.json` file stands between chunks. Positions are kept as
/// offsets in the file, so a line's start is known however long the line is: a column
/// is one subtraction, whether the array is pretty-printed or all on one line.
struct Splitter {
    line: u64,
    /// The file offset where the current line starts (after a BOM on the first line).
    line_start: u64,
    /// The characters of the current line up to the file offset `counted` ([`Splitter::column`]).
    chars: u64,
    counted: u64,
    /// The file offset of the buffer's first byte.
    base: u64,
    state: State,
    eof: bool,
    bom_checked: bool,
    /// The line and column (from 1) of the last `,` between elements.
    comma: (u64, u64),
    /// How many bytes the scans have looked at, counting a byte again each time it is
    /// looked at again: the work the splitter does, which the tests bound by the file's
    /// size.
    examined: u64,
    /// The last step stopped at [`MAX_ELEMENTS`]: the buffer holds more to split before
    /// anything more is read.
    capped: bool,
    /// Elements split off so far: the next one's index in the array.
    count: u64,
    /// The line the last element ended on.
    last_end: u64,
    /// How many elements the last step handed out: the next step makes room for as many
    /// (and an eighth) at once. Grown element by element, the list was moved into fresh
    /// memory a dozen times a step, and fresh memory is what the kernel zeroes.
    last_batch: usize,
}

/// An element found in the buffer: its line and column, its start and end, and its index
/// in the array when it shares its line with another element (`[{…},{…}]`).
type Element = (u64, u64, usize, usize, Option<u64>);

/// One chunk split: the complete elements found and where the unsplit rest of the buffer
/// begins; or the file's problem, which ends it, with the elements found before it (they
/// are read, so that their problems are said too).
enum Split {
    Elements(Vec<Element>, usize),
    Fail(Vec<Element>, Vec<Problem>),
}

impl Splitter {
    fn new() -> Splitter {
        Splitter {
            line: 1,
            line_start: 0,
            chars: 0,
            counted: 0,
            base: 0,
            state: State::Start,
            eof: false,
            bom_checked: false,
            comma: (1, 1),
            examined: 0,
            capped: false,
            count: 0,
            last_end: 0,
            last_batch: 0,
        }
    }

    /// The column (from 1, in characters) of `pos` in the buffer, on the current line.
    /// Characters are counted from the line's start up to `pos`, once each: the count is
    /// kept (up to the file offset `counted`) from call to call on one line.
    fn column(&mut self, buf: &[u8], pos: usize) -> u64 {
        if self.counted < self.line_start {
            (self.counted, self.chars) = (self.line_start, 0);
        }
        let from = (self.counted - self.base) as usize;
        let bytes = &buf[from.min(pos)..pos];
        // Every byte but a UTF-8 continuation byte starts a character.
        self.chars += bytes.iter().filter(|&&b| (b as i8) >= -0x40).count() as u64;
        self.counted = self.base + pos as u64;
        self.chars + 1
    }

    fn fail_at(&mut self, buf: &[u8], pos: usize, message: &str, elements: Vec<Element>) -> Split {
        let message = format!("{message} (column {})", self.column(buf, pos));
        Split::Fail(elements, vec![Problem::unplaced(Some(self.line), message)])
    }

    /// Counts the line ends in `buf[from..to]`, the bytes of one element.
    fn pass_over(&mut self, buf: &[u8], from: usize, to: usize) {
        self.examined += (to - from) as u64;
        for nl in memchr::memchr_iter(b'\n', &buf[from..to]) {
            self.line += 1;
            self.line_start = self.base + (from + nl) as u64 + 1;
        }
    }

    /// Reads more bytes onto the end of `buf` (about `chunk`, or as many as it holds
    /// when one element outgrows the chunk, so that an element is re-scanned a bounded
    /// number of times) and splits off the complete elements in it.
    fn step(
        &mut self,
        reader: &mut impl Read,
        buf: &mut Vec<u8>,
        chunk: usize,
    ) -> io::Result<Split> {
        let capped = std::mem::take(&mut self.capped);
        if !self.eof && !capped {
            let want = chunk.max(buf.len());
            let n = reader.by_ref().take(want as u64).read_to_end(buf)?;
            self.eof = n == 0;
        }
        let mut pos = 0;
        if !self.bom_checked && (buf.len() >= 3 || self.eof) {
            if buf.starts_with(b"\xEF\xBB\xBF") {
                pos = 3;
                self.line_start = 3;
            }
            self.bom_checked = true;
        }
        let mut elements =
            Vec::with_capacity((self.last_batch + self.last_batch / 8).min(MAX_ELEMENTS));
        if !self.bom_checked {
            return Ok(Split::Elements(elements, 0)); // too few bytes yet to tell
        }
        loop {
            let from = pos;
            while pos < buf.len() && is_json_space(buf[pos]) {
                if buf[pos] == b'\n' {
                    self.line += 1;
                    self.line_start = self.base + pos as u64 + 1;
                }
                pos += 1;
            }
            self.examined += (pos - from) as u64;
            if pos == buf.len() {
                break;
            }
            self.examined += 1;
            match self.state {
                State::Start if buf[pos] == b'[' => {
                    pos += 1;
                    self.state = State::First;
                }
                State::Start => {
                    return Ok(self.fail_at(buf, pos, "expected an array of objects", elements));
                }
                State::First if buf[pos] == b']' => {
                    pos += 1;
                    self.state = State::End;
                }
                State::Element if buf[pos] == b']' => {
                    let (line, column) = self.comma;
                    let message = format!(
                        "invalid JSON: a trailing comma after the last element (column {column})"
                    );
                    let problems = vec![Problem::unplaced(Some(line), message)];
                    return Ok(Split::Fail(elements, problems));
                }
                State::First | State::Element if elements.len() >= MAX_ELEMENTS => {
                    self.capped = true;
                    break;
                }
                State::First | State::Element => match value_len(&buf[pos..]) {
                    Some(0) => {
                        let message = "invalid JSON: expected a value (an object)";
                        return Ok(self.fail_at(buf, pos, message, elements));
                    }
                    Some(len) => {
                        // On the line the last one ended on: both are named by index.
                        let shared = self.count > 0 && self.last_end == self.line;
                        if let Some(last) = elements.last_mut().filter(|_| shared) {
                            last.4 = Some(self.count - 1);
                        }
                        let index = shared.then_some(self.count);
                        elements.push((self.line, self.column(buf, pos), pos, pos + len, index));
                        self.count += 1;
                        self.pass_over(buf, pos, pos + len);
                        self.last_end = self.line;
                        pos += len;
                        self.state = State::After;
                    }
                    None if self.eof => {
                        let message = "invalid JSON: the file ends inside this value";
                        return Ok(self.fail_at(buf, pos, message, elements));
                    }
                    None if buf.len() - pos > MAX_RECORD => {
                        let message = format!(
                            "invalid JSON: this value goes on for more than {MAX_RECORD_WORDS} without ending (a bracket or a quote never closed?), and a record is at most {MAX_RECORD_WORDS}"
                        );
                        return Ok(self.fail_at(buf, pos, &message, elements));
                    }
                    None => {
                        self.examined += (buf.len() - pos) as u64;
                        break;
                    }
                },
                State::After if buf[pos] == b',' => {
                    self.comma = (self.line, self.column(buf, pos));
                    pos += 1;
                    self.state = State::Element;
                }
                State::After if buf[pos] == b']' => {
                    pos += 1;
                    self.state = State::End;
                }
                State::After => {
                    let message = "invalid JSON: expected `,` or `]` after an element";
                    return Ok(self.fail_at(buf, pos, message, elements));
                }
                State::End => {
                    let message = "invalid JSON: trailing characters after the array";
                    return Ok(self.fail_at(buf, pos, message, elements));
                }
            }
        }
        self.last_batch = elements.len();
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
/// batch of complete elements goes to `sink` with the line and column of its opening
/// brace, so the file is never held whole in memory. Structural problems end the file
/// with an issue; the elements before it are handed out first, so their problems are
/// said too.
///
/// Reading and splitting the next chunk runs while `sink` works on this one (`rayon::join`,
/// two buffers): the split is a serial scan, the sink parses in parallel.
pub fn stream_array(
    reader: impl Read + Send,
    chunk: usize,
    sink: &mut (dyn FnMut(Vec<Raw<'_>>) + Send),
) -> io::Result<Vec<Problem>> {
    stream_array_counted(reader, chunk, sink).map(|(problems, _)| problems)
}

/// The elements split off `buf`, as records to parse (UTF-8 is checked with the parsing,
/// in parallel).
fn raws(elements: Vec<Element>, buf: &[u8]) -> Vec<Raw<'_>> {
    let text = |(line, column, start, end, index): Element| Raw::Text {
        line,
        column,
        index,
        text: &buf[start..end],
    };
    elements.into_iter().map(text).collect()
}

/// [`stream_array`], also returning how many bytes the splitter looked at.
fn stream_array_counted(
    mut reader: impl Read + Send,
    chunk: usize,
    sink: &mut (dyn FnMut(Vec<Raw<'_>>) + Send),
) -> io::Result<(Vec<Problem>, u64)> {
    let mut splitter = Splitter::new();
    let mut buf: Vec<u8> = Vec::with_capacity(chunk);
    let mut next: Vec<u8> = Vec::with_capacity(chunk);
    let mut split = splitter.step(&mut reader, &mut buf, chunk)?;
    loop {
        let (elements, pos) = match split {
            Split::Elements(elements, pos) => (elements, pos),
            Split::Fail(elements, problems) => {
                if !elements.is_empty() {
                    sink(raws(elements, &buf));
                }
                return Ok((problems, splitter.examined));
            }
        };
        let raws = raws(elements, &buf);
        if splitter.eof && !splitter.capped {
            if !raws.is_empty() {
                sink(raws);
            }
            return Ok((splitter.finish(), splitter.examined));
        }
        next.clear();
        next.extend_from_slice(&buf[pos..]);
        splitter.column(&buf, pos); // the line's characters counted before they go
        splitter.base += pos as u64;
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

#[cfg(test)]
mod tests;
