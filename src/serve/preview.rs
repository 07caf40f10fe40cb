//! What the preview answers from: [`Snapshot`], one loaded listing with every file of its
//! build that is not a page already rendered, and the file at any path of that build,
//! pages rendered when asked for. [`Preview`] loads a snapshot and, on each reload, swaps
//! the next one in whole: a request holds the snapshot it started with to its end, so it
//! never sees half of one listing and half of another, and a reload that fails leaves the
//! last good snapshot in place.

use std::net::SocketAddr;
use std::sync::Arc;
use std::time::{Instant, SystemTime};

use super::app::App;
use super::snapshot::Snapshot;
use super::stamps::Generation;
use crate::config::Project;
use crate::error::Failure;
use crate::site::InMemory;

/// The preview: the [`App`] that answers requests from the current [`Snapshot`], and the
/// address whose origin replaces an absolute `base_url`'s (as `zola serve` does), so that
/// the preview's links point at itself.
pub struct Preview {
    app: Arc<App>,
    addr: SocketAddr,
}

/// What a load did.
#[derive(Debug, Clone)]
pub struct Loaded {
    pub records: usize,
    pub seconds: f64,
    /// Host limits the listing comes within 10 % of.
    pub warnings: Vec<String>,
}

impl Preview {
    /// Loads `project` for the preview at `addr`. `report` hears of each page that fails
    /// to render when asked for (a template whose output is not JSON on that page).
    pub fn start(
        project: Project,
        addr: SocketAddr,
        report: Box<dyn Fn(&str) + Send + Sync>,
    ) -> Result<(Preview, Loaded), Failure> {
        let start = Instant::now();
        let site = InMemory::load(&local(project, addr))?;
        let warnings = site.warnings.clone();
        let snapshot = Snapshot::new(site, Generation::next(None, SystemTime::now()));
        let loaded = Loaded { records: snapshot.records(), seconds: 0.0, warnings };
        let app = Arc::new(App::new(snapshot, report));
        Ok((Preview { app, addr }, Loaded { seconds: start.elapsed().as_secs_f64(), ..loaded }))
    }

    pub fn app(&self) -> Arc<App> {
        Arc::clone(&self.app)
    }

    /// Loads `project` (the config read again) and swaps it in; a load that fails leaves
    /// the current listing served.
    pub fn reload(&self, project: Project) -> Result<Loaded, Failure> {
        let start = Instant::now();
        let site = InMemory::load(&local(project, self.addr))?;
        let warnings = site.warnings.clone();
        let previous = self.app.snapshot().generation;
        let snapshot = Snapshot::new(site, Generation::next(Some(previous), SystemTime::now()));
        let records = snapshot.records();
        self.app.stamps.bound(snapshot.file_count());
        let replaced = self.app.swap(snapshot);
        // The listing replaced goes here (unless a request still holds it), not in a
        // request that happens to let go of it last.
        drop(replaced);
        Ok(Loaded { records, seconds: start.elapsed().as_secs_f64(), warnings })
    }
}

/// `project` as the preview shows it: an absolute `base_url`'s origin replaced by the
/// preview's own address.
fn local(mut project: Project, addr: SocketAddr) -> Project {
    if !project.shape.base.origin.is_empty() {
        project.shape.base.origin = format!("http://{addr}");
    }
    project
}
