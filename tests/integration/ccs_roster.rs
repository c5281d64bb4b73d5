//! The Contest API's roster as a CDS follows it while a director changes it: a team removed on
//! the web's teams page, an organization and a group left without teams, a group renamed in
//! `contest.toml` and reloaded, each gets its delete event; a team added back comes again after
//! its delete; a replay of the feed sends the same deletes at the same places as the live
//! client received them (that client again with the setup whenever the roster changed), and
//! both rebuild what the endpoints answer.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::ccs::{access_in, check_feed};
use crate::daemon::{Daemon, Site, ADMIN};

/// The roster's collections: (type, id) -> data, deleted ones gone.
const ROSTER: [&str; 4] = ["groups", "organizations", "teams", "accounts"];

fn rebuild(events: &[Value]) -> BTreeMap<String, BTreeMap<String, Value>> {
    let mut out: BTreeMap<String, BTreeMap<String, Value>> = BTreeMap::new();
    for e in events
        .iter()
        .filter(|e| ROSTER.contains(&e["type"].as_str().unwrap_or("")))
    {
        let objects = out
            .entry(e["type"].as_str().expect("type").to_string())
            .or_default();
        let id = e["id"].as_str().expect("an id").to_string();
        if e["data"].is_null() {
            assert!(
                objects.remove(&id).is_some(),
                "a delete of an object never sent: {e}"
            );
        } else {
            objects.insert(id, e["data"].clone());
        }
    }
    out.retain(|_, objects| !objects.is_empty());
    out
}

fn endpoints(d: &Daemon) -> BTreeMap<String, BTreeMap<String, Value>> {
    let mut out = BTreeMap::new();
    for ty in ROSTER {
        let (code, list) = d.get(&format!("/api/contests/wf/{ty}"), Some(ADMIN));
        assert_eq!(code, 200, "{ty}: {list}");
        let objects: BTreeMap<String, Value> = (list.as_array().expect("a list").iter())
            .map(|o| (o["id"].as_str().expect("id").to_string(), o.clone()))
            .collect();
        if !objects.is_empty() {
            out.insert(ty.to_string(), objects);
        }
    }
    out
}

/// The feed after `since` (everything when `None`), as an admin.
fn feed_after(d: &Daemon, since: Option<&str>) -> Vec<Value> {
    let q = since.map_or(String::new(), |t| format!("&since_token={t}"));
    let (code, text) = d.get_text(
        &format!("/api/contests/wf/event-feed?stream=false{q}"),
        Some(ADMIN),
    );
    assert_eq!(code, 200, "{text}");
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| serde_json::from_str(l).expect("a JSON line"))
        .collect()
}

/// A client that follows the feed, resuming after the last token it got.
struct Follower {
    got: Vec<Value>,
}

impl Follower {
    /// Reads what came since the last read; returns it.
    fn read(&mut self, d: &Daemon) -> Vec<Value> {
        let since = self
            .got
            .last()
            .map(|e| e["token"].as_str().expect("token").to_string());
        let new = feed_after(d, since.as_deref());
        self.got.extend(new.iter().cloned());
        new
    }
}

fn deletes(events: &[Value]) -> Vec<(String, String)> {
    events
        .iter()
        .filter(|e| e["data"].is_null() && ROSTER.contains(&e["type"].as_str().unwrap_or("")))
        .map(|e| {
            (
                e["type"].as_str().unwrap_or("").to_string(),
                e["id"].to_string(),
            )
        })
        .collect()
}

fn id_of(d: &Daemon, ty: &str, name: &str) -> String {
    let (_, list) = d.get(&format!("/api/contests/wf/{ty}"), Some(ADMIN));
    (list.as_array().expect("a list").iter())
        .find(|o| o["name"] == name)
        .unwrap_or_else(|| panic!("no {ty} named {name}: {list}"))["id"]
        .as_str()
        .expect("id")
        .to_string()
}

#[test]
fn what_leaves_the_roster_gets_its_delete_event_and_a_replay_sends_the_same() {
    require_root!();
    let contests = tempfile::tempdir().expect("temp dir");
    let site = Site::new(&format!(
        "contests = \"{}\"\nrate_limit_per_minute = 0\nstandings_cache = \"0s\"\nfeed_settle = \"0s\"",
        contests.path().display()
    ));
    let now = ojd_store::now_ms();
    crate::contest_site::write_contest_file(
        contests.path(),
        "wf",
        now - 10 * 60_000,
        Some("2h"),
        "participants = [\"alice\"]",
        &["aplusb".to_string()],
    );
    let d = site.start();
    let roster = "user,name,affiliation,group,category\n\
                  alice,Team Alice,A University,Students,participant\n\
                  carol,Carol's,B College,Juniors,participant\n\
                  dave,Dave's,C Institute,Juniors,participant\n";
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/wf/teams",
        Some(ADMIN),
        &json!({ "roster": roster }),
    );
    assert_eq!(code, 200, "{r}");
    let mut live = Follower { got: Vec::new() };
    live.read(&d);
    let b_college = id_of(&d, "organizations", "B College");
    let c_institute = id_of(&d, "organizations", "C Institute");
    let juniors = id_of(&d, "groups", "Juniors");
    let students = id_of(&d, "groups", "Students");
    assert_eq!(rebuild(&live.got), endpoints(&d));

    // carol removed on the teams page: her team, her account and her organization go; the
    // group stays (dave is in it).
    let remove = |user: &str| {
        let path = format!("/api/v1/admin/contests/wf/teams/{user}/remove");
        let (code, r) = d.post_json(&path, Some(ADMIN), &json!({}));
        assert_eq!(code, 200, "{r}");
    };
    remove("carol");
    let new = live.read(&d);
    let mut got = deletes(&new);
    got.sort();
    let q = |s: &str| json!(s).to_string();
    assert_eq!(
        got,
        vec![
            ("accounts".to_string(), q("carol")),
            ("organizations".to_string(), q(&b_college)),
            ("teams".to_string(), q("carol")),
        ],
        "{new:#?}"
    );
    // Read again: nothing more, the removal is sent once.
    assert!(deletes(&live.read(&d)).is_empty());

    // dave removed too: the group has no team left and goes with his organization.
    remove("dave");
    let new = live.read(&d);
    let got = deletes(&new);
    for want in [
        ("groups", &juniors),
        ("organizations", &c_institute),
        ("teams", &"dave".to_string()),
    ] {
        assert!(
            got.contains(&(want.0.to_string(), q(want.1))),
            "{want:?} in {got:?}"
        );
    }

    // A group renamed in contest.toml, reloaded: the old one is deleted, the new one comes.
    let file = contests.path().join("wf").join("contest.toml");
    let text = std::fs::read_to_string(&file).expect("contest.toml");
    assert!(text.contains("\"Students\""), "{text}");
    std::fs::write(&file, text.replace("\"Students\"", "\"Seniors\"")).expect("write");
    let (code, r) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
    assert_eq!(code, 200, "{r}");
    let new = live.read(&d);
    assert!(
        deletes(&new).contains(&("groups".to_string(), q(&students))),
        "{new:#?}"
    );
    let seniors = id_of(&d, "groups", "Seniors");
    assert!(
        new.iter()
            .any(|e| e["type"] == "groups" && e["id"] == seniors.as_str() && !e["data"].is_null()),
        "{new:#?}"
    );

    // carol back: her team comes again, after its delete.
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/wf/team",
        Some(ADMIN),
        &json!({"user": "carol", "name": "Carol again", "affiliation": "B College"}),
    );
    assert_eq!(code, 200, "{r}");
    let new = live.read(&d);
    assert!(
        new.iter().any(|e| e["type"] == "teams"
            && e["id"] == "carol"
            && e["data"]["name"] == "Carol again"),
        "{new:#?}"
    );

    // The client that followed and a replay from the start agree with the endpoints, and the
    // replay has every delete the client got, with the same tokens.
    let replay = feed_after(&d, None);
    assert_eq!(rebuild(&live.got), endpoints(&d));
    assert_eq!(rebuild(&replay), endpoints(&d));
    let with_tokens = |events: &[Value]| -> Vec<String> {
        (events.iter())
            .filter(|e| e["data"].is_null() && ROSTER.contains(&e["type"].as_str().unwrap_or("")))
            // The token's time and index (its last part is the setup's fingerprint then).
            .map(|e| {
                let token = e["token"].as_str().expect("token");
                let at = token.rsplit_once('.').expect("a token").0;
                format!("{} {} {at}", e["type"], e["id"])
            })
            .collect()
    };
    // A client sent the setup again (the roster changed) is sent the deletes again too, at
    // their own places: the same deletes, once each, as the replay's.
    let mut live_deletes = with_tokens(&live.got);
    let mut seen = std::collections::HashSet::new();
    live_deletes.retain(|d| seen.insert(d.clone()));
    assert_eq!(live_deletes, with_tokens(&replay));
    assert_eq!(with_tokens(&replay).len(), 8, "{:#?}", with_tokens(&replay));
    // Every line still the standard's (a delete's data is null).
    check_feed(&replay, &access_in(&d, "wf", Some(ADMIN)));
}

/// The clarifications `token` reads through `/api/<base>contests/wf/clarifications`, by text.
fn clarifications_by_text(d: &Daemon, base: &str, token: Option<&str>) -> BTreeMap<String, Value> {
    let (code, list) = d.get(&format!("/api/{base}contests/wf/clarifications"), token);
    assert_eq!(code, 200, "{list}");
    (list.as_array().expect("a list").iter())
        .map(|c| (c["text"].as_str().expect("text").to_string(), c.clone()))
        .collect()
}

/// An announcement to several teams or to a group (2026-01's `to_team_ids`, `to_group_ids`,
/// and ojd's own `teams` and `groups`) reaches those teams and the admins alone, says its
/// recipients in 2026-01, and in 2023-06 names the reader's own team.
#[test]
fn an_announcement_to_several_teams_or_a_group_reaches_them_alone() {
    require_root!();
    let contests = tempfile::tempdir().expect("temp dir");
    let site = Site::new(&format!(
        "contests = \"{}\"\nrate_limit_per_minute = 0\nfeed_settle = \"0s\"",
        contests.path().display()
    ));
    crate::contest_site::write_contest_file(
        contests.path(),
        "wf",
        ojd_store::now_ms() - 10 * 60_000,
        Some("2h"),
        "participants = [\"alice\", \"bob\", \"carol\"]\n\
         [[team]]\nuser = \"alice\"\ngroup = \"Students\"\n\
         [[team]]\nuser = \"bob\"\ngroup = \"Juniors\"\n\
         [[team]]\nuser = \"carol\"\ngroup = \"Students\"\n",
        &["aplusb".to_string()],
    );
    let d = site.start();
    let students = id_of(&d, "groups", "Students");
    let post = |body: Value| {
        let (code, r) = d.post_json(
            "/api/2026-01/contests/wf/clarifications",
            Some(ADMIN),
            &body,
        );
        assert_eq!(code, 201, "{body}: {r}");
        r
    };
    let r = post(json!({"to_team_ids": ["alice", "carol"], "text": "To two teams."}));
    assert_eq!(r["to_team_ids"], json!(["alice", "carol"]), "{r}");
    let r = post(json!({"to_group_ids": [students], "text": "To the students."}));
    assert_eq!(
        (&r["to_team_ids"], &r["to_group_ids"]),
        (&json!(["alice", "carol"]), &json!([students])),
        "{r}"
    );
    // ojd's own API by the group's name, to bob's group and carol.
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/wf/announcements",
        Some(ADMIN),
        &json!({"text": "To the juniors and carol.", "teams": ["carol"], "groups": ["Juniors"]}),
    );
    assert!(code == 200 || code == 201, "{r}");
    // Refused, each naming what is wrong; nothing published.
    for (body, says) in [
        (
            json!({"to_group_ids": ["nobody"], "text": "x"}),
            "to_group_ids",
        ),
        (json!({"to_team_ids": ["alice", "zed"], "text": "x"}), "zed"),
    ] {
        let (code, r) = d.post_json(
            "/api/2026-01/contests/wf/clarifications",
            Some(ADMIN),
            &body,
        );
        assert_eq!(code, 400, "{body}: {r}");
        assert!(r.to_string().contains(says), "{says} in {r}");
    }
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/wf/announcements",
        Some(ADMIN),
        &json!({"text": "x", "groups": ["Seniors"]}),
    );
    assert_eq!(code, 400, "{r}");
    assert!(r.to_string().contains("groups"), "{r}");

    let texts = |base: &str, token: Option<&str>| -> Vec<String> {
        clarifications_by_text(&d, base, token)
            .into_keys()
            .collect()
    };
    let all = [
        "To the juniors and carol.",
        "To the students.",
        "To two teams.",
    ];
    assert_eq!(texts("", Some(ADMIN)), all);
    assert_eq!(
        texts("", Some(crate::daemon::ALICE)),
        ["To the students.", "To two teams."]
    );
    assert_eq!(
        texts("", Some(crate::daemon::BOB)),
        ["To the juniors and carol."]
    );
    assert!(texts("", None).is_empty(), "the public reads none");
    // 2023-06 names the reader's own team; 2026-01 every recipient.
    let alice = clarifications_by_text(&d, "", Some(crate::daemon::ALICE));
    assert_eq!(alice["To two teams."]["to_team_id"], "alice");
    assert!(alice["To two teams."].get("to_team_ids").is_none());
    let bob = clarifications_by_text(&d, "2026-01/", Some(crate::daemon::BOB));
    let juniors = id_of(&d, "groups", "Juniors");
    assert_eq!(
        bob["To the juniors and carol."]["to_group_ids"],
        json!([juniors])
    );
    assert_eq!(
        bob["To the juniors and carol."]["to_team_ids"],
        json!(["carol", "bob"])
    );
    let admin = clarifications_by_text(&d, "2026-01/", Some(ADMIN));
    assert_eq!(admin["To two teams."]["to_group_ids"], Value::Null);
    // Every document still its release's.
    crate::ccs::check_endpoints_in(&d, "wf", Some(ADMIN));
    crate::ccs::check_endpoints_in(&d, "wf", Some(crate::daemon::ALICE));
}

/// Nodes (and requests) that notice the same roster change at once log it once: on
/// PostgreSQL, whose transactions read only what others committed, eight writers racing over
/// each of twenty contests' rosters leave one row per object, never two (it fails under `CI`
/// without PostgreSQL).
#[test]
fn writers_racing_over_the_roster_log_record_each_change_once_on_postgres() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    let store = ojd_store::open(&cluster.database()).expect("open the database");
    let present: Vec<ojd_store::RosterObject> = (0..6)
        .map(|i| {
            let id = format!("team{i}");
            let data = json!({"id": id, "name": format!("Team {i}")}).to_string();
            ("teams".to_string(), id, data)
        })
        .collect();
    for round in 0..20 {
        let contest = format!("race{round}");
        let barrier = std::sync::Barrier::new(8);
        std::thread::scope(|s| {
            for _ in 0..8 {
                s.spawn(|| {
                    barrier.wait();
                    store
                        .log_roster(&contest, &present, 1_000)
                        .expect("log the roster")
                });
            }
        });
        let log = store.roster_log(&contest).expect("read the log");
        assert_eq!(log.len(), present.len(), "{contest}: {log:?}");
    }
}
