//! The web pages of students and of everyone else who is not administering: problems
//! ([`problems`]), submissions ([`submissions`]), logging in ([`login`]), contests
//! ([`contests`]) and the static files ([`assets`]). Server-rendered HTML through maud (the
//! `html` module); scripts are files under `/static`: `site.js` (local times, the remembered
//! language, the submit form's hints) and `live.js`, which follows a judging over the API's
//! event stream and swaps in the server-rendered results; the contest pages add
//! `contest.js`, which refreshes their live fragments.

mod assets;
mod contest_finalize;
mod contest_form;
mod contests;
mod login;
mod problems;
mod submissions;
mod team_form;

use std::sync::Arc;

use axum::routing::{get, post};
use axum::Router;

use crate::App;

/// Every page route.
pub(crate) fn routes() -> Router<Arc<App>> {
    Router::new()
        .route("/", get(problems::index))
        .route("/login", get(login::login_form).post(login::login))
        .route("/logout", post(login::logout))
        .route("/problems/{id}", get(problems::problem))
        .route("/problems/{id}/submit", post(problems::submit))
        .route("/submissions", get(submissions::submissions))
        .route("/submissions/{id}", get(submissions::submission))
        .route(
            "/submissions/{id}/results",
            get(submissions::submission_results),
        )
        .route(
            "/submissions/{id}/source",
            get(submissions::submission_source),
        )
        .route("/submissions/{id}/rejudge", post(submissions::rejudge))
        .route("/submissions/{id}/ignore", post(submissions::ignore))
        .route(
            "/submissions/{id}/override",
            post(submissions::override_verdict),
        )
        .route("/static/{file}", get(assets::site))
        .route("/contests", get(contests::list))
        .route("/contests/{id}", get(contests::contest))
        .route("/contests/{id}/standings", get(contests::standings_page))
        .route(
            "/contests/{id}/standings/table",
            get(contests::standings_fragment),
        )
        .route("/contests/{id}/news", get(contests::news_fragment))
        .route("/contests/{id}/submit", post(contests::submit))
        .route("/contests/{id}/ask", post(contests::ask))
        .route("/contests/{id}/announce", post(contests::announce))
        .route("/contests/{id}/answer/{cid}", post(contests::answer))
        .route("/contests/{id}/claim/{cid}", post(contests::claim))
        .route("/contests/{id}/unfreeze", post(contests::unfreeze))
        .route("/contests/{id}/freeze", post(contests::freeze))
        .route("/contests/{id}/clock", post(contests::change_clock))
        .route(
            "/contests/{id}/finalize",
            get(contest_finalize::finalize_page).post(contest_finalize::finalize),
        )
        .route(
            "/contests/{id}/balloons",
            get(contests::balloons_page).post(contests::mark_balloon),
        )
        .route(
            "/contests/{id}/teams",
            get(contests::teams_page).post(contests::import_teams),
        )
        .route("/contests/{id}/links", post(contests::print_links))
        .route("/contests/{id}/team", post(contests::save_team))
        .route("/contests/{id}/team/remove", post(contests::remove_team))
        .route("/admin/audit", get(contests::audit_page))
        .route(
            "/admin/contests/new",
            get(contest_form::new_form).post(contest_form::create),
        )
        .route(
            "/contests/{id}/edit",
            get(contest_form::edit_form).post(contest_form::edit),
        )
        .route("/contest-static/{file}", get(assets::live))
}
