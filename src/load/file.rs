//! One data file, read in batches: each record parsed, resolved and placed (file, line,
//! and its index where records share a line), with the file's problems and warnings.

use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::format::{Format, format_of};
use super::kept::Kept;
use super::raw::Raw;
use super::record::Unlisted;
use super::tree::Json;
use super::{bounded, csv, exact, json, record, unique};
use crate::config::Project;
use crate::diag::{self, Problem};
use crate::model::{Element, Id, Origin, Record};
use record::{Findings, Resolver};

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
        // As syntax errors say it: at its line, the column in the file's line (characters).
        let (within, at) = byte_of(text, n.line, n.column).map_or((n.line, n.column), |at| {
            let text = std::str::from_utf8(text).unwrap_or_default();
            json::text_place(text, at, column)
        });
        let place = format!(" (column {at})");
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
        // One kind whatever the number: an export's column of long REALs is said once.
        let problem = Problem::unplaced(Some(within), why).with_kind("inexact").with_column(at);
        found.problems.push(match n.field {
            Some(f) => problem.with_field(f),
            None => problem,
        });
    }
}

/// The byte offset in `text` of line `line` (from 1), byte column `column` (from 1).
fn byte_of(text: &[u8], line: u64, column: u64) -> Option<usize> {
    let start = if line <= 1 {
        0
    } else {
        memchr::memchr_iter(b'\n', text).nth(usize::try_from(line - 2).ok()?)? + 1
    };
    let at = start + usize::try_from(column.checked_sub(1)?).ok()?;
    (at <= text.len() && std::str::from_utf8(text).is_ok_and(|t| t.is_char_boundary(at)))
        .then_some(at)
}

/// What one file yields.
#[derive(Default)]
pub(super) struct FileResult {
    pub(super) records: Vec<Record>,
    pub(super) problems: Vec<Problem>,
    /// In the order found; those about a language not listed carry it.
    pub(super) warnings: Vec<(Option<String>, Problem)>,
    pub(super) missing: Vec<(usize, String)>,
    /// The ids of records refused for a problem of their own, with where they are.
    pub(super) refused: Vec<(Id, Origin)>,
}

/// Every file is read in batches of about this many bytes, resolved in parallel batch by
/// batch, so memory holds the records and one batch, never a whole file.
const BATCH_BYTES: usize = 8 << 20;

/// What one file yields, filled batch by batch.
struct FileOut<'r> {
    index: usize,
    shown: PathBuf,
    resolver: &'r Resolver<'r>,
    /// How many batches the file is expected to take (its size over the batch size, one
    /// more for slack; 1 when its size is unknown): the first batch's records times this
    /// is the room made for the file's records at once, so that they are not copied over
    /// and again as they grow. Room not filled is address space, never touched.
    batches: usize,
    records: Vec<Record>,
    /// One batch's records as resolved, before they are placed: kept from batch to batch,
    /// so that each batch fills memory already touched rather than fresh memory.
    resolved: Vec<(Origin, Option<Record>, Findings)>,
    /// Within bounds, the rest counted ([`Kept`]): a file of millions of broken elements
    /// (`[,,,,…]`) cannot fill memory.
    problems: Kept,
    warnings: Vec<(Option<String>, Problem)>,
    missing: Vec<(usize, String)>,
    refused: Vec<(Id, Origin)>,
    /// What this file has been warned about: fields that look localized, and languages.
    warned: std::collections::HashSet<String>,
}

impl FileOut<'_> {
    /// The file ends at a NUL byte at offset `at`: what its reader said of the end it found
    /// there (`issues`: a record cut short, an array never closed) and its records' problems
    /// from the NUL's line on are its doing (a `.json` element is handed out only whole),
    /// and the NUL is the problem, at its line and column.
    fn nul(&mut self, at: u64, format: Format, mut issues: Kept, locate: Locate) {
        let csv = matches!(format, Format::Csv | Format::Tsv);
        let (line, column) = match locate(at, csv) {
            Ok(place) => place,
            Err(e) => {
                self.problems.listed(Problem::unplaced(None, format!("cannot read: {e}")));
                return;
            }
        };
        let before = |p: &Problem| p.line.is_some_and(|l| l < line);
        if format != Format::Json {
            self.problems.retain(before);
            issues.retain(before);
            self.problems.absorb(issues, 0);
        }
        let nul = Problem::unplaced(Some(line), bounded::nul_message(column));
        self.problems.listed(nul.at(self.index, &self.shown));
    }

    /// Parses and resolves one batch in parallel, keeping line order.
    fn batch(&mut self, raws: Vec<Raw<'_>>) {
        let index = self.index;
        let resolver = self.resolver;
        let mut resolved = std::mem::take(&mut self.resolved);
        raws.into_par_iter()
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
                        found.id = record::id_of(&Json::from(id));
                        None
                    }
                    Raw::Text { text, column, .. } => {
                        match simdutf8::basic::from_utf8(text)
                            .map_err(|_| None)
                            .and_then(|text| unique::parse(text).map_err(Some))
                        {
                            Ok(Json::Object(o)) => {
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
                                let (why, within) = json::syntax_in(&e, text, column);
                                found.problems.push(Problem::unplaced(Some(within), why));
                                None
                            }
                        }
                    }
                };
                let origin = Origin { file: index, line, element };
                let rec = object.and_then(|o| resolver.resolve(o, origin, &mut found));
                (origin, rec, found)
            })
            .collect_into_vec(&mut resolved);
        if self.records.capacity() == 0 {
            // An estimate: room the allocator cannot give is not asked for again; the
            // records then grow as they come.
            let _ = self.records.try_reserve(resolved.len().saturating_mul(self.batches));
        }
        for (origin, rec, found) in resolved.drain(..) {
            let line = origin.line;
            let at = origin.at(found.id.as_ref().or(rec.as_ref().map(|r| &r.id)));
            for mut p in found.problems {
                // At the line in the record it is on (from 1), where the finding knows it.
                p.line = Some(line + p.line.map_or(0, |within| within.saturating_sub(1)));
                let p = p.at(index, &self.shown).with_record(at.clone());
                self.problems.push(p);
            }
            // A refused record's id still counts among the ids: a duplicate is said too.
            if let (None, Some(id)) = (&rec, found.id) {
                self.refused.push((id, origin));
            }
            for (lang, field) in found.other_languages {
                if self.warned.insert(format!("lang:{lang}")) {
                    let msg =
                        record::other_language(&lang, &self.resolver.project().shape.languages);
                    let warning =
                        Problem::new(index, &self.shown, Some(line), msg).with_field(field);
                    self.warnings.push((Some(lang), warning));
                }
            }
            for field in found.looks_localized {
                if self.warned.insert(field.clone()) {
                    let msg = format!(
                        "looks localized (its keys are configured languages) but is not declared; add `localized = true` under [fields.{field}]"
                    );
                    let warning =
                        Problem::new(index, &self.shown, Some(line), msg).with_field(field);
                    self.warnings.push((None, warning));
                }
            }
            self.missing.extend(found.missing);
            self.records.extend(rec);
        }
        self.resolved = resolved;
    }
}

pub(super) fn load_file(index: usize, path: &Path, resolver: &Resolver) -> FileResult {
    let format = format_of(path).expect("walk keeps only known formats");
    let shown = diag::display_path(path);
    match std::fs::File::open(path) {
        Ok(file) => {
            let size = file.metadata().map_or(0, |m| m.len());
            // Where a NUL byte is, read again from the start (only then).
            let locate =
                |at, csv| std::fs::File::open(path).and_then(|f| bounded::locate(f, at, csv));
            read_file(index, shown, format, file, size, BATCH_BYTES, resolver, &locate)
        }
        Err(e) => {
            let p = Problem::new(index, &shown, None, format!("cannot read: {e}"));
            FileResult { problems: vec![p], ..FileResult::default() }
        }
    }
}

/// Where a byte of the file is: its line and column ([`bounded::locate`]).
type Locate<'a> = &'a dyn Fn(u64, bool) -> std::io::Result<(u64, u64)>;

/// Parses and resolves one file from `reader`, in batches of about `batch` bytes, up to
/// its first NUL byte (which `locate` finds the line and column of).
#[allow(clippy::too_many_arguments)]
fn read_file(
    index: usize,
    shown: PathBuf,
    format: Format,
    reader: impl std::io::Read + Send,
    size: u64,
    batch: usize,
    resolver: &Resolver,
    locate: Locate,
) -> FileResult {
    let mut reader = bounded::UpToNul::new(reader);
    let batches = usize::try_from(size.div_ceil(batch as u64)).unwrap_or(usize::MAX);
    let mut out = FileOut {
        index,
        shown,
        resolver,
        batches: batches.saturating_add(1).min(1 << 20),
        records: Vec::new(),
        resolved: Vec::new(),
        problems: Kept::default(),
        warnings: Vec::new(),
        missing: Vec::new(),
        warned: Default::default(),
        refused: Vec::new(),
    };
    let read = match format {
        Format::Csv | Format::Tsv => {
            let delimiter = format.delimiter(resolver.project());
            let tsv = format == Format::Tsv;
            csv::stream(&mut reader, delimiter, tsv, resolver, batch, &mut |raws| out.batch(raws))
                .map(|(issues, unlisted)| {
                    for Unlisted { lang, warning } in unlisted {
                        if out.warned.insert(format!("lang:{lang}")) {
                            out.warnings.push((Some(lang), warning.at(index, &out.shown)));
                        }
                    }
                    issues
                })
        }
        Format::Json => {
            json::stream_array(&mut reader, batch, &mut |raws| out.batch(raws)).map(Kept::from)
        }
        Format::JsonLines => {
            json::stream_lines(&mut reader, batch, &mut |raws| out.batch(raws)).map(Kept::from)
        }
    };
    let read = read.map(|issues| match reader.nul {
        Some(at) => out.nul(at, format, issues, locate),
        // What the file's reader found (its syntax, its CSV cells).
        None => out.problems.absorb(issues, 0),
    });
    if let Err(e) = read {
        let p = Problem::new(index, &out.shown, None, format!("cannot read: {e}"));
        out.problems.listed(p);
    }
    let FileOut { records, problems, warnings, missing, refused, shown, .. } = out;
    let problems = problems.into_vec(index, &shown);
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
    let size = bytes.len() as u64;
    let locate = |at, csv| bounded::locate(bytes, at, csv);
    let read = read_file(0, name.into(), format, bytes, size, batch.max(1), &resolver, &locate);
    (read.records, read.problems)
}
