//! End to end in headless Chromium (Debian's `chromium`), driven over the DevTools protocol:
//! log in, open the problem list, click through to the statement, type a wrong solution into
//! the form and click Submit, watch the submission page fill in test by test over server-sent
//! events, then see the diff with the differing characters marked. Screenshots are saved as
//! `target/e2e-statement.png`, `target/e2e-live.png` (mid-judging) and
//! `target/e2e-submission.png` (CI artifacts).
//!
//! Without Chromium the test says so and passes, except under CI (`CI` set), where it fails.

use std::path::Path;
use std::process::Command;
use std::time::Duration;

use serde_json::json;

use crate::cdp::{artifact, have_chromium, Browser, Cdp, CHROMIUM};
use crate::daemon::{Site, ALICE};

/// A wrong answer that takes its time on every test, so the page is seen mid-judging.
const SLOW_WRONG: &str = r#"#include <stdio.h>
#include <unistd.h>
int main(void) {
    int t, i;
    long long a, b;
    usleep(600000);
    if (scanf("%d", &t) != 1) return 0;
    for (i = 0; i < t; i++) {
        scanf("%lld %lld", &a, &b);
        printf("%lld\n", i == 1 ? a + b + 1 : a + b);
    }
    return 0;
}
"#;

#[test]
fn a_student_submits_through_the_form_and_watches_the_verdict_arrive() {
    require_root!();
    if !Path::new(CHROMIUM).exists() {
        assert!(
            std::env::var_os("CI").is_none(),
            "CI must have {CHROMIUM} (.ci/run installs it)"
        );
        eprintln!("skipped: {CHROMIUM} is not installed");
        return;
    }
    let cjk = Command::new("fc-list")
        .arg(":lang=zh")
        .output()
        .map(|o| !o.stdout.is_empty())
        .unwrap_or(false);
    if !cjk {
        eprintln!("warning: no CJK font (fc-list :lang=zh is empty): Chinese renders as boxes; install fonts-noto-cjk");
    }
    let site = Site::new("rate_limit_per_minute = 0");
    let d = site.start();
    let browser = Browser::start();
    let mut page = browser.page();
    page.call("Page.enable", json!({}));

    // Log in through the form.
    page.navigate(&format!("{}/login", d.url));
    page.click("#token");
    page.type_text(ALICE);
    page.click("form.login button[type=submit]");
    page.wait_for(
        "the login to land on the problem list",
        "document.querySelector('nav .who')?.textContent === 'alice'",
        Duration::from_secs(10),
    );

    // The problem list, then the statement (with Chinese text) by clicking the link.
    assert_eq!(
        page.eval("document.querySelector('h1').textContent"),
        "Problems"
    );
    page.click("a[href='/problems/aplusb']");
    page.wait_loaded(&format!("{}/problems/aplusb", d.url));
    let statement = page.eval("document.querySelector('.statement').innerText");
    assert!(
        statement
            .as_str()
            .is_some_and(|s| s.contains("输出它们的和")),
        "{statement}"
    );
    page.screenshot(&artifact("e2e-statement.png"));

    // Paste a wrong solution, choose C, click Submit.
    page.eval("document.getElementById('language').value = 'c'");
    page.click("#source");
    page.type_text(SLOW_WRONG);
    page.click("#submit-button");
    let url = page.wait_for(
        "the submission page",
        "/\\/submissions\\/\\d+$/.test(location.pathname) && document.readyState === 'complete' && location.href",
        Duration::from_secs(20),
    );
    let id: i64 = url
        .as_str()
        .and_then(|u| u.rsplit('/').next())
        .and_then(|n| n.parse().ok())
        .expect("an id");

    // Live: a test's row gets its verdict while the page still waits for the others.
    page.wait_for(
        "a test row to be filled in while judging",
        "document.getElementById('live') !== null && document.querySelector('#t-0 .v .badge.v-WA') !== null \
         && document.querySelector('#t-2 .v .badge.v-WA') === null",
        Duration::from_secs(60),
    );
    page.screenshot(&artifact("e2e-live.png"));
    // Done: the server-rendered results replace the live section, with the diff.
    page.wait_for(
        "the verdict",
        "document.querySelector('#results .summary .badge.v-WA') !== null",
        Duration::from_secs(60),
    );
    let marked = page
        .eval("Array.from(document.querySelectorAll('.diff tr.ins mark')).map(m => m.textContent)");
    assert_eq!(
        marked,
        json!(["8"]),
        "the differing character of the sample is marked"
    );
    let head = page.eval("document.querySelector('.diff-head').textContent");
    assert!(
        head.as_str()
            .is_some_and(|h| h.contains("line 2, column 1")),
        "{head}"
    );
    let rows = page.eval("document.querySelectorAll('table.tests tbody tr').length");
    assert_eq!(rows, 3);
    page.screenshot(&artifact("e2e-submission.png"));

    let s = d.wait_done(id, ALICE, Duration::from_secs(60));
    assert_eq!(s["verdict"], "WA", "{s}");
    drop(browser);
}

/// Logs in through the form with `token`.
fn form_login(page: &mut Cdp, url: &str, token: &str, name: &str) {
    page.navigate(&format!("{url}/login"));
    page.click("#token");
    page.type_text(token);
    page.click("form.login button[type=submit]");
    page.wait_for(
        "the login",
        &format!(
            "document.querySelector('nav .who')?.textContent === {}",
            json!(name)
        ),
        Duration::from_secs(10),
    );
}

/// Student-facing defects 1-4 of issue 12, at desktop width and at 390 px (a phone).
#[test]
fn the_submit_form_explains_refusals_keeps_the_paste_and_fits_a_phone() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let site = Site::new("rate_limit_per_minute = 0");
    let d = site.start();
    let wa = crate::common::testdata("aplusb/submissions/wrong_answer/wa_second_line.c");
    let id = d.submit_file(ALICE, &wa);
    d.wait_done(id, ALICE, Duration::from_secs(120));
    let browser = Browser::start();
    let mut page = browser.page();
    page.call("Page.enable", json!({}));
    page.call("DOM.enable", json!({}));
    form_login(&mut page, &d.url, ALICE, "alice");

    for (label, width, height, mobile) in [("desktop", 1200, 900, false), ("phone", 390, 844, true)]
    {
        page.viewport(width, height, mobile);
        // 1 and 2: pasted code with "from the file's name": the reason in plain words, next to
        // the form, the paste kept, and a URL that a refresh does not post again.
        page.navigate(&format!("{}/problems/aplusb", d.url));
        page.eval("document.getElementById('language').value = 'auto'");
        page.click("#source");
        page.type_text("int main(void) { return 0; }\n");
        page.click("#submit-button");
        page.wait_for(
            "the refusal",
            "document.getElementById('form-error') !== null",
            Duration::from_secs(20),
        );
        let msg = page.eval("document.getElementById('form-error').textContent");
        assert!(
            msg.as_str()
                .is_some_and(|m| m.contains("choose the language") && !m.contains("field")),
            "{msg}"
        );
        assert_eq!(
            page.eval("location.pathname"),
            "/problems/aplusb",
            "redirected after the POST"
        );
        assert_eq!(
            page.eval("document.getElementById('source').value"),
            "int main(void) { return 0; }\n",
            "the paste is kept"
        );
        let visible = page.eval(
            "(() => { const r = document.getElementById('form-error').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; })()",
        );
        assert_eq!(
            visible, true,
            "{label}: the error is on screen, beside the form"
        );
        page.assert_no_overflow(&format!("{label}: statement"));
        page.screenshot(&artifact(&format!("e2e-refused-{label}.png")));
        // A refresh shows the statement, posts nothing.
        page.call("Page.reload", json!({}));
        page.wait_loaded(&format!("{}/problems/aplusb", d.url));
        assert_eq!(
            page.eval("document.getElementById('form-error') === null"),
            true
        );

        // 3: a file and pasted text: the page warns, the server refuses both.
        page.eval("document.getElementById('language').value = 'c'");
        page.click("#source");
        page.type_text("print(1)\n");
        page.set_file("#file", &wa);
        page.wait_for(
            "the warning",
            "!document.getElementById('both-hint').hidden",
            Duration::from_secs(5),
        );
        page.click("#submit-button");
        page.wait_for(
            "the refusal",
            "document.getElementById('form-error') !== null",
            Duration::from_secs(20),
        );
        let msg = page.eval("document.getElementById('form-error').textContent");
        assert!(
            msg.as_str()
                .is_some_and(|m| m.contains("file and also pasted text")),
            "{msg}"
        );

        // 4: nothing scrolls sideways: lists, a submission with its diff and source.
        for path in [
            "/".to_string(),
            "/submissions".into(),
            format!("/submissions/{id}"),
        ] {
            page.navigate(&format!("{}{path}", d.url));
            page.assert_no_overflow(&format!("{label}: {path}"));
        }
        let header = page
            .eval("document.querySelector('header').getBoundingClientRect().width === innerWidth");
        assert_eq!(header, true, "{label}: the header spans the page");
        page.screenshot(&artifact(&format!("e2e-submission-{label}.png")));
        page.navigate(&format!("{}/submissions", d.url));
        page.screenshot(&artifact(&format!("e2e-list-{label}.png")));
    }
    drop(browser);
}

/// Zips the folder `dir` as `name/…`.
fn zip_folder(dir: &Path, name: &str, out: &Path) {
    use std::io::Write;
    let file = std::fs::File::create(out).expect("zip file");
    let mut z = zip::ZipWriter::new(file);
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).expect("read dir").flatten() {
            let p = e.path();
            if p.is_dir() {
                stack.push(p);
                continue;
            }
            let rel = p.strip_prefix(dir).expect("inside");
            z.start_file(
                format!("{name}/{}", rel.display()),
                zip::write::SimpleFileOptions::default(),
            )
            .expect("entry");
            z.write_all(&std::fs::read(&p).expect("read"))
                .expect("write");
        }
    }
    z.finish().expect("zip");
}

/// The admin flows of issue 12: upload a package (a bad one changes nothing), issue a token
/// and log in with its one-time link, find a submission by filter, rejudge it.
#[test]
fn an_admin_uploads_a_package_issues_a_login_link_filters_and_rejudges() {
    require_root!();
    if !have_chromium() {
        return;
    }
    let site = Site::new("rate_limit_per_minute = 0");
    let d = site.start();
    let wa = crate::common::testdata("aplusb/submissions/wrong_answer/wa_second_line.c");
    let ac = crate::common::testdata("aplusb/submissions/accepted/ac.c");
    let wa_id = d.submit_file(ALICE, &wa);
    let ac_id = d.submit_file(ALICE, &ac);
    d.wait_done(wa_id, ALICE, Duration::from_secs(120));
    d.wait_done(ac_id, ALICE, Duration::from_secs(120));

    // Packages: a good copy of the fixture, and one whose problem.toml has a bad key.
    let work = tempfile::tempdir().expect("dir");
    let good = work.path().join("aplusb2.zip");
    zip_folder(&crate::common::testdata("aplusb"), "aplusb2", &good);
    let bad_dir = work.path().join("broken");
    std::fs::create_dir_all(&bad_dir).expect("dir");
    let toml =
        std::fs::read_to_string(crate::common::testdata("aplusb/problem.toml")).expect("toml");
    std::fs::write(
        bad_dir.join("problem.toml"),
        toml.replace("time_limit = \"1s\"", "time_limit = \"fast\""),
    )
    .expect("write");
    std::fs::write(bad_dir.join("statement.md"), "# Broken\n").expect("write");
    let bad = work.path().join("broken.zip");
    zip_folder(&bad_dir, "broken", &bad);

    let browser = Browser::start();
    let mut page = browser.page();
    page.call("Page.enable", json!({}));
    page.call("DOM.enable", json!({}));
    form_login(&mut page, &d.url, crate::daemon::ADMIN, "admin");

    // A bad package: refused, naming the file and key; nothing installed.
    page.navigate(&format!("{}/admin/problems", d.url));
    page.set_file("#package", &bad);
    page.click("#upload-button");
    page.wait_for(
        "the refusal",
        "document.querySelector('#result.error') !== null",
        Duration::from_secs(120),
    );
    let msg = page.eval("document.getElementById('result').textContent");
    assert!(
        msg.as_str()
            .is_some_and(|m| m.contains("problem.toml") && m.contains("time_limit")),
        "{msg}"
    );
    assert_eq!(
        page.eval("document.getElementById('p-broken') === null"),
        true
    );
    assert!(
        !site.path().join("problems/broken").exists(),
        "nothing changed"
    );
    page.screenshot(&artifact("e2e-admin-upload-refused.png"));
    // A good one: checked, answers built, live.
    page.navigate(&format!("{}/admin/problems", d.url));
    page.set_file("#package", &good);
    page.click("#upload-button");
    page.wait_for(
        "the install",
        "document.querySelector('#result.note') !== null",
        Duration::from_secs(180),
    );
    assert_eq!(
        page.eval("document.getElementById('p-aplusb2') !== null"),
        true
    );
    let (code, _) = d.get("/api/v1/problems/aplusb2", None);
    assert_eq!(code, 200, "the uploaded problem is served");
    page.screenshot(&artifact("e2e-admin-problems.png"));

    // Find a submission by filter: alice's wrong answers.
    page.navigate(&format!("{}/submissions", d.url));
    page.eval("document.querySelector('form.filters [name=user]').value = 'alice'");
    page.eval("document.querySelector('form.filters [name=verdict]').value = 'WA'");
    page.click("form.filters button[type=submit]");
    page.wait_for(
        "the filtered list",
        "location.search.includes('verdict=WA')",
        Duration::from_secs(10),
    );
    page.wait_loaded(&d.url);
    let ids = page.eval("Array.from(document.querySelectorAll('table.submissions tbody tr td:first-child')).map(t => t.textContent)");
    assert_eq!(ids, json!([wa_id.to_string()]), "only the wrong answer");
    page.screenshot(&artifact("e2e-admin-filter.png"));

    // Rejudge it from its page.
    page.click(&format!("a[href='/submissions/{wa_id}']"));
    page.wait_loaded(&format!("{}/submissions/{wa_id}", d.url));
    page.click("#rejudge");
    // The rejudging's page: it applies itself when judged and shows the verdict diff.
    page.wait_for(
        "the rejudging's page",
        "location.pathname.startsWith('/admin/rejudgings/')",
        Duration::from_secs(10),
    );
    page.wait_for(
        "the rejudging applied",
        "document.getElementById('state')?.textContent.includes('applied')",
        Duration::from_secs(120),
    );
    page.screenshot(&artifact("e2e-admin-rejudged.png"));
    crate::common::wait_until(Duration::from_secs(120), || {
        let (_, s) = d.get(
            &format!("/api/v1/submissions/{wa_id}"),
            Some(crate::daemon::ADMIN),
        );
        if s["judged"] == 2 && s["state"] == "done" {
            Ok(())
        } else {
            Err(format!("not rejudged: {s}"))
        }
    });

    // Issue a token for carol; log out; log in with the one-time link; the link then fails.
    page.navigate(&format!("{}/admin/users", d.url));
    page.click("#issue-name");
    page.type_text("carol");
    page.click("#issue-button");
    page.wait_for(
        "the new token",
        "document.getElementById('login-link') !== null",
        Duration::from_secs(10),
    );
    let token = page.eval("document.getElementById('new-token').textContent");
    let link = page.eval("document.getElementById('login-link').href");
    let link = link.as_str().expect("a link").to_string();
    assert!(link.contains("/login?code=") && !link.contains(token.as_str().expect("token")));
    page.screenshot(&artifact("e2e-admin-users.png"));
    page.click("nav form.inline button.link");
    page.wait_for(
        "logged out",
        "document.querySelector('nav .who') === null",
        Duration::from_secs(10),
    );
    page.navigate(&link);
    page.click("#login-code");
    page.wait_for(
        "carol logged in",
        "document.querySelector('nav .who')?.textContent === 'carol'",
        Duration::from_secs(10),
    );
    page.click("nav form.inline button.link");
    page.wait_for(
        "logged out",
        "document.querySelector('nav .who') === null",
        Duration::from_secs(10),
    );
    page.navigate(&link);
    page.click("#login-code");
    page.wait_for(
        "the refusal",
        "document.querySelector('p.error') !== null",
        Duration::from_secs(10),
    );
    assert_eq!(
        page.eval("document.querySelector('nav .who') === null"),
        true,
        "used once"
    );
    // The token itself works for the API, and the admin list shows its last use.
    let (code, me) = d.get("/api/v1/me", token.as_str());
    assert_eq!((code, me["name"].as_str()), (200, Some("carol")));

    // The admin pages fit a phone too.
    form_login(&mut page, &d.url, crate::daemon::ADMIN, "admin");
    page.viewport(390, 844, true);
    for path in [
        "/admin/users",
        "/admin/problems",
        "/admin/queue",
        "/submissions",
    ] {
        page.navigate(&format!("{}{path}", d.url));
        page.assert_no_overflow(&format!("phone: {path}"));
    }
    page.navigate(&format!("{}/admin/users", d.url));
    let last = page.eval("Array.from(document.querySelectorAll('#tokens tbody tr')).find(r => r.cells[0].textContent === 'carol')?.cells[3].textContent");
    assert!(
        last.as_str().is_some_and(|t| t != "never"),
        "carol's last use: {last}"
    );
    page.screenshot(&artifact("e2e-admin-users-phone.png"));
    page.navigate(&format!("{}/admin/queue", d.url));
    page.screenshot(&artifact("e2e-admin-queue-phone.png"));
    drop(browser);
}
