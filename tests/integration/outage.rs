//! Writing while the database does not answer: a submission's POST is answered 503 within
//! seconds with nothing stored (the insert that gets through later rolls back), or stored and
//! acknowledged; every other write (a clarification, a login, an admin's) is answered 503
//! within seconds while the server is stopped, and one stuck behind a lock rolls back;
//! an `Idempotency-Key` makes a retried POST return the first submission (200, same id) rather
//! than queue a second; pages under a hung database answer 503 instead of waiting. On
//! PostgreSQL (a table locked by another session: a statement that never returns; the whole
//! server stopped with SIGSTOP) and on SQLite (a database locked by another connection).
//! Judgings that never return leave a bounded number of threads behind, and the host says why
//! it stopped claiming.

use std::time::{Duration, Instant};

use serde_json::{json, Value};

use crate::daemon::{response, Daemon, Site, ALICE};

/// Far above the daemon's own bound (`ojd_service::SUBMIT_WAIT`, 4 s, and the pages' 3 s),
/// far below "no answer": the margin a busy machine needs, never reached by a working bound.
const ANSWERED_WITHIN: Duration = Duration::from_secs(30);

const AC_PY: &str = "import sys\ndata = sys.stdin.read().split()\nt = int(data[0])\nprint(\"\\n\".join(str(int(data[1 + 2 * i]) + int(data[2 + 2 * i])) for i in range(t)))\n";

/// POSTs a submission of `source` with `key` as its `Idempotency-Key`; returns the status,
/// the body and how long the answer took.
fn post(d: &Daemon, key: &str, source: &str) -> (u16, Value, Duration) {
    let t = Instant::now();
    let got = ureq::post(&format!("{}/api/v1/submissions", d.url))
        .set("Authorization", &format!("Bearer {ALICE}"))
        .set("Idempotency-Key", key)
        .send_json(json!({ "problem": "aplusb", "language": "python", "source": source }));
    let (code, body) = response(got);
    (code, body, t.elapsed())
}

/// Waits for the daemon's log to say `needle` `n` times (a log line is the event).
fn wait_log(d: &Daemon, needle: &str, n: usize) {
    let deadline = Instant::now() + Duration::from_secs(120);
    while d.log().matches(needle).count() < n {
        assert!(
            Instant::now() < deadline,
            "the log never said {needle:?} {n} time(s):\n{}",
            d.log()
        );
        std::thread::sleep(Duration::from_millis(50));
    }
}

/// The answer to a POST made while the database held it: 503, soon, with `Retry-After`'s body.
fn assert_unavailable(what: &str, (code, body, took): (u16, Value, Duration)) {
    assert_eq!(code, 503, "{what}: {body}");
    assert_eq!(body["error"]["code"], "unavailable", "{what}: {body}");
    assert!(took < ANSWERED_WITHIN, "{what} took {took:?}");
}

/// After the outage: the key's first POST queues (201), its retry returns it (200, same id),
/// the key with another source is refused (409), and a second key makes a second.
fn assert_once(d: &Daemon, key: &str) -> i64 {
    let (code, first, _) = post(d, key, AC_PY);
    assert_eq!(code, 201, "{first}");
    let id = first["id"].as_i64().expect("an id");
    let (code, again, _) = post(d, key, AC_PY);
    assert_eq!((code, again["id"].as_i64()), (200, Some(id)), "{again}");
    let (code, other, _) = post(d, key, "print(0)\n");
    assert_eq!(code, 409, "{other}");
    assert!(
        other["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains(&format!("submission {id}"))),
        "{other}"
    );
    id
}

/// The log line of an insert whose client was answered 503, once it ended: rolled back when it
/// got through, failed when its connection never came.
const GAVE_UP: &str = "(its client was answered 503): ";

#[test]
fn a_submission_to_a_hung_postgres_answers_503_and_is_stored_once() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::private() else {
        return;
    };
    let url = cluster.database();
    let site = Site::with_database(Some(&url), "rate_limit_per_minute = 0");
    let serve = site.start();
    let mut sql = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let count = |sql: &mut postgres::Client| -> i64 {
        sql.query_one("SELECT COUNT(*) FROM submissions", &[])
            .expect("count")
            .get(0)
    };

    // A statement that never returns: another session holds a lock every insert waits for.
    let mut lock = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let mut held = lock.transaction().expect("begin");
    held.batch_execute("LOCK TABLE submissions IN SHARE MODE")
        .expect("lock");
    assert_unavailable("POST under a lock", post(&serve, "k-lock", AC_PY));
    held.rollback().expect("release");
    // The insert got through once the lock went and rolled back: its client was told 503.
    wait_log(&serve, GAVE_UP, 1);
    assert_eq!(count(&mut sql), 0, "{}", serve.log());
    let first = assert_once(&serve, "k-lock");

    // The whole server stopped: its sessions too, so that a pooled connection hangs.
    let stopped = Stopped::all(|| cluster.processes());
    assert_unavailable("POST to a stopped server", post(&serve, "k-stop", AC_PY));
    for page in ["/submissions", "/api/v1/submissions"] {
        let t = Instant::now();
        let (code, text) = serve.get_text(page, Some(ALICE));
        assert_eq!(code, 503, "GET {page} with the database stopped: {text}");
        assert!(
            t.elapsed() < ANSWERED_WITHIN,
            "GET {page} took {:?}",
            t.elapsed()
        );
    }
    drop(stopped);
    wait_log(&serve, GAVE_UP, 2);
    assert_eq!(count(&mut sql), 1, "{}", serve.log());
    let second = assert_once(&serve, "k-stop");
    assert_ne!(first, second);
    assert_eq!(count(&mut sql), 2);
    let (status, _) = serve.terminate(Duration::from_secs(30));
    assert!(status.success());
}

#[test]
fn a_submission_to_a_locked_sqlite_answers_503_and_is_stored_once() {
    require_root!();
    let site = Site::new("rate_limit_per_minute = 0");
    let serve = site.start();
    let lock = rusqlite::Connection::open(site.database()).expect("open");
    lock.execute_batch("BEGIN EXCLUSIVE").expect("lock");
    assert_unavailable("POST to a locked database", post(&serve, "k-1", AC_PY));
    lock.execute_batch("ROLLBACK").expect("release");
    wait_log(&serve, GAVE_UP, 1);
    let count = || -> i64 {
        lock.query_row("SELECT COUNT(*) FROM submissions", [], |r| r.get(0))
            .expect("count")
    };
    assert_eq!(count(), 0, "{}", serve.log());
    assert_once(&serve, "k-1");
    assert_eq!(count(), 1);
    let (status, _) = serve.terminate(Duration::from_secs(30));
    assert!(status.success());
}

/// A key that is no key is refused, naming the header; the API's wording of a binary source
/// is its own (the language `binary`), not the command line's `--lang`.
#[test]
fn a_bad_idempotency_key_and_a_binary_source_are_refused_in_the_apis_words() {
    require_root!();
    let site = Site::new("rate_limit_per_minute = 0");
    let serve = site.start();
    let (code, body, _) = post(&serve, "", AC_PY);
    assert_eq!(code, 400, "{body}");
    assert!(
        body["error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("Idempotency-Key")),
        "{body}"
    );
    let (code, body) = serve.post_json(
        "/api/v1/submissions",
        Some(ALICE),
        &json!({ "problem": "aplusb", "language": "python", "source": "print(1)\u{0}" }),
    );
    assert_eq!(code, 400, "{body}");
    let message = body["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("binary data at byte 8")
            && message.contains("the language \"binary\" (field `language`)")
            && !message.contains("--lang"),
        "{body}"
    );
    let (status, _) = serve.terminate(Duration::from_secs(30));
    assert!(status.success());
}

/// Every write, not only a submission, fails fast while the database server is stopped: a
/// clarification (Contest API), a login (the form) and an admin action (an announcement)
/// each answer 503 within seconds with nothing stored, and work once the server goes on.
#[test]
fn writes_to_a_hung_postgres_answer_503_within_seconds_and_work_once_it_answers() {
    require_root!();
    use crate::websec::request;
    let Some(cluster) = crate::pg::Cluster::private() else {
        return;
    };
    let url = cluster.database();
    let (_cs, d) = qa_contest_on(&url);
    let ask = || ask_clarification(&d);
    let announce = || {
        let t = Instant::now();
        let (code, body) = d.post_json(
            "/api/v1/admin/contests/qa/announcements",
            Some(crate::daemon::ADMIN),
            &json!({"text": "Lunch is at noon."}),
        );
        (code, body, t.elapsed())
    };
    let login = || {
        let t = Instant::now();
        let (code, _, page) = request(
            &d,
            "POST",
            "/login",
            &[("Content-Type", "application/x-www-form-urlencoded")],
            Some(&format!("token={ALICE}")),
        );
        (code, page, t.elapsed())
    };
    let mut sql = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let before = clarifications(&mut sql);

    let stopped = Stopped::all(|| cluster.processes());
    assert_unavailable("a clarification", ask());
    assert_unavailable("an announcement", announce());
    let (code, page, took) = login();
    assert_eq!(code, 503, "a login: {page}");
    assert!(took < ANSWERED_WITHIN, "a login took {took:?}");
    drop(stopped);

    // Nothing was started, so nothing turns up later; then each write works.
    assert_eq!(clarifications(&mut sql), before, "{}", d.log());
    let deadline = Instant::now() + ANSWERED_WITHIN;
    let (code, body, _) = loop {
        // The first writes after the server goes on may meet the pool's hung connections.
        let got = ask();
        if got.0 != 503 || Instant::now() > deadline {
            break got;
        }
    };
    assert_eq!(code, 201, "a clarification once it answers: {body}");
    let (code, body, _) = announce();
    assert_eq!(code, 201, "an announcement once it answers: {body}");
    let (code, page, _) = login();
    assert_eq!(code, 303, "a login once it answers: {page}");
    assert_eq!(clarifications(&mut sql), before + 2);
    let (status, _) = d.terminate(Duration::from_secs(30));
    assert!(status.success());
}

/// A write whose statement never returns (another session holds a lock it waits for) though
/// the database answers: its client is answered 503 once the write's time is up, and the
/// statement, when it gets through after, rolls back rather than commit a change its client
/// was told did not happen.
#[test]
fn a_write_stuck_behind_a_lock_answers_503_and_rolls_back_when_it_gets_through() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::private() else {
        return;
    };
    let url = cluster.database();
    let (_cs, d) = qa_contest_on(&url);
    let ask = || ask_clarification(&d);
    let mut sql = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let before = clarifications(&mut sql);
    let mut lock = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let mut held = lock.transaction().expect("begin");
    held.batch_execute("LOCK TABLE clarifications IN SHARE MODE")
        .expect("lock");
    assert_unavailable("a clarification behind a lock", ask());
    held.rollback().expect("release");
    wait_log(&d, "(its client was answered 503): rolled back", 1);
    assert_eq!(clarifications(&mut sql), before, "{}", d.log());
    let (code, body, _) = ask();
    assert_eq!(code, 201, "once the lock is gone: {body}");
    assert_eq!(clarifications(&mut sql), before + 1);
    let (status, _) = d.terminate(Duration::from_secs(30));
    assert!(status.success());
}

/// Processes stopped with SIGSTOP, continued when this is dropped (a failing test too).
struct Stopped(Vec<i32>);

impl Stopped {
    /// Stops the server and every process of it: `processes` lists them, the postmaster first.
    /// The postmaster first, so that it forks no more; then its children, listed again until a
    /// listing finds none not stopped (a backend forked between a listing and the stop would
    /// otherwise run on, and a pooled connection to it would still answer).
    fn all(mut processes: impl FnMut() -> Vec<i32>) -> Stopped {
        let listed = processes();
        let main = *listed.first().expect("the postmaster");
        assert!(signal("-STOP", &[main]), "kill -STOP {main}");
        let mut stopped = Stopped(vec![main]);
        loop {
            let new: Vec<i32> = processes()
                .into_iter()
                .filter(|p| !stopped.0.contains(p))
                .collect();
            if new.is_empty() {
                return stopped;
            }
            for pid in new {
                // A child that ended between the listing and the signal is gone, not running.
                assert!(
                    signal("-STOP", &[pid])
                        || !std::path::Path::new(&format!("/proc/{pid}")).exists(),
                    "kill -STOP {pid}"
                );
                stopped.0.push(pid);
            }
        }
    }
}

impl Drop for Stopped {
    fn drop(&mut self) {
        // No assertion here: this may run while a failed test unwinds.
        let _ = signal("-CONT", &self.0);
    }
}

fn signal(which: &str, pids: &[i32]) -> bool {
    std::process::Command::new("kill")
        .arg(which)
        .args(pids.iter().map(i32::to_string))
        .status()
        .is_ok_and(|s| s.success())
}

/// The submit form carries a hidden idempotency key of its own: the same form sent again (a
/// double click, a reload of the POST, a retry after a 503 or an answer that never came) is
/// one submission, the first; the form loaded again has a new key and makes a second.
#[test]
fn a_submit_form_sent_twice_is_one_submission() {
    require_root!();
    use crate::websec::{header, login, request};
    let site = Site::new("rate_limit_per_minute = 0");
    let d = site.start();
    let cookie = login(&d, ALICE);
    let form_key = || -> String {
        let (code, _, page) = request(&d, "GET", "/problems/aplusb", &[("Cookie", &cookie)], None);
        assert_eq!(code, 200, "{page}");
        let field = "name=\"idempotency_key\" value=\"";
        let at = page.find(field).expect("a hidden idempotency field") + field.len();
        let end = page[at..].find('"').expect("its value ends");
        page[at..at + end].to_string()
    };
    let origin = d.url.clone();
    let send = |key: &str| -> String {
        let boundary = "ojd-form-boundary-7c1e";
        let part = |name: &str, value: &str| {
            format!("--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n{value}\r\n")
        };
        let body = format!(
            "{}{}{}--{boundary}--\r\n",
            part("language", "python"),
            part("source", AC_PY),
            part("idempotency_key", key)
        );
        let content_type = format!("multipart/form-data; boundary={boundary}");
        let (code, hs, page) = request(
            &d,
            "POST",
            "/problems/aplusb/submit",
            &[
                ("Cookie", &cookie),
                ("Origin", &origin),
                ("Sec-Fetch-Site", "same-origin"),
                ("Content-Type", &content_type),
            ],
            Some(&body),
        );
        assert_eq!(code, 303, "post/redirect/get: {page}");
        let to = header(&hs, "location").expect("a redirect").to_string();
        assert!(to.starts_with("/submissions/"), "to the submission: {to}");
        to
    };
    let (first, second) = (form_key(), form_key());
    assert_ne!(first, second, "each form has its own key");
    let once = send(&first);
    assert_eq!(
        send(&first),
        once,
        "the same form again is the same submission"
    );
    assert_ne!(send(&second), once, "another form makes another");
    let (_, mine) = d.get("/api/v1/submissions", Some(ALICE));
    assert_eq!(mine.as_array().map_or(0, Vec::len), 2, "{mine}");
    let (status, _) = d.terminate(Duration::from_secs(30));
    assert!(status.success());
}

/// A judging the watchdog abandons leaves its thread behind, and each such thread may hold one
/// of the host's sandboxes: were every judging after it to wait for a sandbox, be abandoned and
/// leave one more, threads would pile up without end while nothing is judged. Past its workers'
/// number of them still stuck (here three hangs on a host of two workers), the host stops
/// claiming and says why, in its log and as its pause's cause on the hosts page.
#[test]
fn threads_the_watchdog_abandons_are_bounded_and_the_host_says_why_it_stops() {
    require_root!();
    let site = Site::new("rate_limit_per_minute = 0");
    // The first three judgings hang for ever; the watchdog's bound is 5 s.
    let d = site.start_env(&[("OJD_FAULT_HANG_JUDGING", "5,3")]);
    let ac = crate::common::testdata("aplusb/submissions/accepted/ac.py");
    let id = d.submit_file(ALICE, &ac);
    wait_log(&d, "abandoned by the watchdog (the host's fault)", 3);
    wait_log(
        &d,
        "this host stops claiming submissions: 3 judging threads abandoned by the watchdog are still stuck, more than its 2 worker(s)",
        1,
    );
    // The hosts page shows what the host's last heartbeat said: the cause comes with the next.
    let deadline = Instant::now() + Duration::from_secs(120);
    let host = loop {
        let (code, hosts) = d.get("/api/v1/admin/hosts", Some(crate::daemon::ADMIN));
        assert_eq!(code, 200, "{hosts}");
        let host = hosts["hosts"][0].clone();
        if host["paused"]
            .as_str()
            .is_some_and(|c| c.contains("still stuck"))
        {
            break host;
        }
        assert!(Instant::now() < deadline, "the pause's cause: {host}");
        std::thread::sleep(Duration::from_millis(200));
    };
    assert!(
        host["stats"].get("paused_stuck_judgings").is_some(),
        "{host}"
    );
    let (code, sub) = d.get(&format!("/api/v1/submissions/{id}"), Some(ALICE));
    assert_eq!(code, 200, "{sub}");
    assert_ne!(
        sub["verdict"], "JE",
        "a stuck host is never the submission's: {sub}"
    );
    let (status, _) = d.terminate(Duration::from_secs(60));
    assert!(status.success());
}

/// A running contest `qa` (participants alice and bob, two hours from ten minutes ago) on
/// the PostgreSQL database `url`; the site is returned to keep its folder.
fn qa_contest_on(url: &str) -> (crate::contest_site::ContestSite, Daemon) {
    let cs = crate::contest_site::ContestSite::builder()
        .database(Some(url))
        .build();
    cs.contest("qa", ojd_store::now_ms() - 600_000)
        .lasting("2h")
        .keys("participants = [\"alice\", \"bob\"]")
        .write();
    let d = cs.start();
    (cs, d)
}

/// Alice asks contest `qa` a question through the Contest API: the answer and how long it took.
fn ask_clarification(d: &Daemon) -> (u16, Value, Duration) {
    let t = Instant::now();
    let (code, body) = d.post_json(
        "/api/v1/contests/qa/clarifications",
        Some(ALICE),
        &json!({"text": "Is the input one line?"}),
    );
    (code, body, t.elapsed())
}

/// The clarifications stored, all contests.
fn clarifications(sql: &mut postgres::Client) -> i64 {
    sql.query_one("SELECT COUNT(*) FROM clarifications", &[])
        .expect("count")
        .get(0)
}
