//! The queue page: counts, the judge hosts with their heartbeats, what is being judged (by
//! which worker, how far) and what waits.

use std::sync::Arc;

use axum::extract::State;
use axum::response::{Html, IntoResponse, Redirect};
use axum::Form;
use maud::html;

use super::{err, PageResult};
use crate::auth::extract::MaybeUser;
use crate::html::parts::{badge, time_el};
use crate::html::{need_admin, page};
use crate::App;
use ojd_service::SubmissionState as SubState;

/// The most pending rows the queue page shows.
const PENDING_ROWS: u32 = 2000;

/// `GET /admin/queue`.
pub(crate) async fn queue(State(app): State<Arc<App>>, MaybeUser(user): MaybeUser) -> PageResult {
    let user = need_admin(user)?;
    let ojd_service::QueueState {
        counts,
        pending,
        hosts,
    } = app
        .node
        .queue_state(PENDING_ROWS)
        .await
        .map_err(|e| err(&user)(e.into()))?;
    let lease = ojd_service::LEASE.as_millis() as i64;
    let mut judging = Vec::new();
    for r in pending.rows.iter().filter(|r| r.state == SubState::Judging) {
        let id = r.id;
        let host = app
            .node
            .judging_host(id)
            .await
            .ok()
            .flatten()
            .unwrap_or_default();
        judging.push((r.clone(), host, app.node.hub().snapshot(id)));
    }
    let queued: Vec<_> = pending
        .rows
        .iter()
        .filter(|r| r.state == SubState::Queued)
        .collect();
    let body = html! {
        h1 { "Queue" }
        p.meta #counts {
            span { (counts.queued) " queued" }
            span { (counts.judging) " judging" }
            span { (counts.done) " done" }
            span { (app.node.judging_workers()) " local worker(s) on " (app.node.host()) }
        }
        h2 { "Judge hosts" }
        @if hosts.is_empty() { p.muted { "No host has reported yet." } } @else {
            div.scroll { table.list.admin #hosts {
                thead { tr { th { "Host" } th.opt { "Role" } th.opt { "Version" } th { "State" } th { "Last heartbeat" } th { "Judging" } th.opt { "Free disk" } th.opt { "Cache" } th.opt { "CPUs" } th.opt { "Up since" } th { "" } } }
                tbody { @for h in &hosts {
                    @let alive = h.seen_ago_ms <= lease && h.stopped_at.is_none();
                    @let stat = |k: &str| h.stats.get(k).copied();
                    tr.host {
                        td { @if h.label.is_empty() || h.label == h.name { (h.name) } @else { (h.label) br; span.muted { (h.name) } } }
                        td.opt { (h.role) }
                        td.opt { (h.version) }
                        td.state {
                            @if h.stopped_at.is_some() { span.badge { "stopped" } }
                            @else if !alive { span.badge.v-JE { "silent" } }
                            @else if let Some(why) = &h.drain { span.badge.v-CE { "drained" } " " span.muted { (why) } }
                            @else if stat("paused") == Some(1) {
                                span.badge.v-JE { "paused" } " "
                                span.muted.pause { (h.paused.as_deref().or(h.stats.keys().find_map(|k| k.strip_prefix("paused_"))).unwrap_or("host fault")) }
                            }
                            @else { span.badge.v-AC { "claiming" } }
                            @if !h.not_claiming.is_empty() {
                                br; span.muted.not-claiming { "not claiming " (h.not_claiming.join(", ")) }
                            }
                        }
                        td { (time_el(h.last_seen)) " " span.muted { "(" (h.seen_ago_ms.max(0) / 1000) " s ago)" } }
                        td { @if h.judging.is_empty() { span.muted { "idle" } } @else {
                            @for (i, id) in h.judging.iter().enumerate() {
                                @if i > 0 { ", " } a href={ "/submissions/" (id) } { "#" (id) }
                            }
                        } }
                        td.opt { @if let (Some(s), Some(c)) = (stat("scratch_free_bytes"), stat("cache_free_bytes")) {
                            (s >> 20) " MiB scratch, " (c >> 20) " MiB cache" } }
                        td.opt { @if let Some(b) = stat("package_cache_bytes") { (b >> 20) " MiB" } }
                        td.opt { @if let Some(n) = stat("cpus") { (n) } @if let Some(w) = stat("workers") { " (" (w) " worker(s))" } }
                        td.opt { (time_el(h.started_at)) }
                        td { @if alive && h.role == "worker" {
                            form method="post" action="/admin/hosts/drain" {
                                input type="hidden" name="host" value=(h.name);
                                @if h.drain.is_some() {
                                    input type="hidden" name="action" value="resume";
                                    button.link type="submit" { "resume" }
                                } @else {
                                    input type="hidden" name="action" value="drain";
                                    button.link.danger type="submit" { "drain" }
                                }
                            }
                        } }
                    }
                } }
            } }
        }
        h2 { "Judging" }
        @if judging.is_empty() { p.muted { "Nothing is being judged." } } @else {
            div.scroll { table.list.admin #judging {
                thead { tr { th { "#" } th { "Worker" } th { "User" } th { "Problem" } th { "Progress" } th.opt { "Started" } } }
                tbody { @for (r, host, progress) in &judging {
                    tr {
                        td { a href={ "/submissions/" (r.id) } { (r.id) } }
                        td { (host) }
                        td { (r.user) }
                        td { (r.problem) }
                        td { @match progress {
                            Some(p) => { (p.tests.len()) " test(s) done" @if let Some(i) = p.running { ", running #" (i + 1) } }
                            None => { "on another host" }
                        } }
                        td.opt { @if let Some(t) = r.started_at { (time_el(t)) } }
                    }
                } }
            } }
        }
        h2 { "Queued" }
        @if queued.is_empty() { p.muted { "The queue is empty." } } @else {
            div.scroll { table.list.admin #queued {
                thead { tr { th { "#" } th { "User" } th { "Problem" } th { "State" } th.opt { "Queued" } } }
                tbody { @for r in &queued {
                    tr {
                        td { a href={ "/submissions/" (r.id) } { (r.id) } }
                        td { (r.user) } td { (r.problem) }
                        td { (badge(r.verdict, r.state)) }
                        td.opt { (time_el(r.queued_at)) }
                    }
                } }
            } }
            @if pending.has_more {
                p.muted #more-pending { "The " (PENDING_ROWS) " newest pending submissions are shown; "
                    (counts.queued + counts.judging) " are pending in all." }
            }
        }
        p { a href="/submissions" { "All submissions, with filters →" } }
    };
    Ok(Html(page("Queue", Some(&user), body)).into_response())
}

/// The hosts table's drain and resume buttons.
#[derive(serde::Deserialize)]
pub(crate) struct DrainForm {
    host: String,
    /// `drain` or `resume`.
    action: String,
}

/// `POST /admin/hosts/drain`: drains or resumes a judge host, back to the queue page.
pub(crate) async fn drain_form(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Form(f): Form<DrainForm>,
) -> PageResult {
    let user = need_admin(user)?;
    let reason = match f.action.as_str() {
        "drain" => Some(format!("drained by {}", user.name)),
        "resume" => None,
        other => {
            return Err(err(&user)(crate::error::AppError::BadRequest(format!(
                "action must be drain or resume, not {other:?}"
            ))))
        }
    };
    crate::metrics::set_drain(&app, f.host, reason)
        .await
        .map_err(err(&user))?;
    Ok(Redirect::to("/admin/queue").into_response())
}
