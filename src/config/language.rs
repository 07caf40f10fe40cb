//! A language as folio.toml may name it: a lowercase BCP 47-shaped tag (`en`, `pt-br`)
//! whose first part is a language of ISO 639 (`isolang`), each a folder of its own.

use super::tables::ListingConfig;

/// True for a lowercase BCP 47-shaped tag that is also a safe path segment (`en`, `pt-br`,
/// `zh-hant`).
fn is_language_tag(tag: &str) -> bool {
    let mut parts = tag.split('-');
    let primary = parts.next().unwrap_or("");
    (2..=3).contains(&primary.len())
        && primary.bytes().all(|b| b.is_ascii_lowercase())
        && parts.all(|p| {
            (1..=8).contains(&p.len())
                && p.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit())
        })
}

/// True when the tag's primary subtag is a language of ISO 639 (`es`, `pt` of `pt-br`, `yue`):
/// `sp` is no language, whatever its shape.
pub fn is_known_language(tag: &str) -> bool {
    let primary = tag.split('-').next().unwrap_or("").to_ascii_lowercase();
    match primary.len() {
        2 => isolang::Language::from_639_1(&primary).is_some(),
        3 => isolang::Language::from_639_3(&primary).is_some(),
        _ => false,
    }
}

/// Where the problems of language tags go: the message, and the tag when it is no language
/// (the problem a report may add the code meant to).
pub(super) type TagErr<'a> = &'a mut dyn FnMut(&str, String, Option<&str>);

/// `[listing]`'s languages: lowercase tags of languages, each listed once, in a folder of
/// its own.
pub(super) fn language_tags(l: &ListingConfig, err: TagErr) {
    if l.languages.is_empty() {
        err("listing.languages", "listing.languages must name at least one language".into(), None);
    }
    for (i, lang) in l.languages.iter().enumerate() {
        if !is_language_tag(lang) && is_language_tag(&lang.to_ascii_lowercase()) {
            // `EN`: the lowercase one is the answer.
            err(
                "listing.languages",
                format!(
                    "listing.languages: `{lang}` is not lowercase: write `{}` (tags are lowercase in URLs and data keys)",
                    lang.to_ascii_lowercase()
                ),
                None,
            );
        } else if !is_language_tag(lang) {
            err(
                "listing.languages",
                format!(
                    "listing.languages: `{lang}` is not a lowercase BCP 47 tag like `en` or `pt-br`"
                ),
                None,
            );
        } else if !is_known_language(lang) {
            err(
                "listing.languages",
                format!(
                    "listing.languages: `{lang}` is no language: its first part is no ISO 639 code (such as `es` for Spanish, or `pt-br` for Portuguese as spoken in Brazil)"
                ),
                Some(lang),
            );
        }
        if l.languages[..i].contains(lang) {
            err("listing.languages", format!("listing.languages: `{lang}` is listed twice"), None);
        }
        if lang == "errors" || *lang == l.resource {
            err(
                "listing.languages",
                format!(
                    "listing.languages: `{lang}` would share a folder with the {}",
                    if lang == "errors" { "error documents" } else { "resource" }
                ),
                None,
            );
        }
    }
}
