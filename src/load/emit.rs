//! Compact JSON of a parsed value, byte for byte what `serde_json::to_writer` writes, made
//! faster where items spend their load time: most strings need no escaping, and checking
//! that a whole string needs none (a loop the compiler vectorizes) and copying it is
//! cheaper than serde_json's byte-by-byte escape scan. Strings that do need escaping, and
//! numbers, go to serde_json.

use std::borrow::Cow;

use super::tree::Json;

/// Does serde_json escape any byte of `s`: a quote, a backslash or a control character?
fn needs_escape(s: &[u8]) -> bool {
    // No early exit inside a chunk, so that each chunk is compared as a vector.
    s.chunks(64).any(|chunk| {
        let hit = |b: u8| u8::from(b < 0x20) | u8::from(b == b'"') | u8::from(b == b'\\');
        chunk.iter().fold(0, |found, &b| found | hit(b)) != 0
    })
}

/// Appends `s` as a JSON string.
pub fn string(s: &str, out: &mut Vec<u8>) {
    if needs_escape(s.as_bytes()) {
        crate::bytes::push_json(out, s);
    } else {
        quoted(s, out);
    }
}

/// Appends a string or key of a parsed value. Text the parser borrowed held no escape,
/// and JSON text holds no raw quote or control character inside a string (serde_json
/// refuses one): it is copied as it is.
#[allow(clippy::ptr_arg, reason = "the variant is what is read: borrowed or not")]
pub fn text(s: &Cow<str>, out: &mut Vec<u8>) {
    match s {
        Cow::Borrowed(s) => quoted(s, out),
        Cow::Owned(s) => string(s, out),
    }
}

/// Appends `s`, which needs no escape, between quotes.
fn quoted(s: &str, out: &mut Vec<u8>) {
    out.reserve(s.len() + 2);
    out.push(b'"');
    out.extend_from_slice(s.as_bytes());
    out.push(b'"');
}

/// Appends `v` as compact JSON.
pub fn value(v: &Json, out: &mut Vec<u8>) {
    match v {
        Json::Null => out.extend_from_slice(b"null"),
        Json::Bool(true) => out.extend_from_slice(b"true"),
        Json::Bool(false) => out.extend_from_slice(b"false"),
        Json::Number(n) => crate::bytes::push_json(out, n),
        Json::String(s) => text(s, out),
        Json::Array(items) => {
            out.push(b'[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                value(item, out);
            }
            out.push(b']');
        }
        Json::Object(map) => {
            out.push(b'{');
            for (i, (key, item)) in map.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                text(key, out);
                out.push(b':');
                value(item, out);
            }
            out.push(b'}');
        }
    }
}

/// Compact JSON, as `serde_json` displays a value (messages show values so).
impl std::fmt::Display for Json<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let mut out = Vec::new();
        value(self, &mut out);
        f.write_str(&String::from_utf8_lossy(&out))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use serde_json::Value;

    fn leaf() -> impl Strategy<Value = Value> {
        prop_oneof![
            Just(Value::Null),
            any::<bool>().prop_map(Value::Bool),
            any::<i64>().prop_map(Value::from),
            any::<u64>().prop_map(Value::from),
            any::<f64>().prop_map(Value::from), // NaN and infinities become null, as parsed
            // Quotes, backslashes, every control character, DEL, non-ASCII, long runs.
            "[\"\\\\\\x00-\\x1f\\x7f a-zé日本\u{1F600}]{0,80}".prop_map(Value::String),
            "[a-z ]{20,200}".prop_map(Value::String),
        ]
    }

    fn json() -> impl Strategy<Value = Value> {
        leaf().prop_recursive(4, 64, 8, |inner| {
            prop_oneof![
                prop::collection::vec(inner.clone(), 0..8).prop_map(Value::Array),
                prop::collection::vec(("[\"\\\\\\x00-\\x1f a-zé]{0,12}", inner), 0..8)
                    .prop_map(|kv| Value::Object(kv.into_iter().collect())),
            ]
        })
    }

    proptest! {
        #[test]
        fn writes_what_serde_json_writes(v in json()) {
            let mut out = Vec::new();
            value(&Json::from(v.clone()), &mut out);
            prop_assert_eq!(out, serde_json::to_vec(&v).unwrap());
        }

        /// Parsed from its text (compact and pretty, escapes as serde_json writes them
        /// and as `\uXXXX` throughout) and written again: the bytes serde_json writes.
        #[test]
        fn parses_and_writes_what_serde_json_does(v in json()) {
            let ascii = {
                let mut s = String::new();
                for c in serde_json::to_string(&v).unwrap().chars() {
                    if c.is_ascii() { s.push(c) } else {
                        let mut units = [0u16; 2];
                        for u in c.encode_utf16(&mut units) { s.push_str(&format!("\\u{u:04x}")); }
                    }
                }
                s
            };
            for text in [serde_json::to_string(&v).unwrap(), serde_json::to_string_pretty(&v).unwrap(), ascii] {
                let parsed = super::super::unique::parse(&text).unwrap();
                let mut out = Vec::new();
                value(&parsed, &mut out);
                prop_assert_eq!(&out, &serde_json::to_vec(&v).unwrap(), "{}", text);
            }
        }
    }

    #[test]
    fn escapes_where_serde_json_does() {
        for s in ["plain", "a \"quote\"", "back\\slash", "tab\there", "\u{1}", "\u{7f}é日本", ""]
        {
            let mut out = Vec::new();
            string(s, &mut out);
            assert_eq!(out, serde_json::to_vec(s).unwrap(), "{s:?}");
        }
        // The fast path is taken only where nothing needs escaping, at any place in a
        // string longer than one chunk.
        for at in [0, 31, 32, 33, 63, 64, 99] {
            let mut s = vec![b'a'; 100];
            s[at] = b'\n';
            assert!(needs_escape(&s), "{at}");
        }
        assert!(!needs_escape(&[b'a'; 100]));
    }

    #[test]
    fn a_string_borrowed_from_the_text_needs_no_escape() {
        // What the parser borrows is written as it is: JSON text cannot hold a raw
        // control character in a string, and an escaped one is decoded (owned).
        for raw in ["\"a\u{1}b\"", "\"tab\there\"", "\"nl\nhere\""] {
            assert!(super::super::unique::parse(raw).is_err(), "{raw:?}");
        }
        for (text, written) in [(r#""a\"b""#, r#""a\"b""#), (r#""\u0001""#, r#""\u0001""#)] {
            let parsed = super::super::unique::parse(text).unwrap();
            assert!(matches!(&parsed, Json::String(Cow::Owned(_))), "{text}");
            let mut out = Vec::new();
            value(&parsed, &mut out);
            assert_eq!(String::from_utf8(out).unwrap(), written);
        }
        let parsed = super::super::unique::parse(r#""plain é""#).unwrap();
        assert!(matches!(&parsed, Json::String(Cow::Borrowed("plain é"))));
    }
}
