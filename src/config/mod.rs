//! `folio.toml`: the serde model of every key (docs/config.md), its defaults, and the
//! [`Project`] that validation turns it into. Parsing is pure ([`Config::from_str`]);
//! reading is [`Config::from_file`]; finding the file is [`Project::discover`]. No data is
//! read here: a config with problems comes back with the project as far as it validated,
//! for whoever reports the problems to add what the data suggests (`cmd::discover`). The
//! checks are in `validate.rs`, `base_url` in `base_url.rs`, the folders in `paths.rs`, the
//! `[hosting]` table in `hosting.rs`, `[deploy]` with its command-line overrides in
//! `deploy.rs` (the deploy URL in `target.rs`, the CDNs in `cdn.rs`), the listing's shape
//! in `shape.rs`, the one parse that finds every problem of the text in `read.rs`, and how
//! each reads in `explain.rs`.
mod base_url;
mod cdn;
pub mod deploy;
pub mod digest;
mod explain;
mod hosting;
mod paths;
mod read;
mod shape;
pub mod target;
mod validate;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde::Deserialize;

pub use base_url::BaseUrl;
pub use cdn::Cdn;
pub use deploy::{Deploy, DeployConfig, DeployOverrides};
pub use hosting::{CloudflareConfig, HostPlan, HostTarget, HostingConfig, ServeFrom};
pub use paths::normalize;
pub use read::Places;
pub use shape::Shape;
pub use validate::is_known_language;

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
            // Only the command line's flags are wrong: a usage error, as clap's own are.
            Error::Invalid { errors, .. } if errors.iter().all(|e| e.flag().is_some()) => {
                Failure::Usage(
                    errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"),
                )
            }
            Error::Invalid { errors, .. } => Failure::Config(errors),
            Error::Io(e) => Failure::Other(e),
        }
    }
}

/// The raw config, exactly as written (paths not yet resolved).
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Config {
    pub base_url: String,
    pub data_dir: PathBuf,
    pub output_dir: PathBuf,
    pub templates_dir: PathBuf,
    pub hosting_dir: PathBuf,
    pub listing: ListingConfig,
    pub input: InputConfig,
    pub fields: BTreeMap<String, FieldSpec>,
    pub i18n: I18nConfig,
    pub output: OutputConfig,
    pub hosting: HostingConfig,
    pub deploy: DeployConfig,
    pub openapi: OpenApiConfig,
}

/// `[openapi]`: what the OpenAPI document says of the API beyond its shape (its licence
/// and who to contact), for the linters and client generators that ask.
#[derive(Debug, Clone, Default, PartialEq, Eq, Hash, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OpenApiConfig {
    /// An SPDX identifier (`CC-BY-4.0`, `MIT`): `info.license`.
    pub license: String,
    /// The licence's URL, for a licence with no SPDX identifier.
    pub license_url: String,
    pub contact_name: String,
    pub contact_email: String,
    pub contact_url: String,
}

impl Default for Config {
    fn default() -> Self {
        Config {
            base_url: String::new(),
            data_dir: "data".into(),
            output_dir: "output".into(),
            templates_dir: "templates".into(),
            hosting_dir: "hosting".into(),
            listing: ListingConfig::default(),
            input: InputConfig::default(),
            fields: BTreeMap::new(),
            i18n: I18nConfig::default(),
            output: OutputConfig::default(),
            hosting: HostingConfig::default(),
            deploy: DeployConfig::default(),
            openapi: OpenApiConfig::default(),
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ListingConfig {
    pub resource: String,
    pub languages: Vec<String>,
    pub default_language: String,
    pub page_sizes: Vec<u64>,
    pub default_page_size: u64,
    pub sort: Vec<String>,
    pub fields: Vec<String>,
    pub envelope: String,
    /// Whether pages carry the listing's count (`total`, `total_pages`, `links.last`).
    pub totals: bool,
    pub url_style: UrlStyle,
}

impl Default for ListingConfig {
    fn default() -> Self {
        ListingConfig {
            resource: "attractions".into(),
            languages: vec!["en".into()],
            default_language: "en".into(),
            page_sizes: vec![10, 20, 50, 100],
            default_page_size: 10,
            sort: vec!["id".into()],
            fields: Vec::new(),
            envelope: "standard".into(),
            totals: true,
            url_style: UrlStyle::Query,
        }
    }
}

/// `[input]`: how the data files are read.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InputConfig {
    /// The character between a CSV file's fields: `,` (the default), `;` (what Excel writes
    /// in many locales), a tab or `|`.
    pub csv_delimiter: String,
    /// What separates the fraction in a CSV cell of a `number` field: `.` (the default)
    /// or `,` (what a spreadsheet in many European locales writes).
    pub decimal_separator: String,
}

impl Default for InputConfig {
    fn default() -> Self {
        InputConfig { csv_delimiter: ",".into(), decimal_separator: ".".into() }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UrlStyle {
    Query,
    Path,
}

impl UrlStyle {
    /// As `[listing] url_style` spells it.
    pub fn name(self) -> &'static str {
        match self {
            UrlStyle::Query => "query",
            UrlStyle::Path => "path",
        }
    }
}

/// Per-field schema (`[fields.NAME]`); every key optional.
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FieldSpec {
    #[serde(rename = "type")]
    pub kind: Option<FieldType>,
    pub localized: bool,
    pub required: bool,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum FieldType {
    String,
    Integer,
    Number,
    Boolean,
    List,
    Json,
    /// An ISO 8601 calendar date, `YYYY-MM-DD`.
    Date,
    /// An RFC 3339 date and time with its offset (`2026-11-26T09:30:00+01:00`).
    Datetime,
}

impl FieldType {
    /// Whether `s` is a value of this date type, as written: `YYYY-MM-DD` for a date, RFC
    /// 3339 for a date-time. `false` for the other types.
    pub fn is_date_value(self, s: &str) -> bool {
        match self {
            FieldType::Date => {
                s.len() == 10 && chrono::NaiveDate::parse_from_str(s, "%Y-%m-%d").is_ok()
            }
            FieldType::Datetime => chrono::DateTime::parse_from_rfc3339(s).is_ok(),
            _ => false,
        }
    }

    /// A date-time as microseconds since the epoch in UTC, the instant it sorts by (offsets
    /// differ from value to value); `None` for anything else.
    pub fn instant(self, s: &str) -> Option<i64> {
        (self == FieldType::Datetime)
            .then(|| chrono::DateTime::parse_from_rfc3339(s).ok().map(|d| d.timestamp_micros()))
            .flatten()
    }
}

impl FieldType {
    pub fn name(self) -> &'static str {
        match self {
            FieldType::String => "string",
            FieldType::Integer => "integer",
            FieldType::Number => "number",
            FieldType::Boolean => "boolean",
            FieldType::List => "list",
            FieldType::Json => "json",
            FieldType::Date => "date",
            FieldType::Datetime => "datetime",
        }
    }
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct I18nConfig {
    pub fallback: Fallback,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Fallback {
    #[default]
    Default,
    Null,
    Error,
}

impl Fallback {
    /// As `[i18n] fallback` spells it.
    pub fn name(self) -> &'static str {
        match self {
            Fallback::Default => "default",
            Fallback::Null => "null",
            Fallback::Error => "error",
        }
    }
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct OutputConfig {
    pub cache_control: String,
    pub precompress: Vec<String>,
}

impl Default for OutputConfig {
    fn default() -> Self {
        OutputConfig { cache_control: "public, max-age=300".into(), precompress: Vec::new() }
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

/// Command-line values that override the config (paths relative to the working directory).
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub data_dir: Option<PathBuf>,
    pub output_dir: Option<PathBuf>,
    pub base_url: Option<String>,
    /// `folio deploy`'s flags over `[deploy]`.
    pub deploy: DeployOverrides,
}

/// The body of every page (`[listing] envelope`): folio's standard one, Laravel's
/// length-aware paginator, its simple paginator (no count) or API resource, or the
/// project's template `templates/NAME.json.j2`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Envelope {
    Standard,
    Laravel,
    LaravelSimple,
    LaravelResource,
    Template(String),
}

impl Envelope {
    /// The built-in envelopes' names, as `[listing] envelope` spells them.
    pub const BUILT_IN: [&str; 4] = ["standard", "laravel", "laravel-simple", "laravel-resource"];
}

/// As `[listing] envelope` spells it: `standard`, `laravel`, `laravel-simple`,
/// `laravel-resource`, `template:NAME`.
impl std::fmt::Display for Envelope {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        match self {
            Envelope::Standard => f.write_str(Envelope::BUILT_IN[0]),
            Envelope::Laravel => f.write_str(Envelope::BUILT_IN[1]),
            Envelope::LaravelSimple => f.write_str(Envelope::BUILT_IN[2]),
            Envelope::LaravelResource => f.write_str(Envelope::BUILT_IN[3]),
            Envelope::Template(name) => write!(f, "template:{name}"),
        }
    }
}

/// The inverse of `Display`; a template's name is letters, digits, `-` and `_`.
impl std::str::FromStr for Envelope {
    type Err = ();

    fn from_str(s: &str) -> Result<Envelope, ()> {
        match s {
            "standard" => Ok(Envelope::Standard),
            "laravel" => Ok(Envelope::Laravel),
            "laravel-simple" => Ok(Envelope::LaravelSimple),
            "laravel-resource" => Ok(Envelope::LaravelResource),
            _ => match s.strip_prefix("template:") {
                Some(name)
                    if !name.is_empty()
                        && name
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
                {
                    Ok(Envelope::Template(name.to_string()))
                }
                _ => Err(()),
            },
        }
    }
}

/// One `sort` entry: a (possibly dotted) field name and a direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortKey {
    pub field: String,
    pub descending: bool,
}

/// The validated project: absolute paths and checked listing settings.
#[derive(Debug, Clone)]
pub struct Project {
    pub config_path: PathBuf,
    pub root: PathBuf,
    pub data_dir: PathBuf,
    pub output_dir: PathBuf,
    pub templates_dir: PathBuf,
    pub hosting_dir: PathBuf,
    /// The listing's shape: what every file, URL and host script is derived from.
    pub shape: Shape,
    pub sort: Vec<SortKey>,
    pub fields: Vec<String>,
    pub url_style: UrlStyle,
    pub schema: BTreeMap<String, FieldSpec>,
    pub fallback: Fallback,
    /// The byte between a CSV file's fields (`[input] csv_delimiter`).
    pub csv_delimiter: u8,
    /// The byte before the fraction of a CSV `number` cell (`[input] decimal_separator`);
    /// `.` is always read too.
    pub decimal_separator: u8,
    pub precompress: Vec<crate::compress::Codec>,
    pub hosting: HostingConfig,
    /// `[deploy]` checked, with `folio deploy`'s flags applied.
    pub deploy: Deploy,
    pub openapi: OpenApiConfig,
    /// Where each key is written in `config_path` ([`Places`]; empty for a project that
    /// was not read from a file), for whoever reports a problem about one.
    pub places: Places,
    /// The digest of the settings that shape the output ([`digest::output_settings`], set
    /// by [`Project::discover`]): a build records it, and `folio deploy` refuses an output
    /// built from other settings. Comments and `[deploy]` are not in it.
    pub output_settings_digest: String,
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
