//! The sandbox: runs one untrusted program under limits and reports what it did.
//!
//! # Theory of operation
//!
//! The judge is a large, multithreaded process; after `fork` in such a process only
//! async-signal-safe work is allowed, and `ru_maxrss` of its children starts at the judge's own
//! size. So, like isolate's keeper, every [`Sandbox`] owns a small single-threaded helper
//! process, the *keeper* (this same binary re-executed as `ojd __keeper`), spoken to over a pipe
//! with one JSON line per request and per answer.
//!
//! At start the keeper, as root:
//! - creates its own cgroups (memory, pids, cpuacct under v1; under v2 one cgroup beside the
//!   judging process's leaf in the subtree `delegate` made, the keeper in a leaf of it and each
//!   run in a fresh cgroup of its own, `run_cgroup`) and joins them *once*. Writing a pid into
//!   an idle cgroup v1 costs 8–20 ms here, forking inside one costs nothing, so under v1 every
//!   run is forked from inside the keeper's cgroup and per-run accounting is done by resetting
//!   and differencing counters; under v2 the run's init is forked straight into its own cgroup
//!   (`clone3`), which costs nothing either;
//! - unshares a mount and a uts namespace and builds a read-only root once: a tmpfs with
//!   read-only binds of /usr, /lib, the toolchains in the config, a minimal /etc and /dev, and
//!   size- and inode-capped tmpfs mounts for `/box` (the working folder) and `/tmp`. Measured
//!   here, a new mount namespace plus its mounts costs about 0.5 ms per run; building it once is
//!   what keeps a run under 1 ms. Every keeper has a uid of its own.
//!
//! Each run then:
//! 1. the keeper checks that `/box` and `/tmp` are exactly as right after their mount (entries,
//!    mode, owner, timestamps, extended attributes) and mounts a fresh tmpfs on any that is not
//!    (dropping a tmpfs costs the same whatever a program left there; after every run, once its
//!    outcome is sent, both are mounted anew anyway), copies the run's input files in
//!    (`O_EXCL | O_NOFOLLOW`), (re)binds `/prog` read-only only when the executable's folder
//!    changed, from the keeper's private copy of it (`progs.rs`: no host path in mountinfo),
//!    resets the cgroup counters, copies a regular stdin file into a sealed memfd, opens
//!    stdout/stderr through a detached copy of their folder's mount (no host path behind
//!    `/proc/self/fd/1`) and `clone`s an *init* process into the keeper's pid namespace (one per
//!    keeper, with one `hidepid=2` `/proc` whose files naming the host or counting its load are
//!    masked, held by a small PID 1: `pidns.rs`). After a run that left a socket alive, the keeper moves to a new network namespace, so nothing reaches the
//!    next run;
//! 2. init chroots into the root, becomes the run's child subreaper, installs the seccomp deny
//!    list and forks the program. The program is never PID 1, so default-action signals like
//!    SIGXCPU reach it;
//! 3. the program sets rlimits (stack = memory limit, file size, CPU backstop, no core), drops to
//!    the keeper's unprivileged uid, sets no_new_privs and execs;
//! 4. the keeper polls init's report pipe with a timeout computed from the remaining CPU time (CPU
//!    grows at most `ncpu` times faster than the wall clock), reading the cgroup's CPU counter and
//!    the output files' sizes and allocated blocks at each wake; on any limit it kills init, and
//!    the namespace's holder then kills and reaps every process the run left (setsid'd daemons
//!    included) before anything of the run is read;
//! 5. when the program exits, init kills and reaps whatever it left (an unwaited child still
//!    burning CPU, a daemon) and reports, with the CPU time and peak RSS of all it reaped
//!    (`RUSAGE_CHILDREN`); the keeper sends the outcome then and reaps init after, off the run's
//!    path. CPU time is the larger of init's count (the keeper's `wait4` of a killed init) and
//!    the cgroup's counter less the keeper's own CPU (which also sees
//!    children the kernel reaped because their parent ignored SIGCHLD); peak memory is the
//!    cgroup's high-water mark less the baseline read before the run, never below the largest
//!    process's own peak RSS; MLE comes from the cgroup's OOM-kill counter.
//!
//! Output goes to regular files, so the judge's memory stays bounded whatever is printed; the
//! keeper counts the bytes and the blocks allocated (fstat at every wake), `fallocate` is refused
//! by seccomp, and `RLIMIT_FSIZE` is the backstop.
//!
//! Without full isolation (not root, no cgroups or namespaces, or `isolate = false`) a keeper is
//! refused ([`SandboxError::Insecure`]) unless [`SandboxOptions::allow_insecure`] is set. Then the
//! program runs under rlimits only (`RLIMIT_AS` for memory, `RLIMIT_CPU` for time,
//! `RLIMIT_NPROC`), still gets a private stdin copy and box files created without following
//! links, and init and the keeper (both child subreapers) kill every process of the run, and of
//! the run's uid when there is one; every outcome says that isolation was reduced.
//!
//! The modules: `client` (the judge's side: [`Sandbox`], [`SandboxPool`]) and `keeper` speak
//! the `protocol`; the keeper builds its root in `root`, forks init and the program from `child`,
//! accounts in `cgroup` (under v2 in the subtree `delegate` finds or makes, asking systemd
//! over `dbus` when it must, and in `run_cgroup`), filters with `seccomp`, gives capped writable binds (a multi-pass validator's feedback folder) a
//! tmpfs of their own in `capped`; the libc helpers are in `sys`. Users see this
//! file (what to run, its limits, what it did, the sandboxes), `keeper::main` (the entry point
//! of `ojd __keeper`), and in `affinity` and `noise` the CPU pinning and timing checks that
//! `ojd doctor` and the benchmarks use; everything else is crate-private.

// The only crate of ojd with unsafe code: every block says why it is sound.
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod affinity;
mod capped;
mod cgroup;
mod child;
mod client;
mod dbus;
mod delegate;
pub mod keeper;
pub mod noise;
mod pidns;
mod progs;
mod protocol;
mod root;
mod run_cgroup;
mod seccomp;
mod starve;
mod sys;

use std::path::PathBuf;
use std::time::Duration;

use serde::{Deserialize, Serialize};

pub use client::{PooledSandbox, Sandbox, SandboxOptions, SandboxPool};
pub use delegate::Delegation;

/// Under cgroup v2, the delegated subtree this process's keepers get their cgroups in, made at
/// the first call (or the first keeper's start) as `delegate.rs` says: this process moves into
/// a leaf of its cgroup, or into a delegated scope systemd makes for it. None on a cgroup v1
/// host. The error names what is missing and the command that fixes it.
pub fn cgroup_delegation() -> Option<Result<Delegation, String>> {
    delegate::ensure()
}

/// Whether this process runs as root (full isolation needs it).
pub fn running_as_root() -> bool {
    // SAFETY: geteuid has no preconditions and cannot fail.
    unsafe { libc::geteuid() == 0 }
}

/// Creates a FIFO at `path` (mode 0600), for joining two runs: a [`RunSpec`] may name it as
/// standard input or output, and the keeper then opens it as it is. Its other end must be
/// opened once per run that names it, within the run's wall-time limit (at least a second):
/// else the run fails ([`SandboxError::Keeper`], naming the FIFO) and nothing is started. A FIFO
/// whose other end was opened and closed for one run cannot serve another.
pub fn make_fifo(path: &std::path::Path) -> std::io::Result<()> {
    use std::os::unix::ffi::OsStrExt;
    let c = std::ffi::CString::new(path.as_os_str().as_bytes())
        .map_err(|_| std::io::Error::other("a path with a NUL byte"))?;
    // SAFETY: `c` is a valid NUL-terminated path that outlives the call; mkfifo has no other
    // preconditions and its result is checked.
    if unsafe { libc::mkfifo(c.as_ptr(), 0o600) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok(())
}

/// Resource limits of one run.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct Limits {
    /// CPU time (user + system, all processes of the run).
    pub cpu: Duration,
    /// Wall-clock time from start to exit.
    pub wall: Duration,
    /// Memory (resident, all processes), also the stack size limit.
    pub memory: u64,
    /// Bytes written to stdout plus stderr.
    pub output: u64,
    /// Processes and threads alive at once.
    pub processes: u32,
    /// Largest file the program may write in its box.
    pub file_size: u64,
}

/// What a run does with the page cache that the keeper's earlier runs left charged to its
/// memory cgroup: the files they read (a compiler reads hundreds of MiB of its own files) and
/// wrote.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum EarlierCache {
    /// Reclaimed before the run, so that the memory limit is the run's own to the byte: for a
    /// run whose memory counts in its verdict (a test). The default.
    #[default]
    Reclaim,
    /// Kept while it is at most half the run's memory limit (else reclaimed as above), inside
    /// the limit: the kernel reclaims it first when the run needs the room. For a run whose
    /// memory is no verdict, a compile, whose limit only guards the host. Reclaiming
    /// would drop the compiler's own files from memory before every compile of a keeper, and
    /// each compile would read them from disk again (several hundred MiB; on a slow virtual
    /// disk that doubled the compile phase of `ojd verify`).
    Keep,
}

/// A folder bound into the sandbox for one run.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Bind {
    /// The folder on the host.
    pub host: PathBuf,
    /// Absolute path inside the sandbox; it must be one the root provides (`/prog`, `/data`).
    pub inside: PathBuf,
    /// Whether the program may write to it; read-only otherwise.
    pub writable: bool,
    /// With namespaces, a writable folder given to the run as a fresh tmpfs capped by this
    /// (in bytes, inodes and depth), holding a copy of `host`; after the run its tree replaces
    /// `host`'s contents, unless the run broke the cap ([`RunOutcome::over_cap`]). Without
    /// namespaces the folder is `host` itself, uncapped. See `capped.rs`.
    #[serde(default)]
    pub cap: Option<Cap>,
}

/// The caps of a capped writable [`Bind`]: the program's writes fail (ENOSPC) at the first
/// byte or inode over them, during the run.
#[derive(Copy, Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct Cap {
    /// Bytes of the tmpfs (file contents and folders, in pages).
    pub bytes: u64,
    /// Files, folders and links, the folder itself included.
    pub inodes: u64,
    /// Levels of folders below the top: a deeper tree is not copied back.
    pub depth: u32,
}

/// What to run. Paths are paths of the host; the program sees `/box` as its working folder.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct RunSpec {
    /// Program and arguments, as seen inside the sandbox (absolute program path).
    pub argv: Vec<String>,
    /// The environment of the program, whole: nothing of the keeper's own environment is passed.
    pub env: Vec<(String, String)>,
    /// Files copied into the (emptied) box before the run: (host source, name in the box).
    pub box_files: Vec<(PathBuf, String)>,
    /// Files copied out of the box after the run: (name in the box, host destination). A file
    /// the program did not create, or one over `limits.file_size`, is not copied (and the
    /// destination is removed): a collected file is never truncated.
    pub collect: Vec<(String, PathBuf)>,
    /// Host folders bound into the sandbox for this run.
    pub binds: Vec<Bind>,
    /// Host file given as standard input (`/dev/null` when absent). A regular file is given as
    /// a sealed private copy (the program can neither write it nor learn its path); anything
    /// else, such as a FIFO joining two runs of an interactive problem, is opened as it is.
    pub stdin: Option<PathBuf>,
    /// Host file that receives standard output (created or truncated).
    pub stdout: PathBuf,
    /// Host file that receives standard error; `None` sends it to the stdout file.
    pub stderr: Option<PathBuf>,
    /// CPU, wall, memory, process, file-size and output limits of the run.
    pub limits: Limits,
}

/// How the program ended.
#[derive(Copy, Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum Termination {
    /// It exited with this code.
    Exited(i32),
    /// A signal killed it (the signal's number).
    Signaled(i32),
}

/// Which limit made the supervisor stop the run.
#[derive(Copy, Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum LimitKind {
    /// CPU time: user + system of every process of the run.
    Cpu,
    /// Wall time, less the time the run waited for a CPU other work held (see [`WallKill`]).
    Wall,
    /// Memory: the run reached its memory limit.
    Memory,
    /// Output: stdout and stderr together reached the output limit.
    Output,
}

/// Durations as integer microseconds in JSON ("cpu_time_us": 1234), as isolate's meta file.
mod micros {
    use serde::{Deserialize, Deserializer, Serializer};
    use std::time::Duration;

    pub(super) fn serialize<S: Serializer>(d: &Duration, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u64(d.as_micros() as u64)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Duration, D::Error> {
        Ok(Duration::from_micros(u64::deserialize(d)?))
    }
}

/// The measured result of one run; the names follow isolate's meta file.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct RunOutcome {
    /// How the program ended.
    pub termination: Termination,
    /// CPU time, user + system, of every process of the run.
    #[serde(rename = "cpu_time_us", with = "micros")]
    pub cpu_time: Duration,
    /// Wall-clock time from the start of the run until it ended.
    #[serde(rename = "wall_time_us", with = "micros")]
    pub wall_time: Duration,
    /// Peak resident memory of the run, in bytes.
    pub peak_memory: u64,
    /// The limit that ended the run, if one did.
    pub killed_by: Option<LimitKind>,
    /// Bytes written to stdout and stderr (as counted by the supervisor).
    pub output_bytes: u64,
    /// A system call the seccomp filter refused, by name.
    pub forbidden_syscall: Option<String>,
    /// The program could not be started (exec failed): the reason.
    pub exec_error: Option<String>,
    /// False when the run had only rlimits (no namespaces or no cgroups).
    pub fully_isolated: bool,
    /// When the wall-time limit ended the run (with a cgroup): whether the time went to the
    /// program's own waiting or to the host's load. See [`WallKill`].
    #[serde(default)]
    pub wall_kill: Option<WallKill>,
    /// The time the run lost to the host: waiting for a CPU other work held and blocked in the
    /// kernel (what [`WallKill::host_wait`] measures, also for a run that ended by itself; zero
    /// for a run of a few milliseconds or without a cgroup). The wall-time limit counts
    /// `wall_time` less this: see [`RunOutcome::own_wall_time`].
    #[serde(rename = "host_wait_us", with = "micros", default)]
    pub host_wait: Duration,
    /// A capped writable bind ([`Bind::cap`]) the run filled to a cap, or left deeper than its
    /// depth: what it broke, as the end of a sentence about the folder ("reached its cap of
    /// …", "is more than 16 folders deep"; the first such bind's). Its tree was not copied back. What this means is the caller's: for package code (a
    /// validator's feedback folder) a fault of the package, never of a submission.
    #[serde(default)]
    pub over_cap: Option<String>,
}

/// How many times its wall-time limit a run may take when the time beyond the limit went
/// waiting for what other work on the host held (the wall-time limit counts the program's own
/// time only, see [`WallKill`]): past it the host is too loaded to judge the run
/// ([`WallCause::HostLoad`]). A partner that waits for the run (an interactor) needs as long.
///
/// Thirty: a run pinned to a CPU gets about one share of it among the runnable sessions there,
/// and a 2-core host at load 20 to 30 (a test suite beside builds and a noisy neighbour) gives
/// it a tenth or less, which a ceiling of ten turned into host faults. The ceiling only bounds
/// how long a starved run is waited for; a program that sleeps or spins reaches its own limit
/// first, whatever the ceiling.
pub const WALL_CEILING: u32 = 30;

/// What the keeper saw of a run that its wall-time limit ended.
///
/// The wall-time limit is there to stop a program that sleeps or is blocked (on input that never
/// comes, on a deadlock). A CPU-bound program on a loaded host reaches it too: pinned to a CPU
/// that other processes share, it gets a fraction of that CPU, and its wall time runs out while
/// its CPU time is far from the CPU limit. That wait is the host's, never the program's: the
/// keeper measures, from the run's start, how long the run's processes were ready to run but
/// waited while their CPUs served other work ([`WallKill::cpu_wait`]), and how long they were
/// blocked in the kernel on the host's disk or memory ([`WallKill::io_wait`]), and the wall-time
/// limit counts the wall time less both. A run it ends reached it on its own time
/// ([`WallCause::Program`]), or was still waiting at [`WALL_CEILING`] times the limit
/// ([`WallCause::HostLoad`]).
#[derive(Copy, Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
pub struct WallKill {
    /// The time the run's processes were runnable but waited for a CPU that other work held:
    /// the smaller of the kernel's run-queue delay of the run's tasks (`/proc/<tid>/schedstat`)
    /// and the time their CPUs spent on anything but the run and idling (`/proc/stat`), plus the
    /// run's share of the time the hypervisor took the CPUs (steal). Waiting behind the run's own
    /// threads is not counted: the CPU was busy with the run then.
    #[serde(rename = "cpu_wait_us", with = "micros")]
    pub cpu_wait: Duration,
    /// The wall time in which a process of the run was blocked in the kernel (state `D`: a
    /// page-in under memory pressure, writeback throttling on a busy disk), sampled at the
    /// keeper's wakes, at most the wall-time limit (a program can block itself there too, so it
    /// gains at most one limit by it).
    #[serde(rename = "io_wait_us", with = "micros", default)]
    pub io_wait: Duration,
    /// Whose time ran out.
    pub cause: WallCause,
}

impl WallKill {
    /// All the time the run lost to the host: [`WallKill::cpu_wait`] plus
    /// [`WallKill::io_wait`].
    pub fn host_wait(&self) -> Duration {
        self.cpu_wait + self.io_wait
    }
}

/// Whose time ran out when the wall-time limit ended a run.
#[derive(Copy, Clone, Debug, Serialize, Deserialize, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
pub enum WallCause {
    /// The program's: it slept, was blocked, or kept its own CPU busy (a time limit verdict).
    Program,
    /// The host's: the run reached [`WALL_CEILING`] times its wall-time limit waiting for what
    /// other work held, and without that wait it would have been well within its wall-time
    /// limit (wall time less the wait under 90% of the limit, and a wait of at least 10% of it).
    /// A host fault: judge the run again, on a quieter CPU or host.
    HostLoad,
}

impl WallCause {
    /// The keeper's rule (see [`WallCause::HostLoad`]): `waited` is the time the run lost to
    /// the host ([`WallKill::host_wait`]).
    pub fn of(wall_time: Duration, waited: Duration, wall_limit: Duration) -> WallCause {
        let own = wall_time.saturating_sub(waited);
        if waited >= wall_limit / 10 && own < wall_limit.mul_f64(0.9) {
            WallCause::HostLoad
        } else {
            WallCause::Program
        }
    }
}

impl RunOutcome {
    /// The wall-time limit ended the run because the host was loaded, not because of the
    /// program ([`WallCause::HostLoad`]): a host fault, never a time limit verdict.
    pub fn host_starved(&self) -> bool {
        self.killed_by == Some(LimitKind::Wall)
            && self
                .wall_kill
                .is_some_and(|w| w.cause == WallCause::HostLoad)
    }

    /// The wall time that was the program's own: [`RunOutcome::wall_time`] less the time it
    /// lost to the host ([`RunOutcome::host_wait`]), what the wall-time limit counts.
    pub fn own_wall_time(&self) -> Duration {
        self.wall_time.saturating_sub(self.host_wait)
    }

    /// Whether the program ran to an exit code of 0, with no limit hit and no exec failure.
    pub fn success(&self) -> bool {
        self.killed_by.is_none()
            && self.termination == Termination::Exited(0)
            && self.exec_error.is_none()
    }
}

/// The sandbox itself failed: never the fault of the program.
#[derive(Debug, thiserror::Error)]
pub enum SandboxError {
    /// The keeper program could not be started.
    #[error("failed to start the sandbox keeper {path}")]
    Spawn {
        /// The keeper's executable.
        path: PathBuf,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The keeper reported a failure of its own (it could not set up or clear a box); the message
    /// says which.
    #[error("sandbox keeper failed: {0}")]
    Keeper(String),
    /// The keeper's messages could not be read or written (a broken pipe, a garbled message).
    #[error("sandbox keeper protocol error")]
    Protocol(#[source] std::io::Error),
    /// The keeper exited in the middle of a run or a request.
    #[error("sandbox keeper exited unexpectedly")]
    KeeperGone,
    /// Full isolation is not available and `allow_insecure_sandbox` is off: untrusted code is
    /// not run.
    #[error("refusing to judge untrusted code without full isolation: {}; set allow_insecure_sandbox = true in [sandbox] to run with reduced isolation anyway", missing.join("; "))]
    Insecure {
        /// The pieces of isolation missing, each with its reason.
        missing: Vec<String>,
    },
}

/// A description of what isolation a keeper achieved, for `ojd doctor` and warnings.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Capabilities {
    /// The cgroup the keeper runs programs in and its controllers, as `ojd doctor` shows it; none:
    /// no cgroup (memory and processes limited by rlimits only).
    pub cgroup: Option<String>,
    /// Whether runs are in their own namespaces (mount, pid, network, IPC, UTS).
    pub namespaces: bool,
    /// Whether the seccomp filter is installed.
    pub seccomp: bool,
    /// Whether programs run under a uid of their own, not the keeper's.
    pub uid_drop: bool,
    /// What is missing and why, one line each, for warnings and `ojd doctor`.
    pub warnings: Vec<String>,
}

impl Capabilities {
    /// Whether every piece of isolation is there: a cgroup, namespaces, seccomp and the uid drop.
    pub fn full(&self) -> bool {
        self.cgroup.is_some() && self.namespaces && self.seccomp && self.uid_drop
    }

    /// The pieces of full isolation this keeper lacks, each with its reason where known.
    pub fn missing(&self) -> Vec<String> {
        let reason = |what: &str| {
            self.warnings
                .iter()
                .find(|w| w.starts_with(what))
                .cloned()
                .unwrap_or_else(|| format!("{what} unavailable"))
        };
        let mut m = Vec::new();
        if !self.uid_drop {
            m.push("not running as root (no uid drop, namespaces or cgroups)".to_string());
        } else {
            if let Some(w) = self
                .warnings
                .iter()
                .find(|w| w.starts_with("isolation disabled"))
            {
                m.push(format!("{w} (isolate = false)"));
            }
            if self.cgroup.is_none() && !m.iter().any(|w| w.contains("isolate = false")) {
                m.push(reason("cgroups"));
            }
            if !self.namespaces && !m.iter().any(|w| w.contains("isolate = false")) {
                m.push(reason("namespaces"));
            }
        }
        if !self.seccomp {
            m.push("no seccomp filter".to_string());
        }
        m
    }

    /// One line for `ojd doctor` and logs: which isolation this host gives programs.
    pub fn mode(&self) -> String {
        if self.full() {
            "full isolation (namespaces, cgroups, seccomp, uid drop)".to_string()
        } else {
            format!(
                "INSECURE reduced isolation (rlimits only; allowed by allow_insecure_sandbox): {}",
                self.missing().join("; ")
            )
        }
    }
}
