//! The embedded SQLite store: one connection behind a mutex (SQLite writes one at a time
//! anyway), WAL journal, `synchronous = FULL` so an acknowledged submission survives even a
//! power cut. Every store method is shared (see `db.rs`); here is only what SQLite does
//! its own way: opening and migrating, the claim as steps of one transaction (its single
//! writer is the lock; it has no data-modifying `WITH`), and no cross-host events.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::Connection;

use crate::cluster::EventSink;
use crate::db::{args, Conn, Engine, Res, What};
use crate::schema::{migrations, Dialect, VACUUM_AFTER, VERSION};
use crate::{sql, Claim, StoreError};

/// See the module docs.
pub struct SqliteStore {
    conn: Mutex<Connection>,
}

impl SqliteStore {
    /// Opens (creating if needed) the database and runs the migrations.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        SqliteStore::with_connection(Connection::open(path), &path.display().to_string())
    }

    /// A throwaway database, for tests.
    pub fn in_memory() -> Result<SqliteStore, StoreError> {
        SqliteStore::with_connection(Connection::open_in_memory(), ":memory:")
    }

    fn with_connection(
        opened: rusqlite::Result<Connection>,
        name: &str,
    ) -> Result<SqliteStore, StoreError> {
        let mut conn = opened.map_err(|source| StoreError::Open {
            path: name.to_string(),
            source: Box::new(source),
        })?;
        // Another process (`ojd token`) may hold the write lock for a moment.
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(sql("set the busy timeout"))?;
        conn.execute_batch("PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL;")
            .map_err(sql("configure the database"))?;
        // Every statement is prepared once and kept: the store has a few dozen.
        conn.set_prepared_statement_cache_capacity(128);
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .map_err(sql("read the schema version"))?;
        crate::refuse_newer(name, version, VERSION)?;
        // Foreign keys stay off while migrating: a migration that rebuilds a table must not
        // cascade deletes into the rows that reference it.
        for (i, migration) in migrations(Dialect::Sqlite)
            .iter()
            .enumerate()
            .skip(version as usize)
        {
            let tx = conn.transaction().map_err(sql("start a migration"))?;
            tx.execute_batch(migration)
                .map_err(sql("migrate the schema"))?;
            tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))
                .map_err(sql("record the schema version"))?;
            tx.commit().map_err(sql("commit a migration"))?;
            if i + 1 == VACUUM_AFTER {
                conn.execute_batch("VACUUM")
                    .map_err(sql("vacuum the database"))?;
            }
        }
        conn.execute_batch("PRAGMA foreign_keys = ON;")
            .map_err(sql("configure the database"))?;
        Ok(SqliteStore {
            conn: Mutex::new(conn),
        })
    }
}

impl Engine for SqliteStore {
    fn run<T>(&self, tx: Option<(What, What)>, f: impl FnOnce(&mut Conn<'_>) -> Res<T>) -> Res<T> {
        // A panic while holding the lock cannot leave SQLite half-written (transactions roll
        // back on drop), so a poisoned lock is still safe to use.
        let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let Some((begin, commit)) = tx.or_else(crate::gate::alone_in_transaction) else {
            return f(&mut Conn::Lite(&conn));
        };
        // Dropped without a commit when `f` fails, or when the gate refuses: rolled back.
        let tx = conn.transaction().map_err(sql(begin))?;
        let out = f(&mut Conn::Lite(&tx))?;
        match crate::gate::commit_through(|| tx.commit()).map_err(sql(commit))? {
            Some(()) => Ok(out),
            None => Err(StoreError::GaveUp),
        }
    }

    fn claim_next(
        &self,
        host: &str,
        now: i64,
        lease_ms: i64,
        skip: &[String],
    ) -> Res<Option<Claim>> {
        let next = format!(
            "SELECT s.id, s.user, s.state = 'judging', s.state = 'judging' AND {alive}
             FROM submissions s
             LEFT JOIN fairness f ON f.user = s.user
             WHERE (s.state = 'queued' OR (s.state = 'judging' AND s.lease_until < {now_ms}))
               AND NOT (s.language = ANY($1))
             ORDER BY s.state = 'judging' DESC, COALESCE(f.last_claim, 0), s.id LIMIT 1",
            now_ms = Self::NOW_MS,
            alive = crate::submissions::HOLDER_ALIVE.replace("LEASE_MS", "$2"),
        );
        let claim = format!(
            "UPDATE submissions SET state = 'judging', claimed_at = $2, claimed_by = $3,
               lease_until = {now_ms} + $4, attempts = attempts + 1,
               crashes = crashes + $5, host_deaths = host_deaths + $6
             WHERE id = $1
             RETURNING attempts, pending_rejudging, problem, language, source, crashes,
               host_deaths",
            now_ms = Self::NOW_MS
        );
        let version = "SELECT version FROM problem_current WHERE problem = $1";
        let open = "INSERT INTO judgings
               (submission, attempt, rejudging, judged_by, started_at, package_version)
             VALUES ($1, $2, $3, $4, $5, $6) RETURNING id";
        let fair = "INSERT INTO fairness (user, last_claim)
               VALUES ($1, (SELECT COALESCE(MAX(last_claim), 0) + 1 FROM fairness))
             ON CONFLICT (user) DO UPDATE SET last_claim = excluded.last_claim";
        self.tx("start a claim", "commit a claim", |c| {
            let what = "find the next submission";
            let found = c.row(what, &next, args![skip, lease_ms], |r| {
                Ok((r.get(0)?, r.get::<String>(1)?, r.get(2)?, r.get::<bool>(3)?))
            })?;
            let Some((id, user, expired_lease, holder_alive)): Option<(i64, String, bool, bool)> =
                found
            else {
                return Ok(None);
            };
            let crashed = i64::from(holder_alive);
            let died = i64::from(expired_lease && !holder_alive);
            let args = args![id, now, host, lease_ms, crashed, died];
            let (attempt, rejudging, problem, language, source, (crashes, host_deaths)) =
                c.one("claim a submission", &claim, args, |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get::<String>(2)?,
                        r.get(3)?,
                        r.get(4)?,
                        (r.get(5)?, r.get(6)?),
                    ))
                })?;
            let what = "find the problem's package version";
            let package_version: Option<String> =
                c.row(what, version, args![&problem], |r| r.get(0))?;
            let args = args![id, attempt, rejudging, host, now, &package_version];
            let judging = c.one("open a judging", open, args, |r| r.get(0))?;
            c.exec("record a claim", fair, args![&user])?;
            Ok(Some(Claim {
                id,
                attempt,
                judging,
                rejudging,
                package_version,
                user,
                problem,
                language,
                source,
                expired_lease,
                holder_alive,
                crashes,
                host_deaths,
            }))
        })
    }

    const KEEPS_BLOBS: bool = false;

    // `julianday('now')` has millisecond precision (unixepoch('subsec') needs SQLite 3.42).
    const NOW_MS: &'static str = "CAST((julianday('now') - 2440587.5) * 86400000.0 AS INTEGER)";

    fn send_events(&self, _payloads: &[String]) -> Res<()> {
        Ok(())
    }

    fn listen_events(&self, _sink: EventSink) -> Res<bool> {
        Ok(false)
    }
}
