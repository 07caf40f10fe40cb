//! One deploy at a time on a store target, so that two overlapping CI jobs (on two
//! machines, each with its own `output/`) never mix their builds on the store.
//!
//! - An object store: a lease object `{prefix}/.folio-deploy.lock`, created with a
//!   conditional write (`If-None-Match: *`; GCS's generation 0), renewed every third of
//!   its lifetime with another (`If-Match` its ETag), and let go when the deploy ends by
//!   one more conditional write that marks it free (no store deletes conditionally, and an
//!   unconditional delete by a holder paused past its lease would remove its successor's). A
//!   deploy that finds it waits (or refuses with `--no-wait`); a lease nobody renewed for
//!   its whole lifetime (its holder was killed) is taken over, again conditionally, so of
//!   two waiters one wins. Expiry is judged by watching the lease's ETag on this machine's
//!   clock, never by comparing clocks.
//! - Fencing: before each request that writes (an upload, a delete, the record), the
//!   holder checks its own clock against its last confirmed renewal: past two thirds of
//!   the lifetime since that renewal was sent, it counts the lease as lost and sends
//!   nothing more, although a waiter takes over only a whole lifetime after it saw the
//!   last renewal. A deploy paused between requests (a stopped container, a runner under
//!   memory pressure, a machine suspended: the clock counts time suspended, `clock.rs`)
//!   thus stops on waking instead of writing into another's deploy. A
//!   request already under way when the pause began can still land late; a takeover
//!   keeps what the previous holder was about to write in its record (`deploy/mod.rs`),
//!   and the record itself is only ever written conditionally, on the version this
//!   deploy read or wrote.
//! - A folder (`file://`): an advisory lock on `{dir}/.folio-deploy.lock`, as the output
//!   folder has one; the kernel releases it when the deploy ends, however it ends.
//!
//! A store that cannot write conditionally is deployed to without a lease, with a warning.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

// tokio's clock: the same as the system's, but for the simulation (`deploy::sim`), whose
// virtual time runs leases out in an instant; read through the store's `Clock`, which
// adds the time the machine was suspended.
use tokio::time::Instant;

use super::clock::Clock;

use object_store::{GetOptions, PutMode, PutOptions, PutPayload, UpdateVersion};

use super::store::Store;
use crate::error::{Failure, Refusal, WayOut};
use crate::output::lock::{Access, Busy, Lock};

/// The lease's name below the deploy prefix.
pub const LEASE: &str = ".folio-deploy.lock";

/// How long a lease lasts without being renewed.
pub const LIFETIME: Duration = Duration::from_secs(30);

/// A held lease; [`Lease::release`] lets it go.
pub struct Lease {
    held: Held,
    /// It was taken over from a deploy that stopped renewing it (and may yet write).
    took_over: bool,
}

enum Held {
    Folder(#[allow(dead_code)] Lock),
    Store {
        lost: Arc<AtomicBool>,
        /// When the last renewal that the store confirmed was sent.
        confirmed: Arc<Mutex<Instant>>,
        /// The version of the lease this holder last wrote: letting go is conditional on it.
        version: Arc<Mutex<UpdateVersion>>,
        lifetime: Duration,
        stop: tokio::sync::oneshot::Sender<()>,
        renewing: tokio::task::JoinHandle<()>,
        /// Asks the renewing task for a renewal now ([`Lease::reclaim`]).
        now: Arc<tokio::sync::Notify>,
        /// Counts the renewals the task tried; closed when it ends.
        tried: tokio::sync::watch::Receiver<u64>,
    },
    Nothing,
}

/// How long after its last confirmed renewal a holder still writes: two thirds of the
/// lifetime, a third less than a waiter waits before it takes over.
fn fence(lifetime: Duration) -> Duration {
    lifetime * 2 / 3
}

fn busy_message(store: &Store, lifetime: Duration) -> String {
    format!(
        "another folio deploy is publishing to {} (it holds `{LEASE}` there; one that was killed lets go after {} s)",
        store.target.display(),
        lifetime.as_secs()
    )
}

/// How a deploy takes the lease: what it does while another deploy holds it, and how long
/// a lease it holds lasts unrenewed ([`LIFETIME`] but in tests).
#[derive(Clone, Copy)]
pub struct Terms<'a> {
    pub busy: Busy<'a>,
    pub lifetime: Duration,
}

impl Lease {
    /// Takes the lease of `store`'s target on `terms`. The second value is a warning when
    /// the store cannot hold one.
    pub async fn take(store: &Store, terms: Terms<'_>) -> Result<(Lease, Option<String>), Failure> {
        let Terms { busy, lifetime } = terms;
        if let Some(dir) = &store.folder {
            let lock =
                Lock::take_named(dir, LEASE, "another folio deploy", Access::Exclusive, busy)?;
            return Ok((Lease { held: Held::Folder(lock), took_over: false }, None));
        }
        let key = store.target.key(LEASE);
        let put = |mode: PutMode| {
            let options = PutOptions { mode, ..PutOptions::default() };
            store.inner.put_opts(&key, PutPayload::from(lease_body(0)), options)
        };
        let failed = |e| store.failure("taking the deploy lease", LEASE, e);
        let clock = store.clock.clone();
        // The lease as last seen.
        let mut seen = Seen::Nothing;
        let mut told = false;
        let (version, sent, took_over) = loop {
            let sent = clock.now();
            let (attempt, takeover) = match &seen {
                Seen::Free(version) => (put(PutMode::Update(version.clone())).await, false),
                Seen::Held(version, since) if clock.now() - *since >= lifetime => {
                    (put(PutMode::Update(version.clone())).await, true)
                }
                _ => (put(PutMode::Create).await, false),
            };
            match attempt {
                Ok(done) => break (UpdateVersion::from(done), sent, takeover),
                Err(object_store::Error::NotImplemented { .. }) => {
                    let warning = format!(
                        "{} cannot write conditionally, so folio cannot keep two deploys to it apart: run one at a time",
                        store.target.display()
                    );
                    return Ok((Lease { held: Held::Nothing, took_over: false }, Some(warning)));
                }
                Err(
                    object_store::Error::AlreadyExists { .. }
                    | object_store::Error::Precondition { .. },
                ) => {}
                Err(e) => return Err(failed(e)),
            }
            // What is there now: a lease let go (taken at once), or one held.
            let (now, free) = match store.inner.get_opts(&key, GetOptions::default()).await {
                Ok(got) => {
                    let now = UpdateVersion {
                        e_tag: got.meta.e_tag.clone(),
                        version: got.meta.version.clone(),
                    };
                    let body = got.bytes().await.map_err(failed)?;
                    (Some(now), is_free(&body))
                }
                // Let go meanwhile (by a folio that deletes it): create it again.
                Err(object_store::Error::NotFound { .. }) => (None, false),
                Err(e) => return Err(failed(e)),
            };
            match now {
                Some(now) if free => {
                    seen = Seen::Free(now);
                    continue;
                }
                Some(now) => {
                    if !matches!(&seen, Seen::Held(v, _) if *v == now) {
                        seen = Seen::Held(now, clock.now());
                    }
                }
                None => {
                    seen = Seen::Nothing;
                    continue;
                }
            }
            if let Busy::Refuse = busy {
                return Err(Failure::Refused(Refusal::new(
                    busy_message(store, lifetime),
                    WayOut::Wait,
                )));
            }
            if let Busy::Wait(note) = busy
                && !told
            {
                note(&format!("waiting: {}", busy_message(store, lifetime)));
                told = true;
            }
            tokio::time::sleep(Duration::from_millis(250).min(lifetime / 4)).await;
        };
        let lost = Arc::new(AtomicBool::new(false));
        let confirmed = Arc::new(Mutex::new(sent));
        let version = Arc::new(Mutex::new(version));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let now = Arc::new(tokio::sync::Notify::new());
        let (tell, tried) = tokio::sync::watch::channel(0u64);
        let renewal = Renewal {
            version: version.clone(),
            lifetime,
            lost: lost.clone(),
            confirmed: confirmed.clone(),
            clock: clock.clone(),
            now: now.clone(),
            tried: tell,
        };
        let renewing = tokio::spawn(renew(store.clone(), renewal, stopped));
        Ok((
            Lease {
                held: Held::Store {
                    lost,
                    confirmed,
                    version,
                    lifetime,
                    stop,
                    renewing,
                    now,
                    tried,
                },
                took_over,
            },
            None,
        ))
    }

    /// Was the lease taken over from a deploy that stopped renewing it?
    pub fn took_over(&self) -> bool {
        self.took_over
    }

    /// Is the lease still this deploy's, for sure? Asked before each request that writes:
    /// not when a renewal was refused, nor when the last confirmed one is older than the
    /// fence (this process may have been paused, and another deploy may hold it now).
    pub fn check(&self, store: &Store) -> Result<(), Failure> {
        let Held::Store { lost, confirmed, lifetime, .. } = &self.held else { return Ok(()) };
        let at = *confirmed.lock().unwrap_or_else(|p| p.into_inner());
        let since = store.clock.now().saturating_duration_since(at);
        if lost.load(Ordering::SeqCst) || since >= fence(*lifetime) {
            lost.store(true, Ordering::SeqCst);
            return Err(Failure::Stopped(Refusal::new(
                format!(
                    "lost the deploy lease on {} (its last renewal was {:.1} s ago, and another deploy may take it over after {} s); nothing more was sent",
                    store.target.display(),
                    since.as_secs_f64(),
                    lifetime.as_secs()
                ),
                WayOut::DeployAgain,
            )));
        }
        Ok(())
    }

    /// The lease made sure again when [`Lease::check`] no longer vouches for it because
    /// time passed (this process was paused, or busy, past the fence): renewed now, on the
    /// condition that it is still the version this deploy last wrote. That holds only if
    /// no deploy took it over (a takeover writes a lease of its own), and then this deploy
    /// is its holder again for a whole fence. A lease a renewal found taken is not made
    /// sure: the error is [`Lease::check`]'s.
    pub async fn reclaim(&self, store: &Store) -> Result<(), Failure> {
        let Held::Store { lost, confirmed, lifetime, now, tried, renewing, .. } = &self.held else {
            return Ok(());
        };
        let fresh = || {
            let at = *confirmed.lock().unwrap_or_else(|p| p.into_inner());
            store.clock.now().saturating_duration_since(at) < fence(*lifetime) / 2
        };
        // A few tries: a renewal that fails (not refused) is tried again by the task.
        for _ in 0..3 {
            if fresh() || renewing.is_finished() {
                break;
            }
            let mut tried = tried.clone();
            tried.mark_unchanged();
            now.notify_one();
            match tokio::time::timeout(*lifetime, tried.changed()).await {
                Ok(Ok(())) => {}
                _ => break,
            }
        }
        if fresh() && !renewing.is_finished() {
            lost.store(false, Ordering::SeqCst);
        }
        self.check(store)
    }

    /// Stops renewing and lets the lease go: overwritten as free, on the condition that it
    /// is still the version this deploy last wrote, so that a holder paused past its lease
    /// never lets go of another's (no store deletes conditionally; a waiter reads a free
    /// lease as no lease).
    pub async fn release(self, store: &Store) {
        if let Held::Store { lost, stop, renewing, version, .. } = self.held {
            let _ = stop.send(());
            let _ = renewing.await;
            if !lost.load(Ordering::SeqCst) {
                let version = version.lock().unwrap_or_else(|p| p.into_inner()).clone();
                let options =
                    PutOptions { mode: PutMode::Update(version), ..PutOptions::default() };
                let free = PutPayload::from(free_body());
                let _ = store.inner.put_opts(&store.target.key(LEASE), free, options).await;
            }
        }
    }
}

/// The lease as a deploy waiting for it last saw it.
enum Seen {
    Nothing,
    /// Let go: taken at once, conditionally on this version.
    Free(UpdateVersion),
    /// Held at this version, first seen so then.
    Held(UpdateVersion, Instant),
}

/// A lease let go says so in its content.
const FREE: &str = "\"free\": true";

fn free_body() -> Vec<u8> {
    format!("{{\"holder\": null, {FREE}}}\n").into_bytes()
}

fn is_free(body: &[u8]) -> bool {
    memchr::memmem::find(body, FREE.as_bytes()).is_some()
}

/// The lease's content: who holds it, and which renewal this is, so that every renewal
/// changes its ETag (which is what waiters watch).
fn lease_body(renewal: u64) -> Vec<u8> {
    let now = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH);
    format!(
        "{{\"holder\": \"folio deploy\", \"pid\": {}, \"renewal\": {renewal}, \"at_ms\": {}}}\n",
        std::process::id(),
        now.map_or(0, |d| d.as_millis())
    )
    .into_bytes()
}

/// What the renewing task keeps.
struct Renewal {
    version: Arc<Mutex<UpdateVersion>>,
    lifetime: Duration,
    lost: Arc<AtomicBool>,
    confirmed: Arc<Mutex<Instant>>,
    clock: Arc<dyn Clock>,
    /// A renewal asked for now, out of turn.
    now: Arc<tokio::sync::Notify>,
    /// Bumped after each renewal tried.
    tried: tokio::sync::watch::Sender<u64>,
}

/// Renews the lease every third of its lifetime until stopped (and when asked, out of
/// turn); marks it lost when a renewal is refused (someone took it over) or none
/// succeeded for a whole lifetime.
async fn renew(store: Store, r: Renewal, mut stopped: tokio::sync::oneshot::Receiver<()>) {
    let Renewal { version: shared, lifetime, lost, confirmed, clock, now, tried } = r;
    let mut version = shared.lock().unwrap_or_else(|p| p.into_inner()).clone();
    let key = store.target.key(LEASE);
    let mut renewed = clock.now();
    for renewal in 1.. {
        if renewal > 1 {
            tried.send_modify(|n| *n += 1);
        }
        tokio::select! {
            _ = &mut stopped => return,
            () = tokio::time::sleep(lifetime / 3) => {}
            () = now.notified() => {}
        }
        let options =
            PutOptions { mode: PutMode::Update(version.clone()), ..PutOptions::default() };
        let sent = clock.now();
        match store.inner.put_opts(&key, PutPayload::from(lease_body(renewal)), options).await {
            Ok(done) => {
                version = done.into();
                *shared.lock().unwrap_or_else(|p| p.into_inner()) = version.clone();
                renewed = sent;
                *confirmed.lock().unwrap_or_else(|p| p.into_inner()) = sent;
            }
            Err(
                object_store::Error::Precondition { .. } | object_store::Error::NotFound { .. },
            ) => {
                lost.store(true, Ordering::SeqCst);
                return;
            }
            Err(_) if clock.now() - renewed >= lifetime => {
                lost.store(true, Ordering::SeqCst);
                return;
            }
            Err(_) => {}
        }
    }
}
