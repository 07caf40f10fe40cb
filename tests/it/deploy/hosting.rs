//! The `hosting/` files no deploy publishes: the store's record keeps each one's digest,
//! and a deploy of a build whose host files differ names each, once, with the step that
//! publishes it; a build that differs only in its data names none.

use super::*;

/// The warning lines of a deploy's stderr that name a `hosting/` file.
fn named(run: &Run) -> Vec<String> {
    (run.stderr().lines())
        .filter(|l| l.starts_with("warning: hosting/"))
        .map(str::to_string)
        .collect()
}

fn a_changed_host_file_is_named_once_with_its_step(remote: &Remote) {
    let p = Project::sample();
    set_config(&p, "targets = [\"nginx\", \"lighttpd\"]", "targets = [\"nginx\", \"cloudfront\"]");
    p.folio(&["build"]).success();
    // A first deploy has nothing to compare with.
    assert_eq!(named(&remote.deploy(&p, &[]).success()), Vec::<String>::new());
    // The data grows: more pages, the same host files.
    add_a_record(&p);
    p.folio(&["build"]).success();
    assert_eq!(named(&remote.deploy(&p, &[]).success()), Vec::<String>::new());
    // folio.toml changes what the nginx config and the function say (the cache lifetime).
    let cfg = p.read("folio.toml") + "\n[output]\ncache_control = \"public, max-age=60\"\n";
    p.write("folio.toml", cfg);
    p.folio(&["build"]).success();
    let dry = remote.deploy(&p, &["--dry-run", "--format", "json"]).success();
    let report: serde_json::Value = serde_json::from_str(&dry.stdout()).unwrap();
    let files: Vec<&str> = (report["hosting_changed"].as_array().unwrap().iter())
        .map(|c| c["file"].as_str().unwrap())
        .collect();
    assert_eq!(files, ["hosting/cloudfront-function.js", "hosting/nginx.conf"], "{report}");
    let run = remote.deploy(&p, &[]).success();
    assert_eq!(
        named(&run),
        [
            "warning: hosting/cloudfront-function.js changed since the last deploy, which does not publish it: update the CloudFront Function with it, then publish it (`aws cloudfront update-function`, `aws cloudfront publish-function`)",
            "warning: hosting/nginx.conf changed since the last deploy, which does not publish it: reload nginx with it (`nginx -s reload`)",
        ],
        "{}",
        run.stderr()
    );
    // Said once: the record now has them.
    assert_eq!(named(&remote.deploy(&p, &[]).success()), Vec::<String>::new());
    // A target added is a new file; nothing else of the project changed.
    set_config(
        &p,
        "targets = [\"nginx\", \"cloudfront\"]",
        "targets = [\"nginx\", \"cloudfront\", \"caddy\"]",
    );
    p.folio(&["build"]).success();
    let run = remote.deploy(&p, &["--format", "json"]).success();
    let report: serde_json::Value = serde_json::from_str(&run.stdout()).unwrap();
    assert_eq!(
        report["hosting_changed"],
        serde_json::json!([{"file": "hosting/Caddyfile", "new": true, "step": "reload Caddy with it (`caddy reload --adapter caddyfile --config` it)"}]),
    );
    assert_eq!(report["uploaded"], 0, "no object changed: {report}");
}
on_every_store!(a_changed_host_file_is_named_once_with_its_step, prefix = "site");
