//! checktestdata (`.ctd`) input validators: a script is converted at import time into a
//! standalone Python program (exit 42 valid, 43 invalid) by the `checktestdata` package from PyPI
//! (`python3 -m checktestdata --convert`), a maintained implementation of the language, and that
//! program is the package's validator, which runs in the sandbox like every validator.
//!
//! The script is untrusted text and the converter is a parser of it, so the conversion runs **in
//! the sandbox** too, as the judge's Python profile: the converter's own files are copied from
//! the host's installation (found by asking the host's `python3` where `import checktestdata`
//! comes from, which reads no package file) into a program folder bound read-only at `/prog`,
//! beside a driver that runs the module as `python3 -m` would; the script is copied into the box,
//! and the converted program is the one file collected from it. The run has the limits of
//! [`limits`]: a script that makes the converter run away, or a converter made to do anything
//! else, sees only the box.

use std::path::Path;
use std::time::Duration;

use crate::files::{read_text, write_file};
use crate::{io_err, ImportError};
use ojd_judge::{Judge, Pin, Program, ProgramRun};

/// The largest checktestdata script converted (real ones are a few KiB).
pub(crate) const MAX_BYTES: u64 = 1 << 20;

/// The driver of the conversion in the sandbox: `python3 -m checktestdata --convert OUT IN`, with
/// the converter's copy in `/prog` first on the module path.
const DRIVER: &str = "\
import runpy, sys
sys.path.insert(0, \"/prog\")
sys.argv = [\"checktestdata\", \"--convert\", \"validator.py\", \"validator.ctd\"]
runpy.run_module(\"checktestdata\", run_name=\"__main__\", alter_sys=True)
";

/// The limits of one conversion: CPU and wall time, memory, and the converted program's size.
pub(crate) fn limits(judge: &Judge) -> ojd_sandbox::Limits {
    ojd_sandbox::Limits {
        cpu: Duration::from_secs(30),
        wall: Duration::from_secs(60),
        memory: 1 << 30,
        output: 16 << 20,
        processes: judge.config.judge.processes,
        file_size: 16 << 20,
    }
}

/// Converts the script `ctd` into `out/<stem>.py` and returns that name; `None` with a warning
/// when this host has no checktestdata (or no Python) to convert it with. A script the converter
/// refuses, or a conversion that ends by a limit, is an error naming the file.
pub(crate) fn convert(
    judge: Option<&Judge>,
    ctd: &Path,
    out: &Path,
    stem: &str,
    warnings: &mut Vec<String>,
) -> Result<Option<String>, ImportError> {
    let size = std::fs::metadata(ctd)
        .map_err(io_err(format!("read {}", ctd.display())))?
        .len();
    if size > MAX_BYTES {
        return Err(ImportError::Invalid {
            file: ctd.display().to_string(),
            message: format!(
                "a checktestdata script of {size} bytes: refused (at most {MAX_BYTES})"
            ),
        });
    }
    let script = read_text(ctd)?;
    let Some(judge) = judge else {
        return Err(ImportError::Run(format!(
            "{}: a checktestdata script: converting it needs the sandbox",
            ctd.display()
        )));
    };
    let python = match judge.language("python") {
        Ok(l) => l,
        Err(e) => {
            warnings.push(format!(
                "{}: a checktestdata script, but the judge's Python does not run here ({e}); skipped, so it checks no input",
                ctd.display()
            ));
            return Ok(None);
        }
    };
    let Some(package) = installed_package()? else {
        warnings.push(format!(
            "{}: a checktestdata script, but the checktestdata package is not installed (pip install checktestdata); skipped, so it checks no input",
            ctd.display()
        ));
        return Ok(None);
    };
    let run_err = |e: ojd_judge::JudgeError| {
        ImportError::Run(format!(
            "{}: converting the checktestdata script: {e}",
            ctd.display()
        ))
    };
    let work = judge.fresh_dir("checktestdata").map_err(run_err)?;
    let result = convert_in(judge, python, &package, &script, &work, ctd);
    let _ = std::fs::remove_dir_all(&work);
    let program = result?;
    let name = format!("{stem}.py");
    write_file(&out.join(&name), &program)?;
    Ok(Some(name))
}

/// The conversion's run in `work` (see the module documentation): the converted program.
fn convert_in(
    judge: &Judge,
    python: &ojd_judge::Language,
    package: &Path,
    script: &str,
    work: &Path,
    ctd: &Path,
) -> Result<Vec<u8>, ImportError> {
    let prog = work.join("prog");
    copy_package(package, &prog.join("checktestdata"))?;
    let w = |path: &Path, data: &[u8]| {
        std::fs::write(path, data).map_err(io_err(format!("write {}", path.display())))
    };
    w(&prog.join(&python.source), DRIVER.as_bytes())?;
    let (src, py, stdout, stderr) = (
        work.join("validator.ctd"),
        work.join("validator.py"),
        work.join("stdout"),
        work.join("stderr"),
    );
    w(&src, script.as_bytes())?;
    let program = Program {
        dir: prog,
        run: python.run.clone(),
        time_factor: 1.0,
        memory_extra: 0,
        profile: python.profile.clone(),
        pin: Pin::default(),
    };
    let limits = limits(judge);
    let outcome = judge
        .execute(&ProgramRun {
            program: &program,
            args: &[],
            stdin: None,
            stdout: &stdout,
            stderr: Some(&stderr),
            box_files: vec![(src, "validator.ctd".into())],
            collect: vec![("validator.py".into(), py.clone())],
            limits: limits.clone(),
        })
        .map_err(|e| {
            ImportError::Run(format!(
                "{}: converting the checktestdata script: {e}",
                ctd.display()
            ))
        })?;
    let err = ojd_judge::read_capped(&stderr, 64 << 10);
    let said = ojd_judge::checker_message(&err);
    if let Some((_, how)) = ojd_judge::classify(&outcome, &limits) {
        if outcome.exec_error.is_some() {
            return Err(ImportError::Run(format!(
                "{}: the checktestdata converter did not start in the sandbox: {how}",
                ctd.display()
            )));
        }
        let said = if said.is_empty() {
            String::new()
        } else {
            format!("; it said: {said}")
        };
        return Err(ImportError::Invalid {
            file: ctd.display().to_string(),
            message: match outcome.killed_by {
                Some(_) => {
                    format!("checktestdata's conversion of this script was stopped: {how}; refused")
                }
                None => format!("not a checktestdata script checktestdata can read ({how}){said}"),
            },
        });
    }
    if !py.is_file() {
        return Err(ImportError::Invalid {
            file: ctd.display().to_string(),
            message: "checktestdata wrote no program for this script".into(),
        });
    }
    std::fs::read(&py).map_err(io_err(format!("read {}", py.display())))
}

/// Where the host's `python3` imports `checktestdata` from (its package folder); `None` when it
/// is not installed or there is no `python3`. Only the module's location is asked: no script is
/// read on the host.
fn installed_package() -> Result<Option<std::path::PathBuf>, ImportError> {
    use wait_timeout::ChildExt;
    let child = std::process::Command::new("python3")
        .args([
            "-c",
            "import os, checktestdata; print(os.path.dirname(os.path.abspath(checktestdata.__file__)))",
        ])
        .current_dir("/")
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn();
    let Ok(mut child) = child else {
        return Ok(None);
    };
    let status = child
        .wait_timeout(Duration::from_secs(30))
        .map_err(io_err("ask python3 where checktestdata is"))?;
    let Some(status) = status else {
        let _ = child.kill();
        let _ = child.wait();
        return Ok(None);
    };
    let mut text = String::new();
    if let Some(mut o) = child.stdout.take() {
        use std::io::Read;
        let _ = o.read_to_string(&mut text);
    }
    let dir = std::path::PathBuf::from(text.trim());
    Ok((status.success() && dir.join("__main__.py").is_file()).then_some(dir))
}

/// Copies the converter's Python files (regular files, not links) from `from` to `to`.
fn copy_package(from: &Path, to: &Path) -> Result<(), ImportError> {
    std::fs::create_dir_all(to).map_err(io_err(format!("create {}", to.display())))?;
    let entries = std::fs::read_dir(from).map_err(io_err(format!("read {}", from.display())))?;
    for e in entries.flatten() {
        let path = e.path();
        let is_py = path.extension().is_some_and(|x| x == "py");
        let regular = std::fs::symlink_metadata(&path).is_ok_and(|m| m.file_type().is_file());
        if is_py && regular {
            let dest = to.join(e.file_name());
            std::fs::copy(&path, &dest).map_err(io_err(format!("copy {}", path.display())))?;
        }
    }
    Ok(())
}
