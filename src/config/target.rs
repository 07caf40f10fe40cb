//! The deploy URL (`[deploy] url`, `--to`): `s3://bucket/prefix`, `gs://bucket/prefix`,
//! `az://container/prefix` or `file:///dir`, parsed and checked here, where both the
//! config's validation and `folio deploy` reach it; the client built for it is
//! `deploy/store.rs`'s.

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
        if !raw.contains("://") && !raw.is_empty() {
            // A folder given as a path: say how to name it.
            let path = std::path::Path::new(raw);
            let absolute = std::env::current_dir().map(|cwd| cwd.join(path)).unwrap_or(path.into());
            return Err(format!(
                "`{raw}` is a path, not a URL: to publish to that folder, write `file://{}`",
                absolute.display()
            ));
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
        if !url.username().is_empty() || url.password().is_some() || url.port().is_some() {
            return Err(format!(
                "`{raw}`: a user or port has no place in it (credentials come from the environment, a store's address from --endpoint)"
            ));
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
        let plain = |c: char| c.is_ascii_alphanumeric() || "-._".contains(c);
        if bucket.len() > 255 || !bucket.chars().all(plain) {
            return Err(format!(
                "`{raw}`: `{bucket}` is not a bucket name (letters, digits, `-`, `.` and `_`)"
            ));
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

    /// `key` relative to the prefix, or `None` when it lies elsewhere.
    pub fn rel<'k>(&self, key: &'k str) -> Option<&'k str> {
        if self.prefix.is_empty() {
            Some(key)
        } else {
            key.strip_prefix(self.prefix.as_str())?.strip_prefix('/')
        }
    }
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
        assert_eq!(t.rel("site/v1/api/index.json"), Some("api/index.json"));
        assert_eq!(t.rel("site/v10/x"), None);
        let t = Target::parse("gs://b").unwrap();
        assert_eq!((t.scheme, t.prefix.as_str()), (Scheme::Gcs, ""));
        let t = Target::parse("file:///srv/www").unwrap();
        assert_eq!((t.scheme, t.bucket.as_str()), (Scheme::File, "/srv/www"));
        for bad in [
            "https://x/y",
            "s3:///nobucket",
            "s3://b/../x",
            "s3://b/a//c",
            "s3://b/p?x=1",
            "nope",
            "s3://b%zz/p",
            "s3://b@c/p",
            "s3://b:9000/p",
        ] {
            assert!(Target::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn a_path_is_answered_with_its_file_url() {
        let e = Target::parse("/srv/www").unwrap_err();
        assert_eq!(
            e,
            "`/srv/www` is a path, not a URL: to publish to that folder, write `file:///srv/www`"
        );
        let e = Target::parse("public").unwrap_err();
        let cwd = std::env::current_dir().unwrap();
        assert!(e.ends_with(&format!("write `file://{}`", cwd.join("public").display())), "{e}");
    }
}
