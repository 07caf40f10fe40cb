//! Hosts checked through emulators: Netlify, Cloudflare Pages, CloudFront, Vercel. Each
//! runs the emitted files in a local stand-in for the host, a child whose process group is
//! killed when the test ends, and is checked against the whole request table; what the
//! host (or its emulator) does differently is pinned per row in `tests/requests.json`.
//! Netlify and Cloudflare Pages run their vendors' own CLIs (`tests/package.json`, installed
//! with `npm ci --ignore-scripts` in `tests/`); CloudFront and Vercel run the emulators in
//! `tests/hosts/`. A missing program skips a test locally and fails it under CI.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::Duration;

use crate::harness::{Server, free_port, need, repo};
use crate::hosts::{each_listing, host_fixture};
use crate::table::{self, Compression, Target};

/// Set in the environment of the test binary that the netlify test re-runs inside a new
/// network namespace.
const NETLIFY_NS: &str = "FOLIO_TEST_NETLIFY_NETNS";

fn node_bin(name: &str) -> String {
    repo().join("tests/node_modules/.bin").join(name).to_string_lossy().into_owned()
}

fn emulator(name: &str) -> String {
    repo().join("tests/hosts").join(name).to_string_lossy().into_owned()
}

fn target<'a>(name: &'a str, port: u16, output: &'a Path, unchecked: &'a [&'a str]) -> Target<'a> {
    Target {
        name,
        port,
        mount: "",
        output,
        // None of these hosts serves `.br`/`.gz` siblings.
        precompressed: false,
        unchecked_headers: unchecked,
        cache_control: "public, max-age=300",
    }
}

/// Starts `cmd` with both streams in `log` and waits until it accepts connections on
/// `port`; a child that exits or stays silent fails the test with its log.
fn start(name: &str, cmd: &mut Command, port: u16, log: &Path, deadline: Duration) -> Server {
    Server::start(name, cmd, port, Some(log), deadline)
}

#[test]
fn cloudfront_function_answers_the_whole_table() {
    if !need("node") {
        return;
    }
    each_listing("cloudfront", |listing| {
        let port = free_port();
        let p = host_fixture(&["cloudfront"], port, listing, "");
        let output = p.path("output");
        let t = target("cloudfront", port, &output, &[]);
        let _server = start(
            "cloudfront emulator",
            Command::new("node")
                .arg(emulator("cloudfront-emulator.mjs"))
                .arg(p.path("hosting/cloudfront-function.js"))
                .arg(&output)
                .arg(port.to_string())
                .arg(t.cache_control),
            port,
            &p.path("cloudfront.log"),
            Duration::from_secs(20),
        );
        table::run(&t);
    });
}

#[test]
fn vercel_routes_answer_the_whole_table() {
    if !need("node") {
        return;
    }
    each_listing("vercel", |listing| {
        let port = free_port();
        let p = host_fixture(&["vercel"], port, listing, "");
        let output = p.path("output");
        let _server = start(
            "vercel emulator",
            Command::new("node")
                .arg(emulator("vercel-emulator.mjs"))
                .arg(&output)
                .arg(port.to_string()),
            port,
            &p.path("vercel.log"),
            Duration::from_secs(20),
        );
        // No Last-Modified on Vercel's static files (pinned in the rows that need one).
        table::run(&target("vercel", port, &output, &["last-modified"]));
    });
}

#[test]
fn cloudflare_pages_worker_answers_the_whole_table() {
    let wrangler = node_bin("wrangler");
    if !need("node") || !need(&wrangler) {
        return;
    }
    each_listing("cloudflare", |listing| {
        let port = free_port();
        let p = host_fixture(&["cloudflare"], port, listing, "");
        let output = p.path("output");
        // wrangler writes its state (.wrangler/) into its working directory: a scratch one.
        let scratch = tempfile::tempdir().unwrap();
        let _server = start(
            "wrangler pages dev",
            Command::new(&wrangler)
                .arg("pages")
                .arg("dev")
                .arg(&output)
                .args(["--port", &port.to_string(), "--ip", "127.0.0.1"])
                .args(["--inspector-port", &free_port().to_string()])
                .args(["--compatibility-date", "2024-09-23"])
                .env("WRANGLER_SEND_METRICS", "false")
                .env("CI", "1")
                .current_dir(scratch.path()),
            port,
            &scratch.path().join("wrangler.log"),
            Duration::from_secs(60),
        );
        // The edge compresses by Accept-Encoding itself and never serves the siblings. Pages
        // keeps no modification time: no Last-Modified (pinned in the rows that need one).
        table::run_with(
            &target("cloudflare", port, &output, &["last-modified"]),
            Compression::Edge,
        );
    });
}

/// `wrangler dev` of `config` on `port`, its state (the local R2 buckets) in `state`.
fn wrangler_dev(config: &Path, port: u16, state: &Path, scratch: &Path, log: &str) -> Server {
    start(
        "wrangler dev",
        Command::new(node_bin("wrangler"))
            .arg("dev")
            .arg("--config")
            .arg(config)
            .args(["--port", &port.to_string(), "--ip", "127.0.0.1"])
            // Its own devtools port: two at once on the default 9229 kill the second runtime
            // ("Address already in use"), as the tests run side by side.
            .args(["--inspector-port", &free_port().to_string()])
            .arg("--persist-to")
            .arg(state)
            .env("WRANGLER_SEND_METRICS", "false")
            .env("CI", "1")
            .current_dir(scratch),
        port,
        &scratch.join(log),
        Duration::from_secs(60),
    )
}

#[test]
fn cloudflare_worker_from_r2_answers_the_whole_table() {
    let wrangler = node_bin("wrangler");
    if !need("node") || !need(&wrangler) {
        return;
    }
    each_listing("cloudflare (R2)", |listing| {
        let port = free_port();
        let extra = "[hosting.cloudflare]\nserve_from = \"r2\"\n[deploy]\nurl = \"s3://api-bucket/site\"\nendpoint = \"https://account.r2.cloudflarestorage.com\"";
        let p = host_fixture(&["cloudflare"], port, listing, extra);
        let output = p.path("output");
        assert!(!output.join("_worker.js").exists(), "from R2, nothing of Pages is published");
        let config = p.path("hosting/wrangler.toml");
        let scratch = tempfile::tempdir().unwrap();
        let state = scratch.path().join("state");

        // What `folio deploy` puts in the bucket: deployed to a folder with the same prefix,
        // then every object of it (folio's record and lock too: the Worker must not serve them)
        // put into the local R2 bucket through a seeding Worker bound to it.
        let bucket = scratch.path().join("bucket");
        p.folio(&["deploy", "--to", &format!("file://{}/site", bucket.display())]).success();
        let seed_config = scratch.path().join("seed.toml");
        std::fs::write(
            &seed_config,
            format!(
                "name = \"seed\"\nmain = {:?}\ncompatibility_date = \"2024-09-23\"\n\n[[r2_buckets]]\nbinding = \"BUCKET\"\nbucket_name = \"api-bucket\"\n",
                emulator("r2-seed.mjs")
            ),
        )
        .unwrap();
        let seed_port = free_port();
        let seeder = wrangler_dev(&seed_config, seed_port, &state, scratch.path(), "seed.log");
        let mut objects = 0;
        for (key, path) in crate::harness::files(&bucket) {
            let body = std::fs::read(path).unwrap();
            let res = table::request_with_body(seed_port, "PUT", &format!("/{key}"), &[], &body);
            assert_eq!(res.status, 200, "seeding {key}");
            objects += 1;
        }
        assert!(objects > 50, "{objects} objects");
        drop(seeder);

        let _worker = wrangler_dev(&config, port, &state, scratch.path(), "worker.log");
        // The objects carry no modification time the Worker passes on: no Last-Modified.
        table::run_with(
            &target("cloudflare", port, &output, &["last-modified"]),
            Compression::Edge,
        );
        // folio's own objects in the bucket are no files of the API.
        for path in
            ["/.folio-deploy.json.gz", "/api/../.folio-deploy.json.gz", "/site/api/index.json"]
        {
            assert_eq!(table::request(port, "GET", path, &[]).status, 404, "{path}");
        }
    });
}

/// netlify dev has no host option and listens on every interface, so the test runs in a
/// network namespace of its own holding only loopback: this test re-runs the test binary
/// there, for [`netlify_in_its_own_network_namespace`] to start netlify dev and run the
/// table with the client in the same namespace.
#[test]
fn netlify_rules_answer_the_whole_table() {
    if !need("node") || !need("unshare") || !need("ip") || !need(&node_bin("netlify")) {
        return;
    }
    let exe = std::env::current_exe().unwrap();
    let out = Command::new("unshare")
        .args([
            "--map-root-user",
            "--net",
            "--",
            "sh",
            "-c",
            r#"ip link set lo up && exec "$@""#,
            "sh",
        ])
        .arg(&exe)
        .args(["--exact", "emulators::netlify_in_its_own_network_namespace"])
        .args(["--include-ignored", "--nocapture", "--test-threads=1"])
        .env(NETLIFY_NS, "1")
        .output()
        .unwrap();
    eprint!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(
        out.status.success(),
        "the netlify run in its network namespace failed: {}",
        out.status
    );
    let ran = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        ran.matches("table on netlify: ").count(),
        table::LISTINGS.len(),
        "the table did not run in the namespace with every listing"
    );
}

#[test]
#[ignore = "runs only in the network namespace netlify_rules_answer_the_whole_table makes"]
fn netlify_in_its_own_network_namespace() {
    if std::env::var_os(NETLIFY_NS).is_none() {
        eprintln!(
            "skipping: netlify_rules_answer_the_whole_table runs this in a network namespace"
        );
        return;
    }
    let netlify = node_bin("netlify");
    // netlify dev writes .netlify/ into its working directory and edits the .gitignore of
    // an enclosing git repository: a scratch directory outside the repository.
    each_listing("netlify", |listing| {
        let scratch = tempfile::tempdir().unwrap();
        let cwd: PathBuf = scratch.path().into();
        let port = free_port();
        let p = host_fixture(&["netlify"], port, listing, "");
        let output = p.path("output");
        let cli = |args: &[&str]| {
            let mut c = Command::new(&netlify);
            c.args(args).env("BROWSER", "none").env("NO_UPDATE_NOTIFIER", "1").current_dir(&cwd);
            c
        };
        let status = cli(&["--telemetry-disable"]).stdout(Stdio::null()).status().unwrap();
        assert!(status.success(), "netlify --telemetry-disable: {status}");
        let _server = start(
            "netlify dev",
            cli(&[
                "dev",
                "--offline",
                "--port",
                &port.to_string(),
                "--internal-disable-edge-functions",
            ])
            .arg("--dir")
            .arg(&output),
            port,
            &cwd.join("netlify.log"),
            Duration::from_secs(60),
        );
        // Its static server sets its own Content-Type (application/json; charset=UTF-8) and
        // Cache-Control on files, over `_headers`; Netlify sends no Last-Modified.
        let unchecked = ["content-type", "cache-control", "last-modified"];
        table::run(&target("netlify", port, &output, &unchecked));
        // OPTIONS gets the status of the path there (pinned in the rows); `_headers` gives it
        // what a browser's preflight needs.
        let preflight = table::request(
            port,
            "OPTIONS",
            "/api/en/attractions?page=2",
            &[
                ("Origin", "https://app.example"),
                ("Access-Control-Request-Method", "GET"),
                ("Access-Control-Request-Headers", "authorization, x-trace-id"),
            ],
        );
        assert_eq!(preflight.status, 200);
        for (name, want) in [
            ("access-control-allow-origin", "*"),
            ("access-control-allow-methods", folio::routes::ALLOW),
            ("access-control-allow-headers", "*, Authorization"),
            ("access-control-max-age", "86400"),
        ] {
            assert_eq!(preflight.header(name), Some(want), "{name} of a preflight on netlify");
        }
    });
}
