//! The generators' programs, compiled and run in the sandbox, and the scratch copy of the
//! package they write into.

use std::path::Path;

use crate::files::{copy_raw, entries};
use crate::ImportError;
use ojd_judge::{Compiled, Judge, Program, ProgramRun};

fn sandbox_failure(what: &str, e: impl std::fmt::Display) -> ImportError {
    ImportError::Run(format!("{what}: {e}"))
}

/// Compiles a program of the package for the generators.
pub(super) fn compile(judge: &Judge, file: &Path) -> Result<Program, ImportError> {
    // A file of the package only: a link leading outside it is refused before it is read.
    crate::files::read_source(file)?;
    let options: Vec<String> = judge
        .detect_language(file, &[])
        .and_then(|l| super::super::kattis_options(&l))
        .unwrap_or_default()
        .iter()
        .map(|o| o.to_string())
        .collect();
    match judge
        .compile_file_with(file, &options)
        .map_err(|e| sandbox_failure(&file.display().to_string(), e))?
    {
        Compiled::Program(p) => Ok(p),
        Compiled::Error(message) => Err(ImportError::Invalid {
            file: file.display().to_string(),
            message: format!("does not compile: {message}"),
        }),
    }
}

/// Runs `program` in the sandbox: `stdin` in, standard output into `out`.
pub(super) fn run(
    judge: &Judge,
    program: &Program,
    args: &[String],
    stdin: Option<&Path>,
    out: &Path,
    what: &str,
) -> Result<(), ImportError> {
    let limits = ojd_sandbox::Limits {
        // BAPCtools' own default for a generator (`generator_time`).
        cpu: std::time::Duration::from_secs(60),
        wall: std::time::Duration::from_secs(120),
        memory: 2 << 30,
        output: 256 << 20,
        processes: 16,
        file_size: 256 << 20,
    };
    let err = out.with_extension("err");
    let outcome = judge
        .execute(&ProgramRun {
            program,
            args,
            stdin,
            stdout: out,
            stderr: Some(&err),
            box_files: vec![],
            collect: vec![],
            limits,
        })
        .map_err(|e| sandbox_failure(what, e))?;
    let message = ojd_judge::read_capped(&err, 1024);
    let _ = std::fs::remove_file(&err);
    if !outcome.success() {
        return Err(ImportError::Invalid {
            file: what.to_string(),
            message: format!("failed ({:?}): {}", outcome.termination, message.trim()),
        });
    }
    Ok(())
}

/// Copies the package `dir` into `to` (its files only, each read as the package's own).
pub(super) fn copy_package(dir: &Path, to: &Path) -> Result<(), ImportError> {
    for e in entries(dir) {
        let dest = to.join(e.file_name().unwrap_or_default());
        if e.is_dir() {
            copy_package(&e, &dest)?;
        } else {
            copy_raw(&e, &dest)?;
        }
    }
    Ok(())
}
