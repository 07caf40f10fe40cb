//! Numbers as written. A JSON number is held as a 64-bit integer when it is one and as a
//! 64-bit float otherwise, and a float keeps about 16 significant digits: a literal with
//! more (`12345678901234567890123`, `0.1000000000000000000001`) would be written back as
//! another number without a word, and so would one too small for a float (`1e-400` goes to
//! 0, `2.5e-324` to the subnormal `5e-324`). This module finds such literals in a record's text so
//! they are a problem with their field and line; what `JSON.stringify`, Python's `json`
//! or serde_json write (the shortest digits of a float) always passes, and so does `4.50`
//! (the same value as `4.5`).

/// A number in a record's text that no 64-bit number holds exactly.
#[derive(Debug, PartialEq, Eq)]
pub struct Inexact {
    /// The line inside the record's text, from 1.
    pub line: u64,
    /// The column on that line, from 1 (in the record's text: on its first line, count
    /// from where the record starts).
    pub column: u64,
    /// The record's field it is in (its key in the record object), when it is in one.
    pub field: Option<String>,
    pub literal: String,
    /// What it would be written as.
    pub written: String,
    /// Whether it has more significant digits than a float keeps; else it is too small
    /// (it goes to zero, or to a subnormal float with fewer digits).
    pub digits_lost: bool,
}

/// Whether `text` may hold a number [`scan`] would report: such a number has at least 16
/// significant digits, so its text is a run of 16 or more bytes of digits and one `.`,
/// which covers a whole 8-byte word of `text` wherever it starts. Words are tested eight
/// bytes at a time, so a record without one costs a fraction of a scan.
pub fn may_hold_long_number(text: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    text.chunks_exact(8).any(|word| {
        let w = u64::from_le_bytes(word.try_into().expect("8 bytes"));
        if w & HIGH != 0 {
            return false;
        }
        // Each byte below 0x80: adding cannot carry into the next byte.
        let at_least_0 = w + (0x80 - b'0') as u64 * ONES;
        let above_9 = w + (0x7f - b'9') as u64 * ONES;
        let digit = at_least_0 & !above_9;
        // A byte equal to `.`: zero after the xor, found without borrows.
        let x = w ^ (b'.' as u64 * ONES);
        let dot = !(((x & !HIGH) + !HIGH) | x | !HIGH);
        (digit | dot) & HIGH == HIGH
    })
}

/// Every number literal in `text` (one JSON value) whose value a 64-bit integer or float
/// does not hold exactly. Strings are skipped whole; only their keys are read.
pub fn scan(text: &[u8]) -> Vec<Inexact> {
    let mut found = Vec::new();
    let mut depth = 0usize;
    let mut line = 1u64;
    let mut line_start = 0usize;
    let mut field: Option<&[u8]> = None;
    let mut i = 0;
    while i < text.len() {
        match text[i] {
            b'"' => {
                let Some(len) = super::json::string_len(&text[i..]) else { break };
                let string = &text[i + 1..i + len - 1];
                i += len;
                if depth == 1 {
                    let after =
                        text[i..].iter().find(|b| !matches!(b, b' ' | b'\t' | b'\r' | b'\n'));
                    if after == Some(&b':') {
                        field = Some(string);
                    }
                }
                continue;
            }
            b'{' | b'[' => depth += 1,
            b'}' | b']' => depth = depth.saturating_sub(1),
            b'\n' => {
                line += 1;
                line_start = i + 1;
            }
            b'-' | b'0'..=b'9' => {
                let len = text[i..]
                    .iter()
                    .position(|b| !matches!(b, b'0'..=b'9' | b'-' | b'+' | b'.' | b'e' | b'E'))
                    .unwrap_or(text.len() - i);
                let literal = &text[i..i + len];
                if let Some(written) = std::str::from_utf8(literal).ok().and_then(inexact) {
                    let digits_lost = significant_digits(literal) > 15;
                    found.push(Inexact {
                        digits_lost,
                        line,
                        column: (i - line_start + 1) as u64,
                        field: field.map(|f| String::from_utf8_lossy(f).into_owned()),
                        literal: String::from_utf8_lossy(literal).into_owned(),
                        written,
                    });
                }
                i += len;
                continue;
            }
            _ => {}
        }
        i += 1;
    }
    found
}

/// How `literal` (a valid JSON number) would be written after reading, when that is
/// another value; `None` when it is kept exactly.
pub fn inexact(literal: &str) -> Option<String> {
    let integer = !literal.contains(['.', 'e', 'E']);
    if integer && (literal.parse::<i64>().is_ok() || literal.parse::<u64>().is_ok()) {
        return None;
    }
    let float: f64 = literal.parse().ok()?;
    // Up to 15 significant digits come back from a normal float as written; a float that
    // underflowed to zero or to a subnormal keeps fewer, or none.
    let normal = float.is_normal() || float == 0.0 && decimal(literal).1.is_empty();
    if normal && significant_digits(literal.as_bytes()) <= 15 {
        return None;
    }
    let written = serde_json::Number::from_f64(float)?.to_string();
    (decimal(&written) != decimal(literal)).then_some(written)
}

/// How many significant digits a number literal's mantissa has (leading zeros aside).
fn significant_digits(literal: &[u8]) -> usize {
    let mantissa = literal.split(|&b| b == b'e' || b == b'E').next().unwrap_or(literal);
    let significant = mantissa.iter().skip_while(|b| matches!(b, b'-' | b'0' | b'.'));
    significant.filter(|b| b.is_ascii_digit()).count()
}

/// A decimal literal as (negative, significant digits, exponent of the last digit), with
/// no leading or trailing zero in the digits: two literals are the same value exactly when
/// these are equal.
fn decimal(literal: &str) -> (bool, String, i64) {
    let (negative, rest) = match literal.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, literal),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(at) => (&rest[..at], rest[at + 1..].parse::<i64>().unwrap_or(0)),
        None => (rest, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    let digits = format!("{whole}{fraction}");
    let digits = digits.trim_start_matches('0');
    let trimmed = digits.trim_end_matches('0');
    if trimmed.is_empty() {
        return (false, String::new(), 0);
    }
    let exponent = exponent - fraction.len() as i64 + (digits.len() - trimmed.len()) as i64;
    (negative, trimmed.to_string(), exponent)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_a_float_holds_pass_and_the_rest_say_what_they_would_become() {
        for kept in [
            "0",
            "-0.0",
            "4.50",
            "1e22",
            "100000000000000000000000",
            "0.30000000000000004",
            "9007199254740993",
            "18446744073709551615",
            "-9223372036854775808",
            "1.7976931348623157e308",
            "123456789012345.0000",
        ] {
            assert_eq!(inexact(kept), None, "{kept}");
        }
        assert_eq!(inexact("12345678901234567890123").as_deref(), Some("1.2345678901234568e+22"));
        assert_eq!(inexact("0.1000000000000000000001").as_deref(), Some("0.1"));
        assert_eq!(inexact("18446744073709551617").as_deref(), Some("1.8446744073709552e+19"));
        assert_eq!(inexact("-3.14159265358979323846").as_deref(), Some("-3.141592653589793"));
        // Too small: gone to zero, or to a subnormal with fewer digits.
        assert_eq!(inexact("1e-400").as_deref(), Some("0.0"));
        assert_eq!(inexact("-1E-330").as_deref(), Some("-0.0"));
        assert_eq!(inexact("2.5e-324").as_deref(), Some("5e-324"));
        for kept in ["5e-324", "0e-400", "-0.000", "2.2250738585072014e-308", "1e-300"] {
            assert_eq!(inexact(kept), None, "{kept}");
        }
    }

    #[test]
    fn the_word_test_finds_every_long_number_and_passes_records_without_one() {
        assert!(!may_hold_long_number(br#"{"id": 7, "rating": 4.5, "name": "Fushimi 1/2"}"#));
        assert!(!may_hold_long_number(br#"{"opened": "2026-01-01T10:30:00+01:00"}"#));
        for long in ["12345678901234567890123", "0.1000000000000000000001", "-3.14159265358979323"]
        {
            // At every alignment, after anything.
            for pad in 0..8 {
                let text = format!("{{\"x\":{}{long}}}", " ".repeat(pad));
                assert!(may_hold_long_number(text.as_bytes()), "{text}");
                assert!(!scan(text.as_bytes()).is_empty(), "{text}");
            }
        }
        // A word is taken only when all its bytes are digits or `.`: not `/`, `:` or `-`
        // (the bytes either side of the digits).
        assert!(!may_hold_long_number(b"1234567/:1234567-1234.67:"));
        assert!(may_hold_long_number(b"1234.678"));
    }

    #[test]
    fn the_scan_names_the_field_and_line_and_skips_strings() {
        let text = br#"{
  "id": 12345678901234567890123,
  "name": {"en": "9999999999999999999999 \" 1.00000000000000000001"},
  "geo": [35.0116, 135.76810000000000000001],
  "fine": 0.30000000000000004
}"#;
        let found = scan(text);
        assert_eq!(
            found,
            vec![
                Inexact {
                    line: 2,
                    column: 9,
                    field: Some("id".into()),
                    literal: "12345678901234567890123".into(),
                    written: "1.2345678901234568e+22".into(),
                    digits_lost: true,
                },
                Inexact {
                    line: 4,
                    column: 20,
                    field: Some("geo".into()),
                    literal: "135.76810000000000000001".into(),
                    written: "135.7681".into(),
                    digits_lost: true,
                },
            ]
        );
    }
}
