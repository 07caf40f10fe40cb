//! The preview's connections: the accept loop, hyper's HTTP/1 server on each connection,
//! and what bounds what a client can hold (docs/cli.md, "folio serve"): a request head
//! whole within [`HEAD`] of the connection waiting for one (a new connection, or a kept
//! alive one between requests), a response owed that moves no byte for [`STALL`], and
//! the open connections, at most [`max_connections`]. What answers is [`App`]; this file
//! only carries bytes to it and back.

use std::collections::HashMap;
use std::convert::Infallible;
use std::io;
use std::pin::Pin;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::http::Request;
use bytes::Bytes;
use hyper::body::Incoming;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::net::TcpStream;
use tokio::sync::Notify;

use super::App;

/// How long a connection waiting for a request head (a new one, or a kept-alive one once
/// its last answer is written) has for the whole head: hyper's header timer, which runs
/// from the moment the connection waits for a head, whether bytes come or not. So it is the
/// idle keep-alive bound too. A browser sends its head at once; a slow client (or one that
/// sends half a line and stops) is closed.
pub const HEAD: Duration = Duration::from_secs(10);

/// How long a connection that is owed an answer (a request being answered, or bytes the
/// client has not taken yet) may move no byte either way: a client that stopped reading.
/// A client that reads, however slowly, moves bytes and is never closed by it.
pub const STALL: Duration = Duration::from_secs(30);

/// The most connections open at once whatever the descriptor limit.
const MOST_CONNECTIONS: u64 = 512;

/// The bounds a server runs with: [`HEAD`] and [`STALL`], but as a test shortens them
/// (`FOLIO_FAULT=serve-head:SECS,serve-stall:SECS`, in the tests' build only).
#[derive(Debug, Clone, Copy)]
struct Bounds {
    head: Duration,
    stall: Duration,
    connections: usize,
}

impl Bounds {
    fn of_process() -> Bounds {
        let faults = crate::fault_injection::process();
        Bounds {
            head: faults.serve_head_secs.map_or(HEAD, Duration::from_secs),
            stall: faults.serve_stall_secs.map_or(STALL, Duration::from_secs),
            connections: max_connections(),
        }
    }
}

/// How many connections the preview keeps open at once, by the process's descriptor
/// limit (`ulimit -n`): [`connections_for`] it.
fn max_connections() -> usize {
    #[cfg(unix)]
    let soft = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
    #[cfg(not(unix))]
    let soft: Option<u64> = None;
    connections_for(soft)
}

/// What a descriptor limit of `soft` leaves for connections once a quarter of it, and at
/// least 32, is kept for what else the preview opens (the data files a reload reads, the
/// watcher, the runtime): 96 under `ulimit -n 128`; at least 1, at most 512 (also with no
/// limit).
fn connections_for(soft: Option<u64>) -> usize {
    let soft = soft.unwrap_or(u64::MAX);
    let kept = (soft / 4).max(32);
    usize::try_from(soft.saturating_sub(kept).clamp(1, MOST_CONNECTIONS)).unwrap_or(1)
}

/// One open connection, as the accept loop and the sweep see it.
struct Conn {
    /// When it last moved a byte either way, in milliseconds since the server started.
    moved: AtomicU64,
    /// Requests it is being answered, from the head read to the answer's body let go of.
    owed: AtomicUsize,
    /// Its last write found the socket full: the client has not taken what it was sent.
    blocked: AtomicBool,
    /// Told to close (made way for a new one, or stalled): not to be chosen again.
    closing: AtomicBool,
    close: Notify,
}

impl Conn {
    /// Neither answering nor waiting on the client to read: closing it loses nothing (the
    /// bytes it sent are in the kernel's hands, which sends them before its FIN).
    fn idle(&self) -> bool {
        self.owed.load(Ordering::Acquire) == 0 && !self.blocked.load(Ordering::Acquire)
    }

    fn close(&self) {
        self.closing.store(true, Ordering::Release);
        self.close.notify_one();
    }
}

/// The connections open, and a clock for their `moved`.
struct Open {
    conns: Mutex<HashMap<u64, Arc<Conn>>>,
    /// A connection ended: there is room again.
    freed: Notify,
    start: Instant,
}

impl Open {
    fn now(&self) -> u64 {
        u64::try_from(self.start.elapsed().as_millis()).unwrap_or(u64::MAX)
    }

    fn conns(&self) -> std::sync::MutexGuard<'_, HashMap<u64, Arc<Conn>>> {
        self.conns.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn add(&self, id: u64) -> Arc<Conn> {
        let conn = Arc::new(Conn {
            moved: AtomicU64::new(self.now()),
            owed: AtomicUsize::new(0),
            blocked: AtomicBool::new(false),
            closing: AtomicBool::new(false),
            close: Notify::new(),
        });
        self.conns().insert(id, Arc::clone(&conn));
        conn
    }

    fn remove(&self, id: u64) {
        self.conns().remove(&id);
        self.freed.notify_one();
    }

    /// Closes the idle connection that moved a byte longest ago, for a new one (as nginx
    /// closes kept-alive connections when it runs out): a client held off by idle
    /// connections is answered at once. False when every connection is answering.
    fn make_way(&self) -> bool {
        let conns = self.conns();
        let idle = conns.values().filter(|c| !c.closing.load(Ordering::Acquire) && c.idle());
        match idle.min_by_key(|c| c.moved.load(Ordering::Acquire)) {
            Some(oldest) => {
                oldest.close();
                true
            }
            None => false,
        }
    }

    /// Closes each connection past its bound: owed an answer and still for `stall`, or
    /// idle and still for a second past `head` (hyper's header timer closes such a one
    /// first; this is the bound should it not run).
    fn sweep(&self, bounds: Bounds) {
        let now = self.now();
        let ms = |d: Duration| u64::try_from(d.as_millis()).unwrap_or(u64::MAX);
        for conn in self.conns().values() {
            let still = now.saturating_sub(conn.moved.load(Ordering::Acquire));
            let bound = if conn.idle() { ms(bounds.head) + 1000 } else { ms(bounds.stall) };
            if still > bound && !conn.closing.load(Ordering::Acquire) {
                conn.close();
            }
        }
    }

    fn len(&self) -> usize {
        self.conns().len()
    }
}

/// Serves `app` on `listener` until `shutdown` completes; then takes no connection more,
/// lets each one finish the answer it is writing (an idle one closes at once), and
/// returns once they are all closed.
pub async fn serve(
    listener: tokio::net::TcpListener,
    app: Arc<App>,
    shutdown: impl std::future::Future<Output = ()> + Send + 'static,
) -> io::Result<()> {
    let bounds = Bounds::of_process();
    let open = Arc::new(Open {
        conns: Mutex::new(HashMap::new()),
        freed: Notify::new(),
        start: Instant::now(),
    });
    let graceful = hyper_util::server::graceful::GracefulShutdown::new();
    let sweeper = {
        let open = Arc::clone(&open);
        let every = (bounds.head / 4).min(Duration::from_secs(1));
        tokio::spawn(async move {
            let mut tick = tokio::time::interval(every);
            loop {
                tick.tick().await;
                open.sweep(bounds);
            }
        })
    };
    tokio::pin!(shutdown);
    let mut next_id = 0u64;
    loop {
        if open.len() >= bounds.connections {
            let made_way = open.make_way();
            // Made way: the one closing frees its place soon. Else every connection is
            // answering: the next waits in the listen queue for one to end.
            tokio::select! {
                () = open.freed.notified() => {}
                () = tokio::time::sleep(Duration::from_millis(if made_way { 50 } else { 250 })) => {}
                () = &mut shutdown => break,
            }
            continue;
        }
        let stream = tokio::select! {
            accepted = listener.accept() => match accepted {
                Ok((stream, _)) => stream,
                // The client gave up before it was taken (axum's `serve` skips these too).
                Err(e) if matches!(
                    e.kind(),
                    io::ErrorKind::ConnectionAborted | io::ErrorKind::ConnectionReset
                        | io::ErrorKind::ConnectionRefused
                ) => continue,
                // Out of descriptors (or another passing refusal): an idle connection
                // makes way, and the listen queue holds the next one meanwhile.
                Err(_) => {
                    open.make_way();
                    tokio::time::sleep(Duration::from_millis(50)).await;
                    continue;
                }
            },
            () = &mut shutdown => break,
        };
        let _ = stream.set_nodelay(true);
        let id = next_id;
        next_id += 1;
        let conn = open.add(id);
        let io = hyper_util::rt::TokioIo::new(Watched {
            stream,
            conn: Arc::clone(&conn),
            open: Arc::clone(&open),
        });
        let service = {
            let (app, conn) = (Arc::clone(&app), Arc::clone(&conn));
            hyper::service::service_fn(move |req: Request<Incoming>| {
                let owed = Owed::new(&conn);
                let query = req.uri().query().unwrap_or("");
                let res = app.handle(req.method(), req.uri().path(), query, req.headers());
                let res = res.map(|body| Body::new(Answer { body, _owed: owed }));
                std::future::ready(Ok::<_, Infallible>(res))
            })
        };
        let connection = hyper::server::conn::http1::Builder::new()
            .timer(hyper_util::rt::TokioTimer::new())
            .header_read_timeout(bounds.head)
            .serve_connection(io, service);
        let connection = graceful.watch(connection);
        let open = Arc::clone(&open);
        tokio::spawn(async move {
            tokio::select! {
                _ = connection => {}
                () = conn.close.notified() => {}
            }
            open.remove(id);
        });
    }
    drop(listener);
    graceful.shutdown().await;
    sweeper.abort();
    Ok(())
}

/// A request being answered on `conn`, until the answer's body is let go of (hyper lets
/// go of it once it has taken its last bytes, or the connection ends).
struct Owed(Arc<Conn>);

impl Owed {
    fn new(conn: &Arc<Conn>) -> Owed {
        conn.owed.fetch_add(1, Ordering::AcqRel);
        Owed(Arc::clone(conn))
    }
}

impl Drop for Owed {
    fn drop(&mut self) {
        self.0.owed.fetch_sub(1, Ordering::AcqRel);
    }
}

/// An answer's body, holding its request [`Owed`] while hyper writes it.
struct Answer {
    body: Body,
    _owed: Owed,
}

impl http_body::Body for Answer {
    type Data = Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<http_body::Frame<Bytes>, axum::Error>>> {
        Pin::new(&mut self.body).poll_frame(cx)
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> http_body::SizeHint {
        self.body.size_hint()
    }
}

/// A connection's socket, noting on its [`Conn`] when a byte moves and whether the client
/// has taken what was written.
struct Watched {
    stream: TcpStream,
    conn: Arc<Conn>,
    open: Arc<Open>,
}

impl Watched {
    fn moved(&self) {
        self.conn.moved.store(self.open.now(), Ordering::Release);
    }

    fn wrote(&self, polled: &Poll<io::Result<usize>>) {
        match polled {
            Poll::Pending => self.conn.blocked.store(true, Ordering::Release),
            Poll::Ready(Ok(n)) if *n > 0 => {
                self.conn.blocked.store(false, Ordering::Release);
                self.moved();
            }
            Poll::Ready(_) => {}
        }
    }
}

impl AsyncRead for Watched {
    fn poll_read(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        let this = self.get_mut();
        let before = buf.filled().len();
        let polled = Pin::new(&mut this.stream).poll_read(cx, buf);
        if matches!(polled, Poll::Ready(Ok(()))) && buf.filled().len() > before {
            this.moved();
        }
        polled
    }
}

impl AsyncWrite for Watched {
    fn poll_write(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.stream).poll_write(cx, buf);
        this.wrote(&polled);
        polled
    }

    fn poll_write_vectored(
        self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        bufs: &[io::IoSlice<'_>],
    ) -> Poll<io::Result<usize>> {
        let this = self.get_mut();
        let polled = Pin::new(&mut this.stream).poll_write_vectored(cx, bufs);
        this.wrote(&polled);
        polled
    }

    fn is_write_vectored(&self) -> bool {
        self.stream.is_write_vectored()
    }

    fn poll_flush(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_flush(cx)
    }

    fn poll_shutdown(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        Pin::new(&mut self.get_mut().stream).poll_shutdown(cx)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn open(conns: &[(u64, usize, bool)]) -> Open {
        let open =
            Open { conns: Mutex::new(HashMap::new()), freed: Notify::new(), start: Instant::now() };
        for (id, &(moved, owed, blocked)) in conns.iter().enumerate() {
            let conn = open.add(id as u64);
            conn.moved.store(moved, Ordering::Release);
            conn.owed.store(owed, Ordering::Release);
            conn.blocked.store(blocked, Ordering::Release);
        }
        open
    }

    fn closing(open: &Open) -> Vec<u64> {
        let mut ids: Vec<u64> = (open.conns().iter())
            .filter(|(_, c)| c.closing.load(Ordering::Acquire))
            .map(|(id, _)| *id)
            .collect();
        ids.sort_unstable();
        ids
    }

    #[test]
    fn the_idle_connection_that_moved_longest_ago_makes_way_never_one_answering() {
        // 0 answers, 1 waits on its client to read, 2 and 3 are idle (3 moved last).
        let open = open(&[(0, 1, false), (5, 0, true), (10, 0, false), (20, 0, false)]);
        assert!(open.make_way());
        assert_eq!(closing(&open), [2]);
        assert!(open.make_way());
        assert_eq!(closing(&open), [2, 3], "one told to close is not chosen again");
        assert!(!open.make_way(), "none idle is left");
        assert_eq!(closing(&open), [2, 3]);
    }

    #[test]
    fn a_connection_is_swept_past_its_bound_and_a_moving_one_never() {
        let bounds = Bounds {
            head: Duration::from_secs(10),
            stall: Duration::from_secs(30),
            connections: 4,
        };
        let open = open(&[]);
        let now = 100_000;
        let ago = |ms: u64| now - ms;
        for (moved, owed, blocked) in [
            (ago(11_500), 0, false), // 0: idle past head and its margin
            (ago(10_500), 0, false), // 1: idle, within the margin
            (ago(31_000), 1, false), // 2: answering, stalled
            (ago(29_000), 0, true),  // 3: its client reads no more, not yet stalled
            (ago(31_000), 0, true),  // 4: its client read nothing for 31 s
            (ago(100), 1, true),     // 5: a client reading a long answer
        ] {
            let conn = open.add(open.len() as u64);
            conn.moved.store(moved, Ordering::Release);
            conn.owed.store(owed, Ordering::Release);
            conn.blocked.store(blocked, Ordering::Release);
        }
        // The clock as if 100 s had passed.
        let start = Instant::now().checked_sub(Duration::from_millis(now)).expect("up 100 s");
        let open = Open { start, ..open };
        open.sweep(bounds);
        assert_eq!(closing(&open), [0, 2, 4]);
    }

    #[test]
    fn the_connections_kept_leave_a_quarter_of_the_descriptors_and_at_least_32() {
        let kept: Vec<usize> = [Some(16), Some(64), Some(128), Some(1024), Some(1 << 20), None]
            .map(connections_for)
            .into();
        assert_eq!(kept, [1, 32, 96, 512, 512, 512]);
        assert!((1..=512).contains(&max_connections()));
    }
}
