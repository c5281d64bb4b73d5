//! The run's init: its child subreaper in the keeper's pid namespace, which enters the root,
//! installs the deny list, waits for its run, forks the program, serves the seccomp listener,
//! reaps and reports; and the keeper's clean-up of a run without a pid namespace.

use super::*;

use super::program::{clone_program, reset_signals, PROGRAM_STACK};
use super::wire::WIRE_MAX;

pub(super) fn fail_setup(report: RawFd, stage: u32) -> ! {
    InitReport {
        setup_errno: errno().max(1),
        stage,
        ..Default::default()
    }
    .send(report);
    // SAFETY: terminates the child without running the keeper's destructors.
    unsafe { libc::_exit(1) }
}

/// The run's init (its child subreaper, in the keeper's pid namespace): enters the root,
/// installs the deny list, waits for its run on `go` (it is forked ahead of the run, off the
/// run's path: see `Keeper::spare`), forks the program, serves its seccomp listener, reaps
/// it, reports. A keeper that closes `go` instead ends it.
pub(crate) fn init_main(
    root: &std::ffi::CStr,
    mode: Mode,
    filters: &Filters,
    go: OwnedFd,
    report: OwnedFd,
) -> ! {
    let report = report.as_raw_fd();
    // SAFETY: (the whole function) we are the only thread of a fresh child; every pointer passed to
    // libc is a local or a CString prepared before clone.
    unsafe {
        // If the keeper dies, the run dies with it (and with the holder, the keeper's whole pid
        // namespace). The keeper is single-threaded, so "parent thread exits" means it exits.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        // Init runs no handler of its own: every signal the keeper ignores or handles (Rust
        // ignores SIGPIPE; the keeper catches SIGALRM, the runtime SIGSEGV and SIGBUS) gets its
        // default action here, and nothing is blocked, while init waits as a spare (off the
        // run's path). The program, cloned from init, then starts with exactly what an exec'd
        // program expects, and needs no reset of its own between its clone and its exec.
        reset_signals();
        // (In the keeper's pid namespace getppid() is 0 for init, its parent being outside, so
        // the lost-race check works only without one; there an init orphaned before the prctl
        // goes to the holder, which dies with the keeper and takes the namespace with it.)
        if !mode.namespaces && libc::getppid() == 1 {
            libc::_exit(1);
        }
        if mode.namespaces && (libc::chroot(root.as_ptr()) != 0 || libc::chdir(c"/".as_ptr()) != 0)
        {
            fail_setup(report, 0);
        }
        // Orphans of the program come back to init (not to the holder of the keeper's pid
        // namespace, nor to the host's init), so that init kills and reaps every one of them at
        // the end and their CPU time reaches the keeper's wait4.
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1);
        let mut exec_pipe = [0; 2];
        if libc::pipe2(exec_pipe.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            fail_setup(report, 1);
        }
        // Init installs the deny list itself, so the program inherits it at fork and init holds
        // the listener. Init makes no denied call, so it never waits on its own listener.
        // Without CAP_SYS_ADMIN (the unprivileged fallback) the kernel accepts a filter only
        // under no_new_privs; init execs nothing, and the program sets it anyway.
        libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
        let listener = install_filter(filters);
        if listener == -2 {
            fail_setup(report, 2);
        }
        // What the run needs memory for is mapped while init waits, off the run's path, and
        // never unmapped (init ends with `_exit`): the message's buffer and the program's stack.
        let mut wire = vec![0u8; WIRE_MAX];
        let stack = libc::mmap(
            std::ptr::null_mut(),
            PROGRAM_STACK,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_PRIVATE | libc::MAP_ANONYMOUS | libc::MAP_STACK,
            -1,
            0,
        );
        if stack == libc::MAP_FAILED {
            fail_setup(report, 1);
        }
        let Some(run) = Prepared::receive(go.as_raw_fd(), &mut wire) else {
            libc::_exit(0)
        };
        drop(go);
        let run = &run;
        let child = clone_program(run, exec_pipe[1], stack);
        if child < 0 {
            fail_setup(report, 1);
        }
        libc::close(exec_pipe[1]);
        let mut r = InitReport::default();
        let pidfd = libc::syscall(libc::SYS_pidfd_open, child, 0) as RawFd;
        if pidfd >= 0 {
            serve_listener(pidfd, listener, &mut r);
        }
        loop {
            let mut status = 0;
            let got = libc::wait4(child, &mut status, libc::__WALL, std::ptr::null_mut());
            if got == child {
                r.reaped = 1;
                r.status = status;
                break;
            }
            if got < 0 && errno() != libc::EINTR {
                break;
            }
        }
        // Whatever the program left behind (an unwaited child still burning CPU, a zombie, a
        // setsid daemon) is killed and reaped by init, so its CPU time reaches init's rusage
        // and the keeper's wait4 counts every process of the run.
        kill_and_reap_all(run);
        let mut usage: libc::rusage = std::mem::zeroed();
        if libc::getrusage(libc::RUSAGE_CHILDREN, &mut usage) == 0 {
            let us = |t: libc::timeval| t.tv_sec * 1_000_000 + t.tv_usec;
            r.children_cpu_us = us(usage.ru_utime) + us(usage.ru_stime);
            r.children_maxrss_kb = usage.ru_maxrss;
        }
        let mut e: i32 = 0;
        if libc::read(exec_pipe[0], &mut e as *mut i32 as *mut libc::c_void, 4) == 4 {
            r.exec_errno = e;
        }
        r.send(report);
        libc::_exit(0)
    }
}

/// Kills every process the program left and reaps them all (init's wait4 adds their CPU time
/// to init's own children's time, which the keeper reads).
///
/// In the keeper's pid namespace `kill(-1)` from init reaches exactly the run's processes (all
/// but init and the namespace's holder, its PID 1; runs of a keeper never overlap). Without one,
/// init is a child subreaper: it kills its children until none is left, and when programs run
/// as a uid of their own, a helper with that uid also kills every process of the uid.
///
/// The keeper calls it too, after init ended, for the runs without a pid namespace (it is a
/// subreaper then, so what escaped a killed init comes back to it).
///
/// # Safety
/// Must run in init after the program was reaped, or in the keeper after init was reaped.
pub(crate) unsafe fn kill_and_reap_all(run: &Prepared) {
    // One process is reaped per round; every round kills again, so orphans of a process that
    // just died (reparented to init before it became reapable) are killed in the next round.
    for round in 0..100_000 {
        if run.mode.namespaces {
            // Orphans come back to init (a subreaper), so no child means nothing of the run is
            // left: the common case costs one wait4 instead of a kill(-1), which walks every
            // process of the host.
            let mut status = 0;
            let flags = libc::__WALL | libc::WNOHANG;
            if libc::wait4(-1, &mut status, flags, std::ptr::null_mut()) < 0
                && errno() == libc::ECHILD
            {
                return;
            }
            libc::kill(-1, libc::SIGKILL);
        } else {
            if run.mode.drop_uid && round < 2 {
                kill_uid(run.uid, run.gid);
            }
            let children = fs::read_to_string("/proc/thread-self/children").unwrap_or_default();
            for pid in children.split_whitespace().filter_map(|p| p.parse().ok()) {
                libc::kill(pid, libc::SIGKILL);
            }
        }
        let mut status = 0;
        let got = libc::wait4(-1, &mut status, libc::__WALL, std::ptr::null_mut());
        if got < 0 && errno() != libc::EINTR {
            return;
        }
    }
}

/// Kills every process of `uid` from a helper that takes that uid: as uid N, `kill(-1)` reaches
/// every process of uid N on the host (but the helper itself). The helper is reaped by the
/// caller's loop.
///
/// # Safety
/// Forks; the child makes only async-signal-safe calls.
unsafe fn kill_uid(uid: u32, gid: u32) {
    if libc::fork() == 0 {
        if libc::setresgid(gid, gid, gid) == 0 && libc::setresuid(uid, uid, uid) == 0 {
            libc::kill(-1, libc::SIGKILL);
        }
        libc::_exit(0);
    }
}

/// Waits for the program to exit while answering its seccomp notifications: the first denied
/// call is recorded and every process of the run killed (the call itself never runs).
///
/// # Safety
/// `pidfd` and `listener` (unless -1) are open descriptors.
pub(super) unsafe fn serve_listener(pidfd: RawFd, mut listener: RawFd, r: &mut InitReport) {
    loop {
        let mut fds = [
            libc::pollfd {
                fd: pidfd,
                events: libc::POLLIN,
                revents: 0,
            },
            libc::pollfd {
                fd: listener,
                events: libc::POLLIN,
                revents: 0,
            },
        ];
        let n = if listener >= 0 { 2 } else { 1 };
        if libc::poll(fds.as_mut_ptr(), n, -1) < 0 {
            if errno() == libc::EINTR {
                continue;
            }
            return;
        }
        if fds[0].revents != 0 {
            return;
        }
        if listener >= 0 && fds[1].revents & libc::POLLIN != 0 {
            let mut req: libc::seccomp_notif = std::mem::zeroed();
            let got = libc::ioctl(listener, libc::SECCOMP_IOCTL_NOTIF_RECV, &mut req);
            if got == 0 && r.forbidden_nr < 0 {
                r.forbidden_nr = req.data.nr as i64;
                // kill(-1) from init reaches every process of the run but init.
                libc::kill(-1, libc::SIGKILL);
            }
        } else if listener >= 0 && fds[1].revents != 0 {
            libc::close(listener);
            listener = -1;
        }
    }
}

/// Installs the deny list on the calling process: with a listener (returned) where the kernel
/// has them, else the killing form (-1 returned); -2 if neither could be installed.
///
/// # Safety
/// Must run in init, after chroot and before the program is forked.
pub(super) unsafe fn install_filter(filters: &Filters) -> RawFd {
    let fprog = |f: &Vec<libc::sock_filter>| libc::sock_fprog {
        len: f.len() as u16,
        filter: f.as_ptr() as *mut libc::sock_filter,
    };
    let notify = fprog(&filters.notify);
    let listener = libc::syscall(
        libc::SYS_seccomp,
        libc::SECCOMP_SET_MODE_FILTER,
        libc::SECCOMP_FILTER_FLAG_NEW_LISTENER,
        &notify as *const libc::sock_fprog,
    );
    if listener >= 0 {
        return listener as RawFd;
    }
    let kill = fprog(&filters.kill);
    let p = &kill as *const libc::sock_fprog;
    if libc::syscall(libc::SYS_seccomp, libc::SECCOMP_SET_MODE_FILTER, 0, p) == 0 {
        -1
    } else {
        -2
    }
}
