//! One file per command: what it prints and how it reads its arguments, around the
//! library's work (`site`, `deploy`, `serve`, `init`). What a command decides stays with
//! it: `init` which files to keep, `check` how its report reads, `serve` when to rebuild.
//! Every command that needs the project gets it from [`discover`], which adds to the
//! config's problems what the data suggests. All printing goes through `messages.rs`.

mod allocator;
mod build;
mod check;
mod deploy;
mod exit;
mod init;
mod messages;
mod serve;

use std::io::Write;
use std::path::Path;

use indicatif::{ProgressBar, ProgressStyle};

use folio::site::Progress;

use crate::cli::{Cli, Command};
use exit::Exit;
use folio::config::{self, Overrides, Project};
use folio::diag::{self, ConfigError};
use folio::error::Failure;
pub use messages::{print, say};

/// The binary's `main`: parses the command line, runs it, prints a failure and maps it to
/// its exit code (docs/cli.md).
pub fn main() -> std::process::ExitCode {
    use clap::Parser;
    use std::process::ExitCode;
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return messages::usage(&e),
    };
    match run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        // `folio build | head -0`: the reader is gone, so is the point of going on (ripgrep).
        Err(failure) if failure.is_broken_pipe() => ExitCode::SUCCESS,
        Err(failure) => {
            messages::failure(&failure);
            ExitCode::from(failure.exit_code())
        }
    }
}

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

/// The project of `--config` (else of folio.toml in the working directory), or why there
/// is none: [`Project::discover`], with what was meant added to the config's problems
/// where the data shows it.
pub fn discover(config: Option<&Path>, overrides: &Overrides) -> Result<Project, Failure> {
    Project::discover(config, overrides).map_err(|e| match e {
        config::Error::Invalid { mut errors, data: Some(data) }
            if errors.iter().any(|e| e.flag().is_none()) =>
        {
            languages_meant(&mut errors, &data);
            Failure::Config(errors)
        }
        e => Failure::from(e),
    })
}

/// To each language code that is no language (`sp`), the code meant, when the data has
/// values in languages the config does not list: the one whose country code it is, or one
/// spelled close to it ("did you mean `es`? (data/a.csv has `name.es`)"). The data is read
/// only then.
fn languages_meant(errors: &mut [ConfigError], data: &Project) {
    if errors.iter().all(|e| e.unknown_language.is_none()) {
        return;
    }
    let found = folio::load::unlisted_languages(data);
    let unlisted: Vec<&str> =
        (found.keys().map(String::as_str)).filter(|l| config::is_known_language(l)).collect();
    for e in errors {
        let Some(word) = &e.unknown_language else { continue };
        // A country's code written for its language (`sp` for Spain), when the data has
        // that language; else a code spelled close to one the data has. Never merely the
        // one language the data has besides the listed ones: `sp` is no typo of `fr`.
        let country = country_for_language(word).filter(|l| unlisted.contains(l));
        if let Some(meant) = country.or_else(|| diag::nearest(word, unlisted.iter().copied())) {
            let (field, file) = &found[meant];
            e.message.push_str(&format!(
                "; did you mean `{meant}`? ({} has `{field}.{meant}`)",
                file.display()
            ));
        }
    }
}

/// The language of a country whose code is written for it by mistake, for the common
/// cases where the country code is no ISO 639 language code itself (`sp` for Spain, `jp`
/// for Japan, `gb` and `us` for English...).
fn country_for_language(code: &str) -> Option<&'static str> {
    Some(match code {
        "sp" => "es",
        "jp" => "ja",
        "cn" => "zh",
        "gr" => "el",
        "dk" => "da",
        "cz" => "cs",
        "ua" => "uk",
        "vn" => "vi",
        "al" => "sq",
        "gb" | "us" => "en",
        _ => return None,
    })
}

/// The man pages: `folio.1`, and `folio-COMMAND.1` for every command (`help` is no page:
/// `--help` is on every one).
fn man_pages() -> Vec<(String, clap::Command)> {
    // The crate's version alone (not the commit `--version` adds): the pages shipped in the
    // release archives (contrib/man) then change only with the interface or the version.
    let mut top = <Cli as clap::CommandFactory>::command()
        .disable_help_subcommand(true)
        .version(env!("CARGO_PKG_VERSION"));
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
        return print(|out| render_man(top, out));
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("creating `{}`", dir.display()))?;
    for (file, cmd) in man_pages() {
        let mut page = Vec::new();
        render_man(cmd, &mut page).context("rendering a man page")?;
        let path = dir.join(&file);
        std::fs::write(&path, page).with_context(|| format!("writing `{}`", path.display()))?;
        say(format_args!("{}", path.display()))?;
    }
    Ok(())
}

/// What every page says about exit codes (docs/cli.md has the table by command).
const EXIT_STATUS: &str = "0: done. 1: refused, with the reason (invalid data, config or template, a file in the way, a folder folio will not write to, a deploy it will not do; a build then wrote nothing). 2: a usage error (an unknown flag, a missing folio.toml, an address it cannot bind) or an I/O or remote failure.";

/// A man page: clap_mangen's sections, the command's examples as typed (no hyphenation, no
/// filling), then EXIT STATUS and ENVIRONMENT.
fn render_man(cmd: clap::Command, out: &mut dyn Write) -> std::io::Result<()> {
    use clap_mangen::roff::{Roff, roman};
    let man = clap_mangen::Man::new(cmd.clone());
    man.render_title(out)?;
    // Examples name files and flags: a hyphen broken into `fo‐lio.toml` misleads.
    out.write_all(b".nh\n.ad l\n")?;
    man.render_name_section(out)?;
    man.render_synopsis_section(out)?;
    man.render_description_section(out)?;
    if cmd.get_arguments().any(|a| !a.is_hide_set()) {
        man.render_options_section(out)?;
    }
    if cmd.get_subcommands().next().is_some() {
        man.render_subcommands_section(out)?;
    }
    let mut roff = Roff::new();
    if let Some(after) = cmd.get_after_help() {
        let text = after.to_string();
        // The environment has a section of its own, below.
        let text = text.split("\n\nEnvironment:\n").next().unwrap_or_default();
        let examples = text.strip_prefix("Examples:\n").unwrap_or(text);
        roff.control("SH", ["EXAMPLES"]);
        roff.control("nf", []);
        for line in examples.lines() {
            roff.text([roman(line.trim_start())]);
            roff.control("br", []);
        }
        roff.control("fi", []);
    }
    roff.control("SH", ["EXIT STATUS"]);
    roff.text([roman(EXIT_STATUS)]);
    // The overview names every variable; a command's page those it reads, and folio's own.
    let command = cmd.get_name().strip_prefix("folio-");
    let read = folio::environment::VARIABLES
        .iter()
        .filter(|v| command.is_none_or(|c| v.read_by(c) || v.read_by("")));
    roff.control("SH", ["ENVIRONMENT"]);
    for variables in read {
        roff.control("TP", []);
        roff.text([roman(variables.names.join(", "))]);
        roff.text([roman(variables.what)]);
    }
    if command.is_none() {
        roff.control("SH", ["SEE ALSO"]);
        roff.text([roman(concat!(
            "The reference is the docs/ folder of ",
            env!("CARGO_PKG_REPOSITORY"),
            "; folio --help links it as of the commit folio was built from."
        ))]);
    }
    roff.to_writer(out)?;
    if cmd.get_version().is_some() || cmd.get_long_version().is_some() {
        man.render_version_section(out)?;
    }
    Ok(())
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_language_that_is_no_language_gets_the_one_the_data_has() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join("data");
        std::fs::create_dir(&dir).unwrap();
        std::fs::write(dir.join("a.csv"), "id;name.en;name.fr;name.es\n1;A;B;C\n").unwrap();
        // The project as a config with `sp` among its languages validates as far as it
        // does: `sp` refused, the rest kept.
        let toml = "[listing]\nlanguages = [\"en\", \"fr\"]\n[input]\ncsv_delimiter = \";\"\n[fields.name]\nlocalized = true\n";
        let data = Project::from_toml(
            toml,
            Path::new("folio.toml"),
            root.path(),
            root.path(),
            &Overrides::default(),
        )
        .unwrap();
        let config = Path::new("folio.toml");
        let mut sp = ConfigError::new(config, Some(3), "listing.languages: `sp` is no language");
        sp.unknown_language = Some("sp".into());
        let other = ConfigError::new(config, Some(4), "listing.resource `a/b` is no segment");
        let mut errors = [sp, other.clone()];
        languages_meant(&mut errors, &data);
        let file = diag::display_path(&dir.join("a.csv"));
        assert_eq!(
            errors[0].message,
            format!(
                "listing.languages: `sp` is no language; did you mean `es`? ({} has `name.es`)",
                file.display()
            )
        );
        assert_eq!(errors[1], other, "a problem of another kind is left as it is");
        // The one language the data has besides the listed ones is no suggestion when
        // nothing ties it to the word: `sp` is not `fr`.
        std::fs::write(dir.join("a.csv"), "id;name.en;name.fr\n1;A;B\n").unwrap();
        let mut data = data;
        data.shape.languages = vec!["en".to_string()];
        let mut sp = ConfigError::new(config, Some(3), "listing.languages: `sp` is no language");
        sp.unknown_language = Some("sp".into());
        let mut errors = [sp];
        languages_meant(&mut errors, &data);
        assert_eq!(errors[0].message, "listing.languages: `sp` is no language");
    }
}
