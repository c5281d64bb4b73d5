//! The verdict diff of a rejudging: what would change if its new judgings became current.
//!
//! Pure functions over (before, after) pairs: [`diff`] gives the per-submission table (verdict,
//! score and max CPU time before → after), the counts per transition ("AC→WA 3") and the
//! progress; [`test_changes`] the per-test changes of one submission; [`standings_effect`] who
//! moves on the standings. The daemon feeds them from the store; `ojd` prints them the same way.

use std::collections::BTreeMap;

use serde::Serialize;

use super::standings::Standings;
use ojd_judge::{TestResult, Verdict};

/// What one judging found, in brief.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Outcome {
    /// The judging's verdict.
    pub verdict: Verdict,
    /// Whole points (`score_milli` rounded down).
    pub score: u32,
    /// The exact score in thousandths of a point.
    pub score_milli: u64,
    /// The CPU time of its slowest test, in ms.
    pub max_cpu_ms: u64,
}

/// One submission of a rejudging: its current judging and the rejudging's new one.
#[derive(Clone, Debug, PartialEq)]
pub struct Pair {
    /// The submission's id.
    pub submission: i64,
    /// Who submitted it.
    pub user: String,
    /// Its problem's id.
    pub problem: String,
    /// The current judging (`None` if it was never judged).
    pub before: Option<Outcome>,
    /// The new judging (`None` while it waits).
    pub after: Option<Outcome>,
}

/// A row of the diff table.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Change {
    /// The submission's id.
    pub submission: i64,
    /// Who submitted it.
    pub user: String,
    /// Its problem's id.
    pub problem: String,
    /// The current judging (`None` if it was never judged).
    pub before: Option<Outcome>,
    /// The new judging (`None` while it waits).
    pub after: Option<Outcome>,
    /// The verdict or the score differs (time alone does not count: it is noise).
    pub changed: bool,
}

/// How many submissions went from one verdict to another.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Transition {
    /// The verdict before (`None`: never judged).
    pub from: Option<Verdict>,
    /// The verdict after.
    pub to: Verdict,
    /// How many submissions made this change.
    pub count: u32,
}

/// The whole diff of a rejudging.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Diff {
    /// Submissions in the rejudging.
    pub total: u32,
    /// Of those, judged again so far.
    pub judged: u32,
    /// Judged again with a different verdict or score.
    pub changed: u32,
    /// Every judged submission, changed ones first, then by id.
    pub changes: Vec<Change>,
    /// Counts per (before → after) verdict, changed transitions first, larger counts first.
    pub summary: Vec<Transition>,
}

/// The diff of a rejudging's pairs.
pub fn diff(pairs: &[Pair]) -> Diff {
    let mut changes: Vec<Change> = pairs
        .iter()
        .filter(|p| p.after.is_some())
        .map(|p| Change {
            submission: p.submission,
            user: p.user.clone(),
            problem: p.problem.clone(),
            before: p.before.clone(),
            after: p.after.clone(),
            changed: match (&p.before, &p.after) {
                (Some(b), Some(a)) => b.verdict != a.verdict || b.score_milli != a.score_milli,
                _ => true,
            },
        })
        .collect();
    changes.sort_by_key(|c| (!c.changed, c.submission));
    let mut counts: BTreeMap<(Option<Verdict>, Verdict), u32> = BTreeMap::new();
    for c in &changes {
        if let Some(a) = &c.after {
            *counts
                .entry((c.before.as_ref().map(|b| b.verdict), a.verdict))
                .or_default() += 1;
        }
    }
    let mut summary: Vec<Transition> = counts
        .into_iter()
        .map(|((from, to), count)| Transition { from, to, count })
        .collect();
    summary.sort_by_key(|t| (t.from == Some(t.to), std::cmp::Reverse(t.count)));
    Diff {
        total: pairs.len() as u32,
        judged: changes.len() as u32,
        changed: changes.iter().filter(|c| c.changed).count() as u32,
        changes,
        summary,
    }
}

impl Transition {
    /// "AC→WA", with "—" for never judged.
    pub fn label(&self) -> String {
        let from = self.from.map_or("—", Verdict::code);
        format!("{from}→{}", self.to.code())
    }
}

/// One test's result before and after.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TestChange {
    /// The test's name.
    pub name: String,
    /// Its result in the current judging (`None`: that judging did not run it).
    pub before: Option<TestBrief>,
    /// Its result in the new judging (`None`: the new judging did not run it).
    pub after: Option<TestBrief>,
    /// The verdict differs, or only one judging ran the test.
    pub changed: bool,
}

/// One test's result, in brief.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct TestBrief {
    /// The test's verdict.
    pub verdict: Verdict,
    /// Its CPU time, in ms.
    pub cpu_ms: u64,
    /// The checker's or the judge's message.
    pub message: String,
}

/// The per-test changes of one submission, in the order of the new judging (tests that only
/// the old one had come last).
pub fn test_changes(before: &[TestResult], after: &[TestResult]) -> Vec<TestChange> {
    let brief = |t: &TestResult| TestBrief {
        verdict: t.verdict,
        cpu_ms: t.cpu_ms,
        message: t.message.clone(),
    };
    let mut out: Vec<TestChange> = after
        .iter()
        .map(|a| {
            let b = before.iter().find(|b| b.name == a.name);
            TestChange {
                name: a.name.clone(),
                changed: b.is_none_or(|b| b.verdict != a.verdict),
                before: b.map(brief),
                after: Some(brief(a)),
            }
        })
        .collect();
    for b in before {
        if !after.iter().any(|a| a.name == b.name) {
            out.push(TestChange {
                name: b.name.clone(),
                before: Some(brief(b)),
                after: None,
                changed: true,
            });
        }
    }
    out
}

/// A row of the standings that changes.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Move {
    /// The user (the team's account).
    pub user: String,
    /// The team's display name (`[[team]]`), as the standings show it; `None`: the user name.
    pub name: Option<String>,
    /// The rank with the current judgings (`None`: no row).
    pub rank_before: Option<u32>,
    /// The rank with the new judgings (`None`: no row).
    pub rank_after: Option<u32>,
    /// ICPC: solved and penalty; IOI: score in `solved_*` is 0 and `score_*` holds it.
    pub solved_before: u32,
    /// ICPC: problems solved with the new judgings.
    pub solved_after: u32,
    /// ICPC: penalty minutes with the current judgings.
    pub penalty_before: u64,
    /// ICPC: penalty minutes with the new judgings.
    pub penalty_after: u64,
    /// IOI: whole points with the current judgings.
    pub score_before: u32,
    /// IOI: whole points with the new judgings.
    pub score_after: u32,
    /// IOI: the exact scores in thousandths of a point.
    pub score_milli_before: u64,
    /// IOI: the exact score with the new judgings, in thousandths.
    pub score_milli_after: u64,
}

/// Who moves when `after` replaces `before`: every user whose rank, solved count, penalty or
/// score differs, best new rank first.
pub fn standings_effect(before: &Standings, after: &Standings) -> Vec<Move> {
    let mut users: Vec<&str> = before
        .rows
        .iter()
        .chain(&after.rows)
        .map(|r| r.user.as_str())
        .collect();
    users.sort_unstable();
    users.dedup();
    let mut moves: Vec<Move> = users
        .into_iter()
        .filter_map(|u| {
            let b = before.row(u);
            let a = after.row(u);
            let m = Move {
                user: u.to_string(),
                name: a.or(b).and_then(|r| r.name.clone()),
                rank_before: b.map(|r| r.rank),
                rank_after: a.map(|r| r.rank),
                solved_before: b.map_or(0, |r| r.solved),
                solved_after: a.map_or(0, |r| r.solved),
                penalty_before: b.map_or(0, |r| r.penalty),
                penalty_after: a.map_or(0, |r| r.penalty),
                score_before: b.map_or(0, |r| r.score),
                score_after: a.map_or(0, |r| r.score),
                score_milli_before: b.map_or(0, |r| r.score_milli),
                score_milli_after: a.map_or(0, |r| r.score_milli),
            };
            let same = m.rank_before == m.rank_after
                && m.solved_before == m.solved_after
                && m.penalty_before == m.penalty_after
                && m.score_milli_before == m.score_milli_after;
            (!same).then_some(m)
        })
        .collect();
    moves.sort_by_key(|m| (m.rank_after.unwrap_or(u32::MAX), m.user.clone()));
    moves
}

/// The diff as a plain-text table (the CLI, logs and the report of a real rejudging).
pub fn render(diff: &Diff) -> String {
    let cell = |o: &Option<Outcome>| match o {
        Some(o) => format!(
            "{:<3} {:>3} {:>5}ms",
            o.verdict.code(),
            super::standings::points_text(o.score_milli),
            o.max_cpu_ms
        ),
        None => format!("{:<3} {:>3} {:>7}", "—", "", ""),
    };
    let mut out = format!(
        "{} of {} judged again, {} changed\n",
        diff.judged, diff.total, diff.changed
    );
    out.push_str("transitions: ");
    let t: Vec<String> = diff
        .summary
        .iter()
        .map(|t| format!("{} {}", t.label(), t.count))
        .collect();
    out.push_str(&t.join(", "));
    out.push('\n');
    out.push_str(&format!(
        "{:>6}  {:<10} {:<12} {:<17} {:<17} \n",
        "id", "user", "problem", "before", "after"
    ));
    for c in &diff.changes {
        out.push_str(&format!(
            "{:>6}  {:<10} {:<12} {:<17} {:<17} {}\n",
            c.submission,
            c.user,
            c.problem,
            cell(&c.before),
            cell(&c.after),
            if c.changed { "changed" } else { "" }
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use Verdict::*;

    fn o(verdict: Verdict, score: u32, ms: u64) -> Option<Outcome> {
        Some(Outcome {
            verdict,
            score,
            score_milli: u64::from(score) * 1000,
            max_cpu_ms: ms,
        })
    }

    fn pair(id: i64, before: Option<Outcome>, after: Option<Outcome>) -> Pair {
        Pair {
            submission: id,
            user: format!("u{id}"),
            problem: "p".into(),
            before,
            after,
        }
    }

    #[test]
    fn transitions_are_counted_and_changes_come_first() {
        let pairs = [
            pair(1, o(Accepted, 100, 10), o(WrongAnswer, 50, 12)),
            pair(2, o(Accepted, 100, 10), o(Accepted, 100, 40)),
            pair(3, o(WrongAnswer, 0, 5), o(Accepted, 100, 6)),
            pair(4, o(Accepted, 100, 10), o(WrongAnswer, 0, 9)),
            pair(5, o(Accepted, 100, 10), None),
            pair(6, None, o(CompileError, 0, 0)),
            pair(7, o(WrongAnswer, 30, 5), o(WrongAnswer, 60, 5)),
        ];
        let d = diff(&pairs);
        assert_eq!((d.total, d.judged, d.changed), (7, 6, 5));
        let order: Vec<i64> = d.changes.iter().map(|c| c.submission).collect();
        assert_eq!(order, [1, 3, 4, 6, 7, 2]);
        let summary: Vec<String> = d
            .summary
            .iter()
            .map(|t| format!("{} {}", t.label(), t.count))
            .collect();
        assert_eq!(
            summary,
            ["AC→WA 2", "—→CE 1", "WA→AC 1", "AC→AC 1", "WA→WA 1"]
        );
        let text = render(&d);
        assert!(
            text.starts_with("6 of 7 judged again, 5 changed\n"),
            "{text}"
        );
        assert!(text.contains("AC→WA 2"), "{text}");
    }

    fn t(name: &str, verdict: Verdict) -> TestResult {
        TestResult {
            name: name.into(),
            sample: false,
            verdict,
            cpu_ms: 1,
            wall_ms: 1,
            memory_kib: 1,
            exit: None,
            message: String::new(),
            diff: None,
        }
    }

    #[test]
    fn per_test_changes() {
        let before = [t("1", Accepted), t("2", Accepted), t("3", WrongAnswer)];
        let after = [t("1", Accepted), t("2", WrongAnswer), t("4", Accepted)];
        let changes: Vec<(String, bool)> = test_changes(&before, &after)
            .into_iter()
            .map(|c| (c.name, c.changed))
            .collect();
        assert_eq!(
            changes,
            [
                ("1".to_string(), false),
                ("2".to_string(), true),
                ("4".to_string(), true),
                ("3".to_string(), true)
            ]
        );
    }
}
