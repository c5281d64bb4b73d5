//! Finalizing a contest from the browser: the checklist page (`GET /contests/{id}/finalize`)
//! and the finalize form (`POST`). The contest page's "Finalize the results" posts here; when
//! the contest cannot be finalized yet (standings still frozen) or a check found something
//! not confirmed, the director lands on the checklist page, which says why and offers what
//! to do (unfreeze, tick each warning) instead of an error page.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use maud::html;
use serde::Deserialize;

use crate::auth::extract::AdminPage;
use crate::contests::{self as ct, results};
use crate::html::{error_page, frame};
use crate::text::urlencode;
use crate::App;
use ojd_service::contest::format_time;

type PageResult = Result<Response, Response>;

/// The finalize form: one tick per check (`judge_errors`, `pending`, `unanswered`,
/// `rejudgings`), present when ticked.
#[derive(Deserialize, Default)]
pub(crate) struct FinalizeForm {
    judge_errors: Option<String>,
    pending: Option<String>,
    unanswered: Option<String>,
    rejudgings: Option<String>,
}

impl FinalizeForm {
    fn confirmed(&self) -> Vec<String> {
        [
            ("judge_errors", &self.judge_errors),
            ("pending", &self.pending),
            ("unanswered", &self.unanswered),
            ("rejudgings", &self.rejudgings),
        ]
        .into_iter()
        .filter(|(_, v)| v.is_some())
        .map(|(k, _)| k.to_string())
        .collect()
    }
}

#[derive(Deserialize)]
pub(crate) struct PageQuery {
    /// Set when a finalize was tried and something is still to do.
    asked: Option<String>,
}

/// Where a check's ids link to.
fn link(kind: &str, contest: &str, id: i64) -> String {
    match kind {
        "submission" => format!("/submissions/{id}"),
        "rejudging" => format!("/admin/rejudgings/{id}"),
        _ => format!("/contests/{}#news", urlencode(contest)),
    }
}

/// `GET /contests/{id}/finalize` (admins): the checklist, what stops finalizing, the form.
pub(crate) async fn finalize_page(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
    Query(q): Query<PageQuery>,
) -> PageResult {
    let fail = |e| error_page(e, Some(&admin));
    let c = ct::find(&app, &id).map_err(fail)?;
    let r = results::readiness(&app, &c).await.map_err(fail)?;
    let checks = r.checks.checks();
    let found = checks.iter().filter(|c| !c.ids.is_empty()).count();
    let cid = urlencode(&c.id);
    let body = html! {
        h1 { "Finalize " (c.title) }
        p { a href={ "/contests/" (cid) } { "Back to the contest" } }
        @if let Some(at) = c.finalized_ms {
            p #finalized { "The results were " strong { "finalized" } " at " (format_time(at, c.utc_offset_s)) "." }
        } @else if let Some(why) = &r.blocked {
            p.error #finalize-blocked { "Not yet: " (why) "." }
            @if r.frozen {
                form.inline method="post" action={ "/contests/" (cid) "/unfreeze" }
                    data-confirm="Unfreeze the standings? Everyone will see every result at once." {
                    button.danger #unfreeze type="submit" { "Unfreeze the standings" }
                }
            }
        } @else if q.asked.is_some() && found > 0 {
            p.error #finalize-asked { "Tick each warning below to confirm it, then finalize." }
        }
        h2 { "Before finalizing" }
        ul #checklist {
            @for k in &checks {
                li data-check=(k.key) data-found=(k.ids.len()) {
                    @if k.ids.is_empty() {
                        "✓ no " (k.what)
                    } @else {
                        strong { (k.counted()) } ": "
                        @for (i, sid) in k.ids.iter().enumerate() {
                            @if i > 0 { ", " }
                            a href=(link(k.kind, &c.id, *sid)) { (k.kind) " " (sid) }
                        }
                    }
                }
            }
        }
        @if c.finalized_ms.is_none() && r.blocked.is_none() {
            form #finalize-form method="post" action={ "/contests/" (cid) "/finalize" }
                data-confirm="Finalize the results? The awards are published and the results can no longer change (no clock, freeze, override, ignore)." {
                @for k in checks.iter().filter(|k| !k.ids.is_empty()) {
                    p { label.check {
                        input type="checkbox" name=(k.key) value="1" required id={ "confirm-" (k.key) };
                        " I know of the " (k.counted()) " and finalize anyway"
                    } }
                }
                button.danger #finalize-confirm type="submit" { "Finalize the results" }
            }
        }
    };
    Ok(frame(&format!("Finalize {}", c.title), Some(&admin), body))
}

/// `POST /contests/{id}/finalize` (admins): finalizes when nothing stops it and every warning
/// is confirmed, then shows the final standings; else back to the checklist page, which says
/// what is left.
pub(crate) async fn finalize(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
    Form(f): Form<FinalizeForm>,
) -> PageResult {
    let fail = |e| error_page(e, Some(&admin));
    let c = ct::find(&app, &id).map_err(fail)?;
    let confirmed = f.confirmed();
    let r = results::readiness(&app, &c).await.map_err(fail)?;
    let to_list =
        || Redirect::to(&format!("/contests/{}/finalize?asked=1", urlencode(&id))).into_response();
    if c.finalized_ms.is_none()
        && (r.blocked.is_some() || !r.checks.unconfirmed(&confirmed).is_empty())
    {
        return Ok(to_list());
    }
    results::finalize(&app, &admin, &id, &confirmed)
        .await
        .map_err(fail)?;
    Ok(Redirect::to(&format!("/contests/{}/standings", urlencode(&id))).into_response())
}
