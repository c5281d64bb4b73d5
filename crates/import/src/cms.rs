//! `ojd import cms DIR`: a CMS task in the Italian format (`italy_yaml`, as `cmsImportTask`
//! and task-maker read it) into an ojd package. The main entry is [`import`].
//!
//! What maps onto what:
//! - `task.yaml`: `name` → the package's folder name, `title` → `title` (else `name`),
//!   `time_limit` (seconds) and `memory_limit` (MiB) → the limits, `infile` / `outfile`
//!   (default `input.txt` / `output.txt`, empty for standard input and output) → `[io]`,
//!   `n_input` → the number of tests (it must match the files), `public_testcases` (`all` or a
//!   list of indices) → the tests named `sample-…`;
//! - `input/input<i>.txt` and `output/output<i>.txt` → `tests/<name>.in` / `.ans` (answers kept:
//!   `answers = "given"`); without `output/`, `ojd gen` makes every answer with the reference;
//!   without `input/`, each line of `gen/GEN` → a `[[generate]]` entry running the task's
//!   generator (`gen/generatore.*` or `gen/generator.*`) with the line's arguments **in the
//!   sandbox**, and each `#COPY: file` line → that file copied, then `ojd gen` makes the inputs
//!   and the answers;
//! - subtasks: `#ST: <points>` lines of `gen/GEN` (each following test line, `#COPY:` lines
//!   included, is one test of that subtask) → one `[[group]]` `subtask<k>` with its points,
//!   its tests named `s<k>-<i>`; without them, `score_type` / `score_type_parameters`:
//!   `GroupMin` and `GroupMul` with `[[points, count], ...]` → groups of consecutive tests,
//!   `Sum` (the default, each test worth `score_type_parameters` or `total_value` / `n_input`)
//!   → one group per test. Points may have up to three decimals (`#ST: 12.5`; ojd keeps
//!   thousandths, `ojd_judge::points`); a `Sum` share with more (100 points over 30 tests) is
//!   split in thousandths that add up to the total. A group earns its points times the smallest
//!   share of its tests, which is `GroupMin`; `GroupMul` with a checker → `aggregation =
//!   "product"` (the product of the shares; without a checker a share is all or nothing, so the
//!   smallest is the same); `GroupThreshold` with `[[points, count, threshold], ...]` → groups
//!   with that `threshold`: a test is accepted when the checker's outcome is above 0 and at most
//!   it, CMS's rule (without a checker the outcome is 1 or 0: a threshold of 1 or more is a
//!   plain group, below 1 refused);
//! - the checker: `check/checker.*` or `cor/correttore.*` (its source, in a language ojd knows;
//!   local headers inlined) → a `cms` checker (`checker input answer output`, the score from 0 to
//!   1 on standard output, a message on standard error), whose partial scores count;
//! - `sol/`: `soluzione.*` or `solution.*` (else the first file in a language ojd knows, C++
//!   first) → the reference `solution` and `submissions/accepted/`; the other solutions carry
//!   no expected verdict and are skipped with a warning;
//! - `statement/` (or `testo/`): `statement.md` kept, PDF files copied under `statement/` and
//!   named by a short `statement.md`.
//!
//! Refused, naming the file and the key: a compiled checker without its source, a
//! communication task (`check/manager`, `cor/manager`), a grader (`sol/grader.*`),
//! `output_only`, score types other than `GroupMin`, `GroupMul`, `GroupThreshold` and `Sum`,
//! `GroupThreshold` without a threshold per group in `score_type_parameters`, groups given by a
//! regular expression, points with more than three decimals, a test before the first `#ST:`
//! line.

use std::path::{Path, PathBuf};

use serde_norway::Value;

use crate::files::{
    copy_raw, copy_text, create_dirs, entries, files_in, inline_includes, read_text, safe_name,
    write_file, Confined, Staging,
};
use crate::manifest::Manifest;
use crate::{ImportError, Imported};
use ojd_config::Config;
use ojd_judge::{Aggregation, CheckerSpec, Group};

/// Options of a CMS import.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Where the ojd package goes; default `problems/<name>`.
    pub to: Option<PathBuf>,
}

/// task.yaml, read.
struct Task {
    file: String,
    map: serde_norway::Mapping,
}

impl Task {
    fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(Value::String(key.into()))
    }

    fn unsupported(&self, key: &str, what: impl Into<String>) -> ImportError {
        ImportError::Unsupported {
            file: self.file.clone(),
            key: key.into(),
            what: what.into(),
        }
    }

    fn string(&self, key: &str) -> Option<String> {
        match self.get(key)? {
            Value::String(s) => Some(s.trim().to_string()),
            Value::Number(n) => Some(n.to_string()),
            Value::Bool(b) => Some(b.to_string()),
            _ => None,
        }
    }

    fn number(&self, key: &str) -> Result<Option<f64>, ImportError> {
        match self.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => Ok(n.as_f64()),
            Some(Value::String(s)) => s
                .trim()
                .parse()
                .map(Some)
                .map_err(|_| self.unsupported(key, format!("expected a number, found {s:?}"))),
            Some(_) => Err(self.unsupported(key, "expected a number")),
        }
    }
}

/// Points in thousandths (ojd's unit, `ojd_judge::points`), or why not.
fn milli_points(x: f64, task: &Task, key: &str) -> Result<u32, ImportError> {
    ojd_judge::points::from_f64(x).ok_or_else(|| {
        task.unsupported(
            key,
            format!(
                "{x} points: ojd scores non-negative points with at most three decimals (thousandths)"
            ),
        )
    })
}

/// One line of gen/GEN that makes a test, and the subtasks: (points, number of tests, line).
struct Gen {
    tests: usize,
    subtasks: Vec<(f64, usize, usize)>,
    /// Each test's line, in order: the generator's arguments, or the file a `#COPY:` names.
    lines: Vec<GenLine>,
}

enum GenLine {
    Args(Vec<String>),
    Copy(String),
}

/// Reads gen/GEN: `#ST: points` starts a subtask; every other non-empty line that is not a
/// comment, and every `#COPY:` line, is one test.
fn read_gen(path: &Path) -> Result<Gen, ImportError> {
    let text = read_text(path)?;
    let is_st = |l: &str| {
        l.trim()
            .strip_prefix('#')
            .is_some_and(|r| r.trim_start().starts_with("ST:"))
    };
    let has_subtasks = text.lines().any(is_st);
    let mut g = Gen {
        tests: 0,
        subtasks: Vec::new(),
        lines: Vec::new(),
    };
    for (i, line) in text.lines().enumerate() {
        let line = line.trim();
        let n = i + 1;
        let bad = |what: String| ImportError::Unsupported {
            file: path.display().to_string(),
            key: format!("line {n}"),
            what,
        };
        if let Some(rest) = line.strip_prefix('#') {
            let rest = rest.trim_start();
            if let Some(points) = rest.strip_prefix("ST:") {
                let points: f64 = points
                    .trim()
                    .parse()
                    .map_err(|_| bad(format!("{line:?}: expected `#ST: points`")))?;
                g.subtasks.push((points, 0, n));
            } else if let Some(file) = rest.strip_prefix("COPY:") {
                g.tests += 1;
                g.lines.push(GenLine::Copy(file.trim().to_string()));
                if let Some(s) = g.subtasks.last_mut() {
                    s.1 += 1;
                } else if has_subtasks {
                    return Err(bad(
                        "a test before the first `#ST:` line belongs to no subtask".into(),
                    ));
                }
            }
            continue;
        }
        // A comment may follow the arguments.
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        g.tests += 1;
        g.lines.push(GenLine::Args(
            line.split_whitespace().map(String::from).collect(),
        ));
        if let Some(s) = g.subtasks.last_mut() {
            s.1 += 1;
        } else if has_subtasks {
            return Err(bad(
                "a test before the first `#ST:` line belongs to no subtask".into(),
            ));
        }
    }
    Ok(g)
}

/// The file of a program in `sol/` written into the new package as `dest.<ext>`, local
/// headers inlined for C and C++; `.cc`, `.cxx` and `.c++` become `.cpp`.
fn program(from: &Path, out: &Path, dest: &str) -> Result<String, ImportError> {
    let ext = from.extension().and_then(|e| e.to_str()).unwrap_or("");
    let ext = match ext {
        "cc" | "cxx" | "c++" | "C" => "cpp",
        e => e,
    };
    let name = format!("{dest}.{ext}");
    if matches!(ext, "cpp" | "c") {
        let dir = from.parent().unwrap_or(Path::new("."));
        let text = inline_includes(from, &[dir])?;
        write_file(&out.join(&name), text.as_bytes())?;
    } else {
        copy_text(from, &out.join(&name))?;
    }
    Ok(name)
}

/// Imports the CMS task in `dir` (see the module documentation). `judge` makes the answers
/// with the reference when the task has no `output/` folder.
pub fn import(
    dir: &Path,
    config: &Config,
    judge: Option<&ojd_judge::Judge>,
    opts: &Options,
) -> Result<Imported, ImportError> {
    // Everything read from here on must be a file of the package (see `files`).
    let _confined = Confined::to(dir)?;
    let yaml_path = dir.join("task.yaml");
    if !yaml_path.is_file() {
        return Err(ImportError::Invalid {
            file: yaml_path.display().to_string(),
            message: format!("missing: not a CMS task; {}", crate::looks_like(dir)),
        });
    }
    let text = read_text(&yaml_path)?;
    let map = match serde_norway::from_str::<Value>(&text) {
        Ok(Value::Mapping(m)) => m,
        Ok(_) => {
            return Err(ImportError::Invalid {
                file: yaml_path.display().to_string(),
                message: "not a YAML map of keys".into(),
            })
        }
        Err(e) => {
            return Err(ImportError::Invalid {
                file: yaml_path.display().to_string(),
                message: format!("not valid YAML: {e}"),
            })
        }
    };
    let task = Task {
        file: yaml_path.display().to_string(),
        map,
    };
    let name = task
        .string("name")
        .filter(|n| !n.is_empty())
        .ok_or_else(|| task.unsupported("name", "missing: every CMS task has a short name"))?;
    let title = task
        .string("title")
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| name.clone());
    // Before the limits: an output-only task has none, and is refused for what it is.
    if task
        .get("output_only")
        .is_some_and(|v| matches!(v, Value::Bool(true)) || v.as_i64() == Some(1))
    {
        return Err(task.unsupported(
            "output_only",
            "an output-only task: ojd judges programs, not submitted outputs",
        ));
    }
    let tl = task
        .number("time_limit")?
        .filter(|t| *t > 0.0)
        .ok_or_else(|| {
            task.unsupported("time_limit", "missing: ojd needs a time limit (seconds)")
        })?;
    let mem = task
        .number("memory_limit")?
        .filter(|m| *m >= 1.0)
        .ok_or_else(|| {
            task.unsupported("memory_limit", "missing: ojd needs a memory limit (MiB)")
        })?;
    for (f, what) in [
        ("check/manager", "a communication task's manager"),
        ("cor/manager", "a communication task's manager"),
    ] {
        let folder = dir
            .join(f)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let stem = Path::new(f).file_name().unwrap_or_default();
        let found = files_in(&folder)
            .into_iter()
            .find(|p| p.file_stem() == Some(stem));
        if let Some(p) = found {
            return Err(ImportError::Unsupported {
                file: p.display().to_string(),
                key: f.into(),
                what: format!("{what}: not supported"),
            });
        }
    }
    // The checker: its source, in a language ojd knows (a compiled one alone is refused).
    let mut checker_source = None;
    for f in ["check/checker", "cor/correttore"] {
        let folder = dir
            .join(f)
            .parent()
            .map(Path::to_path_buf)
            .unwrap_or_default();
        let stem = Path::new(f).file_name().unwrap_or_default();
        let found: Vec<PathBuf> = files_in(&folder)
            .into_iter()
            .filter(|p| p.file_stem() == Some(stem))
            .collect();
        if found.is_empty() || checker_source.is_some() {
            continue;
        }
        match found
            .iter()
            .find(|p| config.language_for(&cms_ext(p)).is_some())
        {
            Some(src) => checker_source = Some(src.clone()),
            None => {
                return Err(ImportError::Unsupported {
                    file: found[0].display().to_string(),
                    key: f.into(),
                    what: "a CMS checker without its source in a language ojd knows (a compiled checker is not imported: ojd builds every program in its sandbox)".into(),
                })
            }
        }
    }
    if let Some(g) = files_in(&dir.join("sol"))
        .into_iter()
        .find(|p| p.file_stem().is_some_and(|s| s == "grader"))
    {
        return Err(ImportError::Unsupported {
            file: g.display().to_string(),
            key: "sol/grader".into(),
            what: "a grader compiled with the submission: ojd judges whole programs".into(),
        });
    }

    // Tests.
    let gen_path = dir.join("gen/GEN");
    let gen = if gen_path.is_file() {
        Some(read_gen(&gen_path)?)
    } else {
        None
    };
    // Without input/, gen/GEN and the task's generator make the tests (in the sandbox).
    let made = dir.join("input/input0.txt").is_file();
    let generator = if made {
        None
    } else {
        let Some(_) = &gen else {
            return Err(ImportError::Invalid {
                file: dir.join("input").display().to_string(),
                message: "no input/input0.txt and no gen/GEN to make the tests with".into(),
            });
        };
        let found = files_in(&dir.join("gen")).into_iter().find(|p| {
            p.file_stem()
                .is_some_and(|s| s == "generatore" || s == "generator")
                && config.language_for(&cms_ext(p)).is_some()
        });
        Some(found.ok_or_else(|| ImportError::Invalid {
            file: dir.join("gen").display().to_string(),
            message: "no input/ folder and no generator (gen/generatore.* or gen/generator.*, in a language ojd knows) to make the tests of gen/GEN with".into(),
        })?)
    };
    let n_input = match task.number("n_input")? {
        Some(n) if n >= 1.0 && n.fract() == 0.0 => n as usize,
        Some(n) => return Err(task.unsupported("n_input", format!("{n}: expected a count"))),
        None if !made => gen.as_ref().map_or(0, |g| g.tests),
        None => (0..)
            .take_while(|i| dir.join(format!("input/input{i}.txt")).is_file())
            .count(),
    };
    if n_input == 0 {
        return Err(ImportError::Invalid {
            file: dir.join("input").display().to_string(),
            message: "no tests".into(),
        });
    }
    if let Some(g) = &gen {
        if g.tests != n_input {
            return Err(ImportError::Invalid {
                file: gen_path.display().to_string(),
                message: format!("{} tests, but task.yaml's n_input is {n_input}", g.tests),
            });
        }
    }
    let public: Vec<usize> = match task.string("public_testcases") {
        None => Vec::new(),
        Some(s) if s == "all" => (0..n_input).collect(),
        Some(s) => s
            .split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(|x| match x.parse::<usize>() {
                Ok(i) if i < n_input => Ok(i),
                _ => Err(task.unsupported(
                    "public_testcases",
                    format!("{x:?}: expected `all` or test indices below {n_input}, separated by commas"),
                )),
            })
            .collect::<Result<_, _>>()?,
    };

    // Scoring: each group's points (thousandths), number of tests, and threshold
    // (GroupThreshold's, applied to a checker's outcome).
    let score_type = task.string("score_type");
    let mut subtasks: Vec<(u32, usize, Option<f64>)> = Vec::new();
    // Sum: each test's points, in thousandths.
    let mut per_test: Option<Vec<u32>> = None;
    match score_type.as_deref() {
        None | Some("GroupMin") | Some("GroupMul") | Some("GroupThreshold") | Some("Sum") => {}
        Some(other) => {
            return Err(task.unsupported(
                "score_type",
                format!("{other:?}: ojd imports GroupMin, GroupMul, GroupThreshold and Sum"),
            ))
        }
    }
    let threshold = score_type.as_deref() == Some("GroupThreshold");
    let product = score_type.as_deref() == Some("GroupMul") && checker_source.is_some();
    let gen_subtasks = gen.as_ref().filter(|g| !g.subtasks.is_empty());
    if let (Some(g), false) = (gen_subtasks, threshold) {
        if score_type.as_deref() == Some("Sum") {
            return Err(task.unsupported(
                "score_type",
                "Sum, but gen/GEN has `#ST:` subtasks: say GroupMin or GroupMul",
            ));
        }
        for (points, count, line) in &g.subtasks {
            let key = format!("gen/GEN line {line}");
            subtasks.push((milli_points(*points, &task, &key)?, *count, None));
        }
    } else if matches!(
        score_type.as_deref(),
        Some("GroupMin") | Some("GroupMul") | Some("GroupThreshold")
    ) {
        let key = "score_type_parameters";
        let (width, form) = if threshold {
            (3, "[points, number of tests, threshold]")
        } else {
            (2, "[points, number of tests]")
        };
        let Some(Value::Sequence(list)) = task.get(key) else {
            let why = if gen_subtasks.is_some() {
                format!("GroupThreshold needs each group's threshold: expected a list of {form} (`#ST:` lines of gen/GEN give none)")
            } else {
                format!("expected a list of {form}")
            };
            return Err(task.unsupported(key, why));
        };
        for (i, item) in list.iter().enumerate() {
            let entry = match item {
                Value::Sequence(p) if p.len() == width => p,
                _ => {
                    return Err(task.unsupported(&format!("{key}[{i}]"), format!("expected {form}")))
                }
            };
            let points = entry[0]
                .as_f64()
                .ok_or_else(|| task.unsupported(&format!("{key}[{i}][0]"), "expected points"))?;
            let count = match &entry[1] {
                Value::Number(n) => n.as_u64().map(|c| c as usize),
                _ => None,
            }
            .ok_or_else(|| {
                task.unsupported(
                    &format!("{key}[{i}][1]"),
                    "expected a number of tests (tests chosen by a regular expression are not supported)",
                )
            })?;
            let limit = if threshold {
                match entry[2].as_f64() {
                    Some(t) if t.is_finite() && t > 0.0 => Some(t),
                    _ => {
                        return Err(task.unsupported(
                            &format!("{key}[{i}][2]"),
                            "expected a threshold above 0",
                        ))
                    }
                }
            } else {
                None
            };
            if let (Some(t), None) = (limit, &checker_source) {
                // Without a checker CMS's outcome is 1 (correct) or 0: a threshold of 1 or
                // more is all or nothing; below 1 nothing could ever earn the points.
                if t < 1.0 {
                    return Err(task.unsupported(
                        &format!("{key}[{i}][2]"),
                        format!("threshold {t} without a checker: the outcome of a correct output is 1, so no submission could earn this group's points"),
                    ));
                }
            }
            subtasks.push((
                milli_points(points, &task, &format!("{key}[{i}][0]"))?,
                count,
                limit.filter(|_| checker_source.is_some()),
            ));
        }
        let total: usize = subtasks.iter().map(|s| s.1).sum();
        if total != n_input {
            return Err(task.unsupported(
                key,
                format!("the groups hold {total} tests, but n_input is {n_input}"),
            ));
        }
    } else {
        // Each test's points; a share with more than three decimals (100 points over 30 tests,
        // written out as 3.3333333 or left to total_value) is split in thousandths that add up
        // to the total.
        per_test = Some(match task.number("score_type_parameters")? {
            Some(p) => match ojd_judge::points::from_f64(p) {
                Some(m) => vec![m; n_input],
                None if p.is_finite() && p >= 0.0 => ojd_judge::points::split(
                    (p * n_input as f64 * ojd_judge::points::MILLI as f64).round() as u64,
                    n_input,
                ),
                None => {
                    return Err(
                        task.unsupported("score_type_parameters", format!("{p}: expected points"))
                    )
                }
            },
            None => {
                let total = task.number("total_value")?.unwrap_or(100.0);
                let total = milli_points(total, &task, "total_value")?;
                ojd_judge::points::split(total as u64, n_input)
            }
        });
    }

    let dest = opts
        .to
        .clone()
        .unwrap_or_else(|| config.server.problems.join(safe_name(&name)));
    let stage = Staging::new(&dest)?;
    let out = stage.dir.clone();
    create_dirs(&out.join("tests"))?;
    let mut warnings = Vec::new();
    let width = (n_input - 1).to_string().len().max(2);
    // Each test's name, by index.
    let mut names: Vec<String> = Vec::with_capacity(n_input);
    let mut groups = Vec::new();
    if per_test.is_some() || subtasks.is_empty() {
        for i in 0..n_input {
            let base = format!("{i:0width$}");
            names.push(if public.contains(&i) {
                format!("sample-{base}")
            } else {
                base
            });
        }
        if let Some(points) = &per_test {
            for (i, (n, p)) in names.iter().zip(points).enumerate() {
                if *p > 0 {
                    groups.push(Group::exact(
                        format!("test{i:0width$}"),
                        *p,
                        vec![n.clone()],
                    ));
                }
            }
        }
    } else {
        for (k, (points, count, limit)) in subtasks.iter().enumerate() {
            let k = k + 1;
            for _ in 0..*count {
                let i = names.len();
                let base = format!("s{k}-{i:0width$}");
                names.push(if public.contains(&i) {
                    format!("sample-{base}")
                } else {
                    base
                });
            }
            // A 0-point subtask (the samples') earns nothing and gets no group, unless it has a
            // threshold: its tests' checker outcomes are read against it, not as scores.
            if *points > 0 || limit.is_some() {
                let mut g = Group::exact(
                    format!("subtask{k}"),
                    *points,
                    vec![format!("s{k}-"), format!("sample-s{k}-")],
                );
                // Without a checker every share is 0 or 1: the product is the smallest.
                if product {
                    g.aggregation = Aggregation::Product;
                }
                g.threshold = *limit;
                groups.push(g);
            }
        }
    }
    Group::apportion(&mut groups);
    let outputs: Vec<bool> = (0..n_input)
        .map(|i| dir.join(format!("output/output{i}.txt")).is_file())
        .collect();
    let answers_given = made && outputs.iter().any(|o| *o);
    let mut generate = Vec::new();
    if let (Some(generator), Some(gen)) = (&generator, &gen) {
        create_dirs(&out.join("gen"))?;
        let program_name = program(generator, &out, "gen/generatore")?;
        for (name, line) in names.iter().zip(&gen.lines) {
            match line {
                GenLine::Args(args) => {
                    generate.push((name.clone(), program_name.clone(), args.clone()))
                }
                GenLine::Copy(file) => {
                    // The file a `#COPY:` names: from the task's folder, else from gen/.
                    let from = [dir.join(file), dir.join("gen").join(file)]
                        .into_iter()
                        .find(|p| p.is_file())
                        .ok_or_else(|| ImportError::Invalid {
                            file: gen_path.display().to_string(),
                            message: format!("#COPY: {file}: no such file in the task"),
                        })?;
                    copy_text(&from, &out.join("tests").join(format!("{name}.in")))?;
                }
            }
        }
    }
    for (i, name) in names.iter().enumerate() {
        if generator.is_some() {
            break;
        }
        let input = dir.join(format!("input/input{i}.txt"));
        if !input.is_file() {
            return Err(ImportError::Invalid {
                file: input.display().to_string(),
                message: format!("missing: task.yaml's n_input is {n_input}"),
            });
        }
        copy_text(&input, &out.join("tests").join(format!("{name}.in")))?;
        if answers_given {
            let answer = dir.join(format!("output/output{i}.txt"));
            if !outputs[i] {
                return Err(ImportError::Invalid {
                    file: answer.display().to_string(),
                    message: "missing, while other tests have their output".into(),
                });
            }
            copy_text(&answer, &out.join("tests").join(format!("{name}.ans")))?;
        }
    }

    // Solutions.
    let sols: Vec<PathBuf> = files_in(&dir.join("sol"))
        .into_iter()
        .filter(|p| config.language_for(&cms_ext(p)).is_some())
        .collect();
    let rank = |p: &Path| {
        let stem = p.file_stem().unwrap_or_default().to_string_lossy();
        let named = matches!(&*stem, "soluzione" | "solution" | "sol");
        let ext = cms_ext(p)
            .extension()
            .map(|e| e.to_string_lossy().into_owned())
            .unwrap_or_default();
        let lang = ["cpp", "c", "rs"]
            .iter()
            .position(|e| *e == ext)
            .unwrap_or(3);
        (!named, lang)
    };
    let reference = sols
        .iter()
        .min_by_key(|p| rank(p))
        .ok_or_else(|| ImportError::Invalid {
            file: dir.join("sol").display().to_string(),
            message: "no solution in a language ojd knows: ojd needs one as the reference".into(),
        })?;
    let solution = program(reference, &out, "solution")?;
    let checker = match &checker_source {
        Some(src) => CheckerSpec::Cms {
            path: PathBuf::from(program(src, &out, "checker")?),
        },
        None => CheckerSpec::Tokens,
    };
    create_dirs(&out.join("submissions/accepted"))?;
    let stem = safe_name(&reference.file_stem().unwrap_or_default().to_string_lossy());
    let accepted = program(reference, &out, &format!("submissions/accepted/{stem}"))?;
    if cms_ext(reference) != *reference {
        warnings.push(format!(
            "{}: renamed {} (ojd's languages go by extension)",
            reference.display(),
            accepted
        ));
    }
    for p in files_in(&dir.join("sol")) {
        if &p != reference {
            warnings.push(format!(
                "{}: a CMS task gives no expected verdict for its other solutions; skipped",
                p.display()
            ));
        }
    }
    for v in files_in(&dir.join("gen")) {
        let stem = v.file_stem().unwrap_or_default().to_string_lossy();
        if matches!(&*stem, "valida" | "validator") {
            warnings.push(format!(
                "{}: a CMS validator reads the file its argument names, ojd's reads standard input; not imported, so no validator checks the inputs",
                v.display()
            ));
        }
    }

    statement(dir, &out, &title, &mut warnings)?;
    let io_name = |key: &str, default: &str| match task.get(key) {
        None | Some(Value::Null) => Some(default.to_string()),
        Some(_) => task.string(key).filter(|s| !s.is_empty()),
    };
    let io = match (
        io_name("infile", "input.txt"),
        io_name("outfile", "output.txt"),
    ) {
        (None, None) => None,
        pair => Some(pair),
    };
    let manifest = Manifest {
        title,
        source: String::new(),
        time_limit_ms: (tl * 1000.0).round() as u64,
        memory_limit_bytes: (mem * (1u64 << 20) as f64) as u64,
        output_limit_bytes: None,
        checker,
        solution,
        validator: None,
        interactor: None,
        groups,
        answers_given,
        generate,
        io,
        kattis_verdicts: false,
        uuid: None,
        passes: None,
        margins: (None, None),
        compile: Vec::new(),
        origin: "Imported from a CMS task (italy_yaml) by `ojd import cms`.".into(),
    };
    write_file(&out.join("problem.toml"), manifest.to_toml().as_bytes())?;
    if !answers_given {
        let judge = judge.ok_or_else(|| {
            ImportError::Run(format!(
                "{}: no output/ folder: making the tests and answers with the task's programs needs the sandbox",
                dir.display()
            ))
        })?;
        let problem =
            ojd_judge::Problem::load(&out).map_err(|e| ImportError::Run(e.to_string()))?;
        ojd_judge::answers::generate(judge, &problem, &ojd_judge::answers::GenOptions::default())
            .map_err(|e| crate::polygon::gen_failure(dir, e))?;
    }
    let dir_out = stage.commit()?;
    Ok(Imported {
        dir: dir_out,
        tests: n_input,
        samples: public.len(),
        submissions: 1,
        warnings,
    })
}

/// `p` with the extension ojd's languages know (`.cc`, `.cxx`, `.c++` → `.cpp`).
fn cms_ext(p: &Path) -> PathBuf {
    match p.extension().and_then(|e| e.to_str()) {
        Some("cc" | "cxx" | "c++") => p.with_extension("cpp"),
        _ => p.to_path_buf(),
    }
}

/// `statement/` (or `testo/`): a Markdown statement kept, PDFs copied and named.
fn statement(
    dir: &Path,
    out: &Path,
    title: &str,
    warnings: &mut Vec<String>,
) -> Result<(), ImportError> {
    let folder = ["statement", "testo"]
        .iter()
        .map(|f| dir.join(f))
        .find(|f| f.is_dir());
    let mut md = None;
    let mut pdfs = Vec::new();
    if let Some(folder) = &folder {
        for f in entries(folder) {
            let name = f
                .file_name()
                .unwrap_or_default()
                .to_string_lossy()
                .into_owned();
            if name.ends_with(".md") && md.is_none() {
                md = Some(f);
            } else if name.ends_with(".pdf") && f.is_file() {
                pdfs.push(f);
            }
        }
    }
    if let Some(md) = md {
        return copy_text(&md, &out.join("statement.md"));
    }
    let mut text = format!("# {title}\n\n");
    if pdfs.is_empty() {
        warnings.push(format!(
            "{}: no statement (statement/ or testo/ with a .md or .pdf file)",
            dir.display()
        ));
        text += "The CMS task came without a statement.\n";
    } else {
        create_dirs(&out.join("statement"))?;
        text += "The statement is in the PDF file";
        text += if pdfs.len() > 1 { "s " } else { " " };
        let mut links = Vec::new();
        for p in &pdfs {
            let name = safe_name(&p.file_name().unwrap_or_default().to_string_lossy());
            copy_raw(p, &out.join("statement").join(&name))?;
            links.push(format!("[{name}](statement/{name})"));
        }
        text += &links.join(", ");
        text += " of the CMS task.\n";
    }
    write_file(&out.join("statement.md"), text.as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fixture() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/import/cms/somma")
    }

    /// A copy of the fixture whose task.yaml (and anything else) a test may change.
    fn copy_fixture() -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        fn copy(from: &Path, to: &Path) {
            std::fs::create_dir_all(to).unwrap();
            for e in std::fs::read_dir(from).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    copy(&p, &to.join(e.file_name()));
                } else {
                    std::fs::copy(&p, to.join(e.file_name())).unwrap();
                }
            }
        }
        copy(&fixture(), &d.path().join("task"));
        d
    }

    fn import_to(dir: &Path, to: &Path) -> Result<Imported, ImportError> {
        import(
            dir,
            &Config::defaults(),
            None,
            &Options {
                to: Some(to.to_path_buf()),
            },
        )
    }

    fn set_yaml(d: &tempfile::TempDir, replace: &str, with: &str) {
        let p = d.path().join("task/task.yaml");
        let t = std::fs::read_to_string(&p).unwrap();
        assert!(t.contains(replace), "{replace:?} in task.yaml");
        std::fs::write(&p, t.replacen(replace, with, 1)).unwrap();
    }

    fn refused(d: &tempfile::TempDir, wants: &[&str]) {
        let to = d.path().join("out");
        let e = import_to(&d.path().join("task"), &to)
            .unwrap_err()
            .to_string();
        for w in wants {
            assert!(e.contains(w), "wanted {w:?} in {e}");
        }
        assert!(!to.exists(), "a refused import leaves nothing");
    }

    /// The subtasks of gen/GEN become groups with their points; the public test is a sample;
    /// the limits, CMS's default file I/O, the reference and the statement come along.
    #[test]
    fn subtasks_become_groups() {
        let d = tempfile::tempdir().unwrap();
        let to = d.path().join("somma");
        let i = import_to(&fixture(), &to).unwrap();
        assert_eq!((i.tests, i.samples, i.submissions), (7, 1, 1));
        let p = ojd_judge::Problem::load(&to).unwrap();
        assert_eq!(p.title, "Somma (Sum of Two)");
        assert_eq!(p.time_limit.as_millis(), 1000);
        assert_eq!(p.memory_limit, 256 << 20);
        assert_eq!(p.io.input_file.as_deref(), Some("input.txt"));
        assert_eq!(p.io.output_file.as_deref(), Some("output.txt"));
        assert!(p.answers_given);
        assert_eq!(p.solution, Path::new("solution.cpp"));
        let groups: Vec<(String, u32, Vec<String>)> = p
            .groups
            .iter()
            .map(|g| (g.name.clone(), g.points, g.tests.clone()))
            .collect();
        assert_eq!(
            groups,
            [
                (
                    "subtask2".into(),
                    40,
                    vec!["s2-".into(), "sample-s2-".into()]
                ),
                (
                    "subtask3".into(),
                    60,
                    vec!["s3-".into(), "sample-s3-".into()]
                ),
            ]
        );
        let names: Vec<&str> = p.tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(
            names,
            [
                "sample-s1-00",
                "s2-01",
                "s2-02",
                "s2-03",
                "s3-04",
                "s3-05",
                "s3-06"
            ]
        );
        assert_eq!(
            std::fs::read_to_string(to.join("tests/s3-06.ans")).unwrap(),
            "4000000000\n"
        );
        assert!(to.join("submissions/accepted/soluzione.cpp").is_file());
        assert!(to.join("statement/statement.pdf").is_file());
        let statement = std::fs::read_to_string(to.join("statement.md")).unwrap();
        assert!(
            statement.contains("(statement/statement.pdf)"),
            "{statement}"
        );
        let w = i.warnings.join("\n");
        assert!(
            w.contains("int32.c++: a CMS task gives no expected verdict"),
            "{w}"
        );
        assert!(
            w.contains("valida.py: a CMS validator reads the file"),
            "{w}"
        );
    }

    /// Without subtasks, `Sum` makes each test a group worth total_value / n_input; stdin and
    /// stdout when infile and outfile are empty; `all` public tests are all samples.
    #[test]
    fn sum_scores_each_test() {
        let d = copy_fixture();
        std::fs::remove_file(d.path().join("task/gen/GEN")).unwrap();
        set_yaml(
            &d,
            "score_type: GroupMin",
            "score_type: Sum\ntotal_value: 70\ninfile: \"\"\noutfile: \"\"",
        );
        set_yaml(&d, "public_testcases: 0", "public_testcases: all");
        let to = d.path().join("out");
        import_to(&d.path().join("task"), &to).unwrap();
        let p = ojd_judge::Problem::load(&to).unwrap();
        assert_eq!(p.io.input_file, None);
        assert_eq!(p.io.output_file, None);
        assert_eq!(p.groups.len(), 7);
        assert!(p.groups.iter().all(|g| g.points == 10));
        assert_eq!(p.groups[3].tests, ["sample-03"]);
    }

    /// Points that are not whole (most `Sum` tasks: 100 over 7 tests; `#ST: 12.5`) are kept in
    /// thousandths, adding up to the task's total; the whole points add up to it too.
    #[test]
    fn fractional_points_are_kept() {
        let d = copy_fixture();
        std::fs::remove_file(d.path().join("task/gen/GEN")).unwrap();
        set_yaml(&d, "score_type: GroupMin", "score_type: Sum");
        let to = d.path().join("out");
        import_to(&d.path().join("task"), &to).unwrap();
        let p = ojd_judge::Problem::load(&to).unwrap();
        let milli: Vec<u32> = p.groups.iter().map(|g| g.points_milli).collect();
        assert_eq!(
            milli,
            [14_286, 14_286, 14_286, 14_286, 14_286, 14_285, 14_285]
        );
        assert_eq!(p.groups.iter().map(|g| g.points).sum::<u32>(), 100);
        let toml = std::fs::read_to_string(to.join("problem.toml")).unwrap();
        assert!(toml.contains("points = 14.286\n"), "{toml}");

        let d = copy_fixture();
        let gen = d.path().join("task/gen/GEN");
        let t = std::fs::read_to_string(&gen).unwrap();
        std::fs::write(
            &gen,
            t.replace("#ST: 40", "#ST: 37.5")
                .replace("#ST: 60", "#ST: 62.5"),
        )
        .unwrap();
        let to = d.path().join("out");
        import_to(&d.path().join("task"), &to).unwrap();
        let p = ojd_judge::Problem::load(&to).unwrap();
        let g: Vec<(u32, u32)> = p
            .groups
            .iter()
            .map(|g| (g.points_milli, g.points))
            .collect();
        assert_eq!(g, [(37_500, 38), (62_500, 62)]);
    }

    /// GroupMin with score_type_parameters, when gen/GEN has no subtasks.
    #[test]
    fn group_parameters() {
        let d = copy_fixture();
        std::fs::remove_file(d.path().join("task/gen/GEN")).unwrap();
        set_yaml(
            &d,
            "score_type: GroupMin",
            "score_type: GroupMul\nscore_type_parameters: [[0, 1], [30, 3], [70, 3]]",
        );
        let to = d.path().join("out");
        import_to(&d.path().join("task"), &to).unwrap();
        let p = ojd_judge::Problem::load(&to).unwrap();
        let points: Vec<u32> = p.groups.iter().map(|g| g.points).collect();
        assert_eq!(points, [30, 70]);
        assert!(to.join("tests/s3-06.in").is_file());
        // Without a checker every share is 0 or 1: the product is the smallest.
        assert!(p.groups.iter().all(|g| g.aggregation == Aggregation::Min));

        // GroupThreshold without a checker: a correct output's outcome is 1, within a
        // threshold of 1 or more: all or nothing, as GroupMin.
        let d = copy_fixture();
        std::fs::remove_file(d.path().join("task/gen/GEN")).unwrap();
        set_yaml(
            &d,
            "score_type: GroupMin",
            "score_type: GroupThreshold\nscore_type_parameters: [[0, 1, 1], [30, 3, 1.0], [70, 3, 5]]",
        );
        let to = d.path().join("out");
        import_to(&d.path().join("task"), &to).unwrap();
        let p = ojd_judge::Problem::load(&to).unwrap();
        let groups: Vec<(u32, Option<f64>, Aggregation)> = p
            .groups
            .iter()
            .map(|g| (g.points, g.threshold, g.aggregation))
            .collect();
        assert_eq!(
            groups,
            [(30, None, Aggregation::Min), (70, None, Aggregation::Min)]
        );
    }

    /// What ojd cannot judge the same way is refused, naming the file and the key.
    #[test]
    fn refusals_name_the_key() {
        let d = copy_fixture();
        std::fs::remove_file(d.path().join("task/gen/GEN")).unwrap();
        set_yaml(
            &d,
            "score_type: GroupMin",
            "score_type: Sum\ntotal_value: 0.0001",
        );
        refused(&d, &["task.yaml: total_value: ", "at most three decimals"]);

        let d = copy_fixture();
        std::fs::remove_file(d.path().join("task/gen/GEN")).unwrap();
        set_yaml(
            &d,
            "score_type: GroupMin",
            "score_type: GroupMin\nscore_type_parameters: [[40, \"0[1-3]\"], [60, 3]]",
        );
        refused(&d, &["score_type_parameters[0][1]", "regular expression"]);

        let d = copy_fixture();
        let gen = d.path().join("task/gen/GEN");
        let t = std::fs::read_to_string(&gen).unwrap();
        std::fs::write(&gen, t.replace("#ST: 40", "#ST: 40.0005")).unwrap();
        refused(
            &d,
            &["gen/GEN line 5", "40.0005 points", "at most three decimals"],
        );

        let d = copy_fixture();
        std::fs::write(gen_of(&d), "1 10 1\n#ST: 100\n2 10 2\n").unwrap();
        refused(&d, &["GEN: line 1: a test before the first `#ST:`"]);

        let d = copy_fixture();
        std::fs::write(gen_of(&d), "#ST: 100\n1 10 1\n").unwrap();
        refused(&d, &["1 tests, but task.yaml's n_input is 7"]);

        let d = copy_fixture();
        std::fs::create_dir_all(d.path().join("task/cor")).unwrap();
        std::fs::write(d.path().join("task/cor/correttore"), "\x7fELF").unwrap();
        refused(
            &d,
            &["correttore: cor/correttore: a CMS checker without its source"],
        );

        // GroupThreshold: its thresholds come from score_type_parameters only.
        let d = copy_fixture();
        set_yaml(&d, "score_type: GroupMin", "score_type: GroupThreshold");
        refused(
            &d,
            &["task.yaml: score_type_parameters: GroupThreshold needs each group's threshold"],
        );
        let d = copy_fixture();
        std::fs::remove_file(d.path().join("task/gen/GEN")).unwrap();
        set_yaml(
            &d,
            "score_type: GroupMin",
            "score_type: GroupThreshold\nscore_type_parameters: [[40, 4, 1.5], [60, 3]]",
        );
        refused(
            &d,
            &["score_type_parameters[1]: expected [points, number of tests, threshold]"],
        );
        let d = copy_fixture();
        std::fs::remove_file(d.path().join("task/gen/GEN")).unwrap();
        set_yaml(
            &d,
            "score_type: GroupMin",
            "score_type: GroupThreshold\nscore_type_parameters: [[40, 4, 0], [60, 3, 1]]",
        );
        refused(
            &d,
            &["score_type_parameters[0][2]: expected a threshold above 0"],
        );
        // Without a checker a correct output's outcome is 1: a threshold below 1 is unreachable.
        let d = copy_fixture();
        std::fs::remove_file(d.path().join("task/gen/GEN")).unwrap();
        set_yaml(
            &d,
            "score_type: GroupMin",
            "score_type: GroupThreshold\nscore_type_parameters: [[40, 4, 1], [60, 3, 0.5]]",
        );
        refused(
            &d,
            &["score_type_parameters[1][2]: threshold 0.5 without a checker"],
        );

        let d = copy_fixture();
        set_yaml(&d, "score_type: GroupMin", "score_type: GroupFancy");
        refused(
            &d,
            &["task.yaml: score_type: \"GroupFancy\": ojd imports GroupMin"],
        );

        let d = copy_fixture();
        std::fs::write(d.path().join("task/sol/grader.cpp"), "int main(){}").unwrap();
        refused(&d, &["grader.cpp: sol/grader: a grader"]);

        let d = copy_fixture();
        set_yaml(&d, "token_mode: disabled", "output_only: true");
        refused(&d, &["output_only"]);
        // Without limits, as output-only tasks are written: still refused for what it is.
        set_yaml(&d, "time_limit: 1.0", "");
        set_yaml(&d, "memory_limit: 256", "");
        refused(&d, &["task.yaml: output_only: an output-only task"]);

        let d = copy_fixture();
        set_yaml(&d, "time_limit: 1.0", "time_limit: fast");
        refused(&d, &["task.yaml: time_limit: expected a number"]);

        let d = copy_fixture();
        std::fs::remove_file(d.path().join("task/output/output3.txt")).unwrap();
        refused(
            &d,
            &["output3.txt: missing, while other tests have their output"],
        );
    }

    /// A `#COPY:` line reads only files of the task: an absolute path or one climbing out of
    /// it is refused.
    #[test]
    fn copy_lines_stay_inside() {
        for (target, wants) in [
            ("/etc/hostname", "hostname"),
            ("../../outside.txt", "outside.txt"),
        ] {
            let d = copy_fixture();
            std::fs::write(d.path().join("outside.txt"), "1 2\n").unwrap();
            std::fs::remove_dir_all(d.path().join("task/input")).unwrap();
            std::fs::remove_dir_all(d.path().join("task/output")).unwrap();
            std::fs::write(gen_of(&d), format!("#ST: 100\n#COPY: {target}\n")).unwrap();
            set_yaml(&d, "n_input: 7", "n_input: 1");
            let to = d.path().join("out");
            let e = import_to(&d.path().join("task"), &to)
                .unwrap_err()
                .to_string();
            assert!(e.contains(wants) && e.contains("refused"), "{target}: {e}");
            assert!(!to.exists());
        }
    }

    fn gen_of(d: &tempfile::TempDir) -> PathBuf {
        d.path().join("task/gen/GEN")
    }

    /// A Kattis package is not a CMS task: the message says what it looks like.
    #[test]
    fn a_kattis_package_is_named() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("problem.yaml"), "name: x\n").unwrap();
        let e = import_to(d.path(), &d.path().join("out"))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("not a CMS task; it looks like a Kattis package"),
            "{e}"
        );
    }
}
