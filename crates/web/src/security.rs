//! The web layer's guards, one middleware ([`guard`]) around every route, and the state they
//! keep ([`Guards`]).
//!
//! # Theory of operation
//!
//! In the order a request meets them:
//! 1. **Origin.** A state-changing request (any method but GET, HEAD, OPTIONS) from a browser
//!    must come from this site: `Sec-Fetch-Site` must be `same-origin` (or `none`, typed by the
//!    user) and `Origin`, when sent, must name this host. A request carrying neither header is
//!    not from a browser (curl, scripts with a bearer token): one that signs in by the session
//!    cookie and carries neither is refused, since a cookie rides on any site's form. An
//!    API request authenticated by the cookie rather than a bearer token must be same-origin
//!    whatever its method.
//! 2. **Media type.** A state-changing API request with a body is JSON (`application/json`) or a
//!    multipart upload; `text/plain` (what a cross-site form can send without asking) is 415.
//! 3. **Admin-only metrics** unless `[web] metrics_public`.
//! 4. **A cap on live event streams per user**: the permit travels with the response body and
//!    is returned when the stream ends, however it ends.
//! 5. **A timeout** on every request but event streams and package uploads (503 `timeout`).
//! 6. **Every error is a page or a JSON error**: an error response that a handler did not
//!    shape (axum's own 404, 405, path and form rejections) is rewritten as the styled page, or
//!    under `/api/` as the documented JSON error.
//! 7. **Headers on every response**: a Content-Security-Policy without inline script,
//!    `frame-ancestors 'none'`, `nosniff`, `Referrer-Policy: same-origin`.

use std::collections::{HashMap, VecDeque};
use std::net::IpAddr;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use axum::body::Body;
use axum::extract::{FromRequestParts, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, Method, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use futures_util::StreamExt;

use crate::auth::extract::{token_of, MaybeUser};
use crate::auth::new_token;
use crate::error::AppError;
use crate::html::PageError;
use crate::user::User;
use crate::App;

/// The Content-Security-Policy of every response: scripts and styles only from ojd's own
/// files (no inline script), images also from http(s) (statements may link them), no frames.
const CSP: &str = "default-src 'self'; script-src 'self'; style-src 'self'; \
img-src 'self' https: http: data:; object-src 'none'; base-uri 'none'; form-action 'self'; \
frame-ancestors 'none'";

/// What the guards remember between requests.
pub(crate) struct Guards {
    streams: Mutex<HashMap<String, usize>>,
    logins: Mutex<HashMap<IpAddr, VecDeque<Instant>>>,
    /// Wrong passwords in the last minute, by account (`u:<name>`) and by address (`a:<ip>`).
    passwords: Mutex<HashMap<String, VecDeque<Instant>>>,
    drafts: Mutex<HashMap<String, (Instant, Draft)>>,
}

/// A refused web submission, kept for the form it came from (post/redirect/get).
#[derive(Clone, Debug)]
pub(crate) struct Draft {
    pub(crate) user: String,
    pub(crate) problem: String,
    pub(crate) message: String,
    pub(crate) source: String,
    pub(crate) language: String,
    /// The problem chosen on a form that offers several (a contest page's), else empty.
    pub(crate) chosen: String,
}

/// Drafts older than this are dropped; at most this many are kept.
const DRAFT_LIFETIME: Duration = Duration::from_secs(600);
const MAX_DRAFTS: usize = 1000;

impl Guards {
    pub(crate) fn new() -> Guards {
        Guards {
            streams: Mutex::new(HashMap::new()),
            logins: Mutex::new(HashMap::new()),
            passwords: Mutex::new(HashMap::new()),
            drafts: Mutex::new(HashMap::new()),
        }
    }

    /// Keeps a draft; returns the key that [`Guards::take_draft`] finds it by.
    pub(crate) fn keep_draft(&self, draft: Draft) -> String {
        // A draft holds nothing secret; without randomness a counter still tells drafts apart.
        static NEXT: std::sync::atomic::AtomicU64 = std::sync::atomic::AtomicU64::new(0);
        let key = new_token().unwrap_or_else(|_| {
            format!(
                "d{}",
                NEXT.fetch_add(1, std::sync::atomic::Ordering::Relaxed)
            )
        });
        let mut drafts = self.drafts.lock().unwrap_or_else(|e| e.into_inner());
        drafts.retain(|_, (at, _)| at.elapsed() < DRAFT_LIFETIME);
        if drafts.len() >= MAX_DRAFTS {
            if let Some(oldest) = drafts
                .iter()
                .min_by_key(|(_, (at, _))| *at)
                .map(|(k, _)| k.clone())
            {
                drafts.remove(&oldest);
            }
        }
        drafts.insert(key.clone(), (Instant::now(), draft));
        key
    }

    /// Takes the draft `key` if it is `user`'s, for `problem`, and fresh (once: a refresh
    /// shows the empty form).
    pub(crate) fn take_draft(&self, key: &str, user: &str, problem: &str) -> Option<Draft> {
        let mut drafts = self.drafts.lock().unwrap_or_else(|e| e.into_inner());
        match drafts.get(key) {
            Some((at, d))
                if d.user == user && d.problem == problem && at.elapsed() < DRAFT_LIFETIME =>
            {
                drafts.remove(key).map(|(_, d)| d)
            }
            _ => None,
        }
    }

    /// Keeps a page's one-time result (a new token, an upload's outcome: markup the server
    /// rendered) for the redirect after a POST (post/redirect/get); taken once by
    /// [`Guards::take_shown`], so a refresh neither posts again nor shows it again.
    pub(crate) fn keep_shown(&self, user: &str, page: &str, markup: String) -> String {
        self.keep_draft(Draft {
            user: user.to_string(),
            problem: format!("shown:{page}"),
            message: markup,
            source: String::new(),
            language: String::new(),
            chosen: String::new(),
        })
    }

    /// The markup kept by [`Guards::keep_shown`] for `user` on `page`, once.
    pub(crate) fn take_shown(&self, key: &str, user: &str, page: &str) -> Option<String> {
        self.take_draft(key, user, &format!("shown:{page}"))
            .map(|d| d.message)
    }

    /// Takes one of `user`'s event-stream slots, or refuses when all `max` are in use.
    fn open_stream(self: &Arc<Self>, user: &str, max: usize) -> Option<StreamPermit> {
        let mut open = self.streams.lock().unwrap_or_else(|e| e.into_inner());
        let n = open.entry(user.to_string()).or_default();
        if *n >= max {
            return None;
        }
        *n += 1;
        Some(StreamPermit {
            guards: self.clone(),
            user: user.to_string(),
        })
    }

    /// Counts a wrong password for `user` from `addr` (see [`Guards::password_allowed`]).
    pub(crate) fn password_failed(&self, user: &str, addr: Option<IpAddr>) {
        let mut recent = self.passwords.lock().unwrap_or_else(|e| e.into_inner());
        let now = Instant::now();
        recent
            .entry(format!("u:{user}"))
            .or_default()
            .push_back(now);
        if let Some(a) = addr {
            recent.entry(format!("a:{a}")).or_default().push_back(now);
        }
    }

    /// Whether a password login of `user` from `addr` may be tried now: at most `per_minute`
    /// wrong passwords a minute for one account, and `per_minute` x
    /// [`crate::auth::password::ADDRESS_FACTOR`] from one address (a hall behind one NAT
    /// address is not locked out by a few teams' typos). 0: no limit.
    pub(crate) fn password_allowed(
        &self,
        user: &str,
        addr: Option<IpAddr>,
        per_minute: u32,
    ) -> Result<(), AppError> {
        if per_minute == 0 {
            return Ok(());
        }
        let window = Duration::from_secs(60);
        let now = Instant::now();
        let mut recent = self.passwords.lock().unwrap_or_else(|e| e.into_inner());
        forget_old(&mut recent, now, window);
        let budget = per_minute.saturating_mul(crate::auth::password::ADDRESS_FACTOR);
        let checks = [
            (
                format!("u:{user}"),
                per_minute,
                "failed logins of this account",
            ),
            (
                addr.map(|a| format!("a:{a}")).unwrap_or_default(),
                budget,
                "failed password logins from this address",
            ),
        ];
        for (key, limit, what) in checks {
            match recent.get(&key) {
                Some(times) if !key.is_empty() && times.len() >= limit as usize => {
                    let oldest = times.front().copied().unwrap_or(now);
                    let wait = window.saturating_sub(now.duration_since(oldest)).as_secs() + 1;
                    return Err(AppError::RateLimited {
                        retry_after_secs: wait,
                        what,
                    });
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// Counts a failed login from `addr`; refuses once `per_minute` failures are in the last
    /// minute (0: no limit). Call [`Guards::login_allowed`] before checking the credentials.
    pub(crate) fn login_failed(&self, addr: Option<IpAddr>) {
        let Some(addr) = addr else { return };
        let mut recent = self.logins.lock().unwrap_or_else(|e| e.into_inner());
        recent.entry(addr).or_default().push_back(Instant::now());
    }

    /// Whether `addr` may try to log in now; `Err` holds the seconds to wait.
    pub(crate) fn login_allowed(
        &self,
        addr: Option<IpAddr>,
        per_minute: u32,
    ) -> Result<(), AppError> {
        let Some(addr) = addr else { return Ok(()) };
        if per_minute == 0 {
            return Ok(());
        }
        let window = Duration::from_secs(60);
        let now = Instant::now();
        let mut recent = self.logins.lock().unwrap_or_else(|e| e.into_inner());
        forget_old(&mut recent, now, window);
        match recent.get(&addr) {
            Some(times) if times.len() >= per_minute as usize => {
                let oldest = times.front().copied().unwrap_or(now);
                let wait = window.saturating_sub(now.duration_since(oldest)).as_secs() + 1;
                Err(AppError::RateLimited {
                    retry_after_secs: wait,
                    what: "failed logins from this address",
                })
            }
            _ => Ok(()),
        }
    }
}

/// One open event stream of a user; dropping it frees the slot.
struct StreamPermit {
    guards: Arc<Guards>,
    user: String,
}

impl Drop for StreamPermit {
    fn drop(&mut self) {
        let mut open = self
            .guards
            .streams
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(n) = open.get_mut(&self.user) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                open.remove(&self.user);
            }
        }
    }
}

fn is_safe(method: &Method) -> bool {
    matches!(*method, Method::GET | Method::HEAD | Method::OPTIONS)
}

/// Whether the request comes from a page of this site, or from no browser at all. A request
/// that `by_cookie` (signs in with the session cookie, which a browser attaches whoever made
/// the page) must say where it comes from: without `Origin` and `Sec-Fetch-Site` it could be
/// a browser too old to send either, on another site's form.
fn same_origin(headers: &HeaderMap, by_cookie: bool) -> Result<(), AppError> {
    let refuse = |why: &str| {
        Err(AppError::Forbidden(format!(
            "cross-origin request refused: {why}"
        )))
    };
    if by_cookie && !headers.contains_key("sec-fetch-site") && !headers.contains_key(header::ORIGIN)
    {
        return refuse(
            "a request signed in by its cookie carries neither Origin nor Sec-Fetch-Site",
        );
    }
    if let Some(site) = headers.get("sec-fetch-site") {
        match site.to_str().unwrap_or("") {
            "same-origin" | "none" => {}
            other => return refuse(&format!("Sec-Fetch-Site is {other:?}")),
        }
    }
    if let Some(origin) = headers.get(header::ORIGIN) {
        let origin = origin.to_str().unwrap_or("");
        let host = headers
            .get(header::HOST)
            .and_then(|h| h.to_str().ok())
            .unwrap_or("");
        let origin_host = origin
            .strip_prefix("http://")
            .or_else(|| origin.strip_prefix("https://"));
        match origin_host {
            Some(o) if !host.is_empty() && o.eq_ignore_ascii_case(host) => {}
            _ => return refuse(&format!("Origin {origin:?} is not this site ({host})")),
        }
    }
    Ok(())
}

/// A state-changing API request's body must be JSON or a multipart upload.
fn check_media_type(headers: &HeaderMap) -> Result<(), AppError> {
    let kind = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .map(|v| {
            v.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        });
    let has_body = headers.contains_key(header::TRANSFER_ENCODING)
        || headers
            .get(header::CONTENT_LENGTH)
            .and_then(|v| v.to_str().ok())
            .is_some_and(|v| v.trim() != "0");
    match kind.as_deref() {
        Some("application/json") | Some("multipart/form-data") => Ok(()),
        None if !has_body => Ok(()),
        other => Err(AppError::UnsupportedMediaType(format!(
            "send JSON as Content-Type: application/json (got {})",
            other.unwrap_or("no Content-Type")
        ))),
    }
}

/// Requests that may run longer than `request_timeout`.
fn long_running(path: &str) -> bool {
    path.ends_with("/events")
        || path.starts_with("/admin/problems/upload")
        || path.starts_with("/admin/contests/import")
}

fn is_event_stream(path: &str) -> bool {
    path.starts_with("/api/v1/submissions/") && path.ends_with("/events")
}

/// The middleware: see the module documentation for what it does, in order.
pub(crate) async fn guard(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let path = req.uri().path().to_string();
    // Machine endpoints answer errors in JSON; pages as styled HTML.
    let api = path.starts_with("/api/") || path == "/metrics" || path == "/healthz";
    let method = req.method().clone();
    let (mut parts, body) = req.into_parts();
    let bearer = parts.headers.contains_key(header::AUTHORIZATION);
    let checked = async {
        let by_cookie = !bearer && token_of(&parts).is_some();
        if !is_safe(&method) || (api && by_cookie) {
            same_origin(&parts.headers, by_cookie && !is_safe(&method))?;
        }
        if api && !is_safe(&method) {
            check_media_type(&parts.headers)?;
        }
        let needs_user =
            (path == "/metrics" && !app.node.config().web.metrics_public) || is_event_stream(&path);
        let user = if needs_user {
            MaybeUser::from_request_parts(&mut parts, &app).await?.0
        } else {
            None
        };
        if path == "/metrics" && !app.node.config().web.metrics_public {
            match &user {
                None => return Err(AppError::Unauthorized),
                Some(u) if !u.admin => {
                    return Err(AppError::Forbidden("the metrics are for admins".into()))
                }
                Some(_) => {}
            }
        }
        let permit = match (&user, is_event_stream(&path)) {
            (Some(u), true) => {
                let max = app.node.config().web.max_event_streams_per_user;
                Some(
                    app.guards
                        .open_stream(&u.name, max)
                        .ok_or(AppError::RateLimited {
                            retry_after_secs: 5,
                            what:
                                "live result streams open (close another tab showing a submission)",
                        })?,
                )
            }
            _ => None,
        };
        Ok::<_, AppError>((user, permit))
    }
    .await;
    let mut response = match checked {
        Err(e) => error_response(&app, api, e, &parts.headers).await,
        Ok((_, permit)) => {
            let req = Request::from_parts(parts.clone(), body);
            let run = next.run(req);
            let response = if long_running(&path) {
                run.await
            } else {
                match tokio::time::timeout(app.node.config().web.request_timeout, run).await {
                    Ok(r) => r,
                    Err(_) => AppError::Timeout.into_response(),
                }
            };
            let response = match permit {
                // The slot is freed when the body (the stream) is dropped.
                Some(permit) => response.map(|b| {
                    Body::from_stream(b.into_data_stream().map(move |chunk| {
                        let _ = &permit;
                        chunk
                    }))
                }),
                None => response,
            };
            shape_error(&app, api, &method, &path, response, &parts.headers).await
        }
    };
    set_headers(response.headers_mut());
    response
}

/// An error as the caller reads it: JSON under `/api/`, a styled page elsewhere.
async fn error_response(app: &Arc<App>, api: bool, e: AppError, headers: &HeaderMap) -> Response {
    if api {
        return e.into_response();
    }
    let user = user_from_headers(app, headers).await;
    PageError(e, user).into_response()
}

async fn user_from_headers(app: &Arc<App>, headers: &HeaderMap) -> Option<User> {
    let mut req = Request::new(());
    *req.headers_mut() = headers.clone();
    let (mut parts, ()) = req.into_parts();
    MaybeUser::from_request_parts(&mut parts, app)
        .await
        .ok()
        .and_then(|u| u.0)
}

/// Rewrites an error response that no handler shaped (plain text or empty) as a page or JSON.
async fn shape_error(
    app: &Arc<App>,
    api: bool,
    method: &Method,
    path: &str,
    response: Response,
    headers: &HeaderMap,
) -> Response {
    let status = response.status();
    if !(status.is_client_error() || status.is_server_error()) {
        return response;
    }
    let kind = response
        .headers()
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or("");
    if kind.starts_with("application/json") || kind.starts_with("text/html") {
        return response;
    }
    let text = match axum::body::to_bytes(response.into_body(), 16 * 1024).await {
        Ok(b) => String::from_utf8_lossy(&b).trim().to_string(),
        Err(_) => String::new(),
    };
    let page_404 = status == StatusCode::BAD_REQUEST && !api && *method == Method::GET;
    let e = match status {
        StatusCode::NOT_FOUND => AppError::NotFound(format!("there is nothing at {path}")),
        StatusCode::METHOD_NOT_ALLOWED => AppError::MethodNotAllowed,
        // An unparsable path parameter (`/submissions/abc`) on a page: nothing is there.
        _ if page_404 => AppError::NotFound(format!("there is nothing at {path}")),
        StatusCode::BAD_REQUEST | StatusCode::UNPROCESSABLE_ENTITY => {
            AppError::BadRequest(if text.is_empty() {
                "bad request".into()
            } else {
                text
            })
        }
        StatusCode::PAYLOAD_TOO_LARGE => AppError::TooLarge("the request is too large".into()),
        StatusCode::UNSUPPORTED_MEDIA_TYPE => AppError::UnsupportedMediaType(text),
        s if s.is_server_error() => AppError::Internal(format!("{s}: {text}")),
        s => AppError::BadRequest(format!("{s}: {text}")),
    };
    let mut shaped = error_response(app, api, e, headers).await;
    // Keep the status the server chose, except where the mapping above changed its meaning.
    if !page_404 && !status.is_server_error() && shaped.status().is_client_error() {
        *shaped.status_mut() = status;
    }
    shaped
}

fn set_headers(h: &mut HeaderMap) {
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("same-origin"),
    );
}

/// Drops the failures older than `window` from each key's list, and the keys with none left,
/// so the maps of failed logins stay small.
fn forget_old<K>(recent: &mut HashMap<K, VecDeque<Instant>>, now: Instant, window: Duration) {
    recent.retain(|_, times| {
        while times
            .front()
            .is_some_and(|t| now.duration_since(*t) >= window)
        {
            times.pop_front();
        }
        !times.is_empty()
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    fn headers(pairs: &[(&'static str, &'static str)]) -> HeaderMap {
        let mut h = HeaderMap::new();
        for (k, v) in pairs {
            h.insert(*k, HeaderValue::from_static(v));
        }
        h
    }

    #[test]
    fn origins() {
        let cases: &[(&[(&str, &str)], bool)] = &[
            (&[], true),
            (&[("host", "a:1"), ("origin", "http://a:1")], true),
            (&[("host", "a:1"), ("origin", "https://A:1")], true),
            (&[("host", "a:1"), ("origin", "http://evil:1")], false),
            (&[("host", "a:1"), ("origin", "null")], false),
            (&[("sec-fetch-site", "same-origin")], true),
            (&[("sec-fetch-site", "none")], true),
            (&[("sec-fetch-site", "cross-site")], false),
            (&[("sec-fetch-site", "same-site")], false),
        ];
        for (h, ok) in cases {
            assert_eq!(same_origin(&headers(h), false).is_ok(), *ok, "{h:?}");
        }
    }

    /// A cookie rides along on any site's form: a request signed in by it must name its
    /// origin; one with neither header (it once unfroze a contest) is refused.
    #[test]
    fn a_cookie_request_without_origin_or_fetch_site_is_refused() {
        let cases: &[(&[(&str, &str)], bool)] = &[
            (&[], false),
            (&[("host", "a:1")], false),
            (&[("host", "a:1"), ("origin", "http://a:1")], true),
            (&[("sec-fetch-site", "same-origin")], true),
            (&[("sec-fetch-site", "cross-site")], false),
        ];
        for (h, ok) in cases {
            assert_eq!(same_origin(&headers(h), true).is_ok(), *ok, "{h:?}");
        }
    }

    #[test]
    fn media_types() {
        let cases: &[(&[(&str, &str)], bool)] = &[
            (&[("content-type", "application/json")], true),
            (&[("content-type", "application/json; charset=utf-8")], true),
            (&[("content-type", "multipart/form-data; boundary=x")], true),
            (
                &[("content-type", "text/plain"), ("content-length", "3")],
                false,
            ),
            (
                &[("content-type", "application/x-www-form-urlencoded")],
                false,
            ),
            (&[("content-length", "0")], true),
            (&[], true),
        ];
        for (h, ok) in cases {
            assert_eq!(check_media_type(&headers(h)).is_ok(), *ok, "{h:?}");
        }
    }

    #[test]
    fn stream_permits_are_returned() {
        let g = Arc::new(Guards::new());
        let a = g.open_stream("alice", 2).expect("first");
        let _b = g.open_stream("alice", 2).expect("second");
        assert!(g.open_stream("alice", 2).is_none());
        assert!(g.open_stream("bob", 2).is_some());
        drop(a);
        assert!(g.open_stream("alice", 2).is_some());
    }

    #[test]
    fn wrong_passwords_are_limited_per_account_with_a_larger_address_budget() {
        let g = Guards::new();
        let hall: Option<IpAddr> = "10.0.0.1".parse().ok();
        for _ in 0..3 {
            assert!(g.password_allowed("alice", hall, 3).is_ok());
            g.password_failed("alice", hall);
        }
        assert!(
            g.password_allowed("alice", hall, 3).is_err(),
            "alice's account"
        );
        // The other teams of the hall, behind the same address, still log in.
        for i in 0..(3 * crate::auth::password::ADDRESS_FACTOR - 3) {
            let team = format!("team{}", i / 2);
            assert!(g.password_allowed(&team, hall, 3).is_ok(), "{team}");
            g.password_failed(&team, hall);
        }
        // The address's budget is spent: guessing across accounts stops too.
        assert!(g.password_allowed("bob", hall, 3).is_err());
        assert!(g
            .password_allowed("bob", "10.0.0.2".parse().ok(), 3)
            .is_ok());
        assert!(g.password_allowed("alice", hall, 0).is_ok(), "0: no limit");
    }

    #[test]
    fn login_failures_are_limited_per_address() {
        let g = Guards::new();
        let a: Option<IpAddr> = "127.0.0.2".parse().ok();
        let b: Option<IpAddr> = "127.0.0.3".parse().ok();
        for _ in 0..3 {
            assert!(g.login_allowed(a, 3).is_ok());
            g.login_failed(a);
        }
        assert!(g.login_allowed(a, 3).is_err());
        assert!(g.login_allowed(b, 3).is_ok());
        assert!(g.login_allowed(a, 0).is_ok());
    }
}
