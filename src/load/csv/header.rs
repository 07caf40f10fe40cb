//! A CSV file's header: read (its quoting checked, its delimiter guessed at when it is
//! one column), then planned into columns (plain, nested `a.b`, or one language of a
//! localized field `name.fr`) and the tree a row's cells are assembled into.

use std::borrow::Cow;

use serde_json::Value;

use super::quotes;
use super::reader::csv_reader;
use crate::config::FieldType;
use crate::diag::Problem;
use crate::load::record::Resolver;
use crate::load::record::Unlisted;
use crate::load::tree::{Json, Obj};

/// How many dotted parts a column's name may have: serde_json's bound on the nesting of
/// a JSON value (128), which the JSON loaders inherit.
pub(super) const MAX_DEPTH: usize = 128;

#[derive(Debug)]
pub(super) enum Column {
    /// A plain or nested field: `path[0]` is the top-level key.
    Field { path: Vec<String>, kind: Option<FieldType> },
    /// One language of a localized field: `path` is the field and the language.
    Lang { path: [String; 2], kind: Option<FieldType> },
    /// A language that is not configured.
    Ignored,
}

pub(super) fn plan(
    header: &[String],
    res: &Resolver,
    issues: &mut Vec<Problem>,
    warnings: &mut Vec<Unlisted>,
) -> Vec<Column> {
    let schema = &res.project().schema;
    res.seen_in_header(header);
    let mut columns = Vec::with_capacity(header.len());
    for (i, name) in header.iter().enumerate() {
        let bad = |msg: String| Problem::unplaced(Some(1), msg).with_field(name);
        if name.is_empty() || name.split('.').any(str::is_empty) {
            issues.push(bad(format!("column {} has no valid name", i + 1)));
            columns.push(Column::Ignored);
            continue;
        }
        let depth = name.split('.').count();
        if depth > MAX_DEPTH {
            // Assembled by recursion, as serde_json reads nested JSON: bounded as it is.
            let shown: String = name.chars().take(40).collect();
            let msg = format!(
                "column {} names a field {depth} levels deep (`{shown}…`); a record nests at most {MAX_DEPTH} levels, as in JSON",
                i + 1
            );
            issues.push(Problem::unplaced(Some(1), msg).with_field(format!("{shown}…")));
            columns.push(Column::Ignored);
            continue;
        }
        if header[..i].contains(name) {
            issues.push(bad("column appears twice".into()));
        }
        if let Some(other) = header.iter().find(|o| {
            o.len() > name.len() && o.starts_with(name.as_str()) && o.as_bytes()[name.len()] == b'.'
        }) {
            issues.push(bad(format!("column conflicts with column `{other}`")));
        }
        let (top, rest) = match name.split_once('.') {
            Some((t, r)) => (t, Some(r)),
            None => (name.as_str(), None),
        };
        let spec = schema.get(top);
        columns.push(match (spec.is_some_and(|s| s.localized), rest) {
            (true, Some(lang)) => match res.lang_index(lang) {
                Some(_) => {
                    let twin = header[..i].iter().find(|o| {
                        *o != name
                            && o.split_once('.').is_some_and(|(t, l)| {
                                t == top && l.eq_ignore_ascii_case(lang)
                            })
                    });
                    if let Some(twin) = twin {
                        issues.push(bad(format!(
                            "column is the same language as column `{twin}` (language codes are read in any case): keep one of the two"
                        )));
                    }
                    Column::Lang {
                    path: [top.to_string(), lang.to_ascii_lowercase()],
                        kind: spec.and_then(|s| s.kind),
                    }
                }
                None => {
                    let lang = lang.to_ascii_lowercase();
                    let languages = &res.project().shape.languages;
                    let msg = crate::load::record::other_language(&lang, languages);
                    let warning = Problem::unplaced(Some(1), msg).with_field(top);
                    warnings.push(Unlisted { lang, warning });
                    Column::Ignored
                }
            },
            _ => Column::Field {
                path: name.split('.').map(String::from).collect(),
                kind: schema.get(name.as_str()).and_then(|s| s.kind),
            },
        });
    }
    columns
}

/// How a row's cells become one object: its keys in the order of their first column, each
/// a cell or an object of its own (`location.lat`, `name.fr`). Built once from the header,
/// so that a row is assembled without looking any key up.
#[derive(Debug)]
pub(super) enum Node {
    Cell(usize),
    Object(Vec<(String, Node)>),
}

pub(super) fn tree(columns: &[Column]) -> Vec<(String, Node)> {
    fn place(level: &mut Vec<(String, Node)>, path: &[String], column: usize) {
        let (first, rest) = path.split_first().expect("a column has a name");
        let at = match level.iter().position(|(key, _)| key == first) {
            Some(at) => at,
            None => {
                level.push((first.clone(), Node::Object(Vec::new())));
                level.len() - 1
            }
        };
        if rest.is_empty() {
            level[at].1 = Node::Cell(column);
            return;
        }
        if let Node::Cell(_) = level[at].1 {
            level[at].1 = Node::Object(Vec::new()); // a clash the header check refuses
        }
        if let Node::Object(inner) = &mut level[at].1 {
            place(inner, rest, column);
        }
    }
    let mut root = Vec::new();
    for (i, column) in columns.iter().enumerate() {
        match column {
            Column::Field { path, .. } => place(&mut root, path, i),
            Column::Lang { path, .. } => place(&mut root, path, i),
            Column::Ignored => {}
        }
    }
    root
}

/// One row's object from its converted cells (taken out of `cells`).
pub(super) fn assemble(level: &[(String, Node)], cells: &mut [Value]) -> Obj<'static> {
    let entry = |(key, node): &(String, Node)| {
        let value = match node {
            Node::Cell(i) => Json::from(std::mem::take(&mut cells[*i])),
            Node::Object(inner) => Json::Object(assemble(inner, cells)),
        };
        (Cow::Owned(key.clone()), value)
    };
    Obj(level.iter().map(entry).collect())
}

pub(super) const UNCLOSED: &str = "a quoted cell opens here and is never closed, so every line after it would be read into this one cell: close it with `\"`, and write a quote inside a quoted cell as `\"\"`";

pub(super) const AFTER_CLOSE: &str = "text follows the closing quote of a quoted cell (like `\"ab\"c`): write a quote inside a quoted cell as `\"\"`, or quote the whole cell";

/// The header of a CSV file at the start of `bytes` and where it ends, `None` when
/// `bytes` may end inside it (more of the file is needed, unless `eof`: then the file
/// has no header).
pub(super) fn read_header(
    bytes: &[u8],
    delimiter: u8,
    eof: bool,
) -> Result<Option<(Vec<String>, usize)>, Box<Problem>> {
    let (mut reader, shift) = csv_reader(bytes, delimiter);
    let mut record = csv::ByteRecord::new();
    match reader.read_byte_record(&mut record) {
        Ok(false) => return Ok(None),
        Err(e) => {
            return Err(Box::new(Problem::unplaced(Some(1), format!("unreadable header: {e}"))));
        }
        Ok(true) => {}
    }
    let end =
        usize::try_from(reader.position().byte().saturating_sub(shift)).unwrap_or(bytes.len());
    if end >= bytes.len() && !eof {
        return Ok(None); // its last cell may go on in the next bytes
    }
    // A quote in the header that is never closed (the header would take the file), or
    // text after a closing quote: the header is no header.
    if record.iter().any(|cell| cell.contains(&b'\n') || cell.contains(&b'\r'))
        || bytes[..end.min(bytes.len())].contains(&b'"')
    {
        let quoting = quotes::breaks(&bytes[..end.min(bytes.len())], delimiter);
        if let Some(found) = quoting.first() {
            let (line, cell, message) = match *found {
                quotes::Break::Unclosed { line, cell, .. } => (line, cell, UNCLOSED),
                quotes::Break::AfterClose { line, cell } => (line, cell, AFTER_CLOSE),
            };
            let problem =
                Problem::unplaced(Some(line), message).with_field(format!("column {}", cell + 1));
            return Err(Box::new(problem));
        }
    }
    let header = record.iter().map(|c| std::str::from_utf8(c).map(str::to_string)).collect();
    match header {
        Ok(header) => Ok(Some((header, end))),
        Err(_) => Err(Box::new(Problem::unplaced(Some(1), "header is not valid UTF-8"))),
    }
}

/// A header read as one column that holds another delimiter than `delimiter`: that
/// column, and the delimiter its names are separated by.
pub(super) fn other_delimiter(header: &[String], delimiter: u8) -> Option<(&String, u8)> {
    let [only] = header else { return None };
    let other = [b';', b'\t', b'|', b',']
        .into_iter()
        .find(|&d| d != delimiter && only.as_bytes().contains(&d))?;
    Some((only, other))
}

/// One column that holds another delimiter between names: the file was saved with other
/// separators (Excel writes `;` in many locales). `tsv` is the configured `csv_delimiter`
/// when the file is a `.tsv`, which is read with tabs whatever that says.
pub(super) fn one_column(header: &[String], delimiter: u8, tsv: Option<u8>) -> Option<Problem> {
    let (only, other) = other_delimiter(header, delimiter)?;
    let spelled = |d: u8| if d == b'\t' { "\\t".to_string() } else { (d as char).to_string() };
    let named = |d: u8| if d == b'\t' { "a tab".to_string() } else { format!("`{}`", d as char) };
    let (name, only) = (spelled(other), only.escape_debug());
    let message = match tsv {
        Some(configured) => {
            let set = if configured == other {
                String::new()
            } else {
                format!(" and set `csv_delimiter = \"{name}\"` under [input] in folio.toml")
            };
            format!(
                "the header is one column, `{only}`: its fields are separated by {}, and a `.tsv` file is read with a tab between fields; rename it to `.csv`{set}, or save it with tabs",
                named(other)
            )
        }
        None => format!(
            "the header is one column, `{only}`: its fields are separated by {}, not {}; set `csv_delimiter = \"{name}\"` under [input] in folio.toml, or save the file with {} between fields",
            named(other),
            named(delimiter),
            named(delimiter),
        ),
    };
    Some(Problem::unplaced(Some(1), message))
}
