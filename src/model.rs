//! Domain types with no IO: record ids, typed sort values, and a loaded record in the
//! compact form the writer joins into pages (its item pre-serialized per language).

use std::cmp::Ordering;
use std::fmt;

/// A record's `id`: an integer or a string. Integers order before strings.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Id {
    Int(i64),
    Str(Box<str>),
}

impl fmt::Display for Id {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Id::Int(i) => write!(f, "{i}"),
            Id::Str(s) => write!(f, "{s:?}"),
        }
    }
}

/// A typed value a listing can be sorted by.
#[derive(Debug, Clone, PartialEq)]
pub enum SortValue {
    Null,
    Bool(bool),
    Int(i64),
    Num(f64),
    Str(Box<str>),
}

impl SortValue {
    /// The type name used in "mixes types" messages; integers and numbers are one kind.
    pub fn kind(&self) -> Option<&'static str> {
        match self {
            SortValue::Null => None,
            SortValue::Bool(_) => Some("boolean"),
            SortValue::Int(_) | SortValue::Num(_) => Some("number"),
            SortValue::Str(_) => Some("string"),
        }
    }

    /// Orders two values of one kind; nulls go last whatever the direction.
    pub fn compare(&self, other: &SortValue, descending: bool) -> Ordering {
        use SortValue::*;
        let ord = match (self, other) {
            (Null, Null) => return Ordering::Equal,
            (Null, _) => return Ordering::Greater,
            (_, Null) => return Ordering::Less,
            (Bool(a), Bool(b)) => a.cmp(b),
            (Int(a), Int(b)) => a.cmp(b),
            (Int(a), Num(b)) => (*a as f64).total_cmp(b),
            (Num(a), Int(b)) => a.total_cmp(&(*b as f64)),
            (Num(a), Num(b)) => a.total_cmp(b),
            // Strings compare by code point, which is UTF-8 byte order.
            (Str(a), Str(b)) => a.as_bytes().cmp(b.as_bytes()),
            // Mixed kinds are rejected before sorting; keep the order total anyway.
            (a, b) => a.rank().cmp(&b.rank()),
        };
        if descending { ord.reverse() } else { ord }
    }

    fn rank(&self) -> u8 {
        match self {
            SortValue::Null => 4,
            SortValue::Bool(_) => 0,
            SortValue::Int(_) | SortValue::Num(_) => 1,
            SortValue::Str(_) => 2,
        }
    }
}

/// A value that is either the same for every language or one per configured language.
#[derive(Debug, Clone, PartialEq)]
pub enum PerLang<T> {
    Shared(T),
    Each(Box<[T]>),
}

impl<T> PerLang<T> {
    pub fn get(&self, lang: usize) -> &T {
        match self {
            PerLang::Shared(v) => v,
            PerLang::Each(v) => &v[lang],
        }
    }
}

/// Where a record came from: the walk index of its file and the line it starts on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    pub file: usize,
    pub line: u64,
}

/// A loaded, validated record. Its item is kept as JSON fragments (`"key":value`, with
/// the separating commas) so a page is built by copying bytes, never by re-serializing.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub origin: Origin,
    pub id: Id,
    /// One entry per `sort` key, in config order.
    pub keys: Vec<PerLang<SortValue>>,
    pub body: Vec<PerLang<Box<[u8]>>>,
}

impl Record {
    /// Appends the record's item in language `lang` as one JSON object.
    pub fn write_item(&self, lang: usize, out: &mut Vec<u8>) {
        out.push(b'{');
        for seg in &self.body {
            out.extend_from_slice(seg.get(lang));
        }
        out.push(b'}');
    }

    /// The item's size in bytes in language `lang`.
    pub fn item_len(&self, lang: usize) -> usize {
        2 + self.body.iter().map(|s| s.get(lang).len()).sum::<usize>()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nulls_sort_last_in_both_directions() {
        let a = SortValue::Int(1);
        assert_eq!(a.compare(&SortValue::Null, false), Ordering::Less);
        assert_eq!(a.compare(&SortValue::Null, true), Ordering::Less);
        assert_eq!(SortValue::Null.compare(&a, true), Ordering::Greater);
        assert_eq!(a.compare(&SortValue::Num(0.5), true), Ordering::Less);
    }

    #[test]
    fn strings_compare_by_code_point() {
        let s = |x: &str| SortValue::Str(x.into());
        assert_eq!(s("Z").compare(&s("a"), false), Ordering::Less);
        assert_eq!(s("é").compare(&s("z"), false), Ordering::Greater);
        assert_eq!(s("\u{ff61}").compare(&s("\u{10000}"), false), Ordering::Less);
    }

    #[test]
    fn item_is_fragments_joined_in_braces() {
        let r = Record {
            origin: Origin { file: 0, line: 1 },
            id: Id::Int(1),
            keys: vec![],
            body: vec![
                PerLang::Shared(b"\"id\":1".to_vec().into()),
                PerLang::Each(
                    vec![b",\"n\":\"a\"".to_vec().into(), b",\"n\":\"b\"".to_vec().into()].into(),
                ),
            ],
        };
        let mut out = Vec::new();
        r.write_item(1, &mut out);
        assert_eq!(out, b"{\"id\":1,\"n\":\"b\"}");
        assert_eq!(r.item_len(1), out.len());
    }
}
