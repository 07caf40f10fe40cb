use super::*;

fn stream(text: &str, chunk: usize) -> (Vec<(u64, String)>, Vec<Problem>) {
    let mut got = Vec::new();
    let issues = stream_array(text.as_bytes(), chunk, &mut |raws| {
        got.extend(raws.into_iter().map(|r| match r {
            Raw::Text { line, text, .. } => (line, String::from_utf8(text.to_vec()).unwrap()),
            Raw::Object { .. } | Raw::Refused { .. } => unreachable!(),
        }))
    })
    .unwrap();
    (got, issues)
}

#[test]
fn array_elements_carry_the_line_of_their_opening_brace_whatever_the_chunk_size() {
    let text = "\u{feff}[\n  {\"id\": 1, \"s\": \"a]}\\\"\"},\n\n  {\n    \"id\": 2\n  }, {\"id\": 3}\n]\n";
    for chunk in [1, 2, 3, 7, 64, 4096] {
        let (rows, issues) = stream(text, chunk);
        assert!(issues.is_empty(), "{chunk}: {issues:?}");
        let lines: Vec<u64> = rows.iter().map(|r| r.0).collect();
        assert_eq!(lines, [2, 4, 6], "chunk {chunk}");
        assert_eq!(rows[0].1, "{\"id\": 1, \"s\": \"a]}\\\"\"}");
    }
    assert_eq!(stream("[]", 1), (vec![], vec![]));
}

#[test]
fn structural_errors_name_their_line() {
    let msg = |text: &str| {
        let (_, issues) = stream(text, 5);
        (issues[0].line, issues[0].message.clone())
    };
    assert_eq!(
        msg("[\n {\"id\": 1}\n {\"id\": 2}\n]"),
        (Some(3), "invalid JSON: expected `,` or `]` after an element (column 2)".into())
    );
    assert_eq!(msg("{\"id\": 1}"), (Some(1), "expected an array of objects (column 1)".into()));
    assert_eq!(
        msg("[\n{\"id\": 1"),
        (Some(2), "invalid JSON: the file ends inside this value (column 1)".into())
    );
    assert_eq!(
        msg("[{\"id\": 1},\n"),
        (Some(2), "invalid JSON: the file ends before the closing `]`".into())
    );
    assert_eq!(
        msg("[] x"),
        (Some(1), "invalid JSON: trailing characters after the array (column 4)".into())
    );
    // Form feed is not JSON whitespace (found by fuzzing: it was skipped like a space,
    // so folio read a document serde_json refuses): no value starts with it, and the
    // file is refused there, at its line.
    assert_eq!(
        msg("[{},\n\u{c}{}]"),
        (Some(2), "invalid JSON: expected a value (an object) (column 1)".into())
    );
    // A scalar ends at the first byte no scalar holds: a NUL or a control byte is no
    // scalar's start and no scalar's end.
    assert_eq!(
        msg("[1,\n\u{1}\u{1}\u{1}"),
        (Some(2), "invalid JSON: expected a value (an object) (column 1)".into())
    );
    let (found, issues) = stream("[12\u{1}]", 5);
    assert_eq!(found, [(1, "12".to_string())]);
    assert_eq!(issues[0].message, "invalid JSON: expected `,` or `]` after an element (column 4)");
    assert_eq!(msg(""), (Some(1), "expected an array of objects".into()));
}

#[test]
fn a_trailing_comma_is_named_at_its_line_and_column_whatever_the_chunk_size() {
    let text = "[\n  {\"id\": 1},\n  {\"id\": 2},\n]\n";
    for chunk in [1, 2, 5, 64, 4096] {
        let (_, issues) = stream(text, chunk);
        assert_eq!(issues[0].line, Some(3), "chunk {chunk}");
        assert_eq!(
            issues[0].message, "invalid JSON: a trailing comma after the last element (column 12)",
            "chunk {chunk}"
        );
    }
    // On one long line, wherever the chunks end; a BOM is not a column.
    let one_line = format!("\u{feff}[{}]", "{\"id\": 1},".repeat(1000));
    let column = 1 + 1000 * "{\"id\": 1},".len();
    for chunk in [1, 7, 100, 4096, 1 << 20] {
        let (_, issues) = stream(&one_line, chunk);
        assert_eq!(
            issues[0].message,
            format!("invalid JSON: a trailing comma after the last element (column {column})"),
            "chunk {chunk}"
        );
    }
}

/// The bytes of a one-line array of `n` small records, as `json.dump` writes it.
fn one_line_array(n: usize) -> String {
    let records: Vec<String> = (0..n)
        .map(|i| {
            format!("{{\"id\": {i}, \"name\": {{\"en\": \"Place {i}\", \"fr\": \"Lieu {i}\"}}}}")
        })
        .collect();
    format!("[{}]", records.join(", "))
}

/// How many bytes the splitter looks at to split `text` in chunks of `chunk` bytes.
fn examined(text: &str, chunk: usize) -> u64 {
    let mut elements = 0;
    let (issues, examined) =
        stream_array_counted(text.as_bytes(), chunk, &mut |raws| elements += raws.len()).unwrap();
    assert!(issues.is_empty(), "{issues:?}");
    assert!(elements > 0);
    examined
}

#[test]
fn the_splitter_looks_at_each_byte_a_few_times_however_the_array_is_laid_out() {
    // A one-line array (what `json.dump` and `JSON.stringify` write) once cost a scan back
    // to the start of the line at every comma: quadratic in the line's length. The work
    // is counted, not timed: at most a few looks a byte, on any layout and chunk size.
    let one_line = one_line_array(20_000);
    let pretty = one_line.replace(", {", ",\n  {");
    for text in [&one_line, &pretty] {
        for chunk in [4096, 64 << 10, 8 << 20] {
            let looks = examined(text, chunk) as f64 / text.len() as f64;
            assert!(looks <= 2.5, "{looks:.2} looks a byte, chunk {chunk}");
        }
    }
    // One element far longer than the chunk is re-scanned as the buffer doubles, not
    // once per chunk read.
    let big = format!("[{{\"id\": 1, \"text\": \"{}\"}}]", "x".repeat(4 << 20));
    let looks = examined(&big, 4096) as f64 / big.len() as f64;
    assert!(looks <= 4.0, "{looks:.2} looks a byte for one long element");
}

#[test]
fn a_syntax_error_inside_an_element_names_the_column_in_the_file() {
    let project = crate::config::test_project("");
    let text = "[{\"id\": 1}, {\"id\": 2,}]";
    let (_, problems) = crate::load::parse_file(&project, "a.json", text.as_bytes(), 1 << 20);
    let p = &problems[0];
    assert_eq!(p.line, Some(1));
    // `{"id": 2,}` starts at column 13 of the line; serde_json stops at its `}` (column 10
    // of the element), and the comma before it is the cause (column 21).
    assert!(p.message.ends_with("trailing comma (column 21)"), "{}", p.message);
    let pretty = "[\n  {\"id\": 1},\n  {\n    \"id\": x\n  }\n]";
    let (_, problems) = crate::load::parse_file(&project, "a.json", pretty.as_bytes(), 1 << 20);
    // At the line of the offending token, not of the record's `{`.
    assert_eq!(problems[0].line, Some(4));
    assert!(problems[0].message.ends_with("(column 11)"), "{}", problems[0].message);
    // A trailing comma in a pretty-printed record, at the comma's line; columns count
    // characters, not bytes.
    let pretty = "[\n  {\n    \"id\": 1,\n    \"name\": \"Ch\u{e2}teau\u{e9}\",\n  }\n]";
    let (_, problems) = crate::load::parse_file(&project, "a.json", pretty.as_bytes(), 1 << 20);
    assert_eq!(problems[0].line, Some(4));
    assert_eq!(problems[0].message, "invalid JSON: trailing comma (column 23)");
    // A one-line array's records and its own errors too, whatever the chunks.
    let text = "[{\"n\": \"\u{e9}\u{e9}\"}, {\"id\": 1}, {\"n\": \"\u{1d11e}\"}, 2 3]";
    for chunk in [1, 3, 7, 4096] {
        let (_, issues) = stream(text, chunk);
        assert_eq!(
            issues[0].message, "invalid JSON: expected `,` or `]` after an element (column 40)",
            "chunk {chunk}"
        );
    }
    let (_, problems) = crate::load::parse_file(&project, "a.json", text.as_bytes(), 1 << 20);
    let columns: Vec<u64> =
        problems.iter().filter_map(|p| Some(p.record.as_ref()?.column)).collect();
    assert_eq!(columns, [2, 26, 38], "{problems:?}");
    let one_line = "[{\"name\": \"\u{e9}\u{e9}\u{e9}\", \"id\": x}]";
    let (_, problems) = crate::load::parse_file(&project, "a.json", one_line.as_bytes(), 1 << 20);
    assert!(problems[0].message.ends_with("(column 24)"), "{}", problems[0].message);
}

use proptest::prelude::*;
use serde_json::Value;

/// Any JSON value, with strings full of what a bracket matcher could trip on.
fn any_value() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        (-1e9f64..1e9).prop_map(|f| serde_json::json!(f)),
        "[a-z\\]\\[{}\"\\\\ \n\t,:é𝄞]{0,8}".prop_map(Value::String),
    ];
    leaf.prop_recursive(3, 24, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(Value::Array),
            prop::collection::vec(("[a-z\\]\"{]{0,4}", inner), 0..4)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// A `.json` document: its elements written compact or pretty (so that elements span
/// lines), with any whitespace between them, and the line each element starts on.
fn any_document() -> impl Strategy<Value = (String, Vec<u64>)> {
    let space = prop::sample::select(vec!["", " ", "\n", "\r\n", "\t\n  ", "\n\n"]);
    let element = (any_value(), any::<bool>(), space.clone(), space.clone());
    (prop::collection::vec(element, 0..6), space.clone(), space).prop_map(
        |(elements, before, after)| {
            let mut doc = format!("{before}[");
            let mut lines = Vec::new();
            for (i, (value, pretty, pad1, pad2)) in elements.iter().enumerate() {
                if i > 0 {
                    doc.push(',');
                }
                doc.push_str(pad1);
                lines.push(1 + doc.matches('\n').count() as u64);
                let text = if *pretty {
                    serde_json::to_string_pretty(value)
                } else {
                    serde_json::to_string(value)
                };
                doc.push_str(&text.unwrap());
                doc.push_str(pad2);
            }
            doc.push(']');
            doc.push_str(after);
            (doc, lines)
        },
    )
}

proptest! {
    #[test]
    fn the_splitter_finds_the_values_and_lines_serde_json_finds(
        (doc, lines) in any_document(),
        chunk in 1usize..64,
    ) {
        let whole: Vec<Value> = serde_json::from_str(&doc).unwrap();
        let (found, issues) = stream(&doc, chunk);
        prop_assert!(issues.is_empty(), "{:?}", issues);
        let values: Vec<Value> =
            found.iter().map(|(_, text)| serde_json::from_str(text).unwrap()).collect();
        prop_assert_eq!(values, whole);
        let found_lines: Vec<u64> = found.iter().map(|(line, _)| *line).collect();
        prop_assert_eq!(found_lines, lines);
    }

    #[test]
    fn json_lines_find_every_line_serde_json_reads(
        values in prop::collection::vec(prop::option::of(any_value()), 0..8),
        crlf in any::<bool>(),
        chunk in 1usize..64,
    ) {
        // None is a blank line.
        let end = if crlf { "\r\n" } else { "\n" };
        let text: String = values
            .iter()
            .map(|v| v.as_ref().map_or(String::new(), |v| v.to_string()) + end)
            .collect();
        let mut got = Vec::new();
        let issues = stream_lines(text.as_bytes(), chunk, &mut |raws| {
            got.extend(raws.into_iter().map(|r| match r {
                Raw::Text { line, text, .. } => (line, serde_json::from_slice::<Value>(text).unwrap()),
                Raw::Object { .. } | Raw::Refused { .. } => unreachable!(),
            }))
        })
        .unwrap();
        prop_assert!(issues.is_empty());
        // What serde_json reads from each line's text (floats need not round-trip).
        let want: Vec<(u64, Value)> = values
            .iter()
            .enumerate()
            .filter_map(|(i, v)| {
                v.as_ref().map(|v| (i as u64 + 1, serde_json::from_str(&v.to_string()).unwrap()))
            })
            .collect();
        prop_assert_eq!(got, want);
    }
}

#[test]
fn json_lines_skip_blank_lines_and_strip_line_ends() {
    let mut got = Vec::new();
    let text = "\u{feff}{\"id\":1}\r\n\r\n  \n{\"id\":2}\n{\"id\":3}";
    stream_lines(text.as_bytes(), 1, &mut |raws| {
        got.extend(raws.into_iter().map(|r| match r {
            Raw::Text { line, text, .. } => (line, String::from_utf8(text.to_vec()).unwrap()),
            Raw::Object { .. } | Raw::Refused { .. } => unreachable!(),
        }))
    })
    .unwrap();
    assert_eq!(
        got,
        [
            (1, "{\"id\":1}".to_string()),
            (4, "{\"id\":2}".to_string()),
            (5, "{\"id\":3}".to_string())
        ]
    );
}

#[test]
fn a_file_of_millions_of_empty_elements_is_split_in_bounded_batches() {
    // `[,,,,…]` and `[1,1,1,…]`: every element is a problem; a batch holds at most
    // MAX_ELEMENTS of them, so memory does not grow with the file.
    let ones = format!("[{}1]", "1,".repeat(3 * MAX_ELEMENTS));
    let mut batches = Vec::new();
    let issues =
        stream_array(ones.as_bytes(), 8 << 20, &mut |raws| batches.push(raws.len())).unwrap();
    assert!(issues.is_empty(), "{issues:?}");
    assert_eq!(batches.iter().sum::<usize>(), 3 * MAX_ELEMENTS + 1);
    assert!(batches.iter().all(|&n| n <= MAX_ELEMENTS), "{batches:?}");
    let project = crate::config::test_project("");
    let commas = format!("[{}]", ",".repeat(3 * MAX_ELEMENTS));
    let (_, problems) = crate::load::parse_file(&project, "a.json", commas.as_bytes(), 8 << 20);
    assert!(problems.len() <= 1001, "{}", problems.len());
    let (_, problems) = crate::load::parse_file(&project, "a.json", ones.as_bytes(), 8 << 20);
    assert_eq!(problems.len(), 1001, "the first thousand, and how many more");
    let more = 3 * MAX_ELEMENTS + 1 - 1000;
    assert_eq!(
        problems[1000].message,
        format!(
            "{more} more problems in this file are not listed: only its first 1000 are, and those like one of them are counted with it"
        )
    );
    assert_eq!(crate::diag::count(&problems), 3 * MAX_ELEMENTS as u64 + 1, "each counted");
    let csv = format!("id,name\n{}", "1\n".repeat(3 * MAX_ELEMENTS));
    let (_, problems) = crate::load::parse_file(&project, "a.csv", csv.as_bytes(), 8 << 20);
    assert_eq!(problems.len(), 1001, "CSV too");
    assert_eq!(crate::diag::count(&problems), 3 * MAX_ELEMENTS as u64, "each counted");
}

/// The index of every element that shares its line with another, at every chunk size.
#[test]
fn elements_that_share_a_line_carry_their_index_and_the_rest_none() {
    let text = "[\n{\"id\": 1},\n{\"id\": 2}, {\"id\": 3},\n{\"id\": 4}\n]";
    for chunk in [1, 2, 5, 64, 4096] {
        let mut got = Vec::new();
        stream_array(text.as_bytes(), chunk, &mut |raws| {
            got.extend(raws.into_iter().map(|r| match r {
                Raw::Text { index, .. } => index,
                Raw::Object { .. } | Raw::Refused { .. } => unreachable!(),
            }))
        })
        .unwrap();
        // Element 1 learns it shares its line when element 2 is found: in one read unless
        // the chunk ends between them, where the first keeps no index.
        if chunk >= 64 {
            assert_eq!(got, [None, Some(1), Some(2), None], "chunk {chunk}");
        } else {
            assert_eq!(got[0], None);
            assert_eq!(got[2], Some(2), "chunk {chunk}");
            assert_eq!(got[3], None);
        }
    }
}

#[test]
fn a_closing_bracket_of_the_other_kind_ends_the_element_there() {
    assert_eq!(value_len(b"{\"a\": [1}, {\"b\": 2}]"), Some(9));
    assert_eq!(value_len(b"[{\"a\": 1]]"), Some(9));
    assert_eq!(value_len(b"{\"a\": [1, {\"b\": []}]}, 1"), Some(21));
    // Past 128 levels the kinds are no longer told apart; the extent is still found.
    let deep = format!("{}{}", "[".repeat(200), "]".repeat(200));
    assert_eq!(value_len(deep.as_bytes()), Some(400));
}
