//! Contests: standings on hand-made histories through the store (every backend), rejudgings
//! applied and cancelled in the store, and the whole contest over HTTP with the real daemon:
//! the clock's rules, freeze and unfreeze, clarifications, and a rejudging after an answer
//! file is corrected.

mod director_checks;

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use ojd_judge::{JudgeReport, Verdict};
use ojd_service::contest::standings::{self, Attempt, Judged, Standings};
use ojd_service::contest::{Contest, ContestProblem, Participants, Scoring};
use ojd_store::RejudgingState;
use ojd_store::{NewSubmission, SqliteStore, Store, StoreError};

use crate::common;
use crate::contest_site::ContestSite;
use crate::daemon::{ADMIN, ALICE, BOB, JUDGED_WITHIN};

const START: i64 = 1_800_000_000_000;

fn contest() -> Contest {
    Contest {
        id: "c".into(),
        dir: Default::default(),
        title: "t".into(),
        start_ms: START,
        utc_offset_s: 0,
        duration: Duration::from_secs(5 * 3600),
        freeze: Some(Duration::from_secs(3600)),
        scoring: Scoring::Icpc,
        penalty_minutes: 20,
        compile_errors_count: false,
        problems: ["pa", "pb"]
            .iter()
            .enumerate()
            .map(|(i, p)| ContestProblem {
                label: ((b'A' + i as u8) as char).to_string(),
                problem: p.to_string(),
                color: None,
            })
            .collect(),
        participants: Participants::Anyone,
        public_standings: true,
        teams: Vec::new(),
        awards: Default::default(),
        finalized_ms: None,
        feedback: Default::default(),
    }
}

fn report(problem: &str, verdict: Verdict) -> JudgeReport {
    let mut r = JudgeReport::new(problem, "c", verdict, Vec::new());
    r.score = if verdict == Verdict::Accepted { 100 } else { 0 };
    r
}

/// Judges everything queued, giving each submission the verdict `verdict_of` says.
fn judge_all(s: &dyn Store, verdict_of: impl Fn(i64) -> Verdict) {
    while let Some(c) = s.claim("test", START, START + 600_000).expect("claim") {
        let r = report(&c.problem, verdict_of(c.id));
        assert!(s.finish(c.id, c.attempt, &r, "", START).expect("finish"));
    }
}

/// The standings from the store's current judgings, as the daemon builds them.
fn standings_of(s: &dyn Store, c: &Contest, hide: Option<i64>) -> Standings {
    let attempts: Vec<Attempt> = s
        .standings_input(&c.id)
        .expect("standings input")
        .into_iter()
        .map(|i| Attempt {
            id: i.id,
            user: i.user,
            problem: i.problem,
            at_ms: i.queued_at,
            result: i.verdict.map(|verdict| Judged {
                verdict,
                score_milli: i.score_milli.unwrap_or(0),
                groups: Vec::new(),
            }),
        })
        .collect();
    standings::compute(c, &attempts, &[], hide)
}

fn table(s: &Standings) -> String {
    s.rows
        .iter()
        .map(|r| {
            let cells: Vec<String> = r
                .cells
                .iter()
                .map(|c| {
                    let mut t = match (c.solved, c.tries) {
                        (true, 0) => format!("+@{}", c.minute.unwrap_or(0)),
                        (true, t) => format!("+{t}@{}", c.minute.unwrap_or(0)),
                        (false, 0) => String::new(),
                        (false, t) => format!("-{t}"),
                    };
                    if c.pending > 0 {
                        t.push_str(&format!("?{}", c.pending));
                    }
                    if t.is_empty() {
                        t.push('.');
                    }
                    t
                })
                .collect();
            format!(
                "{} {} {} {} | {}\n",
                r.rank,
                r.user,
                r.solved,
                r.penalty,
                cells.join(" ")
            )
        })
        .collect()
}

fn sub(user: &str, problem: &str) -> NewSubmission {
    NewSubmission {
        user: user.into(),
        problem: problem.into(),
        language: "c".into(),
        source: b"int main(){}".to_vec(),
    }
}

fn minute(m: i64) -> i64 {
    START + m * 60_000
}

/// Standings on a hand-made history stored through `s`, then a rejudging applied and one
/// cancelled.
fn store_suite(s: &dyn Store) {
    let c = contest();
    let plan = [
        ("alice", "pa", 10, Verdict::WrongAnswer),
        ("alice", "pa", 25, Verdict::Accepted),
        ("alice", "pb", 30, Verdict::CompileError),
        ("alice", "pb", 40, Verdict::Accepted),
        ("bob", "pa", 20, Verdict::Accepted),
        ("bob", "pb", 35, Verdict::WrongAnswer),
        ("bob", "pb", 250, Verdict::Accepted), // after the freeze
        ("carol", "pb", 50, Verdict::WrongAnswer),
    ];
    let mut ids = Vec::new();
    for (user, problem, m, _) in plan {
        ids.push(
            s.insert_in_contest(&sub(user, problem), "c", minute(m))
                .expect("insert"),
        );
    }
    // Outside the contest: never on its standings.
    s.insert(&sub("dave", "pa"), minute(30)).expect("insert");
    let verdict_of = |id: i64| {
        ids.iter()
            .position(|i| *i == id)
            .map_or(Verdict::Accepted, |k| plan[k].3)
    };
    judge_all(s, verdict_of);
    assert_eq!(
        s.contest_of(ids[0]).expect("contest_of").as_deref(),
        Some("c")
    );

    let admin = standings_of(s, &c, None);
    assert_eq!(
        table(&admin),
        "\
1 alice 2 85 | +1@25 +@40
2 bob 2 290 | +@20 +1@250
3 carol 0 0 | . -1
"
    );
    let student = standings_of(s, &c, c.freeze_ms());
    assert_eq!(
        table(&student),
        "\
1 alice 2 85 | +1@25 +@40
2 bob 1 20 | +@20 -1?1
3 carol 0 0 | . -1
"
    );

    // The answer to pa was wrong: alice's first try was right after all. Rejudge pa.
    let pa: Vec<i64> = s
        .select_for_rejudging(&ojd_store::RejudgeFilter {
            problem: Some("pa".into()),
            contest: Some("c".into()),
            ..Default::default()
        })
        .expect("select");
    assert_eq!(pa, [ids[0], ids[1], ids[4]]);
    let r = s
        .create_rejudging("{\"problem\":\"pa\"}", "admin", &pa, false, START)
        .expect("create");
    let info = s.rejudging(r).expect("read").expect("exists");
    assert_eq!(
        (info.state, info.total, info.judged),
        (RejudgingState::Open, 3, 0)
    );
    // One judged so far: apply is refused, students still see the old verdicts.
    let first = s
        .claim("test", START, START + 600_000)
        .expect("claim")
        .expect("queued");
    assert_eq!(first.rejudging, Some(r));
    assert!(s
        .finish(
            first.id,
            first.attempt,
            &report("pa", Verdict::Accepted),
            "",
            START
        )
        .expect("finish"));
    assert!(matches!(
        s.apply_rejudging(r, "admin", START),
        Err(StoreError::Conflict(_))
    ));
    judge_all(s, |_| Verdict::Accepted);
    assert_eq!(
        s.info(ids[0]).expect("info").expect("exists").verdict,
        Some(Verdict::WrongAnswer),
        "not applied yet"
    );
    assert_eq!(table(&standings_of(s, &c, None)), table(&admin));
    let items = s.rejudging_items(r).expect("items");
    assert!(
        items
            .iter()
            .all(|i| i.before.is_some() && i.after.is_some()),
        "{items:?}"
    );
    assert_eq!(s.apply_rejudging(r, "admin", START).expect("apply"), 3);
    assert_eq!(
        s.info(ids[0]).expect("info").expect("exists").verdict,
        Some(Verdict::Accepted)
    );
    assert_eq!(
        table(&standings_of(s, &c, None)),
        "\
1 alice 2 50 | +@10 +@40
2 bob 2 290 | +@20 +1@250
3 carol 0 0 | . -1
"
    );
    assert!(matches!(
        s.apply_rejudging(r, "admin", START),
        Err(StoreError::Conflict(_))
    ));
    assert!(matches!(
        s.cancel_rejudging(r, "admin", START),
        Err(StoreError::Conflict(_))
    ));

    // A rejudging cancelled before it is judged: the queue forgets it, nothing changes.
    let r2 = s
        .create_rejudging("{}", "admin", &[ids[7]], false, START)
        .expect("create");
    s.cancel_rejudging(r2, "admin", START).expect("cancel");
    assert!(
        s.claim("test", START, START + 600_000)
            .expect("claim")
            .is_none(),
        "cancelled work left the queue"
    );
    let carol = s.info(ids[7]).expect("info").expect("exists");
    assert_eq!(
        (carol.verdict, carol.state),
        (Some(Verdict::WrongAnswer), ojd_store::State::Done)
    );
    assert!(matches!(
        s.apply_rejudging(r2, "admin", START),
        Err(StoreError::Conflict(_))
    ));
    let info = s.rejudging(r2).expect("read").expect("exists");
    assert_eq!(info.state, RejudgingState::Cancelled);

    // Freeze state and clarifications.
    assert_eq!(s.freeze_change("c").expect("freeze"), None);
    s.set_freeze_by("c", true, "admin", START)
        .expect("unfreeze");
    assert!(s
        .freeze_change("c")
        .expect("freeze")
        .is_some_and(|f| f.unfrozen));
    let clar = |user, problem, category, text| ojd_store::NewClarification {
        user,
        problem,
        category,
        to_user: None,
        text,
    };
    let q = (s.add_clarification_to(
        "c",
        &clar(Some("alice"), Some("pa"), "problem", "Is n >= 1?"),
        START,
    ))
    .expect("ask");
    let a = (s.add_clarification_to("c", &clar(None, None, "general", "Ten minutes left"), START))
        .expect("announce");
    assert!(s
        .answer_clarification(q, "Yes.", true, "admin", START)
        .expect("answer"));
    assert!(!s
        .answer_clarification(a, "no", false, "admin", START)
        .expect("answer"));
    let all = s.clarifications("c").expect("list");
    assert_eq!(all.len(), 2);
    assert_eq!(
        (all[1].answer.as_deref(), all[1].public),
        (Some("Yes."), true)
    );
    assert!(all[0].public && all[0].user.is_none());

    auto_apply_suite(s, &ids);
}

/// A rejudging made with `auto_apply` (the admin's "rejudge" buttons): students see the old
/// verdicts until its last judging is stored, then all the new ones at once, and it is closed
/// as applied by its creator; overlapping and empty rejudgings are refused, with nothing
/// recorded.
fn auto_apply_suite(s: &dyn Store, ids: &[i64]) {
    let verdict = |id: i64| s.info(id).expect("info").expect("exists").verdict;
    // bob's pb tries: WA, AC.
    let pair = [ids[5], ids[6]];
    assert_eq!(
        (verdict(pair[0]), verdict(pair[1])),
        (Some(Verdict::WrongAnswer), Some(Verdict::Accepted))
    );
    let before = s.rejudgings().expect("list").len();
    let r = s
        .create_rejudging("{\"problem\":\"pb\"}", "root", &pair, true, START)
        .expect("create");
    let info = s.rejudging(r).expect("read").expect("exists");
    assert_eq!(
        (info.auto_apply, info.state, info.total, info.judged),
        (true, RejudgingState::Open, 2, 0)
    );
    // A second rejudging over one of them is refused while this one is open, and records nothing.
    let refused = s.create_rejudging("{}", "root", &[pair[1]], true, START);
    match refused {
        Err(StoreError::Conflict(m)) => assert!(
            m.contains(&format!("submission {} is in rejudging {r}", pair[1])),
            "{m}"
        ),
        other => panic!("expected a conflict, got {other:?}"),
    }
    assert_eq!(s.rejudgings().expect("list").len(), before + 1);
    // The first of the two is judged (the judge now says AC and WA): nothing changes yet.
    let flipped = |id: i64| {
        if id == pair[1] {
            Verdict::WrongAnswer
        } else {
            Verdict::Accepted
        }
    };
    let first = s
        .claim("test", START, START + 600_000)
        .expect("claim")
        .expect("queued");
    assert_eq!(first.rejudging, Some(r));
    assert!(s
        .finish(
            first.id,
            first.attempt,
            &report("pb", flipped(first.id)),
            "",
            START
        )
        .expect("finish"));
    assert_eq!(
        (verdict(pair[0]), verdict(pair[1])),
        (Some(Verdict::WrongAnswer), Some(Verdict::Accepted)),
        "one of two judged: students still see the old verdicts"
    );
    let info = s.rejudging(r).expect("read").expect("exists");
    assert_eq!((info.state, info.judged), (RejudgingState::Open, 1));

    // The last one: the rejudging applies itself in the same transaction.
    judge_all(s, flipped);
    assert_eq!(
        (verdict(pair[0]), verdict(pair[1])),
        (Some(Verdict::Accepted), Some(Verdict::WrongAnswer)),
        "both judged: the new verdicts, at once"
    );
    let info = s.rejudging(r).expect("read").expect("exists");
    assert_eq!(
        (info.state, info.closed_by.as_deref(), info.judged),
        (RejudgingState::Applied, Some("root"), 2)
    );
    // Its record stays: before and after of each.
    let items = s.rejudging_items(r).expect("items");
    assert!(items
        .iter()
        .all(|i| i.before.is_some() && i.after.is_some() && i.before != i.after));
    assert!(matches!(
        s.apply_rejudging(r, "admin", START),
        Err(StoreError::Conflict(_))
    ));
    assert!(matches!(
        s.cancel_rejudging(r, "admin", START),
        Err(StoreError::Conflict(_))
    ));
    // A submission with no verdict yet is not rejudged, and nothing is recorded.
    let n = s.rejudgings().expect("list").len();
    let fresh = s
        .insert_in_contest(&sub("erin", "pa"), "c", minute(60))
        .expect("insert");
    assert!(matches!(
        s.create_rejudging("{}", "root", &[fresh], true, START),
        Err(StoreError::Conflict(_))
    ));
    assert_eq!(s.rejudgings().expect("list").len(), n);
    judge_all(s, |_| Verdict::Accepted);
    // Closed: the same submissions may be rejudged again.
    let again = s
        .create_rejudging("{}", "root", &[pair[1]], true, START)
        .expect("create after the first closed");
    judge_all(s, |_| Verdict::Accepted);
    assert_eq!(verdict(pair[1]), Some(Verdict::Accepted));
    assert_eq!(
        s.rejudging(again).expect("read").expect("exists").state,
        RejudgingState::Applied
    );
}

#[test]
fn sqlite_store_passes_the_contest_suite() {
    let s = SqliteStore::in_memory().expect("store");
    store_suite(&s);
    // And a file store opened the way the daemon opens it.
    let f = crate::store::sqlite().expect("sqlite fixture");
    store_suite(f.store.as_ref());
}

#[test]
fn postgres_store_passes_the_contest_suite() {
    let Some(f) = crate::store::postgres() else {
        return;
    };
    store_suite(f.store.as_ref());
}

// ---- the daemon ----

pub(crate) fn rfc3339(ms: i64) -> String {
    let t = time::OffsetDateTime::from_unix_timestamp(ms / 1000).expect("time");
    t.format(&time::format_description::well_known::Rfc3339)
        .expect("format")
}

pub(crate) fn now_ms() -> i64 {
    ojd_store::now_ms()
}

/// Writes `dir/<id>/contest.toml` over one problem (for the other modules' contests; this
/// module's tests write theirs with [`ContestSite::contest`]).
pub(crate) fn write_contest(
    dir: &Path,
    id: &str,
    start_ms: i64,
    duration: &str,
    extra: &str,
    problem: &str,
) {
    crate::contest_site::write_contest_file(
        dir,
        id,
        start_ms,
        Some(duration),
        extra,
        &[problem.to_string()],
    );
}

pub(crate) fn submit(
    d: &crate::daemon::Daemon,
    token: &str,
    contest: Option<&str>,
    problem: &str,
    file: &str,
) -> (u16, Value) {
    let source = std::fs::read_to_string(common::testdata(&format!("aplusb/submissions/{file}")))
        .expect("source");
    let mut body = json!({ "problem": problem, "language": "c", "source": source });
    if let Some(c) = contest {
        body["contest"] = json!(c);
    }
    d.post_json("/api/v1/submissions", Some(token), &body)
}

fn cells(s: &Value, user: &str) -> Value {
    let rows = s["rows"].as_array().expect("rows");
    let row = rows
        .iter()
        .find(|r| r["user"] == user)
        .expect("a row for the user");
    json!({
        "solved": row["solved"],
        "pending": row["cells"][0]["pending"],
        "tries": row["cells"][0]["tries"],
    })
}

fn wait_rejudged(d: &crate::daemon::Daemon, id: i64) -> Value {
    common::wait_until(JUDGED_WITHIN, || {
        let (code, r) = d.get(&format!("/api/v1/admin/rejudgings/{id}"), Some(ADMIN));
        assert_eq!(code, 200, "{r}");
        if r["judged"] == r["total"] {
            Ok(r)
        } else {
            Err(format!("rejudging {id} did not finish: {r}"))
        }
    })
}

#[test]
fn a_contest_end_to_end_over_http() {
    require_root!();
    contest_over_http(None);
}

/// The same on PostgreSQL (the private cluster of pg.rs; it fails under `CI` without one).
#[test]
fn a_contest_end_to_end_over_http_on_postgres() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    contest_over_http(Some(&cluster.database()));
}

/// The whole contest over HTTP with a daemon on `database` (`None`: a SQLite file).
fn contest_over_http(database: Option<&str>) {
    let cs = ContestSite::on(database);
    // A second problem for the contest that has not started (its problems are hidden).
    cs.copy_problem("late");
    let now = now_ms();
    // Started 100 minutes ago, 2 hours long, frozen for its last hour (since 40 minutes).
    cs.contest("live", now - 100 * 60_000)
        .lasting("2h")
        .keys("freeze = \"1h\"")
        .write();
    cs.contest("soon", now + 3_600_000)
        .lasting("1h")
        .problems(&["late"])
        .write();
    cs.contest("over", now - 7_200_000).lasting("1h").write();
    // The package ships a wrong answer for 02-many: a correct program gets WA on it.
    let answer = cs.path().join("problems/aplusb/tests/02-many.ans");
    let good = std::fs::read_to_string(&answer).expect("answer");
    std::fs::write(&answer, format!("0\n{good}")).expect("break the answer");
    let broken = std::fs::read_to_string(&answer).expect("answer");
    assert_ne!(broken, good);
    let d = cs.start();

    let (code, list) = d.get("/api/v1/contests", None);
    assert_eq!(code, 200);
    let phases: Vec<(&str, &str)> = list
        .as_array()
        .expect("list")
        .iter()
        .map(|c| {
            (
                c["id"].as_str().unwrap_or(""),
                c["phase"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        phases,
        [("live", "frozen"), ("over", "ended"), ("soon", "before")]
    );

    // Before the start: no problems, a message, no submissions; the problem is hidden.
    let (_, soon) = d.get("/api/v1/contests/soon", Some(ALICE));
    assert_eq!(soon["problems"], json!([]), "{soon}");
    assert!(
        soon["message"].as_str().unwrap_or("").contains("starts at"),
        "{soon}"
    );
    let (_, soon_admin) = d.get("/api/v1/contests/soon", Some(ADMIN));
    assert_eq!(soon_admin["problems"][0]["label"], "A", "{soon_admin}");
    let (code, e) = submit(&d, ALICE, Some("soon"), "late", "accepted/ac.c");
    assert_eq!(code, 403, "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("has not started"),
        "{e}"
    );
    let (code, _) = d.get("/api/v1/problems/late", Some(ALICE));
    assert_eq!(
        code, 404,
        "a problem of a contest that has not started is hidden"
    );
    let (code, _) = submit(&d, ALICE, None, "late", "accepted/ac.c");
    assert_eq!(
        code, 404,
        "and cannot be submitted outside the contest either"
    );

    // After the end: refused, admins exempt.
    let (code, e) = submit(&d, ALICE, Some("over"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 403, "{e}");
    assert!(
        e["error"]["message"]
            .as_str()
            .unwrap_or("")
            .contains("is over"),
        "{e}"
    );
    let (code, e) = submit(&d, ADMIN, Some("over"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{e}");

    // During the freeze: alice's correct program (WA on the broken answer), bob's wrong one.
    let (code, a) = submit(&d, ALICE, Some("live"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{a}");
    let alice_id = a["id"].as_i64().expect("id");
    let (code, b) = submit(
        &d,
        BOB,
        Some("live"),
        "aplusb",
        "wrong_answer/wa_second_line.c",
    );
    assert_eq!(code, 201, "{b}");
    let bob_id = b["id"].as_i64().expect("id");
    assert_eq!(d.wait_done(alice_id, ALICE, JUDGED_WITHIN)["verdict"], "WA");
    assert_eq!(d.wait_done(bob_id, BOB, JUDGED_WITHIN)["verdict"], "WA");

    let (_, student) = d.get("/api/v1/contests/live/standings", Some(BOB));
    assert_eq!(student["frozen"], true);
    assert_eq!(
        cells(&student, "alice"),
        json!({"solved": 0, "pending": 1, "tries": 0})
    );
    let (_, admin) = d.get("/api/v1/contests/live/standings", Some(ADMIN));
    assert_eq!(admin["frozen"], false);
    assert_eq!(
        cells(&admin, "alice"),
        json!({"solved": 0, "pending": 0, "tries": 1})
    );
    let (code, csv) = d.get_text("/api/v1/admin/contests/live/standings.csv", Some(ADMIN));
    assert_eq!(code, 200);
    assert!(
        csv.starts_with("rank,user,solved,penalty,score,A\n"),
        "{csv}"
    );
    let (code, _) = d.get_text("/api/v1/admin/contests/live/standings.csv", Some(ALICE));
    assert_eq!(code, 403);

    // Clarifications: alice asks, the admin answers everyone; an announcement reaches bob.
    let (code, q) = d.post_json(
        "/api/v1/contests/live/clarifications",
        Some(ALICE),
        &json!({"problem": "A", "text": "May T be 0?"}),
    );
    assert_eq!(code, 201, "{q}");
    let (_, bob_sees) = d.get("/api/v1/contests/live/clarifications", Some(BOB));
    assert_eq!(
        bob_sees,
        json!([]),
        "a question is private until answered to all"
    );
    let qid = q["id"].as_i64().expect("id");
    let (code, _) = d.post_json(
        &format!("/api/v1/admin/clarifications/{qid}/answer"),
        Some(ADMIN),
        &json!({"answer": "No: T >= 1.", "public": true}),
    );
    assert_eq!(code, 200);
    let (code, _) = d.post_json(
        "/api/v1/admin/contests/live/announcements",
        Some(ADMIN),
        &json!({"text": "Test 02-many had a wrong answer; it is fixed and will be rejudged."}),
    );
    assert_eq!(code, 201);
    let (_, bob_sees) = d.get("/api/v1/contests/live/clarifications", Some(BOB));
    let texts: Vec<&str> = bob_sees
        .as_array()
        .expect("list")
        .iter()
        .map(|c| {
            c["answer"]
                .as_str()
                .unwrap_or(c["text"].as_str().unwrap_or(""))
        })
        .collect();
    assert_eq!(
        texts,
        [
            "Test 02-many had a wrong answer; it is fixed and will be rejudged.",
            "No: T >= 1."
        ]
    );

    // Fix the answer file, reload, rejudge the contest and read the diff.
    std::fs::write(&answer, &good).expect("fix the answer");
    let (code, _) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
    assert_eq!(code, 200);
    let (code, r) = d.post_json(
        "/api/v1/admin/rejudgings",
        Some(ADMIN),
        &json!({"contest": "live"}),
    );
    assert_eq!(code, 201, "{r}");
    assert_eq!(r["submissions"], 2, "{r}");
    let rid = r["id"].as_i64().expect("id");
    let (code, e) = d.post_json(
        &format!("/api/v1/admin/rejudgings/{rid}/apply"),
        Some(ADMIN),
        &json!({}),
    );
    // Either still judging (409) or, on a fast machine, already done and then applied below.
    let applied_early = code == 200;
    assert!(code == 409 || applied_early, "{e}");
    let report = wait_rejudged(&d, rid);
    let changes: Vec<(i64, &str, &str)> = report["changes"]
        .as_array()
        .expect("changes")
        .iter()
        .map(|c| {
            (
                c["submission"].as_i64().unwrap_or(0),
                c["before"]["verdict"].as_str().unwrap_or(""),
                c["after"]["verdict"].as_str().unwrap_or(""),
            )
        })
        .collect();
    assert_eq!(
        changes,
        [(alice_id, "WA", "AC"), (bob_id, "WA", "WA")],
        "{report}"
    );
    let summary: Vec<(String, i64)> = report["summary"]
        .as_array()
        .expect("summary")
        .iter()
        .map(|t| {
            (
                format!(
                    "{}→{}",
                    t["from"].as_str().unwrap_or("—"),
                    t["to"].as_str().unwrap_or("")
                ),
                t["count"].as_i64().unwrap_or(0),
            )
        })
        .collect();
    assert_eq!(
        summary,
        [("WA→AC".to_string(), 1), ("WA→WA".to_string(), 1)]
    );
    let moves = &report["standings"][0]["moves"];
    assert_eq!(moves[0]["user"], "alice", "{report}");
    assert_eq!(
        (
            moves[0]["solved_before"].as_i64(),
            moves[0]["solved_after"].as_i64()
        ),
        (Some(0), Some(1))
    );
    eprintln!("{}", ojd_table(&report));
    let (_, tests) = d.get(
        &format!("/api/v1/admin/rejudgings/{rid}/submissions/{alice_id}"),
        Some(ADMIN),
    );
    let changed: Vec<&str> = tests
        .as_array()
        .expect("tests")
        .iter()
        .filter(|t| t["changed"] == true)
        .map(|t| t["name"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(changed, ["02-many"], "{tests}");

    if !applied_early {
        // Not applied yet: alice still sees WA.
        assert_eq!(d.wait_done(alice_id, ALICE, JUDGED_WITHIN)["verdict"], "WA");
        let (code, e) = d.post_json(
            &format!("/api/v1/admin/rejudgings/{rid}/apply"),
            Some(ADMIN),
            &json!({}),
        );
        assert_eq!(code, 200, "{e}");
    }
    assert_eq!(d.wait_done(alice_id, ALICE, JUDGED_WITHIN)["verdict"], "AC");
    let (code, e) = d.post_json(
        &format!("/api/v1/admin/rejudgings/{rid}/apply"),
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(
        (code, e["error"]["code"].as_str()),
        (409, Some("conflict")),
        "{e}"
    );

    // Still frozen for students; the admin unfreezes and alice's AC shows.
    let (_, student) = d.get("/api/v1/contests/live/standings", Some(BOB));
    assert_eq!(cells(&student, "alice")["solved"], 0);
    let (code, _) = d.post_json(
        "/api/v1/admin/contests/live/unfreeze",
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 200);
    let (_, student) = d.get("/api/v1/contests/live/standings", Some(BOB));
    assert_eq!(student["frozen"], false);
    assert_eq!(
        cells(&student, "alice"),
        json!({"solved": 1, "pending": 0, "tries": 0})
    );
    assert_eq!(student["rows"][0]["user"], "alice");

    // The same through the contest pages' forms: the students' table follows at once.
    // ureq's own error type, in a test.
    #[allow(clippy::result_large_err)]
    let form = |path: &str, token: &str| {
        ureq::post(&format!("{}{path}", d.url))
            .set("Authorization", &format!("Bearer {token}"))
            .send_form(&[])
    };
    let r = form("/contests/live/freeze", ADMIN).expect("the freeze form");
    assert_eq!(r.status(), 200);
    let (_, student) = d.get("/api/v1/contests/live/standings", Some(BOB));
    assert_eq!(student["frozen"], true, "frozen again from the page");
    let r = form("/contests/live/unfreeze", ADMIN).expect("the unfreeze form");
    assert_eq!(r.status(), 200);
    let (_, student) = d.get("/api/v1/contests/live/standings", Some(BOB));
    assert_eq!(student["frozen"], false, "unfrozen from the page");
    // A student gets the admin-only page's 403, not the form's effect.
    match form("/contests/live/freeze", ALICE) {
        Err(ureq::Error::Status(403, _)) => {}
        other => panic!("a student froze the standings: {other:?}"),
    }
    let (code, page) = d.get_text("/admin/rejudgings", Some(ALICE));
    assert_eq!(code, 403, "{page}");
    assert!(page.contains("this page is for admins"), "{page}");

    // A cancelled rejudging changes nothing and cannot be applied.
    let (code, r) = d.post_json(
        "/api/v1/admin/rejudgings",
        Some(ADMIN),
        &json!({"submission": bob_id}),
    );
    assert_eq!(code, 201, "{r}");
    let rid2 = r["id"].as_i64().expect("id");
    let (code, _) = d.post_json(
        &format!("/api/v1/admin/rejudgings/{rid2}/cancel"),
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 200);
    let (code, _) = d.post_json(
        &format!("/api/v1/admin/rejudgings/{rid2}/apply"),
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 409);
    assert_eq!(d.wait_done(bob_id, BOB, JUDGED_WITHIN)["verdict"], "WA");
    let (_, r2) = d.get(&format!("/api/v1/admin/rejudgings/{rid2}"), Some(ADMIN));
    assert_eq!(r2["state"], "cancelled", "{r2}");
    let (code, _) = d.post_json(
        "/api/v1/admin/rejudgings/999/apply",
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 404);
    // Students cannot start or read rejudgings.
    let (code, _) = d.post_json(
        "/api/v1/admin/rejudgings",
        Some(ALICE),
        &json!({"contest": "live"}),
    );
    assert_eq!(code, 403);

    // The old rejudge endpoint is a rejudging that applies itself: the answer is broken again,
    // alice's submission is rejudged; she sees AC for as long as it is open, then WA.
    std::fs::write(&answer, &broken).expect("break the answer again");
    let (code, _) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
    assert_eq!(code, 200);
    let (code, r) = d.post_json(
        &format!("/api/v1/admin/submissions/{alice_id}/rejudge"),
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 202, "{r}");
    let rid3 = r["rejudging"].as_i64().expect("id");
    let (code, e) = d.post_json(
        "/api/v1/admin/rejudgings",
        Some(ADMIN),
        &json!({"submission": alice_id}),
    );
    // Refused while the first is open; on a fast machine it may have been applied already.
    assert!(code == 409 || code == 201, "{code} {e}");
    let overlapping = (code == 201).then(|| e["id"].as_i64().expect("id"));
    let mut seen_open = 0;
    let r3 = common::wait_until(JUDGED_WITHIN, || {
        let (_, sub) = d.get(&format!("/api/v1/submissions/{alice_id}"), Some(ALICE));
        let (_, r3) = d.get(&format!("/api/v1/admin/rejudgings/{rid3}"), Some(ADMIN));
        if r3["state"] != "open" {
            return Ok(r3);
        }
        // Read before the state: while it is open the student sees the old verdict.
        assert_eq!(sub["verdict"], "AC", "{sub} {r3}");
        seen_open += 1;
        Err(format!("never applied: {r3}"))
    });
    assert_eq!(r3["state"], "applied", "{r3}");
    assert_eq!(r3["auto_apply"], true, "{r3}");
    assert_eq!(r3["closed_by"], "admin", "{r3}");
    assert_eq!(r3["summary"][0]["from"], "AC", "{r3}");
    assert_eq!(r3["summary"][0]["to"], "WA", "{r3}");
    eprintln!("auto-applied rejudging {rid3}: seen open {seen_open} time(s) before it applied");
    assert_eq!(d.wait_done(alice_id, ALICE, JUDGED_WITHIN)["verdict"], "WA");
    if let Some(o) = overlapping {
        let (code, e) = d.post_json(
            &format!("/api/v1/admin/rejudgings/{o}/cancel"),
            Some(ADMIN),
            &json!({}),
        );
        assert_eq!(code, 200, "{e}");
    }
    let (code, e) = d.post_json(
        &format!("/api/v1/admin/rejudgings/{rid3}/apply"),
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 409, "an applied rejudging is not applied twice: {e}");

    // The same through `auto_apply` in the rejudgings API, over the whole contest: the answer
    // is fixed again and alice's submission goes back to AC, bob's stays WA.
    std::fs::write(&answer, &good).expect("fix the answer again");
    let (code, _) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
    assert_eq!(code, 200);
    let (code, r) = d.post_json(
        "/api/v1/admin/rejudgings",
        Some(ADMIN),
        &json!({"contest": "live", "auto_apply": true}),
    );
    assert_eq!(code, 201, "{r}");
    let rid4 = r["id"].as_i64().expect("id");
    let report = wait_rejudged(&d, rid4);
    assert_eq!(report["auto_apply"], true, "{report}");
    common::wait_until(JUDGED_WITHIN, || {
        let (_, r) = d.get(&format!("/api/v1/admin/rejudgings/{rid4}"), Some(ADMIN));
        (r["state"] == "applied")
            .then_some(())
            .ok_or_else(|| format!("rejudging {rid4} never applied itself: {r}"))
    });
    assert_eq!(d.wait_done(alice_id, ALICE, JUDGED_WITHIN)["verdict"], "AC");
    assert_eq!(d.wait_done(bob_id, BOB, JUDGED_WITHIN)["verdict"], "WA");
}

/// IOI standings through the daemon on a problem with scoring groups: the sum over groups of
/// each group's best score across a student's submissions (IOI 2017), not the best submission.
#[test]
fn ioi_groups_best_across_submissions_over_http() {
    require_root!();
    let cs = ContestSite::new();
    cs.contest("ioi", now_ms() - 600_000)
        .lasting("2h")
        .keys("scoring = \"ioi\"")
        .write();
    let package = cs.path().join("problems/aplusb");
    let toml = package.join("problem.toml");
    let mut text = std::fs::read_to_string(&toml).expect("problem.toml");
    text.push_str(
        "\n[[group]]\nname = \"big\"\npoints = 40\ntests = [\"01\"]\n\
         [[group]]\nname = \"many\"\npoints = 60\ntests = [\"02\"]\n",
    );
    std::fs::write(&toml, text).expect("groups");
    let answer = |name: &str| package.join(format!("tests/{name}.ans"));
    let (big, many) = (
        std::fs::read_to_string(answer("01-big")).expect("answer"),
        std::fs::read_to_string(answer("02-many")).expect("answer"),
    );
    // The first submission is judged against a broken 01-big: only "many" passes.
    std::fs::write(answer("01-big"), format!("0\n{big}")).expect("break");
    let d = cs.start();
    let (code, a) = submit(&d, ALICE, Some("ioi"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{a}");
    let first = d.wait_done(a["id"].as_i64().expect("id"), ALICE, JUDGED_WITHIN);
    assert_eq!(first["score"], 60, "{first}");
    // The submission's page says which group earned the points (issue 23).
    let (code, page) = d.get_text(&format!("/submissions/{}", a["id"]), Some(ALICE));
    assert_eq!(code, 200);
    let table = page
        .split("id=\"groups\"")
        .nth(1)
        .and_then(|t| t.split("</table>").next())
        .unwrap_or_else(|| panic!("no group table: {page}"));
    let rows: Vec<String> = table
        .split("<tr class=\"")
        .skip(1)
        .map(|r| {
            let text: String = r.split('<').filter_map(|p| p.split('>').nth(1)).collect();
            format!("{} {}", r.split('"').next().unwrap_or(""), text.trim())
        })
        .collect();
    assert_eq!(rows, ["missed big0 / 40", "earned many60 / 60"], "{table}");
    // The second against a broken 02-many: only "big" passes.
    std::fs::write(answer("01-big"), &big).expect("fix");
    std::fs::write(answer("02-many"), format!("0\n{many}")).expect("break");
    let (code, _) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
    assert_eq!(code, 200);
    let (code, b) = submit(&d, ALICE, Some("ioi"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{b}");
    let second = d.wait_done(b["id"].as_i64().expect("id"), ALICE, JUDGED_WITHIN);
    assert_eq!(second["score"], 40, "{second}");
    let (code, s) = d.get("/api/v1/contests/ioi/standings", Some(BOB));
    assert_eq!(code, 200, "{s}");
    assert_eq!(s["scoring"], "ioi", "{s}");
    let row = &s["rows"][0];
    assert_eq!(
        (
            row["user"].as_str(),
            row["score"].as_i64(),
            row["cells"][0]["score"].as_i64()
        ),
        (Some("alice"), Some(100), Some(100)),
        "40 from the second plus 60 from the first: {s}"
    );
}

/// The diff table of a rejudging report, as text (printed by the test).
fn ojd_table(r: &Value) -> String {
    let mut out = format!(
        "rejudging {}: {} of {} judged again, {} changed\n",
        r["id"], r["judged"], r["total"], r["changed"]
    );
    for c in r["changes"].as_array().into_iter().flatten() {
        out.push_str(&format!(
            "  #{} {} {}: {} {} {}ms -> {} {} {}ms{}\n",
            c["submission"],
            c["user"].as_str().unwrap_or(""),
            c["problem"].as_str().unwrap_or(""),
            c["before"]["verdict"].as_str().unwrap_or("-"),
            c["before"]["score"],
            c["before"]["max_cpu_ms"],
            c["after"]["verdict"].as_str().unwrap_or("-"),
            c["after"]["score"],
            c["after"]["max_cpu_ms"],
            if c["changed"] == true {
                "  changed"
            } else {
                ""
            }
        ));
    }
    out
}

// ---- issue 23: the defects a real contest hit ----

/// The message of an API error.
pub(crate) fn message(e: &Value) -> String {
    e["error"]["message"].as_str().unwrap_or("").to_string()
}

/// Defects 1, 2, 3, 4 and 6 of issue 23 over HTTP with the real daemon: a participant's
/// submission made outside the contest (the statement page's way) counts for the running
/// contest and says so; a future contest reusing a running one's problem does not hide it;
/// unfreezing before the freeze time is refused and nothing after the freeze leaks; nothing of
/// a future contest's problem set is told to non-admins (standings, clarifications); an admin's
/// test submission is never ranked, and the rejudging preview moves participants only.
#[test]
fn a_contest_counts_hides_and_freezes_what_it_must_over_http() {
    require_root!();
    defects_over_http(None);
}

/// The same on PostgreSQL (the private cluster of pg.rs; it fails under `CI` without one).
#[test]
fn a_contest_counts_hides_and_freezes_what_it_must_over_http_on_postgres() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    defects_over_http(Some(&cluster.database()));
}

fn defects_over_http(database: Option<&str>) {
    let cs = ContestSite::on(database);
    cs.copy_problem("late");
    cs.copy_problem("third");
    cs.copy_problem("practice");
    let now = now_ms();
    // Started a minute ago, freezes in nine minutes (its last hour of 70), alice and bob take
    // part. Once the steps before the freeze are done, the freeze is moved to the next second
    // (the file rewritten and reloaded, as an admin freezing early would), not waited for.
    let start = (now - 60_000) / 1000 * 1000;
    let end = start + 70 * 60_000;
    let run_contest = |freeze: &str| {
        cs.contest("run", start)
            .lasting("70m")
            .keys(&format!(
                "freeze = \"{freeze}\"\nparticipants = [\"alice\", \"bob\"]"
            ))
            .write()
    };
    run_contest("1h");
    // A future contest reusing the running contest's problem, with a problem of its own.
    cs.contest("future", now + 3_600_000)
        .lasting("1h")
        .problems(&["aplusb", "late"])
        .write();
    // Open to anyone: an admin's test submission must not be ranked.
    cs.contest("open", now - 600_000)
        .lasting("2h")
        .problems(&["third"])
        .write();
    // A wrong answer file: correct programs get WA until it is fixed and rejudged.
    let answer = cs.path().join("problems/aplusb/tests/02-many.ans");
    let good = std::fs::read_to_string(&answer).expect("answer");
    std::fs::write(&answer, format!("0\n{good}")).expect("break the answer");
    let clock = common::TestClock::new();
    let d = clock.start(&cs.site);

    // Defect 3: unfreezing before the freeze time is refused (it used to cancel the freeze
    // while every page still said "frozen").
    let (code, e) = d.post_json(
        "/api/v1/admin/contests/run/unfreeze",
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 409, "{e}");
    assert!(message(&e).contains("freeze at"), "{e}");

    // Defect 2: the running contest's problem stays visible (statement, submit, own submission).
    let (code, p) = d.get("/api/v1/problems/aplusb", Some(ALICE));
    assert_eq!(code, 200, "a future contest took aplusb away: {p}");
    let (code, _) = d.get("/api/v1/problems/late", Some(ALICE));
    assert_eq!(
        code, 404,
        "a problem of the future contest alone stays hidden"
    );
    let (code, list) = d.get("/api/v1/problems", None);
    assert_eq!(code, 200);
    let ids: Vec<&str> = list
        .as_array()
        .expect("problems")
        .iter()
        .filter_map(|p| p["id"].as_str())
        .collect();
    assert!(ids.contains(&"aplusb") && !ids.contains(&"late"), "{list}");

    // Defect 1: a participant's submission without `contest` (what the statement page sends)
    // counts for the running contest, and shows it.
    let (code, a) = submit(&d, ALICE, None, "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{a}");
    let alice_id = a["id"].as_i64().expect("id");
    // Through the contest on purpose, too.
    let (code, b) = submit(&d, BOB, Some("run"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{b}");
    let bob_id = b["id"].as_i64().expect("id");
    // An admin's test through the listed contest: the jury's, not ranked.
    let (code, j) = submit(&d, ADMIN, Some("run"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{j}");
    let jury_id = j["id"].as_i64().expect("id");
    let alice = d.wait_done(alice_id, ALICE, JUDGED_WITHIN);
    assert_eq!(alice["contest"], "run", "{alice}");
    let (_, mine) = d.get("/api/v1/submissions", Some(ALICE));
    assert_eq!(mine[0]["contest"], "run", "the list shows it too: {mine}");
    d.wait_done(bob_id, BOB, JUDGED_WITHIN);
    d.wait_done(jury_id, ADMIN, JUDGED_WITHIN);
    let (code, s) = d.get("/api/v1/contests/run/standings", Some(ADMIN));
    assert_eq!(code, 200, "{s}");
    assert_eq!(
        cells(&s, "alice"),
        json!({"solved": 0, "pending": 0, "tries": 1}),
        "{s}"
    );
    let users: Vec<&str> = s["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["user"].as_str())
        .collect();
    assert_eq!(users, ["alice", "bob"], "no row for the admin's test: {s}");
    // A submission of a problem in no contest stays practice, and says so.
    let (code, pr) = submit(&d, ALICE, None, "practice", "accepted/ac.c");
    assert_eq!(code, 201, "{pr}");
    let (_, v) = d.get(&format!("/api/v1/submissions/{}", pr["id"]), Some(ALICE));
    assert_eq!(v["contest"], Value::Null, "{v}");

    // Defect 6: in a contest open to anyone, an admin's test is not ranked.
    let (code, o) = submit(&d, ADMIN, Some("open"), "third", "accepted/ac.c");
    assert_eq!(code, 201, "{o}");
    let (code, c) = submit(&d, BOB, Some("open"), "third", "accepted/ac.c");
    assert_eq!(code, 201, "{c}");
    d.wait_done(o["id"].as_i64().expect("id"), ADMIN, JUDGED_WITHIN);
    d.wait_done(c["id"].as_i64().expect("id"), BOB, JUDGED_WITHIN);
    let (_, s) = d.get("/api/v1/contests/open/standings", None);
    let users: Vec<&str> = s["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .filter_map(|r| r["user"].as_str())
        .collect();
    assert_eq!(users, ["bob"], "the admin is not on the public board: {s}");

    // Defect 6: the rejudging preview's "who moves" counts participants only.
    std::fs::write(&answer, &good).expect("fix the answer");
    let (code, _) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
    assert_eq!(code, 200);
    let (code, r) = d.post_json(
        "/api/v1/admin/rejudgings",
        Some(ADMIN),
        &json!({"contest": "run"}),
    );
    assert_eq!(code, 201, "{r}");
    let report = wait_rejudged(&d, r["id"].as_i64().expect("id"));
    let mut moves: Vec<(String, bool)> = report["standings"][0]["moves"]
        .as_array()
        .expect("moves")
        .iter()
        .map(|m| {
            (
                m["user"].as_str().unwrap_or("").to_string(),
                m["rank_after"]
                    .as_i64()
                    .is_some_and(|r| (1..=2).contains(&r)),
            )
        })
        .collect();
    moves.sort();
    assert_eq!(
        moves,
        [("alice".to_string(), true), ("bob".to_string(), true)],
        "the admin's test moves no one and is not ranked: {report}"
    );

    // Defect 4: nothing of the future contest's problem set before its start.
    for who in [None, Some(ALICE)] {
        let (code, text) = d.get_text("/api/v1/contests/future/standings", who);
        assert_eq!(code, 200, "{text}");
        let s: Value = serde_json::from_str(&text).expect("json");
        assert_eq!(s["problems"], json!([]), "{text}");
        assert!(!text.contains("late"), "{text}");
        let (code, page) = d.get_text("/contests/future/standings", who);
        assert_eq!(code, 200);
        assert!(!page.contains("late"), "{page}");
    }
    let (_, s) = d.get("/api/v1/contests/future/standings", Some(ADMIN));
    assert_eq!(s["problems"][1]["label"], "B", "admins see it: {s}");
    let count = |who: Option<&str>| {
        let (_, list) = d.get("/api/v1/contests", who);
        list.as_array()
            .expect("list")
            .iter()
            .find(|c| c["id"] == "future")
            .map(|c| c["problems"].clone())
    };
    assert_eq!(count(None), Some(json!(0)), "not even how many");
    assert_eq!(count(Some(ADMIN)), Some(json!(2)));
    let ask = |problem: &str| {
        d.post_json(
            "/api/v1/contests/future/clarifications",
            Some(ALICE),
            &json!({"problem": problem, "text": "Is this in?"}),
        )
    };
    let (in_code, in_e) = ask("late");
    let (out_code, out_e) = ask("nope");
    assert_eq!(
        (in_code, message(&in_e)),
        (out_code, message(&out_e)),
        "a question tells nothing of which names are in the contest"
    );
    assert_eq!(in_code, 400, "{in_e}");

    // Defect 3: the unfreeze was refused, so an accepted submission after the freeze time
    // stays hidden under the banner. The freeze moves to the next whole second: still after
    // the refused unfreeze and every submission above, before the late one below (the
    // daemon's clock is moved past it, not waited for).
    assert!(
        clock.now_ms() < start + 600_000,
        "the steps before the freeze took too long"
    );
    let (_, before) = d.get("/api/v1/contests/run/standings", None);
    assert_eq!(before["frozen"], false, "not frozen yet: {before}");
    let freeze_at = (clock.now_ms() / 1000 + 1) * 1000;
    run_contest(&format!("{}s", (end - freeze_at) / 1000));
    let (code, _) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
    assert_eq!(code, 200);
    let (_, c) = d.get("/api/v1/contests/run", Some(ADMIN));
    assert_eq!(
        c["clock"]["freeze_ms"], freeze_at,
        "the reload moved the freeze: {c}"
    );
    clock.advance_to(freeze_at + 200);
    let (code, late) = submit(&d, BOB, Some("run"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{late}");
    d.wait_done(late["id"].as_i64().expect("id"), BOB, JUDGED_WITHIN);
    let (_, anon) = d.get("/api/v1/contests/run/standings", None);
    assert_eq!(anon["frozen"], true, "{anon}");
    let bob_row = cells(&anon, "bob");
    assert_eq!(
        bob_row["pending"], 1,
        "bob's try after the freeze is hidden: {anon}"
    );
    let (_, page) = d.get_text("/contests/run", None);
    assert!(page.contains("standings frozen since"), "{page}");
    // After the freeze time the admin unfreezes: recorded with who and when, everywhere.
    let (code, e) = d.post_json(
        "/api/v1/admin/contests/run/unfreeze",
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 200, "{e}");
    let (_, anon) = d.get("/api/v1/contests/run/standings", None);
    assert_eq!(anon["frozen"], false, "{anon}");
    let (_, one) = d.get("/api/v1/contests/run", None);
    assert_eq!(one["freeze"]["unfrozen"], true, "{one}");
    assert_eq!(one["clock"]["frozen"], false, "{one}");
    let (_, list) = d.get("/api/v1/contests", None);
    let run = list
        .as_array()
        .expect("list")
        .iter()
        .find(|c| c["id"] == "run")
        .cloned()
        .expect("run");
    assert_eq!(
        (run["phase"].as_str(), run["frozen"].as_bool()),
        (Some("frozen"), Some(false)),
        "{run}"
    );
    assert_eq!(one["freeze"]["changed_by"], "admin", "{one}");
    let (_, page) = d.get_text("/contests/run", None);
    assert!(page.contains("standings unfrozen at"), "{page}");
    assert!(!page.contains("standings frozen since"), "{page}");
}

/// Issue 23's director tools and smaller defects over HTTP: the clock controls (start now,
/// delay, extend, end now) written into `contest.toml` and refused where the phase does not
/// allow them; the audit log (clock changes, failed logins); clarifications: no ask form for
/// non-participants, a rate limit, a re-answer that keeps the history and never turns a
/// private question public by itself.
#[test]
fn clock_controls_audit_and_clarifications_hold_over_http() {
    require_root!();
    director_over_http(None);
}

/// The same on PostgreSQL (the private cluster of pg.rs; it fails under `CI` without one).
#[test]
fn clock_controls_audit_and_clarifications_hold_over_http_on_postgres() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    director_over_http(Some(&cluster.database()));
}

fn director_over_http(database: Option<&str>) {
    let cs = ContestSite::on(database);
    let now = now_ms();
    cs.contest("soon", now + 3_600_000)
        .keys("duration = \"1h\"   # one hour\nfreeze = \"20m\"\nparticipants = [\"alice\"]")
        .write();
    cs.contest("run", now - 600_000)
        .lasting("2h")
        .keys("participants = [\"alice\"]")
        .write();
    // Teams: a display name and affiliation; an observer never ranked.
    cs.contest("teams", now - 600_000)
        .lasting("2h")
        .keys(
            "\
         [[team]]\nuser = \"alice\"\nname = \"Rocket\"\naffiliation = \"Peking University\"\n\
         [[team]]\nuser = \"bob\"\ncategory = \"observer\"",
        )
        .write();
    cs.contest("badteam", now - 600_000)
        .lasting("2h")
        .keys("[[team]]\nuser = \"alice\"\ncategory = \"guest\"")
        .write();
    let clock = common::TestClock::new();
    let d = clock.start(&cs.site);
    let control = |id: &str, action: &str, minutes: Option<&str>| {
        let mut body = json!({ "action": action });
        if let Some(m) = minutes {
            body["minutes"] = json!(m);
        }
        d.post_json(
            &format!("/api/v1/admin/contests/{id}/clock"),
            Some(ADMIN),
            &body,
        )
    };
    let phase = |id: &str| {
        let (_, c) = d.get(&format!("/api/v1/contests/{id}"), None);
        c["clock"]["phase"].as_str().unwrap_or("").to_string()
    };

    // Clock controls.
    let (code, e) = control("soon", "extend", Some("0"));
    assert_eq!(code, 400, "{e}");
    let (code, e) = control("soon", "end_now", None);
    assert_eq!(code, 409, "not running yet: {e}");
    let (code, r) = control("soon", "delay", Some("15"));
    assert_eq!(code, 200, "{r}");
    let (_, c) = d.get("/api/v1/contests/soon", Some(ADMIN));
    let start = c["clock"]["start_ms"].as_i64().expect("start");
    assert!(
        (start - (now + 75 * 60_000)).abs() < 2_000,
        "delayed by 15 min: {c}"
    );
    let (code, r) = control("soon", "start_now", None);
    assert_eq!(code, 200, "{r}");
    assert_eq!(phase("soon"), "running");
    let (code, e) = control("soon", "delay", Some("5"));
    assert_eq!(code, 409, "started already: {e}");
    let toml = std::fs::read_to_string(cs.file("soon")).expect("toml");
    assert!(toml.contains("duration = \"1h\"   # one hour"), "{toml}");
    let (code, r) = control("soon", "extend", Some("30"));
    assert_eq!(code, 200, "{r}");
    let (_, c) = d.get("/api/v1/contests/soon", Some(ADMIN));
    let (start, end, freeze) = (
        c["clock"]["start_ms"].as_i64().expect("start"),
        c["clock"]["end_ms"].as_i64().expect("end"),
        c["clock"]["freeze_ms"].as_i64().expect("freeze"),
    );
    assert_eq!(end - start, 90 * 60_000, "{c}");
    assert_eq!(end - freeze, 50 * 60_000, "the freeze keeps its time: {c}");
    let toml = std::fs::read_to_string(cs.file("soon")).expect("toml");
    assert!(toml.contains("duration = \"1h30m\""), "{toml}");
    // A reload reads the same file: the change stays.
    let (code, _) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
    assert_eq!(code, 200);
    assert_eq!(phase("soon"), "running");
    // The file's durations are whole seconds: a contest ends at the latest whole second
    // (the daemon's clock moves past the next one).
    clock.advance(1100);
    let (code, r) = control("soon", "end_now", None);
    assert_eq!(code, 200, "{r}");
    assert_eq!(phase("soon"), "ended");
    let (code, e) = submit(&d, ALICE, Some("soon"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 403, "ended: {e}");
    let (code, e) = control("soon", "extend", Some("5"));
    assert_eq!(code, 409, "{e}");
    let (code, e) = d.post_json(
        "/api/v1/admin/contests/soon/clock",
        Some(ALICE),
        &json!({"action": "start_now"}),
    );
    assert_eq!(code, 403, "students cannot: {e}");

    // A failed login is audited with its address.
    let r = ureq::post(&format!("{}/login", d.url))
        .set("Sec-Fetch-Site", "same-origin")
        .send_form(&[("token", "not-a-token")]);
    let status = match r {
        Ok(r) => r.status(),
        Err(ureq::Error::Status(c, _)) => c,
        Err(e) => panic!("POST /login: {e}"),
    };
    assert_eq!(status, 401);
    assert!(d.log().contains("login failed"), "{}", d.log());
    let (code, log) = d.get("/api/v1/admin/audit", Some(ADMIN));
    assert_eq!(code, 200, "{log}");
    let actions: Vec<&str> = log
        .as_array()
        .expect("audit")
        .iter()
        .filter_map(|e| e["action"].as_str())
        .collect();
    assert_eq!(
        actions,
        ["login-failed", "clock", "reload", "clock", "clock", "clock"],
        "{log}"
    );
    assert!(
        log[1]["detail"].as_str().unwrap_or("").contains("end now"),
        "{log}"
    );
    assert_eq!(log[1]["actor"], "admin", "{log}");
    let (code, _) = d.get("/api/v1/admin/audit", Some(ALICE));
    assert_eq!(code, 403);
    let (code, page) = d.get_text("/admin/audit?contest=soon", Some(ADMIN));
    assert_eq!(code, 200);
    assert!(page.contains("extend by 30 min"), "{page}");

    // Ignoring a submission: never ranked, audited; ranked again on request.
    let (code, a) = submit(&d, ALICE, Some("run"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{a}");
    let sid = a["id"].as_i64().expect("id");
    let counted = |d: &crate::daemon::Daemon| {
        let (_, s) = d.get("/api/v1/contests/run/standings", Some(ADMIN));
        let c = cells(&s, "alice");
        ["solved", "pending", "tries"]
            .iter()
            .map(|k| c[k].as_i64().unwrap_or(0))
            .sum::<i64>()
    };
    assert!(counted(&d) > 0, "alice's submission is on the standings");
    let ignore = |ignored: bool| {
        d.post_json(
            &format!("/api/v1/admin/submissions/{sid}/ignore"),
            Some(ADMIN),
            &json!({ "ignored": ignored }),
        )
    };
    let (code, e) = ignore(true);
    assert_eq!(code, 200, "{e}");
    assert_eq!(counted(&d), 0, "an ignored submission is not ranked");
    let (_, page) = d.get_text(&format!("/submissions/{sid}"), Some(ADMIN));
    assert!(
        page.contains("Not ranked") && page.contains("Rank it again"),
        "{page}"
    );
    let (code, e) = ignore(false);
    assert_eq!(code, 200, "{e}");
    assert!(counted(&d) > 0, "ranked again");
    let (code, _) = d.post_json(
        &format!("/api/v1/admin/submissions/{sid}/ignore"),
        Some(ALICE),
        &json!({ "ignored": true }),
    );
    assert_eq!(code, 403);
    // The jury's verdict over the judge's: needs a reason, counts on the standings, shows on
    // the submission, and can be removed.
    let over = |body: Value| {
        d.post_json(
            &format!("/api/v1/admin/submissions/{sid}/override"),
            Some(ADMIN),
            &body,
        )
    };
    let (code, e) = over(json!({"verdict": "WA", "reason": " "}));
    assert_eq!(code, 400, "a reason is needed: {e}");
    let (code, e) = over(json!({"verdict": "XX", "reason": "r"}));
    assert_eq!(code, 400, "{e}");
    let (code, e) = over(json!({"verdict": "WA", "reason": "hard-codes the tests"}));
    assert_eq!(code, 200, "{e}");
    let (_, s) = d.get("/api/v1/contests/run/standings", Some(ADMIN));
    assert_eq!(
        cells(&s, "alice"),
        json!({"solved": 0, "pending": 0, "tries": 1}),
        "{s}"
    );
    let (_, v) = d.get(&format!("/api/v1/submissions/{sid}"), Some(ALICE));
    assert_eq!(v["verdict"], "WA", "{v}");
    assert_eq!(v["override"]["reason"], "hard-codes the tests", "{v}");
    let (_, page) = d.get_text(&format!("/submissions/{sid}"), Some(ALICE));
    assert!(page.contains("Verdict set by the jury"), "{page}");
    // The results fragment the live page swaps in says the same.
    let (_, part) = d.get_text(&format!("/submissions/{sid}/results"), Some(ALICE));
    assert!(
        part.contains("id=\"status\"><span class=\"badge v-WA\""),
        "{part}"
    );
    let (code, e) = over(json!({"verdict": null}));
    assert_eq!(code, 200, "{e}");
    let (_, v) = d.get(&format!("/api/v1/submissions/{sid}"), Some(ALICE));
    assert!(v["override"].is_null(), "{v}");
    let (_, log) = d.get("/api/v1/admin/audit?contest=run", Some(ADMIN));
    let actions: Vec<&str> = log
        .as_array()
        .expect("audit")
        .iter()
        .filter_map(|e| e["action"].as_str())
        .collect();
    assert_eq!(
        actions,
        ["override", "override", "unignore", "ignore"],
        "{log}"
    );
    assert!(
        log[1]["detail"]
            .as_str()
            .unwrap_or("")
            .contains("hard-codes the tests"),
        "{log}"
    );

    // Teams: the board shows the display name and affiliation and ranks no observer.
    for who in [ALICE, BOB] {
        let (code, e) = submit(&d, who, Some("teams"), "aplusb", "accepted/ac.c");
        assert_eq!(code, 201, "{e}");
    }
    let (_, s) = d.get("/api/v1/contests/teams/standings", None);
    let rows: Vec<(Option<&str>, Option<&str>, Option<&str>)> = s["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| {
            (
                r["user"].as_str(),
                r["name"].as_str(),
                r["affiliation"].as_str(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [(Some("alice"), Some("Rocket"), Some("Peking University"))],
        "{s}"
    );
    let (_, page) = d.get_text("/contests/teams/standings", None);
    assert!(
        page.contains("Rocket") && page.contains("Peking University"),
        "{page}"
    );
    // A roster imported through the API replaces the teams in contest.toml, with a token for
    // each team when asked; a bad roster names its lines and changes nothing.
    let (code, e) = d.post_json(
        "/api/v1/admin/contests/teams/teams",
        Some(ADMIN),
        &json!({"roster": "user,name\ncarol,C\nca rol,D\n"}),
    );
    assert_eq!(code, 400, "{e}");
    assert!(message(&e).contains("line 3"), "{e}");
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/teams/teams",
        Some(ADMIN),
        &json!({
            "roster": "user,name,affiliation,category\nalice,Rocket 2,PKU,\ncarol,\"Carol, Inc.\",,\nbob,,,jury\n",
            "tokens": true,
        }),
    );
    assert_eq!(code, 200, "{r}");
    let carol = r["tokens"][1]["token"]
        .as_str()
        .expect("carol's token")
        .to_string();
    let (code, me) = d.get("/api/v1/me", Some(&carol));
    assert_eq!((code, me["name"].as_str()), (200, Some("carol")), "{me}");
    let toml = std::fs::read_to_string(cs.file("teams")).expect("toml");
    assert!(
        toml.contains("name = \"Carol, Inc.\"") && !toml.contains("Peking"),
        "{toml}"
    );
    let (_, s) = d.get("/api/v1/contests/teams/standings", None);
    assert_eq!(s["rows"][0]["name"], "Rocket 2", "{s}");
    let (_, log) = d.get("/api/v1/admin/audit?contest=teams", Some(ADMIN));
    assert_eq!(log[0]["action"], "roster", "{log}");
    let (code, page) = d.get_text("/contests/teams/teams", Some(ADMIN));
    assert_eq!(code, 200);
    assert!(
        page.contains("Carol, Inc.") && page.contains("jury (not ranked)"),
        "{page}"
    );
    // DOMjudge's teams.tsv with its accounts.tsv.
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/teams/teams",
        Some(ADMIN),
        &json!({
            "roster": "teams\t1\n1\t1001\t3\tRocket DJ\tPeking University\tPKU\tCHN\n\
                       accounts\t1\nteam\tRocket DJ\talice\tsecret-pw-1\t1\n",
        }),
    );
    assert_eq!(code, 200, "{r}");
    assert_eq!(r["teams"][0]["user"], "alice", "{r}");
    let (_, s) = d.get("/api/v1/contests/teams/standings", None);
    let alice = s["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["user"] == "alice")
        .cloned()
        .expect("alice");
    assert_eq!(
        (alice["name"].as_str(), alice["affiliation"].as_str()),
        (Some("Rocket DJ"), Some("Peking University")),
        "{s}"
    );

    let (_, list) = d.get("/api/v1/contests", None);
    assert!(
        !list.to_string().contains("badteam"),
        "a bad [[team]] fails the contest: {list}"
    );
    let (_, page) = d.get_text("/contests", Some(ADMIN));
    assert!(
        page.contains("team[0].category") && page.contains("guest"),
        "the error names the key: {page}"
    );

    // The pages are in English, and say so (they said zh-CN whatever the content).
    let (_, page) = d.get_text("/contests", None);
    assert!(page.contains("<html lang=\"en\">"), "{page}");

    // Clarifications: only participants get the form.
    let (_, page) = d.get_text("/contests/run", Some(BOB));
    assert!(
        !page.contains("Ask a question"),
        "bob takes no part: {page}"
    );
    let (_, page) = d.get_text("/contests/run", Some(ALICE));
    assert!(page.contains("Ask a question"), "{page}");
    let ask = |n: usize| {
        d.post_json(
            "/api/v1/contests/run/clarifications",
            Some(ALICE),
            &json!({"text": format!("Question {n}?")}),
        )
    };
    let mut first = 0;
    for n in 0..5 {
        let (code, q) = ask(n);
        assert_eq!(code, 201, "{q}");
        if n == 0 {
            first = q["id"].as_i64().expect("id");
        }
    }
    let (code, e) = ask(5);
    assert_eq!(code, 409, "the sixth question in ten minutes waits: {e}");
    assert!(message(&e).contains("wait for the answers"), "{e}");
    // A private answer, then a re-answer without `public`: still private, history kept.
    let answer = |body: Value| {
        d.post_json(
            &format!("/api/v1/admin/clarifications/{first}/answer"),
            Some(ADMIN),
            &body,
        )
    };
    let (code, _) = answer(json!({"answer": "No.", "public": false}));
    assert_eq!(code, 200);
    let (code, _) = answer(json!({"answer": "No, sorry."}));
    assert_eq!(code, 200);
    let (_, public) = d.get("/api/v1/contests/run/clarifications", None);
    assert_eq!(public, json!([]), "a re-answer kept it private: {public}");
    let (_, mine) = d.get("/api/v1/contests/run/clarifications", Some(ALICE));
    let q = mine
        .as_array()
        .expect("list")
        .iter()
        .find(|q| q["id"] == first)
        .expect("alice's question")
        .clone();
    assert_eq!(
        (q["answer"].as_str(), q["public"].as_bool()),
        (Some("No, sorry."), Some(false))
    );
    let (_, news) = d.get_text("/contests/run/news", Some(ADMIN));
    assert!(
        news.contains("Earlier answers (1)") && news.contains("No."),
        "{news}"
    );
    // A canned answer from the page's form, to everyone; one not in the list is refused.
    assert!(
        news.contains("Read the problem statement carefully."),
        "offered: {news}"
    );
    let answer_form = |fields: &[(&str, &str)]| {
        let r = ureq::post(&format!("{}/contests/run/answer/{}", d.url, first + 1))
            .set("Authorization", &format!("Bearer {ADMIN}"))
            .set("Sec-Fetch-Site", "same-origin")
            .send_form(fields);
        match r {
            Ok(r) => r.status(),
            Err(ureq::Error::Status(c, _)) => c,
            Err(e) => panic!("POST answer: {e}"),
        }
    };
    assert_eq!(
        answer_form(&[("answer", ""), ("canned", "Made up."), ("public", "true")]),
        400
    );
    assert_eq!(
        answer_form(&[
            ("answer", ""),
            ("canned", "Read the problem statement carefully."),
            ("public", "true")
        ]),
        200,
        "answered, then back to the contest page"
    );
    let (_, public) = d.get("/api/v1/contests/run/clarifications", None);
    assert_eq!(
        public[0]["answer"], "Read the problem statement carefully.",
        "{public}"
    );
}

/// Issue 23, results: a director finalizes a contest after its end (refused while running,
/// while the standings are frozen for students, and a second time); the awards (medals by
/// `[awards]`, first to solve, winner, group winners) are an admin's preview before and public
/// after; results.tsv, the results CSV, awards.json and the Contest API's `/awards` and state
/// all come from the same computation; a finalized contest's results no longer change (clock,
/// freeze, override refused); audited; the file keeps `finalized` across a reload.
#[test]
fn a_finalized_contest_publishes_awards_and_changes_no_more_over_http() {
    require_root!();
    results_over_http(None);
}

/// The same on PostgreSQL (the private cluster of pg.rs; it fails under `CI` without one).
#[test]
fn a_finalized_contest_publishes_awards_and_changes_no_more_over_http_on_postgres() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    results_over_http(Some(&cluster.database()));
}

fn results_over_http(database: Option<&str>) {
    let cs = ContestSite::on(database);
    let now = now_ms();
    // Frozen since 5 minutes ago.
    cs.contest("fin", now - 600_000)
        .lasting("1h")
        .keys(
            "freeze = \"55m\"\n[awards]\ngold = 1\nsilver = 1\n\
         [[team]]\nuser = \"alice\"\nname = \"Rocket\"\ngroup = \"Junior\"\n\
         [[team]]\nuser = \"bob\"\ngroup = \"Junior\"",
        )
        .write();
    let clock = common::TestClock::new();
    let d = clock.start(&cs.site);
    let judged = |token: &str, file: &str| {
        let (code, r) = submit(&d, token, Some("fin"), "aplusb", file);
        assert_eq!(code, 201, "{r}");
        let id = r["id"].as_i64().expect("id");
        d.wait_done(id, token, JUDGED_WITHIN)
    };
    judged(ALICE, "accepted/ac.c");
    judged(BOB, "wrong_answer/wa_second_line.c");
    let last = judged(BOB, "accepted/ac.c");
    let finalize = || {
        d.post_json(
            "/api/v1/admin/contests/fin/finalize",
            Some(ADMIN),
            &json!({}),
        )
    };

    // Running: not yet; nobody but admins sees the awards, admins as a preview.
    let (code, e) = finalize();
    assert_eq!(code, 409, "running: {e}");
    assert!(message(&e).contains("only after its end"), "{e}");
    let (code, e) = d.get("/api/v1/contests/fin/awards", None);
    assert_eq!(code, 404, "not final: {e}");
    let (code, e) = d.get("/api/v1/contests/fin/results.tsv", Some(ALICE));
    assert_eq!(code, 404, "not final: {e}");
    let (code, p) = d.get("/api/v1/contests/fin/awards", Some(ADMIN));
    assert_eq!(code, 200, "{p}");
    assert_eq!(p["final"], false, "{p}");
    let (code, a) = d.get("/api/contests/fin/awards", None);
    assert_eq!(
        (code, a.clone()),
        (200, json!([])),
        "no awards before the end"
    );

    // Ended but frozen for students: unfreeze first. (End now rounds the end down to a whole
    // second: the daemon's clock moves past the next one, so that the last submission lies
    // inside the contest.)
    clock.advance(1100);
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/fin/clock",
        Some(ADMIN),
        &json!({"action": "end_now"}),
    );
    assert_eq!(code, 200, "{r}");
    let (code, e) = finalize();
    assert_eq!(code, 409, "frozen: {e}");
    assert!(message(&e).contains("unfreeze them first"), "{e}");
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/fin/unfreeze",
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 200, "{r}");
    let (code, r) = finalize();
    assert_eq!(code, 200, "{r}");
    let toml = std::fs::read_to_string(cs.file("fin")).expect("toml");
    assert!(toml.contains("finalized = \""), "{toml}");

    // The awards, public now.
    let (code, r) = d.get("/api/v1/contests/fin/awards", None);
    assert_eq!(code, 200, "{r}");
    assert_eq!(r["final"], true, "{r}");
    let users = |id: &str| {
        r["awards"]
            .as_array()
            .expect("awards")
            .iter()
            .find(|a| a["id"] == id)
            .map(|a| a["users"].clone())
            .unwrap_or(Value::Null)
    };
    let (_, table) = d.get("/api/v1/contests/fin/standings", Some(ADMIN));
    assert_eq!(users("winner"), json!(["alice"]), "{r}\n{table}");
    assert_eq!(users("gold-medal"), json!(["alice"]), "{r}");
    assert_eq!(
        users("silver-medal"),
        json!(["bob"]),
        "bob: 20 penalty minutes more: {r}\n{table}"
    );
    assert_eq!(users("first-to-solve-aplusb"), json!(["alice"]), "{r}");
    assert_eq!(users("group-winner-junior"), json!(["alice"]), "{r}");
    let (code, tsv) = d.get_text("/api/v1/contests/fin/results.tsv", None);
    assert_eq!(code, 200, "{tsv}");
    let lines: Vec<&str> = tsv.lines().collect();
    assert_eq!(lines[0], "results\t1", "{tsv}");
    assert!(lines[1].starts_with("alice\t1\tGold Medal\t1\t"), "{tsv}");
    assert!(lines[1].ends_with("\tJunior"), "{tsv}");
    assert!(lines[2].starts_with("bob\t2\tSilver Medal\t1\t"), "{tsv}");
    let (code, csv) = d.get_text("/api/v1/contests/fin/results.csv", None);
    assert_eq!(code, 200, "{csv}");
    assert!(
        csv.starts_with("rank,user,solved,penalty,score,A,awards\n"),
        "{csv}"
    );
    assert!(csv.contains("\n2,bob,1,"), "{csv}");
    assert!(csv.contains("Silver medal winner"), "{csv}");
    let (code, aj) = d.get("/api/v1/contests/fin/awards.json", None);
    assert_eq!(code, 200, "{aj}");
    let (code, ccs) = d.get("/api/contests/fin/awards", None);
    assert_eq!(code, 200, "{ccs}");
    assert_eq!(ccs, aj, "the Contest API and awards.json agree");
    let gold = ccs
        .as_array()
        .expect("awards")
        .iter()
        .find(|a| a["id"] == "gold-medal")
        .cloned()
        .expect("a gold medal");
    assert_eq!(gold["team_ids"], json!(["alice"]), "{ccs}");
    let (code, one) = d.get("/api/contests/fin/awards/gold-medal", None);
    assert_eq!((code, one), (200, gold));
    let (_, state) = d.get("/api/contests/fin/state", None);
    assert!(state["finalized"].is_string(), "{state}");

    // Final: nothing changes the results any more.
    let (code, e) = finalize();
    assert_eq!(code, 409, "twice: {e}");
    let (code, e) = d.post_json(
        "/api/v1/admin/contests/fin/clock",
        Some(ADMIN),
        &json!({"action": "extend", "minutes": "5"}),
    );
    assert_eq!(code, 409, "{e}");
    let (code, e) = d.post_json("/api/v1/admin/contests/fin/freeze", Some(ADMIN), &json!({}));
    assert_eq!(code, 409, "{e}");
    assert!(message(&e).contains("finalized"), "{e}");
    let id = last["id"].as_i64().expect("id");
    let (code, e) = d.post_json(
        &format!("/api/v1/admin/submissions/{id}/override"),
        Some(ADMIN),
        &json!({"verdict": "WA", "reason": "late change"}),
    );
    assert_eq!(code, 409, "{e}");
    let (code, e) = d.post_json(
        &format!("/api/v1/admin/submissions/{id}/ignore"),
        Some(ADMIN),
        &json!({"ignored": true}),
    );
    assert_eq!(code, 409, "{e}");
    // A rejudging that would apply itself is refused at once, however it is asked for (the
    // Rejudge buttons of a submission and of a problem, and `auto_apply`), naming why; nothing
    // is queued.
    for (path, body) in [
        (
            "/api/v1/admin/rejudgings".to_string(),
            json!({"contest": "fin", "auto_apply": true}),
        ),
        (format!("/api/v1/admin/submissions/{id}/rejudge"), json!({})),
        (
            "/api/v1/admin/problems/aplusb/rejudge".to_string(),
            json!({}),
        ),
    ] {
        let (code, e) = d.post_json(&path, Some(ADMIN), &body);
        assert_eq!(code, 409, "{path}: {e}");
        assert!(
            message(&e).contains("was finalized")
                && message(&e).contains("a rejudging that applies itself"),
            "{path}: {e}"
        );
    }
    let (code, list) = d.get("/api/v1/admin/rejudgings", Some(ADMIN));
    assert_eq!(code, 200, "{list}");
    assert_eq!(list, json!([]), "no rejudging was made: {list}");
    // A rejudging of the finalized contest judges, but cannot be applied.
    let (code, r) = d.post_json(
        "/api/v1/admin/rejudgings",
        Some(ADMIN),
        &json!({"contest": "fin"}),
    );
    assert_eq!(code, 201, "{r}");
    let rid = r["id"].as_i64().expect("id");
    wait_rejudged(&d, rid);
    let (code, e) = d.post_json(
        &format!("/api/v1/admin/rejudgings/{rid}/apply"),
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 409, "{e}");
    assert!(message(&e).contains("was finalized"), "{e}");
    let (code, log) = d.get("/api/v1/admin/audit?contest=fin", Some(ADMIN));
    assert_eq!(code, 200, "{log}");
    assert!(
        log.to_string().contains("\"finalize\"")
            && log.to_string().contains("Gold medal winner: alice"),
        "{log}"
    );
    let (code, _) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
    assert_eq!(code, 200);
    let (_, r) = d.get("/api/v1/contests/fin/awards", None);
    assert_eq!(r["final"], true, "the file keeps it: {r}");
}

/// Issue 23, the balloon queue over HTTP: each team's first accepted submission of each
/// problem (a later AC and the jury's submission get none), the first solve of the problem
/// marked, the freeze hiding nothing (it is the jury's); delivered and undone by a director;
/// admins only; clear errors for a balloon that does not exist.
#[test]
fn each_first_solve_gets_one_balloon_over_http() {
    require_root!();
    balloons_over_http(None);
}

/// The same on PostgreSQL (the private cluster of pg.rs; it fails under `CI` without one).
#[test]
fn each_first_solve_gets_one_balloon_over_http_on_postgres() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    balloons_over_http(Some(&cluster.database()));
}

fn balloons_over_http(database: Option<&str>) {
    let cs = ContestSite::on(database);
    // Frozen since 5 minutes ago: the balloons show every solve all the same.
    cs.contest("bal", now_ms() - 600_000)
        .lasting("1h")
        .keys("freeze = \"55m\"\n[[team]]\nuser = \"bob\"\nname = \"Lima\"")
        .write();
    let d = cs.start();
    let judged = |token: &str, file: &str| {
        let (code, r) = submit(&d, token, Some("bal"), "aplusb", file);
        assert_eq!(code, 201, "{r}");
        let id = r["id"].as_i64().expect("id");
        d.wait_done(id, token, JUDGED_WITHIN);
        id
    };
    let alice_ac = judged(ALICE, "accepted/ac.c");
    judged(BOB, "wrong_answer/wa_second_line.c");
    let bob_ac = judged(BOB, "accepted/ac.c");
    judged(ALICE, "accepted/ac.c");
    judged(ADMIN, "accepted/ac.c");
    let list = || {
        let (code, l) = d.get("/api/v1/admin/contests/bal/balloons", Some(ADMIN));
        assert_eq!(code, 200, "{l}");
        l
    };
    let l = list();
    let rows: Vec<(i64, String, String, bool, bool)> = l
        .as_array()
        .expect("balloons")
        .iter()
        .map(|b| {
            (
                b["submission"].as_i64().unwrap_or(0),
                b["team"].as_str().unwrap_or("").to_string(),
                b["label"].as_str().unwrap_or("").to_string(),
                b["first"] == true,
                b["done_at"].is_null(),
            )
        })
        .collect();
    assert_eq!(
        rows,
        [
            (alice_ac, "alice".to_string(), "A".to_string(), true, true),
            (bob_ac, "Lima".to_string(), "A".to_string(), false, true)
        ],
        "{l}"
    );
    let (code, e) = d.get("/api/v1/admin/contests/bal/balloons", Some(ALICE));
    assert_eq!(code, 403, "admins only: {e}");
    let mark = |user: &str, problem: &str, done: bool| {
        d.post_json(
            "/api/v1/admin/contests/bal/balloons",
            Some(ADMIN),
            &json!({"user": user, "problem": problem, "done": done}),
        )
    };
    let (code, r) = mark("bob", "A", true);
    assert_eq!(code, 200, "{r}");
    let l = list();
    assert_eq!(l[1]["done_by"], "admin", "{l}");
    assert!(l[0]["done_at"].is_null(), "{l}");
    let at = l[1]["done_at"].clone();
    let (code, _) = mark("bob", "aplusb", true);
    assert_eq!(code, 200);
    assert_eq!(
        list()[1]["done_at"],
        at,
        "marking again keeps the first mark"
    );
    let (code, _) = mark("bob", "A", false);
    assert_eq!(code, 200);
    assert!(list()[1]["done_at"].is_null());
    let (code, e) = mark("carol", "A", true);
    assert_eq!(code, 404, "{e}");
    assert!(message(&e).contains("has not solved"), "{e}");
    let (code, e) = mark("bob", "Z", true);
    assert_eq!(code, 400, "{e}");
    assert!(message(&e).contains("field `problem`"), "{e}");
}

/// Issue 23, clarifications over HTTP: categories (general, technical, per problem; anything
/// else refused naming the field), a jury member's claim (shown to the jury, refused to a
/// second one, hidden from students, released), and announcements to everyone, one team only
/// (the others never see it, on the API nor the Contest API) or one problem.
#[test]
fn clarifications_have_categories_claims_and_targeted_announcements_over_http() {
    require_root!();
    clarifications_over_http(None);
}

/// The same on PostgreSQL (the private cluster of pg.rs; it fails under `CI` without one).
#[test]
fn clarifications_have_categories_claims_and_targeted_announcements_over_http_on_postgres() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    clarifications_over_http(Some(&cluster.database()));
}

fn clarifications_over_http(database: Option<&str>) {
    const JUDY: &str = "judy-token";
    let cs = ContestSite::builder()
        .database(database)
        .settings(&format!(
            "[[server.users]]\nname = \"judy\"\ntoken = \"{JUDY}\"\nadmin = true"
        ))
        .build();
    cs.contest("qa", now_ms() - 600_000)
        .lasting("2h")
        .keys("participants = [\"alice\", \"bob\"]")
        .write();
    let d = cs.start();
    let ask = |token: &str, body: Value| {
        d.post_json("/api/v1/contests/qa/clarifications", Some(token), &body)
    };
    let (code, t) = ask(
        ALICE,
        json!({"text": "My keyboard is broken", "category": "technical"}),
    );
    assert_eq!(code, 201, "{t}");
    let (code, p) = ask(
        ALICE,
        json!({"text": "Are a and b positive?", "problem": "A"}),
    );
    assert_eq!(code, 201, "{p}");
    let (code, g) = ask(BOB, json!({"text": "When is lunch?"}));
    assert_eq!(code, 201, "{g}");
    let (code, e) = ask(BOB, json!({"text": "?", "category": "urgent"}));
    assert_eq!(code, 400, "{e}");
    assert!(message(&e).contains("field `category`"), "{e}");
    let list = |token: &str| {
        let (code, l) = d.get("/api/v1/contests/qa/clarifications", Some(token));
        assert_eq!(code, 200, "{l}");
        l.as_array().expect("list").clone()
    };
    let by_text = |l: &[Value], text: &str| {
        l.iter()
            .find(|q| q["text"] == text)
            .cloned()
            .unwrap_or(Value::Null)
    };
    let all = list(ADMIN);
    assert_eq!(
        by_text(&all, "My keyboard is broken")["category"],
        "technical"
    );
    assert_eq!(
        by_text(&all, "Are a and b positive?")["category"],
        "problem"
    );
    assert_eq!(by_text(&all, "When is lunch?")["category"], "general");

    // Claims: the jury sees who; a second jury member is refused until it is released.
    let tid = by_text(&all, "My keyboard is broken")["id"]
        .as_i64()
        .expect("id");
    let claim = |token: &str, id: i64, claim: bool| {
        d.post_json(
            &format!("/api/v1/admin/clarifications/{id}/claim"),
            Some(token),
            &json!({"claim": claim}),
        )
    };
    let (code, r) = claim(ADMIN, tid, true);
    assert_eq!(code, 200, "{r}");
    assert_eq!(
        by_text(&list(JUDY), "My keyboard is broken")["claimed_by"],
        "admin"
    );
    let (code, e) = claim(JUDY, tid, true);
    assert_eq!(code, 409, "{e}");
    assert!(message(&e).contains("claimed by admin"), "{e}");
    let (code, e) = claim(ALICE, tid, true);
    assert_eq!(code, 403, "students cannot: {e}");
    assert!(
        by_text(&list(ALICE), "My keyboard is broken")["claimed_by"].is_null(),
        "students do not see the jury's claims"
    );
    let (code, _) = claim(JUDY, tid, false);
    assert_eq!(code, 200, "released");
    let (code, r) = claim(JUDY, tid, true);
    assert_eq!(code, 200, "{r}");
    assert_eq!(
        by_text(&list(ADMIN), "My keyboard is broken")["claimed_by"],
        "judy"
    );
    let (code, e) = claim(ADMIN, 999_999, true);
    assert_eq!(code, 404, "{e}");

    // Announcements: to everyone, to bob only, about problem A.
    let announce = |body: Value| {
        d.post_json(
            "/api/v1/admin/contests/qa/announcements",
            Some(ADMIN),
            &body,
        )
    };
    let (code, r) = announce(json!({"text": "Lunch is at noon."}));
    assert_eq!(code, 201, "{r}");
    let (code, r) = announce(json!({"text": "Bob: your printout is ready.", "team": "bob"}));
    assert_eq!(code, 201, "{r}");
    let (code, r) = announce(json!({"text": "In A, a and b fit in 32 bits.", "problem": "A"}));
    assert_eq!(code, 201, "{r}");
    let (code, e) = announce(json!({"text": "hi", "team": "mallory"}));
    assert_eq!(code, 400, "{e}");
    assert!(message(&e).contains("field `team`"), "{e}");
    let texts = |l: &[Value]| -> Vec<String> {
        l.iter()
            .filter(|q| q["user"].is_null())
            .map(|q| q["text"].as_str().unwrap_or("").to_string())
            .collect()
    };
    let for_bob = texts(&list(BOB));
    let for_alice = texts(&list(ALICE));
    assert!(
        for_bob.contains(&"Bob: your printout is ready.".to_string()),
        "{for_bob:?}"
    );
    assert!(
        !for_alice.contains(&"Bob: your printout is ready.".to_string()),
        "{for_alice:?}"
    );
    let (_, public) = d.get("/api/v1/contests/qa/clarifications", None);
    assert!(!public.to_string().contains("printout"), "{public}");
    let about_a = by_text(&list(ALICE), "In A, a and b fit in 32 bits.");
    assert_eq!(about_a["problem"], "aplusb", "{about_a}");
    assert_eq!(about_a["category"], "problem", "{about_a}");
    // The Contest API: bob's announcement goes to bob's team, never to alice nor the public.
    let (_, ccs_bob) = d.get("/api/contests/qa/clarifications", Some(BOB));
    let to_bob = ccs_bob
        .as_array()
        .expect("clarifications")
        .iter()
        .find(|q| q["text"] == "Bob: your printout is ready.")
        .cloned()
        .expect("bob sees it");
    assert_eq!(to_bob["to_team_id"], "bob", "{to_bob}");
    let (_, ccs_alice) = d.get("/api/contests/qa/clarifications", Some(ALICE));
    assert!(!ccs_alice.to_string().contains("printout"), "{ccs_alice}");
    let (_, ccs_public) = d.get("/api/contests/qa/clarifications", None);
    assert!(!ccs_public.to_string().contains("printout"), "{ccs_public}");
}

/// Issue 23, login by password over HTTP: a roster from DOMjudge's teams.tsv and accounts.tsv
/// sets the accounts' passwords (hashed, never in contest.toml) and generates one for a team
/// without (shown once); teams log in with them; wrong passwords lock that account only (a
/// hall behind one address goes on logging in), and are logged and audited; a too short
/// password in accounts.tsv is refused naming its line, and nothing is imported.
#[test]
fn teams_log_in_by_password_and_lockouts_are_per_account_over_http() {
    require_root!();
    passwords_over_http(None);
}

/// The same on PostgreSQL (the private cluster of pg.rs; it fails under `CI` without one).
#[test]
fn teams_log_in_by_password_and_lockouts_are_per_account_over_http_on_postgres() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    passwords_over_http(Some(&cluster.database()));
}

fn passwords_over_http(database: Option<&str>) {
    use crate::websec::{header, request};
    let cs = ContestSite::builder()
        .database(database)
        .settings("[web]\nlogin_attempts_per_minute = 3")
        .build();
    cs.contest("hall", now_ms() - 600_000).lasting("2h").write();
    let d = cs.start();
    let import = |roster: &str, passwords: bool| {
        d.post_json(
            "/api/v1/admin/contests/hall/teams",
            Some(ADMIN),
            &json!({"roster": roster, "passwords": passwords}),
        )
    };
    let (code, e) = import(
        "teams\t1\n1\t\t3\tRocket\naccounts\t1\nteam\tRocket\tcarol\tshort\t1\n",
        false,
    );
    assert_eq!(code, 400, "{e}");
    assert!(
        message(&e).contains("line 4: the password of \"carol\": 8 to 128 bytes"),
        "{e}"
    );
    let toml = std::fs::read_to_string(cs.file("hall")).expect("toml");
    assert!(!toml.contains("[[team]]"), "nothing imported: {toml}");
    let (code, r) = import(
        "teams\t1\n1\t\t3\tRocket\tPKU\n2\t\t3\tLima\tTHU\n\
         accounts\t1\nteam\tRocket\tcarol\tcarol-secret-1\t1\nteam\tLima\tdave\t\t2\n",
        true,
    );
    assert_eq!(code, 200, "{r}");
    assert_eq!(r["passwords_from_file"], 1, "{r}");
    let generated = r["passwords"].as_array().expect("passwords").clone();
    assert_eq!(generated.len(), 1, "{r}");
    assert_eq!(generated[0]["user"], "dave", "{r}");
    let dave_pw = generated[0]["password"]
        .as_str()
        .expect("password")
        .to_string();
    let toml = std::fs::read_to_string(cs.file("hall")).expect("toml");
    assert!(
        !toml.contains("carol-secret-1") && !toml.contains(&dave_pw),
        "passwords stay out of the file: {toml}"
    );

    let login = |user: &str, password: &str| {
        let body = format!("user={user}&password={}", password.replace(' ', "+"));
        request(
            &d,
            "POST",
            "/login",
            &[("Content-Type", "application/x-www-form-urlencoded")],
            Some(&body),
        )
    };
    let me = |hs: &[(String, String)]| {
        let cookie = header(hs, "set-cookie")
            .and_then(|c| c.split(';').next())
            .expect("a session cookie")
            .to_string();
        let (code, _, body) = request(&d, "GET", "/api/v1/me", &[("Cookie", &cookie)], None);
        assert_eq!(code, 200, "{body}");
        serde_json::from_str::<Value>(&body).expect("json")
    };
    let (code, hs, body) = login("carol", "carol-secret-1");
    assert_eq!(code, 303, "{body}");
    let who = me(&hs);
    assert_eq!(
        (who["name"].clone(), who["admin"].clone()),
        (json!("carol"), json!(false))
    );
    let (code, hs, body) = login("dave", &dave_pw);
    assert_eq!(code, 303, "{body}");
    assert_eq!(me(&hs)["name"], "dave");

    // Wrong passwords: carol's account is limited, not the address.
    for _ in 0..3 {
        let (code, _, body) = login("carol", "carol-secret-2");
        assert_eq!(code, 401, "{body}");
        assert!(body.contains("do not match"), "{body}");
    }
    let (code, hs, body) = login("carol", "carol-secret-1");
    assert_eq!(code, 429, "even the right password waits: {body}");
    assert!(body.contains("failed logins of this account"), "{body}");
    assert!(header(&hs, "retry-after").is_some());
    let (code, _, body) = login("dave", &dave_pw);
    assert_eq!(code, 303, "the rest of the hall logs in: {body}");
    let (code, _, _) = login("nobody", "whatever-it-is");
    assert_eq!(code, 401);
    let (code, log) = d.get("/api/v1/admin/audit", Some(ADMIN));
    assert_eq!(code, 200, "{log}");
    let text = log.to_string();
    assert!(text.contains("a wrong password for \\\"carol\\\""), "{log}");
    assert!(text.contains("by password from"), "{log}");
    assert!(
        text.contains("1 passwords from accounts.tsv, 1 passwords generated"),
        "{log}"
    );
}

/// Issue 23, a contest's definition on the web: a director creates a contest and edits its
/// title, problems (added, removed, reordered, labels, colours), scoring, penalty and
/// participants through the API. Every bad field is refused (400) naming it, unknown problem
/// ids included, and nothing is written; an edit that recomputes the standings of a started
/// contest, or removes a problem with submissions, is refused (409) naming what would change
/// until it is confirmed; the file keeps its comments; every change is audited; a finalized
/// contest's definition is final.
#[test]
fn a_contest_definition_is_edited_over_http_and_bad_fields_are_refused() {
    require_root!();
    definitions_over_http(None);
}

/// The same on PostgreSQL (the private cluster of pg.rs; it fails under `CI` without one).
#[test]
fn a_contest_definition_is_edited_over_http_and_bad_fields_are_refused_on_postgres() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    definitions_over_http(Some(&cluster.database()));
}

fn definitions_over_http(database: Option<&str>) {
    let cs = ContestSite::on(database);
    // A second problem: aplusb again under another id.
    cs.copy_problem("second");
    let clock = common::TestClock::new();
    let d = clock.start(&cs.site);
    let file = cs.file("spring");
    let start = rfc3339((now_ms() / 1000 + 3600) * 1000);
    let good = json!({
        "id": "spring",
        "title": "Spring cup",
        "start": start,
        "duration": "2h",
        "freeze": "30m",
        "scoring": "icpc",
        "penalty": "20",
        "participants": "alice, bob",
        "problems": [
            {"problem": "aplusb", "color": "#1E90FF"},
            {"problem": "second", "label": "Z"}
        ]
    });

    // Every bad field is named, and nothing is written.
    let mut bad = good.clone();
    bad["title"] = json!("");
    bad["start"] = json!("tomorrow");
    bad["scoring"] = json!("acm");
    bad["penalty"] = json!("-1");
    bad["participants"] = json!("alice, b@d");
    bad["problems"] = json!([
        {"problem": "nope"},
        {"problem": "second", "label": "A", "color": "blue"},
    ]);
    let (code, e) = d.post_json("/api/v1/admin/contests", Some(ADMIN), &bad);
    assert_eq!(code, 400, "{e}");
    let m = message(&e);
    for field in [
        "title: missing",
        "start: expected an RFC 3339 time",
        "scoring: expected \"icpc\" or \"ioi\", found \"acm\"",
        "penalty: expected whole minutes",
        "participants: \"b@d\" is not a user name",
        "problems[1].problem: \"nope\" is not a problem of this judge",
        "problems[2].label: label \"A\" is used twice",
        "problems[2].color: expected a colour",
    ] {
        assert!(m.contains(field), "{field:?} in {m}");
    }
    assert!(!file.exists(), "nothing written");
    let (code, e) = d.post_json("/api/v1/admin/contests", Some(ALICE), &good);
    assert_eq!(code, 403, "admins only: {e}");
    let mut unknown = good.clone();
    unknown["rules"] = json!("x");
    let (code, e) = d.post_json("/api/v1/admin/contests", Some(ADMIN), &unknown);
    assert_eq!(code, 400, "{e}");
    assert!(message(&e).contains("unknown field `rules`"), "{e}");

    // Created.
    let (code, r) = d.post_json("/api/v1/admin/contests", Some(ADMIN), &good);
    assert_eq!(code, 201, "{r}");
    assert_eq!(r["page"], "/contests/spring", "{r}");
    let (code, c) = d.get("/api/v1/contests/spring", Some(ADMIN));
    assert_eq!(code, 200, "{c}");
    assert_eq!(c["title"], "Spring cup");
    assert_eq!(c["participants"]["users"], json!(["alice", "bob"]), "{c}");
    let labels: Vec<&str> = c["problems"]
        .as_array()
        .expect("problems")
        .iter()
        .map(|p| p["label"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(labels, ["A", "Z"], "{c}");
    let (code, p) = d.get("/api/contests/spring/problems/aplusb", Some(ADMIN));
    assert_eq!(code, 200, "{p}");
    assert_eq!(
        p["rgb"], "#1e90ff",
        "the colour reaches the Contest API: {p}"
    );
    let (code, e) = d.post_json("/api/v1/admin/contests", Some(ADMIN), &good);
    assert_eq!(code, 400, "{e}");
    assert!(
        message(&e).contains("id: contest \"spring\" exists already"),
        "{e}"
    );
    // A comment a director adds by hand survives every edit below.
    let text = std::fs::read_to_string(&file).expect("contest.toml");
    std::fs::write(&file, format!("# kept by hand\n{text}")).expect("write");
    let (code, _) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
    assert_eq!(code, 200);

    // Before the start anything goes without confirmation.
    let (code, mut def) = d.get("/api/v1/admin/contests/spring/definition", Some(ADMIN));
    assert_eq!(code, 200, "{def}");
    def["title"] = json!("Spring cup 2026");
    def["penalty"] = json!("10");
    let edit = |body: &Value| {
        d.post_json(
            "/api/v1/admin/contests/spring/definition",
            Some(ADMIN),
            body,
        )
    };
    let (code, r) = edit(&def);
    assert_eq!(code, 200, "{r}");
    assert_eq!(
        r["changes"],
        json!([
            "title: \"Spring cup\" → \"Spring cup 2026\"",
            "penalty: 20 min → 10 min"
        ]),
        "{r}"
    );

    // Started, with a submission of A.
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/spring/clock",
        Some(ADMIN),
        &json!({"action": "start_now"}),
    );
    assert_eq!(code, 200, "{r}");
    let (code, s) = submit(&d, ALICE, Some("spring"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{s}");
    d.wait_done(s["id"].as_i64().expect("id"), ALICE, JUDGED_WITHIN);

    // A reorder and a new label change nothing of the standings: no confirmation.
    let (_, mut def) = d.get("/api/v1/admin/contests/spring/definition", Some(ADMIN));
    def["problems"] = json!([
        {"problem": "second", "label": "B"},
        {"problem": "aplusb", "label": "A", "color": "#1e90ff"}
    ]);
    let (code, r) = edit(&def);
    assert_eq!(code, 200, "{r}");
    assert_eq!(r["recomputed"], false, "{r}");
    assert!(
        r["changes"].to_string().contains("label Z → B")
            && r["changes"].to_string().contains("order: A Z → B A"),
        "{r}"
    );
    // The scoring of a started contest: asked first, naming what changes.
    let before = std::fs::read_to_string(&file).expect("contest.toml");
    def["scoring"] = json!("ioi");
    let (code, e) = edit(&def);
    assert_eq!(code, 409, "{e}");
    assert!(
        message(&e).contains("scoring: icpc → ioi")
            && message(&e).contains("standings are recomputed")
            && message(&e).contains("\"confirm\": true"),
        "{e}"
    );
    assert_eq!(
        std::fs::read_to_string(&file).expect("contest.toml"),
        before,
        "nothing written"
    );
    def["confirm"] = json!(true);
    let (code, r) = edit(&def);
    assert_eq!(code, 200, "{r}");
    assert_eq!(r["recomputed"], true, "{r}");
    let (_, st) = d.get("/api/v1/contests/spring/standings", Some(ADMIN));
    assert_eq!(st["scoring"], "ioi", "{st}");
    assert_eq!(st["rows"][0]["score"], 100, "recomputed: {st}");

    // Removing A, which has alice's submission: asked first, even though the rest is fine.
    let (_, mut def) = d.get("/api/v1/admin/contests/spring/definition", Some(ADMIN));
    def["problems"] = json!([{"problem": "second", "label": "B"}]);
    let (code, e) = edit(&def);
    assert_eq!(code, 409, "{e}");
    assert!(
        message(&e).contains("problem A (aplusb) is removed with its 1 submission(s)"),
        "{e}"
    );
    // An unknown problem is refused outright, confirmed or not.
    let mut wrong = def.clone();
    wrong["problems"] = json!([{"problem": "../aplusb"}]);
    wrong["confirm"] = json!(true);
    let (code, e) = edit(&wrong);
    assert_eq!(code, 400, "{e}");
    assert!(
        message(&e).contains("problems[1].problem: \"../aplusb\" is not a problem of this judge"),
        "{e}"
    );
    def["confirm"] = json!(true);
    let (code, r) = edit(&def);
    assert_eq!(code, 200, "{r}");
    let (_, st) = d.get("/api/v1/contests/spring/standings", Some(ADMIN));
    assert_eq!(
        st["problems"].as_array().map(Vec::len),
        Some(1),
        "A is gone: {st}"
    );
    let text = std::fs::read_to_string(&file).expect("contest.toml");
    assert!(
        text.starts_with("# kept by hand\n") && text.contains("scoring = \"ioi\""),
        "{text}"
    );
    let (code, log) = d.get("/api/v1/admin/audit?contest=spring", Some(ADMIN));
    assert_eq!(code, 200, "{log}");
    let actions: Vec<&str> = log
        .as_array()
        .expect("log")
        .iter()
        .map(|e| e["action"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(
        actions,
        [
            "contest-edit",
            "contest-edit",
            "contest-edit",
            "clock",
            "contest-edit",
            "contest-create"
        ],
        "{log}"
    );
    assert!(
        log[0]["detail"]
            .as_str()
            .unwrap_or("")
            .contains("problem A (aplusb) removed"),
        "{log}"
    );

    // Finalized: final (ended now, a second on: end now rounds down to a whole second).
    clock.advance(1100);
    for (path, body) in [
        ("clock", json!({"action": "end_now"})),
        ("unfreeze", json!({})),
        ("finalize", json!({})),
    ] {
        let (code, r) = d.post_json(
            &format!("/api/v1/admin/contests/spring/{path}"),
            Some(ADMIN),
            &body,
        );
        assert!(
            code == 200 || (path == "unfreeze" && code == 409),
            "{path}: {r}"
        );
    }
    let (_, mut def) = d.get("/api/v1/admin/contests/spring/definition", Some(ADMIN));
    def["title"] = json!("Too late");
    let (code, e) = edit(&def);
    assert_eq!(code, 409, "{e}");
    assert!(message(&e).contains("was finalized"), "{e}");
}

/// Issue 23: the jury's verdict overrides are in a submission's judging history, with its
/// judgings: who, when, why and from → to, oldest first, beside the judging of a later
/// rejudge; shown to admins on the submission's page and in `GET /api/v1/submissions/{id}`
/// (`history`), never to the student.
#[test]
fn overrides_are_in_the_judging_history() {
    require_root!();
    let cs = ContestSite::new();
    cs.contest("h", now_ms() - 60_000).lasting("2h").write();
    let d = cs.start();
    let (code, s) = submit(&d, ALICE, Some("h"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{s}");
    let id = s["id"].as_i64().expect("id");
    d.wait_done(id, ALICE, JUDGED_WITHIN);
    let over = |body: Value| {
        let (code, r) = d.post_json(
            &format!("/api/v1/admin/submissions/{id}/override"),
            Some(ADMIN),
            &body,
        );
        assert_eq!(code, 200, "{r}");
    };
    over(json!({"verdict": "WA", "reason": "prints the samples' answers only"}));
    over(json!({"verdict": "RE", "reason": "crashes on the judges' machine (seen)"}));
    // A rejudge: a second judging, the override still wins.
    let (code, r) = d.post_json(
        &format!("/api/v1/admin/submissions/{id}/rejudge"),
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 202, "{r}");
    let history = common::wait_until(JUDGED_WITHIN, || {
        let (_, v) = d.get(&format!("/api/v1/submissions/{id}"), Some(ADMIN));
        let judgings = v["history"].as_array().map_or(0, |h| {
            h.iter()
                .filter(|e| {
                    e["kind"] == "judging" && e["current"] == true && e["rejudging"].is_i64()
                })
                .count()
        });
        if judgings == 1 {
            Ok(v["history"].clone())
        } else {
            Err(format!("the rejudge: {v}"))
        }
    });
    over(json!({"verdict": null, "reason": ""}));
    let (_, v) = d.get(&format!("/api/v1/submissions/{id}"), Some(ADMIN));
    let h = v["history"].as_array().expect("history").clone();
    let brief: Vec<String> = h
        .iter()
        .map(|e| match e["kind"].as_str() {
            Some("judging") => format!(
                "judging {} current={}",
                e["verdict"].as_str().unwrap_or("-"),
                e["current"]
            ),
            _ => format!(
                "override {} → {} by {}: {}",
                e["from"].as_str().unwrap_or(""),
                e["to"].as_str().unwrap_or(""),
                e["by"].as_str().unwrap_or(""),
                e["reason"].as_str().unwrap_or("")
            ),
        })
        .collect();
    assert_eq!(
        brief,
        [
            "judging AC current=false",
            "override AC → WA by admin: prints the samples' answers only",
            "override WA → RE by admin: crashes on the judges' machine (seen)",
            "judging AC current=true",
            "override RE → AC by admin: the jury's verdict removed",
        ],
        "{v}\n(before the removal: {history})"
    );
    let at = |i: usize| h[i]["at"].as_i64().expect("at");
    assert!(at(1) <= at(2) && at(2) <= at(4), "oldest first: {v}");
    assert_eq!(h[4]["removed"], true);
    // Never to the student.
    let (_, mine) = d.get(&format!("/api/v1/submissions/{id}"), Some(ALICE));
    assert!(mine.get("history").is_none(), "{mine}");
    // The page: the admin's history table has both kinds of row.
    let cookie = crate::websec::login(&d, ADMIN);
    let (code, _, page) = crate::websec::request(
        &d,
        "GET",
        &format!("/submissions/{id}"),
        &[("Cookie", &cookie)],
        None,
    );
    assert_eq!(code, 200);
    assert!(
        page.contains("id=\"history\"")
            && page.contains("AC → WA")
            && page.contains("prints the samples")
            && page.contains("override removed"),
        "{page}"
    );
}

/// Issue 23: the hall sheet's one-time login links last as long as the director says for that
/// sheet (by default the contest's end, not the 10 minutes of `/admin/users`'s links): one per
/// team, each working once; a sheet printed to expire in seconds expires, and revokes the
/// earlier sheet;
/// a bad, past or too distant time is refused naming the field; admins only; audited.
#[test]
fn hall_sheet_login_links_last_as_long_as_the_sheet_says() {
    require_root!();
    let cs = ContestSite::new();
    cs.contest("hall", now_ms() - 60_000)
        .lasting("2h")
        .keys("participants = [\"alice\", \"bob\"]")
        .write();
    let clock = common::TestClock::new();
    let d = clock.start(&cs.site);
    let sheet = |body: Value| {
        d.post_json(
            "/api/v1/admin/contests/hall/login-links",
            Some(ADMIN),
            &body,
        )
    };
    let login = |path: &str| {
        let code = path.strip_prefix("/login?code=").expect("a login link");
        let (status, _, body) = crate::websec::request(
            &d,
            "POST",
            "/login",
            &[("Content-Type", "application/x-www-form-urlencoded")],
            Some(&format!("code={code}")),
        );
        (status, body)
    };
    let (code, long) = sheet(json!({}));
    assert_eq!(code, 200, "{long}");
    let (_, c) = d.get("/api/v1/contests/hall", Some(ADMIN));
    let end = c["clock"]["end_ms"].as_i64().expect("end");
    assert_eq!(long["expires_ms"].as_i64(), Some(end), "{long}");
    let users: Vec<&str> = long["links"]
        .as_array()
        .expect("links")
        .iter()
        .map(|l| l["user"].as_str().unwrap_or(""))
        .collect();
    assert_eq!(users, ["alice", "bob"]);

    // A sheet that expires in a few seconds: alice logs in once, not twice; bob too late.
    let until = rfc3339((clock.now_ms() / 1000 + 4) * 1000);
    let (code, short) = sheet(json!({ "valid_until": until }));
    assert_eq!(code, 200, "{short}");
    let link = |s: &Value, i: usize| s["links"][i]["path"].as_str().expect("path").to_string();
    let (status, body) = login(&link(&short, 0));
    assert_eq!(status, 303, "alice's link works: {body}");
    let (status, _) = login(&link(&short, 0));
    assert_ne!(status, 303, "once only");
    let expires = short["expires_ms"].as_i64().expect("expires");
    // The daemon's clock moves past the expiry: nothing waits for it.
    clock.advance_to(expires + 500);
    let (status, _) = login(&link(&short, 1));
    assert_ne!(status, 303, "bob's short link expired");
    // The reprint revoked the default sheet's links: bob's says so.
    let (status, body) = login(&link(&long, 1));
    assert_eq!(status, 410, "bob's link of the earlier sheet: {body}");
    assert!(body.contains("revoked"), "{body}");

    // Refusals name the field.
    for (until, why) in [
        ("tomorrow", "expected an RFC 3339 time"),
        (rfc3339(clock.now_ms() - 60_000).as_str(), "is past"),
        (
            rfc3339(clock.now_ms() + 40 * 24 * 3_600_000).as_str(),
            "more than 30 days",
        ),
    ] {
        let (code, e) = sheet(json!({ "valid_until": until }));
        assert_eq!(code, 400, "{until}: {e}");
        assert!(
            message(&e).contains("field `valid_until`") && message(&e).contains(why),
            "{e}"
        );
    }
    let (code, e) = d.post_json(
        "/api/v1/admin/contests/hall/login-links",
        Some(ALICE),
        &json!({}),
    );
    assert_eq!(code, 403, "admins only: {e}");
    let (_, log) = d.get("/api/v1/admin/audit?contest=hall", Some(ADMIN));
    let n = log
        .as_array()
        .expect("log")
        .iter()
        .filter(|a| a["action"] == "login-links")
        .count();
    assert_eq!(n, 2, "{log}");
}

/// A team added to a contest that lists its `participants` takes part: the roster import, the
/// single-team editor and the removal of a team keep the listed participants in step (written
/// into `contest.toml`, audited), so that the new team submits and is ranked, and a removed
/// team's user may no longer submit; a listed user without a team (the jury's) stays listed.
#[test]
fn a_team_added_to_a_listed_contest_takes_part() {
    require_root!();
    let cs = ContestSite::new();
    cs.contest("listed", now_ms() - 60_000).lasting("2h").keys("participants = [\"alice\", \"judge1\"]\n\n[[team]]\nuser = \"alice\"\nname = \"Rocket\"").write();
    let file = cs.file("listed");
    // The `participants` line of the file.
    let listed = || {
        let text = std::fs::read_to_string(&file).expect("toml");
        text.lines()
            .find(|l| l.starts_with("participants = "))
            .unwrap_or_else(|| panic!("participants: {text}"))
            .to_string()
    };
    let d = cs.start();
    let (code, e) = submit(&d, BOB, Some("listed"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 403, "not yet a participant: {e}");

    // The roster import lists bob beside alice.
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/listed/teams",
        Some(ADMIN),
        &json!({"roster": "user,name\nalice,Rocket\nbob,Comet\n"}),
    );
    assert_eq!(code, 200, "{r}");
    assert_eq!(
        r["participants"],
        json!({"admitted": ["bob"], "dismissed": []}),
        "{r}"
    );
    assert_eq!(listed(), r#"participants = ["alice", "judge1", "bob"]"#);
    let (_, c) = d.get("/api/v1/contests/listed", Some(ADMIN));
    assert_eq!(
        c["participants"]["users"],
        json!(["alice", "judge1", "bob"]),
        "{c}"
    );

    // Removing bob's team (no submissions yet) takes him off the list: he may not submit.
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/listed/teams/bob/remove",
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 200, "{r}");
    assert!(
        r["done"]
            .as_str()
            .is_some_and(|s| s.ends_with("; participants: -bob")),
        "{r}"
    );
    assert_eq!(listed(), r#"participants = ["alice", "judge1"]"#);
    let (code, e) = submit(&d, BOB, Some("listed"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 403, "a removed team: {e}");

    // Added again with the single-team editor: bob submits and is ranked.
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/listed/team",
        Some(ADMIN),
        &json!({"user": "bob", "name": "Comet"}),
    );
    assert_eq!(code, 200, "{r}");
    assert!(
        r["done"]
            .as_str()
            .is_some_and(|s| s.ends_with("; participants: +bob")),
        "{r}"
    );
    assert_eq!(listed(), r#"participants = ["alice", "judge1", "bob"]"#);
    let (code, a) = submit(&d, BOB, Some("listed"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "bob takes part: {a}");
    let judged = d.wait_done(a["id"].as_i64().expect("id"), BOB, JUDGED_WITHIN);
    assert_eq!(judged["verdict"], "AC", "{judged}");
    let (code, s) = d.get("/api/v1/contests/listed/standings", Some(BOB));
    assert_eq!(code, 200, "{s}");
    let rows = s["rows"].as_array().expect("rows");
    let bob = rows
        .iter()
        .find(|r| r["user"] == "bob")
        .unwrap_or_else(|| panic!("bob is ranked: {s}"));
    assert_eq!(
        (bob["rank"].clone(), bob["solved"].clone()),
        (json!(1), json!(1)),
        "{s}"
    );

    // Each change is audited with what it did to the participants.
    let (_, log) = d.get("/api/v1/admin/audit?contest=listed", Some(ADMIN));
    let details: Vec<String> = log
        .as_array()
        .expect("log")
        .iter()
        .filter(|a| a["action"] == "roster" || a["action"] == "team")
        .map(|a| a["detail"].as_str().unwrap_or("").to_string())
        .collect();
    for want in [
        "2 teams imported; participants: +bob",
        "team \"bob\" removed; participants: -bob",
        "participants: +bob",
    ] {
        assert!(
            details.iter().any(|d| d.ends_with(want)),
            "{want}: {details:?}"
        );
    }
}

/// An open contest (anyone may take part) ranks every `[[team]]` of its roster from the start:
/// a team that has not submitted yet has its row with nothing solved, on the API and on the
/// standings page, before and after another team's first solve; an observer has none.
#[test]
fn an_open_contest_ranks_its_rostered_teams_before_they_submit() {
    require_root!();
    let cs = ContestSite::new();
    cs.contest("open", now_ms() - 60_000)
        .lasting("2h")
        .keys(
            "[[team]]\nuser = \"alice\"\nname = \"Rocket\"\n\n\
             [[team]]\nuser = \"bob\"\nname = \"Comet\"\n\n\
             [[team]]\nuser = \"watcher\"\nname = \"Lookout\"\ncategory = \"observer\"",
        )
        .write();
    let d = cs.start();
    let rows = |d: &crate::daemon::Daemon| -> Vec<(String, i64)> {
        let (code, s) = d.get("/api/v1/contests/open/standings", Some(BOB));
        assert_eq!(code, 200, "{s}");
        let mut rows: Vec<(String, i64)> = s["rows"]
            .as_array()
            .unwrap_or_else(|| panic!("rows: {s}"))
            .iter()
            .map(|r| {
                let user = r["user"].as_str().expect("user").to_string();
                (user, r["solved"].as_i64().expect("solved"))
            })
            .collect();
        rows.sort();
        rows
    };
    let want = |a: i64| vec![("alice".to_string(), a), ("bob".to_string(), 0)];
    assert_eq!(rows(&d), want(0), "nobody submitted yet");
    let (code, page) = d.get_text("/contests/open/standings", Some(BOB));
    assert_eq!(code, 200, "{page}");
    assert!(page.contains("Rocket") && page.contains("Comet"), "{page}");
    assert!(
        !page.contains("Lookout"),
        "an observer is not ranked: {page}"
    );

    let (code, a) = submit(&d, ALICE, Some("open"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{a}");
    let judged = d.wait_done(a["id"].as_i64().expect("id"), ALICE, JUDGED_WITHIN);
    assert_eq!(judged["verdict"], "AC", "{judged}");
    assert_eq!(rows(&d), want(1), "bob keeps his row beside alice's solve");
}

// ---- issue 23: the per-contest feedback policy ----

/// Issue 23, feedback policy over HTTP: a participant's wrong answer in a contest with
/// `feedback = "verdict"` shows the verdict and no test (page and API); with
/// `"first_failure"` the tests up to the first failing one, without a hidden test's diff;
/// with `"all"` (and by default) every test; an admin sees every test under every policy.
#[test]
fn the_feedback_policy_limits_what_a_participant_sees_over_http() {
    require_root!();
    feedback_over_http(None);
}

/// The same on PostgreSQL (the private cluster of pg.rs; it fails under `CI` without one).
#[test]
fn the_feedback_policy_limits_what_a_participant_sees_over_http_on_postgres() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    feedback_over_http(Some(&cluster.database()));
}

/// The names of a submission's tests as the API shows them.
fn test_names_of(v: &Value) -> Vec<String> {
    v["tests"]
        .as_array()
        .unwrap_or_else(|| panic!("no tests: {v}"))
        .iter()
        .map(|t| t["name"].as_str().unwrap_or("").to_string())
        .collect()
}

fn feedback_over_http(database: Option<&str>) {
    let cs = ContestSite::on(database);
    // A correct program passes the sample and 01-big, fails the hidden 02-many (its answer is
    // broken) and passes 03-more after it: the first failure is not the last test.
    let tests = cs.path().join("problems/aplusb/tests");
    let good = std::fs::read_to_string(tests.join("02-many.ans")).expect("answer");
    std::fs::write(tests.join("02-many.ans"), format!("0\n{good}")).expect("break");
    std::fs::copy(tests.join("01-big.in"), tests.join("03-more.in")).expect("copy");
    std::fs::copy(tests.join("01-big.ans"), tests.join("03-more.ans")).expect("copy");
    for (id, extra) in [
        ("fverdict", "feedback = \"verdict\""),
        ("ffirst", "feedback = \"first_failure\""),
        ("fall", "feedback = \"all\""),
        ("fdefault", ""),
    ] {
        let problem = format!("p{id}");
        cs.copy_problem(&problem);
        cs.contest(id, now_ms() - 600_000)
            .lasting("2h")
            .keys(extra)
            .problems(&[&problem])
            .write();
    }
    let d = cs.start();
    // Submits as `token` to the contest's problem; the "verdict" contest's submission is made
    // outside the contest (the statement page's way) and counts for it all the same.
    let judged = |token: &str, contest: &str| {
        let through = (contest != "fverdict").then_some(contest);
        let (code, r) = submit(&d, token, through, &format!("p{contest}"), "accepted/ac.c");
        assert_eq!(code, 201, "{r}");
        let id = r["id"].as_i64().expect("id");
        d.wait_done(id, token, JUDGED_WITHIN);
        let (code, v) = d.get(&format!("/api/v1/submissions/{id}"), Some(token));
        assert_eq!(code, 200, "{v}");
        assert_eq!(v["contest"], contest, "{v}");
        assert_eq!(v["verdict"], "WA", "{v}");
        let (code, page) = d.get_text(&format!("/submissions/{id}"), Some(token));
        assert_eq!(code, 200);
        let (code, results) = d.get_text(&format!("/submissions/{id}/results"), Some(token));
        assert_eq!(code, 200);
        (id, v, page, results)
    };
    let all = ["sample-1", "01-big", "02-many", "03-more"];

    // "verdict": the verdict, no test row, no diff, no checker message.
    let (id, v, page, results) = judged(ALICE, "fverdict");
    assert_eq!(v["tests"], json!([]), "{v}");
    assert_eq!(v["feedback"], "verdict", "{v}");
    for html in [&page, &results] {
        assert!(
            html.contains("Wrong Answer"),
            "the verdict is shown: {html}"
        );
        assert!(html.contains("id=\"feedback-note\""), "{html}");
        assert!(!html.contains("class=\"tests\""), "no test table: {html}");
        for name in all {
            assert!(
                !html.contains(name),
                "test {name} named under \"verdict\": {html}"
            );
        }
        assert!(
            !html.contains("id=\"diff-"),
            "a diff under \"verdict\": {html}"
        );
        assert!(
            !html.contains("wrong answer (details"),
            "a checker message: {html}"
        );
    }
    // The admin sees every test of the same submission.
    let (_, a) = d.get(&format!("/api/v1/submissions/{id}"), Some(ADMIN));
    assert_eq!(test_names_of(&a), all, "{a}");
    assert!(a.get("feedback").is_none(), "{a}");
    let (_, admin_page) = d.get_text(&format!("/submissions/{id}"), Some(ADMIN));
    for name in all {
        assert!(admin_page.contains(name), "the admin misses {name}");
    }

    // The Contest API's runs follow the policy for teams and the public, not for admins.
    let runs = |contest: &str, token: Option<&str>| {
        let (code, r) = d.get(&format!("/api/contests/{contest}/runs"), token);
        assert_eq!(code, 200, "{r}");
        r.as_array().expect("runs").len()
    };
    assert_eq!(runs("fverdict", Some(ALICE)), 0);
    assert_eq!(runs("fverdict", None), 0);
    assert_eq!(runs("fverdict", Some(ADMIN)), 4);

    // "first_failure": the tests up to and including the hidden 02-many, its message, no diff.
    let (id, v, page, _) = judged(BOB, "ffirst");
    assert_eq!(test_names_of(&v), &all[..3], "{v}");
    assert_eq!(v["feedback"], "first_failure", "{v}");
    let failing = &v["tests"][2];
    assert_eq!(failing["verdict"], "WA", "{v}");
    assert!(failing["diff"].is_null(), "a hidden test's diff: {v}");
    assert!(
        !failing["message"].as_str().unwrap_or("").is_empty(),
        "the failing test's message is shown: {v}"
    );
    assert!(
        page.contains("02-many") && !page.contains("03-more"),
        "{page}"
    );
    let (_, a) = d.get(&format!("/api/v1/submissions/{id}"), Some(ADMIN));
    assert_eq!(test_names_of(&a), all, "{a}");
    assert!(
        !a["tests"][2]["diff"].is_null(),
        "the admin sees the diff: {a}"
    );
    assert_eq!(runs("ffirst", Some(BOB)), 3);
    assert_eq!(runs("ffirst", Some(ADMIN)), 4);

    // "all" and the default: every test, as before.
    let mut shown_all = 0;
    for contest in ["fall", "fdefault"] {
        let (id, v, page, _) = judged(ALICE, contest);
        assert_eq!(test_names_of(&v), all, "{contest}: {v}");
        assert!(v.get("feedback").is_none(), "{v}");
        assert!(
            page.contains("03-more") && !page.contains("feedback-note"),
            "{page}"
        );
        shown_all = id;
        assert_eq!(runs(contest, Some(ALICE)), 4);
    }

    // The director's edit: a bad value is refused naming the field; "verdict" is saved at once
    // (it changes nothing of the standings) and applies to the submissions already made.
    let (code, mut def) = d.get("/api/v1/admin/contests/fdefault/definition", Some(ADMIN));
    assert_eq!(code, 200, "{def}");
    assert_eq!(def["feedback"], "all", "{def}");
    def["feedback"] = json!("tests");
    let edit = |body: &Value| {
        d.post_json(
            "/api/v1/admin/contests/fdefault/definition",
            Some(ADMIN),
            body,
        )
    };
    let (code, e) = edit(&def);
    assert_eq!(code, 400, "{e}");
    assert!(e.to_string().contains("feedback"), "{e}");
    def["feedback"] = json!("verdict");
    let (code, r) = edit(&def);
    assert_eq!(code, 200, "{r}");
    assert_eq!(r["changes"], json!(["feedback: all → verdict"]), "{r}");
    let (_, v) = d.get(&format!("/api/v1/submissions/{shown_all}"), Some(ALICE));
    assert_eq!(v["tests"], json!([]), "{v}");
    assert_eq!(v["feedback"], "verdict", "{v}");
}

// ---- issue 25: exact points in the daemon ----

/// A judged submission with fractional points (a group worth 12.5, CMS style) ends with the
/// exact score everywhere: the submission's API (the whole `score` kept, `score_milli` added),
/// its page and the list, the IOI standings (API, page, CSV) and the Contest API's judgement
/// and scoreboard, on SQLite.
#[test]
fn fractional_points_are_exact_everywhere_over_http() {
    require_root!();
    fractional_points_over_http(None);
}

/// The same on PostgreSQL (the private cluster of pg.rs; it fails under `CI` without one).
#[test]
fn fractional_points_are_exact_everywhere_over_http_on_postgres() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    fractional_points_over_http(Some(&cluster.database()));
}

fn fractional_points_over_http(database: Option<&str>) {
    let cs = ContestSite::on(database);
    cs.contest("ioi", now_ms() - 600_000)
        .lasting("2h")
        .keys("scoring = \"ioi\"")
        .write();
    let package = cs.path().join("problems/aplusb");
    let toml = package.join("problem.toml");
    let mut text = std::fs::read_to_string(&toml).expect("problem.toml");
    text.push_str(
        "\n[[group]]\nname = \"big\"\npoints = 12.5\ntests = [\"01\"]\n\
         [[group]]\nname = \"many\"\npoints = 87.5\ntests = [\"02\"]\n",
    );
    std::fs::write(&toml, text).expect("groups");
    // A broken 02-many: only "big" passes, 12.5 points.
    let answer = package.join("tests/02-many.ans");
    let many = std::fs::read_to_string(&answer).expect("answer");
    std::fs::write(&answer, format!("0\n{many}")).expect("break");
    let d = cs.start();
    let (code, a) = submit(&d, ALICE, Some("ioi"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{a}");
    let id = a["id"].as_i64().expect("id");
    let done = d.wait_done(id, ALICE, JUDGED_WITHIN);
    assert_eq!(
        (done["score"].as_i64(), done["score_milli"].as_i64()),
        (Some(12), Some(12_500)),
        "the whole score kept, the exact one added: {done}"
    );
    let (code, list) = d.get("/api/v1/submissions?limit=5", Some(ALICE));
    assert_eq!(code, 200, "{list}");
    let row = list
        .as_array()
        .or_else(|| list["rows"].as_array())
        .and_then(|r| r.iter().find(|r| r["id"] == id))
        .unwrap_or_else(|| panic!("submission {id} listed: {list}"))
        .clone();
    assert_eq!(row["score_milli"], 12_500, "{row}");

    // The submission's page: the points and each group's.
    let (code, page) = d.get_text(&format!("/submissions/{id}"), Some(ALICE));
    assert_eq!(code, 200);
    assert!(page.contains("12.5 points"), "{page}");
    assert!(page.contains("12.5 / 12.5"), "group big: {page}");
    assert!(page.contains("0 / 87.5"), "group many: {page}");
    let (code, page) = d.get_text("/submissions", Some(ALICE));
    assert_eq!(code, 200);
    assert!(
        page.contains("<span class=\"muted points\">12.5</span>"),
        "the list shows the points: {page}"
    );

    // The standings: API, page, CSV.
    let (code, s) = d.get("/api/v1/contests/ioi/standings", Some(BOB));
    assert_eq!(code, 200, "{s}");
    let r = &s["rows"][0];
    assert_eq!(
        (
            r["user"].as_str(),
            r["score"].as_i64(),
            r["score_milli"].as_i64(),
            r["cells"][0]["score"].as_i64(),
            r["cells"][0]["score_milli"].as_i64(),
        ),
        (
            Some("alice"),
            Some(12),
            Some(12_500),
            Some(12),
            Some(12_500)
        ),
        "{s}"
    );
    let (code, page) = d.get_text("/contests/ioi/standings", Some(BOB));
    assert_eq!(code, 200);
    assert!(page.contains("<td class=\"num\">12.5</td>"), "{page}");
    assert!(page.contains("<span class=\"main\">12.5</span>"), "{page}");
    let (code, csv) = d.get_text("/api/v1/admin/contests/ioi/standings.csv", Some(ADMIN));
    assert_eq!(code, 200, "{csv}");
    assert!(csv.lines().any(|l| l == "1,alice,0,0,12.5,12.5"), "{csv}");

    // The Contest API: decimals, as CLICS allows.
    let (code, sb) = d.get("/api/contests/ioi/scoreboard", Some(ADMIN));
    assert_eq!(code, 200, "{sb}");
    assert_eq!(sb["rows"][0]["score"]["score"].as_f64(), Some(12.5), "{sb}");
    assert_eq!(
        sb["rows"][0]["problems"][0]["score"].as_f64(),
        Some(12.5),
        "{sb}"
    );
    assert!(
        sb["rows"][0]["problems"][0]["time"].is_u64(),
        "the minute of the best score: {sb}"
    );
    let (code, js) = d.get("/api/contests/ioi/judgements", Some(ADMIN));
    assert_eq!(code, 200, "{js}");
    let scores: Vec<f64> = js
        .as_array()
        .expect("judgements")
        .iter()
        .filter_map(|j| j["score"].as_f64())
        .collect();
    assert_eq!(scores, [12.5], "{js}");
    let (code, ps) = d.get("/api/contests/ioi/problems", Some(ADMIN));
    assert_eq!(code, 200, "{ps}");
    assert_eq!(ps[0]["max_score"].as_f64(), Some(100.0), "{ps}");
}

// ---- issue 21: standings cached, and forgotten by every change ----

/// With `standings_cache = "1h"` (no time-based refresh during the test), the cached standings
/// change at once with each event that changes them: a submission made (pending), a finished
/// judging, an override and its removal, an ignored submission, an unfreeze and a freeze, a
/// definition edit, and a rejudging applied (but not its judgings before the apply). A stale
/// board is a wrong board. On SQLite.
#[test]
fn cached_standings_follow_every_change_over_http() {
    require_root!();
    cached_standings_over_http(None);
}

/// The same on PostgreSQL.
#[test]
fn cached_standings_follow_every_change_over_http_on_postgres() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    cached_standings_over_http(Some(&cluster.database()));
}

fn cached_standings_over_http(database: Option<&str>) {
    let cs = ContestSite::builder()
        .database(database)
        .settings("standings_cache = \"1h\"")
        .build();
    // Started 100 minutes ago, 2 hours long, frozen for its last hour (since 40 minutes).
    cs.contest("live", now_ms() - 100 * 60_000)
        .lasting("2h")
        .keys("freeze = \"1h\"")
        .write();
    let d = cs.start();
    // alice's row as `token` sees it: (solved, tries, pending, penalty); None: no row.
    let row = |token: &str| -> Option<(i64, i64, i64, i64)> {
        let (code, s) = d.get("/api/v1/contests/live/standings", Some(token));
        assert_eq!(code, 200, "{s}");
        let r = s["rows"]
            .as_array()?
            .iter()
            .find(|r| r["user"] == "alice")?;
        let n = |v: &Value| v.as_i64().unwrap_or(-1);
        Some((
            n(&r["solved"]),
            n(&r["cells"][0]["tries"]),
            n(&r["cells"][0]["pending"]),
            n(&r["penalty"]),
        ))
    };
    assert_eq!(row(ADMIN), None);
    assert_eq!(row(BOB), None);

    // A submission made: pending at once (for both views, cached before it).
    let (code, wa) = submit(
        &d,
        ALICE,
        Some("live"),
        "aplusb",
        "wrong_answer/wa_second_line.c",
    );
    assert_eq!(code, 201, "{wa}");
    let wa = wa["id"].as_i64().expect("id");
    let (_, tries, pending, _) = row(ADMIN).expect("a row at once");
    assert_eq!(tries + pending, 1, "pending, or judged already");
    assert_eq!(row(BOB).map(|r| r.2), Some(1), "frozen for bob: pending");

    // A finished judging.
    d.wait_done(wa, ALICE, JUDGED_WITHIN);
    assert_eq!(row(ADMIN), Some((0, 1, 0, 0)));
    let (code, ac) = submit(&d, ALICE, Some("live"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{ac}");
    let ac = ac["id"].as_i64().expect("id");
    row(ADMIN);
    d.wait_done(ac, ALICE, JUDGED_WITHIN);
    let (solved, tries, pending, penalty) = row(ADMIN).expect("row");
    assert_eq!((solved, tries, pending), (1, 1, 0));
    assert!(
        (100..=102).contains(&(penalty - 20)),
        "minute ~100 + 20: {penalty}"
    );

    // An override, and its removal.
    let set = |id: i64, verdict: Value| {
        let body = json!({"verdict": verdict, "reason": "the jury's"});
        let (code, r) = d.post_json(
            &format!("/api/v1/admin/submissions/{id}/override"),
            Some(ADMIN),
            &body,
        );
        assert_eq!(code, 200, "{r}");
    };
    set(ac, json!("WA"));
    assert_eq!(row(ADMIN).map(|r| (r.0, r.1)), Some((0, 2)), "overridden");
    set(ac, Value::Null);
    assert_eq!(row(ADMIN).map(|r| (r.0, r.1)), Some((1, 1)), "removed");

    // An ignored submission, and ranked again.
    let ignore = |ignored: bool| {
        let (code, r) = d.post_json(
            &format!("/api/v1/admin/submissions/{wa}/ignore"),
            Some(ADMIN),
            &json!({ "ignored": ignored }),
        );
        assert_eq!(code, 200, "{r}");
    };
    ignore(true);
    assert_eq!(row(ADMIN), Some((1, 0, 0, penalty - 20)), "the WA ignored");
    ignore(false);
    assert_eq!(row(ADMIN), Some((1, 1, 0, penalty)), "ranked again");

    // The freeze: bob sees both attempts pending, the unfreeze reveals them, a freeze hides
    // them again.
    assert_eq!(row(BOB), Some((0, 0, 2, 0)));
    let freeze = |action: &str| {
        let (code, r) = d.post_json(
            &format!("/api/v1/admin/contests/live/{action}"),
            Some(ADMIN),
            &json!({}),
        );
        assert_eq!(code, 200, "{r}");
    };
    freeze("unfreeze");
    assert_eq!(row(BOB), Some((1, 1, 0, penalty)), "unfrozen");
    freeze("freeze");
    assert_eq!(row(BOB), Some((0, 0, 2, 0)), "frozen again");

    // A definition edit: the penalty per try from 20 to 10 minutes.
    let (code, mut def) = d.get("/api/v1/admin/contests/live/definition", Some(ADMIN));
    assert_eq!(code, 200, "{def}");
    def["penalty"] = json!("10");
    def["confirm"] = json!(true);
    let (code, r) = d.post_json("/api/v1/admin/contests/live/definition", Some(ADMIN), &def);
    assert_eq!(code, 200, "{r}");
    assert_eq!(row(ADMIN), Some((1, 1, 0, penalty - 10)), "{r}");

    // A rejudging against a broken answer: its judgings change nothing until it is applied.
    let answer = cs.path().join("problems/aplusb/tests/01-big.ans");
    let good = std::fs::read_to_string(&answer).expect("answer");
    std::fs::write(&answer, format!("0\n{good}")).expect("break");
    let (code, _) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
    assert_eq!(code, 200);
    let (code, r) = d.post_json(
        "/api/v1/admin/rejudgings",
        Some(ADMIN),
        &json!({ "submission": ac }),
    );
    assert_eq!(code, 201, "{r}");
    let rid = r["id"].as_i64().expect("id");
    assert_eq!(row(ADMIN).map(|r| r.0), Some(1));
    let report = wait_rejudged(&d, rid);
    assert_eq!(report["changed"], 1, "{report}");
    assert_eq!(row(ADMIN).map(|r| r.0), Some(1), "not applied yet");
    let (code, e) = d.post_json(
        &format!("/api/v1/admin/rejudgings/{rid}/apply"),
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 200, "{e}");
    assert_eq!(row(ADMIN), Some((0, 2, 0, 0)), "applied");
}
