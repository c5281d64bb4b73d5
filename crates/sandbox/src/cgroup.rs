//! The keeper's own cgroup: created once, joined once, reset and read around every run.
//!
//! Two hierarchies are supported. Under cgroup v1 (this project's build machines) the memory,
//! pids and cpuacct controllers are separate mounts under `/sys/fs/cgroup/<controller>`; under v2
//! one folder holds `memory.max`, `memory.peak`, `memory.events`, `pids.max` and `cpu.stat`.
//! Folders are created below the keeper's current cgroup of each controller, so ojd nests inside
//! a container or a delegated systemd unit.
//!
//! Why counters are reset rather than cgroups recreated: attaching a process to an idle v1 cgroup
//! takes 8–20 ms (an RCU grace period), while a process forked inside one joins it for free. The
//! peak is reset per run (`memory.max_usage_in_bytes` / `memory.peak`), the OOM counter and CPU
//! counter are differenced, and the memory limit is set to the run's limit plus the baseline the
//! keeper itself holds, so stale page cache and earlier OOMs never leak into a later verdict.
//!
//! CPUs: where the cpuset controller exists (v1 mount or v2 controller), the keeper's cgroup is
//! also a cpuset of the CPUs the keeper was pinned to (`affinity.rs`), so a program that calls
//! `sched_setaffinity` for every CPU still runs on its keeper's CPU only and cannot disturb the
//! timings of a keeper on another CPU. Without the controller pinning stays advisory (the
//! keeper's warnings and `ojd doctor` say so).

use std::fs::{self, File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::run_cgroup::RunCgroups;
use super::EarlierCache;

const ROOT: &str = "/sys/fs/cgroup";
/// Baseline usage above which the cgroup is reclaimed before a run.
const RECLAIM_ABOVE: u64 = 8 << 20;

/// The keeper's cgroup(s).
pub(super) struct Cgroup {
    kind: Kind,
    /// The CPUs of its cpuset, when it has one.
    cpus: Option<Vec<usize>>,
    /// Values last written to each control file: a run that needs the same limits as the one
    /// before costs no write at all.
    written: std::collections::HashMap<PathBuf, String>,
}

enum Kind {
    V1 {
        memory: PathBuf,
        pids: Option<PathBuf>,
        cpuacct: Option<PathBuf>,
        usage: File,
        cpu: Option<File>,
        oom_control: File,
        max_usage: File,
        /// `memory.memsw.limit_in_bytes`, where swap accounting exists.
        memsw: Option<PathBuf>,
        /// Its folder in the cpuset hierarchy, when mounted.
        cpuset: Option<PathBuf>,
    },
    V2 {
        /// The keeper's cgroup: the keeper in its leaf `keeper`, each run in a cgroup of its
        /// own beside it (`run_cgroup.rs`).
        dir: PathBuf,
        leaf: PathBuf,
        /// `cpu.stat` of the keeper's cgroup: the keeper's and its runs' CPU, as on v1.
        cpu: File,
        runs: RunCgroups,
    },
}

/// Counter values read before a run.
pub(super) struct Baseline {
    memory: u64,
    oom_kills: u64,
    cpu: Option<Duration>,
}

/// What the cgroup saw during a run.
pub(super) struct Usage {
    pub peak_memory: Option<u64>,
    pub oom_killed: bool,
}

fn write(path: &Path, value: &str) -> Result<(), String> {
    let mut f = OpenOptions::new()
        .write(true)
        .open(path)
        .map_err(|e| format!("failed to open {}: {e}", path.display()))?;
    f.write_all(value.as_bytes())
        .map_err(|e| format!("failed to write {value:?} to {}: {e}", path.display()))
}

/// Reads a control file from its start: one `pread` for the short files the keeper reads around
/// every run (a seek and a read loop would cost five system calls each).
fn read_to_string(f: &mut File) -> Option<String> {
    use std::os::unix::fs::FileExt;
    let mut buf = [0u8; 1024];
    let n = f.read_at(&mut buf, 0).ok()?;
    if n < buf.len() {
        return String::from_utf8(buf[..n].to_vec()).ok();
    }
    let mut s = String::new();
    f.seek(SeekFrom::Start(0)).ok()?;
    f.read_to_string(&mut s).ok()?;
    Some(s)
}

fn read_u64(f: &mut File) -> Option<u64> {
    read_to_string(f)?.trim().parse().ok()
}

fn keyed(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let (k, v) = l.split_once(' ')?;
        (k == key).then(|| v.trim().parse().ok()).flatten()
    })
}

/// The current cgroup path of `controller` ("" for the v2 unified hierarchy).
fn current_path(controller: &str) -> String {
    let text = fs::read_to_string("/proc/self/cgroup").unwrap_or_default();
    for line in text.lines() {
        let mut parts = line.splitn(3, ':');
        let (_, ctrls, path) = match (parts.next(), parts.next(), parts.next()) {
            (Some(a), Some(b), Some(c)) => (a, b, c),
            _ => continue,
        };
        if ctrls.split(',').any(|c| c == controller) {
            return path.to_string();
        }
    }
    "/".to_string()
}

/// Removes cgroup folders named `ojd-keeper-<pid>` whose keeper is no longer alive.
fn sweep_stale(parent: &Path) {
    let Ok(entries) = fs::read_dir(parent) else {
        return;
    };
    for e in entries.flatten() {
        let name = e.file_name();
        let Some(pid) = name.to_str().and_then(|n| n.strip_prefix("ojd-keeper-")) else {
            continue;
        };
        if !Path::new("/proc").join(pid).exists() {
            let _ = remove_tree(&e.path());
        }
    }
}

/// Removes a cgroup and the cgroups below it, deepest first (rmdir alone removes a cgroup's
/// folder: its files are the kernel's).
pub(super) fn remove_tree(dir: &Path) -> std::io::Result<()> {
    if let Ok(entries) = fs::read_dir(dir) {
        for e in entries.flatten() {
            if e.file_type().is_ok_and(|t| t.is_dir()) {
                let _ = remove_tree(&e.path());
            }
        }
    }
    fs::remove_dir(dir)
}

/// Makes `dir` a cpuset of the CPUs this process runs on now (its keeper's pin), with the
/// memory nodes `mems` (v1 needs them set before a task joins); returns the CPUs.
fn pin_cpuset(dir: &Path, mems: Option<&str>) -> Result<Vec<usize>, String> {
    let cpus = super::affinity::affinity(0).map_err(|e| format!("sched_getaffinity: {e}"))?;
    let list: Vec<String> = cpus.iter().map(usize::to_string).collect();
    write(&dir.join("cpuset.cpus"), &list.join(","))?;
    if let Some(mems) = mems {
        write(&dir.join("cpuset.mems"), mems)?;
    }
    Ok(cpus)
}

fn make_dir(parent: PathBuf, name: &str) -> Result<PathBuf, String> {
    sweep_stale(&parent);
    let dir = parent.join(name);
    match fs::create_dir(&dir) {
        Ok(()) => Ok(dir),
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(dir),
        Err(e) => Err(format!("failed to create cgroup {}: {e}", dir.display())),
    }
}

impl Cgroup {
    /// Creates the keeper's cgroup and moves the calling process into it.
    pub(super) fn create_and_join(
        name: &str,
        v2: Option<Result<PathBuf, String>>,
    ) -> Result<Cgroup, String> {
        let pid = std::process::id().to_string();
        if Path::new(ROOT).join("cgroup.controllers").exists() {
            // The delegated subtree the judging process prepared (`delegate.rs`): the keeper's
            // cgroup goes beside that process's leaf, never below a cgroup with processes.
            let base = match v2 {
                Some(Ok(base)) => base,
                Some(Err(e)) => return Err(e),
                None => {
                    return Err(format!(
                        "cgroup v2 at {ROOT}, but no delegated subtree was prepared for this keeper"
                    ))
                }
            };
            let dir = make_dir(base, name)?;
            let controllers = fs::read_to_string(dir.join("cgroup.controllers"))
                .map_err(|e| format!("failed to read {}/cgroup.controllers: {e}", dir.display()))?;
            let have = |c: &str| controllers.split_whitespace().any(|h| h == c);
            if let Some(need) = super::delegate::NEEDED.iter().find(|c| !have(c)) {
                return Err(format!(
                    "the keeper's cgroup {} lacks the {need} controller",
                    dir.display()
                ));
            }
            let cpus = have("cpuset")
                .then(|| pin_cpuset(&dir, None).ok())
                .flatten();
            // The keeper (and the holder of its pid namespace, forked later) in a leaf: the
            // keeper's cgroup, empty, can then give the controllers to the runs' cgroups.
            let leaf = dir.join("keeper");
            match fs::create_dir(&leaf) {
                Ok(()) => {}
                Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {}
                Err(e) => return Err(format!("failed to create cgroup {}: {e}", leaf.display())),
            }
            write(&leaf.join("cgroup.procs"), &pid)?;
            // All in one write: cpuset is never enabled alone.
            let mut enable = String::from("+memory +pids +cpu");
            if have("cpuset") {
                enable.push_str(" +cpuset");
            }
            write(&dir.join("cgroup.subtree_control"), &enable)?;
            let cpu = File::open(dir.join("cpu.stat")).map_err(|e| format!("cpu.stat: {e}"))?;
            let runs = RunCgroups::new(dir.clone())?;
            let mut cgroup = Cgroup::new(Kind::V2 {
                dir,
                leaf,
                cpu,
                runs,
            });
            cgroup.cpus = cpus;
            return Ok(cgroup);
        }
        let mount = |c: &str| {
            let m = Path::new(ROOT).join(c);
            m.join("tasks")
                .exists()
                .then(|| m.join(current_path(c).trim_start_matches('/')))
        };
        let memory_parent = mount("memory").ok_or("no memory cgroup controller is mounted")?;
        let memory = make_dir(memory_parent, name)?;
        write(&memory.join("tasks"), &pid)?;
        let pids = match mount("pids") {
            Some(p) => {
                let d = make_dir(p, name)?;
                write(&d.join("tasks"), &pid)?;
                Some(d)
            }
            None => None,
        };
        let cpuacct = match mount("cpuacct") {
            Some(p) => {
                let d = make_dir(p, name)?;
                write(&d.join("tasks"), &pid)?;
                Some(d)
            }
            None => None,
        };
        let cpuset = mount("cpuset").and_then(|parent| {
            let mems = fs::read_to_string(parent.join("cpuset.mems")).ok()?;
            let d = make_dir(parent, name).ok()?;
            let cpus = pin_cpuset(&d, Some(mems.trim())).ok()?;
            write(&d.join("tasks"), &pid).ok()?;
            Some((d, cpus))
        });
        let usage = File::open(memory.join("memory.usage_in_bytes"))
            .map_err(|e| format!("memory.usage_in_bytes: {e}"))?;
        let cpu = cpuacct
            .as_ref()
            .and_then(|d| File::open(d.join("cpuacct.usage")).ok());
        let open = |name: &str| File::open(memory.join(name)).map_err(|e| format!("{name}: {e}"));
        // Read and reset around every run: kept open for both (one `pwrite` resets it).
        let max_usage = OpenOptions::new()
            .read(true)
            .write(true)
            .open(memory.join("memory.max_usage_in_bytes"))
            .map_err(|e| format!("memory.max_usage_in_bytes: {e}"))?;
        let oom_control = open("memory.oom_control")?;
        let memsw = Some(memory.join("memory.memsw.limit_in_bytes")).filter(|p| p.exists());
        let (cpuset, cpus) = cpuset.map_or((None, None), |(d, c)| (Some(d), Some(c)));
        let mut cgroup = Cgroup::new(Kind::V1 {
            memory,
            pids,
            cpuacct,
            usage,
            cpu,
            oom_control,
            max_usage,
            memsw,
            cpuset,
        });
        cgroup.cpus = cpus;
        Ok(cgroup)
    }

    fn new(kind: Kind) -> Cgroup {
        Cgroup {
            kind,
            cpus: None,
            written: Default::default(),
        }
    }

    /// Writes `value` unless the file already holds it from our last write.
    fn set(
        written: &mut std::collections::HashMap<PathBuf, String>,
        path: PathBuf,
        value: &str,
    ) -> Result<(), String> {
        if written.get(&path).is_some_and(|v| v == value) {
            return Ok(());
        }
        let r = write(&path, value);
        match r {
            Ok(()) => written.insert(path, value.to_string()),
            Err(_) => written.remove(&path),
        };
        r
    }

    pub(super) fn describe(&self) -> String {
        let cpuset = match &self.cpus {
            Some(cpus) => format!(
                ", cpuset {}",
                cpus.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(",")
            ),
            None => String::new(),
        };
        match &self.kind {
            Kind::V1 { pids, cpuacct, .. } => format!(
                "v1 (memory{}{}{cpuset})",
                if pids.is_some() { ", pids" } else { "" },
                if cpuacct.is_some() { ", cpuacct" } else { "" }
            ),
            Kind::V2 { runs, .. } => format!(
                "v2 (memory, pids, cpu{cpuset}; a cgroup per run{})",
                match runs.ready().map(|r| r.peak.is_some()) {
                    Some(false) => ", no memory.peak: the peak is the largest process's",
                    _ => "",
                }
            ),
        }
    }

    /// Folders to remove once the keeper has exited.
    pub(super) fn dirs(&self) -> Vec<PathBuf> {
        match &self.kind {
            Kind::V1 {
                memory,
                pids,
                cpuacct,
                cpuset,
                ..
            } => {
                let mut v = vec![memory.clone()];
                v.extend(pids.iter().cloned());
                v.extend(cpuacct.iter().cloned());
                v.extend(cpuset.iter().cloned());
                v
            }
            Kind::V2 { dir, .. } => vec![dir.clone()],
        }
    }

    /// The thread ids in the cgroup now (the keeper's included).
    pub(super) fn tasks(&self) -> Vec<u32> {
        let files = match &self.kind {
            Kind::V1 { memory, .. } => vec![memory.join("tasks")],
            Kind::V2 { leaf, runs, .. } => {
                let mut v = vec![leaf.join("cgroup.threads")];
                v.extend(runs.ready().map(|r| r.path().join("cgroup.threads")));
                v
            }
        };
        files
            .iter()
            .flat_map(|f| {
                fs::read_to_string(f)
                    .unwrap_or_default()
                    .split_whitespace()
                    .filter_map(|t| t.parse().ok())
                    .collect::<Vec<u32>>()
            })
            .collect()
    }

    /// Forks the run's init: into the run's own cgroup under v2, in the keeper's under v1.
    ///
    /// # Safety
    /// The caller must be single-threaded (see `sys::fork_with`).
    pub(super) unsafe fn fork_run(&self) -> Result<libc::pid_t, String> {
        match &self.kind {
            // SAFETY: the caller's contract.
            Kind::V1 { .. } => unsafe { super::sys::fork_with(0, "clone") },
            Kind::V2 { runs, .. } => match runs.ready() {
                // SAFETY: the caller's contract.
                Some(r) => unsafe { r.fork() },
                None => Err("no cgroup was made for the run".into()),
            },
        }
    }

    /// Off the run's path: the finished run's cgroup goes, the next one is made.
    pub(super) fn tidy(&mut self) {
        if let Kind::V2 { runs, .. } = &mut self.kind {
            runs.tidy();
        }
    }

    /// CPU time consumed by the cgroup so far (keeper included; callers difference it).
    pub(super) fn cpu_usage(&mut self) -> Option<Duration> {
        match &mut self.kind {
            Kind::V1 { cpu, .. } => cpu.as_mut().and_then(read_u64).map(Duration::from_nanos),
            Kind::V2 { cpu, .. } => {
                keyed(&read_to_string(cpu)?, "usage_usec").map(Duration::from_micros)
            }
        }
    }

    fn oom_kills(&mut self) -> u64 {
        let text = match &mut self.kind {
            Kind::V1 { oom_control, .. } => read_to_string(oom_control),
            Kind::V2 { runs, .. } => runs
                .ready()
                .and_then(|r| fs::read_to_string(r.path().join("memory.events")).ok()),
        };
        text.and_then(|t| keyed(&t, "oom_kill")).unwrap_or(0)
    }

    /// Sets the run's limits and resets the peak; returns the counters to difference against.
    /// `kept` is memory of the keeper that reclaim cannot free (its copies of programs in
    /// tmpfs): the baseline is reclaimed only when it exceeds that by [`RECLAIM_ABOVE`], or,
    /// for a run that keeps the earlier page cache ([`EarlierCache::Keep`]), by half the
    /// memory limit; a kept cache counts inside the limit.
    pub(super) fn prepare(
        &mut self,
        memory_limit: u64,
        processes: u32,
        kept: u64,
        cache: EarlierCache,
    ) -> Result<Baseline, String> {
        let reclaim_above = kept
            + match cache {
                EarlierCache::Reclaim => RECLAIM_ABOVE,
                EarlierCache::Keep => RECLAIM_ABOVE.max(memory_limit / 2),
            };
        // The part of the baseline added to the run's limit: all of it after a reclaim (what
        // is left cannot be freed), but of a kept cache nothing: it stays inside the limit, and
        // the kernel reclaims it first when the run needs the room. (Added to the limit, a
        // compile that filled its memory made the kernel evict and read back the compiler's
        // own files for many seconds before the OOM kill.)
        let counted = |base: u64| match cache {
            EarlierCache::Reclaim => base,
            EarlierCache::Keep => base.min(RECLAIM_ABOVE + kept),
        };
        let oom_kills = self.oom_kills();
        let cpu = self.cpu_usage();
        // The keeper, the holder of its pid namespace and init count as tasks of the pids
        // controller.
        let pids_max = (processes + 3).to_string();
        let written = &mut self.written;
        let memory = match &mut self.kind {
            Kind::V1 {
                memory,
                pids,
                usage,
                memsw,
                max_usage,
                ..
            } => {
                let mut base = read_u64(usage).unwrap_or(0);
                if base > reclaim_above {
                    // Page cache of earlier runs (a compiler reads hundreds of MiB) would widen
                    // the next run's limit; reclaim it. Only the keeper's own pages remain.
                    let _ = write(&memory.join("memory.force_empty"), "0");
                    base = read_u64(usage).unwrap_or(0);
                }
                let limit = (memory_limit + round_up(counted(base))).to_string();
                let mem_limit = memory.join("memory.limit_in_bytes");
                // memsw must stay >= the memory limit: order the two writes accordingly.
                if Cgroup::set(written, mem_limit.clone(), &limit).is_err() {
                    if let Some(sw) = memsw {
                        Cgroup::set(written, sw.clone(), &limit)?;
                    }
                    Cgroup::set(written, mem_limit, &limit)?;
                } else if let Some(sw) = memsw {
                    Cgroup::set(written, sw.clone(), &limit)?;
                }
                {
                    use std::os::unix::fs::FileExt;
                    max_usage.write_at(b"0", 0).map_err(|e| {
                        format!(
                            "failed to reset {}/memory.max_usage_in_bytes: {e}",
                            memory.display()
                        )
                    })?;
                }
                if let Some(p) = pids {
                    Cgroup::set(written, p.join("pids.max"), &pids_max)?;
                }
                base
            }
            Kind::V2 { dir, runs, .. } => {
                let current = |dir: &Path| -> u64 {
                    fs::read_to_string(dir.join("memory.current"))
                        .ok()
                        .and_then(|s| s.trim().parse().ok())
                        .unwrap_or(0)
                };
                // What earlier runs left charged below the keeper's cgroup (their cgroups are
                // gone, their page cache stays): reclaimed as on v1, so that a test's run reads
                // its files in again and pays for them as it would there.
                let base = current(dir);
                if base > reclaim_above {
                    let _ = write(&dir.join("memory.reclaim"), &base.to_string());
                }
                // The run's own cgroup holds nothing yet: its limit is the run's, exactly.
                let run = runs.current()?;
                write(&run.path().join("memory.max"), &memory_limit.to_string())?;
                let _ = write(&run.path().join("memory.swap.max"), "0");
                // Init and the program's processes; the keeper and the holder are not in it.
                write(&run.path().join("pids.max"), &(processes + 1).to_string())?;
                0
            }
        };
        Ok(Baseline {
            memory,
            oom_kills,
            cpu,
        })
    }

    pub(super) fn cpu_since(&mut self, base: &Baseline) -> Option<Duration> {
        Some(self.cpu_usage()?.saturating_sub(base.cpu?))
    }

    /// Reads the peak and the OOM flag of the run that just ended.
    pub(super) fn finish(&mut self, base: &Baseline) -> Usage {
        let oom_killed = self.oom_kills() > base.oom_kills;
        let peak = match &mut self.kind {
            Kind::V1 { max_usage, .. } => read_u64(max_usage),
            Kind::V2 { runs, .. } => {
                let peak = runs
                    .current()
                    .ok()
                    .and_then(|r| r.peak.as_mut())
                    .and_then(read_u64);
                runs.retire();
                peak
            }
        };
        Usage {
            peak_memory: peak.map(|p| p.saturating_sub(base.memory)),
            oom_killed,
        }
    }
}

/// The keeper's baseline rounded up to 1 MiB for the limit, so that the limit written stays the
/// same from run to run (and is not rewritten) while the keeper's few pages drift. The peak
/// is still measured against the exact baseline.
fn round_up(base: u64) -> u64 {
    base.div_ceil(1 << 20) << 20
}

#[cfg(test)]
mod tests {
    use super::keyed;

    #[test]
    fn keyed_values() {
        let text = "oom_kill_disable 0\nunder_oom 0\noom_kill 3\n";
        assert_eq!(keyed(text, "oom_kill"), Some(3));
        assert_eq!(keyed(text, "under_oom"), Some(0));
        assert_eq!(keyed(text, "missing"), None);
    }
}
