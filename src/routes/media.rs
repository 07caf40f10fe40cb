//! The media types of what the API answers: each kind of file by its extension, the
//! problem document's type, and the fixed names the host templates spell into their
//! configs ([`names`]).

use super::layout;

/// The `Content-Type` of a problem document (RFC 9457), whichever way it is answered.
pub const PROBLEM_JSON: &str = "application/problem+json";
/// The media type of a kind of file, by its extension.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
pub struct FileType {
    /// The extension, without its dot.
    #[serde(skip)]
    pub ext: &'static str,
    /// The media type alone: `text/html`.
    pub media: &'static str,
    /// The `Content-Type` of such a file: the media type, with [`UTF8`] for text.
    pub content_type: &'static str,
}

/// The parameter a text type's `Content-Type` carries: its media type, then this.
pub const UTF8: &str = "; charset=utf-8";

macro_rules! file_type {
    ($ext:literal, $media:literal, text) => {
        FileType { ext: $ext, media: $media, content_type: concat!($media, "; charset=utf-8") }
    };
    ($ext:literal, $media:literal) => {
        FileType { ext: $ext, media: $media, content_type: $media }
    };
}

/// The media type of each kind of file folio writes or serves by its path.
pub const FILE_TYPES: [FileType; 8] = [
    file_type!("json", "application/json", text),
    file_type!("html", "text/html", text),
    file_type!("js", "text/javascript", text),
    file_type!("css", "text/css", text),
    file_type!("txt", "text/plain", text),
    file_type!("md", "text/plain", text),
    file_type!("png", "image/png"),
    file_type!("svg", "image/svg+xml"),
];

/// Pages, the index, the OpenAPI document and every other `.json` file.
pub const JSON: FileType = FILE_TYPES[0];
/// A plain-text answer (`folio serve`'s own messages).
pub const TEXT: FileType = FILE_TYPES[4];
/// The `Content-Type` of a file of no type listed in [`FILE_TYPES`].
pub const OCTET_STREAM: &str = "application/octet-stream";

/// The Content-Type of a file of `output/` served by its path, by its extension
/// ([`FILE_TYPES`]): pages and every `.json` are `application/json; charset=utf-8`.
pub fn content_type(rel: &str) -> &'static str {
    let ext = rel.rsplit_once('.').map(|(_, ext)| ext);
    FILE_TYPES.iter().find(|t| Some(t.ext) == ext).map_or(OCTET_STREAM, |t| t.content_type)
}

/// The API's fixed names for the host templates, which `hosts` gives every template as
/// `names` (beside the values each host escapes for its own syntax): the folders below
/// the mount point of the API's files (`api_dir`, `api/`) and of its problem documents
/// (`errors_dir`, `api/errors/`), and the media types — `problem_type`, `types` (by
/// extension: `media` alone and the whole `content_type`), `utf8` (the charset parameter,
/// with its `; `) and `default_type`. [`Map::table`] stays what the host scripts carry
/// at run time; these are spelled into a file when it is written.
pub fn names() -> serde_json::Value {
    let types: serde_json::Map<String, serde_json::Value> = FILE_TYPES
        .iter()
        .map(|t| (t.ext.to_string(), serde_json::to_value(t).expect("plain strings")))
        .collect();
    serde_json::json!({
        "api_dir": layout::API,
        "errors_dir": layout::ERRORS,
        "problem_type": PROBLEM_JSON,
        "types": types,
        "utf8": UTF8,
        "default_type": OCTET_STREAM,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn media_types_by_extension_and_the_names_templates_read() {
        assert_eq!(content_type("api/en/x/10/1.json"), "application/json; charset=utf-8");
        assert_eq!(content_type("api/explorer.html"), "text/html; charset=utf-8");
        assert_eq!(content_type("notes.md"), "text/plain; charset=utf-8");
        assert_eq!(content_type("logo.svg"), "image/svg+xml");
        assert_eq!(content_type("a.json.br"), OCTET_STREAM);
        assert_eq!(content_type("README"), OCTET_STREAM);
        for t in FILE_TYPES {
            let text = t.media.starts_with("text/") || t == JSON;
            let whole = if text { format!("{}{UTF8}", t.media) } else { t.media.to_string() };
            assert_eq!(t.content_type, whole, "{}", t.ext);
        }
        let n = names();
        assert_eq!(n["api_dir"], "api/");
        assert_eq!(n["errors_dir"], "api/errors/");
        assert_eq!(n["problem_type"], PROBLEM_JSON);
        assert_eq!(n["types"]["json"]["content_type"], JSON.content_type);
        assert_eq!(n["types"]["txt"]["media"], "text/plain");
        // Templates spell the names into quoted strings of their languages (JS, Lua,
        // Apache, Caddy, nginx) as they are: nothing in them may need escaping there.
        let mut values = vec![n["api_dir"].clone(), n["errors_dir"].clone()];
        values.extend([n["problem_type"].clone(), n["utf8"].clone(), n["default_type"].clone()]);
        for t in n["types"].as_object().unwrap().values() {
            values.extend([t["media"].clone(), t["content_type"].clone()]);
        }
        for v in values {
            let v = v.as_str().unwrap();
            assert!(v.bytes().all(|b| b.is_ascii_graphic() || b == b' '), "{v}");
            assert!(!v.contains(['"', '\'', '`', '\\', '$', '%', '{', '}']), "{v}");
        }
    }
}
