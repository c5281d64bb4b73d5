//! Final results: finalizing a contest ([`finalize`]), its awards and the exports
//! (`results.tsv`, `awards.json` through the Contest API's award objects, the results CSV), from one computation ([`results`]).
//!
//! A contest is finalized by a director after its end, once its standings are no longer
//! frozen for students (the awards would tell the frozen results), and after confirming each
//! warning of its checklist (judge errors, pending judgings, unanswered questions, open
//! rejudgings: [`readiness`]). The time is written into
//! `contest.toml` as `finalized = "…"` (the file stays the truth, as for the clock) and
//! audited. From then on the results are final: the clock, the freeze, verdict overrides,
//! ignored submissions and applying a rejudging of its submissions are refused with a clear
//! error ([`refuse_if_final`]), and everyone sees the awards. (A rejudging made with
//! `auto_apply` applies itself in the store when judged; it is not refused.) Before that only admins see them, as
//! a preview.

use std::sync::Arc;

use super::find;
use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_service::contest::awards::Award;
use ojd_service::contest::finalize::Checklist;
use ojd_service::contest::standings::Standings;
use ojd_service::contest::{format_time, Contest, Phase};
use ojd_service::now_ms;

/// The final standings (nothing hidden) and the awards of `c` (the service computes them).
pub(crate) async fn results(
    app: &App,
    c: &Arc<Contest>,
) -> Result<(Standings, Vec<Award>), AppError> {
    Ok(app.node.results(c.clone()).await?)
}

/// Whether `viewer` may see `c`'s awards and results: everyone once it is finalized, admins
/// always (a preview before).
pub(crate) fn visible(c: &Contest, viewer: Option<&User>) -> bool {
    c.finalized_ms.is_some() || viewer.is_some_and(|u| u.admin)
}

pub(crate) use super::finality::refuse_if_final;

/// Where a contest stands before it is finalized: what stops it (not ended, frozen) and what a
/// director must confirm ([`Checklist`]).
pub(crate) struct Readiness {
    /// Why it cannot be finalized at all now (not over yet, standings frozen, already final).
    pub(crate) blocked: Option<String>,
    /// The standings are still frozen for students (unfreeze first).
    pub(crate) frozen: bool,
    pub(crate) checks: Checklist,
}

/// Whether contest `c` can be finalized now, and what finalizing it needs confirmed.
pub(crate) async fn readiness(app: &Arc<App>, c: &Arc<Contest>) -> Result<Readiness, AppError> {
    let fs = super::read_freeze(app, c).await?;
    let checks = app.node.finalize_checklist(c.id.clone()).await?;
    let id = &c.id;
    let blocked = if let Err(AppError::Conflict(e)) = refuse_if_final(c, "finalizing it again") {
        Some(e)
    } else if c.phase(now_ms()) != Phase::Ended {
        Some(format!(
            "contest {id:?} ends at {}; it can be finalized only after its end",
            format_time(c.end_ms(), c.utc_offset_s)
        ))
    } else if fs.frozen {
        Some(format!(
            "the standings of contest {id:?} are still frozen: unfreeze them first (the awards would tell the frozen results)"
        ))
    } else {
        None
    };
    Ok(Readiness {
        blocked,
        frozen: fs.frozen,
        checks,
    })
}

/// Finalizes contest `id` as `admin` asked: refused unless it is over and unfrozen and every
/// check of its [`Checklist`] that found something is named in `confirmed`; then writes
/// `finalized` into its `contest.toml`, reloads, audits (with what was confirmed). Returns
/// what the audit log says.
pub(crate) async fn finalize(
    app: &Arc<App>,
    admin: &User,
    id: &str,
    confirmed: &[String],
) -> Result<String, AppError> {
    let c = find(app, id)?;
    let ready = readiness(app, &c).await?;
    if let Some(why) = ready.blocked {
        return Err(AppError::Conflict(why));
    }
    let missing = ready.checks.unconfirmed(confirmed);
    if !missing.is_empty() {
        let each: Vec<String> = missing.iter().map(|m| m.describe()).collect();
        return Err(AppError::Conflict(format!(
            "finalizing contest {id:?} needs a confirmation of each: {}",
            each.join("; ")
        )));
    }
    let warned: Vec<String> = (ready.checks.checks().iter())
        .filter(|c| !c.ids.is_empty())
        .map(|c| c.describe())
        .collect();
    let now = now_ms();
    let problems = app.node.config().server.problems.clone();
    let (dir, offset) = (c.dir.clone(), c.utc_offset_s);
    let at = now / 1000 * 1000;
    tokio::task::spawn_blocking(move || {
        ojd_service::contest::clock::finalize(&dir, &problems, at, offset)
    })
    .await
    .map_err(|e| AppError::Internal(format!("finalizing stopped: {e}")))?
    .map_err(|e| AppError::Internal(format!("contest {id:?} could not be rewritten: {e}")))?;
    app.contests.reload(app.node.config());
    let c = find(app, id)?;
    let (_, list) = results(app, &c).await?;
    let mut detail = format!(
        "finalized at {}; {}",
        format_time(at, offset),
        summary(&c, &list)
    );
    if !warned.is_empty() {
        detail.push_str(&format!("; confirmed: {}", warned.join("; ")));
    }
    super::controls::note(app, &admin.name, "finalize", Some(&c.id), detail.clone()).await;
    crate::log(&format!("contest {id}: {detail} (by {})", admin.name));
    Ok(detail)
}

/// "gold: ann; silver: bob, cat; …" (the audit line).
fn summary(c: &Contest, list: &[Award]) -> String {
    let parts: Vec<String> = list
        .iter()
        .filter(|a| !a.users.is_empty())
        .map(|a| format!("{}: {}", a.citation, a.users.join(", ")))
        .collect();
    if parts.is_empty() {
        format!("no awards in contest {:?}", c.id)
    } else {
        parts.join("; ")
    }
}
