//! The floor a build is measured against: `cargo run --release --example floor -- TREE DEST [THREADS]`.
//!
//! Reads every file of TREE into memory, then creates the folders and writes every file
//! into DEST (which must not exist) with one open/write/close each, no fsync, on THREADS
//! threads (default: as many as folio uses, one a core). Prints the seconds
//! the writing took: the time just to put those bytes on disk with this machine.

use std::path::{Path, PathBuf};

use rayon::prelude::*;
use std::time::Instant;

fn collect(root: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.expect("walking the tree");
        if entry.file_type().is_file() {
            let rel = entry.path().strip_prefix(root).expect("below root").to_path_buf();
            let bytes = std::fs::read(entry.path()).expect("reading a file");
            files.push((rel, bytes));
        }
    }
    files
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    if !(3..=4).contains(&args.len()) {
        eprintln!("usage: floor TREE DEST [THREADS]");
        std::process::exit(2);
    }
    if let Some(threads) = args.get(3) {
        let threads = threads.parse().expect("THREADS is a number");
        rayon::ThreadPoolBuilder::new().num_threads(threads).build_global().expect("one pool");
    }
    let (tree, dest) = (Path::new(&args[1]), Path::new(&args[2]));
    assert!(!dest.exists(), "DEST must not exist");
    let files = collect(tree);
    let bytes: usize = files.iter().map(|(_, b)| b.len()).sum();
    let start = Instant::now();
    let mut made = std::collections::HashSet::new();
    for (rel, _) in &files {
        let parent = dest.join(rel).parent().expect("a file has a parent").to_path_buf();
        if made.insert(parent.clone()) {
            std::fs::create_dir_all(&parent).expect("creating a folder");
        }
    }
    files.par_iter().for_each(|(rel, body)| {
        std::fs::write(dest.join(rel), body).expect("writing a file");
    });
    let secs = start.elapsed().as_secs_f64();
    println!("{secs:.3} {} {bytes}", files.len());
}
