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

use serde::Serialize;

use super::{StoreError, SubmissionInfo};
use ojd_judge::verdict::Verdict;

/// A question from a student, or an announcement from an admin.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct Clarification {
    pub id: i64,
    pub contest: String,
    /// Who asked (`None` for an announcement).
    pub user: Option<String>,
    /// The problem id it is about (`None`: the contest in general).
    pub problem: Option<String>,
    /// The question, or the announcement's text.
    pub text: String,
    pub answer: Option<String>,
    /// Everyone sees it (announcements, and answers sent to all); else only its asker.
    pub public: bool,
    pub at: i64,
    pub answered_at: Option<i64>,
    pub answered_by: Option<String>,
}

/// Where a rejudging is.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RejudgingState {
    /// Judging, or judged and waiting for an admin to apply or cancel it.
    Open,
    Applied,
    Cancelled,
}

impl RejudgingState {
    pub fn parse(s: &str) -> RejudgingState {
        match s {
            "applied" => RejudgingState::Applied,
            "cancelled" => RejudgingState::Cancelled,
            _ => RejudgingState::Open,
        }
    }

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
    #[serde(skip_serializing_if = "Option::is_none")]
    pub submission: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub problem: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub contest: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub verdict: Option<Verdict>,
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
    pub id: i64,
    pub created_at: i64,
    pub created_by: String,
    /// What it covers, as the admin asked (the filter, as JSON text).
    pub scope: String,
    pub state: RejudgingState,
    /// When it was applied or cancelled, and by whom.
    pub closed_at: Option<i64>,
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
    pub submission: i64,
    pub user: String,
    pub problem: String,
    pub before: Option<i64>,
    /// The rejudging's finished judging (`None` while waiting).
    pub after: Option<i64>,
}

/// The contests area; every backend implements it (see the layout in [`super`]).
pub trait ContestStore: Send + Sync {
    /// Queues a submission made through `contest`, in one transaction with its link.
    fn insert_in_contest(
        &self,
        new: &super::NewSubmission,
        contest: &str,
        now: i64,
    ) -> Result<i64, StoreError>;
    /// The contest a submission was made through.
    fn contest_of(&self, submission: i64) -> Result<Option<String>, StoreError>;
    /// Every submission made through `contest`, with its current judging, oldest first.
    fn contest_submissions(&self, contest: &str) -> Result<Vec<SubmissionInfo>, StoreError>;
    /// Whether an admin has unfrozen the contest's standings.
    fn unfrozen(&self, contest: &str) -> Result<bool, StoreError>;
    fn set_unfrozen(&self, contest: &str, unfrozen: bool, now: i64) -> Result<(), StoreError>;

    /// A student's question (`user` set) or an announcement (`user` None, public).
    fn add_clarification(
        &self,
        contest: &str,
        user: Option<&str>,
        problem: Option<&str>,
        text: &str,
        now: i64,
    ) -> Result<i64, StoreError>;
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
    fn rejudging(&self, id: i64) -> Result<Option<RejudgingInfo>, StoreError>;
    /// Every rejudging, newest first.
    fn rejudgings(&self) -> Result<Vec<RejudgingInfo>, StoreError>;
    fn rejudging_items(&self, id: i64) -> Result<Vec<RejudgingItem>, StoreError>;
    /// Makes every new judging of the rejudging current, all at once. Refused
    /// ([`StoreError::Conflict`]) when it is applied or cancelled already, or not fully judged.
    fn apply_rejudging(&self, id: i64, by: &str, now: i64) -> Result<u64, StoreError>;
    /// Discards the rejudging: nothing becomes current, what is still queued for it goes back
    /// to its current judging. Refused when applied or cancelled already.
    fn cancel_rejudging(&self, id: i64, by: &str, now: i64) -> Result<(), StoreError>;
}
