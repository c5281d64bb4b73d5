//! Checks each language's toolchain as `ojd doctor` reports it: the version its host command
//! prints, and whether the profile's `hello` program compiles and prints `ok` in the sandbox
//! (the same compile and run path as a submission, so a JVM that cannot start under the
//! sandbox's limits shows here, not on the first Java submission).

use std::time::{Duration, Instant};

use crate::judge::{Compiled, Judge, ProgramRun, Submission};
use crate::lang::ToolchainError;
use ojd_sandbox::Limits;

/// What one language's check found.
#[derive(Clone, Debug)]
pub struct ToolchainCheck {
    /// The language's id.
    pub id: String,
    /// The language's display name.
    pub name: String,
    /// The toolchain's version line, or why there is none.
    pub version: Result<String, ToolchainError>,
    /// Whether it works on this host.
    pub status: ToolchainStatus,
}

/// Whether a language works on this host.
#[derive(Clone, Debug)]
pub enum ToolchainStatus {
    /// Its toolchain is missing (or its probe failed): submissions are refused, `ojd verify`
    /// skips them.
    Unavailable(ToolchainError),
    /// The tiny program compiled and printed `ok` in the sandbox.
    Works {
        /// Wall time its compilation took.
        compile: Duration,
        /// Wall time its run took.
        run: Duration,
    },
    /// Installed, but the tiny program failed: every submission would fail the same way.
    Broken(String),
    /// No `hello` program configured: found on the host, not tried in the sandbox.
    Untried,
}

/// Checks every configured language, in id order.
pub fn check_all(judge: &Judge) -> Vec<ToolchainCheck> {
    let timeout = judge.config.judge.toolchain_timeout;
    judge
        .languages()
        .into_iter()
        .map(|(id, resolved)| {
            let config = &judge.config.languages[&id];
            let status = match resolved {
                Err(reason) => ToolchainStatus::Unavailable(reason),
                Ok(_) if config.hello.trim().is_empty() => ToolchainStatus::Untried,
                Ok(_) => probe(judge, &id, &config.hello),
            };
            let version = match &status {
                ToolchainStatus::Unavailable(reason) => Err(reason.clone()),
                _ => crate::lang::version(config, timeout),
            };
            ToolchainCheck {
                id: id.clone(),
                name: config.name.clone(),
                version,
                status,
            }
        })
        .collect()
}

/// Compiles and runs `hello` in the sandbox; it must print `ok`.
fn probe(judge: &Judge, id: &str, hello: &str) -> ToolchainStatus {
    let sub = Submission {
        language: id.to_string(),
        source: hello.as_bytes().to_vec(),
    };
    let started = Instant::now();
    let program = match judge.compile(&sub) {
        Ok(Compiled::Program(p)) => p,
        Ok(Compiled::Error(message)) => {
            return ToolchainStatus::Broken(format!("does not compile: {}", first_line(&message)))
        }
        Err(e) => return ToolchainStatus::Broken(format!("{e}")),
    };
    let compile = started.elapsed();
    let work = match judge.fresh_dir("doctor") {
        Ok(w) => w,
        Err(e) => return ToolchainStatus::Broken(format!("{e}")),
    };
    let (stdout, stderr) = (work.join("stdout"), work.join("stderr"));
    let limits = Limits {
        cpu: Duration::from_secs(10),
        wall: Duration::from_secs(20),
        memory: 256 << 20,
        output: 1 << 20,
        processes: judge.config.judge.processes,
        file_size: 1 << 20,
    };
    let run = ProgramRun {
        program: &program,
        args: &[],
        stdin: None,
        stdout: &stdout,
        stderr: Some(&stderr),
        box_files: vec![],
        collect: vec![],
        limits,
    };
    let outcome = judge.execute(&run);
    let printed = std::fs::read_to_string(&stdout).unwrap_or_default();
    let errors = std::fs::read_to_string(&stderr).unwrap_or_default();
    let _ = std::fs::remove_dir_all(&work);
    match outcome {
        Ok(o) if o.success() && printed.trim() == "ok" => ToolchainStatus::Works {
            compile,
            run: o.wall_time,
        },
        Ok(o) => ToolchainStatus::Broken(format!(
            "the tiny program {} in the sandbox (printed {:?}){}",
            if o.success() { "ran" } else { "failed" },
            first_line(&printed),
            match first_line(&errors) {
                "" => String::new(),
                e => format!("; stderr: {e}"),
            }
        )),
        Err(e) => ToolchainStatus::Broken(format!("{e}")),
    }
}

fn first_line(text: &str) -> &str {
    text.lines()
        .map(str::trim)
        .find(|l| !l.is_empty())
        .unwrap_or("")
}
