use super::*;

fn project(toml: &str) -> Project {
    crate::config::test_project(toml)
}

const I18N: &str =
    "[listing]\nlanguages = [\"en\", \"fr\", \"ja\"]\n[fields.name]\nlocalized = true\n";

fn resolve(toml: &str, json: &str) -> (Option<Record>, Findings) {
    let p = project(toml);
    let r = Resolver::new(&p);
    let mut f = Findings::default();
    let Json::Object(obj) = crate::load::unique::parse(json).unwrap() else { panic!("{json}") };
    let rec = r.resolve(obj, Origin { file: 0, line: 1, element: None }, &mut f);
    (rec, f)
}

/// `field: message` of every problem found.
fn messages(f: &Findings) -> Vec<String> {
    let field = |p: &Problem| p.field.clone().unwrap_or_default();
    f.problems.iter().map(|p| format!("{}: {}", field(p), p.message)).collect()
}

fn item(rec: &Record, lang: usize) -> String {
    let mut out = Vec::new();
    rec.write_item(lang, &mut out);
    String::from_utf8(out).unwrap()
}

#[test]
fn resolves_each_language_and_falls_back_to_the_default() {
    let (rec, f) =
        resolve(I18N, r#"{"id": 3, "name": {"EN": "Tower", "fr": "Tour", "ja": ""}, "x": 1}"#);
    let rec = rec.unwrap();
    assert_eq!(item(&rec, 0), r#"{"id":3,"name":"Tower","x":1}"#);
    assert_eq!(item(&rec, 1), r#"{"id":3,"name":"Tour","x":1}"#);
    assert_eq!(item(&rec, 2), r#"{"id":3,"name":"Tower","x":1}"#);
    assert_eq!(f.missing, [(2, "name".to_string())]);
}

#[test]
fn null_fallback_writes_null_and_error_fallback_fails() {
    let toml = format!("{I18N}[i18n]\nfallback = \"null\"\n");
    let (rec, _) = resolve(&toml, r#"{"id": 1, "name": {"en": "A"}}"#);
    assert_eq!(item(&rec.unwrap(), 1), r#"{"id":1,"name":null}"#);
    let toml = format!("{I18N}[i18n]\nfallback = \"error\"\n");
    let (rec, f) = resolve(&toml, r#"{"id": 1, "name": {"en": "A", "fr": null}}"#);
    assert!(rec.is_none());
    let msgs = messages(&f);
    assert_eq!(msgs, ["name: missing \"fr\" translation", "name: missing \"ja\" translation"]);
}

#[test]
fn plain_value_of_a_localized_field_is_shared() {
    let (rec, f) = resolve(I18N, r#"{"id": "a", "name": "Same"}"#);
    assert_eq!(item(&rec.unwrap(), 2), r#"{"id":"a","name":"Same"}"#);
    assert!(f.missing.is_empty());
}

#[test]
fn projection_keeps_source_order_and_absent_fields_stay_absent() {
    let toml = "[listing]\nfields = [\"b\", \"id\", \"zz\"]\n";
    let (rec, _) = resolve(toml, r#"{"id": 1, "a": 2, "b": [1, 2]}"#);
    assert_eq!(item(&rec.unwrap(), 0), r#"{"id":1,"b":[1,2]}"#);
    let (rec, _) = resolve(toml, r#"{"a": 2, "b": 3, "id": 1}"#);
    assert_eq!(item(&rec.unwrap(), 0), r#"{"b":3,"id":1}"#);
}

#[test]
fn declared_types_are_checked_never_coerced() {
    let toml = "[fields.rating]\ntype = \"number\"\n[fields.\"loc.lat\"]\ntype = \"number\"\n[fields.tags]\ntype = \"list\"\n[fields.n]\ntype = \"integer\"\n";
    let (rec, f) = resolve(
        toml,
        r#"{"id": 1, "rating": "4.5", "loc": {"lat": true}, "tags": "a|b", "n": 1.5}"#,
    );
    assert!(rec.is_none());
    let msgs = messages(&f);
    assert_eq!(
        msgs,
        [
            "loc.lat: expected a number, found a boolean (true)",
            "n: expected an integer, found a number (1.5)",
            "rating: expected a number, found a string (\"4.5\")",
            "tags: expected a list, found a string (\"a|b\")",
        ]
    );
}

#[test]
fn id_and_required_fields_are_enforced() {
    let toml = "[fields.name]\nrequired = true\n";
    let (_, f) = resolve(toml, r#"{"name": ""}"#);
    let fields: Vec<_> = f.problems.iter().filter_map(|p| p.field.as_deref()).collect();
    assert_eq!(fields, ["id", "name"]);
    let (_, f) = resolve("", r#"{"id": 1.5}"#);
    assert_eq!(f.problems[0].message, "must be an integer or a non-empty string, found 1.5");
    // Localized and required: the default language's value, whatever the others have.
    let toml = "[listing]\nlanguages = [\"en\", \"fr\"]\n[fields.name]\nlocalized = true\nrequired = true\n";
    let (rec, f) = resolve(toml, r#"{"id": 1, "name": {"fr": "Le Louvre", "en": null}}"#);
    assert!(rec.is_none());
    assert_eq!(f.problems[0].message, "is required in en, the default language");
    let (rec, _) = resolve(toml, r#"{"id": 1, "name": {"EN": "Louvre"}}"#);
    assert!(rec.is_some(), "language keys compare case-insensitively");
    let (rec, _) = resolve(toml, r#"{"id": 1, "name": "Louvre"}"#);
    assert!(rec.is_some(), "a plain value is every language's");
}

#[test]
fn sort_keys_follow_localized_values_and_dotted_paths() {
    let toml = "[listing]\nlanguages = [\"en\", \"fr\"]\nsort = [\"name\", \"-loc.lat\"]\n[fields.name]\nlocalized = true\n";
    let (rec, _) =
        resolve(toml, r#"{"id": 1, "name": {"en": "B", "fr": "A"}, "loc": {"lat": 2.5}}"#);
    let rec = rec.unwrap();
    assert_eq!(
        rec.keys[0],
        PerLang::Each(vec![SortValue::Str("B".into()), SortValue::Str("A".into())].into())
    );
    assert_eq!(rec.keys[1], PerLang::Shared(SortValue::Num(2.5)));
    let (rec, f) = resolve(toml, r#"{"id": 1, "name": "x", "loc": {"lat": [1]}}"#);
    assert!(rec.is_none());
    assert_eq!(f.problems[0].message, "cannot sort by a list");
}

#[test]
fn sort_keys_and_fields_that_no_record_has_are_named() {
    let toml = "[listing]\nsort = [\"-ratting\", \"loc.lat\", \"id\"]\nfields = [\"id\", \"nmae\", \"declared\", \"loc\"]\n[fields.declared]\ntype = \"string\"\n";
    let p = project(toml);
    let r = Resolver::new(&p);
    let mut f = Findings::default();
    for json in [r#"{"id": 1, "loc": {"lat": null}}"#, r#"{"id": 2, "name": "x"}"#] {
        let Json::Object(obj) = crate::load::unique::parse(json).unwrap() else { panic!() };
        r.resolve(obj, Origin { file: 0, line: 1, element: None }, &mut f);
    }
    // Each named by its entry, as config places it: the first sort key, the second field.
    assert_eq!(r.unknown_fields(), [("listing.sort[0]", "ratting"), ("listing.fields[1]", "nmae")]);
}

#[test]
fn flags_undeclared_language_maps() {
    let (_, f) =
        resolve(I18N, r#"{"id": 1, "summary": {"en": "a", "FR": "b"}, "loc": {"lat": 1}}"#);
    assert_eq!(f.looks_localized, ["summary"]);
}

#[test]
fn a_localized_object_keeps_each_language_s_own_order() {
    // The same entries in another order are another text: each language is published
    // as its file writes it, not as the first language's order.
    let json = r#"{"id": 1, "name": {"en": {"a": 1, "b": 2}, "fr": {"b": 2, "a": 1}, "ja": {"a": 1, "b": 2}}}"#;
    let (rec, f) = resolve(I18N, json);
    assert!(f.problems.is_empty(), "{:?}", messages(&f));
    let rec = rec.unwrap();
    assert_eq!(item(&rec, 0), r#"{"id":1,"name":{"a":1,"b":2}}"#);
    assert_eq!(item(&rec, 1), r#"{"id":1,"name":{"b":2,"a":1}}"#);
    assert_eq!(item(&rec, 2), r#"{"id":1,"name":{"a":1,"b":2}}"#);
}
