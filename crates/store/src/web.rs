//! The web layer's storage: browser sessions, one-time login codes, and when each token was
//! last used. Ids and codes are kept as SHA-256 hashes, like tokens: the database never holds
//! anything that would log someone in.

use serde::Serialize;

use super::StoreError;

/// Who a session or login code stands for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    pub name: String,
    pub admin: bool,
}

/// An issued token as the admin page lists it.
#[derive(Clone, Debug, Serialize)]
pub struct TokenActivity {
    pub name: String,
    pub admin: bool,
    pub created_at: i64,
    /// The last request or login made with it (`None`: never used).
    pub last_used: Option<i64>,
    /// A short prefix of its hash, to tell a user's tokens apart (never the token).
    pub id: String,
}

pub trait WebStore: Send + Sync {
    /// Stores a session (by the hash of its id) that ends at `expires_at`.
    fn add_session(
        &self,
        hash: &str,
        who: &Holder,
        expires_at: i64,
        now: i64,
    ) -> Result<(), StoreError>;
    /// The holder of a live session; expired sessions are deleted on the way.
    fn session(&self, hash: &str, now: i64) -> Result<Option<Holder>, StoreError>;
    fn end_session(&self, hash: &str) -> Result<(), StoreError>;
    /// Ends every session of `name`; returns how many.
    fn end_sessions_of(&self, name: &str) -> Result<u64, StoreError>;
    /// Stores a one-time login code (by its hash) valid until `expires_at`.
    fn add_login_code(&self, hash: &str, who: &Holder, expires_at: i64) -> Result<(), StoreError>;
    /// Spends a code: deletes it and returns its holder if it had not expired.
    fn take_login_code(&self, hash: &str, now: i64) -> Result<Option<Holder>, StoreError>;
    /// Notes that the token with this hash was used at `now`.
    fn token_used(&self, hash: &str, now: i64) -> Result<(), StoreError>;
    /// Every issued token with its last use, by name.
    fn token_activity(&self) -> Result<Vec<TokenActivity>, StoreError>;
    /// Revokes one token, named by the prefix of its hash shown in [`TokenActivity::id`].
    fn revoke_token(&self, name: &str, id: &str) -> Result<u64, StoreError>;
}
