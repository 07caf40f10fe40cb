//! What a data file may hold, enforced as it is read, so that no file's bytes cost more
//! memory than a batch and one record: a file is read up to its first NUL byte (which no
//! text file holds: a file cut short or not yet written, a sparse or preallocated one, or
//! binary data), and one record (a CSV row, a JSON element, a JSON Lines line) is at most
//! [`MAX_RECORD`] bytes.

use std::io::{self, Read};

/// The most bytes one record may take in its file: 16 MiB, as a MongoDB document. A record
/// that goes on past it is refused where it starts, so that a quote or bracket never
/// closed, or a line with no end, does not make folio hold the rest of the file.
pub const MAX_RECORD: usize = 16 << 20;

/// [`MAX_RECORD`] in words.
pub const MAX_RECORD_WORDS: &str = "16 MiB";

/// A reader that ends at the first NUL byte of `inner`: its bytes before it are read, then
/// it says the file ends, and where the NUL was is kept.
pub struct UpToNul<R> {
    inner: R,
    /// How many bytes were handed out.
    offset: u64,
    /// The file offset of the first NUL byte, once read.
    pub nul: Option<u64>,
}

impl<R> UpToNul<R> {
    pub fn new(inner: R) -> Self {
        UpToNul { inner, offset: 0, nul: None }
    }
}

impl<R: Read> Read for UpToNul<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        if self.nul.is_some() {
            return Ok(0);
        }
        let n = self.inner.read(buf)?;
        let n = match memchr::memchr(0, &buf[..n]) {
            Some(at) => {
                self.nul = Some(self.offset + at as u64);
                at
            }
            None => n,
        };
        self.offset += n as u64;
        Ok(n)
    }
}

/// The line and the column (from 1, in characters) of the byte at offset `at` of the text
/// `reader` reads (a BOM at its start is no character). Lines end at `\n`; with `csv`, at
/// a lone `\r` too, as the CSV reader counts them.
pub fn locate(reader: impl Read, at: u64, csv: bool) -> io::Result<(u64, u64)> {
    let mut reader = reader.take(at);
    let mut buf = vec![0; 1 << 16];
    let (mut line, mut chars, mut after_cr) = (1u64, 0u64, false);
    let mut first = true;
    loop {
        let n = reader.read(&mut buf)?;
        if n == 0 {
            return Ok((line, chars + 1));
        }
        let mut bytes = &buf[..n];
        if std::mem::take(&mut first) && bytes.starts_with(b"\xEF\xBB\xBF") {
            bytes = &bytes[3..];
        }
        for &b in bytes {
            match b {
                b'\n' if after_cr => after_cr = false,
                b'\n' => (line, chars) = (line + 1, 0),
                b'\r' if csv => (line, chars, after_cr) = (line + 1, 0, true),
                _ => {
                    after_cr = false;
                    // Every byte but a UTF-8 continuation byte starts a character.
                    chars += u64::from((b as i8) >= -0x40);
                }
            }
        }
    }
}

/// What a file with a NUL byte is told, at its line.
pub fn nul_message(column: u64) -> String {
    format!(
        "a NUL byte (column {column}): no text file holds one, so the file is read no further; it was cut short or is still being written (a sparse or preallocated file), or it is not UTF-8 text"
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_reader_stops_at_the_first_nul_and_says_where() {
        let text = b"id,name\n1,a\n2,b\0\0\0 more";
        let mut reader = UpToNul::new(&text[..]);
        let mut got = Vec::new();
        reader.read_to_end(&mut got).unwrap();
        assert_eq!(got, b"id,name\n1,a\n2,b");
        assert_eq!(reader.nul, Some(15));
        assert_eq!(locate(&text[..], 15, true).unwrap(), (3, 4));
    }

    #[test]
    fn a_column_counts_characters_and_a_line_ends_as_the_format_says() {
        let text = "\u{feff}é\r\nàb\rcd".as_bytes();
        let at = text.len() as u64 - 1; // the `d`
        assert_eq!(locate(text, at, true).unwrap(), (3, 2));
        assert_eq!(locate(text, at, false).unwrap(), (2, 5));
    }
}
