//! The CDNs a deploy purges (`[deploy] purge`, `--purge`): `cloudfront:DISTRIBUTION_ID`
//! and `cloudflare:ZONE_ID`, each checked for the shape its provider gives its ids, so a
//! typo is refused before anything is sent.

use std::fmt;

/// One CDN in front of the store.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Cdn {
    /// An Amazon CloudFront distribution (`E2QWRUHAPOMQZL`).
    CloudFront(String),
    /// A Cloudflare zone (32 hex digits).
    Cloudflare(String),
}

impl Cdn {
    /// The ways to name a CDN, as a message lists them.
    pub const FORMS: &str = "`cloudfront:DISTRIBUTION_ID` or `cloudflare:ZONE_ID`";

    /// `cloudfront:E2QWRUHAPOMQZL`, `cloudflare:023e105f4ecef8ad9ca31a8372d0c353`. `Err`
    /// says what is wrong, after the value.
    pub fn parse(text: &str) -> Result<Cdn, String> {
        let Some((kind, id)) = text.split_once(':') else {
            return Err(format!("names no CDN: expected {}", Cdn::FORMS));
        };
        match kind {
            "cloudfront" => {
                // CloudFront's ids are upper-case letters and digits, 13 or 14 of them;
                // a few more or fewer are allowed for the future, not lower case.
                let ok = (8..=32).contains(&id.len())
                    && id.bytes().all(|b| b.is_ascii_uppercase() || b.is_ascii_digit());
                if ok {
                    Ok(Cdn::CloudFront(id.to_string()))
                } else {
                    Err("is no CloudFront distribution id (upper-case letters and digits, such as E2QWRUHAPOMQZL)".into())
                }
            }
            "cloudflare" => {
                let ok = id.len() == 32 && id.bytes().all(|b| b.is_ascii_hexdigit());
                if ok {
                    Ok(Cdn::Cloudflare(id.to_ascii_lowercase()))
                } else {
                    Err("is no Cloudflare zone id (32 hex digits, on the zone's Overview page)"
                        .into())
                }
            }
            other => {
                let known = ["cloudfront", "cloudflare"];
                let hint = crate::diag::did_you_mean(other, known);
                Err(format!("names an unknown CDN `{other}`: expected {}{hint}", Cdn::FORMS))
            }
        }
    }
}

impl std::str::FromStr for Cdn {
    type Err = String;

    fn from_str(text: &str) -> Result<Cdn, String> {
        Cdn::parse(text)
    }
}

impl fmt::Display for Cdn {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Cdn::CloudFront(id) => write!(f, "cloudfront:{id}"),
            Cdn::Cloudflare(id) => write!(f, "cloudflare:{id}"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_cdn_is_named_by_its_kind_and_its_id() {
        let cf = Cdn::parse("cloudfront:E2QWRUHAPOMQZL").unwrap();
        assert_eq!(cf, Cdn::CloudFront("E2QWRUHAPOMQZL".into()));
        assert_eq!(cf.to_string(), "cloudfront:E2QWRUHAPOMQZL");
        let zone = Cdn::parse("cloudflare:023E105F4ECEF8AD9CA31A8372D0C353").unwrap();
        assert_eq!(zone.to_string(), "cloudflare:023e105f4ecef8ad9ca31a8372d0c353");
        for (bad, says) in [
            ("E2QWRUHAPOMQZL", "names no CDN"),
            ("cloudfront:e2qwruhapomqzl", "upper-case"),
            ("cloudfront:", "upper-case"),
            ("cloudflare:example.org", "32 hex digits"),
            ("clodfront:E2QWRUHAPOMQZL", "did you mean `cloudfront`?"),
            ("fastly:abc", "unknown CDN `fastly`"),
        ] {
            let why = Cdn::parse(bad).unwrap_err();
            assert!(why.contains(says), "{bad}: {why}");
        }
    }
}
