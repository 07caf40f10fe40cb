//! What one deploy is asked to do beyond what `[deploy]` says ([`Options`]: the flags of
//! this run, among them what to do with owed keys besides paying them, [`Settle`]), and how it
//! reports and meets other commands ([`Hooks`]).

use super::purge::PurgeList;
use crate::config::Cdn;
use crate::error::Failure;
use crate::output::lock::Busy;
use crate::site::Progress;

/// What this one deploy is asked to do besides publishing as `[deploy]` (and its flags,
/// applied in config) says.
#[derive(Debug, Clone, Default)]
pub struct Options {
    pub dry_run: bool,
    pub force: bool,
    /// Deploy past a record that cannot be read, surveying the whole prefix.
    pub repair: bool,
    /// Publish the data rendered in memory (`--from-data`), not the build in `output/`.
    pub from_data: bool,
    /// `--drop-owed`, `--move-owed`.
    pub settle: Settle,
}

/// Writes a purge list (`--purge-list FILE`); see [`Hooks::purge_list`].
pub type WritePurgeList<'a> = &'a mut dyn FnMut(&PurgeList) -> Result<(), Failure>;

/// How a deploy reports and meets other commands.
pub struct Hooks<'a> {
    pub progress: &'a dyn Progress,
    /// What to do when a build holds the output folder.
    pub busy: Busy<'a>,
    /// Writes the purge list once the deploy is done (with `--dry-run`, the list it would
    /// write). When it succeeds, the store's record forgets the keys it names; until then
    /// every later purge list names them too.
    pub purge_list: Option<WritePurgeList<'a>>,
}

/// What a deploy does with owed keys besides paying them: `--drop-owed CDN` drops what `CDN` is
/// owed; `--move-owed CDN` moves it to the CDNs this deploy names.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Settle {
    pub drop: Vec<Cdn>,
    pub moved: Vec<Cdn>,
}
