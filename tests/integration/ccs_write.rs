//! The Contest API's writes and its 2026-01 release on the real daemon, written from the
//! standard's text and examples: a team client posts a submission (its source zipped, in
//! base64) and a question, the judges answer and announce, a director moves a start; every
//! refusal the standard asks for is a 4xx. The same contest read under `/api/2026-01/` is in
//! that release's shapes (RELTIME penalty and scoreboard times, `to_team_ids`, `current`).

use std::io::Write;

use serde_json::{json, Value};

use crate::ccs_feed::{wf_site, AT_ONCE};
use crate::daemon::{response, Daemon, ADMIN, ALICE, BOB, JUDGED_WITHIN};

/// Standard base64, padded (what the standard's `data` is).
fn base64(bytes: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let b = [
            chunk[0],
            *chunk.get(1).unwrap_or(&0),
            *chunk.get(2).unwrap_or(&0),
        ];
        let n = (u32::from(b[0]) << 16) | (u32::from(b[1]) << 8) | u32::from(b[2]);
        for i in 0..4 {
            if i <= chunk.len() {
                out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A zip of `files` (name, text), in base64.
fn zipped(files: &[(&str, &str)]) -> String {
    let mut out = std::io::Cursor::new(Vec::new());
    {
        let mut zip = zip::ZipWriter::new(&mut out);
        for (name, text) in files {
            zip.start_file(*name, zip::write::SimpleFileOptions::default())
                .expect("zip");
            zip.write_all(text.as_bytes()).expect("zip");
        }
        zip.finish().expect("zip");
    }
    base64(&out.into_inner())
}

fn source(file: &str) -> String {
    std::fs::read_to_string(crate::common::testdata(&format!(
        "aplusb/submissions/{file}"
    )))
    .expect("source")
}

fn patch(d: &Daemon, path: &str, token: Option<&str>, body: &Value) -> (u16, Value) {
    let mut req = ureq::request("PATCH", &format!("{}{path}", d.url));
    if let Some(t) = token {
        req = req.set("Authorization", &format!("Bearer {t}"));
    }
    response(req.send_json(body.clone()))
}

#[test]
fn team_clients_write_and_2026_01_reads_the_same_contest() {
    require_root!();
    let (cs, now) = wf_site(AT_ONCE, "penalty = 20");
    cs.contest("later", now + 3_600_000)
        .lasting("1h")
        .keys("participants = [\"alice\"]")
        .write();
    let d = cs.start();
    let base = "/api/2026-01/contests/wf";

    // A submission as the standard's example posts one (team_submit).
    let ac = json!({"problem_id": "aplusb", "language_id": "c",
                    "files": [{"data": zipped(&[("ac.c", &source("accepted/ac.c"))]), "mime": "application/zip"}]});
    let (code, sub) = d.post_json(&format!("{base}/submissions"), Some(ALICE), &ac);
    assert_eq!(code, 201, "{sub}");
    assert_eq!(
        (&sub["team_id"], &sub["problem_id"], &sub["language_id"]),
        (&json!("alice"), &json!("aplusb"), &json!("c")),
        "{sub}"
    );
    let sid: i64 = sub["id"]
        .as_str()
        .expect("an id")
        .parse()
        .expect("a number");
    let done = d.wait_done(sid, ALICE, JUDGED_WITHIN);
    assert_eq!(done["verdict"], "AC", "{done}");
    // What the standard says must be refused, each naming the property.
    let refused = |body: Value, token: Option<&str>, want: u16, says: &str| {
        let (code, e) = d.post_json(&format!("{base}/submissions"), token, &body);
        assert_eq!(code, want, "{body}: {e}");
        assert!(e.to_string().contains(says), "{body}: {e}");
    };
    let with = |k: &str, v: Value| {
        let mut b = ac.clone();
        b[k] = v;
        b
    };
    refused(
        with("time", json!("2026-01-01T00:00:00Z")),
        Some(ALICE),
        400,
        "time",
    );
    refused(with("id", json!("77")), Some(ALICE), 400, "id");
    refused(with("team_id", json!("bob")), Some(ALICE), 403, "team_id");
    let (code, e) = d.post_json(
        &format!("{base}/submissions"),
        Some(ALICE),
        &with("problem_id", json!("nope")),
    );
    assert!(
        (400..500).contains(&code) && e.to_string().contains("nope"),
        "{code} {e}"
    );
    refused(ac.clone(), None, 401, "");
    let two = zipped(&[("a.c", "int main(){}"), ("b.c", "int x;")]);
    refused(
        with("files", json!([{"data": two}])),
        Some(ALICE),
        400,
        "2 files",
    );
    refused(
        with("files", json!([{"data": "not base64!"}])),
        Some(ALICE),
        400,
        "files[0].data",
    );
    let mut no_problem = ac.clone();
    no_problem
        .as_object_mut()
        .expect("object")
        .remove("problem_id");
    refused(no_problem, Some(ALICE), 400, "problem_id");
    // Not a participant of `later` (and it has not started): the web's own refusal.
    let (code, e) = d.post_json("/api/contests/later/submissions", Some(BOB), &ac);
    assert!((400..500).contains(&code), "{code} {e}");

    // A question (post_clar), the judges' private answer and an announcement to one team.
    let (code, q) = d.post_json(
        &format!("{base}/clarifications"),
        Some(ALICE),
        &json!({"problem_id": "aplusb", "from_team_id": "alice", "text": "May the sum overflow?"}),
    );
    assert_eq!(code, 201, "{q}");
    assert_eq!(
        (&q["from_team_id"], &q["text"]),
        (&json!("alice"), &json!("May the sum overflow?"))
    );
    let qid = q["id"].as_str().expect("an id").to_string();
    let (code, e) = d.post_json(
        &format!("{base}/clarifications"),
        Some(ALICE),
        &json!({"text": "hi bob", "to_team_ids": ["bob"]}),
    );
    assert_eq!(code, 400, "a team writes to the judges only: {e}");
    let (code, a) = d.post_json(
        &format!("{base}/clarifications"),
        Some(ADMIN),
        &json!({"reply_to_id": qid, "to_team_ids": ["alice"], "text": "It fits in 64 bits."}),
    );
    assert_eq!(code, 201, "{a}");
    assert_eq!(
        (&a["reply_to_id"], &a["to_team_ids"], &a["to_group_ids"]),
        (&json!(qid), &json!(["alice"]), &Value::Null),
        "{a}"
    );
    let (code, n) = d.post_json(
        "/api/contests/wf/clarifications",
        Some(ADMIN),
        &json!({"to_team_id": "bob", "text": "Bob: your badge is at the desk."}),
    );
    assert_eq!(code, 201, "{n}");
    assert_eq!(n["to_team_id"], "bob", "2023-06's shape: {n}");
    let (code, e) = d.post_json(
        &format!("{base}/clarifications"),
        Some(ADMIN),
        &json!({"to_team_ids": ["nobody"], "text": "?"}),
    );
    assert_eq!(code, 400, "an unknown team: {e}");
    // Alice sees the answer, not bob's announcement; bob sees his, not her question.
    let (_, mine) = d.get(&format!("{base}/clarifications"), Some(ALICE));
    let texts = |v: &Value| -> Vec<String> {
        v.as_array()
            .expect("a list")
            .iter()
            .map(|c| c["text"].as_str().unwrap_or("").to_string())
            .collect()
    };
    assert_eq!(
        texts(&mine),
        ["May the sum overflow?", "It fits in 64 bits."]
    );
    let (_, bobs) = d.get("/api/contests/wf/clarifications", Some(BOB));
    assert_eq!(texts(&bobs), ["Bob: your badge is at the desk."]);

    // The director moves a start that is to come (contest_start); not a started one's.
    let new_start = "2099-01-01T10:00:00.000+01";
    let (code, e) = patch(
        &d,
        "/api/contests/later",
        Some(ALICE),
        &json!({"id": "later", "start_time": new_start}),
    );
    assert_eq!(code, 403, "{e}");
    let (code, c) = patch(
        &d,
        "/api/contests/later",
        Some(ADMIN),
        &json!({"id": "later", "start_time": new_start}),
    );
    assert_eq!(code, 200, "{c}");
    let (_, later) = d.get("/api/contests/later", None);
    assert_eq!(
        later["start_time"], "2099-01-01T10:00:00.000+01:00",
        "{later}"
    );
    let (code, e) = patch(
        &d,
        "/api/contests/wf",
        Some(ADMIN),
        &json!({"start_time": new_start}),
    );
    assert_eq!(code, 409, "started: {e}");
    let (code, e) = patch(
        &d,
        "/api/contests/later",
        Some(ADMIN),
        &json!({"start_time": null}),
    );
    assert_eq!(code, 400, "{e}");

    // 2026-01's shapes.
    let (_, info) = d.get("/api/2026-01/", None);
    assert_eq!(info["version"], "2026-01", "{info}");
    let (_, info) = d.get("/api/", None);
    assert_eq!(info["version"], "2023-06", "{info}");
    let (_, c) = d.get(base, None);
    assert_eq!(c["penalty_time"], "0:20:00.000", "{c}");
    let (_, c) = d.get("/api/contests/wf", None);
    assert_eq!(c["penalty_time"], 20, "{c}");
    let (_, sb) = d.get(&format!("{base}/scoreboard"), None);
    let alice = sb["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .find(|r| r["team_id"] == "alice")
        .expect("alice's row")
        .clone();
    assert!(alice["score"]["total_time"].is_string(), "{alice}");
    assert!(alice["score"]["time"].is_string(), "{alice}");
    assert!(alice["problems"][0]["time"].is_string(), "{alice}");
    let (_, access) = d.get(&format!("{base}/access"), Some(ALICE));
    assert_eq!(
        access["capabilities"],
        json!(["team_submit", "post_clar"]),
        "{access}"
    );

    // A rejudging: the judgement it replaces is sent again, not current; one current each.
    let (code, r) = d.post_json(
        &format!("/api/v1/admin/submissions/{sid}/rejudge"),
        Some(ADMIN),
        &json!({}),
    );
    assert!(code == 200 || code == 202, "{code} {r}");
    let judgements = crate::common::wait_until(JUDGED_WITHIN, || {
        let (_, all) = d.get(
            &format!("{base}/judgements?submission_id={sid}"),
            Some(ADMIN),
        );
        let all = all.as_array().expect("a list").clone();
        if all.len() == 2 && all.iter().all(|j| j["judgement_type_id"] == "AC") {
            Ok(all)
        } else {
            Err(format!("the rejudging never came: {all:?}"))
        }
    });
    let current: Vec<bool> = judgements
        .iter()
        .map(|j| j["current"].as_bool().expect("current"))
        .collect();
    assert_eq!(current, [false, true], "{judgements:?}");
    let (_, old) = d.get(
        &format!("/api/contests/wf/judgements?submission_id={sid}"),
        Some(ADMIN),
    );
    assert!(
        old[0].get("current").is_none(),
        "2023-06 has no `current`: {old}"
    );
    // The feed sends the old judgement again, not current, at that moment.
    let first = judgements[0]["id"].clone();
    let sent = crate::common::wait_until(JUDGED_WITHIN, || {
        let (_, feed) = d.get_text(&format!("{base}/event-feed?stream=false"), Some(ADMIN));
        let sent: Vec<Value> = feed
            .lines()
            .filter_map(|l| serde_json::from_str::<Value>(l).ok())
            .filter(|e| e["type"] == "judgements" && e["id"] == first)
            .collect();
        if sent.last().map(|e| &e["data"]["current"]) == Some(&json!(false)) {
            Ok(sent)
        } else {
            Err(format!("never sent as not current: {sent:?}"))
        }
    });
    assert_eq!(sent[0]["data"]["current"], true, "{sent:?}");
}

/// A POST with an `Idempotency-Key`: (status, body, `Location`).
fn post_keyed(
    d: &Daemon,
    path: &str,
    token: &str,
    key: &str,
    body: &Value,
) -> (u16, Value, Option<String>) {
    let req = ureq::post(&format!("{}{path}", d.url))
        .set("Authorization", &format!("Bearer {token}"))
        .set("Idempotency-Key", key);
    match req.send_json(body.clone()) {
        Ok(r) => {
            let location = r.header("Location").map(str::to_string);
            (r.status(), r.into_json().unwrap_or(Value::Null), location)
        }
        Err(ureq::Error::Status(code, r)) => (code, r.into_json().unwrap_or(Value::Null), None),
        Err(e) => panic!("request failed: {e}"),
    }
}

#[test]
fn a_keyed_retry_of_a_contest_api_write_gets_the_first_answer_and_another_body_is_refused() {
    require_root!();
    let (cs, _) = wf_site(AT_ONCE, "");
    let d = cs.start();
    let base = "/api/2026-01/contests/wf";

    // A submission, posted twice with one key (the answer to the first was lost): one is made.
    let ac = json!({"problem_id": "aplusb", "language_id": "c",
                    "files": [{"data": zipped(&[("ac.c", &source("accepted/ac.c"))])}]});
    let subs = format!("{base}/submissions");
    let (code, first, at) = post_keyed(&d, &subs, ALICE, "sub-1", &ac);
    assert_eq!(code, 201, "{first}");
    let (code, again, again_at) = post_keyed(&d, &subs, ALICE, "sub-1", &ac);
    assert_eq!(code, 200, "the first answer, not a new submission: {again}");
    assert_eq!((&again["id"], &again_at), (&first["id"], &at), "{again}");
    let wa = json!({"problem_id": "aplusb", "language_id": "c",
                    "files": [{"data": zipped(&[("wa.c", "int main(){return 0;}")])}]});
    let (code, e, _) = post_keyed(&d, &subs, ALICE, "sub-1", &wa);
    assert_eq!(code, 409, "the key with another body: {e}");
    let (_, all) = d.get("/api/v1/submissions", Some(ALICE));
    let mine = all.as_array().expect("a list").len();
    assert_eq!(mine, 1, "one submission stored: {all}");

    // A question, likewise; the key is the asker's own (bob's same key is his).
    let clars = format!("{base}/clarifications");
    let ask = json!({"problem_id": "aplusb", "text": "Is the input one line?"});
    let (code, q, q_at) = post_keyed(&d, &clars, ALICE, "q-1", &ask);
    assert_eq!(code, 201, "{q}");
    assert_eq!(q["text"], "Is the input one line?", "{q}");
    let (code, q2, q2_at) = post_keyed(&d, &clars, ALICE, "q-1", &ask);
    assert_eq!(code, 200, "{q2}");
    assert_eq!((&q2["id"], &q2_at), (&q["id"], &q_at), "{q2}");
    let (code, e, _) = post_keyed(
        &d,
        &clars,
        ALICE,
        "q-1",
        &json!({"problem_id": "aplusb", "text": "Another question"}),
    );
    assert_eq!(code, 409, "{e}");
    assert!(e.to_string().contains("q-1"), "names the key: {e}");
    let (code, b, _) = post_keyed(&d, &clars, BOB, "q-1", &ask);
    assert_eq!(code, 201, "bob's key is his own: {b}");
    assert_ne!(b["id"], q["id"]);
    let (_, listed) = d.get(&clars, Some(ALICE));
    let asked = listed
        .as_array()
        .expect("a list")
        .iter()
        .filter(|c| c["from_team_id"] == "alice")
        .count();
    assert_eq!(asked, 1, "one question stored: {listed}");

    // A key that is not 1 to 255 visible ASCII characters is refused, naming the header.
    let (code, e, _) = post_keyed(&d, &clars, ALICE, "two words", &ask);
    assert_eq!(code, 400, "{e}");
    assert!(e.to_string().contains("Idempotency-Key"), "{e}");
}
