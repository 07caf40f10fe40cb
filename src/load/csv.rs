//! CSV input: the header becomes a column plan (plain, nested `a.b`, or one language of a
//! localized field `name.fr`), and each row becomes a JSON object with cells converted by
//! the declared field types. Lines are the physical line a record starts on, whatever
//! ends the lines (`\n`, `\r\n` or a lone `\r`): the csv crate counts only `\n`, so lines
//! are found here from each record's byte offset.

use std::io::{self, Read};

use rayon::prelude::*;
use serde_json::{Map, Value};

use super::Raw;
use crate::config::FieldType;
use crate::diag::Problem;
use crate::load::record::Resolver;

mod convert;
mod quotes;

pub use convert::{clip, convert};

#[derive(Debug)]
enum Column {
    /// A plain or nested field: `path[0]` is the top-level key.
    Field { path: Vec<String>, kind: Option<FieldType> },
    /// One language of a localized field: `path` is the field and the language.
    Lang { path: [String; 2], kind: Option<FieldType> },
    /// A language that is not configured.
    Ignored,
}

fn plan(
    header: &[String],
    res: &Resolver,
    issues: &mut Vec<Problem>,
    warnings: &mut Vec<Problem>,
) -> Vec<Column> {
    let schema = &res.project().schema;
    res.seen_in_header(header);
    let mut columns = Vec::with_capacity(header.len());
    for (i, name) in header.iter().enumerate() {
        let bad = |msg: String| Problem::unplaced(Some(1), msg).with_field(name);
        if name.is_empty() || name.split('.').any(str::is_empty) {
            issues.push(bad(format!("column {} has no valid name", i + 1)));
            columns.push(Column::Ignored);
            continue;
        }
        if header[..i].contains(name) {
            issues.push(bad("column appears twice".into()));
        }
        if let Some(other) = header.iter().find(|o| {
            o.len() > name.len() && o.starts_with(name.as_str()) && o.as_bytes()[name.len()] == b'.'
        }) {
            issues.push(bad(format!("column conflicts with column `{other}`")));
        }
        let (top, rest) = match name.split_once('.') {
            Some((t, r)) => (t, Some(r)),
            None => (name.as_str(), None),
        };
        let spec = schema.get(top);
        columns.push(match (spec.is_some_and(|s| s.localized), rest) {
            (true, Some(lang)) => match res.lang_index(lang) {
                Some(_) => {
                    let twin = header[..i].iter().find(|o| {
                        *o != name
                            && o.split_once('.').is_some_and(|(t, l)| {
                                t == top && l.eq_ignore_ascii_case(lang)
                            })
                    });
                    if let Some(twin) = twin {
                        issues.push(bad(format!(
                            "column is the same language as column `{twin}` (language codes are read in any case): keep one of the two"
                        )));
                    }
                    Column::Lang {
                    path: [top.to_string(), lang.to_ascii_lowercase()],
                        kind: spec.and_then(|s| s.kind),
                    }
                }
                None => {
                    let lang = lang.to_ascii_lowercase();
                    let languages = &res.project().languages;
                    let msg = super::record::other_language(&lang, languages);
                    warnings.push(Problem::unplaced(Some(1), msg).with_field(top));
                    Column::Ignored
                }
            },
            _ => Column::Field {
                path: name.split('.').map(String::from).collect(),
                kind: schema.get(name.as_str()).and_then(|s| s.kind),
            },
        });
    }
    columns
}

/// Where the physical lines of a file start. A line ends at `\n`, `\r\n` or a lone `\r`
/// (Unix, Windows and classic Mac exports), inside quoted cells too.
struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    fn new(bytes: &[u8]) -> Lines {
        let mut starts = vec![0];
        for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            // The `\r` of a `\r\n` is not a line end of its own.
            if bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n') {
                starts.push(i + 1);
            }
        }
        Lines { starts }
    }

    /// The 1-based line of the record whose parse began at byte `at`: the first byte
    /// after any line ends there (the parser may begin a record on the `\n` of a `\r\n`).
    fn of_record(&self, bytes: &[u8], at: u64) -> u64 {
        let mut at = usize::try_from(at).unwrap_or(usize::MAX).min(bytes.len());
        while at < bytes.len() && matches!(bytes[at], b'\r' | b'\n') {
            at += 1;
        }
        self.starts.partition_point(|&start| start <= at) as u64
    }
}

/// How a row's cells become one object: its keys in the order of their first column, each
/// a cell or an object of its own (`location.lat`, `name.fr`). Built once from the header,
/// so that a row is assembled without looking any key up.
#[derive(Debug)]
enum Node {
    Cell(usize),
    Object(Vec<(String, Node)>),
}

fn tree(columns: &[Column]) -> Vec<(String, Node)> {
    fn place(level: &mut Vec<(String, Node)>, path: &[String], column: usize) {
        let (first, rest) = path.split_first().expect("a column has a name");
        let at = match level.iter().position(|(key, _)| key == first) {
            Some(at) => at,
            None => {
                level.push((first.clone(), Node::Object(Vec::new())));
                level.len() - 1
            }
        };
        if rest.is_empty() {
            level[at].1 = Node::Cell(column);
            return;
        }
        if let Node::Cell(_) = level[at].1 {
            level[at].1 = Node::Object(Vec::new()); // a clash the header check refuses
        }
        if let Node::Object(inner) = &mut level[at].1 {
            place(inner, rest, column);
        }
    }
    let mut root = Vec::new();
    for (i, column) in columns.iter().enumerate() {
        match column {
            Column::Field { path, .. } => place(&mut root, path, i),
            Column::Lang { path, .. } => place(&mut root, path, i),
            Column::Ignored => {}
        }
    }
    root
}

/// One row's object from its converted cells (taken out of `cells`).
fn assemble(level: &[(String, Node)], cells: &mut [Value]) -> Map<String, Value> {
    let mut object = Map::with_capacity(level.len());
    for (key, node) in level {
        let value = match node {
            Node::Cell(i) => std::mem::take(&mut cells[*i]),
            Node::Object(inner) => Value::Object(assemble(inner, cells)),
        };
        object.insert(key.clone(), value);
    }
    object
}

/// Parses a whole CSV file (BOM already removed): its records, its problems, and its
/// warnings.
pub fn parse(
    bytes: &[u8],
    delimiter: u8,
    res: &Resolver,
) -> (Vec<Raw<'static>>, Vec<Problem>, Vec<Problem>) {
    let mut rows = Vec::new();
    let found = stream_in_chunks(bytes, delimiter, false, res, CHUNK_BYTES, usize::MAX, &mut |r| {
        rows.extend(r)
    });
    let (issues, warnings) = found.expect("reading from memory");
    (rows, issues, warnings)
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
) -> io::Result<(Vec<Problem>, Vec<Problem>)> {
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
) -> io::Result<(Vec<Problem>, Vec<Problem>)> {
    let mut issues = Vec::new();
    let mut warnings = Vec::new();
    // The header, read from as many bytes as it takes.
    let mut buf = Vec::new();
    let mut eof = fill(&mut reader, &mut buf, batch)?;
    let bom = if buf.starts_with(b"\xEF\xBB\xBF") { 3 } else { 0 };
    let (header, mut body_start) = loop {
        match read_header(&buf[bom..], delimiter, eof) {
            Ok(Some((header, end))) => break (header, bom + end),
            Ok(None) if !eof => {
                let want = batch.max(buf.len());
                eof = fill(&mut reader, &mut buf, want)?;
            }
            Ok(None) => return Ok((issues, warnings)),
            Err(problem) => {
                issues.push(*problem);
                return Ok((issues, warnings));
            }
        }
    };
    let csv_delimiter = res.project().csv_delimiter;
    if let Some(problem) = one_column(&header, delimiter, tsv.then_some(csv_delimiter)) {
        issues.push(problem);
        return Ok((issues, warnings));
    }
    let columns = plan(&header, res, &mut issues, &mut warnings);
    if !issues.is_empty() {
        return Ok((issues, warnings));
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
    let mut line = Lines::new(&buf[bom..body_start]).starts.len() as u64;
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
    loop {
        let (parts, done) = match split_rows(&body, delimiter, every, eof) {
            Some(split) => split,
            None => {
                // Irregular quoting: the rest of the file is read and parsed as one chunk,
                // in order, as a single reader would, up to a quote that is never closed;
                // every break in the quoting is a problem.
                if !eof {
                    reader.read_to_end(&mut body)?;
                }
                let mut end = body.len();
                for found in quotes::breaks(&body, delimiter) {
                    let (within, cell, message) = match found {
                        quotes::Break::Unclosed { line: within, cell, record_start } => {
                            end = record_start;
                            (within, cell, UNCLOSED)
                        }
                        quotes::Break::AfterClose { line: within, cell } => {
                            (within, cell, AFTER_CLOSE)
                        }
                    };
                    let mut problem = Problem::unplaced(Some(line + within - 1), message);
                    if let Some(name) = header.get(cell) {
                        problem = problem.with_field(name.clone());
                    }
                    issues.push(problem);
                }
                let whole = [(0, end)];
                table.batch(&body, &whole, &mut line, &mut issues, sink);
                return Ok((issues, warnings));
            }
        };
        if eof {
            table.batch(&body, &parts, &mut line, &mut issues, sink);
            return Ok((issues, warnings));
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

/// A csv reader that keeps a BOM at its start ([`csv_reader`]).
type BomKeeping<'a> = csv::Reader<io::Chain<&'a [u8], &'a [u8]>>;

/// A csv reader of `bytes` (a file's header, or a chunk of its rows), and how many bytes
/// its positions are ahead of `bytes`'. The csv crate drops a BOM at the start of what it
/// reads, taking it for the file's: a chunk that starts with one (a BOM mid-file, which
/// belongs to its cell) is read after a blank line, which it skips, so the BOM stays.
fn csv_reader(bytes: &[u8], delimiter: u8) -> (BomKeeping<'_>, u64) {
    let before: &[u8] = if bytes.starts_with(b"\xEF\xBB\xBF") { b"\n" } else { b"" };
    let reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(before.chain(bytes));
    (reader, before.len() as u64)
}

const UNCLOSED: &str = "a quoted cell opens here and is never closed, so every line after it would be read into this one cell: close it with `\"`, and write a quote inside a quoted cell as `\"\"`";

const AFTER_CLOSE: &str = "text follows the closing quote of a quoted cell (like `\"ab\"c`): write a quote inside a quoted cell as `\"\"`, or quote the whole cell";

/// The header of a CSV file at the start of `bytes` and where it ends, `None` when
/// `bytes` may end inside it (more of the file is needed, unless `eof`: then the file
/// has no header).
fn read_header(
    bytes: &[u8],
    delimiter: u8,
    eof: bool,
) -> Result<Option<(Vec<String>, usize)>, Box<Problem>> {
    let (mut reader, shift) = csv_reader(bytes, delimiter);
    let mut record = csv::ByteRecord::new();
    match reader.read_byte_record(&mut record) {
        Ok(false) => return Ok(None),
        Err(e) => {
            return Err(Box::new(Problem::unplaced(Some(1), format!("unreadable header: {e}"))));
        }
        Ok(true) => {}
    }
    let end =
        usize::try_from(reader.position().byte().saturating_sub(shift)).unwrap_or(bytes.len());
    if end >= bytes.len() && !eof {
        return Ok(None); // its last cell may go on in the next bytes
    }
    // A quote in the header that is never closed (the header would take the file), or
    // text after a closing quote: the header is no header.
    if record.iter().any(|cell| cell.contains(&b'\n') || cell.contains(&b'\r'))
        || bytes[..end.min(bytes.len())].contains(&b'"')
    {
        let quoting = quotes::breaks(&bytes[..end.min(bytes.len())], delimiter);
        if let Some(found) = quoting.first() {
            let (line, cell, message) = match *found {
                quotes::Break::Unclosed { line, cell, .. } => (line, cell, UNCLOSED),
                quotes::Break::AfterClose { line, cell } => (line, cell, AFTER_CLOSE),
            };
            let problem =
                Problem::unplaced(Some(line), message).with_field(format!("column {}", cell + 1));
            return Err(Box::new(problem));
        }
    }
    let header = record.iter().map(|c| std::str::from_utf8(c).map(str::to_string)).collect();
    match header {
        Ok(header) => Ok(Some((header, end))),
        Err(_) => Err(Box::new(Problem::unplaced(Some(1), "header is not valid UTF-8"))),
    }
}

/// One column that holds another delimiter between names: the file was saved with other
/// separators (Excel writes `;` in many locales). `tsv` is the configured `csv_delimiter`
/// when the file is a `.tsv`, which is read with tabs whatever that says.
fn one_column(header: &[String], delimiter: u8, tsv: Option<u8>) -> Option<Problem> {
    let [only] = header else { return None };
    let other = [b';', b'\t', b'|', b',']
        .into_iter()
        .find(|&d| d != delimiter && only.as_bytes().contains(&d))?;
    let spelled = |d: u8| if d == b'\t' { "\\t".to_string() } else { (d as char).to_string() };
    let named = |d: u8| if d == b'\t' { "a tab".to_string() } else { format!("`{}`", d as char) };
    let (name, only) = (spelled(other), only.escape_debug());
    let message = match tsv {
        Some(configured) => {
            let set = if configured == other {
                String::new()
            } else {
                format!(" and set `csv_delimiter = \"{name}\"` under [input] in folio.toml")
            };
            format!(
                "the header is one column, `{only}`: its fields are separated by {}, and a `.tsv` file is read with a tab between fields; rename it to `.csv`{set}, or save it with tabs",
                named(other)
            )
        }
        None => format!(
            "the header is one column, `{only}`: its fields are separated by {}, not {}; set `csv_delimiter = \"{name}\"` under [input] in folio.toml, or save the file with {} between fields",
            named(other),
            named(delimiter),
            named(delimiter),
        ),
    };
    Some(Problem::unplaced(Some(1), message))
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
        issues: &mut Vec<Problem>,
        sink: &mut (dyn FnMut(Vec<Raw<'static>>) + Send),
    ) {
        let parsed: Vec<(Vec<Raw<'static>>, Vec<Problem>, u64)> = parts
            .par_iter()
            .map(|&(from, to)| {
                let (rows, mut issues, lines) = self.rows(&body[from..to]);
                // A chunk of a megabyte holds at most this many problems worth listing.
                issues.truncate(super::MAX_PROBLEMS + 1);
                (rows, issues, lines)
            })
            .collect();
        let mut rows = Vec::new();
        for (mut chunk_rows, chunk_issues, lines) in parsed {
            let shift = *line - 1;
            for raw in &mut chunk_rows {
                if let Raw::Object { line, .. } | Raw::Refused { line, .. } = raw {
                    *line += shift;
                }
            }
            rows.extend(chunk_rows);
            // Past a file's limit, problems are counted by the caller, not kept here.
            let room = (super::MAX_PROBLEMS + 1).saturating_sub(issues.len());
            issues.extend(chunk_issues.into_iter().take(room).map(|mut p| {
                p.line = p.line.map(|l| l + shift);
                p
            }));
            *line += lines;
        }
        if !rows.is_empty() {
            sink(rows);
        }
    }

    /// The rows of one chunk (it starts a record), their problems, and how many line ends
    /// it holds. Lines count from 1 at the chunk's start.
    fn rows(&self, bytes: &[u8]) -> (Vec<Raw<'static>>, Vec<Problem>, u64) {
        let (header, columns, decimal) = (self.header, self.columns, self.decimal);
        let mut rows = Vec::new();
        let mut issues = Vec::new();
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
                let spans = rec.iter().any(|c| c.contains(&b'\n'));
                let hint = if spans { " (an unterminated quoted field?)" } else { "" };
                issues.push(Problem::unplaced(
                    Some(line),
                    format!(
                        "record has {} fields, the header has {}{hint}",
                        rec.len(),
                        header.len()
                    ),
                ));
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
mod tests {
    use super::*;

    /// The line of every row (and problem) of `text`, parsed with the default config.
    fn row_lines(text: &str) -> (Vec<u64>, Vec<Option<u64>>) {
        let project = crate::config::test_project("");
        let res = Resolver::new(&project);
        let (rows, issues, _) = parse(text.as_bytes(), b',', &res);
        (rows.iter().map(Raw::line).collect(), issues.iter().map(|i| i.line).collect())
    }

    #[test]
    fn records_name_their_first_physical_line_whatever_ends_the_lines() {
        // Line 1 the header, 2 record 1, 3-4 record 2 (a quoted cell with a line break),
        // 5 blank, 6 record 3: the same text with each kind of line end.
        let lf = "id,name\n1,a\n2,\"two\nlines\"\n\n3,c\n";
        for end in ["\n", "\r\n", "\r"] {
            let text = lf.replace('\n', end);
            assert_eq!(row_lines(&text).0, [2, 3, 6], "line ends {end:?}");
            let text = format!("\u{feff}{text}");
            let bytes = text.as_bytes().strip_prefix(b"\xEF\xBB\xBF").unwrap();
            let project = crate::config::test_project("");
            let (rows, _, _) = parse(bytes, b',', &Resolver::new(&project));
            let lines: Vec<u64> = rows.iter().map(Raw::line).collect();
            assert_eq!(lines, [2, 3, 6], "after a BOM, line ends {end:?}");
        }
        // A file that ends without a line end, and a problem row.
        assert_eq!(row_lines("id,name\r\n1,a\r\n2,b,extra\r\n3,c").1, [Some(3)]);
        assert_eq!(row_lines("id,name\r1,a\r2,b,extra\r3,c").0, [2, 4]);
    }

    /// A CSV text with quoted cells holding delimiters, quotes and line ends, blank
    /// lines, rows of the wrong width, and (sometimes) a stray quote inside a field.
    fn any_csv() -> impl proptest::strategy::Strategy<Value = String> {
        use proptest::prelude::*;
        let cell = prop_oneof![
            "[a-z0-9 ]{0,6}",
            "[a-z,\"\n\r ]{0,6}".prop_map(|c| format!("\"{}\"", c.replace('"', "\"\""))),
            Just("ab\"c".to_string()),
        ];
        let row = prop::collection::vec(cell, 1..4).prop_map(|cells| cells.join(","));
        let end = prop::sample::select(vec!["\n", "\r\n", "\r"]);
        (prop::collection::vec((row, end.clone()), 0..24), end).prop_map(|(rows, head_end)| {
            let mut text = format!("id,a,b{head_end}");
            for (row, end) in rows {
                text.push_str(&row);
                text.push_str(end);
            }
            text
        })
    }

    proptest::proptest! {
        #[test]
        fn rows_read_in_chunks_are_the_rows_read_in_one(
            text in any_csv(),
            every in 1usize..40,
            batch in 1usize..60,
        ) {
            let project = crate::config::test_project("");
            let res = Resolver::new(&project);
            let shown = |(rows, issues, _): (Vec<Raw>, Vec<Problem>, Vec<Problem>)| {
                let rows: Vec<(u64, String)> = rows
                    .into_iter()
                    .map(|r| match r {
                        Raw::Object { line, object } => (line, Value::Object(object).to_string()),
                        Raw::Refused { line, id } => (line, format!("refused {id}")),
                        Raw::Text { .. } => unreachable!(),
                    })
                    .collect();
                let issues: Vec<(Option<u64>, String)> =
                    issues.into_iter().map(|p| (p.line, p.message)).collect();
                (rows, issues)
            };
            let parse = |every: usize, batch: usize| {
                let mut rows = Vec::new();
                let found =
                    stream_in_chunks(text.as_bytes(), b',', false, &res, every, batch, &mut |r| rows.extend(r));
                let (issues, warnings) = found.unwrap();
                (rows, issues, warnings)
            };
            let whole = shown(parse(usize::MAX, usize::MAX));
            // Chunks of `every` bytes, the file read `batch` bytes at a time.
            proptest::prop_assert_eq!(shown(parse(every, usize::MAX)), whole.clone());
            proptest::prop_assert_eq!(shown(parse(every, batch)), whole);
        }
    }

    #[test]
    fn a_bom_at_the_start_of_a_row_stays_in_its_cell_whatever_the_chunks() {
        let project = crate::config::test_project("");
        let res = Resolver::new(&project);
        let text = "id,name\n\u{feff}1,a\n2,\u{feff}b\n\u{feff}\n";
        for every in [1, 3, usize::MAX] {
            let mut rows = Vec::new();
            let found =
                stream_in_chunks(text.as_bytes(), b',', false, &res, every, usize::MAX, &mut |r| {
                    rows.extend(r)
                });
            let (issues, _) = found.unwrap();
            let ids: Vec<String> = rows
                .iter()
                .filter_map(|r| match r {
                    Raw::Object { object, .. } => Some(object["id"].to_string()),
                    _ => None,
                })
                .collect();
            assert_eq!(ids, ["\"\u{feff}1\"", "\"2\""], "chunks of {every}");
            // A line that holds only a BOM is a row of one cell, not a blank line.
            let lines: Vec<Option<u64>> = issues.iter().map(|p| p.line).collect();
            assert_eq!(lines, [Some(4)], "chunks of {every}: {issues:?}");
        }
    }

    #[test]
    fn rows_are_cut_after_line_ends_outside_quotes_and_not_at_all_when_quoting_is_irregular() {
        let body = b"1,\"a\nb\"\n2,x\n3,\"c\"\"d\"\n4,y\n";
        let (cuts, done) = split_rows(body, b',', 1, true).unwrap();
        let starts: Vec<&[u8]> = cuts.iter().map(|&(from, _)| &body[from..from + 2]).collect();
        assert_eq!(starts, [b"1,", b"2,", b"3,", b"4,"]);
        assert_eq!(done, body.len());
        // Incomplete: whole records end at the last line end outside quotes.
        let (cuts, done) = split_rows(b"1,x\n2,\"a\nb", b',', 1, false).unwrap();
        assert_eq!((cuts, done), (vec![(0, 4)], 4));
        let (cuts, done) = split_rows(b"1,\"a\"", b',', 1, false).unwrap();
        assert_eq!((cuts, done), (vec![], 0), "the quote may be the first of `\"\"`");
        // `ab"c` keeps its quote as text in a lenient reader: no cut is trusted.
        assert_eq!(split_rows(b"1,ab\"c\n2,x\n", b',', 1, true), None);
        assert_eq!(split_rows(b"1,\"ab\"c\n2,x\n", b',', 1, true), None);
        assert_eq!(split_rows(b"1,\"ab\n2,x\n", b',', 1, true), None, "never closed");
    }
}
