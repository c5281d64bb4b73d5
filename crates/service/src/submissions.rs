//! A submission's life, owned by the service: [`Node::submit`] inserts it (counted, logged, a
//! worker woken), the workers claim and finish it (`queue`), and the reads give it back only as
//! one viewer may see it ([`Node::seen`], [`Node::seen_row`], [`Node::seen_rows`]), through
//! the one policy of [`crate::viewer`]. The web layer builds its JSON and pages from these
//! reads and never shapes a submission by itself, so the page, the API and the live events
//! cannot show a viewer different things.

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::Ordering;
use std::sync::Arc;

use ojd_judge::{TestResult, Verdict};
use ojd_store::{ListFilter, NewSubmission, SubmissionDetail, SubmissionInfo, VerdictOverride};

use crate::catalog::Catalog;
use crate::contest::Feedback;
use crate::node::{DbError, Node};
use crate::viewer::{Policy, Sight, Viewer};

/// A submission as one viewer may see it.
#[derive(Clone, Debug)]
pub struct Seen {
    /// Its row: the judging host only for admins, the jury's verdict (if any) as `verdict`.
    pub info: SubmissionInfo,
    pub source: Vec<u8>,
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
    pub info: SubmissionInfo,
    pub contest: Option<String>,
    /// The exact points (thousandths) shown beside the verdict: for a problem scored by
    /// groups, unless the jury's verdict replaced the judge's.
    pub points: Option<u64>,
}

/// A page of a submissions list as one viewer may see it.
#[derive(Clone, Debug, Default)]
pub struct SeenPage {
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
    pub user: String,
    pub problem: String,
    pub language: String,
    pub source: Vec<u8>,
    /// The contest it counts for (`None`: practice).
    pub contest: Option<String>,
    /// The jury's submission: shown with the contest's, never ranked.
    pub jury: bool,
}

impl Node {
    /// Inserts a checked submission (committed before its id is returned), counts and logs it
    /// and wakes a worker.
    pub async fn submit(self: &Arc<Self>, entry: NewEntry) -> Result<i64, DbError> {
        let NewEntry {
            user,
            problem,
            language,
            source,
            contest,
            jury,
        } = entry;
        let new = NewSubmission {
            user: user.clone(),
            problem: problem.clone(),
            language: language.clone(),
            source,
        };
        let id = self
            .db(move |s| match &contest {
                Some(c) => s.insert_in_contest_as(&new, c, jury, ojd_store::now_ms()),
                None => s.insert(&new, ojd_store::now_ms()),
            })
            .await?;
        self.metrics.submitted.fetch_add(1, Ordering::Relaxed);
        crate::logging::queued(id, &user, &problem, &language);
        self.wake.notify_one();
        Ok(id)
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
