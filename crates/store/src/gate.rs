//! A caller's say over its commits: a write run under [`gated`] commits only while its caller
//! still waits. A caller that stopped waiting (its client was told 503) must not see its
//! change happen after; on that thread every transaction asks the gate just before its
//! commit, and a statement run alone is run in a transaction of its own so that it asks too.

use std::cell::RefCell;
use std::sync::Arc;

/// What a gated write asks before each commit, and tells after it.
pub trait CommitGate: Send + Sync {
    /// Whether the commit may go ahead (`false`: the caller stopped waiting, roll back). A
    /// `true` holds the caller back from giving up until [`CommitGate::committed`].
    fn may_commit(&self) -> bool;
    /// The commit that [`CommitGate::may_commit`] allowed has ended (committed or failed).
    fn committed(&self);
}

thread_local! {
    static GATE: RefCell<Option<Arc<dyn CommitGate>>> = const { RefCell::new(None) };
}

/// Runs `f` (store operations on this thread) with every commit asking `gate` first: a
/// transaction it refuses is rolled back and ends in [`StoreError::GaveUp`].
///
/// [`StoreError::GaveUp`]: crate::StoreError::GaveUp
pub fn gated<T>(gate: Arc<dyn CommitGate>, f: impl FnOnce() -> T) -> T {
    /// Puts the previous gate back, a panic included.
    struct Restore(Option<Arc<dyn CommitGate>>);
    impl Drop for Restore {
        fn drop(&mut self) {
            let previous = self.0.take();
            GATE.with(|g| *g.borrow_mut() = previous);
        }
    }
    let previous = GATE.with(|g| g.borrow_mut().replace(gate));
    let _restore = Restore(previous);
    f()
}

/// The gate of the write running on this thread, if any.
pub(crate) fn current() -> Option<Arc<dyn CommitGate>> {
    GATE.with(|g| g.borrow().clone())
}

/// The transaction a statement run alone gets under a gate (none without one): so that its
/// commit asks the gate too.
pub(crate) fn alone_in_transaction() -> Option<(crate::db::What, crate::db::What)> {
    current().map(|_| ("start a write", "commit a write"))
}

/// Commits `commit` (a transaction's commit) if the current gate allows it: `Ok(None)` when
/// it refused (the transaction is dropped, rolled back, by the caller), else the commit's
/// result.
pub(crate) fn commit_through<E>(commit: impl FnOnce() -> Result<(), E>) -> Result<Option<()>, E> {
    match current() {
        None => commit().map(Some),
        Some(gate) => {
            if !gate.may_commit() {
                return Ok(None);
            }
            let done = commit();
            gate.committed();
            done.map(Some)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{NewSubmission, SqliteStore, Store, StoreError};
    use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

    /// A gate that says `open` and counts the commits it let through.
    struct Fixed {
        open: AtomicBool,
        ended: AtomicU32,
    }

    impl CommitGate for Fixed {
        fn may_commit(&self) -> bool {
            self.open.load(Ordering::SeqCst)
        }
        fn committed(&self) {
            self.ended.fetch_add(1, Ordering::SeqCst);
        }
    }

    fn new() -> NewSubmission {
        NewSubmission {
            user: "u".into(),
            problem: "p".into(),
            language: "c".into(),
            source: b"int main(){}".to_vec(),
        }
    }

    #[test]
    fn a_closed_gate_rolls_back_a_statement_run_alone_and_an_open_one_commits_it() {
        let dir = std::env::temp_dir().join(format!("ojd-store-gate-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("a temporary folder");
        let s = SqliteStore::open(&dir.join("ojd.sqlite3")).expect("a store");
        let gate = Arc::new(Fixed {
            open: AtomicBool::new(false),
            ended: AtomicU32::new(0),
        });
        let refused = gated(gate.clone(), || s.insert(&new(), 1));
        assert!(matches!(refused, Err(StoreError::GaveUp)), "{refused:?}");
        assert!(s.info(1).expect("read").is_none(), "nothing was stored");
        gate.open.store(true, Ordering::SeqCst);
        let id = gated(gate.clone(), || s.insert(&new(), 2)).expect("stored");
        assert!(s.info(id).expect("read").is_some());
        assert_eq!(gate.ended.load(Ordering::SeqCst), 1, "one commit, told");
        // Outside the gate, and on this thread again, nothing asks it.
        assert!(current().is_none());
        s.insert(&new(), 3).expect("stored without a gate");
        assert_eq!(gate.ended.load(Ordering::SeqCst), 1);
        std::fs::remove_dir_all(&dir).expect("clean up");
    }
}
