//! Shared helpers: a judge wired to the built `ojd` binary, paths of the fixtures.

use std::path::{Path, PathBuf};
use std::sync::atomic::AtomicBool;

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
