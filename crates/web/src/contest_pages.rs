//! The contest pages (maud templates, escaped by default): the contest list, a contest's page
//! with its clock, problems, submit form, announcements and clarifications, and the standings
//! page. Live parts are server-rendered fragments that `contest.js` fetches again every few
//! seconds (`data-live` elements), so no script builds HTML and no inline script is needed.

use std::sync::Arc;

use axum::extract::{FromRequestParts, Path, State};
use axum::http::request::Parts;
use axum::http::{header, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::routing::{get, post};
use axum::{Form, Router};
use maud::{html, Markup};
use serde::Deserialize;

use super::api::{self, SubmitForm};
use super::auth::{MaybeUser, User};
use super::contests::{self as ct, AnswerBody, AskBody};
use super::error::AppError;
use super::App;
use ojd_judge::verdict::Verdict;
use ojd_service::contest::model::{format_time, Contest, Phase, Scoring};
use ojd_service::contest::standings::{Cell, Standings};
use ojd_store::contests::Clarification;
use ojd_store::{now_ms, SubmissionInfo};

const CONTEST_JS: &str = include_str!("assets/contest.js");
const CONTEST_CSS: &str = include_str!("assets/contest.css");

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/contests", get(list))
        .route("/contests/{id}", get(contest))
        .route("/contests/{id}/standings", get(standings_page))
        .route("/contests/{id}/standings/table", get(standings_fragment))
        .route("/contests/{id}/news", get(news_fragment))
        .route("/contests/{id}/submit", post(submit))
        .route("/contests/{id}/ask", post(ask))
        .route("/contests/{id}/announce", post(announce))
        .route("/contests/{id}/answer/{cid}", post(answer))
        .route("/contests/{id}/unfreeze", post(unfreeze))
        .route("/contests/{id}/freeze", post(freeze))
        .route("/contest-static/{file}", get(asset))
}

async fn asset(Path(file): Path<String>) -> Response {
    let (body, kind) = match file.as_str() {
        "contest.js" => (CONTEST_JS, "text/javascript; charset=utf-8"),
        "contest.css" => (CONTEST_CSS, "text/css; charset=utf-8"),
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

/// The site's page frame, with the contest styles and script (a stylesheet link and an
/// external script are valid in the body; no inline script).
pub fn frame(title: &str, user: Option<&User>, body: Markup) -> Response {
    let body = html! {
        link rel="stylesheet" href="/contest-static/contest.css";
        script src="/contest-static/contest.js" defer {}
        (body)
    };
    Html(super::html::page(title, user, body)).into_response()
}

/// An error as a page.
pub fn error_page(e: AppError, user: Option<&User>) -> Response {
    if let AppError::Unauthorized = e {
        return Redirect::to("/login").into_response();
    }
    e.log_if_internal();
    let status = e.status();
    let mut r = frame(
        "Error",
        user,
        html! { h1 { (status) } p.error { (e.message()) } p { a href="/contests" { "Back to the contests" } } },
    );
    *r.status_mut() = status;
    r
}

type PageResult = Result<Response, Response>;

/// A logged-in viewer for a page handler; without a login, the request gets the login page
/// (and a failed login lookup its error page) before the handler runs.
pub struct Viewer(pub User);

impl FromRequestParts<Arc<App>> for Viewer {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Viewer, Response> {
        let MaybeUser(user) = MaybeUser::from_request_parts(parts, app)
            .await
            .map_err(|e| error_page(e, None))?;
        user.map(Viewer)
            .ok_or_else(|| error_page(AppError::Unauthorized, None))
    }
}

/// An admin for a page handler: anyone else gets a 403 page (the login page without a login).
pub struct AdminPage(pub User);

impl FromRequestParts<Arc<App>> for AdminPage {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<AdminPage, Response> {
        let Viewer(user) = Viewer::from_request_parts(parts, app).await?;
        if !user.admin {
            return Err(error_page(
                AppError::Forbidden("this page is for admins".into()),
                Some(&user),
            ));
        }
        Ok(AdminPage(user))
    }
}

fn fail(user: Option<&User>) -> impl Fn(AppError) -> Response + '_ {
    move |e| error_page(e, user)
}

fn phase_text(c: &Contest, phase: Phase) -> &'static str {
    match phase {
        Phase::Before => "not started",
        Phase::Running => "running",
        Phase::Frozen if c.freeze.is_some() => "running (standings frozen)",
        Phase::Frozen => "running",
        Phase::Ended => "ended",
    }
}

/// The clock: `contest.js` counts down from the server's time.
fn clock(c: &Contest) -> Markup {
    let now = now_ms();
    let phase = c.phase(now);
    let text = match phase {
        Phase::Before => format!("Starts in {}", ct::countdown((c.start_ms - now) / 1000)),
        Phase::Running | Phase::Frozen => {
            format!("Ends in {}", ct::countdown((c.end_ms() - now) / 1000))
        }
        Phase::Ended => "The contest is over".to_string(),
    };
    html! {
        div.clock #clock data-now=(now) data-start=(c.start_ms) data-end=(c.end_ms())
            data-freeze=(c.freeze_ms().unwrap_or(0)) data-phase=(format!("{phase:?}").to_lowercase()) {
            strong #clock-text { (text) }
            span.muted {
                " · " (c.start_text()) " – " (format_time(c.end_ms(), c.utc_offset_s))
                " · " (phase_text(c, phase))
            }
        }
    }
}

async fn list(State(app): State<Arc<App>>, MaybeUser(user): MaybeUser) -> Response {
    let loaded = app.contests.get();
    let now = now_ms();
    let body = html! {
        h1 { "Contests" }
        @if loaded.contests.is_empty() { p.muted { "No contest is configured (contests/<id>/contest.toml)." } }
        table.list { thead { tr { th { "Contest" } th { "Scoring" } th { "Start" } th { "Length" } th { "State" } } }
        tbody { @for c in &loaded.contests {
            tr {
                td { a href={ "/contests/" (c.id) } { (c.title) } }
                td { @match c.scoring { Scoring::Icpc => "ICPC", Scoring::Ioi => "IOI" } }
                td { (c.start_text()) }
                td { (ct::countdown(c.duration.as_secs() as i64)) }
                td { (phase_text(c, c.phase(now))) }
            }
        } } }
        @if user.as_ref().is_some_and(|u| u.admin) && !loaded.failed.is_empty() {
            h2 { "Failed to load" }
            @for (folder, e) in &loaded.failed { p { strong { (folder) } } pre { (e) } }
        }
    };
    frame("Contests", user.as_ref(), body)
}

fn verdict_badge(s: &SubmissionInfo) -> Markup {
    match s.verdict {
        Some(v) => html! { span class={ "badge v-" (v.code()) } title=(v.name()) { (v.code()) } },
        None => html! { span.badge.pending { "waiting" } },
    }
}

async fn contest(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> PageResult {
    let u = user.as_ref();
    let c = ct::find(&app, &id).map_err(fail(u))?;
    let problems = ct::problems_for(&app, &c, u);
    let phase = c.phase(now_ms());
    let admin = u.is_some_and(|u| u.admin);
    let mine: Vec<SubmissionInfo> = match u {
        Some(viewer) => {
            let (cid, name) = (c.id.clone(), viewer.name.clone());
            app.db(move |s| s.contest_submissions(&cid))
                .await
                .map_err(fail(u))?
                .into_iter()
                .filter(|s| s.user == name)
                .rev()
                .collect()
        }
        None => Vec::new(),
    };
    let may_submit = u.is_some_and(|v| {
        v.admin || (c.admits(&v.name) && matches!(phase, Phase::Running | Phase::Frozen))
    });
    let languages = api::language_views(&app);
    let body = html! {
        h1 { (c.title) }
        (clock(&c))
        p.meta {
            a href={ "/contests/" (c.id) "/standings" } { "Standings" }
            @if admin {
                a href={ "/api/v1/admin/contests/" (c.id) "/standings.csv" } { "Standings (CSV)" }
                form.inline method="post" action={ "/contests/" (c.id) "/unfreeze" } { button.link { "Unfreeze" } }
                form.inline method="post" action={ "/contests/" (c.id) "/freeze" } { button.link { "Freeze again" } }
            }
        }
        h2 { "Problems" }
        @if problems.is_empty() && phase == Phase::Before {
            p.note #before { "The problems appear when the contest starts, at " (c.start_text()) "." }
        } @else {
            table.list { tbody { @for p in &problems {
                tr { td.label { (p.label) } td { a href={ "/problems/" (p.problem) } { (p.title) } } }
            } } }
        }
        @if may_submit && !problems.is_empty() {
            h2 { "Submit" }
            form.submit method="post" action={ "/contests/" (c.id) "/submit" } {
                label { "Problem" select name="problem" { @for p in &problems { option value=(p.problem) { (p.label) ". " (p.title) } } } }
                label { "Language" select name="language" {
                    option value="auto" { "detect from the code" }
                    @for l in &languages { @if l.available { option value=(l.id) { (l.name) } } }
                } }
                label { "Source" textarea name="source" rows="12" spellcheck="false" required {} }
                button type="submit" { "Submit" }
            }
        } @else if phase == Phase::Ended {
            p.muted { "The contest is over; submissions are closed." }
        }
        @if !mine.is_empty() {
            h2 { "My submissions" }
            table.list { thead { tr { th { "#" } th { "Problem" } th { "Time" } th { "Verdict" } } }
            tbody { @for s in &mine { tr {
                td { a href={ "/submissions/" (s.id) } { (s.id) } }
                td { (c.label_of(&s.problem).unwrap_or("?")) }
                td { (format_time(s.queued_at, c.utc_offset_s)) }
                td { (verdict_badge(s)) }
            } } } }
        }
        h2 { "Announcements and clarifications" }
        div #news data-live={ "/contests/" (c.id) "/news" } { (news(&app, &c, u).await.map_err(fail(u))?) }
        @if u.is_some() && !admin && phase != Phase::Ended {
            h3 { "Ask a question" }
            form.submit method="post" action={ "/contests/" (c.id) "/ask" } {
                label { "About" select name="problem" { option value="" { "the contest in general" }
                    @for p in &problems { option value=(p.problem) { (p.label) ". " (p.title) } } } }
                label { "Question" textarea name="text" rows="3" required {} }
                button type="submit" { "Ask" }
            }
        }
        @if admin {
            h3 { "Announce to everyone" }
            form.submit method="post" action={ "/contests/" (c.id) "/announce" } {
                label { "Announcement" textarea name="text" rows="3" required {} }
                button type="submit" { "Announce" }
            }
        }
    };
    Ok(frame(&c.title, u, body))
}

/// Announcements and clarifications the viewer may read (a live fragment).
async fn news(app: &Arc<App>, c: &Contest, user: Option<&User>) -> Result<Markup, AppError> {
    let cid = c.id.clone();
    let all = app.db(move |s| s.clarifications(&cid)).await?;
    let list: Vec<Clarification> = ct::visible_clarifications(all, user);
    let admin = user.is_some_and(|u| u.admin);
    Ok(html! {
        @if list.is_empty() { p.muted { "Nothing yet." } }
        @for q in &list {
            div class={ "clar" @if q.user.is_none() { " announcement" } } {
                div.meta {
                    @match &q.user { None => strong { "Announcement" }, Some(u) => span { "Question from " strong { (u) } } }
                    span { (format_time(q.at, c.utc_offset_s)) }
                    @if let Some(p) = &q.problem { span.tag { (c.label_of(p).unwrap_or(p)) } }
                    @if q.user.is_some() { span.tag { @if q.public { "answered to all" } @else if q.answer.is_some() { "answered privately" } @else { "waiting for an answer" } } }
                }
                p.text { (q.text) }
                @if let Some(a) = &q.answer { p.answer { strong { "Answer: " } (a) } }
                @if admin && q.user.is_some() && q.answer.is_none() {
                    form.answer method="post" action={ "/contests/" (c.id) "/answer/" (q.id) } {
                        textarea name="answer" rows="2" required {}
                        label.check { input type="checkbox" name="public" value="true"; " send to everyone" }
                        button type="submit" { "Answer" }
                    }
                }
            }
        }
    })
}

async fn news_fragment(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> PageResult {
    let u = user.as_ref();
    let c = ct::find(&app, &id).map_err(fail(u))?;
    let m = news(&app, &c, u).await.map_err(fail(u))?;
    Ok(Html(m.into_string()).into_response())
}

fn cell_markup(scoring: Scoring, cell: &Cell) -> Markup {
    let pending = (cell.pending > 0).then(|| format!("?{}", cell.pending));
    let class = match scoring {
        Scoring::Icpc if cell.first_solve => "first",
        Scoring::Icpc if cell.solved => "solved",
        Scoring::Icpc if cell.pending > 0 => "pending",
        Scoring::Icpc if cell.tries > 0 => "failed",
        Scoring::Ioi if cell.score == Some(100) => "solved",
        Scoring::Ioi if cell.score.is_some_and(|s| s > 0) => "partial",
        Scoring::Ioi if cell.pending > 0 => "pending",
        Scoring::Ioi if cell.tries > 0 => "failed",
        _ => "",
    };
    html! {
        td class={ "cell " (class) } {
            @match scoring {
                Scoring::Icpc => {
                    @if cell.solved {
                        span.main { "+" @if cell.tries > 0 { (cell.tries) } }
                        span.sub { (cell.minute.unwrap_or(0)) }
                    } @else if cell.tries > 0 { span.main { "-" (cell.tries) } }
                }
                Scoring::Ioi => { @if let Some(s) = cell.score { span.main { (s) } } }
            }
            @if let Some(p) = pending { span.pend { (p) } }
        }
    }
}

/// The standings table (page and live fragment).
pub fn standings_table(c: &Contest, s: &Standings) -> Markup {
    html! {
        @if s.frozen { p.note { "The standings are frozen: attempts after "
            (format_time(c.freeze_ms().unwrap_or(0), c.utc_offset_s)) " show as ?." } }
        div.scroll { table.standings {
            thead { tr {
                th { "#" } th { "User" }
                @match s.scoring { Scoring::Icpc => { th { "Solved" } th { "Penalty" } }, Scoring::Ioi => { th { "Score" } } }
                @for p in &s.problems { th.cell title=(p.problem) { (p.label) br; span.sub { (p.solved) } } }
            } }
            tbody { @for r in &s.rows { tr data-user=(r.user) {
                td.num { (r.rank) } td.user { (r.user) }
                @match s.scoring {
                    Scoring::Icpc => { td.num { (r.solved) } td.num { (r.penalty) } },
                    Scoring::Ioi => { td.num { (r.score) } },
                }
                @for cell in &r.cells { (cell_markup(s.scoring, cell)) }
            } } }
        } }
        @if s.rows.is_empty() { p.muted { "No one on the standings yet." } }
    }
}

async fn standings_markup(
    app: &Arc<App>,
    c: &Arc<Contest>,
    user: Option<&User>,
) -> Result<Markup, AppError> {
    let (a, c2, u2) = (app.clone(), c.clone(), user.cloned());
    let s = app.db(move |_| ct::standings(&a, &c2, u2.as_ref())).await?;
    Ok(standings_table(c, &s))
}

async fn standings_page(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> PageResult {
    let u = user.as_ref();
    let c = ct::find(&app, &id).map_err(fail(u))?;
    let table = standings_markup(&app, &c, u).await.map_err(fail(u))?;
    let body = html! {
        h1 { "Standings: " a href={ "/contests/" (c.id) } { (c.title) } }
        (clock(&c))
        div #standings data-live={ "/contests/" (c.id) "/standings/table" } { (table) }
    };
    Ok(frame(&format!("Standings · {}", c.title), u, body))
}

async fn standings_fragment(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> PageResult {
    let u = user.as_ref();
    let c = ct::find(&app, &id).map_err(fail(u))?;
    let m = standings_markup(&app, &c, u).await.map_err(fail(u))?;
    Ok(Html(m.into_string()).into_response())
}

#[derive(Deserialize)]
struct SubmitFields {
    problem: String,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    source: String,
}

async fn submit(
    State(app): State<Arc<App>>,
    Viewer(viewer): Viewer,
    Path(id): Path<String>,
    Form(f): Form<SubmitFields>,
) -> PageResult {
    let form = SubmitForm {
        problem: f.problem,
        language: f.language,
        source: f.source,
        contest: Some(id),
        ..Default::default()
    };
    let sid = api::accept(&app, &viewer, form)
        .await
        .map_err(fail(Some(&viewer)))?;
    Ok(Redirect::to(&format!("/submissions/{sid}")).into_response())
}

#[derive(Deserialize)]
struct TextFields {
    #[serde(default)]
    problem: Option<String>,
    text: String,
}

async fn ask(
    State(app): State<Arc<App>>,
    Viewer(viewer): Viewer,
    Path(id): Path<String>,
    Form(f): Form<TextFields>,
) -> PageResult {
    let body = AskBody {
        problem: f.problem,
        text: f.text,
    };
    ct::ask_inner(&app, &viewer, &id, body)
        .await
        .map_err(fail(Some(&viewer)))?;
    Ok(Redirect::to(&format!("/contests/{id}#news")).into_response())
}

async fn announce(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
    Form(f): Form<TextFields>,
) -> PageResult {
    let body = AskBody {
        problem: f.problem,
        text: f.text,
    };
    ct::announce_inner(&app, &id, body)
        .await
        .map_err(fail(Some(&admin)))?;
    Ok(Redirect::to(&format!("/contests/{id}#news")).into_response())
}

#[derive(Deserialize)]
struct AnswerFields {
    answer: String,
    #[serde(default)]
    public: Option<String>,
}

async fn answer(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path((id, cid)): Path<(String, i64)>,
    Form(f): Form<AnswerFields>,
) -> PageResult {
    let body = AnswerBody {
        answer: f.answer,
        public: f.public.is_some(),
    };
    ct::answer_inner(&app, &admin, cid, body)
        .await
        .map_err(fail(Some(&admin)))?;
    Ok(Redirect::to(&format!("/contests/{id}#news")).into_response())
}

async fn set_freeze(app: Arc<App>, admin: User, id: String, unfrozen: bool) -> PageResult {
    ct::set_freeze_inner(&app, &id, unfrozen)
        .await
        .map_err(fail(Some(&admin)))?;
    Ok(Redirect::to(&format!("/contests/{id}/standings")).into_response())
}

async fn unfreeze(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
) -> PageResult {
    set_freeze(app, admin, id, true).await
}

async fn freeze(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
) -> PageResult {
    set_freeze(app, admin, id, false).await
}

/// A verdict with its score and time, for the rejudging pages.
pub fn outcome_markup(o: Option<&ojd_service::contest::rejudging::Outcome>) -> Markup {
    match o {
        Some(o) => html! {
            span class={ "badge v-" (o.verdict.code()) } title=(o.verdict.name()) { (o.verdict.code()) }
            " " span.muted { (o.score) " · " (o.max_cpu_ms) " ms" }
        },
        None => html! { span.badge.pending { "—" } },
    }
}

/// A verdict code as a badge.
pub fn verdict_code(v: Option<Verdict>) -> Markup {
    match v {
        Some(v) => html! { span class={ "badge v-" (v.code()) } { (v.code()) } },
        None => html! { span.badge.pending { "—" } },
    }
}
