//! Compression backends and levels on real pages: `cargo run --release --example codecs -- DIR [N]`.
//!
//! Reads up to N (default 3000) `.json` files under DIR (a built `output/`, spread over
//! every language and size), then compresses all of them, single-threaded, with each
//! candidate: flate2 (whatever backend its features select) at gzip levels 1, 4, 6, 9,
//! libdeflate at 1, 4, 5, 6, 7, 9, 12, and brotli, the Rust port at qualities 1 to 6 and the
//! C library at 2 to 9, with the window fitted to the page. Prints MB/s of input and the ratio (compressed / input) of each.

use std::io::Write;
use std::time::Instant;

fn pages(dir: &str, n: usize) -> Vec<Vec<u8>> {
    let mut all: Vec<_> = walkdir::WalkDir::new(dir)
        .sort_by_file_name()
        .into_iter()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_file() && e.path().extension().is_some_and(|x| x == "json"))
        .map(|e| e.into_path())
        .collect();
    // An even spread over the tree, not its first folder.
    let step = (all.len() / n).max(1);
    all = all.into_iter().step_by(step).take(n).collect();
    all.iter().map(|p| std::fs::read(p).unwrap()).collect()
}

fn run(name: &str, pages: &[Vec<u8>], mut f: impl FnMut(&[u8]) -> usize) {
    let input: usize = pages.iter().map(Vec::len).sum();
    let start = Instant::now();
    let out: usize = pages.iter().map(|p| f(p)).sum();
    let secs = start.elapsed().as_secs_f64();
    println!(
        "{name:<26} {:>8.1} MB/s  ratio {:.4}",
        input as f64 / secs / 1e6,
        out as f64 / input as f64
    );
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let dir = args.get(1).expect("usage: codecs DIR [N]");
    let n = args.get(2).map_or(3000, |s| s.parse().unwrap());
    let pages = pages(dir, n);
    let total: usize = pages.iter().map(Vec::len).sum();
    println!("{} pages, {} bytes", pages.len(), total);
    for level in [1, 4, 6, 9] {
        run(&format!("flate2 gzip {level}"), &pages, |p| {
            let mut enc = flate2::write::GzEncoder::new(
                Vec::with_capacity(p.len() / 3),
                flate2::Compression::new(level),
            );
            enc.write_all(p).unwrap();
            enc.finish().unwrap().len()
        });
    }
    for level in [1, 4, 5, 6, 7, 9, 12] {
        let mut c = libdeflater::Compressor::new(libdeflater::CompressionLvl::new(level).unwrap());
        let mut out = Vec::new();
        run(&format!("libdeflate gzip {level}"), &pages, |p| {
            out.resize(c.gzip_compress_bound(p.len()), 0);
            c.gzip_compress(p, &mut out).unwrap()
        });
    }
    for quality in 1..=6 {
        run(&format!("brotli (Rust) q{quality}"), &pages, |p| {
            let params = rust_brotli_params(quality, p.len());
            let mut out = Vec::with_capacity(p.len() / 3);
            brotli::BrotliCompress(&mut &p[..], &mut out, &params).unwrap();
            out.len()
        });
    }
    for quality in [2, 4, 5, 6, 7, 9] {
        run(&format!("brotli (C) q{quality}"), &pages, |p| {
            let q = brotlic::Quality::new(quality).unwrap();
            let bits = (usize::BITS - p.len().leading_zeros()).clamp(10, 24) as u8;
            let mut out = vec![0; brotlic::compress_bound(p.len(), q).unwrap()];
            let window = brotlic::WindowSize::new(bits).unwrap();
            brotlic::compress(p, &mut out, q, window, brotlic::CompressionMode::Generic).unwrap()
        });
    }
}

/// The Rust port's parameters for a buffer of `len` bytes, the window fitted to it.
fn rust_brotli_params(quality: i32, len: usize) -> brotli::enc::BrotliEncoderParams {
    let lgwin = (usize::BITS - len.leading_zeros()).clamp(10, 24) as i32;
    brotli::enc::BrotliEncoderParams { quality, lgwin, size_hint: len, ..Default::default() }
}
