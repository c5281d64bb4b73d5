//! A submission's life, owned by the service: [`Node::submit`] inserts it (counted, logged, a
//! worker woken), the workers claim and finish it (`queue`), and the reads give it back only as
//! one viewer may see it ([`Node::seen`], [`Node::seen_row`], [`Node::seen_rows`]), through
//! the one policy of [`crate::viewer`]. The web layer builds its JSON and pages from these
//! reads and never shapes a submission by itself, so the page, the API and the live events
//! cannot show a viewer different things.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::Arc;
use std::time::Duration;

use ojd_judge::{JudgeError, Submission, TestResult, Verdict};
use ojd_store::{
    ListFilter, NewSubmission, StoreError, SubmissionDetail, SubmissionInfo, VerdictOverride,
};

use crate::catalog::Catalog;
use crate::contest::Feedback;
use crate::node::{DbError, Node};
use crate::viewer::{Policy, Sight, Viewer};

/// A submission as one viewer may see it.
#[derive(Clone, Debug)]
pub struct Seen {
    /// Its row: the judging host only for admins, the jury's verdict (if any) as `verdict`.
    pub info: SubmissionInfo,
    /// The source as submitted.
    pub source: Vec<u8>,
    /// The compiler's (capped) output.
    pub compile_output: String,
    /// Why the judge failed (admins only).
    pub judge_message: Option<String>,
    /// The sandbox's isolation warnings (admins only).
    pub warnings: Vec<String>,
    /// The finished tests, redacted and cut by the contest's feedback policy.
    pub tests: Vec<TestResult>,
    /// Tests that earned part of their credit.
    pub partial: BTreeMap<String, u32>,
    /// The contest it was made through (`None`: practice).
    pub contest: Option<String>,
    /// The jury's verdict over the judge's, with its reason.
    pub override_: Option<VerdictOverride>,
    /// The judge's verdict when the jury's replaced it.
    pub judged_verdict: Option<Verdict>,
    /// The contest's feedback policy when it hides something from this viewer.
    pub feedback: Option<Feedback>,
    /// What this viewer sees (the live stream applies it to each event).
    pub sight: Sight,
}

/// A row of a submissions list (and the live stream's `done`) as one viewer may see it.
#[derive(Clone, Debug)]
pub struct SeenRow {
    /// Its row, redacted as [`Seen::info`] is.
    pub info: SubmissionInfo,
    /// The contest it was made through (`None`: practice).
    pub contest: Option<String>,
    /// The exact points (thousandths) shown beside the verdict: for a problem scored by
    /// groups, unless the jury's verdict replaced the judge's.
    pub points: Option<u64>,
}

/// A page of a submissions list as one viewer may see it.
#[derive(Clone, Debug, Default)]
pub struct SeenPage {
    /// The rows this viewer may see, newest first.
    pub rows: Vec<SeenRow>,
    /// More rows match after these.
    pub has_more: bool,
    /// How many rows match in all (before the policy removed hidden ones).
    pub total: u64,
    /// The id of the last row the store read (the next page starts before it).
    pub last_id: Option<i64>,
}

/// A submission to insert ([`Node::submit`]), checked by the caller.
#[derive(Clone, Debug)]
pub struct NewEntry {
    /// The user it is submitted as.
    pub user: String,
    /// The problem's id.
    pub problem: String,
    /// The id of its language.
    pub language: String,
    /// The source as submitted.
    pub source: Vec<u8>,
    /// The contest it counts for (`None`: practice).
    pub contest: Option<String>,
    /// The jury's submission: shown with the contest's, never ranked.
    pub jury: bool,
    /// The client's idempotency key: a second submission with it returns the first.
    pub key: Option<String>,
}

/// Why a submission is refused before it is queued ([`Node::check_submission`]): typed, so
/// that each front end words it for its own users.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    /// A source that is not text, in a language that compiles or interprets text: binary data
    /// at byte `at` (a compiled program goes in the language `binary`).
    #[error("the source is not UTF-8 text (binary data at byte {at})")]
    NotText {
        /// Byte offset of the first byte that is not UTF-8 text.
        at: usize,
    },
    /// Any other refusal, in the judge's words (empty, too large, an unknown language, …).
    #[error("{0}")]
    Judge(String),
}

/// How long [`Node::submit`] waits for the database before it gives up with nothing stored.
pub const SUBMIT_WAIT: Duration = Duration::from_secs(4);

/// A submission [`Node::submit`] queued, or found queued under its key.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Submitted {
    /// The submission's id.
    pub id: i64,
    /// Queued by this call (`false`: made earlier with the same idempotency key).
    pub fresh: bool,
}

/// The states of a submission's commit gate (see [`Node::submit`]).
const WAITING: u8 = 0;
const COMMITTING: u8 = 1;
const GAVE_UP: u8 = 2;

impl Node {
    /// Inserts a checked submission (committed before its id is returned), counts and logs it
    /// and wakes a worker; with `entry.key`, at most once per user and key (a retry returns
    /// the first, `fresh: false`). The database gets [`SUBMIT_WAIT`]: past it the caller has
    /// [`StoreError::Unreachable`] (the web answers 503) and the insert, whenever it gets
    /// there, rolls back instead of committing, so that "not stored" is the truth. One gate
    /// decides between the two: the insert takes it just before its commit, the waiter just
    /// before it gives up; a commit already under way is waited for.
    pub async fn submit(self: &Arc<Self>, entry: NewEntry) -> Result<Submitted, DbError> {
        let NewEntry {
            user,
            problem,
            language,
            source,
            contest,
            jury,
            key,
        } = entry;
        let new = NewSubmission {
            user: user.clone(),
            problem: problem.clone(),
            language: language.clone(),
            source,
        };
        let gate = Arc::new(AtomicU8::new(WAITING));
        let store = self.store.clone();
        let insert_gate = gate.clone();
        let mut task = tokio::task::spawn_blocking(move || {
            let keep = || {
                let taken = insert_gate.compare_exchange(
                    WAITING,
                    COMMITTING,
                    Ordering::AcqRel,
                    Ordering::Acquire,
                );
                taken.is_ok()
            };
            let contest = contest.as_deref().map(|c| (c, jury));
            store.insert_once(&new, contest, key.as_deref(), crate::now_ms(), &keep)
        });
        let joined = match tokio::time::timeout(SUBMIT_WAIT, &mut task).await {
            Ok(joined) => joined,
            Err(_) => {
                let gave_up = gate
                    .compare_exchange(WAITING, GAVE_UP, Ordering::AcqRel, Ordering::Acquire)
                    .is_ok();
                if gave_up {
                    let who = user.clone();
                    tokio::spawn(async move {
                        // The operator's record of how the insert ended after its client left.
                        let end = match task.await {
                            Ok(Err(StoreError::GaveUp)) => "rolled back".to_string(),
                            Ok(Err(e)) => format!("failed: {}", crate::logging::error_chain(&e)),
                            Ok(Ok(s)) => format!("found submission {} under its key", s.id),
                            Err(e) => format!("its task failed: {e}"),
                        };
                        crate::logging::log(&format!(
                            "a submission by {who} that the database did not take within {} s (its client was answered 503): {end}",
                            SUBMIT_WAIT.as_secs()
                        ));
                    });
                    return Err(DbError::Store(crate::node::no_answer(SUBMIT_WAIT)));
                }
                // The commit is under way: its outcome is the answer.
                task.await
            }
        };
        let done = match joined {
            Ok(r) => r.map_err(DbError::Store)?,
            Err(e) => return Err(DbError::Task(e.to_string())),
        };
        if done.fresh {
            self.metrics.submitted.fetch_add(1, Ordering::Relaxed);
            crate::logging::queued(done.id, &user, &problem, &language);
            self.wake.notify_one();
        }
        Ok(Submitted {
            id: done.id,
            fresh: done.fresh,
        })
    }

    /// The judge's checks of a submission before it is queued (size, emptiness, text-ness, its
    /// language known and available).
    pub fn check_submission(&self, sub: &Submission) -> Result<(), Refusal> {
        match self.judge.check_submission(sub) {
            Ok(_) => Ok(()),
            Err(JudgeError::NotText { at }) => Err(Refusal::NotText { at }),
            Err(other) => Err(Refusal::Judge(other.to_string())),
        }
    }

    /// The submission `entry.key` already names (`None`: the key is new, or there is none).
    /// Asked when the rate limit refuses a submission, so that a client retrying a submission
    /// that was stored gets it back rather than a refusal. Its insert is rolled back.
    pub async fn submitted_under(
        self: &Arc<Self>,
        entry: NewEntry,
    ) -> Result<Option<Submitted>, DbError> {
        let Some(key) = entry.key else {
            return Ok(None);
        };
        let new = NewSubmission {
            user: entry.user,
            problem: entry.problem,
            language: entry.language,
            source: entry.source,
        };
        let (contest, jury) = (entry.contest, entry.jury);
        let found = self
            .db(move |s| {
                let contest = contest.as_deref().map(|c| (c, jury));
                // `keep` says no: a fresh insert (the key is new) never commits.
                match s.insert_once(&new, contest, Some(&key), crate::now_ms(), &|| false) {
                    Ok(done) => Ok(Some(done)),
                    Err(StoreError::GaveUp) => Ok(None),
                    Err(e) => Err(e),
                }
            })
            .await?;
        Ok(found.map(|d| Submitted {
            id: d.id,
            fresh: false,
        }))
    }

    /// Submission `id` as `viewer` may see it; `None` when it does not exist for them (another
    /// user's, a hidden problem's, or none at all).
    pub async fn seen(
        self: &Arc<Self>,
        id: i64,
        viewer: Viewer<'_>,
        policy: Policy<'_>,
    ) -> Result<Option<Seen>, DbError> {
        let read = self
            .db(move |s| {
                let Some(d) = s.get(id)? else {
                    return Ok(None);
                };
                Ok(Some((d, s.contest_of(id)?, s.overrides_of(&[id])?)))
            })
            .await?;
        Ok(read.and_then(|(d, contest, over)| {
            seen(d, contest, over.into_iter().next(), viewer, policy)
        }))
    }

    /// Submission `id`'s row as `viewer` may see it (the live stream's `done`).
    pub async fn seen_row(
        self: &Arc<Self>,
        id: i64,
        viewer: Viewer<'_>,
        policy: Policy<'_>,
    ) -> Result<Option<SeenRow>, DbError> {
        let read = self
            .db(move |s| {
                let Some(info) = s.info(id)? else {
                    return Ok(None);
                };
                Ok(Some((info, s.contests_of(&[id])?, s.overrides_of(&[id])?)))
            })
            .await?;
        let Some((info, contests, over)) = read else {
            return Ok(None);
        };
        Ok(seen_rows(vec![info], contests, over, viewer, policy, &self.catalog()).pop())
    }

    /// A page of the list `filter` as `viewer` may see it. The caller sets `filter.user` for a
    /// student (only their own); rows the policy hides are left out here.
    pub async fn seen_rows(
        self: &Arc<Self>,
        filter: ListFilter,
        viewer: Viewer<'_>,
        policy: Policy<'_>,
    ) -> Result<SeenPage, DbError> {
        let (page, total, contests, over) = self
            .db(move |s| {
                let page = s.list_page(&filter)?;
                let total = s.count_matching(&filter)?;
                let ids: Vec<i64> = page.rows.iter().map(|r| r.id).collect();
                Ok((page, total, s.contests_of(&ids)?, s.overrides_of(&ids)?))
            })
            .await?;
        let last_id = page.rows.last().map(|r| r.id);
        Ok(SeenPage {
            rows: seen_rows(page.rows, contests, over, viewer, policy, &self.catalog()),
            has_more: page.has_more,
            total,
            last_id,
        })
    }

    /// Whether submission `id` is done in the store (`None`: no such submission).
    pub async fn is_done(self: &Arc<Self>, id: i64) -> Result<Option<bool>, DbError> {
        self.db(move |s| Ok(s.info(id)?.map(|i| i.state == ojd_store::State::Done)))
            .await
    }
}

/// `d` as `viewer` may see it (`None`: not for them), with the contest it was made through and
/// the jury's verdict.
pub(crate) fn seen(
    d: SubmissionDetail,
    contest: Option<String>,
    over: Option<VerdictOverride>,
    viewer: Viewer<'_>,
    policy: Policy<'_>,
) -> Option<Seen> {
    if !policy.may_see(viewer, &d.info.user, &d.info.problem) {
        return None;
    }
    let sight = policy.sight(viewer, &d.info.user, &d.info.problem, contest.as_deref());
    let mut info = sight.row(d.info);
    let judged_verdict = over.as_ref().and(info.verdict);
    if let Some(o) = &over {
        info.verdict = Some(o.verdict);
    }
    Some(Seen {
        info,
        source: d.source,
        compile_output: d.compile_output,
        judge_message: sight.judge_message(d.message),
        warnings: sight.warnings(d.warnings),
        tests: sight.tests(&d.tests),
        partial: d.partial,
        contest,
        override_: over,
        judged_verdict,
        feedback: (sight.feedback != Feedback::All).then_some(sight.feedback),
        sight,
    })
}

/// `rows` as `viewer` may see them: hidden ones left out, the rest with their contest, the
/// jury's verdict and the points a list shows.
pub(crate) fn seen_rows(
    rows: Vec<SubmissionInfo>,
    contests: Vec<(i64, String)>,
    overrides: Vec<VerdictOverride>,
    viewer: Viewer<'_>,
    policy: Policy<'_>,
    catalog: &Catalog,
) -> Vec<SeenRow> {
    let by_id: HashMap<i64, String> = contests.into_iter().collect();
    let over: HashMap<i64, Verdict> = overrides
        .into_iter()
        .map(|o| (o.submission, o.verdict))
        .collect();
    rows.into_iter()
        .filter(|r| policy.may_see(viewer, &r.user, &r.problem))
        .map(|r| {
            let contest = by_id.get(&r.id).cloned();
            let sight = policy.sight(viewer, &r.user, &r.problem, contest.as_deref());
            let mut info = sight.row(r);
            let grouped = catalog
                .get(&info.problem)
                .is_some_and(|e| !e.problem.groups.is_empty());
            let scored = !matches!(
                info.verdict,
                None | Some(Verdict::CompileError | Verdict::JudgeError)
            );
            let mut points = info.score_milli.filter(|_| grouped && scored);
            if let Some(&v) = over.get(&info.id) {
                // The jury's verdict is the one that counts (the judge's points do not).
                info.verdict = Some(v);
                points = None;
            }
            SeenRow {
                info,
                contest,
                points,
            }
        })
        .collect()
}

// The policy's tests read submissions through `seen`/`seen_rows`, as every channel does: they
// live here, below both modules, so that `viewer` needs nothing of this module.
#[cfg(test)]
mod tests;
