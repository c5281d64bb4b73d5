//! The extractors that tell a handler who is asking: [`MaybeUser`] and [`User`] for anyone,
//! [`Admin`] for the admin API (errors as JSON), and [`Viewer`] and [`AdminPage`] for pages
//! (errors as pages: a missing login goes to the login page).

use std::sync::Arc;

use axum::extract::FromRequestParts;
use axum::http::header;
use axum::http::request::Parts;
use axum::response::Response;

use super::resolve;
use super::session::{session_user, COOKIE};
use crate::error::AppError;
use crate::html::error_page;
use crate::user::User;
use crate::App;

/// The bearer token of a request (the Authorization header).
fn bearer_of(parts: &Parts) -> Option<String> {
    let v = parts
        .headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())?;
    v.strip_prefix("Bearer ")
        .or_else(|| v.strip_prefix("bearer "))
        .map(|t| t.trim().to_string())
}

/// The session id of a request (the cookie).
pub(crate) fn session_of(headers: &axum::http::HeaderMap) -> Option<String> {
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .flat_map(|v| v.split(';'))
        .filter_map(|kv| kv.trim().split_once('='))
        .find(|(k, _)| *k == COOKIE)
        .map(|(_, v)| v.to_string())
}

/// Whether the request carries any credential (a bearer token or a session cookie).
pub(crate) fn token_of(parts: &Parts) -> Option<String> {
    bearer_of(parts).or_else(|| session_of(&parts.headers))
}

/// The caller, if the request carries a valid token or session.
pub(crate) struct MaybeUser(pub(crate) Option<User>);

impl FromRequestParts<Arc<App>> for MaybeUser {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<MaybeUser, AppError> {
        if let Some(token) = bearer_of(parts) {
            return Ok(MaybeUser(resolve(app, token).await?));
        }
        let Some(session) = session_of(&parts.headers) else {
            return Ok(MaybeUser(None));
        };
        Ok(MaybeUser(session_user(app, session).await?))
    }
}

impl FromRequestParts<Arc<App>> for User {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<User, AppError> {
        MaybeUser::from_request_parts(parts, app)
            .await?
            .0
            .ok_or(AppError::Unauthorized)
    }
}

/// An admin caller; anyone else gets 403 (401 without a token).
pub(crate) struct Admin(pub(crate) User);

impl FromRequestParts<Arc<App>> for Admin {
    type Rejection = AppError;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Admin, AppError> {
        let user = User::from_request_parts(parts, app).await?;
        if user.admin {
            Ok(Admin(user))
        } else {
            Err(AppError::Forbidden("this needs an admin token".into()))
        }
    }
}

/// A logged-in viewer for a page handler; without a login, the request gets the login page
/// (and a failed login lookup its error page) before the handler runs.
pub(crate) struct Viewer(pub(crate) User);

impl FromRequestParts<Arc<App>> for Viewer {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<Viewer, Response> {
        let MaybeUser(user) = MaybeUser::from_request_parts(parts, app)
            .await
            .map_err(|e| error_page(e, None))?;
        user.map(Viewer)
            .ok_or_else(|| error_page(AppError::Unauthorized, None))
    }
}

/// An admin for a page handler: anyone else gets a 403 page (the login page without a login).
pub(crate) struct AdminPage(pub(crate) User);

impl FromRequestParts<Arc<App>> for AdminPage {
    type Rejection = Response;

    async fn from_request_parts(parts: &mut Parts, app: &Arc<App>) -> Result<AdminPage, Response> {
        let Viewer(user) = Viewer::from_request_parts(parts, app).await?;
        if !user.admin {
            return Err(error_page(
                AppError::Forbidden("this page is for admins".into()),
                Some(&user),
            ));
        }
        Ok(AdminPage(user))
    }
}
