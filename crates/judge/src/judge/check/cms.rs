//! CMS checkers ("comparators", as CMS and the Italian task format have them): run in the
//! sandbox as `checker input answer output` (the files in its box under those names), the
//! checker prints the test's score, a number from 0 to 1, on standard output, and a message on
//! standard error. CMS's own messages `translate:success`, `translate:wrong` and
//! `translate:partial` read as "correct", "wrong answer" and "partially correct".
//!
//! The score reads as [`cms_outcome`] says: 1 accepts; 0 is a wrong answer; anything between is a
//! wrong answer that earns that share of the test's credit (in thousandths, rounded down, 1 to
//! 999), which scoring counts (`JudgeReport::partial`); anything else, a crash or a limit is a
//! judge error.
//!
//! A test of a group with a `threshold` (CMS's `GroupThreshold`) reads the checker's number as
//! CMS does there: any number, the test accepted when it is above 0 and at most the threshold
//! (as CMS, 0 is never accepted: task types give it to a program that failed), else a wrong
//! answer; no part of the credit.

use std::path::Path;
use std::time::Duration;

use super::CheckOutcome;
use crate::fsutil::read_tail;
use crate::judge::{Judge, JudgeError, Program, ProgramRun};
use crate::problem::TestCase;
use ojd_sandbox::{Limits, Termination};

impl Judge {
    /// Runs a CMS checker on one test's output: the outcome, and the share of the credit when
    /// it gave part of it.
    pub(super) fn run_cms_checker(
        &self,
        checker: &Program,
        test: &TestCase,
        output: &Path,
        work: &Path,
        threshold: Option<f64>,
    ) -> Result<(CheckOutcome, Option<u32>), JudgeError> {
        let (out, err) = (work.join("checker.out"), work.join("checker.err"));
        // New files each test, never the last one's truncated (see `run_on_input`).
        for f in [&out, &err] {
            let _ = std::fs::remove_file(f);
        }
        let args: Vec<String> = ["input", "answer", "output"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        let outcome = self.execute(&ProgramRun {
            program: checker,
            args: &args,
            stdin: None,
            stdout: &out,
            stderr: Some(&err),
            box_files: vec![
                (test.input.clone(), "input".into()),
                (test.answer.clone(), "answer".into()),
                (output.to_path_buf(), "output".into()),
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
        let said = read_tail(&err, 16 << 10);
        if outcome.killed_by.is_some() {
            return Ok((
                CheckOutcome::Failed(format!(
                    "checker exceeded a limit ({:?})",
                    outcome.killed_by
                )),
                None,
            ));
        }
        let code = match outcome.termination {
            Termination::Exited(c) if outcome.exec_error.is_none() => Some(c),
            _ => None,
        };
        Ok(cms_outcome(
            code,
            &crate::fsutil::read_capped(&out, 4096),
            &said,
            threshold,
        ))
    }
}

/// A CMS checker's verdict from its exit code, standard output (the score) and standard error
/// (the message), and the threshold of the test's group if it has one; see the module
/// documentation.
pub(super) fn cms_outcome(
    exit: Option<i32>,
    stdout: &str,
    stderr: &str,
    threshold: Option<f64>,
) -> (CheckOutcome, Option<u32>) {
    let said = crate::message::checker_message(stderr);
    let message = match said.as_str() {
        "translate:success" => "correct".to_string(),
        "translate:wrong" => "wrong answer".to_string(),
        "translate:partial" => "partially correct".to_string(),
        _ => said,
    };
    let failed = |why: String| {
        let m = if message.is_empty() {
            why
        } else {
            format!("{why}: {message}")
        };
        (CheckOutcome::Failed(m), None)
    };
    match exit {
        Some(0) => {}
        Some(c) => return failed(format!("checker exited with code {c}")),
        None => return failed("checker crashed".into()),
    }
    let token = stdout.split_whitespace().next().unwrap_or("");
    if let Some(t) = threshold {
        let outcome: f64 = match token.parse::<f64>() {
            Ok(x) if x.is_finite() => x,
            _ => {
                return failed(format!(
                    "checker printed {:?}, not a number",
                    token.chars().take(40).collect::<String>()
                ))
            }
        };
        if outcome > 0.0 && outcome <= t {
            return (CheckOutcome::Accepted, None);
        }
        let m = format!(
            "wrong answer: outcome {token} is not within the group's threshold (above 0, at most {t}){}",
            if message.is_empty() {
                String::new()
            } else {
                format!("; {message}")
            }
        );
        return (CheckOutcome::Wrong(m), None);
    }
    let score: f64 = match token.parse() {
        Ok(x) if (0.0..=1.0).contains(&x) => x,
        _ => {
            return failed(format!(
                "checker printed {:?}, not a score from 0 to 1",
                token.chars().take(40).collect::<String>()
            ))
        }
    };
    if score >= 1.0 {
        return (CheckOutcome::Accepted, None);
    }
    let share = ((score * 1000.0).floor() as u32).clamp(0, 999);
    if share == 0 {
        let m = if message.is_empty() {
            "wrong answer (checker score 0)".to_string()
        } else {
            message
        };
        return (CheckOutcome::Wrong(m), None);
    }
    let m = format!(
        "partially correct: {} of the test's credit{}",
        token,
        if message.is_empty() {
            String::new()
        } else {
            format!("; {message}")
        }
    );
    (CheckOutcome::Wrong(m), Some(share))
}

#[cfg(test)]
mod tests {
    use super::*;
    use CheckOutcome::*;

    #[test]
    fn scores_and_messages() {
        assert_eq!(
            cms_outcome(Some(0), "1.0\n", "translate:success\n", None),
            (Accepted, None)
        );
        assert_eq!(cms_outcome(Some(0), "1\n", "", None), (Accepted, None));
        assert_eq!(
            cms_outcome(Some(0), "0.0\n", "translate:wrong\n", None),
            (Wrong("wrong answer".into()), None)
        );
        assert_eq!(
            cms_outcome(Some(0), "0\n", "", None),
            (Wrong("wrong answer (checker score 0)".into()), None)
        );
        assert_eq!(
            cms_outcome(Some(0), "0.5\n", "half of the pairs\n", None),
            (
                Wrong("partially correct: 0.5 of the test's credit; half of the pairs".into()),
                Some(500)
            )
        );
        assert_eq!(
            cms_outcome(Some(0), "0.0001", "", None).1,
            Some(0).filter(|_| false)
        );
        assert_eq!(cms_outcome(Some(0), "0.001", "", None).1, Some(1));
        assert_eq!(cms_outcome(Some(0), "0.9999", "", None).1, Some(999));
        // Under a threshold (GroupThreshold): above 0 and at most the threshold accepts.
        let t = Some(0.5);
        assert_eq!(cms_outcome(Some(0), "0.5\n", "", t), (Accepted, None));
        assert_eq!(cms_outcome(Some(0), "0.01", "", t), (Accepted, None));
        for out in ["0", "0.0", "-1", "0.5001", "1", "7"] {
            let (o, share) = cms_outcome(Some(0), out, "too far", t);
            assert!(
                matches!(&o, Wrong(m) if m.contains("not within the group's threshold") && m.ends_with("; too far")),
                "{out}: {o:?}"
            );
            assert_eq!(share, None, "{out}: no partial credit");
        }
        // Numbers above 1 are outcomes there, not a checker's failure.
        assert_eq!(cms_outcome(Some(0), "12", "", Some(20.0)), (Accepted, None));
        for (exit, out) in [
            (Some(0), "abc"),
            (Some(0), ""),
            (Some(0), "inf"),
            (Some(1), "0.1"),
            (None, "0.1"),
        ] {
            assert!(
                matches!(cms_outcome(exit, out, "x", t).0, Failed(_)),
                "{exit:?} {out:?}"
            );
        }
        for (exit, out) in [
            (Some(0), "1.5"),
            (Some(0), "abc"),
            (Some(0), ""),
            (Some(1), "1"),
            (None, "1"),
        ] {
            assert!(
                matches!(cms_outcome(exit, out, "x", None).0, Failed(_)),
                "{exit:?} {out:?}"
            );
        }
    }
}
