//! Logging in from a browser: the login page (a token typed once), one-time login codes
//! (the links printed at first start and shown when an admin issues a token), sessions, and
//! logging out.
//!
//! # Security model
//!
//! - A **session** is a random 128-bit id in the `ojd_session` cookie (`HttpOnly`,
//!   `SameSite=Lax`, `Secure` when `[web] secure_cookies` is set or the request came through an
//!   HTTPS proxy, `Max-Age` = `[web] session_lifetime`). The server keeps only its SHA-256, with
//!   the user and the time it ends; logging out, or revoking the user's tokens, ends it.
//! - A **login code** stands in for a token in a link (`/login?code=…`): it is random, kept
//!   hashed, expires after `[web] login_code_lifetime` (10 minutes by default) and works once.
//!   Opening the link shows a button; only the POST spends the code, so a link previewer that
//!   fetches the URL does not use it up.
//! - **Failed logins** (a wrong token or code) are counted per client address; past
//!   `[web] login_attempts_per_minute` the login answers 429 until the minute has passed.
//! - Tokens never appear in URLs or cookies.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{Query, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::response::{Html, IntoResponse, Redirect, Response};
use axum::Form;
use maud::html;
use serde::Deserialize;

use super::auth::{self, hash_token, MaybeUser, User};
use super::error::AppError;
use super::html::page;
use super::App;
use ojd_store::web::Holder;
use ojd_store::{now_ms, Store, StoreError};

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

fn holder(u: &User) -> Holder {
    Holder {
        name: u.name.clone(),
        admin: u.admin,
    }
}

fn user(h: Holder) -> User {
    User {
        name: h.name,
        admin: h.admin,
    }
}

/// Starts a session for `user`; returns its id (for the cookie).
pub fn start_session(
    store: &dyn Store,
    who: &User,
    lifetime: Duration,
) -> Result<String, AppError> {
    let id = auth::new_token().map_err(|e| AppError::Internal(e.to_string()))?;
    let now = now_ms();
    store.add_session(
        &hash_token(&id),
        &holder(who),
        now.saturating_add(ms(lifetime)),
        now,
    )?;
    Ok(id)
}

/// The user of a session id, if the session is live.
pub fn session_user(_app: &App, store: &dyn Store, id: &str) -> Result<Option<User>, StoreError> {
    Ok(store.session(&hash_token(id), now_ms())?.map(user))
}

/// A one-time login code for `who`, valid for `lifetime`.
pub fn issue_code(store: &dyn Store, who: &User, lifetime: Duration) -> Result<String, AppError> {
    let code = auth::new_token().map_err(|e| AppError::Internal(e.to_string()))?;
    store.add_login_code(
        &hash_token(&code),
        &holder(who),
        now_ms().saturating_add(ms(lifetime)),
    )?;
    Ok(code)
}

/// Spends a code: the user it was for, once, before it expires.
pub fn redeem_code(store: &dyn Store, code: &str) -> Result<Option<User>, StoreError> {
    Ok(store
        .take_login_code(&hash_token(code.trim()), now_ms())?
        .map(user))
}

/// The `listen` address as a browser on this host reaches it (a wildcard becomes loopback).
pub fn shown_address(listen: &str) -> String {
    if let Some(port) = listen.strip_prefix("0.0.0.0:") {
        return format!("127.0.0.1:{port}");
    }
    if let Some(port) = listen.strip_prefix("[::]:") {
        return format!("[::1]:{port}");
    }
    listen.to_string()
}

/// A login link for `who` (path and query; the caller adds the site's address).
pub fn login_link(app: &App, who: &User) -> Result<String, AppError> {
    let code = issue_code(app.store.as_ref(), who, app.config.web.login_code_lifetime)?;
    Ok(format!("/login?code={code}"))
}

#[derive(Deserialize, Default)]
pub struct LoginForm {
    token: Option<String>,
    code: Option<String>,
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
            p.muted { "Your token or login link comes from the contest admin." }
        }
    };
    page("Log in", user, body)
}

/// `GET /login`: the form, or for `?code=` a button that spends the code.
pub async fn login_form(MaybeUser(user): MaybeUser, Query(q): Query<LoginForm>) -> Response {
    if q.token.is_some() {
        let page = login_page(
            user.as_ref(),
            Some("Tokens are not accepted in links. Type your token below, or ask for a new login link."),
            None,
        );
        return (StatusCode::BAD_REQUEST, Html(page)).into_response();
    }
    Html(login_page(user.as_ref(), None, q.code.as_deref())).into_response()
}

/// Whether the response should set a `Secure` cookie.
fn secure(app: &App, headers: &HeaderMap) -> bool {
    app.config.web.secure_cookies
        || headers
            .get("x-forwarded-proto")
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.eq_ignore_ascii_case("https"))
}

fn cookie(value: &str, max_age: i64, secure: bool) -> Option<HeaderValue> {
    let mut c = format!(
        "{}={value}; Path=/; HttpOnly; SameSite=Lax; Max-Age={max_age}",
        auth::COOKIE
    );
    if secure {
        c.push_str("; Secure");
    }
    HeaderValue::from_str(&c).ok()
}

/// `POST /login`: a token or a login code; starts a session.
pub async fn login(
    State(app): State<Arc<App>>,
    req_headers: HeaderMap,
    axum::extract::ConnectInfo(peer): axum::extract::ConnectInfo<std::net::SocketAddr>,
    Form(f): Form<LoginForm>,
) -> Result<Response, AppError> {
    let addr = Some(peer.ip());
    let per_minute = app.config.web.login_attempts_per_minute;
    app.guards.login_allowed(addr, per_minute)?;
    let (user, what) = match (f.code, f.token) {
        (Some(code), _) => (app.db(move |s| redeem_code(s, &code)).await?, "code"),
        (None, Some(token)) => {
            let a = app.clone();
            (
                app.db(move |s| auth::resolve(&a, s, &token)).await?,
                "token",
            )
        }
        (None, None) => (None, "token"),
    };
    let Some(user) = user else {
        app.guards.login_failed(addr);
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
    let lifetime = app.config.web.session_lifetime;
    let who = user.clone();
    let id = app
        .db(move |s| Ok(start_session(s, &who, lifetime)))
        .await??;
    let mut headers = HeaderMap::new();
    let value = cookie(&id, ms(lifetime) / 1000, secure(&app, &req_headers))
        .ok_or_else(|| AppError::Internal("a session cookie could not be built".into()))?;
    headers.insert(header::SET_COOKIE, value);
    super::log(&format!("login: {} by {what}", user.name));
    Ok((headers, Redirect::to("/")).into_response())
}

/// `POST /logout`: ends the session and clears the cookie.
pub async fn logout(State(app): State<Arc<App>>, req_headers: HeaderMap) -> Response {
    if let Some(id) = auth::session_of(&req_headers) {
        let hash = hash_token(&id);
        if let Err(e) = app.db(move |s| s.end_session(&hash)).await {
            e.log_if_internal();
        }
    }
    let mut headers = HeaderMap::new();
    if let Some(v) = cookie("", 0, secure(&app, &req_headers)) {
        headers.insert(header::SET_COOKIE, v);
    }
    (headers, Redirect::to("/")).into_response()
}

#[cfg(test)]
mod tests {
    use super::*;
    use ojd_store::web::WebStore;
    use ojd_store::SqliteStore;

    #[test]
    fn codes_work_once_and_expire_and_sessions_end() {
        let store = SqliteStore::in_memory().expect("store");
        let alice = User {
            name: "alice".into(),
            admin: false,
        };
        let code = issue_code(&store, &alice, Duration::from_secs(600)).expect("code");
        assert_eq!(
            redeem_code(&store, &code).expect("redeem"),
            Some(alice.clone())
        );
        assert_eq!(
            redeem_code(&store, &code).expect("redeem"),
            None,
            "used once"
        );
        let old = issue_code(&store, &alice, Duration::ZERO).expect("code");
        assert_eq!(redeem_code(&store, &old).expect("redeem"), None, "expired");

        let id = start_session(&store, &alice, Duration::from_secs(60)).expect("session");
        let found = store
            .session(&hash_token(&id), now_ms())
            .expect("get")
            .map(user);
        assert_eq!(found, Some(alice.clone()));
        assert_eq!(
            store.session(&id, now_ms()).expect("get"),
            None,
            "kept hashed"
        );
    }
}
