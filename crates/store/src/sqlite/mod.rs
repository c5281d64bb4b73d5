//! The embedded SQLite store: one connection behind a mutex (SQLite writes one at a time
//! anyway), WAL journal, `synchronous = FULL` so an acknowledged submission survives even a
//! power cut. The core [`Store`] methods live here; areas add `sqlite/<area>.rs`.

mod cluster;
mod contests;
mod migrations;
mod tokens;
mod web;

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};

use super::{
    sql, Claim, Counts, JudgingDetail, JudgingInfo, ListFilter, NewSubmission, State, Store,
    StoreError, SubmissionDetail, SubmissionInfo, TokenInfo,
};
use ojd_judge::verdict::{Diff, JudgeReport, TestResult, Verdict};

pub use migrations::MIGRATIONS;

/// See the module docs.
pub struct SqliteStore {
    conn: Mutex<Connection>,
}

/// The columns [`info_row`] reads, over `submissions s LEFT JOIN judgings j ON j.id = s.current_judging`.
const INFO_COLUMNS: &str = "s.id, s.user, s.problem, s.language, s.state, j.verdict, j.score, \
     j.max_cpu_ms, j.max_memory_kib, s.queued_at, \
     CASE WHEN s.state = 'judging' THEN s.claimed_at ELSE j.started_at END, j.finished_at, \
     j.judge_version, s.attempts, \
     (SELECT COUNT(*) FROM judgings k WHERE k.submission = s.id AND k.finished_at IS NOT NULL), \
     length(s.source), j.id, j.judged_by";

const INFO_FROM: &str = "submissions s LEFT JOIN judgings j ON j.id = s.current_judging";

/// A [`ListFilter`]'s conditions over [`INFO_FROM`]: ?1 user, ?2 problem, ?3 verdict code,
/// ?4 language (each NULL for "any").
const LIST_WHERE: &str = "(?1 IS NULL OR s.user = ?1) AND (?2 IS NULL OR s.problem = ?2) \
     AND (?3 IS NULL OR j.verdict = ?3) AND (?4 IS NULL OR s.language = ?4) \
     AND (?5 = 0 OR s.state <> 'done')";

fn info_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<SubmissionInfo> {
    let state: String = r.get(4)?;
    let verdict: Option<String> = r.get(5)?;
    Ok(SubmissionInfo {
        id: r.get(0)?,
        user: r.get(1)?,
        problem: r.get(2)?,
        language: r.get(3)?,
        state: State::parse(&state),
        verdict: verdict.as_deref().and_then(Verdict::from_code),
        score: r.get(6)?,
        max_cpu_ms: r.get(7)?,
        max_memory_kib: r.get(8)?,
        queued_at: r.get(9)?,
        started_at: r.get(10)?,
        finished_at: r.get(11)?,
        judge_version: r.get(12)?,
        attempts: r.get(13)?,
        judged: r.get(14)?,
        source_bytes: r.get(15)?,
        judging: r.get(16)?,
        judged_by: r.get(17)?,
    })
}

const JUDGING_COLUMNS: &str = "j.id, j.submission, j.attempt, j.rejudging, j.judged_by, \
     j.package_version, j.judge_version, j.started_at, j.finished_at, j.verdict, j.score, \
     j.max_cpu_ms, j.max_wall_ms, j.max_memory_kib, \
     (SELECT s.current_judging = j.id FROM submissions s WHERE s.id = j.submission)";

fn judging_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<JudgingInfo> {
    let verdict: Option<String> = r.get(9)?;
    Ok(JudgingInfo {
        id: r.get(0)?,
        submission: r.get(1)?,
        attempt: r.get(2)?,
        rejudging: r.get(3)?,
        judged_by: r.get(4)?,
        package_version: r.get(5)?,
        judge_version: r.get(6)?,
        started_at: r.get(7)?,
        finished_at: r.get(8)?,
        verdict: verdict.as_deref().and_then(Verdict::from_code),
        score: r.get(10)?,
        max_cpu_ms: r.get(11)?,
        max_wall_ms: r.get(12)?,
        max_memory_kib: r.get(13)?,
        current: r.get::<_, Option<bool>>(14)?.unwrap_or(false),
    })
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

    /// The connection, for this backend's area files.
    pub(crate) fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite half-written (transactions roll
        // back on drop), so a poisoned lock is still safe to use.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn results_of(conn: &Connection, judging: i64) -> Result<Vec<TestResult>, StoreError> {
    let mut st = conn
        .prepare_cached(
            "SELECT name, sample, verdict, cpu_ms, wall_ms, memory_kib, exit, message, diff
             FROM judging_results WHERE judging = ?1 ORDER BY idx",
        )
        .map_err(sql("read test results"))?;
    let rows = st
        .query_map([judging], |r| {
            let verdict: String = r.get(2)?;
            let diff: Option<String> = r.get(8)?;
            Ok(TestResult {
                name: r.get(0)?,
                sample: r.get(1)?,
                verdict: Verdict::from_code(&verdict).unwrap_or(Verdict::JudgeError),
                cpu_ms: r.get(3)?,
                wall_ms: r.get(4)?,
                memory_kib: r.get(5)?,
                exit: r.get(6)?,
                message: r.get(7)?,
                diff: diff.and_then(|d| serde_json::from_str::<Diff>(&d).ok()),
            })
        })
        .map_err(sql("read test results"))?;
    rows.collect::<Result<Vec<_>, _>>()
        .map_err(sql("read test results"))
}

/// A judging's text outputs: compile output, message, warnings.
fn outputs_of(
    conn: &Connection,
    judging: i64,
) -> Result<(String, String, Vec<String>), StoreError> {
    conn.query_row(
        "SELECT compile_output, message, warnings FROM judgings WHERE id = ?1",
        [judging],
        |r| {
            let warnings: String = r.get(2)?;
            Ok((
                r.get(0)?,
                r.get(1)?,
                serde_json::from_str(&warnings).unwrap_or_default(),
            ))
        },
    )
    .map_err(sql("read a judging"))
}

impl Store for SqliteStore {
    fn insert(&self, new: &NewSubmission, now: i64) -> Result<i64, StoreError> {
        let conn = self.conn();
        conn.execute(
            "INSERT INTO submissions (user, problem, language, source, queued_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![new.user, new.problem, new.language, new.source, now],
        )
        .map_err(sql("queue a submission"))?;
        Ok(conn.last_insert_rowid())
    }

    fn claim(&self, host: &str, now: i64, lease_until: i64) -> Result<Option<Claim>, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(sql("start a claim"))?;
        let next = tx
            .query_row(
                "SELECT s.id, s.user, s.state = 'judging' FROM submissions s
                 LEFT JOIN fairness f ON f.user = s.user
                 WHERE s.state = 'queued' OR (s.state = 'judging' AND s.lease_until < ?1)
                 ORDER BY COALESCE(f.last_claim, 0), s.id LIMIT 1",
                [now],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, String>(1)?,
                        r.get::<_, bool>(2)?,
                    ))
                },
            )
            .optional()
            .map_err(sql("find the next submission"))?;
        let Some((id, user, expired_lease)) = next else {
            return Ok(None);
        };
        let (attempt, rejudging, problem, language, source) = tx
            .query_row(
                "UPDATE submissions SET state = 'judging', claimed_at = ?2, claimed_by = ?3,
                   lease_until = ?4, attempts = attempts + 1
                 WHERE id = ?1
                 RETURNING attempts, pending_rejudging, problem, language, source",
                params![id, now, host, lease_until],
                |r| {
                    Ok((
                        r.get::<_, u32>(0)?,
                        r.get::<_, Option<i64>>(1)?,
                        r.get::<_, String>(2)?,
                        r.get::<_, String>(3)?,
                        r.get::<_, Vec<u8>>(4)?,
                    ))
                },
            )
            .map_err(sql("claim a submission"))?;
        let package_version: Option<String> = tx
            .query_row(
                "SELECT version FROM problem_current WHERE problem = ?1",
                [&problem],
                |r| r.get(0),
            )
            .optional()
            .map_err(sql("find the problem's package version"))?;
        tx.execute(
            "INSERT INTO judgings (submission, attempt, rejudging, judged_by, started_at, package_version)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![id, attempt, rejudging, host, now, package_version],
        )
        .map_err(sql("open a judging"))?;
        let judging = tx.last_insert_rowid();
        tx.execute(
            "INSERT INTO fairness (user, last_claim) VALUES (?1, (SELECT COALESCE(MAX(last_claim), 0) + 1 FROM fairness))
             ON CONFLICT (user) DO UPDATE SET last_claim = excluded.last_claim",
            [&user],
        )
        .map_err(sql("record a claim"))?;
        tx.commit().map_err(sql("commit a claim"))?;
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
    }

    fn finish(
        &self,
        id: i64,
        attempt: u32,
        report: &JudgeReport,
        message: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(sql("start storing a verdict"))?;
        let open = tx
            .query_row(
                "SELECT j.id, j.rejudging, s.current_judging FROM submissions s
                 JOIN judgings j ON j.submission = s.id AND j.attempt = s.attempts
                 WHERE s.id = ?1 AND s.attempts = ?2 AND s.state = 'judging' AND j.finished_at IS NULL",
                params![id, attempt],
                |r| {
                    Ok((
                        r.get::<_, i64>(0)?,
                        r.get::<_, Option<i64>>(1)?,
                        r.get::<_, Option<i64>>(2)?,
                    ))
                },
            )
            .optional()
            .map_err(sql("find the claim's judging"))?;
        let Some((judging, rejudging, current)) = open else {
            return Ok(false);
        };
        let warnings = serde_json::to_string(&report.warnings).unwrap_or_else(|_| "[]".into());
        let max_wall = report.tests.iter().map(|t| t.wall_ms).max();
        tx.execute(
            "UPDATE judgings SET finished_at = ?2, verdict = ?3, score = ?4, max_cpu_ms = ?5,
               max_wall_ms = ?6, max_memory_kib = ?7, compile_output = ?8, message = ?9,
               warnings = ?10, judge_version = ?11
             WHERE id = ?1",
            params![
                judging,
                now,
                report.verdict.code(),
                report.score,
                report.max_cpu_ms,
                max_wall,
                report.max_memory_kib,
                report.compile_output,
                message,
                warnings,
                report.judge_version,
            ],
        )
        .map_err(sql("store a verdict"))?;
        {
            let mut st = tx
                .prepare_cached(
                    "INSERT INTO judging_results (judging, idx, name, sample, verdict, cpu_ms, wall_ms, memory_kib, exit, message, diff)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                )
                .map_err(sql("store test results"))?;
            for (i, t) in report.tests.iter().enumerate() {
                let diff = t.diff.as_ref().and_then(|d| serde_json::to_string(d).ok());
                st.execute(params![
                    judging,
                    i as i64,
                    t.name,
                    t.sample,
                    t.verdict.code(),
                    t.cpu_ms,
                    t.wall_ms,
                    t.memory_kib,
                    t.exit,
                    t.message,
                    diff
                ])
                .map_err(sql("store a test result"))?;
            }
        }
        // A rejudging's judging waits for its apply, unless there is nothing to compare with.
        let new_current = match (rejudging, current) {
            (Some(_), Some(current)) => current,
            _ => judging,
        };
        tx.execute(
            "UPDATE submissions SET state = 'done', current_judging = ?2, pending_rejudging = NULL,
               claimed_at = NULL, claimed_by = NULL, lease_until = NULL
             WHERE id = ?1",
            params![id, new_current],
        )
        .map_err(sql("store a verdict"))?;
        if let Some(r) = rejudging {
            // With its last judging, an auto-applying rejudging applies itself (contests.rs).
            contests::auto_apply(&tx, r, now)?;
        }
        tx.commit().map_err(sql("commit a verdict"))?;
        Ok(true)
    }

    fn requeue(&self, id: i64, attempt: u32) -> Result<bool, StoreError> {
        let n = self
            .conn()
            .execute(
                "UPDATE submissions SET state = 'queued', claimed_at = NULL, claimed_by = NULL, lease_until = NULL
                 WHERE id = ?1 AND attempts = ?2 AND state = 'judging'",
                params![id, attempt],
            )
            .map_err(sql("requeue a submission"))?;
        Ok(n > 0)
    }

    fn requeue_interrupted(&self, host: Option<&str>) -> Result<u64, StoreError> {
        let n = self
            .conn()
            .execute(
                "UPDATE submissions SET state = 'queued', claimed_at = NULL, claimed_by = NULL, lease_until = NULL
                 WHERE state = 'judging' AND (?1 IS NULL OR claimed_by = ?1)",
                [host],
            )
            .map_err(sql("requeue interrupted submissions"))?;
        Ok(n as u64)
    }

    fn get(&self, id: i64) -> Result<Option<SubmissionDetail>, StoreError> {
        let conn = self.conn();
        let row = conn
            .query_row(
                &format!("SELECT {INFO_COLUMNS}, s.source FROM {INFO_FROM} WHERE s.id = ?1"),
                [id],
                |r| Ok((info_row(r)?, r.get::<_, Vec<u8>>(18)?)),
            )
            .optional()
            .map_err(sql("read a submission"))?;
        let Some((info, source)) = row else {
            return Ok(None);
        };
        let mut detail = SubmissionDetail {
            info,
            source,
            compile_output: String::new(),
            message: String::new(),
            warnings: Vec::new(),
            tests: Vec::new(),
        };
        if let Some(judging) = detail.info.judging {
            (detail.compile_output, detail.message, detail.warnings) = outputs_of(&conn, judging)?;
            detail.tests = results_of(&conn, judging)?;
        }
        Ok(Some(detail))
    }

    fn info(&self, id: i64) -> Result<Option<SubmissionInfo>, StoreError> {
        self.conn()
            .query_row(
                &format!("SELECT {INFO_COLUMNS} FROM {INFO_FROM} WHERE s.id = ?1"),
                [id],
                info_row,
            )
            .optional()
            .map_err(sql("read a submission"))
    }

    fn list(&self, f: &ListFilter) -> Result<Vec<SubmissionInfo>, StoreError> {
        let conn = self.conn();
        let mut st = conn
            .prepare_cached(&format!(
                "SELECT {INFO_COLUMNS} FROM {INFO_FROM} WHERE {LIST_WHERE} AND (?6 IS NULL OR s.id < ?6)
                 ORDER BY s.id DESC LIMIT ?7"
            ))
            .map_err(sql("list submissions"))?;
        let verdict = f.verdict.map(Verdict::code);
        let rows = st
            .query_map(
                params![f.user, f.problem, verdict, f.language, f.pending, f.before, f.limit],
                info_row,
            )
            .map_err(sql("list submissions"))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(sql("list submissions"))
    }

    fn count_matching(&self, f: &ListFilter) -> Result<u64, StoreError> {
        let verdict = f.verdict.map(Verdict::code);
        self.conn()
            .query_row(
                &format!("SELECT COUNT(*) FROM {INFO_FROM} WHERE {LIST_WHERE}"),
                params![f.user, f.problem, verdict, f.language, f.pending],
                |r| r.get(0),
            )
            .map_err(sql("count submissions"))
    }

    fn rejudge(&self, id: i64) -> Result<bool, StoreError> {
        let n = self
            .conn()
            .execute(
                "UPDATE submissions SET state = 'queued', pending_rejudging = NULL, claimed_at = NULL,
                   claimed_by = NULL, lease_until = NULL
                 WHERE id = ?1",
                [id],
            )
            .map_err(sql("rejudge a submission"))?;
        Ok(n > 0)
    }

    fn rejudge_problem(&self, problem: &str) -> Result<u64, StoreError> {
        let n = self
            .conn()
            .execute(
                "UPDATE submissions SET state = 'queued', pending_rejudging = NULL, claimed_at = NULL,
                   claimed_by = NULL, lease_until = NULL
                 WHERE problem = ?1",
                [problem],
            )
            .map_err(sql("rejudge a problem"))?;
        Ok(n as u64)
    }

    fn enqueue_rejudging(&self, submissions: &[i64], rejudging: i64) -> Result<u64, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(sql("start a rejudging"))?;
        let mut n = 0;
        {
            let mut st = tx
                .prepare_cached(
                    "UPDATE submissions SET state = 'queued', pending_rejudging = ?2, claimed_at = NULL,
                       claimed_by = NULL, lease_until = NULL
                     WHERE id = ?1",
                )
                .map_err(sql("queue a rejudging"))?;
            for id in submissions {
                n += st
                    .execute(params![id, rejudging])
                    .map_err(sql("queue a rejudging"))? as u64;
            }
        }
        tx.commit().map_err(sql("commit a rejudging"))?;
        Ok(n)
    }

    fn make_current(&self, judgings: &[i64]) -> Result<u64, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(sql("start applying judgings"))?;
        let mut n = 0;
        {
            let mut st = tx
                .prepare_cached(
                    "UPDATE submissions SET current_judging = ?1
                     WHERE id = (SELECT submission FROM judgings WHERE id = ?1 AND finished_at IS NOT NULL)",
                )
                .map_err(sql("apply a judging"))?;
            for id in judgings {
                if st.execute([id]).map_err(sql("apply a judging"))? == 0 {
                    // Dropping the transaction rolls back the ones already flipped.
                    return Err(StoreError::Conflict(format!(
                        "judging {id} does not exist or has not finished; no judging was made current"
                    )));
                }
                n += 1;
            }
        }
        tx.commit().map_err(sql("commit applied judgings"))?;
        Ok(n)
    }

    fn judgings(&self, submission: i64) -> Result<Vec<JudgingInfo>, StoreError> {
        let conn = self.conn();
        let mut st = conn
            .prepare_cached(&format!(
                "SELECT {JUDGING_COLUMNS} FROM judgings j WHERE j.submission = ?1 ORDER BY j.id"
            ))
            .map_err(sql("list judgings"))?;
        let rows = st
            .query_map([submission], judging_row)
            .map_err(sql("list judgings"))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(sql("list judgings"))
    }

    fn judging(&self, id: i64) -> Result<Option<JudgingDetail>, StoreError> {
        let conn = self.conn();
        let info = conn
            .query_row(
                &format!("SELECT {JUDGING_COLUMNS} FROM judgings j WHERE j.id = ?1"),
                [id],
                judging_row,
            )
            .optional()
            .map_err(sql("read a judging"))?;
        let Some(info) = info else {
            return Ok(None);
        };
        let (compile_output, message, warnings) = outputs_of(&conn, id)?;
        let tests = results_of(&conn, id)?;
        Ok(Some(JudgingDetail {
            info,
            compile_output,
            message,
            warnings,
            tests,
        }))
    }

    fn counts(&self) -> Result<Counts, StoreError> {
        let conn = self.conn();
        let mut counts = Counts::default();
        let mut st = conn
            .prepare_cached(&format!(
                "SELECT s.state, j.verdict, COUNT(*) FROM {INFO_FROM} GROUP BY s.state, j.verdict ORDER BY s.state, j.verdict"
            ))
            .map_err(sql("count submissions"))?;
        let rows = st
            .query_map([], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Option<String>>(1)?,
                    r.get::<_, u64>(2)?,
                ))
            })
            .map_err(sql("count submissions"))?;
        for row in rows {
            let (state, verdict, n) = row.map_err(sql("count submissions"))?;
            counts.add(&state, verdict.as_deref(), n);
        }
        Ok(counts)
    }

    fn add_token(&self, hash: &str, name: &str, admin: bool, now: i64) -> Result<(), StoreError> {
        tokens::add(self, hash, name, admin, now)
    }

    fn revoke_tokens(&self, name: &str) -> Result<u64, StoreError> {
        tokens::revoke(self, name)
    }

    fn find_token(&self, hash: &str) -> Result<Option<TokenInfo>, StoreError> {
        tokens::find(self, hash)
    }

    fn tokens(&self) -> Result<Vec<TokenInfo>, StoreError> {
        tokens::list(self)
    }
}
