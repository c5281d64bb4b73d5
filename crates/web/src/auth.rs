//! Who is asking: tokens, sessions, the [`User`] extractor, and the per-user submission rate
//! limit.
//!
//! API clients send `Authorization: Bearer TOKEN`. Browsers log in once (a token typed on the
//! login page, or a one-time login code from a link, see [`super::login`]) and then carry a
//! session id in the `ojd_session` cookie; the raw token never sits in a cookie or a URL.
//!
//! A token is matched against `[server] admin_token` and the `[[server.users]]` of the config
//! (hashed once when first needed and compared digest to digest in constant time, every entry
//! every time, so the time taken tells nothing about which bytes matched), then against the
//! tokens issued with `ojd token issue` or the admin page, which the database keeps only as
//! SHA-256 hashes (looked up by hash).

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
use ojd_store::{now_ms, Store, StoreError};

/// The cookie holding a browser's session id.
pub const COOKIE: &str = "ojd_session";

/// An authenticated caller.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct User {
    pub name: String,
    pub admin: bool,
}

impl User {
    /// Whether this user may read submissions made by `owner`.
    pub fn may_see(&self, owner: &str) -> bool {
        super::view::may_see(self, owner)
    }
}

pub fn hash_token(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

pub fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The config's tokens as digests, made once: `(sha256(token), user)`.
pub struct ConfigTokens(Vec<([u8; 32], User)>);

impl ConfigTokens {
    pub fn new(server: &ojd_judge::config::ServerConfig) -> ConfigTokens {
        let digest = |t: &str| -> [u8; 32] { Sha256::digest(t.trim().as_bytes()).into() };
        let mut all = Vec::new();
        if !server.admin_token.trim().is_empty() {
            all.push((
                digest(&server.admin_token),
                User {
                    name: "admin".into(),
                    admin: true,
                },
            ));
        }
        for u in server.users.iter().filter(|u| !u.token.trim().is_empty()) {
            all.push((
                digest(&u.token),
                User {
                    name: u.name.clone(),
                    admin: u.admin,
                },
            ));
        }
        ConfigTokens(all)
    }

    /// The user whose token has this digest; compares with every entry in constant time.
    pub fn find(&self, digest: &[u8; 32]) -> Option<User> {
        use subtle::ConstantTimeEq;
        let mut found = None;
        for (d, user) in &self.0 {
            if bool::from(d[..].ct_eq(&digest[..])) && found.is_none() {
                found = Some(user.clone());
            }
        }
        found
    }
}

/// Finds the user a token names.
pub fn resolve(app: &App, store: &dyn Store, token: &str) -> Result<Option<User>, StoreError> {
    let token = token.trim();
    if token.is_empty() {
        return Ok(None);
    }
    let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
    if let Some(u) = app.guards.config_tokens(&app.config.server).find(&digest) {
        return Ok(Some(u));
    }
    let hash = hex(&digest);
    let found = store.find_token(&hash)?;
    if found.is_some() && app.guards.note_token_use(&hash) {
        store.token_used(&hash, now_ms())?;
    }
    Ok(found.map(|t| User {
        name: t.name,
        admin: t.admin,
    }))
}

/// The bearer token of a request (the Authorization header).
pub fn bearer_of(parts: &Parts) -> Option<String> {
    let v = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())?;
    v.strip_prefix("Bearer ")
        .or_else(|| v.strip_prefix("bearer "))
        .map(|t| t.trim().to_string())
}

/// The session id of a request (the cookie).
pub fn session_of(headers: &axum::http::HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.to_string())
}

/// Whether the request carries any credential (a bearer token or a session cookie).
pub fn token_of(parts: &Parts) -> Option<String> {
    bearer_of(parts).or_else(|| session_of(&parts.headers))
}

/// The caller, if the request carries a valid token or session.
pub struct MaybeUser(pub Option<User>);

impl FromRequestParts<Arc<App>> for MaybeUser {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<MaybeUser, AppError> {
        if let Some(token) = bearer_of(parts) {
            let a = app.clone();
            let user = app.db(move |s| resolve(&a, s, &token)).await?;
            return Ok(MaybeUser(user));
        }
        let Some(session) = session_of(&parts.headers) else {
            return Ok(MaybeUser(None));
        };
        let a = app.clone();
        let user = app
            .db(move |s| super::login::session_user(&a, s, &session))
            .await?;
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
pub fn new_token() -> Result<String, TokenError> {
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

/// On a first start with no admin anywhere, issues one and returns a one-time login link for
/// it (`login?code=…`, to print after the site's address).
pub fn ensure_admin(app: &App) -> Result<Option<String>, super::ServerError> {
    let server = &app.config.server;
    let configured = !server.admin_token.is_empty() || server.users.iter().any(|u| u.admin);
    if configured || !app.store.tokens()?.is_empty() || !server.users.is_empty() {
        return Ok(None);
    }
    match issue_token(app.store.as_ref(), "admin", true) {
        Ok(_) => {
            let admin = User {
                name: "admin".into(),
                admin: true,
            };
            match super::login::login_link(app, &admin) {
                Ok(link) => Ok(Some(link.trim_start_matches('/').to_string())),
                Err(e) => {
                    super::log(&format!("could not make a login link: {}", e.message()));
                    Ok(None)
                }
            }
        }
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
