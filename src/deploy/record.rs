//! `.folio-deploy.json.gz` at the deploy prefix: what folio put on the store — each key
//! with the MD5 of its bytes, its size, the ETag the store answered and the headers folio
//! set — and what it still means to delete. A deploy trusts an entry only when the
//! store's listing shows the key with that same ETag and size: then the object is exactly
//! what folio uploaded, and its bytes and headers need no request to compare.
//!
//! It is read back from the store, so it is input like a manifest: keys that are not
//! clean relative paths are dropped, and a record that does not parse is no record.

use std::collections::BTreeMap;
use std::io::{Read, Write};

use serde::{Deserialize, Serialize};

use super::local::Headers;

/// The record's key below the deploy prefix.
pub const RECORD: &str = ".folio-deploy.json.gz";
const VERSION: u32 = 1;

/// What folio put at one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Put {
    pub md5: [u8; 16],
    pub size: u64,
    /// The store's ETag for the object, without quotes.
    pub etag: String,
    pub headers: Headers,
}

/// The whole record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Record {
    pub objects: BTreeMap<String, Put>,
    /// Keys folio wrote and no longer produces, with the ETag they had: deleted after the
    /// record is written, and kept here until they are gone, so that a deploy killed
    /// between the two finishes them next time.
    pub deleting: BTreeMap<String, String>,
}

/// The record as stored: header sets once, objects as `[md5, size, etag, header set]`
/// with the ETag left empty when it is the MD5 (as S3's single-part ETags are).
#[derive(Serialize, Deserialize)]
struct Wire {
    version: u32,
    headers: Vec<Headers>,
    objects: BTreeMap<String, (String, u64, String, usize)>,
    #[serde(default)]
    deleting: BTreeMap<String, String>,
}

pub fn hex(md5: &[u8; 16]) -> String {
    md5.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Option<[u8; 16]> {
    if s.len() != 32 {
        return None;
    }
    let mut out = [0u8; 16];
    for (i, byte) in out.iter_mut().enumerate() {
        *byte = u8::from_str_radix(s.get(2 * i..2 * i + 2)?, 16).ok()?;
    }
    Some(out)
}

/// An ETag as an MD5, when it is one (S3 and R2 single-part uploads, MinIO).
pub fn etag_md5(etag: &str) -> Option<[u8; 16]> {
    unhex(etag.trim_matches('"'))
}

impl Record {
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut sets: Vec<Headers> = self.objects.values().map(|p| p.headers.clone()).collect();
        sets.sort();
        sets.dedup();
        let objects = self
            .objects
            .iter()
            .map(|(key, p)| {
                let md5 = hex(&p.md5);
                let etag = if p.etag == md5 { String::new() } else { p.etag.clone() };
                let set = sets.binary_search(&p.headers).expect("every set is listed");
                (key.clone(), (md5, p.size, etag, set))
            })
            .collect();
        let wire =
            Wire { version: VERSION, headers: sets, objects, deleting: self.deleting.clone() };
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
        serde_json::to_writer(&mut gz, &wire).expect("writing to a Vec cannot fail");
        gz.write_all(b"\n").expect("writing to a Vec cannot fail");
        gz.finish().expect("writing to a Vec cannot fail")
    }

    /// Parses a stored record; `Err` says why it is not one (it is then ignored).
    pub fn from_bytes(bytes: &[u8]) -> Result<Record, String> {
        let mut text = Vec::new();
        flate2::read::GzDecoder::new(bytes)
            .take(1 << 30)
            .read_to_end(&mut text)
            .map_err(|e| format!("not gzip ({e})"))?;
        let wire: Wire =
            serde_json::from_slice(&text).map_err(|e| format!("not a record ({e})"))?;
        if wire.version != VERSION {
            return Err(format!("record format {} (this folio reads {VERSION})", wire.version));
        }
        let clean = |key: &String| crate::output::paths::is_clean(key);
        let mut objects = BTreeMap::new();
        for (key, (md5, size, etag, set)) in wire.objects {
            let (Some(md5), Some(headers)) = (unhex(&md5), wire.headers.get(set)) else {
                return Err(format!("a bad entry for `{key}`"));
            };
            if clean(&key) {
                let etag = if etag.is_empty() { hex(&md5) } else { etag };
                objects.insert(key, Put { md5, size, etag, headers: headers.clone() });
            }
        }
        let deleting = wire.deleting.into_iter().filter(|(k, _)| clean(k)).collect();
        Ok(Record { objects, deleting })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_and_drops_unclean_keys() {
        let h = |ct: &str| Headers {
            content_type: ct.into(),
            cache_control: Some("max-age=1".into()),
            content_encoding: None,
        };
        let mut r = Record::default();
        let md5 = [7u8; 16];
        r.objects.insert(
            "api/a.json".into(),
            Put { md5, size: 3, etag: hex(&md5), headers: h("application/json") },
        );
        r.objects.insert(
            "x.html".into(),
            Put { md5, size: 4, etag: "1-2-3".into(), headers: h("text/html") },
        );
        r.deleting.insert("api/old.json".into(), "abc".into());
        let back = Record::from_bytes(&r.to_bytes()).unwrap();
        assert_eq!(back, r);

        let wire = r#"{"version":1,"headers":[{"content_type":"x"}],"objects":{"../up":["07070707070707070707070707070707",1,"",0]},"deleting":{"/etc/passwd":"e"}}"#;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(wire.as_bytes()).unwrap();
        let hostile = Record::from_bytes(&gz.finish().unwrap()).unwrap();
        assert!(hostile.objects.is_empty() && hostile.deleting.is_empty());
        assert!(Record::from_bytes(b"not gzip").is_err());
    }

    #[test]
    fn etags_that_are_md5s_are_read_as_such() {
        assert_eq!(etag_md5("\"07070707070707070707070707070707\""), Some([7u8; 16]));
        assert_eq!(etag_md5("07070707070707070707070707070707-2"), None);
        assert_eq!(etag_md5("W/\"x\""), None);
    }
}
