//! The embedded SQLite store: one connection behind a mutex (SQLite writes one at a time
//! anyway), WAL journal, `synchronous = FULL` so an acknowledged submission survives even a
//! power cut. Every store method is shared (see [`crate::db`]); here are only what SQLite does
//! its own way: opening and migrating, the claim and the storing of a verdict as steps of one
//! transaction (it has no data-modifying `WITH` and no arrays), and no cross-host events.

mod migrations;

use std::path::Path;
use std::sync::Mutex;

use rusqlite::Connection;

use crate::cluster::EventSink;
use crate::db::{args, Beat, Conn, Engine, Finish};
use crate::{sql, Claim, StoreError};

pub use migrations::MIGRATIONS;

/// See the module docs.
pub struct SqliteStore {
    conn: Mutex<Connection>,
}

impl SqliteStore {
    /// Opens (creating if needed) the database and runs the migrations.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let conn = Connection::open(path).map_err(|source| StoreError::Open {
            path: path.display().to_string(),
            source: Box::new(source),
        })?;
        SqliteStore::with_connection(conn, &path.display().to_string())
    }

    /// A throwaway database, for tests.
    pub fn in_memory() -> Result<SqliteStore, StoreError> {
        let conn = Connection::open_in_memory().map_err(|source| StoreError::Open {
            path: ":memory:".into(),
            source: Box::new(source),
        })?;
        SqliteStore::with_connection(conn, ":memory:")
    }

    fn with_connection(mut conn: Connection, name: &str) -> Result<SqliteStore, StoreError> {
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
        let known = MIGRATIONS.len() as i64;
        if version > known {
            return Err(StoreError::TooNew {
                path: name.to_string(),
                found: version,
                known,
            });
        }
        // Foreign keys stay off while migrating: a migration that rebuilds a table must not
        // cascade deletes into the rows that reference it.
        for (i, migration) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            let tx = conn.transaction().map_err(sql("start a migration"))?;
            tx.execute_batch(migration)
                .map_err(sql("migrate the schema"))?;
            tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))
                .map_err(sql("record the schema version"))?;
            tx.commit().map_err(sql("commit a migration"))?;
            if i + 1 == migrations::VACUUM_AFTER {
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
    fn run<T>(
        &self,
        tx: Option<(&'static str, &'static str)>,
        f: impl FnOnce(&mut Conn<'_>) -> Result<T, StoreError>,
    ) -> Result<T, StoreError> {
        // A panic while holding the lock cannot leave SQLite half-written (transactions roll
        // back on drop), so a poisoned lock is still safe to use.
        let mut conn = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        let Some((begin, commit)) = tx else {
            return f(&mut Conn::Lite(&conn));
        };
        // Dropped without a commit when `f` fails: rolled back.
        let tx = conn.transaction().map_err(sql(begin))?;
        let out = f(&mut Conn::Lite(&tx))?;
        tx.commit().map_err(sql(commit))?;
        Ok(out)
    }

    fn claim_next(
        &self,
        host: &str,
        now: i64,
        lease_until: i64,
    ) -> Result<Option<Claim>, StoreError> {
        self.tx("start a claim", "commit a claim", |c| {
            let next = c.row(
                "find the next submission",
                "SELECT s.id, s.user, s.state = 'judging' FROM submissions s
                 LEFT JOIN fairness f ON f.user = s.user
                 WHERE s.state = 'queued' OR (s.state = 'judging' AND s.lease_until < $1)
                 ORDER BY COALESCE(f.last_claim, 0), s.id LIMIT 1",
                args![now],
                |r| Ok((r.get(0)?, r.get::<String>(1)?, r.get(2)?)),
            )?;
            let Some((id, user, expired_lease)) = next else {
                return Ok(None);
            };
            let (attempt, rejudging, problem, language, source) = c.one(
                "claim a submission",
                "UPDATE submissions SET state = 'judging', claimed_at = $2, claimed_by = $3,
                   lease_until = $4, attempts = attempts + 1
                 WHERE id = $1
                 RETURNING attempts, pending_rejudging, problem, language, source",
                args![id, now, host, lease_until],
                |r| {
                    Ok((
                        r.get(0)?,
                        r.get(1)?,
                        r.get::<String>(2)?,
                        r.get(3)?,
                        r.get(4)?,
                    ))
                },
            )?;
            let package_version: Option<String> = c.row(
                "find the problem's package version",
                "SELECT version FROM problem_current WHERE problem = $1",
                args![&problem],
                |r| r.get(0),
            )?;
            let judging = c.one(
                "open a judging",
                "INSERT INTO judgings
                   (submission, attempt, rejudging, judged_by, started_at, package_version)
                 VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                args![id, attempt, rejudging, host, now, &package_version],
                |r| r.get(0),
            )?;
            c.exec(
                "record a claim",
                "INSERT INTO fairness (user, last_claim)
                   VALUES ($1, (SELECT COALESCE(MAX(last_claim), 0) + 1 FROM fairness))
                 ON CONFLICT (user) DO UPDATE SET last_claim = excluded.last_claim",
                args![&user],
            )?;
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
            }))
        })
    }

    fn store_verdict(
        &self,
        c: &mut Conn<'_>,
        v: &Finish<'_>,
    ) -> Result<Option<Option<i64>>, StoreError> {
        let open = c.row(
            "find the claim's judging",
            "SELECT j.id, j.rejudging, s.current_judging FROM submissions s
             JOIN judgings j ON j.submission = s.id AND j.attempt = s.attempts
             WHERE s.id = $1 AND s.attempts = $2 AND s.state = 'judging'
               AND j.finished_at IS NULL",
            args![v.id, v.attempt],
            |r| {
                Ok((
                    r.get(0)?,
                    r.get::<Option<i64>>(1)?,
                    r.get::<Option<i64>>(2)?,
                ))
            },
        )?;
        let Some((judging, rejudging, current)) = open else {
            return Ok(None);
        };
        let r = v.report;
        c.exec(
            "store a verdict",
            "UPDATE judgings SET finished_at = $2, verdict = $3, score = $4, max_cpu_ms = $5,
               max_wall_ms = $6, max_memory_kib = $7, compile_output = $8, message = $9,
               warnings = $10, judge_version = $11
             WHERE id = $1",
            args![
                judging,
                v.now,
                r.verdict.code(),
                r.score,
                r.max_cpu_ms,
                v.max_wall,
                r.max_memory_kib,
                &r.compile_output,
                v.message,
                &v.warnings,
                &r.judge_version,
            ],
        )?;
        for (i, t) in r.tests.iter().enumerate() {
            let diff = t.diff.as_ref().and_then(|d| serde_json::to_string(d).ok());
            c.exec(
                "store a test result",
                "INSERT INTO judging_results (judging, idx, name, sample, verdict, cpu_ms,
                   wall_ms, memory_kib, exit, message, diff)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
                args![
                    judging,
                    i as i64,
                    &t.name,
                    t.sample,
                    t.verdict.code(),
                    t.cpu_ms,
                    t.wall_ms,
                    t.memory_kib,
                    &t.exit,
                    &t.message,
                    &diff
                ],
            )?;
        }
        // A rejudging's judging waits for its apply, unless there is nothing to compare with.
        let new_current = match (rejudging, current) {
            (Some(_), Some(current)) => current,
            _ => judging,
        };
        c.exec(
            "store a verdict",
            "UPDATE submissions SET state = 'done', current_judging = $2,
               pending_rejudging = NULL, claimed_at = NULL, claimed_by = NULL, lease_until = NULL
             WHERE id = $1",
            args![v.id, new_current],
        )?;
        Ok(Some(rejudging))
    }

    fn beat(&self, b: &Beat<'_>) -> Result<u64, StoreError> {
        self.tx("start a heartbeat", "commit a heartbeat", |c| {
            c.exec(
                "record a heartbeat",
                "INSERT INTO hosts (name, role, started_at, last_seen, stats)
                 VALUES ($1, $2, $3, $4, $5)
                 ON CONFLICT (name) DO UPDATE SET role = excluded.role,
                   started_at = excluded.started_at, last_seen = excluded.last_seen,
                   stats = excluded.stats",
                args![b.host, b.role, b.started_at, b.now, &b.stats],
            )?;
            c.exec(
                "renew leases",
                "UPDATE submissions SET lease_until = $2
                 WHERE claimed_by = $1 AND state = 'judging' AND id = ANY($3)",
                args![b.host, b.lease_until, b.judging],
            )
        })
    }

    fn set_current(&self, c: &mut Conn<'_>, pairs: &[(i64, i64)]) -> Result<(), StoreError> {
        for &(submission, judging) in pairs {
            c.exec(
                "apply a rejudging",
                "UPDATE submissions SET current_judging = $2 WHERE id = $1",
                args![submission, judging],
            )?;
        }
        Ok(())
    }

    const KEEPS_BLOBS: bool = false;

    fn send_events(&self, _payloads: &[String]) -> Result<(), StoreError> {
        Ok(())
    }

    fn listen_events(&self, _sink: EventSink) -> Result<bool, StoreError> {
        Ok(false)
    }
}
