//! One file per command: glue between the CLI and the pipeline in `site`, no logic.

pub mod build;
pub mod check;
pub mod deploy;
pub mod init;
pub mod serve;

use std::io::Write;

use indicatif::{ProgressBar, ProgressStyle};

use crate::site::Progress;

use crate::cli::{Cli, Command};
use crate::error::Failure;

/// Runs one parsed command line.
pub fn run(cli: Cli) -> Result<(), Failure> {
    match cli.command {
        Command::Init(args) => init::run(args),
        Command::Build(args) => build::run(args),
        Command::Check(args) => check::run(args),
        Command::Serve(args) => serve::run(args),
        Command::Deploy(args) => deploy::run(args),
        Command::Completions(args) => print(|out| {
            let mut cmd = <Cli as clap::CommandFactory>::command();
            clap_complete::generate(args.shell, &mut cmd, "folio", out);
            Ok(())
        }),
        Command::Man(args) => man(args),
    }
}

/// The man pages: `folio.1`, and `folio-COMMAND.1` for every command.
fn man_pages() -> Vec<(String, clap::Command)> {
    let mut top = <Cli as clap::CommandFactory>::command();
    top.build();
    let mut pages = vec![("folio.1".to_string(), top.clone())];
    for sub in top.get_subcommands().filter(|s| s.get_name() != "help") {
        let name = format!("folio-{}", sub.get_name());
        pages.push((format!("{name}.1"), sub.clone().name(name)));
    }
    pages
}

fn man(args: crate::cli::ManArgs) -> Result<(), Failure> {
    use anyhow::Context;
    let Some(dir) = args.out_dir else {
        let (_, top) = man_pages().remove(0);
        return print(|out| clap_mangen::Man::new(top).render(out));
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("creating `{}`", dir.display()))?;
    for (file, cmd) in man_pages() {
        let mut page = Vec::new();
        clap_mangen::Man::new(cmd).render(&mut page).context("rendering a man page")?;
        let path = dir.join(&file);
        std::fs::write(&path, page).with_context(|| format!("writing `{}`", path.display()))?;
        say(format_args!("{}", path.display()))?;
    }
    Ok(())
}

/// Runs `write` on stdout; a failed write (a closed pipe too) is the command's error.
fn print(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    write(&mut out)
        .and_then(|()| out.flush())
        .map_err(|e| Failure::Other(anyhow::Error::from(e).context("writing to stdout")))
}

/// Writes one line to stdout. A failed write is an error the command returns, so a
/// closed pipe ends the command (quietly: see `Failure::is_broken_pipe`), never a panic.
pub fn say(line: std::fmt::Arguments) -> Result<(), Failure> {
    let mut out = std::io::stdout().lock();
    out.write_fmt(line)
        .and_then(|()| out.write_all(b"\n"))
        .and_then(|()| out.flush())
        .map_err(|e| Failure::Other(anyhow::Error::from(e).context("writing to stdout")))
}

/// The progress bar on a terminal (stderr): a spinner for a phase of unknown length, a
/// counted bar of `unit`s otherwise.
pub struct Bar {
    bar: ProgressBar,
    unit: &'static str,
}

impl Bar {
    pub fn new(unit: &'static str) -> Bar {
        Bar { bar: ProgressBar::new(0), unit }
    }
}

impl Drop for Bar {
    /// A command that fails midway leaves no half-drawn bar above its error.
    fn drop(&mut self) {
        self.bar.finish_and_clear();
    }
}

impl Progress for Bar {
    fn start(&self, phase: &str, len: u64) {
        // A phase of unknown length (loading) spins; a counted one shows a bar.
        let template = if len == 0 {
            "{msg:>22} {spinner} {elapsed}".to_string()
        } else {
            format!("{{msg:>22}} [{{bar:30}}] {{pos}}/{{len}} {} {{elapsed}}", self.unit)
        };
        self.bar.set_style(ProgressStyle::with_template(&template).expect("a valid template"));
        if len == 0 {
            self.bar.enable_steady_tick(std::time::Duration::from_millis(120));
        } else {
            self.bar.disable_steady_tick();
        }
        self.bar.set_length(len);
        self.bar.set_position(0);
        self.bar.set_message(phase.to_string());
    }
    fn inc(&self) {
        self.bar.inc(1);
    }
    fn finish(&self) {
        self.bar.finish_and_clear();
    }
}
