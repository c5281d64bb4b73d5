//! Contests: `contests/<id>/contest.toml` (the types at this module's root: [`Contest`],
//! [`load_all`]…), standings computed from judged submissions ([`standings`]), the contest's
//! clock ([`clock`]), the verdict diff of a rejudging ([`rejudging`]), awards ([`awards`]), the
//! editor's draft ([`edit`]), what finalizing warns of ([`finalize`]) and rosters of teams ([`roster`]).
//!
//! Everything here is pure: no store, no HTTP. The daemon reads the current judgings from the
//! store, turns them into [`standings::Attempt`]s and asks these functions; so a rejudging, an
//! unfreeze or a reload changes the standings consistently, whichever page or API shows them.

pub mod awards;
pub mod clock;
pub mod edit;
pub mod finalize;
mod model;
pub mod rejudging;
pub mod roster;
pub mod standings;

/// The contest's model: `contest.toml` read and checked.
pub use model::{
    format_time, load_all, parse_start, Category, Contest, ContestError, ContestProblem, Feedback,
    Participants, Phase, Scoring, Team,
};
