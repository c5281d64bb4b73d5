//! The site's own static files, compiled in: the frame's stylesheet and scripts under
//! `/static`, the live pages' under `/contest-static`.

use axum::extract::Path;
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use crate::error::AppError;
use crate::html::PageError;

const STYLE: &str = include_str!("../assets/style.css");
const LIVE_JS: &str = include_str!("../assets/live.js");
const SITE_JS: &str = include_str!("../assets/site.js");
const CONTEST_JS: &str = include_str!("../assets/contest.js");
const CONTEST_CSS: &str = include_str!("../assets/contest.css");

/// `GET /static/{file}`.
pub(crate) async fn site(Path(file): Path<String>) -> Result<Response, PageError> {
    let (body, kind) = match file.as_str() {
        "style.css" => (STYLE, "text/css; charset=utf-8"),
        "live.js" => (LIVE_JS, "text/javascript; charset=utf-8"),
        "site.js" => (SITE_JS, "text/javascript; charset=utf-8"),
        _ => return Err(AppError::NotFound(format!("no file {file:?}")).into()),
    };
    Ok((
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "max-age=300"),
        ],
        body,
    )
        .into_response())
}

/// `GET /contest-static/{file}`.
pub(crate) async fn live(Path(file): Path<String>) -> Response {
    let (body, kind) = match file.as_str() {
        "contest.js" => (CONTEST_JS, "text/javascript; charset=utf-8"),
        "contest.css" => (CONTEST_CSS, "text/css; charset=utf-8"),
        _ => return (StatusCode::NOT_FOUND, "no such file").into_response(),
    };
    (
        [
            (header::CONTENT_TYPE, kind),
            (header::CACHE_CONTROL, "max-age=300"),
        ],
        body,
    )
        .into_response()
}
