//! Diagnostics: the problems folio finds in user input, collected across the whole run
//! and printed compiler-style (`path:line: field: message`). This module owns their
//! shape, order and wording of the location; the loaders own the messages.

use std::fmt;
use std::path::{Path, PathBuf};

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
}

impl Problem {
    pub fn new(file: usize, path: &Path, line: Option<u64>, message: impl Into<String>) -> Self {
        Problem { file, path: path.to_path_buf(), line, field: None, message: message.into() }
    }

    /// A problem found before its file is known (by a parser, or in one record): the
    /// loader places it with [`Problem::at`].
    pub fn unplaced(line: Option<u64>, message: impl Into<String>) -> Self {
        Problem { file: 0, path: PathBuf::new(), line, field: None, message: message.into() }
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
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if let Some(field) = &self.field {
            write!(f, ": {field}")?;
        }
        write!(f, ": {}", self.message)
    }
}

/// A problem with the config itself, printed as `folio.toml: message` (or `:line:`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError {
    /// The config file as the user should read it.
    pub path: PathBuf,
    /// 1-based line, when the problem is in the file's syntax or keys.
    pub line: Option<u64>,
    pub message: String,
}

impl ConfigError {
    pub fn new(path: &Path, line: Option<u64>, message: impl Into<String>) -> ConfigError {
        ConfigError { path: path.to_path_buf(), line, message: message.into() }
    }
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.path.display())?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        write!(f, ": {}", self.message)
    }
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

/// Sorts problems into walk order, then line order; problems on one line keep the order
/// in which they were found.
pub fn sort(problems: &mut [Problem]) {
    problems.sort_by_key(|p| (p.file, p.line.unwrap_or(0)));
}

/// Shows `path` relative to the working directory when it lies below it, so messages read
/// like `data/a.csv:3: ...` rather than an absolute path.
pub fn display_path(path: &Path) -> PathBuf {
    std::env::current_dir()
        .ok()
        .and_then(|cwd| path.strip_prefix(&cwd).ok().map(Path::to_path_buf))
        .unwrap_or_else(|| path.to_path_buf())
}

#[cfg(test)]
mod tests {
    use super::*;

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
