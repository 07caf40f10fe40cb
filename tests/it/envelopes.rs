//! The page envelopes (docs/api.md) other than the standard one: `laravel`,
//! `laravel-simple`, `laravel-resource` and `template:NAME`, built end to end.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Value, json};

use crate::harness::{Project, folio_snapshot, repo};

/// A project of `n` small records (`{"id": N, "name": "Item N"}`, a French name too) in
/// two languages and two page sizes, with `extra` added to `[listing]`.
fn project(n: usize, extra: &str) -> Project {
    let config = format!(
        r#"
            [listing]
            languages = ["en", "fr"]
            page_sizes = [10, 20]
            default_page_size = 10
            {extra}
            [fields.name]
            localized = true
            [hosting]
            targets = []
        "#
    );
    let p = Project::new(&config);
    let records: Vec<Value> = (1..=n)
        .map(|i| json!({"id": i, "name": {"en": format!("Item {i}"), "fr": format!("Objet {i}")}}))
        .collect();
    p.write("data/items.json", serde_json::to_vec(&records).unwrap());
    p
}

fn keys(v: &Value) -> Vec<&str> {
    v.as_object().unwrap().keys().map(String::as_str).collect()
}

/// `links[]` as `label:page:url` (url `-` when null; `*` after the active label).
fn link_text(links: &Value) -> Vec<String> {
    links
        .as_array()
        .unwrap()
        .iter()
        .map(|l| {
            let url = l["url"].as_str().unwrap_or("-");
            let label = l["label"].as_str().unwrap();
            let active = if l["active"] == true { "*" } else { "" };
            match l.get("page") {
                Some(page) => format!("{label}{active}:{page}:{url}"),
                None => format!("{label}{active}:{url}"),
            }
        })
        .collect()
}

#[test]
fn laravel_envelope_is_the_length_aware_paginator() {
    let p = project(25, "envelope = \"laravel\"");
    p.folio(&["build"]).success();
    let page = p.json("output/api/en/attractions/10/2.json");
    assert_eq!(
        keys(&page),
        [
            "current_page",
            "data",
            "first_page_url",
            "from",
            "last_page",
            "last_page_url",
            "links",
            "next_page_url",
            "path",
            "per_page",
            "prev_page_url",
            "to",
            "total"
        ]
    );
    assert_eq!(page["current_page"], 2);
    assert_eq!(page["data"][0], json!({"id": 11, "name": "Item 11"}));
    assert_eq!(page["first_page_url"], "/api/en/attractions?page=1");
    assert_eq!((page["from"].clone(), page["to"].clone()), (json!(11), json!(20)));
    assert_eq!(page["last_page"], 3);
    assert_eq!(page["last_page_url"], "/api/en/attractions?page=3");
    assert_eq!(page["next_page_url"], "/api/en/attractions?page=3");
    assert_eq!(page["prev_page_url"], "/api/en/attractions?page=1");
    assert_eq!(page["path"], "/api/en/attractions");
    assert_eq!((page["per_page"].clone(), page["total"].clone()), (json!(10), json!(25)));
    assert_eq!(
        link_text(&page["links"]),
        [
            "&laquo; Previous:1:/api/en/attractions?page=1",
            "1:1:/api/en/attractions?page=1",
            "2*:2:/api/en/attractions?page=2",
            "3:3:/api/en/attractions?page=3",
            "Next &raquo;:3:/api/en/attractions?page=3",
        ]
    );
    insta::assert_snapshot!("laravel_en_10_3", p.read("output/api/en/attractions/10/3.json"));

    // Another size puts per_page first, as Laravel's withQueryString() does.
    let page = p.json("output/api/fr/attractions/20/1.json");
    assert_eq!(page["data"][0]["name"], "Objet 1");
    assert_eq!(page["next_page_url"], "/api/fr/attractions?per_page=20&page=2");
    assert_eq!(page["prev_page_url"], Value::Null);
    // The unprefixed variant's path is its own endpoint.
    let page = p.json("output/api/attractions/20/2.json");
    assert_eq!(page["path"], "/api/attractions");
    assert_eq!(page["first_page_url"], "/api/attractions?per_page=20&page=1");
    assert_eq!(page["next_page_url"], Value::Null);
    assert_eq!((page["from"].clone(), page["to"].clone()), (json!(21), json!(25)));
}

#[test]
fn laravel_window_has_separators_on_long_listings() {
    let p = project(150, "envelope = \"laravel\"");
    p.folio(&["build"]).success();
    let labels = |rel: &str| -> Vec<String> {
        p.json(rel)["links"].as_array().unwrap().iter().map(|l| l["label"].to_string()).collect()
    };
    // 15 pages of 10: near the start, in the middle, near the end.
    assert_eq!(
        labels("output/api/en/attractions/10/1.json").join(" "),
        r#""&laquo; Previous" "1" "2" "3" "4" "5" "6" "7" "8" "9" "10" "..." "14" "15" "Next &raquo;""#
    );
    assert_eq!(
        labels("output/api/en/attractions/10/8.json").join(" "),
        r#""&laquo; Previous" "1" "2" "..." "5" "6" "7" "8" "9" "10" "11" "..." "14" "15" "Next &raquo;""#
    );
    assert_eq!(
        labels("output/api/en/attractions/10/9.json").join(" "),
        r#""&laquo; Previous" "1" "2" "..." "6" "7" "8" "9" "10" "11" "12" "13" "14" "15" "Next &raquo;""#
    );
    // 8 pages of 20: every page.
    assert_eq!(labels("output/api/en/attractions/20/8.json").len(), 10);
    let page = p.json("output/api/en/attractions/10/8.json");
    assert_eq!(page["links"][3], json!({"url": null, "label": "...", "active": false}));
}

#[test]
fn laravel_urls_follow_base_url_and_path_style() {
    let p = project(25, "envelope = \"laravel\"\nurl_style = \"path\"");
    p.folio(&["build", "--base-url", "https://example.org/travel/"]).success();
    let page = p.json("output/api/fr/attractions/20/1.json");
    assert_eq!(page["first_page_url"], "https://example.org/travel/api/fr/attractions/20/1.json");
    assert_eq!(page["next_page_url"], "https://example.org/travel/api/fr/attractions/20/2.json");
    assert_eq!(page["path"], "https://example.org/travel/api/fr/attractions");
    assert_eq!(page["links"][2]["url"], "https://example.org/travel/api/fr/attractions/20/2.json");
}

#[test]
fn empty_listing_has_null_from_and_to() {
    let p = project(0, "envelope = \"laravel\"");
    p.folio(&["build"]).success();
    let page = p.json("output/api/en/attractions/10/1.json");
    assert_eq!(page["data"], json!([]));
    assert_eq!((page["from"].clone(), page["to"].clone()), (Value::Null, Value::Null));
    assert_eq!(page["last_page"], 1);
}

#[test]
fn laravel_resource_envelope_has_data_links_and_meta() {
    let p = project(25, "envelope = \"laravel-resource\"");
    p.folio(&["build"]).success();
    let page = p.json("output/api/en/attractions/20/2.json");
    assert_eq!(keys(&page), ["data", "links", "meta"]);
    assert_eq!(
        page["links"],
        json!({
            "first": "/api/en/attractions?per_page=20&page=1",
            "last": "/api/en/attractions?per_page=20&page=2",
            "prev": "/api/en/attractions?per_page=20&page=1",
            "next": null
        })
    );
    assert_eq!(keys(&page["links"]), ["first", "last", "prev", "next"]);
    assert_eq!(
        keys(&page["meta"]),
        ["current_page", "from", "last_page", "links", "path", "per_page", "to", "total"]
    );
    assert_eq!(page["meta"]["from"], 21);
    assert_eq!(page["meta"]["to"], 25);
    assert_eq!(page["meta"]["links"].as_array().unwrap().len(), 4);
    insta::assert_snapshot!(
        "laravel_resource_en_10_3",
        p.read("output/api/en/attractions/10/3.json")
    );
}

const SIMPLE_KEYS: [&str; 9] = [
    "current_page",
    "data",
    "first_page_url",
    "from",
    "next_page_url",
    "path",
    "per_page",
    "prev_page_url",
    "to",
];

#[test]
fn laravel_simple_envelope_is_the_simple_paginator() {
    let p = project(25, "envelope = \"laravel-simple\"");
    p.folio(&["build"]).success();
    let items = |from: usize, to: usize| -> Value {
        (from..=to).map(|i| json!({"id": i, "name": format!("Item {i}")})).collect()
    };
    let page = |rel: &str| {
        let v = p.json(&format!("output/api/{rel}"));
        assert_eq!(keys(&v), SIMPLE_KEYS, "{rel}");
        v
    };
    assert_eq!(
        page("en/attractions/10/1.json"),
        json!({
            "current_page": 1, "data": items(1, 10),
            "first_page_url": "/api/en/attractions?page=1", "from": 1,
            "next_page_url": "/api/en/attractions?page=2", "path": "/api/en/attractions",
            "per_page": 10, "prev_page_url": null, "to": 10
        })
    );
    assert_eq!(
        page("en/attractions/10/2.json"),
        json!({
            "current_page": 2, "data": items(11, 20),
            "first_page_url": "/api/en/attractions?page=1", "from": 11,
            "next_page_url": "/api/en/attractions?page=3", "path": "/api/en/attractions",
            "per_page": 10, "prev_page_url": "/api/en/attractions?page=1", "to": 20
        })
    );
    insta::assert_snapshot!(
        "laravel_simple_en_10_3",
        p.read("output/api/en/attractions/10/3.json")
    );
    let last = page("en/attractions/10/3.json");
    assert_eq!((last["from"].clone(), last["to"].clone()), (json!(21), json!(25)));
    assert_eq!(last["next_page_url"], Value::Null);
    // Another size puts per_page first, as the `laravel` envelope does; the unprefixed
    // variant links to its own endpoint; French items in the French pages.
    let fr = page("fr/attractions/20/2.json");
    assert_eq!(fr["data"][0]["name"], "Objet 21");
    assert_eq!(fr["first_page_url"], "/api/fr/attractions?per_page=20&page=1");
    assert_eq!(fr["prev_page_url"], "/api/fr/attractions?per_page=20&page=1");
    assert_eq!(fr["next_page_url"], Value::Null);
    let plain = page("attractions/20/1.json");
    assert_eq!(plain["path"], "/api/attractions");
    assert_eq!(plain["next_page_url"], "/api/attractions?per_page=20&page=2");
}

#[test]
fn laravel_simple_empty_listing_and_path_style_urls() {
    let p = project(0, "envelope = \"laravel-simple\"");
    p.folio(&["build"]).success();
    assert_eq!(
        p.read("output/api/en/attractions/10/1.json"),
        "{\"current_page\":1,\"data\":[],\"first_page_url\":\"/api/en/attractions?page=1\",\"from\":null,\"next_page_url\":null,\"path\":\"/api/en/attractions\",\"per_page\":10,\"prev_page_url\":null,\"to\":null}\n"
    );
    let p = project(25, "envelope = \"laravel-simple\"\nurl_style = \"path\"");
    p.folio(&["build", "--base-url", "https://example.org/travel/"]).success();
    let page = p.json("output/api/fr/attractions/10/2.json");
    assert_eq!(page["first_page_url"], "https://example.org/travel/api/fr/attractions/10/1.json");
    assert_eq!(page["prev_page_url"], "https://example.org/travel/api/fr/attractions/10/1.json");
    assert_eq!(page["next_page_url"], "https://example.org/travel/api/fr/attractions/10/3.json");
    assert_eq!(page["path"], "https://example.org/travel/api/fr/attractions");
}

/// A template that writes the standard envelope.
const STANDARD: &str = r#"{"page":{{ page }},"per_page":{{ per_page }},"total":{{ total }},"total_pages":{{ total_pages }},"data":{{ items }},"links":{"first":{{ links.first|tojson }},"prev":{{ links.prev|tojson }},"next":{{ links.next|tojson }},"last":{{ links.last|tojson }}}}
"#;

#[test]
fn a_template_can_reproduce_the_standard_envelope() {
    let standard = project(25, "");
    standard.folio(&["build"]).success();
    let templated = project(25, "envelope = \"template:standard\"");
    templated.write("templates/standard.json.j2", STANDARD);
    templated.folio(&["build"]).success();
    let pages = |p: &Project| -> Vec<String> {
        crate::harness::files(&p.path("output/api"))
            .into_keys()
            .filter(|k| k.contains("attractions/"))
            .collect()
    };
    let names = pages(&standard);
    assert_eq!(names, pages(&templated));
    assert_eq!(names.len(), 3 * (3 + 2));
    for name in names {
        let rel = format!("output/api/{name}");
        assert_eq!(standard.read(&rel), templated.read(&rel), "byte for byte: {name}");
    }
}

#[test]
fn the_example_template_renders_every_page() {
    let p = project(25, "envelope = \"template:example\"");
    p.write(
        "templates/example.json.j2",
        std::fs::read(repo().join("templates/example.json.j2")).unwrap(),
    );
    p.folio(&["build"]).success();
    insta::assert_snapshot!(
        "template_example_fr_10_3",
        p.read("output/api/fr/attractions/10/3.json")
    );
    let page = p.json("output/api/attractions/20/1.json");
    assert_eq!(page["pagination"]["showing"], "1-20");
    assert_eq!(page["lang"], "en");
    assert_eq!(page["results"].as_array().unwrap().len(), 20);
}

#[test]
fn template_context_knows_the_variant() {
    let p = project(3, "envelope = \"template:t\"");
    p.write(
        "templates/t.json.j2",
        r#"{"lang":{{ lang|tojson }},"prefixed":{{ prefixed|tojson }},"resource":{{ resource|tojson }},"from":{{ from }},"to":{{ to }},"items":{{ items }}}"#,
    );
    p.folio(&["build"]).success();
    assert_eq!(
        p.read("output/api/fr/attractions/10/1.json"),
        "{\"lang\":\"fr\",\"prefixed\":true,\"resource\":\"attractions\",\"from\":1,\"to\":3,\"items\":\
         [{\"id\":1,\"name\":\"Objet 1\"},{\"id\":2,\"name\":\"Objet 2\"},{\"id\":3,\"name\":\"Objet 3\"}]}\n"
    );
    let plain = p.json("output/api/attractions/10/1.json");
    assert_eq!((plain["lang"].clone(), plain["prefixed"].clone()), (json!("en"), json!(false)));
}

#[test]
fn a_template_that_does_not_parse_fails_before_anything_is_written() {
    let p = project(25, "envelope = \"template:bad\"");
    p.write("templates/bad.json.j2", "{\n  \"page\": {{ page }},\n  \"data\": {{ items }\n}\n");
    let run = p.folio(&["build"]).fails(1);
    insta::assert_snapshot!(run.stderr(), @r"
    templates/bad.json.j2:3: syntax error: unexpected `}`, expected end of variable block
    error: a template failed; nothing was written
    ");
    assert!(!p.path("output").exists(), "nothing was written");
}

#[test]
fn a_missing_template_is_named() {
    let p = project(1, "envelope = \"template:nowhere\"");
    let run = p.folio(&["build"]).fails(1);
    assert!(
        run.stderr().starts_with("templates/nowhere.json.j2: no such template"),
        "{}",
        run.stderr()
    );
}

#[test]
fn output_that_is_not_json_fails_naming_template_page_and_position() {
    let p = project(25, "");
    p.folio(&["build"]).success();
    let before = p.tree("output");
    // Valid on pages 1 and 2, broken from page 3 on: the first such page in build order
    // (the first language, the first size) is the one reported, whatever the threads do.
    p.write(
        "folio.toml",
        p.read("folio.toml").replace("[listing]", "[listing]\nenvelope = \"template:odd\""),
    );
    p.write(
        "templates/odd.json.j2",
        "{\"page\": {{ page }},\n \"data\": {{ items }}{% if page > 2 %},{% endif %}\n}\n",
    );
    let run = p.folio(&["build"]).fails(1);
    insta::assert_snapshot!(run.stderr(), @r"
    templates/odd.json.j2: output/api/en/attractions/10/3.json:3:1: the output is not valid JSON: key must be a string
    error: a template failed; nothing was written
    ");
    assert_eq!(p.tree("output"), before, "the previous output is left as it was");
}

#[test]
fn a_template_error_while_rendering_names_its_line() {
    let p = project(25, "envelope = \"template:undef\"");
    p.write("templates/undef.json.j2", "{\n\"page\": {{ page }},\n\"oops\": {{ pgae }}\n}");
    // The template's line, and the page it was rendering.
    insta::assert_snapshot!("undefined_value", folio_snapshot(p.dir.path(), &["build"]));
}

#[test]
fn standard_without_totals_leaves_out_only_what_follows_the_count() {
    let p = project(25, "totals = false");
    p.folio(&["build"]).success();
    let u = |page: usize| format!("/api/en/attractions?page={page}&per_page=10");
    let items = |from: usize, to: usize| -> Value {
        (from..=to).map(|i| json!({"id": i, "name": format!("Item {i}")})).collect()
    };
    let page = |rel: &str| {
        let v = p.json(&format!("output/api/{rel}"));
        assert_eq!(keys(&v), ["page", "per_page", "data", "links"], "{rel}");
        assert_eq!(keys(&v["links"]), ["first", "prev", "next"], "{rel}");
        v
    };
    assert_eq!(
        page("en/attractions/10/1.json"),
        json!({"page": 1, "per_page": 10, "data": items(1, 10),
               "links": {"first": u(1), "prev": null, "next": u(2)}})
    );
    assert_eq!(
        page("en/attractions/10/2.json"),
        json!({"page": 2, "per_page": 10, "data": items(11, 20),
               "links": {"first": u(1), "prev": u(1), "next": u(3)}})
    );
    assert_eq!(
        page("en/attractions/10/3.json"),
        json!({"page": 3, "per_page": 10, "data": items(21, 25),
               "links": {"first": u(1), "prev": u(2), "next": null}})
    );
    let fr = page("fr/attractions/20/2.json");
    assert_eq!(fr["data"][4]["name"], "Objet 25");
    assert_eq!(fr["links"]["prev"], "/api/fr/attractions?page=1&per_page=20");
    // The count is still in api/index.json, the one file that says it.
    assert_eq!(p.json("output/api/index.json")["total"], 25);

    let empty = project(0, "totals = false");
    empty.folio(&["build"]).success();
    assert_eq!(
        empty.read("output/api/attractions/10/1.json"),
        "{\"page\":1,\"per_page\":10,\"data\":[],\"links\":{\"first\":\"/api/attractions?page=1&per_page=10\",\"prev\":null,\"next\":null}}\n"
    );
}

#[test]
fn totals_off_with_a_laravel_envelope_that_carries_the_count_is_refused_at_its_line() {
    let p = project(3, "envelope = \"laravel-resource\"\ntotals = false");
    let run = p.folio(&["check"]).fails(1);
    let line = p.read("folio.toml").lines().position(|l| l.contains("totals")).unwrap() + 1;
    assert!(
        run.stderr().starts_with(&format!(
            "folio.toml:{line}: listing.totals = false: the `laravel-resource` envelope is Laravel's, whose body always carries total and last_page; for pages without a count, use envelope = \"laravel-simple\""
        )),
        "{}",
        run.stderr()
    );
    p.folio(&["build"]).fails(1);
    assert!(!p.path("output").exists(), "nothing was written");
    // laravel-simple has no count to leave out: the key changes nothing there.
    let simple = project(25, "envelope = \"laravel-simple\"\ntotals = false");
    simple.folio(&["build"]).success();
    let plain = project(25, "envelope = \"laravel-simple\"");
    plain.folio(&["build"]).success();
    let rel = "output/api/en/attractions/10/2.json";
    assert_eq!(simple.read(rel), plain.read(rel));
}

#[test]
fn a_template_without_totals_has_no_count_to_print() {
    let p = project(25, "envelope = \"template:t\"\ntotals = false");
    p.write(
        "templates/t.json.j2",
        r#"{"page":{{ page }},"links":{{ links|tojson }},"data":{{ items }}}"#,
    );
    p.folio(&["build"]).success();
    let page = p.json("output/api/en/attractions/10/3.json");
    assert_eq!(
        page["links"],
        json!({"first": "/api/en/attractions?page=1&per_page=10", "prev": "/api/en/attractions?page=2&per_page=10", "next": null})
    );
    // A template that prints the count fails, naming the line, instead of writing it.
    p.write("templates/t.json.j2", "{\"page\": {{ page }},\n\"total\": {{ total }}}\n");
    let run = p.folio(&["build"]).fails(1);
    assert!(run.stderr().starts_with("templates/t.json.j2:2: undefined value"), "{}", run.stderr());
}

/// One record of the churn listing: `{"id": N, "name": ...}` in English and French.
fn record(id: usize, en: &str) -> Value {
    json!({"id": id, "name": {"en": format!("{en} {id}"), "fr": format!("Objet {id}")}})
}

/// A change to the listing, and what it does to the 100 records `10, 20, ..., 1000`.
const EDITS: [&str; 4] = ["append", "insert", "delete", "edit"];

fn edited(edit: &str) -> Vec<Value> {
    let mut records: Vec<Value> = (1..=100).map(|i| record(i * 10, "Item")).collect();
    match edit {
        // Sorts last: one item more on the last page, or a new page.
        "append" => records.push(record(1010, "Item")),
        // Between the 45th (id 450) and the 46th: every item from there moves one down.
        "insert" => records.push(record(455, "Item")),
        // The 45th goes: every item after it moves one up.
        "delete" => records.retain(|r| r["id"] != 450),
        // The English name of the 45th changes: no record moves.
        "edit" => records[44] = record(450, "Renamed"),
        _ => {}
    }
    records
}

/// The page files a rebuild after `edit` wrote, added or removed, as `variant/size/page`
/// (`en/10/5`, `-/20/6` for the unprefixed variant).
fn churn(p: &Project, before: &BTreeMap<String, Vec<u8>>, edit: &str) -> Vec<String> {
    p.write("data/items.json", serde_json::to_vec(&edited(edit)).unwrap());
    p.folio(&["build"]).success();
    let after = p.tree("output/api");
    let pages = |t: &BTreeMap<String, Vec<u8>>| -> BTreeSet<String> {
        t.keys().filter(|k| k.contains("attractions/")).cloned().collect()
    };
    let mut changed: Vec<String> = pages(before)
        .union(&pages(&after))
        .filter(|k| before.get(*k) != after.get(*k))
        .map(|k| {
            let parts: Vec<&str> = k.trim_end_matches(".json").split('/').collect();
            let variant = if parts.len() == 4 { parts[0] } else { "-" };
            format!("{variant}/{}/{}", parts[parts.len() - 2], parts[parts.len() - 1])
        })
        .collect();
    changed.sort();
    changed
}

#[test]
fn count_free_envelopes_rewrite_only_the_pages_at_and_after_a_change() {
    // 100 records, sizes 10 and 20, three variants (en, fr, unprefixed): 45 pages.
    let envelopes = [
        ("standard", ""),
        ("laravel", "envelope = \"laravel\""),
        ("standard, totals = false", "totals = false"),
        ("laravel-simple", "envelope = \"laravel-simple\""),
    ];
    let mut table = Vec::new();
    for (name, extra) in envelopes {
        let p = project(0, extra);
        p.write("data/items.json", serde_json::to_vec(&edited("none")).unwrap());
        p.folio(&["build"]).success();
        let before = p.tree("output/api");
        assert_eq!(before.keys().filter(|k| k.contains("attractions/")).count(), 45);
        let counts: Vec<usize> = EDITS
            .iter()
            .map(|edit| {
                let changed = churn(&p, &before, edit);
                let count_free = extra.contains("totals") || extra.contains("simple");
                if count_free {
                    // Only pages at and after the change, in every variant and size.
                    let first = |size: &str| -> usize {
                        changed
                            .iter()
                            .filter(|c| c.split('/').nth(1) == Some(size))
                            .map(|c| c.rsplit('/').next().unwrap().parse().unwrap())
                            .min()
                            .unwrap()
                    };
                    let (ten, twenty) = match *edit {
                        "append" => (10, 5),
                        _ => (5, 3),
                    };
                    assert_eq!(
                        (first("10"), first("20")),
                        (ten, twenty),
                        "{name}, {edit}: {changed:?}"
                    );
                }
                changed.len()
            })
            .collect();
        eprintln!("{name:>26}: {counts:?} pages of 45 for {EDITS:?}");
        table.push(counts);
    }
    // With the count on every page, any insert or delete rewrites every page (45), plus
    // the new last pages (11 at size 10, 6 at size 20, in 3 variants) when the listing
    // grows to 101; an edit that moves nothing costs what it costs everywhere.
    assert_eq!(table[0], [51, 51, 45, 4]);
    assert_eq!(table[1], table[0], "laravel");
    // Without it: an append rewrites the last page of each size, whose `next` link now
    // points at the new page, and adds that page (2 + 2, in 3 variants); an insert at the
    // 46th item rewrites pages 5-10 at size 10 and 3-5 at size 20 and adds the new last
    // pages (7 + 4, in 3 variants); a delete of the 45th rewrites the same pages and adds
    // none (6 + 3); an edit that moves nothing (the English name of the 45th), the one
    // page that holds it at each size in the variants of its language (en, unprefixed).
    assert_eq!(table[2], [12, 33, 27, 4]);
    assert_eq!(table[3], table[2], "laravel-simple");
}
