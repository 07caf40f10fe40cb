//! The floor a build is measured against: `cargo run --release --example floor -- TREE DEST [THREADS]`.
//!
//! Reads the files of TREE into memory, then creates the folders and writes every file
//! into DEST (which must not exist) with one open/write/close each, no fsync, on THREADS
//! threads (default: as many as folio uses, one a core). Prints the seconds the writing
//! took: the time just to put those bytes on disk with this machine.
//!
//! Then, as the floor of a no-op build, it stats every file of TREE once, the way a no-op
//! checks the files it wrote (each folder opened once, each file looked up in it without
//! following a symlink), on the same threads. Output: `write_s files bytes stat_s`.
//!
//! A tree larger than memory allows is written in chunks of `FLOOR_CHUNK_MB` (default
//! 2048) megabytes: each chunk is read (not timed), written (timed), and, unless it is the
//! last, its files are removed again (not timed), so that a tmpfs never holds the tree
//! twice. A tree of one chunk is written exactly as described above.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rayon::prelude::*;

fn walk(root: &Path) -> Vec<(PathBuf, u64)> {
    let mut files = Vec::new();
    for entry in walkdir::WalkDir::new(root).sort_by_file_name() {
        let entry = entry.expect("walking the tree");
        if entry.file_type().is_file() {
            let rel = entry.path().strip_prefix(root).expect("below root").to_path_buf();
            files.push((rel, entry.metadata().expect("reading metadata").len()));
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
    let chunk_bytes: u64 = std::env::var("FLOOR_CHUNK_MB")
        .map_or(2048, |v| v.parse().expect("FLOOR_CHUNK_MB is a number"))
        << 20;
    let (tree, dest) = (Path::new(&args[1]), Path::new(&args[2]));
    assert!(!dest.exists(), "DEST must not exist");
    let files = walk(tree);
    let mut chunks: Vec<&[(PathBuf, u64)]> = Vec::new();
    let (mut start, mut size) = (0, 0);
    for (i, (_, len)) in files.iter().enumerate() {
        if size + len > chunk_bytes && i > start {
            chunks.push(&files[start..i]);
            (start, size) = (i, 0);
        }
        size += len;
    }
    chunks.push(&files[start..]);

    let mut made = std::collections::HashSet::new();
    let mut writing = Duration::ZERO;
    for (n, chunk) in chunks.iter().enumerate() {
        let bodies: Vec<Vec<u8>> = chunk
            .par_iter()
            .map(|(rel, _)| std::fs::read(tree.join(rel)).expect("reading a file"))
            .collect();
        let began = Instant::now();
        for (rel, _) in chunk.iter() {
            let parent = dest.join(rel).parent().expect("a file has a parent").to_path_buf();
            if made.insert(parent.clone()) {
                std::fs::create_dir_all(&parent).expect("creating a folder");
            }
        }
        chunk.par_iter().zip(&bodies).for_each(|((rel, _), body)| {
            std::fs::write(dest.join(rel), body).expect("writing a file");
        });
        writing += began.elapsed();
        if n + 1 < chunks.len() {
            chunk.par_iter().for_each(|(rel, _)| {
                std::fs::remove_file(dest.join(rel)).expect("removing a chunk's file");
            });
        }
    }
    let bytes: u64 = files.iter().map(|(_, len)| len).sum();
    let stat = stat_all(tree, &files);
    println!("{:.3} {} {bytes} {:.3}", writing.as_secs_f64(), files.len(), stat.as_secs_f64());
}

/// Stats every file once, grouped by folder; the time it took.
fn stat_all(tree: &Path, files: &[(PathBuf, u64)]) -> Duration {
    let mut folders: Vec<(&Path, Vec<&std::ffi::OsStr>)> = Vec::new();
    for (rel, _) in files {
        let (folder, name) = (rel.parent().unwrap_or(Path::new("")), rel.file_name().unwrap());
        match folders.last_mut() {
            Some((f, names)) if *f == folder => names.push(name),
            _ => folders.push((folder, vec![name])),
        }
    }
    let began = Instant::now();
    folders.par_iter().for_each(|(folder, names)| {
        #[cfg(unix)]
        {
            use rustix::fs::{AtFlags, Mode, OFlags};
            let flags = OFlags::RDONLY | OFlags::DIRECTORY | OFlags::NOFOLLOW | OFlags::CLOEXEC;
            let dir = rustix::fs::open(tree.join(folder), flags, Mode::empty()).expect("a folder");
            names.par_iter().for_each(|name| {
                rustix::fs::statat(&dir, *name, AtFlags::SYMLINK_NOFOLLOW).expect("a file");
            });
        }
        #[cfg(not(unix))]
        names.par_iter().for_each(|name| {
            std::fs::symlink_metadata(tree.join(folder).join(name)).expect("a file");
        });
    });
    began.elapsed()
}
