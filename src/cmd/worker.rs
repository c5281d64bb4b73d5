//! `ojd worker`: a judge host.

use crate::{daemon_exit, Global, EXIT_BAD_INPUT};

/// Run a judge host: claim submissions from the shared PostgreSQL database and judge them.
///
/// No HTTP server and no problems folder: problems come from the database by content hash and
/// are cached under the judge cache. Needs `[server] database = "postgres://…"` (the one the
/// `ojd serve` nodes use) and this host's sandbox and judge sections. Stops on SIGTERM or SIGINT
/// after its judgings finish (or are requeued). Exit code: 0 after a clean shutdown, 2 bad
/// configuration or database, 3 the judge could not start.
///
/// Example: ojd worker --config judgehost.toml --name judge-2
#[derive(clap::Args)]
pub struct Args {
    /// This host's name in `judged_by` and the hosts list (default: `<host name>/worker`);
    /// give each worker on one machine its own.
    #[arg(long)]
    name: Option<String>,
}

pub fn run(args: Args, g: &Global) -> anyhow::Result<i32> {
    ojd_service::logging::init();
    let config = match g.load_config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    Ok(daemon_exit(ojd_service::worker::run(config, args.name, None)))
}
