//! The submissions list with its filters, a submission's page (which `live.js` keeps up to
//! date over the API's event stream, then swaps in the server-rendered results), its source as
//! a download, and the admins' rejudge button.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::header;
use axum::response::{Html, IntoResponse, Redirect, Response};
use maud::{html, Markup};

use crate::auth::extract::MaybeUser;
use crate::error::AppError;
use crate::html::parts::{results, source_listing, submissions_table, time_el, GroupRow};
use crate::html::{need_login, page, PageError};
use crate::listing::{ListQuery, Owner};
use crate::rejudgings::{rejudge_now, Scope};
use crate::submit::{language_name, language_views};
use crate::view::{self, policy, problem_visible, summary, visible_submission};
use crate::App;
use ojd_judge::Verdict;

type PageResult = Result<Response, PageError>;

/// `GET /submissions`: a page of the list, filtered (students see only their own).
pub(crate) async fn submissions(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Query(q): Query<ListQuery>,
) -> PageResult {
    let user = need_login(user)?;
    let filter = q
        .filter(&app, &user, Owner::Lenient)
        .map_err(|e| PageError(e, Some(user.clone())))?;
    let loaded = app.contests.get();
    let seen = app
        .node
        .seen_rows(filter, user.as_viewer(), policy(&app, &loaded.contests))
        .await
        .map_err(|e| PageError(e.into(), Some(user.clone())))?;
    let (more, total) = (seen.has_more, seen.total);
    let next = seen.last_id.map(|id| q.with_before(id));
    let rows: Vec<_> = seen.rows.into_iter().map(summary).collect();
    let title = if user.admin {
        "All submissions"
    } else {
        "My submissions"
    };
    let catalog = app.node.catalog();
    let languages = language_views(&app);
    let lang = |id: &str| language_name(&app, id);
    let verdicts = [
        Verdict::Accepted,
        Verdict::WrongAnswer,
        Verdict::TimeLimitExceeded,
        Verdict::MemoryLimitExceeded,
        Verdict::OutputLimitExceeded,
        Verdict::RuntimeError,
        Verdict::CompileError,
        Verdict::JudgeError,
    ];
    let sel = |v: &Option<String>, x: &str| v.as_deref() == Some(x);
    let body = html! {
        h1 { (title) }
        form.filters method="get" action="/submissions" {
            @if user.admin {
                label { "User" input type="text" name="user" value=[q.user.as_deref()] size="10"; }
            }
            label { "Problem" select name="problem" {
                option value="" { "any" }
                @for pid in catalog.problems.keys().filter(|p| problem_visible(&app, p, Some(&user))) { option value=(pid) selected[sel(&q.problem, pid)] { (pid) } }
            } }
            label { "Verdict" select name="verdict" {
                option value="" { "any" }
                @for v in verdicts { option value=(v.code()) selected[sel(&q.verdict, v.code())] { (v.name()) } }
            } }
            label { "Language" select name="language" {
                option value="" { "any" }
                @for l in &languages { option value=(l.id) selected[sel(&q.language, &l.id)] { (l.name) } }
            } }
            button type="submit" { "Filter" }
        }
        (submissions_table(&rows, user.admin, &lang))
        p.pager {
            span.count { (total) " match" @if total != 1 { "es" } }
            @if q.before.is_some() { " " a.newest href={ "/submissions" (q.newest()) } { "← Newest" } }
            " "
            @if more { @if let Some(n) = &next { a.older href=(n) { "Older →" } } }
        }
    };
    Ok(Html(page(title, Some(&user), body)).into_response())
}

/// Test names of a problem, for the rows shown while judging, and whether it has groups.
fn test_names(app: &App, problem: &str) -> (Vec<(String, bool)>, bool) {
    app.node
        .catalog()
        .get(problem)
        .map(|e| {
            (
                e.problem
                    .tests
                    .iter()
                    .map(|t| (t.name.clone(), t.sample))
                    .collect(),
                !e.problem.groups.is_empty(),
            )
        })
        .unwrap_or_default()
}

/// The problem's scoring groups with the points this submission's tests earned in each.
fn group_rows(app: &App, v: &view::SubmissionView) -> Vec<GroupRow> {
    let catalog = app.node.catalog();
    let Some(e) = catalog.get(&v.info.problem) else {
        return Vec::new();
    };
    if v.feedback.is_some() {
        // The tests shown are not all the judged ones: the points per group would be wrong.
        return Vec::new();
    }
    let p = &e.problem;
    let earned = ojd_service::contest::standings::group_scores(p, &v.tests, &v.partial);
    p.groups
        .iter()
        .zip(earned)
        .map(|(g, earned)| GroupRow {
            name: g.name.clone(),
            earned,
            points: u64::from(g.points_milli),
        })
        .collect()
}

/// `GET /submissions/{id}`: the submission's page.
pub(crate) async fn submission(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<i64>,
) -> PageResult {
    let user = need_login(user)?;
    let v = visible_submission(&app, id, &user)
        .await
        .map_err(|e| PageError(e, Some(user.clone())))?;
    let title = app
        .node
        .catalog()
        .get(&v.info.problem)
        .map(|e| e.problem.title.clone())
        .unwrap_or_else(|| v.info.problem.clone());
    let (mut tests, groups) = test_names(&app, &v.info.problem);
    if v.feedback.is_some() {
        // The waiting rows would name the tests the contest's feedback policy hides.
        tests.clear();
    }
    let ignored = if user.admin && v.contest.is_some() {
        app.node
            .is_jury(id)
            .await
            .map_err(|e| PageError(e.into(), Some(user.clone())))?
    } else {
        false
    };
    let history = if user.admin {
        Some(
            crate::history::of(&app, id)
                .await
                .map_err(|e| PageError(e, Some(user.clone())))?,
        )
    } else {
        None
    };
    // The team it was made by (`[[team]]` of its contest), with its members.
    let team = v
        .contest
        .as_deref()
        .and_then(|c| crate::contests::find(&app, c).ok())
        .and_then(|c| c.teams.iter().find(|t| t.user == v.info.user).cloned());
    let body = html! {
        h1 { "Submission " (id) " · " a href={ "/problems/" (v.info.problem) } { (title) } }
        p.meta {
            span { (v.info.user) }
            @if let Some(t) = &team {
                span #team { "team " (t.name) @if !t.members.is_empty() { " (" (t.members.join(", ")) ")" } }
            }
            @match &v.contest {
                Some(c) => span #contest { "contest " a href={ "/contests/" (c) } { (c) } },
                None => span #contest { "practice (no contest)" },
            }
            span { (language_name(&app, &v.info.language)) }
            span { "submitted " (time_el(v.info.queued_at)) }
            @if let Some(j) = &v.info.judge_version { span { "judge " (j) } }
            @if v.info.judged > 1 { span { "judged " (v.info.judged) " times" } }
            @if user.admin { @if let Some(h) = &v.info.judged_by { span #judged-by { "judged by " (h) } } }
        }
        @if let Some(o) = &v.override_ {
            p.note #override { "Verdict set by the jury: " strong { (o.verdict.name()) }
                @if let Some(j) = v.judged_verdict { " (the judge said " (j.name()) ")" }
                ": " (o.reason)
                @if user.admin { " — " (o.by) ", " (time_el(o.at)) } }
        }
        @if user.admin {
            details.override #override-form { summary { "Override the verdict" }
                form.filters method="post" action={ "/submissions/" (id) "/override" }
                    data-confirm="Set the jury's verdict? It replaces the judge's on every page and on the standings." {
                    label { "Verdict" select name="verdict" #override-verdict {
                        @for code in ["AC", "WA", "TLE", "MLE", "OLE", "RE", "CE"] { option value=(code) { (code) } }
                    } }
                    label { "Reason" input type="text" name="reason" #override-reason required size="30"; }
                    button #override-button type="submit" { "Override" }
                }
                @if v.override_.is_some() {
                    form.inline method="post" action={ "/submissions/" (id) "/override" } data-confirm="Remove the jury's verdict?" {
                        input type="hidden" name="verdict" value="";
                        button #override-remove type="submit" { "Remove the override" }
                    }
                }
            }
        }
        @if user.admin && v.contest.is_some() {
            p.meta #ranking {
                @if ignored { strong { "Not ranked" } " (the jury's, or ignored)." } @else { "Ranked on the contest's standings." }
                form.inline method="post" action={ "/submissions/" (id) "/ignore" }
                    data-confirm=(if ignored { "Rank this submission again?" } else { "Ignore this submission? It will not count on the standings." }) {
                    input type="hidden" name="ignored" value=(if ignored { "false" } else { "true" });
                    button #ignore type="submit" { @if ignored { "Rank it again" } @else { "Ignore it" } }
                }
            }
        }
        @if user.admin {
            form.inline.rejudge method="post" action={ "/submissions/" (id) "/rejudge" } {
                button #rejudge type="submit" title="Judge it again; the new verdict replaces this one when it is ready, and the rejudging's page shows what changed" { "Rejudge" }
            }
        }
        (results(&v, &tests, groups, &group_rows(&app, &v)))
        @if let Some(h) = &history { (history_table(h)) }
        h2 { "Source " a.download href={ "/submissions/" (id) "/source" } { "download" } }
        @match &v.source {
            Some(s) => { (source_listing(s)) }
            None => { p.muted { "A binary of " (v.info.source_bytes) " bytes." } }
        }
    };
    Ok(Html(page(&format!("Submission {id}"), Some(&user), body)).into_response())
}

/// The admin's history of a submission: its judgings and the jury's overrides, oldest first.
fn history_table(h: &[crate::history::Event]) -> Markup {
    use crate::history::Event;
    html! {
        h2 #history-title { "Judging history" }
        div.scroll { table.list #history {
            thead { tr { th { "When" } th { "What" } th { "Who" } th { "Verdict" } th { "Note" } } }
            tbody { @for e in h { @match e {
                Event::Judging { judging, at, rejudging, judged_by, verdict, score_milli, current, .. } => {
                    tr.judging {
                        td { (time_el(*at)) }
                        td { "judging " (judging) @if let Some(r) = rejudging { " of " a href={ "/admin/rejudgings/" (r) } { "rejudging " (r) } } }
                        td { (judged_by) }
                        td { (verdict.as_deref().unwrap_or("—")) @if let Some(s) = score_milli { " " span.muted { (ojd_service::contest::standings::points_text(*s)) } } }
                        td { @if *current { strong { "current" } } }
                    }
                }
                Event::Override { at, by, from, to, reason, removed } => {
                    tr.override {
                        td { (time_el(*at)) }
                        td { @if *removed { "override removed" } @else { "verdict overridden" } }
                        td { (by) }
                        td.transition { (from) " → " (to) }
                        td { (reason) }
                    }
                }
            } } }
        } }
    }
}

/// `GET /submissions/{id}/source`: the submitted file, as a download.
pub(crate) async fn submission_source(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<i64>,
) -> PageResult {
    let user = need_login(user)?;
    let d = view::seen(&app, id, &user)
        .await
        .map_err(|e| PageError(e, Some(user.clone())))?;
    let ext = app
        .node
        .config()
        .languages
        .get(&d.info.language)
        .and_then(|l| l.extensions.first().cloned())
        .unwrap_or_else(|| "bin".into());
    let name = format!("submission-{id}.{ext}");
    Ok((
        [
            (header::CONTENT_TYPE, "application/octet-stream".to_string()),
            (
                header::CONTENT_DISPOSITION,
                format!("attachment; filename=\"{name}\""),
            ),
        ],
        d.source,
    )
        .into_response())
}

/// `POST /submissions/{id}/rejudge` (admins): a rejudging of this submission that applies itself
/// when judged; the browser goes to the rejudging's page (progress, then the verdict diff).
pub(crate) async fn rejudge(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<i64>,
) -> PageResult {
    let user = need_login(user)?;
    if !user.admin {
        return Err(PageError(
            AppError::Forbidden("only admins may rejudge".into()),
            Some(user),
        ));
    }
    let started = rejudge_now(&app, Scope::Submission(id), &user)
        .await
        .map_err(|e| PageError(e, Some(user.clone())))?;
    // The rejudging's page: progress, then the verdict diff once it applied itself.
    Ok(Redirect::to(&format!("/admin/rejudgings/{}", started.id)).into_response())
}

#[derive(serde::Deserialize)]
pub(crate) struct OverrideForm {
    verdict: String,
    #[serde(default)]
    reason: String,
}

/// `POST /submissions/{id}/override` (admins): the jury's verdict (an empty one removes it).
pub(crate) async fn override_verdict(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<i64>,
    axum::Form(f): axum::Form<OverrideForm>,
) -> PageResult {
    let user = need_login(user)?;
    if !user.admin {
        return Err(PageError(
            AppError::Forbidden("only admins may override a verdict".into()),
            Some(user),
        ));
    }
    let verdict = match f.verdict.as_str() {
        "" => None,
        code => Some(Verdict::from_code(code).ok_or_else(|| {
            PageError(
                AppError::BadRequest(format!("{code:?} is not a verdict code")),
                Some(user.clone()),
            )
        })?),
    };
    crate::contests::controls::set_override(&app, &user, id, verdict, &f.reason)
        .await
        .map_err(|e| PageError(e, Some(user.clone())))?;
    Ok(Redirect::to(&format!("/submissions/{id}")).into_response())
}

#[derive(serde::Deserialize)]
pub(crate) struct IgnoreForm {
    ignored: String,
}

/// `POST /submissions/{id}/ignore` (admins): not ranked, or ranked again; back to its page.
pub(crate) async fn ignore(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<i64>,
    axum::Form(f): axum::Form<IgnoreForm>,
) -> PageResult {
    let user = need_login(user)?;
    if !user.admin {
        return Err(PageError(
            AppError::Forbidden("only admins may ignore a submission".into()),
            Some(user),
        ));
    }
    crate::contests::controls::set_ignored(&app, &user, id, f.ignored == "true")
        .await
        .map_err(|e| PageError(e, Some(user.clone())))?;
    Ok(Redirect::to(&format!("/submissions/{id}")).into_response())
}

/// The results section alone: what `live.js` swaps in when the judging is done.
pub(crate) async fn submission_results(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<i64>,
) -> PageResult {
    let user = need_login(user)?;
    // With the jury's verdict, as on the page it is swapped into.
    let v = visible_submission(&app, id, &user)
        .await
        .map_err(|e| PageError(e, Some(user.clone())))?;
    let (mut tests, groups) = test_names(&app, &v.info.problem);
    if v.feedback.is_some() {
        // The waiting rows would name the tests the contest's feedback policy hides.
        tests.clear();
    }
    let rows = group_rows(&app, &v);
    Ok(Html(results(&v, &tests, groups, &rows).into_string()).into_response())
}
