//! Idempotency keys for the writes whose rows keep no key of their own (the Contest API's
//! clarifications): a retry with the same key and the same body gets the first answer, the same
//! key with another body is refused, and a retry while the first is still running is told so.
//!
//! A submission's key is the store's (one row, unique per user and key, on every node); these
//! are kept by the node that answered, for [`KEPT_FOR`]. A client retrying through another
//! node of a cluster is not recognised: the clarification limit has the same reach.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

/// How long a key is remembered after its first use.
pub(crate) const KEPT_FOR: Duration = Duration::from_secs(24 * 3600);

/// How many keys a node keeps at most; the oldest answered ones go first beyond it.
const MAX_KEYS: usize = 100_000;

/// Why a keyed write is not done again.
#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum OnceError {
    /// The key was used for a different request.
    #[error("the Idempotency-Key {0:?} was used for a different request")]
    Reused(String),
    /// The key's first request has not been answered yet.
    #[error("a request with the Idempotency-Key {0:?} is still being answered: try again")]
    InFlight(String),
}

/// What [`Once::begin`] found for a key.
#[derive(Debug)]
pub enum Begun {
    /// The key is new: do the write, then [`Ticket::finish`] with what it made.
    New(Ticket),
    /// The same request was answered before: the id of what it made.
    Done(String),
}

enum State {
    Running,
    Done(String),
}

struct Entry {
    digest: [u8; 32],
    state: State,
    at: Instant,
}

/// The keys a node has seen, per user.
#[derive(Default)]
pub struct Once {
    entries: Mutex<HashMap<(String, String), Entry>>,
}

impl Once {
    /// No key seen yet.
    pub fn new() -> Arc<Once> {
        Arc::new(Once::default())
    }

    /// Starts the request `what` (its path and body, as bytes that are equal exactly when the
    /// requests are the same) of `user` under `key`.
    pub fn begin(self: &Arc<Self>, user: &str, key: &str, what: &[u8]) -> Result<Begun, OnceError> {
        let digest: [u8; 32] = Sha256::digest(what).into();
        let k = (user.to_string(), key.to_string());
        let mut all = self.entries.lock().unwrap_or_else(|e| e.into_inner());
        // An expired key is forgotten when it is met; the whole map is swept only when it is
        // full, not on every request.
        if all.get(&k).is_some_and(|e| e.at.elapsed() >= KEPT_FOR) {
            all.remove(&k);
        }
        if let Some(e) = all.get(&k) {
            if e.digest != digest {
                return Err(OnceError::Reused(key.to_string()));
            }
            return match &e.state {
                State::Running => Err(OnceError::InFlight(key.to_string())),
                State::Done(id) => Ok(Begun::Done(id.clone())),
            };
        }
        if all.len() >= MAX_KEYS {
            all.retain(|_, e| e.at.elapsed() < KEPT_FOR);
        }
        if all.len() >= MAX_KEYS {
            // Answered keys only: a running one's ticket still expects its entry.
            let mut done: Vec<(Instant, (String, String))> = all
                .iter()
                .filter(|(_, e)| matches!(e.state, State::Done(_)))
                .map(|(k, e)| (e.at, k.clone()))
                .collect();
            done.sort();
            for (_, k) in done.into_iter().take(MAX_KEYS / 10) {
                all.remove(&k);
            }
        }
        all.insert(
            k.clone(),
            Entry {
                digest,
                state: State::Running,
                at: Instant::now(),
            },
        );
        Ok(Begun::New(Ticket {
            once: self.clone(),
            key: Some(k),
        }))
    }
}

/// A keyed request being answered: [`Ticket::finish`] keeps its answer; dropped unfinished (the
/// request failed), the key is forgotten, so that a retry is done afresh.
pub struct Ticket {
    once: Arc<Once>,
    key: Option<(String, String)>,
}

impl std::fmt::Debug for Ticket {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Ticket").field("key", &self.key).finish()
    }
}

impl Ticket {
    /// The request made `id`: a retry is answered with it.
    pub fn finish(mut self, id: &str) {
        if let Some(k) = self.key.take() {
            let mut all = self.once.entries.lock().unwrap_or_else(|e| e.into_inner());
            if let Some(e) = all.get_mut(&k) {
                e.state = State::Done(id.to_string());
            }
        }
    }
}

impl Drop for Ticket {
    fn drop(&mut self) {
        if let Some(k) = self.key.take() {
            let mut all = self.once.entries.lock().unwrap_or_else(|e| e.into_inner());
            all.remove(&k);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn done(b: Result<Begun, OnceError>) -> String {
        match b {
            Ok(Begun::Done(id)) => id,
            other => panic!("expected the first answer, got {other:?}"),
        }
    }

    fn new(b: Result<Begun, OnceError>) -> Ticket {
        match b {
            Ok(Begun::New(t)) => t,
            other => panic!("expected a new request, got {other:?}"),
        }
    }

    #[test]
    fn the_same_key_and_body_get_the_first_answer_and_another_body_is_refused() {
        let once = Once::new();
        let t = new(once.begin("alice", "k1", b"body"));
        assert_eq!(
            once.begin("alice", "k1", b"body").unwrap_err(),
            OnceError::InFlight("k1".into()),
            "while the first runs"
        );
        t.finish("7");
        assert_eq!(done(once.begin("alice", "k1", b"body")), "7");
        assert_eq!(
            once.begin("alice", "k1", b"other").unwrap_err(),
            OnceError::Reused("k1".into())
        );
        // Keys are per user: bob's k1 is his own.
        new(once.begin("bob", "k1", b"body")).finish("8");
        assert_eq!(done(once.begin("alice", "k1", b"body")), "7");
    }

    #[test]
    fn a_failed_request_leaves_its_key_free_for_the_retry() {
        let once = Once::new();
        drop(new(once.begin("alice", "k", b"body")));
        new(once.begin("alice", "k", b"another body")).finish("3");
        assert_eq!(done(once.begin("alice", "k", b"another body")), "3");
    }
}
