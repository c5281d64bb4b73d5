//! The two releases of the Contest API ojd speaks, each under its own base URL: **2023-06**
//! under `/api/` (what the ICPC tools read before 2026) and **2026-01** under `/api/2026-01/`
//! (their default now). A client picks one by its base URL; both serve the same contest from
//! the same events, each in its release's shapes ([`adapt`]):
//!
//! - `penalty_time` (contest) and the scoreboard's `total_time` and `time`s: integer minutes
//!   in 2023-06, RELTIME in 2026-01;
//! - a clarification's recipients: `to_team_id` in 2023-06, `to_team_ids` and `to_group_ids`
//!   in 2026-01;
//! - judgements say whether they are their submission's `current` one (2026-01 only: a
//!   rejudging's applied judgement is current, the one before it is updated to not current);
//! - organizations' `country_subdivision` (ISO 3166-2), problems' `memory_limit`,
//!   `output_limit` and `code_limit`, and submissions' `account_id` are 2026-01's only.
//!
//! `simplified_judgement_type_id` is never set: ojd shows every reader the same judgement types
//! (the standard says it must not be set then).

use serde_json::{json, Value};

use super::time::rel_time;

/// A release of the Contest API.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Version {
    V2023,
    V2026,
}

impl Version {
    pub(crate) fn name(self) -> &'static str {
        match self {
            Version::V2023 => "2023-06",
            Version::V2026 => "2026-01",
        }
    }

    /// The path its endpoints are under (`/api` + `/contests/...`).
    pub(crate) fn base(self) -> &'static str {
        match self {
            Version::V2023 => "/api",
            Version::V2026 => "/api/2026-01",
        }
    }

    pub(crate) fn info(self) -> Value {
        json!({
            "version": self.name(),
            "version_url": format!("https://ccs-specs.icpc.io/{}/contest_api", self.name()),
            "provider": {"name": "ojd", "version": env!("CARGO_PKG_VERSION")},
        })
    }
}

/// A problem's limits, 2026-01's own.
const LIMITS: [&str; 3] = ["memory_limit", "output_limit", "code_limit"];

/// Whole minutes as a RELTIME (`1:20:00`).
fn minutes(v: &Value) -> Value {
    match v.as_i64() {
        Some(m) => json!(rel_time(m * 60_000)),
        None => v.clone(),
    }
}

/// An object of type `ty` as the events are built (2023-06's shapes, with `current` on
/// judgements and `country_subdivision` on organizations) in `v`'s shape. A deleted object
/// (null) stays null.
pub(crate) fn adapt(v: Version, ty: &str, mut o: Value) -> Value {
    let Some(m) = o.as_object_mut() else {
        return o;
    };
    match (v, ty) {
        (Version::V2023, "organizations") => {
            m.remove("country_subdivision");
        }
        (Version::V2023, "judgements") => {
            m.remove("current");
        }
        (Version::V2023, "problems") => {
            for k in LIMITS {
                m.remove(k);
            }
        }
        (Version::V2023, "submissions") => {
            m.remove("account_id");
        }
        (Version::V2026, "contest") => {
            if let Some(p) = m.get("penalty_time").map(minutes) {
                m.insert("penalty_time".into(), p);
            }
        }
        // An announcement to several teams or to groups carries its lists (`model`), which
        // 2023-06 cannot say: there `to_team_id` names one of them (the reader's own team).
        (Version::V2023, "clarifications") => {
            m.remove("to_team_ids");
            m.remove("to_group_ids");
        }
        (Version::V2026, "clarifications") => {
            let to = m.remove("to_team_id").unwrap_or(Value::Null);
            let to = if to.is_null() { to } else { json!([to]) };
            if m.get("to_team_ids").is_none_or(Value::is_null) {
                m.insert("to_team_ids".into(), to);
            }
            m.entry("to_group_ids").or_insert(Value::Null);
        }
        _ => {}
    }
    o
}

/// The scoreboard (2023-06's shape) in `v`'s: 2026-01's times are RELTIMEs.
pub(crate) fn adapt_scoreboard(v: Version, mut sb: Value) -> Value {
    if v == Version::V2023 {
        return sb;
    }
    if let Some(rows) = sb["rows"].as_array_mut() {
        for r in rows {
            for k in ["total_time", "time"] {
                if let Some(t) = r["score"].get(k).map(minutes) {
                    r["score"][k] = t;
                }
            }
            // Nothing solved: `time` is null. 2026-01's schema accepts it only given as null
            // (its "left out" branch and its "null" branch both match a row without it).
            if r["score"].get("time").is_none() {
                r["score"]["time"] = Value::Null;
            }
            if let Some(ps) = r["problems"].as_array_mut() {
                for p in ps {
                    if let Some(t) = p.get("time").map(minutes) {
                        p["time"] = t;
                    }
                }
            }
        }
    }
    sb
}

/// The properties of `ty` that are `v`'s own, added to what `/access` lists for 2023-06, and
/// those it renamed away.
pub(crate) fn access_changes(
    v: Version,
    ty: &str,
) -> (&'static [&'static str], &'static [&'static str]) {
    match (v, ty) {
        (Version::V2026, "judgements") => (&["current"], &[]),
        (Version::V2026, "problems") => (&LIMITS, &[]),
        (Version::V2026, "submissions") => (&["account_id"], &[]),
        (Version::V2026, "clarifications") => (&["to_team_ids", "to_group_ids"], &["to_team_id"]),
        (Version::V2023, "organizations") => (&[], &["country_subdivision"]),
        _ => (&[], &[]),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_2026_shapes_are_reltimes_and_recipient_lists() {
        let c = adapt(Version::V2026, "contest", json!({"penalty_time": 20}));
        assert_eq!(c["penalty_time"], "0:20:00.000");
        let q = adapt(
            Version::V2026,
            "clarifications",
            json!({"id": "1", "to_team_id": "alice"}),
        );
        assert_eq!(
            q,
            json!({"id": "1", "to_team_ids": ["alice"], "to_group_ids": null})
        );
        let all = adapt(
            Version::V2026,
            "clarifications",
            json!({"id": "2", "to_team_id": null}),
        );
        assert_eq!(
            all,
            json!({"id": "2", "to_team_ids": null, "to_group_ids": null})
        );
        let sb = adapt_scoreboard(
            Version::V2026,
            json!({"rows": [{"score": {"num_solved": 1, "total_time": 83, "time": 63},
                             "problems": [{"time": 63}, {"solved": false}]},
                            {"score": {"num_solved": 0, "total_time": 0}, "problems": []}]}),
        );
        assert_eq!(sb["rows"][0]["score"]["total_time"], "1:23:00.000");
        assert_eq!(sb["rows"][0]["score"]["time"], "1:03:00.000");
        assert_eq!(sb["rows"][0]["problems"][0]["time"], "1:03:00.000");
        assert!(sb["rows"][0]["problems"][1].get("time").is_none());
        assert_eq!(
            sb["rows"][1]["score"],
            json!({"num_solved": 0, "total_time": "0:00:00.000", "time": null})
        );
    }

    #[test]
    fn the_2023_shapes_leave_out_what_2026_added() {
        let j = adapt(
            Version::V2023,
            "judgements",
            json!({"id": "1", "current": true}),
        );
        assert_eq!(j, json!({"id": "1"}));
        let o = adapt(
            Version::V2023,
            "organizations",
            json!({"id": "o", "country_subdivision": "NL-NH"}),
        );
        assert_eq!(o, json!({"id": "o"}));
        let p = adapt(
            Version::V2023,
            "problems",
            json!({"id": "p", "memory_limit": 256, "output_limit": 8, "code_limit": 256}),
        );
        assert_eq!(p, json!({"id": "p"}));
        let s = adapt(
            Version::V2023,
            "submissions",
            json!({"id": "1", "account_id": "alice"}),
        );
        assert_eq!(s, json!({"id": "1"}));
        let s = adapt(
            Version::V2026,
            "submissions",
            json!({"id": "1", "account_id": "alice"}),
        );
        assert_eq!(s["account_id"], "alice");
        assert_eq!(
            adapt(Version::V2023, "judgements", Value::Null),
            Value::Null
        );
    }
}
