//! `folio build`: run the pipeline, show progress on a terminal, print one summary line.

use std::io::IsTerminal;

use super::Bar;
use crate::cli::BuildArgs;
use folio::config::Overrides;
use folio::error::Failure;
use folio::output::lock::Busy;
use folio::site::{self, BuildOptions};

pub fn run(args: BuildArgs) -> Result<(), Failure> {
    let overrides = Overrides {
        data_dir: args.data.path,
        output_dir: args.out,
        base_url: args.base_url,
        ..Overrides::default()
    };
    let project = super::discover(args.config.path.as_deref(), &overrides)?;
    let show_bar = !args.quiet && std::io::stderr().is_terminal();
    let note = super::messages::note;
    let options =
        BuildOptions { busy: if args.no_wait { Busy::Refuse } else { Busy::Wait(&note) } };
    let built = if show_bar {
        site::build_with(&project, &Bar::new("files"), &options)?
    } else {
        site::build_with(&project, &(), &options)?
    };
    for w in &built.warnings {
        super::messages::warn(w);
    }
    if !args.quiet {
        let r = built.report;
        super::say(format_args!(
            "folio: {} records: {} files written, {} unchanged, {} removed, {} bytes, {:.2} s",
            built.records, r.written, r.unchanged, r.removed, r.bytes, built.seconds
        ))?;
    }
    Ok(())
}
