//! `folio.toml`: the serde model of every key (`tables.rs`, docs/config.md), its defaults,
//! and the [`Project`] that validation turns it into (`project.rs`). Parsing is pure
//! ([`Config::from_str`]); reading is [`Config::from_file`]; finding the file is
//! [`Project::discover`]. No data is read here: a config with problems comes back with the
//! project as far as it validated, for whoever reports the problems to add what the data
//! suggests (`cmd::discover`). The checks are in `validate.rs` (languages in
//! `language.rs`), `base_url` in `base_url.rs`, the folders in `paths.rs`, the `[hosting]`
//! table in `hosting.rs`, `[deploy]` with its command-line overrides in `deploy.rs` (the
//! deploy URL in `target.rs`, the CDNs in `cdn.rs`), the listing's shape in `shape.rs`,
//! the digest of what shapes the output in `digest.rs`, the one parse that finds every
//! problem of the text in `read.rs`, and how each reads in `explain.rs`.
//!
//! Every problem at once is by hand (`read.rs` walks `toml`'s spanned tables): serde stops
//! at the first error, and folio names them all, each at its line.

mod base_url;
mod cdn;
pub mod deploy;
pub mod digest;
mod explain;
mod hosting;
mod language;
mod paths;
mod project;
mod read;
mod shape;
mod tables;
pub mod target;
mod validate;

use std::path::Path;

use anyhow::Context;

pub use base_url::BaseUrl;
pub use cdn::Cdn;
pub use deploy::{Deploy, DeployConfig, DeployOverrides};
pub use hosting::{CloudflareConfig, HostPlan, HostTarget, HostingConfig, ServeFrom};
pub use language::is_known_language;
pub use paths::normalize;
pub use project::{Overrides, Project, SortKey};
pub use read::Places;
pub use shape::{Envelope, Shape};
pub use tables::{
    Config, Fallback, FieldSpec, FieldType, I18nConfig, InputConfig, ListingConfig, OpenApiConfig,
    OutputConfig, UrlStyle,
};

use crate::diag::ConfigError;

/// Why there is no project: no config file where one was looked for (a usage error), a
/// config that does not parse or validate (every problem, each with its line), or a file
/// that cannot be read.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Missing(String),
    /// Every problem; and, when the config parsed, the project as far as it validated
    /// (what it says of its data).
    #[error("invalid configuration")]
    Invalid { errors: Vec<ConfigError>, data: Option<Box<Project>> },
    #[error(transparent)]
    Io(#[from] anyhow::Error),
}

impl From<Error> for crate::error::Failure {
    /// No config file is a usage error (2); an invalid one, exit 1 with every problem.
    fn from(e: Error) -> crate::error::Failure {
        use crate::error::Failure;
        match e {
            Error::Missing(message) => Failure::Usage(message),
            // Only the command line's flags are wrong: a usage error, as clap's own are, in
            // one line (a message is one line: what it repeats cannot break it).
            Error::Invalid { errors, .. } if errors.iter().all(|e| e.flag().is_some()) => {
                Failure::Usage(
                    errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "),
                )
            }
            Error::Invalid { errors, .. } => Failure::Config(errors),
            Error::Io(e) => Failure::Other(e),
        }
    }
}

impl Config {
    /// Parses `text`; `path` only names the file in messages.
    pub fn from_str(text: &str, path: &Path) -> Result<Config, ConfigError> {
        Config::parse(text, path).map_err(|mut errors| errors.remove(0))
    }

    /// Parses `text` once, with every unknown key or table and every value of the wrong
    /// type or unknown found at once, each at its line and column (`read.rs`); a text that
    /// is no TOML has one problem, its syntax error.
    pub fn parse(text: &str, path: &Path) -> Result<Config, Vec<ConfigError>> {
        read::parse(text, path).map(|(config, _)| config)
    }

    /// Reads and parses `path`; also returns the digest of its bytes.
    pub fn from_file(path: &Path) -> anyhow::Result<(Result<Config, Vec<ConfigError>>, String)> {
        let (config, digest) = Config::read(path)?;
        Ok((config.map(|(config, _)| config), digest))
    }

    /// [`Config::from_file`], with where each key is written.
    fn read(path: &Path) -> anyhow::Result<(read::Parsed, String)> {
        use anyhow::Context;
        let bytes =
            std::fs::read(path).with_context(|| format!("reading config `{}`", path.display()))?;
        let digest = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&bytes));
        let shown = crate::diag::display_path(path);
        let config = match String::from_utf8(bytes) {
            Ok(text) => read::parse(&text, &shown),
            Err(e) => Err(vec![ConfigError::new(
                &shown,
                None,
                format!("is not UTF-8 (byte {} is invalid)", e.utf8_error().valid_up_to()),
            )]),
        };
        Ok((config, digest))
    }
}

impl Project {
    /// Finds, reads and validates the config: `--config F`, else `folio.toml` in the
    /// working directory. A missing file is a usage error (exit 2); problems come back
    /// each at its line, with the project as far as it validated (a refused value at its
    /// fallback) when it parsed.
    pub fn discover(config: Option<&Path>, overrides: &Overrides) -> Result<Project, Error> {
        let cwd = std::env::current_dir().context("reading the working directory")?;
        let path = cwd.join(config.unwrap_or(Path::new("folio.toml")));
        if !path.is_file() {
            return Err(Error::Missing(format!(
                "no config at `{}`: run folio in a folder with a folio.toml (`folio init` writes one), or pass --config",
                crate::diag::display_path(&path).display()
            )));
        }
        let shown = crate::diag::display_path(&path);
        let (cfg, _) = Config::read(&path)?;
        let (cfg, places) = cfg.map_err(|errors| Error::Invalid { errors, data: None })?;
        let root = path.parent().map_or_else(|| cwd.clone(), Path::to_path_buf);
        let (mut project, mut errors) = cfg.resolve(&shown, &root, &cwd, overrides);
        if !errors.is_empty() {
            // Each problem at the line of its key, as the parse found it.
            for e in errors.iter_mut().filter(|e| e.line.is_none()) {
                if let Some((line, column)) = e.key.as_deref().and_then(|key| places.of(key)) {
                    (e.line, e.column) = (Some(line), Some(column));
                }
            }
            errors.sort_by_key(|e| e.line.unwrap_or(u64::MAX));
            return Err(Error::Invalid { errors, data: Some(Box::new(project)) });
        }
        project.output_settings_digest = digest::output_settings_digest(&project);
        project.places = places;
        Ok(project)
    }
}

/// A project from `toml` with its root at `/nonexistent/project`, for unit tests.
#[cfg(test)]
pub(crate) fn test_project(toml: &str) -> Project {
    tests::project(toml).expect("a test config is valid")
}

#[cfg(test)]
pub(crate) mod tests;
