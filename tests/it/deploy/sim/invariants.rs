//! The invariants: after every change the store takes, no page reachable from a listing's
//! first page links to an object that is not there; after every schedule, one clean
//! deploy leaves the store equal to its build (a foreign object as it was), no write went
//! out without the lease, and every key whose bytes changed is named by a purge list
//! written at or after that moment and by a purge the CDN accepted at or after it; no
//! deploy sent its CDN more paths than the bound, or a path outside the builds' paths,
//! whatever the record said was owed.

use std::collections::{BTreeMap, BTreeSet};

use futures::StreamExt;
use object_store::memory::InMemory;
use object_store::path::Path as Key;
use object_store::{ObjectMeta, ObjectStore, ObjectStoreExt};

use super::{PREFIX, World};

/// Is `key` (below the prefix) an object whose changes the invariants follow?
pub(super) fn followed(key: &str) -> Option<&str> {
    let rel = key.strip_prefix(PREFIX)?.strip_prefix('/')?;
    (!rel.starts_with(".folio-")).then_some(rel)
}

pub(super) async fn bytes_of(store: &InMemory, key: &Key) -> Option<Vec<u8>> {
    match store.get(key).await {
        Ok(got) => Some(got.bytes().await.unwrap().to_vec()),
        Err(_) => None,
    }
}

/// A link of a reachable page to an object that is not on the store, if there is one.
/// Pages start at every listing's first page on the store; links are path-form URLs
/// (the builds use `url_style = "path"`).
pub(super) async fn dangling(store: &InMemory) -> Option<String> {
    let all: Vec<ObjectMeta> = store.list(None).map(|m| m.unwrap()).collect().await;
    let keys: BTreeSet<String> = all.iter().map(|m| m.location.to_string()).collect();
    let entries = keys.iter().filter(|k| {
        k.ends_with("/1.json")
            && followed(k).is_some_and(|r| r.starts_with("api/") && !r.starts_with("api/errors/"))
    });
    let mut todo: Vec<String> = entries.cloned().collect();
    let mut seen = BTreeSet::new();
    while let Some(key) = todo.pop() {
        if !seen.insert(key.clone()) {
            continue;
        }
        let Some(bytes) = bytes_of(store, &Key::from(key.as_str())).await else { continue };
        let Ok(page) = serde_json::from_slice::<serde_json::Value>(&bytes) else { continue };
        for name in ["first", "prev", "next", "last"] {
            let Some(url) = page["links"][name].as_str() else { continue };
            let target = format!("{PREFIX}{url}");
            if !keys.contains(&target) {
                return Some(format!("`{key}` links ({name}) to `{target}`, which is not there"));
            }
            todo.push(target);
        }
    }
    None
}

/// After the clean deploy: the store holds `want` exactly (the objects the invariants
/// follow, by their key below the prefix).
pub(super) async fn store_is(
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

/// What the world saw held all along: every write and release fenced by the lease, no
/// reachable page linking to a missing object, every change named by a later purge list.
pub(super) fn held(w: &World) -> Result<(), String> {
    if let Some(broken) = w.fence_broken.first() {
        return Err(format!("the lease did not fence: {broken}"));
    }
    if let Some(broken) = w.broken.first() {
        return Err(format!("a reachable page linked to a missing object {broken}"));
    }
    for (at, key) in &w.changes {
        if !w.purges.iter().any(|(when, keys)| when >= at && keys.contains(key)) {
            return Err(format!("`{key}` changed at {at} ms and no later purge list names it"));
        }
        if !w.cdn_purges.iter().any(|(when, keys)| when >= at && keys.contains(key)) {
            return Err(format!(
                "`{key}` changed at {at} ms and the CDN accepted no later purge of it"
            ));
        }
    }
    Ok(())
}

/// What each deploy sent its CDN: at most `bound` paths, each one of the builds' files, a
/// query form of an endpoint, or a wildcard of an endpoint, of the API or of the mount.
pub(super) fn paid_within(w: &World, bound: usize, keys: &BTreeSet<String>) -> Result<(), String> {
    let endpoint = |p: &str| {
        let segs: Vec<&str> = p.split('/').collect();
        matches!(
            segs.as_slice(),
            ["api", "attractions"] | ["api", "en" | "fr" | "ja" | "th", "attractions"]
        )
    };
    for (i, c) in w.clients.iter().enumerate() {
        if c.paid_paths.len() > bound {
            return Err(format!(
                "client {i} sent its CDN {} paths, past the bound of {bound}",
                c.paid_paths.len()
            ));
        }
        for path in &c.paid_paths {
            let rel = path.strip_prefix('/').unwrap_or("/");
            let inside = match rel.strip_suffix('*') {
                Some(prefix) => prefix.is_empty() || prefix == "api/" || endpoint(prefix),
                None => match rel.split_once('?') {
                    Some((endpoint_path, _)) => endpoint(endpoint_path),
                    None => keys.contains(rel) || endpoint(rel),
                },
            };
            if !inside {
                return Err(format!("client {i} sent its CDN `{path}`, no path of the build"));
            }
        }
    }
    Ok(())
}
