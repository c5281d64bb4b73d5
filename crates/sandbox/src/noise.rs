//! How much this machine itself varies the CPU time of the same work, for `ojd doctor`.
//!
//! Measured side by side (`benches/native_vs_sandbox.rs`), the sandbox adds no noise: what
//! varies is the machine. Work that stays in registers reads the same CPU time run after run;
//! work that misses the last-level cache waits on caches and memory shared with the other CPUs
//! and, in a virtual machine, with the host's other guests, and its CPU time follows their load.
//! This probe runs both kinds of work in this thread, alternated, and reports each one's
//! coefficient of variation (stddev / mean) of the thread's own CPU time.

use std::hint::black_box;
use std::time::Duration;

use super::affinity::TimingCheck;

/// Above this CV a judge's CPU times are not stable (the target of the timing benchmark).
pub(super) const STABLE_CV: f64 = 0.02;

/// The coefficients of variation measured by [`measure`].
#[derive(Clone, Copy, Debug)]
pub(super) struct Noise {
    /// Arithmetic in registers.
    pub registers: f64,
    /// Random read-modify-writes over 32 MiB (more than a last-level cache).
    pub memory: f64,
    pub runs: usize,
}

/// CPU time of the calling thread.
fn thread_cpu() -> Duration {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes one timespec we own; this clock exists on every Linux.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn timed(f: impl FnOnce()) -> f64 {
    let start = thread_cpu();
    f();
    (thread_cpu() - start).as_secs_f64()
}

/// Coefficient of variation of `v` (0 for fewer than two values or a zero mean).
pub fn cv(v: &[f64]) -> f64 {
    if v.len() < 2 {
        return 0.0;
    }
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    if mean <= 0.0 {
        return 0.0;
    }
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    var.sqrt() / mean
}

fn lcg(s: u64) -> u64 {
    s.wrapping_mul(6364136223846793005)
        .wrapping_add(1442695040888963407)
}

/// Runs each probe `runs` times, alternated (about 50 ms per run in a release build).
pub(super) fn measure(runs: usize) -> Noise {
    measure_with(runs, 40_000_000, 2_000_000)
}

fn measure_with(runs: usize, spins: u64, accesses: u32) -> Noise {
    const WORDS: usize = 8 << 20;
    // Faulted in once, before any timing: the probe measures cache misses, not page faults.
    let mut table: Vec<u32> = (0..WORDS as u32).collect();
    let (mut reg, mut mem) = (Vec::new(), Vec::new());
    for _ in 0..runs {
        reg.push(timed(|| {
            let mut s = 1u64;
            for _ in 0..black_box(spins) {
                s = lcg(s);
            }
            black_box(s);
        }));
        mem.push(timed(|| {
            let mut s = 1u64;
            for k in 0..black_box(accesses) {
                s = lcg(s);
                let i = (s >> 33) as usize % WORDS;
                table[i] = table[i].wrapping_add(k);
            }
            black_box(&table);
        }));
    }
    Noise {
        registers: cv(&reg),
        memory: cv(&mem),
        runs,
    }
}

/// The check `ojd doctor` prints: a warning when memory-bound work varies more than
/// `STABLE_CV`.
/// Not measured in a debug build: unoptimized, the register loop keeps its state in memory.
pub fn check(runs: usize) -> TimingCheck {
    if cfg!(debug_assertions) {
        return TimingCheck {
            ok: true,
            what: "noise",
            detail: "not measured by a debug build (its loops are not the probe's); \
                     a release build measures it"
                .into(),
        };
    }
    report(measure(runs))
}

fn report(n: Noise) -> TimingCheck {
    let load = std::fs::read_to_string("/proc/loadavg")
        .ok()
        .and_then(|l| l.split_whitespace().next().map(str::to_string))
        .unwrap_or_else(|| "?".into());
    let figures = format!(
        "CPU time of the same work varies {:.1}% in registers, {:.1}% with random access over 32 MiB \
         (CV of {} runs each, load average {load})",
        n.registers * 100.0,
        n.memory * 100.0,
        n.runs
    );
    let ok = n.registers.max(n.memory) <= STABLE_CV;
    TimingCheck {
        ok,
        what: "noise",
        detail: if ok {
            figures
        } else {
            format!(
                "{figures}: memory-bound submissions' times vary as much here, sandbox or not; \
                 the caches and memory are shared with other work (other CPUs, other guests of \
                 a host): judge on a quiet dedicated machine for stable times"
            )
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cv_is_stddev_over_mean() {
        assert_eq!(cv(&[5.0]), 0.0);
        assert_eq!(cv(&[2.0, 2.0, 2.0]), 0.0);
        // mean 2, sample stddev 1
        assert!((cv(&[1.0, 2.0, 3.0]) - 0.5).abs() < 1e-12);
    }

    #[test]
    fn the_probe_measures_both_kinds_of_work() {
        // Smaller than the real probe: a debug build runs it ten times slower.
        let n = measure_with(3, 2_000_000, 200_000);
        assert_eq!(n.runs, 3);
        for c in [n.registers, n.memory] {
            assert!(c.is_finite() && c > 0.0 && c < 5.0, "{n:?}");
        }
        let quiet = report(Noise {
            registers: 0.005,
            memory: 0.015,
            runs: 10,
        });
        assert!(quiet.ok, "{}", quiet.detail);
        assert!(quiet
            .detail
            .contains("0.5% in registers, 1.5% with random access"));
        let noisy = report(Noise {
            registers: 0.01,
            memory: 0.14,
            runs: 10,
        });
        assert!(!noisy.ok);
        assert_eq!(noisy.what, "noise");
        assert!(noisy
            .detail
            .contains("14.0% with random access over 32 MiB"));
        assert!(
            noisy.detail.contains("quiet dedicated machine"),
            "{}",
            noisy.detail
        );
    }
}
