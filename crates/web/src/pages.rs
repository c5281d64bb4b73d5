//! The students' web pages: problem list, statement with samples and the submit form (paste or
//! file), login, the submissions list with filters, and a submission page that updates live.
//! Server-rendered HTML through maud ([`super::html`]); scripts are files under `/static`:
//! `site.js` (local times, the remembered language, the submit form's hints) and `live.js`,
//! which follows a judging over the API's event stream and swaps in the server-rendered results.
//!
//! The submit form follows post/redirect/get: a refused submission is kept as a draft (the
//! pasted text, the language and the reason) and the browser is sent back to the statement,
//! scrolled to the form, where the reason is shown beside it; a refresh re-posts nothing.

use std::sync::Arc;

use axum::extract::{Multipart, Path, Query, State};
use axum::http::header;
use axum::response::{Html, IntoResponse, Redirect, Response};
use maud::{html, Markup};
use serde::Deserialize;

use super::api::{self, may_read_statements, SubmitForm};
use super::auth::{MaybeUser, User};
use super::error::AppError;
use super::html::{page, time_el, trusted};
use super::listing::{ListQuery, Owner};
use super::security::Draft;
use super::view::{self, summary, visible_submission};
use super::App;
use ojd_judge::verdict::Verdict;

const STYLE: &str = include_str!("assets/style.css");
const LIVE_JS: &str = include_str!("assets/live.js");
const SITE_JS: &str = include_str!("assets/site.js");

/// An error shown as a page (a missing login becomes a redirect to the login page).
pub struct PageError(pub AppError, pub Option<User>);

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
        let status = e.status();
        let title = status.canonical_reason().unwrap_or("Error");
        let body = html! {
            div.error-page {
                h1 { (title) }
                p { (e.message()) }
                p { a href="/" { "Back to the problems" } }
            }
        };
        (status, Html(page(title, user.as_ref(), body))).into_response()
    }
}

type PageResult = Result<Response, PageError>;

fn need_login(user: Option<User>) -> Result<User, PageError> {
    user.ok_or(PageError(AppError::Unauthorized, None))
}

pub async fn asset(Path(file): Path<String>) -> Result<Response, PageError> {
    let (body, kind) = match file.as_str() {
        "style.css" => (STYLE, "text/css; charset=utf-8"),
        "live.js" => (LIVE_JS, "text/javascript; charset=utf-8"),
        "site.js" => (SITE_JS, "text/javascript; charset=utf-8"),
        _ => return Err(AppError::NotFound(format!("no file {file:?}")).into()),
    };
    Ok((
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "max-age=300"),
        ],
        body,
    )
        .into_response())
}

/// A language's display name (its id when the config has no name for it).
pub fn language_name(app: &App, id: &str) -> String {
    app.config
        .languages
        .get(id)
        .map_or_else(|| id.to_string(), |l| l.name.clone())
}

pub async fn index(State(app): State<Arc<App>>, MaybeUser(user): MaybeUser) -> PageResult {
    may_read_statements(&app, &user).map_err(|e| PageError(e, user.clone()))?;
    let catalog = app.catalog();
    let body = html! {
        h1 { "Problems" }
        @if catalog.problems.is_empty() {
            p.muted { "No problems are being served." }
        } @else {
            div.scroll { table.list {
                thead { tr { th { "Problem" } th.opt { "Source" } th.num { "Time" } th.num { "Memory" } } }
                tbody {
                    @for e in catalog.problems.values() {
                        @let p = &e.problem;
                        @if view::problem_visible(&app, &p.id, user.as_ref()) { tr {
                            td { a href={ "/problems/" (p.id) } { (p.title) } }
                            td.muted.opt { (p.source) }
                            td.num { (p.time_limit.as_millis()) " ms" }
                            td.num { (super::html::kib(p.memory_limit / 1024)) }
                        } }
                    }
                }
            } }
        }
    };
    Ok(Html(page("Problems", user.as_ref(), body)).into_response())
}

/// The statement page; `draft` refills the form after a refused submission.
fn problem_page(
    app: &App,
    user: Option<&User>,
    id: &str,
    draft: Option<&Draft>,
) -> Result<(String, Markup), AppError> {
    let catalog = app.catalog();
    let e = crate::find_problem(&catalog, id)?;
    let p = &e.problem;
    let languages: Vec<_> = api::language_views(app)
        .into_iter()
        .filter(|l| l.available)
        .collect();
    let chosen = draft.map(|d| d.language.as_str()).unwrap_or("");
    let body = html! {
        h1 { (p.title) }
        p.limits {
            span { "Time limit " (p.time_limit.as_millis()) " ms" }
            span { "Memory limit " (super::html::kib(p.memory_limit / 1024)) }
            @if !p.source.is_empty() { span.muted { (p.source) } }
        }
        // Languages whose limits differ (their `time_factor`, `memory_extra`), so students know
        // beforehand.
        @let factored: Vec<_> = languages.iter().filter(|l| l.time_factor != 1.0 || l.memory_extra != 0).collect();
        @if !factored.is_empty() {
            p.limits.muted #language-limits {
                span { "Limits by language:" }
                @for l in &factored {
                    span { (l.name) " " (p.time_limit.mul_f64(l.time_factor).as_millis()) " ms, " (super::html::kib((p.memory_limit + l.memory_extra) / 1024)) }
                }
            }
        }
        article.statement { (trusted(&e.statement_html)) }
        @let samples: Vec<_> = p.tests.iter().filter(|t| t.sample).collect();
        @if !samples.is_empty() {
            h2 { "Samples" }
            @for t in samples {
                div.sample {
                    div { h3 { "Input (" (t.name) ")" } pre { (ojd_judge::fsutil::read_capped(&t.input, 16 * 1024)) } }
                    div { h3 { "Output (" (t.name) ")" } pre { (ojd_judge::fsutil::read_capped(&t.answer, 16 * 1024)) } }
                }
            }
        }
        h2 #submit { "Submit" }
        @if user.is_none() {
            p { a href="/login" { "Log in" } " to submit." }
        } @else {
            form #submit-form.submit method="post" action={ "/problems/" (p.id) "/submit" } enctype="multipart/form-data" {
                @if let Some(d) = draft {
                    p.error role="alert" #form-error { (d.message) }
                }
                label { "Language"
                    select name="language" #language required {
                        option value="" selected[chosen.is_empty()] disabled { "Choose the language…" }
                        @for l in &languages {
                            option value=(l.id) selected[chosen == l.id] { (l.name) }
                        }
                        option value="auto" selected[chosen == "auto"] { "From the file's name (files only)" }
                    }
                }
                label { "Source"
                    textarea name="source" #source rows="14" spellcheck="false" placeholder="Paste your program here, or choose a file below" {
                        @if let Some(d) = draft { (d.source) }
                    }
                }
                label { "or a file " input type="file" name="file" #file; }
                p.hint #both-hint hidden { "A file is chosen and text is pasted: clear one of them (the form refuses both)." }
                button type="submit" #submit-button { "Submit" }
            }
        }
    };
    Ok((p.title.clone(), body))
}

#[derive(Deserialize)]
pub struct ProblemQuery {
    draft: Option<String>,
}

pub async fn problem(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
    Query(q): Query<ProblemQuery>,
) -> PageResult {
    view::visible_problem(&app, &id, user.as_ref()).map_err(|e| PageError(e, user.clone()))?;
    let draft = match (&user, &q.draft) {
        (Some(u), Some(key)) => app.guards.take_draft(key, &u.name, &id),
        _ => None,
    };
    let (title, body) = problem_page(&app, user.as_ref(), &id, draft.as_ref())
        .map_err(|e| PageError(e, user.clone()))?;
    Ok(Html(page(&title, user.as_ref(), body)).into_response())
}

/// `POST /problems/{id}/submit`: queues the submission and redirects to its page, or keeps a
/// draft and redirects back to the form with the reason (post/redirect/get).
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
    let language = form.language.clone().unwrap_or_default();
    let accepted = match read {
        Ok(()) => api::accept(&app, &user, form).await,
        Err(e) => Err(e),
    };
    match accepted {
        Ok(sid) => Ok(Redirect::to(&format!("/submissions/{sid}")).into_response()),
        Err(e) if e.status().is_client_error() && !matches!(e, AppError::NotFound(_)) => {
            let key = app.guards.keep_draft(Draft {
                user: user.name.clone(),
                problem: id.clone(),
                // The API names its fields; the form's reader sees labels instead.
                message: e.message().replace(" (field `language`)", ""),
                source,
                language,
            });
            let to = format!("/problems/{}?draft={key}#submit", urlencode(&id));
            Ok(Redirect::to(&to).into_response())
        }
        Err(e) => Err(PageError(e, Some(user))),
    }
}

/// Percent-encodes a path segment or query value.
pub use super::listing::urlencode;

pub async fn submissions(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Query(q): Query<ListQuery>,
) -> PageResult {
    let user = need_login(user)?;
    let filter = q
        .filter(&app, &user, Owner::Lenient)
        .map_err(|e| PageError(e, Some(user.clone())))?;
    let counted = filter.clone();
    let (page_rows, total) = app
        .db(move |s| Ok((s.list_page(&filter)?, s.count_matching(&counted)?)))
        .await
        .map_err(|e| PageError(e, Some(user.clone())))?;
    let more = page_rows.has_more;
    let mut rows = page_rows.rows;
    super::listing::visible_rows(&app, &user, &mut rows);
    let next = rows.last().map(|r| q.with_before(r.id));
    let rows: Vec<_> = rows.into_iter().map(summary).collect();
    let title = if user.admin {
        "All submissions"
    } else {
        "My submissions"
    };
    let catalog = app.catalog();
    let languages = api::language_views(&app);
    let lang = |id: &str| language_name(&app, id);
    let verdicts = [
        Verdict::Accepted,
        Verdict::WrongAnswer,
        Verdict::TimeLimitExceeded,
        Verdict::MemoryLimitExceeded,
        Verdict::OutputLimitExceeded,
        Verdict::RuntimeError,
        Verdict::CompileError,
        Verdict::JudgeError,
    ];
    let sel = |v: &Option<String>, x: &str| v.as_deref() == Some(x);
    let body = html! {
        h1 { (title) }
        form.filters method="get" action="/submissions" {
            @if user.admin {
                label { "User" input type="text" name="user" value=[q.user.as_deref()] size="10"; }
            }
            label { "Problem" select name="problem" {
                option value="" { "any" }
                @for pid in catalog.problems.keys().filter(|p| view::problem_visible(&app, p, Some(&user))) { option value=(pid) selected[sel(&q.problem, pid)] { (pid) } }
            } }
            label { "Verdict" select name="verdict" {
                option value="" { "any" }
                @for v in verdicts { option value=(v.code()) selected[sel(&q.verdict, v.code())] { (v.name()) } }
            } }
            label { "Language" select name="language" {
                option value="" { "any" }
                @for l in &languages { option value=(l.id) selected[sel(&q.language, &l.id)] { (l.name) } }
            } }
            button type="submit" { "Filter" }
        }
        (super::html::submissions_table(&rows, user.admin, &lang))
        p.pager {
            span.count { (total) " match" @if total != 1 { "es" } }
            @if q.before.is_some() { " " a.newest href={ "/submissions" (q.newest()) } { "← Newest" } }
            " "
            @if more { @if let Some(n) = &next { a.older href=(n) { "Older →" } } }
        }
    };
    Ok(Html(page(title, Some(&user), body)).into_response())
}

/// Test names of a problem, for the rows shown while judging, and whether it has groups.
fn test_names(app: &App, problem: &str) -> (Vec<(String, bool)>, bool) {
    app.catalog()
        .get(problem)
        .map(|e| {
            (
                e.problem
                    .tests
                    .iter()
                    .map(|t| (t.name.clone(), t.sample))
                    .collect(),
                !e.problem.groups.is_empty(),
            )
        })
        .unwrap_or_default()
}

pub async fn submission(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<i64>,
) -> PageResult {
    let user = need_login(user)?;
    let d = visible_submission(&app, id, &user)
        .await
        .map_err(|e| PageError(e, Some(user.clone())))?;
    let v = view::view(&app, d, &user);
    let title = app
        .catalog()
        .get(&v.info.problem)
        .map(|e| e.problem.title.clone())
        .unwrap_or_else(|| v.info.problem.clone());
    let (tests, groups) = test_names(&app, &v.info.problem);
    let body = html! {
        h1 { "Submission " (id) " · " a href={ "/problems/" (v.info.problem) } { (title) } }
        p.meta {
            span { (v.info.user) }
            span { (language_name(&app, &v.info.language)) }
            span { "submitted " (time_el(v.info.queued_at)) }
            @if let Some(j) = &v.info.judge_version { span { "judge " (j) } }
            @if v.info.judged > 1 { span { "judged " (v.info.judged) " times" } }
            @if user.admin { @if let Some(h) = &v.info.judged_by { span #judged-by { "judged by " (h) } } }
        }
        @if user.admin {
            form.inline.rejudge method="post" action={ "/submissions/" (id) "/rejudge" } {
                button #rejudge type="submit" title="Judge it again; the new verdict replaces this one when it is ready, and the rejudging's page shows what changed" { "Rejudge" }
            }
        }
        (super::html::results(&v, &tests, groups))
        h2 { "Source " a.download href={ "/submissions/" (id) "/source" } { "download" } }
        @match &v.source {
            Some(s) => { (super::html::source_listing(s)) }
            None => { p.muted { "A binary of " (v.info.source_bytes) " bytes." } }
        }
    };
    Ok(Html(page(&format!("Submission {id}"), Some(&user), body)).into_response())
}

/// `GET /submissions/{id}/source`: the submitted file, as a download.
pub async fn submission_source(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<i64>,
) -> PageResult {
    let user = need_login(user)?;
    let d = visible_submission(&app, id, &user)
        .await
        .map_err(|e| PageError(e, Some(user.clone())))?;
    let ext = app
        .config
        .languages
        .get(&d.info.language)
        .and_then(|l| l.extensions.first().cloned())
        .unwrap_or_else(|| "bin".into());
    let name = format!("submission-{id}.{ext}");
    Ok((
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        d.source,
    )
        .into_response())
}

/// `POST /submissions/{id}/rejudge` (admins): a rejudging of this submission that applies itself
/// when judged; the browser goes to the rejudging's page (progress, then the verdict diff).
pub async fn rejudge(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<i64>,
) -> PageResult {
    let user = need_login(user)?;
    if !user.admin {
        return Err(PageError(
            AppError::Forbidden("only admins may rejudge".into()),
            Some(user),
        ));
    }
    let started = api::rejudge_now(&app, super::rejudgings::Scope::Submission(id), &user)
        .await
        .map_err(|e| PageError(e, Some(user.clone())))?;
    // The rejudging's page: progress, then the verdict diff once it applied itself.
    Ok(Redirect::to(&format!("/admin/rejudgings/{}", started.id)).into_response())
}

/// The results section alone: what `live.js` swaps in when the judging is done.
pub async fn submission_results(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<i64>,
) -> PageResult {
    let user = need_login(user)?;
    let d = visible_submission(&app, id, &user)
        .await
        .map_err(|e| PageError(e, Some(user.clone())))?;
    let v = view::view(&app, d, &user);
    let (tests, groups) = test_names(&app, &v.info.problem);
    Ok(Html(super::html::results(&v, &tests, groups).into_string()).into_response())
}
