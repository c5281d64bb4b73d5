//! Interactive problems end to end: the submission and the interactor in two sandboxes joined by
//! pipes. The conformance matrix runs the fixture interactor (testdata/interactive) against
//! programs that misbehave in each way the verdict rule has to cover, each with a bound on the
//! time it may take (nothing hangs); `ojd verify` judges the fixture's known submissions; a
//! Kattis interactive package imports and verifies.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use crate::common::{self, testdata};
use ojd_judge::Verdict;

/// A copy of testdata/interactive whose only tests are `inputs` (name, interactor mode).
fn package(inputs: &[(&str, &str)]) -> tempfile::TempDir {
    let tmp = tempfile::tempdir().expect("temp dir");
    let src = testdata("interactive");
    for f in ["problem.toml", "interactor.c", "statement.md"] {
        std::fs::copy(src.join(f), tmp.path().join(f)).expect("copy the fixture");
    }
    let acc = tmp.path().join("submissions/accepted");
    std::fs::create_dir_all(&acc).unwrap();
    std::fs::copy(
        src.join("submissions/accepted/binary.c"),
        acc.join("binary.c"),
    )
    .unwrap();
    std::fs::create_dir_all(tmp.path().join("tests")).unwrap();
    for (name, mode) in inputs {
        std::fs::write(
            tmp.path().join(format!("tests/{name}.in")),
            format!("{mode}\n"),
        )
        .unwrap();
        std::fs::write(tmp.path().join(format!("tests/{name}.ans")), "").unwrap();
    }
    tmp
}

fn conformance(program: &str) -> PathBuf {
    testdata("interactive/conformance").join(program)
}

/// Judges `program` on one test in `mode`; returns the test's verdict, message and how long
/// the judging took.
fn judge_one(mode: &str, program: &Path) -> (Verdict, String, Duration) {
    let pkg = package(&[("01", mode)]);
    let j = common::judge(1);
    let start = Instant::now();
    let report = common::judge_file(&j, pkg.path(), program);
    let took = start.elapsed();
    let t = &report.tests[0];
    (t.verdict, t.message.clone(), took)
}

/// The wall limit of the fixture is 2 s: every case ends well within twice that plus compiling.
const BOUND: Duration = Duration::from_secs(30);

#[test]
fn conformance_matrix() {
    require_root!();
    let accepted = testdata("interactive/submissions/accepted/binary.c");
    let cases: [(&str, PathBuf, Verdict, &str); 9] = [
        ("guess 777", accepted.clone(), Verdict::Accepted, ""),
        // The program exits early: the interactor reads end of file and says wrong answer.
        (
            "guess 777",
            conformance("exit_early.c"),
            Verdict::WrongAnswer,
            "no guess",
        ),
        // The interactor exits early (a guess out of range) and says wrong answer first: WA,
        // although the program then spins.
        (
            "guess 777",
            conformance("zero_then_spin.c"),
            Verdict::WrongAnswer,
            "out of range",
        ),
        // Both loop: the program over its CPU limit (or, on a machine busy enough that two
        // spinning sides do not get 500 ms of CPU in 2 s, its wall limit), the interactor
        // killed too.
        (
            "spin",
            conformance("spin.c"),
            Verdict::TimeLimitExceeded,
            "limit of",
        ),
        // The program never reads: its guesses go unanswered, the interactor gives up first.
        (
            "guess 777",
            conformance("never_reads.c"),
            Verdict::WrongAnswer,
            "too many guesses",
        ),
        // The program floods its output: counted by the relay against the output limit.
        (
            "drain",
            conformance("flood.c"),
            Verdict::OutputLimitExceeded,
            "output limit",
        ),
        // The interactor crashes: a judge error, never the student's fault.
        ("crash", accepted.clone(), Verdict::JudgeError, "interactor"),
        // The program idles in read while the interactor waits for a guess: wall-time TLE.
        (
            "guess 777",
            conformance("idle_read.c"),
            Verdict::TimeLimitExceeded,
            "wall-time",
        ),
        // The program crashes after its first guess: RE (the interactor ends after it).
        (
            "guess 777",
            testdata("interactive/submissions/runtime_error/crash_after_first.c"),
            Verdict::RuntimeError,
            "SIGABRT",
        ),
    ];
    for (mode, program, want, says) in cases {
        let (got, message, took) = judge_one(mode, &program);
        let name = program.file_name().unwrap().to_string_lossy().into_owned();
        assert_eq!(got, want, "{name} on {mode:?}: {message}");
        assert!(
            message.contains(says),
            "{name} on {mode:?}: {message:?} should say {says:?}"
        );
        assert!(took < BOUND, "{name} on {mode:?} took {took:?}");
    }
}

#[test]
fn transcript_of_both_directions() {
    require_root!();
    let accepted = testdata("interactive/submissions/accepted/binary.c");
    let (got, message, _) = judge_one("guess 300", &accepted);
    assert_eq!(got, Verdict::Accepted);
    assert!(
        message.contains("> 500\n< lower\n> 250\n< higher\n"),
        "the transcript shows both directions in order: {message}"
    );
}

#[test]
fn verify_the_interactive_fixture() {
    require_root!();
    let tmp = tempfile::tempdir().unwrap();
    let out = common::ojd()
        .args([
            "verify",
            &testdata("interactive").display().to_string(),
            "--json",
        ])
        .env("TMPDIR", tmp.path())
        .output()
        .expect("ojd runs");
    let report: serde_json::Value =
        serde_json::from_slice(&out.stdout).expect("verify prints JSON");
    let subs = report["problems"][0]["submissions"]
        .as_array()
        .expect("submissions")
        .clone();
    let bad: Vec<String> = subs
        .iter()
        .filter(|s| s["ok"] != true)
        .map(|s| format!("{} got {}: {}", s["name"], s["verdict"], s["failures"]))
        .collect();
    assert!(
        out.status.code() == Some(0) && bad.is_empty() && subs.len() == 6,
        "{bad:?}\n{}\n{}",
        report["problems"][0]["errors"],
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn kattis_interactive_package_imports_and_verifies() {
    require_root!();
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join("guess");
    let out = common::ojd()
        .args(["import", "kattis"])
        .arg(testdata("import/kattis/interactive-guess"))
        .arg("--to")
        .arg(&dest)
        .output()
        .expect("ojd runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let p = ojd_judge::Problem::load(&dest).expect("loads");
    let i = p.interactor.as_ref().expect("an interactor");
    assert_eq!(i.protocol, ojd_judge::InteractorProtocol::Kattis);
    assert_eq!(p.time_limit.as_millis(), 500);
    let out = common::ojd()
        .args(["verify", &dest.display().to_string(), "--json"])
        .output()
        .expect("ojd runs");
    let report: serde_json::Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let subs = report["problems"][0]["submissions"]
        .as_array()
        .expect("submissions")
        .clone();
    assert!(
        out.status.code() == Some(0) && subs.iter().all(|s| s["ok"] == true),
        "{}\n{}",
        serde_json::to_string_pretty(&subs).unwrap(),
        report["problems"][0]["errors"]
    );
}

/// A Polygon package with a testlib interactor and a checker: the checker judges the
/// interactor's `tout` once the interactor accepts (`waste.c` is accepted by the interactor,
/// which allows 12 guesses, and refused by the checker, which allows 10).
#[test]
fn polygon_testlib_interactor_imports_and_verifies() {
    require_root!();
    let s = crate::import::Scratch::new();
    let dest = s.path("guess");
    let r = s.ojd(&[
        "import",
        "polygon",
        &testdata("import/polygon/guess").display().to_string(),
        "--to",
        &dest.display().to_string(),
    ]);
    assert_eq!(r.code, 0, "{}{}", r.stdout, r.stderr);
    let p = ojd_judge::Problem::load(&dest).expect("loads");
    let i = p.interactor.as_ref().expect("an interactor");
    assert_eq!(i.protocol, ojd_judge::InteractorProtocol::Testlib);
    assert!(
        p.answers_given,
        "no solution can make an interactive problem's answers alone"
    );
    assert_eq!(
        p.tests.len(),
        4,
        "three manual tests and one generated in the sandbox"
    );
    let r = s.ojd(&["verify", &dest.display().to_string(), "--json"]);
    let report: serde_json::Value = serde_json::from_str(&r.stdout).expect("JSON");
    let subs = report["problems"][0]["submissions"]
        .as_array()
        .expect("submissions")
        .clone();
    assert!(
        r.code == 0 && subs.len() == 4 && subs.iter().all(|s| s["ok"] == true),
        "{}\n{}",
        serde_json::to_string_pretty(&subs).unwrap(),
        report["problems"][0]["errors"]
    );
}

/// `ojd judge` runs every test of a submission in one sandbox keeper: each interactive run's
/// pipes must be in a folder of their own. With the same folder removed and made again for
/// every test, the keeper reached the second test's pipes through its handle on the removed
/// folder, and every test after the first was a judge error ("to-program: No such file").
#[test]
fn every_test_of_one_judging_gets_its_pipes() {
    require_root!();
    let tmp = tempfile::tempdir().unwrap();
    let dest = tmp.path().join("guess");
    let out = common::ojd()
        .args(["import", "kattis"])
        .arg(testdata("import/kattis/interactive-guess"))
        .arg("--to")
        .arg(&dest)
        .output()
        .expect("ojd runs");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let out = common::ojd()
        .arg("judge")
        .arg(&dest)
        .arg(testdata(
            "import/kattis/interactive-guess/submissions/accepted/binary.c",
        ))
        .output()
        .expect("ojd runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success() && text.contains("Accepted"), "{text}");
}

/// A pair whose program spins for ever on a loaded host (busy loops on every CPU, its wall-time
/// limit far under its CPU limit) ends with the verdict the program deserves, a time limit (the
/// wall-time limit counts its own time, not its wait for the CPU), and never hangs. The
/// program's side was once run again alone, as a starved run was: its keeper then waited for
/// ever to open a pipe whose other end the relay had already opened and closed.
#[test]
fn a_program_spinning_on_a_loaded_host_is_a_time_limit_not_a_hang() {
    require_root!(exclusive);
    let pkg = package(&[("01", "guess 777")]);
    let toml = pkg.path().join("problem.toml");
    let text = std::fs::read_to_string(&toml)
        .unwrap()
        .replace("time_limit = \"500ms\"", "time_limit = \"5s\"")
        .replace("wall_time_limit = \"2s\"", "wall_time_limit = \"1s\"");
    assert!(text.contains("\"5s\"") && text.contains("\"1s\""), "{text}");
    std::fs::write(&toml, text).unwrap();
    let problem = ojd_judge::Problem::load(pkg.path()).expect("the package loads");
    let j = common::judge(1);
    let sub = common::submission(&j, &conformance("spin.c"));
    // Judged once before the busy loops start, so that the program is compiled (and taken from
    // the cache after) and only its runs are starved. Whatever this gives is not checked: on a
    // host already busy it may be starved too.
    let _ = j.judge(
        &problem,
        &sub,
        &mut |_| {},
        &std::sync::atomic::AtomicBool::new(false),
    );

    let hogs = crate::sandbox::Hogs::start();
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let r = j.judge(
            &problem,
            &sub,
            &mut |_| {},
            &std::sync::atomic::AtomicBool::new(false),
        );
        let _ = tx.send(r.map(|r| (r.tests[0].verdict, r.tests[0].message.clone())));
    });
    let got = rx.recv_timeout(Duration::from_secs(120));
    drop(hogs);
    let got = got.expect("the judging hung (a keeper waiting for a pipe nobody opens)");
    match got {
        Err(e) => panic!("a spinning program is the program's fault, not the host's: {e}"),
        Ok((verdict, message)) => {
            assert_eq!(verdict, ojd_judge::Verdict::TimeLimitExceeded, "{message}")
        }
    }
}

/// A program that ends before the interactor hears from it (it exits at once, or crashes at
/// start) must not make the interactor wait out its own wall limit: once the program's side has
/// ended, the interactor reads end of file promptly, and the verdict is still the rule's (the
/// interactor says wrong answer on end of file: WA; a crash is still RE). The wall limit here
/// is 30 s; each test must end within a third of it, a bound no loaded host comes near (the
/// pair takes milliseconds), and that the interactor waiting out its limit cannot meet.
///
/// These programs' keepers open their pipes before the program starts, so the relay sees their
/// end as end of file; the side that fails before its keeper opens its pipes is covered by the
/// unit test `a_side_that_never_opened_its_pipes_gives_its_partner_end_of_file`.
#[test]
fn a_program_that_ends_at_once_does_not_hold_the_interactor() {
    require_root!();
    let pkg = package(&[("01", "guess 777")]);
    let toml = pkg.path().join("problem.toml");
    let text = std::fs::read_to_string(&toml)
        .unwrap()
        .replace("wall_time_limit = \"2s\"", "wall_time_limit = \"30s\"");
    assert!(text.contains("\"30s\""), "{text}");
    std::fs::write(&toml, text).unwrap();
    let problem = ojd_judge::Problem::load(pkg.path()).expect("the package loads");
    let j = common::judge(1);
    let cases = [
        (
            conformance("exit_early.c"),
            Verdict::WrongAnswer,
            "no guess",
        ),
        (
            conformance("abort_at_start.c"),
            Verdict::RuntimeError,
            "SIGABRT",
        ),
    ];
    for (program, want, says) in cases {
        let name = program.file_name().unwrap().to_string_lossy().into_owned();
        let sub = common::submission(&j, &program);
        // Compiled first, so that only the judging of the test is timed.
        let _ = j.judge(
            &problem,
            &sub,
            &mut |_| {},
            &std::sync::atomic::AtomicBool::new(false),
        );
        let start = Instant::now();
        let report = j
            .judge(
                &problem,
                &sub,
                &mut |_| {},
                &std::sync::atomic::AtomicBool::new(false),
            )
            .expect("judged");
        let took = start.elapsed();
        let t = &report.tests[0];
        assert_eq!(t.verdict, want, "{name}: {}", t.message);
        assert!(
            t.message.contains(says),
            "{name}: {:?} should say {says:?}",
            t.message
        );
        assert!(
            took < Duration::from_secs(10),
            "{name}: the test took {took:?} of the 30 s wall limit (the interactor waited it out)"
        );
    }
}

/// A correct program that wants the CPU before it plays (300 ms of CPU, under a 1 s wall-time
/// limit) on a host that eight busy loops per CPU keep busy: its wait for the CPU is not its
/// time, so it is accepted, and the interactor, blocked on it meanwhile, waits for it as long
/// (a partner stopped at the program's nominal wall limit would break its pipe: RE or JE).
#[test]
fn a_slow_correct_program_on_a_loaded_host_is_accepted_with_its_interactor() {
    require_root!(exclusive);
    let pkg = package(&[("01", "guess 777"), ("02", "guess 1")]);
    let toml = pkg.path().join("problem.toml");
    let text = std::fs::read_to_string(&toml)
        .unwrap()
        .replace("time_limit = \"500ms\"", "time_limit = \"2s\"")
        .replace("wall_time_limit = \"2s\"", "wall_time_limit = \"1s\"");
    assert!(text.contains("\"2s\"") && text.contains("\"1s\""), "{text}");
    std::fs::write(&toml, text).unwrap();
    let source = pkg.path().join("slow_binary.c");
    let binary = std::fs::read_to_string(testdata("interactive/submissions/accepted/binary.c"))
        .unwrap()
        .replace(
            "int main(void) {",
            "#include <time.h>\nint main(void) {\n    volatile unsigned long spin = 0;\n    while (clock() < CLOCKS_PER_SEC * 3 / 10) spin++;",
        );
    assert!(binary.contains("clock()"), "{binary}");
    std::fs::write(&source, binary).unwrap();
    let problem = ojd_judge::Problem::load(pkg.path()).expect("the package loads");
    let j = common::judge(1);
    let sub = common::submission(&j, &source);
    // Compiled once before the load, so that only the runs wait for the CPU.
    let _ = j.judge(
        &problem,
        &sub,
        &mut |_| {},
        &std::sync::atomic::AtomicBool::new(false),
    );
    let hogs = crate::sandbox::Hogs::per_cpu(8);
    let got = j.judge(
        &problem,
        &sub,
        &mut |_| {},
        &std::sync::atomic::AtomicBool::new(false),
    );
    drop(hogs);
    match got {
        Ok(r) => {
            assert_eq!(r.verdict, Verdict::Accepted, "{r:#?}");
            // Its recorded wall time is its own, as the limit counts it (ojd verify compares
            // it with the exact limit): 300 ms of CPU at a ninth of a CPU is 2.7 s of raw wall.
            let over: Vec<_> = r.tests.iter().filter(|t| t.wall_ms > 1000).collect();
            assert!(
                over.is_empty(),
                "wall time not the program's own: {over:#?}"
            );
        }
        Err(e) => panic!("the host's load is not the program's: {e}"),
    }
}
