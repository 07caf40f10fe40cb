//! `folio deploy --from-data`: the data rendered in memory and published with the same
//! plan, order, lease, record and purge as a build's deploy, so that the store is object
//! for object and header for header what `folio build && folio deploy` makes; nothing is
//! written on the machine; a killed one is finished by the next deploy of either kind.

use super::*;

/// The sample with siblings in both codecs published, and Netlify's files in `output/`
/// (which a store that keeps headers leaves out, as for a build).
fn project() -> Project {
    let p = Project::sample();
    set_config(&p, "targets = [\"nginx\", \"lighttpd\"]", "targets = [\"nginx\", \"netlify\"]");
    let cfg = p.read("folio.toml")
        + "\n[output]\nprecompress = [\"gzip\", \"br\"]\n\n[deploy]\nsiblings = true\n";
    p.write("folio.toml", cfg);
    p
}

/// What the record says of each object: its bytes' MD5 and xxh3, its size and headers
/// (not the ETag, which on a folder is its inode and time, nor when it was modified).
fn recorded(remote: &Remote) -> BTreeMap<String, String> {
    (remote.record().objects.into_iter())
        .map(|(k, p)| (k, format!("{:?} {:?} {} {:?}", p.md5, p.xxh3, p.size, p.headers)))
        .collect()
}

/// Both stores hold the same objects, with the same attributes (where the store keeps
/// any) and the same record of them.
fn same_stores(built: &Remote, rendered: &Remote, when: &str) {
    let objects = built.objects();
    assert!(objects.len() > 200, "{when}: {} objects", objects.len());
    let theirs = rendered.objects();
    let keys = |m: &BTreeMap<String, Vec<u8>>| m.keys().cloned().collect::<Vec<_>>();
    assert_eq!(keys(&objects), keys(&theirs), "{when}: the same keys");
    for (key, bytes) in &objects {
        assert!(theirs[key] == *bytes, "{when}: {key} differs");
        if built.store() != "folder" {
            assert_eq!(
                built.attributes(key),
                rendered.attributes(key),
                "{when}: {key}'s attributes"
            );
        }
    }
    assert_eq!(recorded(built), recorded(rendered), "{when}: the records");
}

fn from_the_data_the_store_is_what_a_build_and_its_deploy_make(built: &Remote) {
    let rendered = built.beside("from-data");
    let p = project();
    let tmp = tempfile::tempdir().unwrap();
    let tmpdir = [("TMPDIR", tmp.path().to_str().unwrap())];
    let before = p.tree("");
    let first = rendered.deploy_env(&p, &["--from-data"], &tmpdir).success();
    assert_eq!(p.tree(""), before, "nothing written in the project");
    assert!(!p.path("output").exists(), "no output folder");
    assert_eq!(std::fs::read_dir(tmp.path()).unwrap().count(), 0, "nothing in TMPDIR");
    p.folio(&["build"]).success();
    let built_first = built.deploy(&p, &[]).success();
    assert_eq!(counts(&first), counts(&built_first), "{}", first.stdout());
    same_stores(built, &rendered, "first deploy");

    // A no-op, then one record changed: the same plan both ways.
    let noop = rendered.deploy(&p, &["--from-data"]).success();
    assert_eq!(counts(&noop).0, 0, "{}", noop.stdout());
    rename_first_record(&p);
    let dry = rendered.deploy(&p, &["--from-data", "--dry-run"]).success();
    p.folio(&["build"]).success();
    assert_eq!(dry_plan(&dry), dry_plan(&built.deploy(&p, &["--dry-run"]).success()));
    let one = rendered.deploy(&p, &["--from-data"]).success();
    let built_one = built.deploy(&p, &[]).success();
    assert_eq!(counts(&one), counts(&built_one));
    assert!(counts(&one).0 > 0 && counts(&one).0 < 100, "{}", one.stdout());
    same_stores(built, &rendered, "one record changed");
}
on_every_store!(from_the_data_the_store_is_what_a_build_and_its_deploy_make, prefix = "built");

#[test]
fn from_the_data_refuses_what_a_build_refuses_and_sends_nothing() {
    let (_dir, remote) = folder();
    let p = project();
    p.write("data/bad.csv", "id,rating\n900,abc\n901,4.5\n900,1\n");
    let build = p.folio(&["build"]).fails(1);
    let deploy = remote.deploy(&p, &["--from-data"]).fails(1);
    let problems = |run: &Run| -> Vec<String> {
        run.stderr().lines().filter(|l| l.starts_with("data/")).map(str::to_string).collect()
    };
    assert!(problems(&build).len() >= 2, "{}", build.stderr());
    assert_eq!(problems(&deploy), problems(&build));
    assert!(remote.objects().is_empty(), "nothing sent");
    assert!(!p.path("output").exists(), "nothing written");
}

fn a_killed_deploy_from_the_data_is_finished_by_the_next_of_either_kind(remote: &Remote) {
    let kills =
        ["kill-record:1", "kill-upload:1", "kill-upload:40", "kill-delete:1", "kill-record:2"];
    for (at, kill) in kills.into_iter().enumerate() {
        // The next deploy is a build's on even kill points, from the data on odd ones.
        let by_build = at % 2 == 0;
        let p = Project::sample();
        let (purge, arg) = purge_arg(&p, "purge.json");
        remote.deploy(&p, &["--from-data", "--purge-list", &arg]).success();
        let at_a = remote.objects();
        // A second build of more records and one size fewer: new keys, changed, deleted.
        let mut jsonl = String::new();
        for id in 100..140 {
            jsonl.push_str(&format!("{{\"id\": {id}, \"name\": {{\"en\": \"Place {id}\"}}}}\n"));
        }
        p.write("data/grown.jsonl", jsonl);
        set_config(&p, "page_sizes = [10, 20, 50, 100]", "page_sizes = [10, 20, 50]");
        let fault = format!("{kill},lease:1");
        let args = ["--from-data", "--purge-list", &arg];
        let run = remote.deploy_env(&p, &args, &[("FOLIO_FAULT", &fault)]);
        assert_ne!(run.code(), Some(0), "{kill}: the deploy was killed");
        let at_cut = remote.objects();
        let short = [("FOLIO_FAULT", "lease:3")];
        if by_build {
            p.folio(&["build"]).success();
            remote.deploy_env(&p, &["--purge-list", &arg], &short).success();
        } else {
            remote.deploy_env(&p, &args, &short).success();
            p.folio(&["build"]).success();
        }
        let at_end = remote.objects();
        assert!(at_end == published(&p), "{kill}: the store is the second build exactly");
        let mut must = changed(&at_a, &at_cut);
        must.extend(changed(&at_cut, &at_end));
        let named = purged_objects(&purge);
        let missed: Vec<&String> = must.difference(&named).collect();
        assert!(missed.is_empty(), "{kill}: changed but never purged: {missed:?}");
        remote.wipe();
    }
}

#[test]
fn a_killed_deploy_from_the_data_is_finished_by_the_next_of_either_kind_folder() {
    let (_dir, remote) = folder();
    a_killed_deploy_from_the_data_is_finished_by_the_next_of_either_kind(&remote);
}

#[test]
fn a_killed_deploy_from_the_data_is_finished_by_the_next_of_either_kind_s3() {
    let Some(moto) = Moto::start(false) else { return };
    a_killed_deploy_from_the_data_is_finished_by_the_next_of_either_kind(&Remote::s3(&moto, "cut"));
}
