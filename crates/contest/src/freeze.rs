//! A contest's freeze as every page and the API show it: the one rule over the contest's
//! freeze time and the last freeze or unfreeze an admin stored ([`freeze_state`]).

use serde::Serialize;

use crate::Contest;
use ojd_store::FreezeChange;

/// A contest's freeze as every page and the API show it.
#[derive(Clone, Debug, Serialize)]
pub struct FreezeState {
    /// When the standings freeze (`None`: the contest has no freeze).
    pub freeze_ms: Option<i64>,
    /// Whether students see the standings hidden after `freeze_ms` now.
    pub frozen: bool,
    /// Whether an admin unfroze them (after the freeze time).
    pub unfrozen: bool,
    /// The last change an admin made, when and by whom.
    pub changed_at: Option<i64>,
    /// Who made the last change (an admin's name).
    pub changed_by: Option<String>,
    /// An unfreeze a director scheduled, still to come (Unix ms): until then nothing changes.
    pub unfreeze_at: Option<i64>,
}

/// The one rule: frozen from the freeze time on, unless the last change, made after the
/// freeze time, unfroze it. A change stored with a time still to come is a scheduled unfreeze
/// (DOMjudge's "unfreeze time"): it counts from that time on, on every page, the Contest API
/// and its feed alike, with no one there to press a button.
pub fn freeze_state(c: &Contest, change: Option<&FreezeChange>, now: i64) -> FreezeState {
    let freeze_ms = c.freeze_ms();
    let unfrozen = match (freeze_ms, change) {
        (Some(f), Some(ch)) => ch.unfrozen && ch.changed_at >= f && ch.changed_at <= now,
        _ => false,
    };
    let unfreeze_at = change
        .filter(|ch| freeze_ms.is_some() && ch.unfrozen && ch.changed_at > now)
        .map(|ch| ch.changed_at);
    FreezeState {
        freeze_ms,
        frozen: freeze_ms.is_some_and(|f| now >= f) && !unfrozen,
        unfrozen,
        changed_at: change.map(|ch| ch.changed_at),
        changed_by: change.and_then(|ch| ch.changed_by.clone()),
        unfreeze_at,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Participants, Scoring};
    use std::time::Duration;

    fn contest(freeze: Option<u64>) -> Contest {
        Contest {
            id: "c".into(),
            dir: std::path::PathBuf::new(),
            title: "c".into(),
            start_ms: 0,
            utc_offset_s: 0,
            duration: Duration::from_secs(7200),
            freeze: freeze.map(Duration::from_secs),
            scoring: Scoring::Icpc,
            penalty_minutes: 20,
            compile_errors_count: false,
            problems: Vec::new(),
            participants: Participants::Anyone,
            public_standings: true,
            teams: Vec::new(),
            awards: Default::default(),
            finalized_ms: None,
            feedback: Default::default(),
        }
    }

    fn change(unfrozen: bool, at: i64) -> FreezeChange {
        FreezeChange {
            unfrozen,
            changed_at: at,
            changed_by: Some("admin".into()),
        }
    }

    #[test]
    fn an_unfreeze_counts_only_after_the_freeze_time() {
        let c = contest(Some(3600)); // freezes at 3_600_000
        let f = 3_600_000;
        let s = freeze_state(&c, None, f - 1);
        assert!(!s.frozen && !s.unfrozen);
        assert!(freeze_state(&c, None, f).frozen);
        // An unfreeze stored before the freeze time (as an old daemon allowed) is no unfreeze.
        let early = change(true, f - 60_000);
        let s = freeze_state(&c, Some(&early), f + 1);
        assert!(s.frozen && !s.unfrozen, "{s:?}");
        let late = change(true, f + 60_000);
        let s = freeze_state(&c, Some(&late), f + 120_000);
        assert!(!s.frozen && s.unfrozen, "{s:?}");
        assert_eq!(s.changed_by.as_deref(), Some("admin"));
        let again = change(false, f + 180_000);
        assert!(freeze_state(&c, Some(&again), f + 200_000).frozen);
        // A scheduled unfreeze: frozen until its time, unfrozen from it on.
        let scheduled = change(true, f + 600_000);
        let s = freeze_state(&c, Some(&scheduled), f + 599_999);
        assert!(
            s.frozen && !s.unfrozen && s.unfreeze_at == Some(f + 600_000),
            "{s:?}"
        );
        let s = freeze_state(&c, Some(&scheduled), f + 600_000);
        assert!(!s.frozen && s.unfrozen && s.unfreeze_at.is_none(), "{s:?}");
        let none = contest(None);
        assert!(!freeze_state(&none, Some(&late), f * 10).frozen);
    }
}
