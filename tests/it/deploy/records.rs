//! What vouches for an object on S3: a forged record vouches for nothing (and deletes
//! nothing foreign), and on a store that lists no ETags, modification times do.

use super::*;

#[test]
fn s3_a_forged_record_vouches_for_nothing_and_deletes_nothing_foreign() {
    // Someone with write access to the bucket replaces a page (same size, other bytes)
    // and edits folio's record so that its entry names the new object's ETag; they also
    // add an entry for a foreign object, as if folio had written it.
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "travel");
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let page = "api/en/attractions/10/3.json";
    let mut tampered = published(&p)[page].clone();
    tampered[2] = b'#';
    remote.put_foreign(page, &tampered);
    remote.put_foreign("theirs/report.csv", b"a,b\n1,2\n");
    let listed = remote.etags();
    let mut record = remote.record();
    record.objects.get_mut(page).unwrap().etag = listed[page].clone();
    let mut foreign = record.objects[page].clone();
    foreign.etag = listed["theirs/report.csv"].clone();
    foreign.md5 = folio::deploy::record::etag_md5(&foreign.etag).unwrap();
    foreign.size = 8;
    record.objects.insert("theirs/report.csv".into(), foreign);
    remote.put_record(&record);

    let run = remote.deploy(&p, &[]).success();
    assert_eq!(counts(&run).0, 1, "the tampered page is sent again");
    let mut want = published(&p);
    want.insert("theirs/report.csv".into(), b"a,b\n1,2\n".to_vec());
    assert!(remote.objects() == want, "the page is right again; the foreign object stays");
}

#[test]
fn s3_a_store_that_lists_no_etags_is_vouched_for_by_modification_times() {
    // Some S3-compatible servers (s3s-fs, which the deploy benchmark runs) list objects
    // without ETags. folio then learns each object's modification time (from a listing,
    // or a HEAD of what it just uploaded) and trusts a record entry whose object still has
    // it; without that, every object would get a HEAD on every deploy.
    let Some(moto) = Moto::start(false) else { return };
    let proxy = Proxy::without_listed_etags(moto.port);
    let remote = Remote::s3(&moto, "travel").through(proxy.port);
    let p = Project::sample();
    p.folio(&["build"]).success();
    let requests =
        |run: &Run| run.stdout().split("; requests: ").nth(1).unwrap().trim().to_string();
    // The first deploy lists an empty prefix, which cannot tell whether the store lists
    // ETags: it learns the times of what it uploaded, with one more listing a folder (22),
    // not a HEAD an object.
    let first = remote.deploy(&p, &[]).success();
    assert_eq!(counts(&first), (SAMPLE_OBJECTS, 0, 0));
    assert!(requests(&first).starts_with("44 list, 1 head, "), "{}", first.stdout());
    // So a fresh clone's deploy of the same build (the CI job after the first) sends no
    // HEAD: the record's times vouch for every object.
    let fresh = Project::sample();
    fresh.folio(&["build"]).success();
    let noop = remote.deploy(&fresh, &[]).success();
    assert_eq!(counts(&noop), (0, SAMPLE_OBJECTS, 0));
    assert_eq!(requests(&noop), "22 list, 0 head, 1 get, 0 put, 0 delete");
    let noop = remote.deploy(&p, &[]).success();
    assert_eq!(requests(&noop), "22 list, 0 head, 1 get, 0 put, 0 delete");
    // A changed record: its pages go up, and their times are learnt at once.
    rename_first_record(&p);
    p.folio(&["build"]).success();
    let change = remote.deploy(&p, &[]).success();
    assert_eq!(counts(&change).0, 8);
    // Learnt with a listing of each small folder most of whose pages changed, a HEAD of
    // each other page; plus the usual listings and the record's HEAD: 22 + 8 + 1.
    let kinds: Vec<u64> = requests(&change)
        .split(", ")
        .map(|k| k.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(kinds[0] + kinds[1], 31, "{}", change.stdout());
    assert_eq!(
        requests(&remote.deploy(&p, &[]).success()),
        "22 list, 0 head, 1 get, 0 put, 0 delete"
    );
    // Someone rewrites a page with other bytes of the same size, a second later: the
    // time no longer vouches, and the page is sent again.
    std::thread::sleep(Duration::from_millis(1100));
    let page = "api/fr/attractions/10/2.json";
    let mut other = published(&p)[page].clone();
    other[3] = b'#';
    remote.put_foreign(page, &other);
    let repaired = remote.deploy(&p, &[]).success();
    assert_eq!(counts(&repaired).0, 1, "{}", repaired.stdout());
    assert!(remote.objects() == published(&p));
}

#[test]
fn s3_a_deploy_that_sends_the_bytes_already_there_leaves_no_intent_behind() {
    // `--force` sends every object again; when the bytes are the ones there, the record
    // after is the one before, and the intent written before the uploads must not stay
    // (every later deploy would take it for a deploy cut short: a second survey, a lease,
    // a record written, for 15 minutes).
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "travel");
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &["--force"]).success();
    remote.deploy(&p, &["--force"]).success();
    let record = remote.record();
    assert!(record.pending.is_empty() && record.carried_until.is_none(), "{record:?}");
    let noop = remote.deploy(&p, &[]).success();
    let requests = noop.stdout().split("; requests: ").nth(1).unwrap().trim().to_string();
    assert!(requests.ends_with("0 put, 0 delete"), "a no-op writes nothing: {requests}");
}
