//! What a CDN answers: each try as the waiting loop reads it ([`Answer`]), and a request's
//! end, [`Accepted`] (with the CDN's id for it) or [`Declined`] (and whether the CDN says
//! it does not exist).

use std::time::Duration;

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
