//! The problem list and a problem's page: the statement with its samples and the submit form
//! (paste or file). The form follows post/redirect/get: a refused submission is kept as a draft
//! (the pasted text, the language and the reason) and the browser is sent back to the
//! statement, scrolled to the form, where the reason is shown beside it; a refresh re-posts
//! nothing.

use std::sync::Arc;

use axum::extract::{Multipart, Path, Query, State};
use axum::response::{Html, IntoResponse, Redirect, Response};
use maud::{html, Markup, PreEscaped};
use serde::Deserialize;

use crate::auth::extract::MaybeUser;
use crate::error::AppError;
use crate::html::parts::kib;
use crate::html::{need_login, page, PageError};
use crate::security::Draft;
use crate::submit::{accept, language_views, read_multipart, SubmitForm};
use crate::text::urlencode;
use crate::user::User;
use crate::view::{find_problem, may_read_statements, problem_visible, visible_problem};
use crate::App;

type PageResult = Result<Response, PageError>;

/// `GET /`: the problems a viewer may see.
pub(crate) async fn index(State(app): State<Arc<App>>, MaybeUser(user): MaybeUser) -> PageResult {
    may_read_statements(&app, user.as_ref()).map_err(|e| PageError(e, user.clone()))?;
    let catalog = app.node.catalog();
    let body = html! {
        h1 { "Problems" }
        @if catalog.problems.is_empty() {
            p.muted { "No problems are being served." }
        } @else {
            div.scroll { table.list {
                thead { tr { th { "Problem" } th.opt { "Source" } th.num { "Time" } th.num { "Memory" } } }
                tbody {
                    @for e in catalog.problems.values() {
                        @let p = &e.problem;
                        @if problem_visible(&app, &p.id, user.as_ref()) { tr {
                            td { a href={ "/problems/" (p.id) } { (p.title) } }
                            td.muted.opt { (p.source) }
                            td.num { (p.time_limit.as_millis()) " ms" }
                            td.num { (kib(p.memory_limit / 1024)) }
                        } }
                    }
                }
            } }
        }
    };
    Ok(Html(page("Problems", user.as_ref(), body)).into_response())
}

/// The language of a statement when it is not the pages' English: "zh" when it is mostly
/// Chinese (of its letters, more CJK ideographs than Latin letters), so that screen readers
/// and fonts treat it right; the page itself stays `lang="en"`.
fn statement_lang(html: &str) -> Option<&'static str> {
    let (mut cjk, mut latin) = (0usize, 0usize);
    let mut in_tag = false;
    for ch in html.chars() {
        match ch {
            '<' => in_tag = true,
            '>' => in_tag = false,
            _ if in_tag => {}
            '\u{4e00}'..='\u{9fff}' | '\u{3400}'..='\u{4dbf}' => cjk += 1,
            c if c.is_ascii_alphabetic() => latin += 1,
            _ => {}
        }
    }
    // A CJK character carries about as much as a Latin word of five letters.
    (cjk * 5 > latin).then_some("zh")
}

/// The statement page; `draft` refills the form after a refused submission.
fn problem_page(
    app: &App,
    user: Option<&User>,
    id: &str,
    draft: Option<&Draft>,
) -> Result<(String, Markup), AppError> {
    let catalog = app.node.catalog();
    let e = find_problem(&catalog, id)?;
    let p = &e.problem;
    let languages: Vec<_> = language_views(app)
        .into_iter()
        .filter(|l| l.available)
        .collect();
    let chosen = draft.map(|d| d.language.as_str()).unwrap_or("");
    let body = html! {
        h1 { (p.title) }
        p.limits {
            span { "Time limit " (p.time_limit.as_millis()) " ms" }
            span { "Memory limit " (kib(p.memory_limit / 1024)) }
            @if !p.source.is_empty() { span.muted { (p.source) } }
        }
        // Languages whose limits differ (their `time_factor`, `memory_extra`), so students know
        // beforehand.
        @let factored: Vec<_> = languages.iter().filter(|l| l.time_factor != 1.0 || l.memory_extra != 0).collect();
        @if !factored.is_empty() {
            p.limits.muted #language-limits {
                span { "Limits by language:" }
                @for l in &factored {
                    span { (l.name) " " (p.time_limit.mul_f64(l.time_factor).as_millis()) " ms, " (kib((p.memory_limit + l.memory_extra) / 1024)) }
                }
            }
        }
        // Rendered from Markdown by the statement renderer, which makes it safe.
        article.statement lang=[statement_lang(&e.statement_html)] { (PreEscaped(&e.statement_html)) }
        @let samples: Vec<_> = p.tests.iter().filter(|t| t.sample).collect();
        @if !samples.is_empty() {
            h2 { "Samples" }
            @for t in samples {
                div.sample {
                    div { h3 { "Input (" (t.name) ")" } pre { (ojd_judge::read_capped(&t.input, 16 * 1024)) } }
                    div { h3 { "Output (" (t.name) ")" } pre { (ojd_judge::read_capped(&t.answer, 16 * 1024)) } }
                }
            }
        }
        h2 #submit { "Submit" }
        @if user.is_none() {
            p { a href="/login" { "Log in" } " to submit." }
        } @else {
            @if let Some(c) = user.and_then(|u| crate::contests::running_for(app, u, &p.id)) {
                p.note #counts-for { "This submission counts for the contest "
                    a href={ "/contests/" (c.id) } { (c.title) }
                    " (problem " (c.label_of(&p.id).unwrap_or("?")) "), which is running now." }
            }
            form #submit-form.submit method="post" action={ "/problems/" (p.id) "/submit" } enctype="multipart/form-data" {
                @if let Some(d) = draft {
                    p.error role="alert" #form-error { (d.message) }
                }
                label { "Language"
                    select name="language" #language required {
                        option value="" selected[chosen.is_empty()] disabled { "Choose the language…" }
                        @for l in &languages {
                            option value=(l.id) selected[chosen == l.id] { (l.name) }
                        }
                        option value="auto" selected[chosen == "auto"] { "From the file's name (files only)" }
                    }
                }
                label { "Source"
                    textarea name="source" #source rows="14" spellcheck="false" placeholder="Paste your program here, or choose a file below" {
                        @if let Some(d) = draft { (d.source) }
                    }
                }
                label { "or a file " input type="file" name="file" #file; }
                // One submission however often the form is sent (see `submit::form_key`).
                input type="hidden" name="idempotency_key" value=(crate::submit::form_key());
                p.hint #both-hint hidden { "A file is chosen and text is pasted: clear one of them (the form refuses both)." }
                button type="submit" #submit-button { "Submit" }
            }
        }
    };
    Ok((p.title.clone(), body))
}

#[derive(Deserialize)]
pub(crate) struct ProblemQuery {
    draft: Option<String>,
}

/// `GET /problems/{id}`: the statement, the samples and the submit form.
pub(crate) async fn problem(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
    Query(q): Query<ProblemQuery>,
) -> PageResult {
    visible_problem(&app, &id, user.as_ref()).map_err(|e| PageError(e, user.clone()))?;
    let draft = match (&user, &q.draft) {
        (Some(u), Some(key)) => app.guards.take_draft(key, &u.name, &id),
        _ => None,
    };
    let (title, body) = problem_page(&app, user.as_ref(), &id, draft.as_ref())
        .map_err(|e| PageError(e, user.clone()))?;
    Ok(Html(page(&title, user.as_ref(), body)).into_response())
}

/// `POST /problems/{id}/submit`: queues the submission and redirects to its page, or keeps a
/// draft and redirects back to the form with the reason (post/redirect/get).
pub(crate) async fn submit(
    State(app): State<Arc<App>>,
    MaybeUser(user): MaybeUser,
    Path(id): Path<String>,
    mp: Multipart,
) -> PageResult {
    let user = need_login(user)?;
    let mut form = SubmitForm {
        problem: id.clone(),
        ..Default::default()
    };
    let read = read_multipart(&app, mp, &mut form).await;
    form.problem = id.clone();
    let source = form.source.clone();
    let language = form.language.clone().unwrap_or_default();
    let accepted = match read {
        Ok(()) => accept(&app, &user, form).await,
        Err(e) => Err(e),
    };
    match accepted {
        Ok(sid) => Ok(Redirect::to(&format!("/submissions/{sid}")).into_response()),
        Err(e) if e.status().is_client_error() && !matches!(e, AppError::NotFound(_)) => {
            let key = app.guards.keep_draft(Draft {
                user: user.name.clone(),
                problem: id.clone(),
                // The API names its fields; the form's reader sees labels instead.
                message: e.message().replace(" (field `language`)", ""),
                source,
                language,
                chosen: String::new(),
            });
            let to = format!("/problems/{}?draft={key}#submit", urlencode(&id));
            Ok(Redirect::to(&to).into_response())
        }
        Err(e) => Err(PageError(e, Some(user))),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn statements_say_their_language() {
        assert_eq!(
            super::statement_lang("<p>Add two numbers a and b.</p>"),
            None
        );
        assert_eq!(
            super::statement_lang("<h2>题目描述</h2><p>输入两个整数 a 和 b，输出它们的和。</p>"),
            Some("zh")
        );
    }
}
