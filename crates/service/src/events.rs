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
//!
//! Judgings: a submission may be judged more than once at the same time (a host paused past
//! its lease, or cut from the database, goes on judging while another host, or this one, took
//! the submission over). Every event belongs to one judging (its id travels with it between
//! nodes), and only the newest judging of a submission reaches the streams: a stale judging's
//! events are dropped, never shown beside the current one's. A node that takes over its own
//! claim cancels its stale judging, and the stale one's end leaves the newer one's lease
//! renewed.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;

use ojd_judge::Event;
use ojd_judge::TestResult;

/// A moment in a judging.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Live {
    /// A worker claimed the submission and started judging it.
    Started {
        /// The submission's id.
        id: i64,
    },
    /// Compilation finished.
    Compiled {
        /// The submission's id.
        id: i64,
        /// Whether a program came out of it (false: a compile error).
        ok: bool,
    },
    /// A test is about to run.
    TestStarted {
        /// The submission's id.
        id: i64,
        /// The test's 0-based position in the problem's test order.
        index: usize,
        /// The test's name.
        name: String,
    },
    /// A test ran and was checked.
    TestFinished {
        /// The submission's id.
        id: i64,
        /// The test's 0-based position in the problem's test order.
        index: usize,
        /// Its result, unredacted (the viewer policy cuts it per viewer).
        result: TestResult,
    },
    /// The verdict is in the store.
    Done {
        /// The submission's id.
        id: i64,
    },
    /// The judging stopped without a verdict and the submission waits in the queue again.
    Requeued {
        /// The submission's id.
        id: i64,
    },
}

impl Live {
    /// The id of the submission this event is about.
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
    /// Whether compilation succeeded; `None` until it finished.
    pub compiled: Option<bool>,
    /// The index of the test running now, if one is.
    pub running: Option<usize>,
    /// The finished tests' results, in order.
    pub tests: Vec<TestResult>,
}

pub(crate) struct Running {
    /// The judging (its id in the store) these events belong to.
    judging: i64,
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

/// Removes a judging of this node from the live table when dropped (only that judging: a
/// newer judging of the same submission stays).
pub(crate) struct RunningGuard<'a> {
    hub: &'a Hub,
    id: i64,
    judging: i64,
}

impl Running {
    pub(crate) fn guard(hub: &Hub, id: i64, judging: i64) -> RunningGuard<'_> {
        RunningGuard { hub, id, judging }
    }
}

impl Drop for RunningGuard<'_> {
    fn drop(&mut self) {
        let mut table = self.hub.lock();
        if (table.running.get(&self.id))
            .is_some_and(|r| r.heard.is_none() && r.judging == self.judging)
        {
            table.running.remove(&self.id);
        }
    }
}

/// The live table: the judgings in flight, and the newest judging seen of each submission.
#[derive(Default)]
struct Table {
    running: HashMap<i64, Running>,
    /// Submission → the newest judging an event was seen of; events of older ones are stale.
    newest: HashMap<i64, i64>,
}

/// How many submissions [`Table::newest`] remembers before it forgets those not running.
const NEWEST_KEPT: usize = 100_000;

impl Table {
    /// Whether an event of `judging` of submission `id` is current (not older than the newest
    /// judging seen of it); records it as the newest.
    fn current(&mut self, id: i64, judging: i64) -> bool {
        if self.newest.len() > NEWEST_KEPT {
            let running = &self.running;
            self.newest.retain(|id, _| running.contains_key(id));
        }
        let newest = self.newest.entry(id).or_insert(judging);
        if judging < *newest {
            return false;
        }
        *newest = judging;
        true
    }
}

/// Live progress of the judgings in flight.
pub struct Hub {
    tx: broadcast::Sender<Arc<Live>>,
    table: Mutex<Table>,
    /// Where this node's events go to reach the other nodes (PostgreSQL).
    outbox: Mutex<Option<Outbox>>,
}

/// The most events sent to the other nodes in one statement.
const MAX_BATCH: usize = 256;

/// The most events waiting for the thread that sends them to the other nodes: past it (the
/// database is slow or gone) new ones are dropped, so a judging never waits on the database
/// for its live events and memory stays bounded. Live events are lossy by design (a stream
/// that misses one re-reads the store); verdicts never travel this way.
const OUTBOX_CAPACITY: usize = 8 * MAX_BATCH;

/// The bounded queue of events on their way to the other nodes.
struct Outbox(std::sync::mpsc::SyncSender<(i64, Live)>);

impl Outbox {
    /// Queues an event without blocking; `false` when it was dropped (the queue is full, or
    /// the sending thread is gone).
    fn push(&self, judging: i64, event: Live) -> bool {
        self.0.try_send((judging, event)).is_ok()
    }
}

/// An event as it travels between nodes.
#[derive(Serialize, Deserialize)]
struct Envelope {
    from: String,
    /// The judging the event belongs to (0 from an ojd that did not say).
    #[serde(default)]
    judging: i64,
    live: Live,
}

impl Default for Hub {
    fn default() -> Self {
        Hub::new()
    }
}

impl Hub {
    /// A hub with no judging in flight and no subscriber.
    pub fn new() -> Hub {
        // Streams that fall this far behind re-read the store (see sse.rs).
        let (tx, _) = broadcast::channel(4096);
        Hub {
            tx,
            table: Mutex::new(Table::default()),
            outbox: Mutex::new(None),
        }
    }

    /// Sends every event of this node through the store to the other nodes, from a thread of
    /// its own (in order, through a bounded queue that never blocks the sender: a database
    /// that is slow or fails loses live events, never verdicts).
    pub(crate) fn forward_to(&self, store: Arc<dyn ojd_store::Store>, host: String) {
        let (tx, rx) = std::sync::mpsc::sync_channel::<(i64, Live)>(OUTBOX_CAPACITY);
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
                        .filter_map(|(judging, live)| envelope(&host, judging, live))
                        .collect();
                    let _ = store.notify(&payloads);
                }
            });
        if spawned.is_ok() {
            *self.outbox.lock().unwrap_or_else(|e| e.into_inner()) = Some(Outbox(tx));
        }
    }

    fn send(&self, judging: i64, event: Live) {
        if let Some(out) = &*self.outbox.lock().unwrap_or_else(|e| e.into_inner()) {
            out.push(judging, event.clone());
        }
        let _ = self.tx.send(Arc::new(event));
    }

    /// An event from another node (its JSON envelope); this node's own are ignored.
    pub(crate) fn apply_remote(&self, me: &str, payload: &str) {
        let Ok(env) = serde_json::from_str::<Envelope>(payload) else {
            return;
        };
        if env.from == me {
            return;
        }
        let id = env.live.id();
        let now = Instant::now();
        let mut table = self.lock();
        forget_silent(&mut table.running, now);
        if !table.current(id, env.judging) {
            // A stale judging (its host lost the claim and goes on): never shown.
            return;
        }
        let running = &mut table.running;
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
                        judging: env.judging,
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

    fn lock(&self) -> std::sync::MutexGuard<'_, Table> {
        self.table.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// A stream of every event from now on; a subscriber that falls too far behind gets a `Lagged`
    /// error and should re-read the store.
    pub fn subscribe(&self) -> broadcast::Receiver<Arc<Live>> {
        self.tx.subscribe()
    }

    /// The progress of a judging in flight.
    pub fn snapshot(&self, id: i64) -> Option<Progress> {
        self.lock().running.get(&id).map(|r| r.progress.clone())
    }

    /// The submissions this node's own workers are judging now (the leases its heartbeat
    /// renews).
    pub(crate) fn local_ids(&self) -> Vec<i64> {
        self.lock()
            .running
            .iter()
            .filter(|(_, r)| r.heard.is_none())
            .map(|(id, _)| *id)
            .collect()
    }

    /// A judging of this node begins: `judging` of submission `id`. An older judging of the
    /// same submission still running here (this host took over its own expired claim) is
    /// cancelled: the store refuses its verdict anyway.
    pub(crate) fn begin(&self, id: i64, judging: i64) -> Arc<AtomicBool> {
        let cancel = Arc::new(AtomicBool::new(false));
        let mut table = self.lock();
        table.current(id, judging);
        let old = table.running.insert(
            id,
            Running {
                judging,
                progress: Progress::default(),
                cancel: cancel.clone(),
                heard: None,
            },
        );
        if let Some(old) = old.filter(|o| o.judging != judging) {
            old.cancel.store(true, Ordering::Relaxed);
        }
        self.send(judging, Live::Started { id });
        cancel
    }

    /// Records and broadcasts one event of `judging`; under the lock, so a snapshot never
    /// misses one. A stale judging's event is dropped.
    fn publish(&self, judging: i64, event: Live) {
        let mut table = self.lock();
        let id = event.id();
        if !table.current(id, judging) {
            return;
        }
        if let Some(r) = table.running.get_mut(&id).filter(|r| r.judging == judging) {
            record(&mut r.progress, &event);
        }
        self.send(judging, event);
    }

    pub(crate) fn progress(&self, id: i64, judging: i64, event: Event<'_>) {
        self.publish(
            judging,
            match event {
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
            },
        );
    }

    /// `judging` of submission `id` ended (`event`: done or requeued). It leaves the live
    /// table, unless a newer judging of the submission took its place (then `event`, stale, is
    /// dropped: the newer judging's lease stays renewed and its stream goes on).
    pub(crate) fn end(&self, id: i64, judging: i64, event: Live) {
        let mut table = self.lock();
        if !table.current(id, judging) {
            return;
        }
        if table.running.get(&id).is_some_and(|r| r.judging == judging) {
            table.running.remove(&id);
        }
        self.send(judging, event);
    }

    /// Asks every judging in flight to stop at its next test; returns how many.
    pub fn cancel_all(&self) -> usize {
        let table = self.lock();
        for r in table.running.values() {
            r.cancel.store(true, Ordering::Relaxed);
        }
        table.running.len()
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
fn envelope(host: &str, judging: i64, mut live: Live) -> Option<String> {
    let limit = ojd_store::MAX_PAYLOAD;
    for step in 0..3 {
        let text = serde_json::to_string(&Envelope {
            from: host.to_string(),
            judging,
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

    #[test]
    fn a_stuck_outbox_drops_events_instead_of_blocking_or_growing() {
        // Nobody drains the queue: the database's thread is stuck on a statement.
        let (tx, rx) = std::sync::mpsc::sync_channel(OUTBOX_CAPACITY);
        let out = Outbox(tx);
        let queued = (0..OUTBOX_CAPACITY as i64 + 100)
            .filter(|&i| out.push(i, Live::Started { id: i }))
            .count();
        assert_eq!(queued, OUTBOX_CAPACITY);
        // In order, the first ones kept.
        assert_eq!(rx.try_recv().ok().map(|(j, _)| j), Some(0));
        drop(rx);
        assert!(!out.push(1, Live::Started { id: 1 }), "the thread is gone");
    }

    fn remote(from: &str, judging: i64, live: Live) -> String {
        serde_json::to_string(&Envelope {
            from: from.into(),
            judging,
            live,
        })
        .expect("json")
    }

    fn finished(id: i64, index: usize, memory_kib: u64) -> Live {
        Live::TestFinished {
            id,
            index,
            result: TestResult {
                name: format!("t{index}"),
                sample: false,
                verdict: ojd_judge::Verdict::Accepted,
                cpu_ms: 1,
                wall_ms: 1,
                memory_kib,
                exit: None,
                message: String::new(),
                diff: None,
            },
        }
    }

    /// Every event a stream would see now.
    fn drain(rx: &mut broadcast::Receiver<Arc<Live>>) -> Vec<Live> {
        std::iter::from_fn(|| rx.try_recv().ok().map(|l| (*l).clone())).collect()
    }

    #[test]
    fn only_this_nodes_judgings_are_renewed_and_they_leave_however_they_end() {
        let hub = Hub::new();
        let _ = hub.begin(5, 50);
        hub.apply_remote("me", &remote("other", 70, Live::Started { id: 7 }));
        hub.apply_remote("me", &remote("me", 90, Live::Started { id: 9 }));
        assert_eq!(hub.lock().running.len(), 2, "our own echo is ignored");
        assert_eq!(hub.local_ids(), vec![5], "the heartbeat renews ours only");
        // A judging that ends without `end` (a panic unwinding judge_claim) still leaves.
        drop(Running::guard(&hub, 5, 50));
        assert_eq!(hub.local_ids(), Vec::<i64>::new());
        // The guard never removes another node's judging of the same id.
        drop(Running::guard(&hub, 7, 70));
        assert!(hub.snapshot(7).is_some());
    }

    #[test]
    fn a_host_that_takes_over_its_own_claim_keeps_renewing_it() {
        // Judging 50 of submission 5 lost its lease (the database was away); this host's other
        // worker claimed it again as judging 51. The stale one is cancelled, and its end must
        // not take the submission out of the leases the heartbeat renews.
        let hub = Hub::new();
        let mut rx = hub.subscribe();
        let stale = hub.begin(5, 50);
        let newer = hub.begin(5, 51);
        assert!(
            stale.load(Ordering::Relaxed),
            "the stale judging is cancelled"
        );
        assert!(!newer.load(Ordering::Relaxed));
        hub.progress(
            5,
            50,
            Event::TestStarted {
                index: 7,
                name: "t7",
            },
        );
        hub.end(5, 50, Live::Requeued { id: 5 });
        drop(Running::guard(&hub, 5, 50));
        assert_eq!(hub.local_ids(), vec![5], "judging 51 is still renewed");
        let seen = drain(&mut rx);
        assert_eq!(
            seen.len(),
            2,
            "two Started, nothing of the stale one after: {seen:?}"
        );
        hub.end(5, 51, Live::Done { id: 5 });
        assert_eq!(hub.local_ids(), Vec::<i64>::new());
        assert!(matches!(drain(&mut rx).as_slice(), [Live::Done { id: 5 }]));
    }

    #[test]
    fn a_stale_judgings_events_never_reach_the_streams() {
        // Host A was paused past its lease; host B took submission 3 over (judging 31). A wakes
        // up and goes on sending tests of its judging 30.
        let hub = Hub::new();
        hub.apply_remote("me", &remote("a", 30, Live::Started { id: 3 }));
        hub.apply_remote("me", &remote("a", 30, finished(3, 0, 100)));
        let mut rx = hub.subscribe();
        hub.apply_remote("me", &remote("b", 31, Live::Started { id: 3 }));
        hub.apply_remote("me", &remote("b", 31, finished(3, 0, 200)));
        hub.apply_remote("me", &remote("a", 30, finished(3, 1, 100)));
        hub.apply_remote("me", &remote("a", 30, Live::Done { id: 3 }));
        let progress = hub.snapshot(3).expect("judging 31 runs");
        let memory: Vec<u64> = progress.tests.iter().map(|t| t.memory_kib).collect();
        assert_eq!(memory, vec![200], "only judging 31's tests");
        let seen = drain(&mut rx);
        assert_eq!(seen.len(), 2, "{seen:?}");
        assert!(seen.iter().all(|l| match l {
            Live::TestFinished { result, .. } => result.memory_kib == 200,
            l => matches!(l, Live::Started { .. }),
        }));
        // The stale Done did not end the newer judging; its own does.
        hub.apply_remote("me", &remote("b", 31, Live::Done { id: 3 }));
        assert!(hub.snapshot(3).is_none());
        assert_eq!(drain(&mut rx).len(), 1);
        // And the stale host's late events after that are still dropped.
        hub.apply_remote("me", &remote("a", 30, finished(3, 2, 100)));
        assert!(drain(&mut rx).is_empty());
    }

    #[test]
    fn a_remote_judging_whose_done_was_lost_is_forgotten() {
        let hub = Hub::new();
        let _ = hub.begin(1, 10);
        hub.apply_remote("me", &remote("other", 20, Live::Started { id: 2 }));
        hub.apply_remote("me", &remote("other", 30, Live::Started { id: 3 }));
        let mut table = hub.lock();
        let running = &mut table.running;
        let now = Instant::now();
        forget_silent(running, now + REMOTE_SILENCE / 2);
        assert_eq!(running.len(), 3, "recently heard");
        if let Some(r) = running.get_mut(&3) {
            r.heard = Some(now + REMOTE_SILENCE);
        }
        forget_silent(running, now + REMOTE_SILENCE + Duration::from_secs(1));
        let mut left: Vec<i64> = running.keys().copied().collect();
        left.sort();
        assert_eq!(left, vec![1, 3], "2 went silent; our own 1 never expires");
    }
}
