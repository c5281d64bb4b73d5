//! A run's standard streams: files opened by the keeper through detached copies of their
//! folders' mounts, and FIFOs whose open waits a bounded time for the other end.

use super::*;

/// A detached copy of the mount of a folder that standard streams were opened in.
pub(super) struct StreamDir {
    /// The folder's host path.
    path: PathBuf,
    /// Its device and inode when the copy was made: the folder the copy reaches.
    id: (u64, u64),
    /// The `open_tree` descriptor.
    tree: OwnedFd,
}

/// Folders whose detached copies a keeper keeps (a run's stdout and stderr share one; an
/// interactive problem's pipes are in another).
const STREAM_DIRS: usize = 4;

impl Keeper {
    /// Opens a run's standard stream file (`write`: created or truncated). With namespaces it is
    /// opened through a detached copy of its folder's mount (`open_tree` with
    /// `OPEN_TREE_CLONE`, kept per folder), so that `readlink /proc/self/fd/1` inside shows
    /// `/<file name>`, a path of that copy, instead of the host path of the judge's folder.
    ///
    /// A FIFO's open waits for its other end, at most `wait` (see [`open_bounded`]).
    pub(super) fn open_stream(
        &mut self,
        path: &Path,
        write: bool,
        wait: Duration,
    ) -> Result<OwnedFd, String> {
        use std::os::unix::ffi::OsStrExt;
        let err = |what: &str| format!("{}: {what}", path.display());
        let mut flags = libc::O_CLOEXEC;
        flags |= if write {
            libc::O_WRONLY | libc::O_CREAT | libc::O_TRUNC
        } else {
            libc::O_RDONLY
        };
        let split = path
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .zip(path.file_name());
        let tree = match split {
            Some((dir, _)) if self.namespaces => self.stream_dir(dir),
            _ => None,
        };
        let (at, name) = match (tree, split) {
            (Some(fd), Some((_, name))) => (
                fd,
                std::ffi::CString::new(name.as_bytes()).map_err(|_| err("a NUL in the name"))?,
            ),
            _ => (libc::AT_FDCWD, cpath(path)),
        };
        open_bounded(at, &name, flags, wait).map_err(|e| match e {
            Opened::TimedOut => err(&format!(
                "a FIFO whose other end nobody opened within {} ms (the run is not started)",
                wait.as_millis()
            )),
            Opened::Failed(e) => err(&e.to_string()),
        })
    }

    /// The descriptor of a detached copy of `dir`'s mount, made now if needed (None when the
    /// kernel refuses: the stream is then opened by its host path).
    ///
    /// A kept copy is used only while `dir` is still the very folder it was made of: same device
    /// and inode. A folder removed and made again at the same path is another folder, and the
    /// copy of the removed one would create files nobody sees (or find no FIFO at all). The
    /// inode number of the kept folder cannot be given to another file meanwhile: the copy holds
    /// a reference to it, so it stays allocated, even when removed, until the copy is closed.
    fn stream_dir(&mut self, dir: &Path) -> Option<RawFd> {
        use std::os::unix::fs::MetadataExt;
        let now = fs::metadata(dir).ok().map(|m| (m.dev(), m.ino()));
        let kept = self.stream_dirs.iter().position(|d| d.path == dir);
        if let Some(i) = kept {
            let entry = self.stream_dirs.remove(i);
            if now.is_some() && now == Some(entry.id) {
                self.stream_dirs.push(entry);
                return self.stream_dirs.last().map(|d| d.tree.as_raw_fd());
            }
        }
        let c = cpath(dir);
        let flags = libc::OPEN_TREE_CLONE | libc::OPEN_TREE_CLOEXEC;
        // SAFETY: a valid path string and plain flags; the result is checked and owned below.
        let fd = unsafe { libc::syscall(libc::SYS_open_tree, libc::AT_FDCWD, c.as_ptr(), flags) };
        if fd < 0 {
            return None;
        }
        // SAFETY: a new descriptor that nothing else owns.
        let tree = unsafe { OwnedFd::from_raw_fd(fd as RawFd) };
        // The identity of what was opened, not of what the path named a moment before.
        let id = fs::File::from(tree.try_clone().ok()?)
            .metadata()
            .ok()
            .map(|m| (m.dev(), m.ino()))?;
        if self.stream_dirs.len() >= STREAM_DIRS {
            self.stream_dirs.remove(0);
        }
        self.stream_dirs.push(StreamDir {
            path: dir.to_path_buf(),
            id,
            tree,
        });
        self.stream_dirs.last().map(|d| d.tree.as_raw_fd())
    }
}

/// How long opening a FIFO as a run's standard stream may wait for the other end: the run's
/// wall-time limit, and at least [`FIFO_MIN_WAIT`]. The other end is opened by whoever made the
/// FIFO (the judge's relay of an interactive run) as soon as the run is asked for, so the wait is
/// only that of the scheduler; an end that is never opened (its opener ended, or already opened
/// and closed it for an earlier run) makes the run fail as the host's fault, after this long,
/// instead of blocking the keeper, and with it the judging, for ever.
pub(super) fn fifo_wait(limits: &crate::Limits) -> Duration {
    limits.wall.max(FIFO_MIN_WAIT)
}

/// The shortest wait for a FIFO's other end (see [`fifo_wait`]).
const FIFO_MIN_WAIT: Duration = Duration::from_secs(1);

/// Why [`open_bounded`] gave no descriptor.
enum Opened {
    /// A FIFO whose other end was not opened in time.
    TimedOut,
    Failed(std::io::Error),
}

/// The handler of SIGALRM while the keeper waits in [`open_bounded`]: it does nothing, its
/// delivery interrupts the open (installed without `SA_RESTART`).
extern "C" fn on_alarm(_: libc::c_int) {}

/// `openat(at, name, flags)`, where a FIFO's open, which blocks until its other end is opened,
/// waits at most `wait`: a real-time interval timer interrupts it (SIGALRM, caught without
/// `SA_RESTART`, so the open fails with EINTR). The open itself is the ordinary blocking one, so
/// a FIFO keeps its meaning for the program: its standard input reads end of file only once a
/// writer came and went, and writing to its standard output fails only once the reader is gone.
/// The keeper is single-threaded, so the signal reaches this very call; the timer is disarmed
/// before returning, and timers are not inherited by the forked init.
fn open_bounded(
    at: RawFd,
    name: &std::ffi::CStr,
    flags: libc::c_int,
    wait: Duration,
) -> Result<OwnedFd, Opened> {
    // SAFETY: stat is plain data the kernel fills; `name` is a valid string, `at` a descriptor
    // the caller holds (or AT_FDCWD).
    let fifo = unsafe {
        let mut st: libc::stat = std::mem::zeroed();
        libc::fstatat(at, name.as_ptr(), &mut st, 0) == 0
            && st.st_mode & libc::S_IFMT == libc::S_IFIFO
    };
    let open = || {
        // SAFETY: `at` is AT_FDCWD or a descriptor the caller holds, `name` a valid string; the
        // result is checked and owned below.
        let fd = unsafe { libc::openat(at, name.as_ptr(), flags, 0o666) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: fd was just opened and is owned by nothing else.
        Ok(unsafe { OwnedFd::from_raw_fd(fd) })
    };
    if !fifo {
        return open().map_err(Opened::Failed);
    }
    // SAFETY: sigaction is plain data; the handler is an `extern "C"` function that touches
    // nothing, so it is async-signal-safe.
    let installed = unsafe {
        let mut sa: libc::sigaction = std::mem::zeroed();
        sa.sa_sigaction = on_alarm as *const () as usize;
        sa.sa_flags = 0;
        libc::sigemptyset(&mut sa.sa_mask);
        libc::sigaction(libc::SIGALRM, &sa, std::ptr::null_mut()) == 0
    };
    if !installed {
        return Err(Opened::Failed(std::io::Error::last_os_error()));
    }
    let arm = |left: Duration| {
        let micros = left.subsec_micros() as libc::suseconds_t;
        let timer = libc::itimerval {
            it_interval: libc::timeval {
                tv_sec: 0,
                tv_usec: 0,
            },
            it_value: libc::timeval {
                tv_sec: left.as_secs() as libc::time_t,
                tv_usec: micros,
            },
        };
        // SAFETY: a valid itimerval; the old value is not wanted.
        unsafe { libc::setitimer(libc::ITIMER_REAL, &timer, std::ptr::null_mut()) };
    };
    let start = Instant::now();
    let result = loop {
        let left = wait.saturating_sub(start.elapsed());
        if left.is_zero() {
            break Err(Opened::TimedOut);
        }
        // At least a microsecond: an all-zero value would disarm the timer.
        arm(left.max(Duration::from_micros(1)));
        match open() {
            Err(e) if e.raw_os_error() == Some(libc::EINTR) => continue,
            r => break r.map_err(Opened::Failed),
        }
    };
    arm(Duration::ZERO);
    result
}
