//! The contest pages in headless Chromium, over the DevTools protocol (the driver in `cdp.rs`): a student watches the standings update without reloading while
//! others' verdicts arrive, then an admin starts a rejudging from its page, watches it judge,
//! reads the diff and applies it. At desktop width and at 390 px (no horizontal overflow);
//! screenshots in `target/contest-*.png`.
//!
//! Without Chromium the test says so and passes, except under CI (`CI` set), where it fails.

mod answers;
mod finalize;

use std::time::Duration;

use serde_json::json;

use crate::cdp::{artifact, have_chromium, Browser, Cdp};
use crate::contest_site::ContestSite;
use crate::daemon::{Daemon, ADMIN, ALICE, BOB};

fn login(page: &mut Cdp, url: &str, token: &str, name: &str) {
    page.navigate(&format!("{url}/login"));
    page.click("#token");
    page.type_text(token);
    page.click("form.login button[type=submit]");
    page.wait_for(
        &format!("{name} to be logged in"),
        &format!(
            "document.querySelector('nav .who')?.textContent === {}",
            json!(name)
        ),
        Duration::from_secs(10),
    );
}

/// A page of `browser` with its events on, logged in to `d` as `name` (by `token`).
pub(crate) fn logged_in(browser: &Browser, d: &Daemon, token: &str, name: &str) -> Cdp {
    let mut page = browser.page();
    page.call("Page.enable", json!({}));
    login(&mut page, &d.url, token, name);
    page
}

/// Screenshots at 390 px and checks nothing overflows sideways; then back to desktop.
pub(crate) fn phone(page: &mut Cdp, name: &str) {
    page.call(
        "Emulation.setDeviceMetricsOverride",
        json!({ "width": 390, "height": 844, "deviceScaleFactor": 1, "mobile": true }),
    );
    page.wait_for(
        "the 390 px layout",
        "window.innerWidth === 390",
        Duration::from_secs(10),
    );
    let fits = page.eval("document.documentElement.scrollWidth <= window.innerWidth");
    assert_eq!(
        fits,
        true,
        "{name}: the page is wider than the phone ({})",
        page.eval("document.documentElement.scrollWidth")
    );
    page.screenshot(&artifact(&format!("contest-{name}-390.png")));
    page.call("Emulation.clearDeviceMetricsOverride", json!({}));
}

#[test]
fn standings_update_live_and_an_admin_applies_a_rejudging() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let cs = ContestSite::new();
    let now = ojd_store::now_ms();
    cs.contest("live", now - 600_000).lasting("2h").write();
    // The package ships a wrong answer: a correct program gets WA until it is fixed.
    let answer = cs.path().join("problems/aplusb/tests/02-many.ans");
    let good = std::fs::read_to_string(&answer).expect("answer");
    std::fs::write(&answer, format!("0\n{good}")).expect("break the answer");
    let d = cs.start();
    let (code, a) = crate::contests::submit(&d, ALICE, Some("live"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{a}");
    let alice_id = a["id"].as_i64().expect("id");
    assert_eq!(
        d.wait_done(alice_id, ALICE, Duration::from_secs(120))["verdict"],
        "WA"
    );

    let browser = Browser::start();
    let mut page = logged_in(&browser, &d, ALICE, "alice");
    page.navigate(&format!("{}/contests/live/standings", d.url));
    page.wait_for(
        "alice's rejected try",
        "document.querySelector('tr[data-user=alice] td.cell.failed')?.textContent.trim() === '-1'",
        Duration::from_secs(10),
    );
    // Bob's verdict arrives while the page stays open: his row appears without a reload.
    page.eval("window.__same_page = true");
    let (code, b) = crate::contests::submit(&d, BOB, Some("live"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{b}");
    page.wait_for(
        "bob's row to appear live",
        "window.__same_page === true && document.querySelector('tr[data-user=bob] td.cell.failed') !== null",
        Duration::from_secs(120),
    );
    let clock = page.eval("document.getElementById('clock-text').textContent");
    assert!(
        clock.as_str().is_some_and(|c| c.starts_with("Ends in")),
        "{clock}"
    );
    page.screenshot(&artifact("contest-standings.png"));
    phone(&mut page, "standings");
    // The contest page: clock, problems, the submit form, alice's submission, and the question
    // form; an announcement made meanwhile appears without a reload.
    page.navigate(&format!("{}/contests/live", d.url));
    page.wait_for(
        "the contest page",
        "document.querySelector('form.submit select[name=problem]') !== null",
        Duration::from_secs(10),
    );
    page.eval("window.__same_page = true");
    let (code, _) = d.post_json(
        "/api/v1/admin/contests/live/announcements",
        Some(ADMIN),
        &json!({"text": "Test 02-many will be rejudged."}),
    );
    assert_eq!(code, 201);
    page.wait_for(
        "the announcement to appear live",
        "window.__same_page === true && document.querySelector('#news .announcement')?.textContent.includes('02-many')",
        Duration::from_secs(20),
    );
    page.screenshot(&artifact("contest-page.png"));
    phone(&mut page, "page");

    // The answer is fixed; the admin rejudges the contest from the page and applies it.
    std::fs::write(&answer, &good).expect("fix the answer");
    let (code, _) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
    assert_eq!(code, 200);
    login(&mut page, &d.url, ADMIN, "admin");
    page.navigate(&format!("{}/admin/rejudgings", d.url));
    page.eval("document.querySelector('select[name=contest]').value = 'live'");
    page.click("form.rejudge button[type=submit]");
    page.wait_for(
        "the rejudging's page",
        "/\\/admin\\/rejudgings\\/\\d+$/.test(location.pathname) && document.readyState === 'complete'",
        Duration::from_secs(20),
    );
    // Before apply, alice still sees WA.
    assert_eq!(
        d.wait_done(alice_id, ALICE, Duration::from_secs(5))["verdict"],
        "WA"
    );
    page.wait_for(
        "the rejudging to finish and offer Apply",
        "document.getElementById('apply') !== null",
        Duration::from_secs(120),
    );
    let transitions = page.eval("document.querySelector('.transitions').innerText");
    assert_eq!(
        transitions
            .as_str()
            .map(|t| t.split_whitespace().collect::<Vec<_>>().join(" ")),
        Some("WA→AC 2".to_string()),
        "{transitions}"
    );
    let changed = page.eval("document.querySelectorAll('#changes tr.changed').length");
    assert_eq!(changed, 2);
    let moves = page.eval("document.querySelectorAll('table.moves tbody tr').length");
    assert_eq!(moves, 2, "alice and bob both move on the standings");
    page.screenshot(&artifact("contest-rejudging.png"));
    phone(&mut page, "rejudging");
    // Apply asks first (issue 23): the test answers yes.
    page.eval("window.confirm = (q) => { window.__asked = q; return true; }; true");
    page.click("#apply");
    page.wait_for(
        "the rejudging to be applied",
        "document.querySelector('#state strong')?.textContent === 'applied'",
        Duration::from_secs(20),
    );
    assert_eq!(
        d.wait_done(alice_id, ALICE, Duration::from_secs(5))["verdict"],
        "AC"
    );
    page.navigate(&format!("{}/contests/live/standings", d.url));
    page.wait_for(
        "alice's accepted problem, first to solve it",
        "document.querySelector('tr[data-user=alice] td.cell.first') !== null",
        Duration::from_secs(10),
    );
    page.screenshot(&artifact("contest-standings-after.png"));
    drop(browser);
}

/// Issue 23 in the browser, as a student and a director would, at desktop width and 390 px:
/// the statement page says which contest a submission counts for and the submission's page
/// and the list show it (defect 1); the contest page's form has a file input, no language
/// guess that always fails, keeps the paste and the choice when refused and remembers the
/// language (defect 5); the freeze controls are real buttons, ask first, show only after the
/// freeze time, and say when and by whom the freeze changed (defect 3).
#[test]
fn contest_pages_show_students_and_directors_what_each_may_see() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let cs = ContestSite::new();
    cs.copy_problem("frozenp");
    let now = ojd_store::now_ms();
    // Running, its freeze 50 minutes away.
    cs.contest("run", now - 600_000)
        .lasting("2h")
        .keys("freeze = \"1h\"")
        .write();
    // Frozen since 40 minutes.
    cs.contest("frz", now - 100 * 60_000)
        .lasting("2h")
        .keys("freeze = \"1h\"")
        .problems(&["frozenp"])
        .write();
    let d = cs.start();
    let source =
        std::fs::read_to_string(crate::common::testdata("aplusb/submissions/accepted/ac.c"))
            .expect("source");

    let browser = Browser::start();
    let mut page = logged_in(&browser, &d, ALICE, "alice");
    // Defect 1: the statement page says where the submission goes.
    page.navigate(&format!("{}/problems/aplusb", d.url));
    let note = page.eval("document.getElementById('counts-for')?.textContent ?? ''");
    assert!(
        note.as_str()
            .is_some_and(|n| n.contains("counts for the contest") && n.contains("run")),
        "{note}"
    );
    page.screenshot(&artifact("contest-i23-statement.png"));
    phone(&mut page, "i23-statement");

    // Defect 5: the contest page's form.
    page.navigate(&format!("{}/contests/run", d.url));
    let form = page.eval(
        "[document.querySelector('#submit-form input[type=file][name=file]') !== null, \
          document.getElementById('language').value, \
          document.getElementById('language').required]",
    );
    assert_eq!(
        form,
        json!([true, "", true]),
        "a file input, no default guess"
    );
    // A pasted program with "from the file's name": refused, and the form comes back with the
    // paste, the problem and the choice kept, and the reason.
    page.eval(&format!(
        "document.getElementById('language').value = 'auto'; \
         document.getElementById('source').value = {}; true",
        json!(source)
    ));
    page.click("#submit-button");
    page.wait_for(
        "the form to come back with the reason",
        "location.search.includes('draft=') && document.getElementById('form-error') !== null",
        Duration::from_secs(10),
    );
    let kept = page.eval("document.getElementById('source').value");
    assert_eq!(
        kept.as_str().map(str::trim),
        Some(source.trim()),
        "the paste is kept"
    );
    let reason = page.eval("document.getElementById('form-error').textContent");
    assert!(
        reason
            .as_str()
            .is_some_and(|r| r.contains("choose the language")),
        "{reason}"
    );
    page.screenshot(&artifact("contest-i23-refused.png"));
    phone(&mut page, "i23-refused");
    page.eval("document.getElementById('language').value = 'c'; true");
    page.click("#submit-button");
    page.wait_for(
        "the submission's page",
        "/\\/submissions\\/\\d+$/.test(location.pathname) && document.readyState === 'complete'",
        Duration::from_secs(10),
    );
    let contest = page.eval("document.getElementById('contest')?.textContent ?? ''");
    assert!(
        contest.as_str().is_some_and(|c| c.contains("run")),
        "{contest}"
    );
    // The language is remembered for the next submission.
    page.navigate(&format!("{}/contests/run", d.url));
    page.wait_for(
        "the remembered language",
        "document.getElementById('language').value === 'c'",
        Duration::from_secs(5),
    );
    // The list says which contest each submission counts for.
    page.navigate(&format!("{}/submissions", d.url));
    let cell =
        page.eval("document.querySelector('table.submissions td.contest')?.textContent ?? ''");
    assert_eq!(cell.as_str().map(str::trim), Some("run"), "{cell}");
    page.screenshot(&artifact("contest-i23-list.png"));
    phone(&mut page, "i23-list");

    // Defect 3: the director's freeze controls.
    login(&mut page, &d.url, ADMIN, "admin");
    page.navigate(&format!("{}/contests/run", d.url));
    let before = page.eval(
        "[document.getElementById('unfreeze') === null, document.getElementById('refreeze') === null, \
          document.getElementById('freeze-state')?.textContent ?? '']",
    );
    assert_eq!(
        before[0], true,
        "no unfreeze button before the freeze time: {before}"
    );
    assert_eq!(before[1], true, "{before}");
    assert!(
        before[2].as_str().is_some_and(|t| t.contains("freeze at")),
        "{before}"
    );
    page.navigate(&format!("{}/contests/frz", d.url));
    let button = page.eval(
        "(() => { const b = document.getElementById('unfreeze'); const s = getComputedStyle(b); \
           return [b.tagName, s.backgroundColor !== 'rgba(0, 0, 0, 0)', parseFloat(s.paddingLeft) > 0, \
                   document.getElementById('freeze-state').textContent]; })()",
    );
    assert_eq!(button[0], "BUTTON", "{button}");
    assert_eq!(button[1], true, "a styled button, not bare text: {button}");
    assert_eq!(button[2], true, "{button}");
    assert!(
        button[3].as_str().is_some_and(|t| t.contains("frozen")),
        "{button}"
    );
    page.screenshot(&artifact("contest-i23-frozen.png"));
    phone(&mut page, "i23-frozen");
    // It asks first: declining changes nothing.
    page.eval("window.confirm = (q) => { window.__asked = q; return false; }; true");
    page.click("#unfreeze");
    page.wait_for(
        "the question",
        "typeof window.__asked === 'string'",
        Duration::from_secs(5),
    );
    let (_, one) = d.get("/api/v1/contests/frz", None);
    assert_eq!(
        one["freeze"]["frozen"], true,
        "declined: still frozen: {one}"
    );
    page.eval("window.confirm = () => true; true");
    page.click("#unfreeze");
    page.wait_for(
        "the standings after the unfreeze",
        "location.pathname === '/contests/frz/standings' && document.readyState === 'complete'",
        Duration::from_secs(10),
    );
    page.navigate(&format!("{}/contests/frz", d.url));
    let state = page.eval("document.getElementById('freeze-state').textContent");
    assert!(
        state
            .as_str()
            .is_some_and(|t| t.contains("unfrozen") && t.contains("by admin")),
        "{state}"
    );
    let phase = page.eval("document.getElementById('phase').textContent");
    assert!(
        phase
            .as_str()
            .is_some_and(|t| t.contains("unfrozen at") && !t.contains("frozen since")),
        "{phase}"
    );
    assert_eq!(
        page.eval("document.getElementById('refreeze') !== null"),
        true,
        "freeze again is offered"
    );
    page.screenshot(&artifact("contest-i23-unfrozen.png"));
    phone(&mut page, "i23-unfrozen");
    drop(browser);
}

/// Issue 23's director tools in the browser, as a director would click them, at desktop width
/// and at 390 px: start a contest now, extend it, end it (each asking first), override a
/// verdict with a reason on a submission's page, and read it all in the audit log.
#[test]
fn a_director_runs_the_clock_and_overrides_a_verdict() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let cs = ContestSite::new();
    let now = ojd_store::now_ms();
    cs.contest("cup", now + 3_600_000).lasting("1h").write();
    let clock = crate::common::TestClock::new();
    let d = clock.start(&cs.site);
    let browser = Browser::start();
    let mut page = logged_in(&browser, &d, ADMIN, "admin");
    let yes =
        "window.confirm = (q) => { window.__asked = q; return true; }; window.__asked = null; true";
    let phase = |d: &crate::daemon::Daemon| {
        let (_, c) = d.get("/api/v1/contests/cup", None);
        c["clock"]["phase"].as_str().unwrap_or("").to_string()
    };

    // Before the start: Start now.
    page.navigate(&format!("{}/contests/cup", d.url));
    page.screenshot(&artifact("contest-i23-director-before.png"));
    phone(&mut page, "i23-director-before");
    page.eval(yes);
    page.click("#start-now");
    page.wait_for(
        "the started contest",
        "document.getElementById('extend') !== null && document.readyState === 'complete'",
        Duration::from_secs(10),
    );
    assert_eq!(phase(&d), "running");
    // Extend by 20 minutes.
    let (_, c) = d.get("/api/v1/contests/cup", None);
    let end = c["clock"]["end_ms"].as_i64().expect("end");
    page.eval("document.querySelector('#clock-controls input[name=minutes]').value = '20'; true");
    page.eval(yes);
    page.click("#extend");
    page.wait_for(
        "the extended contest",
        "document.readyState === 'complete' && document.getElementById('end-now') !== null && window.__asked === undefined",
        Duration::from_secs(10),
    );
    let (_, c) = d.get("/api/v1/contests/cup", None);
    assert_eq!(
        c["clock"]["end_ms"].as_i64(),
        Some(end + 20 * 60_000),
        "{c}"
    );
    page.screenshot(&artifact("contest-i23-director-running.png"));
    phone(&mut page, "i23-director-running");

    // A submission, overridden with a reason on its page.
    let (code, a) = crate::contests::submit(&d, ALICE, Some("cup"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{a}");
    let id = a["id"].as_i64().expect("id");
    d.wait_done(id, ALICE, Duration::from_secs(120));
    page.navigate(&format!("{}/submissions/{id}", d.url));
    page.click("#override-form summary");
    page.eval("document.getElementById('override-verdict').value = 'WA'; true");
    page.click("#override-reason");
    page.type_text("prints the answers of the samples only");
    page.eval(yes);
    page.click("#override-button");
    page.wait_for(
        "the jury's verdict",
        "document.getElementById('override')?.textContent.includes('Wrong Answer') === true",
        Duration::from_secs(10),
    );
    let (_, v) = d.get(&format!("/api/v1/submissions/{id}"), Some(ALICE));
    assert_eq!(v["verdict"], "WA", "{v}");
    // The override is in the submission's judging history, after its judging.
    let rows = page.eval(
        "Array.from(document.querySelectorAll('#history tbody tr')).map(r => r.className + ': ' + r.cells[3].textContent + ' ' + r.cells[4].textContent)",
    );
    assert_eq!(
        rows,
        json!([
            "judging: AC 100 current",
            "override: AC → WA prints the answers of the samples only"
        ]),
        "{rows}"
    );
    page.screenshot(&artifact("contest-i23-override.png"));
    phone(&mut page, "i23-override");

    // End now.
    page.navigate(&format!("{}/contests/cup", d.url));
    clock.advance(1100);
    page.eval(yes);
    page.click("#end-now");
    page.wait_for(
        "the ended contest",
        "document.readyState === 'complete' && document.getElementById('end-now') === null && document.getElementById('extend') === null",
        Duration::from_secs(10),
    );
    assert_eq!(phase(&d), "ended");

    // The audit log has it all, newest first.
    page.navigate(&format!("{}/admin/audit?contest=cup", d.url));
    let actions = page.eval(
        "Array.from(document.querySelectorAll('#audit tbody tr')).map(r => r.cells[2].textContent)",
    );
    assert_eq!(
        actions,
        json!(["clock", "override", "clock", "clock"]),
        "end, override, extend, start"
    );
    page.screenshot(&artifact("contest-i23-audit.png"));
    phone(&mut page, "i23-audit");

    // The roster: pasted, imported with a token per team, the sheet shown once to print.
    page.navigate(&format!("{}/contests/cup/teams", d.url));
    page.eval(
        "document.getElementById('roster').value = 'user,name,affiliation\\ncarol,Rocket,PKU\\ndave,Lima,THU\\n'; \
         document.getElementById('roster-tokens').checked = true; true",
    );
    page.eval(yes);
    page.click("#roster-button");
    page.wait_for(
        "the sheet to print",
        "document.querySelectorAll('#sheet tbody tr').length === 2",
        Duration::from_secs(10),
    );
    let teams = page.eval(
        "Array.from(document.querySelectorAll('#teams tbody tr')).map(r => r.cells[1].textContent)",
    );
    assert_eq!(teams, json!(["Rocket", "Lima"]));
    page.screenshot(&artifact("contest-i23-roster.png"));
    phone(&mut page, "i23-roster");
    // Once: a refresh shows the teams, not the tokens, and imports nothing again.
    let here = page
        .eval("location.href")
        .as_str()
        .unwrap_or_default()
        .to_string();
    page.navigate(&here);
    assert_eq!(page.eval("document.getElementById('sheet') === null"), true);
    drop(browser);
}

/// Issue 23, results: a director ends the contest, sees the awards' preview on the standings,
/// finalizes from the contest page (asked first), and the standings show the awards to
/// everyone with the results downloads. Desktop and 390 px.
#[test]
fn a_director_finalizes_and_publishes_the_awards() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let cs = ContestSite::new();
    let now = ojd_store::now_ms();
    cs.contest("gala", now - 600_000)
        .lasting("1h")
        .keys("[awards]\ngold = 1\nbronze = 2\n[[team]]\nuser = \"alice\"\nname = \"Rocket\"")
        .write();
    let clock = crate::common::TestClock::new();
    let d = clock.start(&cs.site);
    let (code, a) = crate::contests::submit(&d, ALICE, Some("gala"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{a}");
    let id = a["id"].as_i64().expect("id");
    d.wait_done(id, ALICE, Duration::from_secs(120));
    let browser = Browser::start();
    let mut page = logged_in(&browser, &d, ADMIN, "admin");
    let yes =
        "window.confirm = (q) => { window.__asked = q; return true; }; window.__asked = null; true";

    // End now; the finalize button appears, and the standings show the jury a preview.
    page.navigate(&format!("{}/contests/gala", d.url));
    assert_eq!(
        page.eval("document.getElementById('finalize') === null"),
        true
    );
    // End now rounds down to a whole second: alice's submission stays inside.
    clock.advance(1100);
    page.eval(yes);
    page.click("#end-now");
    page.wait_for(
        "the ended contest",
        "document.readyState === 'complete' && document.getElementById('finalize') !== null",
        Duration::from_secs(10),
    );
    page.navigate(&format!("{}/contests/gala/standings", d.url));
    assert_eq!(
        page.eval("document.getElementById('awards-preview') !== null"),
        true
    );
    let (_, public) = d.get_text("/contests/gala/standings", None);
    assert!(!public.contains("id=\"awards\""), "not public yet");
    page.screenshot(&artifact("contest-i23-awards-preview.png"));
    phone(&mut page, "i23-awards-preview");

    // Finalize, asked first; back on the standings, final.
    page.navigate(&format!("{}/contests/gala", d.url));
    page.eval(yes);
    page.click("#finalize");
    page.wait_for(
        "the final standings",
        "document.readyState === 'complete' && document.getElementById('awards') !== null && location.pathname.endsWith('/standings')",
        Duration::from_secs(10),
    );
    assert_eq!(
        page.eval("document.getElementById('awards-preview') === null"),
        true
    );
    let gold = page.eval("document.querySelector('tr[data-award=gold-medal]')?.textContent");
    assert!(
        gold.as_str()
            .is_some_and(|g| g.contains("Gold medal winner") && g.contains("Rocket")),
        "{gold}"
    );
    let links = page.eval(
        "Array.from(document.querySelectorAll('#awards a')).map(a => a.getAttribute('href'))",
    );
    assert_eq!(
        links,
        json!([
            "/api/v1/contests/gala/results.tsv",
            "/api/v1/contests/gala/results.csv",
            "/api/v1/contests/gala/awards.json"
        ])
    );
    page.screenshot(&artifact("contest-i23-awards.png"));
    phone(&mut page, "i23-awards");
    // Everyone sees them now; the contest page says it is final.
    let (_, public) = d.get_text("/contests/gala/standings", None);
    assert!(
        public.contains("id=\"awards\"") && public.contains("Rocket"),
        "{public}"
    );
    page.navigate(&format!("{}/contests/gala", d.url));
    assert_eq!(
        page.eval("document.getElementById('finalized')?.textContent.includes('finalized')"),
        true
    );
    assert_eq!(
        page.eval("document.getElementById('finalize') === null"),
        true
    );
    drop(browser);
}

/// Issue 23, the balloon queue: a director opens it from the contest page, marks the first
/// solve delivered (it moves to "Delivered" with who) and undoes it. Desktop and 390 px.
#[test]
fn a_director_delivers_balloons() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let cs = ContestSite::new();
    let now = ojd_store::now_ms();
    cs.contest("party", now - 600_000)
        .lasting("1h")
        .keys("[[team]]\nuser = \"alice\"\nname = \"Rocket\"\naffiliation = \"Peking University\"")
        .write();
    let d = cs.start();
    for token in [ALICE, BOB] {
        let (code, a) =
            crate::contests::submit(&d, token, Some("party"), "aplusb", "accepted/ac.c");
        assert_eq!(code, 201, "{a}");
        d.wait_done(
            a["id"].as_i64().expect("id"),
            token,
            Duration::from_secs(120),
        );
    }
    let browser = Browser::start();
    let mut page = logged_in(&browser, &d, ADMIN, "admin");
    page.navigate(&format!("{}/contests/party", d.url));
    page.click("#clock-controls a[href$='/balloons']");
    page.wait_for(
        "the balloon queue",
        "document.querySelectorAll('#balloons-waiting tbody tr').length === 2",
        Duration::from_secs(10),
    );
    let first = page.eval("document.querySelector('#balloons-waiting tbody tr').textContent");
    assert!(
        first
            .as_str()
            .is_some_and(|t| t.contains("Rocket") && t.contains("first")),
        "{first}"
    );
    page.screenshot(&artifact("contest-i23-balloons.png"));
    phone(&mut page, "i23-balloons");
    page.click("#balloons-waiting tbody tr button.deliver");
    page.wait_for(
        "the delivered balloon",
        "document.readyState === 'complete' && document.querySelectorAll('#balloons-done tbody tr').length === 1",
        Duration::from_secs(10),
    );
    let done = page.eval("document.querySelector('#balloons-done tbody tr').textContent");
    assert!(
        done.as_str()
            .is_some_and(|t| t.contains("Rocket") && t.contains("by admin")),
        "{done}"
    );
    assert_eq!(
        page.eval("document.querySelectorAll('#balloons-waiting tbody tr').length"),
        json!(1)
    );
    page.screenshot(&artifact("contest-i23-balloons-delivered.png"));
    phone(&mut page, "i23-balloons-delivered");
    page.click("#balloons-done tbody tr button.undo");
    page.wait_for(
        "the balloon back in the queue",
        "document.readyState === 'complete' && document.getElementById('balloons-done') === null && document.querySelectorAll('#balloons-waiting tbody tr').length === 2",
        Duration::from_secs(10),
    );
    drop(browser);
}

/// Issue 23, clarifications: a student asks a technical question from the contest page; the
/// director sees its category, claims it (the page says who holds it) and announces to one
/// team about one problem, which only that team reads. Desktop and 390 px.
#[test]
fn a_director_claims_a_question_and_announces_to_one_team() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let cs = ContestSite::new();
    let now = ojd_store::now_ms();
    cs.contest("desk", now - 600_000)
        .lasting("2h")
        .keys("participants = [\"alice\", \"bob\"]")
        .write();
    let d = cs.start();
    let browser = Browser::start();
    let mut page = browser.page();
    page.call("Page.enable", json!({}));

    // Alice asks: a technical issue.
    login(&mut page, &d.url, ALICE, "alice");
    page.navigate(&format!("{}/contests/desk", d.url));
    page.eval("document.getElementById('ask-category').value = 'technical'; true");
    page.click("form[action$='/ask'] textarea[name=text]");
    page.type_text("The mouse does not work");
    page.click("form[action$='/ask'] button[type=submit]");
    page.wait_for(
        "the question on the page",
        "document.readyState === 'complete' && document.querySelector('#news .clar .tag.technical') !== null",
        Duration::from_secs(10),
    );

    // The director: the category, Claim, then who holds it.
    login(&mut page, &d.url, ADMIN, "admin");
    page.navigate(&format!("{}/contests/desk", d.url));
    page.click("#news form.claim button.claim");
    page.wait_for(
        "the claim",
        "document.readyState === 'complete' && document.querySelector('#news .tag.claimed')?.textContent === 'claimed by admin'",
        Duration::from_secs(10),
    );
    assert_eq!(
        page.eval("document.querySelector('#news form.claim button').textContent"),
        json!("Release")
    );
    page.screenshot(&artifact("contest-i23-claimed.png"));
    phone(&mut page, "i23-claimed");

    // An announcement to bob only, about problem A.
    page.click("#announce-team");
    page.type_text("bob");
    page.eval("document.getElementById('announce-problem').value = 'aplusb'; true");
    page.click("#announce-form textarea[name=text]");
    page.type_text("Bob: your printout is at the desk.");
    page.click("#announce-form button[type=submit]");
    page.wait_for(
        "the announcement to bob",
        "document.readyState === 'complete' && document.querySelector('#news .announcement .tag.to')?.textContent === 'to bob only'",
        Duration::from_secs(60),
    );
    page.screenshot(&artifact("contest-i23-announce-team.png"));
    phone(&mut page, "i23-announce-team");
    let (_, bob) = d.get("/api/v1/contests/desk/clarifications", Some(BOB));
    assert!(bob.to_string().contains("printout"), "{bob}");
    let (_, alice) = d.get("/api/v1/contests/desk/clarifications", Some(ALICE));
    assert!(!alice.to_string().contains("printout"), "{alice}");
    drop(browser);
}

/// Issue 23, login by password: the director imports a roster generating a password per team
/// (the sheet shows them once), and a team logs in with its user name and password; a wrong
/// one says so on the form. Desktop and 390 px.
#[test]
fn a_team_logs_in_with_a_password_from_the_hall_sheet() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let cs = ContestSite::new();
    let now = ojd_store::now_ms();
    cs.contest("hall", now - 600_000).lasting("2h").write();
    let d = cs.start();
    let browser = Browser::start();
    let mut page = logged_in(&browser, &d, ADMIN, "admin");
    page.navigate(&format!("{}/contests/hall/teams", d.url));
    page.eval(
        "document.getElementById('roster').value = 'user,name,affiliation\\ncarol,Rocket,PKU\\n'; \
         document.getElementById('roster-passwords').checked = true; \
         window.confirm = () => true; true",
    );
    page.click("#roster-button");
    page.wait_for(
        "the sheet with the passwords",
        "document.querySelectorAll('#sheet tbody tr td.password').length === 1",
        Duration::from_secs(60),
    );
    let password = page
        .eval("document.querySelector('#sheet td.password code').textContent")
        .as_str()
        .expect("a password")
        .to_string();
    assert_eq!(password.len(), 12, "{password}");
    page.screenshot(&artifact("contest-i23-password-sheet.png"));
    phone(&mut page, "i23-password-sheet");

    // Carol logs in on the hall's machine: first mistyped, then right.
    page.call("Network.clearBrowserCookies", json!({}));
    page.navigate(&format!("{}/login", d.url));
    page.click("#user");
    page.type_text("carol");
    page.click("#password");
    page.type_text("not-her-password");
    page.click("#password-button");
    page.wait_for(
        "the refusal",
        "document.querySelector('p.error')?.textContent.includes('do not match') === true",
        Duration::from_secs(60),
    );
    page.screenshot(&artifact("contest-i23-password-wrong.png"));
    phone(&mut page, "i23-password-wrong");
    page.click("#user");
    page.type_text("carol");
    page.click("#password");
    page.type_text(&password);
    page.click("#password-button");
    page.wait_for(
        "carol to be logged in",
        "document.querySelector('nav .who')?.textContent === 'carol'",
        Duration::from_secs(60),
    );
    drop(browser);
}

/// Issue 23, a contest's definition in the browser: a director clicks "New contest" on the
/// contest list, types a contest with mistakes (each refused beside its field, and everything
/// typed kept), fixes them and creates it; then "Edit contest": a reorder is saved at once,
/// and a change of scoring after the start asks for confirmation saying what changes before
/// it is saved. Desktop and 390 px.
#[test]
fn a_director_creates_and_edits_a_contest_in_the_browser() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let cs = ContestSite::new();
    cs.copy_problem("second");
    let d = cs.start();
    let browser = Browser::start();
    let mut page = logged_in(&browser, &d, ADMIN, "admin");
    page.navigate(&format!("{}/contests", d.url));
    page.click("#new-contest");
    page.wait_for(
        "the new contest form",
        "document.getElementById('contest-form') !== null && document.readyState === 'complete'",
        Duration::from_secs(10),
    );
    let set = |page: &mut Cdp, selector: &str, value: &str| {
        page.eval(&format!(
            "document.querySelector({}).value = {}; true",
            json!(selector),
            json!(value)
        ));
    };
    // Mistakes: the start, the length, a colour, a label used twice.
    set(&mut page, "#f-id", "fresh");
    page.click("#f-title");
    page.type_text("Autumn cup");
    set(&mut page, "#f-start", "tomorrow morning");
    set(&mut page, "#f-duration", "long");
    set(&mut page, "select[name=problem_1]", "aplusb");
    set(&mut page, "input[name=label_1]", "A");
    set(&mut page, "input[name=color_1]", "blue");
    set(&mut page, "select[name=problem_2]", "second");
    set(&mut page, "input[name=label_2]", "A");
    page.click("#save-contest");
    page.wait_for(
        "the refused form",
        "document.readyState === 'complete' && document.getElementById('form-errors') !== null",
        Duration::from_secs(10),
    );
    let errors = page.eval(
        "Array.from(document.querySelectorAll('#form-errors li code')).map(c => c.textContent)",
    );
    assert_eq!(
        errors,
        json!([
            "start",
            "duration",
            "problems[1].color",
            "problems[2].label"
        ]),
        "each field named"
    );
    let kept = page.eval(
        "[document.getElementById('f-title').value, document.getElementById('f-duration').value, \
          document.querySelector('select[name=problem_2]').value, document.querySelector('input[name=color_1]').value, \
          document.querySelector('input[name=color_1]').getAttribute('aria-invalid'), \
          document.querySelector('input[name=color_1]').parentElement.querySelector('.field-error')?.textContent]",
    );
    assert_eq!(
        kept,
        json!([
            "Autumn cup",
            "long",
            "second",
            "blue",
            "true",
            "expected a colour like \"#1e90ff\" (or nothing), found \"blue\""
        ]),
        "what was typed is kept, the error beside its field"
    );
    assert!(!cs.contests().join("fresh").exists(), "nothing written");
    page.screenshot(&artifact("contest-i23-new-refused.png"));
    phone(&mut page, "i23-new-refused");

    // Fixed: created, and the browser is on its page.
    let start = crate::contests::rfc3339((ojd_store::now_ms() / 1000 + 3600) * 1000);
    set(&mut page, "#f-start", &start);
    set(&mut page, "#f-duration", "3h");
    set(&mut page, "input[name=color_1]", "#1e90ff");
    set(&mut page, "input[name=label_2]", "B");
    page.click("#save-contest");
    page.wait_for(
        "the new contest's page",
        "document.readyState === 'complete' && location.pathname === '/contests/fresh' && document.querySelector('h1')?.textContent === 'Autumn cup'",
        Duration::from_secs(10),
    );
    assert_eq!(
        page.eval("document.querySelector('svg.swatch rect')?.getAttribute('fill')"),
        json!("#1e90ff"),
        "A's colour"
    );
    page.screenshot(&artifact("contest-i23-new-created.png"));
    phone(&mut page, "i23-new-created");

    // Edit: B moves before A; saved at once (before the start, nothing to confirm).
    page.click("#edit-contest");
    page.wait_for(
        "the edit form",
        "document.getElementById('contest-form') !== null && document.readyState === 'complete'",
        Duration::from_secs(10),
    );
    set(&mut page, "input[name=order_2]", "0");
    page.click("#save-contest");
    page.wait_for(
        "the saved edit",
        "document.readyState === 'complete' && document.getElementById('saved') !== null",
        Duration::from_secs(10),
    );
    assert!(
        page.eval("document.getElementById('saved').textContent")
            .as_str()
            .is_some_and(|t| t.contains("order: A B → B A")),
        "{}",
        page.eval("document.getElementById('saved').textContent")
    );
    let (_, c) = d.get("/api/v1/contests/fresh", Some(ADMIN));
    assert_eq!(c["problems"][0]["problem"], "second", "{c}");

    // Started: a change of scoring asks first, saying what changes.
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/fresh/clock",
        Some(ADMIN),
        &json!({"action": "start_now"}),
    );
    assert_eq!(code, 200, "{r}");
    page.navigate(&format!("{}/contests/fresh/edit", d.url));
    set(&mut page, "#f-scoring", "ioi");
    page.click("#save-contest");
    page.wait_for(
        "the confirmation",
        "document.readyState === 'complete' && document.getElementById('confirm-changes') !== null",
        Duration::from_secs(10),
    );
    let asked = page.eval("document.getElementById('confirm-changes').textContent");
    assert!(
        asked.as_str().is_some_and(
            |t| t.contains("scoring: icpc → ioi") && t.contains("standings are recomputed")
        ),
        "{asked}"
    );
    let (_, c) = d.get("/api/v1/contests/fresh", Some(ADMIN));
    assert_eq!(c["scoring"], "icpc", "not saved before the confirmation");
    page.screenshot(&artifact("contest-i23-edit-confirm.png"));
    phone(&mut page, "i23-edit-confirm");
    page.click("#confirm-button");
    page.wait_for(
        "the confirmed edit",
        "document.readyState === 'complete' && document.getElementById('saved')?.textContent.includes('recomputed') === true",
        Duration::from_secs(10),
    );
    let (_, c) = d.get("/api/v1/contests/fresh", Some(ADMIN));
    assert_eq!(c["scoring"], "ioi", "{c}");
    page.screenshot(&artifact("contest-i23-edit-saved.png"));
    phone(&mut page, "i23-edit-saved");
    // Audited.
    page.navigate(&format!("{}/admin/audit?contest=fresh", d.url));
    let actions = page.eval(
        "Array.from(document.querySelectorAll('#audit tbody tr')).map(r => r.cells[2].textContent)",
    );
    assert_eq!(
        actions,
        json!(["contest-edit", "clock", "contest-edit", "contest-create"]),
        "{actions}"
    );
    drop(browser);
}

/// Issue 23, clicked rather than sent to the API: a student asks about a problem under "Ask a
/// question" and the director answers it on the page; the director delays a contest's start by
/// the minutes typed; the director ignores a submission on its page (it leaves the standings)
/// and ranks it again; the director prints the hall sheet of login links, valid until the time
/// typed. Desktop and 390 px.
#[test]
fn asking_delaying_and_ignoring_are_clicked() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let cs = ContestSite::new();
    let now = ojd_store::now_ms();
    cs.contest("later", now + 3_600_000)
        .lasting("2h")
        .keys("participants = [\"alice\", \"bob\"]")
        .write();
    cs.contest("desk", now - 600_000)
        .lasting("2h")
        .keys("participants = [\"alice\", \"bob\"]")
        .write();
    let d = cs.start();
    let browser = Browser::start();
    let mut page = browser.page();
    page.call("Page.enable", json!({}));
    let yes =
        "window.confirm = (q) => { window.__asked = q; return true; }; window.__asked = null; true";

    // Delay by 25 minutes.
    login(&mut page, &d.url, ADMIN, "admin");
    let (_, c) = d.get("/api/v1/contests/later", None);
    let start = c["clock"]["start_ms"].as_i64().expect("start");
    page.navigate(&format!("{}/contests/later", d.url));
    page.eval(
        "document.querySelector('#delay').form.querySelector('input[name=minutes]').value = '25'; true",
    );
    page.eval(yes);
    page.click("#delay");
    page.wait_for(
        "the delayed contest",
        "document.readyState === 'complete' && window.__asked === undefined && document.getElementById('delay') !== null",
        Duration::from_secs(10),
    );
    let (_, c) = d.get("/api/v1/contests/later", None);
    assert_eq!(
        c["clock"]["start_ms"].as_i64(),
        Some(start + 25 * 60_000),
        "{c}"
    );
    page.screenshot(&artifact("contest-i23-delayed.png"));
    phone(&mut page, "i23-delayed");

    // The freeze's length: the last 45 minutes (the form shows the freeze it has).
    page.eval("document.getElementById('freeze-minutes').value = '45'; true");
    page.eval(yes);
    page.click("#set-freeze");
    page.wait_for(
        "the contest with its new freeze",
        "document.readyState === 'complete' && window.__asked === undefined && document.getElementById('freeze-minutes') !== null && document.getElementById('freeze-minutes').value === '45'",
        Duration::from_secs(10),
    );
    let (_, c) = d.get("/api/v1/contests/later", Some(ADMIN));
    let end = c["clock"]["end_ms"].as_i64().expect("end");
    assert_eq!(
        c["clock"]["freeze_ms"].as_i64(),
        Some(end - 45 * 60_000),
        "{c}"
    );
    page.screenshot(&artifact("contest-i23-freeze-set.png"));
    phone(&mut page, "i23-freeze-set");

    // The hall sheet: login links valid until the time typed.
    page.navigate(&format!("{}/contests/later/teams", d.url));
    let until = crate::contests::rfc3339((ojd_store::now_ms() / 1000 + 86_400) * 1000);
    page.eval(&format!(
        "document.getElementById('links-until').value = {}; true",
        json!(until)
    ));
    page.eval(yes);
    page.click("#links-button");
    page.wait_for(
        "the sheet of links",
        "document.readyState === 'complete' && document.querySelectorAll('#link-sheet tbody tr').length === 2",
        Duration::from_secs(10),
    );
    let link = page
        .eval("document.querySelector('#link-sheet tbody tr td code').textContent")
        .as_str()
        .unwrap_or_default()
        .to_string();
    assert!(link.contains("/login?code="), "{link}");
    page.screenshot(&artifact("contest-i23-link-sheet.png"));
    phone(&mut page, "i23-link-sheet");

    // Alice asks about problem A.
    login(&mut page, &d.url, ALICE, "alice");
    page.navigate(&format!("{}/contests/desk", d.url));
    page.eval("document.querySelector('form[action$=\"/ask\"] select[name=problem]').value = 'aplusb'; true");
    page.click("form[action$='/ask'] textarea[name=text]");
    page.type_text("May the input end without a newline?");
    page.click("form[action$='/ask'] button[type=submit]");
    page.wait_for(
        "the question on the page",
        "document.readyState === 'complete' && document.querySelector('#news .clar')?.textContent.includes('without a newline') === true",
        Duration::from_secs(10),
    );
    page.screenshot(&artifact("contest-i23-asked.png"));
    phone(&mut page, "i23-asked");
    let (_, qs) = d.get("/api/v1/contests/desk/clarifications", Some(ADMIN));
    let q = qs
        .as_array()
        .expect("questions")
        .iter()
        .find(|q| q["user"] == "alice")
        .cloned()
        .expect("alice's question");
    assert_eq!(q["problem"], "aplusb", "{q}");

    // The director answers it on the page; alice reads the answer.
    login(&mut page, &d.url, ADMIN, "admin");
    page.navigate(&format!("{}/contests/desk", d.url));
    page.click("#news form.answer textarea[name=answer]");
    page.type_text("Yes, it may.");
    page.click("#news form.answer button[type=submit]");
    page.wait_for(
        "the answer",
        "document.readyState === 'complete' && document.querySelector('#news .clar')?.textContent.includes('Yes, it may.') === true",
        Duration::from_secs(10),
    );
    let (_, mine) = d.get("/api/v1/contests/desk/clarifications", Some(ALICE));
    assert!(mine.to_string().contains("Yes, it may."), "{mine}");

    // Ignore alice's submission on its page: it leaves the standings; Rank it again.
    let (code, s) = crate::contests::submit(&d, ALICE, Some("desk"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{s}");
    let id = s["id"].as_i64().expect("id");
    d.wait_done(id, ALICE, Duration::from_secs(120));
    let ranked = |d: &crate::daemon::Daemon| {
        let (_, st) = d.get("/api/v1/contests/desk/standings", Some(ADMIN));
        st["rows"]
            .as_array()
            .is_some_and(|r| r.iter().any(|r| r["user"] == "alice" && r["solved"] == 1))
    };
    assert!(ranked(&d));
    page.navigate(&format!("{}/submissions/{id}", d.url));
    page.eval(yes);
    page.click("#ignore");
    page.wait_for(
        "the ignored submission",
        "document.readyState === 'complete' && document.getElementById('ignore')?.textContent === 'Rank it again'",
        Duration::from_secs(10),
    );
    assert!(!ranked(&d), "ignored: not on the standings");
    page.screenshot(&artifact("contest-i23-ignored.png"));
    phone(&mut page, "i23-ignored");
    page.eval(yes);
    page.click("#ignore");
    page.wait_for(
        "the ranked submission",
        "document.readyState === 'complete' && document.getElementById('ignore')?.textContent === 'Ignore it'",
        Duration::from_secs(10),
    );
    assert!(ranked(&d), "ranked again");
    drop(browser);
}

/// Issue 23, the feedback policy in the browser: under `feedback = "verdict"` a participant's
/// wrong answer shows its verdict and a note, and no test row, name or diff; the admin sees
/// every test of it. Desktop and 390 px.
#[test]
fn a_participant_sees_only_the_verdict_under_the_verdict_policy() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let cs = ContestSite::new();
    cs.contest("quiet", ojd_store::now_ms() - 600_000)
        .lasting("1h")
        .keys("feedback = \"verdict\"")
        .write();
    let d = cs.start();
    let (code, a) = crate::contests::submit(
        &d,
        ALICE,
        Some("quiet"),
        "aplusb",
        "wrong_answer/wa_second_line.c",
    );
    assert_eq!(code, 201, "{a}");
    let id = a["id"].as_i64().expect("id");
    d.wait_done(id, ALICE, Duration::from_secs(120));
    let browser = Browser::start();
    let mut page = logged_in(&browser, &d, ALICE, "alice");
    page.navigate(&format!("{}/submissions/{id}", d.url));
    page.wait_for(
        "the submission's verdict",
        "document.querySelector('#status .badge.v-WA') !== null",
        Duration::from_secs(10),
    );
    let shown = page.eval(
        "[document.getElementById('feedback-note')?.textContent ?? '', \
          document.querySelectorAll('table.tests, h2[id^=\"diff-\"]').length, \
          document.querySelector('main').textContent.includes('sample-1')]",
    );
    assert_eq!(
        shown,
        json!([
            "This contest shows the final verdict only: no test results.",
            0,
            false
        ])
    );
    page.screenshot(&artifact("contest-i23-feedback-verdict.png"));
    phone(&mut page, "i23-feedback-verdict");
    drop(browser);
    // The jury sees every test of the same submission.
    let browser = Browser::start();
    let mut page = logged_in(&browser, &d, ADMIN, "admin");
    page.navigate(&format!("{}/submissions/{id}", d.url));
    page.wait_for(
        "every test for the admin",
        "document.querySelectorAll('table.tests tbody tr').length >= 1 && document.getElementById('feedback-note') === null",
        Duration::from_secs(10),
    );
    assert_eq!(
        page.eval("document.querySelector('table.tests').textContent.includes('sample-1')"),
        json!(true)
    );
    drop(browser);
}

/// Issue 23, awards on the web: on "Edit contest" a director types the medals; a bad count is
/// refused beside its field (the rest kept), a good one saved and described ("medals: none →
/// gold 1, …"), the finalized results give the team its medal, and the finalized contest's
/// edit is refused on the page. Desktop and 390 px.
#[test]
fn a_director_sets_the_medals_in_the_browser() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let cs = ContestSite::new();
    cs.contest("medals", ojd_store::now_ms() - 600_000)
        .lasting("1h")
        .keys("[[team]]\nuser = \"alice\"\nname = \"Rocket\"")
        .write();
    let clock = crate::common::TestClock::new();
    let d = clock.start(&cs.site);
    let (code, a) = crate::contests::submit(&d, ALICE, Some("medals"), "aplusb", "accepted/ac.c");
    assert_eq!(code, 201, "{a}");
    d.wait_done(
        a["id"].as_i64().expect("id"),
        ALICE,
        Duration::from_secs(120),
    );
    let browser = Browser::start();
    let mut page = logged_in(&browser, &d, ADMIN, "admin");
    page.navigate(&format!("{}/contests/medals", d.url));
    page.click("#edit-contest");
    page.wait_for(
        "the edit form",
        "document.getElementById('f-awards-gold') !== null && document.readyState === 'complete'",
        Duration::from_secs(10),
    );
    let set = |page: &mut Cdp, selector: &str, value: &str| {
        page.eval(&format!(
            "document.querySelector({}).value = {}; true",
            json!(selector),
            json!(value)
        ));
    };
    // A bad count: the browser's own check (max 1000) stops the form first; past it (a
    // browser without it), the daemon refuses it beside its field.
    set(&mut page, "#f-awards-gold", "1");
    set(&mut page, "#f-awards-bronze", "5000");
    assert_eq!(
        page.eval("document.getElementById('f-awards-bronze').checkValidity()"),
        json!(false)
    );
    page.eval("document.getElementById('contest-form').noValidate = true; true");
    page.click("#save-contest");
    page.wait_for(
        "the refused form",
        "document.readyState === 'complete' && document.getElementById('form-errors') !== null",
        Duration::from_secs(10),
    );
    let refused = page.eval(
        "[Array.from(document.querySelectorAll('#form-errors li code')).map(c => c.textContent), \
          document.getElementById('f-awards-bronze').getAttribute('aria-invalid'), \
          document.getElementById('error-awards-bronze')?.textContent, \
          document.getElementById('f-awards-gold').value]",
    );
    assert_eq!(
        refused,
        json!([
            ["awards.bronze"],
            "true",
            "expected a number of bronze medals from 0 to 1000 (empty: none), found \"5000\"",
            "1"
        ])
    );
    let text = std::fs::read_to_string(cs.file("medals")).expect("toml");
    assert!(!text.contains("[awards]"), "nothing written: {text}");
    page.screenshot(&artifact("contest-i23-medals-refused.png"));
    phone(&mut page, "i23-medals-refused");

    // Fixed and saved: one gold, two bronze.
    set(&mut page, "#f-awards-bronze", "2");
    page.click("#save-contest");
    page.wait_for(
        "the saved medals",
        "document.readyState === 'complete' && document.getElementById('saved') !== null",
        Duration::from_secs(10),
    );
    let saved = page.eval("document.getElementById('saved').textContent");
    assert!(
        saved
            .as_str()
            .is_some_and(|t| t.contains("medals: none → gold 1, silver 0, bronze 2")),
        "{saved}"
    );
    assert_eq!(
        page.eval("[document.getElementById('f-awards-gold').value, document.getElementById('f-awards-bronze').value]"),
        json!(["1", "2"])
    );
    page.screenshot(&artifact("contest-i23-medals-saved.png"));
    phone(&mut page, "i23-medals-saved");

    // Ended and finalized: Rocket's gold on the standings; the edit is refused now.
    clock.advance(1100);
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/medals/clock",
        Some(ADMIN),
        &json!({"action": "end_now"}),
    );
    assert_eq!(code, 200, "{r}");
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/medals/finalize",
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 200, "{r}");
    page.navigate(&format!("{}/contests/medals/standings", d.url));
    let gold = page.eval("document.querySelector('tr[data-award=gold-medal]')?.textContent");
    assert!(
        gold.as_str().is_some_and(|g| g.contains("Rocket")),
        "{gold}"
    );
    page.navigate(&format!("{}/contests/medals/edit", d.url));
    set(&mut page, "#f-awards-gold", "3");
    page.click("#save-contest");
    page.wait_for(
        "the refusal",
        "document.readyState === 'complete' && document.getElementById('contest-form') === null",
        Duration::from_secs(10),
    );
    let said = page.eval("document.querySelector('main').textContent");
    assert!(
        said.as_str()
            .is_some_and(|t| t.contains("finalized") && t.contains("editing it is refused")),
        "{said}"
    );
    let text = std::fs::read_to_string(cs.file("medals")).expect("toml");
    assert!(text.contains("gold = 1"), "unchanged: {text}");
    page.screenshot(&artifact("contest-i23-medals-final.png"));
    phone(&mut page, "i23-medals-final");
    drop(browser);
}

/// Issue 23, teams on the web: on the teams page a director adds a team with members (a bad
/// user name first, refused beside its field with what was typed kept), sees the members as
/// the standings row's title, edits the team from its row ("Edit"), and removes teams: one with
/// submissions is refused with the reason, one without goes (each asks first). Desktop and
/// 390 px.
#[test]
fn a_director_edits_teams_in_the_browser() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let cs = ContestSite::new();
    cs.contest("crew", ojd_store::now_ms() - 600_000)
        .lasting("1h")
        .keys("[[team]]\nuser = \"alice\"\nname = \"Rocket\"")
        .write();
    let d = cs.start();
    for token in [ALICE, BOB] {
        let (code, a) = crate::contests::submit(&d, token, Some("crew"), "aplusb", "accepted/ac.c");
        assert_eq!(code, 201, "{a}");
        d.wait_done(
            a["id"].as_i64().expect("id"),
            token,
            Duration::from_secs(120),
        );
    }
    let browser = Browser::start();
    let mut page = logged_in(&browser, &d, ADMIN, "admin");
    page.navigate(&format!("{}/contests/crew", d.url));
    page.click("a[href='/contests/crew/teams']");
    page.wait_for(
        "the teams page",
        "document.getElementById('team-form') !== null && document.readyState === 'complete'",
        Duration::from_secs(10),
    );
    let set = |page: &mut Cdp, selector: &str, value: &str| {
        page.eval(&format!(
            "document.querySelector({}).value = {}; true",
            json!(selector),
            json!(value)
        ));
    };
    // A bad user name: refused beside it, the rest kept.
    set(&mut page, "#f-team-user", "bob smith");
    set(&mut page, "#f-team-name", "Comet");
    set(&mut page, "#f-team-members", "Cy Young\nDee Ray");
    page.click("#save-team");
    page.wait_for(
        "the refused team",
        "document.readyState === 'complete' && document.getElementById('team-errors') !== null",
        Duration::from_secs(10),
    );
    let refused = page.eval(
        "[Array.from(document.querySelectorAll('#team-errors li code')).map(c => c.textContent), \
          document.getElementById('f-team-user').getAttribute('aria-invalid'), \
          document.getElementById('f-team-name').value, document.getElementById('f-team-members').value]",
    );
    assert_eq!(
        refused,
        json!([["user"], "true", "Comet", "Cy Young\nDee Ray"])
    );
    page.screenshot(&artifact("contest-i23-team-refused.png"));
    phone(&mut page, "i23-team-refused");

    // Fixed: added, listed with its members; the standings row's title names them.
    set(&mut page, "#f-team-user", "bob");
    page.click("#save-team");
    page.wait_for(
        "the added team",
        "document.readyState === 'complete' && document.getElementById('team-saved') !== null",
        Duration::from_secs(10),
    );
    assert_eq!(
        page.eval("document.querySelector('#teams tr[data-user=bob] td.members')?.textContent"),
        json!("Cy Young, Dee Ray")
    );
    page.screenshot(&artifact("contest-i23-team-added.png"));
    phone(&mut page, "i23-team-added");
    page.navigate(&format!("{}/contests/crew/standings", d.url));
    assert_eq!(
        page.eval("document.querySelector('tr[data-user=bob] td.user')?.getAttribute('title')"),
        json!("Cy Young, Dee Ray")
    );

    // Edit from its row: one member fewer, an affiliation.
    page.navigate(&format!("{}/contests/crew/teams", d.url));
    page.click("#teams tr[data-user=bob] a.edit-team");
    page.wait_for(
        "the team's editor",
        "document.readyState === 'complete' && document.querySelector('input[name=original]')?.value === 'bob'",
        Duration::from_secs(10),
    );
    set(&mut page, "#f-team-members", "Cy Young");
    set(&mut page, "#f-team-affiliation", "North U");
    page.click("#save-team");
    page.wait_for(
        "the edited team",
        "document.readyState === 'complete' && document.getElementById('team-saved') !== null",
        Duration::from_secs(10),
    );
    assert_eq!(
        page.eval("[document.querySelector('#teams tr[data-user=bob] td.members')?.textContent, \
                    document.getElementById('team-saved').textContent.includes('team \"bob\" edited')]"),
        json!(["Cy Young", true])
    );

    // Remove: alice has a submission (refused, saying why); a new team without one goes.
    // The question asked is kept across the page change the form makes.
    let yes = "window.confirm = (q) => { sessionStorage.setItem('asked', q); return true; }; \
               sessionStorage.removeItem('asked'); true";
    page.eval(yes);
    page.click("#teams tr[data-user=alice] form.remove-team button");
    page.wait_for(
        "the refused removal",
        "document.readyState === 'complete' && document.getElementById('team-refused') !== null",
        Duration::from_secs(10),
    );
    let said = page.eval("document.getElementById('team-refused').textContent");
    assert!(
        said.as_str()
            .is_some_and(|t| t.contains("has 1 submission(s)") && t.contains("observer")),
        "{said}"
    );
    page.screenshot(&artifact("contest-i23-team-remove-refused.png"));
    phone(&mut page, "i23-team-remove-refused");
    set(&mut page, "#f-team-user", "carol");
    page.click("#save-team");
    page.wait_for(
        "carol's team",
        "document.readyState === 'complete' && document.querySelector('#teams tr[data-user=carol]') !== null",
        Duration::from_secs(10),
    );
    page.eval(yes);
    page.click("#teams tr[data-user=carol] form.remove-team button");
    page.wait_for(
        "carol's team removed",
        "document.readyState === 'complete' && document.getElementById('team-saved') !== null && document.querySelector('#teams tr[data-user=carol]') === null",
        Duration::from_secs(10),
    );
    assert!(
        page.eval("sessionStorage.getItem('asked')")
            .as_str()
            .is_some_and(|q| q.contains("carol")),
        "asked first"
    );
    page.screenshot(&artifact("contest-i23-team-removed.png"));
    phone(&mut page, "i23-team-removed");
    drop(browser);
}
