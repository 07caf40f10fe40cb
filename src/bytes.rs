//! Appending to an in-memory byte buffer, where pages and documents are assembled: writing
//! to a `Vec<u8>` cannot fail, so these say it once instead of at every call.

use std::io::Write;

const INFALLIBLE: &str = "writing to a Vec cannot fail";

/// Appends formatted text: `push_fmt(out, format_args!("{n}"))`.
pub fn push_fmt(out: &mut Vec<u8>, args: std::fmt::Arguments) {
    out.write_fmt(args).expect(INFALLIBLE);
}

/// Appends `value` as compact JSON. Only for values that always serialize (strings,
/// numbers, maps with string keys).
pub fn push_json(out: &mut Vec<u8>, value: &(impl serde::Serialize + ?Sized)) {
    serde_json::to_writer(out, value).expect(INFALLIBLE);
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn appends_text_and_json() {
        let mut out = b"[".to_vec();
        push_fmt(&mut out, format_args!("{},", 12));
        push_json(&mut out, "a\"b");
        assert_eq!(out, br#"[12,"a\"b""#);
    }
}
