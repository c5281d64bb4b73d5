//! `ojd token`: the daemon's login tokens.

use crate::Global;

/// Issue, list or revoke the daemon's login tokens (kept hashed in its database).
///
/// Example: ojd token issue alice   (prints the new token once)
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Issue a new token for NAME and print it (it cannot be shown again).
    Issue {
        name: String,
        /// The token may use the admin API and see every submission.
        #[arg(long)]
        admin: bool,
    },
    /// List the names that have tokens.
    List,
    /// Revoke every token of NAME.
    Revoke { name: String },
}

pub fn run(a: Args, g: &Global) -> anyhow::Result<i32> {
    use ojd::store::Store;
    let config = g.load_config()?;
    let store = ojd::store::SqliteStore::open(&config.server.database)?;
    match a.action {
        Action::Issue { name, admin } => {
            let token = ojd::server::auth::issue_token(&store, &name, admin)?;
            println!("{token}");
        }
        Action::List => {
            for t in store.tokens()? {
                println!("{}{}", t.name, if t.admin { " (admin)" } else { "" });
            }
        }
        Action::Revoke { name } => {
            let n = store.revoke_tokens(&name)?;
            println!("revoked {n} token(s) of {name}");
            return Ok(if n == 0 { 1 } else { 0 });
        }
    }
    Ok(0)
}
