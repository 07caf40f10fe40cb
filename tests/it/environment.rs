//! Every environment variable folio reads is named where a user looks: the `--help` of the
//! command that reads it, the man page's ENVIRONMENT and docs/cli.md's table, each held to
//! the code's list (`folio::environment`), which is held to what the source reads.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;
use std::process::Command;

use folio::environment::VARIABLES;

use crate::harness::{BIN, repo};

/// Names in the words of a text: runs of capitals, digits and `_` with a `_` inside
/// (`AWS_REGION`), or one of the few without (`TMPDIR`).
fn variables_in(text: &str) -> BTreeSet<String> {
    let re = regex::Regex::new(r"\b(?:[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|TMPDIR)\b").unwrap();
    re.find_iter(text).map(|m| m.as_str().to_string()).collect()
}

/// The variable names folio's own source reads: string literals that are such names,
/// outside the list of them, test modules, `env!` (a value fixed at compile time) and the
/// fault points only the tests' build has (`FOLIO_FAULT*`, feature `fault-injection`).
fn read_by_the_source() -> BTreeSet<String> {
    let literal = regex::Regex::new(r#""([A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+|TMPDIR)""#).unwrap();
    let mut found = BTreeSet::new();
    for entry in walkdir::WalkDir::new(repo().join("src")) {
        let entry = entry.unwrap();
        let path = entry.path();
        // The list itself (src/environment.rs) names every variable and reads none.
        if path.extension().is_none_or(|e| e != "rs")
            || path.ends_with("tests.rs")
            || path.ends_with("src/environment.rs")
        {
            continue;
        }
        let text = std::fs::read_to_string(path).unwrap();
        let code = text.split("#[cfg(test)]\nmod tests").next().unwrap();
        for line in code.lines().filter(|l| !l.contains("env!(")) {
            for name in literal.captures_iter(line) {
                if !name[1].starts_with("FOLIO_FAULT") {
                    found.insert(name[1].to_string());
                }
            }
        }
    }
    found
}

/// The source of every crate folio is built with on this platform, as `cargo metadata`
/// resolves them: where a variable no line of folio names is read.
fn dependency_sources() -> Vec<std::path::PathBuf> {
    let out = Command::new(env!("CARGO"))
        .args(["metadata", "--format-version", "1", "--offline"])
        .args(["--filter-platform", "x86_64-unknown-linux-gnu"])
        .current_dir(repo())
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let meta: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let normal: BTreeSet<&str> = (meta["resolve"]["nodes"].as_array().unwrap().iter())
        .flat_map(|n| n["deps"].as_array().unwrap())
        .filter(|d| d["dep_kinds"].as_array().unwrap().iter().any(|k| k["kind"].is_null()))
        .filter_map(|d| d["pkg"].as_str())
        .collect();
    (meta["packages"].as_array().unwrap().iter())
        .filter(|p| normal.contains(p["id"].as_str().unwrap()))
        .map(|p| Path::new(p["manifest_path"].as_str().unwrap()).parent().unwrap().join("src"))
        .collect()
}

#[test]
fn the_list_names_every_variable_the_source_reads_and_none_it_does_not() {
    let listed: BTreeSet<String> = folio::environment::names().map(str::to_string).collect();
    let source = read_by_the_source();
    let unlisted: Vec<_> = source.difference(&listed).collect();
    assert!(unlisted.is_empty(), "read but not in folio::environment: {unlisted:?}");
    // A name of the list no line of folio has is read by a library folio hands it to
    // (object_store's settings, the HTTP client's proxies, clap's colours): its source
    // names it, in some case (object_store matches settings in lower case). Not so for
    // the variables of every program, which the standard library reads for any crate
    // that asks (`TMPDIR` for `std::env::temp_dir`): a crate naming one says nothing of
    // folio, so folio lists one only where its own source reads it.
    for every_programs in ["TMPDIR", "HOME", "PATH", "TZ", "LANG"] {
        assert!(
            !listed.contains(every_programs) || source.contains(every_programs),
            "{every_programs} is listed, but no line of folio reads it"
        );
    }
    let others: BTreeSet<String> = listed.difference(&source).cloned().collect();
    let mut unread: BTreeSet<String> = others.clone();
    for dir in dependency_sources() {
        for entry in walkdir::WalkDir::new(dir).into_iter().filter_map(Result::ok) {
            if unread.is_empty() {
                break;
            }
            if entry.path().extension().is_none_or(|e| e != "rs") {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(entry.path()) else { continue };
            unread.retain(|name| {
                let (upper, lower) =
                    (format!("\"{name}\""), format!("\"{}\"", name.to_lowercase()));
                !text.contains(&upper) && !text.contains(&lower)
            });
        }
    }
    assert!(unread.is_empty(), "listed, but neither folio nor a dependency reads {unread:?}");
}

fn help(command: &str) -> String {
    let mut cmd = Command::new(BIN);
    if !command.is_empty() {
        cmd.arg(command);
    }
    let out = cmd.arg("--help").env_remove("COLUMNS").output().unwrap();
    assert!(out.status.success());
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn each_commands_help_names_the_variables_it_reads() {
    for command in ["", "init", "build", "check", "serve", "deploy", "completions", "man"] {
        let text = help(command);
        let environment = text.split("\nEnvironment:\n").nth(1).unwrap_or_default();
        let environment = environment.split("\n\n").next().unwrap();
        let want: BTreeSet<String> = (VARIABLES.iter())
            .filter(|v| v.read_by(command))
            .flat_map(|v| v.names.iter().map(|n| n.to_string()))
            .collect();
        assert_eq!(variables_in(environment), want, "folio {command} --help:\n{text}");
    }
}

#[test]
fn the_man_page_and_docs_cli_md_name_every_variable_and_who_reads_it() {
    let listed: BTreeSet<String> = folio::environment::names().map(str::to_string).collect();
    let out = Command::new(BIN).arg("man").output().unwrap();
    let man = String::from_utf8(out.stdout).unwrap();
    let section = man.split(".SH ENVIRONMENT\n").nth(1).expect("an ENVIRONMENT section");
    let section = section.split("\n.SH ").next().unwrap();
    assert_eq!(variables_in(section), listed, "folio.1's ENVIRONMENT");

    // docs/cli.md: one row a group, `| names | read by | meaning |`.
    let doc = std::fs::read_to_string(repo().join("docs/cli.md")).unwrap();
    let table = doc.split("\n## Environment\n").nth(1).expect("docs/cli.md has ## Environment");
    let table = table.split("\n## ").next().unwrap();
    let mut documented: BTreeMap<String, String> = BTreeMap::new();
    for row in table.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = row.split(" | ").collect();
        for name in variables_in(cells[0]) {
            documented.insert(name, cells[1].to_string());
        }
    }
    let names: BTreeSet<String> = documented.keys().cloned().collect();
    assert_eq!(names, listed, "docs/cli.md's Environment table");
    for variables in VARIABLES {
        let want = match variables.commands {
            [] => "every command".to_string(),
            commands => commands.join(", "),
        };
        for name in variables.names {
            assert_eq!(documented[*name], want, "docs/cli.md: who reads {name}");
        }
    }
}
