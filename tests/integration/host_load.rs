//! Load makes judging slower, never a wrong verdict: the wall-time limit counts the program's
//! own time, not the time it waited for a CPU other work held nor the time it was blocked in
//! the kernel (state `D`), and a program that sleeps is still a time limit.

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};

use ojd_judge::{JudgeError, JudgeReport, Problem, Verdict};

use crate::common::{self, testdata};
use crate::sandbox::Hogs;

/// A+B that first waits `seconds` in the kernel, uninterruptibly and with no CPU: a `vfork`
/// parent is in state `D` until its child exits, and the child sleeps (for ever with `None`).
fn blocked_then_correct(seconds: Option<u32>) -> String {
    let child = match seconds {
        Some(s) => format!("sleep({s}); _exit(0);"),
        None => "for (;;) sleep(100);".to_string(),
    };
    format!(
        r#"#include <stdio.h>
#include <unistd.h>
int main(void) {{
    if (vfork() == 0) {{ {child} }}
    int t;
    long long a, b;
    if (scanf("%d", &t) != 1) return 1;
    while (t--) {{
        scanf("%lld %lld", &a, &b);
        printf("%lld\n", a + b);
    }}
    return 0;
}}
"#
    )
}

fn judge_source(
    j: &ojd_judge::Judge,
    problem: &Path,
    dir: &Path,
    name: &str,
    text: &str,
) -> JudgeReport {
    let file: PathBuf = dir.join(name);
    std::fs::write(&file, text).expect("the source is written");
    common::judge_file(j, problem, &file)
}

/// Time in state `D` is not the program's time, up to its wall-time limit: a program blocked
/// there 4 s (its limit is 3 s: 1 s of CPU, doubled, plus 1 s) is accepted, where counting the
/// block as its own made it a time limit. The bound holds too: a program blocked there for ever
/// is a time limit of its own (never a host fault), since it can put itself there (`vfork`,
/// `sync`) as well as the host's disk or memory can.
#[test]
fn time_blocked_in_the_kernel_is_not_the_programs_up_to_its_limit() {
    require_root!(exclusive);
    let scratch = tempfile::tempdir().expect("a scratch folder");
    let j = common::judge(1);
    let aplusb = testdata("aplusb");
    let r = judge_source(
        &j,
        &aplusb,
        scratch.path(),
        "blocked.c",
        &blocked_then_correct(Some(4)),
    );
    assert_eq!(r.verdict, Verdict::Accepted, "{r:#?}");
    let r = judge_source(
        &j,
        &aplusb,
        scratch.path(),
        "stuck.c",
        &blocked_then_correct(None),
    );
    assert_eq!(r.verdict, Verdict::TimeLimitExceeded, "{r:#?}");
    assert!(r.tests[0].message.contains("wall-time limit"), "{r:#?}");
}

/// The issue's scene: eight busy loops per CPU, a second judge whose sandboxes (pinned to the
/// same CPUs) judge a CPU-bound program without pause, and a disk kept busy with writes and
/// fsyncs. `slow.c` burns 400 ms of CPU per test under a 1 s limit (3 s of wall time) and waits
/// many times that for its CPU: it is accepted every time, never a time limit nor a host fault,
/// and `sleep.c` is still a time limit.
#[test]
fn verdicts_are_the_programs_beside_busy_loops_other_sandboxes_and_disk_writes() {
    require_root!(exclusive);
    let verify = Problem::load(&testdata("verify")).expect("the fixture loads");
    let aplusb = Problem::load(&testdata("aplusb")).expect("the fixture loads");
    let j = common::judge(2);
    let slow = common::submission(&j, &testdata("verify/submissions/accepted/slow.c"));
    let sleep = common::submission(
        &j,
        &testdata("aplusb/submissions/time_limit_exceeded/sleep.c"),
    );
    let never = AtomicBool::new(false);
    let stop = AtomicBool::new(false);
    let disk = tempfile::tempdir().expect("a scratch folder");
    let hogs = Hogs::per_cpu(8);
    let got = std::thread::scope(|scope| {
        let neighbour = scope.spawn(|| {
            let other = common::judge(2);
            let spin = common::submission(
                &other,
                &testdata("verify/submissions/time_limit_exceeded/spin_on_many.c"),
            );
            let mut judged = 0;
            while !stop.load(Ordering::Relaxed) {
                let _ = other.judge(&verify, &spin, &mut |_| {}, &never);
                judged += 1;
            }
            judged
        });
        let writer = scope.spawn(|| {
            use std::io::Write;
            let chunk = vec![0x5au8; 4 << 20];
            let path = disk.path().join("writes");
            let mut rounds = 0;
            while !stop.load(Ordering::Relaxed) {
                let mut f = std::fs::File::create(&path).expect("the disk writer's file");
                for _ in 0..16 {
                    f.write_all(&chunk).expect("the disk writer writes");
                }
                f.sync_all().expect("the disk writer syncs");
                rounds += 1;
            }
            rounds
        });
        let mut got = Vec::new();
        for _ in 0..3 {
            got.push(("slow.c", j.judge(&verify, &slow, &mut |_| {}, &never)));
        }
        got.push(("sleep.c", j.judge(&aplusb, &sleep, &mut |_| {}, &never)));
        stop.store(true, Ordering::Relaxed);
        assert!(
            neighbour.join().expect("the neighbour judge") > 0,
            "the neighbour judged nothing"
        );
        assert!(
            writer.join().expect("the disk writer") > 0,
            "the disk writer wrote nothing"
        );
        got
    });
    drop(hogs);
    assert_deserved(got, "sleep.c");
}

/// The interactive fixture with a 1 s wall-time limit (its CPU limit 2 s: only the wall time
/// can end its runs) and `binary.c` made to spin 300 ms of CPU before it plays: a copy in a
/// temporary folder, with that program beside it as `slow_binary.c`.
fn slow_interactive_package() -> tempfile::TempDir {
    let pkg = tempfile::tempdir().expect("a package folder");
    let src = testdata("interactive");
    for f in ["problem.toml", "interactor.c", "statement.md"] {
        std::fs::copy(src.join(f), pkg.path().join(f)).expect("the fixture is copied");
    }
    let tests = pkg.path().join("tests");
    std::fs::create_dir_all(&tests).expect("the tests folder");
    for (name, mode) in [("01", "guess 777"), ("02", "guess 1")] {
        std::fs::write(tests.join(format!("{name}.in")), format!("{mode}\n")).expect("a test");
        std::fs::write(tests.join(format!("{name}.ans")), "").expect("its answer");
    }
    let accepted = pkg.path().join("submissions/accepted");
    std::fs::create_dir_all(&accepted).expect("the submissions folder");
    std::fs::copy(
        src.join("submissions/accepted/binary.c"),
        accepted.join("binary.c"),
    )
    .expect("the reference is copied");
    let toml = pkg.path().join("problem.toml");
    let text = std::fs::read_to_string(&toml)
        .expect("problem.toml")
        .replace("time_limit = \"500ms\"", "time_limit = \"2s\"")
        .replace("wall_time_limit = \"2s\"", "wall_time_limit = \"1s\"");
    assert!(text.contains("\"2s\"") && text.contains("\"1s\""), "{text}");
    std::fs::write(&toml, text).expect("problem.toml is written");
    let slow = std::fs::read_to_string(src.join("submissions/accepted/binary.c"))
        .expect("binary.c")
        .replace(
            "int main(void) {",
            "#include <time.h>\nint main(void) {\n    volatile unsigned long spin = 0;\n    while (clock() < CLOCKS_PER_SEC * 3 / 10) spin++;",
        );
    assert!(slow.contains("clock()"), "{slow}");
    std::fs::write(pkg.path().join("slow_binary.c"), slow).expect("slow_binary.c is written");
    pkg
}

/// Slower, never wrong, for interactive problems too, under a load that lasts: eight busy loops
/// per CPU and a second judge whose sandboxes judge a CPU-bound program on the same CPUs for the
/// whole test. A correct program that needs 300 ms of CPU under a 1 s wall-time limit, whose
/// interactor waits for a CPU as long as it does, is accepted every time: neither a time limit
/// nor a host fault after its tries (the pair is run again with the wall time the load took
/// from it). A program that never flushes its question is still a time limit, judged as fast.
#[test]
fn an_interactive_pair_under_a_lasting_load_is_judged_slower_never_otherwise() {
    require_root!(exclusive);
    let pkg = slow_interactive_package();
    let problem = Problem::load(pkg.path()).expect("the package loads");
    let verify = Problem::load(&testdata("verify")).expect("the fixture loads");
    let j = common::judge(1);
    let slow = common::submission(&j, &pkg.path().join("slow_binary.c"));
    let no_flush = common::submission(
        &j,
        &testdata("interactive/submissions/time_limit_exceeded/no_flush.c"),
    );
    let never = AtomicBool::new(false);
    // Compiled before the load (and the interactor with them), so that only the runs wait.
    for sub in [&slow, &no_flush] {
        let _ = j.judge(&problem, sub, &mut |_| {}, &never);
    }
    let stop = AtomicBool::new(false);
    let hogs = Hogs::per_cpu(8);
    let got = std::thread::scope(|scope| {
        let neighbour = scope.spawn(|| {
            let other = common::judge(2);
            let spin = common::submission(
                &other,
                &testdata("verify/submissions/time_limit_exceeded/spin_on_many.c"),
            );
            let mut judged = 0;
            while !stop.load(Ordering::Relaxed) {
                let _ = other.judge(&verify, &spin, &mut |_| {}, &never);
                judged += 1;
            }
            judged
        });
        let mut got = Vec::new();
        for _ in 0..3 {
            got.push((
                "slow_binary.c",
                j.judge(&problem, &slow, &mut |_| {}, &never),
            ));
        }
        got.push((
            "no_flush.c",
            j.judge(&problem, &no_flush, &mut |_| {}, &never),
        ));
        stop.store(true, Ordering::Relaxed);
        assert!(
            neighbour.join().expect("the neighbour judge") > 0,
            "the neighbour judged nothing"
        );
        got
    });
    drop(hogs);
    assert_deserved(got, "no_flush.c");
}

/// Each judged program got its deserved verdict: TLE for `tle` (idle, so its wall time is its
/// own), AC for every other; the load is never a host fault.
pub(crate) fn assert_deserved(got: Vec<(&str, Result<JudgeReport, JudgeError>)>, tle: &str) {
    for (name, r) in got {
        let want = if name == tle {
            Verdict::TimeLimitExceeded
        } else {
            Verdict::Accepted
        };
        match r {
            Ok(r) => assert_eq!(r.verdict, want, "{name}: {r:#?}"),
            Err(e @ JudgeError::Host(_)) => panic!("{name}: the load was a host fault: {e}"),
            Err(e) => panic!("{name}: {e}"),
        }
    }
}
