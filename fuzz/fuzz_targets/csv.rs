//! CSV: any bytes load into records or problems, each on a line of the file, without a
//! panic. Lines end at `\n`, `\r\n` or a lone `\r`.
#![no_main]

mod common;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (batch, file) = common::split(data);
    let (_, problems) = folio::load::parse_file(common::project(), "data/a.csv", file, batch);
    let body = file.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(file);
    let crlf = body.windows(2).filter(|w| w == b"\r\n").count();
    let breaks = body.iter().filter(|&&b| b == b'\n' || b == b'\r').count() - crlf;
    common::assert_lines_inside(&problems, 1 + breaks as u64);
});
