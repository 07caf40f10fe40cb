//! The rules of the routing table as regular expressions, for the hosts that match them in
//! their own configs: each written once here and property-tested (below) against the Rust
//! rule it mirrors, so that no host can drift from `folio serve`.
//!
//! | pattern | mirrors |
//! |---|---|
//! | [`segment`], [`segments`] | [`super::clean_segment`] |
//! | [`DOT_SEGMENT`] | [`super::has_dot_segment`] |
//! | [`param`] | [`super::query_param`] |
//! | [`PAGE`] | [`super::valid_page`] |
//! | [`page_numbers`] | a page number within a size's page count |
//! | [`accepts_coding`] | [`super::accepts_coding`] |
//! | [`endpoint`], [`lang_endpoint`], [`either_endpoint`], [`any_lang_endpoint`] | the endpoints of [`super::Map::resolve`], below `api/` |
//!
//! They use no lookaround and no backreference, so PCRE (nginx, Apache, Vercel), RE2
//! (Caddy), JavaScript (CloudFront, Cloudflare) and Rust's `regex` read them alike. They are
//! unanchored: a host adds `^…$` where it matches a whole value. lighttpd's Lua patterns
//! have no alternation; [`lua_segment`] is the one rule it takes from here.

/// The characters that may start a clean path segment (no `.`: no `.`, `..` or dotfiles).
const SEGMENT_FIRST: &str = "A-Za-z0-9_-";
/// The characters of the rest of a clean segment.
const SEGMENT_REST: &str = "A-Za-z0-9._-";

/// A valid page number: 1 to 999999999, no sign, no leading zero.
pub const PAGE: &str = "[1-9][0-9]{0,8}";

/// One clean path segment.
pub fn segment() -> String {
    format!("[{SEGMENT_FIRST}][{SEGMENT_REST}]*")
}

/// One or more clean segments separated by `/`.
pub fn segments() -> String {
    let seg = segment();
    format!("(?:{seg}/)*{seg}")
}

/// A whole clean segment as a Lua pattern (lighttpd's mod_magnet).
pub fn lua_segment() -> String {
    format!("^[{SEGMENT_FIRST}][{SEGMENT_REST}]*$")
}

/// A dot segment (`.`, `..`, its dots raw or as `%2e`) in a raw path, as
/// [`super::dot_segment`]: matched on the path alone, or on a request target from its start
/// with `^[^?]*` in front.
pub const DOT_SEGMENT: &str = r"/(?:\.|%2[eE]){1,2}(?:/|\?|$)";

/// The first occurrence of `key` in a raw query string; group 1 is its value, empty for a
/// bare key or an empty value (both count as absent). The leftmost match is the first
/// occurrence.
pub fn param(key: &str) -> String {
    format!("(?:^|&){}(?:=([^&]*))?(?:&|$)", literal(key))
}

/// The decimal numbers `1..=n` without leading zeros, as an alternation (no anchors, no
/// capturing group): every shorter length, then n's length digit by digit
/// (137 → `[1-9]|[1-9][0-9]|1[0-2][0-9]|13[0-7]`).
pub fn page_numbers(n: usize) -> String {
    fn class(lo: u32, hi: u32) -> String {
        if lo == hi { lo.to_string() } else { format!("[{lo}-{hi}]") }
    }
    fn any(k: usize) -> String {
        match k {
            0 => String::new(),
            1 => "[0-9]".into(),
            k => format!("[0-9]{{{k}}}"),
        }
    }
    assert!(n >= 1, "a listing has at least one page");
    let digits: Vec<u32> = n.to_string().bytes().map(|b| u32::from(b - b'0')).collect();
    let len = digits.len();
    let mut alts: Vec<String> = (1..len).map(|d| format!("[1-9]{}", any(d - 1))).collect();
    for i in 0..len {
        let lo = if i == 0 { 1 } else { 0 };
        let last = i + 1 == len;
        // The digit at i runs below n's digit (the rest free), or up to it on the last one.
        let hi = if last { Some(digits[i]) } else { digits[i].checked_sub(1) };
        if let Some(hi) = hi.filter(|&hi| hi >= lo) {
            let prefix: String = digits[..i].iter().map(u32::to_string).collect();
            alts.push(format!("{prefix}{}{}", class(lo, hi), any(len - 1 - i)));
        }
    }
    alts.join("|")
}

/// [`super::accepts_coding`] for one coding, over the header value; hosts apply it
/// case-insensitively.
pub fn accepts_coding(coding: &str) -> String {
    // A non-zero qvalue: 1 (with up to three zeros), or 0. followed by up to three digits
    // of which one is not zero.
    let positive = r"1(?:\.0{0,3})?|0\.(?:[1-9][0-9]{0,2}|0[1-9][0-9]?|00[1-9])";
    format!(
        r"(?:^|,)[ \t]*{coding}[ \t]*(?:,|$|;[ \t]*q=(?:{positive})[ \t]*(?:,|$))",
        coding = literal(coding)
    )
}

/// The unprefixed endpoint below `api/`: `{resource}`, with an optional trailing slash.
pub fn endpoint(resource: &str) -> String {
    format!("{}/?", literal(resource))
}

/// A configured language's endpoint below `api/`; group 1 is the language.
pub fn lang_endpoint<S: AsRef<str>>(languages: &[S], resource: &str) -> String {
    format!("({})/{}", one_of(languages), endpoint(resource))
}

/// Either endpoint below `api/`, nothing captured.
pub fn either_endpoint<S: AsRef<str>>(languages: &[S], resource: &str) -> String {
    format!("(?:(?:{})/)?{}", one_of(languages), endpoint(resource))
}

/// An endpoint below `api/` with any first segment in the language's place, configured or
/// not (what answers `unknown_lang` once the configured ones are taken out).
pub fn any_lang_endpoint(resource: &str) -> String {
    format!("[^/?]+/{}", endpoint(resource))
}

/// `s` as a literal inside a regex.
pub fn literal(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        if "\\.^$|?*+()[]{}".contains(c) {
            out.push('\\');
        }
        out.push(c);
    }
    out
}

/// An alternation of literals: `en|pt\-br` would be wrong, `en|pt-br` is right.
pub fn one_of<S: AsRef<str>>(items: &[S]) -> String {
    items.iter().map(|s| literal(s.as_ref())).collect::<Vec<_>>().join("|")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use regex::Regex;

    fn whole(pattern: &str) -> Regex {
        Regex::new(&format!("^(?:{pattern})$")).unwrap()
    }

    proptest! {
        /// The endpoint patterns match exactly the paths the routing table takes for an
        /// endpoint: a configured language's, the unprefixed one, or an unknown language's.
        #[test]
        fn endpoint_patterns_are_the_tables_endpoints(
            segs in prop::collection::vec(
                prop::sample::select(vec!["en", "pt-br", "de", "sights", "sight", "", "a.b", "%65n"]),
                1..4,
            )
        ) {
            let table = super::super::sample("");
            let langs = &table.shape.languages;
            let rest = segs.join("/");
            let outcome = table.resolve("GET", &format!("/api/{rest}"), "");
            let (page, unknown) = match &outcome {
                super::super::Outcome::Page(_) => (true, false),
                super::super::Outcome::Error(super::super::ErrorCode::UnknownLang) => (false, true),
                _ => (false, false),
            };
            let prefixed = page && !whole(&endpoint("sights")).is_match(&rest);
            prop_assert_eq!(whole(&either_endpoint(langs, "sights")).is_match(&rest), page, "{}", rest);
            prop_assert_eq!(whole(&lang_endpoint(langs, "sights")).is_match(&rest), prefixed, "{}", rest);
            // An empty language (`api//sights`) is no endpoint: not_found, not unknown_lang.
            prop_assert_eq!(
                whole(&any_lang_endpoint("sights")).is_match(&rest),
                prefixed || unknown,
                "{}", rest
            );
        }
    }

    #[test]
    fn page_ranges_are_written_digit_by_digit() {
        assert_eq!(page_numbers(1), "1");
        assert_eq!(page_numbers(7), "[1-7]");
        assert_eq!(page_numbers(14), "[1-9]|1[0-4]");
        assert_eq!(page_numbers(137), "[1-9]|[1-9][0-9]|1[0-2][0-9]|13[0-7]");
        assert_eq!(page_numbers(2000), "[1-9]|[1-9][0-9]|[1-9][0-9]{2}|1[0-9]{3}|2000");
    }

    #[test]
    fn literals_keep_their_meaning() {
        for s in ["a.b", "pt-br", "x/y", "(a)", "a|b", "[x]", "$1", "\\", "a{2}"] {
            assert!(whole(&literal(s)).is_match(s), "{s}");
        }
        assert!(!whole(&literal("a.b")).is_match("axb"));
        assert!(whole(&one_of(&["en", "pt-br"])).is_match("pt-br"));
    }

    proptest! {
        #[test]
        fn the_page_range_accepts_exactly_one_to_n(n in 1usize..100_000, v in 0usize..200_000, text in "[0-9]{0,6}") {
            let re = whole(&page_numbers(n));
            prop_assert_eq!(re.is_match(&v.to_string()), (1..=n).contains(&v));
            let in_range = super::super::valid_page(&text) && text.parse::<usize>().is_ok_and(|p| p <= n);
            prop_assert_eq!(re.is_match(&text), in_range, "{}", text);
        }

        #[test]
        fn the_page_pattern_is_valid_page(value in "[-+0-9a.]{0,11}") {
            prop_assert_eq!(whole(PAGE).is_match(&value), super::super::valid_page(&value));
        }

        #[test]
        fn the_dot_segment_pattern_is_has_dot_segment(path in "(/(\\.|%2[eE]|[a-z%]){0,3}){1,4}", query in "(\\?[./a-z]{0,3})?") {
            let re = Regex::new(&format!("^[^?]*{DOT_SEGMENT}")).unwrap();
            prop_assert_eq!(
                re.is_match(&format!("{path}{query}")),
                super::super::has_dot_segment(&path),
                "{}{}", path, query
            );
        }

        #[test]
        fn the_segment_pattern_is_clean_segment(seg in "[-._a-zA-Z0-9%/\\\\ é]{0,8}") {
            prop_assert_eq!(whole(&segment()).is_match(&seg), super::super::clean_segment(&seg));
            let all_clean = seg.split('/').all(super::super::clean_segment);
            prop_assert_eq!(whole(&segments()).is_match(&seg), all_clean);
        }

        #[test]
        fn the_param_pattern_finds_what_query_param_finds(
            pairs in prop::collection::vec(
                (prop::sample::select(vec!["page", "per_page", "Page", "xpage", "page_", ""]),
                 prop::sample::select(vec!["", "=", "=2", "=%32", "=2=3", "=abc"])),
                0..5,
            )
        ) {
            let query: Vec<String> = pairs.iter().map(|(k, v)| format!("{k}{v}")).collect();
            let query = query.join("&");
            for key in ["page", "per_page"] {
                let found = Regex::new(&param(key)).unwrap().captures(&query).map(|c| {
                    c.get(1).map_or("", |m| m.as_str()).to_string()
                });
                let found = found.filter(|v| !v.is_empty());
                prop_assert_eq!(found.as_deref(), super::super::query_param(&query, key), "{}", query);
            }
        }

        #[test]
        fn the_accept_encoding_pattern_is_the_rule(
            elements in prop::collection::vec(
                (
                    prop::sample::select(vec!["br", "BR", "gzip", "*", "identity", "xbr", ""]),
                    prop::sample::select(vec![
                        "", ";q=0", ";Q=0.0", "; q=1", ";q=1.0", ";q=0.5", "; q=0.001 ", ";q=0.000",
                        ";q=0.0001", ";q=0.", ";q=1.", ";q=2", ";q=abc", ";level=1", ";", ";q =1",
                    ]),
                    prop::sample::select(vec!["", " ", "\t", "  "]),
                ),
                0..4,
            )
        ) {
            let header: Vec<String> =
                elements.iter().map(|(name, weight, pad)| format!("{pad}{name}{weight}{pad}")).collect();
            let header = header.join(",");
            for coding in ["br", "gzip"] {
                let re = Regex::new(&format!("(?i){}", accepts_coding(coding))).unwrap();
                prop_assert_eq!(
                    re.is_match(&header),
                    super::super::accepts_coding(&header, coding),
                    "{:?} for {}", header, coding
                );
            }
        }
    }
}
