//! What `check` and `build` ask before anything is written: the configured hosts' limits
//! against the files a build makes, and the templates compiled and rendered once.

use std::path::Path;

use super::listing::Listing;
use super::pages::{Pages, describe, page_writer};
use super::statics::{STATICS, explorer_page, rendered_hosts};
use crate::config::{HostTarget, Project};
use crate::error::Failure;
use crate::hosts::HostFile;
use crate::hosts::limits::{self, Terms};
use crate::render::Links;
use crate::routes::{ErrorCode, Map};

/// The configured hosts' files for a build of `map`, and their limits against what that
/// build sends them, as messages: what `check`, `build` and `serve` ask before a write.
pub struct HostLimits {
    pub hosts: Vec<(HostTarget, Vec<HostFile>)>,
    /// Hard limits passed: nothing is written.
    pub over: Vec<String>,
    /// Limits within 10 %: a warning.
    pub near: Vec<String>,
}

/// Every configured host's files and limits for a build of `map` ([`limits::check_all`]
/// counts its files from the map). The whole project: the hosts' files are made from its
/// hosting facts (targets, root, address, R2), the limits read its plan and codecs.
pub fn host_limits(project: &Project, map: &Map) -> HostLimits {
    let hosts = rendered_hosts(project, map);
    // Beside the pages: the API's own files, and the manifest and the lock, which stay in
    // the output folder (a host uploads them too).
    let bookkeeping = [crate::output::manifest::MANIFEST, crate::output::lock::LOCK].len();
    let others = (ErrorCode::ALL.len() + STATICS + bookkeeping) as u64;
    let terms = Terms { plan: project.hosting.cloudflare.plan, r2: project.r2.is_some() };
    let codecs = project.precompress.len() as u64;
    let (over, near) = limits::check_all(&hosts, terms, map, codecs, others);
    HostLimits { hosts, over, near }
}

/// What `folio check` asks of the templates besides the data: the page template and the
/// explorer compile, and, when the data loaded, the page template renders page 1 of every
/// variant at the default size into JSON. Every template problem at once. The whole
/// project: the page writer (`pages.rs`) is compiled from it, as a build compiles it.
pub fn check_templates(project: &Project, listing: Option<&Listing>) -> Result<(), Failure> {
    let mut messages = Vec::new();
    let mut collect = |result: Result<(), Failure>| match result {
        Ok(()) => Ok(()),
        Err(Failure::Template(m)) => {
            messages.extend(m);
            Ok(())
        }
        Err(other) => Err(other),
    };
    collect(explorer_page(&project.templates_dir, &project.shape).map(drop))?;
    match page_writer(project) {
        Ok(writer) => {
            if let Some(listing) = listing {
                let map = &listing.map;
                let variants = map.variants();
                let links: Vec<Links> =
                    variants.iter().map(|&v| Links::new(map, v, project.url_style)).collect();
                let pages = Pages {
                    writer: &writer,
                    records: &listing.data.records,
                    orders: &listing.orders,
                    variants: &variants,
                    links: &links,
                };
                messages.extend(first_pages(&pages, &project.output_dir, map));
            }
        }
        Err(e) => collect(Err(e))?,
    }
    if messages.is_empty() { Ok(()) } else { Err(Failure::Template(messages)) }
}

/// Does the page template render page 1 of every variant at the default size into JSON?
/// The first failure's message, or none (the other variants would repeat it).
pub(super) fn first_pages(pages: &Pages, output_dir: &Path, map: &Map) -> Option<String> {
    let size = map.shape.default_page_size;
    map.variants().iter().enumerate().find_map(|(vi, &v)| {
        let mut out = Vec::new();
        let e = pages.render_page(vi, size, 1, &mut out).err()?;
        Some(describe(output_dir, &map.file(v, size, 1), &e))
    })
}
