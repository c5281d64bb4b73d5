//! The contests area of the store: which submissions were made through a contest, a contest's
//! freeze state, clarifications and announcements, and rejudgings ([`ContestStore`]).
//!
//! Contests themselves are files (`contests/<id>/contest.toml`); the store keeps only what
//! happens during one. A rejudging is a row with the submissions it covers and, for each, the
//! judging that was current when it was made (`before`); its new judgings are ordinary judgings
//! tagged with the rejudging's id ([`Store::enqueue_rejudging`](super::Store)), which do not
//! become current until [`ContestStore::apply_rejudging`] flips them all in one transaction.
//! Applying or cancelling is allowed once: an applied or cancelled rejudging refuses both with
//! [`StoreError::Conflict`].
//!
//! Creating a rejudging (its row, its items, and its submissions queued under it) is one
//! transaction, and so are applying and cancelling. A submission is in at most one open
//! rejudging: creating a second one over it is refused until the first is applied or
//! cancelled. A rejudging made with `auto_apply` (what the admin's "rejudge" buttons make)
//! applies itself in the transaction that stores its last new judging: the same flip as an
//! admin's apply, so a student sees the old verdicts until every new judging is complete and
//! then all the new ones at once; the rejudging stays as a record of what changed.
//!
//! Concurrency (PostgreSQL; SQLite writes one transaction at a time): closing a rejudging locks
//! its row (`FOR UPDATE`), and so does `finish` for an open auto-applying one, so two hosts
//! storing its last two judgings at once serialize there: the second sees the first's judging
//! committed and applies. A flip only touches submissions whose new judging is finished (no
//! other `finish` holds them), so it cannot deadlock with a `finish` of the same rejudging.
//! Creating a rejudging locks its submissions first, so two made at once over the same
//! submission serialize and the second sees the first.

use serde::Serialize;

use super::{NewSubmission, StoreError, SubmissionInfo};
use crate::applying::{flip, judged_items, AFTER};
use crate::db::{args, Conn, Engine, Res, Row};
use crate::submissions::{info_row, insert, verdict, INFO_COLUMNS, INFO_FROM, REQUEUE};
use crate::DbError;
use ojd_judge::Verdict;

/// A question from a student, or an announcement from an admin.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Clarification {
    /// The clarification's id.
    pub id: i64,
    /// The contest it belongs to.
    pub contest: String,
    /// Who asked (`None` for an announcement).
    pub user: Option<String>,
    /// The problem id it is about (`None`: the contest in general).
    pub problem: Option<String>,
    /// The question, or the announcement's text.
    pub text: String,
    /// The jury's answer (`None`: not answered yet); a re-answer replaces it and keeps the earlier
    /// one in the history.
    pub answer: Option<String>,
    /// Everyone sees it (announcements, and answers sent to all); else only its asker.
    pub public: bool,
    /// When it was asked or announced (Unix ms).
    pub at: i64,
    /// When it was answered (Unix ms).
    pub answered_at: Option<i64>,
    /// Who answered it.
    pub answered_by: Option<String>,
    /// "general", "technical", or "problem" (about `problem`).
    pub category: String,
    /// An announcement to one team only (its user name); `None`: to everyone.
    pub to_user: Option<String>,
    /// An announcement's further teams (user names) after `to_user`: the teams named and the
    /// teams of its groups when it was sent.
    pub to_more: Vec<String>,
    /// The groups (their names) an announcement was sent to.
    pub to_groups: Vec<String>,
    /// The jury member who claimed the question to answer it, and when.
    pub claimed_by: Option<String>,
    /// When it was claimed (Unix ms).
    pub claimed_at: Option<i64>,
}

/// A new clarification: a question (`user` set) or an announcement (`user` None; `to_user`
/// for one team only).
#[derive(Clone, Debug)]
pub struct NewClarification<'a> {
    /// Who asks (`None` for an announcement).
    pub user: Option<&'a str>,
    /// The problem id it is about (`None`: the contest in general).
    pub problem: Option<&'a str>,
    /// "general", "technical" or "problem".
    pub category: &'a str,
    /// An announcement to one team only (its user name); `None`: to everyone.
    pub to_user: Option<&'a str>,
    /// The question, or the announcement's text.
    pub text: &'a str,
}

/// A balloon marked delivered: the first solve of `problem` by `user`, by whom and when.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct BalloonDone {
    /// The team that solved the problem.
    pub user: String,
    /// The problem's id.
    pub problem: String,
    /// Who delivered the balloon.
    pub by: String,
    /// When it was marked delivered (Unix ms).
    pub at: i64,
}

/// The last change of a contest's freeze: unfrozen or frozen again, when and by whom.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct FreezeChange {
    /// True when the results are shown whole (unfrozen), false when frozen again.
    pub unfrozen: bool,
    /// When it changed (Unix ms).
    pub changed_at: i64,
    /// `None` for a change stored before who made it was recorded.
    pub changed_by: Option<String>,
}

/// One line of the audit log: what a director (or a login) did.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AuditEntry {
    /// The entry's id, increasing with time.
    pub id: i64,
    /// When it happened (Unix ms).
    pub at: i64,
    /// Who did it (a user name, or the address of a failed login).
    pub actor: String,
    /// What: "freeze", "unfreeze", "rejudging", "upload", "token", "login", "login-failed", ...
    pub action: String,
    /// The contest it concerns, if any.
    pub contest: Option<String>,
    /// Free text saying what exactly was done (the rejudging's id, the uploaded file).
    pub detail: String,
}

/// One answer a question had (a re-answer keeps the earlier ones).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct AnswerRecord {
    /// The answer's text.
    pub answer: String,
    /// Whether it was sent to everyone or only to the asker.
    pub public: bool,
    /// Who answered.
    pub answered_by: String,
    /// When (Unix ms).
    pub answered_at: i64,
}

/// The jury's verdict for a submission, over the judge's, with its reason.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct VerdictOverride {
    /// The submission's id.
    pub submission: i64,
    /// The jury's verdict.
    pub verdict: Verdict,
    /// Why the jury set it (shown to admins, kept in the history).
    pub reason: String,
    /// Who set it.
    pub by: String,
    /// When (Unix ms).
    pub at: i64,
}

/// The reason of an override's history row that removed the jury's verdict.
pub const REMOVED: &str = "the jury's verdict removed";

/// One change of the jury's verdict for a submission, as [`ContestStore::set_override`] keeps
/// it (in the transaction of the change): what every page showed before and after, who, when
/// and why. The history is kept whole (no limit), oldest first.
#[derive(Clone, Debug, Serialize, PartialEq, Eq)]
pub struct OverrideChange {
    /// The submission's id.
    pub submission: i64,
    /// When it changed (Unix ms).
    pub at: i64,
    /// Who changed it.
    pub by: String,
    /// The verdict code shown before: the jury's, else the judge's; "none" while unjudged,
    /// "?" for an override made before this history was kept (copied from the current
    /// override when the table was made).
    pub from: String,
    /// The verdict code shown after: the jury's, or the judge's again when it was removed.
    pub to: String,
    /// Why (the jury's reason), or "the jury's verdict removed".
    pub reason: String,
    /// Whether the jury's verdict was removed.
    pub removed: bool,
}

/// Where a rejudging is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RejudgingState {
    /// Judging, or judged and waiting for an admin to apply or cancel it.
    Open,
    /// Applied: its judgings became the current ones.
    Applied,
    /// Cancelled: its judgings were kept but never became current.
    Cancelled,
}

impl RejudgingState {
    /// The state a database value names; anything unknown reads as open.
    pub fn parse(s: &str) -> RejudgingState {
        match s {
            "applied" => RejudgingState::Applied,
            "cancelled" => RejudgingState::Cancelled,
            _ => RejudgingState::Open,
        }
    }

    /// The state's name as the database and the API spell it (`open`, `applied`, `cancelled`).
    pub fn as_str(self) -> &'static str {
        match self {
            RejudgingState::Open => "open",
            RejudgingState::Applied => "applied",
            RejudgingState::Cancelled => "cancelled",
        }
    }
}

/// Which submissions a rejudging covers; every set field must match. Only submissions that
/// have a current judging are taken.
#[derive(Clone, Debug, Default, Serialize)]
pub struct RejudgeFilter {
    /// Only this submission.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submission: Option<i64>,
    /// Only submissions to this problem.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    /// Only submissions made through this contest.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contest: Option<String>,
    /// Only submissions whose current judging has this verdict.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
    /// Only submissions in this language (its id).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub language: Option<String>,
    /// Submitted at or after this time (Unix ms).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub from_ms: Option<i64>,
    /// Submitted before this time.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub to_ms: Option<i64>,
}

/// A rejudging's row, with its progress.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RejudgingInfo {
    /// The rejudging's id.
    pub id: i64,
    /// When it was made (Unix ms).
    pub created_at: i64,
    /// Who made it.
    pub created_by: String,
    /// What it covers, as the admin asked (the filter, as JSON text).
    pub scope: String,
    /// Whether it is open, applied or cancelled.
    pub state: RejudgingState,
    /// When it was applied or cancelled, and by whom.
    pub closed_at: Option<i64>,
    /// Who applied or cancelled it.
    pub closed_by: Option<String>,
    /// Applies itself when its last new judging is stored (closed by its creator).
    pub auto_apply: bool,
    /// Submissions it covers.
    pub total: u32,
    /// Of those, judged again so far.
    pub judged: u32,
}

/// One submission of a rejudging: the judging current when it was made, and the new one.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct RejudgingItem {
    /// The submission's id.
    pub submission: i64,
    /// The user who submitted it.
    pub user: String,
    /// The problem's id.
    pub problem: String,
    /// The judging current when the rejudging was made (`None` if there was none).
    pub before: Option<i64>,
    /// The rejudging's finished judging (`None` while waiting).
    pub after: Option<i64>,
}

/// A submission made through a contest, as the standings read it
/// ([`ContestStore::standings_input`]): only what ranking needs, without the source's length, the
/// judging counts or anything else the submission pages show.
#[derive(Clone, Debug, PartialEq)]
pub struct StandingsEntry {
    /// The submission's id.
    pub id: i64,
    /// The user who submitted it (a team).
    pub user: String,
    /// The problem's id.
    pub problem: String,
    /// When it was submitted (Unix ms): the standings count contest time from it.
    pub queued_at: i64,
    /// An admin's submission through the contest (never ranked).
    pub jury: bool,
    /// The current judging (`None` until the first one finishes).
    pub judging: Option<i64>,
    /// The current judging's verdict (`None` until one finishes).
    pub verdict: Option<Verdict>,
    /// The current judging's exact score in thousandths of a point.
    pub score_milli: Option<u64>,
    /// The jury's verdict over the judge's ([`ContestStore::set_override`]), if any.
    pub overridden: Option<Verdict>,
}

/// The contests area; every backend implements it (see the layout in [`super`]).
pub trait ContestStore: Send + Sync {
    /// Queues a (ranked) submission made through `contest`, in one transaction with its link.
    fn insert_in_contest(
        &self,
        new: &NewSubmission,
        contest: &str,
        now: i64,
    ) -> Result<i64, StoreError> {
        self.insert_in_contest_as(new, contest, false, now)
    }
    /// The same, marked as the jury's (`jury`: an admin's test, never ranked).
    fn insert_in_contest_as(
        &self,
        new: &NewSubmission,
        contest: &str,
        jury: bool,
        now: i64,
    ) -> Result<i64, StoreError>;
    /// Marks a contest submission as the jury's (never ranked: an ignored submission) or a
    /// ranked one again; `false` when it was made through no contest.
    fn set_jury(&self, submission: i64, jury: bool) -> Result<bool, StoreError>;
    /// The balloons of `contest` marked delivered: (user, problem) with who and when.
    fn balloons_done(&self, contest: &str) -> Result<Vec<BalloonDone>, StoreError>;
    /// Marks the balloon of `user`'s first solve of `problem` delivered (`done`), or not
    /// delivered again; marking a delivered balloon again keeps the first mark.
    fn set_balloon(
        &self,
        contest: &str,
        user: &str,
        problem: &str,
        done: Option<(&str, i64)>,
    ) -> Result<(), StoreError>;
    /// Sets (or with `None` removes) the jury's verdict for a submission, and adds the change
    /// to its history ([`ContestStore::override_history`]) in the same transaction; `false`
    /// when there is no such submission.
    fn set_override(
        &self,
        submission: i64,
        verdict: Option<(Verdict, &str)>,
        by: &str,
        now: i64,
    ) -> Result<bool, StoreError>;
    /// The overrides of `ids` (those without one are left out).
    fn overrides_of(&self, ids: &[i64]) -> Result<Vec<VerdictOverride>, StoreError>;
    /// Every change of the jury's verdict for `submission`, oldest first.
    fn override_history(&self, submission: i64) -> Result<Vec<OverrideChange>, StoreError>;
    /// Whether a submission is the jury's (or ignored).
    fn is_jury(&self, submission: i64) -> Result<bool, StoreError>;
    /// The contest each of `ids` was made through (those made through none are left out).
    fn contests_of(&self, ids: &[i64]) -> Result<Vec<(i64, String)>, StoreError>;
    /// The last change of the contest's freeze (`None`: never changed).
    fn freeze_change(&self, contest: &str) -> Result<Option<FreezeChange>, StoreError>;
    /// Unfreezes (`unfrozen`) or freezes again, recording who.
    fn set_freeze_by(
        &self,
        contest: &str,
        unfrozen: bool,
        by: &str,
        now: i64,
    ) -> Result<(), StoreError>;
    /// Appends a line to the audit log.
    fn add_audit(
        &self,
        actor: &str,
        action: &str,
        contest: Option<&str>,
        detail: &str,
        now: i64,
    ) -> Result<(), StoreError>;
    /// The newest `limit` lines of the audit log (of one contest, or all), newest first.
    fn audit_log(&self, contest: Option<&str>, limit: u32) -> Result<Vec<AuditEntry>, StoreError>;
    /// Every answer a question had, oldest first: (answer, public, by, at).
    fn answer_history(&self, clarification: i64) -> Result<Vec<AnswerRecord>, StoreError>;
    /// Every answer of every question of `contest`, with its question's id, in the order they
    /// were given (a question's replies for the Contest API: each one is kept).
    fn contest_answers(&self, contest: &str) -> Result<Vec<(i64, AnswerRecord)>, StoreError>;
    /// The contest a submission was made through.
    fn contest_of(&self, submission: i64) -> Result<Option<String>, StoreError>;
    /// The contest of clarification `id` (`None`: no such clarification).
    fn clarification_contest(&self, id: i64) -> Result<Option<String>, StoreError>;
    /// Every submission made through `contest`, with its current judging, oldest first.
    fn contest_submissions(&self, contest: &str) -> Result<Vec<SubmissionInfo>, StoreError>;
    /// The standings' input: every submission made through `contest` (the jury's flagged) with
    /// its current judging's verdict and exact score and the jury's override, by id. One index
    /// range (`contest_submissions(contest, submission, jury)`) and primary-key lookups per row.
    fn standings_input(&self, contest: &str) -> Result<Vec<StandingsEntry>, StoreError>;

    /// A student's question (`user` set) or an announcement (`user` None; public unless to
    /// one team), with its category.
    fn add_clarification_to(
        &self,
        contest: &str,
        new: &NewClarification<'_>,
        now: i64,
    ) -> Result<i64, StoreError>;
    /// An announcement (`new.user` None) to `new.to_user` and the further teams `to_more`
    /// (user names) and to the groups `to_groups` (their names: shown, the teams being in
    /// `to_more`); public only when it names nobody.
    fn add_announcement_to(
        &self,
        contest: &str,
        new: &NewClarification<'_>,
        to_more: &[String],
        to_groups: &[String],
        now: i64,
    ) -> Result<i64, StoreError>;
    /// Claims question `id` for jury member `by` (or with `None` releases it). `None`: no such
    /// question; `Some(Some(other))`: refused, `other` holds it; `Some(None)`: done.
    fn claim_clarification(
        &self,
        id: i64,
        by: Option<&str>,
        now: i64,
    ) -> Result<Option<Option<String>>, StoreError>;
    /// Answers a question, to its asker or to everyone; `false` if there is no such question.
    fn answer_clarification(
        &self,
        id: i64,
        answer: &str,
        public: bool,
        by: &str,
        now: i64,
    ) -> Result<bool, StoreError>;
    /// Every clarification of a contest, newest first.
    fn clarifications(&self, contest: &str) -> Result<Vec<Clarification>, StoreError>;

    /// The ids of the submissions `filter` selects, oldest first.
    fn select_for_rejudging(&self, filter: &RejudgeFilter) -> Result<Vec<i64>, StoreError>;
    /// Records a rejudging of `submissions` (remembering each one's current judging) and
    /// queues them under it, in one transaction. Returns its id. Only submissions that have a
    /// current judging are taken; [`StoreError::Conflict`] (and nothing recorded) when none
    /// has, or when one of them is in another open rejudging.
    fn create_rejudging(
        &self,
        scope: &str,
        by: &str,
        submissions: &[i64],
        auto_apply: bool,
        now: i64,
    ) -> Result<i64, StoreError>;
    /// One rejudging with its progress, if it exists.
    fn rejudging(&self, id: i64) -> Result<Option<RejudgingInfo>, StoreError>;
    /// Every rejudging, newest first.
    fn rejudgings(&self) -> Result<Vec<RejudgingInfo>, StoreError>;
    /// Every submission of a rejudging with its judging before and after.
    fn rejudging_items(&self, id: i64) -> Result<Vec<RejudgingItem>, StoreError>;
    /// Makes every new judging of the rejudging current, all at once. Refused
    /// ([`StoreError::Conflict`]) when it is applied or cancelled already, or not fully judged.
    fn apply_rejudging(&self, id: i64, by: &str, now: i64) -> Result<u64, StoreError>;
    /// Discards the rejudging: nothing becomes current, what is still queued for it goes back
    /// to its current judging. Refused when applied or cancelled already.
    fn cancel_rejudging(&self, id: i64, by: &str, now: i64) -> Result<(), StoreError>;
}

const REJUDGING_SELECT: &str = "SELECT r.id, r.created_at, r.created_by, r.scope, r.state,
       r.closed_at, r.closed_by, r.auto_apply,
       (SELECT COUNT(*) FROM rejudging_items i WHERE i.rejudging = r.id),
       (SELECT COUNT(*) FROM rejudging_items i WHERE i.rejudging = r.id AND EXISTS
          (SELECT 1 FROM judgings j WHERE j.submission = i.submission AND j.rejudging = r.id
             AND j.finished_at IS NOT NULL))
     FROM rejudgings r";

fn clarification_row(r: &Row<'_>) -> Result<Clarification, DbError> {
    Ok(Clarification {
        id: r.get(0)?,
        contest: r.get(1)?,
        user: r.get(2)?,
        problem: r.get(3)?,
        text: r.get(4)?,
        answer: r.get(5)?,
        public: r.get(6)?,
        at: r.get(7)?,
        answered_at: r.get(8)?,
        answered_by: r.get(9)?,
        category: r.get(10)?,
        to_user: r.get(11)?,
        claimed_by: r.get(12)?,
        claimed_at: r.get(13)?,
        to_more: names(r.get(14)?),
        to_groups: names(r.get(15)?),
    })
}

/// A list of names as a column holds it: one a line, NULL when empty (a user or group name
/// is one line).
pub(crate) fn names_text(names: &[String]) -> Option<String> {
    (!names.is_empty()).then(|| names.join("\n"))
}

fn names(text: Option<String>) -> Vec<String> {
    text.map_or_else(Vec::new, |t| t.lines().map(str::to_string).collect())
}

fn rejudging_row(r: &Row<'_>) -> Result<RejudgingInfo, DbError> {
    Ok(RejudgingInfo {
        id: r.get(0)?,
        created_at: r.get(1)?,
        created_by: r.get(2)?,
        scope: r.get(3)?,
        state: RejudgingState::parse(&r.get::<String>(4)?),
        closed_at: r.get(5)?,
        closed_by: r.get(6)?,
        auto_apply: r.get(7)?,
        total: r.get(8)?,
        judged: r.get(9)?,
    })
}

/// Refuses to close a rejudging twice (and locks it for the closing transaction).
fn open_or_conflict(c: &mut Conn<'_>, id: i64) -> Res<()> {
    let sql = "SELECT state FROM rejudgings WHERE id = $1 FOR UPDATE";
    let state = c.row("read a rejudging", sql, args![id], |r| r.get::<String>(0))?;
    match state.as_deref().map(RejudgingState::parse) {
        None => Err(StoreError::Conflict(format!("there is no rejudging {id}"))),
        Some(RejudgingState::Open) => Ok(()),
        Some(s) => Err(StoreError::Conflict(format!(
            "rejudging {id} was {} already",
            s.as_str()
        ))),
    }
}

impl<E: Engine> ContestStore for E {
    fn insert_in_contest_as(
        &self,
        new: &NewSubmission,
        contest: &str,
        jury: bool,
        now: i64,
    ) -> Result<i64, StoreError> {
        let link =
            "INSERT INTO contest_submissions (submission, contest, jury) VALUES ($1, $2, $3)";
        self.tx(
            "start a contest submission",
            "commit a contest submission",
            |c| {
                let id = insert(c, new, now)?;
                let what = "link a submission to its contest";
                c.exec(what, link, args![id, contest, jury])?;
                Ok(id)
            },
        )
    }

    fn set_jury(&self, submission: i64, jury: bool) -> Result<bool, StoreError> {
        let sql = "UPDATE contest_submissions SET jury = $2 WHERE submission = $1";
        Ok(self.exec("ignore a submission", sql, args![submission, jury])? > 0)
    }

    fn balloons_done(&self, contest: &str) -> Result<Vec<BalloonDone>, StoreError> {
        let sql = "SELECT user_name, problem, done_by, done_at FROM balloons
             WHERE contest = $1 ORDER BY done_at, user_name, problem";
        self.rows("read the balloons", sql, args![contest], |r| {
            Ok(BalloonDone {
                user: r.get(0)?,
                problem: r.get(1)?,
                by: r.get(2)?,
                at: r.get(3)?,
            })
        })
    }

    fn set_balloon(
        &self,
        contest: &str,
        user: &str,
        problem: &str,
        done: Option<(&str, i64)>,
    ) -> Result<(), StoreError> {
        match done {
            Some((by, at)) => {
                let sql = "INSERT INTO balloons (contest, user_name, problem, done_by, done_at)
                     VALUES ($1, $2, $3, $4, $5)
                     ON CONFLICT (contest, user_name, problem) DO NOTHING";
                let a = args![contest, user, problem, by, at];
                self.exec("mark a balloon delivered", sql, a).map(drop)
            }
            None => {
                let sql = "DELETE FROM balloons
                     WHERE contest = $1 AND user_name = $2 AND problem = $3";
                let a = args![contest, user, problem];
                self.exec("mark a balloon not delivered", sql, a).map(drop)
            }
        }
    }

    fn set_override(
        &self,
        submission: i64,
        verdict: Option<(Verdict, &str)>,
        by: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        // The submission with its judge's verdict and the jury's, read in the transaction.
        let shown = "SELECT s.id, j.verdict, o.verdict FROM submissions s
             LEFT JOIN judgings j ON j.id = s.current_judging
             LEFT JOIN verdict_overrides o ON o.submission = s.id
             WHERE s.id = $1";
        let clear = "DELETE FROM verdict_overrides WHERE submission = $1";
        let set = "INSERT INTO verdict_overrides (submission, verdict, reason, by_user, at)
             VALUES ($1, $2, $3, $4, $5)";
        let log = "INSERT INTO verdict_override_history
             (submission, from_verdict, to_verdict, reason, by_user, at, removed)
             VALUES ($1, $2, $3, $4, $5, $6, $7)";
        self.tx("start an override", "commit an override", |c| {
            let what = "find the submission to override";
            let Some((judged, jury)) = c.row(what, shown, args![submission], |r| {
                Ok((r.get::<Option<String>>(1)?, r.get::<Option<String>>(2)?))
            })?
            else {
                return Ok(false);
            };
            let judged = judged.unwrap_or_else(|| "none".into());
            let from = jury.unwrap_or_else(|| judged.clone());
            c.exec("clear an override", clear, args![submission])?;
            let (to, reason, removed) = match verdict {
                Some((v, reason)) => {
                    let args = args![submission, v.code(), reason, by, now];
                    c.exec("store an override", set, args)?;
                    (v.code().to_string(), reason.to_string(), false)
                }
                None => (judged, REMOVED.to_string(), true),
            };
            let args = args![submission, &from, &to, &reason, by, now, removed];
            c.exec("keep an override's history", log, args)?;
            Ok(true)
        })
    }

    fn overrides_of(&self, ids: &[i64]) -> Result<Vec<VerdictOverride>, StoreError> {
        let sql = "SELECT submission, verdict, reason, by_user, at FROM verdict_overrides
             WHERE submission = ANY($1) ORDER BY submission";
        self.rows("read verdict overrides", sql, args![ids], |r| {
            let code: String = r.get(1)?;
            Ok(VerdictOverride {
                submission: r.get(0)?,
                verdict: Verdict::from_code(&code).unwrap_or(Verdict::JudgeError),
                reason: r.get(2)?,
                by: r.get(3)?,
                at: r.get(4)?,
            })
        })
    }

    fn override_history(&self, submission: i64) -> Result<Vec<OverrideChange>, StoreError> {
        let sql = "SELECT submission, at, by_user, from_verdict, to_verdict, reason, removed
             FROM verdict_override_history WHERE submission = $1 ORDER BY at, id";
        self.rows("read an override history", sql, args![submission], |r| {
            Ok(OverrideChange {
                submission: r.get(0)?,
                at: r.get(1)?,
                by: r.get(2)?,
                from: r.get(3)?,
                to: r.get(4)?,
                reason: r.get(5)?,
                removed: r.get(6)?,
            })
        })
    }

    fn is_jury(&self, submission: i64) -> Result<bool, StoreError> {
        let sql = "SELECT jury FROM contest_submissions WHERE submission = $1";
        let v = self.row(
            "read a submission's jury mark",
            sql,
            args![submission],
            |r| r.get(0),
        )?;
        Ok(v.unwrap_or(false))
    }

    fn contests_of(&self, ids: &[i64]) -> Result<Vec<(i64, String)>, StoreError> {
        let sql = "SELECT submission, contest FROM contest_submissions
             WHERE submission = ANY($1) ORDER BY submission";
        self.rows("read submissions' contests", sql, args![ids], |r| {
            Ok((r.get(0)?, r.get(1)?))
        })
    }

    fn freeze_change(&self, contest: &str) -> Result<Option<FreezeChange>, StoreError> {
        let sql = "SELECT unfrozen, changed_at, changed_by FROM contest_state WHERE contest = $1";
        self.row("read a contest's freeze", sql, args![contest], |r| {
            Ok(FreezeChange {
                unfrozen: r.get(0)?,
                changed_at: r.get(1)?,
                changed_by: r.get(2)?,
            })
        })
    }

    fn set_freeze_by(
        &self,
        contest: &str,
        unfrozen: bool,
        by: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        let sql = "INSERT INTO contest_state (contest, unfrozen, changed_at, changed_by)
             VALUES ($1, $2, $3, $4)
             ON CONFLICT (contest) DO UPDATE SET unfrozen = excluded.unfrozen,
               changed_at = excluded.changed_at, changed_by = excluded.changed_by";
        let args = args![contest, unfrozen, now, by];
        self.exec("change a contest's freeze", sql, args).map(drop)
    }

    fn add_audit(
        &self,
        actor: &str,
        action: &str,
        contest: Option<&str>,
        detail: &str,
        now: i64,
    ) -> Result<(), StoreError> {
        let sql = "INSERT INTO audit (at, actor, action, contest, detail)
             VALUES ($1, $2, $3, $4, $5)";
        let args = args![now, actor, action, contest, detail];
        self.exec("write the audit log", sql, args).map(drop)
    }

    fn audit_log(&self, contest: Option<&str>, limit: u32) -> Result<Vec<AuditEntry>, StoreError> {
        let sql = "SELECT id, at, actor, action, contest, detail FROM audit
             WHERE ($1 IS NULL OR contest = $1) ORDER BY id DESC LIMIT $2";
        let args = args![contest, i64::from(limit)];
        self.rows("read the audit log", sql, args, |r| {
            Ok(AuditEntry {
                id: r.get(0)?,
                at: r.get(1)?,
                actor: r.get(2)?,
                action: r.get(3)?,
                contest: r.get(4)?,
                detail: r.get(5)?,
            })
        })
    }

    fn answer_history(&self, clarification: i64) -> Result<Vec<AnswerRecord>, StoreError> {
        let sql = "SELECT answer, public, answered_by, answered_at FROM clarification_answers
             WHERE clarification = $1 ORDER BY id";
        self.rows(
            "read a question's answers",
            sql,
            args![clarification],
            |r| {
                Ok(AnswerRecord {
                    answer: r.get(0)?,
                    public: r.get(1)?,
                    answered_by: r.get(2)?,
                    answered_at: r.get(3)?,
                })
            },
        )
    }

    fn contest_answers(&self, contest: &str) -> Result<Vec<(i64, AnswerRecord)>, StoreError> {
        let sql = "SELECT a.clarification, a.answer, a.public, a.answered_by, a.answered_at
             FROM clarification_answers a JOIN clarifications q ON q.id = a.clarification
             WHERE q.contest = $1 ORDER BY a.id";
        self.rows("read a contest's answers", sql, args![contest], |r| {
            Ok((
                r.get(0)?,
                AnswerRecord {
                    answer: r.get(1)?,
                    public: r.get(2)?,
                    answered_by: r.get(3)?,
                    answered_at: r.get(4)?,
                },
            ))
        })
    }

    fn contest_of(&self, submission: i64) -> Result<Option<String>, StoreError> {
        let what = "read a submission's contest";
        let sql = "SELECT contest FROM contest_submissions WHERE submission = $1";
        self.row(what, sql, args![submission], |r| r.get(0))
    }

    fn clarification_contest(&self, id: i64) -> Result<Option<String>, StoreError> {
        let what = "read a clarification's contest";
        let sql = "SELECT contest FROM clarifications WHERE id = $1";
        self.row(what, sql, args![id], |r| r.get(0))
    }

    fn contest_submissions(&self, contest: &str) -> Result<Vec<SubmissionInfo>, StoreError> {
        let sql = format!(
            "SELECT {INFO_COLUMNS} FROM {INFO_FROM}
             JOIN contest_submissions c ON c.submission = s.id
             WHERE c.contest = $1 ORDER BY s.id"
        );
        self.rows(
            "list a contest's submissions",
            &sql,
            args![contest],
            info_row,
        )
    }

    fn standings_input(&self, contest: &str) -> Result<Vec<StandingsEntry>, StoreError> {
        let sql = r#"SELECT s.id, s."user", s.problem, s.queued_at, c.jury, j.id, j.verdict,
               j.score_milli, o.verdict
             FROM contest_submissions c
             JOIN submissions s ON s.id = c.submission
             LEFT JOIN judgings j ON j.id = s.current_judging
             LEFT JOIN verdict_overrides o ON o.submission = c.submission
             WHERE c.contest = $1 ORDER BY c.submission"#;
        let what = "read a contest's standings input";
        self.rows(what, sql, args![contest], |r| {
            Ok(StandingsEntry {
                id: r.get(0)?,
                user: r.get(1)?,
                problem: r.get(2)?,
                queued_at: r.get(3)?,
                jury: r.get(4)?,
                judging: r.get(5)?,
                verdict: verdict(r.get(6)?),
                score_milli: r.get(7)?,
                overridden: verdict(r.get(8)?),
            })
        })
    }

    fn add_clarification_to(
        &self,
        contest: &str,
        new: &NewClarification<'_>,
        now: i64,
    ) -> Result<i64, StoreError> {
        self.add_announcement_to(contest, new, &[], &[], now)
    }

    fn add_announcement_to(
        &self,
        contest: &str,
        new: &NewClarification<'_>,
        to_more: &[String],
        to_groups: &[String],
        now: i64,
    ) -> Result<i64, StoreError> {
        let sql = r#"INSERT INTO clarifications
               (contest, "user", problem, text, public, at, category, to_user, to_teams, to_groups)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10) RETURNING id"#;
        // Public: an announcement to everyone; a question or a team's announcement is not.
        let public = new.user.is_none()
            && new.to_user.is_none()
            && to_more.is_empty()
            && to_groups.is_empty();
        let (more, groups) = (names_text(to_more), names_text(to_groups));
        let args = args![
            contest,
            new.user,
            new.problem,
            new.text,
            public,
            now,
            new.category,
            new.to_user,
            &more,
            &groups
        ];
        self.one("store a clarification", sql, args, |r| r.get(0))
    }

    fn claim_clarification(
        &self,
        id: i64,
        by: Option<&str>,
        now: i64,
    ) -> Result<Option<Option<String>>, StoreError> {
        let read = r#"SELECT claimed_by FROM clarifications WHERE id = $1 AND "user" IS NOT NULL"#;
        let set = "UPDATE clarifications SET claimed_by = $2, claimed_at = $3 WHERE id = $1";
        self.tx("start a claim", "commit a claim", |c| {
            let Some(holder) = c.row("read a claim", read, args![id], |r| {
                r.get::<Option<String>>(0)
            })?
            else {
                return Ok(None);
            };
            if let (Some(h), Some(me)) = (&holder, by) {
                if h != me {
                    return Ok(Some(Some(h.clone())));
                }
            }
            let at = by.map(|_| now);
            c.exec("claim a clarification", set, args![id, by, at])?;
            Ok(Some(None))
        })
    }

    fn answer_clarification(
        &self,
        id: i64,
        answer: &str,
        public: bool,
        by: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        let sql = r#"UPDATE clarifications
             SET answer = $2, public = $3, answered_by = $4, answered_at = $5
             WHERE id = $1 AND "user" IS NOT NULL"#;
        let keep = "INSERT INTO clarification_answers
             (clarification, answer, public, answered_by, answered_at) VALUES ($1, $2, $3, $4, $5)";
        self.tx("start an answer", "commit an answer", |c| {
            let args = args![id, answer, public, by, now];
            if c.exec("answer a clarification", sql, args)? == 0 {
                return Ok(false);
            }
            c.exec("keep the answer's history", keep, args)?;
            Ok(true)
        })
    }

    fn clarifications(&self, contest: &str) -> Result<Vec<Clarification>, StoreError> {
        let sql = r#"SELECT id, contest, "user", problem, text, answer, public, at, answered_at,
               answered_by, category, to_user, claimed_by, claimed_at, to_teams, to_groups
             FROM clarifications WHERE contest = $1 ORDER BY id DESC"#;
        self.rows(
            "list clarifications",
            sql,
            args![contest],
            clarification_row,
        )
    }

    fn select_for_rejudging(&self, f: &RejudgeFilter) -> Result<Vec<i64>, StoreError> {
        let sql = "SELECT s.id FROM submissions s JOIN judgings j ON j.id = s.current_judging
             WHERE ($1 IS NULL OR s.id = $1) AND ($2 IS NULL OR s.problem = $2)
               AND ($3 IS NULL OR s.id IN
                 (SELECT submission FROM contest_submissions WHERE contest = $3))
               AND ($4 IS NULL OR j.verdict = $4) AND ($5 IS NULL OR s.language = $5)
               AND ($6 IS NULL OR s.queued_at >= $6) AND ($7 IS NULL OR s.queued_at < $7)
             ORDER BY s.id";
        let verdict = f.verdict.map(|v| v.code());
        let args = args![
            f.submission,
            &f.problem,
            &f.contest,
            verdict,
            &f.language,
            f.from_ms,
            f.to_ms
        ];
        self.rows("select submissions to rejudge", sql, args, |r| r.get(0))
    }

    fn create_rejudging(
        &self,
        scope: &str,
        by: &str,
        submissions: &[i64],
        auto_apply: bool,
        now: i64,
    ) -> Result<i64, StoreError> {
        // The submissions are locked first (see the module docs).
        let lock = "SELECT id FROM submissions WHERE id = ANY($1) AND current_judging IS NOT NULL
             ORDER BY id FOR UPDATE";
        let busy = "SELECT i.submission, r.id FROM rejudging_items i
             JOIN rejudgings r ON r.id = i.rejudging
             WHERE i.submission = ANY($1) AND r.state = 'open' ORDER BY i.submission LIMIT 1";
        let record = "INSERT INTO rejudgings (created_at, created_by, scope, auto_apply)
             VALUES ($1, $2, $3, $4) RETURNING id";
        let items = "INSERT INTO rejudging_items (rejudging, submission, before_judging)
             SELECT $1, id, current_judging FROM submissions WHERE id = ANY($2)";
        let queue = format!("{REQUEUE}, pending_rejudging = $2 WHERE id = ANY($1)");
        self.tx("start a rejudging", "commit a rejudging", |c| {
            let what = "lock the submissions to rejudge";
            let taken: Vec<i64> = c.rows(what, lock, args![submissions], |r| r.get(0))?;
            let taken = &taken[..];
            let busy = c.row("check for open rejudgings", busy, args![taken], |r| {
                Ok((r.get::<i64>(0)?, r.get::<i64>(1)?))
            })?;
            if let Some((s, r)) = busy {
                return Err(StoreError::Conflict(format!(
                    "submission {s} is in rejudging {r}, which is still open: apply or cancel it first"
                )));
            }
            if taken.is_empty() {
                return Err(StoreError::Conflict(
                    "none of these submissions has a verdict yet; nothing to rejudge".into(),
                ));
            }
            let args = args![now, by, scope, auto_apply];
            let id: i64 = c.one("record a rejudging", record, args, |r| r.get(0))?;
            c.exec("record a rejudging", items, args![id, taken])?;
            // Queued under the rejudging: its judgings will not become current by themselves.
            c.exec("queue a rejudging", &queue, args![taken, id])?;
            Ok(id)
        })
    }

    fn rejudging(&self, id: i64) -> Result<Option<RejudgingInfo>, StoreError> {
        let sql = format!("{REJUDGING_SELECT} WHERE r.id = $1");
        self.row("read a rejudging", &sql, args![id], rejudging_row)
    }

    fn rejudgings(&self) -> Result<Vec<RejudgingInfo>, StoreError> {
        let sql = format!("{REJUDGING_SELECT} ORDER BY r.id DESC LIMIT 200");
        self.rows("list rejudgings", &sql, args![], rejudging_row)
    }

    fn rejudging_items(&self, id: i64) -> Result<Vec<RejudgingItem>, StoreError> {
        let sql = format!(
            r#"SELECT i.submission, s."user", s.problem, i.before_judging, {AFTER}
               FROM rejudging_items i JOIN submissions s ON s.id = i.submission
               WHERE i.rejudging = $1 ORDER BY i.submission"#
        );
        self.rows("list a rejudging's submissions", &sql, args![id], |r| {
            Ok(RejudgingItem {
                submission: r.get(0)?,
                user: r.get(1)?,
                problem: r.get(2)?,
                before: r.get(3)?,
                after: r.get(4)?,
            })
        })
    }

    fn apply_rejudging(&self, id: i64, by: &str, now: i64) -> Result<u64, StoreError> {
        self.tx("start applying a rejudging", "commit an applied rejudging", |c| {
            open_or_conflict(c, id)?;
            let (pairs, waiting) = judged_items(c, id)?;
            if waiting > 0 {
                return Err(StoreError::Conflict(format!(
                    "rejudging {id} is not finished: {waiting} of {} submissions are still waiting to be judged",
                    pairs.len() + waiting
                )));
            }
            flip(c, id, &pairs, by, now)
        })
    }

    fn cancel_rejudging(&self, id: i64, by: &str, now: i64) -> Result<(), StoreError> {
        // Still queued for it: back to the current judging (or, with none, an ordinary judging).
        let back = "UPDATE submissions
             SET state = CASE WHEN current_judging IS NULL THEN 'queued' ELSE 'done' END,
               pending_rejudging = NULL
             WHERE pending_rejudging = $1 AND state = 'queued'";
        let close = "UPDATE rejudgings SET state = 'cancelled', closed_at = $2, closed_by = $3
             WHERE id = $1";
        self.tx(
            "start cancelling a rejudging",
            "commit a cancelled rejudging",
            |c| {
                open_or_conflict(c, id)?;
                c.exec("cancel a rejudging", back, args![id])?;
                c.exec("cancel a rejudging", close, args![id, now, by])?;
                Ok(())
            },
        )
    }
}
