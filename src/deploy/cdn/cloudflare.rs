//! Cloudflare: `POST /zones/ZONE_ID/purge_cache` with `{"files": [...]}` (absolute URLs)
//! or `{"prefixes": [...]}` (host and path, no scheme), authorized by an API token with the
//! zone's Cache Purge permission from `CLOUDFLARE_API_TOKEN`. The API's base is
//! `https://api.cloudflare.com/client/v4`, or `CLOUDFLARE_API_BASE_URL` as wrangler reads it.
//!
//! A zone that does not exist answers `404` (or error 7003, "could not route"): a
//! mistyped id.
//!
//! Limits (Cloudflare's cache docs): at most 100 URLs or prefixes a request on every plan
//! (folio sends 30, the most its dashboard takes for prefixes); URLs at 800 a second on
//! Free and more on paid plans, prefix purges at 5 requests a minute on Free, 5 to 50 a
//! second on paid plans, each a token bucket. Requests go one after another, and a `429`
//! is waited out as its `Retry-After` says.
//!
//! There is no local Cloudflare to test against: `tests/it/deploy/cdn.rs` holds a contract
//! test of this API as documented (batches, `429` with `Retry-After`, auth errors).

use serde::Deserialize;
use serde_json::{Value, json};

use super::answer::{Accepted, Answer, Declined};
use super::client::Client;
use super::http::{Endpoint, send, their_words};
use super::wait::{Budget, patiently, retry_after};
use crate::config::Cdn;
use crate::deploy::purge::{Batch, Dialect, Items};

const DEFAULT_BASE: &str = "https://api.cloudflare.com/client/v4";
const BASE_VAR: &str = "CLOUDFLARE_API_BASE_URL";
const TOKEN_VAR: &str = "CLOUDFLARE_API_TOKEN";

pub struct Cloudflare {
    cdn: Cdn,
    /// The API's base, said when it cannot be reached.
    base: Endpoint,
    url: String,
    token: String,
    client: reqwest::Client,
}

impl Cloudflare {
    pub fn new(
        cdn: Cdn,
        zone: &str,
        client: reqwest::Client,
        dry_run: bool,
    ) -> Result<Cloudflare, String> {
        let var = |k: &str| std::env::var(k).ok().filter(|v| !v.is_empty());
        // A dry run sends nothing, and needs no token to say what it would send.
        let token = match var(TOKEN_VAR) {
            Some(token) if token.chars().any(|c| c.is_control() || c.is_whitespace()) => {
                return Err(format!(
                    "{TOKEN_VAR} holds a space or a control character (a newline pasted with it?): set it to the token alone"
                ));
            }
            Some(token) => token,
            None if dry_run => String::new(),
            None => {
                return Err(format!(
                    "{TOKEN_VAR} is not set (an API token with the zone's Cache Purge permission)"
                ));
            }
        };
        let base = Endpoint::from_env(BASE_VAR, DEFAULT_BASE)?;
        let url = format!("{}/zones/{zone}/purge_cache", base.url.trim_end_matches('/'));
        Ok(Cloudflare { cdn, base, url, token, client })
    }

    async fn request(&self, body: &Value) -> Answer<()> {
        let builder = (self.client.post(&self.url))
            .bearer_auth(&self.token)
            .header(http::header::CONTENT_TYPE, "application/json")
            .body(body.to_string());
        let (status, headers, body) = match send(builder).await {
            Ok(answer) => answer,
            Err(why) => return Answer::Unreachable(self.base.unreachable(&why)),
        };
        let answer: Option<Reply> = serde_json::from_slice(&body).ok();
        let unrouted =
            answer.as_ref().is_some_and(|r| r.errors.iter().any(|e| e.code == Some(7003)));
        let errors = (answer.as_ref())
            .map(|r| {
                let each = r.errors.iter().map(|e| match e.code {
                    Some(code) => format!("{code} {}", e.message),
                    None => e.message.clone(),
                });
                each.collect::<Vec<_>>().join("; ")
            })
            .unwrap_or_default();
        let errors = their_words(&errors, &[&self.token]);
        let why =
            if errors.is_empty() { status.to_string() } else { format!("{status}: {errors}") };
        if status.is_success() && answer.as_ref().is_some_and(|r| r.success) {
            return Answer::Accepted(());
        }
        if status == http::StatusCode::NOT_FOUND || unrouted {
            return Answer::Missing(why);
        }
        if status == http::StatusCode::TOO_MANY_REQUESTS || status.is_server_error() {
            return Answer::Busy { after: retry_after(&headers), why };
        }
        if status.is_success() {
            // A 200 that says no success, or is no answer of the API's.
            return Answer::Refused(format!("{why}: the purge was not accepted"));
        }
        Answer::Refused(why)
    }
}

#[derive(Deserialize)]
struct Reply {
    #[serde(default)]
    success: bool,
    #[serde(default)]
    errors: Vec<ApiError>,
}

#[derive(Deserialize)]
struct ApiError {
    code: Option<i64>,
    #[serde(default)]
    message: String,
}

#[async_trait::async_trait]
impl Client for Cloudflare {
    fn cdn(&self) -> &Cdn {
        &self.cdn
    }

    fn dialect(&self) -> Dialect {
        Dialect::Cloudflare
    }

    async fn send(&self, batch: &Batch, _: usize, budget: &Budget) -> Result<Accepted, Declined> {
        let body = match batch.items {
            Items::Prefixes => json!({ "prefixes": batch.paths }),
            _ => json!({ "files": batch.paths }),
        };
        let ((), waits) = patiently(budget, || self.request(&body)).await?;
        Ok(Accepted { id: None, waits })
    }
}
