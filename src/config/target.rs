//! The deploy URL (`[deploy] url`, `--to`): `s3://bucket/prefix`, `gs://bucket/prefix`,
//! `az://container/prefix` or `file:///dir`, parsed and checked here, where both the
//! config's validation and `folio deploy` reach it; the client built for it is
//! `deploy/store.rs`'s.
//!
//! Split by hand, decoded with `percent-encoding`: the path of a deploy URL is a key
//! prefix, taken literally or refused. The `url` crate (WHATWG) and object_store's scheme
//! parsing built on it resolve `..` and `%2e%2e`, drop tabs and newlines anywhere in the
//! text and re-encode the path, so `s3://b/site/%2e%2e/other` would quietly publish to
//! `other/`: the tests pin that difference.

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
    /// Parses a deploy URL. Its path is percent-decoded exactly once, segment by segment
    /// (`my%20site` is the prefix `my site`; `--to "s3://b/my site/ünï"`, as typed, is
    /// already decoded), and the decoded segments are taken literally as the keys'
    /// prefix: a segment that decodes to `.` or `..`, an empty one (`s3://b//t`), one with
    /// a control character or `/` (`%2F`) is refused, never resolved.
    pub fn parse(raw: &str) -> Result<Target, String> {
        let Some((scheme, rest)) = raw.split_once("://") else {
            if raw.is_empty() {
                return Err("`` is not a URL".into());
            }
            // A folder given as a path: say how to name it.
            let path = std::path::Path::new(raw);
            let absolute = std::env::current_dir().map(|cwd| cwd.join(path)).unwrap_or(path.into());
            return Err(format!(
                "`{raw}` is a path, not a URL: to publish to that folder, write `file://{}`",
                absolute.display()
            ));
        };
        let scheme = match scheme.to_ascii_lowercase().as_str() {
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
        if rest.contains(['?', '#']) {
            return Err(format!(
                "`{raw}` has a query or fragment (a `?` or `#` in a key is written %3F, %23)"
            ));
        }
        let (authority, path) = rest.split_once('/').unwrap_or((rest, ""));
        let segments = decode_path(raw, path)?;
        if scheme == Scheme::File {
            if !(authority.is_empty() || authority.eq_ignore_ascii_case("localhost")) {
                return Err(format!("`{raw}` is not an absolute file:/// URL"));
            }
            if segments.is_empty() {
                return Err(format!("`{raw}` names the root folder: name a folder of its own"));
            }
            return Ok(Target {
                scheme,
                bucket: format!("/{}", segments.join("/")),
                prefix: String::new(),
            });
        }
        if authority.contains('@') || authority.contains(':') {
            return Err(format!(
                "`{raw}`: a user or port has no place in it (credentials come from the environment, a store's address from --endpoint)"
            ));
        }
        let bucket = authority;
        if bucket.is_empty() {
            return Err(format!("`{raw}` names no bucket"));
        }
        let plain = |c: char| c.is_ascii_alphanumeric() || "-._".contains(c);
        if bucket.len() > 255 || !bucket.chars().all(plain) {
            return Err(format!(
                "`{raw}`: `{bucket}` is not a bucket name (letters, digits, `-`, `.` and `_`)"
            ));
        }
        Ok(Target { scheme, bucket: bucket.to_string(), prefix: segments.join("/") })
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

/// The segments of a URL's path, each percent-decoded once and checked: no `.` or `..`,
/// no empty segment (a trailing `/` aside), no control character, no `/` inside one.
fn decode_path(raw: &str, path: &str) -> Result<Vec<String>, String> {
    let path = path.strip_suffix('/').unwrap_or(path);
    if path.is_empty() {
        return Ok(Vec::new());
    }
    path.split('/')
        .map(|segment| {
            let decoded = percent_encoding::percent_decode_str(segment)
                .decode_utf8()
                .map_err(|_| format!("`{raw}`: `{segment}` does not decode to UTF-8"))?;
            let refused = |why: &str| {
                format!("`{raw}`: its path must be plain names separated by `/` ({why})")
            };
            match decoded.as_ref() {
                "" => Err(refused("an empty segment")),
                "." | ".." => Err(refused(&format!("`{segment}` is `{decoded}`"))),
                d if d.contains('/') => Err(refused(&format!("`{segment}` holds a `/`"))),
                d if d.chars().any(char::is_control) => {
                    Err(refused(&format!("`{segment}` holds a control character")))
                }
                d => Ok(d.to_string()),
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_the_url_crate_would_resolve_is_refused_here() {
        // Why this file does not hand the URL to `url`: it moves the prefix elsewhere.
        for (raw, url_says) in [
            ("s3://b/site/%2e%2e/other", "/other"),
            ("s3://b/site/../other", "/other"),
            ("s3://b/site/./x", "/site/x"),
            ("s3://b/si\nte", "/site"),
        ] {
            assert_eq!(url::Url::parse(raw).unwrap().path(), url_says, "{raw}");
            assert!(Target::parse(raw).is_err(), "{raw}");
        }
    }

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
            "s3://b//t",
            "s3://b/p?x=1",
            "nope",
            "s3://b%zz/p",
            "s3://b@c/p",
            "s3://b:9000/p",
            "s3://b/%2e%2e/t",
            "s3://b/a/%2E/t",
            "s3://b/a%2Fb",
            "s3://b/%0a",
            "s3://b/%ff",
            "file:///x/%2e%2e/y",
            "file:///x/../y",
            "file://host/x",
            "file:///",
        ] {
            assert!(Target::parse(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn the_path_is_decoded_exactly_once_and_taken_literally() {
        let prefix = |raw: &str| Target::parse(raw).unwrap().prefix;
        // As a user types it, and as a URL encodes it: the same keys.
        assert_eq!(prefix("s3://bkt/my site/ünï"), "my site/ünï");
        assert_eq!(prefix("s3://bkt/my%20site/%C3%BCn%C3%AF/"), "my site/ünï");
        // Once: `%2520` is the three characters `%20`, not a space.
        assert_eq!(prefix("s3://bkt/a%2520b"), "a%20b");
        assert_eq!(prefix("gs://bkt/a+b~c"), "a+b~c");
        let t = Target::parse("file:///srv/my%20www").unwrap();
        assert_eq!(t.bucket, "/srv/my www");
        assert_eq!(Target::parse("file:///srv/ünï").unwrap().bucket, "/srv/ünï");
        let e = Target::parse("s3://b/%2e%2e/t").unwrap_err();
        assert!(e.contains("`%2e%2e` is `..`"), "{e}");
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
