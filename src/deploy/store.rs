//! The `object_store` client `folio deploy` publishes through, built for a target URL
//! ([`Target`], parsed in `config/target.rs`), with its endpoint and region checked, and
//! every request counted. Credentials come only from the environment and the stores'
//! provider chains (`AWS_*` variables, web identity, ECS and EC2 metadata for S3;
//! `GOOGLE_*` for GCS; `AZURE_*` for Azure), never from `folio.toml`.

use std::sync::Arc;

use anyhow::Context;
use object_store::path::Path as Key;
use std::sync::atomic::{AtomicU64, Ordering};

use http::{Method, Uri};

use object_store::client::{
    HttpClient, HttpConnector, HttpError, HttpRequest, HttpResponse, HttpService, ReqwestConnector,
};
use object_store::{ClientOptions, ObjectStore, RetryConfig};

pub use crate::config::target::{Scheme, Target};
use crate::error::Failure;

/// The store's side of a deploy URL: keys below its prefix.
impl Target {
    /// The key of `rel` (a path below `output/`), taken literally: the prefix's and the
    /// path's characters as they are (`Key::from` would percent-encode `%` and others, so
    /// that `a%20b` would land as `a%2520b`).
    pub fn key(&self, rel: &str) -> Key {
        let full =
            if self.prefix.is_empty() { rel.to_string() } else { format!("{}/{rel}", self.prefix) };
        // The prefix was checked by `Target::parse`, `rel` is a clean path folio derived.
        Key::parse(&full).unwrap_or_else(|_| Key::from(full.as_str()))
    }

    /// The prefix as a key, for listing.
    pub fn root(&self) -> Option<Key> {
        (!self.prefix.is_empty()).then(|| self.key_of_prefix())
    }

    fn key_of_prefix(&self) -> Key {
        Key::parse(&self.prefix).unwrap_or_else(|_| Key::from(self.prefix.as_str()))
    }
}

/// Requests sent to a store, by kind, counted as they go out (retries and every page of a
/// listing included).
#[derive(Debug, Default)]
pub struct Requests {
    list: AtomicU64,
    head: AtomicU64,
    get: AtomicU64,
    put: AtomicU64,
    delete: AtomicU64,
}

/// [`Requests`] read at one moment.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Counts {
    pub list: u64,
    pub head: u64,
    pub get: u64,
    pub put: u64,
    pub delete: u64,
}

impl std::fmt::Display for Counts {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} list, {} head, {} get, {} put, {} delete",
            self.list, self.head, self.get, self.put, self.delete
        )
    }
}

impl Requests {
    /// Counts one request: a listing is a GET that asks for one (S3's `list-type`, Azure's
    /// `comp=list`, GCS's object list); a batch delete is a POST that asks for one.
    fn count(&self, method: &Method, uri: &Uri) {
        let query = uri.query().unwrap_or("");
        let has =
            |word: &str| query.split('&').any(|p| p == word || p.starts_with(&format!("{word}=")));
        let counter = match *method {
            Method::HEAD => &self.head,
            Method::GET
                if has("list-type")
                    || query.contains("comp=list")
                    || uri.path().ends_with("/o") =>
            {
                &self.list
            }
            Method::GET => &self.get,
            Method::DELETE => &self.delete,
            Method::POST if has("delete") || query.contains("comp=batch") => &self.delete,
            _ => &self.put,
        };
        counter.fetch_add(1, Ordering::Relaxed);
    }

    pub fn counts(&self) -> Counts {
        let n = |c: &AtomicU64| c.load(Ordering::Relaxed);
        Counts {
            list: n(&self.list),
            head: n(&self.head),
            get: n(&self.get),
            put: n(&self.put),
            delete: n(&self.delete),
        }
    }
}

/// object_store's own HTTP client, with every request counted.
#[derive(Debug)]
struct Counted {
    inner: HttpClient,
    requests: Arc<Requests>,
}

#[async_trait::async_trait]
impl HttpService for Counted {
    async fn call(&self, req: HttpRequest) -> Result<HttpResponse, HttpError> {
        self.requests.count(req.method(), req.uri());
        self.inner.execute(req).await
    }
}

#[derive(Debug)]
struct CountedConnector(Arc<Requests>);

impl HttpConnector for CountedConnector {
    fn connect(&self, options: &ClientOptions) -> object_store::Result<HttpClient> {
        let inner = ReqwestConnector::default().connect(options)?;
        Ok(HttpClient::new(Counted { inner, requests: self.0.clone() }))
    }
}

/// A connected store.
#[derive(Clone)]
pub struct Store {
    pub inner: Arc<dyn ObjectStore>,
    pub target: Target,
    /// Whether objects keep Content-Type, Cache-Control, Content-Encoding and metadata
    /// (a folder keeps only bytes).
    pub keeps_headers: bool,
    /// Whether a write can be made on a condition (an ETag, or that nothing is there): a
    /// folder store's cannot, and its own lock keeps two deploys apart instead.
    pub conditional: bool,
    /// The folder the store is, when it is one on this machine (`file://`): locked with
    /// the kernel's lock rather than a lease object, and refused when it holds a symlink
    /// (`guard.rs`).
    pub folder: Option<std::path::PathBuf>,
    /// What was sent (none for a folder).
    pub requests: Option<Arc<Requests>>,
    /// When the environment holds no credentials for the store: which variables folio
    /// looked for (said with any failure, which is then most likely why).
    pub no_credentials: Option<String>,
    /// What the deploy lease measures time with (`clock.rs`).
    pub clock: Arc<dyn super::clock::Clock>,
}

impl Store {
    /// A failure of the store, naming what folio was doing, the object, and the store's own
    /// words (exit 2).
    pub(crate) fn failure(&self, what: &str, rel: &str, e: object_store::Error) -> Failure {
        let on = self.target.display();
        let doing =
            if rel.is_empty() { format!("{what} {on}") } else { format!("{what} `{rel}` on {on}") };
        let hint = self.no_credentials.as_deref().map(|h| format!("; {h}")).unwrap_or_default();
        Failure::Other(anyhow::anyhow!("{doing}: {}{hint}", super::failure::store_says(&e)))
    }
}

/// The credentials a store reads from the environment, in the words of a message; `None`
/// when some are set.
pub(crate) fn missing_credentials(scheme: Scheme) -> Option<String> {
    let (looked, ways): (&[&str], &str) = match scheme {
        Scheme::S3 => (
            &[
                "AWS_ACCESS_KEY_ID",
                "AWS_WEB_IDENTITY_TOKEN_FILE",
                "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
                "AWS_CONTAINER_CREDENTIALS_FULL_URI",
            ],
            "AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN), AWS_WEB_IDENTITY_TOKEN_FILE with AWS_ROLE_ARN, or AWS_CONTAINER_CREDENTIALS_RELATIVE_URI or _FULL_URI, then asked the instance metadata service; ~/.aws files are not read",
        ),
        Scheme::Gcs => (
            &[
                "GOOGLE_SERVICE_ACCOUNT",
                "GOOGLE_SERVICE_ACCOUNT_PATH",
                "GOOGLE_SERVICE_ACCOUNT_KEY",
                "GOOGLE_APPLICATION_CREDENTIALS",
            ],
            "GOOGLE_SERVICE_ACCOUNT (a key file), GOOGLE_SERVICE_ACCOUNT_KEY or GOOGLE_APPLICATION_CREDENTIALS, then asked the instance metadata service",
        ),
        Scheme::Azure => (
            &[
                "AZURE_STORAGE_ACCOUNT_KEY",
                "AZURE_STORAGE_ACCESS_KEY",
                "AZURE_STORAGE_SAS_KEY",
                "AZURE_STORAGE_TOKEN",
                "AZURE_CLIENT_ID",
                "AZURE_STORAGE_USE_EMULATOR",
            ],
            "AZURE_STORAGE_ACCOUNT_NAME with AZURE_STORAGE_ACCOUNT_KEY, AZURE_STORAGE_SAS_KEY or AZURE_STORAGE_TOKEN, AZURE_CLIENT_ID for a managed identity, or AZURE_STORAGE_USE_EMULATOR",
        ),
        Scheme::File => return None,
    };
    if looked.iter().any(|k| env(k).is_some()) {
        return None;
    }
    Some(format!("no credentials were found in the environment: folio looked for {ways}"))
}

/// Credentials that go in pairs, one set without the other: which is missing, by its
/// variable. `None` when every pair is whole or absent.
fn half_a_pair(scheme: Scheme) -> Option<String> {
    let pairs: &[(&str, &str)] = match scheme {
        Scheme::S3 => &[
            ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY"),
            ("AWS_SECRET_ACCESS_KEY", "AWS_ACCESS_KEY_ID"),
            ("AWS_SESSION_TOKEN", "AWS_ACCESS_KEY_ID"),
            ("AWS_WEB_IDENTITY_TOKEN_FILE", "AWS_ROLE_ARN"),
        ],
        Scheme::Azure => &[
            ("AZURE_STORAGE_ACCOUNT_KEY", "AZURE_STORAGE_ACCOUNT_NAME"),
            ("AZURE_STORAGE_ACCESS_KEY", "AZURE_STORAGE_ACCOUNT_NAME"),
            ("AZURE_STORAGE_SAS_KEY", "AZURE_STORAGE_ACCOUNT_NAME"),
        ],
        Scheme::Gcs | Scheme::File => &[],
    };
    let missing: Vec<String> = pairs
        .iter()
        .filter(|(set, needs)| env(set).is_some() && env(needs).is_none())
        .map(|(set, needs)| format!("{set} is set but {needs} is not (they go together)"))
        .collect();
    (!missing.is_empty()).then(|| missing.join("; "))
}

/// The AWS credentials a signature is made from.
pub(crate) const AWS_SECRETS: [&str; 3] =
    ["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"];

/// Of `vars`, one set to a value with a control character or a space in it (a newline
/// pasted with a key): named, never printed. A request signed with it would fail deep
/// inside the client (the S3 signer panics on it).
pub(crate) fn garbled_secret(vars: &[&str]) -> Option<String> {
    let garbled = |v: &String| v.chars().any(|c| c.is_control() || c.is_whitespace());
    vars.iter().find(|var| env(var).is_some_and(|v| garbled(&v))).map(|var| {
        format!("{var} holds a space or a control character (a newline pasted with it?): set it to the value alone")
    })
}

/// Retries: four, as the AWS SDKs' standard mode makes three attempts; a failure is then
/// reported rather than waited out (object_store's default waits up to three minutes).
fn retry() -> RetryConfig {
    RetryConfig {
        max_retries: 4,
        retry_timeout: std::time::Duration::from_secs(30),
        ..RetryConfig::default()
    }
}

/// A value folio reads from the environment: a variable set to `""` counts as unset.
fn env(key: &str) -> Option<String> {
    std::env::var(key).ok().filter(|v| !v.is_empty())
}

/// The S3 endpoint and region a deploy uses, resolved and checked before any client is
/// built (a malformed one would fail deep inside the S3 client).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct S3Settings {
    /// `None`: AWS S3 itself.
    pub endpoint: Option<String>,
    pub region: String,
}

/// Variables naming an S3 endpoint, in the order the AWS tools prefer them.
const ENDPOINT_VARS: [&str; 3] = ["AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL", "AWS_ENDPOINT"];
/// Variables naming the region, in the same order.
const REGION_VARS: [&str; 2] = ["AWS_REGION", "AWS_DEFAULT_REGION"];

impl S3Settings {
    /// `endpoint` and `region` as `[deploy]` or the command line gave them (checked by
    /// config), else the environment's (checked here by the same rules), else AWS S3 in
    /// us-east-1. `Err` names the variable, what is wrong and what is expected.
    pub fn resolve(endpoint: Option<&str>, region: Option<&str>) -> Result<S3Settings, String> {
        use crate::config::deploy;
        let from_env = |vars: &[&'static str]| vars.iter().find_map(|k| env(k).map(|v| (v, *k)));
        let endpoint = match endpoint {
            Some(e) => Some(e.to_string()),
            None => match from_env(&ENDPOINT_VARS) {
                Some((raw, var)) => Some(deploy::endpoint(&raw).map_err(|why| {
                    format!(
                        "the endpoint `{}` (from {var}) {why}: {}",
                        crate::diag::cut(&raw),
                        deploy::ENDPOINT_EXPECTED
                    )
                })?),
                None => None,
            },
        };
        let region = match region {
            Some(r) => r.to_string(),
            None => match from_env(&REGION_VARS) {
                Some((raw, var)) => deploy::region(&raw).map_err(|why| format!("{var}: {why}"))?,
                None => "us-east-1".to_string(),
            },
        };
        Ok(S3Settings { endpoint, region })
    }
}

/// The S3 client's settings from the environment (credentials, web identity, container
/// roles, ...), skipping variables set to `""` and those folio resolves itself
/// (endpoint and region: [`S3Settings`]).
pub(crate) fn s3_from_env() -> object_store::aws::AmazonS3Builder {
    use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
    let mut b = AmazonS3Builder::new();
    for (key, value) in std::env::vars_os() {
        let (Some(key), Some(value)) = (key.to_str(), value.to_str()) else { continue };
        if !key.starts_with("AWS_")
            || value.is_empty()
            || ENDPOINT_VARS.contains(&key)
            || REGION_VARS.contains(&key)
        {
            continue;
        }
        if let Ok(config_key) = key.to_ascii_lowercase().parse::<AmazonS3ConfigKey>() {
            b = b.with_config(config_key, value);
        }
    }
    b
}

/// Builds the client for `target`. `endpoint` is an S3-compatible store's URL (`http://`
/// allowed without more settings), `region` the S3 region (both `None`: the
/// environment's; [`S3Settings::resolve`]). A malformed endpoint, region or setting is
/// refused (exit 1) before any request.
pub fn connect(
    target: &Target,
    endpoint: Option<&str>,
    region: Option<&str>,
) -> Result<Store, Failure> {
    // reqwest's rustls needs one crypto provider for the process; ring is the one built.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let what = || format!("setting up {}", target.display());
    // Half a pair of credentials is named before the client says "Missing AccessKeyId".
    if let Some(half) = half_a_pair(target.scheme) {
        return Err(Failure::Refused(format!("{}: {half}", what()).into()));
    }
    if let Some(garbled) =
        garbled_secret(if target.scheme == Scheme::S3 { &AWS_SECRETS } else { &[] })
    {
        return Err(Failure::Refused(format!("{}: {garbled}", what()).into()));
    }
    let refused = |e: object_store::Error| {
        let hint = missing_credentials(target.scheme).map(|h| format!("; {h}")).unwrap_or_default();
        Failure::Refused(format!("{}: {}{hint}", what(), super::failure::store_says(&e)).into())
    };
    let requests = Arc::new(Requests::default());
    let counted = || CountedConnector(requests.clone());
    let (inner, keeps_headers): (Arc<dyn ObjectStore>, bool) = match target.scheme {
        Scheme::S3 => {
            let settings =
                S3Settings::resolve(endpoint, region).map_err(|e| Failure::Refused(e.into()))?;
            let mut b = s3_from_env()
                .with_bucket_name(&target.bucket)
                .with_region(&settings.region)
                .with_http_connector(counted())
                .with_retry(retry());
            if let Some(endpoint) = &settings.endpoint {
                b = b.with_endpoint(endpoint).with_allow_http(endpoint.starts_with("http://"));
            }
            (Arc::new(b.build().map_err(refused)?), true)
        }
        Scheme::Gcs => {
            let b = object_store::gcp::GoogleCloudStorageBuilder::from_env()
                .with_bucket_name(&target.bucket)
                .with_http_connector(counted())
                .with_retry(retry());
            (Arc::new(b.build().map_err(refused)?), true)
        }
        Scheme::Azure => {
            let b = object_store::azure::MicrosoftAzureBuilder::from_env()
                .with_container_name(&target.bucket)
                .with_http_connector(counted())
                .with_retry(retry());
            (Arc::new(b.build().map_err(refused)?), true)
        }
        Scheme::File => {
            std::fs::create_dir_all(&target.bucket)
                .with_context(|| format!("creating `{}`", target.bucket))?;
            #[cfg(unix)]
            let folder = super::folder::Folder::new(&target.bucket);
            #[cfg(not(unix))]
            let folder = object_store::local::LocalFileSystem::new_with_prefix(&target.bucket)
                .with_context(what)?
                .with_automatic_cleanup(true);
            (Arc::new(folder), false)
        }
    };
    let folder = (target.scheme == Scheme::File).then(|| std::path::PathBuf::from(&target.bucket));
    let requests = folder.is_none().then_some(requests);
    let no_credentials = missing_credentials(target.scheme);
    let clock = Arc::new(super::clock::System::new());
    let conditional = folder.is_none();
    let target = target.clone();
    Ok(Store { inner, target, keeps_headers, conditional, folder, requests, no_credentials, clock })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_are_below_the_prefix() {
        let t = Target::parse("s3://my-bucket/site/v1/").unwrap();
        assert_eq!(t.key("api/index.json").as_ref(), "site/v1/api/index.json");
        assert_eq!(t.root().unwrap().as_ref(), "site/v1");
        let t = Target::parse("gs://b").unwrap();
        assert_eq!(t.key("a.json").as_ref(), "a.json");
        assert!(t.root().is_none());
    }

    #[test]
    fn keys_are_the_decoded_path_as_it_is() {
        let t = Target::parse("s3://bkt/my%20site/%C3%BCn%C3%AF").unwrap();
        assert_eq!(t.key("api/index.json").as_ref(), "my site/ünï/api/index.json");
        let t = Target::parse("s3://bkt/100%25/x").unwrap();
        assert_eq!(t.key("a.json").as_ref(), "100%/x/a.json");
        assert_eq!(t.rel("100%/x/a.json"), Some("a.json"));
    }

    #[test]
    fn what_config_checked_is_used_as_it_is() {
        let s = S3Settings::resolve(Some("http://127.0.0.1:9000"), Some("auto")).unwrap();
        assert_eq!(
            (s.endpoint.as_deref(), s.region.as_str()),
            (Some("http://127.0.0.1:9000"), "auto")
        );
    }
}
