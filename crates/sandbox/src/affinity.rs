//! Pinning keepers to CPUs, for stable times: a keeper and every program it runs stay on one CPU
//! (the mask is inherited across fork and exec), one keeper per physical core by default, so two
//! runs never share a core's execution units (SMT siblings) and a run is not migrated between
//! caches. [`configure`] sets the plan once per process (the judge does, from `[judge] pin_cpus`);
//! `pin_keeper` is called where a keeper is spawned and puts it on the least used CPU of the
//! plan. Pinning is best effort: a CPU that cannot be used leaves the keeper unpinned.
//!
//! Across processes: several `ojd worker`s (or a worker and a serve) on one machine place their
//! keepers on distinct CPUs by themselves. Each keeper's CPU is claimed machine-wide with an
//! exclusive `flock` on `<dir>/cpu<N>.<level>` ([`CLAIM_DIRS`]): a keeper takes the first CPU
//! free at level 0 (no keeper of any ojd process on it), then at level 1, and so on, so keepers
//! spread over the CPUs before any CPU gets a second one. The kernel drops a claim when the
//! process holding it dies. `ojd doctor` lists the claims ([`machine_claims`]). The keeper then
//! puts its runs in a cpuset cgroup of that CPU (`cgroup.rs`), so a program cannot widen its
//! own mask with `sched_setaffinity` and disturb another keeper's timings.

use std::collections::BTreeSet;
use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

/// Where the keepers of every ojd process of this machine claim their CPUs (the first that can
/// be made).
pub const CLAIM_DIRS: &[&str] = &["/run/ojd-cpus", "/tmp/ojd-cpus"];

/// The most keepers one CPU takes before claims stop (past it keepers share unclaimed).
const MAX_LEVEL: usize = 64;

/// Which CPUs keepers are pinned to.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Pinning {
    /// Not pinned: the scheduler places keepers.
    Off,
    /// One CPU per physical core among those this process may use.
    Auto,
    /// These logical CPUs.
    Cpus(Vec<usize>),
}

impl Pinning {
    /// Parses "auto", "off" or a list of CPUs such as "0,2,4-6".
    pub fn parse(text: &str) -> Result<Pinning, String> {
        let t = text.trim();
        match t {
            "auto" => return Ok(Pinning::Auto),
            "off" | "" => return Ok(Pinning::Off),
            _ => {}
        }
        parse_list(t)
            .filter(|v| !v.is_empty())
            .map(Pinning::Cpus)
            .ok_or_else(|| {
                format!("expected \"auto\", \"off\" or CPUs like \"0,2,4-6\", found {text:?}")
            })
    }

    /// The CPUs this plan uses on this host (empty: do not pin).
    pub(super) fn cpus(&self) -> Vec<usize> {
        match self {
            Pinning::Off => Vec::new(),
            Pinning::Auto => one_per_core(),
            Pinning::Cpus(v) => {
                let allowed = allowed_cpus();
                v.iter().copied().filter(|c| allowed.contains(c)).collect()
            }
        }
    }
}

struct Plan {
    cpus: Vec<usize>,
    /// (keeper pid, CPU, its machine-wide claim) of the keepers pinned so far; dead ones are
    /// pruned (their claims dropped) when placing.
    pinned: Vec<(u32, usize, Option<File>)>,
}

static PLAN: Mutex<Plan> = Mutex::new(Plan {
    cpus: Vec::new(),
    pinned: Vec::new(),
});

/// Sets the CPUs that keepers started from now on are pinned to.
pub fn configure(pinning: &Pinning) {
    let cpus = pinning.cpus();
    let mut plan = PLAN.lock().unwrap_or_else(|e| e.into_inner());
    plan.cpus = cpus;
}

/// Pins a newly started keeper to the least used CPU of the plan, machine-wide (see the module
/// docs); returns that CPU (`None`: no plan, or the kernel refused).
pub(super) fn pin_keeper(pid: u32) -> Option<usize> {
    let mut plan = PLAN.lock().unwrap_or_else(|e| e.into_inner());
    if plan.cpus.is_empty() {
        return None;
    }
    plan.pinned
        .retain(|(p, _, _)| Path::new(&format!("/proc/{p}")).exists());
    let used_here = |c: &usize| plan.pinned.iter().filter(|(_, u, _)| u == c).count();
    let mut order = plan.cpus.clone();
    order.sort_by_key(|c| (used_here(c), *c));
    let (cpu, claim) = match claim_dir().and_then(|d| claim_cpu(&d, &order, pid)) {
        Some((cpu, file)) => (cpu, Some(file)),
        // No folder for claims, or every level taken: the least used CPU of this process.
        None => (*order.first()?, None),
    };
    set_affinity(pid, &[cpu]).ok()?;
    plan.pinned.push((pid, cpu, claim));
    Some(cpu)
}

/// The folder of machine-wide CPU claims, made if needed (`None`: none can be made).
fn claim_dir() -> Option<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    CLAIM_DIRS.iter().map(PathBuf::from).find(|d| {
        std::fs::DirBuilder::new()
            .recursive(true)
            .mode(0o700)
            .create(d)
            .is_ok()
    })
}

/// Claims one of `cpus` (in order of preference) for the keeper `pid`: the first CPU whose claim
/// file is free at the lowest level. Returns the CPU and the open, locked claim (the claim lasts
/// as long as the file stays open in this process).
fn claim_cpu(dir: &Path, cpus: &[usize], pid: u32) -> Option<(usize, File)> {
    for level in 0..MAX_LEVEL {
        for &cpu in cpus {
            let Ok(mut file) = std::fs::OpenOptions::new()
                .create(true)
                .truncate(false)
                .read(true)
                .write(true)
                .open(dir.join(format!("cpu{cpu}.{level}")))
            else {
                continue;
            };
            if file.try_lock().is_ok() {
                // Who holds it, for `ojd doctor`: the keeper and its ojd process.
                let _ = file.set_len(0);
                let _ = writeln!(file, "{pid} {}", std::process::id());
                return Some((cpu, file));
            }
        }
    }
    None
}

/// A machine-wide CPU claim held now: the CPU, its keeper and the ojd process that started it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Claim {
    /// The CPU claimed.
    pub cpu: usize,
    /// The keeper's process id.
    pub keeper: u32,
    /// The process id of the ojd process that started the keeper.
    pub process: u32,
}

/// Every CPU claim held now by a keeper of any ojd process on this machine, by CPU.
pub fn machine_claims() -> Vec<Claim> {
    let Some(dir) = CLAIM_DIRS.iter().map(Path::new).find(|d| d.is_dir()) else {
        return Vec::new();
    };
    claims_in(dir)
}

fn claims_in(dir: &Path) -> Vec<Claim> {
    let mut out = Vec::new();
    for e in std::fs::read_dir(dir).into_iter().flatten().flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        let Some(cpu) = name
            .strip_prefix("cpu")
            .and_then(|n| n.split('.').next())
            .and_then(|n| n.parse().ok())
        else {
            continue;
        };
        let Ok(file) = File::open(e.path()) else {
            continue;
        };
        // Free (we got the lock): nobody holds it; let go at once.
        if file.try_lock_shared().is_ok() {
            continue;
        }
        let text = std::fs::read_to_string(e.path()).unwrap_or_default();
        let mut ids = text.split_whitespace().map(|t| t.parse().unwrap_or(0));
        out.push(Claim {
            cpu,
            keeper: ids.next().unwrap_or(0),
            process: ids.next().unwrap_or(0),
        });
    }
    out.sort_by_key(|c| (c.cpu, c.process, c.keeper));
    out
}

/// Restricts process `pid` (0: this one) to `cpus`.
pub fn set_affinity(pid: u32, cpus: &[usize]) -> std::io::Result<()> {
    // SAFETY: cpu_set_t is plain data; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &c in cpus {
        if c >= libc::CPU_SETSIZE as usize {
            return Err(std::io::Error::from_raw_os_error(libc::EINVAL));
        }
        // SAFETY: c is below CPU_SETSIZE, checked above, so the bit is inside `set`.
        unsafe { libc::CPU_SET(c, &mut set) };
    }
    // SAFETY: `set` is a valid cpu_set_t of the size passed; the kernel only reads it.
    let r = unsafe {
        libc::sched_setaffinity(
            pid as libc::pid_t,
            std::mem::size_of::<libc::cpu_set_t>(),
            &set,
        )
    };
    if r == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error())
    }
}

/// The CPUs process `pid` (0: this one) may run on.
pub(super) fn affinity(pid: u32) -> std::io::Result<Vec<usize>> {
    // SAFETY: cpu_set_t is plain data; all-zero is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid, writable cpu_set_t of the size passed.
    let r = unsafe {
        libc::sched_getaffinity(
            pid as libc::pid_t,
            std::mem::size_of::<libc::cpu_set_t>(),
            &mut set,
        )
    };
    if r != 0 {
        return Err(std::io::Error::last_os_error());
    }
    Ok((0..libc::CPU_SETSIZE as usize)
        // SAFETY: c is below CPU_SETSIZE, inside `set`.
        .filter(|&c| unsafe { libc::CPU_ISSET(c, &set) })
        .collect())
}

/// The CPUs this process may use (every online CPU if that cannot be read).
pub fn allowed_cpus() -> Vec<usize> {
    affinity(0).unwrap_or_else(|_| (0..online()).collect())
}

fn online() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// The SMT siblings of `cpu` (itself included), from sysfs; just `cpu` when unknown.
pub(super) fn siblings(cpu: usize) -> Vec<usize> {
    std::fs::read_to_string(format!(
        "/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list"
    ))
    .ok()
    .and_then(|t| parse_list(t.trim()))
    .filter(|v| !v.is_empty())
    .unwrap_or_else(|| vec![cpu])
}

/// The lowest allowed CPU of each physical core this process may use.
pub(super) fn one_per_core() -> Vec<usize> {
    let allowed = allowed_cpus();
    let allowed_set: BTreeSet<usize> = allowed.iter().copied().collect();
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    for &c in &allowed {
        let core: Vec<usize> = siblings(c)
            .into_iter()
            .filter(|s| allowed_set.contains(s))
            .collect();
        let first = core.first().copied().unwrap_or(c);
        if seen.insert(first) {
            out.push(first);
        }
    }
    out
}

/// Parses a kernel CPU list ("0-3,8,10-11").
pub(super) fn parse_list(text: &str) -> Option<Vec<usize>> {
    let mut v = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) = (a.trim().parse().ok()?, b.trim().parse().ok()?);
                if b < a || b - a > 4096 {
                    return None;
                }
                v.extend(a..=b);
            }
            None => v.push(part.parse().ok()?),
        }
    }
    Some(v)
}

/// One finding about this host's timing stability, for `ojd doctor`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TimingCheck {
    /// False: times will vary more than they need to; `detail` says what to change.
    pub ok: bool,
    /// The setting checked (`smt`, `governor`, `turbo`, ...).
    pub what: &'static str,
    /// What was found, and when not ok what to change.
    pub detail: String,
}

fn sys(path: &str) -> Option<String> {
    std::fs::read_to_string(path)
        .ok()
        .map(|s| s.trim().to_string())
}

/// SMT, frequency governor, turbo and the pinning plan, each with what to change.
pub fn timing_checks(pinning: &Pinning) -> Vec<TimingCheck> {
    let mut v = Vec::new();
    let allowed = allowed_cpus();
    let shared: Vec<String> = allowed
        .iter()
        .map(|&c| siblings(c))
        .filter(|s| s.len() > 1)
        .map(|s| s.iter().map(usize::to_string).collect::<Vec<_>>().join("+"))
        .collect::<BTreeSet<_>>()
        .into_iter()
        .collect();
    let smt = sys("/sys/devices/system/cpu/smt/control");
    v.push(if shared.is_empty() {
        TimingCheck {
            ok: true,
            what: "smt",
            detail: format!(
                "no SMT siblings among the {} usable CPUs (smt control: {})",
                allowed.len(),
                smt.as_deref().unwrap_or("unknown")
            ),
        }
    } else {
        TimingCheck {
            ok: pinning == &Pinning::Auto,
            what: "smt",
            detail: format!(
                "CPUs {} share cores; pin_cpus = \"auto\" uses one CPU per core{}; to free the \
                 siblings entirely: echo off > /sys/devices/system/cpu/smt/control",
                shared.join(", "),
                if pinning == &Pinning::Auto {
                    ""
                } else {
                    " (set it)"
                }
            ),
        }
    });
    let governors: BTreeSet<String> = allowed
        .iter()
        .filter_map(|c| {
            sys(&format!(
                "/sys/devices/system/cpu/cpu{c}/cpufreq/scaling_governor"
            ))
        })
        .collect();
    v.push(if governors.is_empty() {
        TimingCheck {
            ok: true,
            what: "governor",
            detail: "no cpufreq control here (a virtual machine's frequency is its host's)".into(),
        }
    } else if governors.iter().all(|g| g == "performance") {
        TimingCheck {
            ok: true,
            what: "governor",
            detail: "performance".into(),
        }
    } else {
        TimingCheck {
            ok: false,
            what: "governor",
            detail: format!(
                "{}: the clock follows the load, so times vary; set performance: \
                 cpupower frequency-set -g performance",
                governors.into_iter().collect::<Vec<_>>().join(", ")
            ),
        }
    });
    let no_turbo = sys("/sys/devices/system/cpu/intel_pstate/no_turbo");
    let boost = sys("/sys/devices/system/cpu/cpufreq/boost");
    v.push(match (no_turbo.as_deref(), boost.as_deref()) {
        (Some("0"), _) => TimingCheck {
            ok: false,
            what: "turbo",
            detail: "on: the clock depends on temperature and the other cores' load; \
                     echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo"
                .into(),
        },
        (_, Some("1")) => TimingCheck {
            ok: false,
            what: "turbo",
            detail: "boost on: the clock depends on temperature and the other cores' load; \
                     echo 0 > /sys/devices/system/cpu/cpufreq/boost"
                .into(),
        },
        (Some(_), _) | (_, Some(_)) => TimingCheck {
            ok: true,
            what: "turbo",
            detail: "off".into(),
        },
        (None, None) => TimingCheck {
            ok: true,
            what: "turbo",
            detail: "no turbo control here".into(),
        },
    });
    let cpus = pinning.cpus();
    let claims = machine_claims();
    if !claims.is_empty() {
        let processes: BTreeSet<u32> = claims.iter().map(|c| c.process).collect();
        let per_cpu: Vec<String> = cpus
            .iter()
            .map(|cpu| {
                let on: Vec<String> = claims
                    .iter()
                    .filter(|c| c.cpu == *cpu)
                    .map(|c| format!("keeper {} of ojd {}", c.keeper, c.process))
                    .collect();
                format!(
                    "CPU {cpu}: {}",
                    if on.is_empty() {
                        "free".to_string()
                    } else {
                        on.join(", ")
                    }
                )
            })
            .collect();
        // Two keepers on one CPU while another CPU of the plan is free would be a bad spread.
        let busiest = cpus
            .iter()
            .map(|cpu| claims.iter().filter(|c| c.cpu == *cpu).count())
            .max()
            .unwrap_or(0);
        let idle = cpus.iter().any(|cpu| claims.iter().all(|c| c.cpu != *cpu));
        v.push(TimingCheck {
            ok: !(busiest > 1 && idle),
            what: "keepers on this machine",
            detail: format!(
                "{} keeper(s) of {} ojd process(es): {}",
                claims.len(),
                processes.len(),
                per_cpu.join("; ")
            ),
        });
    }
    v.push(TimingCheck {
        ok: !cpus.is_empty(),
        what: "pinning",
        detail: if cpus.is_empty() {
            "off: keepers float between CPUs; set [judge] pin_cpus = \"auto\"".into()
        } else {
            format!(
                "keepers pinned to CPU{} {}",
                if cpus.len() == 1 { "" } else { "s" },
                cpus.iter()
                    .map(usize::to_string)
                    .collect::<Vec<_>>()
                    .join(", ")
            )
        },
    });
    v
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keepers_of_different_processes_claim_distinct_cpus_first() {
        // Each claim is an open file of its own, as a claim of another process would be: the
        // locks conflict exactly as between processes.
        let path = std::env::temp_dir().join(format!("ojd-claims-test-{}", std::process::id()));
        std::fs::create_dir_all(&path).expect("dir");
        struct Gone<'a>(&'a Path);
        impl Drop for Gone<'_> {
            fn drop(&mut self) {
                let _ = std::fs::remove_dir_all(self.0);
            }
        }
        let dir = Gone(&path);
        let cpus = [3, 5];
        let (a, fa) = claim_cpu(dir.0, &cpus, 100).expect("claim");
        let (b, fb) = claim_cpu(dir.0, &cpus, 200).expect("claim");
        assert_eq!(
            (a, b),
            (3, 5),
            "a second keeper takes the free CPU, not the same one"
        );
        let (c, fc) = claim_cpu(dir.0, &cpus, 300).expect("claim");
        assert_eq!(
            c, 3,
            "with every CPU taken once, a CPU gets its second keeper"
        );
        let held = claims_in(dir.0);
        let mut cpus_held: Vec<(usize, u32)> = held.iter().map(|c| (c.cpu, c.keeper)).collect();
        cpus_held.sort();
        assert_eq!(cpus_held, vec![(3, 100), (3, 300), (5, 200)]);
        assert!(held.iter().all(|c| c.process == std::process::id()));
        // A keeper that ends lets its CPU go.
        drop(fb);
        let (d, _fd) = claim_cpu(dir.0, &cpus, 400).expect("claim");
        assert_eq!(d, 5);
        drop((fa, fc));
        // A lock goes with the last copy of its descriptor: a child that another test of this
        // process is spawning holds copies of ours from its fork until its exec (milliseconds,
        // longer on a loaded host), so the claims may take that long to go.
        let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
        while claims_in(dir.0).len() != 1 && std::time::Instant::now() < deadline {
            std::thread::sleep(std::time::Duration::from_millis(10));
        }
        assert_eq!(claims_in(dir.0).len(), 1, "{:?}", claims_in(dir.0));
    }

    #[test]
    fn cpu_lists_parse_like_the_kernel_writes_them() {
        assert_eq!(parse_list("0-3,8,10-11"), Some(vec![0, 1, 2, 3, 8, 10, 11]));
        assert_eq!(parse_list("5"), Some(vec![5]));
        assert_eq!(parse_list("3-1"), None);
        assert_eq!(parse_list("x"), None);
        assert_eq!(Pinning::parse("auto"), Ok(Pinning::Auto));
        assert_eq!(Pinning::parse("off"), Ok(Pinning::Off));
        assert_eq!(Pinning::parse("0,2"), Ok(Pinning::Cpus(vec![0, 2])));
        assert!(Pinning::parse("fast").unwrap_err().contains("\"fast\""));
    }

    #[test]
    fn a_pinned_child_runs_only_on_its_cpu() {
        let cpus = one_per_core();
        assert!(!cpus.is_empty(), "some CPU is allowed");
        let mut child = std::process::Command::new("sleep")
            .arg("5")
            .spawn()
            .expect("sleep starts");
        let cpu = *cpus.last().expect("non-empty");
        set_affinity(child.id(), &[cpu]).expect("pinning a child of ours works");
        assert_eq!(affinity(child.id()).expect("readable"), vec![cpu]);
        let _ = child.kill();
        let _ = child.wait();
    }
}
