//! Compiling a submission or a package's program in the sandbox, with a cache keyed by a hash of
//! the language, its compile command and the source.

use std::path::Path;

use sha2::{Digest, Sha256};

use super::{io_err, run::signal_name, sandbox_env, set_mode, Judge, JudgeError, Submission};
use crate::fsutil::read_capped;
use crate::lang::Language;
use ojd_sandbox::{LimitKind, Limits, RunSpec, Termination};

/// The largest compiled program: the compiler's file-size limit, and the most the sandbox copies
/// out of its box. A bigger executable is a compile error ("File size limit exceeded" from the
/// linker), never a truncated program.
const MAX_EXECUTABLE: u64 = 256 << 20;

/// A compiled program: its folder (bound at /prog) and how to run it.
#[derive(Clone, Debug)]
pub struct Program {
    pub dir: std::path::PathBuf,
    pub run: Vec<String>,
    pub time_factor: f64,
    /// Bytes added to the problem's memory limit (the language's `memory_extra`).
    pub memory_extra: u64,
    /// Heap sizing and out-of-memory lines of the language's runtime.
    pub profile: crate::lang::RunProfile,
}

/// What compiling produced: a program, or the compiler's complaint (a verdict, not a judge
/// failure).
#[derive(Clone, Debug)]
pub enum Compiled {
    Program(Program),
    /// Why it failed, then the compiler's (capped) output.
    Error(String),
}

impl Compiled {
    /// The program, or the compile error message.
    pub fn into_result(self) -> Result<Program, String> {
        match self {
            Compiled::Program(p) => Ok(p),
            Compiled::Error(message) => Err(message),
        }
    }
}

impl Judge {
    /// Compiles (or fetches from the cache).
    pub fn compile(&self, sub: &Submission) -> Result<Compiled, JudgeError> {
        let lang = self.check_submission(sub)?.for_source(&sub.source);
        let dir = self.cache.join(cache_key(&lang, &sub.source));
        let program = Program {
            dir: dir.clone(),
            run: lang.run.clone(),
            time_factor: lang.time_factor,
            memory_extra: lang.memory_extra,
            profile: lang.profile.clone(),
        };
        if dir.join(&lang.executable).is_file() {
            touch(&dir);
            return Ok(Compiled::Program(program));
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
                    cpu: lang.compile_time.unwrap_or(j.compile_time),
                    wall: lang.compile_time.unwrap_or(j.compile_time) * 2,
                    memory: lang.compile_memory.unwrap_or(j.compile_memory.bytes()),
                    output: 8 << 20,
                    processes: j.compile_processes,
                    file_size: MAX_EXECUTABLE,
                },
            };
            let outcome = self.pool.get()?.run(&spec)?;
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
                return Ok(Compiled::Error(format!("{why}{text}")));
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
        touch(&dir);
        evict(&self.cache, self.config.judge.cache_size.bytes(), &dir);
        Ok(Compiled::Program(program))
    }

    /// Compiles a file of a problem package (solution, generator, validator, checker).
    pub fn compile_file(&self, path: &Path) -> Result<Compiled, JudgeError> {
        let source = std::fs::read(path).map_err(io_err(format!("read {}", path.display())))?;
        let language = self.detect_language(path, &source).ok_or_else(|| {
            JudgeError::BadSubmission(format!(
                "{}: unknown language (by extension)",
                path.display()
            ))
        })?;
        self.compile(&Submission { language, source })
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
    h.finalize().iter().map(|b| format!("{b:02x}")).collect()
}

/// Programs used this recently are never evicted: a submission being judged keeps its program.
const EVICTION_GRACE: std::time::Duration = std::time::Duration::from_secs(600);

/// Marks a cached program as just used (its folder's modification time).
fn touch(dir: &Path) {
    if let Ok(f) = std::fs::File::open(dir) {
        let _ = f.set_modified(std::time::SystemTime::now());
    }
}

/// Bytes of the files under `dir`.
fn tree_size(dir: &Path) -> u64 {
    let mut total = 0;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            match e.metadata() {
                Ok(m) if m.is_dir() => stack.push(e.path()),
                Ok(m) => total += m.len(),
                Err(_) => {}
            }
        }
    }
    total
}

/// Removes the least recently used programs of the cache until it holds at most `limit` bytes,
/// never `keep` (just stored) nor one used within [`EVICTION_GRACE`].
fn evict(cache: &Path, limit: u64, keep: &Path) {
    let mut entries: Vec<(std::time::SystemTime, u64, std::path::PathBuf)> =
        std::fs::read_dir(cache)
            .into_iter()
            .flatten()
            .flatten()
            .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
            .map(|e| {
                let used = e
                    .metadata()
                    .and_then(|m| m.modified())
                    .unwrap_or(std::time::UNIX_EPOCH);
                (used, tree_size(&e.path()), e.path())
            })
            .collect();
    let mut total: u64 = entries.iter().map(|(_, size, _)| size).sum();
    if total <= limit {
        return;
    }
    entries.sort();
    let now = std::time::SystemTime::now();
    for (used, size, path) in entries {
        if total <= limit {
            break;
        }
        let recent = now
            .duration_since(used)
            .map_or(true, |age| age < EVICTION_GRACE);
        if path == keep || recent {
            continue;
        }
        if std::fs::remove_dir_all(&path).is_ok() {
            total -= size;
        }
    }
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
            crate::lang::resolve_language("c", &config)
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
