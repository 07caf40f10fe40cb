//! CSV input: the header becomes a column plan (plain, nested `a.b`, or one language of a
//! localized field `name.fr`), and each row becomes a JSON object with cells converted by
//! the declared field types. Lines are the physical line a record starts on, whatever
//! ends the lines (`\n`, `\r\n` or a lone `\r`): the csv crate counts only `\n`, so lines
//! are found here from each record's byte offset.

use std::io::{self, Read};

use rayon::prelude::*;
use serde_json::Value;

use super::bounded::{MAX_RECORD, MAX_RECORD_WORDS};
use super::kept::Kept;
use super::raw::Raw;
use super::record::Unlisted;
use crate::diag::Problem;
use crate::load::record::Resolver;

mod convert;
mod header;
mod lines;
mod quotes;
mod reader;
mod sep;

pub use convert::{clip, convert};
use header::{
    AFTER_CLOSE, Column, Node, UNCLOSED, assemble, one_column, other_delimiter, plan, read_header,
    tree,
};
use lines::Lines;
use reader::csv_reader;
use sep::{SEP_LINE_MAX, below_sep, excel_sep, no_sep, sep_named};

/// Parses a whole CSV file (BOM already removed): its records, its problems, and its
/// warnings.
pub fn parse(
    bytes: &[u8],
    delimiter: u8,
    res: &Resolver,
) -> (Vec<Raw<'static>>, Vec<Problem>, Vec<Unlisted>) {
    let mut rows = Vec::new();
    let found = stream_in_chunks(bytes, delimiter, false, res, CHUNK_BYTES, usize::MAX, &mut |r| {
        rows.extend(r)
    });
    let (issues, warnings) = found.expect("reading from memory");
    (rows, issues.into_vec(0, std::path::Path::new("")), warnings)
}

/// Streams a CSV file from `reader` (a BOM at its start is dropped) in batches of about
/// `batch` bytes: the rows of each batch go to `sink` in line order, parsed in parallel in
/// chunks, while the next batch is read; only one batch of rows and text is held at a time.
/// Returns the file's problems and warnings.
pub fn stream(
    reader: impl Read + Send,
    delimiter: u8,
    tsv: bool,
    res: &Resolver,
    batch: usize,
    sink: &mut (dyn FnMut(Vec<Raw<'static>>) + Send),
) -> io::Result<(Kept, Vec<Unlisted>)> {
    stream_in_chunks(reader, delimiter, tsv, res, CHUNK_BYTES.min(batch), batch, sink)
}

/// Reads up to `want` more bytes of `reader` onto `buf`; true at the end of the file.
fn fill(reader: &mut impl Read, buf: &mut Vec<u8>, want: usize) -> io::Result<bool> {
    let want = u64::try_from(want).unwrap_or(u64::MAX);
    Ok(reader.by_ref().take(want).read_to_end(buf)? == 0)
}

/// [`stream`], the rows parsed in chunks of about `every` bytes.
fn stream_in_chunks(
    mut reader: impl Read + Send,
    delimiter: u8,
    tsv: bool,
    res: &Resolver,
    every: usize,
    batch: usize,
    sink: &mut (dyn FnMut(Vec<Raw<'static>>) + Send),
) -> io::Result<(Kept, Vec<Unlisted>)> {
    let mut issues = Vec::new();
    let mut warnings = Vec::new();
    // The header, read from as many bytes as it takes.
    let mut buf = Vec::new();
    let mut eof = fill(&mut reader, &mut buf, batch)?;
    let bom = if buf.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
    // Excel's first line `sep=;` names the delimiter, whatever the config says, and is no
    // row: the header follows it (on line 2, and so on: lines stay the file's).
    while !eof && buf.len() < bom + 2 * SEP_LINE_MAX {
        eof = fill(&mut reader, &mut buf, SEP_LINE_MAX)?;
    }
    let (delimiter, tsv, skip) = match excel_sep(&buf[bom..]) {
        Some((named, len)) => (named, false, len),
        None => {
            if let Some(problem) = no_sep(&buf[bom..]) {
                issues.push(problem);
                return Ok((issues.into(), warnings));
            }
            (delimiter, tsv, 0)
        }
    };
    let bom = bom + skip;
    if skip > 0
        && let Some(again) = sep_named(&buf[bom..])
    {
        let message = format!(
            "a second `sep=` line (`sep={again}`): Excel's `sep=` line names the delimiter on the first line only, and the header follows it; delete this line (the first says `{}`)",
            char::from(delimiter).escape_debug()
        );
        issues.push(Problem::unplaced(Some(2), message));
        return Ok((issues.into(), warnings));
    }
    let (header, mut body_start) = loop {
        match read_header(&buf[bom..], delimiter, eof) {
            Ok(Some((header, end))) => break (header, bom + end),
            Ok(None) if buf.len() - bom > MAX_RECORD => {
                let message = format!(
                    "the header goes on for more than {MAX_RECORD_WORDS} without ending (a quote never closed? no line end?), and a record is at most {MAX_RECORD_WORDS}"
                );
                issues.push(below_sep(Problem::unplaced(Some(1), message), skip));
                return Ok((issues.into(), warnings));
            }
            Ok(None) if !eof => {
                let want = batch.max(buf.len());
                eof = fill(&mut reader, &mut buf, want)?;
            }
            Ok(None) => return Ok((issues.into(), warnings)),
            Err(problem) => {
                issues.push(below_sep(*problem, skip));
                return Ok((issues.into(), warnings));
            }
        }
    };
    let csv_delimiter = res.project().csv_delimiter;
    if let Some(problem) = one_column(&header, delimiter, tsv.then_some(csv_delimiter)) {
        // Its columns are there, behind the other delimiter: a field of the config they
        // name is no typo, and the delimiter is the one problem to say.
        if let Some((only, other)) = other_delimiter(&header, delimiter) {
            let names: Vec<String> = only.split(char::from(other)).map(str::to_string).collect();
            res.seen_in_header(&names);
        }
        issues.push(below_sep(problem, skip));
        return Ok((issues.into(), warnings));
    }
    let columns = plan(&header, res, &mut issues, &mut warnings);
    if skip > 0 {
        issues = issues.into_iter().map(|p| below_sep(p, skip)).collect();
        for w in &mut warnings {
            w.warning = below_sep(w.warning.clone(), skip);
        }
    }
    if !issues.is_empty() {
        return Ok((issues.into(), warnings));
    }
    // The rows start after the header's line end (the parser stops inside a `\r\n`).
    if !eof && body_start == buf.len() {
        eof = fill(&mut reader, &mut buf, batch)?;
    }
    if body_start > 0
        && buf.get(body_start - 1) == Some(&b'\r')
        && buf.get(body_start) == Some(&b'\n')
    {
        body_start += 1;
    }
    let body_start = body_start.min(buf.len());
    // The lines before the first row: the header's, and Excel's `sep=` line when there.
    let mut line = Lines::new(&buf[bom - skip..body_start]).starts.len() as u64;
    let table = Table {
        header: &header,
        id: header.iter().position(|name| name == "id"),
        columns: &columns,
        tree: tree(&columns),
        delimiter,
        decimal: res.project().decimal_separator,
    };
    let mut body = buf.split_off(body_start);
    drop(buf);
    // The rows' problems, from here kept within bounds, and counted past them.
    let mut issues = Kept::default();
    loop {
        let Some((parts, done)) = split_rows(&body, delimiter, every, eof) else {
            // Irregular quoting: read on in order, as a single reader would.
            irregular(&mut reader, body, eof, &table, batch, &mut line, &mut issues, sink)?;
            return Ok((issues, warnings));
        };
        if eof {
            table.batch(&body, &parts, &mut line, &mut issues, sink);
            return Ok((issues, warnings));
        }
        if done == 0 {
            // One record longer than what was read: more of it, onto the same bytes.
            if body.len() > MAX_RECORD {
                issues.push(Problem::unplaced(Some(line), too_long()));
                return Ok((issues, warnings));
            }
            let want = batch.max(body.len());
            eof = fill(&mut reader, &mut body, want)?;
            continue;
        }
        // The rows of this batch are parsed while the next is read.
        let mut next = body[done..].to_vec();
        let want = batch.max(next.len());
        let (_, read) = rayon::join(
            || table.batch(&body, &parts, &mut line, &mut issues, sink),
            || fill(&mut reader, &mut next, want),
        );
        eof = read?;
        body = next;
    }
}

/// What a record that goes on past [`MAX_RECORD`] is told, at the line it starts on.
fn too_long() -> String {
    format!(
        "this record goes on for more than {MAX_RECORD_WORDS} without ending (a quoted cell never closed? no line ends?), and a record is at most {MAX_RECORD_WORDS}; the file is read no further"
    )
}

/// The rest of a file whose quoting is irregular (a stray quote inside a cell, which a
/// lenient reader keeps as text), from `body` (which starts a record, on `line`) on: read
/// in batches and parsed in order, each batch cut after its last whole record as the
/// quoting is followed ([`quotes::Scan`]), up to a quote that is never closed; every break
/// in the quoting is a problem.
#[allow(clippy::too_many_arguments)]
fn irregular(
    reader: &mut impl Read,
    mut body: Vec<u8>,
    mut eof: bool,
    table: &Table,
    batch: usize,
    line: &mut u64,
    issues: &mut Kept,
    sink: &mut (dyn FnMut(Vec<Raw<'static>>) + Send),
) -> io::Result<()> {
    let mut scan = quotes::Scan::new(table.delimiter);
    // The line the scan's lines count from, and how many of its bytes are behind `body`.
    let (first_line, mut behind) = (*line, 0usize);
    let mut scanned = 0;
    let say = |found: quotes::Break, issues: &mut Kept| {
        let (within, cell, message) = match found {
            quotes::Break::Unclosed { line: within, cell, .. } => (within, cell, UNCLOSED),
            quotes::Break::AfterClose { line: within, cell } => (within, cell, AFTER_CLOSE),
        };
        let mut problem = Problem::unplaced(Some(first_line + within - 1), message);
        if let Some(name) = table.header.get(cell) {
            problem = problem.with_field(name.clone());
        }
        issues.push(problem);
    };
    loop {
        for found in scan.feed(&body[scanned..]) {
            say(found, issues);
        }
        scanned = body.len();
        if eof {
            let mut end = body.len();
            if let Some(open) = scan.finish() {
                if let quotes::Break::Unclosed { record_start, .. } = open {
                    end = record_start - behind;
                }
                say(open, issues);
            }
            table.batch(&body, &[(0, end)], line, issues, sink);
            return Ok(());
        }
        let whole = scan.record_start() - behind;
        // A cut just after a `\r` the bytes end with waits for them: a `\n` may follow.
        let waits = whole == body.len() && body.last() == Some(&b'\r');
        if whole > 0 && !waits {
            table.batch(&body, &[(0, whole)], line, issues, sink);
            body.drain(..whole);
            behind += whole;
            scanned -= whole;
        } else if whole == 0 && body.len() > MAX_RECORD {
            issues.push(Problem::unplaced(Some(*line), too_long()));
            return Ok(());
        }
        let want = batch.max(body.len());
        eof = fill(reader, &mut body, want)?;
    }
}

/// Rows are parsed in chunks of about this many bytes, in parallel.
const CHUNK_BYTES: usize = 1 << 20;

/// Where to cut rows of a CSV file (`body`, which starts a record) into chunks of about
/// `every` bytes, each starting a record: `(from, to)` of each chunk, and where the whole
/// records end (`body`'s end when `complete`; else after the last line end outside
/// quotes, the rest waiting for the next bytes). A cut is put after a `\n` outside quotes.
/// The quotes are followed with `memchr` and the cuts trusted only while the quoting is
/// regular (a quote opens a field and closes it, `""` inside): a stray quote inside a
/// field, which a lenient reader keeps as text, gives `None`, and the caller reads the
/// rest in order, as a single reader would.
fn split_rows(
    body: &[u8],
    delimiter: u8,
    every: usize,
    complete: bool,
) -> Option<(Vec<(usize, usize)>, usize)> {
    let len = body.len();
    let ends_field = |at: usize| match body.get(at) {
        None => true,
        Some(&b) => b == delimiter || b == b'\n' || b == b'\r',
    };
    let mut cuts = vec![0];
    let mut target = every;
    // Outside quotes from `at`; the last line end seen outside quotes.
    let mut at = 0;
    let mut last_end = None;
    let limit = 'scan: loop {
        let quote = memchr::memchr(b'"', &body[at..]).map_or(len, |q| at + q);
        if let Some(nl) = memchr::memrchr(b'\n', &body[at..quote]) {
            last_end = Some(at + nl + 1);
        }
        while target < quote {
            let from = target.max(at);
            match memchr::memchr(b'\n', &body[from..quote]) {
                Some(nl) => {
                    cuts.push(from + nl + 1);
                    target = from + nl + 1 + every;
                }
                None => break,
            }
        }
        if quote == len {
            break len;
        }
        // A quote opens a field only at its start.
        if quote > 0 && !ends_field(quote - 1) {
            return None;
        }
        // Inside quotes: the closing one, stepping over `""`.
        let mut i = quote + 1;
        loop {
            let Some(q) = memchr::memchr(b'"', &body[i..]).map(|q| i + q) else {
                // Open at the end: the next bytes may close it.
                if complete {
                    return None;
                }
                break 'scan quote;
            };
            if q + 1 == len && !complete {
                break 'scan quote; // a closing quote, or the first of `""`
            }
            if body.get(q + 1) == Some(&b'"') {
                i = q + 2;
                continue;
            }
            if !ends_field(q + 1) {
                return None;
            }
            at = q + 1;
            break;
        }
    };
    let done = if complete { len } else { last_end.filter(|&e| e <= limit).unwrap_or(0) };
    cuts.retain(|&c| c < done);
    cuts.push(done);
    cuts.dedup();
    Some((cuts.windows(2).map(|w| (w[0], w[1])).collect(), done))
}

/// What each row of a file is read with.
struct Table<'a> {
    header: &'a [String],
    /// The column of the `id` field.
    id: Option<usize>,
    columns: &'a [Column],
    tree: Vec<(String, Node)>,
    delimiter: u8,
    decimal: u8,
}

impl Table<'_> {
    /// Parses the chunks `parts` of `body` in parallel and hands their rows to `sink` in
    /// order; each chunk counted its lines from 1, so they are shifted by the lines before
    /// it (`line`, the line `body` starts on, moved past them).
    fn batch(
        &self,
        body: &[u8],
        parts: &[(usize, usize)],
        line: &mut u64,
        issues: &mut Kept,
        sink: &mut (dyn FnMut(Vec<Raw<'static>>) + Send),
    ) {
        let parsed: Vec<(Vec<Raw<'static>>, Kept, u64)> =
            parts.par_iter().map(|&(from, to)| self.rows(&body[from..to])).collect();
        let mut rows = Vec::new();
        for (mut chunk_rows, chunk_issues, lines) in parsed {
            let shift = *line - 1;
            for raw in &mut chunk_rows {
                if let Raw::Object { line, .. } | Raw::Refused { line, .. } = raw {
                    *line += shift;
                }
            }
            rows.extend(chunk_rows);
            issues.absorb(chunk_issues, shift);
            *line += lines;
        }
        if !rows.is_empty() {
            sink(rows);
        }
    }

    /// The rows of one chunk (it starts a record), their problems, and how many line ends
    /// it holds. Lines count from 1 at the chunk's start.
    fn rows(&self, bytes: &[u8]) -> (Vec<Raw<'static>>, Kept, u64) {
        let (header, columns, decimal) = (self.header, self.columns, self.decimal);
        let mut rows = Vec::new();
        let mut issues = Kept::default();
        let lines = Lines::new(bytes);
        let (mut reader, shift) = csv_reader(bytes, self.delimiter);
        // One record and its converted cells, the buffers reused from row to row.
        let mut rec = csv::ByteRecord::new();
        let mut cells: Vec<Value> = Vec::with_capacity(columns.len());
        loop {
            match reader.read_byte_record(&mut rec) {
                Ok(true) => {}
                Ok(false) => break,
                Err(e) => {
                    let line = e
                        .position()
                        .map(|p| lines.of_record(bytes, p.byte().saturating_sub(shift)));
                    issues.push(Problem::unplaced(line, format!("malformed CSV: {e}")));
                    continue;
                }
            }
            let line = rec
                .position()
                .map_or(0, |p| lines.of_record(bytes, p.byte().saturating_sub(shift)));
            if rec.len() != header.len() {
                // At the cell, where a stray quote is the cause.
                let at = |p: u64| usize::try_from(p.saturating_sub(shift)).unwrap_or(usize::MAX);
                let text = rec.position().and_then(|p| {
                    bytes.get(at(p.byte())..at(reader.position().byte()).min(bytes.len()))
                });
                let stray = text.and_then(|text| {
                    quotes::stray_quote(text, self.delimiter, header, rec.len(), line)
                });
                issues.push(stray.unwrap_or_else(|| {
                    let spans = rec.iter().any(|c| c.contains(&b'\n'));
                    let hint = if spans { " (an unterminated quoted field?)" } else { "" };
                    let (n, h) = (rec.len(), header.len());
                    let why = format!("record has {n} fields, the header has {h}{hint}");
                    Problem::unplaced(Some(line), why)
                }));
                continue;
            }
            let mut ok = true;
            cells.clear();
            for ((cell, col), name) in rec.iter().zip(columns).zip(header) {
                let converted = match col {
                    // Not published, but a file that is not UTF-8 was saved in another
                    // encoding: said wherever it shows.
                    Column::Ignored => match simdutf8::basic::from_utf8(cell) {
                        Ok(_) => Ok(Value::Null),
                        Err(_) => Err(("is not valid UTF-8".to_string(), None)),
                    },
                    Column::Field { kind, .. } | Column::Lang { kind, .. } => {
                        match simdutf8::basic::from_utf8(cell) {
                            Ok(cell) => {
                                convert(cell, *kind, decimal).map_err(|e| (e, Some(clip(cell))))
                            }
                            Err(_) => Err(("is not valid UTF-8".to_string(), None)),
                        }
                    }
                };
                match converted {
                    Ok(value) => cells.push(value),
                    Err((msg, value)) => {
                        let mut problem =
                            Problem::unplaced(Some(line), msg).with_field(name.clone());
                        if let Some(value) = value {
                            problem = problem.with_value(value.into_owned());
                        }
                        issues.push(problem);
                        cells.push(Value::Null);
                        ok = false;
                    }
                }
            }
            if ok {
                rows.push(Raw::Object { line, object: assemble(&self.tree, &mut cells) });
            } else if let Some(id) = self.id.and_then(|i| cells.get_mut(i)).map(std::mem::take) {
                rows.push(Raw::Refused { line, id });
            }
        }
        (rows, issues, lines.starts.len() as u64 - 1)
    }
}

#[cfg(test)]
mod tests;
