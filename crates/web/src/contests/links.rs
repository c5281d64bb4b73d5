//! One-time login links for a contest's hall sheet: one per team (its `[[team]]` users and
//! listed participants), each working once, valid until a time the director chooses for the
//! sheet or the contest's end, whichever is first (by default the end, so a sheet printed the
//! day before still works during the contest), at most [`MAX_LIFETIME`] ahead. The login links of `/admin/users` keep `[web]
//! login_code_lifetime`. Audited (how many, until when; never the links).
//!
//! A sheet's links are bound to their contest (the service's accounts): each logs in only
//! while the contest still has its team and has not ended, so a finished contest's sheet
//! never logs in as whoever has the user name next. Printing the sheet again revokes every
//! unspent link of the earlier one; removing a team revokes its links and ends its sessions
//! of the contest ([`revoke_team`]).

use std::sync::Arc;
use std::time::Duration;

use serde::Serialize;

use super::find;
use crate::auth::session::account_error;
use crate::error::AppError;
use crate::user::User;
use crate::App;
use ojd_service::contest::{format_time, parse_start, Contest, Participants};
use ojd_service::now_ms;

/// The longest a sheet's links may last.
pub(crate) const MAX_LIFETIME: Duration = Duration::from_secs(30 * 24 * 3600);

/// One team's link.
#[derive(Debug, Serialize)]
pub(crate) struct Link {
    pub(crate) user: String,
    /// The team's name on the board.
    pub(crate) name: String,
    /// `/login?code=…` (the page adds the site's address).
    pub(crate) path: String,
}

/// A printed sheet: every team's link, and until when they work.
#[derive(Debug, Serialize)]
pub(crate) struct Sheet {
    pub(crate) expires_ms: i64,
    /// The same in the contest's offset.
    pub(crate) expires: String,
    pub(crate) links: Vec<Link>,
}

/// The default end of a sheet's links for `c`: the contest's end (they never log in later).
pub(crate) fn default_until(c: &Contest) -> i64 {
    c.end_ms()
}

/// When a sheet's links expire: `valid_until` as typed (RFC 3339 with an offset), or the
/// default; refused (400, naming the field) when past or too far.
pub(crate) fn until(c: &Contest, valid_until: Option<&str>, now: i64) -> Result<i64, AppError> {
    let at = match valid_until.map(str::trim).filter(|t| !t.is_empty()) {
        None => default_until(c),
        Some(t) => parse_start(t).map(|(ms, _)| ms).ok_or_else(|| {
            AppError::BadRequest(format!(
                "field `valid_until`: expected an RFC 3339 time with an offset like \
                 \"2026-12-01T18:00:00+08:00\", found {t:?}"
            ))
        })?,
    };
    if at <= now {
        return Err(AppError::BadRequest(format!(
            "field `valid_until`: {} is past; the links would never work",
            format_time(at, c.utc_offset_s)
        )));
    }
    if at - now > MAX_LIFETIME.as_millis() as i64 {
        return Err(AppError::BadRequest(format!(
            "field `valid_until`: {} is more than 30 days ahead; print the sheet nearer the contest",
            format_time(at, c.utc_offset_s)
        )));
    }
    Ok(at)
}

/// The users a sheet is for: the teams, then listed participants without a team.
fn users_of(c: &Contest) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = c
        .teams
        .iter()
        .map(|t| (t.user.clone(), t.name.clone()))
        .collect();
    if let Participants::Listed(users) = &c.participants {
        for u in users {
            if !out.iter().any(|(x, _)| x == u) {
                out.push((u.clone(), u.clone()));
            }
        }
    }
    out
}

/// Issues a one-time login link for every team of contest `id`, valid until `valid_until`
/// (or the default), as `admin` asked.
pub(crate) async fn issue(
    app: &Arc<App>,
    admin: &User,
    id: &str,
    valid_until: Option<&str>,
) -> Result<Sheet, AppError> {
    let c = find(app, id)?;
    let now = now_ms();
    let at = until(&c, valid_until, now)?;
    let users = users_of(&c);
    if users.is_empty() {
        return Err(AppError::Conflict(format!(
            "contest {id:?} has no teams or listed participants to print links for: import a \
             roster first"
        )));
    }
    let lifetime = Duration::from_millis((at - now) as u64);
    let names = users.iter().map(|(u, _)| u.clone()).collect();
    let (codes, revoked) = app
        .node
        .accounts()
        .issue_sheet(c.id.clone(), names, lifetime)
        .await
        .map_err(account_error)?;
    let links = users
        .into_iter()
        .zip(codes)
        .map(|((user, name), code)| Link {
            user,
            name,
            path: format!("/login?code={code}"),
        })
        .collect::<Vec<_>>();
    let expires = format_time(at, c.utc_offset_s);
    let mut detail = format!(
        "one-time login links for {} teams, valid until {expires}",
        links.len()
    );
    if revoked > 0 {
        detail.push_str(&format!(
            "; the earlier sheet's {revoked} unused link(s) revoked"
        ));
    }
    super::controls::note(app, &admin.name, "login-links", Some(id), detail).await;
    Ok(Sheet {
        expires_ms: at,
        expires,
        links,
    })
}

/// Takes `user`'s place in contest `id` away at once: their unspent links of the contest are
/// revoked and their sessions from its sheet end (their other logins are checked against the
/// contests on each request anyway).
pub(crate) async fn revoke_team(app: &Arc<App>, id: &str, user: &str) -> Result<(), AppError> {
    let accounts = app.node.accounts();
    accounts
        .revoke_member(id.to_string(), user.to_string())
        .await?;
    Ok(())
}
