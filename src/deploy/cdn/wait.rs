//! Waiting for a CDN within the deploy's time: [`Budget`] is the time all of a deploy's
//! purges may take (`purge_wait`), and [`patiently`] tries a request until it is accepted
//! or refused, waiting as a busy CDN asks (`Retry-After`, `TooManyInvalidationsInProgress`)
//! while the wait fits. By hand: no retry crate shares one deadline across every request
//! and wait of several clients, timeouts included, on tokio's (virtual in tests) clock.

use std::future::Future;
use std::time::Duration;

use super::answer::{Answer, Declined};

/// The time a deploy's purges may take in all (`purge_wait`), every request and every
/// wait of every CDN within it; on tokio's clock (virtual in tests).
#[derive(Debug)]
pub struct Budget {
    total: Duration,
    deadline: tokio::time::Instant,
}

impl Budget {
    /// `total` from now.
    pub fn start(total: Duration) -> Budget {
        Budget { total, deadline: tokio::time::Instant::now() + total }
    }

    fn left(&self) -> Duration {
        self.deadline.saturating_duration_since(tokio::time::Instant::now())
    }

    fn spent(&self) -> Duration {
        self.total.saturating_sub(self.left())
    }
}

/// Tries `attempt` until it is accepted or refused, all within `budget`: an attempt gets
/// what is left of it; a busy CDN is waited for (as it asks, else 1 s doubling to 60 s,
/// at least a second) while the wait fits; an unreachable one is tried up to 4 times, with
/// the same waits between. Returns the accepted value and how many waits it took.
pub(crate) async fn patiently<T, F, Fut>(
    budget: &Budget,
    mut attempt: F,
) -> Result<(T, u32), Declined>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Answer<T>>,
{
    const UNREACHABLE_TRIES: u32 = 4;
    let total = budget.total.as_secs();
    let mut backoff = Duration::from_secs(1);
    let (mut waits, mut unreachable, mut waited) = (0, 0, Duration::ZERO);
    let mut last: Option<String> = None;
    loop {
        let left = budget.left();
        // A tenth of a second is no time for a request: it would only be cut.
        if left < Duration::from_millis(100) {
            let why = match last {
                Some(why) => format!(
                    "{why}; still so after waiting {} s, and purge_wait ({total} s) is spent",
                    waited.as_secs()
                ),
                None => format!("purge_wait ({total} s) is spent: not sent"),
            };
            return Err(why.into());
        }
        let answer = match tokio::time::timeout(left, attempt()).await {
            Ok(answer) => answer,
            Err(_) => {
                return Err(format!(
                    "no answer within the {} s left of purge_wait ({total} s)",
                    left.as_secs()
                )
                .into());
            }
        };
        let (pause, why) = match answer {
            Answer::Accepted(value) => return Ok((value, waits)),
            Answer::Refused(why) => return Err(why.into()),
            Answer::Missing(why) => return Err(Declined { why, missing: true }),
            Answer::Unreachable(why) => {
                unreachable += 1;
                if unreachable >= UNREACHABLE_TRIES {
                    return Err(format!("{why} (tried {unreachable} times)").into());
                }
                (backoff, why)
            }
            // At least a second: a `Retry-After: 0` storm must not spin.
            Answer::Busy { after, why } => {
                (after.unwrap_or(backoff).max(Duration::from_secs(1)), why)
            }
        };
        // A `Retry-After` past any budget is past this one, not an overflow.
        if pause > budget.left() {
            let why = match unreachable {
                0 => why,
                n => format!("{why} (tried {n} times)"),
            };
            return Err(format!(
                "{why}; still so after waiting {} s, and waiting {} s more would pass purge_wait ({total} s, {} s of it spent)",
                waited.as_secs(),
                pause.as_secs(),
                budget.spent().as_secs(),
            )
            .into());
        }
        tokio::time::sleep(pause).await;
        last = Some(why);
        waited += pause;
        waits += 1;
        backoff = (backoff * 2).min(Duration::from_secs(60));
    }
}

/// `Retry-After` as a wait: seconds, or an HTTP date (from now).
pub(crate) fn retry_after(headers: &http::HeaderMap) -> Option<Duration> {
    let value = headers.get(http::header::RETRY_AFTER)?.to_str().ok()?.trim();
    if let Ok(secs) = value.parse::<u64>() {
        return Some(Duration::from_secs(secs));
    }
    let at = httpdate::parse_http_date(value).ok()?;
    Some(at.duration_since(std::time::SystemTime::now()).unwrap_or(Duration::ZERO))
}

#[cfg(test)]
mod tests {
    use super::*;
    #[tokio::test(start_paused = true)]
    async fn a_busy_cdn_is_waited_for_as_it_asks_within_the_patience() {
        let mut tries = 0;
        let answer = patiently(&Budget::start(Duration::from_secs(100)), || {
            tries += 1;
            let busy = tries < 4;
            async move {
                if busy {
                    Answer::Busy { after: Some(Duration::from_secs(20)), why: "429".into() }
                } else {
                    Answer::Accepted("id")
                }
            }
        })
        .await;
        assert_eq!(answer, Ok(("id", 3)));
        // Past the patience: the last answer and how long it waited.
        let why = patiently(&Budget::start(Duration::from_secs(50)), || async {
            Answer::<()>::Busy {
                after: Some(Duration::from_secs(20)),
                why: "429 Too Many Requests".into(),
            }
        })
        .await
        .unwrap_err()
        .why;
        assert!(why.starts_with("429 Too Many Requests; still so after waiting 40 s"), "{why}");
        assert!(why.contains("purge_wait (50 s, 40 s of it spent)"), "{why}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_storm_that_asks_no_wait_still_waits_a_second_and_ends() {
        let start = tokio::time::Instant::now();
        let why = patiently(&Budget::start(Duration::from_secs(30)), || async {
            Answer::<()>::Busy { after: Some(Duration::ZERO), why: "429".into() }
        })
        .await
        .unwrap_err()
        .why;
        assert_eq!(why, "429; still so after waiting 30 s, and purge_wait (30 s) is spent");
        assert_eq!(start.elapsed(), Duration::from_secs(30));
    }

    #[tokio::test(start_paused = true)]
    async fn an_unreachable_cdn_is_tried_four_times_and_a_refusal_once() {
        let mut tries = 0;
        let why = patiently(&Budget::start(Duration::from_secs(600)), || {
            tries += 1;
            async { Answer::<()>::Unreachable("could not connect".into()) }
        })
        .await
        .unwrap_err()
        .why;
        assert_eq!((tries, why.as_str()), (4, "could not connect (tried 4 times)"));
        let mut tries = 0;
        let why = patiently(&Budget::start(Duration::from_secs(600)), || {
            tries += 1;
            async { Answer::<()>::Refused("403 Forbidden".into()) }
        })
        .await
        .unwrap_err();
        assert_eq!((tries, why.why.as_str(), why.missing), (1, "403 Forbidden", false));
        let gone = patiently(&Budget::start(Duration::from_secs(600)), || async {
            Answer::<()>::Missing("404 Not Found: NoSuchDistribution".into())
        })
        .await
        .unwrap_err();
        assert!(gone.missing, "a CDN that does not exist is said to be missing");
    }

    #[tokio::test(start_paused = true)]
    async fn the_budget_is_shared_and_a_huge_retry_after_is_past_it() {
        let budget = Budget::start(Duration::from_secs(5));
        let busy = || async {
            Answer::<()>::Busy { after: Some(Duration::from_secs(3)), why: "429".into() }
        };
        assert!(patiently(&budget, busy).await.is_err());
        // The first request waited 3 s: a second one has 2 s left, less than it asks.
        let why = patiently(&budget, busy).await.unwrap_err().why;
        assert!(why.contains("after waiting 0 s"), "{why}");
        assert!(why.contains("purge_wait (5 s, 3 s of it spent)"), "{why}");
        let huge =
            || async { Answer::<()>::Busy { after: Some(Duration::MAX), why: "503".into() } };
        assert!(patiently(&Budget::start(Duration::from_secs(600)), huge).await.is_err());
    }

    #[tokio::test(start_paused = true)]
    async fn a_cdn_that_never_answers_ends_at_purge_wait_timeouts_included() {
        let start = tokio::time::Instant::now();
        let never = || std::future::pending::<Answer<()>>();
        let why = patiently(&Budget::start(Duration::from_secs(5)), never).await.unwrap_err().why;
        assert_eq!(start.elapsed(), Duration::from_secs(5));
        assert_eq!(why, "no answer within the 5 s left of purge_wait (5 s)");
        // With less than a second left, nothing is sent.
        let budget = Budget::start(Duration::from_millis(90));
        let mut tries = 0;
        let why = patiently(&budget, || {
            tries += 1;
            async { Answer::Accepted(()) }
        })
        .await
        .unwrap_err()
        .why;
        assert_eq!((tries, why.as_str()), (0, "purge_wait (0 s) is spent: not sent"));
    }

    #[test]
    fn retry_after_is_seconds_or_a_date() {
        let mut h = http::HeaderMap::new();
        h.insert(http::header::RETRY_AFTER, "7".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::from_secs(7)));
        h.insert(http::header::RETRY_AFTER, "Wed, 21 Oct 2015 07:28:00 GMT".parse().unwrap());
        assert_eq!(retry_after(&h), Some(Duration::ZERO), "a date past is now");
        h.insert(http::header::RETRY_AFTER, "soon".parse().unwrap());
        assert_eq!(retry_after(&h), None);
    }
}
