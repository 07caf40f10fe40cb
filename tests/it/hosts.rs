//! Every host target, run for real and checked against the whole request table. Each
//! server starts as a child on 127.0.0.1 with the emitted config, used exactly as the
//! docs/hosting.md says, and is stopped by its PID when the test ends. A missing server skips the
//! test locally and fails it under CI.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use crate::harness::{Project, Server, free_port, need};
use crate::table::{self, Target};

/// The sample project built with `targets` listening on `port`, its `[listing]` with
/// `listing` (one of [`table::LISTINGS`]), plus the fixture siblings.
pub fn host_fixture(targets: &[&str], port: u16, listing: &str, extra: &str) -> Project {
    let list: Vec<String> = targets.iter().map(|t| format!("\"{t}\"")).collect();
    table::fixture_with(
        listing,
        &format!(
            r#"
            [hosting]
            targets = [{}]
            listen = "127.0.0.1:{port}"
            {extra}
        "#,
            list.join(", ")
        ),
    )
}

/// Runs `each` with every page body of [`table::LISTINGS`] in turn (a fixture, a server
/// and the whole table each), saying which on stderr.
pub fn each_listing(host: &str, mut each: impl FnMut(&str)) {
    for (name, listing) in table::LISTINGS {
        eprintln!("{host} with pages in {name}:");
        each(listing);
    }
}

fn start(name: &str, cmd: &mut Command, port: u16) -> Server {
    Server::start(name, cmd, port, None, Duration::from_secs(30))
}

#[track_caller]
fn gate(what: &str, cmd: &mut Command) {
    let out = cmd.output().unwrap_or_else(|e| panic!("{what}: {e}"));
    assert!(
        out.status.success(),
        "{what} failed:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
}

fn target<'a>(
    name: &'a str,
    port: u16,
    output: &'a Path,
    precompressed: bool,
    unchecked: &'a [&'a str],
) -> Target<'a> {
    Target {
        name,
        port,
        mount: "",
        output,
        precompressed,
        unchecked_headers: unchecked,
        cache_control: "public, max-age=300",
    }
}

/// nginx's main config as docs/hosting.md gives it, with paths a test child can write to.
fn nginx_main(p: &Project) -> std::path::PathBuf {
    let run = p.path("run");
    std::fs::create_dir_all(run.join("tmp")).unwrap();
    let hosting = p.path("hosting");
    let main = folio::hosts::nginx::MAIN_CONFIG.replace("DIR", &hosting.to_string_lossy()).replace(
        "http {\n",
        &format!(
            "http {{\n    access_log {r}/access.log;\n    client_body_temp_path {r}/tmp/body;\n    proxy_temp_path {r}/tmp/proxy;\n    fastcgi_temp_path {r}/tmp/fastcgi;\n    uwsgi_temp_path {r}/tmp/uwsgi;\n    scgi_temp_path {r}/tmp/scgi;\n",
            r = run.display()
        ),
    );
    std::fs::write(run.join("main.conf"), main).unwrap();
    run
}

#[test]
fn nginx_answers_the_whole_table() {
    if !need("nginx") {
        return;
    }
    each_listing("nginx", |listing| {
        let port = free_port();
        let p = host_fixture(&["nginx"], port, listing, "");
        let run = nginx_main(&p);
        let globals =
            format!("daemon off; pid {r}/nginx.pid; error_log {r}/error.log;", r = run.display());
        let nginx = |extra: &[&str]| {
            let mut c = Command::new("nginx");
            c.args([
                "-p",
                &run.to_string_lossy(),
                "-c",
                &run.join("main.conf").to_string_lossy(),
                "-g",
                &globals,
            ])
            .args(extra);
            c
        };
        gate("nginx -t", &mut nginx(&["-t"]));
        let _server = start("nginx", &mut nginx(&[]), port);
        let output = p.path("output");
        table::run(&target("nginx", port, &output, true, &[]));
    });
}

#[test]
fn lighttpd_answers_the_whole_table() {
    if !need("lighttpd") || !need("/usr/lib/lighttpd/mod_magnet.so") {
        return;
    }
    each_listing("lighttpd", |listing| {
        let port = free_port();
        let p = host_fixture(&["lighttpd"], port, listing, "");
        gate(
            "lighttpd -tt",
            Command::new("lighttpd")
                .args(["-tt", "-f", "hosting/lighttpd.conf"])
                .current_dir(p.dir.path()),
        );
        let _server = start(
            "lighttpd",
            Command::new("lighttpd")
                .args(["-D", "-f", "hosting/lighttpd.conf"])
                .current_dir(p.dir.path()),
            port,
        );
        let output = p.path("output");
        table::run(&target("lighttpd", port, &output, true, &[]));
    });
}

#[test]
fn apache_answers_the_whole_table() {
    if !need("apache2") || !need("/usr/lib/apache2/modules/mod_rewrite.so") {
        return;
    }
    each_listing("apache", |listing| {
        let port = free_port();
        let p = host_fixture(&["apache"], port, listing, "");
        let run = p.path("run");
        std::fs::create_dir_all(&run).unwrap();
        let main = folio::hosts::apache::MAIN_CONFIG
            .replace("RUN", &run.to_string_lossy())
            .replace("DIR", &p.path("hosting").to_string_lossy());
        let conf = run.join("apache2.conf");
        std::fs::write(&conf, main).unwrap();
        // The worker user must be able to read the published folder.
        Command::new("chmod").args(["-R", "a+rX"]).arg(p.dir.path()).status().unwrap();
        gate("apache2 -t", Command::new("apache2").args(["-t", "-f"]).arg(&conf));
        let _server =
            start("apache", Command::new("apache2").args(["-DFOREGROUND", "-f"]).arg(&conf), port);
        let output = p.path("output");
        table::run(&target("apache", port, &output, true, &[]));
    });
}

#[test]
fn caddy_answers_the_whole_table() {
    if !need("caddy") {
        return;
    }
    each_listing("caddy", |listing| {
        let port = free_port();
        let p = host_fixture(&["caddy"], port, listing, "");
        let home = p.path("run");
        let caddy = |args: &[&str]| {
            let mut c = Command::new("caddy");
            c.args(args)
                .args(["--adapter", "caddyfile", "--config", "hosting/Caddyfile"])
                .current_dir(p.dir.path())
                .env("HOME", &home)
                .env("XDG_DATA_HOME", home.join("data"))
                .env("XDG_CONFIG_HOME", home.join("config"));
            c
        };
        gate("caddy validate", &mut caddy(&["validate"]));
        let _server = start("caddy", &mut caddy(&["run"]), port);
        let output = p.path("output");
        table::run(&target("caddy", port, &output, true, &[]));
    });
}

#[test]
fn the_ci_nginx_smoke_script_passes_on_a_mounted_build_as_written() {
    if !need("nginx") || !need("jq") || !need("curl") || !need("bash") {
        return;
    }
    // docs/ci.md's script, as a user commits it.
    let doc = std::fs::read_to_string(crate::harness::repo().join("docs/ci.md")).unwrap();
    let after = doc.split("Commit this as `ci/nginx-smoke.sh`").nth(1).unwrap();
    let script = after.split("```bash\n").nth(1).unwrap().split("```").next().unwrap();
    // A base_url with a path, and nginx on a port of its own: the script finds both.
    let port = free_port();
    let p = Project::sample();
    let cfg = p.read("folio.toml");
    let targets = cfg.lines().find(|l| l.starts_with("targets = ")).unwrap().to_string();
    let listen = cfg.lines().find(|l| l.starts_with("listen = ")).unwrap().to_string();
    let cfg = cfg
        .replace("base_url = \"\"", "base_url = \"https://example.org/travel\"")
        .replace(&targets, "targets = [\"nginx\"]")
        .replace(&listen, &format!("listen = \"127.0.0.1:{port}\""));
    p.write("folio.toml", cfg);
    p.folio(&["build"]).success();
    p.write("ci/nginx-smoke.sh", script);
    let out =
        Command::new("bash").arg("ci/nginx-smoke.sh").current_dir(p.dir.path()).output().unwrap();
    let said =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && said.contains("nginx serves the API as expected"), "{said}");
}

/// What the data decides lives in the build, what folio.toml decides in `hosting/`: two
/// builds of one project, the second with 200 records more (more pages at every size),
/// write byte-identical `hosting/` trees for every target that has server files, with
/// Cloudflare from Pages and from R2; the files published with the pages do carry the
/// counts (Pages' worker, Vercel's routes), which is how one can tell the data grew.
#[test]
fn host_files_carry_no_fact_of_the_data() {
    let servers = r#""nginx", "apache", "caddy", "lighttpd", "cloudfront""#;
    for (variant, tail) in [
        ("Pages", format!("[hosting]\ntargets = [{servers}, \"cloudflare\", \"vercel\"]\n")),
        (
            "R2",
            format!(
                "[hosting]\ntargets = [{servers}, \"cloudflare\"]\n[hosting.cloudflare]\nserve_from = \"r2\"\n[deploy]\nurl = \"s3://api-bucket/site\"\nendpoint = \"https://account.r2.cloudflarestorage.com\"\n"
            ),
        ),
    ] {
        let p = Project::sample();
        let cfg = p.read("folio.toml");
        let cfg = format!("{}\n{tail}", &cfg[..cfg.find("\n[hosting]").unwrap()]);
        p.write("folio.toml", cfg);
        p.folio(&["build"]).success();
        let before = table::host_files(&p);
        let published = |p: &Project| {
            (p.tree("output").into_iter())
                .filter(|(k, _)| ["_worker.js", "vercel.json"].contains(&k.as_str()))
                .collect::<Vec<_>>()
        };
        let published_before = published(&p);
        // 200 records more: ids 1000.., the sample's first record's fields.
        let csv = p.read("data/attractions.csv");
        let first = csv.lines().nth(1).unwrap();
        let rest = first.split_once(',').unwrap().1;
        let more: String = (1000..1200).map(|id| format!("{id},{rest}\n")).collect();
        p.write("data/attractions.csv", format!("{csv}{more}"));
        p.folio(&["build"]).success();
        assert!(p.path("output/api/en/attractions/100/3.json").is_file(), "more pages");
        let after = table::host_files(&p);
        let expected = match variant {
            "Pages" => 6,
            _ => 8,
        };
        assert_eq!(before.len(), expected, "{variant}: {:?}", before.keys());
        for (name, bytes) in &before {
            assert!(
                after.get(name) == Some(bytes),
                "{variant}: hosting/{name} changed with the data"
            );
        }
        assert_eq!(before.keys().collect::<Vec<_>>(), after.keys().collect::<Vec<_>>());
        // What goes out with the pages may count them.
        let published_after = published(&p);
        assert_eq!(published_before.len(), published_after.len());
        for (a, b) in published_before.iter().zip(&published_after) {
            assert_ne!(a.1, b.1, "{variant}: output/{} counts the pages", a.0);
        }
    }
}
