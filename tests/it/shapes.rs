//! The same records in every shape users' tools write (one-line JSON as `json.dump` and
//! `JSON.stringify` write it, pretty JSON, a record a line, JSON Lines, CSV, a spreadsheet's
//! CSV in US and EU settings, TSV) build to the same bytes. The shapes come from
//! `tests/shapes/`, which the shape benchmark uses too.

use serde_json::{Map, Value, json};

use crate::harness::{Project, repo};

#[path = "../shapes/mod.rs"]
mod writer;

use writer::Shape;

/// Records with what trips a writer or a reader: quotes, delimiters of every shape, line
/// breaks and non-ASCII in strings, nulls, negative and fractional numbers, lists,
/// booleans, a missing translation.
fn records() -> Vec<Map<String, Value>> {
    (0..240)
        .map(|i: i64| {
            let name_fr = match i % 7 {
                0 => Value::Null,
                1 => json!(format!("Lieu « {i} », l'été; tab\there")),
                _ => json!(format!("Lieu {i}")),
            };
            let summary = if i % 5 == 0 {
                json!({"en": format!("Line one\nline two, \"quoted\" | {i}"), "fr": Value::Null})
            } else {
                json!({"en": format!("Place of {}", "a, b; c".repeat((i % 3) as usize + 1)), "fr": "résumé ✓ 日本"})
            };
            let record = json!({
                "id": (i * 7919) % 1000 + 1,
                "name": {"en": format!("Place {i}"), "fr": name_fr},
                "summary": summary,
                "location": {"lat": (i as f64 - 120.0) / 3.0, "lon": i * 3 - 100},
                "tags": if i % 4 == 0 { json!(["a"]) } else { json!(["quiet", "view", format!("t{i}")]) },
                "rating": if i % 9 == 0 { Value::Null } else { json!((i % 50) as f64 / 10.0 + 0.25) },
                "rank": i % 11 - 5,
                "open": i % 2 == 0,
            });
            let Value::Object(record) = record else { unreachable!() };
            record
        })
        .collect()
}

#[test]
fn every_shape_users_tools_write_builds_the_same_bytes() {
    let fields = std::fs::read_to_string(repo().join("tests/fixtures/fields.toml")).unwrap();
    let listing =
        "[listing]\nlanguages = [\"en\", \"fr\"]\nsort = [\"-rating\"]\n[hosting]\ntargets = []\n";
    let records = records();
    let mut built = Vec::new();
    for shape in Shape::ALL {
        let p = Project::new(&format!("{listing}{fields}{}", shape.input_config()));
        p.write(&format!("data/{}", shape.file_name()), shape.write(&records));
        p.folio(&["check"]).success();
        p.folio(&["build"]).success();
        let mut tree = p.tree("output");
        tree.remove(".folio-manifest.json"); // it fingerprints the input file
        assert!(tree.len() > 20, "{}: {:?}", shape.name(), tree.keys());
        built.push((shape, tree));
    }
    let (first, want) = &built[0];
    for (shape, tree) in &built[1..] {
        assert_eq!(
            tree.keys().collect::<Vec<_>>(),
            want.keys().collect::<Vec<_>>(),
            "{} and {} write other files",
            shape.name(),
            first.name()
        );
        for (path, bytes) in tree {
            assert!(
                bytes == &want[path],
                "{path} differs between {} and {}:\n{}\n{}",
                shape.name(),
                first.name(),
                String::from_utf8_lossy(bytes),
                String::from_utf8_lossy(&want[path])
            );
        }
    }
    // The records are all there, with what the CSV shapes had to convert.
    let (_, tree) = &built[0];
    let page: Value = serde_json::from_slice(&tree["api/fr/attractions/100/1.json"]).unwrap();
    assert_eq!(page["total"], json!(240));
    let first = &page["data"][0];
    assert!(first["location"]["lat"].is_f64() && first["open"].is_boolean(), "{first}");
}
