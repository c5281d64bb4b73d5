//! What the ICPC Contest API (CLICS, `ojd-web`'s `ccs` module) reads of a contest beyond its
//! submissions ([`CcsStore`]): every judging of the contest's submissions with the state of the
//! rejudging it belongs to, and the per-test results of those judgings (the freeze's last
//! change is [`ContestStore::freeze_change`](crate::ContestStore::freeze_change)).
//!
//! The Contest API's event feed is derived from these rows alone (ordered by the stored times
//! and ids), so every serve node of a PostgreSQL cluster derives the same feed: there is no
//! events table to keep in step, and nothing here writes.

use serde::Serialize;

use crate::db::{args, Engine, Row};
use crate::submissions::verdict;
use crate::{DbError, StoreError};
use ojd_judge::Verdict;

/// One judging of a contest's submission, as the Contest API shows it.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CcsJudging {
    /// The judging's id.
    pub id: i64,
    /// The submission it judged.
    pub submission: i64,
    /// When it was claimed (Unix ms).
    pub started_at: i64,
    /// `None` while in flight.
    pub finished_at: Option<i64>,
    /// Its verdict; `None` while in flight or if abandoned.
    pub verdict: Option<Verdict>,
    /// Whole points (the exact score rounded down).
    pub score: Option<u32>,
    /// The exact score in thousandths of a point.
    pub score_milli: Option<u64>,
    /// The largest CPU time of a test, in milliseconds.
    pub max_cpu_ms: Option<u64>,
    /// The rejudging it was made by, and that rejudging's state (`open`, `applied`,
    /// `cancelled`) and closing time.
    pub rejudging: Option<i64>,
    /// The state of that rejudging: `open`, `applied` or `cancelled`.
    pub rejudging_state: Option<String>,
    /// When that rejudging was applied or cancelled (Unix ms).
    pub rejudging_closed_at: Option<i64>,
    /// Whether it is in flight now (the submission is being judged under this judging's
    /// claim); an unfinished judging that is not in flight was abandoned (a crash, a restart).
    pub in_flight: bool,
}

/// One test's result in a judging.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct CcsRun {
    /// The judging the test ran in.
    pub judging: i64,
    /// The test's position in the judging, from 0.
    pub idx: u32,
    /// The test's verdict.
    pub verdict: Verdict,
    /// CPU time used, in milliseconds.
    pub cpu_ms: u64,
}

/// The Contest API's reads; every backend implements it (see the layout in [`super`]).
pub trait CcsStore: Send + Sync {
    /// Every judging of the submissions made through `contest`, by id.
    fn contest_judgings(&self, contest: &str) -> Result<Vec<CcsJudging>, StoreError>;
    /// Every per-test result of those judgings, by judging and test.
    fn contest_runs(&self, contest: &str) -> Result<Vec<CcsRun>, StoreError>;
}

fn judging_row(r: &Row<'_>) -> Result<CcsJudging, DbError> {
    Ok(CcsJudging {
        id: r.get(0)?,
        submission: r.get(1)?,
        started_at: r.get(2)?,
        finished_at: r.get(3)?,
        verdict: verdict(r.get(4)?),
        score: r.get(5)?,
        max_cpu_ms: r.get(6)?,
        rejudging: r.get(7)?,
        rejudging_state: r.get(8)?,
        rejudging_closed_at: r.get(9)?,
        in_flight: r.get(10)?,
        score_milli: r.get(11)?,
    })
}

impl<E: Engine> CcsStore for E {
    fn contest_judgings(&self, contest: &str) -> Result<Vec<CcsJudging>, StoreError> {
        let sql = "SELECT j.id, j.submission, j.started_at, j.finished_at, j.verdict, j.score,
               j.max_cpu_ms, j.rejudging, r.state, r.closed_at,
               (j.finished_at IS NULL AND s.state = 'judging' AND s.attempts = j.attempt),
               j.score_milli
             FROM judgings j
             JOIN contest_submissions c ON c.submission = j.submission
             JOIN submissions s ON s.id = j.submission
             LEFT JOIN rejudgings r ON r.id = j.rejudging
             WHERE c.contest = $1 ORDER BY j.id";
        self.rows(
            "list a contest's judgings",
            sql,
            args![contest],
            judging_row,
        )
    }

    fn contest_runs(&self, contest: &str) -> Result<Vec<CcsRun>, StoreError> {
        let sql = "SELECT r.judging, r.idx, r.verdict, r.cpu_ms
             FROM judging_results r
             JOIN judgings j ON j.id = r.judging
             JOIN contest_submissions c ON c.submission = j.submission
             WHERE c.contest = $1 ORDER BY r.judging, r.idx";
        self.rows("list a contest's runs", sql, args![contest], |r| {
            let code: String = r.get(2)?;
            Ok(CcsRun {
                judging: r.get(0)?,
                idx: r.get(1)?,
                verdict: Verdict::from_code(&code).unwrap_or(Verdict::JudgeError),
                cpu_ms: r.get(3)?,
            })
        })
    }
}
