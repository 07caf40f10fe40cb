//! `folio serve`: find the project, then hand over to the preview server.

use crate::cli::ServeArgs;
use crate::config::Overrides;
use crate::error::Failure;
use crate::serve;
use crate::site;

pub fn run(args: ServeArgs) -> Result<(), Failure> {
    let config = args.config.clone();
    let project = site::project(config.as_deref(), &Overrides::default())?;
    for w in &project.warnings {
        crate::diag::eprint(&format!("warning: {}: {w}", project.config_path.display()));
    }
    let reload = move || site::project(config.as_deref(), &Overrides::default());
    serve::run(project, reload, serve::Options { bind: args.bind, port: args.port })
}
