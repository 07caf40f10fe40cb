//! The translators' worklist: each record that lacks a translation, by language, with the
//! fields it lacks and where it is written. The loader counts missing translations
//! (`Dataset::missing`); which records they are is what a load with `fallback = "error"`
//! names, one problem each, so the worklist is that load's problems, matched back to the
//! records of the listing by their place.

use std::collections::{BTreeMap, HashMap};
use std::path::PathBuf;

use crate::config::{Fallback, Project};
use crate::load::Dataset;
use crate::model::Id;

/// One record's missing translations in one language.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Missing {
    /// The index of the language in `[listing] languages`.
    pub lang: usize,
    pub id: Id,
    /// The file as the user reads it, and the line the record starts on.
    pub path: PathBuf,
    pub line: Option<u64>,
    /// The localized fields the record has no value for in this language, in field order.
    pub fields: Vec<String>,
}

/// The words a load with `fallback = "error"` says of a missing translation.
fn said(lang: &str) -> String {
    format!("missing \"{lang}\" translation")
}

/// Every record of `data` (loaded from `project`) that lacks a translation, by language
/// (config order), then in the order the records are read. Empty when nothing is missing.
pub fn missing_translations(project: &Project, data: &Dataset) -> Vec<Missing> {
    if data.missing.is_empty() {
        return Vec::new();
    }
    let strict = Project { fallback: Fallback::Error, ..project.clone() };
    let Err(problems) = crate::load::load(&strict) else { return Vec::new() };
    // A record by its place: file, line, index in a line of many.
    let ids: HashMap<(usize, u64, Option<u32>), &Id> = (data.records.iter())
        .map(|r| ((r.origin.file, r.origin.line, r.origin.element.map(|e| e.index)), &r.id))
        .collect();
    let words: Vec<String> = project.shape.languages.iter().map(|l| said(l)).collect();
    let mut found: BTreeMap<(usize, usize, u64, Option<u32>), Missing> = BTreeMap::new();
    for p in problems {
        let Some(lang) = words.iter().position(|w| *w == p.message) else { continue };
        let (Some(line), Some(field)) = (p.line, p.field) else { continue };
        let index = p.record.as_ref().map(|at| at.index as u32);
        let Some(&id) = ids.get(&(p.file, line, index)) else { continue };
        let entry = found.entry((lang, p.file, line, index)).or_insert_with(|| Missing {
            lang,
            id: id.clone(),
            path: p.path.clone(),
            line: Some(line),
            fields: Vec::new(),
        });
        if !entry.fields.contains(&field) {
            entry.fields.push(field);
        }
    }
    found.into_values().collect()
}
