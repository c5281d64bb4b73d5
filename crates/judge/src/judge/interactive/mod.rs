//! The judging pipeline's run mode for interactive problems: the submission and the problem's
//! interactor run in two sandboxes joined by pipes. The main entry is [`run_test`]; the verdict
//! rule is [`decide`](verdict::decide).
//!
//! # Theory of operation
//!
//! Each side runs in a sandbox of its own (the program in one of the judge's pool, the
//! interactor in a keeper started for it, with another uid), each under its own limits: the
//! program under the problem's, the interactor under generous ones of its own (CPU up to the
//! pair's wall limit, 1 GiB). Both have the same wall limit, so the pair's wall time is bounded
//! by it. The four ends are FIFOs in the judge's scratch folder, and the judge relays between
//! them (program → interactor, interactor → program) in two threads. The relay is what records
//! the transcript (bounded: the first [`TRANSCRIPT_LIMIT`](relay::TRANSCRIPT_LIMIT) bytes of both directions, in order)
//! and counts the program's output against its output limit (a FIFO has no size for the
//! sandbox to count).
//!
//! EOF, defined: when the program exits (or is killed), the interactor reads end of file on its
//! standard input; its later writes are read and dropped. When the interactor exits, the
//! program reads end of file; what the program writes after that is read and dropped (and still
//! counts against its output limit). Past its output limit the program's output is no longer
//! read: its next write fails (SIGPIPE, or EPIPE if it ignores the signal). A side whose run
//! returned before its keeper opened its pipes has ended too: the judge wakes the relays'
//! opens of its ends ([`side_ended`](relay::side_ended)), so its partner reads end of file at once. A relay's own
//! failure is the judge's, a host fault ([`Direction::fault`](relay::Direction::fault)), never an end of file.
//!
//! Protocols: Kattis (`interactor testdata.in testdata.ans . [flags]`, 42 accepted, 43 wrong
//! answer, feedback files as for output validators) and testlib (`interactor input tout answer`,
//! 0 accepted, 1 or 2 wrong answer, 3 failure).

mod feedback;
mod relay;
mod starved;
mod verdict;

use std::path::Path;
use std::sync::atomic::Ordering;
use std::sync::Mutex;
use std::time::Duration;

use self::feedback::TryFeedback;
use self::relay::{relay, relays_waited, side_ended, wake_relays, Direction, Pipes, Transcript};
use self::starved::{
    held_to_the_limit, loaded, lost_to_host, own_wall, starved_by_host, stretched, Paired,
};
use self::verdict::{check_tout, decide, interactor_io, interactor_said, Ends};
use super::check::{FEEDBACK_CAPS, FEEDBACK_TMPFS};
use super::run::{retry_starved, Try, STARVED_TRIES};
use super::{signal_name, Judge, JudgeError, Program, ProgramRun};
use crate::problem::{Interactor, InteractorProtocol, Problem, TestCase};
use crate::verdict::{TestResult, Verdict};
use ojd_sandbox::{Limits, Termination};

/// How much longer than the program's wall limit the interactor may run.
const INTERACTOR_WALL_MARGIN: std::time::Duration = std::time::Duration::from_millis(500);

/// Runs `program` against the problem's interactor (`spec`, compiled as `interactor`) on one
/// test (see the module documentation).
#[allow(clippy::too_many_arguments)]
pub(super) fn run_test(
    judge: &Judge,
    problem: &Problem,
    program: &Program,
    spec: &Interactor,
    interactor: &Program,
    checker: Option<&Program>,
    test: &TestCase,
    limits: &Limits,
) -> Result<TestResult, JudgeError> {
    run_pass(
        judge, problem, program, spec, interactor, checker, test, limits, None,
    )
}

/// One pass of a multi-pass interactive problem: the interactor reads `input` (the test's, or
/// the `nextpass.in` of the pass before) and its feedback folder is `feedback`, a host folder
/// kept between passes by the caller; each try of the pass gets a copy of it, bound writable at
/// `/data/` ([`TryFeedback`](feedback::TryFeedback)).
pub(super) struct Pass<'a> {
    pub(super) input: &'a Path,
    pub(super) feedback: &'a Path,
}

/// [`run_test`], or one pass of a multi-pass test.
///
/// Each try of a pass has a feedback folder of its own ([`TryFeedback`](feedback::TryFeedback)), a copy of the pass's
/// as it was before the pass: a starved try's interactor may have written `nextpass.in` or
/// changed the state it leaves itself, and the try after must see neither.
///
/// A pair whose time limit verdict came from a wall-time kill of the program that the host's
/// load starved (see [`starved_by_host`](starved::starved_by_host)) says nothing about the program: the pair is run
/// again, with new pipes, up to [`STARVED_TRIES`] times in all, and then it is a host fault
/// ([`super::HostFault::Starved`]), never a time limit verdict. Only the whole pair can be run
/// again: one side alone would find its partner, and the relay between them, gone (its keeper
/// would wait for the other ends of its pipes).
///
/// Each try after a starved one gives the program's sandbox more wall time ([`stretched`](starved::stretched)), as
/// much as the load measured in the try before took from it and twice that, up to
/// [`ojd_sandbox::WALL_CEILING`] times the limit: the program's keeper moves its deadline only by
/// the program's own waits, never by its partner's (a program asleep on its pipe while its
/// interactor waits for a CPU looks asleep), so under a load that lasts the same limit would
/// starve every try. What the program is judged by stays its own wall time against the
/// problem's limit: the pair's wall time less what both sides lost to the host
/// ([`own_wall`](starved::own_wall)); a program whose own time reaches the limit in a stretched try is a time
/// limit, as it would have been without the load. So a loaded host judges an interactive pair
/// slower, never otherwise.
///
/// That own time is an upper bound (the keepers do not see all that a loaded host takes), so a
/// time limit from a try that lost a measurable part of the limit to the host
/// ([`Paired::Over`](starved::Paired::Over)) is tried again, stretched, and stands only if every try of the pass
/// measured the program's own time past the limit: a program over the limit is over it in
/// every try, and a correct one needs one try measured within it. A program asleep or
/// deadlocked with its partner waits for no CPU: its time limit stands at the first try.
#[allow(clippy::too_many_arguments)]
pub(super) fn run_pass(
    judge: &Judge,
    problem: &Problem,
    program: &Program,
    spec: &Interactor,
    interactor: &Program,
    checker: Option<&Program>,
    test: &TestCase,
    limits: &Limits,
    pass: Option<&Pass<'_>>,
) -> Result<TestResult, JudgeError> {
    // The program sandbox's wall-time limit of the next try (see above).
    let mut allowed = limits.wall;
    let mut tried = 0;
    retry_starved(
        STARVED_TRIES,
        "the program of an interactive test",
        limits.wall,
        || {
            let feedback = match pass {
                Some(p) => Some(TryFeedback::new(p.feedback, judge.fresh_dir("feedback")?)?),
                None => None,
            };
            tried += 1;
            let this_try = pass.zip(feedback.as_ref()).map(|(p, f)| Pass {
                input: p.input,
                feedback: &f.dir,
            });
            Ok(
                match pair_once(
                    judge,
                    problem,
                    program,
                    spec,
                    interactor,
                    checker,
                    test,
                    limits,
                    allowed,
                    this_try.as_ref(),
                )? {
                    Paired::Over { wall, waited, .. } if tried < STARVED_TRIES => {
                        allowed = stretched(limits.wall, allowed, wall, waited);
                        Try::Starved(waited)
                    }
                    Paired::Judged(mut result) | Paired::Over { mut result, .. } => {
                        if let (Some(p), Some(f)) = (pass, feedback) {
                            // The interactor built this tree: bounded before it is copied.
                            match crate::fsutil::check_tree(&f.dir, FEEDBACK_CAPS) {
                                Ok(()) => f.keep(p.feedback)?,
                                Err(why) => {
                                    result.verdict = Verdict::JudgeError;
                                    result.message =
                                        format!("the interactor's feedback folder {why}");
                                }
                            }
                        }
                        Try::Done(result)
                    }
                    Paired::Starved { lost, wall, waited } => {
                        allowed = stretched(limits.wall, allowed, wall, waited);
                        Try::Starved(lost)
                    }
                },
            )
        },
    )
}

/// One run of the pair (see [`run_pass`]).
#[allow(clippy::too_many_arguments)]
fn pair_once(
    judge: &Judge,
    problem: &Problem,
    program: &Program,
    spec: &Interactor,
    interactor: &Program,
    checker: Option<&Program>,
    test: &TestCase,
    limits: &Limits,
    allowed: Duration,
    pass: Option<&Pass<'_>>,
) -> Result<Paired, JudgeError> {
    // The program's sandbox gets `allowed` of wall time (a stretched try: see `run_pass`).
    let program_limits = Limits {
        wall: allowed,
        ..limits.clone()
    };
    // A folder of its own for every run of the pair, with new pipes: a pair run again after
    // starvation must never meet a pipe that a relay or keeper of the earlier run still holds.
    let dir = judge.fresh_dir("interactive")?;
    let pipes = Pipes::new(&dir)?;
    let (judge_msg, team_msg, tout) = match pass {
        Some(p) => (
            p.feedback.join("judgemessage.txt"),
            p.feedback.join("teammessage.txt"),
            dir.join("tout"),
        ),
        None => (
            dir.join("judgemessage.txt"),
            dir.join("teammessage.txt"),
            dir.join("tout"),
        ),
    };
    let mut pass_test = test.clone();
    let mut binds = Vec::new();
    if let Some(p) = pass {
        pass_test.input = p.input.to_path_buf();
        for f in [&judge_msg, &team_msg] {
            let _ = std::fs::remove_file(f);
        }
        binds.push(ojd_sandbox::Bind {
            host: p.feedback.to_path_buf(),
            inside: "/data".into(),
            writable: true,
            cap: Some(FEEDBACK_TMPFS),
        });
    }
    let (mut args, box_files, mut collect) =
        interactor_io(spec, &pass_test, &judge_msg, &team_msg, &tout);
    if pass.is_some() && spec.protocol == InteractorProtocol::Kattis {
        // The feedback folder is the bound one; nothing to collect from the box.
        args[2] = "/data/".into();
        collect.clear();
    }
    // The interactor's wall limit is a little longer than the program's longest: when both
    // sides wait for each other (a program that never flushes), the program must be the one
    // stopped by the wall limit (TLE), never the interactor (which would read as a judge
    // error). On a loaded host the program's wall-time limit does not count its wait for a
    // CPU, up to the sandbox's ceiling, while the interactor, blocked on the program, waits
    // for nothing the sandbox counts: it must outlast that ceiling, or a slow program would
    // lose its partner (a broken pipe) for the host's load.
    let interactor_limits = Limits {
        cpu: limits.wall,
        wall: allowed * ojd_sandbox::WALL_CEILING + INTERACTOR_WALL_MARGIN,
        memory: limits.memory.max(1 << 30),
        output: 64 << 20,
        processes: 4,
        file_size: 64 << 20,
    };
    let mut sandbox = judge.start_sandbox()?;
    let transcript = Mutex::new(Transcript::default());
    let up = Direction::new(
        &pipes.from_program,
        &pipes.to_interactor,
        '>',
        &transcript,
        limits.output,
    );
    let down = Direction::new(
        &pipes.from_interactor,
        &pipes.to_program,
        '<',
        &transcript,
        u64::MAX,
    );
    let (program_err, interactor_err) = (dir.join("program.err"), dir.join("interactor.err"));
    let (prog, inter) = std::thread::scope(|s| {
        let relays = [s.spawn(|| relay(&up)), s.spawn(|| relay(&down))];
        let prog = s.spawn(|| {
            // Tried once: a run again alone would wait for pipes nobody opens any more.
            let run = judge.execute_once(&ProgramRun {
                program,
                args: &[],
                stdin: Some(&pipes.to_program),
                stdout: &pipes.from_program,
                stderr: Some(&program_err),
                box_files: vec![],
                collect: vec![],
                limits: program_limits.clone(),
            });
            side_ended(
                [&pipes.from_program, &pipes.to_program],
                [&up.from_tried, &down.to_tried],
            );
            run
        });
        let inter = judge.execute_in_with_binds(
            &mut sandbox,
            &ProgramRun {
                program: interactor,
                args: &args,
                stdin: Some(&pipes.to_interactor),
                stdout: &pipes.from_interactor,
                stderr: Some(&interactor_err),
                box_files,
                collect,
                limits: interactor_limits.clone(),
            },
            &binds,
        );
        side_ended(
            [&pipes.to_interactor, &pipes.from_interactor],
            [&up.to_tried, &down.from_tried],
        );
        let prog = prog.join();
        wake_relays(&pipes, &relays);
        (prog, inter)
    });
    let prog = prog.map_err(|_| JudgeError::Io {
        what: "run the program of an interactive test".into(),
        source: std::io::Error::other("the run thread panicked"),
    })??;
    let inter = inter?;
    if let Some(fault) = up.fault().or_else(|| down.fault()) {
        let _ = std::fs::remove_dir_all(&dir);
        return Err(fault);
    }
    let ended = |d: &Direction<'_>| d.eof_at.lock().ok().and_then(|a| *a);
    // Who ended first, by when each closed its output (the relay saw end of file).
    let interactor_first = match (ended(&down), ended(&up)) {
        (Some(i), Some(p)) => i < p,
        (Some(_), None) => true,
        _ => false,
    };
    let said = interactor_said(
        spec.protocol,
        &inter,
        &judge_msg,
        &team_msg,
        &interactor_err,
    );
    let relays = relays_waited([&up, &down]);
    let own = own_wall(&prog, &inter, relays);
    let (verdict, message) = held_to_the_limit(
        decide(&Ends {
            program: &prog,
            limits,
            output_over: up.over.load(Ordering::Relaxed),
            interactor: &inter,
            said,
            interactor_first,
        }),
        own,
        limits,
        allowed,
    );
    // Only a time limit verdict is the starved wall-time kill's: an interactor that said wrong
    // answer first, or output over its limit, are the program's whatever the load did.
    let starved = match (verdict, prog.killed_by) {
        (Verdict::TimeLimitExceeded, Some(ojd_sandbox::LimitKind::Wall)) => {
            starved_by_host(&prog, &inter, relays, limits)
        }
        _ => None,
    };
    let waited = lost_to_host(&prog, &inter, relays);
    if let Some(lost) = starved {
        let _ = std::fs::remove_dir_all(&dir);
        return Ok(Paired::Starved {
            lost,
            wall: prog.wall_time,
            waited,
        });
    }
    // A wall-time verdict (the keeper's, or the stretched try's own time) of a try that lost a
    // measurable part of the limit to the host: the own time is an upper bound, worth another
    // try (see `run_pass`).
    let over = verdict == Verdict::TimeLimitExceeded
        && prog.killed_by != Some(ojd_sandbox::LimitKind::Cpu)
        && loaded(waited, limits);
    let transcript = transcript.lock().map(|t| t.render()).unwrap_or_default();
    let mut message = message;
    if verdict == Verdict::RuntimeError {
        let err = crate::fsutil::read_capped(&program_err, 2048);
        if let Some(line) = err.lines().rev().find(|l| !l.trim().is_empty()) {
            message = format!("{message}; stderr: {}", line.trim());
        }
    }
    if !transcript.is_empty() {
        message = format!(
            "{message}\n--- transcript ({} bytes to the interactor, {} back) ---\n{transcript}",
            up.count.load(Ordering::Relaxed),
            down.count.load(Ordering::Relaxed)
        );
    }
    let result = TestResult {
        name: test.name.clone(),
        sample: test.sample,
        verdict,
        cpu_ms: prog.cpu_time.as_millis() as u64,
        // The program's own wall time, what its limit is held to (as for a plain run).
        wall_ms: own.as_millis() as u64,
        memory_kib: prog.peak_memory / 1024,
        exit: Some(match prog.termination {
            Termination::Exited(c) => c.to_string(),
            Termination::Signaled(s) => signal_name(s),
        }),
        message: message.trim_start().to_string(),
        diff: None,
    };
    let result = match checker {
        Some(c) if verdict == Verdict::Accepted && spec.protocol == InteractorProtocol::Testlib => {
            check_tout(judge, problem, c, test, &tout, &dir, result)?
        }
        _ => result,
    };
    let _ = std::fs::remove_dir_all(&dir);
    Ok(if over {
        Paired::Over {
            result,
            wall: prog.wall_time,
            waited,
        }
    } else {
        Paired::Judged(result)
    })
}

/// What the tests of the modules here build their runs from.
#[cfg(test)]
mod testing {
    use std::time::Duration;

    use ojd_sandbox::{LimitKind, RunOutcome, Termination};

    pub(super) fn run(termination: Termination, killed_by: Option<LimitKind>) -> RunOutcome {
        RunOutcome {
            termination,
            cpu_time: Duration::from_millis(5),
            wall_time: Duration::from_millis(5),
            peak_memory: 1 << 20,
            killed_by,
            output_bytes: 0,
            forbidden_syscall: None,
            exec_error: None,
            fully_isolated: true,
            wall_kill: None,
            host_wait: Duration::ZERO,
            over_cap: None,
        }
    }
}
