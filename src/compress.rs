//! Precompression (`[output] precompress`): the `.gz` and `.br` siblings of each page.
//! Levels are chosen for throughput on a build server, measured with `cargo bench --bench
//! hot`: gzip 6 (zlib's default; as fast as 4 on pages) and brotli quality 4 with a window
//! sized to the page — a fixed 4 MiB window made each small page pay for setting it up
//! (25 MB/s), the fitted one runs at about 200 MB/s.

use std::io::Write;

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

    pub fn extension(self) -> &'static str {
        match self {
            Codec::Gzip => "gz",
            Codec::Brotli => "br",
        }
    }

    pub fn compress(self, bytes: &[u8]) -> Vec<u8> {
        match self {
            Codec::Gzip => {
                let mut enc = flate2::write::GzEncoder::new(
                    Vec::with_capacity(bytes.len() / 3),
                    flate2::Compression::new(6),
                );
                enc.write_all(bytes).expect("writing to a Vec cannot fail");
                enc.finish().expect("writing to a Vec cannot fail")
            }
            Codec::Brotli => {
                let mut out = Vec::with_capacity(bytes.len() / 3);
                let lgwin = (usize::BITS - bytes.len().leading_zeros()).clamp(10, 24) as i32;
                let params = brotli::enc::BrotliEncoderParams {
                    quality: 4,
                    lgwin,
                    size_hint: bytes.len(),
                    ..Default::default()
                };
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
