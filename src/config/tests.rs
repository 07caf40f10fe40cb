use super::*;

/// `text` parsed and validated with its root at `/nonexistent/project`; the messages.
pub(crate) fn project(text: &str) -> Result<Project, Vec<String>> {
    let root = Path::new("/nonexistent/project");
    Project::from_toml(text, Path::new("folio.toml"), root, root, &Overrides::default())
        .map_err(|e| e.messages())
}

#[test]
fn empty_config_gets_the_spec_defaults() {
    let p = project("").unwrap();
    assert_eq!(p.shape.languages, ["en"]);
    assert_eq!(p.shape.page_sizes, [10, 20, 50, 100]);
    assert_eq!(p.shape.default_page_size, 10);
    assert_eq!(p.shape.resource, "attractions");
    assert_eq!(p.sort, [SortKey { field: "id".into(), descending: false }]);
    assert_eq!(p.output_dir, Path::new("/nonexistent/project/output"));
    assert_eq!(p.shape.cache_control, "public, max-age=300");
    assert_eq!(p.fallback, Fallback::Default);
    assert_eq!(p.hosting.targets.len(), 5);
    assert_eq!(p.deploy, Deploy::default());
    assert_eq!((p.deploy.max_deletes, p.deploy.concurrency, p.deploy.siblings), (256, 32, false));
}

#[test]
fn unknown_key_names_the_key_its_table_line_and_the_key_meant() {
    let err = project("base_url = \"\"\n[listing]\nlangauges = [\"en\"]\n").unwrap_err();
    assert_eq!(
        err,
        ["folio.toml:3: unknown key `langauges` in [listing]; did you mean `languages`?"]
    );
    let err = project("[fields.name]\nlocalised = true\n").unwrap_err();
    assert_eq!(
        err,
        ["folio.toml:2: unknown key `localised` in [fields.name]; did you mean `localized`?"]
    );
    let err = project("bas_url = \"\"\n").unwrap_err();
    assert_eq!(
        err,
        ["folio.toml:1: unknown key `bas_url` at the top level; did you mean `base_url`?"]
    );
    // Nothing near: the valid keys are listed.
    let err = project("[i18n]\nzzz = 1\n").unwrap_err();
    assert_eq!(err, ["folio.toml:2: unknown key `zzz` in [i18n]; expected one of: fallback"]);
}

#[test]
fn a_misspelled_table_is_named_as_a_table() {
    let err = project("[deploy]\nurl = \"\"\n\n[il8n]\nfallback = \"null\"\n").unwrap_err();
    assert_eq!(err, ["folio.toml:4: unknown table `[il8n]`; did you mean `[i18n]`?"]);
    let err = project("[listing.sizes]\n").unwrap_err();
    assert!(err[0].starts_with("folio.toml:1: unknown table `[listing.sizes]`"), "{err:?}");
}

#[test]
fn a_value_of_the_wrong_type_names_its_key_and_the_type_expected() {
    let err = project("[listing]\ndefault_page_size = \"10\"\n").unwrap_err();
    assert_eq!(
        err,
        [
            "folio.toml:2: `default_page_size` in [listing] must be a whole number, 0 or more, not a string (\"10\")"
        ]
    );
    let err = project("base_url = 3\n").unwrap_err();
    assert_eq!(
        err,
        ["folio.toml:1: `base_url` at the top level must be a string, not an integer (3)"]
    );
    let err = project("[listing]\nlanguages = \"en\"\n").unwrap_err();
    assert!(err[0].contains("`languages` in [listing] must be an array, not a string"), "{err:?}");
    let err = project("[deploy]\nsiblings = \"yes\"\n").unwrap_err();
    assert!(err[0].contains("`siblings` in [deploy] must be true or false"), "{err:?}");
    let err = project("[deploy]\nmax_deletes = -1\n").unwrap_err();
    assert_eq!(
        err,
        ["folio.toml:2: `max_deletes` in [deploy] must be a whole number, 0 or more, not -1"]
    );
}

#[test]
fn unknown_values_suggest_the_value_meant() {
    let err = project("[hosting]\ntargets = [\"ngnix\"]\n").unwrap_err();
    assert_eq!(err, ["folio.toml:2: unknown value `ngnix` in [hosting]; did you mean `nginx`?"]);
    let err = project("[i18n]\nfallback = \"nul\"\n").unwrap_err();
    assert!(err[0].ends_with("did you mean `null`?"), "{err:?}");
    let err = project("[listing]\nenvelope = \"laravell\"\n").unwrap_err();
    assert!(err[0].ends_with("; did you mean `laravel`?"), "{err:?}");
    let err = project("[listing]\nenvelope = \"laravel-simpel\"\n").unwrap_err();
    assert_eq!(
        err,
        [
            "folio.toml:2: listing.envelope `laravel-simpel` must be standard, laravel, laravel-simple, laravel-resource or template:NAME; did you mean `laravel-simple`?"
        ]
    );
    let err =
        project("[listing]\nlanguages = [\"en\", \"fr\"]\ndefault_language = \"fe\"").unwrap_err();
    assert!(err[0].ends_with("; did you mean `fr`?"), "{err:?}");
}

/// The problems of `text` from [`Config::parse`]: line, column and message each.
fn problems(text: &str) -> Vec<(u64, u64, String)> {
    let errors = Config::parse(text, Path::new("folio.toml")).expect_err("a config with problems");
    errors
        .into_iter()
        .map(|e| (e.line.expect("a line"), e.column.expect("a column"), e.message))
        .collect()
}

#[test]
fn one_parse_reports_problems_of_every_kind_at_once_each_at_its_line_and_column() {
    let text = "\
base_url = \"https://example.org\"
[listing]
langauges = [\"en\"]
default_page_size = \"10\"

[il8n]
fallback = \"null\"

[hosting]
targets = [\"nginx\", \"ngnix\"]
";
    let got = problems(text);
    let want = [
        (3, 1, "unknown key `langauges` in [listing]; did you mean `languages`?"),
        (
            4,
            21,
            "`default_page_size` in [listing] must be a whole number, 0 or more, not a string (\"10\")",
        ),
        (6, 2, "unknown table `[il8n]`; did you mean `[i18n]`?"),
        (10, 21, "unknown value `ngnix` in [hosting]; did you mean `nginx`?"),
    ];
    let want: Vec<(u64, u64, String)> =
        want.into_iter().map(|(l, c, m)| (l, c, m.to_string())).collect();
    assert_eq!(got, want);
    // As printed: the line, as before; the column is in the error, for the JSON report.
    let first = Config::parse(text, Path::new("folio.toml")).unwrap_err().remove(0);
    assert_eq!(
        first.to_string(),
        "folio.toml:3: unknown key `langauges` in [listing]; did you mean `languages`?"
    );
}

#[test]
fn a_syntax_error_says_its_line_column_and_the_text_at_fault() {
    let text = "[listing]\nlanguages = [\"en\"]\n\n[input]\ndecimal_separator = ,\n";
    let errors = Config::parse(text, Path::new("folio.toml")).unwrap_err();
    assert_eq!(errors.len(), 1, "{errors:?}");
    let e = &errors[0];
    assert_eq!((e.line, e.column), (Some(5), Some(21)), "{e}");
    assert_eq!(
        e.to_string(),
        "folio.toml:5: unexpected key or value, expected newline, `#`; string values must be quoted, expected literal string (column 21, at `,`); did you mean `\",\"`?"
    );
    // At the end of a line, that is what is said.
    let e = Config::parse("[deploy]\nurl = \"s3://b\nregion = \"eu\"\n", Path::new("folio.toml"))
        .unwrap_err()
        .remove(0);
    assert_eq!((e.line, e.column), (Some(2), Some(14)), "{e}");
    assert!(e.message.ends_with("(column 14, at the end of the line)"), "{e}");
    // An unquoted word is the text at fault, whole.
    let e = Config::parse("[listing]\nurl_style = path\n", Path::new("folio.toml"));
    let e = e.unwrap_err().remove(0);
    assert_eq!((e.line, e.column), (Some(2), Some(13)), "{e}");
    assert_eq!(
        e.message,
        "`path` is not quoted: string values must be quoted (column 13); write `url_style = \"path\"`"
    );
    // Also a word toml reads as the start of `inf`, `nan` or `true` (issue 58): the fix,
    // not toml's "invalid float, expected `inf`".
    for (word, column) in [("integer", 8), ("number", 8), ("text", 8)] {
        let text = format!(
            "[listing]\nlanguages = [\"en\"]\n\n[fields.rating]\ntype = {word}  # a note\n"
        );
        let e = Config::parse(&text, Path::new("folio.toml")).unwrap_err().remove(0);
        assert_eq!((e.line, e.column), (Some(5), Some(column)), "{e}");
        assert_eq!(
            e.to_string(),
            format!(
                "folio.toml:5: `{word}` is not quoted: string values must be quoted (column {column}); write `type = \"{word}\"`"
            )
        );
    }
}

#[test]
fn problems_that_share_a_line_or_follow_each_other_are_each_reported_at_their_own_place() {
    // Two problems on one line (an inline table): setting the line aside after the first,
    // as reparsing did, would lose the second.
    let got = problems("listing = { langauges = [\"en\"], default_page_size = \"10\" }\n");
    assert_eq!(got.len(), 2, "{got:?}");
    assert_eq!((got[0].0, got[0].1), (1, 13), "{got:?}");
    assert_eq!(got[0].2, "unknown key `langauges` in [listing]; did you mean `languages`?");
    assert_eq!((got[1].0, got[1].1), (1, 53), "{got:?}");
    assert!(got[1].2.starts_with("`default_page_size` in [listing] must be"), "{got:?}");
    // Adjacent lines of one table, an item of a multi-line array at its own line.
    let got =
        problems("[deploy]\nsiblings = \"yes\"\nconcurency = 4\nregion = [\n  \"eu\",\n  3,\n]\n");
    let places: Vec<(u64, u64)> = got.iter().map(|p| (p.0, p.1)).collect();
    assert_eq!(places, [(2, 12), (3, 1), (4, 10)], "{got:?}");
    assert!(got[1].2.contains("did you mean `concurrency`?"), "{got:?}");
    assert!(got[2].2.starts_with("`region` in [deploy] must be a string, not an array"), "{got:?}");
    let got = problems("[listing]\npage_sizes = [\n  10,\n  \"20\",\n]\n");
    assert_eq!((got[0].0, got[0].1), (4, 3), "{got:?}");
    assert!(got[0].2.starts_with("`page_sizes` in [listing] must be a whole number from 1"));
    // More problems than reparsing ever went through (64): every one.
    let text: String = (0..100).map(|i| format!("unknown_{i} = 1\n")).collect();
    assert_eq!(problems(&text).len(), 100);
}

#[test]
fn every_misspelled_table_is_named_at_its_own_header() {
    let got = problems("[field.rating]\ntype = \"number\"\n\n[field.name]\nlocalized = true\n");
    let want = [
        (1, 2, "unknown table `[field.rating]`; did you mean `[fields.rating]`?".to_string()),
        (4, 2, "unknown table `[field.name]`; did you mean `[fields.name]`?".to_string()),
    ];
    assert_eq!(got, want);
    let got = problems("[listing]\nresource = \"x\"\n[listing.sizes]\n");
    assert_eq!((got[0].0, got[0].1), (3, 10), "{got:?}");
    assert!(got[0].2.starts_with("unknown table `[listing.sizes]`; "), "{got:?}");
    // An array of tables where a table belongs is said as such.
    let got = problems("[[listing]]\nresource = \"x\"\n");
    assert_eq!(got, [(1, 1, "`listing` at the top level must be a table, not an array".into())]);
}

#[test]
fn totals_off_is_refused_where_laravels_contract_has_the_count() {
    for envelope in ["standard", "laravel-simple", "template:t"] {
        let p = project(&format!("[listing]\nenvelope = \"{envelope}\"\ntotals = false\n"))
            .unwrap_or_else(|e| panic!("{envelope}: {e:?}"));
        assert!(!p.shape.totals, "{envelope}");
    }
    assert!(project("").unwrap().shape.totals, "on by default");
    for envelope in ["laravel", "laravel-resource"] {
        let err = project(&format!("[listing]\nenvelope = \"{envelope}\"\ntotals = false\n"))
            .unwrap_err();
        assert_eq!(
            err,
            [format!(
                "folio.toml:3: listing.totals = false: the `{envelope}` envelope is Laravel's, whose body always carries total and last_page; for pages without a count, use envelope = \"laravel-simple\" (Laravel's simplePaginate()) or \"standard\""
            )]
        );
    }
}
