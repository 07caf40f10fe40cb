//! No deploy sent its CDN a path outside what folio could have written: each is a file of
//! one of the builds, a page of folio's layout (`api/{lang}/{resource}/{size}/{page}.json`
//! of any language and resource, as a language since removed leaves), the query form of an
//! endpoint, or a wildcard of an endpoint, of the API or of the mount — whatever the record
//! said was owed. Judged here by its own reading of the layout, not folio's.

use std::collections::BTreeSet;

use super::super::World;

/// Each path each deploy sent lies inside the builds' paths (`keys`: every build's files).
pub(in super::super) fn held(w: &World, keys: &BTreeSet<String>) -> Result<(), String> {
    let name = regex::Regex::new("^[a-z0-9][a-z0-9_-]{0,63}$").unwrap();
    let number = regex::Regex::new("^[1-9][0-9]{0,8}$").unwrap();
    let endpoint = |p: &str| {
        let segs: Vec<&str> = p.split('/').collect();
        segs.len() >= 2
            && segs.len() <= 3
            && segs[0] == "api"
            && segs[1..].iter().all(|s| name.is_match(s))
    };
    let page = |p: &str| {
        let Some(stem) = p.strip_suffix(".json") else { return false };
        let segs: Vec<&str> = stem.rsplitn(3, '/').collect();
        matches!(segs.as_slice(), [n, s, e] if number.is_match(n) && number.is_match(s) && endpoint(e))
    };
    for (i, c) in w.clients.iter().enumerate() {
        for path in &c.paid_paths {
            let rel = path.strip_prefix('/').unwrap_or("/");
            let inside = match rel.strip_suffix('*') {
                Some(prefix) => prefix.is_empty() || prefix == "api/" || endpoint(prefix),
                None => match rel.split_once('?') {
                    Some((endpoint_path, _)) => endpoint(endpoint_path),
                    None => keys.contains(rel) || endpoint(rel) || page(rel),
                },
            };
            if !inside {
                return Err(format!("client {i} sent its CDN `{path}`, no path of the build"));
            }
        }
    }
    Ok(())
}
