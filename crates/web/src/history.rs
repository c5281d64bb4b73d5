//! A submission's history for admins: every judging it had (first judging, rejudges,
//! rejudgings, current or not) and every verdict override of the jury (who, when, why, from →
//! to), oldest first. Judgings come from the store; overrides from the audit log, whose
//! `override` lines [`override_detail`] writes and [`parse_override`] reads back.

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
        None => {
            format!("submission {submission}: verdict {from} → {to} (the jury's verdict removed)")
        }
    }
}

/// Reads an override's detail back: (from, to, reason, removed), if it is about `submission`.
pub(crate) fn parse_override(
    submission: i64,
    detail: &str,
) -> Option<(String, String, String, bool)> {
    let rest = detail.strip_prefix(&format!("submission {submission}: "))?;
    // Lines written before the history existed.
    if let Some(rest) = rest.strip_prefix("verdict set to ") {
        let (to, reason) = rest.split_once(" (")?;
        let reason = reason.strip_suffix(')').unwrap_or(reason);
        return Some(("?".into(), to.to_string(), reason.to_string(), false));
    }
    if let Some(rest) = rest.strip_prefix("verdict ") {
        let (from, rest) = rest.split_once(" → ")?;
        let (to, reason) = rest.split_once(" (")?;
        let reason = reason.strip_suffix(')')?;
        let removed = reason == "the jury's verdict removed";
        return Some((
            from.to_string(),
            to.to_string(),
            reason.to_string(),
            removed,
        ));
    }
    (rest == "the jury's verdict removed").then(|| ("?".into(), "?".into(), rest.to_string(), true))
}

/// How far back the audit log is read for a submission's overrides.
const AUDIT_LINES: u32 = 20_000;

/// Submission `id`'s history, oldest first (blocking reads in one call).
pub(crate) async fn of(app: &Arc<App>, id: i64) -> Result<Vec<Event>, AppError> {
    app.db(move |s| {
        let mut out: Vec<Event> = s
            .judgings(id)?
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
        let contest = s.contest_of(id)?;
        for a in s.audit_log(contest.as_deref(), AUDIT_LINES)? {
            if a.action != "override" {
                continue;
            }
            if let Some((from, to, reason, removed)) = parse_override(id, &a.detail) {
                out.push(Event::Override {
                    at: a.at,
                    by: a.actor,
                    from,
                    to,
                    reason,
                    removed,
                });
            }
        }
        out.sort_by_key(Event::at);
        Ok(out)
    })
    .await
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_override_line_reads_back() {
        let d = override_detail(7, "WA", "AC", Some("the checker (was) wrong"));
        assert_eq!(
            parse_override(7, &d),
            Some((
                "WA".into(),
                "AC".into(),
                "the checker (was) wrong".into(),
                false
            ))
        );
        assert_eq!(parse_override(17, &d), None, "another submission");
        let r = override_detail(7, "AC", "WA", None);
        assert_eq!(parse_override(7, &r).map(|p| p.3), Some(true));
        assert_eq!(
            parse_override(3, "submission 3: verdict set to WA (late)"),
            Some(("?".into(), "WA".into(), "late".into(), false))
        );
    }
}
