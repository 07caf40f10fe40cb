//! No deploy sent its CDN a path outside the builds' paths: each is a file of one of the
//! builds, the query form of an endpoint, or a wildcard of an endpoint, of the API or of
//! the mount, whatever the record said was owed.

use std::collections::BTreeSet;

use super::super::World;

/// Each path each deploy sent lies inside the builds' paths (`keys`: every build's files).
pub(in super::super) fn held(w: &World, keys: &BTreeSet<String>) -> Result<(), String> {
    let endpoint = |p: &str| {
        let segs: Vec<&str> = p.split('/').collect();
        matches!(
            segs.as_slice(),
            ["api", "attractions"] | ["api", "en" | "fr" | "ja" | "th", "attractions"]
        )
    };
    for (i, c) in w.clients.iter().enumerate() {
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
