//! Turns one parsed record (a JSON object, from any loader) into a [`Record`]: checks
//! declared types and `required`, resolves localized fields per language with the
//! configured fallback, computes sort keys, applies the `fields` projection and
//! pre-serializes the item. Pure: no IO, problems are returned, not printed.

use std::borrow::Cow;
use std::sync::atomic::{AtomicBool, Ordering};

use super::tree::{Json, Obj};
use crate::config::{Fallback, FieldType, Project};
use crate::diag::Problem;
use crate::model::{Id, Origin, PerLang, Record, SortValue};

/// A problem with one field of a record; the loader places it (file and line).
fn problem(field: &str, message: impl Into<String>) -> Problem {
    Problem::unplaced(None, message).with_field(field)
}

/// What resolving one record found besides the record itself.
#[derive(Debug, Default)]
pub struct Findings {
    /// Problems with the record, without their file and line.
    pub problems: Vec<Problem>,
    /// `(language index, field)` for every translation that was missing.
    pub missing: Vec<(usize, String)>,
    /// Undeclared fields whose value looks like a language map.
    pub looks_localized: Vec<String>,
    /// `(language, field)` of values of a localized field in a language that is not
    /// configured (not published).
    pub other_languages: Vec<(String, String)>,
    /// The id of a record refused for other problems, when it has a valid one: it is
    /// still checked to be unique, and names the record in a line of many.
    pub id: Option<Id>,
}

/// A value in a language the config does not list, said once per language.
pub fn other_language(lang: &str, languages: &[String]) -> String {
    if !crate::config::is_known_language(lang) {
        // `sp` for `es`: a code that is no language is warned too, with the nearest one.
        let hint = crate::diag::did_you_mean(lang, languages.iter().map(String::as_str));
        return format!(
            "has values in `{lang}`, which is no language (its first part is no ISO 639 code) and not in [listing] languages ({}): they are not published{hint}",
            languages.join(", ")
        );
    }
    format!(
        "has values in `{lang}`, which is not in [listing] languages ({}): they are not published; add `{lang}` to languages to publish them",
        languages.join(", ")
    )
}

/// The config, indexed for per-record work.
pub struct Resolver<'a> {
    project: &'a Project,
    /// `listing.sort` keys and `listing.fields` entries that `[fields]` does not declare
    /// (`id` aside): (config key, field, whether some record has it). A name no record has
    /// and the schema does not know is a typo, reported once the whole data set is read.
    undeclared: Vec<(String, String, AtomicBool)>,
    /// The field names of the first records (nested objects as dotted paths), kept only
    /// while an undeclared name is unseen: what a typo is compared with.
    sampled: std::sync::Mutex<(usize, std::collections::BTreeSet<String>)>,
}

/// Records whose field names [`Resolver::field_names`] keeps.
const SAMPLED: usize = 200;

/// Shows a JSON value briefly inside a message.
pub fn brief(v: &Json) -> String {
    let s = v.to_string();
    if s.chars().count() > 40 {
        format!("{}…", s.chars().take(39).collect::<String>())
    } else {
        s
    }
}

/// The id a value is, when it is one: an integer, or a non-empty string.
pub fn id_of(v: &Json) -> Option<Id> {
    match v {
        Json::Number(n) => n.as_i64().map(Id::Int),
        Json::String(s) if !s.is_empty() => Some(Id::Str(s.as_ref().into())),
        _ => None,
    }
}

fn type_name(v: &Json) -> &'static str {
    match v {
        Json::Null => "null",
        Json::Bool(_) => "a boolean",
        Json::Number(n) if n.is_i64() || n.is_u64() => "an integer",
        Json::Number(_) => "a number",
        Json::String(_) => "a string",
        Json::Array(_) => "a list",
        Json::Object(_) => "an object",
    }
}

/// Checks a non-null JSON value against a declared type, without coercion.
pub fn check_type(v: &Json, kind: FieldType) -> Result<(), String> {
    let ok = match kind {
        FieldType::String => v.is_string(),
        FieldType::Integer => v.is_i64(),
        FieldType::Number => v.is_number(),
        FieldType::Boolean => v.is_boolean(),
        FieldType::List => v.is_array(),
        FieldType::Json => true,
        FieldType::Date | FieldType::Datetime => v.as_str().is_some_and(|s| kind.is_date_value(s)),
    };
    if ok {
        return Ok(());
    }
    if kind == FieldType::Integer && v.is_u64() {
        return Err(format!(
            "{} is outside the range of an integer ({}..={}): declare no type to keep it as written",
            brief(v),
            i64::MIN,
            i64::MAX
        ));
    }
    let hint = v.as_str().and_then(|s| super::dates::hint(kind, s)).map(|h| format!("; {h}"));
    Err(format!(
        "expected {}, found {} ({}){}",
        article(kind),
        type_name(v),
        brief(v),
        hint.unwrap_or_default()
    ))
}

fn article(kind: FieldType) -> &'static str {
    match kind {
        FieldType::String => "a string",
        FieldType::Integer => "an integer",
        FieldType::Number => "a number",
        FieldType::Boolean => "a boolean",
        FieldType::List => "a list",
        FieldType::Json => "a JSON value",
        FieldType::Date => "a date (YYYY-MM-DD, a real day)",
        FieldType::Datetime => "a date-time (RFC 3339 with its offset, like 2026-11-26T09:30:00Z)",
    }
}

fn is_missing(v: Option<&Json>) -> bool {
    matches!(v, None | Some(Json::Null)) || v.and_then(Json::as_str).is_some_and(str::is_empty)
}

fn lookup<'o, 'v>(obj: &'o Obj<'v>, dotted: &str) -> Option<&'o Json<'v>> {
    let mut parts = dotted.split('.');
    let mut cur = obj.get(parts.next()?)?;
    for p in parts {
        cur = cur.as_object()?.get(p)?;
    }
    Some(cur)
}

fn to_sort_value(v: Option<&Json>) -> Result<SortValue, &'static str> {
    Ok(match v {
        None | Some(Json::Null) => SortValue::Null,
        Some(Json::Bool(b)) => SortValue::Bool(*b),
        Some(Json::Number(n)) => match n.as_i64() {
            Some(i) => SortValue::Int(i),
            None => SortValue::Num(n.as_f64().unwrap_or(f64::NAN)),
        },
        Some(Json::String(s)) => SortValue::Str(s.as_ref().into()),
        Some(Json::Array(_)) => return Err("a list"),
        Some(Json::Object(_)) => return Err("an object"),
    })
}

/// Collapses per-language values that are all equal into one shared value.
fn collapse<T: PartialEq>(each: Vec<T>) -> PerLang<T> {
    if each.windows(2).all(|w| w[0] == w[1]) && !each.is_empty() {
        PerLang::Shared(each.into_iter().next().expect("checked non-empty"))
    } else {
        PerLang::Each(each.into_boxed_slice())
    }
}

thread_local! {
    /// The item builder of this thread's records ([`Resolver::resolve`]).
    static BUILDER: std::cell::RefCell<crate::model::ItemBuilder> =
        std::cell::RefCell::new(crate::model::ItemBuilder::default());
}

impl<'a> Resolver<'a> {
    pub fn new(project: &'a Project) -> Self {
        // Each entry as config's places name it (`listing.sort[1]`).
        let sort =
            project.sort.iter().enumerate().map(|(i, k)| (format!("listing.sort[{i}]"), &k.field));
        let fields =
            project.fields.iter().enumerate().map(|(i, f)| (format!("listing.fields[{i}]"), f));
        let mut undeclared: Vec<(String, String, AtomicBool)> = Vec::new();
        for (entry, field) in sort.chain(fields) {
            let known = field == "id" || project.schema.contains_key(field.as_str());
            let list = |e: &str| e.split('[').next().unwrap_or(e).to_string();
            let said = undeclared.iter().any(|(e, f, _)| list(e) == list(&entry) && f == field);
            if !known && !said {
                undeclared.push((entry, field.clone(), AtomicBool::new(false)));
            }
        }
        Resolver { project, undeclared, sampled: Default::default() }
    }

    /// The field names of the first records and `[fields]`' (see `sampled`).
    pub fn field_names(&self) -> std::collections::BTreeSet<String> {
        let mut names = self.sampled.lock().unwrap_or_else(|p| p.into_inner()).1.clone();
        names.extend(self.project.schema.keys().cloned());
        names
    }

    fn sample(&self, obj: &Obj) {
        fn walk(prefix: &str, map: &Obj, out: &mut std::collections::BTreeSet<String>) {
            for (key, value) in map.iter() {
                let path =
                    if prefix.is_empty() { key.to_string() } else { format!("{prefix}.{key}") };
                if let Json::Object(inner) = value {
                    walk(&path, inner, out);
                }
                out.insert(path);
            }
        }
        let mut sampled = self.sampled.lock().unwrap_or_else(|p| p.into_inner());
        if sampled.0 < SAMPLED {
            sampled.0 += 1;
            walk("", obj, &mut sampled.1);
        }
    }

    /// Call it after the last record. The fields of `sort` and `fields` that no record had and `[fields]` does not
    /// declare: the entry that names each (`listing.sort[1]`), and the field.
    pub fn unknown_fields(&self) -> Vec<(&str, &str)> {
        (self.undeclared.iter())
            .filter(|(_, _, seen)| !seen.load(Ordering::Relaxed))
            .map(|(entry, field, _)| (entry.as_str(), field.as_str()))
            .collect()
    }

    pub fn project(&self) -> &'a Project {
        self.project
    }

    /// The configured language `key` names, in any ASCII case (no allocation: it runs for
    /// every key of every localized value).
    pub fn lang_index(&self, key: &str) -> Option<usize> {
        let lower = |l: &&String| {
            l.len() == key.len()
                && l.bytes().zip(key.bytes()).all(|(a, b)| a == b.to_ascii_lowercase())
        };
        self.project.shape.languages.iter().position(|l| lower(&l))
    }

    fn localized(&self, field: &str) -> bool {
        self.project.schema.get(field).is_some_and(|s| s.localized)
    }

    /// Resolves one record. On problems, returns them all (and no record).
    /// A CSV header names its fields before any row is read: an undeclared name among
    /// them is no typo, whatever becomes of the rows (each may have a problem of its own,
    /// which must not bring a false "no record has the field" with it).
    pub fn seen_in_header(&self, header: &[String]) {
        for (_, field, seen) in &self.undeclared {
            let named = header.iter().any(|column| {
                column == field
                    || column.strip_prefix(field.as_str()).is_some_and(|rest| rest.starts_with('.'))
            });
            if named {
                seen.store(true, Ordering::Relaxed);
            }
        }
    }

    pub fn resolve(&self, obj: Obj<'_>, origin: Origin, found: &mut Findings) -> Option<Record> {
        let before = found.problems.len();
        let p = self.project;
        let n_langs = p.shape.languages.len();
        let mut unseen = false;
        for (_, field, seen) in &self.undeclared {
            if !seen.load(Ordering::Relaxed) {
                if lookup(&obj, field).is_some() {
                    seen.store(true, Ordering::Relaxed);
                } else {
                    unseen = true;
                }
            }
        }
        if unseen {
            self.sample(&obj);
        }

        let id = match obj.get("id") {
            None | Some(Json::Null) => {
                found.problems.push(problem("id", "is required"));
                None
            }
            Some(Json::Number(n)) if n.is_i64() => Some(Id::Int(n.as_i64().expect("is_i64"))),
            Some(Json::String(s)) if !s.is_empty() => Some(Id::Str(s.as_ref().into())),
            Some(v) => {
                found.problems.push(problem(
                    "id",
                    format!("must be an integer or a non-empty string, found {}", brief(v)),
                ));
                None
            }
        };

        for (name, spec) in &p.schema {
            if name == "id" && id.is_none() {
                continue; // already reported above
            }
            let value = lookup(&obj, name);
            if spec.required && is_missing(value) {
                found.problems.push(problem(name, "is required"));
            } else if spec.required
                && spec.localized
                && let Some(Json::Object(map)) = value
            {
                // A required localized field needs its default language's value: the
                // other languages fall back to it.
                let default =
                    map.iter().find(|(l, _)| self.lang_index(l) == Some(p.shape.default_language));
                if is_missing(default.map(|(_, v)| v)) {
                    let lang = &p.shape.languages[p.shape.default_language];
                    found.problems.push(problem(
                        name,
                        format!("is required in {lang}, the default language"),
                    ));
                }
            }
            let (Some(kind), Some(v)) = (spec.kind, value) else { continue };
            let mut check = |v: &Json, what: String| {
                if !v.is_null()
                    && let Err(msg) = check_type(v, kind)
                {
                    found.problems.push(problem(&what, msg).with_value(brief(v)));
                }
            };
            match v {
                Json::Object(map) if spec.localized => {
                    for (lang, v) in map.iter() {
                        if self.lang_index(lang).is_some() {
                            check(v, format!("{name}.{lang}"));
                        }
                    }
                }
                v => check(v, name.clone()),
            }
        }

        // Resolve each top-level field per language, in source order.
        let mut resolved: Vec<(Cow<str>, PerLang<Json>)> = Vec::with_capacity(obj.len());
        for (key, value) in obj.0 {
            if self.localized(&key) {
                let mut each: Vec<Option<Json>> = vec![None; n_langs];
                match value {
                    Json::Object(map) => {
                        let mut keys: Vec<Option<Cow<str>>> = vec![None; n_langs];
                        for (lang, v) in map.0 {
                            match self.lang_index(&lang) {
                                Some(i) if keys[i].is_some() => {
                                    let first = keys[i].as_deref().unwrap_or_default();
                                    found.problems.push(problem(
                                        &key,
                                        format!(
                                            "has `{first}` and `{lang}`, one language in two cases (language codes are read in any case): keep one of the two"
                                        ),
                                    ));
                                }
                                Some(i) => {
                                    keys[i] = Some(lang);
                                    each[i] = Some(v);
                                }
                                None => {
                                    let lang = lang.to_ascii_lowercase();
                                    found.other_languages.push((lang, key.to_string()));
                                }
                            }
                        }
                    }
                    shared => each.iter_mut().for_each(|slot| *slot = Some(shared.clone())),
                }
                let default = Some(p.shape.default_language)
                    .filter(|&d| !is_missing(each[d].as_ref()))
                    .and_then(|d| each[d].clone());
                let mut values = Vec::with_capacity(n_langs);
                for (i, v) in each.into_iter().enumerate() {
                    if !is_missing(v.as_ref()) {
                        values.push(v.expect("not missing"));
                        continue;
                    }
                    found.missing.push((i, key.to_string()));
                    values.push(match p.fallback {
                        Fallback::Default => default.clone().unwrap_or(Json::Null),
                        Fallback::Null => Json::Null,
                        Fallback::Error => {
                            found.problems.push(problem(
                                &key,
                                format!("missing \"{}\" translation", p.shape.languages[i]),
                            ));
                            Json::Null
                        }
                    });
                }
                resolved.push((key, collapse(values)));
            } else {
                if let Json::Object(map) = &value
                    && !p.schema.contains_key(key.as_ref())
                    && !map.is_empty()
                    && map.keys().all(|k| self.lang_index(k).is_some())
                {
                    found.looks_localized.push(key.to_string());
                }
                resolved.push((key, PerLang::Shared(value)));
            }
        }

        let mut keys = Vec::with_capacity(p.sort.len());
        for sort in &p.sort {
            let (top, rest) = match sort.field.split_once('.') {
                Some((t, r)) => (t, Some(r)),
                None => (sort.field.as_str(), None),
            };
            let field = resolved.iter().find(|(k, _)| k == top).map(|(_, v)| v);
            // A date-time sorts by its instant (offsets differ); a date by its text.
            let kind = p.schema.get(&sort.field).and_then(|s| s.kind);
            let value_in = |v: &Json| -> Result<SortValue, &'static str> {
                let value = match rest {
                    None => to_sort_value(Some(v)),
                    Some(r) => to_sort_value(v.as_object().and_then(|o| lookup(o, r))),
                }?;
                Ok(match (&value, kind) {
                    (SortValue::Str(s), Some(k)) => k.instant(s).map_or(value, SortValue::Int),
                    _ => value,
                })
            };
            let key = match field {
                None => Ok(PerLang::Shared(SortValue::Null)),
                Some(PerLang::Shared(v)) => value_in(v).map(PerLang::Shared),
                Some(PerLang::Each(vs)) => {
                    vs.iter().map(value_in).collect::<Result<Vec<_>, _>>().map(collapse)
                }
            };
            match key {
                Ok(k) => keys.push(k),
                Err(what) => {
                    found.problems.push(problem(&sort.field, format!("cannot sort by {what}")))
                }
            }
        }

        if found.problems.len() > before {
            found.id = id;
            return None;
        }

        // One builder a thread, reused: a new one a record grew its buffers from empty
        // each time, and those reallocations faulted in fresh memory (a tenth of a
        // build's time in `perf`).
        let body = BUILDER.with_borrow_mut(|body| {
            let mut first = true;
            for (key, value) in &resolved {
                if !p.fields.is_empty() && !p.fields.iter().any(|f| f == key) {
                    continue;
                }
                let frag = |v: &Json, out: &mut Vec<u8>| {
                    if !first {
                        out.push(b',');
                    }
                    super::emit::text(key, out);
                    out.push(b':');
                    super::emit::value(v, out);
                };
                match value {
                    PerLang::Shared(v) => body.shared_with(|out| frag(v, out)),
                    PerLang::Each(vs) => body.each_with(vs.len(), |i, out| frag(&vs[i], out)),
                }
                first = false;
            }
            body.finish()
        });

        Some(Record { origin, id: id.expect("a missing id is a problem"), keys, body })
    }
}

/// Values in a language the config does not list: warned once per data set, at the first
/// file and line that has them.
#[derive(Debug)]
pub struct Unlisted {
    pub lang: String,
    pub warning: Problem,
}

#[cfg(test)]
mod tests;
