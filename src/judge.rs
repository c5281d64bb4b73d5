//! The judging pipeline: one submission from source to verdict. The CLI (`ojd judge`), the
//! daemon's workers and `ojd verify` all call [`Judge::judge`]; nothing judges another way.
//!
//! Steps: check the submission (size, text, language) → compile it in the sandbox (cached by a
//! hash of language, command and source) → run every test in the sandbox → classify the run
//! (limits, signals, exit code) → check the output → aggregate into a [`JudgeReport`].
//! Progress is reported through [`Event`]s; a cancel flag is checked between tests.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Duration;

use sha2::{Digest, Sha256};

use crate::checker::{self, CheckOutcome};
use crate::config::Config;
use crate::lang::resolve_language;
pub use crate::lang::Language;
use crate::problem::{CheckerSpec, Problem, TestCase};
use crate::sandbox::{
    LimitKind, Limits, RunOutcome, RunSpec, SandboxError, SandboxOptions, SandboxPool, Termination,
};
pub use crate::verdict::classify::{classify, signal_name};
use crate::verdict::{JudgeReport, TestResult, Verdict};

/// A submission to judge.
#[derive(Clone, Debug)]
pub struct Submission {
    pub language: String,
    pub source: Vec<u8>,
}

/// A compiled program: its folder (bound at /prog) and how to run it.
#[derive(Clone, Debug)]
pub struct Program {
    pub dir: PathBuf,
    pub run: Vec<String>,
    pub time_factor: f64,
}

/// Progress of one judging.
#[derive(Debug)]
pub enum Event<'a> {
    Compiled {
        ok: bool,
    },
    TestStarted {
        index: usize,
        name: &'a str,
    },
    TestFinished {
        index: usize,
        result: &'a TestResult,
    },
}

/// The operator's or the judge's failure; a submission's own failure is a verdict instead.
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    #[error("{0}")]
    BadSubmission(String),
    #[error("unknown language {language:?} (known: {known})")]
    UnknownLanguage { language: String, known: String },
    #[error("language {language} is unavailable: {reason}")]
    LanguageUnavailable { language: String, reason: String },
    #[error("{problem}: missing answers for {tests} (run `ojd gen {problem}`)")]
    MissingAnswers { problem: String, tests: String },
    #[error("judge I/O failed: {what}")]
    Io {
        what: String,
        #[source]
        source: std::io::Error,
    },
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    #[error("judging was cancelled")]
    Cancelled,
}

fn io_err(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> JudgeError {
    let what = what.into();
    move |source| JudgeError::Io { what, source }
}

/// The judge: configuration, resolved languages, a pool of sandboxes and a compile cache.
pub struct Judge {
    pub config: Config,
    languages: BTreeMap<String, Result<Language, String>>,
    pool: SandboxPool,
    scratch: PathBuf,
    cache: PathBuf,
    counter: AtomicU64,
    _scratch_guard: Option<tempfile::TempDir>,
}

impl Judge {
    /// Prepares a judge with `parallel` sandboxes.
    pub fn new(config: Config, parallel: usize) -> Result<Judge, JudgeError> {
        let (scratch, guard) = if config.sandbox.scratch.as_os_str().is_empty() {
            let t = tempfile::Builder::new()
                .prefix("ojd-")
                .tempdir()
                .map_err(io_err("create a scratch folder"))?;
            (t.path().to_path_buf(), Some(t))
        } else {
            let p = config.sandbox.scratch.clone();
            std::fs::create_dir_all(&p).map_err(io_err(format!("create {}", p.display())))?;
            (p, None)
        };
        let cache = if config.judge.cache.as_os_str().is_empty() {
            scratch.join("cache")
        } else {
            config.judge.cache.clone()
        };
        for d in [&cache, &scratch.join("runs")] {
            std::fs::create_dir_all(d).map_err(io_err(format!("create {}", d.display())))?;
        }
        // Traversable, not listable: without a mount namespace the sandbox uid reaches its box
        // and its program by their host paths.
        for d in [&scratch, &cache, &scratch.join("runs")] {
            set_mode(d, 0o711)?;
        }
        let mut ro_paths = Vec::new();
        let mut languages = BTreeMap::new();
        for (id, l) in &config.languages {
            let r = resolve_language(id, l).map(|(lang, ro)| {
                ro_paths.extend(ro);
                lang
            });
            languages.insert(id.clone(), r);
        }
        ro_paths.sort();
        ro_paths.dedup();
        let mut opts = SandboxOptions::new(scratch.clone());
        opts.uid_base = config.sandbox.uid_base;
        opts.isolate = config.sandbox.isolate;
        opts.box_size = config.sandbox.box_size.bytes();
        opts.tmp_size = config.sandbox.tmp_size.bytes();
        opts.ro_paths = ro_paths;
        Ok(Judge {
            pool: SandboxPool::new(opts, parallel),
            config,
            languages,
            scratch,
            cache,
            counter: AtomicU64::new(0),
            _scratch_guard: guard,
        })
    }

    /// Overrides how keepers are started (tests point at the built `ojd`).
    pub fn set_keeper(&mut self, exe: PathBuf) {
        let mut opts = self.pool.options().clone();
        opts.keeper_exe = exe;
        let size = self.pool_size();
        self.pool = SandboxPool::new(opts, size);
    }

    fn pool_size(&self) -> usize {
        self.pool.size()
    }

    /// Isolation warnings of this host (starts a keeper if none runs yet).
    pub fn warnings(&self) -> Result<Vec<String>, JudgeError> {
        Ok(self.pool.get()?.capabilities().warnings)
    }

    pub fn capabilities(&self) -> Result<crate::sandbox::Capabilities, JudgeError> {
        Ok(self.pool.get()?.capabilities())
    }

    /// Resolved languages, with the reason for each unavailable one.
    pub fn languages(&self) -> &BTreeMap<String, Result<Language, String>> {
        &self.languages
    }

    pub fn language(&self, id: &str) -> Result<&Language, JudgeError> {
        match self.languages.get(id) {
            Some(Ok(l)) => Ok(l),
            Some(Err(reason)) => Err(JudgeError::LanguageUnavailable {
                language: id.into(),
                reason: reason.clone(),
            }),
            None => Err(JudgeError::UnknownLanguage {
                language: id.into(),
                known: self
                    .languages
                    .keys()
                    .cloned()
                    .collect::<Vec<_>>()
                    .join(", "),
            }),
        }
    }

    /// The language of a file, by extension, or an ELF executable as `binary`.
    pub fn detect_language(&self, path: &Path, head: &[u8]) -> Option<String> {
        if let Some(id) = self.config.language_for(path) {
            return Some(id.to_string());
        }
        (head.starts_with(b"\x7fELF") && self.languages.contains_key("binary"))
            .then(|| "binary".to_string())
    }

    /// A fresh folder in the scratch area for one job's files.
    pub fn fresh_dir(&self, kind: &str) -> Result<PathBuf, JudgeError> {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let d = self
            .scratch
            .join("runs")
            .join(format!("{kind}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&d).map_err(io_err(format!("create {}", d.display())))?;
        Ok(d)
    }

    /// Checks a submission before anything runs: size, emptiness, text-ness.
    pub fn check_submission(&self, sub: &Submission) -> Result<&Language, JudgeError> {
        let lang = self.language(&sub.language)?;
        let max = self.config.server.max_submission_size.bytes();
        if sub.source.is_empty() {
            return Err(JudgeError::BadSubmission("the submission is empty".into()));
        }
        if sub.source.len() as u64 > max {
            return Err(JudgeError::BadSubmission(format!(
                "the submission is {} bytes, over the limit of {}",
                sub.source.len(),
                self.config.server.max_submission_size
            )));
        }
        if lang.compile.is_empty() && lang.id == "binary" {
            if !sub.source.starts_with(b"\x7fELF") {
                return Err(JudgeError::BadSubmission(
                    "the submission is not an ELF executable".into(),
                ));
            }
        } else if let Some(at) = sub.source.iter().position(|&b| b == 0).or_else(|| {
            std::str::from_utf8(&sub.source)
                .err()
                .map(|e| e.valid_up_to())
        }) {
            return Err(JudgeError::BadSubmission(format!(
                "the source is not UTF-8 text (binary data at byte {at}); submit executables with --lang binary"
            )));
        }
        Ok(lang)
    }

    /// Compiles (or fetches from the cache). `Ok(Err(message))` is a compile error.
    pub fn compile(&self, sub: &Submission) -> Result<Result<Program, String>, JudgeError> {
        let lang = self.check_submission(sub)?.clone();
        let mut h = Sha256::new();
        h.update(lang.id.as_bytes());
        h.update(lang.compile.join("\0").as_bytes());
        h.update(b"\0\0");
        h.update(&sub.source);
        let key: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
        let dir = self.cache.join(&key);
        let program = Program {
            dir: dir.clone(),
            run: lang.run.clone(),
            time_factor: lang.time_factor,
        };
        if dir.join(&lang.executable).is_file() {
            return Ok(Ok(program));
        }
        let work = self.fresh_dir("compile")?;
        let staged = work.join("out");
        std::fs::create_dir_all(&staged).map_err(io_err("create a compile folder"))?;
        let source_path = work.join(&lang.source);
        std::fs::write(&source_path, &sub.source).map_err(io_err("write the source"))?;
        if lang.compile.is_empty() {
            std::fs::copy(&source_path, staged.join(&lang.executable))
                .map_err(io_err("stage the executable"))?;
        } else {
            let j = &self.config.judge;
            let log = work.join("compile.log");
            let spec = RunSpec {
                argv: lang.compile.clone(),
                env: sandbox_env(),
                box_files: vec![(source_path.clone(), lang.source.clone())],
                collect: vec![(lang.executable.clone(), staged.join(&lang.executable))],
                binds: vec![],
                stdin: None,
                stdout: log.clone(),
                stderr: None,
                limits: Limits {
                    cpu: j.compile_time,
                    wall: j.compile_time * 2,
                    memory: j.compile_memory.bytes(),
                    output: 8 << 20,
                    processes: j.compile_processes,
                    file_size: 256 << 20,
                },
            };
            let outcome = self.pool.get()?.run(&spec)?;
            let text = read_capped(&log, j.compile_output_limit.bytes());
            let built = staged.join(&lang.executable);
            if !outcome.success() || !built.is_file() {
                let why = match (outcome.killed_by, outcome.termination) {
                    (Some(LimitKind::Cpu | LimitKind::Wall), _) => {
                        "compilation exceeded its time limit\n".to_string()
                    }
                    (Some(LimitKind::Memory), _) => {
                        "compilation exceeded its memory limit\n".to_string()
                    }
                    (_, Termination::Exited(c)) if c != 0 => {
                        format!("compiler exited with code {c}\n")
                    }
                    (_, Termination::Signaled(s)) => {
                        format!("compiler killed by {}\n", signal_name(s))
                    }
                    _ => "the compiler produced no executable\n".to_string(),
                };
                let _ = std::fs::remove_dir_all(&work);
                return Ok(Err(format!("{why}{text}")));
            }
        }
        set_mode(&staged.join(&lang.executable), 0o755)?;
        set_mode(&staged, 0o755)?;
        // Another worker may have finished the same key meanwhile: either copy is fine.
        if std::fs::rename(&staged, &dir).is_err() && !dir.join(&lang.executable).is_file() {
            return Err(JudgeError::Io {
                what: format!("store the program in {}", dir.display()),
                source: std::io::Error::other("rename failed"),
            });
        }
        let _ = std::fs::remove_dir_all(&work);
        Ok(Ok(program))
    }

    /// Compiles a file of a problem package (solution, generator, validator, checker).
    pub fn compile_file(&self, path: &Path) -> Result<Result<Program, String>, JudgeError> {
        let source = std::fs::read(path).map_err(io_err(format!("read {}", path.display())))?;
        let language = self.detect_language(path, &source).ok_or_else(|| {
            JudgeError::BadSubmission(format!(
                "{}: unknown language (by extension)",
                path.display()
            ))
        })?;
        self.compile(&Submission { language, source })
    }

    /// Runs a compiled program once in the sandbox.
    pub fn execute(&self, run: &ProgramRun<'_>) -> Result<RunOutcome, JudgeError> {
        let mut argv = run.program.run.clone();
        argv.extend(run.args.iter().cloned());
        let spec = RunSpec {
            argv,
            env: sandbox_env(),
            box_files: run.box_files.clone(),
            collect: run.collect.clone(),
            binds: vec![crate::sandbox::Bind {
                host: run.program.dir.clone(),
                inside: "/prog".into(),
                writable: false,
            }],
            stdin: run.stdin.map(Path::to_path_buf),
            stdout: run.stdout.to_path_buf(),
            stderr: run.stderr.map(Path::to_path_buf),
            limits: run.limits.clone(),
        };
        Ok(self.pool.get()?.run(&spec)?)
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
            memory: problem.memory_limit,
            output,
            processes: j.processes,
            file_size: output,
        }
    }

    /// Judges one submission on every test of `problem`.
    pub fn judge(
        &self,
        problem: &Problem,
        sub: &Submission,
        progress: &mut dyn FnMut(Event<'_>),
        cancel: &AtomicBool,
    ) -> Result<JudgeReport, JudgeError> {
        let lang = self.check_submission(sub)?.clone();
        let missing = problem.missing_answers();
        if !missing.is_empty() {
            let names: Vec<&str> = missing.iter().map(|t| t.name.as_str()).collect();
            return Err(JudgeError::MissingAnswers {
                problem: problem.id.clone(),
                tests: names.join(", "),
            });
        }
        let warnings = self.warnings()?;
        let mut report = JudgeReport::new(&problem.id, &lang.id, Verdict::Accepted, warnings);
        let program = match self.compile(sub)? {
            Ok(p) => p,
            Err(message) => {
                progress(Event::Compiled { ok: false });
                report.verdict = Verdict::CompileError;
                report.compile_output = message;
                return Ok(report);
            }
        };
        progress(Event::Compiled { ok: true });
        let checker = match &problem.checker {
            CheckerSpec::Program { path } => match self.compile_file(&problem.dir.join(path))? {
                Ok(p) => Some(p),
                Err(msg) => {
                    return Err(JudgeError::BadSubmission(format!(
                        "{}: the checker does not compile:\n{msg}",
                        problem.id
                    )))
                }
            },
            _ => None,
        };
        let limits = self.limits_for(problem, &program);
        let work = self.fresh_dir("judge")?;
        let mut failed = false;
        for (index, test) in problem.tests.iter().enumerate() {
            if cancel.load(Ordering::Relaxed) {
                let _ = std::fs::remove_dir_all(&work);
                return Err(JudgeError::Cancelled);
            }
            progress(Event::TestStarted {
                index,
                name: &test.name,
            });
            let result = if failed && !self.config.judge.run_all_tests {
                skipped(test)
            } else {
                self.run_test(problem, &program, checker.as_ref(), test, &limits, &work)?
            };
            failed |= result.verdict != Verdict::Accepted;
            progress(Event::TestFinished {
                index,
                result: &result,
            });
            report.tests.push(result);
        }
        let _ = std::fs::remove_dir_all(&work);
        aggregate(problem, &mut report);
        Ok(report)
    }

    fn run_test(
        &self,
        problem: &Problem,
        program: &Program,
        checker: Option<&Program>,
        test: &TestCase,
        limits: &Limits,
        work: &Path,
    ) -> Result<TestResult, JudgeError> {
        let run = self.run_on_input(problem, program, &test.input, limits, work)?;
        let (outcome, stderr) = (&run.outcome, &run.stderr);
        let mut result = TestResult {
            name: test.name.clone(),
            sample: test.sample,
            verdict: Verdict::Accepted,
            cpu_ms: outcome.cpu_time.as_millis() as u64,
            wall_ms: outcome.wall_time.as_millis() as u64,
            memory_kib: outcome.peak_memory / 1024,
            exit: Some(match outcome.termination {
                Termination::Exited(c) => c.to_string(),
                Termination::Signaled(s) => signal_name(s),
            }),
            message: String::new(),
            diff: None,
        };
        if let Some((verdict, message)) = classify(outcome, limits) {
            result.verdict = verdict;
            result.message = message;
            if verdict == Verdict::RuntimeError {
                let err = read_capped(stderr, 2048);
                if let Some(line) = err.lines().rev().find(|l| !l.trim().is_empty()) {
                    result.message = format!("{}; stderr: {}", result.message, line.trim());
                }
            }
            return Ok(result);
        }
        let out_path = &run.output;
        let output = std::fs::read(out_path).map_err(io_err("read the program's output"))?;
        let answer = std::fs::read(&test.answer)
            .map_err(io_err(format!("read {}", test.answer.display())))?;
        let outcome = match checker {
            None => checker::compare(&problem.checker, &output, &answer),
            Some(c) => self.run_checker(c, test, out_path, work)?,
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
        let _ = std::fs::remove_file(&file_out);
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

impl SandboxPool {
    fn size(&self) -> usize {
        self.capacity()
    }
}

/// A program's run on one input: the outcome and where its output and stderr are.
pub struct InputRun {
    pub outcome: RunOutcome,
    pub output: PathBuf,
    pub stderr: PathBuf,
}

/// One run of a compiled program.
pub struct ProgramRun<'a> {
    pub program: &'a Program,
    pub args: &'a [String],
    pub stdin: Option<&'a Path>,
    pub stdout: &'a Path,
    pub stderr: Option<&'a Path>,
    pub box_files: Vec<(PathBuf, String)>,
    pub collect: Vec<(String, PathBuf)>,
    pub limits: Limits,
}

fn sandbox_env() -> Vec<(String, String)> {
    [
        ("PATH", "/usr/local/bin:/usr/bin:/bin"),
        ("HOME", "/box"),
        ("TMPDIR", "/tmp"),
        ("LANG", "C.UTF-8"),
    ]
    .iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect()
}

fn set_mode(path: &Path, mode: u32) -> Result<(), JudgeError> {
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(mode))
        .map_err(io_err(format!("chmod {}", path.display())))
}

/// Reads at most `limit` bytes of a text file, marking a cut.
pub fn read_capped(path: &Path, limit: u64) -> String {
    let Ok(f) = std::fs::File::open(path) else {
        return String::new();
    };
    let mut buf = Vec::new();
    let _ = std::io::Read::read_to_end(&mut std::io::Read::take(f, limit + 1), &mut buf);
    let cut = buf.len() as u64 > limit;
    buf.truncate(limit as usize);
    let mut s = String::from_utf8_lossy(&buf).into_owned();
    if cut {
        s.push_str("\n… (truncated)\n");
    }
    s
}

fn skipped(test: &TestCase) -> TestResult {
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

/// Overall verdict (the first test that is not AC, in test order), score and maxima.
fn aggregate(problem: &Problem, report: &mut JudgeReport) {
    report.verdict = report
        .tests
        .iter()
        .map(|t| t.verdict)
        .find(|v| *v != Verdict::Accepted && *v != Verdict::Skipped)
        .unwrap_or(Verdict::Accepted);
    report.max_cpu_ms = report.tests.iter().map(|t| t.cpu_ms).max().unwrap_or(0);
    report.max_memory_kib = report.tests.iter().map(|t| t.memory_kib).max().unwrap_or(0);
    let passed = |name: &str| {
        report
            .tests
            .iter()
            .any(|t| t.name == name && t.verdict == Verdict::Accepted)
    };
    report.score = if problem.groups.is_empty() {
        let n = report.tests.len().max(1) as u32;
        let ok = report
            .tests
            .iter()
            .filter(|t| t.verdict == Verdict::Accepted)
            .count() as u32;
        ok * 100 / n
    } else {
        problem
            .groups
            .iter()
            .filter(|g| {
                let members: Vec<&TestCase> = problem
                    .tests
                    .iter()
                    .filter(|t| g.tests.iter().any(|p| t.name.starts_with(p.as_str())))
                    .collect();
                !members.is_empty() && members.iter().all(|t| passed(&t.name))
            })
            .map(|g| g.points)
            .sum()
    };
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
        }
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
