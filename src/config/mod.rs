//! `folio.toml`: the serde model of every key (`tables.rs`, docs/config.md), its defaults,
//! and the [`Project`] that validation turns it into (`project.rs`), complete when made:
//! from a file with [`Project::discover`], from a string with [`Project::from_toml`]. No
//! data is read here: a config with problems comes back with the project as far as it
//! validated, for whoever reports the problems to add what the data suggests
//! (`cmd::discover`). The checks are in `validate.rs` (languages in
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
pub use hosting::{CloudflareConfig, HostPlan, HostTarget, HostingConfig, R2, ServeFrom};
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
    /// Parses `text` once, with every unknown key or table and every value of the wrong
    /// type or unknown found at once, each at its line and column (`read.rs`); a text that
    /// is no TOML has one problem, its syntax error.
    pub fn parse(text: &str, path: &Path) -> Result<Config, Vec<ConfigError>> {
        read::parse(text, path).map(|(config, _)| config)
    }
}

impl Project {
    /// The project of the config file: `--config F`, else `folio.toml` in the working
    /// directory, read and made with [`Project::from_toml`]. A missing file is a usage
    /// error (exit 2).
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
        let bytes =
            std::fs::read(&path).with_context(|| format!("reading config `{}`", path.display()))?;
        let text = String::from_utf8(bytes).map_err(|e| {
            let message =
                format!("is not UTF-8 (byte {} is invalid)", e.utf8_error().valid_up_to());
            Error::Invalid { errors: vec![ConfigError::new(&shown, None, message)], data: None }
        })?;
        let root = path.parent().map_or_else(|| cwd.clone(), Path::to_path_buf);
        Project::from_toml(&text, &shown, &root, &cwd, overrides)
    }

    /// The project of the config `text`: parsed, every key checked (`validate.rs`), its
    /// folders resolved against `root` (the folder of folio.toml) and the overrides'
    /// against `cwd`; `config_path` names it in messages. Every problem at once, each at
    /// the line of its key, with the project as far as it validated (a refused value at
    /// its fallback) when the text parsed.
    pub fn from_toml(
        text: &str,
        config_path: &Path,
        root: &Path,
        cwd: &Path,
        overrides: &Overrides,
    ) -> Result<Project, Error> {
        let (cfg, places) = read::parse(text, config_path)
            .map_err(|errors| Error::Invalid { errors, data: None })?;
        let (project, mut errors) = cfg.validate(places, config_path, root, cwd, overrides);
        if errors.is_empty() {
            return Ok(project);
        }
        // Each problem at the line of its key, as the parse found it.
        for e in errors.iter_mut().filter(|e| e.line.is_none()) {
            if let Some((line, column)) = e.key.as_deref().and_then(|key| project.places.of(key)) {
                (e.line, e.column) = (Some(line), Some(column));
            }
        }
        errors.sort_by_key(|e| e.line.unwrap_or(u64::MAX));
        Err(Error::Invalid { errors, data: Some(Box::new(project)) })
    }
}

impl Error {
    /// The problems of an invalid config, each as printed; the message of any other.
    pub fn messages(&self) -> Vec<String> {
        match self {
            Error::Invalid { errors, .. } => errors.iter().map(ToString::to_string).collect(),
            other => vec![other.to_string()],
        }
    }
}

/// A project from `toml` with its root at `/nonexistent/project`, for unit tests.
#[cfg(test)]
pub(crate) fn test_project(toml: &str) -> Project {
    tests::project(toml).expect("a test config is valid")
}

#[cfg(test)]
pub(crate) mod tests;
