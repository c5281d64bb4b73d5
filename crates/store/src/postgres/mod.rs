//! The PostgreSQL store, for several hosts on one database: the synchronous `postgres` client
//! behind an r2d2 pool (the [`Store`](crate::Store) trait is synchronous; the server calls it
//! on blocking threads). Every store method is shared (see `db.rs`); here is only what
//! PostgreSQL does its own way: the pool, migrations under an advisory lock (so nodes starting
//! together migrate once), the claim as ONE statement that locks the chosen row with
//! `FOR UPDATE SKIP LOCKED` (so workers on many hosts claim in parallel without waiting on each
//! other), and live events between nodes over LISTEN/NOTIFY.
//!
//! TLS: the URL's `sslmode` is `disable`, `prefer` (TLS when the server offers it, unverified;
//! the default on this machine), `require` (TLS or no connection, the certificate not checked), `verify-ca`
//! (TLS with a certificate signed by the CA of `sslrootcert`, a PEM file; the system's CAs
//! without it) or `verify-full` (that, and the certificate names the host connected to; the
//! default for any host but this machine), as libpq reads them.

mod role;
mod senders;

use std::time::Duration;

use postgres::fallible_iterator::FallibleIterator;
use postgres_openssl::MakeTlsConnector;
use r2d2_postgres::PostgresConnectionManager;

use crate::cluster::{EventSink, EVENTS, QUEUED};
use crate::db::{args, Conn, Engine, Res, What};
use crate::schema::{migrations, Dialect, VERSION};
use crate::{sql, Claim, StoreError};

pub use role::{judge_host_role_sql, RoleNameError};

/// The longest a statement waits for a pooled connection while the database answers.
const POOL_WAIT: Duration = Duration::from_secs(5);
/// How often a wait for a connection looks whether the pool's attempts fail.
const POOL_STEP: Duration = Duration::from_millis(100);
/// The longest a connection attempt waits for the server (unless the URL says).
const CONNECT_TIMEOUT: Duration = Duration::from_secs(2);

/// Counts the pool's failed connection attempts ([`PgStore::conn`] reads it).
#[derive(Debug)]
struct CountFailures(std::sync::Arc<std::sync::atomic::AtomicU64>);

impl r2d2::HandleError<postgres::Error> for CountFailures {
    fn handle_error(&self, _error: postgres::Error) {
        self.0.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    }
}

/// NOTIFY payloads must stay under PostgreSQL's 8000-byte limit.
pub const MAX_PAYLOAD: usize = 7900;

type Pool = r2d2::Pool<PostgresConnectionManager<MakeTlsConnector>>;
type Pooled = r2d2::PooledConnection<PostgresConnectionManager<MakeTlsConnector>>;

/// How a connection is secured (the URL's `sslmode`; see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum SslMode {
    Disable,
    Prefer,
    Require,
    VerifyCa,
    VerifyFull,
}

/// Why the database URL's TLS settings cannot be used.
#[derive(Debug, thiserror::Error)]
pub(crate) enum TlsError {
    /// `sslmode` names no mode.
    #[error(
        "sslmode={0:?} in the database URL: expected disable, prefer, require, verify-ca or verify-full"
    )]
    Mode(String),
    /// OpenSSL could not set up a client.
    #[error("TLS setup: {0}")]
    Setup(#[source] openssl::error::ErrorStack),
    /// `sslrootcert` is no file of PEM CA certificates.
    #[error("sslrootcert {file}: cannot read it as PEM CA certificates: {source}")]
    RootCert {
        file: String,
        #[source]
        source: openssl::error::ErrorStack,
    },
}

/// Takes `sslmode` and `sslrootcert` out of a URL's query (the driver knows neither
/// `verify-ca`/`verify-full` nor `sslrootcert`): the URL without them, the mode, the CA file.
/// The mode is `None` when the URL names none ([`default_mode`] decides).
pub(crate) fn split_tls(url: &str) -> Result<(String, Option<SslMode>, Option<String>), TlsError> {
    let Some((base, query)) = url.split_once('?') else {
        return Ok((url.to_string(), None, None));
    };
    let (mut mode, mut root, mut kept) = (None, None, Vec::new());
    for pair in query.split('&').filter(|p| !p.is_empty()) {
        let (key, value) = pair.split_once('=').unwrap_or((pair, ""));
        let value = percent_decode(value);
        match key {
            "sslmode" => {
                mode = Some(match value.as_str() {
                    "disable" => SslMode::Disable,
                    "allow" | "prefer" => SslMode::Prefer,
                    "require" => SslMode::Require,
                    "verify-ca" => SslMode::VerifyCa,
                    "verify-full" => SslMode::VerifyFull,
                    other => return Err(TlsError::Mode(other.to_string())),
                })
            }
            "sslrootcert" => root = Some(value),
            _ => kept.push(pair),
        }
    }
    let url = if kept.is_empty() {
        base.to_string()
    } else {
        format!("{base}?{}", kept.join("&"))
    };
    Ok((url, mode, root))
}

/// The mode of a URL that names none: `prefer` on this machine (a Unix socket, `localhost`, a
/// loopback address), where no one sits between the two ends; `verify-full` (the system's CAs)
/// for any other host, whose certificate must be checked or a machine in the middle could
/// read every password and verdict and write any.
pub(crate) fn default_mode(config: &postgres::Config) -> SslMode {
    let local = config.get_hosts().iter().all(|h| match h {
        postgres::config::Host::Unix(_) => true,
        postgres::config::Host::Tcp(name) => {
            let name = name.trim_start_matches('[').trim_end_matches(']');
            name.eq_ignore_ascii_case("localhost")
                || name
                    .parse::<std::net::IpAddr>()
                    .is_ok_and(|ip| ip.is_loopback())
        }
    });
    if local {
        SslMode::Prefer
    } else {
        SslMode::VerifyFull
    }
}

/// `%XX` escapes of a URL query value (a path in `sslrootcert`).
fn percent_decode(text: &str) -> String {
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        let hex = bytes
            .get(i + 1..i + 3)
            .and_then(|h| std::str::from_utf8(h).ok())
            .and_then(|h| u8::from_str_radix(h, 16).ok());
        match (bytes[i], hex) {
            (b'%', Some(b)) => {
                out.push(b);
                i += 3;
            }
            (b, _) => {
                out.push(b);
                i += 1;
            }
        }
    }
    String::from_utf8_lossy(&out).into_owned()
}

/// The TLS connector of `mode`, trusting the CA in `root` (PEM) when given.
fn connector(mode: SslMode, root: Option<&str>) -> Result<MakeTlsConnector, TlsError> {
    use openssl::ssl::{SslConnector, SslMethod, SslVerifyMode};
    let mut b = SslConnector::builder(SslMethod::tls_client()).map_err(TlsError::Setup)?;
    let verify = matches!(mode, SslMode::VerifyCa | SslMode::VerifyFull);
    if verify {
        match root {
            Some(file) => b.set_ca_file(file).map_err(|source| TlsError::RootCert {
                file: file.to_string(),
                source,
            })?,
            None => b.set_default_verify_paths().map_err(TlsError::Setup)?,
        }
        b.set_verify(SslVerifyMode::PEER);
    } else {
        b.set_verify(SslVerifyMode::NONE);
    }
    let mut c = MakeTlsConnector::new(b.build());
    if mode != SslMode::VerifyFull {
        c.set_callback(|config, _| {
            config.set_verify_hostname(false);
            Ok(())
        });
    }
    Ok(c)
}

/// See the module docs.
pub(crate) struct PgStore {
    pool: Pool,
    /// Connection attempts of the pool that failed (counted by its error handler).
    failed_connects: std::sync::Arc<std::sync::atomic::AtomicU64>,
    /// The last wait for a connection failed, and none came since ([`PgStore::conn`]).
    down: std::sync::atomic::AtomicBool,
    config: postgres::Config,
    /// The URL without its password, for messages.
    name: String,
    tls: MakeTlsConnector,
}

/// "host:port/database" of a connection config, never its password.
fn describe(config: &postgres::Config) -> String {
    let host = config
        .get_hosts()
        .first()
        .map(|h| match h {
            postgres::config::Host::Tcp(h) => h.clone(),
            postgres::config::Host::Unix(p) => p.display().to_string(),
        })
        .unwrap_or_else(|| "localhost".into());
    let port = config.get_ports().first().copied().unwrap_or(5432);
    let db = config
        .get_dbname()
        .or(config.get_user())
        .unwrap_or("(default)");
    format!("host {host}, port {port}, database {db}")
}

impl PgStore {
    /// Connects to `url` (`postgres://user:password@host:port/database`) and runs the
    /// migrations. A bad URL or a refused connection is one error naming host, port and
    /// database, never the password.
    pub(crate) fn open(url: &str) -> Result<PgStore, StoreError> {
        let name = super::redact_url(url);
        let bad = |e: TlsError| StoreError::Open {
            path: name.clone(),
            source: Box::new(e),
        };
        let (url, mode, root) = split_tls(url).map_err(bad)?;
        let mut config: postgres::Config = url.parse().map_err(|e| StoreError::Open {
            path: name.clone(),
            source: Box::new(e),
        })?;
        let mode = mode.unwrap_or_else(|| default_mode(&config));
        let tls = connector(mode, root.as_deref()).map_err(bad)?;
        config.ssl_mode(match mode {
            SslMode::Disable => postgres::config::SslMode::Disable,
            SslMode::Prefer => postgres::config::SslMode::Prefer,
            _ => postgres::config::SslMode::Require,
        });
        if config.get_connect_timeout().is_none() {
            // A host cut off (packets dropped) counts as unreachable after this, not after
            // the kernel's minutes of SYN retries.
            config.connect_timeout(CONNECT_TIMEOUT);
        }
        // One connection first, so that a refused login or TLS handshake is reported as it is
        // (the pool only says that it timed out).
        drop(
            config
                .connect(tls.clone())
                .map_err(|e| StoreError::Unreachable {
                    path: describe(&config),
                    source: Box::new(e),
                })?,
        );
        let manager = PostgresConnectionManager::new(config.clone(), tls.clone());
        let failed_connects = std::sync::Arc::new(std::sync::atomic::AtomicU64::new(0));
        let pool = r2d2::Pool::builder()
            .max_size(16)
            .min_idle(Some(1))
            .connection_timeout(POOL_WAIT)
            .error_handler(Box::new(CountFailures(failed_connects.clone())))
            .build(manager)
            .map_err(|e| StoreError::Open {
                path: describe(&config),
                source: Box::new(e),
            })?;
        let store = PgStore {
            pool,
            failed_connects,
            down: std::sync::atomic::AtomicBool::new(false),
            config,
            name,
            tls,
        };
        store.migrate()?;
        Ok(store)
    }

    /// A pooled connection. A database that refuses connections is [`StoreError::Unreachable`]
    /// as soon as one of the pool's attempts fails while this waits (a fraction of a second),
    /// not after [`POOL_WAIT`]: a busy pool (every connection in use) is waited for, a dead
    /// database is not.
    ///
    /// A database that accepts connections but never answers them (its server stopped, not
    /// dead) fails no attempt: a wait while the pool has room is a wait for a new connection,
    /// given [`CONNECT_TIMEOUT`] and a step; once one wait failed, the next ones (until a
    /// connection comes) try for a step only, so that pages answer 503 at once.
    fn conn(&self) -> Result<Pooled, StoreError> {
        use std::sync::atomic::Ordering;
        let started = std::time::Instant::now();
        let failed_before = self.failed_connects.load(Ordering::Relaxed);
        let limit = if self.down.load(Ordering::Relaxed) {
            POOL_STEP
        } else if self.pool.state().connections < self.pool.max_size() {
            CONNECT_TIMEOUT + POOL_STEP
        } else {
            POOL_WAIT
        };
        loop {
            match self.pool.get_timeout(POOL_STEP) {
                Ok(c) => {
                    self.down.store(false, Ordering::Relaxed);
                    return Ok(c);
                }
                Err(e) => {
                    let failed = self.failed_connects.load(Ordering::Relaxed) != failed_before;
                    if failed || started.elapsed() >= limit {
                        self.down.store(true, Ordering::Relaxed);
                        return Err(StoreError::Unreachable {
                            path: describe(&self.config),
                            source: Box::new(e),
                        });
                    }
                }
            }
        }
    }

    fn migrate(&self) -> Result<(), StoreError> {
        let mut c = self.conn()?;
        let mut tx = c.transaction().map_err(sql("start a migration"))?;
        // One node migrates; the others wait here, then find nothing left to do.
        tx.execute("SELECT pg_advisory_xact_lock(7270400)", &[])
            .map_err(sql("lock the schema"))?;
        // A judge host's role may not create tables (nor write ojd_schema): nothing is
        // written when the schema is there and current.
        let exists: bool = tx
            .query_one("SELECT to_regclass('ojd_schema') IS NOT NULL", &[])
            .map_err(sql("look for the schema version table"))?
            .get(0);
        if !exists {
            tx.batch_execute("CREATE TABLE ojd_schema (version BIGINT NOT NULL)")
                .map_err(sql("create the schema version table"))?;
        }
        let version: i64 = tx
            .query_opt("SELECT version FROM ojd_schema", &[])
            .map_err(sql("read the schema version"))?
            .map(|r| r.get(0))
            .unwrap_or(0);
        crate::refuse_newer(&self.name, version, VERSION)?;
        if version == VERSION {
            return tx.commit().map_err(sql("commit the migrations"));
        }
        for migration in migrations(Dialect::Postgres).iter().skip(version as usize) {
            tx.batch_execute(migration)
                .map_err(sql("migrate the schema"))?;
        }
        tx.execute("DELETE FROM ojd_schema", &[])
            .map_err(sql("record the schema version"))?;
        tx.execute("INSERT INTO ojd_schema (version) VALUES ($1)", &[&VERSION])
            .map_err(sql("record the schema version"))?;
        tx.commit().map_err(sql("commit the migrations"))
    }
}

/// [`Store::claim_except`](crate::Store::claim_except) as one statement: $1 now (the host's,
/// recorded), $2 host, $3 the lease in milliseconds, $4 the languages not to claim; leases are set and expire by the database's clock.
/// Returns the claim's columns in [`Claim`]'s order, then the judging, then whether it took
/// over an expired lease, then the submission's crashes and host deaths (counting this one),
/// then whether the holder of the expired lease was alive (see `submissions::HOLDER_ALIVE`).
const CLAIM: &str = r#"
WITH next AS (
    SELECT s.id, s.state = 'judging' AS expired,
        s.state = 'judging' AND HOLDER_ALIVE AS alive FROM submissions s
    LEFT JOIN fairness f ON f."user" = s."user"
    WHERE (s.state = 'queued' OR (s.state = 'judging' AND s.lease_until < NOW_MS))
        AND NOT (s.language = ANY($4))
    ORDER BY s.state = 'judging' DESC, COALESCE(f.last_claim, 0), s.id LIMIT 1
    FOR UPDATE OF s SKIP LOCKED
), claimed AS (
    UPDATE submissions s SET state = 'judging', claimed_at = $1, claimed_by = $2,
        lease_until = NOW_MS + $3, attempts = s.attempts + 1,
        crashes = s.crashes + CASE WHEN next.alive THEN 1 ELSE 0 END,
        host_deaths = s.host_deaths + CASE WHEN next.expired AND NOT next.alive THEN 1 ELSE 0 END
    FROM next WHERE s.id = next.id
    RETURNING s.id, s.attempts, s.pending_rejudging, s."user", s.problem, s.language, s.source,
        (SELECT version FROM problem_current c WHERE c.problem = s.problem) AS version,
        next.expired, s.crashes, s.host_deaths, next.alive
), judging AS (
    INSERT INTO judgings (submission, attempt, rejudging, judged_by, started_at, package_version)
    SELECT id, attempts, pending_rejudging, $2, $1, version FROM claimed
    RETURNING id
), fair AS (
    INSERT INTO fairness ("user", last_claim) SELECT "user", nextval('claim_seq') FROM claimed
    ON CONFLICT ("user") DO UPDATE SET last_claim = excluded.last_claim
)
SELECT c.id, c.attempts, c.pending_rejudging, c."user", c.problem, c.language, c.source,
    c.version, j.id, c.expired, c.crashes, c.host_deaths, c.alive
FROM claimed c, judging j"#;

impl Engine for PgStore {
    fn run<T>(&self, tx: Option<(What, What)>, f: impl FnOnce(&mut Conn<'_>) -> Res<T>) -> Res<T> {
        let mut client = self.conn()?;
        let Some((begin, commit)) = tx.or_else(crate::gate::alone_in_transaction) else {
            return f(&mut Conn::Pg(&mut *client));
        };
        // Dropped without a commit when `f` fails, or when the gate refuses: rolled back.
        let mut tx = client.transaction().map_err(sql(begin))?;
        let out = f(&mut Conn::Pg(&mut tx))?;
        match crate::gate::commit_through(|| tx.commit()).map_err(sql(commit))? {
            Some(()) => Ok(out),
            None => Err(StoreError::GaveUp),
        }
    }

    fn claim_next(
        &self,
        host: &str,
        now: i64,
        lease_ms: i64,
        skip: &[String],
    ) -> Res<Option<Claim>> {
        // One statement, one round trip: pick (skipping rows other workers are claiming right
        // now rather than waiting for them), claim, open the judging under the package
        // version current in this statement's snapshot (a publish in flight is invisible until
        // it commits whole), and record the claim for fairness.
        let sql = CLAIM
            .replace("HOLDER_ALIVE", crate::submissions::HOLDER_ALIVE)
            .replace("LEASE_MS", "$3")
            .replace("NOW_MS", Self::NOW_MS);
        self.row(
            "claim a submission",
            &sql,
            args![now, host, lease_ms, skip],
            |r| {
                Ok(Claim {
                    id: r.get(0)?,
                    attempt: r.get(1)?,
                    rejudging: r.get(2)?,
                    user: r.get(3)?,
                    problem: r.get(4)?,
                    language: r.get(5)?,
                    source: r.get(6)?,
                    package_version: r.get(7)?,
                    judging: r.get(8)?,
                    expired_lease: r.get(9)?,
                    crashes: r.get(10)?,
                    host_deaths: r.get(11)?,
                    holder_alive: r.get(12)?,
                })
            },
        )
    }

    const KEEPS_BLOBS: bool = true;

    // `now()`: the transaction's start on the database server.
    const NOW_MS: &'static str = "(floor(extract(epoch FROM now()) * 1000)::BIGINT)";

    fn send_events(&self, payloads: &[String]) -> Res<()> {
        if let Some(big) = payloads.iter().find(|p| p.len() > MAX_PAYLOAD) {
            return Err(StoreError::Conflict(format!(
                "an event of {} bytes is over the {MAX_PAYLOAD}-byte NOTIFY limit",
                big.len()
            )));
        }
        if payloads.is_empty() {
            return Ok(());
        }
        // unnest yields its elements in order, and the notifications of one transaction are
        // delivered in the order they were sent.
        let sql = format!("SELECT pg_notify('{EVENTS}', p) FROM unnest($1::TEXT[]) AS p");
        self.exec("send live events", &sql, args![payloads])
            .map(drop)
    }

    fn listen_events(&self, sink: EventSink) -> Res<bool> {
        // Connections are made on the listener's own thread: the synchronous client must not
        // run inside the async runtime that calls this.
        let (config, tls) = (self.config.clone(), self.tls.clone());
        let listen = format!("LISTEN {EVENTS}; LISTEN {QUEUED}");
        std::thread::Builder::new()
            .name("ojd-listen".into())
            .spawn(move || {
                let mut senders = senders::Senders::new(config.clone(), tls.clone());
                let mut client: Option<postgres::Client> = None;
                let mut backoff = Duration::from_millis(100);
                loop {
                    let mut c = match client.take() {
                        Some(c) => c,
                        None => match config.connect(tls.clone()) {
                            Ok(c) => c,
                            Err(_) => {
                                std::thread::sleep(backoff);
                                backoff = (backoff * 2).min(Duration::from_secs(5));
                                continue;
                            }
                        },
                    };
                    if c.batch_execute(&listen).is_err() {
                        continue;
                    }
                    backoff = Duration::from_millis(100);
                    let mut notifications = c.notifications();
                    let mut it = notifications.blocking_iter();
                    // Ends with an error when the connection breaks; then reconnect.
                    while let Ok(Some(n)) = it.next() {
                        // An event is delivered only from a sender it is the name of.
                        if n.channel() == EVENTS && !senders.allows(n.process_id(), n.payload()) {
                            continue;
                        }
                        sink(n.channel(), n.payload().to_string());
                    }
                }
            })
            .map_err(|e| StoreError::Conflict(format!("cannot start the event listener: {e}")))?;
        Ok(true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A URL without `sslmode` verifies the server unless it is this machine.
    #[test]
    fn remote_hosts_are_verified_unless_the_url_says_otherwise() {
        let mode = |url: &str| {
            let (url, mode, _) = split_tls(url).expect("url");
            mode.unwrap_or_else(|| default_mode(&url.parse().expect("config")))
        };
        assert_eq!(mode("postgres://ojd@10.0.0.5/ojd"), SslMode::VerifyFull);
        assert_eq!(mode("postgres://ojd@db.example/ojd"), SslMode::VerifyFull);
        assert_eq!(
            mode("postgres://ojd@localhost,10.0.0.5/ojd"),
            SslMode::VerifyFull
        );
        assert_eq!(mode("postgres://ojd@127.0.0.1:5432/ojd"), SslMode::Prefer);
        assert_eq!(mode("postgres://ojd@localhost/ojd"), SslMode::Prefer);
        assert_eq!(mode("postgres://ojd@[::1]/ojd"), SslMode::Prefer);
        assert_eq!(
            mode("postgres://ojd@10.0.0.5/ojd?sslmode=require"),
            SslMode::Require
        );
        assert_eq!(
            mode("postgres://ojd@10.0.0.5/ojd?sslmode=disable"),
            SslMode::Disable
        );
    }

    /// A mode the driver does not know, or a CA file that is none, is refused naming it.
    #[test]
    fn bad_tls_settings_are_refused_naming_them() {
        match split_tls("postgres://ojd@db.example/ojd?sslmode=verify") {
            Err(TlsError::Mode(m)) => assert_eq!(m, "verify"),
            other => panic!("{other:?}"),
        }
        let file = "/nonexistent/ca.pem";
        match connector(SslMode::VerifyFull, Some(file)) {
            Err(e @ TlsError::RootCert { .. }) => {
                assert!(
                    e.to_string().starts_with(&format!("sslrootcert {file}:")),
                    "{e}"
                )
            }
            Err(other) => panic!("{other}"),
            Ok(_) => panic!("a missing CA file was taken"),
        }
    }
}
