//! Every page, student's and admin's, contest and rejudging pages included, in headless
//! Chromium at 390 px (a phone) and at desktop width: none may scroll sideways
//! (`document.documentElement.scrollWidth <= innerWidth`), and the submissions table shows its
//! important columns (the first two and the verdict) without scrolling its own box. A screenshot of each
//! page at 390 px is saved as `target/phone-<page>.png`.
//!
//! Without Chromium the test says so and passes, except under CI (`CI` set), where it fails.

use std::time::Duration;

use serde_json::{json, Value};

use crate::cdp::{artifact, have_chromium, Browser, Cdp};
use crate::daemon::{Daemon, Site, ADMIN, ALICE};

/// A source with a line far wider than a phone, and a compile error with long messages.
const LONG_LINE: &str = "#include <stdio.h>\nint main(void) { long long a, b; int t; if (scanf(\"%d\", &t) != 1) return 0; while (t--) { scanf(\"%lld %lld\", &a, &b); printf(\"%lld\\n\", a + b + 0 * (a * b * a * b * a * b * a * b * a * b * a * b)); } return 0; }\n";
const BROKEN: &str = "int main(void) { this_function_does_not_exist_and_has_a_very_long_name_indeed(1, 2, 3, 4, 5); return undefined_variable_with_a_long_name; }\n";

fn login(page: &mut Cdp, url: &str, token: &str) {
    page.navigate(&format!("{url}/login"));
    page.click("#token");
    page.type_text(token);
    page.click("form.login button[type=submit]");
    page.wait_for(
        "the login",
        "document.querySelector('nav .who') !== null",
        Duration::from_secs(10),
    );
}

fn submit(d: &Daemon, token: &str, contest: Option<&str>, source: &str) -> i64 {
    let mut body = json!({ "problem": "aplusb", "language": "c", "source": source });
    if let Some(c) = contest {
        body["contest"] = json!(c);
    }
    let (code, r) = d.post_json("/api/v1/submissions", Some(token), &body);
    assert_eq!(code, 201, "{r}");
    r["id"].as_i64().expect("id")
}

/// Visits `paths` at 390 px and at 1200 px; returns nothing, asserts the widths.
fn walk(page: &mut Cdp, d: &Daemon, who: &str, paths: &[String]) {
    for (label, width, height, mobile) in [("desktop", 1200, 900, false), ("phone", 390, 844, true)]
    {
        page.viewport(width, height, mobile);
        for path in paths {
            page.navigate(&format!("{}{path}", d.url));
            page.wait_for(
                "the page",
                "document.readyState === 'complete'",
                Duration::from_secs(10),
            );
            let status = page.eval("document.querySelector('h1')?.textContent ?? ''");
            assert!(
                !status.as_str().unwrap_or("").contains("Internal"),
                "{path}: {status}"
            );
            if label == "phone" {
                let name = format!(
                    "phone-{who}{}.png",
                    path.replace(['/', '?', '=', '&'], "-")
                        .trim_end_matches('-')
                );
                page.screenshot(&artifact(&name));
            }
            let sw = page.eval("document.documentElement.scrollWidth");
            if sw.as_f64() > Some(f64::from(width)) {
                let wide = page.eval(&format!(
                    "Array.from(document.querySelectorAll('main *')).filter(e => e.getBoundingClientRect().right > {width}).slice(-6).map(e => e.tagName + '.' + e.className + ' ' + Math.round(e.getBoundingClientRect().right))"
                ));
                panic!("{who} {label} {path}: the page scrolls sideways ({sw} > {width}): {wide}");
            }
            // Tables may scroll in their own box, but the first two columns and the verdict must be
            // in view (a
            // source listing scrolls: its lines are as long as they are).
            let hidden: Value = page.eval(
                "Array.from(document.querySelectorAll('table:not(.source)')).flatMap(t => { \
                   const box = (t.closest('.scroll') || t.parentElement).getBoundingClientRect(); \
                   const row = t.querySelector('tbody tr'); if (!row) return []; \
                   return Array.from(row.cells).filter((c, i) => (i < 2 || c.querySelector('.badge')) && c.offsetWidth > 0 && c.getBoundingClientRect().right > box.right + 1).map(c => c.textContent.trim().slice(0, 20)); })",
            );
            assert_eq!(
                hidden,
                json!([]),
                "{who} {label} {path}: first columns cut off"
            );
        }
    }
}

#[test]
fn every_page_fits_a_phone() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let contests = tempfile::tempdir().expect("temp dir");
    let site = Site::new(&format!(
        "contests = \"{}\"\nrate_limit_per_minute = 0",
        contests.path().display()
    ));
    crate::contests::write_contest(
        contests.path(),
        "live",
        ojd_store::now_ms() - 60_000,
        "5h",
        "",
        "aplusb",
    );
    let d = site.start();
    let wa = std::fs::read_to_string(crate::common::testdata(
        "aplusb/submissions/wrong_answer/wa_second_line.c",
    ))
    .expect("source");
    let wa_id = submit(&d, ALICE, Some("live"), &wa);
    let long_id = submit(&d, ALICE, None, LONG_LINE);
    let ce_id = submit(&d, ALICE, None, BROKEN);
    for id in [wa_id, long_id, ce_id] {
        d.wait_done(id, ALICE, Duration::from_secs(180));
    }
    let (code, body) = d.post_json(
        "/api/v1/contests/live/clarifications",
        Some(ALICE),
        &json!({ "problem": "aplusb", "text": "Can a and b be negative? What about a very long question that wraps over several lines on a phone screen?" }),
    );
    assert!((200..300).contains(&code), "{code}: {body}");
    let (code, rj) = d.post_json(
        "/api/v1/admin/rejudgings",
        Some(ADMIN),
        &json!({ "problem": "aplusb" }),
    );
    assert_eq!(code, 201, "{rj}");
    let rj = rj["id"].as_i64().expect("rejudging id");

    let browser = Browser::start();
    let mut page = browser.page();
    page.call("Page.enable", json!({}));
    // A visitor.
    walk(
        &mut page,
        &d,
        "visitor",
        &[
            "/",
            "/problems/aplusb",
            "/login",
            "/contests",
            "/no-such-page",
            "/submissions/abc",
        ]
        .map(String::from),
    );
    // A student.
    login(&mut page, &d.url, ALICE);
    let student: Vec<String> = [
        "/".to_string(),
        "/problems/aplusb".into(),
        "/submissions".into(),
        format!("/submissions/{wa_id}"),
        format!("/submissions/{long_id}"),
        format!("/submissions/{ce_id}"),
        "/contests".into(),
        "/contests/live".into(),
        "/contests/live/standings".into(),
    ]
    .to_vec();
    walk(&mut page, &d, "student", &student);
    // The admin: the same pages as an admin sees them, and the admin pages.
    page.call("Network.clearBrowserCookies", json!({}));
    login(&mut page, &d.url, ADMIN);
    let mut admin = student;
    admin.extend([
        "/admin/problems".to_string(),
        "/admin/users".into(),
        "/admin/queue".into(),
        "/admin/rejudgings".into(),
        format!("/admin/rejudgings/{rj}"),
        "/submissions?verdict=WA".into(),
    ]);
    walk(&mut page, &d, "admin", &admin);

    // The queue page lists the judge hosts with their heartbeat; a submission's page says which
    // host judged it, to admins only.
    let (_, hosts) = d.get("/api/v1/admin/hosts", Some(ADMIN));
    let host = hosts["hosts"][0]["name"]
        .as_str()
        .expect("a host")
        .to_string();
    page.navigate(&format!("{}/admin/queue", d.url));
    let row = page.eval("document.querySelector('#hosts tbody tr')?.textContent ?? ''");
    assert!(
        row.as_str()
            .is_some_and(|r| r.contains(&host) && r.contains("ago")),
        "{row}"
    );
    page.navigate(&format!("{}/submissions/{wa_id}", d.url));
    let by = page.eval("document.getElementById('judged-by')?.textContent ?? ''");
    assert_eq!(by, json!(format!("judged by {host}")));
    let (_, own) = d.get(&format!("/api/v1/submissions/{wa_id}"), Some(ALICE));
    assert!(
        own["judged_by"].is_null(),
        "students are not told the host: {own}"
    );
    let (_, page_html) = d.get_text(&format!("/submissions/{wa_id}"), Some(ALICE));
    assert!(!page_html.contains("judged-by"), "{page_html}");
    drop(browser);
}
