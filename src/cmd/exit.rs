//! A library failure as the command line reports it: its exit code (docs/cli.md: 1 for
//! invalid data, config or templates, a clash, a host limit or a refusal, nothing written;
//! 2 for usage and I/O failures), the lines printed before its summary, its causes, and
//! whether it is only a closed stdout.

use folio::diag::{self, Problem};
use folio::error::Failure;

/// What to run about a failure, when the library's words are a fact with a way out: the
/// way out, and how it joins the fact.
pub fn advice(failure: &Failure) -> Option<(&'static str, &'static str)> {
    use folio::deploy::Unbuilt;
    match failure {
        Failure::Unbuilt(Unbuilt::HalfSwitched { .. }) => {
            Some((": ", "run `folio build` to finish it, then deploy"))
        }
        Failure::Unbuilt(Unbuilt::OtherBaseUrl { .. }) => {
            Some(("; ", "run `folio build` (without --base-url), then deploy"))
        }
        Failure::Unbuilt(Unbuilt::Unreadable { .. }) => {
            Some(("; ", "run `folio build`, then deploy"))
        }
        Failure::Unbuilt(_) => Some((": ", "run `folio build`, then deploy")),
        _ => None,
    }
}

pub trait Exit {
    fn exit_code(&self) -> u8;
    /// True when the error is only that stdout was closed (`folio build | head -0`).
    fn is_broken_pipe(&self) -> bool;
    /// The sources of an I/O failure, outermost first (printed as `caused by: ...`).
    fn causes(&self) -> Vec<String>;
    /// The lines to print before the summary: one per problem, config error or clash.
    fn details(&self) -> Vec<String>;
}

impl Exit for Failure {
    fn exit_code(&self) -> u8 {
        match self {
            Failure::Invalid(_)
            | Failure::Config(_)
            | Failure::Template(_)
            | Failure::Clash(_)
            | Failure::Limits(_)
            | Failure::Refused(_)
            | Failure::Unbuilt(_) => 1,
            Failure::Usage(_) | Failure::Other(_) => 2,
        }
    }

    fn is_broken_pipe(&self) -> bool {
        match self {
            Failure::Other(e) => e.chain().any(|c| {
                c.downcast_ref::<std::io::Error>()
                    .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            }),
            _ => false,
        }
    }

    fn causes(&self) -> Vec<String> {
        match self {
            Failure::Other(e) => e.chain().skip(1).map(ToString::to_string).collect(),
            _ => Vec::new(),
        }
    }

    fn details(&self) -> Vec<String> {
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
            Failure::Usage(_) | Failure::Refused(_) | Failure::Unbuilt(_) | Failure::Other(_) => {
                Vec::new()
            }
        }
    }
}
