//! `ojd worker`: a judge host. It judges only: no HTTP server and no problems folder. It needs
//! the PostgreSQL database its `ojd serve` nodes use and its own sandbox and judge sections;
//! problems arrive as content-addressed packages from the database ([`crate::blobs`]), cached
//! under `<judge.cache>/packages`, beside the compile cache's `<judge.cache>/programs` and with a
//! budget of its own (`[judge] package_cache_size`). It claims with a lease that its heartbeat renews; killed,
//! its claims go back to the queue when the lease runs out (see [`crate::node::LEASE`]).
//! At its shutdown (the binary's SIGTERM/SIGINT): stop claiming, finish or requeue what runs
//! (as `serve` does), return.

use std::sync::Arc;

use crate::blobs::Cache;
use crate::logging::log;
use crate::node::{self, Node, ServerError};
use ojd_config::Config;

/// Starts a judge host named `name` (default: `<host name>/worker`); [`WorkerHost::run`]
/// then judges until its shutdown. Blocking: call it before the runtime starts. Its
/// identity is `identity` when given (a second process with it is refused while this one is
/// alive), else a new one (see `node::identity`).
pub fn start_worker(
    config: Config,
    name: Option<String>,
    identity: Option<String>,
    keeper: Option<std::path::PathBuf>,
) -> Result<WorkerHost, ServerError> {
    let database = config.server.database.to_string_lossy().into_owned();
    if !ojd_store::is_postgres_url(&database) {
        return Err(ServerError::NotShared(database));
    }
    let (judge, workers) = node::start_judge(&config, keeper)?;
    let cache = Cache::new(&judge.cache_dir().join("packages"))?
        .with_budget(config.judge.package_cache_size.bytes())
        .with_retention(config.server.retention);
    let name = name.unwrap_or_else(|| format!("{}/worker", node::host_name()));
    let identity = identity.unwrap_or_else(|| node::identity(&name));
    let app = Node::worker(
        config,
        judge,
        workers,
        (name.clone(), identity.clone()),
        cache,
    )?;
    Ok(WorkerHost {
        node: app,
        name,
        identity,
        database: ojd_store::redact_url(&database),
    })
}

/// A started judge host ([`start_worker`]): [`WorkerHost::run`] judges until its shutdown.
pub struct WorkerHost {
    node: Arc<Node>,
    /// Its name (a label) and its identity in the database.
    pub name: String,
    /// Its identity: unique per process, recorded with its claims and heartbeats.
    pub identity: String,
    /// The database, its password hidden (for the announcement).
    pub database: String,
}

impl WorkerHost {
    /// How many judging workers it runs.
    pub fn workers(&self) -> usize {
        self.node.workers
    }

    /// Claims and judges until `shutdown` completes, then drains. Inside the runtime.
    pub async fn run(self, shutdown: impl std::future::Future<Output = ()>) {
        let app = self.node;
        node::start_heartbeat(&app);
        node::start_listener(&app);
        let mut workers = crate::queue::spawn_workers(&app);
        shutdown.await;
        log("shutting down: no new judgings; waiting for the ones in flight");
        app.begin_stop();
        crate::queue::drain(&app, &mut workers).await;
        log(&format!(
            "stopped after judging {} submission(s)",
            app.metrics
                .judged
                .load(std::sync::atomic::Ordering::Relaxed)
        ));
    }
}
