//! The running side of `ojd verify`: a small pool of worker threads and the three phases
//! (compile, judge in parallel, re-run near the limit alone); see the module documentation of
//! [`super`] for why timings stay honest.

use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};

use super::cache;
use super::discover::{ms, record_error, Plan, Stage};
use super::prior::{self, Route};
use super::settle::{settle, Settle};
use super::{Baseline, Cell, Key, ProblemReport, Progress, Stats, CLEAR_TLE, GREY, RERUNS, SLACK};
use ojd_judge::answers::{self, GenError, GenOptions, GenSummary};
use ojd_judge::Problem;
use ojd_judge::{Compiled, HostFault, Judge, JudgeError, Submission};
use ojd_judge::{TestResult, Verdict};

/// Runs `jobs` on `workers` threads; results in job order, and the seconds spent in jobs.
fn pool<J: Sync, R: Send>(
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
enum Build {
    Sub(usize, usize),
    Tool(usize, std::path::PathBuf),
}

/// A rough relative cost of compiling `source` in `language`, to start the longest first: the
/// phase ends with its last compile, and two workers end together only when the short ones come
/// last. Measured on the seed problems: rustc -O 0.4 to 0.8 s of CPU, g++ -O2 0.2 to 0.45 s.
fn compile_cost(language: &str, source_len: usize) -> (u32, usize) {
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
fn tools(plan: &Plan) -> Vec<std::path::PathBuf> {
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
pub(super) fn compile_all(
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
        stats.compiles.push(super::CompileTime {
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

#[derive(Copy, Clone)]
enum Job {
    Gen(usize),
    /// A cell, run with the slack ([`super::margins::slack`] times the limit).
    Test(usize, usize, usize),
    /// The cells of a `time_limit_exceeded/` submission (problem, submission, index into the
    /// chains), run one after the other in test order until the first clear TLE.
    Chain(usize, usize, usize),
}

/// The reference's cells a gen check judged on its runs ([`GenShare`]): (test, result).
type GenCells = Vec<(usize, Result<TestResult, JudgeError>)>;

enum Outcome {
    /// The gen check, and the reference's cells judged on its runs.
    Gen(Result<GenSummary, GenError>, GenCells),
    Test(Result<TestResult, JudgeError>),
    /// (test, result) of each cell the chain ran, in order.
    Chain(Vec<(usize, Result<TestResult, JudgeError>)>),
}

/// The cells of one `time_limit_exceeded/` submission still to judge, in test order.
type ChainCells = Vec<usize>;

/// The reference's cells that a problem's `gen --check` judges on its own runs of the
/// reference, instead of running it again as a submission: `gen --check` runs it on every test
/// to rebuild the answers, and with this cell's limits (the slack of the parallel phase) that
/// run is the cell's parallel run ([`answers::check_sharing_runs`]). A cell it could not give
/// (a rebuilt input that differs from the committed one, a gen that failed before) is judged as
/// a cell of its own afterwards.
struct GenShare {
    /// The reference's index among the problem's submissions.
    sub: usize,
    /// Per test: whether its cell is wanted from the gen check (not known yet, and routed to
    /// the parallel phase with the slack).
    wanted: Vec<bool>,
}

/// The share of problem `p`'s gen check, if it can have one: a plain problem (no interactor, no
/// passes, answers made by the reference), whose reference compiled and has cells to judge in
/// the parallel phase.
fn gen_share(plan: &Plan, baseline: Option<&Baseline>) -> Option<GenShare> {
    let problem = plan.problem.as_ref()?;
    if problem.interactor.is_some()
        || problem.passes.is_some()
        || problem.answers_given
        || !plan.report.judged
    {
        return None;
    }
    let s = plan
        .subs
        .iter()
        .position(|sub| sub.report.reference && sub.stage == Stage::Compiled)?;
    let sub = &plan.subs[s];
    let wanted: Vec<bool> = (0..sub.cells.len())
        .map(|t| {
            sub.cells[t].is_none()
                && prior::route(baseline, &cell_key(plan, s, t), sub.report.limit_ms)
                    == Route::Parallel
        })
        .collect();
    wanted
        .contains(&true)
        .then_some(GenShare { sub: s, wanted })
}

/// Problem `p`'s gen check, judging the reference's cells `share` wants on its runs.
fn gen_check(
    judge: &Judge,
    plan: &Plan,
    share: Option<&GenShare>,
) -> (Result<GenSummary, GenError>, GenCells) {
    let problem = plan
        .problem
        .as_ref()
        .expect("gen jobs are for loaded problems");
    let opts = GenOptions {
        check: true,
        force: false,
    };
    let Some(share) = share else {
        return (answers::generate(judge, problem, &opts), Vec::new());
    };
    let sub = &plan.subs[share.sub];
    // The reference as a cell runs it: compiled as a submission (a hit in the compile cache),
    // with the parallel phase's limits, and judged with the problem's checker.
    let program = match judge.compile_in(problem, &sub.submission) {
        Ok(Compiled::Program(p)) => p,
        _ => return (answers::generate(judge, problem, &opts), Vec::new()),
    };
    let checker = match problem.checker.program_path() {
        Some(path) => match judge.compile_file_in(problem, &problem.dir.join(path)) {
            Ok(Compiled::Program(c)) => Some(c),
            _ => return (answers::generate(judge, problem, &opts), Vec::new()),
        },
        None => None,
    };
    let limits = judge.limits_for(
        &with_slack(problem, super::margins::slack(&problem.margins)),
        &program,
    );
    let mut cells = Vec::new();
    let mut ran = |t: usize, run: &ojd_judge::InputRun, work: &std::path::Path| {
        let r = judge
            .judge_run(
                problem,
                &program,
                checker.as_ref(),
                &problem.tests[t],
                &limits,
                run,
                work,
            )
            .map(|(result, _)| result);
        cells.push((t, r));
    };
    let r = answers::check_sharing_runs(
        judge,
        problem,
        answers::SharedRuns {
            program: &program,
            limits: limits.clone(),
            wanted: &share.wanted,
            ran: &mut ran,
        },
    );
    (r, cells)
}

/// `problem` with its time limits `slack` times the written ones: what a cell runs with.
fn with_slack(problem: &Problem, slack: f64) -> Problem {
    let mut one = problem.clone();
    one.time_limit = problem.time_limit.mul_f64(slack);
    one.wall_time_limit = problem.wall_time_limit.map(|w| w.mul_f64(slack));
    one
}

/// Whether a run of a `time_limit_exceeded/` submission is a clear TLE, so that its later cells
/// are not run: every TLE of the parallel phase is one (see [`super::margins::clear_tle`]): with
/// the slack, the sandbox stopped it at the package's `time_limit_to_tle` or later (or the wall
/// clock did first). A judge error stops it as well (its later cells are then not judged: the
/// run failed).
fn stops_chain(r: &TestResult) -> bool {
    matches!(r.verdict, Verdict::TimeLimitExceeded | Verdict::JudgeError)
}

/// A cell of the matrix: (problem, submission, test) indices into the plans.
pub(super) type CellIndex = (usize, usize, usize);

/// The baseline's key of cell `t` of submission `s`.
fn cell_key(plan: &Plan, s: usize, t: usize) -> Key {
    Key {
        problem: plan.report.problem.clone(),
        submission: plan.subs[s].report.name.clone(),
        test: plan.report.tests[t].clone(),
    }
}

/// Phase 2: every `gen --check` and every (submission, test) run, longest kinds first so that
/// the workers finish together. With a baseline ([`prior::route`]), cells it saw near the limit
/// are not run here but returned, for [`rerun_alone`]; every other cell runs with the slack.
pub(super) fn judge_all(
    judge: &Judge,
    plans: &mut [Plan],
    jobs: usize,
    baseline: Option<&Baseline>,
    progress: &Progress<'_>,
    stats: &mut Stats,
) -> (f64, Vec<CellIndex>) {
    let mut work: Vec<Job> = (0..plans.len())
        .filter(|&p| plans[p].problem.is_some() && !plans[p].gen_reused)
        .map(Job::Gen)
        .collect();
    stats.gen_checks = work.len();
    // The reference's cells that each gen check judges on its own runs of the reference.
    let shares: Vec<Option<GenShare>> = (0..plans.len())
        .map(
            |p| match work.iter().any(|j| matches!(j, Job::Gen(q) if *q == p)) {
                true => gen_share(&plans[p], baseline),
                false => None,
            },
        )
        .collect();
    let mut tests: Vec<(bool, Job)> = Vec::new();
    let mut chains: Vec<ChainCells> = Vec::new();
    let mut chain_jobs: Vec<Job> = Vec::new();
    let mut alone = Vec::new();
    for (p, plan) in plans
        .iter()
        .enumerate()
        .filter(|(_, plan)| plan.report.judged)
    {
        for (s, sub) in plan
            .subs
            .iter()
            .enumerate()
            .filter(|(_, sub)| sub.stage == Stage::Compiled)
        {
            let slow = sub.report.expected != Verdict::TimeLimitExceeded;
            if !slow {
                // A brute force's cells run in test order, one after the other, until its first
                // clear TLE: the promise it keeps then cannot change (its later cells are not
                // run). A near cell gets a parallel run all the same: a finish there mostly
                // settles the cell without runs alone (`settle`). Cells reused from the results
                // cache are decided.
                let mut chain = ChainCells::new();
                for t in 0..sub.cells.len() {
                    match &sub.cells[t] {
                        Some(c) if super::margins::clear_tle(c, sub.report.limit_ms) => break,
                        Some(_) => {}
                        None => chain.push(t),
                    }
                }
                if !chain.is_empty() {
                    chain_jobs.push(Job::Chain(p, s, chains.len()));
                    chains.push(chain);
                }
                continue;
            }
            // Cells reused from the results cache are decided already, and those the gen check
            // judges are its.
            let share = shares[p].as_ref().filter(|sh| sh.sub == s);
            for t in (0..sub.cells.len())
                .filter(|&t| sub.cells[t].is_none() && !share.is_some_and(|sh| sh.wanted[t]))
            {
                match prior::route(baseline, &cell_key(plan, s, t), sub.report.limit_ms) {
                    Route::Parallel => tests.push((slow, Job::Test(p, s, t))),
                    Route::Alone => alone.push((p, s, t)),
                }
            }
        }
    }
    stats.alone_by_baseline = alone.len();
    stats.test_runs = tests.len();
    // The chains first: each is one job of several runs, the longest of the phase.
    work.extend(chain_jobs);
    work.extend(tests.into_iter().map(|(_, j)| j));
    let (gen_us, tle_us) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let (mut busy, chain_runs) = run_jobs(
        judge,
        plans,
        (&work, &chains, &shares),
        jobs,
        (&gen_us, &tle_us),
        progress,
    );
    stats.test_runs += chain_runs;
    // The reference's cells a gen check was to judge but did not (it failed first, or an input
    // it rebuilt differs from the committed one): judged as cells of their own.
    let mut from_gen = Vec::new();
    let mut missed = Vec::new();
    for (p, share) in shares.iter().enumerate() {
        let Some(share) = share else { continue };
        for (t, _) in share.wanted.iter().enumerate().filter(|(_, w)| **w) {
            match &plans[p].subs[share.sub].cells[t] {
                Some(c) if c.from_gen_check => from_gen.push((p, share.sub, t)),
                Some(_) => {}
                None => missed.push(Job::Test(p, share.sub, t)),
            }
        }
    }
    stats.gen_check_cells = from_gen.len();
    if !missed.is_empty() {
        stats.test_runs += missed.len();
        busy += run_jobs(
            judge,
            plans,
            (&missed, &[], &[]),
            jobs,
            (&gen_us, &tle_us),
            progress,
        )
        .0;
    }
    stats.not_run_cells = mark_not_run(plans);
    for (phase, us) in [
        ("parallel: gen --check", gen_us),
        ("parallel: time_limit_exceeded/ runs", tle_us),
    ] {
        let busy = us.into_inner() as f64 / 1e6;
        stats.phases.push(super::PhaseTime {
            phase: phase.into(),
            seconds: busy,
            busy_seconds: busy,
        });
    }
    (busy, alone)
}

/// After the parallel phase: the cells of each `time_limit_exceeded/` submission after its first
/// clear TLE that were not run are marked so (SK, `not_run`); returns how many.
fn mark_not_run(plans: &mut [Plan]) -> usize {
    let mut n = 0;
    for plan in plans.iter_mut() {
        let tests = plan.report.tests.clone();
        for sub in plan.subs.iter_mut().filter(|s| {
            s.stage == Stage::Compiled && s.report.expected == Verdict::TimeLimitExceeded
        }) {
            let limit = sub.report.limit_ms;
            let Some(first) = sub.cells.iter().position(|c| {
                c.as_ref()
                    .is_some_and(|c| super::margins::clear_tle(c, limit))
            }) else {
                continue;
            };
            for (t, cell) in sub.cells.iter_mut().enumerate().skip(first + 1) {
                if cell.is_none() {
                    *cell = Some(not_run_cell(&tests[t], &tests[first]));
                    n += 1;
                }
            }
        }
    }
    n
}

/// A cell whose parallel run was starved (`e`), until it is judged alone.
fn starved_cell(test: &str, e: &JudgeError) -> Cell {
    let mut c = not_run_cell(test, test);
    c.not_run = false;
    c.result.verdict = Verdict::JudgeError;
    c.result.message = format!("{e} (to be judged again alone)");
    c
}

/// A cell not run because test `after` was a clear TLE.
pub(super) fn not_run_cell(test: &str, after: &str) -> Cell {
    Cell {
        result: TestResult {
            name: test.to_string(),
            sample: false,
            verdict: Verdict::Skipped,
            cpu_ms: 0,
            wall_ms: 0,
            memory_kib: 0,
            exit: None,
            message: format!("not run: {after} was already a clear TLE"),
            diff: None,
        },
        rerun: false,
        sensitive: false,
        reused: false,
        derived: false,
        from_gen_check: false,
        not_run: true,
        past_margin: false,
        finished_as: None,
    }
}

/// Runs `work` on the pool and records what it found; returns the workers' busy seconds and
/// the runs the chains made, and adds the time spent in `gen --check` and in runs of
/// `time_limit_exceeded/` submissions to `busy_us` (in microseconds).
fn run_jobs(
    judge: &Judge,
    plans: &mut [Plan],
    (work, chains, shares): (&[Job], &[ChainCells], &[Option<GenShare>]),
    jobs: usize,
    busy_us: (&AtomicUsize, &AtomicUsize),
    progress: &Progress<'_>,
) -> (f64, usize) {
    let (gen_us, tle_us) = busy_us;
    let (results, busy) = {
        let plans = &*plans;
        let run = |job: &Job| match *job {
            Job::Gen(p) => {
                let t = std::time::Instant::now();
                let share = shares.get(p).and_then(Option::as_ref);
                let (r, cells) = gen_check(judge, &plans[p], share);
                gen_us.fetch_add(t.elapsed().as_micros() as usize, Ordering::Relaxed);
                Outcome::Gen(r, cells)
            }
            Job::Test(p, s, t) => {
                let problem = plans[p]
                    .problem
                    .as_ref()
                    .expect("test jobs are for loaded problems");
                let started = std::time::Instant::now();
                let slack = super::margins::slack(&problem.margins);
                let r = run_cell(judge, problem, t, &plans[p].subs[s].submission, slack);
                if plans[p].subs[s].report.expected == Verdict::TimeLimitExceeded {
                    tle_us.fetch_add(started.elapsed().as_micros() as usize, Ordering::Relaxed);
                }
                Outcome::Test(r)
            }
            Job::Chain(p, s, c) => {
                let problem = plans[p]
                    .problem
                    .as_ref()
                    .expect("test jobs are for loaded problems");
                let sub = &plans[p].subs[s];
                let started = std::time::Instant::now();
                let mut out = Vec::new();
                let slack = super::margins::slack(&problem.margins);
                for &t in &chains[c] {
                    let r = run_cell(judge, problem, t, &sub.submission, slack);
                    // A judge error stops it too: the host is at fault (a starved run is tried
                    // three times), and the submission is not judged whatever comes next.
                    let stop = r.as_ref().map_or(true, stops_chain);
                    out.push((t, r));
                    if stop {
                        break;
                    }
                }
                tle_us.fetch_add(started.elapsed().as_micros() as usize, Ordering::Relaxed);
                Outcome::Chain(out)
            }
        };
        let label = |job: &Job| match *job {
            Job::Gen(p) => format!("{} gen --check", plans[p].report.problem),
            Job::Test(p, s, t) => format!(
                "{} {} {}",
                plans[p].report.problem, plans[p].subs[s].report.name, plans[p].report.tests[t]
            ),
            Job::Chain(p, s, c) => format!(
                "{} {} (up to {} tests, until a clear TLE)",
                plans[p].report.problem,
                plans[p].subs[s].report.name,
                chains[c].len()
            ),
        };
        pool(work, jobs, &run, &label, "judging", progress)
    };
    let mut chain_runs = 0;
    for (job, outcome) in work.iter().zip(results) {
        match (*job, outcome) {
            (Job::Gen(p), Outcome::Gen(r, cells)) => {
                record_gen(&mut plans[p].report, r);
                let s = shares[p].as_ref().map(|sh| sh.sub);
                for (t, r) in cells {
                    let s = s.expect("only a gen check with a share judges cells");
                    record_parallel(&mut plans[p], s, t, r);
                    if let Some(c) = plans[p].subs[s].cells[t].as_mut() {
                        c.from_gen_check = true;
                    }
                }
            }
            (Job::Test(p, s, t), Outcome::Test(r)) => record_parallel(&mut plans[p], s, t, r),
            (Job::Chain(p, s, _), Outcome::Chain(runs)) => {
                chain_runs += runs.len();
                for (t, r) in runs {
                    record_parallel(&mut plans[p], s, t, r);
                }
            }
            _ => unreachable!("outcomes come back in job order"),
        }
    }
    (busy, chain_runs)
}

/// Records a run of the parallel phase (with the slack).
fn record_parallel(plan: &mut Plan, s: usize, t: usize, r: Result<TestResult, JudgeError>) {
    // A run the host's load starved of CPU, tried three times, is no verdict and not yet the
    // judge's failure: the cell is judged again alone, after this phase (`rerun_alone`).
    if let Err(e @ JudgeError::Host(HostFault::Starved { .. })) = &r {
        plan.subs[s].cells[t] = Some(starved_cell(&plan.report.tests[t], e));
        plan.starved.push((s, t));
        return;
    }
    record_cell(plan, s, t, r, false);
    if let Some(c) = plan.subs[s].cells[t].as_mut() {
        // With the slack (at least the package's time_limit_to_tle), a TLE is a run the sandbox
        // stopped there.
        c.past_margin = c.result.verdict == Verdict::TimeLimitExceeded;
    }
}

fn record_gen(report: &mut ProblemReport, r: Result<GenSummary, GenError>) {
    match r {
        Ok(s) => {
            report.inputs_validated = s.inputs_validated;
            if !s.differences.is_empty() {
                report.errors.push(format!(
                    "answers are out of date (run `ojd gen {}`):",
                    report.dir.display()
                ));
                report.errors.extend(s.differences);
            }
        }
        Err(GenError::Judge(e)) => record_error(report, "gen --check", &e),
        Err(e) => report.errors.push(e.to_string()),
    }
}

fn record_cell(
    plan: &mut Plan,
    s: usize,
    t: usize,
    r: Result<TestResult, JudgeError>,
    rerun: bool,
) {
    let test = plan.report.tests[t].clone();
    let result = match r {
        Ok(result) => result,
        Err(e) => {
            record_error(
                &mut plan.report,
                &format!("{} on {test}", plan.subs[s].report.name),
                &e,
            );
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
    plan.subs[s].cells[t] = Some(Cell {
        result,
        rerun,
        sensitive: false,
        reused: false,
        derived: false,
        from_gen_check: false,
        not_run: false,
        past_margin: false,
        finished_as: None,
    });
}

/// What a cell of submission `s` on test `t` is keyed by in the results cache, if it can be.
fn key_of(salt: &cache::Salt, part: &[u8], plan: &Plan, s: usize, t: usize) -> Option<String> {
    key_on(
        salt,
        part,
        plan.problem.as_ref()?,
        plan.subs[s].ran.as_ref()?,
        t,
    )
}

/// The key of cell `t` of a submission that runs as `ran` on `problem` (the scaled one, or the
/// package with its own limits for [`super::derive`]).
fn key_on(
    salt: &cache::Salt,
    part: &[u8],
    problem: &Problem,
    ran: &super::discover::Ran,
    t: usize,
) -> Option<String> {
    let run = cache::CellRun {
        program: &ran.program,
        run: &ran.run,
        limits: &ran.limits,
        slack: super::margins::slack(&problem.margins),
        margins: &problem.margins,
    };
    Some(cache::cell_key(salt, part, &run, problem.tests.get(t)?))
}

/// The key of a package's `gen --check`: its files, and every toolchain's identity (the
/// programs it runs are compiled by them).
fn gen_key_of(judge: &Judge, salt: &cache::Salt, problem: &Problem) -> String {
    let mut tools: Vec<String> = judge
        .languages()
        .iter()
        .map(|(id, l)| match l {
            Ok(l) => {
                let runner = l
                    .run
                    .first()
                    .filter(|r| std::path::Path::new(r).is_absolute())
                    .map(|r| cache::file_identity(std::path::Path::new(r)))
                    .unwrap_or_default();
                format!(
                    "{id} {:?} {} {:?} {runner}",
                    l.compile, l.compiler_id, l.run
                )
            }
            Err(e) => format!("{id} unavailable: {e}"),
        })
        .collect();
    tools.sort();
    cache::gen_key(salt, &problem.dir, &tools)
}

/// What submission `sub` of `problem` runs as, for the results cache, without compiling it:
/// its language's toolchain and its source (what the compile cache is keyed by), its run
/// command, and the limits a program of that language gets on the problem.
fn ran_of(judge: &Judge, problem: &Problem, sub: &Submission) -> Option<super::discover::Ran> {
    let lang = judge.language(&sub.language).ok()?;
    let program = ojd_judge::Program {
        dir: std::path::PathBuf::new(),
        run: lang.run.clone(),
        time_factor: lang.time_factor,
        memory_extra: lang.memory_extra,
        profile: lang.profile.clone(),
        pin: Default::default(),
    };
    let limits = judge.limits_for(problem, &program);
    Some(super::discover::Ran {
        program: cache::program_key(lang, &sub.source),
        run: lang.run.clone(),
        limits: format!("{limits:?}"),
        limit_ms: ms(limits.cpu),
        wall_ms: ms(limits.wall),
    })
}

/// Before compiling: every `gen --check` and cell the results cache has is taken from it, and at
/// a `--time-scale` other than 1 every cell the same cell judged at the package's own limits
/// decides ([`super::derive`]). A submission whose every cell is known so is not compiled at all
/// (it compiled when those cells were judged, with the same source and compiler); nor is a
/// `time_limit_exceeded/` one whose cells are known up to its first clear TLE (the rest would
/// not be run).
pub(super) fn reuse(
    judge: &Judge,
    cache: &cache::Cache,
    salt: &cache::Salt,
    plans: &mut [Plan],
    stats: &mut Stats,
) {
    let plain_salt = cache::Salt::new(judge, 1.0);
    for plan in plans.iter_mut().filter(|p| p.report.judged) {
        let Some(problem) = plan.problem.as_ref() else {
            continue;
        };
        let gen = gen_key_of(judge, salt, problem);
        // A scaled run takes the plain run's pass too: whether the answers are up to date and
        // the inputs valid does not hang on the time scale (the reference's runs, which do, are
        // judged as its cells).
        let plain_gen = || {
            plan.unscaled
                .as_ref()
                .and_then(|_| cache.gen(&gen_key_of(judge, &plain_salt, problem)))
        };
        if let Some(g) = cache.gen(&gen).or_else(plain_gen) {
            plan.report.inputs_validated = g.inputs_validated;
            plan.gen_reused = true;
            stats.reused_gen_checks += 1;
        }
        plan.gen_key = Some(gen);
        let part = cache::problem_part(problem);
        for s in 0..plan.subs.len() {
            if plan.subs[s].stage != Stage::Found {
                continue;
            }
            plan.subs[s].ran = ran_of(judge, problem, &plan.subs[s].submission);
            let keys: Vec<(usize, String)> = (0..problem.tests.len())
                .filter_map(|t| Some((t, key_of(salt, &part, plan, s, t)?)))
                .collect();
            // The same submission on the package's own limits, when this run is scaled.
            let plain = plan
                .unscaled
                .as_ref()
                .and_then(|u| Some((u, ran_of(judge, u, &plan.subs[s].submission)?)));
            let slack = super::margins::slack(&problem.margins);
            let mut found: Vec<Option<Cell>> = vec![None; problem.tests.len()];
            for (t, key) in &keys {
                found[*t] = match cache.cell(key) {
                    Some(c) => Some(stored_cell(c, &mut plan.report.warnings)),
                    None => plain.as_ref().and_then(|(u, ran)| {
                        let plain_key = key_on(&plain_salt, &part, u, ran, *t)?;
                        let now = plan.subs[s].ran.as_ref()?;
                        super::derive::derive(
                            &cache.cell(&plain_key)?,
                            now.limit_ms,
                            now.wall_ms,
                            slack,
                        )
                    }),
                };
            }
            let sub = &mut plan.subs[s];
            sub.keys = keys;
            let limit_ms = sub.ran.as_ref().map_or(0, |r| r.limit_ms);
            // Known up to where its judging would end: every cell, or a brute force's cells up
            // to its first clear TLE.
            let upto = match sub.report.expected {
                Verdict::TimeLimitExceeded => found
                    .iter()
                    .position(|c| {
                        c.as_ref()
                            .is_some_and(|c| super::margins::clear_tle(c, limit_ms))
                    })
                    .map_or(found.len(), |i| i + 1),
                _ => found.len(),
            };
            if !found.is_empty() && found[..upto].iter().all(Option::is_some) {
                sub.stage = Stage::Compiled;
                sub.report.limit_ms = limit_ms;
                count_found(&found, stats);
                sub.cells = found;
            } else {
                // It is compiled, and what was found put in place then (`reuse_compiled`).
                sub.found = found;
            }
        }
    }
}

/// Counts the cells found before judging: reused from the cache, or derived.
fn count_found(found: &[Option<Cell>], stats: &mut Stats) {
    for c in found.iter().flatten() {
        match c.derived {
            true => stats.derived_cells += 1,
            false => stats.reused_cells += 1,
        }
    }
}

/// After compiling: the cells found before it ([`reuse`]) of the submissions compiled now.
pub(super) fn reuse_compiled(plans: &mut [Plan], stats: &mut Stats) {
    for plan in plans.iter_mut().filter(|p| p.report.judged) {
        for sub in plan.subs.iter_mut() {
            let found = std::mem::take(&mut sub.found);
            if sub.stage != Stage::Compiled || found.len() != sub.cells.len() {
                continue;
            }
            count_found(&found, stats);
            for (cell, f) in sub.cells.iter_mut().zip(found) {
                if f.is_some() {
                    *cell = f;
                }
            }
        }
    }
}

/// A stored cell as the matrix holds it; its warnings go to the problem's.
fn stored_cell(c: cache::StoredCell, warnings: &mut Vec<String>) -> Cell {
    warnings.extend(c.warnings);
    Cell {
        result: c.result,
        rerun: c.rerun,
        sensitive: c.sensitive,
        reused: true,
        derived: false,
        from_gen_check: false,
        not_run: false,
        past_margin: c.past_margin,
        finished_as: c.finished_as,
    }
}

/// After phase 3: every cell judged now, and every `gen --check` that passed, is stored.
pub(super) fn store(cache: &cache::Cache, plans: &[Plan]) {
    for plan in plans.iter().filter(|p| p.report.judged) {
        if let (Some(key), false, true, true) = (
            &plan.gen_key,
            plan.gen_reused,
            plan.report.errors.is_empty(),
            plan.report.judge_errors.is_empty(),
        ) {
            cache.put_gen(
                key,
                &cache::StoredGen {
                    inputs_validated: plan.report.inputs_validated,
                },
            );
        }
        for sub in &plan.subs {
            for (t, key) in &sub.keys {
                let Some(c) = sub.cells.get(*t).and_then(|c| c.as_ref()) else {
                    continue;
                };
                // Derived cells were not judged at this key's limits, and cells not run not at all.
                if c.reused || c.derived || c.not_run {
                    continue;
                }
                let about = format!("{} on {}: ", sub.report.name, plan.report.tests[*t]);
                cache.put_cell(
                    key,
                    &cache::StoredCell {
                        result: c.result.clone(),
                        rerun: c.rerun,
                        sensitive: c.sensitive,
                        past_margin: c.past_margin,
                        finished_as: c.finished_as,
                        warnings: plan
                            .report
                            .warnings
                            .iter()
                            .filter(|w| w.starts_with(&about))
                            .cloned()
                            .collect(),
                    },
                );
            }
        }
    }
}

/// Judges `sub` on test `t` alone, with `slack` times the time limits.
fn run_cell(
    judge: &Judge,
    problem: &Problem,
    t: usize,
    sub: &Submission,
    slack: f64,
) -> Result<TestResult, JudgeError> {
    let mut one = with_slack(problem, slack);
    one.tests = vec![problem.tests[t].clone()];
    one.groups.clear();
    let report = judge.judge(&one, sub, &mut |_| {}, &AtomicBool::new(false))?;
    Ok(report
        .tests
        .into_iter()
        .next()
        .unwrap_or_else(|| TestResult {
            name: problem.tests[t].name.clone(),
            sample: problem.tests[t].sample,
            verdict: report.verdict,
            cpu_ms: 0,
            wall_ms: 0,
            memory_kib: 0,
            exit: None,
            message: report
                .compile_output
                .lines()
                .next()
                .unwrap_or_default()
                .to_string(),
            diff: None,
        }))
}

/// Whether a run made with [`SLACK`] is too close to the limit to decide its verdict.
fn needs_rerun(r: &TestResult, limit_ms: u64) -> bool {
    prior::near_limit(r.verdict, r.cpu_ms, limit_ms)
}

/// Whether a run judged at the exact limit leaves its verdict open, so that another run alone
/// may decide differently. A run that finished within the limit settles it: interference only
/// adds time, so a faster run would finish too, with the same output. A TLE settles it only when
/// clear of the limit (above [`CLEAR_TLE`] of it); one just over may have been pushed there.
/// A TLE whose CPU time stayed under [`GREY`] of the limit was decided by the wall clock while
/// the program ran alone: it was idle or blocked (a lost flush, a wait for input), not pushed
/// by a neighbour, and another run alone would wait the same.
fn open_verdict(r: &TestResult, limit_ms: u64) -> bool {
    let (cpu, limit) = (r.cpu_ms as f64, limit_ms as f64);
    r.verdict == Verdict::TimeLimitExceeded && cpu >= GREY * limit && cpu < CLEAR_TLE * limit
}

/// How a run alone with [`SLACK`] times the limits is recorded in [`Seen`].
const ALONE_SLACK: &str = "alone, 1.5× limit";

/// Phase 3: each run too close to call, again, and the cells sent here straight (`straight`:
/// the baseline saw them near the limit); see [`best_alone`]. Near cells run `jobs` at a time
/// (one per physical core, as in phase 2), a starved cell's runs alone; each cell's runs are
/// kept as few as the verdict allows.
pub(super) fn rerun_alone(
    judge: &Judge,
    plans: &mut [Plan],
    straight: Vec<CellIndex>,
    jobs: usize,
    progress: &Progress<'_>,
    stats: &mut Stats,
) {
    let mut todo = straight;
    let mut settled = Vec::new();
    // Starved cells: alone, the load of our own other workers is gone.
    let mut starved = Vec::new();
    for (p, plan) in plans.iter_mut().enumerate() {
        starved.extend(plan.starved.drain(..).map(|(s, t)| (p, s, t)));
    }
    stats.starved_cells = starved.len();
    todo.extend(starved.iter().copied());
    for (p, plan) in plans.iter().enumerate() {
        let Some(problem) = plan.problem.as_ref() else {
            continue;
        };
        for (s, sub) in plan.subs.iter().enumerate() {
            // Compiled already (a cache hit): the limits its runs at the exact limit get.
            let mut limits = None;
            for (t, cell) in sub.cells.iter().enumerate() {
                let Some(c) = cell.as_ref() else { continue };
                if c.reused || starved.contains(&(p, s, t)) {
                    continue;
                }
                if prior::idle_tle(c.result.verdict, c.result.cpu_ms, sub.report.limit_ms) {
                    stats.settled_idle += 1;
                    continue;
                }
                if !needs_rerun(&c.result, sub.report.limit_ms) {
                    continue;
                }
                let exact = limits
                    .get_or_insert_with(|| exact_limits(judge, problem, &sub.submission).ok());
                let Some(exact) = exact.as_ref() else {
                    todo.push((p, s, t));
                    continue;
                };
                let at = at_limit(c.result.clone(), exact);
                let how = settle(
                    (sub.report.promise, sub.report.expected),
                    sub.report.reference,
                    c.result.verdict,
                    at.verdict == c.result.verdict,
                );
                match how {
                    Settle::WithinLimit => stats.settled_within_limit += 1,
                    Settle::ByPromise => stats.settled_by_promise += 1,
                    Settle::Alone => {
                        todo.push((p, s, t));
                        continue;
                    }
                }
                settled.push(((p, s, t), at));
            }
        }
    }
    for ((p, s, t), at) in settled {
        let plan = &mut plans[p];
        // A TLE at the limit that finished with the slack hangs on the limit itself: reported
        // as sensitive, as a run alone finishing the same way would be.
        let seen = parallel_seen(plan.subs[s].cells[t].as_ref());
        let sensitive = sensitivity(plan, s, t, &Ok(at.clone()), &seen);
        if let Some(c) = plan.subs[s].cells[t].as_mut() {
            if at.verdict == Verdict::TimeLimitExceeded {
                c.finished_as = Some(c.result.verdict);
            }
            c.result = at;
            c.sensitive = sensitive.is_some();
        }
        plan.report.warnings.extend(sensitive);
    }
    todo.sort_unstable();
    stats.rerun_tests = todo.len();
    // The near cells run in parallel, within phase 2's CPU budget (`jobs`: one worker per
    // physical core, each run pinned to its own): a run next to one on another core is pushed
    // far less than under phase 2's full load, a TLE still open after it runs again, and the
    // fastest run decides, so the verdicts are the serial ones' while the phase ends `jobs`
    // times sooner. A starved cell's runs stay one at a time, after them: our own workers are
    // the load that starved it.
    let (near, lone): (Vec<CellIndex>, Vec<CellIndex>) =
        todo.iter().partition(|c| !starved.contains(c));
    let label = |plans: &[Plan], &(p, s, t): &CellIndex| {
        let plan = &plans[p];
        format!(
            "{} {} {}",
            plan.report.problem, plan.subs[s].report.name, plan.report.tests[t]
        )
    };
    let mut results = {
        let plans = &*plans;
        let run = |&(p, s, t): &CellIndex| best_alone(judge, &plans[p], (s, t), false);
        let name = |c: &CellIndex| label(plans, c);
        pool(
            &near,
            jobs,
            &run,
            &name,
            "re-running near the limit",
            progress,
        )
        .0
    };
    for (i, &(p, s, t)) in lone.iter().enumerate() {
        results.push(best_alone(judge, &plans[p], (s, t), true));
        progress(
            "re-running alone",
            i + 1,
            lone.len(),
            &label(plans, &(p, s, t)),
        );
    }
    for (&(p, s, t), (r, seen, runs)) in near.iter().chain(&lone).zip(results) {
        stats.reruns += runs;
        let plan = &mut plans[p];
        let stopped_before = plan.subs[s].cells[t]
            .as_ref()
            .is_some_and(|c| c.past_margin);
        // The first run alone has the slack: a TLE there was stopped at it.
        let past_margin = stopped_before
            || seen
                .iter()
                .any(|(v, _, how)| *how == ALONE_SLACK && *v == Verdict::TimeLimitExceeded);
        if inconsistent(&seen, plan.subs[s].report.limit_ms) {
            let runs: Vec<String> = seen
                .iter()
                .map(|(v, ms, how)| format!("{v} {ms} ms ({how})"))
                .collect();
            plan.report.warnings.push(format!(
                "{} on {}: runs disagree beyond timing ({}); was the test changed meanwhile, or is the program nondeterministic?",
                plan.subs[s].report.name, plan.report.tests[t], runs.join(", ")
            ));
        }
        let sensitive = sensitivity(plan, s, t, &r, &seen);
        let finished_as = finished_with_slack(&r, &seen);
        record_cell(plan, s, t, r, true);
        if let Some(c) = plan.subs[s].cells[t].as_mut() {
            c.past_margin = past_margin;
            c.finished_as = finished_as;
        }
        if let Some(w) = sensitive {
            plan.report.warnings.push(w);
            if let Some(c) = plan.subs[s].cells[t].as_mut() {
                c.sensitive = true;
            }
        }
    }
    continue_chains(judge, plans, &starved, progress, stats);
}

/// After a starved cell of a `time_limit_exceeded/` submission was judged alone: its chain had
/// stopped there (a judge error stops it), so when that cell is no clear TLE, the cells after it
/// are judged now, alone and in test order, until the first clear TLE; the cells after a clear
/// TLE are then marked not run.
fn continue_chains(
    judge: &Judge,
    plans: &mut [Plan],
    starved: &[CellIndex],
    progress: &Progress<'_>,
    stats: &mut Stats,
) {
    for &(p, s, t) in starved {
        let plan = &mut plans[p];
        let sub = &plan.subs[s];
        let limit = sub.report.limit_ms;
        if sub.report.expected != Verdict::TimeLimitExceeded
            || sub.cells[..=t]
                .iter()
                .flatten()
                .any(|c| super::margins::clear_tle(c, limit))
        {
            continue;
        }
        for next in t + 1..sub.cells.len() {
            let sub = &plan.subs[s];
            if sub.cells[next].is_some() {
                continue;
            }
            let label = format!(
                "{} {} {}",
                plan.report.problem, sub.report.name, plan.report.tests[next]
            );
            stats.rerun_tests += 1;
            let (r, seen, runs) = best_alone(judge, plan, (s, next), false);
            stats.reruns += runs;
            let past_margin = seen
                .iter()
                .any(|(v, _, how)| *how == ALONE_SLACK && *v == Verdict::TimeLimitExceeded);
            let finished_as = finished_with_slack(&r, &seen);
            record_cell(plan, s, next, r, true);
            progress(
                "re-running alone",
                next + 1,
                plan.report.tests.len(),
                &label,
            );
            let Some(c) = plan.subs[s].cells[next].as_mut() else {
                continue;
            };
            c.past_margin = past_margin;
            c.finished_as = finished_as;
            if super::margins::clear_tle(c, limit) || c.result.verdict == Verdict::JudgeError {
                break;
            }
        }
    }
    stats.not_run_cells += mark_not_run(plans);
}

/// Every (verdict, CPU ms, how) a cell got, each as judged against the limits it ran with,
/// starting with the parallel run.
type Seen = Vec<(Verdict, u64, &'static str)>;

/// Judges cell `t` of submission `s` alone, and returns its verdict at the exact limit (the
/// fastest run alone decides) with every run seen.
///
/// The first run alone gets [`SLACK`] times the limits and is judged at the exact limit by its
/// measured CPU and wall time ([`at_limit`]): a program that needs less than the limit ends the
/// same either way, and one that needs more shows by how much, which is what
/// [`sensitivity`] asks. Further runs, with the exact limits, only while the verdict is open
/// ([`open_verdict`]: a TLE not clear of the limit), up to [`RERUNS`] runs in all.
///
/// A cell whose parallel run was starved (`starved`) runs with [`STARVED_WALL`] times its wall
/// time limit: the program showed it wants the CPU (it is no sleeper, which is all the wall
/// limit is for), and its verdict rests on CPU time, which the wait does not change.
fn best_alone(
    judge: &Judge,
    plan: &Plan,
    (s, t): (usize, usize),
    starved: bool,
) -> (Result<TestResult, JudgeError>, Seen, usize) {
    let problem = plan
        .problem
        .as_ref()
        .expect("cells exist only for loaded problems");
    let (sub, limit) = (&plan.subs[s].submission, plan.subs[s].report.limit_ms);
    let widened;
    let problem = match starved {
        false => problem,
        true => match exact_limits(judge, problem, sub) {
            Ok(l) => {
                let mut p = problem.clone();
                p.wall_time_limit = Some(l.wall.mul_f64(STARVED_WALL));
                widened = p;
                &widened
            }
            Err(e) => return (Err(e), Vec::new(), 0),
        },
    };
    let mut seen = parallel_seen(plan.subs[s].cells[t].as_ref());
    let mut best: Option<Result<TestResult, JudgeError>> = None;
    let mut runs = 0;
    for i in 0..RERUNS {
        runs += 1;
        let (slack, how) = if i == 0 {
            (super::margins::slack(&problem.margins), ALONE_SLACK)
        } else {
            (1.0, "alone")
        };
        let r = fed(STARVED_BUDGET, || run_cell(judge, problem, t, sub, slack)).and_then(|raw| {
            seen.push((raw.verdict, raw.cpu_ms, how));
            if slack > 1.0 {
                exact_limits(judge, problem, sub).map(|l| at_limit(raw, &l))
            } else {
                Ok(raw)
            }
        });
        let open = r.as_ref().is_ok_and(|r| open_verdict(r, limit));
        let faster = match (&r, &best) {
            (Ok(now), Some(Ok(b))) => now.cpu_ms < b.cpu_ms,
            (Ok(_), Some(Err(_))) => false,
            _ => true,
        };
        if faster {
            best = Some(r);
        }
        if !open {
            break;
        }
    }
    (best.expect("RERUNS is at least 1"), seen, runs)
}

/// How much longer than its wall time limit a starved cell's runs alone may take.
const STARVED_WALL: f64 = 4.0;

/// How long a run alone may wait for the CPU it needs ([`fed`]): past it, a run the host's
/// load starved of CPU every time is the judge's error (exit 3), named as the host's.
pub(crate) const STARVED_BUDGET: std::time::Duration = std::time::Duration::from_secs(600);

/// The first pause between tries of a starved run; it doubles up to [`STARVED_PAUSE_MAX`].
const STARVED_PAUSE: std::time::Duration = std::time::Duration::from_millis(500);
const STARVED_PAUSE_MAX: std::time::Duration = std::time::Duration::from_secs(15);

/// `run` (a run alone), tried again after a pause while the host's load starves it of CPU
/// (the judge's own three tries each time), until `budget` has passed: under load a check gets
/// slower, not red. Any other outcome is returned at once.
fn fed<T>(
    budget: std::time::Duration,
    mut run: impl FnMut() -> Result<T, JudgeError>,
) -> Result<T, JudgeError> {
    let started = std::time::Instant::now();
    let mut pause = STARVED_PAUSE;
    loop {
        let r = run();
        let starved = matches!(&r, Err(JudgeError::Host(HostFault::Starved { .. })));
        if !starved || started.elapsed() + pause > budget {
            return r;
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(STARVED_PAUSE_MAX);
    }
}

/// What the parallel run of a cell judged alone saw: nothing when it was starved (a judge error
/// is no measurement, and must not make the runs alone look inconsistent).
fn parallel_seen(cell: Option<&Cell>) -> Seen {
    cell.iter()
        .filter(|c| c.result.verdict != Verdict::JudgeError)
        .map(|c| (c.result.verdict, c.result.cpu_ms, "parallel"))
        .collect()
}

/// The limits a run of `sub` on `problem` gets (its compilation is a cache hit by now).
fn exact_limits(
    judge: &Judge,
    problem: &Problem,
    sub: &Submission,
) -> Result<ojd_sandbox::Limits, JudgeError> {
    match judge.compile_in(problem, sub)? {
        Compiled::Program(p) => Ok(judge.limits_for(problem, &p)),
        Compiled::Error(m) => Err(JudgeError::BadSubmission(format!(
            "no longer compiles: {}",
            m.lines().next().unwrap_or_default()
        ))),
    }
}

/// The verdict a run made with more generous limits ([`SLACK`] times them) gets at `limits`: a
/// TLE if it used more CPU or wall time than they allow (the sandbox would have stopped it
/// there), else its own. A TLE's message names the exact limit, not the generous one.
fn at_limit(mut r: TestResult, limits: &ojd_sandbox::Limits) -> TestResult {
    let (cpu, wall) = (ms(limits.cpu), ms(limits.wall));
    if r.verdict != Verdict::TimeLimitExceeded && r.cpu_ms <= cpu && r.wall_ms <= wall {
        return r;
    }
    if r.cpu_ms > cpu {
        r.message = format!(
            "CPU time limit of {cpu} ms exceeded ({} ms in a run allowed {SLACK}× the limit)",
            r.cpu_ms
        );
    } else if r.wall_ms > wall {
        r.message = format!(
            "wall-time limit of {wall} ms exceeded ({} ms in a run allowed {SLACK}× the limit)",
            r.wall_ms
        );
    } else {
        return r;
    }
    r.verdict = Verdict::TimeLimitExceeded;
    r.diff = None;
    r
}

/// A TLE at the exact limit (`best`) beside a finish at [`SLACK`] times it means the verdict
/// hangs on the limit itself (problemtools' "sensitive to the time limit"). The runs at SLACK
/// are the parallel one and the first run alone.
fn sensitivity(
    plan: &Plan,
    s: usize,
    t: usize,
    best: &Result<TestResult, JudgeError>,
    seen: &Seen,
) -> Option<String> {
    let best = best.as_ref().ok()?;
    if best.verdict != Verdict::TimeLimitExceeded {
        return None;
    }
    let finished = |v: Verdict| {
        !matches!(
            v,
            Verdict::TimeLimitExceeded | Verdict::JudgeError | Verdict::CompileError
        )
    };
    let &(v, cpu, _) = seen
        .iter()
        .filter(|(v, _, how)| *how != "alone" && finished(*v))
        .min_by_key(|(_, ms, _)| *ms)?;
    let limit = plan.subs[s].report.limit_ms;
    let slack = plan
        .problem
        .as_ref()
        .map_or(SLACK, |p| super::margins::slack(&p.margins));
    Some(format!(
        "{} on {}: sensitive to the time limit: TLE at {limit} ms, {v} in {cpu} ms at {} ms ({slack}×)",
        plan.subs[s].report.name,
        plan.report.tests[t],
        (limit as f64 * slack).round() as u64
    ))
}

/// The verdict a TLE at the exact limit (`best`) finished with in a run allowed the slack (the
/// parallel one, or the first alone): the fastest such finish.
fn finished_with_slack(best: &Result<TestResult, JudgeError>, seen: &Seen) -> Option<Verdict> {
    if best.as_ref().ok()?.verdict != Verdict::TimeLimitExceeded {
        return None;
    }
    seen.iter()
        .filter(|(v, _, how)| {
            *how != "alone"
                && !matches!(
                    v,
                    Verdict::TimeLimitExceeded | Verdict::JudgeError | Verdict::CompileError
                )
        })
        .min_by_key(|(_, ms, _)| *ms)
        .map(|(v, _, _)| *v)
}

/// Timing explains a TLE on one run and a finish near the limit on another; it does not explain
/// two different finishing verdicts, or a TLE beside a run that ended well under the limit.
fn inconsistent(seen: &[(Verdict, u64, &str)], limit_ms: u64) -> bool {
    let finished: Vec<&(Verdict, u64, &str)> = seen
        .iter()
        .filter(|(v, _, _)| *v != Verdict::TimeLimitExceeded)
        .collect();
    let tle = finished.len() < seen.len();
    let quick = finished
        .iter()
        .any(|(_, ms, _)| (*ms as f64) < GREY * limit_ms as f64);
    finished.windows(2).any(|w| w[0].0 != w[1].0) || (tle && quick)
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
