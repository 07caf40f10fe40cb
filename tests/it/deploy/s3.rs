//! An S3-protocol server's addresses and credentials: wrong and missing credentials, a
//! missing bucket, malformed endpoints, regions and deploy URLs, an empty region variable.

use super::*;
use crate::harness::folio_snapshot_of;

#[test]
fn s3_wrong_credentials_and_a_missing_bucket_are_named() {
    let Some(moto) = Moto::start(true) else { return };
    let remote = Remote::s3(&moto, "travel");
    let p = Project::sample();
    p.folio(&["build"]).success();
    // folio's words, then the store's own.
    insta::assert_snapshot!("wrong_credentials", remote.snapshot(&p, &[]));

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
    let command = |args: &[&str], env: &[(&str, &str)]| {
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
        cmd
    };
    let deploy = |args: &[&str], env: &[(&str, &str)]| {
        Run::of(format!("folio deploy {}", args.join(" ")), command(args, env).output().unwrap())
    };
    // Each named with where it came from; none panics.
    let said: String = [
        "http://",
        "http://[::1",
        "http://a b",
        "http://host:99999",
        "http://%zz",
        "localhost:9000",
    ]
    .into_iter()
    .map(|endpoint| {
        let run = folio_snapshot_of(p.dir.path(), command(&["--endpoint", endpoint], &[]));
        format!("=== --endpoint {endpoint}\n{run}")
    })
    .collect();
    assert!(!said.contains("panicked"), "{said}");
    insta::assert_snapshot!("malformed_endpoints", said);
    let run = deploy(&[], &[("AWS_ENDPOINT_URL", "http://a b")]).fails(1);
    assert!(run.stderr().contains("(from AWS_ENDPOINT_URL)"), "{}", run.stderr());
    for var in ["AWS_REGION", "AWS_DEFAULT_REGION"] {
        let run = deploy(&["--endpoint", "http://127.0.0.1:9"], &[(var, "eu west")]).fails(1);
        let said = run.stderr();
        assert!(said.contains(&format!("{var}: `eu west` is not a region name")), "{said}");
    }
    // A flag's problem is the command line's (exit 2); the file's, at its line (exit 1),
    // for every command, as any other key of folio.toml.
    let run = deploy(&["--endpoint", "http://127.0.0.1:9", "--region", "eu west 1"], &[]).fails(2);
    assert!(
        run.stderr().contains("--region: `eu west 1` is not a region name"),
        "{}",
        run.stderr()
    );
    for target in ["s3://b%zz/x", "s3://user@site/x", "s3://site:9000/x"] {
        let mut cmd = Command::new(BIN);
        cmd.args(["deploy", "--to", target]).current_dir(p.dir.path());
        let run = Run::of(format!("folio deploy --to {target}"), cmd.output().unwrap()).fails(2);
        // A user in the URL is never repeated: it may be a credential.
        let shown = target.replace("user@", "[credentials]@");
        assert!(run.stderr().contains(&format!("--to: `{shown}`")), "{}", run.stderr());
    }
    set_config(&p, "[hosting]", "[deploy]\nregion = \"eu west 1\"\n\n[hosting]");
    let build = p.folio(&["build"]).fails(1);
    assert!(build.stderr().contains("deploy.region: `eu west 1`"), "{}", build.stderr());
    let run = deploy(&["--endpoint", "http://127.0.0.1:9"], &[]).fails(1);
    assert!(run.stderr().contains("folio.toml:"), "{}", run.stderr());
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
