//! What runs in the processes a keeper forks for one run: *init* (the run's child subreaper in
//! the keeper's pid namespace: chroot, seccomp listener, reaping, report) and the *program* (rlimits, uid drop,
//! no_new_privs, exec). Everything they need is prepared before the fork ([`Prepared`]).
//!
//! Here: the prepared run and init's report. How a run travels to its init is in `wire`,
//! init's life in `init`, the program's from its clone to its exec in `program`.

mod init;
mod program;
mod wire;

pub(super) use init::{init_main, kill_and_reap_all};

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

#[cfg(test)]
mod tests {
    use super::wire::WIRE_MAX;
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
