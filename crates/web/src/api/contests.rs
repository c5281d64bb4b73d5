//! The contests' JSON API: `/api/v1/contests…` (the list, one contest with its clock and
//! problems, standings, clarifications) and the admins' `/api/v1/admin/contests…` (standings
//! as CSV, freeze, announcements) and `/api/v1/admin/clarifications/{id}/answer`.

use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use axum::{Json, Router};
use serde::Serialize;

use crate::auth::extract::{Admin, MaybeUser};
use crate::contests::clarifications::{self, AnswerBody, AskBody};
use crate::contests::controls::{self, ClockBody};
use crate::contests::{balloons, clock, csv, define, find, problems_for, results};
use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_service::contest::edit::Draft;
use ojd_service::contest::{Phase, Scoring};
use ojd_service::{now_ms, Clarification};

pub(crate) fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/contests", get(list))
        .route("/contests/{id}", get(one))
        .route("/contests/{id}/standings", get(standings_json))
        .route(
            "/contests/{id}/clarifications",
            get(clarification_list).post(ask),
        )
        .route(
            "/admin/contests/{id}/standings.csv",
            get(standings_csv_route),
        )
        .route("/admin/contests/{id}/unfreeze", post(unfreeze))
        .route("/admin/contests/{id}/freeze", post(refreeze))
        .route("/admin/contests/{id}/announcements", post(announce))
        .route("/admin/contests/{id}/clock", post(change_clock))
        .route("/admin/contests", post(create_contest))
        .route("/admin/contests/{id}/login-links", post(login_links))
        .route(
            "/admin/contests/{id}/definition",
            get(definition).post(edit_definition),
        )
        .route("/admin/contests/{id}/teams", post(import_teams))
        .route("/admin/contests/{id}/team", post(save_team))
        .route(
            "/admin/contests/{id}/teams/{user}/remove",
            post(remove_team),
        )
        .route(
            "/admin/contests/{id}/finalize",
            get(finalize_checklist).post(finalize),
        )
        .route(
            "/admin/contests/{id}/balloons",
            get(balloon_list).post(balloon_mark),
        )
        .route("/contests/{id}/awards", get(awards))
        .route("/contests/{id}/results.tsv", get(results_tsv))
        .route("/contests/{id}/results.csv", get(results_csv))
        .route("/contests/{id}/awards.json", get(awards_json))
        .route("/admin/audit", get(audit_log))
        .route("/admin/submissions/{id}/ignore", post(ignore))
        .route("/admin/submissions/{id}/override", post(override_verdict))
        .route("/admin/clarifications/{id}/answer", post(answer))
        .route("/admin/clarifications/{id}/claim", post(claim))
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
    /// Whether students see the standings frozen now (an unfreeze after the freeze time
    /// ends it even while `phase` is `frozen`).
    frozen: bool,
    start: String,
    /// How many problems (0 for non-admins before the start: the set is not told).
    problems: usize,
}

async fn list(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
) -> Result<Json<Vec<ContestSummary>>, AppError> {
    let now = now_ms();
    let admin = user.is_some_and(|u| u.admin);
    let loaded = app.contests.get();
    let states = app.node.freeze_states(loaded.contests.clone()).await?;
    let out = loaded
        .contests
        .iter()
        .zip(states)
        .map(|(c, fs)| ContestSummary {
            id: c.id.clone(),
            title: c.title.clone(),
            scoring: c.scoring,
            phase: c.phase(now),
            start_ms: c.start_ms,
            end_ms: c.end_ms(),
            freeze_ms: c.freeze_ms(),
            frozen: fs.frozen,
            start: c.start_text(),
            problems: if admin || c.phase(now) != Phase::Before {
                c.problems.len()
            } else {
                0
            },
        })
        .collect();
    Ok(Json(out))
}

async fn one(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, AppError> {
    let c = find(&app, &id)?;
    let freeze = crate::contests::read_freeze(&app, &c).await?;
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
        "clock": clock(&c, &freeze),
        "freeze": freeze,
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
    let json = app
        .node
        .standings_json(c, User::viewer(user.as_ref()))
        .await?;
    // The shared table's bytes as the service serialized them once, not copied.
    let body = axum::body::Bytes::from_owner(json);
    Ok(([(header::CONTENT_TYPE, "application/json")], body).into_response())
}

async fn standings_csv_route(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let c = find(&app, &id)?;
    let name = format!("{}-standings.csv", c.id);
    let s = app.node.standings(c, admin.as_viewer()).await?;
    Ok((
        [
            (header::CONTENT_TYPE, "text/csv; charset=utf-8".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        csv::standings_csv(&s),
    )
        .into_response())
}

/// `GET /api/v1/admin/contests/{id}/balloons`: the balloon queue (the jury's view).
async fn balloon_list(
    State(app): State<Arc<App>>,
    _admin: Admin,
    Path(id): Path<String>,
) -> Result<Json<Vec<balloons::Balloon>>, AppError> {
    let c = find(&app, &id)?;
    Ok(Json(balloons::list(&app, &c).await?))
}

#[derive(serde::Deserialize)]
struct BalloonBody {
    user: String,
    /// A problem id or label.
    problem: String,
    /// true: delivered; false: not delivered again.
    done: bool,
}

/// `POST /api/v1/admin/contests/{id}/balloons` `{user, problem, done}`.
async fn balloon_mark(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<String>,
    Json(b): Json<BalloonBody>,
) -> Result<Json<serde_json::Value>, AppError> {
    balloons::mark(&app, &admin, &id, &b.user, &b.problem, b.done).await?;
    Ok(Json(
        serde_json::json!({"contest": id, "user": b.user, "problem": b.problem, "done": b.done}),
    ))
}

#[derive(serde::Deserialize)]
struct ClaimBody {
    /// true: claim it for the caller; false: release it.
    claim: bool,
}

/// `POST /api/v1/admin/clarifications/{id}/claim` `{claim}`.
async fn claim(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<i64>,
    Json(b): Json<ClaimBody>,
) -> Result<Json<serde_json::Value>, AppError> {
    clarifications::claim(&app, &admin, id, b.claim).await?;
    let by = b.claim.then_some(admin.name);
    Ok(Json(
        serde_json::json!({"clarification": id, "claimed_by": by}),
    ))
}

/// `GET /api/v1/admin/contests/{id}/finalize`: what finalizing would need: why it cannot be
/// yet (`blocked`), and every check of the checklist with what it found.
async fn finalize_checklist(
    State(app): State<Arc<App>>,
    Admin(_): Admin,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, AppError> {
    let c = find(&app, &id)?;
    let r = results::readiness(&app, &c).await?;
    Ok(Json(serde_json::json!({
        "contest": id,
        "blocked": r.blocked,
        "frozen": r.frozen,
        "checks": r.checks.checks(),
    })))
}

/// `{"confirm": ["judge_errors", "pending", "unanswered", "rejudgings"]}`: the checks of the
/// finalize checklist the director confirms (409 naming each one found but not confirmed).
#[derive(serde::Deserialize)]
struct FinalizeBody {
    #[serde(default)]
    confirm: Vec<String>,
}

async fn finalize(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<String>,
    Json(b): Json<FinalizeBody>,
) -> Result<Response, AppError> {
    let detail = results::finalize(&app, &admin, &id, &b.confirm).await?;
    Ok(Json(serde_json::json!({ "contest": id, "finalized": detail })).into_response())
}

/// The final standings and awards of contest `id`, if `user` may see them yet.
async fn final_results(
    app: &Arc<App>,
    user: Option<&User>,
    id: &str,
) -> Result<
    (
        Arc<ojd_service::contest::Contest>,
        ojd_service::contest::standings::Standings,
        Vec<ojd_service::contest::awards::Award>,
    ),
    AppError,
> {
    let c = find(app, id)?;
    if !results::visible(&c, user) {
        return Err(AppError::NotFound(format!(
            "contest {id:?} is not finalized yet: its results and awards are published when a director finalizes it"
        )));
    }
    let (s, list) = results::results(app, &c).await?;
    Ok((c, s, list))
}

/// `GET /api/v1/contests/{id}/awards`: whether the results are final, and the awards.
async fn awards(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> Result<Json<serde_json::Value>, AppError> {
    let (c, _, list) = final_results(&app, user.as_ref(), &id).await?;
    Ok(Json(serde_json::json!({
        "contest": c.id,
        "final": c.finalized_ms.is_some(),
        "finalized_ms": c.finalized_ms,
        "awards": list,
    })))
}

fn download(kind: &str, name: String, body: String) -> Response {
    (
        [
            (header::CONTENT_TYPE, kind.to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        body,
    )
        .into_response()
}

/// `GET /api/v1/contests/{id}/results.tsv`: the ICPC results file.
async fn results_tsv(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let (c, s, list) = final_results(&app, user.as_ref(), &id).await?;
    let body = ojd_service::contest::awards::results_tsv(&c, &s, &list);
    Ok(download(
        "text/tab-separated-values; charset=utf-8",
        format!("{}-results.tsv", c.id),
        body,
    ))
}

/// `GET /api/v1/contests/{id}/results.csv`: the final standings with each row's awards.
async fn results_csv(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let (c, s, list) = final_results(&app, user.as_ref(), &id).await?;
    Ok(download(
        "text/csv; charset=utf-8",
        format!("{}-results.csv", c.id),
        csv::results_csv(&s, &list),
    ))
}

/// `GET /api/v1/contests/{id}/awards.json`: the awards as the Contest API's objects.
async fn awards_json(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    let (c, _, list) = final_results(&app, user.as_ref(), &id).await?;
    let body =
        serde_json::to_string_pretty(&crate::ccs::model::awards_json(&list)).unwrap_or_default();
    Ok(download(
        "application/json",
        format!("{}-awards.json", c.id),
        body,
    ))
}

async fn set_freeze(
    app: Arc<App>,
    admin: User,
    id: String,
    unfrozen: bool,
) -> Result<Response, AppError> {
    crate::contests::set_freeze(&app, &admin, &id, unfrozen).await?;
    Ok(Json(serde_json::json!({ "contest": id, "unfrozen": unfrozen })).into_response())
}

async fn unfreeze(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    set_freeze(app, admin, id, true).await
}

async fn refreeze(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<String>,
) -> Result<Response, AppError> {
    set_freeze(app, admin, id, false).await
}

/// `POST /api/v1/admin/contests/{id}/clock` `{action, minutes?}`: start now, delay, extend,
/// end now, the freeze's length (`freeze_last`, 0: none); 409 when the change cannot be made
/// in the contest's phase.
async fn change_clock(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<String>,
    Json(body): Json<ClockBody>,
) -> Result<Response, AppError> {
    let detail = controls::change_clock(&app, &admin, &id, &body).await?;
    let c = find(&app, &id)?;
    Ok(Json(serde_json::json!({
        "contest": id,
        "done": detail,
        "start_ms": c.start_ms,
        "end_ms": c.end_ms(),
        "freeze_ms": c.freeze_ms(),
    }))
    .into_response())
}

#[derive(serde::Deserialize)]
#[serde(deny_unknown_fields)]
struct LinksBody {
    /// RFC 3339 with an offset; default: the contest's end plus two hours.
    #[serde(default)]
    valid_until: Option<String>,
}

/// `POST /api/v1/admin/contests/{id}/login-links` `{valid_until?}`: a one-time login link per
/// team for the hall sheet → `{expires_ms, expires, links: [{user, name, path}]}`.
async fn login_links(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<String>,
    Json(b): Json<LinksBody>,
) -> Result<Json<crate::contests::links::Sheet>, AppError> {
    crate::contests::links::issue(&app, &admin, &id, b.valid_until.as_deref())
        .await
        .map(Json)
}

/// Takes `keys` (booleans or strings) out of a JSON object and reads the rest as a [`Draft`];
/// a bad or unknown field is a 400 naming it.
fn draft_of(
    mut body: serde_json::Value,
    keys: &[&str],
) -> Result<(Draft, Vec<serde_json::Value>), AppError> {
    let Some(obj) = body.as_object_mut() else {
        return Err(AppError::BadRequest(
            "expected a JSON object with the contest's fields".into(),
        ));
    };
    let taken = keys
        .iter()
        .map(|k| obj.remove(*k).unwrap_or(serde_json::Value::Null))
        .collect();
    let draft = serde_json::from_value::<Draft>(body)
        .map_err(|e| AppError::BadRequest(format!("the contest's fields: {e}")))?;
    Ok((draft, taken))
}

/// `POST /api/v1/admin/contests` `{id, title, start, duration, freeze?, scoring, penalty?,
/// compile_errors_count?, public_standings?, participants?, problems: [{problem, label?,
/// color?}]}` → 201: a new contest folder; 400 naming every bad field.
async fn create_contest(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Json(body): Json<serde_json::Value>,
) -> Result<Response, AppError> {
    let (draft, taken) = draft_of(body, &["id"])?;
    let id = taken[0].as_str().unwrap_or_default().to_string();
    let c = define::create(&app, &admin, &id, &draft)
        .await
        .map_err(|e| e.into_app_error(&id))?;
    Ok((
        StatusCode::CREATED,
        Json(serde_json::json!({
            "id": c.id,
            "title": c.title,
            "start_ms": c.start_ms,
            "end_ms": c.end_ms(),
            "problems": c.problems,
            "page": format!("/contests/{}", c.id),
        })),
    )
        .into_response())
}

/// `GET /api/v1/admin/contests/{id}/definition`: what the edit takes, as it is now.
async fn definition(
    State(app): State<Arc<App>>,
    Admin(_): Admin,
    Path(id): Path<String>,
) -> Result<Json<Draft>, AppError> {
    Ok(Json(Draft::of(&*find(&app, &id)?)))
}

/// `POST /api/v1/admin/contests/{id}/definition` (the fields of `GET`, `confirm?`): edits
/// the contest (not its clock: `start`, `duration` and `freeze` are ignored); 400 naming every
/// bad field; 409 naming what would change when it needs `"confirm": true` (a started
/// contest's standings recomputed, a problem with submissions removed), or when finalized.
async fn edit_definition(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<String>,
    Json(body): Json<serde_json::Value>,
) -> Result<Json<define::Edited>, AppError> {
    let (draft, taken) = draft_of(body, &["confirm"])?;
    let confirm = match &taken[0] {
        serde_json::Value::Null => false,
        serde_json::Value::Bool(b) => *b,
        other => {
            return Err(AppError::BadRequest(format!(
                "field `confirm`: expected true or false, found {other}"
            )))
        }
    };
    define::update(&app, &admin, &id, &draft, confirm)
        .await
        .map(Json)
        .map_err(|e| e.into_app_error(&id))
}

#[derive(serde::Deserialize)]
struct RosterBody {
    /// The roster CSV (see docs/contests.md).
    roster: String,
    #[serde(default)]
    tokens: bool,
    /// Generate a password for every team that accounts.tsv gives none.
    #[serde(default)]
    passwords: bool,
}

/// `POST /api/v1/admin/contests/{id}/teams` `{roster, tokens?, passwords?}`: replaces the
/// contest's teams; `{teams, tokens: [{user, token}], passwords: [{user, password}],
/// passwords_from_file, participants: {admitted, dismissed}}`, the tokens and generated
/// passwords shown only in this answer; 409 when the contest is finalized.
async fn import_teams(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<String>,
    Json(body): Json<RosterBody>,
) -> Result<Response, AppError> {
    let done =
        controls::import_roster(&app, &admin, &id, &body.roster, body.tokens, body.passwords)
            .await?;
    let tokens: Vec<_> = done
        .tokens
        .into_iter()
        .map(|(user, token)| serde_json::json!({ "user": user, "token": token }))
        .collect();
    let passwords: Vec<_> = done
        .passwords
        .into_iter()
        .map(|(user, password)| serde_json::json!({ "user": user, "password": password }))
        .collect();
    Ok((
        [(header::CACHE_CONTROL, "no-store")],
        Json(serde_json::json!({
            "teams": done.teams,
            "tokens": tokens,
            "passwords": passwords,
            "passwords_from_file": done.from_file,
            "participants": {
                "admitted": done.admission.admitted,
                "dismissed": done.admission.dismissed,
            },
        })),
    )
        .into_response())
}

/// `POST /api/v1/admin/contests/{id}/team` (the fields of a team: `original?` (the user of the
/// team it replaces), `user`, `name?`, `affiliation?`, `category?`, `group?`, `members?` as
/// text separated by `;` or lines): adds or edits one team → `{contest, done, team}`; 400
/// naming every bad field; 409 when finalized.
async fn save_team(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<String>,
    Json(draft): Json<ojd_service::contest::roster::TeamDraft>,
) -> Result<Json<serde_json::Value>, AppError> {
    match crate::contests::teams::save_team(&app, &admin, &id, &draft).await? {
        Ok(done) => {
            let c = find(&app, &id)?;
            let team = c
                .teams
                .iter()
                .find(|t| t.user == draft.user.trim())
                .cloned();
            Ok(Json(
                serde_json::json!({ "contest": id, "done": done, "team": team }),
            ))
        }
        Err(errors) => Err(AppError::BadRequest(
            errors
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join("\n"),
        )),
    }
}

/// `POST /api/v1/admin/contests/{id}/teams/{user}/remove`: removes a team without
/// submissions → `{contest, done}`; 409 when it has submissions in the contest or the contest
/// is finalized, 404 when there is no such team.
async fn remove_team(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path((id, user)): Path<(String, String)>,
) -> Result<Json<serde_json::Value>, AppError> {
    let done = crate::contests::teams::remove_team(&app, &admin, &id, &user).await?;
    Ok(Json(serde_json::json!({ "contest": id, "done": done })))
}

#[derive(serde::Deserialize)]
struct IgnoreBody {
    /// true: never ranked; false: ranked again.
    ignored: bool,
}

/// `POST /api/v1/admin/submissions/{id}/ignore` `{ignored}`: a contest submission that is not
/// ranked (or ranked again); 404 for a submission made through no contest.
async fn ignore(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<i64>,
    Json(body): Json<IgnoreBody>,
) -> Result<Response, AppError> {
    controls::set_ignored(&app, &admin, id, body.ignored).await?;
    Ok(Json(serde_json::json!({ "id": id, "ignored": body.ignored })).into_response())
}

#[derive(serde::Deserialize)]
struct OverrideBody {
    /// A verdict code ("AC", "WA", ...); null removes the override.
    verdict: Option<String>,
    #[serde(default)]
    reason: String,
}

/// `POST /api/v1/admin/submissions/{id}/override` `{verdict, reason}`: the jury's verdict
/// over the judge's (`verdict: null` removes it).
async fn override_verdict(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<i64>,
    Json(body): Json<OverrideBody>,
) -> Result<Response, AppError> {
    let verdict = match body.verdict.as_deref() {
        None | Some("") => None,
        Some(code) => Some(ojd_judge::Verdict::from_code(code).ok_or_else(|| {
            AppError::BadRequest(format!(
                "field `verdict`: {code:?} is not a verdict code (AC, WA, TLE, MLE, OLE, RE, CE)"
            ))
        })?),
    };
    controls::set_override(&app, &admin, id, verdict, &body.reason).await?;
    Ok(Json(serde_json::json!({ "id": id, "verdict": body.verdict })).into_response())
}

#[derive(serde::Deserialize)]
struct AuditQuery {
    contest: Option<String>,
    limit: Option<u32>,
}

/// `GET /api/v1/admin/audit?contest=&limit=`: the audit log, newest first.
async fn audit_log(
    State(app): State<Arc<App>>,
    _admin: Admin,
    axum::extract::Query(q): axum::extract::Query<AuditQuery>,
) -> Result<Response, AppError> {
    let limit = q.limit.unwrap_or(200).clamp(1, 1000);
    let list = controls::audit(&app, q.contest.filter(|c| !c.is_empty()), limit).await?;
    Ok(Json(list).into_response())
}

async fn clarification_list(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
) -> Result<Json<Vec<Clarification>>, AppError> {
    let c = find(&app, &id)?;
    let mut all = app.node.clarifications(c.id.clone()).await?;
    // This API lists the newest first (the Contest API's order is the oldest first).
    all.sort_by_key(|q| std::cmp::Reverse(q.id));
    Ok(Json(clarifications::visible_clarifications(
        all,
        user.as_ref(),
    )))
}

async fn ask(
    State(app): State<Arc<App>>,
    user: User,
    Path(id): Path<String>,
    Json(body): Json<AskBody>,
) -> Result<Response, AppError> {
    let cid = clarifications::ask(&app, &user, &id, body).await?;
    Ok((StatusCode::CREATED, Json(serde_json::json!({ "id": cid }))).into_response())
}

async fn announce(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<String>,
    Json(body): Json<AskBody>,
) -> Result<Response, AppError> {
    let cid = clarifications::announce(&app, &admin, &id, body).await?;
    Ok((StatusCode::CREATED, Json(serde_json::json!({ "id": cid }))).into_response())
}

async fn answer(
    State(app): State<Arc<App>>,
    Admin(admin): Admin,
    Path(id): Path<i64>,
    Json(body): Json<AnswerBody>,
) -> Result<Response, AppError> {
    clarifications::answer(&app, &admin, id, body).await?;
    Ok(Json(serde_json::json!({ "id": id, "answered": true })).into_response())
}
