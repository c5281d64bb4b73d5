//! A submission's history for admins: every judging it had (first judging, rejudges,
//! rejudgings, current or not) and every verdict override of the jury (who, when, why, from →
//! to), oldest first, both from the store (overrides from their own history table, kept in the
//! transaction of each change; the audit log's `override` lines, which [`override_detail`]
//! writes, say the same for the audit page).

use std::sync::Arc;

use serde::Serialize;

use crate::error::AppError;
use crate::App;

/// One event of a submission's history.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Event {
    /// A judging (the first, a rejudge, or one of a rejudging).
    Judging {
        judging: i64,
        at: i64,
        finished_at: Option<i64>,
        /// The rejudging it was made by, if any.
        rejudging: Option<i64>,
        judged_by: String,
        /// Its verdict code, none while in flight or abandoned.
        verdict: Option<String>,
        score: Option<u32>,
        /// The exact score in thousandths of a point.
        score_milli: Option<u64>,
        /// Whether it is the one pages and standings use.
        current: bool,
    },
    /// The jury set or removed a verdict.
    Override {
        at: i64,
        by: String,
        /// The verdict shown before ("AC", or "none").
        from: String,
        /// The verdict shown after (the judge's again when the override was removed).
        to: String,
        reason: String,
        /// Whether the jury's verdict was removed.
        removed: bool,
    },
}

impl Event {
    fn at(&self) -> i64 {
        match self {
            Event::Judging { at, .. } | Event::Override { at, .. } => *at,
        }
    }
}

/// The audit log's detail of an override of `submission` from `from` to `to`.
pub(crate) fn override_detail(
    submission: i64,
    from: &str,
    to: &str,
    reason: Option<&str>,
) -> String {
    match reason {
        Some(r) => format!("submission {submission}: verdict {from} → {to} ({r})"),
        None => format!(
            "submission {submission}: verdict {from} → {to} ({})",
            ojd_service::OVERRIDE_REMOVED
        ),
    }
}

/// Submission `id`'s history, oldest first.
pub(crate) async fn of(app: &Arc<App>, id: i64) -> Result<Vec<Event>, AppError> {
    let h = app.node.history(id).await?;
    let mut out: Vec<Event> = h
        .judgings
        .into_iter()
        .map(|j| Event::Judging {
            judging: j.id,
            at: j.started_at,
            finished_at: j.finished_at,
            rejudging: j.rejudging,
            judged_by: j.judged_by,
            verdict: j.verdict.map(|v| v.code().to_string()),
            score: j.score,
            score_milli: j.score_milli,
            current: j.current,
        })
        .collect();
    out.extend(h.overrides.into_iter().map(|o| Event::Override {
        at: o.at,
        by: o.by,
        from: o.from,
        to: o.to,
        reason: o.reason,
        removed: o.removed,
    }));
    // Stable: an override made in the millisecond a judging started stays after it.
    out.sort_by_key(Event::at);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_override_line_says_from_to_and_why() {
        assert_eq!(
            override_detail(7, "WA", "AC", Some("the checker (was) wrong")),
            "submission 7: verdict WA → AC (the checker (was) wrong)"
        );
        assert_eq!(
            override_detail(7, "AC", "WA", None),
            format!(
                "submission 7: verdict AC → WA ({})",
                ojd_service::OVERRIDE_REMOVED
            )
        );
    }
}
