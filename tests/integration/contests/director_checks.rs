//! What a director relies on, over HTTP with the real daemon: every rostered team ranked
//! (nothing solved: a row, "Honorable" in results.tsv), the standings filtered by
//! affiliation or group, an announcement to a team that does
//! not exist refused, a burst of questions held to the limit, every jury action in the
//! contest's audit view (announcements, claims, answers, balloons, a rejudging's apply) and
//! reloads in the audit log, balloons with their colour (kept through `ojd contest export` and
//! `import`), and the new-contest form with a row for every problem.

use serde_json::json;

use super::{message, submit, wait_rejudged};
use crate::contest_site::ContestSite;
use crate::daemon::{ADMIN, ALICE, BOB, JUDGED_WITHIN};

#[test]
fn a_director_sees_every_team_ranked_and_every_jury_action_audited() {
    require_root!();
    let cs = ContestSite::new();
    for p in ["second", "third", "fourth", "fifth"] {
        cs.copy_problem(p);
    }
    let now = ojd_store::now_ms();
    let teams = "[[team]]\nuser = \"alice\"\nname = \"Rocket\"\naffiliation = \"KTH\"\n\
                 [[team]]\nuser = \"bob\"\nname = \"Comet\"\ngroup = \"Juniors\"\n\
                 [[team]]\nuser = \"zed\"\nname = \"Quiet\"\naffiliation = \"KTH\"\n\
                 [[team]]\nuser = \"olga\"\nname = \"Watcher\"\ncategory = \"observer\"\n\
                 [[problem]]\nid = \"aplusb\"\ncolor = \"#ff0000\"\n";
    cs.contest("club", now - 600_000)
        .lasting("1h")
        .keys(teams)
        .problems(&[])
        .write();
    let clock = crate::common::TestClock::new();
    let d = clock.start(&cs.site);
    let (code, a) = submit(&d, ALICE, Some("club"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{a}");
    let sid = a["id"].as_i64().expect("id");
    d.wait_done(sid, ALICE, JUDGED_WITHIN);

    // Every rostered team has a row, solved or not; the observer none.
    let (_, s) = d.get("/api/v1/contests/club/standings", None);
    let rows: Vec<(String, i64)> = (s["rows"].as_array().expect("rows").iter())
        .map(|r| {
            let user = r["user"].as_str().unwrap_or("").to_string();
            (user, r["solved"].as_i64().unwrap_or(-1))
        })
        .collect();
    assert_eq!(
        rows,
        [("alice".into(), 1), ("bob".into(), 0), ("zed".into(), 0)],
        "{s}"
    );
    let (_, page) = d.get_text("/contests/club/standings", None);
    assert!(
        page.contains("Quiet") && page.contains("<th>Team</th>"),
        "{page}"
    );
    // The filters: one affiliation, one group; each row keeps its rank.
    let shown = |query: &str| {
        let (code, t) = d.get_text(&format!("/contests/club/standings/table{query}"), None);
        assert_eq!(code, 200, "{t}");
        ["alice", "bob", "zed"]
            .into_iter()
            .filter(|u| t.contains(&format!("data-user=\"{u}\"")))
            .collect::<Vec<_>>()
    };
    assert_eq!(shown(""), ["alice", "bob", "zed"]);
    assert_eq!(shown("?affiliation=KTH"), ["alice", "zed"]);
    assert_eq!(shown("?group=Juniors"), ["bob"]);
    let (_, page) = d.get_text("/contests/club/standings?group=Juniors", None);
    assert!(
        page.contains("id=\"standings-filter\"")
            && page.contains("data-live=\"/contests/club/standings/table?group=Juniors\""),
        "{page}"
    );

    // An announcement to nobody is refused and not published; to a team it is.
    let announce = |team: &str| {
        d.post_json(
            "/api/v1/admin/contests/club/announcements",
            Some(ADMIN),
            &json!({"text": "Your printout is ready.", "team": team}),
        )
    };
    let (code, e) = announce("nobody");
    assert_eq!(code, 400, "{e}");
    assert!(message(&e).contains("\"nobody\" is not a team"), "{e}");
    let (code, r) = announce("zed");
    assert_eq!(code, 201, "{r}");
    let (_, all) = d.get("/api/v1/contests/club/clarifications", Some(ADMIN));
    assert_eq!(all.as_array().map(Vec::len), Some(1), "{all}");

    // Eight questions at once: five get through, whatever the interleaving.
    let codes: Vec<u16> = std::thread::scope(|s| {
        let asks: Vec<_> = (0..8)
            .map(|i| {
                let d = &d;
                s.spawn(move || {
                    let body = json!({"text": format!("Question {i}?")});
                    d.post_json("/api/v1/contests/club/clarifications", Some(BOB), &body)
                        .0
                })
            })
            .collect();
        asks.into_iter().map(|t| t.join().expect("ask")).collect()
    });
    let accepted = codes.iter().filter(|c| **c == 201).count();
    assert_eq!(
        (accepted, codes.iter().filter(|c| **c == 409).count()),
        (5, 3),
        "{codes:?}"
    );

    // The jury's actions, each audited under the contest.
    let (_, all) = d.get("/api/v1/contests/club/clarifications", Some(ADMIN));
    let q = (all.as_array().expect("clarifications").iter())
        .find(|c| c["user"] == "bob")
        .and_then(|c| c["id"].as_i64())
        .expect("a question");
    let (code, r) = d.post_json(
        &format!("/api/v1/admin/clarifications/{q}/claim"),
        Some(ADMIN),
        &json!({"claim": true}),
    );
    assert_eq!(code, 200, "{r}");
    let (code, r) = d.post_json(
        &format!("/api/v1/admin/clarifications/{q}/answer"),
        Some(ADMIN),
        &json!({"answer": "Yes.", "public": true}),
    );
    assert_eq!(code, 200, "{r}");
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/club/balloons",
        Some(ADMIN),
        &json!({"user": "alice", "problem": "A", "done": true}),
    );
    assert_eq!(code, 200, "{r}");
    let (code, r) = d.post_json(
        "/api/v1/admin/rejudgings",
        Some(ADMIN),
        &json!({"contest": "club"}),
    );
    assert_eq!(code, 201, "{r}");
    let rid = r["id"].as_i64().expect("rejudging id");
    wait_rejudged(&d, rid);
    let (code, r) = d.post_json(
        &format!("/api/v1/admin/rejudgings/{rid}/apply"),
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 200, "{r}");
    let (code, _) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
    assert_eq!(code, 200);
    let (_, log) = d.get("/api/v1/admin/audit?contest=club", Some(ADMIN));
    let actions: Vec<&str> = (log.as_array().expect("audit").iter())
        .filter_map(|e| e["action"].as_str())
        .collect();
    assert_eq!(
        actions,
        [
            "rejudging-apply",
            "rejudging",
            "balloon",
            "answer",
            "claim",
            "announce"
        ],
        "{log}"
    );
    let text = log.to_string();
    assert!(
        text.contains("announcement") && text.contains("to team zed"),
        "{log}"
    );
    assert!(text.contains("answered to everyone: Yes."), "{log}");
    let (_, all_log) = d.get("/api/v1/admin/audit", Some(ADMIN));
    assert_eq!(all_log[0]["action"], "reload", "{all_log}");
    assert!(
        (all_log[0]["detail"].as_str()).is_some_and(|t| t.contains("reloaded 5 problems")),
        "{all_log}"
    );

    // The balloon has the problem's colour.
    let (_, page) = d.get_text("/contests/club/balloons", Some(ADMIN));
    assert!(page.contains("data-color=\"#ff0000\""), "{page}");

    // The new-contest form offers a row for each of the five problems at once.
    let (code, page) = d.get_text("/admin/contests/new", Some(ADMIN));
    assert_eq!(code, 200, "{page}");
    assert_eq!(page.matches("<select name=\"problem_").count(), 5, "{page}");

    // Final: the teams that solved nothing are "Honorable" in results.tsv. (End now rounds
    // down to a whole second: the daemon's clock moves past the next one first.)
    clock.advance(1100);
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/club/clock",
        Some(ADMIN),
        &json!({"action": "end_now"}),
    );
    assert_eq!(code, 200, "{r}");
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/club/finalize",
        Some(ADMIN),
        &json!({"confirm": ["unanswered"]}),
    );
    assert_eq!(code, 200, "{r}");
    let (code, tsv) = d.get_text("/api/v1/contests/club/results.tsv", None);
    assert_eq!(code, 200, "{tsv}");
    for team in ["bob", "zed"] {
        assert!(
            tsv.lines()
                .any(|l| l.starts_with(&format!("{team}\t\tHonorable\t0"))),
            "{tsv}"
        );
    }
    assert!(!tsv.contains("olga"), "{tsv}");

    // The package keeps the problem's colour, and so does the contest imported from it.
    let ojd = |args: &[&str]| {
        let out = crate::common::ojd()
            .args(args)
            .arg("--config")
            .arg(cs.path().join("config.toml"))
            .output()
            .expect("ojd runs");
        crate::common::Run::from(out)
    };
    let out = cs.path().join("club-package");
    let r = ojd(&[
        "contest",
        "export",
        "club",
        "--to",
        &out.display().to_string(),
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let problems = std::fs::read_to_string(out.join("problems.yaml")).expect("problems.yaml");
    assert!(problems.contains("#ff0000"), "{problems}");
    // The command line's import refuses while a daemon holds the database (the admin page
    // imports then): the daemon stops first.
    drop(d);
    let r = ojd(&[
        "contest",
        "import",
        &out.display().to_string(),
        "--id",
        "again",
    ]);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    let again = std::fs::read_to_string(cs.file("again")).expect("contest.toml");
    assert!(again.contains("color = \"#ff0000\""), "{again}");
}
