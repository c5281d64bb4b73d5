//! [`AppError`]: every way a request can fail, as a JSON response. 4xx errors carry a message
//! meant for the client; a 5xx says only "internal error" and logs the real cause.
//!
//! Body: `{"error": {"code": "not_found", "message": "no submission 12"}}`. The pages show
//! the same errors as styled HTML, and the guard middleware turns the errors raised outside
//! the handlers (unknown paths, methods, unparsable path parameters) into one or the other;
//! both build on this type, which knows nothing of them.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use axum::Json;

use ojd_service::StoreError;

/// `Retry-After` of a 503 (the database away, a request timed out).
pub(crate) const RETRY_AFTER_SECS: &str = "5";

/// A failed request: its status, its code in the JSON body, and the message for the client.
#[derive(Debug)]
pub(crate) enum AppError {
    /// 400: the request is malformed; the message names the field.
    BadRequest(String),
    /// 401: no valid token or session.
    Unauthorized,
    /// 403: the user may not do this.
    Forbidden(String),
    /// 404: no such thing (or not visible to this user).
    NotFound(String),
    /// The request clashes with the data's state (e.g. a rejudging applied already).
    Conflict(String),
    /// 405: the path exists, the method does not.
    MethodNotAllowed,
    /// 413: the body is over its limit.
    TooLarge(String),
    /// 415: a body of a type this route does not take.
    UnsupportedMediaType(String),
    /// 429: too many of something; `Retry-After` says when to try again.
    RateLimited {
        /// Seconds until a new attempt may succeed.
        retry_after_secs: u64,
        /// What there were too many of: "submissions", "failed logins from this address",
        /// "live result streams open"...
        what: &'static str,
    },
    /// 503: the database does not answer, or the node is stopping.
    Unavailable(String),
    /// The request took longer than `[web] request_timeout`.
    Timeout,
    /// The daemon's own failure: logged, never detailed to the client.
    Internal(String),
}

impl AppError {
    pub(crate) fn status(&self) -> StatusCode {
        match self {
            AppError::BadRequest(_) => StatusCode::BAD_REQUEST,
            AppError::Unauthorized => StatusCode::UNAUTHORIZED,
            AppError::Forbidden(_) => StatusCode::FORBIDDEN,
            AppError::NotFound(_) => StatusCode::NOT_FOUND,
            AppError::Conflict(_) => StatusCode::CONFLICT,
            AppError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            AppError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
            AppError::UnsupportedMediaType(_) => StatusCode::UNSUPPORTED_MEDIA_TYPE,
            AppError::RateLimited { .. } => StatusCode::TOO_MANY_REQUESTS,
            AppError::Unavailable(_) | AppError::Timeout => StatusCode::SERVICE_UNAVAILABLE,
            AppError::Internal(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }

    pub(crate) fn code(&self) -> &'static str {
        match self {
            AppError::BadRequest(_) => "bad_request",
            AppError::Unauthorized => "unauthorized",
            AppError::Forbidden(_) => "forbidden",
            AppError::NotFound(_) => "not_found",
            AppError::Conflict(_) => "conflict",
            AppError::MethodNotAllowed => "method_not_allowed",
            AppError::TooLarge(_) => "too_large",
            AppError::UnsupportedMediaType(_) => "unsupported_media_type",
            AppError::RateLimited { .. } => "rate_limited",
            AppError::Unavailable(_) => "unavailable",
            AppError::Timeout => "timeout",
            AppError::Internal(_) => "internal",
        }
    }

    /// The text shown to the client.
    pub(crate) fn message(&self) -> String {
        match self {
            AppError::BadRequest(m)
            | AppError::Forbidden(m)
            | AppError::NotFound(m)
            | AppError::Conflict(m)
            | AppError::TooLarge(m)
            | AppError::UnsupportedMediaType(m)
            | AppError::Unavailable(m) => m.clone(),
            AppError::MethodNotAllowed => "this method is not allowed here".into(),
            AppError::Timeout => "the request took too long and was stopped".into(),
            AppError::Unauthorized => {
                "a valid token is required (Authorization: Bearer TOKEN)".into()
            }
            AppError::RateLimited {
                retry_after_secs,
                what,
            } => {
                format!("too many {what}; try again in {retry_after_secs} s")
            }
            AppError::Internal(_) => "internal error (logged on the server)".into(),
        }
    }

    /// Logs a 5xx's real cause (the client is told only that there was one).
    pub(crate) fn log_if_internal(&self) {
        if let AppError::Internal(cause) = self {
            crate::log(&format!("internal error: {cause}"));
        }
    }
}

impl From<StoreError> for AppError {
    fn from(e: StoreError) -> AppError {
        if let StoreError::Conflict(m) = e {
            return AppError::Conflict(m);
        }
        if e.is_unreachable() {
            crate::log(&format!(
                "answering 503: {}",
                ojd_service::logging::error_chain(&e)
            ));
            return AppError::Unavailable(
                "the database does not answer; try again in a few seconds".into(),
            );
        }
        AppError::Internal(ojd_service::logging::error_chain(&e))
    }
}

impl From<ojd_service::DbError> for AppError {
    fn from(e: ojd_service::DbError) -> AppError {
        match e {
            ojd_service::DbError::Store(e) => e.into(),
            e @ ojd_service::DbError::Task(_) => AppError::Internal(e.to_string()),
        }
    }
}

impl From<ojd_service::AccountError> for AppError {
    fn from(e: ojd_service::AccountError) -> AppError {
        match e {
            ojd_service::AccountError::Db(e) => e.into(),
            e @ ojd_service::AccountError::BadName(_) => AppError::BadRequest(e.to_string()),
            e @ ojd_service::AccountError::Random(_) => {
                AppError::Internal(ojd_service::logging::error_chain(&e))
            }
        }
    }
}

impl From<ojd_service::OnceError> for AppError {
    fn from(e: ojd_service::OnceError) -> AppError {
        AppError::Conflict(e.to_string())
    }
}

impl IntoResponse for AppError {
    fn into_response(self) -> Response {
        self.log_if_internal();
        let body =
            serde_json::json!({ "error": { "code": self.code(), "message": self.message() } });
        let mut response = (self.status(), Json(body)).into_response();
        if let AppError::RateLimited {
            retry_after_secs, ..
        } = self
        {
            if let Ok(v) = HeaderValue::from_str(&retry_after_secs.to_string()) {
                response.headers_mut().insert(header::RETRY_AFTER, v);
            }
        }
        if let AppError::Unavailable(_) | AppError::Timeout = self {
            response.headers_mut().insert(
                header::RETRY_AFTER,
                HeaderValue::from_static(RETRY_AFTER_SECS),
            );
        }
        if let AppError::Unauthorized = self {
            response
                .headers_mut()
                .insert(header::WWW_AUTHENTICATE, HeaderValue::from_static("Bearer"));
        }
        response
    }
}
