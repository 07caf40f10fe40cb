//! The command line (clap derive); the doc comments here are `--help`.

use std::path::PathBuf;

use clap::{Args, Parser, Subcommand};

/// Pre-renders a paginated JSON API of attractions into static files.
#[derive(Debug, Parser)]
#[command(name = "folio", version, about)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Build every page, error document and index into the output folder.
    Build(BuildArgs),
    /// Load and validate the data only; print every problem or a summary.
    Check(CheckArgs),
    /// Build, then serve the output with the API's exact semantics; rebuild on changes.
    Serve(ServeArgs),
    /// Publish the finished build to object storage (S3 and S3-compatible, GCS, Azure, a
    /// folder), incrementally; say what a CDN must purge.
    Deploy(DeployArgs),
}

#[derive(Debug, Args)]
pub struct BuildArgs {
    /// The config file (default: folio.toml in the working directory).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The data folder, overriding `data_dir`.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
    /// The output folder, overriding `output_dir`.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// The public URL the output is served at, overriding `base_url`.
    #[arg(long, value_name = "URL")]
    pub base_url: Option<String>,
    /// Print only problems.
    #[arg(long, short)]
    pub quiet: bool,
}

#[derive(Debug, Args)]
pub struct CheckArgs {
    /// The config file (default: folio.toml in the working directory).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The data folder, overriding `data_dir`.
    #[arg(long, value_name = "DIR")]
    pub data: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The config file (default: folio.toml in the working directory).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// The port to listen on; 0 picks a free one.
    #[arg(long, default_value_t = 8080)]
    pub port: u16,
    /// The address to listen on.
    #[arg(long, default_value = "127.0.0.1")]
    pub bind: std::net::IpAddr,
}

#[derive(Debug, Args)]
pub struct DeployArgs {
    /// The config file (default: folio.toml in the working directory).
    #[arg(long, value_name = "FILE")]
    pub config: Option<PathBuf>,
    /// Where to publish, overriding `[deploy] url`: s3://bucket/prefix, gs://bucket/prefix,
    /// az://container/prefix or file:///dir.
    #[arg(long, value_name = "URL")]
    pub to: Option<String>,
    /// An S3-compatible store's endpoint (R2, MinIO, Ceph), overriding `[deploy] endpoint`.
    #[arg(long, value_name = "URL")]
    pub endpoint: Option<String>,
    /// Print the plan and send nothing that writes.
    #[arg(long)]
    pub dry_run: bool,
    /// Upload every object, changed or not.
    #[arg(long)]
    pub force: bool,
    /// Refuse to delete more stale objects than this, overriding `[deploy] max_deletes`.
    #[arg(long, value_name = "N")]
    pub max_deletes: Option<u64>,
    /// Write the URLs a CDN must purge (CloudFront paths, Cloudflare requests) as JSON.
    #[arg(long, value_name = "FILE")]
    pub purge_list: Option<PathBuf>,
    /// Print only problems.
    #[arg(long, short)]
    pub quiet: bool,
}
