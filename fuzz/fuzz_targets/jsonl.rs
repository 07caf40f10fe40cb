//! JSON Lines: any bytes load into records or problems, each on a line of the file,
//! without a panic; every line serde_json reads as an object gives a record or a problem
//! on that line.
#![no_main]

mod common;

use serde_json::Value;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (batch, file) = common::split(data);
    let (records, problems) =
        folio::load::parse_file(common::project(), "data/a.jsonl", file, batch);
    let last = 1 + file.iter().filter(|&&b| b == b'\n').count() as u64;
    common::assert_lines_inside(&problems, last);
    for (i, line) in file.split(|&b| b == b'\n').enumerate() {
        let line_no = i as u64 + 1;
        let line = if i == 0 { line.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(line) } else { line };
        if let Ok(Value::Object(_)) = serde_json::from_slice::<Value>(line) {
            let seen = records.iter().any(|r| r.origin.line == line_no)
                || problems.iter().any(|p| p.line == Some(line_no));
            assert!(seen, "line {line_no} is an object but gave neither a record nor a problem");
        }
    }
});
