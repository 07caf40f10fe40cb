//! How a TOML or serde error about `folio.toml` reads: the key or table it is about, the
//! table it is in, and the fix (the valid name nearest to a typo, the TOML type wanted).

/// serde's and toml's messages as folio says them:
/// - `unknown field `x`, expected one of `a`, `b`` (or `unknown variant`): the key or
///   value, the table it is in, and the valid one nearest to it (else the valid ones); on a
///   table's header, the table (`unknown table `[il8n]`; did you mean `[i18n]`?`);
/// - `invalid type: string "10", expected u64` (or `invalid value`): the key, its table,
///   the TOML type expected and what was found.
///
/// Other messages pass through.
pub(super) fn explain(message: &str, text: &str, line: Option<usize>) -> String {
    if let Some(said) = explain_type(message, text, line) {
        return said;
    }
    let (what, rest) = if let Some(rest) = message.strip_prefix("unknown field `") {
        ("key", rest)
    } else if let Some(rest) = message.strip_prefix("unknown variant `") {
        ("value", rest)
    } else {
        return message.to_string();
    };
    let Some((word, expected)) = rest.split_once('`') else {
        return message.to_string();
    };
    // The valid names are the backquoted words after the unknown one.
    let valid: Vec<&str> = expected.split('`').skip(1).step_by(2).collect();
    // On a table's header (`[il8n]`, `[listing.x]`), the unknown key is a table.
    let header = line.and_then(|l| text.lines().nth(l - 1)).and_then(header_name);
    // `[field.rating]` for `[fields.rating]`: the unknown key is the header's first part,
    // a table at the top level.
    if what == "key"
        && let Some(header) =
            header.filter(|h| h.contains('.') && h.split('.').next() == Some(word))
    {
        let rest = &header[word.len()..];
        let hint = match crate::diag::nearest(word, valid.iter().copied()) {
            Some(best) => format!("; did you mean `[{best}{rest}]`?"),
            None => format!("; expected one of: {}", valid.join(", ")),
        };
        return format!("unknown table `[{header}]`{hint}");
    }
    if what == "key"
        && let Some(header) = header.filter(|h| h.rsplit('.').next() == Some(word))
    {
        let parent = header.rsplit_once('.').map(|(p, _)| format!("{p}."));
        let parent = parent.unwrap_or_default();
        let hint = match crate::diag::nearest(word, valid.iter().copied()) {
            Some(best) => format!("; did you mean `[{parent}{best}]`?"),
            None => format!(
                "; expected one of: {}",
                valid.iter().map(|v| format!("[{parent}{v}]")).collect::<Vec<_>>().join(", ")
            ),
        };
        return format!("unknown table `[{header}]`{hint}");
    }
    let table = match line.and_then(|l| table_before(text, l)) {
        Some(name) => format!("in [{name}]"),
        None => "at the top level".to_string(),
    };
    // Other schemas' names for a type (`float`, `int`, `bool`) are the one folio means.
    let other_name =
        (what == "value").then(|| synonym(word)).flatten().filter(|meant| valid.contains(meant));
    let hint = match crate::diag::did_you_mean(word, valid.iter().copied()) {
        _ if other_name.is_some() => {
            format!("; did you mean `{}`?", other_name.expect("checked"))
        }
        hint if !hint.is_empty() || valid.is_empty() => hint,
        _ => format!("; expected one of: {}", valid.join(", ")),
    };
    format!("unknown {what} `{word}` {table}{hint}")
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

/// The name of the table a header line opens (`[listing]`, `[fields.name]`), if it is one.
fn header_name(line: &str) -> Option<&str> {
    let inner = line.trim().strip_prefix('[')?.split(']').next()?.trim();
    (!inner.is_empty() && !inner.starts_with('[')).then_some(inner)
}

/// `invalid type: string "10", expected u64` as `` `default_page_size` in [listing] must be
/// an integer, not a string ("10") ``.
fn explain_type(message: &str, text: &str, line: Option<usize>) -> Option<String> {
    let rest = message
        .strip_prefix("invalid type: ")
        .or_else(|| message.strip_prefix("invalid value: "))?;
    let (found, expected) = rest.rsplit_once(", expected ")?;
    let want = match expected.trim() {
        // Page sizes are the only such list: their own range says it better.
        "u64" if key_is(text, line, "page_sizes") => "a whole number from 1 to 100,000",
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
        Some(("integer", value)) => format!("an integer ({})", value.trim_matches('`')),
        Some(("floating", value)) => {
            format!("a number ({})", value.trim_start_matches("point ").trim_matches('`'))
        }
        Some(("boolean", value)) => format!("a boolean ({})", value.trim_matches('`')),
        _ if found == "sequence" => "an array".into(),
        _ if found == "map" => "a table".into(),
        _ => found.to_string(),
    };
    let l = line?;
    let key = text
        .lines()
        .take(l)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .find_map(|line| line.split_once('=').map(|(k, _)| k.trim().trim_matches('"')))
        .filter(|k| !k.is_empty() && !k.starts_with('['))?;
    let table = match table_before(text, l) {
        Some(name) => format!("in [{name}]"),
        None => "at the top level".to_string(),
    };
    Some(format!("`{key}` {table} must be {want}, not {found}"))
}

/// Whether the key written on line `line` (1-based), or last above it, is `key`.
fn key_is(text: &str, line: Option<usize>, key: &str) -> bool {
    let Some(l) = line else { return false };
    let above: Vec<&str> = text.lines().take(l).collect();
    above.iter().rev().find_map(|line| line.split_once('=').map(|(k, _)| k.trim())) == Some(key)
}

/// The `[table]` whose keys line `line` (1-based) belongs to: the last header above it.
fn table_before(text: &str, line: usize) -> Option<&str> {
    let above = text.lines().take(line.saturating_sub(1));
    let header = above.filter(|l| l.trim_start().starts_with('[')).last()?;
    let name = header.trim().trim_start_matches('[').split(']').next()?;
    Some(name.trim())
}

/// The line (1-based) of the key a validation message opens with (`listing.languages: ...`,
/// `hosting.listen `x` ...`, `base_url ...`): the key in its table, or the table's header
/// when the key is not written (a default). `None` when neither is in the file.
pub(super) fn line_of_key(text: &str, message: &str) -> Option<u64> {
    let path = message.split([':', ' ', '`']).next()?;
    if path.is_empty() || !path.bytes().all(|b| b.is_ascii_alphanumeric() || b"._-".contains(&b)) {
        return None;
    }
    let (table, key) = path.rsplit_once('.').unwrap_or(("", path));
    let mut current = String::new();
    let mut header_line = None;
    for (i, line) in text.lines().enumerate() {
        let trimmed = line.trim();
        if let Some(h) = header_name(trimmed) {
            current = h.replace(['"', ' '], "");
            if current == table {
                header_line = Some(i as u64 + 1);
            }
            continue;
        }
        let Some((k, _)) = trimmed.split_once('=') else { continue };
        if current == table && k.trim().trim_matches('"') == key {
            return Some(i as u64 + 1);
        }
    }
    header_line
}
