//! The daemon's storage: submissions, their source, per-test results, the judging queue and
//! issued tokens. [`Store`] is the one interface the server uses, so that a PostgreSQL store can
//! follow for several judge hosts; [`SqliteStore`] is the embedded default.
//!
//! # Theory of operation
//!
//! A submission moves `queued → judging → done`. The queue *is* the table: a worker claims the
//! next submission in one transaction ([`Store::claim`]), which bumps the row's `attempts`;
//! the attempt number is the claim's token. [`Store::finish`] writes the verdict and every
//! per-test row in one transaction, and only while the row is still `judging` under that same
//! attempt, so a stale worker (its submission was rejudged, or the daemon restarted meanwhile)
//! can never store a second result. A crash at any moment leaves either the old state or the new
//! one; at start [`Store::requeue_interrupted`] puts every half-judged row back in the queue.
//!
//! Fairness: `fairness.last_claim` remembers, per user, the sequence number of the last claim
//! made for them. The next claim takes the queued submission whose user was served least
//! recently, oldest first, so one user's burst of a hundred submissions interleaves with
//! everybody else's instead of starving them.
//!
//! Times are Unix milliseconds. Tokens are stored as SHA-256 hashes, never in clear.

use std::path::Path;
use std::sync::Mutex;

use rusqlite::{params, Connection, OptionalExtension};
use serde::Serialize;

use crate::verdict::{Diff, JudgeReport, TestResult, Verdict};

/// Where a submission is in its life.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    Queued,
    Judging,
    Done,
}

impl State {
    fn parse(s: &str) -> State {
        match s {
            "judging" => State::Judging,
            "done" => State::Done,
            _ => State::Queued,
        }
    }
}

/// A submission as it enters the queue.
#[derive(Clone, Debug)]
pub struct NewSubmission {
    pub user: String,
    pub problem: String,
    pub language: String,
    pub source: Vec<u8>,
}

/// A submission's row, without its source and test results.
#[derive(Clone, Debug, Serialize)]
pub struct SubmissionInfo {
    pub id: i64,
    pub user: String,
    pub problem: String,
    pub language: String,
    pub state: State,
    pub verdict: Option<Verdict>,
    pub score: Option<u32>,
    pub max_cpu_ms: Option<u64>,
    pub max_memory_kib: Option<u64>,
    pub queued_at: i64,
    pub started_at: Option<i64>,
    pub finished_at: Option<i64>,
    pub judge_version: Option<String>,
    /// How many times a worker claimed it (more than one after a restart or a rejudge).
    pub attempts: u32,
    /// How many verdicts were stored for it (one, unless it was rejudged).
    pub judged: u32,
    pub source_bytes: u64,
}

/// A submission with everything stored about it.
#[derive(Clone, Debug)]
pub struct SubmissionDetail {
    pub info: SubmissionInfo,
    pub source: Vec<u8>,
    pub compile_output: String,
    /// The judge's own note: why a JudgeError happened (for admins and the log, not students).
    pub message: String,
    pub warnings: Vec<String>,
    pub tests: Vec<TestResult>,
}

/// A claimed submission: what a worker needs to judge it.
#[derive(Clone, Debug)]
pub struct Claim {
    pub id: i64,
    pub attempt: u32,
    pub user: String,
    pub problem: String,
    pub language: String,
    pub source: Vec<u8>,
}

/// Which submissions to list, newest first.
#[derive(Clone, Debug, Default)]
pub struct ListFilter {
    pub user: Option<String>,
    pub problem: Option<String>,
    /// Only ids below this one (paging).
    pub before: Option<i64>,
    pub limit: u32,
}

/// Counts for the metrics endpoint.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Counts {
    pub queued: u64,
    pub judging: u64,
    pub done: u64,
    pub by_verdict: Vec<(Verdict, u64)>,
}

/// An issued token (its hash) and whom it names.
#[derive(Clone, Debug, Serialize)]
pub struct TokenInfo {
    pub name: String,
    pub admin: bool,
    pub created_at: i64,
}

#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("database error while trying to {what}")]
    Sql {
        what: &'static str,
        #[source]
        source: rusqlite::Error,
    },
    #[error("failed to open the database {path}")]
    Open {
        path: String,
        #[source]
        source: rusqlite::Error,
    },
    #[error("the database {path} has schema version {found}, newer than this ojd knows ({known})")]
    TooNew {
        path: String,
        found: i64,
        known: i64,
    },
}

fn sql(what: &'static str) -> impl FnOnce(rusqlite::Error) -> StoreError {
    move |source| StoreError::Sql { what, source }
}

/// The daemon's storage. Every method is one short transaction; callers in async code run them
/// on a blocking thread.
pub trait Store: Send + Sync {
    /// Queues a submission and returns its id.
    fn insert(&self, new: &NewSubmission, now: i64) -> Result<i64, StoreError>;
    /// Takes the next submission to judge (fair between users), or `None` when the queue is empty.
    fn claim(&self, now: i64) -> Result<Option<Claim>, StoreError>;
    /// Stores a verdict, exactly once: `false` when the claim is stale and nothing was written.
    fn finish(
        &self,
        id: i64,
        attempt: u32,
        report: &JudgeReport,
        message: &str,
        now: i64,
    ) -> Result<bool, StoreError>;
    /// Puts a claimed submission back in the queue (shutdown, cancellation).
    fn requeue(&self, id: i64, attempt: u32) -> Result<bool, StoreError>;
    /// At start: every submission left `judging` by a previous run goes back to the queue.
    fn requeue_interrupted(&self) -> Result<u64, StoreError>;
    fn get(&self, id: i64) -> Result<Option<SubmissionDetail>, StoreError>;
    fn info(&self, id: i64) -> Result<Option<SubmissionInfo>, StoreError>;
    fn list(&self, filter: &ListFilter) -> Result<Vec<SubmissionInfo>, StoreError>;
    /// Queues a finished or queued submission again; `false` if there is no such submission.
    fn rejudge(&self, id: i64) -> Result<bool, StoreError>;
    /// Queues every submission of a problem again; returns how many.
    fn rejudge_problem(&self, problem: &str) -> Result<u64, StoreError>;
    fn counts(&self) -> Result<Counts, StoreError>;
    fn add_token(&self, hash: &str, name: &str, admin: bool, now: i64) -> Result<(), StoreError>;
    /// Removes every token issued to `name`; returns how many.
    fn revoke_tokens(&self, name: &str) -> Result<u64, StoreError>;
    fn find_token(&self, hash: &str) -> Result<Option<TokenInfo>, StoreError>;
    fn tokens(&self) -> Result<Vec<TokenInfo>, StoreError>;
}

/// Schema migrations, applied in order; `PRAGMA user_version` counts those applied.
const MIGRATIONS: &[&str] = &[
    // 1: submissions, results, fairness, tokens.
    "CREATE TABLE submissions (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        user TEXT NOT NULL,
        problem TEXT NOT NULL,
        language TEXT NOT NULL,
        source BLOB NOT NULL,
        state TEXT NOT NULL DEFAULT 'queued',
        verdict TEXT,
        score INTEGER,
        max_cpu_ms INTEGER,
        max_memory_kib INTEGER,
        compile_output TEXT NOT NULL DEFAULT '',
        message TEXT NOT NULL DEFAULT '',
        warnings TEXT NOT NULL DEFAULT '[]',
        judge_version TEXT,
        queued_at INTEGER NOT NULL,
        started_at INTEGER,
        finished_at INTEGER,
        attempts INTEGER NOT NULL DEFAULT 0,
        judged INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX submissions_state ON submissions(state, id);
    CREATE INDEX submissions_user ON submissions(user, id);
    CREATE INDEX submissions_problem ON submissions(problem, id);
    CREATE TABLE results (
        submission INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
        idx INTEGER NOT NULL,
        name TEXT NOT NULL,
        sample INTEGER NOT NULL,
        verdict TEXT NOT NULL,
        cpu_ms INTEGER NOT NULL,
        wall_ms INTEGER NOT NULL,
        memory_kib INTEGER NOT NULL,
        exit TEXT,
        message TEXT NOT NULL,
        diff TEXT,
        PRIMARY KEY (submission, idx)
    );
    CREATE TABLE fairness (user TEXT PRIMARY KEY, last_claim INTEGER NOT NULL);
    CREATE TABLE tokens (
        hash TEXT PRIMARY KEY,
        name TEXT NOT NULL,
        admin INTEGER NOT NULL,
        created_at INTEGER NOT NULL
    );",
];

/// The embedded SQLite store: one connection behind a mutex (SQLite writes one at a time
/// anyway), WAL journal, `synchronous = FULL` so an acknowledged submission survives even a
/// power cut.
pub struct SqliteStore {
    conn: Mutex<Connection>,
}

const INFO_COLUMNS: &str =
    "id, user, problem, language, state, verdict, score, max_cpu_ms, max_memory_kib, \
     queued_at, started_at, finished_at, judge_version, attempts, judged, length(source)";

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
    })
}

impl SqliteStore {
    /// Opens (creating if needed) the database and runs the migrations.
    pub fn open(path: &Path) -> Result<SqliteStore, StoreError> {
        let open_err = |source| StoreError::Open {
            path: path.display().to_string(),
            source,
        };
        let conn = Connection::open(path).map_err(open_err)?;
        SqliteStore::with_connection(conn, &path.display().to_string())
    }

    /// A throwaway database, for tests.
    pub fn in_memory() -> Result<SqliteStore, StoreError> {
        let conn = Connection::open_in_memory().map_err(|source| StoreError::Open {
            path: ":memory:".into(),
            source,
        })?;
        SqliteStore::with_connection(conn, ":memory:")
    }

    fn with_connection(mut conn: Connection, name: &str) -> Result<SqliteStore, StoreError> {
        // Another process (`ojd token`) may hold the write lock for a moment.
        conn.busy_timeout(std::time::Duration::from_secs(10))
            .map_err(sql("set the busy timeout"))?;
        conn.execute_batch(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON;",
        )
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
        for (i, migration) in MIGRATIONS.iter().enumerate().skip(version as usize) {
            let tx = conn.transaction().map_err(sql("start a migration"))?;
            tx.execute_batch(migration)
                .map_err(sql("migrate the schema"))?;
            tx.execute_batch(&format!("PRAGMA user_version = {}", i + 1))
                .map_err(sql("record the schema version"))?;
            tx.commit().map_err(sql("commit a migration"))?;
        }
        Ok(SqliteStore {
            conn: Mutex::new(conn),
        })
    }

    fn conn(&self) -> std::sync::MutexGuard<'_, Connection> {
        // A panic while holding the lock cannot leave SQLite half-written (transactions roll
        // back on drop), so a poisoned lock is still safe to use.
        self.conn.lock().unwrap_or_else(|e| e.into_inner())
    }
}

fn results_of(conn: &Connection, id: i64) -> Result<Vec<TestResult>, StoreError> {
    let mut st = conn
        .prepare_cached(
            "SELECT name, sample, verdict, cpu_ms, wall_ms, memory_kib, exit, message, diff
             FROM results WHERE submission = ?1 ORDER BY idx",
        )
        .map_err(sql("read test results"))?;
    let rows = st
        .query_map([id], |r| {
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

    fn claim(&self, now: i64) -> Result<Option<Claim>, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(sql("start a claim"))?;
        let next = tx
            .query_row(
                "SELECT s.id, s.user FROM submissions s LEFT JOIN fairness f ON f.user = s.user
                 WHERE s.state = 'queued' ORDER BY COALESCE(f.last_claim, 0), s.id LIMIT 1",
                [],
                |r| Ok((r.get::<_, i64>(0)?, r.get::<_, String>(1)?)),
            )
            .optional()
            .map_err(sql("find the next submission"))?;
        let Some((id, user)) = next else {
            return Ok(None);
        };
        tx.execute(
            "UPDATE submissions SET state = 'judging', started_at = ?2, attempts = attempts + 1 WHERE id = ?1",
            params![id, now],
        )
        .map_err(sql("claim a submission"))?;
        tx.execute(
            "INSERT INTO fairness (user, last_claim) VALUES (?1, (SELECT COALESCE(MAX(last_claim), 0) + 1 FROM fairness))
             ON CONFLICT (user) DO UPDATE SET last_claim = excluded.last_claim",
            [&user],
        )
        .map_err(sql("record a claim"))?;
        let claim = tx
            .query_row(
                "SELECT attempts, problem, language, source FROM submissions WHERE id = ?1",
                [id],
                |r| {
                    Ok(Claim {
                        id,
                        attempt: r.get(0)?,
                        user: user.clone(),
                        problem: r.get(1)?,
                        language: r.get(2)?,
                        source: r.get(3)?,
                    })
                },
            )
            .map_err(sql("read a claimed submission"))?;
        tx.commit().map_err(sql("commit a claim"))?;
        Ok(Some(claim))
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
        let warnings = serde_json::to_string(&report.warnings).unwrap_or_else(|_| "[]".into());
        let changed = tx
            .execute(
                "UPDATE submissions SET state = 'done', verdict = ?3, score = ?4, max_cpu_ms = ?5, max_memory_kib = ?6,
                   compile_output = ?7, message = ?8, warnings = ?9, judge_version = ?10, finished_at = ?11,
                   judged = judged + 1
                 WHERE id = ?1 AND attempts = ?2 AND state = 'judging'",
                params![
                    id,
                    attempt,
                    report.verdict.code(),
                    report.score,
                    report.max_cpu_ms,
                    report.max_memory_kib,
                    report.compile_output,
                    message,
                    warnings,
                    report.judge_version,
                    now
                ],
            )
            .map_err(sql("store a verdict"))?;
        if changed == 0 {
            return Ok(false);
        }
        tx.execute("DELETE FROM results WHERE submission = ?1", [id])
            .map_err(sql("clear old results"))?;
        {
            let mut st = tx
                .prepare_cached(
                    "INSERT INTO results (submission, idx, name, sample, verdict, cpu_ms, wall_ms, memory_kib, exit, message, diff)
                     VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)",
                )
                .map_err(sql("store test results"))?;
            for (i, t) in report.tests.iter().enumerate() {
                let diff = t.diff.as_ref().and_then(|d| serde_json::to_string(d).ok());
                st.execute(params![
                    id,
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
        tx.commit().map_err(sql("commit a verdict"))?;
        Ok(true)
    }

    fn requeue(&self, id: i64, attempt: u32) -> Result<bool, StoreError> {
        let n = self
            .conn()
            .execute(
                "UPDATE submissions SET state = 'queued', started_at = NULL WHERE id = ?1 AND attempts = ?2 AND state = 'judging'",
                params![id, attempt],
            )
            .map_err(sql("requeue a submission"))?;
        Ok(n > 0)
    }

    fn requeue_interrupted(&self) -> Result<u64, StoreError> {
        let n = self
            .conn()
            .execute("UPDATE submissions SET state = 'queued', started_at = NULL WHERE state = 'judging'", [])
            .map_err(sql("requeue interrupted submissions"))?;
        Ok(n as u64)
    }

    fn get(&self, id: i64) -> Result<Option<SubmissionDetail>, StoreError> {
        let conn = self.conn();
        let row = conn
            .query_row(
                &format!("SELECT {INFO_COLUMNS}, source, compile_output, message, warnings FROM submissions WHERE id = ?1"),
                [id],
                |r| {
                    let warnings: String = r.get(19)?;
                    Ok(SubmissionDetail {
                        info: info_row(r)?,
                        source: r.get(16)?,
                        compile_output: r.get(17)?,
                        message: r.get(18)?,
                        warnings: serde_json::from_str(&warnings).unwrap_or_default(),
                        tests: Vec::new(),
                    })
                },
            )
            .optional()
            .map_err(sql("read a submission"))?;
        let Some(mut detail) = row else {
            return Ok(None);
        };
        detail.tests = results_of(&conn, id)?;
        Ok(Some(detail))
    }

    fn info(&self, id: i64) -> Result<Option<SubmissionInfo>, StoreError> {
        self.conn()
            .query_row(
                &format!("SELECT {INFO_COLUMNS} FROM submissions WHERE id = ?1"),
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
                "SELECT {INFO_COLUMNS} FROM submissions
                 WHERE (?1 IS NULL OR user = ?1) AND (?2 IS NULL OR problem = ?2) AND (?3 IS NULL OR id < ?3)
                 ORDER BY id DESC LIMIT ?4"
            ))
            .map_err(sql("list submissions"))?;
        let rows = st
            .query_map(params![f.user, f.problem, f.before, f.limit], info_row)
            .map_err(sql("list submissions"))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(sql("list submissions"))
    }

    fn rejudge(&self, id: i64) -> Result<bool, StoreError> {
        let n = self
            .conn()
            .execute(
                "UPDATE submissions SET state = 'queued', started_at = NULL WHERE id = ?1",
                [id],
            )
            .map_err(sql("rejudge a submission"))?;
        Ok(n > 0)
    }

    fn rejudge_problem(&self, problem: &str) -> Result<u64, StoreError> {
        let n = self
            .conn()
            .execute(
                "UPDATE submissions SET state = 'queued', started_at = NULL WHERE problem = ?1",
                [problem],
            )
            .map_err(sql("rejudge a problem"))?;
        Ok(n as u64)
    }

    fn counts(&self) -> Result<Counts, StoreError> {
        let conn = self.conn();
        let mut counts = Counts::default();
        let mut st = conn
            .prepare_cached(
                "SELECT state, verdict, COUNT(*) FROM submissions GROUP BY state, verdict",
            )
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
            match State::parse(&state) {
                State::Queued => counts.queued += n,
                State::Judging => counts.judging += n,
                State::Done => {
                    counts.done += n;
                    if let Some(v) = verdict.as_deref().and_then(Verdict::from_code) {
                        counts.by_verdict.push((v, n));
                    }
                }
            }
        }
        Ok(counts)
    }

    fn add_token(&self, hash: &str, name: &str, admin: bool, now: i64) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT INTO tokens (hash, name, admin, created_at) VALUES (?1, ?2, ?3, ?4)",
                params![hash, name, admin, now],
            )
            .map_err(sql("store a token"))?;
        Ok(())
    }

    fn revoke_tokens(&self, name: &str) -> Result<u64, StoreError> {
        let n = self
            .conn()
            .execute("DELETE FROM tokens WHERE name = ?1", [name])
            .map_err(sql("revoke tokens"))?;
        Ok(n as u64)
    }

    fn find_token(&self, hash: &str) -> Result<Option<TokenInfo>, StoreError> {
        self.conn()
            .query_row(
                "SELECT name, admin, created_at FROM tokens WHERE hash = ?1",
                [hash],
                |r| {
                    Ok(TokenInfo {
                        name: r.get(0)?,
                        admin: r.get(1)?,
                        created_at: r.get(2)?,
                    })
                },
            )
            .optional()
            .map_err(sql("look up a token"))
    }

    fn tokens(&self) -> Result<Vec<TokenInfo>, StoreError> {
        let conn = self.conn();
        let mut st = conn
            .prepare_cached("SELECT name, admin, created_at FROM tokens ORDER BY name")
            .map_err(sql("list tokens"))?;
        let rows = st
            .query_map([], |r| {
                Ok(TokenInfo {
                    name: r.get(0)?,
                    admin: r.get(1)?,
                    created_at: r.get(2)?,
                })
            })
            .map_err(sql("list tokens"))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(sql("list tokens"))
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sub(user: &str) -> NewSubmission {
        NewSubmission {
            user: user.into(),
            problem: "p".into(),
            language: "c".into(),
            source: b"int main(){}".to_vec(),
        }
    }

    fn report(verdict: Verdict) -> JudgeReport {
        JudgeReport {
            problem: "p".into(),
            language: "c".into(),
            verdict,
            score: 0,
            compile_output: String::new(),
            tests: vec![TestResult {
                name: "1".into(),
                sample: true,
                verdict,
                cpu_ms: 1,
                wall_ms: 2,
                memory_kib: 3,
                exit: Some("0".into()),
                message: String::new(),
                diff: None,
            }],
            max_cpu_ms: 1,
            max_memory_kib: 3,
            judge_version: "test".into(),
            warnings: vec![],
        }
    }

    #[test]
    fn claims_are_fair_between_users() {
        let s = SqliteStore::in_memory().unwrap();
        // Alice's burst of four arrives first, then Bob's two and Carol's one.
        let users = ["alice", "alice", "alice", "alice", "bob", "bob", "carol"];
        for u in users {
            s.insert(&sub(u), 0).unwrap();
        }
        let order: Vec<String> = std::iter::from_fn(|| s.claim(1).unwrap())
            .map(|c| c.user)
            .collect();
        assert_eq!(
            order,
            ["alice", "bob", "carol", "alice", "bob", "alice", "alice"]
        );
    }

    #[test]
    fn a_result_is_stored_once_and_stale_claims_are_refused() {
        let s = SqliteStore::in_memory().unwrap();
        let id = s.insert(&sub("a"), 0).unwrap();
        let c = s.claim(1).unwrap().unwrap();
        // A restart requeues the half-judged submission; the old claim is now stale.
        assert_eq!(s.requeue_interrupted().unwrap(), 1);
        let c2 = s.claim(2).unwrap().unwrap();
        assert_eq!((c2.id, c2.attempt), (id, 2));
        assert!(!s
            .finish(c.id, c.attempt, &report(Verdict::WrongAnswer), "", 3)
            .unwrap());
        assert!(s
            .finish(c2.id, c2.attempt, &report(Verdict::Accepted), "", 3)
            .unwrap());
        assert!(
            !s.finish(c2.id, c2.attempt, &report(Verdict::Accepted), "", 4)
                .unwrap(),
            "a second finish is refused"
        );
        let d = s.get(id).unwrap().unwrap();
        assert_eq!(
            (d.info.state, d.info.verdict, d.info.judged, d.tests.len()),
            (State::Done, Some(Verdict::Accepted), 1, 1)
        );
        assert!(s.claim(5).unwrap().is_none());
    }

    #[test]
    fn rejudge_and_counts() {
        let s = SqliteStore::in_memory().unwrap();
        let id = s.insert(&sub("a"), 0).unwrap();
        let c = s.claim(1).unwrap().unwrap();
        s.finish(c.id, c.attempt, &report(Verdict::WrongAnswer), "", 2)
            .unwrap();
        let counts = s.counts().unwrap();
        assert_eq!(
            (counts.queued, counts.done, counts.by_verdict.clone()),
            (0, 1, vec![(Verdict::WrongAnswer, 1)])
        );
        assert_eq!(s.rejudge_problem("p").unwrap(), 1);
        assert_eq!(s.counts().unwrap().queued, 1);
        assert!(s.rejudge(id).unwrap());
        assert!(!s.rejudge(id + 1).unwrap());
    }

    #[test]
    fn tokens_round_trip() {
        let s = SqliteStore::in_memory().unwrap();
        s.add_token("h1", "alice", false, 1).unwrap();
        assert_eq!(s.find_token("h1").unwrap().unwrap().name, "alice");
        assert!(s.find_token("h2").unwrap().is_none());
        assert_eq!(s.revoke_tokens("alice").unwrap(), 1);
        assert!(s.tokens().unwrap().is_empty());
    }
}
