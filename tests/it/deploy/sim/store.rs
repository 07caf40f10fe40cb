//! The store as one client sees it: every request of the client held while it is frozen,
//! then delayed, then failed, lost or cut by a kill as its schedule says; every write
//! checked against the lease (only its holder may write), and every change of an object
//! noted, with the links of what is reachable checked after it.

use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use futures::StreamExt;
use futures::stream::BoxStream;
use object_store::memory::InMemory;
use object_store::path::Path as Key;
use object_store::{
    CopyOptions, GetOptions, GetResult, ListResult, MultipartUpload, ObjectMeta, ObjectStore,
    ObjectStoreExt, PutMultipartOptions, PutOptions, PutPayload, PutResult,
};

use super::check::{bytes_of, followed, links::dangling};
use super::schedule::Mishap;
use super::{LEASE, Shared, World, trace};

/// The store as one client sees it.
#[derive(Debug, Clone)]
pub(super) struct Chaos {
    pub(super) inner: Arc<InMemory>,
    pub(super) client: usize,
    pub(super) world: SharedDebug,
}

#[derive(Clone)]
pub(super) struct SharedDebug(pub(super) Shared);

impl std::fmt::Debug for SharedDebug {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("World")
    }
}

impl std::fmt::Display for Chaos {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Chaos(client {})", self.client)
    }
}

pub(super) fn failed(why: &str) -> object_store::Error {
    object_store::Error::Generic { store: "chaos", source: why.to_string().into() }
}

impl Chaos {
    pub(super) fn world(&self) -> std::sync::MutexGuard<'_, World> {
        self.world.0.lock().unwrap()
    }

    /// Until when the client is frozen, if it is.
    pub(super) fn frozen(&self) -> Option<tokio::time::Instant> {
        self.world().clients[self.client].frozen_until.filter(|&t| t > tokio::time::Instant::now())
    }

    /// Writes to the store must come from the lease's holder: a request sent by another
    /// client while one holds it breaks the fence. Checked as the request is sent, before
    /// anything holds it up (a request already on its way when its client froze lands
    /// late, which the takeover's record is for).
    pub(super) fn fenced(&self, what: &str, key: &Key) {
        if key.as_ref().ends_with(LEASE) {
            return;
        }
        let mut w = self.world();
        if let Some(holder) = w.holder.filter(|&h| h != self.client) {
            let at = w.now_ms();
            let client = self.client;
            w.fence_broken.push(format!(
                "at {at} ms client {client} sent {what} {key} while client {holder} held the lease"
            ));
        }
    }

    /// Follows who holds the lease, from a write of it that the store took; a holder's lease
    /// removed or overwritten by another client (not taken over: a takeover writes a lease
    /// of its own) breaks the lease.
    pub(super) fn lease_written(&self, body: Option<&[u8]>) {
        let mut w = self.world();
        let client = self.client;
        let free = body.is_none_or(|b| String::from_utf8_lossy(b).contains("\"free\": true"));
        if free && let Some(holder) = w.holder.filter(|&h| h != client) {
            let at = w.now_ms();
            w.fence_broken
                .push(format!("at {at} ms client {client} let go of client {holder}'s lease"));
        }
        w.holder = if free { None } else { Some(client) };
    }

    /// A request letting go of the lease, held as the schedule says.
    pub(super) async fn pause_at_release(&self) {
        let pause = self.world().clients[self.client].plan.pause_at_release;
        if let Some(pause) = pause {
            let until = self.freeze(pause);
            tokio::time::sleep_until(until).await;
        }
    }

    pub(super) fn freeze(&self, pause: Duration) -> tokio::time::Instant {
        let until = tokio::time::Instant::now() + pause;
        self.world().clients[self.client].frozen_until = Some(until);
        until
    }

    /// Before a request: held while the client is frozen (its lease renewals too), then
    /// latency, then what the schedule says. `None`: go ahead.
    pub(super) async fn before(&self) -> Result<Option<Mishap>, object_store::Error> {
        while let Some(until) = self.frozen() {
            tokio::time::sleep_until(until).await;
        }
        let step = {
            let mut w = self.world();
            if w.clients[self.client].dead {
                None
            } else {
                let c = &mut w.clients[self.client];
                c.requests += 1;
                let mishap = c.plan.mishaps.get(&c.requests).copied();
                Some((Duration::from_micros(w.rng.below(200_000)), mishap))
            }
        };
        let Some((latency, mishap)) = step else {
            // A dead client's requests never reach the store.
            return std::future::pending().await;
        };
        tokio::time::sleep(latency).await;
        match mishap {
            Some(Mishap::KillBefore) => {
                self.world().clients[self.client].dead = true;
                std::future::pending().await
            }
            Some(Mishap::Fail) => Err(failed("the request failed (simulated)")),
            Some(Mishap::FreezeInSend(pause)) => {
                let until = self.freeze(pause);
                tokio::time::sleep_until(until).await;
                Ok(None)
            }
            other => Ok(other),
        }
    }

    /// After the store applied a request: what the schedule says about its answer, which
    /// waits while the client is frozen.
    pub(super) async fn after<T>(
        &self,
        mishap: Option<Mishap>,
        done: T,
    ) -> Result<T, object_store::Error> {
        if let Some(Mishap::Freeze(pause)) = mishap {
            self.freeze(pause);
        }
        if let Some(Mishap::Suspend(pause)) = mishap {
            self.freeze(pause);
            let now = tokio::time::Instant::now();
            self.world().clients[self.client].suspends.push((now, pause));
        }
        while let Some(until) = self.frozen() {
            tokio::time::sleep_until(until).await;
        }
        match mishap {
            Some(Mishap::KillAfter) => {
                self.world().clients[self.client].dead = true;
                std::future::pending().await
            }
            Some(Mishap::Lose) => Err(failed("the answer was lost (simulated)")),
            _ => Ok(done),
        }
    }

    /// Notes a change of `key`'s bytes and checks the links of what is reachable.
    pub(super) async fn changed(&self, key: &Key, before: Option<Vec<u8>>) {
        let Some(rel) = followed(key.as_ref()) else { return };
        let now = bytes_of(&self.inner, key).await;
        {
            let mut w = self.world();
            let at = w.now_ms();
            w.written.push((at, rel.to_string()));
        }
        if now == before {
            return;
        }
        let broken = dangling(&self.inner).await;
        let mut w = self.world();
        let at = w.now_ms();
        w.changes.push((at, rel.to_string()));
        if w.links_checked
            && let Some(b) = broken
        {
            w.broken.push(format!("at {at} ms, after `{rel}` changed: {b}"));
        }
    }
}

#[async_trait]
impl ObjectStore for Chaos {
    async fn put_opts(
        &self,
        location: &Key,
        payload: PutPayload,
        opts: PutOptions,
    ) -> object_store::Result<PutResult> {
        self.fenced("a put of", location);
        let mishap = self.before().await?;
        let lease_body = location
            .as_ref()
            .ends_with(LEASE)
            .then(|| payload.iter().flatten().copied().collect::<Vec<u8>>());
        let free = lease_body
            .as_deref()
            .is_some_and(|b| String::from_utf8_lossy(b).contains("\"free\": true"));
        if free {
            self.pause_at_release().await;
        }
        if location.as_ref().ends_with(".folio-deploy.json.gz") {
            let late = {
                let mut w = self.world();
                let c = &mut w.clients[self.client];
                c.record_puts += 1;
                c.plan.late_record.filter(|&(n, _)| n == c.record_puts).map(|(_, pause)| pause)
            };
            if let Some(pause) = late {
                let until = self.freeze(pause);
                tokio::time::sleep_until(until).await;
            }
        }
        // What a record says a deploy is about to write or delete (its intent): owed again
        // by whoever takes over, since any of it may still land.
        let intended: Option<Vec<String>> =
            location.as_ref().ends_with(".folio-deploy.json.gz").then(|| {
                let bytes: Vec<u8> = payload.iter().flatten().copied().collect();
                folio::deploy::record::DeployRecord::from_bytes(&bytes)
                    .map(|r| r.pending.into_keys().chain(r.deleting.into_keys()).collect())
                    .unwrap_or_default()
            });
        let before = bytes_of(&self.inner, location).await;
        let mode = format!("{:?}", opts.mode);
        let done = self.inner.put_opts(location, payload, opts).await;
        trace(
            &self.world(),
            self.client,
            format_args!("put {location} {mode} -> {}", done.is_ok()),
        );
        if done.is_ok() {
            if location.as_ref().ends_with(".folio-deploy.json.gz") {
                // A record of this client's that landed strikes what its CDN accepted.
                let mut w = self.world();
                let client = self.client;
                let sent = w.sent.len();
                for a in w.accepted.iter_mut().filter(|a| a.client == client) {
                    a.struck.get_or_insert(sent);
                }
                let at = w.now_ms();
                let keys = intended.unwrap_or_default();
                w.written.extend(keys.into_iter().map(|k| (at, k)));
            }
            self.changed(location, before).await;
            if let Some(body) = &lease_body {
                self.lease_written(Some(body));
            }
        }
        self.after(mishap, done?).await
    }

    async fn put_multipart_opts(
        &self,
        location: &Key,
        opts: PutMultipartOptions,
    ) -> object_store::Result<Box<dyn MultipartUpload>> {
        self.inner.put_multipart_opts(location, opts).await
    }

    async fn get_opts(
        &self,
        location: &Key,
        options: GetOptions,
    ) -> object_store::Result<GetResult> {
        let mishap = self.before().await?;
        let done = self.inner.get_opts(location, options).await;
        self.after(mishap, done?).await
    }

    fn delete_stream(
        &self,
        locations: BoxStream<'static, object_store::Result<Key>>,
    ) -> BoxStream<'static, object_store::Result<Key>> {
        let this = self.clone();
        locations
            .then(move |location| {
                let this = this.clone();
                async move {
                    let location = location?;
                    this.fenced("a delete of", &location);
                    let mishap = this.before().await?;
                    if location.as_ref().ends_with(LEASE) {
                        this.pause_at_release().await;
                    }
                    let before = bytes_of(&this.inner, &location).await;
                    this.inner.delete(&location).await?;
                    if location.as_ref().ends_with(LEASE) {
                        this.lease_written(None);
                    }
                    trace(&this.world(), this.client, format_args!("delete {location}"));
                    this.changed(&location, before).await;
                    this.after(mishap, location).await
                }
            })
            .boxed()
    }

    fn list(&self, prefix: Option<&Key>) -> BoxStream<'static, object_store::Result<ObjectMeta>> {
        let this = self.clone();
        let prefix = prefix.cloned();
        futures::stream::once(async move {
            let mishap = this.before().await?;
            let listed: Vec<_> = this.inner.list(prefix.as_ref()).collect().await;
            this.after(mishap, listed).await
        })
        .map(|listed| match listed {
            Ok(all) => futures::stream::iter(all).boxed(),
            Err(e) => futures::stream::once(async move { Err(e) }).boxed(),
        })
        .flatten()
        .boxed()
    }

    async fn list_with_delimiter(&self, prefix: Option<&Key>) -> object_store::Result<ListResult> {
        let mishap = self.before().await?;
        let done = self.inner.list_with_delimiter(prefix).await;
        self.after(mishap, done?).await
    }

    async fn copy_opts(
        &self,
        from: &Key,
        to: &Key,
        options: CopyOptions,
    ) -> object_store::Result<()> {
        self.inner.copy_opts(from, to, options).await
    }
}
