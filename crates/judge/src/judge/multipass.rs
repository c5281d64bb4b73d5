//! Multi-pass problems (Kattis `type: multi-pass`, DOMjudge's `validation: custom multi-pass`):
//! one test is several runs of the submission. The main entry is [`run_test`].
//!
//! # Theory of operation
//!
//! Pass 1 runs the submission on the test's input, as usual (or against the interactor). The
//! Kattis output validator (or interactor) then decides: exit 43 is a wrong answer; exit 42
//! without a `nextpass.in` in its feedback folder accepts the test; exit 42 with one asks for
//! another pass, whose input is that file. The validator of pass k is given pass k's input as
//! its input file (as problemtools and BAPCtools do) and the test's answer; its feedback folder
//! is one host folder per test, bound writable at `/data/` and kept from pass to pass, so a
//! validator can leave itself state there (the two message files are cleared before each pass,
//! so that a verdict's message is its own pass's). Asking for more than the problem's `passes`
//! runs, or writing `nextpass.in` with a rejection, is the validator's failure: a judge error.
//!
//! Each pass runs under the problem's limits (the time limit is per pass, as the format says);
//! the test's reported CPU time, wall time and memory are the largest of its passes, and a
//! failing pass's message starts with "pass k of N".
//!
//! The feedback folder is a tree a sandboxed program built. During each pass it is a tmpfs of
//! the validator's keeper capped by [`FEEDBACK_TMPFS`](super::check::FEEDBACK_TMPFS) (bytes,
//! inodes, depth), holding a copy of the host folder and copied back after the pass: the
//! validator's writes fail at the cap as they happen, and a pass that filled the folder is a
//! judge error (the package's fault; `RunOutcome::over_cap`). After each pass the host folder
//! is also checked against [`FEEDBACK_CAPS`](super::check::FEEDBACK_CAPS) before the judge copies
//! or reads it (the only bound without namespaces), and it is removed without recursion
//! ([`crate::fsutil::remove_tree`]).

use std::path::Path;

use super::interactive::{self, Pass};
use super::{classify, Judge, JudgeError, Program};
use crate::problem::{CheckerSpec, Interactor, Problem, TestCase};
use crate::verdict::{TestResult, Verdict};
use ojd_sandbox::Limits;

use super::check::CheckOutcome;

/// Runs one test of a multi-pass `problem` (`passes` runs at most): against the interactor
/// when there is one, else through `validator`, the compiled Kattis output validator.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_test(
    judge: &Judge,
    problem: &Problem,
    program: &Program,
    validator: Option<&Program>,
    interactor: Option<(&Interactor, &Program)>,
    test: &TestCase,
    limits: &Limits,
    work: &Path,
    passes: u32,
) -> Result<TestResult, JudgeError> {
    let feedback = work.join("feedback");
    let _ = crate::fsutil::remove_tree(&feedback);
    std::fs::create_dir_all(&feedback).map_err(|source| JudgeError::Io {
        what: format!("create {}", feedback.display()),
        source,
    })?;
    // The validator runs as a sandbox uid: it must be able to write here. The folder is inside
    // the judge's run folder, which other uids may traverse but not list.
    crate::fsutil::set_mode(&feedback, 0o777).map_err(|source| JudgeError::Io {
        what: format!("chmod {}", feedback.display()),
        source,
    })?;
    let next = feedback.join("nextpass.in");
    // Each pass's input is a copy of the `nextpass.in` before it, outside the feedback folder.
    let pass_inputs = [work.join("pass-a.in"), work.join("pass-b.in")];
    let mut input = test.input.clone();
    let (mut cpu, mut wall, mut mem) = (0, 0, 0);
    let mut pass = 1;
    let result = loop {
        let _ = std::fs::remove_file(&next);
        let mut result = match interactor {
            Some((spec, i)) => interactive::run_pass(
                judge,
                problem,
                program,
                spec,
                i,
                None,
                test,
                limits,
                Some(&Pass {
                    input: &input,
                    feedback: &feedback,
                }),
            )?,
            None => run_plain_pass(
                judge, problem, program, validator, test, &input, &feedback, limits, work,
            )?,
        };
        cpu = cpu.max(result.cpu_ms);
        wall = wall.max(result.wall_ms);
        mem = mem.max(result.memory_kib);
        // Read as data, never followed: the validator is the package's code, and the judge copies
        // as root, so a link here could bring a host file into the next pass.
        let entry = std::fs::symlink_metadata(&next).ok();
        let asked = entry.is_some();
        let label = format!("pass {pass} of at most {passes}");
        // The validator built this tree; it is copied and walked by the judge from pass to
        // pass, so its shape is bounded first (a 70,000-deep chain of folders once crashed
        // the judge). Breaking a cap is the package's fault, not the submission's.
        if let Err(why) = crate::fsutil::check_tree(&feedback, super::check::FEEDBACK_CAPS) {
            result.verdict = Verdict::JudgeError;
            result.message = format!("{label}: the validator's feedback folder {why}");
            break result;
        }
        if entry.is_some_and(|m| !m.file_type().is_file()) {
            result.verdict = Verdict::JudgeError;
            result.message = format!(
                "{label}: the validator's nextpass.in is not a regular file (a link or a folder is never followed)"
            );
            break result;
        }
        match result.verdict {
            Verdict::Accepted if !asked => break result,
            Verdict::Accepted if pass == passes => {
                result.verdict = Verdict::JudgeError;
                result.message = format!(
                    "{label}: the validator wrote nextpass.in, asking for more passes than the problem's {passes}"
                );
                break result;
            }
            Verdict::Accepted => {
                let dest = &pass_inputs[pass as usize % 2];
                copy_unfollowed(&next, dest)?;
                input = dest.clone();
                pass += 1;
            }
            Verdict::WrongAnswer if asked => {
                result.verdict = Verdict::JudgeError;
                result.message = format!(
                    "{label}: the validator rejected and also wrote nextpass.in (42 with nextpass.in asks for another pass)"
                );
                break result;
            }
            _ => {
                result.message = format!("{label}: {}", result.message);
                break result;
            }
        }
    };
    let _ = crate::fsutil::remove_tree(&feedback);
    for f in &pass_inputs {
        let _ = std::fs::remove_file(f);
    }
    Ok(TestResult {
        cpu_ms: cpu,
        wall_ms: wall,
        memory_kib: mem,
        ..result
    })
}

/// One pass without an interactor: the submission reads `input`, then the output validator
/// judges its output with `feedback` as its feedback folder.
#[allow(clippy::too_many_arguments)]
fn run_plain_pass(
    judge: &Judge,
    problem: &Problem,
    program: &Program,
    validator: Option<&Program>,
    test: &TestCase,
    input: &Path,
    feedback: &Path,
    limits: &Limits,
    work: &Path,
) -> Result<TestResult, JudgeError> {
    let (Some(validator), CheckerSpec::Kattis { flags, .. }) = (validator, &problem.checker) else {
        return Err(JudgeError::BadSubmission(format!(
            "{}: a multi-pass problem needs a Kattis output validator",
            problem.id
        )));
    };
    let run = judge.run_on_input(problem, program, input, limits, work)?;
    let mut result = super::run::result_of(test, &run.outcome);
    if let Some((verdict, message)) = classify(&run.outcome, limits) {
        result.verdict = verdict;
        result.message = message;
        return Ok(result);
    }
    match judge.run_kattis_validator_on(
        validator,
        flags,
        input,
        &test.answer,
        &run.output,
        Some(feedback),
        work,
    )? {
        CheckOutcome::Accepted => {}
        CheckOutcome::Wrong(m) => {
            result.verdict = Verdict::WrongAnswer;
            result.message = m;
        }
        CheckOutcome::Failed(m) => {
            result.verdict = Verdict::JudgeError;
            result.message = m;
        }
    }
    Ok(result)
}

/// Copies the regular file `from` to `to` without following a link at `from` (the open fails
/// on one), so what a validator left in its feedback folder is read as data only.
fn copy_unfollowed(from: &Path, to: &Path) -> Result<(), JudgeError> {
    use std::os::unix::fs::OpenOptionsExt;
    let io = |source| JudgeError::Io {
        what: format!("copy {} to {}", from.display(), to.display()),
        source,
    };
    let mut src = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(from)
        .map_err(io)?;
    let mut dst = std::fs::File::create(to).map_err(io)?;
    std::io::copy(&mut src, &mut dst).map_err(io)?;
    Ok(())
}
