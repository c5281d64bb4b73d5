//! From the manifest to the model: [`Problem::load`] checks every key of `problem.toml` (limits,
//! checker, validator, interactor, file I/O, generators, stress) and builds the [`Problem`], or
//! fails with every error found.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use super::discover::{discover_tests, parse_groups};
use super::manifest::{self, plain_name, tables, Ctx};
use super::{
    CheckerSpec, DefaultFlags, Generated, Group, Interactor, InteractorProtocol, IoMode, LoadError,
    Margins, Problem, Stress, TestCase, VerdictRules,
};

impl Problem {
    /// Loads and validates the package in `dir`.
    pub fn load(dir: &Path) -> Result<Problem, LoadError> {
        let (mut cx, table) = manifest::read(dir)?;
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
        let solution_name = cx
            .string(&table, "solution")
            .unwrap_or_else(|| "solution.rs".into());
        // With the answers given, the reference is optional: nothing needs it to make answers
        // (`ojd verify` judges it when there is one).
        let optional =
            answers_given && !table.contains_key("solution") && !dir.join(&solution_name).is_file();
        let solution = if optional {
            PathBuf::from(&solution_name)
        } else {
            cx.file(dir, "solution", &solution_name)
                .unwrap_or_else(|| solution_name.into())
        };
        let (validator, validator_accept, validator_args) =
            parse_validator(&mut cx, dir, table.get("validator"));
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
        let uuid = cx
            .string(&table, "uuid")
            .and_then(|u| match parse_uuid(&u) {
                Some(u) => Some(u),
                None => {
                    cx.err(
                        "uuid",
                        format!("expected a UUID (8-4-4-4-12 hex digits), found {u:?}"),
                    );
                    None
                }
            });
        let passes = match table.get("passes") {
            None => None,
            Some(toml::Value::Integer(n)) if (2..=100).contains(n) => {
                let kattis_checker = matches!(checker, CheckerSpec::Kattis { .. });
                let kattis_interactor = interactor
                    .as_ref()
                    .is_some_and(|i| i.protocol == InteractorProtocol::Kattis);
                if !kattis_checker && !kattis_interactor {
                    cx.err(
                        "passes",
                        "a multi-pass problem needs a Kattis output validator (checker kind = \"kattis\") or a Kattis interactor: they write nextpass.in",
                    );
                }
                Some(*n as u32)
            }
            Some(other) => {
                cx.err(
                    "passes",
                    format!("expected a whole number of passes from 2 to 100, found {other}"),
                );
                None
            }
        };
        if matches!(checker, CheckerSpec::Cms { .. }) && interactor.is_some() {
            cx.err(
                "checker",
                "a cms checker judges an output file; an interactive problem's interactor decides instead",
            );
        }
        if matches!(checker, CheckerSpec::Cms { .. }) && passes.is_some() {
            cx.err(
                "checker",
                "a cms checker cannot run a multi-pass problem (it writes no nextpass.in)",
            );
        }
        let margins = parse_margins(&mut cx, table.get("limits"));
        let compile = parse_compile(&mut cx, table.get("compile"));
        let tests = discover_tests(&mut cx, dir, &generate);
        check_thresholds(&mut cx, &checker, &groups, &tests);
        // Both limits are required: when either is absent or bad, an error says so.
        let (Some(time_limit), Some(memory_limit), true) =
            (time_limit, memory_limit, cx.errors.is_empty())
        else {
            return Err(LoadError { errors: cx.errors });
        };
        Ok(Problem {
            id,
            dir: dir.to_path_buf(),
            title,
            source,
            time_limit,
            wall_time_limit,
            memory_limit,
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
            uuid,
            passes,
            margins,
            compile,
        })
    }
}

/// `u` as a UUID in its canonical form (lowercase `8-4-4-4-12` hex digits), if it is one.
pub fn parse_uuid(u: &str) -> Option<String> {
    let u = u.trim().to_ascii_lowercase();
    let parts: Vec<&str> = u.split('-').collect();
    let lens: Vec<usize> = parts.iter().map(|p| p.len()).collect();
    (lens == [8, 4, 4, 4, 12]
        && parts
            .iter()
            .all(|p| p.bytes().all(|b| b.is_ascii_hexdigit())))
    .then_some(u)
}

/// `[compile]`: per language id, options appended to that language's compile command. Each is
/// one word starting with `-`; `-o` is refused (where the program goes is the profile's).
fn parse_compile(cx: &mut Ctx, v: Option<&toml::Value>) -> BTreeMap<String, Vec<String>> {
    let mut out = BTreeMap::new();
    let Some(v) = v else { return out };
    let Some(t) = v.as_table() else {
        cx.err("compile", "expected a table of language id = [options]");
        return out;
    };
    for (lang, opts) in t {
        let key = format!("compile.{lang}");
        let Some(list) = opts.as_array() else {
            cx.err(&key, "expected an array of option strings");
            continue;
        };
        let mut kept = Vec::new();
        for o in list {
            match o.as_str() {
                Some(o) if o.starts_with("-o") => cx.err(
                    &key,
                    format!("{o:?}: the output file is the language profile's, not the problem's"),
                ),
                Some(o) if o.len() > 1 && o.starts_with('-') && !o.contains('\0') => {
                    kept.push(o.to_string())
                }
                Some(o) => cx.err(
                    &key,
                    format!("{o:?} is not an option (one word starting with -)"),
                ),
                None => cx.err(&key, "expected an array of option strings"),
            }
        }
        out.insert(lang.clone(), kept);
    }
    out
}

/// `[limits]`: the Kattis timing margins, numbers of at least 1 (each defaults as in Kattis).
fn parse_margins(cx: &mut Ctx, v: Option<&toml::Value>) -> Margins {
    let mut m = Margins::default();
    let t = match v {
        None => return m,
        Some(toml::Value::Table(t)) => t,
        Some(_) => {
            cx.err(
                "limits",
                "expected a table ([limits] with ac_to_time_limit, time_limit_to_tle)",
            );
            return m;
        }
    };
    cx.unknown(t, &["ac_to_time_limit", "time_limit_to_tle"], "limits.");
    for (key, slot) in [
        ("ac_to_time_limit", &mut m.ac_to_time_limit),
        ("time_limit_to_tle", &mut m.time_limit_to_tle),
    ] {
        let n = match t.get(key) {
            None => continue,
            Some(toml::Value::Float(f)) => *f,
            Some(toml::Value::Integer(i)) => *i as f64,
            Some(_) => f64::NAN,
        };
        if n.is_finite() && (1.0..=100.0).contains(&n) {
            *slot = n;
        } else {
            cx.err(
                &format!("limits.{key}"),
                "expected a number from 1 to 100 (a multiple of the time limit)",
            );
        }
    }
    m
}

fn parse_checker(cx: &mut Ctx, dir: &Path, v: Option<&toml::Value>) -> CheckerSpec {
    let kinds = "\"tokens\", \"exact\", \"lines\", \"float\" or a table with kind = \"float\", \
                 \"program\", \"kattis\", \"cms\" or \"kattis-default\"";
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
                Some("cms") => match t.get("path").and_then(|p| p.as_str()) {
                    Some(p) => {
                        let path = cx.file(dir, "checker.path", p).unwrap_or_default();
                        CheckerSpec::Cms { path }
                    }
                    None => {
                        cx.err("checker.path", "missing (the CMS checker's source)");
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

/// A group's `threshold` reads a `cms` checker's outcome, and a test has at most one.
fn check_thresholds(cx: &mut Ctx, checker: &CheckerSpec, groups: &[Group], tests: &[TestCase]) {
    for (i, g) in groups.iter().enumerate() {
        if g.threshold.is_some() && !matches!(checker, CheckerSpec::Cms { .. }) {
            cx.err(
                &format!("group[{i}].threshold"),
                "a threshold applies to a cms checker's outcome: the problem needs checker = { kind = \"cms\", ... }",
            );
        }
    }
    for t in tests {
        let mut held = groups
            .iter()
            .enumerate()
            .filter(|(_, g)| g.threshold.is_some() && g.holds(&t.name));
        if let (Some((a, ga)), Some((b, gb))) = (held.next(), held.next()) {
            if ga.threshold != gb.threshold {
                cx.err(
                    &format!("group[{b}].threshold"),
                    format!(
                        "test {} is in group[{a}] (threshold {}) and group[{b}] (threshold {}): a test has one threshold",
                        t.name,
                        ga.threshold.unwrap_or_default(),
                        gb.threshold.unwrap_or_default()
                    ),
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::problem::Aggregation;

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

    /// `checker = { kind = "cms" }` and fractional group points load; a cms checker with an
    /// interactor, and points with more than three decimals, are errors naming the key.
    #[test]
    fn cms_checkers_and_fractional_points() {
        let head = "title = \"T\"\ntime_limit = \"1s\"\nmemory_limit = \"64MiB\"\n";
        let files = [
            ("check.cpp", "int main(){}"),
            ("i.cpp", "int main(){}"),
            ("solution.rs", "fn main(){}"),
            ("tests/1.in", "1\n"),
            ("tests/2.in", "2\n"),
        ];
        let d = package(
            &format!("{head}checker = {{ kind = \"cms\", path = \"check.cpp\" }}\n[[group]]\nname = \"a\"\npoints = 12.5\ntests = [\"1\"]\n[[group]]\nname = \"b\"\npoints = 87.5\ntests = [\"2\"]\n"),
            &files,
        );
        let p = Problem::load(d.path()).unwrap();
        assert_eq!(
            p.checker,
            CheckerSpec::Cms {
                path: "check.cpp".into()
            }
        );
        let g: Vec<(u32, u32)> = p
            .groups
            .iter()
            .map(|g| (g.points_milli, g.points))
            .collect();
        assert_eq!(g, [(12_500, 13), (87_500, 87)]);
        let d = package(
            &format!("{head}checker = {{ kind = \"cms\", path = \"check.cpp\" }}\ninteractor = {{ path = \"i.cpp\" }}\n[[group]]\npoints = 1.0005\ntests = [\"1\"]\n"),
            &files,
        );
        let e = Problem::load(d.path()).unwrap_err().to_string();
        assert!(
            e.contains("checker: a cms checker judges an output file"),
            "{e}"
        );
        assert!(e.contains("group[0].points: 1.0005: expected a non-negative number of points with at most three decimals"), "{e}");

        // aggregation and threshold (CMS's GroupMul and GroupThreshold).
        let cms = "checker = { kind = \"cms\", path = \"check.cpp\" }\n";
        let d = package(
            &format!("{head}{cms}[[group]]\npoints = 40\ntests = [\"1\"]\naggregation = \"product\"\n[[group]]\npoints = 60\ntests = [\"2\"]\nthreshold = 1.5\n"),
            &files,
        );
        let p = Problem::load(d.path()).unwrap();
        let g: Vec<(Aggregation, Option<f64>)> = p
            .groups
            .iter()
            .map(|g| (g.aggregation, g.threshold))
            .collect();
        assert_eq!(
            g,
            [(Aggregation::Product, None), (Aggregation::Min, Some(1.5))]
        );
        assert_eq!((p.threshold("1"), p.threshold("2")), (None, Some(1.5)));
        for (groups, checker, want) in [
            ("[[group]]\npoints = 1\ntests = [\"1\"]\naggregation = \"max\"\n", cms, "group[0].aggregation: expected \"min\" or \"product\", found \"max\""),
            ("[[group]]\npoints = 1\ntests = [\"1\"]\nthreshold = 0\n", cms, "group[0].threshold: expected a number above 0, found 0"),
            ("[[group]]\npoints = 1\ntests = [\"1\"]\nthreshold = 2\naggregation = \"product\"\n", cms, "group[0].threshold: a group with a threshold is all or nothing"),
            ("[[group]]\npoints = 1\ntests = [\"1\"]\nthreshold = 2\n", "", "group[0].threshold: a threshold applies to a cms checker's outcome"),
            ("[[group]]\npoints = 1\ntests = [\"1\"]\nthreshold = 2\n[[group]]\npoints = 1\ntests = [\"\"]\nthreshold = 3\n", cms, "group[1].threshold: test 1 is in group[0] (threshold 2) and group[1] (threshold 3)"),
        ] {
            let d = package(&format!("{head}{checker}{groups}"), &files);
            let e = Problem::load(d.path()).unwrap_err().to_string();
            assert!(e.contains(want), "{groups}: {e}");
        }
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
    fn margins_default_to_kattis_and_bad_ones_name_their_key() {
        let base = "title = \"t\"\ntime_limit = \"1s\"\nmemory_limit = \"64MiB\"\n";
        let files = [("solution.rs", ""), ("tests/1.in", ""), ("tests/1.ans", "")];
        // (what is added to problem.toml, the margins or the start of the error after the file)
        type Row<'a> = (&'a str, Result<(f64, f64), &'a str>);
        let table: &[Row] = &[
            ("", Ok((2.0, 1.5))),
            ("[limits]\n", Ok((2.0, 1.5))),
            ("[limits]\nac_to_time_limit = 3\n", Ok((3.0, 1.5))),
            ("[limits]\ntime_limit_to_tle = 4.0\n", Ok((2.0, 4.0))),
            (
                "[limits]\nac_to_time_limit = 1.25\ntime_limit_to_tle = 1\n",
                Ok((1.25, 1.0)),
            ),
            (
                "[limits]\nac_to_time_limit = 0.5\n",
                Err("limits.ac_to_time_limit: expected a number from 1"),
            ),
            (
                "[limits]\ntime_limit_to_tle = \"2\"\n",
                Err("limits.time_limit_to_tle: expected a number from 1"),
            ),
            (
                "[limits]\ntime_limit_to_tle = nan\n",
                Err("limits.time_limit_to_tle: expected a number from 1"),
            ),
            (
                "[limits]\ntime_safety_margin = 4\n",
                Err("limits.time_safety_margin: unknown key"),
            ),
            ("limits = 2\n", Err("limits: expected a table")),
        ];
        for (extra, want) in table {
            let d = package(&format!("{base}{extra}"), &files);
            let file = d.path().join("problem.toml").display().to_string();
            match (Problem::load(d.path()), want) {
                (Ok(p), Ok((ac, tle))) => assert_eq!(
                    p.margins,
                    Margins {
                        ac_to_time_limit: *ac,
                        time_limit_to_tle: *tle
                    },
                    "{extra:?}"
                ),
                (Err(e), Err(msg)) => assert!(
                    e.errors
                        .iter()
                        .any(|got| got.starts_with(&format!("{file}: {msg}"))),
                    "{extra:?}: {:#?}",
                    e.errors
                ),
                (got, want) => panic!("{extra:?}: got {got:?}, want {want:?}"),
            }
        }
    }

    #[test]
    fn compile_options_are_read_per_language_and_bad_ones_name_their_key() {
        let base = "title = \"t\"\ntime_limit = \"1s\"\nmemory_limit = \"64MiB\"\n";
        let files = [("solution.rs", ""), ("tests/1.in", ""), ("tests/1.ans", "")];
        let d = package(
            &format!("{base}[compile]\ncpp = [\"-O2\", \"-std=gnu++23\"]\n"),
            &files,
        );
        let p = Problem::load(d.path()).unwrap();
        assert_eq!(p.compile_options("cpp"), ["-O2", "-std=gnu++23"]);
        assert!(p.compile_options("c").is_empty());
        for (extra, msg) in [
            (
                "[compile]\ncpp = [\"-o\", \"x\"]\n",
                "compile.cpp: \"-o\": the output file",
            ),
            (
                "[compile]\ncpp = [\"main.cpp\"]\n",
                "compile.cpp: \"main.cpp\" is not an option",
            ),
            (
                "[compile]\ncpp = \"-O2\"\n",
                "compile.cpp: expected an array",
            ),
            ("compile = 1\n", "compile: expected a table"),
        ] {
            let d = package(&format!("{base}{extra}"), &files);
            let file = d.path().join("problem.toml").display().to_string();
            let e = Problem::load(d.path()).unwrap_err();
            assert!(
                e.errors
                    .iter()
                    .any(|got| got.starts_with(&format!("{file}: {msg}"))),
                "{extra:?}: {:#?}",
                e.errors
            );
        }
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
