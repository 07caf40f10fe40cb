//! What `check` and `build` ask before anything is written: the configured hosts' limits
//! against the files a build makes, and the templates compiled and rendered once.

use super::listing::Listing;
use super::pages::{Pages, describe, page_writer};
use super::statics::{STATICS, explorer_page, rendered_hosts};
use crate::config::{HostTarget, Project};
use crate::error::Failure;
use crate::hosts::limits::{self, Finding, Shipment, Terms};
use crate::hosts::{Dir, HostFile};
use crate::render::Links;
use crate::routes::{ErrorCode, Map, Size};

/// Every configured host's limits against what a build of `records` records sends it:
/// `(passed hard limits, limits within 10 %)`, as messages. `pages` and `statics` are the
/// page files and the other files of the output folder (publish-folder host files
/// included); siblings and folio's bookkeeping are counted here.
pub(super) fn within_limits(
    project: &Project,
    map: &Map,
    (pages, statics): (u64, u64),
    hosts: &[(HostTarget, Vec<HostFile>)],
) -> (Vec<String>, Vec<String>) {
    let siblings = project.precompress.len() as u64;
    // The manifest and the lock stay in the output folder: a host uploads them too.
    let bookkeeping = [crate::output::manifest::MANIFEST, crate::output::lock::LOCK].len() as u64;
    let files = pages * (1 + siblings) + statics + bookkeeping;
    // The fullest folder is a listing's at the smallest page size.
    let smallest =
        map.sizes.iter().min_by_key(|s| s.size).copied().unwrap_or(Size { size: 1, pages: 0 });
    let folder = map.variants().first().map_or_else(String::new, |&v| {
        let first = map.file(v, smallest.size, 1);
        first.rsplit_once('/').map_or("", |(dir, _)| dir).to_string()
    });
    let in_folder = smallest.pages as u64 * (1 + siblings);
    let variants = map.variants().len() as u64;
    let per_size: Vec<(u64, u64)> =
        map.sizes.iter().map(|s| (s.size, variants * s.pages as u64 * (1 + siblings))).collect();
    let terms = Terms { plan: project.hosting.cloudflare.plan, r2: project.r2.is_some() };
    let (mut over, mut near) = (Vec::new(), Vec::new());
    for (target, host) in hosts {
        let fullest = (folder.clone(), in_folder);
        let per_size = per_size.clone();
        let shipment = Shipment { files, fullest, host, siblings: siblings > 0, per_size };
        for Finding { over: passed, message, .. } in limits::check(*target, terms, &shipment) {
            if passed { over.push(message) } else { near.push(message) }
        }
    }
    (over, near)
}

/// [`within_limits`] for `folio check`, which plans no files: the same counts worked out
/// from the listing's map.
pub fn host_limits(project: &Project, map: &Map) -> (Vec<String>, Vec<String>) {
    limits_of(project, map, &rendered_hosts(project, map))
}

/// [`host_limits`] with the hosts' files already rendered.
pub(super) fn limits_of(
    project: &Project,
    map: &Map,
    hosts: &[(HostTarget, Vec<HostFile>)],
) -> (Vec<String>, Vec<String>) {
    let variants = map.variants().len() as u64;
    let per_variant: u64 = map.sizes.iter().map(|s| s.pages as u64).sum();
    let publish = hosts.iter().flat_map(|(_, f)| f).filter(|f| f.dir == Dir::Output).count();
    let statics = (ErrorCode::ALL.len() + STATICS + publish) as u64;
    within_limits(project, map, (variants * per_variant, statics), hosts)
}

/// What `folio check` asks of the templates besides the data: the page template and the
/// explorer compile, and, when the data loaded, the page template renders page 1 of every
/// variant at the default size into JSON. Every template problem at once.
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
    collect(explorer_page(project).map(drop))?;
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
                messages.extend(first_pages(&pages, project, map));
            }
        }
        Err(e) => collect(Err(e))?,
    }
    if messages.is_empty() { Ok(()) } else { Err(Failure::Template(messages)) }
}

/// Does the page template render page 1 of every variant at the default size into JSON?
/// The first failure's message, or none (the other variants would repeat it).
pub(super) fn first_pages(pages: &Pages, project: &Project, map: &Map) -> Option<String> {
    let size = project.shape.default_page_size;
    map.variants().iter().enumerate().find_map(|(vi, &v)| {
        let mut out = Vec::new();
        let e = pages.render_page(vi, size, 1, &mut out).err()?;
        Some(describe(&project.output_dir, &map.file(v, size, 1), &e))
    })
}
