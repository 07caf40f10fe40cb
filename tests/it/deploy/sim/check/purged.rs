//! Every key whose bytes changed is named by a purge list written at or after that moment,
//! and by a purge the CDN accepted at or after it.

use super::super::World;

/// Each change reached a later purge list and a later purge the CDN accepted.
pub(in super::super) fn held(w: &World) -> Result<(), String> {
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
