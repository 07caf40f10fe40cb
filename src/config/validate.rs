//! `Config::validate`: every key checked, all problems at once, and the [`Project`] the
//! pipeline relies on (default language among the languages, safe path segments, sizes in
//! range, the envelope and codecs parsed, refused folders). One function a table of
//! `folio.toml`, each pushing its problems to one list; a language code that is no
//! language is named in its problem ([`ConfigError::unknown_language`]) besides its words.

use std::path::Path;

use super::base_url::BaseUrl;
use super::hosting::{HostTarget, R2, ServeFrom};
use super::language::{is_known_language, language_tags};
use super::paths::ProjectFolders;
use super::project::{Overrides, Project, SortKey};
use super::read::Places;
use super::shape::Shape;
use super::tables::{Config, InputConfig, ListingConfig};
use crate::compress::Codec;
use crate::diag::ConfigError;

/// Where problems go: `key: message`, prefixed with the config's path when printed.
type Err<'a> = &'a mut dyn FnMut(&str, String);

/// True for a name usable as one URL path segment and file name.
fn is_safe_segment(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 64
        && s.bytes().next().is_some_and(|b| b.is_ascii_alphanumeric())
        && s.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-' || b == b'_')
}

/// `[listing] default_language`: one of the languages; its index (the first when it is
/// not one).
fn default_language(l: &ListingConfig, err: Err) -> usize {
    // A language written in capitals is one problem, said above: not a second one here.
    let same = |x: &String| x.eq_ignore_ascii_case(&l.default_language);
    l.languages
        .iter()
        .position(|x| *x == l.default_language)
        .or_else(|| l.languages.iter().position(same))
        .unwrap_or_else(|| {
            // A language of its own (`es` beside `en`, `de`) is one to add, not a typo of
            // the nearest listed one.
            let lower = l.default_language.to_ascii_lowercase();
            // `ES`: tags are lowercase, so the language to add is `es`, and the default
            // must then be written so too (`ES` would be refused in the list).
            let (lead, write) = match lower == l.default_language {
                true => (String::new(), String::new()),
                false => ("language tags are lowercase: ".into(), format!(" and write default_language = \"{lower}\"")),
            };
            let fix = if is_known_language(&l.default_language) {
                format!("; {lead}add `{lower}` to listing.languages{write} to publish it, or set default_language to one of them")
            } else {
                crate::diag::did_you_mean(
                    &l.default_language,
                    l.languages.iter().map(String::as_str),
                )
            };
            err("listing.default_language", format!(
                "listing.default_language `{}` is not one of listing.languages ({}){fix}",
                l.default_language,
                l.languages.join(", "),
            ));
            0
        })
}

/// `[listing] resource`: a path segment of its own.
fn resource(l: &ListingConfig, err: Err) {
    if !is_safe_segment(&l.resource) {
        err(
            "listing.resource",
            format!(
                "listing.resource `{}` must be a lowercase path segment (letters, digits, - and _)",
                l.resource
            ),
        );
    } else if l.resource == "errors" {
        err(
            "listing.resource",
            "listing.resource `errors` would share a folder with the error documents".into(),
        );
    }
}

/// `[listing] page_sizes` and `default_page_size`: sizes in range, each once, the default
/// among them.
fn page_sizes(l: &ListingConfig, err: Err) {
    if l.page_sizes.is_empty() {
        err("listing.page_sizes", "listing.page_sizes must name at least one size".into());
    }
    for (i, size) in l.page_sizes.iter().enumerate() {
        if *size == 0 || *size > 100_000 {
            err(
                "listing.page_sizes",
                format!("listing.page_sizes: {size} must be between 1 and 100000"),
            );
        }
        if l.page_sizes[..i].contains(size) {
            err("listing.page_sizes", format!("listing.page_sizes: {size} is listed twice"));
        }
    }
    if !l.page_sizes.contains(&l.default_page_size) {
        err(
            "listing.default_page_size",
            format!(
                "listing.default_page_size {} is not one of listing.page_sizes",
                l.default_page_size
            ),
        );
    }
}

/// `[listing] sort`: field names, each with its direction.
fn sort_keys(l: &ListingConfig, err: Err) -> Vec<SortKey> {
    let mut sort = Vec::new();
    for key in &l.sort {
        let (field, descending) = match key.strip_prefix('-') {
            Some(f) => (f, true),
            None => (key.as_str(), false),
        };
        if field.is_empty() || field.split('.').any(str::is_empty) {
            err("listing.sort", format!("listing.sort: `{key}` is not a field name"));
        }
        sort.push(SortKey { field: field.to_string(), descending });
    }
    sort
}

/// `[listing] fields`: no empty name.
fn listed_fields(l: &ListingConfig, err: Err) {
    for f in &l.fields {
        if f.is_empty() {
            err("listing.fields", "listing.fields: an empty field name".into());
        }
    }
}

/// `[fields]`: field names, and no nested field localized.
fn field_specs(c: &Config, err: Err) {
    for (name, spec) in &c.fields {
        if name.is_empty() || name.split('.').any(str::is_empty) {
            err("fields", format!("fields: `{name}` is not a field name"));
        }
        if spec.localized && name.contains('.') {
            err(
                &format!("fields.{name}"),
                format!("fields.\"{name}\": a nested field cannot be localized"),
            );
        }
    }
}

/// `[output]`: a one-line Cache-Control; the codecs to precompress with, each once.
fn output(c: &Config, err: Err) -> Vec<Codec> {
    if c.output.cache_control.chars().any(char::is_control) {
        err("output.cache_control", "output.cache_control must be one line".into());
    }
    let mut precompress = Vec::new();
    for p in &c.output.precompress {
        match Codec::parse(p) {
            Some(codec) if !precompress.contains(&codec) => precompress.push(codec),
            Some(_) => {
                err("output.precompress", format!("output.precompress: `{p}` is listed twice"))
            }
            None => err(
                "output.precompress",
                format!(
                    "output.precompress: `{p}` must be gzip or br{}",
                    crate::diag::did_you_mean(p, ["gzip", "br"])
                ),
            ),
        }
    }
    precompress
}

/// `[input]`: the CSV delimiter and the decimal separator, each one of the bytes folio
/// reads (`,` and `.` when refused).
fn input(i: &InputConfig, err: Err) -> (u8, u8) {
    let csv_delimiter = match i.csv_delimiter.as_str() {
        "," => b',',
        ";" => b';',
        "\t" => b'\t',
        "|" => b'|',
        other => {
            err(
                "input.csv_delimiter",
                format!(
                    "input.csv_delimiter `{}` is not one of \",\", \";\", \"\\t\" (a tab) and \"|\"",
                    other.escape_debug()
                ),
            );
            b','
        }
    };
    let decimal_separator = match i.decimal_separator.as_str() {
        "." => b'.',
        "," => b',',
        other => {
            err(
                "input.decimal_separator",
                format!("input.decimal_separator `{}` is not \".\" or \",\"", other.escape_debug()),
            );
            b'.'
        }
    };
    (csv_delimiter, decimal_separator)
}

/// `[hosting]`: targets that can share one output folder, and an address to listen on.
fn hosting(c: &Config, err: Err) {
    let targets = &c.hosting.targets;
    if targets.contains(&HostTarget::Netlify) && targets.contains(&HostTarget::Cloudflare) {
        err("hosting.targets", "hosting.targets: netlify and cloudflare both read output/_redirects and output/_headers; one output folder can serve only one of them".into());
    }
    if c.hosting.listen.parse::<std::net::SocketAddr>().is_err() {
        err(
            "hosting.listen",
            format!("hosting.listen `{}` must be an address like 127.0.0.1:8080", c.hosting.listen),
        );
    }
}

/// `[openapi]`: a licence's identifier or URL (not both), an email and http(s) URLs.
fn openapi(c: &Config, err: Err) {
    let o = &c.openapi;
    if !o.license.is_empty() && !o.license_url.is_empty() {
        err("openapi.license", "openapi.license and openapi.license_url: give one (OpenAPI takes a licence's SPDX identifier or its URL, not both)".into());
    }
    if !o.contact_email.is_empty() && !o.contact_email.contains('@') {
        err(
            "openapi.contact_email",
            format!("openapi.contact_email `{}` is not an email address", o.contact_email),
        );
    }
    for (key, url) in [("license_url", &o.license_url), ("contact_url", &o.contact_url)] {
        if !url.is_empty() && !url.starts_with("https://") && !url.starts_with("http://") {
            err(
                &format!("openapi.{key}"),
                format!("openapi.{key} `{url}` must start with https:// or http://"),
            );
        }
    }
}

impl Config {
    /// Checks every key and resolves paths: config paths against `root` (the folder of
    /// folio.toml), override paths against `cwd`; `places` are where the keys are written.
    /// Every problem at once, with the project complete as far as it validated (a refused
    /// value is its fallback in it): [`Project::from_toml`] hands on what it says of its
    /// data with the problems. No project with problems leaves `config`.
    pub(super) fn validate(
        self,
        places: Places,
        config_path: &Path,
        root: &Path,
        cwd: &Path,
        overrides: &Overrides,
    ) -> (Project, Vec<ConfigError>) {
        let mut errors = Vec::new();
        let mut say = |key: &str, msg: String, unknown_language: Option<&str>| {
            let mut e = ConfigError::new(config_path, None, msg);
            e.unknown_language = unknown_language.map(str::to_string);
            e.key = Some(key.into());
            errors.push(e);
        };
        let base_raw = overrides.base_url.clone().unwrap_or_else(|| self.base_url.clone());
        let base = BaseUrl::parse(&base_raw).unwrap_or_else(|e| {
            match overrides.base_url {
                Some(_) => say("--base-url", format!("--base-url: {e}"), None),
                None => say("base_url", e, None),
            }
            BaseUrl::default()
        });
        language_tags(&self.listing, &mut say);
        let mut err = |key: &str, msg: String| say(key, msg, None);
        let default_language = default_language(&self.listing, &mut err);
        resource(&self.listing, &mut err);
        page_sizes(&self.listing, &mut err);
        let sort = sort_keys(&self.listing, &mut err);
        listed_fields(&self.listing, &mut err);
        let envelope = super::shape::envelope(&self.listing, &mut err);
        field_specs(&self, &mut err);
        let precompress = output(&self, &mut err);
        hosting(&self, &mut err);
        openapi(&self, &mut err);
        let (csv_delimiter, decimal_separator) = input(&self.input, &mut err);
        let folders = ProjectFolders::resolve(&self, root, cwd, overrides, &mut err);
        let serves_r2 = self.hosting.cloudflare.serve_from == ServeFrom::R2
            && self.hosting.targets.contains(&HostTarget::Cloudflare);
        let deploy = super::deploy::resolve(&self.deploy, &overrides.deploy, serves_r2, &mut err);
        // The Worker reads where `[deploy] url` puts the files (an s3:// URL, checked above).
        let r2 = (deploy.configured.as_ref().filter(|_| serves_r2))
            .map(|t| R2 { bucket: t.bucket.clone(), prefix: t.prefix.clone() });
        let server_root = match self.hosting.root.as_str() {
            "" => folders.output.to_string_lossy().into_owned(),
            root => root.trim_end_matches('/').to_string(),
        };
        let l = self.listing;
        let project = Project {
            config_path: config_path.to_path_buf(),
            root: folders.root,
            data_dir: folders.data,
            output_dir: folders.output,
            templates_dir: folders.templates,
            hosting_dir: folders.hosting,
            shape: Shape {
                base,
                resource: l.resource,
                languages: l.languages,
                default_language,
                page_sizes: l.page_sizes,
                default_page_size: l.default_page_size,
                envelope,
                totals: l.totals,
                cache_control: self.output.cache_control,
            },
            sort,
            fields: l.fields,
            url_style: l.url_style,
            schema: self.fields,
            fallback: self.i18n.fallback,
            csv_delimiter,
            decimal_separator,
            precompress,
            hosting: self.hosting,
            r2,
            server_root,
            deploy,
            openapi: self.openapi,
            places,
            output_settings_digest: String::new(),
        };
        // Decided here, once: the digest of what, of all the above, shapes the output.
        let project = Project {
            output_settings_digest: super::digest::output_settings_digest(&project),
            ..project
        };
        (project, errors)
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::project;
    use super::*;
    use crate::config::Envelope;

    #[test]
    fn reports_every_listing_problem_at_once() {
        let err = project(
            "[listing]\nlanguages = [\"en\", \"EN\", \"errors\"]\ndefault_language = \"de\"\npage_sizes = [10, 0, 10]\ndefault_page_size = 5\nresource = \"a/b\"\n",
        )
        .unwrap_err();
        let all = err.join("\n");
        for needle in [
            "`EN` is not lowercase: write `en`",
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
    fn a_language_that_is_no_language_is_a_problem_that_names_it() {
        let text = "[listing]\nlanguages = [\"en\", \"sp\", \"EN\"]\n";
        let root = Path::new("/nonexistent/project");
        let invalid =
            Project::from_toml(text, Path::new("folio.toml"), root, root, &Overrides::default());
        let Err(crate::config::Error::Invalid { errors, .. }) = invalid else {
            panic!("invalid: {invalid:?}")
        };
        let words: Vec<Option<&str>> =
            errors.iter().map(|e| e.unknown_language.as_deref()).collect();
        assert_eq!(words, [Some("sp"), None], "{errors:?}");
        assert!(errors[0].message.contains("`sp` is no language"), "{errors:?}");
    }

    #[test]
    fn language_equal_to_resource_is_refused() {
        let err =
            project("[listing]\nlanguages = [\"en\", \"ab\"]\nresource = \"ab\"\n").unwrap_err();
        assert!(err[0].contains("`ab` would share a folder with the resource"), "{err:?}");
    }

    #[test]
    fn netlify_and_cloudflare_together_are_refused_with_the_reason() {
        let err = project("[hosting]\ntargets = [\"netlify\", \"cloudflare\"]").unwrap_err();
        assert!(err[0].contains("both read output/_redirects"), "{err:?}");
    }

    #[test]
    fn envelopes_and_codecs_are_parsed() {
        let p =
            project("[listing]\nenvelope = \"laravel\"\n[output]\nprecompress = [\"br\"]").unwrap();
        assert_eq!(p.shape.envelope, Envelope::Laravel);
        assert_eq!(p.precompress, [Codec::Brotli]);
        let p = project("[listing]\nenvelope = \"laravel-resource\"").unwrap();
        assert_eq!(p.shape.envelope, Envelope::LaravelResource);
        let p = project("[listing]\nenvelope = \"laravel-simple\"").unwrap();
        assert_eq!(
            (p.shape.envelope.to_string(), p.shape.laravel()),
            ("laravel-simple".into(), true)
        );
        let p = project("[listing]\nenvelope = \"template:my_api-2\"").unwrap();
        assert_eq!(p.shape.envelope, Envelope::Template("my_api-2".into()));
        assert!(project("[listing]\nenvelope = \"template:../x\"").is_err());
        assert!(project("[listing]\nenvelope = \"template:\"").is_err());
        assert!(project("[listing]\nenvelope = \"xml\"").is_err());
        assert!(project("[output]\nprecompress = [\"zstd\"]").is_err());
    }

    #[test]
    fn serving_from_r2_is_decided_once_with_its_bucket_and_the_server_root() {
        let text = "[hosting]\ntargets = [\"cloudflare\"]\nroot = \"/srv/api/\"\n[hosting.cloudflare]\nserve_from = \"r2\"\n[deploy]\nurl = \"s3://travel/api-v1\"\nendpoint = \"https://acc.r2.cloudflarestorage.com\"\n";
        let p = project(text).unwrap();
        assert_eq!(p.r2, Some(R2 { bucket: "travel".into(), prefix: "api-v1".into() }));
        assert_eq!(p.server_root, "/srv/api");
        // Without the cloudflare target no Worker reads the bucket.
        let p = project(&text.replace("[\"cloudflare\"]", "[\"nginx\"]")).unwrap();
        assert_eq!(p.r2, None);
        // On Pages, none either; and no `[hosting] root`: the output folder.
        let p = project("[hosting]\ntargets = [\"cloudflare\"]\n").unwrap();
        assert_eq!((p.r2, p.server_root.as_str()), (None, "/nonexistent/project/output"));
    }

    #[test]
    fn deploy_settings_are_checked() {
        let p = project("[deploy]\nurl = \"s3://b/site\"\nendpoint = \"http://127.0.0.1:9000\"\nregion = \"auto\"\nmax_deletes = 5\nconcurrency = 4\nsiblings = true").unwrap();
        assert_eq!(p.deploy.target.unwrap().display(), "s3://b/site");
        assert_eq!(p.deploy.endpoint.as_deref(), Some("http://127.0.0.1:9000"));
        assert_eq!((p.deploy.region.as_deref(), p.deploy.concurrency), (Some("auto"), 4));
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
}
