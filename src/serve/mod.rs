//! The preview server of `folio serve`: [`App`] answers every request by
//! [`crate::routes::Map::resolve`], the same table the host configs are rendered from, with the files of
//! the listing loaded in memory ([`Snapshot`]): pages are rendered when they are asked
//! for, by the code a build writes them with, and nothing is written anywhere. A reload
//! swaps the next snapshot in whole ([`Preview::reload`]); `app.rs` answers, `snapshot.rs`
//! holds what it answers from, `preview.rs` loads and reloads, `listen.rs` takes the
//! connections and bounds what a client can hold. Watching for changes and
//! printing are the command's (`cmd/serve.rs`).

use std::sync::Arc;

mod app;
mod listen;
mod preview;
mod snapshot;
pub mod stamps;

pub use app::App;
pub use listen::{HEAD, STALL};
pub use preview::{Loaded, Preview};
pub use snapshot::{Representation, Snapshot, entity_tag};

/// Serves `app` on `listener` until `shutdown` completes, within the bounds of
/// `listen.rs`.
pub async fn run_server(
    listener: std::net::TcpListener,
    app: Arc<App>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let listener = tokio::net::TcpListener::from_std(listener)?;
    listen::serve(listener, app, shutdown).await
}
