//! The sample build, page by page, and the shape of what a build writes.

use serde_json::{Value, json};

use crate::harness::{Project, SAMPLE_RECORDS, folio_snapshot};

const LANGS: [&str; 4] = ["en", "fr", "ja", "th"];
const SIZES: [u64; 4] = [10, 20, 50, 100];

fn link(prefix: &str, page: u64, size: u64) -> Value {
    json!(format!("{prefix}?page={page}&per_page={size}"))
}

#[test]
fn sample_build_is_checked_page_by_page() {
    let p = Project::sample();
    let run = p.folio(&["build"]).success();
    assert!(run.stderr().is_empty(), "a clean build prints no problems: {}", run.stderr());

    // Every record once, in id order, in every language, size and variant.
    let variants: Vec<(String, &str)> = LANGS
        .iter()
        .map(|l| (format!("api/{l}/attractions"), *l))
        .chain([("api/attractions".to_string(), "en")])
        .collect();
    let mut files = 0;
    for (endpoint, lang) in &variants {
        let mut names_by_size = Vec::new();
        for size in SIZES {
            let total = SAMPLE_RECORDS as u64;
            let total_pages = total.div_ceil(size);
            let mut ids = Vec::new();
            let mut names = Vec::new();
            for page in 1..=total_pages {
                let body = p.json(&format!("output/{endpoint}/{size}/{page}.json"));
                files += 1;
                let keys: Vec<&str> =
                    body.as_object().unwrap().keys().map(String::as_str).collect();
                assert_eq!(keys, ["page", "per_page", "total", "total_pages", "data", "links"]);
                assert_eq!(body["page"], json!(page));
                assert_eq!(body["per_page"], json!(size));
                assert_eq!(body["total"], json!(total));
                assert_eq!(body["total_pages"], json!(total_pages));
                let data = body["data"].as_array().unwrap();
                let expected_len =
                    if page < total_pages { size } else { total - size * (total_pages - 1) };
                assert_eq!(data.len() as u64, expected_len, "{endpoint}/{size}/{page}");
                let prefix = format!("/{endpoint}");
                let links = &body["links"];
                assert_eq!(links["first"], link(&prefix, 1, size));
                assert_eq!(links["last"], link(&prefix, total_pages, size));
                assert_eq!(
                    links["prev"],
                    if page == 1 { Value::Null } else { link(&prefix, page - 1, size) }
                );
                assert_eq!(
                    links["next"],
                    if page == total_pages { Value::Null } else { link(&prefix, page + 1, size) }
                );
                for item in data {
                    ids.push(item["id"].as_i64().unwrap());
                    names.push(item["name"].as_str().unwrap().to_string());
                    let keys: Vec<&str> =
                        item.as_object().unwrap().keys().map(String::as_str).collect();
                    assert_eq!(
                        keys,
                        [
                            "id", "name", "summary", "category", "country", "location", "tags",
                            "rating"
                        ],
                        "source order"
                    );
                }
            }
            assert!(
                !p.path(&format!("output/{endpoint}/{size}/{}.json", total_pages + 1)).exists()
            );
            assert_eq!(ids, (1..=total as i64).collect::<Vec<_>>(), "{endpoint} size {size}");
            names_by_size.push(names);
        }
        assert!(names_by_size.windows(2).all(|w| w[0] == w[1]), "every size lists the same items");
        let first = &p.json(&format!("output/{endpoint}/10/1.json"))["data"][0];
        let expected = match *lang {
            "en" => "Eiffel Tower",
            "fr" => "Tour Eiffel",
            "ja" => "エッフェル塔",
            _ => "หอไอเฟล",
        };
        assert_eq!(first["name"], json!(expected));
        assert_eq!(
            first["location"],
            json!({"lat": 48.8584, "lon": 2.2945}),
            "dotted CSV columns nest"
        );
        assert_eq!(
            first["tags"],
            json!(["architecture", "view", "iconic"]),
            "list cells split on |"
        );
        assert_eq!(first["rating"], json!(4.7));
    }
    assert_eq!(files, 5 * (7 + 4 + 2 + 1));

    // Missing translations fall back to English (id 14 has no ja name, id 47 no fr name).
    let en = p.json("output/api/en/attractions/100/1.json");
    let ja = p.json("output/api/ja/attractions/100/1.json");
    let fr = p.json("output/api/fr/attractions/100/1.json");
    assert_eq!(ja["data"][13]["name"], en["data"][13]["name"]);
    assert_eq!(fr["data"][46]["name"], en["data"][46]["name"]);
    assert_ne!(fr["data"][45]["name"], en["data"][45]["name"]);

    // The unprefixed variant is the default language with its own links.
    let plain = p.json("output/api/attractions/100/1.json");
    assert_eq!(plain["data"], en["data"]);
    assert_eq!(plain["links"]["first"], json!("/api/attractions?page=1&per_page=100"));

    let index = p.json("output/api/index.json");
    assert_eq!(index["total_pages"], json!({"10": 7, "20": 4, "50": 2, "100": 1}));
    assert_eq!(index["endpoints"]["default"], json!("/api/attractions"));
    assert_eq!(index["endpoints"]["th"], json!("/api/th/attractions"));
    assert!(p.path("output/.nojekyll").is_file());
    assert!(p.path("output/.folio-manifest.json").is_file());
    insta::assert_snapshot!(
        "sample_page_th_50_2",
        p.read("output/api/th/attractions/50/2.json").chars().take(600).collect::<String>()
    );
}

#[test]
fn error_documents_are_rfc9457_with_the_configured_values() {
    let p = Project::sample();
    p.folio(&["build", "--base-url", "https://example.org/travel/"]).success();
    let doc = p.json("output/api/errors/invalid_per_page.json");
    let keys: Vec<&str> = doc.as_object().unwrap().keys().map(String::as_str).collect();
    assert_eq!(keys, ["type", "title", "status", "detail", "code"]);
    assert_eq!(
        doc,
        json!({"type": "https://example.org/travel/api/errors/invalid_per_page.json", "title": "Bad Request",
               "status": 400, "detail": "per_page must be one of 10, 20, 50, 100", "code": "invalid_per_page"})
    );
    for (code, status) in [
        ("invalid_page", 400),
        ("unknown_lang", 404),
        ("page_not_found", 404),
        ("not_found", 404),
        ("method_not_allowed", 405),
    ] {
        let doc = p.json(&format!("output/api/errors/{code}.json"));
        assert_eq!((doc["code"].as_str(), doc["status"].as_u64()), (Some(code), Some(status)));
    }
    let page = p.json("output/api/fr/attractions/20/2.json");
    assert_eq!(
        page["links"]["prev"],
        json!("https://example.org/travel/api/fr/attractions?page=1&per_page=20")
    );
    assert_eq!(
        p.json("output/api/index.json")["endpoints"]["fr"],
        json!("https://example.org/travel/api/fr/attractions")
    );
}

#[test]
fn path_style_links_point_at_the_files() {
    let p = Project::new(
        r#"
            base_url = "http://localhost:8000/x"
            [listing]
            url_style = "path"
            page_sizes = [2]
            default_page_size = 2
        "#,
    );
    p.write("data/a.jsonl", "{\"id\": 1}\n{\"id\": 2}\n{\"id\": 3}\n");
    p.folio(&["build"]).success();
    let page = p.json("output/api/en/attractions/2/1.json");
    assert_eq!(
        page["links"],
        json!({"first": "http://localhost:8000/x/api/en/attractions/2/1.json", "prev": null,
               "next": "http://localhost:8000/x/api/en/attractions/2/2.json", "last": "http://localhost:8000/x/api/en/attractions/2/2.json"})
    );
}

#[test]
fn empty_data_folder_gives_one_empty_page() {
    let p = Project::new("");
    p.folio(&["build"]).success();
    let page = p.json("output/api/en/attractions/10/1.json");
    assert_eq!(page["data"], json!([]));
    assert_eq!((page["total"].as_u64(), page["total_pages"].as_u64()), (Some(0), Some(1)));
    assert_eq!(page["links"]["next"], Value::Null);
    assert!(!p.path("output/api/en/attractions/10/2.json").exists());
}

#[test]
fn identical_inputs_give_byte_identical_output() {
    let a = Project::sample();
    let b = Project::sample();
    a.folio(&["build"]).success();
    b.folio(&["build"]).success();
    let mut ta = a.tree("output");
    let mut tb = b.tree("output");
    // The manifest records modification times; everything else must match byte for byte.
    ta.remove(".folio-manifest.json");
    tb.remove(".folio-manifest.json");
    // The lock file (docs/cli.md, "Overlapping commands") is empty.
    assert_eq!(ta.remove(".folio-lock"), Some(Vec::new()));
    assert_eq!(tb.remove(".folio-lock"), Some(Vec::new()));
    // 70 pages, 6 error documents, index.json, openapi.json, explorer.html, .nojekyll.
    assert_eq!(ta.len(), 80);
    assert!(ta == tb, "two builds of the same input differ");
}

#[test]
fn sort_descending_with_a_localized_key_and_field_projection() {
    let p = Project::new(
        r#"
            [listing]
            languages = ["en", "fr"]
            sort = ["-rating", "name"]
            fields = ["name", "id"]
            [fields.name]
            localized = true
        "#,
    );
    p.write(
        "data/a.json",
        r#"[{"id": 1, "name": {"en": "B", "fr": "a"}, "rating": 4},
            {"id": 2, "name": {"en": "A", "fr": "b"}, "rating": 4},
            {"id": 3, "name": {"en": "C"}, "rating": null},
            {"id": 4, "name": {"en": "D"}, "rating": 5.5}]"#,
    );
    p.folio(&["build"]).success();
    let ids = |lang: &str| -> Vec<i64> {
        p.json(&format!("output/api/{lang}/attractions/10/1.json"))["data"]
            .as_array()
            .unwrap()
            .iter()
            .map(|i| i["id"].as_i64().unwrap())
            .collect()
    };
    assert_eq!(ids("en"), [4, 2, 1, 3], "rating desc, nulls last, then English name");
    assert_eq!(ids("fr"), [4, 1, 2, 3], "French names order the tie differently");
    assert_eq!(
        p.json("output/api/fr/attractions/10/1.json")["data"][0],
        json!({"id": 4, "name": "D"})
    );
}

#[test]
fn precompressed_siblings_are_written_for_pages_and_follow_their_page() {
    use std::io::Read;
    let p = Project::sample();
    let cfg = p.read("folio.toml").replace(
        "[hosting]",
        r#"
            [output]
            precompress = ["gzip", "br"]

            [hosting]
        "#,
    );
    p.write("folio.toml", cfg);
    let first = p.folio(&["build"]).success();
    // 83: 80 files in output/ (openapi.json and explorer.html among them), 3 in hosting/.
    assert_eq!(first.counts().0, 83 + 2 * 70, "every one of the 70 pages has two siblings");
    let page = std::fs::read(p.path("output/api/ja/attractions/20/3.json")).unwrap();
    let mut gz = Vec::new();
    flate2::read::GzDecoder::new(
        &std::fs::read(p.path("output/api/ja/attractions/20/3.json.gz")).unwrap()[..],
    )
    .read_to_end(&mut gz)
    .unwrap();
    assert_eq!(gz, page);
    let mut br = Vec::new();
    brotli::BrotliDecompress(
        &mut &std::fs::read(p.path("output/api/ja/attractions/20/3.json.br")).unwrap()[..],
        &mut br,
    )
    .unwrap();
    assert_eq!(br, page);
    assert!(!p.path("output/api/index.json.gz").exists(), "only pages are precompressed");

    // One record changes: its 8 pages and their 16 siblings are rewritten, nothing else.
    p.write(
        "data/attractions.csv",
        p.read("data/attractions.csv").replacen("Eiffel Tower,", "The Eiffel Tower,", 1),
    );
    assert_eq!(p.folio(&["build"]).success().counts(), (24, 83 + 140 - 24, 0));
    // A deleted sibling is restored; dropping precompression removes them all.
    std::fs::remove_file(p.path("output/api/th/attractions/50/1.json.br")).unwrap();
    assert_eq!(p.folio(&["build"]).success().counts().0, 1);
    p.write(
        "folio.toml",
        p.read("folio.toml").replace("precompress = [\"gzip\", \"br\"]", "precompress = []"),
    );
    assert_eq!(p.folio(&["build"]).success().counts(), (0, 83, 140));
    assert!(!p.path("output/api/ja/attractions/20/3.json.gz").exists());
}

#[test]
fn quiet_prints_only_problems_and_a_pipe_gets_one_summary_line() {
    let p = Project::sample();
    // One summary line on a pipe (files, bytes and time), and no progress bar when stderr
    // is not a terminal.
    insta::assert_snapshot!("summary_on_a_pipe", folio_snapshot(p.dir.path(), &["build"]));
    p.write("data/attractions.csv", p.read("data/attractions.csv").replace("Eiffel", "Eiffel2"));
    let run = p.folio(&["build", "--quiet"]).success();
    assert!(run.stdout().is_empty() && run.stderr().is_empty());
    p.write("data/bad.jsonl", "{\"id\": \n");
    let run = p.folio(&["build", "--quiet"]).fails(1);
    assert!(run.stdout().is_empty());
    assert!(run.stderr().starts_with("data/bad.jsonl:1: invalid JSON"), "{}", run.stderr());
}

/// A build gathers each run of items (as many as the largest page size) once a language
/// and cuts every page that lies within it from that copy; a page that straddles two runs
/// is rendered from the records, as `serve` renders every page. Page sizes that do not
/// divide the largest give both kinds: each must hold the bytes `serve` renders for it.
#[test]
fn pages_cut_from_runs_of_items_are_the_pages_serve_renders() {
    use folio::config::Overrides;
    use folio::routes::layout::PageFile;

    let p = Project::sample();
    let config = p
        .read("folio.toml")
        .replace("page_sizes = [10, 20, 50, 100]", "page_sizes = [3, 7, 10, 25]");
    assert!(config.contains("[3, 7, 10, 25]"), "the sample config names its page sizes");
    p.write("folio.toml", config);
    p.folio(&["build"]).success();

    let project =
        folio::config::Project::discover(Some(&p.path("folio.toml")), &Overrides::default())
            .expect("the config");
    let memory = folio::site::InMemory::load(&project).expect("the listing");
    let map = memory.pages.map();
    let (mut pages, mut straddling) = (0, 0);
    for variant in map.variants() {
        for s in &map.sizes {
            for page in 1..=s.pages as u64 {
                let file = PageFile { variant, size: s.size, page };
                let mut rendered = Vec::new();
                memory.pages.render(&file, &mut rendered).expect("a page renders");
                let rel = map.page_file(&file);
                let built = std::fs::read(p.path(&format!("output/{rel}"))).expect("a built page");
                assert!(built == rendered, "{rel}: the build wrote other bytes than serve renders");
                let (first, last) =
                    ((page - 1) * s.size, (page * s.size).min(SAMPLE_RECORDS as u64) - 1);
                if first / 25 != last / 25 {
                    straddling += 1;
                }
                pages += 1;
            }
        }
    }
    assert!(
        pages > 200 && straddling > 20,
        "both kinds of page: {pages} pages, {straddling} straddling"
    );
}
