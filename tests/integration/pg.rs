//! A private PostgreSQL cluster for the tests: `initdb` in a temporary folder (as the
//! `postgres` user when we are root), listening on a free loopback port. The first test that
//! asks for it starts it and it serves every later test of the run (starting a cluster costs
//! seconds, and some 35 tests use one); it is stopped, and its folder removed, when the test
//! binary exits. Each test gets a database of its own; a test that stops or reconfigures the
//! server takes a [`Cluster::private`] one. Without PostgreSQL the tests that need it are
//! skipped, and FAIL when `CI` is set.

use std::path::PathBuf;
use std::process::Command;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

const BIN: &str = "/usr/lib/postgresql/15/bin";

pub struct Cluster {
    dir: tempfile::TempDir,
    pub port: u16,
}

/// The shared cluster, once started: held until the process exits ([`stop_shared`]).
static CLUSTER: Mutex<Option<Arc<Cluster>>> = Mutex::new(None);
static DATABASES: AtomicUsize = AtomicUsize::new(0);

fn is_root() -> bool {
    crate::common::is_root()
}

/// Runs a PostgreSQL tool, as `postgres` when we are root (the server refuses to run as root).
fn tool(name: &str) -> Command {
    let path = format!("{BIN}/{name}");
    if is_root() {
        let mut c = Command::new("runuser");
        c.args(["-u", "postgres", "--", &path]);
        c
    } else {
        Command::new(path)
    }
}

/// Whether PostgreSQL 15 is here; when it is not, says "skipped", and fails under `CI`.
fn installed() -> bool {
    if std::path::Path::new(BIN).join("initdb").exists() {
        return true;
    }
    assert!(
        std::env::var_os("CI").is_none(),
        "PostgreSQL 15 is not installed ({BIN}), and CI must run the PostgreSQL tests"
    );
    eprintln!("skipped: PostgreSQL 15 is not installed");
    false
}

/// A loopback port nothing listens on (for the moment).
pub fn free_port() -> u16 {
    std::net::TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("a free loopback port")
}

impl Cluster {
    /// The shared cluster, started by the first caller; `None` (skip) when PostgreSQL is not
    /// installed and `CI` is not set. Its users never stop or reconfigure it.
    pub fn get() -> Option<Arc<Cluster>> {
        if !installed() {
            return None;
        }
        let mut slot = CLUSTER.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(c) = slot.as_ref() {
            return Some(c.clone());
        }
        let c = Arc::new(Cluster::start());
        *slot = Some(c.clone());
        // SAFETY: atexit only records the function; `stop_shared` is an `extern "C" fn()` that
        // neither unwinds (it catches panics) nor calls `exit`.
        let registered = unsafe { libc::atexit(stop_shared) };
        assert_eq!(
            registered, 0,
            "atexit: the shared cluster could not be stopped at exit"
        );
        Some(c)
    }

    /// A cluster of the caller's own, that no other test shares: for tests that stop and
    /// restart the server. `None` as for [`Cluster::get`].
    pub fn private() -> Option<Cluster> {
        if !installed() {
            return None;
        }
        Some(Cluster::start())
    }

    fn start() -> Cluster {
        let dir = tempfile::Builder::new()
            .prefix("ojd-pg-")
            .tempdir()
            .expect("temp dir");
        if is_root() {
            let ok = Command::new("chown")
                .args(["postgres:postgres", &dir.path().display().to_string()])
                .status()
                .expect("chown");
            assert!(ok.success(), "chown the cluster folder to postgres");
        }
        let data = dir.path().join("data");
        let out = tool("initdb")
            .args(["-D", &data.display().to_string()])
            .args(["-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8"])
            .output()
            .expect("run initdb");
        assert!(
            out.status.success(),
            "initdb failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let cluster = Cluster {
            dir,
            port: free_port(),
        };
        cluster.launch();
        cluster
    }

    /// Starts the server on the cluster's port (again, after [`Cluster::stop_fast`]).
    pub fn launch(&self) {
        let options = format!(
            "-c listen_addresses=127.0.0.1 -p {} -k {} -c fsync=off -c max_connections=200",
            self.port,
            self.dir.path().display()
        );
        let log = self.dir.path().join("log");
        let out = tool("pg_ctl")
            .args(["-D", &self.data().display().to_string(), "-w", "-t", "60"])
            .args(["-l", &log.display().to_string(), "-o", &options, "start"])
            .output()
            .expect("run pg_ctl");
        assert!(
            out.status.success(),
            "pg_ctl start failed: {}\n{}",
            String::from_utf8_lossy(&out.stderr),
            std::fs::read_to_string(&log).unwrap_or_default()
        );
    }

    /// Stops the server the way an operator restarting it does (`pg_ctl stop -m fast`: every
    /// session is ended, transactions in flight roll back).
    pub fn stop_fast(&self) {
        let out = tool("pg_ctl")
            .args([
                "-D",
                &self.data().display().to_string(),
                "-m",
                "fast",
                "-w",
                "stop",
            ])
            .output()
            .expect("run pg_ctl");
        assert!(
            out.status.success(),
            "pg_ctl stop failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }

    /// The URL of the maintenance database.
    pub fn admin_url(&self) -> String {
        format!("postgres://postgres@127.0.0.1:{}/postgres", self.port)
    }

    /// A fresh, empty database; returns its URL.
    pub fn database(&self) -> String {
        let name = format!(
            "ojd_{}_{}",
            std::process::id(),
            DATABASES.fetch_add(1, Ordering::Relaxed)
        );
        let mut c = postgres::Client::connect(&self.admin_url(), postgres::NoTls)
            .expect("connect to the test cluster");
        c.batch_execute(&format!("CREATE DATABASE {name}"))
            .expect("create a database");
        format!("postgres://postgres@127.0.0.1:{}/{name}", self.port)
    }

    /// Stops the server now (tests of a database that goes away).
    pub fn stop(&self) {
        let _ = tool("pg_ctl")
            .args([
                "-D",
                &self.data().display().to_string(),
                "-m",
                "immediate",
                "-w",
                "stop",
            ])
            .output();
    }

    /// Turns TLS on with a server certificate for 127.0.0.1 signed by a CA of its own, and
    /// makes the server refuse TCP connections without TLS (`hostnossl … reject`); restarts the
    /// server. Returns the CA's certificate and another CA's (which signed nothing of it).
    /// Databases are to be made before: the test helpers connect without TLS.
    pub fn enable_tls(&self) -> (PathBuf, PathBuf) {
        let dir = self.dir.path().join("tls");
        std::fs::create_dir_all(&dir).expect("tls folder");
        let openssl = |args: &[&str]| {
            let out = Command::new("openssl")
                .args(args)
                .current_dir(&dir)
                .output()
                .expect("run openssl");
            assert!(
                out.status.success(),
                "openssl {args:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        };
        for ca in ["ca", "other-ca"] {
            openssl(&[
                "req",
                "-x509",
                "-newkey",
                "rsa:2048",
                "-nodes",
                "-days",
                "2",
                "-keyout",
                &format!("{ca}.key"),
                "-out",
                &format!("{ca}.crt"),
                "-subj",
                &format!("/CN=ojd test {ca}"),
            ]);
        }
        openssl(&[
            "req",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-keyout",
            "server.key",
            "-out",
            "server.csr",
            "-subj",
            "/CN=127.0.0.1",
        ]);
        std::fs::write(dir.join("ext"), "subjectAltName=IP:127.0.0.1\n").expect("ext");
        openssl(&[
            "x509",
            "-req",
            "-in",
            "server.csr",
            "-CA",
            "ca.crt",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-out",
            "server.crt",
            "-days",
            "2",
            "-extfile",
            "ext",
        ]);
        if is_root() {
            let ok = Command::new("chown")
                .args(["-R", "postgres:postgres", &dir.display().to_string()])
                .status()
                .expect("chown");
            assert!(ok.success());
        }
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(
            dir.join("server.key"),
            std::fs::Permissions::from_mode(0o600),
        )
        .expect("key mode");
        let conf = self.data().join("postgresql.conf");
        let mut text = std::fs::read_to_string(&conf).expect("postgresql.conf");
        text.push_str(&format!(
            "\nssl = on\nssl_cert_file = '{}'\nssl_key_file = '{}'\n",
            dir.join("server.crt").display(),
            dir.join("server.key").display()
        ));
        std::fs::write(&conf, text).expect("postgresql.conf");
        let hba = self.data().join("pg_hba.conf");
        let text = std::fs::read_to_string(&hba).expect("pg_hba.conf");
        let mut rules = String::from(
            "local all all trust\nhostssl all all 127.0.0.1/32 trust\nhostnossl all all 127.0.0.1/32 reject\n",
        );
        // Keep nothing else that would let a TCP connection in without TLS.
        rules.push_str(
            &text
                .lines()
                .filter(|l| l.trim_start().starts_with('#'))
                .collect::<Vec<_>>()
                .join("\n"),
        );
        std::fs::write(&hba, rules).expect("pg_hba.conf");
        self.stop_fast();
        self.launch();
        (dir.join("ca.crt"), dir.join("other-ca.crt"))
    }

    fn data(&self) -> PathBuf {
        self.dir.path().join("data")
    }

    /// The server's processes: the postmaster first, then its children (each session's
    /// backend and the server's own workers), for tests that stop and continue them.
    pub fn processes(&self) -> Vec<i32> {
        let main = self.postmaster();
        let mut all = vec![main];
        all.extend(self.children());
        all
    }

    /// The postmaster's process id, from its `postmaster.pid`.
    pub fn postmaster(&self) -> i32 {
        let text =
            std::fs::read_to_string(self.data().join("postmaster.pid")).expect("postmaster.pid");
        (text.lines().next().expect("the server's process id").trim())
            .parse()
            .expect("a process id")
    }

    /// The postmaster's children as they are now (each session's backend, the server's own
    /// workers). A test that stops the server stops the postmaster first, then reads these
    /// again until no new one appears: a stopped postmaster forks no more backends, while one
    /// forked between a read and the stop would otherwise be left running.
    pub fn children(&self) -> Vec<i32> {
        let main = self.postmaster();
        std::fs::read_to_string(format!("/proc/{main}/task/{main}/children"))
            .expect("the server's children")
            .split_whitespace()
            .filter_map(|p| p.parse::<i32>().ok())
            .collect()
    }
}

/// Stops the shared cluster and removes its folder when the test binary exits (statics are
/// never dropped; the server, a daemon of its own, would outlive the run).
extern "C" fn stop_shared() {
    let _ = std::panic::catch_unwind(|| {
        if let Some(cluster) = CLUSTER.lock().unwrap_or_else(|e| e.into_inner()).take() {
            cluster.stop();
            // The last reference: its `TempDir` removes the folder.
            drop(cluster);
        }
    });
}

impl Drop for Cluster {
    fn drop(&mut self) {
        self.stop();
    }
}

/// Every caller of [`Cluster::get`] gets the one server, also after every earlier caller let
/// go of it (no second `initdb` and start), and a database made through one is there for the
/// next. Prints the server's process and folder for the test below.
#[test]
fn the_shared_cluster_serves_every_caller() {
    let Some(a) = Cluster::get() else { return };
    let server = |c: &Cluster| {
        let pid = std::fs::read_to_string(c.data().join("postmaster.pid")).expect("postmaster.pid");
        pid.lines()
            .next()
            .expect("the server's process id")
            .trim()
            .to_string()
    };
    let (pid, port) = (server(&a), a.port);
    let url = a.database();
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    c.batch_execute("CREATE TABLE t (x int)")
        .expect("create a table");
    drop(c);
    drop(a);
    let b = Cluster::get().expect("installed: the same cluster");
    assert_eq!(
        (server(&b), b.port),
        (pid.clone(), port),
        "a second server was started"
    );
    let mut c = postgres::Client::connect(&url, postgres::NoTls).expect("connect again");
    c.batch_execute("INSERT INTO t VALUES (1)")
        .expect("the table made through the first caller");
    println!(
        "\nshared cluster: pid {pid} folder {}",
        b.dir.path().display()
    );
}

/// The shared cluster outlives every test that uses it but not the test binary: when the
/// binary exits, its server is stopped and its folder removed (nothing of it is left running
/// after a test run). Runs the test above in a test binary of its own and looks afterwards.
#[test]
fn the_shared_cluster_is_stopped_when_the_tests_end() {
    if !installed() {
        return;
    }
    let out = Command::new(std::env::current_exe().expect("the test binary"))
        .args(["--exact", "pg::the_shared_cluster_serves_every_caller"])
        .args(["--nocapture", "--test-threads=1"])
        .output()
        .expect("run the test binary");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let line = stdout
        .lines()
        .find_map(|l| l.split("shared cluster: pid ").nth(1))
        .unwrap_or_else(|| panic!("the child printed its cluster:\n{stdout}"));
    let (pid, folder) = line.split_once(" folder ").expect("pid and folder");
    // Gone, or a zombie not yet reaped: either way no longer serving.
    let state = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = state.rsplit(") ").next().and_then(|r| r.chars().next());
    assert!(
        matches!(state, None | Some('Z' | 'X')),
        "the shared cluster's server (pid {pid}) still runs after the tests ended: {state:?}"
    );
    assert!(
        !std::path::Path::new(folder).exists(),
        "the shared cluster's folder {folder} is left behind"
    );
}
