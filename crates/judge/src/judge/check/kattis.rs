//! Kattis output validators: running one in the sandbox,
//! `validator input answer feedback_dir [flags] < team_output`, and reading its verdict: exit 42
//! accepted, 43 wrong answer, anything else a judge error ([`kattis_outcome`]).
//!
//! The feedback folder is the validator's working folder in the box (`.`), so
//! `judgemessage.txt` and `teammessage.txt` are collected from there after the run; the test
//! data are copied in as `testdata.in` and `testdata.ans`, and the team's output is its
//! standard input.

use std::path::Path;
use std::time::Duration;

use super::CheckOutcome;
use crate::fsutil::read_tail;
use crate::judge::{Judge, JudgeError, Program, ProgramRun};
use crate::problem::TestCase;
use ojd_sandbox::{Limits, Termination};

impl Judge {
    /// Runs `validator` (compiled) on one test's output.
    pub(super) fn run_kattis_validator(
        &self,
        validator: &Program,
        flags: &[String],
        test: &TestCase,
        output: &Path,
        work: &Path,
    ) -> Result<CheckOutcome, JudgeError> {
        self.run_kattis_validator_on(
            validator,
            flags,
            &test.input,
            &test.answer,
            output,
            None,
            work,
        )
    }

    /// Runs `validator` on `output` for the input `input` (a test's, or a later pass's) and
    /// the answer `answer`. With `feedback`, that host folder is the feedback folder (bound
    /// writable at `/data/`), kept by the caller between passes of a multi-pass problem; without,
    /// the box is the feedback folder and only the two message files come out of it.
    #[allow(clippy::too_many_arguments)]
    pub(in crate::judge) fn run_kattis_validator_on(
        &self,
        validator: &Program,
        flags: &[String],
        input: &Path,
        answer: &Path,
        output: &Path,
        feedback: Option<&Path>,
        work: &Path,
    ) -> Result<CheckOutcome, JudgeError> {
        let log = work.join("validator.log");
        let (judge_msg, team_msg) = match feedback {
            Some(dir) => (dir.join("judgemessage.txt"), dir.join("teammessage.txt")),
            None => (work.join("judgemessage.txt"), work.join("teammessage.txt")),
        };
        // The log goes too: a new file each test, never the last one's truncated (see
        // `run_on_input`).
        for f in [&judge_msg, &team_msg, &log] {
            let _ = std::fs::remove_file(f);
        }
        let feedback_arg = if feedback.is_some() { "/data/" } else { "." };
        let mut args: Vec<String> = ["testdata.in", "testdata.ans", feedback_arg]
            .iter()
            .map(|s| s.to_string())
            .collect();
        args.extend(flags.iter().cloned());
        let collect = match feedback {
            Some(_) => vec![],
            None => vec![
                ("judgemessage.txt".into(), judge_msg.clone()),
                ("teammessage.txt".into(), team_msg.clone()),
            ],
        };
        let binds: Vec<ojd_sandbox::Bind> = feedback
            .map(|dir| ojd_sandbox::Bind {
                host: dir.to_path_buf(),
                inside: "/data".into(),
                writable: true,
                cap: Some(super::FEEDBACK_TMPFS),
            })
            .into_iter()
            .collect();
        let run = ProgramRun {
            program: validator,
            args: &args,
            stdin: Some(output),
            stdout: &log,
            stderr: None,
            box_files: vec![
                (input.to_path_buf(), "testdata.in".into()),
                (answer.to_path_buf(), "testdata.ans".into()),
            ],
            collect,
            limits: Limits {
                cpu: Duration::from_secs(10),
                wall: Duration::from_secs(20),
                memory: 1 << 30,
                output: 1 << 20,
                processes: 4,
                // A multi-pass validator writes the next pass's input.
                file_size: if feedback.is_some() {
                    64 << 20
                } else {
                    1 << 20
                },
            },
        };
        let outcome = if binds.is_empty() {
            self.execute(&run)?
        } else {
            self.execute_with_binds(&run, &binds)?
        };
        // Filled its feedback folder to the cap during the pass: the package's fault, whatever
        // it then said.
        if let Some(why) = &outcome.over_cap {
            return Ok(CheckOutcome::Failed(format!(
                "the output validator's feedback folder {why}"
            )));
        }
        if outcome.killed_by.is_some() {
            return Ok(CheckOutcome::Failed(format!(
                "output validator exceeded a limit ({:?})",
                outcome.killed_by
            )));
        }
        let code = match outcome.termination {
            Termination::Exited(c) => Some(c),
            Termination::Signaled(_) => None,
        };
        let mut judge_text = read_tail(&judge_msg, 16 << 10);
        if judge_text.trim().is_empty() {
            judge_text = read_tail(&log, 16 << 10);
        }
        Ok(kattis_outcome(
            code,
            &judge_text,
            &read_tail(&team_msg, 16 << 10),
        ))
    }
}

/// A Kattis output validator's verdict: exit 42 accepted, 43 wrong answer, anything else (or
/// a signal) a judge error. `teammessage.txt` is the message the student may see;
/// `judgemessage.txt` is for admins (it follows the team's part, after "judge:"); of each, the
/// last lines ([`crate::message::checker_message`]).
pub(in crate::judge) fn kattis_outcome(
    exit: Option<i32>,
    judge_message: &str,
    team_message: &str,
) -> CheckOutcome {
    // The last lines, bounded: a crashed Python validator's traceback says what went wrong at
    // its end.
    let said = crate::message::checker_message;
    let (judge, team) = (said(judge_message), said(team_message));
    let message = match (team.is_empty(), judge.is_empty()) {
        (true, true) => String::new(),
        (false, true) => team,
        (true, false) => format!("judge: {judge}"),
        (false, false) => format!("{team}; judge: {judge}"),
    };
    match exit {
        Some(42) => CheckOutcome::Accepted,
        Some(43) => CheckOutcome::Wrong(if message.is_empty() {
            "wrong answer (output validator)".into()
        } else {
            message
        }),
        Some(c) => CheckOutcome::Failed(format!(
            "output validator exited with code {c} (42 accepts, 43 rejects): {message}"
        )),
        None => CheckOutcome::Failed(format!("output validator crashed: {message}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use CheckOutcome::*;

    #[test]
    fn kattis_codes() {
        assert_eq!(kattis_outcome(Some(42), "", ""), Accepted);
        assert_eq!(
            kattis_outcome(Some(43), "expected 5 got 6\n", "too large\n"),
            Wrong("too large; judge: expected 5 got 6".into())
        );
        assert!(matches!(kattis_outcome(Some(0), "", ""), Failed(_)));
        assert!(matches!(kattis_outcome(Some(1), "", ""), Failed(_)));
        assert!(matches!(kattis_outcome(None, "", ""), Failed(_)));
    }

    /// A validator written in Python that crashed: the message ends with the exception, not
    /// "Traceback (most recent call last):".
    #[test]
    fn a_crashed_validator_shows_the_end_of_its_traceback() {
        let tb = "Traceback (most recent call last):\n  File \"/prog/main.py\", line 4, in <module>\n    n = int(sys.stdin.readline())\nValueError: invalid literal for int() with base 10: ''\n";
        match kattis_outcome(Some(1), tb, "") {
            Failed(m) => assert!(
                m.ends_with("ValueError: invalid literal for int() with base 10: ''"),
                "{m}"
            ),
            o => panic!("{o:?}"),
        }
    }
}
