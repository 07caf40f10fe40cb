//! The API's rules as data (docs/api.md): the map of a listing (`map.rs`) that the writer
//! names files by, `folio serve` runs and every host emitter in `hosts/` renders. `routes`
//! owns the API's vocabulary — the error codes (`codes.rs`), how files and URLs are spelled
//! (`layout.rs`), what a request's query and path may say (`query.rs`), the media types
//! (`media.rs`), the HTTP header rules (`http.rs`) and all of it as regular expressions
//! for hosts (`patterns.rs`) — and imports none of the modules that render it
//! (`render`, `hosts`, `serve`, `openapi`). [`Map::resolve`] is the reference semantics
//! the request table in the tests checks every target against. Pure, no IO.

pub mod codes;
pub mod http;
pub mod layout;
pub mod map;
pub mod media;
pub mod patterns;
pub mod query;

pub use codes::ErrorCode;
pub use http::{ALLOW, PREFLIGHT_MAX_AGE, accepts_coding, if_none_match, not_modified};
#[cfg(test)]
pub(crate) use map::sample;
pub use map::{Map, Outcome, Size, table};
pub use media::{
    FILE_TYPES, FileType, JSON, OCTET_STREAM, PROBLEM_JSON, TEXT, UTF8, content_type, names,
};
pub use query::{MAX_PAGE, clean_segment, dot_segment, has_dot_segment, query_param, valid_page};
