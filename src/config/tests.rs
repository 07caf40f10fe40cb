use super::*;

/// `text` parsed and validated with its root at `/nonexistent/project`; the messages.
pub(crate) fn project(text: &str) -> Result<Project, Vec<String>> {
    let root = Path::new("/nonexistent/project");
    let cfg = Config::from_str(text, Path::new("folio.toml")).map_err(|e| vec![e.to_string()])?;
    cfg.validate(Path::new("folio.toml"), root, root, &Overrides::default())
        .map_err(|v| v.into_iter().map(|e| e.to_string()).collect())
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
    assert_eq!(p.deploy, DeployConfig::default());
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
}

#[test]
fn unknown_values_suggest_the_value_meant() {
    let err = project("[hosting]\ntargets = [\"ngnix\"]\n").unwrap_err();
    assert_eq!(err, ["folio.toml:2: unknown value `ngnix` in [hosting]; did you mean `nginx`?"]);
    let err = project("[i18n]\nfallback = \"nul\"\n").unwrap_err();
    assert!(err[0].ends_with("did you mean `null`?"), "{err:?}");
    let err = project("[listing]\nenvelope = \"laravell\"\n").unwrap_err();
    assert!(err[0].ends_with("; did you mean `laravel`?"), "{err:?}");
    let err =
        project("[listing]\nlanguages = [\"en\", \"fr\"]\ndefault_language = \"fe\"").unwrap_err();
    assert!(err[0].ends_with("; did you mean `fr`?"), "{err:?}");
}
