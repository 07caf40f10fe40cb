//! The fault model: a seeded schedule of mishaps per client (kills, freezes, suspends,
//! late sends, failed and lost requests), the store as one client sees it through them,
//! and the client's clock and process, stopped while it is frozen or suspended.

use std::collections::BTreeMap;
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

use super::invariants::{bytes_of, dangling, followed};
use super::{LEASE, LIFETIME, Shared, World};

/// splitmix64: small, fast, deterministic.
#[derive(Clone)]
pub(super) struct Rng(pub(super) u64);

impl Rng {
    pub(super) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub(super) fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    pub(super) fn chance(&mut self, percent: u64) -> bool {
        self.below(100) < percent
    }
}

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

#[derive(Default)]
pub(super) struct Client {
    pub(super) plan: Plan,
    pub(super) requests: u64,
    pub(super) record_puts: u64,
    pub(super) dead: bool,
    /// Frozen until then: nothing of the client runs, no request of it leaves, no answer
    /// reaches it.
    pub(super) frozen_until: Option<tokio::time::Instant>,
    /// When the machine was suspended, for how long: time its monotonic clock missed.
    pub(super) suspends: Vec<(tokio::time::Instant, Duration)>,
    /// Every path its deploy sent its CDN.
    pub(super) paid_paths: Vec<String>,
}

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

/// Prints one line of the schedule's story when `FOLIO_SIM_TRACE` is set.
pub(super) fn trace(world: &World, client: usize, what: std::fmt::Arguments) {
    if std::env::var_os("FOLIO_SIM_TRACE").is_some() {
        eprintln!("{:>7} ms  client {client}: {what}", world.now_ms());
    }
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
        let before = bytes_of(&self.inner, location).await;
        let mode = format!("{:?}", opts.mode);
        let done = self.inner.put_opts(location, payload, opts).await;
        trace(
            &self.world(),
            self.client,
            format_args!("put {location} {mode} -> {}", done.is_ok()),
        );
        if done.is_ok() {
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

/// A client's deploy as a process: not run at all while the client is frozen or dead.
pub(super) struct Process<F> {
    pub(super) deploy: std::pin::Pin<Box<F>>,
    pub(super) world: Shared,
    pub(super) client: usize,
    pub(super) wake: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
}

impl<F: std::future::Future> std::future::Future for Process<F> {
    type Output = F::Output;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        let (dead, frozen) = {
            let w = self.world.lock().unwrap();
            let c = &w.clients[self.client];
            (c.dead, c.frozen_until.filter(|&t| t > tokio::time::Instant::now()))
        };
        if dead {
            return std::task::Poll::Pending;
        }
        if let Some(until) = frozen {
            let wake = self.wake.insert(Box::pin(tokio::time::sleep_until(until)));
            let _ = wake.as_mut().poll(cx);
            return std::task::Poll::Pending;
        }
        self.deploy.as_mut().poll(cx)
    }
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

/// The CDN one client purges: what it accepts is recorded in the world, at the virtual
/// moment it accepts it, with every path it was sent; the client's plan says how it
/// misbehaves.
pub(super) struct SimCdn {
    pub(super) world: Shared,
    pub(super) client: usize,
    pub(super) cdn: folio::config::Cdn,
}

#[async_trait]
impl folio::deploy::cdn::Client for SimCdn {
    fn cdn(&self) -> &folio::config::Cdn {
        &self.cdn
    }

    fn dialect(&self) -> folio::deploy::purge::Dialect {
        folio::deploy::purge::Dialect::CloudFront
    }

    async fn send(
        &self,
        batch: &folio::deploy::purge::Batch,
        _: usize,
        _: &folio::deploy::cdn::Budget,
    ) -> Result<folio::deploy::cdn::Accepted, folio::deploy::cdn::Declined> {
        let mishap = {
            let mut w = self.world.lock().unwrap();
            // What is sent is what is paid for, accepted or not.
            w.clients[self.client].paid_paths.extend(batch.paths.iter().cloned());
            w.clients[self.client].plan.cdn
        };
        match mishap {
            Some(CdnMishap::Refuse) => {
                return Err("403 Forbidden: 10000 Authentication error".to_string().into());
            }
            Some(CdnMishap::Gone) => {
                return Err("could not connect (tried 4 times)".to_string().into());
            }
            Some(CdnMishap::Storm(long)) => {
                tokio::time::sleep(long).await;
                return Err("429 Too Many Requests; still so past purge_wait".to_string().into());
            }
            Some(CdnMishap::Slow(long)) => tokio::time::sleep(long).await,
            None => {}
        }
        let mut w = self.world.lock().unwrap();
        let at = w.now_ms();
        trace(&w, self.client, format_args!("CDN purge {:?}", batch.paths));
        w.cdn_purges.push((at, batch.keys.clone()));
        Ok(folio::deploy::cdn::Accepted { id: None, waits: 0 })
    }
}

/// What someone who can write the bucket (and not the CDN) puts in folio's record between
/// deploys: keys owed a purge that folio never changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Forgery {
    /// Junk: other sites, traversals, URLs, control characters, languages and resources
    /// the build has not.
    Junk,
    /// A million pages the layout could hold, at sizes and numbers the build has not.
    Million,
    /// Every key the store holds.
    Everything,
}

/// When and how the bucket's record is forged in seed `seed`, drawn from a source of its
/// own (the schedules of the deploys stay as they were).
pub(super) fn forgery(seed: u64) -> Option<(Duration, Forgery)> {
    let mut rng = Rng(seed ^ 0xF0_4CE5);
    if !rng.chance(35) {
        return None;
    }
    let at = Duration::from_millis(rng.below(60_000));
    let kind = match rng.below(10) {
        0..5 => Forgery::Junk,
        5..7 => Forgery::Million,
        _ => Forgery::Everything,
    };
    Some((at, kind))
}

/// The keys a forgery adds to what every recipient is owed; `held`: the keys the store
/// holds below the prefix.
pub(super) fn forged(kind: Forgery, held: &[String]) -> Vec<String> {
    match kind {
        Forgery::Junk => [
            "../../other-site/index.html",
            "%2e%2e/%2e%2e/other-site/index.html",
            "https:/evil.example/x",
            "api/de/attractions/10/1.json",
            "api/en/museums/10/1.json",
            "api/en/attractions/10/0.json",
            "secrets/passwords.txt",
            "api/en/attractions/10/1.json/../../../../x",
            "a\u{7}b",
        ]
        .map(String::from)
        .to_vec(),
        Forgery::Million => (1..=1_000_000u64)
            .map(|n| {
                format!("api/{}/attractions/{}/{n}.json", ["en", "fr"][n as usize % 2], 7 + n % 3)
            })
            .collect(),
        Forgery::Everything => held.to_vec(),
    }
}
