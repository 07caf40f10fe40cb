//! The languages a data folder has values in, found cheaply (a CSV file's header, the first
//! record of a JSON or JSON Lines file): what a language code of the config that is no
//! language is compared with where the config's problems are reported (`cmd::discover`),
//! so that `sp` gets "did you mean `es`?" when the data has `name.es`.

use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

use serde_json::Value;

use super::{Format, format_of, walk};
use crate::config::is_known_language;

/// Bytes read of a JSON file to find its first record.
const HEAD: u64 = 1 << 20;

/// Each language (lowercase) the data has a value in, with the first field and file seen
/// with it: columns `field.lang` of CSV headers, and objects whose keys are all languages
/// in the first record of JSON and JSON Lines files. Three-letter codes count only for
/// `localized` fields (`location.lat` is no Latin).
pub fn in_data(
    data_dir: &Path,
    csv_delimiter: u8,
    localized: &dyn Fn(&str) -> bool,
) -> BTreeMap<String, (String, PathBuf)> {
    let mut found = BTreeMap::new();
    let Ok(files) = walk(data_dir) else { return found };
    for path in files {
        let mut head = Vec::new();
        let read = std::fs::File::open(&path).and_then(|f| f.take(HEAD).read_to_end(&mut head));
        if read.is_err() {
            continue;
        }
        let text = String::from_utf8_lossy(head.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&head));
        let mut add = |lang: &str, field: &str| {
            let lang = lang.to_ascii_lowercase();
            let primary = lang.split('-').next().unwrap_or("");
            if is_known_language(&lang) && (primary.len() == 2 || localized(field)) {
                found.entry(lang).or_insert_with(|| (field.to_string(), path.clone()));
            }
        };
        match format_of(&path) {
            Some(format @ (Format::Csv | Format::Tsv)) => {
                let header = text.lines().next().unwrap_or("");
                let delimiter = if format == Format::Tsv { b'\t' } else { csv_delimiter };
                for column in header.split(char::from(delimiter)) {
                    let column = column.trim().trim_matches('"');
                    if let Some((field, lang)) = column.rsplit_once('.') {
                        add(lang, field);
                    }
                }
            }
            Some(format) => {
                let first = match format {
                    Format::JsonLines => text.lines().find(|l| !l.trim().is_empty()).unwrap_or(""),
                    _ => text.trim_start().strip_prefix('[').unwrap_or(""),
                };
                let mut values = serde_json::Deserializer::from_str(first).into_iter::<Value>();
                if let Some(Ok(Value::Object(record))) = values.next() {
                    for (field, value) in &record {
                        if let Value::Object(map) = value
                            && !map.is_empty()
                            && map
                                .keys()
                                .all(|k| is_known_language(k) && (k.len() == 2 || localized(field)))
                        {
                            map.keys().for_each(|lang| add(lang, field));
                        }
                    }
                }
            }
            None => {}
        }
    }
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_languages_in_headers_and_first_records() {
        let dir = tempfile::tempdir().unwrap();
        std::fs::write(dir.path().join("a.csv"), "id,name.en,name.es,location.lat\n1,A,B,3\n")
            .unwrap();
        std::fs::write(
            dir.path().join("b.json"),
            "[\n {\"id\": 2, \"name\": {\"en\": \"x\", \"de\": \"y\"}},\n {\"id\": 3}\n]",
        )
        .unwrap();
        std::fs::write(
            dir.path().join("c.jsonl"),
            "\n{\"id\": 4, \"summary\": {\"ja\": \"z\", \"yue\": \"w\"}, \"tags\": {\"top\": 1}}\n",
        )
        .unwrap();
        let found = in_data(dir.path(), b',', &|field| field == "summary");
        let langs: Vec<&str> = found.keys().map(String::as_str).collect();
        assert_eq!(
            langs,
            ["de", "en", "es", "ja", "yue"],
            "`lat` and `top` of fields not localized are none"
        );
        assert_eq!(found["es"].0, "name");
        assert!(found["es"].1.ends_with("a.csv"));
        assert_eq!(found["ja"].0, "summary");
    }
}
