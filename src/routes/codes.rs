//! The API's error codes (docs/api.md, "Errors"): each with its HTTP status, the status's
//! reason phrase (the problem document's `title`). Its document's file is `layout.rs`'s
//! ([`ErrorCode::file`]); the documents' bodies are `render::problem_document`'s.

/// An error code of the API.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    InvalidPage,
    InvalidPerPage,
    UnknownLang,
    PageNotFound,
    NotFound,
    MethodNotAllowed,
}

impl ErrorCode {
    /// Every code, in the order the rules are checked after the method (precedence).
    pub const ALL: [ErrorCode; 6] = [
        ErrorCode::InvalidPage,
        ErrorCode::InvalidPerPage,
        ErrorCode::UnknownLang,
        ErrorCode::PageNotFound,
        ErrorCode::NotFound,
        ErrorCode::MethodNotAllowed,
    ];

    pub fn code(self) -> &'static str {
        match self {
            ErrorCode::InvalidPage => "invalid_page",
            ErrorCode::InvalidPerPage => "invalid_per_page",
            ErrorCode::UnknownLang => "unknown_lang",
            ErrorCode::PageNotFound => "page_not_found",
            ErrorCode::NotFound => "not_found",
            ErrorCode::MethodNotAllowed => "method_not_allowed",
        }
    }

    pub fn status(self) -> u16 {
        match self {
            ErrorCode::InvalidPage | ErrorCode::InvalidPerPage => 400,
            ErrorCode::UnknownLang | ErrorCode::PageNotFound | ErrorCode::NotFound => 404,
            ErrorCode::MethodNotAllowed => 405,
        }
    }

    /// The status's reason phrase.
    pub fn title(self) -> &'static str {
        match self.status() {
            400 => "Bad Request",
            404 => "Not Found",
            _ => "Method Not Allowed",
        }
    }
}
