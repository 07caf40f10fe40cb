//! Diagnostics: the problems folio finds in user input, collected across the whole run
//! and printed compiler-style (`path:line: field: message`). This module owns their
//! shape, order and wording of the location; the loaders own the messages.

use std::borrow::Cow;
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
    /// 1-based column (in characters) on that line of what it is about, when the reader
    /// knows it; its message says it too (`folio check --format json` gives it apart).
    pub column: Option<u64>,
    /// The field the problem is about, if any.
    pub field: Option<String>,
    pub message: String,
    /// The input value the problem is about, as written (a CSV cell, a JSON value):
    /// problems that differ only by it are one kind ([`group_repeats`]).
    pub value: Option<String>,
    /// The record in a line of many (a one-line JSON array), where the line alone does not
    /// find it.
    pub record: Option<Box<At>>,
    /// What makes it one kind with others when its words differ by more than its value (a
    /// number too long for 64 bits, said with how it would be written): problems of one
    /// kind, field and file are grouped ([`group_repeats`]) as problems of one value are.
    pub kind: Option<Box<str>>,
    /// How many problems of the input it stands for: 1, or more for one that says a group
    /// of them (its kind's count, kept ones and the ones only counted past
    /// [`MAX_PROBLEMS`]; or, for the line that says more are not listed, how many).
    pub count: u64,
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
        Problem {
            file,
            path,
            line,
            column: None,
            field: None,
            message,
            value: None,
            record: None,
            kind: None,
            count: 1,
        }
    }

    /// A problem found before its file is known (by a parser, or in one record): the
    /// loader places it with [`Problem::at`].
    pub fn unplaced(line: Option<u64>, message: impl Into<String>) -> Self {
        let message = message.into();
        let path = PathBuf::new();
        Problem::new(0, &path, line, message)
    }

    /// The problem, placed in the file `path` at walk position `file`.
    pub fn at(mut self, file: usize, path: &Path) -> Self {
        self.file = file;
        self.path = path.to_path_buf();
        self
    }

    /// The problem, at `column` (in characters) of its line.
    pub fn with_column(mut self, column: u64) -> Self {
        self.column = Some(column);
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

    /// The problem, one of `kind` ([`Problem::kind`]).
    pub fn with_kind(mut self, kind: impl Into<Box<str>>) -> Self {
        self.kind = Some(kind.into());
        self
    }

    /// What makes problems one kind, when they are of one field in one file: their
    /// [`Problem::kind`], or what they say with their value left out. `None`: a problem of
    /// its own, never grouped.
    pub fn kind_key(&self) -> Option<String> {
        if let Some(kind) = &self.kind {
            return Some(format!("kind:{kind}"));
        }
        let v = self.value.as_ref()?;
        Some(self.message.replacen(&format!("{v:?}"), "", 1).replacen(v.as_str(), "", 1))
    }
}

/// How many problems of the input `problems` stand for (each its [`Problem::count`]): what
/// the summary says, however they are grouped or listed.
pub fn count(problems: &[Problem]) -> u64 {
    problems.iter().map(|p| p.count).sum()
}

/// Past this many, the problems of one kind with one field in one file are said once.
const REPEATS: usize = 3;

/// The lines a grouped problem names.
const SHOWN_LINES: usize = 5;

/// Problems that repeat (more than [`REPEATS`] of one kind, with one field, in one file:
/// a column of a spreadsheet's export in another locale) as one problem each, at the first
/// one's line: how many (each problem's [`Problem::count`] summed: the ones counted past
/// [`MAX_PROBLEMS`] too), on which lines (the first few), the first one's words, and the
/// fix where the values show it (a decimal comma). The rest keep their order.
pub fn group_repeats(problems: Vec<Problem>) -> Vec<Problem> {
    use std::collections::HashMap;
    let keys: Vec<Option<(usize, Option<String>, String)>> =
        problems.iter().map(|p| p.kind_key().map(|k| (p.file, p.field.clone(), k))).collect();
    let mut groups: HashMap<&(usize, Option<String>, String), Vec<usize>> = HashMap::new();
    for (i, key) in keys.iter().enumerate() {
        if let Some(key) = key {
            groups.entry(key).or_default().push(i);
        }
    }
    let mut out = Vec::with_capacity(problems.len());
    for (i, p) in problems.iter().enumerate() {
        let Some(group) = keys[i].as_ref().and_then(|key| groups.get(key)) else {
            out.push(p.clone());
            continue;
        };
        let total: u64 = group.iter().map(|&j| problems[j].count).sum();
        if total <= REPEATS as u64 {
            out.push(p.clone());
        } else if group[0] == i {
            // Each line once (a one-line array's records share theirs), the first few.
            let mut lines: Vec<u64> = group.iter().filter_map(|&j| problems[j].line).collect();
            lines.dedup();
            let counted = group.iter().any(|&j| problems[j].count > 1);
            let more = if lines.len() > SHOWN_LINES || counted { ", …" } else { "" };
            let word = if lines.len() == 1 && more.is_empty() { "line" } else { "lines" };
            let lines: Vec<String> = lines.iter().take(SHOWN_LINES).map(u64::to_string).collect();
            let mut values = group.iter().map(|&j| problems[j].value.as_deref());
            let hint = if values.all(|v| v.is_some_and(decimal_comma)) {
                "; they use a decimal comma: set `decimal_separator = \",\"` in [input]"
            } else {
                ""
            };
            let message = format!(
                "{total} values in this file are like this one ({word} {}{more}): {}{hint}",
                lines.join(", "),
                p.message
            );
            out.push(Problem { message, count: total, ..p.clone() });
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
/// name, a value) is shown escaped (`\u{a}`), as [`printable`] shows every character
/// that may not be printed as it is, so that no input can make a message print a line of
/// its own (the writer, [`line`], escapes them again, whatever else a message holds).
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
        f.write_str(&printable(&line))
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

/// Whether `c` may be printed as it is: not a control character (a tab, a newline and
/// NEL, U+0085, among them), nor a line or paragraph separator (U+2028, U+2029), which a
/// log viewer may break a line at, nor a mark that turns the direction of the text around
/// it (U+061C, U+200E-200F, U+202A-202E, U+2066-2069), which a value read from a store
/// or a file may hold to make a message say something else.
pub fn shows_as_is(c: char) -> bool {
    !(c.is_control()
        || matches!(c, '\u{2028}' | '\u{2029}' | '\u{61c}' | '\u{200e}' | '\u{200f}')
        || ('\u{202a}'..='\u{202e}').contains(&c)
        || ('\u{2066}'..='\u{2069}').contains(&c))
}

/// `text` with every character that may not be printed as it is ([`shows_as_is`])
/// escaped as Rust writes it (`\u{1b}`, a newline `\u{a}`), the rest as written: one
/// line, whatever `text` holds.
pub fn printable(text: &str) -> Cow<'_, str> {
    if text.chars().all(shows_as_is) {
        return Cow::Borrowed(text);
    }
    let mut shown = String::with_capacity(text.len() + 16);
    escape_into(&mut shown, text);
    Cow::Owned(shown)
}

fn escape_into(out: &mut String, text: &str) {
    use std::fmt::Write;
    for c in text.chars() {
        if shows_as_is(c) {
            out.push(c);
        } else {
            let _ = write!(out, "{}", c.escape_unicode());
        }
    }
}

/// How many characters of a value from outside (a key, a store's or a CDN's words, an
/// environment variable) a message repeats; the rest is counted ([`cut`]).
pub const SHOWN_CHARS: usize = 200;

/// `value` as a message repeats it: whole up to [`SHOWN_CHARS`] characters, else its
/// first ones and how many more there are (`abc… (959800 more characters)`).
pub fn cut(value: &str) -> Cow<'_, str> {
    match value.char_indices().nth(SHOWN_CHARS) {
        None => Cow::Borrowed(value),
        Some((at, _)) => {
            let more = value[at..].chars().count();
            Cow::Owned(format!("{}… ({more} more characters)", &value[..at]))
        }
    }
}

/// A printed line past this many characters (of what it was given, before escapes) keeps
/// its first [`LINE_HEAD`] and last [`LINE_TAIL`] and says how many it left out between:
/// a bound for what no message cut to [`SHOWN_CHARS`] (folio's own words are far shorter).
pub const LINE_CHARS: usize = 2000;
const LINE_HEAD: usize = 1500;
const LINE_TAIL: usize = 400;

/// What a printed line may begin with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Opening {
    /// Text: a `::` at its start (after any white space) would be a CI runner's command
    /// (GitHub's `::error::`), so it is escaped.
    Text,
    /// One of folio's own workflow commands (`check --format github`): its `::` is kept.
    Command,
}

/// `text` as folio prints it on a line of its own, on either stream, in a terminal or a
/// CI log, which a runner reads commands from (`::cmd::` at a line's start after white
/// space, `##[cmd]` anywhere in it). Whatever `text` holds, the line is one line: every
/// line break, control and direction mark is escaped ([`printable`]); a `#` that would
/// make `##[` is shown `\u{23}` (`#\u{23}[`); with [`Opening::Text`], a `:` that would
/// open the line with `::` is shown `\u{3a}`; and past [`LINE_CHARS`] characters its
/// middle is left out, counted (`… (959800 characters left out) …`).
pub fn line(text: &str, opening: Opening) -> String {
    let mut out = String::with_capacity(text.len().min(4 * LINE_CHARS) + 16);
    // A length in bytes bounds the count of characters: only a long text is counted.
    let count = if text.len() > LINE_CHARS { text.chars().count() } else { 0 };
    if count > LINE_CHARS {
        let head_end = text.char_indices().nth(LINE_HEAD).map_or(text.len(), |(at, _)| at);
        let tail_start =
            text.char_indices().nth(count - LINE_TAIL).map_or(text.len(), |(at, _)| at);
        escape_into(&mut out, &text[..head_end]);
        out.push_str(&format!(" … ({} characters left out) … ", count - LINE_HEAD - LINE_TAIL));
        escape_into(&mut out, &text[tail_start..]);
    } else {
        escape_into(&mut out, text);
    }
    // `#\u{23}[` holds no `##[`, nor makes one with a `#` before it: one pass is enough.
    if out.contains("##[") {
        out = out.replace("##[", "#\\u{23}[");
    }
    if opening == Opening::Text {
        // The runner trims Unicode white space (.NET's `TrimStart`), as `trim_start` does.
        let lead = out.len() - out.trim_start().len();
        if out[lead..].starts_with("::") {
            out.replace_range(lead..lead + 1, "\\u{3a}");
        }
    }
    out
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

/// The first few of `keys` (sorted), as a message names them, each [`cut`]: a key read
/// from a store or a record may be of any length.
pub fn first_keys(keys: &[String]) -> String {
    const SHOWN: usize = 5;
    let mut sorted: Vec<&String> = keys.iter().collect();
    sorted.sort();
    let shown: Vec<String> = sorted.iter().take(SHOWN).map(|k| format!("`{}`", cut(k))).collect();
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
    fn a_printed_line_is_one_line_whatever_breaks_its_text_holds() {
        // Every line break a runner or a log viewer may break at, and the other controls.
        let text = "a\nb\rc\r\nd\u{85}e\u{2028}f\u{2029}g\th\u{b}i\u{c}j\u{0}k\u{1b}[31ml";
        let shown = line(text, Opening::Text);
        assert_eq!(
            shown,
            "a\\u{a}b\\u{d}c\\u{d}\\u{a}d\\u{85}e\\u{2028}f\\u{2029}g\\u{9}h\\u{b}i\\u{c}j\\u{0}k\\u{1b}[31ml"
        );
        let breaks = ['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}', '\u{b}', '\u{c}'];
        assert!(!shown.contains(breaks), "{shown:?}");
        // What turns the direction of the text around, and nothing else of Unicode.
        let bidi = "x\u{202e}y\u{2066}z\u{2069}\u{200f}\u{200e}\u{61c}\u{202a}";
        assert_eq!(
            line(bidi, Opening::Text),
            "x\\u{202e}y\\u{2066}z\\u{2069}\\u{200f}\\u{200e}\\u{61c}\\u{202a}"
        );
        let words = "Musée d'Orsay, 東京タワー, عربي, e\u{301}, 👩\u{200d}🔧";
        assert_eq!(line(words, Opening::Text), words);
    }

    #[test]
    fn a_printed_line_opens_no_workflow_command_and_holds_no_legacy_one() {
        // As the data value of the issue would print: its `\r\n` would open a line with
        // `::warning::`, and `##[error]` is a command anywhere in a line.
        let value = "a\r\n::warning::F1 %0A 9%,b ##[error]F2";
        let shown =
            line(&format!("data/a.csv:6: rating: {value:?} is not a number"), Opening::Text);
        assert_eq!(
            shown,
            "data/a.csv:6: rating: \"a\\r\\n::warning::F1 %0A 9%,b #\\u{23}[error]F2\" is not a number"
        );
        let raw = line(&format!("x: {value}"), Opening::Text);
        assert_eq!(raw, "x: a\\u{d}\\u{a}::warning::F1 %0A 9%,b #\\u{23}[error]F2");
        // `::` at the start, after white space too (the runner trims it: tabs are escaped,
        // the other white space of Unicode is not, and is trimmed as .NET does).
        assert_eq!(line("::error::x", Opening::Text), "\\u{3a}:error::x");
        assert_eq!(
            line("  \u{a0}\u{3000}::add-mask::x", Opening::Text),
            "  \u{a0}\u{3000}\\u{3a}:add-mask::x"
        );
        assert_eq!(line("\t::error::x", Opening::Text), "\\u{9}::error::x");
        assert_eq!(line(": :x::", Opening::Text), ": :x::", "no `::` opens it");
        // `##[` wherever it is, however many `#` lead to it, and twice.
        assert_eq!(line("###[a] ##[b]##[", Opening::Text), "##\\u{23}[a] #\\u{23}[b]#\\u{23}[");
        assert_eq!(line("#\n#[x]", Opening::Text), "#\\u{a}#[x]");
        // folio's own command keeps its `::`, and nothing else of it is a command.
        assert_eq!(
            line("::error file=a.csv,line=1::v ##[error]x", Opening::Command),
            "::error file=a.csv,line=1::v #\\u{23}[error]x"
        );
    }

    #[test]
    fn a_long_value_is_cut_and_a_long_line_keeps_its_ends_with_a_count_between() {
        let key = format!("{}{}", "k".repeat(SHOWN_CHARS), "é".repeat(50));
        assert_eq!(cut(&key), format!("{}… (50 more characters)", "k".repeat(SHOWN_CHARS)));
        assert_eq!(cut("short"), "short");
        let keys: Vec<String> = vec!["b".repeat(960_000), "a".into()];
        assert_eq!(
            first_keys(&keys),
            format!("`a`, `{}… (959800 more characters)`", "b".repeat(SHOWN_CHARS))
        );
        // A line of 960,000 characters, the first ones and the last ones of it kept.
        let long = format!("warning: the key `{}` is owed", "x".repeat(960_000));
        let shown = line(&long, Opening::Text);
        let count = long.chars().count();
        let left_out = count - LINE_HEAD - LINE_TAIL;
        assert!(shown.starts_with("warning: the key `xxx"), "{}", &shown[..40]);
        assert!(shown.ends_with("xxx` is owed"));
        assert!(shown.contains(&format!("x … ({left_out} characters left out) … x")));
        assert_eq!(
            shown.chars().count(),
            LINE_HEAD
                + LINE_TAIL
                + format!(" … ({left_out} characters left out) … ").chars().count()
        );
        // Up to the bound a line is whole; escapes do not count against it.
        let whole = "\u{1b}".repeat(LINE_CHARS);
        assert_eq!(line(&whole, Opening::Text), "\\u{1b}".repeat(LINE_CHARS));
        // The cut never joins a `##` of its start to a `[` of its end.
        let mut joined = "#".repeat(LINE_HEAD);
        joined.push_str(&"[".repeat(LINE_CHARS));
        assert!(!line(&joined, Opening::Text).contains("##["));
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
