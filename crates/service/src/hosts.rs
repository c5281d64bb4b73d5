//! The operator's reads and writes of the cluster, as the service offers them: the judge hosts
//! and their drain, collecting what nothing uses, the queue's counts for the metrics and the
//! health check, and a submission's history for admins.

use std::sync::Arc;
use std::time::Duration;

use ojd_store::SubmissionPage;
use ojd_store::{Collected, Counts, HostInfo, JudgingInfo, ListFilter, OverrideChange, StoreError};

use crate::node::{DbError, Node};

/// What `/metrics` reads in one go.
#[derive(Clone, Debug)]
pub struct Census {
    /// Submissions by state and verdict.
    pub counts: Counts,
    /// Every host that has sent a heartbeat.
    pub hosts: Vec<HostInfo>,
    /// Leases expired and not yet taken over.
    pub expired_leases: u64,
}

/// What the queue page shows, read in one go.
#[derive(Clone, Debug)]
pub struct QueueState {
    /// Submissions by state and verdict.
    pub counts: Counts,
    /// The submissions not yet done (an old one queued again included), newest first.
    pub pending: SubmissionPage,
    /// Every host that has sent a heartbeat.
    pub hosts: Vec<HostInfo>,
}

/// A submission's history: every judging and every override of the jury, each oldest first.
#[derive(Clone, Debug)]
pub struct History {
    /// Every judging it had (first judging, rejudges, rejudgings, current or not).
    pub judgings: Vec<JudgingInfo>,
    /// Every verdict override, with who, when, why, from and to.
    pub overrides: Vec<OverrideChange>,
}

impl Node {
    /// Every host that has sent a heartbeat.
    pub async fn hosts(self: &Arc<Self>) -> Result<Vec<HostInfo>, DbError> {
        self.db(|s| s.hosts()).await
    }

    /// Asks host `identity` to drain (`Some(reason)`) or resume (`None`); false when no such
    /// host is known.
    pub async fn set_drain(
        self: &Arc<Self>,
        identity: &str,
        reason: Option<&str>,
    ) -> Result<bool, DbError> {
        let (h, r) = (identity.to_string(), reason.map(str::to_string));
        self.db(move |s| s.set_drain(&h, r.as_deref())).await
    }

    /// Collects what nothing has used for `keep` now (see [`crate::collect`], which runs the
    /// same on the node's own schedule).
    pub async fn collect_now(self: &Arc<Self>, keep: Duration) -> Result<Collected, DbError> {
        let keep_ms = keep.as_millis() as i64;
        self.db(move |s| s.collect(keep_ms)).await
    }

    /// The counts, hosts and expired leases `/metrics` shows.
    pub async fn census(self: &Arc<Self>) -> Result<Census, DbError> {
        self.db(|s| {
            Ok(Census {
                counts: s.counts()?,
                hosts: s.hosts()?,
                expired_leases: s.expired_leases()?,
            })
        })
        .await
    }

    /// The queue's counts, at most `limit` pending submissions (one query, however long the
    /// list of done ones), and the hosts.
    pub async fn queue_state(self: &Arc<Self>, limit: u32) -> Result<QueueState, DbError> {
        self.db(move |s| {
            Ok(QueueState {
                counts: s.counts()?,
                pending: s.list_page(&ListFilter {
                    pending: true,
                    limit,
                    ..Default::default()
                })?,
                hosts: s.hosts()?,
            })
        })
        .await
    }

    /// The host judging submission `id` now (its judging in flight), if any.
    pub async fn judging_host(self: &Arc<Self>, id: i64) -> Result<Option<String>, DbError> {
        self.db(move |s| {
            Ok(s.judgings(id)?
                .into_iter()
                .rev()
                .find(|j| j.finished_at.is_none())
                .map(|j| j.judged_by))
        })
        .await
    }

    /// Whether the database answers, and then the submissions queued and being judged.
    /// Blocking: the health check runs it on a blocking thread under its own timeout.
    pub fn check_database(&self) -> Result<(u64, u64), StoreError> {
        self.store.ping()?;
        self.store.pending_counts()
    }

    /// Submission `id`'s history (one call, both reads).
    pub async fn history(self: &Arc<Self>, id: i64) -> Result<History, DbError> {
        self.db(move |s| {
            Ok(History {
                judgings: s.judgings(id)?,
                overrides: s.override_history(id)?,
            })
        })
        .await
    }

    /// Whether submission `id` is the jury's (it does not count in its contest).
    pub async fn is_jury(self: &Arc<Self>, id: i64) -> Result<bool, DbError> {
        self.db(move |s| s.is_jury(id)).await
    }
}
