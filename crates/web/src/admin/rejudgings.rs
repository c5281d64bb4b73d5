//! The admin's rejudging pages: the list with a form to start one, and one rejudging's page
//! (progress, counts per transition, the before → after table, who moves on the standings,
//! the per-test changes of a chosen submission, and the Apply / Cancel buttons). The body is a
//! live fragment while the rejudging judges.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::Form;
use maud::{html, Markup};
use serde::Deserialize;

use crate::auth::extract::AdminPage;
use crate::error::AppError;
use crate::html::{error_page, frame};
use crate::rejudgings::{self, Report};
use crate::text::urlencode;
use crate::user::User;
use crate::App;
use ojd_judge::Verdict;
use ojd_service::contest::rejudging::Outcome;
use ojd_service::contest::standings::points_text;
use ojd_service::contest::Scoring;
use ojd_service::RejudgingState;

type PageResult = Result<Response, Response>;

pub(crate) async fn list(State(app): State<Arc<App>>, AdminPage(admin): AdminPage) -> PageResult {
    let u = &admin;
    let all = app
        .node
        .rejudgings()
        .await
        .map_err(|e| error_page(e.into(), Some(u)))?;
    let catalog = app.node.catalog();
    let contests = app.contests.get();
    let body = html! {
        h1 { "Rejudgings" }
        p.muted { "A rejudging judges submissions again without changing what students see; "
            "review the verdict diff, then apply it (the new verdicts become current at once) or cancel it." }
        h2 { "Start a rejudging" }
        form.submit.rejudge method="post" action="/admin/rejudgings" {
            label { "Submission id" input type="number" name="submission" min="1"; }
            label { "Problem" select name="problem" { option value="" { "any" }
                @for id in catalog.problems.keys() { option value=(id) { (id) } } } }
            label { "Contest" select name="contest" { option value="" { "any" }
                @for c in &contests.contests { option value=(c.id) { (c.title) } } } }
            label { "Current verdict" select name="verdict" { option value="" { "any" }
                @for v in Verdict::ALL { option value=(v.code()) { (v.code()) " " (v.name()) } } } }
            label { "Language" input type="text" name="language" placeholder="any (e.g. cpp)"; }
            label.check { input type="checkbox" name="auto_apply" value="1"; " apply by itself when judged" }
            button type="submit" { "Rejudge" }
        }
        h2 { "All rejudgings" }
        table.list { thead { tr { th { "#" } th { "Scope" } th { "By" } th { "Progress" } th { "State" } } }
        tbody { @for r in &all { tr {
            td { a href={ "/admin/rejudgings/" (r.id) } { (r.id) } }
            td.scope { (scope_text(&r.scope)) }
            td { (r.created_by) }
            td.num { (r.judged) " / " (r.total) }
            td { (r.state.as_str()) @if r.auto_apply { " (auto)" } }
        } } } }
    };
    Ok(frame("Rejudgings", Some(u), body))
}

#[derive(Deserialize)]
pub(crate) struct CreateFields {
    #[serde(default)]
    submission: String,
    #[serde(default)]
    problem: String,
    #[serde(default)]
    contest: String,
    #[serde(default)]
    verdict: String,
    #[serde(default)]
    language: String,
    /// A checkbox: present when ticked.
    #[serde(default)]
    auto_apply: Option<String>,
}

pub(crate) async fn create(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Form(f): Form<CreateFields>,
) -> PageResult {
    let u = &admin;
    let some = |s: String| (!s.trim().is_empty()).then(|| s.trim().to_string());
    let submission = match some(f.submission) {
        None => None,
        Some(s) => Some(s.parse::<i64>().map_err(|_| {
            error_page(
                AppError::BadRequest(format!("submission id {s:?} is not a number")),
                Some(u),
            )
        })?),
    };
    let req = rejudgings::Request {
        submission,
        problem: some(f.problem),
        contest: some(f.contest),
        verdict: some(f.verdict),
        language: some(f.language),
        auto_apply: f.auto_apply.is_some(),
        ..Default::default()
    };
    let (id, _) = rejudgings::start(&app, &u.name, req)
        .await
        .map_err(|e| error_page(e, Some(u)))?;
    Ok(Redirect::to(&format!("/admin/rejudgings/{id}")).into_response())
}

#[derive(Deserialize, Default)]
pub(crate) struct ShowQuery {
    submission: Option<i64>,
    error: Option<String>,
}

async fn report_of(app: &Arc<App>, id: i64, u: &User) -> Result<Report, Response> {
    rejudgings::report(app, id)
        .await
        .map_err(|e| error_page(e, Some(u)))?
        .ok_or_else(|| error_page(AppError::NotFound(format!("no rejudging {id}")), Some(u)))
}

fn body(r: &Report, tests: Option<(i64, Markup)>, error: Option<&str>) -> Markup {
    let open = r.info.state == RejudgingState::Open;
    let done = r.info.judged == r.info.total;
    html! {
        @if let Some(e) = error { p.error { (e) } }
        p.summary {
            span #progress { (r.info.judged) " of " (r.info.total) " judged again" }
            span { (r.diff.changed) " changed" }
            span #state { "state: " strong { (r.info.state.as_str()) } }
        }
        @if !r.diff.summary.is_empty() {
            p.transitions { @for t in &r.diff.summary {
                span class={ "transition" @if t.from != Some(t.to) { " changed" } } {
                    (t.label()) " " strong { (t.count) }
                }
            } }
        }
        @if open {
            div.actions {
                @if done {
                    form.inline method="post" action={ "/admin/rejudgings/" (r.info.id) "/apply" }
                        data-confirm="Apply the rejudging? Every new verdict becomes current at once, and the standings move." {
                        button type="submit" #apply { "Apply: make the new verdicts current" } }
                } @else if r.info.auto_apply {
                    span.muted { "Applies itself when every submission is judged." }
                } @else { span.muted { "Apply becomes possible when every submission is judged." } }
                " "
                form.inline method="post" action={ "/admin/rejudgings/" (r.info.id) "/cancel" }
                    data-confirm="Cancel the rejudging? Its new judgings are discarded." {
                    button type="submit" .secondary #cancel { "Cancel" } }
            }
        }
        @for e in &r.standings {
            h2 { "Standings: " (e.title) }
            @if e.moves.is_empty() { p.muted { "Nobody moves." } } @else {
                table.list.moves { thead { tr { th { "Team" } th { "Rank" }
                    @match e.scoring { Scoring::Icpc => { th { "Solved" } th { "Penalty" } }, Scoring::Ioi => { th { "Score" } } } } }
                tbody { @for m in &e.moves { tr {
                    td title=(m.user) { (m.name.as_deref().unwrap_or(&m.user)) }
                    td.num { (m.rank_before.map(|r| r.to_string()).unwrap_or_default()) " → " (m.rank_after.map(|r| r.to_string()).unwrap_or_default()) }
                    @match e.scoring {
                        Scoring::Icpc => { td.num { (m.solved_before) " → " (m.solved_after) } td.num { (m.penalty_before) " → " (m.penalty_after) } },
                        Scoring::Ioi => { td.num { (points_text(m.score_milli_before)) " → " (points_text(m.score_milli_after)) } },
                    }
                } } } }
            }
        }
        h2 { "Submissions" }
        div.scroll { table.list.changes #changes { thead { tr { th { "#" } th { "User" } th { "Problem" } th { "Before" } th { "After" } th {} } }
        tbody { @for c in &r.diff.changes { tr class=[c.changed.then_some("changed")] {
            td { a href={ "/admin/rejudgings/" (r.info.id) "?submission=" (c.submission) "#tests" } { (c.submission) } }
            td { (c.user) } td { (c.problem) }
            td { (outcome_markup(c.before.as_ref())) }
            td { (outcome_markup(c.after.as_ref())) }
            td { @if c.changed { strong { "changed" } } }
        } } } } }
        @if r.info.judged < r.info.total { p.muted { (r.info.total - r.info.judged) " still waiting to be judged." } }
        @if let Some((sid, t)) = tests { h2 #tests { "Tests of submission " (sid) } (t) }
    }
}

async fn tests_markup(app: &Arc<App>, id: i64, sid: i64, u: &User) -> Result<Markup, Response> {
    let changes = rejudgings::tests_of(app, id, sid)
        .await
        .map_err(|e| error_page(e, Some(u)))?
        .unwrap_or_default();
    Ok(html! {
        div.scroll { table.list.tests { thead { tr { th { "Test" } th { "Before" } th { "After" } th { "Message now" } } }
        tbody { @for t in &changes { tr class=[t.changed.then_some("changed")] {
            td { (t.name) }
            td { (verdict_code(t.before.as_ref().map(|b| b.verdict))) " " span.muted { (t.before.as_ref().map(|b| format!("{} ms", b.cpu_ms)).unwrap_or_default()) } }
            td { (verdict_code(t.after.as_ref().map(|b| b.verdict))) " " span.muted { (t.after.as_ref().map(|b| format!("{} ms", b.cpu_ms)).unwrap_or_default()) } }
            td.msg { (t.after.as_ref().map(|b| b.message.as_str()).unwrap_or("")) }
        } } } } }
    })
}

pub(crate) async fn show(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<i64>,
    Query(q): Query<ShowQuery>,
) -> PageResult {
    let u = &admin;
    let r = report_of(&app, id, u).await?;
    let tests = match q.submission {
        Some(sid) => Some((sid, tests_markup(&app, id, sid, u).await?)),
        None => None,
    };
    let live = r.info.state == RejudgingState::Open && r.info.judged < r.info.total;
    let page = html! {
        h1 { "Rejudging " (r.info.id) }
        p.meta { span { "by " (r.info.created_by) } span.scope { (scope_text(&r.info.scope)) } a href="/admin/rejudgings" { "all rejudgings" } }
        @if live {
            div #rejudging data-live={ "/admin/rejudgings/" (id) "/body" } { (body(&r, tests, q.error.as_deref())) }
        } @else {
            div #rejudging { (body(&r, tests, q.error.as_deref())) }
        }
    };
    Ok(frame(&format!("Rejudging {id}"), Some(u), page))
}

pub(crate) async fn body_fragment(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<i64>,
) -> PageResult {
    let r = report_of(&app, id, &admin).await?;
    Ok(Html(body(&r, None, None).into_string()).into_response())
}

async fn close(app: Arc<App>, admin: User, id: i64, apply: bool) -> PageResult {
    let u = &admin;
    let r = rejudgings::close(&app, id, &u.name, apply)
        .await
        .map_err(|e| error_page(e, Some(u)))?;
    let to = match r {
        Ok(_) => format!("/admin/rejudgings/{id}"),
        Err(m) => format!(
            "/admin/rejudgings/{id}?error={}",
            urlencode(&format!("refused: {m}"))
        ),
    };
    Ok(Redirect::to(&to).into_response())
}

pub(crate) async fn apply(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<i64>,
) -> PageResult {
    close(app, admin, id, true).await
}

pub(crate) async fn cancel(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<i64>,
) -> PageResult {
    close(app, admin, id, false).await
}

/// A verdict with its score and time.
fn outcome_markup(o: Option<&Outcome>) -> Markup {
    match o {
        Some(o) => html! {
            span class={ "badge v-" (o.verdict.code()) } title=(o.verdict.name()) { (o.verdict.code()) }
            " " span.muted { (points_text(o.score_milli)) " · " (o.max_cpu_ms) " ms" }
        },
        None => html! { span.badge.pending { "—" } },
    }
}

/// A verdict code as a badge.
fn verdict_code(v: Option<Verdict>) -> Markup {
    match v {
        Some(v) => html! { span class={ "badge v-" (v.code()) } { (v.code()) } },
        None => html! { span.badge.pending { "—" } },
    }
}

/// A rejudging's scope in words ("contest live, problem aplusb, verdict WA"), not its JSON.
pub(crate) fn scope_text(scope: &str) -> String {
    let Ok(serde_json::Value::Object(m)) = serde_json::from_str::<serde_json::Value>(scope) else {
        return scope.to_string();
    };
    let time = |v: &serde_json::Value| {
        v.as_i64()
            .map(|ms| ojd_service::contest::format_time(ms, 0))
            .unwrap_or_else(|| v.to_string())
    };
    let parts: Vec<String> = m
        .iter()
        .map(|(k, v)| {
            let text = v
                .as_str()
                .map(str::to_string)
                .unwrap_or_else(|| v.to_string());
            match k.as_str() {
                "submission" => format!("submission {text}"),
                "from_ms" => format!("submitted from {}", time(v)),
                "to_ms" => format!("submitted before {}", time(v)),
                other => format!("{other} {text}"),
            }
        })
        .collect();
    if parts.is_empty() {
        "everything".into()
    } else {
        parts.join(", ")
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn scopes_read_as_words() {
        assert_eq!(
            super::scope_text(r#"{"problem":"sokoban","contest":"example","verdict":"WA"}"#),
            "contest example, problem sokoban, verdict WA"
        );
        assert_eq!(super::scope_text(r#"{"submission":12}"#), "submission 12");
        assert_eq!(super::scope_text("not json"), "not json");
    }
}
