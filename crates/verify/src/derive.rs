//! A scaled run (`--time-scale F`) that reuses what the run at the package's own limits
//! measured. Each cell of the scaled run is first looked up in the results cache as it was
//! judged at F = 1 (the same judge, program, test and unscaled limits); when that measurement
//! already decides the verdict at the scaled limits, the cell is *derived* from it instead of
//! judged again, and every report says so (`derived` in JSON, `~` in the matrix, the summary
//! line's count). It stays an honest simulation: a cell is derived only when the scaled run would
//! have settled it in its parallel phase by the very rules it applies to its own runs, given the
//! same measured time:
//!
//! - a run that finished (AC, WA, RE, MLE, OLE) at CPU time `t` and wall time `w` keeps its
//!   verdict when `t` is under [`GREY`] of the scaled CPU limit and `w` under GREY of the scaled
//!   wall limit: a parallel run measuring that stands (`prior::near_limit`), and how a program
//!   ends does not depend on the limit it finished within;
//! - a TLE stopped at CPU time `c` stays a TLE, a clear one (`past_margin`), when `c` is at least
//!   the scaled run's kill point, the slack (`margins::slack`) times the scaled limit: the scaled
//!   run would have been stopped there, past [`super::CLEAR_TLE`] of its limit, where a parallel
//!   TLE stands.
//!
//! Everything else — a finish near or over the scaled limit, a TLE stopped before the scaled
//! kill point (at F = 2 every TLE: it was stopped at 1.5 times the limit, the scaled run allows
//! 3 times it), a judge error — is judged again. So at 0.5 the accepted runs over 37.5% of their
//! limit are judged again, and at 2 the brute forces' TLEs.

use ojd_judge::Verdict;

use super::cache::StoredCell;
use super::{Cell, GREY};

/// The cell at the scaled limits (`cpu_ms`, `wall_ms`; the parallel runs allowed `slack` times
/// them), when the run at the package's limits (`plain`) decides it; None: judge it again.
pub(crate) fn derive(plain: &StoredCell, cpu_ms: u64, wall_ms: u64, slack: f64) -> Option<Cell> {
    let r = &plain.result;
    let (cpu, wall) = (r.cpu_ms as f64, r.wall_ms as f64);
    let mut result = r.clone();
    let past_margin = match r.verdict {
        Verdict::JudgeError | Verdict::CompileError | Verdict::Skipped => return None,
        Verdict::TimeLimitExceeded => {
            let kill = slack * cpu_ms as f64;
            if cpu < kill {
                return None;
            }
            result.message = format!(
                "CPU time limit of {cpu_ms} ms exceeded (derived: at the package's limits the run was stopped at {} ms CPU, past this run's {kill:.0} ms)",
                r.cpu_ms
            );
            result.diff = None;
            true
        }
        _ => {
            if cpu >= GREY * cpu_ms as f64 || wall >= GREY * wall_ms as f64 {
                return None;
            }
            false
        }
    };
    Some(Cell {
        rerun: plain.rerun,
        derived: true,
        past_margin,
        ..Cell::judged(result)
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use Verdict::*;

    /// A stored cell of test "t" (no memory, no message).
    fn stored(verdict: Verdict, cpu_ms: u64, wall_ms: u64) -> StoredCell {
        crate::cache::tests::stored("t", verdict, (cpu_ms, wall_ms, 0), "")
    }

    /// (verdict, CPU ms, wall ms measured at a 1000 ms limit) → what a run at the scaled limit
    /// (`cpu` ms, wall 3 × that, slack 1.5) gets: None is "judge it again".
    #[test]
    fn derive_table() {
        let table: &[(Verdict, u64, u64, u64, Option<Verdict>)] = &[
            // As on a machine twice as slow (limit 500 ms, killed at 750 ms).
            (Accepted, 100, 120, 500, Some(Accepted)),
            (Accepted, 374, 400, 500, Some(Accepted)),
            (Accepted, 375, 400, 500, None),
            (Accepted, 490, 500, 500, None),
            (WrongAnswer, 200, 210, 500, Some(WrongAnswer)),
            (RuntimeError, 10, 10, 500, Some(RuntimeError)),
            (MemoryLimitExceeded, 30, 30, 500, Some(MemoryLimitExceeded)),
            // A finish that waited: the wall clock is near the scaled wall limit (1500 ms).
            (Accepted, 100, 1200, 500, None),
            (TimeLimitExceeded, 1500, 1600, 500, Some(TimeLimitExceeded)),
            (TimeLimitExceeded, 1000, 1100, 500, Some(TimeLimitExceeded)),
            (TimeLimitExceeded, 750, 800, 500, Some(TimeLimitExceeded)),
            (TimeLimitExceeded, 749, 3000, 500, None),
            // As on a machine twice as fast (limit 2000 ms, killed at 3000 ms).
            (Accepted, 1400, 1450, 2000, Some(Accepted)),
            (Accepted, 1500, 1550, 2000, None),
            (TimeLimitExceeded, 1500, 1600, 2000, None),
            (JudgeError, 0, 0, 2000, None),
            (Skipped, 0, 0, 2000, None),
            (CompileError, 0, 0, 500, None),
        ];
        for &(v, cpu, wall, limit, want) in table {
            let got = derive(&stored(v, cpu, wall), limit, 3 * limit, 1.5);
            assert_eq!(
                got.as_ref().map(|c| c.result.verdict),
                want,
                "{v:?} {cpu} ms (wall {wall}) at {limit} ms"
            );
            if let Some(c) = got {
                assert!(c.derived && !c.reused, "{v:?} {cpu}");
                assert_eq!(c.result.cpu_ms, cpu, "the measured time is kept");
                assert_eq!(c.past_margin, v == TimeLimitExceeded, "{v:?} {cpu}");
            }
        }
    }

    #[test]
    fn a_packages_own_margin_moves_the_kill_point() {
        // time_limit_to_tle = 4: the scaled run (limit 500 ms) is allowed 2000 ms.
        let tle = stored(TimeLimitExceeded, 1500, 1600);
        assert!(derive(&tle, 500, 1500, 4.0).is_none());
        assert!(derive(&stored(TimeLimitExceeded, 4000, 4100), 500, 1500, 4.0).is_some());
    }
}
