//! `ojd serve`: the grading daemon. This file owns the process: the runtime, the signal
//! handlers, what is printed on stdout and the exit code; `ojd-web` serves.

use std::io::Write;
use std::time::Duration;

use ojd_service::ServerError;

use crate::daemon::{daemon_exit, init_logging, runtime, shutdown_signal};
use crate::{Global, EXIT_BAD_INPUT};

/// Run the grading daemon: HTTP API and web pages, a persistent queue, parallel workers.
///
/// Loads every problem (building missing answers), then serves until SIGTERM or SIGINT and
/// prints the URL to open. Exit code: 0 after a clean shutdown, 2 bad configuration, 3 the
/// judge could not start, 4 the host failed (the address is taken, the database's I/O).
///
/// Example: ojd serve --config contest.toml
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_: Args, g: &Global) -> anyhow::Result<i32> {
    init_logging(crate::term::color_stderr());
    let config = match g.load_config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    Ok(daemon_exit(serve(config)))
}

/// Starts everything from `config` and serves until SIGTERM/SIGINT.
fn serve(config: ojd_config::Config) -> Result<(), ServerError> {
    let (judge, workers) = ojd_service::start_judge(&config, None)?;
    let app = ojd_web::App::start(config, judge, workers)?;
    let first_admin = app.ensure_admin()?;
    let runtime = runtime("ojd-server")?;
    runtime.block_on(async move {
        let (listener, url) = ojd_web::bind(&app).await?;
        let catalog = app.catalog();
        let stop = shutdown_signal();
        // stdout carries the URL (scripts and tests read it); the log goes to stderr.
        println!("ojd: listening on {url}");
        println!(
            "ojd: {} problem(s) ready, {} failed to load, {} worker(s)",
            catalog.ready_count(),
            catalog.failed.len(),
            app.judging_workers()
        );
        if let Some(link) = first_admin {
            println!(
                "ojd: first start: an admin was created; log in once, within {}, with {url}{link}",
                ojd_judge::format_duration(app.config().web.login_code_lifetime)
            );
        }
        let _ = std::io::stdout().flush();
        ojd_web::run(listener, app, stop).await
    })?;
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}
