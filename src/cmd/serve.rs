//! `folio serve`: find the project, then hand over to the preview server.

use crate::cli::ServeArgs;
use crate::config::{Overrides, Project};
use crate::error::Failure;
use crate::serve;

pub fn run(args: ServeArgs) -> Result<(), Failure> {
    let config = args.config.clone();
    let project = Project::discover(config.as_deref(), &Overrides::default())?;
    let reload = move || Project::discover(config.as_deref(), &Overrides::default());
    serve::run(project, reload, serve::Options { bind: args.bind, port: args.port })
}
