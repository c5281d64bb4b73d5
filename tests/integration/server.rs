//! The daemon (`ojd serve`) over real HTTP on 127.0.0.1: verdicts of every known submission,
//! who may see what, limits and 4xx errors, kill -9 and restart, graceful shutdown.

use std::time::Duration;

use serde_json::{json, Value};

use crate::common;
use crate::daemon::{host_binary, known_submissions, Site, ADMIN, ALICE, BOB, JUDGED_WITHIN};

#[test]
fn every_known_submission_gets_its_verdict_over_http() {
    require_root!();
    let site = Site::new("rate_limit_per_minute = 0");
    let d = site.start();
    let (code, problems) = d.get("/api/v1/problems", None);
    assert_eq!(code, 200);
    assert_eq!(problems[0]["id"], "aplusb", "{problems}");

    let mut known = known_submissions();
    assert!(known.len() >= 9, "the fixture has its submissions");
    // Two TLEs, for the filter and its pages.
    let tle = known
        .iter()
        .find(|(v, _)| v == "TLE")
        .cloned()
        .expect("a TLE");
    known.push(tle);
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
    filters_and_pages(&d, &ids);
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

/// `GET /api/v1/submissions` filters by verdict and language in the store, pages by `before`
/// with a `Link` to the next page and `X-Total-Count`, and names a bad field.
fn filters_and_pages(d: &crate::daemon::Daemon, ids: &[(i64, &String, String)]) {
    let get = |path: &str| {
        let r = ureq::get(&format!("{}{path}", d.url))
            .set("Authorization", &format!("Bearer {ALICE}"))
            .call()
            .unwrap_or_else(|e| panic!("GET {path}: {e}"));
        let total: usize = r
            .header("x-total-count")
            .and_then(|t| t.parse().ok())
            .expect("a total");
        let next = r.header("link").map(|l| {
            l.trim_start_matches('<')
                .split_once(">; rel=\"next\"")
                .expect("a next link")
                .0
                .to_string()
        });
        let rows: Value = r.into_json().expect("json");
        let ids: Vec<i64> = rows
            .as_array()
            .expect("rows")
            .iter()
            .filter_map(|r| r["id"].as_i64())
            .collect();
        (ids, total, next)
    };
    let with = |v: &str| {
        let mut want: Vec<i64> = ids
            .iter()
            .filter(|(_, verdict, _)| verdict.as_str() == v)
            .map(|(id, ..)| *id)
            .collect();
        want.sort_unstable_by(|a, b| b.cmp(a));
        want
    };
    let tle = with("TLE");
    assert!(tle.len() >= 2, "the fixture has several TLEs");
    let (got, total, next) = get("/api/v1/submissions?verdict=TLE");
    assert_eq!((&got, total, next), (&tle, tle.len(), None));
    let (got, _, _) = get("/api/v1/submissions?verdict=wa&language=c");
    let wa_c: Vec<i64> = with("WA")
        .into_iter()
        .filter(|id| ids.iter().any(|(i, _, f)| i == id && f.ends_with(".c")))
        .collect();
    assert_eq!(got, wa_c, "lower-case codes work; C only");
    // Pages of two through every submission: each once, newest first, the filter kept.
    let mut seen = Vec::new();
    let mut path = "/api/v1/submissions?limit=2".to_string();
    loop {
        let (page, total, next) = get(&path);
        assert_eq!(total, ids.len());
        assert!(page.len() <= 2);
        seen.extend(page);
        match next {
            Some(n) => {
                assert!(n.contains("limit=2&before="), "{n}");
                path = n;
            }
            None => break,
        }
    }
    let mut all: Vec<i64> = ids.iter().map(|(id, ..)| *id).collect();
    all.sort_unstable_by(|a, b| b.cmp(a));
    assert_eq!(seen, all);
    for (query, field) in [
        ("verdict=XX", "`verdict`"),
        ("language=cobol", "`language`"),
    ] {
        let (code, body) = d.get(&format!("/api/v1/submissions?{query}"), Some(ALICE));
        assert_eq!(code, 400, "{body}");
        assert!(body.to_string().contains(field), "{body}");
    }
    // The page: the same filter in SQL, kept in the URL of the next page.
    let (code, page) = d.get_text("/submissions?verdict=TLE", Some(ALICE));
    assert_eq!(code, 200);
    assert!(page.contains(&format!("{} matches", tle.len())), "{page}");
    for id in &tle {
        assert!(
            page.contains(&format!("href=\"/submissions/{id}\"")),
            "{page}"
        );
    }
    let (_, page) = d.get_text(
        &format!("/submissions?verdict=TLE&before={}", tle[0]),
        Some(ALICE),
    );
    assert!(
        page.contains("href=\"/submissions?verdict=TLE\""),
        "newest keeps the filter: {page}"
    );
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
    // A rejudge is a rejudging that applies itself: the API returns its id.
    let (code, body) = d.post_json(
        &format!("/api/v1/admin/submissions/{id}/rejudge"),
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 202, "{body}");
    let rejudging = body["rejudging"].as_i64().expect("a rejudging id");
    assert_eq!(body["page"], format!("/admin/rejudgings/{rejudging}"));
    let again = common::wait_until(JUDGED_WITHIN, || {
        let s = d.wait_done(id, ALICE, JUDGED_WITHIN);
        if s["judged"] == 2 {
            Ok(s)
        } else {
            Err(format!("not rejudged: {s}"))
        }
    });
    assert_eq!(again["verdict"].as_str(), Some("WA"), "{again}");
    let (code, r) = d.get(
        &format!("/api/v1/admin/rejudgings/{rejudging}"),
        Some(ADMIN),
    );
    assert_eq!(code, 200, "{r}");
    assert!(r.to_string().contains("applied"), "it applied itself: {r}");
    // A second rejudge of the whole problem: one more rejudging.
    let (code, body) = d.post_json(
        "/api/v1/admin/problems/aplusb/rejudge",
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 202, "{body}");
    assert!(body["rejudging"].as_i64() > Some(rejudging), "{body}");
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
    let log = d.log_with(&[" judged ", &format!("submission={id} ")]);
    let queued = log
        .lines()
        .find(|l| l.contains("queued") && l.contains(&format!("submission={id} ")))
        .unwrap_or_else(|| panic!("no queued event for {id}: {log}"));
    assert!(
        !log.contains('\x1b'),
        "plain text, no colours, when not a terminal"
    );
    for field in [
        "user=\"alice\"",
        "problem=\"aplusb\"",
        "language=\"c\"",
        " INFO ",
    ] {
        assert!(queued.contains(field), "{field} in {queued}");
    }
    let judged = log
        .lines()
        .find(|l| l.contains(" judged ") && l.contains(&format!("submission={id} ")))
        .unwrap_or_else(|| panic!("no judged event for {id}: {log}"));
    for field in [
        "verdict=\"WA\"",
        "user=\"alice\"",
        "time_ms=",
        "host=",
        " INFO ",
    ] {
        assert!(judged.contains(field), "{field} in {judged}");
    }

    // A judge error is logged with its cause, as a warning: an answer file gone after start.
    std::fs::remove_file(site.path().join("problems/aplusb/tests/02-many.ans")).expect("remove");
    let id = d.submit_file(ALICE, &common::testdata("aplusb/submissions/accepted/ac.c"));
    let done = d.wait_done(id, ALICE, JUDGED_WITHIN);
    assert_eq!(done["verdict"], "JE", "{done}");
    let log = d.log_with(&[" judged ", &format!("submission={id} ")]);
    let judged = log
        .lines()
        .find(|l| l.contains(" judged ") && l.contains(&format!("submission={id} ")))
        .unwrap_or_else(|| panic!("no judged event for {id}: {log}"));
    for field in ["verdict=\"JE\"", " WARN ", "cause=", "02-many"] {
        assert!(judged.contains(field), "{field} in {judged}");
    }
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
    // Kill once both workers are inside a run of the slow submissions, as their event streams
    // say (a test started); each then has 3 x 3 s of wall time to go, a wide margin for the
    // kill to land mid-judging.
    let running = |name: &str, data: &Value| {
        name == "started" || (name == "state" && !data["running"].is_null())
    };
    for (id, _) in &ids[..2] {
        let seen = d.events_until(*id, ALICE, JUDGED_WITHIN, running);
        assert!(
            seen.last().is_some_and(|(n, v)| running(n, v)),
            "submission {id} ran no test: {seen:?}"
        );
    }
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
    common::wait_until(JUDGED_WITHIN, || {
        let (_, s) = d.get(&format!("/api/v1/submissions/{id}"), Some(ALICE));
        if s["state"] == "judging" {
            Ok(())
        } else {
            Err(format!("never started: {s}"))
        }
    });
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
        let mut config = ojd_config::Config::defaults();
        config.server.problems = problems.path().to_path_buf();
        config.server.shutdown_grace = Duration::from_secs(1);
        let judge = common::judge_with(config.judging(), 1);
        let store = Arc::new(ojd_store::SqliteStore::in_memory().expect("store"));
        let app = ojd_web::App::with_store(config, judge, 1, store).expect("app");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("bind");
            let addr = listener.local_addr().expect("addr");
            let (tx, rx) = tokio::sync::oneshot::channel::<()>();
            let served = tokio::spawn(ojd_web::run(listener, app, async move {
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
    let mut config = ojd_config::Config::defaults();
    config.server.database = dir.path().join("ojd.sqlite3").into();
    config.server.problems = dir.path().join("problems");
    let first = ojd_web::App::start(config.clone(), crate::common::judge(1), 1).unwrap();
    let second = ojd_web::App::start(config.clone(), crate::common::judge(1), 1);
    let message = second.err().expect("the database is taken").to_string();
    assert!(
        message.contains("another ojd serve is using the database"),
        "{message}"
    );
    drop(first);
    // The lock goes with the daemon that held it.
    ojd_web::App::start(config, crate::common::judge(1), 1).unwrap();
}

/// Relative paths in a config file are relative to its folder: `ojd serve` and `ojd token`
/// started from another folder use the site's problems and database, and create nothing there.
#[test]
fn relative_paths_in_the_config_follow_its_folder_from_any_folder() {
    require_root!();
    let site = tempfile::tempdir().expect("site");
    let elsewhere = tempfile::tempdir().expect("another folder");
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(common::testdata("aplusb"))
        .arg(site.path().join("problems"))
        .status()
        .expect("cp");
    assert!(status.success());
    std::fs::create_dir_all(site.path().join("problems-root")).expect("mkdir");
    std::fs::rename(
        site.path().join("problems"),
        site.path().join("problems-root/aplusb"),
    )
    .expect("move");
    let config = site.path().join("site.toml");
    std::fs::write(
        &config,
        "[server]\nlisten = \"127.0.0.1:0\"\nproblems = \"problems-root\"\ndatabase = \"data.sqlite3\"\n\
         workers = 1\nshutdown_grace = \"1s\"\n[sandbox]\nscratch = \"scratch\"\n",
    )
    .expect("config");
    let log = site.path().join("serve.log");
    let mut child = common::ojd()
        .current_dir(elsewhere.path())
        .arg("--config")
        .arg(&config)
        .arg("serve")
        // The log's filter: warnings only, so the start's info lines are left out.
        .env("OJD_LOG", "warn")
        .stdout(std::process::Stdio::piped())
        .stderr(std::fs::File::create(&log).expect("log file"))
        .spawn()
        .expect("ojd serve starts");
    let stdout = child.stdout.take().expect("piped");
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(stdout));
    let ready = lines
        .by_ref()
        .map_while(Result::ok)
        .find(|l| l.contains("problem(s) ready"))
        .unwrap_or_else(|| {
            let _ = child.kill();
            panic!("ojd serve did not start")
        });
    // SAFETY: kill has no memory-safety preconditions; the pid is our live child.
    unsafe { libc::kill(child.id() as i32, libc::SIGTERM) };
    let _ = child.wait();
    assert!(ready.starts_with("ojd: 1 problem(s) ready"), "{ready}");
    let logged = std::fs::read_to_string(&log).expect("log");
    assert!(
        !logged.contains(" INFO "),
        "OJD_LOG=warn keeps info out: {logged}"
    );
    assert!(
        site.path().join("data.sqlite3").is_file(),
        "the database is beside the config"
    );
    assert!(
        site.path().join("scratch").is_dir(),
        "so is the scratch folder"
    );
    let made: Vec<_> = std::fs::read_dir(elsewhere.path())
        .expect("read")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(
        made.is_empty(),
        "nothing is created in the working folder: {made:?}"
    );

    let token = |args: &[&str]| {
        let out = common::ojd()
            .current_dir(elsewhere.path())
            .arg("--config")
            .arg(&config)
            .arg("token")
            .args(args)
            .output()
            .expect("ojd token runs");
        assert!(
            out.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    token(&["issue", "bob"]);
    let list = token(&["list"]);
    assert!(list.lines().any(|l| l.starts_with("bob ")), "{list}");
    let made: Vec<_> = std::fs::read_dir(elsewhere.path())
        .expect("read")
        .flatten()
        .map(|e| e.file_name())
        .collect();
    assert!(made.is_empty(), "ojd token created {made:?}");
}

/// The admin's queue page: every submission not yet done (queued, or judging with the host
/// that judges it), and the judge hosts with their heartbeat.
#[test]
fn the_queue_page_shows_what_waits_and_who_judges_it() {
    require_root!();
    let site = Site::new("rate_limit_per_minute = 0");
    let d = site.start();
    let slow =
        "#include <stdio.h>\n#include <unistd.h>\nint main(void) { usleep(1500000); return 0; }\n";
    let ids: Vec<i64> = (0..4)
        .map(|_| {
            let (code, r) = d.post_json(
                "/api/v1/submissions",
                Some(ALICE),
                &json!({ "problem": "aplusb", "language": "c", "source": slow }),
            );
            assert_eq!(code, 201, "{r}");
            r["id"].as_i64().expect("id")
        })
        .collect();
    let (_, hosts) = d.get("/api/v1/admin/hosts", Some(ADMIN));
    let host = hosts["hosts"][0]["name"]
        .as_str()
        .expect("a host")
        .to_string();
    // Each takes seconds (a compile, then 1.5 s on its first test): all four are pending now.
    let (code, page) = d.get_text("/admin/queue", Some(ADMIN));
    assert_eq!(code, 200, "{page}");
    for id in &ids {
        assert!(
            page.contains(&format!("href=\"/submissions/{id}\"")),
            "{id} missing: {page}"
        );
    }
    assert!(
        page.contains("id=\"hosts\"") && page.contains(&host),
        "{page}"
    );
    // Once a worker holds one, the page says which host judges it.
    common::wait_until(JUDGED_WITHIN, || {
        let (_, page) = d.get_text("/admin/queue", Some(ADMIN));
        let judging = page.split("id=\"judging\"").nth(1).unwrap_or("");
        if judging.contains(&format!("<td>{host}</td>")) {
            Ok(())
        } else {
            Err(format!("nothing shown judging: {page}"))
        }
    });
    let (code, _) = d.get_text("/admin/queue", Some(ALICE));
    assert_eq!(code, 403, "admins only");
}

#[test]
fn a_taken_address_is_a_failure_of_the_host_not_bad_input() {
    require_root!();
    let site = Site::new("");
    let taken = std::net::TcpListener::bind("127.0.0.1:0").expect("bind a port");
    let port = taken.local_addr().expect("its address").port();
    let config = site.path().join("config.toml");
    let text = std::fs::read_to_string(&config).expect("config");
    let text = text.replace(
        "listen = \"127.0.0.1:0\"",
        &format!("listen = \"127.0.0.1:{port}\""),
    );
    std::fs::write(&config, text).expect("write config");
    let out = common::ojd()
        .args(["serve", "--config"])
        .arg(&config)
        .output()
        .expect("ojd serve runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    // The exit code table (docs/daemon.md): 4, the host failed; 2 is for bad input only.
    assert_eq!(out.status.code(), Some(4), "{stderr}");
    assert!(
        stderr.contains(&format!("failed to listen on 127.0.0.1:{port}")),
        "{stderr}"
    );
    drop(taken);
}
