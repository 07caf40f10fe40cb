//! Why a library call failed, by class: invalid input (data, config, templates), a clash,
//! a host limit, a refusal (folio will not act: nothing was written or sent; the fact and
//! a typed way out, [`Refusal`]), a deploy of no finished build, a deploy stopped midway
//! (the fact and its way out), a usage error, or an I/O failure. The library says what is
//! so; the binary (`cmd/exit.rs`) maps each class to its exit code (docs/cli.md) and words
//! the way out.
//!
//! The bottom of the house: it imports nothing of folio but `diag`. Each module turns its
//! own errors into these classes, beside the errors it converts (`config::Error`,
//! `output::lock::LockError`, `output::TreeError`).

use std::path::PathBuf;

use crate::diag::{ConfigError, Problem};

#[derive(Debug, thiserror::Error)]
pub enum Failure {
    /// The problems as listed: one may stand for many ([`Problem::count`]), which the
    /// summary counts.
    #[error("{} problem{} in the input; nothing was written", crate::diag::count(.0), if crate::diag::count(.0) == 1 { "" } else { "s" })]
    Invalid(Vec<Problem>),
    #[error("invalid configuration; nothing was written")]
    Config(Vec<ConfigError>),
    /// The page template does not parse, fails, or renders something that is not JSON.
    #[error("a template failed; nothing was written")]
    Template(Vec<String>),
    #[error("{} file{} in the way; folio did not write {}, so it will not overwrite {}: remove {} or choose another folder",
        .0.len(), if .0.len() == 1 { " is" } else { "s are" }, it(.0.len()), it(.0.len()), it(.0.len()))]
    Clash(Vec<PathBuf>),
    /// Past a host's hard limit (`hosts::limits`): one message per limit.
    #[error("{} host limit{} passed; nothing was written", .0.len(), if .0.len() == 1 { "" } else { "s" })]
    Limits(Vec<String>),
    #[error("{0}")]
    Usage(String),
    /// `folio deploy`'s `output/` is no finished build of this project (exit 1, nothing
    /// sent); the binary says what to run.
    #[error(transparent)]
    Unbuilt(Unbuilt),
    /// folio will not do it: nothing was written or sent ([`Refusal`]).
    #[error("{0}")]
    Refused(Refusal),
    /// Stopped midway, nothing more sent, because what it worked on changed under it (the
    /// output folder, the store, the lease): the fact and the way out, exit 2.
    #[error("{0}")]
    Stopped(Refusal),
    #[error(transparent)]
    Other(anyhow::Error),
}

/// Something folio will not do: the fact, and which way out there is, which the binary
/// words (`cmd/exit.rs`): the library says what is so, not what to type.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Refusal {
    pub fact: String,
    pub way_out: WayOut,
}

/// The ways out of a [`Refusal`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum WayOut {
    /// None to add: the fact says it all, or says it in its own words.
    Said,
    /// The deploy record cannot be read: a survey of the store instead (`--repair`).
    Repair,
    /// The deploy record is of a newer format: deploy with that folio.
    NewerFolio,
    /// A `file://` target overlaps the project.
    DeployOutside,
    /// A `file://` target holds a symlink.
    RemoveLink,
    /// More stale objects than `max_deletes`, this many.
    MaxDeletes(usize),
    /// Another folio command holds the folder or the store.
    Wait,
    /// Another build is writing the folder although this one holds its lock (the lock
    /// file was replaced): let it finish, then build again.
    BuildAgain,
    /// Something folio did not make where it works: remove it (`None`: the thing the fact
    /// names; or this path), then build again.
    RemoveThenBuild(Option<String>),
    /// The manifest is of another folio's format.
    OtherManifestFormat,
    /// The manifest does not parse.
    BrokenManifest,
    /// Something at the name of folio's lock file that folio did not make: remove it,
    /// then run folio again.
    RemoveThenRun,
    /// A deploy stopped midway: run it again (it finishes what this one began).
    DeployAgain,
    /// A symlink appeared in a `file://` target midway: remove it, then deploy again.
    RemoveLinkThenDeploy,
}

/// Why `output/` is not a finished build of this project that can be deployed: the fact
/// only. What to do about it (build again) is the command line's to say.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Unbuilt {
    #[error(
        "a build is half switched into `{output}` (it was killed or failed while moving files in)"
    )]
    HalfSwitched { output: String },
    #[error("no build in `{output}`")]
    Missing { output: String },
    #[error("`{manifest}`: {why}")]
    Unreadable { manifest: String, why: String },
    #[error(
        "`{output}` was built for the base_url {}, but {config} configures {}: its links would point there",
        shown_base(built),
        shown_base(configured)
    )]
    OtherBaseUrl { output: String, built: String, config: String, configured: String },
    #[error("`{config}` changed since `{output}` was built, in what shapes the output")]
    ConfigChanged { config: String, output: String },
}

fn shown_base(b: &str) -> String {
    if b.is_empty() { "\"\" (root-relative links)".to_string() } else { format!("`{b}`") }
}

impl Refusal {
    pub fn new(fact: impl Into<String>, way_out: WayOut) -> Refusal {
        Refusal { fact: fact.into(), way_out }
    }
}

impl From<String> for Refusal {
    fn from(fact: String) -> Refusal {
        Refusal { fact, way_out: WayOut::Said }
    }
}

impl std::fmt::Display for Refusal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.fact)
    }
}

impl From<anyhow::Error> for Failure {
    /// An error from anywhere below that no module classed: an I/O failure.
    fn from(e: anyhow::Error) -> Failure {
        Failure::Other(e)
    }
}

fn it(n: usize) -> &'static str {
    if n == 1 { "it" } else { "them" }
}
