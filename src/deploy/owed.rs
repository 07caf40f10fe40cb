//! Where a deploy's changes go to be purged (the purge list file, the CDNs), and what each
//! CDN is owed: what it has not accepted a purge of from earlier deploys (the record's
//! `purging`), what a deploy cut short may have changed, and this deploy's changes. A CDN
//! this deploy does not name keeps what it is owed, untouched.

use std::collections::{BTreeMap, BTreeSet};

use super::cdn::{Purger, Sent};
use super::purge::PurgeList;
use super::record::Record;
use super::{Deployed, WritePurgeList, first_keys};
use crate::error::Failure;
use crate::routes::Map;
use crate::site::Progress;

/// Where a deploy's changes go to be purged: the purge list file, the CDNs.
pub(super) struct Purges<'a, 'h> {
    pub list: Option<WritePurgeList<'h>>,
    pub cdns: &'a [Box<dyn Purger>],
    pub map: &'a Map,
}

impl Purges<'_, '_> {
    pub fn of(&self, objects: &BTreeSet<String>) -> PurgeList {
        PurgeList::new(self.map, objects.iter().cloned().collect())
    }
}

/// What each CDN the deploy names is owed (in the order named), and what is owed to those
/// it does not name.
pub(super) struct Owed {
    named: Vec<BTreeSet<String>>,
    others: BTreeMap<String, BTreeSet<String>>,
}

/// What the purges came to: each accepted one, what stays owed (the record's `purging`),
/// and why each failed one failed.
pub(super) struct Purged {
    pub sent: Vec<Sent>,
    pub owed: BTreeMap<String, BTreeSet<String>>,
    pub failed: Vec<String>,
}

impl Owed {
    /// From the record: what each of `cdns` is owed, with what `cut` (a deploy cut short)
    /// may have changed; a warning for each CDN owed something that is not named.
    pub fn new(
        old: &Record,
        cut: &BTreeSet<String>,
        cdns: &[Box<dyn Purger>],
        warnings: &mut Vec<String>,
    ) -> Owed {
        let named: Vec<BTreeSet<String>> = (cdns.iter())
            .map(|c| {
                let earlier = old.purging.get(&c.cdn().to_string()).cloned().unwrap_or_default();
                earlier.union(cut).cloned().collect()
            })
            .collect();
        let names: BTreeSet<String> = cdns.iter().map(|c| c.cdn().to_string()).collect();
        let others: BTreeMap<String, BTreeSet<String>> = (old.purging.iter())
            .filter(|(c, _)| !names.contains(*c))
            .map(|(c, keys)| (c.clone(), keys.clone()))
            .collect();
        for (cdn, keys) in &others {
            warnings.push(format!(
                "{cdn} is still owed a purge of {} keys ({}), and this deploy does not purge it (not in [deploy] purge or --purge): they stay owed until a deploy that names it",
                keys.len(),
                first_keys(&keys.iter().cloned().collect::<Vec<_>>())
            ));
        }
        Owed { named, others }
    }

    /// What the record owes every CDN if `about` is changed and no purge is accepted: the
    /// record's `purging` for an intent.
    pub fn with(
        &self,
        about: &BTreeSet<String>,
        cdns: &[Box<dyn Purger>],
    ) -> BTreeMap<String, BTreeSet<String>> {
        let mut all = self.others.clone();
        for (c, keys) in cdns.iter().zip(&self.named) {
            let keys: BTreeSet<String> = keys.union(about).cloned().collect();
            if !keys.is_empty() {
                all.insert(c.cdn().to_string(), keys);
            }
        }
        all
    }

    /// This deploy's changes, owed to every CDN it names.
    pub fn add(&mut self, changed: &BTreeSet<String>) {
        for keys in &mut self.named {
            keys.extend(changed.iter().cloned());
        }
    }

    /// What each purge would send (`--dry-run`).
    pub fn plans(&self, purges: &Purges<'_, '_>) -> Vec<Sent> {
        let each = purges.cdns.iter().zip(&self.named).filter(|(_, keys)| !keys.is_empty());
        each.map(|(c, keys)| c.plan(&purges.of(keys))).collect()
    }

    /// Sends each CDN its purge, one after another.
    pub async fn send(self, purges: &Purges<'_, '_>, progress: &dyn Progress) -> Purged {
        let mut out = Purged { sent: Vec::new(), owed: self.others, failed: Vec::new() };
        for (c, keys) in purges.cdns.iter().zip(self.named) {
            if keys.is_empty() {
                continue;
            }
            progress.start("purge", 0);
            match c.purge(&purges.of(&keys)).await {
                Ok(sent) => out.sent.push(sent),
                Err(why) => {
                    out.failed.push(format!(
                        "the purge of {} failed: {why}; {} keys stay owed to it in the record ({})",
                        c.cdn(),
                        keys.len(),
                        first_keys(&keys.iter().cloned().collect::<Vec<_>>())
                    ));
                    out.owed.insert(c.cdn().to_string(), keys);
                }
            }
        }
        out
    }
}

/// A deploy that published but whose purges (some) failed: exit 2, saying both.
pub(super) fn failure(target: &str, out: &Deployed, failed: &[String]) -> Failure {
    Failure::Other(anyhow::anyhow!(
        "{target} holds the build ({} uploaded, {} deleted), but {}: the next deploy purges them first, also one with nothing else to do",
        out.uploaded.len(),
        out.deleted.len(),
        failed.join("; ")
    ))
}
