//! A minimal headless-Chromium driver over the DevTools protocol, shared by the browser tests
//! (`browser.rs`, `contests_browser.rs`): start the browser with a fresh profile, open a page,
//! evaluate, click, type, resize to a phone, take screenshots.

use std::io::{BufRead, BufReader};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::{json, Value};
use tungstenite::stream::MaybeTlsStream;
use tungstenite::{Message, WebSocket};

pub const CHROMIUM: &str = "/usr/bin/chromium";

/// The browser, killed with its whole process group on drop.
pub struct Browser {
    child: Child,
    _profile: tempfile::TempDir,
    port: u16,
}

impl Browser {
    pub fn start() -> Browser {
        use std::os::unix::process::CommandExt;
        let profile = tempfile::Builder::new()
            .prefix("ojd-chromium-")
            .tempdir()
            .expect("profile dir");
        let mut child = Command::new(CHROMIUM)
            .args([
                "--headless",
                "--no-sandbox",
                "--disable-gpu",
                "--disable-quic",
                "--no-first-run",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--disable-dev-shm-usage",
                "--hide-scrollbars",
                "--window-size=1200,1500",
                "--remote-debugging-address=127.0.0.1",
                "--remote-debugging-port=0",
            ])
            .arg(format!("--user-data-dir={}", profile.path().display()))
            .arg("about:blank")
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .process_group(0)
            .spawn()
            .expect("chromium starts");
        // "DevTools listening on ws://127.0.0.1:PORT/devtools/browser/..." on stderr.
        let stderr = child.stderr.take().expect("piped");
        let (tx, rx) = std::sync::mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stderr).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        let deadline = Instant::now() + Duration::from_secs(60);
        let port = loop {
            let line = rx
                .recv_timeout(deadline.saturating_duration_since(Instant::now()))
                .expect("chromium prints its DevTools address");
            if let Some(rest) = line.split("ws://127.0.0.1:").nth(1) {
                break rest
                    .split('/')
                    .next()
                    .and_then(|p| p.parse().ok())
                    .expect("a port");
            }
        };
        Browser {
            child,
            _profile: profile,
            port,
        }
    }

    /// Connects to the first page target.
    pub fn page(&self) -> Cdp {
        let list: Value = ureq::get(&format!("http://127.0.0.1:{}/json/list", self.port))
            .call()
            .expect("targets")
            .into_json()
            .expect("json");
        let ws = list
            .as_array()
            .and_then(|a| a.iter().find(|t| t["type"] == "page"))
            .and_then(|t| t["webSocketDebuggerUrl"].as_str())
            .expect("a page target")
            .to_string();
        let (mut socket, _) = tungstenite::connect(ws.as_str()).expect("DevTools websocket");
        if let MaybeTlsStream::Plain(s) = socket.get_mut() {
            s.set_read_timeout(Some(Duration::from_secs(60)))
                .expect("timeout");
        }
        Cdp { socket, next: 0 }
    }
}

impl Drop for Browser {
    fn drop(&mut self) {
        // SAFETY: kill has no memory-safety preconditions; the group is the one we created.
        unsafe { libc::kill(-(self.child.id() as i32), libc::SIGKILL) };
        let _ = self.child.wait();
    }
}

/// A minimal DevTools protocol client: one command at a time, events skipped.
pub struct Cdp {
    socket: WebSocket<MaybeTlsStream<TcpStream>>,
    next: u64,
}

impl Cdp {
    pub fn call(&mut self, method: &str, params: Value) -> Value {
        match self.try_call(method, params) {
            Ok(v) => v,
            Err(e) => panic!("{method}: {e}"),
        }
    }

    /// Sends one command; the browser's error reply, if it sends one, is the `Err`.
    pub fn try_call(&mut self, method: &str, params: Value) -> Result<Value, Value> {
        self.next += 1;
        let id = self.next;
        let msg = json!({ "id": id, "method": method, "params": params }).to_string();
        self.socket
            .send(Message::Text(msg))
            .expect("send to the browser");
        loop {
            let m = match self.socket.read() {
                Ok(m) => m,
                // A read from a socket with a timeout (SO_RCVTIMEO) fails with EINTR when any
                // signal handler of this process runs meanwhile, SA_RESTART or not (signal(7)):
                // nothing was read, so it is read again.
                Err(tungstenite::Error::Io(e)) if e.kind() == std::io::ErrorKind::Interrupted => {
                    continue
                }
                Err(e) => panic!("read from the browser: {e:?}"),
            };
            let Message::Text(text) = m else { continue };
            let v: Value = serde_json::from_str(&text).expect("json from the browser");
            if v["id"] == id {
                if !v["error"].is_null() {
                    return Err(v);
                }
                return Ok(v["result"].clone());
            }
        }
    }

    /// Evaluates a JavaScript expression and returns its value.
    pub fn eval(&mut self, expr: &str) -> Value {
        self.try_eval(expr)
            .unwrap_or_else(|e| panic!("{expr}: {e}"))
    }

    /// The expression's value, or the browser's error reply or the script's exception.
    fn try_eval(&mut self, expr: &str) -> Result<Value, Value> {
        let r = self.try_call(
            "Runtime.evaluate",
            json!({ "expression": expr, "returnByValue": true, "awaitPromise": true }),
        )?;
        if r["exceptionDetails"].is_null() {
            Ok(r["result"]["value"].clone())
        } else {
            Err(r)
        }
    }

    /// Polls `expr` until it is neither null nor false, on a page that has finished loading: a
    /// posted form's answer may be read while only its top has been parsed, and an element
    /// found there says nothing of the rest of the page.
    pub fn wait_for(&mut self, what: &str, expr: &str, timeout: Duration) -> Value {
        let expr = &format!("document.readyState === 'complete' && ({expr})");
        crate::common::wait_until(timeout, || {
            // A navigation (a form posted, a redirect) may tear down the page between two polls:
            // the browser then answers "Inspected target navigated or closed" or "Execution
            // context was destroyed". That is "not yet", not a failure: ask the new page again.
            let v = match self.try_eval(expr) {
                Ok(v) => v,
                Err(e) if navigated(&e.to_string()) => Value::Null,
                Err(e) => panic!("{expr}: {e}"),
            };
            if !v.is_null() && v != false {
                Ok(v)
            } else {
                Err(format!("waiting for {what} ({expr})"))
            }
        })
    }

    pub fn navigate(&mut self, url: &str) {
        self.call("Page.navigate", json!({ "url": url }));
        self.wait_loaded(url);
    }

    pub fn wait_loaded(&mut self, url_prefix: &str) {
        let expr = format!("location.href.startsWith({})", json!(url_prefix));
        self.wait_for("the page to load", &expr, Duration::from_secs(30));
    }

    /// Clicks the middle of the element `selector` with real mouse events.
    pub fn click(&mut self, selector: &str) {
        let expr = format!(
            "(() => {{ const e = document.querySelector({s}); if (!e) return null; e.scrollIntoView({{block: 'center'}}); \
             const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; }})()",
            s = json!(selector)
        );
        let at = self.wait_for(
            &format!("{selector} to exist"),
            &expr,
            Duration::from_secs(10),
        );
        let (x, y) = (at[0].as_f64().expect("x"), at[1].as_f64().expect("y"));
        for kind in ["mousePressed", "mouseReleased"] {
            self.call(
                "Input.dispatchMouseEvent",
                json!({ "type": kind, "x": x, "y": y, "button": "left", "clickCount": 1 }),
            );
        }
    }

    pub fn type_text(&mut self, text: &str) {
        self.call("Input.insertText", json!({ "text": text }));
    }

    /// Sets the viewport: 390 px wide is a phone.
    pub fn viewport(&mut self, width: u32, height: u32, mobile: bool) {
        self.call(
            "Emulation.setDeviceMetricsOverride",
            json!({ "width": width, "height": height, "deviceScaleFactor": 1, "mobile": mobile }),
        );
    }

    /// Puts `file` into the file input `selector`.
    pub fn set_file(&mut self, selector: &str, file: &Path) {
        let doc = self.call("DOM.getDocument", json!({}));
        let root = doc["root"]["nodeId"].clone();
        let node = self.call(
            "DOM.querySelector",
            json!({ "nodeId": root, "selector": selector }),
        );
        self.call(
            "DOM.setFileInputFiles",
            json!({ "nodeId": node["nodeId"], "files": [file.display().to_string()] }),
        );
        self.eval(&format!(
            "document.querySelector({}).dispatchEvent(new Event('change')), true",
            json!(selector)
        ));
    }

    /// Asserts that the page does not scroll sideways.
    pub fn assert_no_overflow(&mut self, what: &str) {
        let (sw, iw) = (
            self.eval("document.documentElement.scrollWidth"),
            self.eval("window.innerWidth"),
        );
        assert!(
            sw.as_f64() <= iw.as_f64(),
            "{what}: the page scrolls sideways ({sw} > {iw})"
        );
    }

    pub fn screenshot(&mut self, path: &Path) {
        let r = self.call(
            "Page.captureScreenshot",
            json!({ "format": "png", "captureBeyondViewport": true }),
        );
        let png = base64_decode(r["data"].as_str().expect("image data"));
        std::fs::write(path, png).expect("write the screenshot");
    }
}

pub fn base64_decode(text: &str) -> Vec<u8> {
    let value = |c: u8| match c {
        b'A'..=b'Z' => c - b'A',
        b'a'..=b'z' => c - b'a' + 26,
        b'0'..=b'9' => c - b'0' + 52,
        b'+' => 62,
        _ => 63,
    };
    let bytes: Vec<u8> = text
        .bytes()
        .filter(|c| !c.is_ascii_whitespace() && *c != b'=')
        .collect();
    let mut out = Vec::with_capacity(bytes.len() * 3 / 4);
    for chunk in bytes.chunks(4) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &c)| n | (u32::from(value(c)) << (18 - 6 * i)));
        out.extend_from_slice(&n.to_be_bytes()[1..chunk.len()]);
    }
    out
}

/// Whether the browser test can run here; `false` means skipped (never under CI).
pub fn have_chromium() -> bool {
    if Path::new(CHROMIUM).exists() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "CI must have {CHROMIUM} (.ci/run installs it)"
    );
    eprintln!("skipped: {CHROMIUM} is not installed");
    false
}

pub fn artifact(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("target");
    std::fs::create_dir_all(&dir).expect("target dir");
    dir.join(name)
}

/// Whether a DevTools error says the page went away under the command (a navigation).
fn navigated(error: &str) -> bool {
    [
        "navigated or closed",
        "context was destroyed",
        "Cannot find context",
    ]
    .iter()
    .any(|m| error.contains(m))
}
