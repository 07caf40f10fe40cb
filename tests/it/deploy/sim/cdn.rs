//! The CDN a client purges: it refuses, storms, is gone or answers late as the client's
//! schedule says, and records every path it is sent and every purge it accepts.

use async_trait::async_trait;

use super::schedule::CdnMishap;
use super::{Shared, trace};

/// The CDN one client purges: what it accepts is recorded in the world, at the virtual
/// moment it accepts it, with every path it was sent; the client's plan says how it
/// misbehaves.
pub(super) struct SimCdn {
    pub(super) world: Shared,
    pub(super) client: usize,
    pub(super) cdn: folio::config::Cdn,
}

#[async_trait]
impl folio::deploy::cdn::Client for SimCdn {
    fn cdn(&self) -> &folio::config::Cdn {
        &self.cdn
    }

    fn dialect(&self) -> folio::deploy::purge::Dialect {
        folio::deploy::purge::Dialect::CloudFront
    }

    async fn send(
        &self,
        batch: &folio::deploy::purge::Batch,
        _: usize,
        _: &folio::deploy::cdn::Budget,
    ) -> Result<folio::deploy::cdn::Accepted, folio::deploy::cdn::Declined> {
        let (mishap, sent) = {
            let mut w = self.world.lock().unwrap();
            // What is sent is what is paid for, accepted or not.
            w.clients[self.client].paid_paths.extend(batch.paths.iter().cloned());
            let (at, before) = (w.now_ms(), w.accepted.len());
            w.sent.push((at, self.client, batch.keys.clone(), before));
            (w.clients[self.client].plan.cdn, at)
        };
        match mishap {
            Some(CdnMishap::Refuse) => {
                return Err("403 Forbidden: 10000 Authentication error".to_string().into());
            }
            Some(CdnMishap::Gone) => {
                return Err("could not connect (tried 4 times)".to_string().into());
            }
            Some(CdnMishap::Storm(long)) => {
                tokio::time::sleep(long).await;
                return Err("429 Too Many Requests; still so past purge_wait".to_string().into());
            }
            Some(CdnMishap::Slow(long)) => tokio::time::sleep(long).await,
            None => {}
        }
        let mut w = self.world.lock().unwrap();
        let at = w.now_ms();
        trace(&w, self.client, format_args!("CDN purge {:?}", batch.paths));
        w.cdn_purges.push((at, batch.keys.clone()));
        let (client, keys) = (self.client, batch.keys.clone());
        w.accepted.push(super::Accepted { sent, at, client, keys, struck: None });
        Ok(folio::deploy::cdn::Accepted { id: None, waits: 0 })
    }
}
