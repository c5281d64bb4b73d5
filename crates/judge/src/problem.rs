//! Problem packages: `problem.toml`, test discovery and validation.
//!
//! [`Problem::load`] reads a package folder, checks every key and collects *all* errors before
//! failing, each naming the file and the key ("problems/x/problem.toml: time_limit: expected a
//! duration like \"1s\" or \"500ms\""). The raw TOML is walked by hand rather than derived so that
//! one bad key does not hide the next. Loading never runs anything.

use std::path::{Path, PathBuf};
use std::time::Duration;

use serde::Serialize;

use crate::units::{parse_bytes, parse_duration};

/// A validated problem package.
#[derive(Clone, Debug, Serialize)]
pub struct Problem {
    /// The folder name.
    pub id: String,
    pub dir: PathBuf,
    pub title: String,
    pub source: String,
    pub time_limit: Duration,
    pub wall_time_limit: Option<Duration>,
    pub memory_limit: u64,
    pub output_limit: Option<u64>,
    pub checker: CheckerSpec,
    /// Reference solver, relative to `dir`.
    pub solution: PathBuf,
    /// True when the `.ans` files come with the package (`answers = "given"`, as imported
    /// packages have them): `ojd gen` then validates inputs only and never rewrites an answer.
    pub answers_given: bool,
    pub validator: Option<PathBuf>,
    /// The exit code by which the validator accepts an input: 0, or 42 for a Kattis validator.
    pub validator_accept: i32,
    /// Arguments given to the validator (Kattis `input_validator_flags`).
    pub validator_args: Vec<String>,
    /// An interactor: the program talks to it through pipes instead of reading a test file.
    pub interactor: Option<Interactor>,
    pub io: IoMode,
    pub tests: Vec<TestCase>,
    pub generate: Vec<Generated>,
    pub stress: Option<Stress>,
    pub groups: Vec<Group>,
    /// Whose verdict rules the package's `submissions/` folders follow (`verdicts = "kattis"`
    /// in an imported Kattis package).
    pub verdicts: VerdictRules,
}

/// How outputs are compared.
#[derive(Clone, Debug, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum CheckerSpec {
    /// Whitespace-insensitive token comparison (the default).
    Tokens,
    /// Byte-exact comparison after normalising CRLF and a final newline.
    Exact,
    /// Line by line, ignoring trailing spaces and trailing empty lines.
    Lines,
    /// Tokens, numbers equal within an absolute or relative tolerance.
    Float { abs: f64, rel: f64 },
    /// An external checker program speaking testlib's protocol.
    Program { path: PathBuf },
    /// The Kattis default output validator with its flags (see [`DefaultFlags`]).
    KattisDefault(DefaultFlags),
    /// A Kattis output validator: `validator input answer feedback_dir [flags] < output`,
    /// exit 42 accepted, 43 wrong answer, anything else a judge error.
    Kattis { path: PathBuf, flags: Vec<String> },
}

/// Whose verdict rules a package's `submissions/` folders were written for. ojd reports a
/// memory overrun as MLE; Kattis (problemtools) has no such verdict and reports it as a
/// run-time error, so a Kattis package's `run_time_error/` may hold a submission that gets MLE
/// here.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum VerdictRules {
    #[default]
    Ojd,
    /// A memory overrun meets a `runtime_error` expectation (and counts as one).
    Kattis,
}

/// The Kattis default output validator's flags, as the package format defines them: tokens
/// separated by whitespace, compared case-insensitively unless `case_sensitive`; the amount of
/// whitespace matters only with `space_change_sensitive`; with a tolerance, a token of the
/// answer that is a number matches an output number within the absolute or the relative
/// tolerance (either suffices).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct DefaultFlags {
    pub case_sensitive: bool,
    pub space_change_sensitive: bool,
    pub float_absolute_tolerance: Option<f64>,
    pub float_relative_tolerance: Option<f64>,
}

impl DefaultFlags {
    /// Parses `validator_flags` of a Kattis package; an unknown flag is an error naming it.
    pub fn parse(flags: &[String]) -> Result<DefaultFlags, String> {
        let mut f = DefaultFlags::default();
        let mut it = flags.iter();
        while let Some(flag) = it.next() {
            let mut number = |name: &str| -> Result<f64, String> {
                let v = it
                    .next()
                    .ok_or_else(|| format!("{name} needs a number after it"))?;
                v.parse::<f64>()
                    .ok()
                    .filter(|x| x.is_finite() && *x >= 0.0)
                    .ok_or_else(|| format!("{name}: expected a non-negative number, found {v:?}"))
            };
            match flag.as_str() {
                "case_sensitive" => f.case_sensitive = true,
                "space_change_sensitive" => f.space_change_sensitive = true,
                "float_absolute_tolerance" => {
                    f.float_absolute_tolerance = Some(number("float_absolute_tolerance")?)
                }
                "float_relative_tolerance" => {
                    f.float_relative_tolerance = Some(number("float_relative_tolerance")?)
                }
                "float_tolerance" => {
                    let e = number("float_tolerance")?;
                    f.float_absolute_tolerance = Some(e);
                    f.float_relative_tolerance = Some(e);
                }
                other => {
                    return Err(format!(
                        "unknown flag {other:?} (known: case_sensitive, space_change_sensitive, \
                         float_tolerance, float_absolute_tolerance, float_relative_tolerance)"
                    ))
                }
            }
        }
        Ok(f)
    }

    /// The flags that select this comparison in a Kattis package.
    pub fn to_flags(&self) -> Vec<String> {
        let mut v = Vec::new();
        if self.case_sensitive {
            v.push("case_sensitive".to_string());
        }
        if self.space_change_sensitive {
            v.push("space_change_sensitive".to_string());
        }
        if let Some(a) = self.float_absolute_tolerance {
            v.extend(["float_absolute_tolerance".to_string(), format!("{a:e}")]);
        }
        if let Some(r) = self.float_relative_tolerance {
            v.extend(["float_relative_tolerance".to_string(), format!("{r:e}")]);
        }
        v
    }

    /// The ojd built-in checker that compares exactly as these flags do, or `KattisDefault`
    /// itself when none does: `case_sensitive` alone is `tokens`; with tolerances it is `float`.
    pub fn into_checker(self) -> CheckerSpec {
        let floats =
            self.float_absolute_tolerance.is_some() || self.float_relative_tolerance.is_some();
        match (self.case_sensitive, self.space_change_sensitive, floats) {
            (true, false, false) => CheckerSpec::Tokens,
            (true, false, true) => CheckerSpec::Float {
                abs: self.float_absolute_tolerance.unwrap_or(0.0),
                rel: self.float_relative_tolerance.unwrap_or(0.0),
            },
            _ => CheckerSpec::KattisDefault(self),
        }
    }
}

impl CheckerSpec {
    /// The Kattis default-validator flags that compare as this built-in checker does, if any.
    pub fn default_flags(&self) -> Option<DefaultFlags> {
        match self {
            CheckerSpec::Tokens => Some(DefaultFlags {
                case_sensitive: true,
                ..Default::default()
            }),
            CheckerSpec::Float { abs, rel } => Some(DefaultFlags {
                case_sensitive: true,
                float_absolute_tolerance: Some(*abs),
                float_relative_tolerance: Some(*rel),
                ..Default::default()
            }),
            CheckerSpec::KattisDefault(f) => Some(f.clone()),
            _ => None,
        }
    }
}

/// How an interactor speaks: its arguments and exit codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum InteractorProtocol {
    /// Kattis: `interactor input answer feedback_dir`, 42 accepted, 43 wrong answer.
    Kattis,
    /// testlib: `interactor input tout answer`, 0 accepted, 1 (2) wrong answer, 3 failure.
    Testlib,
}

/// The program that talks to a submission of an interactive problem.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Interactor {
    pub path: PathBuf,
    pub protocol: InteractorProtocol,
    pub flags: Vec<String>,
}

/// File I/O as NOIP used it: the input is also put in the working folder, and the output is
/// read from a file if the program wrote it (standard output otherwise).
#[derive(Clone, Debug, Default, Serialize)]
pub struct IoMode {
    pub input_file: Option<String>,
    pub output_file: Option<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct TestCase {
    /// File stem, e.g. "sample-1" or "07-max".
    pub name: String,
    pub input: PathBuf,
    pub answer: PathBuf,
    pub sample: bool,
}

#[derive(Clone, Debug, Serialize)]
pub struct Generated {
    pub test: String,
    pub program: PathBuf,
    pub args: Vec<String>,
}

#[derive(Clone, Debug, Serialize)]
pub struct Stress {
    pub generator: PathBuf,
    pub args: Vec<String>,
    pub brute: PathBuf,
    pub count: u32,
}

/// A scoring group: tests whose names start with one of `tests` prefixes.
#[derive(Clone, Debug, Serialize)]
pub struct Group {
    pub name: String,
    pub points: u32,
    pub tests: Vec<String>,
}

/// Every problem found while loading a package.
#[derive(Debug, thiserror::Error)]
#[error("{}", .errors.join("\n"))]
pub struct LoadError {
    pub errors: Vec<String>,
}

struct Ctx {
    file: String,
    errors: Vec<String>,
}

impl Ctx {
    fn err(&mut self, key: &str, msg: impl std::fmt::Display) {
        self.errors.push(format!("{}: {key}: {msg}", self.file));
    }

    fn string(&mut self, t: &toml::Table, key: &str) -> Option<String> {
        match t.get(key) {
            None => None,
            Some(toml::Value::String(s)) => Some(s.clone()),
            Some(_) => {
                self.err(key, "expected a string");
                None
            }
        }
    }

    fn required_string(&mut self, t: &toml::Table, key: &str) -> Option<String> {
        let v = self.string(t, key);
        if v.is_none() && !t.contains_key(key) {
            self.err(key, "missing");
        }
        v
    }

    fn duration(&mut self, t: &toml::Table, key: &str) -> Option<Duration> {
        let s = self.string(t, key)?;
        match parse_duration(&s) {
            Ok(d) if d > Duration::ZERO => Some(d),
            Ok(_) => {
                self.err(key, "must be greater than zero");
                None
            }
            Err(e) => {
                self.err(key, format!("expected {e}"));
                None
            }
        }
    }

    fn bytes(&mut self, t: &toml::Table, key: &str) -> Option<u64> {
        let s = self.string(t, key)?;
        match parse_bytes(&s) {
            Ok(b) if b.bytes() >= 1024 => Some(b.bytes()),
            Ok(_) => {
                self.err(key, "must be at least 1KiB");
                None
            }
            Err(e) => {
                self.err(key, format!("expected {e}"));
                None
            }
        }
    }

    fn strings(&mut self, t: &toml::Table, key: &str) -> Vec<String> {
        match t.get(key) {
            None => Vec::new(),
            Some(toml::Value::Array(a)) => a
                .iter()
                .filter_map(|v| match v {
                    toml::Value::String(s) => Some(s.clone()),
                    _ => {
                        self.err(key, "expected an array of strings");
                        None
                    }
                })
                .collect(),
            Some(_) => {
                self.err(key, "expected an array of strings");
                Vec::new()
            }
        }
    }

    fn unknown(&mut self, t: &toml::Table, known: &[&str], prefix: &str) {
        for k in t.keys() {
            if !known.contains(&k.as_str()) {
                self.err(
                    &format!("{prefix}{k}"),
                    format!("unknown key (known: {})", known.join(", ")),
                );
            }
        }
    }

    /// A path inside the package that must exist.
    fn file(&mut self, dir: &Path, key: &str, rel: &str) -> Option<PathBuf> {
        let p = Path::new(rel);
        if p.is_absolute()
            || p.components()
                .any(|c| matches!(c, std::path::Component::ParentDir))
        {
            self.err(
                key,
                format!("{rel:?} must be a path inside the problem folder"),
            );
            return None;
        }
        if !dir.join(p).is_file() {
            self.err(key, format!("{} does not exist", dir.join(p).display()));
            return None;
        }
        Some(p.to_path_buf())
    }
}

const KNOWN_KEYS: &[&str] = &[
    "title",
    "verdicts",
    "source",
    "time_limit",
    "wall_time_limit",
    "memory_limit",
    "output_limit",
    "checker",
    "solution",
    "validator",
    "answers",
    "interactor",
    "io",
    "generate",
    "stress",
    "group",
];

impl Problem {
    /// Loads and validates the package in `dir`.
    pub fn load(dir: &Path) -> Result<Problem, LoadError> {
        let file = dir.join("problem.toml");
        let mut cx = Ctx {
            file: file.display().to_string(),
            errors: Vec::new(),
        };
        if !dir.is_dir() {
            return Err(LoadError {
                errors: vec![format!("{}: no such problem folder", dir.display())],
            });
        }
        let text = std::fs::read_to_string(&file).map_err(|e| LoadError {
            errors: vec![format!("{}: failed to read: {e}", file.display())],
        })?;
        let table: toml::Table = text.parse().map_err(|e: toml::de::Error| {
            let at = e
                .span()
                .map(|s| {
                    let line = text[..s.start].matches('\n').count() + 1;
                    format!("line {line}: ")
                })
                .unwrap_or_default();
            LoadError {
                errors: vec![format!("{}: {at}{}", file.display(), e.message())],
            }
        })?;
        cx.unknown(&table, KNOWN_KEYS, "");
        let id = dir
            .canonicalize()
            .ok()
            .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
            .unwrap_or_else(|| dir.display().to_string());
        let title = cx.required_string(&table, "title").unwrap_or_default();
        let source = cx.string(&table, "source").unwrap_or_default();
        if !table.contains_key("time_limit") {
            cx.err("time_limit", "missing");
        }
        if !table.contains_key("memory_limit") {
            cx.err("memory_limit", "missing");
        }
        let time_limit = cx.duration(&table, "time_limit");
        let wall_time_limit = cx.duration(&table, "wall_time_limit");
        let memory_limit = cx.bytes(&table, "memory_limit");
        let output_limit = cx.bytes(&table, "output_limit");
        let checker = parse_checker(&mut cx, dir, table.get("checker"));
        let solution_name = cx
            .string(&table, "solution")
            .unwrap_or_else(|| "solution.rs".into());
        let solution = cx
            .file(dir, "solution", &solution_name)
            .unwrap_or_else(|| solution_name.into());
        let (validator, validator_accept, validator_args) =
            parse_validator(&mut cx, dir, table.get("validator"));
        let answers_given = match cx.string(&table, "answers").as_deref() {
            None | Some("generated") => false,
            Some("given") => true,
            Some(other) => {
                cx.err(
                    "answers",
                    format!("expected \"generated\" or \"given\", found {other:?}"),
                );
                false
            }
        };
        let interactor = parse_interactor(&mut cx, dir, table.get("interactor"));
        let io = parse_io(&mut cx, table.get("io"));
        let generate = parse_generate(&mut cx, dir, table.get("generate"));
        let stress = parse_stress(&mut cx, dir, table.get("stress"));
        let groups = parse_groups(&mut cx, table.get("group"));
        let verdicts = match cx.string(&table, "verdicts").as_deref() {
            None | Some("ojd") => VerdictRules::Ojd,
            Some("kattis") => VerdictRules::Kattis,
            Some(other) => {
                cx.err(
                    "verdicts",
                    format!("expected \"ojd\" or \"kattis\", found {other:?}"),
                );
                VerdictRules::Ojd
            }
        };
        let tests = discover_tests(&mut cx, dir, &generate);
        if !cx.errors.is_empty() {
            return Err(LoadError { errors: cx.errors });
        }
        Ok(Problem {
            id,
            dir: dir.to_path_buf(),
            title,
            source,
            time_limit: time_limit.expect("checked above"),
            wall_time_limit,
            memory_limit: memory_limit.expect("checked above"),
            output_limit,
            checker,
            solution,
            answers_given,
            validator,
            validator_accept,
            validator_args,
            interactor,
            io,
            tests,
            generate,
            stress,
            groups,
            verdicts,
        })
    }

    /// Tests whose answer file is missing (run `ojd gen`).
    pub fn missing_answers(&self) -> Vec<&TestCase> {
        self.tests.iter().filter(|t| !t.answer.is_file()).collect()
    }

    /// The statement in Markdown, if the package has one.
    pub fn statement(&self) -> Option<String> {
        std::fs::read_to_string(self.dir.join("statement.md")).ok()
    }
}

fn parse_checker(cx: &mut Ctx, dir: &Path, v: Option<&toml::Value>) -> CheckerSpec {
    let kinds = "\"tokens\", \"exact\", \"lines\", \"float\" or a table with kind = \"float\", \
                 \"program\", \"kattis\" or \"kattis-default\"";
    match v {
        None => CheckerSpec::Tokens,
        Some(toml::Value::String(s)) => match s.as_str() {
            "tokens" => CheckerSpec::Tokens,
            "exact" => CheckerSpec::Exact,
            "lines" => CheckerSpec::Lines,
            "float" => CheckerSpec::Float {
                abs: 1e-6,
                rel: 1e-6,
            },
            other => {
                cx.err(
                    "checker",
                    format!("unknown checker {other:?}; expected {kinds}"),
                );
                CheckerSpec::Tokens
            }
        },
        Some(toml::Value::Table(t)) => {
            let known: &[&str] = match t.get("kind").and_then(|k| k.as_str()) {
                Some("kattis") => &["kind", "path", "flags"],
                Some("kattis-default") => &[
                    "kind",
                    "case_sensitive",
                    "space_change_sensitive",
                    "float_absolute_tolerance",
                    "float_relative_tolerance",
                ],
                _ => &["kind", "abs", "rel", "path"],
            };
            cx.unknown(t, known, "checker.");
            let num = |cx: &mut Ctx, key: &str| match t.get(key) {
                None => 1e-6,
                Some(toml::Value::Float(f)) if *f >= 0.0 => *f,
                Some(toml::Value::Integer(i)) if *i >= 0 => *i as f64,
                Some(_) => {
                    cx.err(&format!("checker.{key}"), "expected a non-negative number");
                    1e-6
                }
            };
            match t.get("kind").and_then(|k| k.as_str()) {
                Some("float") => CheckerSpec::Float {
                    abs: num(cx, "abs"),
                    rel: num(cx, "rel"),
                },
                Some("program") => match t.get("path").and_then(|p| p.as_str()) {
                    Some(p) => {
                        let p = cx.file(dir, "checker.path", p).unwrap_or_default();
                        CheckerSpec::Program { path: p }
                    }
                    None => {
                        cx.err("checker.path", "missing (the checker program's source)");
                        CheckerSpec::Tokens
                    }
                },
                Some("kattis") => match t.get("path").and_then(|p| p.as_str()) {
                    Some(p) => {
                        let path = cx.file(dir, "checker.path", p).unwrap_or_default();
                        let flags = cx.strings(t, "flags");
                        CheckerSpec::Kattis { path, flags }
                    }
                    None => {
                        cx.err("checker.path", "missing (the output validator's source)");
                        CheckerSpec::Tokens
                    }
                },
                Some("kattis-default") => {
                    let flag = |cx: &mut Ctx, key: &str| match t.get(key) {
                        None => false,
                        Some(toml::Value::Boolean(b)) => *b,
                        Some(_) => {
                            cx.err(&format!("checker.{key}"), "expected true or false");
                            false
                        }
                    };
                    let tol = |cx: &mut Ctx, key: &str| match t.get(key) {
                        None => None,
                        Some(toml::Value::Float(f)) if *f >= 0.0 => Some(*f),
                        Some(toml::Value::Integer(i)) if *i >= 0 => Some(*i as f64),
                        Some(_) => {
                            cx.err(&format!("checker.{key}"), "expected a non-negative number");
                            None
                        }
                    };
                    CheckerSpec::KattisDefault(DefaultFlags {
                        case_sensitive: flag(cx, "case_sensitive"),
                        space_change_sensitive: flag(cx, "space_change_sensitive"),
                        float_absolute_tolerance: tol(cx, "float_absolute_tolerance"),
                        float_relative_tolerance: tol(cx, "float_relative_tolerance"),
                    })
                }
                Some(k @ ("tokens" | "exact" | "lines")) => {
                    parse_checker(cx, dir, Some(&toml::Value::String(k.into())))
                }
                _ => {
                    cx.err("checker.kind", format!("expected {kinds}"));
                    CheckerSpec::Tokens
                }
            }
        }
        Some(_) => {
            cx.err("checker", format!("expected {kinds}"));
            CheckerSpec::Tokens
        }
    }
}

fn parse_validator(
    cx: &mut Ctx,
    dir: &Path,
    v: Option<&toml::Value>,
) -> (Option<PathBuf>, i32, Vec<String>) {
    match v {
        None => (None, 0, Vec::new()),
        Some(toml::Value::String(p)) => (cx.file(dir, "validator", p), 0, Vec::new()),
        Some(toml::Value::Table(t)) => {
            cx.unknown(t, &["path", "accept_exit", "args"], "validator.");
            let path = match cx.required_string(t, "path") {
                Some(p) => cx.file(dir, "validator.path", &p),
                None => None,
            };
            let accept = match t.get("accept_exit") {
                None => 0,
                Some(toml::Value::Integer(n)) if (0..=255).contains(n) => *n as i32,
                Some(_) => {
                    cx.err(
                        "validator.accept_exit",
                        "expected an exit code from 0 to 255",
                    );
                    0
                }
            };
            (path, accept, cx.strings(t, "args"))
        }
        Some(_) => {
            cx.err(
                "validator",
                "expected a path or a table { path, accept_exit, args }",
            );
            (None, 0, Vec::new())
        }
    }
}

fn parse_interactor(cx: &mut Ctx, dir: &Path, v: Option<&toml::Value>) -> Option<Interactor> {
    let t = match v? {
        toml::Value::Table(t) => t,
        toml::Value::String(p) => {
            let path = cx.file(dir, "interactor", p)?;
            return Some(Interactor {
                path,
                protocol: InteractorProtocol::Kattis,
                flags: Vec::new(),
            });
        }
        _ => {
            cx.err(
                "interactor",
                "expected a path or a table { path, protocol, flags }",
            );
            return None;
        }
    };
    cx.unknown(t, &["path", "protocol", "flags"], "interactor.");
    let protocol = match cx.string(t, "protocol").as_deref() {
        None | Some("kattis") => InteractorProtocol::Kattis,
        Some("testlib") => InteractorProtocol::Testlib,
        Some(other) => {
            cx.err(
                "interactor.protocol",
                format!("expected \"kattis\" or \"testlib\", found {other:?}"),
            );
            InteractorProtocol::Kattis
        }
    };
    let flags = cx.strings(t, "flags");
    let path = cx.required_string(t, "path")?;
    let path = cx.file(dir, "interactor.path", &path)?;
    Some(Interactor {
        path,
        protocol,
        flags,
    })
}

fn plain_name(cx: &mut Ctx, key: &str, s: String) -> Option<String> {
    if s.is_empty() || s.contains('/') || s.starts_with('.') {
        cx.err(key, format!("{s:?} must be a plain file name"));
        return None;
    }
    Some(s)
}

fn parse_io(cx: &mut Ctx, v: Option<&toml::Value>) -> IoMode {
    let Some(v) = v else { return IoMode::default() };
    let Some(t) = v.as_table() else {
        cx.err("io", "expected a table with input_file and output_file");
        return IoMode::default();
    };
    cx.unknown(t, &["input_file", "output_file"], "io.");
    let input_file = cx
        .string(t, "input_file")
        .and_then(|s| plain_name(cx, "io.input_file", s));
    let output_file = cx
        .string(t, "output_file")
        .and_then(|s| plain_name(cx, "io.output_file", s));
    IoMode {
        input_file,
        output_file,
    }
}

fn tables<'a>(cx: &mut Ctx, key: &str, v: Option<&'a toml::Value>) -> Vec<&'a toml::Table> {
    match v {
        None => Vec::new(),
        Some(toml::Value::Array(a)) => a
            .iter()
            .filter_map(|e| {
                let t = e.as_table();
                if t.is_none() {
                    cx.err(key, format!("expected [[{key}]] tables"));
                }
                t
            })
            .collect(),
        Some(_) => {
            cx.err(key, format!("expected [[{key}]] tables"));
            Vec::new()
        }
    }
}

fn parse_generate(cx: &mut Ctx, dir: &Path, v: Option<&toml::Value>) -> Vec<Generated> {
    let mut out: Vec<Generated> = Vec::new();
    for (i, t) in tables(cx, "generate", v).into_iter().enumerate() {
        let k = |name: &str| format!("generate[{i}].{name}");
        cx.unknown(t, &["test", "program", "args"], &format!("generate[{i}]."));
        let test = cx
            .string(t, "test")
            .and_then(|s| plain_name(cx, &k("test"), s));
        let program = cx
            .string(t, "program")
            .and_then(|p| cx.file(dir, &k("program"), &p));
        let args = cx.strings(t, "args");
        if let (Some(test), Some(program)) = (test, program) {
            if out.iter().any(|g| g.test == test) {
                cx.err(&k("test"), format!("test {test:?} is generated twice"));
            }
            out.push(Generated {
                test,
                program,
                args,
            });
        } else if !t.contains_key("test") || !t.contains_key("program") {
            cx.err(&format!("generate[{i}]"), "needs test and program");
        }
    }
    out
}

fn parse_stress(cx: &mut Ctx, dir: &Path, v: Option<&toml::Value>) -> Option<Stress> {
    let t = v?.as_table().or_else(|| {
        cx.err("stress", "expected a table");
        None
    })?;
    cx.unknown(t, &["generator", "args", "brute", "count"], "stress.");
    let generator = cx
        .string(t, "generator")
        .and_then(|p| cx.file(dir, "stress.generator", &p));
    let brute = cx
        .string(t, "brute")
        .and_then(|p| cx.file(dir, "stress.brute", &p));
    let args = cx.strings(t, "args");
    let count = match t.get("count") {
        None => 100,
        Some(toml::Value::Integer(n)) if *n > 0 && *n <= 100_000 => *n as u32,
        Some(_) => {
            cx.err("stress.count", "expected a positive integer");
            100
        }
    };
    Some(Stress {
        generator: generator?,
        args,
        brute: brute?,
        count,
    })
}

fn parse_groups(cx: &mut Ctx, v: Option<&toml::Value>) -> Vec<Group> {
    let mut out = Vec::new();
    for (i, t) in tables(cx, "group", v).into_iter().enumerate() {
        cx.unknown(t, &["name", "points", "tests"], &format!("group[{i}]."));
        let name = cx
            .string(t, "name")
            .unwrap_or_else(|| format!("group {}", i + 1));
        let points = match t.get("points") {
            Some(toml::Value::Integer(n)) if *n >= 0 => *n as u32,
            None => 0,
            Some(_) => {
                cx.err(
                    &format!("group[{i}].points"),
                    "expected a non-negative integer",
                );
                0
            }
        };
        let tests = cx.strings(t, "tests");
        out.push(Group {
            name,
            points,
            tests,
        });
    }
    out
}

/// Orders "2" before "10" inside names, so tests run in the order people number them.
pub fn natural_key(s: &str) -> Vec<(u8, u64, String)> {
    let mut out = Vec::new();
    let mut chars = s.chars().peekable();
    while let Some(&c) = chars.peek() {
        if c.is_ascii_digit() {
            let mut n = String::new();
            while let Some(&d) = chars.peek().filter(|d| d.is_ascii_digit()) {
                n.push(d);
                chars.next();
            }
            out.push((0, n.parse().unwrap_or(u64::MAX), n));
        } else {
            let mut t = String::new();
            while let Some(&d) = chars.peek().filter(|d| !d.is_ascii_digit()) {
                t.push(d);
                chars.next();
            }
            out.push((1, 0, t));
        }
    }
    out
}

fn discover_tests(cx: &mut Ctx, dir: &Path, generate: &[Generated]) -> Vec<TestCase> {
    let tests_dir = dir.join("tests");
    let Ok(entries) = std::fs::read_dir(&tests_dir) else {
        cx.errors
            .push(format!("{}: no tests folder", tests_dir.display()));
        return Vec::new();
    };
    let mut names: Vec<String> = Vec::new();
    for e in entries.flatten() {
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".in") {
            names.push(stem.to_string());
        } else if let Some(stem) = name.strip_suffix(".ans") {
            if !tests_dir.join(format!("{stem}.in")).exists()
                && !generate.iter().any(|g| g.test == stem)
            {
                cx.errors.push(format!(
                    "{}: answer without an input ({stem}.in)",
                    e.path().display()
                ));
            }
        }
    }
    for g in generate {
        if !names.contains(&g.test) {
            names.push(g.test.clone());
        }
    }
    // Samples first, then the rest in natural order.
    names.sort_by_key(|n| (!n.starts_with("sample"), natural_key(n)));
    if names.is_empty() {
        cx.errors
            .push(format!("{}: no tests (*.in files)", tests_dir.display()));
    }
    names
        .into_iter()
        .map(|name| TestCase {
            input: tests_dir.join(format!("{name}.in")),
            answer: tests_dir.join(format!("{name}.ans")),
            sample: name.starts_with("sample"),
            name,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn package(toml: &str, files: &[(&str, &str)]) -> tempfile::TempDir {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(d.path().join("problem.toml"), toml).unwrap();
        std::fs::create_dir(d.path().join("tests")).unwrap();
        for (name, text) in files {
            let p = d.path().join(name);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        d
    }

    #[test]
    fn loads_a_good_package() {
        let d = package(
            "title = \"A+B\"\ntime_limit = \"1s\"\nmemory_limit = \"64MiB\"\nchecker = { kind = \"float\", abs = 1e-3 }\n",
            &[("solution.rs", ""), ("tests/10.in", ""), ("tests/2.in", ""), ("tests/sample-1.in", ""), ("tests/2.ans", "")],
        );
        let p = Problem::load(d.path()).unwrap();
        let names: Vec<_> = p.tests.iter().map(|t| t.name.as_str()).collect();
        assert_eq!(names, ["sample-1", "2", "10"]);
        assert!(p.tests[0].sample && !p.tests[1].sample);
        assert_eq!(
            p.checker,
            CheckerSpec::Float {
                abs: 1e-3,
                rel: 1e-6
            }
        );
        assert_eq!(p.missing_answers().len(), 2);
    }

    #[test]
    fn collects_every_error_with_file_and_key() {
        let d = package(
            "time_limit = \"fast\"\nmemory_limit = 5\ncolour = 1\nchecker = \"fuzzy\"\nverdicts = \"icpc\"\n[io]\ninput_file = \"../x\"\n",
            &[("tests/1.in", "")],
        );
        let e = Problem::load(d.path()).unwrap_err();
        let file = d.path().join("problem.toml").display().to_string();
        let expect = [
            format!("{file}: colour: unknown key"),
            format!("{file}: title: missing"),
            format!(
                "{file}: time_limit: expected a duration like \"1s\" or \"500ms\", found \"fast\""
            ),
            format!("{file}: memory_limit: expected a string"),
            format!("{file}: checker: unknown checker \"fuzzy\""),
            format!("{file}: solution: "),
            format!("{file}: io.input_file: \"../x\" must be a plain file name"),
            format!("{file}: verdicts: expected \"ojd\" or \"kattis\", found \"icpc\""),
        ];
        for want in expect {
            assert!(
                e.errors.iter().any(|got| got.starts_with(&want)),
                "missing {want:?} in {:#?}",
                e.errors
            );
        }
    }

    #[test]
    fn default_flags_map_onto_builtins() {
        let parse = |flags: &[&str]| {
            let v: Vec<String> = flags.iter().map(|s| s.to_string()).collect();
            DefaultFlags::parse(&v).unwrap().into_checker()
        };
        assert_eq!(parse(&["case_sensitive"]), CheckerSpec::Tokens);
        assert_eq!(
            parse(&["case_sensitive", "float_absolute_tolerance", "1e-6"]),
            CheckerSpec::Float {
                abs: 1e-6,
                rel: 0.0
            }
        );
        assert!(matches!(parse(&[]), CheckerSpec::KattisDefault(_)));
        // Round trip through the flags an export writes.
        for spec in [
            CheckerSpec::Tokens,
            CheckerSpec::Float {
                abs: 1e-6,
                rel: 1e-9,
            },
        ] {
            let flags = spec.default_flags().unwrap().to_flags();
            assert_eq!(DefaultFlags::parse(&flags).unwrap().into_checker(), spec);
        }
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let d = package("title = \"x\"\ntime_limit = \n", &[]);
        let e = Problem::load(d.path()).unwrap_err().to_string();
        assert!(e.contains("problem.toml: line 2"), "{e}");
    }

    #[test]
    fn missing_folder() {
        let e = Problem::load(Path::new("/nonexistent/problem"))
            .unwrap_err()
            .to_string();
        assert_eq!(e, "/nonexistent/problem: no such problem folder");
    }
}
