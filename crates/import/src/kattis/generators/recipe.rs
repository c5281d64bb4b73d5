//! The reading of `generators/generators.yaml` into the test cases it makes (their paths under
//! `data/`, in BAPCtools' numbering, and what makes each): every key BAPCtools documents that
//! ojd does not read is refused, named. Nothing is run here (see [`super`]).

use std::path::{Path, PathBuf};

use serde_norway::Value;

use crate::ImportError;

/// One test case of generators.yaml: its path under `data/` (without extension) and what makes
/// it.
pub(super) struct Case {
    pub(super) path: PathBuf,
    pub(super) make: Make,
}

pub(super) enum Make {
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

pub(super) fn text(v: &Value) -> Option<String> {
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

/// What generators.yaml makes: every test case in the order BAPCtools makes them, and the
/// root's `solution`.
pub(super) struct Recipe {
    /// (test case, its literal `in`, its literal `ans`).
    pub(super) cases: Vec<(Case, Option<String>, Option<String>)>,
    /// The root's `solution` (a path from the package's root).
    pub(super) solution: Option<String>,
    /// The random salt, for the seeds.
    pub(super) salt: String,
}

/// Reads `yaml_file` (the text `doc`) into its test cases; `file` names it in errors.
pub(super) fn read(
    file: &str,
    doc: &Value,
    warnings: &mut Vec<String>,
) -> Result<Recipe, ImportError> {
    let mut p = Parse {
        file: file.to_string(),
        salt: String::new(),
        cases: Vec::new(),
        next_number: 0,
        width: count_numbered(doc).to_string().len(),
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
    Ok(Recipe {
        cases: p.cases,
        solution,
        salt: p.salt,
    })
}
