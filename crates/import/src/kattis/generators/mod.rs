//! BAPCtools' `generators/generators.yaml`: the test data of a package that keeps only the
//! recipe (today's BAPCtools archives), made at import as BAPCtools makes it, every program in
//! the sandbox. The main entry is [`generate`].
//!
//! What is read (the rest is an error naming the key):
//! - the root: `data` (`sample`, `secret`; the `invalid_*` and `valid_output` folders test the
//!   validators, not submissions, and are skipped with a warning), `solution` (the submission
//!   that makes the answers, `/submissions/...`; default: the first accepted submission of one
//!   file by name), `random_salt`, `version`;
//! - a folder: `data`, a list (test cases numbered `01-name` in the order of the whole file, as
//!   BAPCtools numbers them) or a map (named as written, in name order);
//! - a test case: a generator command (`gen.py 10 {seed}`; a string ending in `.in` is a
//!   `copy`), or a map of `generate`, `copy` (a path under `generators/` without extension: its
//!   `.in` and `.ans`), `in` and `ans` (the text itself), `count` (one test per value, named
//!   `<name>-<value>`, `{count}` the value), `hint` and `description` (comments).
//!   `{seed}` and `{seed:N}` are BAPCtools' seed (SHA-512 of `random_salt` and the command,
//!   modulo 2^31; the salt followed by `:<value - 1>` for a count's values but 1), `{name}` is
//!   `testcase`; the generator prints the input on standard output. A test without an answer
//!   gets the solution's output, or an empty one in an interactive or multi-pass problem (as
//!   BAPCtools writes it).
//!
//! The package is copied to a scratch folder with the data written into its `data/`, and the
//! import reads that copy; `ojd gen` ([`regenerate`]) copies the made files into the package's
//! own `data/`. A package whose `data/secret/` already holds tests keeps them (they
//! are what the generators made) and runs nothing.

mod command;
mod programs;
mod recipe;

use std::path::{Path, PathBuf};

use serde_norway::Value;

use crate::files::{copy_raw, entries, write_file};
use crate::ImportError;
use command::{arguments, seed};
use ojd_judge::{Judge, Program};
use programs::{compile, copy_package, run};
use recipe::{text, Make};

/// The package with its generated data: a scratch folder holding a copy of the package whose
/// `data/` has every test of `generators/generators.yaml` (see the module documentation), or
/// `None` when there is no such file or `data/secret/` already has tests.
pub(super) fn generate(
    dir: &Path,
    judge: Option<&Judge>,
    warnings: &mut Vec<String>,
) -> Result<Option<(tempfile::TempDir, PathBuf)>, ImportError> {
    Ok(make(dir, judge, false, warnings)?.map(|(scratch, copy, _)| (scratch, copy)))
}

/// `ojd gen` on a Kattis package: every test of `generators/generators.yaml` made again in the
/// sandbox (as at import, whatever `data/` holds) and written into the package's own `data/`.
/// Returns the tests' paths under `data/` (without extension). Nothing is written when any
/// program fails; a `data/` path that is a link is refused (the package's files only).
pub(super) fn regenerate(
    dir: &Path,
    judge: &Judge,
    warnings: &mut Vec<String>,
) -> Result<Vec<PathBuf>, ImportError> {
    let Some((_scratch, copy, cases)) = make(dir, Some(judge), true, warnings)? else {
        return Err(ImportError::Invalid {
            file: dir.join("generators/generators.yaml").display().to_string(),
            message: "no such file: nothing to generate".into(),
        });
    };
    for case in &cases {
        for ext in ["in", "ans"] {
            let made = copy.join("data").join(case).with_extension(ext);
            if !made.is_file() {
                continue;
            }
            let to = dir.join("data").join(case).with_extension(ext);
            // Every folder from the package down to the file is a real folder of it.
            let mut at = dir.to_path_buf();
            for part in Path::new("data")
                .join(case)
                .with_extension(ext)
                .components()
            {
                at.push(part);
                if at
                    .symlink_metadata()
                    .is_ok_and(|m| m.file_type().is_symlink())
                {
                    return Err(ImportError::Invalid {
                        file: at.display().to_string(),
                        message: "a link: ojd gen writes the package's own files only".into(),
                    });
                }
            }
            let data = std::fs::read(&made)
                .map_err(|e| ImportError::Run(format!("read {}: {e}", made.display())))?;
            write_file(&to, &data)?;
        }
    }
    Ok(cases)
}

/// Makes the data of `generators/generators.yaml` into a copy of the package (see
/// [`generate`]); `force` runs it even when `data/secret/` has tests.
fn make(
    dir: &Path,
    judge: Option<&Judge>,
    force: bool,
    warnings: &mut Vec<String>,
) -> Result<Option<(tempfile::TempDir, PathBuf, Vec<PathBuf>)>, ImportError> {
    let yaml_file = dir.join("generators/generators.yaml");
    if !yaml_file.is_file() {
        return Ok(None);
    }
    let has_secret = !force && walk_has_input(&dir.join("data/secret"));
    if has_secret {
        warnings.push(format!(
            "{}: not run: data/secret/ holds the tests it made",
            yaml_file.display()
        ));
        return Ok(None);
    }
    let file = yaml_file.display().to_string();
    let doc = super::yaml::read_yaml(&yaml_file)?;
    let recipe = recipe::read(&file, &doc, warnings)?;
    let Some(judge) = judge else {
        return Err(ImportError::Run(format!(
            "{file}: the generators need the sandbox"
        )));
    };
    let scratch = tempfile::tempdir()
        .map_err(|e| ImportError::Run(format!("a scratch folder for the generators: {e}")))?;
    let name = dir
        .canonicalize()
        .ok()
        .and_then(|d| d.file_name().map(|n| n.to_os_string()))
        .unwrap_or_else(|| "problem".into());
    let copy = scratch.path().join(name);
    copy_package(dir, &copy)?;
    let mut programs: Vec<(PathBuf, Program)> = Vec::new();
    let mut program = |file: &Path| -> Result<Program, ImportError> {
        if let Some((_, p)) = programs.iter().find(|(f, _)| f == file) {
            return Ok(p.clone());
        }
        let p = compile(judge, file)?;
        programs.push((file.to_path_buf(), p.clone()));
        Ok(p)
    };
    // Programs and files are read from the package itself (reads stay inside it); what is made
    // goes into the copy.
    let gen_dir = dir.join("generators");
    let mut unanswered = Vec::new();
    for (c, input, answer) in &recipe.cases {
        let base = copy.join("data").join(&c.path);
        let what = format!("{file}: {}", c.path.display());
        match &c.make {
            Make::Generate(command, count) => {
                let words: Vec<&str> = command.split_whitespace().collect();
                if command.contains(['"', '\'', '|', '>', '<']) || words.is_empty() {
                    return Err(refuse(
                        &file,
                        &c.path.display().to_string(),
                        "a generator command is a program and its arguments (no quotes, pipes or redirects)",
                    ));
                }
                let exe = match words[0].strip_prefix('/') {
                    Some(abs) => dir.join(abs),
                    None => gen_dir.join(words[0]),
                };
                if !exe.is_file() {
                    return Err(refuse(
                        &file,
                        &c.path.display().to_string(),
                        &format!("{}: no such generator file (a generator of several files is not supported)", words[0]),
                    ));
                }
                let prog = program(&exe)?;
                let args = arguments(&words[1..], seed(&recipe.salt, command, *count));
                create_parent(&base)?;
                run(judge, &prog, &args, None, &base.with_extension("in"), &what)?;
            }
            Make::Copy(from) => {
                let from = gen_dir.join(from);
                copy_raw(&from.with_extension("in"), &base.with_extension("in"))?;
                if from.with_extension("ans").is_file() && answer.is_none() {
                    copy_raw(&from.with_extension("ans"), &base.with_extension("ans"))?;
                }
            }
            Make::Literal => {}
        }
        if let Some(i) = input {
            write_file(&base.with_extension("in"), i.as_bytes())?;
        }
        if let Some(a) = answer {
            write_file(&base.with_extension("ans"), a.as_bytes())?;
        }
        if !base.with_extension("ans").is_file() {
            unanswered.push(base);
        }
    }
    // BAPCtools: an interactive or multi-pass problem's test without an answer gets an empty
    // one (the interactor reads it), never the solution's output.
    if !unanswered.is_empty() && interactive_or_multi_pass(dir)? {
        for base in unanswered.drain(..) {
            write_file(&base.with_extension("ans"), b"")?;
        }
    }
    if !unanswered.is_empty() {
        let reference = match &recipe.solution {
            Some(s) => dir.join(s.trim_start_matches('/')),
            None => first_accepted(dir).ok_or_else(|| ImportError::Invalid {
                file: file.clone(),
                message: "the tests' answers need a solution: no `solution` key and no accepted submission of one file".into(),
            })?,
        };
        let prog = program(&reference)?;
        for base in unanswered {
            let what = format!("{}: the answer of {}", reference.display(), base.display());
            run(
                judge,
                &prog,
                &[],
                Some(&base.with_extension("in")),
                &base.with_extension("ans"),
                &what,
            )?;
        }
    }
    warnings.push(format!(
        "{file}: {} tests made by its generators in the sandbox",
        recipe.cases.len()
    ));
    let cases = recipe
        .cases
        .iter()
        .map(|(c, _, _)| c.path.clone())
        .collect();
    Ok(Some((scratch, copy, cases)))
}

fn refuse(file: &str, key: &str, what: &str) -> ImportError {
    ImportError::Unsupported {
        file: file.into(),
        key: key.into(),
        what: what.into(),
    }
}

/// Whether problem.yaml makes the problem interactive or multi-pass (`type`, a word or a list of
/// words, or the legacy `validation: custom interactive` / `custom multi-pass`).
fn interactive_or_multi_pass(dir: &Path) -> Result<bool, ImportError> {
    let yaml = dir.join("problem.yaml");
    if !yaml.is_file() {
        return Ok(false);
    }
    let doc = super::yaml::read_yaml(&yaml)?;
    let words = |v: Option<&Value>| -> Vec<String> {
        match v {
            Some(Value::String(s)) => s.split_whitespace().map(str::to_string).collect(),
            Some(Value::Sequence(items)) => items.iter().filter_map(text).collect(),
            _ => Vec::new(),
        }
    };
    let mut all = words(doc.get("type"));
    all.extend(words(doc.get("validation")));
    Ok(all.iter().any(|w| w == "interactive" || w == "multi-pass"))
}

fn create_parent(base: &Path) -> Result<(), ImportError> {
    match base.parent() {
        Some(d) => crate::files::create_dirs(d),
        None => Ok(()),
    }
}

/// Whether `dir` (or a folder in it) holds a `.in` file.
fn walk_has_input(dir: &Path) -> bool {
    entries(dir).iter().any(|e| {
        if e.is_dir() {
            walk_has_input(e)
        } else {
            e.extension().is_some_and(|x| x == "in")
        }
    })
}

/// BAPCtools' default solution: the first accepted submission of one file, by name.
fn first_accepted(pkg: &Path) -> Option<PathBuf> {
    let mut files: Vec<PathBuf> = entries(&pkg.join("submissions/accepted"))
        .into_iter()
        .filter(|f| f.is_file())
        .collect();
    files.sort();
    files.into_iter().next()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::kattis::TestPackage;

    /// A key ojd does not read is refused, naming it; generators that would have to be skipped
    /// (no sandbox) refuse the import rather than leave the samples alone; a recipe without a
    /// secret test is refused too.
    #[test]
    fn generators_yaml_refusals_name_the_key() {
        let pkg = TestPackage::new("g");
        pkg.write(
            "problem.yaml",
            "problem_format_version: 2025-09\nname: G\nlimits:\n  time_limit: 1\n",
        );
        pkg.write("submissions/accepted/a.py", "print(input())\n");
        pkg.write("generators/gen.py", "print(1)\n");
        let refused = |yaml: &str, want: &str| {
            pkg.write("generators/generators.yaml", yaml);
            let e = pkg.import("out").unwrap_err().to_string();
            assert!(e.contains(want), "{want} in {e}");
            assert!(!pkg.out("out").exists());
        };
        refused(
            "data:\n  secret:\n    data:\n      - x:\n          generate: gen.py\n          count: 300\n",
            "generators.yaml: data.secret.x.count: 300: expected a count from 1 to 100",
        );
        refused(
            "data:\n  secret:\n    data:\n      - x:\n          generate: gen.py\n          retries: 3\n",
            "generators.yaml: data.secret.x.retries: not supported by ojd",
        );
        refused(
            "data:\n  secret:\n    data:\n      - x: gen.py\n    include: [y]\n",
            "generators.yaml: data.secret.include: ojd runs a folder's `data` only",
        );
        refused(
            "generators:\n  gen: [gen.py, lib.py]\ndata:\n  secret:\n    data: []\n",
            "generators.yaml: generators: generators of several files are not supported",
        );
        refused(
            "data:\n  sample:\n    data:\n      - '': {in: \"1\\n\"}\n",
            "generators.yaml: data.secret: no secret test",
        );
        refused(
            "data:\n  secret:\n    data:\n      - x: gen.py\n",
            "generators.yaml: the generators need the sandbox",
        );
    }

    /// An interactive or multi-pass problem's made tests get empty answers (BAPCtools' rule):
    /// told by `type` (a word or a list) or the legacy `validation`.
    #[test]
    fn interactive_and_multi_pass_are_read_from_problem_yaml() {
        let d = tempfile::tempdir().unwrap();
        let is = |yaml: &str| {
            std::fs::write(d.path().join("problem.yaml"), yaml).unwrap();
            interactive_or_multi_pass(d.path()).unwrap()
        };
        assert!(is("type: interactive\n"));
        assert!(is("type: [pass-fail, multi-pass]\n"));
        assert!(is("validation: custom interactive\n"));
        assert!(!is("type: pass-fail\n"));
        assert!(!is("name: x\n"));
    }
}
