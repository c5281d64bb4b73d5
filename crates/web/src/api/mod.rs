//! The JSON API under `/api/v1` (documented in README.md, "The daemon"): problems
//! ([`problems`]), submissions and rejudging one ([`submissions`]), a submission's live
//! progress ([`events`]), contests ([`contests`]) and rejudgings ([`rejudgings`]). What a
//! viewer may see of a submission is decided by the visibility policy (`view`); test inputs and
//! answers are served for samples only, except to admins. Errors are the JSON of `AppError`.

mod contests;
pub(crate) mod events;
mod problems;
mod rejudgings;
mod submissions;

use std::sync::Arc;

use axum::extract::State;
use axum::routing::{get, post};
use axum::{Json, Router};

use crate::error::AppError;
use crate::submit::{language_views, LanguageView};
use crate::user::User;
use crate::App;

/// Every route of the API, to nest under `/api/v1`.
pub(crate) fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/me", get(me))
        .route("/languages", get(languages))
        .route("/problems", get(problems::list))
        .route("/problems/{id}", get(problems::one))
        .route("/problems/{id}/tests/{name}", get(problems::test_files))
        .route(
            "/submissions",
            get(submissions::list).post(submissions::submit),
        )
        .route("/submissions/{id}", get(submissions::one))
        .route("/submissions/{id}/events", get(events::events))
        .route("/admin/problems", get(problems::admin_list))
        .route("/admin/reload", post(problems::admin_reload))
        .route(
            "/admin/submissions/{id}/rejudge",
            post(submissions::admin_rejudge),
        )
        .route(
            "/admin/problems/{id}/rejudge",
            post(submissions::admin_rejudge_problem),
        )
        .merge(contests::routes())
        .merge(rejudgings::routes())
        .fallback(|| async { AppError::NotFound("no such API endpoint".into()) })
}

async fn me(user: User) -> Json<serde_json::Value> {
    Json(serde_json::json!({ "name": user.name, "admin": user.admin }))
}

async fn languages(State(app): State<Arc<App>>) -> Json<Vec<LanguageView>> {
    Json(language_views(&app))
}
