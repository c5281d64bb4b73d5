//! The ICPC Contest API (CLICS 2023-06) of a live contest on the real daemon, on SQLite and
//! on PostgreSQL (two serve nodes there): a contest with three teams, a submission of every
//! verdict ojd gives (AC, WA, TLE, RTE, MLE, OLE, CE), a question answered privately, an
//! announcement, a freeze (by a reload, as an admin freezes early) and a thaw.
//!
//! - Every endpoint, for the public, a team and an admin, and every event-feed line are checked
//!   against the standard's object definitions, written here from the text of
//!   `Contest_API.md` (the repository of the standard has no licence, so its JSON schemas are
//!   not copied): each property's type (ID, TIME, RELTIME, FILE…, nullability), the required
//!   ones, and no property the standard does not define or `/access` does not list (strict).
//! - The feed resumed from a token in the middle gives exactly the rest; a bad token is a 400.
//! - The public feed during the freeze leaks nothing: each of its events is field by field an
//!   admin event's object (less the files), and no judgement, run or question made after the
//!   freeze or of another team is in it.
//! - The shadowing check: a scoreboard rebuilt from the feed alone (as the ICPC tools build
//!   theirs) equals `/scoreboard`, for the public (frozen) and the admin, and after the thaw
//!   the public's resumed feed brings the hidden judgements and its scoreboard is the admin's.

use std::collections::{BTreeMap, HashMap};
use std::io::{BufRead, BufReader, Read};
use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::common::wait_until;
use crate::contests::rfc3339;
use crate::daemon::{Daemon, Site, ADMIN, ALICE, BOB, JUDGED_WITHIN};

const CAROL: &str = "carol-token";

// ---- the standard's objects, from Contest_API.md (2023-06) ----

/// A property: its name, its type as the standard writes it (`ID`, `string ?`, `array of
/// FILE ?`…), and whether it must be present.
type Prop = (&'static str, &'static str, bool);

fn props(ty: &str) -> &'static [Prop] {
    match ty {
        "api" => &[
            ("version", "string", true),
            ("version_url", "string", true),
            ("provider", "provider ?", false),
        ],
        "contest" => &[
            ("id", "ID", true),
            ("name", "string", true),
            ("formal_name", "string", false),
            ("start_time", "TIME ?", false),
            ("countdown_pause_time", "POSRELTIME ?", false),
            ("duration", "POSRELTIME", true),
            ("scoreboard_freeze_duration", "POSRELTIME ?", false),
            ("scoreboard_thaw_time", "TIME ?", false),
            ("scoreboard_type", "scoreboard type", true),
            // Required iff the scoreboard type is pass-fail, absent otherwise (checked below).
            ("penalty_time", "count", false),
            ("banner", "array of FILE ?", false),
            ("logo", "array of FILE ?", false),
            ("location", "LOCATION ?", false),
        ],
        "judgement-types" => &[
            ("id", "ID", true),
            ("name", "string", true),
            ("penalty", "boolean", true),
            ("solved", "boolean", true),
        ],
        "languages" => &[
            ("id", "ID", true),
            ("name", "string", true),
            ("entry_point_required", "boolean", true),
            ("entry_point_name", "string ?", false),
            ("extensions", "array of string", true),
            ("compiler", "command", false),
            ("runner", "command", false),
        ],
        "problems" => &[
            ("id", "ID", true),
            ("uuid", "UUID ?", false),
            ("label", "string", true),
            ("name", "string", true),
            ("ordinal", "integer", true),
            // Not nullable in the 2023-06 schema (a missing colour is left out).
            ("rgb", "RGB", false),
            ("color", "string", false),
            ("time_limit", "SECONDS", true),
            ("test_data_count", "count", true),
            ("max_score", "number", false),
            ("package", "array of FILE ?", false),
            ("statement", "array of FILE ?", false),
        ],
        "groups" => &[
            ("id", "ID", true),
            ("icpc_id", "string ?", false),
            ("name", "string", true),
            ("type", "string ?", false),
            ("location", "LOCATION ?", false),
        ],
        "organizations" => &[
            ("id", "ID", true),
            ("icpc_id", "string ?", false),
            ("name", "string", true),
            ("formal_name", "string ?", false),
            ("country", "COUNTRY ?", false),
            ("country_flag", "array of FILE ?", false),
            ("url", "string ?", false),
            ("twitter_hashtag", "string ?", false),
            ("twitter_account", "string ?", false),
            ("location", "LOCATION ?", false),
            ("logo", "array of FILE ?", false),
        ],
        "teams" => &[
            ("id", "ID", true),
            ("icpc_id", "string ?", false),
            ("name", "string", true),
            ("label", "string", true),
            ("display_name", "string ?", false),
            ("organization_id", "ID ?", false),
            // Required iff the groups endpoint is available (it is).
            ("group_ids", "array of ID ?", true),
            ("hidden", "boolean ?", false),
            ("location", "team location ?", false),
            ("photo", "array of FILE ?", false),
            ("video", "array of FILE ?", false),
            ("backup", "array of FILE ?", false),
            ("key_log", "array of FILE ?", false),
            ("tool_data", "array of FILE ?", false),
            ("desktop", "array of FILE ?", false),
            ("webcam", "array of FILE ?", false),
            ("audio", "array of FILE ?", false),
        ],
        "accounts" => &[
            ("id", "ID", true),
            ("username", "string", true),
            ("password", "string ?", false),
            ("name", "string", false),
            ("type", "account type", true),
            ("ip", "string ?", false),
            ("team_id", "ID ?", false),
            ("person_id", "ID ?", false),
        ],
        "state" => &[
            ("started", "TIME ?", true),
            ("frozen", "TIME ?", false),
            ("ended", "TIME ?", true),
            ("thawed", "TIME ?", false),
            ("finalized", "TIME ?", true),
            ("end_of_updates", "TIME ?", true),
        ],
        "submissions" => &[
            ("id", "ID", true),
            ("language_id", "ID", true),
            ("problem_id", "ID", true),
            ("team_id", "ID", true),
            ("time", "TIME", true),
            ("contest_time", "RELTIME", true),
            ("entry_point", "string ?", false),
            // Required, unless `/access` does not show it to this client.
            ("files", "array of FILE", true),
            ("reaction", "array of FILE ?", false),
        ],
        "judgements" => &[
            ("id", "ID", true),
            ("submission_id", "ID", true),
            ("judgement_type_id", "judgement type ?", false),
            ("score", "points", false),
            ("start_time", "TIME", true),
            ("start_contest_time", "RELTIME", true),
            ("end_time", "TIME ?", false),
            ("end_contest_time", "RELTIME ?", false),
            ("max_run_time", "SECONDS ?", false),
        ],
        "runs" => &[
            ("id", "ID", true),
            ("judgement_id", "ID", true),
            ("ordinal", "integer", true),
            ("judgement_type_id", "judgement type", true),
            ("time", "TIME", true),
            ("contest_time", "RELTIME", true),
            ("run_time", "SECONDS", true),
        ],
        "clarifications" => &[
            ("id", "ID", true),
            ("from_team_id", "ID ?", false),
            ("to_team_id", "ID ?", false),
            ("reply_to_id", "ID ?", false),
            ("problem_id", "ID ?", false),
            ("text", "string", true),
            ("time", "TIME", true),
            ("contest_time", "RELTIME", true),
        ],
        "awards" => &[
            ("id", "ID", true),
            ("citation", "string", true),
            ("team_ids", "array of ID ?", false),
        ],
        "scoreboard" => &[
            ("time", "TIME", true),
            ("contest_time", "RELTIME", true),
            ("state", "state", true),
            ("rows", "array of row", true),
        ],
        "access" => &[
            ("capabilities", "array of string", true),
            ("endpoints", "array of endpoint", true),
        ],
        _ => &[],
    }
}

fn digits(s: &str, n: usize) -> bool {
    s.len() == n && s.bytes().all(|b| b.is_ascii_digit())
}

/// `yyyy-mm-ddThh:mm:ss(.uuu)?[+-]zz(:mm)?` or `Z`.
fn is_time(s: &str) -> bool {
    if s.len() < 20 || !s.is_char_boundary(19) {
        return false;
    }
    let (dt, rest) = s.split_at(19);
    let b = dt.as_bytes();
    let shape = digits(&dt[0..4], 4)
        && b[4] == b'-'
        && digits(&dt[5..7], 2)
        && b[7] == b'-'
        && digits(&dt[8..10], 2)
        && b[10] == b'T'
        && digits(&dt[11..13], 2)
        && b[13] == b':'
        && digits(&dt[14..16], 2)
        && b[16] == b':'
        && digits(&dt[17..19], 2);
    let rest = match rest.strip_prefix('.') {
        Some(r) if r.len() >= 3 && digits(&r[..3], 3) => &r[3..],
        Some(_) => return false,
        None => rest,
    };
    let zone = rest == "Z"
        || ((rest.starts_with('+') || rest.starts_with('-'))
            && (digits(&rest[1..], 2)
                || (rest.len() == 6
                    && digits(&rest[1..3], 2)
                    && &rest[3..4] == ":"
                    && digits(&rest[4..], 2))));
    shape && zone
}

/// `(-)?(h)*h:mm:ss(.uuu)?`
fn is_reltime(s: &str) -> bool {
    let s = s.strip_prefix('-').unwrap_or(s);
    let (main, frac) = match s.split_once('.') {
        Some((m, f)) => (m, Some(f)),
        None => (s, None),
    };
    let parts: Vec<&str> = main.split(':').collect();
    parts.len() == 3
        && !parts[0].is_empty()
        && parts[0].bytes().all(|b| b.is_ascii_digit())
        && digits(parts[1], 2)
        && digits(parts[2], 2)
        && frac.is_none_or(|f| digits(f, 3))
}

/// `[a-zA-Z0-9_.-]`, at most 36, not starting with `-` or `.`, not ending with `.`.
fn is_id(s: &str) -> bool {
    !s.is_empty()
        && s.len() <= 36
        && !s.starts_with(['-', '.'])
        && !s.ends_with('.')
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || "_.-".contains(c))
}

fn check_file(v: &Value, at: &str) {
    let o = v
        .as_object()
        .unwrap_or_else(|| panic!("{at}: a FILE is an object: {v}"));
    for k in o.keys() {
        assert!(
            ["href", "filename", "hash", "mime", "width", "height"].contains(&k.as_str()),
            "{at}: FILE has no property {k:?}"
        );
    }
    assert!(
        o["href"].is_string() && o["filename"].is_string() && o["mime"].is_string(),
        "{at}: {v}"
    );
}

/// Checks `v` against a type as the standard writes it.
fn check_type(v: &Value, ty: &str, at: &str) {
    let (ty, nullable) = match ty.strip_suffix(" ?") {
        Some(t) => (t, true),
        None => (ty, false),
    };
    if v.is_null() {
        assert!(nullable, "{at}: null where {ty} is not nullable");
        return;
    }
    let ok = match ty {
        "string" => v.is_string(),
        "integer" => v.is_i64() || v.is_u64(),
        "number" => v.is_number(),
        "boolean" => v.is_boolean(),
        "ID" => v.as_str().is_some_and(is_id),
        "TIME" => v.as_str().is_some_and(is_time),
        "RELTIME" => v.as_str().is_some_and(is_reltime),
        "POSRELTIME" => v
            .as_str()
            .is_some_and(|s| is_reltime(s) && !s.starts_with('-')),
        // A non-negative number of seconds, an integer multiple of 0.001 (as written).
        "SECONDS" => {
            v.as_f64().is_some_and(|x| x >= 0.0)
                && v.to_string()
                    .split_once('.')
                    .is_none_or(|(_, f)| f.len() <= 3 && f.bytes().all(|b| b.is_ascii_digit()))
        }
        "count" => v.as_u64().is_some(),
        "points" => v.as_f64().is_some_and(|x| x >= 0.0),
        "RGB" => v.as_str().is_some_and(|s| {
            let h = s.strip_prefix('#').unwrap_or("");
            s.starts_with('#')
                && (h.len() == 3 || h.len() == 6)
                && h.bytes().all(|b| b.is_ascii_hexdigit())
        }),
        "COUNTRY" => v
            .as_str()
            .is_some_and(|s| s.len() == 3 && s.bytes().all(|b| b.is_ascii_uppercase())),
        "UUID" => v.as_str().is_some_and(|s| {
            let parts: Vec<&str> = s.split('-').collect();
            parts.iter().map(|p| p.len()).eq([8, 4, 4, 4, 12])
                && parts
                    .iter()
                    .all(|p| p.bytes().all(|b| b.is_ascii_hexdigit()))
        }),
        "scoreboard type" => v == "pass-fail" || v == "score",
        "account type" => v
            .as_str()
            .is_some_and(|s| ["team", "judge", "admin", "analyst", "staff"].contains(&s)),
        // The standard's judgement type ids (its schema's list).
        "judgement type" => v.as_str().is_some_and(|s| {
            [
                "AC", "RE", "WA", "TLE", "RTE", "CE", "APE", "OLE", "PE", "EO", "IO", "NO", "WTL",
                "ILE", "TCO", "TWA", "TPE", "TEO", "TIO", "TNO", "MLE", "SV", "IF", "RCO", "RWA",
                "RPE", "REO", "RIO", "RNO", "CTL", "JE", "SE", "CS",
            ]
            .contains(&s)
        }),
        "command" => {
            let o = v.as_object().expect("a command object");
            for (k, x) in o {
                assert!(
                    ["command", "args", "version", "version_command"].contains(&k.as_str()),
                    "{at}: command has no {k:?}"
                );
                assert!(
                    x.is_string() || (x.is_null() && k != "command"),
                    "{at}.{k}: {x}"
                );
            }
            o["command"].as_str().is_some_and(|c| !c.is_empty())
        }
        "provider" => v["name"].is_string(),
        "state" => {
            check_object("state", v, None, at);
            true
        }
        "array of row" => {
            for (i, r) in v.as_array().expect("rows").iter().enumerate() {
                check_row(r, &format!("{at}[{i}]"));
            }
            true
        }
        "array of endpoint" => v.as_array().is_some_and(|a| {
            a.iter().all(|e| {
                e["type"].is_string()
                    && e["properties"]
                        .as_array()
                        .is_some_and(|p| !p.is_empty() && p.iter().all(Value::is_string))
                    && e.as_object().is_some_and(|o| o.len() == 2)
            })
        }),
        t if t.starts_with("array of ") => {
            let inner = &t["array of ".len()..];
            let a = v
                .as_array()
                .unwrap_or_else(|| panic!("{at}: not an array: {v}"));
            for (i, x) in a.iter().enumerate() {
                if inner == "FILE" {
                    check_file(x, &format!("{at}[{i}]"));
                } else {
                    check_type(x, inner, &format!("{at}[{i}]"));
                }
            }
            true
        }
        other => panic!("{at}: the checker does not know type {other}"),
    };
    assert!(ok, "{at}: {v} is not a {ty}");
}

/// A scoreboard row and its problem data (both scoreboard types' properties).
fn check_row(r: &Value, at: &str) {
    let o = r.as_object().expect("row object");
    for k in o.keys() {
        assert!(
            ["rank", "team_id", "score", "problems"].contains(&k.as_str()),
            "{at}: {k}"
        );
    }
    assert!(r["rank"].as_u64().is_some_and(|k| k >= 1), "{at}: rank {r}");
    check_type(&r["team_id"], "ID", at);
    for (k, x) in r["score"].as_object().expect("score") {
        let ty = match k.as_str() {
            "num_solved" | "total_time" | "time" => "count",
            "score" => "number",
            _ => panic!("{at}.score: no property {k}"),
        };
        check_type(x, ty, &format!("{at}.score.{k}"));
    }
    // Either pass-fail's num_solved and total_time, or score's score.
    let o = r["score"].as_object().expect("score");
    assert!(
        (o.contains_key("num_solved") && o.contains_key("total_time")) != o.contains_key("score"),
        "{at}: {r}"
    );
    // Null iff nothing counts yet: no problem solved (pass-fail), or no score (score). The
    // 2023-06 schema has it an integer, so "null" is "left out".
    let nothing = match r["score"]["num_solved"].as_u64() {
        Some(solved) => solved == 0,
        None => r["score"]["score"].as_f64() == Some(0.0),
    };
    assert_eq!(
        r["score"].get("time").is_none(),
        nothing,
        "{at}: score.time is there iff something is solved or scored: {r}"
    );
    for (i, p) in r["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .enumerate()
    {
        for (k, x) in p.as_object().expect("problem data") {
            let ty = match k.as_str() {
                "problem_id" => "ID",
                "num_judged" | "num_pending" | "time" => "count",
                "solved" => "boolean",
                "score" => "points",
                _ => panic!("{at}.problems[{i}]: no property {k}"),
            };
            check_type(x, ty, &format!("{at}.problems[{i}].{k}"));
        }
        assert_eq!(
            p.get("time").is_some(),
            p["solved"] == true || p["score"].as_f64().is_some_and(|s| s > 0.0),
            "{at}.problems[{i}]: time iff solved or scored: {p}"
        );
    }
}

/// Checks one object of `ty`: every property known and typed, the required ones present
/// (those `/access` lists, when it is given), nothing `/access` does not list.
fn check_object(ty: &str, v: &Value, access: Option<&HashMap<String, Vec<String>>>, at: &str) {
    let o = v
        .as_object()
        .unwrap_or_else(|| panic!("{at}: a {ty} is an object: {v}"));
    let known = props(ty);
    assert!(!known.is_empty(), "{at}: no definition for {ty}");
    let listed = access.and_then(|a| a.get(ty));
    for (k, x) in o {
        let (_, t, _) = known
            .iter()
            .find(|(n, _, _)| n == k)
            .unwrap_or_else(|| panic!("{at}: {ty} has no property {k:?} in the standard"));
        if let Some(l) = listed {
            assert!(
                l.contains(k),
                "{at}: {k:?} of {ty} is not listed by /access: {l:?}"
            );
        }
        check_type(x, t, &format!("{at}.{k}"));
    }
    rules(ty, o, at);
    for (k, _, required) in known {
        let shown = listed.is_none_or(|l| l.iter().any(|p| p == k));
        if *required && shown {
            assert!(
                o.contains_key(*k),
                "{at}: {ty} lacks its required {k:?}: {v}"
            );
        }
    }
}

/// What the standard (and its schema) says about a type's properties together.
fn rules(ty: &str, o: &serde_json::Map<String, Value>, at: &str) {
    let set = |k: &str| o.get(k).is_some_and(|x| !x.is_null());
    match ty {
        "contest" => assert_eq!(
            o.contains_key("penalty_time"),
            o["scoreboard_type"] == "pass-fail",
            "{at}: penalty_time is there iff the scoreboard type is pass-fail"
        ),
        "judgements" => {
            let done =
                ["judgement_type_id", "end_time", "end_contest_time"].map(|k| o.contains_key(k));
            assert!(
                done.iter().all(|d| *d) || done.iter().all(|d| !*d),
                "{at}: judgement_type_id, end_time and end_contest_time are there together"
            );
        }
        "languages" => assert_eq!(
            o.contains_key("entry_point_name"),
            o["entry_point_required"] == true,
            "{at}: entry_point_name is there iff an entry point is required"
        ),
        "accounts" if o["type"] == "team" => {
            assert!(set("team_id"), "{at}: a team's account names its team")
        }
        "clarifications" => assert!(
            !(set("from_team_id") && set("to_team_id")),
            "{at}: not both from_team_id and to_team_id"
        ),
        "submissions" => match o["language_id"].as_str() {
            Some("java") => assert!(o.contains_key("entry_point"), "{at}: Java's entry point"),
            Some("c" | "cpp") => assert!(!set("entry_point"), "{at}: C has no entry point"),
            _ => {}
        },
        "access" => {
            for e in o["endpoints"].as_array().expect("endpoints") {
                let t = e["type"].as_str().unwrap_or("");
                assert!(
                    ["contest", "state", "scoreboard", "event-feed"].contains(&t)
                        || COLLECTIONS.contains(&t)
                        || ["persons", "commentary"].contains(&t),
                    "{at}: {t:?} is not an endpoint type of the standard"
                );
                for p in e["properties"].as_array().expect("properties") {
                    let p = p.as_str().unwrap_or("");
                    assert!(
                        p.split('.')
                            .all(|w| w.starts_with(|c: char| c.is_ascii_lowercase())
                                && w.bytes().all(|b| b.is_ascii_lowercase()
                                    || b.is_ascii_digit()
                                    || b == b'_')),
                        "{at}: {t} property {p:?}"
                    );
                }
            }
        }
        _ => {}
    }
}

/// Not an endpoint: who reads, in the map of `/access` (a team id, `admin` or `public`).
const VIEWER: &str = "(viewer)";

fn access_of(d: &Daemon, token: Option<&str>) -> HashMap<String, Vec<String>> {
    access_in(d, "wf", token)
}

/// What `/access` of contest `cid` lists for `token`, with the viewer.
pub(crate) fn access_in(
    d: &Daemon,
    cid: &str,
    token: Option<&str>,
) -> HashMap<String, Vec<String>> {
    let (code, a) = d.get(&format!("/api/contests/{cid}/access"), token);
    assert_eq!(code, 200, "{a}");
    check_object("access", &a, None, "access");
    let viewer = match token {
        None => "public",
        Some(ADMIN) => "admin",
        Some(ALICE) => "alice",
        Some(BOB) => "bob",
        Some(_) => "carol",
    };
    let mut map: HashMap<String, Vec<String>> = a["endpoints"]
        .as_array()
        .expect("endpoints")
        .iter()
        .map(|e| {
            (
                e["type"].as_str().unwrap_or("").to_string(),
                e["properties"]
                    .as_array()
                    .expect("properties")
                    .iter()
                    .map(|p| p.as_str().unwrap_or("").to_string())
                    .collect(),
            )
        })
        .collect();
    map.insert(VIEWER.into(), vec![viewer.into()]);
    map
}

const COLLECTIONS: [&str; 12] = [
    "judgement-types",
    "languages",
    "problems",
    "groups",
    "organizations",
    "teams",
    "accounts",
    "submissions",
    "judgements",
    "runs",
    "clarifications",
    "awards",
];

/// Every endpoint as `token` sees it, each object checked; returns the collections.
fn check_endpoints(d: &Daemon, token: Option<&str>) -> BTreeMap<String, Vec<Value>> {
    check_endpoints_in(d, "wf", token)
}

/// [`check_endpoints`] of contest `cid`.
pub(crate) fn check_endpoints_in(
    d: &Daemon,
    cid: &str,
    token: Option<&str>,
) -> BTreeMap<String, Vec<Value>> {
    let who = token.unwrap_or("public");
    let access = access_in(d, cid, token);
    let (code, info) = d.get("/api/", token);
    assert_eq!(code, 200);
    check_object("api", &info, None, "/api/");
    assert_eq!(info["version"], "2023-06");
    let (code, list) = d.get("/api/contests", token);
    assert_eq!(code, 200);
    for c in list.as_array().expect("contests") {
        let own = access_in(d, c["id"].as_str().expect("an id"), token);
        check_object("contest", c, Some(&own), "/api/contests[]");
    }
    let (code, c) = d.get(&format!("/api/contests/{cid}"), token);
    assert_eq!(code, 200, "{c}");
    check_object("contest", &c, Some(&access), "contest");
    let (code, s) = d.get(&format!("/api/contests/{cid}/state"), token);
    assert_eq!(code, 200);
    check_object("state", &s, Some(&access), "state");
    let (code, sb) = d.get(&format!("/api/contests/{cid}/scoreboard"), token);
    assert_eq!(code, 200, "{sb}");
    check_object("scoreboard", &sb, None, "scoreboard");
    let mut out = BTreeMap::new();
    for coll in COLLECTIONS {
        let (code, all) = d.get(&format!("/api/contests/{cid}/{coll}"), token);
        if coll == "accounts" && token.is_none() {
            assert_eq!(code, 401, "accounts are not public: {all}");
            assert!(
                !access.contains_key("accounts"),
                "/access lists no accounts to the public"
            );
            continue;
        }
        assert_eq!(code, 200, "{who} {coll}: {all}");
        let all = all.as_array().expect("an array").clone();
        for (i, o) in all.iter().enumerate() {
            check_object(coll, o, Some(&access), &format!("{who} {coll}[{i}]"));
            let id = o["id"].as_str().expect("an id");
            let (code, one) = d.get(&format!("/api/contests/{cid}/{coll}/{id}"), token);
            assert_eq!(code, 200, "{coll}/{id}");
            assert_eq!(&one, o, "{coll}/{id} is the collection's object");
        }
        let (code, _) = d.get(&format!("/api/contests/{cid}/{coll}/no-such-id"), token);
        assert_eq!(code, 404, "{coll}: an unknown id is a 404");
        out.insert(coll.to_string(), all);
    }
    out
}

// ---- the feed ----

/// Contest `cid`'s whole feed so far, without checks.
pub(crate) fn feed_of(d: &Daemon, cid: &str, token: Option<&str>) -> Vec<Value> {
    let (code, text) = d.get_text(
        &format!("/api/contests/{cid}/event-feed?stream=false"),
        token,
    );
    assert_eq!(code, 200, "{text}");
    text.lines()
        .filter_map(|l| serde_json::from_str(l).ok())
        .collect()
}

fn feed(d: &Daemon, token: Option<&str>, since: Option<&str>) -> Vec<Value> {
    let q = since.map_or(String::new(), |t| format!("&since_token={t}"));
    let (code, text) = d.get_text(
        &format!("/api/contests/wf/event-feed?stream=false{q}"),
        token,
    );
    assert_eq!(code, 200, "{text}");
    text.lines()
        .filter(|l| !l.is_empty())
        .map(|l| {
            serde_json::from_str(l).unwrap_or_else(|e| panic!("a feed line is JSON ({e}): {l}"))
        })
        .collect()
}

/// Every line: `{type, id, data, token}`, the data a valid object of its type whose id is the
/// event's, as `/access` allows.
pub(crate) fn check_feed(events: &[Value], access: &HashMap<String, Vec<String>>) {
    assert!(!events.is_empty());
    for (i, e) in events.iter().enumerate() {
        let o = e.as_object().expect("an event object");
        for k in o.keys() {
            assert!(
                ["type", "id", "data", "token"].contains(&k.as_str()),
                "event {i}: {k}"
            );
        }
        let ty = e["type"].as_str().expect("type");
        assert!(e["token"].is_string(), "event {i} has a token");
        assert!(
            access.contains_key(ty),
            "event {i}: {ty} is not an endpoint /access lists"
        );
        let at = format!("event {i} ({ty})");
        if ty == "contest" || ty == "state" {
            assert!(e["id"].is_null(), "{at}: a singleton's id is null");
        } else {
            check_type(&e["id"], "ID", &at);
        }
        if !e["data"].is_null() {
            check_object(ty, &e["data"], Some(access), &at);
            if ty != "contest" && ty != "state" {
                assert_eq!(e["data"]["id"], e["id"], "{at}");
            }
        }
    }
}

/// The latest value of every object in a feed: (type, id) → data.
fn fold(events: &[Value]) -> BTreeMap<(String, String), Value> {
    let mut out = BTreeMap::new();
    for e in events {
        let key = (
            e["type"].as_str().unwrap_or("").to_string(),
            e["id"].as_str().unwrap_or("").to_string(),
        );
        out.insert(key, e["data"].clone());
    }
    out
}

/// The shadowing check's other half: the scoreboard's rows rebuilt from the events alone, as
/// the ICPC tools do (pass-fail rules from the contest, the judgement types and the
/// submissions' latest judgements).
fn rebuild_rows(events: &[Value]) -> Vec<Value> {
    let mut contest = Value::Null;
    let mut by: HashMap<&str, BTreeMap<String, Value>> = HashMap::new();
    // submission id -> the judgement id its latest event was about
    let mut latest: HashMap<String, String> = HashMap::new();
    for e in events {
        let ty = e["type"].as_str().unwrap_or("");
        if ty == "contest" {
            contest = e["data"].clone();
            continue;
        }
        let id = e["id"].as_str().unwrap_or("").to_string();
        if ty == "judgements" && !e["data"].is_null() {
            let sid = e["data"]["submission_id"]
                .as_str()
                .unwrap_or("")
                .to_string();
            latest.insert(sid, id.clone());
        }
        let m = by.entry(ty_static(ty)).or_default();
        if e["data"].is_null() {
            m.remove(&id);
        } else {
            m.insert(id, e["data"].clone());
        }
    }
    let empty = BTreeMap::new();
    let get = |t: &str| by.get(t).unwrap_or(&empty);
    let penalty_time = contest["penalty_time"].as_u64().unwrap_or(20);
    let duration = reltime_ms(contest["duration"].as_str().unwrap_or("0:00:00"));
    let types = get("judgement-types");
    let mut problems: Vec<&Value> = get("problems").values().collect();
    problems.sort_by_key(|p| p["ordinal"].as_u64());
    let mut subs: Vec<&Value> = get("submissions")
        .values()
        .filter(|s| {
            let t = reltime_ms(s["contest_time"].as_str().unwrap_or(""));
            (0..duration).contains(&t)
        })
        .collect();
    subs.sort_by_key(|s| {
        (
            reltime_ms(s["contest_time"].as_str().unwrap_or("")),
            s["id"].as_str().unwrap_or("").parse::<i64>().unwrap_or(0),
        )
    });
    let mut rows = Vec::new();
    for team in get("teams").values() {
        let tid = team["id"].as_str().unwrap_or("");
        let mut cells = Vec::new();
        let (mut solved, mut total, mut last) = (0u64, 0u64, None::<u64>);
        for p in &problems {
            let pid = p["id"].as_str().unwrap_or("");
            let (mut judged, mut pending, mut tries, mut time) = (0u64, 0u64, 0u64, None::<u64>);
            for s in subs
                .iter()
                .filter(|s| s["team_id"] == tid && s["problem_id"] == pid)
            {
                let sid = s["id"].as_str().unwrap_or("");
                let verdict = latest
                    .get(sid)
                    .and_then(|j| get("judgements").get(j))
                    .and_then(|j| j["judgement_type_id"].as_str());
                let Some(v) = verdict else {
                    pending += 1;
                    continue;
                };
                let jt = &types[v];
                if jt["solved"] == true {
                    judged += 1;
                    time =
                        Some(reltime_ms(s["contest_time"].as_str().unwrap_or("")) as u64 / 60_000);
                    break;
                }
                if jt["penalty"] == true {
                    judged += 1;
                    tries += 1;
                }
            }
            let mut cell = json!({"problem_id": pid, "num_judged": judged, "num_pending": pending, "solved": time.is_some()});
            if let Some(t) = time {
                cell["time"] = json!(t);
                solved += 1;
                total += t + penalty_time * tries;
                last = Some(last.map_or(t, |l| l.max(t)));
            }
            cells.push(cell);
        }
        rows.push((solved, total, last, tid.to_string(), cells));
    }
    rows.sort_by(|a, b| {
        (std::cmp::Reverse(a.0), a.1, a.2.unwrap_or(0), &a.3).cmp(&(
            std::cmp::Reverse(b.0),
            b.1,
            b.2.unwrap_or(0),
            &b.3,
        ))
    });
    let mut out: Vec<Value> = Vec::new();
    let mut prev: Option<(u64, u64, u64, u64)> = None;
    for (i, (solved, total, last, tid, cells)) in rows.into_iter().enumerate() {
        let key = (solved, total, last.unwrap_or(0));
        let rank = match prev {
            Some((s, t, l, r)) if (s, t, l) == key => r,
            _ => i as u64 + 1,
        };
        prev = Some((key.0, key.1, key.2, rank));
        out.push(json!({
            "rank": rank,
            "team_id": tid,
            "score": match last {
                Some(t) => json!({"num_solved": solved, "total_time": total, "time": t}),
                None => json!({"num_solved": solved, "total_time": total}),
            },
            "problems": cells,
        }));
    }
    out
}

fn ty_static(t: &str) -> &'static str {
    COLLECTIONS
        .iter()
        .chain(["state"].iter())
        .find(|c| **c == t)
        .copied()
        .unwrap_or("other")
}

fn reltime_ms(s: &str) -> i64 {
    let (neg, s) = s.strip_prefix('-').map_or((false, s), |r| (true, r));
    let p: Vec<&str> = s.split(':').collect();
    if p.len() != 3 {
        return i64::MIN;
    }
    let secs: f64 = p[2].parse().unwrap_or(0.0);
    let ms = p[0].parse::<i64>().unwrap_or(0) * 3_600_000
        + p[1].parse::<i64>().unwrap_or(0) * 60_000
        + (secs * 1000.0).round() as i64;
    if neg {
        -ms
    } else {
        ms
    }
}

/// The rebuilt rows equal `/scoreboard`'s for `token`.
fn shadow(d: &Daemon, token: Option<&str>) {
    let events = feed(d, token, None);
    let rebuilt = rebuild_rows(&events);
    let (_, sb) = d.get("/api/contests/wf/scoreboard", token);
    assert_eq!(
        json!(rebuilt),
        sb["rows"],
        "the scoreboard rebuilt from the {} feed differs from /scoreboard",
        token.unwrap_or("public")
    );
}

/// Waits until every submission is judged (the daemons' feeds send an event as soon as it
/// exists: `feed_settle = "0s"`).
fn settle(d: &Daemon, ids: &[(i64, &str)]) {
    for (id, token) in ids {
        d.wait_done(*id, token, JUDGED_WITHIN);
    }
}

fn submit_ok(d: &Daemon, token: &str, file: &str, language: &str) -> i64 {
    submit_to(d, "wf", token, file, language)
}

fn submit_to(d: &Daemon, cid: &str, token: &str, file: &str, language: &str) -> i64 {
    let source = std::fs::read_to_string(crate::common::testdata(&format!(
        "aplusb/submissions/{file}"
    )))
    .expect("source");
    let body = json!({"problem": "aplusb", "language": language, "source": source, "contest": cid});
    let (code, r) = d.post_json("/api/v1/submissions", Some(token), &body);
    assert_eq!(code, 201, "{file}: {r}");
    r["id"].as_i64().expect("id")
}

fn write_wf(dir: &std::path::Path, start_ms: i64, freeze: &str) {
    let d = dir.join("wf");
    std::fs::create_dir_all(&d).expect("mkdir");
    std::fs::write(
        d.join("contest.toml"),
        format!(
            "title = \"World Finals rehearsal\"\nstart = \"{}\"\nduration = \"2h\"\nfreeze = \"{freeze}\"\n\
             penalty = 20\nparticipants = [\"alice\", \"bob\", \"carol\"]\n[[problem]]\nid = \"aplusb\"\nlabel = \"A\"\n",
            rfc3339(start_ms)
        ),
    )
    .expect("write contest");
    std::fs::write(
        d.join("ccs.json"),
        r##"{"problems": {"aplusb": {"rgb": "#ff0000", "color": "red"}},
            "organizations": [{"id": "uni", "name": "A University", "country": "NLD"},
                              {"id": "hand", "country": "Netherlands", "url": 7}],
            "groups": [{"id": "students", "name": "Students"}],
            "teams": [{"id": "alice", "display_name": "Team Alice", "organization_id": "uni", "group_ids": ["students"],
                       "seat": "not a property of the standard: left out"}]}"##,
    )
    .expect("write ccs.json");
}

#[test]
fn contest_api_on_sqlite() {
    require_root!();
    contest_api(None);
}

/// The same on PostgreSQL, with a second serve node on the same database that must serve the
/// same feed (it fails under `CI` without PostgreSQL).
#[test]
fn contest_api_on_postgres_with_two_nodes() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    contest_api(Some(&cluster.database()));
}

fn contest_api(database: Option<&str>) {
    let contests = tempfile::tempdir().expect("temp dir");
    let site = Site::with_database(
        database,
        &format!(
            "contests = \"{}\"\nrate_limit_per_minute = 0\nstandings_cache = \"0s\"\nfeed_settle = \"0s\"",
            contests.path().display()
        ),
    );
    let mut config = std::fs::read_to_string(site.path().join("config.toml")).expect("config");
    config.push_str(&format!(
        "[[server.users]]\nname = \"carol\"\ntoken = \"{CAROL}\"\n"
    ));
    std::fs::write(site.path().join("config.toml"), config).expect("config");
    // Started ten minutes ago, two hours long; the freeze is set later (by a reload).
    let start = ojd_store::now_ms() / 1000 * 1000 - 10 * 60_000;
    let end = start + 2 * 3_600_000;
    write_wf(contests.path(), start, "1h");
    // And an IOI contest beside it, over the same problem.
    let ioi = contests.path().join("ioi");
    std::fs::create_dir_all(&ioi).expect("mkdir");
    std::fs::write(
        ioi.join("contest.toml"),
        format!(
            "title = \"IOI day\"\nstart = \"{}\"\nduration = \"2h\"\nscoring = \"ioi\"\n\
             public_standings = false\nparticipants = [\"alice\", \"bob\"]\n[[problem]]\nid = \"aplusb\"\n",
            rfc3339(start)
        ),
    )
    .expect("write contest");
    // And one that has not started, over a copy of the problem: its problems are hidden from
    // all but the admins (everywhere, so not the one the others use).
    let problems = site.path().join("problems");
    let copy = std::process::Command::new("cp")
        .arg("-r")
        .arg(problems.join("aplusb"))
        .arg(problems.join("late"))
        .status()
        .expect("cp");
    assert!(copy.success());
    crate::contests::write_contest(
        contests.path(),
        "soon",
        start + 3 * 3_600_000,
        "1h",
        "",
        "late",
    );
    // Both nodes on one clock, which the test moves past the freeze below.
    let clock = crate::common::TestClock::new();
    let d = clock.start(&site);
    let second = database.map(|_| clock.start(&site));
    for (token, n) in [(None, 0), (Some(BOB), 0), (Some(ADMIN), 1)] {
        let (code, problems) = d.get("/api/contests/soon/problems", token);
        assert_eq!(
            (code, problems.as_array().map(Vec::len)),
            (200, Some(n)),
            "{problems}"
        );
        let (code, _) = d.get("/api/contests/soon/problems/late", token);
        assert_eq!(code, if n == 0 { 404 } else { 200 });
        let feed = feed_of(&d, "soon", token);
        assert_eq!(feed.iter().filter(|e| e["type"] == "problems").count(), n);
        // Before the start too, the feed has the state `/state` answers (nothing started).
        let (_, state) = d.get("/api/contests/soon/state", token);
        let last = feed.iter().rev().find(|e| e["type"] == "state");
        assert_eq!(last.map(|e| &e["data"]), Some(&state), "{feed:?}");
    }
    let (_, state) = d.get("/api/contests/soon/state", None);
    assert_eq!(state["started"], Value::Null, "{state}");

    // Before the freeze: alice WA then AC; bob CE, TLE, RTE; carol asks, the admin answers
    // her privately, and announces.
    let mut ids = vec![
        (
            submit_ok(&d, ALICE, "wrong_answer/wa_second_line.c", "c"),
            ALICE,
        ),
        (submit_ok(&d, ALICE, "accepted/ac.c", "c"), ALICE),
        (
            submit_ok(&d, BOB, "compile_error/missing_semicolon.cpp", "cpp"),
            BOB,
        ),
        (submit_ok(&d, BOB, "time_limit_exceeded/sleep.c", "c"), BOB),
        (submit_ok(&d, BOB, "runtime_error/exit3.c", "c"), BOB),
    ];
    let (code, q) = d.post_json(
        "/api/v1/contests/wf/clarifications",
        Some(CAROL),
        &json!({"problem": "A", "text": "Are the numbers negative?"}),
    );
    assert_eq!(code, 201, "{q}");
    let qid = q["id"].as_i64().expect("id");
    let (code, _) = d.post_json(
        &format!("/api/v1/admin/clarifications/{qid}/answer"),
        Some(ADMIN),
        &json!({"answer": "Read the statement.", "public": false}),
    );
    assert_eq!(code, 200);
    let (code, _) = d.post_json(
        "/api/v1/admin/contests/wf/announcements",
        Some(ADMIN),
        &json!({"text": "Good luck!"}),
    );
    assert_eq!(code, 201);
    settle(&d, &ids);

    // Freeze now: the freeze starts at the next whole second (an admin freezing early).
    let freeze_ms = (clock.now_ms() / 1000 + 1) * 1000;
    write_wf(
        contests.path(),
        start,
        &format!("{}s", (end - freeze_ms) / 1000),
    );
    for node in std::iter::once(&d).chain(second.as_ref()) {
        let (code, _) = node.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
        assert_eq!(code, 200);
    }
    clock.advance_to(freeze_ms + 200);

    // During the freeze: bob MLE, OLE, then AC; carol WA; alice resubmits (after her AC).
    let frozen = [
        (
            submit_ok(&d, BOB, "memory_limit_exceeded/touch_256m.c", "c"),
            BOB,
        ),
        (
            submit_ok(&d, BOB, "output_limit_exceeded/flood.c", "c"),
            BOB,
        ),
        (submit_ok(&d, BOB, "accepted/ac.c", "c"), BOB),
        (
            submit_ok(&d, CAROL, "wrong_answer/wa_second_line.c", "c"),
            CAROL,
        ),
    ];
    ids.extend(frozen);
    settle(&d, &ids);
    let verdicts: Vec<String> = ids
        .iter()
        .map(|(id, t)| {
            d.wait_done(*id, t, JUDGED_WITHIN)["verdict"]
                .as_str()
                .unwrap_or("")
                .to_string()
        })
        .collect();
    assert_eq!(
        verdicts,
        ["WA", "AC", "CE", "TLE", "RE", "MLE", "OLE", "AC", "WA"]
    );

    // Every endpoint for every role, each object against the standard.
    let public = check_endpoints(&d, None);
    let team = check_endpoints(&d, Some(BOB));
    let admin = check_endpoints(&d, Some(ADMIN));
    external_check(&d, "frozen");
    let types: Vec<&str> = admin["judgement-types"]
        .iter()
        .filter_map(|t| t["id"].as_str())
        .collect();
    for t in ["AC", "WA", "TLE", "MLE", "OLE", "RTE", "CE", "JE"] {
        assert!(types.contains(&t), "judgement type {t}");
    }
    let jt = |id: &str| {
        admin["judgement-types"]
            .iter()
            .find(|t| t["id"] == id)
            .cloned()
            .expect("type")
    };
    assert_eq!(
        (
            jt("WA")["penalty"].clone(),
            jt("CE")["penalty"].clone(),
            jt("AC")["solved"].clone()
        ),
        (json!(true), json!(false), json!(true))
    );
    let verdict_of = |coll: &BTreeMap<String, Vec<Value>>, sid: i64| {
        coll["judgements"]
            .iter()
            .rev()
            .find(|j| j["submission_id"].as_str() == Some(sid.to_string().as_str()))
            .map(|j| j["judgement_type_id"].clone())
    };
    let expected = ["WA", "AC", "CE", "TLE", "RTE", "MLE", "OLE", "AC", "WA"];
    for ((sid, _), want) in ids.iter().zip(expected) {
        assert_eq!(
            verdict_of(&admin, *sid),
            Some(json!(want)),
            "admin sees {sid}"
        );
    }
    // The public sees the judgements before the freeze only; bob sees his own frozen ones.
    for (k, (sid, who)) in ids.iter().enumerate() {
        let before = k < 5;
        assert_eq!(
            verdict_of(&public, *sid).is_some(),
            before,
            "public, submission {sid}"
        );
        assert_eq!(
            verdict_of(&team, *sid).is_some(),
            before || *who == BOB,
            "bob, submission {sid}"
        );
    }
    let p = &admin["problems"][0];
    assert_eq!(
        (
            p["label"].clone(),
            p["rgb"].clone(),
            p["time_limit"].clone()
        ),
        (json!("A"), json!("#ff0000"), json!(1.0))
    );
    assert!(p["test_data_count"].as_u64().unwrap_or(0) > 0, "{p}");
    let alice = admin["teams"]
        .iter()
        .find(|t| t["id"] == "alice")
        .expect("alice");
    assert_eq!(
        (
            alice["organization_id"].clone(),
            alice["display_name"].clone()
        ),
        (json!("uni"), json!("Team Alice"))
    );
    assert_eq!(
        team["accounts"].len(),
        1,
        "a team sees its own account only"
    );
    // A hand-written ccs.json's values of the wrong type are left out (the strict checks above
    // reject them), and a missing name is the id.
    let org = |id: &str| {
        admin["organizations"]
            .iter()
            .find(|o| o["id"] == id)
            .cloned()
    };
    assert_eq!(
        (org("uni"), org("hand")),
        (
            Some(json!({"id": "uni", "name": "A University", "country": "NLD"})),
            Some(json!({"id": "hand", "name": "hand"}))
        )
    );
    // Clarifications: carol's question and its private answer are hers; the announcement is
    // everyone's.
    let texts = |coll: &BTreeMap<String, Vec<Value>>| -> Vec<String> {
        coll["clarifications"]
            .iter()
            .map(|c| c["text"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(texts(&public), ["Good luck!"]);
    assert_eq!(texts(&team), ["Good luck!"]);
    assert_eq!(
        texts(&admin),
        [
            "Are the numbers negative?",
            "Read the statement.",
            "Good luck!"
        ]
    );
    let (_, carol_clars) = d.get("/api/contests/wf/clarifications", Some(CAROL));
    let reply = carol_clars
        .as_array()
        .expect("list")
        .iter()
        .find(|c| c["text"] == "Read the statement.")
        .cloned()
        .expect("the reply");
    assert_eq!(
        (reply["to_team_id"].clone(), reply["reply_to_id"].clone()),
        (json!("carol"), json!(qid.to_string()))
    );
    let (_, state) = d.get("/api/contests/wf/state", None);
    assert!(
        state["started"].is_string() && state["frozen"].is_string() && state["thawed"].is_null(),
        "{state}"
    );

    // Filtering on ID properties (an empty value is null).
    let (_, bobs) = d.get("/api/contests/wf/submissions?team_id=bob", Some(ADMIN));
    assert_eq!(bobs.as_array().map(Vec::len), Some(6), "{bobs}");
    let (_, was) = d.get(
        "/api/contests/wf/judgements?judgement_type_id=WA",
        Some(ADMIN),
    );
    assert_eq!(was.as_array().map(Vec::len), Some(2), "{was}");
    let (_, broadcast) = d.get(
        "/api/contests/wf/clarifications?from_team_id=&to_team_id=",
        Some(ADMIN),
    );
    let texts: Vec<&str> = broadcast
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|c| c["text"].as_str())
        .collect();
    assert_eq!(texts, ["Good luck!"]);

    // Errors: an unknown contest, endpoint or object is a 404, a bad token a 400.
    assert_eq!(d.get("/api/contests/nope", None).0, 404);
    assert_eq!(d.get("/api/contests/nope/teams", None).0, 404);
    assert_eq!(d.get("/api/contests/wf/nonsense", None).0, 404);
    for bad in ["garbage", "1.2", "x.y.z"] {
        let (code, _) = d.get_text(
            &format!("/api/contests/wf/event-feed?since_token={bad}"),
            None,
        );
        assert_eq!(code, 400, "since_token={bad}");
        let (code, _) = d.get_text(&format!("/api/contests/wf/event-feed?since_id={bad}"), None);
        assert_eq!(code, 400, "since_id={bad}");
    }

    // Files: the admin and the team download a submission; the public and other teams do not.
    let (bob_sub, _) = ids[3];
    let path = format!("/api/contests/wf/submissions/{bob_sub}/files");
    let zip = ureq::get(&format!("{}{path}", d.url))
        .set("Authorization", &format!("Bearer {ADMIN}"))
        .call()
        .expect("files");
    let mut bytes = Vec::new();
    zip.into_reader().read_to_end(&mut bytes).expect("read zip");
    let mut archive = zip::ZipArchive::new(std::io::Cursor::new(bytes)).expect("a zip");
    let mut source = String::new();
    archive
        .by_index(0)
        .expect("a file")
        .read_to_string(&mut source)
        .expect("text");
    let want = std::fs::read_to_string(crate::common::testdata(
        "aplusb/submissions/time_limit_exceeded/sleep.c",
    ))
    .expect("source");
    assert_eq!(source, want);
    assert_eq!(d.get_text(&path, Some(BOB)).0, 200);
    assert_eq!(d.get_text(&path, Some(ALICE)).0, 404);
    assert_eq!(d.get_text(&path, None).0, 404);
    // `files` is required (the standard's schema): every reader sees where the files are, and
    // only the admin and the team can fetch them.
    assert!(public["submissions"].iter().all(|s| s["files"][0]["href"]
        .as_str()
        .is_some_and(|h| h.ends_with("/files"))));

    // HTTP Basic, as the ICPC tools log in: the user's name and its token as the password.
    let basic = |credentials: &str, path: &str| {
        crate::daemon::response(
            ureq::get(&format!("{}{path}", d.url))
                .set("Authorization", &format!("Basic {credentials}"))
                .call(),
        )
    };
    let (code, me) = basic("Ym9iOmJvYi10b2tlbg==", "/api/contests/wf/account"); // bob:bob-token
    assert_eq!((code, me["team_id"].clone()), (200, json!("bob")), "{me}");
    let (code, _) = basic("Ym9iOmJvYi10b2tlbg==", &path);
    assert_eq!(code, 200, "bob downloads his own files with Basic");
    let (code, _) = basic("YWxpY2U6Ym9iLXRva2Vu", "/api/contests/wf/teams"); // alice:bob-token
    assert_eq!(code, 401, "a token is only its own user's password");
    let (code, _) = basic("not base64!", "/api/contests/wf/teams");
    assert_eq!(code, 401);

    // The feeds: every line against the standard, for each role.
    let admin_feed = feed(&d, Some(ADMIN), None);
    let public_feed = feed(&d, None, None);
    check_feed(&admin_feed, &access_of(&d, Some(ADMIN)));
    check_feed(&public_feed, &access_of(&d, None));
    check_feed(&feed(&d, Some(BOB), None), &access_of(&d, Some(BOB)));
    // The feed folds to the endpoints.
    let folded = fold(&admin_feed);
    for (coll, objects) in &admin {
        if coll == "awards" {
            continue;
        }
        let from_feed: Vec<&Value> = folded
            .iter()
            .filter(|((t, _), v)| t == coll && !v.is_null())
            .map(|(_, v)| v)
            .collect();
        assert_eq!(
            from_feed.len(),
            objects.len(),
            "{coll}: the feed's objects are the endpoint's"
        );
        for o in objects {
            let key = (coll.clone(), o["id"].as_str().unwrap_or("").to_string());
            assert_eq!(folded.get(&key), Some(o), "{coll} {}", o["id"]);
        }
    }

    // Resumed from a token in the middle: exactly the rest.
    for (token, full) in [(Some(ADMIN), &admin_feed), (None, &public_feed)] {
        let mid = full.len() / 2;
        let t = full[mid]["token"].as_str().expect("token");
        let rest = feed(&d, token, Some(t));
        assert_eq!(&rest[..], &full[mid + 1..], "resumed after event {mid}");
        // The older releases' name for it.
        let (_, text) = d.get_text(
            &format!("/api/contests/wf/event-feed?stream=false&since_id={t}"),
            token,
        );
        assert_eq!(text.lines().count(), full.len() - mid - 1);
    }

    // The public feed during the freeze leaks nothing, checked against the admin's feed.
    let frozen_ids: Vec<String> = ids[5..].iter().map(|(i, _)| i.to_string()).collect();
    let admin_objects = fold(&admin_feed);
    let public_judgements: Vec<String> = fold(&public_feed)
        .iter()
        .filter(|((t, _), _)| t == "judgements")
        .map(|(_, v)| v["id"].as_str().unwrap_or("").to_string())
        .collect();
    for e in &public_feed {
        let ty = e["type"].as_str().unwrap_or("");
        let id = e["id"].as_str().unwrap_or("").to_string();
        let data = &e["data"];
        match ty {
            "judgements" => assert!(
                !frozen_ids.contains(&data["submission_id"].as_str().unwrap_or("").to_string()),
                "a frozen judgement leaked: {e}"
            ),
            "runs" => assert!(
                public_judgements
                    .contains(&data["judgement_id"].as_str().unwrap_or("").to_string()),
                "a run of a hidden judgement: {e}"
            ),
            "clarifications" => assert!(
                data["from_team_id"].is_null() && data["to_team_id"].is_null(),
                "a private clarification leaked: {e}"
            ),
            _ => {}
        }
        // Field by field: the same object the admin sees (its latest value, or an earlier one
        // the admin feed also sent), less what the public may not see (files).
        if ty == "contest" || ty == "state" {
            continue;
        }
        let admin_values: Vec<&Value> = admin_feed
            .iter()
            .filter(|a| a["type"] == ty && a["id"] == id.as_str())
            .map(|a| &a["data"])
            .collect();
        assert!(
            !admin_values.is_empty(),
            "the public sees {ty} {id}, the admin does not"
        );
        let fields = data.as_object().expect("object");
        let matches = admin_values.iter().any(|a| {
            fields.iter().all(|(k, v)| &a[k] == v)
                && a.as_object()
                    .is_some_and(|o| o.keys().all(|k| k == "files" || fields.contains_key(k)))
        });
        assert!(
            matches,
            "public {ty} {id} differs from every admin value: {data} vs {admin_values:?}"
        );
        let _ = &admin_objects;
    }
    assert!(public_feed.len() < admin_feed.len());

    // The shadowing check: scoreboards rebuilt from the feeds are /scoreboard's.
    shadow(&d, None);
    shadow(&d, Some(ADMIN));
    let (_, sb) = d.get("/api/contests/wf/scoreboard", None);
    let bob_row = sb["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["team_id"] == "bob")
        .expect("bob");
    assert_eq!(
        bob_row["problems"][0]["num_pending"], 3,
        "bob's frozen tries are pending: {bob_row}"
    );

    // A second node on the same database serves the same feed, token for token.
    if let Some(n2) = &second {
        assert_eq!(
            feed(n2, Some(ADMIN), None),
            admin_feed,
            "the second node's admin feed"
        );
        assert_eq!(
            feed(n2, None, None),
            public_feed,
            "the second node's public feed"
        );
    }

    // The stream: the events so far, then a new one as it happens, keep-alive newlines between.
    let r = ureq::get(&format!(
        "{}/api/contests/wf/event-feed?since_token={}",
        d.url,
        public_feed.last().expect("events")["token"]
            .as_str()
            .expect("token")
    ))
    .timeout(Duration::from_secs(60))
    .call()
    .expect("the feed opens");
    assert_eq!(r.header("Content-Type"), Some("application/x-ndjson"));
    let mut reader = BufReader::new(r.into_reader());
    let late = submit_ok(&d, CAROL, "accepted/ac.c", "c");
    let t = Instant::now();
    let mut saw_keep_alive = false;
    let mut saw_submission = false;
    while !(saw_keep_alive && saw_submission) {
        assert!(
            t.elapsed() < Duration::from_secs(45),
            "the stream sent no keep-alive or no new submission"
        );
        let mut line = String::new();
        reader.read_line(&mut line).expect("a line");
        if line == "\n" {
            saw_keep_alive = true;
            continue;
        }
        let e: Value = serde_json::from_str(&line).expect("an event");
        if e["type"] == "submissions" && e["id"].as_str() == Some(late.to_string().as_str()) {
            saw_submission = true;
        }
    }
    drop(reader);
    ids.push((late, CAROL));
    settle(&d, &ids);

    // The thaw: the public feed resumed from its last frozen token brings the judgements the
    // freeze hid; the public scoreboard is then the admin's.
    let last_frozen = feed(&d, None, None).last().expect("events")["token"]
        .as_str()
        .expect("token")
        .to_string();
    let (code, _) = d.post_json(
        "/api/v1/admin/contests/wf/unfreeze",
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 200);
    let revealed = feed(&d, None, Some(&last_frozen));
    for fid in &frozen_ids {
        assert!(
            revealed.iter().any(|e| e["type"] == "judgements"
                && e["data"]["submission_id"] == fid.as_str()
                && e["data"]["judgement_type_id"].is_string()),
            "the thaw reveals submission {fid}'s judgement to a resumed client"
        );
    }
    assert!(revealed
        .iter()
        .any(|e| e["type"] == "state" && e["data"]["thawed"].is_string()));
    shadow(&d, None);
    shadow(&d, Some(ADMIN));
    let (_, public_sb) = d.get("/api/contests/wf/scoreboard", None);
    let (_, admin_sb) = d.get("/api/contests/wf/scoreboard", Some(ADMIN));
    assert_eq!(public_sb["rows"], admin_sb["rows"]);
    check_endpoints(&d, None);

    // A rejudging (the admin's Rejudge button applies itself): its judgement comes on the feed
    // when it is applied, as the submission's latest, and the scoreboards still agree.
    let before = feed(&d, Some(ADMIN), None);
    let last = before.last().expect("events")["token"]
        .as_str()
        .expect("token")
        .to_string();
    let (alice_wa, _) = ids[0];
    let (code, r) = d.post_json(
        &format!("/api/v1/admin/submissions/{alice_wa}/rejudge"),
        Some(ADMIN),
        &json!({}),
    );
    assert!(code == 200 || code == 202, "{code} {r}");
    let rejudged = wait_until(JUDGED_WITHIN, || {
        let after = feed(&d, Some(ADMIN), Some(&last));
        let found = after.iter().find(|e| {
            e["type"] == "judgements"
                && e["data"]["submission_id"].as_str() == Some(alice_wa.to_string().as_str())
                && e["data"]["judgement_type_id"].is_string()
        });
        found
            .cloned()
            .ok_or_else(|| format!("the rejudging's judgement never came: {after:?}"))
    });
    assert_eq!(rejudged["data"]["judgement_type_id"], "WA");
    let old_ids: Vec<&Value> = before
        .iter()
        .filter(|e| e["type"] == "judgements")
        .map(|e| &e["id"])
        .collect();
    assert!(
        !old_ids.contains(&&rejudged["id"]),
        "a new judgement, not the old one again"
    );
    shadow(&d, None);
    shadow(&d, Some(ADMIN));

    // The IOI contest: scores through the `score` fields.
    let ioi_ids = [
        (
            submit_to(&d, "ioi", ALICE, "wrong_answer/wa_second_line.c", "c"),
            ALICE,
        ),
        (submit_to(&d, "ioi", ALICE, "accepted/ac.c", "c"), ALICE),
        (
            submit_to(&d, "ioi", BOB, "wrong_answer/wa_second_line.c", "c"),
            BOB,
        ),
    ];
    settle(&d, &ioi_ids);
    for token in [None, Some(BOB), Some(ADMIN)] {
        check_endpoints_in(&d, "ioi", token);
    }
    let (_, c) = d.get("/api/contests/ioi", None);
    assert_eq!(c["scoreboard_type"], "score");
    let (_, problems) = d.get("/api/contests/ioi/problems", None);
    let max = problems[0]["max_score"].as_f64().expect("max_score");
    let (_, judgements) = d.get("/api/contests/ioi/judgements", Some(ADMIN));
    let score_of = |sid: i64| {
        judgements
            .as_array()
            .expect("judgements")
            .iter()
            .find(|j| j["submission_id"].as_str() == Some(sid.to_string().as_str()))
            .and_then(|j| j["score"].as_f64())
            .expect("a score")
    };
    assert_eq!(score_of(ioi_ids[1].0), max, "an AC scores the maximum");
    // Private standings: the public sees no row and no submission, bob his own only.
    let (_, sb) = d.get("/api/contests/ioi/scoreboard", None);
    assert_eq!(sb["rows"], json!([]), "{sb}");
    for coll in ["submissions", "judgements", "runs"] {
        let (_, all) = d.get(&format!("/api/contests/ioi/{coll}"), None);
        assert_eq!(
            all,
            json!([]),
            "the public sees no {coll} of a private contest"
        );
    }
    let (_, bobs) = d.get("/api/contests/ioi/submissions", Some(BOB));
    let ids_seen: Vec<&str> = bobs
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|s| s["id"].as_str())
        .collect();
    assert_eq!(ids_seen, [ioi_ids[2].0.to_string()]);
    let (_, bob_judgements) = d.get("/api/contests/ioi/judgements", Some(BOB));
    assert!(
        bob_judgements
            .as_array()
            .expect("list")
            .iter()
            .all(|j| j["submission_id"] == ids_seen[0]),
        "{bob_judgements}"
    );
    let (_, bob_sb) = d.get("/api/contests/ioi/scoreboard", Some(BOB));
    assert_eq!(bob_sb["rows"].as_array().map(Vec::len), Some(1), "{bob_sb}");
    let (_, sb) = d.get("/api/contests/ioi/scoreboard", Some(ADMIN));
    let rows = sb["rows"].as_array().expect("rows");
    assert_eq!(
        (rows[0]["team_id"].clone(), rows[0]["rank"].clone()),
        (json!("alice"), json!(1)),
        "{sb}"
    );
    assert_eq!(rows[0]["score"]["score"].as_f64(), Some(max), "{sb}");
    assert_eq!(rows[0]["problems"][0]["score"].as_f64(), Some(max), "{sb}");
    let bob = rows
        .iter()
        .find(|r| r["team_id"] == "bob")
        .expect("bob's row");
    assert_eq!(
        bob["score"]["score"].as_f64(),
        Some(score_of(ioi_ids[2].0)),
        "{sb}"
    );
    external_check(&d, "thawed");
}

/// The standard's own conformance checker (`check-api.sh` of icpc/ccs-specs, with its JSON
/// schemas), run against this live contest when `OJD_CCS_CHECK` names a command: it is given
/// the daemon's base URL and the stage (`frozen`, `thawed`) and must exit 0. The checker and
/// the schemas are not in this repository (they have no licence); docs/contest-api.md says
/// how to run them.
fn external_check(d: &Daemon, stage: &str) {
    let Ok(command) = std::env::var("OJD_CCS_CHECK") else {
        return;
    };
    let status = std::process::Command::new(&command)
        .arg(&d.url)
        .arg(stage)
        .status()
        .unwrap_or_else(|e| panic!("OJD_CCS_CHECK={command}: {e}"));
    assert!(
        status.success(),
        "{command} {} {stage}: the standard's checker failed ({status})",
        d.url
    );
}

// ---- contest packages ----

/// `ojd contest import` of a package as DOMjudge writes one (YAML with a `+01` offset, a
/// Kattis problem, teams with organizations and groups, accounts with passwords), then
/// `ojd contest export` and an import of that export: the same contest again.
#[test]
fn contest_package_import_export_round_trip() {
    require_root!();
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path();
    let cache = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("import-compile-cache");
    std::fs::write(
        root.join("config.toml"),
        format!(
            "[server]\nproblems = {:?}\ncontests = {:?}\n[judge]\ncache = {:?}\ncompile_time = \"90s\"\n",
            root.join("problems").display().to_string(),
            root.join("contests").display().to_string(),
            cache.display().to_string()
        ),
    )
    .expect("config");
    std::fs::create_dir_all(root.join("problems")).expect("mkdir");
    let pkg = root.join("wf-package");
    std::fs::create_dir_all(&pkg).expect("mkdir");
    let cp = std::process::Command::new("cp")
        .arg("-r")
        .arg(crate::common::testdata("import/kattis/legacy-hypot"))
        .arg(pkg.join("hypot"))
        .status()
        .expect("cp");
    assert!(cp.success());
    let files = [
        (
            "contest.yaml",
            "id: wf\nname: Rehearsal\nformal_name: The rehearsal\nstart_time: 2030-06-25T10:00:00+01\n\
             duration: 5:00:00\nscoreboard_freeze_duration: 1:00:00\nscoreboard_type: pass-fail\npenalty_time: 20\n",
        ),
        (
            "problems.yaml",
            "- id: hypot\n  label: A\n  name: Hypotenuse\n  ordinal: 1\n  color: blue\n  rgb: '#00f'\n",
        ),
        (
            "teams.json",
            r#"[{"id": "t1", "name": "Tigers", "organization_id": "kth", "group_ids": ["eu"]},
                {"id": "t2", "name": "Lions", "organization_id": "kth", "group_ids": ["eu"]}]"#,
        ),
        ("organizations.json", r#"[{"id": "kth", "name": "KTH", "country": "SWE"}]"#),
        ("groups.json", r#"[{"id": "eu", "name": "Europe"}]"#),
        (
            "accounts.yaml",
            "- id: t1\n  username: team1\n  password: secret1\n  type: team\n  team_id: t1\n\
             - id: t2\n  username: team2\n  password: secret2\n  type: team\n  team_id: t2\n",
        ),
    ];
    for (name, text) in files {
        std::fs::write(pkg.join(name), text).expect("write");
    }
    let ojd = |args: &[&str]| {
        let out = crate::common::ojd()
            .args(args)
            .arg("--config")
            .arg(root.join("config.toml"))
            .output()
            .expect("ojd runs");
        crate::common::Run::from(out)
    };
    let r = ojd(&["contest", "import", &pkg.display().to_string()]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("password is not kept"), "{}", r.stderr);
    let load = |id: &str| {
        ojd_service::contest::Contest::load(&root.join("contests").join(id), &root.join("problems"))
            .expect("the imported contest loads")
    };
    let c = load("wf");
    assert_eq!(c.title, "Rehearsal");
    assert_eq!(c.start_ms, 1_908_608_400_000, "10:00 at +01 is 09:00 UTC");
    assert_eq!(c.utc_offset_s, 3600);
    assert_eq!(c.duration, Duration::from_secs(5 * 3600));
    assert_eq!(c.freeze, Some(Duration::from_secs(3600)));
    assert_eq!(c.penalty_minutes, 20);
    assert_eq!(
        c.participants,
        ojd_service::contest::Participants::Listed(vec!["t1".into(), "t2".into()])
    );
    assert_eq!(
        (c.problems[0].label.as_str(), c.problems[0].problem.as_str()),
        ("A", "hypot")
    );
    assert!(root.join("problems/hypot/problem.toml").is_file());
    let extra = std::fs::read_to_string(root.join("contests/wf/ccs.json")).expect("ccs.json");
    assert!(!extra.contains("secret"), "passwords are not kept: {extra}");
    let extra: Value = serde_json::from_str(&extra).expect("json");
    assert_eq!(
        extra["problems"]["hypot"],
        json!({"rgb": "#00f", "color": "blue"})
    );
    assert_eq!(extra["organizations"][0]["country"], "SWE");

    // Export, and import the export under another id: the same contest.
    let out = root.join("exported");
    let r = ojd(&[
        "contest",
        "export",
        "wf",
        "--to",
        &out.display().to_string(),
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    for f in [
        "contest.yaml",
        "problems.yaml",
        "teams.json",
        "organizations.json",
        "groups.json",
        "accounts.json",
        "hypot/problem.yaml",
    ] {
        assert!(out.join(f).is_file(), "the package has {f}");
    }
    let teams: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("teams.json")).expect("teams"))
            .expect("json");
    // The roster's team object, as the Contest API serves it.
    assert_eq!(
        teams[0],
        json!({"id": "t1", "name": "Tigers", "label": "t1", "hidden": false,
               "organization_id": "kth", "group_ids": ["eu"]})
    );
    let contest_yaml = std::fs::read_to_string(out.join("contest.yaml")).expect("contest.yaml");
    assert!(
        contest_yaml.contains("duration: \"5:00:00\"\n")
            && contest_yaml.contains("start_time: \"2030-06-25T10:00:00+01:00\"\n"),
        "times are quoted strings at the contest's offset: {contest_yaml}"
    );
    let accounts = std::fs::read_to_string(out.join("accounts.json")).expect("accounts");
    assert!(
        accounts.contains("team1") && !accounts.contains("secret"),
        "{accounts}"
    );
    let r = ojd(&[
        "contest",
        "import",
        &out.display().to_string(),
        "--id",
        "wf2",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("exists already; used as it is"),
        "{}",
        r.stderr
    );
    let again = load("wf2");
    assert_eq!(
        (
            again.title.clone(),
            again.start_ms,
            again.utc_offset_s,
            again.duration,
            again.freeze,
            again.penalty_minutes,
            again.participants.clone()
        ),
        (
            c.title.clone(),
            c.start_ms,
            c.utc_offset_s,
            c.duration,
            c.freeze,
            c.penalty_minutes,
            c.participants.clone()
        )
    );
    let extra2: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("contests/wf2/ccs.json")).expect("ccs.json"),
    )
    .expect("json");
    for k in ["organizations", "groups", "accounts", "problems"] {
        assert_eq!(extra2[k], extra[k], "{k} survives the round trip");
    }
    let roster = |c: &ojd_service::contest::Contest| {
        serde_json::to_value(ojd_service::ccs::directory(c)).expect("json")
    };
    assert_eq!(
        roster(&again),
        roster(&c),
        "the roster survives the round trip"
    );

    // Bad input names the file and the key; nothing is written.
    std::fs::write(
        pkg.join("contest.yaml"),
        "id: bad\nname: Bad\nstart_time: 2030-06-25T10:00:00Z\nduration: five hours\n",
    )
    .expect("write");
    let r = ojd(&["contest", "import", &pkg.display().to_string()]);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("contest.yaml: duration") && r.stderr.contains("five hours"),
        "{}",
        r.stderr
    );
    assert!(!root.join("contests/bad").exists());
    std::fs::write(
        pkg.join("contest.yaml"),
        "id: bad\nname: Bad\nstart_time: 2030-06-25T10:00:00Z\nduration: 5:00:00\n",
    )
    .expect("write");
    std::fs::write(pkg.join("problems.yaml"), "- id: zipped\n  label: A\n").expect("write");
    std::fs::write(pkg.join("zipped.zip"), b"PK").expect("write");
    let r = ojd(&["contest", "import", &pkg.display().to_string()]);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("problems.yaml: [0].id") && r.stderr.contains("unpack it"),
        "{}",
        r.stderr
    );
    assert!(!root.join("contests/bad").exists());
    let r = ojd(&[
        "contest",
        "export",
        "nope",
        "--to",
        &root.join("x").display().to_string(),
    ]);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
}

/// A package in the shape of a real one (a BAPCtools contest repository: LaTeX keys beside
/// the CCS ones, unquoted RELTIMEs, a problem id starting with a digit, no teams) imports and
/// exports back to the same contest and problems; a broken colour, country or group reference
/// is refused naming the file and key, and nothing is written (not even the problems, which
/// are imported before the contest is).
#[test]
fn contest_package_of_a_real_shape_and_its_mistakes() {
    require_root!();
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path();
    let cache = std::path::Path::new(env!("CARGO_TARGET_TMPDIR")).join("import-compile-cache");
    std::fs::write(
        root.join("config.toml"),
        format!(
            "[server]\nproblems = {:?}\ncontests = {:?}\n[judge]\ncache = {:?}\ncompile_time = \"90s\"\n",
            root.join("problems").display().to_string(),
            root.join("contests").display().to_string(),
            cache.display().to_string()
        ),
    )
    .expect("config");
    std::fs::create_dir_all(root.join("problems")).expect("mkdir");
    let copy = |from: &std::path::Path, to: &std::path::Path| {
        let cp = std::process::Command::new("cp")
            .arg("-r")
            .arg(from)
            .arg(to)
            .status()
            .expect("cp");
        assert!(cp.success());
    };
    let pkg = root.join("pkg");
    copy(&crate::common::testdata("ccs/bapc-style"), &pkg);
    copy(
        &crate::common::testdata("import/kattis/legacy-hypot"),
        &pkg.join("24hypot"),
    );
    let ojd = |args: &[&str]| {
        let out = crate::common::ojd()
            .args(args)
            .arg("--config")
            .arg(root.join("config.toml"))
            .output()
            .expect("ojd runs");
        crate::common::Run::from(out)
    };
    let listing = |dir: &std::path::Path| -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(dir)
            .map(|r| {
                r.flatten()
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default();
        v.sort();
        v
    };

    // Mistakes first, each on a copy: refused, naming the file and key, nothing written.
    let mistakes: [(&str, &str, &str); 4] = [
        (
            "problems.yaml",
            "- id: 24hypot\n  label: A\n  rgb: a953c2x\n",
            "problems.yaml: [0].rgb: \"a953c2x\" is not a colour",
        ),
        (
            "organizations.json",
            r#"[{"id": "ucl", "name": "UCLouvain", "country": "Belgium"}]"#,
            "organizations.json: [0].country: \"Belgium\" is not a country code",
        ),
        (
            "teams.json",
            r#"[{"id": "t1", "name": "One", "group_ids": ["nowhere"]}]"#,
            "teams.json: [0].group_ids: \"nowhere\" is not in",
        ),
        (
            "teams.json",
            r#"[{"id": "t1", "name": "One", "hidden": "no"}]"#,
            "teams.json: [0].hidden: \"no\" is not true or false",
        ),
    ];
    for (i, (file, text, want)) in mistakes.iter().enumerate() {
        let bad = root.join(format!("bad{i}"));
        copy(&pkg, &bad);
        std::fs::write(bad.join(file), text).expect("write");
        let r = ojd(&["contest", "import", &bad.display().to_string()]);
        assert_eq!(r.code, 2, "{file}: {}\n{}", r.stdout, r.stderr);
        assert!(
            r.stderr.contains(want),
            "{file}: want {want:?} in {}",
            r.stderr
        );
        assert!(
            listing(&root.join("problems")).is_empty()
                && listing(&root.join("contests")).is_empty(),
            "{file}: nothing is written: {:?} {:?}",
            listing(&root.join("problems")),
            listing(&root.join("contests"))
        );
    }
    // A bare rrggbb (older packages) gets its '#'.
    let bare = root.join("bare");
    copy(&pkg, &bare);
    std::fs::write(
        bare.join("problems.yaml"),
        "- id: 24hypot\n  label: A\n  rgb: a953c2\n  time_limit: 99.5\n",
    )
    .expect("write");
    let r = ojd(&[
        "contest",
        "import",
        &bare.display().to_string(),
        "--id",
        "bare",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    // problems.yaml's time limit is informational; a different one is said.
    assert!(
        r.stderr
            .contains("problems.yaml: [0].time_limit: 99.5 s, but problem 24hypot's package sets"),
        "{}",
        r.stderr
    );
    let extra: Value = serde_json::from_str(
        &std::fs::read_to_string(root.join("contests/bare/ccs.json")).expect("ccs.json"),
    )
    .expect("json");
    assert_eq!(extra["problems"]["24hypot"]["rgb"], "#a953c2");

    // The package as it is.
    let r = ojd(&["contest", "import", &pkg.display().to_string()]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let c = ojd_service::contest::Contest::load(
        &root.join("contests/bapc-style"),
        &root.join("problems"),
    )
    .expect("the imported contest loads");
    assert_eq!(c.title, "Style Cup 2031");
    assert_eq!(c.duration, Duration::from_secs(5 * 3600));
    assert_eq!(c.freeze, Some(Duration::from_secs(3600)));
    assert_eq!(c.participants, ojd_service::contest::Participants::Anyone);
    let out = root.join("exported");
    let r = ojd(&[
        "contest",
        "export",
        "bapc-style",
        "--to",
        &out.display().to_string(),
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let read = |p: &std::path::Path| -> Value {
        serde_norway::from_str(&std::fs::read_to_string(p).expect("read")).expect("YAML")
    };
    let (before, after) = (
        read(&pkg.join("problems.yaml")),
        read(&out.join("problems.yaml")),
    );
    // (The time limit is the problem package's: its `time_limit` here is informational.)
    for k in ["id", "label", "name", "rgb"] {
        assert_eq!(before[0][k], after[0][k], "problems.yaml {k}: {after}");
    }
    let contest = read(&out.join("contest.yaml"));
    assert_eq!(
        (
            contest["id"].clone(),
            contest["start_time"].clone(),
            contest["duration"].clone(),
            contest["scoreboard_freeze_duration"].clone()
        ),
        (
            json!("bapc-style"),
            json!("2031-03-01T12:00:00Z"),
            json!("5:00:00"),
            json!("1:00:00")
        )
    );
}
