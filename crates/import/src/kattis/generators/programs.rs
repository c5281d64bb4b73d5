//! The generators' programs, compiled and run in the sandbox, and the scratch copy of the
//! package they write into. A generator is a file under `generators/`, a folder of files there
//! (one program, as a submission of several files), or a name of the root `generators:` map (its
//! files, the entry point first, compiled as such a folder would be).

use std::path::{Path, PathBuf};

use crate::files::{copy_raw, entries, files_in};
use crate::ImportError;
use ojd_judge::{Compiled, Judge, Program, ProgramRun, SourceFile, Submission};

fn sandbox_failure(what: &str, e: impl std::fmt::Display) -> ImportError {
    ImportError::Run(format!("{what}: {e}"))
}

/// The options Kattis compiles the language `id` with (none for the others).
fn options_for(id: &str) -> Vec<String> {
    super::super::kattis_options(id)
        .unwrap_or_default()
        .iter()
        .map(|o| o.to_string())
        .collect()
}

/// Where a generator's program is: its files (the entry point first where it is named) and the
/// folder name its submission of several files gets (the entry is chosen by it, see
/// `ojd_judge::entry_file`).
pub(super) struct Source {
    /// What the generator is called in errors.
    pub(super) what: String,
    pub(super) folder: String,
    pub(super) files: Vec<PathBuf>,
}

/// The program the command word `name` names: a key of the root `generators:` map first (as
/// BAPCtools looks it up), else a file or folder under `generators/` (or from the package's
/// root, `/...`). `Err` says why there is none.
pub(super) fn source(
    pkg: &Path,
    name: &str,
    map: &[(String, Vec<String>)],
) -> Result<Source, String> {
    let gen_dir = pkg.join("generators");
    if let Some((_, files)) = map.iter().find(|(n, _)| n == name) {
        let files: Vec<PathBuf> = files.iter().map(|f| gen_dir.join(f)).collect();
        let folder = files[0]
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        return Ok(Source {
            what: format!("generators.{name}"),
            folder,
            files,
        });
    }
    if name.split('/').any(|part| part == "..") {
        return Err(format!("{name}: a program under generators/ (no ..)"));
    }
    let path = match name.strip_prefix('/') {
        Some(abs) => pkg.join(abs),
        None => gen_dir.join(name),
    };
    let what = path.display().to_string();
    if path.is_file() {
        return Ok(Source {
            what,
            folder: String::new(),
            files: vec![path],
        });
    }
    if path.is_dir() {
        let files = files_in(&path);
        if files.is_empty() {
            return Err(format!("{name}: an empty generator folder"));
        }
        let folder = path
            .file_name()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        return Ok(Source {
            what,
            folder,
            files,
        });
    }
    Err(format!(
        "{name}: no such generator (a file or folder under generators/, or a key of `generators:`)"
    ))
}

/// Compiles a generator's program: one file as such, several as one submission of several
/// files in the language of its first source that is not a header.
pub(super) fn compile_source(judge: &Judge, src: &Source) -> Result<Program, ImportError> {
    // BAPCtools runs a folder with a `build` or `run` script by those scripts, outside any
    // sandbox's language: a program ojd cannot run, which is the package's to change.
    if let Some(script) = src
        .files
        .iter()
        .find(|f| f.file_name().is_some_and(|n| n == "build" || n == "run"))
    {
        return Err(ImportError::Invalid {
            file: script.display().to_string(),
            message: format!(
                "{}: a generator run by its build/run script, which ojd does not support: write it as a program in a language ojd knows (a source file, or a folder of one language's files)",
                src.what
            ),
        });
    }
    if let [one] = src.files.as_slice() {
        return compile(judge, one);
    }
    let mut files: Vec<SourceFile> = Vec::new();
    let mut language = None;
    for f in &src.files {
        // Files of the package only: a link leading outside it is refused before it is read.
        let (text, _) = crate::files::read_source(f)?;
        let name = f
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if !ojd_judge::plain_name(&name) || files.iter().any(|x| x.name == name) {
            return Err(ImportError::Invalid {
                file: f.display().to_string(),
                message: format!(
                    "{}: not a plain file name, or two files of the generator are named so",
                    src.what
                ),
            });
        }
        if language.is_none() && !super::super::validators::is_header(f) {
            language = judge.detect_language(f, &text);
        }
        files.push(SourceFile { name, text });
    }
    let Some(language) = language else {
        return Err(ImportError::Invalid {
            file: src.what.clone(),
            message: "no source file in a language ojd knows".into(),
        });
    };
    let options = options_for(&language);
    let sub = Submission {
        language,
        source: ojd_judge::encode_bundle(&src.folder, &files),
    };
    match judge
        .compile_submission_with(&sub, &options)
        .map_err(|e| sandbox_failure(&src.what, e))?
    {
        Compiled::Program(p) => Ok(p),
        Compiled::Error(message) => Err(ImportError::Invalid {
            file: src.what.clone(),
            message: format!("does not compile: {message}"),
        }),
    }
}

/// Compiles a program of the package for the generators.
pub(super) fn compile(judge: &Judge, file: &Path) -> Result<Program, ImportError> {
    // A file of the package only: a link leading outside it is refused before it is read.
    let (text, _) = crate::files::read_source(file)?;
    // A program in no language ojd knows is the package's fault, named, never a host fault.
    let Some(language) = judge.detect_language(file, &text) else {
        return Err(ImportError::Invalid {
            file: file.display().to_string(),
            message: "a program in no language ojd knows (by its extension or #! line)".into(),
        });
    };
    let options = options_for(&language);
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

/// Runs `program` in the sandbox: `stdin` in, standard output into `out`, and the files of
/// `collect` it wrote in its folder copied out (a file it did not write is not).
pub(super) fn run(
    judge: &Judge,
    program: &Program,
    args: &[String],
    stdin: Option<&Path>,
    out: &Path,
    collect: Vec<(String, PathBuf)>,
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
            collect,
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
