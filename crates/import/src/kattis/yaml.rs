//! A Kattis package's `problem.yaml`, in each edition of the format (legacy, 2023-07,
//! 2025-09): which edition it is, the title and credits, the kind of problem, the limits. Every
//! key ojd cannot honour is an error naming the file and the key ([`Src::unsupported`]).

use std::path::Path;

use serde_norway::Value;

use crate::files::{entries, read_text};
use crate::ImportError;

/// Which edition of the format the package follows.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(super) enum Version {
    Legacy,
    /// 2023-07 (and its drafts).
    V2023,
    /// 2025-09 (and its drafts).
    V2025,
}

/// The package folder and its parsed `problem.yaml`.
pub(super) struct Src<'a> {
    pub(super) dir: &'a Path,
    /// The path of `problem.yaml`, as errors name it.
    pub(super) yaml_file: String,
    yaml: Value,
    pub(super) version: Version,
}

impl<'a> Src<'a> {
    /// Reads `dir/problem.yaml` and tells its edition; an unknown edition is an error rather
    /// than a guess, since the editions read the same keys differently.
    pub(super) fn open(dir: &'a Path) -> Result<Src<'a>, ImportError> {
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
                message: format!(
                    "missing: not a Kattis problem package; {}",
                    crate::looks_like(dir)
                ),
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
        Ok(Src {
            dir,
            yaml_file: yaml_path.display().to_string(),
            yaml,
            version,
        })
    }

    pub(super) fn get(&self, key: &str) -> Option<&Value> {
        self.yaml.get(key)
    }

    pub(super) fn unsupported(&self, key: &str, what: impl Into<String>) -> ImportError {
        ImportError::Unsupported {
            file: self.yaml_file.clone(),
            key: key.into(),
            what: what.into(),
        }
    }
}

pub(super) fn read_yaml(path: &Path) -> Result<Value, ImportError> {
    let text = read_text(path)?;
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

pub(super) fn yaml_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Number(n) => Some(n.to_string()),
        Value::Bool(b) => Some(b.to_string()),
        _ => None,
    }
}

pub(super) fn yaml_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A list of flags, written as one string ("a b c") or a YAML list.
pub(super) fn yaml_words(v: &Value) -> Vec<String> {
    match v {
        Value::Sequence(s) => s.iter().filter_map(yaml_string).collect(),
        other => yaml_string(other)
            .map(|s| s.split_whitespace().map(String::from).collect())
            .unwrap_or_default(),
    }
}

/// `name` as a string, or the English (else the first) entry of a map by language.
pub(super) fn title(src: &Src<'_>) -> String {
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

pub(super) fn source_line(src: &Src<'_>) -> String {
    let mut parts = Vec::new();
    for key in ["source", "author", "credits"] {
        match src.get(key) {
            Some(Value::Mapping(m)) => {
                if let Some(n) = m.get("name").and_then(yaml_string) {
                    parts.push(n);
                } else if let Some(a) = m.get("authors") {
                    // A list of people, or one string naming one (or several, as written):
                    // a string is kept whole, never split into words.
                    match a {
                        Value::Sequence(s) => parts.extend(s.iter().filter_map(yaml_string)),
                        other => parts.extend(yaml_string(other)),
                    }
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
pub(super) fn kind(src: &Src<'_>) -> Result<(bool, bool, bool), ImportError> {
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
                // `passes`, below, reads the limit.
                "multi-pass" => custom = true,
                "score" => return Err(src.unsupported(
                    "validation",
                    "\"custom score\" (the output validator gives the score) is not supported: \
                         ojd scores by test groups",
                )),
                other => {
                    return Err(src.unsupported(
                        "validation",
                        format!(
                            "unknown value {other:?} (known: default, custom, interactive, multi-pass, score)"
                        ),
                    ))
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
                "multi-pass" => custom = true,
                other @ "submit-answer" => {
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
    if !has_validator && passes(src)?.is_some() {
        return Err(ImportError::Invalid {
            file: dir.join("output_validator").display().to_string(),
            message: "a multi-pass problem needs its output validator here (it writes nextpass.in)"
                .into(),
        });
    }
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

/// The time limit given by the package, in milliseconds, and its multiplier otherwise.
pub(super) fn given_time_limit(src: &Src<'_>) -> Result<(Option<u64>, f64), ImportError> {
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
        let text = read_text(&tl)?;
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

/// The package's timing margins as ojd's `[limits]` (ac_to_time_limit, time_limit_to_tle), each
/// when the package states it: `time_multiplier` and `time_safety_margin` in the legacy format,
/// `time_multipliers.ac_to_time_limit` and `time_multipliers.time_limit_to_tle` since 2023-07.
/// A value ojd cannot hold (under 1, over 100) is left out, and ojd's default applies.
pub(super) fn margins(src: &Src<'_>) -> (Option<f64>, Option<f64>) {
    let limits = src.get("limits");
    let lim = |k: &str| limits.and_then(|l| l.get(k));
    let (ac, tle) = match src.version {
        Version::Legacy => (lim("time_multiplier"), lim("time_safety_margin")),
        _ => {
            let m = lim("time_multipliers");
            (
                m.and_then(|m| m.get("ac_to_time_limit")),
                m.and_then(|m| m.get("time_limit_to_tle")),
            )
        }
    };
    let ok = |v: Option<&Value>| v.and_then(yaml_f64).filter(|v| (1.0..=100.0).contains(v));
    (ok(ac), ok(tle))
}

pub(super) fn mib(src: &Src<'_>, key: &str, default: u64) -> Result<u64, ImportError> {
    match src.get("limits").and_then(|l| l.get(key)) {
        None => Ok(default << 20),
        Some(v) => yaml_f64(v)
            .filter(|m| *m >= 1.0)
            .map(|m| (m * 1048576.0) as u64)
            .ok_or_else(|| src.unsupported(&format!("limits.{key}"), "expected a number of MiB")),
    }
}

/// The package's `uuid`, kept as its identity. One that is not a UUID (real packages carry
/// placeholders such as BAPCtools' `uuid: "x"`) is dropped with a warning naming it: the
/// problem is judged the same without it, and an export derives a stable one.
pub(super) fn uuid(src: &Src<'_>, warnings: &mut Vec<String>) -> Option<String> {
    let v = src.get("uuid")?;
    let u = yaml_string(v).and_then(|u| ojd_judge::parse_uuid(&u));
    if u.is_none() {
        warnings.push(format!(
            "{}: uuid: {} is not a UUID (8-4-4-4-12 hex digits); left out",
            src.yaml_file,
            match yaml_string(v) {
                Some(text) => format!("{text:?}"),
                None => "a value that is not text".into(),
            }
        ));
    }
    u
}

/// The number of passes of a multi-pass problem (`type: multi-pass`, or legacy `validation:
/// custom multi-pass`): `limits.validation_passes`, 2 when not given; `None` for other problems.
pub(super) fn passes(src: &Src<'_>) -> Result<Option<u32>, ImportError> {
    let has = |key: &str| {
        src.get(key)
            .is_some_and(|v| yaml_words(v).iter().any(|w| w == "multi-pass"))
    };
    if !has("type") && !has("validation") {
        return Ok(None);
    }
    match src.get("limits").and_then(|l| l.get("validation_passes")) {
        None => Ok(Some(2)),
        Some(v) => match v.as_u64() {
            Some(n @ 2..=100) => Ok(Some(n as u32)),
            _ => Err(src.unsupported(
                "limits.validation_passes",
                "expected a whole number of passes from 2 to 100",
            )),
        },
    }
}

#[cfg(test)]
mod tests {
    use crate::kattis::TestPackage;

    /// A placeholder `uuid` is a warning naming the file and the value, not a refused package;
    /// a real one is kept in its canonical form.
    #[test]
    fn a_uuid_that_is_not_one_is_left_out_with_a_warning() {
        let pkg = TestPackage::new("p");
        pkg.write("data/sample/1.in", "3\n");
        pkg.write("data/sample/1.ans", "3\n");
        pkg.write("submissions/accepted/a.py", "print(input())\n");
        let import = |uuid: &str, to: &str| {
            let yaml = format!("name: P\nuuid: {uuid}\nlimits:\n  time_limit: 1\n");
            pkg.write("problem.yaml", &yaml);
            pkg.import(to).unwrap()
        };
        let i = import("x", "a");
        let all = i.warnings.join("\n");
        assert!(
            all.contains(
                "problem.yaml: uuid: \"x\" is not a UUID (8-4-4-4-12 hex digits); left out"
            ),
            "{all}"
        );
        let toml = std::fs::read_to_string(pkg.out("a/problem.toml")).unwrap();
        assert!(!toml.contains("uuid"), "{toml}");
        let i = import("5BD2CCB4-7AD8-4D5C-9C7A-3A1F0B9E2D11", "b");
        assert!(!i.warnings.join("\n").contains("uuid"), "{:?}", i.warnings);
        let toml = std::fs::read_to_string(pkg.out("b/problem.toml")).unwrap();
        assert!(
            toml.contains("uuid = \"5bd2ccb4-7ad8-4d5c-9c7a-3a1f0b9e2d11\""),
            "{toml}"
        );
    }

    /// `credits.authors` as one string names its people as written: never split into words.
    #[test]
    fn credits_authors_as_a_string_is_kept_whole() {
        let pkg = TestPackage::new("p");
        pkg.write("data/sample/1.in", "3\n");
        pkg.write("data/sample/1.ans", "3\n");
        pkg.write("submissions/accepted/a.py", "print(input())\n");
        pkg.write(
            "problem.yaml",
            "problem_format_version: 2023-07-draft\nname: P\ncredits:\n  authors: Michael Z\u{fc}ndorf\nlimits:\n  time_limit: 1\n",
        );
        pkg.import("a").unwrap();
        let toml = std::fs::read_to_string(pkg.out("a/problem.toml")).unwrap();
        assert!(toml.contains("source = \"Michael Z\u{fc}ndorf\""), "{toml}");
    }
}
