//! Why a library call failed, by class: invalid input (data, config, templates), a clash,
//! a host limit, a refusal (folio will not act: nothing was written or sent), a usage
//! error, or an I/O failure. The library says which; the binary (`cmd/exit.rs`) maps each
//! class to its exit code (docs/cli.md) and prints its details.

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
    /// folio will not act on something in a folder it owns ([`crate::output::Refused`]).
    #[error("{0}")]
    Refused(String),
    #[error(transparent)]
    Other(anyhow::Error),
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
            LockError::Busy { .. } | LockError::NotAFile(_) | LockError::NotAFolder(_) => {
                Failure::Refused(e.to_string())
            }
            LockError::Io { .. } => Failure::Other(e.into()),
        }
    }
}

fn it(n: usize) -> &'static str {
    if n == 1 { "it" } else { "them" }
}
