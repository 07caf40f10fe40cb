//! One deploy at a time on a store target, so that two overlapping CI jobs (on two
//! machines, each with its own `output/`) never mix their builds on the store.
//!
//! - An object store: a lease object `{prefix}/.folio-deploy.lock`, created with a
//!   conditional write (`If-None-Match: *`; GCS's generation 0), renewed every third of
//!   its lifetime with another (`If-Match` its ETag), deleted when the deploy ends. A
//!   deploy that finds it waits (or refuses with `--no-wait`); a lease nobody renewed for
//!   its whole lifetime (its holder was killed) is taken over, again conditionally, so of
//!   two waiters one wins. Expiry is judged by watching the lease's ETag on this machine's
//!   clock, never by comparing clocks. A deploy that loses its lease (it could not renew
//!   it in time) stops before its next write to the record or its deletes.
//! - A folder (`file://`): an advisory lock on `{dir}/.folio-deploy.lock`, as the output
//!   folder has one; the kernel releases it when the deploy ends, however it ends.
//!
//! A store that cannot write conditionally is deployed to without a lease, with a warning.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use object_store::{GetOptions, ObjectStoreExt, PutMode, PutOptions, PutPayload, UpdateVersion};

use super::store::{Scheme, Store};
use crate::error::Failure;
use crate::output::lock::{Access, Busy, Lock};

/// The lease's name below the deploy prefix.
pub const LEASE: &str = ".folio-deploy.lock";

/// How long a lease lasts without being renewed.
pub const LIFETIME: Duration = Duration::from_secs(30);

/// A held lease; [`Lease::release`] lets it go.
pub struct Lease {
    held: Held,
}

enum Held {
    Folder(#[allow(dead_code)] Lock),
    Store {
        lost: Arc<AtomicBool>,
        stop: tokio::sync::oneshot::Sender<()>,
        renewing: tokio::task::JoinHandle<()>,
    },
    Nothing,
}

fn busy_message(store: &Store, lifetime: Duration) -> String {
    format!(
        "another folio deploy is publishing to {} (it holds `{LEASE}` there; one that was killed lets go after {} s)",
        store.target.display(),
        lifetime.as_secs()
    )
}

impl Lease {
    /// Takes the lease of `store`'s target; `lifetime` is [`LIFETIME`] but in tests. The
    /// second value is a warning when the store cannot hold one.
    pub async fn take(
        store: &Store,
        busy: Busy<'_>,
        lifetime: Duration,
    ) -> Result<(Lease, Option<String>), Failure> {
        if store.target.scheme == Scheme::File {
            let dir = std::path::Path::new(&store.target.bucket);
            let lock =
                Lock::take_named(dir, LEASE, "another folio deploy", Access::Exclusive, busy)?;
            return Ok((Lease { held: Held::Folder(lock) }, None));
        }
        let key = store.target.key(LEASE);
        let put = |mode: PutMode| {
            let options = PutOptions { mode, ..PutOptions::default() };
            store.inner.put_opts(&key, PutPayload::from(lease_body(0)), options)
        };
        let failed = |e| super::remote_failure("taking the deploy lease", LEASE, store, e);
        // The lease as last seen: its version, and when it was first seen so.
        let mut seen: Option<(UpdateVersion, Instant)> = None;
        let mut told = false;
        let version = loop {
            let attempt = match &seen {
                Some((version, since)) if since.elapsed() >= lifetime => {
                    put(PutMode::Update(version.clone())).await
                }
                _ => put(PutMode::Create).await,
            };
            match attempt {
                Ok(done) => break UpdateVersion::from(done),
                Err(object_store::Error::NotImplemented { .. }) => {
                    let warning = format!(
                        "{} cannot write conditionally, so folio cannot keep two deploys to it apart: run one at a time",
                        store.target.display()
                    );
                    return Ok((Lease { held: Held::Nothing }, Some(warning)));
                }
                Err(
                    object_store::Error::AlreadyExists { .. }
                    | object_store::Error::Precondition { .. },
                ) => {}
                Err(e) => return Err(failed(e)),
            }
            if let Busy::Refuse = busy {
                return Err(Failure::Refused(format!(
                    "{}; wait for it, or run this one without --no-wait to wait",
                    busy_message(store, lifetime)
                )));
            }
            if let Busy::Wait(note) = busy
                && !told
            {
                note(&format!("waiting: {}", busy_message(store, lifetime)));
                told = true;
            }
            let head = GetOptions { head: true, ..GetOptions::default() };
            match store.inner.get_opts(&key, head).await {
                Ok(got) => {
                    let now = UpdateVersion { e_tag: got.meta.e_tag, version: got.meta.version };
                    if seen.as_ref().is_none_or(|(v, _)| *v != now) {
                        seen = Some((now, Instant::now()));
                    }
                }
                // Let go meanwhile: create it again.
                Err(object_store::Error::NotFound { .. }) => seen = None,
                Err(e) => return Err(failed(e)),
            }
            tokio::time::sleep(Duration::from_millis(250).min(lifetime / 4)).await;
        };
        let lost = Arc::new(AtomicBool::new(false));
        let (stop, stopped) = tokio::sync::oneshot::channel::<()>();
        let renewing = tokio::spawn(renew(store.clone(), version, lifetime, lost.clone(), stopped));
        Ok((Lease { held: Held::Store { lost, stop, renewing } }, None))
    }

    /// Is the lease still this deploy's? Asked before each write that must not mix with
    /// another deploy's.
    pub fn check(&self, store: &Store) -> Result<(), Failure> {
        match &self.held {
            Held::Store { lost, .. } if lost.load(Ordering::SeqCst) => {
                Err(Failure::Other(anyhow::anyhow!(
                    "lost the deploy lease on {} (it could not be renewed within {} s); nothing more was sent: run the deploy again",
                    store.target.display(),
                    LIFETIME.as_secs()
                )))
            }
            _ => Ok(()),
        }
    }

    /// Stops renewing and deletes the lease (when it is still this deploy's).
    pub async fn release(self, store: &Store) {
        if let Held::Store { lost, stop, renewing } = self.held {
            let _ = stop.send(());
            let _ = renewing.await;
            if !lost.load(Ordering::SeqCst) {
                let _ = store.inner.delete(&store.target.key(LEASE)).await;
            }
        }
    }
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

/// Renews the lease every third of its lifetime until stopped; marks it lost when a
/// renewal is refused (someone took it over) or none succeeded for a whole lifetime.
async fn renew(
    store: Store,
    mut version: UpdateVersion,
    lifetime: Duration,
    lost: Arc<AtomicBool>,
    mut stopped: tokio::sync::oneshot::Receiver<()>,
) {
    let key = store.target.key(LEASE);
    let mut renewed = Instant::now();
    for renewal in 1.. {
        tokio::select! {
            _ = &mut stopped => return,
            () = tokio::time::sleep(lifetime / 3) => {}
        }
        let options =
            PutOptions { mode: PutMode::Update(version.clone()), ..PutOptions::default() };
        match store.inner.put_opts(&key, PutPayload::from(lease_body(renewal)), options).await {
            Ok(done) => {
                version = done.into();
                renewed = Instant::now();
            }
            Err(
                object_store::Error::Precondition { .. } | object_store::Error::NotFound { .. },
            ) => {
                lost.store(true, Ordering::SeqCst);
                return;
            }
            Err(_) if renewed.elapsed() >= lifetime => {
                lost.store(true, Ordering::SeqCst);
                return;
            }
            Err(_) => {}
        }
    }
}
