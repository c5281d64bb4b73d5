//! The third phase of `ojd verify`: the cells near the limit judged again alone (a starved run
//! tried again until fed), chains of a `time_limit_exceeded/` submission continued, and the
//! verdict a near-limit cell settles on.

use super::*;

/// Judges `sub` on test `t` alone, with `slack` times the time limits.
pub(super) fn run_cell(
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
pub(super) fn needs_rerun(r: &TestResult, limit_ms: u64) -> bool {
    prior::near_limit(r.verdict, r.cpu_ms, limit_ms)
}

/// Whether a run judged at the exact limit leaves its verdict open, so that another run alone
/// may decide differently. A run that finished within the limit settles it: interference only
/// adds time, so a faster run would finish too, with the same output. A TLE settles it only when
/// clear of the limit (above [`CLEAR_TLE`] of it); one just over may have been pushed there.
/// A TLE whose CPU time stayed under [`GREY`] of the limit was decided by the wall clock while
/// the program ran alone: it was idle or blocked (a lost flush, a wait for input), not pushed
/// by a neighbour, and another run alone would wait the same.
pub(super) fn open_verdict(r: &TestResult, limit_ms: u64) -> bool {
    let (cpu, limit) = (r.cpu_ms as f64, limit_ms as f64);
    r.verdict == Verdict::TimeLimitExceeded && cpu >= GREY * limit && cpu < CLEAR_TLE * limit
}

/// How a run alone with [`SLACK`] times the limits is recorded in [`Seen`].
pub(super) const ALONE_SLACK: &str = "alone, 1.5× limit";

/// Phase 3: each run too close to call, again, and the cells sent here straight (`straight`:
/// the baseline saw them near the limit); see [`best_alone`]. Near cells run `jobs` at a time
/// (one per physical core, as in phase 2), a starved cell's runs alone; each cell's runs are
/// kept as few as the verdict allows.
pub(crate) fn rerun_alone(
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
pub(super) fn continue_chains(
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
                .any(|c| crate::margins::clear_tle(c, limit))
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
            if crate::margins::clear_tle(c, limit) || c.result.verdict == Verdict::JudgeError {
                break;
            }
        }
    }
    stats.not_run_cells += mark_not_run(plans);
}

/// Every (verdict, CPU ms, how) a cell got, each as judged against the limits it ran with,
/// starting with the parallel run.
pub(super) type Seen = Vec<(Verdict, u64, &'static str)>;

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
pub(super) fn best_alone(
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
            (crate::margins::slack(&problem.margins), ALONE_SLACK)
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
pub(super) const STARVED_WALL: f64 = 4.0;

/// How long a run alone may wait for the CPU it needs ([`fed`]): past it, a run the host's
/// load starved of CPU every time is the judge's error (exit 3), named as the host's.
pub(crate) const STARVED_BUDGET: std::time::Duration = std::time::Duration::from_secs(600);

/// The first pause between tries of a starved run; it doubles up to [`STARVED_PAUSE_MAX`].
pub(super) const STARVED_PAUSE: std::time::Duration = std::time::Duration::from_millis(500);
pub(super) const STARVED_PAUSE_MAX: std::time::Duration = std::time::Duration::from_secs(15);

/// `run` (a run alone), tried again after a pause while the host's load starves it of CPU
/// (the judge's own three tries each time), until `budget` has passed: under load a check gets
/// slower, not red. Any other outcome is returned at once.
pub(super) fn fed<T>(
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
pub(super) fn parallel_seen(cell: Option<&Cell>) -> Seen {
    cell.iter()
        .filter(|c| c.result.verdict != Verdict::JudgeError)
        .map(|c| (c.result.verdict, c.result.cpu_ms, "parallel"))
        .collect()
}

/// The limits a run of `sub` on `problem` gets (its compilation is a cache hit by now).
pub(super) fn exact_limits(
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
pub(super) fn at_limit(mut r: TestResult, limits: &ojd_sandbox::Limits) -> TestResult {
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
pub(super) fn sensitivity(
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
        .map_or(SLACK, |p| crate::margins::slack(&p.margins));
    Some(format!(
        "{} on {}: sensitive to the time limit: TLE at {limit} ms, {v} in {cpu} ms at {} ms ({slack}×)",
        plan.subs[s].report.name,
        plan.report.tests[t],
        (limit as f64 * slack).round() as u64
    ))
}

/// The verdict a TLE at the exact limit (`best`) finished with in a run allowed the slack (the
/// parallel one, or the first alone): the fastest such finish.
pub(super) fn finished_with_slack(
    best: &Result<TestResult, JudgeError>,
    seen: &Seen,
) -> Option<Verdict> {
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
pub(super) fn inconsistent(seen: &[(Verdict, u64, &str)], limit_ms: u64) -> bool {
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
