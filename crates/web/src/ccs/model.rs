//! A contest as the Contest API sees it, for one role: every object's history as a list of
//! events ([`Snapshot`]), derived from what the store holds and the contest's files alone, so
//! that every serve node derives the same events with the same times and order.
//!
//! Where the events come from (each at a stored time):
//!
//! - setup (time 0): the contest, judgement types, languages, and for admins problems,
//!   listed teams and accounts; problems reach the public and teams at the contest's start;
//! - a team of an open contest (`participants = "anyone"`) at its first submission or
//!   question; `state` at the start, the freeze, the end and the thaw;
//! - a submission at its time; a judgement when its judging started (no verdict yet) and again
//!   when it finished, with its runs; a judging of a rejudging only once that rejudging is
//!   applied (at that time), never while it is open or after it was cancelled; an abandoned
//!   judging (a crash or a restart left it unfinished) never;
//! - a question at its time, its answer at the answer's time; an announcement at its time.
//!
//! **Private standings** (`public_standings = false`): the public sees no submission, a team
//! only its own.
//!
//! **The freeze.** For the public and for the other teams, a submission made at or after the
//! freeze has no judgement (nor runs) until an admin thaws the contest; then its judgements
//! come at the thaw's time (so that a client resuming from a token taken during the freeze
//! receives them). A team sees its own judgements always, as on ojd's pages; admins see
//! everything.
//!
//! **The feedback policy** (`feedback` in `contest.toml`) limits the runs as ojd's pages limit
//! the tests, for every role but admins: none under `verdict`, up to the first failing one under
//! `first_failure`.

use std::collections::{BTreeMap, HashMap};

use serde_json::{json, Value};

use super::time::{abs_time, rel_time};
use crate::user::User;
use crate::App;
use ojd_judge::Verdict;
use ojd_service::ccs::{Extra, RosterChange, RosterObject};
use ojd_service::contest::standings::Standings;
use ojd_service::contest::{Contest, Participants, Scoring};
use ojd_service::now_ms;

/// Who reads the API.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Role {
    Public,
    Team(String),
    Admin,
}

impl Role {
    pub(crate) fn of(user: Option<&User>) -> Role {
        match user {
            None => Role::Public,
            Some(u) if u.admin => Role::Admin,
            Some(u) => Role::Team(u.name.clone()),
        }
    }

    /// The user the standings are computed for.
    pub(crate) fn viewer(&self) -> Option<User> {
        match self {
            Role::Public => None,
            Role::Team(n) => Some(User {
                name: n.clone(),
                admin: false,
            }),
            Role::Admin => Some(User {
                name: "admin".into(),
                admin: true,
            }),
        }
    }

    fn is(&self, user: &str) -> bool {
        matches!(self, Role::Team(n) if n == user)
    }
}

/// The time of the setup events.
pub(crate) const SETUP: i64 = 0;

/// The event types in the order the same moment's events are sent.
pub(crate) const TYPES: [&str; 14] = [
    "contest",
    "judgement-types",
    "languages",
    "problems",
    "groups",
    "organizations",
    "teams",
    "accounts",
    "state",
    "submissions",
    "clarifications",
    "judgements",
    "runs",
    "awards",
];

/// One change of one object (`data` None: deleted).
#[derive(Clone, Debug)]
pub(crate) struct Event {
    pub(crate) at: i64,
    pub(crate) ty: &'static str,
    pub(crate) id: Option<String>,
    pub(crate) data: Value,
}

impl Event {
    /// Whether it describes the contest's setup (what a reload may change): everything at
    /// [`SETUP`], and the problems (which the public and teams receive at the start).
    pub(crate) fn is_setup(&self) -> bool {
        self.at == SETUP || self.ty == "problems"
    }

    /// Whether it is a roster object's (a team, account, organization or group): a client
    /// sent the setup again is sent these again too, with the deletes that followed a create
    /// at the setup (the roster's log), so that the setup sent again does not bring back what
    /// left.
    pub(crate) fn is_roster(&self) -> bool {
        ["teams", "accounts", "organizations", "groups"].contains(&self.ty)
    }
}

/// A contest's events for one role, in order, up to the time it was built.
pub(crate) struct Snapshot {
    pub(crate) events: Vec<Event>,
    /// A fingerprint of the setup events: when a reload changed them, a client resuming from
    /// an older token is sent them again.
    pub(crate) setup: String,
    pub(crate) built_at: i64,
}

fn rank(ty: &str) -> usize {
    TYPES.iter().position(|t| *t == ty).unwrap_or(TYPES.len())
}

impl Snapshot {
    /// The current value of every object of `ty`, in the order they first appeared.
    pub(crate) fn collection(&self, ty: &str) -> Vec<Value> {
        let mut order: Vec<String> = Vec::new();
        let mut now: HashMap<String, Value> = HashMap::new();
        for e in self.events.iter().filter(|e| e.ty == ty) {
            let id = e.id.clone().unwrap_or_default();
            if !now.contains_key(&id) {
                order.push(id.clone());
            }
            now.insert(id, e.data.clone());
        }
        order
            .into_iter()
            .filter_map(|id| now.remove(&id))
            .filter(|v| !v.is_null())
            .collect()
    }

    /// The current value of a singleton (`contest`, `state`).
    pub(crate) fn single(&self, ty: &str) -> Option<Value> {
        self.events
            .iter()
            .rev()
            .find(|e| e.ty == ty)
            .map(|e| e.data.clone())
    }

    /// The events as the feed sends them, each with its token: `(at, k)`, k counting the
    /// events of the same time.
    pub(crate) fn keyed(&self) -> Vec<((i64, usize), &Event)> {
        let mut out = Vec::with_capacity(self.events.len());
        let mut last = (i64::MIN, 0usize);
        for e in &self.events {
            let k = if e.at == last.0 { last.1 + 1 } else { 0 };
            last = (e.at, k);
            out.push(((e.at, k), e));
        }
        out
    }
}

pub(crate) use ojd_service::ccs::team_id;

/// The Contest API's award objects (and `awards.json`): team ids are the users' [`team_id`]s.
pub(crate) fn awards_json(list: &[ojd_service::contest::awards::Award]) -> serde_json::Value {
    serde_json::Value::Array(
        list.iter()
            .map(|a| {
                serde_json::json!({
                    "id": a.id,
                    "citation": a.citation,
                    "team_ids": a.users.iter().map(|u| team_id(u)).collect::<Vec<_>>(),
                })
            })
            .collect(),
    )
}

/// The judgement type of an ojd verdict.
pub(crate) fn judgement_type(v: Verdict) -> &'static str {
    match v {
        Verdict::Accepted => "AC",
        Verdict::WrongAnswer => "WA",
        Verdict::TimeLimitExceeded => "TLE",
        Verdict::MemoryLimitExceeded => "MLE",
        Verdict::OutputLimitExceeded => "OLE",
        Verdict::RuntimeError => "RTE",
        Verdict::CompileError => "CE",
        Verdict::JudgeError => "JE",
        Verdict::Skipped => "CS",
    }
}

/// The judgement types, with `penalty` and `solved` as the contest's rules say (a compile
/// error is a rejected try only with `compile_errors_count`).
pub(crate) fn judgement_types(compile_errors_count: bool) -> Vec<Value> {
    let all = [
        ("AC", "Accepted", false, true),
        ("WA", "Wrong Answer", true, false),
        ("TLE", "Time Limit Exceeded", true, false),
        ("MLE", "Memory Limit Exceeded", true, false),
        ("OLE", "Output Limit Exceeded", true, false),
        ("RTE", "Run-Time Error", true, false),
        ("CE", "Compile Error", compile_errors_count, false),
        ("JE", "Judging Error", false, false),
        ("CS", "Contact Staff (skipped)", false, false),
    ];
    all.iter()
        .map(|(id, name, penalty, solved)| {
            json!({"id": id, "name": name, "penalty": penalty, "solved": solved})
        })
        .collect()
}

/// The roster's objects now, as the feed shows them to an admin: every group, organization,
/// rostered team and its account, each as `(type, id, JSON)` (what the roster's log compares).
pub(crate) fn roster_objects(roster: &ojd_service::ccs::Directory) -> Vec<RosterObject> {
    let mut out: Vec<RosterObject> = Vec::new();
    let mut add = |ty: &str, v: &Value| {
        if let Some(id) = v["id"].as_str() {
            out.push((ty.to_string(), id.to_string(), v.to_string()));
        }
    };
    for g in &roster.groups {
        add("groups", g);
    }
    for o in &roster.organizations {
        add("organizations", o);
    }
    for t in &roster.teams {
        let team = roster.team_or_bare(&t.user);
        add("teams", &Value::Object(team.object));
        add("accounts", &team_account(roster, &t.user));
    }
    out
}

/// A team's account: the roster's (a package's keeps its username), else one of the user.
fn team_account(roster: &ojd_service::ccs::Directory, user: &str) -> Value {
    let id = team_id(user);
    roster
        .accounts
        .iter()
        .find(|a| a["type"] == "team" && a["team_id"] == id.as_str())
        .cloned()
        .unwrap_or_else(|| {
            let team = roster.team_or_bare(user);
            let name = team
                .object
                .get("name")
                .cloned()
                .unwrap_or_else(|| json!(user));
            json!({"id": id, "username": user, "name": name, "type": "team", "team_id": id})
        })
}

/// The objects of the roster's log that ever left the roster: `(type, id)`.
fn replayed(log: &[RosterChange]) -> std::collections::HashSet<(&'static str, &str)> {
    log.iter()
        .filter(|ch| ch.data.is_none())
        .filter_map(|ch| Some((roster_type(&ch.kind)?, ch.id.as_str())))
        .collect()
}

/// The log's changes of each object that ever left the roster, in the order the objects first
/// appeared.
fn histories(log: &[RosterChange]) -> Vec<(&'static str, &str, Vec<&RosterChange>)> {
    let left = replayed(log);
    let mut out: Vec<(&'static str, &str, Vec<&RosterChange>)> = Vec::new();
    for ch in log {
        let Some(ty) = roster_type(&ch.kind) else {
            continue;
        };
        if !left.contains(&(ty, ch.id.as_str())) {
            continue;
        }
        match out.iter_mut().find(|(t, id, _)| *t == ty && *id == ch.id) {
            Some((_, _, rows)) => rows.push(ch),
            None => out.push((ty, &ch.id, vec![ch])),
        }
    }
    out
}

/// The feed's name of a roster type the log holds.
fn roster_type(kind: &str) -> Option<&'static str> {
    ["teams", "accounts", "organizations", "groups"]
        .into_iter()
        .find(|t| *t == kind)
}

/// The properties the roster may give each type (files are not served, so no logos or photos).
pub(crate) fn extra_properties(ty: &str) -> &'static [&'static str] {
    ojd_service::ccs::properties(ty)
}

/// Whether `v` is a problem colour the standard accepts: `rgb` `#rgb` or `#rrggbb`, `color` a
/// string.
fn valid_colour(k: &str, v: &Value) -> bool {
    match k {
        "rgb" => v.as_str().is_some_and(|s| {
            s.strip_prefix('#').is_some_and(|h| {
                (h.len() == 3 || h.len() == 6) && h.bytes().all(|b| b.is_ascii_hexdigit())
            })
        }),
        _ => v.is_string(),
    }
}

/// The contest object.
pub(crate) fn contest_object(c: &Contest) -> Value {
    let mut v = json!({
        "id": c.id,
        "name": c.title,
        "formal_name": c.title,
        "start_time": abs_time(c.start_ms, c.utc_offset_s),
        "duration": rel_time(c.end_ms() - c.start_ms),
        "scoreboard_type": match c.scoring { Scoring::Icpc => "pass-fail", Scoring::Ioi => "score" },
    });
    // "Only relevant if scoreboard_type is pass-fail": the standard's schema requires it then
    // and forbids it for `score`.
    if c.scoring == Scoring::Icpc {
        v["penalty_time"] = json!(c.penalty_minutes);
    }
    if let Some(f) = c.freeze {
        v["scoreboard_freeze_duration"] = json!(rel_time(f.as_millis() as i64));
    }
    v
}

/// When the contest was thawed (an admin's unfreeze after the freeze began), if it is by
/// `now` (a scheduled unfreeze still to come is no thaw yet: see `freeze_state`).
fn thawed_at(c: &Contest, freeze: Option<(bool, i64)>, now: i64) -> Option<i64> {
    let f = c.freeze_ms()?;
    match freeze {
        Some((true, at)) if at <= now => Some(at.max(f)),
        _ => None,
    }
}

/// The state object as of `t`.
fn state_at(c: &Contest, thawed: Option<i64>, t: i64) -> Value {
    let at = |ms: i64| (t >= ms).then(|| abs_time(ms, c.utc_offset_s));
    let end = c.end_ms();
    let frozen = c.freeze_ms().filter(|f| t >= *f);
    let thaw = thawed.filter(|th| t >= *th && frozen.is_some());
    // A director's finalization is the finalization; without one, the end (or the thaw of
    // a frozen contest) is: nothing changes the results after that.
    let finalized = match c.finalized_ms {
        Some(f) => (t >= f).then_some(f),
        None => (t >= end && (c.freeze_ms().is_none() || thaw.is_some()))
            .then(|| end.max(thaw.unwrap_or(end))),
    };
    let mut v = json!({
        "started": at(c.start_ms),
        "ended": at(end),
        "finalized": finalized.map(|ms| abs_time(ms, c.utc_offset_s)),
        // A director's finalization is the last update: nothing changes after it (the
        // awards come at the same moment, before this state on the feed).
        "end_of_updates": c.finalized_ms.filter(|f| t >= *f).map(|ms| abs_time(ms, c.utc_offset_s)),
    });
    if c.freeze_ms().is_some() {
        v["frozen"] = json!(frozen.map(|ms| abs_time(ms, c.utc_offset_s)));
        v["thawed"] = json!(thaw.map(|ms| abs_time(ms, c.utc_offset_s)));
    }
    v
}

/// Builds the events of contest `c` for `role` from its stored `records` and, once it is
/// finalized, its `awards` (the results' computation, the service's).
// Eight inputs, each a different source the snapshot reads (the contest, the viewer, the
// release, the stored records, the awards, the roster and its log): a struct would only
// rename them.
#[allow(clippy::too_many_arguments)]
pub(crate) fn build(
    app: &App,
    c: &Contest,
    role: &Role,
    version: super::version::Version,
    records: ojd_service::ccs::Records,
    awards: Option<Vec<ojd_service::contest::awards::Award>>,
    roster: &ojd_service::ccs::Directory,
    roster_log: &[RosterChange],
) -> Snapshot {
    let now = now_ms();
    let ojd_service::ccs::Records {
        submissions: mut subs,
        judgings,
        runs,
        clarifications: clars,
        answers,
        freeze,
    } = records;
    let admin = *role == Role::Admin;
    // An admin's submission before the start (it never counts) would name a problem the
    // public and the teams do not see yet.
    subs.retain(|s| admin || s.queued_at >= c.start_ms);
    // Private standings (`public_standings = false`): a team sees only its own row, so it sees
    // only its own submissions (their judgements would tell the others' results), the public
    // none.
    if !c.public_standings && !admin {
        subs.retain(|s| role.is(&s.user));
    }
    let freeze = freeze.map(|f| (f.unfrozen, f.changed_at));
    let thawed = thawed_at(c, freeze, now);
    let extra = Extra::load(c);
    let off = c.utc_offset_s;
    let t = |ms: i64| abs_time(ms, off);
    let ct = |ms: i64| rel_time(ms - c.start_ms);

    let mut ev: Vec<Event> = Vec::new();
    // The roster's objects that ever left it are told from the roster's log (below); their
    // values now, where they are still there, wait here for it.
    let replayed = replayed(roster_log);
    let mut now_of: HashMap<(&'static str, String), Value> = HashMap::new();
    let mut push = |at: i64, ty: &'static str, id: Option<String>, data: Value| match id
        .as_ref()
        .filter(|id| replayed.contains(&(ty, id.as_str())))
    {
        Some(id) => drop(now_of.insert((ty, id.clone()), data)),
        None => ev.push(Event { at, ty, id, data }),
    };

    // Setup.
    push(SETUP, "contest", None, contest_object(c));
    for j in judgement_types(c.compile_errors_count) {
        push(
            SETUP,
            "judgement-types",
            j["id"].as_str().map(str::to_string),
            j,
        );
    }
    for (id, l) in &app.node.config().languages {
        let v = super::languages::language_object(id, l);
        push(SETUP, "languages", Some(id.clone()), v);
    }
    let problems_at = if admin { SETUP } else { c.start_ms };
    if problems_at <= now {
        let catalog = app.node.catalog();
        for (i, p) in c.problems.iter().enumerate() {
            let loaded = catalog.get(&p.problem).map(|e| e.problem.clone());
            let mut v = json!({
                "id": p.problem,
                "label": p.label,
                "name": loaded.as_ref().map_or_else(|| p.problem.clone(), |l| l.title.clone()),
                "ordinal": i + 1,
                "time_limit": loaded.as_ref().map_or(0.0, |l| l.time_limit.as_millis() as f64 / 1000.0),
                "test_data_count": loaded.as_ref().map_or(0, |l| l.tests.len()),
            });
            // 2026-01's limits (`version::adapt` leaves them out of 2023-06's shape): memory
            // and output in MiB, the source in KiB. An output limit only where the problem
            // sets one.
            if let Some(l) = &loaded {
                v["memory_limit"] = json!(l.memory_limit >> 20);
                if let Some(o) = l.output_limit {
                    v["output_limit"] = json!(o >> 20);
                }
            }
            v["code_limit"] = json!(app.node.config().server.max_submission_size.0 >> 10);
            if c.scoring == Scoring::Ioi {
                let max = loaded.as_ref().map_or(100_000, |l| {
                    if l.groups.is_empty() {
                        100_000
                    } else {
                        l.groups.iter().map(|g| u64::from(g.points_milli)).sum()
                    }
                });
                v["max_score"] = points_json(max);
            }
            if let Some(Value::Object(colour)) = extra.problems.get(&p.problem) {
                for k in ["rgb", "color"] {
                    if let Some(x) = colour.get(k).filter(|x| valid_colour(k, x)) {
                        v[k] = x.clone();
                    }
                }
            }
            // The colour a director gave in contest.toml, where ccs.json gives none.
            if let (Some(rgb), None) = (&p.color, v.get("rgb")) {
                if valid_colour("rgb", &json!(rgb)) {
                    v["rgb"] = json!(rgb);
                }
            }
            push(problems_at, "problems", Some(p.problem.clone()), v);
        }
    }
    // The roster: whatever made it (the web, a roster file, a package), one directory.
    for g in &roster.groups {
        push(
            SETUP,
            "groups",
            g["id"].as_str().map(str::to_string),
            g.clone(),
        );
    }
    for o in &roster.organizations {
        let id = o["id"].as_str().map(str::to_string);
        push(SETUP, "organizations", id, o.clone());
    }

    // Teams: every rostered team at the setup (also those that never submit), and in a
    // contest open to anyone every other user at their first appearance.
    let mut teams: BTreeMap<String, i64> = roster
        .teams
        .iter()
        .map(|t| (t.user.clone(), SETUP))
        .collect();
    if c.participants == Participants::Anyone {
        let seen = subs
            .iter()
            .map(|s| (&s.user, s.queued_at))
            .chain(clars.iter().filter_map(|q| Some((q.user.as_ref()?, q.at))));
        for (u, at) in seen {
            let e = teams.entry(u.clone()).or_insert(at);
            *e = (*e).min(at);
        }
    }
    let mut by_time: Vec<(&String, &i64)> = teams.iter().collect();
    by_time.sort_by_key(|(u, at)| {
        (
            **at,
            roster.teams.iter().position(|t| &t.user == *u),
            (*u).clone(),
        )
    });
    for (u, at) in by_time {
        let team = roster.team_or_bare(u);
        let id = team_id(u);
        push(*at, "teams", Some(id.clone()), Value::Object(team.object));
        if admin || role.is(u) {
            let account = team_account(roster, u);
            let aid = account["id"].as_str().map_or(id, str::to_string);
            push(*at, "accounts", Some(aid), account);
        }
    }
    if admin {
        for u in app.node.config().server.users.iter().filter(|u| u.admin) {
            let id = team_id(&u.name);
            let v = json!({"id": id, "username": u.name, "name": u.name, "type": "admin"});
            push(SETUP, "accounts", Some(id), v);
        }
    }

    // The state's changes, from the setup's (nothing started yet), so that a feed always
    // has the state `/state` answers, before the start too.
    push(SETUP, "state", None, state_at(c, thawed, SETUP));
    let mut moments = vec![c.start_ms, c.end_ms()];
    moments.extend(c.freeze_ms());
    moments.extend(thawed);
    moments.extend(c.finalized_ms);
    moments.sort();
    moments.dedup();
    for m in moments.into_iter().filter(|m| *m <= now) {
        push(m, "state", None, state_at(c, thawed, m));
    }

    // The awards, from the same computation as the results pages, once finalized.
    if let (Some(f), Some(list)) = (c.finalized_ms.filter(|f| *f <= now), &awards) {
        for a in awards_json(list).as_array().into_iter().flatten() {
            let id = a["id"].as_str().map(str::to_string);
            push(f, "awards", id, a.clone());
        }
    }

    // Submissions, judgements and runs.
    let is_team = |u: &str| teams.contains_key(u);
    let by_id: HashMap<i64, &ojd_service::ccs::SubmissionInfo> = subs
        .iter()
        .filter(|s| is_team(&s.user))
        .map(|s| (s.id, s))
        .collect();
    let account_of = |user: &str| {
        let id = team_id(user);
        roster
            .accounts
            .iter()
            .find(|a| a["type"] == "team" && a["team_id"] == id.as_str())
            .map_or_else(|| json!(id), |a| a["id"].clone())
    };
    for s in subs.iter().filter(|s| is_team(&s.user)) {
        // `files` is required for every reader (the standard's schema); the download itself
        // is the admins' and the submitting team's only.
        let v = json!({
            "id": s.id.to_string(),
            "language_id": s.language,
            "problem_id": s.problem,
            "team_id": team_id(&s.user),
            // 2026-01 only (see `version::adapt`): the team's account.
            "account_id": account_of(&s.user),
            "time": t(s.queued_at),
            "contest_time": ct(s.queued_at),
            "entry_point": null,
            "files": [{
                "href": format!("contests/{}/submissions/{}/files", c.id, s.id),
                "filename": "files.zip",
                "mime": "application/zip",
            }],
        });
        push(s.queued_at, "submissions", Some(s.id.to_string()), v);
    }
    let hidden = |s: &ojd_service::ccs::SubmissionInfo| {
        !admin
            && !role.is(&s.user)
            && c.freeze_ms().is_some_and(|f| s.queued_at >= f)
            && thawed.is_none()
    };
    // Revealed at the thaw: for the public and other teams, what was frozen.
    let reveal = |s: &ojd_service::ccs::SubmissionInfo| {
        let frozen = c.freeze_ms().is_some_and(|f| s.queued_at >= f);
        match thawed {
            Some(th) if frozen && !admin && !role.is(&s.user) => th,
            _ => i64::MIN,
        }
    };
    let loaded = app.contests.get();
    let policy = crate::view::policy(app, &loaded.contests);
    let viewer = role.viewer();
    let mut runs_of: HashMap<i64, Vec<&ojd_service::ccs::CcsRun>> = HashMap::new();
    for r in &runs {
        runs_of.entry(r.judging).or_default().push(r);
    }
    // When each judging was superseded by the next judging of its submission (a retry after
    // a host fault, a rejudging): an abandoned judging is deleted then.
    let mut next_start: HashMap<i64, i64> = HashMap::new();
    {
        let mut last: HashMap<i64, i64> = HashMap::new(); // submission -> its latest judging
        for j in &judgings {
            if let Some(prev) = last.insert(j.submission, j.id) {
                next_start.entry(prev).or_insert(j.started_at);
            }
        }
    }
    for j in &judgings {
        let Some(s) = by_id.get(&j.submission) else {
            continue;
        };
        let abandoned = j.finished_at.is_none() && !j.in_flight;
        if hidden(s) || (abandoned && j.rejudging.is_some()) {
            continue;
        }
        // A rejudging's judging shows once it is applied, at that time.
        let applied_at = match (&j.rejudging, j.rejudging_state.as_deref()) {
            (None, _) => i64::MIN,
            (Some(_), Some("applied")) => j.rejudging_closed_at.unwrap_or(i64::MIN),
            _ => continue,
        };
        let floor = applied_at.max(reveal(s));
        let id = j.id.to_string();
        // The score is the finished judging's only: a started judgement says 0 whenever it is
        // sent, so that a replay sends what the live feed sent.
        let mut v = json!({
            "id": id,
            "submission_id": s.id.to_string(),
            "judgement_type_id": null,
            "score": 0,
            "start_time": t(j.started_at),
            "start_contest_time": ct(j.started_at),
            "end_time": null,
            "end_contest_time": null,
        });
        let shown_from = floor.max(j.started_at);
        if abandoned {
            // A judging a host fault left unfinished was sent as started while in flight;
            // when the next judging of its submission starts (the retry) it is deleted, and
            // one superseded before it was ever sent is never sent.
            match next_start.get(&j.id) {
                Some(&gone) if gone <= shown_from => {}
                Some(&gone) => {
                    push(shown_from, "judgements", Some(id.clone()), v);
                    push(gone, "judgements", Some(id), Value::Null);
                }
                None => push(shown_from, "judgements", Some(id), v),
            }
            continue;
        }
        if floor == i64::MIN {
            push(j.started_at, "judgements", Some(id.clone()), v.clone());
        }
        let (Some(end), Some(verdict)) = (j.finished_at, j.verdict) else {
            if floor != i64::MIN && floor <= now {
                push(shown_from, "judgements", Some(id), v);
            }
            continue;
        };
        v["score"] = points_json(j.score_milli.unwrap_or(0));
        v["judgement_type_id"] = json!(judgement_type(verdict));
        v["end_time"] = json!(t(end));
        v["end_contest_time"] = json!(ct(end));
        v["max_run_time"] = json!(j.max_cpu_ms.unwrap_or(0) as f64 / 1000.0);
        let at = end.max(floor);
        push(at, "judgements", Some(id.clone()), v);
        // The contest's feedback policy, for every role but admins: no run under "verdict",
        // none after the first failing one under "first_failure".
        let mut shown: Vec<_> = runs_of.get(&j.id).into_iter().flatten().collect();
        shown.sort_by_key(|r| r.idx);
        let mut failed = false;
        // The one visibility policy decides, as for ojd's pages and event stream.
        let sight = policy.sight(
            User::viewer(viewer.as_ref()),
            &s.user,
            &s.problem,
            Some(&c.id),
        );
        for r in shown {
            if r.verdict == Verdict::Skipped {
                continue;
            }
            if !sight.shows_test(failed) {
                break;
            }
            failed |= r.verdict != Verdict::Accepted;
            let rid = format!("{}-{}", j.id, r.idx + 1);
            let rv = json!({
                "id": rid,
                "judgement_id": id,
                "ordinal": r.idx + 1,
                "judgement_type_id": judgement_type(r.verdict),
                "time": t(end),
                "contest_time": ct(end),
                "run_time": r.cpu_ms as f64 / 1000.0,
            });
            push(at, "runs", Some(rid), rv);
        }
    }

    // Clarifications.
    let problem_visible = problems_at <= now;
    for q in &clars {
        let problem = q.problem.clone().filter(|_| problem_visible);
        let id = q.id.to_string();
        match &q.user {
            None => {
                // An announcement to some teams (or groups): those teams and admins only.
                let to: Vec<&String> = q.to_user.iter().chain(&q.to_more).collect();
                if !(admin || q.public || to.iter().any(|u| role.is(u))) {
                    continue;
                }
                // 2023-06 names one team: the reader's own, for an admin the first.
                let one = (to.iter())
                    .find(|u| role.is(u))
                    .or(to.first())
                    .map(|u| team_id(u));
                let mut v = json!({
                    "id": id, "from_team_id": null, "to_team_id": one, "reply_to_id": null,
                    "problem_id": problem, "text": q.text, "time": t(q.at), "contest_time": ct(q.at),
                });
                // 2026-01's lists (`version::adapt`), where one team does not say it all.
                if to.len() > 1 || !q.to_groups.is_empty() {
                    v["to_team_ids"] = json!(to.iter().map(|u| team_id(u)).collect::<Vec<_>>());
                }
                if !q.to_groups.is_empty() {
                    let group_id = |name: &String| {
                        let found = roster.groups.iter().find(|g| g["name"] == name.as_str());
                        found.map_or_else(
                            || json!(ojd_service::ccs::slug(name)),
                            |g| g["id"].clone(),
                        )
                    };
                    v["to_group_ids"] = json!(q.to_groups.iter().map(group_id).collect::<Vec<_>>());
                }
                push(q.at, "clarifications", Some(id), v);
            }
            Some(asker) => {
                let sees_question = admin || role.is(asker);
                if sees_question {
                    let v = json!({
                        "id": id, "from_team_id": team_id(asker), "to_team_id": null,
                        "reply_to_id": null, "problem_id": problem, "text": q.text,
                        "time": t(q.at), "contest_time": ct(q.at),
                    });
                    push(q.at, "clarifications", Some(id.clone()), v);
                }
                // Every reply the jury sent, each its own object (a re-answer does not
                // rewrite what was sent before: a replay equals the live feed, and a package
                // keeps them all); an answer kept without its history is the one reply.
                let single;
                let replies: Vec<(&str, bool, i64)> = match answers.get(&q.id) {
                    Some(list) if !list.is_empty() => list
                        .iter()
                        .map(|a| (a.answer.as_str(), a.public, a.answered_at))
                        .collect(),
                    _ => {
                        single = q.answer.clone().zip(q.answered_at);
                        single
                            .iter()
                            .map(|(a, at)| (a.as_str(), q.public, *at))
                            .collect()
                    }
                };
                for (n, (answer, public, at)) in replies.into_iter().enumerate() {
                    if !(public || sees_question) {
                        continue;
                    }
                    let rid = ojd_service::ccs::reply_id(q.id, n + 1);
                    let v = json!({
                        "id": rid, "from_team_id": null,
                        "to_team_id": if public { Value::Null } else { json!(team_id(asker)) },
                        "reply_to_id": if sees_question { json!(id) } else { Value::Null },
                        "problem_id": problem, "text": answer,
                        "time": t(at), "contest_time": ct(at),
                    });
                    push(at, "clarifications", Some(rid), v);
                }
            }
        }
    }

    // What left the roster (and what came back), as the log recorded it: created at the
    // setup, deleted when it went, created again when it came back. A replay of the feed
    // shows what a client that followed it live was sent. Accounts only to whom they are
    // shown; a removed team an open contest still shows (it submitted) stays.
    let own_team = role.viewer().map(|u| team_id(&u.name));
    let mut ev2 = Vec::new();
    for (ty, id, rows) in histories(roster_log) {
        if ty == "teams" && !now_of.contains_key(&(ty, id.to_string())) {
            let shown = teams.keys().any(|u| team_id(u) == id);
            if shown {
                continue;
            }
        }
        let mut last: Option<Value> = None;
        for (i, ch) in rows.iter().enumerate() {
            let at = if i == 0 { SETUP } else { ch.at };
            let data = match &ch.data {
                None => None,
                Some(_) if i + 1 == rows.len() && now_of.contains_key(&(ty, id.to_string())) => {
                    now_of.get(&(ty, id.to_string())).cloned()
                }
                Some(text) => serde_json::from_str::<Value>(text).ok(),
            };
            if ty == "accounts" && !admin {
                let of = last
                    .as_ref()
                    .or(data.as_ref())
                    .and_then(|v| v["team_id"].as_str());
                if of.is_none() || of != own_team.as_deref() {
                    continue;
                }
            }
            match data {
                Some(v) if last.as_ref() != Some(&v) => {
                    last = Some(v.clone());
                    ev2.push(Event {
                        at,
                        ty,
                        id: Some(id.to_string()),
                        data: v,
                    });
                }
                None if last.is_some() => {
                    last = None;
                    ev2.push(Event {
                        at,
                        ty,
                        id: Some(id.to_string()),
                        data: Value::Null,
                    });
                }
                _ => {}
            }
        }
    }
    ev.extend(ev2);

    let mut events: Vec<Event> = ev.into_iter().filter(|e| e.at <= now).collect();
    // Stable: events of the same time and type keep the order they were made in.
    // The state that says `end_of_updates` is the very last event of its moment.
    events.sort_by_key(|e| {
        let last = e.ty == "state" && !e.data["end_of_updates"].is_null();
        (e.at, if last { TYPES.len() } else { rank(e.ty) })
    });
    if version == super::version::Version::V2026 {
        events = mark_current(events);
    }
    for e in &mut events {
        let data = std::mem::take(&mut e.data);
        e.data = super::version::adapt(version, e.ty, data);
    }
    let setup = {
        use sha2::Digest;
        let mut h = sha2::Sha256::new();
        for e in events.iter().filter(|e| e.is_setup()) {
            h.update(e.ty.as_bytes());
            h.update(e.data.to_string().as_bytes());
        }
        ojd_judge::hex_encode(&h.finalize()[..4])
    };
    Snapshot {
        events,
        setup,
        built_at: now,
    }
}

/// The scoreboard object: ojd's own standings `s` as the role sees them (the same table as
/// `/api/v1/contests/{id}/standings`) in the standard's shape.
pub(crate) fn scoreboard(c: &Contest, s: &Standings, snap: &Snapshot) -> Value {
    let problem_of = |label: &str| {
        c.problems
            .iter()
            .find(|p| p.label == label)
            .map(|p| p.problem.clone())
            .unwrap_or_default()
    };
    // IOI: the minute each (team, problem) reached its best score, from the visible judgements.
    let ioi_minutes = match c.scoring {
        Scoring::Ioi => ioi_minutes(c, snap),
        Scoring::Icpc => HashMap::new(),
    };
    let rows: Vec<Value> = s
        .rows
        .iter()
        .map(|r| {
            let tid = team_id(&r.user);
            let mut last_minute: Option<u64> = None;
            let problems: Vec<Value> = r
                .cells
                .iter()
                .map(|cell| {
                    let pid = problem_of(&cell.label);
                    let mut v = json!({
                        "problem_id": pid,
                        "num_judged": cell.tries + u32::from(cell.solved && c.scoring == Scoring::Icpc),
                        "num_pending": cell.pending,
                    });
                    match c.scoring {
                        Scoring::Icpc => {
                            v["solved"] = json!(cell.solved);
                            if cell.solved {
                                v["time"] = json!(cell.minute.unwrap_or(0));
                            }
                        }
                        Scoring::Ioi => {
                            let score = cell.score_milli.unwrap_or(0);
                            v["score"] = points_json(score);
                            if score > 0 {
                                let m = ioi_minutes
                                    .get(&(tid.clone(), pid.clone(), score))
                                    .copied()
                                    .unwrap_or(0);
                                last_minute = Some(last_minute.map_or(m, |l| l.max(m)));
                                v["time"] = json!(m);
                            }
                        }
                    }
                    v
                })
                .collect();
            // `score.time` is null iff nothing is solved (or scored); a null property may be
            // left out, and the standard's schema (2023-06) wants it left out: its `time` is an
            // integer, not nullable.
            let (mut score, time) = match c.scoring {
                Scoring::Icpc => (
                    json!({"num_solved": r.solved, "total_time": r.penalty}),
                    (r.solved > 0).then(|| r.last_ac_minute.unwrap_or(0)),
                ),
                Scoring::Ioi => (json!({"score": points_json(r.score_milli)}), last_minute),
            };
            if let Some(m) = time {
                score["time"] = json!(m);
            }
            json!({"rank": r.rank, "team_id": tid, "score": score, "problems": problems})
        })
        .collect();
    let last = snap
        .events
        .last()
        .map_or(c.start_ms, |e| e.at.max(c.start_ms));
    json!({
        "time": abs_time(last, c.utc_offset_s),
        "contest_time": rel_time(last - c.start_ms),
        "state": snap.single("state").unwrap_or_else(|| state_at(c, None, snap.built_at)),
        "rows": rows,
    })
}

/// Each judgement says whether it is its submission's `current` one (2026-01): the newest sent
/// is; the one it replaces is sent again, not current, at that moment (a rejudging applied).
/// A deleted judgement (a host fault's) was current until it went.
fn mark_current(events: Vec<Event>) -> Vec<Event> {
    let mut out = Vec::with_capacity(events.len());
    // submission -> (its current judgement's id, that judgement's latest data)
    let mut current: HashMap<String, (String, Value)> = HashMap::new();
    for mut e in events {
        if e.ty != "judgements" {
            out.push(e);
            continue;
        }
        let id = e.id.clone().unwrap_or_default();
        if e.data.is_null() {
            current.retain(|_, (j, _)| *j != id);
            out.push(e);
            continue;
        }
        let sid = e.data["submission_id"].as_str().unwrap_or("").to_string();
        if let Some((j, old)) = current.get(&sid).filter(|(j, _)| *j != id) {
            let mut was = old.clone();
            was["current"] = json!(false);
            out.push(Event {
                at: e.at,
                ty: "judgements",
                id: Some(j.clone()),
                data: was,
            });
        }
        e.data["current"] = json!(true);
        current.insert(sid, (id, e.data.clone()));
        out.push(e);
    }
    out
}

/// Points (thousandths) as a CLICS number: an integer when whole, else a decimal (`12.5`).
pub(crate) fn points_json(milli: u64) -> Value {
    if milli.is_multiple_of(1000) {
        json!(milli / 1000)
    } else {
        json!(milli as f64 / 1000.0)
    }
}

/// A CLICS score back in thousandths.
fn milli_of(v: &Value) -> u64 {
    v.as_u64()
        .map(|n| n * 1000)
        .or_else(|| v.as_f64().map(|f| (f * 1000.0).round().max(0.0) as u64))
        .unwrap_or(0)
}

/// IOI: for each (team, problem, score in thousandths), the contest minute of the first visible
/// judged submission from which the team's best on the problem was that score.
fn ioi_minutes(c: &Contest, snap: &Snapshot) -> HashMap<(String, String, u64), u64> {
    let subs = snap.collection("submissions");
    let mut latest: HashMap<String, Value> = HashMap::new();
    for j in snap.collection("judgements") {
        if !j["judgement_type_id"].is_null() {
            latest.insert(j["submission_id"].as_str().unwrap_or("").to_string(), j);
        }
    }
    let mut best: HashMap<(String, String), u64> = HashMap::new();
    let mut out = HashMap::new();
    for s in &subs {
        let (Some(id), Some(team), Some(problem)) = (
            s["id"].as_str(),
            s["team_id"].as_str(),
            s["problem_id"].as_str(),
        ) else {
            continue;
        };
        let Some(j) = latest.get(id) else { continue };
        let score = milli_of(&j["score"]);
        let minute = reltime_ms(s["contest_time"].as_str().unwrap_or("0:00:00")) / 60_000;
        if minute < 0 || minute * 60_000 >= c.end_ms() - c.start_ms {
            continue;
        }
        let b = best.entry((team.into(), problem.into())).or_insert(0);
        if score > *b {
            *b = score;
            out.insert((team.into(), problem.into(), score), minute as u64);
        }
    }
    out
}

/// A RELTIME back in milliseconds (0 when it does not parse).
pub(crate) fn reltime_ms(s: &str) -> i64 {
    let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let mut parts = s.split(':');
    let (Some(h), Some(m), Some(sec)) = (parts.next(), parts.next(), parts.next()) else {
        return 0;
    };
    let secs: f64 = sec.parse().unwrap_or(0.0);
    let ms = h.parse::<i64>().unwrap_or(0) * 3_600_000
        + m.parse::<i64>().unwrap_or(0) * 60_000
        + (secs * 1000.0).round() as i64;
    if neg {
        -ms
    } else {
        ms
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reltimes_read_back() {
        for ms in [0, 1, 59_999, 3_600_000, 5 * 3_600_000 + 61_001, -61_001] {
            assert_eq!(reltime_ms(&rel_time(ms)), ms);
        }
        assert_eq!(reltime_ms("nonsense"), 0);
    }

    #[test]
    fn every_verdict_has_a_judgement_type() {
        let types = judgement_types(true);
        for v in Verdict::ALL {
            let id = judgement_type(v);
            let t = types.iter().find(|t| t["id"] == id).expect("listed");
            assert_eq!(t["solved"], v == Verdict::Accepted, "{id}");
        }
        let penalty = |id: &str| {
            types
                .iter()
                .find(|t| t["id"] == id)
                .map(|t| t["penalty"].clone())
        };
        assert_eq!(penalty("CE"), Some(json!(true)), "compile_errors_count");
        assert_eq!(penalty("JE"), Some(json!(false)));
        assert_eq!(penalty("TLE"), Some(json!(true)));
        let lenient = judgement_types(false);
        assert_eq!(
            lenient
                .iter()
                .find(|t| t["id"] == "CE")
                .map(|t| t["penalty"].clone()),
            Some(json!(false))
        );
    }
}
