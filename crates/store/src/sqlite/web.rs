//! SQLite: sessions, login codes and token activity (see [`crate::web`]).

use rusqlite::{params, OptionalExtension};

use super::SqliteStore;
use crate::web::{Holder, TokenActivity, WebStore};
use crate::{sql, StoreError};

/// Characters of a token's hash shown to tell tokens apart.
const ID_LEN: usize = 12;

impl WebStore for SqliteStore {
    fn add_session(
        &self,
        hash: &str,
        who: &Holder,
        expires_at: i64,
        now: i64,
    ) -> Result<(), StoreError> {
        let conn = self.conn();
        conn.execute("DELETE FROM sessions WHERE expires_at <= ?1", [now])
            .map_err(sql("prune sessions"))?;
        conn.execute(
            "INSERT INTO sessions (hash, name, admin, created_at, expires_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![hash, who.name, who.admin, now, expires_at],
        )
        .map_err(sql("store a session"))?;
        Ok(())
    }

    fn session(&self, hash: &str, now: i64) -> Result<Option<Holder>, StoreError> {
        self.conn()
            .query_row(
                "SELECT name, admin FROM sessions WHERE hash = ?1 AND expires_at > ?2",
                params![hash, now],
                |r| {
                    Ok(Holder {
                        name: r.get(0)?,
                        admin: r.get(1)?,
                    })
                },
            )
            .optional()
            .map_err(sql("look up a session"))
    }

    fn end_session(&self, hash: &str) -> Result<(), StoreError> {
        self.conn()
            .execute("DELETE FROM sessions WHERE hash = ?1", [hash])
            .map_err(sql("end a session"))?;
        Ok(())
    }

    fn end_sessions_of(&self, name: &str) -> Result<u64, StoreError> {
        let n = self
            .conn()
            .execute("DELETE FROM sessions WHERE name = ?1", [name])
            .map_err(sql("end sessions"))?;
        Ok(n as u64)
    }

    fn add_login_code(&self, hash: &str, who: &Holder, expires_at: i64) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT INTO login_codes (hash, name, admin, expires_at) VALUES (?1, ?2, ?3, ?4)",
                params![hash, who.name, who.admin, expires_at],
            )
            .map_err(sql("store a login code"))?;
        Ok(())
    }

    fn take_login_code(&self, hash: &str, now: i64) -> Result<Option<Holder>, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(sql("spend a login code"))?;
        let found = tx
            .query_row(
                "SELECT name, admin, expires_at FROM login_codes WHERE hash = ?1",
                [hash],
                |r| {
                    Ok((
                        Holder {
                            name: r.get(0)?,
                            admin: r.get(1)?,
                        },
                        r.get::<_, i64>(2)?,
                    ))
                },
            )
            .optional()
            .map_err(sql("spend a login code"))?;
        tx.execute(
            "DELETE FROM login_codes WHERE hash = ?1 OR expires_at <= ?2",
            params![hash, now],
        )
        .map_err(sql("spend a login code"))?;
        tx.commit().map_err(sql("spend a login code"))?;
        Ok(found.and_then(|(h, until)| (until > now).then_some(h)))
    }

    fn token_used(&self, hash: &str, now: i64) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "UPDATE tokens SET last_used = ?2 WHERE hash = ?1",
                params![hash, now],
            )
            .map_err(sql("note a token's use"))?;
        Ok(())
    }

    fn token_activity(&self) -> Result<Vec<TokenActivity>, StoreError> {
        let conn = self.conn();
        let mut st = conn
            .prepare_cached("SELECT name, admin, created_at, last_used, hash FROM tokens ORDER BY name, created_at")
            .map_err(sql("list tokens"))?;
        let rows = st
            .query_map([], |r| {
                let hash: String = r.get(4)?;
                Ok(TokenActivity {
                    name: r.get(0)?,
                    admin: r.get(1)?,
                    created_at: r.get(2)?,
                    last_used: r.get(3)?,
                    id: hash.chars().take(ID_LEN).collect(),
                })
            })
            .map_err(sql("list tokens"))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(sql("list tokens"))
    }

    fn revoke_token(&self, name: &str, id: &str) -> Result<u64, StoreError> {
        if id.len() != ID_LEN || !id.bytes().all(|b| b.is_ascii_hexdigit()) {
            return Ok(0);
        }
        let n = self
            .conn()
            .execute(
                "DELETE FROM tokens WHERE name = ?1 AND substr(hash, 1, ?3) = ?2",
                params![name, id, ID_LEN as i64],
            )
            .map_err(sql("revoke a token"))?;
        Ok(n as u64)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Store;

    fn alice() -> Holder {
        Holder {
            name: "alice".into(),
            admin: false,
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
        assert_eq!(s.take_login_code("c1", 10).expect("take"), Some(alice()));
        assert_eq!(
            s.take_login_code("c1", 10).expect("take"),
            None,
            "used once"
        );
        s.add_login_code("c2", &alice(), 100).expect("code");
        assert_eq!(s.take_login_code("c2", 100).expect("take"), None, "expired");
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
