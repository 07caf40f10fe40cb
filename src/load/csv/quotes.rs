//! The quoting of a CSV text, followed byte by byte as RFC 4180 reads it: a quote at the
//! start of a cell opens it, `""` inside is one quote, and the next quote closes it. The
//! csv crate reads on where a file breaks these rules (the text after a closing quote is
//! kept, a quote never closed takes the rest of the file into one cell), so a broken file
//! would lose records or change values without a word; this scan finds both breaks, with
//! the line where the cell's quote opened. It runs only where the fast cut of rows found
//! irregular quoting (`split_rows`), so a well-quoted file never pays for it.

use crate::diag::Problem;

/// A break in the quoting: the 1-based line (counted from the scanned text's start) and
/// the 0-based cell of its record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Break {
    /// A quoted cell goes on to the end of the text: where its quote opened, and the byte
    /// offset where its record starts (the records before it are whole).
    Unclosed { line: u64, cell: usize, record_start: usize },
    /// Something other than a delimiter or a line end follows a closing quote
    /// (`"ab"c`): the line of that byte.
    AfterClose { line: u64, cell: usize },
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum State {
    /// At the start of a cell.
    Start,
    /// Inside a cell that did not start with a quote.
    Plain,
    /// Inside a quoted cell.
    Quoted,
    /// Just after a quote inside a quoted cell: `"` makes it `""`, anything else ends it.
    Closed,
}

/// Every break in `text`, in order; after an unclosed quote there is nothing more to say.
pub fn breaks(text: &[u8], delimiter: u8) -> Vec<Break> {
    let mut scan = Scan::new(delimiter);
    let mut found = scan.feed(text);
    found.extend(scan.finish());
    found
}

/// The quoting of a text read piece by piece: [`Scan::feed`] each piece in turn, then
/// [`Scan::finish`]. Lines and offsets count from the first piece's start.
pub struct Scan {
    delimiter: u8,
    state: State,
    line: u64,
    cell: usize,
    /// The line the open quoted cell opened on.
    opened: u64,
    /// Where the record being read starts.
    record_start: usize,
    /// How many bytes were fed before the current piece.
    offset: usize,
    /// The last piece ended with the `\r` of a line end: a `\n` first in this one is its.
    after_cr: bool,
}

impl Scan {
    pub fn new(delimiter: u8) -> Scan {
        Scan {
            delimiter,
            state: State::Start,
            line: 1,
            cell: 0,
            opened: 1,
            record_start: 0,
            offset: 0,
            after_cr: false,
        }
    }

    /// Where the record being read starts: every record before it is whole.
    pub fn record_start(&self) -> usize {
        self.record_start
    }

    /// The line the scan is on.
    #[cfg(test)]
    pub fn line(&self) -> u64 {
        self.line
    }

    /// A line ends at `text[i]` (`\n`, or `\r` with the `\n` after it, which may be in the
    /// next piece): counted, and the index of its last byte.
    fn line_ends(&mut self, text: &[u8], i: usize) -> usize {
        self.line += 1;
        if text[i] != b'\r' {
            return i;
        }
        match text.get(i + 1) {
            Some(b'\n') => i + 1,
            Some(_) => i,
            None => {
                self.after_cr = true;
                i
            }
        }
    }

    /// The breaks in the next piece of the text.
    pub fn feed(&mut self, text: &[u8]) -> Vec<Break> {
        let mut found = Vec::new();
        let mut i = 0;
        if std::mem::take(&mut self.after_cr) && text.first() == Some(&b'\n') {
            i = 1;
            if self.state == State::Start && self.record_start == self.offset {
                self.record_start += 1;
            }
        }
        while i < text.len() {
            let b = text[i];
            let line_end = b == b'\n' || b == b'\r';
            match self.state {
                State::Start | State::Plain | State::Closed if line_end => {
                    self.state = State::Start;
                    self.cell = 0;
                    i = self.line_ends(text, i);
                    self.record_start = self.offset + i + 1;
                }
                State::Start | State::Plain | State::Closed if b == self.delimiter => {
                    self.state = State::Start;
                    self.cell += 1;
                }
                State::Start if b == b'"' => {
                    self.state = State::Quoted;
                    self.opened = self.line;
                }
                State::Start | State::Plain => self.state = State::Plain,
                State::Quoted if b == b'"' => self.state = State::Closed,
                State::Quoted => {
                    if line_end {
                        i = self.line_ends(text, i);
                    }
                }
                State::Closed if b == b'"' => self.state = State::Quoted,
                State::Closed => {
                    found.push(Break::AfterClose { line: self.line, cell: self.cell });
                    self.state = State::Plain;
                }
            }
            i += 1;
        }
        self.offset += text.len();
        found
    }

    /// What the end of the text leaves: a quoted cell still open.
    pub fn finish(&self) -> Option<Break> {
        (self.state == State::Quoted).then_some(Break::Unclosed {
            line: self.opened,
            cell: self.cell,
            record_start: self.record_start,
        })
    }
}

/// A record's fields miscounted for a quote inside a cell that does not start with one
/// (`5" screen, big`): text to every reader, so the delimiter after it ends the cell,
/// where its writer most likely meant it to quote the cell. `record` is one record's text
/// from its start, which is on `line` (after the line end the csv crate may place it at:
/// the `\n` of a `\r\n`); `header` names its columns. The problem is at the first such
/// quote's line, column (in characters) and field; `None` when there is none.
pub fn stray_quote(
    record: &[u8],
    delimiter: u8,
    header: &[String],
    fields: usize,
    line: u64,
) -> Option<Problem> {
    let ends = record.iter().take_while(|&&b| b == b'\n' || b == b'\r').count();
    let record = &record[ends..];
    let (cell, at) = quote_in_plain(record, delimiter)?;
    let before = &record[..at];
    let line_start = before.iter().rposition(|&b| b == b'\n' || b == b'\r').map_or(0, |i| i + 1);
    let within = memchr::memchr_iter(b'\n', before).count()
        + before.windows(2).filter(|w| w[0] == b'\r' && w[1] != b'\n').count()
        + usize::from(before.last() == Some(&b'\r'));
    let column = String::from_utf8_lossy(&record[line_start..at]).chars().count() as u64 + 1;
    let cell_start = before.iter().rposition(|&b| b == delimiter).map_or(line_start, |i| i + 1);
    let cell_end = (record[at..].iter())
        .position(|&b| b == delimiter || b == b'\n' || b == b'\r')
        .map_or(record.len(), |i| at + i);
    let text = String::from_utf8_lossy(&record[cell_start..cell_end]);
    let message = format!(
        "record has {fields} fields, the header has {}: the quote at column {column} is inside a cell that does not start with one (`{}`), which quotes nothing, so a delimiter after it ends the cell; to keep a delimiter in a cell, quote the whole cell and double each quote in it (`\"5\"\" screen, big\"`)",
        header.len(),
        super::convert::clip(&text),
    );
    let problem = Problem::unplaced(Some(line + within as u64), message).with_column(column);
    Some(match header.get(cell) {
        Some(name) => problem.with_field(name.clone()),
        None => problem,
    })
}

/// The first quote inside a cell that did not start with one, in the first record of
/// `record`: its cell (from 0) and byte offset.
fn quote_in_plain(record: &[u8], delimiter: u8) -> Option<(usize, usize)> {
    let (mut state, mut cell) = (State::Start, 0);
    for (i, &b) in record.iter().enumerate() {
        let line_end = b == b'\n' || b == b'\r';
        match state {
            State::Start | State::Plain | State::Closed if line_end => return None,
            State::Start | State::Plain | State::Closed if b == delimiter => {
                state = State::Start;
                cell += 1;
            }
            State::Start if b == b'"' => state = State::Quoted,
            State::Plain if b == b'"' => return Some((cell, i)),
            State::Closed if b == b'"' => state = State::Quoted,
            State::Start | State::Plain | State::Closed => state = State::Plain,
            State::Quoted if b == b'"' => state = State::Closed,
            State::Quoted => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stray_quote_in_an_unquoted_cell_is_found_at_its_line_column_and_field() {
        let header: Vec<String> = ["id", "name", "rating"].map(String::from).to_vec();
        let text = "7,Café \"Big, Apple\",4.5\n";
        let p = stray_quote(text.as_bytes(), b',', &header, 4, 9).expect("a stray quote");
        assert_eq!((p.line, p.column, p.field.as_deref()), (Some(9), Some(8), Some("name")));
        assert!(
            p.message.starts_with("record has 4 fields, the header has 3: the quote at column 8 is inside a cell that does not start with one (`Café \"Big`)"),
            "{}",
            p.message
        );
        // After a quoted cell over two lines, whose doubled quotes are its own.
        let text = b"1,\"a\r\nb \"\"c\"\"\",x\"y,z\n";
        let p = stray_quote(text, b',', &header, 4, 3).expect("a stray quote");
        assert_eq!((p.line, p.column, p.field.as_deref()), (Some(4), Some(11), Some("rating")));
        assert!(p.message.contains("(`x\"y`)"), "{}", p.message);
        // Past the header's columns no field; quotes that open cells are no stray ones.
        let p = stray_quote(b"1,2,3,4\"\n", b',', &header, 4, 1).expect("a stray quote");
        assert_eq!((p.column, p.field), (Some(8), None));
        assert!(stray_quote(b"1,\"a, b\",c,d\n", b',', &header, 4, 1).is_none());
        assert!(stray_quote(b"1,a,b,c\n2,x\"", b',', &header, 4, 1).is_none(), "one record");
        // Placed at the line end before it, as the csv crate places a record after `\r\n`.
        let p = stray_quote(b"\n1,2,3,4\"\n", b',', &header, 4, 1).expect("a stray quote");
        assert_eq!((p.line, p.column), (Some(1), Some(8)));
    }

    #[test]
    fn a_quote_never_closed_is_found_at_the_line_it_opened() {
        let text = b"1,a\n2,\"oops\n3,b\n4,c\n";
        assert_eq!(breaks(text, b','), [Break::Unclosed { line: 2, cell: 1, record_start: 4 }]);
        // In the last record, with CRLF and a lone CR before it.
        let text = b"1,a\r\n2,b\r3,\"never closed";
        assert_eq!(breaks(text, b','), [Break::Unclosed { line: 3, cell: 1, record_start: 9 }]);
        // Line ends inside a closed quoted cell count as lines.
        let text = b"1,\"a\r\nb\"\n\"x";
        assert_eq!(breaks(text, b','), [Break::Unclosed { line: 3, cell: 0, record_start: 9 }]);
    }

    #[test]
    fn the_text_fed_in_pieces_has_the_breaks_and_record_starts_of_the_whole() {
        let text = b"1,\"a\r\nb\"c\r\n2,\"x\"\"\"\r3,\"open\r\nmore";
        let whole = breaks(text, b',');
        for cut in 0..text.len() {
            let mut scan = Scan::new(b',');
            let mut found = scan.feed(&text[..cut]);
            found.extend(scan.feed(&text[cut..]));
            found.extend(scan.finish());
            assert_eq!(found, whole, "cut at {cut}");
            assert_eq!(scan.line(), 5, "cut at {cut}");
        }
        assert_eq!(
            whole,
            [
                Break::AfterClose { line: 2, cell: 1 },
                Break::Unclosed { line: 4, cell: 1, record_start: 19 }
            ]
        );
    }

    #[test]
    fn text_after_a_closing_quote_is_found_and_well_quoted_text_passes() {
        assert_eq!(breaks(b"1,\"ab\"c\n2,x\n", b','), [Break::AfterClose { line: 1, cell: 1 }]);
        assert_eq!(breaks(b"1;\"a\"\" b\";\"\"\n\n2;x", b';'), []);
        // A quote inside an unquoted cell is text, as every reader keeps it.
        assert_eq!(breaks(b"1,ab\"c\n2,x\"\n", b','), []);
        assert_eq!(breaks(b"", b','), []);
    }
}
