//! Stability of measured CPU time, with and without pinning keepers to CPUs.
//!
//! Judges the same accepted submission N times in a row on a problem, while a second worker of
//! the same judge runs a busy program the whole time, once with `pin_cpus = "auto"` and once with
//! `pin_cpus = "off"`, the two modes interleaved run by run so that machine noise hits both alike.
//! Prints, per test, the mean CPU time and its coefficient of variation (stddev / mean) in each
//! mode, and the median over tests. Tests under 20 ms are left out: at 1 ms resolution their CV
//! measures the clock, not the judge.
//!
//! `cargo bench --bench timing_cv -- [N] [problem] [submission] [--alone]` (defaults: 30 runs of
//! problems/huarong/submissions/accepted/noip_spfa.cpp). Needs root (the sandbox).

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use ojd_judge::{Judge, Submission};

fn judge(pin: &str) -> Judge {
    let mut config = ojd_judge::Config::defaults();
    config.judge.pin_cpus = pin.into();
    let mut j = Judge::new(config, 2).expect("judge starts");
    j.set_keeper(env!("CARGO_BIN_EXE_ojd").into());
    j
}

/// Keeps the judge's other keeper busy with a spinning program until `stop`.
fn busy(j: &Judge, stop: &AtomicBool) {
    let dir = tempfile::tempdir().expect("scratch");
    let program = ojd_judge::Program {
        dir: dir.path().to_path_buf(),
        run: vec!["/bin/sh".into(), "-c".into(), "while :; do :; done".into()],
        time_factor: 1.0,
        memory_extra: 0,
        profile: Default::default(),
        pin: Default::default(),
    };
    let out = dir.path().join("out");
    while !stop.load(Ordering::Relaxed) {
        let run = ojd_judge::ProgramRun {
            program: &program,
            args: &[],
            stdin: None,
            stdout: &out,
            stderr: None,
            box_files: vec![],
            collect: vec![],
            limits: ojd_sandbox::Limits {
                cpu: Duration::from_secs(2),
                wall: Duration::from_secs(4),
                memory: 64 << 20,
                output: 1 << 20,
                processes: 4,
                file_size: 1 << 20,
            },
        };
        j.execute(&run).expect("busy run");
    }
}

/// One judging of `sub` while the other worker is busy (unless `alone`).
fn one_round(
    j: &Judge,
    problem: &ojd_judge::Problem,
    sub: &Submission,
    alone: bool,
) -> ojd_judge::JudgeReport {
    let stop = AtomicBool::new(false);
    let report = std::thread::scope(|s| {
        if !alone {
            s.spawn(|| busy(j, &stop));
            // Let the busy program start first, so that the judged runs always have company.
            std::thread::sleep(Duration::from_millis(50));
        }
        let r = j.judge(problem, sub, &mut |_| {}, &AtomicBool::new(false));
        stop.store(true, Ordering::Relaxed);
        r
    })
    .expect("judging works");
    assert_eq!(report.verdict, ojd_judge::Verdict::Accepted, "{report:?}");
    report
}

fn stats(v: &[u64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<u64>() as f64 / n;
    let var = v.iter().map(|&x| (x as f64 - mean).powi(2)).sum::<f64>() / (n - 1.0).max(1.0);
    (mean, if mean > 0.0 { var.sqrt() / mean } else { 0.0 })
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v.get(v.len() / 2).copied().unwrap_or(0.0)
}

fn main() {
    // `--alone`: no busy neighbour, to tell the machine's own noise from the neighbour's.
    let alone = std::env::args().any(|a| a == "--alone");
    let args: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .collect();
    let n: usize = args.first().and_then(|a| a.parse().ok()).unwrap_or(30);
    let problem_dir = PathBuf::from(args.get(1).map_or("problems/huarong", String::as_str));
    let sub_path = args.get(2).map_or_else(
        || problem_dir.join("submissions/accepted/noip_spfa.cpp"),
        PathBuf::from,
    );
    let problem = ojd_judge::Problem::load(&problem_dir).expect("problem loads");
    let source = std::fs::read(&sub_path).expect("submission readable");
    let modes = ["auto", "off"];
    let language = judge("off")
        .detect_language(&sub_path, &source)
        .expect("known language");
    let sub = Submission { language, source };
    // The pinning plan is the process's and applies to keepers as they start: each judge's two
    // keepers are started (by a first round, not counted) before the next judge sets its plan.
    let judges: Vec<Judge> = modes
        .iter()
        .map(|m| {
            let j = judge(m);
            one_round(&j, &problem, &sub, alone);
            j
        })
        .collect();
    let mut cpu: Vec<Vec<Vec<u64>>> = vec![vec![Vec::new(); problem.tests.len()]; modes.len()];
    for round in 0..n {
        for (m, j) in judges.iter().enumerate() {
            let report = one_round(j, &problem, &sub, alone);
            for (t, r) in report.tests.iter().enumerate() {
                cpu[m][t].push(r.cpu_ms);
            }
        }
        eprint!("\rround {}/{n}", round + 1);
    }
    eprintln!();
    println!(
        "{} × {} on {}, {} ({} CPUs usable)",
        n,
        sub_path.display(),
        problem.id,
        if alone {
            "nothing on the other worker"
        } else {
            "a busy program on the other worker"
        },
        ojd_sandbox::affinity::allowed_cpus().len()
    );
    println!(
        "{:<26} {:>9} {:>8} {:>9} {:>8}",
        "test", "pinned ms", "CV", "free ms", "CV"
    );
    let mut cvs = vec![Vec::new(); modes.len()];
    for (t, test) in problem.tests.iter().enumerate() {
        let s: Vec<(f64, f64)> = (0..modes.len()).map(|m| stats(&cpu[m][t])).collect();
        if s[0].0 < 20.0 {
            continue;
        }
        for m in 0..modes.len() {
            cvs[m].push(s[m].1);
        }
        println!(
            "{:<26} {:>9.1} {:>7.2}% {:>9.1} {:>7.2}%",
            test.name,
            s[0].0,
            s[0].1 * 100.0,
            s[1].0,
            s[1].1 * 100.0
        );
    }
    println!(
        "median CV over {} tests: pinned {:.2}%, not pinned {:.2}%",
        cvs[0].len(),
        median(cvs[0].clone()) * 100.0,
        median(cvs[1].clone()) * 100.0
    );
}
