//! The stores the deploy tests publish to: an S3-protocol server (moto), Azure's emulator
//! (Azurite), GCS's (fake-gcs-server, in `gcs.rs`) and a folder, each as a [`Remote`] that
//! runs `folio deploy` against it and reads back what it holds.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::Command;
use std::sync::Arc;
use std::time::Duration;

use futures::StreamExt;
use object_store::{ObjectStore, ObjectStoreExt};

use super::{ACCESS_KEY, FakeGcs, LEASE, RECORD, SECRET_KEY};
use crate::harness::{BIN, Project, Run, Server, folio_snapshot_of, free_port, need};
use crate::table::request;

/// An S3-protocol server on loopback.
pub struct Moto {
    _server: Server,
    pub port: u16,
}

impl Moto {
    /// Starts moto_server; with `auth`, it checks credentials after its first request.
    pub fn start(auth: bool) -> Option<Moto> {
        if !need("moto_server") {
            return None;
        }
        let port = free_port();
        let mut cmd = Command::new(crate::harness::tool("moto_server"));
        cmd.args(["-H", "127.0.0.1", "-p", &port.to_string()]);
        if auth {
            cmd.env("INITIAL_NO_AUTH_ACTION_COUNT", "1");
        }
        let log = std::env::temp_dir().join(format!("moto-{port}.log"));
        let server =
            Server::start("moto_server", &mut cmd, port, Some(&log), Duration::from_secs(60));
        Some(Moto { _server: server, port })
    }

    pub fn bucket(&self, name: &str) {
        let res = request(self.port, "PUT", &format!("/{name}"), &[]);
        assert_eq!(res.status, 200, "creating bucket {name}");
    }
}

/// Azure's storage emulator (npm `azurite`, pinned in tests/package.json) on loopback,
/// in memory; its well-known development account.
pub struct Azurite {
    _server: Server,
    port: u16,
}

const AZURITE_ACCOUNT: &str = "devstoreaccount1";
const AZURITE_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

impl Azurite {
    pub fn start() -> Option<Azurite> {
        let bin = crate::harness::repo().join("tests/node_modules/.bin/azurite-blob");
        if !need("node") || !need(bin.to_str().unwrap()) {
            return None;
        }
        let port = free_port();
        let mut cmd = Command::new(bin);
        cmd.args(["--blobHost", "127.0.0.1", "--blobPort", &port.to_string()])
            .args(["--inMemoryPersistence", "--disableTelemetry", "--silent"])
            .current_dir(std::env::temp_dir());
        let log = std::env::temp_dir().join(format!("azurite-{port}.log"));
        let server = Server::start("azurite", &mut cmd, port, Some(&log), Duration::from_secs(60));
        Some(Azurite { _server: server, port })
    }

    /// Creates a container (Azure's Create Container, signed with the account's key).
    pub fn container(&self, name: &str) {
        use base64::Engine;
        let b64 = base64::engine::general_purpose::STANDARD;
        let date = httpdate::fmt_http_date(std::time::SystemTime::now());
        let version = "2021-08-06";
        let to_sign = format!(
            "PUT\n\n\n\n\n\n\n\n\n\n\n\nx-ms-date:{date}\nx-ms-version:{version}\n/{AZURITE_ACCOUNT}/{AZURITE_ACCOUNT}/{name}\nrestype:container"
        );
        let key = ring::hmac::Key::new(ring::hmac::HMAC_SHA256, &b64.decode(AZURITE_KEY).unwrap());
        let signature = b64.encode(ring::hmac::sign(&key, to_sign.as_bytes()).as_ref());
        let auth = format!("SharedKey {AZURITE_ACCOUNT}:{signature}");
        let target = format!("/{AZURITE_ACCOUNT}/{name}?restype=container");
        let headers =
            [("x-ms-date", date.as_str()), ("x-ms-version", version), ("Authorization", &auth)];
        let res = request(self.port, "PUT", &target, &headers);
        assert_eq!(
            res.status,
            201,
            "creating container {name}: {}",
            String::from_utf8_lossy(&res.body)
        );
    }
}

/// Where a scenario deploys to.
pub enum Remote {
    /// A bucket on `moto`, reached through `via` (the server's port, or a proxy's).
    S3 {
        via: u16,
        server: u16,
        bucket: String,
        prefix: String,
    },
    Dir(PathBuf),
    /// A bucket on fake-gcs-server, reached through `via` (the emulator's translating
    /// proxy, or a counting proxy in front of it); `keys` holds the key files that say so.
    Gcs {
        via: u16,
        server: u16,
        bucket: String,
        prefix: String,
        keys: Arc<tempfile::TempDir>,
    },
    /// A container on Azurite, reached through `via` (the server's port, or a proxy's).
    Azure {
        via: u16,
        server: u16,
        container: String,
        prefix: String,
    },
}

pub type Headers = (Option<String>, Option<String>, Option<String>);

impl Remote {
    pub fn s3(moto: &Moto, prefix: &str) -> Remote {
        moto.bucket("site");
        Remote::S3 {
            via: moto.port,
            server: moto.port,
            bucket: "site".into(),
            prefix: prefix.into(),
        }
    }

    pub fn azure(azurite: &Azurite, prefix: &str) -> Remote {
        azurite.container("site");
        let port = azurite.port;
        Remote::Azure { via: port, server: port, container: "site".into(), prefix: prefix.into() }
    }

    pub fn gcs(emulator: &FakeGcs, prefix: &str) -> Remote {
        emulator.bucket("site");
        Remote::Gcs {
            via: emulator.port,
            server: emulator.port,
            bucket: "site".into(),
            prefix: prefix.into(),
            keys: Arc::new(tempfile::tempdir().unwrap()),
        }
    }

    /// The key file object_store reads for a GCS remote: its address, and no OAuth.
    pub fn gcs_key(keys: &tempfile::TempDir, port: u16) -> PathBuf {
        let path = keys.path().join(format!("gcs-{port}.json"));
        let key = serde_json::json!({
            "gcs_base_url": format!("http://127.0.0.1:{port}"),
            "disable_oauth": true,
            "client_email": "",
            "private_key": "",
            "private_key_id": "",
        });
        std::fs::write(&path, key.to_string()).unwrap();
        path
    }

    pub fn url(&self) -> String {
        match self {
            Remote::S3 { bucket, prefix, .. } => format!("s3://{bucket}/{prefix}"),
            Remote::Dir(dir) => format!("file://{}", dir.display()),
            Remote::Azure { container, prefix, .. } => format!("az://{container}/{prefix}"),
            Remote::Gcs { bucket, prefix, .. } => format!("gs://{bucket}/{prefix}"),
        }
    }

    pub fn through(&self, port: u16) -> Remote {
        match self {
            Remote::S3 { server, bucket, prefix, .. } => Remote::S3 {
                via: port,
                server: *server,
                bucket: bucket.clone(),
                prefix: prefix.clone(),
            },
            Remote::Azure { server, container, prefix, .. } => Remote::Azure {
                via: port,
                server: *server,
                container: container.clone(),
                prefix: prefix.clone(),
            },
            Remote::Gcs { server, bucket, prefix, keys, .. } => Remote::Gcs {
                via: port,
                server: *server,
                bucket: bucket.clone(),
                prefix: prefix.clone(),
                keys: keys.clone(),
            },
            Remote::Dir(_) => panic!("a folder is reached through no proxy"),
        }
    }

    pub fn command(&self, p: &Project, extra: &[&str]) -> Command {
        let mut cmd = Command::new(BIN);
        cmd.arg("deploy").arg("--to").arg(self.url()).args(extra).current_dir(p.dir.path());
        cmd.env("AWS_ACCESS_KEY_ID", ACCESS_KEY).env("AWS_SECRET_ACCESS_KEY", SECRET_KEY);
        cmd.env_remove("FOLIO_FAULT").env_remove("AWS_ENDPOINT").env_remove("AWS_REGION");
        if let Remote::S3 { via, .. } = self {
            cmd.arg("--endpoint").arg(format!("http://127.0.0.1:{via}"));
        }
        for (key, _) in std::env::vars().filter(|(k, _)| {
            k.starts_with("AZURE") || k.starts_with("AZURITE") || k.starts_with("GOOGLE")
        }) {
            cmd.env_remove(key);
        }
        if let Remote::Gcs { via, keys, .. } = self {
            cmd.env("GOOGLE_SERVICE_ACCOUNT", Remote::gcs_key(keys, *via));
        }
        if let Remote::Azure { via, .. } = self {
            // object_store's emulator settings, as a user of Azurite sets them.
            cmd.env("AZURE_STORAGE_USE_EMULATOR", "true");
            cmd.env("AZURITE_BLOB_STORAGE_URL", format!("http://127.0.0.1:{via}"));
        }
        cmd
    }

    pub fn deploy_env(&self, p: &Project, extra: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = self.command(p, extra);
        cmd.envs(env.iter().copied());
        let output = cmd.output().expect("running folio deploy");
        Run::of(format!("folio deploy --to {} {}", self.url(), extra.join(" ")), output)
    }

    pub fn deploy(&self, p: &Project, extra: &[&str]) -> Run {
        self.deploy_env(p, extra, &[])
    }

    /// Which store this is (`folder`, `s3`, `azure`, `gcs`), as the tests
    /// `on_every_store!` makes are named: a snapshot a scenario takes is one per store.
    pub fn store(&self) -> &'static str {
        match self {
            Remote::Dir(_) => "folder",
            Remote::S3 { .. } => "s3",
            Remote::Azure { .. } => "azure",
            Remote::Gcs { .. } => "gcs",
        }
    }

    /// `folio deploy` to this store as [`folio_snapshot_of`] gives it, for
    /// `insta::assert_snapshot!`, with what differs from run to run replaced: a folder
    /// target's temporary path by `[TARGET]`, the ports of the server and of a proxy in
    /// front of it (`127.0.0.1:40123`) by `[PORT]`.
    pub fn snapshot(&self, p: &Project, extra: &[&str]) -> String {
        let text = folio_snapshot_of(p.dir.path(), self.command(p, extra));
        let ports = match self {
            Remote::Dir(dir) => {
                return text.replace(dir.to_string_lossy().as_ref(), "[TARGET]");
            }
            Remote::S3 { via, server, .. }
            | Remote::Azure { via, server, .. }
            | Remote::Gcs { via, server, .. } => [*via, *server],
        };
        ports.iter().fold(text, |text, port| {
            let at = regex::Regex::new(&format!(r"\b127\.0\.0\.1:{port}\b")).unwrap();
            at.replace_all(&text, "127.0.0.1:[PORT]").into_owned()
        })
    }

    pub fn client(&self) -> (Arc<dyn ObjectStore>, String) {
        let _ = rustls::crypto::ring::default_provider().install_default();
        match self {
            Remote::S3 { server, bucket, prefix, .. } => {
                let s3 = object_store::aws::AmazonS3Builder::new()
                    .with_endpoint(format!("http://127.0.0.1:{server}"))
                    .with_allow_http(true)
                    .with_bucket_name(bucket)
                    .with_region("us-east-1")
                    .with_access_key_id(ACCESS_KEY)
                    .with_secret_access_key(SECRET_KEY)
                    .build()
                    .unwrap();
                (Arc::new(s3), prefix.clone())
            }
            Remote::Dir(dir) => (
                Arc::new(object_store::local::LocalFileSystem::new_with_prefix(dir).unwrap()),
                String::new(),
            ),
            Remote::Gcs { server, bucket, prefix, keys, .. } => {
                let gcs = object_store::gcp::GoogleCloudStorageBuilder::new()
                    .with_service_account_path(Remote::gcs_key(keys, *server).to_string_lossy())
                    .with_bucket_name(bucket)
                    .build()
                    .unwrap();
                (Arc::new(gcs), prefix.clone())
            }
            Remote::Azure { server: port, container, prefix, .. } => {
                // The emulator's address by endpoint, not by the process-wide variable
                // (tests run side by side, each with its own Azurite).
                let azure = object_store::azure::MicrosoftAzureBuilder::new()
                    .with_account(AZURITE_ACCOUNT)
                    .with_access_key(AZURITE_KEY)
                    .with_endpoint(format!("http://127.0.0.1:{port}/{AZURITE_ACCOUNT}"))
                    .with_allow_http(true)
                    .with_container_name(container)
                    .build()
                    .unwrap();
                (Arc::new(azure), prefix.clone())
            }
        }
    }

    /// The temporary files a folder target holds (none on other stores).
    pub fn leftovers(&self) -> Vec<String> {
        let Remote::Dir(dir) = self else { return Vec::new() };
        crate::harness::files(dir)
            .into_keys()
            .filter(|k| k.rsplit('/').next().is_some_and(|n| n.starts_with(".folio-tmp-")))
            .collect()
    }

    /// Every object below the prefix (folio's record aside) with its bytes. In a folder,
    /// the temporary file of a write cut short (`.folio-tmp-*`, hidden from folio's own
    /// listings and removed by the next deploy: [`Remote::leftovers`]) is no object.
    pub fn objects(&self) -> BTreeMap<String, Vec<u8>> {
        if let Remote::Dir(dir) = self
            && !dir.exists()
        {
            return BTreeMap::new();
        }
        let (store, prefix) = self.client();
        let root = (!prefix.is_empty()).then(|| object_store::path::Path::from(prefix.as_str()));
        runtime().block_on(async {
            let mut out = BTreeMap::new();
            let listed: Vec<_> = store.list(root.as_ref()).collect().await;
            for meta in listed {
                let meta = meta.unwrap();
                let key = meta.location.to_string();
                let rel = if prefix.is_empty() { key } else { key[prefix.len() + 1..].to_string() };
                let temporary =
                    rel.rsplit('/').next().is_some_and(|n| n.starts_with(".folio-tmp-"));
                if rel == RECORD || rel == LEASE || temporary {
                    continue;
                }
                let bytes = store
                    .get_opts(&meta.location, Default::default())
                    .await
                    .unwrap()
                    .bytes()
                    .await
                    .unwrap();
                out.insert(rel, bytes.to_vec());
            }
            out
        })
    }

    /// Content-Type, Cache-Control and Content-Encoding of an object (S3 only).
    pub fn headers(&self, rel: &str) -> Headers {
        let (store, prefix) = self.client();
        let key = if prefix.is_empty() { rel.to_string() } else { format!("{prefix}/{rel}") };
        let key = object_store::path::Path::from(key);
        runtime().block_on(async {
            let options = object_store::GetOptions { head: true, ..Default::default() };
            let got = store.get_opts(&key, options).await.unwrap();
            let a = |k: object_store::Attribute| got.attributes.get(&k).map(|v| v.to_string());
            use object_store::Attribute::*;
            (a(ContentType), a(CacheControl), a(ContentEncoding))
        })
    }

    /// The same store below another prefix (a folder: a folder beside this one).
    pub fn beside(&self, other: &str) -> Remote {
        match self {
            Remote::S3 { via, server, bucket, .. } => Remote::S3 {
                via: *via,
                server: *server,
                bucket: bucket.clone(),
                prefix: other.into(),
            },
            Remote::Azure { via, server, container, .. } => Remote::Azure {
                via: *via,
                server: *server,
                container: container.clone(),
                prefix: other.into(),
            },
            Remote::Gcs { via, server, bucket, keys, .. } => Remote::Gcs {
                via: *via,
                server: *server,
                bucket: bucket.clone(),
                prefix: other.into(),
                keys: keys.clone(),
            },
            Remote::Dir(dir) => Remote::Dir(dir.with_file_name(other)),
        }
    }

    /// Every attribute the store keeps of an object, folio's metadata among them, by name.
    pub fn attributes(&self, rel: &str) -> BTreeMap<String, String> {
        let (store, prefix) = self.client();
        let key = if prefix.is_empty() { rel.to_string() } else { format!("{prefix}/{rel}") };
        let key = object_store::path::Path::from(key);
        runtime().block_on(async {
            let options = object_store::GetOptions { head: true, ..Default::default() };
            let got = store.get_opts(&key, options).await.unwrap();
            (got.attributes.iter()).map(|(k, v)| (format!("{k:?}"), v.to_string())).collect()
        })
    }

    /// Every object below the prefix with its ETag.
    pub fn etags(&self) -> BTreeMap<String, String> {
        let (store, prefix) = self.client();
        let root = (!prefix.is_empty()).then(|| object_store::path::Path::from(prefix.as_str()));
        runtime().block_on(async {
            let listed: Vec<_> = store.list(root.as_ref()).collect().await;
            listed
                .into_iter()
                .map(|meta| {
                    let meta = meta.unwrap();
                    let key = meta.location.to_string();
                    let rel =
                        if prefix.is_empty() { key } else { key[prefix.len() + 1..].to_string() };
                    (rel, meta.e_tag.unwrap_or_default().trim_matches('"').to_string())
                })
                .filter(|(rel, _)| rel != LEASE)
                .collect()
        })
    }

    /// Removes every object below the prefix, folio's record too.
    pub fn wipe(&self) {
        let (store, prefix) = self.client();
        let key = |rel: &str| {
            if prefix.is_empty() { rel.to_string() } else { format!("{prefix}/{rel}") }
        };
        let mut all: Vec<String> = self.etags().into_keys().collect();
        all.extend([RECORD.to_string(), LEASE.to_string()]);
        runtime().block_on(async {
            for rel in all {
                let _ = store.delete(&key(&rel).into()).await;
            }
        });
        assert!(self.etags().is_empty());
    }

    /// folio's record on the store.
    pub fn record(&self) -> folio::deploy::record::DeployRecord {
        let (store, prefix) = self.client();
        let key = if prefix.is_empty() { RECORD.to_string() } else { format!("{prefix}/{RECORD}") };
        let bytes = runtime()
            .block_on(async { store.get(&key.into()).await.unwrap().bytes().await.unwrap() });
        folio::deploy::record::DeployRecord::from_bytes(&bytes).unwrap()
    }

    pub fn put_record(&self, record: &folio::deploy::record::DeployRecord) {
        self.put_foreign(RECORD, &record.to_bytes());
    }

    /// An object folio did not write.
    pub fn put_foreign(&self, rel: &str, body: &[u8]) {
        let (store, prefix) = self.client();
        let key = if prefix.is_empty() { rel.to_string() } else { format!("{prefix}/{rel}") };
        let payload = object_store::PutPayload::from(body.to_vec());
        runtime().block_on(store.put_opts(&key.into(), payload, Default::default())).unwrap();
    }
}

pub fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}
