//! Live progress of the judgings in flight: the [`Hub`] that carries the workers' events to the
//! event streams.
//!
//! Progress events go to one broadcast channel that every live stream filters by id; the hub
//! also keeps the results so far of each running judging, so a page opened halfway through
//! shows the tests already done.
//!
//! Across hosts (PostgreSQL): every event a node's workers publish is also sent through the
//! database ([`Hub::forward_to`], NOTIFY from a thread of its own, in order), and each node feeds
//! the other nodes' events into its hub ([`Hub::apply_remote`]), so a stream on any node sees
//! every judging.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use ojd_judge::judge::Event;
use ojd_judge::verdict::TestResult;

/// A moment in a judging.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Live {
    Started {
        id: i64,
    },
    Compiled {
        id: i64,
        ok: bool,
    },
    TestStarted {
        id: i64,
        index: usize,
        name: String,
    },
    TestFinished {
        id: i64,
        index: usize,
        result: TestResult,
    },
    /// The verdict is in the store.
    Done {
        id: i64,
    },
    /// The judging stopped without a verdict and the submission waits in the queue again.
    Requeued {
        id: i64,
    },
}

impl Live {
    pub fn id(&self) -> i64 {
        match self {
            Live::Started { id }
            | Live::Compiled { id, .. }
            | Live::TestStarted { id, .. }
            | Live::TestFinished { id, .. }
            | Live::Done { id }
            | Live::Requeued { id } => *id,
        }
    }
}

/// What a running judging has done so far.
#[derive(Clone, Debug, Default)]
pub struct Progress {
    pub compiled: Option<bool>,
    pub running: Option<usize>,
    pub tests: Vec<TestResult>,
}

pub(crate) struct Running {
    progress: Progress,
    cancel: Arc<AtomicBool>,
    /// For another node's judging: when its last event arrived (`None`: this node's own).
    heard: Option<Instant>,
}

/// Another node's judging that has sent no event for this long is dropped from the live table:
/// its host died or its events were lost (a page then reads the store). Longer than any test
/// plus its checker is allowed to run between two events.
const REMOTE_SILENCE: Duration = Duration::from_secs(120);

/// Drops the remote judgings not heard from for [`REMOTE_SILENCE`]: one whose Done (or whose
/// host) was lost must not stay "running" forever.
fn forget_silent(running: &mut HashMap<i64, Running>, now: Instant) {
    running.retain(|_, r| {
        r.heard
            .is_none_or(|t| now.saturating_duration_since(t) < REMOTE_SILENCE)
    });
}

/// Removes a judging of this node from the live table when dropped.
pub(crate) struct RunningGuard<'a> {
    hub: &'a Hub,
    id: i64,
}

impl Running {
    pub(crate) fn guard(hub: &Hub, id: i64) -> RunningGuard<'_> {
        RunningGuard { hub, id }
    }
}

impl Drop for RunningGuard<'_> {
    fn drop(&mut self) {
        let mut running = self.hub.lock();
        if running.get(&self.id).is_some_and(|r| r.heard.is_none()) {
            running.remove(&self.id);
        }
    }
}

/// Live progress of the judgings in flight.
pub struct Hub {
    tx: broadcast::Sender<Arc<Live>>,
    running: Mutex<HashMap<i64, Running>>,
    /// Where this node's events go to reach the other nodes (PostgreSQL).
    outbox: Mutex<Option<std::sync::mpsc::Sender<Live>>>,
}

/// The most events sent to the other nodes in one statement.
const MAX_BATCH: usize = 256;

/// An event as it travels between nodes.
#[derive(Serialize, Deserialize)]
struct Envelope {
    from: String,
    live: Live,
}

impl Default for Hub {
    fn default() -> Self {
        Hub::new()
    }
}

impl Hub {
    pub fn new() -> Hub {
        // Streams that fall this far behind re-read the store (see sse.rs).
        let (tx, _) = broadcast::channel(4096);
        Hub {
            tx,
            running: Mutex::new(HashMap::new()),
            outbox: Mutex::new(None),
        }
    }

    /// Sends every event of this node through the store to the other nodes, from a thread of
    /// its own (in order; a database that fails loses live events, never verdicts).
    pub fn forward_to(&self, store: Arc<dyn ojd_store::Store>, host: String) {
        let (tx, rx) = std::sync::mpsc::channel::<Live>();
        let spawned = std::thread::Builder::new()
            .name("ojd-events".into())
            .spawn(move || {
                // Whatever piled up while the last batch was on its way goes in the next one:
                // one round trip per batch, however fast the tests run.
                while let Ok(first) = rx.recv() {
                    let mut batch = vec![first];
                    while batch.len() < MAX_BATCH {
                        match rx.try_recv() {
                            Ok(more) => batch.push(more),
                            Err(_) => break,
                        }
                    }
                    let payloads: Vec<String> = batch
                        .into_iter()
                        .filter_map(|live| envelope(&host, live))
                        .collect();
                    let _ = store.notify(&payloads);
                }
            });
        if spawned.is_ok() {
            *self.outbox.lock().unwrap_or_else(|e| e.into_inner()) = Some(tx);
        }
    }

    fn send(&self, event: Live) {
        if let Some(out) = &*self.outbox.lock().unwrap_or_else(|e| e.into_inner()) {
            let _ = out.send(event.clone());
        }
        let _ = self.tx.send(Arc::new(event));
    }

    /// An event from another node (its JSON envelope); this node's own are ignored.
    pub fn apply_remote(&self, me: &str, payload: &str) {
        let Ok(env) = serde_json::from_str::<Envelope>(payload) else {
            return;
        };
        if env.from == me {
            return;
        }
        let id = env.live.id();
        let now = Instant::now();
        let mut running = self.lock();
        forget_silent(&mut running, now);
        if let Some(r) = running.get_mut(&id) {
            if r.heard.is_some() {
                r.heard = Some(now);
            }
        }
        match &env.live {
            Live::Started { .. } => {
                running.insert(
                    id,
                    Running {
                        progress: Progress::default(),
                        cancel: Arc::new(AtomicBool::new(false)),
                        heard: Some(now),
                    },
                );
            }
            Live::Done { .. } | Live::Requeued { .. } => {
                running.remove(&id);
            }
            other => {
                if let Some(r) = running.get_mut(&id) {
                    record(&mut r.progress, other);
                }
            }
        }
        let _ = self.tx.send(Arc::new(env.live));
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<i64, Running>> {
        self.running.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Live>> {
        self.tx.subscribe()
    }

    /// The progress of a judging in flight.
    pub fn snapshot(&self, id: i64) -> Option<Progress> {
        self.lock().get(&id).map(|r| r.progress.clone())
    }

    pub fn running_count(&self) -> usize {
        self.lock().len()
    }

    /// The submissions this node's own workers are judging now (the leases its heartbeat
    /// renews).
    pub fn local_ids(&self) -> Vec<i64> {
        self.lock()
            .iter()
            .filter(|(_, r)| r.heard.is_none())
            .map(|(id, _)| *id)
            .collect()
    }

    pub(crate) fn begin(&self, id: i64) -> Arc<AtomicBool> {
        let cancel = Arc::new(AtomicBool::new(false));
        self.lock().insert(
            id,
            Running {
                progress: Progress::default(),
                cancel: cancel.clone(),
                heard: None,
            },
        );
        self.send(Live::Started { id });
        cancel
    }

    /// Records and broadcasts one event; under the lock, so a snapshot never misses one.
    fn publish(&self, event: Live) {
        let mut running = self.lock();
        if let Some(r) = running.get_mut(&event.id()) {
            record(&mut r.progress, &event);
        }
        self.send(event);
    }

    pub(crate) fn progress(&self, id: i64, event: Event<'_>) {
        self.publish(match event {
            Event::Compiled { ok } => Live::Compiled { id, ok },
            Event::TestStarted { index, name } => Live::TestStarted {
                id,
                index,
                name: name.to_string(),
            },
            Event::TestFinished { index, result } => Live::TestFinished {
                id,
                index,
                result: result.clone(),
            },
        });
    }

    pub(crate) fn end(&self, id: i64, event: Live) {
        self.lock().remove(&id);
        self.send(event);
    }

    /// Asks every judging in flight to stop at its next test; returns how many.
    pub fn cancel_all(&self) -> usize {
        let running = self.lock();
        for r in running.values() {
            r.cancel.store(true, Ordering::Relaxed);
        }
        running.len()
    }
}

fn record(progress: &mut Progress, event: &Live) {
    match event {
        Live::Compiled { ok, .. } => progress.compiled = Some(*ok),
        Live::TestStarted { index, .. } => progress.running = Some(*index),
        Live::TestFinished { result, .. } => {
            progress.running = None;
            progress.tests.push(result.clone());
        }
        _ => {}
    }
}

/// The JSON an event travels in, cut to fit a NOTIFY: a test's diff and then its message go
/// first (the page reads them from the store when the verdict is in).
fn envelope(host: &str, mut live: Live) -> Option<String> {
    let limit = ojd_store::postgres::MAX_PAYLOAD;
    for step in 0..3 {
        let text = serde_json::to_string(&Envelope {
            from: host.to_string(),
            live: live.clone(),
        })
        .ok()?;
        if text.len() <= limit {
            return Some(text);
        }
        match (&mut live, step) {
            (Live::TestFinished { result, .. }, 0) => result.diff = None,
            (Live::TestFinished { result, .. }, 1) => result.message.clear(),
            _ => return None,
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn remote(from: &str, live: Live) -> String {
        serde_json::to_string(&Envelope {
            from: from.into(),
            live,
        })
        .expect("json")
    }

    #[test]
    fn only_this_nodes_judgings_are_renewed_and_they_leave_however_they_end() {
        let hub = Hub::new();
        let _ = hub.begin(5);
        hub.apply_remote("me", &remote("other", Live::Started { id: 7 }));
        hub.apply_remote("me", &remote("me", Live::Started { id: 9 }));
        assert_eq!(hub.running_count(), 2, "our own echo is ignored");
        assert_eq!(hub.local_ids(), vec![5], "the heartbeat renews ours only");
        // A judging that ends without `end` (a panic unwinding judge_claim) still leaves.
        drop(Running::guard(&hub, 5));
        assert_eq!(hub.local_ids(), Vec::<i64>::new());
        // The guard never removes another node's judging of the same id.
        drop(Running::guard(&hub, 7));
        assert!(hub.snapshot(7).is_some());
    }

    #[test]
    fn a_remote_judging_whose_done_was_lost_is_forgotten() {
        let hub = Hub::new();
        let _ = hub.begin(1);
        hub.apply_remote("me", &remote("other", Live::Started { id: 2 }));
        hub.apply_remote("me", &remote("other", Live::Started { id: 3 }));
        let mut running = hub.lock();
        let now = Instant::now();
        forget_silent(&mut running, now + REMOTE_SILENCE / 2);
        assert_eq!(running.len(), 3, "recently heard");
        if let Some(r) = running.get_mut(&3) {
            r.heard = Some(now + REMOTE_SILENCE);
        }
        forget_silent(&mut running, now + REMOTE_SILENCE + Duration::from_secs(1));
        let mut left: Vec<i64> = running.keys().copied().collect();
        left.sort();
        assert_eq!(left, vec![1, 3], "2 went silent; our own 1 never expires");
    }
}
