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

use std::path::{Path, PathBuf};

use serde_norway::Value;

use crate::files::{copy_raw, entries, write_file};
use crate::ImportError;
use ojd_judge::{Compiled, Judge, Program, ProgramRun};

/// One test case of generators.yaml: its path under `data/` (without extension) and what makes
/// it.
struct Case {
    path: PathBuf,
    make: Make,
}

enum Make {
    /// A generator command (`{count}` put in) and its `count` value (BAPCtools' seed differs
    /// per value but 1).
    Generate(String, i64),
    Copy(String),
    Literal,
}

struct Parse<'a> {
    file: String,
    salt: String,
    cases: Vec<(Case, Option<String>, Option<String>)>,
    next_number: usize,
    width: usize,
    warnings: &'a mut Vec<String>,
}

impl Parse<'_> {
    fn refuse(&self, key: &str, what: &str) -> ImportError {
        ImportError::Unsupported {
            file: self.file.clone(),
            key: key.into(),
            what: what.into(),
        }
    }
}

fn is_folder(v: &Value) -> bool {
    v.as_mapping().is_some_and(|m| {
        ["data", "test_group.yaml", "testdata.yaml", "include"]
            .iter()
            .any(|k| m.contains_key(*k))
    })
}

/// The number of test cases BAPCtools numbers (those in lists), for the width of the numbers.
fn count_numbered(v: &Value) -> usize {
    let Some(data) = v.get("data") else { return 0 };
    let (list, numbered) = match data {
        Value::Sequence(s) => (s.clone(), true),
        Value::Mapping(_) => (vec![data.clone()], false),
        _ => return 0,
    };
    list.iter()
        .filter_map(Value::as_mapping)
        .flat_map(|m| m.values())
        .map(|e| {
            if is_folder(e) {
                count_numbered(e)
            } else if numbered {
                count_values(e).ok().flatten().map_or(1, |c| c.len())
            } else {
                0
            }
        })
        .sum()
}

/// A test case's `count` as BAPCtools reads it: a number from 1 to 100 (the values 1 to it), a
/// list of distinct whole numbers, or a range `"lo..=hi"`; at most 100 values. `Ok(None)`
/// without a `count`; `Err` says what is wrong with it.
fn count_values(v: &Value) -> Result<Option<Vec<i64>>, String> {
    let Some(c) = v.as_mapping().and_then(|m| m.get("count")) else {
        return Ok(None);
    };
    let values: Vec<i64> = match c {
        Value::Number(n) => match n.as_i64() {
            Some(n) if (1..=100).contains(&n) => (1..=n).collect(),
            _ => return Err(format!("{n}: expected a count from 1 to 100")),
        },
        Value::Sequence(items) => {
            let mut out = Vec::new();
            for i in items {
                match i.as_i64() {
                    Some(x) if !out.contains(&x) => out.push(x),
                    Some(x) => return Err(format!("{x} twice in the list")),
                    None => return Err("expected a list of whole numbers".into()),
                }
            }
            out
        }
        Value::String(r) => {
            let parsed = r.split_once("..=").and_then(|(lo, hi)| {
                Some((
                    lo.trim().parse::<i64>().ok()?,
                    hi.trim().parse::<i64>().ok()?,
                ))
            });
            match parsed {
                Some((lo, hi)) if lo <= hi && hi - lo < 100 => (lo..=hi).collect(),
                _ => {
                    return Err(format!(
                        "{r:?}: expected a range \"lo..=hi\" of at most 100 values"
                    ))
                }
            }
        }
        _ => return Err("expected a number, a list or a range \"lo..=hi\"".into()),
    };
    if values.is_empty() || values.len() > 100 {
        return Err("expected from 1 to 100 values".into());
    }
    Ok(Some(values))
}

fn text(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

/// Walks the folder `v` at `path` (under `data/`), `key` its place in the file for errors.
fn folder(p: &mut Parse<'_>, v: &Value, path: &Path, key: &str) -> Result<(), ImportError> {
    let Some(m) = v.as_mapping() else {
        return Err(p.refuse(key, "a folder is a map with `data`"));
    };
    for (k, _) in m {
        let k = text(k).unwrap_or_default();
        if k != "data" {
            return Err(p.refuse(
                &format!("{key}.{k}"),
                "ojd runs a folder's `data` only (test_group.yaml, include and the like are not supported here)",
            ));
        }
    }
    let Some(data) = m.get("data") else {
        return Ok(());
    };
    let (entries, numbered): (Vec<&Value>, bool) = match data {
        Value::Sequence(s) => (s.iter().collect(), true),
        Value::Mapping(_) => (vec![data], false),
        Value::Null => (vec![], false),
        _ => return Err(p.refuse(&format!("{key}.data"), "expected a list or a map")),
    };
    let groups = entries
        .iter()
        .filter_map(|e| e.as_mapping())
        .flat_map(|m| m.values())
        .filter(|v| is_folder(v))
        .count();
    let mut next_group = 1;
    for (i, entry) in entries.iter().enumerate() {
        let Some(em) = entry.as_mapping() else {
            return Err(p.refuse(&format!("{key}.data[{i}]"), "expected a map"));
        };
        let mut items: Vec<(String, &Value)> = em
            .iter()
            .map(|(k, v)| (text(k).unwrap_or_default(), v))
            .collect();
        if !numbered {
            items.sort_by(|a, b| a.0.cmp(&b.0));
        }
        for (name, child) in items {
            let here = format!("{key}.{}", if name.is_empty() { "\"\"" } else { &name });
            let numbered_name = |n: usize, width: usize| {
                let number = format!("{n:0width$}");
                if name.is_empty() {
                    number
                } else {
                    format!("{number}-{name}")
                }
            };
            if is_folder(child) {
                let dir = if numbered {
                    let n = next_group;
                    next_group += 1;
                    numbered_name(n, groups.to_string().len())
                } else {
                    name.clone()
                };
                if dir.is_empty() {
                    return Err(p.refuse(&here, "a folder needs a name"));
                }
                folder(p, child, &path.join(&dir), &here)?;
                continue;
            }
            let counts =
                count_values(child).map_err(|why| p.refuse(&format!("{here}.count"), &why))?;
            // BAPCtools pads the values with zeros when they are consecutive.
            let padding = counts.as_ref().map_or(0, |c| {
                let lo = c.iter().min().copied().unwrap_or(0);
                let hi = c.iter().max().copied().unwrap_or(0);
                match (hi - lo) as usize + 1 == c.len() {
                    true => c.iter().map(|v| v.to_string().len()).max().unwrap_or(0),
                    false => 0,
                }
            });
            for count in counts.clone().unwrap_or_else(|| vec![1]) {
                let mut case_name = if numbered {
                    p.next_number += 1;
                    numbered_name(p.next_number, p.width)
                } else {
                    name.clone()
                };
                if counts.is_some() {
                    case_name = format!("{case_name}-{count:0padding$}");
                }
                if case_name.is_empty() || case_name.contains('/') || case_name.starts_with('.') {
                    return Err(p.refuse(&here, "not a test case name"));
                }
                case(p, child, path.join(case_name), &here, count)?;
            }
        }
    }
    Ok(())
}

fn case(
    p: &mut Parse<'_>,
    v: &Value,
    path: PathBuf,
    key: &str,
    count: i64,
) -> Result<(), ImportError> {
    let (mut make, mut input, mut answer) = (None, None, None);
    match v {
        Value::String(s) if s.ends_with(".in") => {
            make = Some(Make::Copy(s.trim_end_matches(".in").to_string()))
        }
        Value::String(s) => make = Some(Make::Generate(s.clone(), count)),
        Value::Mapping(m) => {
            for (k, v) in m {
                let k = text(k).unwrap_or_default();
                let value =
                    || text(v).ok_or_else(|| p.refuse(&format!("{key}.{k}"), "expected a string"));
                match k.as_str() {
                    "generate" => {
                        let command = value()?;
                        // `{count}` is the value only where the case has a count.
                        let command = match m.contains_key("count") {
                            true => command.replace("{count}", &count.to_string()),
                            false => command,
                        };
                        make = Some(Make::Generate(command, count))
                    }
                    // Read by `folder` (one case per value).
                    "count" => {}
                    "copy" => make = Some(Make::Copy(value()?)),
                    "in" => input = Some(value()?),
                    "ans" => answer = Some(value()?),
                    "hint" | "description" => {}
                    other => {
                        return Err(p.refuse(
                            &format!("{key}.{other}"),
                            "not supported by ojd (it reads generate, copy, in, ans, count, hint and description)",
                        ))
                    }
                }
            }
        }
        _ => return Err(p.refuse(key, "a test case is a command or a map")),
    }
    let make = match make {
        Some(m) => m,
        None if input.is_some() => Make::Literal,
        None => return Err(p.refuse(key, "a test case needs generate, copy or in")),
    };
    p.cases.push((Case { path, make }, input, answer));
    Ok(())
}

/// BAPCtools' seed of a command: SHA-512 of the salt (with `:<count - 1>` after it for a
/// `count` value other than 1) and the command (its surrounding spaces trimmed) read as a
/// number, modulo 2^31.
fn seed(salt: &str, command: &str, count: i64) -> u32 {
    use sha2::{Digest, Sha512};
    let salt = match count {
        1 => salt.to_string(),
        c => format!("{salt}:{}", c - 1),
    };
    let h = Sha512::digest(format!("{salt}{}", command.trim()));
    let low: [u8; 4] = h[60..].try_into().expect("4 of 64 bytes");
    u32::from_be_bytes(low) & 0x7fff_ffff
}

/// The arguments of a command, `{seed}` / `{seed:N}` and `{name}` put in.
fn arguments(words: &[&str], seed: u32) -> Vec<String> {
    words
        .iter()
        .map(|w| {
            let mut out = String::new();
            let mut rest = *w;
            while let Some(at) = rest.find("{seed") {
                out += &rest[..at];
                match rest[at..].find('}') {
                    Some(end) => {
                        out += &seed.to_string();
                        rest = &rest[at + end + 1..];
                    }
                    None => {
                        out += &rest[at..];
                        rest = "";
                    }
                }
            }
            out += rest;
            out.replace("{name}", "testcase")
        })
        .collect()
}

fn sandbox_failure(what: &str, e: impl std::fmt::Display) -> ImportError {
    ImportError::Run(format!("{what}: {e}"))
}

/// Compiles a program of the package for the generators.
fn compile(judge: &Judge, file: &Path) -> Result<Program, ImportError> {
    // A file of the package only: a link leading outside it is refused before it is read.
    crate::files::read_source(file)?;
    let options: Vec<String> = judge
        .detect_language(file, &[])
        .and_then(|l| super::kattis_options(&l))
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
fn run(
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
fn copy_package(dir: &Path, to: &Path) -> Result<(), ImportError> {
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
    let mut p = Parse {
        file: file.clone(),
        salt: String::new(),
        cases: Vec::new(),
        next_number: 0,
        width: count_numbered(&doc).to_string().len(),
        warnings,
    };
    let Some(root) = doc.as_mapping() else {
        return Err(p.refuse("", "expected a map"));
    };
    let mut solution = None;
    let mut data = None;
    for (k, v) in root {
        match text(k).unwrap_or_default().as_str() {
            "random_salt" => p.salt = text(v).unwrap_or_default(),
            "solution" => solution = text(v),
            "version" => {}
            "data" => data = Some(v),
            "generators" => {
                return Err(p.refuse(
                    "generators",
                    "generators of several files are not supported: ojd runs a generator of one file under generators/",
                ))
            }
            other => {
                return Err(p.refuse(other, "not supported by ojd's generators.yaml reader"))
            }
        }
    }
    let Some(Value::Mapping(dirs)) = data else {
        return Err(p.refuse("data", "expected a map of sample and secret"));
    };
    for (k, v) in dirs {
        let k = text(k).unwrap_or_default();
        match k.as_str() {
            "sample" | "secret" => folder(&mut p, v, Path::new(&k), &format!("data.{k}"))?,
            "invalid_input" | "invalid_inputs" | "invalid_answer" | "invalid_output"
            | "valid_output" => p.warnings.push(format!(
                "{file}: data.{k}: skipped (it tests the validators, not submissions)"
            )),
            other => {
                return Err(p.refuse(
                    &format!("data.{other}"),
                    "not a folder ojd judges (sample, secret)",
                ))
            }
        }
    }
    if !p.cases.iter().any(|(c, _, _)| c.path.starts_with("secret")) {
        return Err(p.refuse(
            "data.secret",
            "no secret test: the package would be its samples only",
        ));
    }
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
    for (c, input, answer) in &p.cases {
        let base = copy.join("data").join(&c.path);
        let what = format!("{file}: {}", c.path.display());
        match &c.make {
            Make::Generate(command, count) => {
                let words: Vec<&str> = command.split_whitespace().collect();
                if command.contains(['"', '\'', '|', '>', '<']) || words.is_empty() {
                    return Err(p.refuse(
                        &c.path.display().to_string(),
                        "a generator command is a program and its arguments (no quotes, pipes or redirects)",
                    ));
                }
                let exe = match words[0].strip_prefix('/') {
                    Some(abs) => dir.join(abs),
                    None => gen_dir.join(words[0]),
                };
                if !exe.is_file() {
                    return Err(p.refuse(
                        &c.path.display().to_string(),
                        &format!("{}: no such generator file (a generator of several files is not supported)", words[0]),
                    ));
                }
                let prog = program(&exe)?;
                let args = arguments(&words[1..], seed(&p.salt, command, *count));
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
        let reference = match &solution {
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
    p.warnings.push(format!(
        "{file}: {} tests made by its generators in the sandbox",
        p.cases.len()
    ));
    let cases = p.cases.iter().map(|(c, _, _)| c.path.clone()).collect();
    Ok(Some((scratch, copy, cases)))
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

    #[test]
    fn seeds_and_arguments_as_bapctools() {
        // BAPCtools: int(sha512(salt + command).hexdigest(), 16) % 2**31.
        let s = seed("", "gen.py 10 {seed}", 1);
        assert_eq!(s, 1_481_847_763);
        assert_ne!(s, seed("salt", "gen.py 10 {seed}", 1));
        assert_eq!(s, seed("", "  gen.py 10 {seed} ", 1));
        // A count's values but 1 salt the seed with `:<value - 1>`.
        assert_eq!(
            seed("", "gen.py 10 {seed}", 3),
            seed(":2", "gen.py 10 {seed}", 1)
        );
        assert_eq!(
            arguments(&["10", "{seed}", "x{seed:3}y", "{name}.in"], 7),
            ["10", "7", "x7y", "testcase.in"]
        );
    }
}
