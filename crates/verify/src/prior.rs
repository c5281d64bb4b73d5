//! What a baseline given to `ojd verify` says about a cell before it runs: where the cell is
//! judged ([`Route`], decided by [`route`]), and whether this machine is fast enough for that
//! to hold ([`speed_guard`]).
//!
//! **Near cells go straight to the runs alone.** A cell whose baseline record is near the limit
//! ([`near_limit`]: a finish at [`GREY`] of the limit or more, or a TLE under [`CLEAR_TLE`] of
//! it) would almost surely come out near the limit in the parallel phase too and be judged again
//! alone; so it skips the parallel run ([`Route::Alone`]) and is judged by the same procedure,
//! marked `*` as before. The record only decides where the cell is judged, never its verdict: a
//! cell that moved away from the limit since gets one run alone instead of one parallel run.
//!
//! **Clear TLE cells run at the exact limit** ([`Route::Exact`]). A parallel run is allowed
//! [`SLACK`](super::SLACK) times the limit so that a TLE there is clear of interference: a
//! brute force that got nearly fast enough must not hide behind a neighbour's load. The
//! baseline already measured that: if it saw the cell a TLE at [`CLEAR_TLE`] times the limit or
//! more (the same assumption about interference the CLEAR_TLE rule makes in every run), and
//! nothing that decides the run's time has changed since — the submission's source, the test's
//! input, the limit (its language's factor included), and the problem is not interactive (an
//! interactor's own work would count too) — then a TLE at the exact limit today is the same
//! verdict for the same reason, and the run costs the limit instead of 1.5 times it. It stands
//! only as a TLE that used the whole CPU limit; any other outcome (a finish, a TLE by the wall
//! clock) goes through the usual rules. Never while a baseline is being saved (a save is a full
//! measurement), and never from a format-1 baseline, which records nothing of what ran.
//!
//! What the recorded runs cannot know is the machine: a faster CPU or compiler makes everything
//! faster. So after the parallel phase, [`speed_guard`] compares this run's CPU times with the
//! baseline's on the cells that finished in both; if this machine is markedly faster (median
//! ratio under [`FASTER`]), or too few cells tell, every cell judged at the exact limit is
//! judged again with SLACK times it, as without a baseline.

use serde::Serialize;

use super::{Baseline, Key, Ran, Record, SpeedGuard, CLEAR_TLE, GREY};
use ojd_judge::Verdict;

/// A baseline's TLE counts as stopped at `limit × time_limit_to_tle` (the package's margin) from
/// this share of it: the sandbox stops a run a few milliseconds either side of its limit, and
/// times are whole milliseconds. Only such a TLE is judged at the exact limit: one the baseline
/// saw finish short of the margin is no clear TLE by the package's measure.
pub(super) const STOPPED_AT: f64 = 0.98;

/// Where a cell is judged first.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
pub(super) enum Route {
    /// In the parallel phase, allowed [`SLACK`](super::SLACK) times the limit.
    Parallel,
    /// Straight to the runs alone: the baseline saw it near the limit.
    Alone,
    /// In the parallel phase at the exact limit: the baseline saw the same run a clear TLE.
    Exact,
}

/// A baseline as phase 2 uses it.
pub(super) struct Prior<'a> {
    pub(super) baseline: &'a Baseline,
    /// Cells may be judged at the exact limit ([`Route::Exact`]): see [`exact_allowed`].
    pub(super) exact: bool,
}

/// Whether the baseline's clear TLEs may be judged at the exact limit ([`Route::Exact`]): not
/// while a baseline is being saved (a full measurement), and not at a `--time-scale` other
/// than 1 (the baseline's TLE was at another limit, so it says nothing about this one).
pub(super) fn exact_allowed(saving: bool, time_scale: f64) -> bool {
    !saving && time_scale == 1.0
}

/// What a cell is about to run, to compare with what the baseline recorded ([`Ran`]).
pub(super) struct Today {
    pub(super) limit_ms: u64,
    pub(super) source: u64,
    /// None: the input could not be read.
    pub(super) input: Option<u64>,
    pub(super) interactive: bool,
    /// The package's `time_limit_to_tle`: a TLE the baseline saw stopped short of it is not
    /// clear by the package's measure, so it is not judged at the exact limit.
    pub(super) tle_margin: f64,
}

impl Today {
    fn ran_as(&self, ran: Option<&Ran>) -> bool {
        ran.is_some_and(|r| {
            r.limit_ms == self.limit_ms && r.source == self.source && Some(r.input) == self.input
        })
    }
}

/// The guard trips when this machine ran the compared cells in under this share of their
/// baseline CPU time (the median). A cell at the exact limit was a TLE at [`CLEAR_TLE`] (1.4)
/// times the limit or more in the baseline: it could finish within the limit only on a machine
/// 1.4 times faster (a ratio of 0.71). 0.8 leaves a margin of 12% (0.8 × 1.4 = 1.12) for a
/// program that gains more than the median from a faster machine, and stays clear of the
/// median's own noise on an unchanged one: six full runs against the committed baseline at
/// loads of 1.6 to 2.7 read medians of 1.09 to 1.31 over about 150 cells each.
const FASTER: f64 = 0.8;

/// A cell counts for the guard when its baseline CPU time is at least this: shorter times are
/// mostly start-up and noise. Chosen by the baseline's time alone, so that cells that became
/// fast on a faster machine still count.
pub(crate) const GUARD_MIN_MS: u64 = 50;

/// Fewer compared cells than this cannot tell the machine's speed: the guard trips.
const GUARD_MIN_CELLS: usize = 3;

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

/// Where the cell `key`, about to run as `today` says, is judged first.
pub(super) fn route(prior: Option<&Prior<'_>>, key: &Key, today: &Today) -> Route {
    let Some(prior) = prior else {
        return Route::Parallel;
    };
    let Some(r) = prior.baseline.entries.get(key) else {
        return Route::Parallel;
    };
    if near_limit(r.verdict, r.cpu_ms, today.limit_ms) {
        Route::Alone
    } else if prior.exact
        && r.verdict == Verdict::TimeLimitExceeded
        && r.cpu_ms as f64 >= CLEAR_TLE.max(STOPPED_AT * today.tle_margin) * today.limit_ms as f64
        && !today.interactive
        && today.ran_as(prior.baseline.ran.get(key))
    {
        Route::Exact
    } else {
        Route::Parallel
    }
}

/// Whether a run at the exact limit ([`Route::Exact`]) settles its cell as a TLE: it used the
/// whole CPU limit. Anything else — a finish, a TLE by the wall clock — goes through the rules
/// of any parallel run.
pub(super) fn exact_tle_stands(verdict: Verdict, cpu_ms: u64, limit_ms: u64) -> bool {
    verdict == Verdict::TimeLimitExceeded && cpu_ms >= limit_ms
}

/// A (CPU ms now, CPU ms in the baseline) pair for [`speed_guard`], if this cell can tell the
/// machine's speed: AC or WA both times, [`GUARD_MIN_MS`] or more in the baseline, the same
/// source, input and limit.
pub(super) fn guard_sample(
    record: &Record,
    ran: Option<&Ran>,
    today: &Today,
    now: (Verdict, u64),
) -> Option<(u64, u64)> {
    let finished = |v: Verdict| matches!(v, Verdict::Accepted | Verdict::WrongAnswer);
    (finished(record.verdict)
        && finished(now.0)
        && record.cpu_ms >= GUARD_MIN_MS
        && today.ran_as(ran))
    .then_some((now.1, record.cpu_ms))
}

/// Whether this machine ran the `samples` (now, baseline CPU ms) markedly faster than the
/// baseline's machine, or too few samples tell: then the cells at the exact limit are judged
/// again.
pub(super) fn speed_guard(samples: &[(u64, u64)]) -> SpeedGuard {
    let mut ratios: Vec<f64> = samples
        .iter()
        .map(|&(now, then)| now as f64 / then.max(1) as f64)
        .collect();
    ratios.sort_by(f64::total_cmp);
    let n = ratios.len();
    let median = (n > 0).then(|| (ratios[(n - 1) / 2] + ratios[n / 2]) / 2.0);
    let (tripped, reason) = match median {
        _ if n < GUARD_MIN_CELLS => (
            true,
            format!(
                "only {n} cells finished in both this run and the baseline with {GUARD_MIN_MS} ms or more (the same source, input and limit): too few to tell this machine's speed"
            ),
        ),
        Some(m) if m < FASTER => (
            true,
            format!(
                "this machine ran the {n} cells that finished in both in a median {m:.2} times their baseline CPU time (under {FASTER}): markedly faster, so a TLE the baseline saw at {CLEAR_TLE} times the limit may finish now"
            ),
        ),
        m => (
            false,
            format!(
                "this machine ran the {n} cells that finished in both in a median {:.2} times their baseline CPU time ({FASTER} or more)",
                m.unwrap_or_default()
            ),
        ),
    };
    SpeedGuard {
        cells: n,
        median_ratio: median.map(|m| (m * 1000.0).round() / 1000.0),
        tripped,
        rejudged: 0,
        reason,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SOURCE: u64 = 0x5eed;
    const INPUT: u64 = 0x1a9e;

    fn key(test: &str) -> Key {
        Key {
            problem: "p".into(),
            submission: "time_limit_exceeded/brute.rs".into(),
            test: test.into(),
        }
    }

    fn today(limit_ms: u64) -> Today {
        Today {
            limit_ms,
            source: SOURCE,
            input: Some(INPUT),
            interactive: false,
            tle_margin: 1.5,
        }
    }

    /// A format-2 baseline of `rows` (test, verdict, cpu_ms), each recorded as run with a
    /// 1000 ms limit on SOURCE and INPUT.
    fn baseline(rows: &[(&str, Verdict, u64)]) -> Baseline {
        let mut b = Baseline::default();
        for &(t, verdict, cpu_ms) in rows {
            b.entries.insert(key(t), Record { verdict, cpu_ms });
            b.ran.insert(
                key(t),
                Ran {
                    limit_ms: 1000,
                    source: SOURCE,
                    input: INPUT,
                },
            );
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
        let prior = Prior {
            baseline: &b,
            exact: false,
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
            assert_eq!(
                route(Some(&prior), &key(t), &today(limit)),
                want,
                "{t} at {limit} ms"
            );
        }
        assert_eq!(route(None, &key("01"), &today(1000)), Route::Parallel);
    }

    #[test]
    fn a_clear_tle_of_the_same_run_is_judged_at_the_exact_limit() {
        use Verdict::*;
        let b = baseline(&[
            ("tle", TimeLimitExceeded, 1500),
            ("stopped", TimeLimitExceeded, 1470),
            ("just", TimeLimitExceeded, 1401),
            ("near", TimeLimitExceeded, 1400),
            ("ac", Accepted, 300),
        ]);
        let prior = Prior {
            baseline: &b,
            exact: true,
        };
        let at = |t: &str, today: &Today| route(Some(&prior), &key(t), today);
        assert_eq!(at("tle", &today(1000)), Route::Exact);
        // Stopped at 1.5x (read a little early) is clear; a TLE that finished at 1.4x is not
        // clear by the package's time_limit_to_tle (1.5): measured again with the slack.
        assert_eq!(at("stopped", &today(1000)), Route::Exact);
        assert_eq!(at("just", &today(1000)), Route::Parallel);
        // A package whose time_limit_to_tle is 4: a TLE the baseline saw at 1.5x is no
        // clear one by its measure.
        let guess = Today {
            tle_margin: 4.0,
            ..today(1000)
        };
        assert_eq!(at("tle", &guess), Route::Parallel);
        assert_eq!(at("near", &today(1000)), Route::Alone, "not clear");
        assert_eq!(at("ac", &today(1000)), Route::Parallel);
        assert_eq!(at("gone", &today(1000)), Route::Parallel, "not recorded");

        // Anything that decides the run's time changed: no shortcut.
        let changed = [
            (
                "the source",
                Today {
                    source: 1,
                    ..today(1000)
                },
            ),
            (
                "the input",
                Today {
                    input: Some(2),
                    ..today(1000)
                },
            ),
            (
                "an unreadable input",
                Today {
                    input: None,
                    ..today(1000)
                },
            ),
            ("the limit", today(900)),
            (
                "an interactive problem",
                Today {
                    interactive: true,
                    ..today(1000)
                },
            ),
        ];
        for (what, t) in changed {
            assert_eq!(at("tle", &t), Route::Parallel, "{what}");
        }
        // A raised limit: the record (1500 of 2000 ms) is not even clear any more.
        assert_eq!(at("tle", &today(2000)), Route::Alone);

        // A baseline being saved is a full measurement.
        let saving = Prior {
            baseline: &b,
            exact: false,
        };
        assert_eq!(
            route(Some(&saving), &key("tle"), &today(1000)),
            Route::Parallel
        );

        // A format-1 baseline records nothing of what ran.
        let text =
            "# ojd verify baseline, format 1\np\ttime_limit_exceeded/brute.rs\ttle\tTLE\t1500\n";
        let old = Baseline::parse(text, "b").expect("format 1 parses");
        let prior = Prior {
            baseline: &old,
            exact: true,
        };
        assert_eq!(
            route(Some(&prior), &key("tle"), &today(1000)),
            Route::Parallel
        );
    }

    #[test]
    fn exact_limit_only_unsaved_and_unscaled() {
        for (saving, scale, want) in [
            (false, 1.0, true),
            (true, 1.0, false),
            (false, 0.5, false),
            (false, 2.0, false),
            (true, 0.5, false),
            (false, 0.999, false),
        ] {
            assert_eq!(
                exact_allowed(saving, scale),
                want,
                "saving {saving} scale {scale}"
            );
        }
    }

    #[test]
    fn only_a_tle_that_used_the_whole_limit_stands() {
        use Verdict::*;
        assert!(exact_tle_stands(TimeLimitExceeded, 1000, 1000));
        assert!(exact_tle_stands(TimeLimitExceeded, 1013, 1000));
        assert!(
            !exact_tle_stands(TimeLimitExceeded, 620, 1000),
            "by the wall clock"
        );
        assert!(!exact_tle_stands(Accepted, 990, 1000));
        assert!(!exact_tle_stands(WrongAnswer, 10, 1000));
    }

    #[test]
    fn guard_samples_are_finished_measurable_unchanged_runs() {
        use Verdict::*;
        let ran = Ran {
            limit_ms: 1000,
            source: SOURCE,
            input: INPUT,
        };
        let r = |verdict, cpu_ms| Record { verdict, cpu_ms };
        let t = today(1000);
        assert_eq!(
            guard_sample(&r(Accepted, 200), Some(&ran), &t, (WrongAnswer, 150)),
            Some((150, 200))
        );
        assert_eq!(
            guard_sample(&r(Accepted, 60), Some(&ran), &t, (Accepted, 20)),
            Some((20, 60)),
            "chosen by the baseline's time: a cell that became fast still counts"
        );
        for (record, now, ran, what) in [
            (
                r(Accepted, 49),
                (Accepted, 49),
                Some(&ran),
                "too short to measure",
            ),
            (
                r(TimeLimitExceeded, 1500),
                (Accepted, 200),
                Some(&ran),
                "not finished in the baseline",
            ),
            (
                r(Accepted, 200),
                (RuntimeError, 200),
                Some(&ran),
                "not AC or WA now",
            ),
            (
                r(Accepted, 200),
                (Accepted, 200),
                None,
                "nothing recorded of what ran",
            ),
        ] {
            assert_eq!(guard_sample(&record, ran, &t, now), None, "{what}");
        }
        let changed = Today {
            source: 7,
            ..today(1000)
        };
        assert_eq!(
            guard_sample(&r(Accepted, 200), Some(&ran), &changed, (Accepted, 100)),
            None,
            "a changed submission says nothing about the machine"
        );
    }

    #[test]
    fn the_guard_trips_on_a_markedly_faster_machine_or_too_few_cells() {
        let g = speed_guard(&[(100, 100), (90, 100), (300, 250), (120, 100)]);
        assert!(!g.tripped, "{g:?}");
        assert_eq!(g.median_ratio, Some(1.1));
        let g = speed_guard(&[(70, 100), (140, 200), (100, 100), (60, 100), (500, 600)]);
        assert!(g.tripped, "median 0.7: {g:?}");
        assert!(g.reason.contains("markedly faster"), "{}", g.reason);
        let g = speed_guard(&[(80, 100), (80, 100), (80, 100)]);
        assert!(!g.tripped, "0.8 is not under 0.8: {g:?}");
        let g = speed_guard(&[(100, 100), (100, 100)]);
        assert!(g.tripped, "two cells cannot tell: {g:?}");
        assert!(g.reason.contains("too few"), "{}", g.reason);
        assert!(speed_guard(&[]).tripped);
    }
}
