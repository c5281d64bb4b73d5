//! `ojd verify`: regression judging of every problem's known submissions, for admins and CI.
//! The entry point is [`verify`]; its result is a [`VerifyReport`].
//!
//! For each problem: load and lint the package (every error at once), check that its answers are
//! up to date and its inputs valid (the work of `ojd gen --check`), judge the reference solver
//! and every file under `submissions/<expected>/` on every test, and check each gets what its
//! folder promises ([`expect`]). The result is an invocation matrix (submissions × tests),
//! optionally compared with a saved [`Baseline`].
//!
//! # Phases
//! 1. compile every submission (in parallel; the judge caches programs by hash);
//! 2. `gen --check` of every problem and every (submission, test) run, in parallel: each test is
//!    a job of its own, judged by [`Judge::judge`] on a one-test copy of the problem, so the one
//!    judging pipeline is used and long submissions do not hold up the others;
//! 3. re-run alone the runs whose time came close to the limit.
//!
//! # Timing honesty
//! Parallel runs share caches, memory bandwidth and the scheduler, which inflates measured CPU
//! time a little. So: at most one worker per physical core by default ([`default_jobs`]);
//! verdicts rest on CPU time, not wall time; a run in phase 2 gets [`SLACK`] times the limit,
//! and a verdict stands only if it is clear of the limit either way — CPU time under [`GREY`]
//! of the limit, or a TLE above [`CLEAR_TLE`] of it. Every other run (including a TLE by wall
//! time) is judged again in phase 3 with the exact limit and nothing else of ours running, and
//! that run decides. The matrix marks such re-runs with `*`.

mod baseline;
mod expect;
mod render;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use serde::Serialize;

use crate::answers::{self, GenError, GenOptions, GenSummary};
use crate::judge::{Judge, JudgeError, Submission};
use crate::problem::Problem;
use crate::verdict::{TestResult, Verdict};

pub use baseline::{compare, parse_percent, Baseline, BaselineDiff, BaselineError, Change, Key, Record, Scope};
pub use expect::{failures, folder_verdict, FOLDERS};
pub use render::{junit, render_baseline_diff, render_text};

/// Parallel runs get this many times the time limit.
pub const SLACK: f64 = 1.25;
/// A verdict from a parallel run stands if its CPU time is under this share of the limit...
pub const GREY: f64 = 0.8;
/// ...or if it is a TLE whose CPU time is above this multiple of the limit.
pub const CLEAR_TLE: f64 = 1.2;

/// How to verify.
#[derive(Clone, Debug)]
pub struct VerifyOptions {
    /// Parallel workers (each runs one program at a time).
    pub jobs: usize,
    /// A baseline to compare with, and the name to show for it.
    pub baseline: Option<(String, Baseline)>,
    /// Allowed growth of a test's CPU time before it is reported (0.5 = 50%).
    pub time_threshold: f64,
    /// Every problem is verified (none was named): baseline problems not seen were removed.
    pub all_problems: bool,
}

/// Progress: (phase, done, total, item).
pub type Progress<'a> = dyn Fn(&str, usize, usize, &str) + Sync + 'a;

/// Everything `ojd verify` found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct VerifyReport {
    pub problems: Vec<ProblemReport>,
    pub baseline: Option<BaselineDiff>,
    /// Isolation warnings of this host.
    pub warnings: Vec<String>,
    /// Failures of the judge outside any one problem (the sandbox did not start).
    pub judge_errors: Vec<String>,
    pub stats: Stats,
}

/// How much work a verification took.
#[derive(Clone, Debug, Default, Serialize)]
pub struct Stats {
    pub workers: usize,
    pub compilations: usize,
    /// Runs of a submission on a test in the parallel phase.
    pub test_runs: usize,
    /// Runs repeated alone because their time was close to the limit.
    pub reruns: usize,
    /// `gen --check` passes (each runs the generators, validator and reference).
    pub gen_checks: usize,
    pub seconds: f64,
}

/// One problem's results.
#[derive(Clone, Debug, Default, Serialize)]
pub struct ProblemReport {
    pub problem: String,
    pub dir: PathBuf,
    pub time_limit_ms: u64,
    pub tests: Vec<String>,
    /// Whether its submissions were judged (it loaded and has every answer).
    pub judged: bool,
    /// Package errors: the admin's to fix (exit code 2).
    pub errors: Vec<String>,
    /// The judge's own failures (exit code 3).
    pub judge_errors: Vec<String>,
    pub warnings: Vec<String>,
    pub inputs_validated: usize,
    pub submissions: Vec<SubmissionReport>,
}

/// One submission's row of the matrix.
#[derive(Clone, Debug, Serialize)]
pub struct SubmissionReport {
    /// Path under `submissions/`, or the reference's path in the package.
    pub name: String,
    pub reference: bool,
    /// What its folder promises (see [`expect`]).
    pub expected: Verdict,
    pub language: String,
    /// Its CPU time limit (the problem's, times the language's factor).
    pub limit_ms: u64,
    /// The first verdict other than AC in test order; CE when it did not compile.
    pub verdict: Verdict,
    pub compile_output: String,
    pub tests: Vec<Cell>,
    /// It got what its folder promises.
    pub ok: bool,
    /// Why not.
    pub failures: Vec<String>,
}

/// One run of the matrix.
#[derive(Clone, Debug, Serialize)]
pub struct Cell {
    #[serde(flatten)]
    pub result: TestResult,
    /// Judged again alone because the parallel run came close to the limit.
    pub rerun: bool,
}

impl VerifyReport {
    /// 0 all as expected, 1 a verdict differs from expectation or baseline, 2 a package or
    /// configuration error, 3 the judge itself failed (the highest applicable).
    pub fn exit_code(&self) -> i32 {
        if !self.judge_errors.is_empty() || self.problems.iter().any(|p| !p.judge_errors.is_empty()) {
            3
        } else if self.problems.iter().any(|p| !p.errors.is_empty()) {
            2
        } else if self.problems.iter().flat_map(|p| &p.submissions).any(|s| !s.ok)
            || self.baseline.as_ref().is_some_and(BaselineDiff::fails)
        {
            1
        } else {
            0
        }
    }

    /// The verdicts and times of this run, as a baseline. A submission that does not compile
    /// records CE on every test, so that a later compile error shows on every test too.
    pub fn to_baseline(&self) -> Baseline {
        let mut b = Baseline::default();
        for p in self.problems.iter().filter(|p| p.judged) {
            for s in &p.submissions {
                let key = |test: &str| Key { problem: p.problem.clone(), submission: s.name.clone(), test: test.into() };
                if s.verdict == Verdict::CompileError && s.tests.is_empty() {
                    for t in &p.tests {
                        b.entries.insert(key(t), Record { verdict: Verdict::CompileError, cpu_ms: 0 });
                    }
                }
                for c in &s.tests {
                    b.entries.insert(key(&c.result.name), Record { verdict: c.result.verdict, cpu_ms: c.result.cpu_ms });
                }
            }
        }
        b
    }
}

/// One worker per physical core (SMT siblings share a core's execution units, so two runs on
/// one core would time each other), never more than this process may use.
pub fn default_jobs() -> usize {
    let allowed = std::thread::available_parallelism().map_or(1, |n| n.get());
    let text = std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default();
    let (mut cores, mut package) = (BTreeSet::new(), String::new());
    for line in text.lines() {
        let (k, v) = line.split_once(':').map(|(k, v)| (k.trim(), v.trim())).unwrap_or_default();
        match k {
            "physical id" => package = v.to_string(),
            "core id" => {
                cores.insert((package.clone(), v.to_string()));
            }
            _ => {}
        }
    }
    if cores.is_empty() { allowed } else { cores.len().min(allowed) }
}

/// Verifies the problems in `dirs` (see the module documentation).
pub fn verify(judge: &Judge, dirs: &[PathBuf], opts: &VerifyOptions, progress: &Progress<'_>) -> VerifyReport {
    let started = Instant::now();
    let mut report = VerifyReport { stats: Stats { workers: opts.jobs.max(1), ..Stats::default() }, ..Default::default() };
    match judge.warnings() {
        Ok(w) => report.warnings = w,
        Err(e) => {
            report.judge_errors.push(format!("the sandbox does not start: {e}"));
            return report;
        }
    }
    let mut plans: Vec<Plan> = dirs.iter().map(|d| plan(judge, d)).collect();
    compile_all(judge, &mut plans, opts.jobs, progress, &mut report.stats);
    judge_all(judge, &mut plans, opts.jobs, progress, &mut report.stats);
    rerun_alone(judge, &mut plans, progress, &mut report.stats);
    report.problems = plans.into_iter().map(Plan::finish).collect();
    if let Some((file, old)) = &opts.baseline {
        let judged: BTreeSet<String> = report.problems.iter().filter(|p| p.judged).map(|p| p.problem.clone()).collect();
        let unjudged: BTreeSet<String> = report.problems.iter().filter(|p| !p.judged).map(|p| p.problem.clone()).collect();
        let scope = Scope { judged: &judged, unjudged: &unjudged, all: opts.all_problems };
        report.baseline = Some(compare(file, old, &report.to_baseline(), &scope, opts.time_threshold));
    }
    report.stats.seconds = started.elapsed().as_secs_f64();
    report
}

/// A problem on its way through the phases.
struct Plan {
    report: ProblemReport,
    problem: Option<Problem>,
    subs: Vec<Sub>,
}

#[derive(Copy, Clone, PartialEq)]
enum Stage {
    Found,
    Compiled,
    CompileError,
    Failed,
}

struct Sub {
    report: SubmissionReport,
    submission: Submission,
    stage: Stage,
    cells: Vec<Option<Cell>>,
}

fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

/// The judge's failures and the operator's mistakes go to different lists (exit 3 vs 2).
fn record_error(report: &mut ProblemReport, what: &str, e: &JudgeError) {
    let text = format!("{what}: {e}");
    match e {
        JudgeError::Io { .. } | JudgeError::Sandbox(_) | JudgeError::Cancelled => report.judge_errors.push(text),
        _ => report.errors.push(text),
    }
}

fn plan(judge: &Judge, dir: &Path) -> Plan {
    let id = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| dir.display().to_string());
    let mut report = ProblemReport { problem: id, dir: dir.to_path_buf(), ..Default::default() };
    let problem = match Problem::load(dir) {
        Ok(p) => p,
        Err(e) => {
            report.errors.extend(e.errors);
            return Plan { report, problem: None, subs: Vec::new() };
        }
    };
    report.problem = problem.id.clone();
    report.time_limit_ms = ms(problem.time_limit);
    report.tests = problem.tests.iter().map(|t| t.name.clone()).collect();
    let missing: Vec<&str> = problem.missing_answers().iter().map(|t| t.name.as_str()).collect();
    report.judged = missing.is_empty();
    if !missing.is_empty() {
        report.errors.push(format!("not judged: no answers for {} (run `ojd gen {}`)", missing.join(", "), dir.display()));
    }
    let subs = discover(judge, &problem, &mut report);
    Plan { report, problem: Some(problem), subs }
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| !p.file_name().is_some_and(|n| n.to_string_lossy().starts_with('.')));
    v.sort();
    v
}

/// The reference solver and every file under `submissions/<folder>/`, linted.
fn discover(judge: &Judge, problem: &Problem, report: &mut ProblemReport) -> Vec<Sub> {
    let mut subs = Vec::new();
    let reference = problem.solution.display().to_string();
    subs.extend(read_sub(judge, &problem.dir.join(&problem.solution), reference, Verdict::Accepted, true, report));
    let root = problem.dir.join("submissions");
    if !root.is_dir() {
        report.warnings.push("no submissions/ folder: only the reference solution is judged".into());
        return subs;
    }
    let known: Vec<&str> = FOLDERS.iter().map(|v| v.folder()).collect();
    for folder in sorted_entries(&root) {
        let name = folder.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
        let Some(expected) = folder_verdict(&name).filter(|_| folder.is_dir()) else {
            report.errors.push(format!("{}: not a verdict folder (expected one of {})", folder.display(), known.join(", ")));
            continue;
        };
        for file in sorted_entries(&folder) {
            let file_name = file.file_name().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            if file.is_dir() {
                report.errors.push(format!("{}: a folder; submissions are single files", file.display()));
                continue;
            }
            subs.extend(read_sub(judge, &file, format!("{name}/{file_name}"), expected, false, report));
        }
    }
    subs
}

fn read_sub(judge: &Judge, path: &Path, name: String, expected: Verdict, reference: bool, report: &mut ProblemReport) -> Option<Sub> {
    let source = std::fs::read(path).map_err(|e| report.errors.push(format!("{}: {e}", path.display()))).ok()?;
    let Some(language) = judge.detect_language(path, &source) else {
        report.errors.push(format!("{}: unknown language (by file extension)", path.display()));
        return None;
    };
    let submission = Submission { language, source };
    if let Err(e) = judge.check_submission(&submission) {
        record_error(report, &path.display().to_string(), &e);
        return None;
    }
    let report = SubmissionReport {
        name,
        reference,
        expected,
        language: submission.language.clone(),
        limit_ms: 0,
        verdict: Verdict::Accepted,
        compile_output: String::new(),
        tests: Vec::new(),
        ok: false,
        failures: Vec::new(),
    };
    Some(Sub { report, submission, stage: Stage::Found, cells: Vec::new() })
}

/// Runs `jobs` on `workers` threads; results in job order.
fn pool<J: Sync, R: Send>(
    jobs: &[J],
    workers: usize,
    run: &(dyn Fn(&J) -> R + Sync),
    label: &(dyn Fn(&J) -> String + Sync),
    phase: &str,
    progress: &Progress<'_>,
) -> Vec<R> {
    let (next, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let results = Mutex::new(Vec::with_capacity(jobs.len()));
    std::thread::scope(|s| {
        for _ in 0..workers.clamp(1, jobs.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let r = run(job);
                progress(phase, done.fetch_add(1, Ordering::Relaxed) + 1, jobs.len(), &label(job));
                results.lock().unwrap_or_else(PoisonError::into_inner).push((i, r));
            });
        }
    });
    let mut v = results.into_inner().unwrap_or_else(PoisonError::into_inner);
    v.sort_by_key(|(i, _)| *i);
    v.into_iter().map(|(_, r)| r).collect()
}

fn compile_all(judge: &Judge, plans: &mut [Plan], jobs: usize, progress: &Progress<'_>, stats: &mut Stats) {
    let work: Vec<(usize, usize)> =
        plans.iter().enumerate().flat_map(|(p, plan)| (0..plan.subs.len()).map(move |s| (p, s))).collect();
    let results = {
        let plans = &*plans;
        let label = |&(p, s): &(usize, usize)| format!("{} {}", plans[p].report.problem, plans[p].subs[s].report.name);
        pool(&work, jobs, &|&(p, s)| judge.compile(&plans[p].subs[s].submission), &label, "compiling", progress)
    };
    stats.compilations = work.len();
    for (&(p, s), r) in work.iter().zip(results) {
        let plan = &mut plans[p];
        let problem = plan.problem.as_ref().expect("only loaded problems have submissions");
        let sub = &mut plan.subs[s];
        match r {
            Ok(Ok(program)) => {
                sub.report.limit_ms = ms(judge.limits_for(problem, &program).cpu);
                sub.stage = Stage::Compiled;
                sub.cells = vec![None; problem.tests.len()];
            }
            Ok(Err(message)) => {
                sub.report.compile_output = message;
                sub.stage = Stage::CompileError;
            }
            Err(e) => {
                sub.stage = Stage::Failed;
                record_error(&mut plan.report, &format!("{}: compiling", sub.report.name), &e);
            }
        }
    }
}

#[derive(Copy, Clone)]
enum Job {
    Gen(usize),
    Test(usize, usize, usize),
}

enum Outcome {
    Gen(Result<GenSummary, GenError>),
    Test(Result<TestResult, JudgeError>),
}

/// Phase 2: every `gen --check` and every (submission, test) run, longest kinds first so that
/// the workers finish together.
fn judge_all(judge: &Judge, plans: &mut [Plan], jobs: usize, progress: &Progress<'_>, stats: &mut Stats) {
    let mut work: Vec<Job> = (0..plans.len()).filter(|&p| plans[p].problem.is_some()).map(Job::Gen).collect();
    stats.gen_checks = work.len();
    let mut tests: Vec<(bool, Job)> = Vec::new();
    for (p, plan) in plans.iter().enumerate().filter(|(_, plan)| plan.report.judged) {
        for (s, sub) in plan.subs.iter().enumerate().filter(|(_, sub)| sub.stage == Stage::Compiled) {
            let slow = sub.report.expected != Verdict::TimeLimitExceeded;
            tests.extend((0..sub.cells.len()).map(|t| (slow, Job::Test(p, s, t))));
        }
    }
    tests.sort_by_key(|(later, _)| *later);
    stats.test_runs = tests.len();
    work.extend(tests.into_iter().map(|(_, j)| j));
    let results = {
        let plans = &*plans;
        let run = |job: &Job| match *job {
            Job::Gen(p) => {
                let problem = plans[p].problem.as_ref().expect("gen jobs are for loaded problems");
                Outcome::Gen(answers::generate(judge, problem, &GenOptions { check: true, force: false }))
            }
            Job::Test(p, s, t) => {
                let problem = plans[p].problem.as_ref().expect("test jobs are for loaded problems");
                Outcome::Test(run_cell(judge, problem, t, &plans[p].subs[s].submission, SLACK))
            }
        };
        let label = |job: &Job| match *job {
            Job::Gen(p) => format!("{} gen --check", plans[p].report.problem),
            Job::Test(p, s, t) => format!("{} {} {}", plans[p].report.problem, plans[p].subs[s].report.name, plans[p].report.tests[t]),
        };
        pool(&work, jobs, &run, &label, "judging", progress)
    };
    for (job, outcome) in work.iter().zip(results) {
        match (*job, outcome) {
            (Job::Gen(p), Outcome::Gen(r)) => record_gen(&mut plans[p].report, r),
            (Job::Test(p, s, t), Outcome::Test(r)) => record_cell(&mut plans[p], s, t, r, false),
            _ => unreachable!("outcomes come back in job order"),
        }
    }
}

fn record_gen(report: &mut ProblemReport, r: Result<GenSummary, GenError>) {
    match r {
        Ok(s) => {
            report.inputs_validated = s.inputs_validated;
            if !s.differences.is_empty() {
                report.errors.push(format!("answers are out of date (run `ojd gen {}`):", report.dir.display()));
                report.errors.extend(s.differences);
            }
        }
        Err(GenError::Judge(e)) => record_error(report, "gen --check", &e),
        Err(e) => report.errors.push(e.to_string()),
    }
}

fn record_cell(plan: &mut Plan, s: usize, t: usize, r: Result<TestResult, JudgeError>, rerun: bool) {
    let test = plan.report.tests[t].clone();
    let result = match r {
        Ok(result) => result,
        Err(e) => {
            record_error(&mut plan.report, &format!("{} on {test}", plan.subs[s].report.name), &e);
            TestResult {
                name: test,
                sample: false,
                verdict: Verdict::JudgeError,
                cpu_ms: 0,
                wall_ms: 0,
                memory_kib: 0,
                exit: None,
                message: e.to_string(),
                diff: None,
            }
        }
    };
    plan.subs[s].cells[t] = Some(Cell { result, rerun });
}

/// Judges `sub` on test `t` alone, with `slack` times the time limits.
fn run_cell(judge: &Judge, problem: &Problem, t: usize, sub: &Submission, slack: f64) -> Result<TestResult, JudgeError> {
    let mut one = problem.clone();
    one.tests = vec![problem.tests[t].clone()];
    one.groups.clear();
    one.time_limit = problem.time_limit.mul_f64(slack);
    one.wall_time_limit = problem.wall_time_limit.map(|w| w.mul_f64(slack));
    let report = judge.judge(&one, sub, &mut |_| {}, &AtomicBool::new(false))?;
    Ok(report.tests.into_iter().next().unwrap_or_else(|| TestResult {
        name: problem.tests[t].name.clone(),
        sample: problem.tests[t].sample,
        verdict: report.verdict,
        cpu_ms: 0,
        wall_ms: 0,
        memory_kib: 0,
        exit: None,
        message: report.compile_output.lines().next().unwrap_or_default().to_string(),
        diff: None,
    }))
}

/// Whether a run made with [`SLACK`] is too close to the limit to decide its verdict.
fn needs_rerun(r: &TestResult, limit_ms: u64) -> bool {
    let (cpu, limit) = (r.cpu_ms as f64, limit_ms as f64);
    match r.verdict {
        Verdict::JudgeError | Verdict::CompileError => false,
        Verdict::TimeLimitExceeded => cpu <= CLEAR_TLE * limit,
        _ => cpu >= GREY * limit,
    }
}

/// Phase 3: runs near the limit, once more, one at a time, with the exact limit.
fn rerun_alone(judge: &Judge, plans: &mut [Plan], progress: &Progress<'_>, stats: &mut Stats) {
    let mut todo = Vec::new();
    for (p, plan) in plans.iter().enumerate() {
        for (s, sub) in plan.subs.iter().enumerate() {
            for (t, cell) in sub.cells.iter().enumerate() {
                if cell.as_ref().is_some_and(|c| needs_rerun(&c.result, sub.report.limit_ms)) {
                    todo.push((p, s, t));
                }
            }
        }
    }
    stats.reruns = todo.len();
    for (i, &(p, s, t)) in todo.iter().enumerate() {
        let plan = &mut plans[p];
        let problem = plan.problem.as_ref().expect("cells exist only for loaded problems");
        let r = run_cell(judge, problem, t, &plan.subs[s].submission, 1.0);
        let label = format!("{} {} {}", plan.report.problem, plan.subs[s].report.name, plan.report.tests[t]);
        record_cell(plan, s, t, r, true);
        progress("re-running alone", i + 1, todo.len(), &label);
    }
}

impl Plan {
    fn finish(self) -> ProblemReport {
        let mut report = self.report;
        for sub in self.subs {
            let s = sub.finish(&report.tests);
            if s.reference && s.ok {
                margin_warning(&s, &mut report.warnings);
            }
            report.submissions.push(s);
        }
        let mut seen = BTreeSet::new();
        report.judge_errors.retain(|e| seen.insert(e.clone()));
        report
    }
}

/// The reference must pass with room to spare: a third of the limit, as Kattis advises.
fn margin_warning(s: &SubmissionReport, warnings: &mut Vec<String>) {
    if let Some(slowest) = s.tests.iter().max_by_key(|c| c.result.cpu_ms) {
        if slowest.result.cpu_ms * 3 > s.limit_ms {
            warnings.push(format!(
                "the reference {} uses {} ms on {}, over a third of the {} ms limit: little safety margin",
                s.name, slowest.result.cpu_ms, slowest.result.name, s.limit_ms
            ));
        }
    }
}

impl Sub {
    fn finish(self, tests: &[String]) -> SubmissionReport {
        let mut r = self.report;
        let limit = r.limit_ms;
        r.tests = self.cells.into_iter().flatten().map(|c| honest_tle_message(c, limit)).collect();
        r.verdict = match self.stage {
            Stage::CompileError => Verdict::CompileError,
            _ => r.tests.iter().map(|c| c.result.verdict).find(|v| *v != Verdict::Accepted).unwrap_or(Verdict::Accepted),
        };
        r.failures = match self.stage {
            Stage::Compiled if r.tests.len() == tests.len() => {
                let got: Vec<(&str, Verdict)> = r.tests.iter().map(|c| (c.result.name.as_str(), c.result.verdict)).collect();
                failures(r.expected, true, &got)
            }
            Stage::CompileError => failures(r.expected, false, &[]),
            _ => vec!["not judged (see the errors above)".to_string()],
        };
        r.ok = r.failures.is_empty();
        r
    }
}

/// A TLE decided in the parallel phase was measured against the slackened limit; say so.
fn honest_tle_message(mut c: Cell, limit_ms: u64) -> Cell {
    if !c.rerun && c.result.verdict == Verdict::TimeLimitExceeded {
        c.result.message = format!(
            "CPU time over {} ms, the limit is {limit_ms} ms (a parallel run with {:.0}% slack)",
            c.result.cpu_ms,
            (SLACK - 1.0) * 100.0
        );
    }
    c
}

#[cfg(test)]
mod tests {
    use super::*;

    fn result(verdict: Verdict, cpu_ms: u64) -> TestResult {
        TestResult { name: "t".into(), sample: false, verdict, cpu_ms, wall_ms: cpu_ms, memory_kib: 0, exit: None, message: String::new(), diff: None }
    }

    #[test]
    fn rerun_table() {
        use Verdict::*;
        let table = [
            (Accepted, 100, false),
            (Accepted, 799, false),
            (Accepted, 800, true),
            (Accepted, 1100, true),
            (WrongAnswer, 900, true),
            (TimeLimitExceeded, 1250, false),
            (TimeLimitExceeded, 1150, true),
            (TimeLimitExceeded, 3, true),
            (JudgeError, 900, false),
        ];
        for (v, cpu, want) in table {
            assert_eq!(needs_rerun(&result(v, cpu), 1000), want, "{v:?} {cpu}");
        }
    }

    #[test]
    fn exit_code_priorities() {
        let mut r = VerifyReport::default();
        assert_eq!(r.exit_code(), 0);
        r.baseline = Some(BaselineDiff { removed: vec![(Key { problem: "p".into(), submission: "s".into(), test: "t".into() }, Record { verdict: Verdict::Accepted, cpu_ms: 1 })], ..Default::default() });
        assert_eq!(r.exit_code(), 1);
        r.problems.push(ProblemReport { errors: vec!["bad".into()], ..Default::default() });
        assert_eq!(r.exit_code(), 2);
        r.judge_errors.push("sandbox".into());
        assert_eq!(r.exit_code(), 3);
    }
}
