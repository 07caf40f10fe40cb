//! A library failure as the command line reports it: its exit code (docs/cli.md: 1 for
//! invalid data, config or templates, a clash, a host limit or a refusal, nothing written;
//! 2 for usage and I/O failures), the lines printed before its summary, its causes, and
//! whether it is only a closed stdout.

use folio::diag::{self, Problem};
use folio::error::Failure;

/// A failure's words: the library's fact, and the way out as the command line says it.
pub fn message(failure: &Failure) -> String {
    match advice(failure) {
        Some((join, advice)) => format!("{failure}{join}{advice}"),
        None => failure.to_string(),
    }
}

/// What to run about a failure, when the library's words are a fact with a way out: the
/// way out, and how it joins the fact.
fn advice(failure: &Failure) -> Option<(&'static str, String)> {
    use folio::deploy::Unbuilt;
    use folio::error::WayOut;
    let build = "run `folio build`, then deploy";
    let (join, advice) = match failure {
        Failure::Unbuilt(Unbuilt::HalfSwitched { .. }) => {
            (": ", "run `folio build` to finish it, then deploy".to_string())
        }
        Failure::Unbuilt(Unbuilt::OtherBaseUrl { .. }) => {
            ("; ", "run `folio build` (without --base-url), then deploy".to_string())
        }
        Failure::Unbuilt(Unbuilt::Unreadable { .. }) => ("; ", build.to_string()),
        Failure::Unbuilt(_) => (": ", build.to_string()),
        Failure::Refused(refusal) | Failure::Stopped(refusal) => match &refusal.way_out {
            WayOut::Said => return None,
            WayOut::Repair => (
                "; ",
                "run `folio deploy --repair` to survey every object below the prefix instead (it deletes only objects that carry folio's own mark and the build does not have, and purges every key of the build)".to_string(),
            ),
            WayOut::NewerFolio => (
                "; ",
                "deploy with that folio or a newer one (this one would lose what the record holds)"
                    .to_string(),
            ),
            WayOut::DeployOutside => ("; ", "deploy to a folder outside it".to_string()),
            WayOut::RemoveLink => ("; ", "remove it, or deploy elsewhere".to_string()),
            WayOut::MaxDeletes(n) => (": ", format!("if that is right, pass --max-deletes {n}")),
            WayOut::Wait => {
                ("; ", "wait for it, or run this one without --no-wait to wait".to_string())
            }
            WayOut::BuildAgain => ("; ", "let that one finish, then build again".to_string()),
            WayOut::RemoveThenBuild(None) => ("; ", "remove it and build again".to_string()),
            WayOut::RemoveThenBuild(Some(path)) => ("; ", format!("remove `{path}` and build again")),
            WayOut::OtherManifestFormat => (
                "; ",
                "rebuild with that folio, or remove the files it lists and this manifest".to_string(),
            ),
            WayOut::BrokenManifest => {
                ("; ", "remove it and the files it listed, then build again".to_string())
            }
            WayOut::RemoveThenRun => ("; ", "remove it and run folio again".to_string()),
            WayOut::DeployAgain => (": ", "run the deploy again".to_string()),
            WayOut::RemoveLinkThenDeploy => ("; ", "remove it and deploy again".to_string()),
        },
        _ => return None,
    };
    Some((join, advice))
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
            Failure::Usage(_) | Failure::Other(_) | Failure::Stopped(_) => 2,
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
            Failure::Usage(_)
            | Failure::Refused(_)
            | Failure::Stopped(_)
            | Failure::Unbuilt(_)
            | Failure::Other(_) => Vec::new(),
        }
    }
}
