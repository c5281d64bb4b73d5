//! The jury's answer form on the contest page survives the live refresh: an answer half typed
//! (and its "send to everyone" tick) is still there after a new question arrives and the
//! announcements are fetched again, even once the form has lost the focus; the questions
//! waiting for an answer come first, oldest first, under a badge with their number.

use std::time::Duration;

use serde_json::json;

use super::{logged_in, phone};
use crate::cdp::{artifact, have_chromium, Browser};
use crate::contest_site::ContestSite;
use crate::daemon::{ADMIN, ALICE, BOB};

#[test]
fn a_half_typed_answer_is_kept_when_a_new_question_arrives() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let cs = ContestSite::new();
    cs.contest("ask", ojd_store::now_ms() - 600_000)
        .lasting("1h")
        .write();
    let d = cs.start();
    let ask = |token: &str, text: &str| {
        let (code, q) = d.post_json(
            "/api/v1/contests/ask/clarifications",
            Some(token),
            &json!({ "text": text }),
        );
        assert_eq!(code, 201, "{q}");
        q["id"].as_i64().expect("id")
    };
    let first = ask(BOB, "Is the input one line?");
    let browser = Browser::start();
    let mut page = logged_in(&browser, &d, ADMIN, "admin");
    page.navigate(&format!("{}/contests/ask", d.url));
    let form = format!("form.answer[action='/contests/ask/answer/{first}']");
    page.click(&format!("{form} textarea"));
    page.type_text("Yes, one line with two");
    page.click(&format!("{form} input[name=public]"));
    // The focus leaves the form (the director looks elsewhere): the refresh is free to run.
    page.eval("document.activeElement.blur(); true");
    ask(ALICE, "May the numbers be negative?");
    page.wait_for(
        "the new question on the page",
        "document.getElementById('news').textContent.includes('May the numbers be negative?')",
        Duration::from_secs(20),
    );
    let kept = page.eval(&format!(
        "[document.querySelector({f} + ' textarea').value, document.querySelector({f} + ' input[name=public]').checked]",
        f = json!(form)
    ));
    assert_eq!(kept, json!(["Yes, one line with two", true]));
    // The jury's queue: a badge with the questions waiting, the oldest first.
    let queue = page.eval(
        "[document.querySelector('#unanswered .badge')?.textContent, document.querySelector('#news .clar .text')?.textContent]",
    );
    assert_eq!(queue, json!(["2", "Is the input one line?"]));
    page.screenshot(&artifact("contest-answer-kept.png"));
    phone(&mut page, "answer-kept");
    drop(browser);
}
