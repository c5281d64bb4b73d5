//! A contest's director on the web, over HTTP with the real daemon (issue 23's last gaps): the
//! live event stream under a contest's feedback policy while a many-test submission is judged,
//! and the one-source rule of the web form and the submit API (ojd's bundle of several files
//! refused).

use std::time::Duration;

use serde_json::{json, Value};

use ojd_judge::SourceFile;

use crate::contest_site::ContestSite;
use crate::contests::{message, now_ms};
use crate::daemon::{events_at, Daemon, Site, ADMIN, ALICE, JUDGED_WITHIN};
use crate::websec::{login, request};

// ---- the live event stream under the feedback policy ----

/// A correct program that takes a while on each test, so that a stream opened right after the
/// submission watches it being judged.
const SLOW_AC: &str = r#"#include <stdio.h>
#include <unistd.h>
int main(void) {
    int t;
    long long a, b;
    usleep(150000);
    if (scanf("%d", &t) != 1) return 1;
    while (t--) {
        scanf("%lld %lld", &a, &b);
        printf("%lld\n", a + b);
    }
    return 0;
}
"#;

/// The hidden test whose answer is broken: the first failure, with tests after it.
const FAILING: &str = "08-more";

/// Makes `problems/<name>` a copy of aplusb with 15 tests, `08-more` failing for a correct
/// program.
fn many_test_problem(cs: &ContestSite, name: &str) {
    cs.copy_problem(name);
    let tests = cs.path().join("problems").join(name).join("tests");
    for n in 3..=14 {
        for ext in ["in", "ans"] {
            std::fs::copy(
                tests.join(format!("01-big.{ext}")),
                tests.join(format!("{n:02}-more.{ext}")),
            )
            .expect("copy a test");
        }
    }
    let answer = tests.join(format!("{FAILING}.ans"));
    let good = std::fs::read_to_string(&answer).expect("answer");
    std::fs::write(&answer, format!("0\n{good}")).expect("break");
}

/// What one event stream showed of the tests.
#[derive(Debug, Default)]
struct Watched {
    /// The `state` of the first event (`queued` or `judging` when the stream watched the
    /// judging; `done` when it came too late).
    first: String,
    /// The names in `started` events, in order.
    started: Vec<String>,
    /// The tests of `test` events, in order.
    finished: Vec<Value>,
    /// The names of the tests listed by `state` events.
    in_state: Vec<String>,
    /// The tests listed by `state` events.
    state_tests: Vec<Value>,
    /// The `done` event's verdict.
    verdict: String,
}

fn watched(events: &[(String, Value)]) -> Watched {
    let mut w = Watched::default();
    let name = |v: &Value| v["name"].as_str().unwrap_or("?").to_string();
    for (i, (kind, data)) in events.iter().enumerate() {
        match kind.as_str() {
            "state" => {
                if i == 0 {
                    w.first = data["state"].as_str().unwrap_or("").to_string();
                }
                let tests = data["tests"].as_array().cloned().unwrap_or_default();
                w.in_state.extend(tests.iter().map(name));
                w.state_tests.extend(tests);
            }
            "started" => w.started.push(name(data)),
            "test" => w.finished.push(data["result"].clone()),
            "done" => {
                if i == 0 {
                    w.first = "done".into();
                }
                w.verdict = data["verdict"].as_str().unwrap_or("").to_string();
            }
            _ => {}
        }
    }
    w
}

impl Watched {
    fn finished_names(&self) -> Vec<String> {
        self.finished
            .iter()
            .map(|t| t["name"].as_str().unwrap_or("?").to_string())
            .collect()
    }

    /// Every test name the stream showed, by any event.
    fn all_names(&self) -> Vec<String> {
        let mut all: Vec<String> = self
            .in_state
            .iter()
            .chain(&self.started)
            .cloned()
            .chain(self.finished_names())
            .collect();
        all.sort();
        all.dedup();
        all
    }
}

/// Submits the slow program to `contest`'s problem as alice, and reads its event stream as
/// alice and as the admin at once, from right after the submission to `done`.
fn watch_both(d: &Daemon, contest: &str) -> (i64, Watched, Watched) {
    let (code, r) = d.post_json(
        "/api/v1/submissions",
        Some(ALICE),
        &json!({ "problem": format!("p{contest}"), "language": "c", "source": SLOW_AC, "contest": contest }),
    );
    assert_eq!(code, 201, "{r}");
    let id = r["id"].as_i64().expect("id");
    let url = d.url.clone();
    let admin = std::thread::spawn(move || events_at(&url, id, ADMIN, JUDGED_WITHIN));
    let alice = events_at(&d.url, id, ALICE, JUDGED_WITHIN);
    let admin = admin.join().expect("the admin's stream");
    let (alice, admin) = (watched(&alice), watched(&admin));
    for (who, w) in [("alice", &alice), ("admin", &admin)] {
        assert_ne!(
            w.first, "done",
            "{who}'s stream opened after the judging ended: the test watched nothing ({w:?})"
        );
        assert_eq!(w.verdict, "WA", "{who}: {w:?}");
    }
    // The admin watched every test live, whatever the policy.
    assert!(
        !admin.finished.is_empty(),
        "the admin got no test event: {admin:?}"
    );
    assert_eq!(
        admin.all_names().len(),
        15,
        "the admin sees every test: {admin:?}"
    );
    assert!(
        admin.all_names().contains(&FAILING.to_string()),
        "{admin:?}"
    );
    (id, alice, admin)
}

/// A contest's feedback policy holds on the live event stream (`/api/v1/submissions/{id}/events`,
/// which the submission page follows) while a submission of 15 tests is judged: under
/// `"verdict"` the participant's stream names no test at all (no `started`, no `test`, no test
/// in `state`) and ends with the verdict; under `"first_failure"` it shows the tests up to the
/// first failing one (a hidden test, without its diff) and nothing after it; the admin's stream
/// of the same submissions shows every test with the failing test's diff. On SQLite.
#[test]
fn the_feedback_policy_holds_on_the_live_stream() {
    require_root!();
    feedback_on_the_stream(None);
}

/// The same on PostgreSQL (events by NOTIFY; the private cluster of pg.rs, which fails under
/// `CI` without one).
#[test]
fn the_feedback_policy_holds_on_the_live_stream_on_postgres() {
    require_root!();
    let Some(cluster) = crate::pg::Cluster::get() else {
        return;
    };
    feedback_on_the_stream(Some(&cluster.database()));
}

fn feedback_on_the_stream(database: Option<&str>) {
    let cs = ContestSite::on(database);
    for (id, policy) in [("sverdict", "verdict"), ("sfirst", "first_failure")] {
        let problem = format!("p{id}");
        many_test_problem(&cs, &problem);
        cs.contest(id, now_ms() - 600_000)
            .lasting("2h")
            .keys(&format!("feedback = \"{policy}\""))
            .problems(&[&problem])
            .write();
    }
    let d = cs.start();

    // "verdict": not one test named to alice, live or at the end.
    let (id, alice, admin) = watch_both(&d, "sverdict");
    assert!(
        alice.started.is_empty() && alice.finished.is_empty() && alice.in_state.is_empty(),
        "a test shown under \"verdict\": {alice:?}"
    );
    assert!(
        admin.finished.iter().any(|t| t["name"] == FAILING),
        "{admin:?}"
    );
    // Her stream still says how far it is and ends like the page's: by the verdict.
    let (_, v) = d.get(&format!("/api/v1/submissions/{id}"), Some(ALICE));
    assert_eq!(v["tests"], json!([]), "{v}");

    // "first_failure": the tests up to the failing one, and nothing after it.
    let (_, alice, admin) = watch_both(&d, "sfirst");
    let order = {
        // The order the tests run in, as the admin saw them finish (the stream may have
        // listed the first ones in its opening `state`).
        let mut order = admin.in_state.clone();
        order.extend(admin.finished_names());
        order.dedup();
        order
    };
    assert_eq!(order.len(), 15, "{admin:?}");
    let cut = order
        .iter()
        .position(|n| n == FAILING)
        .expect("the failing test ran");
    assert!(
        cut + 1 < order.len(),
        "tests run after the failure: {order:?}"
    );
    let hidden_after: Vec<&String> = order[cut + 1..].iter().collect();
    for name in alice.all_names() {
        assert!(
            !hidden_after.contains(&&name),
            "alice was shown {name}, after the first failure: {alice:?}"
        );
    }
    let mut seen = alice.in_state.clone();
    seen.extend(alice.finished_names());
    seen.dedup();
    assert_eq!(
        seen,
        order[..=cut],
        "alice sees each test up to the first failure: {alice:?}"
    );
    let failing = alice
        .finished
        .iter()
        .chain(&alice.state_tests)
        .find(|t| t["name"] == FAILING)
        .expect("alice is shown the failing test");
    assert_eq!(failing["verdict"], "WA", "{failing}");
    assert!(
        failing["diff"].is_null(),
        "a hidden test's diff under first_failure: {failing}"
    );
    let admin_failing = admin
        .finished
        .iter()
        .find(|t| t["name"] == FAILING)
        .expect("the admin saw the failing test finish");
    assert!(
        !admin_failing["diff"].is_null(),
        "the admin sees the diff: {admin_failing}"
    );
}

// ---- one source per submission on the web ----

/// ojd's bundle of a folder of two C files (`main.c` calls `add` of `add.c`): what `ojd judge`
/// makes of a folder, and what the daemon would judge as several files if it took it.
fn bundle() -> Vec<u8> {
    let file = |name: &str, text: &str| SourceFile {
        name: name.into(),
        text: text.as_bytes().to_vec(),
    };
    ojd_judge::encode_bundle(
        "sol",
        &[
            file(
                "main.c",
                "#include <stdio.h>\nlong long add(long long, long long);\n\
                 int main(void){int t;long long a,b;scanf(\"%d\",&t);\
                 while(t--){scanf(\"%lld %lld\",&a,&b);printf(\"%lld\\n\",add(a,b));}return 0;}\n",
            ),
            file(
                "add.c",
                "long long add(long long a, long long b){return a+b;}\n",
            ),
        ],
    )
}

/// A file whose bytes happen to be ojd's bundle of several files (a NUL byte, `ojd-files`, …)
/// is refused with a message that says so, wherever it comes in: the submit API as a file
/// upload, as JSON text, and the problem page's form (which keeps the draft and shows the
/// message); nothing is queued. Before, each was accepted and judged as two files.
#[test]
fn a_bundle_of_several_files_is_refused_on_the_web() {
    require_root!();
    let site = Site::new("rate_limit_per_minute = 0");
    let d = site.start();
    let bytes = bundle();
    assert!(ojd_judge::is_bundle(&bytes));

    // The API, a multipart upload.
    let (code, e) = d.post_file(
        ALICE,
        &[("problem", "aplusb"), ("language", "c")],
        "main.c",
        &bytes,
    );
    assert_eq!(code, 400, "{e}");
    let m = message(&e);
    assert!(
        m.contains("uploaded file") && m.contains("several files") && m.contains("one source file"),
        "{m}"
    );

    // The API, JSON text (a NUL is a valid JSON string character).
    let text = String::from_utf8(bytes.clone()).expect("the bundle is UTF-8");
    let (code, e) = d.post_json(
        "/api/v1/submissions",
        Some(ALICE),
        &json!({ "problem": "aplusb", "language": "c", "source": text }),
    );
    assert_eq!(code, 400, "{e}");
    let m = message(&e);
    assert!(
        m.contains("field `source`") && m.contains("several files"),
        "{m}"
    );

    // The problem page's form, uploading the file: back to the form with the reason.
    let cookie = login(&d, ALICE);
    let boundary = "ojd-bundle-boundary-3f9a";
    let mut body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"language\"\r\n\r\nc\r\n\
         --{boundary}\r\nContent-Disposition: form-data; name=\"source\"\r\n\r\n\r\n\
         --{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"main.c\"\r\n\
         Content-Type: application/octet-stream\r\n\r\n"
    )
    .into_bytes();
    body.extend_from_slice(&bytes);
    body.extend_from_slice(format!("\r\n--{boundary}--\r\n").as_bytes());
    let host = d.url.trim_start_matches("http://").to_string();
    let agent = ureq::AgentBuilder::new().redirects(0).build();
    let r = agent
        .post(&format!("{}/problems/aplusb/submit", d.url))
        .set("Cookie", &cookie)
        .set("Origin", &format!("http://{host}"))
        .set("Sec-Fetch-Site", "same-origin")
        .set(
            "Content-Type",
            &format!("multipart/form-data; boundary={boundary}"),
        )
        .send_bytes(&body);
    let r = match r {
        Ok(r) => r,
        Err(ureq::Error::Status(_, r)) => r,
        Err(e) => panic!("the form: {e}"),
    };
    assert_eq!(r.status(), 303, "post/redirect/get");
    let to = r.header("location").expect("a redirect").to_string();
    assert!(
        to.starts_with("/problems/aplusb?draft="),
        "back to the form, not to a submission: {to}"
    );
    let (code, _, page) = request(&d, "GET", &to, &[("Cookie", &cookie)], None);
    assert_eq!(code, 200, "{page}");
    assert!(
        page.contains("several files") && page.contains("one source file"),
        "the form shows why: {page}"
    );

    // Nothing was queued; one file still is.
    let (code, mine) = d.get("/api/v1/submissions", Some(ALICE));
    assert_eq!(code, 200, "{mine}");
    assert_eq!(mine, json!([]), "a bundle was queued");
    let one =
        std::fs::read(crate::common::testdata("aplusb/submissions/accepted/ac.c")).expect("ac.c");
    let (code, r) = d.post_file(ALICE, &[("problem", "aplusb")], "ac.c", &one);
    assert_eq!(code, 201, "{r}");
    let id = r["id"].as_i64().expect("id");
    assert_eq!(d.wait_done(id, ALICE, JUDGED_WITHIN)["verdict"], "AC");
}

// ---- awards on the web ----

/// `[awards]` through the definition API: shown by `GET` (as text, like the form's fields), a
/// bad count refused naming `awards.<medal>` (nothing written), a good one saved, described
/// ("medals: none → gold 1, …"), written into `contest.toml` beside the teams (kept), audited,
/// and given by the results; a body without `awards` (an older client) keeps the file's
/// medals; a finalized contest refuses the change, a team's edit and a roster import (API and
/// page) with the reason (409), and its file stays as it was.
#[test]
fn awards_are_edited_through_the_definition_api() {
    require_root!();
    let cs = ContestSite::new();
    cs.contest("gala", now_ms() - 600_000)
        .lasting("2h")
        .keys("[[team]]\nuser = \"alice\"\nname = \"Rocket\"")
        .write();
    let file = cs.file("gala");
    let clock = crate::common::TestClock::new();
    let d = clock.start(&cs.site);
    let (code, a) = crate::contests::submit(&d, ALICE, Some("gala"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{a}");
    d.wait_done(a["id"].as_i64().expect("id"), ALICE, JUDGED_WITHIN);
    let path = "/api/v1/admin/contests/gala/definition";
    let (code, mut def) = d.get(path, Some(ADMIN));
    assert_eq!(code, 200, "{def}");
    assert_eq!(
        def["awards"],
        json!({"gold": "0", "silver": "0", "bronze": "0"}),
        "{def}"
    );

    // Refused, each bad count named; nothing written.
    let before = std::fs::read_to_string(&file).expect("toml");
    def["awards"] = json!({"gold": "many", "silver": -1, "bronze": "2"});
    let (code, e) = d.post_json(path, Some(ADMIN), &def);
    assert_eq!(code, 400, "{e}");
    let m = message(&e);
    assert!(
        m.contains("awards.gold: expected a number of gold medals from 0 to 1000")
            && m.contains("awards.silver:")
            && !m.contains("awards.bronze"),
        "{m}"
    );
    def["awards"] = json!({"gold": 1, "platinum": 1});
    let (code, e) = d.post_json(path, Some(ADMIN), &def);
    assert_eq!(code, 400, "an unknown medal: {e}");
    assert!(e.to_string().contains("platinum"), "{e}");
    assert_eq!(std::fs::read_to_string(&file).expect("toml"), before);

    // Saved: described, written, loaded, audited.
    def["awards"] = json!({"gold": 1, "silver": "", "bronze": "2"});
    let (code, r) = d.post_json(path, Some(ADMIN), &def);
    assert_eq!(code, 200, "{r}");
    assert_eq!(
        r["changes"],
        json!(["medals: none → gold 1, silver 0, bronze 2"]),
        "{r}"
    );
    let text = std::fs::read_to_string(&file).expect("toml");
    assert!(
        text.contains("\n[awards]\ngold = 1\nsilver = 0\nbronze = 2\n")
            && text.contains("[[team]]\nuser = \"alice\"\nname = \"Rocket\"")
            && text.matches("[awards]").count() == 1,
        "{text}"
    );
    let (_, def) = d.get(path, Some(ADMIN));
    assert_eq!(
        def["awards"],
        json!({"gold": "1", "silver": "0", "bronze": "2"}),
        "{def}"
    );
    let (code, log) = d.get("/api/v1/admin/audit", Some(ADMIN));
    assert_eq!(code, 200, "{log}");
    assert!(
        log.to_string()
            .contains("medals: none → gold 1, silver 0, bronze 2"),
        "{log}"
    );

    // A body without the field keeps the medals.
    let mut older = def.clone();
    older.as_object_mut().expect("object").remove("awards");
    older["title"] = json!("Gala");
    let (code, r) = d.post_json(path, Some(ADMIN), &older);
    assert_eq!(code, 200, "{r}");
    assert_eq!(r["changes"], json!(["title: \"gala\" → \"Gala\""]), "{r}");
    let (_, def) = d.get(path, Some(ADMIN));
    assert_eq!(def["awards"]["gold"], "1", "{def}");

    // Ended and finalized: the results give alice gold; the medals are final. (End now
    // rounds down to a whole second: the daemon's clock moves past the next one first.)
    clock.advance(1100);
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/gala/clock",
        Some(ADMIN),
        &json!({"action": "end_now"}),
    );
    assert_eq!(code, 200, "{r}");
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/gala/finalize",
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 200, "{r}");
    let (code, awards) = d.get("/api/v1/contests/gala/awards", None);
    assert_eq!(code, 200, "{awards}");
    let gold = awards["awards"]
        .as_array()
        .expect("awards")
        .iter()
        .find(|a| a["id"] == "gold-medal")
        .cloned()
        .unwrap_or_else(|| panic!("a gold medal: {awards}"));
    assert!(gold.to_string().contains("alice"), "{gold}");
    let final_text = std::fs::read_to_string(&file).expect("toml");
    let mut late = def.clone();
    late["awards"] = json!({"gold": 3, "silver": 0, "bronze": 0});
    let (code, e) = d.post_json(path, Some(ADMIN), &late);
    assert_eq!(code, 409, "{e}");
    assert!(
        message(&e).contains("finalized") && message(&e).contains("refused"),
        "{e}"
    );
    assert_eq!(std::fs::read_to_string(&file).expect("toml"), final_text);

    // Its teams are final too: the single-team editor and the roster import, through the API
    // and on the teams page, are refused with the reason (409); the file stays as it was.
    let (code, e) = d.post_json(
        "/api/v1/admin/contests/gala/team",
        Some(ADMIN),
        &json!({"user": "bob", "name": "Comet"}),
    );
    assert_eq!(code, 409, "{e}");
    assert!(message(&e).contains("changing its teams is refused"), "{e}");
    let (code, e) = d.post_json(
        "/api/v1/admin/contests/gala/teams",
        Some(ADMIN),
        &json!({"roster": "user,name\nbob,Comet\n", "tokens": true}),
    );
    assert_eq!(code, 409, "{e}");
    assert!(
        message(&e).contains("was finalized at")
            && message(&e).contains("importing a roster is refused"),
        "{e}"
    );
    let cookie = login(&d, ADMIN);
    let boundary = "ojd-roster-boundary-7c1e";
    let body = format!(
        "--{boundary}\r\nContent-Disposition: form-data; name=\"roster\"\r\n\r\n\
         user,name\nbob,Comet\n\r\n--{boundary}--\r\n"
    );
    let host = d.url.trim_start_matches("http://").to_string();
    let origin = format!("http://{host}");
    let content_type = format!("multipart/form-data; boundary={boundary}");
    let (code, _, page) = request(
        &d,
        "POST",
        "/contests/gala/teams",
        &[
            ("Cookie", &cookie),
            ("Origin", &origin),
            ("Sec-Fetch-Site", "same-origin"),
            ("Content-Type", &content_type),
        ],
        Some(&body),
    );
    assert_eq!(code, 409, "{page}");
    assert!(page.contains("importing a roster is refused"), "{page}");
    assert_eq!(std::fs::read_to_string(&file).expect("toml"), final_text);
    let (_, teams) = d.get("/api/v1/contests/gala/standings", Some(ADMIN));
    assert!(!teams.to_string().contains("Comet"), "{teams}");
}

// ---- overrides in their own table ----

/// A submission's override history comes from its own table, not from the audit log: after
/// 20,001 newer audit lines of the same contest (more than the 20,000 the history read before),
/// the admin's API and page still show each override with from → to, who and why, and the
/// standings still count the jury's verdict. On SQLite (the store suite runs the table's
/// cases on both engines).
#[test]
fn the_override_history_outlives_the_audit_log() {
    require_root!();
    let cs = ContestSite::new();
    cs.contest("h", now_ms() - 60_000).lasting("2h").write();
    let d = cs.start();
    let (code, s) = crate::contests::submit(&d, ALICE, Some("h"), "aplusb", "accepted/ac.c");
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
    over(json!({"verdict": "RE", "reason": "crashes on the judges' machine"}));

    // A busy contest's audit log: 20,001 lines after the overrides.
    let db = rusqlite::Connection::open(cs.site.database()).expect("open the database");
    db.busy_timeout(Duration::from_secs(30)).expect("timeout");
    db.execute_batch(
        "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20001)
         INSERT INTO audit (at, actor, action, contest, detail)
         SELECT 9000000000000 + i, 'admin', 'clarification', 'h', 'answered question ' || i FROM n;",
    )
    .expect("audit lines");
    drop(db);

    let (code, v) = d.get(&format!("/api/v1/submissions/{id}"), Some(ADMIN));
    assert_eq!(code, 200, "{v}");
    let overrides: Vec<String> = v["history"]
        .as_array()
        .expect("history")
        .iter()
        .filter(|e| e["kind"] == "override")
        .map(|e| {
            format!(
                "{} → {} by {}: {}",
                e["from"].as_str().unwrap_or(""),
                e["to"].as_str().unwrap_or(""),
                e["by"].as_str().unwrap_or(""),
                e["reason"].as_str().unwrap_or("")
            )
        })
        .collect();
    assert_eq!(
        overrides,
        [
            "AC → WA by admin: prints the samples' answers only",
            "WA → RE by admin: crashes on the judges' machine",
        ],
        "{v}"
    );
    let cookie = login(&d, ADMIN);
    let (code, _, page) = request(
        &d,
        "GET",
        &format!("/submissions/{id}"),
        &[("Cookie", &cookie)],
        None,
    );
    assert_eq!(code, 200);
    assert!(
        page.contains("id=\"history\"") && page.contains("WA → RE") && page.contains("crashes"),
        "{page}"
    );
    let (code, st) = d.get("/api/v1/contests/h/standings", Some(ADMIN));
    assert_eq!(code, 200, "{st}");
    let row = &st["rows"][0];
    assert_eq!(
        (row["user"].as_str(), row["solved"].as_i64()),
        (Some("alice"), Some(0)),
        "{st}"
    );

    // Removed: the judge's verdict again, and the removal in the history.
    over(json!({"verdict": null, "reason": ""}));
    let (_, v) = d.get(&format!("/api/v1/submissions/{id}"), Some(ADMIN));
    let last = v["history"]
        .as_array()
        .expect("history")
        .iter()
        .rev()
        .find(|e| e["kind"] == "override")
        .cloned()
        .expect("the removal");
    assert_eq!(
        (
            last["from"].as_str(),
            last["to"].as_str(),
            last["removed"].as_bool()
        ),
        (Some("RE"), Some("AC"), Some(true)),
        "{last}"
    );
    let (_, st) = d.get("/api/v1/contests/h/standings", Some(ADMIN));
    assert_eq!(st["rows"][0]["solved"], 1, "{st}");
}

// ---- teams on the web ----

/// One team at a time through the API: added with members (written into `contest.toml` as
/// `members = [...]`, shown in the standings' API and as the standings row's title), refused
/// field by field (nothing written), edited into an observer (off the public board), a team
/// with submissions refused removal with a message that says why, one without removed, an
/// unknown one 404; every change audited.
#[test]
fn teams_are_edited_one_at_a_time_over_http() {
    require_root!();
    let cs = ContestSite::new();
    cs.contest("t", now_ms() - 600_000)
        .lasting("2h")
        .keys("[[team]]\nuser = \"alice\"\nname = \"Rocket\"")
        .write();
    let file = cs.file("t");
    let d = cs.start();
    let mut ids = Vec::new();
    for (token, source) in [
        (ALICE, "accepted/ac.c"),
        (crate::daemon::BOB, "wrong_answer/wa_second_line.c"),
    ] {
        let (code, r) = crate::contests::submit(&d, token, Some("t"), "aplusb", source);
        assert_eq!(code, 201, "{r}");
        let id = r["id"].as_i64().expect("id");
        d.wait_done(id, token, JUDGED_WITHIN);
        ids.push(id);
    }
    let save = |body: Value| d.post_json("/api/v1/admin/contests/t/team", Some(ADMIN), &body);

    // Refused, each field named; nothing written.
    let before = std::fs::read_to_string(&file).expect("toml");
    let (code, e) = save(json!({
        "user": "bad name!", "category": "guest", "members": "Ann; Ann"
    }));
    assert_eq!(code, 400, "{e}");
    let m = message(&e);
    for field in ["user: ", "category: ", "members: "] {
        assert!(m.contains(field), "{field} in {m}");
    }
    assert_eq!(std::fs::read_to_string(&file).expect("toml"), before);

    // bob's team, with members.
    let (code, r) = save(json!({
        "user": "bob", "name": "Comet", "affiliation": "North U",
        "members": "Cy Young; Dee Ray"
    }));
    assert_eq!(code, 200, "{r}");
    assert_eq!(r["team"]["members"], json!(["Cy Young", "Dee Ray"]), "{r}");
    let text = std::fs::read_to_string(&file).expect("toml");
    assert!(
        text.contains("members = [\"Cy Young\", \"Dee Ray\"]")
            && text.contains("name = \"Rocket\""),
        "{text}"
    );
    let (code, s) = d.get("/api/v1/contests/t/standings", None);
    assert_eq!(code, 200, "{s}");
    let bob = s["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["user"] == "bob")
        .cloned()
        .unwrap_or_else(|| panic!("bob's row: {s}"));
    assert_eq!(
        (bob["name"].as_str(), bob["members"].clone()),
        (Some("Comet"), json!(["Cy Young", "Dee Ray"])),
        "{bob}"
    );
    let (code, page) = d.get_text("/contests/t/standings", None);
    assert_eq!(code, 200);
    assert!(page.contains("title=\"Cy Young, Dee Ray\""), "{page}");
    // bob's submission page names his team and its members.
    let (code, page) = d.get_text(
        &format!("/submissions/{}", ids[1]),
        Some(crate::daemon::BOB),
    );
    assert_eq!(code, 200);
    assert!(
        page.contains("<span id=\"team\">team Comet (Cy Young, Dee Ray)</span>"),
        "{page}"
    );

    // The user of a team with submissions does not change (they were made as that user).
    let (code, e) = save(json!({ "original": "bob", "user": "bobby", "name": "Comet" }));
    assert_eq!(code, 400, "{e}");
    assert!(
        message(&e).contains("user: team \"bob\" has 1 submission(s)"),
        "{e}"
    );

    // Edited into an observer: off the public board.
    let (code, r) = save(json!({
        "original": "bob", "user": "bob", "name": "Comet", "category": "observer",
        "members": "Cy Young"
    }));
    assert_eq!(code, 200, "{r}");
    let (_, s) = d.get("/api/v1/contests/t/standings", None);
    assert!(
        !s["rows"].to_string().contains("\"bob\""),
        "an observer on the public board: {s}"
    );

    // A team with submissions is not removed; one without is; an unknown one is 404.
    let remove = |user: &str| {
        d.post_json(
            &format!("/api/v1/admin/contests/t/teams/{user}/remove"),
            Some(ADMIN),
            &json!({}),
        )
    };
    let (code, e) = remove("alice");
    assert_eq!(code, 409, "{e}");
    assert!(
        message(&e).contains("has 1 submission(s)") && message(&e).contains("observer"),
        "{e}"
    );
    let (code, r) = save(json!({ "user": "carol", "name": "Nova" }));
    assert_eq!(code, 200, "{r}");
    let (code, r) = remove("carol");
    assert_eq!(code, 200, "{r}");
    let text = std::fs::read_to_string(&file).expect("toml");
    assert!(!text.contains("carol") && text.contains("alice"), "{text}");
    let (code, e) = remove("carol");
    assert_eq!(code, 404, "{e}");

    let (_, log) = d.get("/api/v1/admin/audit?contest=t", Some(ADMIN));
    let log = log.to_string();
    for line in [
        "team \\\"bob\\\" added",
        "team \\\"bob\\\" edited",
        "team \\\"carol\\\" removed",
    ] {
        assert!(log.contains(line), "{line} audited: {log}");
    }
}

// ---- the freeze's length on a running contest ----

/// A director changes how long the standings freeze, on the clock controls' API: while the
/// new freeze time is still to come (written into contest.toml, loaded, audited), never to a
/// time already past (what was shown cannot be hidden again), to before the start, or once the
/// standings are frozen; 0 removes the freeze. The same control is clicked in
/// `contests_browser`.
#[test]
fn the_freeze_length_is_changed_while_its_time_is_to_come() {
    require_root!();
    let cs = ContestSite::new();
    // Running for 10 of its 120 minutes, freezing at minute 60; "ice" froze at minute 60 of
    // its 100 so far.
    cs.contest("gala", now_ms() - 600_000)
        .lasting("2h")
        .keys("freeze = \"1h\"")
        .write();
    cs.contest("ice", now_ms() - 6_000_000)
        .lasting("2h")
        .keys("freeze = \"1h\"")
        .write();
    let file = cs.file("gala");
    let d = cs.start();
    let freeze = |id: &str, minutes: &str| {
        d.post_json(
            &format!("/api/v1/admin/contests/{id}/clock"),
            Some(ADMIN),
            &json!({"action": "freeze_last", "minutes": minutes}),
        )
    };
    let clock = |id: &str| {
        let (code, c) = d.get(&format!("/api/v1/contests/{id}"), Some(ADMIN));
        assert_eq!(code, 200, "{c}");
        c["clock"].clone()
    };
    let end = clock("gala")["end_ms"].as_i64().expect("end_ms");

    let (code, r) = freeze("gala", "30");
    assert_eq!(code, 200, "{r}");
    assert_eq!(
        clock("gala")["freeze_ms"],
        end - 30 * 60_000,
        "loaded at once"
    );
    let text = std::fs::read_to_string(&file).expect("toml");
    assert!(text.contains("freeze = \"30m\"\n"), "{text}");
    let (_, log) = d.get("/api/v1/admin/audit", Some(ADMIN));
    assert!(log.to_string().contains("freeze the last 30 min"), "{log}");

    // Refused, named, nothing written: a freeze that would have begun at minute 5, one from
    // before the start, a bad number, and a change while frozen.
    let (code, e) = freeze("gala", "115");
    assert_eq!(code, 409, "{e}");
    assert!(message(&e).contains("would have started already"), "{e}");
    let (code, e) = freeze("gala", "120");
    assert_eq!(code, 409, "{e}");
    assert!(message(&e).contains("before the contest does"), "{e}");
    let (code, e) = freeze("gala", "-1");
    assert_eq!(code, 400, "{e}");
    assert!(message(&e).contains("field `minutes`"), "{e}");
    assert_eq!(std::fs::read_to_string(&file).expect("toml"), text);
    let (code, e) = freeze("ice", "30");
    assert_eq!(code, 409, "{e}");
    assert!(message(&e).contains("frozen already"), "{e}");
    assert_eq!(clock("ice")["frozen"], true, "{}", clock("ice"));

    // 0: no freeze at all.
    let (code, r) = freeze("gala", "0");
    assert_eq!(code, 200, "{r}");
    assert!(clock("gala")["freeze_ms"].is_null(), "{}", clock("gala"));
    let text = std::fs::read_to_string(&file).expect("toml");
    assert!(!text.contains("freeze ="), "{text}");
}
