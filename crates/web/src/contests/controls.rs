//! A director's contest controls: start now, delay the start, extend, end now, the freeze's length
//! ([`change_clock`]), each written into the contest's `contest.toml` (the file stays the
//! truth, see `ojd_service::contest::clock`), reloaded at once and written to the audit log;
//! and the audit log itself ([`audit`]).

use std::sync::Arc;

use serde::Deserialize;

use super::find;
use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_service::contest::clock::{self, ClockChange};
use ojd_service::contest::format_time;
use ojd_service::{now_ms, AuditEntry};

/// A clock change as the API and the form send it.
#[derive(Debug, Deserialize)]
pub(crate) struct ClockBody {
    /// `start_now`, `delay`, `extend`, `end_now`, `freeze_last` or `unfreeze_at`.
    pub(crate) action: String,
    /// Minutes, for `delay`, `extend` and `freeze_last` (where 0 is no freeze).
    #[serde(default)]
    pub(crate) minutes: Option<String>,
    /// For `unfreeze_at`: when the standings unfreeze by themselves (RFC 3339).
    #[serde(default)]
    pub(crate) at: Option<String>,
}

impl ClockBody {
    fn change(&self) -> Result<ClockChange, AppError> {
        let minutes = |from: u32| -> Result<u32, AppError> {
            let m = self.minutes.as_deref().unwrap_or("").trim();
            m.parse::<u32>()
                .ok()
                .filter(|m| (from..=10_080).contains(m))
                .ok_or_else(|| {
                    AppError::BadRequest(format!(
                        "field `minutes`: expected whole minutes from {from} to 10080, found {m:?}"
                    ))
                })
        };
        Ok(match self.action.as_str() {
            "unfreeze_at" => {
                return Err(AppError::Internal(
                    "unfreeze_at is no change of contest.toml".into(),
                ))
            }
            "start_now" => ClockChange::StartNow,
            "delay" => ClockChange::Delay(minutes(1)?),
            "extend" => ClockChange::Extend(minutes(1)?),
            "end_now" => ClockChange::EndNow,
            "freeze_last" => ClockChange::FreezeLast(minutes(0)?),
            other => {
                return Err(AppError::BadRequest(format!(
                    "field `action`: expected start_now, delay, extend, end_now, freeze_last or unfreeze_at, found {other:?}"
                )))
            }
        })
    }
}

/// Changes contest `id`'s clock as `admin` asked: writes its `contest.toml`, reloads the
/// contests and audits it. Returns what the audit log says.
pub(crate) async fn change_clock(
    app: &Arc<App>,
    admin: &User,
    id: &str,
    body: &ClockBody,
) -> Result<String, AppError> {
    if body.action == "unfreeze_at" {
        return schedule_unfreeze(app, admin, id, body.at.as_deref().unwrap_or("")).await;
    }
    let change = body.change()?;
    let c = find(app, id)?;
    super::finality::refuse_if_final(&c, "changing its clock")?;
    let now = now_ms();
    let new = change
        .apply(&c, now)
        .map_err(|e| AppError::Conflict(format!("contest {id:?}: {}: {e}", change.name())))?;
    let problems = app.node.config().server.problems.clone();
    let (dir, offset) = (c.dir.clone(), c.utc_offset_s);
    let written =
        tokio::task::spawn_blocking(move || clock::rewrite(&dir, &problems, &new, offset))
            .await
            .map_err(|e| AppError::Internal(format!("the clock change stopped: {e}")))?
            .map_err(|e| {
                AppError::Internal(format!("contest {id:?} could not be rewritten: {e}"))
            })?;
    let detail = format!(
        "{}: now {} – {}",
        change.name(),
        format_time(written.start_ms, written.utc_offset_s),
        format_time(written.end_ms(), written.utc_offset_s)
    );
    app.contests.reload(app.node.config());
    let (by, cid) = (admin.name.clone(), c.id.clone());
    app.node
        .add_audit(by, "clock".into(), Some(cid), detail.clone())
        .await?;
    crate::log(&format!("contest {id}: {detail} (by {})", admin.name));
    Ok(detail)
}

/// Schedules contest `id`'s unfreeze at `at` (RFC 3339, after the freeze time and still to
/// come; the contest need not have ended): the standings, the Contest API and its feed stay
/// frozen until then and unfreeze by themselves at that time. Audited; an unfreeze or a freeze
/// again before then replaces it.
async fn schedule_unfreeze(
    app: &Arc<App>,
    admin: &User,
    id: &str,
    at: &str,
) -> Result<String, AppError> {
    let c = find(app, id)?;
    super::finality::refuse_if_final(&c, "scheduling its unfreeze")?;
    let Some(f) = c.freeze_ms() else {
        return Err(AppError::Conflict(format!(
            "contest {id:?} has no freeze (no `freeze` in its contest.toml)"
        )));
    };
    let Some((when, _)) = ojd_service::contest::parse_start(at.trim()) else {
        return Err(AppError::BadRequest(format!(
            "field `at`: expected a time such as 2026-06-25T15:30:00+01:00, found {at:?}"
        )));
    };
    let now = now_ms();
    if when <= now || when < f {
        return Err(AppError::Conflict(format!(
            "contest {id:?}: an unfreeze is scheduled after the freeze ({}) and in the future; unfreeze now instead",
            format_time(f, c.utc_offset_s)
        )));
    }
    let detail = format!(
        "the standings unfreeze at {}",
        format_time(when, c.utc_offset_s)
    );
    app.node
        .schedule_unfreeze(c.id.clone(), when, admin.name.clone(), detail.clone())
        .await?;
    app.contests.invalidate();
    crate::log(&format!("contest {id}: {detail} (by {})", admin.name));
    Ok(detail)
}

/// The newest lines of the audit log, of one contest or all.
pub(crate) async fn audit(
    app: &Arc<App>,
    contest: Option<String>,
    limit: u32,
) -> Result<Vec<AuditEntry>, AppError> {
    Ok(app.node.audit_log(contest, limit).await?)
}

/// Writes a line to the audit log; a failure is logged, never fails the action it records.
pub(crate) async fn note(
    app: &Arc<App>,
    actor: &str,
    action: &str,
    contest: Option<&str>,
    detail: String,
) {
    let (actor, action, contest) = (
        actor.to_string(),
        action.to_string(),
        contest.map(str::to_string),
    );
    if let Err(e) = app.node.add_audit(actor, action, contest, detail).await {
        AppError::from(e).log_if_internal();
    }
}

/// Audits a reload of the problems and contests (`POST /api/v1/admin/reload`): every
/// `contest.toml` was read again, so a clock or a roster changed in the file takes effect here.
pub(crate) async fn audit_reload(app: &Arc<App>, admin: &User, problems: usize) {
    let loaded = app.contests.get();
    let failed: Vec<&str> = loaded.failed.iter().map(|(f, _)| f.as_str()).collect();
    let mut detail = format!(
        "reloaded {problems} problems and {} contests",
        loaded.contests.len()
    );
    if !failed.is_empty() {
        detail.push_str(&format!("; failed to load: {}", failed.join(", ")));
    }
    note(app, &admin.name, "reload", None, detail).await;
}

/// Refuses a change of `submission`'s result when the contest it was made through is
/// finalized.
async fn refuse_if_final_of(app: &Arc<App>, submission: i64, what: &str) -> Result<(), AppError> {
    let contest = app.node.contest_of(submission).await?;
    if let Some(c) = contest.and_then(|id| app.contests.get().get(&id).cloned()) {
        super::finality::refuse_if_final(&c, what)?;
    }
    Ok(())
}

/// Ignores a contest submission (never ranked, like the jury's) or ranks it again, as
/// `admin` asked; audited, and the standings are recomputed at once.
pub(crate) async fn set_ignored(
    app: &Arc<App>,
    admin: &User,
    submission: i64,
    ignored: bool,
) -> Result<(), AppError> {
    refuse_if_final_of(app, submission, "ignoring a submission or ranking it again").await?;
    let found = app.node.set_ignored(submission, ignored).await?;
    if !found {
        return Err(AppError::NotFound(format!(
            "submission {submission} was made through no contest: there is nothing to rank"
        )));
    }
    let contest = app.node.contest_of(submission).await?;
    app.contests.invalidate();
    let (action, detail) = if ignored {
        ("ignore", format!("submission {submission} is not ranked"))
    } else {
        (
            "unignore",
            format!("submission {submission} is ranked again"),
        )
    };
    note(app, &admin.name, action, contest.as_deref(), detail).await;
    Ok(())
}

/// Sets the jury's verdict for a submission over the judge's (with a reason, required), or
/// with `None` removes it; audited, and the standings are recomputed at once.
pub(crate) async fn set_override(
    app: &Arc<App>,
    admin: &User,
    submission: i64,
    verdict: Option<ojd_judge::Verdict>,
    reason: &str,
) -> Result<(), AppError> {
    refuse_if_final_of(app, submission, "overriding a verdict").await?;
    let reason = reason.trim().to_string();
    if verdict.is_some() && (reason.is_empty() || reason.len() > 2000) {
        return Err(AppError::BadRequest(
            "field `reason`: say why the verdict is overridden (1 to 2000 bytes)".into(),
        ));
    }
    // What every page showed before: the jury's verdict, else the judge's.
    let found = app
        .node
        .override_verdict(submission, verdict, reason.clone(), admin.name.clone())
        .await?;
    let Some(ojd_service::Overridden { judged, before }) = found else {
        return Err(AppError::NotFound(format!("no submission {submission}")));
    };
    let contest = app.node.contest_of(submission).await?;
    app.contests.invalidate();
    let code = |v: Option<ojd_judge::Verdict>| v.map_or("none", |v| v.code());
    let from = code(before.or(judged));
    let detail = match verdict {
        Some(v) => crate::history::override_detail(submission, from, v.code(), Some(&reason)),
        None => crate::history::override_detail(submission, from, code(judged), None),
    };
    note(app, &admin.name, "override", contest.as_deref(), detail).await;
    Ok(())
}

/// What a roster import did: the teams, and what is shown once to print for the hall.
pub(crate) struct Imported {
    pub(crate) teams: Vec<ojd_service::contest::Team>,
    /// (user, token) per team, with `tokens`.
    pub(crate) tokens: Vec<(String, String)>,
    /// (user, password) generated per team, with `passwords` (not those from accounts.tsv).
    pub(crate) passwords: Vec<(String, String)>,
    /// How many passwords came from DOMjudge's accounts.tsv.
    pub(crate) from_file: usize,
    /// What changed in the contest's listed `participants`.
    pub(crate) admission: ojd_service::contest::roster::Admission,
}

/// Replaces contest `id`'s teams with the roster CSV `text` (written into its `contest.toml`,
/// reloaded, audited); with `tokens`, issues a token for each team's user; sets the team
/// passwords of DOMjudge's accounts.tsv, and with `passwords` generates one for every other
/// team (hashed: shown once). In a contest that lists its `participants`, the teams' users are
/// listed too and those of teams no longer there are not. A finalized contest's teams are final (409, as for the
/// single-team editor), before anything is read or written.
pub(crate) async fn import_roster(
    app: &Arc<App>,
    admin: &User,
    id: &str,
    text: &str,
    tokens: bool,
    passwords: bool,
) -> Result<Imported, AppError> {
    let c = find(app, id)?;
    super::finality::refuse_if_final(&c, "importing a roster")?;
    let teams = ojd_service::contest::roster::parse(text)
        .map_err(|e| AppError::BadRequest(format!("the roster: {e}")))?;
    // Passwords from accounts.tsv: checked before anything is written.
    let mut given: Vec<(String, String)> = Vec::new();
    let mut errors = Vec::new();
    for (line, user, pw) in ojd_service::contest::roster::passwords(text) {
        if !teams.iter().any(|t| t.user == user) {
            continue;
        }
        match crate::auth::password::check(&user, &pw) {
            Ok(()) => given.push((user, pw)),
            Err(e) => errors.push(format!("line {line}: {e}")),
        }
    }
    if !errors.is_empty() {
        return Err(AppError::BadRequest(format!(
            "the roster: {}",
            errors.join("\n")
        )));
    }
    let problems = app.node.config().server.problems.clone();
    let (dir, t) = (c.dir.clone(), teams.clone());
    let (_, admission) = tokio::task::spawn_blocking(move || {
        ojd_service::contest::roster::write_teams(&dir, &problems, &t)
    })
    .await
    .map_err(|e| AppError::Internal(format!("the roster import stopped: {e}")))?
    .map_err(|e| AppError::BadRequest(format!("contest {id:?}: {e}")))?;
    app.contests.reload(app.node.config());
    let mut issued = Vec::new();
    if tokens {
        let names: Vec<String> = teams.iter().map(|t| t.user.clone()).collect();
        let made = app.node.accounts().issue_tokens(names.clone()).await?;
        issued = names.into_iter().zip(made).collect();
    }
    let mut generated = Vec::new();
    if passwords {
        for t in teams
            .iter()
            .filter(|t| !given.iter().any(|(u, _)| *u == t.user))
        {
            let pw = crate::auth::password::generate()?;
            generated.push((t.user.clone(), pw));
        }
    }
    let from_file = given.len();
    let all: Vec<(String, String)> = given.into_iter().chain(generated.clone()).collect();
    if !all.is_empty() {
        let hashed = tokio::task::spawn_blocking(move || {
            all.into_iter()
                .map(|(u, pw)| crate::auth::password::hash(&pw).map(|h| (u, h)))
                .collect::<Result<Vec<_>, _>>()
        })
        .await
        .map_err(|e| AppError::Internal(format!("hashing the passwords stopped: {e}")))??;
        app.node.accounts().set_passwords(hashed).await?;
    }
    let mut detail = format!("{} teams imported", teams.len());
    if tokens {
        detail.push_str(", a token issued for each");
    }
    if from_file > 0 {
        detail.push_str(&format!(", {from_file} passwords from accounts.tsv"));
    }
    if !generated.is_empty() {
        detail.push_str(&format!(", {} passwords generated", generated.len()));
    }
    let detail = admission.told_after(detail);
    note(app, &admin.name, "roster", Some(&c.id), detail).await;
    Ok(Imported {
        teams,
        tokens: issued,
        passwords: generated,
        from_file,
        admission,
    })
}
