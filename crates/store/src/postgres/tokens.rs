//! PostgreSQL: the login tokens (kept as SHA-256 hashes).

use super::PgStore;
use crate::{sql, StoreError, TokenInfo};

pub(super) fn add(
    s: &PgStore,
    hash: &str,
    name: &str,
    admin: bool,
    now: i64,
) -> Result<(), StoreError> {
    s.conn()?
        .execute(
            "INSERT INTO tokens (hash, name, admin, created_at) VALUES ($1, $2, $3, $4)",
            &[&hash, &name, &admin, &now],
        )
        .map_err(sql("store a token"))?;
    Ok(())
}

pub(super) fn revoke(s: &PgStore, name: &str) -> Result<u64, StoreError> {
    s.conn()?
        .execute("DELETE FROM tokens WHERE name = $1", &[&name])
        .map_err(sql("revoke tokens"))
}

fn token_row(r: &postgres::Row) -> Result<TokenInfo, postgres::Error> {
    Ok(TokenInfo {
        name: r.try_get(0)?,
        admin: r.try_get(1)?,
        created_at: r.try_get(2)?,
    })
}

pub(super) fn find(s: &PgStore, hash: &str) -> Result<Option<TokenInfo>, StoreError> {
    let row = s
        .conn()?
        .query_opt(
            "SELECT name, admin, created_at FROM tokens WHERE hash = $1",
            &[&hash],
        )
        .map_err(sql("look up a token"))?;
    row.as_ref()
        .map(token_row)
        .transpose()
        .map_err(sql("look up a token"))
}

pub(super) fn list(s: &PgStore) -> Result<Vec<TokenInfo>, StoreError> {
    let found = s
        .conn()?
        .query(
            "SELECT name, admin, created_at FROM tokens ORDER BY name",
            &[],
        )
        .map_err(sql("list tokens"))?;
    found
        .iter()
        .map(token_row)
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql("list tokens"))
}
