//! The judging pipeline: one submission from source to verdict. The CLI (`ojd judge`), the
//! daemon's workers and `ojd verify` all call [`Judge::judge`]; nothing judges another way.
//!
//! Steps: check the submission (size, text, language) → compile it in the sandbox (cached by a
//! hash of language, command and source) → run every test in the sandbox (an interactive
//! problem's against its interactor, `interactive.rs`) → classify the run (limits, signals, exit
//! code) → check the output (the checkers, `check/`) → aggregate into a [`JudgeReport`]. A
//! multi-pass problem's test is several such runs (`multipass.rs`).
//! Progress is reported through [`Event`]s; a cancel flag is checked between tests.

mod check;
mod compile;
mod host;
mod interactive;
mod languages;
mod multipass;
mod run;
mod score;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

pub use self::check::{compare, CheckOutcome};
pub use self::compile::{CompileFailed, Compiled, Pin, Program};
pub(crate) use self::host::FULL_SLACK;
pub use self::host::{free_space, HostFault};
pub use self::languages::Recheck;
use self::run::signal_name;
pub use self::run::{classify, InputRun, ProgramRun};
use crate::config::Config;
use crate::lang::{Language, ToolchainError};
use crate::problem::{CheckerSpec, Problem};
use crate::sources::ReadError;
use crate::verdict::{JudgeReport, TestResult, Verdict};
use ojd_sandbox::{SandboxError, SandboxOptions, SandboxPool};

/// A submission to judge.
#[derive(Clone, Debug)]
pub struct Submission {
    /// The id of a configured language (a `[languages.<id>]` table).
    pub language: String,
    /// The source as submitted (text for every language but `binary`).
    pub source: Vec<u8>,
}

/// Progress of one judging.
#[derive(Debug)]
pub enum Event<'a> {
    /// Compilation finished; `ok` is false for a compile error.
    Compiled {
        /// Whether a program came out of it.
        ok: bool,
    },
    /// A test is about to run.
    TestStarted {
        /// Its 0-based position in the problem's test order.
        index: usize,
        /// Its name (the file stem).
        name: &'a str,
    },
    /// A test ran and was checked.
    TestFinished {
        /// Its 0-based position in the problem's test order.
        index: usize,
        /// Its result.
        result: &'a TestResult,
    },
}

/// The operator's or the judge's failure; a submission's own failure is a verdict instead.
/// [`JudgeError::is_host_fault`] tells this host's failures (judge the submission elsewhere)
/// from the operator's (a bad submission or package).
#[derive(Debug, thiserror::Error)]
pub enum JudgeError {
    /// The submission is unusable as given (empty, too big, files the language cannot take); the
    /// message says why.
    #[error("{0}")]
    BadSubmission(String),
    /// A source that is not text (a program in any language but `binary`): binary data at
    /// byte `at`. Its own variant so that each front end says how it takes a compiled program.
    #[error("the source is not UTF-8 text (binary data at byte {at}); submit executables with --lang binary")]
    NotText {
        /// Byte offset of the first byte that is not UTF-8 text.
        at: usize,
    },
    /// The submission names a language this judge has no profile for.
    #[error("unknown language {language:?} (known: {known})")]
    UnknownLanguage {
        /// The language id asked for.
        language: String,
        /// The configured ids, comma-separated, for the message.
        known: String,
    },
    /// The language is configured, but its toolchain is missing or failed on this host (for
    /// now: it is probed again, [`Judge::recheck_languages`]). Never the submission's fault: a
    /// daemon gives it back to the queue and claims none of that language meanwhile.
    #[error("language {language} is unavailable: {reason}")]
    LanguageUnavailable {
        /// The language id asked for.
        language: String,
        /// Why its toolchain is unavailable (a missing compiler, a probe that failed or timed
        /// out).
        reason: Box<ToolchainError>,
    },
    /// The package lacks answer files for some tests: `ojd gen` was not run since they were added.
    #[error("{problem}: missing answers for {tests} (run `ojd gen {problem}`)")]
    MissingAnswers {
        /// The problem's id.
        problem: String,
        /// The tests without an answer file, comma-separated.
        tests: String,
    },
    /// The judge's own file operation failed outside a run (a host fault).
    #[error("judge I/O failed: {what}")]
    Io {
        /// What was being done, naming the file.
        what: String,
        /// The underlying error.
        #[source]
        source: std::io::Error,
    },
    /// The sandbox could not run a program (a host fault).
    #[error(transparent)]
    Sandbox(#[from] SandboxError),
    /// This host failed (its disk, its own I/O): see `host.rs`.
    #[error("host fault: {0}")]
    Host(#[from] HostFault),
    /// The caller's cancellation token fired before judging finished.
    #[error("judging was cancelled")]
    Cancelled,
}

impl JudgeError {
    /// Whether this is the host's failure, never the submission's nor the operator's: the
    /// judge's own I/O, its free space, its sandbox. The submission is to be judged again on a
    /// healthy host, and this host is to stop claiming until its checks pass.
    pub fn is_host_fault(&self) -> bool {
        matches!(
            self,
            JudgeError::Host(_) | JudgeError::Io { .. } | JudgeError::Sandbox(_)
        )
    }

    /// The error number of a host fault's cause, when it has one.
    pub fn errno(&self) -> Option<i32> {
        match self {
            JudgeError::Host(h) => h.errno(),
            JudgeError::Io { source, .. } => source.raw_os_error(),
            JudgeError::Sandbox(SandboxError::Keeper(m)) => host::message_errno(m),
            JudgeError::Sandbox(SandboxError::Spawn { source, .. })
            | JudgeError::Sandbox(SandboxError::Protocol(source)) => source.raw_os_error(),
            _ => None,
        }
    }

    /// A short name of a host fault's kind (`low_space`, `disk_full`, `io_error`, `sandbox`).
    pub fn host_fault_kind(&self) -> Option<&'static str> {
        match self {
            JudgeError::Host(h) => Some(h.kind()),
            JudgeError::Io { .. } => Some("io_error"),
            JudgeError::Sandbox(_) => Some("sandbox"),
            _ => None,
        }
    }
}

/// Free space of a judge's scratch and cache, as [`Judge::host_check`] measured it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct HostSpace {
    /// Free bytes of the scratch folder's file system.
    pub scratch_free: u64,
    /// Free bytes of the cache folder's file system.
    pub cache_free: u64,
}

fn io_err(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> JudgeError {
    let what = what.into();
    move |source| JudgeError::Io { what, source }
}

/// The judge: configuration, resolved languages, a pool of sandboxes and a compile cache.
pub struct Judge {
    /// The configuration this judge was made from.
    pub config: Config,
    languages: languages::Table,
    /// The keepers. Replaced (never changed in place) when a language resolved late needs host
    /// folders the keepers do not show: a run holds the pool it started on.
    pool: RwLock<Arc<SandboxPool>>,
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
        if let Ok(p) = ojd_sandbox::affinity::Pinning::parse(&config.judge.pin_cpus) {
            ojd_sandbox::affinity::configure(&p);
        }
        let (languages, mut ro_paths) = languages::Table::resolve(
            &config.languages,
            config.judge.toolchain_recheck,
            config.judge.toolchain_timeout,
            std::time::Instant::now(),
        );
        ro_paths.sort();
        ro_paths.dedup();
        let mut opts = SandboxOptions::new(scratch.clone());
        opts.uid_base = config.sandbox.uid_base;
        opts.isolate = config.sandbox.isolate;
        opts.allow_insecure = config.sandbox.allow_insecure_sandbox;
        opts.box_size = config.sandbox.box_size.bytes();
        opts.tmp_size = config.sandbox.tmp_size.bytes();
        opts.ro_paths = ro_paths;
        let judge = Judge {
            pool: RwLock::new(Arc::new(SandboxPool::new(opts, parallel))),
            config,
            languages,
            scratch,
            cache,
            counter: AtomicU64::new(0),
            _scratch_guard: guard,
        };
        judge.collect_old_programs(true);
        Ok(judge)
    }

    /// Overrides how keepers are started (tests point at the built `ojd`).
    pub fn set_keeper(&mut self, exe: PathBuf) {
        let pool = self.pool();
        let mut opts = pool.options().clone();
        opts.keeper_exe = exe;
        self.set_pool(SandboxPool::new(opts, pool.capacity()));
    }

    /// The keepers runs take now (see the field).
    fn pool(&self) -> Arc<SandboxPool> {
        self.pool.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn set_pool(&self, pool: SandboxPool) {
        *self.pool.write().unwrap_or_else(|e| e.into_inner()) = Arc::new(pool);
    }

    /// Isolation warnings of this host (starts a keeper if none runs yet).
    pub fn warnings(&self) -> Result<Vec<String>, JudgeError> {
        Ok(self.pool().get()?.capabilities().warnings)
    }

    /// What isolation this host's sandbox provides (starts a keeper if none runs yet).
    pub fn capabilities(&self) -> Result<ojd_sandbox::Capabilities, JudgeError> {
        Ok(self.pool().get()?.capabilities())
    }

    /// Every configured language as resolved now, with the reason for each unavailable one (a
    /// copy: a later [`Judge::recheck_languages`] may resolve more).
    pub fn languages(&self) -> BTreeMap<String, Result<Language, ToolchainError>> {
        self.languages.snapshot()
    }

    /// Probes again each language unavailable on this host whose wait has passed (every one
    /// with `force`): see `languages.rs` for the waits. Returns what each probe found; the
    /// languages it resolved are judged from now on, their host folders shown in new sandboxes.
    /// Blocking (each probe may take up to `[judge] toolchain_timeout`); one probe at a time,
    /// a call while another runs returns nothing.
    pub fn recheck_languages(&self, force: bool) -> Vec<Recheck> {
        let (found, ro) =
            self.languages
                .recheck(&self.config.languages, force, std::time::Instant::now());
        let pool = self.pool();
        let mut opts = pool.options().clone();
        let before = opts.ro_paths.len();
        for p in ro {
            if !opts.ro_paths.contains(&p) {
                opts.ro_paths.push(p);
            }
        }
        if opts.ro_paths.len() > before {
            opts.ro_paths.sort();
            self.set_pool(SandboxPool::new(opts, pool.capacity()));
        }
        found
    }

    /// When [`Judge::recheck_languages`] has a language due next; `None` when every language
    /// is resolved (nothing to probe ever again).
    pub fn next_language_recheck(&self) -> Option<std::time::Instant> {
        self.languages.next_due()
    }

    /// The longest a judging of `problem` in `language` takes by its limits: per test, its
    /// wall-time limit and a compile's (a checker's or an interactor's too), summed over the
    /// tests. A judging far past it is stuck, not slow (the workers' watchdog).
    pub fn longest_judging(&self, problem: &Problem, language: &str) -> std::time::Duration {
        let j = &self.config.judge;
        let (factor, compile) = match self.language(language) {
            Ok(l) => (l.time_factor, l.compile_time.unwrap_or(j.compile_time)),
            Err(_) => (1.0, j.compile_time),
        };
        let cpu = problem.time_limit.mul_f64(factor);
        let wall = problem
            .wall_time_limit
            .unwrap_or_else(|| cpu.mul_f64(j.wall_factor) + j.wall_extra);
        let tests = u32::try_from(problem.tests.len().max(1)).unwrap_or(u32::MAX);
        (wall + compile * 2).saturating_mul(tests)
    }

    /// The longest one step of a judging of `problem` in `language` (a compile, or a test's
    /// runs with their check: the time between two of its [`Event`]s) takes on a loaded host:
    /// a step of [`Judge::longest_judging`]'s sum, each of its runs waited for up to the
    /// sandbox's ceiling ([`ojd_sandbox::WALL_CEILING`] times its limit) and run up to
    /// three times (a starved run's tries). A judging with no event for longer is stuck, not slow.
    pub fn longest_step(&self, problem: &Problem, language: &str) -> std::time::Duration {
        let tests = u32::try_from(problem.tests.len().max(1)).unwrap_or(u32::MAX);
        (self.longest_judging(problem, language) / tests)
            .saturating_mul(ojd_sandbox::WALL_CEILING)
            .saturating_mul(run::STARVED_TRIES)
    }

    /// The resolved language `id`: an error when it is not configured or its toolchain is missing
    /// here.
    pub fn language(&self, id: &str) -> Result<&Language, JudgeError> {
        match self.languages.get(id).map(|slot| slot.get()) {
            Some(Ok(l)) => Ok(l),
            Some(Err(reason)) => Err(JudgeError::LanguageUnavailable {
                language: id.into(),
                reason: Box::new(reason),
            }),
            None => Err(JudgeError::UnknownLanguage {
                language: id.into(),
                known: self.languages.ids().cloned().collect::<Vec<_>>().join(", "),
            }),
        }
    }

    /// The language of a file, by extension, or an ELF executable as `binary`.
    pub fn detect_language(&self, path: &Path, head: &[u8]) -> Option<String> {
        if let Some(id) = crate::lang::detect(&self.config.languages, path, head) {
            return Some(id.to_string());
        }
        (head.starts_with(b"\x7fELF") && self.languages.get("binary").is_some())
            .then(|| "binary".to_string())
    }

    /// The submission in `path`: one file, or a folder of files in one language (a submission
    /// of several files, a bundle: [`crate::encode_bundle`]); its language `language`, else
    /// found by the files' extensions (files no profile claims, such as headers, go along). The
    /// error names the path and what is wrong.
    pub fn read_submission(
        &self,
        path: &Path,
        language: Option<&str>,
    ) -> Result<Submission, ReadError> {
        if !path.is_dir() {
            let source = std::fs::read(path).map_err(|source| ReadError::Io {
                path: path.into(),
                source,
            })?;
            let language = match language {
                Some(l) => l.to_string(),
                None => self
                    .detect_language(path, &source)
                    .ok_or_else(|| ReadError::UnknownLanguage { path: path.into() })?,
            };
            return Ok(Submission { language, source });
        }
        let bundle = crate::sources::read_folder(path)?;
        let language = match language {
            Some(l) => l.to_string(),
            None => {
                let mut found: BTreeMap<String, Vec<&str>> = BTreeMap::new();
                for f in &bundle.files {
                    if let Some(l) = self.detect_language(Path::new(&f.name), &f.text) {
                        found.entry(l).or_default().push(&f.name);
                    }
                }
                match found.len() {
                    1 => found.into_keys().next().unwrap_or_default(),
                    0 => return Err(ReadError::NoLanguage { path: path.into() }),
                    _ => {
                        return Err(ReadError::SeveralLanguages {
                            path: path.into(),
                            found: found
                                .iter()
                                .map(|(l, f)| format!("{l}: {}", f.join(", ")))
                                .collect::<Vec<_>>()
                                .join("; "),
                        })
                    }
                }
            }
        };
        Ok(Submission {
            language,
            source: crate::sources::encode(&bundle.folder, &bundle.files),
        })
    }

    /// A fresh folder in the scratch area for one job's files.
    pub fn fresh_dir(&self, kind: &str) -> Result<PathBuf, JudgeError> {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let d = self
            .scratch
            .join("runs")
            .join(format!("{kind}-{}-{n}", std::process::id()));
        std::fs::create_dir_all(&d).map_err(host::file_fault("create the folder", &d))?;
        Ok(d)
    }

    /// Checks a submission before anything runs: size, emptiness, text-ness.
    pub fn check_submission(&self, sub: &Submission) -> Result<&Language, JudgeError> {
        let lang = self.language(&sub.language)?;
        let max = self.config.max_submission_size.bytes();
        if sub.source.is_empty() {
            return Err(JudgeError::BadSubmission("the submission is empty".into()));
        }
        if sub.source.len() as u64 > max {
            return Err(JudgeError::BadSubmission(format!(
                "the submission is {} bytes, over the limit of {}",
                sub.source.len(),
                self.config.max_submission_size
            )));
        }
        if crate::sources::is_bundle(&sub.source) {
            // A submission of several files: every file text, the profile able to judge them.
            let bundle = crate::sources::decode(&sub.source).map_err(|e| {
                JudgeError::BadSubmission(format!("a submission of several files: {e}"))
            })?;
            lang.for_bundle(&bundle)
                .map_err(JudgeError::BadSubmission)?;
        } else if lang.compile.is_empty() && lang.id == "binary" {
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
            return Err(JudgeError::NotText { at });
        }
        Ok(lang)
    }

    /// Checks this host before it takes work: the scratch folder and the compile cache each
    /// have at least `min_free` bytes free (and never less than `FULL_SLACK`), and a small file
    /// can be written, read back and removed in each. Returns the free bytes of each.
    pub fn host_check(&self, min_free: u64) -> Result<HostSpace, JudgeError> {
        let needed = min_free.max(FULL_SLACK);
        let runs = self.scratch.join("runs");
        host::require_free(&[&runs, &self.cache], needed)?;
        host::probe(&runs)?;
        host::probe(&self.cache)?;
        let free = |p: &Path| {
            free_space(p)
                .map_err(|e| JudgeError::from(host::file_fault("measure the free space of", p)(e)))
        };
        Ok(HostSpace {
            scratch_free: free(&runs)?,
            cache_free: free(&self.cache)?,
        })
    }

    /// [`Judge::compile`] with the space checks of a run around it: a compiler that could not
    /// write (its messages, its program) failed for the host, never for the source.
    fn compile_guarded(&self, problem: &Problem, sub: &Submission) -> Result<Compiled, JudgeError> {
        let runs = self.scratch.join("runs");
        let dirs = [runs.as_path(), self.cache.as_path()];
        host::require_free(&dirs, FULL_SLACK)?;
        let compiled = self.compile_in(problem, sub)?;
        host::still_free(&dirs, "the compiler")?;
        Ok(compiled)
    }

    /// [`Judge::compile_file`] with the space checks of [`Judge::compile_guarded`].
    fn compile_file_guarded(&self, problem: &Problem, path: &Path) -> Result<Compiled, JudgeError> {
        let runs = self.scratch.join("runs");
        let dirs = [runs.as_path(), self.cache.as_path()];
        host::require_free(&dirs, FULL_SLACK)?;
        let compiled = self.compile_file_in(problem, path)?;
        host::still_free(&dirs, "the compiler")?;
        Ok(compiled)
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
        let program = match self.compile_guarded(problem, sub)? {
            Compiled::Program(p) => p,
            Compiled::Error(message) => {
                progress(Event::Compiled { ok: false });
                report.verdict = Verdict::CompileError;
                report.compile_output = message;
                return Ok(report);
            }
        };
        progress(Event::Compiled { ok: true });
        let checker = match &problem.checker {
            CheckerSpec::Program { path }
            | CheckerSpec::Kattis { path, .. }
            | CheckerSpec::Cms { path } => {
                match self.compile_file_guarded(problem, &problem.dir.join(path))? {
                    Compiled::Program(p) => Some(p),
                    Compiled::Error(msg) => {
                        return Err(JudgeError::BadSubmission(format!(
                            "{}: the checker does not compile:\n{msg}",
                            problem.id
                        )))
                    }
                }
            }
            _ => None,
        };
        let interactor = match &problem.interactor {
            Some(i) => match self.compile_file_guarded(problem, &problem.dir.join(&i.path))? {
                Compiled::Program(p) => Some((i, p)),
                Compiled::Error(msg) => {
                    return Err(JudgeError::BadSubmission(format!(
                        "{}: the interactor does not compile:\n{msg}",
                        problem.id
                    )))
                }
            },
            None => None,
        };
        let limits = self.limits_for(problem, &program);
        let work = self.fresh_dir("judge")?;
        // The work folder goes whatever way the judging ends: a failed one's files (a run's
        // output on a full disk) must not keep the disk full.
        let judged = self.run_tests(
            problem,
            &program,
            checker.as_ref(),
            interactor.as_ref().map(|(spec, i)| (*spec, i)),
            &limits,
            &work,
            &mut report,
            progress,
            cancel,
        );
        // Without recursion: a package's program may have left a tree of any depth here.
        let _ = crate::fsutil::remove_tree(&work);
        judged?;
        score::aggregate(problem, &mut report);
        Ok(report)
    }

    /// Runs every test of `problem` in `work` into `report`.
    #[allow(clippy::too_many_arguments)]
    fn run_tests(
        &self,
        problem: &Problem,
        program: &Program,
        checker: Option<&Program>,
        interactor: Option<(&crate::problem::Interactor, &Program)>,
        limits: &ojd_sandbox::Limits,
        work: &Path,
        report: &mut JudgeReport,
        progress: &mut dyn FnMut(Event<'_>),
        cancel: &AtomicBool,
    ) -> Result<(), JudgeError> {
        let mut failed = false;
        for (index, test) in problem.tests.iter().enumerate() {
            if cancel.load(Ordering::Relaxed) {
                return Err(JudgeError::Cancelled);
            }
            progress(Event::TestStarted {
                index,
                name: &test.name,
            });
            let result = if failed && !self.config.judge.run_all_tests {
                run::skipped(test)
            } else if let Some(passes) = problem.passes {
                multipass::run_test(
                    self, problem, program, checker, interactor, test, limits, work, passes,
                )?
            } else if let Some((spec, i)) = interactor {
                interactive::run_test(self, problem, program, spec, i, checker, test, limits)?
            } else {
                let (result, partial) =
                    self.run_test(problem, program, checker, test, limits, work)?;
                if let Some(share) = partial {
                    report.partial.insert(test.name.clone(), share);
                }
                result
            };
            failed |= result.verdict != Verdict::Accepted;
            progress(Event::TestFinished {
                index,
                result: &result,
            });
            report.tests.push(result);
        }
        Ok(())
    }
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
    crate::fsutil::set_mode(path, mode).map_err(io_err(format!("chmod {}", path.display())))
}
