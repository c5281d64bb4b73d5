//! The admins' pages: users and tokens (list, issue with a one-time login link, revoke),
//! problems (state, reload, rejudge, upload a package) and the queue (what is queued and what
//! each worker is judging). Every action is a POST from a form on these pages (origin-checked
//! like every state-changing request, see [`super::security`]) that redirects back or shows
//! its result once.

use std::sync::Arc;

use axum::extract::{Multipart, Path, State};
use axum::http::header;
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::Form;
use maud::{html, Markup};
use serde::Deserialize;

use super::auth::{self, MaybeUser, User};
use super::error::AppError;
use super::html::{badge, page, time_el};
use super::pages::PageError;
use super::App;
use ojd_store::{ListFilter, State as SubState};

type PageResult = Result<Response, PageError>;

fn need_admin(user: Option<User>) -> Result<User, PageError> {
    match user {
        None => Err(PageError(AppError::Unauthorized, None)),
        Some(u) if u.admin => Ok(u),
        Some(u) => Err(PageError(
            AppError::Forbidden("this page is for admins".into()),
            Some(u),
        )),
    }
}

fn err(user: &User) -> impl Fn(AppError) -> PageError + '_ {
    move |e| PageError(e, Some(user.clone()))
}

/// A page that shows something once (a new token): never cached.
fn once(title: &str, user: &User, body: Markup) -> Response {
    (
        [(header::CACHE_CONTROL, "no-store")],
        Html(page(title, Some(user), body)),
    )
        .into_response()
}

// ---------------------------------------------------------------- users and tokens

fn users_body(
    app: &App,
    tokens: &[ojd_store::web::TokenActivity],
    shown: Option<Markup>,
) -> Markup {
    let config_users = &app.config.server.users;
    html! {
        h1 { "Users and tokens" }
        @if let Some(s) = shown { (s) }
        h2 { "Issue a token" }
        form.filters #issue method="post" action="/admin/users" {
            label { "Name" input type="text" name="name" #issue-name required pattern="[A-Za-z0-9._-]{1,64}" size="16"; }
            label { "Admin" input type="checkbox" name="admin" value="on"; }
            button type="submit" #issue-button { "Issue" }
        }
        h2 { "Issued tokens" }
        @if tokens.is_empty() {
            p.muted { "None yet." }
        } @else {
            div.scroll { table.list.admin #tokens {
                thead { tr { th { "Name" } th { "Admin" } th.opt { "Created" } th { "Last used" } th { "" } } }
                tbody {
                    @for t in tokens {
                        tr {
                            td { (t.name) }
                            td { @if t.admin { "yes" } @else { "no" } }
                            td.opt { (time_el(t.created_at)) }
                            td { @match t.last_used { Some(ms) => (time_el(ms)), None => span.muted { "never" } } }
                            td {
                                form method="post" action="/admin/users/link" {
                                    input type="hidden" name="name" value=(t.name);
                                    @if t.admin { input type="hidden" name="admin" value="on"; }
                                    button.link type="submit" { "login link" }
                                }
                                " · "
                                form method="post" action="/admin/tokens/revoke" {
                                    input type="hidden" name="name" value=(t.name);
                                    input type="hidden" name="id" value=(t.id);
                                    button.link.danger type="submit" { "revoke" }
                                }
                            }
                        }
                    }
                }
            } }
        }
        @if !config_users.is_empty() || !app.config.server.admin_token.is_empty() {
            h2 { "Users from the config file" }
            p.muted { "Their tokens are in config.toml; change them there. A login link still works for them." }
            ul {
                @if !app.config.server.admin_token.is_empty() { li { "admin (admin_token)" } }
                @for u in config_users { li { (u.name) @if u.admin { " (admin)" } } }
            }
        }
    }
}

async fn token_list(app: &Arc<App>) -> Result<Vec<ojd_store::web::TokenActivity>, AppError> {
    app.db(|s| s.token_activity()).await
}

pub async fn users(State(app): State<Arc<App>>, MaybeUser(user): MaybeUser) -> PageResult {
    let user = need_admin(user)?;
    let tokens = token_list(&app).await.map_err(err(&user))?;
    Ok(Html(page("Users", Some(&user), users_body(&app, &tokens, None))).into_response())
}

#[derive(Deserialize)]
pub struct IssueForm {
    name: String,
    admin: Option<String>,
}

/// The absolute login link for a path such as `/login?code=…`, on the address the admin used.
fn absolute(headers: &axum::http::HeaderMap, path: &str) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .unwrap_or("localhost");
    let scheme = match headers
        .get("x-forwarded-proto")
        .and_then(|v| v.to_str().ok())
    {
        Some("https") => "https",
        _ => "http",
    };
    format!("{scheme}://{host}{path}")
}

fn login_link_box(link: &str, minutes: u64, token: Option<&str>, name: &str) -> Markup {
    html! {
        div.once #issued {
            @if let Some(t) = token {
                p { "New token for " b { (name) } " (shown once, copy it now):" }
                p { code #new-token { (t) } }
            }
            p { "One-time login link for " b { (name) } " (works once, within " (minutes) " minutes):" }
            p { a #login-link href=(link) { (link) } }
        }
    }
}

pub async fn issue(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    headers: axum::http::HeaderMap,
    Form(f): Form<IssueForm>,
) -> PageResult {
    let user = need_admin(user)?;
    let name = f.name.trim().to_string();
    if !auth::valid_name(&name) {
        return Err(err(&user)(AppError::BadRequest(format!(
            "a user name is 1 to 64 letters, digits, '.', '_' or '-' (got {name:?})"
        ))));
    }
    let admin = f.admin.is_some();
    let n = name.clone();
    let token = app
        .db(move |s| Ok(auth::issue_token(s, &n, admin)))
        .await
        .map_err(err(&user))?
        .map_err(|e| err(&user)(AppError::Internal(e.to_string())))?;
    let who = User {
        name: name.clone(),
        admin,
    };
    let path = super::login::login_link(&app, &who).map_err(err(&user))?;
    super::log(&format!(
        "admin {}: issued a token for {name}{}",
        user.name,
        if admin { " (admin)" } else { "" }
    ));
    let minutes = app.config.web.login_code_lifetime.as_secs() / 60;
    let shown = login_link_box(&absolute(&headers, &path), minutes, Some(&token), &name);
    let tokens = token_list(&app).await.map_err(err(&user))?;
    Ok(once("Users", &user, users_body(&app, &tokens, Some(shown))))
}

pub async fn link(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    headers: axum::http::HeaderMap,
    Form(f): Form<IssueForm>,
) -> PageResult {
    let user = need_admin(user)?;
    let who = User {
        name: f.name.clone(),
        admin: f.admin.is_some(),
    };
    let path = super::login::login_link(&app, &who).map_err(err(&user))?;
    let minutes = app.config.web.login_code_lifetime.as_secs() / 60;
    let shown = login_link_box(&absolute(&headers, &path), minutes, None, &who.name);
    let tokens = token_list(&app).await.map_err(err(&user))?;
    Ok(once("Users", &user, users_body(&app, &tokens, Some(shown))))
}

#[derive(Deserialize)]
pub struct RevokeForm {
    name: String,
    id: String,
}

pub async fn revoke(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Form(f): Form<RevokeForm>,
) -> PageResult {
    let user = need_admin(user)?;
    let (name, id) = (f.name.clone(), f.id.clone());
    let n = app
        .db(move |s| {
            let n = s.revoke_token(&name, &id)?;
            if n > 0 {
                s.end_sessions_of(&name)?;
            }
            Ok(n)
        })
        .await
        .map_err(err(&user))?;
    if n == 0 {
        return Err(err(&user)(AppError::NotFound(format!(
            "no such token of {}",
            f.name
        ))));
    }
    super::log(&format!(
        "admin {}: revoked a token of {} and ended its sessions",
        user.name, f.name
    ));
    Ok(Redirect::to("/admin/users").into_response())
}

// ---------------------------------------------------------------- problems

fn problems_body(app: &App, message: Option<Markup>) -> Markup {
    let catalog = app.catalog();
    html! {
        h1 { "Manage problems" }
        @if let Some(m) = message { (m) }
        form.inline method="post" action="/admin/problems/reload" {
            button type="submit" #reload { "Reload all problems" }
        }
        h2 { "Served" }
        div.scroll { table.list.admin #problems {
            thead { tr { th { "Problem" } th { "State" } th.num { "Tests" } th { "" } } }
            tbody {
                @for (id, e) in &catalog.problems {
                    @let stale = ojd_service::catalog::needs_generation(&e.problem);
                    tr id={ "p-" (id) } {
                        td { a href={ "/problems/" (id) } { (id) } " " span.muted.opt { (e.problem.title) } }
                        td { @if stale { span.badge.v-TLE { "answers stale" } } @else { span.badge.v-AC { "ready" } } }
                        td.num { (e.problem.tests.len()) }
                        td {
                            form method="post" action={ "/admin/problems/" (id) "/rejudge" } {
                                button.link type="submit" { "rejudge all" }
                            }
                        }
                    }
                }
            }
        } }
        @if !catalog.failed.is_empty() {
            h2 { "Failed to load" }
            div.scroll { table.list.admin #failed {
                thead { tr { th { "Folder" } th { "Error" } } }
                tbody { @for f in &catalog.failed { tr { td { (f.folder) } td { pre.out { (f.error) } } } } }
            } }
        }
        h2 { "Upload a package" }
        p.muted { "A .zip or .tar.gz of one problem folder (problem.toml at its top or in its one folder). It is unpacked, checked and its answers built in the sandbox before it goes live; an upload that fails changes nothing." }
        form.submit #upload method="post" action="/admin/problems/upload" enctype="multipart/form-data" {
            label { "Package " input type="file" name="package" #package required; }
            button type="submit" #upload-button { "Upload" }
        }
    }
}

pub async fn problems(State(app): State<Arc<App>>, MaybeUser(user): MaybeUser) -> PageResult {
    let user = need_admin(user)?;
    Ok(Html(page(
        "Manage problems",
        Some(&user),
        problems_body(&app, None),
    ))
    .into_response())
}

pub async fn reload(State(app): State<Arc<App>>, MaybeUser(user): MaybeUser) -> PageResult {
    let user = need_admin(user)?;
    let a = app.clone();
    tokio::task::spawn_blocking(move || a.reload())
        .await
        .map_err(|e| err(&user)(AppError::Internal(format!("reload failed: {e}"))))?;
    super::log(&format!("admin {}: reloaded the problems", user.name));
    Ok(Redirect::to("/admin/problems").into_response())
}

pub async fn rejudge_problem(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> PageResult {
    let user = need_admin(user)?;
    match super::api::rejudge_now(&app, super::rejudgings::Scope::Problem(id.clone()), &user).await
    {
        // The rejudging's page: progress, then the verdict diff once it applied itself.
        Ok(started) => {
            Ok(Redirect::to(&format!("/admin/rejudgings/{}", started.id)).into_response())
        }
        Err(e) => {
            e.log_if_internal();
            let body = problems_body(
                &app,
                Some(html! { p.error #result { "Cannot rejudge " (id) ": " (e.message()) } }),
            );
            Ok((e.status(), Html(page("Manage problems", Some(&user), body))).into_response())
        }
    }
}

pub async fn upload(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    mut mp: Multipart,
) -> PageResult {
    let user = need_admin(user)?;
    let mut file: Option<(String, Vec<u8>)> = None;
    while let Some(field) = mp.next_field().await.map_err(|e| {
        err(&user)(AppError::BadRequest(format!(
            "bad upload: {}",
            e.body_text()
        )))
    })? {
        if field.name() == Some("package") {
            let name = field.file_name().unwrap_or("package").to_string();
            let data = field.bytes().await.map_err(|e| {
                err(&user)(AppError::TooLarge(format!(
                    "the package could not be read: {}",
                    e.body_text()
                )))
            })?;
            file = Some((name, data.to_vec()));
        }
    }
    let Some((name, data)) = file else {
        return Err(err(&user)(AppError::BadRequest(
            "choose a package file".into(),
        )));
    };
    let a = app.clone();
    let n = name.clone();
    let outcome = tokio::task::spawn_blocking(move || install(&a, &n, &data))
        .await
        .map_err(|e| err(&user)(AppError::Internal(format!("the upload task failed: {e}"))))?;
    let message = match &outcome {
        Ok(id) => {
            super::log(&format!(
                "admin {}: installed problem {id} from {name}",
                user.name
            ));
            html! { p.note #result { "Installed " a href={ "/problems/" (id) } { (id) } " from " (name) ": it is live." } }
        }
        Err(e) => {
            super::log(&format!(
                "admin {}: upload of {name} refused: {e}",
                user.name
            ));
            html! { div.error #result role="alert" { "The package " (name) " was not installed (nothing changed):" pre.out { (e) } } }
        }
    };
    let status = if outcome.is_ok() {
        axum::http::StatusCode::OK
    } else {
        axum::http::StatusCode::BAD_REQUEST
    };
    Ok((
        status,
        Html(page(
            "Manage problems",
            Some(&user),
            problems_body(&app, Some(message)),
        )),
    )
        .into_response())
}

/// Unpacks, checks and installs a package (blocking); returns the problem id.
fn install(app: &App, filename: &str, data: &[u8]) -> Result<String, String> {
    use super::upload::{unpack, valid_id, Caps};
    let root = &app.config.server.problems;
    let key = auth::new_token().map_err(|e| e.to_string())?;
    let staging = root.join(format!(".upload-{key}"));
    let result = (|| {
        let unpacked = staging.join("unpacked");
        std::fs::create_dir_all(&unpacked)
            .map_err(|e| format!("create {}: {e}", unpacked.display()))?;
        let caps = Caps {
            max_bytes: app.config.web.max_package_size.bytes(),
            max_files: app.config.web.max_package_files,
        };
        let (folder, id) = unpack(filename, data, &unpacked, caps).map_err(|e| e.to_string())?;
        if !valid_id(&id) {
            return Err(format!("{id:?} cannot be a problem id (letters, digits, '.', '_', '-'; not starting with '.')"));
        }
        let checked = staging.join(&id);
        std::fs::rename(&folder, &checked).map_err(|e| format!("move the unpacked folder: {e}"))?;
        ojd_service::catalog::load_one(&checked, true, &app.judge)?;
        let live = root.join(&id);
        let old = staging.join("previous");
        if live.exists() {
            std::fs::rename(&live, &old).map_err(|e| format!("move the old {id} aside: {e}"))?;
        }
        if let Err(e) = std::fs::rename(&checked, &live) {
            if old.exists() {
                let _ = std::fs::rename(&old, &live);
            }
            return Err(format!("put {id} in place: {e}"));
        }
        Ok(id)
    })();
    if result.is_ok() {
        app.reload();
    }
    let _ = std::fs::remove_dir_all(&staging);
    // Name files as they are in the package, not where they were unpacked.
    let prefix = format!("{}/", staging.display());
    result.map_err(|e| e.replace(&prefix, ""))
}

// ---------------------------------------------------------------- queue

/// The submissions not yet done (an old one queued again included), newest first, at most
/// [`PENDING_ROWS`]: one query, however long the list of done ones.
fn pending_rows(
    s: &dyn ojd_store::Store,
) -> Result<ojd_store::SubmissionPage, ojd_store::StoreError> {
    s.list_page(&ListFilter {
        pending: true,
        limit: PENDING_ROWS,
        ..Default::default()
    })
}

/// The most pending rows the queue page shows.
const PENDING_ROWS: u32 = 2000;

pub async fn queue(State(app): State<Arc<App>>, MaybeUser(user): MaybeUser) -> PageResult {
    let user = need_admin(user)?;
    let (counts, pending, hosts) = app
        .db(|s| {
            let counts = s.counts()?;
            let pending = pending_rows(s)?;
            Ok((counts, pending, s.hosts()?))
        })
        .await
        .map_err(err(&user))?;
    let now = ojd_store::now_ms();
    let lease = ojd_service::node::LEASE.as_millis() as i64;
    let mut judging = Vec::new();
    for r in pending.rows.iter().filter(|r| r.state == SubState::Judging) {
        let id = r.id;
        let host = app
            .db(move |s| s.judgings(id))
            .await
            .ok()
            .and_then(|js| {
                js.into_iter()
                    .rev()
                    .find(|j| j.finished_at.is_none())
                    .map(|j| j.judged_by)
            })
            .unwrap_or_default();
        judging.push((r.clone(), host, app.hub.snapshot(id)));
    }
    let queued: Vec<_> = pending
        .rows
        .iter()
        .filter(|r| r.state == SubState::Queued)
        .collect();
    let body = html! {
        h1 { "Queue" }
        p.meta #counts {
            span { (counts.queued) " queued" }
            span { (counts.judging) " judging" }
            span { (counts.done) " done" }
            span { (app.workers) " local worker(s) on " (app.host) }
        }
        h2 { "Judge hosts" }
        @if hosts.is_empty() { p.muted { "No host has reported yet." } } @else {
            div.scroll { table.list.admin #hosts {
                thead { tr { th { "Host" } th.opt { "Role" } th { "Last heartbeat" } th { "Judging" } th.opt { "Up since" } } }
                tbody { @for h in &hosts {
                    @let alive = now - h.last_seen <= lease;
                    tr.host {
                        td { (h.name) @if !alive { " " span.badge.v-JE { "silent" } } }
                        td.opt { (h.role) }
                        td { (time_el(h.last_seen)) " " span.muted { "(" ((now - h.last_seen).max(0) / 1000) " s ago)" } }
                        td { @if h.judging.is_empty() { span.muted { "idle" } } @else {
                            @for (i, id) in h.judging.iter().enumerate() {
                                @if i > 0 { ", " } a href={ "/submissions/" (id) } { "#" (id) }
                            }
                        } }
                        td.opt { (time_el(h.started_at)) }
                    }
                } }
            } }
        }
        h2 { "Judging" }
        @if judging.is_empty() { p.muted { "Nothing is being judged." } } @else {
            div.scroll { table.list.admin #judging {
                thead { tr { th { "#" } th { "Worker" } th { "User" } th { "Problem" } th { "Progress" } th.opt { "Started" } } }
                tbody { @for (r, host, progress) in &judging {
                    tr {
                        td { a href={ "/submissions/" (r.id) } { (r.id) } }
                        td { (host) }
                        td { (r.user) }
                        td { (r.problem) }
                        td { @match progress {
                            Some(p) => { (p.tests.len()) " test(s) done" @if let Some(i) = p.running { ", running #" (i + 1) } }
                            None => { "on another host" }
                        } }
                        td.opt { @if let Some(t) = r.started_at { (time_el(t)) } }
                    }
                } }
            } }
        }
        h2 { "Queued" }
        @if queued.is_empty() { p.muted { "The queue is empty." } } @else {
            div.scroll { table.list.admin #queued {
                thead { tr { th { "#" } th { "User" } th { "Problem" } th { "State" } th.opt { "Queued" } } }
                tbody { @for r in &queued {
                    tr {
                        td { a href={ "/submissions/" (r.id) } { (r.id) } }
                        td { (r.user) } td { (r.problem) }
                        td { (badge(r.verdict, r.state)) }
                        td.opt { (time_el(r.queued_at)) }
                    }
                } }
            } }
            @if pending.has_more {
                p.muted #more-pending { "The " (PENDING_ROWS) " newest pending submissions are shown; "
                    (counts.queued + counts.judging) " are pending in all." }
            }
        }
        p { a href="/submissions" { "All submissions, with filters →" } }
    };
    Ok(Html(page("Queue", Some(&user), body)).into_response())
}
