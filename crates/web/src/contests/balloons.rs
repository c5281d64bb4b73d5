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

use std::sync::Arc;

use super::find;
use crate::error::AppError;
use crate::user::User;
use crate::App;
pub(crate) use ojd_service::contest::balloons::Balloon;
use ojd_service::contest::Contest;

/// The balloons of `c`, oldest solve first (the service computes them).
pub(crate) async fn list(app: &App, c: &Arc<Contest>) -> Result<Vec<Balloon>, AppError> {
    Ok(app.node.balloons(c.clone()).await?)
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
    let balloons = list(app, &c).await?;
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
