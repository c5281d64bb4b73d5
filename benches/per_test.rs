//! The cost of a test: a problem of many one-line tests judged by ojd against a bare shell loop
//! that runs the same ready binary on each test and compares its output (fork, exec, `cmp`).
//!
//! Writes a problem of T one-line tests (`a b` → `a+b`, the built-in `tokens` comparison) and a
//! C program compiled once with `cc -O2`, then runs, interleaved round by round so that the
//! machine's load hits all alike:
//!
//! - `bare`: `sh -c 'for t in problem/tests/*.in; do ./prog < $t > out; cmp -s out ${t%.in}.ans; done'`;
//! - `judge`: [`Judge::judge`] in this process with one keeper (kept from round to round, as a
//!   daemon's worker keeps it), the program submitted as a `binary`;
//! - `ojd judge`: the command itself (`ojd judge --json problem prog`), keeper start included.
//!
//! Prints, for each, the 10th percentile and the median over the rounds of the cost per test,
//! and the ratios to the bare loop. Load only ever adds time, so the 10th percentile is the
//! steadier figure on a shared machine.
//!
//! `cargo bench --bench per_test -- [ROUNDS] [TESTS]` (defaults: 20 rounds of 100 tests). Needs
//! root (the sandbox) and a C compiler. `OJD_KEEPER=PATH` runs the keeper of another build (any
//! binary that runs `ojd_sandbox::keeper::main` as `PATH __keeper`) under the same judge.

use std::path::Path;
use std::process::Command;
use std::sync::atomic::AtomicBool;
use std::time::{Duration, Instant};

use ojd_judge::Verdict;
use ojd_judge::{Judge, Submission};

const PROGRAM: &str = r#"#include <stdio.h>
int main(void) {
    long long a, b;
    if (scanf("%lld %lld", &a, &b) != 2) return 1;
    printf("%lld\n", a + b);
    return 0;
}
"#;

/// The `q` quantile of `v` (0.0 = the fastest).
fn quantile(v: &[Duration], q: f64) -> Duration {
    let mut v = v.to_vec();
    v.sort();
    v[((v.len() - 1) as f64 * q) as usize]
}

fn write_problem(dir: &Path, tests: usize) {
    std::fs::write(
        dir.join("problem.toml"),
        "title = \"per-test cost\"\nanswers = \"given\"\ntime_limit = \"1s\"\nmemory_limit = \"64MiB\"\n",
    )
    .expect("problem.toml");
    let t = dir.join("tests");
    std::fs::create_dir_all(&t).expect("tests folder");
    for i in 0..tests {
        let (a, b) = (i as i64 * 7919, 1_000_003 - i as i64);
        std::fs::write(t.join(format!("{i:03}.in")), format!("{a} {b}\n")).expect("input");
        std::fs::write(t.join(format!("{i:03}.ans")), format!("{}\n", a + b)).expect("answer");
    }
}

fn main() {
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let rounds: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(20);
    let tests: usize = args.get(1).and_then(|a| a.parse().ok()).unwrap_or(100);
    let scratch = tempfile::tempdir().expect("scratch folder");
    let problem_dir = scratch.path().join("problem");
    std::fs::create_dir_all(&problem_dir).expect("problem folder");
    write_problem(&problem_dir, tests);
    let source = scratch.path().join("prog.c");
    let prog = scratch.path().join("prog");
    std::fs::write(&source, PROGRAM).expect("prog.c");
    let cc = Command::new("cc")
        .arg("-O2")
        .arg("-o")
        .arg(&prog)
        .arg(&source)
        .status()
        .expect("cc runs");
    assert!(cc.success(), "cc failed");

    let problem = ojd_judge::Problem::load(&problem_dir).expect("the problem loads");
    assert_eq!(problem.tests.len(), tests);
    let mut judge = Judge::new(ojd_judge::Config::defaults(), 1).expect("judge starts");
    let ojd = env!("CARGO_BIN_EXE_ojd");
    // OJD_KEEPER runs another build's keeper under the same judge (and `ojd judge` reads it too),
    // to compare sandbox versions side by side.
    judge.set_keeper(std::env::var_os("OJD_KEEPER").map_or_else(|| ojd.into(), Into::into));
    let sub = Submission {
        language: "binary".into(),
        source: std::fs::read(&prog).expect("the program"),
    };
    let judge_once = || {
        let report = judge
            .judge(&problem, &sub, &mut |_| {}, &AtomicBool::new(false))
            .expect("judging works");
        assert_eq!(report.verdict, Verdict::Accepted, "{report:?}");
        assert_eq!(report.tests.len(), tests);
    };
    let bare_once = || {
        let st = Command::new("sh")
            .arg("-c")
            .arg(
                "cd \"$1\" && for t in problem/tests/*.in; do ./prog < \"$t\" > out && \
                 cmp -s out \"${t%.in}.ans\" || exit 1; done",
            )
            .arg("sh")
            .arg(scratch.path())
            .status()
            .expect("sh runs");
        assert!(st.success(), "the bare loop failed");
    };
    let cli_once = || {
        let out = Command::new(ojd)
            .arg("judge")
            .arg("--json")
            .arg(&problem_dir)
            .arg(&prog)
            .output()
            .expect("ojd judge runs");
        assert!(
            out.status.success(),
            "ojd judge: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    };
    // Warm up: the keeper, the compile cache, the page cache.
    judge_once();
    bare_once();
    cli_once();
    let (mut bare, mut inproc, mut cli) = (Vec::new(), Vec::new(), Vec::new());
    let time = |f: &dyn Fn()| {
        let t = Instant::now();
        f();
        t.elapsed() / tests as u32
    };
    for _ in 0..rounds {
        bare.push(time(&bare_once));
        inproc.push(time(&judge_once));
        cli.push(time(&cli_once));
    }
    let load = std::fs::read_to_string("/proc/loadavg").unwrap_or_default();
    println!(
        "{tests} one-line tests, {rounds} rounds, interleaved; load average {}",
        load.split_whitespace()
            .take(3)
            .collect::<Vec<_>>()
            .join(" ")
    );
    let ms = |d: Duration| d.as_secs_f64() * 1e3;
    println!("per test              p10         median      ratio to bare (p10 / median)");
    let (b10, b50) = (quantile(&bare, 0.1), quantile(&bare, 0.5));
    for (name, v) in [
        ("bare loop", &bare),
        ("judge", &inproc),
        ("ojd judge", &cli),
    ] {
        let (p10, p50) = (quantile(v, 0.1), quantile(v, 0.5));
        println!(
            "{name:<12} {:>9.3} ms {:>9.3} ms    {:.2} / {:.2}",
            ms(p10),
            ms(p50),
            ms(p10) / ms(b10),
            ms(p50) / ms(b50)
        );
    }
}
