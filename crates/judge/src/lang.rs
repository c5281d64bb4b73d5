//! Language profiles, as configured ([`LanguageConfig`], a `[languages.<id>]` table of
//! `config.toml`) and as resolved on this host ([`Language`]): the configured compile and run
//! commands with the compiler found (on PATH, or through a sysroot query such as `rustc --print
//! sysroot`, since rustup keeps toolchains outside /usr), and the host folders the sandbox must
//! show for it.
//!
//! Commands hold placeholders filled per submission and per run: `{class}` (the Java entry
//! class, see `java.rs`) in `source` and `compile`; `{memory_mib}` (the problem's memory limit)
//! and `{heap_mib}` (that limit less the profile's `heap_margin`, at least half the limit) in
//! `run`. Detection follows Kattis: by extension, and among profiles sharing one (Python 3,
//! Python 2, PyPy) by a word of the `#!` first line.

pub(crate) mod java;
pub(crate) mod several;

pub use self::several::SeveralFiles;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::{Deserialize, Serialize};

use crate::units::ByteSize;

/// How `{class}` is found in a source.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize, Serialize)]
pub enum EntryPoint {
    /// No `{class}` placeholder.
    #[default]
    #[serde(rename = "")]
    None,
    /// The public top-level class (else the class declaring `main`, else `Main`).
    #[serde(rename = "java")]
    Java,
}

/// A language profile as configured: one `[languages.<id>]` table of `config.toml`.
#[derive(Clone, Debug, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct LanguageConfig {
    /// The language's display name, as shown to students ("C++ (g++, C++17)").
    pub name: String,
    /// File extensions (without the dot) that select this language for a submitted file.
    pub extensions: Vec<String>,
    /// The name the source is saved under in the box ("main.cpp").
    pub source: String,
    /// The compile command and its arguments; empty: nothing to compile (an interpreted language).
    #[serde(default)]
    pub compile: Vec<String>,
    #[serde(default)]
    pub(crate) sysroot_query: Vec<String>,
    /// The program the run command starts, looked up on the host's PATH.
    pub executable: String,
    /// The command running the compiled program or the source, with `{...}` placeholders.
    pub run: Vec<String>,
    /// Factor applied to the problem's time limit for this language (default 1.0).
    #[serde(default = "one")]
    pub time_factor: f64,
    /// Among profiles sharing an extension, a word in a `#!` first line that selects this one.
    #[serde(default)]
    pub(crate) shebang: String,
    /// Host programs that must exist for the language to be available (besides the compiler).
    #[serde(default)]
    pub(crate) requires: Vec<String>,
    /// Host folders shown read-only in the sandbox (missing ones are ignored).
    #[serde(default)]
    pub(crate) readable: Vec<PathBuf>,
    /// Host command printing the toolchain's version (stdout or stderr), for doctor and the API.
    #[serde(default)]
    pub version: Vec<String>,
    /// Per-language compile limits; absent: `[judge] compile_time` / `compile_memory`.
    #[serde(default, with = "crate::units::opt_duration_text")]
    pub(crate) compile_time: Option<Duration>,
    #[serde(default)]
    pub(crate) compile_memory: Option<ByteSize>,
    /// Added to a problem's memory limit for this language (a runtime's own memory, e.g. a JVM's).
    #[serde(default)]
    pub memory_extra: ByteSize,
    /// What `{heap_mib}` leaves of the memory limit for a runtime's own memory.
    #[serde(default)]
    pub(crate) heap_margin: ByteSize,
    /// How `{class}` is found in the source: "" (not used) or "java" (the public class).
    #[serde(default)]
    pub entry_point: EntryPoint,
    /// Lines on stderr meaning the runtime ran out of its memory: the verdict is MLE, not RE.
    #[serde(default)]
    pub(crate) memory_errors: Vec<String>,
    /// A tiny program printing `ok`, compiled and run by `ojd doctor`.
    #[serde(default)]
    pub(crate) hello: String,
    /// How a submission of several files is compiled: "together" (every source in one
    /// command), "entry" (every file kept, the entry file run) or "" (refused); see
    /// `lang/several.rs`.
    #[serde(default)]
    pub several_files: SeveralFiles,
}

fn one() -> f64 {
    1.0
}

/// What a run of a compiled program needs besides its command: how to size a runtime's heap
/// and how to recognise the runtime's own out-of-memory report.
#[derive(Clone, Debug, Default)]
pub struct RunProfile {
    pub(crate) heap_margin: u64,
    pub(crate) memory_errors: Vec<String>,
}

/// A language profile whose commands were found on this host.
#[derive(Clone, Debug)]
pub struct Language {
    /// The language's id (its `[languages.<id>]` key).
    pub id: String,
    pub(crate) name: String,
    /// The name the source is saved under in the box.
    pub source: String,
    /// Compile command with an absolute program path; empty: nothing to compile.
    pub compile: Vec<String>,
    /// Which compiler binary that path is today (`compiler_identity`): part of the compile
    /// cache's key, so that an upgraded compiler does not reuse programs its predecessor built.
    pub compiler_id: String,
    pub(crate) executable: String,
    /// The command running the program, with placeholders resolved at run time.
    pub run: Vec<String>,
    /// Factor applied to the problem's time limit for this language.
    pub time_factor: f64,
    /// Bytes added to a problem's memory limit for this language.
    pub memory_extra: u64,
    pub(crate) compile_time: Option<Duration>,
    pub(crate) compile_memory: Option<u64>,
    pub(crate) entry_point: EntryPoint,
    /// What a run needs to size a runtime's heap and read its out-of-memory report.
    pub profile: RunProfile,
    /// The extensions of its sources (a submission of several files compiles those).
    pub(crate) extensions: Vec<String>,
    pub(crate) several_files: SeveralFiles,
}

impl Language {
    /// The profile with `{class}` filled in from `source` (unchanged for other languages).
    pub(crate) fn for_source(&self, source: &[u8]) -> Language {
        let mut l = self.clone();
        if self.entry_point == EntryPoint::Java {
            let class = java::main_class(&String::from_utf8_lossy(source));
            let simple = java::simple_name(&class).to_string();
            l.source = l.source.replace("{class}", &simple);
            for a in &mut l.compile {
                *a = a.replace("{class}", &class);
            }
        }
        l
    }
}

impl Language {
    /// The profile with a problem's `[compile]` options appended to its compile command (a
    /// profile without a compile step is unchanged). Appended, not substituted: gcc and g++ take
    /// the last `-std=` and `-O` they are given, so the problem's standard wins while the
    /// profile's output name and libraries stay.
    pub(crate) fn with_options(&self, options: &[String]) -> Language {
        let mut l = self.clone();
        if !l.compile.is_empty() {
            l.compile.extend(options.iter().cloned());
        }
        l
    }
}

/// The run command with `{memory_mib}` and `{heap_mib}` filled in for a memory limit.
pub fn expand_run(run: &[String], profile: &RunProfile, memory: u64) -> Vec<String> {
    let mib = (memory >> 20).max(1);
    let heap = heap_mib(memory, profile.heap_margin);
    run.iter()
        .map(|a| {
            a.replace("{memory_mib}", &mib.to_string())
                .replace("{heap_mib}", &heap.to_string())
        })
        .collect()
}

/// The limit less the margin, but at least half the limit (a tiny limit still runs something).
fn heap_mib(memory: u64, margin: u64) -> u64 {
    let mib = (memory >> 20).max(1);
    let margin = margin.div_ceil(1 << 20);
    mib.saturating_sub(margin).max(mib / 2).max(1)
}

/// The runtime's own out-of-memory line in `stderr`, if any (the verdict is then MLE).
pub(crate) fn out_of_memory<'a>(profile: &RunProfile, stderr: &'a str) -> Option<&'a str> {
    stderr
        .lines()
        .find(|l| profile.memory_errors.iter().any(|m| l.contains(m.as_str())))
        .map(str::trim)
}

/// The line of a failed run's stderr that says what went wrong: the last line that is not
/// indented (a Java stack trace ends with indented `at ...` frames after the exception's line;
/// a Python traceback ends with the exception), else the last non-empty line.
pub(crate) fn error_line(stderr: &str) -> Option<&str> {
    let lines = || stderr.lines().rev().filter(|l| !l.trim().is_empty());
    lines()
        .find(|l| !l.starts_with([' ', '\t']) && !l.starts_with("..."))
        .or_else(|| lines().next())
        .map(str::trim)
}

/// The language of `path`: the profiles claiming its extension; when several do, the one whose
/// `shebang` word is in a `#!` first line of `head`, else the one without a `shebang`.
pub(crate) fn detect<'a>(
    languages: &'a BTreeMap<String, LanguageConfig>,
    path: &Path,
    head: &[u8],
) -> Option<&'a str> {
    let ext = path.extension()?.to_str()?;
    let claim: Vec<(&String, &LanguageConfig)> = languages
        .iter()
        .filter(|(_, l)| l.extensions.iter().any(|e| e == ext))
        .collect();
    let first = head.split(|&b| b == b'\n').next().unwrap_or_default();
    let first = String::from_utf8_lossy(first);
    let by_shebang = first.starts_with("#!").then(|| {
        claim
            .iter()
            .filter(|(_, l)| !l.shebang.is_empty() && first.contains(l.shebang.as_str()))
            .max_by_key(|(_, l)| l.shebang.len())
    });
    by_shebang
        .flatten()
        .or_else(|| claim.iter().find(|(_, l)| l.shebang.is_empty()))
        .or(claim.first())
        .map(|(id, _)| id.as_str())
}

/// Why a language's toolchain is unavailable on this host: its resolution
/// (`resolve_language`) or its version query failed. A host's trouble (a probe that timed out
/// on a loaded host) as much as a missing program: the judge probes a failed language again
/// later (`Judge::recheck_languages`), and a daemon claims none of its submissions meanwhile.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ToolchainError {
    /// A host command (a sysroot or version query) could not be started.
    #[error("`{command}` failed to start: {reason}")]
    Start {
        /// The command, as configured.
        command: String,
        /// Why (the operating system's message).
        reason: String,
    },
    /// A host command ended with a failure status.
    #[error("`{command}` failed: {status}")]
    Failed {
        /// The command, as configured.
        command: String,
        /// How it ended ("exit status: 1").
        status: String,
    },
    /// A host command did not end within the probe's time (`[judge] toolchain_timeout`): it was
    /// killed. Most often the host's load, not the toolchain.
    #[error("`{command}` timed out after {} s", .after.as_secs_f64())]
    TimedOut {
        /// The command, as configured.
        command: String,
        /// How long it was given.
        after: Duration,
    },
    /// Waiting for or reading a host command failed.
    #[error("`{command}`: {reason}")]
    Io {
        /// The command, as configured.
        command: String,
        /// The operating system's message.
        reason: String,
    },
    /// A host command printed nothing usable.
    #[error("`{command}` printed nothing")]
    Silent {
        /// The command, as configured.
        command: String,
    },
    /// A program the profile names (its compiler, its interpreter, a required program) is not
    /// on this host.
    #[error("{what} not found{} (command: {command})", on_path_text(*.on_path))]
    Missing {
        /// The program, as named or resolved ("compiler `g++`", "interpreter /usr/bin/pypy3").
        what: String,
        /// Whether it was looked up on PATH.
        on_path: bool,
        /// The profile's command that names it.
        command: String,
    },
    /// The profile has no `version` command.
    #[error("no version command configured")]
    NoVersionCommand,
}

fn on_path_text(on_path: bool) -> &'static str {
    if on_path {
        " on PATH"
    } else {
        ""
    }
}

/// How long the tests let a host command of a language profile take (the configuration's
/// default, `[judge] toolchain_timeout`).
#[cfg(test)]
pub(crate) const PROBE_TIMEOUT: Duration = Duration::from_secs(30);

/// Runs `cmd` on the host (trusted: configuration only, `timeout` at most) and returns its
/// trimmed stdout.
fn host_query(cmd: &[String], timeout: Duration) -> Result<String, ToolchainError> {
    let text = host_command(cmd, timeout, false)?;
    Ok(text.trim().to_string())
}

/// Runs `cmd` on the host (trusted: configuration only, `timeout` at most) and returns what it
/// printed on stdout, and with `stderr` on stderr too (`java -version` writes there). A
/// command that fails is an error only without `stderr` (a version query's status is not
/// looked at).
fn host_command(cmd: &[String], timeout: Duration, stderr: bool) -> Result<String, ToolchainError> {
    use std::io::{Read, Seek};
    use wait_timeout::ChildExt;
    let command = cmd.join(" ");
    let io = |e: std::io::Error| ToolchainError::Io {
        command: command.clone(),
        reason: e.to_string(),
    };
    let Some(program) = cmd.first() else {
        return Err(ToolchainError::Silent { command });
    };
    // Into a file, not a pipe: a command printing more than a pipe holds would block and time
    // out for nothing.
    let mut out = tempfile::tempfile().map_err(io)?;
    let err = if stderr {
        std::process::Stdio::from(out.try_clone().map_err(io)?)
    } else {
        std::process::Stdio::null()
    };
    let mut child = std::process::Command::new(program)
        .args(&cmd[1..])
        .stdin(std::process::Stdio::null())
        .stdout(out.try_clone().map_err(io)?)
        .stderr(err)
        .spawn()
        .map_err(|e| ToolchainError::Start {
            command: command.clone(),
            reason: e.to_string(),
        })?;
    match child.wait_timeout(timeout).map_err(io)? {
        Some(st) if st.success() || stderr => {}
        Some(st) => {
            return Err(ToolchainError::Failed {
                command,
                status: st.to_string(),
            })
        }
        None => {
            let _ = child.kill();
            let _ = child.wait();
            return Err(ToolchainError::TimedOut {
                command,
                after: timeout,
            });
        }
    }
    let mut text = String::new();
    out.rewind().map_err(io)?;
    out.read_to_string(&mut text).map_err(io)?;
    Ok(text)
}

fn find_on_path(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")
        .map(|p| {
            std::env::split_paths(&p)
                .map(|d| d.join(name))
                .collect::<Vec<_>>()
        })
        .unwrap_or_default()
        .into_iter()
        .find(|p| p.is_file())
}

/// A compiler binary's identity: the file its path resolves to (through symlinks such as
/// `g++` → `x86_64-linux-gnu-g++-12`), its size and its modification time, which a package
/// upgrade changes. Cheap (no process is started); empty when the file cannot be read.
pub(crate) fn compiler_identity(path: &Path) -> String {
    let real = path.canonicalize().unwrap_or_else(|_| path.to_path_buf());
    match std::fs::metadata(&real) {
        Ok(m) => {
            let modified = m
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            format!("{} {} {modified}", real.display(), m.len())
        }
        Err(_) => String::new(),
    }
}

/// Resolves a language's commands, each host command given `timeout`; returns it and the host
/// folders the sandbox must show.
pub(crate) fn resolve_language(
    id: &str,
    l: &LanguageConfig,
    timeout: Duration,
) -> Result<(Language, Vec<PathBuf>), ToolchainError> {
    let mut ro = Vec::new();
    let mut compile = l.compile.clone();
    if let Some(first) = compile.first().cloned() {
        let resolved = if !l.sysroot_query.is_empty() {
            let sysroot = PathBuf::from(host_query(&l.sysroot_query, timeout)?);
            let name = Path::new(&first)
                .file_name()
                .map(|n| n.to_os_string())
                .unwrap_or_default();
            ro.push(sysroot.clone());
            sysroot.join("bin").join(name)
        } else if first.contains('/') {
            PathBuf::from(&first)
        } else {
            find_on_path(&first).ok_or_else(|| ToolchainError::Missing {
                what: format!("compiler `{first}`"),
                on_path: true,
                command: l.compile.join(" "),
            })?
        };
        if !resolved.is_file() {
            return Err(ToolchainError::Missing {
                what: format!("compiler {}", resolved.display()),
                on_path: false,
                command: l.compile.join(" "),
            });
        }
        if !resolved.starts_with("/usr") && !ro.iter().any(|r| resolved.starts_with(r)) {
            if let Some(parent) = resolved
                .canonicalize()
                .ok()
                .and_then(|p| p.parent().map(Path::to_path_buf))
            {
                ro.push(parent);
            }
        }
        compile[0] = resolved.to_string_lossy().into_owned();
    }
    let compiler_id = compile
        .first()
        .map(|c| compiler_identity(Path::new(c)))
        .unwrap_or_default();
    for program in &l.requires {
        let found = if program.contains('/') {
            Path::new(program).is_file().then(|| PathBuf::from(program))
        } else {
            find_on_path(program)
        };
        if found.is_none() {
            return Err(ToolchainError::Missing {
                what: format!("`{program}`"),
                on_path: !program.contains('/'),
                command: format!("requires = {:?}", l.requires),
            });
        }
    }
    let mut run = l.run.clone();
    if let Some(first) = run.first().cloned() {
        if first.starts_with('/') && !first.starts_with("/prog/") && !Path::new(&first).is_file() {
            return Err(ToolchainError::Missing {
                what: format!("interpreter {first}"),
                on_path: false,
                command: l.run.join(" "),
            });
        }
        if !first.contains('/') {
            run[0] = find_on_path(&first)
                .ok_or_else(|| ToolchainError::Missing {
                    what: format!("`{first}`"),
                    on_path: true,
                    command: l.run.join(" "),
                })?
                .to_string_lossy()
                .into_owned();
        }
    }
    ro.extend(l.readable.iter().filter(|p| p.exists()).cloned());
    Ok((
        Language {
            id: id.to_string(),
            name: l.name.clone(),
            source: l.source.clone(),
            compile,
            compiler_id,
            executable: l.executable.clone(),
            run,
            time_factor: l.time_factor,
            memory_extra: l.memory_extra.bytes(),
            compile_time: l.compile_time,
            compile_memory: l.compile_memory.map(|m| m.bytes()),
            entry_point: l.entry_point,
            profile: RunProfile {
                heap_margin: l.heap_margin.bytes(),
                memory_errors: l.memory_errors.clone(),
            },
            extensions: l.extensions.clone(),
            several_files: l.several_files,
        },
        ro,
    ))
}

/// The toolchain's version as its `version` command prints it (first meaningful line).
pub(crate) fn version(l: &LanguageConfig, timeout: Duration) -> Result<String, ToolchainError> {
    if l.version.is_empty() {
        return Err(ToolchainError::NoVersionCommand);
    }
    let text = host_command(&l.version, timeout, true)?;
    text.lines()
        .map(str::trim)
        .find(|line| !line.is_empty() && !line.to_ascii_lowercase().contains("warning"))
        .map(str::to_string)
        .ok_or_else(|| ToolchainError::Silent {
            command: l.version.join(" "),
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn error_lines() {
        let java = "Exception in thread \"main\" java.lang.OutOfMemoryError: unable to create native thread: possibly out of memory or process/resource limits reached\n\tat java.base/java.lang.Thread.start0(Native Method)\n\tat TooMany.main(TooMany.java:27)\n";
        assert_eq!(
            error_line(java),
            Some("Exception in thread \"main\" java.lang.OutOfMemoryError: unable to create native thread: possibly out of memory or process/resource limits reached")
        );
        let caused = "Exception in thread \"main\" java.lang.RuntimeException: x\n\tat A.b(A.java:1)\nCaused by: java.lang.ArithmeticException: / by zero\n\tat A.c(A.java:2)\n\t... 1 more\n";
        assert_eq!(
            error_line(caused),
            Some("Caused by: java.lang.ArithmeticException: / by zero")
        );
        let python = "Traceback (most recent call last):\n  File \"/prog/main.py\", line 1, in <module>\nZeroDivisionError: division by zero\n";
        assert_eq!(
            error_line(python),
            Some("ZeroDivisionError: division by zero")
        );
        assert_eq!(error_line("  only indented\n\n"), Some("only indented"));
        assert_eq!(error_line("\n"), None);
    }

    #[test]
    fn heap_sizes() {
        let mib = 1u64 << 20;
        assert_eq!(heap_mib(1024 * mib, 64 * mib), 960);
        assert_eq!(
            heap_mib(64 * mib, 48 * mib),
            32,
            "never below half the limit"
        );
        assert_eq!(heap_mib(256 * mib, 0), 256);
        let p = RunProfile {
            heap_margin: 64 * mib,
            memory_errors: vec!["java.lang.OutOfMemoryError: Java heap space".into()],
        };
        let run: Vec<String> = ["java", "-Xmx{heap_mib}m", "-Dlimit={memory_mib}"]
            .iter()
            .map(|s| s.to_string())
            .collect();
        assert_eq!(
            expand_run(&run, &p, 512 * mib),
            ["java", "-Xmx448m", "-Dlimit=512"]
        );
        let err = "Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space\n\tat Main.main(Main.java:3)\n";
        assert_eq!(
            out_of_memory(&p, err),
            Some("Exception in thread \"main\" java.lang.OutOfMemoryError: Java heap space")
        );
        assert_eq!(
            out_of_memory(
                &p,
                "java.lang.OutOfMemoryError: unable to create native thread"
            ),
            None
        );
    }
}
