//! `impl ContestStore for SqliteStore`: contest submissions, freeze state, clarifications and
//! rejudgings (tables: migrations [`MIGRATION`] and [`MIGRATION_AUTO_APPLY`], appended to the
//! SQLite migration list), and [`auto_apply`], which the core store's `finish` calls in the
//! transaction that stores a rejudging's judging.

use rusqlite::{params, OptionalExtension};

use super::{info_row, SqliteStore, INFO_COLUMNS, INFO_FROM};
use crate::contests::{
    Clarification, ContestStore, RejudgeFilter, RejudgingInfo, RejudgingItem, RejudgingState,
};
use crate::{sql, NewSubmission, StoreError, SubmissionInfo};

/// The contests area's tables (one entry of the migration list).
pub const MIGRATION: &str = "CREATE TABLE contest_submissions (
        submission INTEGER PRIMARY KEY REFERENCES submissions(id) ON DELETE CASCADE,
        contest TEXT NOT NULL
    );
    CREATE INDEX contest_submissions_contest ON contest_submissions(contest, submission);
    CREATE TABLE contest_state (
        contest TEXT PRIMARY KEY,
        unfrozen INTEGER NOT NULL,
        changed_at INTEGER NOT NULL
    );
    CREATE TABLE clarifications (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        contest TEXT NOT NULL,
        user TEXT,
        problem TEXT,
        text TEXT NOT NULL,
        answer TEXT,
        public INTEGER NOT NULL,
        at INTEGER NOT NULL,
        answered_at INTEGER,
        answered_by TEXT
    );
    CREATE INDEX clarifications_contest ON clarifications(contest, id);
    CREATE TABLE rejudgings (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        created_at INTEGER NOT NULL,
        created_by TEXT NOT NULL,
        scope TEXT NOT NULL,
        state TEXT NOT NULL DEFAULT 'open',
        closed_at INTEGER,
        closed_by TEXT
    );
    CREATE TABLE rejudging_items (
        rejudging INTEGER NOT NULL REFERENCES rejudgings(id) ON DELETE CASCADE,
        submission INTEGER NOT NULL REFERENCES submissions(id) ON DELETE CASCADE,
        before_judging INTEGER,
        PRIMARY KEY (rejudging, submission)
    );";

/// Rejudgings that apply themselves (the admin's "rejudge" buttons), and an index for "is this
/// submission in an open rejudging".
pub const MIGRATION_AUTO_APPLY: &str =
    "ALTER TABLE rejudgings ADD COLUMN auto_apply INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX rejudging_items_submission ON rejudging_items(submission, rejudging);";

/// The rejudging's newest finished judging of an item's submission.
const AFTER: &str = "(SELECT MAX(j.id) FROM judgings j WHERE j.submission = i.submission
     AND j.rejudging = i.rejudging AND j.finished_at IS NOT NULL)";

fn clarification_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Clarification> {
    Ok(Clarification {
        id: r.get(0)?,
        contest: r.get(1)?,
        user: r.get(2)?,
        problem: r.get(3)?,
        text: r.get(4)?,
        answer: r.get(5)?,
        public: r.get(6)?,
        at: r.get(7)?,
        answered_at: r.get(8)?,
        answered_by: r.get(9)?,
    })
}

fn rejudging_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<RejudgingInfo> {
    let state: String = r.get(4)?;
    Ok(RejudgingInfo {
        id: r.get(0)?,
        created_at: r.get(1)?,
        created_by: r.get(2)?,
        scope: r.get(3)?,
        state: RejudgingState::parse(&state),
        closed_at: r.get(5)?,
        closed_by: r.get(6)?,
        auto_apply: r.get(7)?,
        total: r.get(8)?,
        judged: r.get(9)?,
    })
}

const REJUDGING_SELECT: &str = "SELECT r.id, r.created_at, r.created_by, r.scope, r.state,
       r.closed_at, r.closed_by, r.auto_apply,
       (SELECT COUNT(*) FROM rejudging_items i WHERE i.rejudging = r.id),
       (SELECT COUNT(*) FROM rejudging_items i WHERE i.rejudging = r.id AND EXISTS
          (SELECT 1 FROM judgings j WHERE j.submission = i.submission AND j.rejudging = r.id
             AND j.finished_at IS NOT NULL))
     FROM rejudgings r";

/// Refuses to close a rejudging twice.
fn open_or_conflict(tx: &rusqlite::Transaction<'_>, id: i64) -> Result<(), StoreError> {
    let state: Option<String> = tx
        .query_row("SELECT state FROM rejudgings WHERE id = ?1", [id], |r| {
            r.get(0)
        })
        .optional()
        .map_err(sql("read a rejudging"))?;
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
    conn: &rusqlite::Connection,
    id: i64,
) -> Result<Vec<(i64, Option<i64>)>, StoreError> {
    let mut st = conn
        .prepare_cached(&format!(
            "SELECT i.submission, {AFTER} FROM rejudging_items i WHERE i.rejudging = ?1"
        ))
        .map_err(sql("read a rejudging"))?;
    let rows = st
        .query_map([id], |r| Ok((r.get(0)?, r.get(1)?)))
        .map_err(sql("read a rejudging"))?;
    rows.collect::<Result<Vec<_>, _>>()
        .map_err(sql("read a rejudging"))
}

/// Makes every new judging current and closes the rejudging as applied, inside the caller's
/// transaction (the same flip as `Store::make_current`, so that the state change and the new
/// current judgings commit together). Every item must be judged.
fn flip(
    conn: &rusqlite::Connection,
    id: i64,
    pairs: &[(i64, Option<i64>)],
    by: &str,
    now: i64,
) -> Result<u64, StoreError> {
    {
        let mut st = conn
            .prepare_cached("UPDATE submissions SET current_judging = ?2 WHERE id = ?1")
            .map_err(sql("apply a rejudging"))?;
        for (submission, after) in pairs {
            st.execute(params![submission, after])
                .map_err(sql("apply a rejudging"))?;
        }
    }
    conn.execute(
        "UPDATE rejudgings SET state = 'applied', closed_at = ?2, closed_by = ?3 WHERE id = ?1",
        params![id, now, by],
    )
    .map_err(sql("apply a rejudging"))?;
    Ok(pairs.len() as u64)
}

/// Called by `finish` in the transaction that stored a judging of rejudging `id`: when `id` is
/// open, applies itself, and that was its last judging, applies it (closed by its creator).
/// Returns whether it did.
pub(super) fn auto_apply(
    conn: &rusqlite::Connection,
    id: i64,
    now: i64,
) -> Result<bool, StoreError> {
    let creator: Option<String> = conn
        .query_row(
            "SELECT created_by FROM rejudgings WHERE id = ?1 AND auto_apply AND state = 'open'",
            [id],
            |r| r.get(0),
        )
        .optional()
        .map_err(sql("read a rejudging"))?;
    let Some(creator) = creator else {
        return Ok(false);
    };
    let pairs = items_after(conn, id)?;
    if pairs.iter().any(|(_, after)| after.is_none()) {
        return Ok(false);
    }
    flip(conn, id, &pairs, &creator, now)?;
    Ok(true)
}

impl ContestStore for SqliteStore {
    fn insert_in_contest(
        &self,
        new: &NewSubmission,
        contest: &str,
        now: i64,
    ) -> Result<i64, StoreError> {
        let mut conn = self.conn();
        let tx = conn
            .transaction()
            .map_err(sql("start a contest submission"))?;
        tx.execute(
            "INSERT INTO submissions (user, problem, language, source, queued_at) VALUES (?1, ?2, ?3, ?4, ?5)",
            params![new.user, new.problem, new.language, new.source, now],
        )
        .map_err(sql("queue a submission"))?;
        let id = tx.last_insert_rowid();
        tx.execute(
            "INSERT INTO contest_submissions (submission, contest) VALUES (?1, ?2)",
            params![id, contest],
        )
        .map_err(sql("link a submission to its contest"))?;
        tx.commit().map_err(sql("commit a contest submission"))?;
        Ok(id)
    }

    fn contest_of(&self, submission: i64) -> Result<Option<String>, StoreError> {
        self.conn()
            .query_row(
                "SELECT contest FROM contest_submissions WHERE submission = ?1",
                [submission],
                |r| r.get(0),
            )
            .optional()
            .map_err(sql("read a submission's contest"))
    }

    fn contest_submissions(&self, contest: &str) -> Result<Vec<SubmissionInfo>, StoreError> {
        let conn = self.conn();
        let mut st = conn
            .prepare_cached(&format!(
                "SELECT {INFO_COLUMNS} FROM {INFO_FROM}
                 JOIN contest_submissions c ON c.submission = s.id
                 WHERE c.contest = ?1 ORDER BY s.id"
            ))
            .map_err(sql("list a contest's submissions"))?;
        let rows = st
            .query_map([contest], info_row)
            .map_err(sql("list a contest's submissions"))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(sql("list a contest's submissions"))
    }

    fn unfrozen(&self, contest: &str) -> Result<bool, StoreError> {
        let v: Option<bool> = self
            .conn()
            .query_row(
                "SELECT unfrozen FROM contest_state WHERE contest = ?1",
                [contest],
                |r| r.get(0),
            )
            .optional()
            .map_err(sql("read a contest's freeze"))?;
        Ok(v.unwrap_or(false))
    }

    fn set_unfrozen(&self, contest: &str, unfrozen: bool, now: i64) -> Result<(), StoreError> {
        self.conn()
            .execute(
                "INSERT INTO contest_state (contest, unfrozen, changed_at) VALUES (?1, ?2, ?3)
                 ON CONFLICT (contest) DO UPDATE SET unfrozen = excluded.unfrozen,
                   changed_at = excluded.changed_at",
                params![contest, unfrozen, now],
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
        let conn = self.conn();
        conn.execute(
            "INSERT INTO clarifications (contest, user, problem, text, public, at)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
            params![contest, user, problem, text, user.is_none(), now],
        )
        .map_err(sql("store a clarification"))?;
        Ok(conn.last_insert_rowid())
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
            .conn()
            .execute(
                "UPDATE clarifications SET answer = ?2, public = ?3, answered_by = ?4, answered_at = ?5
                 WHERE id = ?1 AND user IS NOT NULL",
                params![id, answer, public, by, now],
            )
            .map_err(sql("answer a clarification"))?;
        Ok(n > 0)
    }

    fn clarifications(&self, contest: &str) -> Result<Vec<Clarification>, StoreError> {
        let conn = self.conn();
        let mut st = conn
            .prepare_cached(
                "SELECT id, contest, user, problem, text, answer, public, at, answered_at, answered_by
                 FROM clarifications WHERE contest = ?1 ORDER BY id DESC",
            )
            .map_err(sql("list clarifications"))?;
        let rows = st
            .query_map([contest], clarification_row)
            .map_err(sql("list clarifications"))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(sql("list clarifications"))
    }

    fn select_for_rejudging(&self, f: &RejudgeFilter) -> Result<Vec<i64>, StoreError> {
        let conn = self.conn();
        let mut st = conn
            .prepare_cached(
                "SELECT s.id FROM submissions s JOIN judgings j ON j.id = s.current_judging
                 WHERE (?1 IS NULL OR s.id = ?1) AND (?2 IS NULL OR s.problem = ?2)
                   AND (?3 IS NULL OR s.id IN (SELECT submission FROM contest_submissions WHERE contest = ?3))
                   AND (?4 IS NULL OR j.verdict = ?4) AND (?5 IS NULL OR s.language = ?5)
                   AND (?6 IS NULL OR s.queued_at >= ?6) AND (?7 IS NULL OR s.queued_at < ?7)
                 ORDER BY s.id",
            )
            .map_err(sql("select submissions to rejudge"))?;
        let rows = st
            .query_map(
                params![
                    f.submission,
                    f.problem,
                    f.contest,
                    f.verdict.map(|v| v.code()),
                    f.language,
                    f.from_ms,
                    f.to_ms
                ],
                |r| r.get(0),
            )
            .map_err(sql("select submissions to rejudge"))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(sql("select submissions to rejudge"))
    }

    fn create_rejudging(
        &self,
        scope: &str,
        by: &str,
        submissions: &[i64],
        auto_apply: bool,
        now: i64,
    ) -> Result<i64, StoreError> {
        let mut conn = self.conn();
        let tx = conn.transaction().map_err(sql("start a rejudging"))?;
        {
            let mut st = tx
                .prepare_cached(
                    "SELECT r.id FROM rejudging_items i JOIN rejudgings r ON r.id = i.rejudging
                     WHERE i.submission = ?1 AND r.state = 'open' LIMIT 1",
                )
                .map_err(sql("check for open rejudgings"))?;
            for s in submissions {
                let open: Option<i64> = st
                    .query_row([s], |r| r.get(0))
                    .optional()
                    .map_err(sql("check for open rejudgings"))?;
                if let Some(r) = open {
                    return Err(StoreError::Conflict(format!(
                        "submission {s} is in rejudging {r}, which is still open: apply or cancel it first"
                    )));
                }
            }
        }
        tx.execute(
            "INSERT INTO rejudgings (created_at, created_by, scope, auto_apply) VALUES (?1, ?2, ?3, ?4)",
            params![now, by, scope, auto_apply],
        )
        .map_err(sql("record a rejudging"))?;
        let id = tx.last_insert_rowid();
        let mut taken = 0;
        {
            let mut item = tx
                .prepare_cached(
                    "INSERT INTO rejudging_items (rejudging, submission, before_judging)
                     SELECT ?1, id, current_judging FROM submissions
                     WHERE id = ?2 AND current_judging IS NOT NULL",
                )
                .map_err(sql("record a rejudging"))?;
            // Queued under the rejudging: its judging will not become current by itself.
            let mut queue = tx
                .prepare_cached(
                    "UPDATE submissions SET state = 'queued', pending_rejudging = ?2, claimed_at = NULL,
                       claimed_by = NULL, lease_until = NULL
                     WHERE id = ?1 AND current_judging IS NOT NULL",
                )
                .map_err(sql("queue a rejudging"))?;
            for s in submissions {
                if item
                    .execute(params![id, s])
                    .map_err(sql("record a rejudging"))?
                    > 0
                {
                    queue
                        .execute(params![s, id])
                        .map_err(sql("queue a rejudging"))?;
                    taken += 1;
                }
            }
        }
        if taken == 0 {
            // Dropping the transaction forgets the row.
            return Err(StoreError::Conflict(
                "none of these submissions has a verdict yet; nothing to rejudge".into(),
            ));
        }
        tx.commit().map_err(sql("commit a rejudging"))?;
        Ok(id)
    }

    fn rejudging(&self, id: i64) -> Result<Option<RejudgingInfo>, StoreError> {
        self.conn()
            .query_row(
                &format!("{REJUDGING_SELECT} WHERE r.id = ?1"),
                [id],
                rejudging_row,
            )
            .optional()
            .map_err(sql("read a rejudging"))
    }

    fn rejudgings(&self) -> Result<Vec<RejudgingInfo>, StoreError> {
        let conn = self.conn();
        let mut st = conn
            .prepare_cached(&format!("{REJUDGING_SELECT} ORDER BY r.id DESC LIMIT 200"))
            .map_err(sql("list rejudgings"))?;
        let rows = st
            .query_map([], rejudging_row)
            .map_err(sql("list rejudgings"))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(sql("list rejudgings"))
    }

    fn rejudging_items(&self, id: i64) -> Result<Vec<RejudgingItem>, StoreError> {
        let conn = self.conn();
        let mut st = conn
            .prepare_cached(&format!(
                "SELECT i.submission, s.user, s.problem, i.before_judging, {AFTER}
                 FROM rejudging_items i JOIN submissions s ON s.id = i.submission
                 WHERE i.rejudging = ?1 ORDER BY i.submission"
            ))
            .map_err(sql("list a rejudging's submissions"))?;
        let rows = st
            .query_map([id], |r| {
                Ok(RejudgingItem {
                    submission: r.get(0)?,
                    user: r.get(1)?,
                    problem: r.get(2)?,
                    before: r.get(3)?,
                    after: r.get(4)?,
                })
            })
            .map_err(sql("list a rejudging's submissions"))?;
        rows.collect::<Result<Vec<_>, _>>()
            .map_err(sql("list a rejudging's submissions"))
    }

    fn apply_rejudging(&self, id: i64, by: &str, now: i64) -> Result<u64, StoreError> {
        let mut conn = self.conn();
        let tx = conn
            .transaction()
            .map_err(sql("start applying a rejudging"))?;
        open_or_conflict(&tx, id)?;
        let pairs = items_after(&tx, id)?;
        let waiting = pairs.iter().filter(|(_, a)| a.is_none()).count();
        if waiting > 0 {
            return Err(StoreError::Conflict(format!(
                "rejudging {id} is not finished: {waiting} of {} submissions are still waiting to be judged",
                pairs.len()
            )));
        }
        let n = flip(&tx, id, &pairs, by, now)?;
        tx.commit().map_err(sql("commit an applied rejudging"))?;
        Ok(n)
    }

    fn cancel_rejudging(&self, id: i64, by: &str, now: i64) -> Result<(), StoreError> {
        let mut conn = self.conn();
        let tx = conn
            .transaction()
            .map_err(sql("start cancelling a rejudging"))?;
        open_or_conflict(&tx, id)?;
        // Still queued for it: back to the current judging (or, with none, an ordinary judging).
        tx.execute(
            "UPDATE submissions SET state = CASE WHEN current_judging IS NULL THEN 'queued' ELSE 'done' END,
               pending_rejudging = NULL
             WHERE pending_rejudging = ?1 AND state = 'queued'",
            [id],
        )
        .map_err(sql("cancel a rejudging"))?;
        tx.execute(
            "UPDATE rejudgings SET state = 'cancelled', closed_at = ?2, closed_by = ?3 WHERE id = ?1",
            params![id, now, by],
        )
        .map_err(sql("cancel a rejudging"))?;
        tx.commit().map_err(sql("commit a cancelled rejudging"))?;
        Ok(())
    }
}
