//! JSON: any bytes load into records or problems, each on a line of the file, without a
//! panic; and the streaming splitter agrees with serde_json: where serde_json reads the
//! file as an array, the splitter finds exactly its elements, and where the splitter
//! finds only well-formed elements, serde_json reads the file as an array.
#![no_main]

mod common;

use folio::load::{Raw, json};
use serde_json::Value;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let (batch, file) = common::split(data);
    let (_, problems) = folio::load::parse_file(common::project(), "data/a.json", file, batch);
    let last = 1 + file.iter().filter(|&&b| b == b'\n').count() as u64;
    common::assert_lines_inside(&problems, last);

    let mut found: Vec<Option<Value>> = Vec::new();
    let issues = json::stream_array(file, batch, &mut |raws| {
        found.extend(raws.into_iter().map(|raw| match raw {
            Raw::Text { text, .. } => serde_json::from_slice(text).ok(),
            Raw::Object { .. } | Raw::Refused { .. } => unreachable!("the JSON splitter yields text"),
        }))
    })
    .expect("reading from memory cannot fail");
    let body = file.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(file);
    match serde_json::from_slice::<Vec<Value>>(body) {
        Ok(values) => {
            assert!(issues.is_empty(), "serde_json reads it, the splitter says {issues:?}");
            let found: Vec<Value> =
                found.into_iter().map(|v| v.expect("serde_json parsed it whole")).collect();
            assert_eq!(found, values);
        }
        Err(e) => {
            let all_parsed = found.iter().all(Option::is_some);
            assert!(
                !(issues.is_empty() && all_parsed),
                "serde_json refuses it ({e}), the splitter does not"
            );
        }
    }
});
