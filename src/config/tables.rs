//! folio.toml as written, table by table: each key with its type and default, before any
//! value is checked (`validate.rs`) or a path resolved (`paths.rs`). `read.rs` reads a
//! text into these, every problem at once.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Deserialize;

use super::deploy::DeployConfig;
use super::hosting::HostingConfig;

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
