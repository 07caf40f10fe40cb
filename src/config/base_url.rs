//! `base_url`: where `output/` is published, split into its origin and its mount path.
//!
//! The `url` crate checks it (as browsers read it); the origin and the path are then taken
//! from the text as written, because links repeat them byte for byte and `url` would
//! lower-case the host, drop a default port and resolve a `..` that folio refuses.

/// `base_url` split into the origin (`https://example.org`, or empty) and the mount path
/// (`/travel`, or empty): links are `{origin}{path}/api/...`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BaseUrl {
    pub origin: String,
    pub path: String,
}

impl BaseUrl {
    /// Parses `base_url` with the `url` crate (the WHATWG URL standard, as browsers read
    /// it: a port past 65535 or a malformed IPv6 host is refused), then asks what folio's
    /// links need: `http://` or `https://`, a host, no credentials, query or fragment, and
    /// a path of plain segments (its trailing `/` dropped). The origin is kept as written
    /// (`url` would lower-case it and drop a default port): links repeat it byte for byte.
    pub fn parse(raw: &str) -> Result<BaseUrl, String> {
        if raw.is_empty() {
            return Ok(BaseUrl::default());
        }
        let rest = raw
            .strip_prefix("https://")
            .or_else(|| raw.strip_prefix("http://"))
            .ok_or_else(|| format!("base_url `{raw}` must start with http:// or https://"))?;
        let url = url::Url::parse(raw).map_err(|e| format!("base_url `{raw}` is no URL ({e})"))?;
        let host = &rest[..rest.find('/').unwrap_or(rest.len())];
        let host_ok = url.host().is_some()
            && url.username().is_empty()
            && url.password().is_none()
            && !host.is_empty()
            && host.chars().all(|c| c.is_ascii_alphanumeric() || "-.:[]".contains(c));
        if !host_ok {
            return Err(format!("base_url `{raw}` has no valid host"));
        }
        let path = rest[host.len()..].trim_end_matches('/');
        let path_ok = url.query().is_none()
            && url.fragment().is_none()
            && path.split('/').skip(1).all(|seg| {
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
        let origin = &raw[..raw.len() - rest.len() + host.len()];
        Ok(BaseUrl { origin: origin.to_string(), path: path.into() })
    }

    /// `{origin}{path}`: what every link starts with.
    pub fn prefix(&self) -> String {
        format!("{}{}", self.origin, self.path)
    }
}

/// Written as the URL it is (`https://example.org/travel`, or `""`), as folio.toml has it.
impl serde::Serialize for BaseUrl {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.prefix())
    }
}

/// Read back as [`BaseUrl::parse`] reads folio.toml's: one that does not parse is an error.
impl<'de> serde::Deserialize<'de> for BaseUrl {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<BaseUrl, D::Error> {
        let raw = <std::borrow::Cow<'de, str>>::deserialize(d)?;
        BaseUrl::parse(&raw).map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn base_url_keeps_its_path_and_drops_a_trailing_slash() {
        let b = BaseUrl::parse("https://example.org/travel/").unwrap();
        assert_eq!(b, BaseUrl { origin: "https://example.org".into(), path: "/travel".into() });
        assert_eq!(b.prefix(), "https://example.org/travel");
        assert!(BaseUrl::parse("ftp://x").is_err());
        assert!(BaseUrl::parse("https://x/a?b").is_err());
        assert!(BaseUrl::parse("https://x/a//b").is_err());
        assert_eq!(BaseUrl::parse("").unwrap(), BaseUrl::default());
        assert!(BaseUrl::parse("https://x:99999/a").is_err(), "no such port");
        assert!(BaseUrl::parse("https://[::1/a").is_err(), "no such host");
        assert!(BaseUrl::parse("https://user@x/a").is_err(), "no credentials");
        let b = BaseUrl::parse("http://127.0.0.1:8080/travel/v1").unwrap();
        assert_eq!(b.prefix(), "http://127.0.0.1:8080/travel/v1");
        let b = BaseUrl::parse("https://[::1]:8443").unwrap();
        assert_eq!((b.origin.as_str(), b.path.as_str()), ("https://[::1]:8443", ""));
    }

    #[test]
    fn a_manifest_keeps_it_typed_and_written_as_folio_toml_writes_it() {
        let b = BaseUrl::parse("https://Example.org:443/travel/").unwrap();
        let json = serde_json::to_string(&b).unwrap();
        assert_eq!(json, "\"https://Example.org:443/travel\"", "the origin as written");
        assert_eq!(serde_json::from_str::<BaseUrl>(&json).unwrap(), b);
        assert_eq!(serde_json::from_str::<BaseUrl>("\"\"").unwrap(), BaseUrl::default());
        let e = serde_json::from_str::<BaseUrl>("\"ftp://x\"").unwrap_err();
        assert!(e.to_string().contains("must start with http:// or https://"), "{e}");
    }
}
