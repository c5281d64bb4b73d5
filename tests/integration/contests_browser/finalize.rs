//! Finalizing in the browser: the contest page's "Finalize the results" leads to a checklist
//! when something stops it (frozen standings: an explanation and the unfreeze button, not a
//! bare error) or needs confirming (an unanswered question, an open rejudging), and finalizes
//! only once each warning is ticked. Desktop and 390 px.

use std::time::Duration;

use serde_json::json;

use super::{logged_in, phone};
use crate::cdp::{artifact, have_chromium, Browser};
use crate::contest_site::ContestSite;
use crate::contests::message;
use crate::daemon::{ADMIN, ALICE, BOB};

#[test]
fn finalize_shows_a_checklist_and_needs_each_warning_confirmed() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let cs = ContestSite::new();
    let now = ojd_store::now_ms();
    cs.contest("fin", now - 600_000)
        .lasting("1h")
        .keys("freeze = \"1h\"\n[awards]\ngold = 1")
        .write();
    let clock = crate::common::TestClock::new();
    let d = clock.start(&cs.site);
    let (code, a) = crate::contests::submit(&d, ALICE, Some("fin"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{a}");
    let sid = a["id"].as_i64().expect("id");
    d.wait_done(sid, ALICE, Duration::from_secs(120));
    // A question nobody answers, and a rejudging nobody applies or cancels.
    let (code, q) = d.post_json(
        "/api/v1/contests/fin/clarifications",
        Some(BOB),
        &json!({"text": "Is the input one line?"}),
    );
    assert_eq!(code, 201, "{q}");
    let qid = q["id"].as_i64().expect("question id");
    let (code, r) = d.post_json(
        "/api/v1/admin/rejudgings",
        Some(ADMIN),
        &json!({"contest": "fin"}),
    );
    assert_eq!(code, 201, "{r}");
    let rid = r["id"].as_i64().expect("rejudging id");
    // End now rounds the end down to a whole second: alice's submission stays inside.
    clock.advance(1100);
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/fin/clock",
        Some(ADMIN),
        &json!({"action": "end_now"}),
    );
    assert_eq!(code, 200, "{r}");

    let browser = Browser::start();
    let mut page = logged_in(&browser, &d, ADMIN, "admin");
    let yes =
        "window.confirm = (q) => { window.__asked = q; return true; }; window.__asked = null; true";

    // Still frozen: the button leads to a page that says so and offers the unfreeze.
    page.navigate(&format!("{}/contests/fin", d.url));
    page.eval(yes);
    page.click("#finalize");
    page.wait_for(
        "the checklist page, blocked",
        "location.pathname.endsWith('/finalize') && document.getElementById('finalize-blocked') !== null",
        Duration::from_secs(10),
    );
    let blocked = page.eval("document.getElementById('finalize-blocked').textContent");
    assert!(
        blocked
            .as_str()
            .is_some_and(|t| t.contains("unfreeze them first")),
        "{blocked}"
    );
    assert_eq!(
        page.eval("[document.getElementById('unfreeze') !== null, document.getElementById('finalize-confirm') === null]"),
        json!([true, true])
    );
    page.screenshot(&artifact("contest-finalize-frozen.png"));
    phone(&mut page, "finalize-frozen");
    page.eval(yes);
    page.click("#unfreeze");
    page.wait_for(
        "the unfrozen standings",
        "location.pathname.endsWith('/standings')",
        Duration::from_secs(10),
    );

    // Unfrozen: the checklist names the question and the rejudging, each to be ticked.
    page.navigate(&format!("{}/contests/fin", d.url));
    page.eval(yes);
    page.click("#finalize");
    page.wait_for(
        "the checklist page, asking",
        "location.pathname.endsWith('/finalize') && document.getElementById('finalize-asked') !== null",
        Duration::from_secs(10),
    );
    let found = page.eval(
        "Array.from(document.querySelectorAll('#checklist li')).map(l => [l.dataset.check, Number(l.dataset.found), l.textContent])",
    );
    let found = found.as_array().expect("checks").clone();
    let counts: Vec<(String, i64)> = (found.iter())
        .map(|c| {
            let key = c[0].as_str().expect("key").to_string();
            (key, c[1].as_i64().expect("count"))
        })
        .collect();
    assert_eq!(
        counts,
        [
            ("judge_errors".to_string(), 0),
            ("pending".to_string(), 0),
            ("unanswered".to_string(), 1),
            ("rejudgings".to_string(), 1)
        ],
        "{found:?}"
    );
    let text = |key: &str| {
        (found.iter())
            .find(|c| c[0] == key)
            .and_then(|c| c[2].as_str())
            .unwrap_or("")
            .to_string()
    };
    assert!(
        text("unanswered").contains(&format!("question {qid}")),
        "{found:?}"
    );
    assert!(
        text("rejudgings").contains(&format!("rejudging {rid}")),
        "{found:?}"
    );
    assert_eq!(
        page.eval("[document.getElementById('confirm-unanswered')?.required, document.getElementById('confirm-rejudgings')?.required, document.getElementById('confirm-pending')]"),
        json!([true, true, null])
    );
    page.screenshot(&artifact("contest-finalize-checklist.png"));
    phone(&mut page, "finalize-checklist");

    // The API refuses a confirmation that leaves one out, naming it; nothing is final.
    let (code, e) = d.post_json(
        "/api/v1/admin/contests/fin/finalize",
        Some(ADMIN),
        &json!({"confirm": ["unanswered"]}),
    );
    assert_eq!(code, 409, "{e}");
    assert!(
        message(&e).contains("1 rejudging neither applied nor cancelled")
            && !message(&e).contains("questions"),
        "{e}"
    );
    let (code, list) = d.get("/api/v1/admin/contests/fin/finalize", Some(ADMIN));
    assert_eq!(code, 200, "{list}");
    assert_eq!(list["blocked"], json!(null), "{list}");
    assert_eq!(list["checks"][2]["ids"], json!([qid]), "{list}");

    // Both ticked: final, on the standings with the awards; the audit says what was confirmed.
    page.click("#confirm-unanswered");
    page.click("#confirm-rejudgings");
    page.eval(yes);
    page.click("#finalize-confirm");
    page.wait_for(
        "the final standings",
        "document.getElementById('awards') !== null && location.pathname.endsWith('/standings')",
        Duration::from_secs(10),
    );
    let toml = std::fs::read_to_string(cs.file("fin")).expect("toml");
    assert!(toml.contains("finalized = \""), "{toml}");
    let (code, log) = d.get("/api/v1/admin/audit?contest=fin", Some(ADMIN));
    assert_eq!(code, 200, "{log}");
    let fin = (log.as_array().expect("audit").iter())
        .find(|e| e["action"] == "finalize")
        .map(|e| e["detail"].as_str().unwrap_or("").to_string())
        .unwrap_or_default();
    assert!(
        fin.contains("confirmed: 1 question of a team nobody answered"),
        "{log}"
    );
    drop(browser);
}
