//! Compiling a submission or a package's program in the sandbox, with a cache keyed by a hash of
//! the language, its compile command and the source, bounded and pinned by [`cache`].

mod cache;
mod inflight;

use std::path::Path;

use sha2::{Digest, Sha256};

use self::cache::Admission;
pub use self::cache::Pin;
use super::{io_err, run::signal_name, sandbox_env, set_mode, Judge, JudgeError, Submission};
use crate::fsutil::read_capped;
use crate::lang::Language;
use crate::problem::Problem;
use ojd_sandbox::{EarlierCache, LimitKind, Limits, RunSpec, Termination};

/// The largest compiled program: the compiler's file-size limit, and the most the sandbox copies
/// out of its box. A bigger executable is a compile error ("File size limit exceeded" from the
/// linker), never a truncated program.
const MAX_EXECUTABLE: u64 = 256 << 20;

/// A compiled program: its folder (bound at /prog) and how to run it.
#[derive(Clone, Debug)]
pub struct Program {
    /// The folder holding the compiled program, bound read-only at `/prog` in the sandbox.
    pub dir: std::path::PathBuf,
    /// The command running it, from the language's `run`.
    pub run: Vec<String>,
    /// The language's factor on the problem's time limit (1.0 for most).
    pub time_factor: f64,
    /// Bytes added to the problem's memory limit (the language's `memory_extra`).
    pub memory_extra: u64,
    /// Heap sizing and out-of-memory lines of the language's runtime.
    pub profile: crate::lang::RunProfile,
    /// Keeps `dir` while this program (or a clone) is held: a cached one is never evicted, one
    /// too big to cache is removed after its last use.
    pub pin: Pin,
}

/// What compiling produced: a program, or the compiler's complaint (a verdict, not a judge
/// failure).
#[derive(Clone, Debug)]
pub enum Compiled {
    /// The compiled program.
    Program(Program),
    /// Why it failed, then the compiler's (capped) output.
    Error(String),
}

/// A compile error, as [`Compiled::into_result`] returns it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct CompileFailed {
    /// Why it failed, then the compiler's (capped) output.
    pub message: String,
}

impl Compiled {
    /// The program, or the compile error.
    pub fn into_result(self) -> Result<Program, CompileFailed> {
        match self {
            Compiled::Program(p) => Ok(p),
            Compiled::Error(message) => Err(CompileFailed { message }),
        }
    }
}

impl Judge {
    /// Compiles (or fetches from the cache). The program is pinned in the cache while it (or a
    /// clone) is held.
    pub fn compile(&self, sub: &Submission) -> Result<Compiled, JudgeError> {
        self.compile_measured(sub).map(|(compiled, _)| compiled)
    }

    /// [`Judge::compile`], and the compiler's CPU time when it ran for this call (`None`: the
    /// program came from the cache, compiled earlier or by another thread meanwhile, or its
    /// language has no compile step). A compile of a key that another thread of this process is
    /// compiling waits for that one instead of compiling it beside it.
    pub fn compile_measured(
        &self,
        sub: &Submission,
    ) -> Result<(Compiled, Option<std::time::Duration>), JudgeError> {
        self.compile_with(sub, &[])
    }

    /// [`Judge::compile`] as `problem` asks: its `[compile]` options for the submission's
    /// language appended to the profile's compile command (an imported Kattis package compiles
    /// C++ as the Kattis language list does).
    pub fn compile_in(&self, problem: &Problem, sub: &Submission) -> Result<Compiled, JudgeError> {
        self.compile_in_measured(problem, sub)
            .map(|(compiled, _)| compiled)
    }

    /// [`Judge::compile_in`] with the compiler's CPU time as [`Judge::compile_measured`].
    pub fn compile_in_measured(
        &self,
        problem: &Problem,
        sub: &Submission,
    ) -> Result<(Compiled, Option<std::time::Duration>), JudgeError> {
        self.compile_with(sub, problem.compile_options(&sub.language))
    }

    /// Compiles `sub` with `options` appended to its profile's compile command.
    fn compile_with(
        &self,
        sub: &Submission,
        options: &[String],
    ) -> Result<(Compiled, Option<std::time::Duration>), JudgeError> {
        // A submission of several files (a bundle) is compiled together, its entry point found
        // as `lang/several.rs` says; the cache key covers every file (the bundle's bytes).
        let base = self.check_submission(sub)?;
        let (lang, bundle, keep) = if crate::sources::is_bundle(&sub.source) {
            let bundle = crate::sources::decode(&sub.source).map_err(JudgeError::BadSubmission)?;
            let (lang, keep) = base
                .for_bundle(&bundle)
                .map_err(JudgeError::BadSubmission)?;
            (lang, Some(bundle), keep)
        } else {
            (base.for_source(&sub.source), None, Vec::new())
        };
        // The problem's options join the compile command, and so the cache key.
        let lang = lang.with_options(options);
        let root = self.programs()?;
        let dir = root.join(cache_key(&lang, &sub.source));
        let mut program = Program {
            dir: dir.clone(),
            run: lang.run.clone(),
            time_factor: lang.time_factor,
            memory_extra: lang.memory_extra,
            profile: lang.profile.clone(),
            pin: Pin::default(),
        };
        let _compiling = loop {
            {
                let mut locked = cache::lock();
                if dir.join(&lang.executable).is_file() {
                    program.pin = locked.pin(&dir);
                    cache::touch(&dir);
                    return Ok((Compiled::Program(program), None));
                }
            }
            // Not cached: compiled here, or, when another thread is compiling it, looked up
            // again once that one ends (it fails, or is too big to cache: compiled here then).
            match inflight::claim(&dir) {
                inflight::Claim::Mine(claim) => break claim,
                inflight::Claim::Waited => continue,
            }
        };
        let mut cpu = None;
        // Programs unused for longer than the retention go, at most hourly.
        self.collect_old_programs(false);
        let work = self.fresh_dir("compile")?;
        let staged = work.join("out");
        std::fs::create_dir_all(&staged).map_err(io_err("create a compile folder"))?;
        let source_path = work.join(&lang.source);
        // Each file of the submission under its name in the compiler's box.
        let mut box_files = Vec::new();
        match &bundle {
            None => {
                std::fs::write(&source_path, &sub.source).map_err(io_err("write the source"))?;
                box_files.push((source_path.clone(), lang.source.clone()));
            }
            Some(b) => {
                let src = work.join("src");
                std::fs::create_dir_all(&src).map_err(io_err("create a source folder"))?;
                for f in &b.files {
                    let path = src.join(&f.name);
                    std::fs::write(&path, &f.text)
                        .map_err(io_err(format!("write the source {}", f.name)))?;
                    box_files.push((path, f.name.clone()));
                }
            }
        }
        // What the program keeps: its executable, and every file under `entry`.
        let mut collect = vec![(lang.executable.clone(), staged.join(&lang.executable))];
        for name in keep.iter().filter(|n| **n != lang.executable) {
            collect.push((name.clone(), staged.join(name)));
        }
        if lang.compile.is_empty() {
            for (from, name) in &box_files {
                let to = staged.join(if bundle.is_some() {
                    name
                } else {
                    &lang.executable
                });
                std::fs::copy(from, to).map_err(io_err("stage the executable"))?;
            }
        } else {
            let j = &self.config.judge;
            let log = work.join("compile.log");
            let spec = RunSpec {
                argv: lang.compile.clone(),
                env: sandbox_env(),
                box_files,
                collect,
                binds: vec![],
                stdin: None,
                stdout: log.clone(),
                stderr: None,
                limits: Limits {
                    cpu: lang.compile_time.unwrap_or(j.compile_time),
                    wall: lang.compile_time.unwrap_or(j.compile_time) * 2,
                    memory: lang.compile_memory.unwrap_or(j.compile_memory.bytes()),
                    output: 8 << 20,
                    processes: j.compile_processes,
                    file_size: MAX_EXECUTABLE,
                },
            };
            // A compiler the host's load starved is run again, then a host fault (`run.rs`).
            // The compile limit guards the host, it is no verdict of a test: the keeper keeps
            // the page cache of its earlier compiles (the compiler's own files) instead of
            // reading them from disk again for every compile.
            let outcome = super::run::guarded(&spec, super::run::STARVED_TRIES, || {
                Ok(self.pool().get()?.run_with(&spec, EarlierCache::Keep)?)
            })?;
            cpu = Some(outcome.cpu_time);
            let text = read_capped(&log, j.compile_output_limit.bytes());
            let built = staged.join(&lang.executable);
            if !outcome.success() || !built.is_file() {
                let why = match (outcome.killed_by, outcome.termination) {
                    _ if outcome.forbidden_syscall.is_some() => format!(
                        "compiler stopped: forbidden system call {}\n",
                        outcome.forbidden_syscall.as_deref().unwrap_or_default()
                    ),
                    (Some(LimitKind::Cpu | LimitKind::Wall), _) => {
                        "compilation exceeded its time limit\n".to_string()
                    }
                    (Some(LimitKind::Memory), _) => {
                        "compilation exceeded its memory limit\n".to_string()
                    }
                    (_, Termination::Exited(c)) if c != 0 => {
                        format!("compiler exited with code {c}\n")
                    }
                    (_, Termination::Signaled(libc::SIGXFSZ)) => format!(
                        "the compiler wrote a file over the {} MiB limit\n",
                        MAX_EXECUTABLE >> 20
                    ),
                    (_, Termination::Signaled(s)) => {
                        format!("compiler killed by {}\n", signal_name(s))
                    }
                    _ => "the compiler produced no executable\n".to_string(),
                };
                let _ = std::fs::remove_dir_all(&work);
                return Ok((Compiled::Error(format!("{why}{text}")), cpu));
            }
        }
        let _ = std::fs::remove_file(&source_path);
        let _ = std::fs::remove_dir_all(work.join("src"));
        let _ = std::fs::remove_file(work.join("compile.log"));
        for name in keep.iter().filter(|n| **n != lang.executable) {
            if staged.join(name).is_file() {
                set_mode(&staged.join(name), 0o644)?;
            }
        }
        set_mode(&staged.join(&lang.executable), 0o755)?;
        set_mode(&staged, 0o755)?;
        let size = cache::tree_size(&staged);
        let j = &self.config.judge;
        let mut locked = cache::lock();
        // Another worker may have stored the same key meanwhile: use theirs.
        if dir.join(&lang.executable).is_file() {
            program.pin = locked.pin(&dir);
            cache::touch(&dir);
            drop(locked);
            let _ = std::fs::remove_dir_all(&work);
            return Ok((Compiled::Program(program), cpu));
        }
        let entries = locked.entries(&root);
        let admission = cache::admit(
            &entries,
            size,
            j.cache_size.bytes(),
            j.cache_entry_max.bytes(),
        );
        let Admission::Store { evict } = admission else {
            // Used once, from the scratch folder, and removed after its last use.
            program.dir = staged;
            program.pin = Pin::once(work);
            return Ok((Compiled::Program(program), cpu));
        };
        for key in evict {
            let _ = std::fs::remove_dir_all(root.join(key));
        }
        if std::fs::rename(&staged, &dir).is_err() {
            let _ = std::fs::remove_dir_all(&work);
            return Err(JudgeError::Io {
                what: format!("store the program in {}", dir.display()),
                source: std::io::Error::other("rename failed"),
            });
        }
        program.pin = locked.pin(&dir);
        cache::touch(&dir);
        drop(locked);
        let _ = std::fs::remove_dir_all(&work);
        Ok((Compiled::Program(program), cpu))
    }

    /// Removes the compiled programs unused for longer than `[judge] cache_retention`, never one
    /// a judging uses: when `force` (a judge's start), else when this process last looked at
    /// least an hour ago. Returns how many went.
    pub(crate) fn collect_old_programs(&self, force: bool) -> usize {
        let root = self.cache.join(cache::PROGRAMS);
        if !root.is_dir() {
            return 0;
        }
        cache::collect_expired(&root, self.config.judge.cache_retention, force).len()
    }

    /// The judge's cache folder (`[judge] cache`, or `cache` inside scratch): compiled programs
    /// under `programs/`; a judge host's packages go under `packages/`, which this judge never
    /// touches.
    pub fn cache_dir(&self) -> &Path {
        &self.cache
    }

    /// The compile cache's folder, `<judge cache>/programs`: created on first use, when the
    /// programs an older ojd kept directly in the judge cache folder are removed.
    fn programs(&self) -> Result<std::path::PathBuf, JudgeError> {
        let root = self.cache.join(cache::PROGRAMS);
        if !root.is_dir() {
            cache::drop_legacy(&self.cache);
            std::fs::create_dir_all(&root).map_err(io_err(format!("create {}", root.display())))?;
        }
        Ok(root)
    }

    /// Compiles a file of a problem package (solution, generator, validator, checker).
    pub fn compile_file(&self, path: &Path) -> Result<Compiled, JudgeError> {
        self.compile_file_measured(path)
            .map(|(compiled, _)| compiled)
    }

    /// [`Judge::compile_file`] with `problem`'s `[compile]` options (see [`Judge::compile_in`]).
    pub fn compile_file_in(&self, problem: &Problem, path: &Path) -> Result<Compiled, JudgeError> {
        self.compile_file_in_measured(problem, path)
            .map(|(compiled, _)| compiled)
    }

    /// [`Judge::compile_file_in`] with the compiler's CPU time as [`Judge::compile_measured`].
    pub fn compile_file_in_measured(
        &self,
        problem: &Problem,
        path: &Path,
    ) -> Result<(Compiled, Option<std::time::Duration>), JudgeError> {
        let sub = self.file_submission(path)?;
        self.compile_in_measured(problem, &sub)
    }

    /// [`Judge::compile_file`] with `options` appended to its language's compile command, for
    /// a package's program before its problem.toml exists (an import's generators).
    pub fn compile_file_with(
        &self,
        path: &Path,
        options: &[String],
    ) -> Result<Compiled, JudgeError> {
        let sub = self.file_submission(path)?;
        self.compile_with(&sub, options)
            .map(|(compiled, _)| compiled)
    }

    /// [`Judge::compile`] with `options` appended to its language's compile command: a package's
    /// program of several files (a bundle) before its problem.toml exists.
    pub fn compile_submission_with(
        &self,
        sub: &Submission,
        options: &[String],
    ) -> Result<Compiled, JudgeError> {
        self.compile_with(sub, options)
            .map(|(compiled, _)| compiled)
    }

    /// [`Judge::compile_file`], with the compiler's CPU time as [`Judge::compile_measured`].
    pub fn compile_file_measured(
        &self,
        path: &Path,
    ) -> Result<(Compiled, Option<std::time::Duration>), JudgeError> {
        let sub = self.file_submission(path)?;
        self.compile_measured(&sub)
    }

    /// A package's file as a submission in the language its name (or shebang) says.
    fn file_submission(&self, path: &Path) -> Result<Submission, JudgeError> {
        let source = std::fs::read(path).map_err(io_err(format!("read {}", path.display())))?;
        let language = self.detect_language(path, &source).ok_or_else(|| {
            JudgeError::BadSubmission(format!(
                "{}: unknown language (by extension)",
                path.display()
            ))
        })?;
        Ok(Submission { language, source })
    }
}

/// Where a compiled program is cached: the SHA-256 of the language, its compile command, the
/// compiler binary's identity (an upgraded compiler builds anew) and the source.
fn cache_key(lang: &Language, source: &[u8]) -> String {
    let mut h = Sha256::new();
    h.update(lang.id.as_bytes());
    h.update(lang.compile.join("\0").as_bytes());
    h.update(b"\0\0");
    h.update(lang.compiler_id.as_bytes());
    h.update(b"\0\0");
    h.update(source);
    crate::hex::encode(&h.finalize())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::config::Config;

    #[test]
    fn an_upgraded_compiler_is_another_cache_key() {
        let dir = tempfile::tempdir().unwrap();
        let compiler = dir.path().join("cc-12");
        std::fs::write(&compiler, "#!/bin/sh\n").unwrap();
        let link = dir.path().join("cc");
        std::os::unix::fs::symlink(&compiler, &link).unwrap();
        let mut config = Config::defaults().languages["c"].clone();
        config.compile[0] = link.display().to_string();
        let resolve = || {
            crate::lang::resolve_language("c", &config, crate::lang::PROBE_TIMEOUT)
                .expect("resolves")
                .0
        };
        let before = resolve();
        assert!(
            before.compiler_id.contains("cc-12"),
            "the symlink's target: {}",
            before.compiler_id
        );
        assert_eq!(resolve().compiler_id, before.compiler_id, "stable");
        let key = |l: &Language| cache_key(l, b"int main(){}");
        assert_eq!(key(&resolve()), key(&before));
        // The package manager replaces the binary: a new modification time.
        let f = std::fs::File::options()
            .write(true)
            .open(&compiler)
            .unwrap();
        f.set_modified(std::time::UNIX_EPOCH + std::time::Duration::from_secs(1_000_000))
            .unwrap();
        let after = resolve();
        assert_ne!(after.compiler_id, before.compiler_id);
        assert_ne!(key(&after), key(&before), "programs are built anew");
        assert_eq!(
            crate::lang::compiler_identity(&dir.path().join("missing")),
            ""
        );
    }
}
