//! The attacks on `folio deploy` that once broke it, each a test: a deploy paused past its
//! lease, a record that cannot be read (damaged, a newer folio's, a gzip bomb), bytes
//! replaced behind folio's back under its own metadata, purge lists to pipes and devices,
//! a `file://` target swapped for a symlink midway or overlapping the project, a read-only
//! `output/`, `build --data`, deploy URLs with escapes, spaces and non-ASCII letters, and a
//! refused mass delete that must send nothing. The interleavings no test could schedule by
//! hand are explored by the simulation (`folio::deploy::sim`, `tests/it/deploy/sim/`).

use std::io::Write;

use futures::StreamExt;

use super::*;

/// Builds `p` as a second build: one more record (every page changes) and one size
/// fewer (objects go).
fn second_build(p: &Project) {
    add_a_record(p);
    set_config(p, "page_sizes = [10, 20, 50, 100]", "page_sizes = [10, 20, 50]");
    p.folio(&["build"]).success();
}

#[test]
fn s3_a_deploy_paused_past_its_lease_sends_nothing_more_and_the_next_deploy_settles() {
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "travel");
    let a = Project::sample();
    a.folio(&["build"]).success();
    remote.deploy(&a, &[]).success();
    // A deploys build A2 (one size more: new objects) and is paused midway, past its
    // lease of 3 s, as a stopped container or a runner under memory pressure would be.
    set_config(&a, "page_sizes = [10, 20, 50, 100]", "page_sizes = [5, 10, 20, 50, 100]");
    add_a_record(&a);
    a.folio(&["build"]).success();
    let gate = Gate::new();
    let mut paused = remote.command(&a, &[]);
    paused.envs(gate.env("wait-upload:8,lease:3")).stdout(Stdio::null()).stderr(Stdio::piped());
    let mut paused = Running(paused.spawn().unwrap());
    let said = Stderr::of(&mut paused);
    gate.wait_reached(&mut paused);
    let pid = paused.id().to_string();
    Command::new("kill").args(["-STOP", &pid]).status().unwrap();
    gate.open();
    // B takes the lease over once it lapsed, and publishes its own build.
    let b = Project::sample();
    second_build(&b);
    remote.deploy_env(&b, &[], &[("FOLIO_FAULT", "lease:3")]).success();
    assert!(remote.objects() == published(&b), "B published its build, whole");
    // A wakes up: its lease is gone, so it sends nothing more.
    Command::new("kill").args(["-CONT", &pid]).status().unwrap();
    let code = paused.wait().unwrap().code();
    let said = said.all();
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("lost the deploy lease"), "{said}");
    // Whatever A had under way when it was paused, one more deploy of B leaves exactly B:
    // nothing of A's is left over, named in no record.
    remote.deploy_env(&b, &[], &[("FOLIO_FAULT", "lease:3")]).success();
    assert!(remote.objects() == published(&b), "exactly B, no orphan of A's");
    assert_eq!(counts(&remote.deploy(&b, &[]).success()).0, 0, "and the record agrees");
}

#[test]
fn s3_an_unreadable_record_stops_the_deploy_and_repair_surveys_the_store() {
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "travel");
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let first = published(&p);
    remote.put_foreign("theirs/report.csv", b"a,b\n");
    // The record is lost midway through the next deploy (truncated).
    second_build(&p);
    let good = remote.record().to_bytes();
    remote.put_foreign(RECORD, &good[..good.len() / 2]);
    let stopped = remote.deploy(&p, &[]).fails(1);
    let said = stopped.stderr();
    assert!(said.contains("cannot be read"), "{said}");
    // What is wrong with it, whatever its last four bytes say as a size.
    assert!(said.contains("cut short"), "{said}");
    assert!(!said.contains("decompresses to more than"), "{said}");
    assert!(said.contains("run `folio deploy --repair`"), "{said}");
    assert!(remote.objects().keys().all(|k| first.contains_key(k) || k == "theirs/report.csv"));
    // Another tool's object beside the API with the same MD5 metadata (Hugo's deploy writes
    // `md5chksum` too): not folio's, whatever that metadata says.
    let photo = b"not an image".to_vec();
    let (store, prefix) = remote.client();
    let mut attributes = object_store::Attributes::new();
    let md5 = folio::deploy::outgoing::md5_of(&photo);
    attributes.insert(
        object_store::Attribute::Metadata("md5chksum".into()),
        folio::deploy::record::md5_hex(&md5).into(),
    );
    let options = object_store::PutOptions { attributes, ..Default::default() };
    let key = object_store::path::Path::from(format!("{prefix}/images/photo.jpg"));
    let payload = object_store::PutPayload::from(photo.clone());
    runtime().block_on(store.put_opts(&key, payload, options)).unwrap();
    // --repair: every object surveyed, folio's stale ones deleted (by folio's own mark),
    // foreign ones kept and the one with MD5 metadata named, every key of the build purged.
    let (purge, arg) = purge_arg(&p, "purge.json");
    let run = remote.deploy(&p, &["--repair", "--purge-list", &arg]).success();
    assert!(
        run.stderr().contains("1 objects below the prefix that the build does not have carry an MD5 in `md5chksum` metadata but not folio's mark (another tool's, such as Hugo's or s3cmd's, or an earlier folio's): left as they are: `images/photo.jpg`"),
        "{}",
        run.stderr()
    );
    let mut want = published(&p);
    want.insert("theirs/report.csv".into(), b"a,b\n".to_vec());
    want.insert("images/photo.jpg".into(), photo);
    assert!(remote.objects() == want, "the build, and the foreign object");
    let purged = purged_objects(&purge);
    assert!(published(&p).keys().all(|k| purged.contains(k)), "every key of the build purged");
    assert_eq!(counts(&remote.deploy(&p, &[]).success()), (0, published(&p).len(), 0));
}

#[test]
fn s3_a_newer_record_and_a_gzip_bomb_are_refused_never_overwritten() {
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "travel");
    let p = Project::sample();
    p.folio(&["build"]).success();
    let gz = |text: &[u8]| {
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
        gz.write_all(text).unwrap();
        gz.finish().unwrap()
    };
    let newer = gz(br#"{"version": 5, "writer": "folio 9.9.9", "objects": {}}"#);
    remote.put_foreign(RECORD, &newer);
    for extra in [&[][..], &["--repair"]] {
        let refused = remote.deploy(&p, extra).fails(1);
        assert!(refused.stderr().contains("written by folio 9.9.9"), "{}", refused.stderr());
    }
    assert!(remote.objects().is_empty(), "nothing sent");
    // A bomb of 512 MB of spaces in about half a megabyte: stopped at 64 times its size.
    let mut bomb = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    let spaces = vec![b' '; 1 << 20];
    for _ in 0..512 {
        bomb.write_all(&spaces).unwrap();
    }
    remote.put_foreign(RECORD, &bomb.finish().unwrap());
    let refused = remote.deploy(&p, &[]).fails(1);
    assert!(refused.stderr().contains("decompresses to more than"), "{}", refused.stderr());
}

#[test]
fn s3_bytes_replaced_under_folios_own_metadata_are_repaired() {
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "travel");
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    // Other bytes of the same size, with folio's MD5 metadata of the right ones kept.
    let page = "api/en/attractions/10/3.json";
    let right = published(&p)[page].clone();
    let mut wrong = right.clone();
    wrong[2] = b'#';
    let (store, prefix) = remote.client();
    let md5 = folio::deploy::outgoing::md5_of(&right);
    // Its headers kept too: only the bytes differ.
    let (content_type, cache_control, _) = remote.headers(page);
    let mut attributes = object_store::Attributes::new();
    attributes.insert(object_store::Attribute::ContentType, content_type.unwrap().into());
    attributes.insert(object_store::Attribute::CacheControl, cache_control.unwrap().into());
    attributes.insert(
        object_store::Attribute::Metadata("md5chksum".into()),
        folio::deploy::record::md5_hex(&md5).into(),
    );
    let options = object_store::PutOptions { attributes, ..Default::default() };
    let key = object_store::path::Path::from(format!("{prefix}/{page}"));
    runtime()
        .block_on(store.put_opts(&key, object_store::PutPayload::from(wrong), options))
        .unwrap();
    let run = remote.deploy(&p, &[]).success();
    assert_eq!(counts(&run).0, 1, "the store's MD5 ETag is believed over the metadata");
    assert!(remote.objects()[page] == right);
}

#[test]
fn a_purge_list_goes_through_pipes_devices_and_stdout_and_replaces_only_files() {
    let (_dir, remote) = folder();
    let p = Project::sample();
    p.folio(&["build"]).success();
    // `-`: the list alone on stdout, the summary on stderr.
    let run = remote.deploy(&p, &["--purge-list", "-"]).success();
    let list: serde_json::Value = serde_json::from_str(&run.stdout())
        .unwrap_or_else(|e| panic!("stdout is the list alone: {e}\n{}", run.stdout()));
    assert!(!list["objects"].as_array().unwrap().is_empty());
    assert!(run.stderr().contains("folio deploy: file://"), "{}", run.stderr());
    // A FIFO, with a reader on the other end: written through, still a FIFO.
    add_a_record(&p);
    p.folio(&["build"]).success();
    let fifo = p.path("purge.fifo");
    assert!(Command::new("mkfifo").arg(&fifo).status().unwrap().success());
    let reader = {
        let fifo = fifo.clone();
        std::thread::spawn(move || std::fs::read_to_string(fifo).unwrap())
    };
    remote.deploy(&p, &["--purge-list", fifo.to_str().unwrap()]).success();
    let through: serde_json::Value = serde_json::from_str(&reader.join().unwrap()).unwrap();
    assert!(!through["objects"].as_array().unwrap().is_empty());
    use std::os::unix::fs::FileTypeExt;
    assert!(std::fs::symlink_metadata(&fifo).unwrap().file_type().is_fifo());
    // A FIFO that nothing reads: refused before anything is sent (exit 1), not hung on.
    rename_first_record(&p);
    p.folio(&["build"]).success();
    let before = remote.objects();
    let start = std::time::Instant::now();
    let run = remote.deploy(&p, &["--purge-list", fifo.to_str().unwrap()]).fails(1);
    assert!(start.elapsed() < std::time::Duration::from_secs(20), "{:?}", start.elapsed());
    assert!(
        run.stderr().contains(
            "it is a FIFO that nothing reads (none opened it within 2 s): start its reader first"
        ),
        "{}",
        run.stderr()
    );
    assert!(remote.objects() == before, "nothing was sent");
    // A FIFO whose reader goes before reading it all: the list was not delivered (exit 2),
    // not taken for a closed stdout (exit 0, silent).
    let closer = {
        let fifo = fifo.clone();
        std::thread::spawn(move || drop(std::fs::File::open(fifo).unwrap()))
    };
    std::thread::sleep(std::time::Duration::from_millis(100));
    let run = remote.deploy(&p, &["--purge-list", fifo.to_str().unwrap()]);
    closer.join().unwrap();
    assert_eq!(run.code(), Some(2), "{}", run.stderr());
    assert!(run.stderr().contains("its reader closed it before reading all"), "{}", run.stderr());
    // `/dev/stdout` when stdout is a pipe (`| jq`): written there, the summary on stderr.
    let run = remote.deploy(&p, &["--purge-list", "/dev/stdout"]).success();
    let list: serde_json::Value = serde_json::from_str(&run.stdout())
        .unwrap_or_else(|e| panic!("stdout is the list alone: {e}\n{}", run.stdout()));
    assert!(!list["objects"].as_array().unwrap().is_empty(), "the changes kept since");
    // A device that takes nothing: the failure is the deploy's (exit 2), the device stays,
    // and the changes are kept for the next purge list.
    rename_first_record(&p);
    p.folio(&["build"]).success();
    let run = remote.deploy(&p, &["--purge-list", "/dev/full"]);
    assert_eq!(run.code(), Some(2), "{}", run.stderr());
    assert!(run.stderr().contains("writing the purge list"), "{}", run.stderr());
    assert!(std::fs::metadata("/dev/full").unwrap().file_type().is_char_device());
    // A symlink to a regular file: the file gets the list, the link stays a link.
    let real = p.path("lists/purge.json");
    std::fs::create_dir_all(real.parent().unwrap()).unwrap();
    std::fs::write(&real, "old").unwrap();
    let link = p.path("purge-link.json");
    std::os::unix::fs::symlink(&real, &link).unwrap();
    remote.deploy(&p, &["--purge-list", link.to_str().unwrap()]).success();
    assert!(std::fs::symlink_metadata(&link).unwrap().file_type().is_symlink());
    let kept = purged_objects(&real);
    assert!(kept.iter().any(|k| k.contains("/en/")), "the changes /dev/full lost: {kept:?}");
}

/// A folder target after a first deploy, and a second build's deploy held at its third
/// upload while `midway` changes the target (given the target and a folder outside it).
struct Midway {
    code: Option<i32>,
    said: String,
    www: std::path::PathBuf,
    outside: std::path::PathBuf,
    _dir: tempfile::TempDir,
}

fn deploy_changed_midway(midway: impl FnOnce(&std::path::Path, &std::path::Path)) -> Midway {
    let (dir, remote) = folder();
    let Remote::Dir(www) = &remote else { unreachable!() };
    let www = www.clone();
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(&outside).unwrap();
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    second_build(&p);
    assert!(www.join("api/en/attractions/100/1.json").is_file(), "the first build's size 100");
    let gate = Gate::new();
    let mut deploy = remote.command(&p, &[]);
    deploy.envs(gate.env("wait-upload:3")).stdout(Stdio::null()).stderr(Stdio::piped());
    let mut deploy = Running(deploy.spawn().unwrap());
    let said = Stderr::of(&mut deploy);
    gate.wait_reached(&mut deploy);
    midway(&www, &outside);
    gate.open();
    let code = deploy.wait().unwrap().code();
    Midway { code, said: said.all(), www, outside, _dir: dir }
}

#[test]
fn a_folder_target_swapped_for_a_symlink_midway_is_never_written_through() {
    let m = deploy_changed_midway(|www, outside| {
        // The French folder becomes a symlink to a folder outside the target.
        let moved = www.parent().unwrap().join("moved-fr");
        std::fs::rename(www.join("api/fr"), moved).unwrap();
        std::os::unix::fs::symlink(outside, www.join("api/fr")).unwrap();
    });
    let said = &m.said;
    assert_eq!(m.code, Some(2), "an I/O failure, not a refusal before sending: {said}");
    // Which of the two checks meets the link depends on whether an upload still due
    // after the gate lands in `api/fr/`: the store refusing to open it, or the check
    // before deleting. Either way it is exit 2, and said.
    assert!(
        said.contains("not a plain folder or file")
            || said.contains("appeared while this deploy was sending"),
        "{said}"
    );
    assert_eq!(files(&m.outside).len(), 0, "nothing written outside the target");
}

#[test]
fn a_symlink_that_appears_in_a_folder_target_midway_fails_the_deploy_before_any_delete() {
    // A link where no upload goes: only the check before deleting meets it.
    let m = deploy_changed_midway(|www, outside| {
        std::os::unix::fs::symlink(outside, www.join("extra")).unwrap();
    });
    let said = &m.said;
    assert_eq!(m.code, Some(2), "uploads went out: exit 2, not a refusal: {said}");
    assert!(said.contains("appeared while this deploy was sending"), "{said}");
    let doomed = m.www.join("api/en/attractions/100/1.json");
    assert!(doomed.is_file(), "nothing deleted once the target changed");
    assert_eq!(files(&m.outside).len(), 0, "nothing written outside the target");
}

#[test]
fn a_folder_target_that_overlaps_the_project_is_refused_before_anything_is_sent() {
    let p = Project::sample();
    p.folio(&["build"]).success();
    let before = p.tree("output");
    for (target, why) in [
        (p.path("output/mirror"), "inside the output folder"),
        (p.dir.path().to_path_buf(), "the project folder"),
        (p.dir.path().parent().unwrap().to_path_buf(), "the project folder"),
        (p.path("data/published"), "inside the data folder"),
    ] {
        let url = format!("file://{}", target.display());
        let run = p.folio(&["deploy", "--to", &url]).fails(1);
        assert!(run.stderr().contains("overlaps the project"), "{}", run.stderr());
        assert!(run.stderr().contains(why), "{why}: {}", run.stderr());
        // Every folder is named: the project folder, the working one, by its path.
        assert!(!run.stderr().contains("``"), "{}", run.stderr());
    }
    assert!(p.tree("output") == before, "nothing written");
    assert!(!p.path("data/published").exists());
    // Beside the project is fine.
    let beside = tempfile::tempdir().unwrap();
    let url = format!("file://{}", beside.path().join("www").display());
    p.folio(&["deploy", "--to", &url]).success();
}

/// Makes `dir` read-only for this process (the immutable attribute for root, whom mode
/// bits do not stop), or `false` when it cannot.
fn read_only(dir: &std::path::Path, on: bool) -> bool {
    let root = Command::new("id").arg("-u").output().unwrap().stdout == b"0\n";
    if root {
        let flag = if on { "+i" } else { "-i" };
        Command::new("chattr").arg(flag).arg(dir).status().is_ok_and(|s| s.success())
    } else {
        use std::os::unix::fs::PermissionsExt;
        let mode = if on { 0o555 } else { 0o755 };
        std::fs::set_permissions(dir, std::fs::Permissions::from_mode(mode)).is_ok()
    }
}

#[test]
fn a_read_only_output_deploys() {
    let (_dir, remote) = folder();
    let p = Project::sample();
    p.folio(&["build"]).success();
    // A CI artifact unpacked without folio's lock file, then made read-only.
    std::fs::remove_file(p.path("output/.folio-lock")).unwrap();
    if !read_only(&p.path("output"), true) {
        crate::harness::skipped("the output folder cannot be made read-only here (chattr)");
        return;
    }
    let dry = remote.deploy(&p, &["--dry-run"]);
    let real = remote.deploy(&p, &[]);
    let built = p.folio(&["build", "--no-wait"]);
    read_only(&p.path("output"), false);
    dry.success();
    real.success();
    assert!(remote.objects() == published(&p));
    assert_ne!(built.code(), Some(0), "a build cannot write it");
    // With the lock file there, read-only too: locked through a read-only descriptor.
    p.folio(&["build"]).success();
    let lock = p.path("output/.folio-lock");
    assert!(read_only(&lock, true) && read_only(&p.path("output"), true));
    let run = remote.deploy(&p, &[]);
    read_only(&p.path("output"), false);
    read_only(&lock, false);
    run.success();
}

#[test]
fn a_build_from_another_data_folder_deploys() {
    let (_dir, remote) = folder();
    let p = Project::sample();
    std::fs::rename(p.path("data"), p.path("elsewhere")).unwrap();
    p.folio(&["build", "--data", "elsewhere"]).success();
    remote.deploy(&p, &[]).success();
    assert!(remote.objects() == published(&p));
}

#[test]
fn s3_the_deploy_url_is_decoded_once_and_its_keys_are_the_decoded_path() {
    let Some(moto) = Moto::start(false) else { return };
    moto.bucket("site");
    let p = Project::sample();
    p.folio(&["build"]).success();
    let endpoint = format!("http://127.0.0.1:{}", moto.port);
    let deploy = |url: &str| {
        let mut cmd = Command::new(BIN);
        cmd.args(["deploy", "--to", url, "--endpoint", &endpoint]).current_dir(p.dir.path());
        cmd.env("AWS_ACCESS_KEY_ID", ACCESS_KEY).env("AWS_SECRET_ACCESS_KEY", SECRET_KEY);
        cmd.env_remove("FOLIO_FAULT").env_remove("AWS_ENDPOINT").env_remove("AWS_REGION");
        Run::of(format!("folio deploy --to {url}"), cmd.output().unwrap())
    };
    for refused in ["s3://site/%2e%2e/t", "s3://site//t", "s3://site/a/%2E/t", "s3://site/a%2Fb"] {
        // A flag's value refused: a usage error, as clap's own.
        let run = deploy(refused).fails(2);
        assert!(run.stderr().contains("plain names"), "{refused}: {}", run.stderr());
    }
    // Typed as a user types it, and percent-encoded: the same keys, once decoded.
    deploy("s3://site/my site/ünï").success();
    deploy("s3://site/my%20site/%C3%BCn%C3%AF").success();
    let client = Remote::S3 {
        via: moto.port,
        server: moto.port,
        bucket: "site".into(),
        prefix: String::new(),
    };
    let (store, _) = client.client();
    let keys: BTreeSet<String> = runtime().block_on(async {
        store.list(None).map(|m| m.unwrap().location.to_string()).collect().await
    });
    let index = "my site/ünï/api/index.json".to_string();
    assert!(keys.contains(&index), "{:?}", keys.iter().take(5).collect::<Vec<_>>());
    assert!(keys.iter().all(|k| k.starts_with("my site/ünï/")), "one prefix, not two");
    // What `aws s3 cp` writes for the same prefix, where it is installed: the same key.
    if crate::harness::need("aws") {
        let file = p.path("output/api/index.json");
        let cp = Command::new("aws")
            .args(["s3", "cp", file.to_str().unwrap(), "s3://site/my site/ünï/aws-index.json"])
            .args(["--endpoint-url", &endpoint])
            .env("AWS_ACCESS_KEY_ID", ACCESS_KEY)
            .env("AWS_SECRET_ACCESS_KEY", SECRET_KEY)
            .env("AWS_DEFAULT_REGION", "us-east-1")
            .output()
            .unwrap();
        assert!(cp.status.success(), "{}", String::from_utf8_lossy(&cp.stderr));
        let keys: BTreeSet<String> = runtime().block_on(async {
            store.list(None).map(|m| m.unwrap().location.to_string()).collect().await
        });
        assert!(keys.contains("my site/ünï/aws-index.json"), "aws cp writes the same prefix");
    }
}

#[test]
fn s3_a_refused_mass_delete_sends_no_write_at_all() {
    let Some(moto) = Moto::start(false) else { return };
    let p = Project::sample();
    p.folio(&["build"]).success();
    Remote::s3(&moto, "travel").deploy(&p, &[]).success();
    set_config(&p, "page_sizes = [10, 20, 50, 100]", "page_sizes = [10]");
    p.folio(&["build"]).success();
    let proxy = Proxy::start(moto.port, usize::MAX);
    let remote = Remote::S3 {
        via: proxy.port,
        server: moto.port,
        bucket: "site".into(),
        prefix: "travel".into(),
    };
    let run = remote.deploy(&p, &["--max-deletes", "3"]).fails(1);
    assert!(run.stderr().contains("refusing to delete"), "{}", run.stderr());
    assert_eq!(proxy.writes(), 0, "no lease, no record, nothing: {}", proxy.kinds());
}
