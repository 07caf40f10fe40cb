//! `Last-Modified` for files that exist only in memory. A build keeps an unchanged file's
//! modification time because it does not rewrite the file; a preview that renders on
//! request has no file to keep a time on, so it keeps the time here instead: per file of
//! the listing, the hash of the bytes it last served and since when it has served them.
//! A file whose bytes are the same after a reload keeps its time; a file whose bytes
//! changed gets the time of the listing that changed them, and always a later second
//! than its previous time, so `If-Modified-Since` tells the two apart even when both
//! listings were loaded within one second (its time may then run ahead of the clock by
//! that second). The entity tag needs nothing kept: it is the hash of the bytes.
//!
//! Bounded: one entry (24 bytes) per file of the listing that was asked for. Entries of
//! files an earlier listing had and this one does not (a page size taken out of the
//! config) are dropped at the reload that finds more entries than the listing has files;
//! a file whose entry was dropped starts again from the time of the listing serving it,
//! which is never earlier than what a client holds for other bytes.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

/// Which loaded listing served a file, and its time in whole seconds since the epoch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Generation {
    /// Counts loads that succeeded, from 1.
    pub number: u32,
    /// When it was loaded (HTTP dates have whole seconds).
    pub seconds: u64,
}

impl Generation {
    /// The generation after `previous` (`None`: the first one), loaded at `now`.
    pub fn next(previous: Option<Generation>, now: SystemTime) -> Generation {
        let seconds = now.duration_since(UNIX_EPOCH).map_or(0, |d| d.as_secs());
        let number = previous.map_or(1, |p| p.number.saturating_add(1));
        Generation { number, seconds }
    }
}

#[derive(Debug, Clone, Copy)]
struct Stamp {
    /// The low 64 bits of the hash of the bytes last served.
    hash: u64,
    seconds: u64,
    /// The newest listing that served these bytes.
    generation: u32,
}

/// The times of the files a preview served, across its reloads.
#[derive(Debug, Default)]
pub struct Stamps {
    by_file: Mutex<HashMap<u64, Stamp>>,
}

impl Stamps {
    /// The `Last-Modified` of file `rel` served with bytes of hash `hash` by the listing
    /// of generation `served_by`.
    pub fn modified(&self, rel: &str, hash: u128, served_by: Generation) -> SystemTime {
        let key = xxhash_rust::xxh3::xxh3_64(rel.as_bytes());
        let hash = hash as u64;
        let mut by_file = self.by_file.lock().unwrap_or_else(|p| p.into_inner());
        let fresh = Stamp { hash, seconds: served_by.seconds, generation: served_by.number };
        let known = match by_file.entry(key) {
            Entry::Vacant(entry) => {
                entry.insert(fresh);
                return UNIX_EPOCH + Duration::from_secs(fresh.seconds);
            }
            Entry::Occupied(entry) => entry.into_mut(),
        };
        let seconds = if known.hash == hash {
            known.generation = known.generation.max(served_by.number);
            known.seconds
        } else if known.generation > served_by.number {
            // A request still answered from a listing that a reload has replaced: its own
            // listing's time, leaving the newer listing's entry as it is.
            served_by.seconds
        } else {
            let seconds = served_by.seconds.max(known.seconds + 1);
            *known = Stamp { seconds, ..fresh };
            seconds
        };
        UNIX_EPOCH + Duration::from_secs(seconds)
    }

    /// Called at each reload with the number of files the new listing has: entries past
    /// that can only be of files it no longer has, and go (all of them: which ones are
    /// stale is not known, and a dropped entry costs a client one full answer).
    pub fn bound(&self, files: usize) {
        let mut by_file = self.by_file.lock().unwrap_or_else(|p| p.into_inner());
        if by_file.len() > files {
            *by_file = HashMap::new();
        }
    }

    /// How many files have a time kept.
    pub fn len(&self) -> usize {
        self.by_file.lock().unwrap_or_else(|p| p.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(number: u32, seconds: u64) -> Generation {
        Generation { number, seconds }
    }

    fn secs(t: SystemTime) -> u64 {
        t.duration_since(UNIX_EPOCH).unwrap().as_secs()
    }

    #[test]
    fn unchanged_bytes_keep_their_time_across_reloads() {
        let stamps = Stamps::default();
        assert_eq!(secs(stamps.modified("a.json", 7, at(1, 100))), 100);
        assert_eq!(secs(stamps.modified("a.json", 7, at(2, 200))), 100);
        assert_eq!(secs(stamps.modified("a.json", 7, at(5, 900))), 100);
        // Another file first asked for later starts at its listing's time.
        assert_eq!(secs(stamps.modified("b.json", 7, at(5, 900))), 900);
    }

    #[test]
    fn changed_bytes_get_the_time_of_the_listing_that_changed_them() {
        let stamps = Stamps::default();
        assert_eq!(secs(stamps.modified("a.json", 7, at(1, 100))), 100);
        assert_eq!(secs(stamps.modified("a.json", 8, at(2, 200))), 200);
        assert_eq!(secs(stamps.modified("a.json", 8, at(3, 300))), 200, "then keep it");
    }

    #[test]
    fn two_versions_within_one_second_are_a_second_apart() {
        let stamps = Stamps::default();
        assert_eq!(secs(stamps.modified("a.json", 7, at(1, 100))), 100);
        assert_eq!(secs(stamps.modified("a.json", 8, at(2, 100))), 101);
        assert_eq!(secs(stamps.modified("a.json", 9, at(3, 100))), 102);
        assert_eq!(secs(stamps.modified("a.json", 9, at(4, 100))), 102);
    }

    #[test]
    fn a_replaced_listing_never_moves_the_newer_ones_time() {
        let stamps = Stamps::default();
        assert_eq!(secs(stamps.modified("a.json", 7, at(1, 100))), 100);
        assert_eq!(secs(stamps.modified("a.json", 8, at(2, 200))), 200);
        // A request that took listing 1 just before the reload finishes after it.
        assert_eq!(secs(stamps.modified("a.json", 7, at(1, 100))), 100);
        assert_eq!(secs(stamps.modified("a.json", 8, at(2, 200))), 200);
    }

    #[test]
    fn entries_past_the_listings_file_count_are_dropped() {
        let stamps = Stamps::default();
        for name in ["a", "b", "c"] {
            stamps.modified(name, 1, at(1, 100));
        }
        stamps.bound(3);
        assert_eq!(stamps.len(), 3);
        stamps.bound(2);
        assert!(stamps.is_empty());
    }

    #[test]
    fn generations_count_from_one() {
        let t = UNIX_EPOCH + Duration::from_millis(5_500);
        let first = Generation::next(None, t);
        assert_eq!(first, at(1, 5));
        assert_eq!(Generation::next(Some(first), t), at(2, 5));
    }
}
