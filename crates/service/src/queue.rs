//! The judging workers and the [`Hub`] that carries their live progress to the event streams.
//!
//! The queue itself lives in the store (see [`ojd_store`]): a worker claims the next
//! submission, judges it on a blocking thread with [`Judge::judge`](ojd_judge::judge::Judge::judge),
//! and stores the verdict under its claim. Progress events go to one broadcast channel that
//! every live stream filters by id; the hub also keeps the results so far of each running
//! judging, so a page opened halfway through shows the tests already done.
//!
//! The judge's own failures (sandbox, I/O, a problem that vanished in a reload) are stored as
//! verdict JE with the cause in the submission's `message`, and logged: never the student's
//! fault. A cancelled judging (shutdown) goes back to the queue.
//!
//! Across hosts (PostgreSQL): every event a node's workers publish is also sent through the
//! database ([`Hub::forward_to`], NOTIFY from a thread of its own, in order), and each node feeds
//! the other nodes' events into its hub ([`Hub::apply_remote`]), so a stream on any node sees
//! every judging. A judge host without a problems folder judges the package version its claim
//! names, from its [`Cache`](crate::blobs::Cache).

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use crate::logging::log;
use crate::node::Node;
use ojd_judge::judge::{Event, JudgeError, Submission};
use ojd_judge::verdict::{JudgeReport, TestResult, Verdict};
use ojd_store::{now_ms, Claim};

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

struct Running {
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
struct RunningGuard<'a> {
    hub: &'a Hub,
    id: i64,
}

impl Running {
    fn guard(hub: &Hub, id: i64) -> RunningGuard<'_> {
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

    fn begin(&self, id: i64) -> Arc<AtomicBool> {
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

    fn progress(&self, id: i64, event: Event<'_>) {
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

    fn end(&self, id: i64, event: Live) {
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

/// The worker tasks, to wait for at shutdown.
pub struct Workers(Vec<JoinHandle<()>>);

impl Workers {
    /// Waits for every worker; safe to call again after a timeout interrupted it.
    pub async fn join(&mut self) {
        while let Some(h) = self.0.last_mut() {
            let _ = h.await;
            self.0.pop();
        }
    }
}

/// Starts the node's judging workers (none on a serve node with `local_workers = false`).
pub fn spawn_workers(app: &Arc<Node>) -> Workers {
    let count = match app.role {
        crate::node::Role::Serve if !app.config.server.local_workers => 0,
        _ => app.workers,
    };
    Workers(
        (0..count)
            .map(|_| tokio::spawn(worker(app.clone())))
            .collect(),
    )
}

async fn worker(app: Arc<Node>) {
    let mut stop = app.stopping();
    let mut failing = false;
    loop {
        if *stop.borrow() {
            break;
        }
        let host = app.host.clone();
        let lease = crate::node::LEASE.as_millis() as i64;
        match app
            .db(move |s| {
                let now = now_ms();
                s.claim(&host, now, now + lease)
            })
            .await
        {
            Ok(Some(claim)) => {
                if claim.expired_lease {
                    log(&format!(
                        "submission {}: taken over from a host whose lease ran out",
                        claim.id
                    ));
                    app.metrics
                        .leases_taken_over
                        .fetch_add(1, Ordering::Relaxed);
                }
                failing = false;
                let (id, attempt) = (claim.id, claim.attempt);
                let je = judge_error_report(&claim);
                // A bug that panics while judging must not take the worker with it (the node
                // would judge with one worker fewer, silently): the submission gets a judge
                // error naming the panic, and the worker takes the next one.
                if let Err(panic) = unwound(judge_claim(&app, claim)).await {
                    app.metrics.judge_errors.fetch_add(1, Ordering::Relaxed);
                    let cause = format!("the worker panicked while judging: {panic}");
                    log(&format!("submission {id}: {cause}"));
                    store_verdict(&app, id, attempt, je, cause).await;
                    app.hub.end(id, Live::Done { id });
                }
            }
            Ok(None) => {
                tokio::select! {
                    _ = app.wake.notified() => {}
                    _ = stop.changed() => {}
                    // A backstop: work queued by another process (an admin tool) is found too.
                    // (and a dead host's expired lease).
                    _ = tokio::time::sleep(crate::node::IDLE_POLL) => {}
                }
            }
            Err(e) => {
                // The database is away (restart, network): say so once, then look again every
                // second until it answers.
                if !failing {
                    log(&format!("internal error: {}", error_chain(&e)));
                    failing = true;
                }
                tokio::select! {
                    _ = stop.changed() => {}
                    _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                }
            }
        }
    }
}

/// Runs `work` to its end, or returns the message of the panic that ended it.
async fn unwound(work: impl std::future::Future<Output = ()>) -> Result<(), String> {
    use futures_util::FutureExt;
    std::panic::AssertUnwindSafe(work)
        .catch_unwind()
        .await
        .map_err(|p| {
            p.downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string())
        })
}

/// A JudgeError verdict for a judging that failed before it had a report.
fn judge_error_report(claim: &Claim) -> JudgeReport {
    JudgeReport::new(
        &claim.problem,
        &claim.language,
        Verdict::JudgeError,
        Vec::new(),
    )
}

pub fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}

/// Judges one claimed submission and stores its verdict (or requeues it when cancelled).
async fn judge_claim(app: &Arc<Node>, claim: Claim) {
    let started = Instant::now();
    let (id, attempt) = (claim.id, claim.attempt);
    let cancel = app.hub.begin(id);
    // Whatever way this judging ends (a panic included), it leaves the live table, and so the
    // heartbeat stops renewing its lease: a claim nobody judges is taken over, never stuck.
    let _running = Running::guard(&app.hub, id);
    let problem = match &app.packages {
        // A judge host: the package version the claim names, fetched once and cached.
        Some(cache) => {
            let (cache, store) = (cache.clone(), app.store.clone());
            let (name, version) = (claim.problem.clone(), claim.package_version.clone());
            tokio::task::spawn_blocking(move || {
                cache.problem(store.as_ref(), &name, version.as_deref())
            })
            .await
            .map_err(|e| format!("the package task failed: {e}"))
            .and_then(|r| r.map_err(|e| error_chain(&e)))
        }
        None => app
            .catalog()
            .get(&claim.problem)
            .map(|e| e.problem.clone())
            .ok_or_else(|| format!("problem {:?} is not loaded on this judge", claim.problem)),
    };
    let outcome = match problem {
        Err(e) => Err(e),
        Ok(problem) => {
            let judge = app.judge.clone();
            let hub_app = app.clone();
            let sub = Submission {
                language: claim.language.clone(),
                source: claim.source.clone(),
            };
            let cancel = cancel.clone();
            let joined = tokio::task::spawn_blocking(move || {
                judge.judge(
                    &problem,
                    &sub,
                    &mut |event| hub_app.hub.progress(id, event),
                    &cancel,
                )
            })
            .await;
            match joined {
                Ok(Ok(report)) => Ok(report),
                Ok(Err(JudgeError::Cancelled)) => {
                    app.metrics.requeued.fetch_add(1, Ordering::Relaxed);
                    let requeued = app.db(move |s| s.requeue(id, attempt)).await;
                    if let Err(e) = requeued {
                        log(&format!("submission {id}: cannot requeue it: {e}"));
                    }
                    log(&format!(
                        "submission {id}: judging cancelled, back in the queue"
                    ));
                    app.hub.end(id, Live::Requeued { id });
                    return;
                }
                Ok(Err(e)) => Err(error_chain(&e)),
                Err(e) => Err(format!("the judging task failed: {e}")),
            }
        }
    };
    let (report, message) = match outcome {
        Ok(report) => (report, String::new()),
        Err(message) => {
            app.metrics.judge_errors.fetch_add(1, Ordering::Relaxed);
            (judge_error_report(&claim), message)
        }
    };
    let verdict = report.verdict;
    // The judge error's cause goes into the store with the verdict and into the log line.
    let cause = message.clone();
    match store_verdict(app, id, attempt, report, message).await {
        Some(true) => {
            crate::logging::judged(&crate::logging::Judged {
                submission: id,
                user: &claim.user,
                problem: &claim.problem,
                language: &claim.language,
                verdict: verdict.code(),
                time_ms: started.elapsed().as_millis(),
                host: &app.host,
                cause: &cause,
            });
            app.metrics.record(verdict, started.elapsed());
            app.hub.end(id, Live::Done { id });
        }
        Some(false) => {
            // Rejudged (or requeued, or taken over after a lost lease) while this judging ran:
            // the newer claim stores its own.
            app.metrics.stale_verdicts.fetch_add(1, Ordering::Relaxed);
            log(&format!(
                "submission {id}: verdict not stored, the claim is no longer current{}",
                judge_error_suffix(&cause)
            ));
            app.hub.end(id, Live::Requeued { id });
        }
        None => {
            // Left `judging` under this host: its lease runs out (or this host's next start
            // requeues it) and it is judged again.
            // (store_verdict said so; only a judge error's cause is still to be logged.)
            if !cause.is_empty() {
                log(&format!(
                    "submission {id}: judge error (not stored): {cause}"
                ));
            }
            app.hub.end(id, Live::Requeued { id });
        }
    }
}

/// `" (judge error: CAUSE)"` for a log line about a judge error whose verdict was not stored, so
/// its cause is never lost from the log; empty for any other verdict.
fn judge_error_suffix(cause: &str) -> String {
    if cause.is_empty() {
        String::new()
    } else {
        format!(" (judge error: {cause})")
    }
}

/// How long a verdict waits for the database while the node shuts down: past this the judging
/// is left to its lease.
const STORE_PATIENCE_AT_STOP: Duration = Duration::from_secs(15);

/// Stores a verdict under its claim, retrying with backoff while the database does not answer
/// (a restart, a network blip): the judging is not thrown away for a moment's outage.
/// `Some(stored)` once the database answered; `None` when the node gave up (it is stopping and
/// the database stayed away).
async fn store_verdict(
    app: &Arc<Node>,
    id: i64,
    attempt: u32,
    report: JudgeReport,
    message: String,
) -> Option<bool> {
    let report = Arc::new(report);
    let message = Arc::new(message);
    let mut backoff = Duration::from_millis(200);
    let mut gave_up_at: Option<Instant> = None;
    loop {
        let (r, m, store) = (report.clone(), message.clone(), app.store.clone());
        let tried =
            tokio::task::spawn_blocking(move || store.finish(id, attempt, &r, &m, now_ms()))
                .await
                .map_err(|e| e.to_string())
                .and_then(|r| r.map_err(|e| error_chain(&e)));
        match tried {
            Ok(stored) => return Some(stored),
            Err(e) => {
                if app.metrics.store_retries.fetch_add(1, Ordering::Relaxed) == 0
                    || backoff >= Duration::from_secs(5)
                {
                    log(&format!(
                        "submission {id}: cannot store the verdict yet (retrying): {e}"
                    ));
                }
                if app.is_stopping() {
                    let since = *gave_up_at.get_or_insert_with(Instant::now);
                    if since.elapsed() > STORE_PATIENCE_AT_STOP {
                        log(&format!(
                            "submission {id}: the database stayed away; the verdict is dropped and the submission will be judged again"
                        ));
                        return None;
                    }
                }
                tokio::time::sleep(backoff).await;
                backoff = (backoff * 2).min(Duration::from_secs(5));
            }
        }
    }
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

    #[tokio::test]
    async fn a_panic_while_judging_becomes_its_message() {
        assert_eq!(unwound(async {}).await, Ok(()));
        let id = 7;
        let got = unwound(async move {
            if id == 7 {
                panic!("index out of bounds: {id}");
            }
        })
        .await;
        assert_eq!(got, Err("index out of bounds: 7".to_string()));
        assert_eq!(
            unwound(async { std::panic::panic_any(5u8) }).await,
            Err("a panic without a message".to_string())
        );
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
