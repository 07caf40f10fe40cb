//! The bucket's writer: someone who can write the bucket and not the CDN rewrites folio's
//! record between deploys, owing junk, traversals, a million pages the build has not,
//! every key the store holds, or page 1 of 100,000 made-up languages (each its own variant,
//! the fold's worst case). Drawn from a source of its own.

use std::time::Duration;

use object_store::memory::InMemory;
use object_store::path::Path as Key;
use object_store::{ObjectStoreExt, PutPayload};

use super::check::{bytes_of, followed};
use super::rng::Rng;
use super::{PREFIX, Shared, purged_cdn};

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
    /// Page 1 of [`LANGUAGES`] made-up languages, each its own variant: as many as a
    /// record may owe before it counts as owing everything, each folded apart.
    Languages,
}

/// The made-up languages of [`Forgery::Languages`]: the most keys a record may owe a CDN
/// before folio owes it everything the build publishes instead.
pub(super) const LANGUAGES: usize = 100_000;

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
    // Drawn apart, so that the forgeries of the seeds above stay as they were.
    let kind = if Rng(seed ^ 0x1A_6CA6).chance(30) { Forgery::Languages } else { kind };
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
        Forgery::Languages => {
            (0..LANGUAGES).map(|n| format!("api/x{n:05}/attractions/10/1.json")).collect()
        }
    }
}

/// The bucket's writer: at `at`, the record (when there is one) owes every recipient, the
/// purge list and the CDN, `kind`'s keys besides what it owed. Written over whatever is
/// there, as someone with the bucket's keys would.
pub(super) async fn forge(
    inner: &InMemory,
    world: &Shared,
    (at, kind): (Duration, Forgery),
) -> String {
    use folio::deploy::record::{DeployRecord, Recipient};
    tokio::time::sleep(at).await;
    let key = Key::from(format!("{PREFIX}/{}", folio::deploy::record::RECORD));
    let Some(bytes) = bytes_of(inner, &key).await else {
        return format!("at {at:?}, no record to forge ({kind:?})");
    };
    let Ok(mut record) = DeployRecord::from_bytes(&bytes) else {
        return format!("at {at:?}, a record that does not read ({kind:?})");
    };
    let held: Vec<String> = {
        use futures::StreamExt;
        use object_store::ObjectStore;
        let all: Vec<_> = inner.list(None).collect().await;
        let keys = all.into_iter().filter_map(|m| Some(m.ok()?.location.to_string()));
        keys.filter_map(|k: String| followed(&k).map(str::to_string)).collect()
    };
    let keys = forged(kind, &held);
    // The list is owed the junk too; the million and the languages, the CDN only (what a
    // bucket writer aims at is the CDN's bill).
    let billed = matches!(kind, Forgery::Million | Forgery::Languages);
    let list = if billed { &[][..] } else { &keys[..] };
    record.owed.entry(Recipient::List).or_default().extend(list.iter().cloned());
    record.owed.entry(Recipient::Cdn(purged_cdn())).or_default().extend(keys.iter().cloned());
    inner.put(&key, PutPayload::from(record.to_bytes())).await.unwrap();
    {
        let mut w = world.lock().unwrap();
        let now = w.now_ms();
        // Past the floor, what the CDN is owed in all: folio owes it everything instead.
        let owed = record.owed.get(&Recipient::Cdn(purged_cdn())).map_or(0, |k| k.len());
        let everything = owed > LANGUAGES;
        w.forged.push((now, keys.iter().cloned().collect(), everything));
    }
    format!("at {at:?}, the record forged to owe {} keys more ({kind:?})", keys.len())
}
