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
    let mut found = Vec::new();
    let mut state = State::Start;
    let (mut line, mut cell) = (1u64, 0usize);
    let (mut opened, mut record_start) = (1u64, 0usize);
    let mut i = 0;
    while i < text.len() {
        let b = text[i];
        let line_end = b == b'\n' || b == b'\r';
        match state {
            State::Start | State::Plain | State::Closed if line_end => {
                state = State::Start;
                cell = 0;
                line += 1;
                if b == b'\r' && text.get(i + 1) == Some(&b'\n') {
                    i += 1;
                }
                record_start = i + 1;
            }
            State::Start | State::Plain | State::Closed if b == delimiter => {
                state = State::Start;
                cell += 1;
            }
            State::Start if b == b'"' => {
                state = State::Quoted;
                opened = line;
            }
            State::Start | State::Plain => state = State::Plain,
            State::Quoted if b == b'"' => state = State::Closed,
            State::Quoted => {
                if line_end {
                    line += 1;
                    if b == b'\r' && text.get(i + 1) == Some(&b'\n') {
                        i += 1;
                    }
                }
            }
            State::Closed if b == b'"' => state = State::Quoted,
            State::Closed => {
                found.push(Break::AfterClose { line, cell });
                state = State::Plain;
            }
        }
        i += 1;
    }
    if state == State::Quoted {
        found.push(Break::Unclosed { line: opened, cell, record_start });
    }
    found
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
    fn text_after_a_closing_quote_is_found_and_well_quoted_text_passes() {
        assert_eq!(breaks(b"1,\"ab\"c\n2,x\n", b','), [Break::AfterClose { line: 1, cell: 1 }]);
        assert_eq!(breaks(b"1;\"a\"\" b\";\"\"\n\n2;x", b';'), []);
        // A quote inside an unquoted cell is text, as every reader keeps it.
        assert_eq!(breaks(b"1,ab\"c\n2,x\"\n", b','), []);
        assert_eq!(breaks(b"", b','), []);
    }
}
