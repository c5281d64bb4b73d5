//! Java, Kotlin and PyPy on the fixture problem through the real sandbox (accepted, wrong, TLE;
//! JVM threads up to the process limit; a JVM over the memory limit is MLE), and languages a
//! host lacks: listed with the reason, refused with a 4xx at submission.

use std::path::{Path, PathBuf};

use ojd::config::Config;
use ojd::judge::{Judge, JudgeError, Submission};
use ojd::verdict::Verdict;
use serde_json::{json, Value};

use crate::common::{self, judge_file, testdata};

/// Skips (or, under CI, fails) a test whose toolchain this host lacks.
macro_rules! require_language {
    ($judge:expr, $id:expr) => {
        if let Err(e) = $judge.language($id) {
            if std::env::var_os("CI").is_some() {
                panic!("{} is needed under CI: {e}", $id);
            }
            eprintln!("skipped: {e}");
            return;
        }
    };
}

fn aplusb() -> PathBuf {
    testdata("aplusb")
}

fn fixture(rel: &str) -> PathBuf {
    testdata("langs").join(rel)
}

/// A judge that stops at the first failing test (a TLE costs one test, not three).
fn judge() -> Judge {
    let mut config = Config::defaults();
    config.judge.run_all_tests = false;
    common::judge_with(config, 1)
}

fn check(j: &Judge, cases: &[(&str, Verdict)]) {
    for (file, want) in cases {
        let r = judge_file(j, &aplusb(), &fixture(file));
        assert_eq!(r.verdict, *want, "{file}: {r:#?}");
    }
}

#[test]
fn java_accepted_wrong_and_tle() {
    require_root!();
    let j = judge();
    require_language!(j, "java");
    check(
        &j,
        &[
            // The public class is APlusB, not Main.
            ("java/ac.java", Verdict::Accepted),
            ("java/wa.java", Verdict::WrongAnswer),
            ("java/tle.java", Verdict::TimeLimitExceeded),
        ],
    );
}

#[test]
fn kotlin_accepted_wrong_and_tle() {
    require_root!();
    let j = judge();
    require_language!(j, "kotlin");
    check(
        &j,
        &[
            ("kotlin/ac.kt", Verdict::Accepted),
            ("kotlin/wa.kt", Verdict::WrongAnswer),
            ("kotlin/tle.kt", Verdict::TimeLimitExceeded),
        ],
    );
}

#[test]
fn pypy_accepted_wrong_and_tle() {
    require_root!();
    let j = judge();
    require_language!(j, "pypy3");
    // The shebang selects PyPy over CPython for these `.py` files.
    let source = std::fs::read(fixture("pypy3/ac.py")).unwrap();
    assert_eq!(
        j.detect_language(&fixture("pypy3/ac.py"), &source)
            .as_deref(),
        Some("pypy3")
    );
    check(
        &j,
        &[
            ("pypy3/ac.py", Verdict::Accepted),
            ("pypy3/wa.py", Verdict::WrongAnswer),
            ("pypy3/tle.py", Verdict::TimeLimitExceeded),
        ],
    );
}

#[test]
fn java_threads_fit_the_process_limit_and_more_are_a_runtime_error() {
    require_root!();
    let j = common::judge(1);
    require_language!(j, "java");
    // 40 threads alive at once beside the JVM's own ~14, under `[judge] processes = 64`.
    let r = judge_file(&j, &aplusb(), &fixture("java/threads.java"));
    assert_eq!(r.verdict, Verdict::Accepted, "{r:#?}");
    // 200 cannot all start: Java reports it as an OutOfMemoryError, but it is the process
    // limit, not memory, so the verdict is RE.
    let r = judge_file(&j, &aplusb(), &fixture("java/too_many_threads.java"));
    assert_eq!(r.verdict, Verdict::RuntimeError, "{r:#?}");
    let t = &r.tests[0];
    assert!(t.message.starts_with("exit code 1"), "{}", t.message);
}

#[test]
fn java_over_the_memory_limit_is_mle() {
    require_root!();
    let j = judge();
    require_language!(j, "java");
    for file in ["java/mle.java", "java/mle_array.java"] {
        let r = judge_file(&j, &aplusb(), &fixture(file));
        assert_eq!(r.verdict, Verdict::MemoryLimitExceeded, "{file}: {r:#?}");
        let t = &r.tests[0];
        assert!(
            t.message.contains("OutOfMemoryError"),
            "{file}: {}",
            t.message
        );
    }
    // The heap is sized below the 64 MiB limit: the accepted program uses a fraction of it.
    let r = judge_file(&j, &aplusb(), &fixture("java/ac.java"));
    assert_eq!(r.verdict, Verdict::Accepted, "{r:#?}");
    assert!(r.max_memory_kib < 64 * 1024, "{r:#?}");
}

/// A config where Python 2 and a made-up language have no toolchain on any host.
const MISSING: &str = "\n[languages.python2]\ncompile = [\"ojd-test-no-such-python2\", \"-m\", \"py_compile\", \"main.py\"]\n\
    [languages.fortran]\nname = \"Fortran\"\nextensions = [\"f90\"]\nsource = \"main.f90\"\n\
    compile = [\"ojd-test-no-such-gfortran\", \"-o\", \"main\", \"main.f90\"]\nexecutable = \"main\"\nrun = [\"/prog/main\"]\n";

fn missing_config() -> Config {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("config.toml");
    std::fs::write(&path, MISSING).unwrap();
    Config::load(&path).expect("the test config loads")
}

#[test]
fn a_language_without_its_toolchain_is_unavailable_with_the_reason() {
    let j = Judge::new(missing_config(), 1).expect("judge starts");
    for id in ["python2", "fortran"] {
        let reason = j.languages()[id].as_ref().expect_err(id);
        assert!(reason.contains("ojd-test-no-such-"), "{id}: {reason}");
    }
    let py2 = b"#!/usr/bin/env python2\nprint 1\n".to_vec();
    let language = j
        .detect_language(Path::new("sol.py"), &py2)
        .expect("a .py file");
    assert_eq!(language, "python2");
    let e = j
        .check_submission(&Submission {
            language,
            source: py2,
        })
        .unwrap_err();
    assert!(
        matches!(&e, JudgeError::LanguageUnavailable { language, .. } if language == "python2"),
        "{e}"
    );
    assert!(e.to_string().contains("unavailable"), "{e}");
}

#[test]
fn the_api_lists_unavailable_languages_and_refuses_their_submissions() {
    require_root!();
    let site = crate::daemon::Site::new(MISSING);
    let d = site.start();
    let (code, list) = d.get("/api/v1/languages", Some(crate::daemon::BOB));
    assert_eq!(code, 200, "{list}");
    let entry = |id: &str| -> Value {
        list.as_array()
            .and_then(|a| a.iter().find(|l| l["id"] == id).cloned())
            .unwrap_or_else(|| panic!("{id} listed: {list}"))
    };
    let py2 = entry("python2");
    assert_eq!(py2["available"], false, "{py2}");
    assert!(
        py2["reason"]
            .as_str()
            .is_some_and(|r| r.contains("ojd-test-no-such-python2")),
        "{py2}"
    );
    assert_eq!(entry("c")["available"], true);
    let body = json!({ "problem": "aplusb", "filename": "sol.py",
        "source": "#!/usr/bin/python2\nprint 1\n" });
    let (code, err) = d.post_json("/api/v1/submissions", Some(crate::daemon::BOB), &body);
    assert_eq!(code, 400, "{err}");
    let message = err["error"]["message"].as_str().unwrap_or_default();
    assert!(
        message.contains("python2") && message.contains("unavailable"),
        "{err}"
    );
    let body = json!({ "problem": "aplusb", "language": "fortran", "source": "end" });
    let (code, err) = d.post_json("/api/v1/submissions", Some(crate::daemon::BOB), &body);
    assert_eq!(code, 400, "{err}");
}
