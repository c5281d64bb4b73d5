//! Standings: pure functions from a contest and its judged submissions to ranked rows.
//!
//! # Rules
//!
//! Only submissions made inside the contest window `[start, end)` count. Attempts of one user
//! on one problem are taken in submission order (time, then id).
//!
//! **ICPC.** A problem is solved by its first accepted submission. Its penalty is the contest
//! minute of that submission (whole minutes, rounded down) plus `penalty` minutes for every
//! rejected try before it. Rejected: WA, TLE, MLE, OLE, RE, and CE only when
//! `compile_errors_count`; a Judge Error or a skipped judging is never the student's fault and
//! is not a try. Attempts after the first AC do not count. Rows rank by solved (more first),
//! penalty (less first), then the minute of the last accepted submission (earlier first); rows
//! equal in all three share a rank ("1, 2, 2, 4"). The earliest AC of each problem is marked
//! as its first solve.
//!
//! **IOI.** Points are exact, in thousandths (a CMS group worth 12.5 points); the whole
//! `score` fields are the exact ones rounded down, for older clients. Per problem, the best total
//! score over the user's submissions; where the
//! submissions carry per-group scores, the sum over groups of each group's best score across
//! all submissions (the IOI 2017 rule: a subtask once solved stays solved). Rows rank by the
//! sum; equal sums share a rank.
//!
//! **Freeze.** The caller passes `hide_from_ms` (the freeze time) for a viewer who must not see
//! results after the freeze: those attempts become pending, shown as "?", exactly like
//! submissions still in the queue. Admins, and everyone after an unfreeze, pass `None`.

use std::collections::BTreeMap;

use serde::Serialize;

use super::model::{Contest, Scoring};
use ojd_judge::Verdict;

mod input;
pub use input::{attempt, group_scores, jury, ranked_entries};

/// A submission as the standings see it.
#[derive(Clone, Debug, PartialEq)]
pub struct Attempt {
    /// The submission's id.
    pub id: i64,
    /// Who submitted it.
    pub user: String,
    /// The problem id (folder name), not the label.
    pub problem: String,
    /// When it was submitted, Unix ms.
    pub at_ms: i64,
    /// `None` while it waits to be judged.
    pub result: Option<Judged>,
}

/// What the current judging of a submission found.
#[derive(Clone, Debug, PartialEq)]
pub struct Judged {
    /// The verdict (the jury's where it overrode the judge's).
    pub verdict: Verdict,
    /// The exact score in thousandths of a point.
    pub score_milli: u64,
    /// Thousandths of a point per scoring group of the problem, in the problem's group order
    /// (empty when it has no groups).
    pub groups: Vec<u64>,
}

/// The standings as one viewer sees them.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Standings {
    /// How the contest ranks.
    pub scoring: Scoring,
    /// One column per problem, in label order (none before the start).
    pub problems: Vec<Column>,
    /// One row per ranked user, best rank first.
    pub rows: Vec<Row>,
    /// True when results after the freeze are hidden from this viewer.
    pub frozen: bool,
}

/// A problem column: label, problem id, how many solved it (ICPC) or scored on it (IOI).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Column {
    /// The problem's label ("A").
    pub label: String,
    /// The problem's id.
    pub problem: String,
    /// How many users solved it (ICPC) or scored on it (IOI).
    pub solved: u32,
}

/// One user's row.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Row {
    /// The rank; equal rows share one ("1, 2, 2, 4").
    pub rank: u32,
    /// The user (a team's account).
    pub user: String,
    /// The team's display name and affiliation (`[[team]]`), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    /// The team's affiliation (`[[team]]`), when it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub affiliation: Option<String>,
    /// The team's members (`[[team]]`'s `members`), if it lists them.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub members: Vec<String>,
    /// ICPC: problems solved.
    pub solved: u32,
    /// ICPC: total penalty minutes.
    pub penalty: u64,
    /// IOI: the sum of the per-problem scores, whole points (`score_milli` rounded down).
    pub score: u32,
    /// IOI: the sum of the per-problem scores in thousandths of a point (exact).
    pub score_milli: u64,
    /// ICPC: contest minute of the last accepted submission.
    pub last_ac_minute: Option<u64>,
    /// One cell per problem, in the columns' order.
    pub cells: Vec<Cell>,
}

/// One user's result on one problem.
#[derive(Clone, Debug, Default, Serialize, PartialEq)]
pub struct Cell {
    /// The problem's label.
    pub label: String,
    /// ICPC: rejected tries before the first AC (or all of them); IOI: judged submissions.
    pub tries: u32,
    /// Attempts not known to this viewer yet (queued, judging, or after the freeze).
    pub pending: u32,
    /// ICPC: an accepted submission counts (never set under IOI).
    pub solved: bool,
    /// The first accepted submission of this problem in the contest.
    pub first_solve: bool,
    /// ICPC: the contest minute of the first AC.
    pub minute: Option<u64>,
    /// ICPC: minute + penalty x tries when solved.
    pub penalty: u64,
    /// IOI: the best score in whole points, `score_milli` rounded down (None until something
    /// was judged).
    pub score: Option<u32>,
    /// IOI: the best score in thousandths of a point.
    pub score_milli: Option<u64>,
    /// When solved, Unix ms (for first solves and ties).
    #[serde(skip)]
    solved_at_ms: Option<i64>,
}

impl Standings {
    /// Keeps only `user`'s row (standings that are not public to students).
    pub fn only(&mut self, user: &str) {
        self.rows.retain(|r| r.user == user);
    }

    /// `user`'s row, if the table has one.
    pub fn row(&self, user: &str) -> Option<&Row> {
        self.rows.iter().find(|r| r.user == user)
    }
}

/// Thousandths of a point as shown: `12.5`, `30`, `3.334` (trailing zeros trimmed).
pub fn points_text(milli: u64) -> String {
    let (w, f) = (milli / 1000, milli % 1000);
    if f == 0 {
        return w.to_string();
    }
    format!("{w}.{}", format!("{f:03}").trim_end_matches('0'))
}

/// Whether a verdict is a rejected try under ICPC rules.
fn rejected(v: Verdict, compile_errors_count: bool) -> bool {
    match v {
        Verdict::Accepted | Verdict::JudgeError | Verdict::Skipped => false,
        Verdict::CompileError => compile_errors_count,
        _ => true,
    }
}

/// Computes the standings. `participants` always get a row, even without submissions;
/// `hide_from_ms` hides results of attempts made at or after it (the freeze).
pub fn compute(
    contest: &Contest,
    attempts: &[Attempt],
    participants: &[String],
    hide_from_ms: Option<i64>,
) -> Standings {
    let mut s = compute_rows(contest, attempts, participants, hide_from_ms);
    let teams: std::collections::HashMap<&str, &super::model::Team> =
        contest.teams.iter().map(|t| (t.user.as_str(), t)).collect();
    for r in &mut s.rows {
        if let Some(t) = teams.get(r.user.as_str()) {
            r.name = Some(t.name.clone());
            r.affiliation = t.affiliation.clone();
            r.members = t.members.clone();
        }
    }
    s
}

fn compute_rows(
    contest: &Contest,
    attempts: &[Attempt],
    participants: &[String],
    hide_from_ms: Option<i64>,
) -> Standings {
    // user -> problem id -> attempts in order
    let mut by_user: BTreeMap<&str, BTreeMap<&str, Vec<&Attempt>>> = BTreeMap::new();
    for p in participants {
        by_user.entry(p.as_str()).or_default();
    }
    let end = contest.end_ms();
    for a in attempts {
        if a.at_ms < contest.start_ms || a.at_ms >= end || contest.label_of(&a.problem).is_none() {
            continue;
        }
        by_user
            .entry(a.user.as_str())
            .or_default()
            .entry(a.problem.as_str())
            .or_default()
            .push(a);
    }
    let mut rows: Vec<Row> = by_user
        .into_iter()
        .map(|(user, mut problems)| {
            let cells: Vec<Cell> = contest
                .problems
                .iter()
                .map(|cp| {
                    let list = problems.entry(cp.problem.as_str()).or_default();
                    list.sort_by_key(|a| (a.at_ms, a.id));
                    let visible = |a: &Attempt| match (&a.result, hide_from_ms) {
                        (None, _) => None,
                        (Some(_), Some(h)) if a.at_ms >= h => None,
                        (Some(r), _) => Some(r.clone()),
                    };
                    let seen: Vec<(i64, Option<Judged>)> =
                        list.iter().map(|a| (a.at_ms, visible(a))).collect();
                    let mut cell = match contest.scoring {
                        Scoring::Icpc => icpc_cell(contest, &seen),
                        Scoring::Ioi => ioi_cell(&seen),
                    };
                    cell.label = cp.label.clone();
                    cell
                })
                .collect();
            row(user, cells)
        })
        .collect();
    mark_first_solves(&mut rows);
    rank(contest.scoring, &mut rows);
    let problems = contest
        .problems
        .iter()
        .enumerate()
        .map(|(i, cp)| Column {
            label: cp.label.clone(),
            problem: cp.problem.clone(),
            solved: rows
                .iter()
                .filter(|r| match contest.scoring {
                    Scoring::Icpc => r.cells[i].solved,
                    Scoring::Ioi => r.cells[i].score_milli.is_some_and(|s| s > 0),
                })
                .count() as u32,
        })
        .collect();
    Standings {
        scoring: contest.scoring,
        problems,
        rows,
        frozen: hide_from_ms.is_some(),
    }
}

fn minute(contest: &Contest, at_ms: i64) -> u64 {
    ((at_ms - contest.start_ms).max(0) / 60_000) as u64
}

fn icpc_cell(contest: &Contest, seen: &[(i64, Option<Judged>)]) -> Cell {
    let mut cell = Cell::default();
    for (at, r) in seen {
        let Some(r) = r else {
            cell.pending += 1;
            continue;
        };
        if r.verdict == Verdict::Accepted {
            let m = minute(contest, *at);
            cell.solved = true;
            cell.minute = Some(m);
            cell.solved_at_ms = Some(*at);
            cell.penalty = m + u64::from(contest.penalty_minutes) * u64::from(cell.tries);
            break;
        }
        if rejected(r.verdict, contest.compile_errors_count) {
            cell.tries += 1;
        }
    }
    cell
}

fn ioi_cell(seen: &[(i64, Option<Judged>)]) -> Cell {
    let mut cell = Cell::default();
    let mut best_total: Option<u64> = None;
    let mut best_groups: Vec<u64> = Vec::new();
    let mut grouped = false;
    for (_, r) in seen {
        let Some(r) = r else {
            cell.pending += 1;
            continue;
        };
        cell.tries += 1;
        best_total = Some(best_total.unwrap_or(0).max(r.score_milli));
        if !r.groups.is_empty() {
            grouped = true;
            if best_groups.len() < r.groups.len() {
                best_groups.resize(r.groups.len(), 0);
            }
            for (b, g) in best_groups.iter_mut().zip(&r.groups) {
                *b = (*b).max(*g);
            }
        }
    }
    cell.score_milli = if grouped {
        Some(best_groups.iter().sum::<u64>().max(best_total.unwrap_or(0)))
    } else {
        best_total
    };
    cell.score = cell.score_milli.map(ojd_judge::points::whole);
    cell
}

fn row(user: &str, cells: Vec<Cell>) -> Row {
    Row {
        rank: 0,
        user: user.to_string(),
        name: None,
        affiliation: None,
        members: Vec::new(),
        solved: cells.iter().filter(|c| c.solved).count() as u32,
        penalty: cells.iter().filter(|c| c.solved).map(|c| c.penalty).sum(),
        score: ojd_judge::points::whole(cells.iter().filter_map(|c| c.score_milli).sum()),
        score_milli: cells.iter().filter_map(|c| c.score_milli).sum(),
        last_ac_minute: cells.iter().filter_map(|c| c.minute).max(),
        cells,
    }
}

fn mark_first_solves(rows: &mut [Row]) {
    let n = rows.first().map_or(0, |r| r.cells.len());
    for i in 0..n {
        let first = rows.iter().filter_map(|r| r.cells[i].solved_at_ms).min();
        if let Some(first) = first {
            for r in rows.iter_mut() {
                let c = &mut r.cells[i];
                c.first_solve = c.solved_at_ms == Some(first);
            }
        }
    }
}

fn rank(scoring: Scoring, rows: &mut [Row]) {
    // The key that decides the order; equal keys share a rank.
    let key = |r: &Row| match scoring {
        Scoring::Icpc => (
            std::cmp::Reverse(u64::from(r.solved)),
            r.penalty,
            r.last_ac_minute.unwrap_or(0),
        ),
        Scoring::Ioi => (std::cmp::Reverse(r.score_milli), 0, 0),
    };
    rows.sort_by(|a, b| key(a).cmp(&key(b)).then_with(|| a.user.cmp(&b.user)));
    for i in 0..rows.len() {
        rows[i].rank = if i > 0 && key(&rows[i]) == key(&rows[i - 1]) {
            rows[i - 1].rank
        } else {
            i as u32 + 1
        };
    }
}

#[cfg(test)]
mod tests;
