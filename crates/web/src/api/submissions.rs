//! Submissions over the API: `POST /api/v1/submissions` (JSON or multipart), one submission as
//! its author or an admin may see it, the filtered and paged list, and the admins' rejudge of
//! one submission or of a problem's.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequest, Multipart, Path, Query, Request, State};
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::Json;

use crate::auth::extract::Admin;
use crate::error::AppError;
use crate::listing::{ListQuery, Owner};
use crate::rejudgings::{rejudge_now, Scope, Started};
use crate::submit::{
    accept_once, idempotency_key, read_multipart, too_large, SubmitForm, IDEMPOTENCY_KEY,
};
use crate::user::User;
use crate::view::{policy, summary, visible_submission};
use crate::App;

/// `POST /api/v1/submissions`: JSON `{problem, language?, source, filename?}` or multipart
/// with `problem`, `language?` and `file`. 201 with the new submission; with an
/// `Idempotency-Key` that named one before, 200 with that one (nothing queued); 503 with
/// nothing stored when the database does not take it within a few seconds.
pub(crate) async fn submit(
    State(app): State<Arc<App>>,
    user: User,
    req: Request,
) -> Result<impl IntoResponse, AppError> {
    let key = match req.headers().get(IDEMPOTENCY_KEY) {
        Some(v) => Some(idempotency_key("header Idempotency-Key", v.as_bytes())?),
        None => None,
    };
    let content_type = req
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("")
        .to_string();
    let mut form = SubmitForm::default();
    if content_type.starts_with("multipart/form-data") {
        let mp = Multipart::from_request(req, &app)
            .await
            .map_err(|e| AppError::BadRequest(e.body_text()))?;
        read_multipart(&app, mp, &mut form).await?;
    } else {
        let body = Bytes::from_request(req, &app).await.map_err(|e| {
            if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
                too_large(&app)
            } else {
                AppError::BadRequest(e.body_text())
            }
        })?;
        form = serde_json::from_slice(&body)
            .map_err(|e| AppError::BadRequest(format!("bad JSON body: {e}")))?;
    }
    if key.is_some() {
        form.idempotency_key = key;
    }
    let done = accept_once(&app, &user, form).await?;
    let id = done.id;
    let url = format!("/api/v1/submissions/{id}");
    Ok((
        // 200: the submission its idempotency key named, made by an earlier request.
        if done.fresh {
            StatusCode::CREATED
        } else {
            StatusCode::OK
        },
        [(header::LOCATION, url.clone())],
        Json(serde_json::json!({ "id": id, "url": url, "page": format!("/submissions/{id}") })),
    ))
}

pub(crate) async fn one(
    State(app): State<Arc<App>>,
    user: User,
    Path(id): Path<i64>,
) -> Result<impl IntoResponse, AppError> {
    let v = visible_submission(&app, id, &user).await?;
    let mut out = serde_json::to_value(v)
        .map_err(|e| AppError::Internal(format!("submission {id} as JSON: {e}")))?;
    if user.admin {
        // Admins: every judging and every override of the jury, oldest first.
        out["history"] = serde_json::to_value(crate::history::of(&app, id).await?)
            .map_err(|e| AppError::Internal(format!("history as JSON: {e}")))?;
    }
    Ok(Json(out))
}

/// `GET /api/v1/submissions?user=&problem=&verdict=&language=&before=&limit=`: a page, newest
/// first, filtered in the store. `X-Total-Count` says how many match in all; a `Link` header
/// with `rel="next"` gives the next page while there is one.
pub(crate) async fn list(
    State(app): State<Arc<App>>,
    user: User,
    Query(q): Query<ListQuery>,
) -> Result<impl IntoResponse, AppError> {
    let filter = q.filter(&app, &user, Owner::Strict)?;
    let loaded = app.contests.get();
    let page = app
        .node
        .seen_rows(filter, user.as_viewer(), policy(&app, &loaded.contests))
        .await?;
    let mut headers = axum::http::HeaderMap::new();
    headers.insert("x-total-count", page.total.into());
    if let (true, Some(last)) = (page.has_more, page.last_id) {
        let link = format!("</api/v1/submissions{}>; rel=\"next\"", q.with_before(last));
        if let Ok(v) = header::HeaderValue::from_str(&link) {
            headers.insert(header::LINK, v);
        }
    }
    let rows: Vec<_> = page.rows.into_iter().map(summary).collect();
    Ok((headers, Json(rows)))
}

/// The JSON answer to a rejudge: the rejudging's id, its size and its pages.
fn started_json(started: Started) -> impl IntoResponse {
    (
        StatusCode::ACCEPTED,
        Json(serde_json::json!({
            "rejudging": started.id,
            "requeued": started.submissions,
            "url": format!("/api/v1/admin/rejudgings/{}", started.id),
            "page": format!("/admin/rejudgings/{}", started.id),
        })),
    )
}

/// `POST /api/v1/admin/submissions/{id}/rejudge`: a rejudging of one submission, applied when
/// judged (202 with its id).
pub(crate) async fn admin_rejudge(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<i64>,
) -> Result<impl IntoResponse, AppError> {
    Ok(started_json(
        rejudge_now(&app, Scope::Submission(id), &admin).await?,
    ))
}

/// `POST /api/v1/admin/problems/{id}/rejudge`: a rejudging of every judged submission of a
/// problem, applied when all are judged (202 with its id).
pub(crate) async fn admin_rejudge_problem(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<String>,
) -> Result<impl IntoResponse, AppError> {
    Ok(started_json(
        rejudge_now(&app, Scope::Problem(id), &admin).await?,
    ))
}
