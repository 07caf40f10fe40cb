//! What a CDN client is to the purge: it names its CDN and dialect and sends one request
//! of a plan, answering [`Accepted`] or [`Declined`].

use super::answer::{Accepted, Declined};
use super::wait::Budget;
use crate::config::Cdn;
use crate::deploy::purge::{Batch, Dialect};

/// A CDN folio purges.
#[async_trait::async_trait]
pub trait Client: Send + Sync {
    /// The CDN, as folio.toml names it.
    fn cdn(&self) -> &Cdn;
    /// How it takes a purge.
    fn dialect(&self) -> Dialect;
    /// Sends request `n` of a deploy's purge to it, waiting as it asks within `budget`.
    async fn send(&self, batch: &Batch, n: usize, budget: &Budget) -> Result<Accepted, Declined>;
}
