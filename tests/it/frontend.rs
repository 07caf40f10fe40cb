//! What frontends consume besides the pages: `api/openapi.json`, checked by a real
//! OpenAPI validator, against every page of every envelope, and by schemathesis against
//! `folio serve`; and `api/explorer.html`, driven in headless Chromium through
//! `folio serve` and through a static host that cannot answer the query form. The
//! external tools (Python's openapi-spec-validator, jsonschema and schemathesis, Debian's
//! chromium) are installed by `.ci/run`; locally a missing one skips its test with a reason.

mod cdp;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::harness::{Project, SAMPLE_RECORDS, StaticHost, need, need_python_module, serve};
use crate::table::request;
use cdp::Browser;

/// Held by the tests that run a browser or schemathesis: one at a time on two cores, so
/// they neither starve each other nor the other tests' servers.
static HEAVY: std::sync::Mutex<()> = std::sync::Mutex::new(());

fn heavy() -> std::sync::MutexGuard<'static, ()> {
    HEAVY.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// `target/`, where the tests leave artifacts (screenshots, the schemathesis log).
fn artifacts() -> PathBuf {
    crate::harness::target_dir()
}

/// The sample project with `replace` applied to its folio.toml, pairs of (from, to).
fn sample_with(replace: &[(&str, &str)]) -> Project {
    let p = Project::sample();
    let mut cfg = p.read("folio.toml");
    for (from, to) in replace {
        assert!(cfg.contains(from), "folio.toml has no {from:?}");
        cfg = cfg.replace(from, to);
    }
    p.write("folio.toml", cfg);
    p
}

/// Runs `cmd` with its output going to `log`, killing it after `limit`.
fn run_bounded(cmd: &mut Command, limit: Duration, log: &Path) -> (bool, String) {
    let file = std::fs::File::create(log).expect("creating the log");
    let mut child = cmd
        .stdin(Stdio::null())
        .stdout(file.try_clone().unwrap())
        .stderr(file)
        .spawn()
        .expect("starting the command");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break Some(status);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    let text = std::fs::read_to_string(log).unwrap_or_default();
    match status {
        Some(s) => (s.success(), text),
        None => (false, format!("{text}\n(killed after {limit:?})")),
    }
}

#[test]
fn openapi_and_explorer_are_written_beside_the_index() {
    let p = Project::sample();
    p.folio(&["build"]).success();
    let index = p.json("output/api/index.json");
    assert_eq!(index["openapi"], "/api/openapi.json");
    let doc = p.json("output/api/openapi.json");
    assert_eq!(doc["openapi"], "3.1.0");
    assert_eq!(doc["servers"], json!([{"url": "/"}]));
    let params = &doc["components"]["parameters"];
    assert_eq!(params["lang"]["schema"]["enum"], index["languages"]);
    assert_eq!(params["per_page"]["schema"]["enum"], index["page_sizes"]);
    assert_eq!(params["per_page"]["schema"]["default"], index["default_page_size"]);
    let item = &doc["components"]["schemas"]["Item"]["properties"];
    assert_eq!(item["location"]["properties"]["lat"]["type"], json!(["number", "null"]));
    assert_eq!(item["name"]["type"], "string", "required and localized: never null");
    let html = p.read("output/api/explorer.html");
    assert!(
        html.starts_with("<!doctype html>") && html.contains("<title>attractions explorer</title>")
    );
}

#[test]
fn openapi_document_passes_openapi_spec_validator() {
    if !need("openapi-spec-validator") {
        return;
    }
    let projects = [
        sample_with(&[]),
        sample_with(&[
            ("base_url = \"\"", "base_url = \"https://example.org/travel\""),
            ("sort = [\"id\"]", "sort = [\"id\"]\nenvelope = \"laravel\""),
        ]),
        sample_with(&[
            (
                "sort = [\"id\"]",
                r#"
                    sort = ["id"]
                    envelope = "laravel-resource"
                    fields = ["id", "name", "country"]
                "#,
            ),
            ("[hosting]", "[i18n]\nfallback = \"null\"\n\n[hosting]"),
        ]),
        sample_with(&[("sort = [\"id\"]", "sort = [\"id\"]\nenvelope = \"template:mine\"")]),
        sample_with(&[("sort = [\"id\"]", "sort = [\"id\"]\nenvelope = \"laravel-simple\"")]),
        sample_with(&[("sort = [\"id\"]", "sort = [\"id\"]\ntotals = false")]),
    ];
    projects[3].write("templates/mine.json.j2", "{\"items\": {{ items }}}\n");
    let mut files = Vec::new();
    for p in &projects {
        p.folio(&["build"]).success();
        files.push(p.path("output/api/openapi.json"));
    }
    // The validator is not a rubber stamp: a document without `info` fails it.
    let broken = &projects[0];
    let mut doc = broken.json("output/api/openapi.json");
    doc.as_object_mut().unwrap().remove("info");
    broken.write("broken.json", doc.to_string());
    let out = Command::new(crate::harness::tool("openapi-spec-validator"))
        .args(["--schema", "3.1"])
        .arg(broken.path("broken.json"))
        .output()
        .unwrap();
    assert!(!out.status.success(), "openapi-spec-validator accepted a document without info");

    let out = Command::new(crate::harness::tool("openapi-spec-validator"))
        .args(["--schema", "3.1"])
        .args(&files)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "openapi-spec-validator rejected openapi.json:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

/// Validates every page under `OUT/api` against `#/components/schemas/Page` of
/// `OUT/api/openapi.json` (JSON Schema 2020-12, formats checked); prints a count.
const VALIDATE_PAGES: &str = r##"
import json, pathlib, sys
from jsonschema import Draft202012Validator
out = pathlib.Path(sys.argv[1])
doc = json.loads((out / "api/openapi.json").read_text())
schema = dict(doc, **{"$ref": "#/components/schemas/Page"})
validator = Draft202012Validator(schema, format_checker=Draft202012Validator.FORMAT_CHECKER)
pages = [p for p in sorted((out / "api").rglob("*.json")) if p.parent.name.isdigit()]
errors = 0
for page in pages:
    for e in validator.iter_errors(json.loads(page.read_text())):
        errors += 1
        if errors <= 5:
            print(f"{page.relative_to(out)}: /{'/'.join(map(str, e.absolute_path))}: {e.message[:300]}")
print(f"{len(pages)} pages checked, {errors} errors")
sys.exit(1 if errors or not pages else 0)
"##;

fn validate_pages(output: &Path) -> (bool, String) {
    let out = Command::new(crate::harness::tool("python3"))
        .args(["-c", VALIDATE_PAGES])
        .arg(output)
        .output()
        .expect("python3");
    let text =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    (out.status.success(), text)
}

/// 150 records that exercise every way a value can be null or absent.
fn varied_records() -> String {
    let records: Vec<Value> = (1..=150)
        .map(|i| {
            let mut name = json!({"en": format!("Place {i}")});
            if i % 5 != 0 {
                name["fr"] = json!(format!("Lieu {i}"));
            }
            let mut r = json!({
                "id": i,
                "name": name,
                "location": {"lat": i as f64 / 3.0, "lon": if i % 4 == 0 { Value::Null } else { json!(i) }},
                "open": i % 2 == 0,
            });
            match i % 3 {
                0 => r["summary"] = json!({"fr": format!("Résumé {i}")}),
                1 => r["summary"] = Value::Null,
                _ => {}
            }
            if i % 7 != 0 {
                r["tags"] = json!(["a", format!("t{i}")]);
                r["rating"] = if i % 11 == 0 { Value::Null } else { json!(i % 5) };
                r["extra"] = json!({"anything": [i]});
            }
            r
        })
        .collect();
    serde_json::to_string_pretty(&records).unwrap()
}

const VARIED_CONFIG: &str = concat!(
    "[listing]\nlanguages = [\"en\", \"fr\"]\npage_sizes = [10, 20, 200]\ndefault_page_size = 10\nLISTING_TAIL\n\n",
    "[i18n]\nfallback = \"FALLBACK\"\n\n[hosting]\ntargets = []\n\n",
    include_str!("../fixtures/fields.toml")
);

#[test]
fn every_page_of_every_envelope_matches_the_openapi_page_schema() {
    if !need_python_module("jsonschema") {
        return;
    }
    let cases = [
        ("envelope = \"standard\"", "default"),
        ("envelope = \"laravel\"", "default"),
        ("envelope = \"laravel-resource\"", "default"),
        ("envelope = \"laravel-simple\"", "null"),
        ("totals = false\nurl_style = \"path\"", "default"),
        ("envelope = \"laravel\"\nfields = [\"id\", \"name\", \"summary\", \"extra\"]", "null"),
        ("url_style = \"path\"", "null"),
    ];
    for (tail, fallback) in cases {
        let config = VARIED_CONFIG.replace("LISTING_TAIL", tail).replace("FALLBACK", fallback);
        let p = Project::new(&config);
        p.write("data/places.json", varied_records());
        p.folio(&["build"]).success();
        let (ok, report) = validate_pages(&p.path("output"));
        assert!(ok, "{tail} with fallback {fallback}: pages do not match openapi.json:\n{report}");
        assert!(report.contains(" pages checked, 0 errors"), "{report}");
        if tail.contains("fields") {
            // The projection closes the item: an extra key is a violation the check sees.
            let page = "output/api/fr/attractions/10/2.json";
            let mut v = p.json(page);
            v["data"][0]["surprise"] = json!(1);
            p.write(page, v.to_string());
            let (ok, report) = validate_pages(&p.path("output"));
            assert!(!ok && report.contains("surprise"), "{report}");
        }
    }
}

#[test]
fn schemathesis_finds_no_failure_against_folio_serve() {
    if !need("schemathesis") {
        return;
    }
    let _one_at_a_time = heavy();
    let cases = [
        ("standard, at the root", sample_with(&[])),
        (
            "laravel, mounted at /travel",
            sample_with(&[
                ("base_url = \"\"", "base_url = \"https://example.org/travel\""),
                ("sort = [\"id\"]", "sort = [\"id\"]\nenvelope = \"laravel\""),
            ]),
        ),
    ];
    for (i, (what, p)) in cases.iter().enumerate() {
        let served = serve(p.dir.path());
        let base = served.url.trim_end_matches('/');
        let log = artifacts().join(format!("schemathesis-{i}.txt"));
        // Every check, positive and negative data, a bounded number of cases.
        let (ok, text) = run_bounded(
            Command::new(crate::harness::tool("schemathesis"))
                .args(["--no-color", "run", &format!("{base}/api/openapi.json")])
                .args(["--url", base, "--checks", "all", "--max-examples", "50"])
                .args(["--workers", "1", "--request-timeout", "10"])
                .current_dir(p.dir.path())
                .env("NO_COLOR", "1"),
            Duration::from_secs(300),
            &log,
        );
        let summary = text
            .lines()
            .rev()
            .find(|l| l.contains("No issues found") || l.contains("failure") || l.contains("error"))
            .unwrap_or("(no summary line)")
            .trim_matches(|c: char| c == '=' || c.is_whitespace());
        eprintln!("schemathesis on {what}: {summary} (log: {})", log.display());
        assert!(ok, "schemathesis found problems on {what}:\n{text}");
        assert!(summary.starts_with("No issues found"), "{text}");
    }
}

/// Is there a page element with this text?
fn shows(text: &str) -> String {
    format!("document.getElementById('items').innerText.includes({})", json!(text))
}

/// The `name` of every item of the page file `rel` below `output`.
fn names(output: &Path, rel: &str) -> Vec<String> {
    names_in(&std::fs::read(output.join(rel)).unwrap())
}

/// The `name` of every item of the page file `rel` as `serve` answers it by its path.
fn served_names(served: &crate::harness::Served, rel: &str) -> Vec<String> {
    names_in(&crate::harness::fetch(served.port, &format!("/{rel}")))
}

fn names_in(page: &[u8]) -> Vec<String> {
    serde_json::from_slice::<Value>(page).unwrap()["data"]
        .as_array()
        .unwrap()
        .iter()
        .map(|i| i["name"].as_str().unwrap().to_string())
        .collect()
}

#[test]
fn explorer_in_chromium_through_folio_serve() {
    if !need("chromium") {
        return;
    }
    let _one_at_a_time = heavy();
    let p = Project::sample();
    let served = serve(p.dir.path());
    let url = served.url.clone();
    let mut b = Browser::start();
    b.navigate(&format!("{url}api/explorer.html"));

    b.wait_for("page 1", "document.getElementById('position').textContent === 'Page 1 of 7'");
    for name in served_names(&served, "api/en/attractions/10/1.json") {
        b.wait_for(&format!("{name} on page 1"), &shows(&name));
    }
    assert_eq!(b.eval("document.querySelectorAll('#items .card').length"), json!(10));
    let totals = b.eval("document.getElementById('totals').textContent");
    assert_eq!(totals, format!("{SAMPLE_RECORDS} attractions · 7 pages · 10 a page"));
    let requested = b.eval("document.getElementById('request-url').textContent");
    assert_eq!(requested, format!("{url}api/en/attractions?page=1&per_page=10"));
    assert_eq!(b.eval("document.getElementById('form').textContent"), "(query form)");
    assert_eq!(b.eval("document.getElementById('prev').disabled"), json!(true));

    // "Next" shows page 2, through the query form.
    b.click("next");
    b.wait_for("page 2", "document.getElementById('position').textContent === 'Page 2 of 7'");
    let page2 = served_names(&served, "api/en/attractions/10/2.json");
    for name in &page2 {
        b.wait_for(&format!("{name} on page 2"), &shows(name));
    }
    let first_of_page1 = &served_names(&served, "api/en/attractions/10/1.json")[0];
    assert_eq!(b.eval(&shows(first_of_page1)), json!(false), "page 1 is gone");
    let requested = b.eval("document.getElementById('request-url').textContent");
    assert_eq!(requested, format!("{url}api/en/attractions?page=2&per_page=10"));
    assert_eq!(b.eval("location.hash"), "#lang=en&per_page=10&page=2&view=cards");
    b.screenshot(&artifacts().join("explorer.png"));

    // The table view, then "Last" and another language and size.
    b.click("view-table");
    b.wait_for("the table", "document.querySelectorAll('#items tbody tr').length === 10");
    let header =
        b.eval("[...document.querySelectorAll('#items th')].map(th => th.textContent).join(',')");
    assert_eq!(header, "id,name,summary,category,country,location,tags,rating");
    b.click("last");
    b.wait_for("page 7", "document.getElementById('position').textContent === 'Page 7 of 7'");
    assert_eq!(b.eval("document.querySelectorAll('#items tbody tr').length"), json!(7));
    assert_eq!(b.eval("document.getElementById('next').disabled"), json!(true));
    b.eval(
        "(() => { const s = document.getElementById('lang'); s.value = 'fr'; s.dispatchEvent(new Event('change')); \
         const z = document.getElementById('per-page'); z.value = '20'; z.dispatchEvent(new Event('change')); })()",
    );
    b.wait_for(
        "French, 20 a page",
        "document.getElementById('position').textContent === 'Page 1 of 4'",
    );
    let french = served_names(&served, "api/fr/attractions/20/1.json");
    b.wait_for("a French name", &shows(&french[19]));
    b.screenshot(&artifacts().join("explorer-table.png"));

    // Back to the first page: the explorer revalidates it, serve answers 304 (a transfer
    // of headers only) and the browser's cached copy is shown.
    b.eval("location.hash = '#lang=en&per_page=10&page=1&view=cards'");
    b.wait_for("page 1 again", "document.getElementById('position').textContent === 'Page 1 of 7'");
    b.wait_for("its first name", &shows(first_of_page1));
    let timing = b.eval(&format!(
        "(() => {{ const e = performance.getEntriesByName('{url}api/en/attractions?page=1&per_page=10'); \
         const last = e[e.length - 1]; return [e.length, last.transferSize, last.encodedBodySize]; }})()"
    ));
    let (count, transfer, body) = (timing[0].as_u64(), timing[1].as_u64(), timing[2].as_u64());
    assert_eq!(count, Some(2), "page 1 fetched twice: {timing}");
    assert!(transfer.unwrap() > 0 && transfer < body, "the second fetch was a 304: {timing}");

    let errors = b.errors(|_| false);
    assert!(errors.is_empty(), "the page logged errors:\n{}", errors.join("\n"));
}

#[test]
fn explorer_falls_back_to_the_path_form_on_a_static_host() {
    if !need("chromium") {
        return;
    }
    let _one_at_a_time = heavy();
    let p = sample_with(&[("sort = [\"id\"]", "sort = [\"id\"]\nenvelope = \"laravel-resource\"")]);
    p.folio(&["build"]).success();
    let host = StaticHost::start(p.path("output"));
    let base = format!("http://127.0.0.1:{}", host.port);
    assert_eq!(
        request(host.port, "GET", "/api/fr/attractions?page=3&per_page=20", &[]).status,
        404
    );

    let mut b = Browser::start();
    b.navigate(&format!("{base}/api/explorer.html#lang=fr&per_page=20&page=3&view=table"));
    b.wait_for("page 3", "document.getElementById('position').textContent === 'Page 3 of 4'");
    assert_eq!(b.eval("document.getElementById('form').textContent"), "(path form)");
    let requested = b.eval("document.getElementById('request-url').textContent");
    assert_eq!(requested, format!("{base}/api/fr/attractions/20/3.json"));
    let rows = b.eval("document.querySelectorAll('#items tbody tr').length");
    assert_eq!(rows, json!(20));
    for name in names(&p.path("output"), "api/fr/attractions/20/3.json") {
        b.wait_for(&name, &shows(&name));
    }

    b.click("next");
    b.wait_for("page 4", "document.getElementById('position').textContent === 'Page 4 of 4'");
    assert_eq!(b.eval("document.querySelectorAll('#items tbody tr').length"), json!(7));
    let requested = b.eval("document.getElementById('request-url').textContent");
    assert_eq!(requested, format!("{base}/api/fr/attractions/20/4.json"), "no second try");
    b.click("view-cards");
    b.wait_for("cards", "document.querySelectorAll('#items .card').length === 7");
    b.screenshot(&artifacts().join("explorer-static.png"));

    // The one failed request is the query form the host cannot answer, logged by the
    // browser itself; the page logs nothing.
    let errors = b.errors(|entry| {
        entry["source"] == "network"
            && entry["url"].as_str().is_some_and(|u| u.contains("/api/fr/attractions?page=3"))
    });
    assert!(errors.is_empty(), "the page logged errors:\n{}", errors.join("\n"));
}

#[test]
fn explorer_pages_through_a_listing_whose_pages_carry_no_count() {
    if !need("chromium") {
        return;
    }
    let _one_at_a_time = heavy();
    for (tail, name) in
        [("envelope = \"laravel-simple\"", "laravel-simple"), ("totals = false", "totals-false")]
    {
        let p = sample_with(&[("sort = [\"id\"]", &format!("sort = [\"id\"]\n{tail}"))]);
        let served = serve(p.dir.path());
        let url = served.url.clone();
        let position = |text: &str| {
            format!("document.getElementById('position').textContent === {}", json!(text))
        };
        let disabled = |b: &mut Browser, key: &str| {
            b.eval(&format!("document.getElementById('{key}').disabled"))
        };
        let mut b = Browser::start();
        b.navigate(&format!("{url}api/explorer.html#lang=fr&per_page=20&page=1&view=cards"));
        // No "of N" and no count: the pages do not say them.
        b.wait_for(&format!("{name}: page 1"), &position("Page 1"));
        assert_eq!(b.eval("document.getElementById('totals').textContent"), "20 a page", "{name}");
        assert_eq!(
            (disabled(&mut b, "prev"), disabled(&mut b, "last")),
            (json!(true), json!(true))
        );
        // Next, by the page's own link, to the last page, which has none.
        for page in 2..=4 {
            assert_eq!(disabled(&mut b, "next"), json!(false), "{name}: next from {}", page - 1);
            b.click("next");
            b.wait_for(&format!("{name}: page {page}"), &position(&format!("Page {page}")));
        }
        for item in served_names(&served, "api/fr/attractions/20/4.json") {
            b.wait_for(&format!("{name}: {item} on the last page"), &shows(&item));
        }
        assert_eq!(disabled(&mut b, "next"), json!(true), "{name}: page 4 is the last");
        let requested = b.eval("document.getElementById('request-url').textContent");
        assert_eq!(requested, format!("{url}api/fr/attractions?page=4&per_page=20"), "{name}");
        // Back by the previous link, and to the first.
        b.click("prev");
        b.wait_for(&format!("{name}: back to 3"), &position("Page 3"));
        b.click("first");
        b.wait_for(&format!("{name}: back to 1"), &position("Page 1"));
        b.screenshot(&artifacts().join(format!("explorer-{name}.png")));
        let errors = b.errors(|_| false);
        assert!(errors.is_empty(), "{name}: the page logged errors:\n{}", errors.join("\n"));
    }
}

#[test]
fn a_project_template_replaces_the_explorer_and_a_broken_one_fails_the_build() {
    let p = Project::sample();
    p.write(
        "templates/explorer.html.j2",
        "<p>{{ resource }}: {{ languages|join(', ') }}, {{ page_sizes|join(' ') }}</p>\n<script>const c = {{ config|tojson }};</script>\n",
    );
    p.folio(&["build"]).success();
    let html = p.read("output/api/explorer.html");
    assert!(
        html.starts_with("<p>attractions: en, fr, ja, th, 10 20 50 100</p>\n<script>const c = {"),
        "{html}"
    );

    p.write("templates/explorer.html.j2", "<p>\n{% for x in %}\n");
    let run = p.folio(&["build"]).fails(1);
    assert!(
        run.stderr().contains("templates/explorer.html.j2:2: syntax error"),
        "{}",
        run.stderr()
    );
    assert!(html == p.read("output/api/explorer.html"), "nothing was written");
}

/// Runs `tool` (a program of tests/node_modules/.bin) with `args`, its stdout as JSON.
fn lint_json(tool: &str, args: &[&std::ffi::OsStr], dir: &Path) -> Value {
    let out = Command::new(repo_bin(tool))
        .args(args)
        .current_dir(dir)
        .env("REDOCLY_TELEMETRY", "off")
        .env("REDOCLY_SUPPRESS_UPDATE_NOTICE", "true")
        .env("NO_UPDATE_NOTIFIER", "1")
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    serde_json::from_str(&text)
        .unwrap_or_else(|e| panic!("{tool}: {e}\n{text}\n{}", String::from_utf8_lossy(&out.stderr)))
}

fn repo_bin(tool: &str) -> PathBuf {
    crate::harness::repo().join("tests/node_modules/.bin").join(tool)
}

#[test]
fn openapi_document_passes_spectral_and_redocly_with_only_the_explained_warnings() {
    if !need("node")
        || !crate::harness::missing_is_ok(
            repo_bin("spectral").is_file() && repo_bin("redocly").is_file(),
            "spectral and redocly (npm, tests/package.json)",
        )
    {
        return;
    }
    // The sample, and a config with every field type and the [openapi] keys.
    let every = sample_with(&[(
        "[hosting]",
        "[fields.open]\ntype = \"boolean\"\n[fields.extra]\ntype = \"json\"\n[fields.label]\ntype = \"string\"\n[fields.opened]\ntype = \"date\"\n[fields.updated]\ntype = \"datetime\"\n\n[openapi]\nlicense = \"CC-BY-4.0\"\ncontact_email = \"api@example.org\"\n\n[hosting]",
    )]);
    // The page schema of each envelope without a count, too.
    let simple =
        sample_with(&[("sort = [\"id\"]", "sort = [\"id\"]\nenvelope = \"laravel-simple\"")]);
    let no_totals = sample_with(&[("sort = [\"id\"]", "sort = [\"id\"]\ntotals = false")]);
    let projects = [(sample_with(&[]), false), (every, true), (simple, false), (no_totals, false)];
    let rules = tempfile::tempdir().unwrap();
    std::fs::write(rules.path().join(".spectral.yaml"), "extends: [\"spectral:oas\"]\n").unwrap();
    for (p, described) in &projects {
        p.folio(&["build"]).success();
        let doc = p.path("output/api/openapi.json");
        let spectral = lint_json(
            "spectral",
            &["lint".as_ref(), doc.as_os_str(), "--format".as_ref(), "json".as_ref()],
            rules.path(),
        );
        let mut spectral_codes: Vec<String> = Vec::new();
        for finding in spectral.as_array().unwrap() {
            assert_ne!(finding["severity"], 0, "a Spectral error: {finding}");
            spectral_codes.push(finding["code"].as_str().unwrap().to_string());
        }
        let redocly = lint_json(
            "redocly",
            &["lint".as_ref(), doc.as_os_str(), "--format".as_ref(), "json".as_ref()],
            rules.path(),
        );
        let mut redocly_rules: Vec<String> = Vec::new();
        for problem in redocly["problems"].as_array().unwrap() {
            assert_ne!(problem["severity"], "error", "a Redocly error: {problem}");
            redocly_rules.push(problem["ruleId"].as_str().unwrap().to_string());
        }
        // Only the warnings docs/api.md explains; the [openapi] keys silence theirs.
        let mut spectral_allowed = vec!["oas3-unused-component"];
        let mut redocly_allowed = vec!["no-unused-components", "operation-4xx-response"];
        if !described {
            spectral_allowed.push("info-contact");
            redocly_allowed.push("info-license");
        }
        for code in &spectral_codes {
            assert!(spectral_allowed.contains(&code.as_str()), "Spectral warns {code}: {spectral}");
        }
        for rule in &redocly_rules {
            assert!(redocly_allowed.contains(&rule.as_str()), "Redocly warns {rule}: {redocly}");
        }
        let api = std::fs::read_to_string(crate::harness::repo().join("docs/api.md")).unwrap();
        for rule in spectral_codes.iter().chain(&redocly_rules) {
            assert!(api.contains(&format!("`{rule}`")), "docs/api.md does not explain {rule}");
        }
    }
    let simple: Value =
        serde_json::from_str(&projects[2].0.read("output/api/openapi.json")).unwrap();
    let page = &simple["components"]["schemas"]["Page"];
    assert_eq!(page["title"], "A page in the `laravel-simple` envelope", "{page}");
    let no_totals: Value =
        serde_json::from_str(&projects[3].0.read("output/api/openapi.json")).unwrap();
    let page = &no_totals["components"]["schemas"]["Page"];
    assert_eq!(page["title"], "A page in the `standard` envelope, without totals", "{page}");
    let doc: Value = serde_json::from_str(&projects[1].0.read("output/api/openapi.json")).unwrap();
    assert_eq!(doc["security"], json!([]));
    assert_eq!(doc["info"]["license"], json!({"name": "CC-BY-4.0", "identifier": "CC-BY-4.0"}));
    assert_eq!(doc["info"]["contact"], json!({"email": "api@example.org"}));
    let tags = &doc["components"]["schemas"]["Item"]["properties"]["tags"];
    assert_eq!(tags["items"], json!({}), "{tags}");
}
