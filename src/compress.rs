//! Precompression (`[output] precompress`): the `.gz` and `.br` siblings of each page.
//! Backends and levels were measured on real pages with `cargo run --release --example
//! codecs -- output` (single thread, 3,000 pages of the benchmark build of 20,000 records;
//! the ratio is compressed / input):
//!
//! - gzip: libdeflate level 6 (94 MB/s, ratio 0.2201) against flate2 at 6 with zlib-rs or
//!   miniz_oxide (40 to 78 MB/s, 0.2197 to 0.222): the fastest at gzip's usual level.
//!   libdeflate compresses a whole buffer at once, which is all a page needs; one
//!   compressor a thread is reused.
//! - brotli: the reference C library (through `brotlic`, which builds it) at quality 9,
//!   the window fitted to the page and at most 64 KiB. A `.br` sibling must be smaller
//!   than the `.gz` one, or a browser that asks for br is served more bytes. On every page
//!   of `scripts/bench.sh 100000`'s build (90,008 pages, 1.09 GB), `.br` bytes against
//!   `.gz`: quality 2 1.109x (what folio wrote before), 5 0.964x, 6 0.939x, 7 0.926x,
//!   8 0.921x, 9 0.919x; 10 and 11 reach 0.88x and 0.84x on a sample but at 1 and 0.4
//!   MB/s, a tenth of 9's speed. Time against gzip-6 on the same pages: quality 9 3.1x,
//!   6 2.6x, 2 0.7x (`cargo run --release --example codecs -- output` on a sample, and
//!   scripts/codec-floor.py on every page).
//!   The window matters twice. At quality 5 to 9 a window of 64 KiB or less selects the C
//!   library's small-input hashers, which are fast on pages; a larger one (a 90 KB page of
//!   100 Japanese items) selects the large ones, with which quality 9 runs at 1 to 3
//!   MB/s. And a window fitted to the page spares a small page setting up a large one.
//!   The Rust port (`brotli`) matches the C library up to quality 4 and falls to 1.4 to
//!   2.6 MB/s from 5 on with a fitted window: it has no small-input hasher.

/// The libdeflate level of `.gz` siblings.
pub const GZIP_LEVEL: i32 = 6;
/// The brotli quality of `.br` siblings.
pub const BROTLI_QUALITY: u8 = 9;
/// The largest brotli window, in bits (64 KiB): past it quality 9 changes hasher and runs
/// ten times slower (see the module's note).
pub const BROTLI_MAX_WINDOW: u8 = 16;

thread_local! {
    /// One libdeflate compressor a thread: it owns a few hundred KiB of tables.
    static GZIP: std::cell::RefCell<libdeflater::Compressor> = std::cell::RefCell::new(
        libdeflater::Compressor::new(
            libdeflater::CompressionLvl::new(GZIP_LEVEL).expect("a libdeflate level"),
        ),
    );
}

/// brotli's window for a buffer of `len` bytes: fitted to it, from 10 bits to
/// [`BROTLI_MAX_WINDOW`].
fn brotli_window(len: usize) -> brotlic::WindowSize {
    let bits = (usize::BITS - len.leading_zeros()).clamp(10, u32::from(BROTLI_MAX_WINDOW)) as u8;
    brotlic::WindowSize::new(bits).expect("10 to 16 bits")
}

/// A precompression format and the extension of its sibling file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Codec {
    Gzip,
    Brotli,
}

impl Codec {
    pub fn parse(name: &str) -> Option<Codec> {
        match name {
            "gzip" => Some(Codec::Gzip),
            "br" => Some(Codec::Brotli),
            _ => None,
        }
    }

    /// As `[output] precompress` spells it: the inverse of [`Codec::parse`].
    pub fn name(self) -> &'static str {
        match self {
            Codec::Gzip => "gzip",
            Codec::Brotli => "br",
        }
    }

    pub fn extension(self) -> &'static str {
        match self {
            Codec::Gzip => "gz",
            Codec::Brotli => "br",
        }
    }

    pub fn compress(self, bytes: &[u8]) -> Vec<u8> {
        match self {
            Codec::Gzip => GZIP.with_borrow_mut(|gz| {
                let mut out = vec![0; gz.gzip_compress_bound(bytes.len())];
                let n = gz.gzip_compress(bytes, &mut out).expect("the buffer has the bound");
                out.truncate(n);
                out
            }),
            Codec::Brotli => {
                let quality = brotlic::Quality::new(BROTLI_QUALITY).expect("a brotli quality");
                let bound = brotlic::compress_bound(bytes.len(), quality)
                    .filter(|&b| b > 0)
                    .expect("a page's bound fits in memory");
                let mut out = vec![0; bound];
                let mode = brotlic::CompressionMode::Generic;
                let n =
                    brotlic::compress(bytes, &mut out, quality, brotli_window(bytes.len()), mode)
                        .expect("the buffer holds the bound");
                out.truncate(n);
                out
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Read;

    #[test]
    fn both_codecs_round_trip_and_shrink_json() {
        let page = br#"{"page":1,"data":[{"name":"Tour Eiffel"},{"name":"Tour Eiffel"},{"name":"Tour Eiffel"}]}"#.repeat(20);
        let gz = Codec::Gzip.compress(&page);
        let mut back = Vec::new();
        flate2::read::GzDecoder::new(&gz[..]).read_to_end(&mut back).unwrap();
        assert_eq!(back, page);
        let br = Codec::Brotli.compress(&page);
        let mut back = Vec::new();
        brotli::BrotliDecompress(&mut &br[..], &mut back).unwrap();
        assert_eq!(back, page);
        assert!(gz.len() < page.len() / 4 && br.len() < page.len() / 4);
    }

    #[test]
    fn a_br_sibling_is_smaller_than_the_gz_one() {
        // A page of records as the listing writes them: varied names, numbers, text.
        let mut state = 42u64;
        let mut next = move || {
            state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
            (state >> 33) as usize
        };
        let words = ["castle", "museum", "bridge", "garden", "tower", "harbour", "old", "royal"];
        let items: Vec<String> = (0..50)
            .map(|id| {
                let name: Vec<&str> = (0..3).map(|_| words[next() % words.len()]).collect();
                format!(
                    r#"{{"id":{id},"name":"{}","rating":{}.{},"lat":{}.{:06},"text":"{}"}}"#,
                    name.join(" "),
                    next() % 5,
                    next() % 10,
                    next() % 90,
                    next() % 1_000_000,
                    (0..12).map(|_| words[next() % words.len()]).collect::<Vec<_>>().join(" ")
                )
            })
            .collect();
        let page = format!(r#"{{"data":[{}],"page":1}}"#, items.join(","));
        let (gz, br) =
            (Codec::Gzip.compress(page.as_bytes()), Codec::Brotli.compress(page.as_bytes()));
        assert!(br.len() < gz.len(), "br {} bytes, gz {}", br.len(), gz.len());
    }
}
