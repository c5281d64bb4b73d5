//! `ojd token`: the daemon's login tokens, in the daemon's own database.
//!
//! The database is found the way the daemon finds it, from any folder: a relative
//! `[server] database` is relative to the config file's folder (as every path of the config);
//! it must exist (this command never creates a database, so a token cannot land in a file the
//! daemon does not read). A PostgreSQL URL is used as it is.

use std::path::Path;

use crate::Global;

/// Issue, list or revoke the daemon's login tokens (kept hashed in its database).
///
/// Example: ojd --config /srv/ojd/config.toml token issue alice
/// (prints the new token once, and a one-time login link for a browser)
#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    action: Action,
}

#[derive(clap::Subcommand)]
enum Action {
    /// Issue a new token for NAME and print it (it cannot be shown again), with a one-time
    /// login link (valid for `[web] login_code_lifetime`).
    Issue {
        name: String,
        /// The token may use the admin API and see every submission.
        #[arg(long)]
        admin: bool,
    },
    /// List the tokens: name, admin, created, last used.
    List,
    /// Revoke every token of NAME and end its browser sessions.
    Revoke { name: String },
}

/// The database the daemon of this config uses (see the module documentation).
pub fn locate_database(database: &Path) -> anyhow::Result<String> {
    let text = database.to_string_lossy();
    if ojd_store::is_postgres_url(&text) {
        return Ok(text.into_owned());
    }
    if !database.is_file() {
        anyhow::bail!(
            "no database {} (a relative [server] database is relative to the config file's \
             folder): start `ojd serve` with this config once, or give the config with --config",
            database.display()
        );
    }
    Ok(text.into_owned())
}

fn when(ms: Option<i64>) -> String {
    ms.map(ojd_web::utc_time)
        .unwrap_or_else(|| "never".into())
}

pub fn run(a: Args, g: &Global) -> anyhow::Result<i32> {
    use ojd_store::Store;
    let config = g.load_config()?;
    let database = locate_database(&config.server.database)?;
    let store = ojd_store::open(&database)?;
    let store: &dyn Store = store.as_ref();
    match a.action {
        Action::Issue { name, admin } => {
            let token = ojd_service::issue_token(store, &name, admin)?;
            println!("{token}");
            let lifetime = config.web.login_code_lifetime;
            match ojd_service::issue_code(store, &name, admin, None, lifetime) {
                Ok(code) => eprintln!(
                    "one-time login link (valid {}): http://{}/login?code={code}",
                    ojd_judge::format_duration(lifetime),
                    ojd_web::shown_address(&config.server.listen)
                ),
                Err(e) => eprintln!("no login link: {}", ojd_judge::error_chain(&e)),
            }
        }
        Action::List => {
            println!("{:<24} {:<6} {:<24} {:<24}", "NAME", "ADMIN", "CREATED", "LAST USED");
            for t in store.token_activity()? {
                println!(
                    "{:<24} {:<6} {:<24} {:<24}",
                    t.name,
                    if t.admin { "yes" } else { "no" },
                    ojd_web::utc_time(t.created_at),
                    when(t.last_used)
                );
            }
        }
        Action::Revoke { name } => {
            let n = store.revoke_tokens(&name)?;
            let s = store.end_sessions_of(&name)?;
            // Their unspent login links go too: revoking a user takes every way in.
            store.revoke_codes_of(&name, ojd_store::now_ms())?;
            println!("revoked {n} token(s) of {name}; ended {s} browser session(s)");
            return Ok(if n == 0 { 1 } else { 0 });
        }
    }
    Ok(0)
}
