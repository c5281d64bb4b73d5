//! `ojd verify` end to end: the fixture problem in testdata/verify is copied to a temporary
//! folder, saved as a baseline, then changed the way an admin would change it (the reference
//! solver, the time limit, the tests); each change must show as the expected verdict diff and
//! exit code.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::common::{self, testdata, Run};

/// A copy of testdata/verify named `verify`, with a config sharing one compile cache.
struct Fixture {
    tmp: tempfile::TempDir,
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).expect("create the copy");
    for entry in std::fs::read_dir(from).expect("fixture exists").flatten() {
        let dest = to.join(entry.file_name());
        if entry.path().is_dir() {
            copy_dir(&entry.path(), &dest);
        } else {
            std::fs::copy(entry.path(), &dest).expect("copy a fixture file");
        }
    }
}

impl Fixture {
    fn new() -> Fixture {
        let tmp = tempfile::tempdir().expect("temp dir");
        copy_dir(&testdata("verify"), &tmp.path().join("verify"));
        let cache = Path::new(env!("CARGO_TARGET_TMPDIR")).join("verify-compile-cache");
        std::fs::write(
            tmp.path().join("config.toml"),
            format!("[judge]\ncache = {:?}\n", cache.display().to_string()),
        )
        .expect("write config");
        Fixture { tmp }
    }

    fn problem(&self) -> PathBuf {
        self.tmp.path().join("verify")
    }

    fn path(&self, rel: &str) -> PathBuf {
        self.tmp.path().join(rel)
    }

    fn ojd(&self, command: &str, args: &[&str]) -> Run {
        let out = common::ojd()
            .arg(command)
            .arg(self.problem())
            .arg("--config")
            .arg(self.path("config.toml"))
            .args(args)
            .current_dir(self.tmp.path())
            .output()
            .expect("ojd runs");
        Run::from(out)
    }

    /// `ojd verify` judging every cell (`--no-cache`: these tests measure the runs).
    fn verify(&self, args: &[&str]) -> Run {
        let mut args = args.to_vec();
        args.push("--no-cache");
        self.ojd("verify", &args)
    }

    /// Saves a baseline of the unchanged fixture, which must verify cleanly.
    fn save_baseline(&self) -> String {
        let file = self.path("verify.baseline").display().to_string();
        let r = self.verify(&["--save-baseline", &file]);
        assert_eq!(
            r.code, 0,
            "the fixture verifies cleanly:\n{}{}",
            r.stdout, r.stderr
        );
        file
    }

    fn edit(&self, rel: &str, f: impl FnOnce(String) -> String) {
        let p = self.problem().join(rel);
        let text = std::fs::read_to_string(&p).expect("fixture file");
        std::fs::write(&p, f(text)).expect("write fixture file");
    }

    fn gen(&self) {
        let r = self.ojd("gen", &[]);
        assert_eq!(r.code, 0, "ojd gen:\n{}{}", r.stdout, r.stderr);
    }
}

fn json(r: &Run) -> Value {
    serde_json::from_str(&r.stdout)
        .unwrap_or_else(|e| panic!("--json prints JSON ({e}):\n{}\n{}", r.stdout, r.stderr))
}

/// The baseline diff's entries of one kind as "submission test before->after" strings, sorted.
fn changes(report: &Value, kind: &str) -> Vec<String> {
    let mut v: Vec<String> = report["baseline"][kind]
        .as_array()
        .unwrap_or_else(|| panic!("baseline.{kind} is a list: {report:#}"))
        .iter()
        .map(|c| match kind {
            "changed" | "near_limit" => format!(
                "{} {} {}->{}",
                c["submission"].as_str().unwrap(),
                c["test"].as_str().unwrap(),
                c["before"]["verdict"].as_str().unwrap(),
                c["after"]["verdict"].as_str().unwrap()
            ),
            _ => format!(
                "{} {} {}",
                c[0]["submission"].as_str().unwrap(),
                c[0]["test"].as_str().unwrap(),
                c[1]["verdict"].as_str().unwrap()
            ),
        })
        .collect();
    v.sort();
    v
}

fn failed_submissions(report: &Value) -> Vec<String> {
    report["problems"][0]["submissions"]
        .as_array()
        .expect("submissions")
        .iter()
        .filter(|s| s["ok"] == Value::Bool(false))
        .map(|s| {
            format!(
                "{}: {}",
                s["name"].as_str().unwrap(),
                s["failures"][0].as_str().unwrap_or_default()
            )
        })
        .collect()
}

#[test]
fn unchanged_package_matches_its_baseline_and_reports_for_machines() {
    require_root!();
    let f = Fixture::new();
    let file = f.save_baseline();
    let text = std::fs::read_to_string(&file).expect("baseline written");
    let lines: Vec<&str> = text.lines().filter(|l| !l.starts_with('#')).collect();
    assert_eq!(lines.len(), 6 * 3, "6 submissions × 3 tests:\n{text}");
    let mut sorted = lines.clone();
    sorted.sort();
    assert_eq!(lines, sorted, "sorted, to diff well in git");
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("verify\taccepted/slow.c\t01-small\tAC\t")),
        "{text}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.starts_with("verify\ttime_limit_exceeded/spin_on_many.c\t02-medium\tTLE\t")),
        "{text}"
    );

    let junit = f.path("verify.xml");
    let r = f.verify(&[
        "--baseline",
        &file,
        "--json",
        "--junit",
        junit.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        !r.stderr.contains(['\r', '\x1b']),
        "no progress bar when stderr is not a terminal: {:?}",
        r.stderr
    );
    let report = json(&r);
    assert_eq!(report["baseline"]["changed"], Value::Array(vec![]));
    assert_eq!(report["problems"][0]["inputs_validated"], 3);
    // spin_on_many.c stops at its clear TLE on 02-medium: its 03-edge is not run. The
    // reference's 3 cells are gen --check's runs of it.
    assert_eq!(report["stats"]["test_runs"], 6 * 3 - 1 - 3);
    assert_eq!(report["stats"]["gen_check_cells"], 3);
    assert_eq!(report["stats"]["not_run_cells"], 1);
    let xml = std::fs::read_to_string(&junit).expect("junit written");
    assert_eq!(xml.matches("<testcase ").count(), 6, "{xml}");
    assert!(xml.contains("failures=\"0\" errors=\"0\""), "{xml}");
    assert!(
        xml.contains("name=\"wrong_answer/no_negatives.c\""),
        "{xml}"
    );
}

#[test]
fn changed_reference_solver_flips_verdicts() {
    require_root!();
    let f = Fixture::new();
    let file = f.save_baseline();
    // The admin "simplifies" the reference and drops the sign of negative values.
    f.edit("solution.c", |s| {
        s.replace("sum += a;", "sum += a < 0 ? -a : a;")
    });

    let r = f.verify(&[]);
    assert_eq!(
        r.code, 2,
        "answers no longer match the reference: a package error\n{}",
        r.stdout
    );
    assert!(r.stdout.contains("answers are out of date"), "{}", r.stdout);
    assert!(
        r.stdout
            .contains("03-edge.ans differs from the rebuilt file"),
        "{}",
        r.stdout
    );

    f.gen();
    let junit = f.path("verify.xml");
    let r = f.verify(&[
        "--baseline",
        &file,
        "--json",
        "--junit",
        junit.to_str().unwrap(),
    ]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    assert_eq!(
        changes(&report, "changed"),
        [
            "accepted/slow.c 03-edge AC->WA",
            "accepted/sum.c 03-edge AC->WA",
            "wrong_answer/no_negatives.c 03-edge WA->AC",
        ]
    );
    // spin_on_many.c stops at its clear TLE on 02-medium: 03-edge, where it would now be a
    // WA, is not run (SK in the baseline too), so neither compared nor a broken promise.
    assert_eq!(
        failed_submissions(&report),
        [
            "accepted/slow.c: got WA on 03-edge",
            "accepted/sum.c: got WA on 03-edge",
            "wrong_answer/no_negatives.c: expected WA on at least one test, got none",
        ]
    );
    let xml = std::fs::read_to_string(&junit).expect("junit written");
    assert!(xml.contains("failures=\"3\""), "{xml}");
    assert!(
        xml.contains("first difference at line 2"),
        "failures carry the diff:\n{xml}"
    );

    let r = f.verify(&["--baseline", &file]);
    assert_eq!(r.code, 1);
    assert!(
        r.stdout
            .contains("changed  verify  accepted/sum.c  03-edge  AC -> WA"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("3 verdicts changed, 0 removed, 0 added"),
        "{}",
        r.stdout
    );
}

#[test]
fn tightened_time_limit_turns_slow_accepted_into_tle() {
    require_root!();
    let f = Fixture::new();
    let file = f.save_baseline();
    f.edit("problem.toml", |s| {
        s.replace("time_limit = \"1s\"", "time_limit = \"250ms\"")
    });
    let r = f.verify(&["--baseline", &file, "--json"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    assert_eq!(
        changes(&report, "changed"),
        [
            "accepted/slow.c 01-small AC->TLE",
            "accepted/slow.c 02-medium AC->TLE",
            "accepted/slow.c 03-edge AC->TLE"
        ]
    );
    assert_eq!(
        failed_submissions(&report),
        ["accepted/slow.c: got TLE on 01-small, 02-medium, 03-edge"]
    );
    let slow = &submission(&report, "accepted/slow.c")["tests"][0];
    // The baseline saw slow.c at 400 ms: near the new limit, so it is judged alone (allowed
    // 1.5× the limit) and its message names the limit, not the 375 ms it was allowed.
    assert_eq!(slow["rerun"], true, "{slow:#}");
    assert!(
        slow["message"]
            .as_str()
            .unwrap()
            .contains("CPU time limit of 250 ms exceeded"),
        "{slow:#}"
    );
    // Without a baseline the parallel run (allowed 375 ms) decides: a clear TLE, whose message
    // names the limit too.
    let r = f.verify(&["--json"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    let slow = &submission(&report, "accepted/slow.c")["tests"][0];
    assert_eq!(slow["rerun"], false, "{slow:#}");
    assert!(
        slow["message"]
            .as_str()
            .unwrap()
            .contains("the limit is 250 ms"),
        "{slow:#}"
    );
}

#[test]
fn removed_test_is_reported_for_every_submission() {
    require_root!();
    let f = Fixture::new();
    let file = f.save_baseline();
    for ext in ["in", "ans"] {
        std::fs::remove_file(f.problem().join(format!("tests/03-edge.{ext}")))
            .expect("remove a test");
    }
    f.gen();
    let r = f.verify(&["--baseline", &file, "--json"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    assert_eq!(changes(&report, "changed"), Vec::<String>::new());
    assert_eq!(
        changes(&report, "removed"),
        [
            "accepted/slow.c 03-edge AC",
            "accepted/sum.c 03-edge AC",
            "runtime_error/abort_on_negative.c 03-edge RE",
            "solution.c 03-edge AC",
            "wrong_answer/no_negatives.c 03-edge WA",
        ]
    );
    assert_eq!(
        failed_submissions(&report),
        [
            "runtime_error/abort_on_negative.c: expected RE on at least one test, got none",
            "wrong_answer/no_negatives.c: expected WA on at least one test, got none",
        ],
        "the only test that caught them is gone"
    );
}

#[test]
fn package_errors_are_listed_together() {
    require_root!();
    let f = Fixture::new();
    let r = f.verify(&["--baseline", "no-such.baseline"]);
    assert_eq!(r.code, 2, "a missing baseline is a usage error");
    assert!(
        r.stderr
            .contains("failed to read baseline no-such.baseline"),
        "{}",
        r.stderr
    );

    let toml = f.problem().join("problem.toml");
    let good = std::fs::read_to_string(&toml).expect("problem.toml");
    f.edit("problem.toml", |s| {
        s.replace("\"1s\"", "\"soon\"")
            .replace("\"64MiB\"", "\"lots\"")
    });
    let r = f.verify(&[]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("problem.toml: time_limit:")
            && r.stdout.contains("problem.toml: memory_limit:"),
        "{}",
        r.stdout
    );

    std::fs::write(&toml, good).expect("restore problem.toml");
    let odd = f.problem().join("submissions/slow_accepted");
    std::fs::create_dir_all(&odd).expect("mkdir");
    std::fs::write(odd.join("x.c"), "int main(){}").expect("write");
    std::fs::write(f.problem().join("submissions/accepted/notes.docx"), "?").expect("write");
    let r = f.verify(&[]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("slow_accepted: not a verdict folder"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("notes.docx: unknown language"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("[2] accepted/slow.c"),
        "the rest is still judged:\n{}",
        r.stdout
    );

    let r = f.verify(&["--save-baseline", "b"]);
    assert!(
        r.stderr.contains("not saving b"),
        "no partial baselines: {}",
        r.stderr
    );
    assert!(!f.path("b").exists());
}

#[test]
fn near_limit_runs_are_rerun_alone_and_flips_there_are_noise() {
    require_root!();
    let f = Fixture::new();
    // slow.c burns 400 ms of CPU: with a 500 ms limit that is within 75% of it, too close to
    // call in a parallel run. A wall-time limit no load reaches, so that the CPU limit decides
    // (the default, 2 × CPU + 1 s, was reached first at a load of 15 to 25).
    f.edit("problem.toml", |s| {
        s.replace(
            "time_limit = \"1s\"",
            "time_limit = \"500ms\"\nwall_time_limit = \"60s\"",
        )
    });
    let file = f.save_baseline();
    let text = std::fs::read_to_string(&file).expect("baseline");
    // Pretend an earlier, disturbed run measured a TLE on one of those tests (what it ran is
    // unchanged).
    let line = text
        .lines()
        .find(|l| l.starts_with("verify\taccepted/slow.c\t01-small\t"))
        .expect("slow.c line")
        .to_string();
    let mut fields: Vec<&str> = line.split('\t').collect();
    fields[3..5].copy_from_slice(&["TLE", "750"]);
    std::fs::write(&file, text.replace(&line, &fields.join("\t"))).expect("edit baseline");

    let r = f.verify(&["--baseline", &file, "--json"]);
    assert_eq!(
        r.code, 0,
        "a flip at the limit is reported, not failed:\n{}{}",
        r.stdout, r.stderr
    );
    let report = json(&r);
    assert_eq!(changes(&report, "changed"), Vec::<String>::new());
    let near = report["baseline"]["near_limit"]
        .as_array()
        .expect("near_limit list");
    assert_eq!(near.len(), 1, "{report:#}");
    assert_eq!(near[0]["test"], "01-small");
    let slow = submission(&report, "accepted/slow.c");
    let cells = slow["tests"].as_array().unwrap();
    assert!(cells.iter().all(|c| c["verdict"] == "AC"), "{slow:#}");
    // The baseline saw slow.c at 400 ms of 500 on 02 and 03: those go straight to the runs
    // alone, with no parallel run. 01, a clear TLE (1.5×) in the edited baseline, runs in the
    // parallel phase with 1.5× the limit like any cell; it finishes there near the limit but
    // within it (400 ms of CPU by clock(), whatever the load), which settles it: alone it
    // would only be faster.
    let rerun: Vec<(&str, bool)> = cells
        .iter()
        .map(|c| (c["name"].as_str().unwrap(), c["rerun"] == true))
        .collect();
    assert_eq!(
        rerun,
        [("01-small", false), ("02-medium", true), ("03-edge", true)],
        "{slow:#}"
    );
    let stats = &report["stats"];
    assert!(stats["reruns"].as_u64().unwrap() >= 2, "{stats:#}");
    assert_eq!(stats["settled_within_limit"], 1, "{stats:#}");
    assert_eq!(stats["alone_by_baseline"], 2, "{stats:#}");
    // spin_on_many.c's 03-edge is not run: after its clear TLE on 02-medium; the reference's
    // 3 cells are gen --check's runs of it. No cell is judged twice in the parallel phase.
    assert_eq!(stats["test_runs"], 6 * 3 - 2 - 1 - 3, "{stats:#}");
    assert_eq!(stats["gen_check_cells"], 3, "{stats:#}");
    assert_eq!(stats["rerun_tests"], 2, "{stats:#}");

    let r = f.verify(&["--baseline", &file]);
    assert!(
        r.stdout
            .contains("near the limit  verify  accepted/slow.c  01-small  TLE 750 ms -> AC"),
        "{}",
        r.stdout
    );
    let row = r
        .stdout
        .lines()
        .find(|l| l.trim_start().starts_with("02-medium"))
        .expect("matrix row");
    assert!(row.contains('*'), "re-runs are marked: {row}");
}

#[test]
fn calibrate_proposes_the_kattis_limit_names_the_decider_and_writes_it() {
    require_root!();
    let f = Fixture::new();
    // slow.c burns 400 ms of CPU on every test: the slowest accepted run. × 2 is over 800 ms, so
    // with a 300 ms resolution the limit is 900 or 1200 ms, never the committed 1 s.
    let r = f.ojd(
        "calibrate",
        &["--resolution", "300ms", "--repeats", "2", "--json"],
    );
    assert_eq!(r.code, 1, "differs from 1s:\n{}{}", r.stdout, r.stderr);
    let cal = &json(&r)[0];
    assert_eq!(
        cal["accepted"][0]["submission"], "accepted/slow.c",
        "{cal:#}"
    );
    let slowest = cal["accepted"][0]["normalized_ms"].as_u64().expect("ms");
    assert!((395..700).contains(&slowest), "{cal:#}");
    let proposed = cal["proposed_ms"].as_u64().expect("ms");
    assert_eq!(proposed, (2 * slowest).div_ceil(300) * 300, "{cal:#}");
    // spin_on_many loops forever on 02-medium: it exceeds 1.5 × the limit there.
    assert_eq!(
        cal["tle"][0]["submission"],
        "time_limit_exceeded/spin_on_many.c"
    );
    assert_eq!(cal["tle"][0]["exceeds"], true, "{cal:#}");
    assert_eq!(cal["tle"][0]["test"], "02-medium", "{cal:#}");

    let r = f.ojd(
        "calibrate",
        &["--resolution", "300ms", "--repeats", "1", "--write"],
    );
    assert_eq!(r.code, 0, "written:\n{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout.contains("decided by accepted/slow.c on"),
        "{}",
        r.stdout
    );
    let toml = std::fs::read_to_string(f.problem().join("problem.toml")).expect("problem.toml");
    let line = toml
        .lines()
        .find(|l| l.starts_with("time_limit = "))
        .expect("a time_limit line");
    assert!(
        line == "time_limit = \"900ms\"" || line == "time_limit = \"1200ms\"",
        "{line}"
    );
    assert!(toml.starts_with("# A small problem"), "comments are kept");
}

#[test]
fn a_verdict_that_hangs_on_the_limit_is_reported_as_sensitive() {
    require_root!();
    let f = Fixture::new();
    // slow.c needs 400 ms: a TLE at 350 ms but accepted at 1.5 × 350 = 525 ms. The CPU limit
    // decides, not a wall-time limit reached under load.
    f.edit("problem.toml", |s| {
        s.replace(
            "time_limit = \"1s\"",
            "time_limit = \"350ms\"\nwall_time_limit = \"60s\"",
        )
    });
    let r = f.verify(&["--json"]);
    assert_eq!(r.code, 1, "slow.c fails:\n{}{}", r.stdout, r.stderr);
    let report = json(&r);
    let warnings: Vec<&str> = report["problems"][0]["warnings"]
        .as_array()
        .expect("warnings")
        .iter()
        .filter_map(Value::as_str)
        .collect();
    for test in ["01-small", "02-medium", "03-edge"] {
        let want =
            format!("accepted/slow.c on {test}: sensitive to the time limit: TLE at 350 ms, AC in");
        assert!(
            warnings.iter().any(|w| w.starts_with(&want)),
            "{want}\n{warnings:#?}"
        );
    }
    assert!(
        !warnings.iter().any(|w| w.contains("sum.c")),
        "{warnings:#?}"
    );
}

#[test]
fn colours_follow_the_color_flag_over_no_color() {
    require_root!();
    let f = Fixture::new();
    // stdout is a pipe: no colours by default, whatever NO_COLOR says `--color always` wins.
    for (args, coloured) in [(&[][..], false), (&["--color", "always"][..], true)] {
        let out = common::ojd()
            .arg("verify")
            .arg(f.problem())
            .arg("--config")
            .arg(f.path("config.toml"))
            .args(args)
            .env("NO_COLOR", "1")
            .env_remove("CLICOLOR_FORCE")
            .output()
            .expect("ojd runs");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(stdout.contains("all as expected"), "{args:?}: {stdout}");
        assert_eq!(stdout.contains("\x1b["), coloured, "{args:?}: {stdout:?}");
    }
}

#[test]
fn a_reformatted_reference_makes_the_answers_lock_stale_until_gen() {
    require_root!();
    let f = Fixture::new();
    // Same program, different text: the answers are right but answers.lock no longer records
    // them for this reference, so `gen --check` (which verify runs) must say so.
    f.edit("solution.c", |s| format!("/* reformatted */\n{s}"));
    let r = f.verify(&[]);
    assert_eq!(
        r.code, 2,
        "a stale lock is a package error:\n{}{}",
        r.stdout, r.stderr
    );
    assert!(
        r.stdout.contains("answers.lock: out of date for ")
            || r.stderr.contains("answers.lock: out of date for "),
        "{}{}",
        r.stdout,
        r.stderr
    );
    f.gen();
    let r = f.verify(&[]);
    assert_eq!(r.code, 0, "after gen:\n{}{}", r.stdout, r.stderr);
}

/// The first problem's submission `name`, from a `--json` report.
fn submission<'a>(report: &'a Value, name: &str) -> &'a Value {
    report["problems"][0]["submissions"]
        .as_array()
        .expect("submissions")
        .iter()
        .find(|s| s["name"] == name)
        .unwrap_or_else(|| panic!("{name} judged: {report:#}"))
}

/// spin_on_many.c's cell on 02-medium (it loops forever there), from a `--json` report.
fn spin_cell(report: &Value) -> Value {
    submission(report, "time_limit_exceeded/spin_on_many.c")["tests"]
        .as_array()
        .expect("tests")
        .iter()
        .find(|c| c["name"] == "02-medium")
        .expect("02-medium")
        .clone()
}

/// Judged with 1.5 × the 1 s limit (not at the exact limit, a route issue 26 removed): a TLE
/// the sandbox stopped at the slack (`past_margin`), with CPU time at 1.47 × the limit or more,
/// or, on a machine so loaded that the spinner got little CPU, a TLE by the wall clock (twice
/// the CPU limit or more) at 1.5 × its wall limit — never a run stopped at the exact CPU limit.
fn assert_judged_with_slack(report: &Value, why: &str) {
    let c = spin_cell(report);
    assert_eq!(c["verdict"], "TLE", "{why}: {c:#}");
    assert_eq!(c["past_margin"], true, "{why}: {c:#}");
    assert_eq!(c["sensitive"], false, "{why}: {c:#}");
    assert!(
        c["cpu_ms"].as_u64().unwrap() >= 1470 || c["wall_ms"].as_u64().unwrap() >= 2 * 1470,
        "{why}: {c:#}"
    );
}

/// A TLE the baseline saw clear of the limit (stopped at 1.5 ×), of the same source, input and
/// limit, is judged in the parallel phase with 1.5 × the limit like every other cell (issue 26:
/// the exact-limit route and its speed guard, which tripped on the baseline's own machine, are
/// gone); the report says nothing of either.
#[test]
fn a_baselines_clear_tle_is_judged_with_the_slack() {
    require_root!();
    let f = Fixture::new();
    let file = f.save_baseline();
    let text = std::fs::read_to_string(&file).expect("baseline");
    assert!(
        text.starts_with("# ojd verify baseline, format 2\n"),
        "{text}"
    );
    let line = text
        .lines()
        .find(|l| l.starts_with("verify\ttime_limit_exceeded/spin_on_many.c\t02-medium\tTLE\t"))
        .expect("the TLE cell is recorded");
    let fields: Vec<&str> = line.split('\t').collect();
    assert_eq!(fields.len(), 8, "{line}");
    assert!(
        fields[4].parse::<u64>().unwrap() >= 1400,
        "a clear TLE in the baseline: {line}"
    );
    assert_eq!(fields[5], "1000", "the limit it ran with: {line}");
    let sha256 = |rel: &str| {
        use sha2::Digest;
        let bytes = std::fs::read(f.problem().join(rel)).expect("fixture file");
        format!("{:x}", sha2::Sha256::digest(bytes))[..16].to_string()
    };
    assert_eq!(
        fields[6..],
        [
            sha256("submissions/time_limit_exceeded/spin_on_many.c"),
            sha256("tests/02-medium.in")
        ],
        "the start of what sha256sum prints for the source and the input: {line}"
    );

    let r = f.verify(&["--baseline", &file, "--json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    assert_judged_with_slack(&report, "an unchanged clear TLE");
    let c = spin_cell(&report);
    if report["stats"]["starved_cells"] == 1 {
        // Starved of CPU three times in parallel (a host fault, no verdict): judged alone,
        // with 1.5× the limit as well.
        assert_eq!(c["rerun"], true, "{c:#}");
    } else {
        assert_eq!(c["rerun"], false, "{c:#}");
        assert!(
            c["message"]
                .as_str()
                .unwrap()
                .ends_with("(a parallel run with 50% slack)"),
            "{c:#}"
        );
    }
    assert!(c.get("shortcut").is_none(), "{c:#}");
    let stats = &report["stats"];
    for gone in ["at_exact_limit", "speed_guard"] {
        assert!(stats.get(gone).is_none(), "{gone}: {stats:#}");
    }
    // 6 × 3 cells, less the spinner's 03-edge (not run after its clear TLE) and the
    // reference's 3 (gen --check's runs): each run once.
    assert_eq!(stats["test_runs"], 14, "{stats:#}");
    let r = f.verify(&["--baseline", &file]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("14 test runs + "), "{}", r.stdout);
    assert!(!r.stdout.contains("exact limit"), "{}", r.stdout);
}

/// The baseline file with `test`'s line of slow.c given `verdict` and `cpu_ms`.
fn edit_baseline_line(text: &str, test: &str, verdict: &str, cpu_ms: &str) -> String {
    let line = text
        .lines()
        .find(|l| l.starts_with(&format!("verify\taccepted/slow.c\t{test}\t")))
        .expect("slow.c line")
        .to_string();
    let mut fields: Vec<&str> = line.split('\t').collect();
    fields[3..5].copy_from_slice(&[verdict, cpu_ms]);
    text.replace(&line, &fields.join("\t"))
}

#[test]
fn time_scale_judges_at_scaled_limits_and_compares_there() {
    require_root!();
    let f = Fixture::new();
    // slow.c burns 400 ms of CPU: a fifth of a 2 s limit (under the third where a flip with
    // TLE is timing), two fifths of it at --time-scale 0.5 (1 s, inside that band). A wall
    // limit no load reaches, so that the CPU limit decides.
    f.edit("problem.toml", |s| {
        s.replace(
            "time_limit = \"1s\"",
            "time_limit = \"2s\"\nwall_time_limit = \"60s\"",
        )
    });
    let file = f.save_baseline();
    let clean = std::fs::read_to_string(&file).expect("baseline");
    // Saving a baseline at another scale is refused: it records the limits as written.
    let other = f.path("scaled.baseline").display().to_string();
    let r = f.verify(&["--save-baseline", &other, "--time-scale", "0.5"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(r.stderr.contains("--time-scale"), "{}", r.stderr);
    assert!(!Path::new(&other).exists());
    let r = f.verify(&["--time-scale", "0"]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);

    // An earlier run saw slow.c time out on 01-small (at 1.5× the limit).
    std::fs::write(&file, edit_baseline_line(&clean, "01-small", "TLE", "3000"))
        .expect("edit baseline");
    // At the limits as written, 400 ms of 2 s is far below the limit: the flip is a change.
    let r = f.verify(&["--baseline", &file, "--json"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    assert_eq!(
        changes(&report, "changed"),
        ["accepted/slow.c 01-small TLE->AC"]
    );
    // At half the limits (a machine twice as slow), 400 ms of 1 s is near the limit: the same
    // flip is timing, listed, not failed.
    let r = f.verify(&["--baseline", &file, "--json", "--time-scale", "0.5"]);
    assert_eq!(
        r.code, 0,
        "a flip near the scaled limit is reported, not failed:\n{}{}",
        r.stdout, r.stderr
    );
    let report = json(&r);
    assert_eq!(changes(&report, "changed"), Vec::<String>::new());
    assert_eq!(
        changes(&report, "near_limit"),
        ["accepted/slow.c 01-small TLE->AC"]
    );
    let stats = &report["stats"];
    assert_eq!(stats["time_scale"], 0.5, "{stats:#}");
    let slow = submission(&report, "accepted/slow.c");
    assert_eq!(slow["limit_ms"], 1000, "{slow:#}");
    // Recorded times stay as measured.
    let cpu = slow["tests"][0]["cpu_ms"].as_u64().unwrap();
    assert!((300..1000).contains(&cpu), "{slow:#}");
    let spin = submission(&report, "time_limit_exceeded/spin_on_many.c");
    assert_eq!(spin["ok"], true, "{spin:#}");

    // A different answer is no timing matter at any scale.
    std::fs::write(&file, edit_baseline_line(&clean, "02-medium", "WA", "400"))
        .expect("edit baseline");
    for scale in ["0.5", "2.0"] {
        let r = f.verify(&["--baseline", &file, "--json", "--time-scale", scale]);
        assert_eq!(r.code, 1, "at {scale}:\n{}{}", r.stdout, r.stderr);
        let report = json(&r);
        assert_eq!(
            changes(&report, "changed"),
            ["accepted/slow.c 02-medium WA->AC"],
            "at {scale}"
        );
    }
    // The summary says the limits were scaled.
    let r = f.verify(&["--time-scale", "2"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("time scale 2× (every limit ×2: as on a machine twice as fast)"),
        "{}",
        r.stdout
    );
}

/// Moves `accepted/slow.c` (400 ms of CPU time on every test, by `clock()`, so the same on any
/// machine and at any load) to `time_limit_exceeded/`.
fn slow_as_tle(f: &Fixture) {
    let dir = f.problem().join("submissions/time_limit_exceeded");
    std::fs::rename(
        f.problem().join("submissions/accepted/slow.c"),
        dir.join("slow.c"),
    )
    .expect("move slow.c");
}

#[test]
fn the_kattis_margins_are_the_packages_promise() {
    require_root!();
    let f = Fixture::new();
    // A 200 ms limit: slow.c's 400 ms are past 1.5× (300 ms), so it is stopped there, a clear
    // TLE by the default time_limit_to_tle.
    slow_as_tle(&f);
    f.edit("problem.toml", |s| {
        s.replace("time_limit = \"1s\"", "time_limit = \"200ms\"")
    });
    let r = f.verify(&["--json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    let slow = submission(&report, "time_limit_exceeded/slow.c");
    assert_eq!(slow["timing_fragile"], serde_json::json!([]), "{slow:#}");

    // The package asks for 3×: slow.c finishes at 400 ms, within 600, on every test; it is a
    // TLE only on machines not 2× faster. Timing-fragile: a failure naming the cells.
    f.edit("problem.toml", |s| {
        format!("{s}\n[limits]\ntime_limit_to_tle = 3\n")
    });
    let r = f.verify(&["--json"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    let failed = failed_submissions(&report);
    assert_eq!(failed.len(), 1, "{failed:?}");
    assert!(
        failed[0].starts_with("time_limit_exceeded/slow.c: timing-fragile: TLE on 01-small ("),
        "{failed:?}"
    );
    assert!(failed[0].contains("200 ms × 3 = 600 ms"), "{failed:?}");
    let slow = submission(&report, "time_limit_exceeded/slow.c");
    assert_eq!(
        slow["timing_fragile"].as_array().unwrap().len(),
        3,
        "{slow:#}"
    );
    // Allowed 3× the limit, the runs show that it finished (CPU time under 600 ms), and the
    // spinner that never ends is still clear: stopped at 600 ms.
    for c in slow["tests"].as_array().unwrap() {
        let ms = c["cpu_ms"].as_u64().unwrap();
        assert!((390..590).contains(&ms), "{c:#}");
    }
    let spin = &submission(&report, "time_limit_exceeded/spin_on_many.c")["tests"];
    let stopped = spin
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["verdict"] == "TLE")
        .expect("spin_on_many is a TLE on 02-medium");
    assert_eq!(stopped["past_margin"], true, "{stopped:#}");
    for c in slow["tests"].as_array().unwrap() {
        assert_eq!(c["past_margin"], false, "{c:#}");
    }

    // The text report says it too.
    let r = f.verify(&[]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    assert!(r.stdout.contains("timing-fragile"), "{}", r.stdout);
}

#[test]
fn an_accepted_run_over_limit_by_ac_to_time_limit_is_a_timing_fragile_warning() {
    require_root!();
    let f = Fixture::new();
    // slow.c's 400 ms are within 1 s / 2 (the default): nothing to say.
    let r = f.verify(&["--json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    let warned = |report: &Value| {
        report["problems"][0]["warnings"]
            .as_array()
            .unwrap()
            .iter()
            .filter_map(|w| w.as_str())
            .filter(|w| w.contains("timing-fragile"))
            .map(str::to_string)
            .collect::<Vec<_>>()
    };
    assert_eq!(warned(&report), Vec::<String>::new());
    // The package promises 4×: 400 ms are over 250. A warning naming the slowest test and
    // every test over the line; the verdicts still stand (exit 0).
    f.edit("problem.toml", |s| {
        format!("{s}\n[limits]\nac_to_time_limit = 4\n")
    });
    let r = f.verify(&["--json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    let w = warned(&report);
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("accepted/slow.c: timing-fragile: accepted in "),
        "{w:?}"
    );
    assert!(
        w[0].contains("(1000 ms / 4 = 250 ms); 3 test(s) over it"),
        "{w:?}"
    );
    let slow = submission(&report, "accepted/slow.c");
    assert_eq!(
        slow["timing_fragile"].as_array().unwrap().len(),
        3,
        "{slow:#}"
    );
    // A bad margin is a package error naming the file and key.
    f.edit("problem.toml", |s| {
        s.replace("ac_to_time_limit = 4", "ac_to_time_limit = 0.5")
    });
    let r = f.verify(&[]);
    assert_eq!(r.code, 2, "{}{}", r.stdout, r.stderr);
    assert!(
        (r.stdout.clone() + &r.stderr)
            .contains("problem.toml: limits.ac_to_time_limit: expected a number from 1"),
        "{}{}",
        r.stdout,
        r.stderr
    );
}

/// The results cache's counts of a `--json` report: (cells reused, gen --check reused, cells).
fn reused(report: &Value) -> (u64, u64, u64) {
    let cells = report["problems"][0]["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["tests"].as_array().unwrap().len() as u64)
        .sum();
    (
        report["stats"]["reused_cells"].as_u64().unwrap(),
        report["stats"]["reused_gen_checks"].as_u64().unwrap(),
        cells,
    )
}

/// The (submission, test) cells a report judged now rather than reused, derived or not run,
/// sorted.
fn judged_now(report: &Value) -> Vec<String> {
    let mut v = Vec::new();
    for s in report["problems"][0]["submissions"].as_array().unwrap() {
        for c in s["tests"].as_array().unwrap() {
            if c["reused"] == false && c["derived"] == false && c["not_run"] == false {
                v.push(format!(
                    "{} {}",
                    s["name"].as_str().unwrap(),
                    c["name"].as_str().unwrap()
                ));
            }
        }
    }
    v.sort();
    v
}

#[test]
fn the_results_cache_reuses_exactly_the_unchanged_cells() {
    require_root!();
    let f = Fixture::new();
    let dir = f.path("results-cache").display().to_string();
    let cached = |extra: &[&str]| {
        let mut args = vec!["--json", "--cache-dir", dir.as_str()];
        args.extend_from_slice(extra);
        let out = common::ojd()
            .arg("verify")
            .arg(f.problem())
            .arg("--config")
            .arg(f.path("config.toml"))
            .args(&args)
            .current_dir(f.tmp.path())
            .output()
            .expect("ojd runs");
        let r = Run::from(out);
        assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
        json(&r)
    };
    // Cold: everything judged. Then nothing changed: everything reused, and JUnit says so.
    let first = cached(&[]);
    let (reused0, gen0, cells) = reused(&first);
    assert_eq!((reused0, gen0), (0, 0));
    assert_eq!(cells, 18, "6 submissions × 3 tests");
    // spin_on_many.c's 03-edge is not run (after its clear TLE on 02-medium): nothing to store.
    assert_eq!(first["stats"]["not_run_cells"], 1);
    let junit = f.path("verify.xml").display().to_string();
    let again = cached(&["--junit", &junit]);
    assert_eq!(reused(&again), (17, 1, 18));
    assert_eq!(again["stats"]["test_runs"], 0);
    // Nothing is compiled either: every cell of every submission is known.
    assert_eq!(again["stats"]["compilations"], 0);
    assert_eq!(judged_now(&again), Vec::<String>::new());
    let xml = std::fs::read_to_string(&junit).unwrap();
    assert_eq!(xml.matches("(reused from the cache)").count(), 17, "{xml}");
    assert_eq!(xml.matches("(not run: ").count(), 1, "{xml}");
    // The verdicts and times are the first run's.
    let ms = |r: &Value| submission(r, "accepted/slow.c")["tests"][1]["cpu_ms"].clone();
    assert_eq!(ms(&again), ms(&first));
    // --no-cache judges everything again.
    assert_eq!(reused(&cached(&["--no-cache"])), (0, 0, 18));

    // A changed input: only that test's cells (every submission's), and gen --check again.
    f.edit("tests/03-edge.in", |s| s.replacen("0\n", "1 7\n", 1));
    f.gen();
    let r = cached(&[]);
    let want: Vec<String> = [
        "accepted/slow.c",
        "accepted/sum.c",
        "runtime_error/abort_on_negative.c",
        "solution.c",
        "wrong_answer/no_negatives.c",
    ]
    .iter()
    .map(|s| format!("{s} 03-edge"))
    .collect();
    assert_eq!(judged_now(&r), want);
    assert_eq!(reused(&r), (12, 0, 18));

    // A changed source: only that submission's cells.
    f.edit("submissions/accepted/sum.c", |s| {
        format!("/* edited */\n{s}")
    });
    let r = cached(&[]);
    assert_eq!(
        judged_now(&r),
        [
            "accepted/sum.c 01-small",
            "accepted/sum.c 02-medium",
            "accepted/sum.c 03-edge"
        ]
    );
    assert_eq!(reused(&r).1, 1, "the package's gen --check is unchanged");
    assert_eq!(r["stats"]["compilations"], 1, "only the edited submission");

    // A changed limit: every cell.
    f.edit("problem.toml", |s| {
        s.replace("time_limit = \"1s\"", "time_limit = \"900ms\"")
    });
    assert_eq!(reused(&cached(&[])).0, 0);
    assert_eq!(reused(&cached(&[])).0, 17);

    // Another compiler (here: its flags, part of the compile cache's key): every C cell.
    let config = f.path("config.toml");
    let text = std::fs::read_to_string(&config).unwrap();
    std::fs::write(
        &config,
        format!(
            "{text}\n[languages.c]\ncompile = [\"/usr/bin/gcc\", \"-std=c11\", \"-O1\", \"-pipe\", \"-o\", \"main\", \"main.c\", \"-lm\"]\n"
        ),
    )
    .unwrap();
    let r = cached(&[]);
    assert_eq!(reused(&r), (0, 0, 18));
}

/// Prints 0 for every line after 360 ms of CPU time (by `clock()`: the same on any machine).
const SLOW_WRONG: &str = r#"#include <stdio.h>
#include <time.h>
int main(void) {
    volatile unsigned long spin = 0;
    while (clock() < CLOCKS_PER_SEC * 36 / 100) spin++;
    int t;
    if (scanf("%d", &t) != 1) return 0;
    while (t--) puts("0");
    return 0;
}
"#;

#[test]
fn a_wrong_answer_with_extra_time_keeps_its_promise_under_the_packages_margin() {
    require_root!();
    let f = Fixture::new();
    std::fs::remove_file(f.problem().join("submissions/accepted/slow.c")).expect("rm slow.c");
    std::fs::write(
        f.problem().join("submissions/wrong_answer/slow_wrong.c"),
        SLOW_WRONG,
    )
    .expect("write");
    // A wall-time limit no load reaches: the CPU limit decides, and the runs finish.
    f.edit("problem.toml", |s| {
        s.replace(
            "time_limit = \"1s\"",
            "time_limit = \"200ms\"\nwall_time_limit = \"60s\"",
        )
    });
    // By the default margin (1.5×: 300 ms) it is a TLE everywhere: a WA submission that never
    // answers within the high limit breaks its promise.
    let r = f.verify(&["--json"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    assert_eq!(
        failed_submissions(&report),
        ["wrong_answer/slow_wrong.c: got TLE on 01-small, 02-medium, 03-edge"]
    );
    // The package's own margin (2.5×: 500 ms), as problemtools' guess states 4: it answers
    // (wrongly) within the high limit, which keeps a WA promise, as problemtools judges it.
    f.edit("problem.toml", |s| {
        format!("{s}\n[limits]\ntime_limit_to_tle = 2.5\n")
    });
    let r = f.verify(&["--json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    let s = submission(&report, "wrong_answer/slow_wrong.c");
    for c in s["tests"].as_array().unwrap() {
        assert_eq!(c["verdict"], "TLE", "at the limit: {c:#}");
        assert_eq!(c["finished_as"], "WA", "at 2.5× the limit: {c:#}");
        assert_eq!(c["sensitive"], true, "{c:#}");
        // Alone it would end TLE or WA, and its promise counts both as WA: its parallel run
        // settles it, no run alone.
        assert_eq!(c["rerun"], false, "{c:#}");
    }
    let stats = &report["stats"];
    assert_eq!(stats["settled_by_promise"], 3, "{stats:#}");
    assert_eq!(stats["rerun_tests"], 0, "{stats:#}");
    // The brute force is still stopped at the package's line: a clear TLE.
    let spin = spin_cell(&report);
    assert_eq!(spin["past_margin"], true, "{spin:#}");
}

/// 400 ms of CPU time (by `clock()`), then right on short inputs and forever on 02-medium.
const SLOW_THEN_SPIN: &str = r#"#include <stdio.h>
#include <time.h>
int main(void) {
    volatile unsigned long spin = 0;
    while (clock() < CLOCKS_PER_SEC * 2 / 5) spin++;
    int t, k;
    long long a;
    if (scanf("%d", &t) != 1) return 0;
    if (t > 4) for (;;) spin++;
    while (t--) {
        long long sum = 0;
        scanf("%d", &k);
        while (k--) {
            scanf("%lld", &a);
            sum += a;
        }
        printf("%lld\n", sum);
    }
    return 0;
}
"#;

#[test]
fn finishes_within_the_limit_are_not_judged_alone_near_the_limit() {
    require_root!();
    let f = Fixture::new();
    std::fs::write(
        f.problem()
            .join("submissions/time_limit_exceeded/slow_then_spin.c"),
        SLOW_THEN_SPIN,
    )
    .expect("write");
    // 450 ms: its 400 ms on 01-small is near the limit (over 75% of it) but within it: alone it
    // would only be faster, so its parallel run settles it. On 02-medium it is stopped at 1.5×,
    // a clear TLE; 03-edge, after the clear TLE, is not run. A wall-time
    // limit no load reaches, as in the tests above: the CPU limit decides (a busy suite once
    // kept its 403 ms run blocked past twice the limit and a second, a wall-time TLE).
    f.edit("problem.toml", |s| {
        s.replace(
            "time_limit = \"1s\"",
            "time_limit = \"450ms\"\nwall_time_limit = \"60s\"",
        )
    });
    let r = f.verify(&["--json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    let sub = submission(&report, "time_limit_exceeded/slow_then_spin.c");
    let cells = sub["tests"].as_array().unwrap();
    assert_eq!(cells[0]["name"], "01-small");
    assert_eq!(cells[0]["verdict"], "AC", "{:#}", cells[0]);
    assert_eq!(
        cells[0]["rerun"], false,
        "settled by the parallel run: {:#}",
        cells[0]
    );
    assert_eq!(cells[2]["name"], "03-edge");
    assert_eq!(cells[2]["verdict"], "SK", "{:#}", cells[2]);
    assert_eq!(cells[2]["not_run"], true, "{:#}", cells[2]);
    let spin = cells.iter().find(|c| c["name"] == "02-medium").unwrap();
    assert_eq!(spin["past_margin"], true, "{spin:#}");
    // accepted/slow.c's 400 ms are as near, and as much within the limit: settled the same.
    let slow = submission(&report, "accepted/slow.c");
    for c in slow["tests"].as_array().unwrap() {
        assert_eq!(c["verdict"], "AC", "{c:#}");
        assert_eq!(c["rerun"], false, "{c:#}");
        assert!(c["cpu_ms"].as_u64().unwrap() <= 450, "{c:#}");
    }
    let stats = &report["stats"];
    assert_eq!(stats["settled_within_limit"], 4, "{stats:#}");
    assert_eq!(stats["settled_by_promise"], 0, "{stats:#}");
    assert_eq!(stats["rerun_tests"], 0, "{stats:#}");
}

/// The committed problems against the committed baseline as on a machine twice as slow and one
/// twice as fast (`--time-scale 0.5` and `2`): both must pass, with the results cache off. Each
/// scale is a full verify, so this is opt-in (`cargo test --test integration -- --ignored
/// verify::committed_problems`); `.ci/run` runs the same two verifies with the release build
/// after the plain verify, deriving the cells its measurements decide (`verify-scaled`), and
/// `.ci/robustness` adds the plain verify under a CPU and memory hog (`.ci/hog`).
#[test]
#[ignore = "two full verifies of problems/: run it on its own with --ignored"]
fn committed_problems_hold_at_half_and_twice_the_speed() {
    require_root!(exclusive);
    let root = common::root();
    for scale in ["0.5", "2"] {
        let out = common::ojd()
            .current_dir(&root)
            .args([
                "verify",
                "--baseline",
                "testdata/ci/verify.baseline",
                "--no-cache",
                "--time-scale",
                scale,
            ])
            .output()
            .expect("ojd runs");
        let r = Run::from(out);
        assert_eq!(
            r.code, 0,
            "at --time-scale {scale}:\n{}{}",
            r.stdout, r.stderr
        );
        assert!(r.stdout.contains("all as expected"), "{}", r.stdout);
    }
}

/// Issue 25 item 6: an interactive submission in a deadlock (its guess waits unflushed in its
/// buffer while it waits for the interactor's reply) is a TLE by the wall clock with almost no
/// CPU time. Alone it would wait exactly as long, so its parallel run settles it: no run alone
/// (they cost a wall limit each, three times), and the verdict is the same TLE.
#[test]
fn an_interactive_deadlock_is_settled_at_once_not_judged_alone() {
    require_root!();
    let tmp = tempfile::tempdir().expect("temp dir");
    let problem = tmp.path().join("interactive");
    copy_dir(&testdata("interactive"), &problem);
    let out = common::ojd()
        .args(["verify", "--json", "--no-cache", "--cache-dir"])
        .arg(tmp.path().join("cache"))
        .arg(&problem)
        .current_dir(tmp.path())
        .output()
        .expect("ojd runs");
    let r = Run::from(out);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    let stats = &report["stats"];
    let no_flush = submission(&report, "time_limit_exceeded/no_flush.c");
    let all = no_flush["tests"].as_array().expect("cells");
    // It stops at its first clear TLE (an idle one is clear): the rest are not run.
    let cells: Vec<&Value> = all.iter().filter(|c| c["not_run"] == false).collect();
    assert_eq!(cells.len(), 1, "{no_flush:#}");
    assert_eq!(stats["not_run_cells"].as_u64(), Some(all.len() as u64 - 1));
    for c in &cells {
        assert_eq!(c["verdict"], "TLE", "{c:#}");
        assert_eq!(c["rerun"], false, "settled by its parallel run: {c:#}");
        assert!(c["cpu_ms"].as_u64().unwrap() < 50, "idle: {c:#}");
    }
    assert_eq!(
        stats["settled_idle"].as_u64(),
        Some(cells.len() as u64),
        "{stats:#}"
    );
    // Each cell waited out one wall limit in its parallel run, not three more alone: no test was
    // run again (the stats count it; a wall-clock bound here would fail on a loaded machine).
    assert_eq!(stats["rerun_tests"], 0, "{stats:#}");
}

/// The (submission, test) cells of a report with `flag` set, sorted.
fn cells_with(report: &Value, flag: &str) -> Vec<String> {
    let mut v = Vec::new();
    for s in report["problems"][0]["submissions"].as_array().unwrap() {
        for c in s["tests"].as_array().unwrap() {
            if c[flag] == true {
                v.push(format!(
                    "{} {}",
                    s["name"].as_str().unwrap(),
                    c["name"].as_str().unwrap()
                ));
            }
        }
    }
    v.sort();
    v
}

#[test]
fn a_scaled_run_reuses_the_plain_runs_decided_cells_and_judges_exactly_the_rest() {
    require_root!();
    let f = Fixture::new();
    let base = f.save_baseline();
    let dir = f.path("results-cache").display().to_string();
    let run = |extra: &[&str]| {
        let mut args = vec![
            "--json",
            "--baseline",
            base.as_str(),
            "--cache-dir",
            dir.as_str(),
        ];
        args.extend_from_slice(extra);
        let r = f.ojd("verify", &args);
        assert_eq!(r.code, 0, "{extra:?}:\n{}{}", r.stdout, r.stderr);
        json(&r)
    };
    // The plain run fills the cache. spin_on_many.c is a clear TLE on 02-medium, so its
    // 03-edge is not run.
    let plain = run(&[]);
    assert_eq!(plain["stats"]["derived_cells"], 0);
    assert_eq!(
        cells_with(&plain, "not_run"),
        ["time_limit_exceeded/spin_on_many.c 03-edge"]
    );
    let every: Vec<String> = judged_now(&plain);
    assert_eq!(every.len(), 17, "{every:?}");

    // As on a machine twice as slow (limits 500 ms, runs killed at 750 ms). slow.c's 400 ms
    // are not under 75% of 500 ms: not derived, judged again (an AC near the limit).
    // Every other finish is far below the limit, and the spinner was stopped at 1500 ms, past
    // 750 ms: derived.
    let half = run(&["--time-scale", "0.5"]);
    let slow: Vec<String> = ["01-small", "02-medium", "03-edge"]
        .iter()
        .map(|t| format!("accepted/slow.c {t}"))
        .collect();
    assert_eq!(judged_now(&half), slow, "{:#}", half["stats"]);
    let derived = cells_with(&half, "derived");
    assert_eq!(derived.len(), 14, "{derived:?}");
    assert!(derived.iter().all(|c| !c.starts_with("accepted/slow.c")));
    assert_eq!(half["stats"]["derived_cells"], 14);
    assert_eq!(half["stats"]["reused_cells"], 0);
    let spin = spin_cell(&half);
    assert_eq!(spin["verdict"], "TLE", "{spin:#}");
    assert_eq!(spin["past_margin"], true, "{spin:#}");
    assert!(
        spin["message"].as_str().unwrap().contains("derived"),
        "{spin:#}"
    );
    for c in submission(&half, "accepted/slow.c")["tests"]
        .as_array()
        .unwrap()
    {
        assert_eq!(c["verdict"], "AC", "400 ms of 500: {c:#}");
    }
    // The spinner's submission needed no compiling: its cells up to its clear TLE are known.
    assert_eq!(half["stats"]["compilations"], 1, "{:#}", half["stats"]);

    // As on a machine twice as fast (limits 2 s, killed at 3 s): every finish is decided, the
    // spinner's TLE (stopped at 1.5 s) is not: judged again, and nothing else.
    let twice = run(&["--time-scale", "2"]);
    assert_eq!(
        judged_now(&twice),
        ["time_limit_exceeded/spin_on_many.c 02-medium"],
        "{:#}",
        twice["stats"]
    );
    assert_eq!(twice["stats"]["derived_cells"], 16);
    let spin = spin_cell(&twice);
    assert_eq!(spin["verdict"], "TLE", "{spin:#}");
    assert_eq!(spin["derived"], false, "{spin:#}");

    // The summary line says so in words.
    let mut args = vec!["--baseline", base.as_str(), "--cache-dir", dir.as_str()];
    args.extend(["--time-scale", "0.5"]);
    let r = f.ojd("verify", &args);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    assert!(
        r.stdout
            .contains("all 6 keep their folders' promises; no verdict changed from the baseline"),
        "{}",
        r.stdout
    );
    assert!(
        r.stdout.contains("1 cell not run after a clear TLE"),
        "{}",
        r.stdout
    );
    // The same scaled run with --no-cache derives nothing: every cell is judged.
    let r = f.verify(&["--json", "--baseline", &base, "--time-scale", "0.5"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let cold = json(&r);
    assert_eq!(cold["stats"]["derived_cells"], 0);
    assert_eq!(judged_now(&cold).len(), 17);
}

/// The reference's cells of a verify with its `gen --check`: whether each came from the gen
/// check's run, and its verdict.
fn reference_cells(report: &Value) -> Vec<(bool, String)> {
    submission(report, "solution.c")["tests"]
        .as_array()
        .expect("cells")
        .iter()
        .map(|c| {
            (
                c["from_gen_check"] == true,
                c["verdict"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

#[test]
fn the_reference_runs_once_for_gen_check_and_its_cells() {
    require_root!();
    let f = Fixture::new();
    let r = f.verify(&["--json"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    // gen --check runs the reference on every test to rebuild the answers; with the cells'
    // limits that run is its cell, judged with the checker: the reference is not run again.
    let ac = (true, "AC".to_string());
    assert_eq!(
        reference_cells(&report),
        [ac.clone(), ac.clone(), ac],
        "{report:#}"
    );
    assert_eq!(
        report["stats"]["gen_check_cells"], 3,
        "{:#}",
        report["stats"]
    );
    for s in report["problems"][0]["submissions"].as_array().unwrap() {
        let from_gen = s["tests"]
            .as_array()
            .unwrap()
            .iter()
            .any(|c| c["from_gen_check"] == true);
        assert_eq!(from_gen, s["reference"] == true, "{s:#}");
    }
    // A reference that times out under the cells' limits: its cells are TLE (from those runs),
    // and gen --check makes the answers with its own limits all the same, so they are still
    // up to date: a failed reference (exit 1), not a package error (exit 2).
    std::fs::copy(
        f.problem().join("submissions/accepted/slow.c"),
        f.problem().join("solution.c"),
    )
    .expect("replace the reference");
    f.gen();
    f.edit("problem.toml", |s| {
        s.replace("time_limit = \"1s\"", "time_limit = \"250ms\"")
    });
    let r = f.verify(&["--json"]);
    assert_eq!(r.code, 1, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    assert_eq!(
        report["problems"][0]["errors"],
        serde_json::json!([]),
        "{report:#}"
    );
    let tle = (true, "TLE".to_string());
    assert_eq!(
        reference_cells(&report),
        [tle.clone(), tle.clone(), tle],
        "{report:#}"
    );
}

/// Issue 26 item 5: the compile phase compiles the package's own programs (here the validator)
/// with the submissions, longest first, so that `gen --check` finds them compiled; and a source
/// that one worker is compiling is not compiled again beside it by the other: the second waits
/// and takes the first one's program (no compiler CPU time of its own in `stats.compiles`).
#[test]
fn the_compile_phase_compiles_package_programs_and_each_source_once() {
    require_root!();
    let f = Fixture::new();
    // A compile cache of its own, empty (the fixture's is shared by the other tests).
    std::fs::write(
        f.path("config.toml"),
        format!(
            "[judge]\ncache = {:?}\n",
            f.path("compile-cache").display().to_string()
        ),
    )
    .expect("write config");
    // Two submissions of one source, the package's largest: the first two compiles, side by
    // side on the two workers.
    let slow =
        std::fs::read_to_string(f.problem().join("submissions/accepted/slow.c")).expect("fixture");
    let twin = format!("{slow}\n/* {} */\n", "padding ".repeat(200));
    for name in ["twin_a.c", "twin_b.c"] {
        std::fs::write(f.problem().join("submissions/accepted").join(name), &twin)
            .expect("write a twin");
    }
    let r = f.verify(&["--json", "--jobs", "2"]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let report = json(&r);
    let compiles = report["stats"]["compiles"].as_array().expect("compiles");
    let programs: Vec<&str> = compiles
        .iter()
        .map(|c| c["program"].as_str().expect("a name"))
        .collect();
    assert_eq!(
        programs
            .iter()
            .filter(|p| **p == "verify validator.c")
            .count(),
        1,
        "{programs:?}"
    );
    // The reference is compiled once, as a submission; every submission once.
    assert_eq!(
        programs
            .iter()
            .filter(|p| p.ends_with("solution.c"))
            .count(),
        1,
        "{programs:?}"
    );
    assert_eq!(report["stats"]["compilations"], 8, "{programs:?}");
    assert_eq!(compiles.len(), 9, "{programs:?}");
    let twins: Vec<&Value> = compiles
        .iter()
        .filter(|c| c["program"].as_str().is_some_and(|p| p.contains("twin_")))
        .collect();
    assert_eq!(twins.len(), 2, "{compiles:#?}");
    let compiled = twins.iter().filter(|c| c["cpu_seconds"].is_f64()).count();
    assert_eq!(compiled, 1, "one compile for the two: {twins:#?}");
    for s in ["accepted/twin_a.c", "accepted/twin_b.c"] {
        assert_eq!(submission(&report, s)["ok"], true, "{report:#}");
    }
}
