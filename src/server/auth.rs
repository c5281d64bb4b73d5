//! Who is asking: tokens, the [`User`] extractor, and the per-user submission rate limit.
//!
//! A token is sent as `Authorization: Bearer TOKEN` (API clients) or in the `ojd_token` cookie
//! that the login page sets (browsers; `SameSite=Strict`, so another site cannot submit in a
//! student's name). It is matched against `[server] admin_token`, the `[[server.users]]` of the
//! config, then the tokens issued with `ojd token issue`, which the database keeps only as
//! SHA-256 hashes.

use std::collections::{HashMap, VecDeque};
use std::io::Read;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;
use sha2::{Digest, Sha256};

use super::error::AppError;
use super::App;
use crate::store::{now_ms, Store, StoreError};

/// The cookie holding a browser's token.
pub const COOKIE: &str = "ojd_token";

/// An authenticated caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub name: String,
    pub admin: bool,
}

impl User {
    /// Whether this user may read submissions made by `owner`.
    pub fn may_see(&self, owner: &str) -> bool {
        self.admin || self.name == owner
    }
}

pub fn hash_token(token: &str) -> String {
    Sha256::digest(token.as_bytes())
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Finds the user a token names.
pub fn resolve(app: &App, store: &dyn Store, token: &str) -> Result<Option<User>, StoreError> {
    let token = token.trim();
    if token.is_empty() {
        return Ok(None);
    }
    let server = &app.config.server;
    if !server.admin_token.is_empty() && server.admin_token == token {
        return Ok(Some(User {
            name: "admin".into(),
            admin: true,
        }));
    }
    if let Some(u) = server
        .users
        .iter()
        .find(|u| !u.token.is_empty() && u.token == token)
    {
        return Ok(Some(User {
            name: u.name.clone(),
            admin: u.admin,
        }));
    }
    Ok(store.find_token(&hash_token(token))?.map(|t| User {
        name: t.name,
        admin: t.admin,
    }))
}

/// The token of a request, from the Authorization header or the cookie.
pub fn token_of(parts: &Parts) -> Option<String> {
    if let Some(v) = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
    {
        if let Some(t) = v
            .strip_prefix("Bearer ")
            .or_else(|| v.strip_prefix("bearer "))
        {
            return Some(t.trim().to_string());
        }
    }
    parts
        .headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.to_string())
}

/// The caller, if the request carries a valid token.
pub struct MaybeUser(pub Option<User>);

impl FromRequestParts<Arc<App>> for MaybeUser {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<MaybeUser, AppError> {
        let Some(token) = token_of(parts) else {
            return Ok(MaybeUser(None));
        };
        let a = app.clone();
        let user = app.db(move |s| resolve(&a, s, &token)).await?;
        Ok(MaybeUser(user))
    }
}

impl FromRequestParts<Arc<App>> for User {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<User, AppError> {
        MaybeUser::from_request_parts(parts, app)
            .await?
            .0
            .ok_or(AppError::Unauthorized)
    }
}

/// An admin caller; anyone else gets 403 (401 without a token).
pub struct Admin(pub User);

impl FromRequestParts<Arc<App>> for Admin {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Admin, AppError> {
        let user = User::from_request_parts(parts, app).await?;
        if user.admin {
            Ok(Admin(user))
        } else {
            Err(AppError::Forbidden("this needs an admin token".into()))
        }
    }
}

/// Submissions per user in a sliding minute.
pub struct RateLimiter {
    per_minute: u32,
    recent: Mutex<HashMap<String, VecDeque<Instant>>>,
}

impl RateLimiter {
    pub fn new(per_minute: u32) -> RateLimiter {
        RateLimiter {
            per_minute,
            recent: Mutex::new(HashMap::new()),
        }
    }

    /// Counts one submission by `user`, or says how many seconds to wait. Admins are exempt.
    pub fn check(&self, user: &User) -> Result<(), AppError> {
        if self.per_minute == 0 || user.admin {
            return Ok(());
        }
        let window = Duration::from_secs(60);
        let now = Instant::now();
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        let times = recent.entry(user.name.clone()).or_default();
        while times
            .front()
            .is_some_and(|t| now.duration_since(*t) >= window)
        {
            times.pop_front();
        }
        if times.len() >= self.per_minute as usize {
            let oldest = times.front().copied().unwrap_or(now);
            let wait = window.saturating_sub(now.duration_since(oldest)).as_secs() + 1;
            return Err(AppError::RateLimited {
                retry_after_secs: wait,
            });
        }
        times.push_back(now);
        Ok(())
    }
}

#[derive(Debug, thiserror::Error)]
pub enum TokenError {
    #[error("failed to read random bytes for a token")]
    Random(#[source] std::io::Error),
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("a user name must be 1 to 64 letters, digits, '.', '_' or '-' (got {0:?})")]
    BadName(String),
}

/// A fresh random token: 32 hex digits of the kernel's randomness (128 bits).
fn new_token() -> Result<String, TokenError> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom")
        .and_then(|mut f| f.read_exact(&mut bytes))
        .map_err(TokenError::Random)?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
}

/// Issues a token for `name`; only its hash is stored, so it is shown once.
pub fn issue_token(store: &dyn Store, name: &str, admin: bool) -> Result<String, TokenError> {
    if !valid_name(name) {
        return Err(TokenError::BadName(name.into()));
    }
    let token = new_token()?;
    store.add_token(&hash_token(&token), name, admin, now_ms())?;
    Ok(token)
}

/// On a first start with no admin anywhere, issues one (returned once, to print).
pub fn ensure_admin(app: &App) -> Result<Option<String>, super::ServerError> {
    let server = &app.config.server;
    let configured = !server.admin_token.is_empty() || server.users.iter().any(|u| u.admin);
    if configured || !app.store.tokens()?.is_empty() || !server.users.is_empty() {
        return Ok(None);
    }
    match issue_token(app.store.as_ref(), "admin", true) {
        Ok(t) => Ok(Some(t)),
        Err(TokenError::Store(e)) => Err(e.into()),
        Err(e) => {
            super::log(&format!("could not issue a first admin token: {e}"));
            Ok(None)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rate_limit_counts_per_user_and_spares_admins() {
        let rl = RateLimiter::new(2);
        let alice = User {
            name: "alice".into(),
            admin: false,
        };
        let bob = User {
            name: "bob".into(),
            admin: false,
        };
        let root = User {
            name: "root".into(),
            admin: true,
        };
        assert!(rl.check(&alice).is_ok());
        assert!(rl.check(&alice).is_ok());
        assert!(
            matches!(rl.check(&alice), Err(AppError::RateLimited { retry_after_secs }) if retry_after_secs <= 61)
        );
        assert!(rl.check(&bob).is_ok());
        for _ in 0..5 {
            assert!(rl.check(&root).is_ok());
        }
    }

    #[test]
    fn names_and_hashes() {
        assert!(valid_name("alice_01.x-y"));
        assert!(!valid_name("") && !valid_name("a b") && !valid_name("<script>"));
        assert_eq!(hash_token("x").len(), 64);
        assert_ne!(hash_token("x"), hash_token("y"));
    }
}
