//! The running side of `ojd verify`: a small pool of worker threads and the three phases
//! (compile here; judge in parallel, [`judge`]; re-run near the limit alone, [`alone`]), and the
//! results cache's side ([`reuse`]); see the module documentation of the crate for why timings
//! stay honest.

mod alone;
mod judge;
mod reuse;

pub(crate) use alone::rerun_alone;
pub(crate) use judge::{judge_all, CellIndex};
pub(crate) use reuse::{reuse, reuse_compiled, store};

// The phases call one another's helpers (and the tests below reach them) through these.
use alone::*;
use judge::*;

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use crate::cache;
use crate::discover::{ms, record_error, Plan, Stage};
use crate::prior::{self, Route};
use crate::settle::{settle, Settle};
use crate::{Baseline, Cell, Key, ProblemReport, Progress, Stats, CLEAR_TLE, GREY, RERUNS, SLACK};
use ojd_judge::answers::{self, GenError, GenOptions, GenSummary};
use ojd_judge::Problem;
use ojd_judge::{Compiled, HostFault, Judge, JudgeError, Submission};
use ojd_judge::{TestResult, Verdict};

/// Runs `jobs` on `workers` threads; results in job order, and the seconds spent in jobs.
pub(super) fn pool<J: Sync, R: Send>(
    jobs: &[J],
    workers: usize,
    run: &(dyn Fn(&J) -> R + Sync),
    label: &(dyn Fn(&J) -> String + Sync),
    phase: &str,
    progress: &Progress<'_>,
) -> (Vec<R>, f64) {
    let (next, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let busy_us = AtomicUsize::new(0);
    let results = Mutex::new(Vec::with_capacity(jobs.len()));
    std::thread::scope(|s| {
        for _ in 0..workers.clamp(1, jobs.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let t = std::time::Instant::now();
                let r = run(job);
                busy_us.fetch_add(t.elapsed().as_micros() as usize, Ordering::Relaxed);
                progress(
                    phase,
                    done.fetch_add(1, Ordering::Relaxed) + 1,
                    jobs.len(),
                    &label(job),
                );
                results
                    .lock()
                    .unwrap_or_else(PoisonError::into_inner)
                    .push((i, r));
            });
        }
    });
    let mut v = results.into_inner().unwrap_or_else(PoisonError::into_inner);
    v.sort_by_key(|(i, _)| *i);
    (
        v.into_iter().map(|(_, r)| r).collect(),
        busy_us.into_inner() as f64 / 1e6,
    )
}

/// What the compile phase compiles: a submission, or a program of a problem's package that its
/// `gen --check` or its judging runs (a generator, the validator, the reference when it is not
/// compiled as a submission, the checker, the interactor; the problem's index and the path in
/// the package). Compiled here, in parallel and longest first, they are hits in the compile cache
/// when the gen check and the runs ask for them: a gen check is one job, which would otherwise
/// compile its problem's generators and validator one after the other.
pub(super) enum Build {
    Sub(usize, usize),
    Tool(usize, std::path::PathBuf),
}

/// A rough relative cost of compiling `source` in `language`, to start the longest first: the
/// phase ends with its last compile, and two workers end together only when the short ones come
/// last. Measured on the seed problems: rustc -O 0.4 to 0.8 s of CPU, g++ -O2 0.2 to 0.45 s.
pub(super) fn compile_cost(language: &str, source_len: usize) -> (u32, usize) {
    let weight = match language {
        "kotlin" => 20,
        "java" => 4,
        "rust" => 2,
        "c" | "cpp" => 1,
        _ => 0,
    };
    (weight, source_len)
}

/// The package programs of problem `p` the later phases will ask the compile cache for (see
/// [`Build::Tool`]).
pub(super) fn tools(plan: &Plan) -> Vec<std::path::PathBuf> {
    let Some(problem) = plan.problem.as_ref() else {
        return Vec::new();
    };
    let gen_check = !plan.gen_reused;
    let judges = plan.report.judged && plan.subs.iter().any(|s| s.stage == Stage::Found);
    let mut out: Vec<std::path::PathBuf> = Vec::new();
    let mut add = |path: &std::path::Path| {
        if !out.iter().any(|p| p == path) {
            out.push(path.to_path_buf());
        }
    };
    if gen_check {
        for g in &problem.generate {
            add(&g.program);
        }
        if let Some(v) = &problem.validator {
            add(v);
        }
        // The reference as a submission is compiled anyway (the same source, one cache key).
        let reference_compiled = plan
            .subs
            .iter()
            .any(|s| s.report.reference && s.stage == Stage::Found);
        if !problem.answers_given && !reference_compiled {
            add(&problem.solution);
        }
    }
    if gen_check || judges {
        if let Some(c) = problem.checker.program_path() {
            add(c);
        }
        if let Some(i) = &problem.interactor {
            add(&i.path);
        }
    }
    out
}

/// Phase 1: every submission still to judge, and the package programs the later phases run
/// ([`Build`]), on `jobs` workers, longest first. Returns the workers' busy seconds and the
/// package programs, pinned in the compile cache while the caller holds them.
pub(crate) fn compile_all(
    judge: &Judge,
    plans: &mut [Plan],
    jobs: usize,
    progress: &Progress<'_>,
    stats: &mut Stats,
) -> (f64, Vec<ojd_judge::Program>) {
    // A submission whose every cell the results cache had is not compiled (see `reuse`).
    let mut work: Vec<(Build, (u32, usize))> = Vec::new();
    for (p, plan) in plans.iter().enumerate() {
        for (s, sub) in plan.subs.iter().enumerate() {
            if sub.stage == Stage::Found {
                let cost = compile_cost(&sub.submission.language, sub.submission.source.len());
                work.push((Build::Sub(p, s), cost));
            }
        }
        let Some(problem) = plan.problem.as_ref() else {
            continue;
        };
        for path in tools(plan) {
            let full = problem.dir.join(&path);
            let cost = std::fs::read(&full)
                .ok()
                .and_then(|source| {
                    let language = judge.detect_language(&full, &source)?;
                    Some(compile_cost(&language, source.len()))
                })
                .unwrap_or_default();
            work.push((Build::Tool(p, path), cost));
        }
    }
    // Longest first (a stable sort: equal costs keep the problems' order).
    work.sort_by_key(|b| std::cmp::Reverse(b.1));
    let work: Vec<(Build, String)> = work
        .into_iter()
        .map(|(b, _)| {
            let name = match &b {
                Build::Sub(p, s) => format!(
                    "{} {}",
                    plans[*p].report.problem, plans[*p].subs[*s].report.name
                ),
                Build::Tool(p, path) => {
                    format!("{} {}", plans[*p].report.problem, path.display())
                }
            };
            (b, name)
        })
        .collect();
    let (results, busy) = {
        let plans = &*plans;
        let compile = |(b, _): &(Build, String)| {
            let started = std::time::Instant::now();
            let r = match b {
                Build::Sub(p, s) => {
                    let sub = &plans[*p].subs[*s].submission;
                    match &plans[*p].problem {
                        Some(problem) => judge.compile_in_measured(problem, sub),
                        None => judge.compile_measured(sub),
                    }
                }
                Build::Tool(p, path) => {
                    let problem = plans[*p]
                        .problem
                        .as_ref()
                        .expect("tools are of loaded problems");
                    judge.compile_file_in_measured(problem, &problem.dir.join(path))
                }
            };
            (r, started.elapsed())
        };
        let name = |(_, name): &(Build, String)| name.clone();
        pool(&work, jobs, &compile, &name, "compiling", progress)
    };
    stats.compilations = work
        .iter()
        .filter(|(b, _)| matches!(b, Build::Sub(..)))
        .count();
    let mut kept = Vec::new();
    for ((b, name), (r, took)) in work.iter().zip(results) {
        stats.compiles.push(crate::CompileTime {
            program: name.clone(),
            seconds: took.as_secs_f64(),
            cpu_seconds: r
                .as_ref()
                .ok()
                .and_then(|(_, cpu)| cpu.map(|c| c.as_secs_f64())),
        });
        let (p, s) = match *b {
            Build::Sub(p, s) => (p, s),
            // A package program that does not compile, or whose compile failed, is reported by
            // what runs it (the gen check, a cell), in its own words.
            Build::Tool(..) => {
                if let Ok((Compiled::Program(program), _)) = r {
                    kept.push(program);
                }
                continue;
            }
        };
        let plan = &mut plans[p];
        let problem = plan
            .problem
            .as_ref()
            .expect("only loaded problems have submissions");
        let sub = &mut plan.subs[s];
        match r.map(|(c, _)| c) {
            Ok(Compiled::Program(program)) => {
                sub.report.limit_ms = ms(judge.limits_for(problem, &program).cpu);
                sub.stage = Stage::Compiled;
                sub.cells = vec![None; problem.tests.len()];
            }
            Ok(Compiled::Error(message)) => {
                sub.report.compile_output = message;
                sub.stage = Stage::CompileError;
            }
            Err(e) => {
                sub.stage = Stage::Failed;
                record_error(
                    &mut plan.report,
                    &format!("{}: compiling", sub.report.name),
                    &e,
                );
            }
        }
    }
    stats
        .compiles
        .sort_by(|a, b| b.seconds.total_cmp(&a.seconds));
    (busy, kept)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_starved_run_alone_is_tried_again_until_fed_or_past_its_budget() {
        let starved = || {
            JudgeError::Host(HostFault::Starved {
                during: "the run".into(),
                wall: std::time::Duration::from_secs(1),
                cpu_wait: std::time::Duration::from_secs(2),
                tries: 3,
            })
        };
        let mut tries = 0;
        let r = fed(std::time::Duration::from_secs(60), || {
            tries += 1;
            if tries < 3 {
                Err(starved())
            } else {
                Ok(tries)
            }
        });
        assert_eq!(r.ok(), Some(3), "fed on the third try");
        // Past the budget: the host's fault, as the last try said.
        let mut tries = 0;
        let r: Result<(), _> = fed(std::time::Duration::from_millis(400), || {
            tries += 1;
            Err(starved())
        });
        assert!(matches!(
            r,
            Err(JudgeError::Host(HostFault::Starved { .. }))
        ));
        assert_eq!(tries, 1, "a first pause past the budget is not taken");
        // Anything else is returned at once.
        let mut tries = 0;
        let r: Result<(), _> = fed(std::time::Duration::from_secs(60), || {
            tries += 1;
            Err(JudgeError::Cancelled)
        });
        assert!(matches!(r, Err(JudgeError::Cancelled)));
        assert_eq!(tries, 1);
    }

    /// A plan of one compiled `time_limit_exceeded/` submission over `tests` tests, none judged.
    fn one_submission(tests: usize) -> Plan {
        let names: Vec<String> = (1..=tests).map(|i| format!("{i:02}")).collect();
        Plan {
            report: ProblemReport {
                problem: "p".into(),
                tests: names,
                judged: true,
                ..Default::default()
            },
            problem: None,
            subs: vec![super::super::discover::Sub {
                report: super::super::SubmissionReport {
                    name: "time_limit_exceeded/brute.rs".into(),
                    reference: false,
                    expected: Verdict::TimeLimitExceeded,
                    promise: Default::default(),
                    language: "rust".into(),
                    limit_ms: 1000,
                    source_hash: 0,
                    verdict: Verdict::Accepted,
                    compile_output: String::new(),
                    tests: Vec::new(),
                    ok: true,
                    failures: Vec::new(),
                    timing_fragile: Vec::new(),
                },
                submission: Submission {
                    language: "rust".into(),
                    source: Vec::new(),
                },
                stage: Stage::Compiled,
                cells: vec![None; tests],
                ran: None,
                keys: Vec::new(),
                found: Vec::new(),
            }],
            gen_key: None,
            gen_reused: false,
            unscaled: None,
            starved: Vec::new(),
        }
    }

    /// The compile phase starts the longest compiles first: a Kotlin or Java program before a
    /// Rust one, Rust before C and C++, interpreted languages (nothing to compile) last, and
    /// within a language the larger source first.
    #[test]
    fn compiles_are_ordered_longest_first() {
        let mut jobs = vec![
            ("python3", 9000),
            ("cpp", 800),
            ("rust", 500),
            ("c", 3000),
            ("rust", 2500),
            ("kotlin", 100),
            ("java", 100),
        ];
        jobs.sort_by_key(|j| std::cmp::Reverse(compile_cost(j.0, j.1)));
        assert_eq!(
            jobs,
            [
                ("kotlin", 100),
                ("java", 100),
                ("rust", 2500),
                ("rust", 500),
                ("c", 3000),
                ("cpp", 800),
                ("python3", 9000),
            ]
        );
    }

    #[test]
    fn a_starved_parallel_run_waits_for_a_run_alone_and_other_host_faults_do_not() {
        let mut plan = one_submission(3);
        let starved = JudgeError::Host(HostFault::Starved {
            during: "main".into(),
            wall: std::time::Duration::from_secs(3),
            cpu_wait: std::time::Duration::from_secs(2),
            tries: 3,
        });
        record_parallel(&mut plan, 0, 1, Err(starved));
        // Not the judge's failure yet (no exit 3), and no verdict: a JE cell to judge alone.
        assert_eq!(plan.starved, vec![(0, 1)]);
        assert!(
            plan.report.judge_errors.is_empty(),
            "{:?}",
            plan.report.judge_errors
        );
        let cell = plan.subs[0].cells[1].as_ref().expect("a cell");
        assert_eq!(cell.result.verdict, Verdict::JudgeError);
        assert!(!cell.past_margin && !cell.not_run);
        // Any other host fault is the judge's failure at once.
        let io = JudgeError::Io {
            what: "write".into(),
            source: std::io::Error::other("disk"),
        };
        record_parallel(&mut plan, 0, 2, Err(io));
        assert_eq!(plan.starved, vec![(0, 1)]);
        assert_eq!(plan.report.judge_errors.len(), 1);
    }

    #[test]
    fn a_run_alone_does_not_count_the_starved_parallel_run_as_seen() {
        let mut plan = one_submission(1);
        plan.subs[0].cells[0] = Some(starved_cell(
            "01",
            &JudgeError::Host(HostFault::Starved {
                during: "main".into(),
                wall: std::time::Duration::from_secs(3),
                cpu_wait: std::time::Duration::from_secs(2),
                tries: 3,
            }),
        ));
        assert!(parallel_seen(plan.subs[0].cells[0].as_ref()).is_empty());
        let mut finished = starved_cell("01", &JudgeError::Cancelled);
        finished.result.verdict = Verdict::Accepted;
        finished.result.cpu_ms = 900;
        assert_eq!(
            parallel_seen(Some(&finished)),
            vec![(Verdict::Accepted, 900, "parallel")]
        );
    }

    fn result(verdict: Verdict, cpu_ms: u64) -> TestResult {
        TestResult {
            name: "t".into(),
            sample: false,
            verdict,
            cpu_ms,
            wall_ms: cpu_ms,
            memory_kib: 0,
            exit: None,
            message: String::new(),
            diff: None,
        }
    }

    #[test]
    fn disagreement_table() {
        use Verdict::*;
        let table: &[(&[(Verdict, u64)], bool)] = &[
            (
                &[(TimeLimitExceeded, 1500), (TimeLimitExceeded, 1003)],
                false,
            ),
            (&[(TimeLimitExceeded, 1500), (Accepted, 910)], false),
            (&[(Accepted, 800), (Accepted, 950)], false),
            (&[(TimeLimitExceeded, 1100), (RuntimeError, 4)], true),
            (&[(Accepted, 800), (WrongAnswer, 790)], true),
        ];
        for (runs, want) in table {
            let seen: Vec<(Verdict, u64, &str)> =
                runs.iter().map(|(v, ms)| (*v, *ms, "x")).collect();
            assert_eq!(inconsistent(&seen, 1000), *want, "{runs:?}");
        }
    }

    #[test]
    fn open_verdict_table() {
        use Verdict::*;
        for (v, cpu, want) in [
            (Accepted, 999, false),
            (WrongAnswer, 950, false),
            (TimeLimitExceeded, 0, false),
            (TimeLimitExceeded, 749, false),
            (TimeLimitExceeded, 750, true),
            (TimeLimitExceeded, 1000, true),
            (TimeLimitExceeded, 1399, true),
            (TimeLimitExceeded, 1400, false),
            (TimeLimitExceeded, 1501, false),
            (JudgeError, 900, false),
        ] {
            assert_eq!(open_verdict(&result(v, cpu), 1000), want, "{v:?} {cpu}");
        }
    }

    #[test]
    fn a_generous_run_is_judged_at_the_exact_limit() {
        use std::time::Duration;
        let limits = ojd_sandbox::Limits {
            cpu: Duration::from_millis(1000),
            wall: Duration::from_millis(3000),
            memory: 1 << 26,
            output: 1 << 20,
            processes: 1,
            file_size: 1 << 20,
        };
        let cases = [
            (result(Verdict::Accepted, 1000), Verdict::Accepted),
            (result(Verdict::Accepted, 1001), Verdict::TimeLimitExceeded),
            (
                result(Verdict::WrongAnswer, 1200),
                Verdict::TimeLimitExceeded,
            ),
            (
                result(Verdict::TimeLimitExceeded, 1500),
                Verdict::TimeLimitExceeded,
            ),
            (
                TestResult {
                    wall_ms: 3001,
                    ..result(Verdict::Accepted, 10)
                },
                Verdict::TimeLimitExceeded,
            ),
        ];
        for (r, want) in cases {
            let (cpu, wall) = (r.cpu_ms, r.wall_ms);
            let got = at_limit(r, &limits);
            assert_eq!(got.verdict, want, "cpu {cpu} wall {wall}");
            assert_eq!(got.cpu_ms, cpu, "the measured time is kept");
            if want == Verdict::TimeLimitExceeded {
                assert!(
                    got.message.contains("limit of 1000 ms exceeded")
                        || got.message.contains("limit of 3000 ms exceeded"),
                    "the exact limit is named: {}",
                    got.message
                );
            }
        }
    }
}
