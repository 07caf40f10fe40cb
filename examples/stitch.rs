//! Could a precompressed build compress each item once instead of once a page? `cargo run
//! --release --example stitch -- output/api/en/attractions` (a built listing with the standard
//! envelope and the page sizes 10, 20, 50 and 100 of `scripts/bench.toml`).
//!
//! Every item is in one page of each size, so the same bytes are compressed four times.
//! The runs of ten items that the size-10 pages hold are also the building blocks of every
//! larger page. This compresses each run once (a raw deflate stream ended by a sync flush;
//! a brotli "catable" bare stream) and stitches each page from its envelope's pieces and
//! the runs, then compares time and bytes with compressing every page whole, as folio
//! does (libdeflate at folio's level; brotli's Rust port, whose catable streams this needs, at
//! folio's quality). A sample of the stitched pages is
//! decompressed and compared with the page. Single-threaded.

use std::io::Read;
use std::path::Path;
use std::time::Instant;

use flate2::{Compress, Compression, FlushCompress};
use folio::compress::{BROTLI_QUALITY, GZIP_LEVEL};

const SIZES: [usize; 4] = [10, 20, 50, 100];

/// Where a page's items start and end.
fn items(page: &[u8]) -> (usize, usize) {
    let start = memchr::memmem::find(page, b"\"data\":[").expect("a standard page") + 8;
    (start, memchr::memmem::rfind(page, b"],\"links\"").expect("a standard page"))
}

/// Appends `input` as raw deflate ended by `flush`, from a fresh history.
fn deflate(c: &mut Compress, input: &[u8], flush: FlushCompress, out: &mut Vec<u8>) {
    c.reset();
    let start = c.total_in();
    loop {
        out.reserve(input.len() / 2 + 64);
        let done = (c.total_in() - start) as usize;
        c.compress_vec(&input[done..], out, flush).expect("deflate");
        if (c.total_in() - start) as usize == input.len() && out.len() < out.capacity() {
            return;
        }
    }
}

/// `input` as a brotli stream that can be concatenated: no header, no last block.
fn brotli_bare(input: &[u8]) -> Vec<u8> {
    let mut params = rust_brotli_params(BROTLI_QUALITY.into(), input.len());
    (params.catable, params.bare_stream) = (true, true);
    let mut out = Vec::new();
    brotli::BrotliCompress(&mut &input[..], &mut out, &params).expect("in memory");
    out
}

/// A brotli stream header for a page of `len` bytes: an empty catable stream without its
/// last byte (the empty last meta-block, which the page's end adds back).
fn brotli_header(len: usize) -> Vec<u8> {
    let mut params = rust_brotli_params(BROTLI_QUALITY.into(), len);
    (params.catable, params.byte_align) = (true, true);
    let mut out = Vec::new();
    brotli::BrotliCompress(&mut &b""[..], &mut out, &params).expect("in memory");
    out.pop();
    out
}

/// Bytes written, per page size.
type Bytes = [usize; SIZES.len()];

fn report(name: &str, secs: f64, bytes: Bytes, base: (f64, Bytes), input: usize) {
    let (total, base_total) = (bytes.iter().sum::<usize>(), base.1.iter().sum::<usize>());
    let per_size: Vec<String> = (0..SIZES.len())
        .map(|s| format!("{}: {:.3}x", SIZES[s], bytes[s] as f64 / base.1[s] as f64))
        .collect();
    println!(
        "{name:<22} {secs:>7.3} s  ratio {:.4}  {:.2}x the time, {:.3}x the bytes of whole pages ({})",
        total as f64 / input as f64,
        secs / base.0,
        total as f64 / base_total as f64,
        per_size.join(", ")
    );
}

fn main() {
    let root = std::env::args().nth(1).expect("usage: stitch LISTING_DIR");
    let root = Path::new(&root);
    let pages: Vec<Vec<Vec<u8>>> = SIZES
        .iter()
        .map(|size| {
            (1..).map_while(|p| std::fs::read(root.join(format!("{size}/{p}.json"))).ok()).collect()
        })
        .collect();
    let input: usize = pages.iter().flatten().map(Vec::len).sum();
    println!("{} pages, {input} bytes", pages.iter().map(Vec::len).sum::<usize>());

    let t = Instant::now();
    let mut gz =
        libdeflater::Compressor::new(libdeflater::CompressionLvl::new(GZIP_LEVEL).unwrap());
    let mut buf = Vec::new();
    let mut whole_gz = Bytes::default();
    for (s, page) in pages.iter().enumerate().flat_map(|(s, p)| p.iter().map(move |p| (s, p))) {
        buf.resize(gz.gzip_compress_bound(page.len()), 0);
        whole_gz[s] += gz.gzip_compress(page, &mut buf).unwrap();
    }
    let base_gz = (t.elapsed().as_secs_f64(), whole_gz);
    let t = Instant::now();
    let mut whole_br = Bytes::default();
    for (s, page) in pages.iter().enumerate().flat_map(|(s, p)| p.iter().map(move |p| (s, p))) {
        whole_br[s] += folio::compress::Codec::Brotli.compress(page).len();
    }
    let base_br = (t.elapsed().as_secs_f64(), whole_br);
    report("whole pages, gzip", base_gz.0, base_gz.1, base_gz, input);
    report("whole pages, brotli", base_br.0, base_br.1, base_br, input);

    // gzip: header, the envelope's head, the runs (a comma between two), the envelope's
    // tail ended by the last block, then the CRC and length of the whole page.
    let t = Instant::now();
    let mut c = Compress::new(Compression::new(GZIP_LEVEL as u32), false);
    let runs: Vec<Vec<u8>> = pages[0]
        .iter()
        .map(|p| {
            let (a, b) = items(p);
            let mut out = Vec::new();
            deflate(&mut c, &p[a..b], FlushCompress::Sync, &mut out);
            out
        })
        .collect();
    let mut comma = Vec::new();
    deflate(&mut c, b",", FlushCompress::Sync, &mut comma);
    let mut stitched = Bytes::default();
    for (s, size) in SIZES.iter().enumerate() {
        let per = size / SIZES[0];
        for (i, page) in pages[s].iter().enumerate() {
            let (a, b) = items(page);
            let mut out = vec![0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff];
            deflate(&mut c, &page[..a], FlushCompress::Sync, &mut out);
            for (k, run) in runs[i * per..].iter().take(per).enumerate() {
                if k > 0 {
                    out.extend_from_slice(&comma);
                }
                out.extend_from_slice(run);
            }
            deflate(&mut c, &page[b..], FlushCompress::Finish, &mut out);
            out.extend_from_slice(&libdeflater::crc32(page).to_le_bytes());
            out.extend_from_slice(&(page.len() as u32).to_le_bytes());
            if i % 97 == 0 {
                let mut back = Vec::new();
                flate2::read::GzDecoder::new(&out[..]).read_to_end(&mut back).unwrap();
                assert!(back == *page, "a stitched gzip page decompresses to the page");
            }
            stitched[s] += out.len();
        }
    }
    report("stitched runs, gzip", t.elapsed().as_secs_f64(), stitched, base_gz, input);

    // brotli: the same, from catable bare streams between a header and the last block.
    let t = Instant::now();
    let runs: Vec<Vec<u8>> = pages[0]
        .iter()
        .map(|p| {
            let (a, b) = items(p);
            brotli_bare(&p[a..b])
        })
        .collect();
    let comma = brotli_bare(b",");
    let mut stitched = Bytes::default();
    for (s, size) in SIZES.iter().enumerate() {
        let per = size / SIZES[0];
        for (i, page) in pages[s].iter().enumerate() {
            let (a, b) = items(page);
            let mut out = brotli_header(page.len());
            out.extend_from_slice(&brotli_bare(&page[..a]));
            for (k, run) in runs[i * per..].iter().take(per).enumerate() {
                if k > 0 {
                    out.extend_from_slice(&comma);
                }
                out.extend_from_slice(run);
            }
            out.extend_from_slice(&brotli_bare(&page[b..]));
            out.push(0x03); // ISLAST, ISLASTEMPTY
            if i % 97 == 0 {
                let mut back = Vec::new();
                brotli::BrotliDecompress(&mut &out[..], &mut back).unwrap();
                assert!(back == *page, "a stitched brotli page decompresses to the page");
            }
            stitched[s] += out.len();
        }
    }
    report("stitched runs, brotli", t.elapsed().as_secs_f64(), stitched, base_br, input);
}

/// The Rust port's parameters for a buffer of `len` bytes, the window fitted to it.
fn rust_brotli_params(quality: i32, len: usize) -> brotli::enc::BrotliEncoderParams {
    let lgwin = (usize::BITS - len.leading_zeros()).clamp(10, 24) as i32;
    brotli::enc::BrotliEncoderParams { quality, lgwin, size_hint: len, ..Default::default() }
}
