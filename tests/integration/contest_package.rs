//! A contest's data leaves ojd whole as a CLICS contest package and comes back the same: a
//! contest with a roster made in the web (names, organizations, groups, countries, seats, an
//! observer), problem colours, medals, submissions, a question answered twice (both replies
//! kept) and an announcement, ended and finalized, is
//! exported (`ojd contest export --from`: the documents of its files and those of the daemon's
//! store, as its Contest API serves them), imported on a fresh server (a new data folder and
//! database), and that server's Contest API serves the same contest, problems, judgement types,
//! languages, teams, organizations, groups and accounts, as the public and as an admin, with
//! the same ids, and the package's awards as the awards of record (one added by hand comes
//! back); exporting the imported contest again writes the same documents. The admin web's
//! import shows the length as a director reads it and binds its staging key to the admin who
//! uploaded. With
//! `OJD_CCS_SPECS` (a clone of icpc/ccs-specs) the package is checked against the standard's
//! schemas.

use std::path::Path;
use std::time::Duration;

use serde_json::{json, Value};

use crate::common::Run;
use crate::daemon::{Daemon, Site, ADMIN, ALICE, BOB, JUDGED_WITHIN};

/// The collections the package brings back: from the contest's files, and from the
/// history the import stores (submissions, judgements, runs, clarifications, the thaw and
/// the finalization, and so the scoreboard, the awards and the state).
const RESTORED: [&str; 15] = [
    "judgement-types",
    "languages",
    "problems",
    "groups",
    "organizations",
    "teams",
    "accounts",
    "",
    "submissions",
    "judgements",
    "runs",
    "clarifications",
    "scoreboard",
    "awards",
    "state",
];

/// The documents `ojd contest export` writes without the daemon.
const FROM_FILES: [&str; 8] = [
    "contest.json",
    "problems.json",
    "teams.json",
    "organizations.json",
    "groups.json",
    "accounts.json",
    "ojd.json",
    "contest.yaml",
];

fn site() -> (Site, tempfile::TempDir) {
    site_with("")
}

/// A second admin, for the web import's staging key (bound to the admin who uploaded).
const JURY2: &str = "jury2-token";

fn site_with(extra: &str) -> (Site, tempfile::TempDir) {
    let contests = tempfile::tempdir().expect("temp dir");
    let site = Site::new(&format!(
        "contests = \"{}\"\nrate_limit_per_minute = 0\nstandings_cache = \"0s\"\n{extra}",
        contests.path().display()
    ));
    (site, contests)
}

fn ojd(site: &Site, args: &[&str], token: Option<&str>) -> Run {
    let mut cmd = crate::common::ojd();
    cmd.args(args)
        .arg("--config")
        .arg(site.path().join("config.toml"));
    match token {
        Some(t) => cmd.env("OJD_TOKEN", t),
        None => cmd.env_remove("OJD_TOKEN"),
    };
    Run::from(cmd.output().expect("ojd runs"))
}

fn submit(d: &Daemon, token: &str, file: &str) -> i64 {
    let source = std::fs::read_to_string(crate::common::testdata(&format!(
        "aplusb/submissions/{file}"
    )))
    .expect("source");
    let body = json!({"problem": "aplusb", "language": "c", "source": source, "contest": "wf"});
    let (code, r) = d.post_json("/api/v1/submissions", Some(token), &body);
    assert_eq!(code, 201, "{file}: {r}");
    let id = r["id"].as_i64().expect("id");
    d.wait_done(id, token, JUDGED_WITHIN);
    id
}

/// Every endpoint the package restores, as `token` reads it; with `awards`, the awards are
/// those (the package's awards of record) rather than the daemon's.
fn restored_with(d: &Daemon, token: Option<&str>, awards: &Value) -> Vec<(String, Value)> {
    let mut all = restored(d, token);
    for (path, v) in &mut all {
        if path.ends_with("/awards") {
            *v = awards.clone();
        }
    }
    all
}

/// Every endpoint the package restores, as `token` reads it.
fn restored(d: &Daemon, token: Option<&str>) -> Vec<(String, Value)> {
    RESTORED
        .iter()
        .filter(|ty| !(token.is_none() && **ty == "accounts"))
        .map(|ty| {
            let path = if ty.is_empty() {
                "/api/contests/wf".to_string()
            } else {
                format!("/api/contests/wf/{ty}")
            };
            let (code, v) = d.get(&path, token);
            assert_eq!(code, 200, "{path}: {v}");
            (path, v)
        })
        .collect()
}

/// Copies package `from` into `to` (made anew), as a director would before editing it.
fn copy_package(from: &Path, to: &Path) {
    let _ = std::fs::remove_dir_all(to);
    let status = std::process::Command::new("cp")
        .arg("-r")
        .arg(from)
        .arg(to)
        .status()
        .expect("cp runs");
    assert!(status.success());
}

fn read_json(p: &Path) -> Value {
    let text = std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    serde_json::from_str(&text).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

#[test]
fn a_finalized_contest_exported_and_imported_on_a_fresh_server_serves_the_same_contest_api() {
    require_root!();
    let (a, a_contests) = site();
    let now = ojd_store::now_ms() / 1000 * 1000;
    let dir = a_contests.path().join("wf");
    std::fs::create_dir_all(&dir).expect("mkdir");
    std::fs::write(
        dir.join("contest.toml"),
        format!(
            "title = \"Rehearsal\"\nstart = \"{}\"\nduration = \"2h\"\npenalty = 10\n\
             compile_errors_count = true\nparticipants = [\"alice\", \"bob\", \"carol\"]\n\
             [[problem]]\nid = \"aplusb\"\nlabel = \"A\"\ncolor = \"#ff0000\"\n\
             [awards]\ngold = 1\nsilver = 1\nbronze = 0\n",
            crate::contests::rfc3339(now - 10 * 60_000)
        ),
    )
    .expect("contest.toml");
    let clock = crate::common::TestClock::new();
    let d = clock.start(&a);
    let roster = "user,name,affiliation,group,category,country,location\n\
                  alice,Team Alice,A University,Students,participant,NLD,1.5;2;90\n\
                  bob,Bob's Bunch,A University,,observer,,\n\
                  carol,Carol's,B College,Students,participant,BEL,3;4;180\n";
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/wf/teams",
        Some(ADMIN),
        &json!({ "roster": roster }),
    );
    assert_eq!(code, 200, "{r}");
    submit(&d, BOB, "wrong_answer/wa_second_line.c");
    submit(&d, ALICE, "wrong_answer/wa_second_line.c");
    submit(&d, ALICE, "accepted/ac.c");
    let (code, q) = d.post_json(
        "/api/v1/contests/wf/clarifications",
        Some(ALICE),
        &json!({"problem": "A", "text": "May a be negative?"}),
    );
    assert_eq!(code, 201, "{q}");
    let qid = q["id"].as_i64().expect("id");
    let (code, r) = d.post_json(
        &format!("/api/v1/admin/clarifications/{qid}/answer"),
        Some(ADMIN),
        &json!({"answer": "Yes.", "public": true}),
    );
    assert_eq!(code, 200, "{r}");
    // A second reply, to the asker only: both are kept, each its own clarification.
    let (code, r) = d.post_json(
        &format!("/api/v1/admin/clarifications/{qid}/answer"),
        Some(ADMIN),
        &json!({"answer": "Yes, down to -10^9.", "public": false}),
    );
    assert_eq!(code, 200, "{r}");
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/wf/announcements",
        Some(ADMIN),
        &json!({"text": "Ten minutes left."}),
    );
    assert!(code == 200 || code == 201, "{code} {r}");
    // "End now" rounds the end down to a whole second: the daemon's clock moves into the
    // next one, so that every submission lies inside the contest.
    clock.advance(1100);
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/wf/clock",
        Some(ADMIN),
        &json!({"action": "end_now"}),
    );
    assert_eq!(code, 200, "{r}");
    let (code, r) = d.post_json(
        "/api/v1/admin/contests/wf/finalize",
        Some(ADMIN),
        &json!({}),
    );
    assert_eq!(code, 200, "{r}");
    // The feed sends an event once it is 2 s old: wait until the admin's feed ends with the
    // end of updates, so that the package's feed is the whole contest.
    crate::common::wait_until(JUDGED_WITHIN, || {
        let feed = crate::ccs::feed_of(&d, "wf", Some(ADMIN));
        let last = feed.last().cloned().unwrap_or_default();
        if last["type"] == "state" && last["data"]["end_of_updates"].is_string() {
            Ok(())
        } else {
            Err(format!("the feed never ended: {last}"))
        }
    });

    // 2026-01 serves problems' limits and submissions' accounts; 2023-06 has no such keys.
    let (_, p26) = d.get("/api/2026-01/contests/wf/problems", None);
    assert!(
        p26[0]["memory_limit"].is_u64() && p26[0]["code_limit"].is_u64(),
        "{p26}"
    );
    let (_, s26) = d.get("/api/2026-01/contests/wf/submissions", Some(ADMIN));
    assert!(
        s26.as_array()
            .expect("submissions")
            .iter()
            .all(|s| s["account_id"] == s["team_id"]),
        "{s26}"
    );
    let (_, p23) = d.get("/api/contests/wf/problems", None);
    assert!(p23[0].get("memory_limit").is_none(), "{p23}");

    // Export: without a token the daemon's part is refused, by name; then whole.
    let pkg = a.path().join("package");
    let pkg_arg = pkg.display().to_string();
    let r = ojd(
        &a,
        &[
            "contest", "export", "wf", "--to", &pkg_arg, "--from", &d.url,
        ],
        None,
    );
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("OJD_TOKEN"), "{}", r.stderr);
    assert!(!pkg.exists());
    let r = ojd(
        &a,
        &[
            "contest", "export", "wf", "--to", &pkg_arg, "--from", &d.url,
        ],
        Some(ADMIN),
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    for f in FROM_FILES.iter().chain(&[
        "problems.yaml",
        "aplusb/problem.yaml",
        "judgement-types.json",
        "languages.json",
        "submissions.json",
        "judgements.json",
        "runs.json",
        "clarifications.json",
        "awards.json",
        "scoreboard.json",
        "state.json",
        "event-feed.ndjson",
        "results.tsv",
    ]) {
        assert!(pkg.join(f).is_file(), "the package has {f}");
    }
    // The daemon's documents are what its Contest API serves an admin.
    for (file, path) in [
        ("submissions.json", "submissions"),
        ("judgements.json", "judgements"),
        ("clarifications.json", "clarifications"),
        ("awards.json", "awards"),
        ("scoreboard.json", "scoreboard"),
    ] {
        let (_, served) = d.get(&format!("/api/contests/wf/{path}"), Some(ADMIN));
        assert_eq!(read_json(&pkg.join(file)), served, "{file}");
    }
    assert_eq!(
        read_json(&pkg.join("submissions.json"))
            .as_array()
            .map(Vec::len),
        Some(3)
    );
    // The question, both replies and the announcement.
    let clars = read_json(&pkg.join("clarifications.json"));
    assert_eq!(clars.as_array().map(Vec::len), Some(4), "{clars}");
    let replies: Vec<(&Value, &Value, &Value)> = (clars.as_array().expect("list").iter())
        .filter(|c| c["reply_to_id"] == json!(qid.to_string()))
        .map(|c| (&c["id"], &c["text"], &c["to_team_id"]))
        .collect();
    assert_eq!(
        replies,
        [
            (&json!(format!("{qid}-reply")), &json!("Yes."), &Value::Null),
            (
                &json!(format!("{qid}-reply-2")),
                &json!("Yes, down to -10^9."),
                &json!("alice")
            ),
        ],
        "{clars}"
    );
    let awards = read_json(&pkg.join("awards.json"));
    let gold = awards
        .as_array()
        .expect("awards")
        .iter()
        .find(|x| x["id"] == "gold-medal")
        .unwrap_or_else(|| panic!("no gold medal: {awards}"));
    assert_eq!(gold["team_ids"], json!(["alice"]));
    let feed = std::fs::read_to_string(pkg.join("event-feed.ndjson")).expect("feed");
    let last_event: Value =
        serde_json::from_str(feed.lines().last().expect("events")).expect("an event");
    assert!(
        last_event["type"] == "state" && last_event["data"]["end_of_updates"].is_string(),
        "the feed ends with the end of updates: {last_event}"
    );
    let results = std::fs::read_to_string(pkg.join("results.tsv")).expect("results");
    assert!(results.lines().count() >= 3, "{results}");
    // The roster in the package: the web's names, organizations, groups, the observer hidden;
    // accounts without a password.
    let teams = read_json(&pkg.join("teams.json"));
    let bob = teams
        .as_array()
        .expect("teams")
        .iter()
        .find(|t| t["id"] == "bob")
        .expect("bob");
    assert_eq!(
        (&bob["name"], &bob["hidden"]),
        (&json!("Bob's Bunch"), &json!(true))
    );
    assert_eq!(
        read_json(&pkg.join("organizations.json"))
            .as_array()
            .map(Vec::len),
        Some(2)
    );
    let accounts = std::fs::read_to_string(pkg.join("accounts.json")).expect("accounts");
    assert!(
        !accounts.contains("password") && !accounts.contains("token"),
        "{accounts}"
    );
    let problems = read_json(&pkg.join("problems.json"));
    assert_eq!(problems[0]["rgb"], "#ff0000", "{problems}");
    check_schemas(&pkg);
    // The teams' countries (their organizations') and seats.
    let alice = (teams.as_array().expect("teams").iter())
        .find(|t| t["id"] == "alice")
        .expect("alice");
    assert_eq!(
        alice["location"],
        json!({"x": 1.5, "y": 2.0, "rotation": 90.0}),
        "{teams}"
    );
    // The jury's awards are the package's, read back on import: an award ojd does not
    // compute (an honourable mention, as a DOMjudge package may carry) comes back too.
    let mut awards = awards;
    awards.as_array_mut().expect("awards").push(
        json!({"id": "honorable-mention", "citation": "Honorable mention",
                     "team_ids": ["carol"]}),
    );
    std::fs::write(pkg.join("awards.json"), awards.to_string()).expect("write");

    // Import on a fresh server (its own data folder and database). A package with a bad
    // judgement is refused, naming the file, the object and the key, and leaves nothing.
    let (b, b_contests) = site();
    let bad = a.path().join("bad-package");
    copy_package(&pkg, &bad);
    let mut judgements = read_json(&bad.join("judgements.json"));
    judgements[1]["judgement_type_id"] = json!("XX");
    std::fs::write(bad.join("judgements.json"), judgements.to_string()).expect("write");
    let r = ojd(&b, &["contest", "import", &bad.display().to_string()], None);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr
            .contains("judgements.json: [1].judgement_type_id: \"XX\""),
        "{}",
        r.stderr
    );
    assert!(!b_contests.path().join("wf").exists());
    // One whose last clarification clashes with its first in the database: the store refuses
    // it, and the submissions stored before it in the same transaction are gone with it.
    copy_package(&pkg, &bad);
    let mut clars = read_json(&bad.join("clarifications.json"));
    let mut twin = clars[0].clone();
    twin["time"] = json!("2001-01-01T00:00:00Z");
    clars.as_array_mut().expect("list").push(twin);
    std::fs::write(bad.join("clarifications.json"), clars.to_string()).expect("write");
    let r = ojd(&b, &["contest", "import", &bad.display().to_string()], None);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("nothing was stored"), "{}", r.stderr);
    assert!(!b_contests.path().join("wf").exists());
    let r = ojd(&b, &["contest", "import", &pkg_arg], None);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("1 problems, 3 teams")
            && r.stdout
                .contains("3 submissions, 3 judgements, 2 clarifications stored, 0 there"),
        "{}",
        r.stdout
    );
    // Imported again: nothing doubles.
    let r = ojd(&b, &["contest", "import", &pkg_arg], None);
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("imported again")
            && r.stdout
                .contains("0 submissions, 0 judgements, 0 clarifications stored, 5 there"),
        "{}",
        r.stdout
    );
    let e = b.start();
    // While the daemon runs, its database is its own: the command refuses, pointing to its
    // admin page's import.
    let r = ojd(&b, &["contest", "import", &pkg_arg], None);
    assert_eq!(r.code, 2, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("another ojd serve is using the database")
            && r.stderr.contains("Import a package"),
        "{}",
        r.stderr
    );
    let awards = read_json(&pkg.join("awards.json"));
    for token in [Some(ADMIN), None] {
        let (before, after) = (restored_with(&d, token, &awards), restored(&e, token));
        for ((path, x), (_, y)) in before.iter().zip(&after) {
            assert_eq!(x, y, "{path} as {token:?}: the same after the round trip");
        }
    }
    // The imported contest ranks the same teams: every participant, the observer not.
    let (_, sb) = e.get("/api/contests/wf/scoreboard", None);
    let ranked: Vec<&Value> = sb["rows"]
        .as_array()
        .expect("rows")
        .iter()
        .map(|r| &r["team_id"])
        .collect();
    assert_eq!(ranked.len(), 2, "{sb}");
    assert!(!ranked.contains(&&json!("bob")), "{sb}");

    // The same package through the admin web, on another fresh server.
    web_import(&pkg, &d);

    // Exported again from the imported contest: the same documents.
    let again = b.path().join("again");
    let r = ojd(
        &b,
        &[
            "contest",
            "export",
            "wf",
            "--to",
            &again.display().to_string(),
        ],
        None,
    );
    assert_eq!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    for f in FROM_FILES {
        let (x, y) = (
            std::fs::read_to_string(pkg.join(f)).expect("first"),
            std::fs::read_to_string(again.join(f)).expect("again"),
        );
        assert_eq!(x, y, "{f}: the same after the round trip");
    }
}

/// `dir` zipped into `to`, with an entry named `extra` (holding "x") when given.
fn zip_dir(dir: &Path, to: &Path, extra: Option<&str>) {
    let script = "import os, sys, zipfile\n\
        src, out = sys.argv[1], sys.argv[2]\n\
        with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:\n\
        \x20   for root, _, files in os.walk(src):\n\
        \x20       for f in files:\n\
        \x20           p = os.path.join(root, f)\n\
        \x20           z.write(p, os.path.relpath(p, src))\n\
        \x20   for e in sys.argv[3:]:\n\
        \x20       z.writestr(e, 'x')\n";
    let mut cmd = std::process::Command::new("python3");
    cmd.arg("-c").arg(script).arg(dir).arg(to);
    if let Some(e) = extra {
        cmd.arg(e);
    }
    assert!(
        cmd.status().expect("python3 runs").success(),
        "zip {}",
        dir.display()
    );
}

/// A director imports package `pkg` on the admin page of a fresh server, in Chromium at
/// desktop width and at 390 px: a package naming an unknown organization, one with a problem
/// the server does not serve and an archive with an entry outside its folder are each refused
/// naming the file and key (or the entry), leaving nothing behind; the good one shows what it
/// creates, and once imported the server serves the same Contest API as `d`, where it was made.
fn web_import(pkg: &Path, d: &Daemon) {
    if !crate::cdp::have_chromium() {
        return;
    }
    let (c, c_contests) = site_with(&format!(
        "[[server.users]]\nname = \"jury2\"\ntoken = \"{JURY2}\"\nadmin = true"
    ));
    let work = tempfile::tempdir().expect("temp dir");
    let edited = |name: &str, file: &str, key: &str, value: Value| {
        let dir = work.path().join(name);
        copy_package(pkg, &dir);
        let mut doc = read_json(&dir.join(file));
        doc[0][key] = value;
        std::fs::write(dir.join(file), doc.to_string()).expect("write");
        // The YAML twin would be read first.
        let _ = std::fs::remove_file(dir.join(file.replace(".json", ".yaml")));
        let zip = work.path().join(format!("{name}.zip"));
        zip_dir(&dir, &zip, None);
        zip
    };
    let good = work.path().join("wf.zip");
    zip_dir(pkg, &good, None);
    let escaping = work.path().join("escaping.zip");
    zip_dir(pkg, &escaping, Some("../evil"));
    let refused = [
        (
            edited(
                "unknown-org",
                "teams.json",
                "organization_id",
                json!("nowhere"),
            ),
            "teams.json: [0].organization_id: \"nowhere\" is not in",
        ),
        (
            edited("unknown-problem", "problems.json", "id", json!("nosuch")),
            "problems.json: [0].id: problem \"nosuch\" is not served here",
        ),
        (escaping, "\"../evil\" in the archive"),
    ];
    let f = c.start();
    let browser = crate::cdp::Browser::start();
    let mut page = crate::contests_browser::logged_in(&browser, &f, ADMIN, "admin");
    let upload = |page: &mut crate::cdp::Cdp, zip: &Path| {
        page.navigate(&format!("{}/contests", f.url));
        page.click("#import-contest");
        page.wait_for(
            "the import form",
            "document.getElementById('package') !== null",
            Duration::from_secs(10),
        );
        page.set_file("#package", zip);
        page.click("#import-check");
        page.wait_for(
            "the package's check",
            "document.getElementById('preview') !== null || document.getElementById('result') !== null",
            Duration::from_secs(60),
        );
    };
    let left = |dir: &Path| -> Vec<String> {
        std::fs::read_dir(dir)
            .map(|r| {
                r.filter_map(Result::ok)
                    .map(|e| e.file_name().to_string_lossy().into_owned())
                    .collect()
            })
            .unwrap_or_default()
    };
    for (zip, want) in &refused {
        upload(&mut page, zip);
        let said = page.eval("document.getElementById('result')?.textContent ?? ''");
        let said = said.as_str().unwrap_or_default().to_string();
        assert!(
            said.contains("was not imported (nothing changed)") && said.contains(want),
            "{}: {said}",
            zip.display()
        );
        // The form is there again, and nothing is left: no contest, no staging folder.
        assert_eq!(
            page.eval("document.getElementById('import-form') !== null"),
            true
        );
        assert_eq!(
            left(c_contests.path()),
            Vec::<String>::new(),
            "{}",
            zip.display()
        );
    }
    assert!(!c_contests.path().join("evil").exists() && !c.path().join("evil").exists());
    page.screenshot(&crate::cdp::artifact("contest-import-refused.png"));
    crate::contests_browser::phone(&mut page, "import-refused");

    upload(&mut page, &good);
    let preview = page.eval(
        "['preview-id', 'preview-teams', 'preview-submissions', 'preview-clarifications']\
         .map(id => document.getElementById(id)?.dataset.count ?? document.getElementById(id)?.textContent)",
    );
    assert_eq!(preview, json!(["wf", "3", "3", "2"]), "the preview");
    // The length as a director reads it (ended early: `10 min 6 s (0:10:06)`), not
    // contest.toml's `0h10m6s`.
    let length = page.eval("document.getElementById('preview-length')?.textContent");
    let length = length.as_str().unwrap_or_default().to_string();
    let reltime = read_json(&pkg.join("contest.json"))["duration"]
        .as_str()
        .expect("a duration")
        .to_string();
    assert!(
        length.ends_with(&format!("({reltime})"))
            && length.contains(" min ")
            && !length.contains("0h"),
        "{length}"
    );
    // The staging key is the uploading admin's: another admin who learns it can neither
    // import nor cancel the package.
    let key =
        page.eval("document.querySelector('form[action$=\"/confirm\"] input[name=key]')?.value");
    let key = key.as_str().expect("the staging key").to_string();
    for action in ["confirm", "cancel"] {
        let r = ureq::post(&format!("{}/admin/contests/import/{action}", f.url))
            .set("Authorization", &format!("Bearer {JURY2}"))
            .send_form(&[("key", key.as_str()), ("name", "wf.zip")]);
        let (code, body) = match r {
            Ok(r) => (r.status(), r.into_string().unwrap_or_default()),
            Err(ureq::Error::Status(code, r)) => (code, r.into_string().unwrap_or_default()),
            Err(e) => panic!("{action}: {e}"),
        };
        if action == "confirm" {
            assert!(
                code == 400 && body.contains("another admin"),
                "{action}: {code} {body}"
            );
        }
        assert!(!c_contests.path().join("wf").exists(), "{action}");
        assert_eq!(
            left(c_contests.path()).len(),
            1,
            "{action}: the staging folder stays"
        );
    }
    assert_eq!(
        page.eval("document.querySelectorAll('#preview-problems tbody tr').length"),
        1
    );
    // Nothing is imported before the director says so.
    assert!(!c_contests.path().join("wf").exists());
    let (code, _) = f.get("/api/contests/wf", None);
    assert_eq!(code, 404);
    page.screenshot(&crate::cdp::artifact("contest-import-preview.png"));
    crate::contests_browser::phone(&mut page, "import-preview");
    page.click("#import-confirm");
    page.wait_for(
        "the imported contest's page",
        "location.pathname === '/contests/wf'",
        Duration::from_secs(60),
    );
    assert_eq!(
        left(c_contests.path()),
        vec!["wf".to_string()],
        "no staging folder is left"
    );
    let awards = read_json(&pkg.join("awards.json"));
    for token in [Some(ADMIN), None] {
        let (before, mut after) = (restored_with(d, token, &awards), restored(&f, token));
        // This server's second admin is its own account, not the package's.
        for (path, v) in &mut after {
            if path.ends_with("/accounts") {
                if let Some(list) = v.as_array_mut() {
                    list.retain(|a| a["username"] != "jury2");
                }
            }
        }
        for ((path, x), (_, y)) in before.iter().zip(&after) {
            assert_eq!(x, y, "{path} as {token:?}: the same after the web's import");
        }
    }
    // The import is audited.
    let (code, audit) = f.get("/api/v1/admin/audit", Some(ADMIN));
    assert!(
        code == 200 && audit.to_string().contains("imported contest \\\"wf\\\""),
        "{code} {audit}"
    );
}

/// The package's documents against the standard's schemas (2023-06, as the Contest API serves
/// them), when a clone of icpc/ccs-specs is given as `OJD_CCS_SPECS`; under CI without it the
/// test says so (the schemas have no licence to be committed here).
fn check_schemas(pkg: &Path) {
    if std::env::var_os("OJD_CCS_SPECS").is_none() {
        eprintln!("OJD_CCS_SPECS is not set: the package's schema check is skipped");
        return;
    }
    let script = crate::common::testdata("ccs-schemas/check_package.py");
    let status = std::process::Command::new("python3")
        .arg(&script)
        .arg(pkg)
        .status()
        .expect("python3 runs");
    assert!(status.success(), "the package fails the standard's schemas");
}
