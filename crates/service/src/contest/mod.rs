//! Contests: `contests/<id>/contest.toml` ([`model`]), standings computed from judged
//! submissions ([`standings`]) and the verdict diff of a rejudging ([`rejudging`]).
//!
//! Everything here is pure: no store, no HTTP. The daemon reads the current judgings from the
//! store, turns them into [`standings::Attempt`]s and asks these functions; so a rejudging, an
//! unfreeze or a reload changes the standings consistently, whichever page or API shows them.

pub mod awards;
pub mod clock;
pub mod edit;
pub mod model;
pub mod rejudging;
pub mod roster;
pub mod standings;

pub use model::{load_all, Contest, ContestError, ContestProblem, Participants, Phase, Scoring};
