//! Every line folio prints is safe in a CI log. A GitHub Actions runner reads workflow
//! commands from a step's stdout and stderr (`::cmd::` at a line's start, `##[cmd]`
//! anywhere in one), so no value folio repeats may make one: each source here (a data
//! value, a file's name, `folio.toml`, the environment, a store's and a CDN's error, a
//! deploy record, a request to the preview) is fed values that would, and both streams
//! are read by [`commands`], the runner's rules. Only `check --format github`'s own
//! annotations are found, one a problem; and a value of 960 KB prints no line of 4.8 MB.

use std::io::{Read, Write};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::deploy::Remote;
use crate::deploy::cdn::Scripted;
use crate::harness::{BIN, Project, Run};

/// What each source is fed: a line break then a command at the start of the next line
/// (`\r\n`, `\n`, `\r`, NEL, U+2028: the runner breaks at the first three), and a legacy
/// command in the middle of a line, with the runner's own escapes in it.
const HOSTILE: &str = "a\r\n::warning::F1 %0A 9%,b ##[error]F2\n::add-mask::x\r::error::F3\u{85}::error::F4\u{2028}::error::F5 ##[stop-commands]t";

/// A workflow command found in a stream: its syntax, name, properties and data.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Found {
    legacy: bool,
    name: String,
    properties: String,
    data: String,
}

/// The workflow commands in `stream` by the runner's rules (actions/runner's
/// `ActionCommand.TryParseV2`, then `TryParse`): each line (split at `\n`, `\r\n` and `\r`
/// as .NET's `ReadLine` does, and here at NEL, U+2028 and U+2029 too) is one when, its
/// leading white space trimmed, it starts with `::` and holds another `::` after that
/// (`::name properties::data`); else when it holds `##[` anywhere with a `]` after it
/// (`##[name properties]data`). Any name counts, where the runner acts only on those it
/// knows: finding none but folio's own means none could be made.
fn commands(stream: &str) -> Vec<Found> {
    let mut found = Vec::new();
    for line in stream.split(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}']) {
        let trimmed = line.trim_start();
        if let Some(rest) = trimmed.strip_prefix("::")
            && let Some(end) = rest.find("::")
        {
            let info = &rest[..end];
            let (name, properties) = info.split_once(' ').unwrap_or((info, ""));
            if !name.is_empty() {
                let (name, properties) = (name.to_string(), properties.to_string());
                let data = rest[end + 2..].to_string();
                found.push(Found { legacy: false, name, properties, data });
                continue;
            }
        }
        if let Some(at) = line.find("##[")
            && let Some(close) = line[at..].find(']')
        {
            let info = &line[at + 3..at + close];
            let (name, properties) = info.split_once(' ').unwrap_or((info, ""));
            if !name.is_empty() {
                let (name, properties) = (name.to_string(), properties.to_string());
                let data = line[at + close + 1..].to_string();
                found.push(Found { legacy: true, name, properties, data });
            }
        }
    }
    found
}

/// Both streams of `run` hold no workflow command, and no line longer than folio prints.
#[track_caller]
fn no_command(run: &Run) {
    for (name, stream) in [("stdout", run.stdout()), ("stderr", run.stderr())] {
        let found = commands(&stream);
        assert!(found.is_empty(), "{} made {found:#?} on {name}:\n{stream}", run.cmd);
        bounded(&stream);
    }
}

/// No line of `stream` is longer than a line folio prints may be: 2,000 characters,
/// the count of those left out, and escapes (`\u{…}`, ten characters at most, for the
/// 1,900 kept).
#[track_caller]
fn bounded(stream: &str) {
    for line in stream.lines() {
        let n = line.chars().count();
        let start: String = line.chars().take(200).collect();
        assert!(n <= 1_900 * 10 + 64, "a line of {n} characters: {start}…");
    }
}

#[test]
fn the_runners_rules_find_both_syntaxes_where_the_runner_does() {
    let found = commands(
        "  ::error file=a,line=1::x ##[warning]y\nz ##[add-mask]s\r::set-output name=v::1\n::nothing\n:: ::x\n##[]x\na:: ::error::no",
    );
    let names: Vec<(bool, &str)> = found.iter().map(|f| (f.legacy, f.name.as_str())).collect();
    assert_eq!(names, [(false, "error"), (true, "add-mask"), (false, "set-output")]);
    assert_eq!(found[0].properties, "file=a,line=1");
    assert_eq!(found[0].data, "x ##[warning]y");
    assert_eq!(commands("x\u{2028}::error::y\u{85}##[error]z").len(), 2);
}

/// A project whose data and file names hold [`HOSTILE`]: a CSV cell of a number field, a
/// JSON string in one, a JSON key, and a file's name.
fn hostile_data() -> Project {
    let p = Project::new("[fields.rating]\ntype = \"number\"\n");
    let cell = HOSTILE.replace('"', "\"\"");
    p.write("data/a.csv", format!("id,rating\n1,\"{cell}\"\n"));
    let value = serde_json::to_string(HOSTILE).unwrap();
    p.write("data/b.jsonl", format!("{{\"id\": 2, \"rating\": {value}, {value}: 1}}\n"));
    let name = "##[error]n\n::warning::m.csv";
    p.write(&format!("data/{name}"), "id,rating\n3,x\n");
    p
}

#[test]
fn check_in_every_format_prints_no_command_but_its_own_annotations() {
    let p = hostile_data();
    let text = p.folio(&["check"]).fails(1);
    no_command(&text);
    assert!(text.stderr().contains("#\\u{23}[error]F2"), "{}", text.stderr());
    let build = p.folio(&["build"]).fails(1);
    no_command(&build);

    // JSON: no command either, and every value as it was (`\u0023` is a `#`).
    let json = p.folio(&["check", "--format", "json"]).fails(1);
    no_command(&json);
    let report: serde_json::Value = serde_json::from_str(&json.stdout()).unwrap();
    let problems = report["problems"].as_array().unwrap();
    assert!(problems.len() >= 3, "{problems:#?}");
    let said: Vec<&str> = problems.iter().map(|p| p["message"].as_str().unwrap()).collect();
    assert!(said.iter().any(|m| m.contains("##[error]F2")), "{said:#?}");
    let files: Vec<&str> = problems.iter().filter_map(|p| p["file"].as_str()).collect();
    assert!(files.contains(&"data/##[error]n\n::warning::m.csv"), "{files:?}");

    // GitHub: stderr as in text, and on stdout exactly one `::error` a problem, on its
    // file's line, which no value turns into more.
    let github = p.folio(&["check", "--format", "github"]).fails(1);
    assert!(commands(&github.stderr()).is_empty(), "{}", github.stderr());
    bounded(&github.stdout());
    let found = commands(&github.stdout());
    assert_eq!(found.len(), problems.len(), "{found:#?}\n{}", github.stdout());
    for (annotation, problem) in found.iter().zip(problems) {
        assert!(!annotation.legacy && annotation.name == "error", "{annotation:?}");
        let line = format!("line={}", problem["line"]);
        assert!(annotation.properties.split(',').any(|p| p == line), "{annotation:?}");
        assert!(annotation.properties.contains("title=folio check (data)"), "{annotation:?}");
    }
    assert_eq!(github.stdout().lines().count(), problems.len(), "one line each");
}

#[test]
fn values_from_folio_toml_print_no_command() {
    let p = hostile_data();
    let v = serde_json::to_string(HOSTILE).unwrap();
    // What is refused as it parses (an unknown key, an unknown target), then what is
    // refused as it validates (a base_url, a resource, a language), each repeated.
    let configs = [
        format!("{v} = 1\n[hosting]\ntargets = [{v}]\n"),
        format!("base_url = {v}\n[listing]\nresource = {v}\nlanguages = [\"en\", {v}]\n"),
        format!(
            "[listing]\nsort = [{v}]\ndefault_language = {v}\n[fields.{v}]\ntype = \"number\"\n"
        ),
    ];
    for config in configs {
        p.write("folio.toml", &config);
        for args in [&["check"][..], &["check", "--format", "json"], &["build"]] {
            let run = p.folio(args).fails(1);
            no_command(&run);
            assert!(run.stderr().contains("\\u{3a}:") || run.stderr().contains("\\u{a}::"));
        }
        let github = p.folio(&["check", "--format", "github"]).fails(1);
        assert!(commands(&github.stderr()).is_empty(), "{}", github.stderr());
        let found = commands(&github.stdout());
        assert!(!found.is_empty() && found.iter().all(|f| !f.legacy && f.name == "error"));
        assert_eq!(found.len(), github.stdout().lines().count(), "{}", github.stdout());
    }
}

#[test]
fn a_usage_error_and_an_unknown_flag_repeat_no_command() {
    let p = Project::sample();
    for args in
        [&["serve", "--port", HOSTILE][..], &["build", HOSTILE], &["deploy", "--to", HOSTILE]]
    {
        let run = p.folio(args).fails(2);
        no_command(&run);
    }
}

/// `folio deploy --to s3://site/x` of `p`'s build, with credentials and `env`, and with
/// none of the machine's AWS endpoints and regions: the environment's are read.
fn s3_deploy(p: &Project, args: &[&str], env: &[(&str, &str)]) -> Run {
    let mut cmd = Command::new(BIN);
    cmd.args(["deploy", "--to", "s3://site/x"]).args(args).current_dir(p.dir.path());
    cmd.env("AWS_ACCESS_KEY_ID", "AKIAFOLIOTEST").env("AWS_SECRET_ACCESS_KEY", "folio-secret");
    for var in [
        "AWS_REGION",
        "AWS_DEFAULT_REGION",
        "AWS_ENDPOINT",
        "AWS_ENDPOINT_URL",
        "AWS_ENDPOINT_URL_S3",
    ] {
        cmd.env_remove(var);
    }
    cmd.env_remove("FOLIO_FAULT").envs(env.iter().copied());
    Run::of(format!("folio deploy --to s3://site/x {}", args.join(" ")), cmd.output().unwrap())
}

/// An S3-protocol server that refuses every request with `403` and what
/// `<Message>` says.
fn refusing_s3() -> Scripted {
    const DENIED: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AccessDenied</Code><Message>Access Denied\n::error file=README.md,line=1::forged\r\n::add-mask::x ##[error]F \u{1b}[2K \u{202e}gnp.exe</Message><RequestId>r</RequestId></Error>";
    Scripted::start(vec![(403, DENIED)])
}

#[test]
fn what_a_store_a_cdn_and_the_environment_say_prints_no_command() {
    let p = Project::sample();
    p.folio(&["build"]).success();
    // A store's error message.
    let store = refusing_s3();
    let endpoint = format!("http://127.0.0.1:{}", store.port);
    let run = s3_deploy(&p, &["--endpoint", &endpoint], &[]).fails(2);
    no_command(&run);
    let said = run.stderr();
    assert!(said.contains("AccessDenied: Access Denied\\u{a}::error file=README.md"), "{said}");
    assert!(!said.contains(['\u{1b}', '\u{202e}']), "{said}");

    // The environment's endpoint and region, echoed in their refusals.
    let endpoint = format!("http://a b{HOSTILE}");
    for var in ["AWS_ENDPOINT_URL", "AWS_ENDPOINT_URL_S3"] {
        let run = s3_deploy(&p, &[], &[(var, &endpoint)]).fails(1);
        no_command(&run);
        assert!(run.stderr().contains(&format!("(from {var})")), "{}", run.stderr());
    }
    let run = s3_deploy(&p, &["--endpoint", "http://127.0.0.1:9"], &[("AWS_REGION", HOSTILE)]);
    let run = run.fails(1);
    no_command(&run);
    assert!(run.stderr().contains("AWS_REGION: `a\\r\\n"), "{}", run.stderr());

    // A CDN's refusal, after the store took the build.
    let dir = tempfile::tempdir().unwrap();
    let folder = Remote::Dir(dir.path().join("www"));
    const REFUSED: &str = "<?xml version=\"1.0\"?><ErrorResponse><Error><Type>Sender</Type><Code>AccessDenied</Code><Message>no\n::error::forged ##[error]F \u{1b}[2K</Message></Error></ErrorResponse>";
    let cloudfront = Scripted::start(vec![(403, REFUSED)]);
    let endpoint = format!("http://127.0.0.1:{}", cloudfront.port);
    let env = [("AWS_ENDPOINT_URL_CLOUDFRONT", endpoint.as_str())];
    let run = folder.deploy_env(&p, &["--purge", "cloudfront:E2QWRUHAPOMQZL"], &env).fails(2);
    no_command(&run);
    assert!(run.stderr().contains("forged #\\u{23}[error]F"), "{}", run.stderr());
}

/// Rewrites the record of the folder target `www` as format 3, with `keys` owed a purge
/// by CloudFront, as someone with the bucket's keys could.
fn forge_owed(www: &std::path::Path, keys: &[String]) {
    let path = www.join(".folio-deploy.json.gz");
    let mut text = String::new();
    let bytes = std::fs::read(&path).unwrap();
    flate2::read::GzDecoder::new(&bytes[..]).read_to_string(&mut text).unwrap();
    let mut record: serde_json::Value = serde_json::from_str(&text).unwrap();
    record["version"] = 3.into();
    record["purging"] = serde_json::json!({ "cloudfront:E2QWRUHAPOMQZL": keys });
    let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
    gz.write_all(record.to_string().as_bytes()).unwrap();
    std::fs::write(&path, gz.finish().unwrap()).unwrap();
}

#[test]
fn a_forged_key_of_960_kb_is_cut_and_prints_no_command() {
    let p = Project::sample();
    p.folio(&["build"]).success();
    let dir = tempfile::tempdir().unwrap();
    let www = dir.path().join("www");
    let folder = Remote::Dir(www.clone());
    folder.deploy(&p, &[]).success();
    let long = format!("api/{}{HOSTILE}", "k".repeat(960_000));
    forge_owed(&www, &[long, format!("x{HOSTILE}")]);
    let run = folder.deploy(&p, &["--dry-run"]).success();
    no_command(&run);
    let said = run.stderr();
    assert!(said.len() < 8_000, "{} bytes on stderr", said.len());
    assert!(said.contains("more characters)"), "{said}");
}

/// `folio serve` in `p` with both streams to files; stopped (SIGTERM) when dropped.
struct Serving {
    child: std::process::Child,
    out: tempfile::NamedTempFile,
    err: tempfile::NamedTempFile,
    port: u16,
}

impl Serving {
    fn start(p: &Project) -> Serving {
        let (out, err) =
            (tempfile::NamedTempFile::new().unwrap(), tempfile::NamedTempFile::new().unwrap());
        let child = Command::new(BIN)
            .args(["serve", "--port", "0"])
            .current_dir(p.dir.path())
            .env_remove("FOLIO_FAULT")
            .stdin(Stdio::null())
            .stdout(out.reopen().unwrap())
            .stderr(err.reopen().unwrap())
            .spawn()
            .unwrap();
        let started = Instant::now();
        let port = loop {
            let text = std::fs::read_to_string(out.path()).unwrap();
            if let Some(port) = text
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("http://127.0.0.1:"))
                .and_then(|r| r.split('/').next())
                .and_then(|p| p.parse().ok())
            {
                break port;
            }
            assert!(started.elapsed() < Duration::from_secs(60), "no URL: {text}");
            std::thread::sleep(Duration::from_millis(20));
        };
        Serving { child, out, err, port }
    }

    /// Stops it and returns what it printed, as a run.
    fn stop(mut self) -> Run {
        let _ = Command::new("kill").arg("-TERM").arg(self.child.id().to_string()).status();
        let status = self.child.wait().unwrap();
        let output = std::process::Output {
            status,
            stdout: std::fs::read(self.out.path()).unwrap(),
            stderr: std::fs::read(self.err.path()).unwrap(),
        };
        Run::of("folio serve".into(), output)
    }
}

#[test]
fn the_preview_prints_no_command_whatever_it_is_asked_or_reloads() {
    let p = Project::sample();
    let serving = Serving::start(&p);
    let escaped = "%0D%0A::error::F%0A%23%23[error]F";
    let targets = [
        format!("/api/{escaped}"),
        format!("/api/en/attractions?page={escaped}&per_page=10"),
        format!("/{escaped}"),
    ];
    for target in &targets {
        let mut stream = std::net::TcpStream::connect(("127.0.0.1", serving.port)).unwrap();
        stream.set_read_timeout(Some(Duration::from_secs(10))).unwrap();
        let head = format!(
            "GET {target} HTTP/1.1\r\nHost: x\r\nX-A: ##[error]H\r\nUser-Agent: ::error::U\r\nConnection: close\r\n\r\n"
        );
        stream.write_all(head.as_bytes()).unwrap();
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        assert!(answer.starts_with(b"HTTP/1.1 "), "{target}: {}", String::from_utf8_lossy(&answer));
    }
    // A reload that fails on a value and a file's name of the data.
    let cell = HOSTILE.replace('"', "\"\"");
    p.write("data/##[error]n\n::warning::m.csv", format!("id,rating\n900,\"{cell}\"\n"));
    let started = Instant::now();
    while !std::fs::read_to_string(serving.err.path()).unwrap().contains("still serving") {
        assert!(started.elapsed() < Duration::from_secs(30), "no failed reload");
        std::thread::sleep(Duration::from_millis(50));
    }
    let run = serving.stop();
    no_command(&run);
    assert!(
        run.stderr().contains("data/#\\u{23}[error]n\\u{a}::warning::m.csv"),
        "{}",
        run.stderr()
    );
}
