//! The house rules a reader of `src/` relies on, checked on the source itself: no file
//! past 500 lines of code (its test module aside: tests do not count toward size); the
//! library's top-level modules import one another without a circle, `error.rs` at the
//! bottom (it imports `diag` alone); and no two files of the library import each other,
//! directly or through others (a `mod.rs` re-exporting a child counts as importing it, and
//! an item named through a re-export counts as the file that defines it). The graph is read from
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

/// A library file's module path (`src/deploy/survey.rs`: `deploy::survey`; a `mod.rs`
/// is its folder's), `None` for the binary's files and test-only files.
fn module_path(src: &Path, file: &Path) -> Option<Vec<String>> {
    module_of(src, file)?;
    let rel = file.strip_prefix(src).unwrap().with_extension("");
    let mut path: Vec<String> =
        rel.components().map(|c| c.as_os_str().to_string_lossy().into_owned()).collect();
    if path.last().is_some_and(|last| last == "mod") {
        path.pop();
    }
    Some(path)
}

/// Each `crate::`, `super::` and `self::` path in `code`, groups expanded
/// (`super::{a::B, c}` gives `super::a::B` and `super::c`), with the paths that start at a
/// child module of the file (`read::Places` in `config/mod.rs`).
fn paths_in(code: &str, children: &BTreeSet<String>) -> Vec<Vec<String>> {
    let group = regex::Regex::new(r"\b(\w+(?:::\w+)*)::\{([^{}]*)\}").unwrap();
    let single = regex::Regex::new(r"\b((?:crate|super|self|\w+)(?:::\w+)+)").unwrap();
    let mut found = Vec::new();
    let split = |p: &str| p.split("::").map(str::trim).map(String::from).collect::<Vec<_>>();
    for g in group.captures_iter(code) {
        let head = g[1].split("::").next().unwrap();
        if !["crate", "super", "self"].contains(&head) && !children.contains(head) {
            continue;
        }
        for item in g[2].split(',') {
            let item = item.split(" as ").next().unwrap().trim();
            if !item.is_empty() {
                found.push(split(&format!("{}::{item}", &g[1])));
            }
        }
    }
    for m in single.captures_iter(code) {
        // A group's prefix (`crate::config` of `crate::config::{A, B}`) names its items,
        // read above, not the module itself.
        if code[m.get(1).unwrap().end()..].starts_with("::{") {
            continue;
        }
        let path = split(&m[1]);
        let rooted = ["crate", "super", "self"].contains(&path[0].as_str());
        if rooted || children.contains(&path[0]) {
            found.push(path);
        }
    }
    found
}

/// The file-level import graph of the library: which files each file names an item of,
/// an item re-exported by a `mod.rs` (`pub use read::Places`) counted as the file that
/// defines it. Test modules and comments left out.
fn file_imports() -> BTreeMap<String, BTreeSet<String>> {
    let src = repo().join("src");
    let mut files: BTreeMap<Vec<String>, String> = BTreeMap::new();
    let mut codes: BTreeMap<Vec<String>, String> = BTreeMap::new();
    let visibility = regex::Regex::new(r"pub\(in [^)]*\)").unwrap();
    for file in sources() {
        let Some(path) = module_path(&src, &file) else { continue };
        let code = code_of(&file);
        let code: Vec<&str> = code.lines().map(|l| l.split("//").next().unwrap()).collect();
        // `pub(in crate::deploy)` says who may see an item, not what the file uses.
        let code = [visibility.replace_all(&code.join("\n"), "pub").into_owned()];
        let shown = file.strip_prefix(&src).unwrap().display().to_string();
        files.insert(path.clone(), shown);
        codes.insert(path, code.join("\n"));
    }
    let children = |module: &Vec<String>| -> BTreeSet<String> {
        (files.keys())
            .filter(|k| k.len() == module.len() + 1 && k.starts_with(module))
            .map(|k| k.last().unwrap().clone())
            .collect()
    };
    // What each module re-exports from its children: item name to the child's path.
    let reexport = regex::Regex::new(r"pub(?:\([^)]*\))? use (?:self::)?(\w+)::([^;]+);").unwrap();
    let mut reexports: BTreeMap<(Vec<String>, String), Vec<String>> = BTreeMap::new();
    for (module, code) in &codes {
        let kids = children(module);
        for r in reexport.captures_iter(code) {
            if !kids.contains(&r[1]) {
                continue;
            }
            let child = [module.clone(), vec![r[1].to_string()]].concat();
            let items = r[2].trim().trim_start_matches('{').trim_end_matches('}');
            for item in items.split(',') {
                let name = item.rsplit(" as ").next().unwrap().rsplit("::").next().unwrap();
                reexports.insert((module.clone(), name.trim().to_string()), child.clone());
            }
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, code) in &codes {
        let me = &files[module];
        let mut named = BTreeSet::new();
        for path in paths_in(code, &children(module)) {
            let ups = path.iter().take_while(|s| *s == "super").count();
            let mut at: Vec<String> = match path[0].as_str() {
                "crate" => vec![],
                "super" => module[..module.len().saturating_sub(ups)].to_vec(),
                "self" => module.clone(),
                child => [module.clone(), vec![child.to_string()]].concat(),
            };
            let mut rest = path[ups.max(1)..].iter();
            // Down the module tree as far as files go, then through one re-export.
            for segment in rest.by_ref() {
                let deeper = [at.clone(), vec![segment.clone()]].concat();
                if files.contains_key(&deeper) {
                    at = deeper;
                } else {
                    if let Some(child) = reexports.get(&(at.clone(), segment.clone())) {
                        at = child.clone();
                    }
                    break;
                }
            }
            if let Some(file) = files.get(&at).filter(|f| *f != me) {
                named.insert(file.clone());
            }
        }
        graph.insert(me.clone(), named);
    }
    graph
}

/// The groups of files that reach one another (the strongly connected components of more
/// than one file), from each file's reach: small graphs, plain code.
fn circles(graph: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    let nodes: Vec<&String> = graph.keys().collect();
    let index_of: BTreeMap<&String, usize> =
        nodes.iter().enumerate().map(|(i, n)| (*n, i)).collect();
    let mut reach = vec![vec![false; nodes.len()]; nodes.len()];
    for (i, from) in reach.iter_mut().enumerate() {
        let mut todo = vec![i];
        while let Some(at) = todo.pop() {
            for &next in graph[nodes[at]].iter().filter_map(|t| index_of.get(t)) {
                if !from[next] {
                    from[next] = true;
                    todo.push(next);
                }
            }
        }
    }
    let mut done = vec![false; nodes.len()];
    let mut found = Vec::new();
    for i in 0..nodes.len() {
        if done[i] || !reach[i][i] {
            continue;
        }
        let group: Vec<String> = (0..nodes.len())
            .filter(|&j| reach[i][j] && reach[j][i])
            .inspect(|&j| done[j] = true)
            .map(|j| nodes[j].clone())
            .collect();
        found.push(group);
    }
    found
}

#[test]
fn no_two_library_files_import_each_other_even_through_others() {
    let graph = file_imports();
    let found = circles(&graph);
    // HOUSE_EDGES=1 prints each circle's edges.
    if std::env::var_os("HOUSE_EDGES").is_some() {
        for group in &found {
            for f in group {
                let inside: Vec<&String> = graph[f].iter().filter(|t| group.contains(t)).collect();
                eprintln!("{f} -> {inside:?}");
            }
            eprintln!();
        }
    }
    assert!(
        found.is_empty(),
        "files that import each other, directly or through others (one idea cut in two, or a \
         shared item that wants a file of its own): {found:#?}"
    );
    // The check sees the imports it should: across modules, to a sibling, to a child, and
    // through a re-export to the file that defines the item.
    assert!(graph["site/listing.rs"].contains("load/mod.rs"), "{graph:#?}");
    assert!(graph["deploy/cdn/cloudfront.rs"].contains("deploy/cdn/wait.rs"), "{graph:#?}");
    assert!(graph["config/mod.rs"].contains("config/read.rs"), "{graph:#?}");
    assert!(graph["config/digest.rs"].contains("config/project.rs"), "{graph:#?}");
}

#[test]
fn a_circle_through_three_files_is_found_once() {
    let edges = [("a", "b"), ("b", "c"), ("c", "a"), ("d", "a"), ("e", "d")];
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (from, to) in edges {
        graph.entry(from.into()).or_default().insert(to.into());
        graph.entry(to.into()).or_default();
    }
    assert_eq!(circles(&graph), [["a", "b", "c"]]);
}
