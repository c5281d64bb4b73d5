//! Final results: finalizing a contest ([`finalize`]), its awards and the exports
//! (`results.tsv`, `awards.json` through the Contest API's award objects, the results CSV), from one computation ([`results`]).
//!
//! A contest is finalized by a director after its end, once its standings are no longer
//! frozen for students (the awards would tell the frozen results). The time is written into
//! `contest.toml` as `finalized = "…"` (the file stays the truth, as for the clock) and
//! audited. From then on the results are final: the clock, the freeze, verdict overrides,
//! ignored submissions and applying a rejudging of its submissions are refused with a clear
//! error ([`refuse_if_final`]), and everyone sees the awards. (A rejudging made with
//! `auto_apply` applies itself in the store when judged; it is not refused.) Before that only admins see them, as
//! a preview.

use std::sync::Arc;

use super::{find, standings};
use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_service::contest::awards::{self, Award};
use ojd_service::contest::standings::Standings;
use ojd_service::contest::{format_time, Contest, Phase};
use ojd_store::{now_ms, StoreError};

/// The final standings (nothing hidden) and the awards of `c`. Blocking.
pub(crate) fn results(app: &App, c: &Contest) -> Result<(Standings, Vec<Award>), StoreError> {
    let s = standings::final_standings(app, c)?;
    let a = awards::compute(c, &s);
    Ok((s, a))
}

/// Whether `viewer` may see `c`'s awards and results: everyone once it is finalized, admins
/// always (a preview before).
pub(crate) fn visible(c: &Contest, viewer: Option<&User>) -> bool {
    c.finalized_ms.is_some() || viewer.is_some_and(|u| u.admin)
}

/// The error for a change that a finalized contest no longer takes.
pub(crate) fn refuse_if_final(c: &Contest, what: &str) -> Result<(), AppError> {
    match c.finalized_ms {
        Some(at) => Err(AppError::Conflict(format!(
            "contest {:?} was finalized at {}: its results are final, {what} is refused",
            c.id,
            format_time(at, c.utc_offset_s)
        ))),
        None => Ok(()),
    }
}

/// Finalizes contest `id` as `admin` asked: writes `finalized` into its `contest.toml`,
/// reloads, audits. Returns what the audit log says.
pub(crate) async fn finalize(app: &Arc<App>, admin: &User, id: &str) -> Result<String, AppError> {
    let c = find(app, id)?;
    refuse_if_final(&c, "finalizing it again")?;
    let now = now_ms();
    if c.phase(now) != Phase::Ended {
        return Err(AppError::Conflict(format!(
            "contest {id:?} ends at {}; it can be finalized only after its end",
            format_time(c.end_ms(), c.utc_offset_s)
        )));
    }
    let (a, c2) = (app.clone(), c.clone());
    let fs = app.db(move |_| super::read_freeze(&a, &c2)).await?;
    if fs.frozen {
        return Err(AppError::Conflict(format!(
            "the standings of contest {id:?} are still frozen: unfreeze them first (the awards would tell the frozen results)"
        )));
    }
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
    let (a, c2) = (app.clone(), c.clone());
    let (_, list) = app.db(move |_| results(&a, &c2)).await?;
    let detail = format!(
        "finalized at {}; {}",
        format_time(at, offset),
        summary(&c, &list)
    );
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
