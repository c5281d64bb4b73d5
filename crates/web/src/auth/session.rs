//! Browser sessions and one-time login codes, kept in the store as SHA-256 hashes.
//!
//! - A **session** is a random 128-bit id in the [`COOKIE`] cookie (set by the login page:
//!   `HttpOnly`, `SameSite=Lax`, `Secure` when `[web] secure_cookies` is set or the request came
//!   through an HTTPS proxy, `Max-Age` = `[web] session_lifetime`). The server keeps only its
//!   SHA-256, with the user and the time it ends; logging out, or revoking the user's tokens,
//!   ends it.
//! - A **login code** stands in for a token in a link (`/login?code=…`): it is random, kept
//!   hashed, expires after `[web] login_code_lifetime` (10 minutes by default) and works once.
//!   Opening the link shows a button; only the POST spends the code, so a link previewer that
//!   fetches the URL does not use it up.

use std::time::Duration;

use super::{hash_token, new_token};
use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_store::Holder;
use ojd_store::{now_ms, Store, StoreError};

/// The cookie holding a browser's session id.
pub(crate) const COOKIE: &str = "ojd_session";

/// A lifetime in milliseconds, as the store counts them.
pub(crate) fn ms(d: Duration) -> i64 {
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
pub(crate) fn start_session(
    store: &dyn Store,
    who: &User,
    lifetime: Duration,
) -> Result<String, AppError> {
    let id = new_token().map_err(|e| AppError::Internal(e.to_string()))?;
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
pub(crate) fn session_user(store: &dyn Store, id: &str) -> Result<Option<User>, StoreError> {
    Ok(store.session(&hash_token(id), now_ms())?.map(user))
}

/// A one-time login code for `who`, valid for `lifetime`.
pub fn issue_code(store: &dyn Store, who: &User, lifetime: Duration) -> Result<String, AppError> {
    let code = new_token().map_err(|e| AppError::Internal(e.to_string()))?;
    store.add_login_code(
        &hash_token(&code),
        &holder(who),
        now_ms().saturating_add(ms(lifetime)),
    )?;
    Ok(code)
}

/// Spends a code: the user it was for, once, before it expires.
pub(crate) fn redeem_code(store: &dyn Store, code: &str) -> Result<Option<User>, StoreError> {
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
pub(crate) fn login_link(app: &App, who: &User) -> Result<String, AppError> {
    let code = issue_code(
        app.node.store().as_ref(),
        who,
        app.node.config().web.login_code_lifetime,
    )?;
    Ok(format!("/login?code={code}"))
}

#[cfg(test)]
mod tests {
    use super::*;
    use ojd_store::SqliteStore;
    use ojd_store::WebStore;

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
