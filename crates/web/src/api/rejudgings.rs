//! The rejudgings' JSON API, for admins: `POST /api/v1/admin/rejudgings` starts one,
//! `GET …/{id}` shows its progress, verdict diff and standings' moves, `…/submissions/{sid}`
//! one submission's per-test changes, `…/apply` and `…/cancel` close it (a refusal is 409).

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};

use crate::auth::extract::Admin;
use crate::error::AppError;
use crate::rejudgings::{close, report, start, tests_of, Report, Request};
use crate::App;
use ojd_service::contest::rejudging::TestChange;
use ojd_service::RejudgingInfo;

pub(crate) fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/admin/rejudgings", get(list).post(create))
        .route("/admin/rejudgings/{id}", get(show))
        .route("/admin/rejudgings/{id}/submissions/{sid}", get(show_tests))
        .route("/admin/rejudgings/{id}/apply", post(apply))
        .route("/admin/rejudgings/{id}/cancel", post(cancel))
}

/// A refused apply or cancel: 409 with the usual error body.
fn conflict(message: String) -> Response {
    let body = serde_json::json!({ "error": { "code": "conflict", "message": message } });
    (StatusCode::CONFLICT, Json(body)).into_response()
}

async fn create(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Json(req): Json<Request>,
) -> Result<Response, AppError> {
    let (id, n) = start(&app, &admin.name, req).await?;
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({
            "id": id,
            "submissions": n,
            "url": format!("/api/v1/admin/rejudgings/{id}"),
            "page": format!("/admin/rejudgings/{id}"),
        })),
    )
        .into_response())
}

async fn list(
    State(app): State<Arc<App>>,
    _admin: Admin,
) -> Result<Json<Vec<RejudgingInfo>>, AppError> {
    Ok(Json(app.node.rejudgings().await?))
}

async fn show(
    State(app): State<Arc<App>>,
    _admin: Admin,
    Path(id): Path<i64>,
) -> Result<Json<Report>, AppError> {
    report(&app, id)
        .await?
        .map(Json)
        .ok_or_else(|| AppError::NotFound(format!("no rejudging {id}")))
}

async fn show_tests(
    State(app): State<Arc<App>>,
    _admin: Admin,
    Path((id, sid)): Path<(i64, i64)>,
) -> Result<Json<Vec<TestChange>>, AppError> {
    tests_of(&app, id, sid)
        .await?
        .map(Json)
        .ok_or_else(|| AppError::NotFound(format!("submission {sid} is not in rejudging {id}")))
}

async fn apply(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<i64>,
) -> Result<Response, AppError> {
    Ok(match close(&app, id, &admin.name, true).await? {
        Ok(n) => {
            Json(serde_json::json!({ "id": id, "state": "applied", "applied": n })).into_response()
        }
        Err(m) => conflict(m.to_string()),
    })
}

async fn cancel(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<i64>,
) -> Result<Response, AppError> {
    Ok(match close(&app, id, &admin.name, false).await? {
        Ok(_) => Json(serde_json::json!({ "id": id, "state": "cancelled" })).into_response(),
        Err(m) => conflict(m.to_string()),
    })
}
