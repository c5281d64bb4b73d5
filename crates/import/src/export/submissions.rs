//! The `submissions/` of an exported Kattis package: ojd's verdict folders as the format's,
//! and in the 2025-09 format what its tools need besides (`submissions.yaml` entry points, no
//! folder the format does not define).

use std::path::Path;

use super::{KattisFormat, Problem};
use crate::files::{copy_raw, entries, files_in, write_file};
use crate::ImportError;
use ojd_judge::SourceFile;

/// The format's folder for ojd's verdict folder `ojd`, `None` when the format has none.
fn kattis_folder(ojd: &str, format: KattisFormat) -> Option<&str> {
    Some(match (ojd, format) {
        ("runtime_error", _) => "run_time_error",
        // 2025-09 knows four verdicts: a program stopped at the output or memory limit is
        // some rejection (`rejected/`: not accepted on at least one test).
        ("output_limit_exceeded" | "memory_limit_exceeded", KattisFormat::V2025) => "rejected",
        // problemtools (2023-07) reads only the folders of its four verdicts (and
        // `partially_accepted/`) and calls any other an error; neither edition has a compile
        // error.
        ("output_limit_exceeded" | "memory_limit_exceeded", KattisFormat::V2023) => return None,
        ("compile_error", _) => return None,
        // problemtools reads no `rejected/`; 2025-09 has no `partially_accepted/`. Polygon's
        // AC-or-TLE promise is a 2025-09 folder with a `permitted` rule (`submissions.yaml`),
        // which problemtools' 2023-07 has no way to say.
        ("rejected", KattisFormat::V2023)
        | ("partially_accepted", KattisFormat::V2025)
        | ("time_limit_exceeded_or_accepted", KattisFormat::V2023)
        | ("time_limit_exceeded_or_memory_limit_exceeded", KattisFormat::V2023) => return None,
        (other, _) => other,
    })
}

/// A DOMjudge `@EXPECTED_RESULTS@:` line closing a C comment (`... WRONG-ANSWER */`) with the
/// comment's end moved to a line of its own: BAPCtools reads the rest of the line as results
/// and refuses `*/`. The program is the same; `None` when nothing changes.
fn expected_results_alone(text: &str) -> Option<String> {
    let mut changed = false;
    let lines: Vec<String> = text
        .split_inclusive('\n')
        .map(|l| {
            let body = l.trim_end_matches(['\n', '\r']);
            match body.trim_end().strip_suffix("*/") {
                Some(head) if head.contains("@EXPECTED_RESULTS@:") => {
                    changed = true;
                    format!("{}\n*/{}", head.trim_end(), &l[body.len()..])
                }
                _ => l.to_string(),
            }
        })
        .collect();
    changed.then(|| lines.concat())
}

/// Copies one source file, rewritten for the format where it must be.
fn copy_source(from: &Path, to: &Path, format: KattisFormat) -> Result<(), ImportError> {
    if format == KattisFormat::V2025 {
        if let Some(text) = std::fs::read_to_string(from)
            .ok()
            .and_then(|t| expected_results_alone(&t))
        {
            return write_file(to, text.as_bytes());
        }
    }
    copy_raw(from, to)
}

/// The entry point of a submission of several files in Python or Java as ojd judges it
/// (`ojd_judge::entry_file`), as 2025-09's `submissions.yaml` names it (the file for Python,
/// the class for Java), and whether problemtools, which has no `entrypoint` in 2023-07, starts
/// from the same file (a file named `main.*`, else the first by name); `None` for the
/// languages compiled together.
fn entry_point(folder: &Path) -> Option<(String, bool)> {
    let files = files_in(folder);
    let of = |ext: &str| -> Vec<SourceFile> {
        let mut v: Vec<SourceFile> = files
            .iter()
            .filter(|f| f.extension().is_some_and(|e| e == ext))
            .map(|f| SourceFile {
                name: f
                    .file_name()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
                text: std::fs::read(f).unwrap_or_default(),
            })
            .collect();
        v.sort_by(|a, b| a.name.cmp(&b.name));
        v
    };
    let name = folder.file_name().unwrap_or_default().to_string_lossy();
    for (ext, java) in [("py", false), ("java", true)] {
        let sources = of(ext);
        if sources.len() > 1 {
            let refs: Vec<&SourceFile> = sources.iter().collect();
            let entry = ojd_judge::entry_file(&name, &refs, java);
            let problemtools = sources
                .iter()
                .find(|f| f.name.to_ascii_lowercase().starts_with("main."))
                .unwrap_or(&sources[0]);
            let same = problemtools.name == entry.name;
            return Some(if java {
                (entry.name.trim_end_matches(".java").to_string(), same)
            } else {
                (entry.name.clone(), same)
            });
        }
    }
    None
}

/// Writes `submissions/` into `out`; the number of submissions written.
pub(super) fn submissions(
    problem: &Problem,
    out: &Path,
    format: KattisFormat,
    warnings: &mut Vec<String>,
) -> Result<usize, ImportError> {
    let mut count = 0;
    let solution_in_submissions = problem.solution.starts_with("submissions");
    // With `answers = "given"` a package may have no reference.
    if !solution_in_submissions && problem.dir.join(&problem.solution).is_file() {
        let name = problem.solution.file_name().unwrap_or_default();
        copy_source(
            &problem.dir.join(&problem.solution),
            &out.join("submissions/accepted").join(name),
            format,
        )?;
        count += 1;
    }
    let mut entry_points = String::new();
    let mut rules = String::new();
    for folder in entries(&problem.dir.join("submissions"))
        .into_iter()
        .filter(|p| p.is_dir())
    {
        let name = folder
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let Some(kattis) = kattis_folder(&name, format) else {
            warnings.push(format!(
                "{}: not exported: the {} format has no folder for {name}",
                folder.display(),
                match format {
                    KattisFormat::V2023 => "2023-07",
                    KattisFormat::V2025 => "2025-09",
                }
            ));
            continue;
        };
        if kattis == "time_limit_exceeded_or_accepted" {
            rules += &format!("{kattis}:\n  permitted: [AC, TLE]\n");
        }
        // Polygon's TLE-or-MLE: Kattis has no memory verdict (a program out of memory is a
        // run-time error there), so the closest promise is too slow or crashing somewhere.
        if kattis == "time_limit_exceeded_or_memory_limit_exceeded" {
            rules += &format!("{kattis}:\n  permitted: [AC, TLE, RTE]\n  required: [TLE, RTE]\n");
        }
        for f in entries(&folder) {
            let file = f.file_name().unwrap_or_default();
            let to = out.join("submissions").join(kattis).join(file);
            if f.is_dir() {
                // A submission of several files: a folder in Kattis too.
                let entry = entry_point(&f);
                match (&entry, format) {
                    (Some((e, false)), KattisFormat::V2023) => {
                        warnings.push(format!(
                            "{}: not exported: ojd starts it from {e}, problemtools (2023-07 has no entrypoint) from main.* or the first file by name; the 2025-09 export names its entrypoint",
                            f.display()
                        ));
                        continue;
                    }
                    (Some((e, _)), KattisFormat::V2025) => {
                        entry_points += &format!(
                            "{kattis}/{}:\n  entrypoint: {}\n",
                            file.to_string_lossy(),
                            super::yaml_str(e)
                        );
                    }
                    _ => {}
                }
                for g in files_in(&f) {
                    copy_source(&g, &to.join(g.file_name().unwrap_or_default()), format)?;
                }
            } else {
                copy_source(&f, &to, format)?;
            }
            count += 1;
        }
    }
    let mut text = String::new();
    if !rules.is_empty() {
        text += &format!(
            "# Folders that are not the format's own: what their submissions promise.\n{rules}"
        );
    }
    if !entry_points.is_empty() {
        text += &format!(
            "# The file (Python) or class (Java) each submission of several files starts from, as ojd runs it.\n{entry_points}"
        );
    }
    if !text.is_empty() {
        write_file(&out.join("submissions/submissions.yaml"), text.as_bytes())?;
    }
    Ok(count)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_results_header_closing_a_comment_is_split() {
        assert_eq!(
            expected_results_alone("/* @EXPECTED_RESULTS@: WRONG-ANSWER */\nint main;\n")
                .as_deref(),
            Some("/* @EXPECTED_RESULTS@: WRONG-ANSWER\n*/\nint main;\n")
        );
        assert_eq!(
            expected_results_alone("// @EXPECTED_RESULTS@: CORRECT\n"),
            None
        );
        assert_eq!(expected_results_alone("int x; /* not it */\n"), None);
    }
}
