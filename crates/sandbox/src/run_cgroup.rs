//! Under cgroup v2, a fresh cgroup for every run, below the keeper's: exact memory accounting.
//!
//! Before Linux 6.12 `memory.peak` cannot be reset, so a keeper's one cgroup would report the
//! highest peak of all its runs so far. A cgroup made for the run alone starts at zero: its
//! `memory.peak` is the run's own high-water mark (heap, page cache it read in, tmpfs files it
//! wrote, kernel memory, every process), its `memory.events` counts the run's OOM kills only,
//! and its `memory.max` is the run's limit to the byte. It is the same on every kernel, so there
//! is one route, not one per version.
//!
//! The run's init is forked into it by `clone3(CLONE_INTO_CGROUP)` (Linux 5.7): in the cgroup
//! from its first instruction, at the cost of a fork, where writing a pid into `cgroup.procs`
//! waits for the migration's synchronisation. The next run's cgroup is made, and the finished
//! one removed, after the outcome is sent (`tidy`), off the run's path. The keeper itself lives
//! in the leaf `keeper` beside the runs (a cgroup with processes cannot have children with
//! controllers), so the keeper's cgroup counts its own CPU and its runs' together, as on v1.

use std::fs::{self, File};
use std::os::unix::io::AsRawFd;
use std::path::{Path, PathBuf};

/// The cgroup of one run.
pub(super) struct RunCgroup {
    pub(super) dir: PathBuf,
    /// The folder, opened: what `clone3` takes.
    fd: File,
    /// `memory.peak` (Linux 5.19); without it the peak is the largest process's own.
    pub(super) peak: Option<File>,
}

/// The runs' cgroups of one keeper.
pub(super) struct RunCgroups {
    keeper: PathBuf,
    next: u64,
    ready: Option<RunCgroup>,
    /// Cgroups of finished runs, removed after the outcome is sent.
    retired: Vec<PathBuf>,
}

impl RunCgroups {
    /// Below the keeper's cgroup `keeper` (whose `subtree_control` has the controllers): makes
    /// the first run's cgroup and checks that a process can be forked into one.
    pub(super) fn new(keeper: PathBuf) -> Result<RunCgroups, String> {
        let mut runs = RunCgroups {
            keeper,
            next: 0,
            ready: None,
            retired: Vec::new(),
        };
        let probe = runs.current()?;
        // SAFETY: the keeper is single-threaded (`fork_into`'s contract); the child only exits.
        let pid = unsafe { fork_into(&probe.fd, "clone3 into a run's cgroup")? };
        if pid == 0 {
            // SAFETY: _exit is async-signal-safe and ends the child at once.
            unsafe { libc::_exit(0) };
        }
        let mut status = 0;
        // SAFETY: waits for our own child; the pointer is to a local.
        while unsafe { libc::waitpid(pid, &mut status, 0) } < 0
            && std::io::Error::last_os_error().raw_os_error() == Some(libc::EINTR)
        {}
        // The probe's pages are charged to this cgroup: the first run gets another.
        runs.retire();
        runs.tidy();
        Ok(runs)
    }

    fn make(&mut self) -> Result<RunCgroup, String> {
        let dir = self.keeper.join(format!("run-{}", self.next));
        self.next += 1;
        fs::create_dir(&dir)
            .map_err(|e| format!("failed to create cgroup {}: {e}", dir.display()))?;
        let controllers = fs::read_to_string(dir.join("cgroup.controllers")).unwrap_or_default();
        if let Some(c) = super::delegate::NEEDED
            .iter()
            .find(|c| !controllers.split_whitespace().any(|h| h == **c))
        {
            return Err(format!("the run's cgroup {} lacks {c}", dir.display()));
        }
        let fd = File::open(&dir).map_err(|e| format!("failed to open {}: {e}", dir.display()))?;
        let peak = File::open(dir.join("memory.peak")).ok();
        Ok(RunCgroup { dir, fd, peak })
    }

    /// The next run's cgroup, made now if `tidy` could not.
    pub(super) fn current(&mut self) -> Result<&mut RunCgroup, String> {
        if self.ready.is_none() {
            self.ready = Some(self.make()?);
        }
        Ok(self.ready.as_mut().expect("made above"))
    }

    /// The cgroup of the run under way or just ended, if any.
    pub(super) fn ready(&self) -> Option<&RunCgroup> {
        self.ready.as_ref()
    }

    /// The run has ended and been read: its cgroup is not used again.
    pub(super) fn retire(&mut self) {
        if let Some(r) = self.ready.take() {
            self.retired.push(r.dir);
        }
    }

    /// Off the run's path: removes finished runs' cgroups and makes the next one.
    pub(super) fn tidy(&mut self) {
        self.retired.retain(|d| match fs::remove_dir(d) {
            Ok(()) => false,
            Err(e) => e.kind() != std::io::ErrorKind::NotFound,
        });
        if self.ready.is_none() {
            self.ready = self.make().ok();
        }
    }
}

impl RunCgroup {
    /// Forks the run's init into this cgroup.
    ///
    /// # Safety
    /// As [`fork_into`].
    pub(super) unsafe fn fork(&self) -> Result<libc::pid_t, String> {
        // SAFETY: the caller's contract is fork_into's.
        unsafe { fork_into(&self.fd, "clone3 into the run's cgroup") }
    }

    pub(super) fn path(&self) -> &Path {
        &self.dir
    }
}

/// `struct clone_args` of linux/sched.h, up to `cgroup` (its second version).
#[repr(C)]
#[derive(Default)]
struct CloneArgs {
    flags: u64,
    pidfd: u64,
    child_tid: u64,
    parent_tid: u64,
    exit_signal: u64,
    stack: u64,
    stack_size: u64,
    tls: u64,
    set_tid: u64,
    set_tid_size: u64,
    cgroup: u64,
}

const CLONE_INTO_CGROUP: u64 = 0x2_0000_0000;

/// fork(2) into the cgroup whose folder `dir` is open: the child's pid in the parent, 0 in the
/// child. A kernel before 5.7 refuses it (ENOSYS or EINVAL), named in the error.
///
/// # Safety
/// The caller must be single-threaded: the child gets a copy of the whole address space, and
/// only the calling thread runs in it.
unsafe fn fork_into(dir: &File, what: &str) -> Result<libc::pid_t, String> {
    let mut args = CloneArgs {
        flags: CLONE_INTO_CGROUP,
        exit_signal: libc::SIGCHLD as u64,
        cgroup: dir.as_raw_fd() as u64,
        ..CloneArgs::default()
    };
    // SAFETY: `args` is a valid clone_args of the size passed and outlives the call; without a
    // stack the child runs on a copy of the caller's, as after fork (the caller's contract).
    let pid = unsafe {
        libc::syscall(
            libc::SYS_clone3,
            &mut args as *mut CloneArgs,
            std::mem::size_of::<CloneArgs>(),
        )
    };
    if pid < 0 {
        return Err(fork_into_refused(what, std::io::Error::last_os_error()));
    }
    Ok(pid as libc::pid_t)
}

/// What a refused [`fork_into`] says: a kernel too old for it is named, with the fix.
fn fork_into_refused(what: &str, e: std::io::Error) -> String {
    if matches!(e.raw_os_error(), Some(libc::ENOSYS) | Some(libc::EINVAL)) {
        return format!(
            "{what}: {e} (this kernel cannot fork into a cgroup: clone3 with \
             CLONE_INTO_CGROUP needs Linux 5.7 or later: upgrade the kernel)"
        );
    }
    format!("{what}: {e}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_without_fork_into_a_cgroup_is_named_with_the_fix() {
        for errno in [libc::ENOSYS, libc::EINVAL] {
            let e = fork_into_refused("fork the run", std::io::Error::from_raw_os_error(errno));
            assert!(e.starts_with("fork the run: "), "{e}");
            assert!(e.contains("CLONE_INTO_CGROUP needs Linux 5.7"), "{e}");
            assert!(e.contains("upgrade the kernel"), "{e}");
        }
        let other = fork_into_refused("fork", std::io::Error::from_raw_os_error(libc::EAGAIN));
        assert!(!other.contains("5.7"), "{other}");
    }

    /// The cgroup2 mount of this machine (the v2 root, or a hybrid host's unified hierarchy) and
    /// this process's cgroup in it; None where the test cannot run (not root, no cgroup2).
    fn own_cgroup2() -> Option<PathBuf> {
        // SAFETY: geteuid has no preconditions.
        let root = unsafe { libc::geteuid() } == 0;
        let mounts = fs::read_to_string("/proc/self/mountinfo").unwrap_or_default();
        let mount = mounts.lines().find_map(|l| {
            let (left, right) = l.split_once(" - ")?;
            right
                .starts_with("cgroup2 ")
                .then(|| left.split(' ').nth(4).map(PathBuf::from))?
        });
        let own = fs::read_to_string("/proc/self/cgroup")
            .ok()
            .and_then(|t| super::super::delegate::own_path(&t));
        match (root, mount, own) {
            (true, Some(m), Some(o)) => Some(m.join(o.trim_start_matches('/'))),
            other => {
                assert!(
                    std::env::var_os("CI").is_none(),
                    "this test needs root and a cgroup2 mount (CI=1 is set): {other:?}"
                );
                None
            }
        }
    }

    /// `clone3(CLONE_INTO_CGROUP)` puts the child in the cgroup from its start: what makes a
    /// run's memory its own under v2.
    #[test]
    fn a_child_forked_into_a_cgroup_is_born_there() {
        let Some(own) = own_cgroup2() else { return };
        let dir = own.join(format!("ojd-fork-test-{}", std::process::id()));
        fs::create_dir(&dir).expect("a cgroup below our own");
        let fd = File::open(&dir).expect("the cgroup's folder opens");
        // SAFETY: the child only waits for a signal (async-signal-safe calls) and exits, so
        // that the test harness's other threads do not matter.
        let pid = unsafe { fork_into(&fd, "clone3") }.expect("clone3 into a cgroup");
        if pid == 0 {
            // SAFETY: pause and _exit are async-signal-safe.
            unsafe {
                libc::pause();
                libc::_exit(0);
            }
        }
        let text = fs::read_to_string(format!("/proc/{pid}/cgroup")).expect("its cgroup file");
        // SAFETY: kills and reaps our own child.
        unsafe {
            libc::kill(pid, libc::SIGKILL);
            libc::waitpid(pid, std::ptr::null_mut(), 0);
        }
        let _ = fs::remove_dir(&dir);
        let name = dir
            .file_name()
            .expect("a name")
            .to_string_lossy()
            .into_owned();
        let line = text
            .lines()
            .find(|l| l.starts_with("0::"))
            .expect("a v2 line");
        assert!(line.ends_with(&format!("/{name}")), "{text}");
    }
}
