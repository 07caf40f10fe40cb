//! The CDN purge inside a deploy (`--purge`, `[deploy] purge`):
//! - CloudFront against moto's server, which implements distributions and invalidations
//!   (the distribution is made, and its invalidations read back, with boto3: a client
//!   nobody here wrote);
//! - Cloudflare, which has no local server: a contract test of its purge API as its docs
//!   describe it ([`FakeCloudflare`]: a bearer token, at most 100 URLs or 30 prefixes a
//!   request, absolute URLs of the zone, prefixes without a scheme, `429` with
//!   `Retry-After`, `403` with Cloudflare's error body);
//! - a purge that fails (a server gone, a 403, a 429 storm past `--purge-wait`): exit 2, the
//!   keys owed in the record, and purged by the next deploy, also one with nothing else to
//!   do.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::sync::{Arc, Mutex};

use super::*;

/// A distribution on moto, made with boto3.
fn distribution(moto: &Moto) -> String {
    let script = r#"
import sys, boto3
cf = boto3.client("cloudfront", endpoint_url=sys.argv[1], region_name="us-east-1",
                  aws_access_key_id="a", aws_secret_access_key="b")
origin = {"Id": "o", "DomainName": "site.s3.amazonaws.com", "S3OriginConfig": {"OriginAccessIdentity": ""}}
d = cf.create_distribution(DistributionConfig={
    "CallerReference": "folio-test", "Comment": "", "Enabled": True,
    "Origins": {"Quantity": 1, "Items": [origin]},
    "DefaultCacheBehavior": {"TargetOriginId": "o", "ViewerProtocolPolicy": "allow-all", "MinTTL": 0,
        "ForwardedValues": {"QueryString": True, "Cookies": {"Forward": "none"}},
        "TrustedSigners": {"Enabled": False, "Quantity": 0}},
})
print(d["Distribution"]["Id"])
"#;
    python(script, &[&moto_url(moto)]).trim().to_string()
}

/// Every invalidation of `id` on moto, newest first: its paths (boto3's reading).
fn invalidations(moto: &Moto, id: &str) -> Vec<BTreeSet<String>> {
    let script = r#"
import sys, json, boto3
cf = boto3.client("cloudfront", endpoint_url=sys.argv[1], region_name="us-east-1",
                  aws_access_key_id="a", aws_secret_access_key="b")
listed = cf.list_invalidations(DistributionId=sys.argv[2])["InvalidationList"].get("Items", [])
out = []
for item in listed:
    got = cf.get_invalidation(DistributionId=sys.argv[2], Id=item["Id"])["Invalidation"]
    out.append(got["InvalidationBatch"]["Paths"].get("Items", []))
print(json.dumps(out))
"#;
    let text = python(script, &[&moto_url(moto), id]);
    let lists: Vec<Vec<String>> = serde_json::from_str(&text).unwrap();
    lists.into_iter().map(|l| l.into_iter().collect()).collect()
}

fn moto_url(moto: &Moto) -> String {
    format!("http://127.0.0.1:{}", moto.port)
}

fn python(script: &str, args: &[&str]) -> String {
    let out = Command::new(crate::harness::tool("python3"))
        .arg("-c")
        .arg(script)
        .args(args)
        .output()
        .expect("running python3");
    assert!(out.status.success(), "python: {}", String::from_utf8_lossy(&out.stderr));
    String::from_utf8(out.stdout).unwrap()
}

/// The CloudFront paths of a purge list file.
fn cloudfront_paths(path: &std::path::Path) -> BTreeSet<String> {
    let list: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap();
    let items = list["cloudfront"]["Paths"]["Items"].as_array().unwrap();
    items.iter().map(|p| p.as_str().unwrap().to_string()).collect()
}

#[test]
fn cloudfront_invalidations_cover_exactly_the_changed_keys() {
    let Some(moto) = Moto::start(false) else { return };
    if !crate::harness::need_python_module("boto3") {
        return;
    }
    let remote = Remote::s3(&moto, "travel");
    let id = distribution(&moto);
    let cdn = format!("cloudfront:{id}");
    let env = [("AWS_ENDPOINT_URL_CLOUDFRONT", moto_url(&moto))];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let p = Project::sample();
    p.folio(&["build"]).success();
    let (list, arg) = purge_arg(&p, "purge.json");
    let first = remote.deploy_env(&p, &["--purge", &cdn, "--purge-list", &arg], &env).success();
    assert!(first.stdout().contains(&format!("purged {cdn}: {SAMPLE_OBJECTS} changed objects")));
    let earlier = invalidations(&moto, &id);
    assert_eq!(earlier.len(), 1);

    let before = published(&p);
    rename_first_record(&p);
    p.folio(&["build"]).success();
    let want = changed(&before, &published(&p));
    // The dry run says what it would send, and sends nothing.
    let dry = remote.deploy_env(&p, &["--purge", &cdn, "--dry-run"], &env).success();
    let said: BTreeSet<String> = (dry.stdout().lines())
        .filter_map(|l| l.strip_prefix(&format!("purge {cdn} ")).map(str::to_string))
        .collect();
    assert_eq!(invalidations(&moto, &id).len(), 1, "a dry run invalidates nothing");

    let run = remote.deploy_env(&p, &["--purge", &cdn, "--purge-list", &arg], &env).success();
    assert_eq!(purged_objects(&list), want, "the purge list names the changed keys");
    let mut sent = invalidations(&moto, &id);
    assert_eq!(sent.len(), 2, "{}", run.stdout());
    sent.retain(|paths| !earlier.contains(paths));
    let newest = &sent[0];
    assert_eq!(newest, &cloudfront_paths(&list), "the invalidation is the purge list's paths");
    assert_eq!(newest, &said, "and what the dry run said it would send");
    for key in &want {
        let page = format!("/{key}");
        assert!(newest.contains(&page), "{page} not invalidated: {newest:?}");
    }
    let line = run.stdout();
    assert!(line.contains(&format!("purged {cdn}: {} changed objects as", want.len())), "{line}");
    assert!(line.contains("of the 1000 paths a month CloudFront invalidates free"), "{line}");
    assert!(
        !line.contains(&moto.port.to_string()) && !run.stderr().contains(&moto.port.to_string())
    );

    // Nothing changed: nothing sent, no invalidation.
    let again = remote.deploy_env(&p, &["--purge", &cdn], &env).success();
    assert!(!again.stdout().contains("purged"), "{}", again.stdout());
    assert_eq!(invalidations(&moto, &id).len(), 2);
}

#[test]
fn a_failed_cloudfront_purge_is_owed_and_sent_by_the_next_deploy_with_nothing_else_to_do() {
    let Some(moto) = Moto::start(false) else { return };
    if !crate::harness::need_python_module("boto3") {
        return;
    }
    let remote = Remote::s3(&moto, "travel");
    let id = distribution(&moto);
    let cdn = format!("cloudfront:{id}");
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let before = published(&p);
    rename_first_record(&p);
    p.folio(&["build"]).success();
    let want = changed(&before, &published(&p));

    // CloudFront is gone (nothing listens there): the store gets the build, the deploy
    // fails with exit 2 and says what is owed.
    let gone = format!("http://127.0.0.1:{}", crate::harness::free_port());
    let failed = remote
        .deploy_env(
            &p,
            &["--purge", &cdn, "--purge-wait", "1"],
            &[("AWS_ENDPOINT_URL_CLOUDFRONT", &gone)],
        )
        .fails(2);
    let said = failed.stderr();
    assert!(said.contains("holds the build (8 uploaded, 0 deleted)"), "{said}");
    assert!(said.contains(&format!("the purge of {cdn} failed: could not connect")), "{said}");
    assert!(said.contains("8 keys stay owed to it in the record"), "{said}");
    // Where it was sent, and the variable that chose it: the first thing to check.
    assert!(
        said.contains(&format!(", at {gone} (set by AWS_ENDPOINT_URL_CLOUDFRONT) (tried ")),
        "{said}"
    );
    assert!(remote.objects() == published(&p), "the store holds the build");

    // A deploy that does not name the CDN leaves what is owed as it is, and says so.
    let other = remote.deploy(&p, &[]).success();
    assert!(other.stderr().contains(&format!("{cdn} is still owed a purge of 8 keys")));

    // The next deploy naming it has nothing to upload, and purges what is owed.
    let env = [("AWS_ENDPOINT_URL_CLOUDFRONT", moto_url(&moto))];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let next = remote.deploy_env(&p, &["--purge", &cdn], &env).success();
    assert_eq!(counts(&next), (0, SAMPLE_OBJECTS, 0));
    assert!(next.stdout().contains(&format!("purged {cdn}: 8 changed objects")));
    let sent = invalidations(&moto, &id);
    assert_eq!(sent.len(), 1);
    for key in &want {
        assert!(sent[0].contains(&format!("/{key}")), "{key}: {:?}", sent[0]);
    }
    // Paid once: nothing is owed.
    let after = remote.deploy_env(&p, &["--purge", &cdn], &env).success();
    assert!(!after.stdout().contains("purged"), "{}", after.stdout());
    assert_eq!(invalidations(&moto, &id).len(), 1);
}

/// What a fake CDN heard of one request.
pub(super) struct Heard {
    /// The request line.
    pub head: String,
    pub auth: String,
    /// `User-Agent`.
    pub agent: String,
    pub body: Vec<u8>,
}

/// What folio says it is in every CDN request.
pub(super) const AGENT: &str = concat!("folio/", env!("CARGO_PKG_VERSION"));

#[test]
fn what_is_owed_a_cdn_that_does_not_exist_names_its_way_out_and_the_flag_takes_it() {
    let Some(moto) = Moto::start(false) else { return };
    if !crate::harness::need_python_module("boto3") {
        return;
    }
    let remote = Remote::s3(&moto, "travel");
    let real = format!("cloudfront:{}", distribution(&moto));
    let wrong = "cloudfront:E0FOLIOMISTYPED";
    let env = [("AWS_ENDPOINT_URL_CLOUDFRONT", moto_url(&moto))];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let before = published(&p);
    rename_first_record(&p);
    p.folio(&["build"]).success();
    let want = changed(&before, &published(&p));

    // A mistyped id: CloudFront says there is no such distribution; the message says
    // what to do.
    let failed = remote.deploy_env(&p, &["--purge", wrong], &env).fails(2);
    let said = failed.stderr();
    assert!(said.contains("NoSuchDistribution"), "{said}");
    assert!(said.contains(&format!("{wrong} does not exist")), "{said}");
    assert!(said.contains(&format!("`--move-owed {wrong}`")), "{said}");
    assert!(said.contains(&format!("`--drop-owed {wrong}`")), "{said}");
    // Corrected: what is owed moves to the CDN named now, which is sent it.
    let moved = remote.deploy_env(&p, &["--purge", &real, "--move-owed", wrong], &env).success();
    let said = moved.stderr();
    assert!(
        said.contains(&format!("moved the purge of {} keys owed to {wrong} to {real}", want.len())),
        "{said}"
    );
    let sent = invalidations(&moto, real.strip_prefix("cloudfront:").unwrap());
    assert_eq!(sent.len(), 1);
    for key in &want {
        assert!(sent[0].contains(&format!("/{key}")), "{key}: {:?}", sent[0]);
    }
    let owed = remote.record().owed;
    assert!(owed.keys().all(|to| !to.to_string().starts_with("cloudfront:")), "{owed:?}");

    // Or dropped: nothing is sent for it, and it is never mentioned again.
    rename_first_record(&p);
    let csv = p.read("data/attractions.csv").replacen("The The Eiffel", "Eiffel", 1);
    p.write("data/attractions.csv", csv);
    p.folio(&["build"]).success();
    remote.deploy_env(&p, &["--purge", wrong], &env).fails(2);
    let dropped = remote.deploy(&p, &["--drop-owed", wrong]).success();
    assert!(
        dropped.stderr().contains(&format!("dropped the purge of 8 keys owed to {wrong}")),
        "{}",
        dropped.stderr()
    );
    let quiet = remote.deploy(&p, &[]).success();
    assert!(!quiet.stderr().contains(wrong), "{}", quiet.stderr());
    // Moving what is owed needs a CDN to move it to.
    let refused = remote.deploy(&p, &["--move-owed", wrong]).fails(2);
    assert!(
        refused.stderr().contains("--move-owed moves what is owed to the CDNs this deploy purges"),
        "{}",
        refused.stderr()
    );
}

/// One HTTP/1.1 request from `stream`.
pub(super) fn read_request(stream: &std::net::TcpStream) -> Heard {
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut head = String::new();
    reader.read_line(&mut head).unwrap_or(0);
    let (mut length, mut auth, mut agent) = (0, String::new(), String::new());
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap_or(0) == 0 || line == "\r\n" {
            break;
        }
        let (name, value) = line.split_once(':').unwrap_or(("", ""));
        match name.to_ascii_lowercase().as_str() {
            "content-length" => length = value.trim().parse().unwrap_or(0),
            "authorization" => auth = value.trim().to_string(),
            "user-agent" => agent = value.trim().to_string(),
            _ => {}
        }
    }
    let mut body = vec![0; length];
    reader.read_exact(&mut body).unwrap_or(());
    Heard { head, auth, agent, body }
}

/// Cloudflare's purge API as its documentation describes it, on loopback.
pub(crate) struct FakeCloudflare {
    port: u16,
    /// Every request: (seconds since start, status answered, body).
    log: Arc<Mutex<Vec<(f64, u16, serde_json::Value)>>>,
}

pub(crate) const ZONE: &str = "023e105f4ecef8ad9ca31a8372d0c353";
pub(crate) const TOKEN: &str = "cf-test-token-Y2xvdWRmbGFyZQ";

impl FakeCloudflare {
    /// Answers the first `storm` well-formed requests with `429` and `Retry-After: 1`.
    pub(crate) fn start(storm: usize) -> FakeCloudflare {
        FakeCloudflare::start_after(0, storm)
    }

    /// Accepts the first `accept` well-formed requests, then answers the next `storm` with
    /// `429` and `Retry-After: 1`, then accepts again.
    fn start_after(accept: usize, storm: usize) -> FakeCloudflare {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let log = Arc::new(Mutex::new(Vec::new()));
        let seen = log.clone();
        let start = Instant::now();
        std::thread::spawn(move || {
            let (mut throttled, mut accepted) = (0, 0);
            for stream in listener.incoming() {
                let Ok(mut stream) = stream else { continue };
                let heard = read_request(&stream);
                let body: serde_json::Value =
                    serde_json::from_slice(&heard.body).unwrap_or(serde_json::Value::Null);
                let (status, extra, reply) =
                    answer(&heard, &body, (&mut accepted, accept), (&mut throttled, storm));
                seen.lock().unwrap().push((start.elapsed().as_secs_f64(), status, body));
                let text = reply.to_string();
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Type: application/json\r\n{extra}Content-Length: {}\r\nConnection: close\r\n\r\n{text}",
                    text.len()
                );
            }
        });
        FakeCloudflare { port, log }
    }

    pub(crate) fn base(&self) -> String {
        format!("http://127.0.0.1:{}/client/v4", self.port)
    }

    /// The URLs and prefixes it accepted.
    pub(crate) fn purged(&self) -> BTreeSet<String> {
        let log = self.log.lock().unwrap();
        let accepted = log.iter().filter(|(_, status, _)| *status == 200);
        let items = accepted.flat_map(|(_, _, body)| {
            let files = body["files"].as_array().cloned().unwrap_or_default();
            files.into_iter().chain(body["prefixes"].as_array().cloned().unwrap_or_default())
        });
        items.map(|v| v.as_str().unwrap().to_string()).collect()
    }
}

/// One answer as the API gives it: (status, extra headers, body).
fn answer(
    heard: &Heard,
    body: &serde_json::Value,
    (accepted, accept): (&mut usize, usize),
    (throttled, storm): (&mut usize, usize),
) -> (u16, String, serde_json::Value) {
    let fail = |status: u16, code: u32, message: &str| {
        let reply = serde_json::json!({
            "success": false, "errors": [{"code": code, "message": message}],
            "messages": [], "result": null
        });
        (status, String::new(), reply)
    };
    if heard.head != format!("POST /client/v4/zones/{ZONE}/purge_cache HTTP/1.1\r\n") {
        return fail(404, 7003, "Could not route to the zone");
    }
    // Cloudflare's API has refused calls that say no User-Agent.
    if heard.agent.is_empty() {
        return fail(400, 6003, "Invalid request headers (no User-Agent)");
    }
    if heard.auth != format!("Bearer {TOKEN}") {
        return fail(403, 10000, "Authentication error");
    }
    let files = body["files"].as_array();
    let prefixes = body["prefixes"].as_array();
    let well_formed = match (files, prefixes) {
        (Some(f), None) => {
            f.len() <= 100
                && f.iter()
                    .all(|u| u.as_str().is_some_and(|u| u.starts_with("https://example.org/")))
        }
        (None, Some(p)) => {
            p.len() <= 30
                && p.iter().all(|u| u.as_str().is_some_and(|u| u.starts_with("example.org/")))
        }
        _ => false,
    };
    if !well_formed {
        return fail(
            400,
            1012,
            "Request must contain one of \"purge_everything\", \"files\", \"tags\", \"hosts\" or \"prefixes\"",
        );
    }
    if *accepted >= accept && *throttled < storm {
        *throttled += 1;
        let (status, _, reply) =
            fail(429, 971, "Please wait and consider throttling your request speed");
        return (status, "Retry-After: 1\r\n".into(), reply);
    }
    *accepted += 1;
    let reply = serde_json::json!({
        "success": true, "errors": [], "messages": [], "result": {"id": ZONE}
    });
    (200, String::new(), reply)
}

fn cloudflare_project() -> Project {
    let p = Project::sample();
    set_config(&p, "base_url = \"\"", "base_url = \"https://example.org\"");
    p.folio(&["build"]).success();
    p
}

#[test]
fn cloudflare_purges_in_batches_through_a_429_storm() {
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "travel");
    let api = FakeCloudflare::start(5);
    let p = cloudflare_project();
    let cdn = format!("cloudflare:{ZONE}");
    let base = api.base();
    let env = [("CLOUDFLARE_API_TOKEN", TOKEN), ("CLOUDFLARE_API_BASE_URL", base.as_str())];
    let (list, arg) = purge_arg(&p, "purge.json");
    let run = remote.deploy_env(&p, &["--purge", &cdn, "--purge-list", &arg], &env).success();
    let said = run.stdout();
    assert!(said.contains(&format!("purged {cdn}: {SAMPLE_OBJECTS} changed objects")), "{said}");
    assert!(said.contains("waited 5 times as it asked"), "{said}");
    // What it accepted is what the purge list's Cloudflare requests hold.
    let text = std::fs::read_to_string(&list).unwrap();
    let listed: serde_json::Value = serde_json::from_str(&text).unwrap();
    let requests = listed["cloudflare"].as_array().unwrap();
    let want: BTreeSet<String> = (requests.iter())
        .flat_map(|r| r.as_object().unwrap().values())
        .flat_map(|v| v.as_array().unwrap().iter().map(|u| u.as_str().unwrap().to_string()))
        .collect();
    assert_eq!(api.purged(), want);
    let log = api.log.lock().unwrap();
    assert_eq!(log.len(), requests.len() + 5, "each request once, and the 5 throttled again");
    // Each retry came after the second the 429 asked for.
    for pair in log.windows(2).filter(|w| w[0].1 == 429) {
        assert!(pair[1].0 - pair[0].0 >= 0.95, "retried after {} s", pair[1].0 - pair[0].0);
    }
    assert!(!said.contains(TOKEN) && !run.stderr().contains(TOKEN));
    assert!(!said.contains(&api.port.to_string()) && !run.stderr().contains(&api.port.to_string()));
}

#[test]
fn a_cloudflare_auth_error_or_a_storm_past_purge_wait_fails_and_the_next_deploy_purges() {
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "travel");
    let p = cloudflare_project();
    let cdn = format!("cloudflare:{ZONE}");
    remote.deploy(&p, &[]).success();
    let before = published(&p);
    rename_first_record(&p);
    p.folio(&["build"]).success();
    let want = changed(&before, &published(&p));

    // A token without the permission: Cloudflare's words, exit 2, the keys owed.
    let api = FakeCloudflare::start(0);
    let base = api.base();
    let wrong = [("CLOUDFLARE_API_TOKEN", "not-the-token"), ("CLOUDFLARE_API_BASE_URL", &base)];
    let failed = remote.deploy_env(&p, &["--purge", &cdn], &wrong).fails(2);
    let said = failed.stderr();
    assert!(said.contains("403 Forbidden: 10000 Authentication error"), "{said}");
    assert!(said.contains(&format!("{} keys stay owed to it", want.len())), "{said}");
    assert!(!said.contains("not-the-token"), "the token is never said: {said}");

    // Throttled longer than --purge-wait allows: given up, still owed.
    let storm = FakeCloudflare::start(usize::MAX);
    let base = storm.base();
    let env = [("CLOUDFLARE_API_TOKEN", TOKEN), ("CLOUDFLARE_API_BASE_URL", base.as_str())];
    let failed = remote.deploy_env(&p, &["--purge", &cdn, "--purge-wait", "3"], &env).fails(2);
    let said = failed.stderr();
    assert!(said.contains("429"), "{said}");
    assert!(said.contains("purge_wait (3 s"), "{said}");
    assert!(storm.purged().is_empty());

    // An API base nothing answers at: named, with the variable that set it.
    let gone = format!("http://127.0.0.1:{}/client/v4", crate::harness::free_port());
    let env = [("CLOUDFLARE_API_TOKEN", TOKEN), ("CLOUDFLARE_API_BASE_URL", gone.as_str())];
    let failed = remote.deploy_env(&p, &["--purge", &cdn, "--purge-wait", "1"], &env).fails(2);
    let said = failed.stderr();
    assert!(said.contains("could not connect"), "{said}");
    assert!(said.contains(&format!(", at {gone} (set by CLOUDFLARE_API_BASE_URL)")), "{said}");

    // A deploy with no token at all is refused before anything is sent; a dry run needs
    // none to say what it would send.
    let refused = remote.deploy(&p, &["--purge", &cdn]).fails(1);
    assert!(refused.stderr().contains("CLOUDFLARE_API_TOKEN is not set"), "{}", refused.stderr());
    let dry = remote.deploy(&p, &["--purge", &cdn, "--dry-run"]).success();
    let would = format!("would purge {cdn}: {} changed objects", want.len());
    assert!(dry.stdout().contains(&would), "{}", dry.stdout());
    assert!(
        dry.stdout().contains(&format!("purge {cdn} https://example.org/")),
        "{}",
        dry.stdout()
    );

    // The next deploy, with nothing to upload, purges what the failed ones owe.
    let api = FakeCloudflare::start(0);
    let base = api.base();
    let env = [("CLOUDFLARE_API_TOKEN", TOKEN), ("CLOUDFLARE_API_BASE_URL", base.as_str())];
    let next = remote.deploy_env(&p, &["--purge", &cdn], &env).success();
    assert_eq!(counts(&next).0, 0);
    let purged = api.purged();
    for key in &want {
        let url = format!("https://example.org/{key}");
        assert!(purged.contains(&url), "{url} not purged: {purged:?}");
    }
}

#[test]
fn a_cdn_named_wrong_is_refused_before_anything_is_sent() {
    let (_dir, remote) = folder();
    let p = Project::sample();
    p.folio(&["build"]).success();
    let refused = remote.deploy(&p, &["--purge", "cloudfront:e2qw"]).fails(2);
    assert!(refused.stderr().contains("is no CloudFront distribution id"), "{}", refused.stderr());
    let refused = remote.deploy(&p, &["--purge", &format!("cloudflare:{ZONE}")]).fails(1);
    assert!(refused.stderr().contains("base_url has no origin"), "{}", refused.stderr());
    assert!(remote.objects().is_empty(), "nothing sent");
    let config = p.read("folio.toml");
    p.write("folio.toml", format!("{config}\n[deploy]\npurge = [\"fastly:abc\"]\n"));
    let invalid = p.folio(&["check"]).fails(1);
    assert!(invalid.stderr().contains("names an unknown CDN `fastly`"), "{}", invalid.stderr());
}

#[test]
fn a_cloudflare_purge_cut_midway_owes_only_what_was_not_accepted() {
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "travel");
    let p = cloudflare_project();
    let cdn = format!("cloudflare:{ZONE}");
    remote.deploy(&p, &[]).success();
    let before = published(&p);
    // Its first page in every variant: 20 pages, too few a variant to fold, more URLs
    // than one request takes.
    let csv =
        p.read("data/attractions.csv").replacen("Eiffel Tower,Tour Eiffel,", "Tower,Tour,", 1);
    p.write("data/attractions.csv", csv.replacen("エッフェル塔,หอไอเฟล,", "塔,หอ,", 1));
    p.folio(&["build"]).success();
    let want = changed(&before, &published(&p));
    assert_eq!(want.len(), 20);
    // The first request is accepted, then a storm longer than --purge-wait; a bound of
    // 100 URLs keeps the purge exact.
    let api = FakeCloudflare::start_after(1, usize::MAX);
    let base = api.base();
    let env = [("CLOUDFLARE_API_TOKEN", TOKEN), ("CLOUDFLARE_API_BASE_URL", base.as_str())];
    let flags = ["--purge", &cdn, "--max-purge-paths", "100"];
    let dry = remote.deploy(&p, &[&flags[..], &["--dry-run"]].concat()).success();
    let planned: BTreeSet<String> = (dry.stdout().lines())
        .filter_map(|l| l.strip_prefix(&format!("purge {cdn} ")).map(str::to_string))
        .collect();
    assert!(planned.len() > 30, "{} URLs take more than one request", planned.len());
    let failed = remote.deploy_env(&p, &[&flags[..], &["--purge-wait", "2"]].concat(), &env);
    let said = failed.fails(2).stderr();
    let first = api.purged();
    assert_eq!(api.log.lock().unwrap().iter().filter(|(_, s, _)| *s == 200).count(), 1);
    // The accepted request's keys are struck from the record as it is accepted.
    let owed = remote.record().owed;
    let owed: usize =
        owed.iter().filter(|(to, _)| to.to_string() == cdn).map(|(_, k)| k.len()).sum();
    assert!(owed > 0 && owed < want.len(), "{owed} of {} owed", want.len());
    assert!(said.contains(&format!("{owed} keys stay owed to it")), "{said}");

    // Nothing to upload; what was not accepted is sent, and nothing accepted before.
    let api = FakeCloudflare::start(0);
    let base = api.base();
    let env = [("CLOUDFLARE_API_TOKEN", TOKEN), ("CLOUDFLARE_API_BASE_URL", base.as_str())];
    let next = remote.deploy_env(&p, &flags, &env).success();
    assert_eq!(counts(&next).0, 0);
    assert!(next.stdout().contains(&format!("purged {cdn}: {owed} changed objects")));
    let second = api.purged();
    assert!(first.is_disjoint(&second), "sent again: {:?}", first.intersection(&second));
    assert_eq!(first.union(&second).cloned().collect::<BTreeSet<_>>(), planned);
}

/// A server that gives canned answers in turn (the last one again when they run out), and
/// records each request's first line and body with when it came.
pub(crate) struct Scripted {
    pub port: u16,
    /// Each request: when (seconds since start), its request line, its body.
    pub seen: Arc<Mutex<Vec<(f64, String, String)>>>,
    /// Each request's `User-Agent`.
    pub agents: Arc<Mutex<Vec<String>>>,
}

impl Scripted {
    pub(crate) fn start(answers: Vec<(u16, &'static str)>) -> Scripted {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        let seen = Arc::new(Mutex::new(Vec::new()));
        let agents = Arc::new(Mutex::new(Vec::new()));
        let (log, said) = (seen.clone(), agents.clone());
        let start = Instant::now();
        std::thread::spawn(move || {
            for (n, stream) in listener.incoming().enumerate() {
                let Ok(mut stream) = stream else { continue };
                let heard = read_request(&stream);
                let when = start.elapsed().as_secs_f64();
                let body = String::from_utf8_lossy(&heard.body).into();
                log.lock().unwrap().push((when, heard.head, body));
                said.lock().unwrap().push(heard.agent);
                let (status, text) = answers[n.min(answers.len() - 1)];
                let _ = write!(
                    stream,
                    "HTTP/1.1 {status} X\r\nContent-Type: text/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{text}",
                    text.len()
                );
            }
        });
        Scripted { port, seen, agents }
    }
}

#[test]
fn cloudfront_busy_with_other_invalidations_is_waited_for() {
    let (_dir, remote) = folder();
    let p = Project::sample();
    p.folio(&["build"]).success();
    let busy = "<?xml version=\"1.0\"?><ErrorResponse xmlns=\"http://cloudfront.amazonaws.com/doc/2020-05-31/\"><Error><Type>Sender</Type><Code>TooManyInvalidationsInProgress</Code><Message>Your request contains too many invalidations.</Message></Error><RequestId>r</RequestId></ErrorResponse>";
    let accepted = "<?xml version=\"1.0\"?><Invalidation xmlns=\"http://cloudfront.amazonaws.com/doc/2020-05-31/\"><Id>I3FOLIOTEST</Id><Status>InProgress</Status><CreateTime>2026-11-27T00:00:00Z</CreateTime><InvalidationBatch><Paths><Quantity>0</Quantity></Paths><CallerReference>r</CallerReference></InvalidationBatch></Invalidation>";
    let cloudfront = Scripted::start(vec![(400, busy), (400, busy), (201, accepted)]);
    let endpoint = format!("http://127.0.0.1:{}", cloudfront.port);
    let env = [("AWS_ENDPOINT_URL_CLOUDFRONT", endpoint.as_str())];
    let run = remote.deploy_env(&p, &["--purge", "cloudfront:E2QWRUHAPOMQZL"], &env).success();
    let said = run.stdout();
    assert!(said.contains("in 1 invalidation (I3FOLIOTEST)"), "{said}");
    assert!(said.contains("waited 2 times as it asked"), "{said}");
    let seen = cloudfront.seen.lock().unwrap();
    assert_eq!(seen.len(), 3);
    for (_, head, _) in seen.iter() {
        assert_eq!(head, "POST /2020-05-31/distribution/E2QWRUHAPOMQZL/invalidation HTTP/1.1\r\n");
    }
    // The same invalidation each time (its caller reference), after 1 s and then 2 s.
    assert_eq!(seen[0].2, seen[2].2, "a retry is the same request");
    assert!(seen[0].2.contains("<CallerReference>folio-"), "{}", seen[0].2);
    assert!(cloudfront.agents.lock().unwrap().iter().all(|a| a == AGENT), "folio says it is folio");
    assert!(seen[1].0 - seen[0].0 >= 0.95 && seen[2].0 - seen[1].0 >= 1.95);
    // A refusal is not retried.
    let denied = "<?xml version=\"1.0\"?><ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>User is not authorized to perform cloudfront:CreateInvalidation</Message></Error></ErrorResponse>";
    let refusing = Scripted::start(vec![(403, denied)]);
    let endpoint = format!("http://127.0.0.1:{}", refusing.port);
    let env = [("AWS_ENDPOINT_URL_CLOUDFRONT", endpoint.as_str())];
    rename_first_record(&p);
    p.folio(&["build"]).success();
    let failed = remote.deploy_env(&p, &["--purge", "cloudfront:E2QWRUHAPOMQZL"], &env).fails(2);
    let said = failed.stderr();
    assert!(
        said.contains("403 Forbidden: AccessDenied: User is not authorized to perform cloudfront:CreateInvalidation"),
        "{said}"
    );
    assert_eq!(refusing.seen.lock().unwrap().len(), 1);
}

#[test]
fn a_deploy_killed_before_its_purge_leaves_it_owed_whoever_deploys_next() {
    let Some(moto) = Moto::start(false) else { return };
    if !crate::harness::need_python_module("boto3") {
        return;
    }
    let remote = Remote::s3(&moto, "travel");
    let id = distribution(&moto);
    let cdn = format!("cloudfront:{id}");
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    let before = published(&p);
    rename_first_record(&p);
    p.folio(&["build"]).success();
    let want = changed(&before, &published(&p));
    // A CloudFront that takes the request and never answers: the deploy is killed there.
    let silent = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://127.0.0.1:{}", silent.local_addr().unwrap().port());
    // Its lease is 5 s, not a real 30 s, so the next deploy waits less to take over.
    let mut cmd = remote.command(&p, &["--purge", &cdn]);
    cmd.env("AWS_ENDPOINT_URL_CLOUDFRONT", &endpoint).env("FOLIO_FAULT", "lease:5");
    let mut child = cmd.stdout(Stdio::null()).stderr(Stdio::null()).spawn().unwrap();
    silent.set_nonblocking(true).unwrap();
    let _held = loop {
        match silent.accept() {
            Ok((held, _)) => break held,
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                let ended = child.try_wait().unwrap();
                assert!(ended.is_none(), "the deploy ended before its purge: {ended:?}");
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => panic!("accepting the purge: {e}"),
        }
    };
    assert!(remote.objects() == published(&p), "the build is up before the purge");
    child.kill().unwrap();
    child.wait().unwrap();
    // The next deploy does not purge: it finishes the killed one's record, keeps it owed
    // and says so.
    let next = remote.deploy(&p, &["--no-purge"]).success();
    let owed = format!("{cdn} is still owed a purge of {} keys", want.len());
    assert!(next.stderr().contains(&owed), "{}", next.stderr());
    // The deploy after, naming the CDN, purges exactly what the killed one changed.
    let env = [("AWS_ENDPOINT_URL_CLOUDFRONT", moto_url(&moto))];
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let paid = remote.deploy_env(&p, &["--purge", &cdn], &env).success();
    assert!(paid.stdout().contains(&format!("purged {cdn}: {} changed objects", want.len())));
    let sent = invalidations(&moto, &id);
    for key in &want {
        assert!(sent[0].contains(&format!("/{key}")), "{key}: {:?}", sent[0]);
    }
}

#[test]
fn a_purge_accepted_as_the_lease_lapses_is_struck_and_never_paid_twice() {
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "travel");
    let p = Project::sample();
    p.folio(&["build"]).success();
    remote.deploy(&p, &[]).success();
    rename_first_record(&p);
    p.folio(&["build"]).success();
    // A CloudFront that, as the invalidation arrives, stops the deploy's process for
    // longer than its lease's fence (a runner paused, a container frozen: no renewal
    // runs), then accepts it. The lease lasts 3 s: the fence is 2 s, the stop 2.5 s.
    let accepted = "<?xml version=\"1.0\"?><Invalidation xmlns=\"http://cloudfront.amazonaws.com/doc/2020-05-31/\"><Id>I3FOLIOPAUSED</Id><Status>InProgress</Status><CreateTime>2026-11-27T00:00:00Z</CreateTime><InvalidationBatch><Paths><Quantity>0</Quantity></Paths><CallerReference>r</CallerReference></InvalidationBatch></Invalidation>";
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let endpoint = format!("http://127.0.0.1:{}", listener.local_addr().unwrap().port());
    let pid = Arc::new(std::sync::atomic::AtomicU32::new(0));
    let heard = Arc::new(Mutex::new(Vec::new()));
    let (deploying, log) = (pid.clone(), heard.clone());
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut stream) = stream else { continue };
            let request = read_request(&stream);
            log.lock().unwrap().push(String::from_utf8_lossy(&request.body).to_string());
            let pid = deploying.load(std::sync::atomic::Ordering::SeqCst).to_string();
            let signal = |s: &str| Command::new("kill").args([s, &pid]).status().unwrap();
            if pid != "0" && signal("-STOP").success() {
                std::thread::sleep(Duration::from_millis(2500));
                signal("-CONT");
            }
            let _ = write!(
                stream,
                "HTTP/1.1 201 Created\r\nContent-Type: text/xml\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{accepted}",
                accepted.len()
            );
        }
    });
    let cdn = "cloudfront:E2QWRUHAPOMQZL";
    let mut cmd = remote.command(&p, &["--purge", cdn]);
    cmd.env("AWS_ENDPOINT_URL_CLOUDFRONT", &endpoint).env("FOLIO_FAULT", "lease:3");
    let child = cmd.stdout(Stdio::piped()).stderr(Stdio::piped()).spawn().unwrap();
    pid.store(child.id(), std::sync::atomic::Ordering::SeqCst);
    let run = Run::of("folio deploy --purge".into(), child.wait_with_output().unwrap());
    // The lease is made sure again (nobody took it over), the purge struck, exit 0.
    let said = run.success().stdout();
    assert!(said.contains(&format!("purged {cdn}: 8 changed objects")), "{said}");
    assert_eq!(heard.lock().unwrap().len(), 1);
    let owed = remote.record().owed;
    assert!(owed.keys().all(|to| to.to_string() != cdn), "struck: {owed:?}");
    // The next deploy owes CloudFront nothing, and sends nothing.
    let env = [("AWS_ENDPOINT_URL_CLOUDFRONT", endpoint.as_str())];
    let next = remote.deploy_env(&p, &["--purge", cdn], &env).success();
    assert!(!next.stdout().contains("purged"), "{}", next.stdout());
    assert_eq!(heard.lock().unwrap().len(), 1, "paid once");
}
