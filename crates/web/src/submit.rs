//! A submission as it arrives, from the JSON API, its multipart upload or a web form
//! ([`SubmitForm`]), checked and queued by [`accept`]: the contest's rules when made through a
//! contest, the problem's visibility, one source (pasted or a file), the size limit, the
//! language (given, or told from the file's name), the judge's own checks and the rate limit.
//! The service inserts it ([`ojd_service::Node::submit`]), committed before its id is
//! returned, once per idempotency key, or answers 503 with nothing stored when the database
//! does not take it in seconds. Also the languages a submission may be in, as the pages and
//! the API offer them, and the bound on a request's waits for the database.

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use axum::extract::{Multipart, Request};
use axum::http::{Method, StatusCode};
use axum::middleware::Next;
use axum::response::Response;
use serde::{Deserialize, Serialize};

use crate::error::AppError;
use crate::user::User;
use crate::view::problem_visible;
use crate::App;
use ojd_judge::Submission;
use ojd_service::{NewEntry, Refusal, Submitted};

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
            reason: l.as_ref().err().map(ToString::to_string),
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
    /// The client's idempotency key (the `Idempotency-Key` header, or a form's field
    /// `idempotency_key`).
    #[serde(skip)]
    pub(crate) idempotency_key: Option<String>,
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
            "idempotency_key" if !text.is_empty() => {
                form.idempotency_key =
                    Some(idempotency_key("field `idempotency_key`", text.as_bytes())?)
            }
            _ => {}
        }
    }
    Ok(())
}

/// Validates and queues a submission; returns its id (the first one's, when its idempotency
/// key named one made before).
pub(crate) async fn accept(app: &Arc<App>, user: &User, form: SubmitForm) -> Result<i64, AppError> {
    Ok(accept_once(app, user, form).await?.id)
}

/// [`accept`], saying whether the submission was queued now (`fresh`) or its idempotency key
/// named one made before.
pub(crate) async fn accept_once(
    app: &Arc<App>,
    user: &User,
    form: SubmitForm,
) -> Result<Submitted, AppError> {
    let result = accept_inner(app, user, form).await;
    if matches!(&result, Err(e) if e.status().is_client_error()) {
        app.node.metrics().rejected.fetch_add(1, Ordering::Relaxed);
    }
    result
}

async fn accept_inner(
    app: &Arc<App>,
    user: &User,
    form: SubmitForm,
) -> Result<Submitted, AppError> {
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
    app.node.check_submission(&sub).map_err(|e| match e {
        Refusal::NotText { .. } => AppError::BadRequest(format!(
            "{e}: a compiled program is submitted with the language \"binary\" (field `language`)"
        )),
        Refusal::Judge(m) => AppError::BadRequest(m),
    })?;
    let ranked = contest.clone().filter(|_| !jury);
    let entry = NewEntry {
        user: user.name.clone(),
        problem: form.problem,
        language: sub.language,
        source: sub.source,
        contest,
        jury,
        key: form.idempotency_key,
    };
    if let Err(limited) = app.limiter.check(user) {
        // A retry of a submission that was stored is answered with it, limit or not.
        return match app.node.submitted_under(entry).await? {
            Some(first) => Ok(first),
            None => Err(limited),
        };
    }
    let done = app.node.submit(entry).await?;
    if let (Some(c), true) = (&ranked, done.fresh) {
        // A new pending attempt on the standings.
        app.contests.submitted(c);
    }
    Ok(done)
}

/// The request header by which a client names a submission, so that a retry of it (after an
/// answer that never came, or a 503) returns the first instead of queueing a second.
pub(crate) const IDEMPOTENCY_KEY: &str = "idempotency-key";

/// A new idempotency key for a submit form (its hidden field `idempotency_key`): 128 random
/// bits in hex. The form sent twice (a double click, a reload of the POST, a retry after a
/// 503 or an answer that never came) is then one submission, the first. Keys are unique per
/// user only, so a key need not be secret: without `/dev/urandom`, the clock in nanoseconds
/// and the process id.
pub(crate) fn form_key() -> String {
    use std::io::Read;
    let mut bytes = [0u8; 16];
    let read = std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes));
    if read.is_err() {
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        return format!("{nanos:x}-{:x}", std::process::id());
    }
    ojd_judge::hex_encode(&bytes)
}

/// An idempotency key as given (header or form field `name`): 1 to 255 visible ASCII
/// characters.
pub(crate) fn idempotency_key(name: &str, value: &[u8]) -> Result<String, AppError> {
    let ok = (1..=255).contains(&value.len()) && value.iter().all(|b| b.is_ascii_graphic());
    match std::str::from_utf8(value) {
        Ok(key) if ok => Ok(key.to_string()),
        _ => Err(AppError::BadRequest(format!(
            "{name}: an idempotency key is 1 to 255 visible ASCII characters (letters, digits, punctuation)"
        ))),
    }
}

/// How long each store operation of a page or of a submission's POST may keep it waiting: a
/// hung database answers 503 in seconds (the pages' reads) rather than never.
pub(crate) const PAGE_DB_WAIT: std::time::Duration = std::time::Duration::from_secs(3);

/// The middleware bounding a request's waits for the database ([`PAGE_DB_WAIT`]): every
/// read-only request (but the live streams, whose reads come and go) and the submission
/// forms, whose one write [`ojd_service::Node::submit`] bounds and gates itself. Every other
/// write first asks the node whether its database answers
/// ([`ojd_service::Node::database_answers`]): while it hangs or is down, a clear 503 within
/// seconds, and nothing started; once it answers, its store operations get
/// [`ojd_service::WRITE_WAIT`] in all, past which (or past `[web] request_timeout`) nothing of
/// it commits any more ([`ojd_service::writing_within`]).
pub(crate) async fn bounded_db_waits(
    axum::extract::State(app): axum::extract::State<Arc<App>>,
    req: Request,
    next: Next,
) -> Response {
    let path = req.uri().path();
    let read = matches!(*req.method(), Method::GET | Method::HEAD) && !path.ends_with("/events");
    let submits = *req.method() == Method::POST
        && (path == "/api/v1/submissions" || path.ends_with("/submit"));
    if read || submits {
        return ojd_service::answering_within(PAGE_DB_WAIT, next.run(req)).await;
    }
    let write = !matches!(*req.method(), Method::GET | Method::HEAD | Method::OPTIONS);
    if write {
        if let Err(e) = app.node.database_answers().await {
            let e = AppError::from(e);
            // No user is looked up for the page: that would wait for the database too.
            return if path.starts_with("/api/") {
                axum::response::IntoResponse::into_response(e)
            } else {
                axum::response::IntoResponse::into_response(crate::html::PageError(e, None))
            };
        }
        // A package's upload or reload may rightly take long (its body, its compiles; a
        // contest package's whole history in one transaction).
        if !path.contains("/problems") && !path.starts_with("/admin/contests/import") {
            return ojd_service::writing_within(ojd_service::WRITE_WAIT, next.run(req)).await;
        }
    }
    next.run(req).await
}
