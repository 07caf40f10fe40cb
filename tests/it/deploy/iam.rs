//! docs/ci.md's IAM policy, on moto's IAM: a user holding exactly that policy deploys
//! (uploads, updates, deletes) and purges CloudFront, and a user lacking any one of its five
//! actions cannot. moto checks each request's action and, for S3's single-object requests
//! and listings, its resource; not a policy's conditions.

use serde_json::{Value, json};

use super::*;
use crate::harness::{need_python_module, repo, tool};

/// The JSON block under docs/ci.md's "The permissions the deploy needs".
fn policy() -> Value {
    let doc = std::fs::read_to_string(repo().join("docs/ci.md")).unwrap();
    let section = doc.split("\n## The permissions the deploy needs\n").nth(1).unwrap();
    let block = section.split("```json\n").nth(1).unwrap().split("```").next().unwrap();
    serde_json::from_str(block).unwrap()
}

/// `policy` without `action`, wherever it is.
fn without(policy: &Value, action: &str) -> Value {
    let mut policy = policy.clone();
    let statements = policy["Statement"].as_array_mut().unwrap();
    for statement in statements.iter_mut() {
        let actions = match &statement["Action"] {
            Value::String(one) => vec![one.clone()],
            many => many.as_array().unwrap().iter().map(|a| a.as_str().unwrap().into()).collect(),
        };
        statement["Action"] = actions.into_iter().filter(|a| a != action).collect();
    }
    statements.retain(|s| !s["Action"].as_array().unwrap().is_empty());
    policy
}

/// On moto, a user of each policy: their key pairs, and the id of a distribution made
/// there. The docs' bucket is `site` here, and two resources are moto's: it checks a
/// CloudFront action against `*` only, and a batch delete (`DeleteObjects`, which AWS
/// checks key by key) as `s3:DeleteObject` on the bucket.
fn users(moto: &Moto, policies: &[(&str, Value)]) -> (Vec<(String, String)>, String) {
    let script = r#"
import json, sys, boto3
url, policies = sys.argv[1], json.loads(sys.stdin.read())
kw = dict(endpoint_url=url, region_name="us-east-1", aws_access_key_id="a", aws_secret_access_key="b")
origin = {"Id": "o", "DomainName": "site.s3.amazonaws.com", "S3OriginConfig": {"OriginAccessIdentity": ""}}
made = boto3.client("cloudfront", **kw).create_distribution(DistributionConfig={
    "CallerReference": "folio-iam", "Comment": "", "Enabled": True,
    "Origins": {"Quantity": 1, "Items": [origin]},
    "DefaultCacheBehavior": {"TargetOriginId": "o", "ViewerProtocolPolicy": "allow-all", "MinTTL": 0,
        "ForwardedValues": {"QueryString": True, "Cookies": {"Forward": "none"}},
        "TrustedSigners": {"Enabled": False, "Quantity": 0}},
})
iam = boto3.client("iam", **kw)
keys = []
for name, policy in policies:
    iam.create_user(UserName=name)
    iam.put_user_policy(UserName=name, PolicyName="folio-deploy", PolicyDocument=policy)
    key = iam.create_access_key(UserName=name)["AccessKey"]
    keys.append([key["AccessKeyId"], key["SecretAccessKey"]])
print(json.dumps({"keys": keys, "distribution": made["Distribution"]["Id"]}))
"#;
    let for_moto: Vec<(String, String)> = (policies.iter())
        .map(|(name, policy)| {
            let mut policy = policy.clone();
            for statement in policy["Statement"].as_array_mut().unwrap() {
                if statement["Action"]
                    .as_array()
                    .is_some_and(|a| a.contains(&"s3:DeleteObject".into()))
                {
                    statement["Resource"] =
                        json!([statement["Resource"], "arn:aws:s3:::my-bucket"]);
                }
            }
            let text = policy.to_string().replace("my-bucket", "site");
            let cloudfront = regex::Regex::new(r#""arn:aws:cloudfront::[^"]*""#).unwrap();
            (name.to_string(), cloudfront.replace_all(&text, "\"*\"").into_owned())
        })
        .collect();
    let mut child = Command::new(tool("python3"))
        .args(["-c", script, &format!("http://127.0.0.1:{}", moto.port)])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .unwrap();
    use std::io::Write;
    let input = serde_json::to_string(&for_moto).unwrap();
    child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success(), "boto3 could not make the users");
    let made: Value = serde_json::from_slice(&out.stdout).unwrap();
    let keys = (made["keys"].as_array().unwrap().iter())
        .map(|k| (k[0].as_str().unwrap().to_string(), k[1].as_str().unwrap().to_string()))
        .collect();
    (keys, made["distribution"].as_str().unwrap().to_string())
}

/// From now on, moto checks every request's signature and the policies of its signer.
fn enforce(moto: &Moto) {
    let out = Command::new("curl")
        .args(["-fsS", "-X", "POST", "-H", "Content-Type: text/plain", "--data-binary", "0"])
        .arg(format!("http://127.0.0.1:{}/moto-api/reset-auth", moto.port))
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
}

#[test]
fn the_policy_in_docs_ci_md_lets_a_deploy_publish_and_purge_and_needs_each_of_its_actions() {
    if !crate::harness::need("curl") || !need_python_module("boto3") {
        return;
    }
    let Some(moto) = Moto::start(false) else { return };
    let remote = Remote::s3(&moto, "travel");
    let policy = policy();
    let actions = ["s3:ListBucket", "s3:GetObject", "s3:PutObject", "s3:DeleteObject"];
    let cdn_action = "cloudfront:CreateInvalidation";
    let mut policies = vec![("deploy", policy.clone())];
    for action in actions.iter().chain([&cdn_action]) {
        policies.push((action, without(&policy, action)));
    }
    let dry = without(&without(&policy, "s3:PutObject"), "s3:DeleteObject");
    policies.push(("dry-run", without(&dry, cdn_action)));
    let (keys, distribution) = users(&moto, &policies);
    enforce(&moto);

    let cdn = format!("cloudfront:{distribution}");
    let endpoint = format!("http://127.0.0.1:{}", moto.port);
    let deploy = |p: &Project, user: usize, extra: &[&str]| {
        let (id, secret) = &keys[user];
        let env = [
            ("AWS_ACCESS_KEY_ID", id.as_str()),
            ("AWS_SECRET_ACCESS_KEY", secret.as_str()),
            ("AWS_ENDPOINT_URL_CLOUDFRONT", endpoint.as_str()),
        ];
        remote.deploy_env(p, &[&["--purge", &cdn], extra].concat(), &env)
    };
    let denied = |run: Run, action: &str| {
        let run = run.fails(2);
        let said = run.stderr();
        assert!(said.contains("AccessDenied"), "without {action}: {said}");
    };
    let p = Project::sample();
    p.folio(&["build"]).success();

    // An unknown key is refused: moto checks.
    let unknown = remote.deploy_env(&p, &[], &[("AWS_ACCESS_KEY_ID", "AKIANOBODY")]).fails(2);
    assert!(unknown.stderr().contains("InvalidAccessKeyId"), "{}", unknown.stderr());

    // The policy: a first deploy, purged.
    let run = deploy(&p, 0, &[]).success();
    assert_eq!(counts(&run), (SAMPLE_OBJECTS, 0, 0), "{}", run.stdout());
    assert!(run.stdout().contains(&format!("purged {cdn}")), "{}", run.stdout());

    // Without listing or reading, no deploy at all, even of nothing new.
    denied(deploy(&p, 1, &[]), "s3:ListBucket");
    denied(deploy(&p, 2, &[]), "s3:GetObject");
    // Without writing, no change is published; the policy then publishes it.
    rename_first_record(&p);
    p.folio(&["build"]).success();
    denied(deploy(&p, 3, &[]), "s3:PutObject");
    deploy(&p, 0, &[]).success();
    // Without deleting, a smaller build cannot drop the pages it no longer has.
    std::fs::remove_file(p.path("data/more/attractions.jsonl")).unwrap();
    p.folio(&["build"]).success();
    denied(deploy(&p, 4, &[]), "s3:DeleteObject");
    let run = deploy(&p, 0, &[]).success();
    assert!(counts(&run).2 > 0, "{}", run.stdout());
    // Without the CloudFront action, the store holds the build but the purge is refused;
    // the policy's next deploy pays it.
    p.write("data/extra.jsonl", "{\"id\": 68, \"name\": {\"en\": \"New Place\"}}\n");
    p.folio(&["build"]).success();
    let refused = deploy(&p, 5, &[]).fails(2);
    let said = refused.stderr();
    assert!(said.contains(&format!("the purge of {cdn} failed: 403")), "{said}");
    let run = deploy(&p, 0, &[]).success();
    assert!(run.stdout().contains(&format!("purged {cdn}")), "{}", run.stdout());

    // A dry run needs only to list and read.
    rename_first_record(&p);
    p.folio(&["build"]).success();
    let run = deploy(&p, 6, &["--dry-run"]).success();
    assert!(run.stdout().contains("upload "), "{}", run.stdout());
}
