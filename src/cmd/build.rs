//! `folio build`: run the pipeline, show progress on a terminal, print one summary line.

use std::io::IsTerminal;

use indicatif::{ProgressBar, ProgressStyle};

use crate::cli::BuildArgs;
use crate::config::Overrides;
use crate::error::Failure;
use crate::site::{self, Progress};

struct Bar(ProgressBar);

impl Progress for Bar {
    fn start(&self, phase: &str, len: u64) {
        // A phase of unknown length (loading) spins; a counted one shows a bar.
        let template = if len == 0 {
            "{msg:>22} {spinner} {elapsed}"
        } else {
            "{msg:>22} [{bar:30}] {pos}/{len} files {elapsed}"
        };
        self.0.set_style(ProgressStyle::with_template(template).expect("a valid template"));
        if len == 0 {
            self.0.enable_steady_tick(std::time::Duration::from_millis(120));
        } else {
            self.0.disable_steady_tick();
        }
        self.0.set_length(len);
        self.0.set_position(0);
        self.0.set_message(phase.to_string());
    }
    fn inc(&self) {
        self.0.inc(1);
    }
    fn finish(&self) {
        self.0.finish_and_clear();
    }
}

pub fn run(args: BuildArgs) -> Result<(), Failure> {
    let overrides =
        Overrides { data_dir: args.data, output_dir: args.out, base_url: args.base_url };
    let project = site::project(args.config.as_deref(), &overrides)?;
    for w in &project.warnings {
        crate::diag::eprint(&format!("warning: {}: {w}", project.config_path.display()));
    }
    let show_bar = !args.quiet && std::io::stderr().is_terminal();
    let built = if show_bar {
        let bar = ProgressBar::new(0).with_style(
            ProgressStyle::with_template("{msg:>8} [{bar:30}] {pos}/{len} files")
                .expect("a valid template"),
        );
        site::build(&project, &Bar(bar))?
    } else {
        site::build(&project, &())?
    };
    for w in &built.warnings {
        crate::diag::eprint(&format!("warning: {w}"));
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
