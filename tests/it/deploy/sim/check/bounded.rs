//! No deploy sent its CDN more paths than its bound (`max_purge_paths`), whatever it
//! changed and whatever the record said was owed.

use super::super::World;

/// Each client's deploy sent at most `bound` paths.
pub(in super::super) fn held(w: &World, bound: usize) -> Result<(), String> {
    for (i, c) in w.clients.iter().enumerate() {
        if c.paid_paths.len() > bound {
            return Err(format!(
                "client {i} sent its CDN {} paths, past the bound of {bound}",
                c.paid_paths.len()
            ));
        }
    }
    Ok(())
}
