//! `ojd worker`: a judge host.

use std::io::Write;
use std::time::Duration;

use ojd_service::ServerError;

use crate::daemon::{daemon_exit, init_logging, runtime, shutdown_signal};
use crate::{Global, EXIT_BAD_INPUT};

/// Run a judge host: claim submissions from the shared PostgreSQL database and judge them.
///
/// No HTTP server and no problems folder: problems come from the database by content hash and
/// are cached under the judge cache. Needs `[server] database = "postgres://…"` (the one the
/// `ojd serve` nodes use) and this host's sandbox and judge sections. Stops on SIGTERM or SIGINT
/// after its judgings finish (or are requeued). Exit code: 0 after a clean shutdown, 2 bad
/// configuration or database, 3 the judge could not start, 4 the host failed (its I/O, the
/// database does not answer).
///
/// Example: ojd worker --config judgehost.toml --name judge-2
#[derive(clap::Args)]
pub struct Args {
    /// This host's name on the hosts page (default: `<host name>/worker`): a label, several
    /// workers may share it.
    #[arg(long)]
    name: Option<String>,
    /// This process's identity in the database (its claims, `judged_by`); default: the name
    /// and 64 random bits, new at each start. Give a fixed one to take back this host's
    /// claims at once after a crash; a second process with an identity that is alive is
    /// refused.
    #[arg(long)]
    identity: Option<String>,
    /// Print the SQL that creates the least-privilege PostgreSQL role NAME for judge hosts
    /// (run it as the owner of ojd's tables), and exit.
    #[arg(long, value_name = "NAME")]
    print_role_sql: Option<String>,
}

pub fn run(args: Args, g: &Global) -> anyhow::Result<i32> {
    if let Some(role) = &args.print_role_sql {
        return match ojd_store::judge_host_role_sql(role) {
            Ok(sql) => {
                print!("{sql}");
                Ok(0)
            }
            Err(e) => {
                eprintln!("error: {e}");
                Ok(EXIT_BAD_INPUT)
            }
        };
    }
    init_logging(crate::term::color_stderr());
    let config = match g.load_config() {
        Ok(c) => c,
        Err(e) => {
            eprintln!("error: {e:#}");
            return Ok(EXIT_BAD_INPUT);
        }
    };
    if let Some(id) = &args.identity {
        if let Err(e) = ojd_service::check_identity(id) {
            eprintln!("error: {e}");
            return Ok(EXIT_BAD_INPUT);
        }
    }
    Ok(daemon_exit(judge_host(config, args.name, args.identity)))
}

/// Starts a judge host and judges until SIGTERM/SIGINT.
fn judge_host(
    config: ojd_config::Config,
    name: Option<String>,
    identity: Option<String>,
) -> Result<(), ServerError> {
    let host = ojd_service::start_worker(config, name, identity, None)?;
    let runtime = runtime("ojd-worker")?;
    runtime.block_on(async move {
        let stop = shutdown_signal();
        println!(
            "ojd: worker {} (identity {}) judging with {} worker(s) on {}",
            host.name,
            host.identity,
            host.workers(),
            host.database
        );
        let _ = std::io::stdout().flush();
        host.run(stop).await;
    });
    runtime.shutdown_timeout(Duration::from_secs(1));
    Ok(())
}
