//! A TCP proxy between folio and a store: it counts requests by kind, cuts every
//! connection after so many write requests (a server that stops), or blanks the ETags of
//! listings (a store that lists none).

use std::collections::BTreeMap;
use std::io::{Read, Write};
use std::net::{Shutdown, TcpListener, TcpStream};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// A TCP proxy in front of the server: counts requests and write requests, and after
/// `cut_after` write requests cuts every connection and refuses new ones, as a server
/// that stops (while the real one keeps its state for the test to inspect).
pub struct Proxy {
    pub port: u16,
    requests: Arc<AtomicUsize>,
    writes: Arc<AtomicUsize>,
    kinds: Arc<Mutex<BTreeMap<&'static str, usize>>>,
    /// Each request's line and headers, as sent, in order.
    heads: Arc<Mutex<Vec<String>>>,
    stop: Arc<AtomicBool>,
}

impl Drop for Proxy {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
    }
}

impl Proxy {
    pub fn start(upstream: u16, cut_after: usize) -> Proxy {
        Proxy::start_with(upstream, cut_after, false)
    }

    /// A proxy that blanks every `<ETag>` element of what the server answers (keeping
    /// its length, so the framing holds): a store whose listings carry no ETags, as some
    /// S3-compatible servers are.
    pub fn without_listed_etags(upstream: u16) -> Proxy {
        Proxy::start_with(upstream, usize::MAX, true)
    }

    fn start_with(upstream: u16, cut_after: usize, blank_etags: bool) -> Proxy {
        let listener = TcpListener::bind("127.0.0.1:0").unwrap();
        let port = listener.local_addr().unwrap().port();
        listener.set_nonblocking(true).unwrap();
        let requests = Arc::new(AtomicUsize::new(0));
        let writes = Arc::new(AtomicUsize::new(0));
        let stop = Arc::new(AtomicBool::new(false));
        let kinds = Arc::new(Mutex::new(BTreeMap::new()));
        let heads = Arc::new(Mutex::new(Vec::new()));
        let (r, w, s, k) = (requests.clone(), writes.clone(), stop.clone(), kinds.clone());
        let h = heads.clone();
        std::thread::spawn(move || {
            while !s.load(Ordering::SeqCst) {
                let Ok((client, _)) = listener.accept() else {
                    std::thread::sleep(Duration::from_millis(5));
                    continue;
                };
                if w.load(Ordering::SeqCst) >= cut_after {
                    drop(client); // the server is gone
                    continue;
                }
                client.set_nonblocking(false).unwrap();
                let server = TcpStream::connect(("127.0.0.1", upstream)).unwrap();
                let (r, w, s, k) = (r.clone(), w.clone(), s.clone(), k.clone());
                let h = h.clone();
                let (c2, s2) = (client.try_clone().unwrap(), server.try_clone().unwrap());
                std::thread::spawn(move || {
                    pump_requests(client, server, (&r, &w, &k, &h), cut_after, &s);
                });
                std::thread::spawn(move || {
                    let (mut from, mut to) = (s2, c2);
                    if blank_etags {
                        pump_blanking_etags(&mut from, &mut to);
                    } else {
                        let _ = std::io::copy(&mut from, &mut to);
                    }
                    let _ = to.shutdown(Shutdown::Both);
                });
            }
        });
        Proxy { port, requests, writes, kinds, heads, stop }
    }

    /// Each request's line and headers seen so far (headers as sent, names in any case).
    pub fn heads(&self) -> Vec<String> {
        self.heads.lock().unwrap().clone()
    }

    /// Requests seen, by kind, in folio's words (`3 list, 0 head, 1 get, 0 put, 0 delete`).
    pub fn kinds(&self) -> String {
        let k = self.kinds.lock().unwrap();
        let n = |kind: &str| k.get(kind).copied().unwrap_or(0);
        format!(
            "{} list, {} head, {} get, {} put, {} delete",
            n("list"),
            n("head"),
            n("get"),
            n("put"),
            n("delete")
        )
    }

    pub fn writes(&self) -> usize {
        self.writes.load(Ordering::SeqCst)
    }

    pub fn requests(&self) -> usize {
        self.requests.load(Ordering::SeqCst)
    }
}

/// Copies client → server, counting request lines by method, until `cut_after` writes.
type Counters<'a> = (
    &'a AtomicUsize,
    &'a AtomicUsize,
    &'a Mutex<BTreeMap<&'static str, usize>>,
    &'a Mutex<Vec<String>>,
);

fn pump_requests(
    mut client: TcpStream,
    mut server: TcpStream,
    (requests, writes, kinds, heads): Counters<'_>,
    cut_after: usize,
    stop: &AtomicBool,
) {
    let mut buf = vec![0u8; 64 * 1024];
    loop {
        let n = match client.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        let chunk = &buf[..n];
        for kind in request_kinds(chunk) {
            requests.fetch_add(1, Ordering::SeqCst);
            if !matches!(kind, "list" | "get" | "head") {
                writes.fetch_add(1, Ordering::SeqCst);
            }
            *kinds.lock().unwrap().entry(kind).or_default() += 1;
        }
        // A request's line and headers: the text from a request line to the blank line.
        let text = String::from_utf8_lossy(chunk);
        for part in text.split("\r\n\r\n") {
            if let Some(at) = part.find(" HTTP/1.1\r\n") {
                let start = part[..at].rfind('\n').map_or(0, |i| i + 1);
                heads.lock().unwrap().push(part[start..].to_string());
            }
        }
        if writes.load(Ordering::SeqCst) > cut_after
            || stop.load(Ordering::SeqCst)
            || server.write_all(chunk).is_err()
        {
            break;
        }
    }
    let _ = client.shutdown(Shutdown::Both);
    let _ = server.shutdown(Shutdown::Both);
}

/// Copies server → client, each `<ETag>...</ETag>` element turned into as many spaces
/// (whitespace between XML elements). An element split across reads is held back until
/// it is whole.
fn pump_blanking_etags(from: &mut TcpStream, to: &mut TcpStream) {
    let (open, close) = (b"<ETag>".as_slice(), b"</ETag>".as_slice());
    let find = |hay: &[u8], needle: &[u8], from: usize| {
        hay[from..].windows(needle.len()).position(|w| w == needle).map(|i| i + from)
    };
    let (mut pending, mut buf) = (Vec::new(), vec![0u8; 64 * 1024]);
    loop {
        let n = match from.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        pending.extend_from_slice(&buf[..n]);
        let mut at = 0;
        let mut hold = pending.len().saturating_sub(open.len() - 1);
        while let Some(start) = find(&pending, open, at) {
            match find(&pending, close, start) {
                Some(end) => {
                    pending[start..end + close.len()].fill(b' ');
                    at = end + close.len();
                }
                None => {
                    hold = start;
                    break;
                }
            }
        }
        if to.write_all(&pending[..hold]).is_err() {
            return;
        }
        pending.drain(..hold);
    }
    let _ = to.write_all(&pending);
}

/// The kind of each request line in a chunk (at its start or after a `\n`: a request
/// follows the previous one's body directly, which may end in a plain `\n`), by the same
/// rule folio counts them: a GET asking for a listing is `list`, a POST asking for a batch
/// delete is `delete`.
fn request_kinds(chunk: &[u8]) -> Vec<&'static str> {
    let text = String::from_utf8_lossy(chunk);
    let mut kinds = Vec::new();
    for line in text.split('\n') {
        let mut words = line.split(' ');
        let (Some(method), Some(target), Some(version)) =
            (words.next(), words.next(), words.next())
        else {
            continue;
        };
        if !version.starts_with("HTTP/1") {
            continue;
        }
        let (path, query) = target.split_once('?').unwrap_or((target, ""));
        let has = |w: &str| query.split('&').any(|p| p == w || p.starts_with(&format!("{w}=")));
        kinds.push(match method {
            "GET" if has("list-type") || query.contains("comp=list") || path.ends_with("/o") => {
                "list"
            }
            "GET" => "get",
            "HEAD" => "head",
            "DELETE" => "delete",
            "POST" if has("delete") => "delete",
            "PUT" | "POST" => "put",
            _ => continue,
        });
    }
    kinds
}
