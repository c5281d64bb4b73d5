//! What `ojd serve` and `ojd worker` share as processes, and only the binary does: the log's
//! subscriber on stderr ([`init_logging`]), the async runtime ([`runtime`]), the SIGTERM and
//! SIGINT handlers ([`shutdown_signal`]) and the daemon's exit code ([`daemon_exit`]). The
//! library crates only take a shutdown future and return typed errors.

use std::future::Future;

use ojd_service::ServerError;
use ojd_store::StoreError;
use tracing_subscriber::EnvFilter;

use crate::{print_error, EXIT_BAD_INPUT, EXIT_HOST_FAILED, EXIT_JUDGE_FAILED};

/// Installs the stderr subscriber of the operator's log (see `ojd_service::logging`), with
/// colours when `colour`. The filter follows `RUST_LOG`'s syntax (`OJD_LOG` first, then
/// `RUST_LOG`; default `info`). A bad filter is reported and the default used, so a typo never
/// silences the log.
pub fn init_logging(colour: bool) {
    let spec = std::env::var("OJD_LOG")
        .or_else(|_| std::env::var("RUST_LOG"))
        .unwrap_or_default();
    let (filter, bad) = if spec.trim().is_empty() {
        (EnvFilter::new("info"), None)
    } else {
        match EnvFilter::try_new(&spec) {
            Ok(f) => (f, None),
            Err(e) => (EnvFilter::new("info"), Some(format!("{spec:?}: {e}"))),
        }
    };
    let installed = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(colour)
        .with_target(false)
        .try_init()
        .is_ok();
    if let (true, Some(bad)) = (installed, bad) {
        tracing::warn!("the log filter {bad}; logging at info");
    }
}

/// The daemon's multi-threaded runtime, its threads named `name`.
pub fn runtime(name: &str) -> Result<tokio::runtime::Runtime, ServerError> {
    tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .thread_name(name)
        .build()
        .map_err(ServerError::Runtime)
}

/// Resolves when SIGTERM or SIGINT arrives. The handlers are installed by this call, not when
/// the future is first polled: call it before announcing the daemon (a script that reads
/// "listening" and sends SIGTERM at once gets a graceful stop, not the default death by
/// signal). Must be called inside the runtime.
pub fn shutdown_signal() -> impl Future<Output = ()> + Send + 'static {
    use tokio::signal::unix::{signal, SignalKind};
    let term = signal(SignalKind::terminate());
    let int = signal(SignalKind::interrupt());
    async move {
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
}

/// The exit code of a daemon command (see docs/daemon.md): 0 after a clean shutdown; 2 for
/// bad input (configuration, a database another daemon holds, a database that is not
/// shared); 3 when the judge could not start; 4 when the host failed (the address, the
/// runtime, the database's or the package cache's I/O). The error is printed.
pub fn daemon_exit(result: Result<(), ServerError>) -> i32 {
    let Err(e) = result else {
        return 0;
    };
    print_error(&e);
    match e {
        ServerError::Judge(_) => EXIT_JUDGE_FAILED,
        ServerError::DatabaseBusy { .. } | ServerError::NotShared(_) => EXIT_BAD_INPUT,
        // The data refuses (an identity alive elsewhere) or a newer ojd's schema: the
        // operator's input to change, not the host's failure.
        ServerError::Store(StoreError::Conflict(_) | StoreError::TooNew { .. }) => EXIT_BAD_INPUT,
        ServerError::Store(_)
        | ServerError::Bind { .. }
        | ServerError::Serve(_)
        | ServerError::Runtime(_)
        | ServerError::Cache(_) => EXIT_HOST_FAILED,
    }
}
