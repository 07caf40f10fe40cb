//! One page of a loaded listing, rendered: the code `build` writes every page with and
//! `serve` renders a requested page with, so that both give the same bytes.
//! [`page_writer`] reads and compiles the configured envelope once; [`Pages`] borrows what
//! rendering needs (a build's threads share it), [`Renderer`] owns it for as long as a
//! preview answers from that listing.

use std::path::PathBuf;
use std::sync::Arc;

use super::listing::Listing;
use crate::config::{Envelope, Project};
use crate::error::Failure;
use crate::model::Record;
use crate::paginate;
use crate::render::template::{PageError, PageTemplate};
use crate::render::{Links, PageInfo, PageWriter};
use crate::routes::Map;
use crate::routes::layout::{PageFile, Variant};

/// The configured envelope, ready to write pages. A template is read and compiled here,
/// once a build, so that a syntax error stops the build before anything is staged.
pub(super) fn page_writer(project: &Project) -> Result<PageWriter, Failure> {
    Ok(match &project.shape.envelope {
        Envelope::Standard => PageWriter::Standard { totals: project.shape.totals },
        Envelope::Laravel => PageWriter::Laravel,
        Envelope::LaravelSimple => PageWriter::LaravelSimple,
        Envelope::LaravelResource => PageWriter::LaravelResource,
        Envelope::Template(name) => {
            let path = project.templates_dir.join(format!("{name}.json.j2"));
            let shown = crate::diag::display_path(&path).display().to_string();
            let invalid = |why: &str| Failure::Template(vec![format!("{shown}: {why}")]);
            let source = match std::fs::read_to_string(&path) {
                Ok(source) => source,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(invalid(&format!(
                        "no such template (listing.envelope = \"template:{name}\" reads templates_dir/{name}.json.j2)"
                    )));
                }
                Err(e) if e.kind() == std::io::ErrorKind::InvalidData => {
                    return Err(invalid("is not UTF-8"));
                }
                Err(e) => {
                    return Err(Failure::Other(
                        anyhow::Error::from(e).context(format!("reading `{shown}`")),
                    ));
                }
            };
            let template = PageTemplate::compile(&shown, source, &project.shape)
                .map_err(|message| Failure::Template(vec![message]))?;
            PageWriter::Template(Box::new(template))
        }
    })
}

/// What rendering a page needs, shared by every thread.
pub(super) struct Pages<'a> {
    pub writer: &'a PageWriter,
    pub records: &'a [Record],
    pub orders: &'a [Arc<[u32]>],
    pub variants: &'a [Variant],
    pub links: &'a [Links],
}

/// A thread's copy of one run of a language's items, joined as a page lists them, that
/// every page within the run is cut from ([`Pages::render_page_in`]): each item is then
/// gathered from its record once a language, not once a page size and variant.
#[derive(Default)]
pub(super) struct Run {
    /// The language and the run's number ([`paginate::run_of`]), when filled.
    holds: Option<(usize, usize)>,
    /// The items, comma-separated.
    bytes: Vec<u8>,
    /// Where each item starts in `bytes`.
    starts: Vec<usize>,
}

impl Run {
    /// The bytes of items `from..to` (counted within the run), with the commas between.
    fn items(&self, from: usize, to: usize) -> &[u8] {
        let end = self.starts.get(to).map_or(self.bytes.len(), |&next| next - 1);
        &self.bytes[self.starts[from]..end]
    }
}

/// How many items ahead of the one being copied a page's assembly asks for an item's
/// bytes; the record that holds them is asked for twice as far ahead (see
/// [`crate::model::Item::prefetch`]).
const PREFETCH: usize = 4;

impl Pages<'_> {
    /// Renders one page: its items are copied from each record's pre-serialized bytes.
    pub fn render_page(
        &self,
        variant: usize,
        size: u64,
        page: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), PageError> {
        let v = self.variants[variant];
        let (records, order) = (self.records, &self.orders[v.lang]);
        let info = PageInfo::new(records.len(), size, page);
        let range = paginate::items_of_page(records.len(), size as usize, page);
        self.writer.write(&info, &self.links[variant], variant, out, |out| {
            self.join(v.lang, &order[range], out, |_| {});
        })
    }

    /// Appends the items of `order` in language `lang`, comma-separated, calling `start`
    /// with where each one begins in `out`. The items lie scattered in memory, so each is
    /// asked for a few places ahead of its copy.
    fn join(&self, lang: usize, order: &[u32], out: &mut Vec<u8>, mut start: impl FnMut(usize)) {
        let records = self.records;
        for (i, &idx) in order.iter().enumerate() {
            if let Some(&ahead) = order.get(i + 2 * PREFETCH) {
                records[ahead as usize].prefetch();
            }
            if let Some(&ahead) = order.get(i + PREFETCH) {
                records[ahead as usize].body.prefetch();
            }
            if i > 0 {
                out.push(b',');
            }
            start(out.len());
            records[idx as usize].write_item(lang, out);
        }
    }

    /// The items of run `k` of `lang`'s order, each run holding `len` items.
    fn fill(&self, run: &mut Run, lang: usize, k: usize, len: usize) {
        let order = &self.orders[lang];
        let order = &order[(k * len).min(order.len())..((k + 1) * len).min(order.len())];
        run.bytes.clear();
        run.starts.clear();
        self.join(lang, order, &mut run.bytes, |at| run.starts.push(at));
        run.holds = Some((lang, k));
    }

    /// [`Pages::render_page`], the same bytes, with the items cut from `run` (filled
    /// anew when it holds another run) when the page lies within a run of `run_len` items;
    /// `run_len` is the largest page size, so that every page of a size that divides it does.
    pub fn render_page_in(
        &self,
        run: &mut Run,
        run_len: usize,
        variant: usize,
        size: u64,
        page: usize,
        out: &mut Vec<u8>,
    ) -> Result<(), PageError> {
        let lang = self.variants[variant].lang;
        let range = paginate::items_of_page(self.records.len(), size as usize, page);
        let Some(k) = paginate::run_of(&range, run_len) else {
            return self.render_page(variant, size, page, out);
        };
        if run.holds != Some((lang, k)) {
            self.fill(run, lang, k, run_len);
        }
        let info = PageInfo::new(self.records.len(), size, page);
        let items = run.items(range.start - k * run_len, range.end - k * run_len);
        self.writer
            .write(&info, &self.links[variant], variant, out, |out| out.extend_from_slice(items))
    }
}

/// A page that failed to render, as every command reports it: the template's message,
/// naming the file the page has in the output folder.
pub(super) fn describe(output_dir: &std::path::Path, file: &str, e: &PageError) -> String {
    let shown = crate::diag::display_path(&output_dir.join(file));
    e.describe(&shown.display().to_string())
}

/// A loaded listing that renders any of its pages on request, with [`Pages`]: what a
/// preview holds in memory while it answers from that listing.
pub struct Renderer {
    writer: PageWriter,
    listing: Listing,
    variants: Vec<Variant>,
    links: Vec<Links>,
    /// Where the project's build writes, for messages ([`describe`]).
    output_dir: PathBuf,
}

impl Renderer {
    pub(super) fn new(project: &Project, writer: PageWriter, listing: Listing) -> Renderer {
        let variants = listing.map.variants();
        let links =
            variants.iter().map(|&v| Links::new(&listing.map, v, project.url_style)).collect();
        Renderer { writer, listing, variants, links, output_dir: project.output_dir.clone() }
    }

    pub(super) fn pages(&self) -> Pages<'_> {
        Pages {
            writer: &self.writer,
            records: &self.listing.data.records,
            orders: &self.listing.orders,
            variants: &self.variants,
            links: &self.links,
        }
    }

    pub fn map(&self) -> &Map {
        &self.listing.map
    }

    pub fn records(&self) -> usize {
        self.listing.data.records.len()
    }

    /// Is `page` a page of this listing: a variant and size it has, a page within its count?
    pub fn has(&self, page: &PageFile) -> bool {
        self.variants.contains(&page.variant)
            && self.map().sizes.iter().any(|s| s.size == page.size && page.page <= s.pages as u64)
            && page.page >= 1
    }

    /// Appends the bytes of `page`, as a build writes them; or the message a build would
    /// fail with (only a template can fail). `page` must be one this listing [`has`].
    ///
    /// [`has`]: Renderer::has
    pub fn render(&self, page: &PageFile, out: &mut Vec<u8>) -> Result<(), String> {
        let variant = self.variants.iter().position(|v| *v == page.variant).expect("a page it has");
        let number = usize::try_from(page.page).expect("a page within its count");
        self.pages()
            .render_page(variant, page.size, number, out)
            .map_err(|e| describe(&self.output_dir, &self.map().page_file(page), &e))
    }
}
