//! SQLite: the login tokens (kept as SHA-256 hashes).

use rusqlite::{params, OptionalExtension};

use super::SqliteStore;
use crate::{sql, StoreError, TokenInfo};

pub(super) fn add(
    s: &SqliteStore,
    hash: &str,
    name: &str,
    admin: bool,
    now: i64,
) -> Result<(), StoreError> {
    s.conn()
        .execute(
            "INSERT INTO tokens (hash, name, admin, created_at) VALUES (?1, ?2, ?3, ?4)",
            params![hash, name, admin, now],
        )
        .map_err(sql("store a token"))?;
    Ok(())
}

pub(super) fn revoke(s: &SqliteStore, name: &str) -> Result<u64, StoreError> {
    let n = s
        .conn()
        .execute("DELETE FROM tokens WHERE name = ?1", [name])
        .map_err(sql("revoke tokens"))?;
    Ok(n as u64)
}

fn token_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<TokenInfo> {
    Ok(TokenInfo {
        name: r.get(0)?,
        admin: r.get(1)?,
        created_at: r.get(2)?,
    })
}

pub(super) fn find(s: &SqliteStore, hash: &str) -> Result<Option<TokenInfo>, StoreError> {
    s.conn()
        .query_row(
            "SELECT name, admin, created_at FROM tokens WHERE hash = ?1",
            [hash],
            token_row,
        )
        .optional()
        .map_err(sql("look up a token"))
}

pub(super) fn list(s: &SqliteStore) -> Result<Vec<TokenInfo>, StoreError> {
    let conn = s.conn();
    let mut st = conn
        .prepare_cached("SELECT name, admin, created_at FROM tokens ORDER BY name")
        .map_err(sql("list tokens"))?;
    let rows = st.query_map([], token_row).map_err(sql("list tokens"))?;
    rows.collect::<Result<Vec<_>, _>>()
        .map_err(sql("list tokens"))
}
