//! Deploys that do not finish: cut by a fault, killed at any step (then retried or
//! reverted), killed by SIGKILL midway, or facing a server that stops answering. The store
//! stays usable, nothing is deleted while an upload failed, and the next deploy finishes
//! the job and purges what changed.

use super::*;

fn a_deploy_cut_short_leaves_a_usable_store_and_the_next_finishes(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let old = published(&p);
    add_a_record(&p);
    p.folio(&["build"]).success();
    let new = published(&p);
    let cut = remote.deploy_env(&p, &[], &[("FOLIO_FAULT", "upload:20")]).fails(2);
    assert!(cut.stderr().contains("injected fault: upload #20"), "{}", cut.stderr());
    each_old_or_new(remote, &old, &new);
    let objects = remote.objects();
    assert_eq!(objects["api/index.json"], old["api/index.json"], "what links to pages goes last");
    let done = remote.deploy(&p, &[]).success();
    assert!(remote.objects() == new, "the next deploy finishes the job");
    eprintln!("after a cut at upload 20, the next deploy uploaded {}", counts(&done).0);
}
on_every_store!(a_deploy_cut_short_leaves_a_usable_store_and_the_next_finishes, prefix = "travel");

/// 40 more records (pages past the sample's last) and no page size 100 (its pages are
/// deleted): a build whose deploy uploads new keys, changes old ones and deletes some.
fn grow_and_drop_a_size(p: &Project) {
    let mut jsonl = String::new();
    for id in 100..140 {
        jsonl.push_str(&format!("{{\"id\": {id}, \"name\": {{\"en\": \"Place {id}\"}}}}\n"));
    }
    p.write("data/grown.jsonl", jsonl);
    set_config(p, "page_sizes = [10, 20, 50, 100]", "page_sizes = [10, 20, 50]");
}

fn back_to_the_sample(p: &Project) {
    std::fs::remove_file(p.path("data/grown.jsonl")).unwrap();
    set_config(p, "page_sizes = [10, 20, 50]", "page_sizes = [10, 20, 50, 100]");
}

fn a_deploy_killed_anywhere_is_purged_and_cleaned_up_by_the_next(remote: &Remote) {
    // The store is at build A, every change purged. A deploy of build B is killed (an
    // abort at a chosen step: no cleanup, as with kill -9). Then the next deploy either
    // retries B (what a re-run CI job does: what the killed one uploaded is already
    // right, and must still be purged) or publishes A again (B's extra pages are orphans
    // no record knows: they must go). The store must then equal that build exactly, and
    // the purge list must name every key whose object changed since A: what the killed
    // deploy changed and what the finishing one changed.
    //
    // The folder store runs every kill point both ways. A network store runs each kill
    // point one way, retried and reverted in turn (the other way on the next kill point):
    // each pair costs two deploys through a server and a lease's lapse, and the folder
    // store already proves the step; the network stores prove their requests.
    let kills =
        ["kill-record:1", "kill-upload:1", "kill-upload:40", "kill-delete:1", "kill-record:2"];
    let every_way = remote.store() == "folder";
    for (at, kill) in kills.into_iter().enumerate() {
        for retry in [true, false] {
            if !every_way && retry != (at % 2 == 0) {
                continue;
            }
            let p = Project::sample();
            p.folio(&["build"]).success();
            let (purge, arg) = purge_arg(&p, "purge.json");
            remote.deploy(&p, &["--purge-list", &arg]).success();
            let at_a = remote.objects();
            let a = published(&p);
            grow_and_drop_a_size(&p);
            p.folio(&["build"]).success();
            let b = published(&p);
            // A killed deploy leaves its lease on the store: a short one (1 s), so that
            // the next deploy need not wait the 30 s a real one lasts.
            let fault = format!("{kill},lease:1");
            let run = remote.deploy_env(&p, &["--purge-list", &arg], &[("FOLIO_FAULT", &fault)]);
            assert_ne!(run.code(), Some(0), "{kill}: the deploy was killed");
            let at_cut = remote.objects();
            each_old_or_new(remote, &a, &b);
            if !retry {
                back_to_the_sample(&p);
                p.folio(&["build"]).success();
            }
            // The finishing deploy waits out the killed one's lease (its own lifetime), then
            // holds its own: 3 s, as a renewal through moto on a busy 2-core runner can come
            // later than a shorter lease's fence (two thirds of it), as below.
            let short = [("FOLIO_FAULT", "lease:3")];
            let done = remote.deploy_env(&p, &["--purge-list", &arg], &short).success();
            let at_end = remote.objects();
            let what = if retry { "retried" } else { "reverted" };
            assert!(at_end == published(&p), "{kill}, {what}: the store is that build exactly");
            let left = remote.leftovers();
            assert!(
                left.is_empty(),
                "{kill}, {what}: a killed write's temporary files stay: {left:?}"
            );
            let mut must = changed(&at_a, &at_cut);
            must.extend(changed(&at_cut, &at_end));
            let named = purged_objects(&purge);
            let missed: Vec<&String> = must.difference(&named).collect();
            assert!(missed.is_empty(), "{kill}, {what}: changed but never purged: {missed:?}");
            eprintln!(
                "{kill}, {what}: the killed deploy changed {} objects, the next uploaded {} and deleted {}, and purged {} ({} needed)",
                changed(&at_a, &at_cut).len(),
                counts(&done).0,
                counts(&done).2,
                named.len(),
                must.len()
            );
            remote.wipe();
        }
    }
}
on_every_store!(a_deploy_killed_anywhere_is_purged_and_cleaned_up_by_the_next, prefix = "travel");

#[test]
fn s3_a_killed_deploy_is_finished_and_purged_by_the_next() {
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "big");
    // 600 records: about 540 objects, a few seconds through moto.
    let p = Project::sample();
    let mut jsonl = String::new();
    for id in 100..700 {
        jsonl.push_str(&format!(
            "{{\"id\": {id}, \"name\": {{\"en\": \"Place {id}\"}}, \"rating\": 3.5}}\n"
        ));
    }
    p.write("data/generated.jsonl", &jsonl);
    p.folio(&["build"]).success();
    let (purge, arg) = purge_arg(&p, "purge.json");
    let started = Instant::now();
    remote.deploy(&p, &["--purge-list", &arg]).success();
    let full = started.elapsed();
    let old = published(&p);
    p.write("data/generated.jsonl", jsonl.replace("3.5", "3.6"));
    p.folio(&["build"]).success();
    let new = published(&p);
    let mut child = remote
        .command(&p, &["--purge-list", &arg])
        .env("FOLIO_FAULT", "lease:1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(full.mul_f64(0.5));
    child.kill().unwrap(); // SIGKILL: nothing is finished or cleaned up
    let status = child.wait().unwrap();
    eprintln!("killed after {:?} of a {full:?} deploy: {status}", full.mul_f64(0.5));
    each_old_or_new(&remote, &old, &new);
    // The finishing deploy waits out the killed one's lease, then holds its own: a longer
    // one, as 540 uploads through moto on a busy runner can delay a renewal past 1 s's fence.
    remote.deploy_env(&p, &["--purge-list", &arg], &[("FOLIO_FAULT", "lease:3")]).success();
    assert!(remote.objects() == new);
    let missed: Vec<String> =
        changed(&old, &new).difference(&purged_objects(&purge)).cloned().collect();
    assert!(missed.is_empty(), "changed but never purged: {missed:?}");
}

#[test]
fn s3_a_server_that_stops_midway_gives_exit_2_and_nothing_is_deleted() {
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "travel");
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let old = published(&p);
    // The next build drops a page size (5 stale pages) and changes every page.
    set_config(&p, "page_sizes = [10, 20, 50, 100]", "page_sizes = [10, 20, 50]");
    add_a_record(&p);
    p.folio(&["build"]).success();
    let new = published(&p);
    // The proxy cuts after the record's intent and nine uploads.
    let proxy = Proxy::start(moto.port, 10);
    // The cut deploy cannot reach the store to give its lease back: a 5 s one (not a real
    // 30 s) lapses before the next deploy has long to wait, and outlasts the retries.
    let short = [("FOLIO_FAULT", "lease:5")];
    let run = remote.through(proxy.port).deploy_env(&p, &[], &short).fails(2);
    assert!(run.stderr().contains("error: uploading `api/"), "names the object: {}", run.stderr());
    each_old_or_new(&remote, &old, &new);
    let objects = remote.objects();
    for stale in old.keys().filter(|k| k.contains("/100/")) {
        assert!(objects.contains_key(stale), "{stale} was deleted although an upload failed");
    }
    remote.deploy(&p, &[]).success();
    assert!(remote.objects() == new);
}
