//! Diagnostics: the problems folio finds in user input, collected across the whole run
//! and printed compiler-style (`path:line: field: message`). This module owns their
//! shape, order and wording of the location; the loaders own the messages.

use std::fmt;
use std::path::{Path, PathBuf};

/// How many problems of one input file are kept and reported; that there are more is
/// said (every reader of a file stops keeping them there).
pub const MAX_PROBLEMS: usize = 1000;

/// One problem in the input, located as precisely as the input allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Problem {
    /// Position of the file in the walk order; problems print in walk order, then line order.
    pub file: usize,
    /// The file as the user should read it (relative to the working directory when possible).
    pub path: PathBuf,
    /// 1-based line the record (or syntax error) starts on; `None` for whole-file problems.
    pub line: Option<u64>,
    /// The field the problem is about, if any.
    pub field: Option<String>,
    pub message: String,
    /// The input value the problem is about, as written (a CSV cell, a JSON value):
    /// problems that differ only by it are one kind ([`group_repeats`]).
    pub value: Option<String>,
    /// The record in a line of many (a one-line JSON array), where the line alone does not
    /// find it.
    pub record: Option<Box<At>>,
}

/// A record among others on its line: its index in the array (from 0, as `data[i]`
/// reads it), the column it starts at, and its id when it has one.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct At {
    pub index: u64,
    pub column: u64,
    pub id: Option<String>,
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "record [{}] (", self.index)?;
        if let Some(id) = &self.id {
            write!(f, "id {id}, ")?;
        }
        write!(f, "column {})", self.column)
    }
}

impl Problem {
    pub fn new(file: usize, path: &Path, line: Option<u64>, message: impl Into<String>) -> Self {
        let message = message.into();
        let path = path.to_path_buf();
        Problem { file, path, line, field: None, message, value: None, record: None }
    }

    /// A problem found before its file is known (by a parser, or in one record): the
    /// loader places it with [`Problem::at`].
    pub fn unplaced(line: Option<u64>, message: impl Into<String>) -> Self {
        let message = message.into();
        let path = PathBuf::new();
        Problem { file: 0, path, line, field: None, message, value: None, record: None }
    }

    /// The problem, placed in the file `path` at walk position `file`.
    pub fn at(mut self, file: usize, path: &Path) -> Self {
        self.file = file;
        self.path = path.to_path_buf();
        self
    }

    pub fn with_field(mut self, field: impl Into<String>) -> Self {
        self.field = Some(field.into());
        self
    }

    pub fn with_record(mut self, record: Option<At>) -> Self {
        self.record = record.map(Box::new);
        self
    }

    pub fn with_value(mut self, value: impl Into<String>) -> Self {
        self.value = Some(value.into());
        self
    }

    /// What the problem says with its value left out: the same for every problem of its
    /// kind.
    fn kind(&self) -> String {
        match &self.value {
            Some(v) => self.message.replacen(&format!("{v:?}"), "", 1).replacen(v.as_str(), "", 1),
            None => self.message.clone(),
        }
    }
}

/// Past this many, the problems of one kind with one field in one file are said once.
const REPEATS: usize = 3;

/// The lines a grouped problem names.
const SHOWN_LINES: usize = 5;

/// Problems that repeat (more than [`REPEATS`] of one kind, with one field, in one file:
/// a column of a spreadsheet's export in another locale) as one problem each, at the first
/// one's line: how many, on which lines (the first few), the first one's words, and the
/// fix where the values show it (a decimal comma). The rest keep their order.
pub fn group_repeats(problems: Vec<Problem>) -> Vec<Problem> {
    use std::collections::HashMap;
    let key = |p: &Problem| (p.file, p.field.clone(), p.kind());
    let mut counts: HashMap<(usize, Option<String>, String), Vec<usize>> = HashMap::new();
    for (i, p) in problems.iter().enumerate() {
        if p.value.is_some() {
            counts.entry(key(p)).or_default().push(i);
        }
    }
    let mut out = Vec::with_capacity(problems.len());
    for (i, p) in problems.iter().enumerate() {
        let Some(group) = p.value.as_ref().and_then(|_| counts.get(&key(p))) else {
            out.push(p.clone());
            continue;
        };
        if group.len() <= REPEATS {
            out.push(p.clone());
        } else if group[0] == i {
            let lines: Vec<String> = (group.iter().take(SHOWN_LINES))
                .filter_map(|&j| problems[j].line.map(|l| l.to_string()))
                .collect();
            let more = if group.len() > SHOWN_LINES { ", …" } else { "" };
            let values = group.iter().filter_map(|&j| problems[j].value.as_deref());
            let hint = if values.clone().all(decimal_comma) {
                "; they use a decimal comma: set `decimal_separator = \",\"` in [input]"
            } else {
                ""
            };
            let message = format!(
                "{} values in this file are like this one (lines {}{more}): {}{hint}",
                group.len(),
                lines.join(", "),
                p.message
            );
            out.push(Problem { message, ..p.clone() });
        }
    }
    out
}

/// `4,7`, `-12,50`: a number written with a decimal comma.
fn decimal_comma(value: &str) -> bool {
    let digits = value.strip_prefix(['-', '+']).unwrap_or(value);
    let Some((whole, fraction)) = digits.split_once(',') else { return false };
    !whole.is_empty()
        && !fraction.is_empty()
        && whole.bytes().all(|b| b.is_ascii_digit())
        && fraction.bytes().all(|b| b.is_ascii_digit())
}

/// A problem is one line: a line break in what it repeats of the input (a key, a file's
/// name, a value) is shown escaped (`\u{a}`), as [`printable`] shows the other control
/// characters, so that no input can make a message print a line of its own.
impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut line = format!("{}", self.path.display());
        if let Some(n) = self.line {
            line.push_str(&format!(":{n}"));
        }
        if let Some(record) = &self.record {
            line.push_str(&format!(": {record}"));
        }
        if let Some(field) = &self.field {
            line.push_str(&format!(": {field}"));
        }
        line.push_str(&format!(": {}", self.message));
        if line.contains(['\n', '\r']) {
            line = line.replace('\n', "\\u{a}").replace('\r', "\\u{d}");
        }
        f.write_str(&line)
    }
}

/// A problem with the config itself, printed as `folio.toml: message` (or `:line:`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The config file as the user should read it.
    pub path: PathBuf,
    /// 1-based line, when the problem is in the file's syntax or keys.
    pub line: Option<u64>,
    /// 1-based column (in characters) of what the problem is about on its line, when the
    /// parse knows it. Not printed: the text stays `path:line: message` (a syntax error
    /// says its column in its words); `folio check --format json` gives it.
    pub column: Option<u64>,
    pub message: String,
    /// The language code the problem is about when it is no language (`sp` in
    /// `listing.languages`): whoever reports the problem may add the code meant.
    pub unknown_language: Option<String>,
    /// The dotted key a validation problem is about (`listing.page_sizes`), which places it
    /// at that key's line in the file; or the command-line flag it is about (`--to`), when
    /// the value came from it rather than from the file ([`ConfigError::flag`]).
    pub key: Option<Box<str>>,
}

impl ConfigError {
    pub fn new(path: &Path, line: Option<u64>, message: impl Into<String>) -> ConfigError {
        let message = message.into();
        let path = path.to_path_buf();
        ConfigError { path, line, column: None, message, unknown_language: None, key: None }
    }

    /// The command-line flag the problem is about (`--to`): its message names the flag, and
    /// no file is named.
    pub fn flag(&self) -> Option<&str> {
        self.key.as_deref().filter(|k| k.starts_with("--"))
    }

    /// The problem, at `column` of its line.
    pub fn with_column(mut self, column: u64) -> ConfigError {
        self.column = Some(column);
        self
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.flag().is_some() {
            return f.write_str(&self.message);
        }
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// Whether `c` may reach a terminal as it is: not a control character (but a newline and a
/// tab), nor one that turns the direction of text around what follows (U+202A-202E,
/// U+2066-2069), which a value read from a store or a file may hold to make a message say
/// something else.
fn shows_as_is(c: char) -> bool {
    matches!(c, '\n' | '\t')
        || !(c.is_control()
            || ('\u{202a}'..='\u{202e}').contains(&c)
            || ('\u{2066}'..='\u{2069}').contains(&c))
}

/// `text` as a terminal should be shown it: what may not reach it as it is escaped
/// (`\u{1b}`), the rest as written.
pub fn printable(text: &str) -> std::borrow::Cow<'_, str> {
    if text.chars().all(shows_as_is) {
        return std::borrow::Cow::Borrowed(text);
    }
    let shown = text
        .chars()
        .map(|c| if shows_as_is(c) { c.to_string() } else { c.escape_unicode().to_string() });
    std::borrow::Cow::Owned(shown.collect())
}

/// The candidate closest to `word`, when one is close enough to be what was meant: a
/// Jaro-Winkler similarity above 0.8 (clap's measure for its suggestions), or one edit
/// away (a transposition counts as one), which short words like `fe` for `fr` need.
pub fn nearest<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    candidates
        .into_iter()
        .map(|c| (strsim::jaro_winkler(word, c), strsim::osa_distance(word, c), c))
        .filter(|&(score, edits, _)| score > 0.8 || edits <= 1)
        .max_by(|a, b| a.0.total_cmp(&b.0))
        .map(|(_, _, c)| c)
}

/// `; did you mean `x`?` when a candidate is close to `word` (as [`nearest`]), else
/// nothing: the one spelling of a suggestion in every message.
pub fn did_you_mean<'a>(word: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    nearest(word, candidates).map(|c| format!("; did you mean `{c}`?")).unwrap_or_default()
}

/// Sorts problems into walk order, then line order, then record order on a line of many;
/// problems of one place keep the order in which they were found.
pub fn sort(problems: &mut [Problem]) {
    problems.sort_by_key(|p| (p.file, p.line.unwrap_or(0), p.record.as_ref().map(|r| r.index)));
}

/// Shows `path` relative to the working directory when it lies below it, so messages read
/// like `data/a.csv:3: ...` rather than an absolute path.
pub fn display_path(path: &Path) -> PathBuf {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(&cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
}

/// The first few of `keys` (sorted), as a message names them.
pub fn first_keys(keys: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut sorted: Vec<&String> = keys.iter().collect();
    sorted.sort();
    let shown: Vec<String> = sorted.iter().take(SHOWN).map(|k| format!("`{k}`")).collect();
    let more = if keys.len() > SHOWN {
        format!(" and {} more", keys.len() - SHOWN)
    } else {
        String::new()
    };
    format!("{}{more}", shown.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_is_one_line_whatever_its_input_holds() {
        // A key with a line break, as `{"k\nx": 1, "k\nx": 2}` has, cannot print a
        // line that reads as folio's own.
        let p = Problem::new(
            0,
            Path::new("data/a\nb.json"),
            Some(3),
            "the key `k\ndata/z.json:9: fake` appears twice\r",
        )
        .with_field("k\nx");
        let shown = p.to_string();
        assert_eq!(
            shown,
            "data/a\\u{a}b.json:3: k\\u{a}x: the key `k\\u{a}data/z.json:9: fake` appears twice\\u{d}"
        );
        assert_eq!(shown.lines().count(), 1);
    }

    #[test]
    fn a_problem_that_repeats_is_said_once_with_its_count_lines_and_fix() {
        let path = Path::new("data/a.csv");
        let bad = |line: u64, field: &str, value: &str| {
            Problem::new(
                0,
                path,
                Some(line),
                format!("{value:?} is not a number (finite decimals only)"),
            )
            .with_field(field)
            .with_value(value)
        };
        let mut problems: Vec<Problem> = (2..=4_772).map(|l| bad(l, "rating", "4,7")).collect();
        problems.insert(1, bad(2, "lat", "48,85"));
        problems.push(Problem::new(0, path, Some(9), "a duplicate id"));
        problems.push(bad(10, "lon", "abc"));
        let grouped = group_repeats(problems);
        assert_eq!(grouped.len(), 4, "{grouped:#?}");
        assert_eq!(
            grouped[0].to_string(),
            "data/a.csv:2: rating: 4771 values in this file are like this one (lines 2, 3, 4, 5, 6, …): \"4,7\" is not a number (finite decimals only); they use a decimal comma: set `decimal_separator = \",\"` in [input]"
        );
        // Three or fewer stay as they are; a value that is no decimal comma gets no hint.
        assert_eq!(
            grouped[1].to_string(),
            "data/a.csv:2: lat: \"48,85\" is not a number (finite decimals only)"
        );
        assert_eq!(
            grouped[3].to_string(),
            "data/a.csv:10: lon: \"abc\" is not a number (finite decimals only)"
        );
        let words: Vec<Problem> = (1..=5).map(|l| bad(l, "rating", &format!("x{l}"))).collect();
        let once = group_repeats(words);
        assert_eq!(once.len(), 1);
        assert!(!once[0].message.contains("decimal comma"), "{}", once[0].message);
    }

    #[test]
    fn prints_path_line_field_message() {
        let p = Problem::new(0, Path::new("data/a.csv"), Some(17), "\"abc\" is not a number")
            .with_field("rating");
        assert_eq!(p.to_string(), "data/a.csv:17: rating: \"abc\" is not a number");
        let p = Problem::new(0, Path::new("data/b.json"), None, "empty file");
        assert_eq!(p.to_string(), "data/b.json: empty file");
    }

    #[test]
    fn sorts_by_walk_order_then_line_keeping_discovery_order() {
        let mk = |file, line, msg: &str| Problem::new(file, Path::new("x"), Some(line), msg);
        let mut v = vec![mk(1, 2, "c"), mk(0, 9, "b"), mk(0, 3, "a1"), mk(0, 3, "a2")];
        sort(&mut v);
        let order: Vec<_> = v.iter().map(|p| p.message.as_str()).collect();
        assert_eq!(order, ["a1", "a2", "b", "c"]);
    }
}
