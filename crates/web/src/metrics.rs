//! What an operator watches: `/healthz` (liveness, JSON), `/metrics` (Prometheus text
//! format) and `/api/v1/admin/hosts` (the judge hosts). Queue and verdict counts come from the
//! store, so they survive restarts; the `_process_` counters count this run only.

use std::fmt::Write;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use axum::extract::State;
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};

use crate::auth::extract::Admin;
use crate::error::AppError;
use crate::App;
use ojd_judge::Verdict;

/// The per-host series of `/metrics`: (stats key, metric name, kind, help).
const HOST_SERIES: &[(&str, &str, &str, &str)] = &[
    (
        "judged",
        "ojd_host_judged_total",
        "counter",
        "Verdicts a host stored (its current run).",
    ),
    (
        "judge_errors",
        "ojd_host_judge_errors_total",
        "counter",
        "Judge errors on a host (its current run).",
    ),
    (
        "leases_taken_over",
        "ojd_host_leases_taken_over_total",
        "counter",
        "Submissions a host took over from a host whose lease ran out.",
    ),
    (
        "requeued",
        "ojd_host_requeued_total",
        "counter",
        "Judgings a host gave back to the queue.",
    ),
    (
        "stale_verdicts",
        "ojd_host_stale_verdicts_total",
        "counter",
        "Verdicts a host could not store because its claim was no longer current.",
    ),
    (
        "store_retries",
        "ojd_host_store_retries_total",
        "counter",
        "Failed attempts of a host to store a verdict, retried.",
    ),
    (
        "workers",
        "ojd_host_workers",
        "gauge",
        "Judging workers on a host.",
    ),
    (
        "host_faults",
        "ojd_host_faults_total",
        "counter",
        "Judgings a host abandoned for its own failure (disk, I/O, sandbox), requeued.",
    ),
    (
        "paused",
        "ojd_host_paused",
        "gauge",
        "1 while a host claims nothing for a host fault or too little free space.",
    ),
    (
        "drained",
        "ojd_host_drained",
        "gauge",
        "1 while an admin has drained a host.",
    ),
    (
        "scratch_free_bytes",
        "ojd_host_scratch_free_bytes",
        "gauge",
        "Free space of a judge host's scratch folder at its last check.",
    ),
    (
        "cache_free_bytes",
        "ojd_host_cache_free_bytes",
        "gauge",
        "Free space of a judge host's cache folder at its last check.",
    ),
    (
        "package_cache_bytes",
        "ojd_host_package_cache_bytes",
        "gauge",
        "Bytes a judge host's package cache holds.",
    ),
    ("cpus", "ojd_host_cpus", "gauge", "CPUs a host may use."),
    (
        "blobs_fetched",
        "ojd_host_blobs_fetched_total",
        "counter",
        "Package blobs a judge host fetched from the database and verified.",
    ),
    (
        "blobs_fetched_bytes",
        "ojd_host_blobs_fetched_bytes_total",
        "counter",
        "Bytes of package blobs a judge host fetched.",
    ),
    (
        "blobs_cached",
        "ojd_host_blobs_cached_total",
        "counter",
        "Package blobs a judge host found in its disk cache.",
    ),
    (
        "packages_loaded",
        "ojd_host_packages_loaded",
        "gauge",
        "Package versions a judge host has loaded.",
    ),
];

/// The operator's routes: `/healthz`, `/metrics` and `/api/v1/admin/hosts`.
pub(crate) fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/healthz", get(healthz))
        .route("/metrics", get(prometheus))
        .route("/api/v1/admin/hosts", get(hosts))
        .route("/api/v1/admin/hosts/drain", post(drain_host))
        .route("/api/v1/admin/hosts/resume", post(resume_host))
        .route("/api/v1/admin/gc", post(collect))
}

/// `POST /api/v1/admin/gc`: collects now what nothing has used for `[server] retention`
/// (`{"retention": "1h"}` for another age; see config.toml); answers what went.
async fn collect(
    State(app): State<Arc<App>>,
    _admin: Admin,
    body: Option<Json<serde_json::Value>>,
) -> Result<impl IntoResponse, AppError> {
    let keep = match body.as_ref().and_then(|b| b.get("retention")) {
        None => app.node.config().server.retention,
        Some(v) => v
            .as_str()
            .ok_or_else(|| "retention: expected a duration like \"30d\"".to_string())
            .and_then(ojd_judge::parse_duration)
            .map_err(|e| AppError::BadRequest(format!("retention: {e}")))?,
    };
    let done = app.node.collect_now(keep).await?;
    crate::log(&format!(
        "collected {} unused package version(s), {} blob(s), {} gone host(s) (asked by an admin)",
        done.packages, done.blobs, done.hosts
    ));
    Ok(Json(done))
}

/// The body of a drain or resume request.
#[derive(serde::Deserialize)]
pub(crate) struct DrainRequest {
    /// The host's identity (`name` in the hosts list).
    host: String,
    /// Why (drain only): shown on the hosts page and in the host's log.
    #[serde(default)]
    reason: Option<String>,
}

/// Asks `host` to drain (`Some(reason)`) or resume (`None`); a 404 names an unknown host.
pub(crate) async fn set_drain(
    app: &Arc<App>,
    host: String,
    reason: Option<String>,
) -> Result<(), AppError> {
    let found = app.node.set_drain(&host, reason.as_deref()).await?;
    if !found {
        return Err(AppError::NotFound(format!("no judge host {host:?}")));
    }
    crate::log(&format!(
        "host {host}: {}",
        match &reason {
            Some(r) => format!("drain requested ({r})"),
            None => "resume requested".to_string(),
        }
    ));
    Ok(())
}

/// `POST /api/v1/admin/hosts/drain` `{"host": "…", "reason": "…"}`: the host finishes what it
/// judges and claims nothing new (from its next heartbeat, within 2 s) until resumed.
async fn drain_host(
    State(app): State<Arc<App>>,
    _admin: Admin,
    Json(req): Json<DrainRequest>,
) -> Result<impl IntoResponse, AppError> {
    let reason = req
        .reason
        .filter(|r| !r.trim().is_empty())
        .unwrap_or_else(|| "drained by an admin".to_string());
    set_drain(&app, req.host.clone(), Some(reason.clone())).await?;
    Ok(Json(
        serde_json::json!({ "host": req.host, "drain": reason }),
    ))
}

/// `POST /api/v1/admin/hosts/resume` `{"host": "…"}`: the host claims again.
async fn resume_host(
    State(app): State<Arc<App>>,
    _admin: Admin,
    Json(req): Json<DrainRequest>,
) -> Result<impl IntoResponse, AppError> {
    set_drain(&app, req.host.clone(), None).await?;
    Ok(Json(serde_json::json!({ "host": req.host, "drain": null })))
}

/// How long `/healthz` waits for the database before it answers 503.
pub(crate) const HEALTH_PATIENCE: std::time::Duration = std::time::Duration::from_millis(700);

/// `GET /healthz`: 200 `ok` while the node serves and its database answers; 503 `degraded`
/// (with the database's error) while the database does not answer: the node keeps serving
/// what it can and reconnects by itself.
async fn healthz(State(app): State<Arc<App>>) -> impl IntoResponse {
    let node = serde_json::json!({
        "version": env!("CARGO_PKG_VERSION"),
        "host": app.node.host(),
        "role": app.node.role().as_str(),
        "problems": app.node.catalog().ready_count(),
    });
    let checked_node = app.node.clone();
    let check = tokio::task::spawn_blocking(move || checked_node.check_database());
    // Whatever the database does (refuses, hangs, is cut off), the answer comes within a
    // second: a health check that hangs is no health check.
    let checked = match tokio::time::timeout(HEALTH_PATIENCE, check).await {
        Err(_) => Err(format!(
            "the database did not answer within {} ms",
            HEALTH_PATIENCE.as_millis()
        )),
        Ok(joined) => joined
            .map_err(|e| e.to_string())
            .and_then(|r| r.map_err(|e| ojd_service::logging::error_chain(&e))),
    };
    let mut body = node;
    let status = match checked {
        Ok((queued, judging)) => {
            body["status"] = (if app.node.is_stopping() {
                "stopping"
            } else {
                "ok"
            })
            .into();
            body["queued"] = queued.into();
            body["judging"] = judging.into();
            StatusCode::OK
        }
        Err(e) => {
            body["status"] = "degraded".into();
            body["database"] = e.into();
            StatusCode::SERVICE_UNAVAILABLE
        }
    };
    (status, Json(body))
}

/// `GET /api/v1/admin/hosts`: every node that has sent a heartbeat (name, role, last
/// heartbeat, what it judges now), and whether it is alive (a heartbeat within the lease).
async fn hosts(State(app): State<Arc<App>>, _admin: Admin) -> Result<impl IntoResponse, AppError> {
    let hosts = app.node.hosts().await?;
    let lease = ojd_service::LEASE.as_millis() as i64;
    let list: Vec<serde_json::Value> = hosts
        .into_iter()
        .map(|h| {
            let alive = h.seen_ago_ms <= lease;
            let mut v = serde_json::to_value(&h).unwrap_or_default();
            v["alive"] = alive.into();
            v
        })
        .collect();
    Ok(Json(serde_json::json!({ "hosts": list })))
}

/// `GET /metrics`: Prometheus text exposition format.
async fn prometheus(State(app): State<Arc<App>>) -> Result<impl IntoResponse, AppError> {
    let ojd_service::Census {
        counts,
        hosts,
        expired_leases: expired,
    } = app.node.census().await?;
    let lease = ojd_service::LEASE.as_millis() as i64;
    let catalog = app.node.catalog();
    let c = &app.node.metrics();
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
        &one(app.node.judging_workers() as u64),
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
        "ojd_process_leases_taken_over_total",
        "counter",
        "Submissions this process claimed from a host whose lease ran out (this process).",
        &one(load(&c.leases_taken_over)),
    );
    metric(
        "ojd_process_requeued_total",
        "counter",
        "Judgings this process gave back to the queue (this process).",
        &one(load(&c.requeued)),
    );
    metric(
        "ojd_process_stale_verdicts_total",
        "counter",
        "Verdicts refused because their claim was no longer current (this process).",
        &one(load(&c.stale_verdicts)),
    );
    metric(
        "ojd_process_store_retries_total",
        "counter",
        "Failed attempts to store a verdict, retried (this process).",
        &one(load(&c.store_retries)),
    );
    let alive = hosts.iter().filter(|h| h.seen_ago_ms <= lease).count() as u64;
    metric(
        "ojd_hosts_alive",
        "gauge",
        "Nodes with a heartbeat within the lease (all nodes on this database).",
        &one(alive),
    );
    metric(
        "ojd_hosts_judging",
        "gauge",
        "Submissions held by a live claim, over all hosts.",
        &one(hosts.iter().map(|h| h.judging.len() as u64).sum()),
    );
    metric(
        "ojd_leases_expired",
        "gauge",
        "Submissions whose host's lease ran out and that wait for another host.",
        &one(expired),
    );
    // Every live host's own counters, as its last heartbeat sent them.
    for (key, name, kind, help) in HOST_SERIES {
        let samples: Vec<(String, u64)> = hosts
            .iter()
            .filter(|h| h.seen_ago_ms <= lease)
            .filter_map(|h| {
                let v = h.stats.get(*key)?;
                let escape = |t: &str| {
                    t.replace('\\', "\\\\")
                        .replace('"', "\\\"")
                        .replace('\n', "\\n")
                };
                // The name it was given, its role, and its process identity (several processes
                // may share a name; each is a series of its own).
                let label = if h.label.is_empty() {
                    &h.name
                } else {
                    &h.label
                };
                Some((
                    format!(
                        "{{host=\"{}\",role=\"{}\",id=\"{}\"}}",
                        escape(label),
                        h.role,
                        escape(&h.name)
                    ),
                    *v,
                ))
            })
            .collect();
        if !samples.is_empty() {
            metric(name, kind, help, &samples);
        }
    }
    if let Some(cache) = app.node.packages() {
        metric(
            "ojd_process_blobs_fetched_total",
            "counter",
            "Package blobs fetched from the database and verified (this process).",
            &one(load(&cache.fetched)),
        );
        metric(
            "ojd_process_blobs_fetched_bytes_total",
            "counter",
            "Bytes of package blobs fetched from the database (this process).",
            &one(load(&cache.fetched_bytes)),
        );
        metric(
            "ojd_process_blobs_cached_total",
            "counter",
            "Package blobs found in the disk cache instead of fetched (this process).",
            &one(load(&cache.reused)),
        );
        metric(
            "ojd_process_packages_loaded",
            "gauge",
            "Package versions this process has loaded.",
            &one(cache.loaded_count() as u64),
        );
    }
    metric(
        "ojd_uptime_seconds",
        "gauge",
        "Seconds since the daemon started.",
        &one(app.node.uptime().as_secs()),
    );
    Ok((
        [(
            header::CONTENT_TYPE,
            "text/plain; version=0.0.4; charset=utf-8",
        )],
        out,
    ))
}
