//! The daemon (`ojd serve`) over real HTTP on 127.0.0.1: verdicts of every known submission,
//! who may see what, limits and 4xx errors, kill -9 and restart, graceful shutdown.

use std::time::Duration;

use serde_json::{json, Value};

use crate::common;
use crate::daemon::{host_binary, known_submissions, Site, ADMIN, ALICE, BOB};

const JUDGED_WITHIN: Duration = Duration::from_secs(180);

#[test]
fn every_known_submission_gets_its_verdict_over_http() {
    require_root!();
    let site = Site::new("rate_limit_per_minute = 0");
    let d = site.start();
    let (code, problems) = d.get("/api/v1/problems", None);
    assert_eq!(code, 200);
    assert_eq!(problems[0]["id"], "aplusb", "{problems}");

    let known = known_submissions();
    assert!(known.len() >= 10, "the fixture has its submissions");
    let ids: Vec<(i64, &String, String)> = known
        .iter()
        .map(|(verdict, file)| {
            (
                d.submit_file(ALICE, file),
                verdict,
                file.display().to_string(),
            )
        })
        .collect();
    // A ready binary, uploaded as a file: its language is found from the ELF header.
    let bin = host_binary(
        &common::testdata("aplusb/submissions/accepted/ac.c"),
        &site.path().join("ac.bin"),
    );
    let (code, body) = d.post_file(BOB, &[("problem", "aplusb")], "a.out", &bin);
    assert_eq!(code, 201, "{body}");
    let bin_id = body["id"].as_i64().expect("id");

    // One stream followed live from the start: progress test by test, then the verdict.
    let events = d.events(ids[0].0, ALICE, JUDGED_WITHIN);
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names.last(), Some(&"done"), "{names:?}");
    assert!(names.contains(&"test") || names[0] == "done", "{names:?}");

    for (id, verdict, file) in &ids {
        let s = d.wait_done(*id, ALICE, JUDGED_WITHIN);
        assert_eq!(s["verdict"].as_str(), Some(verdict.as_str()), "{file}: {s}");
        assert_eq!(s["judged"], 1, "{s}");
        if verdict.as_str() != "CE" {
            assert_eq!(s["tests"].as_array().map(Vec::len), Some(3), "{file}: {s}");
        }
    }
    let s = d.wait_done(bin_id, BOB, JUDGED_WITHIN);
    assert_eq!(
        (s["verdict"].as_str(), s["language"].as_str()),
        (Some("AC"), Some("binary")),
        "{s}"
    );

    // Alice lists her own, newest first; the metrics count them.
    let (_, mine) = d.get("/api/v1/submissions?limit=500", Some(ALICE));
    assert_eq!(mine.as_array().map(Vec::len), Some(ids.len()));
    let (_, metrics) = d.get_text("/metrics", Some(ADMIN));
    assert!(
        metrics.contains(&format!("ojd_judged_total {}", ids.len() + 1)),
        "{metrics}"
    );
    assert!(
        metrics.contains(&format!(
            "ojd_verdicts_total{{verdict=\"TLE\"}} {}",
            known.iter().filter(|(v, _)| v == "TLE").count()
        )),
        "{metrics}"
    );
    assert!(metrics.contains("ojd_queue_length 0"), "{metrics}");
    let (code, health) = d.get("/healthz", None);
    assert_eq!((code, health["status"].as_str()), (200, Some("ok")));
}

#[test]
fn students_see_only_their_own_submissions_and_no_secrets() {
    require_root!();
    let site = Site::new("rate_limit_per_minute = 3");
    let d = site.start();
    let wa = common::testdata("aplusb/submissions/wrong_answer/wa_second_line.c");
    let id = d.submit_file(ALICE, &wa);
    let s = d.wait_done(id, ALICE, JUDGED_WITHIN);
    assert_eq!(s["verdict"], "WA");
    let secret_answer =
        std::fs::read_to_string(common::testdata("aplusb/tests/02-many.ans")).expect("answer");
    let secret_line = secret_answer.lines().nth(1).expect("a second line");

    // Alice sees the sample's diff, but nothing of the secret tests beyond verdict and time.
    let tests = s["tests"].as_array().expect("tests");
    let sample = tests
        .iter()
        .find(|t| t["sample"] == true)
        .expect("a sample");
    assert!(sample["diff"].is_object(), "{sample}");
    for t in tests.iter().filter(|t| t["sample"] == false) {
        assert!(t["diff"].is_null(), "a secret diff leaked: {t}");
        assert!(
            !t["message"].as_str().unwrap_or("").contains("expected"),
            "{t}"
        );
    }
    assert!(
        !s.to_string().contains(secret_line),
        "a secret answer leaked: {s}"
    );

    // Bob cannot read it, stream it, or list it.
    let (code, _) = d.get(&format!("/api/v1/submissions/{id}"), Some(BOB));
    assert_eq!(code, 404);
    let (code, _) = d.get(&format!("/api/v1/submissions/{id}/events"), Some(BOB));
    assert_eq!(code, 404);
    let (code, body) = d.get_text(&format!("/submissions/{id}"), Some(BOB));
    assert_eq!(code, 404, "{body}");
    let (_, list) = d.get("/api/v1/submissions", Some(BOB));
    assert_eq!(list, json!([]));
    let (code, _) = d.get("/api/v1/submissions?user=alice", Some(BOB));
    assert_eq!(code, 403);
    // Without a token: 401 with a JSON error.
    let (code, body) = d.get(&format!("/api/v1/submissions/{id}"), None);
    assert_eq!(
        (code, body["error"]["code"].as_str()),
        (401, Some("unauthorized"))
    );

    // Test files: samples for anyone, secret ones for admins only.
    let (code, _) = d.get("/api/v1/problems/aplusb/tests/sample-1", Some(BOB));
    assert_eq!(code, 200);
    let (code, body) = d.get("/api/v1/problems/aplusb/tests/02-many", Some(ALICE));
    assert_eq!(
        (code, body["error"]["code"].as_str()),
        (403, Some("forbidden"))
    );
    let (code, body) = d.get("/api/v1/problems/aplusb/tests/02-many", Some(ADMIN));
    assert_eq!(code, 200);
    assert_eq!(body["answer"].as_str(), Some(secret_answer.as_str()));
    let (_, problem) = d.get("/api/v1/problems/aplusb", None);
    assert!(
        !problem.to_string().contains(secret_line),
        "the problem view leaked a secret answer"
    );
    // Admins see the secret diffs.
    let (_, as_admin) = d.get(&format!("/api/v1/submissions/{id}"), Some(ADMIN));
    assert!(
        as_admin["tests"]
            .as_array()
            .expect("tests")
            .iter()
            .all(|t| t["diff"].is_object()),
        "{as_admin}"
    );

    // Admin endpoints need the admin token.
    let (code, _) = d.post_json(
        &format!("/api/v1/admin/submissions/{id}/rejudge"),
        Some(ALICE),
        &json!({}),
    );
    assert_eq!(code, 403);
    let (code, _) = d.post_json("/api/v1/admin/reload", None, &json!({}));
    assert_eq!(code, 401);
    let (code, body) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
    assert_eq!(
        (code, body["problems"].clone()),
        (200, json!(["aplusb"])),
        "{body}"
    );
    let (code, _) = d.post_json(
        &format!("/api/v1/admin/submissions/{id}/rejudge"),
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 202);
    let again = d.wait_done(id, ALICE, JUDGED_WITHIN);
    assert_eq!(
        (again["verdict"].as_str(), again["judged"].as_i64()),
        (Some("WA"), Some(2)),
        "{again}"
    );
}

#[test]
fn bad_submissions_get_clear_4xx_json_errors() {
    require_root!();
    let site = Site::new("rate_limit_per_minute = 3\nmax_submission_size = \"4KiB\"");
    let d = site.start();
    let submit = |body: Value| d.post_json("/api/v1/submissions", Some(BOB), &body);
    let cases: Vec<(Value, u16, &str)> = vec![
        (
            json!({ "problem": "nope", "language": "c", "source": "int main(){}" }),
            404,
            "not_found",
        ),
        (
            json!({ "problem": "aplusb", "language": "c", "source": "  " }),
            400,
            "bad_request",
        ),
        (
            json!({ "problem": "aplusb", "language": "cobol", "source": "x" }),
            400,
            "bad_request",
        ),
        (
            json!({ "problem": "aplusb", "source": "print(1)" }),
            400,
            "bad_request",
        ),
        (
            json!({ "problem": "aplusb", "language": "c", "source": "x".repeat(5000) }),
            413,
            "too_large",
        ),
        (
            json!({ "problem": "aplusb", "language": "binary", "source": "not an ELF" }),
            400,
            "bad_request",
        ),
        (json!({ "language": "c" }), 400, "bad_request"),
    ];
    for (body, want, code) in cases {
        let (got, err) = submit(body.clone());
        assert_eq!(
            (got, err["error"]["code"].as_str()),
            (want, Some(code)),
            "{body}: {err}"
        );
        assert!(
            err["error"]["message"]
                .as_str()
                .is_some_and(|m| !m.is_empty()),
            "{err}"
        );
    }
    // An upload over the limit.
    let fields = [("problem", "aplusb"), ("language", "c")];
    let (got, err) = d.post_file(BOB, &fields, "big.c", &vec![b'x'; 5000]);
    assert_eq!(
        (got, err["error"]["code"].as_str()),
        (413, Some("too_large")),
        "{err}"
    );
    // A body far over it is refused before it is read whole: a 413, or the connection closed
    // while the client was still sending.
    match d.post_file_raw(BOB, &fields, "big.c", &vec![b'x'; 200_000]) {
        Err(ureq::Error::Transport(_)) => {}
        r => {
            let (got, err) = crate::daemon::response(r);
            assert_eq!(
                (got, err["error"]["code"].as_str()),
                (413, Some("too_large")),
                "{err}"
            );
        }
    }
    let (got, _) = d.post_json("/api/v1/submissions", Some(BOB), &json!("not an object"));
    assert_eq!(got, 400);

    // The rate limit: three a minute, then 429 with Retry-After.
    let ok = json!({ "problem": "aplusb", "language": "c", "source": "int main(void){return 0;}" });
    for _ in 0..3 {
        assert_eq!(submit(ok.clone()).0, 201);
    }
    let (got, err) = submit(ok.clone());
    assert_eq!(
        (got, err["error"]["code"].as_str()),
        (429, Some("rate_limited")),
        "{err}"
    );
    // Another student is not affected.
    assert_eq!(d.post_json("/api/v1/submissions", Some(ALICE), &ok).0, 201);
}

#[test]
fn pages_render_the_statement_and_a_submission() {
    require_root!();
    let site = Site::new("");
    let d = site.start();
    let (code, index) = d.get_text("/", None);
    assert_eq!(code, 200);
    assert!(index.contains("A+B (fixture)"), "{index}");
    let (code, statement) = d.get_text("/problems/aplusb", Some(ALICE));
    assert_eq!(code, 200);
    assert!(
        statement.contains("<h2>题目描述</h2>") && statement.contains("输出它们的和"),
        "{statement}"
    );
    assert!(
        statement.contains("id=\"submit-form\""),
        "logged in: the form is shown"
    );
    let (_, anonymous) = d.get_text("/problems/aplusb", None);
    assert!(!anonymous.contains("id=\"submit-form\"") && anonymous.contains("Log in"));
    let (code, _) = d.get_text("/submissions", None);
    assert_eq!(code, 200, "redirected to the login page");

    let id = d.submit_file(
        ALICE,
        &common::testdata("aplusb/submissions/wrong_answer/wa_second_line.c"),
    );
    d.wait_done(id, ALICE, JUDGED_WITHIN);
    let (code, page) = d.get_text(&format!("/submissions/{id}"), Some(ALICE));
    assert_eq!(code, 200);
    assert!(
        page.contains("v-WA") && page.contains("<mark>"),
        "the diff marks what differs: {page}"
    );
    let (_, list) = d.get_text("/submissions", Some(ALICE));
    assert!(list.contains(&format!("/submissions/{id}")), "{list}");

    // The operator's log: the queueing as structured fields, then the stored verdict.
    let log = d.log();
    let queued = log
        .lines()
        .find(|l| l.contains("queued") && l.contains(&format!("submission={id} ")))
        .unwrap_or_else(|| panic!("no queued event for {id}: {log}"));
    for field in [
        "user=\"alice\"",
        "problem=\"aplusb\"",
        "language=\"c\"",
        " INFO ",
    ] {
        assert!(queued.contains(field), "{field} in {queued}");
    }
    assert!(
        log.contains(&format!("submission {id}: WA in ")),
        "the verdict is logged: {log}"
    );
}

/// Opens the daemon's database read-only, for checks.
fn open_db(site: &Site) -> rusqlite::Connection {
    rusqlite::Connection::open_with_flags(
        site.database(),
        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
    )
    .expect("open the database")
}

#[test]
fn kill_9_during_judging_then_restart_judges_everything_exactly_once() {
    require_root!();
    let site = Site::new("rate_limit_per_minute = 0");
    let d = site.start();
    let slow = common::testdata("aplusb/submissions/time_limit_exceeded/sleep.c");
    let plan = [
        ("TLE", slow.clone()),
        ("TLE", slow.clone()),
        ("AC", common::testdata("aplusb/submissions/accepted/ac.c")),
        (
            "WA",
            common::testdata("aplusb/submissions/wrong_answer/wa_second_line.c"),
        ),
        (
            "RE",
            common::testdata("aplusb/submissions/runtime_error/exit3.c"),
        ),
        ("AC", common::testdata("aplusb/submissions/accepted/ac.py")),
    ];
    let ids: Vec<(i64, &str)> = plan
        .iter()
        .map(|(v, f)| (d.submit_file(ALICE, f), *v))
        .collect();
    // Kill once both workers are inside the slow submissions (each takes 3 x 3 s of wall time).
    let deadline = std::time::Instant::now() + JUDGED_WITHIN;
    loop {
        let (_, a) = d.get(&format!("/api/v1/submissions/{}", ids[0].0), Some(ALICE));
        let (_, b) = d.get(&format!("/api/v1/submissions/{}", ids[1].0), Some(ALICE));
        if a["state"] == "judging" && b["state"] == "judging" {
            break;
        }
        assert!(
            std::time::Instant::now() < deadline,
            "the slow submissions never started"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
    std::thread::sleep(Duration::from_millis(1500));
    d.kill9();

    {
        let db = open_db(&site);
        let judging: i64 = db
            .query_row(
                "SELECT COUNT(*) FROM submissions WHERE state = 'judging'",
                [],
                |r| r.get(0),
            )
            .expect("count");
        assert_eq!(
            judging, 2,
            "both slow submissions were half-judged when killed"
        );
    }

    let d = site.start();
    for (id, verdict) in &ids {
        let s = d.wait_done(*id, ALICE, JUDGED_WITHIN);
        assert_eq!(s["verdict"].as_str(), Some(*verdict), "{s}");
    }
    let (status, took) = d.terminate(Duration::from_secs(30));
    assert!(status.success(), "clean exit after SIGTERM: {status:?}");
    assert!(took < Duration::from_secs(10), "stopped in {took:?}");

    let db = open_db(&site);
    let mut st = db
        .prepare(
            "SELECT s.id, s.state, j.verdict,
               (SELECT COUNT(*) FROM judgings k WHERE k.submission = s.id AND k.finished_at IS NOT NULL),
               s.attempts, (SELECT COUNT(*) FROM judging_results r WHERE r.judging = j.id)
             FROM submissions s JOIN judgings j ON j.id = s.current_judging ORDER BY s.id",
        )
        .expect("query");
    let rows: Vec<(i64, String, String, i64, i64, i64)> = st
        .query_map([], |r| {
            Ok((
                r.get(0)?,
                r.get(1)?,
                r.get(2)?,
                r.get(3)?,
                r.get(4)?,
                r.get(5)?,
            ))
        })
        .expect("rows")
        .map(|r| r.expect("row"))
        .collect();
    assert_eq!(
        rows.len(),
        ids.len(),
        "nothing lost, nothing added: {rows:?}"
    );
    for ((id, state, verdict, judged, attempts, results), (want_id, want)) in rows.iter().zip(&ids)
    {
        assert_eq!(
            (id, state.as_str(), verdict.as_str()),
            (want_id, "done", *want),
            "{rows:?}"
        );
        assert_eq!(
            *judged, 1,
            "submission {id} was stored exactly once: {rows:?}"
        );
        assert_eq!(*results, 3, "one row per test: {rows:?}");
        if *id == ids[0].0 || *id == ids[1].0 {
            assert_eq!(
                *attempts, 2,
                "the interrupted submissions were judged again: {rows:?}"
            );
        }
    }
}

#[test]
fn sigterm_requeues_in_flight_work_within_the_grace_bound() {
    require_root!();
    let site = Site::new("rate_limit_per_minute = 0");
    let d = site.start();
    let slow = common::testdata("aplusb/submissions/time_limit_exceeded/sleep.c");
    let id = d.submit_file(ALICE, &slow);
    let deadline = std::time::Instant::now() + JUDGED_WITHIN;
    while d.get(&format!("/api/v1/submissions/{id}"), Some(ALICE)).1["state"] != "judging" {
        assert!(std::time::Instant::now() < deadline, "never started");
        std::thread::sleep(Duration::from_millis(20));
    }
    // Grace is 2 s; a test runs for at most its 3 s wall limit before cancellation is seen.
    let (status, took) = d.terminate(Duration::from_secs(30));
    assert!(status.success(), "{status:?}");
    assert!(took < Duration::from_secs(9), "SIGTERM took {took:?}");
    {
        let db = open_db(&site);
        let (state, judged): (String, i64) = db
            .query_row(
                "SELECT state, (SELECT COUNT(*) FROM judgings j WHERE j.submission = s.id AND j.finished_at IS NOT NULL)
                 FROM submissions s WHERE id = ?1",
                [id],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .expect("row");
        assert_eq!(
            (state.as_str(), judged),
            ("queued", 0),
            "cancelled and back in the queue"
        );
    }
    let d = site.start();
    let s = d.wait_done(id, ALICE, JUDGED_WITHIN);
    assert_eq!(
        (s["verdict"].as_str(), s["judged"].as_i64()),
        (Some("TLE"), Some(1)),
        "{s}"
    );
}

/// `server::run` in-process, driven by its shutdown future: it must return `Ok` every time,
/// however the end of the HTTP side and the shutdown signal interleave.
#[test]
fn run_returns_ok_when_its_shutdown_future_completes() {
    use std::sync::Arc;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};

    let problems = tempfile::tempdir().expect("temp dir");
    let runtime = tokio::runtime::Runtime::new().expect("runtime");
    for round in 0..20 {
        let mut config = ojd::config::Config::defaults();
        config.server.problems = problems.path().to_path_buf();
        config.server.shutdown_grace = Duration::from_secs(1);
        let judge = common::judge_with(config.clone(), 1);
        let store = Arc::new(ojd::store::SqliteStore::in_memory().expect("store"));
        let app = ojd::server::App::with_store(config, judge, 1, store).expect("app");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            let addr = listener.local_addr().expect("addr");
            let (tx, rx) = tokio::sync::oneshot::channel::<()>();
            let served = tokio::spawn(ojd::server::run(listener, app, async move {
                let _ = rx.await;
            }));
            let mut s = tokio::net::TcpStream::connect(addr).await.expect("connect");
            s.write_all(b"GET /healthz HTTP/1.1\r\nHost: ojd\r\nConnection: close\r\n\r\n")
                .await
                .expect("write");
            let mut reply = String::new();
            s.read_to_string(&mut reply).await.expect("read");
            assert!(reply.starts_with("HTTP/1.1 200"), "{reply}");
            let _ = tx.send(());
            let r = tokio::time::timeout(Duration::from_secs(20), served).await;
            assert!(matches!(r, Ok(Ok(Ok(())))), "round {round}: {r:?}");
        });
    }
}

#[test]
fn a_second_daemon_on_the_same_database_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let mut config = ojd::config::Config::defaults();
    config.server.database = dir.path().join("ojd.sqlite3");
    config.server.problems = dir.path().join("problems");
    let first = ojd::server::App::start(config.clone(), crate::common::judge(1), 1).unwrap();
    let second = ojd::server::App::start(config.clone(), crate::common::judge(1), 1);
    let message = second.err().expect("the database is taken").to_string();
    assert!(
        message.contains("another ojd serve is using the database"),
        "{message}"
    );
    drop(first);
    // The lock goes with the daemon that held it.
    ojd::server::App::start(config, crate::common::judge(1), 1).unwrap();
}
