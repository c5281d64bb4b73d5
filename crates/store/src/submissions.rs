//! The core [`Store`] methods (queue, submissions, judgings, tokens), written once for every
//! engine over [`Conn`]; only the claim is the engine's own ([`Engine::claim_next`]).

use std::collections::BTreeMap;

use ojd_judge::{Diff, JudgeReport, TestResult, Verdict};

use crate::applying::auto_apply;
use crate::db::{args, tuples, Conn, Engine, Res, Row, Value, ROWS_PER_STATEMENT};
use crate::{
    Claim, Counts, DbError, Inserted, JudgingDetail, JudgingInfo, ListFilter, NewSubmission, State,
    Store, StoreError, SubmissionDetail, SubmissionInfo, TokenInfo,
};

/// The columns [`info_row`] reads, over [`INFO_FROM`].
pub(crate) const INFO_COLUMNS: &str = r#"s.id, s."user", s.problem, s.language, s.state,
     j.verdict, j.score, j.max_cpu_ms, j.max_memory_kib, s.queued_at,
     CASE WHEN s.state = 'judging' THEN s.claimed_at ELSE j.started_at END, j.finished_at,
     j.judge_version, s.attempts,
     (SELECT COUNT(*) FROM judgings k WHERE k.submission = s.id AND k.finished_at IS NOT NULL),
     length(s.source), j.id, j.judged_by, j.score_milli"#;

pub(crate) const INFO_FROM: &str = "submissions s LEFT JOIN judgings j ON j.id = s.current_judging";

/// A [`ListFilter`]'s conditions over [`INFO_FROM`]: $1 user, $2 problem, $3 verdict code,
/// $4 language, $5 pending only, `contest` (the placeholder of the contest's name). The text
/// depends on which filters are set (never on their values): a set one is a plain comparison
/// an index serves (SQLite plans `$1 IS NULL OR user = $1` as a scan of the whole table), an
/// unset one a constant that holds.
fn list_where(f: &ListFilter, contest: &str) -> String {
    let cond = |set: bool, yes: &str, no: &str| if set { yes } else { no }.to_string();
    [
        // The contest's own rows, from its index `(contest, submission, jury)`: a contest's
        // few thousand among a million, never a scan of the table.
        if f.contest.is_some() {
            format!(
                "s.id IN (SELECT cs.submission FROM contest_submissions cs WHERE cs.contest = {contest})"
            )
        } else {
            format!("{contest} IS NULL")
        },
        cond(f.user.is_some(), r#"s."user" = $1"#, "$1 IS NULL"),
        cond(f.problem.is_some(), "s.problem = $2", "$2 IS NULL"),
        // The current judging's verdict as the row keeps it (schema entry 19): its index
        // serves the newest rows of a verdict.
        cond(f.verdict.is_some(), "s.verdict = $3", "$3 IS NULL"),
        cond(f.language.is_some(), "s.language = $4", "$4 IS NULL"),
        cond(
            f.pending,
            "$5 AND s.state IN ('queued', 'judging')",
            "NOT $5",
        ),
    ]
    .join(" AND ")
}

/// Whether the host holding the expired claim of submission `s` was alive when the claim is
/// taken over (an SQL condition; `LEASE_MS` stands for the lease in milliseconds, the same on
/// every host): it has not stopped, and it beat in the second half of the lease it did not
/// renew (a renewal sets `lease_until` to the heartbeat's time plus the lease, in the
/// heartbeat's own transaction). Then the judging ended while its host went on beating (every
/// `HEARTBEAT`, a fraction of the lease): the judge crashed or lost the claim, which may be the
/// submission's doing. Otherwise the host's heartbeat stopped with the lease (killed, stopped,
/// cut off from the database): the host's death, not the submission's. Half a lease, not any
/// later beat: a beat that read its judgings just before the claim and wrote just after it
/// (or one in the instant between a claim and its judging's start) renews nothing, and must
/// not make a host that dies right after look alive. Read by the database's clock only.
pub(crate) const HOLDER_ALIVE: &str = "EXISTS (SELECT 1 FROM hosts h
        WHERE h.name = s.claimed_by AND h.stopped_at IS NULL
          AND h.last_seen > s.lease_until - LEASE_MS / 2)";

/// Puts submissions back in the queue, their claims dropped (the caller adds its conditions).
pub(crate) const REQUEUE: &str =
    "UPDATE submissions SET state = 'queued', claimed_at = NULL, claimed_by = NULL, lease_until = NULL";

/// The submissions by state and current verdict (`''`: none), from the counters the
/// triggers keep (migration 16): a few rows per key at most, whatever the table's size.
pub(crate) const COUNTS: &str = "SELECT state, verdict, CAST(SUM(n) AS BIGINT)
     FROM submission_counts GROUP BY state, verdict HAVING SUM(n) <> 0 ORDER BY state, verdict";

const JUDGING_COLUMNS: &str = "j.id, j.submission, j.attempt, j.rejudging, j.judged_by, \
     j.package_version, j.judge_version, j.started_at, j.finished_at, j.verdict, j.score, \
     j.max_cpu_ms, j.max_wall_ms, j.max_memory_kib, \
     (SELECT s.current_judging = j.id FROM submissions s WHERE s.id = j.submission), \
     j.score_milli";

/// A verdict column's code as a verdict (`None`: none, or a code this ojd does not know).
pub(crate) fn verdict(code: Option<String>) -> Option<Verdict> {
    code.as_deref().and_then(Verdict::from_code)
}

pub(crate) fn info_row(r: &Row<'_>) -> Result<SubmissionInfo, DbError> {
    Ok(SubmissionInfo {
        id: r.get(0)?,
        user: r.get(1)?,
        problem: r.get(2)?,
        language: r.get(3)?,
        state: State::parse(&r.get::<String>(4)?),
        verdict: verdict(r.get(5)?),
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
        score_milli: r.get(18)?,
    })
}

fn judging_row(r: &Row<'_>) -> Result<JudgingInfo, DbError> {
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
        verdict: verdict(r.get(9)?),
        score: r.get(10)?,
        max_cpu_ms: r.get(11)?,
        max_wall_ms: r.get(12)?,
        max_memory_kib: r.get(13)?,
        current: r.get::<Option<bool>>(14)?.unwrap_or(false),
        score_milli: r.get(15)?,
    })
}

fn token_row(r: &Row<'_>) -> Result<TokenInfo, DbError> {
    Ok(TokenInfo {
        name: r.get(0)?,
        admin: r.get(1)?,
        created_at: r.get(2)?,
    })
}

/// Queues a submission; returns its id.
pub(crate) fn insert(c: &mut Conn<'_>, new: &NewSubmission, now: i64) -> Res<i64> {
    let sql = r#"INSERT INTO submissions ("user", problem, language, source, queued_at)
         VALUES ($1, $2, $3, $4, $5) RETURNING id"#;
    let args = args![&new.user, &new.problem, &new.language, &new.source, now];
    c.one("queue a submission", sql, args, |r| r.get(0))
}

/// [`Store::insert_once`]'s body, in its transaction.
fn insert_once(
    c: &mut Conn<'_>,
    new: &NewSubmission,
    contest: Option<(&str, bool)>,
    key: Option<&str>,
    now: i64,
) -> Res<Inserted> {
    let Some(key) = key else {
        let id = insert(c, new, now)?;
        link(c, id, contest)?;
        return Ok(Inserted { id, fresh: true });
    };
    // A second request with the key, made at the same moment, waits here on the unique index
    // until the first commits (PostgreSQL) or holds the whole database (SQLite), then finds
    // its row: no second submission either way.
    let sql = r#"INSERT INTO submissions ("user", problem, language, source, queued_at, idempotency_key)
         VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT DO NOTHING RETURNING id"#;
    let args = args![
        &new.user,
        &new.problem,
        &new.language,
        &new.source,
        now,
        key
    ];
    if let Some(id) = c.row("queue a submission", sql, args, |r| r.get(0))? {
        link(c, id, contest)?;
        return Ok(Inserted { id, fresh: true });
    }
    let sql = r#"SELECT id, problem, language, source FROM submissions
         WHERE "user" = $1 AND idempotency_key = $2"#;
    let decode = |r: &Row<'_>| -> Result<(i64, String, String, Vec<u8>), DbError> {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
    };
    let found = c.row(
        "find a submission by its key",
        sql,
        args![&new.user, key],
        decode,
    )?;
    let Some((id, problem, language, source)) = found else {
        return Err(StoreError::Conflict(format!(
            "the submission with the Idempotency-Key {key:?} could not be stored, nor found: try again"
        )));
    };
    if (problem.as_str(), language.as_str(), source.as_slice())
        != (
            new.problem.as_str(),
            new.language.as_str(),
            new.source.as_slice(),
        )
    {
        return Err(StoreError::Conflict(format!(
            "the Idempotency-Key {key:?} was used for submission {id}, which differs from this one \
             (problem, language or source): a new submission takes a new key"
        )));
    }
    Ok(Inserted { id, fresh: false })
}

/// Links a new submission to the contest it was made through, if any.
fn link(c: &mut Conn<'_>, id: i64, contest: Option<(&str, bool)>) -> Res<()> {
    if let Some((contest, jury)) = contest {
        let sql = "INSERT INTO contest_submissions (submission, contest, jury) VALUES ($1, $2, $3)";
        c.exec(
            "link a submission to its contest",
            sql,
            args![id, contest, jury],
        )?;
    }
    Ok(())
}

/// A judging's outputs (compile output, message, warnings), its test results and their partial
/// credits.
type Outputs = (
    String,
    String,
    Vec<String>,
    Vec<TestResult>,
    BTreeMap<String, u32>,
);

fn outputs_of(c: &mut Conn<'_>, judging: i64) -> Res<Outputs> {
    let sql = "SELECT compile_output, message, warnings FROM judgings WHERE id = $1";
    let (compile_output, message, warnings) =
        c.one("read a judging", sql, args![judging], |r| {
            Ok((r.get(0)?, r.get(1)?, r.get::<String>(2)?))
        })?;
    let sql = "SELECT name, sample, verdict, cpu_ms, wall_ms, memory_kib, exit, message, diff,
           credit_milli
         FROM judging_results WHERE judging = $1 ORDER BY idx";
    let rows = c.rows("read test results", sql, args![judging], |r| {
        let credit: Option<u32> = r.get(9)?;
        let test = TestResult {
            name: r.get(0)?,
            sample: r.get(1)?,
            verdict: verdict(r.get(2)?).unwrap_or(Verdict::JudgeError),
            cpu_ms: r.get(3)?,
            wall_ms: r.get(4)?,
            memory_kib: r.get(5)?,
            exit: r.get(6)?,
            message: r.get(7)?,
            diff: r
                .get::<Option<String>>(8)?
                .and_then(|d| serde_json::from_str::<Diff>(&d).ok()),
        };
        Ok((test, credit))
    })?;
    let partial = (rows.iter())
        .filter_map(|(t, credit)| Some((t.name.clone(), (*credit)?)))
        .collect();
    let tests = rows.into_iter().map(|(t, _)| t).collect();
    let warnings = serde_json::from_str(&warnings).unwrap_or_default();
    Ok((compile_output, message, warnings, tests, partial))
}

/// Stores a judging's test results with their partial credits, many rows per statement (one
/// round trip for a whole judging on PostgreSQL, whatever its test count).
fn store_results(
    c: &mut Conn<'_>,
    judging: i64,
    tests: &[TestResult],
    partial: &BTreeMap<String, u32>,
) -> Res<()> {
    let diffs: Vec<Option<String>> = tests
        .iter()
        .map(|t| t.diff.as_ref().and_then(|d| serde_json::to_string(d).ok()))
        .collect();
    for (n, chunk) in tests.chunks(ROWS_PER_STATEMENT).enumerate() {
        let sql = format!(
            "INSERT INTO judging_results (judging, idx, name, sample, verdict, cpu_ms, wall_ms,
               memory_kib, exit, message, diff, credit_milli)
             VALUES {}",
            tuples(chunk.len(), 12)
        );
        let mut args: Vec<Value> = Vec::with_capacity(chunk.len() * 12);
        for (i, t) in chunk.iter().enumerate() {
            let idx = n * ROWS_PER_STATEMENT + i;
            args.extend_from_slice(args![
                judging,
                idx as i64,
                &t.name,
                t.sample,
                t.verdict.code(),
                t.cpu_ms,
                t.wall_ms,
                t.memory_kib,
                &t.exit,
                &t.message,
                &diffs[idx],
                partial.get(&t.name).copied().map(u64::from),
            ]);
        }
        c.exec("store a test result", &sql, &args)?;
    }
    Ok(())
}

impl<E: Engine> Store for E {
    fn insert(&self, new: &NewSubmission, now: i64) -> Result<i64, StoreError> {
        self.run(None, |c| insert(c, new, now))
    }

    fn insert_once(
        &self,
        new: &NewSubmission,
        contest: Option<(&str, bool)>,
        key: Option<&str>,
        now: i64,
        keep: &(dyn Fn() -> bool + Sync),
    ) -> Result<Inserted, StoreError> {
        self.tx("start a submission", "commit a submission", |c| {
            let done = insert_once(c, new, contest, key, now)?;
            // Asked last: a caller that stopped waiting has told its client that nothing was
            // stored, so nothing may be.
            if done.fresh && !keep() {
                return Err(StoreError::GaveUp);
            }
            Ok(done)
        })
    }

    fn claim(&self, host: &str, now: i64, lease_ms: i64) -> Result<Option<Claim>, StoreError> {
        self.claim_next(host, now, lease_ms, &[])
    }

    fn claim_except(
        &self,
        host: &str,
        now: i64,
        lease_ms: i64,
        skip_languages: &[String],
    ) -> Result<Option<Claim>, StoreError> {
        self.claim_next(host, now, lease_ms, skip_languages)
    }

    fn finish(
        &self,
        id: i64,
        attempt: u32,
        report: &JudgeReport,
        message: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        // The claim's open judging, found only while the claim is current. Its submission stays
        // locked until the verdict commits: a second finish of the same claim waits, then finds
        // nothing open.
        let open = "SELECT j.id, j.rejudging, s.current_judging FROM submissions s
             JOIN judgings j ON j.submission = s.id AND j.attempt = s.attempts
             WHERE s.id = $1 AND s.attempts = $2 AND s.state = 'judging' AND j.finished_at IS NULL
             FOR UPDATE OF s";
        let judged = "UPDATE judgings SET finished_at = $2, verdict = $3, score = $4,
               max_cpu_ms = $5, max_wall_ms = $6, max_memory_kib = $7, compile_output = $8,
               message = $9, warnings = $10, judge_version = $11, score_milli = $12
             WHERE id = $1";
        let done = "UPDATE submissions SET state = 'done', current_judging = $2,
               pending_rejudging = NULL, claimed_at = NULL, claimed_by = NULL, lease_until = NULL
             WHERE id = $1";
        let r = report;
        let warnings = serde_json::to_string(&r.warnings).unwrap_or_else(|_| "[]".into());
        let max_wall = r.tests.iter().map(|t| t.wall_ms).max();
        // The exact score; a report without one (an older worker's) has its whole points.
        let score_milli = r
            .score_milli
            .max(u64::from(r.score) * u64::from(ojd_judge::points::MILLI));
        self.tx("start storing a verdict", "commit a verdict", |c| {
            let what = "find the claim's judging";
            let found = c.row(what, open, args![id, attempt], |r| {
                Ok((
                    r.get(0)?,
                    r.get::<Option<i64>>(1)?,
                    r.get::<Option<i64>>(2)?,
                ))
            })?;
            let Some((judging, rejudging, current)) = found else {
                return Ok(false);
            };
            let args = args![
                judging,
                now,
                r.verdict.code(),
                r.score,
                r.max_cpu_ms,
                max_wall,
                r.max_memory_kib,
                &r.compile_output,
                message,
                &warnings,
                &r.judge_version,
                score_milli,
            ];
            c.exec("store a verdict", judged, args)?;
            store_results(c, judging, &r.tests, &r.partial)?;
            // A rejudging's judging waits for its apply, unless there is nothing to compare with.
            let current = match (rejudging, current) {
                (Some(_), Some(current)) => current,
                _ => judging,
            };
            c.exec("store a verdict", done, args![id, current])?;
            if let Some(rejudging) = rejudging {
                // With its last judging, an auto-applying rejudging applies itself (contests.rs).
                auto_apply(c, rejudging, now)?;
            }
            Ok(true)
        })
    }

    fn requeue(&self, id: i64, attempt: u32) -> Result<bool, StoreError> {
        let sql = format!("{REQUEUE} WHERE id = $1 AND attempts = $2 AND state = 'judging'");
        Ok(self.exec("requeue a submission", &sql, args![id, attempt])? > 0)
    }

    fn requeue_interrupted(&self, host: Option<&str>) -> Result<u64, StoreError> {
        let what = "requeue interrupted submissions";
        // A restart found it half-judged: its judging ended with its host (the previous
        // process), counted as a host's death towards the poison pill.
        let sql = format!(
            "{REQUEUE}, host_deaths = host_deaths + 1
             WHERE state = 'judging' AND ($1 IS NULL OR claimed_by = $1)"
        );
        self.exec(what, &sql, args![host])
    }

    fn requeue_at_stop(&self, host: &str) -> Result<u64, StoreError> {
        let sql = format!("{REQUEUE} WHERE state = 'judging' AND claimed_by = $1");
        self.exec("requeue the judgings of a stopping host", &sql, args![host])
    }

    fn get(&self, id: i64) -> Result<Option<SubmissionDetail>, StoreError> {
        let sql = format!("SELECT {INFO_COLUMNS}, s.source FROM {INFO_FROM} WHERE s.id = $1");
        self.run(None, |c| {
            let found = c.row("read a submission", &sql, args![id], |r| {
                Ok((info_row(r)?, r.get(19)?))
            })?;
            let Some((info, source)) = found else {
                return Ok(None);
            };
            let (compile_output, message, warnings, tests, partial) = match info.judging {
                Some(judging) => outputs_of(c, judging)?,
                None => Default::default(),
            };
            Ok(Some(SubmissionDetail {
                info,
                source,
                compile_output,
                message,
                warnings,
                tests,
                partial,
            }))
        })
    }

    fn info(&self, id: i64) -> Result<Option<SubmissionInfo>, StoreError> {
        let sql = format!("SELECT {INFO_COLUMNS} FROM {INFO_FROM} WHERE s.id = $1");
        self.row("read a submission", &sql, args![id], info_row)
    }

    fn list(&self, f: &ListFilter) -> Result<Vec<SubmissionInfo>, StoreError> {
        let sql = format!(
            "SELECT {INFO_COLUMNS} FROM {INFO_FROM} WHERE {} AND {}
             ORDER BY s.id DESC LIMIT $7",
            list_where(f, "$8"),
            if f.before.is_some() {
                "s.id < $6"
            } else {
                "$6 IS NULL"
            }
        );
        let verdict = f.verdict.map(Verdict::code);
        let args = args![
            &f.user,
            &f.problem,
            verdict,
            &f.language,
            f.pending,
            f.before,
            f.limit,
            &f.contest
        ];
        self.rows("list submissions", &sql, args, info_row)
    }

    fn count_matching(&self, f: &ListFilter) -> Result<u64, StoreError> {
        let any = |v: &Option<String>| v.is_none();
        let any_row = any(&f.user) && any(&f.problem) && any(&f.language) && any(&f.contest);
        if any_row && f.verdict.is_none() {
            // Every submission, or every pending one: the counters, not the table.
            let sql = "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM submission_counts
                 WHERE NOT $1 OR state <> 'done'";
            return self.one("count submissions", sql, args![f.pending], |r| r.get(0));
        }
        if let (Some(v), true) = (f.verdict, any_row) {
            // A verdict alone (a third of a million rows may match): the counters too.
            let sql = "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM submission_counts
                 WHERE verdict = $1 AND (NOT $2 OR state <> 'done')";
            let args = args![v.code(), f.pending];
            return self.one("count submissions", sql, args, |r| r.get(0));
        }
        let only_language = any(&f.user) && any(&f.problem) && any(&f.contest);
        if let (Some(language), true, None) = (&f.language, only_language, f.verdict) {
            // A language alone (most rows may have it): its counters (language_counts.rs).
            let sql = "SELECT CAST(COALESCE(SUM(n), 0) AS BIGINT) FROM language_counts
                 WHERE language = $1 AND (NOT $2 OR state <> 'done')";
            return self.one("count submissions", sql, args![language, f.pending], |r| {
                r.get(0)
            });
        }
        // The filters are the row's own columns: no join to count (the judging's would visit
        // every matching row's judging: 150 ms for a problem's 50,000 on SQLite).
        let sql = format!(
            "SELECT COUNT(*) FROM submissions s WHERE {}",
            list_where(f, "$6")
        );
        let verdict = f.verdict.map(Verdict::code);
        let args = args![
            &f.user,
            &f.problem,
            verdict,
            &f.language,
            f.pending,
            &f.contest
        ];
        self.one("count submissions", &sql, args, |r| r.get(0))
    }

    // A rejudging is an admin's decision to try again: a set-aside poison pill starts over.
    fn rejudge(&self, id: i64) -> Result<bool, StoreError> {
        let sql = format!(
            "{REQUEUE}, pending_rejudging = NULL, crashes = 0, host_deaths = 0 WHERE id = $1"
        );
        Ok(self.exec("rejudge a submission", &sql, args![id])? > 0)
    }

    fn rejudge_problem(&self, problem: &str) -> Result<u64, StoreError> {
        let sql = format!(
            "{REQUEUE}, pending_rejudging = NULL, crashes = 0, host_deaths = 0 WHERE problem = $1"
        );
        self.exec("rejudge a problem", &sql, args![problem])
    }

    fn enqueue_rejudging(&self, submissions: &[i64], rejudging: i64) -> Result<u64, StoreError> {
        let sql = format!(
            "{REQUEUE}, pending_rejudging = $2, crashes = 0, host_deaths = 0 WHERE id = ANY($1)"
        );
        self.exec("queue a rejudging", &sql, args![submissions, rejudging])
    }

    fn make_current(&self, judgings: &[i64]) -> Result<u64, StoreError> {
        let sql = "UPDATE submissions SET current_judging = $1
             WHERE id = (SELECT submission FROM judgings WHERE id = $1 AND finished_at IS NOT NULL)";
        self.tx("start applying judgings", "commit applied judgings", |c| {
            for id in judgings {
                if c.exec("apply a judging", sql, args![*id])? == 0 {
                    // Failing rolls back the ones already flipped.
                    return Err(StoreError::Conflict(format!(
                        "judging {id} does not exist or has not finished; no judging was made current"
                    )));
                }
            }
            Ok(judgings.len() as u64)
        })
    }

    fn judgings(&self, submission: i64) -> Result<Vec<JudgingInfo>, StoreError> {
        let sql = format!(
            "SELECT {JUDGING_COLUMNS} FROM judgings j WHERE j.submission = $1 ORDER BY j.id"
        );
        self.rows("list judgings", &sql, args![submission], judging_row)
    }

    fn judging(&self, id: i64) -> Result<Option<JudgingDetail>, StoreError> {
        let sql = format!("SELECT {JUDGING_COLUMNS} FROM judgings j WHERE j.id = $1");
        self.run(None, |c| {
            let Some(info) = c.row("read a judging", &sql, args![id], judging_row)? else {
                return Ok(None);
            };
            let (compile_output, message, warnings, tests, partial) = outputs_of(c, id)?;
            Ok(Some(JudgingDetail {
                info,
                compile_output,
                message,
                warnings,
                tests,
                partial,
            }))
        })
    }

    fn counts(&self) -> Result<Counts, StoreError> {
        let rows = self.rows("count submissions", COUNTS, args![], |r| {
            Ok((r.get::<String>(0)?, r.get::<String>(1)?, r.get(2)?))
        })?;
        let mut counts = Counts::default();
        for (state, verdict, n) in rows {
            counts.add(&state, Some(verdict.as_str()).filter(|v| !v.is_empty()), n);
        }
        Ok(counts)
    }

    fn add_token(&self, hash: &str, name: &str, admin: bool, now: i64) -> Result<(), StoreError> {
        let sql = "INSERT INTO tokens (hash, name, admin, created_at) VALUES ($1, $2, $3, $4)";
        self.exec("store a token", sql, args![hash, name, admin, now])
            .map(drop)
    }

    fn revoke_tokens(&self, name: &str) -> Result<u64, StoreError> {
        let sql = "DELETE FROM tokens WHERE name = $1";
        self.exec("revoke tokens", sql, args![name])
    }

    fn find_token(&self, hash: &str) -> Result<Option<TokenInfo>, StoreError> {
        let sql = "SELECT name, admin, created_at FROM tokens WHERE hash = $1";
        self.row("look up a token", sql, args![hash], token_row)
    }

    fn tokens(&self) -> Result<Vec<TokenInfo>, StoreError> {
        let sql = "SELECT name, admin, created_at FROM tokens ORDER BY name";
        self.rows("list tokens", sql, args![], token_row)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_judging_with_more_tests_than_one_insert_takes_is_stored_whole() {
        let s = crate::SqliteStore::in_memory().expect("store");
        let new = NewSubmission {
            user: "u".into(),
            problem: "p".into(),
            language: "c".into(),
            source: b"x".to_vec(),
        };
        let id = s.insert(&new, 0).expect("insert");
        let claim = s.claim("h", 1, 100).expect("claim").expect("queued");
        let mut report = JudgeReport::new("p", "c", Verdict::WrongAnswer, vec![]);
        report.tests = (0..ROWS_PER_STATEMENT * 2 + 3)
            .map(|i| TestResult {
                name: format!("t{i}"),
                sample: i == 0,
                verdict: if i % 2 == 0 {
                    Verdict::Accepted
                } else {
                    Verdict::WrongAnswer
                },
                cpu_ms: i as u64,
                wall_ms: 2 * i as u64,
                memory_kib: 3,
                exit: (i % 3 == 0).then(|| "0".to_string()),
                message: String::new(),
                diff: None,
            })
            .collect();
        assert!(s.finish(id, claim.attempt, &report, "", 2).expect("finish"));
        let stored = s.get(id).expect("get").expect("exists");
        assert_eq!(stored.tests, report.tests, "every test, in order");
        assert_eq!(stored.info.verdict, Some(Verdict::WrongAnswer));
    }
}
