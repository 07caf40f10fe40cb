//! After one clean deploy, the store holds the last build exactly (and a foreign object as
//! it was): no folio-owned orphan, nothing missing.

use std::collections::BTreeMap;

use futures::StreamExt;
use object_store::memory::InMemory;
use object_store::{ObjectMeta, ObjectStore};

use super::{bytes_of, followed};

/// After the clean deploy: the store holds `want` exactly (the objects the invariants
/// follow, by their key below the prefix).
pub(in super::super) async fn store_is(
    inner: &InMemory,
    want: &BTreeMap<String, Vec<u8>>,
) -> Result<(), String> {
    let all: Vec<ObjectMeta> = inner.list(None).map(|m| m.unwrap()).collect().await;
    let mut have = BTreeMap::new();
    for meta in all {
        let Some(rel) = followed(meta.location.as_ref()) else { continue };
        have.insert(rel.to_string(), bytes_of(inner, &meta.location).await.unwrap());
    }
    if have != *want {
        let extra: Vec<&String> = have.keys().filter(|k| !want.contains_key(*k)).take(5).collect();
        let wrong: Vec<&String> =
            want.keys().filter(|k| have.get(*k) != want.get(*k)).take(5).collect();
        return Err(format!(
            "the store is not the build after a clean deploy: extra {extra:?}, missing or other bytes {wrong:?}"
        ));
    }
    Ok(())
}
