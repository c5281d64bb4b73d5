//! The admins' pages: users and tokens ([`users`]: list, issue with a one-time login link,
//! revoke), problems ([`problems`]: state, reload, rejudge, upload a package, unpacked by
//! [`upload`]), a contest package's import ([`contest_import`]), the queue ([`queue`]: what is queued and what each host is judging) and
//! rejudgings ([`rejudgings`]). Every action is a POST from a form on these pages
//! (origin-checked like every state-changing request by the guard middleware) that redirects
//! back or shows its result once.

mod contest_import;
mod problems;
mod queue;
mod rejudgings;
mod upload;
mod users;

use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::response::Response;
use axum::routing::{get, post};
use axum::Router;

use crate::error::AppError;
use crate::html::PageError;
use crate::user::User;
use crate::App;

type PageResult = Result<Response, PageError>;

/// An error as a page for `user`.
fn err(user: &User) -> impl Fn(AppError) -> PageError + '_ {
    move |e| PageError(e, Some(user.clone()))
}

/// Every admin page route; an upload may be `max_package` bytes (its form's framing comes on
/// top).
pub(crate) fn routes(max_package: usize) -> Router<Arc<App>> {
    Router::new()
        .route("/admin/users", get(users::users).post(users::issue))
        .route("/admin/users/link", post(users::link))
        .route("/admin/tokens/revoke", post(users::revoke))
        .route("/admin/problems", get(problems::problems))
        .route("/admin/problems/reload", post(problems::reload))
        .route(
            "/admin/problems/{id}/rejudge",
            post(problems::rejudge_problem),
        )
        .route(
            "/admin/problems/upload",
            post(problems::upload).layer(DefaultBodyLimit::max(max_package + 64 * 1024)),
        )
        .route(
            "/admin/contests/import",
            get(contest_import::import_form)
                .post(contest_import::check)
                .layer(DefaultBodyLimit::max(max_package + 64 * 1024)),
        )
        .route(
            "/admin/contests/import/confirm",
            post(contest_import::confirm),
        )
        .route(
            "/admin/contests/import/cancel",
            post(contest_import::cancel),
        )
        .route("/admin/queue", get(queue::queue))
        .route("/admin/hosts/drain", post(queue::drain_form))
        .route(
            "/admin/rejudgings",
            get(rejudgings::list).post(rejudgings::create),
        )
        .route("/admin/rejudgings/{id}", get(rejudgings::show))
        .route(
            "/admin/rejudgings/{id}/body",
            get(rejudgings::body_fragment),
        )
        .route("/admin/rejudgings/{id}/apply", post(rejudgings::apply))
        .route("/admin/rejudgings/{id}/cancel", post(rejudgings::cancel))
}
