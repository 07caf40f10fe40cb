//! Loading: walks `data_dir` in sorted path order, parses every CSV, JSON and JSON Lines
//! file, resolves each record (`record.rs`), then checks what needs the whole data set:
//! unique ids and sort fields of one type. Returns the records or every problem found.
//! A file is read by `file.rs` in its format (`format.rs`) into raw records (`raw.rs`).

mod bounded;
pub mod csv;
pub mod dates;
pub mod emit;
mod exact;
mod file;
mod format;
pub mod json;
mod kept;
mod raw;
pub mod record;
pub mod tree;
mod unique;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use crate::config::Project;
use crate::diag::{self, Problem};
use crate::model::{Id, Origin, PerLang, Record};
pub use file::parse_file;
use file::{FileResult, load_file};
use format::format_of;
pub use raw::Raw;
use record::Resolver;
pub use record::Unlisted;
pub use unique::parse;

/// Everything loaded from `data_dir`, records in walk then line order.
#[derive(Debug, Default)]
pub struct Dataset {
    pub files: Vec<PathBuf>,
    pub records: Vec<Record>,
    /// `(language index, field)` → how many records lacked that translation.
    pub missing: BTreeMap<(usize, String), u64>,
    pub warnings: Vec<Problem>,
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

    let total: usize = per_file.iter().map(|f| f.records.len()).sum();
    let mut set = Dataset { files, ..Dataset::default() };
    let mut problems = Vec::new();
    let mut said = std::collections::HashSet::new();
    let mut refused = Vec::new();
    for file in per_file {
        let FileResult { records, problems: errs, warnings, missing, refused: ids } = file;
        // One file's records are taken as they are; many files' are joined into one
        // allocation of their number.
        if records.len() == total {
            set.records = records;
        } else {
            set.records.reserve(total - set.records.len());
            set.records.extend(records);
        }
        refused.extend(ids);
        problems.extend(errs);
        // A language the config does not list is said once, at its first file.
        let once = |(lang, _): &(Option<String>, Problem)| {
            lang.as_ref().is_none_or(|l| said.insert(l.clone()))
        };
        set.warnings.extend(warnings.into_iter().filter(once).map(|(_, w)| w));
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
        let known = resolver.field_names();
        let typos = unknown.into_iter().map(|(entry, field)| {
            let hint = crate::diag::did_you_mean(field, known.iter().map(String::as_str));
            let msg =
                format!("no record has the field `{field}` and [fields] does not declare it{hint}");
            // Where config read the entry (`listing.sort[1]`), else its list's line.
            let line = project.places.of(entry).map(|(line, _)| line);
            let list = entry.split('[').next().unwrap_or(entry);
            Problem::new(0, &project.config_path, line, msg).with_field(list)
        });
        problems.splice(0..0, typos.collect::<Vec<_>>());
    }
    if problems.is_empty() { Ok(set) } else { Err(problems) }
}

/// Each language the data has values in that `project` does not list, lowercase, with the
/// first field and file found with it: what the loader warns of, read by the loader itself
/// (all of the data, on purpose: this is asked only when a language code of the config is
/// no language, to find the one meant: `sp` when the data has `name.es`).
pub fn unlisted_languages(project: &Project) -> BTreeMap<String, (String, PathBuf)> {
    let Ok(files) = walk(&project.data_dir) else { return BTreeMap::new() };
    let resolver = Resolver::new(project);
    let per_file: Vec<FileResult> =
        files.par_iter().enumerate().map(|(i, path)| load_file(i, path, &resolver)).collect();
    let mut found = BTreeMap::new();
    for (lang, warning) in per_file.into_iter().flat_map(|f| f.warnings) {
        let Some(lang) = lang else { continue };
        let field = warning.field.unwrap_or_default();
        found.entry(lang).or_insert((field, warning.path));
    }
    found
}

fn location(set: &Dataset, origin: Origin) -> String {
    let file = diag::display_path(&set.files[origin.file]);
    match origin.element {
        None => format!("{}:{}", file.display(), origin.line),
        Some(_) => {
            let at = origin.at(None).expect("an element");
            format!("{}:{} {at}", file.display(), origin.line)
        }
    }
}

/// Every id used twice, the records refused for problems of their own included (`refused`):
/// each use after the first is a problem naming the first.
fn check_ids(set: &Dataset, refused: &[(Id, Origin)], problems: &mut Vec<Problem>) {
    let kept = set.records.iter().map(|r| (&r.id, r.origin));
    let mut all: Vec<(&Id, Origin)> = kept.chain(refused.iter().map(|(id, o)| (id, *o))).collect();
    if !refused.is_empty() {
        all.sort_by_key(|(_, o)| (o.file, o.line, o.element.map(|e| e.index)));
    }
    // The uses in that order, sorted by id on every core (stable: a run of one id starts
    // at its first use); every later use of the run is a problem naming the first.
    let mut by_id: Vec<usize> = (0..all.len()).collect();
    by_id.par_sort_by_key(|&i| all[i].0);
    let mut later: Vec<(usize, usize)> = Vec::new();
    for run in by_id.chunk_by(|&a, &b| all[a].0 == all[b].0) {
        later.extend(run[1..].iter().map(|&i| (i, run[0])));
    }
    // Said in the order of use, as a scan front to back would find them.
    later.sort_unstable();
    for (i, first) in later {
        let ((id, origin), first) = (all[i], all[first].1);
        let msg = format!("duplicate id {id}, first used at {}", location(set, first));
        let path = diag::display_path(&set.files[origin.file]);
        let problem = Problem::new(origin.file, &path, Some(origin.line), msg);
        problems.push(problem.with_field("id").with_record(origin.at(Some(id))));
    }
}

fn check_sort_types(project: &Project, set: &Dataset, problems: &mut Vec<Problem>) {
    for (k, key) in project.sort.iter().enumerate() {
        for lang in 0..project.shape.languages.len() {
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
                                .with_record(r.origin.at(Some(&r.id))),
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
