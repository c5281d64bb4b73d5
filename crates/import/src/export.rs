//! `ojd export kattis PROBLEM --to DIR`: an ojd package as a Kattis problem package (2023-07
//! format, with the grading keys of `testdata.yaml` that problemtools reads), so that problems
//! written here can go to other judges. The main entry is [`export_kattis`].
//!
//! What maps onto what (the inverse of [`crate::kattis`], so that an import → export →
//! import round trip keeps tests, answers, limits and verdicts):
//! - title, source, limits → `problem.yaml` (`limits.time_limit` in seconds, `memory` and
//!   `output` in MiB) and a `.timelimit` file for judges that read that;
//! - `tests/sample-X` → `data/sample/X`; a test of a `[[group]]` whose one prefix is
//!   `<name>-` → `data/secret/<name>/<rest>` with the group's points in its `testdata.yaml`
//!   (`accept_score`, `grader_flags: min`); other tests → `data/secret/`;
//! - `tokens`, `float`, `kattis-default` → the default validator's flags, which compare exactly
//!   as they do; `exact` and `lines` → `case_sensitive space_change_sensitive` (close: Kattis
//!   also rejects a missing final newline, and `lines` forgives trailing spaces, Kattis not);
//!   a `kattis` checker → `output_validators/`; a testlib `program` checker is an error;
//! - a validator accepting on exit 42 → `input_validators/` (an ojd validator, exit 0, is
//!   left out with a warning); an interactor → `type: interactive` and `output_validators/`;
//! - `statement.md` → `statement/problem.en.md`; `submissions/<verdict>/` and the reference
//!   solution → `submissions/<kattis verdict>/`.

use std::path::{Path, PathBuf};

use crate::files::{copy_raw, entries, files_in, write_file, Staging};
use crate::ImportError;
use ojd_judge::problem::{CheckerSpec, InteractorProtocol, Problem};

/// What an export made.
#[derive(Clone, Debug, Default, serde::Serialize)]
pub struct Exported {
    pub dir: PathBuf,
    pub tests: usize,
    pub submissions: usize,
    pub warnings: Vec<String>,
}

fn yaml_str(s: &str) -> String {
    // JSON strings are valid YAML scalars, escapes included.
    serde_json::to_string(s).unwrap_or_else(|_| "\"\"".into())
}

fn unsupported(problem: &Problem, key: &str, what: &str) -> ImportError {
    ImportError::Unsupported {
        file: problem.dir.join("problem.toml").display().to_string(),
        key: key.into(),
        what: what.into(),
    }
}

/// Where each test goes under `data/` (path without extension, index of the test), and the
/// groups' folders with their points.
type Layout = (Vec<(PathBuf, usize)>, Vec<(String, u32)>);

fn layout(problem: &Problem) -> Result<Layout, ImportError> {
    let mut folders = Vec::new();
    for (i, g) in problem.groups.iter().enumerate() {
        let folder = match g.tests.as_slice() {
            [p] if p.ends_with('-') && p.len() > 1 => p.trim_end_matches('-').to_string(),
            _ => return Err(unsupported(
                problem,
                &format!("group[{i}].tests"),
                "a Kattis test group is a folder: export needs one prefix \"<folder>-\" per group",
            )),
        };
        if folder.contains('/') || folder.starts_with('.') {
            return Err(unsupported(
                problem,
                &format!("group[{i}].tests"),
                "not a folder name",
            ));
        }
        folders.push((folder, g.points));
    }
    let mut places = Vec::new();
    for (i, t) in problem.tests.iter().enumerate() {
        let path = if t.sample {
            let rest = t.name.strip_prefix("sample-").unwrap_or(&t.name);
            PathBuf::from("sample").join(rest)
        } else {
            let owners: Vec<&(String, u32)> = folders
                .iter()
                .filter(|(f, _)| t.name.starts_with(&format!("{f}-")))
                .collect();
            match owners.as_slice() {
                [] => PathBuf::from("secret").join(&t.name),
                [(f, _)] => PathBuf::from("secret").join(f).join(&t.name[f.len() + 1..]),
                _ => {
                    return Err(unsupported(
                        problem,
                        "group",
                        &format!("test {} is in more than one group", t.name),
                    ))
                }
            }
        };
        places.push((path, i));
    }
    Ok((places, folders))
}

fn kattis_folder(ojd: &str) -> &str {
    match ojd {
        "runtime_error" => "run_time_error",
        other => other,
    }
}

/// Exports `problem` to `dest` (a new folder).
pub fn export_kattis(problem: &Problem, dest: &Path) -> Result<Exported, ImportError> {
    let missing = problem.missing_answers();
    if !missing.is_empty() {
        return Err(ImportError::Invalid {
            file: missing[0].answer.display().to_string(),
            message: format!("missing: run `ojd gen {}` first", problem.dir.display()),
        });
    }
    let stage = Staging::new(dest)?;
    let out = stage.dir.clone();
    let mut warnings = Vec::new();
    let (places, folders) = layout(problem)?;
    for (path, i) in &places {
        let t = &problem.tests[*i];
        let base = out.join("data").join(path);
        copy_raw(&t.input, &base.with_extension("in"))?;
        copy_raw(&t.answer, &base.with_extension("ans"))?;
    }
    for (folder, points) in &folders {
        let text = format!(
            "# The group's points, all or nothing.\non_reject: continue\naccept_score: {points}\nrange: 0 {points}\ngrader_flags: min\n"
        );
        write_file(
            &out.join("data/secret").join(folder).join("testdata.yaml"),
            text.as_bytes(),
        )?;
    }
    let mut kinds = vec![if problem.groups.is_empty() {
        "pass-fail"
    } else {
        "scoring"
    }];
    let mut data_yaml = String::new();
    let validator_flags = |flags: &[String]| -> String {
        let words: Vec<String> = flags.iter().map(|f| yaml_str(f)).collect();
        format!("output_validator_flags: [{}]\n", words.join(", "))
    };
    let copy_program = |rel: &Path, folder: &str| -> Result<(), ImportError> {
        let name = rel.file_name().unwrap_or_default();
        let stem = rel
            .file_stem()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        copy_raw(
            &problem.dir.join(rel),
            &out.join(folder).join(&stem).join(name),
        )
    };
    if let Some(i) = &problem.interactor {
        if i.protocol != InteractorProtocol::Kattis {
            return Err(unsupported(
                problem,
                "interactor.protocol",
                "only a Kattis interactor can be exported",
            ));
        }
        kinds.push("interactive");
        copy_program(&i.path, "output_validators")?;
        if !i.flags.is_empty() {
            data_yaml += &validator_flags(&i.flags);
        }
    } else {
        match &problem.checker {
            CheckerSpec::Kattis { path, flags } => {
                copy_program(path, "output_validators")?;
                if !flags.is_empty() {
                    data_yaml += &validator_flags(flags);
                }
            }
            CheckerSpec::Program { .. } => return Err(unsupported(
                problem,
                "checker",
                "a testlib checker cannot be exported: Kattis validators speak another protocol",
            )),
            CheckerSpec::Exact | CheckerSpec::Lines => {
                warnings.push(format!(
                    "checker {:?} exported as case_sensitive space_change_sensitive, which also rejects a missing final newline{}",
                    problem.checker,
                    if problem.checker == CheckerSpec::Lines { " and trailing spaces" } else { "" }
                ));
                data_yaml +=
                    &validator_flags(&["case_sensitive".into(), "space_change_sensitive".into()]);
            }
            other => {
                let flags = other
                    .default_flags()
                    .expect("built-in token checkers have flags");
                let flags = flags.to_flags();
                if !flags.is_empty() {
                    data_yaml += &validator_flags(&flags);
                }
            }
        }
    }
    if !data_yaml.is_empty() {
        write_file(&out.join("data/testdata.yaml"), data_yaml.as_bytes())?;
    }
    if let Some(v) = &problem.validator {
        if problem.validator_accept == 42 {
            copy_program(v, "input_validators")?;
            if !problem.validator_args.is_empty() {
                let words: Vec<String> =
                    problem.validator_args.iter().map(|f| yaml_str(f)).collect();
                let mut text =
                    std::fs::read_to_string(out.join("data/testdata.yaml")).unwrap_or_default();
                text += &format!("input_validator_flags: [{}]\n", words.join(", "));
                write_file(&out.join("data/testdata.yaml"), text.as_bytes())?;
            }
        } else {
            warnings.push(format!(
                "{}: an ojd validator (exit 0 accepts) is not a Kattis input validator (exit 42); left out",
                v.display()
            ));
        }
    }
    let secs = problem.time_limit.as_secs_f64();
    let mut yaml =
        String::from("# Exported by `ojd export kattis`.\nproblem_format_version: 2023-07-draft\n");
    yaml += &format!("name: {}\n", yaml_str(&problem.title));
    if !problem.source.is_empty() {
        yaml += &format!("source: {}\n", yaml_str(&problem.source));
    }
    yaml += &format!("type: [{}]\n", kinds.join(", "));
    yaml += &format!(
        "limits:\n  time_limit: {secs}\n  memory: {}\n",
        problem.memory_limit.div_ceil(1 << 20)
    );
    if let Some(o) = problem.output_limit {
        yaml += &format!("  output: {}\n", o.div_ceil(1 << 20));
    }
    write_file(&out.join("problem.yaml"), yaml.as_bytes())?;
    write_file(&out.join(".timelimit"), format!("{secs}\n").as_bytes())?;
    if let Some(st) = problem.statement() {
        write_file(&out.join("statement/problem.en.md"), st.as_bytes())?;
    }
    for f in files_in(&problem.dir.join("statement")) {
        let name = f.file_name().unwrap_or_default();
        if !out.join("statement").join(name).exists() {
            copy_raw(&f, &out.join("statement").join(name))?;
        }
    }
    let mut submissions = 0;
    let solution_in_submissions = problem.solution.starts_with("submissions");
    if !solution_in_submissions {
        let name = problem.solution.file_name().unwrap_or_default();
        copy_raw(
            &problem.dir.join(&problem.solution),
            &out.join("submissions/accepted").join(name),
        )?;
        submissions += 1;
    }
    for folder in files_or_dirs(&problem.dir.join("submissions")) {
        let name = folder
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        for f in files_in(&folder) {
            let file = f.file_name().unwrap_or_default();
            copy_raw(
                &f,
                &out.join("submissions")
                    .join(kattis_folder(&name))
                    .join(file),
            )?;
            submissions += 1;
        }
    }
    let dir = stage.commit()?;
    Ok(Exported {
        dir,
        tests: places.len(),
        submissions,
        warnings,
    })
}

fn files_or_dirs(dir: &Path) -> Vec<PathBuf> {
    entries(dir).into_iter().filter(|p| p.is_dir()).collect()
}
