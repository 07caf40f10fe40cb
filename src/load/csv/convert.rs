//! One CSV cell to a JSON value, by its field's declared type. A number written as JSON
//! writes it (`-0`, `18446744073709551615`, `1E5`) becomes the value a JSON file with the
//! same text gives, so a record reads alike from either format.

use std::borrow::Cow;

use serde_json::{Number, Value};

use crate::config::FieldType;

/// How much of a cell a problem shows: a broken export can put a whole file in a cell.
const SHOWN_CHARS: usize = 60;

/// A cell as a problem shows it: whole when short, else its start and how long it is.
pub fn clip(cell: &str) -> Cow<'_, str> {
    match cell.char_indices().nth(SHOWN_CHARS) {
        None => Cow::Borrowed(cell),
        Some((end, _)) => Cow::Owned(format!("{}… ({} bytes)", &cell[..end], cell.len())),
    }
}

/// Converts one CSV cell by the field's declared type; an empty cell is null. A `number`
/// may have `decimal` (`[input] decimal_separator`) before its fraction, or `.`.
pub fn convert(cell: &str, kind: Option<FieldType>, decimal: u8) -> Result<Value, String> {
    if cell.is_empty() {
        return Ok(Value::Null);
    }
    let shown = || clip(cell);
    match kind.unwrap_or(FieldType::String) {
        FieldType::String => Ok(Value::String(cell.to_string())),
        FieldType::Integer => match cell.parse::<i64>() {
            Ok(i) => Ok(Value::from(i)),
            Err(_)
                if cell
                    .bytes()
                    .enumerate()
                    .all(|(i, b)| b.is_ascii_digit() || i == 0 && b == b'-') =>
            {
                Err(format!(
                    "{:?} is outside the range of an integer ({}..={}): declare no type to keep it as written",
                    shown(),
                    i64::MIN,
                    i64::MAX
                ))
            }
            Err(_) => Err(format!(
                "{:?} is not an integer (digits only, {}..={})",
                shown(),
                i64::MIN,
                i64::MAX
            )),
        },
        FieldType::Number => number(cell, decimal),
        FieldType::Boolean => match cell {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(format!("{:?} is not a boolean (true or false)", shown())),
        },
        FieldType::List => {
            Ok(Value::Array(cell.split('|').map(|s| Value::String(s.into())).collect()))
        }
        FieldType::Json => serde_json::from_str(cell).map_err(|e| {
            format!("{:?} is not valid JSON: {}", shown(), super::super::json::message(&e))
        }),
        // Written as given, once it is one.
        date if date.is_date_value(cell) => Ok(Value::String(cell.to_string())),
        FieldType::Date => Err(format!(
            "{:?} is not a date (YYYY-MM-DD, a real day){}",
            shown(),
            hint(crate::load::dates::hint(FieldType::Date, cell))
        )),
        _ => Err(format!(
            "{:?} is not a date-time (RFC 3339 with its offset, like 2026-11-26T09:30:00Z){}",
            shown(),
            hint(crate::load::dates::hint(FieldType::Datetime, cell))
        )),
    }
}

/// `; HINT`, or nothing.
fn hint(hint: Option<&str>) -> String {
    hint.map(|h| format!("; {h}")).unwrap_or_default()
}

/// A cell of a `number` field: JSON's number syntax as JSON reads it, else a decimal with
/// `decimal` or `.` before its fraction (and a sign or exponent as Rust reads them).
fn number(cell: &str, decimal: u8) -> Result<Value, String> {
    let refused = || {
        let point = if decimal == b'.' { "" } else { ", `,` or `.` before the fraction" };
        format!("{:?} is not a number (finite decimals only{point})", clip(cell))
    };
    if let Ok(n) = cell.parse::<Number>() {
        return Ok(Value::Number(n));
    }
    let separators = cell.bytes().filter(|&b| b == b'.' || b == decimal).count();
    let written = cell
        .bytes()
        .all(|b| b.is_ascii_digit() || b"+-eE".contains(&b) || b == b'.' || b == decimal)
        && cell.bytes().any(|b| b.is_ascii_digit())
        && separators <= 1;
    if !written {
        let marks = cell.bytes().filter(|b| b".,".contains(b)).count();
        if marks > 1 && cell.bytes().all(|b| b.is_ascii_digit() || b".,+-".contains(&b)) {
            let point = char::from(decimal);
            return Err(format!(
                "{:?} is not a number: it holds a thousands separator, which folio does not guess at; write it without one (like 1234{point}5)",
                clip(cell)
            ));
        }
        return Err(refused());
    }
    let text: Cow<str> = if decimal != b'.' && cell.as_bytes().contains(&decimal) {
        Cow::Owned(cell.replace(char::from(decimal), "."))
    } else {
        Cow::Borrowed(cell)
    };
    // What is left is JSON's syntax but for a sign, a leading or trailing point, or
    // leading zeros: read as JSON reads the same digits (`+7` and `007` as 7, `.5` as
    // 0.5, `3.` as 3.0).
    let json = text.strip_prefix('+').unwrap_or(&text);
    if json.len() < text.len() && json.starts_with(['+', '-']) {
        return Err(refused()); // `+-1`, `++1`: one sign only
    }
    if let Ok(n) = json.parse::<Number>() {
        return Ok(Value::Number(n));
    }
    let (sign, digits) = json.strip_prefix('-').map_or(("", json), |d| ("-", d));
    if digits.bytes().all(|b| b.is_ascii_digit()) {
        let trimmed = digits.trim_start_matches('0');
        let whole = format!("{sign}{}", if trimmed.is_empty() { "0" } else { trimmed });
        if let Ok(n) = whole.parse::<Number>() {
            return Ok(Value::Number(n));
        }
    }
    match json.parse::<f64>() {
        Ok(f) if f.is_finite() => Ok(Value::Number(Number::from_f64(f).expect("finite"))),
        Ok(_) => Err(format!(
            "{:?} is past the largest 64-bit number (about 1.8e308), which folio cannot write",
            clip(cell)
        )),
        Err(_) => Err(refused()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converts_cells_by_type() {
        use FieldType::*;
        assert_eq!(convert("", Some(Integer), b'.').unwrap(), Value::Null);
        assert_eq!(convert("42", None, b'.').unwrap(), Value::from("42"));
        assert_eq!(convert("-7", Some(Integer), b'.').unwrap(), Value::from(-7));
        assert_eq!(convert("4.50", Some(Number), b'.').unwrap(), serde_json::json!(4.5));
        assert_eq!(convert("4", Some(Number), b'.').unwrap(), serde_json::json!(4));
        assert_eq!(convert("a|b", Some(List), b'.').unwrap(), serde_json::json!(["a", "b"]));
        assert_eq!(convert("true", Some(Boolean), b'.').unwrap(), Value::Bool(true));
        assert_eq!(convert("{\"a\":1}", Some(Json), b'.').unwrap(), serde_json::json!({"a": 1}));
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
            assert!(convert(cell, Some(kind), b'.').is_err(), "{cell} as {kind:?}");
        }
    }

    #[test]
    fn a_decimal_comma_is_read_where_it_is_configured() {
        use FieldType::Number;
        assert_eq!(convert("4,5", Some(Number), b',').unwrap(), serde_json::json!(4.5));
        assert_eq!(convert("-0,25e2", Some(Number), b',').unwrap(), serde_json::json!(-25.0));
        assert_eq!(convert("4.5", Some(Number), b',').unwrap(), serde_json::json!(4.5));
        assert_eq!(convert("12", Some(Number), b',').unwrap(), serde_json::json!(12));
        assert!(convert("4,5", Some(Number), b'.').is_err());
        // A thousands separator beside a decimal one is not guessed at.
        let refused = convert("1.234,5", Some(Number), b',').unwrap_err();
        assert_eq!(
            refused,
            "\"1.234,5\" is not a number: it holds a thousands separator, which folio does not guess at; write it without one (like 1234,5)"
        );
        assert!(convert("1,2,3", Some(Number), b',').is_err());
    }

    #[test]
    fn a_number_a_spreadsheet_writes_loosely_is_the_decimal_it_writes() {
        use FieldType::Number;
        let read = |cell: &str| serde_json::to_string(&convert(cell, Some(Number), b'.').unwrap());
        for (cell, json) in [
            ("+7", "7"),
            ("007", "7"),
            ("-007", "-7"),
            ("000", "0"),
            (".5", "0.5"),
            ("-.5", "-0.5"),
            ("3.", "3.0"),
            ("0.", "0.0"),
            ("+1.e2", "100.0"),
            ("00018446744073709551615", "18446744073709551615"),
            // The nearest float, as in a JSON file (serde_json's `float_roundtrip`).
            ("0.12345678901234567", "0.12345678901234566"),
            ("1.00000000000000011102230246251565404236316680908203125", "1.0"),
        ] {
            assert_eq!(read(cell).unwrap(), json, "{cell}");
        }
        for cell in ["e5", "1e", ".", "+", "-", "1.2.3", "0x10", "1_000", "+-1", "++1", "+-.5"] {
            assert!(convert(cell, Some(Number), b'.').is_err(), "{cell}");
        }
        let past = convert("1e309", Some(Number), b'.').unwrap_err();
        assert!(past.contains("past the largest 64-bit number"), "{past}");
    }
}
