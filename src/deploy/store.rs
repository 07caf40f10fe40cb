//! Where `folio deploy` publishes: the target URL (`s3://bucket/prefix`,
//! `gs://bucket/prefix`, `az://container/prefix`, `file:///dir`) and the `object_store`
//! client built for it. Credentials come only from the environment and the stores'
//! provider chains (`AWS_*` variables, web identity, ECS and EC2 metadata for S3;
//! `GOOGLE_*` for GCS; `AZURE_*` for Azure), never from `folio.toml`.

use std::sync::Arc;

use anyhow::Context;
use object_store::path::Path as Key;
use object_store::{ObjectStore, RetryConfig};

/// A parsed deploy URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Target {
    pub scheme: Scheme,
    /// The bucket or container; for `file://`, the folder.
    pub bucket: String,
    /// The key prefix below the bucket, without leading or trailing `/` (may be empty).
    pub prefix: String,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scheme {
    S3,
    Gcs,
    Azure,
    File,
}

impl Target {
    pub fn parse(raw: &str) -> Result<Target, String> {
        // The URL parser resolves `.` and `..`; a deploy prefix must not need it.
        let path = raw
            .split_once("://")
            .map_or("", |(_, rest)| rest.split_once('/').map_or("", |(_, p)| p));
        if path.split('/').any(|seg| seg == "." || seg == "..") {
            return Err(format!("`{raw}`: its path must be plain names separated by `/`"));
        }
        let url = url::Url::parse(raw).map_err(|e| format!("`{raw}` is not a URL ({e})"))?;
        let scheme = match url.scheme() {
            "s3" => Scheme::S3,
            "gs" => Scheme::Gcs,
            "az" => Scheme::Azure,
            "file" => Scheme::File,
            other => {
                return Err(format!(
                    "`{raw}`: the scheme `{other}` is not one of s3://, gs://, az://, file://"
                ));
            }
        };
        if url.query().is_some() || url.fragment().is_some() {
            return Err(format!("`{raw}` has a query or fragment"));
        }
        if scheme == Scheme::File {
            let dir = url
                .to_file_path()
                .map_err(|()| format!("`{raw}` is not an absolute file:/// URL"))?;
            return Ok(Target {
                scheme,
                bucket: dir.to_string_lossy().into_owned(),
                prefix: String::new(),
            });
        }
        let bucket = url.host_str().unwrap_or("").to_string();
        if bucket.is_empty() {
            return Err(format!("`{raw}` names no bucket"));
        }
        let prefix = url.path().trim_matches('/').to_string();
        if !prefix.is_empty() && !crate::output::paths::is_clean(&prefix) {
            return Err(format!("`{raw}`: its prefix must be plain names separated by `/`"));
        }
        Ok(Target { scheme, bucket, prefix })
    }

    /// The URL as messages show it.
    pub fn display(&self) -> String {
        match self.scheme {
            Scheme::File => format!("file://{}", self.bucket),
            scheme => {
                let s = match scheme {
                    Scheme::S3 => "s3",
                    Scheme::Gcs => "gs",
                    _ => "az",
                };
                format!("{s}://{}/{}", self.bucket, self.prefix)
            }
        }
    }

    /// The key of `rel` (a path below `output/`).
    pub fn key(&self, rel: &str) -> Key {
        if self.prefix.is_empty() {
            Key::from(rel)
        } else {
            Key::from(format!("{}/{rel}", self.prefix))
        }
    }

    /// The prefix as a key, for listing.
    pub fn root(&self) -> Option<Key> {
        (!self.prefix.is_empty()).then(|| Key::from(self.prefix.as_str()))
    }

    /// `key` relative to the prefix, or `None` when it lies elsewhere.
    pub fn rel<'k>(&self, key: &'k str) -> Option<&'k str> {
        if self.prefix.is_empty() {
            Some(key)
        } else {
            key.strip_prefix(self.prefix.as_str())?.strip_prefix('/')
        }
    }
}

/// A connected store.
pub struct Store {
    pub inner: Arc<dyn ObjectStore>,
    pub target: Target,
    /// Whether objects keep Content-Type, Cache-Control, Content-Encoding and metadata
    /// (a local folder keeps only bytes).
    pub keeps_headers: bool,
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

/// Builds the client for `target`. `endpoint` is an S3-compatible store's URL (`http://`
/// allowed without more settings), `region` the S3 region ("" = the environment's, else
/// us-east-1).
pub fn connect(target: &Target, endpoint: &str, region: &str) -> anyhow::Result<Store> {
    // reqwest's rustls needs one crypto provider for the process; ring is the one built.
    let _ = rustls::crypto::ring::default_provider().install_default();
    let what = || format!("setting up {}", target.display());
    let (inner, keeps_headers): (Arc<dyn ObjectStore>, bool) = match target.scheme {
        Scheme::S3 => {
            let mut b = object_store::aws::AmazonS3Builder::from_env()
                .with_bucket_name(&target.bucket)
                .with_retry(retry());
            if !endpoint.is_empty() {
                b = b.with_endpoint(endpoint).with_allow_http(endpoint.starts_with("http://"));
            }
            if !region.is_empty() {
                b = b.with_region(region);
            } else if std::env::var_os("AWS_REGION").is_none()
                && std::env::var_os("AWS_DEFAULT_REGION").is_none()
            {
                b = b.with_region("us-east-1");
            }
            (Arc::new(b.build().with_context(what)?), true)
        }
        Scheme::Gcs => {
            let b = object_store::gcp::GoogleCloudStorageBuilder::from_env()
                .with_bucket_name(&target.bucket)
                .with_retry(retry());
            (Arc::new(b.build().with_context(what)?), true)
        }
        Scheme::Azure => {
            let b = object_store::azure::MicrosoftAzureBuilder::from_env()
                .with_container_name(&target.bucket)
                .with_retry(retry());
            (Arc::new(b.build().with_context(what)?), true)
        }
        Scheme::File => {
            std::fs::create_dir_all(&target.bucket)
                .with_context(|| format!("creating `{}`", target.bucket))?;
            let fs = object_store::local::LocalFileSystem::new_with_prefix(&target.bucket)
                .with_context(what)?
                .with_automatic_cleanup(true);
            (Arc::new(fs), false)
        }
    };
    Ok(Store { inner, target: target.clone(), keeps_headers })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_give_bucket_and_prefix() {
        let t = Target::parse("s3://my-bucket/site/v1/").unwrap();
        assert_eq!(
            (t.scheme, t.bucket.as_str(), t.prefix.as_str()),
            (Scheme::S3, "my-bucket", "site/v1")
        );
        assert_eq!(t.key("api/index.json").as_ref(), "site/v1/api/index.json");
        assert_eq!(t.rel("site/v1/api/index.json"), Some("api/index.json"));
        assert_eq!(t.rel("site/v10/x"), None);
        let t = Target::parse("gs://b").unwrap();
        assert_eq!((t.scheme, t.prefix.as_str()), (Scheme::Gcs, ""));
        assert_eq!(t.key("a.json").as_ref(), "a.json");
        let t = Target::parse("file:///srv/www").unwrap();
        assert_eq!((t.scheme, t.bucket.as_str()), (Scheme::File, "/srv/www"));
        for bad in
            ["https://x/y", "s3:///nobucket", "s3://b/../x", "s3://b/a//c", "s3://b/p?x=1", "nope"]
        {
            assert!(Target::parse(bad).is_err(), "{bad}");
        }
    }
}
