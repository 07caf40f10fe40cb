//! folio pre-renders a paginated JSON listing of attractions into static files.
//!
//! The pipeline is the architecture: [`load`] reads `data/` into [`model::Record`]s,
//! [`sort`] orders them per language, [`paginate`] splits them, [`render`] writes page
//! bodies, and [`output`] puts files on disk atomically. [`site`] owns that pipeline,
//! [`serve`] previews it, [`deploy`] publishes its output. [`routes`] is the API's
//! vocabulary: [`routes::Map`], the one map of a listing's files and URLs, that the writer,
//! every host config ([`hosts`]), `serve` and `deploy` follow. The command line (`cli`)
//! and the commands (`cmd`, the only code that prints) are the binary's, in
//! `src/main.rs`, not this library's API. ARCHITECTURE.md draws it.

pub mod bytes;
pub mod compress;
pub mod config;
pub mod deploy;
pub mod diag;
pub mod environment;
pub mod error;
pub mod explorer;
pub mod fault_injection;
pub mod hosts;
pub mod init;
pub mod load;
pub mod model;
pub mod openapi;
pub mod output;
pub mod paginate;
pub mod render;
pub mod routes;
pub mod serve;
pub mod site;
pub mod sort;
