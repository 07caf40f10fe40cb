//! `[deploy]` and the command line's overrides of it (`--to`, `--endpoint`, `--region`,
//! `--purge`, `--no-purge`, `--max-deletes`, `--purge-wait`, `--max-purge-paths`), checked
//! once, into the typed [`Deploy`] that `folio deploy` reads: the target parsed
//! (`target.rs`), the CDNs parsed (`cdn.rs`), the endpoint and region checked by the one
//! rule each ([`endpoint`], [`region`]) that the stores and CDN clients also apply to what
//! they find in the environment. Nothing outside `config/` parses a deploy setting.

use std::time::Duration;

use serde::Deserialize;

use super::cdn::Cdn;
use super::target::{Scheme, Target};

/// `[deploy]` as written: where `folio deploy` publishes `output/`. Credentials never live
/// here: they come from the environment and the stores' standard provider chains.
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
    /// The CDNs purged once the store holds the build: `cloudfront:DISTRIBUTION_ID`,
    /// `cloudflare:ZONE_ID` ([`Cdn`]).
    pub purge: Vec<String>,
    /// How long a deploy's purges may take in all, in seconds, requests and waits for a
    /// CDN that asks to wait included, before the deploy fails with the keys still owed.
    pub purge_wait: u64,
    /// The most CloudFront paths (a wildcard counts as one) or Cloudflare URLs and
    /// prefixes one deploy sends one CDN: past it, the purge folds into wildcards.
    pub max_purge_paths: u64,
}

/// A normal day inside CloudFront's 1,000 free invalidation paths a month: 30 a deploy,
/// a deploy a day.
pub const MAX_PURGE_PATHS: u64 = 30;
/// One CloudFront invalidation's paths: the most `max_purge_paths` may be.
pub const PURGE_PATHS_CEILING: u64 = 3000;
/// A day: the longest `purge_wait`.
pub const PURGE_WAIT_CEILING: u64 = 24 * 3600;

impl Default for DeployConfig {
    fn default() -> Self {
        DeployConfig {
            url: String::new(),
            endpoint: String::new(),
            region: String::new(),
            max_deletes: 256,
            concurrency: 32,
            siblings: false,
            purge: Vec::new(),
            purge_wait: 600,
            max_purge_paths: MAX_PURGE_PATHS,
        }
    }
}

/// What the command line says over `[deploy]` (`None`: what the config says).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct DeployOverrides {
    /// `--to`.
    pub url: Option<String>,
    /// `--endpoint`.
    pub endpoint: Option<String>,
    /// `--region`.
    pub region: Option<String>,
    /// `--purge` (each one), or `Some([])` for `--no-purge`.
    pub purge: Option<Vec<String>>,
    /// `--max-deletes`.
    pub max_deletes: Option<u64>,
    /// `--purge-wait`.
    pub purge_wait: Option<u64>,
    /// `--max-purge-paths`.
    pub max_purge_paths: Option<u64>,
}

/// `[deploy]` checked, with the command line's overrides applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Deploy {
    /// Where to publish; `None` when neither `url` nor `--to` names a place.
    pub target: Option<Target>,
    /// Where `[deploy] url` itself publishes, whatever `--to` says: the bucket the R2
    /// Worker of a build reads (`[hosting.cloudflare] serve_from = "r2"`), which a deploy
    /// elsewhere (a folder, to seed a test bucket) does not move.
    pub configured: Option<Target>,
    /// An S3-compatible store's endpoint, as [`endpoint`] gives it; `None`: the
    /// environment's, else AWS S3.
    pub endpoint: Option<String>,
    /// The S3 region; `None`: the environment's, else us-east-1.
    pub region: Option<String>,
    pub max_deletes: u64,
    pub concurrency: usize,
    pub siblings: bool,
    /// The CDNs purged once the store holds the build, each once, in the order named.
    pub purge: Vec<Cdn>,
    /// The time a deploy's purges may take in all.
    pub purge_wait: Duration,
    /// The most paths (CloudFront) or URLs and prefixes (Cloudflare) a deploy sends one
    /// CDN.
    pub max_purge_paths: usize,
}

impl Default for Deploy {
    fn default() -> Self {
        let d = DeployConfig::default();
        Deploy {
            target: None,
            configured: None,
            endpoint: None,
            region: None,
            max_deletes: d.max_deletes,
            concurrency: d.concurrency as usize,
            siblings: d.siblings,
            purge: Vec::new(),
            purge_wait: Duration::from_secs(d.purge_wait),
            max_purge_paths: d.max_purge_paths as usize,
        }
    }
}

/// An endpoint (an S3-compatible store's, CloudFront's or Cloudflare's API) as a client
/// gets it: `http://` or `https://`, a host, no user or password, no query or fragment;
/// without its trailing `/`. `Err` says what is wrong, without repeating the value (an
/// endpoint from the environment is never printed).
pub fn endpoint(raw: &str) -> Result<String, String> {
    let url = url::Url::parse(raw).map_err(|e| format!("is not a URL ({e})"))?;
    if !matches!(url.scheme(), "http" | "https") {
        return Err(format!("has the scheme `{}`", url.scheme()));
    }
    match url.host_str() {
        None | Some("") => return Err("names no host".into()),
        Some(host) if host.contains('%') => return Err("has a percent sign in its host".into()),
        Some(_) => {}
    }
    if !url.username().is_empty() || url.password().is_some() {
        return Err("holds credentials (they come from the environment)".into());
    }
    if url.query().is_some() || url.fragment().is_some() {
        return Err("has a query or fragment".into());
    }
    Ok(url.as_str().trim_end_matches('/').to_string())
}

/// The words every endpoint problem ends with.
pub const ENDPOINT_EXPECTED: &str = "expected http:// or https:// and a host, such as https://ACCOUNT_ID.r2.cloudflarestorage.com or http://127.0.0.1:9000";

/// An S3 region's name (`eu-west-1`, R2's `auto`), or why it is none.
pub fn region(raw: &str) -> Result<String, String> {
    let plain = |c: char| c.is_ascii_alphanumeric() || c == '-' || c == '_';
    if raw.is_empty() || raw.len() > 64 || !raw.chars().all(plain) {
        return Err(format!(
            "`{}` is not a region name: expected letters, digits and `-`, such as eu-west-1 (R2: auto)",
            crate::diag::cut(&raw.escape_debug().to_string())
        ));
    }
    Ok(raw.to_string())
}

/// `message` with the user and password of `raw` (a URL given for the deploy) left out: a
/// message never repeats a credential, also one in the wrong place.
fn without_credentials(message: String, raw: &str) -> String {
    let authority = raw.split_once("://").map_or(raw, |(_, rest)| rest);
    let authority = authority.split(['/', '?', '#']).next().unwrap_or("");
    match authority.rsplit_once('@') {
        Some((userinfo, _)) if !userinfo.is_empty() => {
            let at = format!("{userinfo}@");
            message.replace(raw, &raw.replacen(&at, "[credentials]@", 1))
        }
        _ => message,
    }
}

/// Where a problem of a deploy setting goes: the key it is about (`deploy.url`) or the
/// flag (`--to`), and the message.
pub(super) type Err<'a> = &'a mut dyn FnMut(&str, String);

/// `[deploy]` with `over` applied, every problem said: each under the key it is about, or
/// the flag when the value came from the command line. `r2`: the Cloudflare Worker reads
/// the bucket (`[hosting.cloudflare] serve_from = "r2"`), which needs an S3 URL and an
/// endpoint.
pub(super) fn resolve(raw: &DeployConfig, over: &DeployOverrides, r2: bool, err: Err) -> Deploy {
    // The key a value's problems are said under: its flag when the flag gave it.
    let whose = |flag: &'static str, given: bool, key: &'static str| if given { flag } else { key };
    let mut out = Deploy::default();

    let (url, from) = match &over.url {
        Some(url) => (url.as_str(), "--to"),
        None => (raw.url.as_str(), "deploy.url"),
    };
    if !url.is_empty() || over.url.is_some() {
        match Target::parse(url) {
            Ok(target) => out.target = Some(target),
            Err(e) => err(from, without_credentials(format!("{from}: {e}"), url)),
        }
    }
    if over.url.is_none() {
        out.configured = out.target.clone();
    } else if !raw.url.is_empty() {
        match Target::parse(&raw.url) {
            Ok(target) => out.configured = Some(target),
            Err(e) => err("deploy.url", without_credentials(format!("deploy.url: {e}"), &raw.url)),
        }
    }
    let (given, from) = match &over.endpoint {
        Some(e) => (e.as_str(), "--endpoint"),
        None => (raw.endpoint.as_str(), "deploy.endpoint"),
    };
    if !given.is_empty() {
        match endpoint(given) {
            Ok(e) => out.endpoint = Some(e),
            Err(why) => {
                let message = format!("{from} `{given}` {why}: {ENDPOINT_EXPECTED}");
                err(from, without_credentials(message, given));
            }
        }
    }
    let (given, from) = match &over.region {
        Some(r) => (r.as_str(), "--region"),
        None => (raw.region.as_str(), "deploy.region"),
    };
    if !given.is_empty() {
        match region(given) {
            Ok(r) => out.region = Some(r),
            Err(why) => err(from, format!("{from}: {why}")),
        }
    }
    out.max_deletes = over.max_deletes.unwrap_or(raw.max_deletes);
    if raw.concurrency == 0 || raw.concurrency > 1024 {
        err(
            "deploy.concurrency",
            format!("deploy.concurrency {} must be between 1 and 1024", raw.concurrency),
        );
    } else {
        out.concurrency = raw.concurrency as usize;
    }
    out.siblings = raw.siblings;

    let (named, from) = match &over.purge {
        Some(named) => (named.as_slice(), "--purge"),
        None => (raw.purge.as_slice(), "deploy.purge"),
    };
    for name in named {
        match Cdn::parse(name) {
            Ok(cdn) if !out.purge.contains(&cdn) => out.purge.push(cdn),
            Ok(_) => {}
            Err(why) => err(from, format!("{from}: `{name}` {why}")),
        }
    }
    let wait = over.purge_wait.unwrap_or(raw.purge_wait);
    let from = whose("--purge-wait", over.purge_wait.is_some(), "deploy.purge_wait");
    if wait == 0 || wait > PURGE_WAIT_CEILING {
        err(
            from,
            format!(
                "{from} {wait} must be between 1 and {PURGE_WAIT_CEILING} seconds (a day): the purges' requests and waits all fit in it"
            ),
        );
    } else {
        out.purge_wait = Duration::from_secs(wait);
    }
    let paths = over.max_purge_paths.unwrap_or(raw.max_purge_paths);
    let from = whose("--max-purge-paths", over.max_purge_paths.is_some(), "deploy.max_purge_paths");
    if paths == 0 || paths > PURGE_PATHS_CEILING {
        err(
            from,
            format!(
                "{from} {paths} must be between 1 and {PURGE_PATHS_CEILING} (one CloudFront invalidation); past it a purge folds into wildcards, which never need more than one"
            ),
        );
    } else {
        out.max_purge_paths = paths as usize;
    }

    // The Worker reads what `[deploy] url` names (a URL that did not parse has its
    // problem said already).
    let unparsed = !raw.url.is_empty() && out.configured.is_none();
    if r2 && !unparsed {
        match &out.configured {
            Some(t) if t.scheme == Scheme::S3 => {
                if raw.endpoint.is_empty() {
                    err("hosting.cloudflare.serve_from", "hosting.cloudflare.serve_from = \"r2\": [deploy] needs endpoint = \"https://ACCOUNT_ID.r2.cloudflarestorage.com\" (without it, folio deploy would publish to AWS S3, where the Worker does not read)".into());
                }
            }
            _ => err("hosting.cloudflare.serve_from", "hosting.cloudflare.serve_from = \"r2\": the Worker reads the bucket `folio deploy` fills, so [deploy] needs url = \"s3://BUCKET/PREFIX\" (with endpoint = \"https://ACCOUNT_ID.r2.cloudflarestorage.com\")".into()),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn resolved(raw: DeployConfig, over: DeployOverrides) -> (Deploy, Vec<(String, String)>) {
        let mut problems = Vec::new();
        let d = resolve(&raw, &over, false, &mut |k: &str, m: String| {
            problems.push((k.to_string(), m))
        });
        (d, problems)
    }

    #[test]
    fn flags_override_the_table_and_are_named_in_their_problems() {
        let raw = DeployConfig {
            url: "s3://b/site".into(),
            purge: vec!["cloudfront:E2QWRUHAPOMQZL".into()],
            ..DeployConfig::default()
        };
        let (d, problems) = resolved(raw.clone(), DeployOverrides::default());
        assert!(problems.is_empty(), "{problems:?}");
        assert_eq!(d.target.unwrap().prefix, "site");
        assert_eq!(d.purge, [Cdn::CloudFront("E2QWRUHAPOMQZL".into())]);
        assert_eq!((d.purge_wait.as_secs(), d.max_purge_paths), (600, 30));

        let over = DeployOverrides {
            url: Some("gs://other/x".into()),
            purge: Some(Vec::new()),
            max_deletes: Some(3),
            ..DeployOverrides::default()
        };
        let (d, _) = resolved(raw.clone(), over);
        assert_eq!(d.target.unwrap().bucket, "other");
        assert!(d.purge.is_empty(), "--no-purge");
        assert_eq!(d.max_deletes, 3);

        let over = DeployOverrides {
            url: Some("ftp://x".into()),
            endpoint: Some("minio:9000".into()),
            region: Some("eu west".into()),
            purge: Some(vec!["cloudfront:e2".into()]),
            purge_wait: Some(0),
            max_purge_paths: Some(3001),
            ..DeployOverrides::default()
        };
        let (_, problems) = resolved(raw, over);
        let keys: Vec<&str> = problems.iter().map(|(k, _)| k.as_str()).collect();
        assert_eq!(
            keys,
            ["--to", "--endpoint", "--region", "--purge", "--purge-wait", "--max-purge-paths"]
        );
        for (key, message) in &problems {
            assert!(message.starts_with(key.as_str()), "{message}");
        }
    }

    #[test]
    fn one_rule_for_endpoints() {
        assert_eq!(endpoint("http://127.0.0.1:9000/").unwrap(), "http://127.0.0.1:9000");
        let ok = "https://acct.r2.cloudflarestorage.com";
        assert_eq!(endpoint(ok).unwrap(), ok);
        for bad in [
            "http://",
            "http://[::1",
            "http://a b",
            "http://host:99999",
            "http://%zz",
            "ftp://host",
            "host:9000",
            "http://user:pw@host",
            "http://x@example.org",
            "http://host/?x",
            "http://host/#x",
        ] {
            assert!(endpoint(bad).is_err(), "{bad}");
        }
        assert_eq!(region("auto").unwrap(), "auto");
        for bad in ["eu west", "eu-west-1\n", "a/b", "\u{e9}", ""] {
            assert!(region(bad).unwrap_err().contains("is not a region name"), "{bad}");
        }
    }

    #[test]
    fn no_problem_repeats_a_credential_and_an_empty_to_is_no_url() {
        let over = DeployOverrides {
            url: Some("s3://AKIA:s3cr3t@bucket/x".into()),
            endpoint: Some("http://USER:PASS@h/".into()),
            ..DeployOverrides::default()
        };
        let (_, problems) = resolved(DeployConfig::default(), over);
        let said: Vec<&str> = problems.iter().map(|(_, m)| m.as_str()).collect();
        assert_eq!(said.len(), 2, "{said:?}");
        for m in said {
            assert!(!m.contains("s3cr3t") && !m.contains("PASS"), "{m}");
            assert!(m.contains("[credentials]"), "{m}");
        }
        let over = DeployOverrides { url: Some(String::new()), ..DeployOverrides::default() };
        let (_, problems) = resolved(DeployConfig::default(), over);
        assert_eq!(problems[0].0, "--to", "{problems:?}");
    }

    #[test]
    fn a_cdn_named_twice_is_purged_once() {
        let raw = DeployConfig {
            purge: vec!["cloudfront:E2QWRUHAPOMQZL".into(), "cloudfront:E2QWRUHAPOMQZL".into()],
            ..DeployConfig::default()
        };
        assert_eq!(resolved(raw, DeployOverrides::default()).0.purge.len(), 1);
    }
}
