//! A JSON record parsed as serde_json would, but refusing an object that repeats a key
//! (`{"x": 1, "x": 2}`): serde_json keeps the last without a word, and a record would lose
//! a value its file holds.

use std::borrow::Cow;
use std::collections::HashSet;

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::Number;

use super::tree::{Json, Obj};

thread_local! {
    /// Set when a parse on this thread met a number that is no 64-bit integer (one that
    /// went to a float), which is when the record's text is worth reading for digits a
    /// float drops ([`super::exact`]).
    static FLOAT: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

thread_local! {
    /// Set when a float was zero or subnormal: where a short literal (`1e-400`,
    /// `2.5e-324`) may have lost its value, which no count of digits shows.
    static SMALL: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// What the last parse on this thread met: a number that went to a float, and one that
/// went to zero or a subnormal float (both are cleared).
pub fn took_a_float() -> (bool, bool) {
    (FLOAT.with(|f| f.replace(false)), SMALL.with(|f| f.replace(false)))
}

/// A record's JSON value ([`Json`]) whose objects have no repeated key, its strings and
/// keys borrowed from the text where they hold no escape.
pub struct Unique<'a>(pub Json<'a>);

impl<'de> Deserialize<'de> for Unique<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Unique<'de>, D::Error> {
        d.deserialize_any(UniqueVisitor).map(Unique)
    }
}

/// An object's key, borrowed from the text when it holds no escape.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Key<'de>, D::Error> {
        d.deserialize_str(KeyVisitor).map(Key)
    }
}

struct KeyVisitor;

impl<'de> Visitor<'de> for KeyVisitor {
    type Value = Cow<'de, str>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a key")
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Borrowed(v))
    }
    fn visit_str<E>(self, v: &str) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Cow<'de, str>, E> {
        Ok(Cow::Owned(v))
    }
}

/// Keys of an object are compared one by one up to this many; past it, through a set
/// (a file may hold an object of a million keys).
const FEW_KEYS: usize = 16;

struct UniqueVisitor;

impl<'de> Visitor<'de> for UniqueVisitor {
    type Value = Json<'de>;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Json<'de>, E> {
        Ok(Json::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Json<'de>, E> {
        Ok(Json::Number(v.into()))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Json<'de>, E> {
        Ok(Json::Number(v.into()))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Json<'de>, E> {
        FLOAT.with(|f| f.set(true));
        if v == 0.0 || v.is_subnormal() {
            SMALL.with(|f| f.set(true));
        }
        Ok(Number::from_f64(v).map_or(Json::Null, Json::Number))
    }
    fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Borrowed(v)))
    }
    fn visit_str<E>(self, v: &str) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(v.to_string())))
    }
    fn visit_string<E>(self, v: String) -> Result<Json<'de>, E> {
        Ok(Json::String(Cow::Owned(v)))
    }
    fn visit_unit<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }
    fn visit_none<E>(self) -> Result<Json<'de>, E> {
        Ok(Json::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Json<'de>, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(Unique(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Json::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Json<'de>, A::Error> {
        let mut out: Vec<(Cow<'de, str>, Json<'de>)> = Vec::new();
        let mut many: Option<HashSet<Cow<'de, str>>> = None;
        while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
            let repeated = match &mut many {
                Some(set) => !set.insert(key.clone()),
                None if out.len() < FEW_KEYS => out.iter().any(|(k, _)| *k == key),
                None => {
                    let set = many.insert(out.iter().map(|(k, _)| k.clone()).collect());
                    !set.insert(key.clone())
                }
            };
            if repeated {
                return Err(de::Error::custom(format_args!(
                    "the key `{key}` appears twice in one object (a JSON reader keeps one of the two values; say which you mean)"
                )));
            }
            let Unique(v) = map.next_value()?;
            out.push((key, v));
        }
        Ok(Json::Object(Obj(out)))
    }
}

/// Parses one JSON value of `text`, its strings borrowed from it where they can be.
pub fn parse(text: &str) -> Result<Json<'_>, serde_json::Error> {
    serde_json::from_str::<Unique>(text).map(|u| u.0)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An object of `n` keys `k0`…, then `extra` keys, as JSON text.
    fn object(n: usize, extra: &[&str]) -> String {
        let keys = (0..n).map(|i| format!("k{i}")).chain(extra.iter().map(|k| k.to_string()));
        let entries: Vec<String> = keys.map(|k| format!("\"{k}\": 1")).collect();
        format!("{{{}}}", entries.join(", "))
    }

    #[test]
    fn a_repeated_key_is_refused_among_few_keys_and_among_many() {
        for n in [1, FEW_KEYS - 1, FEW_KEYS, FEW_KEYS + 1, 1000] {
            let text = object(n, &[]);
            let Ok(Json::Object(obj)) = parse(&text) else { panic!("{n} keys") };
            assert_eq!(obj.keys().collect::<Vec<_>>().len(), n);
            assert_eq!(obj.keys().last(), Some(format!("k{}", n - 1).as_str()));
            // The repeat of the first key and of the last, and one written with an escape
            // (`\u006b0` is `k0`): each named, with the place where it is read.
            for repeat in ["\"k0\"", &format!("\"k{}\"", n - 1), "\"\\u006b0\""] {
                let text = object(n, &[]).replacen('}', &format!(", {repeat}: 2}}"), 1);
                let err = parse(&text).map(|_| ()).unwrap_err().to_string();
                let key =
                    if repeat.contains('\\') { "k0".to_string() } else { repeat.replace('"', "") };
                assert!(err.contains(&format!("the key `{key}` appears twice")), "{n}: {err}");
            }
        }
        // Nested objects are checked too, and the same key in two objects is no repeat.
        assert!(parse(r#"{"a": {"x": 1, "x": 2}}"#).is_err());
        assert!(parse(r#"{"a": {"x": 1}, "b": {"x": 1}}"#).is_ok());
    }

    #[test]
    fn strings_and_keys_are_borrowed_unless_they_hold_an_escape() {
        let Ok(Json::Object(obj)) = parse(r#"{"plain": "text", "esc\u0061ped": "a\nb"}"#) else {
            panic!()
        };
        let entries: Vec<_> = obj.iter().collect();
        assert!(matches!(
            entries[0],
            (Cow::Borrowed("plain"), Json::String(Cow::Borrowed("text")))
        ));
        assert!(matches!(entries[1].0, Cow::Owned(k) if k == "escaped"));
        assert!(matches!(entries[1].1, Json::String(Cow::Owned(s)) if s == "a\nb"));
    }
}
