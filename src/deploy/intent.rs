//! What folio's record says around a deploy's changes (`record.rs` holds its format): the
//! intent written before the first change, and what a deploy cut short left in it, carried
//! for a while by the record written after.

use std::collections::{BTreeMap, BTreeSet};

use super::outgoing;
use super::plan::Reason;
use super::record::{DeployRecord, Put, Recipient};
use super::remote;

/// How long a takeover's record keeps what the previous holder was about to do: longer
/// than any request stays on its way (a process stopped between its lease check and its
/// send for longer than this can leave an object that only `--repair` finds).
const CARRIED: std::time::Duration = std::time::Duration::from_secs(15 * 60);

/// The record written before the first change: the old one, with what is about to be
/// uploaded as pending, what is about to be deleted as deleting, and what will be owed a
/// purge once it has (`owed`). `None` when nothing is about to change.
pub(super) fn intent(
    old: &DeployRecord,
    outgoing: &[outgoing::OutgoingFile],
    uploads: &[(usize, Reason)],
    doomed: &[remote::Doomed],
    owed: BTreeMap<Recipient, BTreeSet<String>>,
) -> Option<DeployRecord> {
    if uploads.is_empty() && doomed.is_empty() {
        return None;
    }
    // What the record owes is the ledger's now (`owed`): not copied.
    let mut intent = DeployRecord {
        objects: old.objects.clone(),
        deleting: old.deleting.clone(),
        pending: old.pending.clone(),
        carried_until: old.carried_until,
        owed,
        // What was published last until this deploy is done.
        hosting: old.hosting.clone(),
    };
    for &(i, _) in uploads {
        intent.pending.entry(outgoing[i].rel.clone()).or_default().insert(outgoing[i].md5);
    }
    for d in doomed {
        if let Some(put) = &d.put {
            intent.deleting.insert(d.key.clone(), put.clone());
        }
    }
    // An intent is unfinished until its deploy writes its record: the first deploy that
    // finds it (cut short) starts the time its intent is carried.
    intent.carried_until = None;
    Some(intent)
}

/// The record written after the changes: `objects` as they now are, and, when a deploy cut
/// short (its lease taken over, or found unfinished after its holder or a taker gave up)
/// may still have a request on its way, what it was about to write and delete, kept for
/// [`CARRIED`] from the first deploy that finds it; every deploy until then checks it
/// against the store (`plan::plan` treats it as a deploy cut short) and keeps it.
pub(super) fn after(
    old: &DeployRecord,
    objects: BTreeMap<String, Put>,
    took_over: bool,
) -> DeployRecord {
    let mut after = DeployRecord { objects, ..DeployRecord::default() };
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_secs()).unwrap_or(i64::MAX));
    let unfinished = !old.pending.is_empty() || !old.deleting.is_empty();
    let found = unfinished && old.carried_until.is_none();
    // No deploy carries anything longer than CARRIED from now: a later time is no record
    // folio wrote (the record is read back from the store, where anyone may write it).
    let until = old.carried_until.map(|u| u.min(now.saturating_add(CARRIED.as_secs() as i64)));
    let carrying = took_over || found || until.is_some_and(|until| now < until);
    if carrying {
        after.pending = old.pending.clone();
        after.deleting = old.deleting.clone();
        after.deleting.retain(|key, _| !after.objects.contains_key(key));
        after.carried_until = if took_over || found {
            Some(now.saturating_add(CARRIED.as_secs() as i64))
        } else {
            until
        };
    }
    after
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_record_carries_nothing_longer_than_carried_from_now() {
        let mut old = DeployRecord::default();
        old.pending.insert("api/x.json".into(), [[1; 16]].into());
        // Forged: carried until the end of time.
        old.carried_until = Some(i64::MAX);
        let after = after(&old, BTreeMap::new(), false);
        let now =
            std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_secs()
                as i64;
        let until = after.carried_until.expect("still carried for now");
        assert!(until <= now + CARRIED.as_secs() as i64 + 1, "{until} is past now + 15 min");
        // Once that time is past, it is carried no more.
        let mut later = old.clone();
        later.carried_until = Some(now - 1);
        assert!(after_is_clean(&super::after(&later, BTreeMap::new(), false)));
    }

    fn after_is_clean(r: &DeployRecord) -> bool {
        r.pending.is_empty() && r.deleting.is_empty() && r.carried_until.is_none()
    }
}
