//! A parsed record as the resolver reads it: JSON values whose strings and keys borrow
//! the file's text where it holds them as they are (no escape), and objects as their
//! entries in the file's order. A `serde_json::Value` copies every string and hashes
//! every key into an index; a record is read once, front to back, and has a dozen keys,
//! so neither pays (`unique.rs` parses into this; CSV rows are assembled into it).

use std::borrow::Cow;

use serde_json::{Number, Value};

/// One JSON value of a record.
#[derive(Debug, Clone, PartialEq)]
pub enum Json<'a> {
    Null,
    Bool(bool),
    Number(Number),
    String(Cow<'a, str>),
    Array(Vec<Json<'a>>),
    Object(Obj<'a>),
}

/// A JSON object: its entries in the order written, no key twice (the parser refuses a
/// repeated key). Equal to another with the same entries in the same order: a value
/// published for two languages is shared only when it would be written alike.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Obj<'a>(pub Vec<(Cow<'a, str>, Json<'a>)>);

impl<'a> Obj<'a> {
    pub fn get(&self, key: &str) -> Option<&Json<'a>> {
        self.0.iter().find(|(k, _)| k == key).map(|(_, v)| v)
    }

    pub fn iter(&self) -> impl Iterator<Item = (&Cow<'a, str>, &Json<'a>)> {
        self.0.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.0.iter().map(|(k, _)| k.as_ref())
    }

    pub fn len(&self) -> usize {
        self.0.len()
    }

    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// An owned value: a CSV cell converted by `serde_json`, an id of a refused row.
impl From<Value> for Json<'static> {
    fn from(v: Value) -> Json<'static> {
        match v {
            Value::Null => Json::Null,
            Value::Bool(b) => Json::Bool(b),
            Value::Number(n) => Json::Number(n),
            Value::String(s) => Json::String(Cow::Owned(s)),
            Value::Array(items) => Json::Array(items.into_iter().map(Json::from).collect()),
            Value::Object(map) => {
                Json::Object(Obj(map.into_iter().map(|(k, v)| (Cow::Owned(k), v.into())).collect()))
            }
        }
    }
}

impl<'a> Json<'a> {
    pub fn is_null(&self) -> bool {
        matches!(self, Json::Null)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Json::String(s) => Some(s),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Obj<'a>> {
        match self {
            Json::Object(o) => Some(o),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Json::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Json::String(_))
    }

    pub fn is_i64(&self) -> bool {
        matches!(self, Json::Number(n) if n.is_i64())
    }

    pub fn is_u64(&self) -> bool {
        matches!(self, Json::Number(n) if n.is_u64())
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Json::Number(_))
    }

    pub fn is_boolean(&self) -> bool {
        matches!(self, Json::Bool(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Json::Array(_))
    }
}
