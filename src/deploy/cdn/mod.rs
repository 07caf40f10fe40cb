//! The CDN purge inside a deploy (`[deploy] purge`, `--purge`): once the store holds the
//! build, each CDN named is sent the purge of what it is owed (`ledger.rs`), as a plan of
//! requests folded within the deploy's bound (`purge.rs`), one request at a time, waiting
//! when it says to (`TooManyInvalidationsInProgress`, a `429` with `Retry-After`); all of a
//! deploy's purges, requests and waits, fit in `purge_wait` ([`Budget`]).
//!
//! The clients (`cloudfront.rs`, `cloudflare.rs`, each a [`Client`]) speak each provider's
//! HTTP API with reqwest, as `folio/VERSION` ([`USER_AGENT`], `http.rs`); their endpoints
//! and credentials come from the environment the way the providers' own tools read them.
//! No message names a credential; an endpoint that gives no answer is named, with the
//! variable that sets it (`AWS_ENDPOINT_URL_CLOUDFRONT`, `CLOUDFLARE_API_BASE_URL`). What a CDN answers is `answer.rs`'s, the waiting within
//! the budget `wait.rs`'s.

mod answer;
mod client;
mod cloudflare;
mod cloudfront;
mod http;
mod wait;

pub use answer::{Accepted, Declined};
pub use client::Client;
pub use http::USER_AGENT;
pub use wait::Budget;

use super::purge::{Dialect, Plan};
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

/// CloudFront's free invalidation paths a month.
pub const FREE_PATHS: usize = 1000;

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
                cloudfront::CloudFront::new(cdn.clone(), id, http::agent()?, nonce)
                    .map_err(|why| refused(format!("purging {cdn}: {why}; nothing was sent")))?,
            ),
            Cdn::Cloudflare(zone) => {
                if shape.base.origin.is_empty() {
                    return Err(refused(format!(
                        "purging {cdn}: Cloudflare purges absolute URLs, and base_url has no origin: set base_url = \"https://HOST\" in folio.toml; nothing was sent"
                    )));
                }
                Box::new(
                    cloudflare::Cloudflare::new(cdn.clone(), zone, http::agent()?, dry_run)
                        .map_err(|why| {
                            refused(format!("purging {cdn}: {why}; nothing was sent"))
                        })?,
                )
            }
        };
        out.push(client);
    }
    Ok(out)
}
