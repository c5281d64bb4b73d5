//! Clarifications: a participant's questions, the admins' answers (to the asker or to
//! everyone) and announcements, and which of them a viewer may read.

use std::sync::Arc;

use serde::Deserialize;

use super::find;
use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_service::contest::model::Contest;
use ojd_store::contests::Clarification;
use ojd_store::now_ms;

/// The clarifications `viewer` may read: public ones and their own (admins: all).
pub(crate) fn visible_clarifications(
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

#[derive(Deserialize)]
pub(crate) struct AskBody {
    pub(crate) problem: Option<String>,
    pub(crate) text: String,
}

/// Validates a clarification's text and problem (a label or a problem id of the contest).
fn check_text(c: &Contest, body: &AskBody) -> Result<Option<String>, AppError> {
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

/// A participant's question to the admins; returns its id.
pub(crate) async fn ask(
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

/// An announcement to every participant; returns its id.
pub(crate) async fn announce(app: &Arc<App>, id: &str, body: AskBody) -> Result<i64, AppError> {
    let c = find(app, id)?;
    let problem = check_text(&c, &body)?;
    let text = body.text.trim().to_string();
    app.db(move |s| s.add_clarification(&c.id, None, problem.as_deref(), &text, now_ms()))
        .await
}

#[derive(Deserialize)]
pub(crate) struct AnswerBody {
    pub(crate) answer: String,
    /// true: everyone sees the question and the answer; false: only its asker.
    #[serde(default)]
    pub(crate) public: bool,
}

/// An admin's answer to question `id`, to its asker or (`public`) to everyone.
pub(crate) async fn answer(
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
