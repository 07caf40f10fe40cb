//! The clock the deploy lease reads (`lease.rs`). Its fence asks how long ago the last
//! renewal was confirmed, and that must count the time the machine was suspended (a
//! laptop lid, a VM paused or migrated): the monotonic clock that timers use does not,
//! on Linux (`CLOCK_MONOTONIC`) and macOS (`mach_absolute_time`), so a holder that woke
//! after a takeover would believe its lease fresh and write into another deploy.
//!
//! [`Clock::now`] is tokio's monotonic instant (virtual in the simulation's tests) plus the
//! time it did not count: how much further a clock that counts suspend went since the
//! [`Clock`] was made than std's monotonic one did. That clock is `CLOCK_BOOTTIME` on
//! Linux and Android and `CLOCK_MONOTONIC` on macOS (which counts sleep there); Windows'
//! monotonic clock (`QueryPerformanceCounter`) counts it already, and elsewhere nothing
//! is added. The simulation gives each client a clock of its own whose monotonic part
//! stops while it is suspended (`tests/it/deploy/sim/`).

use std::time::Duration;

use tokio::time::Instant;

/// Time as the lease measures it.
pub trait Clock: Send + Sync {
    /// The monotonic clock timers run on.
    fn monotonic(&self) -> Instant {
        Instant::now()
    }

    /// How long the machine was suspended since this clock was made: time
    /// [`Clock::monotonic`] did not count.
    fn suspended(&self) -> Duration;

    /// Now, the time the machine was suspended included.
    fn now(&self) -> Instant {
        self.monotonic() + self.suspended()
    }
}

/// The machine's clocks.
pub struct System {
    start: std::time::Instant,
    counting: Option<Duration>,
}

impl System {
    pub fn new() -> System {
        System { start: std::time::Instant::now(), counting: counting() }
    }
}

impl Default for System {
    fn default() -> System {
        System::new()
    }
}

impl Clock for System {
    fn suspended(&self) -> Duration {
        let (Some(start), Some(now)) = (self.counting, counting()) else { return Duration::ZERO };
        now.saturating_sub(start).saturating_sub(self.start.elapsed())
    }
}

/// A clock that counts time suspended, read as a duration since its own start.
#[cfg(any(target_os = "linux", target_os = "android"))]
fn counting() -> Option<Duration> {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Boottime);
    Some(Duration::new(u64::try_from(t.tv_sec).ok()?, u32::try_from(t.tv_nsec).ok()?))
}

#[cfg(target_vendor = "apple")]
fn counting() -> Option<Duration> {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::Monotonic);
    Some(Duration::new(u64::try_from(t.tv_sec).ok()?, u32::try_from(t.tv_nsec).ok()?))
}

#[cfg(not(any(target_os = "linux", target_os = "android", target_vendor = "apple")))]
fn counting() -> Option<Duration> {
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_machine_that_was_not_suspended_adds_nothing_and_now_runs_on() {
        let clock = System::new();
        let a = clock.now();
        std::thread::sleep(Duration::from_millis(20));
        let b = clock.now();
        assert!(b.duration_since(a) >= Duration::from_millis(20));
        // The two clocks tick together here: what they differ by is noise, not a suspend.
        assert!(clock.suspended() < Duration::from_millis(50), "{:?}", clock.suspended());
    }

    /// A clock read at one moment, whose monotonic part missed `.1` (a suspend).
    struct Stopped(Instant, Duration);

    impl Clock for Stopped {
        fn monotonic(&self) -> Instant {
            self.0
        }
        fn suspended(&self) -> Duration {
            self.1
        }
    }

    #[test]
    fn time_suspended_counts_in_now() {
        let clock = Stopped(Instant::now(), Duration::from_secs(40));
        let gap = clock.now().duration_since(clock.monotonic());
        assert_eq!(gap, Duration::from_secs(40));
    }
}
