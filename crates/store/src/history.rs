//! A contest's history loaded from a CLICS contest package ([`HistoryStore`]): its
//! submissions with their judgings (verdicts of record, marked `judged_by = 'imported'`, never
//! claimed again), the judgings' runs, its clarifications with their answers, and its thaw.
//!
//! Ids are the package's own: the Contest API serves a submission, judging or clarification
//! under its row id, so a package's `submissions/17` is row 17 here too. Loading is one
//! transaction, and idempotent: a row already there under its id that is the same object
//! (same contest, user and time) is left as it is; one that is another is a conflict that
//! names it, and nothing is stored.

use ojd_judge::Verdict;

use crate::db::{args, Conn, Engine, Res};
use crate::StoreError;

/// A judging of record: how a package's judgement judged its submission.
#[derive(Clone, Debug, PartialEq)]
pub struct PastJudging {
    /// Its id (the judgement's).
    pub id: i64,
    /// When it started (Unix ms).
    pub started_at: i64,
    /// When it ended (Unix ms).
    pub finished_at: i64,
    /// Its verdict.
    pub verdict: Verdict,
    /// Its score in thousandths of a point.
    pub score_milli: u64,
    /// Its longest run, in milliseconds of CPU time.
    pub max_cpu_ms: u64,
    /// Its runs in order: each test's verdict and CPU time in milliseconds.
    pub runs: Vec<(Verdict, u64)>,
}

/// A submission of the package, with its judgings in the order they were made (the last one
/// is current); none: it is queued and judged here.
#[derive(Clone, Debug, PartialEq)]
pub struct PastSubmission {
    /// Its id.
    pub id: i64,
    /// The user (team) it was made by.
    pub user: String,
    /// The problem it solves.
    pub problem: String,
    /// Its language's id.
    pub language: String,
    /// Its source file.
    pub source: Vec<u8>,
    /// When it was made (Unix ms).
    pub at: i64,
    /// Its judgings, oldest first.
    pub judgings: Vec<PastJudging>,
}

/// A clarification of the package: a team's question (with the jury's answer), or an
/// announcement (to everyone, or to one team).
#[derive(Clone, Debug, PartialEq)]
pub struct PastClarification {
    /// Its id.
    pub id: i64,
    /// The team that asked; `None`: an announcement.
    pub user: Option<String>,
    /// An announcement's one team (the first of several).
    pub to_user: Option<String>,
    /// An announcement's further teams, and those of its groups.
    pub to_more: Vec<String>,
    /// The groups (names) an announcement went to.
    pub to_groups: Vec<String>,
    /// The problem it is about.
    pub problem: Option<String>,
    /// Its text.
    pub text: String,
    /// When it was sent (Unix ms).
    pub at: i64,
    /// A question's answer: its text, whether every team sees it, and when it was sent.
    pub answer: Option<(String, bool, i64)>,
}

/// What a package says happened in a contest.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct History {
    /// Its submissions.
    pub submissions: Vec<PastSubmission>,
    /// Its clarifications.
    pub clarifications: Vec<PastClarification>,
    /// When its scoreboard was thawed (Unix ms), if it was.
    pub thawed_at: Option<i64>,
}

/// What a package holds beyond its [`History`]: the replies to a question after its first
/// (CLICS has a reply per clarification object, as many as the jury sent; ojd keeps each one
/// in the question's answer history, the last as its answer).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct HistoryMore {
    /// Each further reply: its question's id, its text, whether every team sees it, and when
    /// it was sent (Unix ms), oldest first.
    pub replies: Vec<(i64, String, bool, i64)>,
}

/// How many rows a load added, and how many it found there already.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Loaded {
    /// Submissions added.
    pub submissions: u64,
    /// Judgings added.
    pub judgings: u64,
    /// Clarifications added.
    pub clarifications: u64,
    /// Submissions and clarifications that were there already (a load made before).
    pub kept: u64,
}

/// Loads a contest's history; every backend implements it (see the layout in [`super`]).
pub trait HistoryStore: Send + Sync {
    /// Stores `history` as contest `contest`'s, in one transaction (see the module's doc).
    fn load_history(&self, contest: &str, history: &History) -> Result<Loaded, StoreError> {
        self.load_history_more(contest, history, &HistoryMore::default())
    }
    /// Stores `history` and `more` as contest `contest`'s, in one transaction.
    fn load_history_more(
        &self,
        contest: &str,
        history: &History,
        more: &HistoryMore,
    ) -> Result<Loaded, StoreError>;
}

/// What marks a judging that ojd did not make.
pub const IMPORTED: &str = "imported";

impl<E: Engine> HistoryStore for E {
    fn load_history_more(
        &self,
        contest: &str,
        history: &History,
        more: &HistoryMore,
    ) -> Result<Loaded, StoreError> {
        self.tx("start loading a history", "commit a history", |c| {
            let mut loaded = Loaded::default();
            for s in &history.submissions {
                if submission(c, contest, s)? {
                    loaded.submissions += 1;
                    loaded.judgings += s.judgings.len() as u64;
                } else {
                    loaded.kept += 1;
                }
            }
            for q in &history.clarifications {
                if clarification(c, contest, q, &more.replies)? {
                    loaded.clarifications += 1;
                } else {
                    loaded.kept += 1;
                }
            }
            if let Some(at) = history.thawed_at {
                let sql = "INSERT INTO contest_state (contest, unfrozen, changed_at, changed_by)
                     VALUES ($1, TRUE, $2, $3) ON CONFLICT (contest) DO NOTHING";
                c.exec("keep the thaw", sql, args![contest, at, IMPORTED])?;
            }
            if matches!(c, Conn::Pg(_)) {
                // Rows inserted under their own ids leave PostgreSQL's sequences behind: the
                // next submission would take an id that is taken.
                for table in ["submissions", "judgings", "clarifications"] {
                    let sql = format!(
                        "SELECT setval(pg_get_serial_sequence('{table}', 'id'),
                             GREATEST((SELECT MAX(id) FROM {table}), 1))"
                    );
                    c.exec("move an id sequence past the loaded rows", &sql, args![])?;
                }
            }
            Ok(loaded)
        })
    }
}

fn conflict(what: &str, id: i64, why: &str) -> StoreError {
    StoreError::Conflict(format!("{what} {id} is in the database already, {why}"))
}

/// Stores submission `s` (false: it was there already, as the same submission).
fn submission(c: &mut Conn<'_>, contest: &str, s: &PastSubmission) -> Res<bool> {
    let what = "look a loaded submission up";
    let sql = r#"SELECT s."user", s.queued_at, c.contest FROM submissions s
         LEFT JOIN contest_submissions c ON c.submission = s.id WHERE s.id = $1"#;
    let found = c.row(what, sql, args![s.id], |r| {
        Ok((
            r.get::<String>(0)?,
            r.get::<i64>(1)?,
            r.get::<Option<String>>(2)?,
        ))
    })?;
    if let Some((user, at, of)) = found {
        if (user.as_str(), at, of.as_deref()) == (s.user.as_str(), s.at, Some(contest)) {
            return Ok(false);
        }
        return Err(conflict(
            "submission",
            s.id,
            "another one (of another user, time or contest)",
        ));
    }
    let state = if s.judgings.is_empty() {
        "queued"
    } else {
        "done"
    };
    let attempts = s.judgings.len() as i64;
    let sql = r#"INSERT INTO submissions (id, "user", problem, language, source, queued_at, state,
             attempts) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)"#;
    let a = args![
        s.id,
        &s.user,
        &s.problem,
        &s.language,
        &s.source,
        s.at,
        state,
        attempts
    ];
    c.exec("store a loaded submission", sql, a)?;
    let link = "INSERT INTO contest_submissions (submission, contest, jury) VALUES ($1, $2, FALSE)";
    c.exec("link a loaded submission", link, args![s.id, contest])?;
    for (n, j) in s.judgings.iter().enumerate() {
        let taken = "SELECT id FROM judgings WHERE id = $1";
        if c.row("look a loaded judging up", taken, args![j.id], |r| {
            r.get::<i64>(0)
        })?
        .is_some()
        {
            return Err(conflict("judging", j.id, "of another submission"));
        }
        let sql = "INSERT INTO judgings (id, submission, attempt, judged_by, started_at,
                 finished_at, verdict, score, score_milli, max_cpu_ms)
             VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)";
        let a = args![
            j.id,
            s.id,
            n as i64 + 1,
            IMPORTED,
            j.started_at,
            j.finished_at,
            j.verdict.code(),
            (j.score_milli / 1000) as i64,
            j.score_milli as i64,
            j.max_cpu_ms as i64
        ];
        c.exec("store a loaded judging", sql, a)?;
        for (idx, (verdict, cpu_ms)) in j.runs.iter().enumerate() {
            let sql = "INSERT INTO judging_results (judging, idx, name, sample, verdict, cpu_ms,
                     wall_ms, memory_kib, message) VALUES ($1, $2, $3, FALSE, $4, $5, $5, 0, '')";
            let name = (idx + 1).to_string();
            let a = args![j.id, idx as i64, &name, verdict.code(), *cpu_ms as i64];
            c.exec("store a loaded run", sql, a)?;
        }
    }
    if let Some(last) = s.judgings.last() {
        let sql = "UPDATE submissions SET current_judging = $2 WHERE id = $1";
        c.exec("make a loaded judging current", sql, args![s.id, last.id])?;
    }
    Ok(true)
}

/// Stores clarification `q` with its first answer and those of `replies` that are its own
/// (false: it was there already, as the same clarification).
fn clarification(
    c: &mut Conn<'_>,
    contest: &str,
    q: &PastClarification,
    replies: &[(i64, String, bool, i64)],
) -> Res<bool> {
    let sql = "SELECT contest, at FROM clarifications WHERE id = $1";
    let found = c.row("look a loaded clarification up", sql, args![q.id], |r| {
        Ok((r.get::<String>(0)?, r.get::<i64>(1)?))
    })?;
    if let Some((of, at)) = found {
        if (of.as_str(), at) == (contest, q.at) {
            return Ok(false);
        }
        return Err(conflict(
            "clarification",
            q.id,
            "another one (of another time or contest)",
        ));
    }
    let category = if q.problem.is_some() {
        "problem"
    } else {
        "general"
    };
    let public =
        q.user.is_none() && q.to_user.is_none() && q.to_more.is_empty() && q.to_groups.is_empty();
    let sql = r#"INSERT INTO clarifications
           (id, contest, "user", problem, text, public, at, category, to_user, to_teams, to_groups)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)"#;
    let (more, groups) = (
        crate::contests::names_text(&q.to_more),
        crate::contests::names_text(&q.to_groups),
    );
    let a = args![
        q.id, contest, &q.user, &q.problem, &q.text, public, q.at, category, &q.to_user, &more,
        &groups
    ];
    c.exec("store a loaded clarification", sql, a)?;
    let later = replies
        .iter()
        .filter(|r| r.0 == q.id)
        .map(|(_, text, public, at)| (text, public, at));
    // The answer history in order; the last is the question's answer.
    for (answer, public, at) in q.answer.iter().map(|(t, p, a)| (t, p, a)).chain(later) {
        let sql = "UPDATE clarifications
             SET answer = $2, public = $3, answered_by = $4, answered_at = $5 WHERE id = $1";
        let a = args![q.id, answer, *public, IMPORTED, *at];
        c.exec("store a loaded answer", sql, a)?;
        let keep = "INSERT INTO clarification_answers
             (clarification, answer, public, answered_by, answered_at) VALUES ($1, $2, $3, $4, $5)";
        c.exec("keep a loaded answer's history", keep, a)?;
    }
    Ok(true)
}
