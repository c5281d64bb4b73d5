//! What a director is warned of before finalizing a contest ([`Checklist`]): judge errors,
//! submissions still waiting for a verdict, questions nobody answered and rejudgings neither
//! applied nor cancelled. Each is something the final results would silently carry (a judge
//! error ranked as a wrong try, a pending run never counted, a rejudging that can no longer be
//! applied once the results are final), so finalizing needs a confirmation naming every check
//! that found something ([`Checklist::unconfirmed`]).
//!
//! Pure: the caller reads the rows from the store.

use std::collections::BTreeSet;

use ojd_judge::Verdict;
use ojd_store::{Clarification, StandingsEntry};

/// One check of the list: its key (what a confirmation names), what it is in words, and what
/// it found (submission, question or rejudging ids).
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize)]
pub struct Check {
    /// Its key, one of [`KEYS`]: what a confirmation names.
    pub key: &'static str,
    /// What it checks, in words.
    pub what: &'static str,
    /// `what` of one ("question of a team nobody answered"): a count of one reads "1 question".
    pub one: &'static str,
    /// What the ids are: "submission", "question" or "rejudging".
    pub kind: &'static str,
    /// What it found (empty: nothing to confirm).
    pub ids: Vec<i64>,
}

/// The checks of a contest about to be finalized.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Checklist {
    /// Ranked submissions whose current verdict is a judge error (and no jury verdict).
    pub judge_errors: Vec<i64>,
    /// Ranked submissions without a verdict yet (and no jury verdict).
    pub pending: Vec<i64>,
    /// Questions of teams without an answer.
    pub unanswered: Vec<i64>,
    /// Open rejudgings that cover a submission of the contest.
    pub rejudgings: Vec<i64>,
}

/// The keys a confirmation names, in the order the list shows them.
pub const KEYS: [&str; 4] = ["judge_errors", "pending", "unanswered", "rejudgings"];

impl Checklist {
    /// The checklist from the contest's standings input, its clarifications and the open
    /// rejudgings with the submissions each covers.
    pub fn new(
        entries: &[StandingsEntry],
        clarifications: &[Clarification],
        open_rejudgings: &[(i64, Vec<i64>)],
    ) -> Checklist {
        let ranked = entries.iter().filter(|e| !e.jury && e.overridden.is_none());
        let judge_errors = (ranked.clone())
            .filter(|e| e.verdict == Some(Verdict::JudgeError))
            .map(|e| e.id)
            .collect();
        let pending = ranked
            .filter(|e| e.judging.is_none() || e.verdict.is_none())
            .map(|e| e.id)
            .collect();
        let unanswered = clarifications
            .iter()
            .filter(|c| c.user.is_some() && c.answer.is_none())
            .map(|c| c.id)
            .collect();
        let ours: BTreeSet<i64> = entries.iter().map(|e| e.id).collect();
        let rejudgings = open_rejudgings
            .iter()
            .filter(|(_, subs)| subs.iter().any(|s| ours.contains(s)))
            .map(|(id, _)| *id)
            .collect();
        Checklist {
            judge_errors,
            pending,
            unanswered,
            rejudgings,
        }
    }

    /// Every check, found something or not, in the order of [`KEYS`].
    pub fn checks(&self) -> Vec<Check> {
        let check = |key, (one, what), kind, ids: &Vec<i64>| Check {
            key,
            what,
            one,
            kind,
            ids: ids.clone(),
        };
        vec![
            check(
                "judge_errors",
                (
                    "judge error (ranked as it stands unless rejudged or overridden)",
                    "judge errors (ranked as they stand unless rejudged or overridden)",
                ),
                "submission",
                &self.judge_errors,
            ),
            check(
                "pending",
                (
                    "submission still waiting for a verdict (never counted once final)",
                    "submissions still waiting for a verdict (never counted once final)",
                ),
                "submission",
                &self.pending,
            ),
            check(
                "unanswered",
                (
                    "question of a team nobody answered",
                    "questions of teams nobody answered",
                ),
                "question",
                &self.unanswered,
            ),
            check(
                "rejudgings",
                (
                    "rejudging neither applied nor cancelled (no longer applicable once final)",
                    "rejudgings neither applied nor cancelled (no longer applicable once final)",
                ),
                "rejudging",
                &self.rejudgings,
            ),
        ]
    }

    /// The checks that found something and are not among `confirmed` (their keys).
    pub fn unconfirmed(&self, confirmed: &[String]) -> Vec<Check> {
        self.checks()
            .into_iter()
            .filter(|c| !c.ids.is_empty() && !confirmed.iter().any(|k| k == c.key))
            .collect()
    }
}

impl Check {
    /// "2 judge errors (…)", "1 question of a team nobody answered".
    pub fn counted(&self) -> String {
        let n = self.ids.len();
        format!("{n} {}", if n == 1 { self.one } else { self.what })
    }

    /// "2 judge errors (…): submissions 4, 9".
    pub fn describe(&self) -> String {
        let ids: Vec<String> = self.ids.iter().map(i64::to_string).collect();
        let plural = if self.ids.len() == 1 { "" } else { "s" };
        format!(
            "{}: {}{plural} {} (confirm `{}`)",
            self.counted(),
            self.kind,
            ids.join(", "),
            self.key
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(id: i64, verdict: Option<Verdict>) -> StandingsEntry {
        StandingsEntry {
            id,
            user: "ann".into(),
            problem: "p".into(),
            queued_at: 0,
            jury: false,
            judging: verdict.map(|_| id * 10),
            verdict,
            score_milli: None,
            overridden: None,
        }
    }

    fn question(id: i64, user: Option<&str>, answer: Option<&str>) -> Clarification {
        Clarification {
            id,
            contest: "c".into(),
            user: user.map(str::to_string),
            problem: None,
            text: "?".into(),
            answer: answer.map(str::to_string),
            public: false,
            at: 0,
            answered_at: None,
            answered_by: None,
            category: "general".into(),
            to_user: None,
            to_more: Vec::new(),
            to_groups: Vec::new(),
            claimed_by: None,
            claimed_at: None,
        }
    }

    #[test]
    fn each_check_finds_only_what_would_change_the_final_results() {
        let mut jury = entry(5, None);
        jury.jury = true;
        let mut overridden = entry(6, Some(Verdict::JudgeError));
        overridden.overridden = Some(Verdict::Accepted);
        let entries = [
            entry(1, Some(Verdict::Accepted)),
            entry(2, Some(Verdict::JudgeError)),
            entry(3, None),
            entry(4, Some(Verdict::WrongAnswer)),
            jury,
            overridden,
        ];
        let clars = [
            question(1, Some("ann"), None),
            question(2, Some("bob"), Some("yes")),
            question(3, None, None), // an announcement: nothing to answer
        ];
        let open = [(7, vec![4, 100]), (8, vec![100, 101])];
        let list = Checklist::new(&entries, &clars, &open);
        assert_eq!(list.judge_errors, vec![2]);
        assert_eq!(list.pending, vec![3]);
        assert_eq!(list.unanswered, vec![1]);
        assert_eq!(list.rejudgings, vec![7]);

        let keys = |cs: Vec<Check>| cs.into_iter().map(|c| c.key).collect::<Vec<_>>();
        assert_eq!(keys(list.unconfirmed(&[])), KEYS.to_vec());
        let some = ["pending".to_string(), "rejudgings".to_string()];
        assert_eq!(
            keys(list.unconfirmed(&some)),
            vec!["judge_errors", "unanswered"]
        );
        let d = list.checks()[0].describe();
        assert!(
            d.starts_with("1 judge error (ranked as it stands") && d.contains("submission 2"),
            "{d}"
        );
        // One of a kind is said in the singular, more in the plural.
        let q = &list.checks()[2];
        assert_eq!(q.counted(), "1 question of a team nobody answered");
        let two = Checklist::new(
            &entries,
            &[clars[0].clone(), question(4, Some("cy"), None)],
            &[],
        );
        assert_eq!(
            two.checks()[2].counted(),
            "2 questions of teams nobody answered"
        );
        // Nothing found: nothing to confirm.
        assert!(Checklist::new(&entries[..1], &clars[1..], &[])
            .unconfirmed(&[])
            .is_empty());
    }
}
