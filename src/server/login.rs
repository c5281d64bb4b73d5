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

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
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
use crate::store::{now_ms, Store, StoreError};

/// Sessions and login codes (held in the daemon's memory: a restart logs browsers out).
#[derive(Default)]
pub struct Book {
    /// sha256(session id) -> (user, ends at, unix ms)
    sessions: Mutex<HashMap<String, (User, i64)>>,
    /// sha256(code) -> (user, expires at, unix ms)
    codes: Mutex<HashMap<String, (User, i64)>>,
}

/// Most sessions and codes kept at once (the oldest are dropped beyond it).
const MAX_ENTRIES: usize = 100_000;

fn prune(map: &mut HashMap<String, (User, i64)>, now: i64) {
    map.retain(|_, (_, until)| *until > now);
    while map.len() >= MAX_ENTRIES {
        let Some(k) = map
            .iter()
            .min_by_key(|(_, (_, until))| *until)
            .map(|(k, _)| k.clone())
        else {
            break;
        };
        map.remove(&k);
    }
}

fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

impl Book {
    fn lock(
        m: &Mutex<HashMap<String, (User, i64)>>,
    ) -> std::sync::MutexGuard<'_, HashMap<String, (User, i64)>> {
        m.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts a session for `user`; returns its id (for the cookie).
    pub fn start_session(&self, user: &User, lifetime: Duration) -> Result<String, AppError> {
        let id = auth::new_token().map_err(|e| AppError::Internal(e.to_string()))?;
        let now = now_ms();
        let mut s = Self::lock(&self.sessions);
        prune(&mut s, now);
        s.insert(
            hash_token(&id),
            (user.clone(), now.saturating_add(ms(lifetime))),
        );
        Ok(id)
    }

    pub fn session(&self, id: &str) -> Option<User> {
        let s = Self::lock(&self.sessions);
        match s.get(&hash_token(id)) {
            Some((u, until)) if *until > now_ms() => Some(u.clone()),
            _ => None,
        }
    }

    pub fn end_session(&self, id: &str) {
        Self::lock(&self.sessions).remove(&hash_token(id));
    }

    /// Ends every session of `name` (its tokens were revoked).
    pub fn end_sessions_of(&self, name: &str) -> usize {
        let mut s = Self::lock(&self.sessions);
        let before = s.len();
        s.retain(|_, (u, _)| u.name != name);
        before - s.len()
    }

    /// A one-time login code for `user`, valid for `lifetime`.
    pub fn issue_code(&self, user: &User, lifetime: Duration) -> Result<String, AppError> {
        let code = auth::new_token().map_err(|e| AppError::Internal(e.to_string()))?;
        let now = now_ms();
        let mut c = Self::lock(&self.codes);
        prune(&mut c, now);
        c.insert(
            hash_token(&code),
            (user.clone(), now.saturating_add(ms(lifetime))),
        );
        Ok(code)
    }

    /// Spends a code: the user it was for, once, before it expires.
    pub fn redeem_code(&self, code: &str) -> Option<User> {
        let mut c = Self::lock(&self.codes);
        match c.remove(&hash_token(code.trim())) {
            Some((u, until)) if until > now_ms() => Some(u),
            _ => None,
        }
    }
}

/// The user of a session id, if the session is live.
pub fn session_user(app: &App, _store: &dyn Store, id: &str) -> Result<Option<User>, StoreError> {
    Ok(app.guards.book.session(id))
}

/// A login link for `user` (path and query; the caller adds the site's address).
pub fn login_link(app: &App, user: &User) -> Result<String, AppError> {
    let code = app
        .guards
        .book
        .issue_code(user, app.config.web.login_code_lifetime)?;
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
        (Some(code), _) => (app.guards.book.redeem_code(&code), "code"),
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
    let id = app.guards.book.start_session(&user, lifetime)?;
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
        app.guards.book.end_session(&id);
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

    #[test]
    fn codes_work_once_and_expire() {
        let book = Book::default();
        let alice = User {
            name: "alice".into(),
            admin: false,
        };
        let code = book.issue_code(&alice, Duration::from_secs(600)).unwrap();
        assert_eq!(book.redeem_code(&code), Some(alice.clone()));
        assert_eq!(book.redeem_code(&code), None, "used once");
        let old = book.issue_code(&alice, Duration::ZERO).unwrap();
        assert_eq!(book.redeem_code(&old), None, "expired");
    }

    #[test]
    fn sessions_end() {
        let book = Book::default();
        let alice = User {
            name: "alice".into(),
            admin: false,
        };
        let s = book.start_session(&alice, Duration::from_secs(60)).unwrap();
        assert_eq!(book.session(&s), Some(alice.clone()));
        assert_eq!(book.session("other"), None);
        book.end_session(&s);
        assert_eq!(book.session(&s), None);
        let s = book.start_session(&alice, Duration::from_secs(60)).unwrap();
        assert_eq!(book.end_sessions_of("alice"), 1);
        assert_eq!(book.session(&s), None);
        let s = book.start_session(&alice, Duration::ZERO).unwrap();
        assert_eq!(book.session(&s), None, "expired");
    }
}
