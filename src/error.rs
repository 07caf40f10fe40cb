//! Why a command failed, and the exit code each reason maps to (docs/cli.md): 1 for invalid
//! data, config or templates, a clash or a refused folder (nothing written); 2 for usage
//! and I/O failures.

use std::path::PathBuf;

use crate::diag::{self, ConfigError, Problem};

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
            LockError::Busy { .. } | LockError::NotAFile(_) => Failure::Refused(e.to_string()),
            LockError::Io { .. } => Failure::Other(e.into()),
        }
    }
}

fn it(n: usize) -> &'static str {
    if n == 1 { "it" } else { "them" }
}

impl Failure {
    pub fn exit_code(&self) -> u8 {
        match self {
            Failure::Invalid(_)
            | Failure::Config(_)
            | Failure::Template(_)
            | Failure::Clash(_)
            | Failure::Limits(_)
            | Failure::Refused(_) => 1,
            Failure::Usage(_) | Failure::Other(_) => 2,
        }
    }

    /// True when the error is only that stdout was closed (`folio build | head -0`).
    pub fn is_broken_pipe(&self) -> bool {
        match self {
            Failure::Other(e) => e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }),
            _ => false,
        }
    }

    /// The sources of an I/O failure, outermost first (printed as `caused by: ...`).
    pub fn causes(&self) -> Vec<String> {
        match self {
            Failure::Other(e) => e.chain().skip(1).map(ToString::to_string).collect(),
            _ => Vec::new(),
        }
    }

    /// The lines to print before the summary: one per problem, config error or clash.
    pub fn details(&self) -> Vec<String> {
        match self {
            Failure::Invalid(problems) => problems.iter().map(Problem::to_string).collect(),
            Failure::Config(errors) => errors.iter().map(ToString::to_string).collect(),
            Failure::Template(messages) | Failure::Limits(messages) => messages.clone(),
            Failure::Clash(paths) => paths
                .iter()
                .map(|p| {
                    format!(
                        "{}: exists and was not written by folio",
                        diag::display_path(p).display()
                    )
                })
                .collect(),
            Failure::Usage(_) | Failure::Refused(_) | Failure::Other(_) => Vec::new(),
        }
    }
}
