//! `ojd serve`: the grading daemon. An axum server over one shared [`App`]: the problem
//! [`catalog`], the [`Store`](ojd_store::Store) that holds submissions and the queue, the
//! [`Judge`] and the [`queue`] of workers that call [`Judge::judge`] (the same pipeline as
//! `ojd judge`; the server never judges inline, it queues).
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
//! Layout: [`api`] (JSON under `/api/v1`), [`sse`] (live progress), [`pages`] and [`html`]
//! (the students' web pages), [`auth`] (tokens, rate limit), [`metrics`], [`error`], [`logging`]
//! (the operator's log).

#![forbid(unsafe_code)]

pub mod admin;
pub mod api;
pub mod auth;
pub mod contest_pages;
pub mod contests;
pub mod error;
pub mod html;
pub mod listing;
pub mod login;
pub mod math;
pub mod metrics;
pub mod pages;
pub mod rejudging_pages;
pub mod rejudgings;
pub mod security;
pub mod sse;
pub mod statement;
pub mod upload;
pub mod view;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

use axum::routing::{get, post};
use axum::Router;

use ojd_judge::config::Config;
use ojd_judge::judge::Judge;
use ojd_service::catalog::Catalog;
use ojd_service::node::{shutdown_signal, start_heartbeat, start_judge, start_listener, Node};
use ojd_service::queue::{self, drain};
use ojd_store::{Store, StoreError};

pub use ojd_service::logging::log;
pub use ojd_service::node::ServerError;

/// Everything the handlers share: the judging [`Node`] (store, judge, problems, queue), and
/// what only the web layer needs (contests, rate limits, guards).
pub struct App {
    pub node: Arc<Node>,
    /// The contests under `server.contests`, reloaded with the problems.
    pub contests: contests::Registry,
    pub limiter: auth::RateLimiter,
    /// The web layer's guards: login attempts, open event streams, config token digests.
    pub guards: Arc<security::Guards>,
}

impl std::ops::Deref for App {
    type Target = Node;

    fn deref(&self) -> &Node {
        &self.node
    }
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
    pub fn over(node: Arc<Node>) -> Arc<App> {
        Arc::new(App {
            contests: contests::Registry::load(&node.config),
            limiter: auth::RateLimiter::new(node.config.server.rate_limit_per_minute),
            guards: Arc::new(security::Guards::new()),
            node,
        })
    }

    /// Loads every problem and contest again (blocking: it may generate answers).
    pub fn reload(&self) -> Arc<Catalog> {
        let fresh = self.node.reload();
        self.contests.reload(&self.config);
        fresh
    }

    /// Runs a store operation on a blocking thread.
    pub async fn db<T, F>(self: &Arc<Self>, f: F) -> Result<T, error::AppError>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Store) -> Result<T, StoreError> + Send + 'static,
    {
        self.node.db(f).await.map_err(error::AppError::from)
    }
}

/// The problem `id` of `catalog`, or the 404 a request for an unknown problem gets.
pub(crate) fn find_problem<'a>(
    catalog: &'a Catalog,
    id: &str,
) -> Result<&'a ojd_service::catalog::Entry, error::AppError> {
    catalog
        .get(id)
        .ok_or_else(|| error::AppError::NotFound(format!("no problem {id:?}")))
}

/// The HTTP routes.
pub fn router(app: Arc<App>) -> Router {
    let max = app.config.server.max_submission_size.bytes() as usize;
    Router::new()
        .route("/", get(pages::index))
        .route("/login", get(login::login_form).post(login::login))
        .route("/logout", post(login::logout))
        .route("/problems/{id}", get(pages::problem))
        .route("/problems/{id}/submit", post(pages::submit))
        .route("/submissions", get(pages::submissions))
        .route("/submissions/{id}", get(pages::submission))
        .route("/submissions/{id}/results", get(pages::submission_results))
        .route("/submissions/{id}/source", get(pages::submission_source))
        .route("/submissions/{id}/rejudge", post(pages::rejudge))
        .route("/admin/users", get(admin::users).post(admin::issue))
        .route("/admin/users/link", post(admin::link))
        .route("/admin/tokens/revoke", post(admin::revoke))
        .route("/admin/problems", get(admin::problems))
        .route("/admin/problems/reload", post(admin::reload))
        .route("/admin/problems/{id}/rejudge", post(admin::rejudge_problem))
        .route(
            "/admin/problems/upload",
            post(admin::upload).layer(axum::extract::DefaultBodyLimit::max(
                app.config.web.max_package_size.bytes() as usize + 64 * 1024,
            )),
        )
        .route("/admin/queue", get(admin::queue))
        .route("/static/{file}", get(pages::asset))
        .route("/healthz", get(metrics::healthz))
        .route("/metrics", get(metrics::prometheus))
        .route("/api/v1/admin/hosts", get(metrics::hosts))
        .merge(contest_pages::routes())
        .merge(rejudging_pages::routes())
        .nest(
            "/api/v1",
            api::routes()
                .merge(contests::routes())
                .merge(rejudgings::routes()),
        )
        // Multipart framing and form fields come on top of the submission itself.
        .layer(axum::extract::DefaultBodyLimit::max(max + 64 * 1024))
        .layer(axum::middleware::from_fn_with_state(
            app.clone(),
            security::guard,
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
    let mut workers = queue::spawn_workers(&app.node);
    let stop_app = app.clone();
    let mut stopped = app.stopping();
    let server = axum::serve(
        listener,
        router(app.clone()).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        shutdown.await;
        log("shutting down: no new judgings; waiting for the ones in flight");
        stop_app.begin_stop();
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
        if !app.is_stopping() {
            app.begin_stop();
            app.hub.cancel_all();
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
        app.metrics.judged.load(Ordering::Relaxed)
    ));
    Ok(())
}

/// `ojd serve`: starts everything from `config` and serves until SIGTERM/SIGINT.
pub fn serve(config: Config, keeper: Option<std::path::PathBuf>) -> Result<(), ServerError> {
    let (judge, workers) = start_judge(&config, keeper)?;
    let app = App::start(config, judge, workers)?;
    let first_admin = auth::ensure_admin(&app)?;
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("ojd-server")
        .build()
        .map_err(ServerError::Runtime)?;
    runtime.block_on(async move {
        let addr = app.config.server.listen.clone();
        let listener = tokio::net::TcpListener::bind(&addr)
            .await
            .map_err(|source| ServerError::Bind {
                addr: addr.clone(),
                source,
            })?;
        let local = listener
            .local_addr()
            .map_err(|source| ServerError::Bind { addr, source })?;
        let url = public_url(local);
        let catalog = app.catalog();
        // stdout carries the URL (scripts and tests read it); the log goes to stderr.
        println!("ojd: listening on {url}");
        println!(
            "ojd: {} problem(s) ready, {} failed to load, {} worker(s)",
            catalog.ready_count(),
            catalog.failed.len(),
            workers
        );
        if let Some(link) = first_admin {
            println!(
                "ojd: first start: an admin was created; log in once, within {}, with {url}{link}",
                ojd_judge::units::format_duration(app.config.web.login_code_lifetime)
            );
        }
        use std::io::Write;
        let _ = std::io::stdout().flush();
        run(listener, app, shutdown_signal()).await
    })?;
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(())
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
