//! The environment folio reads: every variable, the commands that read it and what for, as
//! one list. `--help` of each command, the man pages' ENVIRONMENT and docs/cli.md name
//! them from it (the binary renders the first two; a test holds the third to it, and holds
//! the list to the names the source reads). It owns the words, not the reading: each module
//! reads its own variables where it uses them.
//!
//! Three families are handed to a library that reads them as its settings: the `AWS_*`,
//! `GOOGLE_*` and `AZURE_*` variables of object_store's S3, GCS and Azure clients
//! (the names below are the ones folio itself looks at, to say which credentials are
//! missing), and the proxy variables of the HTTP client. Variables only the tests' build
//! reads (`FOLIO_FAULT*`, behind the `fault-injection` feature) are not folio's interface.

/// Variables that go together, the commands that read them (`&[]`: every command) and
/// what they do, in one sentence for `--help` and the man page.
#[derive(Debug, Clone, Copy)]
pub struct Variables {
    pub names: &'static [&'static str],
    pub commands: &'static [&'static str],
    pub what: &'static str,
}

impl Variables {
    /// Whether `command` (`deploy`; `""`: folio itself, `folio --help`) reads these.
    pub fn read_by(&self, command: &str) -> bool {
        if self.commands.is_empty() { command.is_empty() } else { self.commands.contains(&command) }
    }
}

pub const VARIABLES: &[Variables] = &[
    Variables {
        names: &["AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_SESSION_TOKEN"],
        commands: &["deploy"],
        what: "credentials for s3:// deploys and the CloudFront purge (also every other AWS_* setting of object_store's S3 client). ~/.aws files are not read.",
    },
    Variables {
        names: &[
            "AWS_WEB_IDENTITY_TOKEN_FILE",
            "AWS_ROLE_ARN",
            "AWS_CONTAINER_CREDENTIALS_RELATIVE_URI",
            "AWS_CONTAINER_CREDENTIALS_FULL_URI",
        ],
        commands: &["deploy"],
        what: "credentials from a web identity (GitHub's OIDC) or a container role, instead of keys.",
    },
    Variables {
        names: &[
            "AWS_REGION",
            "AWS_DEFAULT_REGION",
            "AWS_ENDPOINT_URL_S3",
            "AWS_ENDPOINT_URL",
            "AWS_ENDPOINT",
        ],
        commands: &["deploy"],
        what: "the S3 region and endpoint when [deploy] and the command line give none; a variable set to \"\" counts as unset.",
    },
    Variables {
        names: &["AWS_ENDPOINT_URL_CLOUDFRONT"],
        commands: &["deploy"],
        what: "the CloudFront API's endpoint for the purge (default: AWS's own).",
    },
    Variables {
        names: &["CLOUDFLARE_API_TOKEN", "CLOUDFLARE_API_BASE_URL"],
        commands: &["deploy"],
        what: "the API token of a Cloudflare purge (the zone's Cache Purge permission), and the API's base URL (default: Cloudflare's own).",
    },
    Variables {
        names: &[
            "GOOGLE_SERVICE_ACCOUNT",
            "GOOGLE_SERVICE_ACCOUNT_PATH",
            "GOOGLE_SERVICE_ACCOUNT_KEY",
            "GOOGLE_APPLICATION_CREDENTIALS",
        ],
        commands: &["deploy"],
        what: "credentials for gs:// deploys (also every other GOOGLE_* setting of object_store's GCS client).",
    },
    Variables {
        names: &[
            "AZURE_STORAGE_ACCOUNT_NAME",
            "AZURE_STORAGE_ACCOUNT_KEY",
            "AZURE_STORAGE_ACCESS_KEY",
            "AZURE_STORAGE_SAS_KEY",
            "AZURE_STORAGE_TOKEN",
            "AZURE_CLIENT_ID",
        ],
        commands: &["deploy"],
        what: "credentials for az:// deploys (also every other AZURE_* setting of object_store's Azure client).",
    },
    Variables {
        names: &["AZURE_STORAGE_USE_EMULATOR", "AZURITE_BLOB_STORAGE_URL"],
        commands: &["deploy"],
        what: "deploy to Azurite, Azure's storage emulator, instead of Azure.",
    },
    Variables {
        names: &["HTTPS_PROXY", "HTTP_PROXY", "ALL_PROXY", "NO_PROXY"],
        commands: &["deploy"],
        what: "the proxy the store's and the CDN's requests go through, and the hosts that bypass it (also in lowercase).",
    },
    Variables {
        names: &["NO_COLOR", "CLICOLOR_FORCE"],
        commands: &[],
        what: "no colour, or colour even when the output is no terminal, in help; a usage error has colour on a terminal only.",
    },
];

/// Every name of [`VARIABLES`], in its order.
pub fn names() -> impl Iterator<Item = &'static str> {
    VARIABLES.iter().flat_map(|v| v.names.iter().copied())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_variable_is_listed_twice() {
        let mut all: Vec<&str> = names().collect();
        let count = all.len();
        all.sort_unstable();
        all.dedup();
        assert_eq!(all.len(), count);
    }
}
