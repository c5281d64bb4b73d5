//! Running a program in the sandbox: one test of a submission, or any program of a package, and
//! classifying how the run ended (limits, signals, exit code) into a verdict.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::host::{file_fault, require_free, still_free, HostFault, FULL_SLACK};
use super::{sandbox_env, Judge, JudgeError, Program};
use crate::fsutil::read_capped;
use crate::problem::{Problem, TestCase};
use crate::verdict::{TestResult, Verdict};
use ojd_sandbox::{LimitKind, Limits, RunOutcome, RunSpec, Termination};

impl Judge {
    /// Runs a compiled program once in the sandbox. The file systems the run writes to (its
    /// output files' folders) must have room before it and still after it: a run whose writes
    /// may have failed for want of space is a host fault, never a verdict (`host.rs`).
    pub fn execute(&self, run: &ProgramRun<'_>) -> Result<RunOutcome, JudgeError> {
        let spec = self.spec_for(run);
        guarded(&spec, STARVED_TRIES, || {
            Ok(self.pool().get()?.run(&spec)?)
        })
    }

    /// [`Judge::execute`] tried once, whatever the host's load did to it: the program's side of
    /// an interactive run, which cannot be run again alone (its caller runs the pair again).
    pub(super) fn execute_once(&self, run: &ProgramRun<'_>) -> Result<RunOutcome, JudgeError> {
        let spec = self.spec_for(run);
        guarded(&spec, 0, || Ok(self.pool().get()?.run(&spec)?))
    }

    /// [`Judge::execute`] with extra folders bound into the sandbox (a multi-pass validator's
    /// feedback folder, writable at `/data`).
    pub(super) fn execute_with_binds(
        &self,
        run: &ProgramRun<'_>,
        binds: &[ojd_sandbox::Bind],
    ) -> Result<RunOutcome, JudgeError> {
        let mut spec = self.spec_for(run);
        spec.binds.extend(binds.iter().cloned());
        guarded(&spec, STARVED_TRIES, || {
            Ok(self.pool().get()?.run(&spec)?)
        })
    }

    /// Runs a compiled program once in `sandbox`, a sandbox of its own rather than the pool's
    /// (the interactor's side of an interactive run, which runs beside the program), with extra
    /// folders bound (see [`Judge::execute_with_binds`]).
    pub(super) fn execute_in_with_binds(
        &self,
        sandbox: &mut ojd_sandbox::Sandbox,
        run: &ProgramRun<'_>,
        binds: &[ojd_sandbox::Bind],
    ) -> Result<RunOutcome, JudgeError> {
        let mut spec = self.spec_for(run);
        spec.binds.extend(binds.iter().cloned());
        // No starvation rule: this side runs beside its partner, whose CPU time the sandbox
        // counts as other work (a spinning interactor would make every wait the host's), and
        // it cannot be run again alone.
        guarded(&spec, 0, || Ok(sandbox.run(&spec)?))
    }

    /// A new sandbox (keeper) with this judge's options, outside the pool.
    pub(super) fn start_sandbox(&self) -> Result<ojd_sandbox::Sandbox, JudgeError> {
        Ok(ojd_sandbox::Sandbox::start(self.pool().options())?)
    }

    fn spec_for(&self, run: &ProgramRun<'_>) -> RunSpec {
        let mut argv =
            crate::lang::expand_run(&run.program.run, &run.program.profile, run.limits.memory);
        argv.extend(run.args.iter().cloned());
        RunSpec {
            argv,
            env: sandbox_env(),
            box_files: run.box_files.clone(),
            collect: run.collect.clone(),
            binds: vec![ojd_sandbox::Bind {
                host: run.program.dir.clone(),
                inside: "/prog".into(),
                writable: false,
                cap: None,
            }],
            stdin: run.stdin.map(Path::to_path_buf),
            stdout: run.stdout.to_path_buf(),
            stderr: run.stderr.map(Path::to_path_buf),
            limits: run.limits.clone(),
        }
    }

    /// Limits for running a submission on `problem`.
    pub fn limits_for(&self, problem: &Problem, program: &Program) -> Limits {
        let j = &self.config.judge;
        let cpu = problem.time_limit.mul_f64(program.time_factor);
        let wall = problem
            .wall_time_limit
            .unwrap_or_else(|| cpu.mul_f64(j.wall_factor) + j.wall_extra);
        let output = problem.output_limit.unwrap_or(j.output_limit.bytes());
        Limits {
            cpu,
            wall,
            memory: problem.memory_limit.saturating_add(program.memory_extra),
            output,
            processes: j.processes,
            file_size: output,
        }
    }

    /// One test: the result, and the share of its credit a `cms` checker gave (see
    /// [`Judge::check_partial`]).
    pub(super) fn run_test(
        &self,
        problem: &Problem,
        program: &Program,
        checker: Option<&Program>,
        test: &TestCase,
        limits: &Limits,
        work: &Path,
    ) -> Result<(TestResult, Option<u32>), JudgeError> {
        let run = self.run_on_input(problem, program, &test.input, limits, work)?;
        self.judge_run(problem, program, checker, test, limits, &run, work)
    }

    /// The verdict of `run`, a run of `program` on `test`'s input under `limits` made by
    /// [`Judge::run_on_input`]: what judging the test gives (a plain test's second half, for a
    /// caller that made the run itself, as `ojd verify` takes the reference's runs of
    /// `gen --check`). `checker` is the problem's compiled checker program, if it has one.
    #[allow(clippy::too_many_arguments)]
    pub fn judge_run(
        &self,
        problem: &Problem,
        program: &Program,
        checker: Option<&Program>,
        test: &TestCase,
        limits: &Limits,
        run: &InputRun,
        work: &Path,
    ) -> Result<(TestResult, Option<u32>), JudgeError> {
        let (outcome, stderr) = (&run.outcome, &run.stderr);
        let mut result = result_of(test, outcome);
        if let Some((verdict, message)) = classify(outcome, limits) {
            result.verdict = verdict;
            result.message = message;
            if verdict == Verdict::RuntimeError {
                let err = read_capped(stderr, 2048);
                if let Some(line) = crate::lang::out_of_memory(&program.profile, &err) {
                    // The runtime (a JVM) hit its heap, sized from the memory limit.
                    result.verdict = Verdict::MemoryLimitExceeded;
                    result.message = format!("memory limit exceeded: {line}");
                } else if let Some(line) = crate::lang::error_line(&err) {
                    result.message = format!("{}; stderr: {}", result.message, line);
                }
            }
            return Ok((result, None));
        }
        self.check_partial(problem, checker, test, &run.output, work, result)
    }

    /// Runs `program` on one input the way the problem's I/O mode says (stdin, and the input file
    /// in the box for file I/O); the output is the output file if the program wrote one.
    pub fn run_on_input(
        &self,
        problem: &Problem,
        program: &Program,
        input: &Path,
        limits: &Limits,
        work: &Path,
    ) -> Result<InputRun, JudgeError> {
        let stdout = work.join("stdout");
        let stderr = work.join("stderr");
        let file_out = work.join("file-output");
        // An earlier test's output file left in place would be read as this test's. The earlier
        // standard streams go too: reopened with O_TRUNC, a file that still holds the last test's
        // output makes ext4 (auto_da_alloc) write that data out and wait for it before the
        // truncation, a disk round trip per test; a new file costs nothing of the kind.
        for (path, what) in [
            (&file_out, "remove the earlier output file"),
            (&stdout, "remove the earlier standard output"),
            (&stderr, "remove the earlier standard error"),
        ] {
            match std::fs::remove_file(path) {
                Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                    return Err(file_fault(what, path)(e).into())
                }
                _ => {}
            }
        }
        let box_files = problem
            .io
            .input_file
            .iter()
            .map(|n| (input.to_path_buf(), n.clone()))
            .collect();
        let collect = problem
            .io
            .output_file
            .iter()
            .map(|n| (n.clone(), file_out.clone()))
            .collect();
        let outcome = self.execute(&ProgramRun {
            program,
            args: &[],
            stdin: Some(input),
            stdout: &stdout,
            stderr: Some(&stderr),
            box_files,
            collect,
            limits: limits.clone(),
        })?;
        let output = if file_out.is_file() { file_out } else { stdout };
        Ok(InputRun {
            outcome,
            output,
            stderr,
        })
    }
}

/// The folders a run writes to on the host: those of its output files and collected files.
fn output_dirs(spec: &RunSpec) -> Vec<PathBuf> {
    let mut dirs: Vec<PathBuf> = std::iter::once(&spec.stdout)
        .chain(spec.stderr.as_ref())
        .chain(spec.collect.iter().map(|(_, dest)| dest))
        .filter_map(|p| p.parent().map(Path::to_path_buf))
        .collect();
    dirs.sort();
    dirs.dedup();
    dirs
}

/// How many times a run the host's load starved is tried before it is a host fault.
pub(super) const STARVED_TRIES: u32 = 3;

/// Runs `run` between the space checks of `spec`'s output folders (see [`Judge::execute`]).
///
/// A run ended by its wall-time limit while other work on this host held its CPU
/// ([`RunOutcome::host_starved`]) says nothing about the program: it is run again (its output
/// files are created anew), up to `tries` times in all, and then it is a host fault
/// ([`HostFault::Starved`]), never a time limit verdict. With `tries` 0 the outcome is kept as
/// it is (the sides of an interactive run).
pub(super) fn guarded(
    spec: &RunSpec,
    tries: u32,
    mut run: impl FnMut() -> Result<RunOutcome, JudgeError>,
) -> Result<RunOutcome, JudgeError> {
    let dirs = output_dirs(spec);
    let dirs: Vec<&Path> = dirs.iter().map(PathBuf::as_path).collect();
    let during = spec.argv.first().map_or("a program", String::as_str);
    retry_starved(tries, during, spec.limits.wall, || {
        require_free(&dirs, FULL_SLACK)?;
        let outcome = run()?;
        still_free(&dirs, during)?;
        Ok(match outcome.wall_kill {
            Some(w) if tries > 0 && outcome.host_starved() => Try::Starved(w.host_wait()),
            _ => Try::Done(outcome),
        })
    })
}

/// What one try of a run gave (see [`retry_starved`]).
pub(super) enum Try<T> {
    /// The run said something about the program: keep it.
    Done(T),
    /// The host's load used up the run's wall time while it waited this long for a CPU.
    Starved(Duration),
}

/// Tries `attempt` until it is [`Try::Done`], at most `tries` times in all, with a growing pause
/// between tries for the load to pass; a run starved every time is the host fault
/// [`HostFault::Starved`] (naming `during` and the wall limit `wall`), never a verdict. The one
/// retry rule of plain runs ([`guarded`]) and interactive pairs (`interactive::run_pass`).
pub(super) fn retry_starved<T>(
    tries: u32,
    during: &str,
    wall: Duration,
    mut attempt: impl FnMut() -> Result<Try<T>, JudgeError>,
) -> Result<T, JudgeError> {
    let mut tried = 0;
    loop {
        tried += 1;
        let cpu_wait = match attempt()? {
            Try::Done(t) => return Ok(t),
            Try::Starved(cpu_wait) => cpu_wait,
        };
        if tried >= tries {
            return Err(HostFault::Starved {
                during: during.to_string(),
                wall,
                cpu_wait,
                tries: tried,
            }
            .into());
        }
        // Give the load a moment to pass before the next try.
        std::thread::sleep(Duration::from_millis(100 * u64::from(tried)));
    }
}

/// A program's run on one input: the outcome and where its output and stderr are.
pub struct InputRun {
    /// How the run ended and what it used.
    pub outcome: RunOutcome,
    /// The program's output: the file it wrote when the problem reads one, standard output
    /// otherwise.
    pub output: PathBuf,
    /// The file holding its standard error.
    pub stderr: PathBuf,
}

/// One run of a compiled program.
pub struct ProgramRun<'a> {
    /// The compiled program to run.
    pub program: &'a Program,
    /// Arguments after the program's run command.
    pub args: &'a [String],
    /// The file fed to standard input; none: an empty input.
    pub stdin: Option<&'a Path>,
    /// Where standard output is written on the host.
    pub stdout: &'a Path,
    /// Where standard error is written on the host; none: discarded.
    pub stderr: Option<&'a Path>,
    /// Host files copied into the box before the run, each under the given name.
    pub box_files: Vec<(PathBuf, String)>,
    /// Files the program writes in its box, each copied back to the given host path after the run.
    pub collect: Vec<(String, PathBuf)>,
    /// CPU, wall, memory, process and output limits of the run.
    pub limits: Limits,
}

/// An accepted result of `test` with what the run measured, for the checks to amend.
pub(super) fn result_of(test: &TestCase, outcome: &RunOutcome) -> TestResult {
    TestResult {
        name: test.name.clone(),
        sample: test.sample,
        verdict: Verdict::Accepted,
        cpu_ms: outcome.cpu_time.as_millis() as u64,
        // The wall time the limit counts: the program's own, not the time it lost to the host's
        // load (a check of it against a limit, as `ojd verify` makes, must see the same).
        wall_ms: outcome.own_wall_time().as_millis() as u64,
        memory_kib: outcome.peak_memory / 1024,
        exit: Some(match outcome.termination {
            Termination::Exited(c) => c.to_string(),
            Termination::Signaled(s) => signal_name(s),
        }),
        message: String::new(),
        diff: None,
    }
}

/// A test not run because an earlier one failed.
pub(super) fn skipped(test: &TestCase) -> TestResult {
    TestResult {
        name: test.name.clone(),
        sample: test.sample,
        verdict: Verdict::Skipped,
        cpu_ms: 0,
        wall_ms: 0,
        memory_kib: 0,
        exit: None,
        message: "skipped after an earlier failure".into(),
        diff: None,
    }
}

/// The conventional name of a signal ("SIGSEGV").
pub(super) fn signal_name(sig: i32) -> String {
    let name = match sig {
        libc::SIGHUP => "SIGHUP",
        libc::SIGINT => "SIGINT",
        libc::SIGQUIT => "SIGQUIT",
        libc::SIGILL => "SIGILL",
        libc::SIGTRAP => "SIGTRAP",
        libc::SIGABRT => "SIGABRT",
        libc::SIGBUS => "SIGBUS",
        libc::SIGFPE => "SIGFPE",
        libc::SIGKILL => "SIGKILL",
        libc::SIGUSR1 => "SIGUSR1",
        libc::SIGSEGV => "SIGSEGV",
        libc::SIGUSR2 => "SIGUSR2",
        libc::SIGPIPE => "SIGPIPE",
        libc::SIGALRM => "SIGALRM",
        libc::SIGTERM => "SIGTERM",
        libc::SIGXCPU => "SIGXCPU",
        libc::SIGXFSZ => "SIGXFSZ",
        libc::SIGSYS => "SIGSYS",
        _ => return format!("signal {sig}"),
    };
    name.to_string()
}

/// How a run ended, as a verdict: the rules shared by judging, `ojd gen` and `ojd stress`.
/// `None` means the program exited 0 within its limits.
pub fn classify(o: &RunOutcome, limits: &Limits) -> Option<(Verdict, String)> {
    if let Some(e) = &o.exec_error {
        return Some((Verdict::RuntimeError, format!("cannot execute: {e}")));
    }
    if let Some(name) = &o.forbidden_syscall {
        return Some((
            Verdict::RuntimeError,
            format!("forbidden system call {name}"),
        ));
    }
    let ms = |d: Duration| d.as_millis();
    match o.killed_by {
        Some(LimitKind::Cpu) => {
            return Some((
                Verdict::TimeLimitExceeded,
                format!("CPU time limit of {} ms exceeded", ms(limits.cpu)),
            ))
        }
        Some(LimitKind::Wall) => {
            return Some((
                Verdict::TimeLimitExceeded,
                format!(
                    "wall-time limit of {} ms exceeded (the program was idle or blocked)",
                    ms(limits.wall)
                ),
            ))
        }
        Some(LimitKind::Memory) => {
            return Some((
                Verdict::MemoryLimitExceeded,
                format!("memory limit of {} KiB exceeded", limits.memory / 1024),
            ))
        }
        Some(LimitKind::Output) => {
            return Some((
                Verdict::OutputLimitExceeded,
                format!("output limit of {} bytes exceeded", limits.output),
            ))
        }
        None => {}
    }
    match o.termination {
        Termination::Exited(0) => None,
        Termination::Exited(c) => Some((Verdict::RuntimeError, format!("exit code {c}"))),
        Termination::Signaled(libc::SIGXCPU) => Some((
            Verdict::TimeLimitExceeded,
            format!("CPU time limit of {} ms exceeded", ms(limits.cpu)),
        )),
        Termination::Signaled(libc::SIGXFSZ) => Some((
            Verdict::OutputLimitExceeded,
            "file size limit exceeded".to_string(),
        )),
        Termination::Signaled(s) if o.peak_memory >= limits.memory => Some((
            Verdict::MemoryLimitExceeded,
            format!("memory limit exceeded (killed by {})", signal_name(s)),
        )),
        Termination::Signaled(s) => Some((
            Verdict::RuntimeError,
            format!("killed by {}", signal_name(s)),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn outcome(termination: Termination, killed_by: Option<LimitKind>) -> RunOutcome {
        RunOutcome {
            termination,
            cpu_time: Duration::from_millis(10),
            wall_time: Duration::from_millis(10),
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

    /// The one retry rule: a starved try is tried again after a pause, a done one is kept at
    /// once, and `tries` starved tries in a row are the host fault naming what was run.
    #[test]
    fn retry_starved_keeps_the_first_done_try_and_gives_up_after_the_last_starved_one() {
        let wait = Duration::from_millis(700);
        let mut calls = 0;
        let got = retry_starved(3, "x", Duration::from_secs(1), || {
            calls += 1;
            Ok(if calls < 2 {
                Try::Starved(wait)
            } else {
                Try::Done(calls)
            })
        });
        assert_eq!(got.unwrap(), 2);

        let mut calls = 0;
        let err = retry_starved::<()>(3, "the program", Duration::from_secs(1), || {
            calls += 1;
            Ok(Try::Starved(wait))
        })
        .unwrap_err();
        assert_eq!(calls, 3);
        match err {
            JudgeError::Host(HostFault::Starved {
                during,
                tries,
                cpu_wait,
                ..
            }) => {
                assert_eq!((during.as_str(), tries, cpu_wait), ("the program", 3, wait));
            }
            other => panic!("not a starved host fault: {other:?}"),
        }
    }

    /// A wall-time kill the host's load caused is tried again, then a host fault; a wall-time
    /// kill of the program's own doing is its verdict at once.
    #[test]
    fn a_run_the_host_starved_is_tried_again_then_a_host_fault() {
        let d = tempfile::tempdir().unwrap();
        let spec = RunSpec {
            argv: vec!["/prog/main".into()],
            env: vec![],
            box_files: vec![],
            collect: vec![],
            binds: vec![],
            stdin: None,
            stdout: d.path().join("stdout"),
            stderr: None,
            limits: Limits {
                cpu: Duration::from_secs(1),
                wall: Duration::from_secs(3),
                memory: 64 << 20,
                output: 1 << 20,
                processes: 8,
                file_size: 1 << 20,
            },
        };
        let wall = |cause| RunOutcome {
            wall_kill: Some(ojd_sandbox::WallKill {
                cpu_wait: Duration::from_millis(1500),
                io_wait: Duration::ZERO,
                cause,
            }),
            ..outcome(Termination::Signaled(libc::SIGKILL), Some(LimitKind::Wall))
        };
        let starved = || wall(ojd_sandbox::WallCause::HostLoad);
        // Starved every time: three tries, then a host fault naming the wait.
        let mut n = 0;
        let e = guarded(&spec, STARVED_TRIES, || {
            n += 1;
            Ok(starved())
        })
        .unwrap_err();
        assert_eq!(n, 3);
        assert!(e.is_host_fault(), "{e}");
        assert!(
            e.to_string()
                .contains("starved of CPU: 1500 ms of its 3000 ms"),
            "{e}"
        );
        // Starved once, then the program's own result.
        let mut n = 0;
        let o = guarded(&spec, STARVED_TRIES, || {
            n += 1;
            Ok(if n == 1 {
                starved()
            } else {
                outcome(Termination::Exited(0), None)
            })
        })
        .unwrap();
        assert_eq!((n, o.success()), (2, true));
        // The program's own wall-time kill: once, its verdict.
        let mut n = 0;
        let o = guarded(&spec, STARVED_TRIES, || {
            n += 1;
            Ok(wall(ojd_sandbox::WallCause::Program))
        })
        .unwrap();
        assert_eq!((n, o.killed_by), (1, Some(LimitKind::Wall)));
        // An interactive side (no starvation rule): its outcome as it is, once.
        let mut n = 0;
        let o = guarded(&spec, 0, || {
            n += 1;
            Ok(starved())
        })
        .unwrap();
        assert_eq!((n, o.host_starved()), (1, true));
    }

    #[test]
    fn classification_table() {
        let limits = Limits {
            cpu: Duration::from_secs(1),
            wall: Duration::from_secs(3),
            memory: 64 << 20,
            output: 1 << 20,
            processes: 8,
            file_size: 1 << 20,
        };
        let table = [
            (Termination::Exited(0), None, None),
            (
                Termination::Exited(3),
                None,
                Some((Verdict::RuntimeError, "exit code 3")),
            ),
            (
                Termination::Signaled(libc::SIGSEGV),
                None,
                Some((Verdict::RuntimeError, "killed by SIGSEGV")),
            ),
            (
                Termination::Signaled(libc::SIGKILL),
                Some(LimitKind::Cpu),
                Some((
                    Verdict::TimeLimitExceeded,
                    "CPU time limit of 1000 ms exceeded",
                )),
            ),
            (
                Termination::Signaled(libc::SIGKILL),
                Some(LimitKind::Memory),
                Some((
                    Verdict::MemoryLimitExceeded,
                    "memory limit of 65536 KiB exceeded",
                )),
            ),
            (
                Termination::Signaled(libc::SIGXFSZ),
                None,
                Some((Verdict::OutputLimitExceeded, "file size limit exceeded")),
            ),
            (
                Termination::Signaled(libc::SIGXCPU),
                None,
                Some((
                    Verdict::TimeLimitExceeded,
                    "CPU time limit of 1000 ms exceeded",
                )),
            ),
        ];
        for (term, killed, want) in table {
            let got = classify(&outcome(term, killed), &limits);
            assert_eq!(
                got.as_ref().map(|(v, m)| (*v, m.as_str())),
                want,
                "{term:?} {killed:?}"
            );
        }
    }
}
