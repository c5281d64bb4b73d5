//! The write gate: before a write starts, the node makes sure its database answers, so that a
//! hung or stopped database server makes every write (a clarification, a login, an admin
//! action, a contest edit) fail fast with a clear "unavailable" and nothing stored, rather
//! than hold its client for `[web] request_timeout` and maybe happen after its client gave up.
//!
//! One probe (`SELECT 1`) at a time stands for the database: a write asks it, or joins the
//! one under way; while a probe has been unanswered for [`WRITE_PROBE_WAIT`] every write is
//! refused at once, without starting anything. Any answer (a row or an error) clears that. A
//! database that errs (a stopped server refusing connections) fails the write fast by itself.
//! Submissions have their own gate around their insert ([`Node::submit`]).
//!
//! Only for a database server (PostgreSQL): a SQLite file cannot hang as a server does (it
//! answers or errs), and its one connection may be held for a while by a long write that is
//! fine, which a probe would wrongly take for a hang.
//!
//! Past the probe, a write's store operations (`Node::db`) run under [`writing_within`](crate::writing_within): each
//! commit asks the request's gate ([`ojd_store::gated`]); at the deadline, or when the request
//! is dropped (`[web] request_timeout`, a client gone), the gate closes and whatever commits
//! after that rolls back instead, so that a client told 503 never sees its change happen
//! later (a statement stuck behind a lock, a server that hung after the probe). One gate
//! decides between the two, as for a submission: a commit under way is waited for.

use std::sync::Arc;
use std::time::{Duration, Instant};

use crate::node::{no_answer, DbError, Node};
use crate::write_gate::{CloseOnDrop, WriteGate};
use ojd_store::{CommitGate, StoreError};

/// How long a write's probe of the database may go unanswered before the write is refused
/// ([`Node::database_answers`]): the pages' bound for their reads, a busy machine's margin.
pub const WRITE_PROBE_WAIT: Duration = Duration::from_secs(3);

/// After this long unanswered a probe is given up as lost (a connection that never returns)
/// and the next write sends a new one: a database that came back is found again.
const PROBE_LOST: Duration = Duration::from_secs(30);

impl Node {
    /// Whether the database answers now: `Ok` when a probe sent now answered within
    /// [`WRITE_PROBE_WAIT`]; the store's error when it erred; [`StoreError::Unreachable`]
    /// (the web answers 503) when it did not answer in time, or at once while an earlier
    /// probe has gone unanswered that long. Asked before every write that is not a
    /// submission: a write refused here never started. Always `Ok` on SQLite.
    ///
    /// [`StoreError::Unreachable`]: ojd_store::StoreError::Unreachable
    pub async fn database_answers(self: &Arc<Self>) -> Result<(), DbError> {
        if !self.shared {
            return Ok(());
        }
        {
            let mut since = self.probes.lock();
            match *since {
                Some(t) if t.elapsed() >= PROBE_LOST => *since = Some(Instant::now()),
                Some(t) if t.elapsed() >= WRITE_PROBE_WAIT => {
                    return Err(DbError::Store(no_answer(WRITE_PROBE_WAIT)));
                }
                Some(_) => {}
                None => *since = Some(Instant::now()),
            }
        }
        let node = self.clone();
        let probe = tokio::task::spawn_blocking(move || {
            let answer = node.store.ping();
            // A row or an error: the database (or its absence) answered.
            *node.probes.lock() = None;
            answer
        });
        match tokio::time::timeout(WRITE_PROBE_WAIT, probe).await {
            Ok(Ok(answer)) => answer.map_err(DbError::Store),
            Ok(Err(e)) => Err(DbError::Task(e.to_string())),
            Err(_) => Err(DbError::Store(no_answer(WRITE_PROBE_WAIT))),
        }
    }
}

impl Node {
    /// `f` under `gate`, a write request's (see the module's doc).
    pub(crate) async fn gated_db<T, F>(
        self: &Arc<Self>,
        gate: Arc<WriteGate>,
        f: F,
    ) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&dyn ojd_store::Store) -> Result<T, StoreError> + Send + 'static,
    {
        let store = self.store.clone();
        let commits: Arc<dyn CommitGate> = gate.clone();
        let mut task =
            tokio::task::spawn_blocking(move || ojd_store::gated(commits, || f(store.as_ref())));
        let mut armed = CloseOnDrop(Some(gate.clone()));
        let left = gate.deadline.saturating_duration_since(Instant::now());
        let joined = match tokio::time::timeout(left, &mut task).await {
            Ok(joined) => joined,
            Err(_) if gate.close() => {
                let limit = gate.limit;
                tokio::spawn(async move {
                    // The operator's record of how the write ended after its client left.
                    let end = match task.await {
                        Ok(Err(StoreError::GaveUp)) => "rolled back".to_string(),
                        Ok(Err(e)) => format!("failed: {}", crate::logging::error_chain(&e)),
                        Ok(Ok(_)) => "ended with nothing left to commit".to_string(),
                        Err(e) => format!("its task failed: {e}"),
                    };
                    crate::logging::log(&format!(
                        "a write the database did not finish within {} s (its client was answered 503): {end}",
                        limit.as_secs()
                    ));
                });
                return Err(DbError::Store(no_answer(limit)));
            }
            // A commit is under way: its outcome is the answer.
            Err(_) => task.await,
        };
        // It ended while its caller waited: nothing to close.
        armed.0 = None;
        match joined {
            Ok(r) => r.map_err(DbError::Store),
            Err(e) => Err(DbError::Task(e.to_string())),
        }
    }
}
