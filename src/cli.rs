//! The command line (clap derive); the doc comments here are `--help`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Pre-renders a paginated JSON API of attractions into static files.
#[derive(Debug, Parser)]
#[command(name = "folio", bin_name = "folio", version = env!("FOLIO_VERSION"), about, after_help = after("", EXAMPLES))]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

const EXAMPLES: &str = "\
Examples:
  folio init my-api --languages en,fr    start a project with sample data
  folio build                            write output/ (and hosting/) from folio.toml
  folio serve                            preview on http://127.0.0.1:8080/
  folio check --format github            validate only, annotations for a CI step
  folio deploy --purge-list purge.json   publish output/ to [deploy] url";

/// The docs of the commit this binary was built from (`main` when that is unknown).
const DOCS: &str = concat!(
    "Docs: ",
    env!("CARGO_PKG_REPOSITORY"),
    "/tree/",
    env!("FOLIO_DOCS_REV"),
    "/docs (cli.md, config.md, api.md; also `folio man`)."
);

/// What `--help` says after the options of `command` (`""`: folio itself): its examples,
/// the environment variables it reads (`folio::environment`), and for folio itself where
/// the docs are.
pub fn after(command: &str, examples: &str) -> String {
    let mut text = examples.to_string();
    let read: Vec<_> =
        folio::environment::VARIABLES.iter().filter(|v| v.read_by(command)).collect();
    if !read.is_empty() {
        text.push_str("\n\nEnvironment:");
        for variables in read {
            text.push_str(&format!("\n  {}", variables.names.join(", ")));
            for line in wrap(variables.what, 82) {
                text.push_str(&format!("\n      {line}"));
            }
        }
    }
    if command.is_empty() {
        text.push_str("\n\n");
        text.push_str(DOCS);
    }
    text
}

/// `text` in lines of at most `width` characters, broken between words.
fn wrap(text: &str, width: usize) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= width => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Start a project: a commented folio.toml, sample data, templates/ and a .gitignore.
    #[command(after_help = after("init", "\
Examples:
  folio init                                   here (refused if folio.toml or data/ exist)
  folio init my-api --languages en,fr,de       a new folder, three languages
  folio init --resource museums --force        fill in what is missing; never overwrites data"))]
    Init(InitArgs),
    /// Build every page, error document and index into the output folder.
    #[command(after_help = after("build", "\
Examples:
  folio build
  folio build --base-url https://example.org/travel --out public
  folio build --config site/folio.toml --quiet"))]
    Build(BuildArgs),
    /// Load and validate the data only; print every problem or a summary.
    #[command(after_help = after("check", "\
Examples:
  folio check
  folio check --format json > check.json   one JSON object; the exit code says the same
  folio check --format github              annotations for a GitHub Actions step"))]
    Check(CheckArgs),
    /// Preview: serve the API from memory with its exact semantics; reload on changes.
    #[command(after_help = after("serve", "\
Examples:
  folio serve                      http://127.0.0.1:8080/
  folio serve --port 0             a free port; the URL is the first line printed"))]
    Serve(ServeArgs),
    /// Publish the finished build to object storage (S3 and S3-compatible, GCS, Azure, a
    /// folder), incrementally; say what a CDN must purge.
    #[command(after_help = after("deploy", "\
Examples:
  folio build && folio deploy
  folio deploy --to s3://my-bucket/site --dry-run
  folio deploy --to s3://site --endpoint https://ACCOUNT.r2.cloudflarestorage.com
  folio deploy --purge-list purge.json"))]
    Deploy(DeployArgs),
    /// Print a shell completion script to stdout.
    #[command(after_help = after("completions", "\
Examples:
  folio completions bash > ~/.local/share/bash-completion/completions/folio
  folio completions zsh > ~/.zfunc/_folio
  folio completions fish > ~/.config/fish/completions/folio.fish"))]
    Completions(CompletionsArgs),
    /// Print the man page (roff) to stdout, or write one page per command into a folder.
    #[command(after_help = after("man", "\
Examples:
  folio man --out-dir ~/.local/share/man/man1 && man folio-deploy
  folio man | man -l -"))]
    Man(ManArgs),
}

#[derive(Debug, Args)]
pub struct ManArgs {
    /// Write folio.1 and folio-COMMAND.1 for every command into this folder (created if
    /// missing) instead of printing folio.1.
    #[arg(long, value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct InitArgs {
    /// The project folder (created if missing; default: the working directory).
    #[arg(value_name = "DIR")]
    pub dir: Option<PathBuf>,
    /// The languages of the listing, comma-separated.
    #[arg(long, value_name = "LANGS", value_delimiter = ',', default_value = "en,fr")]
    pub languages: Vec<String>,
    /// The language served without a language segment (default: the first one).
    #[arg(long, value_name = "LANG")]
    pub default_language: Option<String>,
    /// The resource name in the URLs (`/api/{lang}/RESOURCE`).
    #[arg(long, value_name = "NAME", default_value = "attractions")]
    pub resource: String,
    /// Write into a folder that already has a folio.toml or data/: the old folio.toml is
    /// kept as folio.toml.bak, other existing files are kept as they are, and no sample
    /// data goes into an existing data/.
    #[arg(long)]
    pub force: bool,
}

#[derive(Debug, Args)]
pub struct CompletionsArgs {
    /// The shell to complete for.
    #[arg(value_enum)]
    pub shell: clap_complete::Shell,
}

/// How `folio check` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Format {
    /// Lines for people: problems on stderr, the summary on stdout.
    Text,
    /// One JSON object on stdout with the summary and every problem (stable keys).
    Json,
    /// GitHub Actions annotations on stdout, one `::error` (`::warning`) line a problem,
    /// at its file, line and column; then the text format's summary.
    Github,
}

/// `--config FILE`, which every command that reads a project takes.
#[derive(Debug, Args)]
pub struct ConfigPath {
    /// The config file (default: folio.toml in the working directory).
    #[arg(id = "config", long = "config", value_name = "FILE")]
    pub path: Option<PathBuf>,
}

/// `--data DIR`, for the commands that read the data.
#[derive(Debug, Args)]
pub struct DataPath {
    /// The data folder, overriding `data_dir`.
    #[arg(id = "data", long = "data", value_name = "DIR")]
    pub path: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct BuildArgs {
    #[command(flatten)]
    pub config: ConfigPath,
    #[command(flatten)]
    pub data: DataPath,
    /// The output folder, overriding `output_dir`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The public URL the output is served at, overriding `base_url`.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// When another folio command (a build or a deploy) is using the output folder, refuse
    /// at once (exit 1) instead of waiting for it.
    #[arg(long)]
    pub no_wait: bool,
    /// Print only problems.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    #[command(flatten)]
    pub config: ConfigPath,
    #[command(flatten)]
    pub data: DataPath,
    /// How to report.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    pub format: Format,
    /// List each record that lacks a translation (language, id, fields, file and line):
    /// a worklist for translators, also in `--format json` (`missing_records`).
    #[arg(long)]
    pub missing: bool,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    #[command(flatten)]
    pub config: ConfigPath,
    /// The port to listen on; 0 picks a free one.
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
}

#[derive(Debug, Args)]
pub struct DeployArgs {
    #[command(flatten)]
    pub config: ConfigPath,
    /// Where to publish, overriding `[deploy] url`: s3://bucket/prefix, gs://bucket/prefix,
    /// az://container/prefix or file:///dir.
    #[arg(long, value_name = "URL")]
    pub to: Option<String>,
    /// An S3-compatible store's endpoint (R2, MinIO, Ceph), overriding `[deploy] endpoint`.
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,
    /// The S3 region, overriding `[deploy] region` (R2: auto).
    #[arg(long, value_name = "REGION")]
    pub region: Option<String>,
    /// Print the plan and send nothing that writes.
    #[arg(long)]
    pub dry_run: bool,
    /// Publish straight from the data: load and check it as `folio build` does, and render
    /// each file in memory when it is hashed and when it is sent; the output folder is
    /// neither read nor written, so the pages need no room on this machine.
    #[arg(long)]
    pub from_data: bool,
    /// Upload every object, changed or not.
    #[arg(long)]
    pub force: bool,
    /// Refuse to delete more stale objects than this, overriding `[deploy] max_deletes`.
    #[arg(long, value_name = "N")]
    pub max_deletes: Option<u64>,
    /// Write the URLs a CDN must purge (CloudFront paths, Cloudflare requests) as JSON;
    /// `-` for standard output (a FIFO or a device is written through). It names every
    /// change since the last purge list was written, also those of deploys without one.
    #[arg(long, value_name = "FILE")]
    pub purge_list: Option<PathBuf>,
    /// Purge this CDN once the store holds the build, instead of `[deploy] purge`:
    /// `cloudfront:DISTRIBUTION_ID` or `cloudflare:ZONE_ID` (repeat for more).
    #[arg(long, value_name = "CDN", conflicts_with = "no_purge")]
    pub purge: Vec<String>,
    /// Purge no CDN this time (what is owed stays owed, in the store's record).
    #[arg(long)]
    pub no_purge: bool,
    /// Give the purges this many seconds in all, requests and waits for a CDN that asks
    /// to wait included, overriding `[deploy] purge_wait`.
    #[arg(long, value_name = "SECS")]
    pub purge_wait: Option<u64>,
    /// Send a CDN at most this many paths (CloudFront; a wildcard counts as one) or URLs
    /// and prefixes (Cloudflare), folding into wildcards past it, overriding
    /// `[deploy] max_purge_paths`.
    #[arg(long, value_name = "N")]
    pub max_purge_paths: Option<u64>,
    /// Drop what the store's record says this CDN is owed (one that no longer exists, or
    /// was never meant): nothing is sent for it (repeat for more).
    #[arg(long, value_name = "CDN")]
    pub drop_owed: Vec<folio::config::Cdn>,
    /// Move what the store's record says this CDN is owed to the CDNs this deploy purges
    /// (an id corrected): they are sent it (repeat for more).
    #[arg(long, value_name = "CDN")]
    pub move_owed: Vec<folio::config::Cdn>,
    /// When folio's record on the store cannot be read: survey every object below the
    /// prefix, delete those that carry folio's metadata and the build does not have, and
    /// purge every key of the build.
    #[arg(long)]
    pub repair: bool,
    /// When a build is writing the output folder, refuse at once (exit 1) instead of
    /// waiting for it.
    #[arg(long)]
    pub no_wait: bool,
    /// How to report what was done.
    #[arg(long, value_enum, default_value_t = DeployFormat::Text)]
    pub format: DeployFormat,
    /// Print only problems.
    #[arg(long, short)]
    pub quiet: bool,
}

/// How `folio deploy` reports.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum DeployFormat {
    /// A summary line on stdout (with --dry-run, the plan first); warnings on stderr.
    Text,
    /// One JSON object on stdout: the counts, the plan with --dry-run, the purges, the
    /// changed `hosting/` files and the warnings (stable keys).
    Json,
}

#[cfg(test)]
mod tests {
    #[test]
    fn the_command_line_is_well_formed() {
        use clap::CommandFactory;
        super::Cli::command().debug_assert();
    }
}
