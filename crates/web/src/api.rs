//! The JSON API under `/api/v1` (documented in README.md, "The daemon"). What a viewer may
//! see of a submission is decided in [`super::view`]; test inputs and answers are served for
//! samples only, except to admins.

use std::path::Path as FsPath;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{FromRequest, Multipart, Path, Query, Request, State};
use axum::http::{header, StatusCode};
use axum::response::IntoResponse;
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};

use super::auth::{Admin, MaybeUser, User};
use super::error::AppError;
use super::listing::{visible_rows, ListQuery, Owner};
use super::rejudgings::{Scope, Started};
use super::view::{problem_visible, summary, view, visible_problem, visible_submission};
use super::App;
use ojd_judge::judge::{JudgeError, Submission};
use ojd_store::NewSubmission;

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/me", get(me))
        .route("/languages", get(languages))
        .route("/problems", get(problems))
        .route("/problems/{id}", get(problem))
        .route("/problems/{id}/tests/{name}", get(test_files))
        .route("/submissions", get(list_submissions).post(submit))
        .route("/submissions/{id}", get(submission))
        .route("/submissions/{id}/events", get(super::sse::events))
        .route("/admin/problems", get(admin_problems))
        .route("/admin/reload", post(admin_reload))
        .route("/admin/submissions/{id}/rejudge", post(admin_rejudge))
        .route("/admin/problems/{id}/rejudge", post(admin_rejudge_problem))
        .fallback(|| async { AppError::NotFound("no such API endpoint".into()) })
}

async fn me(user: User) -> Json<serde_json::Value> {
    Json(serde_json::json!({ "name": user.name, "admin": user.admin }))
}

#[derive(Serialize)]
pub struct LanguageView {
    pub id: String,
    pub name: String,
    pub available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reason: Option<String>,
    /// Multiplies a problem's time limit for this language.
    pub time_factor: f64,
    /// Bytes added to a problem's memory limit for this language (its `memory_extra`).
    pub memory_extra: u64,
}

pub fn language_views(app: &App) -> Vec<LanguageView> {
    app.judge
        .languages()
        .iter()
        .map(|(id, l)| LanguageView {
            id: id.clone(),
            name: app
                .config
                .languages
                .get(id)
                .map(|c| c.name.clone())
                .unwrap_or_else(|| id.clone()),
            available: l.is_ok(),
            reason: l.as_ref().err().cloned(),
            time_factor: app.config.languages.get(id).map_or(1.0, |c| c.time_factor),
            memory_extra: app
                .config
                .languages
                .get(id)
                .map_or(0, |c| c.memory_extra.bytes()),
        })
        .collect()
}

async fn languages(State(app): State<Arc<App>>) -> Json<Vec<LanguageView>> {
    Json(language_views(&app))
}

/// Statements are public unless `public_statements = false`.
pub fn may_read_statements(app: &App, user: &Option<User>) -> Result<(), AppError> {
    if app.config.server.public_statements || user.is_some() {
        Ok(())
    } else {
        Err(AppError::Unauthorized)
    }
}

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

async fn problems(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
) -> Result<impl IntoResponse, AppError> {
    may_read_statements(&app, &user)?;
    let catalog = app.catalog();
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

async fn problem(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> Result<impl IntoResponse, AppError> {
    visible_problem(&app, &id, user.as_ref())?;
    let catalog = app.catalog();
    let e = crate::find_problem(&catalog, &id)?;
    let p = &e.problem;
    let samples: Vec<serde_json::Value> = p
        .tests
        .iter()
        .filter(|t| t.sample)
        .map(|t| {
            serde_json::json!({
                "name": t.name,
                "input": ojd_judge::fsutil::read_capped(&t.input, SAMPLE_VIEW_LIMIT),
                "answer": ojd_judge::fsutil::read_capped(&t.answer, SAMPLE_VIEW_LIMIT),
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

async fn test_files(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path((id, name)): Path<(String, String)>,
) -> Result<impl IntoResponse, AppError> {
    visible_problem(&app, &id, user.as_ref())?;
    let catalog = app.catalog();
    let e = crate::find_problem(&catalog, &id)?;
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

/// A submission as it arrives, from JSON, the API's multipart upload or the web form.
#[derive(Debug, Default, Deserialize)]
pub struct SubmitForm {
    pub problem: String,
    #[serde(default)]
    pub language: Option<String>,
    #[serde(default)]
    pub source: String,
    #[serde(default)]
    pub filename: Option<String>,
    /// The contest it is made through (its rules apply and it counts on its standings).
    #[serde(default)]
    pub contest: Option<String>,
    /// A file upload (multipart only); wins over `source` when not empty.
    #[serde(skip)]
    pub file: Option<Vec<u8>>,
}

fn too_large(app: &App) -> AppError {
    AppError::TooLarge(format!(
        "the submission is over the limit of {}",
        app.config.server.max_submission_size
    ))
}

/// Reads a multipart body: fields `problem`, `language`, `source` and a `file` upload.
pub async fn read_multipart(
    app: &App,
    mut mp: Multipart,
    form: &mut SubmitForm,
) -> Result<(), AppError> {
    let bad = |e: axum::extract::multipart::MultipartError| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            too_large(app)
        } else {
            AppError::BadRequest(format!("bad form data: {}", e.body_text()))
        }
    };
    while let Some(field) = mp.next_field().await.map_err(bad)? {
        let name = field.name().unwrap_or_default().to_string();
        if name == "file" {
            let filename = field.file_name().map(str::to_string);
            let data = field.bytes().await.map_err(bad)?;
            if !data.is_empty() {
                form.filename = filename;
                form.file = Some(data.to_vec());
            }
            continue;
        }
        let text = field.text().await.map_err(bad)?;
        match name.as_str() {
            "problem" => form.problem = text,
            "language" => form.language = Some(text),
            "source" => form.source = text,
            "contest" => form.contest = Some(text).filter(|c| !c.is_empty()),
            "filename" => form.filename = Some(text),
            _ => {}
        }
    }
    Ok(())
}

/// Validates and queues a submission; returns its id.
pub async fn accept(app: &Arc<App>, user: &User, form: SubmitForm) -> Result<i64, AppError> {
    let result = accept_inner(app, user, form).await;
    if matches!(&result, Err(e) if e.status().is_client_error()) {
        app.metrics
            .rejected
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
    result
}

async fn accept_inner(app: &Arc<App>, user: &User, form: SubmitForm) -> Result<i64, AppError> {
    let catalog = app.catalog();
    if form.problem.is_empty() {
        return Err(AppError::BadRequest("missing field `problem`".into()));
    }
    // Through a contest: its rules first (they say when it starts).
    let contest = form.contest.clone().filter(|c| !c.is_empty());
    if let Some(c) = &contest {
        super::contests::admit(app, user, c, &form.problem)?;
    }
    if catalog.get(&form.problem).is_none() || !problem_visible(app, &form.problem, Some(user)) {
        return Err(AppError::NotFound(format!("no problem {:?}", form.problem)));
    }
    let pasted = !form.source.trim().is_empty();
    let source = match form.file {
        Some(_) if pasted => {
            return Err(AppError::BadRequest(
                "you chose a file and also pasted text: submit one of them (clear the text box or the file)".into(),
            ))
        }
        Some(bytes) => bytes,
        None => form.source.into_bytes(),
    };
    if source.iter().all(u8::is_ascii_whitespace) {
        return Err(AppError::BadRequest("the submission is empty".into()));
    }
    if source.len() as u64 > app.config.server.max_submission_size.bytes() {
        return Err(too_large(app));
    }
    let language = match form.language.as_deref().map(str::trim) {
        Some(l) if !l.is_empty() && l != "auto" => l.to_string(),
        _ => {
            let name = form.filename.as_deref().unwrap_or("");
            app.judge.detect_language(FsPath::new(name), &source).ok_or_else(|| {
                AppError::BadRequest(if name.is_empty() {
                    "choose the language of your program: it cannot be told from pasted text (field `language`)".into()
                } else {
                    format!("choose the language of your program: the file name {name:?} does not tell it (field `language`)")
                })
            })?
        }
    };
    let sub = Submission { language, source };
    app.judge.check_submission(&sub).map_err(|e| match e {
        // The judge's wording is for the command line; say it in the API's terms.
        JudgeError::BadSubmission(m) => AppError::BadRequest(m.replace(
            "submit executables with --lang binary",
            "a compiled program is submitted with the language \"binary\"",
        )),
        other => AppError::BadRequest(other.to_string()),
    })?;
    app.limiter.check(user)?;
    let (problem, language) = (form.problem.clone(), sub.language.clone());
    let new = NewSubmission {
        user: user.name.clone(),
        problem: form.problem,
        language: sub.language,
        source: sub.source,
    };
    let id = app
        .db(move |s| match &contest {
            Some(c) => s.insert_in_contest(&new, c, ojd_store::now_ms()),
            None => s.insert(&new, ojd_store::now_ms()),
        })
        .await?;
    app.metrics
        .submitted
        .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    ojd_service::logging::queued(id, &user.name, &problem, &language);
    app.wake.notify_one();
    Ok(id)
}

/// `POST /api/v1/submissions`: JSON `{problem, language?, source, filename?}` or multipart
/// with `problem`, `language?` and `file`.
async fn submit(
    State(app): State<Arc<App>>,
    user: User,
    req: Request,
) -> Result<impl IntoResponse, AppError> {
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
    let id = accept(&app, &user, form).await?;
    let url = format!("/api/v1/submissions/{id}");
    Ok((
        StatusCode::CREATED,
        [(header::LOCATION, url.clone())],
        Json(serde_json::json!({ "id": id, "url": url, "page": format!("/submissions/{id}") })),
    ))
}

async fn submission(
    State(app): State<Arc<App>>,
    user: User,
    Path(id): Path<i64>,
) -> Result<impl IntoResponse, AppError> {
    let d = visible_submission(&app, id, &user).await?;
    Ok(Json(view(&app, d, &user)))
}

/// `GET /api/v1/submissions?user=&problem=&verdict=&language=&before=&limit=`: a page, newest
/// first, filtered in the store. `X-Total-Count` says how many match in all; a `Link` header
/// with `rel="next"` gives the next page while there is one.
async fn list_submissions(
    State(app): State<Arc<App>>,
    user: User,
    Query(q): Query<ListQuery>,
) -> Result<impl IntoResponse, AppError> {
    let filter = q.filter(&app, &user, Owner::Strict)?;
    let counted = filter.clone();
    let (mut page, total) = app
        .db(move |s| Ok((s.list_page(&filter)?, s.count_matching(&counted)?)))
        .await?;
    visible_rows(&app, &user, &mut page.rows);
    let mut headers = axum::http::HeaderMap::new();
    headers.insert("x-total-count", total.into());
    if let (true, Some(last)) = (page.has_more, page.rows.last()) {
        let link = format!(
            "</api/v1/submissions{}>; rel=\"next\"",
            q.with_before(last.id)
        );
        if let Ok(v) = header::HeaderValue::from_str(&link) {
            headers.insert(header::LINK, v);
        }
    }
    let rows: Vec<_> = page.rows.into_iter().map(summary).collect();
    Ok((headers, Json(rows)))
}

async fn admin_problems(State(app): State<Arc<App>>, _admin: Admin) -> impl IntoResponse {
    let catalog = app.catalog();
    Json(serde_json::json!({
        "problems": catalog.problems.keys().collect::<Vec<_>>(),
        "failed": catalog.failed,
    }))
}

async fn admin_reload(
    State(app): State<Arc<App>>,
    _admin: Admin,
) -> Result<impl IntoResponse, AppError> {
    let a = app.clone();
    let catalog = tokio::task::spawn_blocking(move || a.reload())
        .await
        .map_err(|e| AppError::Internal(format!("reload failed: {e}")))?;
    Ok(Json(serde_json::json!({
        "problems": catalog.problems.keys().collect::<Vec<_>>(),
        "failed": catalog.failed,
    })))
}

pub fn wake_all(app: &App) {
    app.wake.notify_waiters();
    app.wake.notify_one();
}

/// Rejudges `scope` as `admin` through a rejudging that applies itself when judged (its page
/// shows the verdict diff); returns it.
pub async fn rejudge_now(app: &Arc<App>, scope: Scope, admin: &User) -> Result<Started, AppError> {
    super::rejudgings::rejudge_now(app, scope, admin).await
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
async fn admin_rejudge(
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
async fn admin_rejudge_problem(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<String>,
) -> Result<impl IntoResponse, AppError> {
    Ok(started_json(
        rejudge_now(&app, Scope::Problem(id), &admin).await?,
    ))
}
