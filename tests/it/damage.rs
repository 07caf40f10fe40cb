//! Damage real files carry, each named with its file, line, field and fix, and the build
//! refused with nothing written: a value is published as its file says it, or named. Every
//! case here was published changed, dropped or named vaguely by the loader before it.

use crate::harness::Project;
use crate::inputs::{I18N, rejected};

#[test]
fn a_quote_never_closed_is_named_at_the_line_it_opened_and_swallows_nothing() {
    let p = Project::new(I18N);
    p.write("data/a.csv", "id,name.en,rating\n1,Tower,4.5\n2,\"oops,4.1\n3,Gate,4.2\n4,Arch,3.0\n");
    // In the last record, without a line end: it used to load as `never closed`.
    p.write("data/b.csv", "id,name.en\r\n5,Mill\r\n6,\"never closed");
    insta::assert_snapshot!(rejected(&p), @r#"
    data/a.csv:3: name.en: a quoted cell opens here and is never closed, so every line after it would be read into this one cell: close it with `"`, and write a quote inside a quoted cell as `""`
    data/b.csv:3: name.en: a quoted cell opens here and is never closed, so every line after it would be read into this one cell: close it with `"`, and write a quote inside a quoted cell as `""`
    error: 2 problems in the input; nothing was written
    "#);
}

#[test]
fn text_after_a_closing_quote_is_named_not_joined_to_the_cell() {
    let p = Project::new(I18N);
    p.write("data/a.csv", "id,name.en,rating\n1,\"Tower\"s,4.5\n2,\"Gate \"\"B\"\"\",4.2\n");
    insta::assert_snapshot!(rejected(&p), @r#"
    data/a.csv:2: name.en: text follows the closing quote of a quoted cell (like `"ab"c`): write a quote inside a quoted cell as `""`, or quote the whole cell
    error: 1 problem in the input; nothing was written
    "#);
}

#[test]
fn language_keys_that_differ_only_by_case_are_named_not_merged() {
    let p = Project::new(I18N);
    p.write("data/a.csv", "id,name.en,name.EN\n1,lower,upper\n");
    p.write("data/b.json", r#"[{"id": 2, "name": {"fr": "x", "en": "lower", "EN": "upper"}}]"#);
    insta::assert_snapshot!(rejected(&p), @r#"
    data/a.csv:1: name.EN: column is the same language as column `name.en` (language codes are read in any case): keep one of the two
    data/b.json:1: name: has `en` and `EN`, one language in two cases (language codes are read in any case): keep one of the two
    error: 2 problems in the input; nothing was written
    "#);
}

#[test]
fn a_number_too_small_for_a_float_is_named_unless_its_field_takes_the_nearest() {
    let p = Project::new(I18N);
    // `rating` is declared a number: it takes the nearest 64-bit value, 0, by design.
    p.write(
        "data/a.json",
        r#"[{"id": 1, "size": 1e-400}, {"id": 2, "size": 2.5e-324}, {"id": 3, "size": 5e-324, "rating": 1e-400}]"#,
    );
    insta::assert_snapshot!(rejected(&p), @r#"
    data/a.json:1: record [0] (id 1, column 2): size: the number 1e-400 is too small for a 64-bit number and would be written as 0.0 (column 20): quote it to keep it as text, or declare [fields.size] type = "number" to take the nearest one
    data/a.json:1: record [1] (id 2, column 29): size: the number 2.5e-324 is too small for a 64-bit number and would be written as 5e-324 (column 47): quote it to keep it as text, or declare [fields.size] type = "number" to take the nearest one
    error: 2 problems in the input; nothing was written
    "#);
}

#[test]
fn in_a_one_line_array_every_problem_names_the_record_by_index_id_and_column() {
    let p = Project::new(I18N);
    let text = r#"[{"id": 1, "rating": 4.5}, {"id": 2, "rating": "high"}, {"id": 1, "rating": 3}, {"id": 3, "name": 7, "rating": true}]"#;
    p.write("data/a.json", text);
    insta::assert_snapshot!(rejected(&p), @r#"
    data/a.json:1: record [1] (id 2, column 28): rating: expected a number, found a string ("high")
    data/a.json:1: record [2] (id 1, column 57): id: duplicate id 1, first used at data/a.json:1 record [0] (column 2)
    data/a.json:1: record [3] (id 3, column 81): rating: expected a number, found a boolean (true)
    error: 3 problems in the input; nothing was written
    "#);
    // `check --format json` gives the same place as values.
    let run = p.folio(&["check", "--format", "json"]).fails(1);
    let report: serde_json::Value = serde_json::from_str(&run.stdout()).unwrap();
    let record = &report["problems"][0]["record"];
    assert_eq!(record, &serde_json::json!({"index": 1, "column": 28, "id": "2"}));
    assert_eq!(&text[27..28], "{", "the column is the record's opening brace");
    // A record a line names none.
    p.write("data/a.json", text.replace("}, ", "},\n"));
    let said = rejected(&p);
    assert!(said.starts_with("data/a.json:2: rating: expected a number"), "{said}");
    assert!(!said.contains("record ["), "{said}");
}

#[test]
fn nan_and_infinity_as_python_writes_them_are_named_with_what_to_write() {
    let p = Project::new(I18N);
    p.write("data/a.json", r#"[{"id": 1, "rating": 4.5}, {"id": 2, "rating": NaN}]"#);
    p.write("data/b.jsonl", "{\"id\": 3, \"rating\": -Infinity}\n");
    insta::assert_snapshot!(rejected(&p), @r#"
    data/a.json:1: record [1] (column 28): invalid JSON: `NaN` is no JSON value (column 48; Python's json.dump writes it for a float that is no number, and pandas for a blank cell): write null where there is no value (json.dump(..., allow_nan=False) refuses to write it, and pandas' to_json writes null)
    data/b.jsonl:1: invalid JSON: `Infinity` is no JSON value (column 22; Python's json.dump writes it for a float that is no number, and pandas for a blank cell): write null where there is no value (json.dump(..., allow_nan=False) refuses to write it, and pandas' to_json writes null)
    error: 2 problems in the input; nothing was written
    "#);
}

#[test]
fn an_integer_field_says_its_range_in_csv_and_json_alike_and_untyped_keeps_any() {
    let config = format!("{I18N}\n[fields.count]\ntype = \"integer\"\n");
    let p = Project::new(&config);
    p.write(
        "data/a.json",
        r#"[{"id": 1, "n": 18446744073709551615, "count": 18446744073709551615}]"#,
    );
    p.write("data/b.csv", "id,count\n2,18446744073709551615\n3,-9223372036854775809\n4,12x\n");
    insta::assert_snapshot!(rejected(&p), @r#"
    data/a.json:1: count: 18446744073709551615 is outside the range of an integer (-9223372036854775808..=9223372036854775807): declare no type to keep it as written
    data/b.csv:2: count: "18446744073709551615" is outside the range of an integer (-9223372036854775808..=9223372036854775807): declare no type to keep it as written
    data/b.csv:3: count: "-9223372036854775809" is outside the range of an integer (-9223372036854775808..=9223372036854775807): declare no type to keep it as written
    data/b.csv:4: count: "12x" is not an integer (digits only, -9223372036854775808..=9223372036854775807)
    error: 4 problems in the input; nothing was written
    "#);
    // Untyped, the same number is published exactly.
    p.write("data/a.json", r#"[{"id": 1, "n": 18446744073709551615}]"#);
    std::fs::remove_file(p.path("data/b.csv")).unwrap();
    p.folio(&["build"]).success();
    assert!(p.read("output/api/en/attractions/10/1.json").contains(r#""n":18446744073709551615"#));
}

#[test]
fn a_long_cell_is_shown_clipped_in_its_problem() {
    let p = Project::new(I18N);
    p.write("data/a.csv", format!("id,name.en,rating\n1,Tower,{}x\n", "9".repeat(70)));
    insta::assert_snapshot!(rejected(&p), @r#"
    data/a.csv:2: rating: "999999999999999999999999999999999999999999999999999999999999… (71 bytes)" is not a number (finite decimals only)
    error: 1 problem in the input; nothing was written
    "#);
}

#[test]
fn a_tsv_file_with_other_separators_is_told_to_be_renamed() {
    let p = Project::new(I18N);
    p.write("data/a.tsv", "id,name.en\n1,Tower\n");
    p.write("data/b.tsv", "id;name.en\n1;Tower\n");
    insta::assert_snapshot!(rejected(&p), @r#"
    data/a.tsv:1: the header is one column, `id,name.en`: its fields are separated by `,`, and a `.tsv` file is read with a tab between fields; rename it to `.csv`, or save it with tabs
    data/b.tsv:1: the header is one column, `id;name.en`: its fields are separated by `;`, and a `.tsv` file is read with a tab between fields; rename it to `.csv` and set `csv_delimiter = ";"` under [input] in folio.toml, or save it with tabs
    error: 2 problems in the input; nothing was written
    "#);
}

#[test]
fn a_record_refused_for_a_field_is_still_checked_for_a_duplicate_id() {
    let p = Project::new(I18N);
    p.write(
        "data/a.json",
        "[\n{\"id\": 1, \"rating\": 4.5},\n{\"id\": 1, \"rating\": \"high\"}\n]\n",
    );
    p.write("data/b.csv", "id,rating\n1,x\n");
    insta::assert_snapshot!(rejected(&p), @r#"
    data/a.json:3: rating: expected a number, found a string ("high")
    data/a.json:3: id: duplicate id 1, first used at data/a.json:2
    data/b.csv:2: rating: "x" is not a number (finite decimals only)
    data/b.csv:2: id: duplicate id 1, first used at data/a.json:2
    error: 4 problems in the input; nothing was written
    "#);
}

#[test]
fn a_structural_error_after_a_bad_element_hides_neither() {
    let p = Project::new(I18N);
    p.write("data/a.json", r#"[{"id": 1, "rating": "x"}, {"id": 2, "rating": 4.5} {"id": 3}]"#);
    // A closer of the other kind ends the element there: the next one is read as usual.
    p.write("data/b.json", r#"[{"id": 4, "rating": [1}, {"id": 5}]"#);
    insta::assert_snapshot!(rejected(&p), @r#"
    data/a.json:1: invalid JSON: expected `,` or `]` after an element (column 53)
    data/a.json:1: record [0] (id 1, column 2): rating: expected a number, found a string ("x")
    data/b.json:1: record [0] (column 2): invalid JSON: expected `,` or `]` (column 24)
    error: 3 problems in the input; nothing was written
    "#);
}

#[test]
fn a_number_cell_reads_as_the_same_text_in_json() {
    let numbers = ["-0", "-0.0", "18446744073709551615", "1E5", "-0e0", "4.50"];
    let mut config = I18N.to_string();
    let mut header = "id".to_string();
    let mut row = "1".to_string();
    let mut object = r#"{"id": 1"#.to_string();
    for (i, n) in numbers.iter().enumerate() {
        config.push_str(&format!("\n[fields.n{i}]\ntype = \"number\"\n"));
        header.push_str(&format!(",n{i}"));
        row.push_str(&format!(",{n}"));
        object.push_str(&format!(r#", "n{i}": {n}"#));
    }
    let page = |file: &str, text: String| {
        let p = Project::new(&config);
        p.write(file, text);
        p.folio(&["build"]).success();
        p.json("output/api/en/attractions/10/1.json")["data"][0].clone()
    };
    let csv = page("data/a.csv", format!("{header}\n{row}\n"));
    let json = page("data/a.json", format!("[{object}}}]"));
    assert_eq!(csv.to_string(), json.to_string());
    assert_eq!(csv["n2"].to_string(), "18446744073709551615");
}
