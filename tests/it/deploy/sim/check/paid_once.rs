//! No deploy pays the same accepted batch twice: once the CDN accepted a batch and its
//! deploy's record write that follows landed (the strike), no batch sent the CDN after
//! that, by any deploy, pays one of its keys again, unless a write of that key landed on
//! the store since, or a record saying a deploy was about to write it (a deploy that takes
//! over owes what the one cut short may have written, whatever the bytes), or the
//! bucket's writer forged it owed since the batch was sent (a forgery past 100,000 keys owes
//! every key of the build). A deploy killed, or fenced off,
//! between the acceptance and the strike cannot strike it: that batch is not judged.

use super::super::World;

/// Each struck batch's keys were sent again only after they changed or were forged.
pub(in super::super) fn held(w: &World) -> Result<(), String> {
    for (i, a) in w.accepted.iter().enumerate() {
        let Some(struck) = a.struck else { continue };
        let later = (w.sent.iter().skip(struck)).filter(|(_, _, _, before)| *before > i);
        for (at, client, keys, _) in later {
            let since = |when: &u128| *when >= a.sent && when <= at;
            let again = keys.intersection(&a.keys).find(|k| {
                let changed = w.written.iter().any(|(when, key)| key == *k && since(when));
                let forged = (w.forged.iter())
                    .any(|(when, ks, all)| (*all || ks.contains(*k)) && since(when));
                !changed && !forged
            });
            if let Some(key) = again {
                return Err(format!(
                    "client {client} sent the CDN `{key}` again at {at} ms, though client {} had it accepted at {} ms and struck it from the record, and no write or intent of it landed since it was sent",
                    a.client, a.at
                ));
            }
        }
    }
    Ok(())
}
