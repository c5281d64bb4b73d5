//! Java, Kotlin and PyPy on the fixture problem through the real sandbox (accepted, wrong, TLE;
//! JVM threads up to the process limit; a JVM over the memory limit is MLE), and languages a
//! host lacks: listed with the reason, refused with a 4xx at submission.

use std::path::{Path, PathBuf};
use std::time::Duration;

use ojd_judge::Config;
use ojd_judge::Verdict;
use ojd_judge::{Judge, JudgeError, Submission};
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

/// The accepted program `file` (compiled once: the second judging takes it from the judge's
/// compile cache) is a wrong answer where every answer is off by one. A JVM compile costs 10-20 s
/// of CPU, and what a wrong answer proves of a JVM language is that its output is compared as
/// any other's, not that it compiles a second program.
fn accepted_then_wrong_answer(j: &Judge, file: &str) {
    let r = judge_file(j, &aplusb(), &fixture(file));
    assert_eq!(r.verdict, Verdict::Accepted, "{file}: {r:#?}");
    let off = tempfile::tempdir().unwrap();
    copy_dir(&aplusb(), off.path());
    for e in std::fs::read_dir(off.path().join("tests"))
        .unwrap()
        .flatten()
    {
        if e.path().extension().is_some_and(|x| x == "ans") {
            let sums = std::fs::read_to_string(e.path()).unwrap();
            let off_by_one: String = sums
                .lines()
                .map(|l| format!("{}\n", l.trim().parse::<i64>().unwrap() + 1))
                .collect();
            std::fs::write(e.path(), off_by_one).unwrap();
        }
    }
    let r = judge_file(j, off.path(), &fixture(file));
    assert_eq!(
        r.verdict,
        Verdict::WrongAnswer,
        "{file} on wrong answers: {r:#?}"
    );
}

#[test]
fn java_accepted_wrong_and_tle() {
    require_root!();
    let j = judge();
    require_language!(j, "java");
    // The public class is APlusB, not Main (tle.java's is Main).
    accepted_then_wrong_answer(&j, "java/ac.java");
    check(&j, &[("java/tle.java", Verdict::TimeLimitExceeded)]);
}

#[test]
fn kotlin_accepted_wrong_and_tle() {
    require_root!();
    let j = judge();
    require_language!(j, "kotlin");
    accepted_then_wrong_answer(&j, "kotlin/ac.kt");
    check(&j, &[("kotlin/tle.kt", Verdict::TimeLimitExceeded)]);
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
fn python_has_the_exit_and_quit_builtins_as_on_every_judge() {
    require_root!();
    let j = judge();
    require_language!(j, "python");
    check(
        &j,
        &[
            ("python/exit_builtin.py", Verdict::Accepted),
            ("python/quit_builtin.py", Verdict::Accepted),
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
    assert!(
        t.message.starts_with("exit code 1")
            && t.message.contains("unable to create native thread"),
        "the exception's line, not a stack frame: {}",
        t.message
    );
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
    // The heap is sized below the limit (64 MiB + Java's memory_extra of 64 MiB): the accepted
    // program uses a fraction of it.
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
    ojd_config::Config::load(&path)
        .expect("the test config loads")
        .judging()
}

#[test]
fn a_language_without_its_toolchain_is_unavailable_with_the_reason() {
    let j = Judge::new(missing_config(), 1).expect("judge starts");
    let languages = j.languages();
    for id in ["python2", "fortran"] {
        let reason = languages[id].as_ref().expect_err(id).to_string();
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

/// A C profile whose compiler is found through `sysroot_query`: a host command that hangs
/// (as `rustc --print sysroot` did on a loaded host with a skewed clock) until the file
/// `installed` exists beside it, and then prints `/usr`. Probes time out after 1 s and are
/// made again 1 s after a failure (doubling).
fn hanging_probe(dir: &Path) -> (String, PathBuf) {
    use std::os::unix::fs::PermissionsExt;
    let flag = dir.join("installed");
    let script = dir.join("sysroot-probe");
    std::fs::write(
        &script,
        format!(
            "#!/bin/sh
[ -e '{}' ] || exec sleep 60
echo /usr
",
            flag.display()
        ),
    )
    .unwrap();
    std::fs::set_permissions(&script, std::fs::Permissions::from_mode(0o755)).unwrap();
    let extra = format!(
        "[judge]\ntoolchain_recheck = \"1s\"\ntoolchain_timeout = \"1s\"\n\
         [languages.c]\nsysroot_query = [\"{}\"]\n",
        script.display()
    );
    (extra, flag)
}

/// A host whose toolchain probe timed out at start claims none of that language, says so
/// (log, hosts list, languages list), never turns it into a verdict, and once the probe
/// works (the toolchain installed, the load gone) claims it again and judges it, without a
/// restart.
#[test]
fn a_language_whose_probe_timed_out_is_claimed_again_once_a_later_probe_works() {
    require_root!();
    let probe = tempfile::tempdir().unwrap();
    let (extra, flag) = hanging_probe(probe.path());
    let site = crate::daemon::Site::new(&extra);
    let d = site.start();
    let c_entry = || -> Value {
        let (code, list) = d.get("/api/v1/languages", Some(crate::daemon::BOB));
        assert_eq!(code, 200, "{list}");
        list.as_array()
            .and_then(|a| a.iter().find(|l| l["id"] == "c").cloned())
            .unwrap_or_else(|| panic!("c listed: {list}"))
    };
    let not_claiming = || -> Result<Vec<Value>, String> {
        let (code, body) = d.get("/api/v1/admin/hosts", Some(crate::daemon::ADMIN));
        assert_eq!(code, 200, "{body}");
        let host = &body["hosts"][0];
        host["not_claiming"]
            .as_array()
            .cloned()
            .ok_or_else(|| format!("no heartbeat yet: {body}"))
    };
    let c = c_entry();
    assert_eq!(c["available"], false, "{c}");
    assert!(
        c["reason"]
            .as_str()
            .is_some_and(|r| r.contains("timed out")),
        "{c}"
    );
    common::wait_until(Duration::from_secs(30), || {
        not_claiming().and_then(|n| {
            // (and any language this host lacks for good, as python2 on Debian 12)
            n.contains(&json!("c"))
                .then_some(())
                .ok_or(format!("not claiming {n:?}"))
        })
    });
    assert!(
        d.log().contains("this host stops claiming c submissions"),
        "{}",
        d.log()
    );
    // Submissions in it are refused while no host here can judge them (a 4xx naming why, not a
    // queued submission that a judge error would end).
    let body = json!({ "problem": "aplusb", "language": "c", "source": "int main(){}" });
    let (code, err) = d.post_json("/api/v1/submissions", Some(crate::daemon::BOB), &body);
    assert_eq!(code, 400, "{err}");
    std::fs::write(&flag, "").unwrap();
    // The waits are 1, 2, 4, 8 s...: found within half a minute even after a few misses.
    common::wait_until(Duration::from_secs(60), || {
        not_claiming().and_then(|n| {
            (!n.contains(&json!("c")))
                .then_some(())
                .ok_or(format!("not claiming {n:?}"))
        })
    });
    assert!(
        d.log()
            .contains("this host claims c submissions again: its toolchain was found"),
        "{}",
        d.log()
    );
    let c = c_entry();
    assert_eq!(c["available"], true, "{c}");
    let id = d.submit_file(
        crate::daemon::BOB,
        &aplusb().join("submissions/accepted/ac.c"),
    );
    let done = d.wait_done(id, crate::daemon::BOB, crate::daemon::JUDGED_WITHIN);
    assert_eq!(done["verdict"], "AC", "{done}\n{}", d.log());
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for e in std::fs::read_dir(from).unwrap().flatten() {
        if e.path().is_dir() {
            copy_dir(&e.path(), &to.join(e.file_name()));
        } else {
            std::fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn verify_skips_and_lists_submissions_in_unavailable_languages() {
    require_root!();
    let tmp = tempfile::tempdir().unwrap();
    let problem = tmp.path().join("kattis");
    copy_dir(&fixture("kattis"), &problem);
    // Python 2 and Kotlin unavailable whatever this host has.
    let config = tmp.path().join("config.toml");
    std::fs::write(
        &config,
        format!("{MISSING}\n[languages.kotlin]\nrequires = [\"ojd-test-no-such-kotlinc\"]\n"),
    )
    .unwrap();
    let verify = |extra: &[&str]| {
        let junit = tmp.path().join("verify.xml");
        let out = common::ojd()
            .arg("verify")
            .arg(&problem)
            .arg("--config")
            .arg(&config)
            .arg("--junit")
            .arg(&junit)
            .args(extra)
            .output()
            .unwrap();
        let xml = std::fs::read_to_string(&junit).unwrap_or_default();
        (out, xml)
    };

    let (out, xml) = verify(&[]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(0), "{text}\n{out:?}");
    for (name, language) in [
        ("accepted/py2.py", "python2"),
        ("wrong_answer/wa.kt", "kotlin"),
    ] {
        let line = text
            .lines()
            .find(|l| l.contains(name))
            .unwrap_or_else(|| panic!("{name} listed:\n{text}"));
        assert!(
            line.contains("SKIPPED") && line.contains(&format!("language {language} unavailable")),
            "{line}"
        );
    }
    assert!(text.contains("2 skipped: language unavailable"), "{text}");
    assert!(xml.contains("skipped=\"2\""), "{xml}");
    assert_eq!(xml.matches("<skipped message=").count(), 2, "{xml}");

    let (out, _) = verify(&["--json"]);
    let report: Value = serde_json::from_slice(&out.stdout).expect("JSON report");
    let p = &report["problems"][0];
    let skipped: Vec<&str> = p["skipped"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert_eq!(skipped, ["accepted/py2.py", "wrong_answer/wa.kt"], "{p}");
    assert_eq!(p["skipped"][1]["expected"], "WA");
    let judged: Vec<&str> = p["submissions"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|s| s["ok"] == true)
        .map(|s| s["name"].as_str().unwrap())
        .collect();
    assert!(
        judged.contains(&"accepted/ac.c") && judged.contains(&"accepted/ac.py"),
        "{p}"
    );

    let (out, _) = verify(&["--strict"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert_eq!(out.status.code(), Some(2), "{text}");
    assert!(
        text.contains("accepted/py2.py: language python2 is unavailable")
            && text.contains("--strict"),
        "{text}"
    );
}

/// Median of `n` runs of `f`, which returns (wall, cpu).
fn median(n: usize, mut f: impl FnMut() -> (f64, f64)) -> (f64, f64) {
    let mut runs: Vec<(f64, f64)> = (0..n).map(|_| f()).collect();
    runs.sort_by(|a, b| a.0.total_cmp(&b.0));
    runs[n / 2]
}

/// CPU time of this process's waited-for children so far, in ms.
fn children_cpu_ms() -> f64 {
    // SAFETY: rusage is plain data, for which all zeroes is a valid value.
    let mut u: libc::rusage = unsafe { std::mem::zeroed() };
    // SAFETY: getrusage fills the struct we pass; RUSAGE_CHILDREN has no other precondition.
    unsafe { libc::getrusage(libc::RUSAGE_CHILDREN, &mut u) };
    let ms = |t: libc::timeval| t.tv_sec as f64 * 1e3 + t.tv_usec as f64 / 1e3;
    ms(u.ru_utime) + ms(u.ru_stime)
}

/// Per language: an empty program and the accepted A+B fixture (1000 pairs), each run in the
/// sandbox and bare on the host (the same command, our own trusted fixtures only), median of
/// 5. A measurement, not a check: run it alone with
/// `cargo test --release --test integration language_start_times -- --ignored --nocapture`.
#[test]
#[ignore]
fn language_start_times() {
    require_root!(exclusive);
    let j = common::judge(1);
    let empty = [
        ("c", "int main(void) { return 0; }\n"),
        ("cpp", "int main() {}\n"),
        ("rust", "fn main() {}\n"),
        ("python", "pass\n"),
        ("pypy3", "pass\n"),
        (
            "java",
            "public class Main { public static void main(String[] a) {} }\n",
        ),
        ("kotlin", "fun main() {}\n"),
    ];
    let accepted = |id: &str| match id {
        "c" | "cpp" | "rust" => aplusb().join(format!(
            "submissions/accepted/ac.{}",
            if id == "rust" { "rs" } else { id }
        )),
        "python" => aplusb().join("submissions/accepted/ac.py"),
        "pypy3" => fixture("pypy3/ac.py"),
        "java" => fixture("java/ac.java"),
        _ => fixture("kotlin/ac.kt"),
    };
    let problem = ojd_judge::Problem::load(&aplusb()).unwrap();
    let input = aplusb().join("tests/02-many.in");
    let work = tempfile::tempdir().unwrap();
    println!("language  program   sandbox wall/cpu ms   bare wall/cpu ms");
    for (id, source) in empty {
        if j.language(id).is_err() {
            println!("{id:<9} unavailable");
            continue;
        }
        for (what, source) in [
            ("empty", source.as_bytes().to_vec()),
            ("A+B", std::fs::read(accepted(id)).unwrap()),
        ] {
            let sub = Submission {
                language: id.into(),
                source,
            };
            let program = match j.compile(&sub).unwrap() {
                ojd_judge::Compiled::Program(p) => p,
                ojd_judge::Compiled::Error(m) => panic!("{id} {what}: {m}"),
            };
            let mut limits = j.limits_for(&problem, &program);
            limits.cpu = std::time::Duration::from_secs(10);
            limits.wall = std::time::Duration::from_secs(30);
            let out = work.path().join("out");
            let sandboxed = median(5, || {
                let o = j
                    .execute(&ojd_judge::ProgramRun {
                        program: &program,
                        args: &[],
                        stdin: Some(&input),
                        stdout: &out,
                        stderr: None,
                        box_files: vec![],
                        collect: vec![],
                        limits: limits.clone(),
                    })
                    .unwrap();
                assert!(o.success(), "{id} {what}: {o:?}");
                (
                    o.wall_time.as_secs_f64() * 1e3,
                    o.cpu_time.as_secs_f64() * 1e3,
                )
            });
            let prog = format!("{}/", program.dir.display());
            let argv: Vec<String> =
                ojd_judge::expand_run(&program.run, &program.profile, limits.memory)
                    .into_iter()
                    .map(|a| a.replace("/prog/", &prog))
                    .collect();
            let bare = median(5, || {
                let cpu = children_cpu_ms();
                let started = std::time::Instant::now();
                let st = std::process::Command::new(&argv[0])
                    .args(&argv[1..])
                    .stdin(std::fs::File::open(&input).unwrap())
                    .stdout(std::fs::File::create(&out).unwrap())
                    .status()
                    .unwrap();
                assert!(st.success(), "{id} {what} bare: {st}");
                (
                    started.elapsed().as_secs_f64() * 1e3,
                    children_cpu_ms() - cpu,
                )
            });
            println!(
                "{id:<9} {what:<9} {:>8.1} / {:>7.1}    {:>8.1} / {:>7.1}",
                sandboxed.0, sandboxed.1, bare.0, bare.1
            );
        }
    }
}
