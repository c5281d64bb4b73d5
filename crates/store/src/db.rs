//! The query layer both engines share, so that a store feature is written once: SQL in
//! PostgreSQL's spelling (`$1` placeholders), parameters as [`Value`]s, rows read through
//! [`Row`], run by either synchronous driver through [`Conn`]. [`Engine`] is what each backend
//! does its own way; `sqlite/` and `postgres/` implement it.

use postgres::types::{ToSql as PgToSql, Type};
use rusqlite::types::{ToSqlOutput, ValueRef};

use crate::{Claim, DbError, StoreError};

/// Receives (channel, payload) for each notification `ClusterStore::listen` sees.
pub type EventSink = Box<dyn Fn(&str, String) + Send>;

/// One statement parameter. Each carries its PostgreSQL type, so that a statement goes out
/// with its types and costs one round trip (no prepare to learn them).
#[derive(Clone, Copy)]
pub(crate) enum Value<'a> {
    Int(Option<i64>),
    Bool(bool),
    Text(Option<&'a str>),
    Bytes(&'a [u8]),
    /// A list for `= ANY($n)`: an array on PostgreSQL, JSON text on SQLite.
    Ints(&'a [i64]),
    Texts(&'a [String]),
}

/// The parameters of a statement: `args![a, b]` is `&[Value::from(a), Value::from(b)]`.
macro_rules! args {
    ($($v:expr),* $(,)?) => { &[$($crate::db::Value::from($v)),*] };
}
pub(crate) use args;

macro_rules! value_from {
    ($($t:ty => |$v:ident| $e:expr;)*) => {$(
        impl<'a> From<$t> for Value<'a> {
            fn from($v: $t) -> Value<'a> {
                $e
            }
        }
    )*};
}

/// Counters and sizes never reach 2^63; saturating keeps the conversion total.
fn int(v: u64) -> i64 {
    i64::try_from(v).unwrap_or(i64::MAX)
}

value_from! {
    i64 => |v| Value::Int(Some(v));
    Option<i64> => |v| Value::Int(v);
    u32 => |v| Value::Int(Some(v.into()));
    u64 => |v| Value::Int(Some(int(v)));
    Option<u64> => |v| Value::Int(v.map(int));
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
        let null = ToSqlOutput::from(rusqlite::types::Null);
        let json = |text: serde_json::Result<String>| {
            text.map(ToSqlOutput::from)
                .map_err(|e| rusqlite::Error::ToSqlConversionFailure(Box::new(e)))
        };
        match self {
            Value::Int(v) => Ok(v.map_or(null, Into::into)),
            Value::Bool(v) => Ok((*v).into()),
            Value::Text(v) => Ok(v.map_or(null, Into::into)),
            Value::Bytes(v) => Ok(ToSqlOutput::Borrowed(ValueRef::Blob(v))),
            Value::Ints(v) => json(serde_json::to_string(v)),
            Value::Texts(v) => json(serde_json::to_string(v)),
        }
    }
}

impl Value<'_> {
    fn pg(&self) -> (&(dyn PgToSql + Sync), Type) {
        match self {
            Value::Int(v) => (v, Type::INT8),
            Value::Bool(v) => (v, Type::BOOL),
            Value::Text(v) => (v, Type::TEXT),
            Value::Bytes(v) => (v, Type::BYTEA),
            Value::Ints(v) => (v, Type::INT8_ARRAY),
            Value::Texts(v) => (v, Type::TEXT_ARRAY),
        }
    }
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
    /// Column `i` (from 0) as a `T`, the same Rust type whichever the engine: SQLite's integers
    /// read as booleans, PostgreSQL's INTEGER and BIGINT both as integers.
    pub(crate) fn get<T: FromCell>(&self, i: usize) -> Result<T, DbError> {
        T::from_cell(self.cell(i)?).map_err(|e| format!("column {i}: {e}").into())
    }

    fn cell(&self, i: usize) -> Result<Cell<'_>, DbError> {
        let cell = match self {
            Row::Lite(r) => match r.get_ref(i)? {
                ValueRef::Null => None,
                ValueRef::Integer(v) => Some(Cell::Int(v)),
                ValueRef::Text(v) => Some(Cell::Text(std::str::from_utf8(v)?)),
                ValueRef::Blob(v) => Some(Cell::Bytes(v)),
                ValueRef::Real(_) => return Err("a REAL, which the store never writes".into()),
            },
            Row::Pg(r) => match r.columns().get(i).ok_or("no such column")?.type_() {
                t if *t == Type::BOOL => r.try_get::<_, Option<bool>>(i)?.map(Cell::Bool),
                t if *t == Type::INT8 => r.try_get::<_, Option<i64>>(i)?.map(Cell::Int),
                t if *t == Type::INT4 => {
                    r.try_get::<_, Option<i32>>(i)?.map(|v| Cell::Int(v.into()))
                }
                t if *t == Type::BYTEA => r.try_get::<_, Option<&[u8]>>(i)?.map(Cell::Bytes),
                _ => r.try_get::<_, Option<&str>>(i)?.map(Cell::Text),
            },
        };
        Ok(cell.unwrap_or(Cell::Null))
    }
}

/// Reads one row into a value.
pub(crate) type Decode<T> = fn(&Row<'_>) -> Result<T, DbError>;
/// What a statement does, as its error says (`StoreError::Sql`).
pub(crate) type What = &'static str;
/// A statement's parameters, `$1` first.
pub(crate) type Args<'a> = &'a [Value<'a>];
pub(crate) type Res<T> = Result<T, StoreError>;

/// A Rust type a column decodes into.
pub(crate) trait FromCell: Sized {
    fn from_cell(cell: Cell<'_>) -> Result<Self, DbError>;
}

/// `FromCell` for each `type: "what it is", pattern => value, …;` (any other cell fails).
macro_rules! from_cell {
    ($($t:ty: $want:literal, $($cell:pat => $v:expr),+;)*) => {$(
        impl FromCell for $t {
            fn from_cell(cell: Cell<'_>) -> Result<$t, DbError> {
                match cell {
                    $($cell => Ok($v),)+
                    _ => Err(concat!("not ", $want).into()),
                }
            }
        }
    )*};
}

from_cell! {
    i64: "an integer", Cell::Int(v) => v;
    u32: "an integer", Cell::Int(v) => v.try_into()?;
    u64: "an integer", Cell::Int(v) => v.try_into()?;
    bool: "a boolean", Cell::Bool(v) => v, Cell::Int(v) => v != 0;
    String: "text", Cell::Text(v) => v.to_owned();
    Vec<u8>: "bytes", Cell::Bytes(v) => v.to_vec();
}

impl<T: FromCell> FromCell for Option<T> {
    fn from_cell(cell: Cell<'_>) -> Result<Option<T>, DbError> {
        match cell {
            Cell::Null => Ok(None),
            cell => T::from_cell(cell).map(Some),
        }
    }
}

/// A `postgres` connection or transaction (its own `GenericClient` cannot be a `dyn`).
pub(crate) trait PgClient {
    fn query(&mut self, sql: &str, args: Args) -> Result<Vec<postgres::Row>, DbError>;
    fn exec(&mut self, sql: &str, args: Args) -> Result<u64, DbError>;
}

impl<C: postgres::GenericClient> PgClient for C {
    fn query(&mut self, sql: &str, args: Args) -> Result<Vec<postgres::Row>, DbError> {
        let args: Vec<_> = args.iter().map(Value::pg).collect();
        Ok(self.query_typed(sql, &args)?)
    }

    fn exec(&mut self, sql: &str, args: Args) -> Result<u64, DbError> {
        let args: Vec<_> = args.iter().map(Value::pg).collect();
        Ok(self.execute_typed(sql, &args)?)
    }
}

/// A connection (or a transaction) of either engine. Every method names what it was doing
/// (`what`) in its [`StoreError::Sql`].
pub(crate) enum Conn<'c> {
    Lite(&'c rusqlite::Connection),
    Pg(&'c mut dyn PgClient),
}

impl Conn<'_> {
    /// Runs a statement; returns how many rows it changed.
    pub(crate) fn exec(&mut self, what: What, sql: &str, args: Args) -> Res<u64> {
        let n = match self {
            Conn::Lite(c) => (c.prepare_cached(&sqlite_dialect(sql)))
                .and_then(|mut st| st.execute(rusqlite::params_from_iter(args)))
                .map(|n| n as u64)
                .map_err(DbError::from),
            Conn::Pg(c) => c.exec(sql, args),
        };
        n.map_err(|source| StoreError::Sql { what, source })
    }

    /// Every row a query returns, each read by `f`.
    pub(crate) fn rows<T>(
        &mut self,
        what: What,
        sql: &str,
        args: Args,
        f: Decode<T>,
    ) -> Res<Vec<T>> {
        let mut all = || -> Result<Vec<T>, DbError> {
            let mut out = Vec::new();
            match self {
                Conn::Lite(c) => {
                    let mut st = c.prepare_cached(&sqlite_dialect(sql))?;
                    let mut rows = st.query(rusqlite::params_from_iter(args))?;
                    while let Some(r) = rows.next()? {
                        out.push(f(&Row::Lite(r))?);
                    }
                }
                Conn::Pg(c) => {
                    for r in c.query(sql, args)? {
                        out.push(f(&Row::Pg(&r))?);
                    }
                }
            }
            Ok(out)
        };
        all().map_err(|source| StoreError::Sql { what, source })
    }

    /// The first row a query returns, if any.
    pub(crate) fn row<T>(
        &mut self,
        what: What,
        sql: &str,
        args: Args,
        f: Decode<T>,
    ) -> Res<Option<T>> {
        Ok(self.rows(what, sql, args, f)?.into_iter().next())
    }

    /// The row a query always returns (`INSERT … RETURNING`, `COUNT(*)`).
    pub(crate) fn one<T>(&mut self, what: What, sql: &str, args: Args, f: Decode<T>) -> Res<T> {
        let source = || "the statement returned no row".into();
        (self.row(what, sql, args, f)?).ok_or_else(|| StoreError::Sql {
            what,
            source: source(),
        })
    }
}

/// A statement's SQL in SQLite's dialect. `$n` becomes `?n` (SQLite reads `$1` as a *named*
/// parameter, numbered in order of appearance, not by its digits); `= ANY($n)` becomes
/// `IN (SELECT value FROM json_each(?n))`, the list being bound as JSON; ` FOR UPDATE` (and
/// ` OF <table>`) goes, as SQLite has no row locks: a write transaction holds the whole
/// database. Quoted text is left alone.
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
        } else if let Some(tail) = rest.strip_prefix(" FOR UPDATE") {
            let of = tail.strip_prefix(" OF ").map_or(0, |t| {
                4 + t
                    .bytes()
                    .take_while(|b| b.is_ascii_alphanumeric() || *b == b'_')
                    .count()
            });
            " FOR UPDATE".len() + of
        } else {
            out.push(c);
            c.len_utf8()
        };
        rest = &rest[taken..];
    }
    out
}

/// Rows a many-row statement takes at most: at 12 parameters each, well under SQLite's 32766.
pub(crate) const ROWS_PER_STATEMENT: usize = 1000;

/// `($1, $2), ($3, $4), …`: `rows` tuples of `width` placeholders, for a many-row statement.
/// The text depends on the counts only, never on a value.
pub(crate) fn tuples(rows: usize, width: usize) -> String {
    let tuple = |r: usize| {
        let holes: Vec<String> = (1..=width).map(|k| format!("${}", r * width + k)).collect();
        format!("({})", holes.join(", "))
    };
    (0..rows).map(tuple).collect::<Vec<_>>().join(", ")
}

/// The digits right after `prefix` at the start of `s`, if there are any.
fn number_after<'s>(s: &'s str, prefix: &str) -> Option<&'s str> {
    let tail = s.strip_prefix(prefix)?;
    let n = tail.bytes().take_while(u8::is_ascii_digit).count();
    (n > 0).then(|| &tail[..n])
}

/// What each engine does its own way. Everything else (the methods of [`Store`](crate::Store)
/// and its area traits) is written once over [`Conn`], for every type that implements this.
pub(crate) trait Engine: Send + Sync {
    /// Runs `f` on a connection; with `tx` (what to say if it cannot begin, commit), inside one
    /// transaction, committed when `f` succeeds and rolled back when it fails.
    fn run<T>(&self, tx: Option<(What, What)>, f: impl FnOnce(&mut Conn<'_>) -> Res<T>) -> Res<T>;

    /// Runs `f` in one transaction (see [`Engine::run`]).
    fn tx<T>(&self, begin: What, commit: What, f: impl FnOnce(&mut Conn<'_>) -> Res<T>) -> Res<T> {
        self.run(Some((begin, commit)), f)
    }

    /// One statement, alone on a connection ([`Conn::exec`]).
    fn exec(&self, what: What, sql: &str, args: Args) -> Res<u64> {
        self.run(None, |c| c.exec(what, sql, args))
    }

    /// One query, alone on a connection ([`Conn::rows`]).
    fn rows<T>(&self, what: What, sql: &str, args: Args, f: Decode<T>) -> Res<Vec<T>> {
        self.run(None, |c| c.rows(what, sql, args, f))
    }

    /// One query, alone on a connection ([`Conn::row`]).
    fn row<T>(&self, what: What, sql: &str, args: Args, f: Decode<T>) -> Res<Option<T>> {
        self.run(None, |c| c.row(what, sql, args, f))
    }

    /// One query, alone on a connection ([`Conn::one`]).
    fn one<T>(&self, what: What, sql: &str, args: Args, f: Decode<T>) -> Res<T> {
        self.run(None, |c| c.one(what, sql, args, f))
    }

    /// [`Store::claim_except`](crate::Store::claim_except).
    fn claim_next(
        &self,
        host: &str,
        now: i64,
        lease_ms: i64,
        skip: &[String],
    ) -> Res<Option<Claim>>;

    /// `ClusterStore::stores_blobs`.
    const KEEPS_BLOBS: bool;

    /// The database's own clock in Unix milliseconds, as an SQL expression. Leases are set and
    /// judged expired by it, never by a host's clock: a host whose clock runs fast cannot take
    /// other hosts' live claims, nor one running slow keep a dead claim.
    const NOW_MS: &'static str;

    /// `ClusterStore::notify`.
    fn send_events(&self, payloads: &[String]) -> Res<()>;

    /// `ClusterStore::listen`.
    fn listen_events(&self, sink: EventSink) -> Res<bool>;
}

#[cfg(test)]
mod tests {
    use super::{sqlite_dialect, tuples};

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
            sqlite_dialect("SELECT s.id FROM s, j FOR UPDATE OF s_1"),
            "SELECT s.id FROM s, j"
        );
        assert_eq!(
            sqlite_dialect("SELECT '$1 FOR UPDATE', \"$2\", $"),
            "SELECT '$1 FOR UPDATE', \"$2\", $"
        );
        assert_eq!(sqlite_dialect("= ANY($x)"), "= ANY($x)");
        assert_eq!(tuples(2, 3), "($1, $2, $3), ($4, $5, $6)");
    }
}
