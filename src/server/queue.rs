//! The judging workers and the [`Hub`] that carries their live progress to the event streams.
//!
//! The queue itself lives in the store (see [`crate::store`]): a worker claims the next
//! submission, judges it on a blocking thread with [`Judge::judge`](crate::judge::Judge::judge),
//! and stores the verdict under its claim. Progress events go to one broadcast channel that
//! every live stream filters by id; the hub also keeps the results so far of each running
//! judging, so a page opened halfway through shows the tests already done.
//!
//! The judge's own failures (sandbox, I/O, a problem that vanished in a reload) are stored as
//! verdict JE with the cause in the submission's `message`, and logged: never the student's
//! fault. A cancelled judging (shutdown) goes back to the queue.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use tokio::sync::broadcast;
use tokio::task::JoinHandle;

use super::{log, App};
use crate::judge::{Event, JudgeError, Submission};
use crate::store::{now_ms, Claim};
use crate::verdict::{JudgeReport, TestResult, Verdict};

/// A moment in a judging.
#[derive(Clone, Debug)]
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
}

/// Live progress of the judgings in flight.
pub struct Hub {
    tx: broadcast::Sender<Arc<Live>>,
    running: Mutex<HashMap<i64, Running>>,
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
        }
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

    fn begin(&self, id: i64) -> Arc<AtomicBool> {
        let cancel = Arc::new(AtomicBool::new(false));
        self.lock().insert(
            id,
            Running {
                progress: Progress::default(),
                cancel: cancel.clone(),
            },
        );
        let _ = self.tx.send(Arc::new(Live::Started { id }));
        cancel
    }

    /// Records and broadcasts one event; under the lock, so a snapshot never misses one.
    fn publish(&self, event: Live) {
        let mut running = self.lock();
        if let Some(r) = running.get_mut(&event.id()) {
            match &event {
                Live::Compiled { ok, .. } => r.progress.compiled = Some(*ok),
                Live::TestStarted { index, .. } => r.progress.running = Some(*index),
                Live::TestFinished { result, .. } => {
                    r.progress.running = None;
                    r.progress.tests.push(result.clone());
                }
                _ => {}
            }
        }
        let _ = self.tx.send(Arc::new(event));
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
        let _ = self.tx.send(Arc::new(event));
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

pub fn spawn_workers(app: &Arc<App>) -> Workers {
    Workers(
        (0..app.workers)
            .map(|_| tokio::spawn(worker(app.clone())))
            .collect(),
    )
}

async fn worker(app: Arc<App>) {
    let mut stop = app.stopping();
    loop {
        if *stop.borrow() {
            break;
        }
        let host = app.host.clone();
        match app.db(move |s| s.claim(&host, now_ms())).await {
            Ok(Some(claim)) => judge_claim(&app, claim).await,
            Ok(None) => {
                tokio::select! {
                    _ = app.wake.notified() => {}
                    _ = stop.changed() => {}
                    // A backstop: work queued by another process (an admin tool) is found too.
                    _ = tokio::time::sleep(Duration::from_secs(2)) => {}
                }
            }
            Err(e) => {
                e.log_if_internal();
                tokio::select! {
                    _ = stop.changed() => {}
                    _ = tokio::time::sleep(Duration::from_secs(1)) => {}
                }
            }
        }
    }
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

fn error_chain(e: &dyn std::error::Error) -> String {
    let mut text = e.to_string();
    let mut source = e.source();
    while let Some(s) = source {
        text.push_str(&format!(": {s}"));
        source = s.source();
    }
    text
}

/// Judges one claimed submission and stores its verdict (or requeues it when cancelled).
async fn judge_claim(app: &Arc<App>, claim: Claim) {
    let started = Instant::now();
    let (id, attempt) = (claim.id, claim.attempt);
    let cancel = app.hub.begin(id);
    let problem = app.catalog().get(&claim.problem).map(|e| e.problem.clone());
    let outcome = match problem {
        None => Err(format!(
            "problem {:?} is not loaded on this judge",
            claim.problem
        )),
        Some(problem) => {
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
                    let requeued = app.db(move |s| s.requeue(id, attempt)).await;
                    if let Err(e) = requeued {
                        e.log_if_internal();
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
            log(&format!("submission {id}: judge error: {message}"));
            app.metrics.judge_errors.fetch_add(1, Ordering::Relaxed);
            (judge_error_report(&claim), message)
        }
    };
    let verdict = report.verdict;
    match app
        .db(move |s| s.finish(id, attempt, &report, &message, now_ms()))
        .await
    {
        Ok(true) => {
            app.metrics.record(verdict, started.elapsed());
            app.hub.end(id, Live::Done { id });
        }
        Ok(false) => {
            // Rejudged (or requeued) while this judging ran: the newer claim will store it.
            app.hub.end(id, Live::Requeued { id });
        }
        Err(e) => {
            // Left `judging` in the store: the next start judges it again.
            e.log_if_internal();
            app.hub.end(id, Live::Requeued { id });
        }
    }
}
