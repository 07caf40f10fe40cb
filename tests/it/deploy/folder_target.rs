//! A `file://` target: never written or deleted through a symlink.

use super::*;

#[test]
fn a_folder_target_is_never_written_or_deleted_through_a_symlink() {
    let (dir, remote) = folder();
    let Remote::Dir(www) = &remote else { unreachable!() };
    let outside = dir.path().join("outside");
    std::fs::create_dir_all(outside.join("fr/attractions/10")).unwrap();
    std::fs::write(outside.join("fr/attractions/10/1.json"), "precious").unwrap();
    std::fs::create_dir_all(www.join("api")).unwrap();
    std::os::unix::fs::symlink(&outside, www.join("api/fr")).unwrap();
    let p = Project::sample();
    p.folio(&["build"]).success();
    insta::assert_snapshot!("symlink_in_the_target", remote.snapshot(&p, &[]));
    assert_eq!(files(&outside).len(), 1, "nothing written outside the target");
    assert_eq!(
        std::fs::read_to_string(outside.join("fr/attractions/10/1.json")).unwrap(),
        "precious"
    );
    assert!(!www.join("api/en").exists(), "nothing written at all");
    // Deletes neither: a deployed target that gains a link is refused before the deletes.
    std::fs::remove_file(www.join("api/fr")).unwrap();
    remote.deploy(&p, &[]).success();
    set_config(&p, "page_sizes = [10, 20, 50, 100]", "page_sizes = [10, 20, 50]");
    p.folio(&["build"]).success();
    let moved = dir.path().join("moved");
    std::fs::rename(www.join("api/fr/attractions/100"), &moved).unwrap();
    std::os::unix::fs::symlink(&moved, www.join("api/fr/attractions/100")).unwrap();
    let run = remote.deploy(&p, &[]).fails(1);
    assert!(run.stderr().contains("`api/fr/attractions/100`"), "{}", run.stderr());
    assert!(moved.join("1.json").exists(), "nothing deleted through the link");
}
