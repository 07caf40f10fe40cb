//! A JSON record parsed as serde_json would, but refusing an object that repeats a key
//! (`{"x": 1, "x": 2}`): serde_json keeps the last without a word, and a record would lose
//! a value its file holds.

use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

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

/// A [`Value`] whose objects have no repeated key.
pub struct Unique(pub Value);

impl<'de> Deserialize<'de> for Unique {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Unique, D::Error> {
        d.deserialize_any(UniqueVisitor).map(Unique)
    }
}

struct UniqueVisitor;

impl<'de> Visitor<'de> for UniqueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a JSON value")
    }

    fn visit_bool<E>(self, v: bool) -> Result<Value, E> {
        Ok(Value::Bool(v))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Value, E> {
        Ok(Value::from(v))
    }
    fn visit_f64<E>(self, v: f64) -> Result<Value, E> {
        FLOAT.with(|f| f.set(true));
        if v == 0.0 || v.is_subnormal() {
            SMALL.with(|f| f.set(true));
        }
        Ok(serde_json::Number::from_f64(v).map_or(Value::Null, Value::Number))
    }
    fn visit_str<E>(self, v: &str) -> Result<Value, E> {
        Ok(Value::String(v.to_string()))
    }
    fn visit_string<E>(self, v: String) -> Result<Value, E> {
        Ok(Value::String(v))
    }
    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut out = Vec::with_capacity(seq.size_hint().unwrap_or(0));
        while let Some(Unique(v)) = seq.next_element()? {
            out.push(v);
        }
        Ok(Value::Array(out))
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut out = Map::new();
        while let Some(key) = map.next_key::<String>()? {
            match out.entry(key) {
                serde_json::map::Entry::Occupied(e) => {
                    return Err(de::Error::custom(format_args!(
                        "the key `{}` appears twice in one object (a JSON reader keeps one of the two values; say which you mean)",
                        e.key()
                    )));
                }
                serde_json::map::Entry::Vacant(e) => {
                    let Unique(v) = map.next_value()?;
                    e.insert(v);
                }
            }
        }
        Ok(Value::Object(out))
    }
}
