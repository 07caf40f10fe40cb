//! `[hosting]`: which host configs a build writes, with their plans and options.

use serde::Deserialize;

/// A host target of `[hosting] targets`: what `hosts::render` writes a config for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HostTarget {
    Nginx,
    Apache,
    Caddy,
    Lighttpd,
    Cloudfront,
    Netlify,
    Vercel,
    Cloudflare,
}

impl HostTarget {
    /// As `[hosting] targets` spells it.
    pub fn name(self) -> &'static str {
        match self {
            HostTarget::Nginx => "nginx",
            HostTarget::Apache => "apache",
            HostTarget::Caddy => "caddy",
            HostTarget::Lighttpd => "lighttpd",
            HostTarget::Cloudfront => "cloudfront",
            HostTarget::Netlify => "netlify",
            HostTarget::Vercel => "vercel",
            HostTarget::Cloudflare => "cloudflare",
        }
    }
}

/// The host's plan, where its limits depend on it (`[hosting.cloudflare] plan`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum HostPlan {
    #[default]
    Free,
    Paid,
}

impl HostPlan {
    /// As `[hosting.cloudflare] plan` spells it.
    pub fn name(self) -> &'static str {
        match self {
            HostPlan::Free => "free",
            HostPlan::Paid => "paid",
        }
    }
}

/// Where the `cloudflare` target's Worker reads the files (`[hosting.cloudflare]
/// serve_from`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ServeFrom {
    /// Cloudflare Pages: the output folder deployed as a Pages project.
    #[default]
    Pages,
    /// An R2 bucket that `folio deploy` fills through R2's S3 API, read by a Worker.
    R2,
}

impl ServeFrom {
    /// As `[hosting.cloudflare] serve_from` spells it.
    pub fn name(self) -> &'static str {
        match self {
            ServeFrom::Pages => "pages",
            ServeFrom::R2 => "r2",
        }
    }
}

/// `[hosting.cloudflare]`: the plan (which decides Pages' limits) and where the Worker
/// reads the files.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CloudflareConfig {
    pub plan: HostPlan,
    pub serve_from: ServeFrom,
}

/// Where the Cloudflare Worker finds the files `folio deploy` put in an R2 bucket: the
/// bucket and prefix of `[deploy] url`. A project has one when Cloudflare serves from R2
/// (`[hosting.cloudflare] serve_from = "r2"` with the `cloudflare` target).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct R2 {
    pub bucket: String,
    /// The key prefix, without a trailing `/` (`""`: the bucket's root).
    pub prefix: String,
}

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HostingConfig {
    pub targets: Vec<HostTarget>,
    pub root: String,
    pub listen: String,
    /// `[hosting.cloudflare]`: the plan, and Pages or R2.
    pub cloudflare: CloudflareConfig,
}

impl Default for HostingConfig {
    fn default() -> Self {
        HostingConfig {
            targets: vec![
                HostTarget::Nginx,
                HostTarget::Apache,
                HostTarget::Caddy,
                HostTarget::Lighttpd,
                HostTarget::Cloudfront,
            ],
            root: String::new(),
            listen: "127.0.0.1:8080".into(),
            cloudflare: CloudflareConfig::default(),
        }
    }
}
