//! The Contest API as a CDS or a resolver follows a contest run in ojd's web: the roster a
//! director imported there is the API's teams, organizations and groups (a team that never
//! submits too, an observer hidden), and the event feed is a faithful log through a host
//! fault (a daemon killed while judging) and a rejudging: a judgement it sent and that then
//! vanished gets its delete event, a replay sends exactly what was sent before, and the state
//! rebuilt from the events alone equals every endpoint. A finalized contest says
//! `end_of_updates`.

use std::collections::BTreeMap;

use serde_json::{json, Value};

use crate::ccs::{access_in, check_endpoints_in, check_feed, feed_of};
use crate::common::wait_until;
use crate::contest_site::ContestSite;
use crate::contests::rfc3339;
use crate::daemon::{Daemon, ADMIN, ALICE, JUDGED_WITHIN};

/// Every collection the feed and the endpoints share.
const COLLECTIONS: [&str; 11] = [
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
];

/// The objects a feed leaves: (type, id) -> data, deleted ones gone.
fn rebuild(events: &[Value]) -> BTreeMap<String, BTreeMap<String, Value>> {
    let mut out: BTreeMap<String, BTreeMap<String, Value>> = BTreeMap::new();
    for e in events {
        let ty = e["type"].as_str().expect("type").to_string();
        let id = e["id"].as_str().unwrap_or("").to_string();
        let objects = out.entry(ty).or_default();
        if e["data"].is_null() {
            assert!(
                objects.remove(&id).is_some(),
                "a delete event for an object never sent: {e}"
            );
        } else {
            objects.insert(id, e["data"].clone());
        }
    }
    out.retain(|_, objects| !objects.is_empty());
    out
}

/// What the endpoints answer, in the same shape.
fn endpoints(
    d: &Daemon,
    cid: &str,
    token: Option<&str>,
) -> BTreeMap<String, BTreeMap<String, Value>> {
    let mut out = BTreeMap::new();
    for ty in COLLECTIONS {
        if ty == "accounts" && token.is_none() {
            continue; // not the public's (a 401, checked by `check_endpoints_in`)
        }
        let (code, list) = d.get(&format!("/api/contests/{cid}/{ty}"), token);
        assert_eq!(code, 200, "{ty}: {list}");
        let objects: BTreeMap<String, Value> = list
            .as_array()
            .expect("a list")
            .iter()
            .map(|o| (o["id"].as_str().expect("id").to_string(), o.clone()))
            .collect();
        if !objects.is_empty() {
            out.insert(ty.to_string(), objects);
        }
    }
    let (_, v) = d.get(&format!("/api/contests/{cid}/state"), token);
    out.insert("state".into(), BTreeMap::from([(String::new(), v)]));
    let (_, v) = d.get(&format!("/api/contests/{cid}"), token);
    out.insert("contest".into(), BTreeMap::from([(String::new(), v)]));
    out
}

/// Waits until the feed alone rebuilds every endpoint (the verdicts of the judgings under
/// way are still to come), and returns that feed.
fn settled(d: &Daemon, cid: &str, token: Option<&str>) -> Vec<Value> {
    wait_until(JUDGED_WITHIN, || {
        let feed = feed_of(d, cid, token);
        let rebuilt = rebuild(&feed);
        let now = endpoints(d, cid, token);
        if rebuilt == now {
            Ok(feed)
        } else {
            Err(format!(
                "the feed never rebuilt the endpoints:\nfeed: {rebuilt:#?}\nendpoints: {now:#?}"
            ))
        }
    })
}

fn submit(d: &Daemon, token: &str, file: &str) -> i64 {
    let source = std::fs::read_to_string(crate::common::testdata(&format!(
        "aplusb/submissions/{file}"
    )))
    .expect("source");
    let body = json!({"problem": "aplusb", "language": "c", "source": source, "contest": "wf"});
    let (code, r) = d.post_json("/api/v1/submissions", Some(token), &body);
    assert_eq!(code, 201, "{file}: {r}");
    r["id"].as_i64().expect("id")
}

fn judgement_events(feed: &[Value], submission: i64) -> Vec<&Value> {
    let sid = submission.to_string();
    let mut ids: Vec<&Value> = Vec::new();
    for e in feed.iter().filter(|e| e["type"] == "judgements") {
        if e["data"]["submission_id"] == sid.as_str() {
            ids.push(&e["id"]);
        }
    }
    feed.iter()
        .filter(|e| e["type"] == "judgements" && ids.contains(&&e["id"]))
        .collect()
}

/// The Contest API tests' site: a `wf` contest that started ten minutes ago (`now`, whole
/// seconds, is returned) and runs two hours, alice and bob taking part (and `keys`), on a site
/// with `settings` (`feed_settle`, `standings_cache`).
pub(crate) fn wf_site(settings: &str, keys: &str) -> (ContestSite, i64) {
    let cs = ContestSite::builder().settings(settings).build();
    let now = ojd_store::now_ms() / 1000 * 1000;
    cs.contest("wf", now - 10 * 60_000)
        .lasting("2h")
        .keys(&format!("participants = [\"alice\", \"bob\"]\n{keys}"))
        .write();
    (cs, now)
}

/// The settings of a site whose feed and standings follow every change at once.
pub(crate) const AT_ONCE: &str = "standings_cache = \"0s\"\nfeed_settle = \"0s\"";

#[test]
fn the_webs_roster_and_a_faithful_feed_through_a_host_fault_and_a_rejudging() {
    require_root!();
    let (cs, now) = wf_site(AT_ONCE, "");
    // A contest over and finalized: nothing will change it.
    let finalized = now - 30 * 60_000;
    cs.contest("done", now - 3 * 3_600_000)
        .lasting("1h")
        .keys(&format!("finalized = \"{}\"", rfc3339(finalized)))
        .write();
    let site = &cs.site;
    let d = site.start();

    // The roster, imported in the web: carol never submits, bob observes.
    let roster = "user,name,affiliation,group,category\n\
                  alice,Team Alice,A University,Students,participant\n\
                  bob,Bob's Bunch,A University,,observer\n\
                  carol,Carol's,B College,Students,participant\n";
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/wf/teams",
        Some(ADMIN),
        &json!({ "roster": roster }),
    );
    assert_eq!(code, 200, "{r}");
    let public = check_endpoints_in(&d, "wf", None);
    let org = |name: &str| {
        public["organizations"]
            .iter()
            .find(|o| o["name"] == name)
            .unwrap_or_else(|| panic!("no organization {name}: {public:?}"))["id"]
            .clone()
    };
    let students = public["groups"]
        .iter()
        .find(|g| g["name"] == "Students")
        .expect("the group")["id"]
        .clone();
    let team = |id: &str| {
        public["teams"]
            .iter()
            .find(|t| t["id"] == id)
            .cloned()
            .unwrap_or_else(|| panic!("no team {id}: {:?}", public["teams"]))
    };
    assert_eq!(
        team("alice"),
        json!({"id": "alice", "name": "Team Alice", "label": "alice", "hidden": false,
               "organization_id": org("A University"), "group_ids": [students]})
    );
    assert_eq!(team("bob")["hidden"], true, "an observer is hidden");
    assert_eq!(team("bob")["organization_id"], org("A University"));
    assert_eq!(team("carol")["organization_id"], org("B College"));
    assert_eq!(public["teams"].len(), 3);
    // Every ranked team on the scoreboard, carol with nothing solved; the observer not.
    let (_, sb) = d.get("/api/contests/wf/scoreboard", None);
    let rows: Vec<&Value> = sb["rows"].as_array().expect("rows").iter().collect();
    let carol = rows
        .iter()
        .find(|r| r["team_id"] == "carol")
        .unwrap_or_else(|| panic!("carol is not on the scoreboard: {sb}"));
    assert_eq!(carol["score"]["num_solved"], 0);
    assert!(!rows.iter().any(|r| r["team_id"] == "bob"), "{sb}");
    let admin = check_endpoints_in(&d, "wf", Some(ADMIN));
    let accounts: Vec<&Value> = admin["accounts"]
        .iter()
        .filter(|a| a["type"] == "team")
        .collect();
    assert_eq!(accounts.len(), 3, "{accounts:?}");

    // A slow submission, the daemon killed while it is judged: the feed has sent its
    // judgement as started.
    let slow = submit(&d, ALICE, "time_limit_exceeded/sleep.c");
    let before = wait_until(JUDGED_WITHIN, || {
        let feed = feed_of(&d, "wf", Some(ADMIN));
        if judgement_events(&feed, slow).is_empty() {
            Err("the judging never started".to_string())
        } else {
            Ok(feed)
        }
    });
    let started = judgement_events(&before, slow)[0].clone();
    assert!(started["data"]["judgement_type_id"].is_null(), "{started}");
    assert_eq!(started["data"]["score"], 0);
    d.kill9();

    // Restarted: the judging is retried; then an accepted one is rejudged.
    let d = site.start();
    d.wait_done(slow, ALICE, JUDGED_WITHIN);
    let ac = submit(&d, ALICE, "accepted/ac.c");
    d.wait_done(ac, ALICE, JUDGED_WITHIN);
    let (code, r) = d.post_json(
        &format!("/api/v1/admin/submissions/{ac}/rejudge"),
        Some(ADMIN),
        &json!({}),
    );
    assert!(code == 200 || code == 202, "{code} {r}");
    wait_until(JUDGED_WITHIN, || {
        let judged = judgement_events(&feed_of(&d, "wf", Some(ADMIN)), ac)
            .iter()
            .filter(|e| e["data"]["judgement_type_id"] == "AC")
            .count();
        (judged >= 2)
            .then_some(())
            .ok_or_else(|| format!("the rejudging never came: {judged} AC judgement(s)"))
    });

    for token in [Some(ADMIN), None, Some(ALICE)] {
        let feed = settled(&d, "wf", token);
        check_feed(&feed, &access_in(&d, "wf", token));
        let slow_events = judgement_events(&feed, slow);
        // The abandoned judging: sent as started, then deleted; the retry's is the one left.
        let first = &slow_events[0];
        let gone: Vec<&&Value> = slow_events
            .iter()
            .filter(|e| e["id"] == first["id"] && e["data"].is_null())
            .collect();
        assert_eq!(gone.len(), 1, "{token:?}: {slow_events:#?}");
        let finished: Vec<&&Value> = slow_events
            .iter()
            .filter(|e| e["data"]["judgement_type_id"].is_string())
            .collect();
        assert_eq!(finished.len(), 1, "{slow_events:#?}");
        assert_ne!(finished[0]["id"], first["id"]);
        assert_eq!(finished[0]["data"]["judgement_type_id"], "TLE");
        if token == Some(ADMIN) {
            // A replay: what was sent before the fault, line for line, token for token.
            assert_eq!(
                &feed[..before.len()],
                &before[..],
                "a replay differs from what was streamed"
            );
        }
    }

    // A finalized contest: its last event is the state that says no more will come.
    let (_, state) = d.get("/api/contests/done/state", None);
    assert!(state["end_of_updates"].is_string(), "{state}");
    assert_eq!(state["end_of_updates"], state["finalized"], "{state}");
    let feed = feed_of(&d, "done", None);
    let last = feed.last().expect("events");
    assert_eq!((&last["type"], &last["data"]), (&json!("state"), &state));
    let (_, wf) = d.get("/api/contests/wf/state", None);
    assert!(wf["end_of_updates"].is_null(), "running: {wf}");
}

/// The feed holds every event until it is `feed_settle` old (the window in which another node
/// may still store an earlier one): with an hour's window, a judged submission is on the
/// endpoints but not yet on the feed, whose setup (the contest, its problems) is sent at once.
#[test]
fn the_feed_holds_events_until_they_are_settle_old() {
    require_root!();
    let (cs, _) = wf_site("feed_settle = \"1h\"", "");
    let d = cs.start();
    let id = submit(&d, ALICE, "accepted/ac.c");
    d.wait_done(id, ALICE, JUDGED_WITHIN);
    let (code, subs) = d.get("/api/contests/wf/submissions", Some(ADMIN));
    assert_eq!(code, 200, "{subs}");
    assert!(
        subs.as_array()
            .expect("a list")
            .iter()
            .any(|s| s["id"] == id.to_string().as_str()),
        "the endpoint lists the submission: {subs}"
    );
    let feed = feed_of(&d, "wf", Some(ADMIN));
    assert!(feed.iter().any(|e| e["type"] == "contest"), "{feed:?}");
    assert!(feed.iter().any(|e| e["type"] == "problems"), "{feed:?}");
    assert!(
        !feed
            .iter()
            .any(|e| ["submissions", "judgements", "runs"]
                .contains(&e["type"].as_str().unwrap_or(""))),
        "nothing younger than the settle window is sent: {feed:?}"
    );
    // The start, ten minutes ago, is within the hour too: the only state sent is the setup's
    // (nothing started). With the 2 s default it would have been sent long ago.
    let states: Vec<&Value> = feed.iter().filter(|e| e["type"] == "state").collect();
    assert!(!states.is_empty(), "{feed:?}");
    assert!(
        states.iter().all(|e| e["data"]["started"].is_null()),
        "the start's state is held: {states:?}"
    );
}

/// A scheduled unfreeze (DOMjudge's "unfreeze time"): a director sets a time through the
/// clock API and leaves; until then the freeze holds on the standings page, the standings API,
/// the Contest API's scoreboard, state and judgements and on the public feed; from then on
/// each of them shows the frozen result with no one pressing a button, and the feed says the
/// contest thawed at that time. A time in the past or before the freeze is refused, a time
/// that is no time names the field, and the schedule is audited.
#[test]
fn a_scheduled_unfreeze_holds_the_freeze_until_its_time_then_thaws_everywhere() {
    require_root!();
    let cs = crate::contest_site::ContestSite::builder()
        .settings("standings_cache = \"0s\"\nfeed_settle = \"0s\"")
        .build();
    let clock = crate::common::TestClock::new();
    // Started 90 minutes ago, 2 hours long, frozen for the last hour: frozen 30 minutes ago.
    let start = clock.now_ms() / 1000 * 1000 - 90 * 60_000;
    cs.contest("wf", start)
        .lasting("2h")
        .keys("freeze = \"1h\"\nparticipants = [\"alice\", \"bob\"]")
        .write();
    let d = clock.start(&cs.site);
    let source =
        std::fs::read_to_string(crate::common::testdata("aplusb/submissions/accepted/ac.c"))
            .expect("source");
    let (code, r) = d.post_json(
        "/api/v1/submissions",
        Some(ALICE),
        &json!({"problem": "aplusb", "language": "c", "source": source, "contest": "wf"}),
    );
    assert_eq!(code, 201, "{r}");
    let sid = r["id"].as_i64().expect("id");
    d.wait_done(sid, ALICE, JUDGED_WITHIN);

    let schedule = |at: &str| {
        d.post_json(
            "/api/v1/admin/contests/wf/clock",
            Some(ADMIN),
            &json!({"action": "unfreeze_at", "at": at}),
        )
    };
    let (code, r) = schedule("at five");
    assert!(
        code == 400 && r.to_string().contains("field `at`"),
        "{code} {r}"
    );
    let (code, r) = schedule(&rfc3339(clock.now_ms() - 60_000));
    assert_eq!(code, 409, "a time gone by: {r}");
    let at = (clock.now_ms() / 1000 + 600) * 1000;
    let (code, r) = schedule(&rfc3339(at));
    assert_eq!(code, 200, "{r}");
    let (_, audit) = d.get("/api/v1/admin/audit?contest=wf", Some(ADMIN));
    assert!(audit.to_string().contains("unfreeze scheduled"), "{audit}");

    // What the public sees of alice's solve, everywhere it could show.
    let solved_everywhere = |d: &Daemon| -> Vec<bool> {
        let (_, sb) = d.get("/api/contests/wf/scoreboard", None);
        let api = sb["rows"]
            .as_array()
            .into_iter()
            .flatten()
            .any(|r| r["team_id"] == "alice" && r["score"]["num_solved"] == 1);
        let (_, st) = d.get("/api/v1/contests/wf/standings", None);
        let standings = st.to_string().contains("\"solved\":1");
        let (_, judgements) = d.get("/api/contests/wf/judgements", None);
        let judged = judgements.as_array().is_some_and(|j| !j.is_empty());
        let (_, page) = d.get_text("/contests/wf/standings", None);
        let page = page.contains("class=\"cell first") || page.contains("class=\"cell solved");
        let feed = feed_of(d, "wf", None);
        let fed = feed.iter().any(|e| e["type"] == "judgements");
        vec![api, standings, judged, page, fed]
    };
    assert_eq!(
        solved_everywhere(&d),
        vec![false; 5],
        "frozen before the scheduled time"
    );
    let (_, state) = d.get("/api/contests/wf/state", None);
    assert!(state["thawed"].is_null(), "{state}");
    let (_, clock_now) = d.get("/api/v1/contests/wf", Some(ADMIN));
    assert!(
        clock_now.to_string().contains(&at.to_string()),
        "the schedule is shown: {clock_now}"
    );

    // The time comes: nobody presses anything.
    clock.advance_to(at + 1000);
    wait_until(JUDGED_WITHIN, || {
        let seen = solved_everywhere(&d);
        if seen == vec![true; 5] {
            Ok(())
        } else {
            Err(format!("not thawed everywhere: {seen:?}"))
        }
    });
    let (_, state) = d.get("/api/contests/wf/state", None);
    assert_eq!(state["thawed"], json!(rfc3339_ms(at)), "{state}");
    let feed = feed_of(&d, "wf", None);
    assert!(
        feed.iter()
            .any(|e| e["type"] == "state" && e["data"]["thawed"] == json!(rfc3339_ms(at))),
        "the feed says when it thawed"
    );
}

/// `ms` as the Contest API writes a TIME (milliseconds, the offset as `+00:00`'s `Z`).
fn rfc3339_ms(ms: i64) -> String {
    let t =
        time::OffsetDateTime::from_unix_timestamp_nanos(i128::from(ms) * 1_000_000).expect("time");
    format!(
        "{:04}-{:02}-{:02}T{:02}:{:02}:{:02}.{:03}Z",
        t.year(),
        u8::from(t.month()),
        t.day(),
        t.hour(),
        t.minute(),
        t.second(),
        t.millisecond()
    )
}
