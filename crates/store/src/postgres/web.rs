//! PostgreSQL: sessions, login codes and token activity (see [`crate::web`]); the
//! same queries as `sqlite/web.rs` in PostgreSQL's dialect.

use super::PgStore;
use crate::web::{Holder, TokenActivity, WebStore};
use crate::{sql, StoreError};

/// Characters of a token's hash shown to tell tokens apart.
const ID_LEN: usize = 12;

/// The web area's tables (entry 4 of the migration list).
pub const MIGRATION: &str = "CREATE TABLE sessions (
        hash TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        admin BOOLEAN NOT NULL,
        created_at BIGINT NOT NULL,
        expires_at BIGINT NOT NULL
    );
    CREATE INDEX sessions_name ON sessions(name);
    CREATE TABLE login_codes (
        hash TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        admin BOOLEAN NOT NULL,
        expires_at BIGINT NOT NULL
    );
    ALTER TABLE tokens ADD COLUMN last_used BIGINT;";

impl WebStore for PgStore {
    fn add_session(
        &self,
        hash: &str,
        who: &Holder,
        expires_at: i64,
        now: i64,
    ) -> Result<(), StoreError> {
        let mut c = self.conn()?;
        c.execute("DELETE FROM sessions WHERE expires_at <= $1", &[&now])
            .map_err(sql("prune sessions"))?;
        c.execute(
            "INSERT INTO sessions (hash, name, admin, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)",
            &[&hash, &who.name, &who.admin, &now, &expires_at],
        )
        .map_err(sql("store a session"))?;
        Ok(())
    }

    fn session(&self, hash: &str, now: i64) -> Result<Option<Holder>, StoreError> {
        let row = self
            .conn()?
            .query_opt(
                "SELECT name, admin FROM sessions WHERE hash = $1 AND expires_at > $2",
                &[&hash, &now],
            )
            .map_err(sql("look up a session"))?;
        Ok(row.map(|r| Holder {
            name: r.get(0),
            admin: r.get(1),
        }))
    }

    fn end_session(&self, hash: &str) -> Result<(), StoreError> {
        self.conn()?
            .execute("DELETE FROM sessions WHERE hash = $1", &[&hash])
            .map_err(sql("end a session"))?;
        Ok(())
    }

    fn end_sessions_of(&self, name: &str) -> Result<u64, StoreError> {
        self.conn()?
            .execute("DELETE FROM sessions WHERE name = $1", &[&name])
            .map_err(sql("end sessions"))
    }

    fn add_login_code(&self, hash: &str, who: &Holder, expires_at: i64) -> Result<(), StoreError> {
        self.conn()?
            .execute(
                "INSERT INTO login_codes (hash, name, admin, expires_at) VALUES ($1, $2, $3, $4)",
                &[&hash, &who.name, &who.admin, &expires_at],
            )
            .map_err(sql("store a login code"))?;
        Ok(())
    }

    fn take_login_code(&self, hash: &str, now: i64) -> Result<Option<Holder>, StoreError> {
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(sql("spend a login code"))?;
        // DELETE … RETURNING: two nodes spending the same code cannot both get it.
        let found = tx
            .query_opt(
                "DELETE FROM login_codes WHERE hash = $1 RETURNING name, admin, expires_at",
                &[&hash],
            )
            .map_err(sql("spend a login code"))?;
        tx.execute("DELETE FROM login_codes WHERE expires_at <= $1", &[&now])
            .map_err(sql("spend a login code"))?;
        tx.commit().map_err(sql("spend a login code"))?;
        Ok(found.and_then(|r| {
            let until: i64 = r.get(2);
            (until > now).then(|| Holder {
                name: r.get(0),
                admin: r.get(1),
            })
        }))
    }

    fn token_used(&self, hash: &str, now: i64) -> Result<(), StoreError> {
        self.conn()?
            .execute(
                "UPDATE tokens SET last_used = $2 WHERE hash = $1",
                &[&hash, &now],
            )
            .map_err(sql("note a token's use"))?;
        Ok(())
    }

    fn token_activity(&self) -> Result<Vec<TokenActivity>, StoreError> {
        let found = self
            .conn()?
            .query(
                "SELECT name, admin, created_at, last_used, hash FROM tokens ORDER BY name, created_at",
                &[],
            )
            .map_err(sql("list tokens"))?;
        Ok(found
            .iter()
            .map(|r| {
                let hash: String = r.get(4);
                TokenActivity {
                    name: r.get(0),
                    admin: r.get(1),
                    created_at: r.get(2),
                    last_used: r.get(3),
                    id: hash.chars().take(ID_LEN).collect(),
                }
            })
            .collect())
    }

    fn revoke_token(&self, name: &str, id: &str) -> Result<u64, StoreError> {
        if id.len() != ID_LEN || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(0);
        }
        self.conn()?
            .execute(
                "DELETE FROM tokens WHERE name = $1 AND substr(hash, 1, $3) = $2",
                &[&name, &id, &(ID_LEN as i32)],
            )
            .map_err(sql("revoke a token"))
    }
}
