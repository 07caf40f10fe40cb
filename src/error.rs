//! Why a library call failed, by class: invalid input (data, config, templates), a clash,
//! a host limit, a refusal (folio will not act: nothing was written or sent; the fact and
//! a typed way out, [`Refusal`]), a deploy of no finished build, a usage error, or an I/O
//! failure. The library says what is so; the binary (`cmd/exit.rs`) maps each class to its
//! exit code (docs/cli.md) and words the way out.

use std::path::PathBuf;

use crate::diag::{ConfigError, Problem};

#[derive(Debug, thiserror::Error)]
pub enum Failure {
    #[error("{} problem{} in the input; nothing was written", .0.len(), if .0.len() == 1 { "" } else { "s" })]
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
    Unbuilt(crate::deploy::Unbuilt),
    /// folio will not do it: nothing was written or sent ([`Refusal`]).
    #[error("{0}")]
    Refused(Refusal),
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
    /// An error from anywhere below: a refusal keeps its exit code 1, the rest is I/O.
    fn from(e: anyhow::Error) -> Failure {
        match e.downcast::<crate::output::Refused>() {
            Ok(refused) => Failure::Refused(refused.0),
            Err(e) => Failure::Other(e),
        }
    }
}

impl From<crate::config::Error> for Failure {
    /// No config file is a usage error (2); an invalid one, exit 1 with every problem.
    fn from(e: crate::config::Error) -> Failure {
        use crate::config::Error;
        match e {
            Error::Missing(message) => Failure::Usage(message),
            Error::Invalid { errors, .. } => Failure::Config(errors),
            Error::Io(e) => Failure::Other(e),
        }
    }
}

impl From<crate::output::lock::LockError> for Failure {
    /// Busy or a stranger at the lock's name: refused (1); an I/O error: 2.
    fn from(e: crate::output::lock::LockError) -> Failure {
        use crate::output::lock::LockError;
        match e {
            LockError::Busy { .. } => Failure::Refused(Refusal::new(e.to_string(), WayOut::Wait)),
            LockError::NotAFile(_) | LockError::NotAFolder(_) => {
                Failure::Refused(e.to_string().into())
            }
            LockError::Io { .. } => Failure::Other(e.into()),
        }
    }
}

fn it(n: usize) -> &'static str {
    if n == 1 { "it" } else { "them" }
}
