//! `laravel-simple` (docs/api.md, "Envelopes"): what Laravel 11/12's simple paginator
//! (`Model::simplePaginate()`, `Illuminate\Pagination\Paginator::toArray()`) gives:
//! `current_page, data, first_page_url, from, next_page_url, path, per_page, prev_page_url,
//! to`, in that order. No key depends on how many records the listing holds, only on the
//! page's own items and whether a page follows: an insert rewrites the pages at and after
//! it, not every page. `from` and `to` are null on an empty page, `next_page_url` on the
//! last one, `prev_page_url` on the first. URLs are the `laravel` envelope's
//! ([`Links::write_laravel`]).

use super::laravel::{next_page, num, open, prev_page, url};
use super::page::{Links, PageInfo};

/// Writes one page as `Paginator::toArray()`.
pub fn write(info: &PageInfo, links: &Links, out: &mut Vec<u8>, items: impl FnOnce(&mut Vec<u8>)) {
    let span = info.span();
    open(info, links, out, items);
    out.extend_from_slice(b",\"next_page_url\":");
    url(out, links, info, next_page(info));
    out.extend_from_slice(b",\"path\":");
    links.write_endpoint(out);
    crate::bytes::push_fmt(out, format_args!(",\"per_page\":{},\"prev_page_url\":", info.per_page));
    url(out, links, info, prev_page(info));
    out.extend_from_slice(b",\"to\":");
    num(out, span.map(|s| s.1));
    out.extend_from_slice(b"}\n");
}

#[cfg(test)]
mod tests {
    use serde_json::{Value, json};

    use super::*;
    use crate::config::UrlStyle;

    /// Page `page` of `total` items `{"id": N}` at `size`, as bytes.
    fn bytes(links: &Links, total: usize, size: u64, page: usize) -> Vec<u8> {
        let info = PageInfo::new(total, size, page);
        let ids: Vec<String> = crate::paginate::items_of_page(total, size as usize, page)
            .map(|i| format!("{{\"id\":{}}}", i + 1))
            .collect();
        let mut out = Vec::new();
        write(&info, links, &mut out, |o| o.extend_from_slice(ids.join(",").as_bytes()));
        out
    }

    fn page(links: &Links, total: usize, size: u64, page: usize) -> Value {
        let out = bytes(links, total, size, page);
        assert_eq!(out.last(), Some(&b'\n'));
        serde_json::from_slice(&out)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)))
    }

    fn links() -> Links {
        Links::from_parts("/api/en/attractions".into(), UrlStyle::Query, 10)
    }

    fn ids(from: usize, to: usize) -> Value {
        (from..=to).map(|i| json!({"id": i})).collect()
    }

    #[test]
    fn keys_are_laravels_in_its_order() {
        let got = page(&links(), 25, 10, 2);
        let keys: Vec<&String> = got.as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            [
                "current_page",
                "data",
                "first_page_url",
                "from",
                "next_page_url",
                "path",
                "per_page",
                "prev_page_url",
                "to"
            ]
        );
    }

    #[test]
    fn first_middle_and_last_pages() {
        let l = links();
        assert_eq!(
            page(&l, 25, 10, 1),
            json!({
                "current_page": 1, "data": ids(1, 10),
                "first_page_url": "/api/en/attractions?page=1", "from": 1,
                "next_page_url": "/api/en/attractions?page=2", "path": "/api/en/attractions",
                "per_page": 10, "prev_page_url": null, "to": 10
            })
        );
        assert_eq!(
            page(&l, 25, 10, 2),
            json!({
                "current_page": 2, "data": ids(11, 20),
                "first_page_url": "/api/en/attractions?page=1", "from": 11,
                "next_page_url": "/api/en/attractions?page=3", "path": "/api/en/attractions",
                "per_page": 10, "prev_page_url": "/api/en/attractions?page=1", "to": 20
            })
        );
        assert_eq!(
            page(&l, 25, 10, 3),
            json!({
                "current_page": 3, "data": ids(21, 25),
                "first_page_url": "/api/en/attractions?page=1", "from": 21,
                "next_page_url": null, "path": "/api/en/attractions",
                "per_page": 10, "prev_page_url": "/api/en/attractions?page=2", "to": 25
            })
        );
        // A full last page has no next page either.
        assert_eq!(page(&l, 20, 10, 2)["next_page_url"], Value::Null);
    }

    #[test]
    fn an_empty_listing_has_null_from_to_and_next() {
        assert_eq!(
            bytes(&links(), 0, 10, 1),
            b"{\"current_page\":1,\"data\":[],\"first_page_url\":\"/api/en/attractions?page=1\",\
              \"from\":null,\"next_page_url\":null,\"path\":\"/api/en/attractions\",\
              \"per_page\":10,\"prev_page_url\":null,\"to\":null}\n"
        );
    }

    #[test]
    fn another_size_puts_per_page_first_and_paths_use_the_file_urls() {
        let got = page(&links(), 25, 20, 1);
        assert_eq!(got["first_page_url"], "/api/en/attractions?per_page=20&page=1");
        assert_eq!(got["next_page_url"], "/api/en/attractions?per_page=20&page=2");
        let l = Links::from_parts("https://x.org/t/api/attractions".into(), UrlStyle::Path, 10);
        let got = page(&l, 25, 10, 2);
        assert_eq!(got["first_page_url"], "https://x.org/t/api/attractions/10/1.json");
        assert_eq!(got["prev_page_url"], "https://x.org/t/api/attractions/10/1.json");
        assert_eq!(got["next_page_url"], "https://x.org/t/api/attractions/10/3.json");
        assert_eq!(got["path"], "https://x.org/t/api/attractions");
    }

    #[test]
    fn a_page_is_the_same_whatever_follows_it() {
        // Page 2 of 10-item pages is the same with 30 items or 3,000: the count is in no
        // key. With 20, it is the last page and says so.
        let l = links();
        assert_eq!(bytes(&l, 30, 10, 2), bytes(&l, 3000, 10, 2));
        assert_ne!(bytes(&l, 20, 10, 2), bytes(&l, 30, 10, 2));
    }
}
