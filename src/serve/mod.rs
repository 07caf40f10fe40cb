//! The preview server of `folio serve`: [`App`] answers every request by
//! [`crate::routes::Map::resolve`], the same table the host configs are rendered from, with the files of
//! the listing loaded in memory ([`Snapshot`]): pages are rendered when they are asked
//! for, by the code a build writes them with, and nothing is written anywhere. A reload
//! swaps the next snapshot in whole ([`Preview::reload`]); `app.rs` answers, `snapshot.rs`
//! holds what it answers from, `preview.rs` loads and reloads. Watching for changes and
//! printing are the command's (`cmd/serve.rs`).

use std::sync::Arc;

use axum::extract::{Request, State};
use axum::response::Response;

mod app;
mod preview;
mod snapshot;
pub mod stamps;

pub use app::App;
pub use preview::{Loaded, Preview};
pub use snapshot::{Representation, Snapshot, entity_tag};

async fn handler(State(app): State<Arc<App>>, req: Request) -> Response {
    let query = req.uri().query().unwrap_or("").to_string();
    app.handle(req.method(), req.uri().path(), &query, req.headers())
}

/// Serves `app` on `listener` until `shutdown` completes.
pub async fn run_server(
    listener: std::net::TcpListener,
    app: Arc<App>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> std::io::Result<()> {
    listener.set_nonblocking(true)?;
    let listener = tokio::net::TcpListener::from_std(listener)?;
    let router = axum::Router::new().fallback(handler).with_state(app);
    axum::serve(listener, router).with_graceful_shutdown(shutdown).await
}
