//! The plan of a deploy, pure: from the files to publish, the store's listing and folio's
//! record, which objects to upload and why, which to keep, which need a HEAD to tell, and
//! which of folio's old objects to delete. No IO.

use std::collections::{BTreeMap, HashMap};

use super::local::{Headers, LocalFile};
use super::record::{Put, Record, etag_md5};

/// An object as the store's listing shows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Listed {
    pub size: u64,
    /// Without quotes.
    pub etag: String,
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
    /// One action per local file, in the order of the files.
    pub actions: Vec<Action>,
    /// folio's old objects to delete: key and the ETag they must still have.
    pub deletes: Vec<(String, String)>,
}

/// Plans a deploy. `listing` and `record` are keyed by path below the deploy prefix.
pub fn plan(
    local: &[LocalFile],
    listing: &HashMap<String, Listed>,
    record: &Record,
    force: bool,
) -> Plan {
    let actions = local
        .iter()
        .map(|f| {
            let Some(listed) = listing.get(&f.rel) else { return Action::Upload(Reason::Missing) };
            if force {
                return Action::Upload(Reason::Forced);
            }
            match record.objects.get(&f.rel) {
                // Trusted: the object is what folio put there.
                Some(put) if put.etag == listed.etag && put.size == listed.size => {
                    compare(f, put.md5, &put.headers, listed)
                }
                _ => Action::Check,
            }
        })
        .collect();
    let produced: std::collections::HashSet<&str> = local.iter().map(|f| f.rel.as_str()).collect();
    let old = record.objects.iter().map(|(k, p)| (k, &p.etag)).chain(record.deleting.iter());
    let mut deletes: BTreeMap<String, String> = BTreeMap::new();
    for (key, etag) in old {
        // Gone already, or replaced by someone else since (then it is theirs): untouched.
        if !produced.contains(key.as_str()) && listing.get(key).is_some_and(|l| l.etag == *etag) {
            deletes.insert(key.clone(), etag.clone());
        }
    }
    Plan { actions, deletes: deletes.into_iter().collect() }
}

fn compare(f: &LocalFile, md5: [u8; 16], headers: &Headers, listed: &Listed) -> Action {
    if md5 != f.md5 || listed.size != f.size {
        Action::Upload(Reason::Bytes)
    } else if *headers != f.headers {
        Action::Upload(Reason::Headers)
    } else {
        Action::Keep(listed.etag.clone())
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
pub fn check(f: &LocalFile, head: &Head) -> Action {
    let md5 = head.md5.or_else(|| etag_md5(&head.etag));
    match (md5, &head.headers) {
        (Some(md5), Some(headers)) => {
            compare(f, md5, headers, &Listed { size: head.size, etag: head.etag.clone() })
        }
        // A store that keeps no headers: the bytes are all there is to compare.
        (Some(md5), None) if md5 == f.md5 && head.size == f.size => Action::Keep(head.etag.clone()),
        _ => Action::Upload(Reason::Bytes),
    }
}

/// The record after a deploy: every local file with the ETag it has now, and the deletes
/// still to do.
pub fn record_after(
    local: &[LocalFile],
    etags: &[Option<String>],
    deleting: &[(String, String)],
) -> Record {
    let objects = local
        .iter()
        .zip(etags)
        .filter_map(|(f, etag)| {
            let put =
                Put { md5: f.md5, size: f.size, etag: etag.clone()?, headers: f.headers.clone() };
            Some((f.rel.clone(), put))
        })
        .collect();
    Record { objects, deleting: deleting.iter().cloned().collect() }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::deploy::local::Phase;
    use crate::deploy::record::hex;

    fn headers(cc: &str) -> Headers {
        Headers {
            content_type: "application/json".into(),
            cache_control: Some(cc.into()),
            content_encoding: None,
        }
    }

    fn file(rel: &str, byte: u8) -> LocalFile {
        LocalFile {
            rel: rel.into(),
            size: 3,
            md5: [byte; 16],
            headers: headers("a"),
            phase: Phase::Pages,
        }
    }

    fn put(byte: u8, etag: &str, cc: &str) -> Put {
        Put { md5: [byte; 16], size: 3, etag: etag.into(), headers: headers(cc) }
    }

    fn listed(etag: &str) -> Listed {
        Listed { size: 3, etag: etag.into() }
    }

    #[test]
    fn trusted_objects_are_compared_without_a_request() {
        let local = [
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
        let mut record = Record::default();
        record.objects.insert("same".into(), put(1, "e1", "a"));
        record.objects.insert("bytes".into(), put(9, "e2", "a"));
        record.objects.insert("headers".into(), put(3, "e3", "b"));
        record.objects.insert("stale".into(), put(6, "e6", "a"));
        record.objects.insert("replaced".into(), put(7, "e7", "a"));
        record.deleting.insert("gone".into(), "e9".into());
        let p = plan(&local, &listing, &record, false);
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
        assert_eq!(p.deletes, [("stale".to_string(), "e6".to_string())]);
        let forced = plan(&local, &listing, &record, true);
        assert_eq!(forced.actions[0], Action::Upload(Reason::Forced));
        assert_eq!(forced.actions[3], Action::Upload(Reason::Missing));
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
            check(&f, &head(Some([1; 16]), "x", Some(headers("a")))),
            Action::Keep("x".into())
        );
        assert_eq!(
            check(&f, &head(None, &hex(&[1; 16]), Some(headers("a")))),
            Action::Keep(hex(&[1; 16]))
        );
        assert_eq!(
            check(&f, &head(None, &hex(&[1; 16]), Some(headers("b")))),
            Action::Upload(Reason::Headers)
        );
        assert_eq!(
            check(&f, &head(None, "opaque", Some(headers("a")))),
            Action::Upload(Reason::Bytes)
        );
        assert_eq!(
            check(&f, &head(Some([2; 16]), "x", Some(headers("a")))),
            Action::Upload(Reason::Bytes)
        );
    }
}
