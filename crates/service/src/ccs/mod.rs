//! What the ICPC Contest API (CLICS) and the contest package read of a contest, as the service
//! states it: its roster ([`directory`]: teams, organizations, groups, accounts, whatever made
//! them), its teams' ids ([`team_id`]), and the stored records its event feed is derived from
//! ([`Records`]), so that the web's Contest API and `ojd contest export` never read the store
//! themselves and never disagree.

mod directory;

pub(crate) use directory::valid;
pub use directory::{directory, only, properties, slug, DirTeam, Directory, Extra};
/// The stored rows the records are made of, named here so that readers need not name the store.
pub use ojd_store::{
    AnswerRecord, CcsJudging, CcsRun, Clarification, FreezeChange, SubmissionInfo,
};
/// The roster's log (what left the roster, when), and one object of the roster now.
pub use ojd_store::{RosterChange, RosterObject};

use std::collections::HashMap;
use std::sync::Arc;

use ojd_store::{Store, StoreError};

fn roster_hash(present: &[RosterObject]) -> u64 {
    use std::hash::{Hash, Hasher};
    let mut h = std::collections::hash_map::DefaultHasher::new();
    present.hash(&mut h);
    h.finish()
}

use crate::node::DbError;
use crate::Node;

/// A team's id: the user's name when it is a valid Contest API ID (at most 36 of
/// `[A-Za-z0-9_.-]`, not starting with `-` or `.`, not ending with `.`), else `u` and a hash.
pub fn team_id(user: &str) -> String {
    // A name shaped like a hashed id is hashed too: kept as it is, `ub532181593a79e61` would be
    // the id of whichever other user hashes to it.
    if is_id(user) && !looks_hashed(user) {
        return user.to_string();
    }
    use sha2::Digest;
    let h = sha2::Sha256::digest(user.as_bytes());
    let hex = ojd_judge::hex_encode(&h[..8]);
    format!("u{hex}")
}

/// `u` and 16 lowercase hex digits: the shape of a hashed [`team_id`].
fn looks_hashed(s: &str) -> bool {
    s.len() == 17
        && s.starts_with('u')
        && s[1..]
            .bytes()
            .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
}

/// The Contest API's id of the `n`th reply (from 1) to question `question`: the first is
/// `<question>-reply`, each later one `<question>-reply-<n>`.
pub fn reply_id(question: i64, n: usize) -> String {
    if n <= 1 {
        format!("{question}-reply")
    } else {
        format!("{question}-reply-{n}")
    }
}

/// Whether `s` is a valid ID of the standard.
pub fn is_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 36
        && !s.starts_with(['-', '.'])
        && !s.ends_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

/// Everything stored about a contest that its event feed is derived from, read at once.
pub struct Records {
    /// The submissions made through the contest, by id.
    pub submissions: Vec<SubmissionInfo>,
    /// Every judging of them, by id.
    pub judgings: Vec<CcsJudging>,
    /// Every per-test result of those judgings.
    pub runs: Vec<CcsRun>,
    /// Questions, answers and announcements, by id.
    pub clarifications: Vec<Clarification>,
    /// Every answer each question had, oldest first (a question's replies), by question.
    pub answers: HashMap<i64, Vec<AnswerRecord>>,
    /// The freeze's last change (an admin's unfreeze or freeze again).
    pub freeze: Option<FreezeChange>,
}

impl Records {
    fn read(store: &dyn Store, contest: &str) -> Result<Records, StoreError> {
        let clarifications = sorted_clarifications(store, contest)?;
        let mut answers: HashMap<i64, Vec<AnswerRecord>> = HashMap::new();
        for (q, a) in store.contest_answers(contest)? {
            answers.entry(q).or_default().push(a);
        }
        Ok(Records {
            submissions: store.contest_submissions(contest)?,
            judgings: store.contest_judgings(contest)?,
            runs: store.contest_runs(contest)?,
            clarifications,
            answers,
            freeze: store.freeze_change(contest)?,
        })
    }
}

/// A submission's source file as the Contest API hands it out (`submissions/<id>/files`): whose
/// it is, its language and its bytes.
pub struct Source {
    /// The user who submitted it.
    pub user: String,
    /// The id of its language.
    pub language: String,
    /// The source as submitted.
    pub source: Vec<u8>,
}

fn source_in(store: &dyn Store, id: i64) -> Result<Option<Source>, StoreError> {
    Ok(store.get(id)?.map(|s| Source {
        user: s.info.user,
        language: s.info.language,
        source: s.source,
    }))
}

fn sorted_clarifications(
    store: &dyn Store,
    contest: &str,
) -> Result<Vec<Clarification>, StoreError> {
    let mut all = store.clarifications(contest)?;
    all.sort_by_key(|q| q.id);
    Ok(all)
}

/// The Contest API's reads as a request makes them: off the runtime, under the request's
/// wait for the database (`Node::db`).
impl Node {
    /// Contest `contest`'s [`Records`], read at once.
    pub async fn ccs_records(self: &Arc<Self>, contest: String) -> Result<Records, DbError> {
        self.db(move |s| Records::read(s, &contest)).await
    }

    /// Contest `contest`'s roster log, after recording what changed since this node last
    /// looked: `present` is the whole roster now (see `ojd_store::RosterLogStore`). Where the
    /// database takes no writes, the log as it stands.
    pub async fn ccs_roster_log(
        self: &Arc<Self>,
        contest: String,
        present: Vec<RosterObject>,
    ) -> Result<Arc<Vec<RosterChange>>, DbError> {
        let hash = roster_hash(&present);
        let seen = |m: &HashMap<String, (u64, Arc<Vec<RosterChange>>)>| {
            m.get(&contest)
                .filter(|(h, _)| *h == hash)
                .map(|(_, log)| log.clone())
        };
        if let Some(log) = seen(&self.roster_seen.lock().expect("roster cache poisoned")) {
            return Ok(log);
        }
        let now = crate::now_ms();
        let c = contest.clone();
        let logged = self.db(move |s| s.log_roster(&c, &present, now)).await;
        let log = match logged {
            Ok(log) => Arc::new(log),
            Err(e) => {
                tracing::warn!(contest, error = %e, "could not log the roster's changes");
                let c = contest.clone();
                return Ok(Arc::new(self.db(move |s| s.roster_log(&c)).await?));
            }
        };
        let mut m = self.roster_seen.lock().expect("roster cache poisoned");
        m.insert(contest, (hash, log.clone()));
        Ok(log)
    }

    /// Submission `id`'s source as `submissions/<id>/files` hands it out, if it exists.
    pub async fn ccs_source(self: &Arc<Self>, id: i64) -> Result<Option<Source>, DbError> {
        self.db(move |s| source_in(s, id)).await
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn team_ids_are_valid_ids() {
        assert_eq!(team_id("alice_01.x-y"), "alice_01.x-y");
        for bad in [".hidden", "-dash", "dot.", &"a".repeat(37)] {
            let id = team_id(bad);
            assert!(id.starts_with('u') && id.len() == 17, "{bad} -> {id}");
            assert_eq!(team_id(bad), id, "stable");
        }
        assert_ne!(team_id(".a"), team_id(".b"));
    }

    /// A user named like another user's hashed id does not get that id.
    #[test]
    fn a_name_shaped_like_a_hashed_id_never_takes_anothers_id() {
        let other = team_id("Bob Smith");
        assert!(looks_hashed(&other), "{other}");
        let mallory = team_id(&other);
        assert_ne!(mallory, other);
        assert!(looks_hashed(&mallory), "{mallory}");
        assert_eq!(team_id("u123"), "u123");
    }
}
