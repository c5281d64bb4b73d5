//! What runs in the processes a keeper forks for one run: *init* (the run's child subreaper in
//! the keeper's pid namespace: chroot, seccomp listener, reaping, report) and the *program* (rlimits, uid drop,
//! no_new_privs, exec). Everything they need is prepared before the fork ([`Prepared`]).

use std::ffi::CString;
use std::fs;
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};

use super::protocol::KeeperConfig;
use super::sys::{cpath, cstr, errno, os_err, set_rlimit};
use super::RunSpec;

/// Everything a run's children need, built before cloning.
pub(super) struct Prepared {
    pub(super) limits: super::Limits,
    pub(super) mode: Mode,
    /// The strings `argv_ptrs` and `envp_ptrs` point into (owned here, never read directly).
    _argv: Vec<CString>,
    _envp: Vec<CString>,
    /// The program's arguments and environment as the NULL-terminated arrays `execve` takes, built before cloning:
    /// the program allocates nothing between its clone and its exec (it shares init's memory).
    argv_ptrs: Vec<*const libc::c_char>,
    envp_ptrs: Vec<*const libc::c_char>,
    pub(super) stdin: OwnedFd,
    pub(super) stdout: OwnedFd,
    pub(super) stderr: Option<OwnedFd>,
    pub(super) workdir: CString,
    pub(super) uid: u32,
    pub(super) gid: u32,
}

pub(super) const SETUP_STAGES: &[&str] = &["chroot", "fork", "seccomp"];

impl Prepared {
    pub(super) fn new(
        spec: &RunSpec,
        config: &KeeperConfig,
        mode: Mode,
        box_dir: &Path,
        binds: &[(PathBuf, PathBuf, bool)],
        streams: Vec<Option<OwnedFd>>,
    ) -> Result<Prepared, String> {
        let namespaces = mode.namespaces;
        if spec.argv.is_empty() {
            return Err("empty argv".into());
        }
        // The streams the keeper opened: stdin, stdout, stderr (each None when the spec has
        // none). A regular stdin file becomes a private copy.
        let [stdin, stdout, stderr]: [Option<OwnedFd>; 3] = streams
            .try_into()
            .map_err(|_| "three standard streams".to_string())?;
        let stdin = match stdin {
            Some(fd) => private_stdin(fd, spec.stdin.as_deref().unwrap_or(Path::new("stdin")))?,
            None => fs::File::open("/dev/null")
                .map(OwnedFd::from)
                .map_err(|e| format!("/dev/null: {e}"))?,
        };
        let stdout = stdout.ok_or("no stdout")?;
        let workdir = if namespaces {
            cstr("/box")
        } else {
            cpath(box_dir)
        };
        // Without a mount namespace a bound folder is reached by its host path.
        let host_path = |arg: &String| -> String {
            for (inside, host, _) in binds.iter().filter(|_| !namespaces) {
                if let Ok(rest) = Path::new(arg).strip_prefix(inside) {
                    return host.join(rest).to_string_lossy().into_owned();
                }
            }
            arg.clone()
        };
        let argv: Vec<CString> = spec.argv.iter().map(|a| cstr(&host_path(a))).collect();
        let envp: Vec<CString> = spec
            .env
            .iter()
            .map(|(k, v)| cstr(&format!("{k}={v}")))
            .collect();
        // The pointers reach into the strings' own buffers, which stay put when `Prepared` moves.
        let nul_terminated = |v: &[CString]| {
            let mut p: Vec<*const libc::c_char> = v.iter().map(|a| a.as_ptr()).collect();
            p.push(std::ptr::null());
            p
        };
        Ok(Prepared {
            limits: spec.limits.clone(),
            mode,
            argv_ptrs: nul_terminated(&argv),
            envp_ptrs: nul_terminated(&envp),
            _argv: argv,
            _envp: envp,
            stdin,
            stdout,
            stderr,
            workdir,
            uid: config.uid,
            gid: config.gid,
        })
    }

    /// Bytes written to stdout and stderr, and the bytes the host's file system allocated for
    /// them. The second bounds what a run costs the host: blocks reserved past the end of a file
    /// (`fallocate` with KEEP_SIZE) never show in the size.
    pub(super) fn output_bytes(&self) -> (u64, u64) {
        let size = |fd: &OwnedFd| {
            // SAFETY: fstat on an fd we own into a zeroed struct.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            // SAFETY: fd is open for as long as self lives; st is a valid out-pointer.
            if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } == 0 {
                (st.st_size as u64, st.st_blocks as u64 * 512)
            } else {
                (0, 0)
            }
        };
        let (a, b) = size(&self.stdout);
        let (c, d) = self.stderr.as_ref().map_or((0, 0), size);
        (a + c, b + d)
    }
}

/// A run as it travels from the keeper to its init, which was forked before the run was asked
/// for (see `Keeper::spare`); the standard streams go beside it as descriptors (`SCM_RIGHTS`).
#[derive(serde::Serialize, serde::Deserialize)]
struct Wire {
    limits: super::Limits,
    /// `Mode`'s fields.
    mode: [bool; 3],
    argv: Vec<Vec<u8>>,
    envp: Vec<Vec<u8>>,
    workdir: Vec<u8>,
    uid: u32,
    gid: u32,
}

/// The largest run message: far above any real argv and environment, within what one
/// `SOCK_SEQPACKET` message carries at the kernel's default buffer size.
const WIRE_MAX: usize = 128 << 10;

impl Prepared {
    /// Sends the run to init over `sock` (one message, with the streams' descriptors).
    pub(super) fn send(&self, sock: &OwnedFd) -> Result<(), String> {
        let bytes = |v: &[CString]| v.iter().map(|c| c.as_bytes().to_vec()).collect();
        let wire = Wire {
            limits: self.limits.clone(),
            mode: [
                self.mode.namespaces,
                self.mode.drop_uid,
                self.mode.rlimit_memory,
            ],
            argv: bytes(&self._argv),
            envp: bytes(&self._envp),
            workdir: self.workdir.as_bytes().to_vec(),
            uid: self.uid,
            gid: self.gid,
        };
        let data = serde_json::to_vec(&wire).expect("a run serializes");
        if data.len() > WIRE_MAX {
            return Err(format!(
                "the run's arguments and environment take {} bytes, more than {WIRE_MAX}",
                data.len()
            ));
        }
        let mut fds = vec![self.stdin.as_raw_fd(), self.stdout.as_raw_fd()];
        fds.extend(self.stderr.as_ref().map(|f| f.as_raw_fd()));
        send_with_fds(sock.as_raw_fd(), &data, &fds)
            .map_err(|e| format!("send the run to init: {e}"))
    }

    /// Init's side of [`Prepared::send`] into `data` (at least [`WIRE_MAX`] bytes, allocated
    /// while init waited): None when the keeper closed the socket instead.
    fn receive(sock: RawFd, data: &mut [u8]) -> Option<Prepared> {
        let (n, mut fds) = receive_with_fds(sock, data)?;
        let wire: Wire = serde_json::from_slice(&data[..n]).ok()?;
        if !(2..=3).contains(&fds.len()) {
            return None;
        }
        let stderr = (fds.len() == 3).then(|| fds.pop()).flatten();
        let stdout = fds.pop()?;
        let stdin = fds.pop()?;
        let cstrings = |v: Vec<Vec<u8>>| -> Option<Vec<CString>> {
            v.into_iter().map(|b| CString::new(b).ok()).collect()
        };
        let (argv, envp) = (cstrings(wire.argv)?, cstrings(wire.envp)?);
        let nul_terminated = |v: &[CString]| {
            let mut p: Vec<*const libc::c_char> = v.iter().map(|a| a.as_ptr()).collect();
            p.push(std::ptr::null());
            p
        };
        if argv.is_empty() {
            return None;
        }
        Some(Prepared {
            limits: wire.limits,
            mode: Mode {
                namespaces: wire.mode[0],
                drop_uid: wire.mode[1],
                rlimit_memory: wire.mode[2],
            },
            argv_ptrs: nul_terminated(&argv),
            envp_ptrs: nul_terminated(&envp),
            _argv: argv,
            _envp: envp,
            stdin,
            stdout,
            stderr,
            workdir: CString::new(wire.workdir).ok()?,
            uid: wire.uid,
            gid: wire.gid,
        })
    }
}

/// The most descriptors one run message carries (stdin, stdout, stderr).
const WIRE_FDS: usize = 3;

/// `sendmsg` of `data` with `fds` as `SCM_RIGHTS`.
fn send_with_fds(sock: RawFd, data: &[u8], fds: &[RawFd]) -> std::io::Result<()> {
    assert!(fds.len() <= WIRE_FDS, "at most three streams");
    let fd_bytes = std::mem::size_of_val(fds) as u32;
    // A buffer aligned for `cmsghdr`, large enough for three descriptors.
    let mut control = [0u64; 8];
    let mut iov = libc::iovec {
        iov_base: data.as_ptr() as *mut libc::c_void,
        iov_len: data.len(),
    };
    // SAFETY: msghdr is plain data; all-zero is a valid value, filled below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
    // SAFETY: CMSG_SPACE only computes a size.
    msg.msg_controllen = unsafe { libc::CMSG_SPACE(fd_bytes) } as usize;
    // SAFETY: msg_control points at a buffer of msg_controllen bytes (64 >= CMSG_SPACE(12)),
    // so the first header and its data fit; the descriptors are copied into it.
    unsafe {
        let cmsg = libc::CMSG_FIRSTHDR(&msg);
        (*cmsg).cmsg_level = libc::SOL_SOCKET;
        (*cmsg).cmsg_type = libc::SCM_RIGHTS;
        (*cmsg).cmsg_len = libc::CMSG_LEN(fd_bytes) as usize;
        std::ptr::copy_nonoverlapping(fds.as_ptr(), libc::CMSG_DATA(cmsg) as *mut RawFd, fds.len());
    }
    loop {
        // SAFETY: msg and everything it points at live across the call.
        let n = unsafe { libc::sendmsg(sock, &msg, libc::MSG_NOSIGNAL) };
        if n >= 0 {
            return match n as usize == data.len() {
                true => Ok(()),
                false => Err(std::io::Error::other("the run message was cut")),
            };
        }
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            return Err(e);
        }
    }
}

/// `recvmsg` of one message into `data`, with the descriptors it carried (close-on-exec).
/// None at end of file, on an error, or for a message or control data cut short.
fn receive_with_fds(sock: RawFd, data: &mut [u8]) -> Option<(usize, Vec<OwnedFd>)> {
    let mut control = [0u64; 8];
    let mut iov = libc::iovec {
        iov_base: data.as_mut_ptr() as *mut libc::c_void,
        iov_len: data.len(),
    };
    // SAFETY: msghdr is plain data; all-zero is a valid value, filled below.
    let mut msg: libc::msghdr = unsafe { std::mem::zeroed() };
    msg.msg_iov = &mut iov;
    msg.msg_iovlen = 1;
    msg.msg_control = control.as_mut_ptr() as *mut libc::c_void;
    msg.msg_controllen = std::mem::size_of_val(&control);
    let n = loop {
        // SAFETY: msg points at live buffers of the lengths it states.
        let n = unsafe { libc::recvmsg(sock, &mut msg, libc::MSG_CMSG_CLOEXEC) };
        if n >= 0 || errno() != libc::EINTR {
            break n;
        }
    };
    let mut fds = Vec::new();
    // SAFETY: the kernel filled msg_control with msg_controllen bytes of well-formed headers;
    // CMSG_FIRSTHDR/NXTHDR stay within them, and each SCM_RIGHTS header's data holds the
    // descriptors its length says, now owned by this process.
    unsafe {
        let mut cmsg = libc::CMSG_FIRSTHDR(&msg);
        while !cmsg.is_null() {
            if (*cmsg).cmsg_level == libc::SOL_SOCKET && (*cmsg).cmsg_type == libc::SCM_RIGHTS {
                let len = (*cmsg).cmsg_len - libc::CMSG_LEN(0) as usize;
                let p = libc::CMSG_DATA(cmsg) as *const RawFd;
                for i in 0..len / std::mem::size_of::<RawFd>() {
                    fds.push(OwnedFd::from_raw_fd(std::ptr::read_unaligned(p.add(i))));
                }
            }
            cmsg = libc::CMSG_NXTHDR(&msg, cmsg);
        }
    }
    let cut = msg.msg_flags & (libc::MSG_TRUNC | libc::MSG_CTRUNC) != 0;
    (n > 0 && !cut).then_some((n as usize, fds))
}

/// Standard input for a run: a regular file is copied into a sealed memfd, so the program can
/// neither write the problem's own file (reopening `/proc/self/fd/0` for writing) nor learn its
/// path (`readlink` shows `/memfd:stdin`) and so reach the answers beside it. Anything else (a
/// FIFO joining two runs, a character device) is opened as it is.
fn private_stdin(fd: OwnedFd, path: &Path) -> Result<OwnedFd, String> {
    let err = |e: std::io::Error| format!("{}: {e}", path.display());
    let mut file = fs::File::from(fd);
    if !file.metadata().map_err(err)?.is_file() {
        return Ok(OwnedFd::from(file));
    }
    let flags = libc::MFD_CLOEXEC | libc::MFD_ALLOW_SEALING;
    // SAFETY: a NUL-terminated name and plain flags; the result is checked below.
    let fd = unsafe { libc::memfd_create(c"stdin".as_ptr(), flags) };
    if fd < 0 {
        return Err(os_err("memfd_create"));
    }
    // SAFETY: fd was just created and is owned by nothing else.
    let mut copy = fs::File::from(unsafe { OwnedFd::from_raw_fd(fd) });
    std::io::copy(&mut file, &mut copy).map_err(err)?;
    let seals = libc::F_SEAL_WRITE | libc::F_SEAL_GROW | libc::F_SEAL_SHRINK | libc::F_SEAL_SEAL;
    // SAFETY: fcntl on a descriptor we own; no pointers.
    if unsafe { libc::fcntl(fd, libc::F_ADD_SEALS, seals) } != 0 {
        return Err(os_err("seal the input copy"));
    }
    std::io::Seek::rewind(&mut copy).map_err(err)?;
    Ok(OwnedFd::from(copy))
}

/// What init tells the keeper through the report pipe.
#[repr(C)]
#[derive(Clone, Copy)]
pub(super) struct InitReport {
    pub(super) reaped: i32,
    pub(super) status: i32,
    pub(super) exec_errno: i32,
    pub(super) setup_errno: i32,
    pub(super) stage: u32,
    /// The system call the deny list stopped, or -1.
    pub(super) forbidden_nr: i64,
    /// CPU time (user + system, in microseconds) and the largest peak resident size (KiB) of
    /// every process init reaped: its `RUSAGE_CHILDREN` once the run is over. With it the
    /// keeper sends the outcome as soon as the report arrives and reaps init afterwards, off
    /// the run's path (init's own exit, the teardown of its copy of the keeper, is then not
    /// waited for).
    pub(super) children_cpu_us: i64,
    pub(super) children_maxrss_kb: i64,
}

impl Default for InitReport {
    fn default() -> Self {
        InitReport {
            reaped: 0,
            status: 0,
            exec_errno: 0,
            setup_errno: 0,
            stage: 0,
            forbidden_nr: -1,
            children_cpu_us: 0,
            children_maxrss_kb: 0,
        }
    }
}

/// How much isolation a run gets.
#[derive(Copy, Clone, Debug)]
pub(super) struct Mode {
    pub(super) namespaces: bool,
    pub(super) drop_uid: bool,
    /// No memory cgroup: limit the address space instead.
    pub(super) rlimit_memory: bool,
}

/// The two compiled forms of the deny list.
pub(super) struct Filters {
    pub(super) notify: Vec<libc::sock_filter>,
    pub(super) kill: Vec<libc::sock_filter>,
}

impl InitReport {
    pub(super) fn read(fd: &OwnedFd) -> Option<InitReport> {
        let mut r = InitReport::default();
        let size = std::mem::size_of::<InitReport>();
        // SAFETY: reads at most size bytes into a repr(C) struct of plain integers.
        let n = unsafe {
            libc::read(
                fd.as_raw_fd(),
                &mut r as *mut InitReport as *mut libc::c_void,
                size,
            )
        };
        (n == size as isize).then_some(r)
    }

    fn send(&self, fd: RawFd) {
        let size = std::mem::size_of::<InitReport>();
        // SAFETY: writes the bytes of a repr(C) struct of plain integers.
        unsafe { libc::write(fd, self as *const InitReport as *const libc::c_void, size) };
    }
}

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
pub(super) fn init_main(
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
pub(super) unsafe fn kill_and_reap_all(run: &Prepared) {
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

/// The stack the program runs on between its clone and its exec (it needs a few hundred bytes).
const PROGRAM_STACK: usize = 64 << 10;

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
unsafe fn clone_program(run: &Prepared, exec_err: RawFd, stack: *mut libc::c_void) -> libc::pid_t {
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
unsafe fn reset_signals() {
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

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    fn pair() -> (OwnedFd, OwnedFd) {
        let mut fds = [0; 2];
        let kind = libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC;
        // SAFETY: fds is a two-element array as socketpair requires.
        let made = unsafe { libc::socketpair(libc::AF_UNIX, kind, 0, fds.as_mut_ptr()) };
        assert_eq!(made, 0);
        // SAFETY: both descriptors were just created and are owned by nobody else.
        unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) }
    }

    fn run(argv: &[&str], stderr: bool) -> Prepared {
        let open = |write: bool| {
            OwnedFd::from(
                fs::OpenOptions::new()
                    .read(!write)
                    .write(write)
                    .open("/dev/null")
                    .expect("/dev/null"),
            )
        };
        let argv: Vec<CString> = argv.iter().map(|a| cstr(a)).collect();
        let envp = vec![cstr("PATH=/usr/bin"), cstr("LANG=C.UTF-8")];
        let ptrs = |v: &[CString]| {
            let mut p: Vec<*const libc::c_char> = v.iter().map(|a| a.as_ptr()).collect();
            p.push(std::ptr::null());
            p
        };
        Prepared {
            limits: super::super::Limits {
                cpu: std::time::Duration::from_millis(1500),
                wall: std::time::Duration::from_secs(3),
                memory: 256 << 20,
                output: 1 << 20,
                processes: 16,
                file_size: 1 << 20,
            },
            mode: Mode {
                namespaces: true,
                drop_uid: true,
                rlimit_memory: false,
            },
            argv_ptrs: ptrs(&argv),
            envp_ptrs: ptrs(&envp),
            _argv: argv,
            _envp: envp,
            stdin: open(false),
            stdout: open(true),
            stderr: stderr.then(|| open(true)),
            workdir: cstr("/box"),
            uid: 40000,
            gid: 40001,
        }
    }

    #[test]
    fn a_run_reaches_its_forked_init_whole_with_its_streams() {
        for stderr in [false, true] {
            let sent = run(&["/usr/bin/python3", "-c", "print('é')"], stderr);
            let (keeper, init) = pair();
            sent.send(&keeper).expect("sent");
            let got = Prepared::receive(init.as_raw_fd(), &mut [0; WIRE_MAX]).expect("received");
            assert_eq!(got._argv, sent._argv);
            assert_eq!(got._envp, sent._envp);
            assert_eq!(got.workdir, sent.workdir);
            assert_eq!((got.uid, got.gid), (40000, 40001));
            assert_eq!(got.limits, sent.limits);
            assert!(got.mode.namespaces && got.mode.drop_uid && !got.mode.rlimit_memory);
            assert_eq!(got.stderr.is_some(), stderr);
            // The pointer arrays execve takes point into the received strings.
            assert_eq!(got.argv_ptrs.len(), 4);
            assert!(got.argv_ptrs[3].is_null());
            // SAFETY: the pointer is into got._argv, alive here.
            let first = unsafe { std::ffi::CStr::from_ptr(got.argv_ptrs[0]) };
            assert_eq!(first.to_bytes(), b"/usr/bin/python3");
            // The descriptors are new ones for the very same files.
            let id = |fd: &OwnedFd| {
                let m = fs::File::from(fd.try_clone().expect("dup"))
                    .metadata()
                    .expect("stat");
                (m.dev(), m.ino())
            };
            assert_eq!(id(&got.stdout), id(&sent.stdout));
            assert_ne!(got.stdout.as_raw_fd(), sent.stdout.as_raw_fd());
        }
    }

    #[test]
    fn a_closed_channel_gives_init_no_run() {
        let (keeper, init) = pair();
        drop(keeper);
        assert!(Prepared::receive(init.as_raw_fd(), &mut [0; WIRE_MAX]).is_none());
    }

    #[test]
    fn an_oversized_run_is_refused_before_sending() {
        let big = "x".repeat(WIRE_MAX);
        let sent = run(&["/bin/echo", &big], false);
        let (keeper, _init) = pair();
        let e = sent.send(&keeper).expect_err("too large");
        assert!(e.contains("more than"), "{e}");
    }
}
