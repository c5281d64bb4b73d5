//! Contests' operations over the store, as the service offers them to the web: the freeze,
//! balloons' marks, clarifications, the jury's verdicts and the audit log (the standings, the
//! results, the balloon queue and the finalize checklist are in `standings.rs`). The domain
//! (what counts, who sees what of a contest) is `ojd-contest`'s; these read and write the rows
//! it works on, each in one store call or transaction.

use std::sync::{Arc, Mutex};

use crate::now_ms;
use ojd_judge::Verdict;
use ojd_store::{
    AnswerRecord, AuditEntry, Clarification, NewClarification, StoreError, SubmissionInfo,
};

use crate::node::{DbError, Node};

/// A clarification to add: a team's question (`user`) or the jury's announcement (`to_user`
/// one team, or none: everyone).
#[derive(Clone, Debug)]
pub struct NewQuestion {
    /// The asker; `None` for an announcement.
    pub user: Option<String>,
    /// The problem it is about (its id), or none: the contest in general.
    pub problem: Option<String>,
    /// Its category (`general`, `technical`, a problem's).
    pub category: String,
    /// An announcement's one addressee (the first of several).
    pub to_user: Option<String>,
    /// An announcement's further addressees (users), those of its groups included.
    pub to_more: Vec<String>,
    /// The groups (names) an announcement goes to.
    pub to_groups: Vec<String>,
    /// The text, trimmed.
    pub text: String,
}

/// How many questions a team may ask in a window of time; more are refused until answers come.
#[derive(Clone, Copy, Debug)]
pub struct AskLimit {
    /// Questions within the window.
    pub questions: usize,
    /// The window, in milliseconds.
    pub window_ms: i64,
}

/// A verdict the jury set or removed: what the submission showed before.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Overridden {
    /// The judge's verdict.
    pub judged: Option<Verdict>,
    /// The jury's verdict before this change, if there was one.
    pub before: Option<Verdict>,
}

/// Questions of this node are counted and inserted one at a time, so a burst sent at once
/// cannot slip past the limit.
static ASKING: Mutex<()> = Mutex::new(());

impl Node {
    /// Every submission made through `contest`, oldest first.
    pub async fn contest_submissions(
        self: &Arc<Self>,
        contest: String,
    ) -> Result<Vec<SubmissionInfo>, DbError> {
        self.db(move |s| s.contest_submissions(&contest)).await
    }

    /// The contest submission `submission` was made through, if any.
    pub async fn contest_of(self: &Arc<Self>, submission: i64) -> Result<Option<String>, DbError> {
        self.db(move |s| s.contest_of(submission)).await
    }

    /// Marks the balloon of `user` for `problem` delivered by `by`, or (`None`) not delivered.
    pub async fn set_balloon(
        self: &Arc<Self>,
        contest: String,
        user: String,
        problem: String,
        by: Option<String>,
    ) -> Result<(), DbError> {
        self.db(move |s| {
            let mark = by.as_deref().map(|b| (b, now_ms()));
            s.set_balloon(&contest, &user, &problem, mark)
        })
        .await
    }

    /// Unfreezes (or freezes again) `contest`'s standings, by admin `by`, and audits it in the
    /// same call.
    pub async fn set_freeze(
        self: &Arc<Self>,
        contest: String,
        unfrozen: bool,
        by: String,
    ) -> Result<(), DbError> {
        let action = if unfrozen { "unfreeze" } else { "freeze" };
        self.db(move |s| {
            let now = now_ms();
            s.set_freeze_by(&contest, unfrozen, &by, now)?;
            s.add_audit(&by, action, Some(&contest), "", now)
        })
        .await
    }

    /// Schedules `contest`'s unfreeze at `at` (Unix ms, still to come), by admin `by`, and
    /// audits it in the same call: stored as an unfreeze of that time, which counts only from
    /// then on (`freeze_state`); a later unfreeze or freeze replaces it.
    pub async fn schedule_unfreeze(
        self: &Arc<Self>,
        contest: String,
        at: i64,
        by: String,
        detail: String,
    ) -> Result<(), DbError> {
        self.db(move |s| {
            s.set_freeze_by(&contest, true, &by, at)?;
            s.add_audit(&by, "unfreeze scheduled", Some(&contest), &detail, now_ms())
        })
        .await
    }

    /// Appends a line to the audit log.
    pub async fn add_audit(
        self: &Arc<Self>,
        actor: String,
        action: String,
        contest: Option<String>,
        detail: String,
    ) -> Result<(), DbError> {
        self.db(move |s| s.add_audit(&actor, &action, contest.as_deref(), &detail, now_ms()))
            .await
    }

    /// The newest `limit` lines of the audit log, of one contest or all, newest first.
    pub async fn audit_log(
        self: &Arc<Self>,
        contest: Option<String>,
        limit: u32,
    ) -> Result<Vec<AuditEntry>, DbError> {
        self.db(move |s| s.audit_log(contest.as_deref(), limit))
            .await
    }

    /// Ignores a contest submission (never ranked) or ranks it again; `false`: it was made
    /// through no contest.
    pub async fn set_ignored(
        self: &Arc<Self>,
        submission: i64,
        ignored: bool,
    ) -> Result<bool, DbError> {
        self.db(move |s| s.set_jury(submission, ignored)).await
    }

    /// Sets the jury's verdict of `submission` (with its reason), or removes it (`None`), by
    /// `by`; returns what the submission showed before, `None` if there is no such submission.
    pub async fn override_verdict(
        self: &Arc<Self>,
        submission: i64,
        verdict: Option<Verdict>,
        reason: String,
        by: String,
    ) -> Result<Option<Overridden>, DbError> {
        self.db(move |s| {
            let Some(info) = s.info(submission)? else {
                return Ok(None);
            };
            let before = s.overrides_of(&[submission])?.into_iter().next();
            s.set_override(
                submission,
                verdict.map(|v| (v, reason.as_str())),
                &by,
                now_ms(),
            )?;
            Ok(Some(Overridden {
                judged: info.verdict,
                before: before.map(|o| o.verdict),
            }))
        })
        .await
    }

    /// Every clarification of `contest`, newest first (the viewer's cut is the caller's, by the
    /// contest's rule).
    pub async fn clarifications(
        self: &Arc<Self>,
        contest: String,
    ) -> Result<Vec<Clarification>, DbError> {
        self.db(move |s| s.clarifications(&contest)).await
    }

    /// The answers given to each of `questions`, oldest first.
    pub async fn answer_histories(
        self: &Arc<Self>,
        questions: Vec<i64>,
    ) -> Result<std::collections::HashMap<i64, Vec<AnswerRecord>>, DbError> {
        self.db(move |s| {
            questions
                .into_iter()
                .map(|id| Ok((id, s.answer_history(id)?)))
                .collect()
        })
        .await
    }

    /// Adds a clarification to `contest`; returns its id. With a `limit` (a team's question),
    /// refused as a conflict when the asker has asked that many within its window: the count
    /// and the insert are one step on this node.
    pub async fn add_clarification(
        self: &Arc<Self>,
        contest: String,
        q: NewQuestion,
        limit: Option<AskLimit>,
    ) -> Result<i64, DbError> {
        self.db(move |s| {
            let _one_at_a_time = ASKING.lock().unwrap_or_else(|e| e.into_inner());
            let now = now_ms();
            if let (Some(limit), Some(user)) = (limit, q.user.as_deref()) {
                let recent = s
                    .clarifications(&contest)?
                    .iter()
                    .filter(|c| c.user.as_deref() == Some(user) && c.at > now - limit.window_ms)
                    .count();
                if recent >= limit.questions {
                    return Err(StoreError::Conflict(format!(
                        "you asked {recent} questions in the last {} minutes: wait for the answers before asking more",
                        limit.window_ms / 60_000
                    )));
                }
            }
            let new = NewClarification {
                user: q.user.as_deref(),
                problem: q.problem.as_deref(),
                category: &q.category,
                to_user: q.to_user.as_deref(),
                text: &q.text,
            };
            s.add_announcement_to(&contest, &new, &q.to_more, &q.to_groups, now)
        })
        .await
    }

    /// Whether `user` took part in `contest`: submitted through it or asked a question.
    pub async fn took_part(
        self: &Arc<Self>,
        contest: String,
        user: String,
    ) -> Result<bool, DbError> {
        self.db(move |s| {
            Ok(s.standings_input(&contest)?.iter().any(|e| e.user == user)
                || (s.clarifications(&contest)?.iter()).any(|q| q.user.as_ref() == Some(&user)))
        })
        .await
    }

    /// The contest of clarification `id`.
    pub async fn clarification_contest(
        self: &Arc<Self>,
        id: i64,
    ) -> Result<Option<String>, DbError> {
        self.db(move |s| s.clarification_contest(id)).await
    }

    /// Claims question `id` for `by` (or with `None` releases it). `None`: no such question;
    /// `Some(Some(other))`: refused, `other` holds it; `Some(None)`: done.
    pub async fn claim_clarification(
        self: &Arc<Self>,
        id: i64,
        by: Option<String>,
    ) -> Result<Option<Option<String>>, DbError> {
        self.db(move |s| s.claim_clarification(id, by.as_deref(), now_ms()))
            .await
    }

    /// Answers question `id` with `text`, by `by`: to everyone when `public`, and when `None`
    /// as the last answer stood (none: to its asker only). Returns whether it was public, `None`
    /// if there is no such question.
    pub async fn answer_clarification(
        self: &Arc<Self>,
        id: i64,
        text: String,
        public: Option<bool>,
        by: String,
    ) -> Result<Option<bool>, DbError> {
        self.db(move |s| {
            let public = match public {
                Some(p) => p,
                None => s.answer_history(id)?.last().is_some_and(|a| a.public),
            };
            let ok = s.answer_clarification(id, &text, public, &by, now_ms())?;
            Ok(ok.then_some(public))
        })
        .await
    }
}
