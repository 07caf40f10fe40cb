//! Reading `folio.toml` in one parse: the text becomes one spanned document
//! ([`toml::de::DeTable`]), each table's keys are checked against the keys its type has
//! (serde's own list of them), and each known value is deserialized alone from its spanned
//! item: every problem is found at once, each at its own line and column.

use std::collections::BTreeMap;
use std::ops::Range;
use std::path::Path;

use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Visitor};
use toml::Spanned;
use toml::de::{DeString, DeTable, DeValue, ValueDeserializer};

use super::explain;
use super::{
    CloudflareConfig, Config, DeployConfig, FieldSpec, HostingConfig, I18nConfig, InputConfig,
    ListingConfig, OpenApiConfig, OutputConfig,
};
use crate::diag::ConfigError;

/// A config and where its keys are, or its problems.
pub(super) type Parsed = Result<(Config, Places), Vec<ConfigError>>;

/// `text` parsed once: the config and where each of its keys is written, or every problem
/// in it sorted by line and column. A text that does not parse has one problem, its syntax
/// error.
pub(super) fn parse(text: &str, path: &Path) -> Parsed {
    let (root, syntax) = DeTable::parse_recoverable(text);
    if let Some(first) = syntax.first() {
        // The first error; toml may say more than one thing of its place (`x = ,`: what
        // it expected there, then that a string is quoted): all of it.
        let span = first.span().unwrap_or(text.len()..text.len());
        let mut said: Vec<&str> = Vec::new();
        for e in syntax.iter().filter(|e| e.span() == first.span()) {
            if !said.contains(&e.message().trim_end()) {
                said.push(e.message().trim_end());
            }
        }
        if let Some((at, key, word)) = bare_word(text, span.start) {
            let (line, column) = line_column(text, at);
            let message = explain::unquoted(key, word, column);
            return Err(vec![ConfigError::new(path, Some(line), message).with_column(column)]);
        }
        let (line, column) = line_column(text, span.start);
        let message = explain::syntax(&said, column, fault(text, &span));
        return Err(vec![ConfigError::new(path, Some(line), message).with_column(column)]);
    }
    let mut walk = Walk { text, found: Vec::new(), places: Places::default() };
    table::<Config>(&mut walk, &Scope::default(), root.get_ref());
    if walk.found.is_empty() {
        // Every key known and every value of its type: this fails only by a change of the
        // model the walk does not know of, said as serde says it.
        match Config::deserialize(toml::de::Deserializer::from(root)) {
            Ok(config) => return Ok((config, walk.places)),
            Err(e) => walk.found.push((e.span().unwrap_or(0..0), e.message().trim_end().into())),
        }
    }
    let mut errors: Vec<ConfigError> = (walk.found.into_iter())
        .map(|(span, message)| {
            let (line, column) = line_column(text, span.start);
            ConfigError::new(path, Some(line), message).with_column(column)
        })
        .collect();
    errors.sort_by_key(|e| (e.line, e.column));
    Err(errors)
}

/// Where each key of a config is written: its dotted path (`listing.languages`; a table's
/// own, `listing`: its key, in its header when it has one; an entry of an array,
/// `listing.sort[1]`) to its line and column.
#[derive(Debug, Clone, Default)]
pub struct Places(BTreeMap<String, (u64, u64)>);

impl Places {
    /// The line and column of `path`, the dotted key a validation problem is about
    /// ([`ConfigError::key`](crate::diag::ConfigError)), else of its table when the key is
    /// not written (a default). `None` when neither is in the file.
    pub fn of(&self, path: &str) -> Option<(u64, u64)> {
        if let Some(found) = self.0.get(path) {
            return Some(*found);
        }
        // An entry not written on its own: its list's place.
        if let Some((list, _)) = path.split_once('[') {
            return self.of(list);
        }
        let table = path.rsplit_once('.').map(|(table, _)| table);
        self.0.get(table?).copied()
    }
}

/// The 1-based line and column (in characters) of byte `at` of `text`.
fn line_column(text: &str, at: usize) -> (u64, u64) {
    let before = text.get(..at.min(text.len())).unwrap_or(text);
    let line_start = before.rfind('\n').map_or(0, |i| i + 1);
    let line = 1 + before.matches('\n').count() as u64;
    (line, 1 + before[line_start..].chars().count() as u64)
}

/// The value of a `key = value` line that is one bare word (`type = integer`), when the
/// syntax error at `at` is in it: its offset, the key and the word. toml reads a word's
/// first letters as the start of another value (`inf`, `nan`, `true`) and says what that
/// one wanted, far from the fix: quotes.
fn bare_word(text: &str, at: usize) -> Option<(usize, &str, &str)> {
    let start = text.get(..at)?.rfind('\n').map_or(0, |i| i + 1);
    let end = text[start..].find(['\n', '\r']).map_or(text.len(), |i| start + i);
    let line = &text[start..end];
    let (key, value) = line.split_once('=')?;
    let key = key.trim();
    let bare = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.');
    if key.is_empty() || !key.chars().all(bare) {
        return None;
    }
    let word = value.split('#').next()?.trim();
    let word_at = start + key_len(line) + value.len() - value.trim_start().len();
    let literal = ["true", "false", "inf", "nan"].contains(&word);
    let first_letter = word.chars().next().is_some_and(|c| c.is_ascii_alphabetic());
    (first_letter
        && !literal
        && word.chars().all(bare)
        && at >= word_at
        && at <= word_at + word.len())
    .then_some((word_at, key, word))
}

/// The length of `line` up to and with its first `=`.
fn key_len(line: &str) -> usize {
    line.find('=').map_or(0, |i| i + 1)
}

/// The text a syntax error is at: what its span covers on its line, else the character
/// there; `None` at the end of a line or of the file.
fn fault<'t>(text: &'t str, span: &Range<usize>) -> Option<&'t str> {
    let line = text.get(span.start..)?.split(['\n', '\r']).next()?;
    let covered = line.get(..span.len()).unwrap_or(line).trim();
    let shown = match covered {
        "" => line.chars().next().map(|c| &line[..c.len_utf8()])?,
        covered => covered,
    };
    (!shown.trim().is_empty()).then_some(shown)
}

/// A table of `folio.toml`: its keys are its type's fields; the values that are tables of
/// their own are walked with theirs. (A table-valued key missing from [`Table::inner`]
/// still has its problems found, the first of them only.)
trait Table: DeserializeOwned {
    /// How the value of `key` is walked when it is a table of its own.
    fn inner(_key: &str) -> Option<Walker> {
        None
    }
}

/// How the keys of a table are checked: [`table`] of its type, or [`fields`].
type Walker = fn(&mut Walk<'_>, &Scope, &DeTable<'_>);

impl Table for Config {
    fn inner(key: &str) -> Option<Walker> {
        let walker: Walker = match key {
            "listing" => table::<ListingConfig>,
            "input" => table::<InputConfig>,
            "fields" => fields,
            "i18n" => table::<I18nConfig>,
            "output" => table::<OutputConfig>,
            "hosting" => table::<HostingConfig>,
            "deploy" => table::<DeployConfig>,
            "openapi" => table::<OpenApiConfig>,
            _ => return None,
        };
        Some(walker)
    }
}

impl Table for HostingConfig {
    fn inner(key: &str) -> Option<Walker> {
        (key == "cloudflare").then_some(table::<CloudflareConfig> as Walker)
    }
}

/// Every table of `folio.toml` as messages name it (`""`: the top level), with its keys:
/// where a key written in the wrong table belongs.
fn tables() -> [(&'static str, &'static [&'static str]); 10] {
    [
        ("", keys_of::<Config>()),
        ("listing", keys_of::<ListingConfig>()),
        ("fields.NAME", keys_of::<FieldSpec>()),
        ("input", keys_of::<InputConfig>()),
        ("i18n", keys_of::<I18nConfig>()),
        ("output", keys_of::<OutputConfig>()),
        ("hosting", keys_of::<HostingConfig>()),
        ("hosting.cloudflare", keys_of::<CloudflareConfig>()),
        ("openapi", keys_of::<OpenApiConfig>()),
        ("deploy", keys_of::<DeployConfig>()),
    ]
}

/// The tables other than `scope` (a name as [`tables`] gives it) that have the key `word`
/// as a value (not as a table of their own).
fn homes(word: &str, scope: &str) -> Vec<&'static str> {
    let is_table = |table: &str, key: &str| {
        let path = if table.is_empty() { key.to_string() } else { format!("{table}.{key}") };
        key == "fields" && table.is_empty() || tables().iter().any(|(t, _)| *t == path)
    };
    (tables().into_iter())
        .filter(|(table, keys)| *table != scope && keys.contains(&word) && !is_table(table, word))
        .map(|(table, _)| table)
        .collect()
}

impl Table for ListingConfig {}
impl Table for InputConfig {}
impl Table for FieldSpec {}
impl Table for I18nConfig {}
impl Table for OutputConfig {}
impl Table for CloudflareConfig {}
impl Table for DeployConfig {}
impl Table for OpenApiConfig {}

/// The keys serde accepts in `T`'s table: the fields its derive names when it asks for a
/// struct, heard by a deserializer that only listens.
fn keys_of<T: DeserializeOwned>() -> &'static [&'static str] {
    struct Listen<'a>(&'a mut &'static [&'static str]);
    impl<'de> de::Deserializer<'de> for Listen<'_> {
        type Error = de::value::Error;
        fn deserialize_any<V: Visitor<'de>>(self, _: V) -> Result<V::Value, Self::Error> {
            Err(de::Error::custom("no struct"))
        }
        fn deserialize_struct<V: Visitor<'de>>(
            self,
            _: &'static str,
            fields: &'static [&'static str],
            _: V,
        ) -> Result<V::Value, Self::Error> {
            *self.0 = fields;
            Err(de::Error::custom("heard"))
        }
        serde::forward_to_deserialize_any! {
            bool i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char str string bytes
            byte_buf option unit unit_struct newtype_struct seq tuple tuple_struct map enum
            identifier ignored_any
        }
    }
    let mut keys: &'static [&'static str] = &[];
    let _ = T::deserialize(Listen(&mut keys));
    keys
}

/// The table being walked, as messages name it: `listing`, `fields.name` (its header as
/// written, when it has one); `None` at the top level.
#[derive(Default)]
struct Scope {
    name: Option<String>,
    /// Its keys' dotted path (`fields.name`), as [`Places`] has it; empty at the top level.
    path: String,
    /// How many keys below the top level it is.
    depth: usize,
}

impl Scope {
    /// The table of `key` (written `raw`) in this one, named by its header if it has one.
    fn inner(&self, key: &str, raw: &str, header: Option<&str>) -> Scope {
        let name = match (header, &self.name) {
            (Some(header), _) => header.to_string(),
            (None, Some(name)) => format!("{name}.{raw}"),
            (None, None) => raw.to_string(),
        };
        Scope { name: Some(name), path: self.path_of(key), depth: self.depth + 1 }
    }

    /// The dotted path of `key` in this table.
    fn path_of(&self, key: &str) -> String {
        if self.path.is_empty() { key.to_string() } else { format!("{}.{key}", self.path) }
    }
}

/// The walk over the document: the problems found, each with the bytes it is about, and
/// where each key is.
struct Walk<'t> {
    text: &'t str,
    found: Vec<(Range<usize>, String)>,
    places: Places,
}

/// The keys of a table of type `T`: each unknown one said; each table of its own walked;
/// each other value deserialized alone, so that its error is at its own place.
fn table<T: Table>(walk: &mut Walk<'_>, scope: &Scope, table: &DeTable<'_>) {
    let keys = keys_of::<T>();
    // The keys that are tables of their own, which a misspelled `[header]` means.
    let tables: Vec<&str> = keys.iter().copied().filter(|k| T::inner(k).is_some()).collect();
    for (key, value) in table {
        let word: &str = key.get_ref();
        walk.place(scope, key, value);
        if !keys.contains(&word) {
            walk.unknown(scope, key, value, (keys, &tables));
        } else if let (Some(walker), DeValue::Table(inner)) = (T::inner(word), value.get_ref()) {
            let scope = walk.scope(scope, key, value);
            walker(walk, &scope, inner);
        } else if T::inner(word).is_some() && value.get_ref().is_array() {
            // serde reads a struct from an array too, and would say what its first field is
            // not: the array is what is wrong (`[[listing]]`).
            walk.not_a_table(scope, key, value);
        } else if let Err(e) = T::deserialize(alone(key, value)) {
            walk.value_error(scope, key, value, &e);
        }
    }
}

/// `[fields]`: each key a field, whose table is a [`FieldSpec`].
fn fields(walk: &mut Walk<'_>, scope: &Scope, fields: &DeTable<'_>) {
    for (key, value) in fields {
        walk.place(scope, key, value);
        if let DeValue::Table(inner) = value.get_ref() {
            let scope = walk.scope(scope, key, value);
            table::<FieldSpec>(walk, &scope, inner);
        } else if value.get_ref().is_array() {
            walk.not_a_table(scope, key, value);
        } else if let Err(e) = BTreeMap::<String, FieldSpec>::deserialize(alone(key, value)) {
            walk.value_error(scope, key, value, &e);
        }
    }
}

/// A table of the one key `key`, to deserialize its table's type from.
fn alone<'i>(key: &Spanned<DeString<'i>>, value: &Spanned<DeValue<'i>>) -> ValueDeserializer<'i> {
    let mut one = DeTable::new();
    one.insert(key.clone(), value.clone());
    ValueDeserializer::from(Spanned::new(value.span(), DeValue::Table(one)))
}

impl Walk<'_> {
    /// Notes where `key` of `scope` is, and each entry of its `value` when that is an
    /// array.
    fn place(&mut self, scope: &Scope, key: &Spanned<DeString<'_>>, value: &Spanned<DeValue<'_>>) {
        let at = line_column(self.text, key.span().start);
        let path = scope.path_of(key.get_ref());
        if let DeValue::Array(entries) = value.get_ref() {
            for (i, entry) in entries.iter().enumerate() {
                let at = line_column(self.text, entry.span().start);
                self.places.0.insert(format!("{path}[{i}]"), at);
            }
        }
        self.places.0.insert(path, at);
    }

    /// The scope of the table `value` of `key` in `scope`.
    fn scope(
        &self,
        scope: &Scope,
        key: &Spanned<DeString<'_>>,
        value: &Spanned<DeValue<'_>>,
    ) -> Scope {
        let header = self.header(value).map(|name| &self.text[name]);
        scope.inner(key.get_ref(), &self.text[key.span()], header)
    }

    /// A value of `key` that its type refuses, at the value (or the item in it) refused.
    fn value_error(
        &mut self,
        scope: &Scope,
        key: &Spanned<DeString<'_>>,
        value: &Spanned<DeValue<'_>>,
        e: &toml::de::Error,
    ) {
        let message = explain::value(e.message().trim_end(), key.get_ref(), scope.name.as_deref());
        self.found.push((e.span().unwrap_or_else(|| value.span()), message));
    }

    /// An array where a table belongs.
    fn not_a_table(
        &mut self,
        scope: &Scope,
        key: &Spanned<DeString<'_>>,
        value: &Spanned<DeValue<'_>>,
    ) {
        let message = explain::value(
            "invalid type: sequence, expected a map",
            key.get_ref(),
            scope.name.as_deref(),
        );
        self.found.push((value.span(), message));
    }

    /// An unknown key: a table at each `[header]` it has (a misspelled table, or the
    /// first part of `[field.rating]`), else a key. `valid` are the table's keys, and
    /// those of them that are tables.
    fn unknown(
        &mut self,
        scope: &Scope,
        key: &Spanned<DeString<'_>>,
        value: &Spanned<DeValue<'_>>,
        (valid, tables): (&[&str], &[&str]),
    ) {
        let mut headers = Vec::new();
        self.headers(value, &mut headers);
        if headers.is_empty() {
            // A key of another table, written in this one (`fallback` under [listing]).
            let here = if scope.depth == 0 { "" } else { scope.path.as_str() };
            let here = if here.starts_with("fields.") { "fields.NAME" } else { here };
            let homes = homes(key.get_ref(), here);
            let message = explain::unknown_key(key.get_ref(), scope.name.as_deref(), valid, &homes);
            self.found.push((key.span(), message));
        }
        // A header names a table: the tables are what it may have meant.
        for (span, name) in headers {
            let header = &self.text[name.clone()];
            // The unknown key's part of the header, when it can be told apart.
            let part = part(header, scope.depth)
                .filter(|p| header[p.clone()].trim_matches(['"', '\'']) == key.get_ref().as_ref());
            let own = span == value.span();
            let message = match (tables.is_empty(), &scope.name) {
                // `[listing.sort]`: [listing] has keys only.
                (true, Some(table)) => {
                    explain::in_a_table_of_keys(header, key.get_ref(), table, valid)
                }
                _ => explain::unknown_table(header, key.get_ref(), part.clone(), own, tables),
            };
            // At the key in the header, else at the header.
            let start = part.map_or(span.start, |p| name.start + p.start);
            self.found.push((start..span.end, message));
        }
    }

    /// The `[headers]` in `value` (their spans and the bytes of their names): its own,
    /// then those of the tables below it.
    fn headers(&self, value: &Spanned<DeValue<'_>>, out: &mut Vec<(Range<usize>, Range<usize>)>) {
        let DeValue::Table(table) = value.get_ref() else { return };
        if let Some(name) = self.header(value) {
            out.push((value.span(), name));
        }
        for value in table.values() {
            self.headers(value, out);
        }
    }

    /// The bytes of the name a table's `[header]` gives it, when it has one (`[[x]]` is
    /// none): the span of a table defined by its header is the header.
    fn header(&self, value: &Spanned<DeValue<'_>>) -> Option<Range<usize>> {
        if !value.get_ref().is_table() {
            return None;
        }
        let span = value.span();
        let written = self.text.get(span.clone())?;
        let inner = written.strip_prefix('[')?.strip_suffix(']')?;
        let name = inner.trim();
        let start = span.start + 1 + (inner.len() - inner.trim_start().len());
        (!name.is_empty() && !name.starts_with('[')).then_some(start..start + name.len())
    }
}

/// The bytes of the `depth`-th dotted part (from 0) of a header's name, without the
/// spaces around it.
fn part(header: &str, depth: usize) -> Option<Range<usize>> {
    let mut start = 0;
    for (i, piece) in header.split('.').enumerate() {
        if i == depth {
            let lead = piece.len() - piece.trim_start().len();
            return Some(start + lead..start + piece.trim_end().len());
        }
        start += piece.len() + 1;
    }
    None
}
