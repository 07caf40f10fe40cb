//! The one ledger of what is owed a purge (the record's `owed`): per [`Recipient`] — the
//! purge list file, each CDN — the keys changed on the store that it has not been sent or
//! has not accepted a purge of.
//!
//! Read back from the store, the ledger is evidence, not orders: anyone who can write the
//! bucket can write the record. A key counts only if it is a path this build's layout gives
//! a file (a page of a configured language at any size and number, with its siblings;
//! folio's own files) or a file this build publishes; anything else is dropped, with one
//! warning that says how many and why, and never reaches a CDN. What is paid is bounded
//! too: each recipient's keys fold within the deploy's `max_purge_paths` (`purge.rs`), so
//! no record, however long, makes a deploy pay more.
//!
//! The purge list accrues every change (it names what changed since one was last
//! written); a CDN accrues the changes of the deploys that name it. A CDN this deploy does
//! not name keeps what it is owed, and is warned about, unless `--drop-owed` drops it or
//! `--move-owed` moves it to the CDNs this deploy names (a mistyped id corrected).
//! [`Ledger::pay`] sends each CDN its purge one request at a time and strikes each
//! request's keys from the record, with the record's conditional write, as the CDN
//! accepts it: a purge cut or refused midway owes only what was not accepted. The plan is
//! folded off the request thread (the lease's renewals go on), nothing is sent without
//! the lease made sure, and a lease the fence no longer vouches for when a CDN accepts
//! (the process was paused meanwhile) is renewed there and then, on its version, before
//! the strike: an accepted purge is not paid twice for want of it.

use std::collections::{BTreeMap, BTreeSet, HashSet};

use super::cdn::{Budget, Client, Sent};
use super::deployed::Deployed;
use super::options::Settle;
use super::purge::{self, PurgeList};
use super::record::{DeployRecord, Recipient};
use super::remote::Remote;
use crate::config::Cdn;
use crate::diag::first_keys;
use crate::error::{Failure, Refusal};
use crate::routes::Map;
use crate::routes::layout::{self, SIBLINGS};

/// What is owed to whom, checked, with what this deploy adds.
#[derive(Debug, Clone)]
pub(super) struct Ledger {
    owed: BTreeMap<Recipient, BTreeSet<String>>,
    /// Who this deploy pays: the list when a purge list is asked for, the CDNs named.
    paying: Vec<Recipient>,
}

/// What a purge's keys are named as: the map of the build published (each key's public
/// URLs) and `max_purge_paths`, the most paths one purge may name.
#[derive(Clone, Copy)]
pub(super) struct Naming<'a> {
    pub map: &'a Map,
    pub bound: usize,
}

/// Owed keys past this many (or past the build's files, when it has more) are not what a
/// deploy could have left: it is owed as a purge of everything the build publishes.
const OWED_FLOOR: usize = 100_000;

/// The most CDNs a record may say are owed a purge: a deploy names a few. Past it, the
/// rest are dropped with a warning.
const MOST_CDNS: usize = 16;

/// Unnamed CDNs a warning names one by one; the rest are counted.
const NAMED_IN_A_WARNING: usize = 5;

/// The paths folio could owe a purge of for a build: what its layout gives a file, and the
/// files it publishes.
pub(super) struct Evidence {
    /// The files the build publishes.
    built: BTreeSet<String>,
    /// folio's own files, and the build's.
    files: HashSet<String>,
    /// The page endpoints the build publishes (`api/en/attractions`).
    endpoints: HashSet<String>,
}

impl Evidence {
    pub fn new(built: impl IntoIterator<Item = String>) -> Evidence {
        let built: BTreeSet<String> = built.into_iter().collect();
        let mut files: HashSet<String> = built.iter().cloned().collect();
        files.extend(layout::api_files());
        files.insert(layout::NOJEKYLL.to_string());
        files.extend(crate::hosts::PLATFORM_CONFIG.iter().map(|f| f.to_string()));
        let endpoints = built.iter().filter_map(|k| Some(layout::any_page(k)?.0.to_string()));
        let endpoints = endpoints.collect();
        Evidence { built, files, endpoints }
    }

    /// Whether a held `key` is one of folio's files or a page (or sibling) of an endpoint
    /// the build publishes: what stays owed when a record owes more than a deploy could
    /// leave (pages of made-up languages are what such a record is made of).
    fn of_the_build(&self, key: &str) -> bool {
        let ours = |rel: &str| layout::any_page(rel).is_some_and(|p| self.endpoints.contains(p.0));
        self.files.contains(key)
            || ours(key)
            || SIBLINGS.iter().any(|(ext, _)| key.strip_suffix(ext).is_some_and(ours))
    }

    /// Whether a record's `key` can be owed: a page (or a page's sibling) of folio's layout,
    /// or one of the files.
    fn holds(&self, key: &str) -> bool {
        let page = |rel: &str| layout::any_page(rel).is_some();
        self.files.contains(key)
            || page(key)
            || SIBLINGS.iter().any(|(ext, _)| key.strip_suffix(ext).is_some_and(page))
    }
}

impl Ledger {
    /// The ledger of `old` checked against `evidence`, settled as `settle` says, with what
    /// `cut` (a deploy cut short, as the record says: checked too) may have changed owed to
    /// whoever accrues; `paying`: the recipients this deploy pays; `dry_run`: nothing will
    /// be written (the warnings say "would"). Warnings: keys dropped, owed keys dropped, moved
    /// or left.
    pub fn new(
        old: &DeployRecord,
        cut: &BTreeSet<String>,
        evidence: &Evidence,
        (paying, settle, dry_run): (Vec<Recipient>, &Settle, bool),
        warnings: &mut Vec<String>,
    ) -> Ledger {
        let mut owed: BTreeMap<Recipient, BTreeSet<String>> = BTreeMap::new();
        let mut dropped: Vec<&String> = Vec::new();
        let most = evidence.built.len().max(OWED_FLOOR);
        let mut cdns = 0;
        let mut unknown: Vec<String> = Vec::new();
        for (to, keys) in &old.owed {
            match to {
                Recipient::Other(name) => {
                    unknown.push(name.escape_debug().to_string());
                    continue;
                }
                Recipient::Cdn(_) if !paying.contains(to) => {
                    cdns += 1;
                    if cdns > MOST_CDNS {
                        unknown.push(to.to_string());
                        continue;
                    }
                }
                _ => {}
            }
            let good: BTreeSet<String> =
                keys.iter().filter(|k| evidence.holds(k)).cloned().collect();
            dropped.extend(keys.iter().filter(|k| !good.contains(*k)));
            if good.len() > most {
                // Kept: what is owed of the build's own endpoints and files (a page deleted
                // by a deploy whose purge failed among them), if that fits; and everything
                // the build publishes.
                let n = good.len();
                let mut kept: BTreeSet<String> =
                    good.into_iter().filter(|k| evidence.of_the_build(k)).collect();
                let fits = kept.len() <= most;
                if !fits {
                    kept.clear();
                }
                kept.extend(evidence.built.iter().cloned());
                let how = if fits { ", and what it is owed of the build's endpoints" } else { "" };
                warnings.push(format!(
                    "the deploy record says {to} is owed a purge of {n} keys, more than a deploy of this build could leave ({most}): owed a purge of everything the build publishes instead{how}"
                ));
                owed.insert(to.clone(), kept);
            } else if !good.is_empty() {
                owed.insert(to.clone(), good);
            }
        }
        if !unknown.is_empty() {
            warnings.push(format!(
                "the deploy record says {} recipients are owed a purge that folio does not send to ({}): dropped (a record names the purge list and at most {MOST_CDNS} CDNs, each as `cloudfront:ID` or `cloudflare:ZONE`)",
                unknown.len(),
                first_keys(&unknown)
            ));
        }
        let checked: BTreeSet<String> = cut.iter().filter(|k| evidence.holds(k)).cloned().collect();
        dropped.extend(cut.iter().filter(|k| !checked.contains(*k)));
        if !dropped.is_empty() {
            // As a message may show them: a key may hold anything, escapes too.
            let mut dropped: Vec<String> =
                dropped.iter().map(|k| k.escape_debug().to_string()).collect();
            dropped.sort();
            dropped.dedup();
            warnings.push(format!(
                "the deploy record says {} keys are owed a purge that are no paths of this build below the prefix ({}): dropped, never sent (folio writes only its own paths there; someone or something else wrote the record)",
                dropped.len(),
                first_keys(&dropped)
            ));
        }
        let mut ledger = Ledger { owed, paying };
        ledger.settle(settle, dry_run, warnings);
        ledger.add(&checked);
        let unnamed: Vec<(&Cdn, &BTreeSet<String>)> = (ledger.owed.iter())
            .filter_map(|(to, keys)| match to {
                Recipient::Cdn(cdn) if !ledger.paying.contains(to) => Some((cdn, keys)),
                _ => None,
            })
            .collect();
        for &(cdn, keys) in unnamed.iter().take(NAMED_IN_A_WARNING) {
            warnings.push(format!(
                "{cdn} is still owed a purge of {} keys ({}), and this deploy does not purge it (not in [deploy] purge or --purge): they stay owed until a deploy that names it; {}",
                keys.len(),
                first_keys(&keys.iter().cloned().collect::<Vec<_>>()),
                ways_out(cdn)
            ));
        }
        if unnamed.len() > NAMED_IN_A_WARNING {
            warnings.push(format!(
                "{} more CDNs are still owed a purge, and this deploy purges none of them",
                unnamed.len() - NAMED_IN_A_WARNING
            ));
        }
        ledger
    }

    /// `--drop-owed` and `--move-owed` (with `dry_run`, what they would do).
    fn settle(&mut self, settle: &Settle, dry_run: bool, warnings: &mut Vec<String>) {
        let (moved, dropped) =
            if dry_run { ("would move", "would drop") } else { ("moved", "dropped") };
        let cdns: Vec<Recipient> =
            self.paying.iter().filter(|r| matches!(r, Recipient::Cdn(_))).cloned().collect();
        for (cdn, moving) in
            settle.drop.iter().map(|c| (c, false)).chain(settle.moved.iter().map(|c| (c, true)))
        {
            let Some(keys) = self.owed.remove(&Recipient::Cdn(cdn.clone())) else {
                let flag = if moving { "--move-owed" } else { "--drop-owed" };
                warnings.push(format!("{flag} {cdn}: the record owes it nothing"));
                continue;
            };
            if moving {
                let to: Vec<String> = cdns.iter().map(ToString::to_string).collect();
                warnings.push(format!(
                    "{moved} the purge of {} keys owed to {cdn} to {} (--move-owed)",
                    keys.len(),
                    to.join(", ")
                ));
                for to in &cdns {
                    self.owed.entry(to.clone()).or_default().extend(keys.iter().cloned());
                }
            } else {
                warnings.push(format!(
                    "{dropped} the purge of {} keys owed to {cdn} (--drop-owed): no deploy will send it",
                    keys.len()
                ));
            }
        }
    }

    /// `changed` owed to whoever accrues a change: the purge list always (it names what
    /// changed since one was written), and the CDNs this deploy pays.
    pub fn add(&mut self, changed: &BTreeSet<String>) {
        if changed.is_empty() {
            return;
        }
        let cdns = self.paying.iter().filter(|to| **to != Recipient::List).cloned();
        for to in std::iter::once(Recipient::List).chain(cdns).collect::<Vec<_>>() {
            self.owed.entry(to).or_default().extend(changed.iter().cloned());
        }
    }

    /// The ledger if `changed` lands and nothing is paid: what an intent record owes.
    pub fn with(&self, changed: &BTreeSet<String>) -> BTreeMap<Recipient, BTreeSet<String>> {
        let mut then = self.clone();
        then.add(changed);
        then.owed()
    }

    /// What the record says is owed.
    pub fn owed(&self) -> BTreeMap<Recipient, BTreeSet<String>> {
        (self.owed.iter())
            .filter(|(_, k)| !k.is_empty())
            .map(|(r, k)| (r.clone(), k.clone()))
            .collect()
    }

    /// What `to` is owed.
    pub fn of(&self, to: &Recipient) -> BTreeSet<String> {
        self.owed.get(to).cloned().unwrap_or_default()
    }

    /// Whether this deploy has owed keys to pay.
    pub fn owes_payment(&self) -> bool {
        self.paying.iter().any(|to| self.owed.get(to).is_some_and(|k| !k.is_empty()))
    }

    /// `keys` paid to `to`.
    pub fn strike(&mut self, to: &Recipient, keys: &BTreeSet<String>) {
        if let Some(owed) = self.owed.get_mut(to) {
            owed.retain(|k| !keys.contains(k));
        }
    }

    /// The purge list of what the list is owed.
    pub fn list(&self, naming: Naming<'_>) -> PurgeList {
        PurgeList::new(naming.map, &self.of(&Recipient::List), naming.bound)
    }

    /// What each of `clients` is sent: the plans a dry run prints and a deploy sends.
    pub fn plans(&self, clients: &[Box<dyn Client>], naming: Naming<'_>) -> Vec<Sent> {
        let Naming { map, bound } = naming;
        (clients.iter())
            .filter_map(|c| {
                let keys = self.of(&Recipient::Cdn(c.cdn().clone()));
                (!keys.is_empty())
                    .then(|| Sent::of(c.cdn(), &purge::plan(map, &keys, c.dialect(), bound)))
            })
            .collect()
    }

    /// Sends each of `clients` its purge, one request at a time within `budget`; each
    /// request accepted is struck from `after`, which is written (conditionally) before the
    /// next request. Returns what each CDN accepted, why each that failed did, and whether
    /// `after` as it ends is what the store holds.
    pub async fn pay(
        &mut self,
        clients: &[Box<dyn Client>],
        naming: Naming<'_>,
        budget: &Budget,
        remote: &Remote<'_>,
        after: &mut DeployRecord,
    ) -> Result<Paid, Failure> {
        let mut paid = Paid::default();
        for client in clients {
            let (cdn, to) = (client.cdn(), Recipient::Cdn(client.cdn().clone()));
            let keys = self.of(&to);
            if keys.is_empty() {
                continue;
            }
            remote.progress.start("purge", 0);
            let plan = planned(naming.map, keys, client.dialect(), naming.bound).await?;
            let mut sent = Sent::of(cdn, &plan);
            for (n, batch) in plan.batches.iter().enumerate() {
                // Nothing is sent a CDN by a deploy that may have lost its lease: what it
                // would pay stays owed, for the next deploy to pay once.
                remote.reclaim_lease().await?;
                match client.send(batch, n, budget).await {
                    Ok(accepted) => {
                        // Struck before anything else can stop the deploy: a purge the CDN
                        // accepted and the record still owes would be paid again.
                        self.strike(&to, &batch.keys);
                        after.owed = self.owed();
                        let struck = async {
                            remote.reclaim_lease().await?;
                            remote.put_record(after).await
                        };
                        struck.await.map_err(|e| unstruck(cdn, e))?;
                        paid.stored = true;
                        sent.ids.extend(accepted.id);
                        sent.waits += accepted.waits;
                    }
                    Err(declined) => {
                        let left = self.of(&to);
                        let mut why = format!(
                            "the purge of {cdn} failed: {}; {} keys stay owed to it in the record ({})",
                            declined.why,
                            left.len(),
                            first_keys(&left.into_iter().collect::<Vec<_>>())
                        );
                        if declined.missing {
                            why.push_str(&format!("; {cdn} does not exist: {}", ways_out(cdn)));
                        }
                        paid.failed.push(why);
                        break;
                    }
                }
            }
            if self.of(&to).is_empty() {
                paid.sent.push(sent);
            }
        }
        Ok(paid)
    }
}

/// The plan of `keys` for a CDN, made on the blocking pool: the lease's renewals run on
/// the deploy's one request thread, and go on while a long list of owed keys is folded.
async fn planned(
    map: &Map,
    keys: BTreeSet<String>,
    dialect: purge::Dialect,
    bound: usize,
) -> Result<purge::Plan, Failure> {
    let map = map.clone();
    tokio::task::spawn_blocking(move || purge::plan(&map, &keys, dialect, bound))
        .await
        .map_err(|e| Failure::Other(anyhow::anyhow!("planning the purge: {e}")))
}

/// A record that could not strike a purge `cdn` accepted: said so, since the next deploy
/// sends it again.
fn unstruck(cdn: &Cdn, e: Failure) -> Failure {
    let said = format!(
        "{cdn} accepted a purge that could not be struck from the deploy record, so the next deploy sends it again"
    );
    match e {
        Failure::Stopped(r) => {
            Failure::Stopped(Refusal::new(format!("{}; {said}", r.fact), r.way_out))
        }
        Failure::Other(e) => Failure::Other(e.context(said)),
        other => other,
    }
}

/// What [`Ledger::pay`] came to.
#[derive(Debug, Default)]
pub(super) struct Paid {
    /// Each CDN paid in full.
    pub sent: Vec<Sent>,
    /// Why each CDN not paid in full was not.
    pub failed: Vec<String>,
    /// Whether the record as it ends was written.
    pub stored: bool,
}

/// The way out of what is owed a CDN that is not what the user meant.
fn ways_out(cdn: &Cdn) -> String {
    format!(
        "if its id is wrong, correct [deploy] purge (or --purge) and pass `--move-owed {cdn}` to send what it is owed to the CDN named then, or `--drop-owed {cdn}` to drop it"
    )
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

#[cfg(test)]
mod tests {
    use super::*;

    fn cdn(id: &str) -> Recipient {
        Recipient::Cdn(Cdn::CloudFront(id.into()))
    }

    fn keys<'a>(keys: impl IntoIterator<Item = &'a str>) -> BTreeSet<String> {
        keys.into_iter().map(String::from).collect()
    }

    fn ledger(
        old: &DeployRecord,
        cut: &BTreeSet<String>,
        paying: Vec<Recipient>,
        settle: &Settle,
    ) -> (Ledger, Vec<String>) {
        let evidence = Evidence::new(["robots.txt".to_string()]);
        let mut warnings = Vec::new();
        let l = Ledger::new(old, cut, &evidence, (paying, settle, false), &mut warnings);
        (l, warnings)
    }

    #[test]
    fn a_key_counts_only_if_it_is_a_path_of_folios_layout_or_this_build() {
        let good = keys([
            "api/en/attractions/10/1.json",
            "api/attractions/10/3.json.br",
            "api/fr/attractions/100/99.json",
            "api/fr/attractions/7/999999999.json",
            // A language and a resource since removed: their pages were folio's.
            "api/de/attractions/10/1.json",
            "api/en/museums/10/1.json",
            "api/index.json",
            "api/errors/not_found.json",
            "robots.txt",
            "_redirects",
        ]);
        let bad = keys([
            "../../other-site/index.html",
            "%2e%2e/%2e%2e/other-site/index.html",
            "https:/evil.example/x",
            "api/en/attractions/10/0.json",
            "api/en/attractions/10/1234567890.json",
            "api/EN/attractions/10/1.json",
            "api/en/attractions/10/01.json",
            "secrets.txt",
            "../up",
            "api/en/attractions/10/\u{1b}[31m1.json",
        ]);
        let mut old = DeployRecord::default();
        old.owed.insert(cdn("E2QWRUHAPOMQZL"), good.union(&bad).cloned().collect());
        // What a deploy cut short may have changed, as the record says, is checked too.
        let cut = keys(["wp-admin/admin-ajax.php", "api/index.json"]);
        let (ledger, warnings) =
            ledger(&old, &cut, vec![cdn("E2QWRUHAPOMQZL")], &Settle::default());
        assert_eq!(ledger.of(&cdn("E2QWRUHAPOMQZL")), good);
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(warnings[0].starts_with("the deploy record says 11 keys are owed"), "{warnings:?}");
        assert!(
            !warnings[0].contains('\u{1b}'),
            "no key reaches a terminal as it is: {warnings:?}"
        );
    }

    #[test]
    fn a_record_owing_more_than_a_deploy_could_leave_keeps_what_it_owes_of_the_builds_endpoints() {
        let built = ["api/en/attractions/10/1.json", "api/attractions/10/1.json"];
        let evidence = Evidence::new(built.map(String::from));
        // Pages a deploy deleted and could not purge (a size since removed), among the pages
        // of more made-up languages than a deploy could leave.
        let real = keys(["api/attractions/100/1.json", "api/en/attractions/100/1.json.gz"]);
        let forged = (0..=OWED_FLOOR).map(|n| format!("api/x{n:06}/attractions/10/1.json"));
        let mut old = DeployRecord::default();
        old.owed.insert(cdn("E1"), forged.chain(real.iter().cloned()).collect());
        let mut warnings = Vec::new();
        let paying = (vec![cdn("E1")], &Settle::default(), false);
        let l = Ledger::new(&old, &BTreeSet::new(), &evidence, paying, &mut warnings);
        let want: BTreeSet<String> = real.iter().cloned().chain(built.map(String::from)).collect();
        assert_eq!(l.of(&cdn("E1")), want);
        assert!(warnings[0].contains("everything the build publishes"), "{warnings:?}");
        // Past the bound even within the build's endpoints: everything the build publishes.
        let many = (1..=OWED_FLOOR as u64 + 1).map(|n| format!("api/en/attractions/7/{n}.json"));
        old.owed.insert(cdn("E1"), many.chain(real.iter().cloned()).collect());
        let mut warnings = Vec::new();
        let paying = (vec![cdn("E1")], &Settle::default(), false);
        let l = Ledger::new(&old, &BTreeSet::new(), &evidence, paying, &mut warnings);
        assert_eq!(l.of(&cdn("E1")), built.iter().map(|k| k.to_string()).collect());
    }

    #[test]
    fn recipients_no_folio_names_and_a_flood_of_cdns_are_dropped_and_said() {
        let page = keys(["api/en/attractions/10/1.json"]);
        let mut old = DeployRecord::default();
        old.owed.insert(Recipient::Other(" cloudfront:ABCDEFGH".into()), page.clone());
        for i in 0..100 {
            old.owed.insert(cdn(&format!("FLOOD{i:05}")), page.clone());
        }
        let (ledger, warnings) = ledger(&old, &BTreeSet::new(), vec![], &Settle::default());
        assert_eq!(ledger.owed().len(), MOST_CDNS);
        let said = warnings.join("\n");
        assert!(
            said.contains(
                "the deploy record says 85 recipients are owed a purge that folio does not send to"
            ),
            "{said}"
        );
        assert_eq!(
            warnings.iter().filter(|w| w.contains("is still owed")).count(),
            NAMED_IN_A_WARNING
        );
        assert!(said.contains("11 more CDNs are still owed a purge"), "{said}");
    }

    #[test]
    fn what_is_owed_is_dropped_or_moved_as_asked_and_left_with_a_way_out() {
        let page = keys(["api/en/attractions/10/1.json"]);
        let mut old = DeployRecord::default();
        old.owed.insert(cdn("WRONGID1"), page.clone());
        old.owed.insert(cdn("OTHERID1"), page.clone());
        let run = |settle: Settle| {
            ledger(&old, &BTreeSet::new(), vec![Recipient::List, cdn("RIGHTID1")], &settle)
        };
        let (left, warnings) = run(Settle::default());
        assert_eq!(left.of(&cdn("RIGHTID1")), BTreeSet::new());
        let said = warnings.join("\n");
        assert!(said.contains("cloudfront:WRONGID1 is still owed a purge of 1 keys"), "{said}");
        assert!(said.contains("`--move-owed cloudfront:WRONGID1`"), "{said}");
        assert!(said.contains("`--drop-owed cloudfront:WRONGID1`"), "{said}");
        let moved = Settle {
            moved: vec![Cdn::CloudFront("WRONGID1".into())],
            drop: vec![Cdn::CloudFront("OTHERID1".into())],
        };
        let (settled, warnings) = run(moved);
        assert_eq!(settled.of(&cdn("RIGHTID1")), page);
        assert_eq!(settled.of(&Recipient::List), BTreeSet::new(), "the list is no CDN");
        assert!(settled.owed().keys().all(|r| *r == cdn("RIGHTID1")), "{:?}", settled.owed());
        assert!(warnings.iter().all(|w| !w.contains("still owed")), "{warnings:?}");
    }

    #[test]
    fn the_list_accrues_every_change_and_a_cdn_only_those_of_deploys_naming_it() {
        let mut old = DeployRecord::default();
        old.owed.insert(cdn("UNNAMED1"), keys(["api/index.json"]));
        let cut = keys(["api/openapi.json"]);
        let (mut ledger, _) = ledger(&old, &cut, vec![cdn("NAMEDID1")], &Settle::default());
        let changed = keys(["api/en/attractions/10/2.json"]);
        let intent = ledger.with(&changed);
        assert_eq!(intent[&cdn("UNNAMED1")], keys(["api/index.json"]));
        assert_eq!(
            intent[&cdn("NAMEDID1")],
            keys(["api/openapi.json", "api/en/attractions/10/2.json"])
        );
        assert_eq!(intent[&Recipient::List], intent[&cdn("NAMEDID1")]);
        ledger.add(&changed);
        assert!(ledger.owes_payment());
        ledger.strike(&cdn("NAMEDID1"), &intent[&cdn("NAMEDID1")]);
        assert!(!ledger.owes_payment(), "the list is not paid by a deploy without one");
        assert!(!ledger.owed().contains_key(&cdn("NAMEDID1")), "paid in full, no entry");
    }
}
