//! A Kattis package's test data: `data/sample` and `data/secret` walked into ojd's flat test
//! names, the validator flags of `testdata.yaml` / `test_group.yaml` (one set per problem in
//! ojd, so flags that differ between groups are refused), and the score of each first-level
//! group of a scoring problem as a `[[group]]`.

use std::path::{Path, PathBuf};

use serde_norway::Value;

use super::yaml::{read_yaml, yaml_f64, yaml_string, yaml_words, Src};
use crate::files::{confined, copy_text, entries, safe_name, write_file};
use crate::ImportError;
use ojd_judge::Group;

/// Everything found under `data/`.
pub(super) struct Data {
    /// (test name, input, answer); the samples first.
    pub(super) tests: Vec<(String, PathBuf, PathBuf)>,
    pub(super) samples: usize,
    pub(super) output_flags: Option<Vec<String>>,
    pub(super) input_flags: Option<Vec<String>>,
    /// The input validators' flags differ between groups: the inputs are not validated.
    pub(super) input_flags_vary: bool,
    pub(super) groups: Vec<Group>,
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

/// The output flags of one `testdata.yaml` / `test_group.yaml` for a CMS comparator that `ojd
/// export kattis` wrapped (`export/wrap.rs`), which reads its group's flags itself: `threshold
/// T` (a CMS `GroupThreshold`: its `T`), `points P` (the group's points, of which it gives a
/// part of a test's credit: nothing to keep, the group's score says it) or none. Any other
/// flags are refused, naming the file.
fn cms_flags(path: &Path, y: &Value) -> Result<Option<f64>, ImportError> {
    let mut threshold = None;
    for key in ["output_validator_flags", "output_validator_args"] {
        let Some(v) = y.get(key) else { continue };
        let words = yaml_words(v);
        let number = |w: &str| w.parse::<f64>().ok().filter(|t| t.is_finite() && *t > 0.0);
        match words.as_slice() {
            [] => {}
            [k, t] if k == "threshold" && number(t).is_some() => threshold = number(t),
            [k, p] if k == "points" && number(p).is_some() => {}
            _ => {
                return Err(ImportError::Unsupported {
                    file: path.display().to_string(),
                    key: key.into(),
                    what: format!(
                        "{words:?}: the output validator is a CMS comparator wrapped by `ojd export kattis`, whose flags are `threshold T` or `points P` (T and P above 0)"
                    ),
                })
            }
        }
    }
    Ok(threshold)
}

/// `cms_comparator`: the output validator is a CMS comparator that `ojd export kattis` wrapped
/// ([`cms_flags`]), whose flags are its groups' own.
pub(super) fn data(
    src: &Src<'_>,
    (scoring, interactive, cms_comparator): (bool, bool, bool),
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
        let mut inside = Descent::from(&root.join("secret"));
        inside.enter(&g)?;
        collect_yamls(&g, &mut yamls, &mut inside)?;
    }
    let secret = root.join("secret");
    for (path, y) in &yamls {
        if cms_comparator {
            // A threshold is a first-level group's, of a scoring problem (`groups`).
            let group = path.parent().and_then(Path::parent) == Some(secret.as_path());
            if cms_flags(path, y)?.is_some() && !(scoring && group) {
                return Err(ImportError::Unsupported {
                    file: path.display().to_string(),
                    key: "output_validator_flags".into(),
                    what: "a CMS comparator's `threshold T` belongs to a test group of data/secret of a scoring problem (a CMS GroupThreshold)".into(),
                });
            }
        } else {
            walk_flags(path, y, "output_validator_flags", &mut d.output_flags)?;
        }
        if let Err(e) = walk_flags(path, y, "input_validator_flags", &mut d.input_flags) {
            warnings.push(format!("{e}: inputs are not validated"));
            d.input_flags_vary = true;
        }
        if let (false, Some(v)) = (cms_comparator, y.get("output_validator_args")) {
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
        (true, interactive),
        &mut Descent::from(&root.join("sample")),
    )?;
    d.samples = d.tests.len();
    walk(
        &root.join("secret"),
        "",
        &mut d.tests,
        (false, interactive),
        &mut Descent::from(&root.join("secret")),
    )?;
    if d.tests.is_empty() {
        return Err(ImportError::Invalid {
            file: root.display().to_string(),
            message: "no tests (*.in) in data/sample or data/secret".into(),
        });
    }
    if d.tests.len() == d.samples {
        // DOMjudge judges the samples too: they are then the whole test set, all visible.
        warnings.push(format!(
            "{}: no secret tests: the {} samples are all the tests, judged as DOMjudge judges them (students see every test); add data/secret/ for hidden ones",
            root.join("secret").display(),
            d.samples
        ));
    }
    if scoring {
        d.groups = groups(&root.join("secret"), cms_comparator, warnings)?;
    }
    Ok(d)
}

/// The deepest nesting of test groups a package may have (Kattis packages use two or three).
const MAX_DEPTH: usize = 16;

/// The folders a walk of test groups is inside (resolved), so that a link may lead to another
/// group of the package but never back into a folder that contains it (a cycle, which would
/// never end), and nesting stays within [`MAX_DEPTH`].
struct Descent(Vec<PathBuf>);

impl Descent {
    fn from(top: &Path) -> Descent {
        Descent(top.canonicalize().into_iter().collect())
    }

    /// Steps into the folder `dir` (a folder of the package, see [`confined`]).
    fn enter(&mut self, dir: &Path) -> Result<(), ImportError> {
        let canon = confined(dir)?;
        let refuse = |message: String| {
            Err(ImportError::Invalid {
                file: dir.display().to_string(),
                message,
            })
        };
        if self.0.contains(&canon) {
            return refuse(format!(
                "leads back to {}, a folder that contains it (a cycle): refused",
                canon.display()
            ));
        }
        if self.0.len() > MAX_DEPTH {
            return refuse(format!(
                "test groups nested deeper than {MAX_DEPTH} folders: refused"
            ));
        }
        self.0.push(canon);
        Ok(())
    }

    fn leave(&mut self) {
        self.0.pop();
    }
}

fn collect_yamls(
    dir: &Path,
    out: &mut Vec<(PathBuf, Value)>,
    inside: &mut Descent,
) -> Result<(), ImportError> {
    if let Some(y) = group_yaml(dir)? {
        out.push(y);
    }
    for sub in entries(dir).into_iter().filter(|p| p.is_dir()) {
        inside.enter(&sub)?;
        collect_yamls(&sub, out, inside)?;
        inside.leave();
    }
    Ok(())
}

/// Test cases under `dir`, depth first, named by their path joined with `-`.
/// An interactive problem's test may have no answer file (an empty one is written).
fn walk(
    dir: &Path,
    prefix: &str,
    out: &mut Vec<(String, PathBuf, PathBuf)>,
    (sample, interactive): (bool, bool),
    inside: &mut Descent,
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
            // A linked folder may be another group of the package, never a host folder nor
            // a folder the walk is inside.
            inside.enter(&p)?;
            walk(&p, &joined(&name), out, (sample, interactive), inside)?;
            inside.leave();
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

/// The first-level groups of `data/secret` with their score (and, for a wrapped CMS
/// comparator, their `GroupThreshold`: [`cms_flags`]).
fn groups(
    secret: &Path,
    cms_comparator: bool,
    warnings: &mut Vec<String>,
) -> Result<Vec<Group>, ImportError> {
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
        let Some(milli) = ojd_judge::points::from_f64(score) else {
            return Err(err(
                "score",
                "ojd scores non-negative points with at most three decimals",
            ));
        };
        let test_prefix = format!("{}-", safe_name(&name));
        let mut group = Group::exact(name, milli, vec![test_prefix]);
        if cms_comparator {
            group.threshold = cms_flags(&file, &y)?;
        }
        out.push(group);
    }
    Group::apportion(&mut out);
    Ok(out)
}

/// Writes the tests into the new package's `tests/`; an interactive problem's test without an
/// answer file gets an empty one, since ojd expects every answer.
pub(super) fn copy_tests(data: &Data, out: &Path) -> Result<(), ImportError> {
    for (name, input, answer) in &data.tests {
        copy_text(input, &out.join("tests").join(format!("{name}.in")))?;
        let ans_to = out.join("tests").join(format!("{name}.ans"));
        if answer.is_file() {
            copy_text(answer, &ans_to)?;
        } else {
            write_file(&ans_to, b"")?;
        }
    }
    Ok(())
}
