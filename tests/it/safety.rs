//! Output safety (docs/config.md, "output"): no-op rebuilds touch nothing, foreign files are never touched,
//! failed builds leave the previous output as it was, and a kill is finished by the next build.

use std::fs;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::{BIN, Project, SAMPLE_RECORDS, folio_snapshot};

#[test]
fn a_no_op_rebuild_creates_modifies_and_retimes_nothing() {
    let p = Project::sample();
    let first = p.folio(&["build"]).success();
    // 80 files in output/ (with api/openapi.json and api/explorer.html) and 3 in hosting/
    // (nginx.conf, lighttpd.conf, folio.lua).
    assert_eq!(first.counts(), (83, 0, 0));
    let before = (p.stats("output"), p.stats("hosting"));
    std::thread::sleep(Duration::from_millis(20));
    let again = p.folio(&["build"]).success();
    assert_eq!(again.counts(), (0, 83, 0));
    assert_eq!(
        (p.stats("output"), p.stats("hosting")),
        before,
        "sizes, mtimes and inodes are all unchanged"
    );
}

#[test]
fn a_changed_record_retimes_only_the_files_whose_bytes_change() {
    // Hosts whose validators come from the file (nginx, Apache, Caddy, lighttpd: mtime and
    // size) keep an unchanged page's ETag and Last-Modified across rebuilds through this.
    let p = Project::sample();
    p.folio(&["build"]).success();
    let before = p.stats("output");
    std::thread::sleep(Duration::from_millis(20));
    p.write(
        "data/attractions.csv",
        p.read("data/attractions.csv").replace("Eiffel Tower,", "Eiffel Tower (Paris),"),
    );
    p.folio(&["build"]).success();
    let after = p.stats("output");
    let retimed: Vec<&String> = after.keys().filter(|rel| after[*rel] != before[*rel]).collect();
    // The record is on the first page of every size, in English and in the default
    // language; nothing else changed (the manifest is folio's own).
    assert!(retimed.contains(&&"api/en/attractions/10/1.json".to_string()), "{retimed:?}");
    assert!(retimed.contains(&&"api/attractions/100/1.json".to_string()), "{retimed:?}");
    for rel in &retimed {
        let english = rel.starts_with("api/en/") || rel.starts_with("api/attractions/");
        let page_one = english && rel.ends_with("/1.json");
        assert!(page_one || rel.starts_with(".folio"), "{rel} was rewritten: {retimed:?}");
    }
    assert_eq!(before["api/en/attractions/10/7.json"], after["api/en/attractions/10/7.json"]);
}

#[test]
fn a_page_deleted_or_edited_by_hand_is_written_again() {
    let p = Project::sample();
    p.folio(&["build"]).success();
    let page = "output/api/fr/attractions/10/3.json";
    let original = p.read(page);
    fs::remove_file(p.path(page)).unwrap();
    p.write("output/api/ja/attractions/20/1.json", "{}");
    let run = p.folio(&["build"]).success();
    // 83 files in all, api/openapi.json and api/explorer.html among them.
    assert_eq!(run.counts(), (2, 81, 0));
    assert_eq!(p.read(page), original);
}

#[test]
fn only_changed_pages_are_rewritten() {
    let p = Project::sample();
    p.folio(&["build"]).success();
    let csv = p.read("data/attractions.csv").replacen("Eiffel Tower,", "The Eiffel Tower,", 1);
    p.write("data/attractions.csv", csv);
    let before = p.stats("output");
    let run = p.folio(&["build"]).success();
    // Record 1 is on page 1 of each size: English and the unprefixed variant, 4 sizes each.
    // openapi.json and explorer.html depend on the config only: unchanged.
    assert_eq!(run.counts(), (8, 75, 0));
    let after = p.stats("output");
    let changed: Vec<&String> = after.keys().filter(|k| before.get(*k) != after.get(*k)).collect();
    assert_eq!(changed.len(), 9, "8 pages and the manifest: {changed:?}");
}

#[test]
fn foreign_files_are_never_touched_and_stale_pages_are_removed() {
    let p = Project::sample();
    p.write("output/robots.txt", "User-agent: *");
    p.write("output/api/en/attractions/notes.md", "mine");
    p.folio(&["build"]).success();
    // Drop the size 100: its pages go, the user's files stay.
    let cfg =
        p.read("folio.toml").replace("page_sizes = [10, 20, 50, 100]", "page_sizes = [10, 20, 50]");
    p.write("folio.toml", cfg);
    let run = p.folio(&["build"]).success();
    // openapi.json and explorer.html list the page sizes, so they change too: 6 written.
    assert_eq!(
        run.counts(),
        (6, 72, 5),
        "index.json, the per_page error document and two host configs change"
    );
    assert!(!p.path("output/api/en/attractions/100").exists());
    assert_eq!(p.read("output/robots.txt"), "User-agent: *");
    assert_eq!(p.read("output/api/en/attractions/notes.md"), "mine");
}

#[test]
fn a_foreign_file_at_a_folio_path_is_a_clash_and_nothing_is_written() {
    let p = Project::sample();
    p.write("output/api/index.json", "{\"mine\": true}");
    p.write("output/api/fr", "a file where a folder goes");
    let run = p.folio(&["build"]).fails(1);
    insta::assert_snapshot!(run.stderr(), @r"
    output/api/index.json: exists and was not written by folio
    output/api/fr: exists and was not written by folio
    error: 2 files are in the way; folio did not write them, so it will not overwrite them: remove them or choose another folder
    ");
    assert_eq!(p.tree("output").len(), 2, "nothing was written");
    assert_eq!(p.read("output/api/index.json"), "{\"mine\": true}");
}

#[test]
fn a_build_with_bad_data_leaves_the_previous_output_as_it_was() {
    let p = Project::sample();
    p.folio(&["build"]).success();
    let before = p.stats("output");
    let contents = p.tree("output");
    p.write("data/zz.jsonl", "{\"id\": 1}\n");
    p.write("data/attractions.csv", p.read("data/attractions.csv").replace("Eiffel", "Eiffel2"));
    p.folio(&["build"]).fails(1);
    assert_eq!(p.stats("output"), before);
    assert!(p.tree("output") == contents);
}

fn change_every_record(p: &Project) {
    let csv = p.read("data/attractions.csv").replace(",4.", ",3.");
    p.write("data/attractions.csv", csv);
    let jsonl = p.read("data/more/attractions.jsonl").replace("\"rating\": 4.", "\"rating\": 3.");
    p.write("data/more/attractions.jsonl", jsonl);
}

#[test]
fn an_io_error_while_staging_leaves_the_previous_output_as_it_was() {
    let p = Project::sample();
    p.folio(&["build"]).success();
    let before = p.stats("output");
    change_every_record(&p);
    let run = p.folio_env(&["build"], &[("FOLIO_FAULT", "write:40")]).fails(2);
    assert!(run.stderr().contains("injected fault: write #40"), "{}", run.stderr());
    assert!(
        run.stderr().contains("caused by:") || run.stderr().contains("error: writing"),
        "{}",
        run.stderr()
    );
    assert_eq!(p.stats("output"), before, "not one file created, changed or re-timed");
    p.folio(&["build"]).success();
    assert!(p.read("output/api/en/attractions/10/1.json").contains("\"rating\":3.7"));
}

#[test]
fn an_io_error_writing_the_journal_removes_what_was_staged() {
    // The journal is the last write before the commit point, after each changed file
    // (counted by the same build on a twin): a full disk there leaves the folder, and the
    // disk, as the build found them, with no staging folder holding the pages.
    let twin = Project::sample();
    twin.folio(&["build"]).success();
    change_every_record(&twin);
    let said = twin.folio(&["build"]).success();
    let said = format!("{}{}", said.stdout(), said.stderr());
    let changed: u64 = (said.split(" files written").next())
        .and_then(|s| s.rsplit(' ').next())
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("no count of files written: {said}"));
    let journal = format!("write:{}", changed + 1);
    let p = Project::sample();
    p.folio(&["build"]).success();
    let before = p.stats("output");
    change_every_record(&p);
    let run = p.folio_env(&["build"], &[("FOLIO_FAULT", &journal)]).fails(2);
    let fault = format!("injected fault: write #{}", changed + 1);
    assert!(run.stderr().contains(&fault), "{}", run.stderr());
    assert!(run.stderr().contains("journal.json"), "the journal's write failed: {}", run.stderr());
    assert!(!p.path("output/.folio-staging").exists(), "the staged pages were removed");
    assert_eq!(p.stats("output"), before, "not one file created, changed or re-timed");
    p.folio(&["build"]).success();
    assert!(p.read("output/api/en/attractions/10/1.json").contains("\"rating\":3.7"));
}

#[test]
fn an_io_error_during_the_switch_is_finished_by_the_next_build() {
    let p = Project::sample();
    p.folio(&["build"]).success();
    let old = p.tree("output");
    change_every_record(&p);
    let fresh = Project::sample();
    change_every_record(&fresh);
    fresh.folio(&["build"]).success();
    let new = fresh.tree("output");

    p.folio_env(&["build"], &[("FOLIO_FAULT", "rename:30")]).fails(2);
    assert_each_file_old_or_new(&p, &old, &new);
    let run = p.folio(&["build"]).success();
    let mut now = p.tree("output");
    now.remove(".folio-manifest.json");
    let mut want = new.clone();
    want.remove(".folio-manifest.json");
    assert!(now == want, "the next build completes the switch");
    assert!(!p.path("output/.folio-staging").exists());
    assert_eq!(
        run.counts().0,
        0,
        "the interrupted switch was finished before the build, so nothing is left to write"
    );
}

fn assert_each_file_old_or_new(
    p: &Project,
    old: &std::collections::BTreeMap<String, Vec<u8>>,
    new: &std::collections::BTreeMap<String, Vec<u8>>,
) {
    let now = p.tree("output");
    for (path, bytes) in &now {
        if path.starts_with(".folio-staging/")
            || path == ".folio-manifest.json"
            || path == ".folio-manifest.json.tmp"
        {
            continue;
        }
        assert!(
            old.get(path) == Some(bytes) || new.get(path) == Some(bytes),
            "{path} is neither the old nor the new content"
        );
    }
    for path in old.keys().filter(|k| new.contains_key(*k)) {
        assert!(now.contains_key(path), "{path} vanished");
    }
}

/// Writes `n` records as one JSON array, every record's text depending on `version`.
fn large_data(p: &Project, n: usize, version: u32) {
    let mut out = String::from("[\n");
    for i in 0..n {
        if i > 0 {
            out.push_str(",\n");
        }
        out.push_str(&format!(
            "{{\"id\": {i}, \"name\": {{\"en\": \"Place {i} v{version}\", \"fr\": \"Lieu {i} v{version}\"}}, \"rating\": {}}}",
            (i % 50) as f64 / 10.0
        ));
    }
    out.push_str("\n]\n");
    p.write("data/big.json", out);
}

#[test]
fn a_kill_during_a_large_build_leaves_each_file_old_or_new_and_the_next_build_completes() {
    let config = r#"
        [listing]
        languages = ["en", "fr"]
        page_sizes = [5, 10]
        default_page_size = 5
        [fields.name]
        localized = true
        [hosting]
        targets = []
    "#;
    let fresh = Project::new(config);
    large_data(&fresh, 10_000, 2);
    let started = Instant::now();
    fresh.folio(&["build"]).success();
    let full = started.elapsed();
    let new = fresh.tree("output");

    let p = Project::new(config);
    large_data(&p, 10_000, 1);
    p.folio(&["build"]).success();
    let old = p.tree("output");
    large_data(&p, 10_000, 2);
    let mut interrupted = 0;
    for fraction in [0.5, 0.75, 0.9, 0.97] {
        let mut child = Command::new(BIN)
            .arg("build")
            .current_dir(p.dir.path())
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(full.mul_f64(fraction));
        // SIGKILL: no destructor, no cleanup.
        let killed = child.kill().is_ok();
        let status = child.wait().unwrap();
        if killed && !status.success() {
            interrupted += 1;
        }
        assert_each_file_old_or_new(&p, &old, &new);
        let now = p.tree("output");
        let fresh_files =
            now.iter().filter(|(k, v)| old.get(*k) != Some(*v) && new.get(*k) == Some(*v)).count();
        eprintln!(
            "killed at {fraction}: {fresh_files} files already new, journal committed: {}",
            p.path("output/.folio-staging/commit.json").exists()
        );
        // Restore the old tree for the next attempt, through folio itself.
        large_data(&p, 10_000, 1);
        p.folio(&["build"]).success();
        assert!(
            p.tree("output")
                .iter()
                .filter(|(k, _)| !k.starts_with(".folio"))
                .all(|(k, v)| old.get(k) == Some(v))
        );
        large_data(&p, 10_000, 2);
    }
    eprintln!("{interrupted} of 4 builds were killed before they finished (full build: {full:?})");
    p.folio(&["build"]).success();
    let mut now = p.tree("output");
    now.remove(".folio-manifest.json");
    let mut want = new;
    want.remove(".folio-manifest.json");
    assert!(now == want, "after the kills, a build gives exactly the new tree");
}

/// Adds `entries` to the manifest of `output/`, each listed like a file folio wrote.
fn tamper_manifest(p: &Project, entries: &[&str]) {
    let mut m = p.json("output/.folio-manifest.json");
    for e in entries {
        m["files"][*e] =
            serde_json::json!({"hash": "0123456789abcdef0123456789abcdef", "size": 6, "mtime": 1});
    }
    p.write("output/.folio-manifest.json", m.to_string());
}

#[test]
fn a_hostile_manifest_never_reaches_outside_output() {
    let p = Project::sample();
    p.folio(&["build"]).success();
    // Victims outside output/, each named by a manifest entry as if folio had written it.
    p.write("victim.txt", "keep");
    p.write("outside/secret.txt", "keep");
    let abs = p.path("victim.txt").to_string_lossy().into_owned();
    std::os::unix::fs::symlink(p.path("outside"), p.path("output/api/up")).unwrap();
    let hostile = ["../victim.txt", abs.as_str(), "api/../../victim.txt", "api/up/secret.txt"];
    tamper_manifest(&p, &hostile);
    // Each entry is named in a warning (the absolute one as `[PROJECT]/victim.txt`), the
    // symlinked one as not a plain folder on its way, and the build goes on.
    insta::assert_snapshot!("hostile_manifest", folio_snapshot(p.dir.path(), &["build"]));
    assert_eq!(p.read("victim.txt"), "keep");
    assert_eq!(p.read("outside/secret.txt"), "keep");
    assert!(p.path("output/api/up").is_symlink(), "the symlink is not folio's either");
    // The rewritten manifest lists none of them: the next build has nothing to warn about.
    let again = p.folio(&["build"]).success();
    assert!(again.stderr().is_empty(), "{}", again.stderr());
    assert_eq!(again.counts(), (0, 83, 0));
}

#[test]
fn a_hostile_journal_is_not_acted_on_either() {
    let p = Project::sample();
    p.folio(&["build"]).success();
    p.write("victim.txt", "keep");
    // A committed journal as a killed build leaves it, with hostile paths added.
    let manifest = p.json("output/.folio-manifest.json");
    let files: Vec<serde_json::Value> = manifest["files"]
        .as_object()
        .unwrap()
        .iter()
        .map(|(rel, e)| serde_json::json!({"rel": rel, "hash": e["hash"], "size": e["size"], "mtime": e["mtime"]}))
        .collect();
    let journal = serde_json::json!({
        "renames": ["../../victim.txt"],
        "removals": ["../victim.txt", "/etc/hostname"],
        "files": files,
        "fingerprint": manifest["fingerprint"],
        "records": SAMPLE_RECORDS,
    });
    p.write("output/.folio-staging/commit.json", journal.to_string());
    let run = p.folio(&["build"]).success();
    assert!(
        run.stderr()
            .contains("output/.folio-staging/commit.json: entry `../victim.txt` was not acted on"),
        "{}",
        run.stderr()
    );
    assert_eq!(p.read("victim.txt"), "keep");
    assert!(!p.path("output/.folio-staging").exists());
}

#[test]
fn manifests_folio_cannot_read_are_refused_with_the_way_out() {
    let p = Project::sample();
    p.folio(&["build"]).success();
    let before = p.stats("output");
    let mut m = p.json("output/.folio-manifest.json");
    m["version"] = serde_json::json!(2);
    p.write("output/.folio-manifest.json", m.to_string());
    let run = p.folio(&["build"]).fails(1);
    insta::assert_snapshot!(run.stderr(), @"error: `output/.folio-manifest.json`: it was written by another folio version (manifest format 2; this folio reads format 1); rebuild with that folio, or remove the files it lists and this manifest");
    p.write("output/.folio-manifest.json", "{\"files\": [");
    insta::assert_snapshot!("unreadable_manifest", folio_snapshot(p.dir.path(), &["build"]));
    let mut after = p.stats("output");
    after.remove(".folio-manifest.json");
    let mut before = before;
    before.remove(".folio-manifest.json");
    assert_eq!(after, before, "nothing else was touched");
}

#[test]
fn symlinks_at_folios_own_names_are_never_written_through() {
    let p = Project::sample();
    p.folio(&["build"]).success();
    p.write("precious.txt", "keep");
    // Where folio stages its work: refused, not followed.
    std::os::unix::fs::symlink(p.path("."), p.path("output/.folio-staging")).unwrap();
    let run = p.folio(&["build"]).fails(1);
    assert!(
        run.stderr().contains("`output/.folio-staging` is not a folder folio made"),
        "{}",
        run.stderr()
    );
    fs::remove_file(p.path("output/.folio-staging")).unwrap();
    // folio's temporary name for the manifest: replaced, never written through.
    std::os::unix::fs::symlink(p.path("precious.txt"), p.path("output/.folio-manifest.json.tmp"))
        .unwrap();
    let csv = p.read("data/attractions.csv").replacen("Eiffel Tower,", "Tour,", 1);
    p.write("data/attractions.csv", csv);
    p.folio(&["build"]).success();
    assert_eq!(p.read("precious.txt"), "keep");
    assert!(!p.path("output/.folio-manifest.json.tmp").exists());
}

/// The sample with every record's rating changed, so that every page differs.
fn sample_data_variant(p: &Project, dir: &str) {
    crate::harness::copy_dir(&p.path("data"), &p.path(dir));
    let csv = p.read(&format!("{dir}/attractions.csv")).replace(",4.", ",3.");
    p.write(&format!("{dir}/attractions.csv"), csv);
}

/// What a clean build of `data` (a folder of `p`) writes into output/, manifest aside.
fn clean_build(p: &Project, data: &str) -> std::collections::BTreeMap<String, Vec<u8>> {
    let fresh = Project::new(&p.read("folio.toml"));
    crate::harness::copy_dir(&p.path(data), &fresh.path("data"));
    fresh.folio(&["build"]).success();
    without_manifest(fresh.tree("output"))
}

fn without_manifest(
    mut tree: std::collections::BTreeMap<String, Vec<u8>>,
) -> std::collections::BTreeMap<String, Vec<u8>> {
    tree.remove(".folio-manifest.json");
    tree
}

#[test]
fn a_second_build_waits_for_the_first_and_the_output_is_one_whole_build() {
    use crate::harness::Gate;
    let p = Project::sample();
    sample_data_variant(&p, "other");
    let (one, two) = (clean_build(&p, "data"), clean_build(&p, "other"));
    assert!(one != two);
    // The first build stops midway through staging, holding output/.
    let gate = Gate::new();
    let (mut first, _) = p.spawn_folio(&["build", "--data", "data"], &gate.env("wait-write:10"));
    gate.wait_reached(&mut first);
    let (mut second, said) = p.spawn_folio(&["build", "--data", "other"], &[]);
    said.wait_for(
        "folio: waiting for another folio command (a build or a deploy) to finish with `output`",
    );
    // Refusing instead of waiting, when asked to; a deploy waits (or refuses) the same way.
    let run = p.folio(&["build", "--no-wait"]).fails(1);
    assert!(
        run.stderr().contains("another folio command (a build or a deploy) is using `output`"),
        "{}",
        run.stderr()
    );
    let www = p.path("www");
    let run =
        p.folio(&["deploy", "--no-wait", "--to", &format!("file://{}", www.display())]).fails(1);
    assert!(run.stderr().contains("is using `output`"), "{}", run.stderr());
    gate.open();
    assert!(first.wait().unwrap().success());
    assert!(second.wait().unwrap().success(), "{}", said.all());
    assert!(
        without_manifest(p.tree("output")) == two,
        "the second build ran after the first, whole"
    );
    // The next build equals a clean build of its data, and so does the one after a no-op.
    p.folio(&["build"]).success();
    assert!(without_manifest(p.tree("output")) == one);
}

#[test]
fn a_lock_file_removed_midway_never_lets_two_builds_write_output() {
    use crate::harness::Gate;
    let p = Project::sample();
    sample_data_variant(&p, "other");
    p.folio(&["build"]).success();
    let without_lock = |mut tree: std::collections::BTreeMap<String, Vec<u8>>| {
        tree.remove(".folio-lock");
        tree
    };
    let before = without_lock(p.tree("output"));
    // The first build stops midway through staging, holding output/; then its lock file
    // goes (a cleanup step, a hand), and a second build takes a lock file of its own.
    let gate = Gate::new();
    let (mut first, first_said) =
        p.spawn_folio(&["build", "--data", "other"], &gate.env("wait-write:10"));
    gate.wait_reached(&mut first);
    std::fs::remove_file(p.path("output/.folio-lock")).unwrap();
    let staging = p.path("output/.folio-staging");
    assert!(staging.is_dir(), "the first build is staging");
    let run = p.folio(&["build", "--no-wait", "--data", "other"]).fails(1);
    assert!(
        run.stderr().contains("is being written by another build that is running now"),
        "{}",
        run.stderr()
    );
    assert!(staging.is_dir(), "the live build's staging folder is not removed");
    // The first, let go on, finds its lock file gone and switches nothing.
    gate.open();
    let status = first.wait().unwrap();
    assert_eq!(status.code(), Some(1), "{}", first_said.all());
    assert!(
        first_said.all().contains("was replaced or removed while this command held it"),
        "{}",
        first_said.all()
    );
    assert!(without_lock(p.tree("output")) == before, "nothing was switched");
    // The next build is whole.
    p.folio(&["build", "--data", "other"]).success();
}

#[test]
fn builds_started_together_leave_one_whole_build_every_time() {
    let p = Project::sample();
    sample_data_variant(&p, "other");
    let (one, two) = (clean_build(&p, "data"), clean_build(&p, "other"));
    for round in 0..6 {
        let spawn = |data: &str| {
            Command::new(BIN)
                .args(["build", "--quiet", "--data", data])
                .current_dir(p.dir.path())
                .env_remove("FOLIO_FAULT")
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap()
        };
        let (mut a, mut b) = if round % 2 == 0 {
            (spawn("data"), spawn("other"))
        } else {
            (spawn("other"), spawn("data"))
        };
        assert!(a.wait().unwrap().success() && b.wait().unwrap().success(), "round {round}");
        let now = without_manifest(p.tree("output"));
        assert!(now == one || now == two, "round {round}: output/ is neither build");
        // The next build must not trust a tree another build left: it equals a clean one.
        p.folio(&["build", "--data", "other"]).success();
        assert!(without_manifest(p.tree("output")) == two, "round {round}");
    }
}

#[test]
fn a_failed_switch_is_refused_by_deploy_and_finished_by_the_next_build() {
    let p = Project::sample();
    p.folio(&["build"]).success();
    change_every_record(&p);
    let run = p.folio_env(&["build"], &[("FOLIO_FAULT", "rename:30")]).fails(2);
    assert!(
        run.stderr().contains("the switch into `output` failed midway"),
        "the error says what state the folder is in: {}",
        run.stderr()
    );
    let www = p.path("www");
    let run = p.folio(&["deploy", "--to", &format!("file://{}", www.display())]).fails(1);
    assert!(run.stderr().contains("a build is half switched into `output`"), "{}", run.stderr());
    assert!(!www.exists(), "nothing published");
    // The preview renders from the data, never from the output folder: it answers the
    // changed records whatever state the folder is in.
    let served = crate::harness::serve(p.dir.path());
    let page: serde_json::Value =
        serde_json::from_slice(&crate::harness::fetch(served.port, "/api/attractions")).unwrap();
    assert_eq!(page["data"][0]["rating"], 3.7, "{page}");
    drop(served);
    p.folio(&["build"]).success();
    p.folio(&["deploy", "--to", &format!("file://{}", www.display())]).success();
}

#[test]
fn builds_beside_a_running_serve_are_their_own_and_the_preview_stays_whole() {
    let p = Project::sample();
    let cfg = p
        .read("folio.toml")
        .replace("base_url = \"\"", "base_url = \"https://example.org/travel\"");
    p.write("folio.toml", cfg);
    let served = crate::harness::serve(p.dir.path());
    for round in 0..4 {
        // The data changes: serve reloads its listing while the build writes output/.
        let name = format!("Eiffel Tower ({round})");
        let csv = p.read("data/attractions.csv");
        let csv = match csv.find("Eiffel Tower") {
            Some(at) => {
                let end = at + csv[at..].find(',').unwrap();
                format!("{}{name}{}", &csv[..at], &csv[end..])
            }
            None => unreachable!("the sample has the Eiffel Tower"),
        };
        p.write("data/attractions.csv", csv);
        p.folio(&["build", "--quiet"]).success();
        assert!(without_manifest(p.tree("output")) == clean_build(&p, "data"), "round {round}");
        let start = Instant::now();
        loop {
            let res = crate::table::request(served.port, "GET", "/travel/api/en/attractions", &[]);
            let local = format!("http://127.0.0.1:{}/travel/api/en/attractions", served.port);
            assert!(res.status != 200 || String::from_utf8_lossy(&res.body).contains(&local));
            if res.status == 200 && String::from_utf8_lossy(&res.body).contains(&name) {
                break;
            }
            assert!(start.elapsed() < Duration::from_secs(60), "round {round}: no rebuild");
            std::thread::sleep(Duration::from_millis(50));
        }
    }
    let page = p.read("output/api/en/attractions/10/1.json");
    assert!(page.contains("\"https://example.org/travel/api/en/attractions?page=2"), "{page}");
    assert!(!page.contains("127.0.0.1"), "nothing of the preview is in output/");
}
