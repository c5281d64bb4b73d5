//! The standings' input from the store's rows, as pure functions: which submissions rank
//! ([`ranked_entries`]), what one overridden by the jury counts as ([`jury`]), the IOI groups'
//! points of a judging ([`group_scores`]) and the [`Attempt`] a stored entry is ([`attempt`]).
//! The service reads the rows and the judgings' tests; these decide what they mean.

use std::collections::{BTreeMap, HashSet};

use ojd_judge::{Problem, TestResult, Verdict};
use ojd_store::StandingsEntry;

use super::{Attempt, Judged};
use crate::model::{Contest, Participants};

/// Thousandths of a point per scoring group that a judging's tests earned, by the judge's own
/// rule: a group earns its exact points times the smallest share of credit among its tests (all
/// of it for an accepted test, a `cms` checker's share from `partial` for one that earned part,
/// none otherwise; CMS's GroupMin).
pub fn group_scores(
    problem: &Problem,
    tests: &[TestResult],
    partial: &BTreeMap<String, u32>,
) -> Vec<u64> {
    let earned = |name: &str| -> u64 {
        match tests.iter().find(|t| t.name == name) {
            Some(t) if t.verdict == Verdict::Accepted => u64::from(ojd_judge::points::MILLI),
            Some(_) => partial.get(name).copied().map_or(0, u64::from),
            None => 0,
        }
    };
    problem
        .groups
        .iter()
        .map(|g| {
            let least = (problem.tests.iter())
                .filter(|t| g.tests.iter().any(|p| t.name.starts_with(p.as_str())))
                .map(|t| earned(&t.name))
                .min()
                .unwrap_or(0);
            u64::from(g.points_milli) * least / u64::from(ojd_judge::points::MILLI)
        })
        .collect()
}

/// What an attempt overridden by the jury counts as: the jury's verdict, an accepted one with
/// full points, any other with none.
pub fn jury(verdict: Verdict) -> Judged {
    Judged {
        verdict,
        score_milli: if verdict == Verdict::Accepted {
            100_000
        } else {
            0
        },
        groups: Vec::new(),
    }
}

/// The submissions of contest `c` that are ranked, of `subs` (all made through it): the
/// participants' (a listed contest's participants; in an open one, anyone's), never the jury's
/// (an admin's test through the contest) nor an observer's or a jury team's (`[[team]]`
/// categories). The standings, the balloons and the rejudging preview all rank these.
pub fn ranked_entries(c: &Contest, mut subs: Vec<StandingsEntry>) -> Vec<StandingsEntry> {
    let unranked: HashSet<&str> = (c.teams.iter())
        .filter(|t| !c.ranked(&t.user))
        .map(|t| t.user.as_str())
        .collect();
    subs.retain(|s| !s.jury && !unranked.contains(s.user.as_str()));
    if let Participants::Listed(users) = &c.participants {
        let listed: HashSet<&str> = users.iter().map(String::as_str).collect();
        subs.retain(|s| listed.contains(s.user.as_str()));
    }
    subs
}

/// The attempt a stored entry is: the jury's verdict over the judge's, else its current
/// judging's verdict and score with `groups` (the IOI groups' points, empty when the problem
/// has none), else pending.
pub fn attempt(s: &StandingsEntry, groups: Vec<u64>) -> Attempt {
    let result = match (s.overridden, s.verdict, s.judging) {
        (Some(v), _, _) => Some(jury(v)),
        (None, Some(verdict), Some(_)) => Some(Judged {
            verdict,
            score_milli: s.score_milli.unwrap_or(0),
            groups,
        }),
        _ => None,
    };
    Attempt {
        id: s.id,
        user: s.user.clone(),
        problem: s.problem.clone(),
        at_ms: s.queued_at,
        result,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ojd_judge::Group;

    fn test(name: &str, verdict: Verdict) -> TestResult {
        TestResult {
            name: name.into(),
            sample: false,
            verdict,
            cpu_ms: 0,
            wall_ms: 0,
            memory_kib: 0,
            exit: None,
            message: String::new(),
            diff: None,
        }
    }

    /// The judge's own rule, partial credit included (a `cms` checker's share): the groups'
    /// points on a submission's page and in IOI standings add up to the judge's exact score.
    #[test]
    fn group_scores_count_partial_credit_as_the_judge_does() {
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/aplusb");
        let mut p = Problem::load(&dir).expect("the fixture problem");
        p.groups = vec![
            Group::exact("big", 12_500, vec!["01".into()]),
            Group::exact("many", 87_500, vec!["02".into()]),
        ];
        let tests = [
            test("sample-1", Verdict::Accepted),
            test("01-big", Verdict::Accepted),
            test("02-many", Verdict::WrongAnswer),
        ];
        let none = BTreeMap::new();
        assert_eq!(group_scores(&p, &tests, &none), [12_500, 0]);
        // 02-many earned 0.4 of its credit: 87.5 x 0.4 = 35 points.
        let partial = BTreeMap::from([("02-many".to_string(), 400)]);
        assert_eq!(group_scores(&p, &tests, &partial), [12_500, 35_000]);
        assert_eq!(
            group_scores(&p, &tests, &partial).iter().sum::<u64>(),
            47_500,
            "12.5 + 35"
        );
        // A test missing from the results earns nothing.
        assert_eq!(group_scores(&p, &tests[..2], &partial), [12_500, 0]);
    }

    fn entry(
        id: i64,
        user: &str,
        verdict: Option<Verdict>,
        jury_v: Option<Verdict>,
    ) -> StandingsEntry {
        StandingsEntry {
            id,
            user: user.into(),
            problem: "p".into(),
            queued_at: 1000 + id,
            jury: false,
            judging: verdict.map(|_| id * 10),
            verdict,
            score_milli: verdict.map(|v| if v == Verdict::Accepted { 100_000 } else { 0 }),
            overridden: jury_v,
        }
    }

    #[test]
    fn the_jurys_verdict_wins_over_the_judges_and_a_pending_entry_has_no_result() {
        let e = entry(
            1,
            "ann",
            Some(Verdict::WrongAnswer),
            Some(Verdict::Accepted),
        );
        assert_eq!(attempt(&e, vec![5]).result, Some(jury(Verdict::Accepted)));
        let e = entry(2, "ann", Some(Verdict::Accepted), None);
        let judged = attempt(&e, vec![5]).result.expect("judged");
        assert_eq!((judged.score_milli, judged.groups), (100_000, vec![5]));
        assert_eq!(
            attempt(&entry(3, "ann", None, None), Vec::new()).result,
            None
        );
    }
}
