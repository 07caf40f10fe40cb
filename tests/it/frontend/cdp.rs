//! Headless Chromium driven through the DevTools protocol: a browser started in its own
//! process group (killed as a group on drop), a WebSocket (tungstenite) and the few CDP
//! calls the explorer tests need. Every console message, uncaught exception and log entry
//! the page produces is kept, so tests can assert there were no errors.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::os::unix::process::CommandExt;
use std::path::Path;
use std::process::{Command, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use base64::Engine;
use serde_json::{Value, json};
use tungstenite::{Message, WebSocket};

use crate::harness::Server;
use crate::table::request;

/// A running headless Chromium with one page attached.
pub struct Browser {
    /// Chromium forks renderers and helpers; its process group holds exactly them.
    _process: Server,
    /// Stays alive as long as the browser: its `--user-data-dir`.
    _profile: tempfile::TempDir,
    stderr: Arc<Mutex<String>>,
    ws: WebSocket<TcpStream>,
    next_id: u64,
    /// Every CDP event received so far (`{"method": ..., "params": ...}`).
    pub events: Vec<Value>,
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
        let stream = TcpStream::connect(("127.0.0.1", port)).expect("connecting to DevTools");
        stream.set_read_timeout(Some(Duration::from_secs(30))).unwrap();
        let (ws, _) = tungstenite::client(ws_url.as_str(), stream).expect("a WebSocket upgrade");
        let process = Server::of(child);
        let mut browser = Browser {
            _process: process,
            _profile: profile,
            stderr,
            ws,
            next_id: 0,
            events: Vec::new(),
        };
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
        self.ws.send(Message::text(msg)).expect("sending a CDP command");
        loop {
            let text = match self.ws.read() {
                Ok(Message::Text(text)) => text,
                Ok(Message::Close(_)) | Err(_) => {
                    panic!(
                        "{method}: DevTools went away\nchromium stderr:\n{}",
                        self.stderr.lock().unwrap()
                    )
                }
                Ok(_) => continue, // pings are answered by tungstenite
            };
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
        let data = res["data"].as_str().expect("base64 data");
        let png = base64::engine::general_purpose::STANDARD.decode(data).expect("base64");
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
