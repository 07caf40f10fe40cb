//! folio pre-renders a paginated JSON listing of attractions into static files.
//!
//! The pipeline is the architecture: [`load`] reads `data/` into [`model::Record`]s,
//! [`sort`] orders them per language, [`paginate`] splits them, [`render`] writes page
//! bodies, and [`output`] puts files on disk atomically. [`site`] owns that pipeline,
//! [`serve`] previews it, [`deploy`] publishes its output; [`cmd`] is what the binary
//! calls, the only module that prints. [`routes`] is the API's vocabulary: the routing
//! table every host config ([`hosts`]) and `serve` follow, and [`routes::layout`], the one
//! map between files and URLs. README.md's "Architecture" section draws the map.

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
