//! A Kattis package's submissions: `submissions/<verdict>/` copied into ojd's verdict folders
//! ([`submissions`]), the first accepted one (C++, C or Rust preferred) named the reference; and,
//! for a package without a time limit, the slowest accepted run the multiplier rule starts from
//! ([`slowest_accepted`]).

use std::path::Path;
use std::time::Duration;

use crate::files::{copy_text, entries, files_in, safe_name};
use crate::{io_err, ImportError};
use ojd_judge::config::Config;

/// The largest CPU time of any accepted submission on any test, judged with a generous limit,
/// and the accepted submissions left out because they do not compile here.
pub(super) fn slowest_accepted(
    judge: &ojd_judge::judge::Judge,
    pkg: &Path,
) -> Result<(Duration, Vec<String>), ImportError> {
    let mut skipped = Vec::new();
    let problem =
        ojd_judge::problem::Problem::load(pkg).map_err(|e| ImportError::Run(e.to_string()))?;
    let mut slowest = Duration::ZERO;
    for f in files_in(&pkg.join("submissions/accepted")) {
        let source = std::fs::read(&f).map_err(io_err(format!("read {}", f.display())))?;
        let Some(language) = judge.detect_language(&f, &source) else {
            continue;
        };
        let sub = ojd_judge::judge::Submission { language, source };
        let cancel = std::sync::atomic::AtomicBool::new(false);
        let report = match judge.judge(&problem, &sub, &mut |_| {}, &cancel) {
            Ok(r) => r,
            // A language whose toolchain this host lacks: not ours to time either.
            Err(
                ojd_judge::judge::JudgeError::LanguageUnavailable { .. }
                | ojd_judge::judge::JudgeError::UnknownLanguage { .. },
            ) => {
                skipped.push(f.strip_prefix(pkg).unwrap_or(&f).display().to_string());
                continue;
            }
            Err(e) => return Err(ImportError::Run(format!("{}: {e}", f.display()))),
        };
        if report.verdict == ojd_judge::verdict::Verdict::CompileError {
            // Not ours to time (say, Python 2 under a Python 3 profile); verify shows it.
            skipped.push(f.strip_prefix(pkg).unwrap_or(&f).display().to_string());
            continue;
        }
        if report.verdict != ojd_judge::verdict::Verdict::Accepted {
            return Err(ImportError::Run(format!(
                "{}: an accepted submission got {} with a 10 s limit while timing it",
                f.display(),
                report.verdict
            )));
        }
        slowest = slowest.max(Duration::from_millis(report.max_cpu_ms));
    }
    Ok((slowest, skipped))
}

/// Kattis submission folders and the ojd folder each maps to.
fn verdict_folder(name: &str) -> Option<&'static str> {
    Some(match name {
        "accepted" => "accepted",
        "wrong_answer" => "wrong_answer",
        "time_limit_exceeded" => "time_limit_exceeded",
        "run_time_error" | "runtime_error" => "runtime_error",
        "memory_limit_exceeded" => "memory_limit_exceeded",
        "output_limit_exceeded" => "output_limit_exceeded",
        "compile_error" => "compile_error",
        _ => return None,
    })
}

pub(super) fn submissions(
    config: &Config,
    dir: &Path,
    out: &Path,
    warnings: &mut Vec<String>,
) -> Result<(usize, Option<String>), ImportError> {
    let root = dir.join("submissions");
    let mut count = 0;
    let mut reference: Option<(u8, String)> = None;
    if root.join("submissions.yaml").is_file() {
        warnings.push(format!(
            "{}: expectations beyond the folder a submission is in are not used",
            root.join("submissions.yaml").display()
        ));
    }
    for folder in entries(&root).into_iter().filter(|p| p.is_dir()) {
        let name = folder
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let Some(target) = verdict_folder(&name) else {
            warnings.push(format!(
                "{}: ojd has no verdict folder for {name:?}; skipped",
                folder.display()
            ));
            continue;
        };
        for f in entries(&folder) {
            if f.is_dir() {
                warnings.push(format!(
                    "{}: a submission of several files is not supported; skipped",
                    f.display()
                ));
                continue;
            }
            if config.language_for(&f).is_none() {
                warnings.push(format!("{}: no language profile; skipped", f.display()));
                continue;
            }
            let file = safe_name(&f.file_name().unwrap_or_default().to_string_lossy());
            let rel = format!("submissions/{target}/{file}");
            copy_text(&f, &out.join(&rel))?;
            count += 1;
            if target == "accepted" {
                let rank = match f.extension().and_then(|e| e.to_str()) {
                    Some("cc" | "cpp" | "cxx") => 0,
                    Some("c") => 1,
                    Some("rs") => 2,
                    _ => 3,
                };
                if reference.as_ref().is_none_or(|(r, _)| rank < *r) {
                    reference = Some((rank, rel));
                }
            }
        }
    }
    Ok((count, reference.map(|(_, r)| r)))
}
