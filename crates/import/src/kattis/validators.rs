//! A Kattis package's programs besides submissions: the output validator (a `kattis` checker,
//! or the interactor of an interactive problem, or without one the default validator's flags as
//! the equivalent built-in checker) and the input validator. Each becomes one source file of a
//! language ojd knows ([`program`]).

use std::path::{Path, PathBuf};

use super::data::Data;
use super::yaml::{yaml_words, Src};
use crate::files::{entries, files_in, inline_includes, read_text, write_file};
use crate::ImportError;
use ojd_config::Config;
use ojd_judge::{CheckerSpec, DefaultFlags, Interactor, InteractorProtocol};

/// A program of the package, one file or a folder of files, as one source file in `out`
/// named `stem.<ext>`; `None` (with a warning) when ojd has no language for it.
pub(super) fn program(
    config: &Config,
    path: &Path,
    out: &Path,
    stem: &str,
    warnings: &mut Vec<String>,
) -> Result<Option<String>, ImportError> {
    // `output_validator/<name>/` (a folder of one program inside the folder) is read through.
    let subdirs: Vec<PathBuf> = entries(path).into_iter().filter(|p| p.is_dir()).collect();
    if path.is_dir() && files_in(path).is_empty() && subdirs.len() == 1 {
        return program(config, &subdirs[0], out, stem, warnings);
    }
    let main = if path.is_dir() {
        let sources: Vec<PathBuf> = files_in(path)
            .into_iter()
            .filter(|f| config.language_for(f).is_some() && !is_header(f))
            .collect();
        match sources.as_slice() {
            [one] => one.clone(),
            [] => {
                warnings.push(format!(
                    "{}: no source file in a language ojd knows; skipped",
                    path.display()
                ));
                return Ok(None);
            }
            many => {
                let names: Vec<String> = many
                    .iter()
                    .map(|m| m.file_name().unwrap_or_default().to_string_lossy().into())
                    .collect();
                return Err(ImportError::Unsupported {
                    file: path.display().to_string(),
                    key: "sources".into(),
                    what: format!(
                        "a program of several source files ({}) is not supported; headers are",
                        names.join(", ")
                    ),
                });
            }
        }
    } else {
        path.to_path_buf()
    };
    let Some(ext) = main.extension().and_then(|e| e.to_str()) else {
        warnings.push(format!("{}: no file extension; skipped", main.display()));
        return Ok(None);
    };
    if config.language_for(&main).is_none() {
        warnings.push(format!(
            "{}: no language profile for .{ext}; skipped",
            main.display()
        ));
        return Ok(None);
    }
    let name = format!("{stem}.{ext}");
    let text = if matches!(ext, "c" | "cc" | "cpp" | "cxx") {
        let dir = main.parent().unwrap_or(Path::new("."));
        inline_includes(&main, &[dir])?
    } else {
        read_text(&main)?
    };
    write_file(&out.join(&name), text.as_bytes())?;
    Ok(Some(name))
}

/// Whether `path` is a header (`testlib.h`, `validate.hpp`): a part of a program, included by
/// it, never a program of its own.
pub(super) fn is_header(path: &Path) -> bool {
    matches!(
        path.extension().and_then(|e| e.to_str()),
        Some("h" | "hpp" | "hh" | "hxx" | "h++" | "inc")
    )
}

/// The programs of a validators' folder: each subfolder is one, and so is each file beside
/// them that is not a header (a flat `output_validators/{checker.cpp, testlib.h}` holds one
/// program, whose header [`program`] inlines).
pub(super) fn programs_in(folder: &Path) -> Vec<PathBuf> {
    entries(folder)
        .into_iter()
        .filter(|p| p.is_dir() || !is_header(p))
        .collect()
}

/// The output validator as a `kattis` checker or, for an interactive problem, as the
/// interactor (the checker then stays `tokens`); without a custom one (`custom` false), the
/// default validator's flags as the built-in checker that compares exactly as it does.
pub(super) fn output_validator(
    src: &Src<'_>,
    config: &Config,
    out: &Path,
    data: &Data,
    custom: bool,
    interactive: bool,
    warnings: &mut Vec<String>,
) -> Result<(CheckerSpec, Option<Interactor>), ImportError> {
    let dir = src.dir;
    // Legacy packages put the default validator's flags in problem.yaml.
    let mut output_flags = data.output_flags.clone().unwrap_or_default();
    if let Some(v) = src.get("validator_flags") {
        if data.output_flags.is_some() {
            return Err(src.unsupported(
                "validator_flags",
                "given both here and as output_validator_flags in testdata.yaml",
            ));
        }
        output_flags = yaml_words(v);
    }
    if !custom {
        let key = if src.get("validator_flags").is_some() {
            "validator_flags"
        } else {
            "output_validator_flags"
        };
        let checker = DefaultFlags::parse(&output_flags)
            .map_err(|e| src.unsupported(key, e.to_string()))?
            .into_checker();
        return Ok((checker, None));
    }
    let validator_src = if dir.join("output_validator").is_dir() {
        dir.join("output_validator")
    } else {
        // Beside the validator, a folder may hold files that are no program: BAPCtools keeps
        // `validate.ctd.template` and `validate.viva.template` there. Those are named and
        // skipped, as problemtools skips a file it finds no language for; one alone is still
        // the validator, so that a missing language profile is an error naming it.
        let mut all = programs_in(&dir.join("output_validators"));
        if all.len() > 1 {
            let (programs, others): (Vec<PathBuf>, Vec<PathBuf>) = all
                .into_iter()
                .partition(|p| p.is_dir() || config.language_for(p).is_some());
            for o in &others {
                warnings.push(format!(
                    "{}: not a program in a language ojd knows; skipped",
                    o.display()
                ));
            }
            all = if programs.is_empty() {
                others
            } else {
                programs
            };
        }
        if all.len() > 1 {
            return Err(ImportError::Unsupported {
                file: dir.join("output_validators").display().to_string(),
                key: "output validators".into(),
                what: format!(
                    "more than one output validator is not supported (found {})",
                    all.iter()
                        .map(|p| p.file_name().unwrap_or_default().to_string_lossy())
                        .collect::<Vec<_>>()
                        .join(", ")
                ),
            });
        }
        all.into_iter().next().ok_or_else(|| {
            src.unsupported("validation", "custom, but output_validators/ is empty")
        })?
    };
    if let Some(back) = unwrapped(config, &validator_src, out, &output_flags, warnings)? {
        return Ok(back);
    }
    let name =
        program(config, &validator_src, out, "output_validator", warnings)?.ok_or_else(|| {
            ImportError::Unsupported {
                file: validator_src.display().to_string(),
                key: "output validator".into(),
                what: "written in a language ojd has no profile for".into(),
            }
        })?;
    Ok(if interactive {
        let interactor = Interactor {
            path: name.into(),
            protocol: InteractorProtocol::Kattis,
            flags: output_flags,
        };
        (CheckerSpec::Tokens, Some(interactor))
    } else {
        let checker = CheckerSpec::Kattis {
            path: name.into(),
            flags: output_flags,
        };
        (checker, None)
    })
}

/// The input validator: the first of `input_validators/` (or legacy `input_format_validators/`)
/// in a language ojd knows, accepting on exit 42 as Kattis's do, with the groups' one set of
/// flags; none when the flags differ between groups (the import already warned).
pub(super) fn input_validator(
    dir: &Path,
    config: &Config,
    judge: Option<&ojd_judge::Judge>,
    out: &Path,
    data: &Data,
    warnings: &mut Vec<String>,
) -> Result<Option<(String, i32, Vec<String>)>, ImportError> {
    let mut validator = None;
    // `input_validator/` is DOMjudge's name for the folder.
    for folder in [
        "input_validators",
        "input_format_validators",
        "input_validator",
    ] {
        let all = programs_in(&dir.join(folder));
        let mut made = Vec::new();
        for v in &all {
            // A checktestdata script, or a folder holding one.
            let ctd = if v.is_file() {
                Some(v.clone()).filter(|f| f.extension().is_some_and(|e| e == "ctd"))
            } else {
                match files_in(v).as_slice() {
                    [one] if one.extension().is_some_and(|e| e == "ctd") => Some(one.clone()),
                    _ => None,
                }
            };
            // A VIVA script: ojd has no implementation of VIVA (a Java tool), and no sandboxed
            // conversion like checktestdata's (`crate::checktestdata`); named and skipped.
            let viva = if v.is_file() {
                vec![v.clone()]
            } else {
                files_in(v)
            }
            .into_iter()
            .find(|f| f.extension().is_some_and(|e| e == "viva"));
            if let Some(viva) = viva {
                warnings.push(format!(
                    "{}: a VIVA input validator, which ojd does not run (checktestdata .ctd scripts it does); skipped, so it checks no input",
                    viva.display()
                ));
                continue;
            }
            if let Some(ctd) = ctd {
                let stem = format!("input_validator{}", made.len());
                if let Some(name) =
                    crate::checktestdata::convert(judge, &ctd, out, &stem, warnings)?
                {
                    made.push((name, 42));
                }
                continue;
            }
            // An ojd validator that `ojd export kattis` wrapped (its `build` turns exit 0 into
            // 42) comes back as it was: accepting with exit 0.
            let build = v.join("build");
            let accept = if build.is_file()
                && read_text(&build)?.contains(crate::files::WRAPPED_VALIDATOR)
            {
                0
            } else {
                42
            };
            if let Some(name) = program(
                config,
                v,
                out,
                &format!("input_validator{}", made.len()),
                warnings,
            )? {
                made.push((name, accept));
            }
        }
        if made.len() > 1 {
            warnings.push(format!(
                "{}: ojd runs one input validator; only {} is used",
                dir.join(folder).display(),
                made[0].0
            ));
        }
        if validator.is_none() && !data.input_flags_vary {
            validator = made
                .into_iter()
                .next()
                .map(|(n, accept)| (n, accept, data.input_flags.clone().unwrap_or_default()));
        }
    }
    Ok(validator)
}

/// The folder and `build` text of a program that `ojd export kattis` wrapped as the output
/// validator in `folder` (2023-07's `output_validator/wrapped/`, 2025-09's `output_validator/`
/// itself); `None` for any other validator.
fn wrapped_build(folder: &Path) -> Result<Option<(PathBuf, String)>, ImportError> {
    let subdirs: Vec<PathBuf> = entries(folder).into_iter().filter(|p| p.is_dir()).collect();
    let folder = match subdirs.as_slice() {
        [one] if files_in(folder).is_empty() => one.as_path(),
        _ => folder,
    };
    let build = folder.join("build");
    if !build.is_file() {
        return Ok(None);
    }
    let text = read_text(&build)?;
    Ok(text
        .contains(crate::files::WRAPPED_PROGRAM)
        .then(|| (folder.to_path_buf(), text)))
}

/// The first line of the `run` of a CMS comparator wrapped by `ojd export kattis`.
const CMS_COMPARATOR: &str = "# A CMS comparator";

/// Whether the package in `dir` has as its output validator a CMS comparator that `ojd export
/// kattis` wrapped: its test groups' output flags are then the comparator's own (`threshold
/// T`, `points P`), read per group (`data`), not one set for the problem.
pub(super) fn wrapped_cms_comparator(dir: &Path) -> Result<bool, ImportError> {
    let mut folders = vec![dir.join("output_validator")];
    folders.extend(programs_in(&dir.join("output_validators")));
    for f in folders.iter().filter(|f| f.is_dir()) {
        if wrapped_build(f)?.is_some_and(|(_, text)| text.contains(CMS_COMPARATOR)) {
            return Ok(true);
        }
    }
    Ok(false)
}

/// A testlib checker, a testlib interactor or a CMS comparator that `ojd export kattis`
/// wrapped as a Kattis output validator (its `build` says so), taken back as it was: the
/// programs beside the `build` with their own protocol. `None` for any other validator.
fn unwrapped(
    config: &Config,
    folder: &Path,
    out: &Path,
    flags: &[String],
    warnings: &mut Vec<String>,
) -> Result<Option<(CheckerSpec, Option<Interactor>)>, ImportError> {
    let Some((folder, text)) = wrapped_build(folder)? else {
        return Ok(None);
    };
    let folder = folder.as_path();
    let build = folder.join("build");
    let mut found = |role: &str| -> Result<Option<String>, ImportError> {
        let Some(source) = files_in(folder)
            .into_iter()
            .find(|f| f.file_stem().is_some_and(|s| s == role) && config.language_for(f).is_some())
        else {
            return Ok(None);
        };
        program(config, &source, out, role, warnings)
    };
    let checker = found("checker")?;
    let interactor = found("interactor")?;
    let missing = || ImportError::Unsupported {
        file: build.display().to_string(),
        key: "output validator".into(),
        what: "wrapped by `ojd export kattis`, but its program is missing".into(),
    };
    if !flags.is_empty() {
        warnings.push(format!(
            "{}: the wrapped program's flags {flags:?} are not read back",
            folder.display()
        ));
    }
    Ok(Some(if let Some(i) = interactor {
        let interactor = Interactor {
            path: i.into(),
            protocol: InteractorProtocol::Testlib,
            flags: Vec::new(),
        };
        let checker = match checker {
            Some(c) => CheckerSpec::Program { path: c.into() },
            None => CheckerSpec::Tokens,
        };
        (checker, Some(interactor))
    } else {
        let path = checker.ok_or_else(missing)?.into();
        match text.contains(CMS_COMPARATOR) {
            true => (CheckerSpec::Cms { path }, None),
            false => (CheckerSpec::Program { path }, None),
        }
    }))
}

#[cfg(test)]
mod tests {
    use crate::kattis::TestPackage;

    /// The accepted submission of the packages below: twice its input.
    const DOUBLE_C: &str =
        "#include <stdio.h>\nint main(void){long long n;scanf(\"%lld\",&n);printf(\"%lld\\n\",2*n);}\n";

    /// A `.viva` input validator is named and skipped, not mistaken for a missing language;
    /// An empty submissions.json changes nothing.
    #[test]
    fn viva_and_submissions_json_are_named() {
        let pkg = TestPackage::new("double");
        pkg.write("problem.yaml", "name: Double\nlimits:\n  time_limit: 1\n");
        pkg.write("data/sample/1.in", "3\n");
        pkg.write("data/sample/1.ans", "6\n");
        pkg.write("data/secret/1.in", "4\n");
        pkg.write("data/secret/1.ans", "8\n");
        pkg.write("submissions/accepted/a.c", DOUBLE_C);
        pkg.write("input_validators/range.viva", "<int(1, 100)> EOLN EOF\n");
        pkg.write("submissions/submissions.json", "{}\n");
        let i = pkg.import("out").unwrap();
        let all = i.warnings.join("\n");
        assert!(
            all.contains("range.viva: a VIVA input validator, which ojd does not run"),
            "{all}"
        );
        assert!(!all.contains("no language profile"), "{all}");
    }

    /// BAPCtools' templates beside the output validator (karwa-org/karwa2024's `antennes`) are
    /// named and skipped; two real validators are still refused, naming both.
    #[test]
    fn templates_beside_the_output_validator_are_not_a_second_one() {
        let pkg = TestPackage::new("antennes");
        pkg.write(
            "problem.yaml",
            "name: Antennes\nvalidation: custom\nlimits:\n  time_limit: 1\n",
        );
        pkg.write("data/sample/1.in", "3\n");
        pkg.write("data/sample/1.ans", "6\n");
        pkg.write("submissions/accepted/a.c", DOUBLE_C);
        pkg.write(
            "output_validators/antennes_validator/output_validator.cpp",
            "int main(){return 42;}\n",
        );
        pkg.write(
            "output_validators/validate.ctd.template",
            "INT(1, 10) NEWLINE\n",
        );
        pkg.write("output_validators/validate.viva.template", "<int(1, 10)>\n");
        let i = pkg.import("out").unwrap();
        let all = i.warnings.join("\n");
        assert!(
            all.contains("validate.ctd.template: not a program in a language ojd knows; skipped"),
            "{all}"
        );
        assert!(all.contains("validate.viva.template"), "{all}");
        assert!(pkg.out("out/output_validator.cpp").is_file());
        pkg.write("output_validators/second.cpp", "int main(){return 42;}\n");
        let e = pkg.import("out2").unwrap_err().to_string();
        assert!(
            e.contains("more than one output validator is not supported")
                && e.contains("antennes_validator")
                && e.contains("second.cpp")
                && !e.contains("template"),
            "{e}"
        );
    }

    /// A CMS comparator wrapped by `ojd export kattis` reads each group's flags: `threshold T`
    /// becomes the group's threshold (a CMS `GroupThreshold`) and `points P` says nothing new;
    /// other flags, or a threshold outside a group of data/secret, are refused naming the file.
    #[test]
    fn a_wrapped_cms_comparator_reads_each_groups_flags() {
        let pkg = TestPackage::new("cost");
        pkg.write(
            "problem.yaml",
            "problem_format_version: 2023-07-draft\nname: Cost\ntype: scoring\nlimits:\n  time_limit: 1\n",
        );
        pkg.write("data/sample/1.in", "3\n");
        pkg.write("data/sample/1.ans", "6\n");
        let group = |name: &str, flags: &str| {
            pkg.write(&format!("data/secret/{name}/1.in"), "4\n");
            pkg.write(&format!("data/secret/{name}/1.ans"), "8\n");
            pkg.write(
                &format!("data/secret/{name}/testdata.yaml"),
                &format!(
                    "accept_score: 50\ngrader_flags: min\noutput_validator_flags: \"{flags}\"\n"
                ),
            );
        };
        group("near", "threshold 2");
        group("exact", "points 50");
        pkg.write("submissions/accepted/a.c", DOUBLE_C);
        pkg.write(
            "output_validator/wrapped/build",
            &format!(
                "#!/bin/sh\n{}\ncat > run <<'EOF'\n#!/bin/sh\n# A CMS comparator: checker input answer output.\nEOF\n",
                crate::files::WRAPPED_PROGRAM
            ),
        );
        pkg.write(
            "output_validator/wrapped/checker.py",
            "import sys\nprint(1.0)\n",
        );
        let i = pkg.import("out").unwrap();
        assert!(
            !i.warnings.join("\n").contains("not read back"),
            "{:?}",
            i.warnings
        );
        let p = ojd_judge::Problem::load(&pkg.out("out")).unwrap();
        assert!(matches!(p.checker, ojd_judge::CheckerSpec::Cms { .. }));
        let groups: Vec<(&str, Option<f64>)> = p
            .groups
            .iter()
            .map(|g| (g.name.as_str(), g.threshold))
            .collect();
        assert_eq!(groups, [("exact", None), ("near", Some(2.0))]);
        group("exact", "float_tolerance 1e-6");
        let e = pkg.import("out2").unwrap_err().to_string();
        assert!(
            e.contains("exact/testdata.yaml: output_validator_flags: [\"float_tolerance\", \"1e-6\"]: the output validator is a CMS comparator"),
            "{e}"
        );
        group("exact", "points 50");
        pkg.write(
            "data/sample/testdata.yaml",
            "output_validator_flags: threshold 3\n",
        );
        let e = pkg.import("out3").unwrap_err().to_string();
        assert!(
            e.contains("sample/testdata.yaml: output_validator_flags: a CMS comparator's `threshold T` belongs to a test group"),
            "{e}"
        );
    }
}
