//! The keeper: the small single-threaded process that owns a cgroup and a prepared root, and
//! runs one program at a time for the judge (see the module documentation of `sandbox`).
//!
//! This file holds all of ojd's `unsafe` code that deals with processes. The keeper is
//! single-threaded, so after `clone`/`fork` the child may allocate and use std freely; still,
//! every string the children need is built before cloning.

use std::ffi::CString;
use std::fs;
use std::io::{BufRead, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::fs::PermissionsExt;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use super::cgroup::Cgroup;
use super::seccomp;
use super::{Capabilities, LimitKind, RunOutcome, RunSpec, Termination};

/// Sent once, as the first line, when a keeper starts.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct KeeperConfig {
    /// Preferred uid (and gid) for programs; the keeper takes the first free one from here
    /// within `uid_base..uid_base + 1000`.
    pub uid: u32,
    pub gid: u32,
    pub uid_base: u32,
    /// An empty folder on which the keeper mounts its private root.
    pub root_dir: PathBuf,
    /// Host folders bound read-only at the same path (toolchains, interpreters).
    pub ro_paths: Vec<PathBuf>,
    /// Whether to try cgroups and namespaces (off: rlimits only).
    pub isolate: bool,
    /// Sizes of the `/box` and `/tmp` tmpfs mounts.
    pub box_size: u64,
    pub tmp_size: u64,
}

#[derive(Debug, Serialize, Deserialize)]
pub enum Request {
    Run(Box<RunSpec>),
}

#[derive(Debug, Serialize, Deserialize)]
pub enum Response {
    Ready {
        capabilities: Capabilities,
        cgroup_dirs: Vec<PathBuf>,
    },
    Outcome(Box<RunOutcome>),
    Failed(String),
}

/// Folders of the host that every root gets, read-only, when they exist.
const SYSTEM_PATHS: &[&str] = &[
    "/usr", "/lib", "/lib64", "/lib32", "/libx32", "/bin", "/sbin",
];
/// Files of /etc that dynamic linking and compilers need; nothing else of /etc is visible.
const ETC_PATHS: &[&str] = &[
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/alternatives",
    "/etc/localtime",
    "/etc/mime.types",
];
/// Mount points the root provides for per-run binds.
const MOUNT_POINTS: &[&str] = &["box", "prog", "tmp", "proc", "data", "dev", "etc"];

fn cstr(s: &str) -> CString {
    CString::new(s.replace('\0', "")).expect("NULs were removed")
}

fn cpath(p: &Path) -> CString {
    cstr(&p.to_string_lossy())
}

fn errno() -> i32 {
    std::io::Error::last_os_error().raw_os_error().unwrap_or(0)
}

fn os_err(what: &str) -> String {
    format!("{what}: {}", std::io::Error::last_os_error())
}

/// `mount(2)` with Rust strings; returns a message naming the target on failure.
fn mount(
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

fn bind(src: &Path, target: &Path, writable: bool) -> Result<(), String> {
    mount(Some(src), target, None, libc::MS_BIND | libc::MS_REC, None)?;
    let mut flags = libc::MS_REMOUNT | libc::MS_BIND | libc::MS_NOSUID | libc::MS_NODEV;
    if !writable {
        flags |= libc::MS_RDONLY;
    }
    mount(None, target, None, flags, None)
}

/// The keeper's state between runs.
struct Keeper {
    config: KeeperConfig,
    /// Held for the keeper's life: no other keeper, of this or another ojd process, runs
    /// programs as this uid (hidepid=2 and RLIMIT_NPROC separate runs by uid).
    _uid_lock: Option<fs::File>,
    /// The box as the keeper sees it (inside its root, or a plain folder without namespaces).
    box_dir: PathBuf,
    tmp_dir: PathBuf,
    /// Per-run binds currently mounted: (inside, host, writable).
    binds: Vec<(PathBuf, PathBuf, bool)>,
    cgroup: Option<Cgroup>,
    namespaces: bool,
    /// Running as root: programs drop to the keeper's uid even without namespaces.
    root: bool,
    /// The deny list reporting to a listener, and the same list killing outright (fallback).
    filters: Filters,
    ncpu: u32,
}

/// Entry point of `ojd __keeper`: reads the config, prepares, then serves runs until EOF.
pub fn main() -> ! {
    let stdin = std::io::stdin();
    let mut lines = stdin.lock().lines();
    let mut out = std::io::stdout().lock();
    let mut send = |r: &Response| {
        let mut line = serde_json::to_string(r).expect("responses always serialize");
        line.push('\n');
        if out
            .write_all(line.as_bytes())
            .and_then(|_| out.flush())
            .is_err()
        {
            std::process::exit(0);
        }
    };
    let config: KeeperConfig = match lines.next().map(|l| l.map(|l| serde_json::from_str(&l))) {
        Some(Ok(Ok(c))) => c,
        _ => {
            send(&Response::Failed("keeper: expected a config line".into()));
            std::process::exit(2);
        }
    };
    let (mut keeper, capabilities) = Keeper::start(config);
    let cgroup_dirs = keeper.cgroup.as_ref().map(|c| c.dirs()).unwrap_or_default();
    send(&Response::Ready {
        capabilities,
        cgroup_dirs,
    });
    for line in lines {
        let Ok(line) = line else { break };
        let response = match serde_json::from_str::<Request>(&line) {
            Ok(Request::Run(spec)) => match keeper.run(&spec) {
                Ok(outcome) => Response::Outcome(Box::new(outcome)),
                Err(e) => Response::Failed(e),
            },
            Err(e) => Response::Failed(format!("keeper: bad request: {e}")),
        };
        send(&response);
    }
    std::process::exit(0);
}

impl Keeper {
    fn start(mut config: KeeperConfig) -> (Keeper, Capabilities) {
        let mut caps = Capabilities::default();
        // SAFETY: plain libc calls without pointers.
        let root = unsafe { libc::geteuid() } == 0;
        let mut uid_lock = None;
        if root {
            match reserve_uid(config.uid_base, config.uid) {
                Ok((uid, lock)) => {
                    config.uid = uid;
                    config.gid = uid;
                    uid_lock = Some(lock);
                }
                Err(e) => caps.warnings.push(format!("could not reserve a sandbox uid ({e}): runs of other ojd processes may share uid {}", config.uid)),
            }
        }
        let ncpu = std::thread::available_parallelism().map_or(1, |n| n.get() as u32);
        // SAFETY: writes an integer string into a file; failure only loses OOM protection.
        let _ = fs::write("/proc/self/oom_score_adj", "-1000");
        let mut cgroup = None;
        let mut namespaces = false;
        if config.isolate && root {
            let name = format!("ojd-keeper-{}", std::process::id());
            match Cgroup::create_and_join(&name) {
                Ok(c) => {
                    caps.cgroup = Some(c.describe());
                    cgroup = Some(c);
                }
                Err(e) => caps.warnings.push(format!(
                    "cgroups unavailable ({e}): memory is limited by RLIMIT_AS and CPU time by RLIMIT_CPU only"
                )),
            }
            match prepare_root(&config) {
                Ok(()) => namespaces = true,
                Err(e) => caps.warnings.push(format!(
                    "namespaces unavailable ({e}): programs see the host filesystem and network"
                )),
            }
        } else if !root {
            caps.warnings.push(
                "not running as root: no namespaces, cgroups or uid drop; programs run with rlimits only".into(),
            );
        } else {
            caps.warnings
                .push("isolation disabled by configuration: rlimits only".into());
        }
        caps.namespaces = namespaces;
        caps.uid_drop = root;
        caps.seccomp = true;
        let filters = Filters {
            notify: seccomp::build_filter(seccomp::DenyAction::Notify),
            kill: seccomp::build_filter(seccomp::DenyAction::Kill),
        };
        let (box_dir, tmp_dir) = if namespaces {
            (config.root_dir.join("box"), config.root_dir.join("tmp"))
        } else {
            let d = config.root_dir.join("box");
            let _ = fs::create_dir_all(&d);
            if root {
                let _ = std::os::unix::fs::chown(&d, Some(config.uid), Some(config.gid));
            }
            (d.clone(), d)
        };
        (
            Keeper {
                config,
                _uid_lock: uid_lock,
                box_dir,
                tmp_dir,
                binds: Vec::new(),
                cgroup,
                namespaces,
                root,
                filters,
                ncpu,
            },
            caps,
        )
    }

    fn run(&mut self, spec: &RunSpec) -> Result<RunOutcome, String> {
        empty_dir(&self.box_dir)?;
        if self.tmp_dir != self.box_dir {
            empty_dir(&self.tmp_dir)?;
        }
        let owner = self.root.then_some((self.config.uid, self.config.gid));
        fill_box(&self.box_dir, &spec.box_files, owner)?;
        self.update_binds(spec)?;
        let mode = Mode {
            namespaces: self.namespaces,
            drop_uid: self.root,
            rlimit_memory: self.cgroup.is_none(),
        };
        let prepared = Prepared::new(spec, &self.config, mode, &self.box_dir, &self.binds)?;
        let limits = &spec.limits;
        let baseline = match &mut self.cgroup {
            Some(c) => Some(c.prepare(limits.memory, limits.processes)?),
            None => None,
        };
        let (report_r, report_w) = pipe()?;
        let mut flags = libc::SIGCHLD as libc::c_ulong;
        if self.namespaces {
            flags |= libc::CLONE_NEWPID as libc::c_ulong;
        }
        let start = Instant::now();
        // SAFETY: a raw clone without a new stack behaves like fork; the keeper is single-threaded,
        // so the child owns a consistent copy of the whole address space.
        let pid = unsafe { libc::syscall(libc::SYS_clone, flags, 0usize, 0usize, 0usize, 0usize) }
            as libc::pid_t;
        if pid < 0 {
            return Err(os_err("clone"));
        }
        if pid == 0 {
            drop(report_r);
            init_main(&prepared, &self.filters, report_w);
        }
        drop(report_w);
        let killed_by = self.supervise(pid, &prepared, baseline.as_ref(), start);
        let mut status = 0;
        // SAFETY: rusage is plain data the kernel fills.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        loop {
            // SAFETY: waits for our own child; pointers are to locals.
            let r = unsafe { libc::wait4(pid, &mut status, libc::__WALL, &mut usage) };
            if r == pid || (r < 0 && errno() != libc::EINTR) {
                break;
            }
        }
        let wall_time = start.elapsed();
        let cg = match (&mut self.cgroup, &baseline) {
            (Some(c), Some(b)) => Some(c.finish(b)),
            _ => None,
        };
        let tv = |t: libc::timeval| {
            Duration::from_micros(t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64)
        };
        let report = InitReport::read(report_r);
        // wait4's rusage misses processes the kernel reaped itself when init was killed (it
        // sets SIGCHLD to SIG_IGN while tearing the namespace down), so the cgroup's counter,
        // which sees every process, is taken when it is larger.
        let cg_cpu = match (&mut self.cgroup, &baseline) {
            (Some(c), Some(b)) => c.cpu_since(b),
            _ => None,
        };
        let rusage_cpu = tv(usage.ru_utime) + tv(usage.ru_stime);
        let exited_alone = killed_by.is_none() && report.as_ref().is_some_and(|r| r.reaped != 0);
        // The cgroup counter also holds the keeper's own clone and polling (a few ms); it is
        // only needed when init was killed, so an exited program keeps wait4's exact figure.
        let cpu_time = if exited_alone {
            rusage_cpu
        } else {
            rusage_cpu.max(cg_cpu.unwrap_or_default())
        };
        let output_bytes = prepared.output_bytes();
        let mut killed_by = killed_by;
        if killed_by.is_none() && cpu_time > limits.cpu {
            killed_by = Some(LimitKind::Cpu);
        }
        if killed_by.is_none() && output_bytes > limits.output {
            killed_by = Some(LimitKind::Output);
        }
        let oom = cg.as_ref().is_some_and(|u| u.oom_killed);
        if oom && killed_by.is_none() {
            killed_by = Some(LimitKind::Memory);
        }
        let termination = match &report {
            Some(r) if r.reaped != 0 => decode_status(r.status),
            // Init was killed before it could report: the program died with it.
            _ => Termination::Signaled(libc::SIGKILL),
        };
        if let Some(r) = &report {
            if r.setup_errno != 0 {
                return Err(format!(
                    "sandbox setup failed at {}: {}",
                    SETUP_STAGES.get(r.stage as usize).unwrap_or(&"?"),
                    std::io::Error::from_raw_os_error(r.setup_errno)
                ));
            }
        }
        let exec_error = report.as_ref().filter(|r| r.exec_errno != 0).map(|r| {
            format!(
                "{}: {}",
                spec.argv[0],
                std::io::Error::from_raw_os_error(r.exec_errno)
            )
        });
        let forbidden_syscall = match (&report, termination) {
            (Some(r), _) if r.forbidden_nr >= 0 => Some(
                seccomp::syscall_name(r.forbidden_nr)
                    .map_or_else(|| format!("#{}", r.forbidden_nr), str::to_string),
            ),
            // The kill fallback (no listener) cannot tell which call it was.
            (_, Termination::Signaled(libc::SIGSYS)) => {
                Some("(unknown: killed by SIGSYS)".to_string())
            }
            _ => None,
        };
        let peak_memory = cg
            .and_then(|u| u.peak_memory)
            .unwrap_or(usage.ru_maxrss as u64 * 1024);
        collect(&self.box_dir, &spec.collect, limits.output)?;
        Ok(RunOutcome {
            termination,
            cpu_time,
            wall_time,
            peak_memory,
            killed_by,
            output_bytes,
            forbidden_syscall,
            exec_error,
            fully_isolated: self.cgroup.is_some() && self.namespaces,
        })
    }

    /// Makes the mounted per-run binds equal to the spec's: unchanged binds stay (a submission's
    /// tests share one `/prog`), others are unmounted so no run sees an earlier run's files.
    fn update_binds(&mut self, spec: &RunSpec) -> Result<(), String> {
        let wanted: Vec<(PathBuf, PathBuf, bool)> = spec
            .binds
            .iter()
            .map(|b| (b.inside.clone(), b.host.clone(), b.writable))
            .collect();
        if !self.namespaces {
            // No mounts without a mount namespace: programs get the host paths instead.
            self.binds = wanted;
            return Ok(());
        }
        if wanted == self.binds {
            return Ok(());
        }
        for (inside, _, _) in std::mem::take(&mut self.binds) {
            let target = self
                .config
                .root_dir
                .join(inside.strip_prefix("/").unwrap_or(&inside));
            let c = cpath(&target);
            // SAFETY: a valid path string.
            unsafe { libc::umount2(c.as_ptr(), libc::MNT_DETACH) };
        }
        for (inside, host, writable) in &wanted {
            let name = inside.strip_prefix("/").unwrap_or(inside);
            if !["prog", "data"].iter().any(|m| Path::new(m) == name) {
                return Err(format!(
                    "bind target {} must be /prog or /data",
                    inside.display()
                ));
            }
            bind(host, &self.config.root_dir.join(name), *writable)?;
            self.binds.push((inside.clone(), host.clone(), *writable));
        }
        Ok(())
    }

    /// Waits for init to exit, killing it when a limit is crossed; returns that limit.
    fn supervise(
        &mut self,
        pid: libc::pid_t,
        run: &Prepared,
        base: Option<&super::cgroup::Baseline>,
        start: Instant,
    ) -> Option<LimitKind> {
        let limits = &run.limits;
        // SAFETY: pidfd_open on our own child; the fd is owned below.
        let raw = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) } as RawFd;
        let pidfd = (raw >= 0).then(|| unsafe { OwnedFd::from_raw_fd(raw) });
        loop {
            let wall = start.elapsed();
            let cpu = match (&mut self.cgroup, base) {
                (Some(c), Some(b)) => c.cpu_since(b),
                _ => None,
            };
            let verdict = if cpu.is_some_and(|c| c >= limits.cpu) {
                Some(LimitKind::Cpu)
            } else if wall >= limits.wall {
                Some(LimitKind::Wall)
            } else if run.output_bytes() > limits.output {
                Some(LimitKind::Output)
            } else {
                None
            };
            if verdict.is_some() {
                // SAFETY: kills our own child; with a pid namespace the kernel takes every
                // process of the run down with its init.
                unsafe { libc::kill(pid, libc::SIGKILL) };
                if !self.namespaces {
                    // Without a pid namespace, the program's session is the best handle.
                    unsafe { libc::kill(-pid, libc::SIGKILL) };
                }
                return verdict;
            }
            let mut timeout = (limits.wall - wall).min(Duration::from_millis(25));
            if let Some(c) = cpu {
                timeout = timeout.min((limits.cpu - c) / self.ncpu);
            }
            let ms = timeout.as_millis().max(1) as i32;
            match &pidfd {
                Some(fd) => {
                    let mut p = libc::pollfd {
                        fd: fd.as_raw_fd(),
                        events: libc::POLLIN,
                        revents: 0,
                    };
                    // SAFETY: one valid pollfd.
                    let r = unsafe { libc::poll(&mut p, 1, ms) };
                    if r > 0 {
                        return None;
                    }
                }
                None => {
                    std::thread::sleep(Duration::from_millis(ms as u64));
                    let mut st = 0;
                    // SAFETY: WNOWAIT leaves the child for the real wait4.
                    let mut info: libc::siginfo_t = unsafe { std::mem::zeroed() };
                    let r = unsafe {
                        libc::waitid(
                            libc::P_PID,
                            pid as u32,
                            &mut info,
                            libc::WEXITED | libc::WNOHANG | libc::WNOWAIT,
                        )
                    };
                    let _ = &mut st;
                    if r == 0 && unsafe { info.si_pid() } == pid {
                        return None;
                    }
                }
            }
        }
    }
}

fn decode_status(status: i32) -> Termination {
    if libc::WIFSIGNALED(status) {
        Termination::Signaled(libc::WTERMSIG(status))
    } else {
        Termination::Exited(libc::WEXITSTATUS(status))
    }
}

fn pipe() -> Result<(OwnedFd, OwnedFd), String> {
    let mut fds = [0; 2];
    // SAFETY: fds is a two-element array as pipe2 requires.
    if unsafe { libc::pipe2(fds.as_mut_ptr(), libc::O_CLOEXEC) } != 0 {
        return Err(os_err("pipe"));
    }
    // SAFETY: both fds were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Folders where keepers of every ojd process on the host meet to reserve uids.
const UID_LOCK_DIRS: &[&str] = &["/run/ojd-uids", "/tmp/ojd-uids"];

/// Takes an exclusive `flock` on `<dir>/<uid>.lock` for the first free uid, starting at
/// `preferred`, within `base..base + 1000`. The kernel drops the lock when the keeper dies.
fn reserve_uid(base: u32, preferred: u32) -> Result<(u32, fs::File), String> {
    use std::os::unix::fs::DirBuilderExt;
    let dir = UID_LOCK_DIRS
        .iter()
        .map(Path::new)
        .find(|d| {
            fs::DirBuilder::new()
                .recursive(true)
                .mode(0o700)
                .create(d)
                .is_ok()
        })
        .ok_or("no folder for uid locks")?;
    let start = preferred.saturating_sub(base) % 1000;
    for k in 0..1000 {
        let uid = base + (start + k) % 1000;
        let file = fs::OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(dir.join(format!("{uid}.lock")))
            .map_err(|e| format!("{}: {e}", dir.display()))?;
        // SAFETY: flock on a descriptor we own.
        if unsafe { libc::flock(file.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) } == 0 {
            return Ok((uid, file));
        }
    }
    Err(format!("all uids {base}..{} are in use", base + 1000))
}

/// Builds the keeper's private root once: a tmpfs with read-only binds of the system folders,
/// tmpfs mounts for `/box` and `/tmp`, and a `hidepid=2` `/proc`.
fn prepare_root(config: &KeeperConfig) -> Result<(), String> {
    // SAFETY: unshare affects only this (single-threaded) process.
    let flags = libc::CLONE_NEWNS | libc::CLONE_NEWNET | libc::CLONE_NEWIPC | libc::CLONE_NEWUTS;
    if unsafe { libc::unshare(flags) } != 0 {
        return Err(os_err("unshare"));
    }
    let host = b"ojd";
    // SAFETY: a valid buffer and its length.
    unsafe { libc::sethostname(host.as_ptr() as *const libc::c_char, host.len()) };
    mount(
        None,
        Path::new("/"),
        None,
        libc::MS_REC | libc::MS_PRIVATE,
        None,
    )?;
    let root = &config.root_dir;
    fs::create_dir_all(root).map_err(|e| format!("{}: {e}", root.display()))?;
    mount(
        None,
        root,
        Some("tmpfs"),
        libc::MS_NOSUID,
        Some("size=16m,mode=755"),
    )?;
    for dir in MOUNT_POINTS {
        fs::create_dir_all(root.join(dir)).map_err(|e| format!("{dir}: {e}"))?;
    }
    let mut paths: Vec<PathBuf> = SYSTEM_PATHS
        .iter()
        .chain(ETC_PATHS)
        .map(PathBuf::from)
        .collect();
    paths.extend(config.ro_paths.iter().cloned());
    for host in paths {
        let Ok(meta) = fs::symlink_metadata(&host) else {
            continue;
        };
        let inside = root.join(host.strip_prefix("/").unwrap_or(&host));
        if meta.file_type().is_symlink() {
            // Merged-/usr systems: /bin -> usr/bin stays a symlink inside too.
            let target = fs::read_link(&host).map_err(|e| e.to_string())?;
            if let Some(parent) = inside.parent() {
                fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            let _ = std::os::unix::fs::symlink(target, &inside);
            continue;
        }
        if inside.exists() {
            continue;
        }
        if meta.is_dir() {
            fs::create_dir_all(&inside).map_err(|e| format!("{}: {e}", inside.display()))?;
        } else {
            if let Some(parent) = inside.parent() {
                fs::create_dir_all(parent).map_err(|e| e.to_string())?;
            }
            fs::write(&inside, b"").map_err(|e| e.to_string())?;
        }
        bind(&host, &inside, false)?;
    }
    let etc = root.join("etc");
    let passwd = format!(
        "root:x:0:0::/:/bin/sh\nojd:x:{}:{}::/box:/bin/sh\n",
        config.uid, config.gid
    );
    let group = format!("root:x:0:\nojd:x:{}:\n", config.gid);
    fs::write(etc.join("passwd"), passwd).map_err(|e| e.to_string())?;
    fs::write(etc.join("group"), group).map_err(|e| e.to_string())?;
    fs::write(etc.join("hostname"), "ojd\n").map_err(|e| e.to_string())?;
    let dev = root.join("dev");
    for (name, major, minor) in [
        ("null", 1, 3),
        ("zero", 1, 5),
        ("full", 1, 7),
        ("random", 1, 8),
        ("urandom", 1, 9),
    ] {
        let p = cpath(&dev.join(name));
        // SAFETY: p is a valid path string; mknod of character devices as root.
        if unsafe {
            libc::mknod(
                p.as_ptr(),
                libc::S_IFCHR | 0o666,
                libc::makedev(major, minor),
            )
        } != 0
        {
            return Err(os_err(&format!("mknod /dev/{name}")));
        }
        fs::set_permissions(dev.join(name), fs::Permissions::from_mode(0o666))
            .map_err(|e| e.to_string())?;
    }
    for (name, target) in [
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ] {
        let _ = std::os::unix::fs::symlink(target, dev.join(name));
    }
    // Nothing of the root itself is writable once built.
    mount(
        None,
        root,
        None,
        libc::MS_REMOUNT | libc::MS_RDONLY | libc::MS_NOSUID,
        None,
    )?;
    let rw = libc::MS_NOSUID | libc::MS_NODEV;
    let owner = format!("uid={},gid={}", config.uid, config.gid);
    mount(
        None,
        &root.join("box"),
        Some("tmpfs"),
        rw,
        Some(&format!(
            "size={},nr_inodes=4096,mode=755,{owner}",
            config.box_size
        )),
    )?;
    mount(
        None,
        &root.join("tmp"),
        Some("tmpfs"),
        rw,
        Some(&format!(
            "size={},nr_inodes=4096,mode=1777",
            config.tmp_size
        )),
    )?;
    mount(
        None,
        &root.join("proc"),
        Some("proc"),
        rw | libc::MS_NOEXEC,
        Some("hidepid=2"),
    )?;
    Ok(())
}

/// Removes everything inside `dir` (not `dir` itself: it is a mount point).
fn empty_dir(dir: &Path) -> Result<(), String> {
    let entries = fs::read_dir(dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    for e in entries.flatten() {
        let p = e.path();
        let r = if e.file_type().is_ok_and(|t| t.is_dir()) {
            fs::remove_dir_all(&p)
        } else {
            fs::remove_file(&p)
        };
        r.map_err(|err| format!("failed to clear {}: {err}", p.display()))?;
    }
    Ok(())
}

/// Everything a run's children need, built before cloning.
struct Prepared {
    limits: super::Limits,
    mode: Mode,
    root: CString,
    argv: Vec<CString>,
    envp: Vec<CString>,
    stdin: OwnedFd,
    stdout: OwnedFd,
    stderr: Option<OwnedFd>,
    workdir: CString,
    uid: u32,
    gid: u32,
}

const SETUP_STAGES: &[&str] = &["chroot", "fork", "seccomp"];

impl Prepared {
    fn new(
        spec: &RunSpec,
        config: &KeeperConfig,
        mode: Mode,
        box_dir: &Path,
        binds: &[(PathBuf, PathBuf, bool)],
    ) -> Result<Prepared, String> {
        let namespaces = mode.namespaces;
        if spec.argv.is_empty() {
            return Err("empty argv".into());
        }
        let open = |p: &Path, write: bool| -> Result<OwnedFd, String> {
            let f = if write {
                fs::OpenOptions::new()
                    .write(true)
                    .create(true)
                    .truncate(true)
                    .open(p)
            } else {
                fs::File::open(p)
            };
            f.map(OwnedFd::from)
                .map_err(|e| format!("{}: {e}", p.display()))
        };
        let stdin = open(
            spec.stdin.as_deref().unwrap_or(Path::new("/dev/null")),
            false,
        )?;
        let stdout = open(&spec.stdout, true)?;
        let stderr = spec.stderr.as_deref().map(|p| open(p, true)).transpose()?;
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
        Ok(Prepared {
            limits: spec.limits.clone(),
            mode,
            root: cpath(&config.root_dir),
            argv: spec.argv.iter().map(|a| cstr(&host_path(a))).collect(),
            envp: spec
                .env
                .iter()
                .map(|(k, v)| cstr(&format!("{k}={v}")))
                .collect(),
            stdin,
            stdout,
            stderr,
            workdir,
            uid: config.uid,
            gid: config.gid,
        })
    }

    fn output_bytes(&self) -> u64 {
        let size = |fd: &OwnedFd| {
            // SAFETY: fstat on an fd we own into a zeroed struct.
            let mut st: libc::stat = unsafe { std::mem::zeroed() };
            if unsafe { libc::fstat(fd.as_raw_fd(), &mut st) } == 0 {
                st.st_size as u64
            } else {
                0
            }
        };
        size(&self.stdout) + self.stderr.as_ref().map_or(0, size)
    }
}

/// Copies the run's input files into the emptied box and hands them to the sandbox user.
fn fill_box(
    dir: &Path,
    files: &[(PathBuf, String)],
    owner: Option<(u32, u32)>,
) -> Result<(), String> {
    for (src, name) in files {
        if name.contains('/') || name.starts_with('.') || name.is_empty() {
            return Err(format!("box file name {name:?} must be a plain name"));
        }
        let dest = dir.join(name);
        fs::copy(src, &dest)
            .map_err(|e| format!("failed to copy {} into the box: {e}", src.display()))?;
        if let Some((uid, gid)) = owner {
            std::os::unix::fs::chown(&dest, Some(uid), Some(gid)).map_err(|e| e.to_string())?;
        }
    }
    Ok(())
}

/// Copies files the program left in the box out to the host, at most `limit` bytes each.
fn collect(dir: &Path, wanted: &[(String, PathBuf)], limit: u64) -> Result<(), String> {
    for (name, dest) in wanted {
        let src = dir.join(name);
        // Never follow a link the program planted: it could point at anything in the root.
        let Ok(meta) = fs::symlink_metadata(&src) else {
            let _ = fs::remove_file(dest);
            continue;
        };
        if !meta.is_file() {
            let _ = fs::remove_file(dest);
            continue;
        }
        let file = fs::File::open(&src).map_err(|e| format!("{}: {e}", src.display()))?;
        let mut out = fs::File::create(dest).map_err(|e| format!("{}: {e}", dest.display()))?;
        std::io::copy(&mut std::io::Read::take(file, limit + 1), &mut out)
            .map_err(|e| format!("{}: {e}", dest.display()))?;
    }
    Ok(())
}

/// What init tells the keeper through the report pipe.
#[repr(C)]
#[derive(Clone, Copy)]
struct InitReport {
    reaped: i32,
    status: i32,
    exec_errno: i32,
    setup_errno: i32,
    stage: u32,
    /// The system call the deny list stopped, or -1.
    forbidden_nr: i64,
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
        }
    }
}

/// How much isolation a run gets.
#[derive(Copy, Clone, Debug)]
struct Mode {
    namespaces: bool,
    drop_uid: bool,
    /// No memory cgroup: limit the address space instead.
    rlimit_memory: bool,
}

/// The two compiled forms of the deny list.
struct Filters {
    notify: Vec<libc::sock_filter>,
    kill: Vec<libc::sock_filter>,
}

impl InitReport {
    fn read(fd: OwnedFd) -> Option<InitReport> {
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

fn fail_setup(report: RawFd, stage: u32) -> ! {
    InitReport {
        setup_errno: errno().max(1),
        stage,
        ..Default::default()
    }
    .send(report);
    // SAFETY: terminates the child without running the keeper's destructors.
    unsafe { libc::_exit(1) }
}

/// PID 1 of the run's pid namespace: enters the root, forks the program, serves its seccomp
/// listener, reaps it, reports.
fn init_main(run: &Prepared, filters: &Filters, report: OwnedFd) -> ! {
    let report = report.as_raw_fd();
    // SAFETY (whole function): we are the only thread of a fresh child; every pointer passed to
    // libc is a local or a CString prepared before clone.
    unsafe {
        // If the keeper dies, the run dies with it (and with init, its whole namespace). The
        // keeper is single-threaded, so "parent thread exits" means the keeper exits.
        libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
        // (In a pid namespace getppid() is 0 for init, so the lost-race check works only
        // without one; the window between clone and prctl is a few instructions.)
        if !run.mode.namespaces && libc::getppid() == 1 {
            libc::_exit(1);
        }
        if run.mode.namespaces
            && (libc::chroot(run.root.as_ptr()) != 0 || libc::chdir(c"/".as_ptr()) != 0)
        {
            fail_setup(report, 0);
        }
        let mut exec_pipe = [0; 2];
        if libc::pipe2(exec_pipe.as_mut_ptr(), libc::O_CLOEXEC) != 0 {
            fail_setup(report, 1);
        }
        // Init installs the deny list itself, so the program inherits it at fork and init holds
        // the listener. Init makes no denied call, so it never waits on its own listener.
        let listener = install_filter(filters);
        if listener == -2 {
            fail_setup(report, 2);
        }
        let child = libc::fork();
        if child < 0 {
            fail_setup(report, 1);
        }
        if child == 0 {
            libc::close(exec_pipe[0]);
            program_main(run, exec_pipe[1]);
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
        let mut e: i32 = 0;
        if libc::read(exec_pipe[0], &mut e as *mut i32 as *mut libc::c_void, 4) == 4 {
            r.exec_errno = e;
        }
        r.send(report);
        // Exiting kills whatever the program left behind in the namespace.
        libc::_exit(0)
    }
}

/// Waits for the program to exit while answering its seccomp notifications: the first denied
/// call is recorded and every process of the run killed (the call itself never runs).
///
/// # Safety
/// `pidfd` and `listener` (unless -1) are open descriptors.
unsafe fn serve_listener(pidfd: RawFd, mut listener: RawFd, r: &mut InitReport) {
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
                // kill(-1) from init reaches every process of this namespace but init.
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
unsafe fn install_filter(filters: &Filters) -> RawFd {
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

fn set_rlimit(resource: libc::__rlimit_resource_t, soft: u64, hard: u64) {
    let lim = libc::rlimit {
        rlim_cur: soft,
        rlim_max: hard,
    };
    // SAFETY: passes a valid rlimit struct.
    unsafe { libc::setrlimit(resource, &lim) };
}

/// The program's own process, between fork and exec.
fn program_main(run: &Prepared, exec_err: RawFd) -> ! {
    let limits = &run.limits;
    // SAFETY (whole function): single-threaded child; all pointers are prepared CStrings/locals.
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
        // Signals the keeper ignores (Rust ignores SIGPIPE) must not stay ignored after exec.
        for sig in 1..32 {
            if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut());

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
        let mut argv: Vec<*const libc::c_char> = run.argv.iter().map(|a| a.as_ptr()).collect();
        argv.push(std::ptr::null());
        let mut envp: Vec<*const libc::c_char> = run.envp.iter().map(|a| a.as_ptr()).collect();
        envp.push(std::ptr::null());
        libc::execve(argv[0], argv.as_ptr(), envp.as_ptr());
        die(5)
    }
}
