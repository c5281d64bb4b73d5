//! The program's process, from its clone by init to its exec: rlimits, uid drop,
//! `no_new_privs`, the standard streams, then `execve` (nothing allocated on the way).

use super::*;

/// The stack the program runs on between its clone and its exec (it needs a few hundred bytes).
pub(super) const PROGRAM_STACK: usize = 64 << 10;

/// What [`program_entry`] gets through `clone`'s argument.
struct ProgramArgs<'a> {
    run: &'a Prepared,
    exec_err: RawFd,
}

/// Starts the program as `posix_spawn` does: a child that shares init's memory (`CLONE_VM`)
/// on a stack of its own, while init waits until it has exec'd or died (`CLONE_VFORK`). No
/// copy of init's page tables is made, no page is copied on write and none is freed at the
/// exec: about a tenth of a millisecond of every run with a plain fork. Returns the pid (-1 on
/// failure, errno set).
///
/// Init has no signal handler (see [`reset_signals`]), so no handler can run in the child on
/// init's memory and the child inherits default dispositions and an empty mask. The child makes
/// no call the deny list stops (init could not answer its listener while it waits).
///
/// # Safety
/// Must run in init, single-threaded, after the deny list was installed; `stack` is a mapping
/// of [`PROGRAM_STACK`] bytes that nothing else uses.
pub(super) unsafe fn clone_program(
    run: &Prepared,
    exec_err: RawFd,
    stack: *mut libc::c_void,
) -> libc::pid_t {
    let args = ProgramArgs { run, exec_err };
    // The stack grows down from its end, which mmap aligned to a page.
    let top = (stack as *mut u8).add(PROGRAM_STACK) as *mut libc::c_void;
    libc::clone(
        program_entry,
        top,
        libc::CLONE_VM | libc::CLONE_VFORK | libc::SIGCHLD,
        &args as *const ProgramArgs as *mut libc::c_void,
    )
}

/// Gives every signal its default action and unblocks all: what the keeper ignores or handles
/// (Rust ignores SIGPIPE; the keeper catches SIGALRM), and what the judge's own parent left
/// ignored (an ignored signal stays ignored across every exec), must not stay so in init, whose
/// program inherits both. The real-time signals too: through the kernel's `rt_sigaction`,
/// since the C library's `sigaction` refuses the two it keeps for itself (32 and 33).
///
/// # Safety
/// Must run in init (a single-threaded fresh child) before it clones its program.
pub(super) unsafe fn reset_signals() {
    /// The kernel's `struct sigaction` (x86_64 and aarch64).
    #[repr(C)]
    struct KernelSigaction {
        handler: libc::sighandler_t,
        flags: libc::c_ulong,
        restorer: usize,
        mask: u64,
    }
    let default = KernelSigaction {
        handler: libc::SIG_DFL,
        flags: 0,
        restorer: 0,
        mask: 0,
    };
    for sig in 1..=64 {
        if sig != libc::SIGKILL && sig != libc::SIGSTOP {
            let act = &default as *const KernelSigaction;
            libc::syscall(libc::SYS_rt_sigaction, sig, act, std::ptr::null::<u8>(), 8);
        }
    }
    let mut set: libc::sigset_t = std::mem::zeroed();
    libc::sigemptyset(&mut set);
    libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());
}

/// The program's first function after its clone.
extern "C" fn program_entry(arg: *mut libc::c_void) -> libc::c_int {
    // SAFETY: `arg` is the `ProgramArgs` on init's stack, which lives until this child has
    // exec'd or exited: init is suspended in `clone` until then (CLONE_VFORK).
    let args = unsafe { &*(arg as *const ProgramArgs) };
    // (The exec pipe's read end, init's, is close-on-exec like every descriptor but 0-2.)
    program_main(args.run, args.exec_err)
}

/// The program's own process, between its clone and its exec.
fn program_main(run: &Prepared, exec_err: RawFd) -> ! {
    let limits = &run.limits;
    // SAFETY: (the whole function) a single-threaded child; all pointers are prepared CStrings/locals.
    unsafe {
        let die = |stage: u32| -> ! {
            let e = errno().max(1);
            let _ = stage;
            libc::write(exec_err, &e as *const i32 as *const libc::c_void, 4);
            libc::_exit(127)
        };
        libc::setsid();
        // The OOM killer must choose the program, never the keeper.
        let fd = libc::open(c"/proc/self/oom_score_adj".as_ptr(), libc::O_WRONLY);
        if fd >= 0 {
            libc::write(fd, b"1000".as_ptr() as *const libc::c_void, 4);
            libc::close(fd);
        }
        // (Signal dispositions and mask are init's, already the defaults: `reset_signals`.)
        let cpu_secs = limits.cpu.as_secs() + 1;
        set_rlimit(libc::RLIMIT_CPU, cpu_secs, cpu_secs + 1);
        set_rlimit(libc::RLIMIT_CORE, 0, 0);
        set_rlimit(libc::RLIMIT_STACK, limits.memory, limits.memory);
        let fsize = limits.file_size.max(limits.output + 1);
        set_rlimit(libc::RLIMIT_FSIZE, fsize, fsize);
        set_rlimit(libc::RLIMIT_NOFILE, 256, 256);
        if run.mode.rlimit_memory {
            // No memory cgroup: address space is the only memory limit left.
            set_rlimit(libc::RLIMIT_AS, limits.memory, limits.memory);
        }
        if libc::dup2(run.stdin.as_raw_fd(), 0) < 0 || libc::dup2(run.stdout.as_raw_fd(), 1) < 0 {
            die(0);
        }
        let err_fd = run.stderr.as_ref().map_or(1, |f| f.as_raw_fd());
        if libc::dup2(err_fd, 2) < 0 {
            die(0);
        }
        // Everything else (the keeper's pipes, the report pipe) closes at exec.
        libc::syscall(
            libc::SYS_close_range,
            3u32,
            u32::MAX,
            libc::CLOSE_RANGE_CLOEXEC,
        );
        if libc::chdir(run.workdir.as_ptr()) != 0 {
            die(0);
        }
        if run.mode.drop_uid {
            // The uid is the keeper's own, so this counts exactly the run's processes.
            set_rlimit(
                libc::RLIMIT_NPROC,
                limits.processes as u64,
                limits.processes as u64,
            );
            if libc::setgroups(0, std::ptr::null()) != 0
                || libc::setresgid(run.gid, run.gid, run.gid) != 0
                || libc::setresuid(run.uid, run.uid, run.uid) != 0
            {
                die(3);
            }
        }
        if libc::prctl(libc::PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 {
            die(3);
        }
        libc::execve(
            run.argv_ptrs[0],
            run.argv_ptrs.as_ptr(),
            run.envp_ptrs.as_ptr(),
        );
        die(5)
    }
}
