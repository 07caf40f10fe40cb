//! What a deploy publishes and what it refuses, on every store: the first deploy mirrors
//! `output/` and a rerun or a fresh clone sends nothing, stale objects go while foreign ones
//! stay (`--max-deletes` guarding), refusals name their reason, and the deploy settings of
//! folio.toml (its URL, settings that need no rebuild).

use super::*;

fn first_deploy_mirrors_output_and_a_rerun_or_a_fresh_clone_uploads_nothing(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    let first = remote.deploy(&p, &[]).success();
    assert_eq!(counts(&first), (SAMPLE_OBJECTS, 0, 0));
    assert!(remote.objects() == published(&p), "the store holds output/, object for object");
    let again = remote.deploy(&p, &[]).success();
    assert_eq!(counts(&again), (0, SAMPLE_OBJECTS, 0));
    // A fresh clone in CI: another folder, the same sources, a new build.
    let clone = Project::sample();
    clone.folio(&["build"]).success();
    assert_eq!(counts(&remote.deploy(&clone, &[]).success()), (0, SAMPLE_OBJECTS, 0));
}
on_every_store!(
    first_deploy_mirrors_output_and_a_rerun_or_a_fresh_clone_uploads_nothing,
    prefix = "travel"
);

fn stale_objects_go_foreign_ones_stay_and_max_deletes_guards(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    remote.put_foreign("mine/notes.txt", b"not folio's");
    remote.put_foreign("api/en/attractions/notes.md", b"not folio's either");
    let before = remote.objects();
    set_config(&p, "page_sizes = [10, 20, 50, 100]", "page_sizes = [10, 20, 50]");
    p.folio(&["build"]).success();

    // The count, and the flag that would allow it.
    let refused = remote.snapshot(&p, &["--max-deletes", "4"]);
    insta::assert_snapshot!(format!("max_deletes_refused_{}", remote.store()), refused);
    assert!(remote.objects() == before, "nothing uploaded, nothing deleted");

    let run = remote.deploy(&p, &[]).success();
    assert_eq!(counts(&run).2, 5, "the five size-100 pages");
    let mut want = published(&p);
    want.insert("mine/notes.txt".into(), b"not folio's".to_vec());
    want.insert("api/en/attractions/notes.md".into(), b"not folio's either".to_vec());
    assert!(remote.objects() == want, "stale pages gone, foreign objects kept");
}
on_every_store!(stale_objects_go_foreign_ones_stay_and_max_deletes_guards, prefix = "");

fn refusals_name_the_reason(remote: &Remote) {
    let p = Project::sample();
    let run = remote.deploy(&p, &[]).fails(1);
    assert!(
        run.stderr().contains("no build in `output`: run `folio build`, then deploy"),
        "{}",
        run.stderr()
    );
    p.folio(&["build"]).success();
    p.write("output/.folio-staging/commit.json", "{}");
    let run = remote.deploy(&p, &[]).fails(1);
    assert!(run.stderr().contains("a build is half switched into `output`"), "{}", run.stderr());
    std::fs::remove_dir_all(p.path("output/.folio-staging")).unwrap();
    set_config(&p, "sort = [\"id\"]", "sort = [\"-id\"]");
    let run = remote.deploy(&p, &[]).fails(1);
    assert!(
        run.stderr().contains("`folio.toml` changed since `output` was built"),
        "{}",
        run.stderr()
    );
    // A build for another address (a preview's, say) is not published.
    p.folio(&["build", "--base-url", "http://127.0.0.1:8080/travel"]).success();
    let run = remote.deploy(&p, &[]).fails(1);
    assert!(
        run.stderr().contains("`output` was built for the base_url `http://127.0.0.1:8080/travel`, but folio.toml configures \"\" (root-relative links)"),
        "{}",
        run.stderr()
    );
    // A purge list that cannot be written is found out before anything is sent.
    p.folio(&["build"]).success();
    for (bad, what) in [("nowhere/purge.json", "in_no_folder"), ("data", "a_folder")] {
        let run = remote.snapshot(&p, &["--purge-list", p.path(bad).to_str().unwrap()]);
        // The same on every store.
        insta::assert_snapshot!(format!("purge_list_{what}"), run);
    }
    assert!(remote.objects().is_empty(), "nothing was sent");
}
on_every_store!(refusals_name_the_reason, prefix = "travel");

#[test]
fn the_deploy_url_can_come_from_the_config() {
    let (dir, _) = folder();
    let www = dir.path().join("www");
    let p = Project::sample();
    p.write(
        "folio.toml",
        format!("{}\n[deploy]\nurl = \"file://{}\"\n", p.read("folio.toml"), www.display()),
    );
    let run = p.folio(&["deploy"]).fails(1);
    assert!(run.stderr().contains("no build"), "{}", run.stderr());
    p.folio(&["build"]).success();
    let run = p.folio(&["deploy", "--quiet"]).success();
    assert!(run.stdout().is_empty());
    assert!(files(&www).contains_key("api/index.json"));
    std::fs::write(p.path("nothing.toml"), "").unwrap();
    let run = p.folio(&["deploy", "--config", "nothing.toml"]).fails(1);
    assert!(run.stderr().contains("nowhere to deploy"), "{}", run.stderr());
}

#[test]
fn a_comment_or_a_deploy_setting_needs_no_rebuild() {
    let (_dir, remote) = folder();
    let p = Project::sample();
    p.folio(&["build"]).success();
    p.write(
        "folio.toml",
        format!(
            "# a comment\n{}\n[deploy]\nconcurrency = 8\nmax_deletes = 10\n",
            p.read("folio.toml")
        ),
    );
    // What shapes the output is as it was: the deploy goes ahead, a build writes nothing.
    assert_eq!(counts(&remote.deploy(&p, &[]).success()).0, SAMPLE_OBJECTS);
    assert_eq!(p.folio(&["build"]).success().counts(), (0, 83, 0));
    // A setting that shapes the output still needs one.
    set_config(&p, "sort = [\"id\"]", "sort = [\"-id\"]");
    let run = remote.deploy(&p, &[]).fails(1);
    assert!(
        run.stderr().contains("changed since `output` was built, in what shapes the output"),
        "{}",
        run.stderr()
    );
}

/// A platform's configuration files (Cloudflare Pages', Netlify's, Vercel's) in `output/`
/// are for that platform: an object store would only serve them, so they are neither sent
/// nor purged there; a folder, which mirrors `output/`, gets them.
fn platform_configuration_goes_to_folders_only(remote: &Remote) {
    let p = Project::sample();
    set_config(&p, "targets = [\"nginx\", \"lighttpd\"]", "targets = [\"cloudflare\", \"vercel\"]");
    p.folio(&["build"]).success();
    let platform = folio::hosts::PLATFORM_CONFIG;
    let written: Vec<&str> =
        platform.iter().copied().filter(|f| p.path("output").join(f).is_file()).collect();
    assert!(written.len() >= 3, "the build writes them: {written:?}");
    let (purge, arg) = purge_arg(&p, "purge.json");
    remote.deploy(&p, &["--purge-list", &arg]).success();
    let objects = remote.objects();
    let purged = purged_objects(&purge);
    for file in written {
        assert_eq!(objects.contains_key(file), remote.store() == "folder", "{file}");
        let sent = remote.store() == "folder";
        assert_eq!(purged.iter().any(|k| k.ends_with(file)), sent, "{file}: {purged:?}");
    }
}
on_every_store!(platform_configuration_goes_to_folders_only, prefix = "site");
