//! Shared helpers: a judge wired to the built `ojd` binary, paths of the fixtures.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::process::{Child, ExitStatus};
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use ojd_judge::Config;
use ojd_judge::JudgeReport;
use ojd_judge::Problem;
use ojd_judge::{Judge, Submission};

pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

pub fn testdata(rel: &str) -> PathBuf {
    root().join("testdata").join(rel)
}

/// A judge with `parallel` sandboxes whose keepers are the built `ojd`.
pub fn judge(parallel: usize) -> Judge {
    judge_with(Config::defaults(), parallel)
}

pub fn judge_with(config: Config, parallel: usize) -> Judge {
    let mut j = Judge::new(config, parallel).expect("judge starts");
    j.set_keeper(PathBuf::from(env!("CARGO_BIN_EXE_ojd")));
    j
}

pub fn submission(j: &Judge, path: &Path) -> Submission {
    let source = std::fs::read(path).expect("fixture exists");
    let language = j.detect_language(path, &source).expect("known extension");
    Submission { language, source }
}

pub fn judge_file(j: &Judge, problem: &Path, file: &Path) -> JudgeReport {
    let p = Problem::load(problem).expect("fixture problem loads");
    let sub = submission(j, file);
    j.judge(&p, &sub, &mut |_| {}, &AtomicBool::new(false))
        .expect("judging succeeds")
}

/// The `ojd` binary, for tests that run the command line.
pub fn ojd() -> std::process::Command {
    std::process::Command::new(env!("CARGO_BIN_EXE_ojd"))
}

/// Whether this process may use namespaces and cgroups (root).
pub fn is_root() -> bool {
    // SAFETY: geteuid has no preconditions.
    unsafe { libc::geteuid() == 0 }
}

static MACHINE: std::sync::RwLock<()> = std::sync::RwLock::new(());

/// Held by tests that run programs: many at once.
pub fn shared() -> std::sync::RwLockReadGuard<'static, ()> {
    MACHINE.read().unwrap_or_else(|e| e.into_inner())
}

/// Held by tests that measure time or memory: nothing else runs meanwhile, so the comparison
/// with a bare run is not disturbed by the other tests.
pub fn exclusive() -> std::sync::RwLockWriteGuard<'static, ()> {
    MACHINE.write().unwrap_or_else(|e| e.into_inner())
}

/// What a finished `ojd` command gave: its exit code (-1 when a signal ended it) and output.
pub struct Run {
    pub code: i32,
    pub stdout: String,
    pub stderr: String,
}

impl From<std::process::Output> for Run {
    fn from(out: std::process::Output) -> Run {
        Run {
            code: out.status.code().unwrap_or(-1),
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
        }
    }
}

/// Waits until `probe` says the awaited state is reached (`Ok`), and returns what it gave; a
/// test waits on the state it needs (a row, an HTTP answer, a log line), never on the clock.
/// `probe` is asked again at a short, growing interval (10 ms up to 100 ms: what it asks for is
/// one request or one file read, and the first answers come soon on a fast machine). Past
/// `within` the test fails with `probe`'s last word on why it is not there yet (`Err`): that
/// bound is a generous margin for a machine several times slower, never a timing the test
/// relies on.
pub fn wait_until<T>(within: Duration, probe: impl FnMut() -> Result<T, String>) -> T {
    try_wait_until(within, probe).unwrap_or_else(|why| panic!("{why}"))
}

/// [`wait_until`] for a caller that adds to the failure (a daemon's log, read once): past
/// `within`, `probe`'s last `Err`, prefixed with how long it waited.
pub fn try_wait_until<T>(
    within: Duration,
    mut probe: impl FnMut() -> Result<T, String>,
) -> Result<T, String> {
    let deadline = Instant::now() + within;
    let mut pause = Duration::from_millis(10);
    loop {
        match probe() {
            Ok(v) => return Ok(v),
            Err(why) if Instant::now() >= deadline => {
                return Err(format!("still waiting after {within:?}: {why}"))
            }
            Err(_) => {}
        }
        // The one pause between two looks at the awaited state (see above).
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(100));
    }
}

/// Waits until `child` exits, at most `within`, and returns how it ended (`None`: still
/// running then, and left running). Woken by the exit itself: a pidfd of the child becomes
/// readable when it ends, so nothing polls, and no SIGCHLD handler is installed (one would make
/// other threads' socket reads with a timeout fail with EINTR).
pub fn wait_exit(child: &mut Child, within: Duration) -> Option<ExitStatus> {
    if let Some(status) = child.try_wait().expect("wait for the child") {
        return Some(status);
    }
    // SAFETY: pidfd_open takes a pid and flags, no pointers; the child is not reaped yet (its
    // pid cannot be reused), and the result is checked below.
    let raw = unsafe { libc::syscall(libc::SYS_pidfd_open, child.id() as libc::pid_t, 0) };
    assert!(raw >= 0, "pidfd_open: {}", std::io::Error::last_os_error());
    // SAFETY: `raw` is a descriptor pidfd_open just opened, owned by nothing else.
    let pidfd = unsafe { OwnedFd::from_raw_fd(raw as RawFd) };
    let deadline = Instant::now() + within;
    loop {
        let left = deadline.saturating_duration_since(Instant::now());
        let mut fds = libc::pollfd {
            fd: pidfd.as_raw_fd(),
            events: libc::POLLIN,
            revents: 0,
        };
        let ms = libc::c_int::try_from(left.as_millis()).unwrap_or(libc::c_int::MAX);
        // SAFETY: `fds` is one valid pollfd that outlives the call, and the count says one.
        let n = unsafe { libc::poll(&mut fds, 1, ms) };
        match n {
            1.. => return Some(child.wait().expect("wait for the child")),
            0 => return child.try_wait().expect("wait for the child"),
            _ => {
                let e = std::io::Error::last_os_error();
                assert_eq!(e.kind(), std::io::ErrorKind::Interrupted, "poll: {e}");
            }
        }
    }
}

/// A test's hand on a daemon's wall clock (`OJD_TEST_CLOCK`, see `ojd_service::now_ms`): the
/// daemon started with [`TestClock::start`] runs as far ahead of the system clock as the test
/// moved it, so a test moves it past a freeze, an end or an expiry at once instead of waiting.
pub struct TestClock {
    dir: tempfile::TempDir,
    offset: std::cell::Cell<i64>,
}

impl TestClock {
    /// A clock on time (offset 0).
    pub fn new() -> TestClock {
        let clock = TestClock {
            dir: tempfile::Builder::new()
                .prefix("ojd-clock-")
                .tempdir()
                .expect("temp dir"),
            offset: std::cell::Cell::new(0),
        };
        clock.write();
        clock
    }

    fn file(&self) -> PathBuf {
        self.dir.path().join("offset")
    }

    /// Writes the offset whole: a new file renamed over the old, so the daemon never reads
    /// half of it.
    fn write(&self) {
        let next = self.dir.path().join("offset.new");
        std::fs::write(&next, self.offset.get().to_string()).expect("write the clock's offset");
        std::fs::rename(&next, self.file()).expect("rename the clock's offset");
    }

    /// Starts `ojd serve` on `site` with this clock.
    pub fn start(&self, site: &crate::daemon::Site) -> crate::daemon::Daemon {
        let file = self.file().display().to_string();
        site.start_env(&[(ojd_service::TEST_CLOCK_VAR, &file)])
    }

    /// The daemon's time now, Unix ms.
    pub fn now_ms(&self) -> i64 {
        ojd_store::now_ms() + self.offset.get()
    }

    /// Moves the daemon's clock `ms` forward; the next thing it does happens that much later.
    pub fn advance(&self, ms: i64) {
        assert!(ms >= 0, "the clock only moves forward: {ms}");
        self.offset.set(self.offset.get() + ms);
        self.write();
    }

    /// Moves the daemon's clock forward to `at_ms` (Unix ms) if it is not there yet.
    pub fn advance_to(&self, at_ms: i64) {
        self.advance((at_ms - self.now_ms()).max(0));
    }
}
