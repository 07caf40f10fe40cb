//! Precompression (`[output] precompress`): the `.gz` and `.br` siblings of each page.
//! Backends and levels were measured on real pages with `cargo run --release --example
//! codecs -- output` (single thread, 3,000 pages of the benchmark build):
//!
//! - gzip: libdeflate level 6 (113 MB/s, ratio 0.218) against flate2 at 6 with
//!   miniz_oxide (44 MB/s, 0.222) or zlib-rs (78 MB/s, 0.221): the fastest and smallest.
//!   Level 5 (152 MB/s, 0.2236) would lose ratio against the flate2 output folio used to
//!   write. libdeflate compresses a whole buffer at once, which is all a page needs; one
//!   compressor a thread is reused.
//! - brotli: quality 2 with the window fitted to the page (114 MB/s, 0.2390) against 3
//!   (101 MB/s, 0.2387) and 4 (58 MB/s, 0.2349): on the whole benchmark build quality 2
//!   wrote 0.2 % more `.br` bytes than 3 and made the precompressed build 0.95x as long;
//!   5 and up fall to 4 MB/s. A fixed 4 MiB window made each small page pay for setting
//!   it up.

/// The libdeflate level of `.gz` siblings.
pub const GZIP_LEVEL: i32 = 6;
/// The brotli quality of `.br` siblings.
pub const BROTLI_QUALITY: i32 = 2;

thread_local! {
    /// One libdeflate compressor a thread: it owns a few hundred KiB of tables.
    static GZIP: std::cell::RefCell<libdeflater::Compressor> = std::cell::RefCell::new(
        libdeflater::Compressor::new(
            libdeflater::CompressionLvl::new(GZIP_LEVEL).expect("a libdeflate level"),
        ),
    );
}

/// brotli's parameters for one buffer of `len` bytes at `quality`: the window fitted to
/// the buffer (a fixed 4 MiB window made each small page pay for setting it up).
pub fn brotli_params(quality: i32, len: usize) -> brotli::enc::BrotliEncoderParams {
    let lgwin = (usize::BITS - len.leading_zeros()).clamp(10, 24) as i32;
    brotli::enc::BrotliEncoderParams { quality, lgwin, size_hint: len, ..Default::default() }
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
                let mut out = Vec::with_capacity(bytes.len() / 3);
                let params = brotli_params(BROTLI_QUALITY, bytes.len());
                brotli::BrotliCompress(&mut &bytes[..], &mut out, &params)
                    .expect("writing to a Vec cannot fail");
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
}
