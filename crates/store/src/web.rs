//! The web layer's storage: browser sessions, one-time login codes, when each token was
//! last used, and teams' password hashes (Argon2id PHC strings, made by the web layer). Ids
//! and codes are kept as SHA-256 hashes, like tokens: the database never holds anything that
//! would log someone in.

use serde::Serialize;

use super::StoreError;
use crate::db::{args, Engine, Row};
use crate::DbError;

/// Characters of a token's hash shown to tell tokens apart.
const ID_LEN: usize = 12;

/// Who a session or login code stands for. `admin` is what it was issued with; whoever reads
/// it checks the user's current record (the config, their tokens, the contests) instead.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Holder {
    /// The user's name.
    pub name: String,
    /// Whether it was issued with admin rights (see above: readers check the user's current
    /// rights).
    pub admin: bool,
    /// The contest whose hall sheet made it, if one did: bound to that contest.
    pub contest: Option<String>,
}

/// A login code as found: live (with its holder), revoked (by a reprint of its sheet or the
/// removal of its user, kept until it would have expired), or unknown (never issued, used,
/// or expired).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CodeState {
    /// Issued, not used and not expired: it logs its holder in once.
    Live(Holder),
    /// Revoked before it was used; its holder is kept so the refusal can say whose it was.
    Revoked(Holder),
    /// Never issued, already used or expired.
    Unknown,
}

/// What a user's issued tokens say of them: whether they hold any, and any admin one.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TokenRights {
    /// The user holds at least one token.
    pub any: bool,
    /// The user holds an admin token.
    pub admin: bool,
}

/// An issued token as the admin page lists it.
#[derive(Clone, Debug, Serialize)]
pub struct TokenActivity {
    /// The user the token authenticates.
    pub name: String,
    /// Whether it carries admin rights.
    pub admin: bool,
    /// When it was issued (Unix ms).
    pub created_at: i64,
    /// The last request or login made with it (`None`: never used).
    pub last_used: Option<i64>,
    /// A short prefix of its hash, to tell a user's tokens apart (never the token).
    pub id: String,
}

/// What the web layer stores: sessions, one-time login codes, tokens' rights and activity, and
/// password hashes. Every backend implements it.
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
    /// Ends the session whose id hashes to `hash` (logout); ending an unknown one is not an error.
    fn end_session(&self, hash: &str) -> Result<(), StoreError>;
    /// Ends every session of `name`; returns how many.
    fn end_sessions_of(&self, name: &str) -> Result<u64, StoreError>;
    /// Ends the sessions of `name` bound to `contest`; returns how many.
    fn end_sessions_in(&self, name: &str, contest: &str) -> Result<u64, StoreError>;
    /// Stores a one-time login code (by its hash) valid until `expires_at`.
    fn add_login_code(&self, hash: &str, who: &Holder, expires_at: i64) -> Result<(), StoreError>;
    /// Spends a code: deletes a live one and returns its holder; a revoked one stays (its link
    /// keeps saying so until it would have expired).
    fn take_login_code(&self, hash: &str, now: i64) -> Result<CodeState, StoreError>;
    /// What a code is, without spending it.
    fn peek_login_code(&self, hash: &str, now: i64) -> Result<CodeState, StoreError>;
    /// Revokes the unspent codes of `contest` (`name`'s only, when given); returns how many.
    fn revoke_codes_in(
        &self,
        contest: &str,
        name: Option<&str>,
        now: i64,
    ) -> Result<u64, StoreError>;
    /// Revokes every unspent code of `name`; returns how many.
    fn revoke_codes_of(&self, name: &str, now: i64) -> Result<u64, StoreError>;
    /// What `name`'s issued tokens say of them.
    fn token_rights(&self, name: &str) -> Result<TokenRights, StoreError>;
    /// Notes that the token with this hash was used at `now`.
    fn token_used(&self, hash: &str, now: i64) -> Result<(), StoreError>;
    /// Every issued token with its last use, by name.
    fn token_activity(&self) -> Result<Vec<TokenActivity>, StoreError>;
    /// Revokes one token, named by the prefix of its hash shown in [`TokenActivity::id`].
    fn revoke_token(&self, name: &str, id: &str) -> Result<u64, StoreError>;
    /// Sets `name`'s password hash (a PHC string; the store never sees a password), replacing
    /// any earlier one.
    fn set_password(&self, name: &str, hash: &str, now: i64) -> Result<(), StoreError>;
    /// `name`'s password hash, if a password was set.
    fn password_hash(&self, name: &str) -> Result<Option<String>, StoreError>;
}

/// A holder from `name, admin, contest` at the row's start.
fn holder(r: &Row<'_>) -> Result<Holder, DbError> {
    Ok(Holder {
        name: r.get(0)?,
        admin: r.get(1)?,
        contest: r.get(2)?,
    })
}

impl<E: Engine> WebStore for E {
    fn add_session(
        &self,
        hash: &str,
        who: &Holder,
        expires_at: i64,
        now: i64,
    ) -> Result<(), StoreError> {
        let prune = "DELETE FROM sessions WHERE expires_at <= $1";
        let add = "INSERT INTO sessions (hash, name, admin, created_at, expires_at, contest)
             VALUES ($1, $2, $3, $4, $5, $6)";
        self.run(None, |c| {
            c.exec("prune sessions", prune, args![now])?;
            let args = args![hash, &who.name, who.admin, now, expires_at, &who.contest];
            c.exec("store a session", add, args).map(drop)
        })
    }

    fn session(&self, hash: &str, now: i64) -> Result<Option<Holder>, StoreError> {
        let sql = "SELECT name, admin, contest FROM sessions WHERE hash = $1 AND expires_at > $2";
        self.row("look up a session", sql, args![hash, now], holder)
    }

    fn end_session(&self, hash: &str) -> Result<(), StoreError> {
        let sql = "DELETE FROM sessions WHERE hash = $1";
        self.exec("end a session", sql, args![hash]).map(drop)
    }

    fn end_sessions_of(&self, name: &str) -> Result<u64, StoreError> {
        let sql = "DELETE FROM sessions WHERE name = $1";
        self.exec("end sessions", sql, args![name])
    }

    fn end_sessions_in(&self, name: &str, contest: &str) -> Result<u64, StoreError> {
        let sql = "DELETE FROM sessions WHERE name = $1 AND contest = $2";
        self.exec("end sessions", sql, args![name, contest])
    }

    fn add_login_code(&self, hash: &str, who: &Holder, expires_at: i64) -> Result<(), StoreError> {
        let sql = "INSERT INTO login_codes (hash, name, admin, expires_at, contest)
             VALUES ($1, $2, $3, $4, $5)";
        let args = args![hash, &who.name, who.admin, expires_at, &who.contest];
        self.exec("store a login code", sql, args).map(drop)
    }

    fn take_login_code(&self, hash: &str, now: i64) -> Result<CodeState, StoreError> {
        // DELETE … RETURNING: two nodes spending the same code cannot both get it.
        let take = "DELETE FROM login_codes WHERE hash = $1 AND revoked_at IS NULL
             RETURNING name, admin, contest, expires_at";
        let prune = "DELETE FROM login_codes WHERE expires_at <= $1";
        let what = "spend a login code";
        self.tx(what, what, |c| {
            let found = c.row(what, take, args![hash], |r| {
                Ok((holder(r)?, r.get::<i64>(3)?))
            })?;
            c.exec(what, prune, args![now])?;
            if let Some((h, until)) = found {
                return Ok(if until > now {
                    CodeState::Live(h)
                } else {
                    CodeState::Unknown
                });
            }
            // Not live: a revoked code is still there, marked (the prune kept it if unexpired).
            let revoked = "SELECT name, admin, contest FROM login_codes
                 WHERE hash = $1 AND revoked_at IS NOT NULL";
            Ok(c.row(what, revoked, args![hash], holder)?
                .map_or(CodeState::Unknown, CodeState::Revoked))
        })
    }

    fn peek_login_code(&self, hash: &str, now: i64) -> Result<CodeState, StoreError> {
        let sql = "SELECT name, admin, contest, revoked_at FROM login_codes
             WHERE hash = $1 AND expires_at > $2";
        let found = self.row("look up a login code", sql, args![hash, now], |r| {
            Ok((holder(r)?, r.get::<Option<i64>>(3)?))
        })?;
        Ok(match found {
            None => CodeState::Unknown,
            Some((h, None)) => CodeState::Live(h),
            Some((h, Some(_))) => CodeState::Revoked(h),
        })
    }

    fn revoke_codes_in(
        &self,
        contest: &str,
        name: Option<&str>,
        now: i64,
    ) -> Result<u64, StoreError> {
        let what = "revoke login codes";
        match name {
            Some(name) => {
                let sql = "UPDATE login_codes SET revoked_at = $3
                     WHERE contest = $1 AND name = $2 AND revoked_at IS NULL";
                self.exec(what, sql, args![contest, name, now])
            }
            None => {
                let sql = "UPDATE login_codes SET revoked_at = $2
                     WHERE contest = $1 AND revoked_at IS NULL";
                self.exec(what, sql, args![contest, now])
            }
        }
    }

    fn revoke_codes_of(&self, name: &str, now: i64) -> Result<u64, StoreError> {
        let sql = "UPDATE login_codes SET revoked_at = $2 WHERE name = $1 AND revoked_at IS NULL";
        self.exec("revoke login codes", sql, args![name, now])
    }

    fn token_rights(&self, name: &str) -> Result<TokenRights, StoreError> {
        let sql = "SELECT admin FROM tokens WHERE name = $1";
        let admins = self.rows("read a user's tokens", sql, args![name], |r| {
            r.get::<bool>(0)
        })?;
        Ok(TokenRights {
            any: !admins.is_empty(),
            admin: admins.into_iter().any(|a| a),
        })
    }

    fn token_used(&self, hash: &str, now: i64) -> Result<(), StoreError> {
        let sql = "UPDATE tokens SET last_used = $2 WHERE hash = $1";
        self.exec("note a token's use", sql, args![hash, now])
            .map(drop)
    }

    fn token_activity(&self) -> Result<Vec<TokenActivity>, StoreError> {
        let sql = "SELECT name, admin, created_at, last_used, hash FROM tokens
             ORDER BY name, created_at";
        self.rows("list tokens", sql, args![], |r| {
            Ok(TokenActivity {
                name: r.get(0)?,
                admin: r.get(1)?,
                created_at: r.get(2)?,
                last_used: r.get(3)?,
                id: r.get::<String>(4)?.chars().take(ID_LEN).collect(),
            })
        })
    }

    fn revoke_token(&self, name: &str, id: &str) -> Result<u64, StoreError> {
        if id.len() != ID_LEN || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(0);
        }
        let sql = "DELETE FROM tokens WHERE name = $1 AND substr(hash, 1, length($2)) = $2";
        self.exec("revoke a token", sql, args![name, id])
    }

    fn set_password(&self, name: &str, hash: &str, now: i64) -> Result<(), StoreError> {
        let sql = "INSERT INTO passwords (user_name, hash, set_at) VALUES ($1, $2, $3)
             ON CONFLICT (user_name) DO UPDATE SET hash = excluded.hash, set_at = excluded.set_at";
        self.exec("set a password", sql, args![name, hash, now])
            .map(drop)
    }

    fn password_hash(&self, name: &str) -> Result<Option<String>, StoreError> {
        let sql = "SELECT hash FROM passwords WHERE user_name = $1";
        self.row("read a password hash", sql, args![name], |r| r.get(0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{SqliteStore, Store};

    fn alice() -> Holder {
        Holder {
            name: "alice".into(),
            admin: false,
            contest: None,
        }
    }

    #[test]
    fn sessions_and_codes() {
        let s = SqliteStore::in_memory().expect("store");
        s.add_session("h1", &alice(), 100, 0).expect("add");
        assert_eq!(s.session("h1", 50).expect("get"), Some(alice()));
        assert_eq!(s.session("h1", 100).expect("get"), None, "expired");
        s.end_session("h1").expect("end");
        assert_eq!(s.session("h1", 50).expect("get"), None);
        s.add_session("h2", &alice(), 100, 0).expect("add");
        assert_eq!(s.end_sessions_of("alice").expect("end"), 1);

        s.add_login_code("c1", &alice(), 100).expect("code");
        let live = CodeState::Live(alice());
        assert_eq!(s.peek_login_code("c1", 10).expect("peek"), live);
        assert_eq!(s.take_login_code("c1", 10).expect("take"), live);
        let gone = s.take_login_code("c1", 10).expect("take");
        assert_eq!(gone, CodeState::Unknown, "used once");
        s.add_login_code("c2", &alice(), 100).expect("code");
        let late = s.take_login_code("c2", 100).expect("take");
        assert_eq!(late, CodeState::Unknown, "expired");
    }

    #[test]
    fn codes_of_a_contest_are_revoked_and_say_so() {
        let s = SqliteStore::in_memory().expect("store");
        let sheet = Holder {
            contest: Some("final".into()),
            ..alice()
        };
        let bob = Holder {
            name: "bob".into(),
            ..sheet.clone()
        };
        s.add_login_code("a1", &sheet, 100).expect("code");
        s.add_login_code("b1", &bob, 100).expect("code");
        s.add_login_code("free", &alice(), 100).expect("code");
        assert_eq!(
            s.revoke_codes_in("final", Some("alice"), 5)
                .expect("revoke"),
            1
        );
        assert_eq!(
            s.take_login_code("a1", 10).expect("take"),
            CodeState::Revoked(sheet.clone())
        );
        assert_eq!(
            s.take_login_code("a1", 10).expect("take"),
            CodeState::Revoked(sheet),
            "a revoked code stays revoked, never spent"
        );
        assert_eq!(s.revoke_codes_in("final", None, 6).expect("revoke"), 1);
        assert!(matches!(
            s.peek_login_code("b1", 10).expect("peek"),
            CodeState::Revoked(_)
        ));
        assert_eq!(s.revoke_codes_of("alice", 7).expect("revoke"), 1);
        assert!(matches!(
            s.take_login_code("free", 10).expect("take"),
            CodeState::Revoked(_)
        ));
        assert_eq!(
            s.peek_login_code("b1", 100).expect("peek"),
            CodeState::Unknown
        );

        s.add_session(
            "s1",
            &Holder {
                contest: Some("final".into()),
                ..alice()
            },
            100,
            0,
        )
        .expect("add");
        s.add_session("s2", &alice(), 100, 0).expect("add");
        assert_eq!(s.end_sessions_in("alice", "final").expect("end"), 1);
        assert!(s.session("s2", 1).expect("get").is_some());

        assert_eq!(
            s.token_rights("alice").expect("rights"),
            TokenRights::default()
        );
        s.add_token(&"a".repeat(64), "alice", false, 1)
            .expect("add");
        let rights = s.token_rights("alice").expect("rights");
        assert_eq!((rights.any, rights.admin), (true, false));
        s.add_token(&"b".repeat(64), "alice", true, 1).expect("add");
        assert!(s.token_rights("alice").expect("rights").admin);
    }

    #[test]
    fn token_activity_and_revocation() {
        let s = SqliteStore::in_memory().expect("store");
        let h1 = "a".repeat(64);
        let h2 = "b".repeat(64);
        s.add_token(&h1, "alice", false, 5).expect("add");
        s.add_token(&h2, "alice", false, 6).expect("add");
        s.token_used(&h1, 9).expect("used");
        let list = s.token_activity().expect("list");
        assert_eq!(list.len(), 2);
        assert_eq!((list[0].last_used, list[1].last_used), (Some(9), None));
        assert_eq!(s.revoke_token("alice", &list[1].id).expect("revoke"), 1);
        assert_eq!(s.revoke_token("alice", "zz").expect("revoke"), 0);
        assert_eq!(s.token_activity().expect("list").len(), 1);
    }
}
