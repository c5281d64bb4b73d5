//! One visibility policy on every channel: for each kind of viewer (anonymous, a student, a
//! team in a frozen contest, the contest's jury account, an admin), what the JSON API, the
//! submissions list, the live event stream, the submission's page and the Contest API show of
//! the same submissions agree with each other and with the policy the service applies once.

use std::collections::BTreeSet;

use serde_json::Value;

use crate::contest_site::ContestSite;
use crate::contests::{now_ms, submit};
use crate::daemon::{Daemon, ADMIN, ALICE, BOB, JUDGED_WITHIN};

/// Everything one viewer gets for one submission, channel by channel.
struct Channels {
    api: (u16, Value),
    /// The submission's row in the viewer's list (`None`: not listed).
    row: Option<Value>,
    /// The event stream's status, and its `done` event when it opened.
    events: (u16, Option<Value>),
    page: (u16, String),
}

fn channels(d: &Daemon, id: i64, token: Option<&str>, owner: &str) -> Channels {
    let api = d.get(&format!("/api/v1/submissions/{id}"), token);
    // An admin lists the owner's submissions; a student lists their own.
    let list = match token {
        Some(ADMIN) => d.get(&format!("/api/v1/submissions?user={owner}"), token),
        _ => d.get("/api/v1/submissions", token),
    };
    let row = (list.0 == 200)
        .then(|| {
            list.1
                .as_array()
                .expect("a list")
                .iter()
                .find(|r| r["id"] == id)
                .cloned()
        })
        .flatten();
    let (code, _) = d.get(&format!("/api/v1/submissions/{id}/events"), token);
    let events = match (code, token) {
        (200, Some(t)) => {
            let all = d.events(id, t, JUDGED_WITHIN);
            let done = all.into_iter().find(|(name, _)| name == "done");
            (200, Some(done.expect("a done event").1))
        }
        _ => (code, None),
    };
    let page = d.get_text(&format!("/submissions/{id}"), token);
    Channels {
        api,
        row,
        events,
        page,
    }
}

/// Asserts that `c` is "no such submission" for this viewer on every channel.
fn hidden(c: &Channels, id: i64, status: u16, who: &str) {
    assert_eq!(c.api.0, status, "{who}: API {}", c.api.1);
    assert!(c.row.is_none(), "{who}: listed {:?}", c.row);
    assert_eq!(c.events.0, status, "{who}: event stream");
    // The page: an error page, or the login page for an anonymous viewer.
    assert!(
        !c.page.1.contains(&format!("/submissions/{id}/source")),
        "{who}: page {}",
        c.page.1
    );
    assert!(!c.page.1.contains("judged-by"), "{who}: page");
}

/// Asserts that every channel shows `c`'s submission alike: the verdict, and the judging host
/// exactly when `operator`.
fn shown(c: &Channels, operator: bool, who: &str) {
    let (code, api) = &c.api;
    assert_eq!(*code, 200, "{who}: API {api}");
    let row = c
        .row
        .as_ref()
        .unwrap_or_else(|| panic!("{who}: not listed"));
    let done = c
        .events
        .1
        .as_ref()
        .unwrap_or_else(|| panic!("{who}: no stream"));
    assert_eq!(c.page.0, 200, "{who}: page");
    assert!(c.page.1.contains("/source"), "{who}: page {}", c.page.1);
    for (channel, v) in [("API", api), ("list", row), ("done event", done)] {
        assert_eq!(v["verdict"], "WA", "{who}: {channel} {v}");
        assert_eq!(
            v["judged_by"].is_string(),
            operator,
            "{who}: the judging host on the {channel}: {v}"
        );
    }
    assert_eq!(
        c.page.1.contains("id=\"judged-by\""),
        operator,
        "{who}: the judging host on the page"
    );
}

/// The judgement ids and the number of runs of each that the Contest API gives `token`.
fn contest_api(d: &Daemon, token: Option<&str>) -> (BTreeSet<String>, Vec<(String, usize)>) {
    let (code, judgements) = d.get("/api/contests/c/judgements", token);
    assert_eq!(code, 200, "{judgements}");
    let (code, runs) = d.get("/api/contests/c/runs", token);
    assert_eq!(code, 200, "{runs}");
    let runs = runs.as_array().expect("runs");
    let mut out = Vec::new();
    let mut finished = BTreeSet::new();
    for j in judgements.as_array().expect("judgements") {
        if j["judgement_type_id"].is_null() {
            continue;
        }
        let sub = j["submission_id"].as_str().expect("an id").to_string();
        let n = runs.iter().filter(|r| r["judgement_id"] == j["id"]).count();
        finished.insert(sub.clone());
        out.push((sub, n));
    }
    (finished, out)
}

/// The tests a viewer's API shows that the Contest API has runs for (skipped ones have none).
fn tests_run(api: &Value) -> usize {
    api["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter(|t| t["verdict"] != "skipped" && t["verdict"] != "SK")
        .count()
}

#[test]
fn every_channel_shows_each_viewer_what_the_one_policy_allows() {
    require_root!();
    let cs = ContestSite::new();
    // Running for 100 minutes of 2 hours, frozen for its last hour (since 40 minutes); alice a
    // team, bob the jury's account; participants see up to their first failing test.
    cs.contest("c", now_ms() - 100 * 60_000)
        .lasting("2h")
        .keys(
            "freeze = \"1h\"\nfeedback = \"first_failure\"\n\
             [[team]]\nuser = \"alice\"\n[[team]]\nuser = \"bob\"\ncategory = \"jury\"",
        )
        .write();
    let d = cs.start();
    let wa = "wrong_answer/wa_second_line.c";
    let mut ids = Vec::new();
    for token in [ALICE, BOB] {
        let (code, body) = submit(&d, token, Some("c"), "aplusb", wa);
        assert_eq!(code, 201, "{body}");
        let id = body["id"].as_i64().expect("an id");
        d.wait_done(id, ADMIN, JUDGED_WITHIN);
        ids.push(id);
    }
    let (alices, bobs) = (ids[0], ids[1]);

    // Anonymous: no submission exists.
    for id in [alices, bobs] {
        hidden(&channels(&d, id, None, "alice"), id, 401, "anonymous");
    }
    // A team in the frozen contest: its own, without the judging host, up to the first
    // failure; the jury's is not found.
    let own = channels(&d, alices, Some(ALICE), "alice");
    shown(&own, false, "alice");
    assert_eq!(own.api.1["feedback"], "first_failure", "{}", own.api.1);
    hidden(
        &channels(&d, bobs, Some(ALICE), "bob"),
        bobs,
        404,
        "alice on bob's",
    );
    // The jury's account: a team that is never ranked, under the same policy.
    let jury = channels(&d, bobs, Some(BOB), "bob");
    shown(&jury, false, "bob");
    assert_eq!(jury.api.1["feedback"], "first_failure", "{}", jury.api.1);
    hidden(
        &channels(&d, alices, Some(BOB), "alice"),
        alices,
        404,
        "bob on alice's",
    );
    // An admin: everything, the judging host included, every test.
    let all = channels(&d, alices, Some(ADMIN), "alice");
    shown(&all, true, "admin");
    assert!(all.api.1.get("feedback").is_none(), "{}", all.api.1);
    assert!(tests_run(&all.api.1) >= tests_run(&own.api.1));

    // The Contest API: a team sees its own verdict during the freeze, with the runs its page
    // shows; not one made during the freeze by another; the public sees none of them.
    let (seen, runs) = contest_api(&d, Some(ALICE));
    assert_eq!(seen, BTreeSet::from([alices.to_string()]), "{runs:?}");
    assert_eq!(runs, [(alices.to_string(), tests_run(&own.api.1))]);
    let (seen, _) = contest_api(&d, None);
    assert!(seen.is_empty(), "the public during the freeze: {seen:?}");
    let (seen, _) = contest_api(&d, Some(ADMIN));
    assert!(seen.contains(&alices.to_string()), "{seen:?}");
}
