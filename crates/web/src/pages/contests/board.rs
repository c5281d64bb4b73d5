//! The standings page and its live fragment (a filter by category, affiliation or name), the
//! awards under a finalized contest's standings, and the balloons page (admins).

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::response::{Html, IntoResponse, Redirect};
use axum::Form;
use maud::{html, Markup};
use serde::Deserialize;

use super::{clock, fail, freeze_of, swatch, PageResult};
use crate::auth::extract::{AdminPage, MaybeUser};
use crate::contests as ct;
use crate::error::AppError;
use crate::html::frame;
use crate::text::urlencode;
use crate::user::User;
use crate::App;
use ojd_service::contest::standings::{points_text, Cell, Standings};
use ojd_service::contest::{format_time, Contest, Phase, Scoring};
use ojd_service::now_ms;

fn cell_markup(scoring: Scoring, cell: &Cell) -> Markup {
    let pending = (cell.pending > 0).then(|| format!("?{}", cell.pending));
    let class = match scoring {
        Scoring::Icpc if cell.first_solve => "first",
        Scoring::Icpc if cell.solved => "solved",
        Scoring::Icpc if cell.pending > 0 => "pending",
        Scoring::Icpc if cell.tries > 0 => "failed",
        Scoring::Ioi if cell.score_milli == Some(100_000) => "solved",
        Scoring::Ioi if cell.score_milli.is_some_and(|s| s > 0) => "partial",
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
                Scoring::Ioi => { @if let Some(s) = cell.score_milli { span.main { (points_text(s)) } } }
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
                th { "#" } th { "Team" }
                @match s.scoring { Scoring::Icpc => { th { "Solved" } th { "Penalty" } }, Scoring::Ioi => { th { "Score" } } }
                @for p in &s.problems { th.cell title=(p.problem) { (p.label) br; span.sub { (p.solved) } } }
            } }
            tbody { @for r in &s.rows { tr data-user=(r.user) {
                td.num { (r.rank) }
                td.user title=[(!r.members.is_empty()).then(|| r.members.join(", "))] { @match &r.name { Some(n) => { (n) }, None => { (r.user) } }
                    @if let Some(a) = &r.affiliation { br; span.sub.affiliation { (a) } } }
                @match s.scoring {
                    Scoring::Icpc => { td.num { (r.solved) } td.num { (r.penalty) } },
                    Scoring::Ioi => { td.num { (points_text(r.score_milli)) } },
                }
                @for cell in &r.cells { (cell_markup(s.scoring, cell)) }
            } } }
        } }
        @if s.rows.is_empty() { p.muted { "No one on the standings yet." } }
    }
}

/// The standings' filters (DOMjudge's scoreboard filter): only the teams of one affiliation
/// and/or one group, each keeping its rank in the whole table.
#[derive(Deserialize, Default)]
pub(crate) struct StandingsFilter {
    affiliation: Option<String>,
    group: Option<String>,
}

impl StandingsFilter {
    fn set(v: &Option<String>) -> Option<&str> {
        v.as_deref().map(str::trim).filter(|v| !v.is_empty())
    }

    /// The query string that repeats this filter ("" when none).
    fn query(&self) -> String {
        let mut q = Vec::new();
        if let Some(a) = Self::set(&self.affiliation) {
            q.push(format!("affiliation={}", urlencode(a)));
        }
        if let Some(g) = Self::set(&self.group) {
            q.push(format!("group={}", urlencode(g)));
        }
        if q.is_empty() {
            String::new()
        } else {
            format!("?{}", q.join("&"))
        }
    }

    fn keep(&self, c: &Contest, user: &str) -> bool {
        let team = c.team(user);
        let is = |want: Option<&str>, have: Option<&String>| {
            want.is_none_or(|w| have.is_some_and(|h| h == w))
        };
        is(
            Self::set(&self.affiliation),
            team.and_then(|t| t.affiliation.as_ref()),
        ) && is(Self::set(&self.group), team.and_then(|t| t.group.as_ref()))
    }

    /// The filter's form: the contest's affiliations and groups (none: no form).
    fn form(&self, c: &Contest) -> Markup {
        let mut affiliations: Vec<&str> = c
            .teams
            .iter()
            .filter_map(|t| t.affiliation.as_deref())
            .collect();
        let mut groups: Vec<&str> = c.teams.iter().filter_map(|t| t.group.as_deref()).collect();
        for l in [&mut affiliations, &mut groups] {
            l.sort_unstable();
            l.dedup();
        }
        let (a, g) = (Self::set(&self.affiliation), Self::set(&self.group));
        html! {
            @if !affiliations.is_empty() || !groups.is_empty() {
                form.inline.filter #standings-filter method="get" action={ "/contests/" (c.id) "/standings" } {
                    @if !affiliations.is_empty() {
                        label { "Affiliation " select name="affiliation" #filter-affiliation {
                            option value="" { "all" }
                            @for x in &affiliations { option value=(x) selected[a == Some(*x)] { (x) } }
                        } }
                    }
                    @if !groups.is_empty() {
                        label { "Group " select name="group" #filter-group {
                            option value="" { "all" }
                            @for x in &groups { option value=(x) selected[g == Some(*x)] { (x) } }
                        } }
                    }
                    button type="submit" { "Filter" }
                }
            }
        }
    }
}

async fn standings_markup(
    app: &Arc<App>,
    c: &Arc<Contest>,
    user: Option<&User>,
    filter: &StandingsFilter,
) -> Result<Markup, AppError> {
    let mut s = app.node.standings(c.clone(), User::viewer(user)).await?;
    s.rows.retain(|r| filter.keep(c, &r.user));
    Ok(standings_table(c, &s))
}

pub(crate) async fn standings_page(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
    Query(filter): Query<StandingsFilter>,
) -> PageResult {
    let u = user.as_ref();
    let c = ct::find(&app, &id).map_err(fail(u))?;
    let table = standings_markup(&app, &c, u, &filter)
        .await
        .map_err(fail(u))?;
    let fs = freeze_of(&app, &c).await.map_err(fail(u))?;
    let awards = if ct::results::visible(&c, u) && c.phase(now_ms()) == Phase::Ended {
        let (s, list) = ct::results::results(&app, &c).await.map_err(fail(u))?;
        Some(awards_markup(&c, &s, &list))
    } else {
        None
    };
    let body = html! {
        h1 { "Standings: " a href={ "/contests/" (c.id) } { (c.title) } }
        (clock(&c, &fs))
        @if let Some(a) = awards { (a) }
        (filter.form(&c))
        div #standings data-live={ "/contests/" (c.id) "/standings/table" (filter.query()) } { (table) }
    };
    Ok(frame(&format!("Standings · {}", c.title), u, body))
}

/// The awards and the results downloads (final, or an admin's preview before).
fn awards_markup(
    c: &Contest,
    s: &Standings,
    list: &[ojd_service::contest::awards::Award],
) -> Markup {
    let name = |user: &str| {
        s.row(user)
            .and_then(|r| r.name.clone())
            .unwrap_or_else(|| user.to_string())
    };
    let base = format!("/api/v1/contests/{}", c.id);
    html! {
        section #awards {
            h2 { "Awards" }
            @if c.finalized_ms.is_none() {
                p.note #awards-preview { "A preview for the jury: the results are not final until the contest is finalized; nobody else sees them yet." }
            }
            @if list.iter().all(|a| a.users.is_empty()) { p.muted { "No awards: nobody solved anything." } }
            @else {
                table.list { tbody { @for a in list.iter().filter(|a| !a.users.is_empty()) {
                    tr data-award=(a.id) {
                        td { @if let Some(m) = a.id.strip_suffix("-medal") { span class={ "medal " (m) } { "● " } } (a.citation) }
                        td { @for (i, u) in a.users.iter().enumerate() { @if i > 0 { ", " } (name(u)) } }
                    }
                } } }
            }
            p.meta {
                a href={ (base) "/results.tsv" } { "results.tsv" }
                a href={ (base) "/results.csv" } { "Results (CSV)" }
                a href={ (base) "/awards.json" } { "awards.json" }
            }
        }
    }
}

/// `GET /contests/{id}/balloons` (admins): the balloon queue, waiting ones first, each with a
/// "Delivered" button; delivered ones below with who and when, and "Undo".
pub(crate) async fn balloons_page(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
) -> PageResult {
    let u = Some(&admin);
    let c = ct::find(&app, &id).map_err(fail(u))?;
    let list = ct::balloons::list(&app, &c).await.map_err(fail(u))?;
    let (waiting, done): (Vec<_>, Vec<_>) = list.iter().partition(|b| b.done_at.is_none());
    let action = format!("/contests/{}/balloons", c.id);
    let row = |b: &ct::balloons::Balloon, deliver: bool| {
        html! {
            tr data-balloon={ (b.user) "/" (b.label) } {
                td.label data-color=[b.color.as_deref()] { (b.label) (swatch(&c, &b.problem)) @if let Some(rgb) = &b.color { " " span.sub { (rgb) } }
                    @if b.first { " " span.badge.first title="first to solve this problem" { "first" } } }
                td { (b.team) @if let Some(a) = &b.affiliation { br; span.sub { (a) } } }
                td { (format_time(b.at, c.utc_offset_s)) " · " a href={ "/submissions/" (b.submission) } { "#" (b.submission) } }
                td {
                    @if let (Some(by), Some(at)) = (&b.done_by, b.done_at) { span.sub { "by " (by) " at " (format_time(at, c.utc_offset_s)) } " " }
                    form.inline method="post" action=(action) {
                        input type="hidden" name="user" value=(b.user);
                        input type="hidden" name="problem" value=(b.problem);
                        input type="hidden" name="done" value=(if deliver { "1" } else { "0" });
                        @if deliver { button.deliver type="submit" { "Delivered" } }
                        @else { button.undo type="submit" { "Undo" } }
                    }
                }
            }
        }
    };
    let body = html! {
        h1 { "Balloons: " a href={ "/contests/" (c.id) } { (c.title) } }
        p.muted { "Every team's first accepted submission of each problem, oldest first; the freeze hides nothing here. The jury's and ignored submissions get none." }
        h2 { "To deliver (" (waiting.len()) ")" }
        @if waiting.is_empty() { p.muted #no-balloons { "Nothing to deliver." } }
        @else { div.scroll { table.list #balloons-waiting { thead { tr { th { "Problem" } th { "Team" } th { "Solved" } th { "" } } }
            tbody { @for b in &waiting { (row(b, true)) } } } } }
        h2 { "Delivered (" (done.len()) ")" }
        @if !done.is_empty() { div.scroll { table.list #balloons-done { thead { tr { th { "Problem" } th { "Team" } th { "Solved" } th { "" } } }
            tbody { @for b in &done { (row(b, false)) } } } } }
    };
    Ok(frame(&format!("Balloons · {}", c.title), u, body))
}

#[derive(Deserialize)]
pub(crate) struct BalloonForm {
    user: String,
    problem: String,
    done: String,
}

/// `POST /contests/{id}/balloons` (admins): marks a balloon delivered (or undoes it), then
/// back to the queue.
pub(crate) async fn mark_balloon(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
    Form(f): Form<BalloonForm>,
) -> PageResult {
    ct::balloons::mark(&app, &admin, &id, &f.user, &f.problem, f.done == "1")
        .await
        .map_err(fail(Some(&admin)))?;
    Ok(Redirect::to(&format!("/contests/{}/balloons", urlencode(&id))).into_response())
}

pub(crate) async fn standings_fragment(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
    Query(filter): Query<StandingsFilter>,
) -> PageResult {
    let u = user.as_ref();
    let c = ct::find(&app, &id).map_err(fail(u))?;
    let m = standings_markup(&app, &c, u, &filter)
        .await
        .map_err(fail(u))?;
    Ok(Html(m.into_string()).into_response())
}
