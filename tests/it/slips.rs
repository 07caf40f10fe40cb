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
