//! What a new user met in their third week, each answered with the words that say what to
//! do: a default language that is not listed yet, a type named as other schemas name it,
//! page sizes written as strings, a busy port.

use crate::harness::Project;

#[test]
fn a_default_language_of_its_own_is_one_to_add_and_a_typo_is_one_to_fix() {
    let p = Project::new("[listing]\nlanguages = [\"en\", \"de\"]\ndefault_language = \"es\"\n");
    p.write("data/a.json", "[]");
    let run = p.folio(&["check"]).fails(1);
    insta::assert_snapshot!(run.stderr(), @r"
    folio.toml:3: listing.default_language `es` is not one of listing.languages (en, de); add `es` to listing.languages to publish it, or set default_language to one of them
    error: invalid configuration
    ");
    p.write("folio.toml", "[listing]\nlanguages = [\"en\", \"de\"]\ndefault_language = \"eb\"\n");
    let run = p.folio(&["check"]).fails(1);
    assert!(run.stderr().contains("(en, de); did you mean `en`?"), "{}", run.stderr());
}

#[test]
fn a_type_named_as_other_schemas_name_it_gets_folios_name() {
    for (written, meant) in [("float", "number"), ("int", "integer"), ("bool", "boolean")] {
        let p = Project::new(&format!("[fields.rating]\ntype = \"{written}\"\n"));
        let run = p.folio(&["check"]).fails(1);
        let want = format!(
            "folio.toml:2: unknown value `{written}` in [fields.rating]; did you mean `{meant}`?"
        );
        assert!(run.stderr().contains(&want), "{}", run.stderr());
    }
}

#[test]
fn page_sizes_written_as_strings_are_told_their_range() {
    let p = Project::new("[listing]\npage_sizes = [\"10\", \"25\"]\n");
    let run = p.folio(&["check"]).fails(1);
    insta::assert_snapshot!(run.stderr(), @r#"
    folio.toml:2: `page_sizes` in [listing] must be a whole number from 1 to 100,000, not a string ("10")
    error: invalid configuration
    "#);
}

#[test]
fn a_busy_port_says_how_to_pick_another() {
    let p = Project::sample();
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = taken.local_addr().unwrap().port().to_string();
    let run = p.folio(&["serve", "--port", &port]).fails(2);
    let want = format!(
        "cannot bind 127.0.0.1:{port}: Address already in use (os error 98); another program listens there: pass another --port, or --port 0 for any free one"
    );
    assert!(run.stderr().contains(&want), "{}", run.stderr());
}

// What a new user still tripped on at 1d45a0f (issue 46), each answered as they expected.

#[test]
fn a_default_language_in_capitals_is_told_to_add_it_in_lowercase() {
    let p = Project::new("[listing]\nlanguages = [\"en\", \"de\"]\ndefault_language = \"ES\"\n");
    let run = p.folio(&["check"]).fails(1);
    insta::assert_snapshot!(run.stderr(), @r#"
    folio.toml:3: listing.default_language `ES` is not one of listing.languages (en, de); language tags are lowercase: add `es` to listing.languages and write default_language = "es" to publish it, or set default_language to one of them
    error: invalid configuration
    "#);
}

#[test]
fn a_table_of_another_tools_name_is_offered_folios_table_and_only_tables() {
    let p = Project::new("[l10n]\nfallback = \"null\"\n");
    insta::assert_snapshot!(p.folio(&["check"]).fails(1).stderr(), @r"
    folio.toml:1: unknown table `[l10n]`; did you mean `[i18n]`?
    error: invalid configuration
    ");
    // No table near the name: the tables, never the top level's other keys.
    p.write("folio.toml", "[site]\nx = 1\n");
    insta::assert_snapshot!(p.folio(&["check"]).fails(1).stderr(), @r"
    folio.toml:1: unknown table `[site]`; expected one of: [listing], [input], [fields], [i18n], [output], [hosting], [deploy], [openapi]
    error: invalid configuration
    ");
    // A key written as a table of a table that has keys only.
    p.write("folio.toml", "[listing.sorting]\n");
    insta::assert_snapshot!(p.folio(&["check"]).fails(1).stderr(), @r"
    folio.toml:1: unknown table `[listing.sorting]`; [listing] has no tables: did you mean the key `sort`, written `sort = …` under [listing]?
    error: invalid configuration
    ");
}

#[test]
fn a_key_written_in_the_wrong_table_is_told_where_it_belongs() {
    let p = Project::new(
        "[listing]\nlanguages = [\"en\"]\nfallback = \"null\"\nbase_url = \"https://example.org\"\n",
    );
    insta::assert_snapshot!(p.folio(&["check"]).fails(1).stderr(), @r"
    folio.toml:3: unknown key `fallback` in [listing]; `fallback` is a key of [i18n]: move it there
    folio.toml:4: unknown key `base_url` in [listing]; `base_url` is a top-level key: write it above the first [table] of the file
    error: invalid configuration
    ");
}

#[test]
fn a_language_as_fallback_is_told_what_each_fallback_does() {
    let p = Project::new("[i18n]\nfallback = \"en\"\n");
    insta::assert_snapshot!(p.folio(&["check"]).fails(1).stderr(), @r#"
    folio.toml:2: unknown value `en` in [i18n]; expected one of: "default" (the value in the default language, [listing] default_language), "null" (a null value) or "error" (the build fails, naming each missing translation); to fill missing translations from `en`, write fallback = "default" and set default_language = "en" in [listing]
    error: invalid configuration
    "#);
}

#[test]
fn a_semicolon_file_is_told_its_delimiter_before_anything_it_would_explain() {
    // `city` is in the file, behind the `;` the config does not read: no typo to report.
    let p = Project::new("[listing]\nsort = [\"city\"]\n");
    p.write("data/a.csv", "id;name;city\n1;Louvre;Paris\n");
    insta::assert_snapshot!(p.folio(&["check"]).fails(1).stderr(), @r#"
    data/a.csv:1: the header is one column, `id;name;city`: its fields are separated by `;`, not `,`; set `csv_delimiter = ";"` under [input] in folio.toml, or save the file with `,` between fields
    error: 1 problem in the input
    "#);
    // A field no column names is still a typo, said first as before.
    p.write("folio.toml", "[listing]\nsort = [\"ctiy\"]\n");
    let run = p.folio(&["check"]).fails(1);
    assert!(
        run.stderr().starts_with("folio.toml:2: listing.sort: no record has the field `ctiy`"),
        "{}",
        run.stderr()
    );
}

#[test]
fn a_date_in_a_spreadsheets_locale_order_says_which_order_it_reads_in() {
    let p = Project::new("[fields.opened]\ntype = \"date\"\n");
    p.write(
        "data/a.csv",
        "id,opened\n1,14.03.1998\n2,1998-03-14\n3,03/14/1998\n4,05/04/1998\n5,1998\n",
    );
    p.write("data/b.json", "[{\"id\": 6, \"opened\": \"14.03.1998\"}]\n");
    insta::assert_snapshot!(p.folio(&["check"]).fails(1).stderr(), @r#"
    data/a.csv:2: opened: "14.03.1998" is not a date (YYYY-MM-DD, a real day); it reads as DD.MM.YYYY, as spreadsheets write dates in many European locales: write YYYY-MM-DD (in the spreadsheet, format the column as YYYY-MM-DD before exporting)
    data/a.csv:4: opened: "03/14/1998" is not a date (YYYY-MM-DD, a real day); it reads as MM/DD/YYYY (month first, as in the US): write YYYY-MM-DD (in the spreadsheet, format the column as YYYY-MM-DD before exporting)
    data/a.csv:5: opened: "05/04/1998" is not a date (YYYY-MM-DD, a real day); it reads as DD/MM/YYYY or as MM/DD/YYYY, which its numbers cannot tell apart: write YYYY-MM-DD (in the spreadsheet, format the column as YYYY-MM-DD before exporting)
    data/a.csv:6: opened: "1998" is not a date (YYYY-MM-DD, a real day)
    data/b.json:1: opened: expected a date (YYYY-MM-DD, a real day), found a string ("14.03.1998"); it reads as DD.MM.YYYY, as spreadsheets write dates in many European locales: write YYYY-MM-DD (in the spreadsheet, format the column as YYYY-MM-DD before exporting)
    error: 5 problems in the input
    "#);
    // A column of them is one problem, with its count and lines.
    let rows: String = (1..=6).map(|i| format!("{i},1{i}.03.1998\n")).collect();
    p.write("data/a.csv", format!("id,opened\n{rows}"));
    p.write("data/b.json", "[]");
    let run = p.folio(&["check"]).fails(1);
    assert!(
        run.stderr().starts_with("data/a.csv:2: opened: 6 values in this file are like this one (lines 2, 3, 4, 5, 6, …): \"11.03.1998\" is not a date (YYYY-MM-DD, a real day); it reads as DD.MM.YYYY"),
        "{}",
        run.stderr()
    );
}

#[test]
fn excels_sep_line_names_the_delimiter_and_keeps_the_files_line_numbers() {
    // As Excel writes it: `sep=;` first, then the sheet with `;` and CRLF; the config says
    // nothing of `;`.
    let p = Project::new("[fields.rating]\ntype = \"number\"\n");
    p.write("data/a.csv", "sep=;\r\nid;name;rating\r\n1;Louvre;4.5\r\n2;Orsay;high\r\n");
    insta::assert_snapshot!(p.folio(&["check"]).fails(1).stderr(), @r#"
    data/a.csv:4: rating: "high" is not a number (finite decimals only)
    error: 1 problem in the input
    "#);
    p.write("data/a.csv", "sep=;\r\nid;name;rating\r\n1;Louvre;4.5\r\n2;Orsay;4\r\n");
    p.folio(&["build"]).success();
    let page = p.json("output/api/en/attractions/10/1.json");
    assert_eq!(page["data"][1], serde_json::json!({"id": "2", "name": "Orsay", "rating": 4}));
    // A problem of its header is on the header's line, the second; a BOM before it too.
    p.write("data/a.csv", "\u{feff}sep=|\nid|name||rating\n1|Louvre||4.5\n");
    insta::assert_snapshot!(p.folio(&["check"]).fails(1).stderr(), @r"
    data/a.csv:2: : column 3 has no valid name
    error: 1 problem in the input
    ");
}

#[test]
fn a_second_sep_line_or_a_sep_line_naming_no_delimiter_is_said_at_its_line() {
    // Two exports joined, or the line written twice: the second is no header to read
    // (it was advised `csv_delimiter = ","`, the header one column `sep=,`).
    let p = Project::new("");
    p.write("data/a.csv", "sep=;\nsep=,\nid;name\n1;a\n");
    insta::assert_snapshot!(p.folio(&["check"]).fails(1).stderr(), @r"
    data/a.csv:2: a second `sep=` line (`sep=,`): Excel's `sep=` line names the delimiter on the first line only, and the header follows it; delete this line (the first says `;`)
    error: 1 problem in the input
    ");
    // A curly quote after `sep=` (a word processor's): it was taken for the header, and
    // every row was a problem of its own.
    p.write("data/a.csv", "sep=\u{201c}\nid,name\n1,a\n");
    insta::assert_snapshot!(p.folio(&["check"]).fails(1).stderr(), @r#"
    data/a.csv:1: the first line `sep=“` names `“` as the delimiter, but a delimiter is one ASCII character other than `"` (`;`, `,`, a tab, `|`): write the delimiter the file uses after `sep=` (a word processor may have turned a quote curly), or delete the line and set `csv_delimiter` under [input]
    error: 1 problem in the input
    "#);
}
