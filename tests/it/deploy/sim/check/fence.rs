//! Every write and every release of the lease came from its holder.

use super::super::World;

/// No write went out without the lease, and no lease was let go by another.
pub(in super::super) fn held(w: &World) -> Result<(), String> {
    match w.fence_broken.first() {
        Some(broken) => Err(format!("the lease did not fence: {broken}")),
        None => Ok(()),
    }
}
