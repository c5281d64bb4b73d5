//! Who is asking: tokens, sessions ([`session`]), the extractors that turn a request into a
//! [`User`] ([`extract`]), and the per-user submission rate limit ([`limit`]).
//!
//! API clients send `Authorization: Bearer TOKEN`. Browsers log in once (a token typed on the
//! login page, or a one-time login code from a link, see [`session`]) and then carry a
//! session id in the `ojd_session` cookie; the raw token never sits in a cookie or a URL.
//!
//! A token is matched against `[server] admin_token` and the `[[server.users]]` of the config
//! (hashed once when first needed and compared digest to digest in constant time, every entry
//! every time, so the time taken tells nothing about which bytes matched), then against the
//! tokens issued with `ojd token issue` or the admin page, which the database keeps only as
//! SHA-256 hashes (looked up by hash).

pub(crate) mod extract;
pub(crate) mod limit;
pub(crate) mod password;
pub(crate) mod session;

use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use sha2::{Digest, Sha256};

use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_judge::hex_encode as hex;

/// The config's tokens as digests, made once: `(sha256(token), user)`.
struct ConfigTokens(Vec<([u8; 32], User)>);

impl ConfigTokens {
    pub(crate) fn new(server: &ojd_config::ServerConfig) -> ConfigTokens {
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
    pub(crate) fn find(&self, digest: &[u8; 32]) -> Option<User> {
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

/// What resolving tokens remembers between requests: the config's digests and when each
/// issued token's use was last written.
#[derive(Default)]
pub(crate) struct TokenCache {
    config: OnceLock<ConfigTokens>,
    uses: Mutex<HashMap<String, Instant>>,
}

impl TokenCache {
    /// The config's tokens as digests (hashed on first use).
    fn config_tokens(&self, server: &ojd_config::ServerConfig) -> &ConfigTokens {
        self.config.get_or_init(|| ConfigTokens::new(server))
    }

    /// Whether the use of the token with this hash should be written now (at most once a
    /// minute per token, so that reading pages does not mean writing the database each time).
    fn note_use(&self, hash: &str) -> bool {
        let mut uses = self.uses.lock().unwrap_or_else(|e| e.into_inner());
        if uses.len() > 10_000 {
            uses.clear();
        }
        match uses.get(hash) {
            Some(at) if at.elapsed() < Duration::from_secs(60) => false,
            _ => {
                uses.insert(hash.to_string(), Instant::now());
                true
            }
        }
    }
}

/// Finds the user a token names: the config's tokens first (compared as digests in constant
/// time), then the issued ones (by hash, through the service's accounts).
pub(crate) async fn resolve(app: &Arc<App>, token: String) -> Result<Option<User>, AppError> {
    let token = token.trim();
    if token.is_empty() {
        return Ok(None);
    }
    let digest: [u8; 32] = Sha256::digest(token.as_bytes()).into();
    if let Some(u) = app
        .tokens
        .config_tokens(&app.node.config().server)
        .find(&digest)
    {
        return Ok(Some(u));
    }
    let hash = hex(&digest);
    let note = app.tokens.note_use(&hash);
    let found = app.node.accounts().token_user(hash, note).await?;
    Ok(found.map(session::user))
}

/// A fresh random token: 32 hex digits of the kernel's randomness (128 bits).
pub(crate) fn new_token() -> std::io::Result<String> {
    ojd_service::new_secret()
}

/// On a first start with no admin anywhere, issues one and returns a one-time login link for
/// it (`login?code=…`, to print after the site's address). Blocking.
pub(crate) fn ensure_admin(app: &App) -> Result<Option<String>, crate::ServerError> {
    match app.node.first_admin_code() {
        Ok(code) => Ok(code.map(|c| format!("login?code={c}"))),
        Err(ojd_service::AccountError::Db(ojd_service::DbError::Store(e))) => Err(e.into()),
        Err(e) => {
            crate::log(&format!("could not issue a first admin token: {e}"));
            Ok(None)
        }
    }
}
