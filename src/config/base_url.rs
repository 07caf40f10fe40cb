//! `base_url`: where `output/` is published, split into its origin and its mount path.

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
    }
}
