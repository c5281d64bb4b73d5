//! `ojd serve`: the grading daemon's web layer. An axum server over one shared [`App`], which
//! wraps the judging [`Node`] of `ojd-service` (the problem catalog, the store that holds
//! submissions and the queue, the [`Judge`] and the queue of workers that call
//! [`Judge::judge`], the same pipeline as `ojd judge`: the server never judges inline, it
//! queues).
//!
//! # Theory of operation
//!
//! Start ([`App::start`]): open the database (migrations run), put back in the queue whatever a
//! previous run left half-judged, load every problem (generating missing or stale answers;
//! a problem that fails is reported and the rest are served), then [`run`] binds the HTTP
//! routes and spawns the workers. A submission is committed to the database before its id is
//! returned, so once a client has an id nothing is lost, whatever kills the daemon.
//!
//! Shutdown ([`run`] takes its trigger as a future, so tests drive it): stop claiming, close
//! the live streams, give in-flight judgings `shutdown_grace` to finish, then cancel them (the
//! judge stops between tests and they are requeued). A judging that still has not returned a
//! moment later is abandoned: its row stays `judging` and the next start requeues it.
//!
//! # Layout
//!
//! The modules form layers; a module names only modules of the layers below its own (CI checks
//! that no two modules name each other, directly or around a circle). From the bottom:
//!
//! 1. foundations: `error` (every way a request fails, as JSON), `user` (who a request comes
//!    from), `text` (UTC times, percent-encoding), `statement` (Markdown and TeX to safe HTML);
//! 2. `view` (the visibility policy: what a viewer may see) and `html` (the page frame, errors
//!    as pages, the parts pages are made of);
//! 3. `auth` (tokens, sessions, login codes, the extractors, the submission rate limit) and
//!    `security` (the guard middleware around every route);
//! 4. the web layer's model: `contests` (registry, rules, standings and their cache, CSV,
//!    clarifications), `rejudgings`, `submit` (a submission checked and queued), `listing`
//!    (the submissions list's query);
//! 5. what is served: `api` (JSON under `/api/v1`, the live event stream included), `pages`
//!    (problems, submissions, login, contests), `admin` (users, problems and uploads, queue,
//!    rejudgings), `metrics` (`/healthz`, `/metrics`);
//! 6. this file: [`App`], the [`router`] over every module's routes, [`bind`] and [`run`].
//!
//! The process is the binary's: it builds the runtime, installs the signal handlers, prints the
//! announcements and decides the exit code; this crate takes a shutdown future and returns
//! typed errors.

#![forbid(unsafe_code)]

// Foundations: they name no module above them.
mod error;
mod statement;
mod text;
mod user;
// What a viewer may see, and the HTML that shows it.
mod html;
mod view;
// Who is asking; the guards around every request.
mod auth;
mod security;
// The web layer's model over the judging service.
mod contests;
mod history;
mod listing;
mod rejudgings;
mod submit;
// What is served: JSON, pages, the admins' pages, the operator's endpoints.
mod admin;
mod api;
mod ccs;
mod metrics;
mod pages;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use axum::extract::DefaultBodyLimit;
use axum::Router;

use ojd_config::Config;
use ojd_judge::Judge;
use ojd_service::Catalog;
use ojd_service::Store;
use ojd_service::{drain, spawn_workers};
use ojd_service::{start_heartbeat, start_listener, Node};

pub use api::events::RECHECK as EVENT_STREAM_RECHECK;
pub use auth::session::shown_address;
pub use ojd_service::ServerError;
/// The statement renderer (Markdown and TeX to safe HTML), for `ojd import`'s check.
pub use statement::render as render_statement;
pub use text::utc_time;

use ojd_service::logging::log;

/// Everything the handlers share: the judging [`Node`] (store, judge, problems, queue), and
/// what only the web layer needs (contests, rate limits, guards).
pub struct App {
    node: Arc<Node>,
    /// The contests under `server.contests`, reloaded with the problems.
    contests: contests::Registry,
    limiter: auth::limit::RateLimiter,
    /// The config's token digests and when issued tokens were last marked as used.
    tokens: auth::TokenCache,
    /// The web layer's guards: login attempts, open event streams, drafts of refused
    /// submissions.
    guards: Arc<security::Guards>,
    /// The idempotency keys of the Contest API's clarifications (a submission's are stored).
    once: Arc<ojd_service::Once>,
}

impl App {
    /// Opens the store, requeues interrupted work and loads the problems and contests.
    /// Blocking: call it before the runtime starts or on a blocking thread.
    pub fn start(config: Config, judge: Judge, workers: usize) -> Result<Arc<App>, ServerError> {
        Ok(App::over(Node::start(
            config,
            judge,
            workers,
            statement::render,
        )?))
    }

    /// A single-host daemon over `store`: everything left `judging` is requeued at start.
    pub fn with_store(
        config: Config,
        judge: Judge,
        workers: usize,
        store: Arc<dyn Store>,
    ) -> Result<Arc<App>, ServerError> {
        Ok(App::over(Node::with_store(
            config,
            judge,
            workers,
            store,
            statement::render,
        )?))
    }

    /// The web layer over a started node.
    fn over(node: Arc<Node>) -> Arc<App> {
        Arc::new(App {
            contests: contests::Registry::load(&node),
            limiter: auth::limit::RateLimiter::new(node.config().server.rate_limit_per_minute),
            tokens: auth::TokenCache::default(),
            guards: Arc::new(security::Guards::new()),
            once: ojd_service::Once::new(),
            node,
        })
    }

    /// Loads every problem and contest again (blocking: it may generate answers).
    fn reload(&self) -> Arc<Catalog> {
        let fresh = self.node.reload();
        self.contests.reload(self.node.config());
        fresh
    }
}

/// The HTTP routes: every group is in the module that serves it, the guards around them all.
pub fn router(app: Arc<App>) -> Router {
    let max = app.node.config().server.max_submission_size.bytes() as usize;
    let max_package = app.node.config().web.max_package_size.bytes() as usize;
    Router::new()
        .merge(pages::routes())
        .merge(admin::routes(max_package))
        .merge(metrics::routes())
        .nest("/api/v1", api::routes())
        .merge(ccs::routes())
        // Multipart framing and form fields come on top of the submission itself.
        .layer(DefaultBodyLimit::max(max + 64 * 1024))
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            security::guard,
        ))
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            submit::bounded_db_waits,
        ))
        .with_state(app)
}

/// Serves `listener` until `shutdown` completes, with the workers running; then drains.
pub async fn run(
    listener: tokio::net::TcpListener,
    app: Arc<App>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> Result<(), ServerError> {
    start_heartbeat(&app.node);
    start_listener(&app.node);
    let mut workers = spawn_workers(&app.node);
    let stop_app = app.clone();
    let mut stopped = app.node.stopping();
    let server = axum::serve(
        listener,
        router(app.clone()).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        shutdown.await;
        log("shutting down: no new judgings; waiting for the ones in flight");
        stop_app.node.begin_stop();
    });
    let mut served = tokio::spawn(async move { server.await });
    // The HTTP side ends only after the trigger fired, unless it failed: wait for the trigger
    // (or that failure), then drain the workers.
    let mut server_result = None;
    tokio::select! {
        biased;
        _ = stopped.wait_for(|s| *s) => {}
        r = &mut served => server_result = Some(r),
    }
    if let Some(r) = &server_result {
        if !app.node.is_stopping() {
            app.node.begin_stop();
            app.node.hub().cancel_all();
            let e = match r {
                Ok(Err(e)) => std::io::Error::new(e.kind(), e.to_string()),
                _ => std::io::Error::other("the HTTP server stopped"),
            };
            return Err(ServerError::Serve(e));
        }
    }
    drain(&app.node, &mut workers).await;
    // Open connections (event streams, keep-alive) get a moment to close; then they are dropped.
    let server_result = match server_result {
        Some(r) => Some(r),
        None => tokio::time::timeout(Duration::from_secs(2), served)
            .await
            .ok(),
    };
    if let Some(Ok(Err(e))) = server_result {
        return Err(ServerError::Serve(e));
    }
    log(&format!(
        "stopped after judging {} submission(s)",
        app.node.metrics().judged.load(Ordering::Relaxed)
    ));
    Ok(())
}

impl App {
    /// The daemon's configuration.
    pub fn config(&self) -> &Config {
        self.node.config()
    }

    /// The problems as loaded now.
    pub fn catalog(&self) -> Arc<Catalog> {
        self.node.catalog()
    }

    /// How many judging workers this node runs.
    pub fn judging_workers(&self) -> usize {
        self.node.judging_workers()
    }

    /// On a first start with no admin anywhere, issues one and returns a one-time login link
    /// for it (`login?code=…`, to print after the site's address). Blocking.
    pub fn ensure_admin(&self) -> Result<Option<String>, ServerError> {
        auth::ensure_admin(self)
    }
}

/// Binds the configured address (`[server] listen`); with the URL to announce.
pub async fn bind(app: &App) -> Result<(tokio::net::TcpListener, String), ServerError> {
    let addr = app.config().server.listen.clone();
    let listener = tokio::net::TcpListener::bind(&addr)
        .await
        .map_err(|source| ServerError::Bind {
            addr: addr.clone(),
            source,
        })?;
    let local = listener
        .local_addr()
        .map_err(|source| ServerError::Bind { addr, source })?;
    Ok((listener, public_url(local)))
}

/// The URL to print: a wildcard address is shown as loopback, which works from this host.
fn public_url(addr: SocketAddr) -> String {
    let ip = match addr.ip() {
        std::net::IpAddr::V4(v4) if v4.is_unspecified() => "127.0.0.1".to_string(),
        std::net::IpAddr::V6(v6) if v6.is_unspecified() => "[::1]".to_string(),
        std::net::IpAddr::V6(v6) => format!("[{v6}]"),
        ip => ip.to_string(),
    };
    format!("http://{ip}:{}/", addr.port())
}
