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
/// order, and drawing from another sequence. The verdicts and the rejudging stay as they were.
#[test]
fn the_judge_host_role_can_change_only_what_it_holds_a_claim_on() {
    use crate::daemon::{Site, ADMIN, ALICE, BOB};
    use std::time::{Duration, Instant};
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
    su.batch_execute(&format!(
        "CREATE ROLE ojd_owner LOGIN CREATEROLE; ALTER DATABASE {db} OWNER TO ojd_owner;"
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
    owner
        .batch_execute(&sql)
        .expect("the role's SQL runs as the tables' owner");
    owner.batch_execute(&sql).expect("and runs again");
    let judge_url = owner_url.replace("postgres://ojd_owner@", "postgres://ojd_judge@");

    // A real worker with the role judges.
    let worker = crate::multihost::Worker::start(site.path(), "ojd_judge", &judge_url);
    let wa = submit(&serve, ALICE, "wa.py", WA_PY);
    let ac = submit(&serve, BOB, "ac.py", AC_PY);
    let verdict = |id: i64| {
        let (_, sub) = serve.get(&format!("/api/v1/submissions/{id}"), Some(ADMIN));
        (sub["state"] == "done").then(|| sub["verdict"].as_str().unwrap_or("").to_string())
    };
    let deadline = Instant::now() + Duration::from_secs(600);
    while verdict(wa).is_none() || verdict(ac).is_none() {
        assert!(Instant::now() < deadline, "never judged");
        std::thread::sleep(Duration::from_millis(100));
    }
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
    let (status, _) = serve.terminate(Duration::from_secs(30));
    assert!(status.success());
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
