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

/// Where a record came from: the walk index of its file and the line it starts on, and
/// its place in a line it shares with other records (a one-line JSON array).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Origin {
    pub file: usize,
    pub line: u64,
    pub element: Option<Element>,
}

/// A JSON array's element that shares its line: its index in the array (from 0) and the
/// column its `{` is at (from 1), each saturating at `u32::MAX`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Element {
    pub index: u32,
    pub column: u32,
}

impl Element {
    pub fn new(index: u64, column: u64) -> Element {
        let small = |n: u64| u32::try_from(n).unwrap_or(u32::MAX);
        Element { index: small(index), column: small(column) }
    }
}

/// A loaded, validated record. Its item is kept as JSON fragments (`"key":value`, with
/// the separating commas) so a page is built by copying bytes, never by re-serializing.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    pub origin: Origin,
    pub id: Id,
    /// One entry per `sort` key, in config order.
    pub keys: Vec<PerLang<SortValue>>,
    pub body: Item,
}

impl Record {
    /// Hints the CPU to start loading this record (not its item's bytes, which a load of
    /// the record itself gives the address of: [`Item::prefetch`]).
    #[inline]
    pub fn prefetch(&self) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            // SAFETY: as in `Item::prefetch`.
            unsafe { _mm_prefetch::<_MM_HINT_T0>((self as *const Record).cast()) }
        }
    }

    /// Appends the record's item in language `lang` as one JSON object.
    pub fn write_item(&self, lang: usize, out: &mut Vec<u8>) {
        out.push(b'{');
        self.body.write(lang, out);
        out.push(b'}');
    }

    /// The item's size in bytes in language `lang`.
    pub fn item_len(&self, lang: usize) -> usize {
        let mut len = 2;
        self.body.each_fragment(lang, |f| len += f.len());
        len
    }
}

/// Marks an entry of [`Item::ends`] that starts a run of one fragment per language; its
/// low bits are the number of languages.
const EACH: u32 = 1 << 31;

/// A record's item as JSON fragments in two allocations (the bytes and where each
/// fragment ends), in field order: a fragment the same in every language once, a
/// localized one once per language. Writing a page copies a few runs of one contiguous
/// buffer per record, not many small allocations.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Item {
    bytes: Box<[u8]>,
    /// Per run: a shared run is its end in `bytes`; a localized run is `EACH | n`, then
    /// the end of each of its `n` languages' fragments.
    ends: Box<[u32]>,
}

impl Item {
    /// Calls `f` with the fragments of language `lang`, in order.
    fn each_fragment(&self, lang: usize, mut f: impl FnMut(&[u8])) {
        let (mut start, mut i) = (0usize, 0usize);
        while let Some(&end) = self.ends.get(i) {
            if end & EACH == 0 {
                f(&self.bytes[start..end as usize]);
                start = end as usize;
                i += 1;
            } else {
                let n = (end & !EACH) as usize;
                let ends = &self.ends[i + 1..i + 1 + n];
                let from = if lang == 0 { start } else { ends[lang - 1] as usize };
                f(&self.bytes[from..ends[lang] as usize]);
                start = ends[n - 1] as usize;
                i += 1 + n;
            }
        }
    }

    /// Hints the CPU to start loading the item's bytes, ahead of a [`Item::write`]: a
    /// page's items lie scattered in memory, in load order, not in sort order.
    #[inline]
    pub fn prefetch(&self) {
        #[cfg(target_arch = "x86_64")]
        {
            use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
            // SAFETY: SSE is part of every x86_64 target; a prefetch is only a hint and
            // never faults, whatever the address.
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(self.ends.as_ptr().cast());
                _mm_prefetch::<_MM_HINT_T0>(self.bytes.as_ptr().cast());
            }
        }
    }

    /// Appends the fragments of language `lang`.
    pub fn write(&self, lang: usize, out: &mut Vec<u8>) {
        self.each_fragment(lang, |f| out.extend_from_slice(f));
    }
}

/// Builds an [`Item`] fragment by fragment.
#[derive(Debug, Default)]
pub struct ItemBuilder {
    bytes: Vec<u8>,
    ends: Vec<u32>,
    /// The last run is shared: a shared fragment extends it.
    in_shared: bool,
}

impl ItemBuilder {
    /// The end of the bytes so far; an item is far below 2 GiB (the `EACH` bit), as the
    /// loader holds a whole batch of records in memory at once.
    fn end(&self) -> u32 {
        let end = u32::try_from(self.bytes.len()).unwrap_or(u32::MAX);
        assert!(end & EACH == 0, "an item of 2 GiB or more");
        end
    }

    /// A fragment every language shares; it joins the shared run before it.
    #[cfg(test)]
    pub fn shared(&mut self, fragment: &[u8]) {
        self.shared_with(|out| out.extend_from_slice(fragment));
    }

    /// A shared fragment, appended by `write`.
    pub fn shared_with(&mut self, write: impl FnOnce(&mut Vec<u8>)) {
        write(&mut self.bytes);
        let end = self.end();
        match self.ends.last_mut() {
            Some(last) if self.in_shared => *last = end,
            _ => self.ends.push(end),
        }
        self.in_shared = true;
    }

    /// One fragment per language, in language order; all equal, it is shared.
    #[cfg(test)]
    pub fn each(&mut self, fragments: &[Vec<u8>]) {
        self.each_with(fragments.len(), |i, out| out.extend_from_slice(&fragments[i]));
    }

    /// One fragment per language, `write(i, out)` appending language `i`'s; all equal,
    /// they are kept once, as a shared fragment.
    pub fn each_with(&mut self, n: usize, mut write: impl FnMut(usize, &mut Vec<u8>)) {
        if n == 0 {
            return;
        }
        let (start, mark) = (self.bytes.len(), self.ends.len());
        self.ends.push(EACH | u32::try_from(n).expect("fewer than 2^31 languages"));
        for i in 0..n {
            write(i, &mut self.bytes);
            let end = self.end();
            self.ends.push(end);
        }
        let first = start..self.ends[mark + 1] as usize;
        let same = (1..n).all(|k| {
            let (from, to) = (self.ends[mark + k] as usize, self.ends[mark + k + 1] as usize);
            self.bytes[from..to] == self.bytes[first.clone()]
        });
        if same {
            self.bytes.truncate(first.end);
            self.ends.truncate(mark);
            self.shared_with(|_| {});
        } else {
            self.in_shared = false;
        }
    }

    /// The item, in allocations of exactly its size (a shrinking reallocation may keep a
    /// grown buffer's capacity, and there is one item per record). The builder is left
    /// empty with its buffers, to build the next item without growing them again.
    pub fn finish(&mut self) -> Item {
        let item = Item { bytes: Box::from(&self.bytes[..]), ends: Box::from(&self.ends[..]) };
        self.bytes.clear();
        self.ends.clear();
        self.in_shared = false;
        item
    }
}

impl Origin {
    /// A record's place among others on its line, for its problems: its index and column,
    /// with its id when known; `None` for a record alone on its line.
    pub fn at(self, id: Option<&Id>) -> Option<crate::diag::At> {
        let e = self.element?;
        let id = id.map(Id::to_string);
        Some(crate::diag::At { index: e.index.into(), column: e.column.into(), id })
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
        let mut b = ItemBuilder::default();
        b.shared(b"\"id\":1");
        b.each(&[b",\"n\":\"a\"".to_vec(), b",\"n\":\"b\"".to_vec()]);
        b.shared(b",\"x\":2");
        b.shared(b",\"y\":3");
        b.each(&[b",\"z\":0".to_vec(), b",\"z\":0".to_vec()]);
        b.each(&[b",\"m\":\"one\"".to_vec(), b",\"m\":\"two\"".to_vec()]);
        let r = Record {
            origin: Origin { file: 0, line: 1, element: None },
            id: Id::Int(1),
            keys: vec![],
            body: b.finish(),
        };
        let mut out = Vec::new();
        r.write_item(1, &mut out);
        assert_eq!(out, b"{\"id\":1,\"n\":\"b\",\"x\":2,\"y\":3,\"z\":0,\"m\":\"two\"}");
        assert_eq!(r.item_len(1), out.len());
        out.clear();
        r.write_item(0, &mut out);
        assert_eq!(out, b"{\"id\":1,\"n\":\"a\",\"x\":2,\"y\":3,\"z\":0,\"m\":\"one\"}");
        // Shared fragments in a row, and equal ones, are one run: 2 shared runs, 2 localized.
        assert_eq!(r.body.ends.len(), 2 + 2 * 3);
    }
}
