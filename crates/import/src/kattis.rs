//! `ojd import kattis DIR`: a Kattis problem package (legacy, 2023-07 and 2025-09) into an ojd
//! package. The main entry is [`import`].
//!
//! What maps onto what:
//! - `problem.yaml`: `name` (a string, or a map by language: English first), `source` /
//!   `author` / `credits`, `limits` (`time_limit` in seconds, `memory` and `output` in MiB), the
//!   kind of problem (legacy `validation: default | custom | custom interactive`, current
//!   `type: pass-fail | scoring | interactive`), legacy `validator_flags`;
//! - the time limit: `limits.time_limit`, else a legacy `.timelimit` file, else the multiplier
//!   rule (the slowest accepted submission's CPU time times `time_multiplier` (legacy, default
//!   5) or `time_multipliers.ac_to_time_limit` (default 2), rounded up to a whole second),
//!   measured by judging the accepted submissions in the sandbox;
//! - `data/sample/**` → `tests/sample-<name>`, `data/secret/<a>/<b>/<t>` → `tests/<a>-<b>-<t>`;
//!   `testdata.yaml` / `test_group.yaml`: `output_validator_flags`, `input_validator_flags`, and
//!   the score of a first-level group of `data/secret` (`score`, `scoring.score`, or legacy
//!   `accept_score` with `grader_flags: min`) → `[[group]]`;
//! - `output_validators/<name>/`, `output_validators/x.cc` or `output_validator/` → a
//!   `kattis` checker (or the interactor of an interactive problem); without one, the default
//!   validator's flags → the exactly equivalent built-in checker;
//! - `input_validators/` (or legacy `input_format_validators/`) → the validator, accepting on
//!   exit 42;
//! - `problem_statement/` or `statement/`: Markdown kept as `statement.md`; LaTeX kept as
//!   source under `statement/` with a Markdown rendering ([`latex_to_markdown`]);
//! - `submissions/<verdict>/` → `submissions/<verdict>/`, the first accepted one (C++, C or
//!   Rust preferred) also named as the reference solution.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde_norway::Value;

use super::{
    copy_raw, copy_text, entries, files_in, inline_includes, io_err, safe_name, write_file,
    ImportError, Imported, Manifest, Staging,
};
use ojd_judge::config::Config;
use ojd_judge::problem::{CheckerSpec, DefaultFlags, Group, Interactor, InteractorProtocol};

/// Which edition of the format the package follows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Version {
    Legacy,
    /// 2023-07 (and its drafts).
    V2023,
    /// 2025-09 (and its drafts).
    V2025,
}

struct Src<'a> {
    dir: &'a Path,
    yaml_file: String,
    yaml: Value,
    version: Version,
}

impl Src<'_> {
    fn get(&self, key: &str) -> Option<&Value> {
        self.yaml.get(key)
    }

    fn unsupported(&self, key: &str, what: impl Into<String>) -> ImportError {
        ImportError::Unsupported {
            file: self.yaml_file.clone(),
            key: key.into(),
            what: what.into(),
        }
    }
}

fn read_yaml(path: &Path) -> Result<Value, ImportError> {
    let text = std::fs::read_to_string(path).map_err(io_err(format!("read {}", path.display())))?;
    if text.trim().is_empty() {
        return Ok(Value::Mapping(Default::default()));
    }
    let v: Value = serde_norway::from_str(&text).map_err(|e| ImportError::Invalid {
        file: path.display().to_string(),
        message: format!("not valid YAML: {e}"),
    })?;
    Ok(match v {
        Value::Null => Value::Mapping(Default::default()),
        v => v,
    })
}

fn yaml_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

fn yaml_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A list of flags, written as one string ("a b c") or a YAML list.
fn yaml_words(v: &Value) -> Vec<String> {
    match v {
        Value::Sequence(s) => s.iter().filter_map(yaml_string).collect(),
        other => yaml_string(other)
            .map(|s| s.split_whitespace().map(String::from).collect())
            .unwrap_or_default(),
    }
}

/// `name` as a string, or the English (else the first) entry of a map by language.
fn title(src: &Src<'_>) -> String {
    match src.get("name") {
        Some(Value::Mapping(m)) => m
            .get("en")
            .or_else(|| m.values().next())
            .and_then(yaml_string)
            .unwrap_or_default(),
        Some(v) => yaml_string(v).unwrap_or_default(),
        None => String::new(),
    }
}

fn source_line(src: &Src<'_>) -> String {
    let mut parts = Vec::new();
    for key in ["source", "author", "credits"] {
        match src.get(key) {
            Some(Value::Mapping(m)) => {
                if let Some(n) = m.get("name").and_then(yaml_string) {
                    parts.push(n);
                } else if let Some(a) = m.get("authors") {
                    parts.extend(yaml_words(a));
                }
            }
            Some(Value::Sequence(s)) => parts.extend(s.iter().filter_map(yaml_string)),
            Some(v) => parts.extend(yaml_string(v)),
            None => {}
        }
    }
    parts.join(", ")
}

/// What kind of problem: (custom output validator, interactive, scoring).
fn kind(src: &Src<'_>) -> Result<(bool, bool, bool), ImportError> {
    let mut custom = false;
    let mut interactive = false;
    let mut scoring = false;
    if let Some(v) = src.get("validation") {
        let words = yaml_words(v);
        for w in &words {
            match w.as_str() {
                "default" => {}
                "custom" => custom = true,
                "interactive" => interactive = true,
                "score" => return Err(src.unsupported(
                    "validation",
                    "\"custom score\" (the output validator gives the score) is not supported: \
                         ojd scores by test groups",
                )),
                other => {
                    return Err(src.unsupported("validation", format!("unknown value {other:?}")))
                }
            }
        }
    }
    if let Some(v) = src.get("type") {
        for w in yaml_words(v) {
            match w.as_str() {
                "pass-fail" => {}
                "scoring" => scoring = true,
                "interactive" => interactive = true,
                other @ ("multi-pass" | "submit-answer") => {
                    return Err(
                        src.unsupported("type", format!("{other} problems are not supported"))
                    )
                }
                other => return Err(src.unsupported("type", format!("unknown type {other:?}"))),
            }
        }
    }
    let dir = src.dir;
    let has_validator = dir.join("output_validator").is_dir()
        || !entries(&dir.join("output_validators")).is_empty();
    if interactive && !has_validator {
        return Err(ImportError::Invalid {
            file: dir.join("output_validators").display().to_string(),
            message: "an interactive problem needs its interactor here".into(),
        });
    }
    // Current versions have no `validation` key: a validator folder means a custom validator.
    custom |= src.version != Version::Legacy && has_validator;
    Ok((custom || interactive, interactive, scoring))
}

/// A program of the package, one file or a folder of files, as one source file in `out`
/// named `stem.<ext>`; `None` (with a warning) when ojd has no language for it.
fn program(
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
            .filter(|f| {
                config.language_for(f).is_some()
                    && !matches!(
                        f.extension().and_then(|e| e.to_str()),
                        Some("h" | "hpp" | "hh")
                    )
            })
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
        let data = std::fs::read(&main).map_err(io_err(format!("read {}", main.display())))?;
        String::from_utf8_lossy(&super::normalize_newlines(&data)).into_owned()
    };
    write_file(&out.join(&name), text.as_bytes())?;
    Ok(Some(name))
}

/// Everything found under `data/`.
struct Data {
    tests: Vec<(String, PathBuf, PathBuf)>,
    samples: usize,
    output_flags: Option<Vec<String>>,
    input_flags: Option<Vec<String>>,
    input_flags_vary: bool,
    groups: Vec<Group>,
}

fn group_yaml(dir: &Path) -> Result<Option<(PathBuf, Value)>, ImportError> {
    for name in ["test_group.yaml", "testdata.yaml"] {
        let p = dir.join(name);
        if p.is_file() {
            return Ok(Some((p.clone(), read_yaml(&p)?)));
        }
    }
    Ok(None)
}

fn data(
    src: &Src<'_>,
    scoring: bool,
    interactive: bool,
    warnings: &mut Vec<String>,
) -> Result<Data, ImportError> {
    let root = src.dir.join("data");
    if !root.is_dir() {
        return Err(ImportError::Invalid {
            file: root.display().to_string(),
            message: "no data folder (data/sample, data/secret)".into(),
        });
    }
    let mut d = Data {
        tests: Vec::new(),
        samples: 0,
        output_flags: None,
        input_flags: None,
        input_flags_vary: false,
        groups: Vec::new(),
    };
    // Flags are inherited down the tree; ojd has one set for the problem.
    let walk_flags = |path: &Path, y: &Value, key: &str, slot: &mut Option<Vec<String>>| {
        if let Some(v) = y.get(key) {
            let words = yaml_words(v);
            match slot {
                None => *slot = Some(words),
                Some(old) if *old == words => {}
                Some(_) => {
                    return Err(ImportError::Unsupported {
                        file: path.display().to_string(),
                        key: key.into(),
                        what: "flags that differ between test groups are not supported".into(),
                    })
                }
            }
        }
        Ok(())
    };
    let mut yamls = Vec::new();
    for dir in [root.clone(), root.join("secret"), root.join("sample")] {
        if let Some(y) = group_yaml(&dir)? {
            yamls.push(y);
        }
    }
    for g in entries(&root.join("secret"))
        .into_iter()
        .filter(|p| p.is_dir())
    {
        collect_yamls(&g, &mut yamls)?;
    }
    for (path, y) in &yamls {
        walk_flags(path, y, "output_validator_flags", &mut d.output_flags)?;
        if let Err(e) = walk_flags(path, y, "input_validator_flags", &mut d.input_flags) {
            warnings.push(format!("{e}: inputs are not validated"));
            d.input_flags_vary = true;
        }
        if let Some(v) = y.get("output_validator_args") {
            walk_flags(path, y, "output_validator_args", &mut d.output_flags).map_err(|_| {
                ImportError::Unsupported {
                    file: path.display().to_string(),
                    key: "output_validator_args".into(),
                    what: format!("arguments that differ between test groups: {v:?}"),
                }
            })?;
        }
    }
    walk(
        &root.join("sample"),
        "sample",
        &mut d.tests,
        true,
        interactive,
    )?;
    d.samples = d.tests.len();
    walk(&root.join("secret"), "", &mut d.tests, false, interactive)?;
    if d.tests.len() == d.samples {
        return Err(ImportError::Invalid {
            file: root.join("secret").display().to_string(),
            message: "no secret tests (*.in)".into(),
        });
    }
    if scoring {
        d.groups = groups(&root.join("secret"), warnings)?;
    }
    Ok(d)
}

fn collect_yamls(dir: &Path, out: &mut Vec<(PathBuf, Value)>) -> Result<(), ImportError> {
    if let Some(y) = group_yaml(dir)? {
        out.push(y);
    }
    for sub in entries(dir).into_iter().filter(|p| p.is_dir()) {
        collect_yamls(&sub, out)?;
    }
    Ok(())
}

/// Test cases under `dir`, depth first, named by their path joined with `-`.
/// An interactive problem's test may have no answer file (an empty one is written).
fn walk(
    dir: &Path,
    prefix: &str,
    out: &mut Vec<(String, PathBuf, PathBuf)>,
    sample: bool,
    interactive: bool,
) -> Result<(), ImportError> {
    for p in entries(dir) {
        let name = p
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let joined = |s: &str| {
            if prefix.is_empty() {
                safe_name(s)
            } else {
                format!("{prefix}-{}", safe_name(s))
            }
        };
        if p.is_dir() {
            walk(&p, &joined(&name), out, sample, interactive)?;
        } else if let Some(stem) = name.strip_suffix(".in") {
            let ans = p.with_extension("ans");
            if !ans.is_file() && !interactive {
                return Err(ImportError::Invalid {
                    file: p.display().to_string(),
                    message: format!("no answer file {stem}.ans beside it"),
                });
            }
            let mut test = joined(stem);
            // Secret tests never look like samples to ojd.
            if !sample && test.starts_with("sample") {
                test = format!("secret-{test}");
            }
            if out.iter().any(|(t, _, _)| *t == test) {
                return Err(ImportError::Invalid {
                    file: p.display().to_string(),
                    message: format!("two tests would both be named {test:?}"),
                });
            }
            out.push((test, p.clone(), ans));
        }
    }
    Ok(())
}

/// The first-level groups of `data/secret` with their score.
fn groups(secret: &Path, warnings: &mut Vec<String>) -> Result<Vec<Group>, ImportError> {
    let mut out = Vec::new();
    let dirs: Vec<PathBuf> = entries(secret).into_iter().filter(|p| p.is_dir()).collect();
    if dirs.is_empty() {
        warnings.push(format!(
            "{}: a scoring problem without test groups: ojd scores the share of tests passed",
            secret.display()
        ));
        return Ok(out);
    }
    for g in dirs {
        let name = g
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        let Some((file, y)) = group_yaml(&g)? else {
            return Err(ImportError::Invalid {
                file: g.join("testdata.yaml").display().to_string(),
                message: "a test group of a scoring problem needs its score here".into(),
            });
        };
        let err = |key: &str, what: &str| ImportError::Unsupported {
            file: file.display().to_string(),
            key: key.into(),
            what: what.into(),
        };
        let score = if let Some(s) = y.get("score").and_then(yaml_f64) {
            s
        } else if let Some(s) = y
            .get("scoring")
            .and_then(|s| s.get("score"))
            .and_then(yaml_f64)
        {
            if let Some(a) = y.get("scoring").and_then(|s| s.get("aggregation")) {
                if yaml_string(a).as_deref() != Some("min") {
                    return Err(err(
                        "scoring.aggregation",
                        "only \"min\" (all or nothing) is supported",
                    ));
                }
            }
            s
        } else if let Some(s) = y.get("accept_score").and_then(yaml_f64) {
            let flags = y.get("grader_flags").map(yaml_words).unwrap_or_default();
            if !flags.iter().any(|f| f == "min") {
                return Err(err(
                    "grader_flags",
                    "a group's score must be all or nothing (grader_flags: min)",
                ));
            }
            s
        } else {
            return Err(err("score", "missing: the group's score"));
        };
        if score < 0.0 || score.fract() != 0.0 {
            return Err(err("score", "ojd scores are whole non-negative points"));
        }
        let test_prefix = format!("{}-", safe_name(&name));
        out.push(Group {
            name,
            points: score as u32,
            tests: vec![test_prefix],
        });
    }
    Ok(out)
}

/// The time limit given by the package, in milliseconds, and its multiplier otherwise.
fn given_time_limit(src: &Src<'_>) -> Result<(Option<u64>, f64), ImportError> {
    let limits = src.get("limits");
    let lim = |k: &str| limits.and_then(|l| l.get(k));
    if let Some(t) = lim("time_limit") {
        let s = yaml_f64(t).filter(|s| *s > 0.0).ok_or_else(|| {
            src.unsupported("limits.time_limit", "expected a positive number of seconds")
        })?;
        return Ok((Some((s * 1000.0).round() as u64), 1.0));
    }
    let tl = src.dir.join(".timelimit");
    if tl.is_file() {
        let text =
            std::fs::read_to_string(&tl).map_err(io_err(format!("read {}", tl.display())))?;
        let s: f64 = text.trim().parse().map_err(|_| ImportError::Invalid {
            file: tl.display().to_string(),
            message: format!("expected seconds, found {:?}", text.trim()),
        })?;
        return Ok((Some((s * 1000.0).round() as u64), 1.0));
    }
    let multiplier = match src.version {
        Version::Legacy => lim("time_multiplier").and_then(yaml_f64).unwrap_or(5.0),
        _ => lim("time_multipliers")
            .and_then(|m| m.get("ac_to_time_limit"))
            .and_then(yaml_f64)
            .unwrap_or(2.0),
    };
    Ok((None, multiplier))
}

fn mib(src: &Src<'_>, key: &str, default: u64) -> Result<u64, ImportError> {
    match src.get("limits").and_then(|l| l.get(key)) {
        None => Ok(default << 20),
        Some(v) => yaml_f64(v)
            .filter(|m| *m >= 1.0)
            .map(|m| (m * 1048576.0) as u64)
            .ok_or_else(|| src.unsupported(&format!("limits.{key}"), "expected a number of MiB")),
    }
}

/// Options of an import.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Where the ojd package goes; default `problems/<folder name>`.
    pub to: Option<PathBuf>,
}

/// Imports the Kattis package in `dir` (see the module documentation). `judge` is used only
/// when the time limit must come from the multiplier rule.
pub fn import(
    dir: &Path,
    config: &Config,
    judge: Option<&ojd_judge::judge::Judge>,
    opts: &Options,
) -> Result<Imported, ImportError> {
    let yaml_path = dir.join("problem.yaml");
    if !dir.is_dir() {
        return Err(ImportError::Invalid {
            file: dir.display().to_string(),
            message: "no such folder".into(),
        });
    }
    if !yaml_path.is_file() {
        return Err(ImportError::Invalid {
            file: yaml_path.display().to_string(),
            message: "missing: not a Kattis problem package".into(),
        });
    }
    let yaml = read_yaml(&yaml_path)?;
    let version = match yaml.get("problem_format_version").and_then(yaml_string) {
        None => Version::Legacy,
        Some(v) if v == "legacy" || v.starts_with("legacy-") => Version::Legacy,
        Some(v) if v.starts_with("2023-07") => Version::V2023,
        Some(v) if v.starts_with("2025-09") => Version::V2025,
        Some(v) => {
            return Err(ImportError::Unsupported {
                file: yaml_path.display().to_string(),
                key: "problem_format_version".into(),
                what: format!("unknown version {v:?} (known: legacy, 2023-07, 2025-09)"),
            })
        }
    };
    let src = Src {
        dir,
        yaml_file: yaml_path.display().to_string(),
        yaml,
        version,
    };
    let id = dir
        .canonicalize()
        .ok()
        .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
        .unwrap_or_else(|| "problem".into());
    let dest = opts
        .to
        .clone()
        .unwrap_or_else(|| config.server.problems.join(safe_name(&id)));
    let stage = Staging::new(&dest)?;
    let out = stage.dir.clone();
    let mut warnings = Vec::new();
    let (custom, interactive, scoring) = kind(&src)?;
    let data = data(&src, scoring, interactive, &mut warnings)?;
    for (name, input, answer) in &data.tests {
        copy_text(input, &out.join("tests").join(format!("{name}.in")))?;
        let ans_to = out.join("tests").join(format!("{name}.ans"));
        if answer.is_file() {
            copy_text(answer, &ans_to)?;
        } else {
            write_file(&ans_to, b"")?;
        }
    }
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
    let mut checker = CheckerSpec::Tokens;
    let mut interactor = None;
    if custom {
        let validator_src = if dir.join("output_validator").is_dir() {
            dir.join("output_validator")
        } else {
            let all = entries(&dir.join("output_validators"));
            if all.len() > 1 {
                return Err(ImportError::Unsupported {
                    file: dir.join("output_validators").display().to_string(),
                    key: "output validators".into(),
                    what: "more than one output validator is not supported".into(),
                });
            }
            all.into_iter().next().ok_or_else(|| {
                src.unsupported("validation", "custom, but output_validators/ is empty")
            })?
        };
        let name = program(
            config,
            &validator_src,
            &out,
            "output_validator",
            &mut warnings,
        )?
        .ok_or_else(|| ImportError::Unsupported {
            file: validator_src.display().to_string(),
            key: "output validator".into(),
            what: "written in a language ojd has no profile for".into(),
        })?;
        if interactive {
            interactor = Some(Interactor {
                path: name.into(),
                protocol: InteractorProtocol::Kattis,
                flags: output_flags.clone(),
            });
        } else {
            checker = CheckerSpec::Kattis {
                path: name.into(),
                flags: output_flags.clone(),
            };
        }
    } else {
        let key = if src.get("validator_flags").is_some() {
            "validator_flags"
        } else {
            "output_validator_flags"
        };
        checker = DefaultFlags::parse(&output_flags)
            .map_err(|e| src.unsupported(key, e))?
            .into_checker();
    }
    let mut validator = None;
    for folder in ["input_validators", "input_format_validators"] {
        let all = entries(&dir.join(folder));
        let mut made = Vec::new();
        for v in &all {
            if let Some(name) = program(
                config,
                v,
                &out,
                &format!("input_validator{}", made.len()),
                &mut warnings,
            )? {
                made.push(name);
            }
        }
        if made.len() > 1 {
            warnings.push(format!(
                "{}: ojd runs one input validator; only {} is used",
                dir.join(folder).display(),
                made[0]
            ));
        }
        if validator.is_none() && !data.input_flags_vary {
            validator = made
                .into_iter()
                .next()
                .map(|n| (n, 42, data.input_flags.clone().unwrap_or_default()));
        }
    }
    statement(dir, &out, &title(&src), &mut warnings)?;
    let (submissions, reference) = submissions(config, dir, &out, &mut warnings)?;
    let reference = reference.ok_or_else(|| ImportError::Invalid {
        file: dir.join("submissions/accepted").display().to_string(),
        message: "no accepted submission in a language ojd knows: ojd needs one as the reference"
            .into(),
    })?;
    let (given, multiplier) = given_time_limit(&src)?;
    let mut manifest = Manifest {
        title: match title(&src) {
            t if t.is_empty() => id.clone(),
            t => t,
        },
        source: source_line(&src),
        time_limit_ms: given.unwrap_or(10_000),
        memory_limit_bytes: mib(&src, "memory", 2048)?,
        output_limit_bytes: Some(mib(&src, "output", 8)?),
        checker,
        solution: reference,
        validator,
        interactor,
        groups: data.groups,
        answers_given: true,
        generate: Vec::new(),
        io: None,
        kattis_verdicts: true,
        origin: format!(
            "Imported from a Kattis package ({}) by `ojd import kattis`.",
            match version {
                Version::Legacy => "legacy format",
                Version::V2023 => "2023-07 format",
                Version::V2025 => "2025-09 format",
            }
        ),
    };
    let write = |m: &Manifest| write_file(&out.join("problem.toml"), m.to_toml().as_bytes());
    write(&manifest)?;
    if given.is_none() {
        let judge = judge.ok_or_else(|| {
            ImportError::Run(format!(
                "{}: no time limit (limits.time_limit or .timelimit): the multiplier rule needs the sandbox",
                src.yaml_file
            ))
        })?;
        let (slowest, skipped) = slowest_accepted(judge, &out)?;
        for f in skipped {
            warnings.push(format!(
                "{f}: does not compile here (or its toolchain is missing), so it does not count for the time limit"
            ));
        }
        manifest.time_limit_ms = ojd_verify::calibrate::kattis_limit(
            slowest,
            multiplier,
            std::time::Duration::from_secs(1),
        )
        .as_millis() as u64;
        warnings.push(format!(
            "time limit {} ms from the slowest accepted submission ({} ms) times {multiplier}, rounded up to a second",
            manifest.time_limit_ms,
            slowest.as_millis()
        ));
        write(&manifest)?;
    }
    let dir_out = stage.commit()?;
    Ok(Imported {
        dir: dir_out,
        tests: data.tests.len(),
        samples: data.samples,
        submissions,
        warnings,
    })
}

/// The largest CPU time of any accepted submission on any test, judged with a generous limit,
/// and the accepted submissions left out because they do not compile here.
fn slowest_accepted(
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

fn submissions(
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

/// `statement.md` from Markdown (kept) or LaTeX (kept as source, rendered to Markdown); other
/// files of the statement folder (images) are kept under `statement/`.
fn statement(
    dir: &Path,
    out: &Path,
    title: &str,
    warnings: &mut Vec<String>,
) -> Result<(), ImportError> {
    let folder = ["statement", "problem_statement"]
        .iter()
        .map(|f| dir.join(f))
        .find(|p| p.is_dir());
    let Some(folder) = folder else {
        warnings.push(format!("{}: no statement folder", dir.display()));
        return write_file(&out.join("statement.md"), format!("# {title}\n").as_bytes());
    };
    for f in files_in(&folder) {
        let name = f
            .file_name()
            .unwrap_or_default()
            .to_string_lossy()
            .into_owned();
        copy_raw(&f, &out.join("statement").join(safe_name(&name)))?;
    }
    let pick = |names: &[&str]| names.iter().map(|n| folder.join(n)).find(|p| p.is_file());
    if let Some(md) = pick(&["problem.en.md", "problem.md"]) {
        return copy_text(&md, &out.join("statement.md"));
    }
    if let Some(tex) = pick(&["problem.en.tex", "problem.tex"]) {
        let data = std::fs::read(&tex).map_err(io_err(format!("read {}", tex.display())))?;
        let text = String::from_utf8_lossy(&super::normalize_newlines(&data)).into_owned();
        let md = format!(
            "{}\n\n*(Rendered from the LaTeX source `statement/{}`.)*\n",
            latex_to_markdown(&text).trim_end(),
            tex.file_name().unwrap_or_default().to_string_lossy()
        );
        return write_file(&out.join("statement.md"), md.as_bytes());
    }
    // Another language only: take the first Markdown or LaTeX file there is.
    let any = files_in(&folder)
        .into_iter()
        .find(|f| matches!(f.extension().and_then(|e| e.to_str()), Some("md" | "tex")));
    match any {
        Some(f) if f.extension().is_some_and(|e| e == "md") => {
            copy_text(&f, &out.join("statement.md"))
        }
        Some(f) => {
            let text =
                std::fs::read_to_string(&f).map_err(io_err(format!("read {}", f.display())))?;
            write_file(
                &out.join("statement.md"),
                latex_to_markdown(&text).as_bytes(),
            )
        }
        None => {
            warnings.push(format!(
                "{}: no problem.*.md or problem.*.tex",
                folder.display()
            ));
            write_file(&out.join("statement.md"), format!("# {title}\n").as_bytes())
        }
    }
}

/// A readable Markdown rendering of a Kattis LaTeX statement: `\problemname` and sections
/// become headings, emphasis and code their Markdown forms, lists bullets, tables rows of `|`,
/// math stays between `$` signs; unknown commands keep their argument text.
pub fn latex_to_markdown(tex: &str) -> String {
    let mut out = String::new();
    for raw in tex.lines() {
        let line = raw.trim_end();
        let t = line.trim_start();
        if t.starts_with('%') {
            continue;
        }
        let (heading, rest) = if let Some(r) = t.strip_prefix("\\problemname") {
            ("# ", r)
        } else if let Some(r) = t
            .strip_prefix("\\section*")
            .or_else(|| t.strip_prefix("\\section"))
        {
            ("## ", r)
        } else if let Some(r) = t
            .strip_prefix("\\subsection*")
            .or_else(|| t.strip_prefix("\\subsection"))
        {
            ("### ", r)
        } else {
            ("", t)
        };
        if !heading.is_empty() {
            out += heading;
            out += &inline(braced(rest).unwrap_or(rest));
            out += "\n";
            continue;
        }
        if t.starts_with("\\begin{") || t.starts_with("\\end{") {
            if t.starts_with("\\begin{tabular}") || t.starts_with("\\end{") {
                out.push('\n');
            }
            continue;
        }
        if matches!(
            t,
            "\\noindent" | "\\hline" | "\\centering" | "\\medskip" | "\\bigskip" | "\\smallskip"
        ) {
            continue;
        }
        if let Some(item) = t.strip_prefix("\\item") {
            out += "- ";
            out += inline(item.trim_start()).trim();
            out.push('\n');
            continue;
        }
        if t.contains(" & ")
            || t.ends_with("\\\\ \\hline")
            || t.ends_with("\\\\") && t.contains('&')
        {
            let row = t
                .trim_end_matches("\\hline")
                .trim_end()
                .trim_end_matches("\\\\")
                .trim_start_matches("\\hline");
            let cells: Vec<String> = row.split('&').map(|c| inline(c.trim())).collect();
            out += &format!("| {} |\n", cells.join(" | "));
            continue;
        }
        out += &inline(t);
        out.push('\n');
    }
    // Collapse runs of blank lines.
    let mut clean = String::new();
    let mut blank = 0;
    for l in out.lines() {
        if l.trim().is_empty() {
            blank += 1;
            if blank > 1 {
                continue;
            }
        } else {
            blank = 0;
        }
        clean += l;
        clean.push('\n');
    }
    clean
}

/// The text of a `{...}` group at the start of `s` (after spaces).
fn braced(s: &str) -> Option<&str> {
    let s = s.trim_start().strip_prefix('{')?;
    let mut depth = 1;
    for (i, c) in s.char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&s[..i]);
                }
            }
            _ => {}
        }
    }
    None
}

/// Inline LaTeX: `\emph{x}` → `*x*`, `\textbf{x}` → `**x**`, `\texttt{x}` → `` `x` ``,
/// `\(x\)` → `$x$`, `\[x\]` → `$$x$$`, `~` → a space, `\\` → a line break; other commands with
/// an argument keep the argument.
fn inline(s: &str) -> String {
    let s = s
        .replace("\\(", "$")
        .replace("\\)", "$")
        .replace("\\[", "$$")
        .replace("\\]", "$$")
        .replace("``", "\u{201c}")
        .replace("''", "\u{201d}");
    let mut out = String::new();
    let mut rest = s.as_str();
    let mut in_math = false;
    while let Some(c) = rest.chars().next() {
        if c == '$' {
            in_math = !in_math;
            out.push(c);
            rest = &rest[1..];
            continue;
        }
        if in_math {
            out.push(c);
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if c == '~' {
            out.push(' ');
            rest = &rest[1..];
            continue;
        }
        if let Some(r) = rest.strip_prefix("\\\\") {
            out += "  \n";
            rest = r;
            continue;
        }
        if let Some(r) = rest.strip_prefix('\\') {
            let name: String = r.chars().take_while(|c| c.is_ascii_alphabetic()).collect();
            let after = &r[name.len()..];
            if name.is_empty() {
                // An escaped character: \% \& \$ \_ \{ \}.
                if let Some(ch) = after.chars().next() {
                    out.push(ch);
                    rest = &after[ch.len_utf8()..];
                } else {
                    rest = after;
                }
                continue;
            }
            if let Some(arg) = braced(after) {
                let consumed = after.len() - after.trim_start().len() + arg.len() + 2;
                let inner = inline(arg);
                out += &match name.as_str() {
                    "emph" | "textit" => format!("*{inner}*"),
                    "textbf" => format!("**{inner}**"),
                    "texttt" | "verb" => format!("`{inner}`"),
                    "url" | "href" => format!("<{inner}>"),
                    "illustration" | "includegraphics" | "label" | "ref" | "cite" => String::new(),
                    _ => inner,
                };
                rest = &after[consumed..];
            } else {
                rest = after;
            }
            continue;
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latex_reads_as_markdown() {
        let tex = "\\problemname{Odd Echo}\n% a comment\nSay \\emph{every} word, \\textbf{twice}: \\texttt{ECHO}~now.\n\n\\section*{Input}\nAn integer \\(N\\) (\\(1 \\le N \\le 10\\)), 50\\% of them.\n\\begin{itemize}\n\\item first\n\\end{itemize}\n  Group & Points \\\\ \\hline\n";
        let md = latex_to_markdown(tex);
        assert!(md.starts_with("# Odd Echo\n"), "{md}");
        assert!(
            md.contains("Say *every* word, **twice**: `ECHO` now."),
            "{md}"
        );
        assert!(md.contains("## Input\n"), "{md}");
        assert!(
            md.contains("An integer $N$ ($1 \\le N \\le 10$), 50% of them."),
            "{md}"
        );
        assert!(md.contains("- first\n"), "{md}");
        assert!(md.contains("| Group | Points |"), "{md}");
        assert!(!md.contains("comment"));
    }
}
