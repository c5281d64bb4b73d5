//! `ojd serve`: the grading daemon.

use crate::{daemon_exit, Global, EXIT_BAD_INPUT};

/// Run the grading daemon: HTTP API and web pages, a persistent queue, parallel workers.
///
/// Loads every problem (building missing answers), then serves until SIGTERM or SIGINT and
/// prints the URL to open. Exit code: 0 after a clean shutdown, 2 bad configuration or the
/// address is taken, 3 the judge could not start.
///
/// Example: ojd serve --config contest.toml
#[derive(clap::Args)]
pub struct Args {}

pub fn run(_: Args, g: &Global) -> anyhow::Result<i32> {
    ojd_service::logging::init(crate::term::color_stderr());
    let config = match g.load_config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    Ok(daemon_exit(ojd_web::serve(config, None)))
}
