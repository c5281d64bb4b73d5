//! The parallel phase of `ojd verify`: every cell (submission × test) judged on the pool, the
//! reference's generated answers checked alongside, and each result recorded in its plan.

use super::*;

#[derive(Copy, Clone)]
pub(super) enum Job {
    Gen(usize),
    /// A cell, run with the slack ([`crate::margins::slack`] times the limit).
    Test(usize, usize, usize),
    /// The cells of a `time_limit_exceeded/` submission (problem, submission, index into the
    /// chains), run one after the other in test order until the first clear TLE.
    Chain(usize, usize, usize),
}

/// The reference's cells a gen check judged on its runs ([`GenShare`]): (test, result).
pub(super) type GenCells = Vec<(usize, Result<TestResult, JudgeError>)>;

pub(super) enum Outcome {
    /// The gen check, and the reference's cells judged on its runs.
    Gen(Result<GenSummary, GenError>, GenCells),
    Test(Result<TestResult, JudgeError>),
    /// (test, result) of each cell the chain ran, in order.
    Chain(Vec<(usize, Result<TestResult, JudgeError>)>),
}

/// The cells of one `time_limit_exceeded/` submission still to judge, in test order.
pub(super) type ChainCells = Vec<usize>;

/// The reference's cells that a problem's `gen --check` judges on its own runs of the
/// reference, instead of running it again as a submission: `gen --check` runs it on every test
/// to rebuild the answers, and with this cell's limits (the slack of the parallel phase) that
/// run is the cell's parallel run ([`answers::check_sharing_runs`]). A cell it could not give
/// (a rebuilt input that differs from the committed one, a gen that failed before) is judged as
/// a cell of its own afterwards.
pub(super) struct GenShare {
    /// The reference's index among the problem's submissions.
    sub: usize,
    /// Per test: whether its cell is wanted from the gen check (not known yet, and routed to
    /// the parallel phase with the slack).
    wanted: Vec<bool>,
}

/// The share of problem `p`'s gen check, if it can have one: a plain problem (no interactor, no
/// passes, answers made by the reference), whose reference compiled and has cells to judge in
/// the parallel phase.
pub(super) fn gen_share(plan: &Plan, baseline: Option<&Baseline>) -> Option<GenShare> {
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
pub(super) fn gen_check(
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
        &with_slack(problem, crate::margins::slack(&problem.margins)),
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
pub(super) fn with_slack(problem: &Problem, slack: f64) -> Problem {
    let mut one = problem.clone();
    one.time_limit = problem.time_limit.mul_f64(slack);
    one.wall_time_limit = problem.wall_time_limit.map(|w| w.mul_f64(slack));
    one
}

/// Whether a run of a `time_limit_exceeded/` submission is a clear TLE, so that its later cells
/// are not run: every TLE of the parallel phase is one (see [`crate::margins::clear_tle`]): with
/// the slack, the sandbox stopped it at the package's `time_limit_to_tle` or later (or the wall
/// clock did first). A judge error stops it as well (its later cells are then not judged: the
/// run failed).
pub(super) fn stops_chain(r: &TestResult) -> bool {
    matches!(r.verdict, Verdict::TimeLimitExceeded | Verdict::JudgeError)
}

/// A cell of the matrix: (problem, submission, test) indices into the plans.
pub(crate) type CellIndex = (usize, usize, usize);

/// The baseline's key of cell `t` of submission `s`.
pub(super) fn cell_key(plan: &Plan, s: usize, t: usize) -> Key {
    Key {
        problem: plan.report.problem.clone(),
        submission: plan.subs[s].report.name.clone(),
        test: plan.report.tests[t].clone(),
    }
}

/// Phase 2: every `gen --check` and every (submission, test) run, longest kinds first so that
/// the workers finish together. With a baseline ([`prior::route`]), cells it saw near the limit
/// are not run here but returned, for [`rerun_alone`]; every other cell runs with the slack.
pub(crate) fn judge_all(
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
                        Some(c) if crate::margins::clear_tle(c, sub.report.limit_ms) => break,
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
        stats.phases.push(crate::PhaseTime {
            phase: phase.into(),
            seconds: busy,
            busy_seconds: busy,
        });
    }
    (busy, alone)
}

/// After the parallel phase: the cells of each `time_limit_exceeded/` submission after its first
/// clear TLE that were not run are marked so (SK, `not_run`); returns how many.
pub(super) fn mark_not_run(plans: &mut [Plan]) -> usize {
    let mut n = 0;
    for plan in plans.iter_mut() {
        let tests = plan.report.tests.clone();
        for sub in plan.subs.iter_mut().filter(|s| {
            s.stage == Stage::Compiled && s.report.expected == Verdict::TimeLimitExceeded
        }) {
            let limit = sub.report.limit_ms;
            let Some(first) = sub.cells.iter().position(|c| {
                c.as_ref()
                    .is_some_and(|c| crate::margins::clear_tle(c, limit))
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
pub(super) fn starved_cell(test: &str, e: &JudgeError) -> Cell {
    let mut c = not_run_cell(test, test);
    c.not_run = false;
    c.result.verdict = Verdict::JudgeError;
    c.result.message = format!("{e} (to be judged again alone)");
    c
}

/// A cell not run because test `after` was a clear TLE.
pub(crate) fn not_run_cell(test: &str, after: &str) -> Cell {
    Cell {
        not_run: true,
        ..Cell::judged(TestResult {
            name: test.to_string(),
            sample: false,
            verdict: Verdict::Skipped,
            cpu_ms: 0,
            wall_ms: 0,
            memory_kib: 0,
            exit: None,
            message: format!("not run: {after} was already a clear TLE"),
            diff: None,
        })
    }
}

/// Runs `work` on the pool and records what it found; returns the workers' busy seconds and
/// the runs the chains made, and adds the time spent in `gen --check` and in runs of
/// `time_limit_exceeded/` submissions to `busy_us` (in microseconds).
pub(super) fn run_jobs(
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
                let slack = crate::margins::slack(&problem.margins);
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
                let slack = crate::margins::slack(&problem.margins);
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
pub(super) fn record_parallel(
    plan: &mut Plan,
    s: usize,
    t: usize,
    r: Result<TestResult, JudgeError>,
) {
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

pub(super) fn record_gen(report: &mut ProblemReport, r: Result<GenSummary, GenError>) {
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

pub(super) fn record_cell(
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
        rerun,
        ..Cell::judged(result)
    });
}
