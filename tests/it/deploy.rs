//! `folio deploy`, run for real: against an S3-protocol server (`moto_server`, started on
//! 127.0.0.1 as a child and killed by its process group) and against a folder
//! (`file://`), with the same scenarios. What only a server shows is tested on it alone:
//! the headers of each role, a no-op that sends no write request, wrong credentials, a
//! missing bucket, and a server that stops answering midway (a proxy the test cuts).
//!
//! This module holds what the tests share: the stores ([`remote`]), a proxy in front of
//! them ([`proxy`]), helpers and [`on_every_store!`]. The tests are grouped by concern:
//! [`basics`], [`purge`] lists, deploys [`interrupted`], the [`lease`] and lock, [`headers`],
//! [`records`], [`s3`] addresses and credentials, a [`folder_target`], then the
//! [`adversary`]'s attacks and the seeded simulation ([`sim`]).

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::harness::{BIN, Gate, Project, Run, Running, Stderr, files};

mod adversary;
pub(crate) mod cdn;
mod evidence;
mod gcs;
mod proxy;
mod remote;
mod sim;
use gcs::FakeGcs;
use proxy::Proxy;
pub(crate) use remote::Remote;
use remote::{Azurite, Moto, runtime};

const ACCESS_KEY: &str = "AKIAFOLIOTEST";
const SECRET_KEY: &str = "folio-test-secret";
const RECORD: &str = ".folio-deploy.json.gz";
const LEASE: &str = ".folio-deploy.lock";
/// The sample's published files: 70 pages, 6 error documents, index, OpenAPI, explorer.
const SAMPLE_OBJECTS: usize = 79;

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

fn folder() -> (tempfile::TempDir, Remote) {
    let dir = tempfile::tempdir().unwrap();
    let remote = Remote::Dir(dir.path().join("www"));
    (dir, remote)
}

/// Runs a scenario against a folder, an S3-protocol server (moto), Azure's emulator
/// (Azurite) and GCS's (fake-gcs-server), as tests in a module of the scenario's name
/// (`deploy::MODULE::SCENARIO::folder`, `::s3`, `::azure`, `::gcs`); with `headers`, only on the
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

// The tests, by concern (declared after `on_every_store!`, which they use).
mod basics;
mod folder_target;
mod from_data;
mod headers;
mod hosting;
mod iam;
mod interrupted;
mod lease;
mod purge;
mod records;
mod s3;
