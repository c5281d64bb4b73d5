//! Errors as pages. A missing login is a redirect to the login page; any other error is the
//! frame with the status and the message. Two looks, one per family of pages: [`PageError`]
//! for the students' and the admins' pages, [`error_page`] for the live pages (contests,
//! rejudgings), whose way back leads to the contests.

use axum::response::{Html, IntoResponse, Redirect, Response};
use maud::html;

use super::frame::{frame, page};
use crate::error::AppError;
use crate::user::User;

/// An error shown as a page (a missing login becomes a redirect to the login page).
pub(crate) struct PageError(pub(crate) AppError, pub(crate) Option<User>);

impl From<AppError> for PageError {
    fn from(e: AppError) -> Self {
        PageError(e, None)
    }
}

impl IntoResponse for PageError {
    fn into_response(self) -> Response {
        let PageError(e, user) = self;
        if let AppError::Unauthorized = e {
            return Redirect::to("/login").into_response();
        }
        e.log_if_internal();
        let status = e.status();
        let title = status.canonical_reason().unwrap_or("Error");
        let body = html! {
            div.error-page {
                h1 { (title) }
                p { (e.message()) }
                p { a href="/" { "Back to the problems" } }
            }
        };
        (status, Html(page(title, user.as_ref(), body))).into_response()
    }
}

/// The viewer of a page that needs a login, or the way to the login page.
pub(crate) fn need_login(user: Option<User>) -> Result<User, PageError> {
    user.ok_or(PageError(AppError::Unauthorized, None))
}

/// The viewer of a page for admins: without a login the login page, anyone else a 403.
pub(crate) fn need_admin(user: Option<User>) -> Result<User, PageError> {
    match user {
        None => Err(PageError(AppError::Unauthorized, None)),
        Some(u) if u.admin => Ok(u),
        Some(u) => Err(PageError(
            AppError::Forbidden("this page is for admins".into()),
            Some(u),
        )),
    }
}

/// An error as a live page (contests, rejudgings).
pub(crate) fn error_page(e: AppError, user: Option<&User>) -> Response {
    if let AppError::Unauthorized = e {
        return Redirect::to("/login").into_response();
    }
    e.log_if_internal();
    let status = e.status();
    let mut r = frame(
        "Error",
        user,
        html! { h1 { (status) } p.error { (e.message()) } p { a href="/contests" { "Back to the contests" } } },
    );
    *r.status_mut() = status;
    r
}
