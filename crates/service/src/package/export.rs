//! What `ojd contest export` writes of a contest from its files alone ([`documents`]), and the
//! documents only the running daemon can state ([`LIVE`]: what its store holds, fetched from
//! its Contest API as an admin, so that the package says exactly what the API said).

use std::path::Path;

use serde_json::{json, Value};

use super::{reltime, PackageError};
use crate::ccs::{directory, Extra};
use crate::contest::clock::rfc3339;
use crate::contest::{Contest, Scoring};

/// The files of a package that the daemon's store makes, each with the path under the
/// contest's Contest API URL that serves it (as an admin: nothing hidden).
pub const LIVE: &[(&str, &str)] = &[
    ("judgement-types.json", "judgement-types"),
    ("languages.json", "languages"),
    ("submissions.json", "submissions"),
    ("judgements.json", "judgements"),
    ("runs.json", "runs"),
    ("clarifications.json", "clarifications"),
    ("awards.json", "awards"),
    ("scoreboard.json", "scoreboard"),
    ("state.json", "state"),
    ("event-feed.ndjson", "event-feed?stream=false"),
];

/// A contest's package documents that its files state.
#[derive(Debug, Clone, PartialEq)]
pub struct Documents {
    /// `contest.json`: the standard's contest object.
    pub contest: Value,
    /// `problems.json`, in the contest's order, with colours.
    pub problems: Vec<Value>,
    /// `teams.json`, `organizations.json`, `groups.json`, `accounts.json`: the roster.
    pub teams: Value,
    /// `organizations.json`: one object per affiliation of the roster.
    pub organizations: Value,
    /// `groups.json`: the roster's groups.
    pub groups: Value,
    /// `accounts.json`: the roster's accounts, never with a password (ojd keeps only hashes).
    pub accounts: Value,
    /// `ojd.json`: the contest's settings the standard has no key for (whether a compile
    /// error is a rejected try, public standings, the feedback policy, the medals), so that
    /// an import gives back the same contest.
    pub settings: Value,
}

/// The documents of contest `c` (its problems are read from `problems_dir`).
pub fn documents(c: &Contest, problems_dir: &Path) -> Result<Documents, PackageError> {
    let mut contest = json!({
        "id": c.id,
        "name": c.title,
        "formal_name": c.title,
        "start_time": rfc3339(c.start_ms, c.utc_offset_s),
        "duration": reltime(c.duration.as_secs()),
        "scoreboard_type": match c.scoring { Scoring::Icpc => "pass-fail", Scoring::Ioi => "score" },
        "penalty_time": c.penalty_minutes,
    });
    if let Some(f) = c.freeze {
        contest["scoreboard_freeze_duration"] = json!(reltime(f.as_secs()));
    }
    let extra = Extra::load(c);
    let mut problems = Vec::new();
    for (i, p) in c.problems.iter().enumerate() {
        let loaded = ojd_judge::Problem::load(&problems_dir.join(&p.problem))
            .map_err(|e| PackageError::Bad(format!("problem {}: does not load: {e}", p.problem)))?;
        let mut v = json!({
            "id": p.problem,
            "label": p.label,
            "name": loaded.title,
            "ordinal": i + 1,
            "time_limit": loaded.time_limit.as_millis() as f64 / 1000.0,
            "test_data_count": loaded.tests.len(),
        });
        // The colour the contest gives (contest.toml, the web's form); an imported package's
        // own spelling of it (ccs.json) is kept as it came.
        if let Some(rgb) = &p.color {
            v["rgb"] = json!(rgb);
        }
        if let Some(Value::Object(colour)) = extra.problems.get(&p.problem) {
            for k in ["rgb", "color"] {
                if let Some(x) = colour.get(k) {
                    v[k] = x.clone();
                }
            }
        }
        problems.push(v);
    }
    let roster = directory(c);
    let settings = json!({
        "compile_errors_count": c.compile_errors_count,
        "public_standings": c.public_standings,
        "feedback": c.feedback.name(),
        "medals": {"gold": c.awards.gold, "silver": c.awards.silver, "bronze": c.awards.bronze},
        "open": c.participants == crate::contest::Participants::Anyone,
    });
    Ok(Documents {
        contest,
        problems,
        teams: serde_json::to_value(&roster.teams).expect("a roster serializes"),
        organizations: Value::Array(roster.organizations),
        groups: Value::Array(roster.groups),
        accounts: Value::Array(roster.accounts),
        settings,
    })
}
