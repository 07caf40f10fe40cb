//! A record as a reader found it, before its fields are resolved: JSON text to parse, an
//! object a CSV row became, or a row refused with the id it had.

use serde_json::Value;

use super::tree::Obj;

/// One record as a parser found it: raw JSON text to parse, or an object already built.
pub enum Raw<'a> {
    /// The text of one JSON value, not yet checked to be UTF-8, with the line and column
    /// (from 1) where it starts, and its index in its array when it shares its line with
    /// other records (a one-line array), where the line alone does not find it.
    Text {
        line: u64,
        column: u64,
        index: Option<u64>,
        text: &'a [u8],
    },
    Object {
        line: u64,
        object: Obj<'static>,
    },
    /// A record refused by its parser (a CSV row with a cell that does not convert), with
    /// its id cell when that one converted: still checked to be unique.
    Refused {
        line: u64,
        id: Value,
    },
}

impl Raw<'_> {
    pub fn line(&self) -> u64 {
        match self {
            Raw::Text { line, .. } | Raw::Object { line, .. } | Raw::Refused { line, .. } => *line,
        }
    }
}
