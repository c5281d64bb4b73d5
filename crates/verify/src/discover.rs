//! The packages' side of `ojd verify`: finding and linting a problem's submissions ([`plan`]),
//! and turning what the runs found into a [`ProblemReport`] ([`Plan::finish`]): the verdict of
//! each submission, whether it kept its folder's promise, the reference's safety margin.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::time::Duration;

use super::expect::{folder_promise, promise_failures, Promise};
use super::{Cell, ProblemReport, SubmissionReport, FOLDERS};
use ojd_judge::Problem;
use ojd_judge::Verdict;
use ojd_judge::{Judge, JudgeError, Submission};

/// A problem on its way through the phases.
pub(super) struct Plan {
    pub(super) report: ProblemReport,
    pub(super) problem: Option<Problem>,
    pub(super) subs: Vec<Sub>,
    /// The key of its `gen --check` in the results cache, and whether it was reused from it.
    pub(super) gen_key: Option<String>,
    pub(super) gen_reused: bool,
    /// At a `--time-scale` other than 1: the package with its own limits, whose cells in the
    /// results cache may decide this run's (see `derive`).
    pub(super) unscaled: Option<Problem>,
    /// (submission, test) of the cells whose parallel run the host's load starved of CPU (a
    /// host fault, never a verdict): judged again alone before they count as the judge's failure.
    pub(super) starved: Vec<(usize, usize)>,
}

/// What a compiled submission runs as, for the results cache's keys.
pub(super) struct Ran {
    /// The compile cache's key of the program (language, command, compiler, source).
    pub(super) program: String,
    pub(super) run: Vec<String>,
    /// Its limits on this problem, as text, and the CPU limit in milliseconds.
    pub(super) limits: String,
    pub(super) limit_ms: u64,
    pub(super) wall_ms: u64,
}

#[derive(Copy, Clone, PartialEq)]
pub(super) enum Stage {
    Found,
    Compiled,
    CompileError,
    Failed,
}

pub(super) struct Sub {
    pub(super) report: SubmissionReport,
    pub(super) submission: Submission,
    pub(super) stage: Stage,
    /// One per test, filled by the runs.
    pub(super) cells: Vec<Option<Cell>>,
    /// Set when compiled.
    pub(super) ran: Option<Ran>,
    /// (test, key in the results cache) of its cells.
    pub(super) keys: Vec<(usize, String)>,
    /// Cells found before compiling (reused from the results cache, or derived from the run at
    /// the package's own limits), put in place once it is compiled.
    pub(super) found: Vec<Option<Cell>>,
}

pub(super) fn ms(d: Duration) -> u64 {
    d.as_millis() as u64
}

/// `problem` with its time and wall time limits multiplied by `time_scale` (`--time-scale`);
/// a wall limit the package leaves unset follows from the scaled time limit in the judge.
fn scaled(mut problem: Problem, time_scale: f64) -> Problem {
    if time_scale != 1.0 {
        problem.time_limit = problem.time_limit.mul_f64(time_scale);
        problem.wall_time_limit = problem.wall_time_limit.map(|w| w.mul_f64(time_scale));
    }
    problem
}

/// The judge's failures and the operator's mistakes go to different lists (exit 3 vs 2).
pub(super) fn record_error(report: &mut ProblemReport, what: &str, e: &JudgeError) {
    let text = format!("{what}: {e}");
    match e {
        _ if e.is_host_fault() => report.judge_errors.push(text),
        JudgeError::Cancelled => report.judge_errors.push(text),
        _ => report.errors.push(text),
    }
}

/// Loads the package in `dir` and finds its submissions. Its time limit and wall time limit
/// are multiplied by `time_scale` here, so every run and every compare sees the scaled ones.
pub(super) fn plan(judge: &Judge, dir: &Path, time_scale: f64) -> Plan {
    let id = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| dir.display().to_string());
    let mut report = ProblemReport {
        problem: id,
        dir: dir.to_path_buf(),
        ..Default::default()
    };
    let loaded = Problem::load(dir);
    let unscaled = match &loaded {
        Ok(p) if time_scale != 1.0 => Some(p.clone()),
        _ => None,
    };
    let problem = match loaded {
        Ok(p) => scaled(p, time_scale),
        Err(e) => {
            report.errors.extend(e.errors);
            return Plan {
                report,
                problem: None,
                subs: Vec::new(),
                gen_key: None,
                gen_reused: false,
                unscaled: None,
                starved: Vec::new(),
            };
        }
    };
    report.problem = problem.id.clone();
    report.time_limit_ms = ms(problem.time_limit);
    report.tests = problem.tests.iter().map(|t| t.name.clone()).collect();
    // What the runs read: recorded in a saved baseline (format 2). An unreadable input has none
    // (its runs say why).
    report.input_hashes = problem
        .tests
        .iter()
        .map(|t| {
            std::fs::read(&t.input)
                .ok()
                .map(|b| super::content_hash(&b))
        })
        .collect();
    let missing: Vec<&str> = problem
        .missing_answers()
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    report.judged = missing.is_empty();
    if !missing.is_empty() {
        report.errors.push(format!(
            "not judged: no answers for {} (run `ojd gen {}`)",
            missing.join(", "),
            dir.display()
        ));
    }
    let subs = discover(judge, &problem, &mut report);
    Plan {
        report,
        problem: Some(problem),
        subs,
        gen_key: None,
        gen_reused: false,
        unscaled,
        starved: Vec::new(),
    }
}

/// A submission a package knows, for `ojd calibrate`: the reference or a file under
/// `submissions/<folder>/`.
pub(crate) struct KnownSubmission {
    /// Path under `submissions/`, or the reference's path in the package.
    pub(crate) name: String,
    /// What its folder promises.
    pub(crate) expected: Verdict,
    pub(crate) submission: Submission,
}

/// A package's problem and its known submissions, found and linted as `verify` does; `Err` holds
/// every package error (a problem that does not load, a stray folder, an unknown language...).
pub(crate) fn known_submissions(
    judge: &Judge,
    dir: &Path,
) -> Result<(Problem, Vec<KnownSubmission>), Vec<String>> {
    let plan = plan(judge, dir, 1.0);
    let mut errors = plan.report.errors;
    errors.extend(plan.report.judge_errors);
    match plan.problem {
        Some(problem) if errors.is_empty() => Ok((
            problem,
            plan.subs
                .into_iter()
                .map(|s| KnownSubmission {
                    name: s.report.name,
                    expected: s.report.expected,
                    submission: s.submission,
                })
                .collect(),
        )),
        _ => Err(errors),
    }
}

fn sorted_entries(dir: &Path) -> Vec<PathBuf> {
    let mut v: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|rd| rd.flatten().map(|e| e.path()).collect())
        .unwrap_or_default();
    v.retain(|p| {
        !p.file_name()
            .is_some_and(|n| n.to_string_lossy().starts_with('.'))
    });
    v.sort();
    v
}

/// The reference solver and every file under `submissions/<folder>/`, linted.
fn discover(judge: &Judge, problem: &Problem, report: &mut ProblemReport) -> Vec<Sub> {
    let mut subs = Vec::new();
    let reference = problem.solution.display().to_string();
    // `answers = "given"` needs no reference: judge it only when there is one.
    let has_reference = !problem.answers_given || problem.dir.join(&problem.solution).is_file();
    subs.extend(
        has_reference
            .then(|| {
                read_sub(
                    judge,
                    &problem.dir.join(&problem.solution),
                    reference,
                    (Verdict::Accepted, Promise::Verdict),
                    true,
                    report,
                )
            })
            .flatten(),
    );
    let root = problem.dir.join("submissions");
    if !root.is_dir() {
        report
            .warnings
            .push("no submissions/ folder: only the reference solution is judged".into());
        return subs;
    }
    let mut known: Vec<&str> = FOLDERS.iter().map(|v| v.folder()).collect();
    known.extend([
        "rejected",
        "partially_accepted",
        super::expect::ACCEPTED_OR_TLE,
        super::expect::TLE_OR_MLE,
    ]);
    for folder in sorted_entries(&root) {
        let name = folder
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(expected) = folder_promise(&name).filter(|_| folder.is_dir()) else {
            report.errors.push(format!(
                "{}: not a verdict folder (expected one of {})",
                folder.display(),
                known.join(", ")
            ));
            continue;
        };
        for file in sorted_entries(&folder) {
            let file_name = file
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            // A folder is a submission of several files (`Judge::read_submission`).
            subs.extend(read_sub(
                judge,
                &file,
                format!("{name}/{file_name}"),
                expected,
                false,
                report,
            ));
        }
    }
    subs
}

fn read_sub(
    judge: &Judge,
    path: &Path,
    name: String,
    (expected, promise): (Verdict, Promise),
    reference: bool,
    report: &mut ProblemReport,
) -> Option<Sub> {
    let submission = judge
        .read_submission(path, None)
        .map_err(|e| report.errors.push(ojd_judge::error_chain(&e)))
        .ok()?;
    if let Err(e) = judge.check_submission(&submission) {
        if let JudgeError::LanguageUnavailable { language, reason } = e {
            // Not this package's fault: listed as skipped (an error with --strict).
            report.skipped.push(super::SkippedSubmission {
                name,
                expected,
                promise,
                language,
                reason: reason.to_string(),
            });
        } else {
            record_error(report, &path.display().to_string(), &e);
        }
        return None;
    }
    let report = SubmissionReport {
        name,
        reference,
        expected,
        promise,
        language: submission.language.clone(),
        limit_ms: 0,
        source_hash: super::content_hash(&submission.source),
        verdict: Verdict::Accepted,
        compile_output: String::new(),
        tests: Vec::new(),
        ok: false,
        failures: Vec::new(),
        timing_fragile: Vec::new(),
    };
    Some(Sub {
        report,
        submission,
        stage: Stage::Found,
        cells: Vec::new(),
        ran: None,
        keys: Vec::new(),
        found: Vec::new(),
    })
}

impl Plan {
    pub(super) fn finish(self) -> ProblemReport {
        let mut report = self.report;
        let rules = self
            .problem
            .as_ref()
            .map(|p| p.verdicts)
            .unwrap_or_default();
        let margins = self.problem.as_ref().map(|p| p.margins).unwrap_or_default();
        let groups = self
            .problem
            .as_ref()
            .map(|p| p.groups.as_slice())
            .unwrap_or_default();
        for sub in self.subs {
            let mut s = sub.finish(
                &report.tests,
                rules,
                groups,
                super::margins::slack(&margins),
            );
            if s.tests.len() == report.tests.len() {
                let expected = match s.reference {
                    true => Verdict::Accepted,
                    false => s.expected,
                };
                let (failure, warning, cells) =
                    super::margins::check(&s.name, expected, s.ok, &s.tests, s.limit_ms, &margins);
                s.timing_fragile = cells;
                report.warnings.extend(warning);
                if let Some(f) = failure {
                    s.failures.push(f);
                    s.ok = false;
                }
            }
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
    fn finish(
        self,
        tests: &[String],
        rules: ojd_judge::VerdictRules,
        groups: &[ojd_judge::Group],
        slack: f64,
    ) -> SubmissionReport {
        let mut r = self.report;
        let limit = r.limit_ms;
        r.tests = self
            .cells
            .into_iter()
            .flatten()
            .map(|c| honest_tle_message(c, limit, slack))
            .collect();
        r.verdict = match self.stage {
            Stage::CompileError => Verdict::CompileError,
            _ => r
                .tests
                .iter()
                .map(|c| c.result.verdict)
                .find(|v| *v != Verdict::Accepted)
                .unwrap_or(Verdict::Accepted),
        };
        r.failures = match self.stage {
            Stage::Compiled if r.tests.len() == tests.len() => {
                // A cell not run (after a brute force's first clear TLE) promises nothing.
                let got: Vec<(&str, Verdict, Option<Verdict>)> = r
                    .tests
                    .iter()
                    .filter(|c| !c.not_run)
                    .map(|c| (c.result.name.as_str(), c.result.verdict, c.finished_as))
                    .collect();
                // A TLE is a rejection however near the limit: no extra time for `rejected/`.
                let got = match r.promise {
                    Promise::Verdict => super::expect::with_extra_time(r.expected, &got),
                    _ => got.iter().map(|&(t, v, _)| (t, v)).collect(),
                };
                let got = super::expect::as_rules(rules, &got);
                promise_failures(r.promise, r.expected, true, &got, groups)
            }
            Stage::CompileError => promise_failures(r.promise, r.expected, false, &[], groups),
            _ => vec!["not judged (see the errors above)".to_string()],
        };
        r.ok = r.failures.is_empty();
        r
    }
}

/// A TLE decided in the parallel phase was measured against the slackened limit; say so.
fn honest_tle_message(mut c: Cell, limit_ms: u64, slack: f64) -> Cell {
    if c.derived {
        // Says already how it was derived from the run at the package's own limits.
    } else if !c.rerun && c.result.verdict == Verdict::TimeLimitExceeded {
        c.result.message = format!(
            "CPU time over {} ms, the limit is {limit_ms} ms (a parallel run with {:.0}% slack)",
            c.result.cpu_ms,
            (slack - 1.0) * 100.0
        );
    }
    c
}
