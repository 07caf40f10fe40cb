//! The first five minutes: `folio init`, the README's quick start run as written, help
//! with examples, completions, the man page, `--version`, `check --format json`, and
//! docs/config.md kept in step with the keys the parser accepts.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::Path;
use std::process::Command;

use serde_json::Value;

use crate::harness::{BIN, Project, Run, folio_snapshot, need, repo, serve};
use crate::table::request;

fn folio_in(dir: &Path, args: &[&str]) -> Run {
    let output = Command::new(BIN).args(args).current_dir(dir).output().expect("running folio");
    Run::of(format!("folio {}", args.join(" ")), output)
}

/// The page `target` served by `folio serve` in `dir`, parsed.
fn served_page(dir: &Path, target: &str) -> Value {
    let served = serve(dir);
    let res = request(served.port, "GET", target, &[]);
    assert_eq!(res.status, 200, "{target}: {}", String::from_utf8_lossy(&res.body));
    serde_json::from_slice(&res.body).expect("a JSON page")
}

fn names(page: &Value) -> Vec<String> {
    let data = page["data"].as_array().expect("a data array");
    data.iter().map(|item| item["name"].as_str().unwrap_or_default().to_string()).collect()
}

#[test]
fn init_in_an_empty_folder_then_check_build_and_serve() {
    let tmp = tempfile::tempdir().unwrap();
    // The next commands are printed.
    insta::assert_snapshot!(
        "init_in_an_empty_folder",
        folio_snapshot(
            tmp.path(),
            &["init", "site", "--languages", "en,de", "--resource", "sights"]
        )
    );
    let dir = tmp.path().join("site");
    for file in ["folio.toml", "data/attractions.csv", "data/more.jsonl", "templates/README.md"] {
        assert!(dir.join(file).is_file(), "{file} written");
    }
    assert!(fs::read_to_string(dir.join(".gitignore")).unwrap().contains("/output/"));

    // The translation left out on purpose shows the fallback.
    insta::assert_snapshot!("check_after_init", folio_snapshot(&dir, &["check"]));
    folio_in(&dir, &["build"]).success();
    let page = served_page(&dir, "/api/de/sights?per_page=20");
    assert_eq!(page["total"], 6);
    assert!(names(&page).contains(&"Eiffelturm".to_string()), "{page}");
}

#[test]
fn init_refuses_an_existing_project_and_force_never_touches_data() {
    let p = Project::new("# mine\n");
    p.write("data/mine.csv", "id,name.en,name.fr\n1,Louvre,Le Louvre\n");
    let run = p.folio(&["init"]).fails(1);
    assert!(run.stderr().contains("already has a folio.toml"), "{}", run.stderr());
    assert_eq!(p.read("folio.toml"), "# mine\n", "nothing written");
    assert!(!p.path(".gitignore").exists());

    p.write(".gitignore", "target/\n");
    insta::assert_snapshot!("init_force", folio_snapshot(p.dir.path(), &["init", "--force"]));
    // The old config is kept beside the new one; the user's data and .gitignore are as
    // they were, and no sample record joined them.
    assert_eq!(p.read("folio.toml.bak"), "# mine\n");
    assert!(p.read("folio.toml").contains("[listing]"));
    assert_eq!(p.read(".gitignore"), "target/\n");
    assert_eq!(fs::read_dir(p.path("data")).unwrap().count(), 1);
    // The newcomer's own CSV builds with the generated config.
    let check = p.folio(&["check"]).success().stdout();
    assert!(check.starts_with("1 record in 1 file;"), "{check}");
    p.folio(&["build"]).success();
    assert_eq!(p.json("output/api/fr/attractions/10/1.json")["data"][0]["name"], "Le Louvre");

    // A second --force would replace folio.toml.bak, which folio did not write: refused.
    let run = p.folio(&["init", "--force"]).fails(1);
    assert!(run.stderr().contains("folio.toml.bak` exists"), "{}", run.stderr());
    assert_eq!(p.read("folio.toml.bak"), "# mine\n");
}

#[test]
fn init_refuses_bad_options_with_the_builds_messages() {
    let tmp = tempfile::tempdir().unwrap();
    let run = folio_in(tmp.path(), &["init", "x", "--languages", "en,FR"]).fails(2);
    assert!(run.stderr().contains("`FR` is not lowercase: write `fr`"), "{}", run.stderr());
    let run = folio_in(tmp.path(), &["init", "x", "--default-language", "de"]).fails(2);
    assert!(run.stderr().contains("default_language `de` is not one of"), "{}", run.stderr());
    assert!(!tmp.path().join("x").exists(), "nothing created");
}

/// The commands of the README's quick start: the first `sh` block after its heading.
fn quick_start() -> Vec<String> {
    let readme = fs::read_to_string(repo().join("README.md")).unwrap();
    let section = readme.split("## Quick start").nth(1).expect("a Quick start section");
    let block = section.split("```sh\n").nth(1).and_then(|b| b.split("```").next()).unwrap();
    (block.lines())
        .map(|l| l.split(" #").next().unwrap().trim().to_string())
        .filter(|l| !l.is_empty())
        .collect()
}

#[test]
fn a_newcomer_following_the_readme_reaches_a_served_page() {
    let commands = quick_start();
    assert!(commands[0].starts_with("folio init"), "{commands:?}");
    // Installing comes first, in its own section, and from a clone it is `--path .`.
    let readme = fs::read_to_string(repo().join("README.md")).unwrap();
    let install =
        readme.split("## Install").nth(1).unwrap().split("## Quick start").next().unwrap();
    assert!(install.contains("cargo install --locked --path ."), "{install}");
    let tmp = tempfile::tempdir().unwrap();
    let mut dir = tmp.path().to_path_buf();
    let mut served = false;
    // The installed binary is the one this test suite built.
    for line in &commands {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["cd", to] => dir = dir.join(to),
            ["folio", "serve", ..] => {
                let page = served_page(&dir, "/api/en/attractions");
                assert_eq!(page["total"], 6, "{page}");
                assert_eq!(names(&page)[0], "Eiffel Tower");
                served = true;
            }
            ["folio", args @ ..] => {
                folio_in(&dir, args).success();
            }
            other => panic!("the quick start has a command this test does not know: {other:?}"),
        }
    }
    assert!(served, "the quick start ends in folio serve: {commands:?}");
}

#[test]
fn help_shows_examples_and_version_names_the_commit() {
    let tmp = tempfile::tempdir().unwrap();
    insta::assert_snapshot!("help", folio_snapshot(tmp.path(), &["--help"]));
    for cmd in ["init", "build", "check", "serve", "deploy", "completions", "man"] {
        let help = folio_in(tmp.path(), &[cmd, "--help"]).success().stdout();
        assert!(help.contains("Examples:\n  folio "), "folio {cmd} --help:\n{help}");
    }
    let version = folio_in(tmp.path(), &["--version"]).success().stdout();
    assert!(version.starts_with(&format!("folio {}", env!("CARGO_PKG_VERSION"))), "{version}");
    let head = Command::new("git")
        .args(["-C", &repo().to_string_lossy(), "rev-parse", "--short=9", "HEAD"])
        .output();
    if let Some(head) = head.ok().filter(|o| o.status.success()) {
        let head = String::from_utf8_lossy(&head.stdout).trim().to_string();
        assert!(version.contains(&format!("({head})")), "{version} names HEAD {head}");
    }
}

#[test]
fn unknown_commands_and_values_suggest_the_one_meant() {
    let tmp = tempfile::tempdir().unwrap();
    let run = folio_in(tmp.path(), &["biuld"]).fails(2);
    assert!(run.stderr().contains("similar subcommand exists: 'build'"), "{}", run.stderr());
    let run = folio_in(tmp.path(), &["completions", "bsah"]).fails(2);
    assert!(run.stderr().contains("similar value exists: 'bash'"), "{}", run.stderr());
    let run = folio_in(tmp.path(), &["check", "--format", "jsno"]).fails(2);
    assert!(run.stderr().contains("similar value exists: 'json'"), "{}", run.stderr());

    let p = Project::new("[listing]\nlangauges = [\"en\"]\n");
    let run = p.folio(&["build"]).fails(1);
    let want = "folio.toml:2: unknown key `langauges` in [listing]; did you mean `languages`?";
    assert!(run.stderr().contains(want), "{}", run.stderr());
}

#[test]
fn completions_for_every_shell_and_a_man_page() {
    let tmp = tempfile::tempdir().unwrap();
    for shell in ["bash", "zsh", "fish", "powershell", "elvish"] {
        let script = folio_in(tmp.path(), &["completions", shell]).success().stdout();
        assert!(script.contains("deploy") && script.contains("purge-list"), "{shell}");
    }
    if need("bash") {
        let script = folio_in(tmp.path(), &["completions", "bash"]).success().stdout();
        fs::write(tmp.path().join("folio.bash"), &script).unwrap();
        // The script loads, and completing `folio de` offers deploy.
        let probe = "source ./folio.bash; COMP_WORDS=(folio de); COMP_CWORD=1; \
                     _folio folio de folio; printf '%s\\n' \"${COMPREPLY[@]}\"";
        let out =
            Command::new("bash").args(["-c", probe]).current_dir(tmp.path()).output().unwrap();
        let offered = String::from_utf8_lossy(&out.stdout);
        assert!(
            offered.lines().any(|l| l == "deploy"),
            "{offered}{}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
    let man = folio_in(tmp.path(), &["man"]).success().stdout();
    assert!(man.contains(".TH folio 1"), "{}", &man[..man.len().min(200)]);
    for word in ["init", "deploy", "completions"] {
        assert!(man.contains(word), "the man page lists {word}");
    }
    // Examples read as typed (no hyphenation); exit codes and the environment are said.
    assert!(man.contains("\n.nh\n"), "no hyphenation");
    for section in [".SH EXAMPLES", ".SH \"EXIT STATUS\"", ".SH ENVIRONMENT"] {
        assert!(man.contains(section), "the man page has {section}");
    }
    assert!(man.contains("AWS_ACCESS_KEY_ID"), "credentials are named");
    assert!(!man.contains("folio\\-help"), "no page for help is referred to");
    // Every page the overview refers to is written by --out-dir.
    let pages = tmp.path().join("man1");
    let listed = folio_in(tmp.path(), &["man", "--out-dir", "man1"]).success().stdout();
    for cmd in ["init", "build", "check", "serve", "deploy", "completions", "man"] {
        let page = fs::read_to_string(pages.join(format!("folio-{cmd}.1"))).unwrap();
        assert!(page.contains(&format!(".TH folio-{cmd} 1")), "{cmd}: {}", &page[..120]);
        assert!(man.contains(&format!("folio\\-{cmd}(1)")), "folio.1 refers to folio-{cmd}(1)");
        assert!(listed.contains(&format!("folio-{cmd}.1")));
    }
    // man renders the page where it is installed (an optional extra: no need()).
    if Command::new("man").arg("--version").output().is_ok_and(|o| o.status.success()) {
        let out = Command::new("man")
            .arg("-l")
            .arg(pages.join("folio-deploy.1"))
            .env("MANPAGER", "cat")
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("--purge-list"), "man renders folio-deploy.1: {text}");
    }
}

#[test]
fn check_format_json_is_one_object_with_stable_keys() {
    let keys = |v: &Value| v.as_object().unwrap().keys().cloned().collect::<BTreeSet<_>>();
    let p = Project::sample();
    let ok: Value =
        serde_json::from_str(&p.folio(&["check", "--format", "json"]).success().stdout()).unwrap();
    assert_eq!((ok["ok"].clone(), ok["records"].clone()), (Value::Bool(true), 67.into()));
    assert_eq!(ok["missing_translations"]["fr"]["summary"], 1, "{ok}");

    p.write("data/bad.csv", "id,rating\n900,abc\n");
    let run = p.folio(&["check", "--format", "json"]).fails(1);
    let bad: Value = serde_json::from_str(&run.stdout()).unwrap();
    assert_eq!(keys(&bad), keys(&ok), "the same keys either way");
    assert_eq!(bad["exit_code"], 1);
    let problem = &bad["problems"][0];
    assert_eq!(
        (&problem["kind"], &problem["file"], &problem["line"], &problem["field"]),
        (&"data".into(), &"data/bad.csv".into(), &2.into(), &"rating".into()),
        "{bad}"
    );
    // stderr still has the lines a person reads.
    assert!(run.stderr().contains("data/bad.csv:2: rating:"), "{}", run.stderr());

    p.write("folio.toml", "[listing]\nlanguages = [\"en\"]\nsrot = [\"id\"]\n");
    let cfg: Value =
        serde_json::from_str(&p.folio(&["check", "--format", "json"]).fails(1).stdout()).unwrap();
    assert_eq!(cfg["problems"][0]["kind"], "config");
    assert_eq!(cfg["problems"][0]["line"], 3);
    assert_eq!(cfg["problems"][0]["column"], 1, "{cfg}");
    assert!(cfg["problems"][0]["message"].as_str().unwrap().contains("did you mean `sort`?"));

    let empty = tempfile::tempdir().unwrap();
    let none: Value = serde_json::from_str(
        &folio_in(empty.path(), &["check", "--format", "json"]).fails(2).stdout(),
    )
    .unwrap();
    assert_eq!(
        (none["ok"].clone(), none["problems"][0]["kind"].clone()),
        (false.into(), "usage".into())
    );
}

#[test]
fn check_format_github_annotates_each_problem_at_its_file_line_and_column() {
    let p = Project::new("[fields.rating]\ntype = \"number\"\n");
    // A CSV problem, records on one line of JSON (index and id in the text, the column of
    // each), and a message with what the runner would read as its own (`%`).
    p.write("data/bad.csv", "id,rating\n900,abc\n");
    p.write(
        "data/bad.json",
        "[{\"id\": 901, \"rating\": 4}, {\"id\": 902, \"rating\": \"x\"}, {\"rating\": 1}]\n",
    );
    p.write("data/pct.jsonl", "{\"id\": 903, \"rating\": \"50%\"}\n");
    insta::assert_snapshot!(folio_snapshot(p.dir.path(), &["check", "--format", "github"]));
    // A config problem at its column.
    p.write("folio.toml", "[listing]\nlanguages = [\"en\"]\nsrot = [\"id\"]\n");
    let run = p.folio(&["check", "--format", "github"]).fails(1);
    assert_eq!(
        run.stdout(),
        "::error file=folio.toml,line=3,col=1,title=folio check (config)::unknown key `srot` in [listing]; did you mean `sort`?\n"
    );
    // Valid: each warning as `::warning`, then the summary.
    p.write(
        "folio.toml",
        "[listing]\nlanguages = [\"en\", \"fr\"]\n[fields.id]\ntype = \"integer\"\n",
    );
    p.write("data/bad.csv", "id,name\n900,x\n");
    p.write("data/bad.json", "[{\"id\": 901, \"name\": {\"en\": \"y\", \"fr\": \"z\"}}]\n");
    fs::remove_file(p.path("data/pct.jsonl")).unwrap();
    insta::assert_snapshot!(p.folio(&["check", "--format", "github"]).success().stdout(), @r"
    ::warning file=data/bad.json,line=1,title=folio check (data)::name: looks localized (its keys are configured languages) but is not declared; add `localized = true` under [fields.name]
    2 records in 2 files; languages: en, fr (default en)
    missing translations: none
    ");
}

/// The keys the parser accepts in each table, in its own words: an unknown key's error
/// lists them (`expected one of: a, b`).
fn parser_keys() -> BTreeMap<String, BTreeSet<String>> {
    let probe = |table: &str| -> BTreeSet<String> {
        let text = match table {
            "Top level" => "zzzz_probe = 1\n".to_string(),
            t => format!("{t}\nzzzz_probe = 1\n"),
        };
        let p = Project::new(&text);
        let err = p.folio(&["check"]).fails(1).stderr();
        let list = err.split("expected one of: ").nth(1).unwrap_or_else(|| panic!("{err}"));
        list.lines().next().unwrap().split(", ").map(str::to_string).collect()
    };
    [
        "Top level",
        "[listing]",
        "[fields.NAME]",
        "[input]",
        "[i18n]",
        "[output]",
        "[hosting]",
        "[hosting.cloudflare]",
        "[openapi]",
        "[deploy]",
    ]
    .into_iter()
    .map(|t| (t.to_string(), probe(&t.replace("NAME", "name"))))
    .collect()
}

/// The keys docs/config.md documents: the first column of the tables under each `## `
/// heading.
fn documented_keys() -> BTreeMap<String, BTreeSet<String>> {
    let doc = fs::read_to_string(repo().join("docs/config.md")).expect("docs/config.md");
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut section = None;
    for line in doc.lines() {
        if let Some(h) = line.strip_prefix("## ") {
            section = Some(h.trim().to_string());
        } else if let (Some(s), Some(rest)) = (&section, line.strip_prefix("| `")) {
            let key = rest.split('`').next().unwrap().to_string();
            out.entry(s.clone()).or_default().insert(key);
        }
    }
    out
}

#[test]
fn docs_config_md_documents_exactly_the_keys_the_parser_accepts() {
    let parser = parser_keys();
    let docs = documented_keys();
    for (table, keys) in &parser {
        // Tables nest in the top level; their names are not keys to document there.
        let documented = docs.get(table).cloned().unwrap_or_default();
        let inner = table.trim_start_matches('[').trim_end_matches(']');
        let want: BTreeSet<String> = if table == "Top level" {
            keys.iter()
                .filter(|k| !parser.contains_key(&format!("[{k}]")) && *k != "fields")
                .cloned()
                .collect()
        } else {
            // A table nested in this one (`[hosting.cloudflare]`) has its own section.
            keys.iter()
                .filter(|k| !parser.contains_key(&format!("[{inner}.{k}]")))
                .cloned()
                .collect()
        };
        let missing: Vec<_> = want.difference(&documented).collect();
        let unknown: Vec<_> = documented.difference(&want).collect();
        assert!(
            missing.is_empty() && unknown.is_empty(),
            "docs/config.md `## {table}`: undocumented {missing:?}, unknown to the parser {unknown:?}"
        );
    }
}

/// The keys of the folio.toml `folio init` writes, by table as [`parser_keys`] names them,
/// the commented-out ones too (`# fields = [...]`, `# [hosting.cloudflare]`).
fn init_keys() -> BTreeMap<String, BTreeSet<String>> {
    let tmp = tempfile::tempdir().unwrap();
    folio_in(tmp.path(), &["init", "p"]).success();
    let text = fs::read_to_string(tmp.path().join("p/folio.toml")).unwrap();
    let key = regex::Regex::new(r"^([a-z0-9_]+) = ").unwrap();
    let header = regex::Regex::new(r"^\[([a-z0-9_.]+)\]").unwrap();
    let mut out: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    let mut table = "Top level".to_string();
    for line in text.lines() {
        let line = line.strip_prefix("# ").unwrap_or(line);
        if let Some(h) = header.captures(line) {
            // Each [fields.X] is one table of the parser's: [fields.NAME].
            let name = if h[1].starts_with("fields.") { "fields.NAME" } else { &h[1] };
            table = format!("[{name}]");
            // A table is a key of the one it is in: written as its header.
            let (outer, inner) = match name.rsplit_once('.') {
                _ if name == "fields.NAME" => ("Top level".to_string(), "fields"),
                Some((outer, inner)) => (format!("[{outer}]"), inner),
                None => ("Top level".to_string(), name),
            };
            out.entry(outer).or_default().insert(inner.to_string());
        } else if let Some(k) = key.captures(line) {
            out.entry(table.clone()).or_default().insert(k[1].to_string());
        }
    }
    out
}

#[test]
fn init_writes_every_key_the_parser_accepts() {
    let parser = parser_keys();
    let written = init_keys();
    for (table, keys) in &parser {
        let have = written.get(table).cloned().unwrap_or_default();
        let missing: Vec<_> = keys.difference(&have).collect();
        let unknown: Vec<_> = have.difference(keys).collect();
        assert!(
            missing.is_empty() && unknown.is_empty(),
            "folio init's folio.toml, {table}: lacks {missing:?}, has keys the parser refuses {unknown:?}"
        );
    }
    let extra: Vec<_> = written.keys().filter(|t| !parser.contains_key(*t)).collect();
    assert!(extra.is_empty(), "folio init writes tables the parser does not have: {extra:?}");
}

/// The fenced ```yaml blocks of a doc.
fn yaml_blocks(doc: &str) -> Vec<String> {
    let text = fs::read_to_string(repo().join(doc)).unwrap();
    let mut blocks = Vec::new();
    let mut current: Option<String> = None;
    for line in text.lines() {
        match (&mut current, line.trim_start()) {
            (None, "```yaml") => current = Some(String::new()),
            (Some(block), "```") => {
                blocks.push(std::mem::take(block));
                current = None;
            }
            (Some(block), _) => {
                block.push_str(line);
                block.push('\n');
            }
            (None, _) => {}
        }
    }
    blocks
}

#[test]
fn ci_recipes_install_one_pinned_commit_of_folio_until_it_has_a_release() {
    // A project repository holds folio.toml and data/, no Cargo.toml: `--path .` fails
    // there. No release exists yet: a recipe builds folio from its repository at one
    // commit, pinned in one place, and caches the binary by it (the recipes run as
    // written in tests/it/recipes.rs; the release routes in tests/it/release.rs).
    let mut recipes = 0;
    let mut revs = BTreeSet::new();
    for doc in ["docs/ci.md", "docs/publish.md"] {
        // A whole pipeline has keys at its left margin; a step shown alone (the deploy
        // from the data, for one) is indented and installs nothing of its own.
        let whole =
            |b: &&String| b.lines().any(|l| l.starts_with(|c: char| c.is_ascii_alphabetic()));
        for block in yaml_blocks(doc).iter().filter(|b| b.contains("folio deploy")).filter(whole) {
            recipes += 1;
            assert!(!block.contains("--path ."), "{doc}: installs from a path\n{block}");
            assert!(!block.contains("folio-api/folio@"), "{doc}: an action of no release\n{block}");
            let install = "cargo install --locked --git https://github.com/folio-api/folio --rev \"$FOLIO_REV\"";
            assert!(block.contains(install), "{doc}: no install of the pinned commit\n{block}");
            let rev = (block.lines())
                .find_map(|l| l.trim().strip_prefix("FOLIO_REV: "))
                .and_then(|r| r.split_whitespace().next())
                .unwrap_or_else(|| panic!("{doc}: FOLIO_REV is not set\n{block}"));
            assert!(rev.len() == 40 && rev.bytes().all(|b| b.is_ascii_hexdigit()), "{doc}: {rev}");
            revs.insert(rev.to_string());
            let keyed = block.contains("folio-${{ env.FOLIO_REV }}")
                || block.contains("key: folio-$FOLIO_REV");
            assert!(keyed, "{doc}: no cache keyed by the commit\n{block}");
        }
    }
    assert_eq!(recipes, 3, "the GitHub and GitLab pipelines and the OIDC job");
    assert_eq!(revs.len(), 1, "one commit in every recipe: {revs:?}");
}

#[test]
fn a_skipped_test_says_so_in_the_default_output() {
    // This very binary, run on one test that needs a program, with no PATH to find it
    // on and CI unset: the skip must show without --nocapture, naming the test and why.
    let me = std::env::current_exe().unwrap();
    let test = "hosts::nginx_answers_the_whole_table";
    let out = Command::new(me)
        .args([test, "--exact", "--test-threads=2"])
        .env("PATH", "")
        .env_remove("CI")
        .output()
        .unwrap();
    let said =
        format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success(), "{said}");
    assert!(said.contains("1 passed"), "the test ran: {said}");
    assert!(
        said.contains(&format!("SKIPPED {test}: nginx is not installed (.ci/run installs it)")),
        "{said}"
    );
    // Under CI the same test fails instead: .ci/run installs what it needs.
    let out = Command::new(std::env::current_exe().unwrap())
        .args([test, "--exact"])
        .env("PATH", "")
        .env("CI", "true")
        .output()
        .unwrap();
    assert!(!out.status.success(), "a missing program fails under CI");
}

#[test]
fn cargo_run_runs_folio_as_the_readme_says() {
    // `cargo run --release -- build` is the README's build command: with the tests' second
    // binary beside folio, cargo must be told which one `cargo run` means.
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--no-deps", "--format-version", "1", "--offline"])
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta: Value = serde_json::from_slice(&out.stdout).unwrap();
    let package = &meta["packages"][0];
    let bins: Vec<&str> = (package["targets"].as_array().unwrap().iter())
        .filter(|t| t["kind"].as_array().unwrap().iter().any(|k| k == "bin"))
        .map(|t| t["name"].as_str().unwrap())
        .collect();
    assert!(bins.contains(&"folio"), "{bins:?}");
    if bins.len() > 1 {
        assert_eq!(package["default_run"], "folio", "`cargo run` would not know which of {bins:?}");
    }
}
