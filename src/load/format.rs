//! Which reader a data file takes, by its extension: CSV, TSV, JSON or JSON Lines.

use std::path::Path;

use crate::config::Project;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Csv,
    /// Tab-separated values: CSV with a tab between fields, whatever `csv_delimiter` says.
    Tsv,
    Json,
    JsonLines,
}

impl Format {
    /// The byte between fields of a CSV or TSV file.
    pub(super) fn delimiter(self, project: &Project) -> u8 {
        if self == Format::Tsv { b'\t' } else { project.csv_delimiter }
    }
}

/// The format of a data file, by its extension; `None`: not a data file.
pub(super) fn format_of(path: &Path) -> Option<Format> {
    match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
        "csv" => Some(Format::Csv),
        "tsv" => Some(Format::Tsv),
        "json" => Some(Format::Json),
        "jsonl" | "ndjson" => Some(Format::JsonLines),
        _ => None,
    }
}
