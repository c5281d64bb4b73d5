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

use postgres::{NoTls, Row};
use r2d2_postgres::PostgresConnectionManager;

use super::{
    sql, Claim, Counts, JudgingDetail, JudgingInfo, ListFilter, NewSubmission, State, Store,
    StoreError, SubmissionDetail, SubmissionInfo, TokenInfo,
};
use crate::verdict::{Diff, JudgeReport, TestResult, Verdict};

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
     AND ($3::TEXT IS NULL OR j.verdict = $3) AND ($4::TEXT IS NULL OR s.language = $4)"#;

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

const REQUEUE_SET: &str =
    "state = 'queued', claimed_at = NULL, claimed_by = NULL, lease_until = NULL";

impl Store for PgStore {
    fn insert(&self, new: &NewSubmission, now: i64) -> Result<i64, StoreError> {
        let r = self
            .conn()?
            .query_one(
                r#"INSERT INTO submissions ("user", problem, language, source, queued_at)
                   VALUES ($1, $2, $3, $4, $5) RETURNING id"#,
                &[&new.user, &new.problem, &new.language, &new.source, &now],
            )
            .map_err(sql("queue a submission"))?;
        Ok(r.get(0))
    }

    fn claim(&self, host: &str, now: i64, lease_until: i64) -> Result<Option<Claim>, StoreError> {
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(sql("start a claim"))?;
        // Rows other workers are claiming right now are skipped, not waited for.
        let next = tx
            .query_opt(
                r#"SELECT s.id FROM submissions s LEFT JOIN fairness f ON f."user" = s."user"
                   WHERE s.state = 'queued' OR (s.state = 'judging' AND s.lease_until < $1)
                   ORDER BY COALESCE(f.last_claim, 0), s.id LIMIT 1
                   FOR UPDATE OF s SKIP LOCKED"#,
                &[&now],
            )
            .map_err(sql("find the next submission"))?;
        let Some(next) = next else {
            return Ok(None);
        };
        let id: i64 = next.get(0);
        let r = tx
            .query_one(
                r#"UPDATE submissions SET state = 'judging', claimed_at = $2, claimed_by = $3,
                     lease_until = $4, attempts = attempts + 1
                   WHERE id = $1
                   RETURNING attempts, pending_rejudging, "user", problem, language, source"#,
                &[&id, &now, &host, &lease_until],
            )
            .map_err(sql("claim a submission"))?;
        let attempt: i64 = r.get(0);
        let rejudging: Option<i64> = r.get(1);
        let user: String = r.get(2);
        let problem: String = r.get(3);
        let package_version: Option<String> = tx
            .query_opt(
                "SELECT version FROM problem_current WHERE problem = $1",
                &[&problem],
            )
            .map_err(sql("find the problem's package version"))?
            .map(|r| r.get(0));
        let judging: i64 = tx
            .query_one(
                "INSERT INTO judgings (submission, attempt, rejudging, judged_by, started_at, package_version)
                 VALUES ($1, $2, $3, $4, $5, $6) RETURNING id",
                &[&id, &attempt, &rejudging, &host, &now, &package_version],
            )
            .map_err(sql("open a judging"))?
            .get(0);
        tx.execute(
            r#"INSERT INTO fairness ("user", last_claim) VALUES ($1, nextval('claim_seq'))
               ON CONFLICT ("user") DO UPDATE SET last_claim = excluded.last_claim"#,
            &[&user],
        )
        .map_err(sql("record a claim"))?;
        tx.commit().map_err(sql("commit a claim"))?;
        Ok(Some(Claim {
            id,
            attempt: attempt as u32,
            judging,
            rejudging,
            package_version,
            user,
            problem,
            language: r.get(4),
            source: r.get(5),
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
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(sql("start storing a verdict"))?;
        let attempt = attempt as i64;
        let open = tx
            .query_opt(
                "SELECT j.id, j.rejudging, s.current_judging FROM submissions s
                 JOIN judgings j ON j.submission = s.id AND j.attempt = s.attempts
                 WHERE s.id = $1 AND s.attempts = $2 AND s.state = 'judging' AND j.finished_at IS NULL
                 FOR UPDATE OF s",
                &[&id, &attempt],
            )
            .map_err(sql("find the claim's judging"))?;
        let Some(open) = open else {
            return Ok(false);
        };
        let (judging, rejudging, current): (i64, Option<i64>, Option<i64>) =
            (open.get(0), open.get(1), open.get(2));
        let warnings = serde_json::to_string(&report.warnings).unwrap_or_else(|_| "[]".into());
        let max_wall = report.tests.iter().map(|t| t.wall_ms as i64).max();
        tx.execute(
            "UPDATE judgings SET finished_at = $2, verdict = $3, score = $4, max_cpu_ms = $5,
               max_wall_ms = $6, max_memory_kib = $7, compile_output = $8, message = $9,
               warnings = $10, judge_version = $11
             WHERE id = $1",
            &[
                &judging,
                &now,
                &report.verdict.code(),
                &(report.score as i64),
                &(report.max_cpu_ms as i64),
                &max_wall,
                &(report.max_memory_kib as i64),
                &report.compile_output,
                &message,
                &warnings,
                &report.judge_version,
            ],
        )
        .map_err(sql("store a verdict"))?;
        let insert = tx
            .prepare(
                "INSERT INTO judging_results (judging, idx, name, sample, verdict, cpu_ms, wall_ms, memory_kib, exit, message, diff)
                 VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)",
            )
            .map_err(sql("store test results"))?;
        for (i, t) in report.tests.iter().enumerate() {
            let diff = t.diff.as_ref().and_then(|d| serde_json::to_string(d).ok());
            tx.execute(
                &insert,
                &[
                    &judging,
                    &(i as i64),
                    &t.name,
                    &t.sample,
                    &t.verdict.code(),
                    &(t.cpu_ms as i64),
                    &(t.wall_ms as i64),
                    &(t.memory_kib as i64),
                    &t.exit,
                    &t.message,
                    &diff,
                ],
            )
            .map_err(sql("store a test result"))?;
        }
        let new_current = match (rejudging, current) {
            (Some(_), Some(current)) => current,
            _ => judging,
        };
        tx.execute(
            "UPDATE submissions SET state = 'done', current_judging = $2, pending_rejudging = NULL,
               claimed_at = NULL, claimed_by = NULL, lease_until = NULL
             WHERE id = $1",
            &[&id, &new_current],
        )
        .map_err(sql("store a verdict"))?;
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
                       AND ($5::BIGINT IS NULL OR s.id < $5)
                     ORDER BY s.id DESC LIMIT $6"
                ),
                &[
                    &f.user,
                    &f.problem,
                    &verdict,
                    &f.language,
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
                &[&f.user, &f.problem, &verdict, &f.language],
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
            let n = r.get::<_, i64>(2) as u64;
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
