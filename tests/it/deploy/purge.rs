//! Purge lists: a changed record uploads exactly its pages and the list names their URLs;
//! what deploys without a list changed is named by the next list written.

use super::*;

fn one_changed_record_uploads_exactly_its_pages_and_purges_their_urls(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    let (first, first_arg) = purge_arg(&p, "first.json");
    remote.deploy(&p, &["--purge-list", &first_arg]).success();
    assert_eq!(purged_objects(&first), published(&p).into_keys().collect());
    let before = published(&p);
    rename_first_record(&p);
    p.folio(&["build"]).success();
    let after = published(&p);
    let want = changed(&before, &after);
    assert_eq!(want.len(), 8, "record 1 is on page 1 of 4 sizes, English and unprefixed");

    let dry = remote.deploy(&p, &["--dry-run"]).success();
    assert_eq!(dry_plan(&dry), (want.clone(), BTreeSet::new()));
    assert!(remote.objects() == before, "a dry run changes nothing");

    let (purge, arg) = purge_arg(&p, "purge.json");
    let run = remote.deploy(&p, &["--purge-list", &arg]).success();
    assert_eq!(counts(&run), (8, SAMPLE_OBJECTS - 8, 0));
    assert!(remote.objects() == after);
    let list: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&purge).unwrap()).unwrap();
    let urls: BTreeSet<String> =
        list["urls"].as_array().unwrap().iter().map(|u| u.as_str().unwrap().to_string()).collect();
    assert_eq!(urls, expected_urls(&want));
    assert_eq!(purged_objects(&purge), want);
    assert_eq!(
        list["cloudfront"]["Paths"]["Quantity"],
        list["cloudfront"]["Paths"]["Items"].as_array().unwrap().len()
    );
}
on_every_store!(
    one_changed_record_uploads_exactly_its_pages_and_purges_their_urls,
    prefix = "travel"
);

fn changes_are_purged_until_a_purge_list_names_them(remote: &Remote) {
    // Deploys without --purge-list (a manual one, say) change the store too: the next
    // purge list names what they changed as well as its own changes.
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let first = published(&p);
    rename_first_record(&p);
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let (purge, arg) = purge_arg(&p, "purge.json");
    // Nothing to upload, and still the list names everything changed since no list did.
    let run = remote.deploy(&p, &["--purge-list", &arg]).success();
    assert_eq!(counts(&run).0, 0);
    assert_eq!(purged_objects(&purge), first.keys().cloned().collect());
    // Named once, forgotten: the next list is empty.
    remote.deploy(&p, &["--purge-list", &arg]).success();
    assert!(purged_objects(&purge).is_empty());
}
on_every_store!(changes_are_purged_until_a_purge_list_names_them, prefix = "travel");

/// The URLs a CDN may hold for changed files of the sample (root-relative: its base_url is
/// empty), written out independently of folio: the path form, the query form of links,
/// at the default size (10) `?page=P` and, for page 1, the bare endpoint, and for page 1
/// of every size `?per_page=S`.
fn expected_urls(changed: &BTreeSet<String>) -> BTreeSet<String> {
    let page = regex::Regex::new(r"^(api/(?:[a-z]+/)?attractions)/(\d+)/(\d+)\.json$").unwrap();
    let mut out = BTreeSet::new();
    for rel in changed {
        out.insert(format!("/{rel}"));
        if let Some(c) = page.captures(rel) {
            let (endpoint, size, page) = (&c[1], &c[2], &c[3]);
            out.insert(format!("/{endpoint}?page={page}&per_page={size}"));
            if size == "10" {
                out.insert(format!("/{endpoint}?page={page}"));
                if page == "1" {
                    out.insert(format!("/{endpoint}"));
                }
            }
            if page == "1" {
                out.insert(format!("/{endpoint}?per_page={size}"));
            }
        }
    }
    out
}
