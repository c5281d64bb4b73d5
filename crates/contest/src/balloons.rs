//! The balloon queue: the first accepted submission of each team on each problem, for the
//! runners who bring a balloon of the problem's colour to the team's desk.
//!
//! The jury's view: the freeze hides nothing here (runners must see every solve). It is
//! computed from the ranked submissions' attempts and their current verdicts (overrides count;
//! the jury's and ignored submissions never get a balloon), like the standings; only
//! submissions inside the contest window count. The first solve of each problem in the contest
//! is marked. A delivered mark is kept by contest, team and problem, so a rejudging that moves
//! the first AC keeps it.

use std::collections::BTreeMap;

use serde::Serialize;

use crate::model::Contest;
use crate::standings::Attempt;
use ojd_judge::Verdict;
use ojd_store::BalloonDone;

/// One balloon: a team's first accepted submission of a problem.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Balloon {
    /// The accepted submission's id.
    pub submission: i64,
    /// The team's user name.
    pub user: String,
    /// The team's display name (`[[team]]`), else the user name.
    pub team: String,
    /// The team's affiliation (`[[team]]`), if it has one.
    pub affiliation: Option<String>,
    /// The problem's label in the contest.
    pub label: String,
    /// The problem's id.
    pub problem: String,
    /// The balloon's colour: the problem's `color` in `contest.toml` (a CSS colour or `#rrggbb`),
    /// if it has one.
    pub color: Option<String>,
    /// When the accepted submission was made, Unix ms.
    pub at: i64,
    /// The first solve of this problem in the contest.
    pub first: bool,
    /// Who marked it delivered.
    pub done_by: Option<String>,
    /// When it was marked delivered, Unix ms.
    pub done_at: Option<i64>,
}

/// The balloons of `c` from its ranked submissions' `attempts` and the marks `done`, oldest
/// solve first.
pub fn balloons(c: &Contest, mut attempts: Vec<Attempt>, done: &[BalloonDone]) -> Vec<Balloon> {
    attempts.sort_by_key(|a| (a.at_ms, a.id));
    let (start, end) = (c.start_ms, c.end_ms());
    // (user, problem) -> the first accepted attempt.
    let mut first: BTreeMap<(String, String), (i64, i64)> = BTreeMap::new();
    for a in &attempts {
        let accepted = a
            .result
            .as_ref()
            .is_some_and(|r| r.verdict == Verdict::Accepted);
        if accepted && a.at_ms >= start && a.at_ms < end && c.label_of(&a.problem).is_some() {
            first
                .entry((a.user.clone(), a.problem.clone()))
                .or_insert((a.at_ms, a.id));
        }
    }
    let mut out: Vec<Balloon> = first
        .into_iter()
        .map(|((user, problem), (at, id))| {
            let team = c.team(&user);
            let mark = done.iter().find(|d| d.user == user && d.problem == problem);
            Balloon {
                submission: id,
                team: team.map_or_else(|| user.clone(), |t| t.name.clone()),
                affiliation: team.and_then(|t| t.affiliation.clone()),
                label: c.label_of(&problem).unwrap_or("?").to_string(),
                color: c.problem(&problem).and_then(|p| p.color.clone()),
                user,
                problem,
                at,
                first: false,
                done_by: mark.map(|m| m.by.clone()),
                done_at: mark.map(|m| m.at),
            }
        })
        .collect();
    out.sort_by_key(|b| (b.at, b.submission));
    let mut seen: Vec<String> = Vec::new();
    for b in &mut out {
        if !seen.contains(&b.problem) {
            seen.push(b.problem.clone());
            b.first = true;
        }
    }
    out
}
