//! A judging node: what `ojd serve` and `ojd worker` share. A [`Node`] owns the store, the
//! judge, the problems ([`Catalog`]), the hub of the judging workers' live progress and the
//! heartbeat that renews their leases; it has no HTTP (the web layer wraps it).
//!
//! Start ([`Node::start`]): open the database (migrations run), put back in the queue whatever
//! a previous run left half-judged, load every problem (generating missing or stale answers;
//! a problem that fails is reported and the rest are served). A judge host ([`Node::worker`])
//! has no problems folder: packages come from the database, cached on disk.
//!
//! Health: a host claims only while its scratch and cache have `[judge] min_free_space` free
//! and its last judging did not fail for the host's own sake; else it pauses, says why (log,
//! heartbeat statistics) and checks itself again every few seconds ([`Node::ready_to_claim`]).
//!
//! Shutdown: [`Node::begin_stop`] stops claiming; `queue::drain` gives in-flight judgings
//! `shutdown_grace` to finish, then cancels them (the judge stops between tests and they are
//! requeued), and stops the heartbeat last so that leases hold meanwhile.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};
use std::time::{Duration, Instant};

use tokio::sync::{watch, Notify};

use crate::blobs::Cache;
use crate::catalog::{Catalog, StatementRenderer};
use crate::events::Hub;
use crate::logging::log;
use ojd_config::Config;
use ojd_judge::Judge;
use ojd_judge::Verdict;
use ojd_store::HostStats;
use ojd_store::{Store, StoreError};

/// Why the daemon could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The database failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The judge could not start (its configuration or its sandbox).
    #[error("failed to start the judge")]
    Judge(#[from] ojd_judge::JudgeError),
    /// The HTTP listener could not bind its address.
    #[error("failed to listen on {addr}")]
    Bind {
        /// The address asked for.
        addr: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The HTTP server failed while serving.
    #[error("the HTTP server failed")]
    Serve(#[source] std::io::Error),
    /// Another `ojd serve` on this machine holds the SQLite database's lock file.
    #[error("another ojd serve is using the database {path} (it holds {lock})")]
    DatabaseBusy {
        /// The database file.
        path: String,
        /// The lock file the other process holds.
        lock: String,
    },
    /// The tokio runtime could not be built.
    #[error("failed to start the async runtime")]
    Runtime(#[source] std::io::Error),
    /// The package cache of a judge host could not be opened.
    #[error("the package cache")]
    Cache(#[from] crate::blobs::BlobError),
    /// `ojd worker` was given a database other hosts cannot share (not PostgreSQL); holds its
    /// description.
    #[error(
        "ojd worker needs a PostgreSQL database shared with ojd serve (postgres://…), not {0}"
    )]
    NotShared(String),
}

/// How long a claim's lease lasts without a heartbeat. A host that dies loses its claims this
/// long after its last heartbeat; an idle worker looks for work at least every
/// `IDLE_POLL`, so a dead host's submission is judged again within 12 s (the documented
/// bound is 15 s).
pub const LEASE: Duration = Duration::from_secs(10);
/// How often a node renews its leases and says it is alive.
pub(crate) const HEARTBEAT: Duration = Duration::from_secs(2);
/// The longest an idle worker waits before looking at the queue again.
pub(crate) const IDLE_POLL: Duration = Duration::from_secs(2);

/// How often a paused host checks itself again (free space, a probe file in its scratch and
/// cache), and so how soon it resumes once the cause is gone.
pub(crate) const HEALTH_RECHECK: Duration = Duration::from_secs(3);
/// How often a healthy host measures its free space before claiming (a busy host claims many
/// times a second; the check costs two `statvfs` and two small files).
pub(crate) const SPACE_CHECK: Duration = Duration::from_secs(1);
/// Host faults other than a lack of space one submission may meet on this host, its checks
/// passing each time, before it may be stored as a judge error, once [`HOST_FAULT_BUDGET`] has
/// passed too: past both the fault follows the submission (a package the judge cannot read),
/// not the host, and requeueing it again would only go round.
pub(crate) const HOST_FAULTS_PER_SUBMISSION: u32 = 3;
/// How long this host keeps giving a submission back to the queue after its first host fault
/// on it (pausing after each, until its checks pass): a host in trouble for a while (a load
/// spike, a slow disk) makes judging slower, never a judge error; a single host waits as long.
pub(crate) const HOST_FAULT_BUDGET: Duration = Duration::from_secs(600);

/// `ENOSPC` (Linux): the error number of every space fault.
const ENOSPC: i32 = 28;

/// Whether this host may claim work: a host fault, or a failed check of its free space and
/// disks, pauses claiming until a check passes ([`Node::ready_to_claim`]).
#[derive(Default)]
pub(crate) struct Health {
    state: std::sync::Mutex<HealthState>,
    /// Asks the toolchain recheck (`queue::recheck_toolchains`) to probe every unavailable
    /// language now: an admin resumed this host.
    pub(crate) recheck: Notify,
}

/// How long a pause's cause, once logged, is not logged again when it pauses the host anew
/// (a host that meets the same fault on each claim pauses every few seconds).
const PAUSE_LOG_QUIET: Duration = Duration::from_secs(600);

#[derive(Default)]
struct HealthState {
    /// Why claiming is paused, when it is.
    pause: Option<Pause>,
    /// The cause (kind and errno) of the last pause the log told, and when: the same cause
    /// pausing the host again within [`PAUSE_LOG_QUIET`] is not told again.
    logged: Option<((&'static str, Option<i32>), Instant)>,
    last_check: Option<Instant>,
    space: ojd_judge::HostSpace,
    /// Host faults met per submission on this host, and when the first was (see
    /// [`HOST_FAULTS_PER_SUBMISSION`]).
    faults: std::collections::HashMap<i64, (u32, Instant)>,
    /// Why an admin drained this host (from its last heartbeat), while they do.
    drain: Option<String>,
    /// Languages this host does not claim, each with why (see [`Health::skip_language`]).
    skipped: std::collections::BTreeMap<String, String>,
    /// Judging threads the watchdog abandoned that have not returned (see
    /// [`Node::abandoned`]).
    stuck: usize,
}

/// Why a host stopped claiming.
#[derive(Clone, Debug)]
struct Pause {
    cause: String,
    kind: &'static str,
    errno: Option<i32>,
    /// Whether the log told this pause (else its lifting is not told either).
    told: bool,
}

impl Health {
    fn lock(&self) -> std::sync::MutexGuard<'_, HealthState> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Pauses claiming for `cause`; logs it once per change of cause (its kind and errno: the
    /// message's figures change from one time to the next), and again for the same cause only
    /// after [`PAUSE_LOG_QUIET`].
    fn pause(&self, cause: String, kind: &'static str, errno: Option<i32>) {
        self.pause_at(cause, kind, errno, Instant::now());
    }

    /// [`Health::pause`] at `now`; whether it logged.
    fn pause_at(
        &self,
        cause: String,
        kind: &'static str,
        errno: Option<i32>,
        now: Instant,
    ) -> bool {
        let mut st = self.lock();
        st.last_check = Some(now);
        let key = (kind, errno);
        let told = match st.logged {
            Some((k, at)) => k != key || now.duration_since(at) >= PAUSE_LOG_QUIET,
            None => true,
        };
        if told {
            log(&format!(
                "this host stops claiming submissions: {cause} (checking again every {}s)",
                HEALTH_RECHECK.as_secs()
            ));
            st.logged = Some((key, now));
        }
        let told = told || st.pause.as_ref().is_some_and(|p| p.told);
        st.pause = Some(Pause {
            cause,
            kind,
            errno,
            told,
        });
        told
    }

    /// Pauses claiming for a host fault met while judging submission `id`; `true` when the
    /// submission is to go back to the queue, `false` at its [`HOST_FAULTS_PER_SUBMISSION`]th
    /// fault here once [`HOST_FAULT_BUDGET`] has passed since its first.
    fn fault(&self, id: i64, cause: String, kind: &'static str, errno: Option<i32>) -> bool {
        self.fault_at(id, cause, kind, errno, Instant::now())
    }

    /// [`Health::fault`] at `now`.
    fn fault_at(
        &self,
        id: i64,
        cause: String,
        kind: &'static str,
        errno: Option<i32>,
        now: Instant,
    ) -> bool {
        self.pause(cause, kind, errno);
        // Space runs out for the host, never for the submission: it always goes back (a
        // healthy host, or this one once it has room, judges it).
        if errno == Some(ENOSPC) {
            return true;
        }
        let mut st = self.lock();
        if st.faults.len() > 10_000 {
            st.faults.clear();
        }
        let (n, first) = st.faults.entry(id).or_insert((0, now));
        *n += 1;
        if *n >= HOST_FAULTS_PER_SUBMISSION && now.duration_since(*first) >= HOST_FAULT_BUDGET {
            st.faults.remove(&id);
            return false;
        }
        true
    }

    /// Stops claiming submissions in `language` (its toolchain is missing or failed here):
    /// they stay in the queue for another host, or for this one once a later probe finds the
    /// toolchain ([`Health::claim_language`]). Logs it once.
    pub(crate) fn skip_language(&self, language: &str, why: &str) {
        let mut st = self.lock();
        if !st.skipped.contains_key(language) {
            log(&format!(
                "this host stops claiming {language} submissions: {why}"
            ));
            st.skipped.insert(language.to_string(), why.to_string());
        }
    }

    /// A later probe of a language this host skips failed for another reason than before:
    /// the new one is recorded and logged.
    pub(crate) fn still_skip_language(&self, language: &str, why: &str) {
        let mut st = self.lock();
        if let Some(before) = st.skipped.get_mut(language) {
            if before != why {
                log(&format!(
                    "this host still does not claim {language} submissions: {why}"
                ));
                *before = why.to_string();
            }
        }
    }

    /// Claims submissions in `language` again (a later probe found its toolchain); logs it.
    pub(crate) fn claim_language(&self, language: &str) {
        let mut st = self.lock();
        if let Some(why) = st.skipped.remove(language) {
            log(&format!(
                "this host claims {language} submissions again: its toolchain was found (it had stopped: {why})"
            ));
        }
    }

    /// The languages this host does not claim.
    pub(crate) fn skipped_languages(&self) -> Vec<String> {
        self.lock().skipped.keys().cloned().collect()
    }

    /// Records an admin's drain request as the heartbeat read it (`None`: resume); logs a
    /// change.
    pub(crate) fn set_drain(&self, drain: Option<String>) {
        let mut st = self.lock();
        if st.drain != drain {
            match &drain {
                Some(why) => log(&format!(
                    "an admin drains this host: it finishes what it judges and claims nothing new ({why})"
                )),
                None => {
                    log("an admin resumed this host: it claims submissions again");
                    // And it probes the toolchains it lacked at once (a drain and a resume
                    // is how an admin says "I installed it").
                    if !st.skipped.is_empty() {
                        self.recheck.notify_one();
                    }
                }
            }
            st.drain = drain;
        }
    }
}

/// What a node does.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Role {
    /// `ojd serve`: HTTP, problems from its folder, maybe local workers.
    Serve,
    /// `ojd worker`: judging only, problems from the database.
    Worker,
}

impl Role {
    /// The role's name in the hosts table and logs (`serve`, `worker`).
    pub fn as_str(self) -> &'static str {
        match self {
            Role::Serve => "serve",
            Role::Worker => "worker",
        }
    }
}

/// What kind of node [`Node::build`] makes, and from what.
struct Kind {
    role: Role,
    /// The name it was given (a label).
    label: String,
    /// Its identity: unique per process (see [`identity`]).
    host: String,
    packages: Option<Arc<Cache>>,
    statement: StatementRenderer,
}

tokio::task_local! {
    /// How long each store operation of the current task may keep its caller waiting
    /// ([`answering_within`]).
    static DB_WAIT: Duration;
}

/// Runs `f` (a request's handling) with each of its store operations (`Node::db`) waited
/// for at most `limit`: past it the caller gets [`StoreError::Unreachable`] (the web answers
/// 503) while the operation runs on in its thread. For reads, whose result nobody else waits
/// for; a write that must not happen after its client was told 503 runs under
/// [`writing_within`](crate::writing_within) (a submission: [`Node::submit`]'s own gate).
pub async fn answering_within<F: std::future::Future>(limit: Duration, f: F) -> F::Output {
    DB_WAIT.scope(limit, f).await
}

/// What a caller that stopped waiting for the database after `limit` gets.
pub(crate) fn no_answer(limit: Duration) -> StoreError {
    StoreError::Unreachable {
        path: "the database".into(),
        source: format!("no answer within {} s", limit.as_secs_f64()).into(),
    }
}

/// A store operation run on a blocking thread failed.
#[derive(Debug, thiserror::Error)]
pub enum DbError {
    /// The store failed.
    #[error(transparent)]
    Store(#[from] StoreError),
    /// The blocking task running the store operation panicked or was cancelled.
    #[error("a database task failed: {0}")]
    Task(String),
}

/// Everything a node's workers, heartbeat and (on `serve`) its web layer share.
pub struct Node {
    pub(crate) config: Config,
    pub(crate) judge: Arc<Judge>,
    pub(crate) store: Arc<dyn Store>,
    catalog: RwLock<Arc<Catalog>>,
    /// Renders a statement to HTML when problems are (re)loaded.
    statement: StatementRenderer,
    pub(crate) hub: Hub,
    pub(crate) metrics: Counters,
    /// Wakes an idle worker when work is queued.
    pub(crate) wake: Notify,
    /// Becomes true when shutdown begins.
    stop_tx: watch::Sender<bool>,
    pub(crate) started: Instant,
    pub(crate) workers: usize,
    /// This node's identity, unique per process: its claims (`claimed_by`), its host row,
    /// `judged_by` on the judgings its workers make.
    pub(crate) host: String,
    pub(crate) role: Role,
    /// Whether other nodes share the database (PostgreSQL): events then go through it.
    pub(crate) shared: bool,
    /// A judge host's package cache (workers without a problems folder).
    pub(crate) packages: Option<Arc<Cache>>,
    /// Set when the heartbeat may stop (after the workers drained).
    beat_stop: Arc<AtomicBool>,
    /// Whether this host may claim (host faults, free space).
    pub(crate) health: Health,
    /// The flock on `<database>.lock`, held while the daemon runs.
    db_lock: std::sync::Mutex<Option<std::fs::File>>,
    /// Contests' standings tables, computed once per change (`standings`).
    pub(crate) boards: crate::boards::Cache,
    /// The write gate's probes of the database ([`Node::database_answers`]).
    pub(crate) probes: crate::write_gate::Probes,
    /// The Contest API's rosters as last logged ([`Node::ccs_roster_log`]).
    pub(crate) roster_seen: RosterSeen,
}

/// Each contest's roster as this node last logged it (a hash of its objects) and the log
/// then, so that the Contest API's reads record a change once rather than on every read.
pub(crate) type RosterSeen =
    std::sync::Mutex<std::collections::HashMap<String, (u64, Arc<Vec<ojd_store::RosterChange>>)>>;

/// Takes an exclusive lock on `<database>.lock`; the kernel drops it when the daemon exits.
/// `None` when the lock file cannot be made (opening the database then reports why). A
/// command that writes a SQLite database beside the daemon (`ojd contest import`) takes it too.
pub fn lock_database(db: &std::path::Path) -> Result<Option<std::fs::File>, ServerError> {
    let mut name = db.as_os_str().to_owned();
    name.push(".lock");
    let path = std::path::PathBuf::from(name);
    let Ok(file) = std::fs::OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(&path)
    else {
        return Ok(None);
    };
    match file.try_lock() {
        Ok(()) => Ok(Some(file)),
        Err(_) => Err(ServerError::DatabaseBusy {
            path: db.display().to_string(),
            lock: path.display().to_string(),
        }),
    }
}

impl Node {
    /// Opens the store, requeues interrupted work and loads the problems. Blocking: call it
    /// before the runtime starts or on a blocking thread.
    pub fn start(
        config: Config,
        judge: Judge,
        workers: usize,
        statement: StatementRenderer,
    ) -> Result<Arc<Node>, ServerError> {
        let database = config.server.database.to_string_lossy().into_owned();
        if ojd_store::is_postgres_url(&database) {
            // Many nodes share it; each takes back only its own interrupted claims.
            let store = ojd_store::open(&database)?;
            let label = format!("{}/serve", host_name());
            let host = identity(&label);
            return Node::build(
                config,
                judge,
                workers,
                store,
                Kind {
                    role: Role::Serve,
                    label,
                    host,
                    packages: None,
                    statement,
                },
            );
        }
        // Two daemons on one database would both requeue and judge the same submissions.
        let lock = lock_database(&config.server.database)?;
        let store = ojd_store::open(&database)?;
        let app = Node::with_store(config, judge, workers, store, statement)?;
        *app.db_lock.lock().unwrap_or_else(|e| e.into_inner()) = lock;
        Ok(app)
    }

    /// A single-host daemon over `store`: everything left `judging` is requeued at start.
    pub fn with_store(
        config: Config,
        judge: Judge,
        workers: usize,
        store: Arc<dyn Store>,
        statement: StatementRenderer,
    ) -> Result<Arc<Node>, ServerError> {
        let requeued = store.requeue_interrupted(None)?;
        if requeued > 0 {
            log(&format!(
                "requeued {requeued} submission(s) left half-judged by the previous run"
            ));
        }
        Node::build(
            config,
            judge,
            workers,
            store,
            Kind {
                role: Role::Serve,
                label: host_name(),
                host: host_name(),
                packages: None,
                statement,
            },
        )
    }

    /// A judge host (`ojd worker`) named `name`, its identity `identity` (see [`identity`]):
    /// no problems folder, packages from the database.
    pub(crate) fn worker(
        config: Config,
        judge: Judge,
        workers: usize,
        (name, identity): (String, String),
        cache: Cache,
    ) -> Result<Arc<Node>, ServerError> {
        let database = config.server.database.to_string_lossy().into_owned();
        let store = ojd_store::open(&database)?;
        Node::build(
            config,
            judge,
            workers,
            store,
            Kind {
                role: Role::Worker,
                label: name,
                host: identity,
                packages: Some(Arc::new(cache)),
                statement: |_, _| String::new(),
            },
        )
    }

    fn build(
        config: Config,
        judge: Judge,
        workers: usize,
        store: Arc<dyn Store>,
        what: Kind,
    ) -> Result<Arc<Node>, ServerError> {
        let Kind {
            role,
            label,
            host,
            packages,
            statement,
        } = what;
        let shared = ojd_store::is_postgres_url(&config.server.database.to_string_lossy());
        if shared {
            // Refused when a process of this identity is alive; takes back what this identity,
            // or a dead process of the same name, left half-judged (never a live one's).
            let start = ojd_store::HostStart {
                identity: &host,
                label: &label,
                role: role.as_str(),
                version: env!("CARGO_PKG_VERSION"),
                started_at: crate::now_ms(),
            };
            let requeued = store.register_host(&start, LEASE.as_millis() as i64)?;
            if requeued > 0 {
                log(&format!(
                    "requeued {requeued} submission(s) a dead host named {label} left half-judged"
                ));
            }
        }
        let catalog = match role {
            Role::Serve => {
                let catalog = Catalog::load(&config, &judge, statement);
                catalog.report();
                publish_all(store.as_ref(), &catalog);
                catalog
            }
            Role::Worker => Catalog::default(),
        };
        let (stop_tx, _) = watch::channel(false);
        let hub = Hub::new();
        if shared {
            hub.forward_to(store.clone(), host.clone());
        }
        let boards = crate::boards::Cache::new(config.server.standings_cache);
        Ok(Arc::new(Node {
            config,
            judge: Arc::new(judge),
            store,
            catalog: RwLock::new(Arc::new(catalog)),
            statement,
            hub,
            metrics: Counters::default(),
            wake: Notify::new(),
            stop_tx,
            started: Instant::now(),
            workers,
            host,
            role,
            shared,
            packages,
            beat_stop: Arc::new(AtomicBool::new(false)),
            health: Health::default(),
            db_lock: std::sync::Mutex::new(None),
            boards,
            roster_seen: Default::default(),
            probes: Default::default(),
        }))
    }

    /// The problems as loaded now (a snapshot: a reload swaps in a new one).
    pub fn catalog(&self) -> Arc<Catalog> {
        self.catalog
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Loads every problem again (blocking: it may generate answers).
    pub fn reload(&self) -> Arc<Catalog> {
        let fresh = Arc::new(Catalog::load(&self.config, &self.judge, self.statement));
        fresh.report();
        publish_all(self.store.as_ref(), &fresh);
        *self.catalog.write().unwrap_or_else(|e| e.into_inner()) = fresh.clone();
        fresh
    }

    /// Runs a store operation on a blocking thread. Under [`answering_within`] (a request's
    /// reads) the caller waits at most that long, then has [`StoreError::Unreachable`]: a
    /// hung database makes a page answer 503, not wait; the operation itself runs on.
    pub(crate) async fn db<T, F>(self: &Arc<Self>, f: F) -> Result<T, DbError>
    where
        T: Send + 'static,
        F: FnOnce(&dyn Store) -> Result<T, StoreError> + Send + 'static,
    {
        // Under a write request's gate (writes.rs), that gate decides.
        if let Some(gate) = crate::write_gate::write_gate() {
            return self.gated_db(gate, f).await;
        }
        let store = self.store.clone();
        let task = tokio::task::spawn_blocking(move || f(store.as_ref()));
        let joined = match DB_WAIT.try_with(|d| *d) {
            Ok(limit) => match tokio::time::timeout(limit, task).await {
                Ok(joined) => joined,
                Err(_) => return Err(DbError::Store(no_answer(limit))),
            },
            Err(_) => task.await,
        };
        match joined {
            Ok(r) => r.map_err(DbError::Store),
            Err(e) => Err(DbError::Task(e.to_string())),
        }
    }

    /// A receiver that turns true when the node starts to shut down.
    pub fn stopping(&self) -> watch::Receiver<bool> {
        self.stop_tx.subscribe()
    }

    /// Whether the node is shutting down.
    pub fn is_stopping(&self) -> bool {
        *self.stop_tx.borrow()
    }

    /// Whether this host may claim a submission now. A healthy host measures its scratch's and
    /// cache's free space against `[judge] min_free_space` (at most every [`SPACE_CHECK`]); a
    /// paused one checks itself every [`HEALTH_RECHECK`] and resumes when the check passes.
    pub(crate) async fn ready_to_claim(self: &Arc<Self>) -> bool {
        {
            let mut st = self.health.lock();
            if st.drain.is_some() {
                return false;
            }
            let every = if st.pause.is_some() {
                HEALTH_RECHECK
            } else {
                SPACE_CHECK
            };
            if st.last_check.is_some_and(|t| t.elapsed() < every) {
                return st.pause.is_none();
            }
            st.last_check = Some(Instant::now());
        }
        if let Some(cause) = self.too_many_stuck() {
            self.health.pause(cause, "stuck_judgings", None);
            return false;
        }
        let judge = self.judge.clone();
        let min_free = self.config.judge.min_free_space.bytes();
        let checked = tokio::task::spawn_blocking(move || {
            // A folder removed under the running host is made again here, and said so.
            for dir in judge.heal_folders()? {
                log(&format!("{} was gone: made it again", dir.display()));
            }
            judge.host_check(min_free)
        })
        .await;
        match checked {
            Ok(Ok(space)) => {
                let mut st = self.health.lock();
                st.space = space;
                if let Some(p) = st.pause.take().filter(|p| p.told) {
                    log(&format!(
                        "this host claims submissions again: its checks pass ({} MiB free in the scratch, {} MiB in the cache; it had stopped: {})",
                        space.scratch_free >> 20,
                        space.cache_free >> 20,
                        p.cause
                    ));
                }
                true
            }
            Ok(Err(e)) => {
                let cause = crate::logging::error_chain(&e);
                let kind = e.host_fault_kind().unwrap_or("check");
                self.health.pause(cause, kind, e.errno());
                false
            }
            Err(e) => {
                self.health
                    .pause(format!("the host check failed: {e}"), "check", None);
                false
            }
        }
    }

    /// How many judging workers this node runs: none on a serve node with `local_workers =
    /// false` (it judges nothing, whatever `[server] workers` says).
    pub fn judging_workers(&self) -> usize {
        match self.role {
            Role::Serve if !self.config.server.local_workers => 0,
            _ => self.workers,
        }
    }

    /// Records a host fault met while judging submission `id`: claiming pauses until the
    /// host's checks pass. `true` when the submission is to go back to the queue; `false` when
    /// it met `HOST_FAULTS_PER_SUBMISSION` of them here (the fault follows the submission).
    pub fn host_fault(&self, id: i64, e: &ojd_judge::JudgeError) -> bool {
        let cause = crate::logging::error_chain(e);
        let kind = e.host_fault_kind().unwrap_or("io_error");
        self.host_fault_because(id, cause, kind, e.errno())
    }

    /// [`Node::host_fault`] for a fault described by its cause, kind and errno (a package
    /// that cannot be written to this host's cache).
    pub(crate) fn host_fault_because(
        &self,
        id: i64,
        cause: String,
        kind: &'static str,
        errno: Option<i32>,
    ) -> bool {
        self.metrics.host_faults.fetch_add(1, Ordering::Relaxed);
        self.health.fault(id, cause, kind, errno)
    }

    /// Keeps count of a judging thread the watchdog abandoned (`task`, its handle) until it
    /// returns, if ever. Each may hold one of the host's sandboxes; past [`Node::workers`] of
    /// them still stuck the host claims nothing more ([`Node::too_many_stuck`]): every sandbox
    /// may be held, every new judging would wait for one, be abandoned in turn and leave one
    /// more thread behind, without end. So at most one thread more than the workers is ever
    /// left, and the host says why it stopped (its log, its pause's cause on the hosts page);
    /// it claims again when they return, or after a restart.
    pub(crate) fn abandoned<T: Send + 'static>(self: &Arc<Self>, task: tokio::task::JoinHandle<T>) {
        let stuck = {
            let mut st = self.health.lock();
            st.stuck += 1;
            st.stuck
        };
        log(&format!(
            "{stuck} judging thread(s) abandoned by the watchdog are still stuck on this host \
             (it stops claiming past {})",
            self.workers.max(1)
        ));
        let node = self.clone();
        tokio::spawn(async move {
            // Its result was given up: only its end counts.
            let _ = task.await;
            let left = {
                let mut st = node.health.lock();
                st.stuck = st.stuck.saturating_sub(1);
                st.stuck
            };
            log(&format!(
                "a judging thread abandoned by the watchdog returned after all ({left} still stuck)"
            ));
        });
    }

    /// Why this host claims nothing while abandoned judging threads are stuck: more than its
    /// workers of them (see [`Node::abandoned`]).
    fn too_many_stuck(&self) -> Option<String> {
        let stuck = self.health.lock().stuck;
        (stuck > self.workers.max(1)).then(|| {
            format!(
                "{stuck} judging threads abandoned by the watchdog are still stuck, more than its {} \
                 worker(s): they may hold every sandbox (restart this host to free them)",
                self.workers.max(1)
            )
        })
    }

    /// Forgets the host faults of a submission this host has now judged.
    pub fn judged(&self, id: i64) {
        self.health.lock().faults.remove(&id);
    }
}

/// What the layers above read of a node: its fields stay the service's own.
impl Node {
    /// The daemon's configuration.
    pub fn config(&self) -> &Config {
        &self.config
    }

    /// The judge the workers share.
    pub fn judge(&self) -> &Arc<Judge> {
        &self.judge
    }

    /// The live progress of the judgings.
    pub fn hub(&self) -> &Hub {
        &self.hub
    }

    /// This process's counters.
    pub fn metrics(&self) -> &Counters {
        &self.metrics
    }

    /// This node's identity (see `identity`).
    pub fn host(&self) -> &str {
        &self.host
    }

    /// Whether this node is `ojd serve` or `ojd worker`.
    pub fn role(&self) -> Role {
        self.role
    }

    /// Whether other nodes share the database (PostgreSQL).
    pub fn shared(&self) -> bool {
        self.shared
    }

    /// How long this node has run.
    pub fn uptime(&self) -> Duration {
        self.started.elapsed()
    }

    /// A judge host's package cache.
    pub fn packages(&self) -> Option<&Arc<Cache>> {
        self.packages.as_ref()
    }

    /// Wakes the idle workers: work was queued (a rejudge).
    pub fn wake_workers(&self) {
        self.wake.notify_waiters();
        self.wake.notify_one();
    }

    /// The store itself, for the service's own modules: outside the service every read and
    /// write goes through a typed operation ([`Node::submit`], [`Node::seen`], ...).
    pub(crate) fn store(&self) -> &Arc<dyn Store> {
        &self.store
    }
}

/// Publishes every loaded problem to the database (content-addressed: unchanged files cost
/// nothing), so judge hosts without the folder can judge it; failures are logged.
fn publish_all(store: &dyn Store, catalog: &Catalog) {
    let now = crate::now_ms();
    for (id, entry) in &catalog.problems {
        if let Err(e) = crate::blobs::publish(store, &entry.problem, now) {
            log(&format!(
                "problem {id}: cannot publish it to judge hosts: {e}"
            ));
        }
    }
}

/// Starts the node's heartbeat (a thread of its own, so a busy runtime cannot starve it): it
/// renews the leases of the submissions this node's workers judge (and only those) every
/// `HEARTBEAT` until `Node::stop_heartbeat`.
pub fn start_heartbeat(app: &Arc<Node>) {
    let store = app.store.clone();
    let host = app.host.clone();
    let role = app.role.as_str();
    let stop = app.beat_stop.clone();
    let started = crate::now_ms();
    let mut failing = false;
    // The pause cause the hosts row has (`None`: not written yet).
    let mut pause_sent: Option<Option<String>> = None;
    let weak = Arc::downgrade(app);
    let spawned = std::thread::Builder::new()
        .name("ojd-heartbeat".into())
        .spawn(move || {
            while !stop.load(Ordering::Relaxed) {
                let lease = LEASE.as_millis() as i64;
                let (stats, judging) = weak
                    .upgrade()
                    .map(|app| (host_stats(&app), app.hub.local_ids()))
                    .unwrap_or_default();
                match store.heartbeat(&host, role, started, lease, &judging, &stats) {
                    Ok(beat) => {
                        if failing {
                            failing = false;
                            log("the database answers again; leases renewed");
                        }
                        if let Some(app) = weak.upgrade() {
                            app.health.set_drain(beat.drain);
                            let cause = app.health.lock().pause.as_ref().map(|p| p.cause.clone());
                            if pause_sent.as_ref() != Some(&cause)
                                && store.set_pause(&host, cause.as_deref()).is_ok()
                            {
                                pause_sent = Some(cause);
                            }
                        }
                    }
                    Err(e) if !failing => {
                        failing = true;
                        log(&format!(
                            "heartbeat failed (retrying): {}",
                            crate::logging::error_chain(&e)
                        ));
                    }
                    Err(_) => {}
                }
                std::thread::sleep(HEARTBEAT);
            }
        });
    if let Err(e) = spawned {
        log(&format!("cannot start the heartbeat: {e}"));
    }
    if app.role == Role::Serve {
        start_collector(app);
    }
}

/// How often a serve node collects what nothing uses (`[server] retention`).
pub(crate) const COLLECT_EVERY: Duration = Duration::from_secs(3600);

/// Collects unused package versions, blobs and gone hosts' rows older than `[server]
/// retention`, a minute after start and then every [`COLLECT_EVERY`], on a thread of its own
/// (nothing when the retention is 0).
fn start_collector(app: &Arc<Node>) {
    let keep = app.config.server.retention;
    if keep.is_zero() {
        return;
    }
    let weak = Arc::downgrade(app);
    let stop = app.beat_stop.clone();
    let spawned = std::thread::Builder::new()
        .name("ojd-collect".into())
        .spawn(move || {
            let mut next = Instant::now() + Duration::from_secs(60);
            while !stop.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_secs(1));
                if Instant::now() < next {
                    continue;
                }
                next = Instant::now() + COLLECT_EVERY;
                let Some(app) = weak.upgrade() else {
                    return;
                };
                collect(&app, keep);
            }
        });
    if let Err(e) = spawned {
        log(&format!("cannot start collecting unused data: {e}"));
    }
}

/// Collects what nothing has used for `keep` ([`ojd_store::ClusterStore::collect`]);
/// logs what went. Blocking.
pub fn collect(app: &Node, keep: Duration) -> Option<ojd_store::Collected> {
    match app.store.collect(keep.as_millis() as i64) {
        Ok(c) => {
            if c != Default::default() {
                log(&format!(
                    "collected {} unused package version(s), {} blob(s), {} gone host(s)",
                    c.packages, c.blobs, c.hosts
                ));
            }
            Some(c)
        }
        Err(e) => {
            log(&format!(
                "cannot collect unused data: {}",
                crate::logging::error_chain(&e)
            ));
            None
        }
    }
}

/// Feeds other nodes' live events into this node's hub (PostgreSQL only).
pub fn start_listener(app: &Arc<Node>) {
    if !app.shared {
        return;
    }
    let weak = Arc::downgrade(app);
    let sink = Box::new(move |channel: &str, payload: String| {
        if let Some(app) = weak.upgrade() {
            if channel == ojd_store::QUEUED {
                app.wake.notify_waiters();
            } else {
                app.hub.apply_remote(&app.host, &payload);
            }
        }
    });
    if let Err(e) = app.store.listen(sink) {
        log(&format!(
            "live events from other hosts are off: {}",
            crate::logging::error_chain(&e)
        ));
    }
}

impl Node {
    /// Starts shutdown: no new claims; idle workers wake up and end.
    pub fn begin_stop(&self) {
        self.stop_tx.send_replace(true);
        self.wake.notify_waiters();
    }

    /// Lets the heartbeat thread end (after the workers drained).
    pub(crate) fn stop_heartbeat(&self) {
        self.beat_stop.store(true, Ordering::Relaxed);
    }
}

/// A new process identity for a host named `label`: the label and 64 random bits, so that two
/// processes given the same name never share claims, and nobody can guess another's identity
/// from its name.
pub(crate) fn identity(label: &str) -> String {
    let mut bytes = [0u8; 8];
    let random = std::fs::File::open("/dev/urandom")
        .and_then(|mut f| std::io::Read::read_exact(&mut f, &mut bytes));
    if random.is_err() {
        // No /dev/urandom: the clock and the process id, hashed (unique, if guessable).
        let seed = format!(
            "{label}{:?}{}",
            std::time::SystemTime::now(),
            std::process::id()
        );
        let hash = ojd_store::sha256_hex(seed.as_bytes());
        return format!("{label}~{}", &hash[..16]);
    }
    let hex = ojd_judge::hex_encode(&bytes);
    format!("{label}~{hex}")
}

/// Why an identity given on the command line cannot be one.
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum IdentityError {
    /// It has fewer than 1 or more than 200 characters (the count).
    #[error("--identity must have 1 to 200 characters (it has {0})")]
    Length(usize),
    /// It contains a control character (the identity, quoted in the message).
    #[error("--identity {0:?} has a control character")]
    Control(String),
}

/// Checks an identity given on the command line: 1 to 200 characters, no control characters.
pub fn check_identity(identity: &str) -> Result<(), IdentityError> {
    if identity.is_empty() || identity.len() > 200 {
        return Err(IdentityError::Length(identity.len()));
    }
    if identity.chars().any(char::is_control) {
        return Err(IdentityError::Control(identity.to_string()));
    }
    Ok(())
}

/// The machine's host name (`judged_by`), or "localhost" when the kernel does not say.
pub(crate) fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|h| h.trim().to_string())
        .filter(|h| !h.is_empty())
        .unwrap_or_else(|| "localhost".to_string())
}

/// The judge a daemon's workers share (`[server] workers`, 0: one per core), its isolation
/// warnings logged; with the worker count. Used by `ojd serve` and `ojd worker`.
pub fn start_judge(
    config: &Config,
    keeper: Option<std::path::PathBuf>,
) -> Result<(Judge, usize), ServerError> {
    let workers = match config.server.workers {
        0 => std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1),
        n => n,
    };
    let mut judge = Judge::new(config.judging(), workers)?;
    if let Some(k) = keeper {
        judge.set_keeper(k);
    }
    for w in judge.warnings()? {
        log(&format!("warning: {w}"));
    }
    Ok((judge, workers))
}

/// Counters of this process.
#[derive(Default)]
pub struct Counters {
    /// Judgings this node finished.
    pub judged: AtomicU64,
    /// Judgings that ended in a judge error.
    pub judge_errors: AtomicU64,
    /// Time spent judging, in milliseconds, summed over all judgings (with `judged`, the mean).
    pub judge_ms_total: AtomicU64,
    /// Submissions this node queued.
    pub submitted: AtomicU64,
    /// Submissions this node refused with a client error (bad language, too large, not text).
    pub rejected: AtomicU64,
    /// Claims that took a submission over from a host whose lease ran out.
    pub leases_taken_over: AtomicU64,
    /// Judgings this node gave back to the queue (shutdown, cancellation).
    pub requeued: AtomicU64,
    /// Verdicts refused because the claim was no longer current (rejudged, or the lease was
    /// lost and another host took the submission).
    pub stale_verdicts: AtomicU64,
    /// Attempts to store a verdict that failed (the database did not answer) and were retried.
    pub store_retries: AtomicU64,
    /// Judgings abandoned for a failure of this host (its disk, its own I/O, its sandbox).
    pub(crate) host_faults: AtomicU64,
}

impl Counters {
    pub(crate) fn record(&self, _verdict: Verdict, took: Duration) {
        self.judged.fetch_add(1, Ordering::Relaxed);
        self.judge_ms_total
            .fetch_add(took.as_millis() as u64, Ordering::Relaxed);
    }
}

/// This node's counters as it sends them with its heartbeat (see [`HostStats`]).
pub(crate) fn host_stats(app: &Node) -> HostStats {
    let c = &app.metrics;
    let load = |a: &AtomicU64| a.load(Ordering::Relaxed);
    let mut s = HostStats::new();
    s.insert("judged".into(), load(&c.judged));
    s.insert("judge_errors".into(), load(&c.judge_errors));
    s.insert("leases_taken_over".into(), load(&c.leases_taken_over));
    s.insert("requeued".into(), load(&c.requeued));
    s.insert("stale_verdicts".into(), load(&c.stale_verdicts));
    s.insert("store_retries".into(), load(&c.store_retries));
    s.insert("workers".into(), app.judging_workers() as u64);
    s.insert(
        "cpus".into(),
        std::thread::available_parallelism().map_or(1, |n| n.get() as u64),
    );
    s.insert("host_faults".into(), load(&c.host_faults));
    {
        let st = app.health.lock();
        s.insert("paused".into(), st.pause.is_some() as u64);
        s.insert("drained".into(), st.drain.is_some() as u64);
        if let Some(p) = &st.pause {
            // Why: the kind of fault as a key of its own (`paused_disk_full`), with its errno.
            s.insert(format!("paused_{}", p.kind), p.errno.unwrap_or(0) as u64);
        }
        for lang in st.skipped.keys() {
            // A language this host does not claim (its toolchain is missing or failed).
            s.insert(format!("not_claiming_{lang}"), 1);
        }
        s.insert("scratch_free_bytes".into(), st.space.scratch_free);
        s.insert("cache_free_bytes".into(), st.space.cache_free);
    }
    if let Some(cache) = &app.packages {
        s.insert("blobs_fetched".into(), load(&cache.fetched));
        s.insert("blobs_fetched_bytes".into(), load(&cache.fetched_bytes));
        s.insert("blobs_cached".into(), load(&cache.reused));
        s.insert("packages_loaded".into(), cache.loaded_count() as u64);
        s.insert("package_cache_bytes".into(), cache.size());
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cause of the current pause, if claiming is paused.
    fn paused(h: &Health) -> Option<String> {
        h.lock().pause.as_ref().map(|p| p.cause.clone())
    }

    #[test]
    fn an_identity_is_1_to_200_characters_without_control_characters() {
        assert_eq!(check_identity("judge-2~3f9a"), Ok(()));
        assert_eq!(check_identity(""), Err(IdentityError::Length(0)));
        assert_eq!(
            check_identity(&"x".repeat(201)),
            Err(IdentityError::Length(201))
        );
        assert_eq!(
            check_identity("a\nb"),
            Err(IdentityError::Control("a\nb".into()))
        );
    }

    #[test]
    fn a_host_fault_pauses_and_a_submission_goes_back_until_its_third_fault_past_the_budget() {
        let h = Health::default();
        assert_eq!(paused(&h), None);
        let t0 = Instant::now();
        let later = t0 + HOST_FAULT_BUDGET;
        let table = [
            (7, true, "read error", Some(5), t0),
            (8, true, "keeper gone", None, t0),
            (7, true, "read error", Some(5), t0),
            // A third fault within the budget: still the host's trouble, back to the queue.
            (7, true, "read error", Some(5), t0),
            (7, false, "read error", Some(5), later),
            (7, true, "read error", Some(5), later),
            // A full disk is the host's, however often and long: always back to the queue.
            (9, true, "scratch full", Some(ENOSPC), t0),
            (9, true, "scratch full", Some(ENOSPC), t0),
            (9, true, "scratch full", Some(ENOSPC), later),
            (9, true, "scratch full", Some(ENOSPC), later),
        ];
        for (id, requeue, cause, errno, at) in table {
            assert_eq!(
                h.fault_at(id, cause.into(), "io_error", errno, at),
                requeue,
                "submission {id}"
            );
            assert_eq!(paused(&h).as_deref(), Some(cause));
        }
        // A passing check lifts the pause (as `Node::ready_to_claim` does).
        h.lock().pause = None;
        assert_eq!(paused(&h), None);
    }

    /// A host meeting the same fault on every claim pauses every few seconds: its log says so
    /// once per change of cause (kind and errno, whatever figures the message has), and again
    /// for the same cause only after the quiet time.
    #[test]
    fn a_pause_is_logged_once_per_change_of_cause() {
        let h = Health::default();
        let t0 = Instant::now();
        let lift = |h: &Health| h.lock().pause = None;
        let table = [
            ("scratch has 100 MiB free", "low_space", None, t0, true),
            // Lifted and paused again for the same cause, other figures: not told again.
            ("scratch has 90 MiB free", "low_space", None, t0, false),
            (
                "scratch has 80 MiB free",
                "low_space",
                None,
                t0 + HEALTH_RECHECK,
                false,
            ),
            // Another cause is told, and then the first again since it changed.
            ("read error", "io_error", Some(5), t0, true),
            ("read error", "io_error", Some(5), t0, false),
            ("no space", "io_error", Some(ENOSPC), t0, true),
            ("scratch has 70 MiB free", "low_space", None, t0, true),
            (
                "scratch has 70 MiB free",
                "low_space",
                None,
                t0 + PAUSE_LOG_QUIET / 2,
                false,
            ),
            // Past the quiet time the same cause is told again.
            (
                "scratch has 60 MiB free",
                "low_space",
                None,
                t0 + PAUSE_LOG_QUIET,
                true,
            ),
        ];
        for (cause, kind, errno, at, told) in table {
            assert_eq!(h.pause_at(cause.into(), kind, errno, at), told, "{cause}");
            // Whatever the log said, the pause's cause is the latest one (the hosts page).
            assert_eq!(paused(&h).as_deref(), Some(cause));
            lift(&h);
        }
    }
}
