//! Pinning keepers to CPUs, for stable times: a keeper and every program it runs stay on one CPU
//! (the mask is inherited across fork and exec), one keeper per physical core by default, so two
//! runs never share a core's execution units (SMT siblings) and a run is not migrated between
//! caches. [`configure`] sets the plan once per process (the judge does, from `[judge] pin_cpus`);
//! `pin_keeper` is called where a keeper is spawned and puts it on the least used CPU of the
//! plan. Pinning is best effort: a CPU that cannot be used leaves the keeper unpinned.

use std::collections::BTreeSet;
use std::sync::Mutex;

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
    /// (keeper pid, CPU) of the keepers pinned so far; dead ones are pruned when placing.
    pinned: Vec<(u32, usize)>,
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

/// Pins a newly started keeper to the least used CPU of the plan; returns that CPU (`None`: no
/// plan, or the kernel refused).
pub(super) fn pin_keeper(pid: u32) -> Option<usize> {
    let mut plan = PLAN.lock().unwrap_or_else(|e| e.into_inner());
    if plan.cpus.is_empty() {
        return None;
    }
    plan.pinned
        .retain(|(p, _)| std::path::Path::new(&format!("/proc/{p}")).exists());
    let cpu = *plan
        .cpus
        .iter()
        .min_by_key(|c| plan.pinned.iter().filter(|(_, u)| u == *c).count())?;
    set_affinity(pid, &[cpu]).ok()?;
    plan.pinned.push((pid, cpu));
    Some(cpu)
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
    /// False: times will vary more than they need to; `advice` says what to change.
    pub ok: bool,
    pub what: &'static str,
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
