//! The house rules a reader of `src/` relies on, checked on the source itself: no file
//! past 500 lines of code (its test module aside: tests do not count toward size), and the library's top-level modules import one another without a
//! circle, `error.rs` at the bottom (it imports `diag` alone). The graph is read from
//! every `crate::` path outside test code; the binary (`main.rs`, `cli.rs`, `cmd/`) is
//! above it all.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::harness::repo;

fn sources() -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut todo = vec![repo().join("src")];
    while let Some(dir) = todo.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                todo.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push(path);
            }
        }
    }
    files.sort();
    files
}

/// A file's code: its text before its test module (`#[cfg(test)] mod tests`), none for a
/// file that is a test module itself (`tests.rs`).
fn code_of(file: &Path) -> String {
    if file.file_name().is_some_and(|n| n == "tests.rs") {
        return String::new();
    }
    let text = std::fs::read_to_string(file).unwrap();
    text.split("#[cfg(test)]\nmod tests").next().unwrap().to_string()
}

#[test]
fn no_source_file_holds_past_500_lines_of_code() {
    let long: Vec<String> = sources()
        .iter()
        .filter_map(|p| {
            let lines = code_of(p).lines().count();
            (lines > 500).then(|| format!("{} ({lines} lines of code)", p.display()))
        })
        .collect();
    assert!(
        long.is_empty(),
        "past 500 lines of code, its tests aside: does it hold two ideas? {long:?}"
    );
}

/// The top-level module a library file belongs to, `None` for the binary's files and for
/// test-only files.
fn module_of(src: &Path, file: &Path) -> Option<String> {
    let rel = file.strip_prefix(src).unwrap();
    let first = rel.components().next()?.as_os_str().to_str()?.trim_end_matches(".rs");
    let binary = ["main", "cli", "cmd", "bin"].contains(&first);
    let tests = rel.file_name().is_some_and(|n| n == "tests.rs");
    (!binary && !tests && first != "lib").then(|| first.to_string())
}

/// What each top-level module of the library names of the others (`crate::x`, and each
/// `x` of `crate::{x, y::z}`), test modules left out.
fn imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = repo().join("src");
    let single = regex::Regex::new(r"crate::(\w+)").unwrap();
    let group = regex::Regex::new(r"crate::\{([^}]*)\}").unwrap();
    let head = regex::Regex::new(r"(?:^|,)\s*(\w+)").unwrap();
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for file in sources() {
        let Some(module) = module_of(&src, &file) else { continue };
        let code = code_of(&file);
        let code: String =
            code.lines().map(|l| l.split("//").next().unwrap()).collect::<Vec<_>>().join("\n");
        let mut named: BTreeSet<String> =
            single.captures_iter(&code).map(|c| c[1].to_string()).collect();
        for g in group.captures_iter(&code) {
            named.extend(head.captures_iter(&g[1]).map(|c| c[1].to_string()));
        }
        named.remove(&module);
        graph.entry(module).or_default().extend(named);
    }
    graph
}

#[test]
fn the_library_has_no_import_circle_and_error_is_at_the_bottom() {
    let graph = imports();
    assert_eq!(
        graph["error"].iter().map(String::as_str).collect::<Vec<_>>(),
        ["diag"],
        "error.rs imports nothing above it"
    );
    // A circle shows as a module that reaches itself.
    for start in graph.keys() {
        let mut seen = BTreeSet::new();
        let mut todo: Vec<(&String, Vec<&String>)> = vec![(start, vec![start])];
        while let Some((at, path)) = todo.pop() {
            for next in graph.get(at).into_iter().flatten() {
                assert!(next != start, "an import circle: {path:?} -> {next}");
                if seen.insert(next) {
                    let mut longer = path.clone();
                    longer.push(next);
                    todo.push((next, longer));
                }
            }
        }
    }
    // The check sees the imports it should: the build pipeline names what it runs.
    assert!(graph["site"].contains("load") && graph["site"].contains("output"), "{graph:?}");
}
