//! What a viewer may see, as the web asks it: the statements' rule (public unless
//! `public_statements = false`), and submissions as the service's one visibility policy
//! ([`ojd_service::Policy`]) shapes them, turned into the API's JSON and the pages' data. No
//! rule about a submission is written here: the service applies them all, once, for the JSON
//! API, the pages and the event stream alike.

use std::sync::Arc;

use serde::Serialize;

use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_judge::{TestResult, Verdict};
use ojd_service::contest::{Contest, Feedback};
use ojd_service::{Catalog, Entry, Policy, Seen, SeenRow};
use ojd_service::{SubmissionInfo, VerdictOverride};

/// The policy's inputs now: the server's settings and the contests as loaded now (the
/// registry's `Loaded::contests`; passed as a slice so that this module needs nothing of
/// `contests`, which builds on it).
pub(crate) fn policy<'a>(app: &'a App, contests: &'a [Arc<Contest>]) -> Policy<'a> {
    Policy {
        server: &app.node.config().server,
        contests,
        now_ms: ojd_service::now_ms(),
    }
}

/// Whether `user` (`None`: not logged in) may know of `problem` at all (see
/// [`Policy::problem_visible`]).
pub(crate) fn problem_visible(app: &App, problem: &str, user: Option<&User>) -> bool {
    let loaded = app.contests.get();
    policy(app, &loaded.contests).problem_visible(problem, User::viewer(user))
}

/// Statements are public unless `public_statements = false` (then a login is needed).
pub(crate) fn may_read_statements(app: &App, user: Option<&User>) -> Result<(), AppError> {
    if app.node.config().server.public_statements || user.is_some() {
        Ok(())
    } else {
        Err(AppError::Unauthorized)
    }
}

/// The problem `id` of `catalog`, or the 404 a request for an unknown problem gets.
pub(crate) fn find_problem<'a>(catalog: &'a Catalog, id: &str) -> Result<&'a Entry, AppError> {
    catalog
        .get(id)
        .ok_or_else(|| AppError::NotFound(format!("no problem {id:?}")))
}

/// Checks that `user` may read `problem`'s statement and tests: statements are public unless
/// `public_statements = false` (then a login is needed), and a hidden problem is "not found".
pub(crate) fn visible_problem(
    app: &App,
    problem: &str,
    user: Option<&User>,
) -> Result<(), AppError> {
    may_read_statements(app, user)?;
    if !problem_visible(app, problem, user) {
        return Err(AppError::NotFound(format!("no problem {problem:?}")));
    }
    Ok(())
}

/// A submission as one viewer may see it (the API's JSON and the pages' data).
#[derive(Serialize)]
pub(crate) struct SubmissionView {
    #[serde(flatten)]
    pub(crate) info: SubmissionInfo,
    pub(crate) verdict_name: Option<&'static str>,
    /// The source when it is text; binaries are described by `source_bytes` only.
    pub(crate) source: Option<String>,
    pub(crate) compile_output: String,
    /// Why the judge failed (admins only).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) judge_message: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub(crate) warnings: Vec<String>,
    pub(crate) tests: Vec<TestResult>,
    pub(crate) url: String,
    /// The contest it was made through (`None`: practice); see [`with_contest`].
    pub(crate) contest: Option<String>,
    /// The jury's verdict over the judge's, with its reason (`verdict` is then the jury's and
    /// `judged_verdict` the judge's).
    #[serde(rename = "override", skip_serializing_if = "Option::is_none")]
    pub(crate) override_: Option<VerdictOverride>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) judged_verdict: Option<Verdict>,
    /// What the contest's feedback policy lets this viewer see (absent: everything).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) feedback: Option<Feedback>,
    /// Tests that earned part of their credit (the page's points per group).
    #[serde(skip)]
    pub(crate) partial: std::collections::BTreeMap<String, u32>,
    /// Whether the viewer is the author (pages say "your output" only then).
    #[serde(skip)]
    pub(crate) own: bool,
}

/// The API's and the pages' data of a submission as the service shows it to this viewer.
fn view(s: Seen) -> SubmissionView {
    SubmissionView {
        verdict_name: s.info.verdict.map(Verdict::name),
        url: format!("/submissions/{}", s.info.id),
        source: String::from_utf8(s.source).ok(),
        compile_output: s.compile_output,
        judge_message: s.judge_message,
        warnings: s.warnings,
        tests: s.tests,
        partial: s.partial,
        own: s.sight.own,
        feedback: s.feedback,
        contest: s.contest,
        judged_verdict: s.judged_verdict,
        override_: s.override_,
        info: s.info,
    }
}

/// Submission `id` as `user` may see it; another user's is "not found".
pub(crate) async fn seen(app: &Arc<App>, id: i64, user: &User) -> Result<Seen, AppError> {
    let loaded = app.contests.get();
    app.node
        .seen(id, user.as_viewer(), policy(app, &loaded.contests))
        .await?
        .ok_or_else(|| AppError::NotFound(format!("no submission {id}")))
}

/// Submission `id` as `user` may see it, as the API and the pages show it.
pub(crate) async fn visible_submission(
    app: &Arc<App>,
    id: i64,
    user: &User,
) -> Result<SubmissionView, AppError> {
    Ok(view(seen(app, id, user).await?))
}

/// A row of a submissions list.
#[derive(Serialize)]
pub(crate) struct SummaryView {
    #[serde(flatten)]
    pub(crate) info: SubmissionInfo,
    pub(crate) verdict_name: Option<&'static str>,
    pub(crate) url: String,
    /// The contest it was made through (`None`: practice).
    pub(crate) contest: Option<String>,
    /// The exact points (thousandths) the list shows beside the verdict, for a problem scored
    /// by groups, as its page shows them.
    #[serde(skip)]
    pub(crate) points: Option<u64>,
}

pub(crate) fn summary(r: SeenRow) -> SummaryView {
    SummaryView {
        verdict_name: r.info.verdict.map(Verdict::name),
        url: format!("/submissions/{}", r.info.id),
        contest: r.contest,
        points: r.points,
        info: r.info,
    }
}
