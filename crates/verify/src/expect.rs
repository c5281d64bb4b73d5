//! What a submission's folder promises, and whether its verdicts keep the promise ([`failures`]).
//!
//! The rules follow the Kattis package format, made explicit for every folder:
//!
//! | folder | must get | must never get |
//! |---|---|---|
//! | `accepted` | AC on every test | anything else |
//! | `wrong_answer` | WA on at least one test | anything but AC and WA |
//! | `time_limit_exceeded` | TLE on at least one test | WA |
//! | `memory_limit_exceeded`, `output_limit_exceeded`, `runtime_error` | that verdict on at least one test | WA |
//! | `compile_error` | a compile error | — |
//! | `rejected` | a rejection (WA, TLE, RE, MLE, OLE) on at least one test | a compile error |
//! | `partially_accepted` | part of the points: some groups' (AC on some test without groups) | full points, no points, a compile error |
//! | `time_limit_exceeded_or_accepted` | — | anything but AC and TLE |
//! | `time_limit_exceeded_or_memory_limit_exceeded` | TLE or MLE on at least one test | anything but AC, TLE and MLE |
//!
//! `rejected/` is the 2025-09 Kattis format's folder (and Polygon's `rejected` tag): any
//! verdict is permitted, a rejection is required, a TLE counting as one however near the limit.
//! `partially_accepted/` is problemtools': a scoring submission that earns some of the points
//! and not all. `time_limit_exceeded_or_accepted/` is Polygon's tag of that name (a solution
//! whose speed is not promised, only its answers): the Kattis 2025-09 `permitted: [AC, TLE]`
//! with nothing required. `time_limit_exceeded_or_memory_limit_exceeded/` is Polygon's tag of
//! that name: a solution too slow or too big somewhere, never wrong.
//!
//! A Judge Error is never expected: it is the judge's failure, reported on its own.

use ojd_judge::{Group, Verdict};
use serde::Serialize;

/// What a folder promises besides one verdict.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub(crate) enum Promise {
    /// The verdict of the folder's name (the table's first rows).
    #[default]
    Verdict,
    /// `rejected/`: not accepted on at least one test.
    Rejected,
    /// `partially_accepted/`: some of the points, not all.
    PartiallyAccepted,
    /// `time_limit_exceeded_or_accepted/`: AC or TLE on every test, nothing required.
    AcceptedOrTle,
    /// `time_limit_exceeded_or_memory_limit_exceeded/`: AC, TLE or MLE on every test, a TLE or
    /// an MLE on at least one.
    TleOrMle,
}

impl Promise {
    /// The folder's name under `submissions/`, for the promises that are not one verdict.
    pub(crate) fn folder(self) -> Option<&'static str> {
        match self {
            Promise::Verdict => None,
            Promise::Rejected => Some("rejected"),
            Promise::PartiallyAccepted => Some("partially_accepted"),
            Promise::AcceptedOrTle => Some(ACCEPTED_OR_TLE),
            Promise::TleOrMle => Some(TLE_OR_MLE),
        }
    }
}

/// The folder of [`Promise::AcceptedOrTle`].
pub(crate) const ACCEPTED_OR_TLE: &str = "time_limit_exceeded_or_accepted";

/// The folder of [`Promise::TleOrMle`].
pub(crate) const TLE_OR_MLE: &str = "time_limit_exceeded_or_memory_limit_exceeded";

/// The folder's promise, if `name` is a folder `submissions/` may hold: its verdict (a WA for
/// the promises that are not one verdict: they are judged as a wrong answer is, every test
/// run, no margin checked) and what else it promises.
pub(crate) fn folder_promise(name: &str) -> Option<(Verdict, Promise)> {
    match name {
        "rejected" => Some((Verdict::WrongAnswer, Promise::Rejected)),
        "partially_accepted" => Some((Verdict::WrongAnswer, Promise::PartiallyAccepted)),
        ACCEPTED_OR_TLE => Some((Verdict::WrongAnswer, Promise::AcceptedOrTle)),
        TLE_OR_MLE => Some((Verdict::WrongAnswer, Promise::TleOrMle)),
        _ => folder_verdict(name).map(|v| (v, Promise::Verdict)),
    }
}

/// What a submission expects, as the report shows it: a verdict's code, or the folder.
pub(crate) fn label(expected: Verdict, promise: Promise) -> &'static str {
    promise.folder().unwrap_or(expected.code())
}

/// Why `got` breaks a promise that is not one verdict (see [`Promise`]); [`failures`] for one.
pub(crate) fn promise_failures(
    promise: Promise,
    expected: Verdict,
    compiled: bool,
    got: &[(&str, Verdict)],
    groups: &[Group],
) -> Vec<String> {
    let got: Vec<(&str, Verdict)> = got
        .iter()
        .copied()
        .filter(|(_, v)| *v != Verdict::JudgeError)
        .collect();
    match promise {
        Promise::Verdict => failures(expected, compiled, &got),
        _ if !compiled => vec!["it does not compile".to_string()],
        Promise::Rejected => {
            let rejection = |v: Verdict| !matches!(v, Verdict::Accepted | Verdict::Skipped);
            match got.iter().any(|(_, v)| rejection(*v)) {
                true => vec![],
                false => vec![
                    "expected a rejection (WA, TLE, RE, MLE or OLE) on at least one test, got none"
                        .to_string(),
                ],
            }
        }
        Promise::AcceptedOrTle => {
            let bad: Vec<(&str, Verdict)> = got
                .iter()
                .copied()
                .filter(|(_, v)| !matches!(v, Verdict::Accepted | Verdict::TimeLimitExceeded))
                .collect();
            match bad.is_empty() {
                true => vec![],
                false => vec![format!(
                    "got {} (only AC or TLE permitted)",
                    by_verdict(&bad)
                )],
            }
        }
        Promise::TleOrMle => {
            let limit =
                |v: Verdict| matches!(v, Verdict::TimeLimitExceeded | Verdict::MemoryLimitExceeded);
            let bad: Vec<(&str, Verdict)> = got
                .iter()
                .copied()
                .filter(|(_, v)| *v != Verdict::Accepted && !limit(*v))
                .collect();
            if !bad.is_empty() {
                vec![format!(
                    "got {} (only AC, TLE or MLE permitted)",
                    by_verdict(&bad)
                )]
            } else if !got.iter().any(|(_, v)| limit(*v)) {
                vec!["expected TLE or MLE on at least one test, got neither".to_string()]
            } else {
                vec![]
            }
        }
        Promise::PartiallyAccepted => {
            let ac = |name: &str| {
                got.iter()
                    .find(|(t, _)| *t == name)
                    .is_some_and(|(_, v)| *v == Verdict::Accepted)
            };
            let scored: Vec<&Group> = groups.iter().filter(|g| g.points_milli > 0).collect();
            let (earned, all) = if scored.is_empty() {
                let n = got.iter().filter(|(t, _)| ac(t)).count();
                (n, got.len())
            } else {
                let holds = |g: &Group, t: &str| g.tests.iter().any(|p| t.starts_with(p.as_str()));
                let earned = scored
                    .iter()
                    .filter(|g| got.iter().all(|(t, _)| !holds(g, t) || ac(t)))
                    .count();
                (earned, scored.len())
            };
            let what = if scored.is_empty() { "test" } else { "group" };
            if earned == 0 {
                vec![format!(
                    "expected part of the points, got none (accepted on no {what})"
                )]
            } else if earned == all {
                vec![format!(
                    "expected part of the points, got all of them (accepted on every {what})"
                )]
            } else {
                vec![]
            }
        }
    }
}

/// Folders that may appear under `submissions/`, by the verdict they expect.
pub(crate) const FOLDERS: [Verdict; 7] = [
    Verdict::Accepted,
    Verdict::WrongAnswer,
    Verdict::TimeLimitExceeded,
    Verdict::MemoryLimitExceeded,
    Verdict::OutputLimitExceeded,
    Verdict::RuntimeError,
    Verdict::CompileError,
];

/// The folder's expected verdict, if `name` is a folder `submissions/` may hold.
pub(crate) fn folder_verdict(name: &str) -> Option<Verdict> {
    Verdict::from_folder(name).filter(|v| FOLDERS.contains(v))
}

/// The verdicts as the package's rules count them: under Kattis rules a memory overrun is a
/// run-time error (problemtools has no MLE), so an MLE meets a `run_time_error/` promise.
pub(crate) fn as_rules<'a>(
    rules: ojd_judge::VerdictRules,
    got: &[(&'a str, Verdict)],
) -> Vec<(&'a str, Verdict)> {
    got.iter()
        .map(|&(t, v)| match (rules, v) {
            (ojd_judge::VerdictRules::Kattis, Verdict::MemoryLimitExceeded) => {
                (t, Verdict::RuntimeError)
            }
            _ => (t, v),
        })
        .collect()
}

/// The verdicts the promise of a `wrong_answer/`, `runtime_error/`, `memory_limit_exceeded/` or
/// `output_limit_exceeded/` submission is judged by: a TLE at the limit whose run with the
/// slack (the package's `time_limit_to_tle` times the limit, at least 1.5) finished counts as
/// the verdict it finished with, as problemtools accepts a result "with extra time" at its high
/// limit. Such a verdict hangs on the limit and is reported as sensitive to it anyway. Accepted
/// and `time_limit_exceeded/` promises are the margins' business ([`super::margins`]): for them
/// a TLE stays one.
pub(crate) fn with_extra_time<'a>(
    expected: Verdict,
    got: &[(&'a str, Verdict, Option<Verdict>)],
) -> Vec<(&'a str, Verdict)> {
    let extra = !matches!(
        expected,
        Verdict::Accepted | Verdict::TimeLimitExceeded | Verdict::CompileError
    );
    got.iter()
        .map(|&(t, v, finished)| match (v, finished) {
            (Verdict::TimeLimitExceeded, Some(f)) if extra => (t, f),
            _ => (t, v),
        })
        .collect()
}

/// Why `got` (test name, verdict per test) breaks the promise of `expected`; empty when kept.
pub(crate) fn failures(expected: Verdict, compiled: bool, got: &[(&str, Verdict)]) -> Vec<String> {
    if !compiled {
        return match expected {
            Verdict::CompileError => vec![],
            _ => vec!["it does not compile".to_string()],
        };
    }
    let mut out = Vec::new();
    let forbidden: &dyn Fn(Verdict) -> bool = match expected {
        Verdict::CompileError => {
            return vec!["expected a compile error, but it compiles".to_string()]
        }
        Verdict::Accepted => &|v| v != Verdict::Accepted,
        Verdict::WrongAnswer => &|v| !matches!(v, Verdict::Accepted | Verdict::WrongAnswer),
        _ => &|v| {
            matches!(
                v,
                Verdict::WrongAnswer | Verdict::CompileError | Verdict::Skipped
            )
        },
    };
    let bad: Vec<(&str, Verdict)> = got
        .iter()
        .copied()
        .filter(|(_, v)| forbidden(*v) && *v != Verdict::JudgeError)
        .collect();
    if !bad.is_empty() {
        out.push(format!("got {}", by_verdict(&bad)));
    }
    if expected != Verdict::Accepted && !got.iter().any(|(_, v)| *v == expected) {
        out.push(format!(
            "expected {} on at least one test, got none",
            expected.code()
        ));
    }
    out
}

/// "WA on 03, 05; TLE on 07", verdicts in order of first appearance.
fn by_verdict(cells: &[(&str, Verdict)]) -> String {
    let mut groups: Vec<(Verdict, Vec<&str>)> = Vec::new();
    for (test, v) in cells {
        match groups.iter_mut().find(|(g, _)| g == v) {
            Some((_, tests)) => tests.push(test),
            None => groups.push((*v, vec![test])),
        }
    }
    let list = |tests: &[&str]| match tests.len() {
        n if n > 6 => format!("{} and {} more", tests[..5].join(", "), n - 5),
        _ => tests.join(", "),
    };
    groups
        .iter()
        .map(|(v, tests)| format!("{} on {}", v.code(), list(tests)))
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use Verdict::*;

    #[test]
    fn under_kattis_rules_a_memory_overrun_is_a_run_time_error() {
        use ojd_judge::VerdictRules;
        let got = [("t0", Accepted), ("t1", MemoryLimitExceeded)];
        // ojd's rules: an RE-expected submission that only runs out of memory breaks its promise.
        assert_eq!(
            failures(RuntimeError, true, &as_rules(VerdictRules::Ojd, &got)),
            vec!["expected RE on at least one test, got none".to_string()]
        );
        // Kattis's: it keeps it, and an MLE-expected one (not a Kattis folder) would not.
        let kattis = as_rules(VerdictRules::Kattis, &got);
        assert!(failures(RuntimeError, true, &kattis).is_empty());
        assert!(!failures(MemoryLimitExceeded, true, &kattis).is_empty());
        // A wrong answer stays one either way.
        let wa = [("t0", WrongAnswer), ("t1", MemoryLimitExceeded)];
        assert!(!failures(RuntimeError, true, &as_rules(VerdictRules::Kattis, &wa)).is_empty());
    }

    #[test]
    fn rejected_needs_a_rejection_and_partially_accepted_part_of_the_points() {
        let groups = [
            Group::exact("g1", 30_000, vec!["g1-".into()]),
            Group::exact("g2", 70_000, vec!["g2-".into()]),
        ];
        let check = |p: Promise, got: &[(&str, Verdict)], groups: &[Group]| {
            promise_failures(p, WrongAnswer, true, got, groups)
        };
        let all_ac = [("g1-a", Accepted), ("g2-a", Accepted)];
        let half = [("g1-a", Accepted), ("g2-a", TimeLimitExceeded)];
        let none = [("g1-a", WrongAnswer), ("g2-a", TimeLimitExceeded)];
        assert!(check(Promise::Rejected, &half, &[]).is_empty());
        assert!(check(Promise::Rejected, &[("g1-a", MemoryLimitExceeded)], &[]).is_empty());
        assert!(check(Promise::Rejected, &all_ac, &[])[0].starts_with("expected a rejection"));
        // A judge error is the judge's: it neither keeps nor breaks a promise.
        assert!(!check(
            Promise::Rejected,
            &[("g1-a", Accepted), ("g2-a", JudgeError)],
            &[]
        )
        .is_empty());
        assert!(check(Promise::PartiallyAccepted, &half, &groups).is_empty());
        assert!(check(Promise::PartiallyAccepted, &all_ac, &groups)[0].contains("got all of them"));
        assert!(check(Promise::PartiallyAccepted, &none, &groups)[0].contains("got none"));
        // Without groups, tests count.
        assert!(check(Promise::PartiallyAccepted, &half, &[]).is_empty());
        assert!(check(Promise::PartiallyAccepted, &all_ac, &[])[0].contains("every test"));
        assert_eq!(
            promise_failures(Promise::Rejected, WrongAnswer, false, &[], &[]),
            ["it does not compile"]
        );
        assert_eq!(
            folder_promise("rejected"),
            Some((WrongAnswer, Promise::Rejected))
        );
        assert_eq!(
            folder_promise("accepted"),
            Some((Accepted, Promise::Verdict))
        );
        assert_eq!(
            label(WrongAnswer, Promise::PartiallyAccepted),
            "partially_accepted"
        );
        // Polygon's time-limit-exceeded-or-accepted: AC or TLE anywhere, nothing required.
        assert_eq!(
            folder_promise("time_limit_exceeded_or_accepted"),
            Some((WrongAnswer, Promise::AcceptedOrTle))
        );
        for ok in [&all_ac[..], &half, &[("g1-a", TimeLimitExceeded)]] {
            assert!(
                check(Promise::AcceptedOrTle, ok, &groups).is_empty(),
                "{ok:?}"
            );
        }
        assert_eq!(
            check(Promise::AcceptedOrTle, &none, &groups),
            ["got WA on g1-a (only AC or TLE permitted)"]
        );
        assert_eq!(
            promise_failures(Promise::AcceptedOrTle, WrongAnswer, false, &[], &[]),
            ["it does not compile"]
        );
        // Polygon's time-limit-exceeded-or-memory-limit-exceeded: too slow or too big on some
        // test, never anything else.
        assert_eq!(
            folder_promise("time_limit_exceeded_or_memory_limit_exceeded"),
            Some((WrongAnswer, Promise::TleOrMle))
        );
        for ok in [
            &[("g1-a", Accepted), ("g2-a", TimeLimitExceeded)][..],
            &[("g1-a", MemoryLimitExceeded)],
            &[("g1-a", TimeLimitExceeded), ("g2-a", MemoryLimitExceeded)],
        ] {
            assert!(check(Promise::TleOrMle, ok, &groups).is_empty(), "{ok:?}");
        }
        assert_eq!(
            check(Promise::TleOrMle, &all_ac, &groups),
            ["expected TLE or MLE on at least one test, got neither"]
        );
        assert_eq!(
            check(
                Promise::TleOrMle,
                &[("g1-a", RuntimeError), ("g2-a", TimeLimitExceeded)],
                &groups
            ),
            ["got RE on g1-a (only AC, TLE or MLE permitted)"]
        );
    }

    #[test]
    fn promises_table() {
        let table: &[(Verdict, bool, &[Verdict], &[&str])] = &[
            (Accepted, true, &[Accepted, Accepted], &[]),
            (Accepted, true, &[Accepted, WrongAnswer], &["got WA on t1"]),
            (Accepted, false, &[], &["it does not compile"]),
            (WrongAnswer, true, &[Accepted, WrongAnswer], &[]),
            (
                WrongAnswer,
                true,
                &[Accepted, Accepted],
                &["expected WA on at least one test, got none"],
            ),
            (
                WrongAnswer,
                true,
                &[TimeLimitExceeded, WrongAnswer],
                &["got TLE on t0"],
            ),
            (TimeLimitExceeded, true, &[Accepted, TimeLimitExceeded], &[]),
            (
                TimeLimitExceeded,
                true,
                &[RuntimeError, TimeLimitExceeded],
                &[],
            ),
            (
                TimeLimitExceeded,
                true,
                &[WrongAnswer, TimeLimitExceeded],
                &["got WA on t0"],
            ),
            (
                TimeLimitExceeded,
                true,
                &[Accepted, Accepted],
                &["expected TLE on at least one test, got none"],
            ),
            (RuntimeError, true, &[RuntimeError, Accepted], &[]),
            (
                MemoryLimitExceeded,
                true,
                &[Accepted, RuntimeError],
                &["expected MLE on at least one test, got none"],
            ),
            (CompileError, false, &[], &[]),
            (
                CompileError,
                true,
                &[Accepted],
                &["expected a compile error, but it compiles"],
            ),
        ];
        for (expected, compiled, verdicts, want) in table {
            let names = ["t0", "t1"];
            let got: Vec<(&str, Verdict)> = verdicts
                .iter()
                .enumerate()
                .map(|(i, v)| (names[i], *v))
                .collect();
            assert_eq!(
                failures(*expected, *compiled, &got),
                *want,
                "{expected:?} {verdicts:?}"
            );
        }
    }

    #[test]
    fn a_finish_with_extra_time_counts_for_answer_folders_only() {
        let got = [
            ("t0", Accepted, None),
            ("t1", TimeLimitExceeded, Some(WrongAnswer)),
            ("t2", TimeLimitExceeded, None),
        ];
        // guess_tle.cc under wrong_answer/: WA within the high limit keeps the promise.
        let wa = with_extra_time(WrongAnswer, &got);
        assert_eq!(
            wa,
            [
                ("t0", Accepted),
                ("t1", WrongAnswer),
                ("t2", TimeLimitExceeded)
            ]
        );
        assert_eq!(
            failures(WrongAnswer, true, &wa),
            vec!["got TLE on t2".to_string()]
        );
        let only = [("t0", TimeLimitExceeded, Some(WrongAnswer))];
        assert!(failures(WrongAnswer, true, &with_extra_time(WrongAnswer, &only)).is_empty());
        // Without the extra time it would be a TLE, forbidden for a WA submission.
        assert!(!failures(WrongAnswer, true, &[("t0", TimeLimitExceeded)]).is_empty());
        // Accepted and TLE submissions keep the TLE.
        for e in [Accepted, TimeLimitExceeded] {
            let v = with_extra_time(e, &only);
            assert_eq!(v, [("t0", TimeLimitExceeded)], "{e:?}");
        }
        let re = [("t0", TimeLimitExceeded, Some(RuntimeError))];
        assert!(failures(RuntimeError, true, &with_extra_time(RuntimeError, &re)).is_empty());
    }

    #[test]
    fn folders() {
        assert_eq!(folder_verdict("run_time_error"), Some(RuntimeError));
        assert_eq!(folder_verdict("judge_error"), None);
        assert_eq!(folder_verdict("partially_accepted"), None);
        let many: Vec<(&str, Verdict)> = ["a", "b", "c", "d", "e", "f", "g"]
            .iter()
            .map(|t| (*t, WrongAnswer))
            .collect();
        assert_eq!(by_verdict(&many), "WA on a, b, c, d, e and 2 more");
        assert_eq!(
            by_verdict(&[
                ("1", WrongAnswer),
                ("2", TimeLimitExceeded),
                ("3", WrongAnswer)
            ]),
            "WA on 1, 3; TLE on 2"
        );
    }
}
