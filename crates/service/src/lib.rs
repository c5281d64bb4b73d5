//! ojd's judging service: what `ojd serve` and `ojd worker` share, with no HTTP.
//!
//! The facade, flat: a judging node ([`Node`]: store, judge, problems, heartbeat, and the
//! `start_*` functions that run its parts), its workers that claim and judge submissions
//! ([`spawn_workers`], [`drain`]), the [`Hub`] of their live progress ([`Live`] events), the
//! problems a node serves ([`Catalog`]), problem packages as content-addressed blobs for
//! judge hosts ([`Cache`]) and `ojd worker`, a judge host ([`start_worker`]). A submission's
//! life is the service's: [`Node::submit`] inserts it, and it is read back only as one
//! [`Viewer`] may see it ([`Node::seen`], [`Node::seen_rows`]), through the one visibility
//! [`Policy`]. Two namespaces stay
//! modules of their own: [`contest`] (contests' model, standings, clock, rejudgings, awards,
//! rosters) and [`logging`] (the daemon's log lines). The web layer (`ojd-web`) wraps a
//! [`Node`]; nothing here depends on it.

#![forbid(unsafe_code)]

mod accounts;
mod blobs;
mod boards;
mod catalog;
pub mod ccs;
mod clock;
mod contests;
mod events;
mod hosts;
pub mod logging;
mod node;
mod once;
pub mod package;
mod queue;
mod rejudgings;
mod standings;
mod submissions;
mod viewer;
mod worker;
mod write_gate;
mod writes;

/// Contests' domain (the `ojd-contest` crate): model, standings, clock, rejudging diffs,
/// awards, rosters.
pub use ojd_contest as contest;

/// Accounts: sessions, login codes and tokens, each checked against its user's current
/// record; revocation.
pub use accounts::{
    hash_secret, issue_code, issue_token, new_secret, valid_name, Account, AccountError, Accounts,
    Redeemed,
};
pub use ojd_store::TokenActivity;

/// A judging node and what runs it.
pub use node::{
    answering_within, check_identity, collect, lock_database, start_heartbeat, start_judge,
    start_listener, Counters, DbError, IdentityError, Node, Role, ServerError, LEASE,
};

/// The write gate: every write but a submission first asks whether the database answers.
pub use write_gate::{writing_within, WRITE_WAIT};
pub use writes::WRITE_PROBE_WAIT;

/// The node's workers: they claim submissions from the store and judge them.
pub use queue::{drain, spawn_workers, Workers};

/// A submission's life: inserted, and read back only as one viewer may see it.
pub use submissions::{NewEntry, Refusal, Seen, SeenPage, SeenRow, Submitted, SUBMIT_WAIT};

/// The visibility policy, its one copy: what one viewer may see of a problem or a submission.
pub use viewer::{apply_feedback, clarifications_seen, redact, Policy, Sight, Viewer};

/// `ojd worker`: a judge host, no HTTP.
pub use worker::{start_worker, WorkerHost};

/// Idempotency keys of the writes whose rows keep none (the Contest API's clarifications).
pub use once::{Begun, Once, OnceError, Ticket};

/// Live progress of the submissions being judged.
pub use events::{Hub, Live, Progress};

/// The problems a node serves.
pub use catalog::{
    load_problem, needs_generation, render_statement, Catalog, Entry, Failure, ProblemError,
    StatementRenderer,
};
/// The service's wall clock: the system's, or a test's (`OJD_TEST_CLOCK`).
pub use clock::{now_ms, TEST_CLOCK_VAR};
/// The cluster for its operator: hosts and their drain, collecting, the metrics' counts, a
/// submission's history.
pub use hosts::{Census, History, QueueState};
/// The store a node is made over ([`Node::with_store`]): the tests' in-memory stores.
pub use ojd_store::Store;
pub use ojd_store::VerdictOverride;
/// The store's rows and errors as the operations above return them (the web names them from
/// here, never from `ojd-store`).
pub use ojd_store::{
    Collected, Counts, HostInfo, JudgingDetail, JudgingInfo, OverrideChange, RejudgeFilter,
    RejudgingInfo, RejudgingItem, RejudgingState, StoreError, OVERRIDE_REMOVED,
};
pub use ojd_store::{ListFilter, State as SubmissionState, SubmissionInfo, SubmissionPage};
/// Rejudgings: start one, read it with every judging it compares, apply or cancel it.
pub use rejudgings::{Created, Rejudgeable, RejudgingRecord, RejudgingRefused};

/// Contests' operations over the store: the standings' input, the freeze, balloons,
/// clarifications, the jury's verdicts, the audit log; and the rows they return.
pub use contests::{AskLimit, NewQuestion, Overridden};
pub use ojd_store::{
    AnswerRecord, AuditEntry, BalloonDone, Clarification, FreezeChange, StandingsEntry,
};
/// A rejudging's moves in a contest's standings ([`Node::rejudging_effects`]).
pub use standings::ContestEffect;

/// Problem packages as content-addressed blobs, cached by judge hosts.
pub use blobs::{package_files, BlobError, Cache};
