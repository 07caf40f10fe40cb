//! How a problem of `folio.toml` reads: the key or table it is about, the table it is in,
//! and the fix (the valid name nearest to a typo, the TOML type wanted). The reader
//! (`read.rs`) says which key, in which table; serde's and toml's words say the rest.

use std::ops::Range;

/// A value refused by serde, of `key` in `table` (`None`: the top level), as folio says it:
/// - `unknown variant `x`, expected one of `a`, `b``: the value, its table, and the valid
///   one nearest to it (or the one another schema's name means), else the valid ones;
/// - `invalid type: string "10", expected u64` (or `invalid value`): the key, its table,
///   the TOML type expected and what was found.
///
/// Other messages pass through.
pub(super) fn value(message: &str, key: &str, table: Option<&str>) -> String {
    if let Some(said) = explain_type(message, key, table) {
        return said;
    }
    let Some((word, expected)) =
        message.strip_prefix("unknown variant `").and_then(|rest| rest.split_once('`'))
    else {
        return message.to_string();
    };
    // The valid names are the backquoted words after the unknown one.
    let valid: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    // Other schemas' names for a type (`float`, `int`, `bool`) are the one folio means.
    let hint = match synonym(word).filter(|meant| valid.contains(meant)) {
        Some(meant) => format!("; did you mean `{meant}`?"),
        None if key == "fallback"
            && crate::diag::nearest(word, valid.iter().copied()).is_none() =>
        {
            fallback_meanings(word)
        }
        None => suggestion(word, &valid),
    };
    format!("unknown value `{word}` {}{hint}", place(table))
}

/// A key that its table (`None`: the top level) does not have, whose keys are `valid`;
/// `homes` are the tables that have it (`""`: the top level), where it was meant to go.
pub(super) fn unknown_key(
    word: &str,
    table: Option<&str>,
    valid: &[&str],
    homes: &[&str],
) -> String {
    let hint = match homes {
        [] => suggestion(word, valid),
        [""] => {
            format!("; `{word}` is a top-level key: write it above the first [table] of the file")
        }
        homes => {
            let named: Vec<String> = homes.iter().map(|h| format!("[{h}]")).collect();
            format!("; `{word}` is a key of {}: move it there", named.join(" or "))
        }
    };
    format!("unknown key `{word}` {}{hint}", place(table))
}

/// A table that does not exist, as its `[header]` names it (`il8n`, `field.rating`):
/// `word` is the unknown key, written at `part` of the header when that is known; `own`
/// when the header is the unknown key's own table (`[il8n]`), not one below it
/// (`[field.rating]`). The hint is the header with the valid key nearest to the word,
/// else the valid ones.
pub(super) fn unknown_table(
    header: &str,
    word: &str,
    part: Option<Range<usize>>,
    own: bool,
    valid: &[&str],
) -> String {
    // What other tools call folio's tables (`[l10n]` for [i18n]) are the ones meant.
    let meant = table_synonym(word).filter(|t| valid.contains(t));
    let nearest = meant.or_else(|| crate::diag::nearest(word, valid.iter().copied()));
    let hint = match (part, nearest) {
        (Some(p), Some(best)) => {
            format!("; did you mean `[{}{best}{}]`?", &header[..p.start], &header[p.end..])
        }
        (Some(p), None) if own => {
            let before = &header[..p.start];
            let tables: Vec<String> = valid.iter().map(|v| format!("[{before}{v}]")).collect();
            format!("; expected one of: {}", tables.join(", "))
        }
        _ => suggestion(word, valid),
    };
    format!("unknown table `[{header}]`{hint}")
}

/// A table under `table`, whose keys are `valid` and which has no tables of its own: the
/// header is a key written as a table (`[listing.sort]`), or a table that does not exist.
pub(super) fn in_a_table_of_keys(header: &str, word: &str, table: &str, valid: &[&str]) -> String {
    let meant = match crate::diag::nearest(word, valid.iter().copied()) {
        Some(key) => {
            format!(": did you mean the key `{key}`, written `{key} = …` under [{table}]?")
        }
        None => format!(": its keys are {}", valid.join(", ")),
    };
    format!("unknown table `[{header}]`; [{table}] has no tables{meant}")
}

/// A TOML syntax error: what toml says of its place, the column and the text at fault
/// (`None`: the end of the line or of the file), and the quoted string meant when toml
/// says a string must be quoted (`decimal_separator = ,`).
pub(super) fn syntax(said: &[&str], column: u64, fault: Option<&str>) -> String {
    let said = said.join("; ");
    let Some(fault) = fault else {
        return format!("{said} (column {column}, at the end of the line)");
    };
    let quoted = said.contains("string values must be quoted") && !fault.contains(['"', '\\']);
    let hint = if quoted { format!("; did you mean `\"{fault}\"`?") } else { String::new() };
    format!("{said} (column {column}, at `{fault}`){hint}")
}

/// A string value written without its quotes (`type = integer`), at `column`.
pub(super) fn unquoted(key: &str, word: &str, column: u64) -> String {
    format!(
        "`{word}` is not quoted: string values must be quoted (column {column}); write `{key} = \"{word}\"`"
    )
}

/// What each value of `[i18n] fallback` does, for a value it does not have: a language
/// (`en`) is the likeliest, and is what `default` does when it is the default language.
fn fallback_meanings(word: &str) -> String {
    let mut said = String::from(
        "; expected one of: \"default\" (the value in the default language, [listing] default_language), \"null\" (a null value) or \"error\" (the build fails, naming each missing translation)",
    );
    if super::is_known_language(word) {
        said.push_str(&format!(
            "; to fill missing translations from `{}`, write fallback = \"default\" and set default_language = \"{}\" in [listing]",
            word,
            word.to_ascii_lowercase()
        ));
    }
    said
}

/// `in [listing]`, or `at the top level`.
fn place(table: Option<&str>) -> String {
    table.map_or_else(|| "at the top level".to_string(), |name| format!("in [{name}]"))
}

/// `; did you mean `x`?` for the valid name nearest to `word`, else the valid ones.
fn suggestion(word: &str, valid: &[&str]) -> String {
    match crate::diag::did_you_mean(word, valid.iter().copied()) {
        hint if !hint.is_empty() || valid.is_empty() => hint,
        _ => format!("; expected one of: {}", valid.join(", ")),
    }
}

/// folio's table for what other tools name `word` (Hugo's and Rails' words for
/// translations).
fn table_synonym(word: &str) -> Option<&'static str> {
    Some(match word.to_ascii_lowercase().as_str() {
        "l10n" | "locale" | "locales" | "localization" | "localisation" | "translation"
        | "translations" | "lang" => "i18n",
        _ => return None,
    })
}

/// folio's name for a type other schemas (SQL, JSON Schema, pandas, programming languages)
/// call `word`.
fn synonym(word: &str) -> Option<&'static str> {
    Some(match word.to_ascii_lowercase().as_str() {
        "float" | "double" | "decimal" | "real" | "numeric" | "float64" | "f64" => "number",
        "int" | "long" | "int64" | "i64" | "bigint" => "integer",
        "bool" => "boolean",
        "str" | "text" | "varchar" => "string",
        "array" => "list",
        "object" | "map" => "json",
        "timestamp" | "date-time" | "date_time" => "datetime",
        _ => return None,
    })
}

/// `invalid type: string "10", expected u64` of `default_page_size` in `listing` as
/// `` `default_page_size` in [listing] must be a whole number, 0 or more, not a string
/// ("10") ``.
fn explain_type(message: &str, key: &str, table: Option<&str>) -> Option<String> {
    let rest = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))?;
    let (found, expected) = rest.rsplit_once(", expected ")?;
    let want = match expected.trim() {
        // Page sizes are the only such list: their own range says it better.
        "u64" if key == "page_sizes" => "a whole number from 1 to 100,000",
        "u64" | "u32" | "u16" | "u8" | "usize" => "a whole number, 0 or more",
        "i64" | "i32" | "isize" => "an integer",
        "f64" | "f32" => "a number",
        "a boolean" | "bool" => "true or false",
        "a string" | "a path" => "a string",
        "a sequence" => "an array",
        "a map" | "struct" => "a table",
        other if other.starts_with("struct ") => "a table",
        other if other.contains("variant") => return None,
        other => other,
    };
    let found = match found.split_once(' ') {
        Some(("string", value)) => format!("a string ({value})"),
        // A negative number where a whole number goes is no type error to the reader.
        Some(("integer", value)) if value.trim_matches('`').starts_with('-') => {
            value.trim_matches('`').to_string()
        }
        Some(("integer", value)) => format!("an integer ({})", value.trim_matches('`')),
        Some(("floating", value)) => {
            format!("a number ({})", value.trim_start_matches("point ").trim_matches('`'))
        }
        Some(("boolean", value)) => format!("a boolean ({})", value.trim_matches('`')),
        _ if found == "sequence" => "an array".into(),
        _ if found == "map" => "a table".into(),
        _ => found.to_string(),
    };
    Some(format!("`{key}` {} must be {want}, not {found}", place(table)))
}
