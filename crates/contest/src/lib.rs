//! ojd's contests, their domain in a crate of its own (no store calls, no HTTP): `contest.toml`
//! read and checked (the types at the crate's root: [`Contest`], [`load_all`]…), standings
//! computed from judged submissions ([`standings`]), the contest's clock ([`clock`]), the verdict
//! diff of a rejudging ([`rejudging`]), awards ([`awards`]), the balloon queue ([`balloons`]), the
//! editor's draft ([`edit`]), what finalizing warns of ([`finalize`]), the freeze's one rule
//! ([`freeze`]) and rosters of teams ([`roster`]).
//!
//! The service reads the current judgings from the store, turns them into
//! [`standings::Attempt`]s and asks these functions; so a rejudging, an unfreeze or a reload
//! changes the standings consistently, whichever page or API shows them. `ojd-service`
//! re-exports this crate as `ojd_service::contest`.

#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod awards;
pub mod balloons;
pub mod clock;
pub mod edit;
pub mod finalize;
pub mod freeze;
mod model;
pub mod place;
pub mod rejudging;
pub mod roster;
pub mod standings;

/// The contest's model: `contest.toml` read and checked.
pub use model::{
    format_time, load_all, parse_start, Category, Contest, ContestError, ContestProblem, Feedback,
    Participants, Phase, Scoring, Team,
};
