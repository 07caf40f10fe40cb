//! Bad input: every problem at once, as `path:line: field: message`, exit 1, nothing written.

use serde_json::json;

use crate::harness::Project;

const I18N: &str = "[listing]\nlanguages = [\"en\", \"fr\"]\n[fields.name]\nlocalized = true\n[fields.rating]\ntype = \"number\"\n[fields.id]\ntype = \"integer\"\n";

/// Builds, expects exit 1 with nothing written, returns stderr.
#[track_caller]
fn rejected(p: &Project) -> String {
    let run = p.folio(&["build"]).fails(1);
    assert!(!p.path("output").exists(), "a rejected build writes nothing");
    assert!(run.stdout().is_empty());
    run.stderr()
}

#[test]
fn malformed_csv_quoting_is_reported_at_its_line() {
    let p = Project::new(I18N);
    p.write("data/a.csv", "id,name.en,rating\n1,Tower,4.5\n2,\"Bridge,4.1\n3,Gate,4.2\n");
    insta::assert_snapshot!(rejected(&p));
}

#[test]
fn invalid_json_names_file_and_line() {
    let p = Project::new(I18N);
    p.write(
        "data/a.json",
        "[\n  {\"id\": 1, \"name\": \"A\"},\n  {\"id\": 2 \"name\": \"B\"}\n]\n",
    );
    insta::assert_snapshot!(rejected(&p));
}

#[test]
fn a_broken_json_lines_line_has_its_own_line_number() {
    let p = Project::new(I18N);
    p.write("data/a.jsonl", "{\"id\": 1}\n\n{\"id\": 2}\n{\"id\": 3,}\n[1]\n{\"id\": 4}\n");
    insta::assert_snapshot!(rejected(&p));
}

#[test]
fn duplicate_ids_across_files_name_the_first_occurrence() {
    let p = Project::new(I18N);
    p.write("data/a.csv", "id,name.en\n1,A\n2,B\n");
    p.write("data/b/c.jsonl", "{\"id\": 3}\n{\"id\": 2}\n{\"id\": 1}\n");
    insta::assert_snapshot!(rejected(&p));
}

#[test]
fn type_mismatches_in_csv_and_json_are_all_reported() {
    let p = Project::new(I18N);
    p.write("data/a.csv", "id,name.en,rating\n1,A,4.5\nx,B,abc\n3,C,NaN\n");
    p.write(
        "data/b.json",
        "[{\"id\": 4, \"rating\": \"4.5\"}, {\"id\": 5.5}, {\"name\": \"no id\"}]",
    );
    insta::assert_snapshot!(rejected(&p));
}

#[test]
fn sort_field_mixing_types_is_an_error() {
    let p = Project::new("[listing]\nsort = [\"rank\"]\n");
    p.write("data/a.jsonl", "{\"id\": 1, \"rank\": 3}\n{\"id\": 2, \"rank\": \"high\"}\n");
    insta::assert_snapshot!(rejected(&p));
}

#[test]
fn missing_translation_with_fallback_error_fails() {
    let p = Project::new(&format!("{I18N}[i18n]\nfallback = \"error\"\n"));
    p.write("data/a.csv", "id,name.en,name.fr\n1,A,Á\n2,B,\n");
    insta::assert_snapshot!(rejected(&p));
}

#[test]
fn unknown_config_key_names_key_and_file() {
    let p = Project::new("[listing]\nlanguages = [\"en\"]\nper_page = 10\n");
    let run = p.folio(&["build"]).fails(1);
    insta::assert_snapshot!(run.stderr());
}

#[test]
fn invalid_config_values_are_all_reported() {
    let p =
        Project::new("output_dir = \"data\"\n[listing]\nlanguages = [\"EN\"]\npage_sizes = [0]\n");
    let run = p.folio(&["build"]).fails(1);
    insta::assert_snapshot!(run.stderr());
}

#[test]
fn missing_config_is_a_usage_error() {
    let p = Project::new("");
    std::fs::remove_file(p.path("folio.toml")).unwrap();
    let run = p.folio(&["build"]).fails(2);
    assert!(run.stderr().contains("no config at `folio.toml`"), "{}", run.stderr());
    p.folio(&["build", "--bogus"]).fails(2);
}

#[test]
fn bom_and_crlf_are_accepted() {
    let p = Project::new(I18N);
    p.write(
        "data/a.csv",
        "\u{feff}id,name.en,name.FR,rating\r\n1,\"Two\r\nlines\",Un,4.5\r\n2,B,,\r\n",
    );
    p.write("data/b.jsonl", "\u{feff}{\"id\": 3}\r\n\r\n{\"id\": 4}\r\n");
    p.write("data/c.json", "\u{feff}[{\"id\": 5}]\r\n");
    p.folio(&["build"]).success();
    let fr = p.json("output/api/fr/attractions/10/1.json");
    assert_eq!(fr["data"][0], json!({"id": 1, "name": "Un", "rating": 4.5}));
    assert_eq!(
        p.json("output/api/en/attractions/10/1.json")["data"][0]["name"],
        json!("Two\r\nlines")
    );
    assert_eq!(fr["data"][1], json!({"id": 2, "name": "B", "rating": null}));
    assert_eq!(fr["total"], json!(5));
}

#[test]
fn hidden_files_and_unknown_extensions_are_skipped() {
    let p = Project::new("");
    p.write("data/.hidden.json", "not json");
    p.write("data/.git/x.json", "not json");
    p.write("data/notes.txt", "hello");
    p.write("data/a.json", "[{\"id\": \"b\"}, {\"id\": \"a\"}]");
    p.folio(&["build"]).success();
    assert_eq!(
        p.json("output/api/attractions/10/1.json")["data"],
        json!([{"id": "a"}, {"id": "b"}])
    );
}

#[test]
fn check_prints_a_summary_with_missing_translations_and_warnings() {
    let p = Project::new(I18N);
    p.write("data/a.csv", "id,name.en,name.fr\n1,A,Á\n2,B,\n");
    p.write(
        "data/b.jsonl",
        "{\"id\": 3, \"name\": {\"en\": \"C\"}, \"blurb\": {\"en\": \"x\", \"fr\": \"y\"}}\n",
    );
    let run = p.folio(&["check"]).success();
    insta::assert_snapshot!(format!("{}--- stderr\n{}", run.stdout(), run.stderr()));
    assert!(!p.path("output").exists(), "check writes nothing");
}

#[test]
fn check_reports_problems_like_build() {
    let p = Project::new(I18N);
    p.write("data/a.csv", "id,name.en,rating\n1,A,high\n");
    let run = p.folio(&["check"]).fails(1);
    assert!(
        run.stderr().starts_with("data/a.csv:2: rating: \"high\" is not a number"),
        "{}",
        run.stderr()
    );
}
