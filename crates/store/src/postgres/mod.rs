//! The PostgreSQL store, for several hosts on one database: the synchronous `postgres` client
//! behind an r2d2 pool (the [`Store`] trait is synchronous; the server calls it on blocking
//! threads). Claims lock the chosen row with `FOR UPDATE SKIP LOCKED`, so workers on many hosts
//! claim in parallel without waiting on each other; migrations run under an advisory lock, so
//! nodes starting together migrate once. The core [`Store`] methods live here; areas add
//! `postgres/<area>.rs`.

mod cluster;
mod contests;
mod migrations;
mod tokens;
mod web;

use std::time::Duration;

use postgres::types::Type;
use postgres::{NoTls, Row};
use r2d2_postgres::PostgresConnectionManager;

use super::{
    sql, Claim, Counts, JudgingDetail, JudgingInfo, ListFilter, NewSubmission, State, Store,
    StoreError, SubmissionDetail, SubmissionInfo, TokenInfo,
};
use ojd_judge::verdict::{Diff, JudgeReport, TestResult, Verdict};

pub use cluster::MAX_PAYLOAD;
pub use migrations::MIGRATIONS;

type Pool = r2d2::Pool<PostgresConnectionManager<NoTls>>;
pub(crate) type Conn = r2d2::PooledConnection<PostgresConnectionManager<NoTls>>;

/// See the module docs.
pub struct PgStore {
    pool: Pool,
    config: postgres::Config,
    /// The URL without its password, for messages.
    name: String,
}

/// "host:port/database" of a connection config, never its password.
fn describe(config: &postgres::Config) -> String {
    let host = config
        .get_hosts()
        .first()
        .map(|h| match h {
            postgres::config::Host::Tcp(h) => h.clone(),
            postgres::config::Host::Unix(p) => p.display().to_string(),
        })
        .unwrap_or_else(|| "localhost".into());
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let db = config
        .get_dbname()
        .or(config.get_user())
        .unwrap_or("(default)");
    format!("host {host}, port {port}, database {db}")
}

/// The columns [`info_row`] reads, over [`INFO_FROM`].
const INFO_COLUMNS: &str = r#"s.id, s."user", s.problem, s.language, s.state, j.verdict, j.score,
     j.max_cpu_ms, j.max_memory_kib, s.queued_at,
     CASE WHEN s.state = 'judging' THEN s.claimed_at ELSE j.started_at END, j.finished_at,
     j.judge_version, s.attempts,
     (SELECT COUNT(*) FROM judgings k WHERE k.submission = s.id AND k.finished_at IS NOT NULL),
     octet_length(s.source)::BIGINT, j.id, j.judged_by"#;

const INFO_FROM: &str = "submissions s LEFT JOIN judgings j ON j.id = s.current_judging";

/// A [`ListFilter`]'s conditions over [`INFO_FROM`]: $1 user, $2 problem, $3 verdict code,
/// $4 language (each NULL for "any").
const LIST_WHERE: &str = r#"($1::TEXT IS NULL OR s."user" = $1) AND ($2::TEXT IS NULL OR s.problem = $2)
     AND ($3::TEXT IS NULL OR j.verdict = $3) AND ($4::TEXT IS NULL OR s.language = $4)
     AND (NOT $5::BOOL OR s.state <> 'done')"#;

/// A parameter with its type spelled out, for the `*_typed` calls: they skip the prepare
/// round trip, so a hot statement (claim, heartbeat, finish, events) is ONE round trip.
pub(crate) fn typed<T: postgres::types::ToSql + Sync>(
    value: &T,
    ty: Type,
) -> (&(dyn postgres::types::ToSql + Sync), Type) {
    (value, ty)
}

fn opt_u64(r: &Row, i: usize) -> Result<Option<u64>, postgres::Error> {
    Ok(r.try_get::<_, Option<i64>>(i)?.map(|v| v.max(0) as u64))
}

fn info_row(r: &Row) -> Result<SubmissionInfo, postgres::Error> {
    let state: String = r.try_get(4)?;
    let verdict: Option<String> = r.try_get(5)?;
    Ok(SubmissionInfo {
        id: r.try_get(0)?,
        user: r.try_get(1)?,
        problem: r.try_get(2)?,
        language: r.try_get(3)?,
        state: State::parse(&state),
        verdict: verdict.as_deref().and_then(Verdict::from_code),
        score: opt_u64(r, 6)?.map(|v| v as u32),
        max_cpu_ms: opt_u64(r, 7)?,
        max_memory_kib: opt_u64(r, 8)?,
        queued_at: r.try_get(9)?,
        started_at: r.try_get(10)?,
        finished_at: r.try_get(11)?,
        judge_version: r.try_get(12)?,
        attempts: r.try_get::<_, i64>(13)? as u32,
        judged: r.try_get::<_, i64>(14)? as u32,
        source_bytes: r.try_get::<_, i64>(15)? as u64,
        judging: r.try_get(16)?,
        judged_by: r.try_get(17)?,
    })
}

const JUDGING_COLUMNS: &str = "j.id, j.submission, j.attempt, j.rejudging, j.judged_by, \
     j.package_version, j.judge_version, j.started_at, j.finished_at, j.verdict, j.score, \
     j.max_cpu_ms, j.max_wall_ms, j.max_memory_kib, \
     (SELECT s.current_judging = j.id FROM submissions s WHERE s.id = j.submission)";

fn judging_row(r: &Row) -> Result<JudgingInfo, postgres::Error> {
    let verdict: Option<String> = r.try_get(9)?;
    Ok(JudgingInfo {
        id: r.try_get(0)?,
        submission: r.try_get(1)?,
        attempt: r.try_get::<_, i64>(2)? as u32,
        rejudging: r.try_get(3)?,
        judged_by: r.try_get(4)?,
        package_version: r.try_get(5)?,
        judge_version: r.try_get(6)?,
        started_at: r.try_get(7)?,
        finished_at: r.try_get(8)?,
        verdict: verdict.as_deref().and_then(Verdict::from_code),
        score: opt_u64(r, 10)?.map(|v| v as u32),
        max_cpu_ms: opt_u64(r, 11)?,
        max_wall_ms: opt_u64(r, 12)?,
        max_memory_kib: opt_u64(r, 13)?,
        current: r.try_get::<_, Option<bool>>(14)?.unwrap_or(false),
    })
}

fn rows<T>(
    rows: Vec<Row>,
    f: fn(&Row) -> Result<T, postgres::Error>,
    what: &'static str,
) -> Result<Vec<T>, StoreError> {
    rows.iter()
        .map(f)
        .collect::<Result<Vec<_>, _>>()
        .map_err(sql(what))
}

impl PgStore {
    /// Connects to `url` (`postgres://user:password@host:port/database`) and runs the
    /// migrations. A bad URL or a refused connection is one error naming host, port and
    /// database, never the password.
    pub fn open(url: &str) -> Result<PgStore, StoreError> {
        let name = super::redact_url(url);
        let config: postgres::Config = url.parse().map_err(|e| StoreError::Open {
            path: name.clone(),
            source: Box::new(e),
        })?;
        let manager = PostgresConnectionManager::new(config.clone(), NoTls);
        let pool = r2d2::Pool::builder()
            .max_size(16)
            .min_idle(Some(1))
            .connection_timeout(Duration::from_secs(5))
            .error_handler(Box::new(r2d2::NopErrorHandler))
            .build(manager)
            .map_err(|e| StoreError::Open {
                path: describe(&config),
                source: Box::new(e),
            })?;
        let store = PgStore { pool, config, name };
        store.migrate()?;
        Ok(store)
    }

    /// The URL this store was opened with, without its password.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// A pooled connection; a database that does not answer within the pool's timeout is an
    /// error naming host, port and database.
    pub(crate) fn conn(&self) -> Result<Conn, StoreError> {
        self.pool.get().map_err(|e| StoreError::Open {
            path: describe(&self.config),
            source: Box::new(e),
        })
    }

    /// The connection settings, to reconnect outside the pool.
    pub(crate) fn reconnector(&self) -> postgres::Config {
        self.config.clone()
    }

    fn migrate(&self) -> Result<(), StoreError> {
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(sql("start a migration"))?;
        // One node migrates; the others wait here, then find nothing left to do.
        tx.execute("SELECT pg_advisory_xact_lock(7270400)", &[])
            .map_err(sql("lock the schema"))?;
        tx.batch_execute("CREATE TABLE IF NOT EXISTS ojd_schema (version BIGINT NOT NULL)")
            .map_err(sql("create the schema version table"))?;
        let version: i64 = tx
            .query_opt("SELECT version FROM ojd_schema", &[])
            .map_err(sql("read the schema version"))?
            .map(|r| r.get(0))
            .unwrap_or(0);
        let known = MIGRATIONS.len() as i64;
        if version > known {
            return Err(StoreError::TooNew {
                path: self.name.clone(),
                found: version,
                known,
            });
        }
        for migration in MIGRATIONS.iter().skip(version as usize) {
            tx.batch_execute(migration)
                .map_err(sql("migrate the schema"))?;
        }
        tx.execute("DELETE FROM ojd_schema", &[])
            .map_err(sql("record the schema version"))?;
        tx.execute("INSERT INTO ojd_schema (version) VALUES ($1)", &[&known])
            .map_err(sql("record the schema version"))?;
        tx.commit().map_err(sql("commit the migrations"))
    }
}

fn results_of(
    c: &mut impl postgres::GenericClient,
    judging: i64,
) -> Result<Vec<TestResult>, StoreError> {
    let found = c
        .query(
            "SELECT name, sample, verdict, cpu_ms, wall_ms, memory_kib, exit, message, diff
             FROM judging_results WHERE judging = $1 ORDER BY idx",
            &[&judging],
        )
        .map_err(sql("read test results"))?;
    rows(
        found,
        |r| {
            let verdict: String = r.try_get(2)?;
            let diff: Option<String> = r.try_get(8)?;
            Ok(TestResult {
                name: r.try_get(0)?,
                sample: r.try_get(1)?,
                verdict: Verdict::from_code(&verdict).unwrap_or(Verdict::JudgeError),
                cpu_ms: r.try_get::<_, i64>(3)? as u64,
                wall_ms: r.try_get::<_, i64>(4)? as u64,
                memory_kib: r.try_get::<_, i64>(5)? as u64,
                exit: r.try_get(6)?,
                message: r.try_get(7)?,
                diff: diff.and_then(|d| serde_json::from_str::<Diff>(&d).ok()),
            })
        },
        "read test results",
    )
}

fn outputs_of(
    c: &mut impl postgres::GenericClient,
    judging: i64,
) -> Result<(String, String, Vec<String>), StoreError> {
    let r = c
        .query_one(
            "SELECT compile_output, message, warnings FROM judgings WHERE id = $1",
            &[&judging],
        )
        .map_err(sql("read a judging"))?;
    let warnings: String = r.get(2);
    Ok((
        r.get(0),
        r.get(1),
        serde_json::from_str(&warnings).unwrap_or_default(),
    ))
}

/// [`Store::claim`] as one statement: $1 now, $2 host, $3 lease end. Returns the claim's
/// columns in [`Claim`]'s order, then the judging, then whether it took over an expired lease.
const CLAIM: &str = r#"
WITH next AS (
    SELECT s.id, s.state = 'judging' AS expired FROM submissions s
    LEFT JOIN fairness f ON f."user" = s."user"
    WHERE s.state = 'queued' OR (s.state = 'judging' AND s.lease_until < $1)
    ORDER BY COALESCE(f.last_claim, 0), s.id LIMIT 1
    FOR UPDATE OF s SKIP LOCKED
), claimed AS (
    UPDATE submissions s SET state = 'judging', claimed_at = $1, claimed_by = $2,
        lease_until = $3, attempts = s.attempts + 1
    FROM next WHERE s.id = next.id
    RETURNING s.id, s.attempts, s.pending_rejudging, s."user", s.problem, s.language, s.source,
        (SELECT version FROM problem_current c WHERE c.problem = s.problem) AS version,
        next.expired
), judging AS (
    INSERT INTO judgings (submission, attempt, rejudging, judged_by, started_at, package_version)
    SELECT id, attempts, pending_rejudging, $2, $1, version FROM claimed
    RETURNING id
), fair AS (
    INSERT INTO fairness ("user", last_claim) SELECT "user", nextval('claim_seq') FROM claimed
    ON CONFLICT ("user") DO UPDATE SET last_claim = excluded.last_claim
)
SELECT c.id, c.attempts, c.pending_rejudging, c."user", c.problem, c.language, c.source,
    c.version, j.id, c.expired
FROM claimed c, judging j"#;

/// [`Store::finish`] as one statement: $1 submission, $2 attempt, $3 now, $4..$12 the
/// judging's columns, $13..$21 the per-test columns as arrays (one element per test, in
/// order). A row comes back only when the claim was still current and everything was stored.
/// A rejudging's judging waits for its apply, unless there is nothing to compare with.
const FINISH: &str = r#"
WITH open AS (
    SELECT j.id AS judging, j.rejudging, s.current_judging FROM submissions s
    JOIN judgings j ON j.submission = s.id AND j.attempt = s.attempts
    WHERE s.id = $1 AND s.attempts = $2 AND s.state = 'judging' AND j.finished_at IS NULL
    FOR UPDATE OF s
), judged AS (
    UPDATE judgings SET finished_at = $3, verdict = $4, score = $5, max_cpu_ms = $6,
        max_wall_ms = $7, max_memory_kib = $8, compile_output = $9, message = $10,
        warnings = $11, judge_version = $12
    FROM open WHERE judgings.id = open.judging
    RETURNING judgings.id
), results AS (
    INSERT INTO judging_results
        (judging, idx, name, sample, verdict, cpu_ms, wall_ms, memory_kib, exit, message, diff)
    SELECT open.judging, t.idx - 1, t.name, t.sample, t.verdict, t.cpu_ms, t.wall_ms,
        t.memory_kib, t.exit, t.message, t.diff
    FROM open, unnest($13::TEXT[], $14::BOOLEAN[], $15::TEXT[], $16::BIGINT[], $17::BIGINT[],
        $18::BIGINT[], $19::TEXT[], $20::TEXT[], $21::TEXT[])
        WITH ORDINALITY AS t(name, sample, verdict, cpu_ms, wall_ms, memory_kib, exit, message,
            diff, idx)
), done AS (
    UPDATE submissions SET state = 'done', pending_rejudging = NULL, claimed_at = NULL,
        claimed_by = NULL, lease_until = NULL,
        current_judging = CASE WHEN open.rejudging IS NOT NULL AND open.current_judging IS NOT NULL
            THEN open.current_judging ELSE open.judging END
    FROM open WHERE submissions.id = $1
    RETURNING submissions.id
)
SELECT judged.id, open.rejudging FROM judged, done, open"#;

const REQUEUE_SET: &str =
    "state = 'queued', claimed_at = NULL, claimed_by = NULL, lease_until = NULL";

impl Store for PgStore {
    fn insert(&self, new: &NewSubmission, now: i64) -> Result<i64, StoreError> {
        let r = self
            .conn()?
            .query_typed_one(
                r#"INSERT INTO submissions ("user", problem, language, source, queued_at)
                   VALUES ($1, $2, $3, $4, $5) RETURNING id"#,
                &[
                    typed(&new.user, Type::TEXT),
                    typed(&new.problem, Type::TEXT),
                    typed(&new.language, Type::TEXT),
                    typed(&new.source, Type::BYTEA),
                    typed(&now, Type::INT8),
                ],
            )
            .map_err(sql("queue a submission"))?;
        Ok(r.get(0))
    }

    fn claim(&self, host: &str, now: i64, lease_until: i64) -> Result<Option<Claim>, StoreError> {
        // One statement, one round trip: pick (skipping rows other workers are claiming right
        // now rather than waiting for them), claim, open the judging under the package
        // version current in this statement's snapshot (a publish in flight is invisible until
        // it commits whole), and record the claim for fairness.
        let r = self
            .conn()?
            .query_typed_opt(
                CLAIM,
                &[
                    typed(&now, Type::INT8),
                    typed(&host, Type::TEXT),
                    typed(&lease_until, Type::INT8),
                ],
            )
            .map_err(sql("claim a submission"))?;
        let Some(r) = r else {
            return Ok(None);
        };
        let get = |r: &Row| -> Result<Claim, postgres::Error> {
            Ok(Claim {
                id: r.try_get(0)?,
                attempt: r.try_get::<_, i64>(1)? as u32,
                rejudging: r.try_get(2)?,
                user: r.try_get(3)?,
                problem: r.try_get(4)?,
                language: r.try_get(5)?,
                source: r.try_get(6)?,
                package_version: r.try_get(7)?,
                judging: r.try_get(8)?,
                expired_lease: r.try_get(9)?,
            })
        };
        get(&r).map(Some).map_err(sql("claim a submission"))
    }

    fn finish(
        &self,
        id: i64,
        attempt: u32,
        report: &JudgeReport,
        message: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        let warnings = serde_json::to_string(&report.warnings).unwrap_or_else(|_| "[]".into());
        let max_wall = report.tests.iter().map(|t| t.wall_ms as i64).max();
        let tests = &report.tests;
        let names: Vec<&str> = tests.iter().map(|t| t.name.as_str()).collect();
        let samples: Vec<bool> = tests.iter().map(|t| t.sample).collect();
        let verdicts: Vec<&str> = tests.iter().map(|t| t.verdict.code()).collect();
        let cpu: Vec<i64> = tests.iter().map(|t| t.cpu_ms as i64).collect();
        let wall: Vec<i64> = tests.iter().map(|t| t.wall_ms as i64).collect();
        let memory: Vec<i64> = tests.iter().map(|t| t.memory_kib as i64).collect();
        let exits: Vec<Option<&str>> = tests.iter().map(|t| t.exit.as_deref()).collect();
        let messages: Vec<&str> = tests.iter().map(|t| t.message.as_str()).collect();
        let diffs: Vec<Option<String>> = tests
            .iter()
            .map(|t| t.diff.as_ref().and_then(|d| serde_json::to_string(d).ok()))
            .collect();
        // The verdict, every test's row and the submission's new state in ONE statement: a
        // judging costs one round trip to store, whatever its test count. (A transaction around
        // it, so that a rejudging's last judging applies it atomically.)
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(sql("start storing a verdict"))?;
        let stored = tx
            .query_typed_opt(
                FINISH,
                &[
                    typed(&id, Type::INT8),
                    typed(&(attempt as i64), Type::INT8),
                    typed(&now, Type::INT8),
                    typed(&report.verdict.code(), Type::TEXT),
                    typed(&(report.score as i64), Type::INT8),
                    typed(&(report.max_cpu_ms as i64), Type::INT8),
                    typed(&max_wall, Type::INT8),
                    typed(&(report.max_memory_kib as i64), Type::INT8),
                    typed(&report.compile_output, Type::TEXT),
                    typed(&message, Type::TEXT),
                    typed(&warnings, Type::TEXT),
                    typed(&report.judge_version, Type::TEXT),
                    typed(&names, Type::TEXT_ARRAY),
                    typed(&samples, Type::BOOL_ARRAY),
                    typed(&verdicts, Type::TEXT_ARRAY),
                    typed(&cpu, Type::INT8_ARRAY),
                    typed(&wall, Type::INT8_ARRAY),
                    typed(&memory, Type::INT8_ARRAY),
                    typed(&exits, Type::TEXT_ARRAY),
                    typed(&messages, Type::TEXT_ARRAY),
                    typed(&diffs, Type::TEXT_ARRAY),
                ],
            )
            .map_err(sql("store a verdict"))?;
        let Some(stored) = stored else {
            return Ok(false);
        };
        let rejudging: Option<i64> = stored.try_get(1).map_err(sql("store a verdict"))?;
        if let Some(r) = rejudging {
            // With its last judging, an auto-applying rejudging applies itself (contests.rs).
            contests::auto_apply(&mut tx, r, now)?;
        }
        tx.commit().map_err(sql("commit a verdict"))?;
        Ok(true)
    }

    fn requeue(&self, id: i64, attempt: u32) -> Result<bool, StoreError> {
        let n = self
            .conn()?
            .execute(
                &format!(
                    "UPDATE submissions SET {REQUEUE_SET}
                     WHERE id = $1 AND attempts = $2 AND state = 'judging'"
                ),
                &[&id, &(attempt as i64)],
            )
            .map_err(sql("requeue a submission"))?;
        Ok(n > 0)
    }

    fn requeue_interrupted(&self, host: Option<&str>) -> Result<u64, StoreError> {
        self.conn()?
            .execute(
                &format!(
                    "UPDATE submissions SET {REQUEUE_SET}
                     WHERE state = 'judging' AND ($1::TEXT IS NULL OR claimed_by = $1)"
                ),
                &[&host],
            )
            .map_err(sql("requeue interrupted submissions"))
    }

    fn get(&self, id: i64) -> Result<Option<SubmissionDetail>, StoreError> {
        let mut c = self.conn()?;
        let row = c
            .query_opt(
                &format!("SELECT {INFO_COLUMNS}, s.source FROM {INFO_FROM} WHERE s.id = $1"),
                &[&id],
            )
            .map_err(sql("read a submission"))?;
        let Some(row) = row else {
            return Ok(None);
        };
        let mut detail = SubmissionDetail {
            info: info_row(&row).map_err(sql("read a submission"))?,
            source: row.try_get(18).map_err(sql("read a submission"))?,
            compile_output: String::new(),
            message: String::new(),
            warnings: Vec::new(),
            tests: Vec::new(),
        };
        if let Some(judging) = detail.info.judging {
            (detail.compile_output, detail.message, detail.warnings) =
                outputs_of(&mut *c, judging)?;
            detail.tests = results_of(&mut *c, judging)?;
        }
        Ok(Some(detail))
    }

    fn info(&self, id: i64) -> Result<Option<SubmissionInfo>, StoreError> {
        let row = self
            .conn()?
            .query_opt(
                &format!("SELECT {INFO_COLUMNS} FROM {INFO_FROM} WHERE s.id = $1"),
                &[&id],
            )
            .map_err(sql("read a submission"))?;
        row.as_ref()
            .map(info_row)
            .transpose()
            .map_err(sql("read a submission"))
    }

    fn list(&self, f: &ListFilter) -> Result<Vec<SubmissionInfo>, StoreError> {
        let verdict = f.verdict.map(Verdict::code);
        let found = self
            .conn()?
            .query(
                &format!(
                    "SELECT {INFO_COLUMNS} FROM {INFO_FROM} WHERE {LIST_WHERE}
                       AND ($6::BIGINT IS NULL OR s.id < $6)
                     ORDER BY s.id DESC LIMIT $7"
                ),
                &[
                    &f.user,
                    &f.problem,
                    &verdict,
                    &f.language,
                    &f.pending,
                    &f.before,
                    &(f.limit as i64),
                ],
            )
            .map_err(sql("list submissions"))?;
        rows(found, info_row, "list submissions")
    }

    fn count_matching(&self, f: &ListFilter) -> Result<u64, StoreError> {
        let verdict = f.verdict.map(Verdict::code);
        let n: i64 = self
            .conn()?
            .query_one(
                &format!("SELECT COUNT(*) FROM {INFO_FROM} WHERE {LIST_WHERE}"),
                &[&f.user, &f.problem, &verdict, &f.language, &f.pending],
            )
            .map_err(sql("count submissions"))?
            .get(0);
        Ok(n as u64)
    }

    fn rejudge(&self, id: i64) -> Result<bool, StoreError> {
        let n = self
            .conn()?
            .execute(
                &format!(
                    "UPDATE submissions SET {REQUEUE_SET}, pending_rejudging = NULL WHERE id = $1"
                ),
                &[&id],
            )
            .map_err(sql("rejudge a submission"))?;
        Ok(n > 0)
    }

    fn rejudge_problem(&self, problem: &str) -> Result<u64, StoreError> {
        self.conn()?
            .execute(
                &format!(
                    "UPDATE submissions SET {REQUEUE_SET}, pending_rejudging = NULL WHERE problem = $1"
                ),
                &[&problem],
            )
            .map_err(sql("rejudge a problem"))
    }

    fn enqueue_rejudging(&self, submissions: &[i64], rejudging: i64) -> Result<u64, StoreError> {
        self.conn()?
            .execute(
                &format!(
                    "UPDATE submissions SET {REQUEUE_SET}, pending_rejudging = $2 WHERE id = ANY($1)"
                ),
                &[&submissions, &rejudging],
            )
            .map_err(sql("queue a rejudging"))
    }

    fn make_current(&self, judgings: &[i64]) -> Result<u64, StoreError> {
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(sql("start applying judgings"))?;
        let mut n = 0;
        for id in judgings {
            let changed = tx
                .execute(
                    "UPDATE submissions SET current_judging = $1
                     WHERE id = (SELECT submission FROM judgings WHERE id = $1 AND finished_at IS NOT NULL)",
                    &[id],
                )
                .map_err(sql("apply a judging"))?;
            if changed == 0 {
                // Dropping the transaction rolls back the ones already flipped.
                return Err(StoreError::Conflict(format!(
                    "judging {id} does not exist or has not finished; no judging was made current"
                )));
            }
            n += 1;
        }
        tx.commit().map_err(sql("commit applied judgings"))?;
        Ok(n)
    }

    fn judgings(&self, submission: i64) -> Result<Vec<JudgingInfo>, StoreError> {
        let found = self
            .conn()?
            .query(
                &format!(
                    "SELECT {JUDGING_COLUMNS} FROM judgings j WHERE j.submission = $1 ORDER BY j.id"
                ),
                &[&submission],
            )
            .map_err(sql("list judgings"))?;
        rows(found, judging_row, "list judgings")
    }

    fn judging(&self, id: i64) -> Result<Option<JudgingDetail>, StoreError> {
        let mut c = self.conn()?;
        let row = c
            .query_opt(
                &format!("SELECT {JUDGING_COLUMNS} FROM judgings j WHERE j.id = $1"),
                &[&id],
            )
            .map_err(sql("read a judging"))?;
        let Some(row) = row else {
            return Ok(None);
        };
        let info = judging_row(&row).map_err(sql("read a judging"))?;
        let (compile_output, message, warnings) = outputs_of(&mut *c, id)?;
        let tests = results_of(&mut *c, id)?;
        Ok(Some(JudgingDetail {
            info,
            compile_output,
            message,
            warnings,
            tests,
        }))
    }

    fn counts(&self) -> Result<Counts, StoreError> {
        let found = self
            .conn()?
            .query(
                &format!(
                    "SELECT s.state, j.verdict, COUNT(*) FROM {INFO_FROM} GROUP BY s.state, j.verdict ORDER BY s.state, j.verdict"
                ),
                &[],
            )
            .map_err(sql("count submissions"))?;
        let mut counts = Counts::default();
        for r in found {
            let state: String = r.get(0);
            let verdict: Option<String> = r.get(1);
            counts.add(&state, verdict.as_deref(), r.get::<_, i64>(2) as u64);
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
