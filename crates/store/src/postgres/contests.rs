//! PostgreSQL: `impl ContestStore for PgStore`, the same queries as `sqlite/contests.rs` in
//! PostgreSQL's dialect (tables: [`MIGRATION`], entry 3 of the migration list, and
//! [`MIGRATION_AUTO_APPLY`], entry 7), and [`auto_apply`], which `finish` calls.
//!
//! Concurrency: closing a rejudging locks its row (`FOR UPDATE`), and so does [`auto_apply`]
//! for an open auto-applying one, so two hosts storing its last two judgings at once serialize
//! there: the second sees the first's judging committed and applies. A flip only touches
//! submissions whose new judging is finished (no other `finish` holds them), so it cannot
//! deadlock with a `finish` of the same rejudging.

use postgres::Row;

use super::{info_row, rows, PgStore, INFO_COLUMNS, INFO_FROM};
use crate::contests::{
    Clarification, ContestStore, RejudgeFilter, RejudgingInfo, RejudgingItem, RejudgingState,
};
use crate::{sql, NewSubmission, StoreError, SubmissionInfo};

/// The contests area's tables.
pub const MIGRATION: &str = r#"CREATE TABLE contest_submissions (
        submission BIGINT PRIMARY KEY REFERENCES submissions(id) ON DELETE CASCADE,
        contest TEXT NOT NULL
    );
    CREATE INDEX contest_submissions_contest ON contest_submissions(contest, submission);
    CREATE TABLE contest_state (
        contest TEXT PRIMARY KEY,
        unfrozen BOOLEAN NOT NULL,
        changed_at BIGINT NOT NULL
    );
    CREATE TABLE clarifications (
        id BIGSERIAL PRIMARY KEY,
        contest TEXT NOT NULL,
        "user" TEXT,
        problem TEXT,
        text TEXT NOT NULL,
        answer TEXT,
        public BOOLEAN NOT NULL,
        at BIGINT NOT NULL,
        answered_at BIGINT,
        answered_by TEXT
    );
    CREATE INDEX clarifications_contest ON clarifications(contest, id);
    CREATE TABLE rejudgings (
        id BIGSERIAL PRIMARY KEY,
        created_at BIGINT NOT NULL,
        created_by TEXT NOT NULL,
        scope TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'open',
        closed_at BIGINT,
        closed_by TEXT
    );
    CREATE TABLE rejudging_items (
        rejudging BIGINT NOT NULL REFERENCES rejudgings(id) ON DELETE CASCADE,
        submission BIGINT NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
        before_judging BIGINT,
        PRIMARY KEY (rejudging, submission)
    );"#;

/// Rejudgings that apply themselves, and an index for "is this submission in an open
/// rejudging".
pub const MIGRATION_AUTO_APPLY: &str =
    "ALTER TABLE rejudgings ADD COLUMN auto_apply BOOLEAN NOT NULL DEFAULT FALSE;
    CREATE INDEX rejudging_items_submission ON rejudging_items(submission, rejudging);";

/// The rejudging's newest finished judging of an item's submission.
const AFTER: &str = "(SELECT MAX(j.id) FROM judgings j WHERE j.submission = i.submission
     AND j.rejudging = i.rejudging AND j.finished_at IS NOT NULL)";

fn clarification_row(r: &Row) -> Result<Clarification, postgres::Error> {
    Ok(Clarification {
        id: r.try_get(0)?,
        contest: r.try_get(1)?,
        user: r.try_get(2)?,
        problem: r.try_get(3)?,
        text: r.try_get(4)?,
        answer: r.try_get(5)?,
        public: r.try_get(6)?,
        at: r.try_get(7)?,
        answered_at: r.try_get(8)?,
        answered_by: r.try_get(9)?,
    })
}

fn rejudging_row(r: &Row) -> Result<RejudgingInfo, postgres::Error> {
    let state: String = r.try_get(4)?;
    Ok(RejudgingInfo {
        id: r.try_get(0)?,
        created_at: r.try_get(1)?,
        created_by: r.try_get(2)?,
        scope: r.try_get(3)?,
        state: RejudgingState::parse(&state),
        closed_at: r.try_get(5)?,
        closed_by: r.try_get(6)?,
        auto_apply: r.try_get(7)?,
        total: r.try_get::<_, i64>(8)? as u32,
        judged: r.try_get::<_, i64>(9)? as u32,
    })
}

const REJUDGING_SELECT: &str = "SELECT r.id, r.created_at, r.created_by, r.scope, r.state,
       r.closed_at, r.closed_by, r.auto_apply,
       (SELECT COUNT(*) FROM rejudging_items i WHERE i.rejudging = r.id),
       (SELECT COUNT(*) FROM rejudging_items i WHERE i.rejudging = r.id AND EXISTS
          (SELECT 1 FROM judgings j WHERE j.submission = i.submission AND j.rejudging = r.id
             AND j.finished_at IS NOT NULL))
     FROM rejudgings r";

/// Refuses to close a rejudging twice (and locks it for the closing transaction).
fn open_or_conflict(tx: &mut postgres::Transaction<'_>, id: i64) -> Result<(), StoreError> {
    let state: Option<String> = tx
        .query_opt(
            "SELECT state FROM rejudgings WHERE id = $1 FOR UPDATE",
            &[&id],
        )
        .map_err(sql("read a rejudging"))?
        .map(|r| r.get(0));
    match state.as_deref().map(RejudgingState::parse) {
        None => Err(StoreError::Conflict(format!("there is no rejudging {id}"))),
        Some(RejudgingState::Open) => Ok(()),
        Some(s) => Err(StoreError::Conflict(format!(
            "rejudging {id} was {} already",
            s.as_str()
        ))),
    }
}

/// Each item's submission and the rejudging's finished judging of it (`None`: still waiting).
fn items_after(
    tx: &mut postgres::Transaction<'_>,
    id: i64,
) -> Result<Vec<(i64, Option<i64>)>, StoreError> {
    Ok(tx
        .query(
            &format!("SELECT i.submission, {AFTER} FROM rejudging_items i WHERE i.rejudging = $1"),
            &[&id],
        )
        .map_err(sql("read a rejudging"))?
        .iter()
        .map(|r| (r.get(0), r.get(1)))
        .collect())
}

/// Makes every new judging current and closes the rejudging as applied, inside the caller's
/// transaction. Every item must be judged.
fn flip(
    tx: &mut postgres::Transaction<'_>,
    id: i64,
    pairs: &[(i64, Option<i64>)],
    by: &str,
    now: i64,
) -> Result<u64, StoreError> {
    let submissions: Vec<i64> = pairs.iter().map(|(s, _)| *s).collect();
    let judgings: Vec<Option<i64>> = pairs.iter().map(|(_, j)| *j).collect();
    tx.execute(
        "UPDATE submissions s SET current_judging = p.judging
         FROM unnest($1::BIGINT[], $2::BIGINT[]) AS p(submission, judging)
         WHERE s.id = p.submission",
        &[&submissions, &judgings],
    )
    .map_err(sql("apply a rejudging"))?;
    tx.execute(
        "UPDATE rejudgings SET state = 'applied', closed_at = $2, closed_by = $3 WHERE id = $1",
        &[&id, &now, &by],
    )
    .map_err(sql("apply a rejudging"))?;
    Ok(pairs.len() as u64)
}

/// Called by `finish` in the transaction that stored a judging of rejudging `id`: when `id` is
/// open, applies itself, and that was its last judging, applies it (closed by its creator).
/// Returns whether it did.
pub(super) fn auto_apply(
    tx: &mut postgres::Transaction<'_>,
    id: i64,
    now: i64,
) -> Result<bool, StoreError> {
    let creator: Option<String> = tx
        .query_opt(
            "SELECT created_by FROM rejudgings WHERE id = $1 AND auto_apply AND state = 'open'
             FOR UPDATE",
            &[&id],
        )
        .map_err(sql("read a rejudging"))?
        .map(|r| r.get(0));
    let Some(creator) = creator else {
        return Ok(false);
    };
    let pairs = items_after(tx, id)?;
    if pairs.iter().any(|(_, after)| after.is_none()) {
        return Ok(false);
    }
    flip(tx, id, &pairs, &creator, now)?;
    Ok(true)
}

impl ContestStore for PgStore {
    fn insert_in_contest(
        &self,
        new: &NewSubmission,
        contest: &str,
        now: i64,
    ) -> Result<i64, StoreError> {
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(sql("start a contest submission"))?;
        let id: i64 = tx
            .query_one(
                r#"INSERT INTO submissions ("user", problem, language, source, queued_at)
                   VALUES ($1, $2, $3, $4, $5) RETURNING id"#,
                &[&new.user, &new.problem, &new.language, &new.source, &now],
            )
            .map_err(sql("queue a submission"))?
            .get(0);
        tx.execute(
            "INSERT INTO contest_submissions (submission, contest) VALUES ($1, $2)",
            &[&id, &contest],
        )
        .map_err(sql("link a submission to its contest"))?;
        tx.commit().map_err(sql("commit a contest submission"))?;
        Ok(id)
    }

    fn contest_of(&self, submission: i64) -> Result<Option<String>, StoreError> {
        Ok(self
            .conn()?
            .query_opt(
                "SELECT contest FROM contest_submissions WHERE submission = $1",
                &[&submission],
            )
            .map_err(sql("read a submission's contest"))?
            .map(|r| r.get(0)))
    }

    fn contest_submissions(&self, contest: &str) -> Result<Vec<SubmissionInfo>, StoreError> {
        let found = self
            .conn()?
            .query(
                &format!(
                    "SELECT {INFO_COLUMNS} FROM {INFO_FROM}
                     JOIN contest_submissions c ON c.submission = s.id
                     WHERE c.contest = $1 ORDER BY s.id"
                ),
                &[&contest],
            )
            .map_err(sql("list a contest's submissions"))?;
        rows(found, info_row, "list a contest's submissions")
    }

    fn unfrozen(&self, contest: &str) -> Result<bool, StoreError> {
        Ok(self
            .conn()?
            .query_opt(
                "SELECT unfrozen FROM contest_state WHERE contest = $1",
                &[&contest],
            )
            .map_err(sql("read a contest's freeze"))?
            .map(|r| r.get(0))
            .unwrap_or(false))
    }

    fn set_unfrozen(&self, contest: &str, unfrozen: bool, now: i64) -> Result<(), StoreError> {
        self.conn()?
            .execute(
                "INSERT INTO contest_state (contest, unfrozen, changed_at) VALUES ($1, $2, $3)
                 ON CONFLICT (contest) DO UPDATE SET unfrozen = excluded.unfrozen,
                   changed_at = excluded.changed_at",
                &[&contest, &unfrozen, &now],
            )
            .map_err(sql("unfreeze a contest"))?;
        Ok(())
    }

    fn add_clarification(
        &self,
        contest: &str,
        user: Option<&str>,
        problem: Option<&str>,
        text: &str,
        now: i64,
    ) -> Result<i64, StoreError> {
        Ok(self
            .conn()?
            .query_one(
                r#"INSERT INTO clarifications (contest, "user", problem, text, public, at)
                   VALUES ($1, $2, $3, $4, $5, $6) RETURNING id"#,
                &[&contest, &user, &problem, &text, &user.is_none(), &now],
            )
            .map_err(sql("store a clarification"))?
            .get(0))
    }

    fn answer_clarification(
        &self,
        id: i64,
        answer: &str,
        public: bool,
        by: &str,
        now: i64,
    ) -> Result<bool, StoreError> {
        let n = self
            .conn()?
            .execute(
                r#"UPDATE clarifications SET answer = $2, public = $3, answered_by = $4, answered_at = $5
                   WHERE id = $1 AND "user" IS NOT NULL"#,
                &[&id, &answer, &public, &by, &now],
            )
            .map_err(sql("answer a clarification"))?;
        Ok(n > 0)
    }

    fn clarifications(&self, contest: &str) -> Result<Vec<Clarification>, StoreError> {
        let found = self
            .conn()?
            .query(
                r#"SELECT id, contest, "user", problem, text, answer, public, at, answered_at, answered_by
                   FROM clarifications WHERE contest = $1 ORDER BY id DESC"#,
                &[&contest],
            )
            .map_err(sql("list clarifications"))?;
        rows(found, clarification_row, "list clarifications")
    }

    fn select_for_rejudging(&self, f: &RejudgeFilter) -> Result<Vec<i64>, StoreError> {
        let verdict = f.verdict.map(|v| v.code());
        let found = self
            .conn()?
            .query(
                "SELECT s.id FROM submissions s JOIN judgings j ON j.id = s.current_judging
                 WHERE ($1::BIGINT IS NULL OR s.id = $1) AND ($2::TEXT IS NULL OR s.problem = $2)
                   AND ($3::TEXT IS NULL OR s.id IN (SELECT submission FROM contest_submissions WHERE contest = $3))
                   AND ($4::TEXT IS NULL OR j.verdict = $4) AND ($5::TEXT IS NULL OR s.language = $5)
                   AND ($6::BIGINT IS NULL OR s.queued_at >= $6) AND ($7::BIGINT IS NULL OR s.queued_at < $7)
                 ORDER BY s.id",
                &[
                    &f.submission,
                    &f.problem,
                    &f.contest,
                    &verdict,
                    &f.language,
                    &f.from_ms,
                    &f.to_ms,
                ],
            )
            .map_err(sql("select submissions to rejudge"))?;
        Ok(found.iter().map(|r| r.get(0)).collect())
    }

    fn create_rejudging(
        &self,
        scope: &str,
        by: &str,
        submissions: &[i64],
        auto_apply: bool,
        now: i64,
    ) -> Result<i64, StoreError> {
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(sql("start a rejudging"))?;
        // Lock the submissions first, so that two rejudgings made at once over the same one
        // serialize here and the second sees the first.
        let taken: Vec<i64> = tx
            .query(
                "SELECT id FROM submissions WHERE id = ANY($1) AND current_judging IS NOT NULL
                 ORDER BY id FOR UPDATE",
                &[&submissions],
            )
            .map_err(sql("lock the submissions to rejudge"))?
            .iter()
            .map(|r| r.get(0))
            .collect();
        let busy = tx
            .query_opt(
                "SELECT i.submission, r.id FROM rejudging_items i JOIN rejudgings r ON r.id = i.rejudging
                 WHERE i.submission = ANY($1) AND r.state = 'open' ORDER BY i.submission LIMIT 1",
                &[&taken],
            )
            .map_err(sql("check for open rejudgings"))?;
        if let Some(row) = busy {
            let (s, r): (i64, i64) = (row.get(0), row.get(1));
            return Err(StoreError::Conflict(format!(
                "submission {s} is in rejudging {r}, which is still open: apply or cancel it first"
            )));
        }
        if taken.is_empty() {
            return Err(StoreError::Conflict(
                "none of these submissions has a verdict yet; nothing to rejudge".into(),
            ));
        }
        let id: i64 = tx
            .query_one(
                "INSERT INTO rejudgings (created_at, created_by, scope, auto_apply)
                 VALUES ($1, $2, $3, $4) RETURNING id",
                &[&now, &by, &scope, &auto_apply],
            )
            .map_err(sql("record a rejudging"))?
            .get(0);
        tx.execute(
            "INSERT INTO rejudging_items (rejudging, submission, before_judging)
             SELECT $1, id, current_judging FROM submissions WHERE id = ANY($2)",
            &[&id, &taken],
        )
        .map_err(sql("record a rejudging"))?;
        // Queued under the rejudging: its judgings will not become current by themselves.
        tx.execute(
            "UPDATE submissions SET state = 'queued', claimed_at = NULL, claimed_by = NULL,
               lease_until = NULL, pending_rejudging = $2
             WHERE id = ANY($1)",
            &[&taken, &id],
        )
        .map_err(sql("queue a rejudging"))?;
        tx.commit().map_err(sql("commit a rejudging"))?;
        Ok(id)
    }

    fn rejudging(&self, id: i64) -> Result<Option<RejudgingInfo>, StoreError> {
        let row = self
            .conn()?
            .query_opt(&format!("{REJUDGING_SELECT} WHERE r.id = $1"), &[&id])
            .map_err(sql("read a rejudging"))?;
        row.as_ref()
            .map(rejudging_row)
            .transpose()
            .map_err(sql("read a rejudging"))
    }

    fn rejudgings(&self) -> Result<Vec<RejudgingInfo>, StoreError> {
        let found = self
            .conn()?
            .query(
                &format!("{REJUDGING_SELECT} ORDER BY r.id DESC LIMIT 200"),
                &[],
            )
            .map_err(sql("list rejudgings"))?;
        rows(found, rejudging_row, "list rejudgings")
    }

    fn rejudging_items(&self, id: i64) -> Result<Vec<RejudgingItem>, StoreError> {
        let found = self
            .conn()?
            .query(
                &format!(
                    r#"SELECT i.submission, s."user", s.problem, i.before_judging, {AFTER}
                       FROM rejudging_items i JOIN submissions s ON s.id = i.submission
                       WHERE i.rejudging = $1 ORDER BY i.submission"#
                ),
                &[&id],
            )
            .map_err(sql("list a rejudging's submissions"))?;
        rows(
            found,
            |r| {
                Ok(RejudgingItem {
                    submission: r.try_get(0)?,
                    user: r.try_get(1)?,
                    problem: r.try_get(2)?,
                    before: r.try_get(3)?,
                    after: r.try_get(4)?,
                })
            },
            "list a rejudging's submissions",
        )
    }

    fn apply_rejudging(&self, id: i64, by: &str, now: i64) -> Result<u64, StoreError> {
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(sql("start applying a rejudging"))?;
        open_or_conflict(&mut tx, id)?;
        let pairs = items_after(&mut tx, id)?;
        let waiting = pairs.iter().filter(|(_, a)| a.is_none()).count();
        if waiting > 0 {
            return Err(StoreError::Conflict(format!(
                "rejudging {id} is not finished: {waiting} of {} submissions are still waiting to be judged",
                pairs.len()
            )));
        }
        let n = flip(&mut tx, id, &pairs, by, now)?;
        tx.commit().map_err(sql("commit an applied rejudging"))?;
        Ok(n)
    }

    fn cancel_rejudging(&self, id: i64, by: &str, now: i64) -> Result<(), StoreError> {
        let mut c = self.conn()?;
        let mut tx = c
            .transaction()
            .map_err(sql("start cancelling a rejudging"))?;
        open_or_conflict(&mut tx, id)?;
        tx.execute(
            "UPDATE submissions SET state = CASE WHEN current_judging IS NULL THEN 'queued' ELSE 'done' END,
               pending_rejudging = NULL
             WHERE pending_rejudging = $1 AND state = 'queued'",
            &[&id],
        )
        .map_err(sql("cancel a rejudging"))?;
        tx.execute(
            "UPDATE rejudgings SET state = 'cancelled', closed_at = $2, closed_by = $3 WHERE id = $1",
            &[&id, &now, &by],
        )
        .map_err(sql("cancel a rejudging"))?;
        tx.commit().map_err(sql("commit a cancelled rejudging"))?;
        Ok(())
    }
}
