//! The core [`Store`] methods (queue, submissions, judgings, tokens), written once for every
//! engine over [`Conn`]; the claim and the storing of a verdict are the engine's own
//! ([`Engine::claim_next`], [`Engine::store_verdict`]).

use ojd_judge::verdict::{Diff, JudgeReport, TestResult, Verdict};

use crate::db::{args, Conn, Engine, Finish, Row};
use crate::{
    Claim, Counts, DbError, JudgingDetail, JudgingInfo, ListFilter, NewSubmission, State, Store,
    StoreError, SubmissionDetail, SubmissionInfo, TokenInfo,
};

/// The columns [`info_row`] reads, over [`INFO_FROM`].
pub(crate) const INFO_COLUMNS: &str = r#"s.id, s."user", s.problem, s.language, s.state,
     j.verdict, j.score, j.max_cpu_ms, j.max_memory_kib, s.queued_at,
     CASE WHEN s.state = 'judging' THEN s.claimed_at ELSE j.started_at END, j.finished_at,
     j.judge_version, s.attempts,
     (SELECT COUNT(*) FROM judgings k WHERE k.submission = s.id AND k.finished_at IS NOT NULL),
     length(s.source), j.id, j.judged_by"#;

pub(crate) const INFO_FROM: &str = "submissions s LEFT JOIN judgings j ON j.id = s.current_judging";

/// A [`ListFilter`]'s conditions over [`INFO_FROM`]: $1 user, $2 problem, $3 verdict code,
/// $4 language (each NULL for "any"), $5 pending only.
const LIST_WHERE: &str = r#"($1 IS NULL OR s."user" = $1) AND ($2 IS NULL OR s.problem = $2)
     AND ($3 IS NULL OR j.verdict = $3) AND ($4 IS NULL OR s.language = $4)
     AND (NOT $5 OR s.state <> 'done')"#;

/// Puts a submission back in the queue, its claim dropped (the caller adds its conditions).
pub(crate) const REQUEUE: &str =
    "UPDATE submissions SET state = 'queued', claimed_at = NULL, claimed_by = NULL, lease_until = NULL";

const JUDGING_COLUMNS: &str = "j.id, j.submission, j.attempt, j.rejudging, j.judged_by, \
     j.package_version, j.judge_version, j.started_at, j.finished_at, j.verdict, j.score, \
     j.max_cpu_ms, j.max_wall_ms, j.max_memory_kib, \
     (SELECT s.current_judging = j.id FROM submissions s WHERE s.id = j.submission)";

fn verdict(code: Option<String>) -> Option<Verdict> {
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
    })
}

/// Queues a submission; returns its id.
pub(crate) fn insert(c: &mut Conn<'_>, new: &NewSubmission, now: i64) -> Result<i64, StoreError> {
    c.one(
        "queue a submission",
        r#"INSERT INTO submissions ("user", problem, language, source, queued_at)
           VALUES ($1, $2, $3, $4, $5) RETURNING id"#,
        args![&new.user, &new.problem, &new.language, &new.source, now],
        |r| r.get(0),
    )
}

/// A judging's outputs (compile output, message, warnings) and its test results.
type Outputs = (String, String, Vec<String>, Vec<TestResult>);

fn outputs_of(c: &mut Conn<'_>, judging: i64) -> Result<Outputs, StoreError> {
    let (compile_output, message, warnings) = c.one(
        "read a judging",
        "SELECT compile_output, message, warnings FROM judgings WHERE id = $1",
        args![judging],
        |r| Ok((r.get(0)?, r.get(1)?, r.get::<String>(2)?)),
    )?;
    let tests = c.rows(
        "read test results",
        "SELECT name, sample, verdict, cpu_ms, wall_ms, memory_kib, exit, message, diff
         FROM judging_results WHERE judging = $1 ORDER BY idx",
        args![judging],
        |r| {
            Ok(TestResult {
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
            })
        },
    )?;
    let warnings = serde_json::from_str(&warnings).unwrap_or_default();
    Ok((compile_output, message, warnings, tests))
}

impl<E: Engine> Store for E {
    fn insert(&self, new: &NewSubmission, now: i64) -> Result<i64, StoreError> {
        self.run(None, |c| insert(c, new, now))
    }

    fn claim(&self, host: &str, now: i64, lease_until: i64) -> Result<Option<Claim>, StoreError> {
        self.claim_next(host, now, lease_until)
    }

    fn finish(
        &self,
        id: i64,
        attempt: u32,
        report: &JudgeReport,
        message: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        let v = Finish {
            id,
            attempt,
            now,
            report,
            message,
            warnings: serde_json::to_string(&report.warnings).unwrap_or_else(|_| "[]".into()),
            max_wall: report.tests.iter().map(|t| t.wall_ms).max(),
        };
        self.tx("start storing a verdict", "commit a verdict", |c| {
            let Some(rejudging) = self.store_verdict(c, &v)? else {
                return Ok(false);
            };
            if let Some(r) = rejudging {
                // With its last judging, an auto-applying rejudging applies itself (contests.rs).
                crate::contests::auto_apply(self, c, r, now)?;
            }
            Ok(true)
        })
    }

    fn requeue(&self, id: i64, attempt: u32) -> Result<bool, StoreError> {
        let sql = format!("{REQUEUE} WHERE id = $1 AND attempts = $2 AND state = 'judging'");
        let n = self.run(None, |c| {
            c.exec("requeue a submission", &sql, args![id, attempt])
        })?;
        Ok(n > 0)
    }

    fn requeue_interrupted(&self, host: Option<&str>) -> Result<u64, StoreError> {
        let sql = format!("{REQUEUE} WHERE state = 'judging' AND ($1 IS NULL OR claimed_by = $1)");
        self.run(None, |c| {
            c.exec("requeue interrupted submissions", &sql, args![host])
        })
    }

    fn get(&self, id: i64) -> Result<Option<SubmissionDetail>, StoreError> {
        let sql = format!("SELECT {INFO_COLUMNS}, s.source FROM {INFO_FROM} WHERE s.id = $1");
        self.run(None, |c| {
            let row = c.row("read a submission", &sql, args![id], |r| {
                Ok((info_row(r)?, r.get(18)?))
            })?;
            let Some((info, source)) = row else {
                return Ok(None);
            };
            let (compile_output, message, warnings, tests) = match info.judging {
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
            }))
        })
    }

    fn info(&self, id: i64) -> Result<Option<SubmissionInfo>, StoreError> {
        let sql = format!("SELECT {INFO_COLUMNS} FROM {INFO_FROM} WHERE s.id = $1");
        self.run(None, |c| {
            c.row("read a submission", &sql, args![id], info_row)
        })
    }

    fn list(&self, f: &ListFilter) -> Result<Vec<SubmissionInfo>, StoreError> {
        let sql = format!(
            "SELECT {INFO_COLUMNS} FROM {INFO_FROM} WHERE {LIST_WHERE}
               AND ($6 IS NULL OR s.id < $6)
             ORDER BY s.id DESC LIMIT $7"
        );
        let verdict = f.verdict.map(Verdict::code);
        let args = args![
            &f.user,
            &f.problem,
            verdict,
            &f.language,
            f.pending,
            f.before,
            f.limit
        ];
        self.run(None, |c| c.rows("list submissions", &sql, args, info_row))
    }

    fn count_matching(&self, f: &ListFilter) -> Result<u64, StoreError> {
        let sql = format!("SELECT COUNT(*) FROM {INFO_FROM} WHERE {LIST_WHERE}");
        let verdict = f.verdict.map(Verdict::code);
        let args = args![&f.user, &f.problem, verdict, &f.language, f.pending];
        self.run(None, |c| {
            c.one("count submissions", &sql, args, |r| r.get(0))
        })
    }

    fn rejudge(&self, id: i64) -> Result<bool, StoreError> {
        let sql = format!("{REQUEUE}, pending_rejudging = NULL WHERE id = $1");
        let n = self.run(None, |c| c.exec("rejudge a submission", &sql, args![id]))?;
        Ok(n > 0)
    }

    fn rejudge_problem(&self, problem: &str) -> Result<u64, StoreError> {
        let sql = format!("{REQUEUE}, pending_rejudging = NULL WHERE problem = $1");
        self.run(None, |c| c.exec("rejudge a problem", &sql, args![problem]))
    }

    fn enqueue_rejudging(&self, submissions: &[i64], rejudging: i64) -> Result<u64, StoreError> {
        let sql = format!("{REQUEUE}, pending_rejudging = $2 WHERE id = ANY($1)");
        self.run(None, |c| {
            c.exec("queue a rejudging", &sql, args![submissions, rejudging])
        })
    }

    fn make_current(&self, judgings: &[i64]) -> Result<u64, StoreError> {
        self.tx("start applying judgings", "commit applied judgings", |c| {
            for id in judgings {
                let changed = c.exec(
                    "apply a judging",
                    "UPDATE submissions SET current_judging = $1
                     WHERE id = (SELECT submission FROM judgings WHERE id = $1 AND finished_at IS NOT NULL)",
                    args![*id],
                )?;
                if changed == 0 {
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
        self.run(None, |c| {
            c.rows("list judgings", &sql, args![submission], judging_row)
        })
    }

    fn judging(&self, id: i64) -> Result<Option<JudgingDetail>, StoreError> {
        let sql = format!("SELECT {JUDGING_COLUMNS} FROM judgings j WHERE j.id = $1");
        self.run(None, |c| {
            let Some(info) = c.row("read a judging", &sql, args![id], judging_row)? else {
                return Ok(None);
            };
            let (compile_output, message, warnings, tests) = outputs_of(c, id)?;
            Ok(Some(JudgingDetail {
                info,
                compile_output,
                message,
                warnings,
                tests,
            }))
        })
    }

    fn counts(&self) -> Result<Counts, StoreError> {
        let sql = format!(
            "SELECT s.state, j.verdict, COUNT(*) FROM {INFO_FROM}
             GROUP BY s.state, j.verdict ORDER BY s.state, j.verdict"
        );
        let rows = self.run(None, |c| {
            c.rows("count submissions", &sql, args![], |r| {
                Ok((r.get::<String>(0)?, r.get::<Option<String>>(1)?, r.get(2)?))
            })
        })?;
        let mut counts = Counts::default();
        for (state, verdict, n) in rows {
            counts.add(&state, verdict.as_deref(), n);
        }
        Ok(counts)
    }

    fn add_token(&self, hash: &str, name: &str, admin: bool, now: i64) -> Result<(), StoreError> {
        self.run(None, |c| {
            c.exec(
                "store a token",
                "INSERT INTO tokens (hash, name, admin, created_at) VALUES ($1, $2, $3, $4)",
                args![hash, name, admin, now],
            )
        })?;
        Ok(())
    }

    fn revoke_tokens(&self, name: &str) -> Result<u64, StoreError> {
        self.run(None, |c| {
            c.exec(
                "revoke tokens",
                "DELETE FROM tokens WHERE name = $1",
                args![name],
            )
        })
    }

    fn find_token(&self, hash: &str) -> Result<Option<TokenInfo>, StoreError> {
        self.run(None, |c| {
            c.row(
                "look up a token",
                "SELECT name, admin, created_at FROM tokens WHERE hash = $1",
                args![hash],
                token_row,
            )
        })
    }

    fn tokens(&self) -> Result<Vec<TokenInfo>, StoreError> {
        self.run(None, |c| {
            c.rows(
                "list tokens",
                "SELECT name, admin, created_at FROM tokens ORDER BY name",
                args![],
                token_row,
            )
        })
    }
}

fn token_row(r: &Row<'_>) -> Result<TokenInfo, DbError> {
    Ok(TokenInfo {
        name: r.get(0)?,
        admin: r.get(1)?,
        created_at: r.get(2)?,
    })
}
