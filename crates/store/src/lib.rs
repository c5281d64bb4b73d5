//! The daemon's storage: submissions, their judgings (with per-test results), the judging queue
//! and issued tokens, behind one [`Store`] trait with a backend per database engine.
//! [`open`] picks the backend from the configured `database`: a path is the embedded SQLite
//! store ([`SqliteStore`], the default), a `postgres://` or `postgresql://` URL is PostgreSQL.
//!
//! # Layout (how an area adds its tables and methods)
//!
//! ```text
//! lib.rs                  this file: the Store trait, shared types, StoreError, open()
//! submissions.rs          the core Store methods (queue, submissions, judgings, tokens)
//! <area>.rs               an area's own trait, its types and its one implementation (e.g.
//!                         contests.rs: ContestStore; cluster.rs: ClusterStore, hosts,
//!                         packages, live events; web.rs: WebStore, sessions)
//! db.rs                   the query layer the areas are written on, and the Engine trait
//! schema.rs               the schema's history: one migration list for both engines
//!                         (append-only)
//! sqlite/mod.rs           SqliteStore: the connection, and the Engine parts SQLite does its
//!                         own way
//! postgres/mod.rs         PgStore, the same for PostgreSQL (role.rs: the judge hosts' role)
//! ```
//!
//! **A store feature is written once**, for every backend (`impl<E: Engine> Store for E`), over
//! a small private layer in `db.rs`: SQL in PostgreSQL's spelling with `$1` placeholders
//! (rewritten for SQLite by a tiny, tested function: `?1`, `= ANY($1)` lists as JSON, and no
//! `FOR UPDATE`, SQLite's writers taking turns anyway); parameters as a `Value` that carries its
//! PostgreSQL type (a statement goes out typed, in one round trip); rows read through a `Row`
//! that decodes the same Rust types from either driver. Why not a query builder or an ORM: the
//! queries are plain SQL both engines accept, and what differed between the two copies
//! (placeholders, parameters, row decoding) takes a few hundred lines to remove, with no new
//! dependency and the same synchronous drivers, transactions, locks and statements.
//!
//! Per engine (`db.rs`'s `Engine` trait, in `sqlite/` and `postgres/`) stays only what the
//! engines do differently: connecting and transactions (a mutex-held SQLite connection, a
//! PostgreSQL pool), where the schema's version is kept, the claim (one PostgreSQL statement
//! with `FOR UPDATE SKIP LOCKED`; steps of SQLite's single-writer transaction), whether package
//! blobs are kept, and live events (LISTEN/NOTIFY; none on SQLite).
//!
//! An area (contests, clarifications, rejudgings, sessions, users…) adds:
//! 1. `<area>.rs` with `pub trait <Area>Store: Send + Sync { … }`, its types and
//!    `impl<E: Engine> <Area>Store for E`, a `mod <area>;` line here and its trait and types in
//!    the facade's `pub use` list (the modules are private: consumers name `ojd_store::X`);
//! 2. its trait to the supertrait list of [`Store`] (`pub trait Store: ContestStore + … `), so
//!    every backend has it and `&dyn Store` reaches its methods (as it does
//!    [`ClusterStore`]'s: heartbeats, packages, events);
//! 3. its tables as ONE new entry at the end of the migration list (`schema.rs`), written once
//!    in PostgreSQL's spelling (SQLite's is derived), or per engine only where they truly
//!    differ — never edit an entry that landed: databases in the field have already run it
//!    (the store tests hold each entry's statements and the schema they build; see
//!    `tests/integration/store/schema.rs` for adding the new entry to them).
//!
//! The core methods (queue, submissions, judgings, tokens) sit on [`Store`] itself, so that
//! existing callers need no import. `tests/integration/store.rs` holds the one suite every
//! backend runs (`store_suite!`): an area adds its cases there. Every method is one short
//! transaction; the trait is synchronous and async callers run it on a blocking thread
//! (`App::db`).
//!
//! # Theory of operation
//!
//! A submission moves `queued → judging → done`. The queue *is* the table: a worker claims the
//! next submission in one transaction ([`Store::claim`]), which bumps the row's `attempts`
//! and opens a **judging** for that attempt; the attempt number is the claim's token.
//! [`Store::finish`] writes the verdict and every per-test row into that judging in one
//! transaction, and only while the submission is still `judging` under that same attempt, so a
//! stale worker (its submission was rejudged, or the daemon restarted meanwhile) can never store
//! a second result. A crash at any moment leaves either the old state or the new one; at start
//! [`Store::requeue_interrupted`] puts every half-judged row back in the queue.
//!
//! **Judgings are history, not a column.** A submission has many judgings: the first one,
//! rejudgings, and attempts abandoned by a crash or a shutdown (never finished). Exactly one
//! finished judging is *current* (`submissions.current_judging`); pages, the API and standings
//! read only that one ([`SubmissionInfo`] and [`SubmissionDetail`] show it). A plain rejudge
//! ([`Store::rejudge`]) makes its new judging current when it finishes. A rejudging under an id
//! ([`Store::enqueue_rejudging`]) writes judgings tagged with that id that do NOT become
//! current (unless the submission had none); applying it flips them all at once
//! ([`Store::make_current`]). [`Store::judgings`] lists the history.
//!
//! Fairness: `fairness.last_claim` remembers, per user, the sequence number of the last claim
//! made for them. The next claim takes the queued submission whose user was served least
//! recently, oldest first, so one user's burst of a hundred submissions interleaves with
//! everybody else's instead of starving them. A submission whose lease expired (its host died)
//! comes before all of them, whoever its user: it was claimed in its turn already, and a dead
//! host's work must not wait behind a queue of any depth.
//!
//! **Counters, not counts.** Nothing a page or the health check asks counts the table:
//! `submission_counts` holds the submissions per (state, current verdict), kept by triggers in
//! the same transaction as every change (insert, claim, finish, requeue, rejudge, a new
//! current judging, delete), whoever makes it. SQLite adds to one row per key (one writer at a
//! time); PostgreSQL appends each statement's changes as rows of their own, so that writers on
//! many hosts never wait on (or deadlock over) a shared row, and folds them every 256 rows.
//! [`Store::counts`], [`Store::count_matching`] without a filter and
//! [`ClusterStore::pending_counts`] sum them. The migration that made them counted the
//! rows already there.
//!
//! Times are Unix milliseconds. Tokens are stored as SHA-256 hashes, never in clear.

#![forbid(unsafe_code)]

mod applying;
mod ccs;
mod cluster;
mod contests;
mod db;
mod gate;
mod history;
mod language_counts;
mod postgres;
mod roster_log;
mod schema;
mod sqlite;
mod submissions;
mod web;

use std::sync::Arc;

use serde::Serialize;

use ojd_judge::{JudgeReport, TestResult, Verdict};

use postgres::PgStore;

// The facade. Everything a consumer names is here, flat: `ojd_store::{Store, ContestStore,
// Clarification}`; the modules behind it are private.

/// A caller's say over the commits of a write it may stop waiting for.
pub use gate::{gated, CommitGate};
/// The engines: [`open`] picks one from the configuration; [`SqliteStore::in_memory`] is the
/// tests' store. The schema's history (append-only) is public for the tests that check it.
pub use postgres::{judge_host_role_sql, RoleNameError, MAX_PAYLOAD};
pub use schema::{migrations, Dialect};
pub use sqlite::SqliteStore;

/// Many hosts: heartbeats, leases, drains, package blobs, live events
/// ([`ClusterStore`]).
pub use cluster::{
    manifest, sha256_hex, Beat, ClusterStore, Collected, EventSink, HostInfo, HostStart, HostStats,
    Package, PackageFile, QUEUED,
};

/// The "after" of an override's history line when the jury's verdict was removed.
pub use contests::REMOVED as OVERRIDE_REMOVED;
/// Contests: clarifications, balloons, the freeze, the audit log, verdict overrides,
/// rejudgings and the standings' input ([`ContestStore`]).
pub use contests::{
    AnswerRecord, AuditEntry, BalloonDone, Clarification, ContestStore, FreezeChange,
    NewClarification, OverrideChange, RejudgeFilter, RejudgingInfo, RejudgingItem, RejudgingState,
    StandingsEntry, VerdictOverride,
};

/// The web's sessions, login codes and token activity ([`WebStore`]).
pub use web::{CodeState, Holder, TokenActivity, TokenRights, WebStore};

/// What the ICPC Contest API reads ([`CcsStore`]).
pub use ccs::{CcsJudging, CcsRun, CcsStore};
pub use history::{
    History, HistoryMore, HistoryStore, Loaded, PastClarification, PastJudging, PastSubmission,
    IMPORTED,
};
/// The Contest API's roster log: what left the roster and when ([`RosterLogStore`]).
pub use roster_log::{RosterChange, RosterLogStore, RosterObject};

/// Where a submission is in its life.
#[derive(Copy, Clone, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum State {
    /// Waiting for a worker to claim it.
    Queued,
    /// Claimed: a worker is judging it now (under a lease).
    Judging,
    /// Its latest judging finished (a rejudge puts it back in the queue).
    Done,
}

impl State {
    pub(crate) fn parse(s: &str) -> State {
        match s {
            "judging" => State::Judging,
            "done" => State::Done,
            _ => State::Queued,
        }
    }

    /// The state's name as the database and the API spell it (`queued`, `judging`, `done`).
    pub fn as_str(self) -> &'static str {
        match self {
            State::Queued => "queued",
            State::Judging => "judging",
            State::Done => "done",
        }
    }
}

/// A submission as it enters the queue.
#[derive(Clone, Debug)]
pub struct NewSubmission {
    /// The user it is submitted as.
    pub user: String,
    /// The problem's id.
    pub problem: String,
    /// The id of the language it is written in.
    pub language: String,
    /// The source as submitted.
    pub source: Vec<u8>,
}

/// What [`Store::insert_once`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Inserted {
    /// The submission's id.
    pub id: i64,
    /// Queued now (`false`: the submission made earlier with the same key).
    pub fresh: bool,
}

/// A submission's row with its current judging's outcome, without source and test results.
#[derive(Clone, Debug, Serialize)]
pub struct SubmissionInfo {
    /// The submission's id.
    pub id: i64,
    /// The user who submitted it.
    pub user: String,
    /// The problem's id.
    pub problem: String,
    /// The id of its language.
    pub language: String,
    /// Where it is in its life.
    pub state: State,
    /// The current judging's verdict; `None` until one finishes.
    pub verdict: Option<Verdict>,
    /// Whole points: the exact score rounded down (kept for the API's older clients).
    pub score: Option<u32>,
    /// The exact score in thousandths of a point (`12500` is 12.5 points).
    pub score_milli: Option<u64>,
    /// The current judging's largest CPU time of a test, in milliseconds.
    pub max_cpu_ms: Option<u64>,
    /// The current judging's largest peak memory of a test, in KiB.
    pub max_memory_kib: Option<u64>,
    /// When it was submitted (Unix ms).
    pub queued_at: i64,
    /// When the judging in flight started (state `judging`), else when the current one did.
    pub started_at: Option<i64>,
    /// When the current judging finished (Unix ms).
    pub finished_at: Option<i64>,
    /// The ojd version that made the current judging.
    pub judge_version: Option<String>,
    /// How many times a worker claimed it (more than one after a restart or a rejudge).
    pub attempts: u32,
    /// How many judgings finished for it (one, unless it was rejudged).
    pub judged: u32,
    /// The source's length in bytes.
    pub source_bytes: u64,
    /// The current judging (`None` until the first one finishes).
    pub judging: Option<i64>,
    /// The host that made the current judging.
    pub judged_by: Option<String>,
}

/// A submission with everything stored about its current judging.
#[derive(Clone, Debug)]
pub struct SubmissionDetail {
    /// The row and its current judging's outcome.
    pub info: SubmissionInfo,
    /// The source as submitted.
    pub source: Vec<u8>,
    /// The compiler's (capped) output in the current judging.
    pub compile_output: String,
    /// The judge's own note: why a JudgeError happened (for admins and the log, not students).
    pub message: String,
    /// Isolation warnings of the host that judged it (empty with full isolation).
    pub warnings: Vec<String>,
    /// Every test's result in the current judging, in test order.
    pub tests: Vec<TestResult>,
    /// Tests that earned part of their credit: the test's name → thousandths of its credit
    /// (the report's [`JudgeReport::partial`]).
    pub partial: std::collections::BTreeMap<String, u32>,
}

/// One judging of a submission (finished, in flight, or abandoned).
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct JudgingInfo {
    /// The judging's id.
    pub id: i64,
    /// The submission it judged.
    pub submission: i64,
    /// The claim that made it (the submission's `attempts` at that moment).
    pub attempt: u32,
    /// The rejudging it belongs to (`None` for first judgings and plain rejudges).
    pub rejudging: Option<i64>,
    /// The host (or worker name) that judged it.
    pub judged_by: String,
    /// The problem package version it was judged against, when known.
    pub package_version: Option<String>,
    /// The ojd version of the host that made it.
    pub judge_version: Option<String>,
    /// When it was claimed (Unix ms).
    pub started_at: i64,
    /// `None` while in flight, and forever for a judging abandoned by a crash or shutdown.
    pub finished_at: Option<i64>,
    /// Its verdict; `None` while in flight or if abandoned.
    pub verdict: Option<Verdict>,
    /// Whole points (the exact score rounded down).
    pub score: Option<u32>,
    /// The exact score in thousandths of a point.
    pub score_milli: Option<u64>,
    /// The largest CPU time of a test, in milliseconds.
    pub max_cpu_ms: Option<u64>,
    /// The largest wall-clock time of a test, in milliseconds.
    pub max_wall_ms: Option<u64>,
    /// The largest peak memory of a test, in KiB.
    pub max_memory_kib: Option<u64>,
    /// Whether pages, the API and standings show this one.
    pub current: bool,
}

/// A judging with its outputs and per-test results.
#[derive(Clone, Debug)]
pub struct JudgingDetail {
    /// The judging's row.
    pub info: JudgingInfo,
    /// The compiler's (capped) output.
    pub compile_output: String,
    /// The judge's own note on a JudgeError (for admins and the log, not students).
    pub message: String,
    /// Isolation warnings of the host that judged it.
    pub warnings: Vec<String>,
    /// Every test's result, in test order.
    pub tests: Vec<TestResult>,
    /// Tests that earned part of their credit, as in [`SubmissionDetail::partial`].
    pub partial: std::collections::BTreeMap<String, u32>,
}

/// A claimed submission: what a worker needs to judge it.
#[derive(Clone, Debug)]
pub struct Claim {
    /// The submission's id.
    pub id: i64,
    /// The claim's token: the submission's `attempts` after this claim. A result is stored only
    /// while the submission is still `judging` under this attempt, so a stale worker's late result
    /// is dropped.
    pub attempt: u32,
    /// The judging this claim opened.
    pub judging: i64,
    /// The rejudging the result belongs to (it then does not become current by itself).
    pub rejudging: Option<i64>,
    /// The problem's package version current at the claim (recorded on the judging), when the
    /// problem was published.
    pub package_version: Option<String>,
    /// The user who submitted it.
    pub user: String,
    /// The problem's id.
    pub problem: String,
    /// The id of its language.
    pub language: String,
    /// The source as submitted.
    pub source: Vec<u8>,
    /// Whether this claim took the submission over from a host whose lease ran out (it died,
    /// or lost the database), rather than from the queue.
    pub expired_lease: bool,
    /// Whether the host whose lease ran out was still alive when this claim took it over: it
    /// went on beating after its last renewal of this lease, so the judging ended under a live
    /// host (counted in `crashes`). False for a claim from the queue, and for a holder whose
    /// heartbeat stopped too (it died or was stopped: counted in `host_deaths`).
    pub holder_alive: bool,
    /// How many judgings of this submission ended while their host lived on (a lease its
    /// live host stopped renewing, this one included) since it was queued or last rejudged:
    /// at [`POISON_CRASHES`] it is a poison pill, set aside as a judge error.
    pub crashes: u32,
    /// How many judgings of this submission ended with their host (its heartbeat stopped
    /// too, this one included; a restart of the host that found it half-judged) since it was
    /// queued or last rejudged: at [`POISON_HOST_DEATHS`] it is a poison pill too.
    pub host_deaths: u32,
}

impl Claim {
    /// Whether this submission is a poison pill, to set aside unjudged: its judgings ended
    /// their judge under a live host [`POISON_CRASHES`] times, or ended with their host
    /// [`POISON_HOST_DEATHS`] times.
    pub fn is_poison(&self) -> bool {
        self.crashes >= POISON_CRASHES || self.host_deaths >= POISON_HOST_DEATHS
    }
}

/// Judgings ended under a live host after which a submission is set aside as a judge error
/// instead of being judged again (see [`Claim::crashes`]): the host lived on, so the judging
/// itself failed, and a second time is the submission's doing, not chance.
pub const POISON_CRASHES: u32 = 2;

/// Judgings ended with their host (killed, stopped past its lease, crashed, powered off) after
/// which a submission is set aside (see [`Claim::host_deaths`]). A host's death is most often
/// the host's own: two in a row under one submission happen in a fault run (one killed, the
/// next stopped) and are not the submission's fault, so that submission is judged by a third
/// host. A submission that takes down every host that judges it still stops at the third,
/// rather than crashing hosts in a loop.
pub const POISON_HOST_DEATHS: u32 = 3;

/// Which submissions to list, newest first. Every field is applied in SQL by the backend, so a
/// page of a rare verdict costs one query, not a scan in the web layer.
#[derive(Clone, Debug, Default)]
pub struct ListFilter {
    /// Only this user's submissions.
    pub user: Option<String>,
    /// Only submissions to this problem.
    pub problem: Option<String>,
    /// Only submissions whose *current* judging has this verdict (a submission being rejudged
    /// keeps the verdict of its current judging; one never judged has none and never matches).
    pub verdict: Option<Verdict>,
    /// Only submissions in this language (its configured name, e.g. `cpp`).
    pub language: Option<String>,
    /// Only submissions made through this contest (linked to it in `contest_submissions`;
    /// the jury's included).
    pub contest: Option<String>,
    /// Only submissions not done yet: queued or being judged (the queue page).
    pub pending: bool,
    /// Only ids below this one (paging).
    pub before: Option<i64>,
    /// At most this many rows.
    pub limit: u32,
}

/// One page of a submissions list ([`Store::list_page`]).
#[derive(Clone, Debug, Default, Serialize)]
pub struct SubmissionPage {
    /// At most `limit` rows, newest first.
    pub rows: Vec<SubmissionInfo>,
    /// Whether older rows match the filter too (the next page starts `before` the last row).
    pub has_more: bool,
}

/// Counts for the metrics endpoint.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Counts {
    /// Submissions waiting in the queue.
    pub queued: u64,
    /// Submissions being judged now.
    pub judging: u64,
    /// Submissions whose latest judging finished.
    pub done: u64,
    /// The finished submissions by their current verdict (verdicts with none are left out).
    pub by_verdict: Vec<(Verdict, u64)>,
}

impl Counts {
    /// Adds one row of the stores' `GROUP BY state, verdict` count.
    pub(crate) fn add(&mut self, state: &str, verdict: Option<&str>, n: u64) {
        match State::parse(state) {
            State::Queued => self.queued += n,
            State::Judging => self.judging += n,
            State::Done => {
                self.done += n;
                if let Some(v) = verdict.and_then(Verdict::from_code) {
                    self.by_verdict.push((v, n));
                }
            }
        }
    }
}

/// An issued token (its hash) and whom it names.
#[derive(Clone, Debug, Serialize)]
pub struct TokenInfo {
    /// The user the token authenticates.
    pub name: String,
    /// Whether it carries admin rights.
    pub admin: bool,
    /// When it was issued (Unix ms).
    pub created_at: i64,
}

/// A database driver's error, whichever the backend.
pub(crate) type DbError = Box<dyn std::error::Error + Send + Sync>;

/// A failure of the database; what a store's caller decides by is the variant (retry on
/// [`StoreError::Unreachable`], report a [`StoreError::Conflict`]).
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    /// A statement failed.
    #[error("database error while trying to {what}")]
    Sql {
        /// What it was doing, for the message.
        what: &'static str,
        /// The driver's error.
        #[source]
        source: DbError,
    },
    /// The database could not be opened (a bad path, a refused connection, a failed migration).
    #[error("failed to open the database {path}")]
    Open {
        /// The database: the SQLite path, or the PostgreSQL address without its password.
        path: String,
        /// The driver's error.
        #[source]
        source: DbError,
    },
    /// The database's schema is newer than this ojd knows: a newer ojd migrated it.
    #[error(
        "the database {path} has schema version {found}, newer than this ojd ({}) knows ({known}): a newer ojd migrated it; upgrade ojd on this host to that version (older nodes cannot work with the newer schema)",
        env!("CARGO_PKG_VERSION")
    )]
    TooNew {
        /// The database: the SQLite path, or the PostgreSQL address without its password.
        path: String,
        /// The schema version found in the database.
        found: i64,
        /// The newest schema version this ojd knows.
        known: i64,
    },
    /// The database does not answer (stopped, restarting, cut off): the caller should try
    /// again shortly (the web layer answers 503 with `Retry-After`).
    #[error("the database ({path}) does not answer")]
    Unreachable {
        /// The database: the SQLite path, or the PostgreSQL address without its password.
        path: String,
        /// The driver's error.
        #[source]
        source: DbError,
    },
    /// A request the data does not allow (e.g. making an unfinished judging current).
    #[error("{0}")]
    Conflict(String),
    /// The caller stopped waiting before the transaction committed: it was rolled back.
    #[error("the caller stopped waiting: nothing was stored")]
    GaveUp,
}

impl StoreError {
    /// Whether the database could not be reached (rather than refusing a statement): a
    /// connection that could not be made, or one that broke under a statement.
    pub fn is_unreachable(&self) -> bool {
        match self {
            StoreError::Unreachable { .. } => true,
            StoreError::Sql { source, .. } => {
                source.downcast_ref::<::postgres::Error>().is_some_and(|e| {
                    let io = std::error::Error::source(e).is_some_and(|s| s.is::<std::io::Error>());
                    // 57P01-57P03: the server shuts down, or cannot take connections yet.
                    let going = e.code().is_some_and(|c| c.code().starts_with("57P"));
                    e.is_closed() || io || going
                })
            }
            _ => false,
        }
    }
}

impl StoreError {
    /// Whether PostgreSQL's row security refused the statement (a judge-host role writing
    /// what is not its own; see `postgres::judge_host_role_sql`).
    pub(crate) fn is_row_security(&self) -> bool {
        let StoreError::Sql { source, .. } = self else {
            return false;
        };
        source
            .downcast_ref::<::postgres::Error>()
            .and_then(|e| e.as_db_error())
            .is_some_and(|d| d.message().contains("row-level security"))
    }
}

/// Refuses a database whose schema version `found` is newer than the `known` migrations (a
/// newer ojd migrated it); both engines check this before migrating.
pub(crate) fn refuse_newer(path: &str, found: i64, known: i64) -> Result<(), StoreError> {
    if found > known {
        return Err(StoreError::TooNew {
            path: path.to_string(),
            found,
            known,
        });
    }
    Ok(())
}

/// Maps a driver error to [`StoreError::Sql`], naming what was being done.
pub(crate) fn sql<E>(what: &'static str) -> impl FnOnce(E) -> StoreError
where
    E: std::error::Error + Send + Sync + 'static,
{
    move |source| StoreError::Sql {
        what,
        source: Box::new(source),
    }
}

/// The daemon's storage. Every method is one short transaction; callers in async code run them
/// on a blocking thread. Areas add their methods as supertraits (see the module docs).
pub trait Store:
    ClusterStore + ContestStore + WebStore + CcsStore + HistoryStore + RosterLogStore + Send + Sync
{
    /// Queues a submission and returns its id.
    fn insert(&self, new: &NewSubmission, now: i64) -> Result<i64, StoreError>;
    /// Queues a submission as [`Store::insert`] (through a contest, `(contest, jury)`, as
    /// [`ContestStore::insert_in_contest_as`]), at most once per `(user, key)`: a `key` already
    /// used by the user gives back that submission (`fresh: false`) and queues nothing, or
    /// [`StoreError::Conflict`] when that one differs in problem, language or source. `keep` is
    /// asked last, inside the transaction: `false` (the caller stopped waiting) rolls it all
    /// back and the result is [`StoreError::GaveUp`].
    fn insert_once(
        &self,
        new: &NewSubmission,
        contest: Option<(&str, bool)>,
        key: Option<&str>,
        now: i64,
        keep: &(dyn Fn() -> bool + Sync),
    ) -> Result<Inserted, StoreError>;
    /// Takes the next submission to judge (fair between users) for the judge host `host`,
    /// opening a judging for it (started at `now`, the host's clock) and leasing it for
    /// `lease_ms` milliseconds of the database's clock; `None` when the queue is empty. A
    /// submission whose lease expired by the database's clock (its host died) is claimable
    /// again; a host's own clock never decides that.
    fn claim(&self, host: &str, now: i64, lease_ms: i64) -> Result<Option<Claim>, StoreError>;
    /// [`Store::claim`] of a submission in none of `skip_languages`: those a host cannot judge
    /// (its toolchain is missing or failed) stay for another host, or for this one once it can.
    fn claim_except(
        &self,
        host: &str,
        now: i64,
        lease_ms: i64,
        skip_languages: &[String],
    ) -> Result<Option<Claim>, StoreError>;
    /// Stores a verdict into the claim's judging, exactly once: `false` when the claim is stale
    /// and nothing was written.
    fn finish(
        &self,
        id: i64,
        attempt: u32,
        report: &JudgeReport,
        message: &str,
        now: i64,
    ) -> Result<bool, StoreError>;
    /// Puts a claimed submission back in the queue (shutdown, cancellation); its judging stays
    /// in the history, unfinished.
    fn requeue(&self, id: i64, attempt: u32) -> Result<bool, StoreError>;
    /// At start: every submission left `judging` by a previous run of `host` (`None`: of any
    /// host, for a single-host database) goes back to the queue.
    fn requeue_interrupted(&self, host: Option<&str>) -> Result<u64, StoreError>;
    /// At an orderly stop: every submission still `judging` under `host` (a judging that did
    /// not stop when cancelled) goes back to the queue, not counted as its host's death,
    /// since nothing died. Returns how many.
    fn requeue_at_stop(&self, host: &str) -> Result<u64, StoreError>;
    /// The submission with its current judging.
    fn get(&self, id: i64) -> Result<Option<SubmissionDetail>, StoreError>;
    /// The submission's row with its current judging's outcome, without source and test results.
    fn info(&self, id: i64) -> Result<Option<SubmissionInfo>, StoreError>;
    /// The submissions matching `filter`, newest first, at most `filter.limit`.
    fn list(&self, filter: &ListFilter) -> Result<Vec<SubmissionInfo>, StoreError>;
    /// How many submissions match `filter` in all (`before` and `limit` are ignored). With no
    /// user, problem, verdict or language (every submission, or every pending one) it reads
    /// the store's counters, not the table.
    fn count_matching(&self, filter: &ListFilter) -> Result<u64, StoreError>;
    /// One page of `filter`: its rows and whether there are more (one query: it reads one row
    /// past the page).
    fn list_page(&self, filter: &ListFilter) -> Result<SubmissionPage, StoreError> {
        let mut probe = filter.clone();
        probe.limit = filter.limit.saturating_add(1);
        let mut rows = self.list(&probe)?;
        let has_more = rows.len() > filter.limit as usize;
        rows.truncate(filter.limit as usize);
        Ok(SubmissionPage { rows, has_more })
    }
    /// Queues a submission again; its next judging becomes current when it finishes. `false`
    /// if there is no such submission.
    fn rejudge(&self, id: i64) -> Result<bool, StoreError>;
    /// Queues every submission of a problem again; returns how many.
    fn rejudge_problem(&self, problem: &str) -> Result<u64, StoreError>;
    /// Queues submissions again under the rejudging `rejudging`: their new judgings carry that
    /// id and do not become current until [`Store::make_current`] (except for a submission
    /// that has no current judging yet). Returns how many were queued.
    fn enqueue_rejudging(&self, submissions: &[i64], rejudging: i64) -> Result<u64, StoreError>;
    /// Makes every listed judging the current one of its submission, all or none. Each must
    /// exist and be finished, else [`StoreError::Conflict`] and nothing changes.
    fn make_current(&self, judgings: &[i64]) -> Result<u64, StoreError>;
    /// Every judging of a submission, oldest first.
    fn judgings(&self, submission: i64) -> Result<Vec<JudgingInfo>, StoreError>;
    /// One judging with its outputs and test results.
    fn judging(&self, id: i64) -> Result<Option<JudgingDetail>, StoreError>;
    /// The submissions by state, and the finished ones by verdict: read from counters the store
    /// keeps in the same transaction as every change (triggers of both engines), so it costs
    /// the same at a million submissions.
    fn counts(&self) -> Result<Counts, StoreError>;
    /// Stores an issued token by the hash of its value, for `name`, with or without admin rights.
    fn add_token(&self, hash: &str, name: &str, admin: bool, now: i64) -> Result<(), StoreError>;
    /// Removes every token issued to `name`; returns how many.
    fn revoke_tokens(&self, name: &str) -> Result<u64, StoreError>;
    /// The token whose value hashes to `hash`, if it is issued and not revoked.
    fn find_token(&self, hash: &str) -> Result<Option<TokenInfo>, StoreError>;
    /// Every issued token, for the admin's listing.
    fn tokens(&self) -> Result<Vec<TokenInfo>, StoreError>;
}

pub use ojd_config::is_postgres_url;

/// Opens the store `database` names: a `postgres://`/`postgresql://` URL selects PostgreSQL,
/// anything else is the path of a SQLite file (created if missing). Migrations run.
pub fn open(database: &str) -> Result<Arc<dyn Store>, StoreError> {
    if is_postgres_url(database) {
        return Ok(Arc::new(PgStore::open(database)?));
    }
    Ok(Arc::new(SqliteStore::open(std::path::Path::new(database))?))
}

/// `ojd doctor`: connects to the configured database (running its migrations, as `serve` would)
/// and makes one round trip; says what it reached. A SQLite file that does not exist yet is not
/// created (the first `ojd serve` creates it).
pub fn check(database: &str) -> Result<String, StoreError> {
    let postgres = is_postgres_url(database);
    if !postgres && !std::path::Path::new(database).exists() {
        return Ok(format!(
            "SQLite {database} does not exist yet (ojd serve creates it)"
        ));
    }
    open(database)?.ping()?;
    Ok(match postgres {
        true => format!("PostgreSQL {} answers", redact_url(database)),
        false => format!("SQLite {database} opens"),
    })
}

/// A database URL without its password, for messages and logs.
pub fn redact_url(url: &str) -> String {
    let Some((scheme, rest)) = url.split_once("://") else {
        return url.to_string();
    };
    let (auth, host) = match rest.rsplit_once('@') {
        Some((auth, host)) => (Some(auth), host),
        None => (None, rest),
    };
    match auth {
        Some(auth) => {
            let user = auth.split(':').next().unwrap_or("");
            format!("{scheme}://{user}@{host}")
        }
        None => url.to_string(),
    }
}

/// Milliseconds since the Unix epoch.
pub fn now_ms() -> i64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_millis() as i64)
        .unwrap_or(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn urls_pick_the_backend_and_hide_passwords() {
        assert!(is_postgres_url("postgres://u@h/db"));
        assert!(is_postgres_url("postgresql://u@h/db"));
        assert!(!is_postgres_url("ojd.sqlite3"));
        assert_eq!(
            redact_url("postgres://ojd:secret@127.0.0.1:5432/ojd"),
            "postgres://ojd@127.0.0.1:5432/ojd"
        );
        assert_eq!(redact_url("postgres://h/db"), "postgres://h/db");
    }

    #[test]
    fn check_says_what_it_reached_without_creating_a_sqlite_file() {
        let dir = std::env::temp_dir().join(format!("ojd-store-check-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let file = dir.join("ojd.sqlite3");
        let name = file.display().to_string();
        assert_eq!(
            check(&name).unwrap(),
            format!("SQLite {name} does not exist yet (ojd serve creates it)")
        );
        assert!(!file.exists(), "check created {name}");
        drop(SqliteStore::open(&file).unwrap());
        assert_eq!(check(&name).unwrap(), format!("SQLite {name} opens"));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
