//! The quoting of a CSV text, followed byte by byte as RFC 4180 reads it: a quote at the
//! start of a cell opens it, `""` inside is one quote, and the next quote closes it. The
//! csv crate reads on where a file breaks these rules (the text after a closing quote is
//! kept, a quote never closed takes the rest of the file into one cell), so a broken file
//! would lose records or change values without a word; this scan finds both breaks, with
//! the line where the cell's quote opened. It runs only where the fast cut of rows found
//! irregular quoting (`split_rows`), so a well-quoted file never pays for it.

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

#[cfg(test)]
mod tests {
    use super::*;

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
