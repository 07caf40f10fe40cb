//! A whole build against `folio serve`, file by file. A 10,000-record project (three
//! languages, localized and nested fields, lists, numbers, Unicode, a descending sort by a
//! number that ties, pages precompressed both ways, Netlify's publish-folder files) is
//! built; then every file of `output/` is asked of the preview by its path, and every
//! page also by its query form, plain and with `Accept-Encoding` (which must give the
//! build's sibling): the same bytes, and the entity tag the build's manifest records.

use std::collections::BTreeMap;
use std::time::Instant;

use serde_json::Value;

use crate::harness::{Project, serve};

/// The project's records: ids 0..n in shuffled order, a third of the ratings equal.
fn records(n: u64) -> String {
    let mut out = Vec::new();
    for k in 0..n {
        let id = (k * 7_919) % n; // 7919 is prime: a permutation of 0..n for n = 10,000
        let tags: Vec<&str> =
            ["a", "b/c", "\"quoted\""].into_iter().take((id % 4) as usize).collect();
        let mut item = serde_json::json!({
            "id": id,
            "name": {"en": format!("Place {id}"), "fr": format!("Lieu n° {id} « é »"), "ja": format!("場所{id}")},
            "rating": (id % 31) as f64 / 7.0,
            "tags": tags,
            "location": {"lat": 35.0 + (id as f64) / 1e4, "lon": -120.5},
        });
        if !id.is_multiple_of(5) {
            item["summary"] =
                serde_json::json!({"en": format!("About {id}: \u{1F5FC} & <b>"), "ja": "説明"});
        }
        out.push(item);
    }
    serde_json::to_string_pretty(&out).unwrap()
}

const CONFIG: &str = r#"
[listing]
languages = ["en", "fr", "ja"]
default_language = "en"
page_sizes = [10, 100]
default_page_size = 10
sort = ["-rating"]

[fields.name]
localized = true
required = true

[fields.summary]
localized = true

[fields.rating]
type = "number"

[output]
precompress = ["gzip", "br"]

[hosting]
targets = ["netlify"]
"#;

/// One keep-alive connection to the preview (thousands of requests, one socket).
struct Client {
    runtime: tokio::runtime::Runtime,
    http: reqwest::Client,
    base: String,
}

struct Answer {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Vec<u8>,
}

impl Answer {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

impl Client {
    fn new(port: u16) -> Client {
        // reqwest's rustls wants a crypto provider even for plain HTTP.
        let _ = rustls::crypto::ring::default_provider().install_default();
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap();
        let http = reqwest::Client::builder().pool_max_idle_per_host(1).build().unwrap();
        Client { runtime, http, base: format!("http://127.0.0.1:{port}") }
    }

    fn get(&self, target: &str, accept_encoding: Option<&str>) -> Answer {
        self.runtime.block_on(async {
            let mut req = self.http.get(format!("{}{target}", self.base));
            if let Some(ae) = accept_encoding {
                req = req.header("Accept-Encoding", ae);
            }
            let res = req.send().await.unwrap_or_else(|e| panic!("GET {target}: {e}"));
            let (status, headers) = (res.status().as_u16(), res.headers().clone());
            Answer { status, headers, body: res.bytes().await.unwrap().to_vec() }
        })
    }
}

#[test]
fn serve_answers_every_file_of_a_10000_record_build_with_its_bytes() {
    let p = Project::new(CONFIG);
    p.write("data/places.json", records(10_000));
    p.folio(&["build"]).success();
    let output = p.path("output");
    let manifest = p.json("output/.folio-manifest.json");
    let files = crate::harness::files(&output);
    let served = serve(p.dir.path());
    let client = Client::new(served.port);
    let started = Instant::now();
    let mut counts: BTreeMap<&str, usize> = BTreeMap::new();

    for (rel, path) in &files {
        let bytes = std::fs::read(path).unwrap();
        let hidden = rel.split('/').any(|part| part.starts_with('.'));
        let res = client.get(&format!("/{rel}"), None);
        if hidden {
            // .nojekyll, the manifest, the lock: folio's, never served.
            assert_eq!(res.status, 404, "{rel}");
            *counts.entry("hidden, 404").or_default() += 1;
            continue;
        }
        assert_eq!(res.status, 200, "{rel}");
        assert!(res.body == bytes, "{rel}: {} bytes served, {} built", res.body.len(), bytes.len());
        let hash = manifest["files"][rel.as_str()]["hash"].as_str().unwrap();
        assert_eq!(res.header("etag"), Some(format!("\"{}\"", &hash[..20]).as_str()), "{rel}");
        assert!(res.header("last-modified").is_some(), "{rel}");
        // A sibling asked for by its path is its page in that coding, as every host says.
        let named = [(".json.br", "br"), (".json.gz", "gzip")]
            .into_iter()
            .find_map(|(ext, coding)| rel.ends_with(ext).then_some(coding));
        assert_eq!(res.header("content-encoding"), named, "{rel}: asked for by its path");
        *counts.entry("files by path").or_default() += 1;

        // A page by its query form: plain, then in each coding (the build's sibling).
        let Some(page) = query_form(rel) else { continue };
        let res = client.get(&page, None);
        assert!(res.status == 200 && res.body == bytes, "{page}: not the bytes of {rel}");
        assert_eq!(res.header("etag"), Some(format!("\"{}\"", &hash[..20]).as_str()), "{page}");
        for (ext, coding) in [("br", "br"), ("gz", "gzip")] {
            let sibling = std::fs::read(output.join(format!("{rel}.{ext}"))).unwrap();
            let res = client.get(&page, Some(&format!("{coding}, identity")));
            assert_eq!(res.header("content-encoding"), Some(coding), "{page} ({coding})");
            assert!(res.body == sibling, "{page} ({coding}): not the bytes of {rel}.{ext}");
        }
        *counts.entry("pages by query form, in 3 codings").or_default() += 1;
    }
    eprintln!("crawled in {:.1} s: {counts:?}", started.elapsed().as_secs_f64());
    let pages = files.keys().filter(|rel| query_form(rel).is_some()).count();
    assert_eq!(pages, 4 * (1_000 + 100), "every page of every variant was crawled");
    assert_eq!(counts["pages by query form, in 3 codings"], pages);
    for netlify in ["_redirects", "_headers"] {
        assert!(files.contains_key(netlify), "the publish-folder files are crawled too");
    }
    let index: Value = serde_json::from_slice(&client.get("/api/index.json", None).body).unwrap();
    assert_eq!(index["total"], 10_000);
}

/// The query form of a page file (`api/fr/attractions/100/3.json` →
/// `/api/fr/attractions?page=3&per_page=100`), or `None` for any other file.
fn query_form(rel: &str) -> Option<String> {
    let stem = rel.strip_prefix("api/")?.strip_suffix(".json")?;
    let (endpoint, page) = stem.rsplit_once('/')?;
    let (endpoint, size) = endpoint.rsplit_once('/')?;
    let numeric = |s: &str| !s.is_empty() && s.bytes().all(|b| b.is_ascii_digit());
    (numeric(page) && numeric(size) && endpoint.ends_with("attractions"))
        .then(|| format!("/api/{endpoint}?page={page}&per_page={size}"))
}
