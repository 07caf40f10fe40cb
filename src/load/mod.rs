//! Loading: walks `data_dir` in sorted path order, parses every CSV, JSON and JSON Lines
//! file, resolves each record (`record.rs`), then checks what needs the whole data set:
//! unique ids and sort fields of one type. Returns the records or every problem found.

pub mod csv;
pub mod json;
pub mod record;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde_json::{Map, Value};

use crate::config::Project;
use crate::diag::{self, Problem};
use crate::model::{Id, PerLang, Record};
use record::{Findings, Resolver};

/// One record as a parser found it: raw JSON text to parse, or an object already built.
pub enum Raw<'a> {
    Text { line: u64, text: &'a str },
    Object { line: u64, object: Map<String, Value> },
}

impl Raw<'_> {
    pub fn line(&self) -> u64 {
        match self {
            Raw::Text { line, .. } | Raw::Object { line, .. } => *line,
        }
    }
}

/// A problem inside one file, before the file's path is attached.
#[derive(Debug, Clone)]
pub struct Issue {
    pub line: Option<u64>,
    pub field: Option<String>,
    pub message: String,
}

/// Everything loaded from `data_dir`, records in walk then line order.
#[derive(Debug, Default)]
pub struct Dataset {
    pub files: Vec<PathBuf>,
    pub records: Vec<Record>,
    /// `(language index, field)` → how many records lacked that translation.
    pub missing: BTreeMap<(usize, String), u64>,
    pub warnings: Vec<Problem>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Format {
    Csv,
    Json,
    JsonLines,
}

fn format_of(path: &Path) -> Option<Format> {
    match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
        "csv" => Some(Format::Csv),
        "json" => Some(Format::Json),
        "jsonl" | "ndjson" => Some(Format::JsonLines),
        _ => None,
    }
}

/// Lists the data files under `dir` in sorted path order, skipping hidden entries.
pub fn walk(dir: &Path) -> Result<Vec<PathBuf>, Vec<Problem>> {
    let mut files = Vec::new();
    let mut problems = Vec::new();
    if !dir.is_dir() {
        let msg = "the data folder does not exist (set data_dir in folio.toml or pass --data)";
        return Err(vec![Problem::new(0, &diag::display_path(dir), None, msg)]);
    }
    let walker = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'));
    for entry in walker {
        match entry {
            Ok(e) if e.file_type().is_file() && format_of(e.path()).is_some() => {
                files.push(e.into_path())
            }
            Ok(_) => {}
            Err(e) => {
                let path = e.path().map_or_else(|| dir.to_path_buf(), Path::to_path_buf);
                problems.push(Problem::new(
                    files.len(),
                    &diag::display_path(&path),
                    None,
                    format!("cannot read: {e}"),
                ));
            }
        }
    }
    if problems.is_empty() { Ok(files) } else { Err(problems) }
}

/// Every file below `dir` (hidden ones skipped), sorted; for fingerprints.
pub fn walk_all(dir: &Path) -> Vec<PathBuf> {
    walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_entry(|e| e.depth() == 0 || !e.file_name().to_string_lossy().starts_with('.'))
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file())
        .map(walkdir::DirEntry::into_path)
        .collect()
}

/// Loads, resolves and checks every record under the project's data folder.
pub fn load(project: &Project) -> Result<Dataset, Vec<Problem>> {
    let files = walk(&project.data_dir)?;
    let resolver = Resolver::new(project);
    let per_file: Vec<FileResult> =
        files.par_iter().enumerate().map(|(i, path)| load_file(i, path, &resolver)).collect();

    let mut set = Dataset { files, ..Dataset::default() };
    let mut problems = Vec::new();
    for (records, errs, warns, missing) in per_file {
        set.records.extend(records);
        problems.extend(errs);
        set.warnings.extend(warns);
        for key in missing {
            *set.missing.entry(key).or_default() += 1;
        }
    }
    check_ids(&set, &mut problems);
    check_sort_types(project, &set, &mut problems);
    if problems.is_empty() {
        Ok(set)
    } else {
        diag::sort(&mut problems);
        Err(problems)
    }
}

type FileResult = (Vec<Record>, Vec<Problem>, Vec<Problem>, Vec<(usize, String)>);

fn load_file(index: usize, path: &Path, resolver: &Resolver) -> FileResult {
    let shown = diag::display_path(path);
    let mk = |issue: Issue| {
        let mut p = Problem::new(index, &shown, issue.line, issue.message);
        p.field = issue.field;
        p
    };
    let bytes = match std::fs::read(path) {
        Ok(b) => b,
        Err(e) => {
            return (
                vec![],
                vec![Problem::new(index, &shown, None, format!("cannot read: {e}"))],
                vec![],
                vec![],
            );
        }
    };
    let bytes = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    let format = format_of(path).expect("walk keeps only known formats");
    let text;
    let (raws, issues) = match format {
        Format::Csv => csv::parse(bytes, resolver),
        Format::Json | Format::JsonLines => {
            text = match std::str::from_utf8(bytes) {
                Ok(t) => t,
                Err(e) => {
                    let line =
                        1 + bytes[..e.valid_up_to()].iter().filter(|&&b| b == b'\n').count() as u64;
                    return (
                        vec![],
                        vec![mk(Issue {
                            line: Some(line),
                            field: None,
                            message: "not valid UTF-8".into(),
                        })],
                        vec![],
                        vec![],
                    );
                }
            };
            if format == Format::Json { json::parse_array(text) } else { json::parse_lines(text) }
        }
    };
    let mut problems: Vec<Problem> = issues.into_iter().map(mk).collect();

    let resolved: Vec<(u64, Option<Record>, Findings)> = raws
        .into_par_iter()
        .map(|raw| {
            let line = raw.line();
            let mut found = Findings::default();
            let object = match raw {
                Raw::Object { object, .. } => Some(object),
                Raw::Text { text, .. } => match serde_json::from_str::<Value>(text) {
                    Ok(Value::Object(o)) => Some(o),
                    Ok(other) => {
                        found.problems.push(record::FieldProblem {
                            field: String::new(),
                            message: format!("expected an object, found {}", record::brief(&other)),
                        });
                        None
                    }
                    Err(e) => {
                        found.problems.push(record::FieldProblem {
                            field: String::new(),
                            message: format!(
                                "invalid JSON: {} (column {})",
                                json::message(&e),
                                e.column()
                            ),
                        });
                        None
                    }
                },
            };
            let origin = crate::model::Origin { file: index, line };
            let rec = object.and_then(|o| resolver.resolve(o, origin, &mut found));
            (line, rec, found)
        })
        .collect();

    let mut records = Vec::with_capacity(resolved.len());
    let mut warnings = Vec::new();
    let mut missing = Vec::new();
    let mut warned = std::collections::HashSet::new();
    for (line, rec, found) in resolved {
        for fp in found.problems {
            let mut p = Problem::new(index, &shown, Some(line), fp.message);
            if !fp.field.is_empty() {
                p.field = Some(fp.field);
            }
            problems.push(p);
        }
        for field in found.looks_localized {
            if warned.insert(field.clone()) {
                let msg = "looks localized (its keys are configured languages) but is not declared; add `localized = true` under [fields.".to_string() + &field + "]";
                warnings.push(Problem::new(index, &shown, Some(line), msg).with_field(field));
            }
        }
        missing.extend(found.missing);
        records.extend(rec);
    }
    (records, problems, warnings, missing)
}

fn location(set: &Dataset, origin: crate::model::Origin) -> String {
    format!("{}:{}", diag::display_path(&set.files[origin.file]).display(), origin.line)
}

fn check_ids(set: &Dataset, problems: &mut Vec<Problem>) {
    let mut seen: HashMap<&Id, crate::model::Origin> = HashMap::with_capacity(set.records.len());
    for r in &set.records {
        if let Some(first) = seen.get(&r.id) {
            let msg = format!("duplicate id {}, first used at {}", r.id, location(set, *first));
            problems.push(
                Problem::new(
                    r.origin.file,
                    &diag::display_path(&set.files[r.origin.file]),
                    Some(r.origin.line),
                    msg,
                )
                .with_field("id"),
            );
        } else {
            seen.insert(&r.id, r.origin);
        }
    }
}

fn check_sort_types(project: &Project, set: &Dataset, problems: &mut Vec<Problem>) {
    for (k, key) in project.sort.iter().enumerate() {
        for lang in 0..project.languages.len() {
            let mut first: Option<(&'static str, &Record)> = None;
            for r in &set.records {
                let Some(kind) = r.keys[k].get(lang).kind() else { continue };
                match first {
                    None => first = Some((kind, r)),
                    Some((k0, r0)) if k0 != kind => {
                        let msg = format!(
                            "sort field mixes types: {kind} here, {k0} at {}",
                            location(set, r0.origin)
                        );
                        let path = diag::display_path(&set.files[r.origin.file]);
                        problems.push(
                            Problem::new(r.origin.file, &path, Some(r.origin.line), msg)
                                .with_field(&key.field),
                        );
                        break;
                    }
                    Some(_) => {}
                }
            }
            if set.records.iter().all(|r| matches!(r.keys[k], PerLang::Shared(_))) {
                break; // every language sees the same values
            }
        }
    }
}
