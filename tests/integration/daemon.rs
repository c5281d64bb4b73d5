//! A real `ojd serve` for tests: a site folder (config, a copy of the fixture problem, the
//! database, scratch), the daemon started as a child process on `127.0.0.1:0`, and a small
//! blocking HTTP client for its API.

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::common;

pub const ALICE: &str = "alice-token";
pub const BOB: &str = "bob-token";
pub const ADMIN: &str = "admin-token";
/// How long a daemon test waits for a submission to be judged: far beyond a quiet run's seconds,
/// for a loaded 2-core host running the waiting tests six at a time.
pub const JUDGED_WITHIN: std::time::Duration = std::time::Duration::from_secs(180);

/// A folder holding everything one daemon (and its restarts) uses.
pub struct Site {
    pub dir: tempfile::TempDir,
}

impl Site {
    /// A site with the fixture problem and `extra` appended to the `[server]` section.
    pub fn new(extra: &str) -> Site {
        Site::with_database(None, extra)
    }

    /// A site whose database is `url` (PostgreSQL) instead of a SQLite file beside it.
    pub fn with_database(url: Option<&str>, extra: &str) -> Site {
        let dir = tempfile::Builder::new()
            .prefix("ojd-site-")
            .tempdir()
            .expect("temp dir");
        let problems = dir.path().join("problems");
        copy_dir(&common::testdata("aplusb"), &problems.join("aplusb"));
        // Chinese in the statement: the pages must render it.
        let statement = problems.join("aplusb/statement.md");
        let mut text = std::fs::read_to_string(&statement).expect("statement");
        text.push_str("\n## 题目描述\n\n输入两个整数 a 和 b，输出它们的和。\n");
        std::fs::write(&statement, text).expect("write statement");
        let config = format!(
            "[server]\nlisten = \"127.0.0.1:0\"\nproblems = \"{p}\"\ndatabase = \"{d}\"\nworkers = 2\n\
             admin_token = \"{ADMIN}\"\nshutdown_grace = \"2s\"\n{extra}\n\
             [[server.users]]\nname = \"alice\"\ntoken = \"{ALICE}\"\n\
             [[server.users]]\nname = \"bob\"\ntoken = \"{BOB}\"\n\
             [sandbox]\nscratch = \"{s}\"\n",
            p = problems.display(),
            d = url.map_or_else(|| dir.path().join("ojd.sqlite3").display().to_string(), String::from),
            s = dir.path().join("scratch").display(),
        );
        std::fs::write(dir.path().join("config.toml"), config).expect("write config");
        Site { dir }
    }

    pub fn path(&self) -> &Path {
        self.dir.path()
    }

    pub fn database(&self) -> PathBuf {
        self.path().join("ojd.sqlite3")
    }

    pub fn start(&self) -> Daemon {
        Daemon::start(self.path(), &[], &[])
    }

    /// The daemon with more command-line arguments after `serve --config FILE`.
    pub fn start_with(&self, args: &[&str]) -> Daemon {
        Daemon::start(self.path(), args, &[])
    }

    /// The daemon with these environment variables too (a test's fault injection).
    pub fn start_env(&self, env: &[(&str, &str)]) -> Daemon {
        Daemon::start(self.path(), &[], env)
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create dir");
    for e in std::fs::read_dir(from).expect("read dir").flatten() {
        let p = e.path();
        if p.is_dir() {
            copy_dir(&p, &to.join(e.file_name()));
        } else {
            std::fs::copy(&p, to.join(e.file_name())).expect("copy");
        }
    }
}

/// A running daemon.
pub struct Daemon {
    pub child: Child,
    pub url: String,
    log: PathBuf,
}

impl Daemon {
    fn start(site: &Path, args: &[&str], env: &[(&str, &str)]) -> Daemon {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map(|d| d.as_nanos())
            .unwrap_or(0);
        let log = site.join(format!("daemon-{nanos}.log"));
        let mut child = common::ojd()
            .args(["serve", "--config"])
            .arg(site.join("config.toml"))
            .args(args)
            .envs(env.iter().copied())
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("log file"))
            .spawn()
            .expect("ojd serve starts");
        let stdout = child.stdout.take().expect("piped");
        let (tx, rx) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines().map_while(Result::ok) {
                let _ = tx.send(line);
            }
        });
        // Startup builds the fixture's answers (compiling the reference): allow for a slow host.
        let deadline = Instant::now() + Duration::from_secs(180);
        let url = loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match rx.recv_timeout(left) {
                Ok(line) => {
                    if let Some(url) = line.strip_prefix("ojd: listening on ") {
                        break url.trim_end_matches('/').to_string();
                    }
                }
                Err(_) => {
                    let _ = child.kill();
                    panic!(
                        "ojd serve did not start; its log:\n{}",
                        std::fs::read_to_string(&log).unwrap_or_default()
                    );
                }
            }
        };
        Daemon { child, url, log }
    }

    pub fn pid(&self) -> i32 {
        self.child.id() as i32
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }

    /// The log once it has a line with every one of `parts`: the daemon writes a judging's
    /// line after it stores the verdict, so a client that saw the verdict may read the log
    /// before it. Panics after 30 s, with the log.
    pub fn log_with(&self, parts: &[&str]) -> String {
        common::wait_until(Duration::from_secs(30), || {
            let log = self.log();
            if log.lines().any(|l| parts.iter().all(|p| l.contains(p))) {
                Ok(log)
            } else {
                Err(format!("no line with {parts:?} in the log: {log}"))
            }
        })
    }

    /// SIGKILL, no chance to clean up.
    pub fn kill9(mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }

    /// SIGTERM; returns the exit status and how long the daemon took to stop.
    pub fn terminate(mut self, bound: Duration) -> (std::process::ExitStatus, Duration) {
        let t = Instant::now();
        // SAFETY: kill has no memory-safety preconditions; the pid is our live child.
        unsafe { libc::kill(self.pid(), libc::SIGTERM) };
        match common::wait_exit(&mut self.child, bound) {
            Some(st) => {
                if !st.success() {
                    eprintln!(
                        "ojd serve exited with {st} after SIGTERM; its log:\n{}",
                        self.log()
                    );
                }
                (st, t.elapsed())
            }
            None => {
                let _ = self.child.kill();
                panic!(
                    "ojd serve did not stop within {bound:?} of SIGTERM; its log:\n{}",
                    self.log()
                );
            }
        }
    }

    pub fn get(&self, path: &str, token: Option<&str>) -> (u16, Value) {
        let mut req = ureq::get(&format!("{}{path}", self.url));
        if let Some(t) = token {
            req = req.set("Authorization", &format!("Bearer {t}"));
        }
        response(req.call())
    }

    pub fn get_text(&self, path: &str, token: Option<&str>) -> (u16, String) {
        let mut req = ureq::get(&format!("{}{path}", self.url));
        if let Some(t) = token {
            req = req.set("Authorization", &format!("Bearer {t}"));
        }
        match req.call() {
            Ok(r) => (r.status(), r.into_string().unwrap_or_default()),
            Err(ureq::Error::Status(code, r)) => (code, r.into_string().unwrap_or_default()),
            Err(e) => panic!("GET {path}: {e}"),
        }
    }

    pub fn post_json(&self, path: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
        let mut req = ureq::post(&format!("{}{path}", self.url));
        if let Some(t) = token {
            req = req.set("Authorization", &format!("Bearer {t}"));
        }
        response(req.send_json(body.clone()))
    }

    /// A multipart upload: text fields and one file.
    pub fn post_file(
        &self,
        token: &str,
        fields: &[(&str, &str)],
        filename: &str,
        data: &[u8],
    ) -> (u16, Value) {
        response(self.post_file_raw(token, fields, filename, data))
    }

    /// As [`Daemon::post_file`], with transport errors left to the caller.
    #[allow(clippy::result_large_err)] // ureq's own error type, in a test helper
    pub fn post_file_raw(
        &self,
        token: &str,
        fields: &[(&str, &str)],
        filename: &str,
        data: &[u8],
    ) -> Result<ureq::Response, ureq::Error> {
        let boundary = "ojd-test-boundary-7d1e";
        let mut body = Vec::new();
        for (k, v) in fields {
            body.extend_from_slice(
                format!(
                    "--{boundary}\r\nContent-Disposition: form-data; name=\"{k}\"\r\n\r\n{v}\r\n"
                )
                .as_bytes(),
            );
        }
        body.extend_from_slice(
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"{filename}\"\r\nContent-Type: application/octet-stream\r\n\r\n")
                .as_bytes(),
        );
        body.extend_from_slice(data);
        body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
        let req = ureq::post(&format!("{}/api/v1/submissions", self.url))
            .set("Authorization", &format!("Bearer {token}"))
            .set(
                "Content-Type",
                &format!("multipart/form-data; boundary={boundary}"),
            );
        req.send_bytes(&body)
    }

    /// Submits a file of the fixture as text; returns the new id.
    pub fn submit_file(&self, token: &str, path: &Path) -> i64 {
        let source = std::fs::read_to_string(path).expect("fixture source");
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or("x");
        let (code, body) = self.post_json(
            "/api/v1/submissions",
            Some(token),
            &serde_json::json!({ "problem": "aplusb", "filename": name, "source": source }),
        );
        assert_eq!(code, 201, "submitting {}: {body}", path.display());
        body["id"].as_i64().expect("an id")
    }

    /// Polls until submission `id` is done; returns it.
    pub fn wait_done(&self, id: i64, token: &str, timeout: Duration) -> Value {
        common::try_wait_until(timeout, || {
            let (code, body) = self.get(&format!("/api/v1/submissions/{id}"), Some(token));
            assert_eq!(code, 200, "{body}");
            if body["state"] == "done" {
                Ok(body)
            } else {
                Err(format!("submission {id} not judged: {body}"))
            }
        })
        .unwrap_or_else(|why| panic!("{why}\nlog:\n{}", self.log()))
    }

    /// Reads a server-sent event stream until `done` (or the timeout); returns (event, data) pairs.
    pub fn events(&self, id: i64, token: &str, timeout: Duration) -> Vec<(String, Value)> {
        events_at(&self.url, id, token, timeout)
    }

    /// [`events_until_at`] on this daemon.
    pub fn events_until(
        &self,
        id: i64,
        token: &str,
        timeout: Duration,
        stop: impl Fn(&str, &Value) -> bool,
    ) -> Vec<(String, Value)> {
        events_until_at(&self.url, id, token, timeout, stop)
    }
}

/// Reads the event stream of submission `id` on the node at `url` (see [`Daemon::events`]).
pub fn events_at(url: &str, id: i64, token: &str, timeout: Duration) -> Vec<(String, Value)> {
    events_until_at(url, id, token, timeout, |_, _| false)
}

/// Reads submission `id`'s event stream until an event for which `stop` holds, or `done` (or the
/// timeout); returns the (event, data) pairs read, the one that ended the reading last. A test
/// waits on the judging's own events this way (a test running, a verdict), not on the clock.
pub fn events_until_at(
    url: &str,
    id: i64,
    token: &str,
    timeout: Duration,
    stop: impl Fn(&str, &Value) -> bool,
) -> Vec<(String, Value)> {
    {
        let r = ureq::get(&format!("{url}/api/v1/submissions/{id}/events"))
            .set("Authorization", &format!("Bearer {token}"))
            .timeout(timeout)
            .call()
            .expect("event stream opens");
        let mut reader = BufReader::new(r.into_reader());
        let mut events = Vec::new();
        let mut name = String::new();
        let mut line = String::new();
        loop {
            line.clear();
            match reader.read_line(&mut line) {
                Ok(0) | Err(_) => break,
                Ok(_) => {}
            }
            let l = line.trim_end();
            if let Some(n) = l.strip_prefix("event: ") {
                name = n.to_string();
            } else if let Some(d) = l.strip_prefix("data: ") {
                let data: Value = serde_json::from_str(d).unwrap_or(Value::Null);
                let stopped = stop(&name, &data);
                events.push((name.clone(), data));
                if stopped {
                    // Mid-stream: dropping the reader closes the connection.
                    return events;
                }
                if name == "done" {
                    break;
                }
            }
        }
        let _ = reader.read_to_end(&mut Vec::new());
        events
    }
}

impl Drop for Daemon {
    fn drop(&mut self) {
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

pub fn response(r: Result<ureq::Response, ureq::Error>) -> (u16, Value) {
    match r {
        Ok(r) => {
            let code = r.status();
            (code, r.into_json().unwrap_or(Value::Null))
        }
        Err(ureq::Error::Status(code, r)) => (code, r.into_json().unwrap_or(Value::Null)),
        Err(e) => panic!("request failed: {e}"),
    }
}

/// Every known submission of the fixture (expected verdict code, file) but the one that spins
/// until its CPU-time limit (`busy.c`, a TLE): that limit is the CPU's, and a daemon
/// test runs in the waiting group, six at a time on two CPUs, where that run could be starved
/// of the CPU and end as a host fault. Its TLE is `sleep.c`'s, which waits for no CPU. (`judge`
/// judges `busy.c`, two tests at a time.)
pub fn known_submissions() -> Vec<(String, PathBuf)> {
    let mut out = Vec::new();
    let root = common::testdata("aplusb/submissions");
    let mut folders: Vec<_> = std::fs::read_dir(&root)
        .expect("submissions")
        .flatten()
        .map(|e| e.path())
        .collect();
    folders.sort();
    for folder in folders {
        let name = folder
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        let verdict = ojd_judge::Verdict::from_folder(&name)
            .expect("a verdict folder")
            .code()
            .to_string();
        let mut files: Vec<_> = std::fs::read_dir(&folder)
            .expect("folder")
            .flatten()
            .map(|e| e.path())
            .collect();
        files.retain(|f| !f.ends_with("busy.c"));
        files.sort();
        out.extend(files.into_iter().map(|f| (verdict.clone(), f)));
    }
    out
}

/// Compiles a fixture C file on the host into a ready binary (the tests' "binary upload").
pub fn host_binary(source: &Path, out: &Path) -> Vec<u8> {
    let st = std::process::Command::new("gcc")
        .args(["-O2", "-o"])
        .arg(out)
        .arg(source)
        .status()
        .expect("gcc runs");
    assert!(st.success(), "gcc failed on {}", source.display());
    std::fs::read(out).expect("binary")
}

/// Reloading an edited statement three times leaves three package versions nothing uses;
/// `POST /api/v1/admin/gc` collects them (here with a retention of 0 s), keeps the current
/// one, and a submission is judged afterwards as before.
#[test]
fn reloaded_versions_nothing_uses_are_collected() {
    require_root!();
    let site = Site::new("rate_limit_per_minute = 0");
    let d = site.start();
    let statement = site.path().join("problems/aplusb/statement.md");
    for i in 0..3 {
        let text = std::fs::read_to_string(&statement).expect("statement");
        std::fs::write(&statement, format!("{text}\nEdit {i}.\n")).expect("edit");
        let (code, body) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &serde_json::json!({}));
        assert_eq!(code, 200, "{body}");
    }
    let (code, body) = d.post_json(
        "/api/v1/admin/gc",
        Some(ADMIN),
        &serde_json::json!({ "retention": "0s" }),
    );
    assert_eq!(code, 200, "{body}");
    assert_eq!(body["packages"], 3, "{body}");
    let (code, body) = d.post_json(
        "/api/v1/admin/gc",
        Some(ADMIN),
        &serde_json::json!({ "retention": "soon" }),
    );
    assert_eq!(code, 400, "{body}");
    let (code, body) = d.post_json(
        "/api/v1/submissions",
        Some(ALICE),
        &serde_json::json!({ "problem": "aplusb", "filename": "a.py",
            "source": "import sys\nd = sys.stdin.read().split()\nt = int(d[0])\nprint(\"\\n\".join(str(int(d[1 + 2 * i]) + int(d[2 + 2 * i])) for i in range(t)))\n" }),
    );
    assert_eq!(code, 201, "{body}");
    let id = body["id"].as_i64().expect("id");
    let sub = d.wait_done(id, ADMIN, Duration::from_secs(120));
    assert_eq!(sub["verdict"], "AC", "{sub}");
    let (status, _) = d.terminate(Duration::from_secs(30));
    assert!(status.success());
}

/// The daemon's log follows the one terminal layer: `--color always` colours it even into a
/// file, and by default a log that is not a terminal gets no escape codes (issue 20: one
/// terminal layer, `NO_COLOR` and `--color` honoured everywhere). A SIGTERM right after the
/// daemon announced itself stops it gracefully (exit 0): its handler is in place before the
/// announcement (it used to be installed later, and such a SIGTERM killed it).
#[test]
fn the_log_is_coloured_only_as_color_says() {
    require_root!();
    let site = Site::new("");
    for (args, coloured) in [(&[][..], false), (&["--color", "always"][..], true)] {
        let d = site.start_with(args);
        let log = d.log_with(&["problem(s) ready"]);
        assert_eq!(log.contains("\x1b["), coloured, "{args:?}: {log:?}");
        let (status, _) = d.terminate(Duration::from_secs(30));
        assert!(status.success(), "{args:?}");
    }
}
