//! JSON (`.json`: one array of objects) and JSON Lines (`.jsonl`, `.ndjson`: one object a
//! line). Elements are kept as slices of the file text with the line of their opening
//! `{`; they are parsed into objects later, in parallel, by the caller.

use serde_json::value::RawValue;

use super::{Issue, Raw};

/// serde_json's message without its trailing " at line L column C".
pub fn message(e: &serde_json::Error) -> String {
    let s = e.to_string();
    match s.rfind(" at line ") {
        Some(i) => s[..i].to_string(),
        None => s,
    }
}

/// Counts newlines incrementally so each element's line costs only the bytes since the last.
struct LineCounter<'a> {
    text: &'a str,
    offset: usize,
    line: u64,
}

impl LineCounter<'_> {
    fn line_at(&mut self, offset: usize) -> u64 {
        let newlines =
            self.text.as_bytes()[self.offset..offset].iter().filter(|&&b| b == b'\n').count();
        self.line += newlines as u64;
        self.offset = offset;
        self.line
    }
}

/// Splits a `.json` file into its array elements.
pub fn parse_array(text: &str) -> (Vec<Raw<'_>>, Vec<Issue>) {
    match serde_json::from_str::<Vec<&RawValue>>(text) {
        Ok(elements) => {
            let mut lines = LineCounter { text, offset: 0, line: 1 };
            let rows = elements
                .into_iter()
                .map(|el| {
                    let offset = el.get().as_ptr() as usize - text.as_ptr() as usize;
                    Raw::Text { line: lines.line_at(offset), text: el.get() }
                })
                .collect();
            (rows, Vec::new())
        }
        Err(e) => {
            let msg = if e.is_data() && e.line() <= 1 && e.column() <= 1 {
                "expected an array of objects".to_string()
            } else {
                format!("invalid JSON: {} (column {})", message(&e), e.column())
            };
            let msg = if e.is_data() && msg.starts_with("invalid JSON: invalid type") {
                "expected an array of objects".to_string()
            } else {
                msg
            };
            (
                Vec::new(),
                vec![Issue { line: Some(e.line().max(1) as u64), field: None, message: msg }],
            )
        }
    }
}

/// Splits a `.jsonl` file into its lines, skipping blank ones.
pub fn parse_lines(text: &str) -> (Vec<Raw<'_>>, Vec<Issue>) {
    let rows = text
        .split('\n')
        .enumerate()
        .filter(|(_, l)| !l.trim().is_empty())
        .map(|(i, l)| Raw::Text { line: i as u64 + 1, text: l.trim_end_matches('\r') })
        .collect();
    (rows, Vec::new())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lines(rows: &[Raw]) -> Vec<u64> {
        rows.iter().map(Raw::line).collect()
    }

    #[test]
    fn array_elements_carry_the_line_of_their_opening_brace() {
        let text = "[\n  {\"id\": 1},\n\n  {\n    \"id\": 2\n  }, {\"id\": 3}\n]";
        let (rows, issues) = parse_array(text);
        assert!(issues.is_empty());
        assert_eq!(lines(&rows), [2, 4, 6]);
    }

    #[test]
    fn syntax_errors_name_their_line() {
        let (_, issues) = parse_array("[\n {\"id\": 1},\n {\"id\" 2}\n]");
        assert_eq!(issues[0].line, Some(3));
        assert!(
            issues[0].message.starts_with("invalid JSON: expected `:`"),
            "{}",
            issues[0].message
        );
        let (_, issues) = parse_array("{\"id\": 1}");
        assert_eq!(issues[0].message, "expected an array of objects");
    }

    #[test]
    fn json_lines_skip_blank_lines_and_keep_numbers() {
        let (rows, _) = parse_lines("{\"id\":1}\r\n\r\n  \n{\"id\":2}\n");
        assert_eq!(lines(&rows), [1, 4]);
        match &rows[0] {
            Raw::Text { text, .. } => assert_eq!(*text, "{\"id\":1}"),
            _ => unreachable!(),
        }
    }
}
