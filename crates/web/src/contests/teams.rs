//! A director edits one team of a contest on its teams page or through the API: adds one,
//! changes its user, display name, affiliation, category, group or members ([`save_team`],
//! each field checked and named), or removes one without submissions ([`remove_team`]; one
//! with submissions is refused: they are judged records, and an observer is off the board
//! anyway). Each change is written into the contest's `contest.toml` (the file stays the
//! truth, as for a roster import), reloaded, the standings recomputed, and audited (`team`).
//! In a contest that lists its `participants`, an added team's user is listed too (else it
//! could not submit) and a removed team's user no longer is (the audit line says so).

use std::sync::Arc;

use super::find;
use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_service::contest::edit::FieldError;
use ojd_service::contest::roster::Admission;
use ojd_service::contest::Contest;

/// Adds a team to contest `id`, or edits one (`draft.original`), as `admin` asked: checked
/// field by field, written into its `contest.toml` (the file stays the truth), reloaded, the
/// standings recomputed, audited. A finalized contest's teams are final.
pub(crate) async fn save_team(
    app: &Arc<App>,
    admin: &User,
    id: &str,
    draft: &ojd_service::contest::roster::TeamDraft,
) -> Result<Result<String, Vec<FieldError>>, AppError> {
    let c = find(app, id)?;
    super::finality::refuse_if_final(&c, "changing its teams")?;
    let teams = match draft.apply(&c.teams) {
        Ok(t) => t,
        Err(errors) => return Ok(Err(errors)),
    };
    // A team's submissions are made as its user: another user would leave them behind.
    let (original, user) = (draft.original.trim(), draft.user.trim());
    if !original.is_empty() && original != user {
        let n = submissions_of(app, &c, original).await?;
        if n > 0 {
            return Ok(Err(vec![FieldError {
                field: "user".into(),
                message: format!(
                    "team {original:?} has {n} submission(s) in this contest, made as user \
                     {original:?}: its user cannot change (change its name instead)"
                ),
            }]));
        }
    }
    let admission = write_teams(app, &c, teams).await?;
    let user = draft.user.trim();
    let detail = if draft.original.trim().is_empty() {
        format!("team {user:?} added")
    } else if draft.original.trim() != user {
        format!("team {:?} edited, now user {user:?}", draft.original.trim())
    } else {
        format!("team {user:?} edited")
    };
    let shown = find(app, id)?
        .teams
        .iter()
        .find(|t| t.user == user)
        .map(|t| {
            format!(
                "{detail}: {:?}{}{}, {}",
                t.name,
                t.affiliation
                    .as_deref()
                    .map(|a| format!(" ({a})"))
                    .unwrap_or_default(),
                if t.members.is_empty() {
                    String::new()
                } else {
                    format!(", members {}", t.members.join(", "))
                },
                ojd_service::contest::roster::category_name(t.category)
            )
        })
        .unwrap_or(detail);
    let shown = admission.told_after(shown);
    super::controls::note(app, &admin.name, "team", Some(&c.id), shown.clone()).await;
    Ok(Ok(shown))
}

/// Removes `user`'s team from contest `id`. Refused (409) when the team has submissions in the
/// contest: they are judged and ranked records (make it an observer to take it off the board).
pub(crate) async fn remove_team(
    app: &Arc<App>,
    admin: &User,
    id: &str,
    user: &str,
) -> Result<String, AppError> {
    let c = find(app, id)?;
    super::finality::refuse_if_final(&c, "changing its teams")?;
    if !c.teams.iter().any(|t| t.user == user) {
        return Err(AppError::NotFound(format!(
            "contest {id:?} has no team of user {user:?}"
        )));
    }
    let n = submissions_of(app, &c, user).await?;
    if n > 0 {
        return Err(AppError::Conflict(format!(
            "team {user:?} has {n} submission(s) in contest {id:?}: a team with submissions is not \
             removed (they stay judged and audited); set its category to observer to take it off \
             the public board"
        )));
    }
    let teams: Vec<_> = c.teams.iter().filter(|t| t.user != user).cloned().collect();
    let admission = write_teams(app, &c, teams).await?;
    super::links::revoke_team(app, &c.id, user).await?;
    let detail = admission.told_after(format!("team {user:?} removed"));
    super::controls::note(app, &admin.name, "team", Some(&c.id), detail.clone()).await;
    Ok(detail)
}

/// How many submissions `user` made in contest `c`.
async fn submissions_of(app: &Arc<App>, c: &Contest, user: &str) -> Result<usize, AppError> {
    let subs = app.node.contest_submissions(c.id.clone()).await?;
    Ok(subs.iter().filter(|s| s.user == user).count())
}

/// Writes `teams` into `c`'s `contest.toml` (and the users into its listed `participants`),
/// reloads the contests and recomputes standings.
async fn write_teams(
    app: &Arc<App>,
    c: &Contest,
    teams: Vec<ojd_service::contest::Team>,
) -> Result<Admission, AppError> {
    let problems = app.node.config().server.problems.clone();
    let (dir, id) = (c.dir.clone(), c.id.clone());
    let written = tokio::task::spawn_blocking(move || {
        ojd_service::contest::roster::write_teams(&dir, &problems, &teams)
    })
    .await
    .map_err(|e| AppError::Internal(format!("writing the teams stopped: {e}")))?
    .map_err(|e| AppError::Internal(format!("contest {id:?}: {e}")))?;
    app.contests.reload(app.node.config());
    app.contests.invalidate();
    Ok(written.1)
}
