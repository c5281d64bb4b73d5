//! A package's per-submission expectations: `submissions/submissions.yaml` (the 2023-07 draft
//! and 2025-09 formats) or the same map as JSON, `submissions.json` (in `submissions/` or, as
//! DOMjudge writes it, beside problem.yaml with keys starting `submissions/`).
//!
//! Each key is a glob over submission paths relative to `submissions/` (`*` within one name,
//! `{a,b}` alternatives; a rule for a folder applies to what it holds) and its value may say
//! `permitted` (every test's verdict is one of these), `required` (at least one test's verdict
//! is one of these), `score`, `message`, the same per test group, `language`, `entrypoint`,
//! `authors`, `model_solution` and `use_for_time_limit`. The format's default folders
//! (`accepted`, `wrong_answer`, `time_limit_exceeded`, `run_time_error`, `rejected`,
//! `brute_force`) come first; a key that is exactly one of those names replaces its defaults
//! (keys it does not give are kept), any other key adds its requirements.
//!
//! ojd verify holds one promise per submission, its folder, so a submission's combined
//! requirements are imported when they are exactly one of the folders' ([`Expectations::folder`]):
//! `permitted: [AC]` is `accepted/`; `[AC, WA]` with at least one `WA` is `wrong_answer/`;
//! `[AC, TLE]` with a `TLE` is `time_limit_exceeded/`; `[AC, RTE]` with an `RTE` is
//! `runtime_error/`; `[AC, TLE]` alone is `time_limit_exceeded_or_accepted/` (Polygon's tag of
//! that name); `[AC, TLE, RTE]` with a `TLE` or an `RTE` is
//! `time_limit_exceeded_or_memory_limit_exceeded/` in a folder of that name (how ojd's export
//! writes Polygon's tag, Kattis having no memory verdict). A required set that every permitted verdict meets says nothing and is
//! dropped; one is narrowed to the verdicts permitted (`rejected`'s `[RTE, TLE, WA]` with
//! `permitted: [AC, WA]` requires a `WA`). Anything else (a score, a message, requirements per
//! test group, another combination) is not a promise ojd can check, and the submission is
//! skipped, named with the key.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use serde_norway::Value;

use crate::files::read_text;
use crate::ImportError;

/// The format's verdicts, in its own spelling.
const VERDICTS: [&str; 4] = ["AC", "WA", "TLE", "RTE"];

type Set = BTreeSet<&'static str>;

/// One key's requirements.
#[derive(Clone, Debug, Default)]
struct Rule {
    pattern: String,
    permitted: Option<Set>,
    required: Option<Set>,
    /// Keys that ojd cannot hold as a promise (`score`, `message`, a test group).
    unsupported: Vec<String>,
    entrypoint: Option<String>,
}

/// The expectations file, read.
#[derive(Debug)]
pub(super) struct Expectations {
    pub(super) file: PathBuf,
    /// The default folders' rules, then the file's, in its order.
    defaults: Vec<Rule>,
    rules: Vec<Rule>,
}

fn set(v: &[&'static str]) -> Set {
    v.iter().copied().collect()
}

/// The format's default folders.
fn default_rules() -> Vec<Rule> {
    let rule =
        |p: &str, permitted: Option<&[&'static str]>, required: Option<&[&'static str]>| Rule {
            pattern: p.into(),
            permitted: permitted.map(set),
            required: required.map(set),
            ..Rule::default()
        };
    vec![
        rule("accepted", Some(&["AC"]), None),
        rule("rejected", None, Some(&["RTE", "TLE", "WA"])),
        rule("wrong_answer", Some(&["AC", "WA"]), Some(&["WA"])),
        rule("time_limit_exceeded", Some(&["AC", "TLE"]), Some(&["TLE"])),
        rule("run_time_error", Some(&["AC", "RTE"]), Some(&["RTE"])),
        rule(
            "brute_force",
            Some(&["AC", "RTE", "TLE"]),
            Some(&["RTE", "TLE"]),
        ),
    ]
}

/// Polygon's tag for a submission too slow or too big somewhere, an ojd folder of that name.
const TLE_OR_MLE: &str = "time_limit_exceeded_or_memory_limit_exceeded";

/// The ojd folders whose promise is a Kattis requirement: (folder, permitted, required).
const FOLDERS: [(&str, &[&str], &[&str]); 5] = [
    ("accepted", &["AC"], &[]),
    ("time_limit_exceeded_or_accepted", &["AC", "TLE"], &[]),
    ("wrong_answer", &["AC", "WA"], &["WA"]),
    ("time_limit_exceeded", &["AC", "TLE"], &["TLE"]),
    ("runtime_error", &["AC", "RTE"], &["RTE"]),
];

/// Reads the expectations of the package in `dir`, if it has a file of them.
pub(super) fn read(dir: &Path) -> Result<Option<Expectations>, ImportError> {
    let candidates = [
        dir.join("submissions/submissions.yaml"),
        dir.join("submissions/submissions.json"),
        dir.join("submissions.json"),
    ];
    let Some(file) = candidates.into_iter().find(|f| f.is_file()) else {
        return Ok(None);
    };
    let name = file.display().to_string();
    let bad = |message: String| ImportError::Invalid {
        file: name.clone(),
        message,
    };
    let text = read_text(&file)?;
    let doc: Value = serde_norway::from_str(&text).map_err(|e| bad(e.to_string()))?;
    let map = match doc {
        Value::Mapping(m) => m,
        Value::Null => Default::default(),
        _ => {
            return Err(bad(
                "expected a map from submission globs to expectations".into()
            ))
        }
    };
    let mut defaults = default_rules();
    let mut rules = Vec::new();
    for (k, v) in map {
        let Value::String(key) = k else {
            return Err(bad(format!("{k:?}: a key must be a submission glob")));
        };
        // DOMjudge's keys start with the folder and may end with a slash.
        let pattern = key
            .strip_prefix("submissions/")
            .unwrap_or(&key)
            .trim_end_matches('/')
            .to_string();
        let rule = parse_rule(&pattern, &v).map_err(|m| bad(format!("{key}: {m}")))?;
        match defaults.iter_mut().find(|d| d.pattern == pattern) {
            // A default folder's own name replaces its defaults, key by key.
            Some(d) => {
                if rule.permitted.is_some() {
                    d.permitted = rule.permitted;
                }
                if rule.required.is_some() {
                    d.required = rule.required;
                }
                d.unsupported.extend(rule.unsupported);
                d.entrypoint = rule.entrypoint.or(d.entrypoint.take());
            }
            None => rules.push(rule),
        }
    }
    Ok(Some(Expectations {
        file,
        defaults,
        rules,
    }))
}

fn verdicts(v: &Value) -> Result<Set, String> {
    let Value::Sequence(items) = v else {
        return Err("expected a list of verdicts (AC, WA, TLE, RTE)".into());
    };
    items
        .iter()
        .map(|i| {
            let s = i.as_str().unwrap_or("");
            VERDICTS
                .iter()
                .find(|v| **v == s)
                .copied()
                .ok_or_else(|| format!("{i:?}: not a verdict of the format (AC, WA, TLE, RTE)"))
        })
        .collect()
}

fn parse_rule(pattern: &str, v: &Value) -> Result<Rule, String> {
    let mut rule = Rule {
        pattern: pattern.into(),
        ..Rule::default()
    };
    let Value::Mapping(m) = v else {
        return Err("expected a map of expectations".into());
    };
    for (k, v) in m {
        let key = k.as_str().unwrap_or("");
        match key {
            "permitted" => {
                rule.permitted = Some(verdicts(v).map_err(|e| format!("permitted: {e}"))?)
            }
            "required" => rule.required = Some(verdicts(v).map_err(|e| format!("required: {e}"))?),
            "entrypoint" | "entry_point" => rule.entrypoint = v.as_str().map(String::from),
            // What a submission is and who wrote it, and the time limit's inference (ojd's
            // limit is given or set by the accepted submissions): not promises.
            "language" | "authors" | "author" | "model_solution" | "use_for_time_limit" => {}
            "score" | "message" => rule.unsupported.push(key.into()),
            // A test data group (`sample`, `secret/group1`, a glob of them).
            _ => rule
                .unsupported
                .push(format!("{key} (requirements per test group)")),
        }
    }
    Ok(rule)
}

/// Whether the glob `pattern` matches the submission at `rel` (relative to `submissions/`) or
/// one of its folders.
fn matches(pattern: &str, rel: &str) -> bool {
    let parts: Vec<&str> = rel.split('/').collect();
    expand_braces(pattern).iter().any(|p| {
        let segs: Vec<&str> = p.split('/').collect();
        segs.len() <= parts.len() && segs.iter().zip(&parts).all(|(s, n)| glob_name(s, n))
    })
}

/// `{a,b}` alternatives, expanded (nested ones too).
fn expand_braces(p: &str) -> Vec<String> {
    let Some(open) = p.find('{') else {
        return vec![p.to_string()];
    };
    let Some(close) = p[open..].find('}').map(|c| open + c) else {
        return vec![p.to_string()];
    };
    p[open + 1..close]
        .split(',')
        .flat_map(|alt| expand_braces(&format!("{}{alt}{}", &p[..open], &p[close + 1..])))
        .collect()
}

/// `*` matches any run of characters within one name.
fn glob_name(pattern: &str, name: &str) -> bool {
    match pattern.split_once('*') {
        None => pattern == name,
        Some((head, rest)) => {
            let Some(tail) = name.strip_prefix(head) else {
                return false;
            };
            (0..=tail.len())
                .filter(|i| tail.is_char_boundary(*i))
                .any(|i| glob_name(rest, &tail[i..]))
        }
    }
}

impl Expectations {
    /// The rules of the file itself (not the defaults) that apply to `rel`.
    fn own<'a>(&'a self, rel: &'a str) -> impl Iterator<Item = &'a Rule> {
        self.rules.iter().filter(move |r| matches(&r.pattern, rel))
    }

    /// Whether the file says anything about the submission at `rel` beyond its folder's
    /// defaults (a rule of its own, or its default folder's replaced).
    pub(super) fn speaks_of(&self, rel: &str) -> bool {
        self.own(rel).next().is_some()
            || self.defaults.iter().zip(default_rules()).any(|(d, orig)| {
                matches(&d.pattern, rel)
                    && (d.permitted != orig.permitted
                        || d.required != orig.required
                        || !d.unsupported.is_empty())
            })
    }

    /// The `entrypoint` given for the submission at `rel`, the last matching rule's.
    pub(super) fn entrypoint(&self, rel: &str) -> Option<String> {
        self.defaults
            .iter()
            .chain(&self.rules)
            .rev()
            .filter(|r| matches(&r.pattern, rel))
            .find_map(|r| r.entrypoint.clone())
    }

    /// The ojd folder whose promise is exactly what the rules require of the submission at `rel`,
    /// or why there is none.
    pub(super) fn folder(&self, rel: &str) -> Result<&'static str, String> {
        let all: Vec<&Rule> = self
            .defaults
            .iter()
            .chain(&self.rules)
            .filter(|r| matches(&r.pattern, rel))
            .collect();
        if let Some((r, key)) = all
            .iter()
            .find_map(|r| r.unsupported.first().map(|k| (r, k)))
        {
            return Err(format!(
                "{}: {key}: ojd verify promises one verdict per submission (its folder), not this",
                r.pattern
            ));
        }
        let mut permitted: Set = set(&VERDICTS);
        for r in &all {
            if let Some(p) = &r.permitted {
                permitted = permitted.intersection(p).copied().collect();
            }
        }
        // A required set every permitted verdict meets says nothing; the others count only
        // with what is permitted.
        let mut required: BTreeSet<Set> = BTreeSet::new();
        for r in &all {
            if let Some(q) = &r.required {
                if !permitted.is_subset(q) {
                    required.insert(q.intersection(&permitted).copied().collect());
                }
            }
        }
        for (folder, p, q) in FOLDERS {
            let want_q: BTreeSet<Set> = q.iter().map(|v| set(&[v])).collect();
            if permitted == set(p) && required == want_q {
                return Ok(folder);
            }
        }
        // Polygon's TLE-or-MLE as ojd's export writes it (Kattis has no memory verdict: a
        // program out of memory is an RTE there), read back to its folder by that folder's name
        // only: elsewhere the same rule (BAPCtools' `brute_force/`) permits any crash, which
        // ojd's folder does not.
        let tle_or_rte = BTreeSet::from([set(&["RTE", "TLE"])]);
        if rel
            .strip_prefix(TLE_OR_MLE)
            .is_some_and(|r| r.starts_with('/'))
            && permitted == set(&["AC", "RTE", "TLE"])
            && required == tle_or_rte
        {
            return Ok(TLE_OR_MLE);
        }
        // The format's own `rejected/`: anything permitted, some rejection required.
        let rejection = set(&["RTE", "TLE", "WA"]);
        if permitted == set(&VERDICTS) && required == BTreeSet::from([rejection]) {
            return Ok("rejected");
        }
        let list = |s: &Set| s.iter().copied().collect::<Vec<_>>().join(", ");
        let req: Vec<String> = required.iter().map(|q| format!("[{}]", list(q))).collect();
        Err(format!(
            "permitted [{}]{}: no ojd folder promises exactly that (accepted: [AC]; time_limit_exceeded_or_accepted: [AC, TLE]; wrong_answer, time_limit_exceeded, runtime_error: [AC, X] with at least one X; rejected: any, with at least one of RTE, TLE, WA)",
            list(&permitted),
            if req.is_empty() {
                String::new()
            } else {
                format!(" and required {}", req.join(" and "))
            }
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn exp(yaml: &str) -> Expectations {
        let d = tempfile::tempdir().unwrap();
        std::fs::create_dir_all(d.path().join("submissions")).unwrap();
        std::fs::write(d.path().join("submissions/submissions.yaml"), yaml).unwrap();
        let _c = crate::files::Confined::to(d.path()).unwrap();
        read(d.path()).unwrap().unwrap()
    }

    #[test]
    fn globs() {
        assert!(matches("accepted", "accepted/a.py"));
        assert!(matches("accepted/*", "accepted/a.py"));
        assert!(matches("*/a.{py,cpp}", "mixed/a.cpp"));
        assert!(matches("mixed/sl*.py", "mixed/slow.py"));
        assert!(!matches("mixed/sl*.py", "mixed/fast.py"));
        assert!(!matches("accepted/*", "accepted"));
        assert!(!matches("acc", "accepted/a.py"));
    }

    #[test]
    fn folders_from_requirements() {
        let e = exp("mixed/slow.py:\n  permitted: [AC, TLE]\n  required: [TLE]\nrejected/wa.py:\n  permitted: [AC, WA]\nwrong_answer/p.py:\n  secret/group1:\n    permitted: [AC]\ntime_limit_exceeded:\n  permitted: [AC, WA, TLE]\nbrute_force/b.py:\n  score: 30\nmixed/ok.py:\n  permitted: [AC]\n  authors: Someone\n");
        assert_eq!(e.folder("accepted/a.py"), Ok("accepted"));
        assert_eq!(e.folder("mixed/slow.py"), Ok("time_limit_exceeded"));
        assert_eq!(e.folder("mixed/ok.py"), Ok("accepted"));
        assert_eq!(
            e.folder("rejected/wa.py"),
            Ok("wrong_answer"),
            "rejected narrowed to WA"
        );
        assert!(e.speaks_of("time_limit_exceeded/t.py"));
        assert!(!e.speaks_of("accepted/a.py"));
        let why = e.folder("time_limit_exceeded/t.py").unwrap_err();
        assert!(
            why.contains("permitted [AC, TLE, WA] and required [TLE]"),
            "{why}"
        );
        let why = e.folder("wrong_answer/p.py").unwrap_err();
        assert!(
            why.contains("secret/group1 (requirements per test group)"),
            "{why}"
        );
        assert!(e.folder("brute_force/b.py").unwrap_err().contains("score"));
        // brute_force's default promise is none of ojd's.
        assert!(e.folder("brute_force/c.py").is_err());
        // rejected's default promise is ojd's `rejected/`.
        assert_eq!(e.folder("rejected/r.py"), Ok("rejected"));
    }

    /// The TLE-or-MLE folder that ojd's 2025-09 export writes comes back to that folder; the
    /// same rule on another folder permits any crash, which that folder does not.
    #[test]
    fn tle_or_mle_is_read_back_by_its_folder_only() {
        let rule = "permitted: [AC, TLE, RTE]\n  required: [TLE, RTE]\n";
        let e = exp(&format!("{TLE_OR_MLE}:\n  {rule}mixed/big.c:\n  {rule}"));
        assert_eq!(e.folder(&format!("{TLE_OR_MLE}/big.c")), Ok(TLE_OR_MLE));
        assert!(e.folder("mixed/big.c").is_err());
        assert!(e.folder(&format!("{TLE_OR_MLE}x/big.c")).is_err());
    }

    #[test]
    fn domjudge_json_and_bad_files() {
        let d = tempfile::tempdir().unwrap();
        std::fs::write(
            d.path().join("submissions.json"),
            "{\"submissions/mixed/x/\": {\"entry_point\": \"main.py\", \"permitted\": [\"AC\"]}}",
        )
        .unwrap();
        let _c = crate::files::Confined::to(d.path()).unwrap();
        let e = read(d.path()).unwrap().unwrap();
        assert_eq!(e.entrypoint("mixed/x"), Some("main.py".into()));
        assert_eq!(e.folder("mixed/x"), Ok("accepted"));
        std::fs::write(
            d.path().join("submissions.json"),
            "{\"a\": {\"permitted\": [\"OK\"]}}",
        )
        .unwrap();
        let err = read(d.path()).unwrap_err().to_string();
        assert!(
            err.contains("submissions.json: a: permitted: String(\"OK\"): not a verdict"),
            "{err}"
        );
    }
}
