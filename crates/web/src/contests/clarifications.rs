//! Clarifications: a participant's questions (general, technical, or about a problem), the
//! admins' answers (to the asker or to everyone), announcements (to everyone or one team,
//! about the contest or one problem), a jury member's claim on a question, and which of them
//! a viewer may read.
//!
//! Rules: only participants ask (and only they get the form); before the start a question
//! cannot name a problem (whether a name is in the contest is not told until then); a
//! participant asks at most [`ASK_LIMIT`] questions per [`ASK_WINDOW_MS`] in a contest; a
//! re-answer keeps every earlier answer (the store's history) and keeps the question's
//! visibility unless `public` is given again.

use std::sync::Arc;

use serde::Deserialize;

use super::find;
use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_service::contest::Contest;
use ojd_service::contest::Phase;
use ojd_service::contest::{Category, Participants};
use ojd_service::{now_ms, AskLimit, Clarification, NewQuestion};

/// The clarifications `viewer` may read (the one policy's rule,
/// [`ojd_service::clarifications_seen`]).
pub(crate) fn visible_clarifications(
    all: Vec<Clarification>,
    viewer: Option<&User>,
) -> Vec<Clarification> {
    ojd_service::clarifications_seen(all, User::viewer(viewer))
}

#[derive(Deserialize)]
pub(crate) struct AskBody {
    pub(crate) problem: Option<String>,
    pub(crate) text: String,
    /// A question's category: "general" (the default) or "technical"; a question naming a
    /// problem is about that problem.
    #[serde(default)]
    pub(crate) category: Option<String>,
    /// An announcement to this one team (a user name) instead of everyone.
    #[serde(default)]
    pub(crate) team: Option<String>,
    /// An announcement to these teams too (user names).
    #[serde(default)]
    pub(crate) teams: Vec<String>,
    /// An announcement to the teams of these groups (names) too.
    #[serde(default)]
    pub(crate) groups: Vec<String>,
}

/// The category of a question: "technical" when asked so, else "problem" when it names one,
/// else "general".
fn category(body: &AskBody, problem: Option<&str>) -> Result<&'static str, AppError> {
    match body.category.as_deref().map(str::trim) {
        Some("technical") => Ok("technical"),
        None | Some("") | Some("general") | Some("problem") => Ok(if problem.is_some() {
            "problem"
        } else {
            "general"
        }),
        Some(other) => Err(AppError::BadRequest(format!(
            "field `category`: expected \"general\" or \"technical\" (or name a `problem`), found {other:?}"
        ))),
    }
}

/// The canned answers the answer form offers (a director picks one instead of typing).
pub(crate) const CANNED: &[&str] = &[
    "No comment.",
    "Yes.",
    "No.",
    "Read the problem statement carefully.",
    "The statement answers this.",
    "This is a technical issue: a staff member is coming to your seat.",
];

/// Questions one participant may ask in one contest per [`ASK_WINDOW_MS`].
pub(crate) const ASK_LIMIT: usize = 5;
pub(crate) const ASK_WINDOW_MS: i64 = 10 * 60_000;

/// Validates a clarification's text and problem (a label or a problem id of the contest).
/// Before the start only admins may name a problem, and the refusal is the same whether the
/// name is in the contest or not.
fn check_text(c: &Contest, body: &AskBody, admin: bool) -> Result<Option<String>, AppError> {
    let named = body
        .problem
        .as_deref()
        .is_some_and(|p| !p.trim().is_empty());
    if named && !admin && c.phase(now_ms()) == Phase::Before {
        return Err(AppError::BadRequest(
            "field `problem`: the contest has not started; ask about the contest in general".into(),
        ));
    }
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
    let problem = check_text(&c, &body, user.admin)?;
    let kind = category(&body, problem.as_deref())?;
    let question = NewQuestion {
        user: Some(user.name.clone()),
        problem,
        category: kind.to_string(),
        to_user: None,
        to_more: Vec::new(),
        to_groups: Vec::new(),
        text: body.text.trim().to_string(),
    };
    // Admins ask without a limit (the jury's own questions).
    let limit = (!user.admin).then_some(AskLimit {
        questions: ASK_LIMIT,
        window_ms: ASK_WINDOW_MS,
    });
    Ok(app
        .node
        .add_clarification(c.id.clone(), question, limit)
        .await?)
}

/// An announcement to every participant, or to some: `team`, `teams` (user names) and the
/// teams of `groups` (names; a group's teams when it is sent); about the contest or one problem
/// (`problem`); returns its id.
pub(crate) async fn announce(
    app: &Arc<App>,
    admin: &User,
    id: &str,
    body: AskBody,
) -> Result<i64, AppError> {
    let c = find(app, id)?;
    let problem = check_text(&c, &body, true)?;
    let mut teams: Vec<String> = Vec::new();
    let named = body.team.iter().chain(&body.teams);
    for t in named.map(|t| t.trim()).filter(|t| !t.is_empty()) {
        if !teams.iter().any(|x| x == t) {
            teams.push(t.to_string());
        }
    }
    for t in &teams {
        // A team of the roster or of the listed participants; in an open contest without
        // either, a user who took part (submitted or asked): an announcement to nobody is
        // refused, never published.
        let known = match c.team(t) {
            Some(x) => x.category == Category::Participant && c.admits(t),
            None if matches!(c.participants, Participants::Listed(_)) => c.admits(t),
            None => app.node.took_part(c.id.clone(), t.clone()).await?,
        };
        if !known {
            let field = if body.team.as_deref().map(str::trim) == Some(t) {
                "team"
            } else {
                "teams"
            };
            return Err(AppError::BadRequest(format!(
                "field `{field}`: {t:?} is not a team of contest {id:?}"
            )));
        }
    }
    let mut groups: Vec<String> = Vec::new();
    for g in body
        .groups
        .iter()
        .map(|g| g.trim())
        .filter(|g| !g.is_empty())
    {
        let members: Vec<&str> = (c.teams.iter())
            .filter(|t| t.category == Category::Participant && t.groups().contains(&g))
            .map(|t| t.user.as_str())
            .collect();
        if members.is_empty() {
            return Err(AppError::BadRequest(format!(
                "field `groups`: {g:?} is no group of a team of contest {id:?}"
            )));
        }
        for u in members {
            if !teams.iter().any(|x| x == u) {
                teams.push(u.to_string());
            }
        }
        if !groups.iter().any(|x| x == g) {
            groups.push(g.to_string());
        }
    }
    let kind = if problem.is_some() {
        "problem"
    } else {
        "general"
    };
    let to = match (&teams[..], &groups[..]) {
        ([], []) => "everyone".to_string(),
        ([one], []) => format!("team {one}"),
        (_, []) => format!("teams {}", teams.join(", ")),
        _ => format!("groups {} (teams {})", groups.join(", "), teams.join(", ")),
    };
    let mut recipients = teams.into_iter();
    let announcement = NewQuestion {
        user: None,
        problem,
        category: kind.to_string(),
        to_user: recipients.next(),
        to_more: recipients.collect(),
        to_groups: groups,
        text: body.text.trim().to_string(),
    };
    let cid = c.id.clone();
    let made = app
        .node
        .add_clarification(c.id.clone(), announcement, None)
        .await?;
    let detail = format!("announcement {made} to {to}");
    super::controls::note(app, &admin.name, "announce", Some(&cid), detail).await;
    Ok(made)
}

/// Writes `detail` about clarification `id` to the audit log, under its contest.
async fn audit(app: &Arc<App>, admin: &User, action: &str, id: i64, detail: String) {
    let contest = match app.node.clarification_contest(id).await {
        Ok(c) => c,
        Err(e) => {
            AppError::from(e).log_if_internal();
            None
        }
    };
    super::controls::note(app, &admin.name, action, contest.as_deref(), detail).await;
}

/// Claims question `id` for `admin` (`claim`), so the other jury members see who answers it,
/// or releases it (any jury member may). Refused (409) while another holds it.
pub(crate) async fn claim(
    app: &Arc<App>,
    admin: &User,
    id: i64,
    claim: bool,
) -> Result<(), AppError> {
    let by = claim.then(|| admin.name.clone());
    let r = app.node.claim_clarification(id, by).await?;
    match r {
        None => Err(AppError::NotFound(format!("no question {id}"))),
        Some(Some(holder)) => Err(AppError::Conflict(format!(
            "question {id} is claimed by {holder}: they answer it (release it first to take it over)"
        ))),
        Some(None) => {
            let (action, what) = if claim {
                ("claim", "claimed")
            } else {
                ("release", "released")
            };
            audit(app, admin, action, id, format!("question {id} {what}")).await;
            Ok(())
        }
    }
}

#[derive(Deserialize)]
pub(crate) struct AnswerBody {
    pub(crate) answer: String,
    /// true: everyone sees the question and the answer; false: only its asker. Not given: a
    /// first answer goes to the asker only, a re-answer keeps the question's visibility.
    #[serde(default)]
    pub(crate) public: Option<bool>,
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
    // Without `public`, the last answer says how the question stands (none: private).
    let ok = app
        .node
        .answer_clarification(id, text.clone(), body.public, admin.name.clone())
        .await?;
    if let Some(public) = ok {
        let to = if public { "everyone" } else { "its asker" };
        let detail = format!("question {id} answered to {to}: {text}");
        audit(app, admin, "answer", id, detail).await;
        Ok(())
    } else {
        Err(AppError::NotFound(format!("no question {id}")))
    }
}
