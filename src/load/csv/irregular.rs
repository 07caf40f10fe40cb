//! A CSV file whose quoting is irregular, read in batches cut after whole records.

use std::io::{self, Read};

use super::{AFTER_CLOSE, MAX_RECORD, MAX_RECORD_WORDS, Raw, Table, UNCLOSED, fill, quotes};
use crate::diag::Problem;

/// What a record that goes on past [`MAX_RECORD`] is told, at the line it starts on.
pub(super) fn too_long() -> String {
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
pub(super) fn irregular(
    reader: &mut impl Read,
    mut body: Vec<u8>,
    mut eof: bool,
    table: &Table,
    batch: usize,
    line: &mut u64,
    issues: &mut Vec<Problem>,
    sink: &mut (dyn FnMut(Vec<Raw<'static>>) + Send),
) -> io::Result<()> {
    let mut scan = quotes::Scan::new(table.delimiter);
    // The line the scan's lines count from, and how many of its bytes are behind `body`.
    let (first_line, mut behind) = (*line, 0usize);
    let mut scanned = 0;
    let say = |found: quotes::Break, issues: &mut Vec<Problem>| {
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
