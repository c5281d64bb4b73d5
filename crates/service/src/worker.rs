//! `ojd worker`: a judge host. It judges only: no HTTP server and no problems folder. It needs
//! the PostgreSQL database its `ojd serve` nodes use and its own sandbox and judge sections;
//! problems arrive as content-addressed packages from the database ([`crate::blobs`]), cached
//! under `<judge.cache>/packages`, beside the compile cache's `<judge.cache>/programs` and with a
//! budget of its own (`[judge] package_cache_size`). It claims with a lease that its heartbeat renews; killed,
//! its claims go back to the queue when the lease runs out (see [`crate::node::LEASE`]).
//! SIGTERM/SIGINT: stop claiming, finish or requeue what runs (as `serve` does), exit.

use std::io::Write;
use std::time::Duration;

use crate::blobs::Cache;
use crate::logging::log;
use crate::node::{self, Node, ServerError};
use ojd_judge::Config;

/// Runs a judge host named `name` (default: `<host name>/worker`) until SIGTERM/SIGINT. Its
/// identity is `identity` when given (a second process with it is refused while this one is
/// alive), else a new one (see [`node::identity`]).
pub fn run_worker(
    config: Config,
    name: Option<String>,
    identity: Option<String>,
    keeper: Option<std::path::PathBuf>,
) -> Result<(), ServerError> {
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
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name("ojd-worker")
        .build()
        .map_err(ServerError::Runtime)?;
    runtime.block_on(async move {
        node::start_heartbeat(&app);
        node::start_listener(&app);
        let mut workers = crate::queue::spawn_workers(&app);
        let stop = node::shutdown_signal();
        println!(
            "ojd: worker {name} (identity {identity}) judging with {} worker(s) on {}",
            app.workers,
            ojd_store::redact_url(&database)
        );
        let _ = std::io::stdout().flush();
        stop.await;
        log("shutting down: no new judgings; waiting for the ones in flight");
        app.begin_stop();
        crate::queue::drain(&app, &mut workers).await;
        log(&format!(
            "stopped after judging {} submission(s)",
            app.metrics
                .judged
                .load(std::sync::atomic::Ordering::Relaxed)
        ));
    });
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}
