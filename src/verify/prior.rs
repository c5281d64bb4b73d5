//! What a baseline given to `ojd verify` says about a cell before it runs: where the cell is
//! judged ([`Route`], decided by [`route`]).
//!
//! A cell whose baseline record is near the limit ([`near_limit`]: a finish at [`GREY`] of the
//! limit or more, or a TLE under [`CLEAR_TLE`] of it) would almost surely come out near the
//! limit in the parallel phase too and be judged again alone; so it skips the parallel run and
//! goes straight to the runs alone ([`Route::Alone`]), where it is judged by the same procedure
//! and marked `*` as before. The record only decides where the cell is judged, never its
//! verdict: a cell that moved away from the limit since the baseline gets one run alone instead
//! of one parallel run, and is judged the same. Without a baseline every cell runs in parallel.

use super::{Baseline, Key, CLEAR_TLE, GREY};
use crate::verdict::Verdict;

/// Where a cell is judged first.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Route {
    /// In the parallel phase, allowed [`SLACK`](super::SLACK) times the limit.
    Parallel,
    /// Straight to the runs alone: the baseline saw it near the limit.
    Alone,
}

/// Whether a run's verdict and CPU time are too close to the limit to decide the verdict from a
/// parallel run: a finish at [`GREY`] of the limit or more, or a TLE under [`CLEAR_TLE`] of it
/// (a TLE by the wall clock with little CPU time included). A judge error or a compile error
/// says nothing about time.
pub(super) fn near_limit(verdict: Verdict, cpu_ms: u64, limit_ms: u64) -> bool {
    let (cpu, limit) = (cpu_ms as f64, limit_ms as f64);
    match verdict {
        Verdict::JudgeError | Verdict::CompileError | Verdict::Skipped => false,
        Verdict::TimeLimitExceeded => cpu <= CLEAR_TLE * limit,
        _ => cpu >= GREY * limit,
    }
}

/// Where the cell `key`, whose limit in this run is `limit_ms`, is judged first.
pub(super) fn route(baseline: Option<&Baseline>, key: &Key, limit_ms: u64) -> Route {
    match baseline.and_then(|b| b.entries.get(key)) {
        Some(r) if near_limit(r.verdict, r.cpu_ms, limit_ms) => Route::Alone,
        _ => Route::Parallel,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::verify::Record;

    fn key(test: &str) -> Key {
        Key {
            problem: "p".into(),
            submission: "time_limit_exceeded/brute.rs".into(),
            test: test.into(),
        }
    }

    #[test]
    fn near_limit_table() {
        use Verdict::*;
        for (v, cpu, want) in [
            (Accepted, 100, false),
            (Accepted, 749, false),
            (Accepted, 750, true),
            (Accepted, 1100, true),
            (WrongAnswer, 900, true),
            (TimeLimitExceeded, 1501, false),
            (TimeLimitExceeded, 1400, true),
            (TimeLimitExceeded, 3, true),
            (JudgeError, 900, false),
            (CompileError, 0, false),
        ] {
            assert_eq!(near_limit(v, cpu, 1000), want, "{v:?} {cpu}");
        }
    }

    #[test]
    fn cells_near_the_limit_in_the_baseline_go_straight_alone() {
        use Verdict::*;
        let b = Baseline {
            entries: [
                ("01", Accepted, 800),
                ("02", Accepted, 200),
                ("03", TimeLimitExceeded, 1100),
                ("04", TimeLimitExceeded, 1500),
            ]
            .into_iter()
            .map(|(t, verdict, cpu_ms)| (key(t), Record { verdict, cpu_ms }))
            .collect(),
        };
        for (t, limit, want) in [
            ("01", 1000, Route::Alone),
            ("02", 1000, Route::Parallel),
            ("03", 1000, Route::Alone),
            ("04", 1000, Route::Parallel),
            // Today's limit decides: 800 ms of a limit raised to 2 s is far from it.
            ("01", 2000, Route::Parallel),
            ("05", 1000, Route::Parallel),
        ] {
            assert_eq!(route(Some(&b), &key(t), limit), want, "{t} at {limit} ms");
        }
        assert_eq!(route(None, &key("01"), 1000), Route::Parallel);
    }
}
