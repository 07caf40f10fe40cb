//! folio pre-renders a paginated JSON listing of attractions into static files.
//!
//! The pipeline is the architecture: [`load`] reads `data/` into [`model::Record`]s,
//! [`sort`] orders them per language, [`paginate`] splits them, [`render`] writes page
//! bodies, and [`output`] puts files on disk atomically. [`site`] owns that pipeline;
//! [`cmd`] is the glue the binary calls.

pub mod bytes;
pub mod cli;
pub mod cmd;
pub mod compress;
pub mod config;
pub mod deploy;
pub mod diag;
pub mod error;
pub mod explorer;
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
