//! A client's clock: the simulation's virtual time, stopped while its machine is
//! suspended.

use std::time::Duration;

use super::Shared;

/// A client's clock on the simulation's virtual time: its monotonic part stops while the
/// client's machine is suspended, and the time it missed is what a clock that counts
/// suspend (`CLOCK_BOOTTIME`) adds back.
pub(super) struct SimClock {
    pub(super) world: Shared,
    pub(super) client: usize,
}

impl folio::deploy::clock::Clock for SimClock {
    fn monotonic(&self) -> tokio::time::Instant {
        tokio::time::Instant::now() - self.suspended()
    }

    fn suspended(&self) -> Duration {
        let now = tokio::time::Instant::now();
        let w = self.world.lock().unwrap();
        let suspends = &w.clients[self.client].suspends;
        suspends.iter().map(|&(at, long)| now.saturating_duration_since(at).min(long)).sum()
    }
}
