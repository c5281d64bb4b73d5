//! The contest's teams pages (admins): the roster as `contest.toml` has it, one team's editor,
//! the roster import and the hall sheet of login links.

use std::sync::Arc;

use axum::extract::{Multipart, Path, Query, State};
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use maud::html;
use serde::Deserialize;

use super::{fail, PageResult};
use crate::auth::extract::AdminPage;
use crate::contests as ct;
use crate::error::AppError;
use crate::html::frame;
use crate::text::urlencode;
use crate::user::User;
use crate::App;
use ojd_service::contest::edit::FieldError;
use ojd_service::contest::roster::TeamDraft;
use ojd_service::contest::Contest;

#[derive(Deserialize)]
pub(crate) struct TeamsQuery {
    shown: Option<String>,
    /// The user whose team the editor starts with.
    edit: Option<String>,
}

/// `GET /contests/{id}/teams` (admins): the teams as `contest.toml` has them (each with Edit
/// and Remove), the editor of one team (empty: a new one; `?edit=user`: that team), the roster
/// import form, and (once, after an import with tokens) the sheet to print for the hall.
pub(crate) async fn teams_page(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
    Query(q): Query<TeamsQuery>,
) -> PageResult {
    let c = ct::find(&app, &id).map_err(fail(Some(&admin)))?;
    let shown = q.shown.and_then(|key| {
        app.guards
            .take_shown(&key, &admin.name, &format!("teams:{id}"))
    });
    let draft = q
        .edit
        .and_then(|u| c.teams.iter().find(|t| t.user == u).map(TeamDraft::of))
        .unwrap_or_default();
    Ok(teams_view(
        &admin,
        &c,
        shown,
        &draft,
        &[],
        axum::http::StatusCode::OK,
    ))
}

/// The teams page (see [`teams_page`]), its editor filled with `draft` and its errors beside
/// their fields.
pub(crate) fn teams_view(
    admin: &User,
    c: &Contest,
    shown: Option<String>,
    draft: &TeamDraft,
    errors: &[FieldError],
    status: axum::http::StatusCode,
) -> Response {
    let body = html! {
        h1 { "Teams · " a href={ "/contests/" (c.id) } { (c.title) } }
        @if let Some(m) = shown { (maud::PreEscaped(m)) }
        @if c.teams.is_empty() { p.muted { "No [[team]] in contest.toml: everyone is shown by their user name." } }
        @else {
            div.scroll { table.list #teams { thead { tr { th { "User" } th { "Name" } th { "Affiliation" } th { "Members" } th { "Category" } th {} } }
            tbody { @for t in &c.teams { tr data-user=(t.user) {
                td { (t.user) } td { (t.name) } td { (t.affiliation.as_deref().unwrap_or("")) }
                td.members { (t.members.join(", ")) }
                td { @match t.category {
                    ojd_service::contest::Category::Participant => "participant",
                    ojd_service::contest::Category::Observer => "observer (not ranked)",
                    ojd_service::contest::Category::Jury => "jury (not ranked)",
                } }
                td.actions {
                    a.edit-team href={ "/contests/" (c.id) "/teams?edit=" (urlencode(&t.user)) "#team-form" } { "Edit" }
                    " "
                    form.inline.remove-team method="post" action={ "/contests/" (c.id) "/team/remove" }
                        data-confirm={ "Remove team " (t.name) " (" (t.user) ")?" } {
                        input type="hidden" name="user" value=(t.user);
                        button.link.danger type="submit" { "Remove" }
                    }
                }
            } } } } }
        }
        (super::super::team_form::editor(c, draft, errors))
        h2 { "Import a roster" }
        p.muted { "CSV with a header line: user (required), name, affiliation, category (participant, observer or jury), group, members (separated by ;); or DOMjudge's teams.tsv (and accounts.tsv). It replaces the contest's teams in its contest.toml." }
        form.submit #roster-form method="post" action={ "/contests/" (c.id) "/teams" } enctype="multipart/form-data"
            data-confirm="Replace the contest's teams with this roster?" {
            label { "Roster" textarea name="roster" #roster rows="8" spellcheck="false" placeholder="user,name,affiliation,category" {} }
            label { "or files (a CSV, or DOMjudge's teams.tsv with its accounts.tsv) " input type="file" name="file" #roster-file multiple accept=".csv,.tsv,text/csv,text/tab-separated-values"; }
            label.check { input type="checkbox" name="tokens" value="on" #roster-tokens; " issue a token for each team (shown once, to print for the hall)" }
            label.check { input type="checkbox" name="passwords" value="on" #roster-passwords; " generate a password for each team that accounts.tsv gives none (shown once, to print for the hall)" }
            button #roster-button type="submit" { "Import" }
        }
        h2 { "Login links for the hall" }
        p.muted { "A one-time login link for each team, to print: each works once, until the time below or the contest's end, whichever is first. Printing again revokes the earlier sheet's unused links; removing a team revokes its link." }
        form.submit #links-form method="post" action={ "/contests/" (c.id) "/links" }
            data-confirm="Issue a new login link for every team?" {
            label { "Valid until (RFC 3339 with an offset)"
                input type="text" name="valid_until" #links-until value=(ojd_service::contest::clock::rfc3339(ct::links::default_until(c), c.utc_offset_s)); }
            button #links-button type="submit" { "Print login links" }
        }
    };
    let mut r = frame(&format!("Teams · {}", c.title), Some(admin), body);
    *r.status_mut() = status;
    r
}

/// `POST /contests/{id}/team` (admins, the editor's fields): adds or edits the team, then back
/// to the teams page saying what changed (post/redirect/get); a refused one comes back with
/// what was typed and each error beside its field (400).
pub(crate) async fn save_team(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
    Form(draft): Form<TeamDraft>,
) -> PageResult {
    match ct::teams::save_team(&app, &admin, &id, &draft).await {
        Ok(Ok(done)) => {
            let shown = html! { div.once #team-saved role="status" { p.note { (done) } } };
            let key =
                app.guards
                    .keep_shown(&admin.name, &format!("teams:{id}"), shown.into_string());
            Ok(
                Redirect::to(&format!("/contests/{}/teams?shown={key}", urlencode(&id)))
                    .into_response(),
            )
        }
        Ok(Err(errors)) => {
            let c = ct::find(&app, &id).map_err(fail(Some(&admin)))?;
            Ok(teams_view(
                &admin,
                &c,
                None,
                &draft,
                &errors,
                axum::http::StatusCode::BAD_REQUEST,
            ))
        }
        Err(e) => Err(fail(Some(&admin))(e)),
    }
}

#[derive(Deserialize)]
pub(crate) struct RemoveTeamForm {
    user: String,
}

/// `POST /contests/{id}/team/remove` (admins, `user`): removes a team without submissions;
/// back to the teams page with what happened, or why not (post/redirect/get).
pub(crate) async fn remove_team(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
    Form(f): Form<RemoveTeamForm>,
) -> PageResult {
    let shown = match ct::teams::remove_team(&app, &admin, &id, &f.user).await {
        Ok(done) => html! { div.once #team-saved role="status" { p.note { (done) } } },
        Err(e) if e.status().is_client_error() && !matches!(e, AppError::NotFound(_)) => html! {
            div.error #team-refused role="alert" { "The team was not removed: " (e.message()) }
        },
        Err(e) => return Err(fail(Some(&admin))(e)),
    };
    let key = app
        .guards
        .keep_shown(&admin.name, &format!("teams:{id}"), shown.into_string());
    Ok(Redirect::to(&format!("/contests/{}/teams?shown={key}", urlencode(&id))).into_response())
}

#[derive(Deserialize)]
pub(crate) struct LinksForm {
    #[serde(default)]
    valid_until: String,
}

/// `POST /contests/{id}/links` (admins): the sheet of one-time login links, shown once on the
/// teams page (post/redirect/get).
pub(crate) async fn print_links(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
    headers: axum::http::HeaderMap,
    Form(f): Form<LinksForm>,
) -> PageResult {
    let site = format!(
        "{}://{}",
        match headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
        {
            Some("https") => "https",
            _ => "http",
        },
        headers
            .get(axum::http::header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("localhost")
    );
    let shown = match ct::links::issue(&app, &admin, &id, Some(&f.valid_until)).await {
        Ok(sheet) => html! {
            div.once #imported {
                p { strong { "Shown only now:" } " print this page for the hall. Each link logs its team in once, until " strong #links-expire { (sheet.expires) } "." }
                div.scroll { table.list #link-sheet { thead { tr { th { "Team" } th { "User" } th { "Login link" } } }
                tbody { @for l in &sheet.links { tr {
                    td { (l.name) } td { (l.user) } td { code.link { (site) (l.path) } }
                } } } } }
            }
        },
        Err(e) if e.status().is_client_error() => html! {
            div.error #imported role="alert" { "No links were issued:" pre.out { (e.message()) } }
        },
        Err(e) => return Err(fail(Some(&admin))(e)),
    };
    let key = app
        .guards
        .keep_shown(&admin.name, &format!("teams:{id}"), shown.into_string());
    Ok(Redirect::to(&format!("/contests/{}/teams?shown={key}", urlencode(&id))).into_response())
}

/// `POST /contests/{id}/teams` (admins, multipart: `roster` text or `file`, `tokens`): imports,
/// then back to the teams page with the result once (post/redirect/get).
pub(crate) async fn import_teams(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
    mut mp: Multipart,
) -> PageResult {
    let (mut text, mut files, mut tokens, mut passwords) =
        (String::new(), Vec::new(), false, false);
    while let Ok(Some(field)) = mp.next_field().await {
        match field.name().unwrap_or_default() {
            "roster" => text = field.text().await.unwrap_or_default(),
            "file" => {
                let b = field.bytes().await.unwrap_or_default();
                if !b.is_empty() {
                    files.push(String::from_utf8_lossy(&b).into_owned());
                }
            }
            "tokens" => tokens = true,
            "passwords" => passwords = true,
            _ => {}
        }
    }
    if !files.is_empty() {
        // DOMjudge's teams.tsv before its accounts.tsv, whatever order they were chosen in.
        files.sort_by_key(|f| !f.trim_start().starts_with("teams\t"));
        text = files.join("\n");
    }
    let shown = match ct::controls::import_roster(&app, &admin, &id, &text, tokens, passwords).await
    {
        Ok(done) => {
            let token_of = |u: &str| {
                done.tokens
                    .iter()
                    .find(|(x, _)| x == u)
                    .map(|(_, t)| t.clone())
            };
            let password_of = |u: &str| {
                done.passwords
                    .iter()
                    .find(|(x, _)| x == u)
                    .map(|(_, p)| p.clone())
            };
            let sheet = !done.tokens.is_empty() || !done.passwords.is_empty();
            html! {
                div.once #imported {
                    p.note { (done.teams.len()) " teams imported."
                        @if done.from_file > 0 { " " (done.from_file) " passwords set from accounts.tsv." }
                        @if !done.admission.is_empty() { " " span #admitted { (done.admission.describe()) } } }
                    @if sheet {
                        p { strong { "Shown only now:" } " print this page for the hall. Teams log in at /login with their user name and password, or their token." }
                        table.list #sheet { thead { tr { th { "Team" } th { "User" }
                            @if !done.tokens.is_empty() { th { "Token" } }
                            @if !done.passwords.is_empty() { th { "Password" } } } }
                        tbody { @for t in &done.teams { tr {
                            td { (t.name) } td { (t.user) }
                            @if !done.tokens.is_empty() { td { code { (token_of(&t.user).unwrap_or_default()) } } }
                            @if !done.passwords.is_empty() { td.password { code { (password_of(&t.user).unwrap_or_else(|| "(from accounts.tsv)".into())) } } }
                        } } } }
                    }
                }
            }
        }
        // A finalized contest's teams are final: refused as the single-team editor is (409).
        Err(e @ AppError::Conflict(_)) => return Err(fail(Some(&admin))(e)),
        Err(e) if e.status().is_client_error() => html! {
            div.error #imported role="alert" { "The roster was not imported (nothing changed):" pre.out { (e.message()) } }
        },
        Err(e) => return Err(fail(Some(&admin))(e)),
    };
    let key = app
        .guards
        .keep_shown(&admin.name, &format!("teams:{id}"), shown.into_string());
    Ok(Redirect::to(&format!("/contests/{}/teams?shown={key}", urlencode(&id))).into_response())
}
