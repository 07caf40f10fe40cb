//! The plan of a deploy, pure: from the files to publish, the store's listing and folio's
//! record, which objects to upload and why, which to keep, which need a HEAD to tell,
//! which of folio's old objects to delete, and what a deploy cut short left behind (keys
//! to purge, orphans to delete). No IO.

use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

use super::outgoing::{Headers, OutgoingFile};
use super::record::{DeployRecord, Md5, Put, etag_md5};

/// An object as the store's listing shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub size: u64,
    /// Without quotes; empty where the store's listings carry none.
    pub etag: String,
    /// Last modified, in whole seconds since the Unix epoch (HEAD answers in seconds).
    pub modified: Option<i64>,
}

/// Why an object is uploaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub enum Reason {
    /// Not on the store.
    Missing,
    /// Its bytes differ.
    Bytes,
    /// Its bytes are the same, the headers folio sets are not.
    Headers,
    /// `--force`.
    Forced,
}

impl Reason {
    pub fn as_str(self) -> &'static str {
        match self {
            Reason::Missing => "missing",
            Reason::Bytes => "changed",
            Reason::Headers => "headers changed",
            Reason::Forced => "forced",
        }
    }
}

/// What to do with one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// The object is what folio would upload: its ETag (to record).
    Keep(String),
    Upload(Reason),
    /// On the store, but not as folio's record knows it (another tool, a deploy cut
    /// short): a HEAD tells whether its bytes and headers are right.
    Check,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Plan {
    /// One action per outgoing file, in the order of the files.
    pub actions: Vec<Action>,
    /// folio's old objects this build no longer has, still with the ETag folio gave them:
    /// deleted once a request confirms each still holds what folio wrote.
    pub deletes: Vec<(String, Put)>,
    /// Keys a deploy cut short was about to upload that this build does not have: deleted
    /// when a request shows they hold bytes that deploy meant to write (they are folio's).
    pub orphans: Vec<(String, BTreeSet<Md5>)>,
    /// Keys a deploy cut short (or anything but folio) may have changed or deleted: the
    /// CDN must forget them.
    pub cut: BTreeSet<String>,
    /// Of `cut`, the keys there only because the record could not vouch for their objects
    /// from the listing, with the MD5 the record holds: one a HEAD then shows holding
    /// those bytes changed nothing, and leaves `cut` (`remote.check`). Where listings carry
    /// no ETags and the record no time yet, that is every key.
    pub unvouched: BTreeMap<String, Md5>,
}

/// Does `put` (an entry of folio's record) vouch for the listed object: the same ETag
/// and size, and, where the ETag is a plain MD5 (S3's single-part uploads), that MD5? A
/// forged entry cannot then vouch for bytes other than its own. Where the store lists no
/// ETags (some S3-compatible servers), the same size and modification time.
pub fn vouches(put: &Put, listed: &Listed) -> bool {
    if put.size != listed.size {
        return false;
    }
    if listed.etag.is_empty() {
        return put.modified.is_some() && put.modified == listed.modified;
    }
    put.etag == listed.etag && etag_md5(&listed.etag).is_none_or(|md5| md5 == put.md5)
}

/// Plans a deploy. `listing` and `record` are keyed by path below the deploy prefix.
pub fn plan(
    outgoing: &[OutgoingFile],
    listing: &HashMap<String, Listed>,
    record: &DeployRecord,
    force: bool,
) -> Plan {
    let actions = outgoing
        .iter()
        .map(|f| {
            let Some(listed) = listing.get(&f.rel) else { return Action::Upload(Reason::Missing) };
            if force {
                return Action::Upload(Reason::Forced);
            }
            match record.objects.get(&f.rel) {
                // Trusted: the object is what folio put there.
                // (The record's ETag is kept: a listing may carry none.)
                Some(put) if vouches(put, listed) => {
                    compare(f, put.md5, &put.headers, put.size, &put.etag)
                }
                _ => Action::Check,
            }
        })
        .collect();
    let produced: HashSet<&str> = outgoing.iter().map(|f| f.rel.as_str()).collect();
    let mut deletes: BTreeMap<&String, &Put> = BTreeMap::new();
    for (key, put) in &record.objects {
        // Gone already, or replaced by someone else since (then it is theirs): untouched.
        if !produced.contains(key.as_str()) && listing.get(key).is_some_and(|l| vouches(put, l)) {
            deletes.insert(key, put);
        }
    }
    for (key, put) in &record.deleting {
        let listed = listing.get(key);
        if !produced.contains(key.as_str()) && listed.is_some_and(|l| l.etag == put.etag) {
            deletes.entry(key).or_insert(put);
        }
    }
    let orphans = (record.pending.iter())
        .filter(|(key, _)| {
            !produced.contains(key.as_str())
                && listing.contains_key(*key)
                && !deletes.contains_key(key)
        })
        .map(|(key, md5s)| (key.clone(), md5s.clone()))
        .collect();
    // What a cut deploy may have changed: a key it meant to upload that no longer has the
    // ETag the record knows (or that the record never had), and one it meant to delete
    // that is gone.
    let mut cut = BTreeSet::new();
    for key in record.pending.keys() {
        if let Some(listed) = listing.get(key)
            && record.objects.get(key).is_none_or(|put| put.etag != listed.etag)
        {
            cut.insert(key.clone());
        }
    }
    cut.extend(record.deleting.keys().filter(|k| !listing.contains_key(*k)).cloned());
    // An object folio recorded that changed behind the record's back (a request that
    // landed after its deploy was cut, another tool): whatever its bytes are now, the CDN
    // may hold the ones before.
    let mut unvouched = BTreeMap::new();
    for (key, put) in &record.objects {
        if listing.get(key).is_some_and(|l| !vouches(put, l)) && cut.insert(key.clone()) {
            unvouched.insert(key.clone(), put.md5);
        }
    }
    Plan {
        actions,
        deletes: deletes.into_iter().map(|(k, p)| (k.clone(), p.clone())).collect(),
        orphans,
        cut,
        unvouched,
    }
}

/// Keeps the object (with `etag`) when its bytes (`md5`, `size`) and headers are the file's.
fn compare(f: &OutgoingFile, md5: [u8; 16], headers: &Headers, size: u64, etag: &str) -> Action {
    if md5 != f.md5 || size != f.size {
        Action::Upload(Reason::Bytes)
    } else if *headers != *f.headers {
        Action::Upload(Reason::Headers)
    } else {
        Action::Keep(etag.to_string())
    }
}

/// What a HEAD of an unrecorded object showed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Head {
    pub size: u64,
    pub etag: String,
    /// The `md5chksum` metadata folio sets, else the ETag when it is an MD5.
    pub md5: Option<[u8; 16]>,
    /// `None` when the store keeps no headers.
    pub headers: Option<Headers>,
}

/// Decides a [`Action::Check`] from the HEAD: keep the object when its bytes are known to
/// be the file's and its headers are folio's.
pub fn check(f: &OutgoingFile, head: &Head) -> Action {
    // The store's own checksum first: where the ETag is an MD5 (S3 and R2 single-part
    // uploads, GCS), it is the MD5 of the bytes there, whatever metadata says; folio's
    // metadata stands only where the store gives no MD5 (multipart uploads, Azure).
    let md5 = etag_md5(&head.etag).or(head.md5);
    match (md5, &head.headers) {
        (Some(md5), Some(headers)) => compare(f, md5, headers, head.size, &head.etag),
        // A store that keeps no headers: the bytes are all there is to compare.
        (Some(md5), None) if md5 == f.md5 && head.size == f.size => Action::Keep(head.etag.clone()),
        _ => Action::Upload(Reason::Bytes),
    }
}

/// folio's objects after a deploy: every outgoing file with the ETag it has now, and the
/// modification time the store showed for it (where known).
pub fn objects_after(
    outgoing: &[OutgoingFile],
    etags: &[Option<String>],
    modified: &[Option<i64>],
) -> BTreeMap<String, Put> {
    outgoing
        .iter()
        .zip(etags)
        .zip(modified)
        .filter_map(|((f, etag), modified)| {
            let put = Put {
                md5: f.md5,
                xxh3: Some(f.xxh3),
                size: f.size,
                etag: etag.clone()?,
                modified: *modified,
                headers: f.headers.clone(),
            };
            Some((f.rel.clone(), put))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deploy::outgoing::Phase;
    use crate::deploy::record::md5_hex as hex;

    fn headers(cc: &str) -> std::sync::Arc<Headers> {
        Headers {
            content_type: "application/json".into(),
            cache_control: Some(cc.into()),
            content_encoding: None,
        }
        .into()
    }

    fn file(rel: &str, byte: u8) -> OutgoingFile {
        OutgoingFile {
            rel: rel.into(),
            xxh3: u128::from(byte),
            size: 3,
            md5: [byte; 16],
            headers: headers("a"),
            phase: Phase::Pages,
        }
    }

    fn put(byte: u8, etag: &str, cc: &str) -> Put {
        Put {
            md5: [byte; 16],
            xxh3: None,
            size: 3,
            etag: etag.into(),
            modified: None,
            headers: headers(cc),
        }
    }

    fn listed(etag: &str) -> Listed {
        Listed { size: 3, etag: etag.into(), modified: None }
    }

    #[test]
    fn trusted_objects_are_compared_without_a_request() {
        let outgoing = [
            file("same", 1),
            file("bytes", 2),
            file("headers", 3),
            file("new", 4),
            file("foreign", 5),
        ];
        let listing: HashMap<String, Listed> = [
            ("same", listed("e1")),
            ("bytes", listed("e2")),
            ("headers", listed("e3")),
            ("foreign", listed("e5")),
            ("stale", listed("e6")),
            ("replaced", listed("someone-else")),
            ("other", listed("e8")),
        ]
        .into_iter()
        .map(|(k, l)| (k.to_string(), l))
        .collect();
        let mut record = DeployRecord::default();
        record.objects.insert("same".into(), put(1, "e1", "a"));
        record.objects.insert("bytes".into(), put(9, "e2", "a"));
        record.objects.insert("headers".into(), put(3, "e3", "b"));
        record.objects.insert("stale".into(), put(6, "e6", "a"));
        record.objects.insert("replaced".into(), put(7, "e7", "a"));
        record.deleting.insert("gone".into(), put(9, "e9", "a"));
        let p = plan(&outgoing, &listing, &record, false);
        assert_eq!(
            p.actions,
            [
                Action::Keep("e1".into()),
                Action::Upload(Reason::Bytes),
                Action::Upload(Reason::Headers),
                Action::Upload(Reason::Missing),
                Action::Check,
            ]
        );
        // Only folio's own stale object that still has folio's ETag; never `other`.
        assert_eq!(p.deletes, [("stale".to_string(), put(6, "e6", "a"))]);
        let forced = plan(&outgoing, &listing, &record, true);
        assert_eq!(forced.actions[0], Action::Upload(Reason::Forced));
        assert_eq!(forced.actions[3], Action::Upload(Reason::Missing));
    }

    #[test]
    fn a_forged_entry_does_not_vouch_for_other_bytes() {
        // The object's ETag is the MD5 of its bytes (S3); an entry naming that ETag with
        // another MD5 (the file's) is not folio's upload: the object gets a HEAD.
        let f = file("page", 1);
        let tampered = hex(&[9; 16]);
        let listing: HashMap<String, Listed> =
            [("page".to_string(), listed(&tampered)), ("foreign".to_string(), listed(&tampered))]
                .into();
        let mut record = DeployRecord::default();
        record.objects.insert("page".into(), put(1, &tampered, "a"));
        record.objects.insert("foreign".into(), put(1, &tampered, "a"));
        let p = plan(&[f], &listing, &record, false);
        assert_eq!(p.actions, [Action::Check]);
        assert!(p.deletes.is_empty(), "nor does it name a foreign object for deletion");
        // An honest entry does vouch.
        record.objects.insert("page".into(), put(9, &tampered, "a"));
        assert_eq!(
            plan(&[file("page", 9)], &listing, &record, false).actions,
            [Action::Keep(tampered)]
        );
    }

    #[test]
    fn where_listings_carry_no_etag_the_modification_time_vouches() {
        let mut put = put(1, "e1", "a");
        let listed = |modified| Listed { size: 3, etag: String::new(), modified };
        assert!(!vouches(&put, &listed(Some(100))), "nothing known of its time yet");
        put.modified = Some(100);
        assert!(vouches(&put, &listed(Some(100))));
        assert!(!vouches(&put, &listed(Some(101))), "rewritten since");
        assert!(!vouches(&put, &Listed { size: 4, ..listed(Some(100)) }));
        // Where the listing has an ETag, the ETag decides, whatever the time.
        assert!(!vouches(&put, &Listed { size: 3, etag: "e2".into(), modified: Some(100) }));
    }

    #[test]
    fn what_a_cut_deploy_left_is_purged_and_its_orphans_found() {
        let outgoing = [file("kept", 1), file("uploaded", 2), file("untouched", 3)];
        let listing: HashMap<String, Listed> = [
            ("kept", listed("e1")),
            ("uploaded", listed("new-etag")),
            ("untouched", listed("e3")),
            ("orphan", listed("e4")),
        ]
        .into_iter()
        .map(|(k, l)| (k.to_string(), l))
        .collect();
        let mut record = DeployRecord::default();
        record.objects.insert("kept".into(), put(1, "e1", "a"));
        record.objects.insert("uploaded".into(), put(7, "old-etag", "a"));
        record.objects.insert("untouched".into(), put(8, "e3", "a"));
        // The cut deploy meant to upload three keys and delete one.
        for (key, byte) in [("uploaded", 2), ("untouched", 3), ("orphan", 4)] {
            record.pending.insert(key.into(), [[byte; 16]].into());
        }
        record.deleting.insert("deleted".into(), put(5, "e5", "a"));
        let p = plan(&outgoing, &listing, &record, false);
        // `uploaded` has another ETag than the record knows: the cut deploy changed it.
        // `untouched` still has the recorded ETag; `deleted` is gone.
        assert_eq!(p.cut, ["deleted".to_string(), "orphan".into(), "uploaded".into()].into());
        assert_eq!(p.actions[1], Action::Check, "the record does not vouch for it");
        assert_eq!(p.orphans, [("orphan".to_string(), [[4; 16]].into())]);
        assert!(p.deletes.is_empty());
        // `uploaded` is cut because the cut deploy meant to write it: a HEAD showing the
        // recorded bytes does not clear it. Nothing is there for want of vouching alone.
        assert!(p.unvouched.is_empty());
    }

    #[test]
    fn an_object_cut_for_want_of_vouching_alone_is_unvouched_with_its_recorded_md5() {
        // A listing without ETags and a record without times (a first deploy learnt none):
        // every object is cut until a HEAD shows it holds what the record says.
        let etagless = Listed { size: 3, etag: String::new(), modified: Some(100) };
        let listing: HashMap<String, Listed> =
            [("a".to_string(), etagless.clone()), ("b".to_string(), etagless)].into();
        let mut record = DeployRecord::default();
        record.objects.insert("a".into(), put(1, "e1", "x"));
        record.objects.insert("b".into(), put(2, "e2", "x"));
        record.pending.insert("b".into(), [[7; 16]].into());
        let p = plan(&[file("a", 1), file("b", 2)], &listing, &record, false);
        assert_eq!(p.actions, [Action::Check, Action::Check]);
        assert_eq!(p.cut, ["a".to_string(), "b".into()].into());
        // `b` a cut deploy meant to write: it stays cut whatever a HEAD shows.
        assert_eq!(p.unvouched, [("a".to_string(), [1; 16])].into());
    }

    #[test]
    fn an_object_changed_behind_the_record_is_purged_whatever_it_holds_now() {
        // A request of a deploy cut short landed after the next deploy wrote its record:
        // the object holds this build's bytes again, but not the ones the record knows.
        let outgoing = [file("late", 1), file("same", 2)];
        let listing: HashMap<String, Listed> = [("late", listed("e1")), ("same", listed("e2"))]
            .into_iter()
            .map(|(k, l)| (k.to_string(), l))
            .collect();
        let mut record = DeployRecord::default();
        record.objects.insert("late".into(), put(9, "e9", "a"));
        record.objects.insert("same".into(), put(2, "e2", "a"));
        let p = plan(&outgoing, &listing, &record, false);
        assert_eq!(p.actions[0], Action::Check, "a HEAD tells what it holds");
        assert_eq!(p.cut, ["late".to_string()].into());
    }

    #[test]
    fn a_head_decides_unrecorded_objects() {
        let f = file("a", 1);
        let head = |md5: Option<[u8; 16]>, etag: &str, h: Option<Headers>| Head {
            size: 3,
            etag: etag.into(),
            md5,
            headers: h,
        };
        assert_eq!(
            check(&f, &head(Some([1; 16]), "x", Some(Headers::clone(&headers("a"))))),
            Action::Keep("x".into())
        );
        assert_eq!(
            check(&f, &head(None, &hex(&[1; 16]), Some(Headers::clone(&headers("a"))))),
            Action::Keep(hex(&[1; 16]))
        );
        assert_eq!(
            check(&f, &head(None, &hex(&[1; 16]), Some(Headers::clone(&headers("b"))))),
            Action::Upload(Reason::Headers)
        );
        assert_eq!(
            check(&f, &head(None, "opaque", Some(Headers::clone(&headers("a"))))),
            Action::Upload(Reason::Bytes)
        );
        // Bytes replaced behind folio's back, its metadata kept: the ETag, the MD5 of the
        // bytes there, is believed over the metadata.
        assert_eq!(
            check(&f, &head(Some([1; 16]), &hex(&[9; 16]), Some(Headers::clone(&headers("a"))))),
            Action::Upload(Reason::Bytes)
        );
        assert_eq!(
            check(&f, &head(Some([2; 16]), "x", Some(Headers::clone(&headers("a"))))),
            Action::Upload(Reason::Bytes)
        );
    }
}
