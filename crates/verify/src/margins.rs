//! The package's timing promise: the Kattis margins ([`Margins`], `[limits]` in problem.toml),
//! checked on the verdicts and CPU times verify measured ([`check`]).
//!
//! - Every accepted submission (and the reference) finishes every test within
//!   `limit / ac_to_time_limit` (default 2). One that does not still passes, but it is
//!   *timing-fragile*: on a machine `ac_to_time_limit` times slower it would time out. A warning
//!   names its slowest test and every test over the line.
//! - Every `time_limit_exceeded/` submission is *clearly* a TLE on at least one test: it did not
//!   finish at `limit × time_limit_to_tle` (default 1.5). Verify's runs are allowed at least that
//!   much (see [`slack`]), so a run stopped there shows it (`past_margin` of the cell; under
//!   load the wall clock may stop it first, with CPU time a little under the line: it did not
//!   finish either). One whose TLEs all finished between
//!   the limit and that line breaks its promise (exit 1): on a machine that much faster it would
//!   pass. A TLE by the wall clock with CPU time under the limit counts as clear (the program
//!   waits, and no machine waits faster).
//!
//! Both are what keeps a verdict the same on machines from `1 / ac_to_time_limit` to
//! `time_limit_to_tle` times this one's speed, and what `--time-scale` simulates.

use ojd_judge::Margins;
use ojd_judge::Verdict;

use super::{Cell, SLACK};

/// What parallel runs and first runs alone are allowed, as a multiple of the limit: [`SLACK`],
/// or the package's `time_limit_to_tle` when larger, so that a run stopped there is a clear
/// TLE by the package's own measure.
pub(crate) fn slack(m: &Margins) -> f64 {
    SLACK.max(m.time_limit_to_tle)
}

/// Whether a TLE cell is clearly one: a run of it allowed at least `limit × time_limit_to_tle`
/// was stopped there (`past_margin`: by the CPU or, on a loaded machine, the wall clock; its
/// measured CPU time may then read a little under the line), or it waited out the wall clock
/// with CPU time under the limit.
pub(crate) fn clear_tle(c: &Cell, limit_ms: u64) -> bool {
    c.result.verdict == Verdict::TimeLimitExceeded && (c.past_margin || c.result.cpu_ms < limit_ms)
}

/// The line an accepted run must stay under, in milliseconds.
pub(crate) fn ac_line_ms(limit_ms: u64, m: &Margins) -> f64 {
    limit_ms as f64 / m.ac_to_time_limit
}

/// What the margins say about one submission's cells: `(failure, warning, fragile cells)`.
/// `expected` is its folder's verdict (Accepted for the reference); `promised` whether its
/// verdicts otherwise keep the folder's promise (a broken promise is reported as such, not as
/// timing).
pub(crate) fn check(
    name: &str,
    expected: Verdict,
    promised: bool,
    cells: &[Cell],
    limit_ms: u64,
    m: &Margins,
) -> (Option<String>, Option<String>, Vec<String>) {
    let cell = |c: &Cell| format!("{} ({} ms)", c.result.name, c.result.cpu_ms);
    match expected {
        Verdict::Accepted => {
            let line = ac_line_ms(limit_ms, m);
            let mut over: Vec<&Cell> = cells
                .iter()
                .filter(|c| c.result.verdict == Verdict::Accepted && c.result.cpu_ms as f64 > line)
                .collect();
            over.sort_by_key(|c| std::cmp::Reverse(c.result.cpu_ms));
            let Some(slowest) = over.first() else {
                return (None, None, vec![]);
            };
            let list: Vec<String> = over.iter().map(|c| cell(c)).collect();
            let warning = format!(
                "{name}: timing-fragile: accepted in {} ms on {}, over the limit / ac_to_time_limit ({limit_ms} ms / {} = {:.0} ms); {} test(s) over it: {}",
                slowest.result.cpu_ms,
                slowest.result.name,
                m.ac_to_time_limit,
                line,
                list.len(),
                list.join(", ")
            );
            (None, Some(warning), list)
        }
        Verdict::TimeLimitExceeded if promised => {
            let tles: Vec<&Cell> = cells
                .iter()
                .filter(|c| c.result.verdict == Verdict::TimeLimitExceeded)
                .collect();
            if tles.is_empty() || tles.iter().any(|c| clear_tle(c, limit_ms)) {
                return (None, None, vec![]);
            }
            let list: Vec<String> = tles.iter().map(|c| cell(c)).collect();
            let failure = format!(
                "timing-fragile: TLE on {}, but it finished within the limit × time_limit_to_tle ({limit_ms} ms × {} = {:.0} ms) on every test: a machine {}× as fast would accept it",
                list.join(", "),
                m.time_limit_to_tle,
                limit_ms as f64 * m.time_limit_to_tle,
                m.time_limit_to_tle
            );
            (Some(failure), None, list)
        }
        _ => (None, None, vec![]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ojd_judge::TestResult;
    use Verdict::*;

    /// A cell; `stopped`: a run with the slack was stopped at it (`past_margin`).
    fn cell(name: &str, verdict: Verdict, cpu_ms: u64, stopped: bool) -> Cell {
        Cell {
            past_margin: stopped,
            ..Cell::judged(TestResult {
                name: name.into(),
                sample: false,
                verdict,
                cpu_ms,
                wall_ms: cpu_ms,
                memory_kib: 0,
                exit: None,
                message: String::new(),
                diff: None,
            })
        }
    }

    const KATTIS: Margins = Margins {
        ac_to_time_limit: 2.0,
        time_limit_to_tle: 1.5,
    };
    const GUESS: Margins = Margins {
        ac_to_time_limit: 2.0,
        time_limit_to_tle: 4.0,
    };

    #[test]
    fn slack_is_at_least_the_packages_tle_margin() {
        assert_eq!(slack(&KATTIS), 1.5);
        assert_eq!(slack(&GUESS), 4.0);
        let low = Margins {
            ac_to_time_limit: 1.0,
            time_limit_to_tle: 1.0,
        };
        assert_eq!(slack(&low), SLACK);
    }

    #[test]
    fn clear_tle_table() {
        // (verdict, cpu ms, stopped at the slack, clear) with a 1000 ms limit.
        let table: &[(Verdict, u64, bool, bool)] = &[
            (TimeLimitExceeded, 1500, true, true),
            // Stopped by the wall clock at the slack on a loaded machine: CPU under 1.5x.
            (TimeLimitExceeded, 1448, true, true),
            // Finished at 1.46x, a TLE at the limit only: not clear.
            (TimeLimitExceeded, 1460, false, false),
            (TimeLimitExceeded, 1100, false, false),
            // Over the limit, but not stopped at the slack: no clear TLE.
            (TimeLimitExceeded, 1000, false, false),
            // Waited out the wall clock with little CPU time.
            (TimeLimitExceeded, 20, false, true),
            (Accepted, 2000, false, false),
            (WrongAnswer, 20, false, false),
        ];
        for &(v, ms, stopped, want) in table {
            assert_eq!(
                clear_tle(&cell("t", v, ms, stopped), 1000),
                want,
                "{v:?} {ms} {stopped}"
            );
        }
    }

    #[test]
    fn margin_rules_table() {
        // (expected, promised, cells, margins, failure?, warning?, fragile cells)
        type Row = (
            Verdict,
            bool,
            Vec<Cell>,
            Margins,
            bool,
            bool,
            &'static [&'static str],
        );
        let c = |n, v, ms| cell(n, v, ms, false);
        let stopped = |n, ms| cell(n, TimeLimitExceeded, ms, true);
        let table: Vec<Row> = vec![
            // Accepted within limit / 2 everywhere: nothing to say.
            (
                Accepted,
                true,
                vec![c("a", Accepted, 500), c("b", Accepted, 10)],
                KATTIS,
                false,
                false,
                &[],
            ),
            // Over limit / 2 on two tests: a warning naming both, slowest first.
            (
                Accepted,
                true,
                vec![
                    c("a", Accepted, 600),
                    c("b", Accepted, 10),
                    c("c", Accepted, 900),
                ],
                KATTIS,
                false,
                true,
                &["c (900 ms)", "a (600 ms)"],
            ),
            // The package's own margin: 600 ms is within 1000 / 1.5.
            (
                Accepted,
                true,
                vec![c("a", Accepted, 600)],
                Margins {
                    ac_to_time_limit: 1.5,
                    time_limit_to_tle: 1.5,
                },
                false,
                false,
                &[],
            ),
            // A clear TLE on one test keeps the promise, whatever the others did.
            (
                TimeLimitExceeded,
                true,
                vec![
                    c("a", Accepted, 10),
                    c("b", TimeLimitExceeded, 1200),
                    stopped("c", 1500),
                ],
                KATTIS,
                false,
                false,
                &[],
            ),
            // Only TLEs that finished under 1.5x: timing-fragile, a failure.
            (
                TimeLimitExceeded,
                true,
                vec![
                    c("a", Accepted, 10),
                    c("b", TimeLimitExceeded, 1200),
                    c("c", TimeLimitExceeded, 1300),
                ],
                KATTIS,
                true,
                false,
                &["b (1200 ms)", "c (1300 ms)"],
            ),
            // guess: a finish at 1.5x (in a run allowed 4x) is no clear TLE by its 4x.
            (
                TimeLimitExceeded,
                true,
                vec![c("a", TimeLimitExceeded, 1500)],
                GUESS,
                true,
                false,
                &["a (1500 ms)"],
            ),
            // A broken promise is reported as such, not as timing.
            (
                TimeLimitExceeded,
                false,
                vec![c("a", TimeLimitExceeded, 1100)],
                KATTIS,
                false,
                false,
                &[],
            ),
            // Other folders have no timing promise.
            (
                WrongAnswer,
                true,
                vec![c("a", Accepted, 900), c("b", WrongAnswer, 900)],
                KATTIS,
                false,
                false,
                &[],
            ),
        ];
        for (expected, promised, cells, m, fail, warn, fragile) in table {
            let (f, w, cells_out) = check("s", expected, promised, &cells, 1000, &m);
            assert_eq!(f.is_some(), fail, "{expected:?} {cells:?}: {f:?}");
            assert_eq!(w.is_some(), warn, "{expected:?} {cells:?}: {w:?}");
            assert_eq!(cells_out, fragile, "{expected:?}");
            for text in f.iter().chain(&w) {
                assert!(text.contains("timing-fragile"), "{text}");
            }
        }
    }
}
