//! What `folio check` says beyond problems (issue 58): the translators' worklist
//! (`--missing`), a `[fields]` table no record has, a CSV column of numbers published as
//! strings, and a string value written without its quotes.

use crate::harness::Project;

const I18N: &str = r#"
[listing]
languages = ["en", "fr", "ja"]
[fields.name]
localized = true
[fields.summary]
localized = true
"#;

fn translations() -> Project {
    let p = Project::new(I18N);
    p.write(
        "data/a.csv",
        "id,name.en,name.fr,name.ja,summary.en,summary.fr,summary.ja\n1,A,Á,エー,s,s,s\n2,B,,,s,,s\n3,C,Ç,シー,s,s,\n",
    );
    p.write("data/b.json", "[{\"id\": \"4\", \"name\": {\"en\": \"D\"}}, {\"id\": \"x5\", \"name\": {\"en\": \"E\", \"ja\": \"イー\"}}]\n");
    p
}

#[test]
fn check_missing_lists_each_record_that_lacks_a_translation() {
    let p = translations();
    // (A record without the field at all, as b.json's have no summary, lacks no
    // translation of it.) Without --missing, the counts only (as before).
    let plain = p.folio(&["check"]).success().stdout();
    assert!(!plain.contains("by record"), "{plain}");
    let run = p.folio(&["check", "--missing"]).success();
    let out = run.stdout();
    let list = out.split("missing translations by record:\n").nth(1).expect(&out);
    assert_eq!(
        list,
        "  fr: id \"2\": name, summary (data/a.csv:3)\n\
         \x20 fr: id \"4\": name (data/b.json:1)\n\
         \x20 fr: id \"x5\": name (data/b.json:1)\n\
         \x20 ja: id \"2\": name (data/a.csv:3)\n\
         \x20 ja: id \"3\": summary (data/a.csv:4)\n\
         \x20 ja: id \"4\": name (data/b.json:1)\n",
        "{out}"
    );
    // The same worklist in --format json, with the counts it adds up to.
    let json = p.folio(&["check", "--missing", "--format", "json"]).success().stdout();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["version"], 2);
    assert_eq!(v["missing_translations"]["fr"]["name"], 3, "{v}");
    let records = v["missing_records"].as_array().expect("a list");
    assert_eq!(records.len(), 6, "{v}");
    assert_eq!(
        records[0],
        serde_json::json!({"language": "fr", "id": "2", "fields": ["name", "summary"], "file": "data/a.csv", "line": 3})
    );
    assert_eq!(records[2]["id"], "x5");
    let fr_names = records
        .iter()
        .filter(|r| r["language"] == "fr")
        .filter(|r| r["fields"].as_array().unwrap().iter().any(|f| f == "name"));
    assert_eq!(fr_names.count(), 3, "as many as the count says");
    let without = p.folio(&["check", "--format", "json"]).success().stdout();
    let v: serde_json::Value = serde_json::from_str(&without).unwrap();
    assert!(v["missing_records"].is_null(), "{v}");
}

#[test]
fn a_fields_table_no_record_has_is_a_warning_naming_the_field_meant() {
    let p = Project::new("[listing]\nlanguages = [\"en\"]\n\n[fields.ratng]\ntype = \"number\"\n");
    p.write("data/a.json", "[{\"id\": 1, \"rating\": 4.5}, {\"id\": 2, \"rating\": \"4\"}]\n");
    let check = p.folio(&["check"]).success();
    let warning = "warning: folio.toml:4: fields.ratng: [fields.ratng] declares a field no record has; did you mean `rating`?";
    assert!(check.stderr().contains(warning), "{}", check.stderr());
    let build = p.folio(&["build"]).success();
    assert!(build.stderr().contains(warning), "build says it too: {}", build.stderr());
    // A declared field with no field of the records near its name (data yet to come) is
    // not warned of: only a likely typo is.
    p.write(
        "folio.toml",
        "[listing]\nlanguages = [\"en\"]\n\n[fields.opening_hours]\ntype = \"json\"\n",
    );
    let check = p.folio(&["check"]).success();
    assert!(!check.stderr().contains("declares a field"), "{}", check.stderr());
    // A field the records have is not warned of.
    p.write("folio.toml", "[listing]\nlanguages = [\"en\"]\n\n[fields.rating]\ntype = \"json\"\n");
    let check = p.folio(&["check"]).success();
    assert!(!check.stderr().contains("declares a field"), "{}", check.stderr());
}

#[test]
fn an_undeclared_csv_column_of_numbers_is_warned_of_once() {
    let p = Project::new("[listing]\nlanguages = [\"en\"]\n");
    p.write(
        "data/a.csv",
        "id,name,price,stock,zip,code\n1,A,0.53,3,01234,x1\n2,B,12,,75001,2\n3,C,1e-7,7,10115,3\n",
    );
    let check = p.folio(&["check"]).success();
    let err = check.stderr();
    let price = "warning: data/a.csv: price: every value of the column `price` is a number, published as a string (\"price\": \"…\") since [fields] does not declare it; to publish numbers, add [fields.price] type = \"number\" to folio.toml";
    assert_eq!(err.matches(price).count(), 1, "once a column: {err}");
    assert!(err.contains("[fields.stock] type = \"integer\""), "{err}");
    // A code with a leading zero, a column with a word, names: no hint.
    for quiet in ["`zip`", "`code`", "`name`", "`id`"] {
        assert!(!err.contains(quiet), "{quiet}: {err}");
    }
    // Declared, it is published as numbers and not warned of.
    p.write("folio.toml", "[listing]\nlanguages = [\"en\"]\n[fields.price]\ntype = \"number\"\n[fields.stock]\ntype = \"integer\"\n");
    let check = p.folio(&["check"]).success();
    assert!(!check.stderr().contains("published as a string"), "{}", check.stderr());
}

#[test]
fn an_unquoted_type_says_to_quote_it_at_its_line_and_column() {
    let p = Project::new("[listing]\nlanguages = [\"en\"]\n\n[fields.rating]\ntype = integer\n");
    p.write("data/a.csv", "id,rating\n1,2\n");
    let run = p.folio(&["check"]).fails(1);
    let err = run.stderr();
    assert!(
        err.contains("folio.toml:5: `integer` is not quoted: string values must be quoted (column 8); write `type = \"integer\"`"),
        "{err}"
    );
    assert!(!err.contains("inf"), "{err}");
}
