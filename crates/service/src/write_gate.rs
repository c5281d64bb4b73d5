//! A write request's commit gate and the node's database probes: the state behind
//! `writes`' gate, in a module of its own so that the node (which holds the probes and asks the
//! current task's gate on each store operation) and the gate's operations on the node do not
//! import each other. See `writes` for the design.

use std::sync::atomic::{AtomicU8, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use ojd_store::CommitGate;

/// The probes of a node's database (see the module's doc).
#[derive(Default)]
pub(crate) struct Probes {
    /// When the oldest probe that has had no answer since was sent; `None`: the last probe
    /// was answered (or none was sent yet).
    unanswered_since: Mutex<Option<Instant>>,
}

impl Probes {
    pub(crate) fn lock(&self) -> std::sync::MutexGuard<'_, Option<Instant>> {
        self.unanswered_since
            .lock()
            .unwrap_or_else(|e| e.into_inner())
    }
}

/// How long a write's store operations may take in all once its probe passed
/// ([`writing_within`]): far above a write's usual milliseconds, on a loaded machine too.
pub const WRITE_WAIT: Duration = Duration::from_secs(15);

tokio::task_local! {
    /// The gate of the write the current task handles ([`writing_within`]).
    static WRITE: Arc<WriteGate>;
}

/// Runs `f` (a write request's handling) with its store operations under one commit gate
/// closing after `limit` (see the module's doc): past it, or when `f` is dropped, the caller
/// gets [`StoreError::Unreachable`](ojd_store::StoreError::Unreachable) and nothing commits any more.
pub async fn writing_within<F: std::future::Future>(limit: Duration, f: F) -> F::Output {
    let gate = Arc::new(WriteGate {
        state: AtomicU8::new(OPEN),
        deadline: Instant::now() + limit,
        limit,
    });
    WRITE.scope(gate, f).await
}

const OPEN: u8 = 0;
const COMMITTING: u8 = 1;
const CLOSED: u8 = 2;

/// One write request's commit gate.
pub(crate) struct WriteGate {
    state: AtomicU8,
    /// When the gate closes by itself.
    pub(crate) deadline: Instant,
    /// The time it was given ([`WRITE_WAIT`] for a request).
    pub(crate) limit: Duration,
}

impl WriteGate {
    /// Closes the gate unless a commit is under way: `true` when nothing commits any more.
    pub(crate) fn close(&self) -> bool {
        match self
            .state
            .compare_exchange(OPEN, CLOSED, Ordering::AcqRel, Ordering::Acquire)
        {
            Ok(_) => true,
            Err(now) => now == CLOSED,
        }
    }
}

impl CommitGate for WriteGate {
    fn may_commit(&self) -> bool {
        self.state
            .compare_exchange(OPEN, COMMITTING, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
    }

    fn committed(&self) {
        let _ = self
            .state
            .compare_exchange(COMMITTING, OPEN, Ordering::AcqRel, Ordering::Acquire);
    }
}

/// Closes the gate when the waiting future is dropped (the request timed out or its client
/// went): what has not committed by then does not.
pub(crate) struct CloseOnDrop(pub(crate) Option<Arc<WriteGate>>);

impl Drop for CloseOnDrop {
    fn drop(&mut self) {
        if let Some(gate) = self.0.take() {
            gate.close();
        }
    }
}

/// The current task's write gate, if it handles a write ([`writing_within`]).
pub(crate) fn write_gate() -> Option<Arc<WriteGate>> {
    WRITE.try_with(Arc::clone).ok()
}
