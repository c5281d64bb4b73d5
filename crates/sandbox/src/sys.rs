//! The libc helpers of the sandbox in one place: C strings, errno, mount(2), pipes, rlimits and
//! the keeper's own CPU time. Every `unsafe` here wraps one system call; each says why it is
//! sound.

use std::ffi::CString;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::Path;
use std::time::Duration;

pub(super) fn cstr(s: &str) -> CString {
    CString::new(s.replace('\0', "")).expect("NULs were removed")
}

pub(super) fn cpath(p: &Path) -> CString {
    cstr(&p.to_string_lossy())
}

pub(super) fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

pub(super) fn os_err(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}

/// fork(2) through a raw `clone` with `flags` (glibc's fork takes none, e.g. `CLONE_NEWPID`):
/// the child's pid in the parent, 0 in the child; `what` names the failure.
///
/// # Safety
/// The caller must be single-threaded: the child gets a copy of the whole address space, and
/// only the calling thread runs in it.
pub(super) unsafe fn fork_with(flags: libc::c_int, what: &str) -> Result<libc::pid_t, String> {
    let flags = (flags | libc::SIGCHLD) as libc::c_ulong;
    // SAFETY: a raw clone without a new stack behaves like fork (the caller's contract above).
    let pid = unsafe { libc::syscall(libc::SYS_clone, flags, 0usize, 0usize, 0usize, 0usize) };
    if pid < 0 {
        Err(os_err(what))
    } else {
        Ok(pid as libc::pid_t)
    }
}

/// `mount(2)` with Rust strings; returns a message naming the target on failure.
pub(super) fn mount(
    src: Option<&Path>,
    target: &Path,
    fstype: Option<&str>,
    flags: libc::c_ulong,
    data: Option<&str>,
) -> Result<(), String> {
    let src_c = src.map(cpath);
    let target_c = cpath(target);
    let fstype_c = fstype.map(cstr);
    let data_c = data.map(cstr);
    // SAFETY: every pointer is either null or a valid NUL-terminated string that outlives the call.
    let rc = unsafe {
        libc::mount(
            src_c.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()),
            target_c.as_ptr(),
            fstype_c.as_ref().map_or(std::ptr::null(), |c| c.as_ptr()),
            flags,
            data_c
                .as_ref()
                .map_or(std::ptr::null(), |c| c.as_ptr() as *const libc::c_void),
        )
    };
    if rc != 0 {
        return Err(os_err(&format!("mount {}", target.display())));
    }
    Ok(())
}

pub(super) fn bind(src: &Path, target: &Path, writable: bool) -> Result<(), String> {
    mount(Some(src), target, None, libc::MS_BIND | libc::MS_REC, None)?;
    let mut flags = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_NOSUID | libc::MS_NODEV;
    if !writable {
        flags |= libc::MS_RDONLY;
    }
    mount(None, target, None, flags, None)
}

pub(super) fn pipe() -> Result<(OwnedFd, OwnedFd), String> {
    let mut fds = [0; 2];
    // SAFETY: fds is a two-element array as pipe2 requires.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(os_err("pipe"));
    }
    // SAFETY: both fds were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

pub(super) fn set_rlimit(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) {
    let lim = libc::rlimit {
        rlim_cur: soft,
        rlim_max: hard,
    };
    // SAFETY: passes a valid rlimit struct.
    unsafe { libc::setrlimit(resource, &lim) };
}

/// The keeper's own CPU time (user + system) so far.
pub(super) fn own_cpu() -> Duration {
    // SAFETY: getrusage fills a plain struct we own.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: as above; RUSAGE_SELF cannot fail with a valid pointer.
    unsafe { libc::getrusage(libc::RUSAGE_SELF, &mut u) };
    let tv =
        |t: libc::timeval| Duration::from_micros(t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64);
    tv(u.ru_utime) + tv(u.ru_stime)
}

/// Raises the keeper's soft descriptor limit to its hard limit.
pub(super) fn raise_nofile() {
    // SAFETY: getrlimit/setrlimit with a valid struct.
    unsafe {
        let mut lim: libc::rlimit = std::mem::zeroed();
        if libc::getrlimit(libc::RLIMIT_NOFILE, &mut lim) == 0 {
            lim.rlim_cur = lim.rlim_max;
            libc::setrlimit(libc::RLIMIT_NOFILE, &lim);
        }
    }
}
