//! BAPCtools' `generators/generators.yaml`: the test data of a package that keeps only the
//! recipe (today's BAPCtools archives), made at import as BAPCtools makes it, every program in
//! the sandbox. The main entry is [`generate`].
//!
//! What is read, the rest refused naming the key, is listed in docs/packages.md ("BAPCtools
//! generators"); [`recipe`] reads the file into test cases, [`command`] splits a command and
//! seeds it, [`programs`] finds, compiles and runs the programs, and this file makes the data:
//! each test case in order, then the answers the solutions make (an empty one in an interactive
//! or multi-pass problem, as BAPCtools writes it), then the included tests' copies and the
//! folders' `test_group.yaml`.
//!
//! The package is copied to a scratch folder with the data written into its `data/`, and the
//! import reads that copy; `ojd gen` ([`regenerate`]) copies the made files into the package's
//! own `data/`. A package whose `data/secret/` already holds tests keeps them (they
//! are what the generators made) and runs nothing.

mod command;
mod pattern;
mod programs;
mod recipe;

use std::path::{Path, PathBuf};

use serde_norway::Value;

use crate::files::{copy_raw, entries, write_file};
use crate::ImportError;
use command::arguments;
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
    Ok(make(dir, judge, false, warnings)?.map(|m| (m.scratch, m.copy)))
}

/// `ojd gen` on a Kattis package: every test of `generators/generators.yaml` made again in the
/// sandbox (as at import, whatever `data/` holds) and written into the package's own `data/`.
/// Returns how many tests were made. Nothing is written when any program fails; a `data/` path
/// that is a link is refused (the package's files only).
pub(super) fn regenerate(
    dir: &Path,
    judge: &Judge,
    warnings: &mut Vec<String>,
) -> Result<usize, ImportError> {
    let Some(made) = make(dir, Some(judge), true, warnings)? else {
        return Err(ImportError::Invalid {
            file: dir.join("generators/generators.yaml").display().to_string(),
            message: "no such file: nothing to generate".into(),
        });
    };
    for file in &made.files {
        let from = made.copy.join("data").join(file);
        if !from.is_file() {
            continue;
        }
        let to = dir.join("data").join(file);
        // Every folder from the package down to the file is a real folder of it.
        let mut at = dir.to_path_buf();
        for part in Path::new("data").join(file).components() {
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
        let data = std::fs::read(&from)
            .map_err(|e| ImportError::Run(format!("read {}: {e}", from.display())))?;
        write_file(&to, &data)?;
    }
    Ok(made.tests)
}

/// What [`make`] made: the scratch folder, the package's copy in it, every file written under
/// its `data/` (paths under `data/`) and how many tests they are.
struct Made {
    scratch: tempfile::TempDir,
    copy: PathBuf,
    files: Vec<PathBuf>,
    tests: usize,
}

/// `base` (a test's path without extension) with the extension `ext` (which may hold a dot:
/// `in.statement`), whatever dots the test's name has.
fn with_ext(base: &Path, ext: &str) -> PathBuf {
    let mut s = base.as_os_str().to_os_string();
    s.push(".");
    s.push(ext);
    PathBuf::from(s)
}

/// Makes the data of `generators/generators.yaml` into a copy of the package (see
/// [`generate`]); `force` runs it even when `data/secret/` has tests.
fn make(
    dir: &Path,
    judge: Option<&Judge>,
    force: bool,
    warnings: &mut Vec<String>,
) -> Result<Option<Made>, ImportError> {
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
    let data = copy.join("data");
    // Compiled once each: generators by their command word, solutions by path.
    let mut programs: Vec<(String, Program)> = Vec::new();
    let mut files: Vec<PathBuf> = Vec::new();
    // Programs and files are read from the package itself (reads stay inside it); what is made
    // goes into the copy.
    let gen_dir = dir.join("generators");
    let mut unanswered: Vec<(PathBuf, Option<String>)> = Vec::new();
    for c in &recipe.cases {
        let base = data.join(&c.path);
        let what = format!("{file}: {}", c.path.display());
        create_parent(&base)?;
        match &c.make {
            Make::Generate { command, seed } => {
                let here = c.path.display().to_string();
                let words = command::split(command)
                    .map_err(|why| refuse(&file, &here, &format!("{command}: {why}")))?;
                let src = programs::source(dir, &words[0], &recipe.generators)
                    .map_err(|why| refuse(&file, &here, &why))?;
                let prog = match programs.iter().find(|(k, _)| *k == words[0]) {
                    Some((_, p)) => p.clone(),
                    None => {
                        let p = programs::compile_source(judge, &src)?;
                        programs.push((words[0].clone(), p.clone()));
                        p
                    }
                };
                // BAPCtools: a failing generator is tried again with the next seeds, `retries`
                // times in all.
                let mut attempt = 0;
                loop {
                    let args = arguments(&words[1..], (seed + attempt) & 0x7fff_ffff);
                    match generate_one(judge, &prog, &args, &base, &what) {
                        Ok(()) => break,
                        Err(ImportError::Invalid { .. }) if attempt + 1 < c.retries => attempt += 1,
                        Err(e) => return Err(e),
                    }
                }
            }
            Make::Copy(from) => {
                let from = gen_dir.join(from);
                if !with_ext(&from, "in").is_file() {
                    return Err(refuse(
                        &file,
                        &format!("{}.copy", c.path.display()),
                        &format!("{}: no such file", with_ext(&from, "in").display()),
                    ));
                }
                for ext in recipe::TEXT_EXTENSIONS {
                    if with_ext(&from, ext).is_file() {
                        copy_raw(&with_ext(&from, ext), &with_ext(&base, ext))?;
                    }
                }
            }
            Make::Literal => {}
        }
        for (ext, text) in &c.literals {
            write_file(&with_ext(&base, ext), text.as_bytes())?;
        }
        if !with_ext(&base, "ans").is_file() {
            unanswered.push((base, c.solution.clone()));
        }
    }
    // BAPCtools: an interactive or multi-pass problem's test without an answer gets an empty
    // one (the interactor reads it), never the solution's output.
    if !unanswered.is_empty() && interactive_or_multi_pass(dir)? {
        for (base, _) in unanswered.drain(..) {
            write_file(&with_ext(&base, "ans"), b"")?;
        }
    }
    for (base, solution) in unanswered {
        let reference = match solution.as_deref() {
            // `solution:` set empty: no answer is made (the import names the test without one).
            Some("") => continue,
            Some(s) => dir.join(s.trim_start_matches('/')),
            None => first_accepted(dir).ok_or_else(|| ImportError::Invalid {
                file: file.clone(),
                message: "the tests' answers need a solution: no `solution` key and no accepted submission of one file".into(),
            })?,
        };
        let key = format!("solution:{}", reference.display());
        let prog = match programs.iter().find(|(k, _)| *k == key) {
            Some((_, p)) => p.clone(),
            None => {
                let p = compile(judge, &reference)?;
                programs.push((key, p.clone()));
                p
            }
        };
        let what = format!("{}: the answer of {}", reference.display(), base.display());
        run(
            judge,
            &prog,
            &[],
            Some(&with_ext(&base, "in")),
            &with_ext(&base, "ans"),
            vec![],
            &what,
        )?;
    }
    // Links within a test (`in.statement: {link: in}`): the file it names, once every file
    // is made (an answer from the solution included), copied.
    for c in &recipe.cases {
        let base = data.join(&c.path);
        for (ext, target) in &c.linked {
            let source = with_ext(&base, target);
            if !source.is_file() {
                return Err(refuse(
                    &file,
                    &format!("{}.{ext}", c.path.display()),
                    &format!("a link to {target}, which the test does not have"),
                ));
            }
            let bytes = std::fs::read(&source)
                .map_err(|e| ImportError::Run(format!("read {}: {e}", source.display())))?;
            write_file(&with_ext(&base, ext), &bytes)?;
        }
    }
    // `include`: the included tests' files, copied under their own names.
    for (from, to) in &recipe.links {
        for ext in recipe::TEXT_EXTENSIONS {
            let source = with_ext(&data.join(from), ext);
            if source.is_file() {
                let bytes = std::fs::read(&source)
                    .map_err(|e| ImportError::Run(format!("read {}: {e}", source.display())))?;
                write_file(&with_ext(&data.join(to), ext), &bytes)?;
            }
        }
    }
    // BAPCtools' `match`: each made file searched for its expressions; one not found is a
    // warning (BAPCtools' own rule: the data may still be right), a file not made an error.
    for c in &recipe.cases {
        for pattern in &c.patterns {
            let made = with_ext(&data.join(&c.path), pattern.ext);
            let here = format!("{}.match", c.path.display());
            let bytes = std::fs::read(&made).map_err(|_| {
                refuse(
                    &file,
                    &here,
                    &format!("the test has no {} to match", pattern.ext),
                )
            })?;
            if pattern.regex.find(&bytes[..]).is_none() {
                warnings.push(format!(
                    "{file}: {}.{}: does not match {:?} (match)",
                    c.path.display(),
                    pattern.ext,
                    pattern.source
                ));
            }
        }
    }
    for (folder, name, text) in &recipe.group_files {
        write_file(&data.join(folder).join(name), text.as_bytes())?;
        files.push(folder.join(name));
    }
    let tests: Vec<&PathBuf> = recipe
        .cases
        .iter()
        .map(|c| &c.path)
        .chain(recipe.links.iter().map(|(_, to)| to))
        .collect();
    for t in &tests {
        for ext in recipe::TEXT_EXTENSIONS {
            if with_ext(&data.join(t), ext).is_file() {
                files.push(with_ext(t, ext));
            }
        }
    }
    warnings.push(format!(
        "{file}: {} tests made by its generators in the sandbox",
        tests.len()
    ));
    Ok(Some(Made {
        scratch,
        copy,
        files,
        tests: tests.len(),
    }))
}

/// Runs a generator for the test `base`: its input is the file `testcase.in` when it writes one
/// (BAPCtools: its standard output is then ignored), else its standard output; a `testcase.ans`
/// it writes is the answer.
fn generate_one(
    judge: &Judge,
    prog: &Program,
    args: &[String],
    base: &Path,
    what: &str,
) -> Result<(), ImportError> {
    let stdout = with_ext(base, "stdout");
    let (written_in, written_ans) = (with_ext(base, "in.written"), with_ext(base, "ans.written"));
    run(
        judge,
        prog,
        args,
        None,
        &stdout,
        vec![
            ("testcase.in".into(), written_in.clone()),
            ("testcase.ans".into(), written_ans.clone()),
        ],
        what,
    )?;
    let rename = |from: &Path, to: &Path| {
        std::fs::rename(from, to)
            .map_err(|e| ImportError::Run(format!("rename {}: {e}", from.display())))
    };
    if written_in.is_file() {
        rename(&written_in, &with_ext(base, "in"))?;
        let _ = std::fs::remove_file(&stdout);
    } else {
        rename(&stdout, &with_ext(base, "in"))?;
    }
    if written_ans.is_file() {
        rename(&written_ans, &with_ext(base, "ans"))?;
    }
    Ok(())
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
            "data:\n  secret:\n    data:\n      - x:\n          generate: gen.py\n          tries: 3\n",
            "generators.yaml: data.secret.x.tries: not supported by ojd (a test case reads generate, copy",
        );
        refused(
            "data:\n  secret:\n    flags: [a]\n    data:\n      - x: gen.py\n",
            "generators.yaml: data.secret.flags: not supported by ojd (a folder reads data, include",
        );
        refused(
            "data:\n  secret:\n    data:\n      - x: gen.py\n    include: [y]\n",
            "generators.yaml: data.secret.include[0]: y: no earlier test case or folder has this key",
        );
        refused(
            "data:\n  sample:\n    data:\n      a: {in: \"1\"}\n  secret:\n    data:\n      - a: {in: \"1\"}\n      - b:\n          data:\n            - a: {in: \"1\"}\n          include: [a]\n",
            "generators.yaml: data.secret.b.include[0]: a: ambiguous",
        );
        refused(
            "data:\n  sample:\n    data:\n      '1': {in: \"1\"}\n  secret:\n    data:\n      '1': {in: \"2\"}\n    include: ['1']\n",
            "generators.yaml: data.secret.include: sample/1: included, but this folder has a test case of that name",
        );
        refused(
            "generators:\n  gen.py: [gen.py, lib.py]\ndata:\n  secret:\n    data: []\n",
            "generators.yaml: generators.gen.py: a generator's name has no `.` or `/`",
        );
        refused(
            "data:\n  secret:\n    data:\n      - x: gen.py 'a b\n",
            "generators.yaml: data.secret.x: \"gen.py 'a b\": no closing quotation",
        );
        refused(
            "data:\n  secret:\n    data:\n      - x: {copy: ../../etc/passwd}\n",
            "generators.yaml: data.secret.x.copy: ../../etc/passwd: a path under generators/",
        );
        refused(
            "data:\n  secret:\n    data:\n      - x: {generate: gen.py, copy: a}\n",
            "generators.yaml: data.secret.x: a test case has generate or copy, not both",
        );
        refused(
            "data:\n  sample:\n    data:\n      - '': {in: \"1\\n\"}\n",
            "generators.yaml: data.secret: no secret test",
        );
        // BAPCtools' links within a test: only its statement and download files, to a file
        // of their kind that is no link itself.
        refused(
            "data:\n  secret:\n    data:\n      - x: {in: \"1\", ans: {link: in}}\n",
            "generators.yaml: data.secret.x.ans: only in.statement, ans.statement, in.download, ans.download may link",
        );
        refused(
            "data:\n  secret:\n    data:\n      - x: {in: \"1\", ans.statement: {link: in}}\n",
            "generators.yaml: data.secret.x.ans.statement: in: a link names the test's ans or another ans.* file",
        );
        refused(
            "data:\n  secret:\n    data:\n      - x: {in: \"1\", in.statement: {link: in.download}, in.download: {link: in}}\n",
            "generators.yaml: data.secret.x.in.statement: in.download is a link itself",
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
