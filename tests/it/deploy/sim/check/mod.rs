//! What must hold, one checker a property (as TigerBeetle keeps its checkers): the links of
//! what is reachable after every change the store takes (`links.rs`); after every
//! schedule, the store equal to the last build after one clean deploy (`settled.rs`), no
//! write without the lease (`fence.rs`), every change purged by a later purge list and a
//! later purge the CDN accepted (`purged.rs`), no deploy paying more than its bound
//! (`bounded.rs`) or a path outside the builds' (`inside.rs`), whatever the record said,
//! and no batch the CDN accepted and its deploy struck paid again (`paid_once.rs`).

use object_store::ObjectStoreExt;
use object_store::memory::InMemory;
use object_store::path::Path as Key;

use super::PREFIX;

pub(super) mod bounded;
pub(super) mod fence;
pub(super) mod inside;
pub(super) mod links;
pub(super) mod paid_once;
pub(super) mod purged;
pub(super) mod settled;

/// Is `key` (below the prefix) an object whose changes the invariants follow?
pub(super) fn followed(key: &str) -> Option<&str> {
    let rel = key.strip_prefix(PREFIX)?.strip_prefix('/')?;
    (!rel.starts_with(".folio-")).then_some(rel)
}

/// The bytes of `key` on the store, or `None` when it is not there.
pub(super) async fn bytes_of(store: &InMemory, key: &Key) -> Option<Vec<u8>> {
    match store.get(key).await {
        Ok(got) => Some(got.bytes().await.unwrap().to_vec()),
        Err(_) => None,
    }
}
