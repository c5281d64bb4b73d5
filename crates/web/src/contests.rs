//! Contests in the daemon: the loaded `contests/` ([`Registry`]), the rules a submission must
//! pass ([`admit`]), standings read from the current judgings ([`standings`]), and the JSON API
//! (`/api/v1/contests…`, clarifications, announcements, freeze). The pages are in
//! [`super::contest_pages`].
//!
//! Rules: before the start a student sees no problem of the contest (the problems are hidden
//! everywhere, not only on the contest page) and cannot submit to them; after the end a
//! submission through the contest is refused with a clear error (admins are exempt: their
//! submissions after the end are judged but lie outside the contest window, so they never
//! change the standings). A submission belongs to a contest only when made through it
//! (`contest` in `POST /api/v1/submissions`, or the contest page's form).

mod cache;

use std::sync::{Arc, RwLock};

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::{Deserialize, Serialize};

use super::auth::{Admin, MaybeUser, User};
use super::error::AppError;
use super::App;
use ojd_judge::config::Config;
use ojd_judge::problem::Problem;
use ojd_judge::verdict::{TestResult, Verdict};
use ojd_service::contest::model::{Contest, Participants, Phase, Scoring};
use ojd_service::contest::standings::{self, Attempt, Judged, Standings};
use ojd_store::contests::Clarification;
use ojd_store::{now_ms, StoreError, SubmissionInfo};

/// The contests as loaded now, and the folders that failed.
#[derive(Default)]
pub struct Loaded {
    pub contests: Vec<Arc<Contest>>,
    pub failed: Vec<(String, String)>,
}

impl Loaded {
    pub fn get(&self, id: &str) -> Option<&Arc<Contest>> {
        self.contests.iter().find(|c| c.id == id)
    }
}

/// `contests/` as loaded at start and on every reload, and their standings as last computed.
pub struct Registry {
    loaded: RwLock<Arc<Loaded>>,
    /// See [`cache`]; [`Registry::invalidate`] empties it.
    standings: cache::Cache,
}

impl Registry {
    pub fn load(config: &Config) -> Registry {
        let r = Registry {
            loaded: RwLock::new(Arc::new(Loaded::default())),
            standings: cache::Cache::new(config.server.standings_cache),
        };
        r.reload(config);
        r
    }

    /// Forgets every computed standings table: their inputs changed (a rejudging applied, a
    /// freeze or an unfreeze).
    pub fn invalidate(&self) {
        self.standings.invalidate();
    }

    /// Loads `server.contests` again; logs what failed.
    pub fn reload(&self, config: &Config) -> Arc<Loaded> {
        let (ok, failed) =
            ojd_service::contest::load_all(&config.server.contests, &config.server.problems);
        let loaded = Arc::new(Loaded {
            contests: ok.into_iter().map(Arc::new).collect(),
            failed: failed
                .into_iter()
                .map(|(folder, e)| {
                    super::log(&format!("contest {folder} failed to load:\n{e}"));
                    (folder, e.to_string())
                })
                .collect(),
        });
        *self.loaded.write().unwrap_or_else(|e| e.into_inner()) = loaded.clone();
        self.standings.reset();
        loaded
    }

    pub fn get(&self) -> Arc<Loaded> {
        self.loaded
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// A contest the viewer may see (all of them are listed), or a 404.
pub fn find(app: &App, id: &str) -> Result<Arc<Contest>, AppError> {
    app.contests
        .get()
        .get(id)
        .cloned()
        .ok_or_else(|| AppError::NotFound(format!("no contest {id:?}")))
}

/// Checks that `user` may submit `problem` through `contest` now.
pub fn admit(app: &App, user: &User, contest: &str, problem: &str) -> Result<(), AppError> {
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
            ojd_service::contest::model::format_time(c.end_ms(), c.utc_offset_s)
        ))),
        Phase::Running | Phase::Frozen => Ok(()),
    }
}

/// "2 h 05 min", "4 min 10 s".
pub fn countdown(secs: i64) -> String {
    let s = secs.max(0);
    match (s / 86400, s % 86400 / 3600, s % 3600 / 60, s % 60) {
        (d, h, _, _) if d > 0 => format!("{d} d {h} h"),
        (_, h, m, _) if h > 0 => format!("{h} h {m:02} min"),
        (_, _, m, s) => format!("{m} min {s:02} s"),
    }
}

/// The contest's clock as the API and the pages show it.
#[derive(Serialize)]
pub struct Clock {
    pub phase: Phase,
    pub now_ms: i64,
    pub start_ms: i64,
    pub end_ms: i64,
    pub freeze_ms: Option<i64>,
    /// Whether an admin has unfrozen the standings.
    pub unfrozen: bool,
    pub start: String,
}

pub fn clock(c: &Contest, unfrozen: bool) -> Clock {
    Clock {
        phase: c.phase(now_ms()),
        now_ms: now_ms(),
        start_ms: c.start_ms,
        end_ms: c.end_ms(),
        freeze_ms: c.freeze_ms(),
        unfrozen,
        start: c.start_text(),
    }
}

/// Points per scoring group that a judging's tests earned (the judge's own group rule: a group
/// scores when every test in it is accepted).
pub fn group_scores(problem: &Problem, tests: &[TestResult]) -> Vec<u32> {
    problem
        .groups
        .iter()
        .map(|g| {
            let members: Vec<&str> = problem
                .tests
                .iter()
                .filter(|t| g.tests.iter().any(|p| t.name.starts_with(p.as_str())))
                .map(|t| t.name.as_str())
                .collect();
            let all = !members.is_empty()
                && members.iter().all(|m| {
                    tests
                        .iter()
                        .any(|t| t.name == *m && t.verdict == Verdict::Accepted)
                });
            if all {
                g.points
            } else {
                0
            }
        })
        .collect()
}

/// Whether a contest's standings need per-test results (IOI with scoring groups).
fn needs_groups(app: &App, c: &Contest, problem: &str) -> Option<Arc<Problem>> {
    if c.scoring != Scoring::Ioi {
        return None;
    }
    let p = app.catalog().get(problem)?.problem.clone();
    (!p.groups.is_empty()).then_some(p)
}

/// The attempts of a contest from its submissions' current judgings (blocking: reads the store).
pub fn attempts(
    app: &App,
    c: &Contest,
    subs: &[SubmissionInfo],
) -> Result<Vec<Attempt>, StoreError> {
    subs.iter()
        .map(|s| {
            let result = match (s.verdict, s.judging) {
                (Some(verdict), Some(judging)) => {
                    let groups = match needs_groups(app, c, &s.problem) {
                        Some(p) => app.contests.standings.groups_of(judging, || {
                            Ok(app
                                .store
                                .judging(judging)?
                                .map(|j| group_scores(&p, &j.tests))
                                .unwrap_or_default())
                        })?,
                        None => Vec::new(),
                    };
                    Some(Judged {
                        verdict,
                        score: s.score.unwrap_or(0),
                        groups,
                    })
                }
                _ => None,
            };
            Ok(Attempt {
                id: s.id,
                user: s.user.clone(),
                problem: s.problem.clone(),
                at_ms: s.queued_at,
                result,
            })
        })
        .collect()
}

fn participants(c: &Contest) -> Vec<String> {
    match &c.participants {
        Participants::Anyone => Vec::new(),
        Participants::Listed(u) => u.clone(),
    }
}

/// The standings table `viewer`'s view shares with everyone who has the same view (blocking;
/// computed once per change, see [`cache`]). Private standings still need [`for_viewer`].
fn shared_standings(
    app: &App,
    c: &Contest,
    viewer: Option<&User>,
) -> Result<Arc<cache::Table>, StoreError> {
    let admin = viewer.is_some_and(|u| u.admin);
    let registry = &app.contests;
    let hide = match c.freeze_ms() {
        Some(f)
            if !admin
                && now_ms() >= f
                && !registry
                    .standings
                    .unfrozen(&c.id, || app.store.unfrozen(&c.id))? =>
        {
            Some(f)
        }
        _ => None,
    };
    registry.standings.get(
        &c.id,
        hide,
        || app.hub.subscribe(),
        || compute(app, c, hide),
    )
}

/// The standings from the store's current judgings, hidden after `hide` (blocking).
fn compute(app: &App, c: &Contest, hide: Option<i64>) -> Result<Standings, StoreError> {
    let subs = app.store.contest_submissions(&c.id)?;
    let mut list = attempts(app, c, &subs)?;
    if let Participants::Listed(users) = &c.participants {
        list.retain(|a| users.contains(&a.user));
    }
    Ok(standings::compute(c, &list, &participants(c), hide))
}

/// Whether `viewer` sees only a part of the shared table (private standings).
fn private_for(c: &Contest, viewer: Option<&User>) -> bool {
    !c.public_standings && !viewer.is_some_and(|u| u.admin)
}

/// The shared table cut down to what `viewer` may see of private standings.
fn for_viewer(mut s: Standings, viewer: Option<&User>) -> Standings {
    match viewer {
        Some(u) => s.only(&u.name),
        None => s.rows.clear(),
    }
    s
}

/// The standings as `viewer` may see them (blocking).
pub fn standings(app: &App, c: &Contest, viewer: Option<&User>) -> Result<Standings, StoreError> {
    let table = shared_standings(app, c, viewer)?;
    let s = table.standings.clone();
    Ok(if private_for(c, viewer) {
        for_viewer(s, viewer)
    } else {
        s
    })
}

/// The standings as JSON for `viewer` (blocking): the shared table's bytes as they are, unless
/// the standings are private.
fn standings_json_bytes(
    app: &App,
    c: &Contest,
    viewer: Option<&User>,
) -> Result<axum::body::Bytes, StoreError> {
    let table = shared_standings(app, c, viewer)?;
    if !private_for(c, viewer) {
        return Ok(table.json.clone());
    }
    let s = for_viewer(table.standings.clone(), viewer);
    Ok(serde_json::to_vec(&s).unwrap_or_default().into())
}

/// Standings as CSV (admins): rank, user, solved, penalty, score, then one column per problem.
pub fn standings_csv(s: &Standings) -> String {
    let quote = |t: &str| {
        if t.contains([',', '"', '\n']) {
            format!("\"{}\"", t.replace('"', "\"\""))
        } else {
            t.to_string()
        }
    };
    let mut out = String::from("rank,user,solved,penalty,score");
    for p in &s.problems {
        out.push(',');
        out.push_str(&quote(&p.label));
    }
    out.push('\n');
    for r in &s.rows {
        out.push_str(&format!(
            "{},{},{},{},{}",
            r.rank,
            quote(&r.user),
            r.solved,
            r.penalty,
            r.score
        ));
        for c in &r.cells {
            let cell = match s.scoring {
                Scoring::Icpc if c.solved => format!("+{} {}", c.tries, c.minute.unwrap_or(0)),
                Scoring::Icpc if c.tries > 0 => format!("-{}", c.tries),
                Scoring::Ioi => c.score.map(|s| s.to_string()).unwrap_or_default(),
                _ => String::new(),
            };
            out.push(',');
            out.push_str(&cell);
        }
        out.push('\n');
    }
    out
}

/// The clarifications `viewer` may read: public ones and their own (admins: all).
pub fn visible_clarifications(
    all: Vec<Clarification>,
    viewer: Option<&User>,
) -> Vec<Clarification> {
    all.into_iter()
        .filter(|c| match viewer {
            Some(u) if u.admin => true,
            Some(u) => c.public || c.user.as_deref() == Some(u.name.as_str()),
            None => c.public,
        })
        .collect()
}

pub fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/contests", get(list))
        .route("/contests/{id}", get(one))
        .route("/contests/{id}/standings", get(standings_json))
        .route(
            "/contests/{id}/clarifications",
            get(clarifications).post(ask),
        )
        .route(
            "/admin/contests/{id}/standings.csv",
            get(standings_csv_route),
        )
        .route("/admin/contests/{id}/unfreeze", post(unfreeze))
        .route("/admin/contests/{id}/freeze", post(refreeze))
        .route("/admin/contests/{id}/announcements", post(announce))
        .route("/admin/clarifications/{id}/answer", post(answer))
}

#[derive(Serialize)]
struct ContestSummary {
    id: String,
    title: String,
    scoring: Scoring,
    phase: Phase,
    start_ms: i64,
    end_ms: i64,
    freeze_ms: Option<i64>,
    start: String,
    problems: usize,
}

async fn list(State(app): State<Arc<App>>) -> Json<Vec<ContestSummary>> {
    let now = now_ms();
    let out = app
        .contests
        .get()
        .contests
        .iter()
        .map(|c| ContestSummary {
            id: c.id.clone(),
            title: c.title.clone(),
            scoring: c.scoring,
            phase: c.phase(now),
            start_ms: c.start_ms,
            end_ms: c.end_ms(),
            freeze_ms: c.freeze_ms(),
            start: c.start_text(),
            problems: c.problems.len(),
        })
        .collect();
    Json(out)
}

#[derive(Serialize)]
pub struct ProblemRef {
    pub label: String,
    pub problem: String,
    pub title: String,
}

/// A contest's problems as `viewer` may see them (none before the start, except to admins).
pub fn problems_for(app: &App, c: &Contest, viewer: Option<&User>) -> Vec<ProblemRef> {
    let admin = viewer.is_some_and(|u| u.admin);
    if !admin && c.phase(now_ms()) == Phase::Before {
        return Vec::new();
    }
    let catalog = app.catalog();
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

async fn one(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, AppError> {
    let c = find(&app, &id)?;
    let cid = c.id.clone();
    let unfrozen = app.db(move |s| s.unfrozen(&cid)).await?;
    let problems = problems_for(&app, &c, user.as_ref());
    let message = (problems.is_empty() && c.phase(now_ms()) == Phase::Before).then(|| {
        format!(
            "the contest starts at {}; its problems appear then",
            c.start_text()
        )
    });
    Ok(Json(serde_json::json!({
        "id": c.id,
        "title": c.title,
        "scoring": c.scoring,
        "penalty_minutes": c.penalty_minutes,
        "compile_errors_count": c.compile_errors_count,
        "public_standings": c.public_standings,
        "participants": c.participants,
        "clock": clock(&c, unfrozen),
        "problems": problems,
        "message": message,
    })))
}

async fn standings_json(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let c = find(&app, &id)?;
    let a = app.clone();
    let body = app
        .db(move |_| standings_json_bytes(&a, &c, user.as_ref()))
        .await?;
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

async fn standings_csv_route(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let c = find(&app, &id)?;
    let a = app.clone();
    let name = format!("{}-standings.csv", c.id);
    let s = app.db(move |_| standings(&a, &c, Some(&admin))).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        standings_csv(&s),
    )
        .into_response())
}

/// Unfreezes (or freezes again) contest `id`'s standings for students; the shared tables are
/// dropped at once. Admins only: the callers check.
pub async fn set_freeze_inner(app: &Arc<App>, id: &str, unfrozen: bool) -> Result<(), AppError> {
    let c = find(app, id)?;
    app.db(move |s| s.set_unfrozen(&c.id, unfrozen, now_ms()))
        .await?;
    app.contests.invalidate();
    Ok(())
}

async fn set_freeze(app: Arc<App>, id: String, unfrozen: bool) -> Result<Response, AppError> {
    set_freeze_inner(&app, &id, unfrozen).await?;
    Ok(Json(serde_json::json!({ "contest": id, "unfrozen": unfrozen })).into_response())
}

async fn unfreeze(
    State(app): State<Arc<App>>,
    _admin: Admin,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    set_freeze(app, id, true).await
}

async fn refreeze(
    State(app): State<Arc<App>>,
    _admin: Admin,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    set_freeze(app, id, false).await
}

async fn clarifications(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> Result<Json<Vec<Clarification>>, AppError> {
    let c = find(&app, &id)?;
    let all = app.db(move |s| s.clarifications(&c.id)).await?;
    Ok(Json(visible_clarifications(all, user.as_ref())))
}

#[derive(Deserialize)]
pub struct AskBody {
    pub problem: Option<String>,
    pub text: String,
}

/// Validates a clarification's text and problem (a label or a problem id of the contest).
pub fn check_text(c: &Contest, body: &AskBody) -> Result<Option<String>, AppError> {
    let text = body.text.trim();
    if text.is_empty() || text.len() > 4000 {
        return Err(AppError::BadRequest(
            "field `text`: write 1 to 4000 bytes".into(),
        ));
    }
    match body.problem.as_deref().map(str::trim) {
        None | Some("") => Ok(None),
        Some(p) => c
            .problem(p)
            .map(|cp| Some(cp.problem.clone()))
            .ok_or_else(|| {
                AppError::BadRequest(format!(
                    "field `problem`: {p:?} is not a problem of this contest"
                ))
            }),
    }
}

/// `POST /api/v1/contests/{id}/clarifications` `{problem?, text}`: a participant's question.
pub async fn ask_inner(
    app: &Arc<App>,
    user: &User,
    id: &str,
    body: AskBody,
) -> Result<i64, AppError> {
    let c = find(app, id)?;
    if !user.admin && !c.admits(&user.name) {
        return Err(AppError::Forbidden(format!(
            "{} is not a participant of contest {id:?}",
            user.name
        )));
    }
    let problem = check_text(&c, &body)?;
    let name = user.name.clone();
    let text = body.text.trim().to_string();
    app.db(move |s| s.add_clarification(&c.id, Some(&name), problem.as_deref(), &text, now_ms()))
        .await
}

async fn ask(
    State(app): State<Arc<App>>,
    user: User,
    Path(id): Path<String>,
    Json(body): Json<AskBody>,
) -> Result<Response, AppError> {
    let cid = ask_inner(&app, &user, &id, body).await?;
    Ok((StatusCode::CREATED, Json(serde_json::json!({ "id": cid }))).into_response())
}

/// An announcement to every participant.
pub async fn announce_inner(app: &Arc<App>, id: &str, body: AskBody) -> Result<i64, AppError> {
    let c = find(app, id)?;
    let problem = check_text(&c, &body)?;
    let text = body.text.trim().to_string();
    app.db(move |s| s.add_clarification(&c.id, None, problem.as_deref(), &text, now_ms()))
        .await
}

async fn announce(
    State(app): State<Arc<App>>,
    _admin: Admin,
    Path(id): Path<String>,
    Json(body): Json<AskBody>,
) -> Result<Response, AppError> {
    let cid = announce_inner(&app, &id, body).await?;
    Ok((StatusCode::CREATED, Json(serde_json::json!({ "id": cid }))).into_response())
}

#[derive(Deserialize)]
pub struct AnswerBody {
    pub answer: String,
    /// true: everyone sees the question and the answer; false: only its asker.
    #[serde(default)]
    pub public: bool,
}

pub async fn answer_inner(
    app: &Arc<App>,
    admin: &User,
    id: i64,
    body: AnswerBody,
) -> Result<(), AppError> {
    let text = body.answer.trim().to_string();
    if text.is_empty() {
        return Err(AppError::BadRequest("field `answer` is empty".into()));
    }
    let by = admin.name.clone();
    let ok = app
        .db(move |s| s.answer_clarification(id, &text, body.public, &by, now_ms()))
        .await?;
    if ok {
        Ok(())
    } else {
        Err(AppError::NotFound(format!("no question {id}")))
    }
}

async fn answer(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<i64>,
    Json(body): Json<AnswerBody>,
) -> Result<Response, AppError> {
    answer_inner(&app, &admin, id, body).await?;
    Ok(Json(serde_json::json!({ "id": id, "answered": true })).into_response())
}
