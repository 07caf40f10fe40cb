//! A client's process: its deploy, which does not run at all while the client is frozen
//! or dead.

use super::Shared;

/// A client's deploy as a process: not run at all while the client is frozen or dead.
pub(super) struct Process<F> {
    pub(super) deploy: std::pin::Pin<Box<F>>,
    pub(super) world: Shared,
    pub(super) client: usize,
    pub(super) wake: Option<std::pin::Pin<Box<tokio::time::Sleep>>>,
}

impl<F: std::future::Future> std::future::Future for Process<F> {
    type Output = F::Output;

    fn poll(
        mut self: std::pin::Pin<&mut Self>,
        cx: &mut std::task::Context<'_>,
    ) -> std::task::Poll<F::Output> {
        let (dead, frozen) = {
            let w = self.world.lock().unwrap();
            let c = &w.clients[self.client];
            (c.dead, c.frozen_until.filter(|&t| t > tokio::time::Instant::now()))
        };
        if dead {
            return std::task::Poll::Pending;
        }
        if let Some(until) = frozen {
            let wake = self.wake.insert(Box::pin(tokio::time::sleep_until(until)));
            let _ = wake.as_mut().poll(cx);
            return std::task::Poll::Pending;
        }
        self.deploy.as_mut().poll(cx)
    }
}
