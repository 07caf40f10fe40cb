//! The two Laravel envelopes with a count (docs/api.md, "Envelopes"), byte-built like the
//! standard one (the simple paginator's, which has none, is in `simple.rs`):
//!
//! - `laravel`: what `LengthAwarePaginator::toArray()` gives (Laravel 11/12): `current_page,
//!   data, first_page_url, from, last_page, last_page_url, links, next_page_url, path,
//!   per_page, prev_page_url, to, total`, in that order;
//! - `laravel-resource`: what a paginated API Resource collection answers (Laravel's
//!   `PaginatedResourceResponse`): `{data, links: {first, last, prev, next}, meta:
//!   {current_page, from, last_page, links, path, per_page, to, total}}`.
//!
//! `links[]` is Laravel's `linkCollection()`: a "previous" item, the page window of
//! `UrlWindow` (`onEachSide = 3`) with `"..."` separators, a "next" item. Page items are
//! `{url, label, page, active}`; separators are `{url: null, label: "...", active: false}`,
//! without a `page` key, as Laravel writes them. Labels are those of Laravel's default
//! `lang/en/pagination.php`. URLs come from [`Links::write_laravel`].
//!
//! Laravel's `json_encode` escapes `/` as `\/`; folio writes plain `/`. Both parse to the
//! same strings.

use super::page::{Links, PageInfo};

/// Laravel's default `onEachSide`.
const ON_EACH_SIDE: usize = 3;
const PREVIOUS: &str = "&laquo; Previous";
const NEXT: &str = "Next &raquo;";

/// One entry of the page window: a page number or a `...` separator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Slot {
    Page(usize),
    Gap,
}

/// Calls `each` for every slot of Laravel's `UrlWindow` on page `current` of `last`:
/// every page when there are fewer than 14; else, near the start, pages 1–10, a gap and
/// the last two; near the end, the first two, a gap and the last ten; otherwise the first
/// two, a gap, `current ± 3`, a gap and the last two.
pub fn window(current: usize, last: usize, mut each: impl FnMut(Slot)) {
    let pages = |from: usize, to: usize, each: &mut dyn FnMut(Slot)| {
        (from..=to).for_each(|p| each(Slot::Page(p)));
    };
    if last < ON_EACH_SIDE * 2 + 8 {
        pages(1, last, &mut each);
        return;
    }
    // UrlWindow::getUrlSlider: `$window = $onEachSide + 4`.
    let w = ON_EACH_SIDE + 4;
    if current <= w {
        pages(1, w + ON_EACH_SIDE, &mut each);
        each(Slot::Gap);
        pages(last - 1, last, &mut each);
    } else if current > last - w {
        pages(1, 2, &mut each);
        each(Slot::Gap);
        pages(last - (w + ON_EACH_SIDE - 1), last, &mut each);
    } else {
        pages(1, 2, &mut each);
        each(Slot::Gap);
        pages(current - ON_EACH_SIDE, current + ON_EACH_SIDE, &mut each);
        each(Slot::Gap);
        pages(last - 1, last, &mut each);
    }
}

pub(super) fn num(out: &mut Vec<u8>, n: Option<usize>) {
    match n {
        Some(n) => crate::bytes::push_fmt(out, format_args!("{n}")),
        None => out.extend_from_slice(b"null"),
    }
}

pub(super) fn url(out: &mut Vec<u8>, links: &Links, info: &PageInfo, page: Option<usize>) {
    match page {
        Some(p) => links.write_laravel(out, info.per_page, p),
        None => out.extend_from_slice(b"null"),
    }
}

pub(super) fn prev_page(info: &PageInfo) -> Option<usize> {
    (info.page > 1).then(|| info.page - 1)
}

pub(super) fn next_page(info: &PageInfo) -> Option<usize> {
    (info.page < info.total_pages).then(|| info.page + 1)
}

/// `links[]`: the previous item, the window, the next item.
fn link_list(out: &mut Vec<u8>, links: &Links, info: &PageInfo) {
    // A page item, labelled with `label` or, when that is `None`, with its page number.
    let item = |out: &mut Vec<u8>, page: Option<usize>, label: Option<&str>, active: bool| {
        out.extend_from_slice(b"{\"url\":");
        url(out, links, info, page);
        out.extend_from_slice(b",\"label\":\"");
        match label {
            Some(text) => out.extend_from_slice(text.as_bytes()),
            None => num(out, page),
        }
        out.extend_from_slice(b"\",\"page\":");
        num(out, page);
        out.extend_from_slice(if active { b",\"active\":true}" } else { b",\"active\":false}" });
    };
    out.push(b'[');
    item(out, prev_page(info), Some(PREVIOUS), false);
    window(info.page, info.total_pages, |slot| {
        out.push(b',');
        match slot {
            Slot::Page(p) => item(out, Some(p), None, p == info.page),
            Slot::Gap => {
                out.extend_from_slice(b"{\"url\":null,\"label\":\"...\",\"active\":false}")
            }
        }
    });
    out.push(b',');
    item(out, next_page(info), Some(NEXT), false);
    out.push(b']');
}

/// `"data":[…]`, the items between the brackets.
pub(super) fn data(out: &mut Vec<u8>, items: impl FnOnce(&mut Vec<u8>)) {
    out.extend_from_slice(b"\"data\":[");
    items(out);
    out.push(b']');
}

/// Writes one page as `LengthAwarePaginator::toArray()`.
pub fn write(info: &PageInfo, links: &Links, out: &mut Vec<u8>, items: impl FnOnce(&mut Vec<u8>)) {
    let span = info.span();
    open(info, links, out, items);
    crate::bytes::push_fmt(
        out,
        format_args!(",\"last_page\":{},\"last_page_url\":", info.total_pages),
    );
    url(out, links, info, Some(info.total_pages));
    out.extend_from_slice(b",\"links\":");
    link_list(out, links, info);
    out.extend_from_slice(b",\"next_page_url\":");
    url(out, links, info, next_page(info));
    out.extend_from_slice(b",\"path\":");
    links.write_endpoint(out);
    crate::bytes::push_fmt(out, format_args!(",\"per_page\":{},\"prev_page_url\":", info.per_page));
    url(out, links, info, prev_page(info));
    out.extend_from_slice(b",\"to\":");
    num(out, span.map(|s| s.1));
    crate::bytes::push_fmt(out, format_args!(",\"total\":{}}}\n", info.total));
}

/// Writes one page as a paginated API Resource collection.
pub fn write_resource(
    info: &PageInfo,
    links: &Links,
    out: &mut Vec<u8>,
    items: impl FnOnce(&mut Vec<u8>),
) {
    let span = info.span();
    out.push(b'{');
    data(out, items);
    out.extend_from_slice(b",\"links\":{\"first\":");
    url(out, links, info, Some(1));
    out.extend_from_slice(b",\"last\":");
    url(out, links, info, Some(info.total_pages));
    out.extend_from_slice(b",\"prev\":");
    url(out, links, info, prev_page(info));
    out.extend_from_slice(b",\"next\":");
    url(out, links, info, next_page(info));
    crate::bytes::push_fmt(
        out,
        format_args!("}},\"meta\":{{\"current_page\":{},\"from\":", info.page),
    );
    num(out, span.map(|s| s.0));
    crate::bytes::push_fmt(out, format_args!(",\"last_page\":{},\"links\":", info.total_pages));
    link_list(out, links, info);
    out.extend_from_slice(b",\"path\":");
    links.write_endpoint(out);
    crate::bytes::push_fmt(out, format_args!(",\"per_page\":{},\"to\":", info.per_page));
    num(out, span.map(|s| s.1));
    crate::bytes::push_fmt(out, format_args!(",\"total\":{}}}}}\n", info.total));
}

/// The keys both Laravel paginators start with: `current_page`, `data`, `first_page_url`
/// and `from` (this file and `simple.rs` write the rest).
pub(super) fn open(
    info: &PageInfo,
    links: &Links,
    out: &mut Vec<u8>,
    items: impl FnOnce(&mut Vec<u8>),
) {
    let span = info.span();
    crate::bytes::push_fmt(out, format_args!("{{\"current_page\":{},", info.page));
    data(out, items);
    out.extend_from_slice(b",\"first_page_url\":");
    url(out, links, info, Some(1));
    out.extend_from_slice(b",\"from\":");
    num(out, span.map(|s| s.0));
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::UrlStyle;

    /// The window as text: `1 2 … 22 23 24 25 26 27 28 … 49 50`.
    fn slots(current: usize, last: usize) -> String {
        let mut v = Vec::new();
        window(current, last, |s| {
            v.push(match s {
                Slot::Page(p) => p.to_string(),
                Slot::Gap => "…".into(),
            })
        });
        v.join(" ")
    }

    fn links() -> Links {
        Links::from_parts("/api/en/attractions".into(), UrlStyle::Query, 10)
    }

    #[derive(Clone, Copy)]
    enum Envelope {
        Paginator,
        Resource,
    }
    use Envelope::{Paginator, Resource};

    /// Page `page` of a listing of `total` items `{"id": N}`, written and parsed back.
    fn page(
        envelope: Envelope,
        links: &Links,
        total: usize,
        size: u64,
        page: usize,
    ) -> serde_json::Value {
        let info = PageInfo::new(total, size, page);
        let ids: Vec<String> = crate::paginate::items_of_page(total, size as usize, page)
            .map(|i| format!("{{\"id\":{}}}", i + 1))
            .collect();
        let items = |o: &mut Vec<u8>| o.extend_from_slice(ids.join(",").as_bytes());
        let mut out = Vec::new();
        match envelope {
            Envelope::Paginator => write(&info, links, &mut out, items),
            Envelope::Resource => write_resource(&info, links, &mut out, items),
        }
        assert_eq!(out.last(), Some(&b'\n'));
        serde_json::from_slice(&out)
            .unwrap_or_else(|e| panic!("{e}: {}", String::from_utf8_lossy(&out)))
    }

    /// `links[]` as compact text: `<label>:<page>:<url or ->` per item, `*` marking the
    /// active one.
    fn link_text(v: &serde_json::Value) -> String {
        v.as_array()
            .unwrap()
            .iter()
            .map(|l| {
                let url = l["url"].as_str().unwrap_or("-");
                let active = if l["active"] == true { "*" } else { "" };
                match l.get("page") {
                    Some(p) => format!("{}{active}:{p}:{url}", l["label"].as_str().unwrap()),
                    None => format!("{}{active}:{url}", l["label"].as_str().unwrap()),
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    #[test]
    fn small_listings_show_every_page() {
        assert_eq!(slots(1, 1), "1");
        assert_eq!(slots(1, 2), "1 2");
        assert_eq!(slots(2, 2), "1 2");
        assert_eq!(slots(1, 8), "1 2 3 4 5 6 7 8");
        assert_eq!(slots(5, 8), "1 2 3 4 5 6 7 8");
        assert_eq!(slots(8, 8), "1 2 3 4 5 6 7 8");
        assert_eq!(slots(1, 13), "1 2 3 4 5 6 7 8 9 10 11 12 13");
        assert_eq!(slots(7, 13), "1 2 3 4 5 6 7 8 9 10 11 12 13");
        assert_eq!(slots(13, 13), "1 2 3 4 5 6 7 8 9 10 11 12 13");
    }

    #[test]
    fn large_listings_slide_a_window_of_three_on_each_side() {
        // Near the start (current <= 7): pages 1-10, a gap, the last two.
        assert_eq!(slots(1, 50), "1 2 3 4 5 6 7 8 9 10 … 49 50");
        assert_eq!(slots(7, 50), "1 2 3 4 5 6 7 8 9 10 … 49 50");
        // In the middle: the first two, current ± 3, the last two.
        assert_eq!(slots(8, 50), "1 2 … 5 6 7 8 9 10 11 … 49 50");
        assert_eq!(slots(25, 50), "1 2 … 22 23 24 25 26 27 28 … 49 50");
        assert_eq!(slots(43, 50), "1 2 … 40 41 42 43 44 45 46 … 49 50");
        // Near the end (current > last - 7): the first two, a gap, the last ten.
        assert_eq!(slots(44, 50), "1 2 … 41 42 43 44 45 46 47 48 49 50");
        assert_eq!(slots(50, 50), "1 2 … 41 42 43 44 45 46 47 48 49 50");
        // 14 pages is the first count that slides.
        assert_eq!(slots(1, 14), "1 2 3 4 5 6 7 8 9 10 … 13 14");
        assert_eq!(slots(7, 14), "1 2 3 4 5 6 7 8 9 10 … 13 14");
        assert_eq!(slots(8, 14), "1 2 … 5 6 7 8 9 10 11 12 13 14");
        assert_eq!(slots(14, 14), "1 2 … 5 6 7 8 9 10 11 12 13 14");
    }

    #[test]
    fn one_page_listing_is_laravels_to_array() {
        let got = page(Paginator, &links(), 3, 10, 1);
        let want = serde_json::json!({
            "current_page": 1,
            "data": [{"id": 1}, {"id": 2}, {"id": 3}],
            "first_page_url": "/api/en/attractions?page=1",
            "from": 1,
            "last_page": 1,
            "last_page_url": "/api/en/attractions?page=1",
            "links": [
                {"url": null, "label": "&laquo; Previous", "page": null, "active": false},
                {"url": "/api/en/attractions?page=1", "label": "1", "page": 1, "active": true},
                {"url": null, "label": "Next &raquo;", "page": null, "active": false}
            ],
            "next_page_url": null,
            "path": "/api/en/attractions",
            "per_page": 10,
            "prev_page_url": null,
            "to": 3,
            "total": 3
        });
        assert_eq!(got, want);
    }

    #[test]
    fn empty_listing_has_null_from_and_to() {
        let got = page(Paginator, &links(), 0, 10, 1);
        assert_eq!(got["data"], serde_json::json!([]));
        assert_eq!(got["from"], serde_json::Value::Null);
        assert_eq!(got["to"], serde_json::Value::Null);
        assert_eq!(got["last_page"], 1);
        assert_eq!(got["total"], 0);
    }

    #[test]
    fn two_pages_at_another_size_put_per_page_first() {
        let l = links();
        let first = page(Paginator, &l, 25, 20, 1);
        assert_eq!(
            link_text(&first["links"]),
            "&laquo; Previous:null:- \
             1*:1:/api/en/attractions?per_page=20&page=1 \
             2:2:/api/en/attractions?per_page=20&page=2 \
             Next &raquo;:2:/api/en/attractions?per_page=20&page=2"
        );
        assert_eq!(first["next_page_url"], "/api/en/attractions?per_page=20&page=2");
        assert_eq!(first["prev_page_url"], serde_json::Value::Null);
        assert_eq!((first["from"].as_u64(), first["to"].as_u64()), (Some(1), Some(20)));
        let last = page(Paginator, &l, 25, 20, 2);
        assert_eq!(
            link_text(&last["links"]),
            "&laquo; Previous:1:/api/en/attractions?per_page=20&page=1 \
             1:1:/api/en/attractions?per_page=20&page=1 \
             2*:2:/api/en/attractions?per_page=20&page=2 \
             Next &raquo;:null:-"
        );
        assert_eq!((last["from"].as_u64(), last["to"].as_u64()), (Some(21), Some(25)));
        assert_eq!(last["last_page_url"], "/api/en/attractions?per_page=20&page=2");
    }

    #[test]
    fn eight_pages_list_them_all_on_the_first_middle_and_last_page() {
        let l = links();
        let p = |n| page(Paginator, &l, 80, 10, n)["links"].clone();
        let u = |n: usize| format!("/api/en/attractions?page={n}");
        let all = |current: usize| -> String {
            (1..=8)
                .map(|n| format!("{n}{}:{n}:{}", if n == current { "*" } else { "" }, u(n)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        assert_eq!(
            link_text(&p(1)),
            format!("&laquo; Previous:null:- {} Next &raquo;:2:{}", all(1), u(2))
        );
        assert_eq!(
            link_text(&p(4)),
            format!("&laquo; Previous:3:{} {} Next &raquo;:5:{}", u(3), all(4), u(5))
        );
        assert_eq!(
            link_text(&p(8)),
            format!("&laquo; Previous:7:{} {} Next &raquo;:null:-", u(7), all(8))
        );
    }

    #[test]
    fn thirteen_pages_still_list_every_page() {
        let got = page(Paginator, &links(), 130, 10, 7);
        let labels: Vec<&str> =
            got["links"].as_array().unwrap().iter().map(|l| l["label"].as_str().unwrap()).collect();
        assert_eq!(
            labels,
            [
                "&laquo; Previous",
                "1",
                "2",
                "3",
                "4",
                "5",
                "6",
                "7",
                "8",
                "9",
                "10",
                "11",
                "12",
                "13",
                "Next &raquo;"
            ]
        );
    }

    #[test]
    fn fifty_pages_have_separators_without_a_page_key() {
        let l = links();
        let u = |n: usize| format!("/api/en/attractions?page={n}");
        let text = |pages: &[usize], current: usize| -> String {
            pages
                .iter()
                .map(|&n| match n {
                    0 => "...:-".to_string(),
                    n => format!("{n}{}:{n}:{}", if n == current { "*" } else { "" }, u(n)),
                })
                .collect::<Vec<_>>()
                .join(" ")
        };
        let first = page(Paginator, &l, 500, 10, 1);
        assert_eq!(
            link_text(&first["links"]),
            format!(
                "&laquo; Previous:null:- {} Next &raquo;:2:{}",
                text(&[1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 0, 49, 50], 1),
                u(2)
            )
        );
        let middle = page(Paginator, &l, 500, 10, 25);
        assert_eq!(
            link_text(&middle["links"]),
            format!(
                "&laquo; Previous:24:{} {} Next &raquo;:26:{}",
                u(24),
                text(&[1, 2, 0, 22, 23, 24, 25, 26, 27, 28, 0, 49, 50], 25),
                u(26)
            )
        );
        let gap = &middle["links"][3];
        assert_eq!(gap, &serde_json::json!({"url": null, "label": "...", "active": false}));
        let keys: Vec<&String> = gap.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["url", "label", "active"]);
        let keys: Vec<&String> = middle["links"][1].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["url", "label", "page", "active"]);
        let last = page(Paginator, &l, 495, 10, 50);
        assert_eq!(
            link_text(&last["links"]),
            format!(
                "&laquo; Previous:49:{} {} Next &raquo;:null:-",
                u(49),
                text(&[1, 2, 0, 41, 42, 43, 44, 45, 46, 47, 48, 49, 50], 50)
            )
        );
        assert_eq!((last["from"].as_u64(), last["to"].as_u64()), (Some(491), Some(495)));
    }

    #[test]
    fn resource_envelope_moves_urls_to_links_and_the_rest_to_meta() {
        let got = page(Resource, &links(), 25, 10, 2);
        let want = serde_json::json!({
            "data": (11..=20).map(|i| serde_json::json!({"id": i})).collect::<Vec<_>>(),
            "links": {
                "first": "/api/en/attractions?page=1",
                "last": "/api/en/attractions?page=3",
                "prev": "/api/en/attractions?page=1",
                "next": "/api/en/attractions?page=3"
            },
            "meta": {
                "current_page": 2,
                "from": 11,
                "last_page": 3,
                "links": [
                    {"url": "/api/en/attractions?page=1", "label": "&laquo; Previous", "page": 1, "active": false},
                    {"url": "/api/en/attractions?page=1", "label": "1", "page": 1, "active": false},
                    {"url": "/api/en/attractions?page=2", "label": "2", "page": 2, "active": true},
                    {"url": "/api/en/attractions?page=3", "label": "3", "page": 3, "active": false},
                    {"url": "/api/en/attractions?page=3", "label": "Next &raquo;", "page": 3, "active": false}
                ],
                "path": "/api/en/attractions",
                "per_page": 10,
                "to": 20,
                "total": 25
            }
        });
        assert_eq!(got, want);
        let keys: Vec<&String> = got.as_object().unwrap().keys().collect();
        assert_eq!(keys, ["data", "links", "meta"]);
        let keys: Vec<&String> = got["links"].as_object().unwrap().keys().collect();
        assert_eq!(keys, ["first", "last", "prev", "next"]);
        let keys: Vec<&String> = got["meta"].as_object().unwrap().keys().collect();
        assert_eq!(
            keys,
            ["current_page", "from", "last_page", "links", "path", "per_page", "to", "total"]
        );
    }

    #[test]
    fn path_style_links_use_the_file_urls() {
        let l = Links::from_parts("https://x.org/t/api/attractions".into(), UrlStyle::Path, 10);
        let got = page(Paginator, &l, 25, 20, 1);
        assert_eq!(got["first_page_url"], "https://x.org/t/api/attractions/20/1.json");
        assert_eq!(got["next_page_url"], "https://x.org/t/api/attractions/20/2.json");
        assert_eq!(got["path"], "https://x.org/t/api/attractions");
        let got = page(Paginator, &l, 25, 10, 3);
        assert_eq!(got["prev_page_url"], "https://x.org/t/api/attractions/10/2.json");
    }
}
