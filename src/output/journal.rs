//! The journal of a switch: what a build is about to rename into place and remove, and
//! every file it holds, written down before the first rename (`{staging}/journal.json`,
//! renamed to `commit.json` as the commit point) so a kill midway is finished by the next
//! build. `switch.rs` writes and replays it; opening the tree reads it.

use serde::{Deserialize, Serialize};

use super::manifest::{self, Stamp};

/// The switch, written down before it starts so that it can be finished after a kill.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct Journal {
    /// Paths moved from `{staging}/tree/` into place: a file, or a whole folder that did
    /// not exist yet (a first build moves `api/` in one rename).
    pub(super) renames: Vec<String>,
    pub(super) removals: Vec<String>,
    /// Every file of the build.
    pub(super) files: Vec<JournalFile>,
    #[serde(flatten)]
    pub(super) stamp: Stamp,
}

/// One file of a build, as the journal records it.
#[derive(Debug, Serialize, Deserialize)]
pub(super) struct JournalFile {
    pub(super) rel: String,
    #[serde(with = "manifest::hex128")]
    pub(super) hash: u128,
    pub(super) size: u64,
    /// Known when folio wrote or checked the file; else read after the switch.
    pub(super) mtime: Option<u64>,
}
