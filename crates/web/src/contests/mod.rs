//! Contests in the daemon: the loaded `contests/` ([`Registry`]), the rules a submission must
//! pass ([`admit`]), the clock, the problems a viewer may see, the standings read from the
//! current judgings (the service's, computed once per change) as CSV ([`csv`]), and clarifications ([`clarifications`]). The JSON API over this module is in
//! `api`, the contest pages in `pages`.
//!
//! Rules: before the start a student sees no problem of the contest (the problems are hidden
//! everywhere, not only on the contest page) and cannot submit to them; after the end a
//! submission through the contest is refused with a clear error (admins are exempt: their
//! submissions after the end are judged but lie outside the contest window, so they never
//! change the standings). A submission belongs to a contest when made through it (`contest` in
//! `POST /api/v1/submissions`, or the contest page's form), and also when a participant makes it
//! anywhere else (the statement page, the API without `contest`) while a contest they take part
//! in runs with that problem ([`running_for`]): a student never makes a practice submission of
//! a running contest's problem by mistake. An admin's submission through a contest is the
//! jury's: judged and shown, never ranked.
//!
//! The freeze has one truth ([`FreezeState`]): the standings hide what came after the freeze
//! time unless an admin unfroze them *after* that time; unfreezing earlier is refused, so no
//! page can say "frozen" while the table shows everything.

pub(crate) mod balloons;
pub(crate) mod clarifications;
pub(crate) mod controls;
pub(crate) mod csv;
pub(crate) mod define;
mod finality;
pub(crate) mod links;
pub(crate) mod results;
pub(crate) mod teams;

use std::sync::{Arc, RwLock};

use serde::Serialize;

use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_config::Config;
pub(crate) use ojd_service::contest::freeze::{freeze_state, FreezeState};
use ojd_service::contest::{Contest, Phase};
use ojd_service::{now_ms, Node};

/// The contests as loaded now, and the folders that failed.
#[derive(Default)]
pub(crate) struct Loaded {
    pub(crate) contests: Vec<Arc<Contest>>,
    pub(crate) failed: Vec<(String, String)>,
}

impl Loaded {
    pub(crate) fn get(&self, id: &str) -> Option<&Arc<Contest>> {
        self.contests.iter().find(|c| c.id == id)
    }
}

/// `contests/` as loaded at start and on every reload; the node computes their standings
/// (and forgets its tables when told of a change here).
pub(crate) struct Registry {
    loaded: RwLock<Arc<Loaded>>,
    node: Arc<Node>,
}

impl Registry {
    pub(crate) fn load(node: &Arc<Node>) -> Registry {
        let r = Registry {
            loaded: RwLock::new(Arc::new(Loaded::default())),
            node: node.clone(),
        };
        r.reload(node.config());
        r
    }

    /// Forgets every computed standings table: their inputs changed (a rejudging applied, a
    /// freeze or an unfreeze).
    pub(crate) fn invalidate(&self) {
        self.node.standings_changed();
    }

    /// Forgets contest `id`'s standings tables: a submission was made through it (it shows as
    /// pending at once).
    pub(crate) fn submitted(&self, id: &str) {
        self.node.contest_submitted(id);
    }

    /// Loads `server.contests` again; logs what failed.
    pub(crate) fn reload(&self, config: &Config) -> Arc<Loaded> {
        let (ok, failed) =
            ojd_service::contest::load_all(&config.server.contests, &config.server.problems);
        let loaded = Arc::new(Loaded {
            contests: ok.into_iter().map(Arc::new).collect(),
            failed: failed
                .into_iter()
                .map(|(folder, e)| {
                    crate::log(&format!("contest {folder} failed to load:\n{e}"));
                    (folder, e.to_string())
                })
                .collect(),
        });
        *self.loaded.write().unwrap_or_else(|e| e.into_inner()) = loaded.clone();
        self.node.contests_reloaded();
        loaded
    }

    pub(crate) fn get(&self) -> Arc<Loaded> {
        self.loaded
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// A contest the viewer may see (all of them are listed), or a 404.
pub(crate) fn find(app: &App, id: &str) -> Result<Arc<Contest>, AppError> {
    app.contests
        .get()
        .get(id)
        .cloned()
        .ok_or_else(|| AppError::NotFound(format!("no contest {id:?}")))
}

/// Checks that `user` may submit `problem` through `contest` now.
pub(crate) fn admit(app: &App, user: &User, contest: &str, problem: &str) -> Result<(), AppError> {
    let c = find(app, contest)?;
    if c.label_of(problem).is_none() {
        return Err(AppError::BadRequest(format!(
            "problem {problem:?} is not part of contest {contest:?}"
        )));
    }
    if user.admin {
        return Ok(());
    }
    if !c.admits(&user.name) {
        return Err(AppError::Forbidden(format!(
            "{} is not a participant of contest {contest:?}",
            user.name
        )));
    }
    let now = now_ms();
    match c.phase(now) {
        Phase::Before => Err(AppError::Forbidden(format!(
            "contest {contest:?} has not started: it starts at {} (in {})",
            c.start_text(),
            countdown((c.start_ms - now) / 1000)
        ))),
        Phase::Ended => Err(AppError::Forbidden(format!(
            "contest {contest:?} is over (it ended at {}); submissions are no longer accepted",
            ojd_service::contest::format_time(c.end_ms(), c.utc_offset_s)
        ))),
        Phase::Running | Phase::Frozen => Ok(()),
    }
}

/// "2 h 05 min", "4 min 10 s".
pub(crate) fn countdown(secs: i64) -> String {
    let s = secs.max(0);
    match (s / 86400, s % 86400 / 3600, s % 3600 / 60, s % 60) {
        (d, h, _, _) if d > 0 => format!("{d} d {h} h"),
        (_, h, m, _) if h > 0 => format!("{h} h {m:02} min"),
        (_, _, m, s) => format!("{m} min {s:02} s"),
    }
}

/// The contest's clock as the API and the pages show it.
#[derive(Serialize)]
pub(crate) struct Clock {
    pub(crate) phase: Phase,
    pub(crate) now_ms: i64,
    pub(crate) start_ms: i64,
    pub(crate) end_ms: i64,
    pub(crate) freeze_ms: Option<i64>,
    /// Whether an admin has unfrozen the standings.
    pub(crate) unfrozen: bool,
    /// Whether students see the standings frozen now (the one truth, [`FreezeState`]).
    pub(crate) frozen: bool,
    /// When a scheduled unfreeze will unfreeze them (Unix ms), while it is still to come.
    pub(crate) unfreeze_at: Option<i64>,
    pub(crate) start: String,
}

pub(crate) fn clock(c: &Contest, fs: &FreezeState) -> Clock {
    let unfrozen = fs.unfrozen;
    Clock {
        frozen: fs.frozen,
        phase: c.phase(now_ms()),
        now_ms: now_ms(),
        start_ms: c.start_ms,
        end_ms: c.end_ms(),
        freeze_ms: c.freeze_ms(),
        unfrozen,
        unfreeze_at: fs.unfreeze_at,
        start: c.start_text(),
    }
}

#[derive(Serialize)]
pub(crate) struct ProblemRef {
    pub(crate) label: String,
    pub(crate) problem: String,
    pub(crate) title: String,
}

/// A contest's problems as `viewer` may see them (none before the start, except to admins).
pub(crate) fn problems_for(app: &App, c: &Contest, viewer: Option<&User>) -> Vec<ProblemRef> {
    let admin = viewer.is_some_and(|u| u.admin);
    if !admin && c.phase(now_ms()) == Phase::Before {
        return Vec::new();
    }
    let catalog = app.node.catalog();
    c.problems
        .iter()
        .map(|p| ProblemRef {
            label: p.label.clone(),
            problem: p.problem.clone(),
            title: catalog
                .get(&p.problem)
                .map(|e| e.problem.title.clone())
                .unwrap_or_else(|| format!("{} (not loaded)", p.problem)),
        })
        .collect()
}

/// The running contest (running or frozen) that `user`'s submission of `problem` made outside
/// any contest counts for: one that holds the problem and admits the user. Admins have none
/// (their submissions are the jury's, made through a contest on purpose). With several, the
/// one that started last.
pub(crate) fn running_for(app: &App, user: &User, problem: &str) -> Option<Arc<Contest>> {
    if user.admin {
        return None;
    }
    let now = now_ms();
    app.contests
        .get()
        .contests
        .iter()
        .filter(|c| matches!(c.phase(now), Phase::Running | Phase::Frozen))
        .filter(|c| c.label_of(problem).is_some() && c.admits(&user.name))
        .max_by_key(|c| c.start_ms)
        .cloned()
}

/// The contest's freeze now (the service reads it).
pub(crate) async fn read_freeze(app: &App, c: &Arc<Contest>) -> Result<FreezeState, AppError> {
    Ok(app.node.freeze_state(c.clone()).await?)
}

/// Unfreezes (or freezes again) contest `id`'s standings for students, recorded with `admin`'s
/// name in the audit log; the shared tables are dropped at once. Refused for a contest without
/// a freeze and before its freeze time (unfreezing then would show everything under a
/// "frozen" banner). Admins only: the callers check.
pub(crate) async fn set_freeze(
    app: &Arc<App>,
    admin: &User,
    id: &str,
    unfrozen: bool,
) -> Result<(), AppError> {
    let c = find(app, id)?;
    finality::refuse_if_final(&c, "freezing or unfreezing its standings")?;
    let now = now_ms();
    let Some(f) = c.freeze_ms() else {
        return Err(AppError::Conflict(format!(
            "contest {id:?} has no freeze (no `freeze` in its contest.toml)"
        )));
    };
    if now < f {
        return Err(AppError::Conflict(format!(
            "the standings of contest {id:?} freeze at {}; they can be unfrozen or frozen again only after that",
            ojd_service::contest::format_time(f, c.utc_offset_s)
        )));
    }
    app.node
        .set_freeze(c.id.clone(), unfrozen, admin.name.clone())
        .await?;
    app.contests.invalidate();
    Ok(())
}
