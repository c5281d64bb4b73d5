//! The query layer both engines share, so that a store feature is written once: SQL in
//! PostgreSQL's spelling (`$1` placeholders), parameters as [`Value`]s, rows read through
//! [`Row`], all run by either synchronous driver through [`Conn`]. [`Engine`] is what each
//! backend does its own way (connections, transactions, and the few statements its dialect
//! makes different); `sqlite/` and `postgres/` implement it.

use postgres::types::{ToSql as PgToSql, Type};
use rusqlite::types::{ToSqlOutput, ValueRef};

use crate::cluster::EventSink;
use crate::{Claim, DbError, StoreError};

/// One statement parameter. Each carries its PostgreSQL type, so that a statement goes out
/// with its types and costs one round trip (no prepare to learn them).
pub(crate) enum Value<'a> {
    Int(Option<i64>),
    Bool(bool),
    Text(Option<&'a str>),
    Bytes(&'a [u8]),
    /// A list for `= ANY($n)`: an array on PostgreSQL, JSON text on SQLite.
    Ints(&'a [i64]),
    Texts(&'a [String]),
    /// A value only PostgreSQL statements take (the arrays of a one-statement write).
    Pg(&'a (dyn PgToSql + Sync), Type),
}

/// The parameters of a statement: `args![a, b]` is `&[Value::from(a), Value::from(b)]`.
macro_rules! args {
    ($($v:expr),* $(,)?) => { &[$($crate::db::Value::from($v)),*] };
}
pub(crate) use args;

macro_rules! value_from {
    ($($t:ty => |$v:ident| $e:expr;)*) => {
        $(impl<'a> From<$t> for Value<'a> {
            fn from($v: $t) -> Value<'a> {
                $e
            }
        })*
    };
}

value_from! {
    i64 => |v| Value::Int(Some(v));
    Option<i64> => |v| Value::Int(v);
    u32 => |v| Value::Int(Some(v.into()));
    // Counters and sizes never reach 2^63; saturating keeps the conversion total.
    u64 => |v| Value::Int(Some(i64::try_from(v).unwrap_or(i64::MAX)));
    Option<u64> => |v| Value::Int(v.map(|v| i64::try_from(v).unwrap_or(i64::MAX)));
    bool => |v| Value::Bool(v);
    &'a str => |v| Value::Text(Some(v));
    &'a String => |v| Value::Text(Some(v));
    Option<&'a str> => |v| Value::Text(v);
    &'a Option<String> => |v| Value::Text(v.as_deref());
    &'a [u8] => |v| Value::Bytes(v);
    &'a Vec<u8> => |v| Value::Bytes(v);
    &'a [i64] => |v| Value::Ints(v);
    &'a [String] => |v| Value::Texts(v);
}

impl rusqlite::ToSql for Value<'_> {
    fn to_sql(&self) -> rusqlite::Result<ToSqlOutput<'_>> {
        let json = |text: serde_json::Result<String>| {
            text.map(ToSqlOutput::from)
                .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
        };
        Ok(match self {
            Value::Int(v) => v.map_or(ToSqlOutput::from(rusqlite::types::Null), Into::into),
            Value::Bool(v) => (*v).into(),
            Value::Text(v) => v.map_or(ToSqlOutput::from(rusqlite::types::Null), Into::into),
            Value::Bytes(v) => ToSqlOutput::Borrowed(ValueRef::Blob(v)),
            Value::Ints(v) => json(serde_json::to_string(v))?,
            Value::Texts(v) => json(serde_json::to_string(v))?,
            Value::Pg(_, ty) => {
                let e = format!("a {ty} parameter is for PostgreSQL only");
                return Err(rusqlite::Error::ToSqlConversionFailure(e.into()));
            }
        })
    }
}

fn pg_params<'v>(args: &'v [Value<'_>]) -> Vec<(&'v (dyn PgToSql + Sync), Type)> {
    args.iter()
        .map(|v| -> (&(dyn PgToSql + Sync), Type) {
            match v {
                Value::Int(v) => (v, Type::INT8),
                Value::Bool(v) => (v, Type::BOOL),
                Value::Text(v) => (v, Type::TEXT),
                Value::Bytes(v) => (v, Type::BYTEA),
                Value::Ints(v) => (v, Type::INT8_ARRAY),
                Value::Texts(v) => (v, Type::TEXT_ARRAY),
                Value::Pg(v, ty) => (*v, ty.clone()),
            }
        })
        .collect()
}

/// A row of either driver.
pub(crate) enum Row<'r> {
    Lite(&'r rusqlite::Row<'r>),
    Pg(&'r postgres::Row),
}

/// A column's value as both drivers can give it.
pub(crate) enum Cell<'r> {
    Null,
    Int(i64),
    Bool(bool),
    Text(&'r str),
    Bytes(&'r [u8]),
}

impl Row<'_> {
    /// Column `i` (from 0) as a `T`: the same Rust type whichever engine (SQLite's integers
    /// read as booleans, PostgreSQL's INTEGER and BIGINT both as i64).
    pub fn get<T: FromCell>(&self, i: usize) -> Result<T, DbError> {
        T::from_cell(self.cell(i)?).map_err(|e| format!("column {i}: {e}").into())
    }

    fn cell(&self, i: usize) -> Result<Cell<'_>, DbError> {
        match self {
            Row::Lite(r) => Ok(match r.get_ref(i)? {
                ValueRef::Null => Cell::Null,
                ValueRef::Integer(v) => Cell::Int(v),
                ValueRef::Text(v) => Cell::Text(std::str::from_utf8(v)?),
                ValueRef::Blob(v) => Cell::Bytes(v),
                ValueRef::Real(_) => return Err(format!("column {i} is a REAL").into()),
            }),
            Row::Pg(r) => {
                let ty = r.columns().get(i).ok_or("no such column")?.type_();
                let cell = if *ty == Type::BOOL {
                    r.try_get::<_, Option<bool>>(i)?.map(Cell::Bool)
                } else if *ty == Type::INT8 {
                    r.try_get::<_, Option<i64>>(i)?.map(Cell::Int)
                } else if *ty == Type::INT4 {
                    r.try_get::<_, Option<i32>>(i)?.map(|v| Cell::Int(v.into()))
                } else if *ty == Type::BYTEA {
                    r.try_get::<_, Option<&[u8]>>(i)?.map(Cell::Bytes)
                } else {
                    r.try_get::<_, Option<&str>>(i)?.map(Cell::Text)
                };
                Ok(cell.unwrap_or(Cell::Null))
            }
        }
    }
}

/// A Rust type a column decodes into.
pub(crate) trait FromCell: Sized {
    fn from_cell(cell: Cell<'_>) -> Result<Self, DbError>;
}

fn wrong<T>(want: &str) -> Result<T, DbError> {
    Err(format!("not {want}").into())
}

impl FromCell for i64 {
    fn from_cell(cell: Cell<'_>) -> Result<i64, DbError> {
        match cell {
            Cell::Int(v) => Ok(v),
            _ => wrong("an integer"),
        }
    }
}

impl FromCell for u32 {
    fn from_cell(cell: Cell<'_>) -> Result<u32, DbError> {
        Ok(i64::from_cell(cell)?.try_into()?)
    }
}

impl FromCell for u64 {
    fn from_cell(cell: Cell<'_>) -> Result<u64, DbError> {
        Ok(i64::from_cell(cell)?.try_into()?)
    }
}

impl FromCell for bool {
    fn from_cell(cell: Cell<'_>) -> Result<bool, DbError> {
        match cell {
            Cell::Bool(v) => Ok(v),
            Cell::Int(v) => Ok(v != 0),
            _ => wrong("a boolean"),
        }
    }
}

impl FromCell for String {
    fn from_cell(cell: Cell<'_>) -> Result<String, DbError> {
        match cell {
            Cell::Text(v) => Ok(v.to_owned()),
            _ => wrong("text"),
        }
    }
}

impl FromCell for Vec<u8> {
    fn from_cell(cell: Cell<'_>) -> Result<Vec<u8>, DbError> {
        match cell {
            Cell::Bytes(v) => Ok(v.to_vec()),
            _ => wrong("bytes"),
        }
    }
}

impl<T: FromCell> FromCell for Option<T> {
    fn from_cell(cell: Cell<'_>) -> Result<Option<T>, DbError> {
        match cell {
            Cell::Null => Ok(None),
            cell => T::from_cell(cell).map(Some),
        }
    }
}

/// The `postgres` connection and transaction as one object (its own `GenericClient` is not).
pub(crate) trait PgClient {
    fn rows(&mut self, sql: &str, args: &[Value<'_>]) -> Result<Vec<postgres::Row>, DbError>;
    fn exec(&mut self, sql: &str, args: &[Value<'_>]) -> Result<u64, DbError>;
}

impl<C: postgres::GenericClient> PgClient for C {
    fn rows(&mut self, sql: &str, args: &[Value<'_>]) -> Result<Vec<postgres::Row>, DbError> {
        Ok(self.query_typed(sql, &pg_params(args))?)
    }

    fn exec(&mut self, sql: &str, args: &[Value<'_>]) -> Result<u64, DbError> {
        Ok(self.execute_typed(sql, &pg_params(args))?)
    }
}

/// A connection (or a transaction) of either engine.
pub(crate) enum Conn<'c> {
    Lite(&'c rusqlite::Connection),
    Pg(&'c mut dyn PgClient),
}

impl Conn<'_> {
    /// Runs a statement; returns how many rows it changed. `what` names it in errors.
    pub fn exec(
        &mut self,
        what: &'static str,
        sql: &str,
        args: &[Value],
    ) -> Result<u64, StoreError> {
        let n = match self {
            Conn::Lite(c) => c
                .prepare_cached(&sqlite_dialect(sql))
                .and_then(|mut st| st.execute(rusqlite::params_from_iter(args)))
                .map(|n| n as u64)
                .map_err(DbError::from),
            Conn::Pg(c) => c.exec(sql, args),
        };
        n.map_err(|source| StoreError::Sql { what, source })
    }

    /// Every row a query returns, each decoded by `f`.
    pub fn rows<T>(
        &mut self,
        what: &'static str,
        sql: &str,
        args: &[Value],
        mut f: impl FnMut(&Row<'_>) -> Result<T, DbError>,
    ) -> Result<Vec<T>, StoreError> {
        let mut out = Vec::new();
        let mut all = || -> Result<(), DbError> {
            match self {
                Conn::Lite(c) => {
                    let mut st = c.prepare_cached(&sqlite_dialect(sql))?;
                    let mut rows = st.query(rusqlite::params_from_iter(args))?;
                    while let Some(r) = rows.next()? {
                        out.push(f(&Row::Lite(r))?);
                    }
                }
                Conn::Pg(c) => {
                    for r in c.rows(sql, args)? {
                        out.push(f(&Row::Pg(&r))?);
                    }
                }
            }
            Ok(())
        };
        all().map_err(|source| StoreError::Sql { what, source })?;
        Ok(out)
    }

    /// The first row a query returns, if any.
    pub fn row<T>(
        &mut self,
        what: &'static str,
        sql: &str,
        args: &[Value],
        f: impl FnMut(&Row<'_>) -> Result<T, DbError>,
    ) -> Result<Option<T>, StoreError> {
        Ok(self.rows(what, sql, args, f)?.into_iter().next())
    }

    /// The row a query always returns (`INSERT … RETURNING`, `COUNT(*)`).
    pub fn one<T>(
        &mut self,
        what: &'static str,
        sql: &str,
        args: &[Value],
        f: impl FnMut(&Row<'_>) -> Result<T, DbError>,
    ) -> Result<T, StoreError> {
        self.row(what, sql, args, f)?
            .ok_or_else(|| StoreError::Sql {
                what,
                source: "the statement returned no row".into(),
            })
    }
}

/// A statement's SQL in SQLite's dialect. `$n` becomes `?n` (SQLite reads `$1` as a *named*
/// parameter, numbered in order of appearance, not by its digits); `= ANY($n)` becomes
/// `IN (SELECT value FROM json_each(?n))`, the list being bound as JSON; ` FOR UPDATE` goes,
/// as SQLite has no row locks (a write transaction holds the whole database). Quoted text is
/// left alone.
pub(crate) fn sqlite_dialect(sql: &str) -> String {
    let mut out = String::with_capacity(sql.len() + 32);
    let mut rest = sql;
    while let Some(c) = rest.chars().next() {
        let taken = if c == '\'' || c == '"' {
            let end = rest[1..].find(c).map_or(rest.len(), |e| e + 2);
            out.push_str(&rest[..end]);
            end
        } else if let Some(n) =
            number_after(rest, "= ANY($").filter(|n| rest[7 + n.len()..].starts_with(')'))
        {
            out.push_str("IN (SELECT value FROM json_each(?");
            out.push_str(n);
            out.push_str("))");
            7 + n.len() + 1
        } else if let Some(n) = number_after(rest, "$") {
            out.push('?');
            out.push_str(n);
            1 + n.len()
        } else if rest.starts_with(" FOR UPDATE") {
            " FOR UPDATE".len()
        } else {
            out.push(c);
            c.len_utf8()
        };
        rest = &rest[taken..];
    }
    out
}

/// The digits right after `prefix` at the start of `s`, if there are any.
fn number_after<'s>(s: &'s str, prefix: &str) -> Option<&'s str> {
    let tail = s.strip_prefix(prefix)?;
    let n = tail.bytes().take_while(u8::is_ascii_digit).count();
    (n > 0).then(|| &tail[..n])
}

/// What each engine does its own way. Everything else (the [`Store`](crate::Store) traits'
/// methods) is written once over [`Conn`], for every type that implements this.
pub(crate) trait Engine: Send + Sync {
    /// Runs `f` on a connection; when `tx` names what to say if it cannot `(begin, commit)`,
    /// inside one transaction, committed when `f` succeeds and rolled back when it fails.
    fn run<T>(
        &self,
        tx: Option<(&'static str, &'static str)>,
        f: impl FnOnce(&mut Conn<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError>;

    /// Runs `f` in one transaction (see [`Engine::run`]).
    fn tx<T>(
        &self,
        begin: &'static str,
        commit: &'static str,
        f: impl FnOnce(&mut Conn<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        self.run(Some((begin, commit)), f)
    }

    /// [`Store::claim`](crate::Store::claim).
    fn claim_next(
        &self,
        host: &str,
        now: i64,
        lease_until: i64,
    ) -> Result<Option<Claim>, StoreError>;

    /// Stores a verdict into the open judging of claim (`id`, `attempt`), inside `finish`'s
    /// transaction: the judging's row, its tests, the submission done. `None` when the claim is
    /// stale and nothing was written, else the rejudging the judging belongs to.
    fn store_verdict(
        &self,
        c: &mut Conn<'_>,
        v: &Finish<'_>,
    ) -> Result<Option<Option<i64>>, StoreError>;

    /// [`ClusterStore::heartbeat`](crate::cluster::ClusterStore::heartbeat).
    fn beat(&self, b: &Beat<'_>) -> Result<u64, StoreError>;

    /// Makes each `(submission, judging)` pair current, inside the caller's transaction.
    fn set_current(&self, c: &mut Conn<'_>, pairs: &[(i64, i64)]) -> Result<(), StoreError>;

    /// [`ClusterStore::stores_blobs`](crate::cluster::ClusterStore::stores_blobs).
    const KEEPS_BLOBS: bool;

    /// [`ClusterStore::notify`](crate::cluster::ClusterStore::notify).
    fn send_events(&self, payloads: &[String]) -> Result<(), StoreError>;

    /// [`ClusterStore::listen`](crate::cluster::ClusterStore::listen).
    fn listen_events(&self, sink: EventSink) -> Result<bool, StoreError>;
}

/// What [`Engine::store_verdict`] writes.
pub(crate) struct Finish<'a> {
    pub id: i64,
    pub attempt: u32,
    pub now: i64,
    pub report: &'a ojd_judge::verdict::JudgeReport,
    pub message: &'a str,
    /// The report's warnings, as JSON.
    pub warnings: String,
    /// The slowest test's wall time.
    pub max_wall: Option<u64>,
}

/// A heartbeat, as [`Engine::beat`] records it.
pub(crate) struct Beat<'a> {
    pub host: &'a str,
    pub role: &'a str,
    pub started_at: i64,
    pub now: i64,
    pub lease_until: i64,
    pub judging: &'a [i64],
    /// Its counters, as JSON.
    pub stats: String,
}

#[cfg(test)]
mod tests {
    use super::sqlite_dialect;

    #[test]
    fn postgres_sql_reads_as_sqlite() {
        assert_eq!(
            sqlite_dialect("SELECT a FROM t WHERE b = $1 AND c = $12 OR $2 IS NULL"),
            "SELECT a FROM t WHERE b = ?1 AND c = ?12 OR ?2 IS NULL"
        );
        assert_eq!(
            sqlite_dialect(r#"UPDATE t SET "user" = '$1', x = $2 WHERE id = ANY($3)"#),
            r#"UPDATE t SET "user" = '$1', x = ?2 WHERE id IN (SELECT value FROM json_each(?3))"#
        );
        assert_eq!(
            sqlite_dialect("SELECT state FROM r WHERE id = $1\n FOR UPDATE"),
            "SELECT state FROM r WHERE id = ?1\n"
        );
        assert_eq!(
            sqlite_dialect("SELECT '$1 FOR UPDATE', \"$2\", $"),
            "SELECT '$1 FOR UPDATE', \"$2\", $"
        );
        assert_eq!(sqlite_dialect("= ANY($x)"), "= ANY($x)");
    }
}
