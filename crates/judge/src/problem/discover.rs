//! The tests and the groups of a package: every `tests/*.in` (and every generated input), samples
//! first and then in natural order ("2" before "10"), and the scoring groups of `[[group]]`.

use std::path::Path;

use super::manifest::{tables, Ctx};
use super::{Aggregation, Generated, Group, TestCase};

pub(super) fn parse_groups(cx: &mut Ctx, v: Option<&toml::Value>) -> Vec<Group> {
    let mut out = Vec::new();
    for (i, t) in tables(cx, "group", v).into_iter().enumerate() {
        cx.unknown(
            t,
            &["name", "points", "tests", "aggregation", "threshold"],
            &format!("group[{i}]."),
        );
        let name = cx
            .string(t, "name")
            .unwrap_or_else(|| format!("group {}", i + 1));
        let points_milli = match t.get("points").map(crate::points::from_toml) {
            None => 0,
            Some(Ok(m)) => m,
            Some(Err(e)) => {
                cx.err(&format!("group[{i}].points"), e);
                0
            }
        };
        let tests = cx.strings(t, "tests");
        let mut group = Group::exact(name, points_milli, tests);
        group.aggregation = match cx.string(t, "aggregation").as_deref() {
            None | Some("min") => Aggregation::Min,
            Some("product") => Aggregation::Product,
            Some(other) => {
                cx.err(
                    &format!("group[{i}].aggregation"),
                    format!("expected \"min\" or \"product\", found {other:?}"),
                );
                Aggregation::Min
            }
        };
        group.threshold = match t.get("threshold") {
            None => None,
            Some(v) => match v.as_float().or_else(|| v.as_integer().map(|n| n as f64)) {
                Some(x) if x.is_finite() && x > 0.0 => Some(x),
                _ => {
                    cx.err(
                        &format!("group[{i}].threshold"),
                        format!("expected a number above 0, found {v}"),
                    );
                    None
                }
            },
        };
        if group.threshold.is_some() && group.aggregation == Aggregation::Product {
            cx.err(
                &format!("group[{i}].threshold"),
                "a group with a threshold is all or nothing: its aggregation cannot be \"product\"",
            );
        }
        out.push(group);
    }
    Group::apportion(&mut out);
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

pub(super) fn discover_tests(cx: &mut Ctx, dir: &Path, generate: &[Generated]) -> Vec<TestCase> {
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
