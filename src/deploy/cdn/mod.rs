//! The CDN purge inside a deploy (`[deploy] purge`, `--purge`): once the store holds the
//! build, each CDN named is sent the purge its purge list describes (`purge.rs`: exact
//! paths and query forms while a variant has few, a wildcard or prefix past that), within
//! its documented limits, waiting when it says to (`TooManyInvalidationsInProgress`, a
//! `429` with `Retry-After`) for up to `purge_wait` seconds.
//!
//! A CDN is owed the changes of every deploy that names it until it accepts a purge of
//! them: the record keeps them per CDN (`record.rs`, `purging`) when a purge fails or a
//! deploy is cut short, and the next deploy naming it purges them with its own changes
//! (one purge, so one set of wildcards and paths to pay for), also when it has nothing
//! else to do.
//!
//! The clients (`cloudfront.rs`, `cloudflare.rs`) speak each provider's HTTP API with
//! reqwest; their endpoints and credentials come from the environment the way the
//! providers' own tools read them, and no message names either.

mod cloudflare;
mod cloudfront;

use std::future::Future;
use std::time::Duration;

use super::purge::PurgeList;
use crate::config::{Cdn, Shape};
use crate::error::{Failure, Refusal};

/// What a purge sent (or, with `--dry-run`, would send) to one CDN.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Sent {
    /// `cloudfront:ID`, `cloudflare:ZONE`.
    pub cdn: String,
    /// Keys below the prefix the purge covers.
    pub objects: usize,
    /// Requests that carry the purge (CloudFront invalidations, Cloudflare purge calls).
    pub requests: usize,
    /// Exact paths or URLs.
    pub exact: usize,
    /// Wildcard paths (CloudFront) or prefixes (Cloudflare).
    pub wildcards: usize,
    /// Whether the CDN is CloudFront, which bills paths past 1,000 a month (a wildcard
    /// counts as one).
    pub billed_paths: bool,
    /// The CDN's ids for what it accepted (CloudFront's invalidation ids).
    pub ids: Vec<String>,
    /// Times the CDN asked the purge to wait (throttled, busy) and it did.
    pub waits: u32,
    /// What the requests name: paths and wildcards (CloudFront), URLs and prefixes.
    pub items: Vec<String>,
}

/// A CDN folio purges.
#[async_trait::async_trait]
pub trait Purger: Send + Sync {
    /// The CDN, as folio.toml names it.
    fn cdn(&self) -> &Cdn;
    /// What purging `list` sends, as counts, without sending it.
    fn plan(&self, list: &PurgeList) -> Sent;
    /// Purges `list`; `Err` says why the CDN did not accept it (all of it is then owed).
    async fn purge(&self, list: &PurgeList) -> Result<Sent, String>;
}

/// CloudFront's free invalidation paths a month.
pub const FREE_PATHS: usize = 1000;

/// One answer from a CDN, as the waiting loop reads it.
pub(crate) enum Answer<T> {
    Accepted(T),
    /// Throttled or busy: try again, after what it asked (`Retry-After`) if it said.
    Busy {
        after: Option<Duration>,
        why: String,
    },
    /// No answer (refused connection, timeout, a broken response): tried a few times.
    Unreachable(String),
    /// Refused for good (credentials, an unknown distribution or zone, a bad request).
    Refused(String),
}

/// The waiting a deploy's purges may do, in all (`purge_wait`), shared by every request
/// to every CDN.
#[derive(Debug)]
pub struct Budget {
    total: Duration,
    spent: std::sync::Mutex<Duration>,
}

impl Budget {
    pub fn new(total: Duration) -> Budget {
        Budget { total, spent: std::sync::Mutex::new(Duration::ZERO) }
    }
}

/// Tries `attempt` until it is accepted or refused: a busy CDN is waited for (as it asks,
/// else 1 s doubling to 60 s) while the deploy's waiting stays within `budget`; an
/// unreachable one is tried up to 4 times, with the same waits between. Returns the
/// accepted value and how many waits it took. Waits on tokio's clock (virtual in tests).
pub(crate) async fn patiently<T, F, Fut>(
    budget: &Budget,
    mut attempt: F,
) -> Result<(T, u32), String>
where
    F: FnMut() -> Fut,
    Fut: Future<Output = Answer<T>>,
{
    const UNREACHABLE_TRIES: u32 = 4;
    let patience = budget.total;
    let mut backoff = Duration::from_secs(1);
    let (mut waits, mut unreachable) = (0, 0);
    loop {
        let (pause, why) = match attempt().await {
            Answer::Accepted(value) => return Ok((value, waits)),
            Answer::Refused(why) => return Err(why),
            Answer::Unreachable(why) => {
                unreachable += 1;
                if unreachable >= UNREACHABLE_TRIES {
                    return Err(format!("{why} (tried {unreachable} times)"));
                }
                (backoff, why)
            }
            // At least a second: a `Retry-After: 0` storm must not spin.
            Answer::Busy { after, why } => {
                (after.unwrap_or(backoff).max(Duration::from_secs(1)), why)
            }
        };
        let waited = *budget.spent.lock().unwrap_or_else(|e| e.into_inner());
        // A `Retry-After` past any patience is past this one, not an overflow.
        if waited.checked_add(pause).is_none_or(|total| total > patience) {
            let why = match unreachable {
                0 => why,
                n => format!("{why} (tried {n} times)"),
            };
            return Err(format!(
                "{why}; still so after waiting {} s, and waiting {} s more would pass purge_wait ({} s)",
                waited.as_secs(),
                pause.as_secs(),
                patience.as_secs()
            ));
        }
        tokio::time::sleep(pause).await;
        *budget.spent.lock().unwrap_or_else(|e| e.into_inner()) += pause;
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

/// The most of an answer's body read: the APIs' answers are a few hundred bytes.
const ANSWER_MAX: usize = 1 << 20;

/// One request's answer read whole (up to [`ANSWER_MAX`]: an endpoint that sends more is
/// not believed), or why there was none. reqwest's errors name the URL, which holds the
/// endpoint: it is left out.
pub(crate) async fn send(
    request: reqwest::RequestBuilder,
) -> Result<(http::StatusCode, http::HeaderMap, Vec<u8>), String> {
    let mut response = request.send().await.map_err(|e| plain(&e))?;
    let (status, headers) = (response.status(), response.headers().clone());
    let mut body = Vec::new();
    while let Some(chunk) = response.chunk().await.map_err(|e| plain(&e))? {
        if body.len() + chunk.len() > ANSWER_MAX {
            return Err(format!("{status} with an answer past {ANSWER_MAX} bytes"));
        }
        body.extend_from_slice(&chunk);
    }
    Ok((status, headers, body))
}

/// A reqwest error in one line, without its URL.
fn plain(e: &reqwest::Error) -> String {
    let mut root: &dyn std::error::Error = e;
    while let Some(source) = root.source() {
        root = source;
    }
    let what = if e.is_timeout() {
        "no answer within 30 s"
    } else if e.is_connect() {
        "could not connect"
    } else {
        "the request failed"
    };
    let root = root.to_string();
    if root.contains("http://") || root.contains("https://") {
        what.to_string()
    } else {
        format!("{what} ({root})")
    }
}

/// The HTTP client the purges share: 30 s for a request.
fn client() -> Result<reqwest::Client, Failure> {
    let _ = rustls::crypto::ring::default_provider().install_default();
    // No redirect is followed: an answer from elsewhere is no CDN's acceptance, and the
    // credentials and the endpoint stay with the endpoint.
    reqwest::Client::builder()
        .redirect(reqwest::redirect::Policy::none())
        .referer(false)
        .timeout(Duration::from_secs(30))
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| Failure::Other(anyhow::anyhow!("starting the HTTP client: {}", plain(&e))))
}

/// The purgers for `cdns`, each checked before anything is sent: Cloudflare needs its token
/// and a `base_url` with an origin (it purges absolute URLs). `nonce` makes this deploy's
/// CloudFront caller references its own (a retried request repeats its reference, so an
/// invalidation that landed with its answer lost is not made twice). A dry run needs no
/// Cloudflare token.
pub fn connect(
    cdns: &[Cdn],
    shape: &Shape,
    (patience, dry_run): (Duration, bool),
    nonce: &str,
) -> Result<Vec<Box<dyn Purger>>, Failure> {
    let mut out: Vec<Box<dyn Purger>> = Vec::new();
    let refused = |text: String| Failure::Refused(Refusal::from(text));
    let budget = std::sync::Arc::new(Budget::new(patience));
    let mut seen = std::collections::BTreeSet::new();
    for cdn in cdns.iter().filter(|c| seen.insert(*c)) {
        match cdn {
            Cdn::CloudFront(id) => {
                let client =
                    cloudfront::CloudFront::new(cdn.clone(), id, client()?, budget.clone(), nonce)
                        .map_err(|why| {
                            refused(format!("purging {cdn}: {why}; nothing was sent"))
                        })?;
                out.push(Box::new(client));
            }
            Cdn::Cloudflare(zone) => {
                if shape.base.origin.is_empty() {
                    return Err(refused(format!(
                        "purging {cdn}: Cloudflare purges absolute URLs, and base_url has no origin: set base_url = \"https://HOST\" in folio.toml; nothing was sent"
                    )));
                }
                let client = cloudflare::Cloudflare::new(
                    cdn.clone(),
                    zone,
                    client()?,
                    (budget.clone(), dry_run),
                )
                .map_err(|why| refused(format!("purging {cdn}: {why}; nothing was sent")))?;
                out.push(Box::new(client));
            }
        }
    }
    Ok(out)
}

/// An endpoint from the environment: `http://` or `https://` and a host, or why not
/// (without repeating it: it is never printed).
pub(crate) fn endpoint(var: &str, value: &str) -> Result<String, String> {
    let ok = (value.starts_with("https://") || value.starts_with("http://"))
        && url::Url::parse(value)
            .is_ok_and(|u| u.host().is_some() && u.username().is_empty() && u.password().is_none());
    if ok {
        Ok(value.trim_end_matches('/').to_string())
    } else {
        Err(format!("{var} is no http:// or https:// URL with a host (and no user or password)"))
    }
}

/// A CDN's own words as folio repeats them: one line of printable text, at most 300
/// characters, with `secret` (a token it may echo) never in it.
pub(crate) fn their_words(text: &str, secret: &str) -> String {
    let text = if secret.is_empty() { text.to_string() } else { text.replace(secret, "[token]") };
    let line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
    match line.char_indices().nth(300) {
        Some((at, _)) => format!("{}…", &line[..at]),
        None => line,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[tokio::test(start_paused = true)]
    async fn a_busy_cdn_is_waited_for_as_it_asks_within_the_patience() {
        let mut tries = 0;
        let answer = patiently(&Budget::new(Duration::from_secs(100)), || {
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
        let why = patiently(&Budget::new(Duration::from_secs(50)), || async {
            Answer::<()>::Busy {
                after: Some(Duration::from_secs(20)),
                why: "429 Too Many Requests".into(),
            }
        })
        .await
        .unwrap_err();
        assert!(why.starts_with("429 Too Many Requests; still so after waiting 40 s"), "{why}");
        assert!(why.contains("purge_wait (50 s)"), "{why}");
    }

    #[tokio::test(start_paused = true)]
    async fn a_storm_that_asks_no_wait_still_waits_a_second_and_ends() {
        let start = tokio::time::Instant::now();
        let why = patiently(&Budget::new(Duration::from_secs(30)), || async {
            Answer::<()>::Busy { after: Some(Duration::ZERO), why: "429".into() }
        })
        .await
        .unwrap_err();
        assert!(why.contains("after waiting 30 s"), "{why}");
        assert_eq!(start.elapsed(), Duration::from_secs(30));
    }

    #[tokio::test(start_paused = true)]
    async fn an_unreachable_cdn_is_tried_four_times_and_a_refusal_once() {
        let mut tries = 0;
        let why = patiently(&Budget::new(Duration::from_secs(600)), || {
            tries += 1;
            async { Answer::<()>::Unreachable("could not connect".into()) }
        })
        .await
        .unwrap_err();
        assert_eq!((tries, why.as_str()), (4, "could not connect (tried 4 times)"));
        let mut tries = 0;
        let why = patiently(&Budget::new(Duration::from_secs(600)), || {
            tries += 1;
            async { Answer::<()>::Refused("403 Forbidden".into()) }
        })
        .await
        .unwrap_err();
        assert_eq!((tries, why.as_str()), (1, "403 Forbidden"));
    }

    #[tokio::test(start_paused = true)]
    async fn the_budget_is_shared_and_a_huge_retry_after_is_past_it() {
        let budget = Budget::new(Duration::from_secs(5));
        let busy = || async {
            Answer::<()>::Busy { after: Some(Duration::from_secs(3)), why: "429".into() }
        };
        assert!(patiently(&budget, busy).await.is_err());
        // The first request waited 3 s: a second one has 2 s left, less than it asks.
        let why = patiently(&budget, busy).await.unwrap_err();
        assert!(why.contains("after waiting 3 s"), "{why}");
        let huge =
            || async { Answer::<()>::Busy { after: Some(Duration::MAX), why: "503".into() } };
        assert!(patiently(&Budget::new(Duration::from_secs(600)), huge).await.is_err());
    }

    #[test]
    fn their_words_are_one_printable_line_without_the_token() {
        let said = their_words("bad SECRET\n\u{1b}[31merror: forged", "SECRET");
        assert_eq!(said, "bad [token] [31merror: forged");
        assert_eq!(their_words(&"x".repeat(400), "").chars().count(), 301);
        assert_eq!(endpoint("V", "http://127.0.0.1:9/"), Ok("http://127.0.0.1:9".into()));
        for bad in ["http://[::1", "http://x@example.org", "ftp://h", "http://exa mple.com"] {
            assert!(endpoint("V", bad).is_err(), "{bad}");
        }
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
