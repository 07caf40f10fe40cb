//! The fault plan: what a seed schedules for each deploy — the build it publishes, when it
//! starts, and its mishaps (kills, freezes, suspends, late sends, failed and lost
//! requests, pauses as it lets go of its lease, what its CDN does), each drawn from a
//! source of its own so that what was added later leaves the earlier seeds as they were.

use std::collections::BTreeMap;
use std::time::Duration;

use super::LIFETIME;
use super::rng::Rng;

/// What happens at one request of a client.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(super) enum Mishap {
    /// Killed before the request reaches the store.
    KillBefore,
    /// Killed after the store applied it: the answer never comes.
    KillAfter,
    /// The whole client frozen after this request's answer, before its next step (a
    /// stopped container, a runner under memory pressure): its deploy does nothing, its
    /// lease is not renewed, answers wait.
    Freeze(Duration),
    /// Frozen as [`Mishap::Freeze`], with this request stuck on its way for as long: it
    /// lands late, after the lease may have been taken over (it passed its lease check
    /// before the freeze).
    FreezeInSend(Duration),
    /// The machine suspended after this request's answer (a laptop lid, a paused VM): the
    /// client frozen as [`Mishap::Freeze`], and its monotonic clock stopped meanwhile.
    Suspend(Duration),
    /// The request fails without reaching the store.
    Fail,
    /// The store applies it, and the answer is lost (an error).
    Lose,
}

/// A client's schedule: what happens at which of its requests.
#[derive(Debug, Clone, Default)]
pub(super) struct Plan {
    pub(super) mishaps: BTreeMap<u64, Mishap>,
    /// The client's `n`th write of the record (1: its intent, 2: its record after) is
    /// stuck on its way for as long, after its lease check: a deploy that writes its
    /// record unconditionally then overwrites what a later holder wrote.
    pub(super) late_record: Option<(u64, Duration)>,
    /// The client paused for as long as it lets go of its lease, its renewals stopped, the
    /// write that lets go held until then (the process stopped between its last record
    /// write and that request reaching the store): a holder that lets go unconditionally
    /// then removes the lease of the deploy that took over meanwhile.
    pub(super) pause_at_release: Option<Duration>,
    /// What the client's CDN does with its purge (`None`: accepts it at once).
    pub(super) cdn: Option<CdnMishap>,
}

/// A CDN that does not simply accept a purge.
#[derive(Debug, Clone, Copy)]
pub(super) enum CdnMishap {
    /// It refuses (a 403: the token lacks the permission).
    Refuse,
    /// Throttled past the deploy's patience (a 429 storm): the purge gives up after it.
    Storm(Duration),
    /// Its server is gone (connection refused) as the purge starts.
    Gone,
    /// It accepts only after this long (busy, `TooManyInvalidationsInProgress`), longer
    /// than the lease: the deploy's renewals must hold it meanwhile.
    Slow(Duration),
}

/// One deploy's part of a seed's schedule: the build it publishes, when it starts, its
/// mishaps, and the lines of the story that tell them.
pub(super) struct Scheduled {
    pub(super) plan: Plan,
    pub(super) build: usize,
    pub(super) start: Duration,
    pub(super) told: Vec<String>,
    /// A request of it was drawn to land late (links are then not checked meanwhile).
    pub(super) late_sends: bool,
}

/// Draws deploy `i` of seed `seed`'s schedule, from `rng` and from sources of its own (so
/// that what was added later leaves the schedules of earlier seeds as they were).
pub(super) fn schedule(seed: u64, i: usize, rng: &mut Rng) -> Scheduled {
    let (mut told, mut late_sends) = (Vec::new(), false);
    let mut plan = Plan::default();
    let build = rng.below(3) as usize;
    let start = Duration::from_millis(rng.below(40_000));
    // Up to two mishaps, at requests among a deploy's first hundred or so.
    for _ in 0..2 {
        if !rng.chance(55) {
            continue;
        }
        let at = 1 + rng.below(110);
        let pause = Duration::from_millis(rng.below(3 * LIFETIME.as_millis() as u64));
        let mishap = match rng.below(100) {
            0..16 => Mishap::KillBefore,
            16..28 => Mishap::KillAfter,
            28..66 => Mishap::Freeze(pause),
            66..78 => {
                late_sends = true;
                Mishap::FreezeInSend(pause)
            }
            78..90 => Mishap::Fail,
            _ => Mishap::Lose,
        };
        plan.mishaps.insert(at, mishap);
    }
    // Drawn apart, so that the schedules of the seeds above stay as they were.
    let mut records = Rng(seed ^ 0x4EC0 ^ i as u64);
    if records.chance(20) {
        let pause =
            LIFETIME + Duration::from_millis(records.below(2 * LIFETIME.as_millis() as u64));
        plan.late_record = Some((1 + records.below(2), pause));
    }
    told.push(format!(
        "deploy {i} of build {} at {start:?}: {:?}",
        ["X", "Y", "Z"][build],
        plan.mishaps
    ));
    if let Some((n, pause)) = plan.late_record {
        told.push(format!("  its record write {n} stuck on its way for {pause:?}"));
    }
    // Suspends and pauses at release, drawn apart as well.
    let mut sleeps = Rng(seed ^ 0x5_1EE9 ^ i as u64);
    if sleeps.chance(20) {
        let at = 1 + sleeps.below(110);
        let pause = LIFETIME + Duration::from_millis(sleeps.below(2 * LIFETIME.as_millis() as u64));
        plan.mishaps.entry(at).or_insert(Mishap::Suspend(pause));
        told.push(format!("  its machine suspended after request {at} for {pause:?}"));
    }
    if sleeps.chance(15) {
        let pause = LIFETIME + Duration::from_millis(sleeps.below(2 * LIFETIME.as_millis() as u64));
        plan.pause_at_release = Some(pause);
        told.push(format!("  paused for {pause:?} as it lets go of its lease"));
    }
    // The CDN's answer to this deploy's purge, drawn apart as well.
    let mut cdn = Rng(seed ^ 0x0CD4 ^ i as u64);
    if cdn.chance(30) {
        let long = LIFETIME + Duration::from_millis(cdn.below(3 * LIFETIME.as_millis() as u64));
        let mishap = match cdn.below(4) {
            0 => CdnMishap::Refuse,
            1 => CdnMishap::Storm(long),
            2 => CdnMishap::Gone,
            _ => CdnMishap::Slow(long),
        };
        plan.cdn = Some(mishap);
        told.push(format!("  its CDN purge: {mishap:?}"));
    }
    Scheduled { plan, build, start, told, late_sends }
}
