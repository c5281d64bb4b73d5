//! Users and tokens: the issued tokens with their last use, issuing one (shown once, with a
//! one-time login link), a login link for an existing user, and revoking a token (which ends
//! its user's sessions). Issuing and links are post/redirect/get: the result is kept once for
//! the redirected page, so a refresh neither issues another token nor shows this one again.

use std::sync::Arc;

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::Form;
use maud::{html, Markup, PreEscaped};
use serde::Deserialize;

use super::{err, PageResult};
use crate::auth::extract::MaybeUser;
use crate::auth::session::{account_error, login_link};
use crate::error::AppError;
use crate::html::parts::time_el;
use crate::html::{need_admin, page};
use crate::user::{valid_name, User};
use crate::App;
use ojd_service::TokenActivity;

/// A page that shows something once (a new token): never cached.
fn once(title: &str, user: &User, body: Markup) -> Response {
    (
        [(header::CACHE_CONTROL, "no-store")],
        Html(page(title, Some(user), body)),
    )
        .into_response()
}

fn users_body(app: &App, tokens: &[TokenActivity], shown: Option<Markup>) -> Markup {
    let config_users = &app.node.config().server.users;
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
                                form method="post" action="/admin/tokens/revoke"
                                    data-confirm={ "Revoke this token of " (t.name) "? Their sessions end at once." } {
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
        @if !config_users.is_empty() || !app.node.config().server.admin_token.is_empty() {
            h2 { "Users from the config file" }
            p.muted { "Their tokens are in config.toml; change them there. A login link still works for them." }
            ul {
                @if !app.node.config().server.admin_token.is_empty() { li { "admin (admin_token)" } }
                @for u in config_users { li { (u.name) @if u.admin { " (admin)" } } }
            }
        }
    }
}

async fn token_list(app: &Arc<App>) -> Result<Vec<TokenActivity>, AppError> {
    Ok(app.node.accounts().tokens().await?)
}

/// `GET /admin/users`.
#[derive(Deserialize)]
pub(crate) struct ShownQuery {
    shown: Option<String>,
}

/// `GET /admin/users`: the tokens, and (once, after issuing one) the new token and its link.
pub(crate) async fn users(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Query(q): Query<ShownQuery>,
) -> PageResult {
    let user = need_admin(user)?;
    let tokens = token_list(&app).await.map_err(err(&user))?;
    let shown = q
        .shown
        .and_then(|key| app.guards.take_shown(&key, &user.name, "users"))
        .map(PreEscaped);
    Ok(once("Users", &user, users_body(&app, &tokens, shown)))
}

/// Post/redirect/get: the result is kept once and the browser sent to `/admin/users`.
fn shown_redirect(app: &App, user: &User, shown: Markup) -> Response {
    let key = app
        .guards
        .keep_shown(&user.name, "users", shown.into_string());
    Redirect::to(&format!("/admin/users?shown={key}")).into_response()
}

#[derive(Deserialize)]
pub(crate) struct IssueForm {
    name: String,
    admin: Option<String>,
}

/// The absolute login link for a path such as `/login?code=…`, on the address the admin used.
fn absolute(headers: &HeaderMap, path: &str) -> String {
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

/// `POST /admin/users`: a new token, shown once with a login link.
pub(crate) async fn issue(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    headers: HeaderMap,
    Form(f): Form<IssueForm>,
) -> PageResult {
    let user = need_admin(user)?;
    let name = f.name.trim().to_string();
    if !valid_name(&name) {
        return Err(err(&user)(AppError::BadRequest(format!(
            "a user name is 1 to 64 letters, digits, '.', '_' or '-' (got {name:?})"
        ))));
    }
    let admin = f.admin.is_some();
    let token = app
        .node
        .accounts()
        .issue_token(name.clone(), admin)
        .await
        .map_err(|e| err(&user)(account_error(e)))?;
    let who = User {
        name: name.clone(),
        admin,
    };
    let path = login_link(&app, &who).await.map_err(err(&user))?;
    crate::log(&format!(
        "admin {}: issued a token for {name}{}",
        user.name,
        if admin { " (admin)" } else { "" }
    ));
    let detail = format!(
        "issued a token for {name}{}",
        if admin { " (admin)" } else { "" }
    );
    crate::contests::controls::note(&app, &user.name, "token", None, detail).await;
    let minutes = app.node.config().web.login_code_lifetime.as_secs() / 60;
    let shown = login_link_box(&absolute(&headers, &path), minutes, Some(&token), &name);
    Ok(shown_redirect(&app, &user, shown))
}

/// `POST /admin/users/link`: a one-time login link for a user.
pub(crate) async fn link(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    headers: HeaderMap,
    Form(f): Form<IssueForm>,
) -> PageResult {
    let user = need_admin(user)?;
    let who = User {
        name: f.name.clone(),
        admin: f.admin.is_some(),
    };
    let path = login_link(&app, &who).await.map_err(err(&user))?;
    let detail = format!("a one-time login link for {}", who.name);
    crate::contests::controls::note(&app, &user.name, "login-link", None, detail).await;
    let minutes = app.node.config().web.login_code_lifetime.as_secs() / 60;
    let shown = login_link_box(&absolute(&headers, &path), minutes, None, &who.name);
    Ok(shown_redirect(&app, &user, shown))
}

#[derive(Deserialize)]
pub(crate) struct RevokeForm {
    name: String,
    id: String,
}

/// `POST /admin/tokens/revoke`: revokes a token and ends its user's sessions.
pub(crate) async fn revoke(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Form(f): Form<RevokeForm>,
) -> PageResult {
    let user = need_admin(user)?;
    let n = app
        .node
        .accounts()
        .revoke_token(f.name.clone(), f.id.clone())
        .await
        .map_err(|e| err(&user)(e.into()))?;
    if n == 0 {
        return Err(err(&user)(AppError::NotFound(format!(
            "no such token of {}",
            f.name
        ))));
    }
    crate::log(&format!(
        "admin {}: revoked a token of {} and ended its sessions",
        user.name, f.name
    ));
    let detail = format!("revoked a token of {}", f.name);
    crate::contests::controls::note(&app, &user.name, "token-revoke", None, detail).await;
    Ok(Redirect::to("/admin/users").into_response())
}
