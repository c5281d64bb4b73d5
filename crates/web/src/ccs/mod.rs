//! The ICPC Contest API (CLICS, release 2023-06) under `/api/`, beside ojd's own `/api/v1`:
//! what scoreboards, the ICPC Resolver, the Contest Data Server and shadowing systems read.
//!
//! Everything a role may see is derived from the store and the contest's files as a list of
//! events ([`model`]); each endpoint is the current value of its objects in that list, and the
//! event feed ([`feed`]) is the list itself, so the feed and the endpoints always agree, and
//! every serve node of a cluster serves the same feed. The scoreboard is ojd's own standings in
//! the standard's shape ([`model::scoreboard`]). Roles: no token is the public, a student's
//! token or session is its team, an admin's sees everything (the same tokens and sessions as
//! `/api/v1`).

mod basic;
mod feed;
mod languages;
pub(crate) mod model;
mod time;
mod version;
mod write;

use std::sync::Arc;

use std::collections::HashMap;

use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::Extension;
use axum::{Json, Router};
use serde_json::{json, Value};

use crate::contests::find;
use crate::error::AppError;
use crate::user::User;
use crate::App;
use basic::Reader;
use model::{Role, Snapshot};
use ojd_service::contest::Contest;
use version::Version;

/// The collections under `/api/contests/{id}/`.
const COLLECTIONS: [&str; 11] = [
    "judgement-types",
    "languages",
    "problems",
    "groups",
    "organizations",
    "teams",
    "accounts",
    "submissions",
    "judgements",
    "runs",
    "clarifications",
];

pub(crate) fn routes() -> Router<Arc<App>> {
    Router::new()
        .merge(versioned(Version::V2023))
        .merge(versioned(Version::V2026))
}

/// Every endpoint of release `v`, under its base URL.
fn versioned(v: Version) -> Router<Arc<App>> {
    let b = v.base();
    let c = format!("{b}/contests/{{cid}}");
    Router::new()
        .route(b, get(info))
        .route(&format!("{b}/"), get(info))
        .route(&format!("{b}/contests"), get(contests))
        .route(&c, get(contest).patch(write::patch_contest))
        .route(&format!("{c}/state"), get(state))
        .route(&format!("{c}/scoreboard"), get(scoreboard))
        .route(&format!("{c}/access"), get(access))
        .route(&format!("{c}/account"), get(account))
        .route(&format!("{c}/awards"), get(awards))
        .route(&format!("{c}/awards/{{id}}"), get(award))
        .route(&format!("{c}/event-feed"), get(feed::event_feed))
        .route(
            &format!("{c}/{{collection}}"),
            get(collection).post(write::post),
        )
        .route(&format!("{c}/{{collection}}/{{id}}"), get(object))
        .route(&format!("{c}/submissions/{{id}}/files"), get(files))
        .layer(Extension(v))
}

async fn info(Extension(v): Extension<Version>) -> Json<Value> {
    Json(v.info())
}

/// The events of contest `cid` for the caller.
pub(crate) async fn snapshot(
    app: &Arc<App>,
    cid: &str,
    user: Option<&crate::user::User>,
    v: Version,
) -> Result<(Arc<Contest>, Role, Arc<Snapshot>), AppError> {
    let c = find(app, cid)?;
    let role = Role::of(user);
    let records = app.node.ccs_records(c.id.clone()).await?;
    // A finalized contest's awards, from the same computation as the results pages.
    let awards = match c.finalized_ms {
        Some(_) => Some(crate::contests::results::results(app, &c).await?.1),
        None => None,
    };
    // The roster, and its log: what left it gets its delete event.
    let roster = ojd_service::ccs::directory(&c);
    let objects = model::roster_objects(&roster);
    let log = app.node.ccs_roster_log(c.id.clone(), objects).await?;
    let snap = model::build(app, &c, &role, v, records, awards, &roster, &log);
    Ok((c, role, Arc::new(snap)))
}

async fn contests(
    State(app): State<Arc<App>>,
    Extension(v): Extension<Version>,
) -> Json<Vec<Value>> {
    let loaded = app.contests.get();
    Json(
        loaded
            .contests
            .iter()
            .map(|c| version::adapt(v, "contest", model::contest_object(c)))
            .collect(),
    )
}

async fn contest(
    State(app): State<Arc<App>>,
    Extension(v): Extension<Version>,
    Path(cid): Path<String>,
) -> Result<Json<Value>, AppError> {
    let c = find(&app, &cid)?;
    Ok(Json(version::adapt(
        v,
        "contest",
        model::contest_object(&c),
    )))
}

async fn state(
    State(app): State<Arc<App>>,
    Extension(v): Extension<Version>,
    Reader(user): Reader,
    Path(cid): Path<String>,
) -> Result<Json<Value>, AppError> {
    let (_, _, snap) = snapshot(&app, &cid, user.as_ref(), v).await?;
    let c = find(&app, &cid)?;
    // Before the start no state event exists yet: nothing has happened.
    let v = snap.single("state").unwrap_or_else(|| {
        let mut v =
            json!({"started": null, "ended": null, "finalized": null, "end_of_updates": null});
        if c.freeze.is_some() {
            v["frozen"] = Value::Null;
            v["thawed"] = Value::Null;
        }
        v
    });
    Ok(Json(v))
}

async fn scoreboard(
    State(app): State<Arc<App>>,
    Extension(v): Extension<Version>,
    Reader(user): Reader,
    Path(cid): Path<String>,
) -> Result<Json<Value>, AppError> {
    let (c, role, snap) = snapshot(&app, &cid, user.as_ref(), v).await?;
    // The standings are the service's, as this role's user sees them.
    let viewer = role.viewer();
    let s = app
        .node
        .standings(c.clone(), User::viewer(viewer.as_ref()))
        .await?;
    let sb = model::scoreboard(&c, &s, &snap);
    Ok(Json(version::adapt_scoreboard(v, sb)))
}

/// The properties each type has (what `/access` lists; the same for every role).
fn properties(ty: &str, c: &Contest, v: Version) -> Vec<&'static str> {
    let ioi = c.scoring == ojd_service::contest::Scoring::Ioi;
    let freeze = c.freeze.is_some();
    let mut p: Vec<&'static str> = match ty {
        "contest" => vec![
            "id",
            "name",
            "formal_name",
            "start_time",
            "duration",
            "scoreboard_type",
        ],
        "judgement-types" => vec!["id", "name", "penalty", "solved"],
        "languages" => vec![
            "id",
            "name",
            "entry_point_required",
            "extensions",
            "compiler",
            "runner",
        ],
        "problems" => vec![
            "id",
            "label",
            "name",
            "ordinal",
            "rgb",
            "color",
            "time_limit",
            "test_data_count",
        ],
        "groups" | "organizations" | "teams" => model::extra_properties(ty).to_vec(),
        "accounts" => vec!["id", "username", "name", "type", "team_id"],
        "state" => vec!["started", "ended", "finalized", "end_of_updates"],
        "submissions" => vec![
            "id",
            "language_id",
            "problem_id",
            "team_id",
            "time",
            "contest_time",
            "entry_point",
        ],
        "judgements" => vec![
            "id",
            "submission_id",
            "judgement_type_id",
            "score",
            "start_time",
            "start_contest_time",
            "end_time",
            "end_contest_time",
            "max_run_time",
        ],
        "runs" => vec![
            "id",
            "judgement_id",
            "ordinal",
            "judgement_type_id",
            "time",
            "contest_time",
            "run_time",
        ],
        "clarifications" => vec![
            "id",
            "from_team_id",
            "to_team_id",
            "reply_to_id",
            "problem_id",
            "text",
            "time",
            "contest_time",
        ],
        "awards" => vec!["id", "citation", "team_ids"],
        _ => vec![],
    };
    match ty {
        "contest" => {
            if !ioi {
                p.push("penalty_time");
            }
            if freeze {
                p.push("scoreboard_freeze_duration");
            }
        }
        "problems" if ioi => p.push("max_score"),
        "state" if freeze => p.extend(["frozen", "thawed"]),
        "submissions" => p.push("files"),
        _ => {}
    }
    let (added, removed) = version::access_changes(v, ty);
    p.retain(|k| !removed.contains(k));
    p.extend(added);
    p
}

async fn access(
    State(app): State<Arc<App>>,
    Extension(v): Extension<Version>,
    Reader(user): Reader,
    Path(cid): Path<String>,
) -> Result<Json<Value>, AppError> {
    let c = find(&app, &cid)?;
    let role = Role::of(user.as_ref());
    let endpoints: Vec<Value> = model::TYPES
        .iter()
        .filter(|t| **t != "accounts" || role != Role::Public)
        .map(|t| json!({"type": t, "properties": properties(t, &c, v)}))
        .collect();
    // What the caller may change (see `write`).
    let capabilities: Vec<&str> = match (&role, v) {
        (Role::Public, _) => vec![],
        (Role::Team(_), Version::V2023) => vec!["team_submit", "team_clar"],
        (Role::Team(_), Version::V2026) => vec!["team_submit", "post_clar"],
        (Role::Admin, Version::V2023) => vec!["contest_start"],
        (Role::Admin, Version::V2026) => vec!["contest_start", "post_clar"],
    };
    Ok(Json(
        json!({"capabilities": capabilities, "endpoints": endpoints}),
    ))
}

async fn account(
    State(app): State<Arc<App>>,
    Extension(v): Extension<Version>,
    Reader(user): Reader,
    Path(cid): Path<String>,
) -> Result<Json<Value>, AppError> {
    let Some(u) = user else {
        return Err(AppError::NotFound(
            "no account: the request carries no token".into(),
        ));
    };
    let (_, _, snap) = snapshot(&app, &cid, Some(&u), v).await?;
    let id = model::team_id(&u.name);
    let found = snap
        .collection("accounts")
        .into_iter()
        .find(|a| a["id"] == id.as_str());
    Ok(Json(found.unwrap_or_else(|| {
        json!({"id": id, "username": u.name, "name": u.name, "type": if u.admin { "admin" } else { "team" }})
    })))
}

/// The awards once a director finalized the contest (empty before), the same for every role.
async fn awards(
    State(app): State<Arc<App>>,
    Extension(v): Extension<Version>,
    Reader(user): Reader,
    Path(cid): Path<String>,
) -> Result<Json<Vec<Value>>, AppError> {
    let (_, _, snap) = snapshot(&app, &cid, user.as_ref(), v).await?;
    Ok(Json(snap.collection("awards")))
}

async fn award(
    State(app): State<Arc<App>>,
    Extension(v): Extension<Version>,
    Reader(user): Reader,
    Path((cid, id)): Path<(String, String)>,
) -> Result<Json<Value>, AppError> {
    let (_, _, snap) = snapshot(&app, &cid, user.as_ref(), v).await?;
    snap.collection("awards")
        .into_iter()
        .find(|a| a["id"] == id.as_str())
        .map(Json)
        .ok_or_else(|| AppError::NotFound(format!("no award {id:?}")))
}

fn known(collection: &str, role: &Role) -> Result<(), AppError> {
    if !COLLECTIONS.contains(&collection) {
        return Err(AppError::NotFound(format!("no endpoint {collection:?}")));
    }
    if collection == "accounts" && *role == Role::Public {
        return Err(AppError::Unauthorized);
    }
    Ok(())
}

/// The properties of type ID (other than `id`) a collection can be filtered on
/// (`?team_id=alice`; an empty value matches null).
const FILTERS: [&str; 10] = [
    "team_id",
    "problem_id",
    "language_id",
    "submission_id",
    "judgement_id",
    "judgement_type_id",
    "from_team_id",
    "to_team_id",
    "reply_to_id",
    "organization_id",
];

/// Whether `o` passes every filter of `query`.
fn passes(o: &Value, query: &HashMap<String, String>) -> bool {
    query
        .iter()
        .filter(|(k, _)| FILTERS.contains(&k.as_str()))
        .all(|(k, want)| match o.get(k) {
            None | Some(Value::Null) => want.is_empty(),
            Some(v) => v.as_str() == Some(want.as_str()),
        })
}

async fn collection(
    State(app): State<Arc<App>>,
    Extension(v): Extension<Version>,
    Reader(user): Reader,
    Path((cid, collection)): Path<(String, String)>,
    Query(query): Query<HashMap<String, String>>,
) -> Result<Json<Vec<Value>>, AppError> {
    known(&collection, &Role::of(user.as_ref()))?;
    let (_, _, snap) = snapshot(&app, &cid, user.as_ref(), v).await?;
    let all = snap.collection(&collection);
    Ok(Json(
        all.into_iter().filter(|o| passes(o, &query)).collect(),
    ))
}

async fn object(
    State(app): State<Arc<App>>,
    Extension(v): Extension<Version>,
    Reader(user): Reader,
    Path((cid, collection, id)): Path<(String, String, String)>,
) -> Result<Json<Value>, AppError> {
    known(&collection, &Role::of(user.as_ref()))?;
    let (_, _, snap) = snapshot(&app, &cid, user.as_ref(), v).await?;
    snap.collection(&collection)
        .into_iter()
        .find(|o| o["id"] == id.as_str())
        .map(Json)
        .ok_or_else(|| AppError::NotFound(format!("no {collection} {id:?} in contest {cid:?}")))
}

/// A submission's source as the standard's zip (one file, named as the language names it).
async fn files(
    State(app): State<Arc<App>>,
    Extension(v): Extension<Version>,
    Reader(user): Reader,
    Path((cid, id)): Path<(String, String)>,
) -> Result<Response, AppError> {
    let (_, _, snap) = snapshot(&app, &cid, user.as_ref(), v).await?;
    let own = |s: &Value| {
        user.as_ref()
            .is_some_and(|u| u.admin || s["team_id"] == model::team_id(&u.name).as_str())
    };
    let visible = snap
        .collection("submissions")
        .into_iter()
        .any(|s| s["id"] == id.as_str() && own(&s));
    let sid: i64 = id.parse().unwrap_or(-1);
    if !visible {
        return Err(AppError::NotFound(format!(
            "no files of submission {id:?} for you"
        )));
    }
    let sub = app
        .node
        .ccs_source(sid)
        .await?
        .ok_or_else(|| AppError::NotFound(format!("no submission {id:?}")))?;
    // Whose it is, by the user name: team ids are derived, and two users' may match.
    if !user.as_ref().is_some_and(|u| u.admin || u.name == sub.user) {
        return Err(AppError::NotFound(format!(
            "no files of submission {id:?} for you"
        )));
    }
    let name = app
        .node
        .config()
        .languages
        .get(&sub.language)
        .map_or_else(|| "main.txt".to_string(), |l| l.source.clone());
    let mut out = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut out);
        let opts = zip::write::SimpleFileOptions::default()
            .compression_method(zip::CompressionMethod::Deflated);
        let io = |e: std::io::Error| AppError::Internal(e.to_string());
        zip.start_file(name, opts)
            .map_err(|e| AppError::Internal(e.to_string()))?;
        std::io::Write::write_all(&mut zip, &sub.source).map_err(io)?;
        zip.finish()
            .map_err(|e| AppError::Internal(e.to_string()))?;
    }
    Ok((
        [
            (header::CONTENT_TYPE, "application/zip".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"submission-{sid}.zip\""),
            ),
        ],
        out.into_inner(),
    )
        .into_response())
}
