//! No page reachable from a listing's first page links to an object that is not there:
//! checked after every change the store takes (`store.rs`), except in schedules with a
//! request that lands late, which may put an old page back for a moment.

use std::collections::BTreeSet;

use futures::StreamExt;
use object_store::memory::InMemory;
use object_store::path::Path as Key;
use object_store::{ObjectMeta, ObjectStore};

use super::super::{PREFIX, World};
use super::{bytes_of, followed};

/// A link of a reachable page to an object that is not on the store, if there is one.
/// Pages start at every listing's first page on the store; links are path-form URLs
/// (the builds use `url_style = "path"`).
pub(in super::super) async fn dangling(store: &InMemory) -> Option<String> {
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

/// No reachable page linked to a missing object at any step.
pub(in super::super) fn held(w: &World) -> Result<(), String> {
    match w.broken.first() {
        Some(broken) => Err(format!("a reachable page linked to a missing object {broken}")),
        None => Ok(()),
    }
}
