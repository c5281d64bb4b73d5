//! What an operator watches: `/healthz` (liveness, JSON) and `/metrics` (Prometheus text
//! format). Queue and verdict counts come from the store, so they survive restarts; the
//! `_process_` counters count this run only.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use axum::extract::State;
use axum::http::header;
use axum::response::IntoResponse;
use axum::Json;

use super::error::AppError;
use super::App;
use crate::verdict::Verdict;

/// Counters of this process.
#[derive(Default)]
pub struct Counters {
    pub judged: AtomicU64,
    pub judge_errors: AtomicU64,
    pub judge_ms_total: AtomicU64,
    pub submitted: AtomicU64,
    pub rejected: AtomicU64,
}

impl Counters {
    pub fn record(&self, _verdict: Verdict, took: Duration) {
        self.judged.fetch_add(1, Ordering::Relaxed);
        self.judge_ms_total
            .fetch_add(took.as_millis() as u64, Ordering::Relaxed);
    }
}

/// `GET /healthz`: 200 while the daemon serves and its database answers.
pub async fn healthz(State(app): State<Arc<App>>) -> Result<impl IntoResponse, AppError> {
    let counts = app.db(|s| s.counts()).await?;
    Ok(Json(serde_json::json!({
        "status": if app.is_stopping() { "stopping" } else { "ok" },
        "version": env!("CARGO_PKG_VERSION"),
        "problems": app.catalog().ready_count(),
        "queued": counts.queued,
        "judging": counts.judging,
    })))
}

/// `GET /metrics`: Prometheus text exposition format.
pub async fn prometheus(State(app): State<Arc<App>>) -> Result<impl IntoResponse, AppError> {
    let counts = app.db(|s| s.counts()).await?;
    let catalog = app.catalog();
    let c = &app.metrics;
    let mut out = String::new();
    let mut metric = |name: &str, kind: &str, help: &str, samples: &[(String, u64)]| {
        let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
        for (labels, value) in samples {
            let _ = writeln!(out, "{name}{labels} {value}");
        }
    };
    let one = |v: u64| vec![(String::new(), v)];
    metric(
        "ojd_queue_length",
        "gauge",
        "Submissions waiting to be judged.",
        &one(counts.queued),
    );
    metric(
        "ojd_judging",
        "gauge",
        "Submissions being judged now.",
        &one(counts.judging),
    );
    metric(
        "ojd_judged_total",
        "counter",
        "Submissions with a stored verdict.",
        &one(counts.done),
    );
    let by_verdict: Vec<(String, u64)> = Verdict::ALL
        .iter()
        .map(|v| {
            let n = counts
                .by_verdict
                .iter()
                .filter(|(x, _)| x == v)
                .map(|(_, n)| n)
                .sum();
            (format!("{{verdict=\"{}\"}}", v.code()), n)
        })
        .collect();
    metric(
        "ojd_verdicts_total",
        "counter",
        "Stored verdicts by code.",
        &by_verdict,
    );
    metric(
        "ojd_workers",
        "gauge",
        "Judging workers.",
        &one(app.workers as u64),
    );
    metric(
        "ojd_problems",
        "gauge",
        "Problems served.",
        &one(catalog.ready_count() as u64),
    );
    metric(
        "ojd_problems_failed",
        "gauge",
        "Problem folders that failed to load.",
        &one(catalog.failed.len() as u64),
    );
    let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
    metric(
        "ojd_process_judged_total",
        "counter",
        "Verdicts stored by this process.",
        &one(load(&c.judged)),
    );
    metric(
        "ojd_process_judge_errors_total",
        "counter",
        "Judgings that failed with a judge error (this process).",
        &one(load(&c.judge_errors)),
    );
    metric(
        "ojd_process_judge_milliseconds_total",
        "counter",
        "Time spent judging, claim to verdict (this process).",
        &one(load(&c.judge_ms_total)),
    );
    metric(
        "ojd_process_submissions_total",
        "counter",
        "Submissions accepted into the queue (this process).",
        &one(load(&c.submitted)),
    );
    metric(
        "ojd_process_submissions_rejected_total",
        "counter",
        "Submissions refused with a 4xx (this process).",
        &one(load(&c.rejected)),
    );
    metric(
        "ojd_uptime_seconds",
        "gauge",
        "Seconds since the daemon started.",
        &one(app.started.elapsed().as_secs()),
    );
    Ok((
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        out,
    ))
}
