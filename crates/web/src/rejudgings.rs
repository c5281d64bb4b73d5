//! Rejudgings in the daemon: a rejudging ([`start`]) judges a set of submissions again into
//! new judgings that students do not see; its [`report`] shows the progress and the verdict
//! diff ([`ojd_service::contest::rejudging`]) with the standings' moves; [`close`] applies it
//! (the new judgings become current all at once) or cancels it (they are discarded). Applying
//! twice, or applying or cancelling a cancelled one, is refused. The JSON API over this module is
//! in `api`, the admin pages in `admin`.
//!
//! The admin's "rejudge" buttons and `POST /api/v1/admin/{submissions,problems}/{id}/rejudge`
//! call [`rejudge_now`]: a rejudging like any other, made with `auto_apply`, which applies
//! itself when its last new judging is stored (in that same transaction, see
//! `ojd_service::Node::create_rejudging`). Until then students see the old verdicts; afterwards its
//! diff stays on `/admin/rejudgings/{id}` as the record of what changed.

use std::collections::HashSet;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_judge::Verdict;
use ojd_service::contest::rejudging::{self, Diff, Outcome, Pair, TestChange};
use ojd_service::{ContestEffect, Created, Rejudgeable, RejudgingRecord, RejudgingRefused};
use ojd_service::{JudgingDetail, RejudgeFilter, RejudgingInfo};

/// What an admin asks to rejudge; at least one field.
#[derive(Deserialize, Default, Debug)]
#[serde(deny_unknown_fields)]
pub(crate) struct Request {
    pub(crate) submission: Option<i64>,
    pub(crate) problem: Option<String>,
    pub(crate) contest: Option<String>,
    /// A verdict code ("WA"): only submissions whose current verdict is this.
    pub(crate) verdict: Option<String>,
    pub(crate) language: Option<String>,
    /// Submitted at or after / before these Unix-ms times.
    pub(crate) from_ms: Option<i64>,
    pub(crate) to_ms: Option<i64>,
    /// Apply by itself when the last new judging is stored (as the "rejudge" buttons do).
    #[serde(default)]
    pub(crate) auto_apply: bool,
}

impl Request {
    fn filter(&self) -> Result<RejudgeFilter, AppError> {
        let nonempty = |s: &Option<String>| {
            s.as_ref()
                .map(|s| s.trim().to_string())
                .filter(|s| !s.is_empty())
        };
        let verdict = match nonempty(&self.verdict) {
            None => None,
            Some(v) => Some(Verdict::from_code(&v).ok_or_else(|| {
                AppError::BadRequest(format!(
                    "field `verdict`: {v:?} is not a verdict code (AC, WA, TLE, MLE, OLE, RE, CE, JE, SK)"
                ))
            })?),
        };
        let f = RejudgeFilter {
            submission: self.submission,
            problem: nonempty(&self.problem),
            contest: nonempty(&self.contest),
            verdict,
            language: nonempty(&self.language),
            from_ms: self.from_ms,
            to_ms: self.to_ms,
        };
        if f.submission.is_none()
            && f.problem.is_none()
            && f.contest.is_none()
            && f.verdict.is_none()
            && f.language.is_none()
            && f.from_ms.is_none()
            && f.to_ms.is_none()
        {
            return Err(AppError::BadRequest(
                "say what to rejudge: submission, problem, contest, verdict, language, from_ms or to_ms".into(),
            ));
        }
        Ok(f)
    }
}

/// Starts a rejudging; returns its id and how many submissions it covers.
pub(crate) async fn start(
    app: &Arc<App>,
    by: &str,
    req: Request,
) -> Result<(i64, usize), AppError> {
    let filter = req.filter()?;
    let started = begin(app, by, filter, req.auto_apply).await?;
    Ok((started.id, started.submissions))
}

/// What [`rejudge_now`] rejudges.
#[derive(Clone, Debug)]
pub(crate) enum Scope {
    /// One submission.
    Submission(i64),
    /// Every judged submission of a problem.
    Problem(String),
}

/// A rejudging just made.
#[derive(Clone, Copy, Debug, Serialize)]
pub(crate) struct Started {
    /// The rejudging's id: its page is `/admin/rejudgings/{id}`.
    pub(crate) id: i64,
    /// How many submissions it judges again.
    pub(crate) submissions: usize,
}

/// Rejudges `scope` now and applies the result by itself: a rejudging made with `auto_apply`,
/// whose new judgings all become current at once when the last one is stored (students see
/// the old verdicts until then). Refused with 404 for an unknown submission, 409 when the
/// submission has no verdict yet or is in another open rejudging, 400 when a problem or
/// filter selects no judged submission. Only admins may call it.
pub(crate) async fn rejudge_now(
    app: &Arc<App>,
    scope: Scope,
    by: &User,
) -> Result<Started, AppError> {
    if !by.admin {
        return Err(AppError::Forbidden("only admins may rejudge".into()));
    }
    let filter = match scope {
        Scope::Submission(id) => {
            match app.node.rejudgeable(id).await? {
                Rejudgeable::Unknown => {
                    return Err(AppError::NotFound(format!("no submission {id}")));
                }
                Rejudgeable::NoVerdict(state) => {
                    return Err(AppError::Conflict(format!(
                        "submission {id} has no verdict yet (it is {state}); nothing to rejudge"
                    )));
                }
                Rejudgeable::Yes => {}
            }
            RejudgeFilter {
                submission: Some(id),
                ..Default::default()
            }
        }
        Scope::Problem(problem) => RejudgeFilter {
            problem: Some(problem),
            ..Default::default()
        },
    };
    let started = begin(app, &by.name, filter, true).await?;
    crate::log(&format!(
        "admin {}: rejudging {} ({} submission(s)), applied when judged",
        by.name, started.id, started.submissions
    ));
    Ok(started)
}

/// Selects the submissions and records the rejudging (one transaction), then wakes the workers.
async fn begin(
    app: &Arc<App>,
    by: &str,
    filter: RejudgeFilter,
    auto_apply: bool,
) -> Result<Started, AppError> {
    if let Some(c) = &filter.contest {
        crate::contests::find(app, c)?;
    }
    let note_scope = serde_json::to_string(&filter).unwrap_or_default();
    let contest = filter.contest.clone();
    // A rejudging that applies itself must not reach a finalized contest: its results are
    // final (an admin's Apply of an ordinary rejudging is refused in `close` the same way).
    let loaded = app.contests.get();
    let finalized: HashSet<String> = if auto_apply {
        loaded
            .contests
            .iter()
            .filter(|c| c.finalized_ms.is_some())
            .map(|c| c.id.clone())
            .collect()
    } else {
        HashSet::new()
    };
    let (id, submissions) = match app
        .node
        .create_rejudging(filter, by, auto_apply, finalized)
        .await?
    {
        Created::Made { id, submissions } => (id, submissions),
        Created::NothingMatches => {
            return Err(AppError::BadRequest(
                "no judged submission matches; nothing to rejudge".into(),
            ))
        }
        Created::Finalized {
            submission,
            contest,
        } => {
            let what = format!(
                "a rejudging that applies itself (submission {submission} counts for it) is \
                 refused; an ordinary rejudging still shows the diff"
            );
            if let Some(c) = loaded.get(&contest) {
                crate::contests::results::refuse_if_final(c, &what)?;
            }
            return Err(AppError::BadRequest(
                "no judged submission matches; nothing to rejudge".into(),
            ));
        }
    };
    let detail = format!("rejudging {id} of {submissions} submissions ({note_scope})");
    crate::contests::controls::note(app, by, "rejudging", contest.as_deref(), detail).await;
    Ok(Started { id, submissions })
}

/// Everything the API and the page show about a rejudging.
#[derive(Serialize)]
pub(crate) struct Report {
    #[serde(flatten)]
    pub(crate) info: RejudgingInfo,
    #[serde(flatten)]
    pub(crate) diff: Diff,
    pub(crate) standings: Vec<ContestEffect>,
}

fn outcome(d: &JudgingDetail) -> Option<Outcome> {
    Some(Outcome {
        verdict: d.info.verdict?,
        score: d.info.score.unwrap_or(0),
        score_milli: d.info.score_milli.unwrap_or(0),
        max_cpu_ms: d.info.max_cpu_ms.unwrap_or(0),
    })
}

/// Builds the report of rejudging `id`.
pub(crate) async fn report(app: &Arc<App>, id: i64) -> Result<Option<Report>, AppError> {
    let Some(RejudgingRecord {
        info,
        items,
        details,
    }) = app.node.rejudging_record(id).await?
    else {
        return Ok(None);
    };
    let pairs: Vec<Pair> = items
        .iter()
        .map(|i| Pair {
            submission: i.submission,
            user: i.user.clone(),
            problem: i.problem.clone(),
            before: i.before.and_then(|j| details.get(&j)).and_then(outcome),
            after: i.after.and_then(|j| details.get(&j)).and_then(outcome),
        })
        .collect();
    let diff = rejudging::diff(&pairs);
    // Who moves in each contest that ranks a rejudged submission: the service's.
    let contests = app.contests.get().contests.clone();
    let standings = app.node.rejudging_effects(contests, items, details).await?;
    Ok(Some(Report {
        info,
        diff,
        standings,
    }))
}

/// The per-test changes of one submission of rejudging `id`.
pub(crate) async fn tests_of(
    app: &Arc<App>,
    id: i64,
    submission: i64,
) -> Result<Option<Vec<TestChange>>, AppError> {
    Ok(app
        .node
        .rejudging_tests(id, submission)
        .await?
        .map(|(before, after)| rejudging::test_changes(&before, &after)))
}

/// Applies or cancels; a refusal is a 409.
pub(crate) async fn close(
    app: &Arc<App>,
    id: i64,
    by: &str,
    apply: bool,
) -> Result<Result<u64, RejudgingRefused>, AppError> {
    if app.node.rejudging(id).await?.is_none() {
        return Err(AppError::NotFound(format!("no rejudging {id}")));
    }
    // The contests of its submissions: each one's audit view gets the apply or cancel.
    let contests = app.node.rejudging_contests(id).await?;
    if apply {
        // A finalized contest's results are final: no new verdicts of its submissions.
        let loaded = app.contests.get();
        for c in contests.iter().filter_map(|c| loaded.get(c)) {
            if let Err(e) =
                crate::contests::results::refuse_if_final(c, "applying a rejudging of it")
            {
                return Ok(Err(RejudgingRefused(e.message())));
            }
        }
    }
    let r = app.node.close_rejudging(id, by, apply).await?;
    if r.is_ok() {
        let (action, detail) = if apply {
            ("rejudging-apply", format!("applied rejudging {id}"))
        } else {
            ("rejudging-cancel", format!("cancelled rejudging {id}"))
        };
        if contests.is_empty() {
            crate::contests::controls::note(app, by, action, None, detail.clone()).await;
        }
        for c in &contests {
            let d = detail.clone();
            crate::contests::controls::note(app, by, action, Some(c), d).await;
        }
    }
    if r.is_ok() && apply {
        // New current judgings: the standings change.
        app.contests.invalidate();
    }
    Ok(r)
}
