//! `ojd verify`: regression judging of every problem's known submissions, for admins and CI.
//! The entry point is [`verify`]; its result is a [`VerifyReport`].
//!
//! For each problem: load and lint the package (every error at once), check that its answers are
//! up to date and its inputs valid (the work of `ojd gen --check`), judge the reference solver
//! and every file under `submissions/<expected>/` on every test, and check each gets what its
//! folder promises (`expect`). The result is an invocation matrix (submissions × tests),
//! optionally compared with a saved [`Baseline`].
//!
//! # Phases
//! 1. compile every submission, and every program of a package that phase 2 runs (generators,
//!    validator, checker, interactor), in parallel and longest first (the judge caches programs
//!    by hash, so the gen checks and the runs find them compiled);
//! 2. `gen --check` of every problem and every (submission, test) run, in parallel: each test is
//!    a job of its own, judged by [`Judge::judge`] on a one-test copy of the problem, so the one
//!    judging pipeline is used and long submissions do not hold up the others. The reference's
//!    cells are the gen check's own runs of it, made with the cells' limits and judged with the
//!    checker (`run::GenShare`): the reference runs once, not twice;
//! 3. re-run alone the runs whose time came close to the limit, judge alone the cells that a
//!    given baseline saw near the limit (they skip phase 2: see `prior`), and the cells whose
//!    parallel run the host's load starved of CPU (a host fault, never a verdict), with a wider
//!    wall limit; only a run starved alone too is the judge's failure.
//!
//! # Timing honesty
//! Parallel runs share caches, memory bandwidth and the scheduler, which inflates measured CPU
//! time; other load on the machine does too (on the shared 2-core build machine the same run
//! measured from 0.7 to 1.5 times its median). Interference only ever adds time. So: at most one
//! worker per physical core by default ([`default_jobs`]); verdicts rest on CPU time, not wall
//! time; a run in phase 2 gets `SLACK` times the limit, and its verdict stands when it is
//! clear of the limit either way — CPU time under `GREY` of the limit, or a TLE above
//! `CLEAR_TLE` of it — or when it finished within the exact limits (a run alone, faster, would
//! finish too), or finished over them where the folder's promise does not hang on it (`settle`).
//! Every other run (a TLE near the limit, by CPU or wall time; a finish over the limit of an
//! accepted submission) is judged again in phase 3, alone, at the exact limit: first allowed `SLACK` times it and judged by its
//! measured time (which also tells whether it would finish at SLACK), then, while it is a TLE
//! near the CPU limit (between `GREY` and `CLEAR_TLE` of it), again with the exact limit, up
//! to `RERUNS` runs; the fastest run decides (the least disturbed one). A run alone that
//! finishes within the limit settles the verdict: a faster run would finish the same way; so
//! does a TLE by the wall clock with little CPU time (idle or blocked while alone).
//! The matrix marks such re-runs with `*`. A baseline diff reports a flip between TLE and a run
//! that finished near the limit as `near the limit`, not as a change (see `compare`).
//!
//! # The package's promise and the results cache
//! The Kattis timing margins of the package (`[limits]`: `ac_to_time_limit`,
//! `time_limit_to_tle`) are checked on what the runs measured (`margins`): an accepted run
//! over `limit / ac_to_time_limit` is a timing-fragile warning, a `time_limit_exceeded/`
//! submission never stopped at `limit × time_limit_to_tle` a failure; runs are allowed at least
//! that much. Cells and `gen --check` passes are stored in a content-addressed cache (`cache`)
//! and reused while nothing they depend on changed.

#![forbid(unsafe_code)]

mod baseline;
mod cache;
pub mod calibrate;
mod derive;
mod discover;
mod expect;
mod margins;
mod prior;
mod render;
mod run;
mod settle;
pub mod stress;

use std::collections::{BTreeMap, BTreeSet};
use std::path::PathBuf;
use std::time::Instant;

use serde::Serialize;

use ojd_judge::Judge;
use ojd_judge::{TestResult, Verdict};

// What the `ojd` binary uses (and `calibrate::kattis_limit`, the Kattis import); the rest is the
// crate's own. `Key` is public because `BaselineError::BadName` names it.
pub use baseline::{parse_percent, Baseline, BaselineError, Key};
pub use cache::{default_dir as default_cache_dir, CacheOptions};
pub use render::{junit, render_text};

use baseline::{compare, content_hash, BaselineDiff, Ran, Record, Scope};
use expect::FOLDERS;

/// Parallel runs get this many times the time limit.
pub(crate) const SLACK: f64 = 1.5;
/// A verdict from a parallel run stands if its CPU time is under this share of the limit...
pub(crate) const GREY: f64 = 0.75;
/// ...or if it is a TLE whose CPU time is above this multiple of the limit.
pub(crate) const CLEAR_TLE: f64 = 1.4;
/// At most this many runs alone for a run near the limit; the fastest decides.
pub(crate) const RERUNS: usize = 3;

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
    /// A submission in a language this host lacks is a package error, not skipped.
    pub strict: bool,
    /// A baseline is being saved: a full measurement, so nothing is reused from the results
    /// cache (every cell is judged, and stored).
    pub saving: bool,
    /// Every CPU and wall limit is multiplied by this (see [`parse_time_scale`]): 0.5 judges as
    /// on a machine twice as slow, 2.0 as on one twice as fast. Measured times are not scaled.
    pub time_scale: f64,
    /// The results cache (see `docs/verify.md`): unchanged cells and `gen --check` passes are
    /// reused from it, and fresh ones stored. None: no cache at all.
    pub cache: Option<CacheOptions>,
}

/// A command-line value of `ojd verify` or `ojd calibrate` that does not parse, with what was
/// given ([`parse_time_scale`], [`parse_percent`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum ValueError {
    /// `--time-scale`: not a finite number over 0.
    #[error("expected a number over 0, such as 0.5 (limits halved) or 2 (doubled), got {0:?}")]
    TimeScale(String),
    /// A growth threshold: not a percentage of 0 or more.
    #[error("expected a percentage like \"50%\", found {0:?}")]
    Percent(String),
}

/// Parses `--time-scale`: a finite number over 0 (1 = the limits as written).
pub fn parse_time_scale(s: &str) -> Result<f64, ValueError> {
    match s.trim().parse::<f64>() {
        Ok(f) if f.is_finite() && f > 0.0 => Ok(f),
        _ => Err(ValueError::TimeScale(s.to_string())),
    }
}

/// Progress: (phase, done, total, item).
pub type Progress<'a> = dyn Fn(&str, usize, usize, &str) + Sync + 'a;

/// Everything `ojd verify` found.
#[derive(Clone, Debug, Default, Serialize)]
pub struct VerifyReport {
    pub(crate) problems: Vec<ProblemReport>,
    pub(crate) baseline: Option<BaselineDiff>,
    /// Isolation warnings of this host.
    pub(crate) warnings: Vec<String>,
    /// Failures of the judge outside any one problem (the sandbox did not start).
    pub(crate) judge_errors: Vec<String>,
    pub(crate) stats: Stats,
}

/// How much work a verification took.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct Stats {
    pub(crate) workers: usize,
    /// The factor every limit was multiplied by (`--time-scale`; 1 = as written).
    pub(crate) time_scale: f64,
    /// Submissions compiled (not the package programs compiled with them: see `compiles`).
    pub(crate) compilations: usize,
    /// Every program the compile phase compiled (submissions and the generators, validators,
    /// references, checkers and interactors the later phases run), slowest first.
    pub(crate) compiles: Vec<CompileTime>,
    /// Runs of a submission on a test in the parallel phase.
    pub(crate) test_runs: usize,
    /// (submission, test) cells judged alone because their time was close to the limit: in
    /// the parallel phase, or in the baseline (`alone_by_baseline` of them).
    pub(crate) rerun_tests: usize,
    /// Runs made alone for them (up to [`RERUNS`] each).
    pub(crate) reruns: usize,
    /// Near cells whose parallel run finished within the exact limits: settled by it, not
    /// judged alone (interference only adds time; see `settle`).
    pub(crate) settled_within_limit: usize,
    /// Near cells whose parallel run finished over the exact limit where the folder's promise
    /// holds or fails the same for a TLE and for the finish (`settle`): a TLE at the limit,
    /// settled by that run instead of runs alone.
    pub(crate) settled_by_promise: usize,
    /// TLE cells decided by the wall clock with CPU time under a tenth of the limit (a deadlock,
    /// a wait): settled by their parallel run, never judged alone (`prior::idle_tle`).
    pub(crate) settled_idle: usize,
    /// Cells the baseline saw near the limit: judged alone only, with no parallel run first.
    pub(crate) alone_by_baseline: usize,
    /// `gen --check` passes (each runs the generators, validator and reference).
    pub(crate) gen_checks: usize,
    /// Cells whose parallel run the host's load starved of CPU (three tries), judged again
    /// alone (counted in `rerun_tests` too).
    pub(crate) starved_cells: usize,
    /// Cells of the reference judged on `gen --check`'s runs of it (not run again).
    pub(crate) gen_check_cells: usize,
    /// Cells taken from the results cache, not judged ([`cache`]).
    pub(crate) reused_cells: usize,
    /// `gen --check` passes taken from the results cache.
    pub(crate) reused_gen_checks: usize,
    /// Cells of a scaled run (`--time-scale`) decided by the same cell judged at the package's
    /// own limits, from the results cache (see `derive`), not judged again.
    pub(crate) derived_cells: usize,
    /// Cells of `time_limit_exceeded/` submissions not run: after the submission's first clear
    /// TLE in test order.
    pub(crate) not_run_cells: usize,
    pub(crate) seconds: f64,
    /// Where the time went: "compile", "parallel" and "alone" one after the other, and within
    /// "parallel" the time its workers spent in `gen --check` and in runs of
    /// `time_limit_exceeded/` submissions (for those two, `seconds` is that busy time).
    pub(crate) phases: Vec<PhaseTime>,
}

/// One compile of the compile phase: the program (problem, then its path in the package), the
/// wall time of the job, and the compiler's CPU time (`None`: the compile cache had it, or the
/// compile failed before the compiler ran).
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct CompileTime {
    pub(crate) program: String,
    pub(crate) seconds: f64,
    pub(crate) cpu_seconds: Option<f64>,
}

/// One phase's wall time, and the time its workers spent in jobs (busy / (workers × seconds) is
/// how well it used them).
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct PhaseTime {
    pub(crate) phase: String,
    pub(crate) seconds: f64,
    pub(crate) busy_seconds: f64,
}

/// One problem's results.
#[derive(Clone, Debug, Default, Serialize)]
pub(crate) struct ProblemReport {
    pub(crate) problem: String,
    pub(crate) dir: PathBuf,
    pub(crate) time_limit_ms: u64,
    pub(crate) tests: Vec<String>,
    /// [`content_hash`] of each test's input file, in the order of `tests` (none if unreadable).
    #[serde(skip)]
    pub(crate) input_hashes: Vec<Option<u64>>,
    /// Whether its submissions were judged (it loaded and has every answer).
    pub(crate) judged: bool,
    /// Package errors: the admin's to fix (exit code 2).
    pub(crate) errors: Vec<String>,
    /// The judge's own failures (exit code 3).
    pub(crate) judge_errors: Vec<String>,
    pub(crate) warnings: Vec<String>,
    pub(crate) inputs_validated: usize,
    pub(crate) submissions: Vec<SubmissionReport>,
    /// Known submissions in languages this host lacks: not judged, listed (`--strict`: errors).
    pub(crate) skipped: Vec<SkippedSubmission>,
}

/// A known submission left unjudged because its language is unavailable on this host.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct SkippedSubmission {
    pub(crate) name: String,
    pub(crate) expected: Verdict,
    pub(crate) promise: expect::Promise,
    pub(crate) language: String,
    /// Why the language is unavailable (e.g. its compiler is not installed).
    pub(crate) reason: String,
}

/// One submission's row of the matrix.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct SubmissionReport {
    /// Path under `submissions/`, or the reference's path in the package.
    pub(crate) name: String,
    pub(crate) reference: bool,
    /// What its folder promises (see [`expect`]): a verdict, and for `rejected/` and
    /// `partially_accepted/` the promise the verdict stands in for.
    pub(crate) expected: Verdict,
    pub(crate) promise: expect::Promise,
    pub(crate) language: String,
    /// Its CPU time limit (the problem's, times the language's factor).
    pub(crate) limit_ms: u64,
    /// [`content_hash`] of its source file.
    #[serde(skip)]
    pub(crate) source_hash: u64,
    /// The first verdict other than AC in test order; CE when it did not compile.
    pub(crate) verdict: Verdict,
    pub(crate) compile_output: String,
    pub(crate) tests: Vec<Cell>,
    /// It got what its folder promises.
    pub(crate) ok: bool,
    /// Why not.
    pub(crate) failures: Vec<String>,
    /// The cells that break the package's timing margins ([`margins`]): an accepted run over
    /// `limit / ac_to_time_limit` (a warning), or, when none of a `time_limit_exceeded/`
    /// submission's TLEs is clear of `limit × time_limit_to_tle`, those TLEs (a failure).
    pub(crate) timing_fragile: Vec<String>,
}

/// One run of the matrix.
#[derive(Clone, Debug, Serialize)]
pub(crate) struct Cell {
    #[serde(flatten)]
    pub(crate) result: TestResult,
    /// Judged alone because the parallel run came close to the limit, or (with no parallel
    /// run) because the baseline's record of it did.
    pub(crate) rerun: bool,
    /// Sensitive to the time limit: a TLE at the limit that finished with [`SLACK`] times it.
    pub(crate) sensitive: bool,
    /// Taken from the results cache: the same program, test, limits and judge gave it before.
    pub(crate) reused: bool,
    /// Not judged at this `--time-scale`: taken from the same cell judged at the package's own
    /// limits (in the results cache), whose measured time already decides it at the scaled ones
    /// (see `derive`).
    pub(crate) derived: bool,
    /// A cell of the reference judged on the run that `gen --check` made of it (with this
    /// cell's limits, on the committed input): the reference runs once for both.
    pub(crate) from_gen_check: bool,
    /// Not run at all: a `time_limit_exceeded/` submission stops at its first clear TLE, in
    /// test order (its later cells cannot change whether it keeps its promise). Its verdict
    /// reads SK, and the baseline records SK, which the compare does not compare.
    pub(crate) not_run: bool,
    /// A run of it allowed the package's `time_limit_to_tle` times the limit (or more) was
    /// stopped there, by the CPU or the wall clock: it did not finish at that line (see
    /// [`margins`]).
    pub(crate) past_margin: bool,
    /// A TLE at the limit whose run with the slack finished: the verdict it finished with (what
    /// problemtools calls the result at the high limit; see [`expect::with_extra_time`]).
    pub(crate) finished_as: Option<Verdict>,
}

impl Cell {
    /// `result` as judged now: not rerun, reused, derived or skipped, no flag set.
    pub(crate) fn judged(result: TestResult) -> Cell {
        Cell {
            result,
            rerun: false,
            sensitive: false,
            reused: false,
            derived: false,
            from_gen_check: false,
            not_run: false,
            past_margin: false,
            finished_as: None,
        }
    }
}

impl VerifyReport {
    /// 0 all as expected, 1 a verdict differs from expectation or baseline, 2 a package or
    /// configuration error, 3 the judge itself failed (the highest applicable).
    pub fn exit_code(&self) -> i32 {
        if !self.judge_errors.is_empty() || self.problems.iter().any(|p| !p.judge_errors.is_empty())
        {
            3
        } else if self.problems.iter().any(|p| !p.errors.is_empty()) {
            2
        } else if self
            .problems
            .iter()
            .flat_map(|p| &p.submissions)
            .any(|s| !s.ok)
            || self.baseline.as_ref().is_some_and(BaselineDiff::fails)
        {
            1
        } else {
            0
        }
    }

    /// As [`Self::to_baseline`], with `old`'s entries for the submissions skipped here (their
    /// language is unavailable on this host): not judged is not changed.
    fn to_baseline_keeping_skipped(&self, old: &Baseline) -> Baseline {
        let skipped: BTreeSet<(&str, &str)> = self
            .problems
            .iter()
            .flat_map(|p| {
                p.skipped
                    .iter()
                    .map(|s| (p.problem.as_str(), s.name.as_str()))
            })
            .collect();
        let mut now = self.to_baseline();
        for (k, r) in &old.entries {
            if skipped.contains(&(k.problem.as_str(), k.submission.as_str())) {
                now.entries.insert(k.clone(), *r);
                match old.ran.get(k) {
                    Some(ran) => now.ran.insert(k.clone(), *ran),
                    None => now.ran.remove(k),
                };
            }
        }
        now
    }

    /// The verdicts and times of this run, as a baseline. A submission that does not compile
    /// records CE on every test, so that a later compile error shows on every test too.
    pub fn to_baseline(&self) -> Baseline {
        let mut b = Baseline::default();
        for p in self.problems.iter().filter(|p| p.judged) {
            for s in &p.submissions {
                let key = |test: &str| Key {
                    problem: p.problem.clone(),
                    submission: s.name.clone(),
                    test: test.into(),
                };
                let ran = |test: &str| {
                    let i = p.tests.iter().position(|t| t == test)?;
                    Some(Ran {
                        limit_ms: s.limit_ms,
                        source: s.source_hash,
                        input: (*p.input_hashes.get(i)?)?,
                    })
                };
                if s.verdict == Verdict::CompileError && s.tests.is_empty() {
                    for t in &p.tests {
                        b.entries.insert(
                            key(t),
                            Record {
                                verdict: Verdict::CompileError,
                                cpu_ms: 0,
                            },
                        );
                        b.ran.extend(ran(t).map(|r| (key(t), r)));
                    }
                }
                for c in &s.tests {
                    let t = &c.result.name;
                    b.entries.insert(
                        key(t),
                        Record {
                            verdict: c.result.verdict,
                            cpu_ms: c.result.cpu_ms,
                        },
                    );
                    b.ran.extend(ran(t).map(|r| (key(t), r)));
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
        let (k, v) = line
            .split_once(':')
            .map(|(k, v)| (k.trim(), v.trim()))
            .unwrap_or_default();
        match k {
            "physical id" => package = v.to_string(),
            "core id" => {
                cores.insert((package.clone(), v.to_string()));
            }
            _ => {}
        }
    }
    if cores.is_empty() {
        allowed
    } else {
        cores.len().min(allowed)
    }
}

/// Verifies the problems in `dirs` (see the module documentation).
pub fn verify(
    judge: &Judge,
    dirs: &[PathBuf],
    opts: &VerifyOptions,
    progress: &Progress<'_>,
) -> VerifyReport {
    let started = Instant::now();
    let mut report = VerifyReport {
        stats: Stats {
            workers: opts.jobs.max(1),
            time_scale: opts.time_scale,
            ..Stats::default()
        },
        ..Default::default()
    };
    match judge.warnings() {
        Ok(w) => report.warnings = w,
        Err(e) => {
            report
                .judge_errors
                .push(format!("the sandbox does not start: {e}"));
            return report;
        }
    }
    let mut plans: Vec<discover::Plan> = dirs
        .iter()
        .map(|d| discover::plan(judge, d, opts.time_scale))
        .collect();
    if opts.strict {
        for plan in &mut plans {
            let r = &mut plan.report;
            r.errors.extend(r.skipped.drain(..).map(|s| {
                format!(
                    "{}: language {} is unavailable: {} (--strict)",
                    s.name, s.language, s.reason
                )
            }));
        }
    }
    let t = Instant::now();
    let cache = opts.cache.clone().map(|c| {
        // A baseline being saved is a full measurement: nothing is reused, all is stored.
        let reuse = c.reuse && !opts.saving;
        cache::Cache::new(CacheOptions { reuse, ..c })
    });
    let salt = cache::Salt::new(judge, opts.time_scale);
    if let Some(c) = &cache {
        run::reuse(judge, c, &salt, &mut plans, &mut report.stats);
    }
    // The package programs stay pinned in the compile cache until the runs that use them end.
    // One compile more than the workers: a compile spends about a third of its wall time
    // outside the compiler's CPU (the sandbox around it, storing the program), and nothing in
    // this phase is measured against a limit a verdict rests on (the compile limits are
    // seconds for a compile that takes one), so a third compile fills that time.
    let (busy, _tools) = run::compile_all(
        judge,
        &mut plans,
        opts.jobs + 1,
        progress,
        &mut report.stats,
    );
    if cache.is_some() {
        run::reuse_compiled(&mut plans, &mut report.stats);
    }
    report.stats.phases.push(PhaseTime {
        phase: "compile".into(),
        seconds: t.elapsed().as_secs_f64(),
        busy_seconds: busy,
    });
    let t = Instant::now();
    let (busy, straight) = run::judge_all(
        judge,
        &mut plans,
        opts.jobs,
        opts.baseline.as_ref().map(|(_, b)| b),
        progress,
        &mut report.stats,
    );
    report.stats.phases.insert(
        1,
        PhaseTime {
            phase: "parallel".into(),
            seconds: t.elapsed().as_secs_f64(),
            busy_seconds: busy,
        },
    );
    let t = Instant::now();
    run::rerun_alone(
        judge,
        &mut plans,
        straight,
        opts.jobs,
        progress,
        &mut report.stats,
    );
    report.stats.phases.push(PhaseTime {
        phase: "alone".into(),
        seconds: t.elapsed().as_secs_f64(),
        busy_seconds: t.elapsed().as_secs_f64(),
    });
    if let Some(c) = &cache {
        run::store(c, &plans);
    }
    report.problems = plans.into_iter().map(discover::Plan::finish).collect();
    if let Some((file, old)) = &opts.baseline {
        let judged: BTreeSet<String> = report
            .problems
            .iter()
            .filter(|p| p.judged)
            .map(|p| p.problem.clone())
            .collect();
        let unjudged: BTreeSet<String> = report
            .problems
            .iter()
            .filter(|p| !p.judged)
            .map(|p| p.problem.clone())
            .collect();
        let limits: BTreeMap<(String, String), u64> = report
            .problems
            .iter()
            .flat_map(|p| {
                p.submissions
                    .iter()
                    .map(|s| ((p.problem.clone(), s.name.clone()), s.limit_ms))
            })
            .collect();
        let scope = Scope {
            judged: &judged,
            unjudged: &unjudged,
            all: opts.all_problems,
            limits: &limits,
            time_scale: opts.time_scale,
        };
        report.baseline = Some(compare(
            file,
            old,
            &report.to_baseline_keeping_skipped(old),
            &scope,
            opts.time_threshold,
        ));
    }
    report.stats.seconds = started.elapsed().as_secs_f64();
    report
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn time_scale_table() {
        for (arg, want) in [
            ("1", Some(1.0)),
            ("0.5", Some(0.5)),
            ("2.0", Some(2.0)),
            (" 3 ", Some(3.0)),
            ("0", None),
            ("-1", None),
            ("inf", None),
            ("NaN", None),
            ("", None),
            ("50%", None),
        ] {
            assert_eq!(parse_time_scale(arg).ok(), want, "{arg:?}");
        }
        // The error is a type (what was given kept), its text what clap prints.
        let e = parse_time_scale("0").unwrap_err();
        assert_eq!(e, ValueError::TimeScale("0".into()));
        assert_eq!(
            e.to_string(),
            "expected a number over 0, such as 0.5 (limits halved) or 2 (doubled), got \"0\""
        );
    }

    #[test]
    fn exit_code_priorities() {
        let mut r = VerifyReport::default();
        assert_eq!(r.exit_code(), 0);
        r.baseline = Some(BaselineDiff {
            removed: vec![(
                Key {
                    problem: "p".into(),
                    submission: "s".into(),
                    test: "t".into(),
                },
                Record {
                    verdict: Verdict::Accepted,
                    cpu_ms: 1,
                },
            )],
            ..Default::default()
        });
        assert_eq!(r.exit_code(), 1);
        r.problems.push(ProblemReport {
            errors: vec!["bad".into()],
            ..Default::default()
        });
        assert_eq!(r.exit_code(), 2);
        r.judge_errors.push("sandbox".into());
        assert_eq!(r.exit_code(), 3);
    }
}
