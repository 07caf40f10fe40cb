//! `folio serve`: the request table, rebuilds on change, and a base_url path.

use std::process::Command;
use std::time::{Duration, Instant};

use crate::harness::{BIN, serve};
use crate::table::{self, Target, fixture, request};

#[test]
fn folio_serve_answers_the_whole_table() {
    let p = fixture("");
    let (_server, url, port) = serve(p.dir.path());
    assert!(url.ends_with('/'), "{url}");
    let output = p.path("output");
    table::run(&Target {
        name: "serve",
        port,
        mount: "",
        output: &output,
        precompressed: true,
        unchecked_headers: &[],
        cache_control: "public, max-age=300",
    });
}

#[test]
fn folio_serve_mounts_at_the_base_url_path_with_local_links() {
    let p = fixture("");
    let cfg = p
        .read("folio.toml")
        .replace("base_url = \"\"", "base_url = \"https://example.org/travel\"");
    p.write("folio.toml", cfg);
    let (_server, url, port) = serve(p.dir.path());
    assert_eq!(url, format!("http://127.0.0.1:{port}/travel/"));
    let res = request(port, "GET", "/travel/api/fr/attractions?page=2", &[]);
    assert_eq!(res.status, 200);
    let body: serde_json::Value = serde_json::from_slice(&res.body).unwrap();
    assert_eq!(
        body["links"]["next"],
        format!("http://127.0.0.1:{port}/travel/api/fr/attractions?page=3&per_page=10")
    );
    assert_eq!(request(port, "GET", "/api/fr/attractions", &[]).status, 404);
    let output = p.path("output");
    table::add_siblings(&output);
    table::run(&Target {
        name: "serve",
        port,
        mount: "/travel",
        output: &output,
        precompressed: true,
        unchecked_headers: &[],
        cache_control: "public, max-age=300",
    });
}

fn wait_until(what: &str, mut ok: impl FnMut() -> bool) {
    let start = Instant::now();
    while !ok() {
        assert!(start.elapsed() < Duration::from_secs(20), "timed out waiting for {what}");
        std::thread::sleep(Duration::from_millis(100));
    }
}

#[test]
fn folio_serve_rebuilds_on_change_and_keeps_the_last_good_tree_on_failure() {
    let p = fixture("");
    let (_server, _url, port) = serve(p.dir.path());
    let first_name = || -> String {
        let res = request(port, "GET", "/api/en/attractions", &[]);
        let v: serde_json::Value = serde_json::from_slice(&res.body).unwrap();
        v["data"][0]["name"].as_str().unwrap().to_string()
    };
    assert_eq!(first_name(), "Eiffel Tower");
    p.write(
        "data/attractions.csv",
        p.read("data/attractions.csv").replace("Eiffel Tower,", "Eiffel Tower (Paris),"),
    );
    wait_until("the rebuild", || first_name() == "Eiffel Tower (Paris)");

    // A broken file: the rebuild fails, the last good tree keeps being served.
    p.write("data/broken.json", "[{\"id\": ");
    std::thread::sleep(Duration::from_millis(1500));
    assert_eq!(first_name(), "Eiffel Tower (Paris)");
    assert_eq!(request(port, "GET", "/api/en/attractions?page=7", &[]).status, 200);

    // Config changes are picked up too: a new page size appears.
    std::fs::remove_file(p.path("data/broken.json")).unwrap();
    let cfg = p
        .read("folio.toml")
        .replace("page_sizes = [10, 20, 50, 100]", "page_sizes = [10, 20, 50, 100, 5]");
    p.write("folio.toml", cfg);
    wait_until("the page size 5", || {
        request(port, "GET", "/api/en/attractions?per_page=5&page=14", &[]).status == 200
    });
}

#[test]
fn folio_serve_does_not_rebuild_when_nothing_changed() {
    use std::io::{BufRead, BufReader, Read};
    use std::process::Stdio;
    // A rebuild reads every input; a watcher that took those reads for changes would
    // rebuild forever.
    let p = fixture("");
    let mut child = Command::new(BIN)
        .args(["serve", "--port", "0"])
        .current_dir(p.dir.path())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let mut out = BufReader::new(child.stdout.take().unwrap());
    let mut url = String::new();
    out.read_line(&mut url).unwrap();
    let port: u16 = url.trim().trim_end_matches('/').rsplit(':').next().unwrap().parse().unwrap();
    // Requests read files too.
    for _ in 0..5 {
        assert_eq!(request(port, "GET", "/api/en/attractions", &[]).status, 200);
    }
    std::thread::sleep(Duration::from_secs(3));
    child.kill().unwrap();
    child.wait().unwrap();
    let mut rest = String::new();
    out.read_to_string(&mut rest).unwrap();
    assert!(!rest.contains("rebuilt"), "an idle serve rebuilt:\n{rest}");
}

#[test]
fn folio_serve_validators_change_with_the_bytes_only() {
    let p = fixture("");
    let (_server, _url, port) = serve(p.dir.path());
    let validators = |target: &str| {
        let res = request(port, "GET", target, &[]);
        assert_eq!(res.status, 200, "{target}");
        let etag = res.header("etag").expect("an ETag").to_string();
        (etag, res.header("last-modified").expect("a Last-Modified").to_string(), res.body)
    };
    let (first, last) = ("/api/en/attractions", "/api/en/attractions?page=7");
    let (first_tag, _, first_body) = validators(first);
    let (last_tag, last_date, _) = validators(last);
    assert_ne!(first_tag, last_tag);
    p.write(
        "data/attractions.csv",
        p.read("data/attractions.csv").replace("Eiffel Tower,", "Eiffel Tower (Paris),"),
    );
    wait_until("the rebuild", || validators(first).2 != first_body);

    // The changed page has a new tag and answers its old one in full.
    let (new_tag, _, _) = validators(first);
    assert_ne!(new_tag, first_tag);
    assert_eq!(request(port, "GET", first, &[("If-None-Match", &first_tag)]).status, 200);
    // The untouched page keeps both validators, so clients revalidate it for free.
    assert_eq!(validators(last).0, last_tag);
    assert_eq!(validators(last).1, last_date);
    let res = request(port, "GET", last, &[("If-None-Match", &last_tag)]);
    assert_eq!((res.status, res.body.len()), (304, 0));
    let res = request(port, "GET", last, &[("If-Modified-Since", &last_date)]);
    assert_eq!(res.status, 304);

    // A file changed behind serve's back (another build, a hand edit) gets a tag of its
    // own, never the stale recorded one.
    let page = p.path("output/api/en/attractions/10/7.json");
    let mut bytes = std::fs::read(&page).unwrap();
    bytes.push(b'\n');
    std::fs::write(&page, bytes).unwrap();
    assert_ne!(validators(last).0, last_tag);
    assert_eq!(request(port, "GET", last, &[("If-None-Match", &last_tag)]).status, 200);
}

#[test]
fn folio_serve_fails_when_the_first_build_fails() {
    let p = crate::harness::Project::new("");
    p.write("data/a.json", "[1]");
    let out = Command::new(BIN)
        .args(["serve", "--port", "0"])
        .current_dir(p.dir.path())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("data/a.json:1: expected an object"));
}
