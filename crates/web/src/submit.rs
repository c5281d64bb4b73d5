//! A submission as it arrives, from the JSON API, its multipart upload or a web form
//! ([`SubmitForm`]), checked and queued by [`accept`]: the contest's rules when made through a
//! contest, the problem's visibility, one source (pasted or a file), the size limit, the
//! language (given, or told from the file's name), the judge's own checks and the rate limit.
//! The service inserts it ([`ojd_service::Node::submit`]), committed before its id is returned. Also the languages a
//! submission may be in, as the pages and the API offer them.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::extract::Multipart;
use axum::http::StatusCode;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::user::User;
use crate::view::problem_visible;
use crate::App;
use ojd_judge::{JudgeError, Submission};
use ojd_service::NewEntry;

#[derive(Serialize)]
pub(crate) struct LanguageView {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) available: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) reason: Option<String>,
    /// Multiplies a problem's time limit for this language.
    pub(crate) time_factor: f64,
    /// Bytes added to a problem's memory limit for this language (its `memory_extra`).
    pub(crate) memory_extra: u64,
}

pub(crate) fn language_views(app: &App) -> Vec<LanguageView> {
    app.node
        .judge()
        .languages()
        .iter()
        .map(|(id, l)| LanguageView {
            id: id.clone(),
            name: app
                .node
                .config()
                .languages
                .get(id)
                .map(|c| c.name.clone())
                .unwrap_or_else(|| id.clone()),
            available: l.is_ok(),
            reason: l.as_ref().err().cloned(),
            time_factor: app
                .node
                .config()
                .languages
                .get(id)
                .map_or(1.0, |c| c.time_factor),
            memory_extra: app
                .node
                .config()
                .languages
                .get(id)
                .map_or(0, |c| c.memory_extra.bytes()),
        })
        .collect()
}

/// A language's display name (its id when the config has no name for it).
pub(crate) fn language_name(app: &App, id: &str) -> String {
    app.node
        .config()
        .languages
        .get(id)
        .map_or_else(|| id.to_string(), |l| l.name.clone())
}

/// A submission as it arrives, from JSON, the API's multipart upload or the web form.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct SubmitForm {
    pub(crate) problem: String,
    #[serde(default)]
    pub(crate) language: Option<String>,
    #[serde(default)]
    pub(crate) source: String,
    #[serde(default)]
    pub(crate) filename: Option<String>,
    /// The contest it is made through (its rules apply and it counts on its standings).
    #[serde(default)]
    pub(crate) contest: Option<String>,
    /// A file upload (multipart only); wins over `source` when not empty.
    #[serde(skip)]
    pub(crate) file: Option<Vec<u8>>,
}

pub(crate) fn too_large(app: &App) -> AppError {
    AppError::TooLarge(format!(
        "the submission is over the limit of {}",
        app.node.config().server.max_submission_size
    ))
}

/// Reads a multipart body: fields `problem`, `language`, `source` and a `file` upload.
pub(crate) async fn read_multipart(
    app: &App,
    mut mp: Multipart,
    form: &mut SubmitForm,
) -> Result<(), AppError> {
    let bad = |e: axum::extract::multipart::MultipartError| {
        if e.status() == StatusCode::PAYLOAD_TOO_LARGE {
            too_large(app)
        } else {
            AppError::BadRequest(format!("bad form data: {}", e.body_text()))
        }
    };
    while let Some(field) = mp.next_field().await.map_err(bad)? {
        let name = field.name().unwrap_or_default().to_string();
        if name == "file" {
            let filename = field.file_name().map(str::to_string);
            let data = field.bytes().await.map_err(bad)?;
            if !data.is_empty() {
                form.filename = filename;
                form.file = Some(data.to_vec());
            }
            continue;
        }
        let text = field.text().await.map_err(bad)?;
        match name.as_str() {
            "problem" => form.problem = text,
            "language" => form.language = Some(text),
            "source" => form.source = text,
            "contest" => form.contest = Some(text).filter(|c| !c.is_empty()),
            "filename" => form.filename = Some(text),
            _ => {}
        }
    }
    Ok(())
}

/// Validates and queues a submission; returns its id.
pub(crate) async fn accept(app: &Arc<App>, user: &User, form: SubmitForm) -> Result<i64, AppError> {
    let result = accept_inner(app, user, form).await;
    if matches!(&result, Err(e) if e.status().is_client_error()) {
        app.node.metrics().rejected.fetch_add(1, Ordering::Relaxed);
    }
    result
}

async fn accept_inner(app: &Arc<App>, user: &User, form: SubmitForm) -> Result<i64, AppError> {
    let catalog = app.node.catalog();
    if form.problem.is_empty() {
        return Err(AppError::BadRequest("missing field `problem`".into()));
    }
    // Through a contest: its rules first (they say when it starts). Outside any, a
    // participant's submission of a running contest's problem counts for that contest.
    let mut contest = form.contest.clone().filter(|c| !c.is_empty());
    match &contest {
        Some(c) => crate::contests::admit(app, user, c, &form.problem)?,
        None => {
            contest = crate::contests::running_for(app, user, &form.problem).map(|c| c.id.clone())
        }
    }
    // An admin's submission through a contest is the jury's: never ranked.
    let jury = user.admin;
    if catalog.get(&form.problem).is_none() || !problem_visible(app, &form.problem, Some(user)) {
        return Err(AppError::NotFound(format!("no problem {:?}", form.problem)));
    }
    let pasted = !form.source.trim().is_empty();
    let uploaded = form.file.is_some();
    let source = match form.file {
        Some(_) if pasted => {
            return Err(AppError::BadRequest(
                "you chose a file and also pasted text: submit one of them (clear the text box or the file)".into(),
            ))
        }
        Some(bytes) => bytes,
        None => form.source.into_bytes(),
    };
    if source.iter().all(u8::is_ascii_whitespace) {
        return Err(AppError::BadRequest("the submission is empty".into()));
    }
    if ojd_judge::is_bundle(&source) {
        // ojd's own encoding of a folder of sources: the judge would take it apart into
        // several files, which a page or the API never builds (one source, one file).
        return Err(AppError::BadRequest(format!(
            "the {} starts with a NUL byte and \"ojd-files\", ojd's encoding of a submission of several files: \
             a submission here is one source file (submit a folder of sources with `ojd judge` or in a package)",
            if uploaded { "uploaded file" } else { "field `source`" }
        )));
    }
    if source.len() as u64 > app.node.config().server.max_submission_size.bytes() {
        return Err(too_large(app));
    }
    let language = match form.language.as_deref().map(str::trim) {
        Some(l) if !l.is_empty() && l != "auto" => l.to_string(),
        _ => {
            let name = form.filename.as_deref().unwrap_or("");
            app.node.judge().detect_language(Path::new(name), &source).ok_or_else(|| {
                AppError::BadRequest(if name.is_empty() {
                    "choose the language of your program: it cannot be told from pasted text (field `language`)".into()
                } else {
                    format!("choose the language of your program: the file name {name:?} does not tell it (field `language`)")
                })
            })?
        }
    };
    let sub = Submission { language, source };
    app.node
        .judge()
        .check_submission(&sub)
        .map_err(|e| match e {
            // The judge's wording is for the command line; say it in the API's terms.
            JudgeError::BadSubmission(m) => AppError::BadRequest(m.replace(
                "submit executables with --lang binary",
                "a compiled program is submitted with the language \"binary\"",
            )),
            other => AppError::BadRequest(other.to_string()),
        })?;
    app.limiter.check(user)?;
    let ranked = contest.clone().filter(|_| !jury);
    let id = app
        .node
        .submit(NewEntry {
            user: user.name.clone(),
            problem: form.problem,
            language: sub.language,
            source: sub.source,
            contest,
            jury,
        })
        .await?;
    if let Some(c) = &ranked {
        // A new pending attempt on the standings.
        app.contests.submitted(c);
    }
    Ok(id)
}
