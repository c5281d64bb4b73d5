//! The visibility policy: what one viewer may see of a problem and a submission. The JSON API,
//! the event stream and the pages all ask this module, so a rule changes in one place.
//!
//! - Statements are public unless `public_statements = false`; then a login is needed.
//! - A student sees only their own submissions; another's is "not found", so ids reveal
//!   nothing. Admins see every submission.
//! - On a secret test a student sees the verdict, time and memory; the diff, the checker's
//!   message and the program's stderr only where `show_secret_diffs` or
//!   `show_secret_diffs_for` allows. Samples always show everything.
//! - A judge error's cause and the sandbox's isolation warnings are for admins; students are
//!   told the failure is not theirs.
//! - A problem of a contest that has not started does not exist for anyone but admins: its
//!   statement, tests, submit form, list entries and any submission of it are "not found" on
//!   every path (API, pages, event stream, source download). [`problem_visible`] is the rule;
//!   [`visible_problem`] and [`visible_submission`] apply it.

use std::sync::Arc;

use serde::Serialize;

use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_judge::{TestResult, Verdict};
use ojd_service::contest::{Feedback, Phase};
use ojd_service::{Catalog, Entry};
use ojd_store::VerdictOverride;
use ojd_store::{State as SubState, SubmissionDetail, SubmissionInfo};

/// Whether `user` may read submissions made by `owner`.
fn may_see(user: &User, owner: &str) -> bool {
    user.admin || user.name == owner
}

/// Whether `user` (`None`: not logged in) may know of `problem` at all: the union of the
/// contests that hold it. A problem in no contest is visible; one in contests is visible as soon
/// as any of them has started, so adding a future contest that reuses a problem never takes it
/// away from a running (or finished) one. Admins see everything.
pub(crate) fn problem_visible(app: &App, problem: &str, user: Option<&User>) -> bool {
    if user.is_some_and(|u| u.admin) {
        return true;
    }
    let now = ojd_store::now_ms();
    let loaded = app.contests.get();
    let mut holders = loaded
        .contests
        .iter()
        .filter(|c| c.label_of(problem).is_some())
        .peekable();
    holders.peek().is_none() || holders.any(|c| c.phase(now) != Phase::Before)
}

/// Statements are public unless `public_statements = false` (then a login is needed).
pub(crate) fn may_read_statements(app: &App, user: Option<&User>) -> Result<(), AppError> {
    if app.config.server.public_statements || user.is_some() {
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

/// Whether `user` may see diffs and details of `problem`'s secret tests.
pub(crate) fn shows_secrets(app: &App, problem: &str, user: &User) -> bool {
    let s = &app.config.server;
    user.admin || s.show_secret_diffs || s.show_secret_diffs_for.iter().any(|p| p == problem)
}

/// A test result as `show_secrets` allows it to be seen.
pub(crate) fn redact(t: &TestResult, show_secrets: bool) -> TestResult {
    if t.sample || show_secrets {
        return t.clone();
    }
    let message = match t.verdict {
        // These carry answer text or the program's stderr, which may echo the secret input.
        Verdict::WrongAnswer => "wrong answer (details of secret tests are hidden)".to_string(),
        Verdict::RuntimeError => t
            .message
            .split("; stderr:")
            .next()
            .unwrap_or_default()
            .to_string(),
        Verdict::JudgeError => "the judge failed on this test (not your fault)".to_string(),
        _ => t.message.clone(),
    };
    TestResult {
        diff: None,
        message,
        ..t.clone()
    }
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
    /// Whether the viewer is an admin (the feedback policy never applies then).
    #[serde(skip)]
    pub(crate) admin: bool,
}

/// The feedback policy `viewer` sees a submission made for `contest` under: the contest's
/// (`feedback` in its `contest.toml`) for a participant, everything for admins and practice.
pub(crate) fn feedback_for(app: &App, contest: Option<&str>, viewer: &User) -> Feedback {
    if viewer.admin {
        return Feedback::All;
    }
    policy_of(app, contest)
}

/// The feedback policy of the contest `contest` (everything for practice or an unknown one).
fn policy_of(app: &App, contest: Option<&str>) -> Feedback {
    let Some(id) = contest else {
        return Feedback::All;
    };
    app.contests
        .get()
        .contests
        .iter()
        .find(|c| c.id == id)
        .map_or(Feedback::All, |c| c.feedback)
}

/// The test results `policy` shows, in order (already redacted by [`redact`]): none for
/// `verdict`; up to and including the first failing one, without a hidden test's diff, for
/// `first_failure`; all for `all`.
pub(crate) fn apply_feedback(policy: Feedback, tests: Vec<TestResult>) -> Vec<TestResult> {
    match policy {
        Feedback::All => tests,
        Feedback::Verdict => Vec::new(),
        Feedback::FirstFailure => {
            let end = tests
                .iter()
                .position(|t| t.verdict != Verdict::Accepted)
                .map_or(tests.len(), |i| i + 1);
            tests
                .into_iter()
                .take(end)
                .map(|t| TestResult {
                    diff: if t.sample { t.diff } else { None },
                    ..t
                })
                .collect()
        }
    }
}

pub(crate) fn view(app: &App, mut d: SubmissionDetail, viewer: &User) -> SubmissionView {
    let show = shows_secrets(app, &d.info.problem, viewer);
    if !viewer.admin {
        // Which machine judged it is the operators' business.
        d.info.judged_by = None;
    }
    let source = String::from_utf8(d.source).ok();
    SubmissionView {
        verdict_name: d.info.verdict.map(Verdict::name),
        url: format!("/submissions/{}", d.info.id),
        source,
        compile_output: d.compile_output,
        judge_message: (viewer.admin && !d.message.is_empty()).then_some(d.message),
        warnings: if viewer.admin { d.warnings } else { Vec::new() },
        tests: d.tests.iter().map(|t| redact(t, show)).collect(),
        partial: d.partial,
        own: viewer.name == d.info.user,
        admin: viewer.admin,
        feedback: None,
        contest: None,
        override_: None,
        judged_verdict: None,
        info: d.info,
    }
}

/// `v` with the contest it was made through and the jury's verdict, if any.
pub(crate) async fn with_contest(
    app: &Arc<App>,
    mut v: SubmissionView,
) -> Result<SubmissionView, AppError> {
    let id = v.info.id;
    let (contest, over) = app
        .db(move |s| Ok((s.contest_of(id)?, s.overrides_of(&[id])?)))
        .await?;
    v.contest = contest;
    if !v.admin {
        let policy = policy_of(app, v.contest.as_deref());
        if policy != Feedback::All {
            v.tests = apply_feedback(policy, std::mem::take(&mut v.tests));
            v.feedback = Some(policy);
        }
    }
    if let Some(o) = over.into_iter().next() {
        v.judged_verdict = v.info.verdict;
        v.info.verdict = Some(o.verdict);
        v.verdict_name = Some(o.verdict.name());
        v.override_ = Some(o);
    }
    Ok(v)
}

/// `rows` with the contest each was made through.
pub(crate) async fn with_contests(
    app: &Arc<App>,
    mut rows: Vec<SummaryView>,
) -> Result<Vec<SummaryView>, AppError> {
    let ids: Vec<i64> = rows.iter().map(|r| r.info.id).collect();
    let (found, overrides) = app
        .db(move |s| Ok((s.contests_of(&ids)?, s.overrides_of(&ids)?)))
        .await?;
    let by_id: std::collections::HashMap<i64, String> = found.into_iter().collect();
    let over: std::collections::HashMap<i64, Verdict> = overrides
        .into_iter()
        .map(|o| (o.submission, o.verdict))
        .collect();
    let catalog = app.catalog();
    for r in &mut rows {
        r.contest = by_id.get(&r.info.id).cloned();
        let grouped = catalog
            .get(&r.info.problem)
            .is_some_and(|e| !e.problem.groups.is_empty());
        let scored = !matches!(
            r.info.verdict,
            None | Some(Verdict::CompileError | Verdict::JudgeError)
        );
        r.points = r.info.score_milli.filter(|_| grouped && scored);
        if let Some(&v) = over.get(&r.info.id) {
            // The jury's verdict is the one that counts (the judge's points do not).
            r.info.verdict = Some(v);
            r.points = None;
            r.verdict_name = Some(v.name());
        }
    }
    Ok(rows)
}

/// A row of a submissions list.
#[derive(Serialize)]
pub(crate) struct SummaryView {
    #[serde(flatten)]
    pub(crate) info: SubmissionInfo,
    pub(crate) verdict_name: Option<&'static str>,
    pub(crate) url: String,
    /// The contest it was made through (`None`: practice); see [`with_contests`].
    pub(crate) contest: Option<String>,
    /// The exact points (thousandths) the list shows beside the verdict: set by
    /// [`with_contests`] for a problem scored by groups, as its page shows them.
    #[serde(skip)]
    pub(crate) points: Option<u64>,
}

pub(crate) fn summary(info: SubmissionInfo) -> SummaryView {
    SummaryView {
        verdict_name: info.verdict.map(Verdict::name),
        url: format!("/submissions/{}", info.id),
        contest: None,
        points: None,
        info,
    }
}

/// Reads a submission the viewer may see; another user's is "not found".
pub(crate) async fn visible_submission(
    app: &Arc<App>,
    id: i64,
    user: &User,
) -> Result<SubmissionDetail, AppError> {
    let d = app.db(move |s| s.get(id)).await?;
    match d {
        Some(d)
            if may_see(user, &d.info.user) && problem_visible(app, &d.info.problem, Some(user)) =>
        {
            Ok(d)
        }
        _ => Err(AppError::NotFound(format!("no submission {id}"))),
    }
}

/// Whether a submission's judging is over.
pub(crate) fn is_done(info: &SubmissionInfo) -> bool {
    info.state == SubState::Done
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(sample: bool, verdict: Verdict, message: &str) -> TestResult {
        TestResult {
            name: "t".into(),
            sample,
            verdict,
            cpu_ms: 1,
            wall_ms: 1,
            memory_kib: 1,
            exit: None,
            message: message.into(),
            diff: None,
        }
    }

    #[test]
    fn secret_details_are_hidden_unless_allowed() {
        let cases = [
            (
                false,
                Verdict::WrongAnswer,
                "expected 5",
                false,
                "wrong answer (details of secret tests are hidden)",
            ),
            (
                false,
                Verdict::RuntimeError,
                "exit 3; stderr: secret",
                false,
                "exit 3",
            ),
            (
                false,
                Verdict::JudgeError,
                "checker crashed",
                false,
                "the judge failed on this test (not your fault)",
            ),
            (
                false,
                Verdict::WrongAnswer,
                "expected 5",
                true,
                "expected 5",
            ),
            (
                true,
                Verdict::WrongAnswer,
                "expected 5",
                false,
                "expected 5",
            ),
        ];
        for (sample, verdict, message, show, want) in cases {
            assert_eq!(
                redact(&result(sample, verdict, message), show).message,
                want
            );
        }
    }

    #[test]
    fn the_feedback_policy_keeps_what_it_allows() {
        let diff = || ojd_judge::Diff {
            line: 1,
            column: 1,
            lines: Vec::new(),
            trimmed: false,
        };
        let named = |name: &str, sample: bool, verdict: Verdict| TestResult {
            name: name.into(),
            diff: Some(diff()),
            ..result(sample, verdict, "m")
        };
        let tests = vec![
            named("s", true, Verdict::WrongAnswer),
            named("a", false, Verdict::Accepted),
            named("b", false, Verdict::WrongAnswer),
            named("c", false, Verdict::Accepted),
        ];
        let names = |t: &[TestResult]| t.iter().map(|t| t.name.clone()).collect::<Vec<_>>();
        assert_eq!(
            names(&apply_feedback(Feedback::All, tests.clone())),
            ["s", "a", "b", "c"]
        );
        assert!(apply_feedback(Feedback::Verdict, tests.clone()).is_empty());
        // The first failure is the sample: it alone, with its diff (a sample's is public).
        let first = apply_feedback(Feedback::FirstFailure, tests.clone());
        assert_eq!(names(&first), ["s"]);
        assert!(first[0].diff.is_some());
        // The first failure is hidden: up to it, with its message and without its diff.
        let first = apply_feedback(Feedback::FirstFailure, tests[1..].to_vec());
        assert_eq!(names(&first), ["a", "b"]);
        assert!(first.iter().all(|t| t.diff.is_none()));
        assert_eq!(first[1].message, "m");
        // No failure: every test.
        let passed = apply_feedback(
            Feedback::FirstFailure,
            vec![tests[1].clone(), tests[3].clone()],
        );
        assert_eq!(names(&passed), ["a", "c"]);
    }

    #[test]
    fn only_admins_and_authors_see_a_submission() {
        let alice = User {
            name: "alice".into(),
            admin: false,
        };
        let root = User {
            name: "root".into(),
            admin: true,
        };
        assert!(may_see(&alice, "alice") && !may_see(&alice, "bob") && may_see(&root, "bob"));
    }
}
