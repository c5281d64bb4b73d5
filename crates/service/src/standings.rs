//! A contest's standings, results, awards and balloons as the service serves them: read from the
//! store's current judgings, computed by `ojd-contest` (what ranks, the jury's verdicts, the IOI
//! groups), cut down to the viewer here and only here:
//!
//! - before the start a viewer who is not an admin sees no problem and no row (the problem set
//!   is not told before the start, not even its size or labels);
//! - after the freeze time, results of attempts made from then on are hidden from everyone but
//!   admins until an admin unfreezes (the one rule of [`crate::contest::freeze`]);
//! - private standings (`public_standings = false`): a student sees only their own row, an
//!   anonymous viewer none.
//!
//! The tables are computed once per change and view and shared (`boards.rs`); the web and the
//! Contest API only render them.

use std::sync::Arc;

use ojd_store::{StandingsEntry, StoreError};

use crate::contest::awards::{self, Award};
use crate::contest::balloons::{self, Balloon};
use crate::contest::finalize::Checklist;
use crate::contest::freeze::{freeze_state, FreezeState};
use crate::contest::standings::{self, Attempt, Standings};
use crate::contest::{Contest, Phase, Scoring};
use crate::node::{DbError, Node};
use crate::{now_ms, Viewer};

/// A viewer as a blocking computation keeps it (owned).
#[derive(Clone)]
struct Who {
    name: Option<String>,
    admin: bool,
}

impl Who {
    fn of(v: Viewer<'_>) -> Who {
        Who {
            name: v.name().map(str::to_string),
            admin: v.admin(),
        }
    }
}

/// What a viewer gets of the shared table: all of it, or a copy cut down to their row.
enum Seen {
    Shared(Arc<crate::boards::Table>),
    Own(Standings),
}

fn empty(c: &Contest) -> Standings {
    Standings {
        scoring: c.scoring,
        problems: Vec::new(),
        rows: Vec::new(),
        frozen: false,
    }
}

/// Blocking reads and computations (on the blocking pool, through [`Node::db`]'s wait).
impl Node {
    /// Contest `c`'s ranked submissions ([`standings::ranked_entries`]).
    fn ranked(&self, c: &Contest) -> Result<Vec<StandingsEntry>, StoreError> {
        Ok(standings::ranked_entries(
            c,
            self.store.standings_input(&c.id)?,
        ))
    }

    /// The IOI groups' points of judging `judging` of `problem`, when `c` needs them (IOI, a
    /// problem with scoring groups); read once per judging.
    fn groups(&self, c: &Contest, problem: &str, judging: i64) -> Result<Vec<u64>, StoreError> {
        if c.scoring != Scoring::Ioi {
            return Ok(Vec::new());
        }
        let Some(p) = self.catalog().get(problem).map(|e| e.problem.clone()) else {
            return Ok(Vec::new());
        };
        if p.groups.is_empty() {
            return Ok(Vec::new());
        }
        self.boards.groups_of(judging, || {
            Ok(self
                .store
                .judging(judging)?
                .map(|j| standings::group_scores(&p, &j.tests, &j.partial))
                .unwrap_or_default())
        })
    }

    /// The attempts of `subs` (ranked entries of `c`), the jury's verdicts over the judge's.
    pub(crate) fn attempts(
        &self,
        c: &Contest,
        subs: &[StandingsEntry],
    ) -> Result<Vec<Attempt>, StoreError> {
        subs.iter()
            .map(|s| {
                let groups = match (s.overridden, s.verdict, s.judging) {
                    (None, Some(_), Some(j)) => self.groups(c, &s.problem, j)?,
                    _ => Vec::new(),
                };
                Ok(standings::attempt(s, groups))
            })
            .collect()
    }

    /// `c`'s standings from the store's current judgings, hidden after `hide`.
    fn compute_standings(&self, c: &Contest, hide: Option<i64>) -> Result<Standings, StoreError> {
        let subs = self.ranked(c)?;
        let list = self.attempts(c, &subs)?;
        Ok(standings::compute(c, &list, &c.ranked_users(), hide))
    }

    fn freeze_now(&self, c: &Contest) -> Result<FreezeState, StoreError> {
        let change = self.store.freeze_change(&c.id)?;
        Ok(freeze_state(c, change.as_ref(), now_ms()))
    }

    /// The table `who`'s view shares with everyone who has the same view, cut down to `who`
    /// where the standings are private.
    fn seen_standings(&self, c: &Contest, who: &Who) -> Result<Seen, StoreError> {
        if !who.admin && c.phase(now_ms()) == Phase::Before {
            return Ok(Seen::Own(empty(c)));
        }
        let hide = match c.freeze_ms() {
            Some(f)
                if !who.admin
                    && now_ms() >= f
                    && !self
                        .boards
                        .unfrozen(&c.id, || Ok(self.freeze_now(c)?.unfrozen))? =>
            {
                Some(f)
            }
            _ => None,
        };
        let table = self.boards.get(
            &c.id,
            hide,
            || self.hub.subscribe(),
            || self.compute_standings(c, hide),
        )?;
        if c.public_standings || who.admin {
            return Ok(Seen::Shared(table));
        }
        let mut s = table.standings.clone();
        match &who.name {
            Some(u) => s.only(u),
            None => s.rows.clear(),
        }
        Ok(Seen::Own(s))
    }

    fn results_now(&self, c: &Contest) -> Result<(Standings, Vec<Award>), StoreError> {
        let s = self.compute_standings(c, None)?;
        let a = match recorded_awards(c) {
            Some(a) => a,
            None => awards::compute(c, &s),
        };
        Ok((s, a))
    }
}

/// The awards of record of finalized contest `c` that a package brought (its `ccs.json`'s
/// `awards`), their team ids read back as users; `None`: ojd computes them.
fn recorded_awards(c: &Contest) -> Option<Vec<Award>> {
    c.finalized_ms?;
    let extra = crate::ccs::Extra::load(c);
    if extra.awards.is_empty() {
        return None;
    }
    let roster = crate::ccs::directory(c);
    let user = |id: &str| {
        (roster.teams.iter())
            .find(|t| t.object["id"] == id)
            .map_or_else(|| id.to_string(), |t| t.user.clone())
    };
    let list = extra.awards.iter().filter_map(|a| {
        Some(Award {
            id: a["id"].as_str()?.to_string(),
            citation: a["citation"].as_str()?.to_string(),
            users: (a["team_ids"].as_array()?.iter())
                .filter_map(|t| t.as_str().map(user))
                .collect(),
        })
    });
    Some(list.collect())
}

/// The operations, each one read of the store off the runtime.
impl Node {
    /// Contest `c`'s standings as `viewer` may see them (see the module docs).
    pub async fn standings(
        self: &Arc<Self>,
        c: Arc<Contest>,
        viewer: Viewer<'_>,
    ) -> Result<Standings, DbError> {
        let (me, who) = (self.clone(), Who::of(viewer));
        self.db(move |_| {
            Ok(match me.seen_standings(&c, &who)? {
                Seen::Shared(t) => t.standings.clone(),
                Seen::Own(s) => s,
            })
        })
        .await
    }

    /// [`Node::standings`] as JSON: the shared table's bytes as they were serialized once,
    /// unless the viewer sees a part of it.
    pub async fn standings_json(
        self: &Arc<Self>,
        c: Arc<Contest>,
        viewer: Viewer<'_>,
    ) -> Result<Arc<[u8]>, DbError> {
        let (me, who) = (self.clone(), Who::of(viewer));
        self.db(move |_| {
            Ok(match me.seen_standings(&c, &who)? {
                Seen::Shared(t) => t.json.clone(),
                Seen::Own(s) => Arc::from(serde_json::to_vec(&s).unwrap_or_default()),
            })
        })
        .await
    }

    /// Contest `c`'s final standings (nothing hidden) and its awards. Who may see them (admins
    /// before the finalization, everyone after) is the caller's rule to apply.
    pub async fn results(
        self: &Arc<Self>,
        c: Arc<Contest>,
    ) -> Result<(Standings, Vec<Award>), DbError> {
        let me = self.clone();
        self.db(move |_| me.results_now(&c)).await
    }

    /// Contest `c`'s balloons, oldest solve first (the jury's view: the freeze hides nothing).
    pub async fn balloons(self: &Arc<Self>, c: Arc<Contest>) -> Result<Vec<Balloon>, DbError> {
        let me = self.clone();
        self.db(move |s| {
            let subs = me.ranked(&c)?;
            let attempts = me.attempts(&c, &subs)?;
            let done = s.balloons_done(&c.id)?;
            Ok(balloons::balloons(&c, attempts, &done))
        })
        .await
    }

    /// Contest `c`'s freeze now.
    pub async fn freeze_state(self: &Arc<Self>, c: Arc<Contest>) -> Result<FreezeState, DbError> {
        let me = self.clone();
        self.db(move |_| me.freeze_now(&c)).await
    }

    /// The freeze of each of `contests` now, in their order.
    pub async fn freeze_states(
        self: &Arc<Self>,
        contests: Vec<Arc<Contest>>,
    ) -> Result<Vec<FreezeState>, DbError> {
        let me = self.clone();
        self.db(move |_| contests.iter().map(|c| me.freeze_now(c)).collect())
            .await
    }

    /// What finalizing `contest` warns of: its judge errors and pending judgings, its questions
    /// without an answer and the open rejudgings that cover any of its submissions.
    pub async fn finalize_checklist(
        self: &Arc<Self>,
        contest: String,
    ) -> Result<Checklist, DbError> {
        self.db(move |store| {
            let entries = store.standings_input(&contest)?;
            let clars = store.clarifications(&contest)?;
            let mut open = Vec::new();
            for r in store.rejudgings()? {
                if r.state == ojd_store::RejudgingState::Open {
                    let items = store.rejudging_items(r.id)?;
                    open.push((r.id, items.into_iter().map(|i| i.submission).collect()));
                }
            }
            Ok(Checklist::new(&entries, &clars, &open))
        })
        .await
    }

    /// Forgets every computed standings table: their inputs changed (a rejudging applied, a
    /// verdict overridden, a freeze or an unfreeze, a contest's definition edited).
    pub fn standings_changed(&self) {
        self.boards.invalidate();
    }

    /// Forgets contest `id`'s standings tables: a submission was made through it on this node
    /// (it shows as pending at once).
    pub fn contest_submitted(&self, id: &str) {
        self.boards.invalidate_contest(id);
    }

    /// Forgets every table and the IOI groups' points too: the contests and problems were
    /// loaded again (a problem's groups may have changed).
    pub fn contests_reloaded(&self) {
        self.boards.reset();
    }
}

/// The standings' moves a rejudging makes in one contest.
#[derive(Clone, Debug, serde::Serialize)]
pub struct ContestEffect {
    /// The contest's id.
    pub contest: String,
    /// Its title.
    pub title: String,
    /// How it ranks.
    pub scoring: Scoring,
    /// Who moves, best new rank first.
    pub moves: Vec<crate::contest::rejudging::Move>,
}

impl Node {
    /// Who moves in each of `contests` that ranks a rejudged submission: the standings as admins
    /// see them with every item's old judging against the same with its new one (`details`: the
    /// rejudging's judgings by id). The jury's override wins over both judgings.
    pub async fn rejudging_effects(
        self: &Arc<Self>,
        contests: Vec<Arc<Contest>>,
        items: Vec<ojd_store::RejudgingItem>,
        details: std::collections::HashMap<i64, ojd_store::JudgingDetail>,
    ) -> Result<Vec<ContestEffect>, DbError> {
        let me = self.clone();
        self.db(move |_| me.effects(&contests, &items, &details))
            .await
    }

    fn effects(
        &self,
        contests: &[Arc<Contest>],
        items: &[ojd_store::RejudgingItem],
        details: &std::collections::HashMap<i64, ojd_store::JudgingDetail>,
    ) -> Result<Vec<ContestEffect>, StoreError> {
        use crate::contest::rejudging;
        use crate::contest::standings::Judged;
        let by_id: std::collections::HashMap<i64, &ojd_store::RejudgingItem> =
            items.iter().map(|i| (i.submission, i)).collect();
        let catalog = self.catalog();
        let mut out = Vec::new();
        for c in contests {
            let subs = self.ranked(c)?;
            if !subs.iter().any(|s| by_id.contains_key(&s.id)) {
                continue;
            }
            let base = self.attempts(c, &subs)?;
            let with = |pick: fn(&ojd_store::RejudgingItem) -> Option<i64>| {
                let mut list = base.clone();
                for (a, s) in list.iter_mut().zip(&subs) {
                    let Some(item) = by_id.get(&a.id) else {
                        continue;
                    };
                    if s.overridden.is_some() {
                        continue;
                    }
                    let Some(d) = pick(item).and_then(|j| details.get(&j)) else {
                        continue;
                    };
                    a.result = d.info.verdict.map(|verdict| Judged {
                        verdict,
                        score_milli: d.info.score_milli.unwrap_or(0),
                        groups: catalog
                            .get(&a.problem)
                            .filter(|_| c.scoring == Scoring::Ioi)
                            .map(|e| standings::group_scores(&e.problem, &d.tests, &d.partial))
                            .unwrap_or_default(),
                    });
                }
                list
            };
            let listed = c.ranked_users();
            let (b, a) = (with(|i| i.before), with(|i| i.after.or(i.before)));
            let before = standings::compute(c, &b, &listed, None);
            let after = standings::compute(c, &a, &listed, None);
            out.push(ContestEffect {
                contest: c.id.clone(),
                title: c.title.clone(),
                scoring: c.scoring,
                moves: rejudging::standings_effect(&before, &after),
            });
        }
        Ok(out)
    }
}
