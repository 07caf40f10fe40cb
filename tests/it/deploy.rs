//! `folio deploy`, run for real: against an S3-protocol server (`moto_server`, started on
//! 127.0.0.1 as a child and killed by its process group) and against a folder
//! (`file://`), with the same scenarios. What only a server shows is tested on it alone:
//! the headers of each role, a no-op that sends no write request, wrong credentials, a
//! missing bucket, and a server that stops answering midway (a proxy the test cuts).

use std::collections::{BTreeMap, BTreeSet};
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use futures::StreamExt;
use object_store::{ObjectStore, ObjectStoreExt};

use crate::harness::{BIN, Gate, Project, Run, Running, Server, Stderr, files, free_port, need};

mod adversary;
mod gcs;
mod sim;
use crate::table::request;
use gcs::FakeGcs;

const ACCESS_KEY: &str = "AKIAFOLIOTEST";
const SECRET_KEY: &str = "folio-test-secret";
const RECORD: &str = ".folio-deploy.json.gz";
const LEASE: &str = ".folio-deploy.lock";
/// The sample's published files: 70 pages, 6 error documents, index, OpenAPI, explorer.
const SAMPLE_OBJECTS: usize = 79;

/// An S3-protocol server on loopback.
struct Moto {
    _server: Server,
    port: u16,
}

impl Moto {
    /// Starts moto_server; with `auth`, it checks credentials after its first request.
    fn start(auth: bool) -> Option<Moto> {
        if !need("moto_server") {
            return None;
        }
        let port = free_port();
        let mut cmd = Command::new("moto_server");
        cmd.args(["-H", "127.0.0.1", "-p", &port.to_string()]);
        if auth {
            cmd.env("INITIAL_NO_AUTH_ACTION_COUNT", "1");
        }
        let log = std::env::temp_dir().join(format!("moto-{port}.log"));
        let server =
            Server::start("moto_server", &mut cmd, port, Some(&log), Duration::from_secs(60));
        Some(Moto { _server: server, port })
    }

    fn bucket(&self, name: &str) {
        let res = request(self.port, "PUT", &format!("/{name}"), &[]);
        assert_eq!(res.status, 200, "creating bucket {name}");
    }
}

/// Azure's storage emulator (npm `azurite`, pinned in tests/package.json) on loopback,
/// in memory; its well-known development account.
struct Azurite {
    _server: Server,
    port: u16,
}

const AZURITE_ACCOUNT: &str = "devstoreaccount1";
const AZURITE_KEY: &str =
    "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==";

impl Azurite {
    fn start() -> Option<Azurite> {
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
    fn container(&self, name: &str) {
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
enum Remote {
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

type Headers = (Option<String>, Option<String>, Option<String>);

impl Remote {
    fn s3(moto: &Moto, prefix: &str) -> Remote {
        moto.bucket("site");
        Remote::S3 {
            via: moto.port,
            server: moto.port,
            bucket: "site".into(),
            prefix: prefix.into(),
        }
    }

    fn azure(azurite: &Azurite, prefix: &str) -> Remote {
        azurite.container("site");
        let port = azurite.port;
        Remote::Azure { via: port, server: port, container: "site".into(), prefix: prefix.into() }
    }

    fn gcs(emulator: &FakeGcs, prefix: &str) -> Remote {
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
    fn gcs_key(keys: &tempfile::TempDir, port: u16) -> PathBuf {
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

    fn url(&self) -> String {
        match self {
            Remote::S3 { bucket, prefix, .. } => format!("s3://{bucket}/{prefix}"),
            Remote::Dir(dir) => format!("file://{}", dir.display()),
            Remote::Azure { container, prefix, .. } => format!("az://{container}/{prefix}"),
            Remote::Gcs { bucket, prefix, .. } => format!("gs://{bucket}/{prefix}"),
        }
    }

    fn through(&self, port: u16) -> Remote {
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

    fn command(&self, p: &Project, extra: &[&str]) -> Command {
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

    fn deploy_env(&self, p: &Project, extra: &[&str], env: &[(&str, &str)]) -> Run {
        let mut cmd = self.command(p, extra);
        cmd.envs(env.iter().copied());
        let output = cmd.output().expect("running folio deploy");
        Run::of(format!("folio deploy --to {} {}", self.url(), extra.join(" ")), output)
    }

    fn deploy(&self, p: &Project, extra: &[&str]) -> Run {
        self.deploy_env(p, extra, &[])
    }

    fn client(&self) -> (Arc<dyn ObjectStore>, String) {
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
    fn leftovers(&self) -> Vec<String> {
        let Remote::Dir(dir) = self else { return Vec::new() };
        crate::harness::files(dir)
            .into_keys()
            .filter(|k| k.rsplit('/').next().is_some_and(|n| n.starts_with(".folio-tmp-")))
            .collect()
    }

    /// Every object below the prefix (folio's record aside) with its bytes. In a folder,
    /// the temporary file of a write cut short (`.folio-tmp-*`, hidden from folio's own
    /// listings and removed by the next deploy: [`Remote::leftovers`]) is no object.
    fn objects(&self) -> BTreeMap<String, Vec<u8>> {
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
    fn headers(&self, rel: &str) -> Headers {
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

    /// Every object below the prefix with its ETag.
    fn etags(&self) -> BTreeMap<String, String> {
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
    fn wipe(&self) {
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
    fn record(&self) -> folio::deploy::record::Record {
        let (store, prefix) = self.client();
        let key = if prefix.is_empty() { RECORD.to_string() } else { format!("{prefix}/{RECORD}") };
        let bytes = runtime()
            .block_on(async { store.get(&key.into()).await.unwrap().bytes().await.unwrap() });
        folio::deploy::record::Record::from_bytes(&bytes).unwrap()
    }

    fn put_record(&self, record: &folio::deploy::record::Record) {
        self.put_foreign(RECORD, &record.to_bytes());
    }

    /// An object folio did not write.
    fn put_foreign(&self, rel: &str, body: &[u8]) {
        let (store, prefix) = self.client();
        let key = if prefix.is_empty() { rel.to_string() } else { format!("{prefix}/{rel}") };
        let payload = object_store::PutPayload::from(body.to_vec());
        runtime().block_on(store.put_opts(&key.into(), payload, Default::default())).unwrap();
    }
}

fn runtime() -> tokio::runtime::Runtime {
    tokio::runtime::Builder::new_current_thread().enable_all().build().unwrap()
}

/// What `folio deploy` publishes of `p`: the files of `output/` but hidden ones.
fn published(p: &Project) -> BTreeMap<String, Vec<u8>> {
    let mut tree = p.tree("output");
    tree.retain(|rel, _| !rel.split('/').any(|s| s.starts_with('.')));
    tree
}

/// The counts of the summary line: (uploaded, unchanged, deleted).
fn counts(run: &Run) -> (usize, usize, usize) {
    let line = run.stdout();
    let num = |word: &str| -> usize {
        let before = line.split(word).next().unwrap();
        before
            .rsplit([' ', ','])
            .next()
            .unwrap()
            .parse()
            .unwrap_or_else(|_| panic!("no {word} in {line}"))
    };
    (num(" uploaded"), num(" unchanged"), num(" deleted"))
}

/// The keys `--dry-run` says it would upload, and would delete.
fn dry_plan(run: &Run) -> (BTreeSet<String>, BTreeSet<String>) {
    let mut up = BTreeSet::new();
    let mut del = BTreeSet::new();
    for line in run.stdout().lines() {
        if let Some(rest) = line.strip_prefix("upload ") {
            up.insert(rest.split(' ').next().unwrap().to_string());
        } else if let Some(rest) = line.strip_prefix("delete ") {
            del.insert(rest.to_string());
        }
    }
    (up, del)
}

/// Keys whose content differs between two trees (added, changed or removed).
fn changed(
    before: &BTreeMap<String, Vec<u8>>,
    after: &BTreeMap<String, Vec<u8>>,
) -> BTreeSet<String> {
    let keys: BTreeSet<&String> = before.keys().chain(after.keys()).collect();
    keys.into_iter().filter(|k| before.get(*k) != after.get(*k)).cloned().collect()
}

fn rename_first_record(p: &Project) {
    let csv = p.read("data/attractions.csv").replacen("Eiffel Tower,", "The Eiffel Tower,", 1);
    p.write("data/attractions.csv", csv);
}

/// One more record: every page changes (its `total`), and so does `api/index.json`.
fn add_a_record(p: &Project) {
    let mut lines = p.read("data/more/attractions.jsonl");
    lines.push_str("{\"id\": 68, \"name\": {\"en\": \"New Place\"}}\n");
    p.write("data/more/attractions.jsonl", lines);
}

fn set_config(p: &Project, from: &str, to: &str) {
    let cfg = p.read("folio.toml");
    assert!(cfg.contains(from), "folio.toml has no {from:?}");
    p.write("folio.toml", cfg.replace(from, to));
}

/// Every object is the old or the new content of its file.
fn each_old_or_new(
    remote: &Remote,
    old: &BTreeMap<String, Vec<u8>>,
    new: &BTreeMap<String, Vec<u8>>,
) {
    for (key, bytes) in remote.objects() {
        assert!(
            old.get(&key) == Some(&bytes) || new.get(&key) == Some(&bytes),
            "{key} is neither old nor new"
        );
    }
}

// --- The scenarios, each run against every store (`on_every_store!`). ---------------------

/// Runs a scenario against a folder, an S3-protocol server (moto), Azure's emulator
/// (Azurite) and GCS's (fake-gcs-server), as tests in a module of the scenario's name
/// (`deploy::SCENARIO::folder`, `::s3`, `::azure`, `::gcs`); with `headers`, only on the
/// stores that keep headers (not a folder). A server that is not installed skips its test
/// with a reason (and fails it under CI).
macro_rules! on_every_store {
    ($scenario:ident, prefix = $prefix:expr) => {
        on_every_store!(@stores $scenario, $prefix, {
            #[test]
            fn folder() {
                let (_dir, remote) = super::folder();
                super::$scenario(&remote);
            }
        });
    };
    ($scenario:ident, prefix = $prefix:expr, headers) => {
        on_every_store!(@stores $scenario, $prefix, {});
    };
    (@stores $scenario:ident, $prefix:expr, { $($folder:item)* }) => {
        mod $scenario {
            $($folder)*

            #[test]
            fn s3() {
                let Some(moto) = super::Moto::start(false) else { return };
                super::$scenario(&super::Remote::s3(&moto, $prefix));
            }

            #[test]
            fn azure() {
                let Some(azurite) = super::Azurite::start() else { return };
                super::$scenario(&super::Remote::azure(&azurite, $prefix));
            }

            #[test]
            fn gcs() {
                let Some(emulator) = super::FakeGcs::start() else { return };
                super::$scenario(&super::Remote::gcs(&emulator, $prefix));
            }
        }
    };
}

/// The keys a purge list file names (`objects`).
fn purged_objects(path: &std::path::Path) -> BTreeSet<String> {
    let list: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    list["objects"].as_array().unwrap().iter().map(|u| u.as_str().unwrap().to_string()).collect()
}

fn purge_arg(p: &Project, name: &str) -> (PathBuf, String) {
    let path = p.path(name);
    let arg = path.to_str().unwrap().to_string();
    (path, arg)
}

fn first_deploy_mirrors_output_and_a_rerun_or_a_fresh_clone_uploads_nothing(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    let first = remote.deploy(&p, &[]).success();
    assert_eq!(counts(&first), (SAMPLE_OBJECTS, 0, 0));
    assert!(remote.objects() == published(&p), "the store holds output/, object for object");
    let again = remote.deploy(&p, &[]).success();
    assert_eq!(counts(&again), (0, SAMPLE_OBJECTS, 0));
    // A fresh clone in CI: another folder, the same sources, a new build.
    let clone = Project::sample();
    clone.folio(&["build"]).success();
    assert_eq!(counts(&remote.deploy(&clone, &[]).success()), (0, SAMPLE_OBJECTS, 0));
}
on_every_store!(
    first_deploy_mirrors_output_and_a_rerun_or_a_fresh_clone_uploads_nothing,
    prefix = "travel"
);

fn one_changed_record_uploads_exactly_its_pages_and_purges_their_urls(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    let (first, first_arg) = purge_arg(&p, "first.json");
    remote.deploy(&p, &["--purge-list", &first_arg]).success();
    assert_eq!(purged_objects(&first), published(&p).into_keys().collect());
    let before = published(&p);
    rename_first_record(&p);
    p.folio(&["build"]).success();
    let after = published(&p);
    let want = changed(&before, &after);
    assert_eq!(want.len(), 8, "record 1 is on page 1 of 4 sizes, English and unprefixed");

    let dry = remote.deploy(&p, &["--dry-run"]).success();
    assert_eq!(dry_plan(&dry), (want.clone(), BTreeSet::new()));
    assert!(remote.objects() == before, "a dry run changes nothing");

    let (purge, arg) = purge_arg(&p, "purge.json");
    let run = remote.deploy(&p, &["--purge-list", &arg]).success();
    assert_eq!(counts(&run), (8, SAMPLE_OBJECTS - 8, 0));
    assert!(remote.objects() == after);
    let list: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&purge).unwrap()).unwrap();
    let urls: BTreeSet<String> =
        list["urls"].as_array().unwrap().iter().map(|u| u.as_str().unwrap().to_string()).collect();
    assert_eq!(urls, expected_urls(&want));
    assert_eq!(purged_objects(&purge), want);
    assert_eq!(
        list["cloudfront"]["Paths"]["Quantity"],
        list["cloudfront"]["Paths"]["Items"].as_array().unwrap().len()
    );
}
on_every_store!(
    one_changed_record_uploads_exactly_its_pages_and_purges_their_urls,
    prefix = "travel"
);

fn changes_are_purged_until_a_purge_list_names_them(remote: &Remote) {
    // Deploys without --purge-list (a manual one, say) change the store too: the next
    // purge list names what they changed as well as its own changes.
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let first = published(&p);
    rename_first_record(&p);
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let (purge, arg) = purge_arg(&p, "purge.json");
    // Nothing to upload, and still the list names everything changed since no list did.
    let run = remote.deploy(&p, &["--purge-list", &arg]).success();
    assert_eq!(counts(&run).0, 0);
    assert_eq!(purged_objects(&purge), first.keys().cloned().collect());
    // Named once, forgotten: the next list is empty.
    remote.deploy(&p, &["--purge-list", &arg]).success();
    assert!(purged_objects(&purge).is_empty());
}
on_every_store!(changes_are_purged_until_a_purge_list_names_them, prefix = "travel");

/// The URLs a CDN may hold for changed files of the sample (root-relative: its base_url is
/// empty), written out independently of folio: the path form, the query form of links,
/// at the default size (10) `?page=P` and, for page 1, the bare endpoint, and for page 1
/// of every size `?per_page=S`.
fn expected_urls(changed: &BTreeSet<String>) -> BTreeSet<String> {
    let page = regex::Regex::new(r"^(api/(?:[a-z]+/)?attractions)/(\d+)/(\d+)\.json$").unwrap();
    let mut out = BTreeSet::new();
    for rel in changed {
        out.insert(format!("/{rel}"));
        if let Some(c) = page.captures(rel) {
            let (endpoint, size, page) = (&c[1], &c[2], &c[3]);
            out.insert(format!("/{endpoint}?page={page}&per_page={size}"));
            if size == "10" {
                out.insert(format!("/{endpoint}?page={page}"));
                if page == "1" {
                    out.insert(format!("/{endpoint}"));
                }
            }
            if page == "1" {
                out.insert(format!("/{endpoint}?per_page={size}"));
            }
        }
    }
    out
}

fn stale_objects_go_foreign_ones_stay_and_max_deletes_guards(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    remote.put_foreign("mine/notes.txt", b"not folio's");
    remote.put_foreign("api/en/attractions/notes.md", b"not folio's either");
    let before = remote.objects();
    set_config(&p, "page_sizes = [10, 20, 50, 100]", "page_sizes = [10, 20, 50]");
    p.folio(&["build"]).success();

    let refused = remote.deploy(&p, &["--max-deletes", "4"]).fails(1);
    assert!(refused.stderr().contains("refusing to delete 5 objects"), "{}", refused.stderr());
    assert!(refused.stderr().contains("pass --max-deletes 5"), "{}", refused.stderr());
    assert!(remote.objects() == before, "nothing uploaded, nothing deleted");

    let run = remote.deploy(&p, &[]).success();
    assert_eq!(counts(&run).2, 5, "the five size-100 pages");
    let mut want = published(&p);
    want.insert("mine/notes.txt".into(), b"not folio's".to_vec());
    want.insert("api/en/attractions/notes.md".into(), b"not folio's either".to_vec());
    assert!(remote.objects() == want, "stale pages gone, foreign objects kept");
}
on_every_store!(stale_objects_go_foreign_ones_stay_and_max_deletes_guards, prefix = "");

fn a_deploy_cut_short_leaves_a_usable_store_and_the_next_finishes(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let old = published(&p);
    add_a_record(&p);
    p.folio(&["build"]).success();
    let new = published(&p);
    let cut = remote.deploy_env(&p, &[], &[("FOLIO_FAULT", "upload:20")]).fails(2);
    assert!(cut.stderr().contains("injected fault: upload #20"), "{}", cut.stderr());
    each_old_or_new(remote, &old, &new);
    let objects = remote.objects();
    assert_eq!(objects["api/index.json"], old["api/index.json"], "what links to pages goes last");
    let done = remote.deploy(&p, &[]).success();
    assert!(remote.objects() == new, "the next deploy finishes the job");
    eprintln!("after a cut at upload 20, the next deploy uploaded {}", counts(&done).0);
}
on_every_store!(a_deploy_cut_short_leaves_a_usable_store_and_the_next_finishes, prefix = "travel");

/// 40 more records (pages past the sample's last) and no page size 100 (its pages are
/// deleted): a build whose deploy uploads new keys, changes old ones and deletes some.
fn grow_and_drop_a_size(p: &Project) {
    let mut jsonl = String::new();
    for id in 100..140 {
        jsonl.push_str(&format!("{{\"id\": {id}, \"name\": {{\"en\": \"Place {id}\"}}}}\n"));
    }
    p.write("data/grown.jsonl", jsonl);
    set_config(p, "page_sizes = [10, 20, 50, 100]", "page_sizes = [10, 20, 50]");
}

fn back_to_the_sample(p: &Project) {
    std::fs::remove_file(p.path("data/grown.jsonl")).unwrap();
    set_config(p, "page_sizes = [10, 20, 50]", "page_sizes = [10, 20, 50, 100]");
}

fn a_deploy_killed_anywhere_is_purged_and_cleaned_up_by_the_next(remote: &Remote) {
    // The store is at build A, every change purged. A deploy of build B is killed (an
    // abort at a chosen step: no cleanup, as with kill -9). Then the next deploy either
    // retries B (what a re-run CI job does: what the killed one uploaded is already
    // right, and must still be purged) or publishes A again (B's extra pages are orphans
    // no record knows: they must go). The store must then equal that build exactly, and
    // the purge list must name every key whose object changed since A: what the killed
    // deploy changed and what the finishing one changed.
    let kills =
        ["kill-record:1", "kill-upload:1", "kill-upload:40", "kill-delete:1", "kill-record:2"];
    for kill in kills {
        for retry in [true, false] {
            let p = Project::sample();
            p.folio(&["build"]).success();
            let (purge, arg) = purge_arg(&p, "purge.json");
            remote.deploy(&p, &["--purge-list", &arg]).success();
            let at_a = remote.objects();
            let a = published(&p);
            grow_and_drop_a_size(&p);
            p.folio(&["build"]).success();
            let b = published(&p);
            // A killed deploy leaves its lease on the store: a short one (1 s), so that
            // the next deploy need not wait the 30 s a real one lasts.
            let fault = format!("{kill},lease:1");
            let run = remote.deploy_env(&p, &["--purge-list", &arg], &[("FOLIO_FAULT", &fault)]);
            assert_ne!(run.code(), Some(0), "{kill}: the deploy was killed");
            let at_cut = remote.objects();
            each_old_or_new(remote, &a, &b);
            if !retry {
                back_to_the_sample(&p);
                p.folio(&["build"]).success();
            }
            let short = [("FOLIO_FAULT", "lease:1")];
            let done = remote.deploy_env(&p, &["--purge-list", &arg], &short).success();
            let at_end = remote.objects();
            let what = if retry { "retried" } else { "reverted" };
            assert!(at_end == published(&p), "{kill}, {what}: the store is that build exactly");
            let left = remote.leftovers();
            assert!(
                left.is_empty(),
                "{kill}, {what}: a killed write's temporary files stay: {left:?}"
            );
            let mut must = changed(&at_a, &at_cut);
            must.extend(changed(&at_cut, &at_end));
            let named = purged_objects(&purge);
            let missed: Vec<&String> = must.difference(&named).collect();
            assert!(missed.is_empty(), "{kill}, {what}: changed but never purged: {missed:?}");
            eprintln!(
                "{kill}, {what}: the killed deploy changed {} objects, the next uploaded {} and deleted {}, and purged {} ({} needed)",
                changed(&at_a, &at_cut).len(),
                counts(&done).0,
                counts(&done).2,
                named.len(),
                must.len()
            );
            remote.wipe();
        }
    }
}
on_every_store!(a_deploy_killed_anywhere_is_purged_and_cleaned_up_by_the_next, prefix = "travel");

fn a_build_waits_for_a_deploy_which_publishes_one_build(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    add_a_record(&p);
    p.folio(&["build"]).success();
    let b = published(&p);
    // The deploy of B stops midway (at its third upload), holding the output folder.
    let gate = Gate::new();
    let mut deploy = remote.command(&p, &[]);
    deploy.envs(gate.env("wait-upload:3")).stdout(Stdio::null()).stderr(Stdio::null());
    let mut deploy = Running(deploy.spawn().unwrap());
    gate.wait_reached(&mut deploy);
    // Meanwhile the data changes again and a build starts: it waits, saying so.
    rename_first_record(&p);
    let (mut build, said) = p.spawn_folio(&["build"], &[]);
    said.wait_for(
        "waiting for another folio command (a build or a deploy) to finish with `output`",
    );
    assert!(build.try_wait().unwrap().is_none(), "the build waits");
    let refused = p.folio(&["build", "--no-wait"]).fails(1);
    assert!(refused.stderr().contains("another folio command"), "{}", refused.stderr());
    assert!(published(&p) == b, "output/ is still build B");
    gate.open();
    assert!(deploy.wait().unwrap().success());
    assert!(build.wait().unwrap().success(), "{}", said.all());
    assert!(remote.objects() == b, "the deploy published build B, all of it and only it");
    let c = published(&p);
    assert!(c != b);
    remote.deploy(&p, &[]).success();
    assert!(remote.objects() == c);
}
on_every_store!(a_build_waits_for_a_deploy_which_publishes_one_build, prefix = "travel");

fn a_file_changed_behind_folios_back_stops_the_deploy(remote: &Remote) {
    // The lock keeps folio's builds out; a hand edit during a deploy is caught by the MD5
    // the scan took: what is sent is exactly what was hashed.
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let a = published(&p);
    add_a_record(&p);
    p.folio(&["build"]).success();
    let b = published(&p);
    let gate = Gate::new();
    let mut deploy = remote.command(&p, &[]);
    deploy.envs(gate.env("wait-upload:3")).stdout(Stdio::null()).stderr(Stdio::piped());
    let mut deploy = Running(deploy.spawn().unwrap());
    let said = Stderr::of(&mut deploy);
    gate.wait_reached(&mut deploy);
    // The index goes up after every page: it has not been read yet.
    let edited = b"{\"edited\": \"by hand, mid-deploy\"}\n";
    p.write("output/api/index.json", edited);
    gate.open();
    let code = deploy.wait().unwrap().code();
    let said = said.all();
    assert_eq!(code, Some(2), "{said}");
    assert!(said.contains("`output/api/index.json` changed while it was being deployed"), "{said}");
    assert!(remote.objects().values().all(|v| v != edited), "the edited bytes were not sent");
    each_old_or_new(remote, &a, &b);
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    assert!(remote.objects() == b);
}
on_every_store!(a_file_changed_behind_folios_back_stops_the_deploy, prefix = "travel");

fn refusals_name_the_reason(remote: &Remote) {
    let p = Project::sample();
    let run = remote.deploy(&p, &[]).fails(1);
    assert!(
        run.stderr().contains("no build in `output`: run `folio build`, then deploy"),
        "{}",
        run.stderr()
    );
    p.folio(&["build"]).success();
    p.write("output/.folio-staging/commit.json", "{}");
    let run = remote.deploy(&p, &[]).fails(1);
    assert!(run.stderr().contains("a build is half switched into `output`"), "{}", run.stderr());
    std::fs::remove_dir_all(p.path("output/.folio-staging")).unwrap();
    set_config(&p, "sort = [\"id\"]", "sort = [\"-id\"]");
    let run = remote.deploy(&p, &[]).fails(1);
    assert!(
        run.stderr().contains("`folio.toml` changed since `output` was built"),
        "{}",
        run.stderr()
    );
    // A build for another address (a preview's, say) is not published.
    p.folio(&["build", "--base-url", "http://127.0.0.1:8080/travel"]).success();
    let run = remote.deploy(&p, &[]).fails(1);
    assert!(
        run.stderr().contains("`output` was built for the base_url `http://127.0.0.1:8080/travel`, but folio.toml configures \"\" (root-relative links)"),
        "{}",
        run.stderr()
    );
    // A purge list that cannot be written is found out before anything is sent.
    p.folio(&["build"]).success();
    for bad in [p.path("nowhere/purge.json"), p.path("data")] {
        let run = remote.deploy(&p, &["--purge-list", bad.to_str().unwrap()]).fails(1);
        assert!(run.stderr().contains("cannot write the purge list"), "{}", run.stderr());
        assert!(run.stderr().contains("nothing was sent"), "{}", run.stderr());
    }
    assert!(remote.objects().is_empty(), "nothing was sent");
}
on_every_store!(refusals_name_the_reason, prefix = "travel");

// --- A folder. ----------------------------------------------------------------------------

fn folder() -> (tempfile::TempDir, Remote) {
    let dir = tempfile::tempdir().unwrap();
    let remote = Remote::Dir(dir.path().join("www"));
    (dir, remote)
}

#[test]
fn a_folder_target_is_never_written_or_deleted_through_a_symlink() {
    let (dir, remote) = folder();
    let Remote::Dir(www) = &remote else { unreachable!() };
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(outside.join("fr/attractions/10")).unwrap();
    std::fs::write(outside.join("fr/attractions/10/1.json"), "precious").unwrap();
    std::fs::create_dir_all(www.join("api")).unwrap();
    std::os::unix::fs::symlink(&outside, www.join("api/fr")).unwrap();
    let p = Project::sample();
    p.folio(&["build"]).success();
    let run = remote.deploy(&p, &[]).fails(1);
    assert!(run.stderr().contains("holds a symlink (`api/fr`)"), "{}", run.stderr());
    assert!(run.stderr().contains("never writes or deletes through a symlink"), "{}", run.stderr());
    assert_eq!(files(&outside).len(), 1, "nothing written outside the target");
    assert_eq!(
        std::fs::read_to_string(outside.join("fr/attractions/10/1.json")).unwrap(),
        "precious"
    );
    assert!(!www.join("api/en").exists(), "nothing written at all");
    // Deletes neither: a deployed target that gains a link is refused before the deletes.
    std::fs::remove_file(www.join("api/fr")).unwrap();
    remote.deploy(&p, &[]).success();
    set_config(&p, "page_sizes = [10, 20, 50, 100]", "page_sizes = [10, 20, 50]");
    p.folio(&["build"]).success();
    let moved = dir.path().join("moved");
    std::fs::rename(www.join("api/fr/attractions/100"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, www.join("api/fr/attractions/100")).unwrap();
    let run = remote.deploy(&p, &[]).fails(1);
    assert!(run.stderr().contains("`api/fr/attractions/100`"), "{}", run.stderr());
    assert!(moved.join("1.json").exists(), "nothing deleted through the link");
}

#[test]
fn the_deploy_url_can_come_from_the_config() {
    let (dir, _) = folder();
    let www = dir.path().join("www");
    let p = Project::sample();
    p.write(
        "folio.toml",
        format!("{}\n[deploy]\nurl = \"file://{}\"\n", p.read("folio.toml"), www.display()),
    );
    let run = p.folio(&["deploy"]).fails(1);
    assert!(run.stderr().contains("no build"), "{}", run.stderr());
    p.folio(&["build"]).success();
    let run = p.folio(&["deploy", "--quiet"]).success();
    assert!(run.stdout().is_empty());
    assert!(files(&www).contains_key("api/index.json"));
    std::fs::write(p.path("nothing.toml"), "").unwrap();
    let run = p.folio(&["deploy", "--config", "nothing.toml"]).fails(1);
    assert!(run.stderr().contains("nowhere to deploy"), "{}", run.stderr());
}

// --- An S3-protocol server. ---------------------------------------------------------------

fn objects_get_the_headers_of_their_role(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    // Each role got its headers.
    let json = Some("application/json; charset=utf-8".to_string());
    let cc = Some("public, max-age=300".to_string());
    assert_eq!(remote.headers("api/fr/attractions/20/2.json"), (json.clone(), cc.clone(), None));
    assert_eq!(remote.headers("api/index.json"), (json.clone(), cc.clone(), None));
    assert_eq!(remote.headers("api/openapi.json"), (json, cc.clone(), None));
    assert_eq!(
        remote.headers("api/explorer.html"),
        (Some("text/html; charset=utf-8".into()), cc, None)
    );
    assert_eq!(
        remote.headers("api/errors/invalid_page.json"),
        (Some("application/problem+json".into()), None, None)
    );
}
on_every_store!(objects_get_the_headers_of_their_role, prefix = "travel", headers);

fn a_noop_writes_nothing_and_reads_one_listing_a_folder(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    // A no-op deploy, from a fresh clone: no write request at all, and reads in proportion
    // to folio's folders, not its files (counted by a proxy in between, and by folio).
    let server = match remote {
        Remote::S3 { server, .. } | Remote::Azure { server, .. } | Remote::Gcs { server, .. } => {
            *server
        }
        Remote::Dir(_) => unreachable!("stores with headers only"),
    };
    let proxy = Proxy::start(server, usize::MAX);
    let p = Project::sample();
    p.folio(&["build"]).success();
    let run = remote.through(proxy.port).deploy(&p, &[]).success();
    assert_eq!(counts(&run).0, 0);
    assert_eq!(proxy.writes(), 0, "no PUT, POST or DELETE");
    // One listing a folder: api/, api/errors/ and the 20 page folders (5 variants, 4
    // sizes); one GET of folio's record; no HEAD, no file read.
    assert_eq!(proxy.kinds(), "22 list, 0 head, 1 get, 0 put, 0 delete");
    assert!(run.stdout().contains(&format!("; requests: {}", proxy.kinds())), "{}", run.stdout());
    assert_eq!(proxy.requests(), 23);
}
on_every_store!(a_noop_writes_nothing_and_reads_one_listing_a_folder, prefix = "travel", headers);

fn a_cache_control_change_resends_headers(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let before = published(&p);
    p.write(
        "folio.toml",
        format!("{}\n[output]\ncache_control = \"public, max-age=60\"\n", p.read("folio.toml")),
    );
    p.folio(&["build"]).success();
    let dry = remote.deploy(&p, &["--dry-run"]).success();
    let (uploads, _) = dry_plan(&dry);
    let with_cache_control: BTreeSet<String> =
        before.keys().filter(|k| !k.starts_with("api/errors/")).cloned().collect();
    assert_eq!(uploads, with_cache_control, "every page, the index, OpenAPI document and explorer");
    // Their bytes are the same (the OpenAPI document aside, which states the header).
    assert_eq!(changed(&before, &published(&p)), BTreeSet::from(["api/openapi.json".to_string()]));
    let resent = dry.stdout().lines().filter(|l| l.ends_with("(headers changed)")).count();
    assert_eq!(resent, uploads.len() - 1);
    remote.deploy(&p, &[]).success();
    assert_eq!(
        remote.headers("api/en/attractions/10/7.json").1.as_deref(),
        Some("public, max-age=60")
    );
    assert_eq!(
        remote.headers("api/errors/not_found.json").1,
        None,
        "errors keep the host's caching"
    );
}
on_every_store!(a_cache_control_change_resends_headers, prefix = "travel", headers);

#[test]
fn s3_a_killed_deploy_is_finished_and_purged_by_the_next() {
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "big");
    // 600 records: about 540 objects, a few seconds through moto.
    let p = Project::sample();
    let mut jsonl = String::new();
    for id in 100..700 {
        jsonl.push_str(&format!(
            "{{\"id\": {id}, \"name\": {{\"en\": \"Place {id}\"}}, \"rating\": 3.5}}\n"
        ));
    }
    p.write("data/generated.jsonl", &jsonl);
    p.folio(&["build"]).success();
    let (purge, arg) = purge_arg(&p, "purge.json");
    let started = Instant::now();
    remote.deploy(&p, &["--purge-list", &arg]).success();
    let full = started.elapsed();
    let old = published(&p);
    p.write("data/generated.jsonl", jsonl.replace("3.5", "3.6"));
    p.folio(&["build"]).success();
    let new = published(&p);
    let mut child = remote
        .command(&p, &["--purge-list", &arg])
        .env("FOLIO_FAULT", "lease:1")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    std::thread::sleep(full.mul_f64(0.5));
    child.kill().unwrap(); // SIGKILL: nothing is finished or cleaned up
    let status = child.wait().unwrap();
    eprintln!("killed after {:?} of a {full:?} deploy: {status}", full.mul_f64(0.5));
    each_old_or_new(&remote, &old, &new);
    remote.deploy_env(&p, &["--purge-list", &arg], &[("FOLIO_FAULT", "lease:1")]).success();
    assert!(remote.objects() == new);
    let missed: Vec<String> =
        changed(&old, &new).difference(&purged_objects(&purge)).cloned().collect();
    assert!(missed.is_empty(), "changed but never purged: {missed:?}");
}

#[test]
fn s3_a_server_that_stops_midway_gives_exit_2_and_nothing_is_deleted() {
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "travel");
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let old = published(&p);
    // The next build drops a page size (5 stale pages) and changes every page.
    set_config(&p, "page_sizes = [10, 20, 50, 100]", "page_sizes = [10, 20, 50]");
    add_a_record(&p);
    p.folio(&["build"]).success();
    let new = published(&p);
    // The proxy cuts after the record's intent and nine uploads.
    let proxy = Proxy::start(moto.port, 10);
    let run = remote.through(proxy.port).deploy(&p, &[]).fails(2);
    assert!(run.stderr().contains("error: uploading `api/"), "names the object: {}", run.stderr());
    each_old_or_new(&remote, &old, &new);
    let objects = remote.objects();
    for stale in old.keys().filter(|k| k.contains("/100/")) {
        assert!(objects.contains_key(stale), "{stale} was deleted although an upload failed");
    }
    remote.deploy(&p, &[]).success();
    assert!(remote.objects() == new);
}

#[test]
fn s3_wrong_credentials_and_a_missing_bucket_are_named() {
    let Some(moto) = Moto::start(true) else { return };
    let remote = Remote::s3(&moto, "travel");
    let p = Project::sample();
    p.folio(&["build"]).success();
    let run = remote.deploy(&p, &[]).fails(2);
    assert!(
        run.stderr()
            .contains("error: reading `.folio-deploy.json.gz` on s3://site/travel: 403 Forbidden"),
        "{}",
        run.stderr()
    );
    assert!(run.stderr().contains("InvalidAccessKeyId"), "the store's own words: {}", run.stderr());

    let Some(open) = Moto::start(false) else { return };
    let missing = Remote::S3 {
        via: open.port,
        server: open.port,
        bucket: "nobucket".into(),
        prefix: String::new(),
    };
    let run = missing.deploy(&p, &[]).fails(2);
    assert!(run.stderr().contains("NoSuchBucket"), "{}", run.stderr());
}

#[test]
fn malformed_endpoints_and_regions_are_refused_naming_them() {
    // Checked before any client is built, so no store is needed; none of them may reach
    // the S3 client, whose URL and header code panics on them.
    let p = Project::sample();
    p.folio(&["build"]).success();
    let deploy = |args: &[&str], env: &[(&str, &str)]| {
        let mut cmd = Command::new(BIN);
        cmd.args(["deploy", "--to", "s3://site/travel"]).args(args).current_dir(p.dir.path());
        for var in [
            "AWS_REGION",
            "AWS_DEFAULT_REGION",
            "AWS_ENDPOINT",
            "AWS_ENDPOINT_URL",
            "AWS_ENDPOINT_URL_S3",
        ] {
            cmd.env_remove(var);
        }
        cmd.env("AWS_ACCESS_KEY_ID", ACCESS_KEY).env("AWS_SECRET_ACCESS_KEY", SECRET_KEY);
        cmd.envs(env.iter().copied());
        Run::of(format!("folio deploy {}", args.join(" ")), cmd.output().unwrap())
    };
    for endpoint in [
        "http://",
        "http://[::1",
        "http://a b",
        "http://host:99999",
        "http://%zz",
        "localhost:9000",
    ] {
        let run = deploy(&["--endpoint", endpoint], &[]).fails(1);
        let stderr = run.stderr();
        assert!(
            stderr.contains(&format!(
                "the endpoint `{endpoint}` (from --endpoint or [deploy] endpoint)"
            )),
            "{stderr}"
        );
        assert!(!stderr.contains("panicked"), "{stderr}");
    }
    let run = deploy(&[], &[("AWS_ENDPOINT_URL", "http://a b")]).fails(1);
    assert!(run.stderr().contains("(from AWS_ENDPOINT_URL)"), "{}", run.stderr());
    for var in ["AWS_REGION", "AWS_DEFAULT_REGION"] {
        let run = deploy(&["--endpoint", "http://127.0.0.1:9"], &[(var, "eu west")]).fails(1);
        assert!(
            run.stderr()
                .contains(&format!("the region `eu west` (from {var}) is not a region name")),
            "{}",
            run.stderr()
        );
    }
    set_config(&p, "[hosting]", "[deploy]\nregion = \"eu west 1\"\n\n[hosting]");
    p.folio(&["build"]).success();
    let run = deploy(&["--endpoint", "http://127.0.0.1:9"], &[]).fails(1);
    assert!(run.stderr().contains("(from [deploy] region)"), "{}", run.stderr());
    for target in ["s3://b%zz/x", "s3://user@site/x", "s3://site:9000/x"] {
        let mut cmd = Command::new(BIN);
        cmd.args(["deploy", "--to", target]).current_dir(p.dir.path());
        let run = Run::of(format!("folio deploy --to {target}"), cmd.output().unwrap()).fails(1);
        assert!(run.stderr().contains("the deploy URL"), "{}", run.stderr());
    }
}

#[test]
fn s3_an_empty_region_variable_is_unset() {
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "travel");
    let p = Project::sample();
    p.folio(&["build"]).success();
    // moto answers any region; what is checked is that "" is not sent as one.
    let run =
        remote.deploy_env(&p, &[], &[("AWS_DEFAULT_REGION", ""), ("AWS_REGION", "")]).success();
    assert_eq!(counts(&run).0, SAMPLE_OBJECTS);
}

#[test]
fn s3_a_forged_record_vouches_for_nothing_and_deletes_nothing_foreign() {
    // Someone with write access to the bucket replaces a page (same size, other bytes)
    // and edits folio's record so that its entry names the new object's ETag; they also
    // add an entry for a foreign object, as if folio had written it.
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "travel");
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let page = "api/en/attractions/10/3.json";
    let mut tampered = published(&p)[page].clone();
    tampered[2] = b'#';
    remote.put_foreign(page, &tampered);
    remote.put_foreign("theirs/report.csv", b"a,b\n1,2\n");
    let listed = remote.etags();
    let mut record = remote.record();
    record.objects.get_mut(page).unwrap().etag = listed[page].clone();
    let mut foreign = record.objects[page].clone();
    foreign.etag = listed["theirs/report.csv"].clone();
    foreign.md5 = folio::deploy::record::etag_md5(&foreign.etag).unwrap();
    foreign.size = 8;
    record.objects.insert("theirs/report.csv".into(), foreign);
    remote.put_record(&record);

    let run = remote.deploy(&p, &[]).success();
    assert_eq!(counts(&run).0, 1, "the tampered page is sent again");
    let mut want = published(&p);
    want.insert("theirs/report.csv".into(), b"a,b\n1,2\n".to_vec());
    assert!(remote.objects() == want, "the page is right again; the foreign object stays");
}

/// A TCP proxy in front of the server: counts requests and write requests, and after
/// `cut_after` write requests cuts every connection and refuses new ones, as a server
/// that stops (while the real one keeps its state for the test to inspect).
struct Proxy {
    port: u16,
    requests: Arc<AtomicUsize>,
    writes: Arc<AtomicUsize>,
    kinds: Arc<Mutex<BTreeMap<&'static str, usize>>>,
    stop: Arc<AtomicBool>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

impl Proxy {
    fn start(upstream: u16, cut_after: usize) -> Proxy {
        Proxy::start_with(upstream, cut_after, false)
    }

    /// A proxy that blanks every `<ETag>` element of what the server answers (keeping
    /// its length, so the framing holds): a store whose listings carry no ETags, as some
    /// S3-compatible servers are.
    fn without_listed_etags(upstream: u16) -> Proxy {
        Proxy::start_with(upstream, usize::MAX, true)
    }

    fn start_with(upstream: u16, cut_after: usize, blank_etags: bool) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let requests = Arc::new(AtomicUsize::new(0));
        let writes = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let kinds = Arc::new(Mutex::new(BTreeMap::new()));
        let (r, w, s, k) = (requests.clone(), writes.clone(), stop.clone(), kinds.clone());
        std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                let Ok((client, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                };
                if w.load(Ordering::SeqCst) >= cut_after {
                    drop(client); // the server is gone
                    continue;
                }
                client.set_nonblocking(false).unwrap();
                let server = TcpStream::connect(("127.0.0.1", upstream)).unwrap();
                let (r, w, s, k) = (r.clone(), w.clone(), s.clone(), k.clone());
                let (c2, s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                std::thread::spawn(move || {
                    pump_requests(client, server, &r, &w, &k, cut_after, &s);
                });
                std::thread::spawn(move || {
                    let (mut from, mut to) = (s2, c2);
                    if blank_etags {
                        pump_blanking_etags(&mut from, &mut to);
                    } else {
                        let _ = std::io::copy(&mut from, &mut to);
                    }
                    let _ = to.shutdown(Shutdown::Both);
                });
            }
        });
        Proxy { port, requests, writes, kinds, stop }
    }

    /// Requests seen, by kind, in folio's words (`3 list, 0 head, 1 get, 0 put, 0 delete`).
    fn kinds(&self) -> String {
        let k = self.kinds.lock().unwrap();
        let n = |kind: &str| k.get(kind).copied().unwrap_or(0);
        format!(
            "{} list, {} head, {} get, {} put, {} delete",
            n("list"),
            n("head"),
            n("get"),
            n("put"),
            n("delete")
        )
    }

    fn writes(&self) -> usize {
        self.writes.load(Ordering::SeqCst)
    }

    fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

/// Copies client → server, counting request lines by method, until `cut_after` writes.
fn pump_requests(
    mut client: TcpStream,
    mut server: TcpStream,
    requests: &AtomicUsize,
    writes: &AtomicUsize,
    kinds: &Mutex<BTreeMap<&'static str, usize>>,
    cut_after: usize,
    stop: &AtomicBool,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match client.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        for kind in request_kinds(chunk) {
            requests.fetch_add(1, Ordering::SeqCst);
            if !matches!(kind, "list" | "get" | "head") {
                writes.fetch_add(1, Ordering::SeqCst);
            }
            *kinds.lock().unwrap().entry(kind).or_default() += 1;
        }
        if writes.load(Ordering::SeqCst) > cut_after
            || stop.load(Ordering::SeqCst)
            || server.write_all(chunk).is_err()
        {
            break;
        }
    }
    let _ = client.shutdown(Shutdown::Both);
    let _ = server.shutdown(Shutdown::Both);
}

/// Copies server → client, each `<ETag>...</ETag>` element turned into as many spaces
/// (whitespace between XML elements). An element split across reads is held back until
/// it is whole.
fn pump_blanking_etags(from: &mut TcpStream, to: &mut TcpStream) {
    let (open, close) = (b"<ETag>".as_slice(), b"</ETag>".as_slice());
    let find = |hay: &[u8], needle: &[u8], from: usize| {
        hay[from..].windows(needle.len()).position(|w| w == needle).map(|i| i + from)
    };
    let (mut pending, mut buf) = (Vec::new(), vec![0u8; 64 * 1024]);
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        pending.extend_from_slice(&buf[..n]);
        let mut at = 0;
        let mut hold = pending.len().saturating_sub(open.len() - 1);
        while let Some(start) = find(&pending, open, at) {
            match find(&pending, close, start) {
                Some(end) => {
                    pending[start..end + close.len()].fill(b' ');
                    at = end + close.len();
                }
                None => {
                    hold = start;
                    break;
                }
            }
        }
        if to.write_all(&pending[..hold]).is_err() {
            return;
        }
        pending.drain(..hold);
    }
    let _ = to.write_all(&pending);
}

/// The kind of each request line in a chunk (at its start or after a `\n`: a request
/// follows the previous one's body directly, which may end in a plain `\n`), by the same
/// rule folio counts them: a GET asking for a listing is `list`, a POST asking for a batch
/// delete is `delete`.
fn request_kinds(chunk: &[u8]) -> Vec<&'static str> {
    let text = String::from_utf8_lossy(chunk);
    let mut kinds = Vec::new();
    for line in text.split('\n') {
        let mut words = line.split(' ');
        let (Some(method), Some(target), Some(version)) =
            (words.next(), words.next(), words.next())
        else {
            continue;
        };
        if !version.starts_with("HTTP/1") {
            continue;
        }
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let has = |w: &str| query.split('&').any(|p| p == w || p.starts_with(&format!("{w}=")));
        kinds.push(match method {
            "GET" if has("list-type") || query.contains("comp=list") || path.ends_with("/o") => {
                "list"
            }
            "GET" => "get",
            "HEAD" => "head",
            "DELETE" => "delete",
            "POST" if has("delete") => "delete",
            "PUT" | "POST" => "put",
            _ => continue,
        });
    }
    kinds
}

fn two_deploys_to_one_store_take_turns_and_leave_one_build(remote: &Remote) {
    // Two CI jobs, each with its own checkout and build, publish to the same store at once.
    let first = Project::sample();
    first.folio(&["build"]).success();
    let second = Project::sample();
    add_a_record(&second);
    second.folio(&["build"]).success();
    // A lease of one second: the first deploy, held midway for longer than that, keeps it
    // by renewing it.
    let gate = Gate::new();
    let mut one = remote.command(&first, &[]);
    one.envs(gate.env("wait-upload:3,lease:1")).stdout(Stdio::null()).stderr(Stdio::null());
    let mut one = Running(one.spawn().unwrap());
    gate.wait_reached(&mut one);
    let refused =
        remote.deploy_env(&second, &["--no-wait"], &[("FOLIO_FAULT", "lease:1")]).fails(1);
    assert!(refused.stderr().contains("another folio deploy is "), "{}", refused.stderr());
    let mut two = remote.command(&second, &[]);
    two.env("FOLIO_FAULT", "lease:1").stdout(Stdio::null()).stderr(Stdio::piped());
    let mut two = Running(two.spawn().unwrap());
    let said = Stderr::of(&mut two);
    said.wait_for("waiting");
    // Longer than a lease lasts unrenewed: the first keeps renewing it, so the second
    // goes on waiting.
    std::thread::sleep(Duration::from_millis(2500));
    assert!(two.try_wait().unwrap().is_none(), "the second deploy waits");
    gate.open();
    assert!(one.wait().unwrap().success());
    assert!(two.wait().unwrap().success(), "{}", said.all());
    assert!(remote.objects() == published(&second), "the store is the second build, whole");
    // And folio's record agrees: a third deploy of the same build changes nothing.
    assert_eq!(counts(&remote.deploy(&second, &[]).success()), (0, SAMPLE_OBJECTS, 0));
}
on_every_store!(two_deploys_to_one_store_take_turns_and_leave_one_build, prefix = "travel");

fn a_killed_deploys_lease_is_taken_over_once_it_lapses(remote: &Remote) {
    let p = Project::sample();
    p.folio(&["build"]).success();
    let lease = ("FOLIO_FAULT", "kill-upload:3,lease:2");
    let run = remote.deploy_env(&p, &[], &[lease]);
    assert_ne!(run.code(), Some(0), "killed");
    let started = Instant::now();
    remote.deploy_env(&p, &[], &[("FOLIO_FAULT", "lease:2")]).success();
    eprintln!("the next deploy went ahead after {:?}", started.elapsed());
    assert!(remote.objects() == published(&p));
}
on_every_store!(a_killed_deploys_lease_is_taken_over_once_it_lapses, prefix = "travel");

#[test]
fn s3_a_store_that_lists_no_etags_is_vouched_for_by_modification_times() {
    // Some S3-compatible servers (s3s-fs, which the deploy benchmark runs) list objects
    // without ETags. folio then learns each object's modification time (from a listing,
    // or a HEAD of what it just uploaded) and trusts a record entry whose object still has
    // it; without that, every object would get a HEAD on every deploy.
    let Some(moto) = Moto::start(false) else { return };
    let proxy = Proxy::without_listed_etags(moto.port);
    let remote = Remote::s3(&moto, "travel").through(proxy.port);
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let requests =
        |run: &Run| run.stdout().split("; requests: ").nth(1).unwrap().trim().to_string();
    // The first deploy saw no listing to tell: the next checks every object once.
    let learn = remote.deploy(&p, &[]).success();
    assert_eq!(counts(&learn), (0, SAMPLE_OBJECTS, 0));
    // A HEAD an object, one of the record once the lease is held; the lease and the record
    // with the learnt times written.
    assert_eq!(requests(&learn), "22 list, 80 head, 1 get, 2 put, 1 delete");
    let noop = remote.deploy(&p, &[]).success();
    assert_eq!(requests(&noop), "22 list, 0 head, 1 get, 0 put, 0 delete");
    // A changed record: its pages go up, and their times are learnt at once.
    rename_first_record(&p);
    p.folio(&["build"]).success();
    let change = remote.deploy(&p, &[]).success();
    assert_eq!(counts(&change).0, 8);
    // Learnt with a listing of each small folder most of whose pages changed, a HEAD of
    // each other page; plus the usual listings and the record's HEAD: 22 + 8 + 1.
    let kinds: Vec<u64> = requests(&change)
        .split(", ")
        .map(|k| k.split(' ').next().unwrap().parse().unwrap())
        .collect();
    assert_eq!(kinds[0] + kinds[1], 31, "{}", change.stdout());
    assert_eq!(
        requests(&remote.deploy(&p, &[]).success()),
        "22 list, 0 head, 1 get, 0 put, 0 delete"
    );
    // Someone rewrites a page with other bytes of the same size, a second later: the
    // time no longer vouches, and the page is sent again.
    std::thread::sleep(Duration::from_millis(1100));
    let page = "api/fr/attractions/10/2.json";
    let mut other = published(&p)[page].clone();
    other[3] = b'#';
    remote.put_foreign(page, &other);
    let repaired = remote.deploy(&p, &[]).success();
    assert_eq!(counts(&repaired).0, 1, "{}", repaired.stdout());
    assert!(remote.objects() == published(&p));
}

#[test]
fn a_comment_or_a_deploy_setting_needs_no_rebuild() {
    let (_dir, remote) = folder();
    let p = Project::sample();
    p.folio(&["build"]).success();
    p.write(
        "folio.toml",
        format!(
            "# a comment\n{}\n[deploy]\nconcurrency = 8\nmax_deletes = 10\n",
            p.read("folio.toml")
        ),
    );
    // What shapes the output is as it was: the deploy goes ahead, a build writes nothing.
    assert_eq!(counts(&remote.deploy(&p, &[]).success()).0, SAMPLE_OBJECTS);
    assert_eq!(p.folio(&["build"]).success().counts(), (0, 83, 0));
    // A setting that shapes the output still needs one.
    set_config(&p, "sort = [\"id\"]", "sort = [\"-id\"]");
    let run = remote.deploy(&p, &[]).fails(1);
    assert!(
        run.stderr().contains("changed since `output` was built, in what shapes the output"),
        "{}",
        run.stderr()
    );
}

#[test]
fn s3_missing_credentials_are_named() {
    let Some(moto) = Moto::start(true) else { return };
    let remote = Remote::s3(&moto, "travel");
    let p = Project::sample();
    p.folio(&["build"]).success();
    let mut cmd = remote.command(&p, &[]);
    cmd.env_remove("AWS_ACCESS_KEY_ID").env_remove("AWS_SECRET_ACCESS_KEY");
    // No instance metadata service here: a closed port answers at once.
    cmd.env("AWS_METADATA_ENDPOINT", "http://127.0.0.1:9");
    let run = Run::of("folio deploy (no credentials)".into(), cmd.output().unwrap()).fails(2);
    assert!(
        run.stderr().contains("no credentials were found in the environment: folio looked for AWS_ACCESS_KEY_ID with AWS_SECRET_ACCESS_KEY"),
        "{}",
        run.stderr()
    );
    // Half a pair is named by the variable that is missing, before any request.
    let mut cmd = remote.command(&p, &[]);
    cmd.env_remove("AWS_ACCESS_KEY_ID").env("AWS_SECRET_ACCESS_KEY", "secret");
    let run = Run::of("folio deploy (half a pair)".into(), cmd.output().unwrap()).fails(1);
    assert!(
        run.stderr().contains(
            "AWS_SECRET_ACCESS_KEY is set but AWS_ACCESS_KEY_ID is not (they go together)"
        ),
        "{}",
        run.stderr()
    );
}
