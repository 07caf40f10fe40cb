//! Loading: walks `data_dir` in sorted path order, parses every CSV, JSON and JSON Lines
//! file, resolves each record (`record.rs`), then checks what needs the whole data set:
//! unique ids and sort fields of one type. Returns the records or every problem found.

pub mod csv;
pub mod emit;
mod exact;
pub mod json;
pub mod languages;
pub mod record;
mod unique;

use std::collections::{BTreeMap, HashMap};
use std::path::{Path, PathBuf};

use rayon::prelude::*;
use serde_json::{Map, Value};

use crate::config::Project;
use crate::diag::{self, Problem};
use crate::model::{Element, Id, Origin, PerLang, Record};
use record::{Findings, Resolver};

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
        object: Map<String, Value>,
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
    /// Tab-separated values: CSV with a tab between fields, whatever `csv_delimiter` says.
    Tsv,
    Json,
    JsonLines,
}

impl Format {
    /// The byte between fields of a CSV or TSV file.
    fn delimiter(self, project: &Project) -> u8 {
        if self == Format::Tsv { b'\t' } else { project.csv_delimiter }
    }
}

fn format_of(path: &Path) -> Option<Format> {
    match path.extension()?.to_str()?.to_ascii_lowercase().as_str() {
        "csv" => Some(Format::Csv),
        "tsv" => Some(Format::Tsv),
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
        let msg = if dir.exists() {
            // A file, a FIFO, a device: a folder of data files is what is read.
            "is not a folder: data_dir names the folder the data files are in (set data_dir in folio.toml or pass --data)"
        } else {
            "the data folder does not exist (set data_dir in folio.toml or pass --data)"
        };
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

/// Loads, resolves and checks every record under the project's data folder.
pub fn load(project: &Project) -> Result<Dataset, Vec<Problem>> {
    let files = walk(&project.data_dir)?;
    let resolver = Resolver::new(project);
    let per_file: Vec<FileResult> =
        files.par_iter().enumerate().map(|(i, path)| load_file(i, path, &resolver)).collect();

    let mut set = Dataset { files, ..Dataset::default() };
    let mut problems = Vec::new();
    let mut said = std::collections::HashSet::new();
    let mut refused = Vec::new();
    for FileResult { records, problems: errs, warnings: warns, missing, refused: ids } in per_file {
        set.records.extend(records);
        refused.extend(ids);
        problems.extend(errs);
        // A language the config does not list is said once, at its first file.
        let once = |w: &Problem| {
            !w.message.starts_with("has values in `") || said.insert(w.message.clone())
        };
        set.warnings.extend(warns.into_iter().filter(once));
        for key in missing {
            *set.missing.entry(key).or_default() += 1;
        }
    }
    check_ids(&set, &refused, &mut problems);
    check_sort_types(project, &set, &mut problems);
    diag::sort(&mut problems);
    // A column in another locale's format is one problem, not one a row.
    let mut problems = diag::group_repeats(problems);
    // Typos in the config's field names come first: they explain what follows.
    let unknown = resolver.unknown_fields();
    if !unknown.is_empty() {
        let text = std::fs::read_to_string(&project.config_path).unwrap_or_default();
        let known = resolver.field_names();
        let typos = unknown.into_iter().map(|(key, field)| {
            let hint = crate::diag::did_you_mean(field, known.iter().map(String::as_str));
            let msg =
                format!("no record has the field `{field}` and [fields] does not declare it{hint}");
            let line = line_of_entry(&text, field);
            Problem::new(0, &project.config_path, line, msg).with_field(key)
        });
        problems.splice(0..0, typos.collect::<Vec<_>>());
    }
    if problems.is_empty() { Ok(set) } else { Err(problems) }
}

/// The line (1-based) of folio.toml where `field` is written as an entry of a list
/// (`"rating"`, `"-rating"`), if it is.
fn line_of_entry(text: &str, field: &str) -> Option<u64> {
    let (plain, descending) = (format!("\"{field}\""), format!("\"-{field}\""));
    let at = text.lines().position(|l| l.contains(&plain) || l.contains(&descending))?;
    Some(at as u64 + 1)
}

/// A problem for every number in a record's text that would not be written as given
/// ([`exact`]), unless its field is declared `type = "number"` (which takes the nearest
/// 64-bit value by design).
fn inexact(text: &[u8], column: u64, resolver: &Resolver, found: &mut Findings) {
    let schema = &resolver.project().schema;
    for n in exact::scan(text) {
        let declared = n.field.as_ref().and_then(|f| schema.get(f)).and_then(|spec| spec.kind);
        if declared == Some(crate::config::FieldType::Number) {
            continue;
        }
        // As syntax errors say it: a column in the file's line, or the line in the record.
        let place = if n.line > 1 {
            format!(" (line {} of this record, column {})", n.line, n.column)
        } else {
            format!(" (column {})", column + n.column - 1)
        };
        let fix = match &n.field {
            Some(f) => format!(
                "quote it to keep it as text, or declare [fields.{f}] type = \"number\" to take the nearest one"
            ),
            None => "quote it to keep it as text".to_string(),
        };
        let what = if n.digits_lost {
            "has more digits than a 64-bit number holds"
        } else {
            "is too small for a 64-bit number"
        };
        let why = format!(
            "the number {} {what} and would be written as {}{place}: {fix}",
            n.literal, n.written
        );
        let problem = Problem::unplaced(None, why);
        found.problems.push(match n.field {
            Some(f) => problem.with_field(f),
            None => problem,
        });
    }
}

/// What one file yields.
#[derive(Default)]
struct FileResult {
    records: Vec<Record>,
    problems: Vec<Problem>,
    warnings: Vec<Problem>,
    missing: Vec<(usize, String)>,
    /// The ids of records refused for a problem of their own, with where they are.
    refused: Vec<(Id, Origin)>,
}

/// Every file is read in batches of about this many bytes, resolved in parallel batch by
/// batch, so memory holds the records and one batch, never a whole file.
const BATCH_BYTES: usize = 8 << 20;

/// What one file yields, filled batch by batch.
struct FileOut<'r> {
    index: usize,
    shown: PathBuf,
    resolver: &'r Resolver<'r>,
    records: Vec<Record>,
    problems: Vec<Problem>,
    warnings: Vec<Problem>,
    missing: Vec<(usize, String)>,
    refused: Vec<(Id, Origin)>,
    warned: std::collections::HashSet<String>,
    /// Problems past [`MAX_PROBLEMS`], counted, not kept.
    more: u64,
}

/// How many problems of one file are kept and reported; that there are more is said.
const MAX_PROBLEMS: usize = 1000;

impl FileOut<'_> {
    fn issue(&mut self, problem: Problem) {
        self.keep(problem.at(self.index, &self.shown));
    }

    /// Keeps a problem of this file, up to [`MAX_PROBLEMS`]; past that they are counted,
    /// so that a file of millions of broken elements (`[,,,,…]`) cannot fill memory.
    fn keep(&mut self, problem: Problem) {
        if self.problems.len() < MAX_PROBLEMS {
            self.problems.push(problem);
        } else {
            self.more += 1;
        }
    }

    /// Parses and resolves one batch in parallel, keeping line order.
    fn batch(&mut self, raws: Vec<Raw<'_>>) {
        let index = self.index;
        let resolver = self.resolver;
        let resolved: Vec<(Origin, Option<Record>, Findings)> = raws
            .into_par_iter()
            .map(|raw| {
                let line = raw.line();
                let element = match raw {
                    Raw::Text { index: Some(i), column, .. } => Some(Element::new(i, column)),
                    _ => None,
                };
                let mut found = Findings::default();
                let object = match raw {
                    Raw::Object { object, .. } => Some(object),
                    Raw::Refused { id, .. } => {
                        found.id = record::id_of(&id);
                        None
                    }
                    Raw::Text { text, column, .. } => {
                        match simdutf8::basic::from_utf8(text).map_err(|_| None).and_then(|text| {
                            serde_json::from_str::<unique::Unique>(text).map(|u| u.0).map_err(Some)
                        }) {
                            Ok(Value::Object(o)) => {
                                let (float, small) = unique::took_a_float();
                                if float && (small || exact::may_hold_long_number(text)) {
                                    inexact(text, column, resolver, &mut found);
                                }
                                Some(o)
                            }
                            Ok(other) => {
                                let why =
                                    format!("expected an object, found {}", record::brief(&other));
                                found.problems.push(Problem::unplaced(None, why));
                                None
                            }
                            Err(None) => {
                                found.problems.push(Problem::unplaced(None, "not valid UTF-8"));
                                None
                            }
                            Err(Some(e)) => {
                                let text = std::str::from_utf8(text).unwrap_or_default();
                                let why = json::syntax_in(&e, text, column);
                                found.problems.push(Problem::unplaced(None, why));
                                None
                            }
                        }
                    }
                };
                let origin = Origin { file: index, line, element };
                let rec = object.and_then(|o| resolver.resolve(o, origin, &mut found));
                (origin, rec, found)
            })
            .collect();
        for (origin, rec, found) in resolved {
            let line = origin.line;
            let at = at(origin, found.id.as_ref().or(rec.as_ref().map(|r| &r.id)));
            for mut p in found.problems {
                p.line = Some(line);
                let p = p.at(index, &self.shown).with_record(at.clone());
                self.keep(p);
            }
            // A refused record's id still counts among the ids: a duplicate is said too.
            if let (None, Some(id)) = (&rec, found.id) {
                self.refused.push((id, origin));
            }
            for (lang, field) in found.other_languages {
                if self.warned.insert(format!("lang:{lang}")) {
                    let msg = record::other_language(&lang, &self.resolver.project().languages);
                    self.warnings
                        .push(Problem::new(index, &self.shown, Some(line), msg).with_field(field));
                }
            }
            for field in found.looks_localized {
                if self.warned.insert(field.clone()) {
                    let msg = format!(
                        "looks localized (its keys are configured languages) but is not declared; add `localized = true` under [fields.{field}]"
                    );
                    self.warnings
                        .push(Problem::new(index, &self.shown, Some(line), msg).with_field(field));
                }
            }
            self.missing.extend(found.missing);
            self.records.extend(rec);
        }
    }
}

fn load_file(index: usize, path: &Path, resolver: &Resolver) -> FileResult {
    let format = format_of(path).expect("walk keeps only known formats");
    let shown = diag::display_path(path);
    match std::fs::File::open(path) {
        Ok(file) => read_file(index, shown, format, file, BATCH_BYTES, resolver),
        Err(e) => {
            let p = Problem::new(index, &shown, None, format!("cannot read: {e}"));
            FileResult { problems: vec![p], ..FileResult::default() }
        }
    }
}

/// Parses and resolves one file from `reader`, in batches of about `batch` bytes.
fn read_file(
    index: usize,
    shown: PathBuf,
    format: Format,
    reader: impl std::io::Read + Send,
    batch: usize,
    resolver: &Resolver,
) -> FileResult {
    let mut out = FileOut {
        index,
        shown,
        resolver,
        records: Vec::new(),
        problems: Vec::new(),
        warnings: Vec::new(),
        missing: Vec::new(),
        warned: Default::default(),
        refused: Vec::new(),
        more: 0,
    };
    let read = match format {
        Format::Csv | Format::Tsv => {
            let delimiter = format.delimiter(resolver.project());
            csv::stream(reader, delimiter, format == Format::Tsv, resolver, batch, &mut |raws| {
                out.batch(raws)
            })
            .map(|(issues, warnings)| {
                issues.into_iter().for_each(|i| out.issue(i));
                for w in warnings {
                    if out.warned.insert(w.message.clone()) {
                        out.warnings.push(w.at(index, &out.shown));
                    }
                }
            })
        }
        Format::Json => json::stream_array(reader, batch, &mut |raws| out.batch(raws))
            .map(|issues| issues.into_iter().for_each(|i| out.issue(i))),
        Format::JsonLines => json::stream_lines(reader, batch, &mut |raws| out.batch(raws))
            .map(|issues| issues.into_iter().for_each(|i| out.issue(i))),
    };
    if let Err(e) = read {
        let p = Problem::new(index, &out.shown, None, format!("cannot read: {e}"));
        out.problems.push(p);
    }
    if out.more > 0 {
        let last = out.problems.iter().filter_map(|p| p.line).max();
        let message =
            format!("more problems in this file are not listed: only its first {MAX_PROBLEMS} are");
        out.problems.push(Problem::new(index, &out.shown, last, message));
    }
    let FileOut { records, problems, warnings, missing, refused, .. } = out;
    FileResult { records, problems, warnings, missing, refused }
}

/// One data file's records and problems, read from `bytes` as if it were the file `name`
/// (its extension picks the format), JSON in batches of about `batch` bytes: what
/// [`load`] does for each file, without the checks across files. The fuzz targets in
/// `fuzz/` drive the loaders through it.
pub fn parse_file(
    project: &Project,
    name: &str,
    bytes: &[u8],
    batch: usize,
) -> (Vec<Record>, Vec<Problem>) {
    let Some(format) = format_of(Path::new(name)) else { return (Vec::new(), Vec::new()) };
    let resolver = Resolver::new(project);
    let read = read_file(0, name.into(), format, bytes, batch.max(1), &resolver);
    (read.records, read.problems)
}

fn location(set: &Dataset, origin: Origin) -> String {
    let file = diag::display_path(&set.files[origin.file]);
    match origin.element {
        None => format!("{}:{}", file.display(), origin.line),
        Some(_) => {
            let at = at(origin, None).expect("an element");
            format!("{}:{} {at}", file.display(), origin.line)
        }
    }
}

/// A record's place among others on its line, for its problems.
fn at(origin: Origin, id: Option<&Id>) -> Option<diag::At> {
    let e = origin.element?;
    let id = id.map(Id::to_string);
    Some(diag::At { index: e.index.into(), column: e.column.into(), id })
}

/// Every id used twice, the records refused for problems of their own included (`refused`):
/// each use after the first is a problem naming the first.
fn check_ids(set: &Dataset, refused: &[(Id, Origin)], problems: &mut Vec<Problem>) {
    let kept = set.records.iter().map(|r| (&r.id, r.origin));
    let mut all: Vec<(&Id, Origin)> = kept.chain(refused.iter().map(|(id, o)| (id, *o))).collect();
    if !refused.is_empty() {
        all.sort_by_key(|(_, o)| (o.file, o.line, o.element.map(|e| e.index)));
    }
    let mut seen: HashMap<&Id, Origin> = HashMap::with_capacity(all.len());
    for (id, origin) in all {
        if let Some(first) = seen.get(id) {
            let msg = format!("duplicate id {id}, first used at {}", location(set, *first));
            let path = diag::display_path(&set.files[origin.file]);
            let problem = Problem::new(origin.file, &path, Some(origin.line), msg);
            problems.push(problem.with_field("id").with_record(at(origin, Some(id))));
        } else {
            seen.insert(id, origin);
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
                        // The fix: one declared type, which CSV cells are read as.
                        let field = &key.field;
                        let fix = if [k0, kind].contains(&"number")
                            && [k0, kind].contains(&"string")
                        {
                            format!(
                                "; declare its type so that every file is read alike: `[fields.{field}]` with `type = \"integer\"` (or \"number\")"
                            )
                        } else {
                            format!(
                                "; declare its type under `[fields.{field}]` so that every file is read alike"
                            )
                        };
                        let msg = format!(
                            "sort field mixes types: {kind} here, {k0} at {}{fix}",
                            location(set, r0.origin)
                        );
                        let path = diag::display_path(&set.files[r.origin.file]);
                        problems.push(
                            Problem::new(r.origin.file, &path, Some(r.origin.line), msg)
                                .with_field(&key.field)
                                .with_record(at(r.origin, Some(&r.id))),
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
