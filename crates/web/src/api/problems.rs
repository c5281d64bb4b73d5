//! Problems over the API: the list, one problem with its samples, statement and languages, a
//! test's files (samples for everyone who may read the statement, secret tests for admins),
//! and the admins' list of loaded and failed problems and reload.

use std::path::Path as FsPath;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::IntoResponse;
use axum::Json;
use serde::Serialize;

use crate::auth::extract::{Admin, MaybeUser};
use crate::error::AppError;
use crate::submit::language_views;
use crate::view::{find_problem, may_read_statements, problem_visible, visible_problem};
use crate::App;

#[derive(Serialize)]
struct ProblemSummary {
    id: String,
    title: String,
    source: String,
    time_limit_ms: u128,
    memory_limit_kib: u64,
    tests: usize,
    samples: usize,
}

pub(crate) async fn list(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
) -> Result<impl IntoResponse, AppError> {
    may_read_statements(&app, user.as_ref())?;
    let catalog = app.node.catalog();
    let list: Vec<ProblemSummary> = catalog
        .problems
        .values()
        .filter(|e| problem_visible(&app, &e.problem.id, user.as_ref()))
        .map(|e| {
            let p = &e.problem;
            ProblemSummary {
                id: p.id.clone(),
                title: p.title.clone(),
                source: p.source.clone(),
                time_limit_ms: p.time_limit.as_millis(),
                memory_limit_kib: p.memory_limit / 1024,
                tests: p.tests.len(),
                samples: p.tests.iter().filter(|t| t.sample).count(),
            }
        })
        .collect();
    Ok(Json(list))
}

/// Sample files larger than this are cut in views (the test-file endpoint serves them whole).
const SAMPLE_VIEW_LIMIT: u64 = 64 * 1024;

pub(crate) async fn one(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> Result<impl IntoResponse, AppError> {
    visible_problem(&app, &id, user.as_ref())?;
    let catalog = app.node.catalog();
    let e = find_problem(&catalog, &id)?;
    let p = &e.problem;
    let samples: Vec<serde_json::Value> = p
        .tests
        .iter()
        .filter(|t| t.sample)
        .map(|t| {
            serde_json::json!({
                "name": t.name,
                "input": ojd_judge::read_capped(&t.input, SAMPLE_VIEW_LIMIT),
                "answer": ojd_judge::read_capped(&t.answer, SAMPLE_VIEW_LIMIT),
            })
        })
        .collect();
    Ok(Json(serde_json::json!({
        "id": p.id,
        "title": p.title,
        "source": p.source,
        "time_limit_ms": p.time_limit.as_millis(),
        "memory_limit_kib": p.memory_limit / 1024,
        "output_limit_kib": p.output_limit.map(|b| b / 1024),
        "tests": p.tests.iter().map(|t| serde_json::json!({ "name": t.name, "sample": t.sample })).collect::<Vec<_>>(),
        "samples": samples,
        "statement": p.statement().unwrap_or_default(),
        "statement_html": e.statement_html,
        "languages": language_views(&app),
    })))
}

pub(crate) async fn test_files(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path((id, name)): Path<(String, String)>,
) -> Result<impl IntoResponse, AppError> {
    visible_problem(&app, &id, user.as_ref())?;
    let catalog = app.node.catalog();
    let e = find_problem(&catalog, &id)?;
    let t = e
        .problem
        .tests
        .iter()
        .find(|t| t.name == name)
        .ok_or_else(|| AppError::NotFound(format!("no test {name:?}")))?;
    if !t.sample {
        match &user {
            Some(u) if u.admin => {}
            Some(_) => return Err(AppError::Forbidden(format!("test {name} is secret"))),
            None => return Err(AppError::Unauthorized),
        }
    }
    let read = |p: &FsPath| std::fs::read(p).map(|b| String::from_utf8_lossy(&b).into_owned());
    let input = read(&t.input)
        .map_err(|e| AppError::Internal(format!("read {}: {e}", t.input.display())))?;
    let answer = read(&t.answer)
        .map_err(|e| AppError::Internal(format!("read {}: {e}", t.answer.display())))?;
    Ok(Json(
        serde_json::json!({ "name": t.name, "sample": t.sample, "input": input, "answer": answer }),
    ))
}

pub(crate) async fn admin_list(State(app): State<Arc<App>>, _admin: Admin) -> impl IntoResponse {
    let catalog = app.node.catalog();
    Json(serde_json::json!({
        "problems": catalog.problems.keys().collect::<Vec<_>>(),
        "failed": catalog.failed,
    }))
}

pub(crate) async fn admin_reload(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
) -> Result<impl IntoResponse, AppError> {
    let a = app.clone();
    let catalog = tokio::task::spawn_blocking(move || a.reload())
        .await
        .map_err(|e| AppError::Internal(format!("reload failed: {e}")))?;
    crate::contests::controls::audit_reload(&app, &admin, catalog.problems.len()).await;
    Ok(Json(serde_json::json!({
        "problems": catalog.problems.keys().collect::<Vec<_>>(),
        "failed": catalog.failed,
    })))
}
