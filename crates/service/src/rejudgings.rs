//! Rejudgings as the service offers them: start one over a filter, read one back with every
//! judging it compares, apply or cancel it. The store does each step in one transaction; what
//! the web adds (the standings' moves, the contests' finalization, the audit line) stays there.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;

use crate::now_ms;
use ojd_judge::TestResult;
use ojd_store::{JudgingDetail, RejudgeFilter, RejudgingInfo, RejudgingItem, StoreError};

use crate::node::{DbError, Node};

/// Whether a submission can be rejudged now: it exists, and has a verdict.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Rejudgeable {
    /// No such submission.
    Unknown,
    /// It has no verdict yet; its state (`queued`, `judging`).
    NoVerdict(&'static str),
    /// It has a verdict to compare with.
    Yes,
}

/// What [`Node::create_rejudging`] made.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Created {
    /// The rejudging `id`, of `submissions` submissions (those the store took).
    Made {
        /// Its id.
        id: i64,
        /// How many submissions it judges again.
        submissions: usize,
    },
    /// No judged submission matches the filter.
    NothingMatches,
    /// Submission `submission` counts for the finalized contest `contest`: refused.
    Finalized {
        /// The first such submission.
        submission: i64,
        /// Its contest.
        contest: String,
    },
}

/// Why an apply or cancel was refused (applied or cancelled already, not fully judged, a
/// finalized contest's): the message for the admin.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct RejudgingRefused(pub String);

/// A rejudging and every judging its report compares.
#[derive(Clone, Debug)]
pub struct RejudgingRecord {
    /// The rejudging's own row.
    pub info: RejudgingInfo,
    /// Each submission's judging before and after.
    pub items: Vec<RejudgingItem>,
    /// Those judgings by id.
    pub details: HashMap<i64, JudgingDetail>,
}

impl Node {
    /// Whether submission `id` can be rejudged now.
    pub async fn rejudgeable(self: &Arc<Self>, id: i64) -> Result<Rejudgeable, DbError> {
        self.db(move |s| {
            Ok(match s.info(id)? {
                None => Rejudgeable::Unknown,
                Some(info) if info.judging.is_none() => Rejudgeable::NoVerdict(info.state.as_str()),
                Some(_) => Rejudgeable::Yes,
            })
        })
        .await
    }

    /// Records a rejudging of what `filter` selects, by `by` (one transaction), refused when
    /// `auto_apply` and a selected submission counts for one of the `finalized` contests; wakes
    /// the workers when one is made.
    pub async fn create_rejudging(
        self: &Arc<Self>,
        filter: RejudgeFilter,
        by: &str,
        auto_apply: bool,
        finalized: HashSet<String>,
    ) -> Result<Created, DbError> {
        let scope = serde_json::to_string(&filter).unwrap_or_default();
        let by = by.to_string();
        let created = self
            .db(move |s| {
                let ids = s.select_for_rejudging(&filter)?;
                if ids.is_empty() {
                    return Ok(Created::NothingMatches);
                }
                if auto_apply && !finalized.is_empty() {
                    for &sid in &ids {
                        if let Some(c) = s.contest_of(sid)?.filter(|c| finalized.contains(c)) {
                            return Ok(Created::Finalized {
                                submission: sid,
                                contest: c,
                            });
                        }
                    }
                }
                let id = s.create_rejudging(&scope, &by, &ids, auto_apply, now_ms())?;
                // The store may have left out a submission that lost its verdict meanwhile:
                // count what the rejudging holds.
                let submissions = s.rejudging(id)?.map_or(0, |r| r.total as usize);
                Ok(Created::Made { id, submissions })
            })
            .await?;
        if matches!(created, Created::Made { .. }) {
            self.wake_workers();
        }
        Ok(created)
    }

    /// Every rejudging, newest first.
    pub async fn rejudgings(self: &Arc<Self>) -> Result<Vec<RejudgingInfo>, DbError> {
        self.db(|s| s.rejudgings()).await
    }

    /// Rejudging `id`'s own row.
    pub async fn rejudging(self: &Arc<Self>, id: i64) -> Result<Option<RejudgingInfo>, DbError> {
        self.db(move |s| s.rejudging(id)).await
    }

    /// Rejudging `id` with every judging before and after of its submissions.
    pub async fn rejudging_record(
        self: &Arc<Self>,
        id: i64,
    ) -> Result<Option<RejudgingRecord>, DbError> {
        self.db(move |s| {
            let Some(info) = s.rejudging(id)? else {
                return Ok(None);
            };
            let items = s.rejudging_items(id)?;
            let mut details = HashMap::new();
            for j in items.iter().flat_map(|i| [i.before, i.after]).flatten() {
                if let Some(d) = s.judging(j)? {
                    details.insert(j, d);
                }
            }
            Ok(Some(RejudgingRecord {
                info,
                items,
                details,
            }))
        })
        .await
    }

    /// The tests of `submission`'s judging before and after rejudging `id`; `None` when the
    /// rejudging does not hold that submission.
    pub async fn rejudging_tests(
        self: &Arc<Self>,
        id: i64,
        submission: i64,
    ) -> Result<Option<(Vec<TestResult>, Vec<TestResult>)>, DbError> {
        self.db(move |s| {
            let items = s.rejudging_items(id)?;
            let Some(item) = items.into_iter().find(|i| i.submission == submission) else {
                return Ok(None);
            };
            let load = |j: Option<i64>| -> Result<Vec<TestResult>, StoreError> {
                Ok(match j {
                    Some(j) => s.judging(j)?.map(|d| d.tests).unwrap_or_default(),
                    None => Vec::new(),
                })
            };
            Ok(Some((load(item.before)?, load(item.after)?)))
        })
        .await
    }

    /// The contests rejudging `id`'s submissions count for, each once.
    pub async fn rejudging_contests(self: &Arc<Self>, id: i64) -> Result<Vec<String>, DbError> {
        self.db(move |s| {
            let mut ids = Vec::new();
            for item in s.rejudging_items(id)? {
                if let Some(c) = s.contest_of(item.submission)? {
                    if !ids.contains(&c) {
                        ids.push(c);
                    }
                }
            }
            Ok(ids)
        })
        .await
    }

    /// Applies (the count of judgings made current) or cancels (0) rejudging `id`; a refusal
    /// (applied or cancelled already, not fully judged) is `Ok(Err(why))`. A cancel wakes the
    /// workers: its submissions with no verdict at all went back to the ordinary queue.
    pub async fn close_rejudging(
        self: &Arc<Self>,
        id: i64,
        by: &str,
        apply: bool,
    ) -> Result<Result<u64, RejudgingRefused>, DbError> {
        let by = by.to_string();
        let r = self
            .db(move |s| {
                let r = if apply {
                    s.apply_rejudging(id, &by, now_ms())
                } else {
                    s.cancel_rejudging(id, &by, now_ms()).map(|()| 0)
                };
                match r {
                    Ok(n) => Ok(Ok(n)),
                    Err(StoreError::Conflict(m)) => Ok(Err(RejudgingRefused(m))),
                    Err(e) => Err(e),
                }
            })
            .await?;
        if r.is_ok() && !apply {
            self.wake_workers();
        }
        Ok(r)
    }
}
