//! The files a build writes beside the pages: the error documents, the index, the OpenAPI
//! document, the explorer, `.nojekyll`, and the host configs of every configured target.

use std::path::Path;

use anyhow::Context;

use crate::config::{HostTarget, Project, Shape};
use crate::error::Failure;
use crate::explorer;
use crate::hosts::{self, HostCtx, HostFile};
use crate::openapi;
use crate::render;
use crate::routes::layout;
use crate::routes::{ErrorCode, Map};

/// The API's files besides pages and error documents: index, OpenAPI, explorer,
/// `.nojekyll` (the build's plan holds them).
pub(super) const STATICS: usize = 4;

/// Every file of the output folder besides pages, their siblings and host files: the
/// error documents, the index, the OpenAPI document, the explorer and `.nojekyll`. The
/// whole project: these gather its parts (the templates folder, `[openapi]`, the items'
/// fields), each room handed only its own.
pub(super) fn statics(
    project: &Project,
    map: &Map,
    total: usize,
) -> Result<Vec<(String, Vec<u8>)>, Failure> {
    let mut files: Vec<(String, Vec<u8>)> = ErrorCode::ALL
        .iter()
        .map(|&code| (code.file(), render::problem_document(code, &map.shape)))
        .collect();
    files.push((layout::INDEX.into(), render::index(map, total)));
    let openapi = openapi::render(&project.openapi, openapi::Items::of(project), map);
    files.push((layout::OPENAPI.into(), openapi));
    files.push((layout::EXPLORER.into(), explorer_page(&project.templates_dir, &map.shape)?));
    files.push((layout::NOJEKYLL.into(), Vec::new()));
    debug_assert_eq!(files.len(), ErrorCode::ALL.len() + STATICS);
    Ok(files)
}

/// `api/explorer.html` from `templates/explorer.html.j2` when the project has one, else
/// from the built-in template.
pub(super) fn explorer_page(templates_dir: &Path, shape: &Shape) -> Result<Vec<u8>, Failure> {
    let path = templates_dir.join(explorer::TEMPLATE);
    let (shown, source) = if path.is_file() {
        let source = std::fs::read_to_string(&path)
            .with_context(|| format!("reading `{}`", path.display()))?;
        (crate::diag::display_path(&path).display().to_string(), source)
    } else {
        ("built-in explorer.html.j2".to_string(), explorer::BUILTIN.to_string())
    };
    explorer::render(&shown, &source, shape).map_err(|e| Failure::Template(vec![e]))
}

/// What every host emitter of `project` is given: its shape, the server's root and
/// address, the R2 bucket the Cloudflare Worker reads: the one place a project becomes
/// what the hosts read.
fn host_ctx(project: &Project) -> HostCtx<'_> {
    HostCtx {
        shape: &project.shape,
        root: project.server_root.clone(),
        listen: project.hosting.listen.clone(),
        r2: project.r2.clone(),
    }
}

/// Every configured target's files.
pub(super) fn rendered_hosts(project: &Project, map: &Map) -> Vec<(HostTarget, Vec<HostFile>)> {
    let ctx = host_ctx(project);
    (project.hosting.targets.iter()).map(|&t| (t, hosts::render(t, &ctx, map))).collect()
}

/// Every configured target's `hosting/` files as folio.toml alone makes them, the same for
/// any data, and with `[hosting] root` as it says it: empty, a build names its own output
/// folder, a fact of the machine it ran on that a deploy from another clone must not take
/// for a change (a deploy compares these with the last one's).
pub fn server_files(project: &Project) -> Vec<(HostTarget, Vec<HostFile>)> {
    let ctx = HostCtx { root: project.hosting.root.clone(), ..host_ctx(project) };
    (project.hosting.targets.iter()).map(|&t| (t, hosts::server_files(t, &ctx))).collect()
}
