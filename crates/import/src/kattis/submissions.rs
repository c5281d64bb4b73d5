//! A Kattis package's submissions: `submissions/<verdict>/` copied into ojd's verdict folders
//! ([`submissions`]), files and folders of several sources alike (a folder stays a folder: a
//! submission of several files, `several_files`), the first accepted file (C++, C or Rust
//! preferred) named the reference; and,
//! for a package without a time limit, the slowest accepted run the multiplier rule starts from
//! ([`slowest_accepted`]).

use std::path::Path;
use std::time::Duration;

use crate::files::{copy_text, entries, safe_name};
use crate::ImportError;
use ojd_config::Config;

/// The slowest accepted run the multiplier rule starts from.
pub(super) struct Slowest {
    /// Its CPU time: the fastest of its runs on its slowest test.
    pub(super) cpu: Duration,
    /// The submission (its path in the package) and that test.
    pub(super) submission: String,
    pub(super) test: String,
    /// How many times it was judged on that test.
    pub(super) runs: u32,
}

/// An accepted submission being timed: its name, the submission, and per test its fastest CPU
/// time (ms) and how many times it ran.
type Timed = (String, ojd_judge::Submission, Vec<(String, u64, u32)>);

/// How many times the slowest accepted run is made at most: as `ojd verify` settles a time
/// near the limit, by the fastest of several runs, so that one slow run on a loaded machine
/// does not set the limit.
const TIMING_RUNS: u32 = 3;

/// The largest CPU time of any accepted submission on any test, judged with a generous limit,
/// and the accepted submissions left out because they do not compile here. Each accepted
/// submission is judged once on every test; then only the slowest run is made again (that
/// submission on that one test, up to [`TIMING_RUNS`] runs, its fastest counting), and only
/// while a faster run could change the limit: `limit(cpu)` is the rule's limit for a CPU time,
/// and a run on a loaded machine is at most about twice as slow as on a quiet one, so when
/// `limit(cpu / 2)` is `limit(cpu)` no run could change it and one run per test is enough.
pub(super) fn slowest_accepted(
    judge: &ojd_judge::Judge,
    pkg: &Path,
    limit: &dyn Fn(Duration) -> Duration,
) -> Result<(Slowest, Vec<String>), ImportError> {
    let mut skipped = Vec::new();
    let problem = ojd_judge::Problem::load(pkg).map_err(|e| ImportError::Run(e.to_string()))?;
    let mut timed: Vec<Timed> = Vec::new();
    let judge_on = |problem: &ojd_judge::Problem, sub: &ojd_judge::Submission| {
        let cancel = std::sync::atomic::AtomicBool::new(false);
        judge.judge(problem, sub, &mut |_| {}, &cancel)
    };
    // Files and folders (submissions of several files) alike.
    for f in entries(&pkg.join("submissions/accepted")) {
        let Ok(sub) = judge.read_submission(&f, None) else {
            // No language ojd knows: not a program to time.
            continue;
        };
        let name = f.strip_prefix(pkg).unwrap_or(&f).display().to_string();
        let report = match judge_on(&problem, &sub) {
            Ok(r) => r,
            // A language whose toolchain this host lacks: not ours to time either.
            Err(
                ojd_judge::JudgeError::LanguageUnavailable { .. }
                | ojd_judge::JudgeError::UnknownLanguage { .. },
            ) => {
                skipped.push(name);
                continue;
            }
            Err(e) if e.is_host_fault() => {
                return Err(ImportError::Run(format!("{}: {e}", f.display())))
            }
            Err(e) => {
                return Err(ImportError::Invalid {
                    file: f.display().to_string(),
                    message: format!("cannot be judged to time it: {e}"),
                })
            }
        };
        if report.verdict == ojd_judge::Verdict::CompileError {
            // Not ours to time (say, Python 2 under a Python 3 profile); verify shows it.
            skipped.push(name);
            continue;
        }
        if report.verdict != ojd_judge::Verdict::Accepted {
            // The package's problem (its accepted submission is not), never the sandbox's.
            return Err(ImportError::Invalid {
                file: f.display().to_string(),
                message: format!(
                    "an accepted submission got {} with a 10 s limit while timing it: the package's time limit cannot come from its accepted submissions",
                    report.verdict
                ),
            });
        }
        let tests = report
            .tests
            .iter()
            .map(|t| (t.name.clone(), t.cpu_ms, 1))
            .collect();
        timed.push((name, sub, tests));
    }
    // The slowest run: (submission, test).
    let top = |timed: &[Timed]| {
        timed
            .iter()
            .enumerate()
            .flat_map(|(i, (_, _, tests))| (0..tests.len()).map(move |j| (i, j)))
            .max_by_key(|&(i, j)| timed[i].2[j].1)
    };
    // Make the slowest run again, on its test alone, while that could change the limit
    // (another run may then be the slowest).
    while let Some((i, j)) = top(&timed) {
        let (name, sub, tests) = &mut timed[i];
        let (test, ms, runs) = tests[j].clone();
        let cpu = Duration::from_millis(ms);
        if runs >= TIMING_RUNS || limit(cpu / 2) == limit(cpu) {
            break;
        }
        let mut one = problem.clone();
        one.tests.retain(|t| t.name == test);
        one.groups.clear();
        let report = judge_on(&one, sub).map_err(|e| ImportError::Run(format!("{name}: {e}")))?;
        let again = report.tests.first().map_or(ms, |t| t.cpu_ms);
        tests[j] = (test, ms.min(again), runs + 1);
    }
    let slowest = match top(&timed) {
        Some((i, j)) => {
            let (test, ms, runs) = timed[i].2[j].clone();
            Slowest {
                cpu: Duration::from_millis(ms),
                submission: timed[i].0.clone(),
                test,
                runs,
            }
        }
        None => Slowest {
            cpu: Duration::ZERO,
            submission: String::new(),
            test: String::new(),
            runs: 0,
        },
    };
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
        // Not one verdict: `ojd verify` holds them to the format's promise (some rejection;
        // part of the points).
        "rejected" => "rejected",
        "partially_accepted" => "partially_accepted",
        // ojd's (Polygon's `time-limit-exceeded-or-accepted`), as a 2025-09 export writes it.
        "time_limit_exceeded_or_accepted" => "time_limit_exceeded_or_accepted",
        // ojd's (Polygon's `time-limit-exceeded-or-memory-limit-exceeded`).
        "time_limit_exceeded_or_memory_limit_exceeded" => {
            "time_limit_exceeded_or_memory_limit_exceeded"
        }
        // DOMjudge's folder names.
        "compiler_error" => "compile_error",
        "output_limit" => "output_limit_exceeded",
        "memory_limit" => "memory_limit_exceeded",
        // DOMjudge's NO-OUTPUT is a wrong answer that printed nothing.
        "no_output" => "wrong_answer",
        _ => return None,
    })
}

/// `name` with the extension ojd's language profiles know, for the extensions DOMjudge's
/// languages have and ojd's do not (`.c++` for C++, `.py3` for Python 3); `None` for others.
fn domjudge_ext(name: &str) -> Option<String> {
    let (stem, ext) = name.rsplit_once('.')?;
    let to = match ext {
        "c++" => "cpp",
        "py3" => "py",
        _ => return None,
    };
    Some(format!("{stem}.{to}"))
}

/// DOMjudge's `@EXPECTED_RESULTS@: A, B` header in a submission's source: the ojd folder of its
/// one expected result (`Some(Ok)`), an error naming what ojd cannot express (several results
/// or an unknown one), or `None` without a header.
fn expected_results(text: &str) -> Option<Result<&'static str, String>> {
    let at = text.find("@EXPECTED_RESULTS@:")?;
    let line = text[at + "@EXPECTED_RESULTS@:".len()..]
        .lines()
        .next()
        .unwrap_or("");
    let results: Vec<String> = line
        .split([',', ' ', '\t'])
        // DOMjudge writes its results with a hyphen (WRONG-ANSWER) and its own example
        // problems with an underscore (WRONG_ANSWER): both are one result.
        .map(|w| {
            w.trim()
                .trim_end_matches("*/")
                .to_ascii_uppercase()
                .replace('_', "-")
        })
        .filter(|w| !w.is_empty())
        .collect();
    let folder = |r: &str| {
        Some(match r {
            "CORRECT" => "accepted",
            "WRONG-ANSWER" | "NO-OUTPUT" => "wrong_answer",
            "TIMELIMIT" => "time_limit_exceeded",
            "RUN-ERROR" => "runtime_error",
            "COMPILER-ERROR" => "compile_error",
            "OUTPUT-LIMIT" => "output_limit_exceeded",
            "MEMORY-LIMIT" => "memory_limit_exceeded",
            _ => return None,
        })
    };
    let folders: Vec<Option<&'static str>> = results.iter().map(|r| folder(r)).collect();
    Some(match folders.as_slice() {
        [Some(one)] => Ok(*one),
        [] => Err("an @EXPECTED_RESULTS@ header without a result".into()),
        _ if folders.iter().any(Option::is_none) => Err(format!(
            "@EXPECTED_RESULTS@: {} holds a result ojd does not know",
            results.join(", ")
        )),
        _ => Err(format!(
            "@EXPECTED_RESULTS@: {}: ojd promises one verdict per submission",
            results.join(", ")
        )),
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
    // submissions.yaml (or .json): expectations per submission, which may move a submission
    // to another folder or skip it (`expectations`).
    let expectations = super::expectations::read(dir)?;
    for folder in entries(&root).into_iter().filter(|p| p.is_dir()) {
        let name = folder
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        // A folder without a verdict of its own (DOMjudge's `rejected/`, `mixed/`) may still
        // hold files whose @EXPECTED_RESULTS@ header names one.
        let spoken = |rel: &str| expectations.as_ref().is_some_and(|e| e.speaks_of(rel));
        let any_spoken = entries(&folder).iter().any(|e| {
            spoken(&format!(
                "{name}/{}",
                e.file_name().unwrap_or_default().to_string_lossy()
            ))
        });
        let Some(target) = verdict_folder(&name)
            .or_else(|| {
                entries(&folder)
                    .iter()
                    .any(|f| {
                        f.is_file()
                            && crate::files::read_text(f)
                                .is_ok_and(|t| t.contains("@EXPECTED_RESULTS@:"))
                    })
                    .then_some("")
            })
            .or_else(|| any_spoken.then_some(""))
        else {
            warnings.push(format!(
                "{}: ojd has no verdict folder for {name:?}; skipped",
                folder.display()
            ));
            continue;
        };
        for entry in entries(&folder) {
            let rel = format!(
                "{name}/{}",
                entry.file_name().unwrap_or_default().to_string_lossy()
            );
            // The expectations file decides over the folder when it speaks of the submission.
            let (target, decided) = match expectations.as_ref().filter(|e| e.speaks_of(&rel)) {
                Some(e) => match e.folder(&rel) {
                    Ok(f) => (f, true),
                    Err(why) => {
                        warnings.push(format!(
                            "{}: {}: {why}; skipped",
                            entry.display(),
                            e.file.display()
                        ));
                        continue;
                    }
                },
                None => (target, false),
            };
            // DOMjudge's and Kattis' multi-file submission is a folder: one with a single
            // program in it is that program; one C or C++ source with its headers is that source
            // with the headers inlined (as a package's validators are); several sources are kept
            // as a folder, a submission of several files that the judge compiles together.
            let mut inlined: Option<String> = None;
            let mut several: Option<Vec<(std::path::PathBuf, String)>> = None;
            let (f, as_name) = if entry.is_dir() {
                let files = crate::files::files_in(&entry);
                let is_header = |p: &Path| {
                    p.extension()
                        .and_then(|e| e.to_str())
                        .is_some_and(|e| matches!(e, "h" | "hh" | "hpp" | "hxx" | "H"))
                };
                let sources: Vec<&std::path::PathBuf> =
                    files.iter().filter(|p| !is_header(p)).collect();
                let c_family = |p: &Path| {
                    p.extension()
                        .and_then(|e| e.to_str())
                        .is_some_and(|e| matches!(e, "c" | "cpp" | "cc" | "cxx" | "c++" | "C"))
                };
                let names = |v: &[std::path::PathBuf]| -> Vec<String> {
                    v.iter()
                        .map(|p| {
                            p.file_name()
                                .unwrap_or_default()
                                .to_string_lossy()
                                .into_owned()
                        })
                        .collect()
                };
                let folder_name = entry.file_name().unwrap_or_default().to_string_lossy();
                match sources.as_slice() {
                    [one] if files.len() == 1 || c_family(one) => {
                        let ext = one.extension().and_then(|e| e.to_str()).unwrap_or("");
                        if files.len() > 1 {
                            let text = crate::files::inline_includes(one, &[entry.as_path()])?;
                            let all = names(&files);
                            warnings.push(format!(
                                "{}: a submission of {} files ({}): its headers inlined into {}",
                                entry.display(),
                                all.len(),
                                all.join(", "),
                                one.file_name().unwrap_or_default().to_string_lossy()
                            ));
                            inlined = Some(text);
                        }
                        ((*one).clone(), format!("{folder_name}.{ext}"))
                    }
                    _ => match several_files(config, &entry, &files, &rel, expectations.as_ref()) {
                        Ok(kept) => {
                            several = Some(kept);
                            (entry.clone(), folder_name.into_owned())
                        }
                        Err(why) => {
                            warnings.push(format!(
                                "{}: a submission of {} files ({}): {why}; skipped",
                                entry.display(),
                                files.len(),
                                names(&files).join(", ")
                            ));
                            continue;
                        }
                    },
                }
            } else {
                let name = entry
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned();
                (entry.clone(), name)
            };
            // An extension DOMjudge knows and ojd's profiles do not (`.c++`, `.py3`): renamed.
            let as_name = match domjudge_ext(&as_name) {
                Some(renamed)
                    if several.is_none() && config.language_for(Path::new(&as_name)).is_none() =>
                {
                    warnings.push(format!(
                        "{}: DOMjudge's extension; imported as {renamed} (ojd's languages go by extension)",
                        f.display()
                    ));
                    renamed
                }
                _ => as_name,
            };
            if several.is_none() && config.language_for(Path::new(&as_name)).is_none() {
                warnings.push(format!("{}: no language profile; skipped", f.display()));
                continue;
            }
            // DOMjudge: a header in the source names the expected result, whatever the folder.
            let text = match (&inlined, &several) {
                (Some(t), _) => t.clone(),
                // The header may be in any file of a folder.
                (None, Some(kept)) => {
                    let mut all = String::new();
                    for (path, _) in kept {
                        let t = crate::files::read_text(path)?;
                        if t.contains("@EXPECTED_RESULTS@:") {
                            all = t;
                            break;
                        }
                    }
                    all
                }
                (None, None) => crate::files::read_text(&f)?,
            };
            let target = match expected_results(&text) {
                _ if decided => target,
                None if target.is_empty() => {
                    warnings.push(format!(
                        "{}: ojd has no verdict folder for {name:?} and the file has no @EXPECTED_RESULTS@ header; skipped",
                        f.display()
                    ));
                    continue;
                }
                None => target,
                Some(Ok(t)) => t,
                Some(Err(why)) => {
                    warnings.push(format!("{}: {why}; skipped", f.display()));
                    continue;
                }
            };
            let file = safe_name(&as_name);
            let rel = format!("submissions/{target}/{file}");
            if let Some(kept) = &several {
                // A folder stays a folder (never the reference: that is one file).
                for (path, name) in kept {
                    copy_text(path, &out.join(&rel).join(name))?;
                }
                count += 1;
                continue;
            }
            match &inlined {
                Some(t) => crate::files::write_file(&out.join(&rel), t.as_bytes())?,
                None => copy_text(&f, &out.join(&rel))?,
            }
            count += 1;
            if target == "accepted" {
                let rank = match Path::new(&as_name).extension().and_then(|e| e.to_str()) {
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

/// A submission folder of several sources as ojd keeps it: its files with the names they get
/// (DOMjudge's `.c++` and `.py3` renamed), or why it cannot be judged: files in several
/// languages or in none ojd knows, a language whose profile compiles one file, a sub-folder, or
/// an `entrypoint` (submissions.yaml or .json) other than the file ojd would start from.
fn several_files(
    config: &Config,
    dir: &Path,
    files: &[std::path::PathBuf],
    rel: &str,
    expectations: Option<&super::expectations::Expectations>,
) -> Result<Vec<(std::path::PathBuf, String)>, String> {
    use ojd_judge::{plain_name, SourceFile};
    if let Some(sub) = entries(dir).into_iter().find(|p| p.is_dir()) {
        return Err(format!(
            "{} is a sub-folder: a submission is one folder of files",
            sub.file_name().unwrap_or_default().to_string_lossy()
        ));
    }
    let mut kept = Vec::new();
    let mut languages: std::collections::BTreeSet<String> = Default::default();
    for f in files {
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let name = match domjudge_ext(&name) {
            Some(renamed) if config.language_for(Path::new(&name)).is_none() => renamed,
            _ => name,
        };
        if !plain_name(&name) {
            return Err(format!("{name:?} is not a plain file name"));
        }
        if let Some(l) = config.language_for(Path::new(&name)) {
            languages.insert(l.to_string());
        }
        kept.push((f.clone(), name));
    }
    let language = match languages.len() {
        1 => languages.into_iter().next().unwrap_or_default(),
        0 => return Err("no file in a language with a profile".into()),
        _ => {
            return Err(format!(
                "files in several languages ({})",
                languages.into_iter().collect::<Vec<_>>().join(", ")
            ))
        }
    };
    let profile = &config.languages[&language];
    if profile.several_files == ojd_judge::SeveralFiles::No {
        return Err(format!(
            "{} compiles one file (its profile has no several_files)",
            profile.name
        ));
    }
    let sources: Vec<SourceFile> = kept
        .iter()
        .filter(|(_, n)| config.language_for(Path::new(n)) == Some(language.as_str()))
        .map(|(p, n)| {
            Ok(SourceFile {
                name: n.clone(),
                text: std::fs::read(p).map_err(|e| format!("{}: {e}", p.display()))?,
            })
        })
        .collect::<Result<_, String>>()?;
    let mut refs: Vec<&SourceFile> = sources.iter().collect();
    refs.sort_by(|a, b| a.name.cmp(&b.name));
    let folder = dir.file_name().unwrap_or_default().to_string_lossy();
    let java = profile.entry_point == ojd_judge::EntryPoint::Java;
    let entry = ojd_judge::entry_file(&folder, &refs, java);
    if let Some(wanted) = expectations.and_then(|e| e.entrypoint(rel)) {
        let stem = entry
            .name
            .rsplit_once('.')
            .map_or(entry.name.as_str(), |(s, _)| s);
        if wanted != entry.name && wanted != stem {
            return Err(format!(
                "its entry point is {wanted}, but ojd starts it from {} (main.*, else the file named like the folder, else the one with __main__, else the first by name)",
                entry.name
            ));
        }
    }
    Ok(kept)
}

#[cfg(test)]
mod tests {
    use super::expected_results;

    /// DOMjudge's results with a hyphen and with the underscore of its own examples are one
    /// result each; an unknown one is still named.
    #[test]
    fn expected_results_read_in_both_spellings() {
        for (header, folder) in [
            ("// @EXPECTED_RESULTS@: WRONG-ANSWER\n", "wrong_answer"),
            ("// @EXPECTED_RESULTS@: WRONG_ANSWER\n", "wrong_answer"),
            ("# @EXPECTED_RESULTS@: RUN_ERROR\n", "runtime_error"),
            (
                "/* @EXPECTED_RESULTS@: COMPILER_ERROR */\n",
                "compile_error",
            ),
            ("// @EXPECTED_RESULTS@: correct\n", "accepted"),
        ] {
            assert_eq!(expected_results(header), Some(Ok(folder)), "{header}");
        }
        let e = expected_results("// @EXPECTED_RESULTS@: SLOW_ANSWER\n").unwrap();
        assert!(e.unwrap_err().contains("SLOW-ANSWER"));
    }
}
