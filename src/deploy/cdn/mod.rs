//! The CDN purge inside a deploy (`[deploy] purge`, `--purge`): once the store holds the
//! build, each CDN named is sent the purge of what it is owed (`ledger.rs`), as a plan of
//! requests folded within the deploy's bound (`purge.rs`), one request at a time, waiting
//! when it says to (`TooManyInvalidationsInProgress`, a `429` with `Retry-After`); all of a
//! deploy's purges, requests and waits, fit in `purge_wait` ([`Budget`]).
//!
//! The clients (`cloudfront.rs`, `cloudflare.rs`) speak each provider's HTTP API with
//! reqwest, as `folio/VERSION` ([`USER_AGENT`]); their endpoints and credentials come from
//! the environment the way the providers' own tools read them, and no message names
//! either.

mod cloudflare;
mod cloudfront;

use std::future::Future;
use std::time::Duration;

use super::purge::{Batch, Dialect, Plan};
use crate::config::{Cdn, Shape};
use crate::error::{Failure, Refusal};

/// What every CDN request says it is.
pub const USER_AGENT: &str = concat!("folio/", env!("CARGO_PKG_VERSION"));

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

impl Sent {
    /// What `plan` sends `cdn`, before anything is sent.
    pub fn of(cdn: &Cdn, plan: &Plan) -> Sent {
        Sent {
            cdn: cdn.to_string(),
            objects: plan.objects,
            requests: plan.batches.len(),
            exact: plan.exact,
            wildcards: plan.wildcards,
            billed_paths: plan.dialect == Dialect::CloudFront,
            ids: Vec::new(),
            waits: 0,
            items: plan.items().cloned().collect(),
        }
    }
}

/// A request the CDN accepted: its id for it (CloudFront's invalidation id), and how many
/// times it asked to wait first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Accepted {
    pub id: Option<String>,
    pub waits: u32,
}

/// Why a CDN did not accept a request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Declined {
    pub why: String,
    /// The CDN says the distribution or zone does not exist (a mistyped id, one deleted).
    pub missing: bool,
}

impl From<String> for Declined {
    fn from(why: String) -> Declined {
        Declined { why, missing: false }
    }
}

/// A CDN folio purges.
#[async_trait::async_trait]
pub trait Client: Send + Sync {
    /// The CDN, as folio.toml names it.
    fn cdn(&self) -> &Cdn;
    /// How it takes a purge.
    fn dialect(&self) -> Dialect;
    /// Sends request `n` of a deploy's purge to it, waiting as it asks within `budget`.
    async fn send(&self, batch: &Batch, n: usize, budget: &Budget) -> Result<Accepted, Declined>;
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
    /// Refused for good (credentials, a bad request).
    Refused(String),
    /// The distribution or zone does not exist.
    Missing(String),
}

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
        .user_agent(USER_AGENT)
        .redirect(reqwest::redirect::Policy::none())
        .referer(false)
        .timeout(Duration::from_secs(30))
        .connect_timeout(Duration::from_secs(10))
        .build()
        .map_err(|e| Failure::Other(anyhow::anyhow!("starting the HTTP client: {}", plain(&e))))
}

/// The clients for `cdns`, each checked before anything is sent: Cloudflare needs its token
/// and a `base_url` with an origin (it purges absolute URLs). `nonce` makes this deploy's
/// CloudFront caller references its own (a retried request repeats its reference, so an
/// invalidation that landed with its answer lost is not made twice). A dry run needs no
/// Cloudflare token.
pub fn connect(
    cdns: &[Cdn],
    shape: &Shape,
    dry_run: bool,
    nonce: &str,
) -> Result<Vec<Box<dyn Client>>, Failure> {
    let mut out: Vec<Box<dyn Client>> = Vec::new();
    let refused = |text: String| Failure::Refused(Refusal::from(text));
    for cdn in cdns {
        let client: Box<dyn Client> = match cdn {
            Cdn::CloudFront(id) => Box::new(
                cloudfront::CloudFront::new(cdn.clone(), id, client()?, nonce)
                    .map_err(|why| refused(format!("purging {cdn}: {why}; nothing was sent")))?,
            ),
            Cdn::Cloudflare(zone) => {
                if shape.base.origin.is_empty() {
                    return Err(refused(format!(
                        "purging {cdn}: Cloudflare purges absolute URLs, and base_url has no origin: set base_url = \"https://HOST\" in folio.toml; nothing was sent"
                    )));
                }
                Box::new(
                    cloudflare::Cloudflare::new(cdn.clone(), zone, client()?, dry_run).map_err(
                        |why| refused(format!("purging {cdn}: {why}; nothing was sent")),
                    )?,
                )
            }
        };
        out.push(client);
    }
    Ok(out)
}

/// An endpoint from the environment variable `var`, checked by the one rule for endpoints
/// (`config::deploy::endpoint`), or why not (without repeating it: it is never printed).
pub(crate) fn endpoint(var: &str, value: &str) -> Result<String, String> {
    crate::config::deploy::endpoint(value)
        .map_err(|why| format!("{var} {why}: expected http:// or https:// and a host"))
}

/// A CDN's own words as folio repeats them: one line of printable text, at most 300
/// characters, with `secret` (a token it may echo) never in it.
pub(crate) fn their_words(text: &str, secrets: &[&str]) -> String {
    let mut text = text.to_string();
    for secret in secrets.iter().filter(|s| !s.is_empty()) {
        text = text.replace(secret, "[token]");
    }
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
    fn their_words_are_one_printable_line_without_the_token() {
        let said = their_words("bad SECRET\n\u{1b}[31merror: forged KEY", &["SECRET", "KEY"]);
        assert_eq!(said, "bad [token] [31merror: forged [token]");
        assert_eq!(their_words(&"x".repeat(400), &[]).chars().count(), 301);
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
