//! `.folio-manifest.json`: what folio wrote into a folder, one entry per file with the
//! content hash, size and modification time seen after writing. It is how folio knows
//! which files are its own (to update or remove) and which it must never touch.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub const MANIFEST: &str = ".folio-manifest.json";

/// The manifest format this folio reads and writes.
pub const VERSION: u32 = 1;

/// Why a manifest cannot be used.
#[derive(Debug, thiserror::Error)]
pub enum ManifestError {
    #[error("it is not a folio manifest ({0})")]
    Invalid(serde_json::Error),
    #[error(
        "it was written by another folio version (manifest format {found}; this folio reads format {VERSION})"
    )]
    Version { found: u64 },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// xxh3-128 of the content, hex.
    #[serde(with = "hex128")]
    pub hash: u128,
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch, as stat saw it.
    pub mtime: u64,
}

/// What produced a build, recorded with its files.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Stamp {
    /// Fingerprint of the inputs that produced these files (empty when unknown).
    #[serde(default)]
    pub fingerprint: String,
    /// How many records the build had (reported again by a build that skips its work).
    #[serde(default)]
    pub records: usize,
    /// The base URL the pages' links start with (`folio deploy` names public URLs by it),
    /// typed: written as the URL, read back parsed.
    #[serde(default)]
    pub base_url: crate::config::BaseUrl,
    /// Digest of the config file's bytes (`folio deploy` refuses an output it did not make).
    #[serde(default)]
    pub config: String,
}

/// The manifest: its format's version, what produced the files, and the files. Keys it
/// does not know are ignored (a later folio of the same format may add some).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Manifest {
    pub version: u32,
    #[serde(flatten)]
    pub stamp: Stamp,
    pub files: BTreeMap<String, Entry>,
}

impl Manifest {
    pub fn new(stamp: Stamp, files: BTreeMap<String, Entry>) -> Self {
        Manifest { version: VERSION, stamp, files }
    }

    /// Writes the manifest as one line of compact JSON (it can list hundreds of
    /// thousands of files; pretty-printing would double its size).
    pub fn write_to(&self, out: impl std::io::Write) -> std::io::Result<()> {
        let mut out = out;
        serde_json::to_writer(&mut out, self)?;
        out.write_all(b"\n")
    }

    pub fn to_bytes(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write_to(&mut out).expect("writing to a Vec cannot fail");
        out
    }

    /// Parses a manifest of this folio's format. A manifest of another format is named
    /// as such (not as garbage), whether or not its shape happens to parse.
    pub fn from_bytes(bytes: &[u8]) -> Result<Manifest, ManifestError> {
        #[derive(Deserialize)]
        struct Probe {
            version: u64,
        }
        match serde_json::from_slice::<Manifest>(bytes) {
            Ok(m) if m.version == VERSION => Ok(m),
            Ok(m) => Err(ManifestError::Version { found: m.version.into() }),
            Err(e) => match serde_json::from_slice::<Probe>(bytes) {
                Ok(Probe { version }) if version != u64::from(VERSION) => {
                    Err(ManifestError::Version { found: version })
                }
                _ => Err(ManifestError::Invalid(e)),
            },
        }
    }
}

/// A 128-bit hash as 32 lowercase hex digits, as the manifest and the deploy record write
/// it (serde's `with` for the manifest).
pub(crate) mod hex128 {
    use serde::{Deserialize, Deserializer, Serializer};

    #[cfg(test)]
    pub fn encode(v: u128) -> String {
        digits(v, &mut [0; 32]).to_string()
    }

    /// `v`'s 32 digits, written into `buf` (no allocation: a manifest holds one a file).
    fn digits(v: u128, buf: &mut [u8; 32]) -> &str {
        hex::encode_to_slice(v.to_be_bytes(), buf).expect("16 bytes are 32 digits");
        std::str::from_utf8(buf).expect("hex digits are ASCII")
    }

    /// Exactly 32 hex digits, or `None`.
    pub fn decode(s: &str) -> Option<u128> {
        let mut bytes = [0u8; 16];
        hex::decode_to_slice(s, &mut bytes).ok()?;
        Some(u128::from_be_bytes(bytes))
    }

    pub fn serialize<S: Serializer>(v: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(digits(*v, &mut [0; 32]))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let s = String::deserialize(d)?;
        decode(&s).ok_or_else(|| serde::de::Error::custom(format!("not 32 hex digits: `{s}`")))
    }

    #[cfg(test)]
    #[test]
    fn round_trips_and_refuses_anything_but_32_digits() {
        for v in [0, 1, u128::MAX, 0x0123_4567_89ab_cdef] {
            assert_eq!(decode(&encode(v)), Some(v));
            assert_eq!(encode(v).len(), 32);
        }
        for bad in ["", "1", "+0000000000000000000000000000001", "g0000000000000000000000000000000"]
        {
            assert_eq!(decode(bad), None, "{bad}");
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let mut files = BTreeMap::new();
        files.insert("api/a.json".to_string(), Entry { hash: u128::MAX - 5, size: 3, mtime: 42 });
        let stamp = Stamp { fingerprint: "fp".into(), records: 3, ..Stamp::default() };
        let m = Manifest::new(stamp, files);
        assert_eq!(Manifest::from_bytes(&m.to_bytes()).unwrap(), m);
    }

    #[test]
    fn another_format_is_named_as_such() {
        let newer = br#"{"version": 2, "files": {"a": 1}, "signed": true}"#;
        let e = Manifest::from_bytes(newer).unwrap_err();
        assert!(matches!(e, ManifestError::Version { found: 2 }), "{e}");
        let same_shape = br#"{"version": 7, "files": {}}"#;
        assert!(matches!(
            Manifest::from_bytes(same_shape),
            Err(ManifestError::Version { found: 7 })
        ));
        for garbage in [&b"not json"[..], b"[]", br#"{"version": 1, "files": 3}"#] {
            assert!(matches!(Manifest::from_bytes(garbage), Err(ManifestError::Invalid(_))));
        }
    }
}
