//! Accounts: who a browser session or a one-time login code stands for *now*, and taking
//! that away. The web layer's door to sessions and login codes.
//!
//! A session or a code keeps the name it was issued for, never the rights: on each request
//! the name is checked against the user's current record ([`current`]): the config
//! (`[server] admin_token` is the user `admin`, `[[server.users]]`), the tokens issued to the
//! name (any admin token makes an admin), and the loaded contests (a team's user, a listed
//! participant). A name none of them knows any more has no session: a user removed from the
//! config, whose tokens were all revoked, or whose team was removed, is logged out at their
//! next request, and a demoted admin is no longer an admin at theirs.
//!
//! A hall sheet's code is bound to its contest: it logs in only while that contest still has
//! the user and has not ended (a finished contest's sheet never logs in as whoever has the
//! name next), and the session it starts only lasts while the contest still has the user.
//! Printing a contest's sheet again revokes the earlier sheet's unspent codes; removing a team
//! revokes its codes and ends its sessions of that contest ([`Accounts::revoke_member`]).
//! A revoked code is kept, marked, until it would have expired, so its link says "revoked".

use std::io::Read;
use std::sync::Arc;
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::contest::{Contest, Participants};
use crate::node::{DbError, Node};
use crate::now_ms;
use ojd_config::Config;
use ojd_judge::hex_encode as hex;
use ojd_store::{CodeState, Holder, Store, StoreError, TokenActivity, TokenRights};

/// A signed-in user as their current record has them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Account {
    /// The user's name.
    pub name: String,
    /// Whether the user is an admin now (by the config or an admin token), not when the session
    /// began.
    pub admin: bool,
}

/// What a one-time login code gives.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Redeemed {
    /// Its user, as their record has them now, and the contest it is bound to (if any).
    User(Account, Option<String>),
    /// Taken away: its sheet was printed again, its team removed, its user is gone, or its
    /// contest ended.
    Revoked,
    /// Never issued, used already, or expired.
    Invalid,
}

/// Why a session or a code could not be made.
#[derive(Debug, thiserror::Error)]
pub enum AccountError {
    /// The system's random source failed.
    #[error("failed to read random bytes for a session or a code")]
    Random(#[source] std::io::Error),
    /// The user name is not one ojd accepts ([`valid_name`]).
    #[error("a user name must be 1 to 64 letters, digits, '.', '_' or '-' (got {0:?})")]
    BadName(String),
    /// The database failed.
    #[error(transparent)]
    Db(#[from] DbError),
}

impl From<StoreError> for AccountError {
    fn from(e: StoreError) -> AccountError {
        AccountError::Db(DbError::Store(e))
    }
}

/// Whether `name` may name a user (and, with more rules, a problem folder): 1 to 64 ASCII
/// letters, digits, `.`, `_` or `-`, so it is safe in a path, a URL and a log line.
pub fn valid_name(name: &str) -> bool {
    !name.is_empty()
        && name.len() <= 64
        && name
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || "._-".contains(c))
}

/// The SHA-256 of a secret (a token, a session id, a code), as the store keeps it.
pub fn hash_secret(secret: &str) -> String {
    hex(&Sha256::digest(secret.as_bytes()))
}

/// A fresh random secret: 32 hex digits of the kernel's randomness (128 bits).
pub fn new_secret() -> Result<String, std::io::Error> {
    let mut bytes = [0u8; 16];
    std::fs::File::open("/dev/urandom").and_then(|mut f| f.read_exact(&mut bytes))?;
    Ok(hex(&bytes))
}

/// Whether contest `c` has `name` as a team's user or a listed participant (a contest open
/// to anyone holding a token vouches for nobody by itself).
fn member(c: &Contest, name: &str) -> bool {
    c.team(name).is_some()
        || matches!(&c.participants, Participants::Listed(users) if users.iter().any(|u| u == name))
}

/// `name` as their record has them now, or `None` when nothing knows the name any more.
pub(crate) fn current(
    config: &Config,
    contests: &[Arc<Contest>],
    name: &str,
    tokens: TokenRights,
) -> Option<Account> {
    let server = &config.server;
    let as_admin_token = name == "admin" && !server.admin_token.trim().is_empty();
    let configured = server.users.iter().find(|u| u.name == name);
    let admin = as_admin_token || configured.is_some_and(|u| u.admin) || tokens.admin;
    let known =
        admin || configured.is_some() || tokens.any || contests.iter().any(|c| member(c, name));
    known.then(|| Account {
        name: name.to_string(),
        admin,
    })
}

/// Whether a holder bound to a contest still belongs to it (always, when not bound).
fn still_bound(contests: &[Arc<Contest>], h: &Holder) -> bool {
    match &h.contest {
        None => true,
        Some(id) => contests.iter().any(|c| c.id == *id && member(c, &h.name)),
    }
}

/// A holder checked against the current record: the account, or `None` if revoked.
fn check(
    store: &dyn Store,
    config: &Config,
    contests: &[Arc<Contest>],
    h: &Holder,
) -> Result<Option<Account>, StoreError> {
    if !still_bound(contests, h) {
        return Ok(None);
    }
    Ok(current(
        config,
        contests,
        &h.name,
        store.token_rights(&h.name)?,
    ))
}

/// Whether a code bound to a contest may still log in at `now`: before the contest's end.
fn code_open(contests: &[Arc<Contest>], h: &Holder, now: i64) -> bool {
    match &h.contest {
        None => true,
        Some(id) => contests.iter().any(|c| c.id == *id && now < c.end_ms()),
    }
}

/// A lifetime in milliseconds, as the store counts them.
fn ms(d: Duration) -> i64 {
    i64::try_from(d.as_millis()).unwrap_or(i64::MAX)
}

/// Issues a one-time code for `name` (bound to `contest`, if given) valid for `lifetime`.
pub fn issue_code(
    store: &dyn Store,
    name: &str,
    admin: bool,
    contest: Option<&str>,
    lifetime: Duration,
) -> Result<String, AccountError> {
    let code = new_secret().map_err(AccountError::Random)?;
    let who = Holder {
        name: name.to_string(),
        admin,
        contest: contest.map(str::to_string),
    };
    store.add_login_code(
        &hash_secret(&code),
        &who,
        now_ms().saturating_add(ms(lifetime)),
    )?;
    Ok(code)
}

/// Issues a token for `name` (its hash is stored; the token is returned once); a name that is
/// not [`valid_name`] is refused.
pub fn issue_token(store: &dyn Store, name: &str, admin: bool) -> Result<String, AccountError> {
    if !valid_name(name) {
        return Err(AccountError::BadName(name.to_string()));
    }
    let token = new_secret().map_err(AccountError::Random)?;
    store.add_token(&hash_secret(&token), name, admin, now_ms())?;
    Ok(token)
}

/// A node's sessions and login codes ([`Node::accounts`]).
pub struct Accounts {
    node: Arc<Node>,
}

impl Node {
    /// Sessions, login codes and their revocation.
    pub fn accounts(self: &Arc<Self>) -> Accounts {
        Accounts { node: self.clone() }
    }

    /// On a first start with no admin anywhere (none in the config, no user in it, no token
    /// issued), issues an admin token for `admin` and returns a one-time login code for it.
    /// Blocking: before the server runs.
    pub fn first_admin_code(&self) -> Result<Option<String>, AccountError> {
        let server = &self.config().server;
        let configured = !server.admin_token.is_empty() || !server.users.is_empty();
        let store = self.store().as_ref();
        if configured || !store.tokens()?.is_empty() {
            return Ok(None);
        }
        issue_token(store, "admin", true)?;
        let lifetime = self.config().web.login_code_lifetime;
        issue_code(store, "admin", true, None, lifetime).map(Some)
    }
}

impl Accounts {
    /// The user of a live session as their record has them now; a session whose user is gone
    /// (or whose contest no longer has them) is ended on the way, when `all_loaded` says every
    /// contest folder loaded (else it is only refused, until the contests load again).
    pub async fn session(
        &self,
        id: String,
        contests: Vec<Arc<Contest>>,
        all_loaded: bool,
    ) -> Result<Option<Account>, DbError> {
        let node = self.node.clone();
        self.node
            .db(move |s| {
                let hash = hash_secret(&id);
                let Some(h) = s.session(&hash, now_ms())? else {
                    return Ok(None);
                };
                let found = check(s, node.config(), &contests, &h)?;
                // Ended only when the refusal is final: every contest loaded (a contest.toml
                // an admin is fixing makes its teams anonymous for the while, not logged out).
                if found.is_none() && all_loaded {
                    s.end_session(&hash)?;
                }
                Ok(found)
            })
            .await
    }

    /// Who `name` is by their current record, if anything knows them.
    pub async fn record(
        &self,
        name: String,
        contests: Vec<Arc<Contest>>,
    ) -> Result<Option<Account>, DbError> {
        let node = self.node.clone();
        self.node
            .db(move |s| {
                let rights = s.token_rights(&name)?;
                Ok(current(node.config(), &contests, &name, rights))
            })
            .await
    }

    /// Starts a session for `who` (bound to `contest`, if given); returns its id.
    pub async fn start_session(
        &self,
        who: Account,
        contest: Option<String>,
        lifetime: Duration,
    ) -> Result<String, AccountError> {
        let id = new_secret().map_err(AccountError::Random)?;
        let hash = hash_secret(&id);
        self.node
            .db(move |s| {
                let now = now_ms();
                let h = Holder {
                    name: who.name,
                    admin: who.admin,
                    contest,
                };
                s.add_session(&hash, &h, now.saturating_add(ms(lifetime)), now)
            })
            .await?;
        Ok(id)
    }

    /// Ends one session (logging out).
    pub async fn end_session(&self, id: &str) -> Result<(), DbError> {
        let hash = hash_secret(id);
        self.node.db(move |s| s.end_session(&hash)).await
    }

    /// A one-time login code for `name` (not bound to a contest), valid for `lifetime`.
    pub async fn issue_code(
        &self,
        name: String,
        admin: bool,
        lifetime: Duration,
    ) -> Result<String, AccountError> {
        self.node
            .db(move |s| Ok(issue_code(s, &name, admin, None, lifetime)))
            .await?
    }

    /// A contest's hall sheet: revokes the earlier sheets' unspent codes of `contest`, then
    /// issues one code per user, bound to it, valid for `lifetime`. Returns the codes in
    /// order, and how many earlier codes were revoked.
    pub async fn issue_sheet(
        &self,
        contest: String,
        users: Vec<String>,
        lifetime: Duration,
    ) -> Result<(Vec<String>, u64), AccountError> {
        self.node
            .db(move |s| {
                let revoked = s.revoke_codes_in(&contest, None, now_ms())?;
                let codes = users
                    .iter()
                    .map(|u| issue_code(s, u, false, Some(&contest), lifetime))
                    .collect::<Result<Vec<_>, _>>();
                Ok(codes.map(|c| (c, revoked)))
            })
            .await?
    }

    /// What a code would give, without spending it (the page a link opens).
    pub async fn peek_code(
        &self,
        code: String,
        contests: Vec<Arc<Contest>>,
    ) -> Result<Redeemed, DbError> {
        let node = self.node.clone();
        self.node
            .db(move |s| {
                let now = now_ms();
                match s.peek_login_code(&hash_secret(code.trim()), now)? {
                    CodeState::Unknown => Ok(Redeemed::Invalid),
                    CodeState::Revoked(_) => Ok(Redeemed::Revoked),
                    CodeState::Live(h) => judge_code(s, node.config(), &contests, h, now),
                }
            })
            .await
    }

    /// Spends a code: its user as their record has them now, once, before it expires; a
    /// revoked code (or one whose user or contest no longer holds) is not spent.
    pub async fn redeem_code(
        &self,
        code: String,
        contests: Vec<Arc<Contest>>,
    ) -> Result<Redeemed, DbError> {
        let node = self.node.clone();
        self.node
            .db(move |s| {
                let now = now_ms();
                let hash = hash_secret(code.trim());
                match s.peek_login_code(&hash, now)? {
                    CodeState::Unknown => return Ok(Redeemed::Invalid),
                    CodeState::Revoked(_) => return Ok(Redeemed::Revoked),
                    CodeState::Live(h) => {
                        let r = judge_code(s, node.config(), &contests, h, now)?;
                        if !matches!(r, Redeemed::User(..)) {
                            return Ok(r);
                        }
                    }
                }
                // Spent only now, atomically: two nodes spending it cannot both get it.
                match s.take_login_code(&hash, now)? {
                    CodeState::Live(h) => judge_code(s, node.config(), &contests, h, now),
                    CodeState::Revoked(_) => Ok(Redeemed::Revoked),
                    CodeState::Unknown => Ok(Redeemed::Invalid),
                }
            })
            .await
    }

    /// Takes `user`'s place in `contest` away: revokes their unspent codes of the contest and
    /// ends their sessions bound to it. Returns (codes, sessions).
    pub async fn revoke_member(
        &self,
        contest: String,
        user: String,
    ) -> Result<(u64, u64), DbError> {
        self.node
            .db(move |s| {
                let codes = s.revoke_codes_in(&contest, Some(&user), now_ms())?;
                let sessions = s.end_sessions_in(&user, &contest)?;
                Ok((codes, sessions))
            })
            .await
    }

    /// The holder of an issued token, by the token's hash; its use is noted when `note_use`
    /// (the caller limits how often).
    pub async fn token_user(
        &self,
        hash: String,
        note_use: bool,
    ) -> Result<Option<Account>, DbError> {
        self.node
            .db(move |s| {
                let found = s.find_token(&hash)?;
                if found.is_some() && note_use {
                    s.token_used(&hash, now_ms())?;
                }
                Ok(found.map(|t| Account {
                    name: t.name,
                    admin: t.admin,
                }))
            })
            .await
    }

    /// Issues a token for `name` (its hash is stored; the token is returned once).
    pub async fn issue_token(&self, name: String, admin: bool) -> Result<String, AccountError> {
        self.node
            .db(move |s| Ok(issue_token(s, &name, admin)))
            .await?
    }

    /// Issues a (non-admin) token for each of `names`, a contest's roster: the tokens in the
    /// names' order. A bad name refuses them all before any is issued.
    pub async fn issue_tokens(&self, names: Vec<String>) -> Result<Vec<String>, AccountError> {
        if let Some(bad) = names.iter().find(|n| !valid_name(n)) {
            return Err(AccountError::BadName(bad.clone()));
        }
        self.node
            .db(move |s| {
                Ok(names
                    .iter()
                    .map(|n| issue_token(s, n, false))
                    .collect::<Result<Vec<_>, _>>())
            })
            .await?
    }

    /// Sets each user's password to the given hash (hashed by the caller, off the runtime).
    pub async fn set_passwords(&self, hashed: Vec<(String, String)>) -> Result<(), DbError> {
        self.node
            .db(move |s| {
                let now = now_ms();
                for (user, hash) in &hashed {
                    s.set_password(user, hash, now)?;
                }
                Ok(())
            })
            .await
    }

    /// Every issued token with its last use, by name.
    pub async fn tokens(&self) -> Result<Vec<TokenActivity>, DbError> {
        self.node.db(|s| s.token_activity()).await
    }

    /// Revokes one token of `name` (named by the prefix of its hash in [`TokenActivity::id`]) and
    /// ends `name`'s sessions; returns how many tokens went.
    pub async fn revoke_token(&self, name: String, id: String) -> Result<u64, DbError> {
        self.node
            .db(move |s| {
                let n = s.revoke_token(&name, &id)?;
                if n > 0 {
                    s.end_sessions_of(&name)?;
                }
                Ok(n)
            })
            .await
    }

    /// Whether no token was ever issued (a first start).
    pub async fn no_tokens(&self) -> Result<bool, DbError> {
        self.node.db(|s| Ok(s.tokens()?.is_empty())).await
    }

    /// `name`'s password hash, if a password was set.
    pub async fn password_hash(&self, name: String) -> Result<Option<String>, DbError> {
        self.node.db(move |s| s.password_hash(&name)).await
    }

    /// Writes a line of the audit log about a login (`login`, `login-failed`).
    pub async fn audit(
        &self,
        who: String,
        action: &'static str,
        detail: String,
    ) -> Result<(), DbError> {
        self.node
            .db(move |s| s.add_audit(&who, action, None, &detail, now_ms()))
            .await
    }

    /// Takes everything from `user`: their unspent codes and every session. Returns (codes,
    /// sessions).
    pub async fn revoke_user(&self, user: String) -> Result<(u64, u64), DbError> {
        self.node
            .db(move |s| {
                let codes = s.revoke_codes_of(&user, now_ms())?;
                let sessions = s.end_sessions_of(&user)?;
                Ok((codes, sessions))
            })
            .await
    }
}

/// A live code's holder checked now: its user as the record has them, or revoked.
fn judge_code(
    s: &dyn Store,
    config: &Config,
    contests: &[Arc<Contest>],
    h: Holder,
    now: i64,
) -> Result<Redeemed, StoreError> {
    if !code_open(contests, &h, now) {
        return Ok(Redeemed::Revoked);
    }
    Ok(match check(s, config, contests, &h)? {
        Some(account) => Redeemed::User(account, h.contest),
        None => Redeemed::Revoked,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The defaults with these `[server]` lines on top, as a config file would say them.
    fn config(server: &str) -> Config {
        let dir = tempfile::tempdir().expect("temp dir");
        let path = dir.path().join("config.toml");
        std::fs::write(&path, server).expect("write config");
        Config::load(&path).expect("config")
    }

    const TWO_USERS: &str = "[server]\nadmin_token = \"root-token\"\n\
        [[server.users]]\nname = \"carol\"\ntoken = \"t1\"\nadmin = true\n\
        [[server.users]]\nname = \"dave\"\ntoken = \"t2\"\n";

    #[test]
    fn user_names_are_safe_in_paths_urls_and_logs() {
        assert!(valid_name("alice_01.x-y"));
        assert!(!valid_name("") && !valid_name("a b") && !valid_name("<script>"));
        assert!(!valid_name(&"a".repeat(65)));
        assert!(!valid_name("../etc"));
    }

    #[test]
    fn a_token_for_a_bad_name_is_refused() {
        let store = ojd_store::SqliteStore::in_memory().expect("an in-memory store");
        let e = issue_token(&store, "a b", false).expect_err("a bad name");
        assert!(
            matches!(e, AccountError::BadName(ref n) if n == "a b"),
            "{e}"
        );
        assert!(store.tokens().expect("tokens").is_empty(), "nothing issued");
    }

    #[test]
    fn the_record_decides_who_a_name_is() {
        let c = config(TWO_USERS);
        let none = TokenRights::default();
        let admin = |c: &Config, n: &str, t| current(c, &[], n, t).map(|a| a.admin);
        assert_eq!(
            admin(&c, "admin", none),
            Some(true),
            "the admin_token's user"
        );
        assert_eq!(admin(&c, "carol", none), Some(true));
        assert_eq!(admin(&c, "dave", none), Some(false));
        assert_eq!(admin(&c, "erin", none), None, "nobody knows erin");
        let token = TokenRights {
            any: true,
            admin: false,
        };
        assert_eq!(admin(&c, "erin", token), Some(false), "a token holder");
        let admin_token = TokenRights {
            any: true,
            admin: true,
        };
        assert_eq!(admin(&c, "dave", admin_token), Some(true));
        // Demoted in the config and without an admin token: no longer an admin.
        let demoted = config("[[server.users]]\nname = \"carol\"\ntoken = \"t1\"\n");
        assert_eq!(admin(&demoted, "carol", none), Some(false));
        assert_eq!(
            admin(&demoted, "admin", none),
            None,
            "no admin_token: no admin"
        );
        assert_eq!(
            admin(&demoted, "dave", none),
            None,
            "removed from the config"
        );
    }
}
