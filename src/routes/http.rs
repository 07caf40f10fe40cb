//! The HTTP rules every server of the API follows beyond the routes: the methods it
//! answers and the CORS preflight's lifetime, content coding (`Accept-Encoding`, for the
//! precompressed siblings) and conditional requests (`If-None-Match`, `If-Modified-Since`),
//! each as RFC 9110 says.
//!
//! Written by hand over the raw header text: the preview, the request table and the hosts'
//! scripts (`patterns.rs`) must agree on every malformed value, and the `headers` crate
//! (not in the tree) types a header only once it parses and has no `Accept-Encoding`; the
//! dates are `httpdate`'s.

/// The methods the API answers: the `Allow` of a 405 and of a plain `OPTIONS`, and the
/// `Access-Control-Allow-Methods` of a CORS preflight.
pub const ALLOW: &str = "GET, HEAD, OPTIONS";
/// How long a browser may cache a preflight's answer (`Access-Control-Max-Age`), in seconds.
pub const PREFLIGHT_MAX_AGE: u32 = 86_400;

/// Does an `Accept-Encoding` value accept `coding`, so that its precompressed sibling may
/// be sent (RFC 9110 §12.5.3)? The value is a comma-separated list of `coding [; q=value]`;
/// codings and the `q` compare case-insensitively, with optional whitespace around them.
/// A coding is accepted when it is listed with no weight or a non-zero one; `q=0` (also
/// `0.`, `0.0`, up to three zeros) refuses it, and so does an element that is not well
/// formed (an invalid weight, another parameter). `*` and `identity` never select a
/// sibling: identity is always acceptable, and it is what a server may always answer.
pub fn accepts_coding(header: &str, coding: &str) -> bool {
    header.split(',').any(|element| {
        let (name, weight) = match element.split_once(';') {
            Some((name, weight)) => (name, Some(weight)),
            None => (element, None),
        };
        name.trim_matches([' ', '\t']).eq_ignore_ascii_case(coding)
            && weight.is_none_or(|w| {
                let w = w.trim_matches([' ', '\t']);
                let q = w.strip_prefix("q=").or_else(|| w.strip_prefix("Q="));
                q.is_some_and(|q| matches!(qvalue(q), Some(thousandths) if thousandths > 0))
            })
    })
}

/// Does `If-None-Match` match the current entity tag `etag` (RFC 9110 §13.1.2)? The value
/// is `*` (any current representation) or a list of entity tags, compared weakly: `W/`
/// prefixes aside, the opaque tags are equal.
pub fn if_none_match(header: &str, etag: &str) -> bool {
    let opaque = |tag: &str| tag.trim().trim_start_matches("W/").to_string();
    let ours = opaque(etag);
    header.trim() == "*"
        || header.split(',').any(|tag| !tag.trim().is_empty() && opaque(tag) == ours)
}

/// Is a conditional GET or HEAD answered `304 Not Modified` (RFC 9110 §13.2.2)? With
/// `If-None-Match`, when it matches `etag`; without it, when `If-Modified-Since` is a date
/// at or after `last_modified` (an unparsable date is ignored).
pub fn not_modified(
    if_none_match_header: Option<&str>,
    if_modified_since: Option<&str>,
    etag: &str,
    last_modified: std::time::SystemTime,
) -> bool {
    match (if_none_match_header, if_modified_since) {
        (Some(inm), _) => if_none_match(inm, etag),
        (None, Some(ims)) => httpdate::parse_http_date(ims).is_ok_and(|since| {
            // HTTP dates have whole seconds: compare at that precision.
            let secs = |t: std::time::SystemTime| {
                t.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
            };
            secs(last_modified) <= secs(since)
        }),
        (None, None) => false,
    }
}

/// A `qvalue` in thousandths: `0[.ddd]` or `1[.000]` (at most three decimals).
fn qvalue(q: &str) -> Option<u16> {
    let (int, frac) = q.split_once('.').unwrap_or((q, ""));
    if frac.len() > 3 || !frac.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let frac: u16 = format!("{frac:0<3}").parse().ok()?;
    match int {
        "0" => Some(frac),
        "1" if frac == 0 => Some(1000),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn accept_encoding_is_read_by_rfc_9110() {
        let yes = [
            "br",
            "BR",
            "gzip, deflate, br",
            "br;q=1",
            "br ; Q=0.5",
            "x, br;q=0.001",
            "br;q=1.000",
        ];
        for h in yes {
            assert!(accepts_coding(h, "br"), "{h}");
        }
        let no = [
            "",
            "gzip",
            "br;Q=0",
            "br; q=0",
            "br;q=0.0",
            "br;q=0.000",
            "br;q=0.",
            "*",
            "*;q=0",
            "identity",
            "brotli",
            "br;q=2",
            "br;q=1.5",
            "br;q=abc",
            "br;level=3",
            "br;q=0.0001",
        ];
        for h in no {
            assert!(!accepts_coding(h, "br"), "{h}");
        }
        assert!(accepts_coding("br; q=0, gzip", "gzip") && !accepts_coding("br; q=0, gzip", "br"));
    }

    #[test]
    fn conditional_requests_follow_rfc_9110() {
        use std::time::{Duration, UNIX_EPOCH};
        let etag = "\"abc\"";
        for yes in ["\"abc\"", "W/\"abc\"", "*", "\"x\", \"abc\"", " \"y\" ,W/\"abc\""] {
            assert!(if_none_match(yes, etag), "{yes}");
        }
        for no in ["\"abd\"", "abc", "\"ABC\"", ""] {
            assert!(!if_none_match(no, etag), "{no}");
        }
        assert!(if_none_match("\"abc\"", "W/\"abc\""), "a weak tag of ours matches too");
        let modified = UNIX_EPOCH + Duration::from_secs(1_700_000_000) + Duration::from_millis(400);
        let at = httpdate::fmt_http_date(modified);
        let before = httpdate::fmt_http_date(modified - Duration::from_secs(1));
        let after = httpdate::fmt_http_date(modified + Duration::from_secs(60));
        assert!(not_modified(None, Some(&at), etag, modified), "at the second");
        assert!(not_modified(None, Some(&after), etag, modified));
        assert!(!not_modified(None, Some(&before), etag, modified));
        assert!(!not_modified(None, Some("yesterday"), etag, modified));
        assert!(!not_modified(Some("\"x\""), Some(&at), etag, modified), "If-None-Match wins");
        assert!(not_modified(Some("*"), Some(&before), etag, modified));
        assert!(!not_modified(None, None, etag, modified));
    }
}
