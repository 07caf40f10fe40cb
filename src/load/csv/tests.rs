//! The CSV reader's own tests: lines, chunks and BOMs.

use super::*;

/// The line of every row (and problem) of `text`, parsed with the default config.
fn row_lines(text: &str) -> (Vec<u64>, Vec<Option<u64>>) {
    let project = crate::config::test_project("");
    let res = Resolver::new(&project);
    let (rows, issues, _) = parse(text.as_bytes(), b',', &res);
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
        let (rows, _, _) = parse(bytes, b',', &Resolver::new(&project));
        let lines: Vec<u64> = rows.iter().map(Raw::line).collect();
        assert_eq!(lines, [2, 3, 6], "after a BOM, line ends {end:?}");
    }
    // A file that ends without a line end, and a problem row.
    assert_eq!(row_lines("id,name\r\n1,a\r\n2,b,extra\r\n3,c").1, [Some(3)]);
    assert_eq!(row_lines("id,name\r1,a\r2,b,extra\r3,c").0, [2, 4]);
}

/// A CSV text with quoted cells holding delimiters, quotes and line ends, blank
/// lines, rows of the wrong width, and (sometimes) a stray quote inside a field.
fn any_csv() -> impl proptest::strategy::Strategy<Value = String> {
    use proptest::prelude::*;
    let cell = prop_oneof![
        "[a-z0-9 ]{0,6}",
        "[a-z,\"\n\r ]{0,6}".prop_map(|c| format!("\"{}\"", c.replace('"', "\"\""))),
        Just("ab\"c".to_string()),
    ];
    let row = prop::collection::vec(cell, 1..4).prop_map(|cells| cells.join(","));
    let end = prop::sample::select(vec!["\n", "\r\n", "\r"]);
    (prop::collection::vec((row, end.clone()), 0..24), end).prop_map(|(rows, head_end)| {
        let mut text = format!("id,a,b{head_end}");
        for (row, end) in rows {
            text.push_str(&row);
            text.push_str(end);
        }
        text
    })
}

proptest::proptest! {
    #[test]
    fn rows_read_in_chunks_are_the_rows_read_in_one(
        text in any_csv(),
        every in 1usize..40,
        batch in 1usize..60,
    ) {
        let project = crate::config::test_project("");
        let res = Resolver::new(&project);
        let shown = |(rows, issues, _): (Vec<Raw>, Vec<Problem>, Vec<Unlisted>)| {
            let rows: Vec<(u64, String)> = rows
                .into_iter()
                .map(|r| match r {
                    Raw::Object { line, object } => (line, crate::load::tree::Json::Object(object).to_string()),
                    Raw::Refused { line, id } => (line, format!("refused {id}")),
                    Raw::Text { .. } => unreachable!(),
                })
                .collect();
            let issues: Vec<(Option<u64>, String)> =
                issues.into_iter().map(|p| (p.line, p.message)).collect();
            (rows, issues)
        };
        let parse = |every: usize, batch: usize| {
            let mut rows = Vec::new();
            let found =
                stream_in_chunks(text.as_bytes(), b',', false, &res, every, batch, &mut |r| rows.extend(r));
            let (issues, warnings) = found.unwrap();
            (rows, issues.into_vec(0, std::path::Path::new("")), warnings)
        };
        let whole = shown(parse(usize::MAX, usize::MAX));
        // Chunks of `every` bytes, the file read `batch` bytes at a time.
        proptest::prop_assert_eq!(shown(parse(every, usize::MAX)), whole.clone());
        proptest::prop_assert_eq!(shown(parse(every, batch)), whole);
    }
}

#[test]
fn a_bom_at_the_start_of_a_row_stays_in_its_cell_whatever_the_chunks() {
    let project = crate::config::test_project("");
    let res = Resolver::new(&project);
    let text = "id,name\n\u{feff}1,a\n2,\u{feff}b\n\u{feff}\n";
    for every in [1, 3, usize::MAX] {
        let mut rows = Vec::new();
        let found =
            stream_in_chunks(text.as_bytes(), b',', false, &res, every, usize::MAX, &mut |r| {
                rows.extend(r)
            });
        let (issues, _) = found.unwrap();
        let issues = issues.into_vec(0, std::path::Path::new(""));
        let ids: Vec<String> = rows
            .iter()
            .filter_map(|r| match r {
                Raw::Object { object, .. } => Some(object.get("id").expect("an id").to_string()),
                _ => None,
            })
            .collect();
        assert_eq!(ids, ["\"\u{feff}1\"", "\"2\""], "chunks of {every}");
        // A line that holds only a BOM is a row of one cell, not a blank line.
        let lines: Vec<Option<u64>> = issues.iter().map(|p| p.line).collect();
        assert_eq!(lines, [Some(4)], "chunks of {every}: {issues:?}");
    }
}

#[test]
fn rows_are_cut_after_line_ends_outside_quotes_and_not_at_all_when_quoting_is_irregular() {
    let body = b"1,\"a\nb\"\n2,x\n3,\"c\"\"d\"\n4,y\n";
    let (cuts, done) = split_rows(body, b',', 1, true).unwrap();
    let starts: Vec<&[u8]> = cuts.iter().map(|&(from, _)| &body[from..from + 2]).collect();
    assert_eq!(starts, [b"1,", b"2,", b"3,", b"4,"]);
    assert_eq!(done, body.len());
    // Incomplete: whole records end at the last line end outside quotes.
    let (cuts, done) = split_rows(b"1,x\n2,\"a\nb", b',', 1, false).unwrap();
    assert_eq!((cuts, done), (vec![(0, 4)], 4));
    let (cuts, done) = split_rows(b"1,\"a\"", b',', 1, false).unwrap();
    assert_eq!((cuts, done), (vec![], 0), "the quote may be the first of `\"\"`");
    // `ab"c` keeps its quote as text in a lenient reader: no cut is trusted.
    assert_eq!(split_rows(b"1,ab\"c\n2,x\n", b',', 1, true), None);
    assert_eq!(split_rows(b"1,\"ab\"c\n2,x\n", b',', 1, true), None);
    assert_eq!(split_rows(b"1,\"ab\n2,x\n", b',', 1, true), None, "never closed");
}

#[test]
fn a_column_nested_past_json_s_bound_is_a_problem_not_a_crash() {
    // 10,000 dotted parts overflowed the stack assembling the row; the bound is JSON's.
    let project = crate::config::test_project("");
    let res = Resolver::new(&project);
    let deep = vec!["a"; 10_000].join(".");
    let (_, issues, _) = parse(format!("id,{deep}\n1,x\n").as_bytes(), b',', &res);
    assert_eq!(issues.len(), 1, "{issues:?}");
    assert_eq!(issues[0].line, Some(1));
    assert!(issues[0].message.contains("10000 levels deep"), "{}", issues[0].message);
    assert!(issues[0].message.len() < 200, "the name is cut: {}", issues[0].message);
    // At the bound, a column nests as deep as it says.
    let at = vec!["a"; header::MAX_DEPTH].join(".");
    let (rows, issues, _) = parse(format!("id,{at}\n1,x\n").as_bytes(), b',', &res);
    assert!(issues.is_empty(), "{issues:?}");
    let Raw::Object { object, .. } = &rows[0] else { panic!("a record") };
    let mut depth = 0;
    let mut value = object.get("a");
    while let Some(crate::load::tree::Json::Object(inner)) = value {
        depth += 1;
        value = inner.get("a");
    }
    assert_eq!(depth, header::MAX_DEPTH - 1);
    assert_eq!(value.map(|v| v.to_string()), Some("\"x\"".to_string()));
}

#[test]
fn a_record_miscounted_by_a_stray_quote_is_said_at_the_quote() {
    let project = crate::config::test_project("");
    let res = Resolver::new(&project);
    let text = "id,name,city\n1,a,b\n2,The \"Big, Apple\",NY\n3,c,d,e\n";
    let (rows, issues, _) = parse(text.as_bytes(), b',', &res);
    assert_eq!(rows.len(), 1);
    let shown: Vec<(Option<u64>, Option<u64>, Option<&str>)> =
        issues.iter().map(|p| (p.line, p.column, p.field.as_deref())).collect();
    assert_eq!(shown, [(Some(3), Some(7), Some("name")), (Some(4), None, None)]);
    assert!(issues[0].message.contains("(`The \"Big`)"), "{}", issues[0].message);
    assert_eq!(issues[1].message, "record has 4 fields, the header has 3");
}
