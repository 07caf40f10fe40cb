//! What a deploy did (or, with `--dry-run`, would do): the summary `folio deploy` prints.

use super::plan::Reason;
use super::{cdn, store};

/// What a deploy did (or, with `--dry-run`, would do).
#[derive(Debug, Clone, Default)]
pub struct Deployed {
    pub target: String,
    pub dry_run: bool,
    /// Keys uploaded, with why, sorted.
    pub uploaded: Vec<(String, Reason)>,
    pub unchanged: usize,
    pub deleted: Vec<String>,
    pub bytes: u64,
    pub seconds: f64,
    /// Files left out (symlinks), a record that could not be read.
    pub warnings: Vec<String>,
    /// The requests sent, by kind (`None` for a folder, which takes none).
    pub requests: Option<store::Counts>,
    /// Each CDN purge this deploy sent (with `--dry-run`, would send), in `purge` order.
    pub purges: Vec<cdn::Sent>,
    /// The build's `hosting/` files that differ from the last deploy's: each is for the
    /// user to publish (reload a server, publish a function).
    pub hosting: Vec<super::hosting::Changed>,
}
