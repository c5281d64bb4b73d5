//! What team clients and a director change through the Contest API (the standard's
//! capabilities `team_submit`, `post_clar`/`team_clar`, `contest_start`), by the same code and
//! so with the same authorization, checks, limits and rate limits as ojd's own `/api/v1` and
//! pages:
//!
//! - `POST contests/<id>/submissions`: `{problem_id, language_id, files: [{data}], entry_point?,
//!   team_id?}` from a team (`data`: the base64 of a zip holding the one source file);
//! - `POST contests/<id>/clarifications`: a team's question `{text, problem_id?,
//!   from_team_id?}`, or an admin's announcement (to everyone, or to the teams of
//!   `to_team_id`/`to_team_ids` and the teams of `to_group_ids`) or answer (`reply_to_id`: to
//!   its asker when `to_team_id(s)` names them, else to everyone);
//! - `PATCH contests/<id>`: an admin's new `start_time` before the start (it must be in the
//!   future); `null` (a countdown paused with no start) is refused: ojd's contests always have
//!   a start.
//!
//! Each answers 201 (200 for the PATCH) with the object as a `GET` then answers, and a
//! `Location`; every refusal is a 4xx naming the property.

use std::io::Read;
use std::sync::Arc;

use axum::extract::{Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::{Extension, Json};
use serde_json::{Map, Value};

use super::basic::{decode, Reader};
use super::model::team_id;
use super::version::Version;
use crate::contests::clarifications::{self, AnswerBody, AskBody};
use crate::contests::find;
use crate::error::AppError;
use crate::submit::{idempotency_key, SubmitForm, IDEMPOTENCY_KEY};
use crate::user::User;
use crate::App;

fn body_object(body: &Value) -> Result<&Map<String, Value>, AppError> {
    body.as_object()
        .ok_or_else(|| AppError::BadRequest("the body is not a JSON object".into()))
}

/// Refuses each of `keys` that `o` gives (a null counts as not given, as the standard says).
fn absent(o: &Map<String, Value>, keys: &[&str], why: &str) -> Result<(), AppError> {
    for k in keys {
        if o.get(*k).is_some_and(|v| !v.is_null()) {
            return Err(AppError::BadRequest(format!(
                "property `{k}` must not be given {why}"
            )));
        }
    }
    Ok(())
}

fn string<'a>(o: &'a Map<String, Value>, k: &str) -> Result<Option<&'a str>, AppError> {
    match o.get(k) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(other) => Err(AppError::BadRequest(format!(
            "property `{k}`: expected a string, found {other}"
        ))),
    }
}

fn required<'a>(o: &'a Map<String, Value>, k: &str) -> Result<&'a str, AppError> {
    string(o, k)?.ok_or_else(|| AppError::BadRequest(format!("property `{k}` is required")))
}

/// The user behind the request: none is a 401.
fn caller(user: Option<User>) -> Result<User, AppError> {
    user.ok_or(AppError::Unauthorized)
}

/// A team's `team_id`/`from_team_id`, when given, is its own.
fn own_team(o: &Map<String, Value>, k: &str, user: &User) -> Result<(), AppError> {
    match string(o, k)? {
        Some(id) if id != team_id(&user.name) => Err(AppError::Forbidden(format!(
            "property `{k}`: {id:?} is not your team (you are {:?})",
            team_id(&user.name)
        ))),
        _ => Ok(()),
    }
}

/// The one source file of a submission's `files`: its name and text.
fn source_of(o: &Map<String, Value>, limit: usize) -> Result<(String, String), AppError> {
    let files = o.get("files").and_then(Value::as_array).ok_or_else(|| {
        AppError::BadRequest("property `files` is required: a list of one zip".into())
    })?;
    let [file] = files.as_slice() else {
        return Err(AppError::BadRequest(format!(
            "property `files`: {} entries; expected one (a zip of the source)",
            files.len()
        )));
    };
    if let Some(mime) = file.get("mime").and_then(Value::as_str) {
        if mime != "application/zip" {
            return Err(AppError::BadRequest(format!(
                "property `files[0].mime`: {mime:?}; only application/zip is taken"
            )));
        }
    }
    let data = file.get("data").and_then(Value::as_str).ok_or_else(|| {
        AppError::BadRequest("property `files[0].data` is required: the zip in base64".into())
    })?;
    let zip = decode(data.trim())
        .ok_or_else(|| AppError::BadRequest("property `files[0].data` is not base64".into()))?;
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(zip))
        .map_err(|e| AppError::BadRequest(format!("property `files[0].data`: not a zip: {e}")))?;
    let names: Vec<usize> = (0..archive.len())
        .filter(|i| archive.by_index(*i).is_ok_and(|f| f.is_file()))
        .collect();
    let [only] = names.as_slice() else {
        return Err(AppError::BadRequest(format!(
            "property `files[0].data`: the zip holds {} files; ojd takes a submission of one source file",
            names.len()
        )));
    };
    let mut f = archive
        .by_index(*only)
        .map_err(|e| AppError::BadRequest(format!("property `files[0].data`: {e}")))?;
    let name = f
        .enclosed_name()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .ok_or_else(|| {
            AppError::BadRequest(
                "property `files[0].data`: the file's name is not a plain name".into(),
            )
        })?;
    // Read one byte past the limit: a zip that inflates beyond it is refused, not read whole.
    let mut bytes = Vec::new();
    (&mut f)
        .take(limit as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| AppError::BadRequest(format!("property `files[0].data`: {e}")))?;
    if bytes.len() > limit {
        return Err(AppError::TooLarge(format!(
            "{name}: over the submission limit of {limit} bytes"
        )));
    }
    let text = String::from_utf8(bytes)
        .map_err(|_| AppError::BadRequest(format!("{name}: the source is not UTF-8 text")))?;
    Ok((name, text))
}

/// The object of `ty` with id `id` as `user` reads it now, in `v`'s shape.
async fn read_back(
    app: &Arc<App>,
    v: Version,
    cid: &str,
    user: &User,
    ty: &str,
    id: &str,
) -> Result<Value, AppError> {
    let (_, _, snap) = super::snapshot(app, cid, Some(user), v).await?;
    Ok(snap
        .collection(ty)
        .into_iter()
        .find(|o| o["id"] == id)
        .unwrap_or_else(|| serde_json::json!({ "id": id })))
}

/// The answer to a write: 201 with the object made, or 200 with the one an earlier request
/// with the same `Idempotency-Key` made (`fresh` false); `Location` names it either way.
fn created(v: Version, cid: &str, ty: &str, id: &str, object: Value, fresh: bool) -> Response {
    let url = format!("{}/contests/{cid}/{ty}/{id}", v.base());
    let status = if fresh {
        StatusCode::CREATED
    } else {
        StatusCode::OK
    };
    (status, [(header::LOCATION, url)], Json(object)).into_response()
}

/// `POST contests/<id>/<collection>`: submissions and clarifications; nothing else is taken.
/// With an `Idempotency-Key` header (as `/api/v1/submissions` takes it), a retry with the same
/// key and body is answered with what the first made (200), and the key with another body is
/// 409.
pub(crate) async fn post(
    State(app): State<Arc<App>>,
    Extension(v): Extension<Version>,
    Reader(user): Reader,
    Path((cid, collection)): Path<(String, String)>,
    headers: HeaderMap,
    Json(body): Json<Value>,
) -> Result<Response, AppError> {
    let key = match headers.get(IDEMPOTENCY_KEY) {
        Some(k) => Some(idempotency_key("header Idempotency-Key", k.as_bytes())?),
        None => None,
    };
    match collection.as_str() {
        "submissions" => post_submission(app, v, user, cid, body, key).await,
        "clarifications" => post_clarification(app, v, user, cid, body, key).await,
        _ => Err(AppError::MethodNotAllowed),
    }
}

/// `POST contests/<id>/submissions`.
async fn post_submission(
    app: Arc<App>,
    v: Version,
    user: Option<User>,
    cid: String,
    body: Value,
    key: Option<String>,
) -> Result<Response, AppError> {
    let user = caller(user)?;
    let o = body_object(&body)?;
    absent(
        o,
        &["id", "time", "contest_time"],
        "by a team client (the server sets them)",
    )?;
    own_team(o, "team_id", &user)?;
    absent(o, &["entry_point"], "(no language of ojd needs one)")?;
    let problem = required(o, "problem_id")?.to_string();
    let language = required(o, "language_id")?.to_string();
    let limit = app.node.config().server.max_submission_size.bytes() as usize;
    let (filename, source) = source_of(o, limit)?;
    let form = SubmitForm {
        problem,
        language: Some(language),
        source,
        filename: Some(filename),
        contest: Some(cid.clone()),
        file: None,
        // Kept with the submission's row (the store compares a retry's source, problem and
        // language with the first's), as `/api/v1/submissions` keeps it.
        idempotency_key: key,
    };
    let done = crate::submit::accept_once(&app, &user, form).await?;
    let id = done.id.to_string();
    let object = read_back(&app, v, &cid, &user, "submissions", &id).await?;
    Ok(created(v, &cid, "submissions", &id, object, done.fresh))
}

/// `POST contests/<id>/clarifications`.
async fn post_clarification(
    app: Arc<App>,
    v: Version,
    user: Option<User>,
    cid: String,
    body: Value,
    key: Option<String>,
) -> Result<Response, AppError> {
    let user = caller(user)?;
    // A keyed retry: the same contest and body get the first answer (the body's keys come
    // sorted, so equal JSON is equal bytes).
    let ticket = match key {
        None => None,
        Some(key) => {
            let what = format!("{cid}\n{body}");
            match app.once.begin(&user.name, &key, what.as_bytes())? {
                ojd_service::Begun::New(t) => Some(t),
                ojd_service::Begun::Done(id) => {
                    let object = read_back(&app, v, &cid, &user, "clarifications", &id).await?;
                    return Ok(created(v, &cid, "clarifications", &id, object, false));
                }
            }
        }
    };
    // Made by a task of its own, which keeps the key until the write is done: a client that
    // gives up (and will retry) does not cancel it half way and free the key for a second.
    let made = tokio::spawn(write_clarification(
        app.clone(),
        user.clone(),
        cid.clone(),
        body,
        ticket,
    ));
    let id = made
        .await
        .map_err(|e| AppError::Internal(format!("a clarification's write stopped: {e}")))??;
    let object = read_back(&app, v, &cid, &user, "clarifications", &id).await?;
    Ok(created(v, &cid, "clarifications", &id, object, true))
}

/// Asks, answers or announces as `body` says; returns the clarification's id, kept for its
/// idempotency key (`ticket`) once made.
async fn write_clarification(
    app: Arc<App>,
    user: User,
    cid: String,
    body: Value,
    ticket: Option<ojd_service::Ticket>,
) -> Result<String, AppError> {
    let o = body_object(&body)?;
    absent(o, &["id", "time", "contest_time"], "(the server sets them)")?;
    let text = required(o, "text")?.to_string();
    let problem = string(o, "problem_id")?.map(str::to_string);
    // The recipients: 2023-06's `to_team_id`, 2026-01's `to_team_ids` (and `to_group_ids`).
    let mut to: Vec<String> = string(o, "to_team_id")?
        .map(str::to_string)
        .into_iter()
        .collect();
    match o.get("to_team_ids") {
        None | Some(Value::Null) => {}
        Some(Value::Array(a)) => {
            for t in a {
                let t = t.as_str().ok_or_else(|| {
                    AppError::BadRequest("property `to_team_ids`: expected a list of ids".into())
                })?;
                to.push(t.to_string());
            }
        }
        Some(other) => {
            return Err(AppError::BadRequest(format!(
                "property `to_team_ids`: expected a list of ids, found {other}"
            )))
        }
    }
    let id = if !user.admin {
        absent(
            o,
            &["to_team_id", "to_team_ids", "to_group_ids", "reply_to_id"],
            "by a team (a team asks the judges)",
        )?;
        own_team(o, "from_team_id", &user)?;
        let ask = AskBody {
            problem,
            text,
            category: None,
            team: None,
            teams: Vec::new(),
            groups: Vec::new(),
        };
        clarifications::ask(&app, &user, &cid, ask)
            .await?
            .to_string()
    } else {
        absent(o, &["from_team_id"], "by the judges")?;
        let mut group_ids: Vec<String> = Vec::new();
        match o.get("to_group_ids") {
            None | Some(Value::Null) => {}
            Some(Value::Array(a)) => {
                for g in a {
                    let g = g.as_str().ok_or_else(|| {
                        AppError::BadRequest(
                            "property `to_group_ids`: expected a list of ids".into(),
                        )
                    })?;
                    group_ids.push(g.to_string());
                }
            }
            Some(other) => {
                return Err(AppError::BadRequest(format!(
                    "property `to_group_ids`: expected a list of ids, found {other}"
                )))
            }
        }
        let c = find(&app, &cid)?;
        let roster = ojd_service::ccs::directory(&c);
        let user_of = |tid: &str| -> Result<String, AppError> {
            roster
                .teams
                .iter()
                .find(|t| t.object["id"] == tid)
                .map(|t| t.user.clone())
                .ok_or_else(|| {
                    AppError::BadRequest(format!("property `to_team_ids`: no team {tid:?}"))
                })
        };
        match string(o, "reply_to_id")? {
            Some(q) => {
                let qid: i64 = q.parse().map_err(|_| {
                    AppError::BadRequest(format!("property `reply_to_id`: no question {q:?}"))
                })?;
                if to.len() > 1 || !group_ids.is_empty() {
                    return Err(AppError::BadRequest(
                        "property `to_team_ids`: an answer goes to its asker or to everyone".into(),
                    ));
                }
                let public = Some(to.is_empty());
                if let Some(t) = to.first() {
                    user_of(t)?;
                }
                let answer = AnswerBody {
                    answer: text,
                    public,
                };
                clarifications::answer(&app, &user, qid, answer).await?;
                // Each reply is its own object: this one is the question's latest.
                let answers = app.node.answer_histories(vec![qid]).await?;
                let n = answers.get(&qid).map_or(1, Vec::len);
                ojd_service::ccs::reply_id(qid, n)
            }
            None => {
                let teams = to.iter().map(|t| user_of(t)).collect::<Result<_, _>>()?;
                // A group's name, as the roster (and the web's form) names it.
                let mut groups = Vec::new();
                for g in &group_ids {
                    let found = roster.groups.iter().find(|x| x["id"] == g.as_str());
                    let name = found.and_then(|x| x["name"].as_str().or(x["id"].as_str()));
                    let name = name.ok_or_else(|| {
                        AppError::BadRequest(format!("property `to_group_ids`: no group {g:?}"))
                    })?;
                    groups.push(name.to_string());
                }
                let announce = AskBody {
                    problem,
                    text,
                    category: None,
                    team: None,
                    teams,
                    groups,
                };
                clarifications::announce(&app, &user, &cid, announce)
                    .await?
                    .to_string()
            }
        }
    };
    if let Some(t) = ticket {
        t.finish(&id);
    }
    Ok(id)
}

/// A CLICS TIME, whose offset may be given as hours only (`+01`): (Unix ms, offset seconds).
fn parse_time(s: &str) -> Option<(i64, i32)> {
    let t = s.trim();
    let b = t.as_bytes();
    let short = b.len() > 3
        && matches!(b[b.len() - 3], b'+' | b'-')
        && b[b.len() - 2..].iter().all(u8::is_ascii_digit);
    let full = if short {
        format!("{t}:00")
    } else {
        t.to_string()
    };
    ojd_service::contest::parse_start(&full)
}

/// `PATCH contests/<id>`: an admin sets the start time.
pub(crate) async fn patch_contest(
    State(app): State<Arc<App>>,
    Extension(v): Extension<Version>,
    Reader(user): Reader,
    Path(cid): Path<String>,
    Json(body): Json<Value>,
) -> Result<Response, AppError> {
    let user = caller(user)?;
    if !user.admin {
        return Err(AppError::Forbidden(
            "only an admin may change a contest's start".into(),
        ));
    }
    let o = body_object(&body)?;
    if let Some(id) = string(o, "id")? {
        if id != cid {
            return Err(AppError::BadRequest(format!(
                "property `id`: {id:?} is not this contest ({cid:?})"
            )));
        }
    }
    for k in o.keys() {
        if !["id", "start_time", "countdown_pause_time"].contains(&k.as_str()) {
            return Err(AppError::BadRequest(format!(
                "property `{k}`: only `start_time` can be changed"
            )));
        }
    }
    absent(
        o,
        &["countdown_pause_time"],
        "(ojd has no paused countdown)",
    )?;
    let text = match o.get("start_time") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Null) => return Err(AppError::BadRequest(
            "property `start_time`: null (no start) is refused: an ojd contest always has a start"
                .into(),
        )),
        _ => {
            return Err(AppError::BadRequest(
                "property `start_time` is required: a TIME".into(),
            ))
        }
    };
    let (start, offset) = parse_time(&text).ok_or_else(|| {
        AppError::BadRequest(format!("property `start_time`: {text:?} is not a TIME"))
    })?;
    let c = find(&app, &cid)?;
    let now = ojd_service::now_ms();
    if c.start_ms <= now {
        return Err(AppError::Conflict(format!(
            "contest {cid:?} has started: its start cannot change"
        )));
    }
    if start <= now {
        return Err(AppError::BadRequest(format!(
            "property `start_time`: {text:?} is not in the future"
        )));
    }
    crate::contests::results::refuse_if_final(&c, "changing its clock")?;
    let clock = ojd_service::contest::clock::Clock {
        start_ms: start,
        duration: c.duration,
        freeze: c.freeze,
    };
    let problems = app.node.config().server.problems.clone();
    let dir = c.dir.clone();
    let written = tokio::task::spawn_blocking(move || {
        ojd_service::contest::clock::rewrite(&dir, &problems, &clock, offset)
    })
    .await
    .map_err(|e| AppError::Internal(format!("the clock change stopped: {e}")))?
    .map_err(|e| AppError::Internal(format!("contest {cid:?} could not be rewritten: {e}")))?;
    app.contests.reload(app.node.config());
    let detail = format!(
        "start set to {} through the Contest API",
        ojd_service::contest::format_time(written.start_ms, written.utc_offset_s)
    );
    crate::contests::controls::note(&app, &user.name, "clock", Some(&cid), detail.clone()).await;
    crate::log(&format!("contest {cid}: {detail} (by {})", user.name));
    let c = find(&app, &cid)?;
    Ok(Json(super::version::adapt(
        v,
        "contest",
        super::model::contest_object(&c),
    ))
    .into_response())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn times_with_an_hours_only_offset_are_read() {
        assert_eq!(parse_time("1970-01-01T01:00:00.000+01"), Some((0, 3600)));
        assert_eq!(parse_time("1970-01-01T00:00:01Z"), Some((1000, 0)));
        assert_eq!(parse_time("yesterday"), None);
    }
}
