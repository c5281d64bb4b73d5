//! The editor of one team on a contest's teams page (`/contests/{id}/teams`): a new team, or
//! the one chosen with "Edit" (`?edit=user`); a refused form comes back with what was typed and
//! each error beside its field (the handlers are the teams page's, over `contests::teams`).

use maud::{html, Markup};

use ojd_service::contest::edit::FieldError;
use ojd_service::contest::roster::TeamDraft;
use ojd_service::contest::Contest;

/// The form, filled with `draft` (an empty `original`: a new team).
pub(crate) fn editor(c: &Contest, draft: &TeamDraft, errors: &[FieldError]) -> Markup {
    let err = |field: &str| {
        errors
            .iter()
            .find(|e| e.field == field)
            .map(|e| e.message.clone())
    };
    let bad = |field: &str| err(field).is_some().then_some("true");
    let note = |field: &str| {
        html! { @if let Some(m) = err(field) { span.field-error id={ "error-team-" (field) } { (m) } } }
    };
    let new = draft.original.is_empty();
    html! {
        h2 #team-editor { @if new { "Add a team" } @else { "Edit team " (draft.original) } }
        @if !errors.is_empty() {
            div.error #team-errors role="alert" {
                "Nothing was saved; fix these fields:"
                ul { @for e in errors { li { code { (e.field) } ": " (e.message) } } }
            }
        }
        form.submit.contest-form #team-form method="post" action={ "/contests/" (c.id) "/team" } {
            input type="hidden" name="original" value=(draft.original);
            (note("original"))
            label { "User (the user name the team logs in and submits as)"
                input type="text" name="user" #f-team-user value=(draft.user) required aria-invalid=[bad("user")]; (note("user")) }
            label { "Name on the standings (empty: the user name)"
                input type="text" name="name" #f-team-name value=(draft.name) aria-invalid=[bad("name")]; (note("name")) }
            label { "Affiliation"
                input type="text" name="affiliation" #f-team-affiliation value=(draft.affiliation) aria-invalid=[bad("affiliation")]; (note("affiliation")) }
            label { "Members (one per line, or separated by ;)"
                textarea name="members" #f-team-members rows="3" spellcheck="false" aria-invalid=[bad("members")] { (draft.members) } (note("members")) }
            label { "Category" select name="category" #f-team-category aria-invalid=[bad("category")] {
                option value="participant" selected[matches!(draft.category.as_str(), "" | "participant")] { "participant (ranked)" }
                option value="observer" selected[draft.category == "observer"] { "observer (not on the public board)" }
                option value="jury" selected[draft.category == "jury"] { "jury (not on the public board)" }
                @if !matches!(draft.category.as_str(), "" | "participant" | "observer" | "jury") { option value=(draft.category) selected { (draft.category) } }
            } (note("category")) }
            label { "Group (for the group winners' awards; empty: none)"
                input type="text" name="group" #f-team-group value=(draft.group) aria-invalid=[bad("group")]; (note("group")) }
            button #save-team type="submit" { @if new { "Add the team" } @else { "Save the team" } }
            @if !new { " " a href={ "/contests/" (c.id) "/teams#team-editor" } { "Cancel" } }
        }
    }
}
