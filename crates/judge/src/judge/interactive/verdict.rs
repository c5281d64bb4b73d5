//! What an interactive run says: the interactor's arguments and files by protocol
//! ([`interactor_io`]), what its exit code and feedback mean ([`interactor_said`]), the verdict
//! rule over both runs ([`decide`]) and Polygon's checker over the interactor's `tout`
//! ([`check_tout`]).

use std::fs::File;
use std::path::{Path, PathBuf};

use super::super::check::{kattis_outcome, testlib_outcome, CheckOutcome};
use super::super::{classify, Judge, JudgeError, Program};
use crate::problem::{Interactor, InteractorProtocol, Problem, TestCase};
use crate::verdict::{TestResult, Verdict};
use ojd_sandbox::{Limits, RunOutcome, Termination};

/// What the two runs did, for [`decide`].
pub(super) struct Ends<'a> {
    pub(super) program: &'a RunOutcome,
    pub(super) limits: &'a Limits,
    /// The program wrote more than its output limit (counted by the relay).
    pub(super) output_over: bool,
    pub(super) interactor: &'a RunOutcome,
    /// What the interactor's exit code (and feedback) says.
    pub(super) said: CheckOutcome,
    /// The interactor's run ended before the program's.
    pub(super) interactor_first: bool,
}

/// The verdict of an interactive run, by one rule applied in this order:
/// 1. the interactor crashed or exited with a code its protocol does not define → JE;
/// 2. the interactor ended first and said wrong answer → WA;
/// 3. the program went over a limit → TLE, MLE, OLE;
/// 4. the program crashed (signal, non-zero exit, forbidden system call) → RE;
/// 5. the interactor went over its own limits → JE;
/// 6. otherwise what the interactor said: AC, WA (or JE for its own failure).
pub(super) fn decide(e: &Ends<'_>) -> (Verdict, String) {
    let interactor_limited = e.interactor.killed_by.is_some();
    if let (false, CheckOutcome::Failed(m)) = (interactor_limited, &e.said) {
        return (Verdict::JudgeError, format!("interactor: {m}"));
    }
    if let (true, CheckOutcome::Wrong(m)) = (e.interactor_first, &e.said) {
        return (Verdict::WrongAnswer, m.clone());
    }
    if e.output_over {
        return (
            Verdict::OutputLimitExceeded,
            format!("output limit of {} bytes exceeded", e.limits.output),
        );
    }
    let program = classify(e.program, e.limits);
    if let Some((
        v @ (Verdict::TimeLimitExceeded
        | Verdict::MemoryLimitExceeded
        | Verdict::OutputLimitExceeded),
        m,
    )) = &program
    {
        return (*v, m.clone());
    }
    if let Some((v, m)) = program {
        return (v, m);
    }
    if interactor_limited {
        return (
            Verdict::JudgeError,
            format!(
                "the interactor exceeded its own limit ({:?})",
                e.interactor.killed_by
            ),
        );
    }
    match &e.said {
        CheckOutcome::Accepted => (Verdict::Accepted, String::new()),
        CheckOutcome::Wrong(m) => (Verdict::WrongAnswer, m.clone()),
        CheckOutcome::Failed(m) => (Verdict::JudgeError, format!("interactor: {m}")),
    }
}

/// Polygon's rule for interactive problems with a checker: once the interactor accepts, the
/// checker judges what the interactor wrote to `tout` (as the output) against the test's
/// answer, which may be absent for an interactive problem (then an empty file). The
/// interactor's message stays in front of the checker's.
pub(super) fn check_tout(
    judge: &Judge,
    problem: &Problem,
    checker: &Program,
    test: &TestCase,
    tout: &Path,
    dir: &Path,
    result: TestResult,
) -> Result<TestResult, JudgeError> {
    let mut test = test.clone();
    if !test.answer.is_file() {
        let empty = dir.join("empty.ans");
        File::create(&empty).map_err(|source| JudgeError::Io {
            what: "create an empty answer for the checker".into(),
            source,
        })?;
        test.answer = empty;
    }
    if !tout.is_file() {
        File::create(tout).map_err(|source| JudgeError::Io {
            what: "create the interactor's tout".into(),
            source,
        })?;
    }
    let said = result.message.clone();
    let mut checked = judge.check(problem, Some(checker), &test, tout, dir, result)?;
    if checked.verdict != Verdict::Accepted {
        checked.message = format!("checker: {}\n{said}", checked.message);
    }
    Ok(checked)
}

pub(super) type InteractorIo = (Vec<String>, Vec<(PathBuf, String)>, Vec<(String, PathBuf)>);

/// Arguments, input files and collected files of the interactor, by protocol.
pub(super) fn interactor_io(
    spec: &Interactor,
    test: &TestCase,
    judge_msg: &Path,
    team_msg: &Path,
    tout: &Path,
) -> InteractorIo {
    let strings = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    match spec.protocol {
        InteractorProtocol::Kattis => {
            let mut args = strings(&["testdata.in", "testdata.ans", "."]);
            args.extend(spec.flags.iter().cloned());
            (
                args,
                vec![
                    (test.input.clone(), "testdata.in".into()),
                    (test.answer.clone(), "testdata.ans".into()),
                ],
                vec![
                    ("judgemessage.txt".into(), judge_msg.to_path_buf()),
                    ("teammessage.txt".into(), team_msg.to_path_buf()),
                ],
            )
        }
        InteractorProtocol::Testlib => (
            strings(&["input", "tout", "answer"]),
            vec![
                (test.input.clone(), "input".into()),
                (test.answer.clone(), "answer".into()),
            ],
            vec![("tout".into(), tout.to_path_buf())],
        ),
    }
}

pub(super) fn interactor_said(
    protocol: InteractorProtocol,
    outcome: &RunOutcome,
    judge_msg: &Path,
    team_msg: &Path,
    stderr: &Path,
) -> CheckOutcome {
    // A feedback folder the interactor filled to its cap during the pass: the package's fault.
    if let Some(why) = &outcome.over_cap {
        return CheckOutcome::Failed(format!("its feedback folder {why}"));
    }
    let read = |p: &Path| crate::fsutil::read_tail(p, 16 << 10);
    let code = match outcome.termination {
        Termination::Exited(c) if outcome.exec_error.is_none() => Some(c),
        _ => None,
    };
    match protocol {
        InteractorProtocol::Kattis => {
            let mut judge = read(judge_msg);
            if judge.trim().is_empty() {
                judge = read(stderr);
            }
            kattis_outcome(code, &judge, &read(team_msg))
        }
        InteractorProtocol::Testlib => testlib_outcome(code, &read(stderr)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::judge::interactive::testing::run;
    use ojd_sandbox::LimitKind;
    use std::time::Duration;

    #[test]
    fn the_verdict_rule_in_its_order() {
        let limits = Limits {
            cpu: Duration::from_secs(1),
            wall: Duration::from_secs(3),
            memory: 64 << 20,
            output: 1 << 20,
            processes: 8,
            file_size: 1 << 20,
        };
        let ok = run(Termination::Exited(0), None);
        let tle = run(Termination::Signaled(9), Some(LimitKind::Cpu));
        let idle = run(Termination::Signaled(9), Some(LimitKind::Wall));
        let crash = run(Termination::Signaled(11), None);
        let wa = || CheckOutcome::Wrong("wrong guess".into());
        let table: Vec<(&RunOutcome, bool, &RunOutcome, CheckOutcome, bool, Verdict)> = vec![
            // 1: the interactor crashed or gave an unknown code: JE whatever the program did.
            (
                &tle,
                false,
                &crash,
                CheckOutcome::Failed("crashed".into()),
                false,
                Verdict::JudgeError,
            ),
            (
                &ok,
                false,
                &ok,
                CheckOutcome::Failed("code 7".into()),
                true,
                Verdict::JudgeError,
            ),
            // 2: the interactor ended first with WA: WA, even if the program then crashed.
            (&crash, false, &ok, wa(), true, Verdict::WrongAnswer),
            (&tle, false, &ok, wa(), true, Verdict::WrongAnswer),
            // 3: the program over a limit.
            (&tle, false, &ok, wa(), false, Verdict::TimeLimitExceeded),
            (
                &idle,
                false,
                &idle,
                CheckOutcome::Failed("killed".into()),
                false,
                Verdict::TimeLimitExceeded,
            ),
            (
                &ok,
                true,
                &ok,
                CheckOutcome::Accepted,
                false,
                Verdict::OutputLimitExceeded,
            ),
            // 4: the program crashed.
            (
                &crash,
                false,
                &ok,
                CheckOutcome::Accepted,
                false,
                Verdict::RuntimeError,
            ),
            // 5: the interactor over its own limit while the program was fine.
            (
                &ok,
                false,
                &tle,
                CheckOutcome::Failed("killed".into()),
                false,
                Verdict::JudgeError,
            ),
            // 6: what the interactor said.
            (
                &ok,
                false,
                &ok,
                CheckOutcome::Accepted,
                false,
                Verdict::Accepted,
            ),
            (&ok, false, &ok, wa(), false, Verdict::WrongAnswer),
        ];
        for (i, (program, over, interactor, said, first, want)) in table.into_iter().enumerate() {
            let (got, _) = decide(&Ends {
                program,
                limits: &limits,
                output_over: over,
                interactor,
                said,
                interactor_first: first,
            });
            assert_eq!(got, want, "row {i}");
        }
    }
}
