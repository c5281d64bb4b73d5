//! The one roster of a contest as the Contest API and the contest package state it: its teams,
//! organizations, groups and accounts, whatever made them.
//!
//! Two sources, one result ([`directory`]): the contest's `ccs.json` (what `ojd contest import`
//! kept of a package: teams, organizations, groups with every property the standard gives),
//! and `contest.toml`'s `[[team]]` tables and `participants` (what the web's roster page, a
//! roster file or a hand edit wrote), which are the director's latest word and so win where
//! both say something. Every listed participant is a team, with or without a `[[team]]`; an
//! affiliation is an organization and a group a group (the one of `ccs.json` with that name or
//! id, else a new one); observers and the jury's teams are `hidden` (never on a scoreboard).
//! Each object serializes as the standard's (`serde_json::to_value(&dir.teams)` is a
//! `teams.json`), and every value the standard's schema would refuse is left out.

use std::collections::{BTreeMap, HashSet};

use serde::Serialize;
use serde_json::{json, Map, Value};

use super::{is_id, team_id};
use crate::contest::{Category, Contest, Participants, Team};

/// A contest's teams, organizations, groups and accounts, in a stable order (teams as listed).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct Directory {
    /// The teams, in roster order.
    pub teams: Vec<DirTeam>,
    /// The standard's organization objects.
    pub organizations: Vec<Value>,
    /// The standard's group objects.
    pub groups: Vec<Value>,
    /// The teams' accounts (no secrets: ojd keeps no passwords in a contest).
    pub accounts: Vec<Value>,
    /// `ccs.json`'s teams, for the users the roster does not list ([`Directory::unlisted`]).
    #[serde(skip)]
    package_teams: Vec<Value>,
}

/// One team: the ojd user it submits as, and its Contest API object.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct DirTeam {
    /// The ojd user the team submits as.
    #[serde(skip)]
    pub user: String,
    /// Ranked on the standings (a participant): not an observer nor the jury.
    #[serde(skip)]
    pub ranked: bool,
    /// The standard's team object (`id`, `name`, `label`, `display_name`, `organization_id`,
    /// `group_ids`, `hidden`, `icpc_id`, `location`).
    #[serde(flatten)]
    pub object: Map<String, Value>,
}

impl Directory {
    /// The team `user` submits as, if the contest lists it.
    pub fn team(&self, user: &str) -> Option<&DirTeam> {
        self.teams.iter().find(|t| t.user == user)
    }

    /// The team of `user`: the roster's, or for a user it does not list (an open contest's
    /// submitter) one named by the user.
    pub fn team_or_bare(&self, user: &str) -> DirTeam {
        if let Some(t) = self.team(user) {
            return t.clone();
        }
        let mut groups = self.groups.clone();
        let mut orgs = self.organizations.clone();
        make_team(user, None, &self.package_teams, &mut orgs, &mut groups)
    }
}

/// What `ccs.json` holds (written by `ojd contest import`): the package's teams,
/// organizations, groups, and problems' colours.
#[derive(Default, serde::Deserialize)]
#[serde(default)]
pub struct Extra {
    /// The package's team objects.
    pub teams: Vec<Value>,
    /// The package's organization objects.
    pub organizations: Vec<Value>,
    /// The package's group objects.
    pub groups: Vec<Value>,
    /// The package's accounts (without passwords: the import drops them).
    pub accounts: Vec<Value>,
    /// By problem id: `{"rgb": "#ff0000", "color": "red"}`.
    pub problems: BTreeMap<String, Value>,
    /// A finalized contest's awards of record (the package's `awards.json`): served instead
    /// of the awards ojd computes, since the package's jury gave them.
    pub awards: Vec<Value>,
}

impl Extra {
    /// The contest's `ccs.json`; none is an empty one, and a broken one is logged (once per
    /// message) and read as empty.
    pub fn load(c: &Contest) -> Extra {
        let path = c.dir.join("ccs.json");
        let Ok(bytes) = std::fs::read(&path) else {
            return Extra::default();
        };
        match serde_json::from_slice(&bytes) {
            Ok(extra) => extra,
            Err(e) => {
                static LOGGED: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());
                let msg = format!(
                    "{}: {e} (its teams, groups, organizations and colours are left out)",
                    path.display()
                );
                let mut logged = LOGGED.lock().unwrap_or_else(|p| p.into_inner());
                if !logged.contains(&msg) {
                    crate::logging::log(&msg);
                    logged.push(msg);
                }
                Extra::default()
            }
        }
    }
}

/// The team of id `id` in `ccs.json`'s `teams`.
fn package_team<'a>(teams: &'a [Value], id: &str) -> Option<&'a Value> {
    teams.iter().find(|t| t["id"] == id)
}

/// The properties the directory may give each type (files are not served, so no logos or
/// photos).
pub fn properties(ty: &str) -> &'static [&'static str] {
    match ty {
        "groups" => &["id", "icpc_id", "name", "type"],
        "organizations" => &[
            "id",
            "icpc_id",
            "name",
            "formal_name",
            "country",
            "country_subdivision",
            "url",
            "twitter_hashtag",
            "twitter_account",
        ],
        "accounts" => &["id", "username", "name", "type", "team_id"],
        "teams" => &[
            "id",
            "icpc_id",
            "name",
            "label",
            "display_name",
            "organization_id",
            "group_ids",
            "hidden",
            "location",
        ],
        _ => &[],
    }
}

/// The contest's roster (see the module's text).
pub fn directory(c: &Contest) -> Directory {
    let extra = Extra::load(c);
    let mut organizations = valid_list(&extra.organizations, "organizations");
    let mut groups = valid_list(&extra.groups, "groups");
    // Every listed user, then every [[team]] (the web admits a team's user, but a hand-written
    // file may have a team for a user it does not list), then ccs.json's teams of an open
    // contest.
    let mut users: Vec<String> = Vec::new();
    if let Participants::Listed(listed) = &c.participants {
        users.extend(listed.iter().cloned());
    }
    users.extend(c.teams.iter().map(|t| t.user.clone()));
    if c.participants == Participants::Anyone {
        users.extend(
            extra
                .teams
                .iter()
                .filter_map(|t| t["id"].as_str().map(str::to_string)),
        );
    }
    let mut seen = HashSet::new();
    users.retain(|u| seen.insert(u.clone()));
    let teams: Vec<DirTeam> = users
        .iter()
        .map(|u| {
            let table = c.teams.iter().find(|t| &t.user == u);
            make_team(u, table, &extra.teams, &mut organizations, &mut groups)
        })
        .collect();
    // A team's account is the package's where it has one (its username, say), else one named
    // by the team's user; the package's other accounts (judges, admins…) follow.
    let package_accounts: Vec<Value> = extra
        .accounts
        .iter()
        .map(|a| only(a, "accounts"))
        .filter(|a| a["id"].is_string() && a["type"].is_string())
        .collect();
    let mut accounts: Vec<Value> = teams
        .iter()
        .map(|t| {
            let id = t.object["id"].clone();
            package_accounts
                .iter()
                .find(|a| a["type"] == "team" && a["team_id"] == id)
                .cloned()
                .unwrap_or_else(|| {
                    json!({"id": id, "username": t.user, "name": t.object["name"], "type": "team", "team_id": id})
                })
        })
        .collect();
    let others: Vec<Value> = package_accounts
        .into_iter()
        .filter(|a| a["type"] != "team" && !accounts.iter().any(|b| b["id"] == a["id"]))
        .collect();
    accounts.extend(others);
    Directory {
        teams,
        organizations,
        groups,
        accounts,
        package_teams: extra.teams,
    }
}

/// The objects of `list` with a valid id, once each, with only the properties of `ty` of the
/// standard's types (a missing name is the id: `name` is required).
fn valid_list(list: &[Value], ty: &str) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for o in list {
        let Some(id) = o["id"].as_str().filter(|id| is_id(id)) else {
            continue;
        };
        if out.iter().any(|x| x["id"] == id) {
            continue;
        }
        let mut v = only(o, ty);
        if v.get("name").is_none() {
            v["name"] = json!(id);
        }
        out.push(v);
    }
    out
}

/// The team of `user`: `ccs.json`'s object of its id, with what its `[[team]]` says over it.
fn make_team(
    user: &str,
    table: Option<&Team>,
    package: &[Value],
    organizations: &mut Vec<Value>,
    groups: &mut Vec<Value>,
) -> DirTeam {
    let id = team_id(user);
    let mut v = json!({"id": id, "name": user, "label": id, "hidden": false});
    if let Some(Value::Object(more)) = package_team(package, &id).map(|t| only(t, "teams")) {
        for (k, x) in more {
            if k != "id" {
                v[k] = x;
            }
        }
    }
    // An organization or group ccs.json's team names must exist (the import checks; a hand
    // edit may not have): else the property is left out.
    if let Some(org) = v["organization_id"].as_str() {
        if !organizations.iter().any(|o| o["id"] == org) {
            v.as_object_mut()
                .expect("a team is an object")
                .remove("organization_id");
        }
    }
    let mut group_ids: Vec<Value> = v["group_ids"]
        .as_array()
        .cloned()
        .unwrap_or_default()
        .into_iter()
        .filter(|g| groups.iter().any(|x| x["id"] == *g))
        .collect();
    let mut ranked = v["hidden"] != true;
    if let Some(t) = table {
        // The name a director gave (a [[team]] without one is named by its user, which says
        // nothing over ccs.json's name).
        if t.name != t.user || package_team(package, &id).is_none() {
            v["name"] = json!(t.name);
        }
        if let Some(a) = &t.affiliation {
            let oid = find_or_add(organizations, a, "organizations");
            // The team's country is its organization's (where the package gave none).
            if let Some(c) = &t.place.country {
                if let Some(o) = organizations.iter_mut().find(|o| o["id"] == oid.as_str()) {
                    if o.get("country").is_none() {
                        o["country"] = json!(c);
                    }
                }
            }
            v["organization_id"] = json!(oid);
        }
        for g in t.groups() {
            let gid = find_or_add(groups, g, "groups");
            if !group_ids.iter().any(|x| *x == gid.as_str()) {
                group_ids.push(json!(gid));
            }
        }
        if let Some(l) = &t.place.location {
            v["location"] = json!({"x": l.x, "y": l.y, "rotation": l.rotation});
        }
        ranked = t.category == Category::Participant;
        v["hidden"] = json!(!ranked);
    }
    v["group_ids"] = json!(group_ids);
    let Value::Object(object) = v else {
        unreachable!("built as an object above")
    };
    DirTeam {
        user: user.to_string(),
        ranked,
        object,
    }
}

/// The id of the object of `list` named `name` (or with that id), added when there is none:
/// its id is `name` made an ID (letters, digits, `_.-`; at most 36), made unique.
fn find_or_add(list: &mut Vec<Value>, name: &str, ty: &str) -> String {
    if let Some(found) = list
        .iter()
        .find(|o| o["name"] == name || o["formal_name"] == name || o["id"] == name)
    {
        return found["id"].as_str().unwrap_or_default().to_string();
    }
    let id = unique(&slug(name), |id| list.iter().any(|o| o["id"] == id));
    let mut v = json!({"id": id, "name": name});
    if ty == "organizations" {
        v["formal_name"] = json!(name);
    }
    list.push(v);
    id
}

/// `name` as an ID: lowercase letters and digits kept, every other run of characters one `-`,
/// trimmed to 32 characters; `x` when nothing is left.
pub fn slug(name: &str) -> String {
    let mut s = String::new();
    for ch in name.chars() {
        if ch.is_ascii_alphanumeric() {
            s.push(ch.to_ascii_lowercase());
        } else if !s.ends_with('-') && !s.is_empty() {
            s.push('-');
        }
    }
    let mut s: String = s.chars().take(32).collect();
    while s.ends_with('-') {
        s.pop();
    }
    if s.is_empty() {
        s.push('x');
    }
    s
}

/// `base`, or `base-2`, `base-3`… the first that `taken` does not hold.
fn unique(base: &str, taken: impl Fn(&str) -> bool) -> String {
    if !taken(base) {
        return base.to_string();
    }
    (2..)
        .map(|n| format!("{base}-{n}"))
        .find(|id| !taken(id))
        .expect("some number is free")
}

/// `o` with only the properties of `ty` the directory may give, each of the standard's type
/// (a value that is not, such as a `country` that is not three capitals, is left out: the API
/// serves nothing its schema rejects; `ojd contest import` refuses such a package).
pub fn only(o: &Value, ty: &str) -> Value {
    let keep = properties(ty);
    match o {
        Value::Object(m) => Value::Object(
            m.iter()
                .filter(|(k, v)| keep.contains(&k.as_str()) && valid(ty, k, v))
                .map(|(k, v)| (k.clone(), v.clone()))
                .collect(),
        ),
        _ => Value::Null,
    }
}

/// Whether `v` is of the standard's type for property `k` of `ty`.
pub(crate) fn valid(ty: &str, k: &str, v: &Value) -> bool {
    let string_or_null = v.is_string() || v.is_null();
    match (ty, k) {
        (_, "id") => v.as_str().is_some_and(is_id),
        (_, "name") | ("teams", "label") => v.is_string(),
        ("organizations", "formal_name") => v.is_string(),
        ("organizations", "country") => {
            v.is_null()
                || v.as_str()
                    .is_some_and(|c| c.len() == 3 && c.bytes().all(|b| b.is_ascii_uppercase()))
        }
        ("organizations", "country_subdivision") => {
            v.is_null() || v.as_str().is_some_and(valid_subdivision)
        }
        ("teams", "organization_id") => v.is_null() || v.as_str().is_some_and(is_id),
        ("teams", "group_ids") => {
            v.is_null()
                || v.as_array().is_some_and(|a| {
                    a.iter().all(|g| g.as_str().is_some_and(is_id))
                        && a.iter().collect::<HashSet<_>>().len() == a.len()
                })
        }
        ("teams", "hidden") => v.is_boolean() || v.is_null(),
        ("accounts", "username") => v.is_string(),
        ("accounts", "type") => v
            .as_str()
            .is_some_and(|t| ["team", "judge", "admin", "analyst", "staff", "cds"].contains(&t)),
        ("accounts", "team_id") => v.is_null() || v.as_str().is_some_and(is_id),
        ("teams", "location") => {
            ["x", "y", "rotation"].iter().all(|k| v[k].is_number())
                && v["rotation"]
                    .as_f64()
                    .is_some_and(|r| (0.0..=360.0).contains(&r))
        }
        _ => string_or_null,
    }
}

/// ISO 3166-2: two capitals, `-`, one to three capitals or digits (`NL-NH`, `US-CA`).
fn valid_subdivision(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() >= 4
        && b.len() <= 6
        && b[..2].iter().all(u8::is_ascii_uppercase)
        && b[2] == b'-'
        && b[3..]
            .iter()
            .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contest(toml: &str, ccs: Option<&str>) -> (tempfile::TempDir, Contest) {
        let tmp = tempfile::tempdir().expect("temp dir");
        let problems = tmp.path().join("problems");
        std::fs::create_dir_all(problems.join("aplusb")).expect("mkdir");
        let dir = tmp.path().join("contests").join("c1");
        std::fs::create_dir_all(&dir).expect("mkdir");
        let head = "title = \"R\"\nstart = \"2026-12-01T09:00:00Z\"\nduration = \"5h\"\n";
        let text = format!("{head}{toml}\n[[problem]]\nid = \"aplusb\"\n");
        std::fs::write(dir.join("contest.toml"), text).expect("write");
        if let Some(ccs) = ccs {
            std::fs::write(dir.join("ccs.json"), ccs).expect("write");
        }
        let c = Contest::load(&dir, &problems).expect("loads");
        (tmp, c)
    }

    /// The web's roster (`[[team]]`), a package's `ccs.json` and the bare participants list
    /// make one roster: every listed user a team, affiliations organizations, groups groups,
    /// observers and the jury hidden, the director's word over the package's.
    #[test]
    fn the_roster_of_every_source_is_one_directory() {
        let (_t, c) = contest(
            r#"participants = ["alice", "bob", "carol", "dave"]
[[team]]
user = "alice"
name = "Team Alice"
affiliation = "A University"
group = "Students"
[[team]]
user = "bob"
affiliation = "Bob's College"
category = "observer"
[[team]]
user = "dave"
category = "jury"
"#,
            Some(
                r#"{"organizations": [{"id": "uni", "name": "A University", "country": "NLD",
                      "country_subdivision": "NL-NH"}],
                    "groups": [{"id": "pros", "name": "Professionals"}],
                    "teams": [{"id": "alice", "name": "Alice (package)", "icpc_id": "77",
                               "group_ids": ["pros", "nowhere"]},
                              {"id": "carol", "name": "Carol's team", "organization_id": "gone"}]}"#,
            ),
        );
        let d = directory(&c);
        let users: Vec<&str> = d.teams.iter().map(|t| t.user.as_str()).collect();
        assert_eq!(users, ["alice", "bob", "carol", "dave"]);
        let team = |u: &str| serde_json::to_value(d.team(u).expect("a team")).expect("json");
        assert_eq!(
            team("alice"),
            json!({"id": "alice", "name": "Team Alice", "label": "alice", "hidden": false,
                   "icpc_id": "77", "organization_id": "uni", "group_ids": ["pros", "students"]})
        );
        assert_eq!(
            team("bob"),
            json!({"id": "bob", "name": "bob", "label": "bob", "hidden": true,
                   "organization_id": "bob-s-college", "group_ids": []})
        );
        // No [[team]]: the package's, without an organization that does not exist.
        assert_eq!(
            team("carol"),
            json!({"id": "carol", "name": "Carol's team", "label": "carol", "hidden": false,
                   "group_ids": []})
        );
        assert!(
            d.team("dave").is_some_and(|t| !t.ranked) && d.team("carol").is_some_and(|t| t.ranked)
        );
        assert_eq!(
            d.organizations,
            [
                json!({"id": "uni", "name": "A University", "country": "NLD", "country_subdivision": "NL-NH"}),
                json!({"id": "bob-s-college", "name": "Bob's College", "formal_name": "Bob's College"}),
            ]
        );
        assert_eq!(
            d.groups,
            [
                json!({"id": "pros", "name": "Professionals"}),
                json!({"id": "students", "name": "Students"}),
            ]
        );
        assert_eq!(
            d.accounts[0],
            json!({"id": "alice", "username": "alice", "name": "Team Alice", "type": "team", "team_id": "alice"})
        );
        assert_eq!(d.accounts.len(), 4);
    }

    /// A contest open to anyone: the roster is its `[[team]]`s and `ccs.json`'s teams, and a
    /// user it does not list is a bare team.
    #[test]
    fn an_open_contest_lists_its_teams_and_names_the_others_bare() {
        let (_t, c) = contest(
            "[[team]]\nuser = \"zoe\"\nname = \"Zed\"\n",
            Some(r#"{"teams": [{"id": "yan", "name": "Yan's"}]}"#),
        );
        let d = directory(&c);
        let users: Vec<&str> = d.teams.iter().map(|t| t.user.as_str()).collect();
        assert_eq!(users, ["zoe", "yan"]);
        let x = d.team_or_bare("x y");
        assert_eq!(x.object["name"], "x y");
        assert_eq!(x.object["id"], team_id("x y"));
    }

    #[test]
    fn slugs_are_ids_and_unique() {
        assert_eq!(slug("Universität Twente (UT)"), "universit-t-twente-ut");
        assert_eq!(slug("--"), "x");
        assert!(is_id(&slug(&"a".repeat(80))));
        assert_eq!(unique("a", |x| x == "a" || x == "a-2"), "a-3");
    }

    #[test]
    fn subdivisions_follow_iso_3166_2() {
        assert!(valid_subdivision("NL-NH"));
        assert!(valid_subdivision("US-CA"));
        assert!(valid_subdivision("GB-001"));
        assert!(!valid_subdivision("nl-nh"));
        assert!(!valid_subdivision("NLD-NH"));
    }
}
