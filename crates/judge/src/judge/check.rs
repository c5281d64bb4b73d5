//! Checking a finished run's output: the built-in comparisons or the problem's checker program
//! (testlib conventions), run in the sandbox.

use std::path::Path;
use std::time::Duration;

use super::{io_err, Judge, JudgeError, Program, ProgramRun};
use crate::checker::{self, CheckOutcome};
use crate::fsutil::read_capped;
use crate::problem::{Problem, TestCase};
use crate::verdict::{TestResult, Verdict};
use ojd_sandbox::{Limits, Termination};

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
        mut result: TestResult,
    ) -> Result<TestResult, JudgeError> {
        let output = std::fs::read(out_path).map_err(io_err("read the program's output"))?;
        let answer = std::fs::read(&test.answer)
            .map_err(io_err(format!("read {}", test.answer.display())))?;
        let outcome = match checker {
            None => checker::compare(&problem.checker, &output, &answer),
            Some(c) => match &problem.checker {
                crate::problem::CheckerSpec::Kattis { flags, .. } => {
                    self.run_kattis_validator(c, flags, test, out_path, work)?
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
        Ok(result)
    }

    fn run_checker(
        &self,
        checker: &Program,
        test: &TestCase,
        output: &Path,
        work: &Path,
    ) -> Result<CheckOutcome, JudgeError> {
        let log = work.join("checker.log");
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
        let text = read_capped(&log, 4096);
        if outcome.killed_by.is_some() {
            return Ok(CheckOutcome::Failed(format!(
                "checker exceeded a limit ({:?})",
                outcome.killed_by
            )));
        }
        let code = match outcome.termination {
            Termination::Exited(c) => Some(c),
            Termination::Signaled(_) => None,
        };
        Ok(checker::testlib_outcome(code, &text))
    }
}
