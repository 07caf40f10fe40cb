//! The standard envelope (docs/api.md, "Envelopes"): `{"page", "per_page", "total",
//! "total_pages", "data", "links": {"first", "prev", "next", "last"}}`, keys in that order.
//! Without totals (`[listing] totals = false`) the keys that follow the listing's count,
//! `total`, `total_pages` and `links.last`, are left out; the rest is as it was.

use super::page::{Links, PageInfo};

/// The URL of page `page` as a JSON string, or `null` when there is no such page.
fn link(out: &mut Vec<u8>, links: &Links, size: u64, page: Option<usize>) {
    match page {
        Some(page) => links.write_page(out, size, page),
        None => out.extend_from_slice(b"null"),
    }
}

/// Writes one page, with the count when `totals`; `items` appends the items,
/// comma-separated, without brackets.
pub fn write(
    info: &PageInfo,
    links: &Links,
    totals: bool,
    out: &mut Vec<u8>,
    items: impl FnOnce(&mut Vec<u8>),
) {
    let PageInfo { page, per_page, total, total_pages } = *info;
    crate::bytes::push_fmt(out, format_args!("{{\"page\":{page},\"per_page\":{per_page},"));
    if totals {
        crate::bytes::push_fmt(
            out,
            format_args!("\"total\":{total},\"total_pages\":{total_pages},"),
        );
    }
    out.extend_from_slice(b"\"data\":[");
    items(out);
    out.extend_from_slice(b"],\"links\":{\"first\":");
    link(out, links, per_page, Some(1));
    out.extend_from_slice(b",\"prev\":");
    link(out, links, per_page, (page > 1).then(|| page - 1));
    out.extend_from_slice(b",\"next\":");
    link(out, links, per_page, (page < total_pages).then_some(page + 1));
    if totals {
        out.extend_from_slice(b",\"last\":");
        link(out, links, per_page, Some(total_pages));
    }
    out.extend_from_slice(b"}}\n");
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::config::UrlStyle;

    fn page(total: usize, page: usize, totals: bool) -> String {
        let links = Links::from_parts("/api/en/attractions".into(), UrlStyle::Query, 10);
        let ids: Vec<String> = crate::paginate::items_of_page(total, 10, page)
            .map(|i| format!("{{\"id\":{}}}", i + 1))
            .collect();
        let mut out = Vec::new();
        let info = PageInfo::new(total, 10, page);
        write(&info, &links, totals, &mut out, |o| o.extend_from_slice(ids.join(",").as_bytes()));
        String::from_utf8(out).unwrap()
    }

    fn value(text: &str) -> serde_json::Value {
        serde_json::from_str(text).unwrap()
    }

    fn url(page: usize) -> String {
        format!("/api/en/attractions?page={page}&per_page=10")
    }

    #[test]
    fn with_totals_every_key_in_order() {
        let got = page(25, 2, true);
        assert!(
            got.starts_with(
                "{\"page\":2,\"per_page\":10,\"total\":25,\"total_pages\":3,\"data\":[{\"id\":11}"
            ),
            "{got}"
        );
        assert!(
            got.ends_with(&format!("\"next\":\"{}\",\"last\":\"{}\"}}}}\n", url(3), url(3))),
            "{got}"
        );
    }

    #[test]
    fn without_totals_first_middle_last_and_empty_pages() {
        let ids = |a: usize, b: usize| (a..=b).map(|i| json!({"id": i})).collect::<Vec<_>>();
        let first = page(25, 1, false);
        assert!(first.starts_with("{\"page\":1,\"per_page\":10,\"data\":["), "{first}");
        assert_eq!(
            value(&first),
            json!({"page": 1, "per_page": 10, "data": ids(1, 10),
                   "links": {"first": url(1), "prev": null, "next": url(2)}})
        );
        assert_eq!(
            value(&page(25, 2, false)),
            json!({"page": 2, "per_page": 10, "data": ids(11, 20),
                   "links": {"first": url(1), "prev": url(1), "next": url(3)}})
        );
        assert_eq!(
            value(&page(25, 3, false)),
            json!({"page": 3, "per_page": 10, "data": ids(21, 25),
                   "links": {"first": url(1), "prev": url(2), "next": null}})
        );
        assert_eq!(
            page(0, 1, false),
            format!(
                "{{\"page\":1,\"per_page\":10,\"data\":[],\"links\":{{\"first\":\"{}\",\"prev\":null,\"next\":null}}}}\n",
                url(1)
            )
        );
    }

    #[test]
    fn without_totals_a_page_does_not_depend_on_the_count() {
        // Page 2 is the same with 30 records or 3,000; with 20 it is the last page.
        assert_eq!(page(30, 2, false), page(3000, 2, false));
        assert_ne!(page(30, 2, true), page(3000, 2, true));
        assert_ne!(page(20, 2, false), page(30, 2, false));
    }
}
