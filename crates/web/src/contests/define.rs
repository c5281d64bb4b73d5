//! A director creates a contest or edits its definition (title, problems with their labels and
//! colours, scoring, penalty, compile errors, participants, public standings) on the web or
//! through the API. Every field is checked ([`Draft::check`], an error naming each bad field);
//! the result is written as the contest's `contest.toml` (the file stays the truth: a new
//! folder, or the old file with those keys and its `[[problem]]` tables replaced, comments and
//! the rest kept), loaded back to be sure, the contests reloaded and the standings recomputed,
//! and the change audited with what changed.
//!
//! An edit that recomputes the standings of a contest that has started (problems, scoring,
//! penalty, compile errors, participants), or that removes a problem which already has
//! submissions in the contest, is refused with 409 naming what would change until it is sent
//! again with `confirm`. A finalized contest's definition is final.

use std::sync::Arc;

use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_service::contest::edit::{self, Draft, FieldError};
use ojd_service::contest::{Contest, ContestError, Phase};
use ojd_service::now_ms;

/// Why a definition was not saved.
#[derive(Debug)]
pub(crate) enum Refusal {
    /// Fields refused (400), each named.
    Fields(Vec<FieldError>),
    /// What would change, to be confirmed (409).
    Confirm(Vec<String>),
    /// Anything else (404, 409 finalized, 500).
    Other(AppError),
}

impl From<AppError> for Refusal {
    fn from(e: AppError) -> Refusal {
        Refusal::Other(e)
    }
}

impl Refusal {
    /// As an API error: the fields or the changes in its message.
    pub(crate) fn into_app_error(self, id: &str) -> AppError {
        match self {
            Refusal::Fields(errors) => AppError::BadRequest(
                errors
                    .iter()
                    .map(ToString::to_string)
                    .collect::<Vec<_>>()
                    .join("\n"),
            ),
            Refusal::Confirm(changes) => AppError::Conflict(confirm_message(id, &changes)),
            Refusal::Other(e) => e,
        }
    }
}

/// What a director is asked before an edit that needs confirming.
pub(crate) fn confirm_message(id: &str, changes: &[String]) -> String {
    format!(
        "contest {id:?}: confirm this change (send \"confirm\": true); the standings are \
         recomputed for everyone: {}",
        changes.join("; ")
    )
}

/// Creates contest `id` from `draft` as `admin` asked; returns it as loaded.
pub(crate) async fn create(
    app: &Arc<App>,
    admin: &User,
    id: &str,
    draft: &Draft,
) -> Result<Arc<Contest>, Refusal> {
    let root = app.node.config().server.contests.clone();
    let problems = app.node.config().server.problems.clone();
    let mut errors = Vec::new();
    if !edit::valid_id(id) {
        errors.push(FieldError {
            field: "id".into(),
            message: format!(
                "{id:?} cannot name a contest (1 to 64 letters, digits, '.', '_' or '-', not \
                 starting with '.')"
            ),
        });
    } else if root.join(id).exists() || app.contests.get().get(id).is_some() {
        errors.push(FieldError {
            field: "id".into(),
            message: format!("contest {id:?} exists already"),
        });
    }
    errors.extend(draft.check(&problems, true));
    if !errors.is_empty() {
        return Err(Refusal::Fields(errors));
    }
    let (text, folder) = (draft.new_text(), id.to_string());
    tokio::task::spawn_blocking(move || -> Result<(), WriteError> {
        // Written aside, loaded, then renamed into place: a reload never sees half a contest.
        std::fs::create_dir_all(&root).map_err(|e| WriteError::io(root.display(), e))?;
        let staging = root.join(format!(".new-{folder}"));
        let _ = std::fs::remove_dir_all(&staging);
        std::fs::create_dir(&staging).map_err(|e| WriteError::io(staging.display(), e))?;
        let done = std::fs::write(staging.join("contest.toml"), &text)
            .map_err(|e| WriteError::io("write contest.toml", e))
            .and_then(|()| Ok(Contest::load(&staging, &problems).map(|_| ())?))
            .and_then(|()| {
                std::fs::rename(&staging, root.join(&folder))
                    .map_err(|e| WriteError::io(format_args!("put {folder} in place"), e))
            });
        if done.is_err() {
            let _ = std::fs::remove_dir_all(&staging);
        }
        done
    })
    .await
    .map_err(|e| AppError::Internal(format!("creating the contest stopped: {e}")))?
    .map_err(|e| AppError::Internal(format!("contest {id:?} could not be written: {e}")))?;
    app.contests.reload(app.node.config());
    let c = super::find(app, id)?;
    let detail = format!(
        "created contest {id:?} ({}, {}, {} problems: {})",
        c.title,
        draft.scoring,
        c.problems.len(),
        c.problems
            .iter()
            .map(|p| format!("{} {}", p.label, p.problem))
            .collect::<Vec<_>>()
            .join(", ")
    );
    super::controls::note(app, &admin.name, "contest-create", Some(id), detail.clone()).await;
    crate::log(&format!("admin {}: {detail}", admin.name));
    Ok(c)
}

/// What an edit did.
#[derive(Debug, serde::Serialize)]
pub(crate) struct Edited {
    pub(crate) contest: String,
    /// One line per change ("scoring: icpc → ioi", "problem C (knights) removed").
    pub(crate) changes: Vec<String>,
    /// Whether the standings were recomputed.
    pub(crate) recomputed: bool,
}

/// Edits contest `id`'s definition as `admin` asked (see the module's rules).
pub(crate) async fn update(
    app: &Arc<App>,
    admin: &User,
    id: &str,
    draft: &Draft,
    confirm: bool,
) -> Result<Edited, Refusal> {
    let c = super::find(app, id)?;
    super::finality::refuse_if_final(&c, "editing it")?;
    let problems = app.node.config().server.problems.clone();
    let errors = draft.check(&problems, false);
    if !errors.is_empty() {
        return Err(Refusal::Fields(errors));
    }
    let (changes, recompute) = edit::changes(&c, draft);
    if changes.is_empty() {
        return Ok(Edited {
            contest: id.to_string(),
            changes,
            recomputed: false,
        });
    }
    // Removing a problem that has submissions in the contest drops them from its standings.
    let removed = edit::removed(&c, draft);
    let subs = (app.node.contest_submissions(c.id.clone()).await).map_err(AppError::from)?;
    let mut asks: Vec<String> = Vec::new();
    for p in &removed {
        let n = subs.iter().filter(|s| s.problem == p.problem).count();
        if n > 0 {
            asks.push(format!(
                "problem {} ({}) is removed with its {n} submission(s), which no longer count",
                p.label, p.problem
            ));
        }
    }
    let started = c.phase(now_ms()) != Phase::Before;
    if ((started && recompute) || !asks.is_empty()) && !confirm {
        let mut lines = changes.clone();
        lines.extend(asks);
        if started && recompute {
            lines.push(format!(
                "the contest started at {}: its standings are recomputed",
                c.start_text()
            ));
        }
        return Err(Refusal::Confirm(lines));
    }
    let (dir, d) = (c.dir.clone(), draft.clone());
    tokio::task::spawn_blocking(move || -> Result<(), WriteError> {
        let file = dir.join("contest.toml");
        let old = std::fs::read_to_string(&file)
            .map_err(|e| WriteError::io(format_args!("{}: failed to read", file.display()), e))?;
        let tmp = dir.join(".contest.toml.new");
        std::fs::write(&tmp, d.edit_text(&old))
            .and_then(|()| std::fs::rename(&tmp, &file))
            .map_err(|e| WriteError::io(format_args!("{}: failed to write", file.display()), e))?;
        if let Err(e) = Contest::load(&dir, &problems) {
            let _ = std::fs::write(&file, &old);
            return Err(e.into());
        }
        Ok(())
    })
    .await
    .map_err(|e| AppError::Internal(format!("the edit stopped: {e}")))?
    .map_err(|e| AppError::Internal(format!("contest {id:?} could not be rewritten: {e}")))?;
    app.contests.reload(app.node.config());
    app.contests.invalidate();
    let detail = format!(
        "edited contest {id:?}: {}{}",
        changes.join("; "),
        if recompute {
            " (standings recomputed)"
        } else {
            ""
        }
    );
    super::controls::note(app, &admin.name, "contest-edit", Some(id), detail.clone()).await;
    crate::log(&format!("admin {}: {detail}", admin.name));
    Ok(Edited {
        contest: id.to_string(),
        changes,
        recomputed: recompute,
    })
}

/// Why a contest's file could not be written: the host's I/O, or a file that does not load
/// back (the draft's checks passed, so a bug or a change on disk meanwhile).
#[derive(Debug, thiserror::Error)]
enum WriteError {
    /// A file operation failed; `what` names the file or the step.
    #[error("{what}: {source}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    /// The file written does not load as a contest.
    #[error(transparent)]
    Load(#[from] ContestError),
}

impl WriteError {
    fn io(what: impl std::fmt::Display, source: std::io::Error) -> WriteError {
        WriteError::Io {
            what: what.to_string(),
            source,
        }
    }
}
