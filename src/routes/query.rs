//! What a request's path and query may say: the `page` and `per_page` values as the API
//! reads them (raw, first one wins, no percent-decoding), and which path segments may name
//! a file. The hosts' regular expressions (`patterns.rs`) mirror these rules.

/// The largest page number a request may ask for (nine digits).
pub const MAX_PAGE: u64 = 999_999_999;

/// The value of the first occurrence of `key` in a raw query string: split on `&` only,
/// compared without percent-decoding; an empty value or a bare key counts as absent.
pub fn query_param<'q>(query: &'q str, key: &str) -> Option<&'q str> {
    for pair in query.split('&') {
        let (k, v) = match pair.split_once('=') {
            Some((k, v)) => (k, Some(v)),
            None => (pair, None),
        };
        if k == key {
            return v.filter(|v| !v.is_empty());
        }
    }
    None
}

/// True for a valid page number: 1 to 999999999, no sign, no leading zero.
pub fn valid_page(value: &str) -> bool {
    let b = value.as_bytes();
    (1..=9).contains(&b.len()) && b[0] != b'0' && b.iter().all(u8::is_ascii_digit)
}

/// True for a dot segment, `.` or `..`, also with its dots percent-encoded (`%2e`, `.%2E`):
/// what every HTTP server resolves away before it routes (RFC 3986 §5.2.4, §6.2.2.2), so a
/// path that holds one names another path, which one depending on the server.
pub fn dot_segment(seg: &str) -> bool {
    let b = seg.as_bytes();
    let mut dots = 0;
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'.' {
            i += 1;
        } else if b[i] == b'%'
            && b.get(i + 1) == Some(&b'2')
            && matches!(b.get(i + 2), Some(b'e' | b'E'))
        {
            i += 3;
        } else {
            return false;
        }
        dots += 1;
    }
    (1..=2).contains(&dots)
}

/// True when the path of a raw request target has a [`dot_segment`].
pub fn has_dot_segment(path: &str) -> bool {
    path.split('/').any(dot_segment)
}

/// True for a path segment that may name a file: no dot first (so no `.`, `..` or hidden
/// files), no `%`, no backslash, nothing a server might decode into something else.
pub fn clean_segment(seg: &str) -> bool {
    let b = seg.as_bytes();
    !b.is_empty()
        && b[0] != b'.'
        && b.iter().all(|&c| c.is_ascii_alphanumeric() || c == b'-' || c == b'_' || c == b'.')
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn dot_segments_raw_and_encoded() {
        for dot in [".", "..", "%2e", "%2E", ".%2e", "%2e.", "%2E%2e"] {
            assert!(dot_segment(dot), "{dot}");
        }
        for not in ["", "...", "a.", ".a", "%2e%2e%2e", "%2f", "%2", "%2ex", "index.json"] {
            assert!(!dot_segment(not), "{not}");
        }
        assert!(has_dot_segment("/api/../folio.toml"));
        assert!(has_dot_segment("/api/%2e%2e/x"));
        assert!(has_dot_segment("/api/en/attractions/."));
        assert!(!has_dot_segment("/api/.folio/x"));
        assert!(!has_dot_segment("/api/en//attractions"));
    }

    #[test]
    fn query_values_are_raw_first_wins_and_empty_is_absent() {
        assert_eq!(query_param("a=1&page=2&page=3", "page"), Some("2"));
        assert_eq!(query_param("page=&page=2", "page"), None);
        assert_eq!(query_param("page&page=2", "page"), None);
        assert_eq!(query_param("page=%32", "page"), Some("%32"));
        assert_eq!(query_param("page=2=3", "page"), Some("2=3"));
        assert_eq!(query_param("PAGE=2", "page"), None);
        assert_eq!(query_param("", "page"), None);
    }

    #[test]
    fn page_values_follow_the_pattern() {
        for ok in ["1", "9", "10", "999999999"] {
            assert!(valid_page(ok), "{ok}");
        }
        for bad in ["0", "-1", "+2", "02", "2.0", "1e2", "abc", "1000000000", " 1", "%32", ""] {
            assert!(!valid_page(bad), "{bad}");
        }
    }
}
