//! The director's "New contest" (`/admin/contests/new`) and "Edit contest"
//! (`/contests/{id}/edit`) forms over `contests::define`: a refused form comes back with what
//! was typed and each error beside its field (and listed at the top); an edit that needs
//! confirming comes back with what would change and a "Save and recompute the standings"
//! button; a saved one goes to the contest (post/redirect/get) with the changes shown once.

use std::sync::Arc;

use axum::extract::{Path, Query, State};
use axum::http::StatusCode;
use axum::response::{IntoResponse, Redirect, Response};
use axum::Form;
use maud::{html, Markup};
use serde::Deserialize;

use crate::auth::extract::AdminPage;
use crate::contests::{self as ct, define};
use crate::error::AppError;
use crate::html::{error_page, frame};
use crate::text::urlencode;
use crate::user::User;
use crate::App;
use ojd_service::contest::clock::{format_span, rfc3339};
use ojd_service::contest::edit::{Draft, DraftAwards, DraftProblem, FieldError};
use ojd_service::now_ms;

type PageResult = Result<Response, Response>;

/// How many empty problem rows the form offers for adding, at least: as many as the problems
/// of the catalog not in the contest yet, so that a director adds every problem in one round
/// trip.
const BLANK_ROWS: usize = 2;

/// What the form state is: a new contest (with its id) or an edit of one.
enum Kind<'a> {
    New { id: &'a str },
    Edit { id: &'a str },
}

/// The typed form: its fields in order, as the browser sent them.
fn parse(fields: &[(String, String)]) -> (String, Draft, bool, Vec<FieldError>) {
    let get = |k: &str| {
        fields
            .iter()
            .find(|(n, _)| n == k)
            .map(|(_, v)| v.clone())
            .unwrap_or_default()
    };
    let mut rows: Vec<(f64, usize, DraftProblem)> = Vec::new();
    let mut errors = Vec::new();
    for i in 1.. {
        let key = |k: &str| format!("{k}_{i}");
        if !fields.iter().any(|(n, _)| n == &key("problem")) {
            break;
        }
        let row = DraftProblem {
            label: get(&key("label")).trim().to_string(),
            problem: get(&key("problem")).trim().to_string(),
            color: get(&key("color")).trim().to_string(),
        };
        let order_text = get(&key("order"));
        let order = if order_text.trim().is_empty() {
            i as f64
        } else {
            match order_text.trim().parse::<f64>() {
                Ok(o) if o.is_finite() => o,
                _ => {
                    errors.push(FieldError {
                        field: format!("problems[{i}].order"),
                        message: format!(
                            "expected a number (the row's place), found {order_text:?}"
                        ),
                    });
                    i as f64
                }
            }
        };
        rows.push((order, i, row));
    }
    rows.sort_by(|a, b| a.0.total_cmp(&b.0).then(a.1.cmp(&b.1)));
    let draft = Draft {
        title: get("title"),
        start: get("start"),
        duration: get("duration"),
        freeze: get("freeze"),
        scoring: get("scoring"),
        penalty: get("penalty"),
        compile_errors_count: fields.iter().any(|(n, _)| n == "compile_errors_count"),
        public_standings: fields.iter().any(|(n, _)| n == "public_standings"),
        participants: get("participants"),
        // A form without the field (an older page) keeps the default.
        feedback: Some(get("feedback"))
            .filter(|f| !f.trim().is_empty())
            .unwrap_or_else(|| "all".into()),
        problems: rows.into_iter().map(|(_, _, r)| r).collect(),
        // A form without the fields (an older page) keeps the file's medals.
        awards: fields
            .iter()
            .any(|(n, _)| n.starts_with("awards_"))
            .then(|| DraftAwards {
                gold: get("awards_gold"),
                silver: get("awards_silver"),
                bronze: get("awards_bronze"),
            }),
    };
    (get("id"), draft, get("confirm") == "yes", errors)
}

/// The form, filled with `draft`, its errors beside their fields.
fn form(
    app: &App,
    kind: &Kind<'_>,
    draft: &Draft,
    errors: &[FieldError],
    confirm: &[String],
) -> Markup {
    let err = |field: &str| {
        errors
            .iter()
            .find(|e| e.field == field)
            .map(|e| e.message.clone())
    };
    let bad = |field: &str| err(field).is_some();
    let note = |field: &str| {
        html! { @if let Some(m) = err(field) { span.field-error id={ "error-" (field.replace(['[', ']', '.'], "-")) } { (m) } } }
    };
    let catalog = app.node.catalog();
    let mut ids: Vec<String> = catalog.problems.keys().cloned().collect();
    for p in &draft.problems {
        if !p.problem.is_empty() && !ids.contains(&p.problem) {
            ids.push(p.problem.clone());
        }
    }
    let mut rows = draft.problems.clone();
    let blanks = rows
        .iter()
        .rev()
        .take_while(|r| r.problem.is_empty() && r.label.is_empty() && r.color.is_empty())
        .count();
    let unused = (catalog.problems.keys())
        .filter(|id| !draft.problems.iter().any(|p| &p.problem == *id))
        .count();
    rows.extend((blanks..BLANK_ROWS.max(unused)).map(|_| DraftProblem::default()));
    let (action, new) = match kind {
        Kind::New { .. } => ("/admin/contests/new".to_string(), true),
        Kind::Edit { id } => (format!("/contests/{}/edit", urlencode(id)), false),
    };
    let id = match kind {
        Kind::New { id } | Kind::Edit { id } => *id,
    };
    html! {
        @if !errors.is_empty() {
            div.error #form-errors role="alert" {
                "Nothing was saved; fix these fields:"
                ul { @for e in errors { li { code { (e.field) } ": " (e.message) } } }
            }
        }
        form.submit.contest-form #contest-form method="post" action=(action) {
            @if !confirm.is_empty() {
                div.confirm #confirm-changes role="alert" {
                    p { strong { "Confirm this change." } " It changes a contest that has started (or drops submissions), so the standings are recomputed for everyone:" }
                    ul { @for l in confirm { li { (l) } } }
                    button.danger #confirm-button type="submit" name="confirm" value="yes" { "Save and recompute the standings" }
                }
            }
            @if new {
                label { "Id (the folder under contests/, in its address)"
                    input type="text" name="id" #f-id value=(id) required aria-invalid=[bad("id").then_some("true")]; (note("id")) }
            }
            label { "Title" input type="text" name="title" #f-title value=(draft.title) required aria-invalid=[bad("title").then_some("true")]; (note("title")) }
            @if new {
                label { "Start (RFC 3339 with an offset, e.g. 2026-12-01T09:00:00+08:00)"
                    input type="text" name="start" #f-start value=(draft.start) required aria-invalid=[bad("start").then_some("true")]; (note("start")) }
                label { "Length (5h, 4h30m, 90m)"
                    input type="text" name="duration" #f-duration value=(draft.duration) required aria-invalid=[bad("duration").then_some("true")]; (note("duration")) }
                label { "Freeze before the end (1h; empty: no freeze)"
                    input type="text" name="freeze" #f-freeze value=(draft.freeze) aria-invalid=[bad("freeze").then_some("true")]; (note("freeze")) }
            } @else {
                p.muted #clock-note { "Start " (draft.start) ", length " (draft.duration)
                    @if !draft.freeze.is_empty() { ", freeze " (draft.freeze) }
                    ": change them with the clock controls on the contest page." }
            }
            label { "Scoring" select name="scoring" #f-scoring aria-invalid=[bad("scoring").then_some("true")] {
                option value="icpc" selected[draft.scoring == "icpc"] { "ICPC (solved, then penalty)" }
                option value="ioi" selected[draft.scoring == "ioi"] { "IOI (sum of best scores)" }
                @if !matches!(draft.scoring.as_str(), "icpc" | "ioi") { option value=(draft.scoring) selected { (draft.scoring) } }
            } (note("scoring")) }
            label { "Penalty minutes per rejected try (ICPC)"
                input type="number" name="penalty" #f-penalty value=(draft.penalty) min="0" max="1000" aria-invalid=[bad("penalty").then_some("true")]; (note("penalty")) }
            label.check { input type="checkbox" name="compile_errors_count" #f-ce value="on" checked[draft.compile_errors_count]; " a compile error counts as a rejected try (ICPC)" }
            label.check { input type="checkbox" name="public_standings" #f-public value="on" checked[draft.public_standings]; " public standings (unchecked: a student sees only their own row)" }
            label { "What a participant sees of their own submissions" select name="feedback" #f-feedback aria-invalid=[bad("feedback").then_some("true")] {
                option value="all" selected[draft.feedback == "all"] { "everything (every test)" }
                option value="first_failure" selected[draft.feedback == "first_failure"] { "the tests up to the first failing one" }
                option value="verdict" selected[draft.feedback == "verdict"] { "the final verdict only" }
                @if !matches!(draft.feedback.as_str(), "all" | "first_failure" | "verdict") { option value=(draft.feedback) selected { (draft.feedback) } }
            } (note("feedback")) }
            label { "Participants: \"anyone\", or the user names (commas, spaces or lines)"
                textarea name="participants" #f-participants rows="2" spellcheck="false" aria-invalid=[bad("participants").then_some("true")] { (draft.participants) } (note("participants")) }
            fieldset #problem-rows {
                legend { "Problems" }
                p.muted { "Order: the rows are sorted by this number (change it to move a row). Choose no problem to remove a row; fill an empty row to add one. Label: empty is A, B, C… by place. Colour: like #1e90ff, or empty." }
                (note("problems"))
                div.scroll { table.list.problem-rows {
                    thead { tr { th { "Order" } th { "Problem" } th { "Label" } th { "Colour" } } }
                    tbody { @for (k, r) in rows.iter().enumerate() {
                        @let i = k + 1;
                        @let f = |x: &str| format!("problems[{i}].{x}");
                        tr #{ "row-" (i) } {
                            td { input type="number" name={ "order_" (i) } value=(i) step="any" aria-label={ "Order of row " (i) } aria-invalid=[bad(&f("order")).then_some("true")]; (note(&f("order"))) }
                            td { select name={ "problem_" (i) } aria-label={ "Problem of row " (i) } aria-invalid=[bad(&f("problem")).then_some("true")] {
                                option value="" selected[r.problem.is_empty()] { "— none —" }
                                @for p in &ids { option value=(p) selected[&r.problem == p] { (p) } }
                            } (note(&f("problem"))) }
                            td { input type="text" name={ "label_" (i) } value=(r.label) size="4" aria-label={ "Label of row " (i) } aria-invalid=[bad(&f("label")).then_some("true")]; (note(&f("label"))) }
                            td { input type="text" name={ "color_" (i) } value=(r.color) size="8" placeholder="#1e90ff" aria-label={ "Colour of row " (i) } aria-invalid=[bad(&f("color")).then_some("true")]; (note(&f("color"))) }
                        }
                    } }
                } }
            }
            fieldset #awards {
                legend { "Medals" }
                p.muted { "By rank, on the results once the contest is final: ranks up to the gold count get gold, the next silver, then bronze; teams tied on a rank share its medal; a team that solved or scored nothing gets none. Empty or 0: no such medal." }
                @let awards = draft.awards.clone().unwrap_or_default();
                div.medals {
                    @for (medal, name, value) in [("gold", "Gold", &awards.gold), ("silver", "Silver", &awards.silver), ("bronze", "Bronze", &awards.bronze)] {
                        @let field = format!("awards.{medal}");
                        label { (name) " medals"
                            input type="number" name={ "awards_" (medal) } id={ "f-awards-" (medal) } value=(value) min="0" max="1000" aria-invalid=[bad(&field).then_some("true")]; (note(&field)) }
                    }
                }
            }
            button #save-contest type="submit" { @if new { "Create the contest" } @else { "Save" } }
        }
    }
}

/// What the page says besides the form.
#[derive(Default)]
struct Notes {
    errors: Vec<FieldError>,
    /// What would change, to confirm.
    confirm: Vec<String>,
    /// Shown once after a save.
    shown: Option<String>,
}

fn page(
    app: &App,
    admin: &User,
    kind: Kind<'_>,
    draft: &Draft,
    notes: Notes,
    status: StatusCode,
) -> Response {
    let (title, heading) = match &kind {
        Kind::New { .. } => ("New contest".to_string(), html! { h1 { "New contest" } }),
        Kind::Edit { id } => (
            format!("Edit contest {id}"),
            html! { h1 { "Edit contest · " a href={ "/contests/" (id) } { (draft.title) } } },
        ),
    };
    let body = html! {
        (heading)
        @if let Some(m) = notes.shown { (maud::PreEscaped(m)) }
        (form(app, &kind, draft, &notes.errors, &notes.confirm))
    };
    let mut r = frame(&title, Some(admin), body);
    *r.status_mut() = status;
    r
}

/// `GET /admin/contests/new`: an empty form, starting in an hour.
pub(crate) async fn new_form(State(app): State<Arc<App>>, AdminPage(admin): AdminPage) -> Response {
    let start = (now_ms() / 60_000 + 61) * 60_000;
    let draft = Draft {
        start: rfc3339(start, 0),
        duration: format_span(std::time::Duration::from_secs(5 * 3600)),
        scoring: "icpc".into(),
        penalty: "20".into(),
        public_standings: true,
        participants: "anyone".into(),
        feedback: "all".into(),
        awards: Some(DraftAwards::default()),
        ..Draft::default()
    };
    page(
        &app,
        &admin,
        Kind::New { id: "" },
        &draft,
        Notes::default(),
        StatusCode::OK,
    )
}

/// `POST /admin/contests/new`: creates it and goes to its page, or shows the form again.
pub(crate) async fn create(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Form(fields): Form<Vec<(String, String)>>,
) -> PageResult {
    let (id, draft, _, mut errors) = parse(&fields);
    let outcome = if errors.is_empty() {
        define::create(&app, &admin, id.trim(), &draft)
            .await
            .map(|_| ())
    } else {
        // A row's bad place, and whatever else is wrong, all at once.
        Err(define::Refusal::Fields(
            draft.check(&app.node.config().server.problems, true),
        ))
    };
    match outcome {
        Ok(()) => Ok(Redirect::to(&format!("/contests/{}", urlencode(id.trim()))).into_response()),
        Err(define::Refusal::Fields(more)) => {
            errors.extend(more);
            let notes = Notes {
                errors,
                ..Notes::default()
            };
            Ok(page(
                &app,
                &admin,
                Kind::New { id: &id },
                &draft,
                notes,
                StatusCode::BAD_REQUEST,
            ))
        }
        Err(define::Refusal::Confirm(lines)) => Err(error_page(
            AppError::Conflict(lines.join("; ")),
            Some(&admin),
        )),
        Err(define::Refusal::Other(e)) => Err(error_page(e, Some(&admin))),
    }
}

#[derive(Deserialize)]
pub(crate) struct EditQuery {
    saved: Option<String>,
}

/// `GET /contests/{id}/edit`: the contest's definition in the form.
pub(crate) async fn edit_form(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
    Query(q): Query<EditQuery>,
) -> PageResult {
    let c = ct::find(&app, &id).map_err(|e| error_page(e, Some(&admin)))?;
    let shown = q.saved.and_then(|key| {
        app.guards
            .take_shown(&key, &admin.name, &format!("edit:{id}"))
    });
    let notes = Notes {
        shown,
        ..Notes::default()
    };
    Ok(page(
        &app,
        &admin,
        Kind::Edit { id: &c.id },
        &Draft::of(&c),
        notes,
        StatusCode::OK,
    ))
}

/// `POST /contests/{id}/edit`: saves, asks to confirm, or shows the form again with the errors.
pub(crate) async fn edit(
    State(app): State<Arc<App>>,
    AdminPage(admin): AdminPage,
    Path(id): Path<String>,
    Form(fields): Form<Vec<(String, String)>>,
) -> PageResult {
    let c = ct::find(&app, &id).map_err(|e| error_page(e, Some(&admin)))?;
    let (_, mut draft, confirm, mut errors) = parse(&fields);
    // The clock is not this form's: show it as it is.
    let now = Draft::of(&c);
    (draft.start, draft.duration, draft.freeze) = (now.start, now.duration, now.freeze);
    if !errors.is_empty() {
        errors.extend(draft.check(&app.node.config().server.problems, false));
        let notes = Notes {
            errors,
            ..Notes::default()
        };
        return Ok(page(
            &app,
            &admin,
            Kind::Edit { id: &c.id },
            &draft,
            notes,
            StatusCode::BAD_REQUEST,
        ));
    }
    match define::update(&app, &admin, &c.id, &draft, confirm).await {
        Ok(done) => {
            let shown = html! {
                div.once #saved role="status" {
                    @if done.changes.is_empty() { p.note { "Nothing changed." } }
                    @else {
                        p.note { "Saved" @if done.recomputed { "; the standings were recomputed" } ":" }
                        ul { @for l in &done.changes { li { (l) } } }
                    }
                }
            };
            let key =
                app.guards
                    .keep_shown(&admin.name, &format!("edit:{}", c.id), shown.into_string());
            Ok(
                Redirect::to(&format!("/contests/{}/edit?saved={key}", urlencode(&c.id)))
                    .into_response(),
            )
        }
        Err(define::Refusal::Fields(errors)) => {
            let notes = Notes {
                errors,
                ..Notes::default()
            };
            Ok(page(
                &app,
                &admin,
                Kind::Edit { id: &c.id },
                &draft,
                notes,
                StatusCode::BAD_REQUEST,
            ))
        }
        Err(define::Refusal::Confirm(confirm)) => {
            let notes = Notes {
                confirm,
                ..Notes::default()
            };
            Ok(page(
                &app,
                &admin,
                Kind::Edit { id: &c.id },
                &draft,
                notes,
                StatusCode::CONFLICT,
            ))
        }
        Err(define::Refusal::Other(e)) => Err(error_page(e, Some(&admin))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fields(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    #[test]
    fn rows_are_sorted_by_their_place_and_a_bad_place_is_named() {
        let (id, d, confirm, errors) = parse(&fields(&[
            ("id", "x"),
            ("title", "T"),
            ("order_1", "2"),
            ("problem_1", "pa"),
            ("label_1", "A"),
            ("color_1", ""),
            ("order_2", "1.5"),
            ("problem_2", "pb"),
            ("label_2", "B"),
            ("color_2", "#000000"),
            ("order_3", "last"),
            ("problem_3", ""),
            ("label_3", ""),
            ("color_3", ""),
            ("public_standings", "on"),
            ("confirm", "yes"),
        ]));
        assert_eq!((id.as_str(), confirm), ("x", true));
        let order: Vec<&str> = d.problems.iter().map(|p| p.problem.as_str()).collect();
        assert_eq!(order, ["pb", "pa", ""]);
        assert!(d.public_standings && !d.compile_errors_count);
        assert_eq!(
            d.feedback, "all",
            "a form without the field keeps the default"
        );
        assert_eq!(errors.len(), 1);
        assert_eq!(errors[0].field, "problems[3].order");
    }
}
