//! Checkers, all in one place: what decides whether a finished run's output answers the test.
//!
//! - the built-in comparisons (`builtin.rs`, [`compare`]): `tokens`, `exact`, `lines`, `float`
//!   and `kattis-default`;
//! - a problem's checker program speaking testlib's protocol (here: run in the sandbox, its
//!   verdict read by [`testlib_outcome`]);
//! - a problem's Kattis output validator (`kattis.rs`);
//! - a problem's CMS checker, which may give part of a test's credit (`cms.rs`).
//!
//! An interactor reports its verdict by the same two protocols (`interactive.rs` reads it with
//! [`testlib_outcome`] and [`kattis_outcome`]).

mod builtin;
mod cms;
mod kattis;

use std::path::Path;
use std::time::Duration;

pub use self::builtin::compare;
pub(super) use self::kattis::kattis_outcome;
use super::host::file_fault;
use super::{Judge, JudgeError, Program, ProgramRun};
use crate::fsutil::read_tail;
use crate::problem::{CheckerSpec, Problem, TestCase};
use crate::verdict::{TestResult, Verdict};
use ojd_sandbox::{Limits, Termination};

/// What a validator's (or interactor's) feedback folder may hold between the passes of a
/// multi-pass problem: state for itself and the next pass's input, never a tree to fill the
/// judge's disk or exhaust its walk.
pub(super) const FEEDBACK_CAPS: crate::fsutil::TreeCaps = crate::fsutil::TreeCaps {
    depth: 16,
    inodes: 10_000,
    bytes: 256 << 20,
};

/// The caps of the tmpfs a validator's (or interactor's) feedback folder is during each pass
/// (with namespaces): its writes fail at these, during the pass, and a pass that filled one is
/// the package's fault (a judge error). Tighter than [`FEEDBACK_CAPS`], which is checked after
/// each pass and is the only bound without namespaces. The bytes leave room for a
/// `nextpass.in` of the validator's largest file (64 MiB) and 16 MiB of state.
pub(super) const FEEDBACK_TMPFS: ojd_sandbox::Cap = ojd_sandbox::Cap {
    bytes: 80 << 20,
    inodes: 4096,
    depth: FEEDBACK_CAPS.depth as u32,
};

/// What a checker decided.
#[derive(Clone, Debug, PartialEq)]
pub enum CheckOutcome {
    /// The output is right.
    Accepted,
    /// Wrong answer, with a one-line reason naming where.
    Wrong(String),
    /// The checker itself failed: a judge error, never the student's fault.
    Failed(String),
}

impl Judge {
    /// Checks a finished run's output against the test's answer (built in comparison or the
    /// problem's checker program) and sets the verdict of `result`.
    pub(crate) fn check(
        &self,
        problem: &Problem,
        checker: Option<&Program>,
        test: &TestCase,
        out_path: &Path,
        work: &Path,
        result: TestResult,
    ) -> Result<TestResult, JudgeError> {
        Ok(self
            .check_partial(problem, checker, test, out_path, work, result)?
            .0)
    }

    /// [`Judge::check`], with the share of the test's credit (thousandths, 1 to 999) when a
    /// `cms` checker gave part of it.
    pub(crate) fn check_partial(
        &self,
        problem: &Problem,
        checker: Option<&Program>,
        test: &TestCase,
        out_path: &Path,
        work: &Path,
        mut result: TestResult,
    ) -> Result<(TestResult, Option<u32>), JudgeError> {
        let mut partial = None;
        // Either read failing is the host's trouble: never a wrong answer.
        let output =
            std::fs::read(out_path).map_err(file_fault("read the program's output", out_path))?;
        let answer = std::fs::read(&test.answer)
            .map_err(file_fault("read the answer of the test", &test.answer))?;
        let outcome = match checker {
            None => compare(&problem.checker, &output, &answer),
            Some(c) => match &problem.checker {
                CheckerSpec::Kattis { flags, .. } => {
                    self.run_kattis_validator(c, flags, test, out_path, work)?
                }
                CheckerSpec::Cms { .. } => {
                    let threshold = problem.threshold(&test.name);
                    let (outcome, share) =
                        self.run_cms_checker(c, test, out_path, work, threshold)?;
                    partial = share;
                    outcome
                }
                _ => self.run_checker(c, test, out_path, work)?,
            },
        };
        match outcome {
            CheckOutcome::Accepted => {}
            CheckOutcome::Wrong(message) => {
                result.verdict = Verdict::WrongAnswer;
                result.message = message;
                result.diff = crate::diff::diff(&answer, &output);
            }
            CheckOutcome::Failed(message) => {
                result.verdict = Verdict::JudgeError;
                result.message = message;
            }
        }
        Ok((result, partial))
    }

    fn run_checker(
        &self,
        checker: &Program,
        test: &TestCase,
        output: &Path,
        work: &Path,
    ) -> Result<CheckOutcome, JudgeError> {
        let log = work.join("checker.log");
        // A new file each test, never the last one's truncated (see `run_on_input`).
        let _ = std::fs::remove_file(&log);
        let args: Vec<String> = ["input", "output", "answer"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let outcome = self.execute(&ProgramRun {
            program: checker,
            args: &args,
            stdin: None,
            stdout: &log,
            stderr: None,
            box_files: vec![
                (test.input.clone(), "input".into()),
                (output.to_path_buf(), "output".into()),
                (test.answer.clone(), "answer".into()),
            ],
            collect: vec![],
            limits: Limits {
                cpu: Duration::from_secs(10),
                wall: Duration::from_secs(20),
                memory: 1 << 30,
                output: 1 << 20,
                processes: 4,
                file_size: 1 << 20,
            },
        })?;
        let text = read_tail(&log, 16 << 10);
        if outcome.killed_by.is_some() {
            return Ok(CheckOutcome::Failed(format!(
                "checker exceeded a limit ({:?})",
                outcome.killed_by
            )));
        }
        let code = match outcome.termination {
            Termination::Exited(c) => Some(c),
            // Named: "checker crashed" alone does not say how.
            Termination::Signaled(s) => {
                let msg = crate::message::checker_message(&text);
                let sig = super::run::signal_name(s);
                return Ok(CheckOutcome::Failed(if msg.is_empty() {
                    format!("checker crashed ({sig})")
                } else {
                    format!("checker crashed ({sig}): {msg}")
                }));
            }
        };
        Ok(testlib_outcome(code, &text))
    }
}

/// Reads a testlib checker's verdict: 0 OK, 1 WA, 2 PE (a wrong answer too), 3 checker failure;
/// the message is the last lines of what it printed ([`crate::message::checker_message`]).
pub(super) fn testlib_outcome(exit: Option<i32>, message: &str) -> CheckOutcome {
    let msg = crate::message::checker_message(message);
    match exit {
        Some(0) => CheckOutcome::Accepted,
        Some(1) => CheckOutcome::Wrong(if msg.is_empty() {
            "wrong answer".into()
        } else {
            msg
        }),
        Some(2) => CheckOutcome::Wrong(format!("presentation error: {msg}")),
        Some(3) => CheckOutcome::Failed(format!("checker failure: {msg}")),
        Some(c) => CheckOutcome::Failed(format!("checker exited with unknown code {c}: {msg}")),
        None => CheckOutcome::Failed(format!("checker crashed: {msg}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CheckOutcome::*;

    #[test]
    fn testlib_codes() {
        assert_eq!(testlib_outcome(Some(0), "ok"), Accepted);
        assert_eq!(
            testlib_outcome(Some(1), "wrong answer 3rd number\n"),
            Wrong("wrong answer 3rd number".into())
        );
        assert!(
            matches!(testlib_outcome(Some(2), "spaces"), Wrong(m) if m.starts_with("presentation error"))
        );
        assert!(matches!(testlib_outcome(Some(3), "bad"), Failed(_)));
        assert!(matches!(testlib_outcome(None, ""), Failed(_)));
    }

    /// A checker written in Python that crashed (exit 1, which testlib reads as a wrong answer,
    /// or a signal): the message ends with the exception.
    #[test]
    fn a_crashed_checker_shows_the_end_of_its_traceback() {
        let tb = "Traceback (most recent call last):\n  File \"/prog/main.py\", line 3, in <module>\n    print(1 / 0)\nZeroDivisionError: division by zero\n";
        for exit in [Some(1), None] {
            let m = match testlib_outcome(exit, tb) {
                Wrong(m) | Failed(m) => m,
                Accepted => panic!("accepted"),
            };
            assert!(m.ends_with("ZeroDivisionError: division by zero"), "{m}");
        }
    }
}
