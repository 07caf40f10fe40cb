//! Excel's first line `sep=X`, which names the delimiter.

use crate::diag::Problem;

/// The longest first line [`excel_sep`] reads: `sep=` with one character and `\r\n`.
pub(super) const SEP_LINE_MAX: usize = 7;

/// Excel's first line `sep=X` (any case, as Excel reads it): the delimiter X it names and
/// the bytes of the line with its line end. `None` when the file does not start with one.
pub(super) fn excel_sep(bytes: &[u8]) -> Option<(u8, usize)> {
    let (word, rest) = bytes.split_at_checked(4)?;
    let (&named, after) = rest.split_first()?;
    if !word.eq_ignore_ascii_case(b"sep=") || !named.is_ascii() || b"\"\r\n".contains(&named) {
        return None;
    }
    let end = match after {
        [b'\r', b'\n', ..] => 2,
        [b'\n' | b'\r', ..] => 1,
        [] => 0,
        _ => return None,
    };
    Some((named, 5 + end))
}

/// What the line at the start of `bytes` names after `sep=` (any case), when it is a line
/// of `sep=` and one character, ASCII or not; `None` when it is not such a line.
pub(super) fn sep_named(bytes: &[u8]) -> Option<String> {
    let (word, rest) = bytes.split_at_checked(4)?;
    if !word.eq_ignore_ascii_case(b"sep=") {
        return None;
    }
    let line = &rest[..memchr::memchr2(b'\r', b'\n', rest).unwrap_or(rest.len())];
    let text = std::str::from_utf8(line).ok()?;
    let mut chars = text.chars();
    let named = chars.next()?;
    chars.next().is_none().then(|| named.escape_debug().to_string())
}

/// A first line `sep=X` that Excel would not read as a delimiter: X is no ASCII character
/// (a curly quote, as a word processor writes for `"`), or the quote itself. Read as the
/// header, it would make every row a problem of its own.
pub(super) fn no_sep(bytes: &[u8]) -> Option<Problem> {
    let named = sep_named(bytes)?;
    let message = format!(
        "the first line `sep={named}` names `{named}` as the delimiter, but a delimiter is one ASCII character other than `\"` (`;`, `,`, a tab, `|`): write the delimiter the file uses after `sep=` (a word processor may have turned a quote curly), or delete the line and set `csv_delimiter` under [input]"
    );
    Some(Problem::unplaced(Some(1), message))
}

/// A problem of the header, found in the bytes after Excel's `sep=` line (`skip` bytes,
/// none when there is no such line): at its line in the file.
pub(super) fn below_sep(problem: Problem, skip: usize) -> Problem {
    match problem.line {
        Some(line) if skip > 0 => Problem { line: Some(line + 1), ..problem },
        _ => problem,
    }
}
