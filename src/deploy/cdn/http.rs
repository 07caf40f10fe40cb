//! How folio speaks to a CDN's API: one reqwest client (30 s a request, `folio/VERSION`),
//! an answer read whole up to a bound, errors in one line, the endpoint from the
//! environment checked by config's one rule (no credentials, no query: it can be said)
//! and named, with the variable that sets it, when it cannot be reached, and a CDN's own
//! words repeated without a secret in them.

use std::time::Duration;

use crate::error::Failure;

/// What every CDN request says it is.
pub const USER_AGENT: &str = concat!("folio/", env!("CARGO_PKG_VERSION"));

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
pub(super) fn agent() -> Result<reqwest::Client, Failure> {
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

/// An endpoint from the environment variable `var`, checked by the one rule for endpoints
/// (`config::deploy::endpoint`), or why not (without repeating it: what fails the rule
/// may hold a credential).
pub(crate) fn endpoint(var: &str, value: &str) -> Result<String, String> {
    crate::config::deploy::endpoint(value)
        .map_err(|why| format!("{var} {why}: expected http:// or https:// and a host"))
}

/// Where a client sends its requests: the provider's endpoint, or the one the environment
/// variable `var` sets.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Endpoint {
    pub url: String,
    var: &'static str,
    from_env: bool,
}

impl Endpoint {
    /// `var`'s endpoint when it is set (checked, [`endpoint`]), else `default`.
    pub fn from_env(var: &'static str, default: &str) -> Result<Endpoint, String> {
        let set = std::env::var(var).ok().filter(|v| !v.is_empty());
        Ok(match set {
            Some(value) => Endpoint { url: endpoint(var, &value)?, var, from_env: true },
            None => Endpoint { url: default.to_string(), var, from_env: false },
        })
    }

    /// Why a request got no answer, with where it was sent and what chose that: a lookup
    /// that fails in CI is most often a variable set wrong, or one that was meant to be.
    pub fn unreachable(&self, why: &str) -> String {
        let (url, var) = (&self.url, self.var);
        if self.from_env {
            format!("{why}, at {url} (set by {var})")
        } else {
            format!("{why}, at {url} (the provider's; {var} sets another)")
        }
    }
}

/// A CDN's own words as folio repeats them: one line of printable text, cut as every
/// value a message repeats ([`crate::diag::cut`]), with `secret` (a token it may echo)
/// never in it.
pub(crate) fn their_words(text: &str, secrets: &[&str]) -> String {
    let mut text = text.to_string();
    for secret in secrets.iter().filter(|s| !s.is_empty()) {
        text = text.replace(secret, "[token]");
    }
    let line: String = text.chars().map(|c| if c.is_control() { ' ' } else { c }).collect();
    let line = line.split_whitespace().collect::<Vec<_>>().join(" ");
    crate::diag::cut(&line).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn their_words_are_one_printable_line_without_the_token() {
        let said = their_words("bad SECRET\n\u{1b}[31merror: forged KEY", &["SECRET", "KEY"]);
        assert_eq!(said, "bad [token] [31merror: forged [token]");
        let long = their_words(&"x".repeat(400), &[]);
        assert_eq!(long, format!("{}… (200 more characters)", "x".repeat(200)));
        assert_eq!(endpoint("V", "http://127.0.0.1:9/"), Ok("http://127.0.0.1:9".into()));
        for bad in ["http://[::1", "http://x@example.org", "ftp://h", "http://exa mple.com"] {
            assert!(endpoint("V", bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn an_unreachable_endpoint_is_named_with_the_variable_that_sets_it() {
        let ours = Endpoint { url: "https://cdn.example".into(), var: "CDN_URL", from_env: false };
        assert_eq!(
            ours.unreachable("could not connect"),
            "could not connect, at https://cdn.example (the provider's; CDN_URL sets another)"
        );
        let set = Endpoint { from_env: true, ..ours };
        assert_eq!(
            set.unreachable("could not connect"),
            "could not connect, at https://cdn.example (set by CDN_URL)"
        );
    }
}
