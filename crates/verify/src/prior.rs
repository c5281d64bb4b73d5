//! What a baseline given to `ojd verify` says about a cell before it runs: where the cell is
//! judged ([`Route`], decided by [`route`]).
//!
//! **Near cells go straight to the runs alone.** A cell whose baseline record is near the limit
//! ([`near_limit`]: a finish at [`GREY`] of the limit or more, or a TLE under [`CLEAR_TLE`] of
//! it) would almost surely come out near the limit in the parallel phase too and be judged again
//! alone; so it skips the parallel run ([`Route::Alone`]) and is judged by the same procedure,
//! marked `*` as before. The record only decides where the cell is judged, never its verdict: a
//! cell that moved away from the limit since gets one run alone instead of one parallel run.
//!
//! **Every other cell runs in the parallel phase with the slack** ([`Route::Parallel`]), a
//! clear TLE of the baseline included: allowed [`SLACK`](super::SLACK) times the limit, so that a
//! TLE there is clear of interference, with or without a baseline. (An earlier route judged the
//! baseline's clear TLEs at the exact limit, guarded by the median ratio of this run's CPU times
//! to the baseline's; on the very machine that saved the baseline that median read 0.78 to 0.92
//! in five quiet cold runs, so the guard tripped in two of them and the runs it saved were made
//! again: about 5 CPU seconds saved, 12 s lost. Issue 26 removed it.)

use serde::Serialize;

use super::{Baseline, Key, CLEAR_TLE, GREY};
use ojd_judge::Verdict;

/// Where a cell is judged first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub(super) enum Route {
    /// In the parallel phase, allowed [`SLACK`](super::SLACK) times the limit.
    Parallel,
    /// Straight to the runs alone: the baseline saw it near the limit.
    Alone,
}

/// Whether a run's verdict and CPU time are too close to the limit to decide the verdict from a
/// parallel run: a finish at [`GREY`] of the limit or more, or a TLE under [`CLEAR_TLE`] of it
/// (a TLE by the wall clock with part of the limit used included). A judge error or a compile
/// error says nothing about time, and neither does an idle TLE ([`idle_tle`]).
pub(super) fn near_limit(verdict: Verdict, cpu_ms: u64, limit_ms: u64) -> bool {
    let (cpu, limit) = (cpu_ms as f64, limit_ms as f64);
    match verdict {
        Verdict::JudgeError | Verdict::CompileError | Verdict::Skipped => false,
        Verdict::TimeLimitExceeded => {
            cpu <= CLEAR_TLE * limit && !idle_tle(verdict, cpu_ms, limit_ms)
        }
        _ => cpu >= GREY * limit,
    }
}

/// A TLE whose CPU time stayed under this share of the CPU limit is an idle one.
pub(super) const IDLE: f64 = 0.1;

/// Whether a TLE was decided by the wall clock while the program hardly ran: CPU time under
/// [`IDLE`] of the CPU limit, so under a tenth of the wall time it was given (the wall limit is
/// at least the CPU limit). Such a program was blocked, not crowded out: an interactive pair in a
/// deadlock (each side waits for the other), a lost flush, a sleep. At a load of 2 per core a
/// program that wants the CPU gets at least a third of one, so a tenth means it did not want it,
/// and a run alone would wait the same: its verdict is settled at once, with no runs alone
/// (issue 25's interactive packages had 24 such cells costing 590 s of runs alone).
pub(super) fn idle_tle(verdict: Verdict, cpu_ms: u64, limit_ms: u64) -> bool {
    verdict == Verdict::TimeLimitExceeded && (cpu_ms as f64) < IDLE * limit_ms as f64
}

/// Where the cell `key`, whose CPU limit today is `limit_ms`, is judged first, given the
/// `baseline` (if any).
pub(super) fn route(baseline: Option<&Baseline>, key: &Key, limit_ms: u64) -> Route {
    match baseline.and_then(|b| b.entries.get(key)) {
        Some(r) if near_limit(r.verdict, r.cpu_ms, limit_ms) => Route::Alone,
        _ => Route::Parallel,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::baseline::Record;

    fn key(test: &str) -> Key {
        Key {
            problem: "p".into(),
            submission: "time_limit_exceeded/brute.rs".into(),
            test: test.into(),
        }
    }

    /// A baseline of `rows` (test, verdict, cpu_ms).
    fn baseline(rows: &[(&str, Verdict, u64)]) -> Baseline {
        let mut b = Baseline::default();
        for &(t, verdict, cpu_ms) in rows {
            b.entries.insert(key(t), Record { verdict, cpu_ms });
        }
        b
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
            // Stopped by the wall clock with a third of the limit used: maybe crowded out.
            (TimeLimitExceeded, 333, true),
            (TimeLimitExceeded, 100, true),
            // Idle: blocked (a deadlock), not crowded out; settled at once.
            (TimeLimitExceeded, 99, false),
            (TimeLimitExceeded, 3, false),
            (JudgeError, 900, false),
            (CompileError, 0, false),
        ] {
            assert_eq!(near_limit(v, cpu, 1000), want, "{v:?} {cpu}");
        }
    }

    #[test]
    fn cells_near_the_limit_in_the_baseline_go_straight_alone() {
        use Verdict::*;
        let b = baseline(&[
            ("01", Accepted, 800),
            ("02", Accepted, 200),
            ("03", TimeLimitExceeded, 1100),
            ("04", TimeLimitExceeded, 1500),
        ]);
        for (t, limit, want) in [
            ("01", 1000, Route::Alone),
            ("02", 1000, Route::Parallel),
            ("03", 1000, Route::Alone),
            // A clear TLE in the baseline runs in the parallel phase with the slack, as
            // without a baseline.
            ("04", 1000, Route::Parallel),
            // Today's limit decides: 800 ms of a limit raised to 2 s is far from it, and a
            // TLE the baseline saw at 1500 ms is near a 2 s limit.
            ("01", 2000, Route::Parallel),
            ("04", 2000, Route::Alone),
            ("05", 1000, Route::Parallel),
        ] {
            assert_eq!(route(Some(&b), &key(t), limit), want, "{t} at {limit} ms");
        }
        assert_eq!(route(None, &key("01"), 1000), Route::Parallel);
    }
}
