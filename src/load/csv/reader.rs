//! The csv crate's reader as folio sets it up for a file's header or a chunk of its rows:
//! no header row of its own, rows of any length, the file's delimiter, and a BOM mid-file
//! kept as the cell's.

use std::io::{self, Read};

/// A csv reader that keeps a BOM at its start ([`csv_reader`]).
pub(super) type BomKeeping<'a> = csv::Reader<io::Chain<&'a [u8], &'a [u8]>>;

/// A csv reader of `bytes` (a file's header, or a chunk of its rows), and how many bytes
/// its positions are ahead of `bytes`'. The csv crate drops a BOM at the start of what it
/// reads, taking it for the file's: a chunk that starts with one (a BOM mid-file, which
/// belongs to its cell) is read after a blank line, which it skips, so the BOM stays.
pub(super) fn csv_reader(bytes: &[u8], delimiter: u8) -> (BomKeeping<'_>, u64) {
    let before: &[u8] = if bytes.starts_with(b"\xEF\xBB\xBF") { b"\n" } else { b"" };
    let reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(before.chain(bytes));
    (reader, before.len() as u64)
}
