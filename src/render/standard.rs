//! The standard envelope (docs/api.md, "Envelopes"): `{"page", "per_page", "total", "total_pages", "data",
//! "links": {"first", "prev", "next", "last"}}`, keys in that order.

use super::{Links, PageInfo};

fn link(out: &mut Vec<u8>, url: Option<String>) {
    match url {
        Some(u) => crate::bytes::push_json(out, &u),
        None => out.extend_from_slice(b"null"),
    }
}

/// Writes one page; `items` appends the items, comma-separated, without brackets.
pub fn write(info: &PageInfo, links: &Links, out: &mut Vec<u8>, items: impl FnOnce(&mut Vec<u8>)) {
    let PageInfo { page, per_page, total, total_pages } = *info;
    crate::bytes::push_fmt(
        out,
        format_args!(
            "{{\"page\":{page},\"per_page\":{per_page},\"total\":{total},\"total_pages\":{total_pages},\"data\":["
        ),
    );
    items(out);
    out.extend_from_slice(b"],\"links\":{\"first\":");
    link(out, Some(links.page(per_page, 1)));
    out.extend_from_slice(b",\"prev\":");
    link(out, (page > 1).then(|| links.page(per_page, page - 1)));
    out.extend_from_slice(b",\"next\":");
    link(out, (page < total_pages).then(|| links.page(per_page, page + 1)));
    out.extend_from_slice(b",\"last\":");
    link(out, Some(links.page(per_page, total_pages)));
    out.extend_from_slice(b"}}\n");
}
