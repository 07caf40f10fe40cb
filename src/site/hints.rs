//! Warnings about the config and the data that only the loaded records can give: a
//! `[fields.NAME]` table no record has a field for while the records have an undeclared
//! field near its name (a typo, so the field meant is published untyped), and a CSV column that `[fields]` does not declare although every value in it
//! is a number (published as strings: `"price": "0.53"`). Both are warnings: the build is
//! what the config says, the hint is how to say what was meant.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::Value;

use crate::config::Project;
use crate::diag::Problem;
use crate::load::Dataset;

/// How many records of a CSV file its columns are read in, at most: enough to tell a
/// column of numbers, at a small part of a large build's time.
const SAMPLED: usize = 1000;

/// What one CSV file's undeclared column holds: every value a number, all of them whole.
struct Column {
    numbers: bool,
    whole: bool,
    seen: bool,
}

/// A number as JSON writes it, without a leading zero (`0123` is a code, not a number).
fn number(text: &str) -> Option<bool> {
    let digits = text.strip_prefix('-').unwrap_or(text);
    let (mantissa, exponent) = match digits.split_once(['e', 'E']) {
        Some((m, e)) => (m, Some(e.strip_prefix(['+', '-']).unwrap_or(e))),
        None => (digits, None),
    };
    let (int, frac) = match mantissa.split_once('.') {
        Some((i, f)) => (i, Some(f)),
        None => (mantissa, None),
    };
    let all_digits = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    let ok = all_digits(int)
        && (int == "0" || !int.starts_with('0'))
        && frac.is_none_or(all_digits)
        && exponent.is_none_or(all_digits);
    ok.then_some(frac.is_none() && exponent.is_none())
}

/// The fields of `item` (one record in one language), dotted below nested objects, each
/// with its value.
fn fields<'v>(
    prefix: &str,
    item: &'v serde_json::Map<String, Value>,
    out: &mut Vec<(String, &'v Value)>,
) {
    for (key, value) in item {
        let path = if prefix.is_empty() { key.clone() } else { format!("{prefix}.{key}") };
        if let Value::Object(inner) = value {
            fields(&path, inner, out);
        }
        out.push((path, value));
    }
}

/// The warnings of both kinds for `data`, loaded from `project`: config ones first, then
/// by file and column.
pub fn field_hints(project: &Project, data: &Dataset) -> Vec<Problem> {
    let declared: Vec<&String> =
        project.schema.iter().filter(|(_, s)| !s.required).map(|(name, _)| name).collect();
    let csv: Vec<bool> = (data.files.iter())
        .map(|f| f.extension().is_some_and(|e| e.eq_ignore_ascii_case("csv")))
        .collect();
    if declared.is_empty() && !csv.contains(&true) {
        return Vec::new();
    }
    let mut had: BTreeSet<String> = BTreeSet::new();
    let mut columns: BTreeMap<(usize, String), Column> = BTreeMap::new();
    let mut buf = Vec::new();
    let mut read = vec![0usize; data.files.len()];
    for record in &data.records {
        let file = record.origin.file;
        let from_csv = csv.get(file).copied().unwrap_or(false) && read[file] < SAMPLED;
        if let Some(n) = read.get_mut(file) {
            *n += 1;
        }
        if !from_csv && declared.iter().all(|d| had.contains(d.as_str())) {
            continue;
        }
        buf.clear();
        record.write_item(project.shape.default_language, &mut buf);
        let Ok(item) = serde_json::from_slice::<serde_json::Map<String, Value>>(&buf) else {
            continue;
        };
        let mut found = Vec::new();
        fields("", &item, &mut found);
        for (path, value) in found {
            if from_csv && path != "id" && !project.schema.contains_key(&path) {
                let column = (columns.entry((record.origin.file, path.clone())))
                    .or_insert(Column { numbers: true, whole: true, seen: false });
                match value {
                    Value::String(s) if s.is_empty() => {}
                    Value::String(s) => match number(s) {
                        Some(whole) => {
                            column.seen = true;
                            column.whole &= whole;
                        }
                        None => column.numbers = false,
                    },
                    Value::Null => {}
                    _ => column.numbers = false,
                }
            }
            had.insert(path);
        }
    }
    let mut out = Vec::new();
    let names: Vec<&str> = had.iter().map(String::as_str).filter(|n| *n != "id").collect();
    for name in declared {
        if had.contains(name.as_str()) {
            continue;
        }
        let unclaimed = names.iter().copied().filter(|n| !project.schema.contains_key(*n));
        // Only a likely typo: a field the data has, undeclared, near the name. A table for
        // a field no record has yet, with none near it, is left alone.
        let Some(meant) = crate::diag::nearest(name, unclaimed) else { continue };
        let hint = format!(
            "; did you mean `{meant}`? (records have `{meant}`, which [fields] does not declare: write [fields.{meant}])"
        );
        let line = project.places.of(&format!("fields.{name}")).map(|(line, _)| line);
        let message = format!("[fields.{name}] declares a field no record has{hint}");
        let config = crate::diag::display_path(&project.config_path);
        out.push(Problem::new(0, &config, line, message).with_field(format!("fields.{name}")));
    }
    for ((file, column), c) in columns {
        if !(c.numbers && c.seen) {
            continue;
        }
        let kind = if c.whole { "integer" } else { "number" };
        let which = if read[file] > SAMPLED {
            format!("each of the first {SAMPLED} values of the column `{column}` is a number")
        } else {
            format!("every value of the column `{column}` is a number")
        };
        let message = format!(
            "{which}, published as a string (\"{column}\": \"…\") since [fields] does not declare it; to publish numbers, add [fields.{column}] type = \"{kind}\" to folio.toml"
        );
        let path = crate::diag::display_path(&data.files[file]);
        out.push(Problem::new(file, &path, None, message).with_field(column));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::number;

    #[test]
    fn numbers_as_json_writes_them() {
        for (text, whole) in
            [("0", true), ("12", true), ("-3", true), ("0.53", false), ("1e-7", false)]
        {
            assert_eq!(number(text), Some(whole), "{text}");
        }
        for text in ["", "0123", "1.", ".5", "1,5", "abc", "1e", "--1", "+1", "0x10"] {
            assert_eq!(number(text), None, "{text}");
        }
    }
}
