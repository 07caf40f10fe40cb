//! What only the stores that keep headers show (not a folder): the headers of each role, a
//! no-op that sends no write request and reads one listing a folder, and a Cache-Control
//! change that sends headers again.

use super::*;

fn objects_get_the_headers_of_their_role(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    // Each role got its headers.
    let json = Some("application/json; charset=utf-8".to_string());
    let cc = Some("public, max-age=300".to_string());
    assert_eq!(remote.headers("api/fr/attractions/20/2.json"), (json.clone(), cc.clone(), None));
    assert_eq!(remote.headers("api/index.json"), (json.clone(), cc.clone(), None));
    assert_eq!(remote.headers("api/openapi.json"), (json, cc.clone(), None));
    assert_eq!(
        remote.headers("api/explorer.html"),
        (Some("text/html; charset=utf-8".into()), cc, None)
    );
    assert_eq!(
        remote.headers("api/errors/invalid_page.json"),
        (Some("application/problem+json".into()), None, None)
    );
}
on_every_store!(objects_get_the_headers_of_their_role, prefix = "travel", headers);

fn a_noop_writes_nothing_and_reads_one_listing_a_folder(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    // A no-op deploy, from a fresh clone: no write request at all, and reads in proportion
    // to folio's folders, not its files (counted by a proxy in between, and by folio).
    let server = match remote {
        Remote::S3 { server, .. } | Remote::Azure { server, .. } | Remote::Gcs { server, .. } => {
            *server
        }
        Remote::Dir(_) => unreachable!("stores with headers only"),
    };
    let proxy = Proxy::start(server, usize::MAX);
    let p = Project::sample();
    p.folio(&["build"]).success();
    let run = remote.through(proxy.port).deploy(&p, &[]).success();
    assert_eq!(counts(&run).0, 0);
    assert_eq!(proxy.writes(), 0, "no PUT, POST or DELETE");
    // One listing a folder: api/, api/errors/ and the 20 page folders (5 variants, 4
    // sizes); one GET of folio's record; no HEAD, no file read.
    assert_eq!(proxy.kinds(), "22 list, 0 head, 1 get, 0 put, 0 delete");
    assert!(run.stdout().contains(&format!("; requests: {}", proxy.kinds())), "{}", run.stdout());
    assert_eq!(proxy.requests(), 23);
}
on_every_store!(a_noop_writes_nothing_and_reads_one_listing_a_folder, prefix = "travel", headers);

fn a_cache_control_change_resends_headers(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let before = published(&p);
    p.write(
        "folio.toml",
        format!("{}\n[output]\ncache_control = \"public, max-age=60\"\n", p.read("folio.toml")),
    );
    p.folio(&["build"]).success();
    let dry = remote.deploy(&p, &["--dry-run"]).success();
    let (uploads, _) = dry_plan(&dry);
    let with_cache_control: BTreeSet<String> =
        before.keys().filter(|k| !k.starts_with("api/errors/")).cloned().collect();
    assert_eq!(uploads, with_cache_control, "every page, the index, OpenAPI document and explorer");
    // Their bytes are the same (the OpenAPI document aside, which states the header).
    assert_eq!(changed(&before, &published(&p)), BTreeSet::from(["api/openapi.json".to_string()]));
    let resent = dry.stdout().lines().filter(|l| l.ends_with("(headers changed)")).count();
    assert_eq!(resent, uploads.len() - 1);
    remote.deploy(&p, &[]).success();
    assert_eq!(
        remote.headers("api/en/attractions/10/7.json").1.as_deref(),
        Some("public, max-age=60")
    );
    assert_eq!(
        remote.headers("api/errors/not_found.json").1,
        None,
        "errors keep the host's caching"
    );
}
on_every_store!(a_cache_control_change_resends_headers, prefix = "travel", headers);
