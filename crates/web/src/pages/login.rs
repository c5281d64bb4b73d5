//! Logging in from a browser: the login page (a token typed once, a team's user name and
//! password, or the button of a one-time login link), and logging out. Sessions and login codes themselves are kept by `auth`.
//!
//! - The session cookie is `HttpOnly`, `SameSite=Lax`, `Secure` when `[web] secure_cookies` is
//!   set or the request came through an HTTPS proxy, and lives `[web] session_lifetime`.
//! - **Failed logins** (a wrong token or code) are counted per client address; past
//!   `[web] login_attempts_per_minute` the login answers 429 until the minute has passed. Each
//!   failed login is logged and written to the audit log with its address (never what was
//!   typed); each login too, with the name. Wrong passwords are limited per account and, with
//!   a larger budget, per address instead (`auth::password`).
//! - Tokens never appear in URLs or cookies: a link with `?token=` is refused.

use std::sync::Arc;

use axum::extract::{ConnectInfo, Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::Form;
use maud::html;
use serde::Deserialize;

use crate::auth::extract::{session_of, MaybeUser};
use crate::auth::resolve;
use crate::auth::session::{code_user, ms, record, start_session, COOKIE};
use crate::error::AppError;
use crate::html::page;
use crate::user::User;
use crate::App;
use ojd_service::Redeemed;

#[derive(Deserialize, Default)]
pub(crate) struct LoginForm {
    token: Option<String>,
    code: Option<String>,
    /// A team's user name and password (see `auth::password`).
    user: Option<String>,
    password: Option<String>,
}

fn login_page(user: Option<&User>, error: Option<&str>, code: Option<&str>) -> String {
    let body = html! {
        h1 { "Log in" }
        @if let Some(e) = error { p.error role="alert" { (e) } }
        @if let Some(code) = code {
            form.login method="post" action="/login" {
                input type="hidden" name="code" value=(code);
                p { "This one-time link logs you in on this browser." }
                button type="submit" #login-code { "Log in" }
            }
        } @else {
            form.login method="post" action="/login" {
                label { "Token" input type="password" name="token" #token autocomplete="current-password" required; }
                button type="submit" { "Log in" }
            }
            h2 { "Or with a user name and password" }
            form.login #password-login method="post" action="/login" {
                label { "User name" input type="text" name="user" #user autocomplete="username" autocapitalize="none" spellcheck="false" required; }
                label { "Password" input type="password" name="password" #password autocomplete="current-password" required; }
                button type="submit" #password-button { "Log in" }
            }
            p.muted { "Your token, password or login link comes from the contest admin." }
        }
    };
    page("Log in", user, body)
}

/// What a revoked login link says (410: it will never work again).
const REVOKED: &str = "This login link was revoked: the contest's director printed new links, \
     removed this team, or the contest has ended. Ask the contest admin for a new one.";

fn revoked_page(user: Option<&User>) -> Response {
    let body = html! {
        h1 { "This link was revoked" }
        p.error #revoked role="alert" { (REVOKED) }
        p { a href="/login" { "Log in another way" } }
    };
    (StatusCode::GONE, Html(page("Link revoked", user, body))).into_response()
}

/// `GET /login`: the form, or for `?code=` a button that spends the code (a revoked code's
/// link says so at once; the code is not spent by looking).
pub(crate) async fn login_form(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Query(q): Query<LoginForm>,
) -> Response {
    if q.token.is_some() {
        let page = login_page(
            user.as_ref(),
            Some("Tokens are not accepted in links. Type your token below, or ask for a new login link."),
            None,
        );
        return (StatusCode::BAD_REQUEST, Html(page)).into_response();
    }
    if let Some(code) = q.code.clone() {
        match code_user(&app, code, false).await {
            Ok(Redeemed::Revoked) => return revoked_page(user.as_ref()),
            Ok(_) => {}
            Err(e) => e.log_if_internal(),
        }
    }
    Html(login_page(user.as_ref(), None, q.code.as_deref())).into_response()
}

/// Whether the response should set a `Secure` cookie.
fn secure(app: &App, headers: &HeaderMap) -> bool {
    app.node.config().web.secure_cookies
        || headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("https"))
}

fn cookie(value: &str, max_age: i64, secure: bool) -> Option<HeaderValue> {
    let mut c = format!("{COOKIE}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}");
    if secure {
        c.push_str("; Secure");
    }
    HeaderValue::from_str(&c).ok()
}

/// `POST /login`: a token or a login code; starts a session.
pub(crate) async fn login(
    State(app): State<Arc<App>>,
    req_headers: HeaderMap,
    ConnectInfo(peer): ConnectInfo<std::net::SocketAddr>,
    Form(f): Form<LoginForm>,
) -> Result<Response, AppError> {
    let addr = Some(peer.ip());
    let per_minute = app.node.config().web.login_attempts_per_minute;
    if let (Some(name), Some(password)) = (f.user.clone(), f.password.clone()) {
        return password_login(app, req_headers, peer, name.trim().to_string(), password).await;
    }
    app.guards.login_allowed(addr, per_minute)?;
    let (user, what, contest) = match (f.code, f.token) {
        (Some(code), _) => match code_user(&app, code, true).await? {
            Redeemed::User(a, contest) => (Some(crate::auth::session::user(a)), "code", contest),
            Redeemed::Revoked => {
                crate::log(&format!("login refused: a revoked link from {}", peer.ip()));
                return Ok(revoked_page(None));
            }
            Redeemed::Invalid => (None, "code", None),
        },
        (None, Some(token)) => (resolve(&app, token).await?, "token", None),
        (None, None) => (None, "token", None),
    };
    let Some(user) = user else {
        app.guards.login_failed(addr);
        // Logged and audited: a director sees guessing (never the token typed).
        let from = peer.ip().to_string();
        crate::log(&format!("login failed: a wrong {what} from {from}"));
        audit(&app, from, "login-failed", format!("a wrong {what}")).await;
        let message = if what == "code" {
            "This login link is not valid: it was used already or it expired. Ask for a new one."
        } else {
            "This token is not valid."
        };
        return Ok((
            StatusCode::UNAUTHORIZED,
            Html(login_page(None, Some(message), None)),
        )
            .into_response());
    };
    start(app, req_headers, peer, user, what, contest).await
}

/// Starts `user`'s session (logged and audited as a login by `what`; bound to `contest` when a
/// hall sheet's link logged them in), then goes home.
async fn start(
    app: Arc<App>,
    req_headers: HeaderMap,
    peer: std::net::SocketAddr,
    user: User,
    what: &str,
    contest: Option<String>,
) -> Result<Response, AppError> {
    let lifetime = app.node.config().web.session_lifetime;
    let id = start_session(&app, &user, contest, lifetime).await?;
    let mut headers = HeaderMap::new();
    let value = cookie(&id, ms(lifetime) / 1000, secure(&app, &req_headers))
        .ok_or_else(|| AppError::Internal("a session cookie could not be built".into()))?;
    headers.insert(header::SET_COOKIE, value);
    crate::log(&format!("login: {} by {what}", user.name));
    let detail = format!("by {what} from {}", peer.ip());
    audit(&app, user.name.clone(), "login", detail).await;
    Ok((headers, Redirect::to("/")).into_response())
}

/// A team's login by user name and password: limited per account and, with a larger budget,
/// per address (see `auth::password`); a wrong one is logged and audited with the account and
/// the address. Passwords never log in an admin.
async fn password_login(
    app: Arc<App>,
    req_headers: HeaderMap,
    peer: std::net::SocketAddr,
    name: String,
    password: String,
) -> Result<Response, AppError> {
    let addr = Some(peer.ip());
    let per_minute = app.node.config().web.login_attempts_per_minute;
    app.guards.password_allowed(&name, addr, per_minute)?;
    let stored = app.node.accounts().password_hash(name.clone()).await?;
    // Only a user something still knows (a team, a listed participant) logs in, and never
    // an admin: by the current record, as every request is checked.
    let known = record(&app, name.clone()).await?;
    let admin = known.as_ref().is_none_or(|u| u.admin);
    let ok = tokio::task::spawn_blocking(move || {
        // The same work whether or not the account has a password: the time tells nothing.
        let hash = stored.unwrap_or_else(|| DUMMY.get_or_init(dummy_hash).clone());
        crate::auth::password::verify(&hash, &password)
    })
    .await
    .map_err(|e| AppError::Internal(format!("checking a password stopped: {e}")))?;
    if !ok || admin {
        app.guards.password_failed(&name, addr);
        let from = peer.ip().to_string();
        crate::log(&format!(
            "login failed: a wrong password for {name:?} from {from}"
        ));
        let detail = format!("a wrong password for {name:?} from {from}");
        audit(&app, from, "login-failed", detail).await;
        return Ok((
            StatusCode::UNAUTHORIZED,
            Html(login_page(
                None,
                Some("This user name and password do not match."),
                None,
            )),
        )
            .into_response());
    }
    let user = User { name, admin: false };
    start(app, req_headers, peer, user, "password", None).await
}

/// Writes a login's line of the audit log; a failure to write it is logged, never the login's.
async fn audit(app: &Arc<App>, who: String, action: &'static str, detail: String) {
    if let Err(e) = app.node.accounts().audit(who, action, detail).await {
        AppError::from(e).log_if_internal();
    }
}

static DUMMY: std::sync::OnceLock<String> = std::sync::OnceLock::new();

/// A hash no password matches in practice, checked for an account without a password.
fn dummy_hash() -> String {
    crate::auth::password::hash("no password is set for this account").unwrap_or_default()
}

/// `POST /logout`: ends the session and clears the cookie.
pub(crate) async fn logout(State(app): State<Arc<App>>, req_headers: HeaderMap) -> Response {
    if let Some(id) = session_of(&req_headers) {
        if let Err(e) = app.node.accounts().end_session(&id).await {
            AppError::from(e).log_if_internal();
        }
    }
    let mut headers = HeaderMap::new();
    if let Some(v) = cookie("", 0, secure(&app, &req_headers)) {
        headers.insert(header::SET_COOKIE, v);
    }
    (headers, Redirect::to("/")).into_response()
}
