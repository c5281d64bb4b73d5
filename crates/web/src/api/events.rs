//! `GET /api/v1/submissions/{id}/events`: a submission's progress as server-sent events.
//!
//! Events (each `data:` is JSON):
//! - `state`: sent first while not done: `{"state": "queued"|"judging", "compiled": bool|null,
//!   "running": index|null, "tests": [TestResult…]}` (the tests finished so far);
//! - `compiled` `{"ok": bool}`; `started` `{"index", "name"}`; `test` `{"index", "result"}`;
//! - `queued` `{}`: the judging stopped (shutdown, rejudge) and the submission waits again;
//! - `done`: the stored submission summary (verdict, score, times); the stream then ends.
//!
//! The stream subscribes to the hub *before* reading the store, and the worker stores a verdict
//! before it announces it, so a `done` is never missed. Results follow the same visibility
//! policy as the JSON API, and the contest's feedback policy (see [`crate::view::feedback_for`]):
//! under `verdict` no `started` or `test` event and no test in `state`; under `first_failure`
//! none after the first failing test. The stream also ends when the daemon shuts down (EventSource then
//! reconnects to the next daemon by itself).
//!
//! With several nodes (PostgreSQL), events of another host's judging arrive by NOTIFY, which
//! a database restart or a LISTEN reconnection can drop: a quiet stream then looks at the store
//! every [`RECHECK`], so a lost `done` delays the end of the stream, never hangs it.

use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Path, State};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::IntoResponse;
use tokio::sync::{broadcast, mpsc};
use tokio_stream::wrappers::ReceiverStream;

use crate::error::AppError;
use crate::user::User;
use crate::view::{
    apply_feedback, feedback_for, is_done, redact, shows_secrets, summary, visible_submission,
};
use crate::App;
use ojd_judge::{TestResult, Verdict};
use ojd_service::contest::Feedback;
use ojd_service::Live;

type Tx = mpsc::Sender<Result<Event, Infallible>>;

/// How long a stream on a shared database waits without an event before it looks at the store.
pub const RECHECK: Duration = Duration::from_secs(5);

/// Whether the submission is done in the store; then sends `done` (and the stream ends).
async fn done_in_store(app: &Arc<App>, id: i64, tx: &Tx) -> bool {
    match app.db(move |s| s.info(id)).await {
        Ok(Some(info)) if is_done(&info) => {
            let _ = tx.send(event("done", &summary(info))).await;
            true
        }
        _ => false,
    }
}

pub(crate) async fn events(
    State(app): State<Arc<App>>,
    user: User,
    Path(id): Path<i64>,
) -> Result<impl IntoResponse, AppError> {
    let rx = app.hub.subscribe();
    // Checks that the viewer may see it (another user's is a 404).
    let detail = visible_submission(&app, id, &user).await?;
    let show = shows_secrets(&app, &detail.info.problem, &user);
    let contest = app.db(move |s| s.contest_of(id)).await?;
    let policy = feedback_for(&app, contest.as_deref(), &user);
    let (tx, out) = mpsc::channel(64);
    tokio::spawn(forward(app, id, Shown { show, policy }, rx, tx));
    Ok(Sse::new(ReceiverStream::new(out))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

fn event(name: &str, data: &impl serde::Serialize) -> Result<Event, Infallible> {
    Ok(Event::default()
        .event(name)
        .data(serde_json::to_string(data).unwrap_or_else(|_| "{}".into())))
}

/// What the viewer may see of the tests: secrets (see [`shows_secrets`]) and the contest's
/// feedback policy.
#[derive(Copy, Clone)]
struct Shown {
    show: bool,
    policy: Feedback,
}

impl Shown {
    /// Whether a test at this point of the stream is shown, given whether a shown test already
    /// failed.
    fn test(self, failed: bool) -> bool {
        match self.policy {
            Feedback::All => true,
            Feedback::Verdict => false,
            Feedback::FirstFailure => !failed,
        }
    }

    /// A finished test as sent.
    fn result(self, t: &TestResult) -> TestResult {
        let mut r = redact(t, self.show);
        if self.policy != Feedback::All && !r.sample {
            r.diff = None;
        }
        r
    }
}

/// Sends the current state; returns false when the submission is done (and `done` was sent).
/// `failed` becomes whether a shown test failed.
async fn send_state(app: &Arc<App>, id: i64, shown: Shown, failed: &mut bool, tx: &Tx) -> bool {
    let show = shown.show;
    let info = match app.db(move |s| s.info(id)).await {
        Ok(Some(info)) => info,
        _ => return false,
    };
    if is_done(&info) {
        let _ = tx.send(event("done", &summary(info))).await;
        return false;
    }
    let progress = app.hub.snapshot(id).unwrap_or_default();
    let tests = apply_feedback(
        shown.policy,
        progress.tests.iter().map(|t| redact(t, show)).collect(),
    );
    *failed = tests.iter().any(|t| t.verdict != Verdict::Accepted);
    let state = serde_json::json!({
        "state": info.state,
        "compiled": progress.compiled,
        "running": progress.running,
        "tests": tests,
    });
    tx.send(event("state", &state)).await.is_ok()
}

async fn forward(
    app: Arc<App>,
    id: i64,
    shown: Shown,
    mut rx: broadcast::Receiver<Arc<Live>>,
    tx: Tx,
) {
    let mut stop = app.stopping();
    let mut failed = false;
    if !send_state(&app, id, shown, &mut failed, &tx).await {
        return;
    }
    loop {
        let quiet = async {
            if app.shared {
                tokio::time::sleep(RECHECK).await
            } else {
                std::future::pending::<()>().await
            }
        };
        let received = tokio::select! {
            r = rx.recv() => Some(r),
            _ = tx.closed() => return,
            _ = stop.wait_for(|s| *s) => return,
            _ = quiet => None,
        };
        let Some(received) = received else {
            if done_in_store(&app, id, &tx).await {
                return;
            }
            continue;
        };
        let live = match received {
            Ok(live) if live.id() == id => live,
            Ok(_) => continue,
            Err(broadcast::error::RecvError::Lagged(_)) => {
                // Too far behind: start again from the stored and in-flight state.
                if !send_state(&app, id, shown, &mut failed, &tx).await {
                    return;
                }
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let sent = match &*live {
            Live::Started { .. } => tx.send(event("state", &serde_json::json!({ "state": "judging", "compiled": null, "running": null, "tests": [] }))).await,
            Live::Compiled { ok, .. } => tx.send(event("compiled", &serde_json::json!({ "ok": ok }))).await,
            Live::TestStarted { .. } if !shown.test(failed) => continue,
            Live::TestStarted { index, name, .. } => tx.send(event("started", &serde_json::json!({ "index": index, "name": name }))).await,
            Live::TestFinished { .. } if !shown.test(failed) => continue,
            Live::TestFinished { index, result, .. } => {
                failed |= result.verdict != Verdict::Accepted;
                tx.send(event("test", &serde_json::json!({ "index": index, "result": shown.result(result) }))).await
            }
            Live::Requeued { .. } => tx.send(event("queued", &serde_json::json!({}))).await,
            Live::Done { .. } => {
                send_state(&app, id, shown, &mut failed, &tx).await;
                return;
            }
        };
        if sent.is_err() {
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stream_follows_the_feedback_policy() {
        let at = |policy| Shown { show: true, policy };
        // Before and after a shown test failed.
        let seen = |policy| (at(policy).test(false), at(policy).test(true));
        assert_eq!(seen(Feedback::All), (true, true));
        assert_eq!(seen(Feedback::FirstFailure), (true, false));
        assert_eq!(seen(Feedback::Verdict), (false, false));
        let t = TestResult {
            name: "secret".into(),
            sample: false,
            verdict: Verdict::WrongAnswer,
            cpu_ms: 1,
            wall_ms: 1,
            memory_kib: 1,
            exit: None,
            message: "expected 5".into(),
            diff: Some(ojd_judge::Diff {
                line: 1,
                column: 1,
                lines: Vec::new(),
                trimmed: false,
            }),
        };
        // Even where secret diffs are shown, `first_failure` sends a hidden test's without it.
        assert!(at(Feedback::All).result(&t).diff.is_some());
        let r = at(Feedback::FirstFailure).result(&t);
        assert!(r.diff.is_none() && r.message == "expected 5");
    }
}
