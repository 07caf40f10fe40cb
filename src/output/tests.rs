//! The output folder's own tests: staging, switching and what a build may replace.

use super::*;
use journal::JournalFile;

fn build(root: &Path, files: &[(&str, &str)]) -> Report {
    let tree = Tree::open(root).unwrap();
    let staged =
        files.iter().map(|(rel, body)| tree.stage(rel, body.as_bytes()).unwrap()).collect();
    let stamp = Stamp { fingerprint: "fp".into(), ..Stamp::default() };
    tree.commit(staged, &stamp).unwrap().0
}

#[test]
fn second_identical_build_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("out");
    let first = build(&root, &[("a/b.json", "1"), ("c.json", "2")]);
    assert_eq!((first.written, first.unchanged), (2, 0));
    let manifest_time = fs::metadata(root.join(MANIFEST)).unwrap().modified().unwrap();
    let again = build(&root, &[("a/b.json", "1"), ("c.json", "2")]);
    assert_eq!((again.written, again.unchanged, again.removed), (0, 2, 0));
    assert_eq!(fs::metadata(root.join(MANIFEST)).unwrap().modified().unwrap(), manifest_time);
    assert!(!root.join(STAGING).exists());
}

#[test]
fn removes_only_its_own_stale_files_and_empty_folders() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("out");
    build(&root, &[("x/y/old.json", "1"), ("keep.json", "2")]);
    fs::write(root.join("mine.txt"), "user").unwrap();
    let r = build(&root, &[("keep.json", "2")]);
    assert_eq!(r.removed, 1);
    assert!(!root.join("x").exists());
    assert_eq!(fs::read_to_string(root.join("mine.txt")).unwrap(), "user");
}

#[test]
fn foreign_files_at_planned_paths_are_clashes() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("out");
    fs::create_dir_all(root.join("api")).unwrap();
    fs::write(root.join("api/a.json"), "user").unwrap();
    fs::write(root.join("b"), "user").unwrap();
    let tree = Tree::open(&root).unwrap();
    let clashes = tree.clashes(["api/a.json", "b/c.json", "fine.json"]);
    assert_eq!(clashes, [root.join("api/a.json"), root.join("b")]);
}

#[test]
fn a_committed_switch_is_finished_by_the_next_open() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("out");
    build(&root, &[("a.json", "old"), ("gone.json", "x")]);
    // Simulate a kill right after the commit point: journal committed, nothing moved.
    let tree = Tree::open(&root).unwrap();
    let staged = [tree.stage("a.json", b"new").unwrap(), tree.stage("b.json", b"b").unwrap()];
    let journal = Journal {
        renames: staged.iter().map(|s| s.rel.clone()).collect(),
        removals: vec!["gone.json".into()],
        files: staged
            .iter()
            .map(|s| JournalFile { rel: s.rel.clone(), hash: s.hash, size: s.size, mtime: None })
            .collect(),
        stamp: Stamp::default(),
    };
    fs::write(root.join(STAGING).join(COMMIT), serde_json::to_vec(&journal).unwrap()).unwrap();
    drop(tree);
    Tree::open(&root).unwrap();
    assert_eq!(fs::read_to_string(root.join("a.json")).unwrap(), "new");
    assert_eq!(fs::read_to_string(root.join("b.json")).unwrap(), "b");
    assert!(!root.join("gone.json").exists());
    assert!(!root.join(STAGING).exists());
}

#[test]
fn a_staging_folder_a_live_build_owns_is_never_taken_nor_removed() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("out");
    // Two builds of one folder (its lock file was replaced under the first): the
    // second opened it before the first staged anything, then stages after it.
    let first = Tree::open(&root).unwrap();
    let second = Tree::open(&root).unwrap();
    first.stage("api/a.json", b"{}").unwrap();
    let e = second.stage("api/b.json", b"{}").unwrap_err();
    let TreeError::Refused(refused) = e else {
        panic!("a refusal (exit 1), not an I/O error: {e}")
    };
    assert!(refused.fact.contains("was made by another build"), "{}", refused.fact);
    // Dropped, the second removes nothing of the first's.
    second.abort();
    assert!(root.join(STAGING).join(TREE).join("api/a.json").is_file());
    // A third build, opened now, finds the staging folder owned and refuses.
    let e = Tree::open(&root).map(drop).unwrap_err();
    assert!(matches!(e, TreeError::Refused(_)), "{e}");
    first.abort();
    assert!(!root.join(STAGING).exists(), "the owner removes its own");
    Tree::open(&root).unwrap();
}

#[test]
fn an_uncommitted_staging_is_discarded() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("out");
    build(&root, &[("a.json", "old")]);
    let tree = Tree::open(&root).unwrap();
    tree.stage("a.json", b"new").unwrap();
    drop(tree);
    Tree::open(&root).unwrap();
    assert!(!root.join(STAGING).exists());
    assert_eq!(fs::read_to_string(root.join("a.json")).unwrap(), "old");
}

#[test]
fn a_file_the_switch_cannot_place_is_left_out_of_the_manifest_made_beforehand() {
    // The manifest is made while the journal is written, before the switch; a folder
    // replaced by a symlink meanwhile refuses its files then, and they must not be listed.
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("out");
    build(&root, &[("d/a.json", "1"), ("keep.json", "2")]);
    let tree = Tree::open(&root).unwrap();
    let staged = vec![
        tree.stage("d/a.json", b"changed").unwrap(),
        tree.stage("keep.json", b"2").unwrap(),
        tree.stage("new.json", b"3").unwrap(),
    ];
    let elsewhere = dir.path().join("elsewhere");
    fs::rename(root.join("d"), &elsewhere).unwrap();
    std::os::unix::fs::symlink(&elsewhere, root.join("d")).unwrap();
    let (report, warnings) = tree.commit(staged, &Stamp::default()).unwrap();
    assert_eq!(report.written, 2, "{report:?}");
    assert!(
        warnings.iter().any(|w| w.contains("entry `d/a.json` was not acted on")),
        "{warnings:?}"
    );
    assert_eq!(fs::read_to_string(elsewhere.join("a.json")).unwrap(), "1");
    let manifest = Manifest::from_bytes(&fs::read(root.join(MANIFEST)).unwrap()).unwrap();
    let listed: Vec<&str> = manifest.files.keys().map(String::as_str).collect();
    assert_eq!(listed, ["keep.json", "new.json"]);
    assert_eq!(fs::read_to_string(root.join("new.json")).unwrap(), "3");
}

#[test]
fn a_folder_of_nothing_but_folio_s_lock_has_no_clashes_and_one_file_more_does() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("out");
    fs::create_dir_all(&root).unwrap();
    fs::write(root.join(lock::LOCK), "").unwrap();
    let planned = ["api/a.json", "index.html"];
    assert!(Tree::open(&root).unwrap().clashes(planned).is_empty());
    fs::write(root.join("index.html"), "user").unwrap();
    assert_eq!(Tree::open(&root).unwrap().clashes(planned), [root.join("index.html")]);
    assert!(Tree::open(&dir.path().join("none")).unwrap().clashes(planned).is_empty());
}
