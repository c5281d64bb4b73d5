//! The balloon queue: the first accepted submission of each team on each problem, for the
//! runners who bring a balloon of the problem's colour to the team's desk.
//!
//! The jury's view: the freeze hides nothing here (runners must see every solve), so the queue
//! is for admins only. It is computed from the ranked submissions and their current verdicts
//! (overrides count; the jury's and ignored submissions never get a balloon), like the
//! standings; only submissions inside the contest window count. The first solve of each
//! problem in the contest is marked. A director marks a balloon delivered (kept in the store
//! by contest, team and problem, so a rejudging that moves the first AC keeps the mark) or
//! undoes it.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::Serialize;

use super::{find, standings};
use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_judge::Verdict;
use ojd_service::contest::Contest;
use ojd_service::StoreError;

/// One balloon: a team's first accepted submission of a problem.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub(crate) struct Balloon {
    pub(crate) submission: i64,
    pub(crate) user: String,
    /// The team's display name (`[[team]]`), else the user name.
    pub(crate) team: String,
    pub(crate) affiliation: Option<String>,
    pub(crate) label: String,
    pub(crate) problem: String,
    /// The balloon's colour: the problem's `color` in `contest.toml` (a CSS colour or `#rrggbb`),
    /// if it has one.
    pub(crate) color: Option<String>,
    /// When the accepted submission was made, Unix ms.
    pub(crate) at: i64,
    /// The first solve of this problem in the contest.
    pub(crate) first: bool,
    /// Who marked it delivered, and when.
    pub(crate) done_by: Option<String>,
    pub(crate) done_at: Option<i64>,
}

/// The balloons of `c`, oldest solve first. Blocking.
pub(crate) fn list(app: &App, c: &Contest) -> Result<Vec<Balloon>, StoreError> {
    let subs = standings::ranked_submissions(app, c)?;
    let mut attempts = standings::attempts(app, c, &subs)?;
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
    let done = app.node.balloons_done(&c.id)?;
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
    Ok(out)
}

/// Marks the balloon of `user` on `problem` (an id or a label) in contest `id` delivered, or
/// with `done` false not delivered again, as `admin`. 404 when there is no such balloon.
pub(crate) async fn mark(
    app: &Arc<App>,
    admin: &User,
    id: &str,
    user: &str,
    problem: &str,
    done: bool,
) -> Result<(), AppError> {
    let c = find(app, id)?;
    let Some(p) = c.problem(problem).map(|p| p.problem.clone()) else {
        return Err(AppError::BadRequest(format!(
            "field `problem`: {problem:?} is not a problem of contest {id:?}"
        )));
    };
    let (a, c2) = (app.clone(), c.clone());
    let balloons = super::blocking(app, move || list(&a, &c2)).await?;
    if !balloons.iter().any(|b| b.user == user && b.problem == p) {
        return Err(AppError::NotFound(format!(
            "no balloon: {user:?} has not solved {problem:?} in contest {id:?}"
        )));
    }
    let by = done.then(|| admin.name.clone());
    app.node
        .set_balloon(c.id.clone(), user.to_string(), p, by)
        .await?;
    let (action, what) = if done {
        ("balloon", "delivered")
    } else {
        ("balloon-undo", "not delivered after all")
    };
    let detail = format!("the balloon of {problem} for {user} {what}");
    super::controls::note(app, &admin.name, action, Some(&c.id), detail).await;
    Ok(())
}
