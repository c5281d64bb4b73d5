//! The judging workers: each claims the next submission from the queue, which lives in the
//! store (see [`ojd_store`]), judges it on a blocking thread with
//! [`Judge::judge`](ojd_judge::Judge::judge), and stores the verdict under its claim;
//! its progress goes to the node's [`Hub`](crate::events::Hub).
//!
//! A host fault ([`JudgeError::is_host_fault`]: the host's disk full or failing, its own I/O,
//! its sandbox) is never a verdict: the judging is abandoned, the submission goes back to the
//! queue for a healthy host, and this host stops claiming until its checks pass
//! ([`Node::ready_to_claim`]). Other judge failures (a problem that vanished in a reload, a
//! submission that met the same host fault again and again) are stored as verdict JE with the
//! cause in the submission's `message`, and logged. A cancelled judging (shutdown) goes back to
//! the queue. A poison pill, a submission whose judgings ended twice while their host lived on
//! ([`ojd_store::POISON_CRASHES`]) or ended with their host three times
//! ([`ojd_store::POISON_HOST_DEATHS`]: a host's death is most often its own), is stored as a
//! judge error at its next claim, unjudged. A judge host without a
//! problems folder judges the package version its claim names, from its
//! [`Cache`](crate::blobs::Cache).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use tokio::task::JoinHandle;

use crate::events::{Live, Running};
use crate::logging::{error_chain, log};
use crate::node::Node;
use crate::now_ms;
use ojd_judge::{JudgeError, Submission};
use ojd_judge::{JudgeReport, Verdict};
use ojd_store::Claim;

/// The worker tasks, to wait for at shutdown.
pub struct Workers(Vec<JoinHandle<()>>);

impl Workers {
    /// Waits for every worker; safe to call again after a timeout interrupted it.
    pub(crate) async fn join(&mut self) {
        while let Some(h) = self.0.last_mut() {
            let _ = h.await;
            self.0.pop();
        }
    }
}

/// Starts the node's judging workers (none on a serve node with `local_workers = false`),
/// and beside them the probe of the languages this host cannot judge yet
/// (`recheck_toolchains`).
pub fn spawn_workers(app: &Arc<Node>) -> Workers {
    let count = app.judging_workers();
    if count > 0 {
        // A language whose toolchain this host could not resolve at start is not claimed here
        // until a later probe finds it.
        for (id, resolved) in app.judge.languages() {
            if let Err(why) = resolved {
                app.health.skip_language(&id, &error_chain(&why));
            }
        }
        tokio::spawn(recheck_toolchains(app.clone()));
    }
    Workers(
        (0..count)
            .map(|_| tokio::spawn(worker(app.clone())))
            .collect(),
    )
}

/// Probes again, on a blocking thread, each language this host could not resolve (its
/// toolchain missing, its probe failed or timed out on a loaded host) when its wait has passed
/// ([`Judge::recheck_languages`](ojd_judge::Judge::recheck_languages): 1 min doubling to 15
/// by default), and all of them at once when an admin resumes this host. A language found
/// is claimed again, without a restart; one still missing stays skipped (a new reason is
/// logged). Ends when every language is resolved, or at shutdown.
async fn recheck_toolchains(app: Arc<Node>) {
    let mut stop = app.stopping();
    loop {
        if *stop.borrow() {
            return;
        }
        let Some(due) = app.judge.next_language_recheck() else {
            return;
        };
        // At least a second between probes, whatever the clock says.
        let wait = due
            .saturating_duration_since(Instant::now())
            .max(Duration::from_secs(1));
        let force = tokio::select! {
            _ = stop.changed() => return,
            _ = tokio::time::sleep(wait) => false,
            _ = app.health.recheck.notified() => true,
        };
        let judge = app.judge.clone();
        let Ok(found) = tokio::task::spawn_blocking(move || judge.recheck_languages(force)).await
        else {
            continue;
        };
        let mut claimable = false;
        for r in found {
            match r.result {
                Ok(()) => {
                    app.health.claim_language(&r.language);
                    claimable = true;
                }
                Err(e) if r.changed => app
                    .health
                    .still_skip_language(&r.language, &error_chain(&e)),
                Err(_) => {}
            }
        }
        if claimable {
            app.wake_workers();
        }
    }
}

async fn worker(app: Arc<Node>) {
    let mut stop = app.stopping();
    let mut failing = false;
    loop {
        if *stop.borrow() {
            break;
        }
        if !app.ready_to_claim().await {
            // Paused: a host fault or too little free space; claim nothing until it passes.
            tokio::select! {
                _ = stop.changed() => {}
                _ = tokio::time::sleep(crate::node::HEALTH_RECHECK) => {}
            }
            continue;
        }
        let host = app.host.clone();
        let lease = crate::node::LEASE.as_millis() as i64;
        let skip = app.health.skipped_languages();
        match app
            .db(move |s| s.claim_except(&host, now_ms(), lease, &skip))
            .await
        {
            Ok(Some(claim)) => {
                if claim.expired_lease {
                    let why = if claim.holder_alive {
                        "its judging ended while that host lived on, counted against the \
                         submission"
                    } else {
                        "that host's heartbeat stopped too: the host's death, not the \
                         submission's fault"
                    };
                    log(&format!(
                        "submission {}: taken over from a host whose lease ran out ({why})",
                        claim.id
                    ));
                    app.metrics
                        .leases_taken_over
                        .fetch_add(1, Ordering::Relaxed);
                }
                failing = false;
                if claim.is_poison() {
                    set_aside(&app, claim).await;
                    continue;
                }
                let (id, attempt, judging) = (claim.id, claim.attempt, claim.judging);
                let je = judge_error_report(&claim);
                // A bug that panics while judging must not take the worker with it (the node
                // would judge with one worker fewer, silently): the submission gets a judge
                // error naming the panic, and the worker takes the next one.
                if let Err(panic) = unwound(judge_claim(&app, claim)).await {
                    app.metrics.judge_errors.fetch_add(1, Ordering::Relaxed);
                    let cause = format!("the worker panicked while judging: {panic}");
                    log(&format!("submission {id}: {cause}"));
                    store_verdict(&app, id, attempt, je, cause).await;
                    app.hub.end(id, judging, Live::Done { id });
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

/// The judge error's message of a submission this host could not judge within its budget: the
/// host's failure, named as such.
fn host_gave_up(cause: &str) -> String {
    format!(
        "this judge host could not judge it: {cause} (it failed on it again and again for {} s \
         while its checks passed)",
        crate::node::HOST_FAULT_BUDGET.as_secs()
    )
}

/// A poison pill: a submission whose judging ended its judge again and again (see
/// [`Claim::is_poison`]) is not judged once more, which would crash a host in a loop: it is
/// stored as a judge error naming why, for an admin to see, and is never claimed again (a
/// rejudge by an admin tries it afresh).
async fn set_aside(app: &Arc<Node>, claim: Claim) {
    let (id, attempt, judging) = (claim.id, claim.attempt, claim.judging);
    app.metrics.judge_errors.fetch_add(1, Ordering::Relaxed);
    let cause = poison_cause(claim.crashes, claim.host_deaths);
    log(&format!(
        "submission {id}: set aside as a judge error: {cause}"
    ));
    let je = judge_error_report(&claim);
    store_verdict(app, id, attempt, je, cause).await;
    app.hub.end(id, judging, Live::Done { id });
}

/// The judge error's message of a poison pill whose judgings ended `crashes` times under a
/// live host and `deaths` times with their host.
fn poison_cause(crashes: u32, deaths: u32) -> String {
    let how = if crashes >= ojd_store::POISON_CRASHES {
        format!(
            "its judging ended {crashes} times while its judge host lived on (the host's \
             heartbeat went on, the judging stopped and its lease ran out)"
        )
    } else {
        format!(
            "its judging ended with its judge host {deaths} times (each host that judged it \
             died, was killed or stopped, or restarted and found it half-judged)"
        )
    };
    format!("{how}: set aside as a poison pill, not judged again until an admin rejudges it")
}

/// A panic that ended a judging, by its message.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
struct Panicked {
    /// The panic's message, or "a panic without a message" when its payload is not text.
    message: String,
}

/// Runs `work` to its end, or returns the panic that ended it.
async fn unwound(work: impl std::future::Future<Output = ()>) -> Result<(), Panicked> {
    use futures_util::FutureExt;
    std::panic::AssertUnwindSafe(work)
        .catch_unwind()
        .await
        .map_err(|p| Panicked {
            message: p
                .downcast_ref::<&str>()
                .map(|s| s.to_string())
                .or_else(|| p.downcast_ref::<String>().cloned())
                .unwrap_or_else(|| "a panic without a message".to_string()),
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

/// Waits for the workers to finish their judgings (`shutdown_grace`), then cancels the rest
/// (requeued); stops the heartbeat last, so leases hold while judgings finish.
pub async fn drain(app: &Arc<Node>, workers: &mut Workers) {
    let grace = app.config.server.shutdown_grace;
    let drained = tokio::time::timeout(grace, workers.join()).await.is_ok();
    if !drained {
        let n = app.hub.cancel_all();
        log(&format!(
            "{n} judging(s) still running after {grace:?}: cancelling and requeueing them"
        ));
        // Cancellation is seen between tests; a test runs for at most its wall limit.
        if tokio::time::timeout(Duration::from_secs(5), workers.join())
            .await
            .is_err()
        {
            // An orderly stop is no host's death: what did not stop goes back to the queue
            // now (its thread's verdict, should it come, is stale), not counted against it.
            let host = app.host.clone();
            match app.db(move |s| s.requeue_at_stop(&host)).await {
                Ok(n) => log(&format!(
                    "{n} judging(s) did not stop when cancelled: back in the queue"
                )),
                Err(e) => log(&format!(
                    "some judgings did not stop and cannot be requeued ({e}); they will be judged again at the next start"
                )),
            }
        }
    }
    app.stop_heartbeat();
    if app.shared {
        // Its identity may start again at once (a crash waits for the lease instead).
        let id = app.host.clone();
        if let Err(e) = app.db(move |s| s.host_stopped(&id)).await {
            log(&format!("cannot record this host's stop: {e}"));
        }
    }
}

/// Judges one claimed submission and stores its verdict (or requeues it when cancelled).
async fn judge_claim(app: &Arc<Node>, claim: Claim) {
    let started = Instant::now();
    let (id, attempt, judging) = (claim.id, claim.attempt, claim.judging);
    let cancel = app.hub.begin(id, judging);
    // Whatever way this judging ends (a panic included), it leaves the live table, and so the
    // heartbeat stops renewing its lease: a claim nobody judges is taken over, never stuck.
    let _running = Running::guard(&app.hub, id, judging);
    let problem = match &app.packages {
        // A judge host: the package version the claim names, fetched once and cached.
        Some(cache) => {
            let (cache, store) = (cache.clone(), app.store.clone());
            let (name, version) = (claim.problem.clone(), claim.package_version.clone());
            tokio::task::spawn_blocking(move || {
                cache.problem(store.as_ref(), &name, version.as_deref())
            })
            .await
            .map_err(|e| (format!("the package task failed: {e}"), None))
            .and_then(|r| r.map_err(|e| (error_chain(&e), e.host_fault())))
        }
        None => app
            .catalog()
            .get(&claim.problem)
            .map(|e| e.problem.clone())
            .ok_or_else(|| {
                let why = format!("problem {:?} is not loaded on this judge", claim.problem);
                (why, None)
            }),
    };
    let outcome = match problem {
        // The package could not be written to this host's disk: the host's failure, never the
        // submission's (it goes to a healthy host, this one pauses).
        Err((cause, Some((kind, errno)))) => {
            if app.host_fault_because(id, cause.clone(), kind, errno) {
                requeue_for_host(app, id, attempt, judging, &cause).await;
                return;
            }
            Err(host_gave_up(&cause))
        }
        Err((e, None)) => Err(e),
        Ok(problem) => {
            let judge = app.judge.clone();
            let hub_app = app.clone();
            let sub = Submission {
                language: claim.language.clone(),
                source: claim.source.clone(),
            };
            let (hang, bound) = match injected_hang() {
                Some(bound) => (true, bound),
                None => (
                    false,
                    app.judge.longest_step(&problem, &claim.language) + WATCHDOG_SLACK,
                ),
            };
            let stop = cancel.clone();
            let steps = Arc::new(AtomicU64::new(0));
            let stepped = steps.clone();
            let mut task = tokio::task::spawn_blocking(move || {
                if hang {
                    hang_for_ever();
                }
                judge.judge(
                    &problem,
                    &sub,
                    &mut |event| {
                        stepped.fetch_add(1, Ordering::Relaxed);
                        hub_app.hub.progress(id, judging, event)
                    },
                    &stop,
                )
            });
            let Some(joined) = watched(&mut task, bound, &steps).await else {
                // The watchdog: stuck, not slow. Its thread is left to itself (should it ever
                // wake, it is cancelled and its result dropped), counted until it returns
                // (`Node::abandoned`); the submission goes back to the queue as after any host
                // fault, and its lease goes with it.
                cancel.store(true, Ordering::Relaxed);
                app.abandoned(task);
                let cause = format!(
                    "its judging made no progress for {} s, past what its limits allow: \
                     abandoned by the watchdog (the host's fault)",
                    bound.as_secs()
                );
                log(&format!("submission {id}: {cause}"));
                if app.host_fault_because(id, cause.clone(), "stuck_judging", None) {
                    requeue_for_host(app, id, attempt, judging, &cause).await;
                    return;
                }
                let message = host_gave_up(&cause);
                app.metrics.judge_errors.fetch_add(1, Ordering::Relaxed);
                store_ending(app, &claim, started, judge_error_report(&claim), message).await;
                return;
            };
            match joined {
                Ok(Ok(report)) => Ok(report),
                Ok(Err(JudgeError::Cancelled)) => {
                    match app.db(move |s| s.requeue(id, attempt)).await {
                        Ok(true) => {
                            app.metrics.requeued.fetch_add(1, Ordering::Relaxed);
                            log(&format!(
                                "submission {id}: judging cancelled, back in the queue"
                            ));
                        }
                        // Shutdown, or a newer claim of this host superseded it (it took over
                        // its own expired claim): the newer judging goes on.
                        Ok(false) => log(&format!(
                            "submission {id}: judging {judging} cancelled, its claim is no longer current"
                        )),
                        Err(e) => log(&format!("submission {id}: cannot requeue it: {e}")),
                    }
                    app.hub.end(id, judging, Live::Requeued { id });
                    return;
                }
                Ok(Err(
                    e @ (JudgeError::LanguageUnavailable { .. }
                    | JudgeError::UnknownLanguage { .. }),
                )) => {
                    // This host cannot judge the language (its toolchain missing, or its probe
                    // failed or timed out): never the submission's fault, never a verdict. It
                    // goes back to the queue, not counted against it, and this host claims that
                    // language no more until a later probe finds it (`recheck_toolchains`; a
                    // language this host has no profile for, never).
                    let why = error_chain(&e);
                    app.health.skip_language(&claim.language, &why);
                    requeue_for_host(app, id, attempt, judging, &why).await;
                    return;
                }
                Ok(Err(e)) if e.is_host_fault() => {
                    let cause = error_chain(&e);
                    if app.host_fault(id, &e) {
                        requeue_for_host(app, id, attempt, judging, &cause).await;
                        return;
                    }
                    Err(host_gave_up(&cause))
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
    store_ending(app, &claim, started, report, message).await;
}

/// Stores a judging's end (its report, or a judge error with `message`) under its claim, logs
/// it and tells the hub.
async fn store_ending(
    app: &Arc<Node>,
    claim: &Claim,
    started: Instant,
    report: JudgeReport,
    message: String,
) {
    let (id, attempt, judging) = (claim.id, claim.attempt, claim.judging);
    let verdict = report.verdict;
    // The judge error's cause goes into the store with the verdict and into the log line.
    let cause = message.clone();
    match store_verdict(app, id, attempt, report, message).await {
        Some(true) => {
            app.judged(id);
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
            app.hub.end(id, judging, Live::Done { id });
        }
        Some(false) => {
            // Rejudged (or requeued, or taken over after a lost lease) while this judging ran:
            // the newer claim stores its own.
            app.metrics.stale_verdicts.fetch_add(1, Ordering::Relaxed);
            log(&format!(
                "submission {id}: verdict not stored, the claim is no longer current{}",
                judge_error_suffix(&cause)
            ));
            app.hub.end(id, judging, Live::Requeued { id });
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
            app.hub.end(id, judging, Live::Requeued { id });
        }
    }
}

/// What a step of a judging gets past the longest its limits allow on a loaded host
/// ([`Judge::longest_step`]) before the watchdog abandons it.
///
/// [`Judge::longest_step`]: ojd_judge::Judge::longest_step
const WATCHDOG_SLACK: Duration = Duration::from_secs(120);

/// The watchdog: waits for `task`, as long as it makes progress (`steps`, counted by the task,
/// moves) at least once every `bound`; `None` once it made none for a whole `bound` (stuck, not
/// slow: a loaded host judges a long problem slower, each step within its bound, however many
/// steps there are).
async fn watched<T>(
    task: &mut JoinHandle<T>,
    bound: Duration,
    steps: &AtomicU64,
) -> Option<Result<T, tokio::task::JoinError>> {
    let mut seen = steps.load(Ordering::Relaxed);
    loop {
        match tokio::time::timeout(bound, &mut *task).await {
            Ok(joined) => return Some(joined),
            Err(_) => {
                let now = steps.load(Ordering::Relaxed);
                if now == seen {
                    return None;
                }
                seen = now;
            }
        }
    }
}

/// Fault injection for the tests, never set by an operator: with `OJD_FAULT_HANG_JUDGING=S`
/// (or `S,N`) in its environment, this process's first judging (first `N` judgings) hangs for
/// ever, and the watchdog's bound is `S` seconds. `None` otherwise (and for every later
/// judging).
fn injected_hang() -> Option<Duration> {
    static HUNG: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let value = std::env::var("OJD_FAULT_HANG_JUDGING").ok()?;
    let (secs, count) = value.split_once(',').unwrap_or((&value, "1"));
    let (secs, count): (u64, u32) = (secs.parse().ok()?, count.parse().ok()?);
    (HUNG.fetch_add(1, Ordering::Relaxed) < count).then(|| Duration::from_secs(secs))
}

/// The injected hang: a judge thread stuck for good, deaf to cancellation.
fn hang_for_ever() -> ! {
    loop {
        std::thread::park();
    }
}

/// Gives a submission back to the queue after a fault of this host, for a healthy host.
async fn requeue_for_host(app: &Arc<Node>, id: i64, attempt: u32, judging: i64, cause: &str) {
    app.metrics.requeued.fetch_add(1, Ordering::Relaxed);
    let requeued = app.db(move |s| s.requeue(id, attempt)).await;
    if let Err(e) = requeued {
        log(&format!("submission {id}: cannot requeue it: {e}"));
    }
    log(&format!(
        "submission {id}: host fault, back in the queue for a healthy host: {cause}"
    ));
    app.hub.end(id, judging, Live::Requeued { id });
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

    #[test]
    fn a_poison_pills_message_says_why_and_what_an_admin_may_do() {
        let m = poison_cause(2, 1);
        assert!(
            m.contains("ended 2 times while its judge host lived on"),
            "{m}"
        );
        assert!(m.contains("until an admin rejudges it"), "{m}");
        let m = poison_cause(0, 3);
        assert!(m.contains("ended with its judge host 3 times"), "{m}");
        assert!(m.contains("poison pill"), "{m}");
    }

    /// A judging that keeps making progress is waited for past the bound as long as it
    /// does; one that stops is abandoned a bound or two after its last step. (Steps ten
    /// times as frequent as the bound: a margin for a loaded machine's late timers.)
    #[tokio::test]
    async fn the_watchdog_waits_for_progress_and_abandons_a_judging_without_it() {
        let bound = Duration::from_secs(1);
        let steps = Arc::new(AtomicU64::new(0));
        let counted = steps.clone();
        // Fifteen steps of 100 ms: half again the bound in all.
        let mut slow = tokio::spawn(async move {
            for _ in 0..15 {
                tokio::time::sleep(Duration::from_millis(100)).await;
                counted.fetch_add(1, Ordering::Relaxed);
            }
            7
        });
        let start = Instant::now();
        let got = watched(&mut slow, bound, &steps).await;
        assert_eq!(got.map(|j| j.expect("joined")), Some(7));
        assert!(start.elapsed() > bound);
        // One step, then nothing: abandoned.
        let steps = Arc::new(AtomicU64::new(0));
        let counted = steps.clone();
        let mut stuck = tokio::spawn(async move {
            counted.fetch_add(1, Ordering::Relaxed);
            std::future::pending::<()>().await;
        });
        let start = Instant::now();
        assert!(watched(&mut stuck, bound, &steps).await.is_none());
        assert!(start.elapsed() >= bound);
        stuck.abort();
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
        assert_eq!(
            got.map_err(|p| p.to_string()),
            Err("index out of bounds: 7".to_string())
        );
        assert_eq!(
            unwound(async { std::panic::panic_any(5u8) })
                .await
                .map_err(|p| p.to_string()),
            Err("a panic without a message".to_string())
        );
    }
}
