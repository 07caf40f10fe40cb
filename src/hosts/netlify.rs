//! The netlify target (not written yet).

use super::{HostCtx, HostFile};

pub fn render(_ctx: &HostCtx) -> Vec<HostFile> {
    Vec::new()
}
