//! The keeper: the small single-threaded process that owns a cgroup and a prepared root, and
//! runs one program at a time for the judge (see the module documentation of `sandbox`).
//!
//! Here: the request loop and a run's path, from the request to the outcome. A run's supervision
//! (limits, kill, the time it lost to the host) is in `supervise`, the box's mounts and files in
//! `scratch`, the run's standard streams in `streams`. The root is built in `root.rs`; what runs
//! in the forked init and program is in `child.rs`.
//! The keeper is single-threaded, so after `clone`/`fork` a child may allocate and use std
//! freely; still, every string the children need is built before cloning (`Prepared`).

mod scratch;
mod streams;
mod supervise;

use scratch::{collect, fill_box};
use streams::{fifo_wait, StreamDir};

use std::fs;
use std::io::{BufRead, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::cgroup::Cgroup;
use super::child::{
    init_main, kill_and_reap_all, Filters, InitReport, Mode, Prepared, SETUP_STAGES,
};
use super::pidns::PidNs;
use super::progs::ProgStore;
use super::protocol::{KeeperConfig, Request, Response};
use super::root::{
    empty_dir, fresh_tmpfs, is_empty_dir, prepare_root, reserve_uid, Graveyard, Scratch,
    ScratchState,
};
use super::seccomp;
use super::starve::{cpu_wait, open_schedstat, start_delays, Sample, Watch};
use super::sys::{bind, cpath, cstr, errno, fork_with, os_err, own_cpu, pipe, raise_nofile};
use super::WALL_CEILING;
use super::{
    Capabilities, EarlierCache, LimitKind, RunOutcome, RunSpec, Termination, WallCause, WallKill,
};

/// The keeper's state between runs.
struct Keeper {
    config: KeeperConfig,
    /// Held for the keeper's life: no other keeper, of this or another ojd process, runs
    /// programs as this uid (hidepid=2 and RLIMIT_NPROC separate runs by uid).
    _uid_lock: Option<fs::File>,
    /// The box as the keeper sees it (inside its root, or a plain folder without namespaces).
    box_dir: PathBuf,
    tmp_dir: PathBuf,
    /// The state of `/box` and `/tmp` right after their tmpfs was mounted (with namespaces).
    scratch: [Option<ScratchState>; 2],
    /// `/box` and `/tmp` were mounted anew after the last run ended (`after_run`), and no
    /// process has run since: the next run needs no look at them.
    fresh: [bool; 2],
    /// The network namespace may hold a socket of an earlier run: `after_run` could not
    /// replace it, and the next run must before it starts.
    network_pending: bool,
    /// No process of the last run is left (false from a run's fork until its clean-up).
    all_reaped: bool,
    /// The next run's init, forked after the last outcome was sent (off the run's path), in the
    /// root, its deny list attached, waiting for its run (see [`Spare`]).
    spare: Option<Spare>,
    /// The last run's init, which reported (the run's processes all reaped) and is exiting: the
    /// outcome went out without waiting for its exit, and it is reaped before anything else
    /// happens (`reap_reported`).
    reported_init: Option<libc::pid_t>,
    /// Per-run binds of the last run: (inside, host, writable).
    binds: Vec<(PathBuf, PathBuf, bool)>,
    /// Per-run binds currently mounted: (inside, source, writable); the source of `/prog` is
    /// a copy in `progs` when there is one.
    mounted: Vec<(PathBuf, PathBuf, bool)>,
    /// Capped binds mounted for a run and not yet finished (a run that failed on its way): the
    /// next run unmounts them first.
    capped: Vec<PathBuf>,
    /// Copies of the folders bound read-only at `/prog` (with namespaces).
    progs: Option<ProgStore>,
    /// Where untouched `/box` and `/tmp` mounts are parked (with namespaces): see `Graveyard`.
    graveyard: Option<Graveyard>,
    cgroup: Option<Cgroup>,
    namespaces: bool,
    /// The keeper's pid namespace (with namespaces): every run's init is born in it.
    pidns: Option<PidNs>,
    /// Detached copies of the mounts of the folders the last runs' standard streams were in,
    /// most recent last; see `open_stream` and `stream_dir`.
    stream_dirs: Vec<StreamDir>,
    /// `/proc/self/net/unix` of the keeper's current network namespace, kept open.
    net_unix: Option<fs::File>,
    /// Running as root: programs drop to the keeper's uid even without namespaces.
    root: bool,
    /// The deny list reporting to a listener, and the same list killing outright (fallback).
    filters: Filters,
    ncpu: u32,
    /// The CPUs the keeper and its runs are pinned to (every CPU when not pinned).
    cpus: Vec<usize>,
    /// `/proc/stat`, kept open: read twice by a run that reaches its first wake (`starve`).
    proc_stat: Option<fs::File>,
    /// The pid namespace holder's `schedstat`, kept open: one of the tasks a run starts with
    /// in the keeper's cgroup (`starve::start_delays`).
    holder_stat: Option<(u32, fs::File)>,
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
            Ok(Request::Run(spec, cache)) => match keeper.run(&spec, cache) {
                Ok(outcome) => Response::Outcome(Box::new(outcome)),
                Err(e) => Response::Failed(e),
            },
            Err(e) => Response::Failed(format!("keeper: bad request: {e}")),
        };
        send(&response);
        // Off the run's path: the judge reads the outcome meanwhile.
        keeper.after_run();
    }
    if let Some(spare) = keeper.spare.take() {
        spare.discard();
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
        let mut pidns = None;
        let mut progs = None;
        if config.isolate && root {
            let name = format!("ojd-keeper-{}", std::process::id());
            match Cgroup::create_and_join(&name, config.cgroup_v2.clone()) {
                Ok(c) => {
                    caps.cgroup = Some(c.describe());
                    cgroup = Some(c);
                }
                Err(e) => caps.warnings.push(format!(
                    "cgroups unavailable ({e}): memory is limited by RLIMIT_AS and CPU time by RLIMIT_CPU only"
                )),
            }
            let neutral = |store: &ProgStore, name: &str| match name {
                "sys/kernel/random/boot_id" => {
                    store.neutral_file("boot_id", "00000000-0000-4000-8000-000000000000\n")
                }
                "loadavg" => store.neutral_file("loadavg", "0.00 0.00 0.00 1/1 1\n"),
                _ => Err(String::new()),
            };
            match prepare_root(&config).and_then(|store| {
                let ns = PidNs::start(&config.root_dir, &|name| neutral(&store, name).ok())?;
                Ok((store, ns))
            }) {
                Ok((store, ns)) => {
                    namespaces = true;
                    progs = Some(store);
                    pidns = Some(ns);
                }
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
        if !namespaces {
            // Without a pid namespace, what escapes a killed init comes back to the keeper,
            // which kills and reaps it after every run.
            // SAFETY: a prctl without pointers.
            unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1) };
            // Emptying a deep tree holds one descriptor per level.
            raise_nofile();
        }
        caps.uid_drop = root;
        caps.seccomp = true;
        let filters = Filters {
            notify: seccomp::build_filter(seccomp::DenyAction::Notify),
            kill: seccomp::build_filter(seccomp::DenyAction::Kill),
        };
        // Read after the cgroup (a cpuset) was joined: the CPUs runs get.
        let cpus = super::affinity::affinity(0)
            .ok()
            .filter(|c| !c.is_empty())
            .unwrap_or_else(|| (0..ncpu as usize).collect());
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
        // The root was just built with fresh `/box` and `/tmp`: their state is the pristine one.
        let scratch = match namespaces {
            true => [ScratchState::read(&box_dir), ScratchState::read(&tmp_dir)],
            false => [None; 2],
        };
        let holder_stat = pidns
            .as_ref()
            .and_then(|ns| u32::try_from(ns.pid()).ok())
            .and_then(|t| Some((t, open_schedstat(t)?)));
        (
            Keeper {
                config,
                _uid_lock: uid_lock,
                box_dir,
                tmp_dir,
                scratch,
                fresh: [false; 2],
                network_pending: false,
                all_reaped: true,
                spare: None,
                reported_init: None,
                binds: Vec::new(),
                mounted: Vec::new(),
                capped: Vec::new(),
                graveyard: progs.as_ref().map(Graveyard::new),
                progs,
                cgroup,
                namespaces,
                pidns,
                stream_dirs: Vec::new(),
                net_unix: None,
                root,
                filters,
                ncpu,
                cpus,
                proc_stat: fs::File::open("/proc/stat").ok(),
                holder_stat,
            },
            caps,
        )
    }

    fn run(&mut self, spec: &RunSpec, cache: EarlierCache) -> Result<RunOutcome, String> {
        self.reap_reported();
        self.clear_scratch()?;
        if self.network_pending {
            self.fresh_network()?;
            self.network_pending = false;
        }
        let owner = self.root.then_some((self.config.uid, self.config.gid));
        fill_box(&self.box_dir, &spec.box_files, owner)?;
        for stale in std::mem::take(&mut self.capped) {
            super::capped::unmount(&stale);
        }
        self.update_binds(spec)?;
        let capped = self.mount_capped(spec)?;
        self.capped = capped.iter().map(|c| c.0.clone()).collect();
        let mode = self.mode();
        let mut streams = Vec::new();
        let wait = fifo_wait(&spec.limits);
        for (path, write) in [
            (spec.stdin.as_deref(), false),
            (Some(spec.stdout.as_path()), true),
            (spec.stderr.as_deref(), true),
        ] {
            streams.push(path.map(|p| self.open_stream(p, write, wait)).transpose()?);
        }
        let prepared = Prepared::new(
            spec,
            &self.config,
            mode,
            &self.box_dir,
            &self.binds,
            streams,
        )?;
        let limits = &spec.limits;
        let baseline = match &mut self.cgroup {
            Some(c) => {
                let kept = self.progs.as_ref().map_or(0, ProgStore::bytes);
                Some(c.prepare(limits.memory, limits.processes, kept, cache)?)
            }
            None => None,
        };
        // With namespaces, init is born in the keeper's pid namespace (see `pidns`): no
        // namespace and no `/proc` mount per run. Network namespaces are not made per run
        // either (creating and tearing one down costs about 5 ms here); see `fresh_network`.
        let spare = match self.spare.take() {
            Some(s) => s,
            None => self.fork_init()?,
        };
        // The run-queue delays of the tasks the run starts with (init and the holder: every
        // other is forked after the start and starts at zero), read before init is told to go:
        // init waits for the message, so its delay does not change until then, and what it
        // waits for a CPU after it counts (see `starve`).
        let at_start = baseline.as_ref().map(|_| {
            let init = u32::try_from(spare.pid).ok().zip(spare.schedstat.as_ref());
            let holder = self.holder_stat.as_ref().map(|(t, f)| (*t, f));
            start_delays(init.into_iter().chain(holder))
        });
        let keeper_before = own_cpu();
        self.all_reaped = false;
        let start = Instant::now();
        if let Err(e) = prepared.send(&spare.go) {
            spare.discard();
            self.all_reaped = true;
            return Err(e);
        }
        let (pid, report_r) = (spare.pid, spare.report);
        drop(spare.go);
        let (killed_by, wall_kill, host_wait) = self.supervise(
            pid,
            report_r.as_raw_fd(),
            &prepared,
            baseline.as_ref().zip(at_start),
            start,
            keeper_before,
        );
        // Init reports once the program and everything it left are reaped, and then only exits.
        // With namespaces, a report read here ends the run: init is reaped after the outcome is
        // sent (`reap_reported`), so its exit (the teardown of its copy of the keeper) is off the
        // run's path. A killed init (a limit) reports nothing that is read before its reaping.
        let mut report = killed_by
            .is_none()
            .then(|| InitReport::read(&report_r))
            .flatten();
        let reported = self.namespaces && report.is_some_and(|r| r.setup_errno == 0);
        // Not a clean exit until wait4 (or init's report) says so.
        let mut status = -1;
        // SAFETY: rusage is plain data the kernel fills.
        let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
        if reported {
            self.reported_init = Some(pid);
        } else {
            loop {
                // SAFETY: waits for our own child; pointers are to locals.
                let r = unsafe { libc::wait4(pid, &mut status, libc::__WALL, &mut usage) };
                if r == pid || (r < 0 && errno() != libc::EINTR) {
                    break;
                }
            }
        }
        let wall_time = start.elapsed();
        // Init that reported or exited by itself killed and reaped everything the run left. One
        // that was killed (a limit) left the run's processes to the holder, which kills and
        // reaps them before anything of the run is read or the next run starts.
        let init_clean = reported || libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0;
        if let (Some(ns), false) = (&self.pidns, init_clean) {
            ns.clean()?;
        }
        if !self.namespaces {
            // SAFETY: init was reaped; the keeper is a subreaper in this mode.
            unsafe { kill_and_reap_all(&prepared) };
        }
        self.all_reaped = true;
        let cg = match (&mut self.cgroup, &baseline) {
            (Some(c), Some(b)) => Some(c.finish(b)),
            _ => None,
        };
        let tv = |t: libc::timeval| {
            Duration::from_micros(t.tv_sec as u64 * 1_000_000 + t.tv_usec as u64)
        };
        if report.is_none() {
            report = InitReport::read(&report_r);
        }
        // wait4's rusage misses processes the kernel reaped itself when init was killed (it
        // sets SIGCHLD to SIG_IGN while tearing the namespace down), so the cgroup's counter,
        // which sees every process, is taken when it is larger.
        let cg_cpu = match (&mut self.cgroup, &baseline) {
            (Some(c), Some(b)) => c.cpu_since(b),
            _ => None,
        };
        // What init reaped: from its report when it reported (init's own setup is not the run's),
        // else from the wait4 of init.
        let (rusage_cpu, rss) = match report.filter(|_| reported) {
            Some(r) => (
                Duration::from_micros(r.children_cpu_us.max(0) as u64),
                r.children_maxrss_kb.max(0) as u64 * 1024,
            ),
            None => (
                tv(usage.ru_utime) + tv(usage.ru_stime),
                usage.ru_maxrss.max(0) as u64 * 1024,
            ),
        };
        // Init's count holds what it reaped (init kills and reaps everything the program left), but
        // not a child the kernel reaped itself because its parent ignored SIGCHLD: that CPU time
        // is only in the cgroup's counter. The counter also holds the keeper's own polling
        // during the run, which the keeper measures on itself and takes off.
        let keeper_spent = own_cpu().saturating_sub(keeper_before);
        let cg_run = cg_cpu.map(|c| c.saturating_sub(keeper_spent));
        let cpu_time = rusage_cpu.max(cg_run.unwrap_or_default());
        let (output_bytes, allocated) = prepared.output_bytes();
        let mut killed_by = killed_by;
        if killed_by.is_none() && over_allocated(allocated, limits.output) {
            killed_by = Some(LimitKind::Output);
        }
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
        // The cgroup's peak less the baseline counts every process, page cache and kernel memory
        // of the run; the largest process's own peak resident size is a floor under it (the
        // baseline can shrink during a run when the kernel frees earlier runs' memory late).
        let peak_memory = cg.and_then(|u| u.peak_memory).unwrap_or(0).max(rss);
        // The same bound as RLIMIT_FSIZE: no file the program could write is ever cut short.
        let file_limit = limits.file_size.max(limits.output + 1);
        collect(&self.box_dir, &spec.collect, file_limit)?;
        let mut over_cap = None;
        for (target, host, cap) in &capped {
            if let Some(why) = super::capped::finish_capped(target, host, cap)? {
                over_cap.get_or_insert(why);
            }
        }
        self.capped.clear();
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
            wall_kill: wall_kill.filter(|_| killed_by == Some(LimitKind::Wall)),
            host_wait,
            over_cap,
        })
    }

    /// After the outcome was sent: every run's `/box` and `/tmp` are mounted anew, used or not,
    /// so that not even when they were last replaced (their timestamps) tells a run what the
    /// one before it did. A failure here is found again, and reported, by the next run's
    /// `clear_scratch`.
    ///
    /// A folder the run left exactly as mounted holds nothing to free: its mount is parked in the
    /// graveyard (no unmount, whose grace period the next run would wait for) and the fresh one
    /// mounted in its place. A used one is unmounted at once.
    fn after_run(&mut self) {
        self.reap_reported();
        if let Some(c) = &mut self.cgroup {
            c.tidy();
        }
        if !self.namespaces {
            return;
        }
        // Off the run's path too: a socket the run left is found (and its namespace replaced)
        // before the next run starts; a failure is retried, and reported, by that run.
        self.network_pending = self.fresh_network().is_err();
        for (i, which) in [Scratch::Box, Scratch::Tmp].into_iter().enumerate() {
            let dir = [&self.box_dir, &self.tmp_dir][i];
            let untouched = self.scratch[i].is_some()
                && ScratchState::read(dir) == self.scratch[i]
                && is_empty_dir(dir);
            let mut parked = false;
            if untouched {
                if let Some(g) = &mut self.graveyard {
                    parked = g.park(dir).is_ok();
                    if parked {
                        self.scratch[i] = None;
                    }
                }
            }
            // Only with every process of the run gone can nothing write to the new mount.
            self.fresh[i] = self.remount(i, which, !parked).is_ok() && self.all_reaped;
        }
        self.fork_spare();
    }

    /// Reaps the last run's init, which reported and is exiting (see `reported_init`).
    fn reap_reported(&mut self) {
        if let Some(pid) = self.reported_init.take() {
            let mut status = 0;
            // SAFETY: waits for our own child; the status pointer is to a local.
            while unsafe { libc::wait4(pid, &mut status, libc::__WALL, std::ptr::null_mut()) } < 0
                && errno() == libc::EINTR
            {}
        }
    }

    /// Forks the next run's init now, while the judge reads the outcome: its fork, chroot and
    /// deny list (about a fifth of a millisecond) are then off the next run's path. Not after a
    /// run whose processes may be left, nor when the network namespace is still to be replaced
    /// (init would stay in the old one). A failure leaves it to the next run, which forks its
    /// init itself and reports what fails.
    fn fork_spare(&mut self) {
        if self.spare.is_none() && self.all_reaped && !self.network_pending {
            self.spare = self.fork_init().ok();
        }
    }

    /// Forks a run's init: into the next run's own cgroup under v2 (`run_cgroup.rs`), in the
    /// keeper's under v1, in the keeper's pid namespace with namespaces (see `pidns`).
    fn fork_init(&mut self) -> Result<Spare, String> {
        let (report_r, report_w) = pipe()?;
        let (go_keeper, go_init) = seqpacket_pair()?;
        let root = cpath(&self.config.root_dir);
        let mode = self.mode();
        // SAFETY: the keeper is single-threaded, so the child owns a consistent copy of the
        // whole address space.
        let pid = unsafe {
            match &self.cgroup {
                Some(c) => c.fork_run()?,
                None => fork_with(0, "clone")?,
            }
        };
        if pid == 0 {
            drop(report_r);
            drop(go_keeper);
            init_main(&root, mode, &self.filters, go_init, report_w);
        }
        Ok(Spare {
            pid,
            go: go_keeper,
            report: report_r,
            schedstat: u32::try_from(pid).ok().and_then(open_schedstat),
        })
    }

    /// How much isolation this keeper's runs get.
    fn mode(&self) -> Mode {
        Mode {
            namespaces: self.namespaces,
            drop_uid: self.root,
            rlimit_memory: self.cgroup.is_none(),
        }
    }
}

/// A run's init forked before its run: it waits on `go` for the run ([`Prepared::send`]).
struct Spare {
    pid: libc::pid_t,
    go: OwnedFd,
    /// The read end of init's report pipe.
    report: OwnedFd,
    /// Init's `/proc/<pid>/schedstat`, opened off the run's path (`starve::start_delays`).
    schedstat: Option<fs::File>,
}

impl Spare {
    /// Ends an init that got no run, and reaps it.
    fn discard(self) {
        // SAFETY: kills and waits for our own child; the status pointer is to a local.
        unsafe {
            libc::kill(self.pid, libc::SIGKILL);
            let mut status = 0;
            while libc::waitpid(self.pid, &mut status, libc::__WALL) < 0 && errno() == libc::EINTR {
            }
        }
    }
}

/// A connected pair of `SOCK_SEQPACKET` sockets (close-on-exec): one message per run.
fn seqpacket_pair() -> Result<(OwnedFd, OwnedFd), String> {
    let mut fds = [0; 2];
    let kind = libc::SOCK_SEQPACKET | libc::SOCK_CLOEXEC;
    // SAFETY: fds is a two-element array as socketpair requires.
    if unsafe { libc::socketpair(libc::AF_UNIX, kind, 0, fds.as_mut_ptr()) } != 0 {
        return Err(os_err("socketpair"));
    }
    // SAFETY: both descriptors were just created and are owned by nobody else.
    Ok(unsafe { (OwnedFd::from_raw_fd(fds[0]), OwnedFd::from_raw_fd(fds[1])) })
}

/// Whether the outputs (bytes written, bytes allocated) are over the output limit.
fn output_over((size, allocated): (u64, u64), limit: u64) -> bool {
    size > limit || over_allocated(allocated, limit)
}

/// Whether the disk blocks allocated for the outputs exceed what the output limit allows. File
/// systems preallocate a little past the end of a growing file (XFS much more), so the bound is
/// twice the limit plus 1 MiB: what matters is that the cost to the host is bounded.
fn over_allocated(allocated: u64, limit: u64) -> bool {
    allocated > limit.saturating_mul(2).saturating_add(1 << 20)
}

fn decode_status(status: i32) -> Termination {
    if libc::WIFSIGNALED(status) {
        Termination::Signaled(libc::WTERMSIG(status))
    } else {
        Termination::Exited(libc::WEXITSTATUS(status))
    }
}
