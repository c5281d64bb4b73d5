//! The log of a contest's roster as the Contest API has shown it ([`RosterLogStore`]): each
//! team, account, organization and group the roster held, when it went and when it came back,
//! so that the event feed sends a delete event for what left the roster (a team removed on the
//! web's teams page, a group gone from `contest.toml` after a reload) and a replay of the feed
//! shows the same creates and deletes as the live stream did.
//!
//! The roster itself is `contest.toml` and `ccs.json` (files, not rows); only its changes are
//! stored, by whichever serve node first builds the feed after a change.

use std::collections::{HashMap, HashSet};

use serde::Serialize;

use crate::db::{args, Conn, Engine, Row};
use crate::{DbError, StoreError};

/// One change of one roster object: it appeared (`data` its JSON then) or left (`data` None).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RosterChange {
    /// The Contest API's type of the object: `teams`, `accounts`, `organizations`, `groups`.
    pub kind: String,
    /// The object's id.
    pub id: String,
    /// When the change was noticed (Unix ms).
    pub at: i64,
    /// The object's JSON when it appeared or was last seen; `None`: it left the roster.
    pub data: Option<String>,
}

/// One object of the roster as it is now: (type, id, JSON).
pub type RosterObject = (String, String, String);

/// The roster's log; every backend implements it.
pub trait RosterLogStore: Send + Sync {
    /// The whole log of `contest`, oldest change first (what [`RosterLogStore::log_roster`]
    /// returns, without recording anything: for a database that takes no writes).
    fn roster_log(&self, contest: &str) -> Result<Vec<RosterChange>, StoreError>;
    /// Compares `present` (the whole roster of `contest` now) with the log and records, at
    /// `now`, what appeared or came back and what left; an object still there keeps its
    /// latest JSON. Returns the whole log afterwards, oldest change first. One transaction.
    fn log_roster(
        &self,
        contest: &str,
        present: &[RosterObject],
        now: i64,
    ) -> Result<Vec<RosterChange>, StoreError>;
}

fn change_row(r: &Row<'_>) -> Result<(i64, RosterChange), DbError> {
    Ok((
        r.get(0)?,
        RosterChange {
            kind: r.get(1)?,
            id: r.get(2)?,
            at: r.get(3)?,
            data: r.get(4)?,
        },
    ))
}

const READ: &str = "SELECT id, kind, obj_id, at, data FROM ccs_roster_log
     WHERE contest = $1 ORDER BY id";

impl<E: Engine> RosterLogStore for E {
    fn roster_log(&self, contest: &str) -> Result<Vec<RosterChange>, StoreError> {
        let log = self.rows("read a roster log", READ, args![contest], change_row)?;
        Ok(log.into_iter().map(|(_, ch)| ch).collect())
    }

    fn log_roster(
        &self,
        contest: &str,
        present: &[RosterObject],
        now: i64,
    ) -> Result<Vec<RosterChange>, StoreError> {
        self.tx("start a roster log", "commit a roster log", |c| {
            // PostgreSQL reads committed rows only: two nodes (or two requests) that noticed
            // the same change at once would each log it. One logger per contest at a time:
            // the second reads what the first wrote. (SQLite's writes are one at a time.)
            if matches!(c, Conn::Pg(_)) {
                let lock = "SELECT pg_advisory_xact_lock(hashtext('ccs_roster_log'), hashtext($1))";
                c.exec(
                    "wait for the roster log's other writer",
                    lock,
                    args![contest],
                )?;
            }
            let log = c.rows("read a roster log", READ, args![contest], change_row)?;
            // The latest row of each object: (row id, its data).
            let mut latest: HashMap<(&str, &str), (i64, Option<&str>)> = HashMap::new();
            for (row, ch) in &log {
                latest.insert((&ch.kind, &ch.id), (*row, ch.data.as_deref()));
            }
            let insert = "INSERT INTO ccs_roster_log (contest, kind, obj_id, at, data)
                 VALUES ($1, $2, $3, $4, $5)";
            let mut wrote = false;
            let mut here: HashSet<(&str, &str)> = HashSet::new();
            for (kind, id, data) in present {
                here.insert((kind, id));
                match latest.get(&(kind.as_str(), id.as_str())) {
                    Some((_, Some(old))) if *old == data.as_str() => {}
                    Some((row, Some(_))) => {
                        let sql = "UPDATE ccs_roster_log SET data = $1 WHERE id = $2";
                        c.exec("update a roster object", sql, args![data.as_str(), *row])?;
                        wrote = true;
                    }
                    None | Some((_, None)) => {
                        let a = args![contest, kind, id, now, data.as_str()];
                        c.exec("log a roster object", insert, a)?;
                        wrote = true;
                    }
                }
            }
            // In a stable order, so that removals noticed at once are listed alike.
            let mut gone: Vec<(&str, &str)> = (latest.iter())
                .filter(|(k, (_, data))| data.is_some() && !here.contains(*k))
                .map(|(k, _)| *k)
                .collect();
            gone.sort_unstable();
            for (kind, id) in gone {
                let a = args![contest, kind, id, now, None::<&str>];
                c.exec("log a roster object's removal", insert, a)?;
                wrote = true;
            }
            let log = if wrote {
                c.rows("read a roster log", READ, args![contest], change_row)?
            } else {
                log
            };
            Ok(log.into_iter().map(|(_, ch)| ch).collect())
        })
    }
}
