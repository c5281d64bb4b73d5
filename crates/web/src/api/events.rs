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
//! before it announces it, so a `done` is never missed. Every event passes the service's one
//! visibility policy, as the JSON API and the pages do (see [`ojd_service::Sight`]): `done` is
//! the list's row as this viewer sees it (the jury's verdict, the judging host for admins
//! only), and the tests follow the contest's feedback policy: under `verdict` no `started` or
//! `test` event and no test in `state`; under `first_failure` none after the first failing
//! test. The stream also ends when the daemon shuts down (EventSource then
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
use crate::view::{policy, seen, summary};
use crate::App;
use ojd_judge::Verdict;
use ojd_service::SubmissionState as SubState;
use ojd_service::{Live, Sight};

type Tx = mpsc::Sender<Result<Event, Infallible>>;

/// How long a stream on a shared database waits without an event before it looks at the store.
pub const RECHECK: Duration = Duration::from_secs(5);

/// Whether the submission is done in the store; then sends `done` (and the stream ends).
async fn done_in_store(app: &Arc<App>, id: i64, user: &User, tx: &Tx) -> bool {
    let loaded = app.contests.get();
    match app
        .node
        .seen_row(id, user.as_viewer(), policy(app, &loaded.contests))
        .await
    {
        Ok(Some(row)) if row.info.state == SubState::Done => {
            let _ = tx.send(event("done", &summary(row))).await;
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
    let rx = app.node.hub().subscribe();
    // Checks that the viewer may see it (another user's is a 404), and what of it.
    let sight = seen(&app, id, &user).await?.sight;
    let (tx, out) = mpsc::channel(64);
    tokio::spawn(forward(app, id, Viewing { user, sight }, rx, tx));
    Ok(Sse::new(ReceiverStream::new(out))
        .keep_alive(KeepAlive::new().interval(Duration::from_secs(15))))
}

fn event(name: &str, data: &impl serde::Serialize) -> Result<Event, Infallible> {
    Ok(Event::default()
        .event(name)
        .data(serde_json::to_string(data).unwrap_or_else(|_| "{}".into())))
}

/// Who watches the stream, and what the policy lets them see of this submission.
struct Viewing {
    user: User,
    sight: Sight,
}

/// Sends the current state; returns false when the submission is done (and `done` was sent).
/// `failed` becomes whether a shown test failed.
async fn send_state(app: &Arc<App>, id: i64, v: &Viewing, failed: &mut bool, tx: &Tx) -> bool {
    let row = {
        let loaded = app.contests.get();
        app.node
            .seen_row(id, v.user.as_viewer(), policy(app, &loaded.contests))
            .await
    };
    let info = match row {
        Ok(Some(row)) if row.info.state == SubState::Done => {
            let _ = tx.send(event("done", &summary(row))).await;
            return false;
        }
        Ok(Some(row)) => row.info,
        _ => return false,
    };
    let progress = app.node.hub().snapshot(id).unwrap_or_default();
    let tests = v.sight.tests(&progress.tests);
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
    v: Viewing,
    mut rx: broadcast::Receiver<Arc<Live>>,
    tx: Tx,
) {
    let mut stop = app.node.stopping();
    let mut failed = false;
    if !send_state(&app, id, &v, &mut failed, &tx).await {
        return;
    }
    loop {
        let quiet = async {
            if app.node.shared() {
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
            if done_in_store(&app, id, &v.user, &tx).await {
                return;
            }
            continue;
        };
        let live = match received {
            Ok(live) if live.id() == id => live,
            Ok(_) => continue,
            Err(broadcast::error::RecvError::Lagged(_)) => {
                // Too far behind: start again from the stored and in-flight state.
                if !send_state(&app, id, &v, &mut failed, &tx).await {
                    return;
                }
                continue;
            }
            Err(broadcast::error::RecvError::Closed) => return,
        };
        let sent = match &*live {
            Live::Started { .. } => tx.send(event("state", &serde_json::json!({ "state": "judging", "compiled": null, "running": null, "tests": [] }))).await,
            Live::Compiled { ok, .. } => tx.send(event("compiled", &serde_json::json!({ "ok": ok }))).await,
            Live::TestStarted { .. } if !v.sight.shows_test(failed) => continue,
            Live::TestStarted { index, name, .. } => tx.send(event("started", &serde_json::json!({ "index": index, "name": name }))).await,
            Live::TestFinished { .. } if !v.sight.shows_test(failed) => continue,
            Live::TestFinished { index, result, .. } => {
                failed |= result.verdict != Verdict::Accepted;
                tx.send(event("test", &serde_json::json!({ "index": index, "result": v.sight.test(result) }))).await
            }
            Live::Requeued { .. } => tx.send(event("queued", &serde_json::json!({}))).await,
            Live::Done { .. } => {
                send_state(&app, id, &v, &mut failed, &tx).await;
                return;
            }
        };
        if sent.is_err() {
            return;
        }
    }
}
