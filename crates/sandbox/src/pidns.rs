//! The keeper's pid namespace: one per keeper, held by a small *holder* process (its PID 1), with
//! one `/proc` mounted for it once. Every run's init is forked into it and is the run's child
//! subreaper; after a run that did not end cleanly the holder kills and reaps whatever is left.
//!
//! Why not a pid namespace per run: a namespace of its own needs a `/proc` of its own, and
//! mounting one (and unmounting the last) on every run was most of the per-run cost the issue 9
//! hardening added. One namespace per keeper gives the same view: runs are sequential, the
//! namespace holds nothing of a run once it ended (init kills and reaps everything it left, and
//! the holder does the same after init itself was killed), and `hidepid=2` hides the holder and
//! init (root) from the program.

use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::Path;

use super::sys::{cpath, errno, fork_with, os_err, pipe};

/// Files of `/proc` covered by a neutral file (or `/dev/null`) in every keeper's `/proc`: what
/// names the host (the kernel's command line, its boot id) and the host's global counters, which
/// tell a program what the rest of the machine does (load, disks, memory pages, interrupts,
/// scheduler and pressure stall statistics) and so serve as timing side channels between runs.
/// `/proc/stat` and `/proc/meminfo` stay: the C library counts CPUs from `/proc/stat` when
/// `/sys` is absent, and runtimes size their heaps from `/proc/meminfo`.
pub(super) const MASKED: &[&str] = &[
    "cmdline",
    "sys/kernel/random/boot_id",
    "loadavg",
    "diskstats",
    "partitions",
    "vmstat",
    "schedstat",
    "interrupts",
    "softirqs",
    "pressure/cpu",
    "pressure/io",
    "pressure/memory",
    "pressure/irq",
];

/// The holder of a keeper's pid namespace.
pub(super) struct PidNs {
    /// Keeper → holder: one byte asks for a clean-up; closing it ends the holder.
    ctl: OwnedFd,
    /// Holder → keeper: one byte when the namespace holds nothing but the holder.
    ack: OwnedFd,
    pid: libc::pid_t,
}

impl PidNs {
    /// Starts the holder, mounts the namespace's `/proc` on `<root>/proc` (`hidepid=2`, with
    /// [`MASKED`] files covered), and moves the keeper's future children into the namespace.
    /// `neutral` gives, for a masked file, the file bound over it (by default `/dev/null`).
    pub(super) fn start(
        root: &Path,
        neutral: &dyn Fn(&str) -> Option<std::path::PathBuf>,
    ) -> Result<PidNs, String> {
        let proc_dir = cpath(&root.join("proc"));
        let null = root.join("dev/null");
        let masks: Vec<(std::ffi::CString, std::ffi::CString)> = MASKED
            .iter()
            .map(|name| {
                let source = neutral(name).unwrap_or_else(|| null.clone());
                (cpath(&source), cpath(&root.join("proc").join(name)))
            })
            .collect();
        let (ctl_r, ctl_w) = pipe()?;
        let (ack_r, ack_w) = pipe()?;
        // SAFETY: the keeper is single-threaded (it starts the holder before serving any run),
        // so the child owns a consistent copy.
        let pid = unsafe { fork_with(libc::CLONE_NEWPID, "clone the pid namespace's holder")? };
        if pid == 0 {
            drop(ctl_w);
            drop(ack_r);
            // SAFETY: we are the fresh single-threaded child; the strings were built before.
            unsafe { holder_main(&proc_dir, &masks, ctl_r.as_raw_fd(), ack_w.as_raw_fd()) }
        }
        drop(ctl_r);
        drop(ack_w);
        let ns = PidNs {
            ctl: ctl_w,
            ack: ack_r,
            pid,
        };
        match ns.wait_ack() {
            Some(0) => {}
            Some(e) => {
                return Err(format!(
                    "mount /proc of the keeper's pid namespace: {}",
                    std::io::Error::from_raw_os_error(e)
                ))
            }
            None => return Err("the pid namespace's holder died".into()),
        }
        let path = cpath(Path::new(&format!("/proc/{pid}/ns/pid")));
        // SAFETY: a valid path string; the result is checked and owned below.
        let fd = unsafe { libc::open(path.as_ptr(), libc::O_RDONLY | libc::O_CLOEXEC) };
        if fd < 0 {
            return Err(os_err("open the holder's pid namespace"));
        }
        // SAFETY: fd was just opened and is owned by nothing else.
        let fd = unsafe { OwnedFd::from_raw_fd(fd) };
        // SAFETY: setns on a namespace descriptor; it changes only which namespace the keeper's
        // future children are born in (the keeper itself keeps its own pid).
        if unsafe { libc::setns(fd.as_raw_fd(), libc::CLONE_NEWPID) } != 0 {
            return Err(os_err("enter the holder's pid namespace"));
        }
        Ok(ns)
    }

    /// The holder's pid (in the keeper's own pid namespace).
    pub(super) fn pid(&self) -> libc::pid_t {
        self.pid
    }

    /// Kills every process of the namespace but the holder and returns once all are reaped.
    /// Needed after a run whose init was killed (its orphans went to the holder, still alive).
    pub(super) fn clean(&self) -> Result<(), String> {
        // SAFETY: writes one byte from a local to a pipe we own.
        let w = unsafe { libc::write(self.ctl.as_raw_fd(), [1u8].as_ptr().cast(), 1) };
        if w != 1 || self.wait_ack() != Some(0) {
            return Err(format!(
                "the pid namespace's holder (pid {}) is gone",
                self.pid
            ));
        }
        Ok(())
    }

    /// Reads the holder's one-byte answer (an errno, 0 for success); None when it is gone.
    fn wait_ack(&self) -> Option<i32> {
        let mut b = [0u8; 1];
        loop {
            // SAFETY: reads at most one byte into a local buffer.
            let n = unsafe { libc::read(self.ack.as_raw_fd(), b.as_mut_ptr().cast(), 1) };
            if n == 1 {
                return Some(b[0] as i32);
            }
            if n < 0 && errno() == libc::EINTR {
                continue;
            }
            return None;
        }
    }
}

/// PID 1 of the keeper's pid namespace: mounts its `/proc`, then sleeps on the control pipe and
/// cleans the namespace on request. Exits when the keeper does (PDEATHSIG, or the pipe closing),
/// and the kernel then kills whatever is left in the namespace.
///
/// # Safety
/// Must run in the fresh child of `PidNs::start`, with the keeper's root already built.
unsafe fn holder_main(
    proc_dir: &std::ffi::CStr,
    masks: &[(std::ffi::CString, std::ffi::CString)],
    ctl: RawFd,
    ack: RawFd,
) -> ! {
    libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
    // The holder needs none of the keeper's standard streams (the judge's pipes).
    for fd in 0..3 {
        libc::close(fd);
    }
    let send = |code: u8| libc::write(ack, [code].as_ptr().cast(), 1) == 1;
    let flags = libc::MS_NOSUID | libc::MS_NODEV | libc::MS_NOEXEC;
    // The proc of this namespace shows only its processes; hidepid=2 hides those of other uids
    // (the holder and each run's init) from the program.
    let mut mounted = libc::mount(
        c"proc".as_ptr(),
        proc_dir.as_ptr(),
        c"proc".as_ptr(),
        flags,
        c"hidepid=2".as_ptr().cast(),
    ) == 0;
    for (source, target) in masks {
        // A file this kernel does not have (pressure stall information is optional) needs no
        // mask; any other failure fails the keeper.
        if mounted
            && libc::mount(
                source.as_ptr(),
                target.as_ptr(),
                std::ptr::null(),
                libc::MS_BIND,
                std::ptr::null(),
            ) != 0
            && errno() != libc::ENOENT
        {
            mounted = false;
        }
    }
    if !send(if mounted {
        0
    } else {
        errno().clamp(1, 255) as u8
    }) || !mounted
    {
        libc::_exit(1);
    }
    loop {
        let mut b = [0u8; 1];
        let n = libc::read(ctl, b.as_mut_ptr().cast(), 1);
        if n < 0 && errno() == libc::EINTR {
            continue;
        }
        if n != 1 {
            libc::_exit(0);
        }
        // kill(-1) from PID 1 reaches every other process of the namespace; each round reaps
        // one, and orphans of a dying process come to the holder, so ECHILD means none is left.
        loop {
            libc::kill(-1, libc::SIGKILL);
            let got = libc::wait4(-1, std::ptr::null_mut(), libc::__WALL, std::ptr::null_mut());
            if got < 0 && errno() != libc::EINTR {
                break;
            }
        }
        if !send(0) {
            libc::_exit(0);
        }
    }
}
