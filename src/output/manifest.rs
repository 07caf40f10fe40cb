//! `.folio-manifest.json`: what folio wrote into a folder, one entry per file with the
//! content hash, size and modification time seen after writing. It is how folio knows
//! which files are its own (to update or remove) and which it must never touch.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub const MANIFEST: &str = ".folio-manifest.json";

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Entry {
    /// xxh3-128 of the content, hex.
    #[serde(with = "hex128")]
    pub hash: u128,
    pub size: u64,
    /// Modification time in nanoseconds since the Unix epoch, as stat saw it.
    pub mtime: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Manifest {
    pub version: u32,
    /// Fingerprint of the inputs that produced these files (empty when unknown).
    #[serde(default)]
    pub fingerprint: String,
    /// How many records the build had (reported again by a build that skips its work).
    #[serde(default)]
    pub records: usize,
    pub files: BTreeMap<String, Entry>,
}

impl Manifest {
    pub fn new(fingerprint: String, records: usize, files: BTreeMap<String, Entry>) -> Self {
        Manifest { version: 1, fingerprint, records, files }
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

    /// The digest of [`Manifest::to_bytes`], computed without building the bytes.
    pub fn digest(&self) -> u128 {
        struct Hasher(xxhash_rust::xxh3::Xxh3);
        impl std::io::Write for Hasher {
            fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
                self.0.update(buf);
                Ok(buf.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut h = Hasher(xxhash_rust::xxh3::Xxh3::new());
        self.write_to(&mut h).expect("hashing cannot fail");
        h.0.digest128()
    }

    pub fn from_bytes(bytes: &[u8]) -> Result<Manifest, serde_json::Error> {
        serde_json::from_slice(bytes)
    }
}

pub(crate) mod hex128 {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &u128, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&format!("{v:032x}"))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<u128, D::Error> {
        let s = String::deserialize(d)?;
        u128::from_str_radix(&s, 16).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips() {
        let mut files = BTreeMap::new();
        files.insert("api/a.json".to_string(), Entry { hash: u128::MAX - 5, size: 3, mtime: 42 });
        let m = Manifest::new("fp".into(), 3, files);
        assert_eq!(Manifest::from_bytes(&m.to_bytes()).unwrap(), m);
        assert_eq!(m.digest(), crate::output::hash(&m.to_bytes()));
    }
}
