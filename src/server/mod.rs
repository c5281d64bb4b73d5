//! `ojd serve`: the grading daemon. An axum server over one shared [`App`]: the problem
//! [`catalog`], the [`Store`](crate::store::Store) that holds submissions and the queue, the
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

pub mod admin;
pub mod api;
pub mod auth;
pub mod catalog;
pub mod contest_pages;
pub mod contests;
pub mod error;
pub mod html;
pub mod listing;
pub mod logging;
pub mod login;
pub mod math;
pub mod metrics;
pub mod pages;
pub mod queue;
pub mod rejudging_pages;
pub mod rejudgings;
pub mod security;
pub mod sse;
pub mod statement;
pub mod upload;
pub mod view;

use std::future::Future;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use axum::routing::{get, post};
use axum::Router;
use tokio::sync::{watch, Notify};

use crate::blobs::Cache;
use crate::config::Config;
use crate::judge::Judge;
use crate::store::{Store, StoreError};

pub use catalog::Catalog;
pub use logging::log;

/// Why the daemon could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    #[error(transparent)]
    Store(#[from] StoreError),
    #[error("failed to start the judge")]
    Judge(#[from] crate::judge::JudgeError),
    #[error("failed to listen on {addr}")]
    Bind {
        addr: String,
        #[source]
        source: std::io::Error,
    },
    #[error("the HTTP server failed")]
    Serve(#[source] std::io::Error),
    #[error("another ojd serve is using the database {path} (it holds {lock})")]
    DatabaseBusy { path: String, lock: String },
    #[error("failed to start the async runtime")]
    Runtime(#[source] std::io::Error),
    #[error("the package cache")]
    Cache(#[from] crate::blobs::BlobError),
    #[error(
        "ojd worker needs a PostgreSQL database shared with ojd serve (postgres://…), not {0}"
    )]
    NotShared(String),
}

/// How long a claim's lease lasts without a heartbeat. A host that dies loses its claims this
/// long after its last heartbeat; an idle worker looks for work at least every
/// [`IDLE_POLL`], so a dead host's submission is judged again within 12 s (the documented
/// bound is 15 s).
pub const LEASE: Duration = Duration::from_secs(10);
/// How often a node renews its leases and says it is alive.
pub const HEARTBEAT: Duration = Duration::from_secs(2);
/// The longest an idle worker waits before looking at the queue again.
pub const IDLE_POLL: Duration = Duration::from_secs(2);

/// What a node does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// `ojd serve`: HTTP, problems from its folder, maybe local workers.
    Serve,
    /// `ojd worker`: judging only, problems from the database.
    Worker,
}

impl Role {
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Serve => "serve",
            Role::Worker => "worker",
        }
    }
}

/// Everything the handlers and workers share.
pub struct App {
    pub config: Config,
    pub judge: Arc<Judge>,
    pub store: Arc<dyn Store>,
    catalog: RwLock<Arc<Catalog>>,
    /// The contests under `server.contests`, reloaded with the problems.
    pub contests: contests::Registry,
    pub hub: queue::Hub,
    pub limiter: auth::RateLimiter,
    /// The web layer's guards: login attempts, open event streams, config token digests.
    pub guards: Arc<security::Guards>,
    pub metrics: metrics::Counters,
    /// Wakes an idle worker when work is queued.
    pub wake: Notify,
    /// Becomes true when shutdown begins.
    stop_tx: watch::Sender<bool>,
    pub started: Instant,
    pub workers: usize,
    /// This node's name, recorded as `judged_by` on the judgings its workers make.
    pub host: String,
    pub role: Role,
    /// Whether other nodes share the database (PostgreSQL): events then go through it.
    pub shared: bool,
    /// A judge host's package cache (workers without a problems folder).
    pub packages: Option<Arc<Cache>>,
    /// Set when the heartbeat may stop (after the workers drained).
    beat_stop: Arc<AtomicBool>,
    /// The flock on `<database>.lock`, held while the daemon runs.
    db_lock: std::sync::Mutex<Option<std::fs::File>>,
}

/// Takes an exclusive lock on `<database>.lock`; the kernel drops it when the daemon exits.
/// `None` when the lock file cannot be made (opening the database then reports why).
fn lock_database(db: &std::path::Path) -> Result<Option<std::fs::File>, ServerError> {
    let mut name = db.as_os_str().to_owned();
    name.push(".lock");
    let path = std::path::PathBuf::from(name);
    let Ok(file) = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
    else {
        return Ok(None);
    };
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(_) => Err(ServerError::DatabaseBusy {
            path: db.display().to_string(),
            lock: path.display().to_string(),
        }),
    }
}

impl App {
    /// Opens the store, requeues interrupted work and loads the problems. Blocking: call it
    /// before the runtime starts or on a blocking thread.
    pub fn start(config: Config, judge: Judge, workers: usize) -> Result<Arc<App>, ServerError> {
        let database = config.server.database.to_string_lossy().into_owned();
        if crate::store::is_postgres_url(&database) {
            // Many nodes share it; each takes back only its own interrupted claims.
            let store = crate::store::open(&database)?;
            let host = format!("{}/serve", host_name());
            return App::build(config, judge, workers, store, Role::Serve, host, None);
        }
        // Two daemons on one database would both requeue and judge the same submissions.
        let lock = lock_database(&config.server.database)?;
        let store = crate::store::open(&database)?;
        let app = App::with_store(config, judge, workers, store)?;
        *app.db_lock.lock().unwrap_or_else(|e| e.into_inner()) = lock;
        Ok(app)
    }

    /// A single-host daemon over `store`: everything left `judging` is requeued at start.
    pub fn with_store(
        config: Config,
        judge: Judge,
        workers: usize,
        store: Arc<dyn Store>,
    ) -> Result<Arc<App>, ServerError> {
        let requeued = store.requeue_interrupted(None)?;
        if requeued > 0 {
            log(&format!(
                "requeued {requeued} submission(s) left half-judged by the previous run"
            ));
        }
        App::build(
            config,
            judge,
            workers,
            store,
            Role::Serve,
            host_name(),
            None,
        )
    }

    /// A judge host (`ojd worker`): no problems folder, packages from the database.
    pub fn worker(
        mut config: Config,
        judge: Judge,
        workers: usize,
        name: String,
        cache: Cache,
    ) -> Result<Arc<App>, ServerError> {
        let database = config.server.database.to_string_lossy().into_owned();
        let store = crate::store::open(&database)?;
        // A judge host serves no contests (a missing folder is none).
        config.server.contests = config.judge.cache.join("no-contests");
        App::build(
            config,
            judge,
            workers,
            store,
            Role::Worker,
            name,
            Some(Arc::new(cache)),
        )
    }

    fn build(
        config: Config,
        judge: Judge,
        workers: usize,
        store: Arc<dyn Store>,
        role: Role,
        host: String,
        packages: Option<Arc<Cache>>,
    ) -> Result<Arc<App>, ServerError> {
        let shared = crate::store::is_postgres_url(&config.server.database.to_string_lossy());
        if shared {
            let requeued = store.requeue_interrupted(Some(&host))?;
            if requeued > 0 {
                log(&format!(
                    "requeued {requeued} submission(s) this host ({host}) left half-judged"
                ));
            }
        }
        let catalog = match role {
            Role::Serve => {
                let catalog = Catalog::load(&config, &judge);
                catalog.report();
                publish_all(store.as_ref(), &catalog);
                catalog
            }
            Role::Worker => Catalog::default(),
        };
        let contests = contests::Registry::load(&config);
        let (stop_tx, _) = watch::channel(false);
        let hub = queue::Hub::new();
        if shared {
            hub.forward_to(store.clone(), host.clone());
        }
        Ok(Arc::new(App {
            limiter: auth::RateLimiter::new(config.server.rate_limit_per_minute),
            guards: Arc::new(security::Guards::new()),
            config,
            judge: Arc::new(judge),
            store,
            catalog: RwLock::new(Arc::new(catalog)),
            contests,
            hub,
            metrics: metrics::Counters::default(),
            wake: Notify::new(),
            stop_tx,
            started: Instant::now(),
            workers,
            host,
            role,
            shared,
            packages,
            beat_stop: Arc::new(AtomicBool::new(false)),
            db_lock: std::sync::Mutex::new(None),
        }))
    }

    /// The problems as loaded now (a snapshot: a reload swaps in a new one).
    pub fn catalog(&self) -> Arc<Catalog> {
        self.catalog
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Loads every problem again (blocking: it may generate answers).
    pub fn reload(&self) -> Arc<Catalog> {
        let fresh = Arc::new(Catalog::load(&self.config, &self.judge));
        fresh.report();
        publish_all(self.store.as_ref(), &fresh);
        *self.catalog.write().unwrap_or_else(|e| e.into_inner()) = fresh.clone();
        self.contests.reload(&self.config);
        fresh
    }

    /// Runs a store operation on a blocking thread.
    pub async fn db<T, F>(self: &Arc<Self>, f: F) -> Result<T, error::AppError>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Store) -> Result<T, StoreError> + Send + 'static,
    {
        let store = self.store.clone();
        match tokio::task::spawn_blocking(move || f(store.as_ref())).await {
            Ok(r) => r.map_err(error::AppError::from),
            Err(e) => Err(error::AppError::Internal(format!(
                "a database task failed: {e}"
            ))),
        }
    }

    pub fn stopping(&self) -> watch::Receiver<bool> {
        self.stop_tx.subscribe()
    }

    pub fn is_stopping(&self) -> bool {
        *self.stop_tx.borrow()
    }
}

/// Publishes every loaded problem to the database (content-addressed: unchanged files cost
/// nothing), so judge hosts without the folder can judge it; failures are logged.
fn publish_all(store: &dyn Store, catalog: &Catalog) {
    let now = crate::store::now_ms();
    for (id, entry) in &catalog.problems {
        if let Err(e) = crate::blobs::publish(store, &entry.problem, now) {
            log(&format!(
                "problem {id}: cannot publish it to judge hosts: {e}"
            ));
        }
    }
}

/// Starts the node's heartbeat (a thread of its own, so a busy runtime cannot starve it): it
/// renews the leases of the submissions this node's workers judge (and only those) every
/// [`HEARTBEAT`] until [`App::stop_heartbeat`].
pub fn start_heartbeat(app: &Arc<App>) {
    let store = app.store.clone();
    let host = app.host.clone();
    let role = app.role.as_str();
    let stop = app.beat_stop.clone();
    let started = crate::store::now_ms();
    let mut failing = false;
    let weak = Arc::downgrade(app);
    let spawned = std::thread::Builder::new()
        .name("ojd-heartbeat".into())
        .spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let now = crate::store::now_ms();
                let lease = now + LEASE.as_millis() as i64;
                let (stats, judging) = weak
                    .upgrade()
                    .map(|app| (metrics::host_stats(&app), app.hub.local_ids()))
                    .unwrap_or_default();
                match store.heartbeat(&host, role, started, now, lease, &judging, &stats) {
                    Ok(_) if failing => {
                        failing = false;
                        log("the database answers again; leases renewed");
                    }
                    Ok(_) => {}
                    Err(e) if !failing => {
                        failing = true;
                        log(&format!(
                            "heartbeat failed (retrying): {}",
                            queue::error_chain(&e)
                        ));
                    }
                    Err(_) => {}
                }
                std::thread::sleep(HEARTBEAT);
            }
        });
    if let Err(e) = spawned {
        log(&format!("cannot start the heartbeat: {e}"));
    }
}

/// Feeds other nodes' live events into this node's hub (PostgreSQL only).
pub fn start_listener(app: &Arc<App>) {
    if !app.shared {
        return;
    }
    let weak = Arc::downgrade(app);
    let sink = Box::new(move |channel: &str, payload: String| {
        if let Some(app) = weak.upgrade() {
            if channel == crate::store::cluster::QUEUED {
                app.wake.notify_waiters();
            } else {
                app.hub.apply_remote(&app.host, &payload);
            }
        }
    });
    if let Err(e) = app.store.listen(sink) {
        log(&format!(
            "live events from other hosts are off: {}",
            queue::error_chain(&e)
        ));
    }
}

impl App {
    /// Starts shutdown: no new claims; idle workers wake up and end.
    pub fn begin_stop(&self) {
        self.stop_tx.send_replace(true);
        self.wake.notify_waiters();
    }

    /// Lets the heartbeat thread end (after the workers drained).
    pub fn stop_heartbeat(&self) {
        self.beat_stop.store(true, Ordering::Relaxed);
    }
}

/// The machine's host name (`judged_by`), or "localhost" when the kernel does not say.
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
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
    start_heartbeat(&app);
    start_listener(&app);
    let mut workers = queue::spawn_workers(&app);
    let stop_app = app.clone();
    let mut stopped = app.stopping();
    let server = axum::serve(
        listener,
        router(app.clone()).into_make_service_with_connect_info::<SocketAddr>(),
    )
    .with_graceful_shutdown(async move {
        shutdown.await;
        log("shutting down: no new judgings; waiting for the ones in flight");
        stop_app.stop_tx.send_replace(true);
        stop_app.wake.notify_waiters();
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
            app.stop_tx.send_replace(true);
            app.hub.cancel_all();
            let e = match r {
                Ok(Err(e)) => std::io::Error::new(e.kind(), e.to_string()),
                _ => std::io::Error::other("the HTTP server stopped"),
            };
            return Err(ServerError::Serve(e));
        }
    }
    drain(&app, &mut workers).await;
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

/// Waits for the workers to finish their judgings (`shutdown_grace`), then cancels the rest
/// (requeued); stops the heartbeat last, so leases hold while judgings finish.
pub async fn drain(app: &Arc<App>, workers: &mut queue::Workers) {
    let grace = app.config.server.shutdown_grace;
    let drained = tokio::time::timeout(grace, workers.join()).await.is_ok();
    if !drained {
        let n = app.hub.cancel_all();
        log(&format!(
            "{n} judging(s) still running after {grace:?}: cancelling and requeueing them"
        ));
        // Cancellation is seen between tests; a test runs for at most its wall limit.
        if tokio::time::timeout(Duration::from_secs(5), workers.join())
            .await
            .is_err()
        {
            log("some judgings did not stop; they will be judged again at the next start");
        }
    }
    app.stop_heartbeat();
}

/// Resolves when SIGTERM or SIGINT arrives.
pub async fn shutdown_signal() {
    use tokio::signal::unix::{signal, SignalKind};
    let term = signal(SignalKind::terminate());
    let int = signal(SignalKind::interrupt());
    match (term, int) {
        (Ok(mut term), Ok(mut int)) => {
            tokio::select! {
                _ = term.recv() => {}
                _ = int.recv() => {}
            }
        }
        // Without signal handlers the daemon still serves; it is then stopped by SIGKILL.
        _ => std::future::pending::<()>().await,
    }
}

/// The judge a daemon's workers share (`[server] workers`, 0: one per core), its isolation
/// warnings logged; with the worker count. Used by `ojd serve` and `ojd worker`.
pub(crate) fn start_judge(
    config: &Config,
    keeper: Option<std::path::PathBuf>,
) -> Result<(Judge, usize), ServerError> {
    let workers = match config.server.workers {
        0 => std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        n => n,
    };
    let mut judge = Judge::new(config.clone(), workers)?;
    if let Some(k) = keeper {
        judge.set_keeper(k);
    }
    for w in judge.warnings()? {
        log(&format!("warning: {w}"));
    }
    Ok((judge, workers))
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
                crate::units::format_duration(app.config.web.login_code_lifetime)
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
