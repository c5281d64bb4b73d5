//! Many hosts on one PostgreSQL: one `ojd serve` node that does not judge, two `ojd worker`
//! processes with their own scratch and cache folders and no problems folder. Over 100
//! submissions of mixed verdicts arrive over HTTP; one worker is killed with SIGKILL while it
//! judges. Every submission must end judged exactly once with the right verdict (checked in the
//! database), both workers appear in `judged_by`, an event stream on the serve node sees the
//! tests of a submission a worker judged, and a problem changed and reloaded on the serve node
//! is judged with its new version.

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Child, Stdio};
use std::time::{Duration, Instant};

use crate::common;
use crate::daemon::{Site, ADMIN, ALICE, BOB};

const WITHIN: Duration = Duration::from_secs(600);

/// A running `ojd worker`.
pub struct Worker {
    child: Child,
    log: PathBuf,
}

impl Worker {
    pub fn start(dir: &Path, name: &str, url: &str) -> Worker {
        let home = dir.join(name);
        std::fs::create_dir_all(&home).expect("worker folder");
        let config = format!(
            "[server]\ndatabase = \"{url}\"\nproblems = \"{p}\"\nworkers = 2\n\
             [sandbox]\nscratch = \"{s}\"\n[judge]\ncache = \"{c}\"\n",
            p = home.join("no-problems-here").display(),
            s = home.join("scratch").display(),
            c = home.join("cache").display(),
        );
        std::fs::write(home.join("worker.toml"), config).expect("worker config");
        let log = home.join("worker.log");
        let mut child = common::ojd()
            .args(["worker", "--name", name, "--config"])
            .arg(home.join("worker.toml"))
            .stdout(Stdio::piped())
            .stderr(std::fs::File::create(&log).expect("log"))
            .spawn()
            .expect("ojd worker starts");
        let stdout = child.stdout.take().expect("piped");
        let mut first = String::new();
        BufReader::new(stdout)
            .read_line(&mut first)
            .expect("worker output");
        assert!(
            first.starts_with("ojd: worker "),
            "the worker did not start: {first:?}\n{}",
            std::fs::read_to_string(&log).unwrap_or_default()
        );
        Worker { child, log }
    }

    fn log(&self) -> String {
        std::fs::read_to_string(&self.log).unwrap_or_default()
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn python(body: &str) -> String {
    format!("import sys\n{body}\n")
}

const AC_PY: &str = "data = sys.stdin.read().split()\nt = int(data[0])\nprint(\"\\n\".join(str(int(data[1 + 2 * i]) + int(data[2 + 2 * i])) for i in range(t)))";
const WA_PY: &str = "data = sys.stdin.read().split()\nt = int(data[0])\nprint(\"\\n\".join(str(int(data[1 + 2 * i]) - int(data[2 + 2 * i])) for i in range(t)))";
const RE_PY: &str = "sys.exit(3)";

fn submit(d: &crate::daemon::Daemon, token: &str, name: &str, source: &str) -> i64 {
    let (code, body) = d.post_json(
        "/api/v1/submissions",
        Some(token),
        &serde_json::json!({ "problem": "aplusb", "filename": name, "source": source }),
    );
    assert_eq!(code, 201, "submitting {name}: {body}");
    body["id"].as_i64().expect("an id")
}

/// A site on the database `url` and its `ojd serve` node, which judges nothing
/// (`local_workers = false`): the judging is the workers' the test starts.
fn serve_only(url: &str) -> (Site, crate::daemon::Daemon) {
    let site = Site::with_database(
        Some(url),
        "local_workers = false\nrate_limit_per_minute = 0",
    );
    let serve = site.start();
    (site, serve)
}

#[test]
fn two_workers_one_killed_every_submission_judged_exactly_once() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    let url = cluster.database();
    let (site, serve) = serve_only(&url);
    let w1 = Worker::start(site.path(), "judge-1", &url);
    let mut w2 = Some(Worker::start(site.path(), "judge-2", &url));

    // Two slow ones first, so that a worker is surely mid-judging when it is killed.
    let sleep_c = std::fs::read_to_string(common::testdata(
        "aplusb/submissions/time_limit_exceeded/sleep.c",
    ))
    .expect("fixture");
    let mut expected: Vec<(i64, &str)> = Vec::new();
    for _ in 0..4 {
        expected.push((submit(&serve, BOB, "sleep.c", &sleep_c), "TLE"));
    }
    for i in 0..102 {
        let token = if i % 2 == 0 { ALICE } else { BOB };
        let (src, verdict) = match i % 3 {
            0 => (AC_PY, "AC"),
            1 => (WA_PY, "WA"),
            _ => (RE_PY, "RE"),
        };
        // Each source differs by a comment, as real submissions do.
        let source = python(&format!("{src}\n# {i}"));
        expected.push((submit(&serve, token, "s.py", &source), verdict));
    }

    // A stream on the serve node, for a submission a worker will judge: the last one, with
    // over a hundred queued before it, so that the stream is open before its judging starts
    // (an early one may be judged while the others are still being submitted on a slow host,
    // and its stream then has only `done`).
    let watched = expected.last().expect("submitted").0;
    let stream_url = serve.url.clone();
    let stream =
        std::thread::spawn(move || crate::daemon::events_at(&stream_url, watched, ADMIN, WITHIN));

    // Kill judge-2 once it has stored a few verdicts and holds a claim: mid-judging.
    let mut db = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    common::wait_until(WITHIN, || {
        let done: i64 = db
            .query_one(
                "SELECT COUNT(*) FROM judgings WHERE judged_by LIKE 'judge-2~%' AND finished_at IS NOT NULL",
                &[],
            )
            .expect("count")
            .get(0);
        let (_, hosts) = serve.get("/api/v1/admin/hosts", Some(ADMIN));
        let busy =
            hosts["hosts"].as_array().into_iter().flatten().any(|h| {
                h["label"] == "judge-2" && !h["judging"].as_array().is_none_or(Vec::is_empty)
            });
        (busy && done >= 3)
            .then_some(())
            .ok_or_else(|| format!("judge-2 never judged: {hosts}"))
    });
    let killed_at = Instant::now();
    drop(w2.take());

    for (id, verdict) in &expected {
        let s = serve.wait_done(*id, ADMIN, WITHIN);
        assert_eq!(
            s["verdict"].as_str(),
            Some(*verdict),
            "submission {id}: {s}\n{}",
            w1.log()
        );
    }
    let took = killed_at.elapsed();

    // The database: each submission has exactly one finished judging, and it is current.
    let rows = db
        .query(
            "SELECT s.id, s.state, j.verdict, j.judged_by, j.package_version,
               (SELECT COUNT(*) FROM judgings k WHERE k.submission = s.id AND k.finished_at IS NOT NULL),
               (SELECT COUNT(*) FROM judgings k WHERE k.submission = s.id AND k.finished_at IS NULL)
             FROM submissions s LEFT JOIN judgings j ON j.id = s.current_judging ORDER BY s.id",
            &[],
        )
        .expect("query");
    assert_eq!(rows.len(), expected.len(), "nothing lost, nothing added");
    let mut hosts = std::collections::BTreeSet::new();
    let mut abandoned = 0;
    for (row, (id, verdict)) in rows.iter().zip(&expected) {
        let (sid, state, v, by): (i64, String, Option<String>, Option<String>) =
            (row.get(0), row.get(1), row.get(2), row.get(3));
        let version: Option<String> = row.get(4);
        let (finished, unfinished): (i64, i64) = (row.get(5), row.get(6));
        assert_eq!(
            (sid, state.as_str(), v.as_deref(), finished),
            (*id, "done", Some(*verdict), 1),
            "submission {id} judged exactly once"
        );
        assert!(
            version.is_some(),
            "submission {id} records its package version"
        );
        abandoned += unfinished;
        // `judged_by` is the process identity: the name, `~`, 64 random bits.
        let by = by.expect("judged_by");
        let (label, random) = by.split_once('~').expect("an identity");
        assert_eq!(random.len(), 16, "{by}");
        hosts.insert(label.to_string());
    }
    assert_eq!(
        hosts.into_iter().collect::<Vec<_>>(),
        ["judge-1", "judge-2"],
        "both hosts judged"
    );
    assert!(
        abandoned >= 1,
        "the killed worker left at least one judging unfinished"
    );
    eprintln!("all judged {took:?} after the kill; {abandoned} judging(s) abandoned by judge-2");

    // The stream on the serve node saw a worker's tests.
    let events = stream.join().expect("stream thread");
    let names: Vec<&str> = events.iter().map(|(n, _)| n.as_str()).collect();
    assert!(
        names.contains(&"test"),
        "no test event crossed hosts: {names:?}"
    );
    assert_eq!(names.last(), Some(&"done"), "{names:?}");

    // A changed problem, reloaded on the serve node, is judged with its new version.
    let tests = site.path().join("problems/aplusb/tests");
    std::fs::write(tests.join("03-new.in"), "1\n40 2\n").expect("new test");
    let (code, body) = serve.post_json("/api/v1/admin/reload", Some(ADMIN), &serde_json::json!({}));
    assert_eq!(code, 200, "{body}");
    let id = submit(&serve, ALICE, "s.py", &python(AC_PY));
    let s = serve.wait_done(id, ALICE, WITHIN);
    assert_eq!(s["verdict"], "AC", "{s}");
    let (_, full) = serve.get(&format!("/api/v1/submissions/{id}"), Some(ADMIN));
    let names: Vec<&str> = full["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .filter_map(|t| t["name"].as_str())
        .collect();
    assert!(
        names.iter().any(|n| n.contains("03-new")),
        "judged with the new test: {names:?}"
    );
    let row = db
        .query_one(
            "SELECT j.package_version, (SELECT version FROM problem_current WHERE problem = 'aplusb')
             FROM submissions s JOIN judgings j ON j.id = s.current_judging WHERE s.id = $1",
            &[&id],
        )
        .expect("row");
    let (used, current): (Option<String>, String) = (row.get(0), row.get(1));
    assert_eq!(used.as_deref(), Some(current.as_str()));
    drop(w1);
    let (status, _) = serve.terminate(Duration::from_secs(30));
    assert!(status.success());
}

/// Waits until submission `id` is claimed by a host labelled `label` (its identity starts with
/// `label~`), by the database.
fn wait_claimed_by(db: &mut postgres::Client, id: i64, label: &str) {
    let pattern = format!("{label}~%");
    common::wait_until(WITHIN, || {
        let held: bool = db
            .query_one(
                "SELECT state = 'judging' AND claimed_by LIKE $2 FROM submissions WHERE id = $1",
                &[&id, &pattern],
            )
            .expect("claim")
            .get(0);
        held.then_some(())
            .ok_or_else(|| format!("{label} never claimed {id}"))
    })
}

/// A host's death is not the submission's fault, as in the operator's burst fault run: the
/// worker judging a submission is killed (`kill -9`), the next that takes it over is stopped
/// (SIGSTOP) past its lease, and a third judges it with the verdict it deserves, not a
/// poison pill's judge error; the database counts two hosts' deaths and no crash of a judge.
#[test]
fn a_submission_whose_holders_die_in_turn_is_judged_by_the_next_host() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    let url = cluster.database();
    let (site, serve) = serve_only(&url);
    let sleep_c = std::fs::read_to_string(common::testdata(
        "aplusb/submissions/time_limit_exceeded/sleep.c",
    ))
    .expect("fixture");
    let mut db = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let w1 = Worker::start(site.path(), "judge-1", &url);
    let id = submit(&serve, BOB, "sleep.c", &sleep_c);
    wait_claimed_by(&mut db, id, "judge-1");
    drop(w1);
    let w2 = Worker::start(site.path(), "judge-2", &url);
    wait_claimed_by(&mut db, id, "judge-2");
    let signal = |name: &str, pid: u32| {
        let ok = std::process::Command::new("kill")
            .args([name, &pid.to_string()])
            .status()
            .expect("kill runs")
            .success();
        assert!(ok, "kill {name} {pid}");
    };
    signal("-STOP", w2.child.id());
    let w3 = Worker::start(site.path(), "judge-3", &url);
    let s = serve.wait_done(id, ADMIN, WITHIN);
    signal("-CONT", w2.child.id());
    assert_eq!(
        s["verdict"],
        "TLE",
        "the verdict it deserves: {s}\n{}",
        w3.log()
    );
    let row = db
        .query_one(
            "SELECT s.crashes, s.host_deaths, j.judged_by FROM submissions s
             JOIN judgings j ON j.id = s.current_judging WHERE s.id = $1",
            &[&id],
        )
        .expect("row");
    let (crashes, deaths, by): (i64, i64, String) = (row.get(0), row.get(1), row.get(2));
    assert_eq!(
        (crashes, deaths),
        (0, 2),
        "two hosts died, no judge crashed"
    );
    assert!(by.starts_with("judge-3~"), "{by}");
    assert!(
        w3.log().contains("heartbeat stopped too"),
        "the taking host says whose fault it was:\n{}",
        w3.log()
    );
    drop((w2, w3));
    let (status, _) = serve.terminate(Duration::from_secs(30));
    assert!(status.success());
}

/// Polls `/healthz` until its status is `want` (each call may take the pool's 5 s connection
/// timeout while the database is away); returns the last body.
fn wait_health(d: &crate::daemon::Daemon, want: &str, within: Duration) -> serde_json::Value {
    let (code, body) = common::try_wait_until(within, || {
        let (code, body) = d.get("/healthz", None);
        if body["status"] == want {
            Ok((code, body))
        } else {
            Err(format!("/healthz never said {want}: {code} {body}"))
        }
    })
    .unwrap_or_else(|why| panic!("{why}\n{}", d.log()));
    let expected = if want == "degraded" { 503 } else { 200 };
    assert_eq!(code, expected, "{body}");
    body
}

/// PostgreSQL restarts (`pg_ctl stop -m fast`, then start) while submissions are queued and a
/// worker is judging: `/healthz` on the serve node says degraded while it is down; afterwards
/// serve and worker reconnect by themselves and every submission that got its 201 ends judged
/// exactly once with the right verdict.
#[test]
fn postgres_restarts_while_judging_and_nothing_is_lost() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::private() else {
        return;
    };
    let url = cluster.database();
    let (site, serve) = serve_only(&url);
    let worker = Worker::start(site.path(), "judge-r", &url);

    // Accepted but slow (0.3 s a test), so that judgings are in flight when the database goes.
    let slow_ac = format!("import time\ntime.sleep(0.3)\n{AC_PY}");
    let mut expected: Vec<(i64, &str)> = Vec::new();
    for i in 0..24 {
        let token = if i % 2 == 0 { ALICE } else { BOB };
        let (src, verdict) = match i % 4 {
            0 | 1 => (slow_ac.as_str(), "AC"),
            2 => (WA_PY, "WA"),
            _ => (RE_PY, "RE"),
        };
        let source = python(&format!("{src}\n# {i}"));
        expected.push((submit(&serve, token, "s.py", &source), verdict));
    }
    wait_health(&serve, "ok", Duration::from_secs(30));

    // Stop PostgreSQL once a few verdicts are stored and the worker holds a claim.
    let mut db = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    common::try_wait_until(WITHIN, || {
        let row = db
            .query_one(
                "SELECT (SELECT COUNT(*) FROM submissions WHERE state = 'done'),
                        (SELECT COUNT(*) FROM submissions WHERE state = 'judging')",
                &[],
            )
            .expect("count");
        let (done, judging): (i64, i64) = (row.get(0), row.get(1));
        (done >= 2 && judging >= 1)
            .then_some(())
            .ok_or_else(|| format!("nothing was judged: {done} done, {judging} judging"))
    })
    .unwrap_or_else(|why| panic!("{why}\n{}", worker.log()));
    drop(db);
    let beats_failed = || worker.log().matches("heartbeat failed (retrying)").count();
    let failed_before = beats_failed();
    let down = Instant::now();
    cluster.stop_fast();
    let degraded = wait_health(&serve, "degraded", Duration::from_secs(30));
    assert!(
        degraded["database"].as_str().is_some_and(|e| !e.is_empty()),
        "the database's error is shown: {degraded}"
    );
    // A submission made now is refused (never a 201 for something not stored).
    let (code, body) = serve.post_json(
        "/api/v1/submissions",
        Some(ALICE),
        &serde_json::json!({ "problem": "aplusb", "filename": "s.py", "source": python(AC_PY) }),
    );
    assert!(
        code >= 500,
        "a submission while the database is down: {code} {body}"
    );
    // Until the worker's heartbeat has failed too: the outage spans its heartbeats, and its
    // judgings in flight finish meanwhile and must wait.
    common::try_wait_until(Duration::from_secs(60), || {
        (beats_failed() > failed_before)
            .then_some(())
            .ok_or_else(|| "the worker's heartbeat never saw the database go".to_string())
    })
    .unwrap_or_else(|why| panic!("{why}\n{}", worker.log()));
    cluster.launch();
    let outage = down.elapsed();
    wait_health(&serve, "ok", Duration::from_secs(60));

    // Everything is judged, with nobody restarting anything.
    for (id, verdict) in &expected {
        let s = serve.wait_done(*id, ADMIN, WITHIN);
        assert_eq!(
            s["verdict"].as_str(),
            Some(*verdict),
            "submission {id}: {s}\n{}",
            worker.log()
        );
    }
    // New work after the restart is judged too (the worker's claims and wake-ups are back).
    let after = submit(&serve, ALICE, "s.py", &python(&format!("{AC_PY}\n# after")));
    expected.push((after, "AC"));
    assert_eq!(serve.wait_done(after, ALICE, WITHIN)["verdict"], "AC");

    // The serve node's /metrics shows the judge host's own counters, sent with its heartbeat.
    // Labelled with the worker's name, role and process identity.
    let (_, hosts) = serve.get("/api/v1/admin/hosts", Some(ADMIN));
    let identity = hosts["hosts"]
        .as_array()
        .expect("hosts")
        .iter()
        .find(|h| h["label"] == "judge-r" && h["alive"] == true)
        .and_then(|h| h["name"].as_str())
        .unwrap_or_else(|| panic!("judge-r is listed: {hosts}"))
        .to_string();
    let host = format!(r#"{{host="judge-r",role="worker",id="{identity}"}}"#);
    let want = format!("ojd_host_judged_total{host} {}\n", expected.len());
    let metrics = common::wait_until(Duration::from_secs(60), || {
        let (code, text) = serve.get_text("/metrics", Some(ADMIN));
        assert_eq!(code, 200, "{text}");
        if text.contains(&want) {
            Ok(text)
        } else {
            Err(format!("no {want:?} in:\n{text}"))
        }
    });
    let value = |name: &str| -> u64 {
        metrics
            .lines()
            .find_map(|l| l.strip_prefix(name)?.trim().parse().ok())
            .unwrap_or_else(|| panic!("no {name} in:\n{metrics}"))
    };
    assert_eq!(value("ojd_hosts_alive "), 2, "serve and worker");
    assert!(value(&format!("ojd_host_blobs_fetched_total{host} ")) > 0);
    assert!(value(&format!("ojd_host_blobs_fetched_bytes_total{host} ")) > 1000);
    assert_eq!(value(&format!("ojd_host_packages_loaded{host} ")), 1);
    assert_eq!(value(&format!("ojd_host_workers{host} ")), 2);
    assert_eq!(value("ojd_leases_expired "), 0);
    eprintln!(
        "judge host counters on the serve node:\n{}",
        metrics
            .lines()
            .filter(|l| l.starts_with("ojd_host"))
            .collect::<Vec<_>>()
            .join("\n")
    );

    let mut db = postgres::Client::connect(&url, postgres::NoTls).expect("connect again");
    let rows = db
        .query(
            "SELECT s.id, s.state, j.verdict,
               (SELECT COUNT(*) FROM judgings k WHERE k.submission = s.id AND k.finished_at IS NOT NULL)
             FROM submissions s LEFT JOIN judgings j ON j.id = s.current_judging ORDER BY s.id",
            &[],
        )
        .expect("query");
    assert_eq!(rows.len(), expected.len(), "nothing lost, nothing added");
    for (row, (id, verdict)) in rows.iter().zip(&expected) {
        let (sid, state, v, finished): (i64, String, Option<String>, i64) =
            (row.get(0), row.get(1), row.get(2), row.get(3));
        assert_eq!(
            (sid, state.as_str(), v.as_deref(), finished),
            (*id, "done", Some(*verdict), 1),
            "submission {id} judged exactly once"
        );
    }
    let log = worker.log();
    eprintln!(
        "database away for {outage:?}; worker log:\n{}",
        log.lines()
            .filter(|l| l.contains("retry") || l.contains("again") || l.contains("failed"))
            .collect::<Vec<_>>()
            .join("\n")
    );
    drop(worker);
    let (status, _) = serve.terminate(Duration::from_secs(30));
    assert!(status.success());
}

/// An event stream on a `serve` node whose submission another host judges ends with `done`
/// even when that host's NOTIFY never arrives (a database restart, a LISTEN reconnection): here
/// the "other host" stores the verdict straight into the database and sends no event at all.
#[test]
fn a_stream_ends_even_when_the_done_event_is_lost() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    let url = cluster.database();
    let (_site, serve) = serve_only(&url);
    let id = submit(&serve, ALICE, "s.py", &python(AC_PY));
    let r = ureq::get(&format!("{}/api/v1/submissions/{id}/events", serve.url))
        .set("Authorization", &format!("Bearer {ADMIN}"))
        .timeout(Duration::from_secs(60))
        .call()
        .expect("event stream opens");
    let mut reader = BufReader::new(r.into_reader());
    let mut next_event = || -> Option<String> {
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line).ok()? == 0 {
                return None;
            }
            if let Some(name) = line.trim_end().strip_prefix("event: ") {
                return Some(name.to_string());
            }
        }
    };
    assert_eq!(next_event().as_deref(), Some("state"), "the stream is live");

    // A host that judges without a word on the events channel.
    let store = ojd_store::open(&url).expect("open");
    let now = ojd_store::now_ms();
    let claim = store
        .claim("silent-host", now, 10_000)
        .expect("claim")
        .expect("queued");
    assert_eq!(claim.id, id);
    let report =
        ojd_judge::JudgeReport::new("aplusb", "py", ojd_judge::Verdict::Accepted, Vec::new());
    let stored = Instant::now();
    assert!(store
        .finish(id, claim.attempt, &report, "", ojd_store::now_ms())
        .expect("finish"));
    let mut names = Vec::new();
    while let Some(name) = next_event() {
        names.push(name.clone());
        if name == "done" {
            break;
        }
    }
    let took = stored.elapsed();
    assert_eq!(names.last().map(String::as_str), Some("done"), "{names:?}");
    assert!(
        took < ojd_web::EVENT_STREAM_RECHECK + Duration::from_secs(5),
        "the stream noticed the stored verdict after {took:?}"
    );
    let (status, _) = serve.terminate(Duration::from_secs(30));
    assert!(status.success());
}

/// With PostgreSQL stopped, `/healthz` answers 503 within a second every time, and the API
/// answers 503 with `Retry-After` just as fast (not a 500 after the pool's 5 s); both recover
/// by themselves when the database is back.
#[test]
fn the_database_down_answers_503_fast() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::private() else {
        return;
    };
    let url = cluster.database();
    let (_site, serve) = serve_only(&url);
    wait_health(&serve, "ok", Duration::from_secs(30));
    let id = submit(&serve, ALICE, "s.py", &python(AC_PY));
    cluster.stop_fast();
    for _ in 0..5 {
        let t = Instant::now();
        let (code, body) = serve.get("/healthz", None);
        let took = t.elapsed();
        assert_eq!(code, 503, "{body}");
        assert_eq!(body["status"], "degraded", "{body}");
        assert!(took < Duration::from_secs(1), "/healthz took {took:?}");
    }
    for path in [
        format!("/api/v1/submissions/{id}"),
        "/api/v1/submissions".to_string(),
    ] {
        let t = Instant::now();
        let got = ureq::get(&format!("{}{path}", serve.url))
            .set("Authorization", &format!("Bearer {ADMIN}"))
            .call();
        let took = t.elapsed();
        match got {
            Err(ureq::Error::Status(503, r)) => {
                assert_eq!(r.header("Retry-After"), Some("5"), "GET {path}");
                let body: serde_json::Value = r.into_json().expect("json");
                assert_eq!(body["error"]["code"], "unavailable", "{body}");
            }
            Err(ureq::Error::Status(code, r)) => panic!(
                "GET {path} with the database down: {code} {}",
                r.into_string().unwrap_or_default()
            ),
            other => panic!("GET {path} with the database down: {other:?}"),
        }
        assert!(
            took < Duration::from_millis(1500),
            "GET {path} took {took:?}"
        );
    }
    cluster.launch();
    wait_health(&serve, "ok", Duration::from_secs(30));
    let (code, body) = serve.get(&format!("/api/v1/submissions/{id}"), Some(ADMIN));
    assert_eq!(code, 200, "{body}");
    let (status, _) = serve.terminate(Duration::from_secs(30));
    assert!(status.success());
}

/// Two workers given the same name judge side by side: the second one's start takes nothing
/// from the first (each process has its own identity), and both appear on the hosts list with
/// the one label. A second process of an identity that is alive is refused with a clear error.
#[test]
fn two_workers_with_one_name_and_an_identity_taken_twice() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::private() else {
        return;
    };
    let url = cluster.database();
    let (site, serve) = serve_only(&url);
    let first = Worker::start(&site.path().join("a"), "same", &url);
    // A slow submission, in the first worker's hands when the second starts.
    let slow = python(&format!("import time\ntime.sleep(1.5)\n{AC_PY}"));
    let id = submit(&serve, ALICE, "s.py", &slow);
    let mut db = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    common::try_wait_until(WITHIN, || {
        let state: String = db
            .query_one("SELECT state FROM submissions WHERE id = $1", &[&id])
            .expect("state")
            .get(0);
        (state == "judging")
            .then_some(())
            .ok_or_else(|| format!("never claimed: {state}"))
    })
    .unwrap_or_else(|why| panic!("{why}\n{}", first.log()));
    let second = Worker::start(&site.path().join("b"), "same", &url);
    let (attempts, verdict) = common::try_wait_until(WITHIN, || {
        let row = db
            .query_one(
                "SELECT s.attempts, j.verdict FROM submissions s
                 LEFT JOIN judgings j ON j.id = s.current_judging WHERE s.id = $1",
                &[&id],
            )
            .expect("row");
        let verdict: Option<String> = row.get(1);
        verdict
            .map(|v| (row.get::<_, i64>(0), v))
            .ok_or_else(|| "never judged".to_string())
    })
    .unwrap_or_else(|why| panic!("{why}\n{}", first.log()));
    assert_eq!(
        (attempts, verdict.as_str()),
        (1, "AC"),
        "judged once, by the first worker:\n{}\n{}",
        first.log(),
        second.log()
    );
    assert!(
        !second.log().contains("requeued"),
        "the second worker took nothing back:\n{}",
        second.log()
    );
    let (code, hosts) = serve.get("/api/v1/admin/hosts", Some(ADMIN));
    assert_eq!(code, 200, "{hosts}");
    let workers: Vec<&serde_json::Value> = hosts["hosts"]
        .as_array()
        .expect("hosts")
        .iter()
        .filter(|h| h["label"] == "same")
        .collect();
    assert_eq!(workers.len(), 2, "{hosts}");
    assert_ne!(workers[0]["name"], workers[1]["name"], "{hosts}");

    // The same identity twice: the second process is refused while the first is alive.
    let identity = workers[0]["name"].as_str().expect("identity").to_string();
    let home = site.path().join("c");
    std::fs::create_dir_all(&home).expect("folder");
    std::fs::write(
        home.join("worker.toml"),
        format!(
            "[server]\ndatabase = \"{url}\"\nworkers = 1\n[sandbox]\nscratch = \"{s}\"\n[judge]\ncache = \"{c}\"\n",
            s = home.join("scratch").display(),
            c = home.join("cache").display(),
        ),
    )
    .expect("config");
    let out = common::ojd()
        .args([
            "worker",
            "--name",
            "same",
            "--identity",
            &identity,
            "--config",
        ])
        .arg(home.join("worker.toml"))
        .output()
        .expect("ojd worker runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains(&format!("identity {identity:?} is alive")),
        "the refusal names the identity: {stderr}"
    );
    drop((first, second));
    let (status, _) = serve.terminate(Duration::from_secs(30));
    assert!(status.success());
}

/// The hosts list of an admin: each host's version, CPUs, free disk, state; a worker drained
/// from the API finishes and claims nothing until resumed; a serve node with
/// `local_workers = false` reports 0 workers.
#[test]
fn a_drained_worker_claims_nothing_until_resumed() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::private() else {
        return;
    };
    let url = cluster.database();
    let (site, serve) = serve_only(&url);
    let worker = Worker::start(site.path(), "judge-d", &url);
    let host_of = |label: &str| -> serde_json::Value {
        let (code, hosts) = serve.get("/api/v1/admin/hosts", Some(ADMIN));
        assert_eq!(code, 200, "{hosts}");
        hosts["hosts"]
            .as_array()
            .expect("hosts")
            .iter()
            .find(|h| h["label"] == label && h["alive"] == true)
            .cloned()
            .unwrap_or_default()
    };
    let wait = |what: &str, ok: &dyn Fn(&serde_json::Value) -> bool, label: &str| {
        common::try_wait_until(Duration::from_secs(60), || {
            let h = host_of(label);
            if ok(&h) {
                Ok(h)
            } else {
                Err(format!("{what}: {h}"))
            }
        })
        .unwrap_or_else(|why| panic!("{why}\n{}", worker.log()))
    };
    let w = wait(
        "the worker reports its space",
        &|h| {
            h["stats"]["scratch_free_bytes"]
                .as_u64()
                .is_some_and(|b| b > 0)
        },
        "judge-d",
    );
    assert_eq!(w["version"], env!("CARGO_PKG_VERSION"), "{w}");
    assert!(w["stats"]["cpus"].as_u64().is_some_and(|n| n >= 1), "{w}");
    assert_eq!(w["stats"]["workers"], 2, "{w}");
    let serve_label = w["name"].as_str().map(|_| ()).map(|_| {
        let (_, hosts) = serve.get("/api/v1/admin/hosts", Some(ADMIN));
        hosts["hosts"]
            .as_array()
            .expect("hosts")
            .iter()
            .find(|h| h["role"] == "serve")
            .cloned()
            .unwrap_or_default()
    });
    let serve_row = serve_label.unwrap_or_default();
    assert_eq!(
        serve_row["stats"]["workers"], 0,
        "local_workers = false judges nothing: {serve_row}"
    );

    let identity = w["name"].as_str().expect("identity").to_string();
    let (code, body) = serve.post_json(
        "/api/v1/admin/hosts/drain",
        Some(ADMIN),
        &serde_json::json!({ "host": identity, "reason": "swapping its disk" }),
    );
    assert_eq!(code, 200, "{body}");
    let (code, body) = serve.post_json(
        "/api/v1/admin/hosts/drain",
        Some(ADMIN),
        &serde_json::json!({ "host": "no-such-host" }),
    );
    assert_eq!(code, 404, "{body}");
    wait(
        "the worker says it is drained",
        &|h| h["stats"]["drained"] == 1 && h["drain"] == "swapping its disk",
        "judge-d",
    );
    let (code, metrics) = serve.get_text("/metrics", Some(ADMIN));
    assert_eq!(code, 200);
    assert!(
        metrics.contains(&format!(
            "ojd_host_drained{{host=\"judge-d\",role=\"worker\",id=\"{identity}\"}} 1\n"
        )),
        "{metrics}"
    );
    // A drained host claims nothing: the submission, queued while it is idle (and woken by
    // the new work), waits for a host started after it, which judges it.
    let id = submit(&serve, ALICE, "s.py", &python(AC_PY));
    let other = Worker::start(site.path(), "judge-e", &url);
    let sub = serve.wait_done(id, ADMIN, WITHIN);
    assert_eq!(sub["verdict"], "AC", "{sub}");
    let mut db = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    let mut judged_by = |id: i64| -> String {
        db.query_one(
            "SELECT string_agg(judged_by, ' ') FROM judgings WHERE submission = $1",
            &[&id],
        )
        .expect("judged_by")
        .get(0)
    };
    let by = judged_by(id);
    assert!(
        by.starts_with("judge-e~") && !by.contains("judge-d~"),
        "a drained host claims nothing: {by}"
    );
    drop(other);
    let (code, page) = serve.get_text("/admin/queue", Some(ADMIN));
    assert_eq!(code, 200);
    assert!(
        page.contains("drained") && page.contains("swapping its disk"),
        "the hosts table says why: {page}"
    );
    let (code, body) = serve.post_json(
        "/api/v1/admin/hosts/resume",
        Some(ADMIN),
        &serde_json::json!({ "host": identity }),
    );
    assert_eq!(code, 200, "{body}");
    // Resumed, it judges again (the only host left).
    let id = submit(
        &serve,
        ALICE,
        "s.py",
        &python(&format!("{AC_PY}\n# resumed")),
    );
    let sub = serve.wait_done(id, ADMIN, WITHIN);
    assert_eq!(sub["verdict"], "AC", "{sub}\n{}", worker.log());
    let by = judged_by(id);
    assert!(
        by.starts_with("judge-d~"),
        "the resumed host judged it: {by}"
    );
    assert!(
        worker.log().contains("an admin drains this host"),
        "{}",
        worker.log()
    );
    drop(worker);
    let (status, _) = serve.terminate(Duration::from_secs(30));
    assert!(status.success());
}

/// A worker whose ojd is older than the database's schema refuses to start, saying so.
#[test]
fn a_worker_older_than_the_schema_refuses_to_start() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    let url = cluster.database();
    drop(ojd_store::open(&url).expect("migrate"));
    let mut db = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    db.execute("UPDATE ojd_schema SET version = version + 5", &[])
        .expect("bump");
    let dir = tempfile::tempdir().expect("dir");
    let home = dir.path();
    std::fs::write(
        home.join("worker.toml"),
        format!(
            "[server]\ndatabase = \"{url}\"\nworkers = 1\n[sandbox]\nscratch = \"{s}\"\n[judge]\ncache = \"{c}\"\n",
            s = home.join("scratch").display(),
            c = home.join("cache").display(),
        ),
    )
    .expect("config");
    let out = common::ojd()
        .args(["worker", "--config"])
        .arg(home.join("worker.toml"))
        .output()
        .expect("ojd worker runs");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.contains("newer than this ojd") && stderr.contains("upgrade ojd on this host"),
        "{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// TLS to PostgreSQL, against a private cluster whose certificate a CA of its own signed and
/// which refuses TCP without TLS: `sslmode=require` connects; `verify-full` with that CA
/// connects, with another CA is refused naming the certificate; `verify-ca` does not check
/// the host name, `verify-full` does; without TLS the server refuses.
#[test]
fn tls_to_postgresql_with_a_private_ca() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::private() else {
        return;
    };
    let url = cluster.database();
    let (ca, other) = cluster.enable_tls();
    let with = |query: &str| ojd_store::open(&format!("{url}?{query}"));
    let error = |query: &str| match with(query) {
        Ok(_) => panic!("{query} must not connect"),
        Err(e) => format!("{:#}", anyhow::Error::from(e)),
    };
    let store = with("sslmode=require").expect("sslmode=require connects");
    let id = store
        .insert(
            &ojd_store::NewSubmission {
                user: "u".into(),
                problem: "p".into(),
                language: "py".into(),
                source: b"x".to_vec(),
            },
            1,
        )
        .expect("insert over TLS");
    let claim = store
        .claim("tls-host", 2, 60_000)
        .expect("claim")
        .expect("queued");
    assert_eq!(claim.id, id);
    drop(store);
    with(&format!("sslmode=verify-full&sslrootcert={}", ca.display()))
        .expect("verify-full with the right CA connects");
    let wrong = error(&format!(
        "sslmode=verify-full&sslrootcert={}",
        other.display()
    ));
    assert!(wrong.contains("certificate verify failed"), "{wrong}");
    let disabled = error("sslmode=disable");
    assert!(
        disabled.contains("pg_hba.conf"),
        "the server refuses plain TCP: {disabled}"
    );
    // By name: the certificate names 127.0.0.1 only.
    let local = url.replace("127.0.0.1", "localhost");
    ojd_store::open(&format!(
        "{local}?sslmode=verify-ca&sslrootcert={}",
        ca.display()
    ))
    .expect("verify-ca does not check the host name");
    let named = match ojd_store::open(&format!(
        "{local}?sslmode=verify-full&sslrootcert={}",
        ca.display()
    )) {
        Ok(_) => panic!("verify-full must check the host name"),
        Err(e) => format!("{:#}", anyhow::Error::from(e)),
    };
    assert!(named.contains("certificate verify failed"), "{named}");
    let bad = error("sslmode=verify-everything");
    assert!(bad.contains("sslmode"), "{bad}");
}

/// The judge-host role of `ojd worker --print-role-sql` is enough to judge (a worker logged in
/// as it judges a submission to AC), and is refused the rest: tokens, sessions, queueing
/// submissions, publishing packages, rewriting a finished verdict, another host's in-flight
/// judging, claim and host row (its drain flag), and a start under another host's name.
#[test]
fn the_judge_host_role_judges_and_is_refused_the_rest() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::private() else {
        return;
    };
    let url = cluster.database();
    let (site, serve) = serve_only(&url);
    let out = common::ojd()
        .args(["worker", "--print-role-sql", "ojd_judge"])
        .output()
        .expect("ojd worker runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let sql = String::from_utf8(out.stdout).expect("utf-8");
    let mut owner = postgres::Client::connect(&url, postgres::NoTls).expect("connect");
    owner.batch_execute(&sql).expect("the role's SQL runs");
    owner
        .batch_execute(&sql)
        .expect("and runs again (idempotent)");
    let judge_url = url.replace("postgres://postgres@", "postgres://ojd_judge@");
    assert_ne!(judge_url, url);

    // A judge-host role registers only hosts named after it: a worker of another name is
    // refused at its start, saying what to do.
    let home = site.path().join("misnamed");
    std::fs::create_dir_all(&home).expect("folder");
    std::fs::write(
        home.join("worker.toml"),
        format!("[server]\ndatabase = \"{judge_url}\"\n"),
    )
    .expect("config");
    let out = common::ojd()
        .args(["worker", "--name", "somebody-else", "--config"])
        .arg(home.join("worker.toml"))
        .output()
        .expect("ojd worker runs");
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "a misnamed host started: {err}");
    assert!(err.contains("--name NAME"), "{err}");

    // Another host (the owner's doing, as `ojd serve` would record it): a live claim with its
    // judging in flight, and its host row.
    owner
        .batch_execute(
            "INSERT INTO hosts (name, role, started_at, last_seen, label)
               VALUES ('other~0123456789abcdef', 'worker', 0, 0, 'other');
             INSERT INTO submissions (id, \"user\", problem, language, source, state,
               queued_at, claimed_at, claimed_by, lease_until, attempts)
               VALUES (9000, 'bob', 'aplusb', 'py', '\\x00', 'judging', 0, 0,
                 'other~0123456789abcdef', 9000000000000000, 1);
             INSERT INTO judgings (submission, attempt, judged_by, started_at)
               VALUES (9000, 1, 'other~0123456789abcdef', 0);",
        )
        .expect("another host's claim");

    let worker = Worker::start(site.path(), "ojd_judge", &judge_url);
    let id = submit(&serve, ALICE, "s.py", &python(AC_PY));
    let sub = serve.wait_done(id, ADMIN, WITHIN);
    assert_eq!(sub["verdict"], "AC", "{sub}\n{}", worker.log());
    drop(worker);

    let mut judge = postgres::Client::connect(&judge_url, postgres::NoTls).expect("connect");
    for refused in [
        "SELECT * FROM tokens",
        "SELECT * FROM sessions",
        "SELECT * FROM login_codes",
        "INSERT INTO submissions (\"user\", problem, language, source, queued_at) VALUES ('x', 'aplusb', 'py', '\\x00', 0)",
        "DELETE FROM submissions",
        "INSERT INTO packages (version, problem, manifest, published_at) VALUES ('v', 'p', '[]', 0)",
        "UPDATE submissions SET source = '\\x00'",
    ] {
        let e = judge.batch_execute(refused).expect_err(refused);
        assert!(
            e.to_string().contains("permission denied")
                || e.as_db_error().is_some_and(|d| d.message().contains("permission denied")),
            "{refused}: {e:?}"
        );
    }
    // A finished verdict stays as it is (row security hides it from updates).
    let changed = judge
        .execute(
            "UPDATE judgings SET verdict = 'WA' WHERE finished_at IS NOT NULL",
            &[],
        )
        .expect("update runs");
    assert_eq!(changed, 0, "a finished verdict cannot be rewritten");
    // Another host's in-flight judging, its claim and its host row (the drain flag) are out
    // of reach: hidden from updates, and nothing may be made another host's.
    for untouched in [
        "UPDATE judgings SET verdict = 'WA', finished_at = 1
           WHERE judged_by = 'other~0123456789abcdef'",
        "UPDATE submissions SET state = 'queued', claimed_by = NULL, lease_until = NULL
           WHERE id = 9000",
        "UPDATE submissions SET claimed_by = 'ojd_judge~1', lease_until = 0 WHERE id = 9000",
        "UPDATE hosts SET drain = 'drained by another host' WHERE name <> 'ojd_judge'
           AND name NOT LIKE 'ojd\\_judge~%'",
        "UPDATE hosts SET last_seen = 0 WHERE name = 'other~0123456789abcdef'",
    ] {
        let changed = judge.execute(untouched, &[]).expect(untouched);
        assert_eq!(changed, 0, "{untouched}");
    }
    for refused in [
        "INSERT INTO hosts (name, role, started_at, last_seen) VALUES ('other~1', 'worker', 0, 0)",
        "INSERT INTO judgings (submission, attempt, judged_by, started_at)
           VALUES (9000, 2, 'other~0123456789abcdef', 0)",
        "INSERT INTO judging_results (judging, idx, name, sample, verdict, cpu_ms, wall_ms,
           memory_kib, message) SELECT id, 99, 't', false, 'WA', 0, 0, 0, ''
           FROM judgings WHERE judged_by = 'other~0123456789abcdef'",
    ] {
        let e = judge.batch_execute(refused).expect_err(refused);
        assert!(
            e.as_db_error()
                .is_some_and(|d| d.message().contains("row-level security")),
            "{refused}: {e:?}"
        );
    }
    let (state, by, drain): (String, Option<String>, Option<String>) = {
        let r = owner
            .query_one(
                "SELECT s.state, s.claimed_by, h.drain FROM submissions s, hosts h
                 WHERE s.id = 9000 AND h.name = 'other~0123456789abcdef'",
                &[],
            )
            .expect("read");
        (r.get(0), r.get(1), r.get(2))
    };
    assert_eq!(
        (state.as_str(), by.as_deref(), drain),
        ("judging", Some("other~0123456789abcdef"), None)
    );
    let open: i64 = owner
        .query_one(
            "SELECT COUNT(*) FROM judgings WHERE submission = 9000 AND finished_at IS NULL",
            &[],
        )
        .expect("read")
        .get(0);
    assert_eq!(open, 1, "the other host's judging is still in flight");
    owner
        .batch_execute("DELETE FROM submissions WHERE id = 9000")
        .expect("clean up");
    let (_, sub) = serve.get(&format!("/api/v1/submissions/{id}"), Some(ADMIN));
    assert_eq!(sub["verdict"], "AC");
    let (status, _) = serve.terminate(Duration::from_secs(30));
    assert!(status.success());
}
