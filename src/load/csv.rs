//! CSV input: the header becomes a column plan (plain, nested `a.b`, or one language of a
//! localized field `name.fr`), and each row becomes a JSON object with cells converted by
//! the declared field types. Lines are the physical line a record starts on, whatever
//! ends the lines (`\n`, `\r\n` or a lone `\r`): the csv crate counts only `\n`, so lines
//! are found here from each record's byte offset.

use serde_json::{Map, Number, Value};

use super::Raw;
use crate::config::FieldType;
use crate::diag::Problem;
use crate::load::record::Resolver;

#[derive(Debug)]
enum Column {
    /// A plain or nested field: `path[0]` is the top-level key.
    Field { path: Vec<String>, kind: Option<FieldType> },
    /// One language of a localized field.
    Lang { field: String, lang: String, kind: Option<FieldType> },
    /// A language that is not configured.
    Ignored,
}

/// Converts one CSV cell by the field's declared type; an empty cell is null.
pub fn convert(cell: &str, kind: Option<FieldType>) -> Result<Value, String> {
    if cell.is_empty() {
        return Ok(Value::Null);
    }
    match kind.unwrap_or(FieldType::String) {
        FieldType::String => Ok(Value::String(cell.to_string())),
        FieldType::Integer => cell
            .parse::<i64>()
            .map(Value::from)
            .map_err(|_| format!("{cell:?} is not an integer (64-bit, digits only)")),
        FieldType::Number => {
            let decimal = cell.bytes().all(|b| b.is_ascii_digit() || b"+-.eE".contains(&b))
                && cell.bytes().any(|b| b.is_ascii_digit());
            if let Ok(i) = cell.parse::<i64>() {
                return Ok(Value::from(i));
            }
            match cell.parse::<f64>() {
                Ok(f) if decimal && f.is_finite() => {
                    Ok(Value::Number(Number::from_f64(f).expect("finite")))
                }
                _ => Err(format!("{cell:?} is not a number (finite decimals only)")),
            }
        }
        FieldType::Boolean => match cell {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(format!("{cell:?} is not a boolean (true or false)")),
        },
        FieldType::List => {
            Ok(Value::Array(cell.split('|').map(|s| Value::String(s.into())).collect()))
        }
        FieldType::Json => serde_json::from_str(cell)
            .map_err(|e| format!("{cell:?} is not valid JSON: {}", super::json::message(&e))),
    }
}

fn plan(
    header: &[String],
    res: &Resolver,
    issues: &mut Vec<Problem>,
    warnings: &mut Vec<Problem>,
) -> Vec<Column> {
    let schema = &res.project().schema;
    let mut columns = Vec::with_capacity(header.len());
    for (i, name) in header.iter().enumerate() {
        let bad = |msg: String| Problem::unplaced(Some(1), msg).with_field(name);
        if name.is_empty() || name.split('.').any(str::is_empty) {
            issues.push(bad(format!("column {} has no valid name", i + 1)));
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
                Some(_) => Column::Lang {
                    field: top.to_string(),
                    lang: lang.to_ascii_lowercase(),
                    kind: spec.and_then(|s| s.kind),
                },
                None => {
                    if crate::config::is_known_language(lang) {
                        let lang = lang.to_ascii_lowercase();
                        let languages = &res.project().languages;
                        let msg = super::record::other_language(&lang, languages);
                        warnings.push(Problem::unplaced(Some(1), msg).with_field(top));
                    }
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

/// Where the physical lines of a file start. A line ends at `\n`, `\r\n` or a lone `\r`
/// (Unix, Windows and classic Mac exports), inside quoted cells too.
struct Lines {
    starts: Vec<usize>,
}

impl Lines {
    fn new(bytes: &[u8]) -> Lines {
        let mut starts = vec![0];
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                b'\n' => starts.push(i + 1),
                b'\r' if bytes.get(i + 1) == Some(&b'\n') => {
                    starts.push(i + 2);
                    i += 1;
                }
                b'\r' => starts.push(i + 1),
                _ => {}
            }
            i += 1;
        }
        Lines { starts }
    }

    /// The 1-based line of the record whose parse began at byte `at`: the first byte
    /// after any line ends there (the parser may begin a record on the `\n` of a `\r\n`).
    fn of_record(&self, bytes: &[u8], at: u64) -> u64 {
        let mut at = usize::try_from(at).unwrap_or(usize::MAX).min(bytes.len());
        while at < bytes.len() && matches!(bytes[at], b'\r' | b'\n') {
            at += 1;
        }
        self.starts.partition_point(|&start| start <= at) as u64
    }
}

fn insert(obj: &mut Map<String, Value>, path: &[String], value: Value) {
    let (last, parents) = path.split_last().expect("a column has a name");
    let mut cur = obj;
    for p in parents {
        let slot = cur.entry(p.clone()).or_insert_with(|| Value::Object(Map::new()));
        if !slot.is_object() {
            *slot = Value::Object(Map::new());
        }
        cur = slot.as_object_mut().expect("made an object above");
    }
    cur.insert(last.clone(), value);
}

/// Parses a whole CSV file (BOM already removed): its records, its problems, and its
/// warnings.
pub fn parse(bytes: &[u8], res: &Resolver) -> (Vec<Raw<'static>>, Vec<Problem>, Vec<Problem>) {
    let mut issues = Vec::new();
    let mut warnings = Vec::new();
    let mut rows = Vec::new();
    let delimiter = res.project().csv_delimiter;
    let mut reader = csv::ReaderBuilder::new()
        .has_headers(false)
        .flexible(true)
        .delimiter(delimiter)
        .from_reader(bytes);
    let mut records = reader.byte_records();
    let header: Vec<String> = match records.next() {
        None => return (rows, issues, warnings),
        Some(Err(e)) => {
            issues.push(Problem::unplaced(Some(1), format!("unreadable header: {e}")));
            return (rows, issues, warnings);
        }
        Some(Ok(h)) => match h.iter().map(|c| std::str::from_utf8(c).map(str::to_string)).collect()
        {
            Ok(h) => h,
            Err(_) => {
                issues.push(Problem::unplaced(Some(1), "header is not valid UTF-8"));
                return (rows, issues, warnings);
            }
        },
    };
    // One column that holds another delimiter between names: the file was saved with
    // other separators (Excel writes `;` in many locales).
    if let [only] = header.as_slice()
        && let Some(other) = [b';', b'\t', b'|', b',']
            .into_iter()
            .find(|&d| d != delimiter && only.as_bytes().contains(&d))
    {
        let name = if other == b'\t' { "\\t".to_string() } else { (other as char).to_string() };
        issues.push(Problem::unplaced(
            Some(1),
            format!(
                "the header is one column, `{}`: its fields are separated by `{}`, not `{}`; set `csv_delimiter = \"{name}\"` under [input] in folio.toml, or save the file with `{}` between fields",
                only.escape_debug(),
                if other == b'\t' { "a tab".to_string() } else { (other as char).to_string() },
                delimiter as char,
                delimiter as char,
            ),
        ));
        return (rows, issues, warnings);
    }
    let columns = plan(&header, res, &mut issues, &mut warnings);
    if !issues.is_empty() {
        return (rows, issues, warnings);
    }
    let lines = Lines::new(bytes);
    for rec in records {
        let rec = match rec {
            Ok(r) => r,
            Err(e) => {
                let line = e.position().map(|p| lines.of_record(bytes, p.byte()));
                issues.push(Problem::unplaced(line, format!("malformed CSV: {e}")));
                continue;
            }
        };
        let line = rec.position().map_or(0, |p| lines.of_record(bytes, p.byte()));
        if rec.len() != header.len() {
            let spans = rec.iter().any(|c| c.contains(&b'\n'));
            let hint = if spans { " (an unterminated quoted field?)" } else { "" };
            issues.push(Problem::unplaced(
                Some(line),
                format!("record has {} fields, the header has {}{hint}", rec.len(), header.len()),
            ));
            continue;
        }
        let mut obj = Map::new();
        let mut ok = true;
        for ((cell, col), name) in rec.iter().zip(&columns).zip(&header) {
            let Ok(cell) = std::str::from_utf8(cell) else {
                issues.push(
                    Problem::unplaced(Some(line), "is not valid UTF-8").with_field(name.clone()),
                );
                ok = false;
                continue;
            };
            match col {
                Column::Ignored => {}
                Column::Field { path, kind } => match convert(cell, *kind) {
                    Ok(v) => insert(&mut obj, path, v),
                    Err(msg) => {
                        issues.push(Problem::unplaced(Some(line), msg).with_field(name.clone()));
                        ok = false;
                    }
                },
                Column::Lang { field, lang, kind } => match convert(cell, *kind) {
                    Ok(v) => insert(&mut obj, &[field.clone(), lang.clone()], v),
                    Err(msg) => {
                        issues.push(Problem::unplaced(Some(line), msg).with_field(name.clone()));
                        ok = false;
                    }
                },
            }
        }
        if ok {
            rows.push(Raw::Object { line, object: obj });
        }
    }
    (rows, issues, warnings)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The line of every row (and problem) of `text`, parsed with the default config.
    fn row_lines(text: &str) -> (Vec<u64>, Vec<Option<u64>>) {
        let project = crate::config::test_project("");
        let res = Resolver::new(&project);
        let (rows, issues, _) = parse(text.as_bytes(), &res);
        (rows.iter().map(Raw::line).collect(), issues.iter().map(|i| i.line).collect())
    }

    #[test]
    fn records_name_their_first_physical_line_whatever_ends_the_lines() {
        // Line 1 the header, 2 record 1, 3-4 record 2 (a quoted cell with a line break),
        // 5 blank, 6 record 3: the same text with each kind of line end.
        let lf = "id,name\n1,a\n2,\"two\nlines\"\n\n3,c\n";
        for end in ["\n", "\r\n", "\r"] {
            let text = lf.replace('\n', end);
            assert_eq!(row_lines(&text).0, [2, 3, 6], "line ends {end:?}");
            let text = format!("\u{feff}{text}");
            let bytes = text.as_bytes().strip_prefix(b"\xEF\xBB\xBF").unwrap();
            let project = crate::config::test_project("");
            let (rows, _, _) = parse(bytes, &Resolver::new(&project));
            let lines: Vec<u64> = rows.iter().map(Raw::line).collect();
            assert_eq!(lines, [2, 3, 6], "after a BOM, line ends {end:?}");
        }
        // A file that ends without a line end, and a problem row.
        assert_eq!(row_lines("id,name\r\n1,a\r\n2,b,extra\r\n3,c").1, [Some(3)]);
        assert_eq!(row_lines("id,name\r1,a\r2,b,extra\r3,c").0, [2, 4]);
    }

    #[test]
    fn converts_cells_by_type() {
        use FieldType::*;
        assert_eq!(convert("", Some(Integer)).unwrap(), Value::Null);
        assert_eq!(convert("42", None).unwrap(), Value::from("42"));
        assert_eq!(convert("-7", Some(Integer)).unwrap(), Value::from(-7));
        assert_eq!(convert("4.50", Some(Number)).unwrap(), serde_json::json!(4.5));
        assert_eq!(convert("4", Some(Number)).unwrap(), serde_json::json!(4));
        assert_eq!(convert("a|b", Some(List)).unwrap(), serde_json::json!(["a", "b"]));
        assert_eq!(convert("true", Some(Boolean)).unwrap(), Value::Bool(true));
        assert_eq!(convert("{\"a\":1}", Some(Json)).unwrap(), serde_json::json!({"a": 1}));
        for (cell, kind) in [
            ("NaN", Number),
            ("inf", Number),
            ("1e999", Number),
            ("abc", Number),
            ("1.5", Integer),
            ("99999999999999999999", Integer),
            ("yes", Boolean),
            ("{", Json),
        ] {
            assert!(convert(cell, Some(kind)).is_err(), "{cell} as {kind:?}");
        }
    }
}
