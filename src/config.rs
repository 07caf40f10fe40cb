//! `folio.toml`: the serde model of every key in SPEC §4, its defaults, and `validate()`,
//! which turns the raw keys into a [`Project`] whose invariants the rest of the pipeline
//! relies on (default language among languages, safe path segments, refused folders).
//! Parsing is pure (`Config::from_str`); reading the file is `Config::from_file`.

use std::collections::BTreeMap;
use std::path::{Component, Path, PathBuf};

use serde::Deserialize;

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
    pub fields: BTreeMap<String, FieldSpec>,
    pub i18n: I18nConfig,
    pub output: OutputConfig,
    pub hosting: HostingConfig,
    pub deploy: DeployConfig,
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
            fields: BTreeMap::new(),
            i18n: I18nConfig::default(),
            output: OutputConfig::default(),
            hosting: HostingConfig::default(),
            deploy: DeployConfig::default(),
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
            url_style: UrlStyle::Query,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum UrlStyle {
    Query,
    Path,
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

#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HostingConfig {
    pub targets: Vec<String>,
    pub root: String,
    pub listen: String,
}

impl Default for HostingConfig {
    fn default() -> Self {
        HostingConfig {
            targets: ["nginx", "apache", "caddy", "lighttpd", "cloudfront"]
                .map(String::from)
                .into(),
            root: String::new(),
            listen: "127.0.0.1:8080".into(),
        }
    }
}

/// `[deploy]`: where `folio deploy` publishes `output/`. Credentials never live here: they
/// come from the environment and the stores' standard provider chains.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DeployConfig {
    /// `s3://bucket/prefix`, `gs://bucket/prefix`, `az://container/prefix`, `file:///dir`.
    pub url: String,
    /// An S3-compatible store's endpoint (R2, MinIO, Ceph); `http://` works as is.
    pub endpoint: String,
    /// "" = from the environment (`AWS_REGION`, `AWS_DEFAULT_REGION`), else us-east-1.
    pub region: String,
    /// More stale objects than this: refuse to delete (exit 1).
    pub max_deletes: u64,
    /// Requests in flight at once.
    pub concurrency: u64,
    /// Upload the `.gz`/`.br` siblings too (for hosts that negotiate them).
    pub siblings: bool,
}

impl Default for DeployConfig {
    fn default() -> Self {
        DeployConfig {
            url: String::new(),
            endpoint: String::new(),
            region: String::new(),
            max_deletes: 256,
            concurrency: 32,
            siblings: false,
        }
    }
}

/// A problem with the config itself; printed as `folio.toml: message` (or `:line:`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ConfigError(pub String);

impl std::fmt::Display for ConfigError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl Config {
    /// Parses `text`; `path` only names the file in messages.
    pub fn from_str(text: &str, path: &Path) -> Result<Config, ConfigError> {
        toml::from_str(text).map_err(|e| {
            let at = e
                .span()
                .map(|span| format!(":{}", 1 + text[..span.start].matches('\n').count()))
                .unwrap_or_default();
            ConfigError(format!("{}{at}: {}", path.display(), e.message().trim_end()))
        })
    }

    /// Reads and parses `path`; also returns the digest of its bytes.
    pub fn from_file(path: &Path) -> anyhow::Result<(Result<Config, ConfigError>, String)> {
        use anyhow::Context;
        let bytes =
            std::fs::read(path).with_context(|| format!("reading config `{}`", path.display()))?;
        let digest = format!("{:032x}", xxhash_rust::xxh3::xxh3_128(&bytes));
        let shown = crate::diag::display_path(path);
        let config = match String::from_utf8(bytes) {
            Ok(text) => Config::from_str(&text, &shown),
            Err(e) => Err(ConfigError(format!(
                "{}: is not UTF-8 (byte {} is invalid)",
                shown.display(),
                e.utf8_error().valid_up_to()
            ))),
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
}

/// How page links are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Envelope {
    Standard,
    Laravel,
    LaravelResource,
    Template(String),
}

/// One `sort` entry: a (possibly dotted) field name and a direction.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SortKey {
    pub field: String,
    pub descending: bool,
}

/// `base_url` split into the origin (`https://example.org`, or empty) and the mount path
/// (`/travel`, or empty): links are `{origin}{path}/api/...`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BaseUrl {
    pub origin: String,
    pub path: String,
}

impl BaseUrl {
    pub fn parse(raw: &str) -> Result<BaseUrl, String> {
        if raw.is_empty() {
            return Ok(BaseUrl::default());
        }
        let rest = raw
            .strip_prefix("https://")
            .or_else(|| raw.strip_prefix("http://"))
            .ok_or_else(|| format!("base_url `{raw}` must start with http:// or https://"))?;
        let (host, path) = match rest.find('/') {
            Some(i) => rest.split_at(i),
            None => (rest, ""),
        };
        let host_ok = !host.is_empty()
            && host.chars().all(|c| c.is_ascii_alphanumeric() || "-.:[]".contains(c));
        if !host_ok {
            return Err(format!("base_url `{raw}` has no valid host"));
        }
        let path = path.trim_end_matches('/');
        let path_ok = path.split('/').skip(1).all(|seg| {
            !seg.is_empty()
                && seg != "."
                && seg != ".."
                && seg.chars().all(|c| c.is_ascii_alphanumeric() || "-._~".contains(c))
        });
        if !path_ok {
            return Err(format!(
                "base_url `{raw}`: its path may hold only letters, digits and -._~ segments (no query, fragment or empty segment)"
            ));
        }
        Ok(BaseUrl {
            origin: raw[..raw.len() - rest.len() + host.len()].to_string(),
            path: path.into(),
        })
    }

    /// `{origin}{path}`: what every link starts with.
    pub fn prefix(&self) -> String {
        format!("{}{}", self.origin, self.path)
    }
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
    pub base: BaseUrl,
    pub resource: String,
    pub languages: Vec<String>,
    pub default_language: usize,
    pub page_sizes: Vec<u64>,
    pub default_page_size: u64,
    pub sort: Vec<SortKey>,
    pub fields: Vec<String>,
    pub envelope: Envelope,
    pub url_style: UrlStyle,
    pub schema: BTreeMap<String, FieldSpec>,
    pub fallback: Fallback,
    pub cache_control: String,
    pub precompress: Vec<crate::compress::Codec>,
    pub hosting: HostingConfig,
    pub deploy: DeployConfig,
    /// Digest of the config file's bytes (set by `site::project`): a build records it, and
    /// `folio deploy` refuses an output built from another config.
    pub config_digest: String,
    /// Settings accepted but not built yet; `build` prints them as warnings.
    pub warnings: Vec<String>,
}

const HOST_TARGETS: &[&str] =
    &["nginx", "apache", "caddy", "lighttpd", "cloudfront", "netlify", "vercel", "cloudflare"];

/// True for a lowercase BCP 47-shaped tag that is also a safe path segment (`en`, `pt-br`,
/// `zh-hant`).
fn is_language_tag(tag: &str) -> bool {
    let mut parts = tag.split('-');
    let primary = parts.next().unwrap_or("");
    (2..=3).contains(&primary.len())
        && primary.bytes().all(|b| b.is_ascii_lowercase())
        && parts.all(|p| {
            (1..=8).contains(&p.len())
                && p.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// True for a name usable as one URL path segment and file name.
fn is_safe_segment(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
        && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// Joins `path` onto `base` and removes `.` and `..` lexically, then resolves symlinks in
/// the longest prefix that exists, so folders can be compared before they exist.
pub fn normalize(base: &Path, path: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for comp in base.join(path).components() {
        match comp {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other),
        }
    }
    let mut existing = out.as_path();
    let mut rest = Vec::new();
    while !existing.exists() {
        match (existing.parent(), existing.file_name()) {
            (Some(parent), Some(name)) => {
                rest.push(name.to_owned());
                existing = parent;
            }
            _ => return out,
        }
    }
    let mut real = existing.canonicalize().unwrap_or_else(|_| existing.to_path_buf());
    real.extend(rest.iter().rev());
    real
}

impl Config {
    /// Checks every key and resolves paths: config paths against `root` (the folder of
    /// folio.toml), override paths against `cwd`. Returns every problem at once.
    pub fn validate(
        self,
        config_path: &Path,
        root: &Path,
        cwd: &Path,
        overrides: &Overrides,
    ) -> Result<Project, Vec<ConfigError>> {
        let mut errors = Vec::new();
        let warnings = Vec::new();
        let mut err =
            |msg: String| errors.push(ConfigError(format!("{}: {msg}", config_path.display())));
        let l = &self.listing;

        let base_raw = overrides.base_url.clone().unwrap_or_else(|| self.base_url.clone());
        let base = BaseUrl::parse(&base_raw).unwrap_or_else(|e| {
            err(e);
            BaseUrl::default()
        });

        if l.languages.is_empty() {
            err("listing.languages must name at least one language".into());
        }
        for (i, lang) in l.languages.iter().enumerate() {
            if !is_language_tag(lang) {
                err(format!(
                    "listing.languages: `{lang}` is not a lowercase BCP 47 tag like `en` or `pt-br`"
                ));
            }
            if l.languages[..i].contains(lang) {
                err(format!("listing.languages: `{lang}` is listed twice"));
            }
            if lang == "errors" || *lang == l.resource {
                err(format!(
                    "listing.languages: `{lang}` would share a folder with the {}",
                    if lang == "errors" { "error documents" } else { "resource" }
                ));
            }
        }
        let default_language =
            l.languages.iter().position(|x| *x == l.default_language).unwrap_or_else(|| {
                err(format!(
                    "listing.default_language `{}` is not one of listing.languages ({})",
                    l.default_language,
                    l.languages.join(", ")
                ));
                0
            });
        if !is_safe_segment(&l.resource) {
            err(format!(
                "listing.resource `{}` must be a lowercase path segment (letters, digits, - and _)",
                l.resource
            ));
        } else if l.resource == "errors" {
            err("listing.resource `errors` would share a folder with the error documents".into());
        }
        if l.page_sizes.is_empty() {
            err("listing.page_sizes must name at least one size".into());
        }
        for (i, size) in l.page_sizes.iter().enumerate() {
            if *size == 0 || *size > 100_000 {
                err(format!("listing.page_sizes: {size} must be between 1 and 100000"));
            }
            if l.page_sizes[..i].contains(size) {
                err(format!("listing.page_sizes: {size} is listed twice"));
            }
        }
        if !l.page_sizes.contains(&l.default_page_size) {
            err(format!(
                "listing.default_page_size {} is not one of listing.page_sizes",
                l.default_page_size
            ));
        }
        let mut sort = Vec::new();
        for key in &l.sort {
            let (field, descending) = match key.strip_prefix('-') {
                Some(f) => (f, true),
                None => (key.as_str(), false),
            };
            if field.is_empty() || field.split('.').any(str::is_empty) {
                err(format!("listing.sort: `{key}` is not a field name"));
            }
            sort.push(SortKey { field: field.to_string(), descending });
        }
        for f in &l.fields {
            if f.is_empty() {
                err("listing.fields: an empty field name".into());
            }
        }
        let envelope = match l.envelope.as_str() {
            "standard" => Envelope::Standard,
            "laravel" => Envelope::Laravel,
            "laravel-resource" => Envelope::LaravelResource,
            other => match other.strip_prefix("template:") {
                Some(name)
                    if !name.is_empty()
                        && name
                            .bytes()
                            .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_') =>
                {
                    Envelope::Template(name.to_string())
                }
                _ => {
                    err(format!(
                        "listing.envelope `{other}` must be standard, laravel, laravel-resource or template:NAME"
                    ));
                    Envelope::Standard
                }
            },
        };
        for (name, spec) in &self.fields {
            if name.is_empty() || name.split('.').any(str::is_empty) {
                err(format!("fields: `{name}` is not a field name"));
            }
            if spec.localized && name.contains('.') {
                err(format!("fields.\"{name}\": a nested field cannot be localized"));
            }
        }
        if self.output.cache_control.chars().any(char::is_control) {
            err("output.cache_control must be one line".into());
        }
        let mut precompress = Vec::new();
        for p in &self.output.precompress {
            match crate::compress::Codec::parse(p) {
                Some(c) if !precompress.contains(&c) => precompress.push(c),
                Some(_) => err(format!("output.precompress: `{p}` is listed twice")),
                None => err(format!("output.precompress: `{p}` must be gzip or br")),
            }
        }
        for t in &self.hosting.targets {
            if !HOST_TARGETS.contains(&t.as_str()) {
                err(format!("hosting.targets: `{t}` must be one of {}", HOST_TARGETS.join(", ")));
            }
        }
        let has = |t: &str| self.hosting.targets.iter().any(|x| x == t);
        if has("netlify") && has("cloudflare") {
            err("hosting.targets: netlify and cloudflare both read output/_redirects and output/_headers; one output folder can serve only one of them".into());
        }
        if self.deploy.concurrency == 0 || self.deploy.concurrency > 1024 {
            err(format!(
                "deploy.concurrency {} must be between 1 and 1024",
                self.deploy.concurrency
            ));
        }
        if !self.deploy.url.is_empty()
            && let Err(e) = crate::deploy::store::Target::parse(&self.deploy.url)
        {
            err(format!("deploy.url: {e}"));
        }
        let endpoint = &self.deploy.endpoint;
        let http = endpoint.starts_with("https://") || endpoint.starts_with("http://");
        if !endpoint.is_empty() && !http {
            err(format!(
                "deploy.endpoint `{}` must start with https:// or http://",
                self.deploy.endpoint
            ));
        }
        if self.hosting.listen.parse::<std::net::SocketAddr>().is_err() {
            err(format!(
                "hosting.listen `{}` must be an address like 127.0.0.1:8080",
                self.hosting.listen
            ));
        }

        let pick = |over: &Option<PathBuf>, own: &Path| match over {
            Some(p) => normalize(cwd, p),
            None => normalize(root, own),
        };
        let root_real = normalize(root, Path::new("."));
        let data_dir = pick(&overrides.data_dir, &self.data_dir);
        let output_dir = pick(&overrides.output_dir, &self.output_dir);
        let templates_dir = normalize(root, &self.templates_dir);
        let hosting_dir = normalize(root, &self.hosting_dir);
        let shown = |p: &Path| crate::diag::display_path(p).display().to_string();
        let out = shown(&output_dir);
        if output_dir == root_real {
            err(format!(
                "output_dir `{out}` is the project folder; folio needs a folder of its own"
            ));
        } else if root_real.starts_with(&output_dir) {
            err(format!(
                "output_dir `{out}` contains the project folder; folio needs a folder of its own"
            ));
        }
        if output_dir == data_dir {
            err(format!("output_dir `{out}` is the data folder"));
        } else if output_dir.starts_with(&data_dir) {
            err(format!("output_dir `{out}` is inside the data folder `{}`", shown(&data_dir)));
        } else if data_dir.starts_with(&output_dir) {
            err(format!("output_dir `{out}` contains the data folder `{}`", shown(&data_dir)));
        }
        if hosting_dir.starts_with(&output_dir) {
            err(format!(
                "hosting_dir `{}` is inside output_dir `{out}`; host configs must not be published",
                shown(&hosting_dir)
            ));
        } else if hosting_dir == root_real
            || root_real.starts_with(&hosting_dir)
            || hosting_dir == data_dir
        {
            err(format!("hosting_dir `{}` must be a folder of its own", shown(&hosting_dir)));
        }

        if !errors.is_empty() {
            return Err(errors);
        }
        let l = self.listing;
        Ok(Project {
            config_path: config_path.to_path_buf(),
            root: root_real,
            data_dir,
            output_dir,
            templates_dir,
            hosting_dir,
            base,
            resource: l.resource,
            languages: l.languages,
            default_language,
            page_sizes: l.page_sizes,
            default_page_size: l.default_page_size,
            sort,
            fields: l.fields,
            envelope,
            url_style: l.url_style,
            schema: self.fields,
            fallback: self.i18n.fallback,
            cache_control: self.output.cache_control,
            precompress,
            hosting: self.hosting,
            deploy: self.deploy,
            config_digest: String::new(),
            warnings,
        })
    }
}

/// A project from `toml` with its root at `/nonexistent/project`, for unit tests.
#[cfg(test)]
pub(crate) fn test_project(toml: &str) -> Project {
    let root = Path::new("/nonexistent/project");
    Config::from_str(toml, Path::new("folio.toml"))
        .expect("a test config parses")
        .validate(Path::new("folio.toml"), root, root, &Overrides::default())
        .expect("a test config is valid")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn project(text: &str) -> Result<Project, Vec<String>> {
        let root = Path::new("/nonexistent/project");
        let cfg = Config::from_str(text, Path::new("folio.toml")).map_err(|e| vec![e.0])?;
        cfg.validate(Path::new("folio.toml"), root, root, &Overrides::default())
            .map_err(|v| v.into_iter().map(|e| e.0).collect())
    }

    #[test]
    fn empty_config_gets_the_spec_defaults() {
        let p = project("").unwrap();
        assert_eq!(p.languages, ["en"]);
        assert_eq!(p.page_sizes, [10, 20, 50, 100]);
        assert_eq!(p.default_page_size, 10);
        assert_eq!(p.resource, "attractions");
        assert_eq!(p.sort, [SortKey { field: "id".into(), descending: false }]);
        assert_eq!(p.output_dir, Path::new("/nonexistent/project/output"));
        assert_eq!(p.cache_control, "public, max-age=300");
        assert_eq!(p.fallback, Fallback::Default);
    }

    #[test]
    fn unknown_key_names_the_key_file_and_line() {
        let err = project("base_url = \"\"\n[listing]\nlanguage = [\"en\"]\n").unwrap_err();
        assert_eq!(err.len(), 1);
        assert!(err[0].starts_with("folio.toml:3: unknown field `language`"), "{}", err[0]);
    }

    #[test]
    fn reports_every_listing_problem_at_once() {
        let err = project(
            "[listing]\nlanguages = [\"en\", \"EN\", \"errors\"]\ndefault_language = \"de\"\npage_sizes = [10, 0, 10]\ndefault_page_size = 5\nresource = \"a/b\"\n",
        )
        .unwrap_err();
        let all = err.join("\n");
        for needle in [
            "`EN` is not a lowercase BCP 47 tag",
            "`errors` would share a folder",
            "default_language `de` is not one of",
            "0 must be between 1 and 100000",
            "10 is listed twice",
            "default_page_size 5 is not one of",
            "resource `a/b` must be a lowercase path segment",
        ] {
            assert!(all.contains(needle), "missing {needle:?} in:\n{all}");
        }
    }

    #[test]
    fn language_equal_to_resource_is_refused() {
        let err =
            project("[listing]\nlanguages = [\"en\", \"ab\"]\nresource = \"ab\"\n").unwrap_err();
        assert!(err[0].contains("`ab` would share a folder with the resource"), "{err:?}");
    }

    #[test]
    fn refuses_output_folders_that_would_swallow_the_project_or_data() {
        for (text, needle) in [
            ("output_dir = \".\"", "is the project folder"),
            ("output_dir = \"..\"", "contains the project folder"),
            ("output_dir = \"data\"", "is the data folder"),
            ("output_dir = \"data/out\"", "is inside the data folder"),
            ("data_dir = \"site/data\"\noutput_dir = \"site\"", "contains the data folder"),
            ("hosting_dir = \"output/hosting\"", "hosting_dir"),
        ] {
            let err = project(text).unwrap_err();
            assert!(err.iter().any(|e| e.contains(needle)), "{text}: {err:?}");
        }
    }

    #[test]
    fn base_url_keeps_its_path_and_drops_a_trailing_slash() {
        let b = BaseUrl::parse("https://example.org/travel/").unwrap();
        assert_eq!(b, BaseUrl { origin: "https://example.org".into(), path: "/travel".into() });
        assert_eq!(b.prefix(), "https://example.org/travel");
        assert!(BaseUrl::parse("ftp://x").is_err());
        assert!(BaseUrl::parse("https://x/a?b").is_err());
        assert!(BaseUrl::parse("https://x/a//b").is_err());
        assert_eq!(BaseUrl::parse("").unwrap(), BaseUrl::default());
    }

    #[test]
    fn deploy_settings_have_defaults_and_are_checked() {
        let p = project("").unwrap();
        assert_eq!(p.deploy, DeployConfig::default());
        assert_eq!(
            (p.deploy.max_deletes, p.deploy.concurrency, p.deploy.siblings),
            (256, 32, false)
        );
        let p = project("[deploy]\nurl = \"s3://b/site\"\nendpoint = \"http://127.0.0.1:9000\"\nregion = \"auto\"\nmax_deletes = 5\nconcurrency = 4\nsiblings = true").unwrap();
        assert_eq!(p.deploy.url, "s3://b/site");
        let err =
            project("[deploy]\nurl = \"ftp://x/y\"\nendpoint = \"minio:9000\"\nconcurrency = 0")
                .unwrap_err();
        let all = err.join("\n");
        for needle in
            ["deploy.url: `ftp://x/y`", "deploy.endpoint `minio:9000`", "deploy.concurrency 0"]
        {
            assert!(all.contains(needle), "missing {needle:?} in:\n{all}");
        }
        assert!(project("[deploy]\naccess_key = \"x\"").is_err(), "credentials have no key here");
    }

    #[test]
    fn netlify_and_cloudflare_together_are_refused_with_the_reason() {
        let err = project("[hosting]\ntargets = [\"netlify\", \"cloudflare\"]").unwrap_err();
        assert!(err[0].contains("both read output/_redirects"), "{err:?}");
    }

    #[test]
    fn envelopes_and_codecs_are_parsed_without_warnings() {
        let p =
            project("[listing]\nenvelope = \"laravel\"\n[output]\nprecompress = [\"br\"]").unwrap();
        assert_eq!(p.envelope, Envelope::Laravel);
        assert!(p.warnings.is_empty(), "{:?}", p.warnings);
        assert_eq!(p.precompress, [crate::compress::Codec::Brotli]);
        let p = project("[listing]\nenvelope = \"laravel-resource\"").unwrap();
        assert_eq!(p.envelope, Envelope::LaravelResource);
        let p = project("[listing]\nenvelope = \"template:my_api-2\"").unwrap();
        assert_eq!(p.envelope, Envelope::Template("my_api-2".into()));
        assert!(project("[listing]\nenvelope = \"template:../x\"").is_err());
        assert!(project("[listing]\nenvelope = \"template:\"").is_err());
        assert!(project("[listing]\nenvelope = \"xml\"").is_err());
        assert!(project("[output]\nprecompress = [\"zstd\"]").is_err());
    }
}
