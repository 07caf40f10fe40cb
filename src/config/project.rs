//! The validated project the pipeline relies on ([`Project`]): absolute folders, the
//! listing's shape and settings checked and typed, `[deploy]` with its flags applied, and
//! where each key was written; the command line's [`Overrides`] that go into it.

use std::collections::BTreeMap;
use std::path::PathBuf;

use super::deploy::{Deploy, DeployOverrides};
use super::hosting::{HostingConfig, R2};
use super::read::Places;
use super::shape::Shape;
use super::tables::{Fallback, FieldSpec, OpenApiConfig, UrlStyle};

/// Command-line values that override the config (paths relative to the working directory).
#[derive(Debug, Clone, Default)]
pub struct Overrides {
    pub data_dir: Option<PathBuf>,
    pub output_dir: Option<PathBuf>,
    pub base_url: Option<String>,
    /// `folio deploy`'s flags over `[deploy]`.
    pub deploy: DeployOverrides,
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
    /// Where the Cloudflare Worker reads the files, when Cloudflare serves from R2 (the
    /// one answer to "does it?"); `None` on Pages or without the `cloudflare` target.
    pub r2: Option<R2>,
    /// The published folder's path on the server, as a build's host configs name it:
    /// `[hosting] root` without its trailing `/`, else the output folder.
    pub server_root: String,
    /// `[deploy]` checked, with `folio deploy`'s flags applied.
    pub deploy: Deploy,
    pub openapi: OpenApiConfig,
    /// Where each key is written in `config_path` ([`Places`]; empty for a project that
    /// was not read from a file), for whoever reports a problem about one.
    pub places: Places,
    /// The digest of the settings that shape the output
    /// ([`output_settings`](super::digest::output_settings)): a build records it, the
    /// incremental build's fingerprint holds it, and `folio deploy` refuses an output
    /// built from other settings. Comments and `[deploy]` are not in it.
    pub output_settings_digest: String,
}
