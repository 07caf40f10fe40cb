//! A build kept in memory instead of written: what `folio serve` answers from. The
//! pipeline runs as `build` runs it (the envelope compiled, the data loaded and sorted,
//! the hosts' limits checked, every file besides pages rendered) and stops before pages:
//! a page is rendered when it is asked for ([`Renderer`]), by the code a build writes it
//! with, so with the bytes a build writes. Nothing is written anywhere.

use super::listing::load;
use super::pages::{Renderer, page_writer};
use super::preflight::{HostLimits, first_pages, host_limits};
use super::statics::statics;
use crate::compress::Codec;
use crate::config::Project;
use crate::error::Failure;
use crate::hosts::Dir;

/// A loaded listing ready to render any page, and every other file of its build.
pub struct InMemory {
    pub pages: Renderer,
    /// Every file a build writes into the output folder besides pages and their siblings,
    /// by its path below that folder: the error documents, the index, the OpenAPI
    /// document, the explorer, `.nojekyll` and the publish-folder files of the hosts.
    pub files: Vec<(String, Vec<u8>)>,
    /// The precompressed siblings a build writes beside each page.
    pub codecs: Vec<Codec>,
    /// Host limits this listing comes within 10 % of, as a build warns about them.
    pub warnings: Vec<String>,
}

impl InMemory {
    /// Loads `project` as a build would, and fails where a build would fail before it
    /// writes: a template that does not compile (or does not render page 1 of each
    /// variant into JSON, as `folio check` tries), invalid data, a host's hard limit.
    pub fn load(project: &Project) -> Result<InMemory, Failure> {
        let writer = page_writer(project)?;
        let pages = Renderer::new(project, writer, load(project)?);
        let map = pages.map();
        if let Some(message) = first_pages(&pages.pages(), &project.output_dir, map) {
            return Err(Failure::Template(vec![message]));
        }
        let mut files = statics(project, map, pages.records())?;
        let HostLimits { hosts, over, near: warnings } = host_limits(project, map);
        if !over.is_empty() {
            return Err(Failure::Limits(over));
        }
        let publish = hosts.into_iter().flat_map(|(_, files)| files);
        files.extend(
            publish.filter(|f| f.dir == Dir::Output).map(|f| (f.name, f.contents.into_bytes())),
        );
        Ok(InMemory { pages, files, codecs: project.precompress.clone(), warnings })
    }
}
