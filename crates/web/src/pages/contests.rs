//! The contest pages (maud templates, escaped by default): the contest list, a contest's page
//! with its clock, problems, submit form, announcements and clarifications, the clock and
//! freeze controls and the audit log; the standings, awards and balloons pages are in
//! [`board`], the teams pages in [`teams`]. Live parts are server-rendered fragments that
//! `contest.js` fetches again every few seconds (`data-live` elements), so no script builds
//! HTML and no inline script is needed.

use std::sync::Arc;

use axum::extract::{Multipart, Path, Query, State};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::Form;
use maud::{html, Markup};
use serde::Deserialize;

use crate::auth::extract::{AdminPage, MaybeUser, Viewer};
use crate::contests as ct;
use crate::contests::clarifications::{self, AnswerBody, AskBody};
use crate::error::AppError;
use crate::html::{error_page, frame};
use crate::security::Draft;
use crate::submit::{accept, language_views, read_multipart, SubmitForm};
use crate::text::urlencode;
use crate::user::User;
use crate::App;
use ojd_service::contest::{format_time, Category, Contest, Phase, Scoring};
use ojd_service::{now_ms, Clarification, SubmissionInfo};

mod board;
mod teams;

pub(crate) use board::{balloons_page, mark_balloon, standings_fragment, standings_page};
pub(crate) use teams::{import_teams, print_links, remove_team, save_team, teams_page};

type PageResult = Result<Response, Response>;

fn fail(user: Option<&User>) -> impl Fn(AppError) -> Response + '_ {
    move |e| error_page(e, user)
}

/// The phase in words, with the freeze's one truth ([`ct::FreezeState`]).
fn phase_text(c: &Contest, phase: Phase, fs: &ct::FreezeState) -> String {
    let at = |ms: i64| format_time(ms, c.utc_offset_s);
    let unfrozen = || match (&fs.changed_by, fs.changed_at) {
        (Some(by), Some(t)) => format!("standings unfrozen at {} by {by}", at(t)),
        (None, Some(t)) => format!("standings unfrozen at {}", at(t)),
        _ => "standings unfrozen".to_string(),
    };
    match phase {
        Phase::Before => "not started".into(),
        Phase::Running => "running".into(),
        Phase::Frozen if fs.frozen => format!(
            "running (standings frozen since {})",
            at(fs.freeze_ms.unwrap_or(0))
        ),
        Phase::Frozen if fs.unfrozen => format!("running ({})", unfrozen()),
        Phase::Frozen => "running".into(),
        Phase::Ended if fs.frozen => "ended (standings still frozen)".into(),
        Phase::Ended if fs.unfrozen => format!("ended ({})", unfrozen()),
        Phase::Ended => "ended".into(),
    }
}

/// The contest's freeze state, read from the store.
async fn freeze_of(app: &Arc<App>, c: &Arc<Contest>) -> Result<ct::FreezeState, AppError> {
    ct::read_freeze(app, c).await
}

/// The clock: `contest.js` counts down from the server's time.
fn clock(c: &Contest, fs: &ct::FreezeState) -> Markup {
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
                " · " span #phase { (phase_text(c, phase, fs)) }
            }
        }
    }
}

pub(crate) async fn list(State(app): State<Arc<App>>, MaybeUser(user): MaybeUser) -> Response {
    let loaded = app.contests.get();
    let now = now_ms();
    let mut states = Vec::new();
    for c in &loaded.contests {
        states.push(
            freeze_of(&app, c)
                .await
                .unwrap_or_else(|_| ct::freeze_state(c, None, now)),
        );
    }
    let body = html! {
        h1 { "Contests" }
        @if user.as_ref().is_some_and(|u| u.admin) {
            p.meta { a #new-contest href="/admin/contests/new" { "New contest" } " · " a #import-contest href="/admin/contests/import" { "Import a package" } }
        }
        @if loaded.contests.is_empty() { p.muted { "No contest is configured (contests/<id>/contest.toml)." } }
        table.list { thead { tr { th { "Contest" } th { "Scoring" } th { "Start" } th { "Length" } th { "State" } } }
        tbody { @for (c, fs) in loaded.contests.iter().zip(&states) {
            tr {
                td { a href={ "/contests/" (c.id) } { (c.title) } }
                td { @match c.scoring { Scoring::Icpc => "ICPC", Scoring::Ioi => "IOI" } }
                td { (c.start_text()) }
                td { (ct::countdown(c.duration.as_secs() as i64)) }
                td { (phase_text(c, c.phase(now), fs)) }
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

#[derive(Deserialize)]
pub(crate) struct ContestQuery {
    draft: Option<String>,
}

/// The key a contest page's refused submission is kept under (drafts are per problem page).
fn draft_key(contest: &str) -> String {
    format!("contest:{contest}")
}

pub(crate) async fn contest(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
    Query(q): Query<ContestQuery>,
) -> PageResult {
    let u = user.as_ref();
    let c = ct::find(&app, &id).map_err(fail(u))?;
    let draft = match (u, &q.draft) {
        (Some(v), Some(key)) => app.guards.take_draft(key, &v.name, &draft_key(&c.id)),
        _ => None,
    };
    let chosen_lang = draft
        .as_ref()
        .map(|d| d.language.clone())
        .unwrap_or_default();
    let chosen_problem = draft.as_ref().map(|d| d.chosen.clone()).unwrap_or_default();
    let problems = ct::problems_for(&app, &c, u);
    // The groups an announcement may go to: those of the contest's ranked teams.
    let mut groups: Vec<&str> = Vec::new();
    for t in c
        .teams
        .iter()
        .filter(|t| t.category == Category::Participant)
    {
        for g in t.groups() {
            if !groups.contains(&g) {
                groups.push(g);
            }
        }
    }
    let phase = c.phase(now_ms());
    let admin = u.is_some_and(|u| u.admin);
    let mine: Vec<SubmissionInfo> = match u {
        Some(viewer) => {
            let name = viewer.name.clone();
            app.node
                .contest_submissions(c.id.clone())
                .await
                .map_err(AppError::from)
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
    let fs = freeze_of(&app, &c).await.map_err(fail(u))?;
    let body = html! {
        h1 { (c.title) }
        (clock(&c, &fs))
        p.meta {
            a href={ "/contests/" (c.id) "/standings" } { "Standings" }
            @if admin {
                a href={ "/api/v1/admin/contests/" (c.id) "/standings.csv" } { "Standings (CSV)" }
            }
        }
        @if admin { (clock_controls(&c, phase)) (freeze_controls(&c, &fs)) }
        h2 { "Problems" }
        @if problems.is_empty() && phase == Phase::Before {
            p.note #before { "The problems appear when the contest starts, at " (c.start_text()) "." }
        } @else {
            table.list { tbody { @for p in &problems {
                tr { td.label { (p.label) (swatch(&c, &p.problem)) } td { a href={ "/problems/" (p.problem) } { (p.title) } } }
            } } }
        }
        @if may_submit && !problems.is_empty() {
            h2 #submit { "Submit" }
            form #submit-form.submit method="post" action={ "/contests/" (c.id) "/submit" } enctype="multipart/form-data" {
                @if let Some(d) = &draft { p.error role="alert" #form-error { (d.message) } }
                label { "Problem" select name="problem" #problem { @for p in &problems {
                    option value=(p.problem) selected[chosen_problem == p.problem] { (p.label) ". " (p.title) }
                } } }
                label { "Language" select name="language" #language required {
                    option value="" selected[chosen_lang.is_empty()] disabled { "Choose the language…" }
                    @for l in &languages { @if l.available { option value=(l.id) selected[chosen_lang == l.id] { (l.name) } } }
                    option value="auto" selected[chosen_lang == "auto"] { "From the file's name (files only)" }
                } }
                label { "Source" textarea name="source" #source rows="12" spellcheck="false" placeholder="Paste your program here, or choose a file below" {
                    @if let Some(d) = &draft { (d.source) }
                } }
                label { "or a file " input type="file" name="file" #file; }
                // One submission however often the form is sent (see `submit::form_key`).
                input type="hidden" name="idempotency_key" value=(crate::submit::form_key());
                p.hint #both-hint hidden { "A file is chosen and text is pasted: clear one of them (the form refuses both)." }
                button type="submit" #submit-button { "Submit" }
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
        @if u.is_some_and(|v| !v.admin && c.admits(&v.name)) && phase != Phase::Ended {
            h3 { "Ask a question" }
            form.submit method="post" action={ "/contests/" (c.id) "/ask" } {
                label { "About" select name="problem" { option value="" { "the contest in general" }
                    @for p in &problems { option value=(p.problem) { (p.label) ". " (p.title) } } } }
                label { "Kind" select name="category" #ask-category {
                    option value="general" { "a question" }
                    option value="technical" { "a technical issue (staff come to your seat)" }
                } }
                label { "Question" textarea name="text" rows="3" required {} }
                button type="submit" { "Ask" }
            }
        }
        @if admin {
            h3 { "Announce" }
            form.submit #announce-form method="post" action={ "/contests/" (c.id) "/announce" } {
                label { "To" input type="text" name="team" #announce-team placeholder="everyone (or teams' user names, separated by commas)"; }
                @if !groups.is_empty() {
                    label { "Group" select name="group" #announce-group { option value="" { "no group" }
                        @for g in &groups { option value=(g) { "the teams of " (g) } } } }
                }
                label { "About" select name="problem" #announce-problem { option value="" { "the contest in general" }
                    @for p in &problems { option value=(p.problem) { (p.label) ". " (p.title) } } } }
                label { "Announcement" textarea name="text" rows="3" required {} }
                button type="submit" { "Announce" }
            }
        }
    };
    Ok(frame(&c.title, u, body))
}

/// A problem's colour (`color` in contest.toml) as a small square: an SVG's fill, which the
/// Content-Security-Policy allows where an inline style would not be.
fn swatch(c: &Contest, problem: &str) -> Markup {
    let color = c
        .problems
        .iter()
        .find(|p| p.problem == problem)
        .and_then(|p| p.color.as_deref());
    html! {
        @if let Some(rgb) = color {
            " " svg.swatch width="12" height="12" viewBox="0 0 12 12" role="img" aria-label={ "colour " (rgb) } {
                rect width="12" height="12" rx="2" fill=(rgb) stroke="#888" {}
            }
        }
    }
}

/// "Freeze the last N min" (0: no freeze), set to the contest's freeze now.
fn freeze_length_control(c: &Contest, action: &str) -> Markup {
    let now = c.freeze.map_or(0, |f| f.as_secs() / 60);
    html! {
        form.inline method="post" action=(action) data-confirm="Change the freeze? The standings freeze for the last minutes given (0: no freeze)." {
            input type="hidden" name="action" value="freeze_last";
            label { "Freeze the last " input #freeze-minutes type="number" name="minutes" min="0" max="10080" value=(now) required; " min" }
            button #set-freeze type="submit" { "Set the freeze" }
        }
    }
}

/// The director's clock controls, the ones the phase allows, each asking first.
fn clock_controls(c: &Contest, phase: Phase) -> Markup {
    let action = format!("/contests/{}/clock", c.id);
    html! {
        div.controls #clock-controls {
            @match phase {
                Phase::Before => {
                    form.inline method="post" action=(action) data-confirm="Start the contest now? Its problems appear to everyone at once." {
                        input type="hidden" name="action" value="start_now";
                        button #start-now type="submit" { "Start now" }
                    }
                    form.inline method="post" action=(action) data-confirm="Delay the start?" {
                        input type="hidden" name="action" value="delay";
                        label { "Delay by " input type="number" name="minutes" min="1" max="10080" value="10" required; " min" }
                        button #delay type="submit" { "Delay" }
                    }
                    (freeze_length_control(c, &action))
                }
                Phase::Running | Phase::Frozen => {
                    form.inline method="post" action=(action) data-confirm="Extend the contest?" {
                        input type="hidden" name="action" value="extend";
                        label { "Extend by " input type="number" name="minutes" min="1" max="10080" value="10" required; " min" }
                        button #extend type="submit" { "Extend" }
                    }
                    form.inline method="post" action=(action) data-confirm="End the contest now? Submissions close at once." {
                        input type="hidden" name="action" value="end_now";
                        button.danger #end-now type="submit" { "End now" }
                    }
                    @if phase == Phase::Running {
                        (freeze_length_control(c, &action))
                    }
                }
                Phase::Ended => {
                    @match c.finalized_ms {
                        Some(at) => { p #finalized { "The contest is over; its results were " strong { "finalized" } " at " (format_time(at, c.utc_offset_s)) "." } }
                        None => {
                            p.muted { "The contest is over." }
                            form.inline method="post" action={ "/contests/" (c.id) "/finalize" }
                                data-confirm="Finalize the results? The awards are published and the results can no longer change (no clock, freeze, override, ignore)." {
                                button.danger #finalize type="submit" { "Finalize the results" }
                            }
                        }
                    }
                }
            }
            a #edit-contest href={ "/contests/" (c.id) "/edit" } { "Edit contest" }
            a href={ "/contests/" (c.id) "/teams" } { "Teams" }
            a href={ "/contests/" (c.id) "/balloons" } { "Balloons" }
            a href={ "/admin/audit?contest=" (c.id) } { "Audit log" }
        }
    }
}

/// `POST /contests/{id}/clock` (admins): a clock change from the contest page, then back to it.
pub(crate) async fn change_clock(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
    Form(f): Form<ct::controls::ClockBody>,
) -> PageResult {
    ct::controls::change_clock(&app, &admin, &id, &f)
        .await
        .map_err(fail(Some(&admin)))?;
    Ok(Redirect::to(&format!("/contests/{}", urlencode(&id))).into_response())
}

#[derive(Deserialize)]
pub(crate) struct AuditQuery {
    contest: Option<String>,
}

/// `GET /admin/audit`: what directors did (clock changes, freezes, rejudgings, uploads,
/// tokens) and every login, newest first; `?contest=` for one contest's.
pub(crate) async fn audit_page(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Query(q): Query<AuditQuery>,
) -> PageResult {
    let contest = q.contest.filter(|c| !c.is_empty());
    let list = ct::controls::audit(&app, contest.clone(), 500)
        .await
        .map_err(fail(Some(&admin)))?;
    let body = html! {
        h1 { "Audit log" @if let Some(c) = &contest { " · " a href={ "/contests/" (c) } { (c) } } }
        @if list.is_empty() { p.muted { "Nothing yet." } }
        @else {
            div.scroll { table.list #audit { thead { tr { th { "When" } th { "Who" } th { "What" } th { "Contest" } th { "Detail" } } }
            tbody { @for e in &list { tr {
                td { (crate::html::parts::time_el(e.at)) }
                td { (e.actor) }
                td { (e.action) }
                td { @if let Some(c) = &e.contest { a href={ "/contests/" (c) } { (c) } } }
                td { (e.detail) }
            } } } } }
        }
    };
    Ok(frame("Audit log", Some(&admin), body))
}

/// The admins' freeze controls: the state with its time and who changed it, and one button
/// (styled, asking for confirmation) that is there only when it can be used: after the freeze
/// time, to unfreeze or to freeze again.
fn freeze_controls(c: &Contest, fs: &ct::FreezeState) -> Markup {
    let Some(f) = fs.freeze_ms else {
        return html! {};
    };
    let at = |ms: i64| format_time(ms, c.utc_offset_s);
    let now = now_ms();
    html! {
        div.freeze #freeze {
            @if now < f {
                p.muted #freeze-state { "The standings freeze at " (at(f)) "; they can be unfrozen after that." }
            } @else if fs.frozen {
                p #freeze-state { "Standings " strong { "frozen" } " since " (at(f))
                    @if let (Some(t), Some(by)) = (fs.changed_at, &fs.changed_by) { " (frozen again at " (at(t)) " by " (by) ")" } "." }
                form.inline method="post" action={ "/contests/" (c.id) "/unfreeze" }
                    data-confirm="Unfreeze the standings? Everyone will see every result at once." {
                    button.danger #unfreeze type="submit" { "Unfreeze the standings" }
                }
            } @else {
                p #freeze-state { "Standings " strong { "unfrozen" }
                    @if let Some(t) = fs.changed_at { " at " (at(t)) }
                    @if let Some(by) = &fs.changed_by { " by " (by) } "." }
                form.inline method="post" action={ "/contests/" (c.id) "/freeze" }
                    data-confirm="Freeze the standings again? Results after the freeze time will be hidden again." {
                    button #refreeze type="submit" { "Freeze again" }
                }
            }
        }
    }
}

/// Announcements and clarifications the viewer may read (a live fragment).
async fn news(app: &Arc<App>, c: &Contest, user: Option<&User>) -> Result<Markup, AppError> {
    let all = app.node.clarifications(c.id.clone()).await?;
    let mut list: Vec<Clarification> = clarifications::visible_clarifications(all, user);
    let admin = user.is_some_and(|u| u.admin);
    // The jury's queue: questions waiting for an answer first, oldest first; the rest after, as
    // everyone sees them.
    let waiting = |q: &Clarification| q.user.is_some() && q.answer.is_none();
    let unanswered = list.iter().filter(|q| waiting(q)).count();
    if admin {
        let (mut open, rest): (Vec<_>, Vec<_>) = list.into_iter().partition(|q| waiting(q));
        open.sort_by_key(|q| (q.at, q.id));
        open.extend(rest);
        list = open;
    }
    // Admins see every earlier answer of a question answered more than once.
    let mut history = std::collections::HashMap::new();
    if admin {
        let answered: Vec<i64> = list
            .iter()
            .filter(|q| q.answer.is_some())
            .map(|q| q.id)
            .collect();
        history = app.node.answer_histories(answered).await?;
    }
    Ok(html! {
        @if admin && unanswered > 0 {
            p #unanswered { span.badge.unanswered { (unanswered) } " question" @if unanswered > 1 { "s" } " waiting for an answer (oldest first)" }
        }
        @if list.is_empty() { p.muted { "Nothing yet." } }
        @for q in &list {
            div class={ "clar" @if q.user.is_none() { " announcement" } } {
                div.meta {
                    @match &q.user { None => strong { "Announcement" }, Some(u) => span { "Question from " strong { (u) } } }
                    @if !q.to_groups.is_empty() { span.tag.to { "to " (q.to_groups.join(", ")) } }
                    @else if let Some(t) = &q.to_user {
                        @if q.to_more.is_empty() { span.tag.to { "to " (t) " only" } }
                        @else { span.tag.to { "to " (t) ", " (q.to_more.join(", ")) } }
                    }
                    span { (format_time(q.at, c.utc_offset_s)) }
                    @if let Some(p) = &q.problem { span.tag { (c.label_of(p).unwrap_or(p)) } }
                    @if q.category == "technical" { span.tag.technical { "technical" } }
                    @else if q.user.is_some() && q.problem.is_none() { span.tag { "general" } }
                    @if admin && q.user.is_some() {
                        @if let Some(by) = &q.claimed_by { span.tag.claimed { "claimed by " (by) } }
                    }
                    @if q.user.is_some() { span.tag { @if q.public { "answered to all" } @else if q.answer.is_some() { "answered privately" } @else { "waiting for an answer" } } }
                }
                p.text { (q.text) }
                @if let Some(a) = &q.answer { p.answer { strong { "Answer: " } (a) } }
                @if admin && q.user.is_some() && q.answer.is_none() {
                    @let mine = user.is_some_and(|u| q.claimed_by.as_deref() == Some(u.name.as_str()));
                    form.inline.claim method="post" action={ "/contests/" (c.id) "/claim/" (q.id) } {
                        @if q.claimed_by.is_none() {
                            input type="hidden" name="claim" value="1";
                            button.claim type="submit" { "Claim" }
                        } @else {
                            input type="hidden" name="claim" value="0";
                            button.release type="submit" { @if mine { "Release" } @else { "Release (take it over)" } }
                        }
                    }
                    form.answer method="post" action={ "/contests/" (c.id) "/answer/" (q.id) } {
                        textarea name="answer" rows="2" placeholder="Type an answer, or pick a canned one below" {}
                        select name="canned" { option value="" { "(a canned answer)" }
                            @for a in clarifications::CANNED { option value=(a) { (a) } } }
                        label.check { input type="checkbox" name="public" value="true"; " send to everyone" }
                        button type="submit" { "Answer" }
                    }
                }
                @if admin && q.answer.is_some() {
                    @if let Some(h) = history.get(&q.id).filter(|h| h.len() > 1) {
                        details.history { summary { "Earlier answers (" (h.len() - 1) ")" }
                            ul { @for a in &h[..h.len() - 1] { li {
                                (a.answer) " — " (a.answered_by) ", " (format_time(a.answered_at, c.utc_offset_s))
                                @if a.public { " (to everyone)" } @else { " (to the asker)" }
                            } } }
                        }
                    }
                    details.reanswer { summary { "Answer again" }
                        form.answer method="post" action={ "/contests/" (c.id) "/answer/" (q.id) }
                            data-confirm="Replace the answer? The earlier one stays in the history." {
                            textarea name="answer" rows="2" required {}
                            label.check { input type="checkbox" name="public" value="true" checked[q.public]; " send to everyone" }
                            button type="submit" { "Answer again" }
                        }
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

/// `POST /contests/{id}/submit` (multipart: problem, language, source or file): queues the
/// submission through the contest and goes to its page; a refusal goes back to the contest
/// page with the reason, the pasted text, the problem and the language kept
/// (post/redirect/get).
pub(crate) async fn submit(
    State(app): State<Arc<App>>,
    Viewer(viewer): Viewer,
    Path(id): Path<String>,
    mp: Multipart,
) -> PageResult {
    let mut form = SubmitForm::default();
    let read = read_multipart(&app, mp, &mut form).await;
    form.contest = Some(id.clone());
    let (source, language, chosen) = (
        form.source.clone(),
        form.language.clone().unwrap_or_default(),
        form.problem.clone(),
    );
    let accepted = match read {
        Ok(()) => accept(&app, &viewer, form).await,
        Err(e) => Err(e),
    };
    match accepted {
        Ok(sid) => Ok(Redirect::to(&format!("/submissions/{sid}")).into_response()),
        Err(e) if e.status().is_client_error() && ct::find(&app, &id).is_ok() => {
            let key = app.guards.keep_draft(Draft {
                user: viewer.name.clone(),
                problem: draft_key(&id),
                message: e.message().replace(" (field `language`)", ""),
                source,
                language,
                chosen,
            });
            let to = format!("/contests/{}?draft={key}#submit", urlencode(&id));
            Ok(Redirect::to(&to).into_response())
        }
        Err(e) => Err(fail(Some(&viewer))(e)),
    }
}

#[derive(Deserialize)]
pub(crate) struct TextFields {
    #[serde(default)]
    problem: Option<String>,
    text: String,
    /// An announcement's group (a name), beside its teams.
    #[serde(default)]
    group: Option<String>,
    #[serde(default)]
    category: Option<String>,
    #[serde(default)]
    team: Option<String>,
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
        category: f.category,
        team: f.team,
        teams: Vec::new(),
        groups: Vec::new(),
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
    // Several teams' users separated by commas or spaces, and one group.
    let teams = f.team.as_deref().unwrap_or_default();
    let teams = teams.split([',', ';', ' ']).filter(|t| !t.is_empty());
    let body = AskBody {
        problem: f.problem,
        text: f.text,
        category: f.category,
        team: None,
        teams: teams.map(str::to_string).collect(),
        groups: f.group.into_iter().collect(),
    };
    clarifications::announce(&app, &admin, &id, body)
        .await
        .map_err(fail(Some(&admin)))?;
    Ok(Redirect::to(&format!("/contests/{id}#news")).into_response())
}

#[derive(Deserialize)]
pub(crate) struct ClaimFields {
    claim: String,
}

/// `POST /contests/{id}/claim/{cid}` (admins): claims a question (or releases it).
pub(crate) async fn claim(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path((id, cid)): Path<(String, i64)>,
    Form(f): Form<ClaimFields>,
) -> PageResult {
    clarifications::claim(&app, &admin, cid, f.claim == "1")
        .await
        .map_err(fail(Some(&admin)))?;
    Ok(Redirect::to(&format!("/contests/{id}#news")).into_response())
}

#[derive(Deserialize)]
pub(crate) struct AnswerFields {
    #[serde(default)]
    answer: String,
    /// One of [`clarifications::CANNED`], used when `answer` is empty.
    #[serde(default)]
    canned: Option<String>,
    #[serde(default)]
    public: Option<String>,
}

pub(crate) async fn answer(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path((id, cid)): Path<(String, i64)>,
    Form(f): Form<AnswerFields>,
) -> PageResult {
    let answer = match f.canned.as_deref().filter(|_| f.answer.trim().is_empty()) {
        Some(c) if !c.is_empty() => {
            if !clarifications::CANNED.contains(&c) {
                return Err(fail(Some(&admin))(AppError::BadRequest(format!(
                    "field `canned`: {c:?} is not one of the canned answers"
                ))));
            }
            c.to_string()
        }
        _ => f.answer,
    };
    let body = AnswerBody {
        answer,
        public: Some(f.public.is_some()),
    };
    clarifications::answer(&app, &admin, cid, body)
        .await
        .map_err(fail(Some(&admin)))?;
    Ok(Redirect::to(&format!("/contests/{id}#news")).into_response())
}

async fn set_freeze(app: Arc<App>, admin: User, id: String, unfrozen: bool) -> PageResult {
    ct::set_freeze(&app, &admin, &id, unfrozen)
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
