//! The sorted listing: for each language, the order of the records (config `sort`, ties
//! by id ascending). Pure; languages share one order when no sort key is localized.

use std::cmp::Ordering;
use std::sync::Arc;

use rayon::prelude::*;

use crate::config::SortKey;
use crate::model::{PerLang, Record};

fn compare(a: &Record, b: &Record, keys: &[SortKey], lang: usize) -> Ordering {
    for (i, key) in keys.iter().enumerate() {
        let ord = a.keys[i].get(lang).compare(b.keys[i].get(lang), key.descending);
        if ord != Ordering::Equal {
            return ord;
        }
    }
    a.id.cmp(&b.id)
}

/// Record indices in listing order, one entry per configured language.
pub fn order(records: &[Record], keys: &[SortKey], languages: usize) -> Vec<Arc<[u32]>> {
    let sort_for = |lang: usize| -> Arc<[u32]> {
        let mut idx: Vec<u32> = (0..records.len() as u32).collect();
        idx.par_sort_by(|&a, &b| compare(&records[a as usize], &records[b as usize], keys, lang));
        idx.into()
    };
    let localized = records.iter().any(|r| r.keys.iter().any(|k| matches!(k, PerLang::Each(_))));
    if localized {
        (0..languages).map(sort_for).collect()
    } else {
        let shared = sort_for(0);
        vec![shared; languages]
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Id, Origin, SortValue};

    fn rec(id: i64, keys: Vec<PerLang<SortValue>>) -> Record {
        Record {
            origin: Origin { file: 0, line: 1, element: None },
            id: Id::Int(id),
            keys,
            body: Default::default(),
        }
    }

    #[test]
    fn sorts_descending_with_nulls_last_and_ties_by_id() {
        let s = |v: Option<f64>| PerLang::Shared(v.map_or(SortValue::Null, SortValue::Num));
        let records = vec![
            rec(3, vec![s(Some(4.0))]),
            rec(1, vec![s(None)]),
            rec(2, vec![s(Some(4.0))]),
            rec(4, vec![s(Some(5.0))]),
        ];
        let keys = [SortKey { field: "rating".into(), descending: true }];
        let order = order(&records, &keys, 2);
        let ids: Vec<_> = order[1].iter().map(|&i| records[i as usize].id.clone()).collect();
        assert_eq!(ids, [Id::Int(4), Id::Int(2), Id::Int(3), Id::Int(1)]);
    }

    #[test]
    fn a_localized_key_orders_each_language_by_its_own_values() {
        let each = |a: &str, b: &str| {
            PerLang::Each(vec![SortValue::Str(a.into()), SortValue::Str(b.into())].into())
        };
        let records = vec![rec(1, vec![each("a", "z")]), rec(2, vec![each("b", "y")])];
        let keys = [SortKey { field: "name".into(), descending: false }];
        let order = order(&records, &keys, 2);
        assert_eq!(&*order[0], &[0, 1]);
        assert_eq!(&*order[1], &[1, 0]);
    }
}
