//! The contest pages (maud templates, escaped by default): the contest list, a contest's page
//! with its clock, problems, submit form, announcements and clarifications, and the standings
//! page. Live parts are server-rendered fragments that `contest.js` fetches again every few
//! seconds (`data-live` elements), so no script builds HTML and no inline script is needed.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::Form;
use maud::{html, Markup};
use serde::Deserialize;

use crate::auth::extract::{AdminPage, MaybeUser, Viewer};
use crate::contests::clarifications::{self, AnswerBody, AskBody};
use crate::contests::{self as ct, standings};
use crate::error::AppError;
use crate::html::{error_page, frame};
use crate::submit::{accept, language_views, SubmitForm};
use crate::user::User;
use crate::App;
use ojd_service::contest::model::{format_time, Contest, Phase, Scoring};
use ojd_service::contest::standings::{Cell, Standings};
use ojd_store::contests::Clarification;
use ojd_store::{now_ms, SubmissionInfo};

type PageResult = Result<Response, Response>;

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

pub(crate) async fn list(State(app): State<Arc<App>>, MaybeUser(user): MaybeUser) -> Response {
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

pub(crate) async fn contest(
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
    let languages = language_views(&app);
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
    let list: Vec<Clarification> = clarifications::visible_clarifications(all, user);
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

pub(crate) async fn news_fragment(
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
fn standings_table(c: &Contest, s: &Standings) -> Markup {
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
    let s = app
        .db(move |_| standings::standings(&a, &c2, u2.as_ref()))
        .await?;
    Ok(standings_table(c, &s))
}

pub(crate) async fn standings_page(
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

pub(crate) async fn standings_fragment(
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
pub(crate) struct SubmitFields {
    problem: String,
    #[serde(default)]
    language: Option<String>,
    #[serde(default)]
    source: String,
}

pub(crate) async fn submit(
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
    let sid = accept(&app, &viewer, form)
        .await
        .map_err(fail(Some(&viewer)))?;
    Ok(Redirect::to(&format!("/submissions/{sid}")).into_response())
}

#[derive(Deserialize)]
pub(crate) struct TextFields {
    #[serde(default)]
    problem: Option<String>,
    text: String,
}

pub(crate) async fn ask(
    State(app): State<Arc<App>>,
    Viewer(viewer): Viewer,
    Path(id): Path<String>,
    Form(f): Form<TextFields>,
) -> PageResult {
    let body = AskBody {
        problem: f.problem,
        text: f.text,
    };
    clarifications::ask(&app, &viewer, &id, body)
        .await
        .map_err(fail(Some(&viewer)))?;
    Ok(Redirect::to(&format!("/contests/{id}#news")).into_response())
}

pub(crate) async fn announce(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
    Form(f): Form<TextFields>,
) -> PageResult {
    let body = AskBody {
        problem: f.problem,
        text: f.text,
    };
    clarifications::announce(&app, &id, body)
        .await
        .map_err(fail(Some(&admin)))?;
    Ok(Redirect::to(&format!("/contests/{id}#news")).into_response())
}

#[derive(Deserialize)]
pub(crate) struct AnswerFields {
    answer: String,
    #[serde(default)]
    public: Option<String>,
}

pub(crate) async fn answer(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path((id, cid)): Path<(String, i64)>,
    Form(f): Form<AnswerFields>,
) -> PageResult {
    let body = AnswerBody {
        answer: f.answer,
        public: f.public.is_some(),
    };
    clarifications::answer(&app, &admin, cid, body)
        .await
        .map_err(fail(Some(&admin)))?;
    Ok(Redirect::to(&format!("/contests/{id}#news")).into_response())
}

async fn set_freeze(app: Arc<App>, admin: User, id: String, unfrozen: bool) -> PageResult {
    ct::set_freeze(&app, &id, unfrozen)
        .await
        .map_err(fail(Some(&admin)))?;
    Ok(Redirect::to(&format!("/contests/{id}/standings")).into_response())
}

pub(crate) async fn unfreeze(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
) -> PageResult {
    set_freeze(app, admin, id, true).await
}

pub(crate) async fn freeze(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
) -> PageResult {
    set_freeze(app, admin, id, false).await
}
