//! `.folio-deploy.json.gz` at the deploy prefix: folio's journal of the store.
//!
//! - `objects`: what folio put there — each key with the MD5 of its bytes, its size, the
//!   ETag the store answered and the headers folio set. A deploy trusts an entry only when
//!   the listing shows the key with that same ETag and size (and, where the ETag is a plain
//!   MD5, that MD5): then the object is exactly what folio uploaded, and its bytes and
//!   headers need no request to compare.
//! - `pending`: keys a deploy was about to upload, with the MD5s it meant to write. It is
//!   written before the first upload, so a deploy cut short (killed, cancelled, failed)
//!   leaves the next one knowing what may have changed: those keys are purged, and
//!   deleted when the next build no longer has them.
//! - `deleting`: folio's objects it is about to delete, kept until they are gone.
//! - `hosting`: the digest of each `hosting/` file of the build it published (the files a
//!   user installs by hand), so that a deploy of a build whose host files differ names
//!   them once.
//! - the one ledger of what is owed a purge, per [`Recipient`]: the purge list file (keys
//!   changed since a deploy last wrote one, stored as `unpurged`, as every format since 2
//!   has) and each CDN a deploy purges (`owed`: `cloudfront:ID`, `cloudflare:ZONE` to the
//!   keys it has not accepted a purge of, from a purge that failed or a deploy cut short
//!   before it). Written as format 4 while a CDN is owed something, which an older folio
//!   refuses to read rather than drop what is owed; a record owing no CDN is format 2, which
//!   every folio reads. Format 3 kept what the CDNs are owed as `purging`: read into the ledger.
//!
//! It is read back from the store, so it is input like a manifest: keys of objects that
//! are not clean relative paths are dropped here; what is owed is evidence the deploy
//! checks against its build before it pays anything (`ledger.rs`). A record that cannot be read (truncated, damaged, a
//! gzip bomb: decompression stops at [`limit`] of the size the store lists) or one of a
//! newer format is never dropped or overwritten: the deploy stops and says why
//! ([`Unreadable`]); `folio deploy --repair` surveys the store without it.

use std::collections::{BTreeMap, BTreeSet};

use serde::{Deserialize, Serialize};

use super::outgoing::Headers;
use crate::output::manifest::hex128;

/// The record's key below the deploy prefix.
pub const RECORD: &str = ".folio-deploy.json.gz";
const VERSION: u32 = 4;
/// The format of a record that owes nothing: what every folio since format 2 reads.
const PLAIN: u32 = 2;
/// The format that kept what a CDN is owed beside the list's keys (`purging`).
const CDNS: u32 = 3;

/// Who is owed a purge of changed keys: whoever writes the purge list file, or a CDN.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Recipient {
    /// The purge list (`--purge-list`): what changed since one was last written.
    List,
    Cdn(crate::config::Cdn),
    /// A name no folio writes (`CloudFront:X`, ` cloudfront:X`): kept as read, for the
    /// ledger to drop and say so.
    Other(String),
}

impl Recipient {
    /// As the record names it: `cloudfront:ID`, `cloudflare:ZONE`.
    fn wire(&self) -> String {
        match self {
            Recipient::List => "list".into(),
            Recipient::Cdn(cdn) => cdn.to_string(),
            Recipient::Other(name) => name.clone(),
        }
    }

    /// The recipient a record names.
    fn from_wire(name: &str) -> Recipient {
        match name {
            "list" => Recipient::List,
            cdn => cdn.parse().map_or_else(|_| Recipient::Other(name.to_string()), Recipient::Cdn),
        }
    }
}

impl std::fmt::Display for Recipient {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Recipient::List => f.write_str("the purge list"),
            Recipient::Cdn(cdn) => write!(f, "{cdn}"),
            Recipient::Other(name) => write!(f, "`{}`", name.escape_debug()),
        }
    }
}

/// Who writes records: this folio, its version and commit, written into each.
fn writer() -> String {
    format!("folio {}", env!("FOLIO_VERSION"))
}

/// A record's `writer` as a message may show it: it is read from the store, so anything
/// may be there (escapes, a page of text): at most 80 characters, control and
/// direction-changing characters escaped.
fn shown_writer(raw: &str) -> String {
    let cut: String = raw.chars().take(80).collect();
    let shown = crate::diag::printable(&cut);
    if raw.chars().count() > 80 { format!("{shown}…") } else { shown.into_owned() }
}

/// How many bytes a record of `size` bytes (as the store lists it) may decompress to: an
/// entry of the record is about 100 bytes of JSON holding 32 hex digits of MD5, which no
/// compressor shrinks 64 times; a gzip bomb (1,000 times) stops here.
pub fn limit(size: u64) -> u64 {
    (1 << 20) + size.saturating_mul(64)
}

/// `bytes` (one gzip member) decompressed, refused past `max` bytes: the trailer's last
/// four bytes say the size (mod 2^32), no more than that (nor `max`) is allocated, and
/// libdeflate checks it against what it decompresses. When that fails, the trailer may be
/// data (a record cut short) or lie: decompressing into all of `max` tells what is wrong.
fn gunzip_within(bytes: &[u8], max: u64) -> Result<Vec<u8>, String> {
    let Some(trailer) = bytes.len().checked_sub(4).filter(|&at| at >= 18 - 4) else {
        return Err(format!("not gzip (only {} bytes)", bytes.len()));
    };
    let size = u64::from(u32::from_le_bytes(bytes[trailer..].try_into().expect("4 bytes")));
    let into = |room: u64| {
        let mut text = vec![0; usize::try_from(room).unwrap_or(usize::MAX)];
        let n = libdeflater::Decompressor::new().gzip_decompress(bytes, &mut text)?;
        text.truncate(n);
        Ok::<_, libdeflater::DecompressionError>(text)
    };
    if let Ok(text) = into(size.min(max))
        && text.len() as u64 == size
    {
        return Ok(text);
    }
    Err(match into(max) {
        Err(libdeflater::DecompressionError::InsufficientSpace) => {
            format!("it decompresses to more than {max} bytes, 64 times its {} bytes", bytes.len())
        }
        Err(libdeflater::DecompressionError::BadData) => {
            "not gzip: its data ends or breaks before its gzip stream does (cut short, or damaged)"
                .into()
        }
        Ok(_) => "not gzip (its size trailer does not match its data)".into(),
    })
}

/// Why the record on the store cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unreadable {
    /// Truncated, damaged, too large, or no record at all.
    #[error("{0}")]
    Damaged(String),
    /// Written by a newer folio, in a format this one does not know.
    #[error(
        "it is record format {format}, written by {writer}, and this folio ({this}) reads format {VERSION} and older"
    )]
    Newer { format: u32, writer: String, this: String },
}

/// An MD5 digest.
pub type Md5 = [u8; 16];

/// What folio put at one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Put {
    pub md5: Md5,
    /// xxh3-128 of the bytes, as folio's manifests record it (`None` for objects put by
    /// a folio before it recorded this): a deploy knows an unchanged file's MD5 from it
    /// without reading the file.
    pub xxh3: Option<u128>,
    pub size: u64,
    /// The store's ETag for the object, without quotes.
    pub etag: String,
    /// When the store last modified it (whole seconds since the Unix epoch), as a listing
    /// or a HEAD showed it; what vouches for an object on a store whose listings carry no
    /// ETags.
    pub modified: Option<i64>,
    /// Shared: a record of many objects has a handful of header sets.
    pub headers: std::sync::Arc<Headers>,
}

/// The whole record.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeployRecord {
    pub objects: BTreeMap<String, Put>,
    /// Objects folio wrote and no longer produces: deleted after the uploads, and kept
    /// here until they are gone.
    pub deleting: BTreeMap<String, Put>,
    /// Keys a deploy was about to upload, with every MD5 it meant to write there.
    pub pending: BTreeMap<String, BTreeSet<Md5>>,
    /// Until when (seconds since the Unix epoch) `pending` and `deleting` are kept for a
    /// deploy cut short that may still have a request on its way: every deploy until then
    /// checks them against the store again and keeps them. `None` with something pending:
    /// an intent no deploy has found yet (the first to find it starts the time).
    pub carried_until: Option<i64>,
    /// Per recipient, keys changed on the store that it has not been sent (the list) or
    /// has not accepted a purge of (a CDN); one owed nothing has no entry.
    pub owed: BTreeMap<Recipient, BTreeSet<String>>,
    /// Each `hosting/` file of the build published last (its name in that folder), with
    /// the xxh3-128 of its bytes.
    pub hosting: BTreeMap<String, u128>,
}

/// One object as stored: `[md5, size, etag, header set, xxh3, modified]`, the ETag left
/// empty when it is the MD5 (as S3's single-part ETags are), the xxh3 empty and the
/// modification time null when unknown.
type WirePut = (String, u64, String, usize, String, Option<i64>);

/// One object as format 1 stored it: no xxh3.
type WirePutV1 = (String, u64, String, usize);

/// The record as stored: `version` and `writer` (the folio that wrote it, `folio 0.1.0`),
/// read first on their own; header sets once, then the entries.
#[derive(Deserialize)]
struct Wire {
    headers: Vec<Headers>,
    objects: BTreeMap<String, WirePut>,
    #[serde(default)]
    deleting: BTreeMap<String, WirePut>,
    #[serde(default)]
    pending: BTreeMap<String, Vec<String>>,
    /// The purge list's keys.
    #[serde(default)]
    unpurged: Vec<String>,
    #[serde(default)]
    carried_until: Option<i64>,
    /// Format 3: the CDNs' keys.
    #[serde(default)]
    purging: BTreeMap<String, Vec<String>>,
    /// Format 4: each CDN's keys.
    #[serde(default)]
    owed: BTreeMap<String, Vec<String>>,
    /// Each `hosting/` file's xxh3-128 as hex (any format may carry it: older folios pass
    /// over it).
    #[serde(default)]
    hosting: BTreeMap<String, String>,
}

/// [`Wire`] as written, with its version and writer first, borrowed from the record.
#[derive(Serialize)]
struct WireOut<'a> {
    version: u32,
    writer: String,
    headers: Vec<&'a Headers>,
    objects: Entries<'a>,
    deleting: Entries<'a>,
    pending: Pending<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    unpurged: Option<&'a BTreeSet<String>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    carried_until: Option<i64>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    owed: BTreeMap<String, &'a BTreeSet<String>>,
    #[serde(skip_serializing_if = "BTreeMap::is_empty")]
    hosting: BTreeMap<&'a str, Hex>,
}

/// Objects as [`WirePut`]s, written one at a time.
struct Entries<'a>(&'a BTreeMap<String, Put>, &'a Sets);

impl Serialize for Entries<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(self.0.iter().map(|(key, p)| {
            let md5 = Hex::of(&p.md5);
            let etag = if p.etag == md5.as_str() { "" } else { p.etag.as_str() };
            let set = self.1.0.binary_search(&p.headers).expect("every set is listed");
            let xxh3 = p.xxh3.map_or(Hex::NONE, |x| Hex::of(&x.to_be_bytes()));
            (key, (md5, p.size, etag, set, xxh3, p.modified))
        }))
    }
}

/// Pending keys, each with its MD5s in hex.
struct Pending<'a>(&'a BTreeMap<String, BTreeSet<Md5>>);

impl Serialize for Pending<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_map(
            self.0.iter().map(|(key, md5s)| (key, md5s.iter().map(Hex::of).collect::<Vec<_>>())),
        )
    }
}

/// 16 bytes as 32 lowercase hex digits, on the stack; or none (written as `""`).
struct Hex([u8; 32], usize);

impl Hex {
    const NONE: Hex = Hex([0; 32], 0);

    fn of(bytes: &[u8; 16]) -> Hex {
        let mut digits = [0; 32];
        hex::encode_to_slice(bytes, &mut digits).expect("16 bytes are 32 digits");
        Hex(digits, 32)
    }

    fn as_str(&self) -> &str {
        std::str::from_utf8(&self.0[..self.1]).expect("hex digits are ASCII")
    }
}

impl Serialize for Hex {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

/// Format 1 (folio before deploys were journaled): objects as now, `deleting` as key to
/// ETag. Read, so that a store deployed by it keeps its history.
#[derive(Deserialize)]
struct WireV1 {
    headers: Vec<Headers>,
    objects: BTreeMap<String, WirePutV1>,
    #[serde(default)]
    deleting: BTreeMap<String, String>,
}

pub fn md5_hex(md5: &Md5) -> String {
    hex::encode(md5)
}

fn unhex(s: &str) -> Option<Md5> {
    let mut out = [0u8; 16];
    hex::decode_to_slice(s, &mut out).ok()?;
    Some(out)
}

/// An ETag as an MD5, when it is one (S3 and R2 single-part uploads, MinIO).
pub fn etag_md5(etag: &str) -> Option<Md5> {
    unhex(etag.trim_matches('"'))
}

/// Header sets, each once, and the index of each object's set.
struct Sets(Vec<std::sync::Arc<Headers>>);

impl Sets {
    fn of<'a>(puts: impl Iterator<Item = &'a Put>) -> Sets {
        let mut sets: Vec<std::sync::Arc<Headers>> = puts.map(|p| p.headers.clone()).collect();
        sets.sort();
        sets.dedup();
        Sets(sets)
    }

    fn read(sets: Vec<Headers>) -> Sets {
        Sets(sets.into_iter().map(std::sync::Arc::new).collect())
    }

    fn put(
        &self,
        key: &str,
        (md5, size, etag, set, xxh3, modified): WirePut,
    ) -> Result<Put, String> {
        let bad = || format!("a bad entry for `{key}`");
        let (Some(md5), Some(headers)) = (unhex(&md5), self.0.get(set)) else {
            return Err(bad());
        };
        let xxh3 = match xxh3.as_str() {
            "" => None,
            hex => Some(hex128::decode(hex).ok_or_else(bad)?),
        };
        let etag = if etag.is_empty() { md5_hex(&md5) } else { etag };
        Ok(Put { md5, xxh3, size, etag, modified, headers: headers.clone() })
    }
}

/// A key folio could have written: a clean relative path, with no control character and
/// none of `*?#` (which a purge would read as a wildcard or a query).
fn clean(key: &str) -> bool {
    crate::output::paths::is_clean(key)
        && !key.contains(|c: char| c.is_control() || "*?#".contains(c))
}

impl DeployRecord {
    /// The record as stored, gzipped. Written from the record itself, borrowed: a record
    /// of 100,000 objects is not copied into the shape it is stored in (each key and hash
    /// again) on its way out.
    pub fn to_bytes(&self) -> Vec<u8> {
        crate::compress::Codec::Gzip.compress(&self.json())
    }

    /// The digest of the record as stored (of its JSON, before it is gzipped): two records
    /// with one digest are stored as the same bytes.
    pub fn digest(&self) -> u128 {
        crate::output::hash(&self.json())
    }

    /// The record's JSON as stored (gzipped), ending with a newline.
    pub(super) fn json(&self) -> Vec<u8> {
        let sets = Sets::of(self.objects.values().chain(self.deleting.values()));
        let owed: BTreeMap<String, &BTreeSet<String>> = (self.owed.iter())
            .filter(|(to, keys)| **to != Recipient::List && !keys.is_empty())
            .map(|(to, keys)| (to.wire(), keys))
            .collect();
        let unpurged = self.owed.get(&Recipient::List).filter(|k| !k.is_empty());
        let wire = WireOut {
            version: if owed.is_empty() { PLAIN } else { VERSION },
            writer: writer(),
            headers: sets.0.iter().map(|h| &**h).collect(),
            objects: Entries(&self.objects, &sets),
            deleting: Entries(&self.deleting, &sets),
            pending: Pending(&self.pending),
            unpurged,
            carried_until: self.carried_until,
            owed,
            hosting: (self.hosting.iter())
                .map(|(name, d)| (name.as_str(), Hex::of(&d.to_be_bytes())))
                .collect(),
        };
        let mut json = serde_json::to_vec(&wire).expect("writing to a Vec cannot fail");
        json.push(b'\n');
        json
    }

    /// Parses a stored record of the size the store listed (`bytes`' length);
    /// `Err` says why it cannot be used.
    pub fn from_bytes(bytes: &[u8]) -> Result<DeployRecord, Unreadable> {
        DeployRecord::from_bytes_within(bytes, limit(bytes.len() as u64))
    }

    /// [`DeployRecord::from_bytes`], decompressing at most `max` bytes.
    pub fn from_bytes_within(bytes: &[u8], max: u64) -> Result<DeployRecord, Unreadable> {
        DeployRecord::parse(bytes, max).map_err(Unreadable::Damaged).and_then(|r| r)
    }

    fn parse(bytes: &[u8], max: u64) -> Result<Result<DeployRecord, Unreadable>, String> {
        let text = gunzip_within(bytes, max)?;
        #[derive(Deserialize)]
        struct Probe {
            version: u32,
            #[serde(default)]
            writer: String,
        }
        let probe =
            serde_json::from_slice::<Probe>(&text).map_err(|e| format!("not a record ({e})"))?;
        let version = probe.version;
        if version > VERSION {
            let by = match probe.writer.as_str() {
                "" => "a newer folio".into(),
                writer => shown_writer(writer),
            };
            return Ok(Err(Unreadable::Newer { format: version, writer: by, this: writer() }));
        }
        let not = |e: serde_json::Error| format!("not a record ({e})");
        let mut record = DeployRecord::default();
        match version {
            1 => {
                let wire: WireV1 = serde_json::from_slice(&text).map_err(not)?;
                let sets = Sets::read(wire.headers);
                for (key, (md5, size, etag, set)) in
                    wire.objects.into_iter().filter(|(k, _)| clean(k))
                {
                    let put = sets.put(&key, (md5, size, etag, set, String::new(), None))?;
                    record.objects.insert(key, put);
                }
                // Format 1 kept no MD5 of a delete; an ETag that is one stands for it.
                for (key, etag) in wire.deleting.into_iter().filter(|(k, _)| clean(k)) {
                    if let Some(md5) = etag_md5(&etag) {
                        let headers = Headers::default().into();
                        let put = Put { md5, xxh3: None, size: 0, etag, modified: None, headers };
                        record.deleting.insert(key, put);
                    }
                }
            }
            PLAIN | CDNS | VERSION => {
                let wire: Wire = serde_json::from_slice(&text).map_err(not)?;
                let sets = Sets::read(wire.headers);
                for (key, entry) in wire.objects.into_iter().filter(|(k, _)| clean(k)) {
                    let put = sets.put(&key, entry)?;
                    record.objects.insert(key, put);
                }
                for (key, entry) in wire.deleting.into_iter().filter(|(k, _)| clean(k)) {
                    let put = sets.put(&key, entry)?;
                    record.deleting.insert(key, put);
                }
                for (key, md5s) in wire.pending.into_iter().filter(|(k, _)| clean(k)) {
                    let md5s = md5s.iter().map(|m| unhex(m)).collect::<Option<_>>();
                    record
                        .pending
                        .insert(key.clone(), md5s.ok_or(format!("a bad entry for `{key}`"))?);
                }
                record.carried_until = wire.carried_until;
                // Evidence only compared with the build's own files: a name that is not a
                // plain one, or a digest that is not one, is none of them.
                record.hosting = (wire.hosting.into_iter())
                    .filter(|(name, _)| clean(name))
                    .filter_map(|(name, hex)| Some((name, hex128::decode(&hex)?)))
                    .collect();
                let list = ("list".to_string(), wire.unpurged);
                // Taken as written: the ledger checks each against the build, and says
                // what it drops.
                for (to, keys) in wire.owed.into_iter().chain([list]).chain(wire.purging) {
                    record.owed.entry(Recipient::from_wire(&to)).or_default().extend(keys);
                }
                record.owed.retain(|_, keys| !keys.is_empty());
            }
            other => return Err(format!("record format {other} is no format folio wrote")),
        }
        Ok(Ok(record))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn h(ct: &str) -> std::sync::Arc<Headers> {
        Headers {
            content_type: ct.into(),
            cache_control: Some("max-age=1".into()),
            content_encoding: None,
        }
        .into()
    }

    fn gz(text: &str) -> Vec<u8> {
        use std::io::Write;
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(text.as_bytes()).unwrap();
        gz.finish().unwrap()
    }

    #[test]
    fn round_trips_and_drops_unclean_keys() {
        let mut r = DeployRecord::default();
        let md5 = [7u8; 16];
        r.objects.insert(
            "api/a.json".into(),
            Put {
                md5,
                xxh3: Some(5),
                size: 3,
                etag: md5_hex(&md5),
                modified: Some(17),
                headers: h("application/json"),
            },
        );
        r.objects.insert(
            "x.html".into(),
            Put {
                md5,
                xxh3: None,
                size: 4,
                etag: "1-2-3".into(),
                modified: None,
                headers: h("text/html"),
            },
        );
        r.deleting.insert(
            "api/old.json".into(),
            Put {
                md5: [9; 16],
                xxh3: Some(u128::MAX),
                size: 5,
                etag: "abc".into(),
                modified: Some(-1),
                headers: h("text/css"),
            },
        );
        r.pending.insert("api/b.json".into(), [[1; 16], [2; 16]].into());
        r.hosting.insert("nginx.conf".into(), u128::MAX - 1);
        let back = DeployRecord::from_bytes(&r.to_bytes()).unwrap();
        assert_eq!(back, r);
        let format = |r: &DeployRecord| -> u64 {
            let text = gunzip_within(&r.to_bytes(), 1 << 20).unwrap();
            serde_json::from_slice::<serde_json::Value>(&text).unwrap()["version"].as_u64().unwrap()
        };
        assert_eq!(format(&r), 2, "a record that owes nothing is what an older folio reads");
        // What the purge list is owed is what format 2 kept (`unpurged`): still format 2.
        r.owed.insert(Recipient::List, ["api/c.json".into()].into());
        let back = DeployRecord::from_bytes(&r.to_bytes()).unwrap();
        assert_eq!((back, format(&r)), (r.clone(), 2));
        // Owing a CDN, it is format 4: an older folio refuses it rather than drop what is owed.
        let cdn = Recipient::Cdn(crate::config::Cdn::CloudFront("E2QWRUHAPOMQZL".into()));
        r.owed.insert(cdn, ["api/d.json".into()].into());
        let back = DeployRecord::from_bytes(&r.to_bytes()).unwrap();
        assert_eq!((back, format(&r)), (r.clone(), 4));

        let wire = r#"{"version":2,"headers":[{"content_type":"x"}],"objects":{"../up":["07070707070707070707070707070707",1,"",0,"",null]},"deleting":{"/etc/passwd":["07070707070707070707070707070707",1,"e",0,"",null]},"pending":{"a//b":[]},"unpurged":["../x"],"purging":{"cloudfront:E2QWRUHAPOMQZL":["../y","api/*","a\nb"],"../z":["a.json"]},"hosting":{"../nginx.conf":"00000000000000000000000000000001","Caddyfile":"not hex"}}"#;
        let hostile = DeployRecord::from_bytes(&gz(wire)).unwrap();
        // What is owed is taken as written, for the ledger to check against the build.
        let owed: Vec<usize> = hostile.owed.values().map(BTreeSet::len).collect();
        assert_eq!(owed, [1, 3, 1], "the list's, the CDN's, and `../z`'s for the ledger to drop");
        assert_eq!(DeployRecord { owed: BTreeMap::new(), ..hostile }, DeployRecord::default());
        assert!(DeployRecord::from_bytes(b"not gzip").is_err());
        assert_eq!(
            DeployRecord::from_bytes(&gz(r#"{"version":5,"writer":"folio 9.0.0"}"#)).unwrap_err(),
            Unreadable::Newer { format: 5, writer: "folio 9.0.0".into(), this: writer() }
        );
        let newer = DeployRecord::from_bytes(&gz(r#"{"version":5}"#)).unwrap_err().to_string();
        assert!(newer.starts_with("it is record format 5, written by a newer folio"), "{newer}");
    }

    #[test]
    fn a_record_is_written_in_its_stored_shape_and_digested_as_those_bytes() {
        let mut r = DeployRecord::default();
        let put = |md5: [u8; 16], xxh3, etag: &str, modified, ct| Put {
            md5,
            xxh3,
            size: 3,
            etag: etag.into(),
            modified,
            headers: h(ct),
        };
        r.objects.insert(
            "api/a.json".into(),
            put([7; 16], Some(5), &md5_hex(&[7; 16]), Some(17), "x/json"),
        );
        r.deleting.insert("api/old.json".into(), put([9; 16], None, "abc", None, "text/css"));
        r.pending.insert("api/b.json".into(), [[1; 16]].into());
        r.owed.insert(Recipient::List, ["api/c.json".into()].into());
        r.hosting.insert("nginx.conf".into(), 1);
        let (d7, d9, d1) = ("07".repeat(16), "09".repeat(16), "01".repeat(16));
        let (x5, x1) = (format!("{:032x}", 5), format!("{:032x}", 1));
        let headers = r#"[{"content_type":"text/css","cache_control":"max-age=1"},{"content_type":"x/json","cache_control":"max-age=1"}]"#;
        let expected = format!(
            r#"{{"version":2,"writer":"{}","headers":{headers},"objects":{{"api/a.json":["{d7}",3,"",1,"{x5}",17]}},"deleting":{{"api/old.json":["{d9}",3,"abc",0,"",null]}},"pending":{{"api/b.json":["{d1}"]}},"unpurged":["api/c.json"],"hosting":{{"nginx.conf":"{x1}"}}}}"#,
            writer()
        ) + "\n";
        assert_eq!(String::from_utf8(r.json()).unwrap(), expected);
        // The digest is of the bytes stored: a CDN owed nothing is not written, so it is
        // the same record; a key more is another.
        let digest = r.digest();
        let cdn = Recipient::Cdn(crate::config::Cdn::CloudFront("E2QWRUHAPOMQZL".into()));
        r.owed.insert(cdn.clone(), BTreeSet::new());
        assert_eq!(r.digest(), digest);
        r.owed.insert(cdn, ["api/d.json".into()].into());
        assert_ne!(r.digest(), digest);
    }

    #[test]
    fn a_gzip_bomb_stops_at_a_limit_of_its_listed_size() {
        // 64 MiB of one byte compresses to a few hundred KiB: past 64 times that.
        let bomb = gz(&" ".repeat(64 << 20));
        assert!(limit(bomb.len() as u64) < 64 << 20, "{}", bomb.len());
        let e = DeployRecord::from_bytes(&bomb).unwrap_err().to_string();
        assert!(e.starts_with("it decompresses to more than"), "{e}");
        // A real record of many entries stays well inside its limit.
        let mut r = DeployRecord::default();
        for i in 0..20_000u32 {
            let md5 = crate::deploy::outgoing::md5_of(&i.to_le_bytes());
            r.objects.insert(
                format!("api/en/attractions/10/{i}.json"),
                Put {
                    md5,
                    xxh3: Some(u128::from(i) << 64 | 7),
                    size: 4000 + u64::from(i % 100),
                    etag: md5_hex(&md5),
                    modified: None,
                    headers: h("application/json"),
                },
            );
        }
        let bytes = r.to_bytes();
        assert_eq!(DeployRecord::from_bytes(&bytes).unwrap(), r);
        // Cut short anywhere, it is said to be so, whatever its last four bytes say.
        for cut in [bytes.len() / 3, bytes.len() / 2, bytes.len() - 9, bytes.len() - 1] {
            let e = DeployRecord::from_bytes(&bytes[..cut]).unwrap_err().to_string();
            assert!(e.contains("cut short"), "{cut}: {e}");
        }
    }

    #[test]
    fn formats_2_and_3_owe_what_they_kept_apart_in_one_ledger() {
        let v3 = r#"{"version":3,"headers":[],"objects":{},"unpurged":["api/a.json"],"purging":{"cloudfront:E2QWRUHAPOMQZL":["api/b.json"],"fastly:x":["api/c.json"]}}"#;
        let r = DeployRecord::from_bytes(&gz(v3)).unwrap();
        let cdn = Recipient::Cdn(crate::config::Cdn::CloudFront("E2QWRUHAPOMQZL".into()));
        let want: BTreeMap<Recipient, BTreeSet<String>> = [
            (Recipient::List, ["api/a.json".to_string()].into()),
            (cdn, ["api/b.json".to_string()].into()),
            (Recipient::Other("fastly:x".into()), ["api/c.json".to_string()].into()),
        ]
        .into();
        assert_eq!(r.owed, want, "a recipient no folio names is read as such, for the ledger");
        let v2 = r#"{"version":2,"headers":[],"objects":{},"unpurged":["api/a.json"]}"#;
        assert_eq!(DeployRecord::from_bytes(&gz(v2)).unwrap().owed.len(), 1);
    }

    #[test]
    fn format_1_is_read() {
        let v1 = r#"{"version":1,"headers":[{"content_type":"x"}],"objects":{"api/a.json":["07070707070707070707070707070707",1,"",0]},"deleting":{"api/b.json":"08080808080808080808080808080808","api/c.json":"opaque"}}"#;
        let r = DeployRecord::from_bytes(&gz(v1)).unwrap();
        assert_eq!(r.objects["api/a.json"].etag, md5_hex(&[7; 16]));
        assert_eq!(r.deleting.keys().collect::<Vec<_>>(), ["api/b.json"]);
        assert_eq!(r.deleting["api/b.json"].md5, [8; 16]);
    }

    #[test]
    fn etags_that_are_md5s_are_read_as_such() {
        assert_eq!(etag_md5("\"07070707070707070707070707070707\""), Some([7u8; 16]));
        assert_eq!(etag_md5("07070707070707070707070707070707-2"), None);
        assert_eq!(etag_md5("W/\"x\""), None);
    }
}
