//! Headless Chromium driven through the DevTools protocol: a browser started in its own
//! process group (killed as a group on drop), a minimal WebSocket client (RFC 6455, text
//! frames only) and the few CDP calls the explorer tests need. Every console message,
//! uncaught exception and log entry the page produces is kept, so tests can assert there
//! were no errors.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::table::request;

/// A running headless Chromium with one page attached.
pub struct Browser {
    child: Child,
    /// Stays alive as long as the browser: its `--user-data-dir`.
    _profile: tempfile::TempDir,
    stderr: Arc<Mutex<String>>,
    ws: TcpStream,
    next_id: u64,
    /// Every CDP event received so far (`{"method": ..., "params": ...}`).
    pub events: Vec<Value>,
}

impl Drop for Browser {
    fn drop(&mut self) {
        // Chromium forks renderers and helpers; its process group holds exactly them.
        let group = format!("-{}", self.child.id());
        let _ = Command::new("kill").args(["-KILL", "--", &group]).status();
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Browser {
    /// Starts `chromium` headless on loopback, with the flags that keep it off the network
    /// and a fresh profile, and attaches to its first page.
    pub fn start() -> Browser {
        let profile = tempfile::tempdir().expect("a temp dir");
        let mut child = Command::new("chromium")
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-extensions",
                "--disable-dev-shm-usage",
                "--hide-scrollbars",
                "--mute-audio",
                "--window-size=1280,900",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("starting chromium");
        // Chromium prints its DevTools endpoint on stderr. A thread reads stderr to the end
        // (so Chromium never blocks on a full pipe) and reports the port when it sees it.
        let mut lines = BufReader::new(child.stderr.take().expect("piped"));
        let stderr = Arc::new(Mutex::new(String::new()));
        let sink = Arc::clone(&stderr);
        let (found, port) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            let mut line = String::new();
            while lines.read_line(&mut line).unwrap_or(0) > 0 {
                sink.lock().unwrap().push_str(&line);
                if let Some(rest) =
                    line.trim().strip_prefix("DevTools listening on ws://127.0.0.1:")
                    && let Ok(port) = rest.split('/').next().unwrap_or("").parse::<u16>()
                {
                    let _ = found.send(port);
                }
                line.clear();
            }
        });
        let Ok(port) = port.recv_timeout(Duration::from_secs(60)) else {
            let _ = child.kill();
            let _ = child.wait();
            panic!("chromium printed no DevTools endpoint:\n{}", stderr.lock().unwrap());
        };
        let list = request(port, "GET", "/json/list", &[]);
        let targets: Value = serde_json::from_slice(&list.body).expect("/json/list is JSON");
        let ws_url = targets
            .as_array()
            .and_then(|t| t.iter().find(|t| t["type"] == "page"))
            .and_then(|t| t["webSocketDebuggerUrl"].as_str())
            .unwrap_or_else(|| panic!("no page target in {targets}"))
            .to_string();
        let path = ws_url.split_once(&format!("127.0.0.1:{port}")).expect("a loopback URL").1;
        let ws = handshake(port, path);
        let mut browser =
            Browser { child, _profile: profile, stderr, ws, next_id: 0, events: Vec::new() };
        for domain in ["Runtime.enable", "Log.enable", "Page.enable"] {
            browser.call(domain, json!({}));
        }
        browser
    }

    /// Sends one command and waits for its result, keeping the events that come first.
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        self.next_id += 1;
        let id = self.next_id;
        let msg = json!({"id": id, "method": method, "params": params}).to_string();
        send_text(&mut self.ws, msg.as_bytes());
        loop {
            let text = read_message(&mut self.ws).unwrap_or_else(|e| {
                panic!("{method}: {e}\nchromium stderr:\n{}", self.stderr.lock().unwrap())
            });
            let v: Value = serde_json::from_str(&text).expect("CDP sends JSON");
            if v["id"] == id {
                if let Some(err) = v.get("error") {
                    panic!("{method} failed: {err}");
                }
                return v["result"].clone();
            }
            if v.get("method").is_some() {
                self.events.push(v);
            }
        }
    }

    /// Opens `url` in the page.
    pub fn navigate(&mut self, url: &str) {
        let res = self.call("Page.navigate", json!({"url": url}));
        assert!(res.get("errorText").is_none(), "navigating to {url}: {res}");
    }

    /// Evaluates `expression` in the page and returns its value (promises awaited).
    pub fn eval(&mut self, expression: &str) -> Value {
        let res = self.call(
            "Runtime.evaluate",
            json!({"expression": expression, "returnByValue": true, "awaitPromise": true}),
        );
        if let Some(ex) = res.get("exceptionDetails") {
            panic!("evaluating {expression}: {ex}");
        }
        res["result"]["value"].clone()
    }

    /// Polls `expression` until it is `true` (throwing counts as not yet: the document
    /// may still be loading); fails with `what` and the page's text.
    pub fn wait_for(&mut self, what: &str, expression: &str) {
        let start = Instant::now();
        let guarded = format!(
            "(() => {{ try {{ return ({expression}); }} catch (e) {{ return false; }} }})()"
        );
        while self.eval(&guarded) != json!(true) {
            if start.elapsed() > Duration::from_secs(20) {
                let text = self.eval("document.body ? document.body.innerText : ''");
                panic!(
                    "timed out waiting for {what}; the page shows:\n{}",
                    text.as_str().unwrap_or("")
                );
            }
            std::thread::sleep(Duration::from_millis(50));
        }
    }

    /// A real mouse click in the middle of the element with this id.
    pub fn click(&mut self, id: &str) {
        let at = self.eval(&format!(
            "(() => {{ const r = document.getElementById({id:?}).getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()"
        ));
        let (x, y) = (at[0].as_f64().unwrap(), at[1].as_f64().unwrap());
        for kind in ["mouseMoved", "mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({"type": kind, "x": x, "y": y, "button": "left", "clickCount": 1}),
            );
        }
    }

    /// Saves a PNG of the page's viewport.
    pub fn screenshot(&mut self, path: &Path) {
        let res = self.call("Page.captureScreenshot", json!({"format": "png"}));
        let png = base64(res["data"].as_str().expect("base64 data"));
        assert!(png.starts_with(b"\x89PNG"), "not a PNG");
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, png).unwrap();
    }

    /// Console errors, uncaught exceptions and error log entries seen so far, except log
    /// entries `allowed` accepts.
    pub fn errors(&mut self, allowed: impl Fn(&Value) -> bool) -> Vec<String> {
        // A round trip, so that events sent before it have arrived.
        self.eval("1");
        let mut out = Vec::new();
        for e in &self.events {
            let p = &e["params"];
            match e["method"].as_str().unwrap_or("") {
                "Runtime.exceptionThrown" => {
                    out.push(format!("uncaught: {}", p["exceptionDetails"]))
                }
                "Runtime.consoleAPICalled" if p["type"] == "error" || p["type"] == "assert" => {
                    out.push(format!("console.{}: {}", p["type"], p["args"]))
                }
                "Log.entryAdded" if p["entry"]["level"] == "error" && !allowed(&p["entry"]) => {
                    out.push(format!("log: {}", p["entry"]))
                }
                _ => {}
            }
        }
        out
    }
}

fn handshake(port: u16, path: &str) -> TcpStream {
    let mut ws = TcpStream::connect(("127.0.0.1", port)).expect("connecting to DevTools");
    ws.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
    let req = format!(
        "GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: Zm9saW8tZXhwbG9yZXItdA==\r\nSec-WebSocket-Version: 13\r\n\r\n"
    );
    ws.write_all(req.as_bytes()).unwrap();
    let mut head = Vec::new();
    let mut byte = [0u8; 1];
    while !head.ends_with(b"\r\n\r\n") {
        ws.read_exact(&mut byte).expect("reading the handshake");
        head.push(byte[0]);
    }
    let head = String::from_utf8_lossy(&head);
    assert!(head.starts_with("HTTP/1.1 101"), "no WebSocket upgrade: {head}");
    ws
}

/// One masked text frame (clients must mask, RFC 6455 §5.3).
fn send_text(ws: &mut TcpStream, payload: &[u8]) {
    let mask = [0x5a, 0x17, 0xc3, 0x08];
    let mut frame = vec![0x81];
    match payload.len() {
        n if n < 126 => frame.push(0x80 | n as u8),
        n if n <= 0xffff => {
            frame.push(0x80 | 126);
            frame.extend_from_slice(&(n as u16).to_be_bytes());
        }
        n => {
            frame.push(0x80 | 127);
            frame.extend_from_slice(&(n as u64).to_be_bytes());
        }
    }
    frame.extend_from_slice(&mask);
    frame.extend(payload.iter().enumerate().map(|(i, b)| b ^ mask[i % 4]));
    ws.write_all(&frame).expect("writing a frame");
}

/// Reads one whole message (joining continuation frames), answering pings.
fn read_message(ws: &mut TcpStream) -> Result<String, String> {
    let mut message = Vec::new();
    loop {
        let mut head = [0u8; 2];
        ws.read_exact(&mut head).map_err(|e| format!("reading a frame: {e}"))?;
        let (fin, opcode) = (head[0] & 0x80 != 0, head[0] & 0x0f);
        let len = match head[1] & 0x7f {
            126 => {
                let mut b = [0u8; 2];
                ws.read_exact(&mut b).map_err(|e| e.to_string())?;
                u16::from_be_bytes(b) as usize
            }
            127 => {
                let mut b = [0u8; 8];
                ws.read_exact(&mut b).map_err(|e| e.to_string())?;
                u64::from_be_bytes(b) as usize
            }
            n => n as usize,
        };
        let mut payload = vec![0u8; len];
        ws.read_exact(&mut payload).map_err(|e| format!("reading a payload: {e}"))?;
        match opcode {
            0x8 => return Err("DevTools closed the connection".into()),
            0x9 => {
                let mut pong = vec![0x8a, 0x80];
                pong.extend_from_slice(&[0; 4]);
                ws.write_all(&pong).map_err(|e| e.to_string())?;
                continue;
            }
            0xa => continue,
            _ => message.extend_from_slice(&payload),
        }
        if fin {
            return String::from_utf8(message).map_err(|e| e.to_string());
        }
    }
}

/// Standard base64 (with padding), as CDP returns screenshots.
fn base64(text: &str) -> Vec<u8> {
    let value = |c: u8| -> u32 {
        match c {
            b'A'..=b'Z' => (c - b'A') as u32,
            b'a'..=b'z' => (c - b'a' + 26) as u32,
            b'0'..=b'9' => (c - b'0' + 52) as u32,
            b'+' => 62,
            b'/' => 63,
            _ => panic!("not base64: {c}"),
        }
    };
    let clean: Vec<u8> = text.bytes().filter(|&c| c != b'=' && !c.is_ascii_whitespace()).collect();
    let mut out = Vec::with_capacity(clean.len() * 3 / 4);
    for chunk in clean.chunks(4) {
        let mut acc = 0u32;
        for (i, &c) in chunk.iter().enumerate() {
            acc |= value(c) << (18 - 6 * i);
        }
        let bytes = acc.to_be_bytes();
        out.extend_from_slice(&bytes[1..chunk.len()]);
    }
    out
}

#[test]
fn base64_decodes_with_and_without_padding() {
    assert_eq!(base64("Zm9saW8="), b"folio");
    assert_eq!(base64("Zm9s"), b"fol");
    assert_eq!(base64("Zm8="), b"fo");
}
