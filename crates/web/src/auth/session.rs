//! Browser sessions and one-time login codes, kept in the store as SHA-256 hashes.
//!
//! - A **session** is a random 128-bit id in the [`COOKIE`] cookie (set by the login page:
//!   `HttpOnly`, `SameSite=Lax`, `Secure` when `[web] secure_cookies` is set or the request came
//!   through an HTTPS proxy, `Max-Age` = `[web] session_lifetime`). The server keeps only its
//!   SHA-256, with the user and the time it ends; logging out, or revoking the user's tokens,
//!   ends it. Each request checks the session's user against their current record (the
//!   service's accounts: a user removed, a team taken off its contest, an admin demoted, is
//!   so at once), never against what the session was started with.
//! - A **login code** stands in for a token in a link (`/login?code=…`): it is random, kept
//!   hashed, expires after `[web] login_code_lifetime` (10 minutes by default) and works once.
//!   Opening the link shows a button; only the POST spends the code, so a link previewer that
//!   fetches the URL does not use it up. A hall sheet's code is bound to its contest and
//!   revoked by a reprint or the team's removal; its link then says so.

use std::sync::Arc;
use std::time::Duration;

use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_service::{Account, AccountError, Redeemed};

/// The cookie holding a browser's session id.
pub(crate) const COOKIE: &str = "ojd_session";

/// A lifetime in milliseconds, as the store counts them.
pub(crate) fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

pub(crate) fn user(a: Account) -> User {
    User {
        name: a.name,
        admin: a.admin,
    }
}

/// An account operation's failure as the request's ([`AppError`]'s `From` says how).
pub(crate) fn account_error(e: AccountError) -> AppError {
    e.into()
}

/// The contests as loaded now, which vouch for their teams' users.
fn contests(app: &App) -> Vec<Arc<ojd_service::contest::Contest>> {
    app.contests.get().contests.clone()
}

/// Starts a session for `who` (bound to the contest whose sheet logged them in, if one did);
/// returns its id (for the cookie).
pub(crate) async fn start_session(
    app: &Arc<App>,
    who: &User,
    contest: Option<String>,
    lifetime: Duration,
) -> Result<String, AppError> {
    let account = Account {
        name: who.name.clone(),
        admin: who.admin,
    };
    app.node
        .accounts()
        .start_session(account, contest, lifetime)
        .await
        .map_err(account_error)
}

/// The user of a session id as their record has them now, if the session is live.
pub(crate) async fn session_user(app: &Arc<App>, id: String) -> Result<Option<User>, AppError> {
    let loaded = app.contests.get();
    let (contests, all_loaded) = (loaded.contests.clone(), loaded.failed.is_empty());
    let found = app
        .node
        .accounts()
        .session(id, contests, all_loaded)
        .await?;
    Ok(found.map(user))
}

/// What a code gives, spent (`spend`) or only looked at.
pub(crate) async fn code_user(
    app: &Arc<App>,
    code: String,
    spend: bool,
) -> Result<Redeemed, AppError> {
    let accounts = app.node.accounts();
    Ok(if spend {
        accounts.redeem_code(code, contests(app)).await?
    } else {
        accounts.peek_code(code, contests(app)).await?
    })
}

/// Who `name` is by their current record (config, tokens, contests), if anything knows them.
pub(crate) async fn record(app: &Arc<App>, name: String) -> Result<Option<User>, AppError> {
    Ok(app
        .node
        .accounts()
        .record(name, contests(app))
        .await?
        .map(user))
}

/// The `listen` address as a browser on this host reaches it (a wildcard becomes loopback).
pub fn shown_address(listen: &str) -> String {
    if let Some(port) = listen.strip_prefix("0.0.0.0:") {
        return format!("127.0.0.1:{port}");
    }
    if let Some(port) = listen.strip_prefix("[::]:") {
        return format!("[::1]:{port}");
    }
    listen.to_string()
}

/// A login link for `who` (path and query; the caller adds the site's address).
pub(crate) async fn login_link(app: &Arc<App>, who: &User) -> Result<String, AppError> {
    let lifetime = app.node.config().web.login_code_lifetime;
    let code = app
        .node
        .accounts()
        .issue_code(who.name.clone(), who.admin, lifetime)
        .await
        .map_err(account_error)?;
    Ok(format!("/login?code={code}"))
}
