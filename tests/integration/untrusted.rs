//! What input from outside cannot do to the daemon: a package's program that builds a tree no
//! walk survives, and the other holes of the latest hostile audit, each shut.

use crate::common::{self, testdata};
use crate::import::Scratch;
use ojd_judge::Verdict;

/// A multi-pass validator is the package's code, and its feedback folder is a host folder the
/// judge copies and removes as root. One that plants a chain of folders deeper than the caps
/// gets a judge error naming the cap (the judge no longer walks it recursively: 70,000 levels
/// once overflowed the judging thread's stack, crashing the daemon at every restart), and the
/// tree is gone after the judging.
#[test]
fn a_validator_that_plants_a_deep_chain_of_folders_is_a_judge_error_and_leaves_nothing() {
    require_root!();
    let s = Scratch::new();
    let dir = s.import(
        "kattis",
        &testdata("import/kattis/multi-pass-remember"),
        "remember-deep",
    );
    let original = std::fs::read(testdata(
        "import/kattis/multi-pass-remember/output_validator/validator.cpp",
    ))
    .unwrap();
    let validator = crate::websec::walk(&dir)
        .into_iter()
        .find(|p| std::fs::read(p).is_ok_and(|b| b == original))
        .expect("the imported validator's source");
    // 1,000 levels: past the caps, and cheap to build and remove on any disk.
    std::fs::write(
        &validator,
        "#include <sys/stat.h>\n#include <unistd.h>\nint main(int argc, char** argv) {\n  \
         if (chdir(argv[3]) != 0) return 1;\n  \
         for (int i = 0; i < 1000; i++) {\n    \
         if (mkdir(\"d\", 0755) != 0 || chdir(\"d\") != 0) return 1;\n  }\n  return 42;\n}\n",
    )
    .unwrap();
    let mut config = ojd_judge::Config::defaults();
    config.judge.compile_time = std::time::Duration::from_secs(90);
    let scratch = s.path("judge-scratch");
    config.sandbox.scratch = scratch.clone();
    let j = common::judge_with(config, 1);
    let report = common::judge_file(&j, &dir, &dir.join("submissions/accepted/flip.c"));
    assert_eq!(report.verdict, Verdict::JudgeError, "{report:?}");
    let failed = report
        .tests
        .iter()
        .find(|t| t.verdict != Verdict::Accepted)
        .expect("a failed test");
    assert!(
        failed.message.starts_with("pass 1 of at most 2")
            && failed
                .message
                .contains("feedback folder is more than 16 folders deep"),
        "{}",
        failed.message
    );
    // Nothing of it is left in the judge's scratch (walked to a bounded depth).
    let mut left = Vec::new();
    let mut todo = vec![(scratch, 0)];
    while let Some((d, depth)) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap().filter_map(Result::ok) {
            let is_dir = e.file_type().is_ok_and(|t| t.is_dir());
            if is_dir && e.file_name() == "d" {
                left.push(e.path());
            } else if is_dir && depth < 8 {
                todo.push((e.path(), depth + 1));
            }
        }
    }
    assert!(left.is_empty(), "left behind: {left:?}");
}

const AC_PY: &str = "import sys\ndata = sys.stdin.read().split()\nt = int(data[0])\nprint(\"\\n\".join(str(int(data[1 + 2 * i]) + int(data[2 + 2 * i])) for i in range(t)))\n";
const WA_PY: &str = "import sys\ndata = sys.stdin.read().split()\nt = int(data[0])\nprint(\"\\n\".join(str(int(data[1 + 2 * i]) - int(data[2 + 2 * i])) for i in range(t)))\n";

fn submit(d: &crate::daemon::Daemon, token: &str, name: &str, source: &str) -> i64 {
    let (code, body) = d.post_json(
        "/api/v1/submissions",
        Some(token),
        &serde_json::json!({ "problem": "aplusb", "filename": name, "source": source }),
    );
    assert_eq!(code, 201, "submitting {name}: {body}");
    body["id"].as_i64().expect("an id")
}

/// The judge-host role's rights are exactly its claims. Its SQL runs as the tables' owner (an
/// ordinary role that may create roles, as docs/many-machines.md sets it up), a real worker
/// with that role judges alice's WA and bob's AC; then, as that role and holding no claim,
/// every statement of the audit's attack is refused: opening a judging on a finished
/// submission, finishing one, pointing a submission at another judging, claiming a finished
/// submission, cancelling or applying the director's rejudging, moving a user in the claim
/// order, drawing from another sequence, and creating anything where the owner's queries
/// would find it. The verdicts and the rejudging stay as they were. On PostgreSQL 14's
/// defaults (every role may create in `public`) the SQL first refuses, naming the fix.
#[test]
fn the_judge_host_role_can_change_only_what_it_holds_a_claim_on() {
    use crate::daemon::{Site, ADMIN, ALICE, BOB};
    use std::time::Duration;
    require_root!();
    let Some(cluster) = crate::pg::Cluster::private() else {
        return;
    };
    let super_url = cluster.database();
    let db = super_url
        .rsplit('/')
        .next()
        .expect("a database name")
        .to_string();
    let mut su = postgres::Client::connect(&super_url, postgres::NoTls).expect("connect");
    // PostgreSQL 14's defaults: the schema `public` is the bootstrap superuser's and every role
    // may create in it (the owner's migrations too).
    su.batch_execute(&format!(
        "CREATE ROLE ojd_owner LOGIN CREATEROLE; ALTER DATABASE {db} OWNER TO ojd_owner;
         ALTER SCHEMA public OWNER TO postgres; GRANT CREATE ON SCHEMA public TO PUBLIC;"
    ))
    .expect("an owner that is not a superuser");
    let owner_url = super_url.replace("postgres://postgres@", "postgres://ojd_owner@");
    let site = Site::with_database(
        Some(&owner_url),
        "local_workers = false\nrate_limit_per_minute = 0",
    );
    let serve = site.start();
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
    let mut owner = postgres::Client::connect(&owner_url, postgres::NoTls).expect("connect");
    // There a judge host could plant an operator that the owner's own queries run with the
    // owner's rights (`public.*(numeric, integer)` in the leases' clock): the role's SQL
    // refuses, saying what a superuser must change, and then runs.
    let refused = owner
        .batch_execute(&sql)
        .expect_err("the role's SQL refuses a schema where every role may create");
    let db_error = refused.as_db_error().expect("a database error");
    assert!(
        db_error.message().contains("may create objects")
            && db_error
                .hint()
                .is_some_and(|h| h.contains("ALTER SCHEMA public OWNER TO ojd_owner")),
        "{db_error:?}"
    );
    su.batch_execute("ALTER SCHEMA public OWNER TO ojd_owner")
        .expect("the schema to the tables' owner");
    owner
        .batch_execute(&sql)
        .expect("the role's SQL runs as the tables' owner");
    owner.batch_execute(&sql).expect("and runs again");
    // The functions that run as the owner find no table of a host's session first (a
    // temporary `judgings` it made and let everyone read would stand in for the real one).
    let unpinned: Vec<String> = owner
        .query(
            "SELECT proname::TEXT FROM pg_proc WHERE pronamespace = 'public'::REGNAMESPACE
               AND prosecdef AND NOT coalesce(proconfig @> '{\"search_path=public, pg_temp\"}', false)",
            &[],
        )
        .expect("the owner's functions")
        .iter()
        .map(|r| r.get(0))
        .collect();
    assert!(unpinned.is_empty(), "{unpinned:?}");
    let judge_url = owner_url.replace("postgres://ojd_owner@", "postgres://ojd_judge@");

    // A real worker with the role judges.
    let worker = crate::multihost::Worker::start(site.path(), "ojd_judge", &judge_url);
    let wa = submit(&serve, ALICE, "wa.py", WA_PY);
    let ac = submit(&serve, BOB, "ac.py", AC_PY);
    let verdict = |id: i64| {
        let (_, sub) = serve.get(&format!("/api/v1/submissions/{id}"), Some(ADMIN));
        (sub["state"] == "done").then(|| sub["verdict"].as_str().unwrap_or("").to_string())
    };
    common::wait_until(Duration::from_secs(600), || {
        match (verdict(wa), verdict(ac)) {
            (Some(_), Some(_)) => Ok(()),
            pending => Err(format!("never judged: {pending:?}")),
        }
    });
    assert_eq!(
        (verdict(wa).as_deref(), verdict(ac).as_deref()),
        (Some("WA"), Some("AC"))
    );
    drop(worker);

    // The director's rejudging of alice's submission, not yet judged.
    let rejudging: i64 = owner
        .query_one(
            "INSERT INTO rejudgings (created_at, created_by, scope, auto_apply)
             VALUES (0, 'director', 'test', true) RETURNING id",
            &[],
        )
        .expect("a rejudging")
        .get(0);
    owner
        .execute(
            "INSERT INTO rejudging_items (rejudging, submission, before_judging)
             SELECT $1, id, current_judging FROM submissions WHERE id = $2",
            &[&rejudging, &wa],
        )
        .expect("its item");

    let mut judge = postgres::Client::connect(&judge_url, postgres::NoTls).expect("connect");
    let attack = [
        format!(
            "INSERT INTO judgings (submission, attempt, judged_by, started_at)
             VALUES ({wa}, 99, 'ojd_judge~0000000000000000', 0)"
        ),
        format!(
            "INSERT INTO judgings (submission, attempt, judged_by, started_at, rejudging)
             VALUES ({wa}, 98, 'ojd_judge', 0, {rejudging})"
        ),
        format!(
            "UPDATE submissions SET current_judging =
               (SELECT current_judging FROM submissions WHERE id = {ac}) WHERE id = {wa}"
        ),
        format!(
            "UPDATE submissions SET current_judging =
               (SELECT MIN(id) FROM judgings WHERE submission = {wa}) WHERE id = {wa}"
        ),
        format!("UPDATE submissions SET current_judging = NULL WHERE id = {ac}"),
        format!(
            "UPDATE submissions SET state = 'judging', claimed_by = 'ojd_judge~1',
               lease_until = 9000000000000000, attempts = attempts + 1 WHERE id = {wa}"
        ),
        format!("UPDATE submissions SET state = 'queued' WHERE id = {ac}"),
        format!(
            "INSERT INTO judging_results (judging, idx, name, sample, verdict, cpu_ms, wall_ms,
               memory_kib, message) SELECT current_judging, 99, 't', false, 'AC', 0, 0, 0, ''
               FROM submissions WHERE id = {wa}"
        ),
        format!(
            "UPDATE rejudgings SET state = 'cancelled', closed_by = 'x' WHERE id = {rejudging}"
        ),
        format!(
            "UPDATE rejudgings SET state = 'applied', closed_by = created_by WHERE id = {rejudging}"
        ),
        "INSERT INTO fairness (\"user\", last_claim) VALUES ('mallory', 0)".to_string(),
        "UPDATE fairness SET last_claim = 0".to_string(),
        "UPDATE fairness SET last_claim = nextval('claim_seq')".to_string(),
        "SELECT nextval('submissions_id_seq')".to_string(),
        "SELECT nextval('rejudgings_id_seq')".to_string(),
        "SELECT setval('claim_seq', 1)".to_string(),
        // Nothing of the site's secrets or contests.
        "SELECT * FROM tokens".to_string(),
        "SELECT * FROM sessions".to_string(),
        "SELECT * FROM login_codes".to_string(),
        "SELECT * FROM contest_state".to_string(),
        "SELECT * FROM clarifications".to_string(),
        // Nothing of its own in the schema the owner's queries resolve names in.
        "CREATE FUNCTION public.mul(numeric, integer) RETURNS numeric LANGUAGE sql
           AS 'SELECT 0::numeric'"
            .to_string(),
        "CREATE TABLE public.planted (x int)".to_string(),
        "CREATE SCHEMA planted".to_string(),
    ];
    for statement in &attack {
        let refused = judge.batch_execute(statement).expect_err(statement);
        let why = refused
            .as_db_error()
            .map(|d| d.message().to_string())
            .unwrap_or_else(|| refused.to_string());
        assert!(
            why.contains("judge host")
                || why.contains("permission denied")
                || why.contains("row-level security"),
            "{statement}: {why}"
        );
    }
    // A finished judging is out of reach of updates (row security hides it).
    let changed = judge
        .execute(
            &format!("UPDATE judgings SET verdict = 'AC' WHERE submission = {wa}"),
            &[],
        )
        .expect("runs");
    assert_eq!(changed, 0);

    assert_eq!(
        (verdict(wa).as_deref(), verdict(ac).as_deref()),
        (Some("WA"), Some("AC"))
    );
    let state: String = owner
        .query_one("SELECT state FROM rejudgings WHERE id = $1", &[&rejudging])
        .expect("read")
        .get(0);
    assert_eq!(state, "open", "the director's rejudging is untouched");
    forged_live_events_never_reach_a_stream(&serve, &mut owner, &mut judge);
    let (status, _) = serve.terminate(Duration::from_secs(30));
    assert!(status.success());
}

/// `pg_notify` is open to every role: as the judge-host role, events of a submission it holds
/// no claim on (in another host's name, in its own, and a forged "done") never reach the
/// submission's live stream on the serve node, while the owner's events that follow do.
fn forged_live_events_never_reach_a_stream(
    serve: &crate::daemon::Daemon,
    owner: &mut postgres::Client,
    judge: &mut postgres::Client,
) {
    use crate::daemon::{ADMIN, ALICE};
    use std::io::BufRead;
    // Nobody judges it (no worker runs now): it stays queued, its stream open.
    let queued = submit(serve, ALICE, "queued.py", AC_PY);
    let probe: i64 = owner
        .query_one(
            "INSERT INTO judgings (submission, attempt, judged_by, started_at)
             VALUES ($1, 1, 'probe', 0) RETURNING id",
            &[&queued],
        )
        .expect("the owner's judging")
        .get(0);
    let envelope = |from: &str, live: serde_json::Value| {
        serde_json::json!({ "from": from, "judging": probe, "live": live }).to_string()
    };
    let started = |name: &str| serde_json::json!({ "kind": "test_started", "id": queued, "index": 1, "name": name });
    let done = serde_json::json!({ "kind": "done", "id": queued });
    let r = ureq::get(&format!("{}/api/v1/submissions/{queued}/events", serve.url))
        .set("Authorization", &format!("Bearer {ADMIN}"))
        .timeout(std::time::Duration::from_secs(120))
        .call()
        .expect("the event stream opens");
    let mut reader = std::io::BufReader::new(r.into_reader());
    let mut lines = Vec::new();
    let mut line = String::new();
    // The stream's first state: from now on it hears the node's hub.
    while !line.starts_with("data: ") {
        line.clear();
        assert!(reader.read_line(&mut line).expect("read") > 0, "{lines:?}");
        lines.push(line.clone());
    }
    let notify = "SELECT pg_notify('ojd_events', $1)";
    for forged in [
        envelope("probe", started("forged")),
        envelope("ojd_judge~1", started("forged")),
        envelope("probe", done.clone()),
    ] {
        judge
            .query(notify, &[&forged])
            .expect("pg_notify is open to all");
    }
    for real in [envelope("probe", started("owner")), envelope("probe", done)] {
        owner.query(notify, &[&real]).expect("notify");
    }
    loop {
        line.clear();
        if reader.read_line(&mut line).expect("read") == 0 {
            break;
        }
        lines.push(line.clone());
        if line.starts_with("event: done") {
            break;
        }
    }
    let text = lines.concat();
    assert!(
        text.contains("\"owner\""),
        "the owner's event arrives: {text}"
    );
    assert!(!text.contains("forged"), "no forged event arrives: {text}");
}

/// A contest package is untrusted data and `ojd contest import` may run as root: its files are
/// read without following a link out of its folder (contest.yaml pointing at a host file is
/// refused by name), and nothing is written.
#[test]
fn a_contest_package_is_read_without_following_links_out_of_its_folder() {
    let tmp = tempfile::tempdir().expect("temp dir");
    let root = tmp.path();
    std::fs::write(
        root.join("config.toml"),
        format!(
            "[server]\nproblems = {:?}\ncontests = {:?}\n",
            root.join("problems").display().to_string(),
            root.join("contests").display().to_string(),
        ),
    )
    .expect("config");
    std::fs::create_dir_all(root.join("problems")).expect("mkdir");
    let outside = root.join("host-file.yaml");
    std::fs::write(
        &outside,
        "id: wf\nname: Host\nstart_time: 2030-06-25T10:00:00+01\nduration: 5:00:00\n",
    )
    .expect("write");
    let pkg = root.join("pkg");
    std::fs::create_dir_all(&pkg).expect("mkdir");
    std::os::unix::fs::symlink(&outside, pkg.join("contest.yaml")).expect("symlink");
    let out = common::ojd()
        .args(["contest", "import"])
        .arg(&pkg)
        .arg("--config")
        .arg(root.join("config.toml"))
        .output()
        .expect("ojd runs");
    let r = common::Run::from(out);
    assert_ne!(r.code, 0, "{}\n{}", r.stdout, r.stderr);
    assert!(
        r.stderr.contains("contest.yaml") && r.stderr.contains("symbolic link"),
        "{}",
        r.stderr
    );
    assert!(
        !root.join("contests").join("wf").exists(),
        "nothing written"
    );
}

/// Revocation: what a session, a cookie or a login link gives is decided by the user's record
/// now, never by what it was issued with.
mod revocation {
    use std::time::Duration;

    use serde_json::{json, Value};

    use crate::contest_site::ContestSite;
    use crate::contests::rfc3339;
    use crate::daemon::{Daemon, Site, ADMIN};
    use crate::websec::{header, request};
    use ojd_store::now_ms;

    /// Spends a login link's code: the status, the session cookie (when one is set), the body.
    fn redeem(d: &Daemon, path: &str) -> (u16, Option<String>, String) {
        let code = path.strip_prefix("/login?code=").expect("a login link");
        let (status, hs, body) = request(
            d,
            "POST",
            "/login",
            &[("Content-Type", "application/x-www-form-urlencoded")],
            Some(&format!("code={code}")),
        );
        let cookie = header(&hs, "set-cookie")
            .and_then(|c| c.split(';').next())
            .map(str::to_string);
        (status, cookie, body)
    }

    /// Who the server takes a cookie for: `/api/v1/me`'s status and answer.
    fn me(d: &Daemon, cookie: &str) -> (u16, String) {
        let (status, _, body) = request(d, "GET", "/api/v1/me", &[("Cookie", cookie)], None);
        (status, body)
    }

    /// A sheet of `contest`, valid until `until` if given: each team's user and link path.
    fn sheet(d: &Daemon, contest: &str, until: Option<String>) -> Vec<(String, String)> {
        let body = until.map_or_else(|| json!({}), |u| json!({ "valid_until": u }));
        let path = format!("/api/v1/admin/contests/{contest}/login-links");
        let (code, v) = d.post_json(&path, Some(ADMIN), &body);
        assert_eq!(code, 200, "{v}");
        v["links"]
            .as_array()
            .expect("links")
            .iter()
            .map(|l: &Value| {
                let s = |k: &str| l[k].as_str().expect("a string").to_string();
                (s("user"), s("path"))
            })
            .collect()
    }

    fn link_of(links: &[(String, String)], user: &str) -> String {
        links
            .iter()
            .find(|(u, _)| u == user)
            .map(|(_, p)| p.clone())
            .expect("the user's link")
    }

    /// A reprint revokes the earlier sheet's unused links (they say "revoked", 410); removing a
    /// team ends its session from the sheet at its next request and revokes its new link,
    /// whose page says so before anything is clicked. A contest that fails to load for a while
    /// ends no session.
    #[test]
    fn a_reprint_and_a_team_s_removal_revoke_its_links_and_session_at_once() {
        require_root!();
        let cs = ContestSite::new();
        cs.contest("hall", now_ms() - 60_000)
            .lasting("2h")
            .keys("[[team]]\nuser = \"carol\"\nname = \"Carol's\"\n\n[[team]]\nuser = \"dan\"\nname = \"Dan's\"")
            .write();
        let d = cs.start();
        let first = sheet(&d, "hall", None);
        let (status, cookie, body) = redeem(&d, &link_of(&first, "carol"));
        assert_eq!(status, 303, "carol's link logs her in: {body}");
        let cookie = cookie.expect("a session cookie");
        assert_eq!(me(&d, &cookie).0, 200);

        // A contest.toml an admin is fixing: its teams are anonymous for the while, not logged
        // out (their sessions come back once it loads again).
        let file = cs.file("hall");
        let good = std::fs::read_to_string(&file).expect("contest.toml");
        let reload = || {
            let (code, v) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
            assert_eq!(code, 200, "{v}");
        };
        std::fs::write(&file, "title = \"hall\"\nstart = \"not a time\"\n").expect("write");
        reload();
        assert_eq!(me(&d, &cookie).0, 401, "the contest does not load");
        std::fs::write(&file, &good).expect("write");
        reload();
        assert_eq!(me(&d, &cookie).0, 200, "loaded again: the session holds");

        // The reprint: dan's unused link of the first sheet is revoked and says so.
        let second = sheet(&d, "hall", None);
        let (status, _, body) = redeem(&d, &link_of(&first, "dan"));
        assert_eq!(status, 410, "{body}");
        assert!(body.contains("revoked"), "{body}");

        // Carol's team is removed: her session ends at once, her new link is revoked.
        let (code, v) = d.post_json(
            "/api/v1/admin/contests/hall/teams/carol/remove",
            Some(ADMIN),
            &json!({}),
        );
        assert_eq!(code, 200, "{v}");
        let (status, body) = me(&d, &cookie);
        assert_eq!(status, 401, "a removed team's session: {body}");
        let fresh = link_of(&second, "carol");
        let (status, _, body) = request(&d, "GET", &fresh, &[], None);
        assert_eq!(status, 410, "the link's page says it was revoked: {body}");
        assert!(body.contains("This link was revoked"), "{body}");
        let (status, cookie, body) = redeem(&d, &fresh);
        assert_eq!((status, cookie), (410, None), "{body}");
        // Dan's link of the second sheet still works.
        let (status, _, body) = redeem(&d, &link_of(&second, "dan"));
        assert_eq!(status, 303, "{body}");
    }

    /// What a team sees in the browser when its link was revoked (its team removed): a page
    /// saying so, at once, with no button that could log anyone in.
    #[test]
    fn a_removed_team_s_link_says_revoked_in_the_browser() {
        use crate::cdp::{artifact, have_chromium, Browser};
        require_root!();
        if !have_chromium() {
            return;
        }
        let cs = ContestSite::new();
        cs.contest("hall", now_ms() - 60_000)
            .lasting("2h")
            .keys("[[team]]\nuser = \"carol\"\nname = \"Carol's\"")
            .write();
        let d = cs.start();
        let link = link_of(&sheet(&d, "hall", None), "carol");
        let (code, v) = d.post_json(
            "/api/v1/admin/contests/hall/teams/carol/remove",
            Some(ADMIN),
            &json!({}),
        );
        assert_eq!(code, 200, "{v}");
        let browser = Browser::start();
        let mut page = browser.page();
        page.navigate(&format!("{}{link}", d.url));
        page.wait_for(
            "the revoked link's page",
            "document.readyState === 'complete' && document.querySelector('h1') !== null",
            Duration::from_secs(10),
        );
        let h1 = page.eval("document.querySelector('h1').textContent");
        assert_eq!(h1.as_str(), Some("This link was revoked"), "{h1}");
        assert_eq!(
            page.eval("document.getElementById('login-code') === null"),
            true,
            "no button to spend it"
        );
        page.screenshot(&artifact("revoked-link.png"));
    }

    /// A hall sheet's link is bound to its contest: once the contest has ended it never logs
    /// in, even while the sheet's time lasts and another contest has a team of that name.
    #[test]
    fn a_finished_contest_s_link_never_logs_in_as_the_name_s_next_holder() {
        require_root!();
        let cs = ContestSite::new();
        let team = "[[team]]\nuser = \"carol\"\nname = \"Carol's\"";
        cs.contest("old", now_ms() - 60_000)
            .lasting("2h")
            .keys(team)
            .write();
        cs.contest("next", now_ms() - 60_000)
            .lasting("5h")
            .keys(team)
            .write();
        let d = cs.start();
        let until = rfc3339(now_ms() + 24 * 3_600_000);
        let links = sheet(&d, "old", Some(until));
        // The old contest ends (moved into the past, as an admin would).
        let file = cs.file("old");
        let text = std::fs::read_to_string(&file).expect("contest.toml");
        let start = text
            .lines()
            .find(|l| l.starts_with("start = "))
            .expect("a start line")
            .to_string();
        let past = format!("start = \"{}\"", rfc3339(now_ms() - 3 * 3_600_000));
        std::fs::write(&file, text.replace(&start, &past)).expect("write contest.toml");
        let (code, v) = d.post_json("/api/v1/admin/reload", Some(ADMIN), &json!({}));
        assert_eq!(code, 200, "{v}");
        let (_, c) = d.get("/api/v1/contests/old", Some(ADMIN));
        assert!(
            c["clock"]["end_ms"].as_i64().expect("end") < now_ms(),
            "the contest ended: {c}"
        );
        let (status, cookie, body) = redeem(&d, &link_of(&links, "carol"));
        assert_eq!((status, cookie), (410, None), "{body}");
        assert!(body.contains("revoked"), "{body}");
    }

    /// A session is checked against the config on each request: a demoted admin's session is
    /// no admin's (the admin pages answer 403), and a user removed from the config has no
    /// session at all, after the restart that reads the config.
    #[test]
    fn a_demoted_or_removed_user_s_session_follows_the_config() {
        require_root!();
        let dora = "[[server.users]]\nname = \"dora\"\ntoken = \"dora-token\"\nadmin = true";
        let site = Site::new(&format!("generate_answers = false\n{dora}"));
        // `Site::new` appends to `[server]`: the user table goes after it as written.
        let config = site.path().join("config.toml");
        let text = std::fs::read_to_string(&config).expect("config");
        let d = site.start();
        let cookie = crate::websec::login(&d, "dora-token");
        let (status, body) = me(&d, &cookie);
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("\"admin\":true"), "{body}");
        let admin_page =
            |d: &Daemon| request(d, "GET", "/admin/users", &[("Cookie", &cookie)], None).0;
        assert_eq!(admin_page(&d), 200);
        d.terminate(Duration::from_secs(30));

        std::fs::write(
            &config,
            text.replace(dora, &dora.replace("admin = true", "admin = false")),
        )
        .expect("write config");
        let d = site.start();
        let (status, body) = me(&d, &cookie);
        assert_eq!(status, 200, "{body}");
        assert!(body.contains("\"admin\":false"), "demoted: {body}");
        assert_eq!(admin_page(&d), 403, "a demoted admin's session");
        d.terminate(Duration::from_secs(30));

        std::fs::write(&config, text.replace(dora, "")).expect("write config");
        let d = site.start();
        let (status, body) = me(&d, &cookie);
        assert_eq!(status, 401, "removed from the config: {body}");
        d.terminate(Duration::from_secs(30));
    }
}
