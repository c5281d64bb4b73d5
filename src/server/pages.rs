//! The students' web pages: problem list, statement with samples and the submit form (paste or
//! file), login, my submissions, and a submission page that updates live. Server-rendered HTML
//! (see [`super::html`]); the only script, `live.js`, follows a judging over the same event
//! stream the API offers and swaps in the server-rendered results when it is done.

use std::sync::Arc;

use axum::extract::{Multipart, Path, Query, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::Form;
use serde::Deserialize;

use super::api::{self, may_read_statements, SubmitForm};
use super::auth::{self, MaybeUser, User};
use super::error::AppError;
use super::html::{esc, page};
use super::App;
use crate::store::ListFilter;

const STYLE: &str = include_str!("assets/style.css");
const LIVE_JS: &str = include_str!("assets/live.js");

/// An error shown as a page (a missing login becomes a redirect to the login page).
pub struct PageError(AppError, Option<User>);

impl From<AppError> for PageError {
    fn from(e: AppError) -> Self {
        PageError(e, None)
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let PageError(e, user) = self;
        if let AppError::Unauthorized = e {
            return Redirect::to("/login").into_response();
        }
        e.log_if_internal();
        let body = format!(
            "<h1>{}</h1><p>{}</p><p><a href=\"/\">Back to the problems</a></p>",
            e.status(),
            esc(&e.message())
        );
        (e.status(), Html(page("Error", user.as_ref(), &body))).into_response()
    }
}

type PageResult = Result<Response, PageError>;

fn need_login(user: Option<User>) -> Result<User, PageError> {
    user.ok_or(PageError(AppError::Unauthorized, None))
}

pub async fn asset(Path(file): Path<String>) -> Response {
    let (body, kind) = match file.as_str() {
        "style.css" => (STYLE, "text/css; charset=utf-8"),
        "live.js" => (LIVE_JS, "text/javascript; charset=utf-8"),
        _ => return (StatusCode::NOT_FOUND, "no such file").into_response(),
    };
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "max-age=300"),
        ],
        body,
    )
        .into_response()
}

pub async fn index(State(app): State<Arc<App>>, MaybeUser(user): MaybeUser) -> PageResult {
    may_read_statements(&app, &user).map_err(|e| PageError(e, user.clone()))?;
    let catalog = app.catalog();
    let mut body = String::from("<h1>Problems</h1><table class=\"list\"><thead><tr><th>Problem</th><th>Source</th><th>Time</th><th>Memory</th></tr></thead><tbody>");
    for e in catalog.problems.values() {
        let p = &e.problem;
        body.push_str(&format!(
            "<tr><td><a href=\"/problems/{id}\">{title}</a></td><td class=\"muted\">{src}</td><td class=\"num\">{t} ms</td><td class=\"num\">{m}</td></tr>",
            id = esc(&p.id),
            title = esc(&p.title),
            src = esc(&p.source),
            t = p.time_limit.as_millis(),
            m = super::html::kib(p.memory_limit / 1024),
        ));
    }
    body.push_str("</tbody></table>");
    if catalog.problems.is_empty() {
        body.push_str("<p class=\"muted\">No problems are being served.</p>");
    }
    Ok(Html(page("Problems", user.as_ref(), &body)).into_response())
}

/// The statement page; `error` and `source` refill the form after a refused submission.
fn problem_page(
    app: &App,
    user: Option<&User>,
    id: &str,
    error: Option<&str>,
    source: &str,
) -> Result<String, AppError> {
    let catalog = app.catalog();
    let e = catalog.find(id)?;
    let p = &e.problem;
    // Most statements open with the title as a heading of their own: show it once, as the
    // page's heading, above the limits.
    let html = &e.statement_html;
    let (heading, statement) = match html
        .strip_prefix("<h1>")
        .and_then(|rest| rest.split_once("</h1>"))
    {
        Some((h, rest)) => (format!("<h1>{h}</h1>"), rest),
        None => (format!("<h1>{}</h1>", esc(&p.title)), html.as_str()),
    };
    let mut body = format!(
        "{heading}<p class=\"limits\"><span>Time limit {} ms</span><span>Memory limit {}</span><span class=\"muted\">{}</span></p>\
         <article class=\"statement\">{statement}</article>",
        p.time_limit.as_millis(),
        super::html::kib(p.memory_limit / 1024),
        esc(&p.source)
    );
    for t in p.tests.iter().filter(|t| t.sample) {
        let input = crate::fsutil::read_capped(&t.input, 16 * 1024);
        let answer = crate::fsutil::read_capped(&t.answer, 16 * 1024);
        body.push_str(&format!(
            "<div class=\"sample\"><div><h3>Sample input ({name})</h3><pre>{}</pre></div><div><h3>Sample output ({name})</h3><pre>{}</pre></div></div>",
            esc(&input),
            esc(&answer),
            name = esc(&t.name)
        ));
    }
    body.push_str("<h2 id=\"submit\">Submit</h2>");
    if let Some(err) = error {
        body.push_str(&format!(
            "<p class=\"error\" role=\"alert\">{}</p>",
            esc(err)
        ));
    }
    if user.is_none() {
        body.push_str("<p><a href=\"/login\">Log in</a> to submit.</p>");
        return Ok(body);
    }
    let mut options = String::from("<option value=\"auto\">Detect from the file name</option>");
    for l in api::language_views(app).into_iter().filter(|l| l.available) {
        options.push_str(&format!(
            "<option value=\"{}\">{}</option>",
            esc(&l.id),
            esc(&l.name)
        ));
    }
    body.push_str(&format!(
        "<form id=\"submit-form\" method=\"post\" action=\"/problems/{id}/submit\" enctype=\"multipart/form-data\" class=\"submit\">\
<label>Language <select name=\"language\" id=\"language\">{options}</select></label>\
<label>Source <textarea name=\"source\" id=\"source\" rows=\"14\" spellcheck=\"false\" placeholder=\"Paste your program here, or choose a file below\">{src}</textarea></label>\
<label>or a file <input type=\"file\" name=\"file\" id=\"file\"></label>\
<button type=\"submit\" id=\"submit-button\">Submit</button></form>",
        id = esc(&p.id),
        src = esc(source),
    ));
    Ok(body)
}

pub async fn problem(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> PageResult {
    may_read_statements(&app, &user).map_err(|e| PageError(e, user.clone()))?;
    let body =
        problem_page(&app, user.as_ref(), &id, None, "").map_err(|e| PageError(e, user.clone()))?;
    let title = app
        .catalog()
        .get(&id)
        .map(|e| e.problem.title.clone())
        .unwrap_or(id);
    Ok(Html(page(&title, user.as_ref(), &body)).into_response())
}

pub async fn submit(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
    mp: Multipart,
) -> PageResult {
    let user = need_login(user)?;
    let mut form = SubmitForm {
        problem: id.clone(),
        ..Default::default()
    };
    let read = api::read_multipart(&app, mp, &mut form).await;
    form.problem = id.clone();
    let source = form.source.clone();
    let accepted = match read {
        Ok(()) => api::accept(&app, &user, form).await,
        Err(e) => Err(e),
    };
    match accepted {
        Ok(sid) => Ok(Redirect::to(&format!("/submissions/{sid}")).into_response()),
        Err(e) if e.status().is_client_error() && !matches!(e, AppError::NotFound(_)) => {
            let body = problem_page(&app, Some(&user), &id, Some(&e.message()), &source)
                .map_err(|e| PageError(e, Some(user.clone())))?;
            let title = app
                .catalog()
                .get(&id)
                .map(|e| e.problem.title.clone())
                .unwrap_or(id);
            Ok((e.status(), Html(page(&title, Some(&user), &body))).into_response())
        }
        Err(e) => Err(PageError(e, Some(user))),
    }
}

pub async fn my_submissions(State(app): State<Arc<App>>, MaybeUser(user): MaybeUser) -> PageResult {
    let user = need_login(user)?;
    let filter = ListFilter {
        user: (!user.admin).then(|| user.name.clone()),
        limit: 200,
        ..Default::default()
    };
    let rows = app
        .db(move |s| s.list(&filter))
        .await
        .map_err(|e| PageError(e, Some(user.clone())))?;
    let rows: Vec<_> = rows.into_iter().map(api::summary).collect();
    let title = if user.admin {
        "All submissions"
    } else {
        "My submissions"
    };
    let body = format!(
        "<h1>{title}</h1>{}",
        super::html::submissions_table(&rows, user.admin)
    );
    Ok(Html(page(title, Some(&user), &body)).into_response())
}

/// Test names of a problem, for the rows shown while judging.
fn test_names(app: &App, problem: &str) -> Vec<(String, bool)> {
    app.catalog()
        .get(problem)
        .map(|e| {
            e.problem
                .tests
                .iter()
                .map(|t| (t.name.clone(), t.sample))
                .collect()
        })
        .unwrap_or_default()
}

pub async fn submission(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<i64>,
) -> PageResult {
    let user = need_login(user)?;
    let d = api::visible_submission(&app, id, &user)
        .await
        .map_err(|e| PageError(e, Some(user.clone())))?;
    let v = api::view(&app, d, &user);
    let title = app
        .catalog()
        .get(&v.info.problem)
        .map(|e| e.problem.title.clone())
        .unwrap_or_else(|| v.info.problem.clone());
    let mut body = format!(
        "<h1>Submission {id} · <a href=\"/problems/{pid}\">{}</a></h1><p class=\"meta\"><span>{}</span><span>{}</span><span>submitted {}</span>{}</p>",
        esc(&title),
        esc(&v.info.user),
        esc(app.config.languages.get(&v.info.language).map_or(v.info.language.as_str(), |l| l.name.as_str())),
        super::html::time(v.info.queued_at),
        v.info.judge_version.as_deref().map(|j| format!("<span>judge {}</span>", esc(j))).unwrap_or_default(),
        pid = esc(&v.info.problem),
    );
    body.push_str(&super::html::results(
        &v,
        &test_names(&app, &v.info.problem),
    ));
    let source = match &v.source {
        Some(s) => format!("<pre class=\"source\">{}</pre>", esc(s)),
        None => format!(
            "<p class=\"muted\">A binary of {} bytes.</p>",
            v.info.source_bytes
        ),
    };
    body.push_str(&format!(
        "<details><summary>Source</summary>{source}</details>"
    ));
    Ok(Html(page(&format!("Submission {id}"), Some(&user), &body)).into_response())
}

/// The results section alone: what `live.js` swaps in when the judging is done.
pub async fn submission_results(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<i64>,
) -> PageResult {
    let user = need_login(user)?;
    let d = api::visible_submission(&app, id, &user)
        .await
        .map_err(|e| PageError(e, Some(user.clone())))?;
    let v = api::view(&app, d, &user);
    Ok(Html(super::html::results(&v, &test_names(&app, &v.info.problem))).into_response())
}

#[derive(Deserialize)]
pub struct LoginForm {
    token: Option<String>,
}

fn login_page(user: Option<&User>, error: Option<&str>) -> String {
    let err = error
        .map(|e| format!("<p class=\"error\" role=\"alert\">{}</p>", esc(e)))
        .unwrap_or_default();
    page(
        "Log in",
        user,
        &format!(
            "<h1>Log in</h1>{err}<form method=\"post\" action=\"/login\" class=\"login\">\
<label>Token <input type=\"password\" name=\"token\" id=\"token\" autocomplete=\"current-password\" required></label>\
<button type=\"submit\">Log in</button></form><p class=\"muted\">Your token comes from the contest admin.</p>"
        ),
    )
}

/// `GET /login`: the form, or `?token=` (the link printed at first start) logs in directly.
pub async fn login_form(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Query(q): Query<LoginForm>,
) -> PageResult {
    match q.token {
        Some(token) => login_with(&app, token).await,
        None => Ok(Html(login_page(user.as_ref(), None)).into_response()),
    }
}

pub async fn login(State(app): State<Arc<App>>, Form(f): Form<LoginForm>) -> PageResult {
    login_with(&app, f.token.unwrap_or_default()).await
}

async fn login_with(app: &Arc<App>, token: String) -> PageResult {
    let a = app.clone();
    let t = token.clone();
    let user = app.db(move |s| auth::resolve(&a, s, &t)).await?;
    if user.is_none() {
        return Ok((
            StatusCode::UNAUTHORIZED,
            Html(login_page(None, Some("This token is not valid."))),
        )
            .into_response());
    }
    let mut headers = HeaderMap::new();
    // The token is hex or operator-chosen text; refuse what cannot go in a cookie.
    let cookie = format!(
        "{}={}; Path=/; HttpOnly; SameSite=Strict; Max-Age=31536000",
        auth::COOKIE,
        token.trim()
    );
    match cookie.parse() {
        Ok(v) if !token.contains(';') => {
            headers.insert(header::SET_COOKIE, v);
        }
        _ => {
            return Ok((
                StatusCode::BAD_REQUEST,
                Html(login_page(
                    None,
                    Some("This token cannot be used in a browser."),
                )),
            )
                .into_response())
        }
    }
    Ok((headers, Redirect::to("/")).into_response())
}

pub async fn logout() -> Response {
    let mut headers = HeaderMap::new();
    headers.insert(
        header::SET_COOKIE,
        header::HeaderValue::from_static(
            "ojd_token=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0",
        ),
    );
    (headers, Redirect::to("/")).into_response()
}
