//! The one refusal of a change that a finalized contest no longer takes ([`refuse_if_final`]),
//! shared by the controls, the teams, the editor and the results (a module of its own, so that
//! none of them imports another for it).

use crate::error::AppError;
use ojd_service::contest::{format_time, Contest};

/// The error for a change that a finalized contest no longer takes.
pub(crate) fn refuse_if_final(c: &Contest, what: &str) -> Result<(), AppError> {
    match c.finalized_ms {
        Some(at) => Err(AppError::Conflict(format!(
            "contest {:?} was finalized at {}: its results are final, {what} is refused",
            c.id,
            format_time(at, c.utc_offset_s)
        ))),
        None => Ok(()),
    }
}
